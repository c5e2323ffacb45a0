/* Without the CUDA back end compiled in, there is none to offer. */
#include "rb_internal.h"
#include "deblur_internal.h"

#ifndef RB_HAVE_CUDA
const rb_backend_ops *rb_backend_cuda(void) { return NULL; }
size_t rb_cuda_device_bytes_in_use(void) { return 0; }
rb_status rb_cuda_deblur_run(rb_deblur_plan *p, const float *work, const float *cval, float *acc)
{
    (void)work, (void)cval, (void)acc;
    return rb_error(p ? p->ctx : NULL, RB_ERR_BACKEND,
                    "deblur: recblur was built without the CUDA back end");
}
#endif
