# cpu_engine_bench: in-process timing of the CPU back end (issue 8), driven by
# bench/cpu_peers.sh, which also times the peer tools and measures errors.
add_executable(cpu_engine_bench ${CMAKE_CURRENT_LIST_DIR}/cpu_engine_bench.c)
target_link_libraries(cpu_engine_bench PRIVATE recblur m)
