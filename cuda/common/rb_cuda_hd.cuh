/* Function attributes for code that runs both on the device and, in the host
 * emulation (tests/gpu_emu.cu), on the CPU; unrolling only in device code
 * (the host pass of these functions would warn). */
#ifndef RB_CUDA_HD_CUH
#define RB_CUDA_HD_CUH

#ifdef __CUDACC__
#define RB_HD __host__ __device__ __forceinline__
#else
#define RB_HD static inline
#endif
#ifdef __CUDA_ARCH__
#define RB_UNROLL _Pragma("unroll")
#define RB_UNROLL4 _Pragma("unroll 4")
#define RB_NO_UNROLL _Pragma("unroll 1")
#else
#define RB_UNROLL
#define RB_UNROLL4
#define RB_NO_UNROLL
#endif

/* A read-only load: through the read-only data cache on the device. */
RB_HD float rb_ldg(const float *p)
{
#ifdef __CUDA_ARCH__
    return __ldg(p);
#else
    return *p;
#endif
}

#endif
