/* Images larger than the device's memory (issue 18 item 3): the banded route
 * of the CUDA back end (cuda/plan/rb_cuda_banded.cu) against the in-memory
 * host route on the same image, and the floor of any host route (a pinned
 * cudaMemcpy of the image up and down), all in the same run, interleaved run
 * by run; the device-to-device copy rate of the same run for the record.
 *
 * The banded plans are made with RECBLUR_CUDA_ALLOC_LIMIT (set per context)
 * at one float image (the two whole-image buffers cannot fit: columns and
 * rows in about 10 pieces each) and at a quarter of one (about 37 each); one
 * more at one float image with RECBLUR_CUDA_PINNED_LIMIT leaving the plan's
 * float image between the passes pageable (the staging's CPU copies move it). Their
 * output is checked against the in-memory route byte for byte before timing.
 * Host images are pageable (malloc), fresh random samples each start. The
 * first execute of a banded plan (which allocates the plan's host float image
 * between the passes and pins the staging) is timed apart from the median.
 *
 *   gpu_banded_bench [runs]     (default 10)
 * Wall-clock time of the whole synchronous rb_execute, median of the runs
 * after a warm-up. */
#include "recblur.h"
#include "rb_internal.h" /* rb_switch_set */

#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <string>
#include <vector>

#include "bench_cuda.h"

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

static std::string last_log;
static void keep_log(const char *m, void *user)
{
    (void)user;
    if (strstr(m, "does not fit") || strstr(m, "host memory for the float image")) last_log += std::string(m) + "; ";
}

extern "C" size_t rb_cuda_host_bytes_in_use(void); /* cuda/host/rb_cuda_alloc.h */

enum { R_FLOOR, R_MEM, R_BAND1, R_BAND1P, R_BAND4, NR };
static const char *names[NR] = {"pinned cudaMemcpy up + down (floor)", "in-memory host route",
                                "banded, limit 1 float image", "  the same, float image between passes pageable",
                                "banded, limit 1/4 float image"};

static void run(const rb_filter *f, int n, int c, rb_format fmt, int runs)
{
    const size_t count = (size_t)n * n * c, bytes = count * (fmt == RB_F32 ? 4 : 1), floats = count * 4;
    const char *what = fmt == RB_F32 ? "gray float32" : "RGB 8-bit";
    unsigned char *in = (unsigned char *)malloc(bytes), *out = (unsigned char *)malloc(bytes);
    unsigned char *ref = (unsigned char *)malloc(bytes), *pin_in, *pin_out, *dev, *dev2;
    if (!in || !out || !ref) { fprintf(stderr, "out of host memory\n"); exit(2); }
    CK(cudaMallocHost((void **)&pin_in, bytes));
    CK(cudaMallocHost((void **)&pin_out, bytes));
    CK(cudaMalloc((void **)&dev, floats));
    CK(cudaMalloc((void **)&dev2, floats));
    bench_seed((uint64_t)time(NULL) * 2654435761u ^ (uint64_t)n);
    for (size_t i = 0; i < count; ++i) {
        if (fmt == RB_F32) ((float *)in)[i] = (float)bench_urand();
        else in[i] = (unsigned char)(bench_urand() * 256.0);
    }
    memcpy(pin_in, in, bytes);
    CK(cudaMemset(dev2, 0, floats));
    rb_boundary b = {RB_BOUNDARY_CLAMP, 0};
    rb_context *ctx[NR] = {0};
    rb_plan *plan[NR] = {0};
    double first[NR] = {0};
    std::string said[NR];
    rb_image hi = bench_square_image(n, c, fmt, RB_MEMORY_HOST, in), ho = hi;
    for (int r = R_MEM; r < NR; ++r) {
        RK(ctx[r], rb_context_create(&ctx[r]));
        RK(ctx[r], rb_context_set_backend(ctx[r], RB_BACKEND_CUDA));
        rb_context_set_log(ctx[r], keep_log, NULL);
        if (r != R_MEM) {
            char v[32];
            /* the limit counts every device byte of the process: the plans made before hold theirs */
            snprintf(v, sizeof v, "%zu", rb_cuda_device_bytes_in_use() + (r == R_BAND4 ? floats / 4 : floats));
            RK(ctx[r], rb_switch_set(ctx[r], "RECBLUR_CUDA_ALLOC_LIMIT", v));
        }
        if (r == R_BAND1P) { /* room for the staging's slots, not for the float image between the passes */
            char v[32];
            snprintf(v, sizeof v, "%zu", rb_cuda_host_bytes_in_use() + ((size_t)64 << 20));
            RK(ctx[r], rb_switch_set(ctx[r], "RECBLUR_CUDA_PINNED_LIMIT", v));
        }
        last_log.clear();
        RK(ctx[r], rb_plan_create(ctx[r], f, b, n, n, c, &plan[r]));
        said[r] = last_log;
        if ((r != R_MEM) != !said[r].empty()) { fprintf(stderr, "CHECK FAILED: %s: route not as asked\n", names[r]); exit(3); }
        memset(out, 0x5A, bytes);
        ho.data = r == R_MEM ? ref : out;
        double t0 = now_ms();
        RK(ctx[r], rb_execute(plan[r], &hi, &ho));
        first[r] = now_ms() - t0;
        said[r] = last_log; /* the plan's line, and the execute's about its host memory */
        if (r != R_MEM && memcmp(out, ref, bytes)) {
            fprintf(stderr, "CHECK FAILED: %s differs from the in-memory route\n", names[r]);
            exit(3);
        }
    }
    ho.data = out;
    std::vector<double> t[NR], d2d;
    for (int i = -1; i < runs; ++i) /* i = -1: warm-up */
        for (int r = 0; r < NR; ++r) {
            double t0 = now_ms();
            if (r == R_FLOOR) {
                CK(cudaMemcpy(dev, pin_in, bytes, cudaMemcpyHostToDevice));
                CK(cudaMemcpy(pin_out, dev, bytes, cudaMemcpyDeviceToHost));
            } else {
                RK(ctx[r], rb_execute(plan[r], &hi, &ho));
            }
            if (i >= 0) t[r].push_back(now_ms() - t0);
            if (r == R_FLOOR && i >= 0) /* the device's own copy rate, bytes read + written */
                d2d.push_back(bench_event_ms([&] { CK(cudaMemcpy(dev2, dev, floats, cudaMemcpyDeviceToDevice)); }));
        }
    const double m_floor = bench_median(t[R_FLOOR]), m_mem = bench_median(t[R_MEM]);
    const double rate = 2.0 * floats / 1e6 / bench_median(d2d); /* GB/s */
    for (int r = 0; r < NR; ++r) {
        const double m = bench_median(t[r]);
        printf("| %d^2 %s | %s | %.1f | %.0f | %s | %.2f | %s |\n", n, what, names[r], m, bytes / 1e3 / m,
               r == R_FLOOR ? "-" : std::to_string(m_mem / m).substr(0, 4).c_str(), m_floor / m,
               r >= R_BAND1 ? std::to_string(first[r]).substr(0, 6).c_str() : "-");
    }
    printf("| %d^2 %s | device-to-device copy of the float image (same run) | %.3f | %.0f GB/s | | | |\n", n, what,
           bench_median(d2d), rate);
    for (int r = R_BAND1; r < NR; ++r) fprintf(stderr, "  %s: %s\n", names[r], said[r].c_str());
    fflush(stdout);
    for (int r = R_MEM; r < NR; ++r) {
        rb_plan_destroy(plan[r]);
        rb_context_destroy(ctx[r]);
    }
    CK(cudaFreeHost(pin_in));
    CK(cudaFreeHost(pin_out));
    CK(cudaFree(dev));
    CK(cudaFree(dev2));
    free(in);
    free(out);
    free(ref);
}

int main(int argc, char **argv)
{
    const int runs = argc > 1 ? atoi(argv[1]) : 10;
    if (runs < 1 || runs > 1000) { fprintf(stderr, "gpu_banded_bench [runs]\n"); return 2; }
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    rb_context *g;
    if (rb_context_create(&g) != RB_OK) return 2;
    rb_filter *f;
    RK(g, rb_filter_gaussian(g, 8.0, 8.0, RB_GAUSSIAN_DEFAULT, &f));
    printf("GPU %s, %s, clamp boundary, host pageable in/out, median of %d runs (ms, wall clock)\n\n", prop.name,
           rb_filter_describe(f), runs);
    printf("| image | route | median ms | MB/s of image | in-memory / this | floor / this | first execute ms |\n");
    printf("|---|---|---|---|---|---|---|\n");
    run(f, 8192, 3, RB_U8, runs);
    run(f, 8192, 1, RB_F32, runs);
    rb_filter_destroy(f);
    rb_context_destroy(g);
    return 0;
}
