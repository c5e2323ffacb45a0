# Quadrant 2D IIR deblur filter: CPU back end against a float64 direct
# evaluation, the stability check, the PSF designer, deblur presets.
rb_add_test(test_deblur_engine ${CMAKE_CURRENT_LIST_DIR}/test_deblur_engine.c)
rb_add_test(test_deblur_design ${CMAKE_CURRENT_LIST_DIR}/test_deblur_design.c)

# The deblur commands in a stand-alone binary (used by the CLI tests below and
# by bench/deblur_quality.py), on the CLI's own code.
if(TARGET recblur_cli_core)
  add_executable(recblur_deblur_tool ${CMAKE_CURRENT_LIST_DIR}/test_deblur_cli_main.c)
  set_target_properties(recblur_deblur_tool PROPERTIES OUTPUT_NAME recblur-deblur)
  target_link_libraries(recblur_deblur_tool PRIVATE recblur_cli_core m)
  target_compile_options(recblur_deblur_tool PRIVATE -Wall -Wextra)
endif()
if(TARGET recblur_deblur_tool)
  add_test(NAME test_deblur_cli COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/test_deblur_cli.sh
           $<TARGET_FILE:recblur_deblur_tool> ${CMAKE_CURRENT_LIST_DIR}/data)
endif()

# The CUDA back end of the quadrant filter against the same kind of float64
# reference; built always: without a usable GPU its GPU cases skip with a
# message and it checks the dispatch rules (cuda = clear error, auto = CPU).
rb_add_test(test_deblur_gpu ${CMAKE_CURRENT_LIST_DIR}/test_deblur_gpu.c)
rb_gpu_suite(test_deblur_gpu HOST)
