/* Build (nvcc, as bench/gpu_bench.cu; -x cu would apply to the libraries too, so two steps):
 * nvcc -x cu -std=c++17 -O2 -arch=sm_90 -Iengine/include -Ibench -c docs/pending/gpu_output_hash.cpp -o goh.o
 * nvcc -arch=sm_90 goh.o BUILD/tests/librb_gpu_emu.a BUILD/engine/librecblur.a BUILD/cuda/librecblur_cuda.a
 *      BUILD/engine/librecblur.a -lpthread -lm -o BUILD/bench/gpu_output_hash
 * (into BUILD/bench/ so scripts/gpu_pack.sh finds it; run: `gpu_output_hash --big` on the device) */
/* Hash of the 2D tiled solver's outputs: host emulation (--host) or the CUDA
 * back end on device pointers; one line a case, to diff base vs branch. */
#include "bench_cuda.h" /* bench_filter, bench_seed/bench_urand, CK, RK */
extern "C" int rb_gpu_emulate_2d(const rb_plan *plan, const float *in, float *out, float bval);

static uint64_t fnv(const void *p, size_t n)
{
    const unsigned char *c = (const unsigned char *)p;
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; ++i) h = (h ^ c[i]) * 1099511628211ull;
    return h;
}

int main(int argc, char **argv)
{
    int host = 0, big = 0, gauss = 0; /* --host: the emulation; --big: 8192² and 3000x40x3 too;
                                         --gauss: Gaussians of sigma 2, 8, 30, 100 instead of orders 1/3/5 */
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--host")) host = 1;
        else if (!strcmp(argv[i], "--big")) big = 1;
        else if (!strcmp(argv[i], "--gauss")) gauss = 1;
        else {
            fprintf(stderr, "usage: gpu_output_hash [--host] [--big] [--gauss]\n");
            return 2;
        }
    }
    static const int sz[][3] = {{4096, 4096, 1}, {1000, 777, 1}, {333, 2049, 4}, {8192, 8192, 1}, {3000, 40, 3}};
    const int nsz = big ? 5 : 3;
    rb_context *ctx;
    if (rb_context_create(&ctx) != RB_OK) return 1;
    if (!host) RK(ctx, rb_context_set_backend(ctx, RB_BACKEND_CUDA));
    const rb_boundary_mode modes[3] = {RB_BOUNDARY_CLAMP, RB_BOUNDARY_PERIODIC, RB_BOUNDARY_MIRROR};
    for (int si = 0; si < nsz; ++si)
        for (int fi = 0; fi < (gauss ? 4 : 3); ++fi)
            for (int mi = 0; mi < 3; ++mi) {
                static const double sigmas[4] = {2, 8, 30, 100};
                const int order = gauss ? (int)sigmas[fi] : 2 * fi + 1; /* printed; seeds the input */
                const int w = sz[si][0], h = sz[si][1], ch = sz[si][2];
                if (host && w * (size_t)h > 20000000) continue;
                const size_t count = (size_t)w * h * ch;
                float *in = (float *)malloc(count * 4), *out = (float *)malloc(count * 4);
                bench_seed(12345u + (uint64_t)(si * 100 + order * 10 + mi)); /* the same input for base and branch */
                for (size_t i = 0; i < count; ++i) in[i] = (float)bench_urand();
                rb_filter *f = NULL;
                if (gauss) RK(ctx, rb_filter_gaussian(ctx, sigmas[fi], sigmas[fi], RB_GAUSSIAN_DEFAULT, &f));
                else f = bench_filter(ctx, order);
                rb_boundary b = {modes[mi], 0.0f};
                rb_plan *plan;
                RK(ctx, rb_plan_create(ctx, f, b, w, h, ch, &plan));
                int rc = 0;
                if (host) {
                    rc = rb_gpu_emulate_2d(plan, in, out, 0.0f);
                } else {
                    float *di, *dout;
                    CK(cudaMalloc((void **)&di, count * 4));
                    CK(cudaMalloc((void **)&dout, count * 4));
                    CK(cudaMemcpy(di, in, count * 4, cudaMemcpyHostToDevice));
                    CK(cudaMemset(dout, 0xff, count * 4)); /* poisoned */
                    rb_image ii, io;
                    memset(&ii, 0, sizeof ii);
                    ii.width = w; ii.height = h; ii.channels = ch; ii.stride = (size_t)w * ch * 4;
                    ii.format = RB_F32; ii.memory = RB_MEMORY_DEVICE; ii.data = di;
                    io = ii;
                    io.data = dout;
                    rc = rb_execute(plan, &ii, &io);
                    CK(cudaMemcpy(out, dout, count * 4, cudaMemcpyDeviceToHost));
                    CK(cudaFree(di));
                    CK(cudaFree(dout));
                }
                printf("%s %dx%dx%d %s %d mode %d rc %d hash %016llx\n", host ? "host" : "dev", w, h, ch, gauss ? "sigma" : "order", order,
                       (int)modes[mi], rc, (unsigned long long)fnv(out, count * 4));
                fflush(stdout);
                rb_plan_destroy(plan);
                rb_filter_destroy(f);
                free(in);
                free(out);
            }
    rb_context_destroy(ctx);
    return 0;
}
