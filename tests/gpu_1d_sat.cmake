# GPU 1D recurrences and summed-area tables against float64 references (issue 3,
# items 2 and 3); every test skips with a message when no CUDA device is usable.
if(RECBLUR_HAVE_CUDA)
  find_package(CUDAToolkit REQUIRED)
  rb_add_test(test_gpu_1d_sat test_gpu_1d_sat.c reference.c)
  target_link_libraries(test_gpu_1d_sat PRIVATE CUDA::cudart_static)
  rb_gpu_suite(test_gpu_1d_sat)
endif()
