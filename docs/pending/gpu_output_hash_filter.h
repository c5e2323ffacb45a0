static inline rb_filter *bench_filter(rb_context *ctx, int r)
{
    rb_axis_filter f;
    memset(&f, 0, sizeof f);
    double d[RB_MAX_ORDER + 3] = {1.0};
    int deg = 0;
    static const double rad[4] = {0.7, 0.6, 0.5, 0.4}, th[4] = {0.6, 1.3, 2.0, 2.6};
    int pair = 0;
    while (deg < r) {
        double c1, c2;
        int step;
        if ((r - deg) % 2 == 1) { c1 = -0.8; c2 = 0; step = 1; }
        else { c1 = -2 * rad[pair] * cos(th[pair]); c2 = rad[pair] * rad[pair]; step = 2; pair++; }
        double t[RB_MAX_ORDER + 3] = {0};
        for (int k = 0; k <= deg + step; ++k) {
            double v = k <= deg ? d[k] : 0;
            if (k >= 1 && k - 1 <= deg) v += c1 * d[k - 1];
            if (k >= 2 && k - 2 <= deg) v += c2 * d[k - 2];
            t[k] = v;
        }
        memcpy(d, t, sizeof d);
        deg += step;
    }
    f.causal_order = f.anticausal_order = r;
    for (int k = 0; k < r; ++k) f.causal[k] = f.anticausal[k] = -d[k + 1];
    rb_filter *out;
    if (rb_filter_create(ctx, &f, &f, &out) != RB_OK) abort();
    return out;
}
