# The GEGL operations in the real `gegl` command (Debian: gegl), against the
# recblur CLI; the pixel comparison is ImageMagick's (rb_magick_pixdiff), so
# engine-free. Registered when the operations, the CLI and those tools exist.
if(NOT TARGET recblur_gegl OR NOT TARGET recblur_cli OR NOT TARGET rb_magick_pixdiff)
  return()
endif()
find_program(RB_GEGL_COMMAND NAMES gegl)
if(NOT RB_GEGL_COMMAND OR NOT RB_IM6_CONVERT)
  message(STATUS "recblur: the gegl command (or convert) not found: GEGL host tests skipped")
  return()
endif()
pkg_get_variable(_rb_gegl_system_ops gegl-0.4 pluginsdir)
add_test(NAME test_gegl_cli
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/test_gegl_cli.sh ${RB_GEGL_COMMAND}
                 $<TARGET_FILE:recblur_cli> $<TARGET_FILE:rb_magick_pixdiff> ${RB_IM6_CONVERT}
                 ${CMAKE_CURRENT_BINARY_DIR}/gegl_cli)
# GEGL_PATH replaces GEGL's own folder: list ours first, then the system's.
set_tests_properties(test_gegl_cli PROPERTIES ENVIRONMENT
  "GEGL_PATH=${RECBLUR_GEGL_BINARY_DIR}:${_rb_gegl_system_ops};RECBLUR_PRESET_PATH=${PROJECT_SOURCE_DIR}/presets")
