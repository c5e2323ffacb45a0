/* The tiled 2D solver of the CUDA back end, its types and entry points. One
 * axis in three launches (rb_tiled_launch.cu): stage 1 reads the input once
 * for the block carries, the chain walks the small carry arrays once per line
 * (the 2016 paper's boundary feedbacks start it), the final stage reads the
 * input again and writes the output once. Both axes run on the row-major
 * image (rows through 32-row shared-memory tiles, columns directly,
 * coalesced): no transposes, no deinterleaving of channels. Lane l, sample i
 * of an axis: columns lane = x*c + k, sample = row; rows lane = y*c + k,
 * sample = x. */
#ifndef RB_TILED_H
#define RB_TILED_H

#include "rb_internal.h"
#include <cuda_runtime.h>

#ifdef __cplusplus
extern "C" {
#endif

/* samples per block (one warp's worth) */
#define RB_TILED_B 32
/* FIR taps per axis the solver takes; longer FIRs run on the CPU back end */
#define RB_TILED_TAPS RB_CUDA_TILED_TAPS
/* every order the engine takes (RB_MAX_ORDER); order 0 (a FIR alone) runs as
 * order 1 with a zero feedback */
#define RB_TILED_MAX_ORDER 8
/* the highest order the mirror closure (67)/(72) of the parallel chain takes
 * (float carries: orders 6-8 take double ones unless forced) */
#define RB_TILED_MIR_ORDER 5

/* One axis as the device solver needs it (passed to kernels by value). */
typedef struct {
    int n;              /* line length */
    int s0, m;          /* the passes run over extended samples s0 .. s0+m-1 */
    int mode;           /* rb_boundary_mode */
    int via_periodic;   /* mirror on a non-symmetric axis: m = 2n periodic route
                           (the per-line baseline; the tiled solver pads such mirror) */
    int padded;         /* zero states `-s0` samples beyond each end (mirror not closed
                           by (67)/(72): rb_cuda_blocks.mirror_closed; or the plan's
                           padded route) */
    int shift;          /* filter x - mean(x), add gain * mean back (as line_solver.c): the
                           states then carry no huge DC response of poles near 1 */
    double gain;        /* the axis' DC gain sum(fir) / ((1 + sum dc)(1 + sum da)) */
    int r;              /* common order of both passes */
    int fir_lo, ntaps;  /* ntaps == 0: identity FIR */
    int channels;       /* lane l carries channel l % channels */
    float cval[4];      /* constant mode: the working value outside, per channel */
    int has_c;          /* causal pass present */
    double anticausal_dc;
    float dc[RB_MAX_ORDER], da[RB_MAX_ORDER];     /* float recursion's coefficients */
    double dcd[RB_MAX_ORDER], dad[RB_MAX_ORDER];  /* the same in double */
    double prologue_dc;
    double M44[RB_MAX_ORDER * RB_MAX_ORDER], v44[RB_MAX_ORDER];
} rb_cuda_axis;

/* Fill a device axis from the engine's plan, unpadded (m, s0 as the plan's
 * closed forms need them); the tiled solver's blocks add its padding. */
void rb_cuda_axis_from_plan(const rb_axis_plan *ap, int channels, const float *cval, rb_cuda_axis *out);

/* The axis cut into blocks of RB_TILED_B samples, with the block transfer
 * matrices of the chain. States: causal [y_{i-1} .. y_{i-r}], anticausal
 * [z_{i+1} .. z_{i+r}]. */
typedef struct {
    rb_cuda_axis ax;
    int nb, last_len;         /* blocks per line, samples in the last block */
    int periodic_like;        /* periodic */
    int mirror_closed;        /* mirror closed by (67)/(72) in the parallel chain (float
                                 carries, order <= RB_TILED_MIR_ORDER, the plan's symmetric
                                 closed form: rb_tiled_mirror_closes); else mirror pads */
    int mir_nj;               /* mirror_closed: the leading blocks whose heads reach p_1(Zhat)
                                 (the anticausal response dies out past them) */
    int wrap;                 /* periodic_like: 0, the chains closed by Qc/Qa ((49)/(51)); K > 0,
                                 by going K times around the line (rb_cuda_tiled_wraps) */
    int lapped;               /* periodic_like: 1 where the double chain's laps stop where the
                                 impulse responses have died out (rb_tiled_laps_init): the causal
                                 lap steps blocks lap_c0 .. nb-1 then lap_nc whole laps, the
                                 anticausal one blocks lap_a1-1 .. 0 then lap_na whole laps, from
                                 zero states, no Qc/Qa; 0: wrap laps or one lap and Qc/Qa */
    int lap_c0, lap_nc, lap_a1, lap_na;
    double Mc[RB_MAX_ORDER * RB_MAX_ORDER], Mc_last[RB_MAX_ORDER * RB_MAX_ORDER];
    double Ma[RB_MAX_ORDER * RB_MAX_ORDER], Ma_last[RB_MAX_ORDER * RB_MAX_ORDER];
    double Qc[RB_MAX_ORDER * RB_MAX_ORDER], Qa[RB_MAX_ORDER * RB_MAX_ORDER];
    /* mirror_closed: the plan's (67)/(72) matrices in our state order (K the exchange
     * matrix; causal states newest first, the plan's oldest first, anticausal alike):
     * p(Y) = Mz p_1(Zhat) + My e_{-1}(Yhat), Mz = K M67z, My = K M67y K;
     * e(Z) = Me e_{-1}(Y), Me = M72 K. R x R, R <= RB_TILED_MIR_ORDER: the cross kernel
     * takes two of these structs by value, within the 32 KB of kernel parameters. */
    double Mz[RB_TILED_MIR_ORDER * RB_TILED_MIR_ORDER], My[RB_TILED_MIR_ORDER * RB_TILED_MIR_ORDER];
    double Me[RB_TILED_MIR_ORDER * RB_TILED_MIR_ORDER];
} rb_cuda_blocks;

/* One axis of the tiled solver (host memory; kernels take it by value). */
typedef struct {
    rb_cuda_blocks b;         /* axis, blocks, A^len powers, periodic (I - A^m)^-1 */
    double G[RB_MAX_ORDER * RB_MAX_ORDER], G_last[RB_MAX_ORDER * RB_MAX_ORDER];
    double T1[RB_MAX_ORDER], T1_last[RB_MAX_ORDER], H1[RB_MAX_ORDER], H1_last[RB_MAX_ORDER];
    double fird[RB_TILED_TAPS];  /* FIR taps in double */
    double sumfird;           /* their sum (1 without a FIR) */
    int rows;                 /* 0: lanes are columns; 1: lanes are rows */
    int c;                    /* channels */
    int dbl;                  /* carries in double: the states are much larger than the output
                                 (poles near 1, e.g. wide Gaussians), float would lose it all */
    int fin;                  /* recursion inside blocks in float (else double) */
    int fir_tile;             /* in-line blocks take their FIR from a tile of their samples
                                 (rb_tiled_fir_tiled); RECBLUR_CUDA_FIR=direct: every sample
                                 through rb_tiled_u, the route before (comparisons) */
    int seq_chain;            /* RECBLUR_CUDA_CHAIN=seq: the one-thread-per-lane chain for
                                 float carries too (comparisons; double carries always take it) */
    int split_chain;          /* that chain split over a few threads a lane (rb_tiled_chain_split):
                                 chosen once per plan from all the axis' lanes (rb_cuda_tiled_plan_chain),
                                 so every route of a plan (whole image, column bands, row strips) runs
                                 the same chain: on the device the two can round a double carry's
                                 last bit apart (most likely the compiler's FMA contraction), and a
                                 band taking the other chain changed one output float in ~10^7
                                 (test_gpu_host's test_bands_same_chain) */
    /* double carries: the chain's block transfers on the backward differences of the
     * states (rb_tiled_diffs), columns the responses to the polynomial states, made
     * in long double by stepping the recursion (rb_tiled_diff_responses): Dc, Dc_last
     * causal through a block, Dg, Dg_last its anticausal head, Da, Da_last anticausal */
    double Dc[RB_MAX_ORDER * RB_MAX_ORDER], Dc_last[RB_MAX_ORDER * RB_MAX_ORDER];
    double Dg[RB_MAX_ORDER * RB_MAX_ORDER], Dg_last[RB_MAX_ORDER * RB_MAX_ORDER];
    double Da[RB_MAX_ORDER * RB_MAX_ORDER], Da_last[RB_MAX_ORDER * RB_MAX_ORDER];
    long long ld, ld_out;     /* floats between image rows, input and output */
    int wdot;                 /* float carries: stage 1 of whole in-line blocks as
                                 2R dot products with Wt/Wh (rb_tiled_stage1_dot), no recursion */
    float Wt[RB_TILED_MAX_ORDER * RB_TILED_B];  /* Tbar_k = sum_j Wt[k B + j] u_j of a whole block */
    float Wh[RB_TILED_MAX_ORDER * RB_TILED_B];  /* Hbar_k = sum_j Wh[k B + j] u_j */
    /* the cross terms' basis (rb_tiled_cross.cuh): Xb[b B + j], sample j of a whole
     * zero block's final from unit carry b (P_k: b = k, E_k: b = r + k; the mean:
     * b = 2r, its input -sumfir and its gain added back) */
    float Xb[(2 * RB_TILED_MAX_ORDER + 1) * RB_TILED_B];
    /* the cross kernel's persistent thread blocks, as many as fit the device at
     * once: sized at plan time (rb_cuda_tiled_plan_cross), not at each execute;
     * 0: one a tile */
    int cross_blocks;
} rb_cuda_tiled;

/* Whether the tiled solver takes this axis: 0, or -2 (a FIR of more than
 * RB_TILED_TAPS taps) with the reason in why. */
int rb_cuda_tiled_covers(const rb_axis_plan *ap, char *why, size_t why_len);
/* 0 on success, -2 not covered (rb_cuda_tiled_covers); sw: the context's
 * switches (carry precision, in-block recursion, stage 1, chain). */
int rb_cuda_tiled_init(const rb_axis_plan *ap, int channels, int rows, const rb_switches *sw,
                       rb_cuda_tiled *out);
/* The wrapped periodic route: K, the laps of the carry chains around a periodic
 * line whose plan is padded (closed forms (49)/(51) ill-conditioned) that make
 * it as exact as that padding; 0 where the line is not such, RECBLUR_CUDA_PERIODIC
 * =padded, or K > RB_TILED_MAX_WRAPS (the padded route then runs). */
#define RB_TILED_MAX_WRAPS 64
int rb_cuda_tiled_wraps(const rb_axis_plan *ap, const rb_switches *sw);
/* Carry floats per lane. */
size_t rb_cuda_tiled_carry(const rb_axis_plan *ap, const rb_switches *sw);
/* One axis: in -> out (distinct), lanes = w*c (columns) or h*c (rows);
 * ev: NULL or 3 events recorded after stage 1, the chain and the final stage. */
cudaError_t rb_cuda_tiled_axis(const rb_cuda_tiled *f, const float *in, float *out, float *carry,
                               size_t lanes, cudaStream_t s, cudaEvent_t *ev);

/* Both axes with the column final stage also making the row carries (the
 * tiled columns' output tile is what the row stage 1 reads), where it covers
 * the pair (rb_cuda_tiled_can_fuse) and pays (rb_cuda_tiled_fuse_wanted):
 * columns in -> mid with the row carries into rcarry, then the rows mid -> out
 * from those carries. */
int rb_cuda_tiled_can_fuse(const rb_cuda_tiled *fc, const rb_cuda_tiled *fr);
/* force: RECBLUR_CUDA_FUSE (RB_FORCE_*), read at each execute (the benchmark times both) */
int rb_cuda_tiled_fuse_wanted(const rb_cuda_tiled *fc, const rb_cuda_tiled *fr, int force);
cudaError_t rb_cuda_tiled_cols_making_row_carries(const rb_cuda_tiled *fc, const rb_cuda_tiled *fr,
                                                  const float *in, float *mid, float *ccarry, float *rcarry,
                                                  size_t lanes, size_t rlanes, cudaStream_t s, cudaEvent_t *ev);
cudaError_t rb_cuda_tiled_rows_from_carries(const rb_cuda_tiled *fr, const float *mid, float *out,
                                            float *rcarry, size_t rlanes, cudaStream_t s, cudaEvent_t *ev);

/* The 2D route in four image transfers (rb_tiled_final_both.cuh): the fused
 * kernel makes the row carries without writing the column output (but the
 * pixels near the line's ends the rows read, into mid), the row chain runs,
 * and one kernel does the final stage of both axes, in -> out. Covers what
 * the fused route covers (rb_cuda_tiled_can_final_both; FIR rows:
 * rb_tiled_final_both_fir, only when asked); out == in only where
 * rb_cuda_tiled_final_both_in_place and the rows have no FIR. ccarry, rcarry
 * as the fused route's; mid: a scratch image, neither in nor out. */
int rb_cuda_tiled_can_final_both(const rb_cuda_tiled *fc, const rb_cuda_tiled *fr);
int rb_cuda_tiled_final_both_in_place(const rb_cuda_tiled *fc);
/* force: RECBLUR_CUDA_FUSE (RB_FORCE_*; =both: this route wherever it covers) */
int rb_cuda_tiled_final_both_wanted(const rb_cuda_tiled *fc, const rb_cuda_tiled *fr, int force);
cudaError_t rb_cuda_tiled_cols_row_carries_only(const rb_cuda_tiled *fc, const rb_cuda_tiled *fr, const float *in,
                                                float *mid, float *ccarry, float *rcarry, size_t lanes, size_t rlanes,
                                                cudaStream_t s, cudaEvent_t *ev);
cudaError_t rb_cuda_tiled_final_both(const rb_cuda_tiled *fc, const rb_cuda_tiled *fr, const float *in,
                                     const float *mid, float *out, float *ccarry, float *rcarry, size_t lanes,
                                     size_t rlanes, cudaStream_t s, cudaEvent_t *ev);

/* The 2D route in three image transfers (rb_tiled_cross.cuh): the column
 * stage 1 also makes the row carries of its tile from zero column states,
 * a compute-only kernel adds the cross terms of the complete column carries
 * after the column chain; then rb_cuda_tiled_final_both as above. Covers
 * rb_cuda_tiled_can_final_both's pairs on rows without padding; runs where
 * RECBLUR_CUDA_FUSE=cross, and by default where it measured faster
 * (rb_cuda_tiled_cross_wanted). */
int rb_cuda_tiled_can_cross(const rb_cuda_tiled *fc, const rb_cuda_tiled *fr);
int rb_cuda_tiled_cross_wanted(const rb_cuda_tiled *fc, const rb_cuda_tiled *fr, int force);
/* At plan time: f->split_chain for an axis of `lanes` lanes in all (w*c
 * columns, h*c rows), whatever lanes one launch takes (left 0 by
 * rb_cuda_tiled_init: the one-thread chain) */
void rb_cuda_tiled_plan_chain(rb_cuda_tiled *f, size_t lanes);
/* At plan time: fc->cross_blocks for the current device (left 0 if the device
 * cannot be asked: the kernel then takes one thread block a tile) */
void rb_cuda_tiled_plan_cross(rb_cuda_tiled *fc);
cudaError_t rb_cuda_tiled_cols_row_carries_cross(const rb_cuda_tiled *fc, const rb_cuda_tiled *fr, const float *in,
                                                 float *mid, float *ccarry, float *rcarry, size_t lanes,
                                                 size_t rlanes, cudaStream_t s, cudaEvent_t *ev);

#ifdef __cplusplus
}
#endif
#endif
