/* The column kernels of the tiled solver: lanes are consecutive floats of a
 * row (coalesced), samples run down the rows; stage 1 and the final stage. */
#ifndef RB_TILED_COLS_CUH
#define RB_TILED_COLS_CUH

#include "rb_tiled_kernels.cuh"

/* A column block whose FIR taps all lie inside the line (rb_tiled_fir_tiled):
 * its len + ntaps - 1 samples into registers, each read once (coalesced
 * across the lanes), then the FIR from them (rb_tiled_fir_block); bsum
 * (unless NULL) sums the block's own samples in order. A whole block of a
 * centred FIR (rb_tiled_fir_centred) loads its B + 2H samples without a test
 * each and takes bsum from the FIR's window. */
template <typename IT, typename U>
static __device__ __forceinline__ void rb_tiled_load_fir(const rb_cuda_tiled &f, const float *x, long long S,
                                                      long long j0, int len, U u, double *bsum)
{
    const rb_cuda_axis &a = f.b.ax;
    const float *xs = x + (j0 + a.fir_lo) * S;
    const int w = len + a.ntaps - 1, lo = -a.fir_lo;
    float v[B + RB_TILED_HALO];
    const int hc = rb_tiled_fir_centred(a, len);
    if (hc) {
#pragma unroll
        for (int i = 0; i < B + RB_TILED_HALO; ++i)
            if (i < B + 4 || i < B + 2 * hc) v[i] = __ldg(xs + i * S); /* hc is 2 or 3 */
        rb_tiled_fir_block<IT>(f, v, len, u, bsum);
        return;
    }
    double s = 0.0;
#pragma unroll
    for (int i = 0; i < B + RB_TILED_HALO; ++i)
        if (i < w) v[i] = __ldg(xs + i * S);
#pragma unroll
    for (int i = 0; i < B + RB_TILED_HALO; ++i)
        if (i >= lo && i < lo + len) s += (double)v[i];
    if (bsum) *bsum = s;
    rb_tiled_fir_block<IT>(f, v, len, u, (double *)0);
}

/* One column block of stage 1 into the thread's column of a shared-memory
 * tile (u), whatever covers it: cp.async for a block inside the line, the FIR,
 * the mirror reflection or the generic extension. Adds the block's sum to *bs
 * where the axis subtracts a mean. Shared by rb_tiled_s1_cols and the
 * three-transfer route's rb_tiled_s1_cols_x, so both see the same floats. */
template <int R, typename IT>
__device__ __forceinline__ void rb_tiled_s1_load(const rb_cuda_tiled &f, const float *x, int blk, size_t lane,
                                                 int len, long long j0, const rb_tiled_smc<RB_TILED_XS> &u,
                                                 double *bs)
{
    const rb_cuda_axis &a = f.b.ax;
    const long long S = f.ld;
    if (rb_tiled_plain(f, j0, len)) {
#pragma unroll
        for (int j = 0; j < B; ++j)
            if (j < len) __pipeline_memcpy_async(u.p + j * RB_TILED_XS, x + (j0 + j) * S, sizeof(float));
        __pipeline_commit();
        __pipeline_wait_prior(0);
        if (a.shift) {
            const volatile float *vu = u.p;
#pragma unroll
            for (int j = 0; j < B; ++j)
                if (j < len) *bs += (double)vu[j * RB_TILED_XS];
        }
    } else if (rb_tiled_fir_tiled(f, j0, len)) {
        rb_tiled_load_fir<IT>(f, x, S, j0, len, u, bs);
    } else if (!rb_tiled_load_mirror(f, x, S, j0, len, u, bs)) {
        rb_tiled_load_generic<R, IT>(f, x, S, blk, len, a.cval[lane % a.channels], u, bs);
    }
}

/* MF: the instance for mirror axes padded with a FIR (rb_tiled_mirror_fir_axis),
 * whose pad blocks take rb_tiled_load_mirror_fir; an instance of its own, as the
 * branch in every instance cost clamp's stage 1 14-17 % (more registers). */
template <int R, typename CT, typename IT, bool MF = false>
__global__ void __launch_bounds__(RB_TILED_COL_THREADS)
rb_tiled_s1_cols(const rb_cuda_tiled f, const float *__restrict__ in, CT *__restrict__ car1,
              CT *__restrict__ car2, float *__restrict__ sums, size_t lanes, unsigned nlc)
{
    const auto [blk, lane, len, j0] = rb_tiled_col_thread(f, nlc);
    if (lane >= lanes) return;
    const rb_cuda_axis &a = f.b.ax;
    const long long S = f.ld;
    const float *x = in + lane;
    double bs = 0.0, T[R], H[R];
    if constexpr (std::is_same<IT, float>::value) {
        if (f.wdot && len == B && rb_tiled_plain(f, j0, len)) {
            /* a whole block inside the line: 32 loads straight into registers, all
             * in flight at once, and 2R dot products (rb_tiled_stage1_dot): no chain of
             * 64 dependent steps, so the pass streams at the read rate (the
             * recursion below reached 61 % of the DRAM peak, this 81 %: RESULTS.md) */
            float v[B];
#pragma unroll
            for (int j = 0; j < B; ++j) v[j] = __ldg(x + (j0 + j) * S);
            if (a.shift) {
#pragma unroll
                for (int j = 0; j < B; ++j) bs += (double)v[j];
            }
            rb_tiled_stage1_dot<R>(f, v, T, H);
            rb_tiled_put_carries<R, CT>(a, car1, car2, sums, blk, T, H, bs, lanes, lane);
            return;
        }
        /* float recursion: the thread's column of a shared-memory tile, loaded
         * with cp.async and filtered in place (as the row kernels do): no 32
         * registers for u, so more warps per SM keep more loads in flight.
         * Each thread reads back only its own column: no barrier. */
        __shared__ float sm[B * RB_TILED_XS];
        const rb_tiled_smc<RB_TILED_XS> u = {sm + threadIdx.x, 0};
        rb_tiled_s1_load<R, IT>(f, x, blk, lane, len, j0, u, &bs);
        rb_tiled_stage1<R, IT>(f, u, len, T, H);
    } else {
        IT u[B];
        if (rb_tiled_plain(f, j0, len)) {
#pragma unroll
            for (int j = 0; j < B; ++j)
                if (j < len) {
                    u[j] = (IT)__ldg(x + (j0 + j) * S);
                    bs += u[j];
                }
        } else if (rb_tiled_fir_tiled(f, j0, len)) {
            rb_tiled_load_fir<IT>(f, x, S, j0, len, u, &bs);
        } else if (!(MF && rb_tiled_load_mirror_fir<IT>(f, x, S, j0, len, u, &bs))) {
            rb_tiled_load_generic<R, IT>(f, x, S, blk, len, a.cval[lane % a.channels], u, &bs);
        }
        rb_tiled_stage1<R, IT>(f, u, len, T, H);
    }
    rb_tiled_put_carries<R, CT>(a, car1, car2, sums, blk, T, H, bs, lanes, lane);
}

/* The final stage's block of a column lane into u (no block sum: the final
 * stage takes none): plain loads inside the line, the FIR from a tile of its
 * samples, else through the extension. x: the lane's first sample. */
template <int R, typename IT>
static __device__ __forceinline__ void rb_tiled_final_load(const rb_cuda_tiled &f, const float *x, int blk,
                                                           long long j0, int len, float cv, IT u[B])
{
    const long long S = f.ld;
    if (rb_tiled_plain(f, j0, len)) {
#pragma unroll
        for (int j = 0; j < B; ++j)
            if (j < len) u[j] = (IT)__ldg(x + (j0 + j) * S);
    } else if (rb_tiled_fir_tiled(f, j0, len)) {
        rb_tiled_load_fir<IT>(f, x, S, j0, len, u, (double *)0);
    } else {
        double bs;
        rb_tiled_load_generic<R, IT>(f, x, S, blk, len, cv, u, &bs);
    }
}

template <int R, typename CT, typename IT>
__global__ void __launch_bounds__(RB_TILED_COL_THREADS)
rb_tiled_final_cols(const rb_cuda_tiled f, const float *__restrict__ in, float *__restrict__ out,
                 const CT *__restrict__ car1, const CT *__restrict__ car2,
                 const float *__restrict__ mean, size_t lanes, unsigned nlc)
{
    const auto [blk, lane, len, j0] = rb_tiled_col_thread(f, nlc);
    if (lane >= lanes) return;
    const rb_cuda_axis &a = f.b.ax;
    if (j0 >= a.n || j0 + len <= 0) return; /* block wholly outside the line */
    IT u[B];
    rb_tiled_final_load<R, IT>(f, in + lane, blk, j0, len, a.cval[lane % a.channels], u);
    const double back = rb_tiled_final_from_carries<R, CT, IT>(f, u, len, blk, car1, car2, mean, lanes, lane);
    float *z = out + lane;
    if (len == B && j0 >= 0 && j0 + B <= a.n) {
        /* a whole block inside the line: no test per sample */
#pragma unroll
        for (int j = 0; j < B; ++j) z[(j0 + j) * f.ld_out] = (float)((double)u[j] + back);
        return;
    }
#pragma unroll
    for (int j = 0; j < B; ++j) {
        long long jj = j0 + j;
        if (j < len && jj >= 0 && jj < a.n) z[jj * f.ld_out] = (float)((double)u[j] + back);
    }
}

#endif
