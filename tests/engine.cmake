# Engine core tests (CPU back end against the independent float64 reference).
rb_add_test(test_exact_boundaries ${CMAKE_CURRENT_LIST_DIR}/test_exact_boundaries.c
            ${CMAKE_CURRENT_LIST_DIR}/reference.c)
rb_add_test(test_engine_api ${CMAKE_CURRENT_LIST_DIR}/test_engine_api.c
            ${CMAKE_CURRENT_LIST_DIR}/reference.c)
rb_add_test(test_sat_box ${CMAKE_CURRENT_LIST_DIR}/test_sat_box.c)
# run-time switches read once, the one route choice, the one line extension (issue 15)
rb_add_test(test_route ${CMAKE_CURRENT_LIST_DIR}/test_route.c)
