# The GEGL operations in a real, headless GIMP 3 (gimp-console-3.0 under
# xvfb-run; Debian 13: scripts/test_debian13.sh), against the recblur CLI and
# the float64 reference. Registered whenever the operations and the tools the
# comparison needs are built; reported "Skipped" where GIMP 3 is not installed.
if(NOT TARGET recblur_gegl OR NOT TARGET recblur_cli OR NOT TARGET rb_magick_pixdiff
   OR NOT TARGET rb_host_reference)
  return()
endif()
# ImageMagick's command line makes the inputs: `magick` (7) or `convert` (6).
find_program(RB_MAGICK_COMMAND NAMES magick convert-im6.q16 convert HINTS /usr/bin)
if(NOT RB_MAGICK_COMMAND)
  message(STATUS "recblur: neither magick nor convert found: test_gimp3_gegl not registered")
  return()
endif()
find_program(RB_GIMP3_CONSOLE gimp-console-3.0)
if(NOT RB_GIMP3_CONSOLE)
  message(STATUS "recblur: gimp-console-3.0 not found: test_gimp3_gegl will report Skipped")
  set(RB_GIMP3_CONSOLE gimp-console-3.0)
endif()
add_test(NAME test_gimp3_gegl
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/test_gimp3_gegl.sh ${RB_GIMP3_CONSOLE}
                 $<TARGET_FILE:recblur_gegl> $<TARGET_FILE:recblur_cli>
                 $<TARGET_FILE:rb_magick_pixdiff> $<TARGET_FILE:rb_host_reference>
                 ${RB_MAGICK_COMMAND} ${CMAKE_CURRENT_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/gimp3_gegl)
set_tests_properties(test_gimp3_gegl PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 600 LABELS gimp3
  ENVIRONMENT "RECBLUR_PRESET_PATH=${PROJECT_SOURCE_DIR}/presets")
