/* 1D recurrences on the device: rb_backend_ops.recurrence_1d, every order
 * through the single-pass decoupled look-back scan of rb_cuda_scan.cu (one
 * pass over the signal per direction; orders >= 3 recur and carry in double,
 * which keeps them within 1e-5 of the float64 reference as the CPU back end).
 * Host signals are staged through the plan's buffers. */
#include "rb_cuda_check.h"
#include "rb_cuda.h"
#include "rb_cuda_alloc.h"
#include "rb_cuda_scan.cuh"

#define RB_CU(call, what) RB_CU_CHECK(fail, "cuda 1D recurrence", call, what)

rb_status rb_cuda_recurrence_1d(rb_plan *plan, const float *in, float *out, size_t n,
                                rb_memory mem)
{
    rb_context *ctx = plan->ctx;
    rb_status st = RB_OK;
    rb_cuda_state *s = (rb_cuda_state *)plan->backend_state;
    cudaStream_t q = s->stream;
    rb_cuda_rec1d *rec = NULL;
    const float *src = in;
    float *dst = out;
    rb_cuda_alloc_use(&ctx->sw);
    RB_CU(cudaSetDevice(s->device), "cudaSetDevice");
    if (!plan->rows.ax.active) {
        if (in != out)
            RB_CU(cudaMemcpyAsync(out, in, n * sizeof(float), cudaMemcpyDefault, q), "copying the signal");
        RB_CU(cudaStreamSynchronize(q), "copying the signal");
        return RB_OK;
    }
    /* the tables (long double transfer matrices, the costly part of a call) and
     * the scratch are the plan's: made by its first call, kept for the next */
    if (!s->rec1d)
        RB_CU(rb_cuda_rec1d_create(&plan->rows, plan->boundary.value, &s->rec1d), "preparing the recurrence");
    rec = s->rec1d;
    rb_cuda_rec1d_set_delay(rec, ctx->sw.hook_scan_delay_ns); /* a test hook (switches.h) */
    if (mem == RB_MEMORY_HOST && !s->A) { /* a banded plan (never one row: it cannot be cut) */
        st = rb_error(ctx, RB_ERR_DEVICE, "cuda: the signal does not fit the device's memory");
        goto fail;
    }
    if (mem == RB_MEMORY_HOST) {
        /* the plan's two image buffers hold n floats each */
        RB_CU(cudaMemcpyAsync(s->A, in, n * sizeof(float), cudaMemcpyHostToDevice, q),
              "copying the signal to the device");
        src = s->A;
        dst = s->B;
    }
    {
        size_t bytes = rb_cuda_rec1d_work_bytes(rec, src == dst);
        if (bytes > s->rec1d_work_bytes) {
            RB_CU(cudaStreamSynchronize(q), "before growing the scan scratch");
            rb_cuda_free(s->rec1d_work);
            s->rec1d_work = NULL;
            s->rec1d_work_bytes = 0;
            RB_CU(rb_cuda_malloc(&s->rec1d_work, bytes), "cudaMalloc (scan scratch)");
            s->rec1d_work_bytes = bytes;
        }
    }
    RB_CU(rb_cuda_rec1d_run(rec, src, dst, s->rec1d_work, q), "1D recurrence");
    if (mem == RB_MEMORY_HOST)
        RB_CU(cudaMemcpyAsync(out, dst, n * sizeof(float), cudaMemcpyDeviceToHost, q),
              "copying the signal to the host");
    RB_CU(cudaStreamSynchronize(q), "running the 1D recurrence");
    return RB_OK;
fail:
    cudaStreamSynchronize(q);
    return st;
}
