# CUDA back end tests: built whenever the back end is; each GPU test skips
# with a message when no device is usable (CI has nvcc but no GPU).
if(RECBLUR_HAVE_CUDA)
  find_package(CUDAToolkit REQUIRED)
  rb_add_test(test_gpu test_gpu.c reference.c)
  target_link_libraries(test_gpu PRIVATE CUDA::cudart_static)
endif()
