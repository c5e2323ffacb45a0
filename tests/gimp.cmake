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

set(rb_gimp_env "RECBLUR_PRESET_PATH=${PROJECT_SOURCE_DIR}/presets" "PY=${RB_PYTHON3}"
    "HREF=$<TARGET_FILE:rb_host_reference>")

# rb_gimp_test(NAME SCRIPT TIMEOUT [ARGS...]): tests/SCRIPT PLUGIN CLI TESTS_DIR
# WORK_DIR ARGS..., its work in <build>/tests/NAME.
function(rb_gimp_test name script timeout)
  add_test(NAME ${name}
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/${script}
                   $<TARGET_FILE:recblur_gimp> $<TARGET_FILE:recblur_cli>
                   ${CMAKE_CURRENT_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/${name} ${ARGN})
  set_tests_properties(${name} PROPERTIES TIMEOUT ${timeout} LABELS gimp ENVIRONMENT "${rb_gimp_env}")
endfunction()

if(RECBLUR_CLI_HAS_TIFF)
  rb_gimp_test(gimp_batch test_gimp_batch.sh 420)
  # plug-in-recblur-deblur against `recblur deblur`.
  rb_gimp_test(gimp_deblur test_gimp_deblur.sh 420)
  # the own-format route (8/16-bit sRGB, with and without alpha, linear light)
  # sample by sample against the CLI.
  rb_gimp_test(gimp_native test_gimp_native.sh 300)
else()
  message(WARNING "recblur: the CLI has no TIFF support: tests gimp_batch and gimp_deblur (float TIFF checks) not registered")
endif()

find_program(RB_XVFB_RUN xvfb-run)
find_program(RB_XDOTOOL xdotool)
find_program(RB_IMPORT import)
if(RB_XVFB_RUN AND RB_XDOTOOL AND RB_IMPORT)
  # Leave their screenshots in <build>/tests/gimp_dialog/gimp-dialog.png and
  # <build>/tests/gimp_deblur_dialog/gimp-deblur-dialog.png (the deblur dialog:
  # design from a PSF, then a preset).
  rb_gimp_test(gimp_dialog test_gimp_dialog.sh 300 ${PROJECT_SOURCE_DIR}/samples/texture.png)
  rb_gimp_test(gimp_deblur_dialog test_gimp_deblur_dialog.sh 420 ${PROJECT_SOURCE_DIR}/samples/texture.png)
else()
  message(WARNING "recblur: xvfb-run, xdotool or import (ImageMagick) missing: tests gimp_dialog and gimp_deblur_dialog not registered")
endif()
