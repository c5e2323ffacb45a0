/* The scan kernel for order 8 (see rb_cuda_scan_kernel.cuh). */
#include "rb_cuda_scan_kernel.cuh"

cudaError_t rb_sc_launch_8(const rb_sc_args &a, unsigned grid, cudaStream_t s)
{
    return rb_sc_launch_order<8>(a, grid, s);
}
