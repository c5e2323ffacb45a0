/* Without the CUDA back end compiled in, there is none to offer. */
#include "rb_internal.h"

#ifndef RB_HAVE_CUDA
const rb_backend_ops *rb_backend_cuda(void) { return NULL; }
size_t rb_cuda_device_bytes_in_use(void) { return 0; }
#endif
