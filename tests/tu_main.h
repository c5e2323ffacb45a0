/* TU_RUN_TESTS(test, ...): a cmocka program's main ends by running its tests
 * as one group (cmocka_unit_test entries, in order) and returning their status. */
#ifndef RB_TU_MAIN_H
#define RB_TU_MAIN_H

#define TU_RUN_TESTS(...)                                                     \
    do {                                                                      \
        const struct CMUnitTest tu_tests_[] = {__VA_ARGS__};                  \
        return cmocka_run_group_tests(tu_tests_, NULL, NULL);                 \
    } while (0)

#endif
