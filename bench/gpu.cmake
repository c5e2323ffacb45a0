# gpu_bench: the CUDA back end against the same GPU's device-to-device copy
# and cuFFT (cuFFT is used here only, never by the library).
if(RECBLUR_HAVE_CUDA)
  find_package(CUDAToolkit REQUIRED)
  # the naive column: one thread per line, a baseline that lives only here
  add_executable(gpu_bench ${CMAKE_CURRENT_LIST_DIR}/gpu_bench.cu ${CMAKE_CURRENT_LIST_DIR}/gpu_naive_lanes.cu)
  target_include_directories(gpu_bench PRIVATE ${RECBLUR_CUDA_INTERNAL_DIRS} ${RECBLUR_ENGINE_INTERNAL_DIRS})
  set_target_properties(gpu_bench PROPERTIES CUDA_STANDARD 17)
  target_link_libraries(gpu_bench PRIVATE recblur recblur_cuda CUDA::cufft CUDA::cudart_static)
endif()
# gpu_host_bench: host images (pinned staging, strips) against pageable and pinned memcpy (staging)
if(RECBLUR_HAVE_CUDA)
  add_executable(gpu_host_bench ${CMAKE_CURRENT_LIST_DIR}/gpu_host_bench.cu)
  set_target_properties(gpu_host_bench PROPERTIES CUDA_RUNTIME_LIBRARY Static)
  target_include_directories(gpu_host_bench PRIVATE ${RECBLUR_ENGINE_INTERNAL_DIRS})
  target_link_libraries(gpu_host_bench PRIVATE recblur CUDA::cudart_static)
endif()
