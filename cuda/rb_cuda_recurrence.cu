/* 1D recurrences on the device: rb_backend_ops.recurrence_1d. */
#include "rb_cuda.h"
#include "rb_cuda_alloc.h"

#define RB_CU(call, what)                                                               \
    do {                                                                                \
        cudaError_t e_ = (call);                                                        \
        if (e_ != cudaSuccess) {                                                        \
            st = rb_error(ctx, RB_ERR_DEVICE, "cuda: %s: %s", what,                     \
                          cudaGetErrorString(e_));                                      \
            goto fail;                                                                  \
        }                                                                               \
    } while (0)

/* 1D recurrence: one lane of n samples through the block-parallel solver
 * (n / 32 blocks in parallel; the carry chain walks the blocks in one thread). */
rb_status rb_cuda_recurrence_1d(rb_plan *plan, const float *in, float *out, size_t n,
                                       rb_memory mem)
{
    rb_context *ctx = plan->ctx;
    rb_status st = RB_OK;
    rb_cuda_state *s = (rb_cuda_state *)plan->backend_state;
    cudaStream_t q = s->stream;
    float zero[4] = {0, 0, 0, 0};
    float *src = s->A, *dst = s->B;
    RB_CU(cudaSetDevice(s->device), "cudaSetDevice");
    if (!plan->rows.ax.active) {
        if (in != out)
            RB_CU(cudaMemcpyAsync(out, in, n * sizeof(float), cudaMemcpyDefault, q), "copying the signal");
        RB_CU(cudaStreamSynchronize(q), "copying the signal");
        return RB_OK;
    }
    if (mem == RB_MEMORY_HOST)
        RB_CU(cudaMemcpyAsync(src, in, n * sizeof(float), cudaMemcpyHostToDevice, q), "copying the signal to the device");
    else
        src = (float *)in;
    if (mem == RB_MEMORY_DEVICE && in != out) dst = out;
    {
        float cv[4] = {plan->boundary.value, 0, 0, 0};
        RB_CU(rb_cuda_axis_pass(s, &s->brow, &plan->rows, s->fir_x, 1,
                                plan->boundary.mode == RB_BOUNDARY_CONSTANT ? cv : zero, src, dst, 1, q),
              "1D recurrence");
    }
    if (mem == RB_MEMORY_HOST)
        RB_CU(cudaMemcpyAsync(out, dst, n * sizeof(float), cudaMemcpyDeviceToHost, q), "copying the signal to the host");
    else if (dst != out)
        RB_CU(cudaMemcpyAsync(out, dst, n * sizeof(float), cudaMemcpyDeviceToDevice, q), "copying the signal");
    RB_CU(cudaStreamSynchronize(q), "running the 1D recurrence");
    return RB_OK;
fail:
    cudaStreamSynchronize(q);
    return st;
}

