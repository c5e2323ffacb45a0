/* Without the CUDA back end compiled in, there is none to offer. */
#include "rb_internal.h"

#ifndef RB_HAVE_CUDA
const rb_backend_ops *rb_backend_cuda(void) { return NULL; }
#endif
