# Engine core tests (CPU back end against the independent float64 reference).
rb_add_test(test_exact_boundaries ${CMAKE_CURRENT_LIST_DIR}/test_exact_boundaries.c
            ${CMAKE_CURRENT_LIST_DIR}/reference.c)
rb_add_test(test_engine_api ${CMAKE_CURRENT_LIST_DIR}/test_engine_api.c
            ${CMAKE_CURRENT_LIST_DIR}/reference.c)
rb_add_test(test_sat_box ${CMAKE_CURRENT_LIST_DIR}/test_sat_box.c)
# Every front end starts from the operation table's defaults (issue 15 item 1):
# the CLI's options, the ImageMagick option parser and the GIMP plug-in's value
# mapping are plain C on the engine, linked here as they are.
rb_add_test(test_op_defaults ${CMAKE_CURRENT_LIST_DIR}/test_op_defaults.c
            ${PROJECT_SOURCE_DIR}/plugin-magick/rb_magick_options.c
            ${PROJECT_SOURCE_DIR}/plugin-gimp/rbg_vals.c)
target_include_directories(test_op_defaults PRIVATE ${PROJECT_SOURCE_DIR}/plugin-magick
                           ${PROJECT_SOURCE_DIR}/plugin-gimp)
target_link_libraries(test_op_defaults PRIVATE recblur_cli_core)
# sRGB codes by table equal the formula they replace (linear light on 8/16-bit images)
rb_add_test(test_srgb_tables ${CMAKE_CURRENT_LIST_DIR}/test_srgb_tables.c)
# TIFF output past 4 GiB is BigTIFF (issue 18 item 4): the CLI's writer, linked as it is
rb_add_test(test_cli_tiff_size ${CMAKE_CURRENT_LIST_DIR}/test_cli_tiff_size.c)
target_link_libraries(test_cli_tiff_size PRIVATE recblur_cli_core)
# the GIMP plug-in's settings saved across sessions read back unchanged; bad
# files are refused (issue 16 item 4)
rb_add_test(test_gimp_vals_text ${CMAKE_CURRENT_LIST_DIR}/test_gimp_vals_text.c
            ${PROJECT_SOURCE_DIR}/plugin-gimp/rbg_vals.c)
target_include_directories(test_gimp_vals_text PRIVATE ${PROJECT_SOURCE_DIR}/plugin-gimp)
# run-time switches read once, the one route choice, the one line extension (issue 15)
rb_add_test(test_route ${CMAKE_CURRENT_LIST_DIR}/test_route.c)
# strip execution (issue 18 item 1): streamed == in memory == the float64 reference
rb_add_test(test_stream ${CMAKE_CURRENT_LIST_DIR}/test_stream.c ${CMAKE_CURRENT_LIST_DIR}/reference.c)
# the strips' carries in a temporary file past the memory they may take: the
# same bits as in memory, every boundary; an unwritable TMPDIR is an error
rb_add_test(test_stream_file ${CMAKE_CURRENT_LIST_DIR}/test_stream_file.c ${CMAKE_CURRENT_LIST_DIR}/reference.c)
# the CPU sweep with linear light, straight alpha and a progress callback
# against the general route; a cancel never leaves the output half written
rb_add_test(test_sweep_convert ${CMAKE_CURRENT_LIST_DIR}/test_sweep_convert.c)
# the back end's start on a thread while the caller reads (issue 17 item 3):
# waited for by the plan and by the context's destruction, results unchanged;
# test_warm_up is the cuda part (skipped without a GPU)
rb_add_test(test_warm_up ${CMAKE_CURRENT_LIST_DIR}/test_warm_up.c ${CMAKE_CURRENT_LIST_DIR}/reference.c)
rb_gpu_suite(test_warm_up HOST)
# rb_context_host_alloc: the host part everywhere, the locked memory with a GPU
rb_add_test(test_host_alloc ${CMAKE_CURRENT_LIST_DIR}/test_host_alloc.c ${CMAKE_CURRENT_LIST_DIR}/reference.c)
rb_gpu_suite(test_host_alloc HOST)
