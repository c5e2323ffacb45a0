/* The back end's check of a CUDA call in a function that returns rb_status:
 * on an error, record it in the context (RB_ERR_DEVICE, "<who>: <what>:
 * <CUDA's reason>"), set the function's `st` and go to its clean-up label.
 * Each file names its own short form, e.g.
 *   #define RB_CU(call, what) RB_CU_CHECK(fail, "cuda", call, what) */
#ifndef RB_CUDA_CHECK_H
#define RB_CUDA_CHECK_H

#define RB_CU_CHECK(label, who, call, what)                                                 \
    do {                                                                                    \
        cudaError_t e_ = (call);                                                            \
        if (e_ != cudaSuccess) {                                                            \
            st = rb_error(ctx, RB_ERR_DEVICE, "%s: %s: %s", who, what, cudaGetErrorString(e_)); \
            goto label;                                                                     \
        }                                                                                   \
    } while (0)

#endif
