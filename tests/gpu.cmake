# CUDA back end tests: built whenever the back end is; each GPU test skips
# with a message when no device is usable (CI has nvcc but no GPU). The host
# emulation of the tiled solver (gpu_emu.cu) runs everywhere.
if(RECBLUR_HAVE_CUDA)
  find_package(CUDAToolkit REQUIRED)
  add_library(rb_gpu_emu STATIC ${CMAKE_CURRENT_LIST_DIR}/gpu_emu.cu)
  target_include_directories(rb_gpu_emu PRIVATE ${RECBLUR_CUDA_INTERNAL_DIRS}
    ${RECBLUR_ENGINE_INTERNAL_DIRS} ${PROJECT_SOURCE_DIR}/engine/include)
  set_target_properties(rb_gpu_emu PROPERTIES CUDA_STANDARD 17 POSITION_INDEPENDENT_CODE ON)
  target_link_libraries(rb_gpu_emu PRIVATE recblur_cuda)
  rb_add_test(test_gpu test_gpu.c reference.c)
  target_link_libraries(test_gpu PRIVATE rb_gpu_emu recblur_cuda recblur CUDA::cudart_static)
  rb_gpu_suite(test_gpu HOST) # test_gpu_no_device: the emulation, with or without a GPU
endif()
# host images through pinned staging and strips (issue 3 item 4; staging)
if(RECBLUR_HAVE_CUDA)
  rb_add_test(test_gpu_host test_gpu_host.c)
  target_link_libraries(test_gpu_host PRIVATE recblur_cuda recblur CUDA::cudart_static)
  rb_gpu_suite(test_gpu_host)
endif()
# images larger than the device's memory: the banded route (issue 18 item 3; gpustrips)
if(RECBLUR_HAVE_CUDA)
  rb_add_test(test_gpu_banded test_gpu_banded.c reference.c)
  target_link_libraries(test_gpu_banded PRIVATE recblur_cuda recblur CUDA::cudart_static)
  rb_gpu_suite(test_gpu_banded)
endif()
