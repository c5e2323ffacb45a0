# gimp_engine_routes: the engine's part of a GIMP 2.10 plug-in call, route by
# route (float, the drawable's own 8-bit, 8-bit with the engine's linear
# light); bench/gimp_overhead.sh times the whole call in GIMP.
add_executable(gimp_engine_routes ${CMAKE_CURRENT_LIST_DIR}/gimp_engine_routes.c)
target_link_libraries(gimp_engine_routes PRIVATE recblur m)
