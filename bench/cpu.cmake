# cpu_engine_bench: in-process timing of the CPU back end (issue 8), driven by
# bench/cpu_peers.sh, which also times the peer tools and measures errors.
add_executable(cpu_engine_bench ${CMAKE_CURRENT_LIST_DIR}/cpu_engine_bench.c)
target_link_libraries(cpu_engine_bench PRIVATE recblur m)
# codec_write_choices: CPU time and size of the TIFF/PNG writer settings the
# CLI chose between (cli/image_io_tiff.c, image_io_png.c; issue 17 item 1).
find_package(PNG)
find_package(TIFF)
if(PNG_FOUND AND TIFF_FOUND)
  add_executable(codec_write_choices ${CMAKE_CURRENT_LIST_DIR}/codec_write_choices.c)
  target_link_libraries(codec_write_choices PRIVATE PNG::PNG TIFF::TIFF)
  target_compile_options(codec_write_choices PRIVATE -Wall -Wextra)
endif()
