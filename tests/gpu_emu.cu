/* Host emulation of the CUDA back end's tiled solver: the per-lane functions
 * of cuda/tiled/rb_tiled_block.cuh and rb_tiled_chain.cuh (the very code the
 * kernels run) called in plain loops over lanes and blocks, on the CPU. It checks the solver's arithmetic
 * (carries, chains, boundary feedbacks, mean shift, FIR, extension) where no
 * GPU is present; the kernels add only the memory staging and the launch
 * geometry, which test_gpu's device tests check on a GPU. */
#include "rb_cuda.h"
#include "rb_tiled_chain.cuh"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
extern "C" {
#include "line_solver.h"
}

/* RECBLUR_EMU_TRACE=1: each emulated axis against the CPU's line solver on the
 * same input, lane by lane (rel RMS, worst lane), to tell which axis and which
 * route a failing case comes from (seeds 3 and 14 were found this way). */
static void rb_emu_trace(const rb_axis_plan *ap, const rb_cuda_tiled &f, const float *in, const float *out,
                         size_t lanes, float cv)
{
    if (!getenv("RECBLUR_EMU_TRACE")) return;
    rb_line_layout lay;
    rb_line_layout_get(ap, &lay);
    rb_lane *x = (rb_lane *)calloc((size_t)(lay.in_len + lay.work_len), sizeof(rb_lane));
    if (!x) return;
    double num = 0, den = 0, worst = 0;
    size_t wl = 0;
    for (size_t lane = 0; lane < lanes; ++lane) {
        long long base, S;
        rb_tiled_lane(f, (long long)lane, &base, &S);
        const long long obase = f.rows ? (long long)(lane / f.c) * f.ld_out + (long long)(lane % f.c) : (long long)lane;
        const long long So = f.rows ? f.c : f.ld_out;
        for (long i = 0; i < ap->n; ++i) x[lay.lead + i] = in[base + i * S];
        rb_lane c = cv;
        const rb_lane *y = rb_line_solve(ap, 1, x, x + lay.in_len, &c);
        double ln = 0, ld = 0;
        for (long i = 0; i < ap->n; ++i) {
            double d = out[obase + i * So] - y[i];
            ln += d * d;
            ld += y[i] * y[i];
        }
        num += ln;
        den += ld;
        if (ld > 0 && sqrt(ln / ld) > worst) {
            worst = sqrt(ln / ld);
            wl = lane;
        }
    }
    fprintf(stderr, "emu trace: %s n %d mode %d order %d %s m %d blocks %d carries %s: rel RMS %.3g vs line solver "
            "(worst lane %zu: %.3g)\n", f.rows ? "rows" : "cols", ap->n, (int)ap->mode, ap->ax.r,
            ap->padded ? "padded" : "closed form", f.b.ax.m, f.b.nb, f.dbl ? "double" : "float",
            den > 0 ? sqrt(num / den) : sqrt(num), wl, worst);
    free(x);
}

/* u of one block as the kernels make it: in-line blocks with a FIR from a tile
 * of their samples (rb_tiled_fir_tiled, rb_tiled_fir_block), mirror blocks
 * within one reflection of the line by rb_tiled_load_mirror (no FIR) or, on
 * the axes whose double stage 1 takes it, rb_tiled_load_mirror_fir, the others
 * through rb_tiled_load_generic. The mirror loads give the generic load's
 * floats by design; here every such block takes them (the column kernels and
 * the MF stage 1 only some), so the emulated suites test them. */
template <int R, typename IT>
static void rb_emu_load(const rb_cuda_tiled &f, const float *x, long long S, int blk, int len, float cv, IT *u,
                        double *bs)
{
    const rb_cuda_axis &a = f.b.ax;
    const long long j0 = (long long)a.s0 + (long long)blk * RB_TILED_B;
    if (!rb_tiled_fir_tiled(f, j0, len)) {
        if (a.ntaps == 0 ? rb_tiled_load_mirror(f, x, S, j0, len, u, bs)
                         : rb_tiled_mirror_fir_axis<IT>(a) && rb_tiled_load_mirror_fir<IT>(f, x, S, j0, len, u, bs))
            return;
        rb_tiled_load_generic<R, IT>(f, x, S, blk, len, cv, u, bs);
        return;
    }
    float tile[RB_TILED_B + RB_TILED_HALO];
    for (int i = 0; i < len + a.ntaps - 1; ++i) tile[i] = x[(j0 + a.fir_lo + i) * S];
    double s = 0.0;
    for (int j = 0; j < len; ++j) s += (double)tile[j - a.fir_lo];
    *bs = s;
    rb_tiled_fir_block<IT>(f, tile, len, u, (double *)0);
}

template <int R, typename CT, typename IT>
static int rb_emu_axis(const rb_cuda_tiled &f, const float *in, float *out, size_t lanes)
{
    const rb_cuda_axis &a = f.b.ax;
    const int nb = f.b.nb;
    CT *car1 = (CT *)calloc((size_t)nb * R * lanes, sizeof(CT));
    CT *car2 = (CT *)calloc((size_t)nb * R * lanes, sizeof(CT));
    float *sums = (float *)calloc((size_t)nb * lanes, sizeof(float));
    float *mean = (float *)calloc(lanes, sizeof(float));
    if (!car1 || !car2 || !sums || !mean) {
        free(car1);
        free(car2);
        free(sums);
        free(mean);
        return -1;
    }
    IT u[RB_TILED_B];
    double T[R], H[R], bs;
    for (size_t lane = 0; lane < lanes; ++lane) {
        long long base, S;
        rb_tiled_lane(f, (long long)lane, &base, &S);
        for (int blk = 0; blk < nb; ++blk) {
            int len = a.m - blk * RB_TILED_B < RB_TILED_B ? a.m - blk * RB_TILED_B : RB_TILED_B;
            rb_emu_load<R, IT>(f, in + base, S, blk, len, a.cval[lane % a.channels], u, &bs);
            /* whole blocks inside the line without FIR: the GPU takes the dot
             * products there (rb_cuda_tiled.wdot) */
            const long long j0 = (long long)a.s0 + (long long)blk * RB_TILED_B;
            if (f.wdot && a.ntaps == 0 && len == RB_TILED_B && j0 >= 0 && j0 + len <= a.n)
                rb_tiled_stage1_dot<R>(f, u, T, H);
            else
                rb_tiled_stage1<R, IT>(f, u, len, T, H);
            for (int k = 0; k < R; ++k) {
                RB_TILED_CAR(car1, blk, k) = (CT)T[k];
                RB_TILED_CAR(car2, blk, k) = (CT)H[k];
            }
            if (a.shift) RB_TILED_SUM(sums, blk) = (float)bs;
        }
    }
    if (f.dbl || f.seq_chain) { /* RECBLUR_CUDA_CHAIN=seq, as the kernels' launcher */
        /* as rb_tiled_chain_launch: the split chain where the plan chose it (few
         * lanes; each lane's group of threads in lockstep, its state gathered from
         * their slots); RB_EMU_CHAIN=one or =split takes that chain whatever the plan */
        const char *ch = getenv("RB_EMU_CHAIN");
        const bool split = ch && !strcmp(ch, "one") ? false : ch && !strcmp(ch, "split") ? true : f.split_chain != 0;
        constexpr int TPL = RB_TILED_TPL(R);
        for (size_t lane = 0; lane < lanes; ++lane) {
            const rb_tiled_lg g = {lanes, lane, 0, 0u};
            if (split) rb_tiled_chain_split<R, CT, TPL, TPL>(f, in, car1, car2, sums, mean, g);
            else rb_tiled_chain<R, CT>(f, in, car1, car2, sums, mean, lanes, lane);
        }
    } else {
        /* the parallel chain, phase by phase as rb_tiled_pchain_k runs it (each
         * phase for every group of the lane before the next phase) */
        rb_tiled_grp gp;
        rb_tiled_grp_init(&f, &gp);
        double sh[RB_TILED_NG * R], se[R], v[R];
        /* the groups' on-chip carries (rb_tiled_pcc), group g's at pc + g; the
         * kernel caches the first blocks its shared memory holds, here each lane
         * another count 0 .. nbg, so every split of a group is run */
        CT *pc = (CT *)malloc(sizeof(CT) * 2 * R * RB_TILED_NG * (size_t)gp.nbg);
        if (!pc) {
            free(car1);
            free(car2);
            free(sums);
            free(mean);
            return -1;
        }
        for (size_t lane = 0; lane < lanes; ++lane) {
            /* the mirror instance caches nothing (rb_tiled_pcc_plan) */
            const int cap = f.b.mirror_closed ? 0 : (int)(lane % (size_t)(gp.nbg + 1));
            double mu = 0.0;
            mean[lane] = 0.0f;
            if (a.shift) {
                double s = 0.0;
                for (int g = 0; g < RB_TILED_NG; ++g) s += rb_tiled_pc_sum(f, gp, g, sums, lanes, lane);
                mean[lane] = (float)(s / a.n);
                mu = (double)mean[lane] * f.sumfird;
            }
            for (int g = 0; g < RB_TILED_NG; ++g) {
                rb_tiled_pc_zero_c<R, CT>(f, gp, g, car1, car2, rb_tiled_pcc<CT>{pc + g, RB_TILED_NG, cap}, mu, lanes, lane,
                                          v);
                for (int k = 0; k < R; ++k) sh[g * R + k] = v[k];
            }
            rb_tiled_pc_combine_c<R, CT>(f, gp, in, lane, mu, sh, 1, se, 1, car1, car2, lanes);
            for (int g = 0; g < RB_TILED_NG; ++g) {
                rb_tiled_pc_run_c<R, CT>(f, gp, g, car1, car2, rb_tiled_pcc<CT>{pc + g, RB_TILED_NG, cap}, mu, lanes, lane,
                                         sh + g * R, v);
                for (int k = 0; k < R; ++k) sh[g * R + k] = v[k];
            }
            rb_tiled_pc_combine_a<R>(f, gp, sh, 1, se, 1);
            for (int g = 0; g < RB_TILED_NG; ++g)
                rb_tiled_pc_run_a<R, CT>(f, gp, g, car2, rb_tiled_pcc<CT>{pc + g, RB_TILED_NG, cap}, lanes, lane,
                                         sh + g * R);
        }
        free(pc);
    }
    for (size_t lane = 0; lane < lanes; ++lane) {
        long long base, S, obase;
        rb_tiled_lane(f, (long long)lane, &base, &S);
        obase = f.rows ? (long long)(lane / f.c) * f.ld_out + (long long)(lane % f.c) : (long long)lane;
        const long long So = f.rows ? f.c : f.ld_out;
        for (int blk = 0; blk < nb; ++blk) {
            int len = a.m - blk * RB_TILED_B < RB_TILED_B ? a.m - blk * RB_TILED_B : RB_TILED_B;
            long long j0 = (long long)a.s0 + (long long)blk * RB_TILED_B;
            if (j0 >= a.n || j0 + len <= 0) continue;
            rb_emu_load<R, IT>(f, in + base, S, blk, len, a.cval[lane % a.channels], u, &bs);
            const double back = rb_tiled_final_from_carries<R, CT, IT>(f, u, len, blk, car1, car2, mean, lanes, lane);
            for (int j = 0; j < len; ++j) {
                long long jj = j0 + j;
                if (jj >= 0 && jj < a.n) out[obase + jj * So] = (float)((double)u[j] + back);
            }
        }
    }
    free(car1);
    free(car2);
    free(sums);
    free(mean);
    return 0;
}

static int rb_emu_axis_any(const rb_cuda_tiled &f, const float *in, float *out, size_t lanes)
{
    switch (f.b.ax.r) {
#define RB_EMU_CASE(R)                                                                              \
    case R:                                                                                         \
        return f.dbl ? rb_emu_axis<R, double, double>(f, in, out, lanes)                            \
               : f.fin ? rb_emu_axis<R, float, float>(f, in, out, lanes)                            \
                       : rb_emu_axis<R, float, double>(f, in, out, lanes);
    RB_EMU_CASE(1) RB_EMU_CASE(2) RB_EMU_CASE(3) RB_EMU_CASE(4)
    RB_EMU_CASE(5) RB_EMU_CASE(6) RB_EMU_CASE(7) RB_EMU_CASE(8)
#undef RB_EMU_CASE
    default: return -2;
    }
}

/* The 2D filter of `plan` on a packed float32 image without alpha (constant
 * boundary `bval`), columns then rows, as rb_cuda_execute_2d runs it.
 * Where the column final stage also makes the row carries (rb_cuda_tiled_can_fuse,
 * the default route), it runs rb_tiled_stage1 on the same float column outputs,
 * summed in the same order, as the row stage 1 below: the same carries.
 * 0 on success, -2 when the tiled solver does not cover the filter. */
extern "C" int rb_gpu_emulate_2d(const rb_plan *plan, const float *in, float *out, float bval)
{
    const int w = plan->width, h = plan->height, c = plan->channels;
    const size_t count = (size_t)w * h * c;
    rb_cuda_tiled *f = (rb_cuda_tiled *)calloc(1, sizeof *f);
    float *tmp = (float *)malloc(count * sizeof(float));
    int rc = 0;
    if (!f || !tmp) {
        rc = -1;
        goto done;
    }
    memcpy(tmp, in, count * sizeof(float));
    if (plan->cols.ax.active) {
        if ((rc = rb_cuda_tiled_init(&plan->cols, c, 0, &plan->ctx->sw, f)) != 0) goto done;
        rb_cuda_tiled_plan_chain(f, (size_t)w * c);
        for (int k = 0; k < c; ++k) f->b.ax.cval[k] = bval;
        f->ld = f->ld_out = (long long)w * c;
        if ((rc = rb_emu_axis_any(*f, in, tmp, (size_t)w * c)) != 0) goto done;
        rb_emu_trace(&plan->cols, *f, in, tmp, (size_t)w * c, bval);
    }
    memcpy(out, tmp, count * sizeof(float));
    if (plan->rows.ax.active) {
        double g = plan->cols.ax.active ? plan->cols.ax.dc_gain : 1.0;
        if ((rc = rb_cuda_tiled_init(&plan->rows, c, 1, &plan->ctx->sw, f)) != 0) goto done;
        rb_cuda_tiled_plan_chain(f, (size_t)h * c);
        for (int k = 0; k < c; ++k) f->b.ax.cval[k] = (float)bval * (float)g;
        f->ld = f->ld_out = (long long)w * c;
        rc = rb_emu_axis_any(*f, tmp, out, (size_t)h * c);
        if (!rc) rb_emu_trace(&plan->rows, *f, tmp, out, (size_t)h * c, (float)bval * (float)g);
    }
done:
    free(f);
    free(tmp);
    return rc;
}
