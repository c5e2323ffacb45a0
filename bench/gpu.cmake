# gpu_bench: the CUDA back end against the same GPU's device-to-device copy
# and cuFFT (cuFFT is used here only, never by the library).
if(RECBLUR_HAVE_CUDA)
  find_package(CUDAToolkit REQUIRED)
  add_executable(gpu_bench ${CMAKE_CURRENT_LIST_DIR}/gpu_bench.cu)
  target_link_libraries(gpu_bench PRIVATE recblur CUDA::cufft CUDA::cudart_static)
endif()
# gpu_host_bench: host images (pinned staging, strips) against pageable and pinned memcpy (staging)
if(RECBLUR_HAVE_CUDA)
  add_executable(gpu_host_bench ${CMAKE_CURRENT_LIST_DIR}/gpu_host_bench.cu)
  set_target_properties(gpu_host_bench PROPERTIES CUDA_RUNTIME_LIBRARY Static)
  target_link_libraries(gpu_host_bench PRIVATE recblur CUDA::cudart_static)
endif()
