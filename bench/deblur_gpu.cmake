# deblur_gpu_bench: the quadrant deblur filter on the GPU, flexible allocation
# (one launch) against the fixed one-launch-per-step baseline that lives only
# here; --cpu times the engine's CPU back end on the same cases.
if(RECBLUR_HAVE_CUDA)
  find_package(CUDAToolkit REQUIRED)
  add_executable(deblur_gpu_bench ${CMAKE_CURRENT_LIST_DIR}/deblur_gpu_bench.cu)
  target_include_directories(deblur_gpu_bench PRIVATE ${RECBLUR_CUDA_INTERNAL_DIRS}
    ${RECBLUR_ENGINE_INTERNAL_DIRS})
  set_target_properties(deblur_gpu_bench PROPERTIES CUDA_STANDARD 17)
  target_link_libraries(deblur_gpu_bench PRIVATE recblur recblur_cuda CUDA::cudart_static)
endif()
