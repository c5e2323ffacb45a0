# Tests of the ImageMagick module against the real ImageMagick 6 (`convert`,
# libMagickCore): registered only when the module is built. The module is found
# through MAGICK_CODER_FILTER_PATH (which replaces ImageMagick's own filter path).
if(NOT TARGET recblur_magick)
  return()
endif()
# Engine-free pixel comparison of two image files (read by ImageMagick 6 or 7);
# the GEGL and GIMP 3 host tests use it too.
add_executable(rb_magick_pixdiff ${CMAKE_CURRENT_SOURCE_DIR}/test_magick_pixdiff.c)
target_include_directories(rb_magick_pixdiff PRIVATE ${RB_MAGICK_INCLUDE_DIRS})
target_compile_options(rb_magick_pixdiff PRIVATE ${RB_MAGICK_CFLAGS} -Wall -Wextra)
target_compile_definitions(rb_magick_pixdiff PRIVATE RB_MAGICK_MAJOR=${RB_MAGICK_MAJOR})
target_link_libraries(rb_magick_pixdiff PRIVATE ${RB_MAGICK_LIBS})

# The real command line: IM6's convert by full path (a `convert` earlier in PATH
# may be something else); IM7's `magick`, the product's usage line, which
# (unlike convert) writes no output file when -process fails.
if(RB_MAGICK_MAJOR EQUAL 6)
  find_program(RB_IM6_CONVERT NAMES convert-im6.q16 convert-im6 convert HINTS /usr/bin NO_DEFAULT_PATH)
  if(NOT RB_IM6_CONVERT)
    find_program(RB_IM6_CONVERT NAMES convert-im6.q16 convert-im6)
  endif()
  set(RB_MAGICK_CLI ${RB_IM6_CONVERT})
else()
  find_program(RB_MAGICK_CLI NAMES magick)
endif()

set(RB_MAGICK_TEST_ENV
  "MAGICK_CODER_FILTER_PATH=${RECBLUR_MAGICK_MODULE_DIR}"
  "RECBLUR_PRESET_PATH=${PROJECT_SOURCE_DIR}/presets"
  "RECBLUR_TEST_DATA=${CMAKE_CURRENT_SOURCE_DIR}/data"
  "RB_MAGICK_MAJOR=${RB_MAGICK_MAJOR}")

# In process, through InvokeDynamicImageFilter (the module must be built first);
# written against IM6's pixel API (PixelPacket, opacity).
if(RB_MAGICK_MAJOR EQUAL 6)
  rb_add_test(test_magick_module ${CMAKE_CURRENT_SOURCE_DIR}/test_magick_module.c)
  target_include_directories(test_magick_module PRIVATE ${RB_MAGICK_INCLUDE_DIRS})
  target_compile_options(test_magick_module PRIVATE ${RB_MAGICK_CFLAGS})
  target_link_libraries(test_magick_module PRIVATE ${RB_MAGICK_LIBS})
  add_dependencies(test_magick_module recblur_magick)
  set_tests_properties(test_magick_module PROPERTIES ENVIRONMENT "${RB_MAGICK_TEST_ENV}")
endif()

if(NOT RB_MAGICK_CLI)
  message(STATUS "recblur: convert (ImageMagick 6) or magick (7) not found: module host tests skipped")
  return()
endif()

if(TARGET recblur_magick_mismatch)
  set(_rb_mismatch_dir ${RECBLUR_MAGICK_MISMATCH_DIR})
else()
  set(_rb_mismatch_dir "")
endif()
# Module vs the float64 reference (not the engine): sigma x/y, alpha, boundaries.
if(TARGET rb_host_reference)
  add_test(NAME test_magick_reference
           COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/test_magick_reference.sh ${RB_MAGICK_CLI}
                   $<TARGET_FILE:rb_host_reference> ${CMAKE_CURRENT_BINARY_DIR}/magick_reference)
  set_tests_properties(test_magick_reference PROPERTIES ENVIRONMENT "${RB_MAGICK_TEST_ENV}")
endif()

add_test(NAME test_magick_errors
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/test_magick_errors.sh ${RB_MAGICK_CLI}
                 $<TARGET_FILE:rb_magick_pixdiff> ${CMAKE_CURRENT_BINARY_DIR}/magick_errors
                 ${_rb_mismatch_dir})
set_tests_properties(test_magick_errors PROPERTIES ENVIRONMENT "${RB_MAGICK_TEST_ENV}")

# ImageMagick 7's -channel setting honoured (IM7 hands it to modules as the
# channels' update traits; IM6 keeps it in the ImageInfo, which filter modules
# never see: there the channel= key selects channels).
if(RB_MAGICK_MAJOR GREATER_EQUAL 7)
  add_test(NAME test_magick_channel
           COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/test_magick_channel.sh ${RB_MAGICK_CLI}
                   $<TARGET_FILE:rb_magick_pixdiff> ${CMAKE_CURRENT_BINARY_DIR}/magick_channel)
  set_tests_properties(test_magick_channel PROPERTIES ENVIRONMENT "${RB_MAGICK_TEST_ENV}")
endif()

# Module vs the recblur CLI on the same inputs.
if(TARGET recblur_cli)
  add_test(NAME test_magick_cli
           COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/test_magick_cli.sh ${RB_MAGICK_CLI}
                   $<TARGET_FILE:recblur_cli> $<TARGET_FILE:rb_magick_pixdiff>
                   ${CMAKE_CURRENT_BINARY_DIR}/magick_cli)
  set_tests_properties(test_magick_cli PROPERTIES ENVIRONMENT "${RB_MAGICK_TEST_ENV}")
endif()
