# GIMP plug-in tests in a real, headless GIMP 2.10 (gimp-console, Script-Fu;
# the dialog under Xvfb). Registered only when the plug-in is built, and
# compared against the recblur CLI, so both targets must exist.
if(NOT TARGET recblur_gimp OR NOT TARGET recblur_cli)
  return()
endif()
# While either is left out of the default build (engine incomplete), ctest
# would find no binaries: do not register.
get_target_property(rb_gimp_excl recblur_gimp EXCLUDE_FROM_ALL)
get_target_property(rb_cli_excl recblur_cli EXCLUDE_FROM_ALL)
if(rb_gimp_excl OR rb_cli_excl)
  message(STATUS "recblur: GIMP tests not registered (plug-in or CLI not in the default build yet)")
  return()
endif()
find_program(RB_GIMP_CONSOLE gimp-console-2.10)
find_program(RB_PYTHON3 python3 PATHS /usr/bin NO_DEFAULT_PATH)
if(RB_PYTHON3)
  execute_process(COMMAND ${RB_PYTHON3} -c "import numpy" RESULT_VARIABLE rb_no_numpy OUTPUT_QUIET ERROR_QUIET)
endif()
if(NOT RB_GIMP_CONSOLE OR NOT RB_PYTHON3 OR rb_no_numpy)
  message(WARNING "recblur: GIMP plug-in tests need gimp-console-2.10 and python3-numpy: not registered")
  return()
endif()

set(rb_gimp_env "RECBLUR_PRESET_PATH=${PROJECT_SOURCE_DIR}/presets" "PY=${RB_PYTHON3}")
if(RECBLUR_CLI_HAS_TIFF)
  add_test(NAME gimp_batch
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/test_gimp_batch.sh
                   $<TARGET_FILE:recblur_gimp> $<TARGET_FILE:recblur_cli>
                   ${CMAKE_CURRENT_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/gimp_batch)
  set_tests_properties(gimp_batch PROPERTIES TIMEOUT 420 LABELS gimp ENVIRONMENT "${rb_gimp_env}")
  # plug-in-recblur-deblur against `recblur deblur`.
  add_test(NAME gimp_deblur
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/test_gimp_deblur.sh
                   $<TARGET_FILE:recblur_gimp> $<TARGET_FILE:recblur_cli>
                   ${CMAKE_CURRENT_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/gimp_deblur)
  set_tests_properties(gimp_deblur PROPERTIES TIMEOUT 420 LABELS gimp ENVIRONMENT "${rb_gimp_env}")
else()
  message(WARNING "recblur: the CLI has no TIFF support: tests gimp_batch and gimp_deblur (float TIFF checks) not registered")
endif()

find_program(RB_XVFB_RUN xvfb-run)
find_program(RB_XDOTOOL xdotool)
find_program(RB_IMPORT import)
if(RB_XVFB_RUN AND RB_XDOTOOL AND RB_IMPORT)
  # Leaves the screenshot in <build>/tests/gimp_dialog/gimp-dialog.png.
  add_test(NAME gimp_dialog
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/test_gimp_dialog.sh
                   $<TARGET_FILE:recblur_gimp> $<TARGET_FILE:recblur_cli>
                   ${CMAKE_CURRENT_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/gimp_dialog
                   ${PROJECT_SOURCE_DIR}/samples/texture.png)
  set_tests_properties(gimp_dialog PROPERTIES TIMEOUT 300 LABELS gimp ENVIRONMENT "${rb_gimp_env}")
  # The deblur dialog: design from a PSF, then a preset; leaves the screenshot
  # in <build>/tests/gimp_deblur_dialog/gimp-deblur-dialog.png.
  add_test(NAME gimp_deblur_dialog
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/test_gimp_deblur_dialog.sh
                   $<TARGET_FILE:recblur_gimp> $<TARGET_FILE:recblur_cli>
                   ${CMAKE_CURRENT_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/gimp_deblur_dialog
                   ${PROJECT_SOURCE_DIR}/samples/texture.png)
  set_tests_properties(gimp_deblur_dialog PROPERTIES TIMEOUT 420 LABELS gimp ENVIRONMENT "${rb_gimp_env}")
else()
  message(WARNING "recblur: xvfb-run, xdotool or import (ImageMagick) missing: tests gimp_dialog and gimp_deblur_dialog not registered")
endif()
