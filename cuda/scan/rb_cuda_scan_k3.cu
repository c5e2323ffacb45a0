/* The scan kernel for order 3 (see rb_cuda_scan_kernel.cuh). */
#include "rb_cuda_scan_kernel.cuh"

cudaError_t rb_sc_launch_3(const rb_sc_args &a, unsigned grid, cudaStream_t s)
{
    return rb_sc_launch_order<3>(a, grid, s);
}
