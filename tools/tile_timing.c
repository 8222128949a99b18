/* Dev tile-timing driver for the sm80 prefill and split-key decode tiles (issue #5; not part of the library, CI or the
   build). tile_timing LIB: dlopens a libflashc.so built with FLASHC_SM80_TILE_TIMING=ON (each sm80
   variant then exports <name>_tile_timing(buf), fwd_kernel.cuh "Tile timing"), points every bf16
   variant's stamp buffer at one device buffer and runs the bf16 FA3-grid prefill shapes (b·s = 16k
   tokens, h·d = 2048, d64/d128 at s = 512 and 2048, non-causal and causal; TT_SEQS=512,1024,...
   and TT_ONLY_D=64|128 narrow or widen that). Each launch follows a 256 MB memset that flushes L2
   (as tools/ab80.c). Per shape: event time with stamps off and on (median of REPS), then, for
   the stamped launch of median event time: per-phase percentiles (globaltimer ns; clock64 medians
   as a cross-check of the timer's resolution), the per-SM picture (CTAs per SM at once, gap from a
   CTA's exit to the next CTA's entry on the same SM, first-CTA start skew, last-CTA end skew) and
   the kernel span split into phases, gaps, head and tail. TT_DUMP=DIR writes every CTA's record of
   that launch as CSV (DIR/tt_d<d>_s<s>_c<causal>.csv: the CTA's linear index, SM, key blocks, the six
   stamps from the first entry and the clocks) for offline analysis. TT_DRY=1 only checks the
   library's timing setters, TT_SELFTEST=1 runs the analysis on made-up stamps (neither needs a GPU).
   TT_DECODE="b:hq:hkv:sq:sk,..." times d128 decode shapes instead: bf16, or with TT_DTYPE=fp8 e4m3
   with V in K's layout (TT_VT=1: V^T); the split-key tiles stamp too; TT_ONLY_D=64 for d64. It
   prints GB/s of K+V and, per CTA, when it entered, got its first block, left its key loop and
   drained, counted from the first entry (start and tail of the wave).
   Build: gcc -O2 -o tile_timing tools/tile_timing.c -Iinclude -I/usr/local/cuda/include
          -L/usr/local/cuda/lib64 -lcudart_static -lrt -lpthread -ldl -lm */
#define _POSIX_C_SOURCE 200809L /* strdup under -std=c11 (else an implicit int truncates the pointer) */
#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime.h>
#include "flashc.h"

#define REPS 9
#define FLUSH_BYTES (256u << 20)
#define TT_WORDS 16         /* fwd_kernel.cuh TT_WORDS */
#define MAX_CTAS (1 << 16)  /* stamp buffer: 8 MB */
#define MAX_SM 512
#define NPH 5               /* phases between the six stamps */

static void (*p_init)(flashc_attention_params *);
static flashc_tensor (*p_make)(void *, flashc_dtype, int32_t, const int64_t *);
static flashc_status (*p_ws)(const flashc_attention_params *, size_t *);
static flashc_status (*p_fwd)(const flashc_attention_params *, void *, size_t, cudaStream_t);
static const char *(*p_err)(void);

/* every bf16 sm80 prefill variant the grid can pick (the host chooses; unknown names are skipped) */
static const char *const k_names[] = {
    "flashc_sm80_fwd_bf16_d64_m128_f", "flashc_sm80_fwd_bf16_d64_m128", "flashc_sm80_fwd_bf16_d64_m64",
    "flashc_sm80_fwd_bf16_d128_m128_n128_f", "flashc_sm80_fwd_bf16_d128_m128_n128_lm",
    "flashc_sm80_fwd_bf16_d128_m128_n128", "flashc_sm80_fwd_bf16_d128_m128", "flashc_sm80_fwd_bf16_d128_m64",
    "flashc_sm80_fwd_bf16_d256_m128_n64_lm", "flashc_sm80_fwd_bf16_d256_m128_n64", "flashc_sm80_fwd_bf16_d256_m64",
    "flashc_sm80_fwd_bf16_d256_m128_n64_f", "flashc_sm80_fwd_bf16_d256_m128_n64_lm_f", "flashc_sm80_fwd_bf16_d256_m64_n64_kv",
    "flashc_sm80_fwd_bf16_d128_m128_n128_lm_f", "flashc_sm80_fwd_bf16_d128_m128_n64_f", "flashc_sm80_fwd_bf16_d128_m128_n64_lm_f",
    /* decode (TT_DECODE): the split-key tiles and their lean-loader twins (contiguous K/V) */
    "flashc_sm80_fwd_bf16_d128_m32_sk", "flashc_sm80_fwd_bf16_d64_m32_sk",
    "flashc_sm80_fwd_bf16_d128_m32_sk_f", "flashc_sm80_fwd_bf16_d64_m32_sk_f",
    /* fp8 decode (TT_DECODE with TT_DTYPE=fp8): the 8-bit d128 split-key tiles, V^T and V rows (_vr) */
    "flashc_sm80_fwd_e4m3_d128_m16_sk8_f", "flashc_sm80_fwd_e4m3_d128_m16_sk8_f_vr",
    "flashc_sm80_fwd_e4m3_d128_m16_sk_f", "flashc_sm80_fwd_e4m3_d128_m16_sk_f_vr",
    "flashc_sm80_fwd_e4m3_d128_m32_sk_f", "flashc_sm80_fwd_e4m3_d128_m32_sk_f_vr"};
#define NNAMES ((int)(sizeof k_names / sizeof k_names[0]))
static cudaError_t (*p_tt[NNAMES])(void *);

static void *must(void *h, const char *s) { void *f = dlsym(h, s); if (!f) { fprintf(stderr, "no %s\n", s); exit(1); } return f; }
static int cmpf(const void *a, const void *b) { float x = *(const float *)a, y = *(const float *)b; return (x > y) - (x < y); }
static int cmpd(const void *a, const void *b) { double x = *(const double *)a, y = *(const double *)b; return (x > y) - (x < y); }

static void set_buf(void *buf)
{
    for (int i = 0; i < NNAMES; ++i)
        if (p_tt[i] && p_tt[i](buf) != cudaSuccess) { fprintf(stderr, "tile_timing(%s) failed\n", k_names[i]); exit(1); }
    /* the copy runs on the library's runtime; a pageable-source copy may return before it lands,
       and our stream is non-blocking: wait for the whole context */
    cudaDeviceSynchronize();
}

/* percentile q (0..1) of v[0..n) (sorted in place) */
static double pct(double *v, int n, double q)
{
    if (n <= 0) return NAN;
    qsort(v, (size_t)n, sizeof(double), cmpd);
    int i = (int)floor(q * (n - 1) + 0.5);
    return v[i];
}

static void print_dist(const char *name, double *v, int n, double scale, const char *unit)
{
    if (n <= 0) { printf("    %-26s (none)\n", name); return; }
    double sum = 0; for (int i = 0; i < n; ++i) sum += v[i];
    const double mean = sum / n;
    printf("    %-26s p10 %8.2f  p50 %8.2f  p90 %8.2f  max %8.2f  mean %8.2f %s (n %d)\n", name,
           pct(v, n, 0.1) * scale, pct(v, n, 0.5) * scale, pct(v, n, 0.9) * scale, pct(v, n, 1.0) * scale,
           mean * scale, unit, n);
}

typedef struct cta { uint64_t t[6], c[6]; int sm, nb, id; } cta; /* id: the CTA's linear index (x fastest) */
static int cmp_cta_t0(const void *a, const void *b)
{
    const cta *x = a, *y = b;
    return x->sm != y->sm ? x->sm - y->sm : (x->t[0] > y->t[0]) - (x->t[0] < y->t[0]);
}

/* One stamped launch: the records of n_grid CTAs. */
static void analyse(const uint64_t *rec, int n_grid, float event_ms, int d, int s, int causal)
{
    static cta cs[MAX_CTAS];
    static double v[MAX_CTAS], w[MAX_CTAS];
    int n = 0, partial = 0;
    for (int i = 0; i < n_grid; ++i) {
        const uint64_t *r = rec + (size_t)i * TT_WORDS;
        if (!r[0]) continue;
        if (!r[5]) { ++partial; continue; } /* returned early (no rows) */
        cta *x = &cs[n++];
        for (int k = 0; k < 6; ++k) x->t[k] = r[k], x->c[k] = r[8 + k];
        x->sm = (int)r[6]; x->nb = (int)r[7]; x->id = i;
    }
    if (!n) { printf("  no stamps (is this a FLASHC_SM80_TILE_TIMING build, and did a tile of k_names run?)\n"); return; }
    uint64_t T0 = cs[0].t[0], T5 = cs[0].t[5];
    for (int i = 1; i < n; ++i) { if (cs[i].t[0] < T0) T0 = cs[i].t[0]; if (cs[i].t[5] > T5) T5 = cs[i].t[5]; }
    const double span = (double)(T5 - T0);
    const char *const ph[NPH] = {"entry -> Q+K/V0 landed", "block 0 .. last start", "last block", "epilogue (O staged+st)",
                                 "store drain (fence)"};
    double phase_sum[NPH] = {0}, dur_sum = 0;
    int nb_lo = cs[0].nb, nb_hi = cs[0].nb;
    for (int i = 1; i < n; ++i) { if (cs[i].nb < nb_lo) nb_lo = cs[i].nb; if (cs[i].nb > nb_hi) nb_hi = cs[i].nb; }
    printf("  CTAs %d (%d returned early), key blocks per CTA %d..%d; span (first entry .. last drained) %.1f us,"
           " event %.1f us\n", n, partial, nb_lo, nb_hi, span / 1e3, event_ms * 1e3);
    for (int k = 0; k < NPH; ++k) {
        int m = 0;
        for (int i = 0; i < n; ++i) {
            if (k == 1 && cs[i].nb < 2) continue;
            v[m] = (double)(cs[i].t[k + 1] - cs[i].t[k]);
            w[m++] = (double)(cs[i].c[k + 1] - cs[i].c[k]);
            phase_sum[k] += (double)(cs[i].t[k + 1] - cs[i].t[k]);
        }
        print_dist(ph[k], v, m, 1e-3, "us");
        if (m) printf("    %-26s clock64 p50 %.0f cycles\n", "", pct(w, m, 0.5));
    }
    int m = 0, mb = 0;
    for (int i = 0; i < n; ++i) {
        dur_sum += (double)(cs[i].t[5] - cs[i].t[0]);
        v[m++] = (double)(cs[i].t[5] - cs[i].t[0]);
        if (cs[i].nb >= 1) w[mb++] = (double)(cs[i].t[3] - cs[i].t[1]) / cs[i].nb; /* block 0 start .. loop done */
    }
    print_dist("CTA total (entry..drained)", v, m, 1e-3, "us");
    const double per_block = pct(w, mb, 0.5);
    print_dist("per key block", w, mb, 1e-3, "us");
    for (int i = 0; i < n; ++i) v[i] = (double)(cs[i].t[5] - cs[i].t[0]) - cs[i].nb * per_block;
    print_dist("fixed = total - nb x block", v, n, 1e-3, "us");
    {   /* SM clock from the two clocks: both advance over the same interval */
        int q = 0;
        for (int i = 0; i < n; ++i)
            if (cs[i].t[5] > cs[i].t[0]) w[q++] = (double)(cs[i].c[5] - cs[i].c[0]) / (double)(cs[i].t[5] - cs[i].t[0]);
        printf("    SM clock (clock64 / globaltimer) p50 %.0f MHz\n", pct(w, q, 0.5) * 1e3);
    }

    /* when CTAs start, get their first block and finish, from the first entry (ramp and tail) */
    for (int i = 0; i < n; ++i) v[i] = (double)(cs[i].t[0] - T0);
    print_dist("entry, from first entry", v, n, 1e-3, "us");
    for (int i = 0; i < n; ++i) v[i] = (double)(cs[i].t[1] - T0);
    print_dist("first block landed, abs", v, n, 1e-3, "us");
    for (int i = 0; i < n; ++i) v[i] = (double)(cs[i].t[3] - T0);
    print_dist("loop done, abs", v, n, 1e-3, "us");
    for (int i = 0; i < n; ++i) v[i] = (double)(cs[i].t[5] - T0);
    print_dist("drained, abs", v, n, 1e-3, "us");

    /* per SM */
    qsort(cs, (size_t)n, sizeof(cta), cmp_cta_t0);
    int nsm = 0, ngap = 0, maxconc_med = 0;
    static double first[MAX_SM], last[MAX_SM], busy[MAX_SM], conc[MAX_SM];
    for (int i = 0; i < n;) {
        int j = i;
        while (j < n && cs[j].sm == cs[i].sm) ++j;
        /* CTAs [i, j) on one SM, by entry */
        uint64_t lastend = 0, cover_end = 0;
        double b = 0;
        int mc = 0;
        for (int a = i; a < j; ++a) {
            if (cs[a].t[5] > lastend) lastend = cs[a].t[5];
            /* the latest exit on this SM before this entry: the slot it took */
            uint64_t prev = 0;
            int live = 1;
            for (int z = i; z < j; ++z) {
                if (z == a) continue;
                if (cs[z].t[5] <= cs[a].t[0] && cs[z].t[5] > prev) prev = cs[z].t[5];
                if (cs[z].t[0] <= cs[a].t[0] && cs[z].t[5] > cs[a].t[0]) ++live;
            }
            if (live > mc) mc = live;
            if (prev) w[ngap++] = (double)(cs[a].t[0] - prev);
            /* busy = union of [t0, t5] */
            uint64_t s0 = cs[a].t[0] > cover_end ? cs[a].t[0] : cover_end;
            if (cs[a].t[5] > s0) b += (double)(cs[a].t[5] - s0);
            if (cs[a].t[5] > cover_end) cover_end = cs[a].t[5];
        }
        if (nsm < MAX_SM) {
            first[nsm] = (double)(cs[i].t[0] - T0);
            last[nsm] = (double)(T5 - lastend);
            busy[nsm] = b;
            conc[nsm] = mc;
            ++nsm;
        }
        i = j;
    }
    double gap_sum = 0; for (int i = 0; i < ngap; ++i) gap_sum += w[i];
    double head_sum = 0, tail_sum = 0, busy_sum = 0;
    for (int i = 0; i < nsm; ++i) head_sum += first[i], tail_sum += last[i], busy_sum += busy[i];
    maxconc_med = (int)pct(conc, nsm, 0.5);
    printf("  per SM (%d SMs seen, CTAs at once p50 %d, CTAs per SM %.1f = %.2f waves):\n", nsm, maxconc_med,
           (double)n / nsm, (double)n / (nsm * (maxconc_med ? maxconc_med : 1)));
    print_dist("exit -> next entry (gap)", w, ngap, 1e-3, "us");
    print_dist("first-CTA start skew", first, nsm, 1e-3, "us");
    print_dist("last-CTA end skew (tail)", last, nsm, 1e-3, "us");
    printf("    SM busy (any CTA resident) %.1f %% of span\n", 100.0 * busy_sum / (nsm * span));
    /* span per slot: what each phase, the gaps, head and tail cost per CTA slot */
    const double slots = (double)nsm * (maxconc_med ? maxconc_med : 1);
    printf("  span %.1f us per slot = phases %.1f (", span / 1e3, dur_sum / slots / 1e3);
    for (int k = 0; k < NPH; ++k) printf("%s%.1f", k ? " + " : "", phase_sum[k] / slots / 1e3);
    printf(") + gaps %.1f + head %.1f + tail %.1f = %.1f us; event - span %.1f us\n", gap_sum / slots / 1e3,
           head_sum / nsm / 1e3, tail_sum / nsm / 1e3,
           (dur_sum + gap_sum) / slots / 1e3 + (head_sum + tail_sum) / nsm / 1e3, event_ms * 1e3 - span / 1e3);

    const char *dir = getenv("TT_DUMP");
    if (dir) {
        char path[512];
        snprintf(path, sizeof path, "%s/tt_d%d_s%d_c%d.csv", dir, d, s, causal);
        FILE *f = fopen(path, "w");
        if (f) {
            fprintf(f, "cta,sm,blocks,t0,t1,t2,t3,t4,t5,c0,c1,c2,c3,c4,c5\n");
            for (int i = 0; i < n; ++i) {
                fprintf(f, "%d,%d,%d", cs[i].id, cs[i].sm, cs[i].nb);
                for (int k = 0; k < 6; ++k) fprintf(f, ",%llu", (unsigned long long)(cs[i].t[k] - T0));
                for (int k = 0; k < 6; ++k) fprintf(f, ",%llu", (unsigned long long)(cs[i].c[k] - cs[i].c[0]));
                fprintf(f, "\n");
            }
            fclose(f);
        }
    }
}

/* prefill (b = 16k / s, h = 2048 / d, s_q = s_k = s) or, with hq > 0, decode (b, hq / hkv, sq, sk) */
static void shape_g(void *flush, void *ttbuf, int d, int s, int causal, int b, int hq, int hkv, int sq)
{
    const int h = hq > 0 ? hq : 2048 / d;
    if (hq <= 0) b = 16384 / s, hkv = h, sq = s;
    const int fp8 = hq > 0 && getenv("TT_DTYPE") && !strcmp(getenv("TT_DTYPE"), "fp8");
    const int vt = fp8 && getenv("TT_VT") && atoi(getenv("TT_VT")) == 1;
    const size_t eb = fp8 ? 1 : 2; /* input element bytes; the output is bf16 */
    const flashc_dtype dt = fp8 ? FLASHC_DTYPE_FP8_E4M3 : FLASHC_DTYPE_BF16;
    size_t nq = (size_t)b * sq * h * d, nk = (size_t)b * s * hkv * d;
    void *q, *k, *v, *o, *ws = NULL;
    cudaMalloc(&q, nq * eb); cudaMalloc(&k, nk * eb); cudaMalloc(&v, nk * eb); cudaMalloc(&o, nq * 2);
    { /* bf16 in [-1, 1]-ish, as ab80; e4m3 +-[1, 1.875] */
        size_t nmax = nq > nk ? nq : nk;
        unsigned char *hb = malloc(nmax * eb);
        for (size_t i = 0; i < nmax; ++i) {
            if (fp8) hb[i] = (unsigned char)(0x38 ^ (rand() & 0x87));
            else ((unsigned short *)hb)[i] = (unsigned short)(0x3f00 ^ (rand() & 0x807f));
        }
        cudaMemcpy(q, hb, nq * eb, cudaMemcpyHostToDevice); cudaMemcpy(k, hb, nk * eb, cudaMemcpyHostToDevice);
        cudaMemcpy(v, hb, nk * eb, cudaMemcpyHostToDevice);
        free(hb);
    }
    flashc_attention_params p;
    int64_t sh[4] = {b, sq, h, d}, shk[4] = {b, s, hkv, d}, shvt[4] = {b, hkv, d, s};
    p_init(&p);
    p.q = p_make(q, dt, 4, sh); p.k = p_make(k, dt, 4, shk);
    p.v = p_make(v, dt, 4, vt ? shvt : shk); p.out = p_make(o, FLASHC_DTYPE_BF16, 4, sh);
    p.v_transposed = vt;
    p.causal = causal;
    p.backend = FLASHC_BACKEND_SM80;
    size_t wsb = 0;
    if (p_ws(&p, &wsb)) { printf("ws: %s\n", p_err()); exit(1); }
    if (wsb) cudaMalloc(&ws, wsb);
    cudaStream_t sm; cudaStreamCreateWithFlags(&sm, cudaStreamNonBlocking);
    cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
    static uint64_t rec[REPS][(size_t)MAX_CTAS * TT_WORDS];
    float t_off[REPS], t_on[REPS], t_on_s[REPS];
    /* launches in turn: stamps off, stamps on (the same kernel: the pointer alone differs) */
    for (int r = -2; r < REPS; ++r)
        for (int on = 0; on < 2; ++on) {
            set_buf(on ? ttbuf : NULL);
            if (on) cudaMemsetAsync(ttbuf, 0, (size_t)MAX_CTAS * TT_WORDS * 8, sm);
            cudaMemsetAsync(flush, r & 0xff, FLUSH_BYTES, sm);
            cudaEventRecord(e0, sm);
            flashc_status st = p_fwd(&p, ws, wsb, sm);
            cudaEventRecord(e1, sm);
            if (st) { printf("fwd: %s\n", p_err()); exit(1); }
            cudaEventSynchronize(e1);
            float ms; cudaEventElapsedTime(&ms, e0, e1);
            if (r < 0) continue;
            if (on) {
                t_on[r] = ms;
                cudaMemcpy(rec[r], ttbuf, (size_t)MAX_CTAS * TT_WORDS * 8, cudaMemcpyDeviceToHost);
            } else t_off[r] = ms;
        }
    set_buf(NULL);
    cudaError_t e = cudaGetLastError(); if (e) { printf("cuda: %s\n", cudaGetErrorString(e)); exit(1); }
    memcpy(t_on_s, t_on, sizeof t_on);
    qsort(t_on_s, REPS, sizeof(float), cmpf);
    int med = 0;
    for (int r = 0; r < REPS; ++r) if (t_on[r] == t_on_s[REPS / 2]) med = r;
    qsort(t_off, REPS, sizeof(float), cmpf);
    if (hq > 0) { /* decode: GB/s of K + V read */
        const double kv = 2.0 * nk * eb;
        printf("%s decode d%d b%d h%d/%d s_q %d s_k %d: stamps off %.1f us (%.0f GB/s), on %.1f us (%.0f GB/s, %+.1f %%)\n",
               fp8 ? (vt ? "fp8 (V^T)" : "fp8 (V rows)") : "bf16", d, b, h, hkv, sq, s, t_off[REPS / 2] * 1e3, kv / (t_off[REPS / 2] * 1e-3) / 1e9, t_on_s[REPS / 2] * 1e3,
               kv / (t_on_s[REPS / 2] * 1e-3) / 1e9, (t_on_s[REPS / 2] / t_off[REPS / 2] - 1) * 100);
    } else {
    const double flops = 4.0 * b * h * (double)s * s * d * (causal ? 0.5 : 1.0);
    printf("bf16 d%d s%d b%d h%d %s: stamps off %.1f us (%.1f TF), on %.1f us (%.1f TF, %+.1f %%)\n", d, s, b, h,
           causal ? "causal" : "non-causal", t_off[REPS / 2] * 1e3, flops / (t_off[REPS / 2] * 1e-3) / 1e12,
           t_on_s[REPS / 2] * 1e3, flops / (t_on_s[REPS / 2] * 1e-3) / 1e12, (t_on_s[REPS / 2] / t_off[REPS / 2] - 1) * 100);
    }
    analyse(rec[med], MAX_CTAS, t_on_s[REPS / 2], d, s, hq > 0 ? 100 + sq : causal); /* decode CSV: c1<s_q> */
    cudaStreamDestroy(sm); cudaEventDestroy(e0); cudaEventDestroy(e1);
    cudaFree(q); cudaFree(k); cudaFree(v); cudaFree(o); if (ws) cudaFree(ws);
}

static void shape(void *flush, void *ttbuf, int d, int s, int causal) { shape_g(flush, ttbuf, d, s, causal, 0, 0, 0, 0); }

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    if (argc < 2) { fprintf(stderr, "usage: tile_timing LIBFLASHC.so\n"); return 2; }
    void *hd = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!hd) { fprintf(stderr, "%s\n", dlerror()); return 1; }
    p_init = must(hd, "flashc_attention_params_init"); p_make = must(hd, "flashc_make_tensor");
    p_ws = must(hd, "flashc_attention_workspace_size"); p_fwd = must(hd, "flashc_attention_forward");
    p_err = must(hd, "flashc_last_error");
    int found = 0;
    for (int i = 0; i < NNAMES; ++i) {
        char sym[160];
        snprintf(sym, sizeof sym, "%s_tile_timing", k_names[i]);
        p_tt[i] = (cudaError_t (*)(void *))dlsym(hd, sym);
        found += p_tt[i] != NULL;
    }
    printf("lib %s: %d of %d listed variants export tile timing\n", argv[1], found, NNAMES);
    if (!found) return 1;
    if (getenv("TT_DRY")) return 0; /* symbol check only (no GPU) */
    if (getenv("TT_SELFTEST")) { /* the analysis on made-up stamps (no GPU): 132 SMs x 1 slot, 2048
                                    CTAs of 4 blocks, phases 1.5 / 9 / 3 / 0.8 / 0.4 us, 0.5 us gaps */
        static uint64_t r[(size_t)2048 * TT_WORDS];
        uint64_t free_at[132];
        for (int i = 0; i < 132; ++i) free_at[i] = 1000000 + (uint64_t)i * 10;
        static const uint64_t ph[5] = {1500, 9000, 3000, 800, 400};
        for (int c = 0; c < 2048; ++c) {
            int sm = 0;
            for (int i = 1; i < 132; ++i) if (free_at[i] < free_at[sm]) sm = i;
            uint64_t *x = r + (size_t)c * TT_WORDS;
            x[0] = free_at[sm] + (c >= 132 ? 500 : 0);
            for (int k = 0; k < 5; ++k) x[k + 1] = x[k] + ph[k];
            for (int k = 0; k < 6; ++k) x[8 + k] = (x[k] - 1000000) * 2; /* 2 GHz */
            x[6] = (uint64_t)sm; x[7] = 4;
            free_at[sm] = x[5];
        }
        analyse(r, 2048, 0.320f, 128, 512, 0);
        return 0;
    }
    int dev = 0, nsm = 0; struct cudaDeviceProp pr;
    cudaGetDevice(&dev); cudaDeviceGetAttribute(&nsm, cudaDevAttrMultiProcessorCount, dev);
    cudaGetDeviceProperties(&pr, dev);
    printf("device %s, %d SMs\n", pr.name, nsm);
    void *flush, *ttbuf;
    if (cudaMalloc(&flush, FLUSH_BYTES) || cudaMalloc(&ttbuf, (size_t)MAX_CTAS * TT_WORDS * 8)) { printf("no memory\n"); return 1; }
    if (getenv("TT_DECODE")) { /* "b:hq:hkv:sq:sk,..." d128 decode shapes (TT_ONLY_D=64: d64; TT_DTYPE, TT_VT) */
        char *list = strdup(getenv("TT_DECODE"));
        const int dd = getenv("TT_ONLY_D") ? atoi(getenv("TT_ONLY_D")) : 128;
        for (char *t = strtok(list, ","); t; t = strtok(NULL, ",")) {
            int b, hq, hkv, sq, sk;
            if (sscanf(t, "%d:%d:%d:%d:%d", &b, &hq, &hkv, &sq, &sk) == 5) shape_g(flush, ttbuf, dd, sk, 0, b, hq, hkv, sq);
        }
        free(list);
        return 0;
    }
    int seqs[8] = {512, 2048}, ns = 2;
    if (getenv("TT_SEQS")) {
        char *list = strdup(getenv("TT_SEQS"));
        ns = 0;
        for (char *t = strtok(list, ","); t && ns < 8; t = strtok(NULL, ",")) seqs[ns++] = atoi(t);
        free(list);
    }
    const char *only = getenv("TT_ONLY_D");
    for (int d = 64; d <= 256; d *= 2) {
        if (only ? atoi(only) != d : d == 256) continue;
        for (int si = 0; si < ns; ++si)
            for (int c = 0; c < 2; ++c) shape(flush, ttbuf, d, seqs[si], c);
    }
    return 0;
}
