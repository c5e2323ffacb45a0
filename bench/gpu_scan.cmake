# gpu_scan_bench: 1D recurrences (decoupled look-back) and summed-area tables
# against the same GPU's device-to-device copy (issue 3, items 2 and 3).
if(RECBLUR_HAVE_CUDA)
  find_package(CUDAToolkit REQUIRED)
  add_executable(gpu_scan_bench ${CMAKE_CURRENT_LIST_DIR}/gpu_scan_bench.cu)
  target_include_directories(gpu_scan_bench PRIVATE ${RECBLUR_CUDA_INTERNAL_DIRS}
    ${RECBLUR_ENGINE_INTERNAL_DIRS} ${PROJECT_SOURCE_DIR}/engine/include)
  set_target_properties(gpu_scan_bench PROPERTIES CUDA_STANDARD 17 CUDA_RUNTIME_LIBRARY Static)
  target_link_libraries(gpu_scan_bench PRIVATE recblur CUDA::cudart_static)
endif()
