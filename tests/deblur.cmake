# Quadrant 2D IIR deblur filter: CPU back end against a float64 direct
# evaluation, the stability check, the PSF designer, deblur presets.
rb_add_test(test_deblur_engine ${CMAKE_CURRENT_LIST_DIR}/test_deblur_engine.c)
