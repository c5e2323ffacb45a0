# Reliability tests (issue 7): hostile inputs through the engine API and the
# CLI, thread safety, GPU faults (no-GPU part always; the GPU part skips
# with a message when no device is usable). docs/RELIABILITY.md maps each
# guarantee to these tests.
rb_add_test(test_hostile ${CMAKE_CURRENT_LIST_DIR}/test_hostile.c ${CMAKE_CURRENT_LIST_DIR}/reference.c)
set_tests_properties(test_hostile PROPERTIES SKIP_RETURN_CODE 77)

rb_add_test(test_threads ${CMAKE_CURRENT_LIST_DIR}/test_threads.c)
# a worker thread that cannot be created: the engine's pthread_create calls go
# to the test's wrapper, which refuses all but the first few
rb_add_test(test_thread_start ${CMAKE_CURRENT_LIST_DIR}/test_thread_start.c)
target_link_options(test_thread_start PRIVATE -Wl,--wrap=pthread_create)

rb_add_test(test_gpu_faults ${CMAKE_CURRENT_LIST_DIR}/test_gpu_faults.c)
rb_gpu_suite(test_gpu_faults HOST)
if(RECBLUR_HAVE_CUDA)
  target_compile_definitions(test_gpu_faults PRIVATE RB_TEST_HAVE_CUDA=1)
endif()

add_test(NAME cli_hostile COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/test_hostile_cli.sh)
set_tests_properties(cli_hostile PROPERTIES
  SKIP_RETURN_CODE 77
  ENVIRONMENT "RECBLUR=$<TARGET_FILE:recblur_cli>;CLI_REF=$<TARGET_FILE:test_cli_ref>;SRC=${PROJECT_SOURCE_DIR};RECBLUR_PRESET_PATH=${PROJECT_SOURCE_DIR}/presets")

# Missing data (issue 20): NaN samples filtered by normalised convolution
# against a float64 reference, every boundary; refusals; Inf; propagate.
rb_add_test(test_missing_data ${CMAKE_CURRENT_LIST_DIR}/test_missing_data.c ${CMAKE_CURRENT_LIST_DIR}/reference.c)
