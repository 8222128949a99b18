/* Dev A/B timing tool for the sm80 path (not part of the library, CI or the build).
   ab80 LIB_A LIB_B [LIB_C ...]: dlopens each libflashc.so (each with its own static cudart; they
   share the device's primary context) and times the same inputs through every library, launch
   by launch in turn, each launch after a 256 MB memset that flushes L2. Prints the median per
   library. An entry "LIB@VAR=VAL" (up to four: LIB@V1=A@V2=B) sets those environment variables around that library's
   launches (for dev hooks).
   AB_SHAPES=prefill (default: bf16 prefill grid + one decode guard), paged (the split-key tiles'
   paged twins: whole pages, 16-bit page-sub), wide8 (the wide 8-bit split-key tiles' rule), deep8
   (8-bit 33-64 rows, contiguous and paged), sk32 (8-bit 17-64 rows, d128 and d64, contiguous and
   paged), d64 (8-bit d64 decode, contiguous and paged), sk32t (the 32-row tiles' work threshold),
   one (AB_ONE="dtype,d,b,h_q,h_kv,s_q,s_k,page": a single shape, for a profiler) or decode: b 64, h 32/8,
   s_k 8k, s_q 1, d128 in bf16/fp8/int8, contiguous and paged (pages of 16 and 64, in a scattered
   order); 8-bit calls use V^T (v_transposed = 1; AB_VT=0: V in K's layout) and bf16 output; then
   bf16 pages of 8 and 32, the small-batch rows (b 8, h 64/8, s_k 4k/32k, s_q 1/4), b 64 h 32/8 4k
   and b 128 h 32/32 4k/32k, each small one next to a device-to-device copy of half its K+V bytes (same DRAM
   traffic: what a plain stream of those bytes achieves, launch included); then fp8 and int8 rows
   of b 8, h 64/8 (4k s_q 1/4, 32k s_q 4 contiguous and with pages of 64 / 256) and b 64, h 32/8,
   8k, s_q 4. Decode rows (s_q < 16)
   print GB/s of K+V read. AB_ONLY_D=64|128|256 narrows the prefill grid, AB_SEQS=2048,16384 picks
   its sequence lengths (default 2k, 8k), AB_BACKEND=sm90|auto times that path instead of sm80.
   AB_GRAPH=1 times each library's call replayed from a CUDA graph (kernel time without the host's
   per-call work). AB_SKX=x adds, after each non-causal prefill row, the same tiles with x times
   the keys (s_k = x s). AB_CHECK=1 compares each library's output bit for bit with library 0's
   (prints the count of differing elements; AB_CHECK=2 also the largest absolute difference,
   bf16 output). AB_DTYPE=fp8|int8 runs the prefill grid in that
   dtype. AB_USED=ramp gives sequence i of a decode shape sk (i + 1) / b keys (seqused_k), dense or
   paged, and counts GB/s over the keys used. */
#define _POSIX_C_SOURCE 200809L /* strdup, setenv under -std=c11 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <cuda_runtime.h>
#include "flashc.h"

#define MAX_LIBS 8
#define MAX_ENV 4 /* "LIB@VAR=VAL@VAR2=VAL2": dev hooks per library */
#define REPS 21
#define FLUSH_BYTES (256u << 20)

typedef struct lib {
    const char *name, *env_var[MAX_ENV], *env_val[MAX_ENV];
    int n_env;
    void (*init)(flashc_attention_params *);
    flashc_tensor (*make)(void *, flashc_dtype, int32_t, const int64_t *);
    flashc_status (*ws)(const flashc_attention_params *, size_t *);
    flashc_status (*fwd)(const flashc_attention_params *, void *, size_t, cudaStream_t);
    const char *(*err)(void);
} lib;

static int cmpf(const void *a, const void *b) { float x = *(const float *)a, y = *(const float *)b; return (x > y) - (x < y); }

static void *must(void *h, const char *s) { void *f = dlsym(h, s); if (!f) { fprintf(stderr, "no %s\n", s); exit(1); } return f; }

static void setenv_for(const lib *L) { for (int i = 0; i < L->n_env; ++i) setenv(L->env_var[i], L->env_val[i], 1); }
static void unsetenv_for(const lib *L) { for (int i = 0; i < L->n_env; ++i) unsetenv(L->env_var[i]); }

static void shape_ex(lib *L, int nl, void *flush, int d, int s, int causal, int b, int hq, int hkv, int sq,
                     flashc_dtype dt, int page, int sk)
{
    const int eb = dt == FLASHC_DTYPE_BF16 || dt == FLASHC_DTYPE_F16 ? 2 : 1; /* input bytes */
    /* 8-bit: V^T, or with AB_VT=0 V in K's layout (the _vr twins) */
    const int vt = eb == 1 && !(getenv("AB_VT") && atoi(getenv("AB_VT")) == 0);
    const int pages_per_seq = page ? (sk + page - 1) / page : 0;
    const int64_t num_pages = (int64_t)b * pages_per_seq;
    size_t nq = (size_t)b * sq * hq * d, nk = page ? (size_t)num_pages * page * hkv * d : (size_t)b * sk * hkv * d;
    void *q, *k, *v, *o, *ws = NULL;
    int32_t *table = NULL, *used = NULL;
    cudaMalloc(&q, nq * 2); cudaMalloc(&k, nk * 2); cudaMalloc(&v, nk * 2); cudaMalloc(&o, nq * 2);
    /* AB_USED=ramp: seqused_k of sequence i is sk (i + 1) / b (a cache of mixed lengths, the
       splits planned from its longest), dense or paged; GB/s then counts the keys used */
    const int ramp = getenv("AB_USED") && !strcmp(getenv("AB_USED"), "ramp");
    double keys_used = (double)b * sk;
    if (page || ramp) {
        int32_t *hu = malloc(sizeof(int32_t) * (size_t)b);
        if (!hu) { fprintf(stderr, "ab80: out of host memory\n"); exit(1); }
        keys_used = 0;
        for (int i = 0; i < b; ++i) {
            hu[i] = ramp ? (int32_t)((int64_t)sk * (i + 1) / b) : sk;
            if (hu[i] < 1) hu[i] = 1;
            keys_used += hu[i];
        }
        cudaMalloc((void **)&used, sizeof(int32_t) * (size_t)b);
        cudaMemcpy(used, hu, sizeof(int32_t) * (size_t)b, cudaMemcpyHostToDevice);
        free(hu);
    }
    if (page) {
        int32_t *ht = malloc(sizeof(int32_t) * (size_t)num_pages);
        if (!ht) { fprintf(stderr, "ab80: out of host memory\n"); exit(1); }
        for (int64_t i = 0; i < num_pages; ++i) ht[i] = (int32_t)i;
        for (int64_t i = num_pages - 1; i > 0; --i) { int64_t j = rand() % (i + 1); int32_t x = ht[i]; ht[i] = ht[j]; ht[j] = x; }
        cudaMalloc((void **)&table, sizeof(int32_t) * (size_t)num_pages);
        cudaMemcpy(table, ht, sizeof(int32_t) * (size_t)num_pages, cudaMemcpyHostToDevice);
        free(ht);
    }
    size_t pat = 1 << 20;
    unsigned short *h = malloc(pat * 2);
    if (!h) { fprintf(stderr, "ab80: out of host memory\n"); exit(1); }
    for (size_t i = 0; i < pat; ++i) h[i] = (unsigned short)(0x3f00 ^ (rand() & 0x807f));
    void *bufs[3] = {q, k, v};
    size_t ns[3] = {nq, nk, nk};
    for (int t = 0; t < 3; ++t) { /* one pattern from the host, then doubled on the device */
        size_t done = ns[t] < pat ? ns[t] : pat;
        cudaMemcpy(bufs[t], h, done * 2, cudaMemcpyHostToDevice);
        while (done < ns[t]) {
            size_t n = ns[t] - done < done ? ns[t] - done : done;
            cudaMemcpy((char *)bufs[t] + done * 2, bufs[t], n * 2, cudaMemcpyDeviceToDevice);
            done += n;
        }
    }
    free(h);
    flashc_attention_params p[MAX_LIBS];
    size_t wsb = 0;
    for (int i = 0; i < nl; ++i) {
        int64_t qs[4] = {b, sq, hq, d}, ks[4] = {b, sk, hkv, d}, vs[4] = {b, hkv, d, sk};
        if (page) { ks[0] = vs[0] = num_pages; ks[1] = vs[3] = page; }
        L[i].init(&p[i]);
        p[i].q = L[i].make(q, dt, 4, qs); p[i].k = L[i].make(k, dt, 4, ks);
        p[i].v = L[i].make(v, dt, 4, vt ? vs : ks); p[i].v_transposed = vt;
        p[i].out = L[i].make(o, FLASHC_DTYPE_BF16, 4, qs);
        if (page) {
            p[i].page_table = table; p[i].page_table_stride = pages_per_seq; p[i].max_pages_per_seq = pages_per_seq;
            p[i].max_seqlen_k = sk;
        }
        p[i].seqused_k = used;
        p[i].causal = causal;
        const char *be = getenv("AB_BACKEND");
        p[i].backend = be && !strcmp(be, "sm90") ? FLASHC_BACKEND_SM90 : be && !strcmp(be, "auto") ? FLASHC_BACKEND_AUTO
                                                                                                   : FLASHC_BACKEND_SM80;
        size_t w = 0;
        setenv_for(&L[i]);
        if (L[i].ws(&p[i], &w)) { printf("ws: %s\n", L[i].err()); exit(1); }
        unsetenv_for(&L[i]);
        if (w > wsb) wsb = w;
    }
    if (wsb) cudaMalloc(&ws, wsb);
    cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
    /* AB_GRAPH=1: each library's call is captured once into a CUDA graph and the graph is timed
       (no host work between the events: the kernels' own time, as decode loops run them) */
    const int graph = getenv("AB_GRAPH") && atoi(getenv("AB_GRAPH"));
    cudaStream_t sm; cudaStreamCreateWithFlags(&sm, cudaStreamNonBlocking);
    cudaGraphExec_t ge[MAX_LIBS];
    for (int i = 0; graph && i < nl; ++i) {
        cudaGraph_t g;
        setenv_for(&L[i]);
        cudaStreamBeginCapture(sm, cudaStreamCaptureModeRelaxed);
        flashc_status st = L[i].fwd(&p[i], ws, wsb, sm);
        cudaStreamEndCapture(sm, &g);
        unsetenv_for(&L[i]);
        if (st || cudaGraphInstantiate(&ge[i], g, 0)) { printf("graph %s: %s\n", L[i].name, L[i].err()); exit(1); }
        cudaGraphDestroy(g);
    }
    float t[MAX_LIBS][REPS];
    for (int r = -2; r < REPS; ++r)
        for (int i = 0; i < nl; ++i) {
            cudaMemsetAsync(flush, r & 0xff, FLUSH_BYTES, sm);
            setenv_for(&L[i]);
            cudaEventRecord(e0, sm);
            flashc_status st = graph ? (cudaGraphLaunch(ge[i], sm) ? FLASHC_STATUS_CUDA_ERROR : FLASHC_STATUS_SUCCESS)
                                     : L[i].fwd(&p[i], ws, wsb, sm);
            cudaEventRecord(e1, sm);
            unsetenv_for(&L[i]);
            if (st) { printf("fwd %s: %s\n", L[i].name, L[i].err()); exit(1); }
            cudaEventSynchronize(e1);
            float ms; cudaEventElapsedTime(&ms, e0, e1);
            if (r >= 0) t[i][r] = ms;
        }
    for (int i = 0; graph && i < nl; ++i) cudaGraphExecDestroy(ge[i]);
    /* AB_CHECK=1: one more call per library, output compared bit for bit with library 0's */
    const int check = getenv("AB_CHECK") && atoi(getenv("AB_CHECK"));
    unsigned short *ref = check ? malloc(nq * 2) : NULL, *out = check ? malloc(nq * 2) : NULL;
    size_t diff[MAX_LIBS] = {0};
    float maxd[MAX_LIBS] = {0};
    for (int i = 0; check && i < nl; ++i) {
        setenv_for(&L[i]);
        flashc_status st = L[i].fwd(&p[i], ws, wsb, sm);
        unsetenv_for(&L[i]);
        if (st) { printf("fwd %s: %s\n", L[i].name, L[i].err()); exit(1); }
        cudaStreamSynchronize(sm); /* sm is non-blocking: cudaMemcpy alone would not wait for it */
        cudaMemcpy(i ? out : ref, o, nq * 2, cudaMemcpyDeviceToHost);
        for (size_t x = 0; i && x < nq; ++x) {
            diff[i] += out[x] != ref[x];
            if (check > 1 && out[x] != ref[x]) { /* AB_CHECK=2: also the largest |difference| (bf16 out) */
                uint32_t ua = (uint32_t)out[x] << 16, ub = (uint32_t)ref[x] << 16;
                float fa, fb;
                memcpy(&fa, &ua, 4); memcpy(&fb, &ub, 4);
                const float dlt = fa != fa || fb != fb ? INFINITY : fabsf(fa - fb);
                if (dlt > maxd[i]) maxd[i] = dlt;
            }
        }
    }
    cudaStreamDestroy(sm);
    cudaError_t e = cudaGetLastError(); if (e) { printf("cuda: %s\n", cudaGetErrorString(e)); exit(1); }
    double flops = 4.0 * b * hq * (double)sq * sk * d * (causal ? 0.5 : 1.0);
    double bytes = 2.0 * keys_used * hkv * d * eb;
    static const char *const dn[] = {"f32", "f16", "bf16", "fp8", "int8"};
    printf("%-4s d%-3d s%-6d c%d b%-3d h%d/%d sq%-3d pg%-4d", dn[dt >= 0 && dt <= 4 ? dt : 0], d, s, causal, b, hq, hkv, sq, page);
    if (sk != s) printf(" sk%d", sk);
    if (ramp) printf(" used-ramp");
    float base = 0;
    for (int i = 0; i < nl; ++i) {
        qsort(t[i], REPS, sizeof(float), cmpf);
        float med = t[i][REPS / 2];
        if (i == 0) base = med;
        if (sq < 16) printf(" | %7.1f GB/s", bytes / (med * 1e-3) / 1e9);
        else printf(" | %6.1f TF", flops / (med * 1e-3) / 1e12);
        if (i) printf(" %+5.1f%%", (base / med - 1) * 100);
        if (i && check) printf(check > 1 ? " [%zu diff, max %.2g]" : " [%zu diff]", diff[i], (double)maxd[i]);
    }
    free(ref); free(out);
    printf("\n");
    cudaFree(q); cudaFree(k); cudaFree(v); cudaFree(o); if (ws) cudaFree(ws);
    if (table) cudaFree(table);
    if (used) cudaFree(used);
    cudaEventDestroy(e0); cudaEventDestroy(e1);
}

/* Device-to-device copy of half of `bytes` (so `bytes` of DRAM traffic), timed like a launch. */
static void copy_ref(void *flush, double bytes)
{
    size_t n = (size_t)(bytes / 2);
    void *a, *b;
    if (cudaMalloc(&a, n) || cudaMalloc(&b, n)) { printf("copy ref: no memory\n"); exit(1); }
    cudaMemset(a, 1, n);
    cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
    float t[REPS];
    for (int r = -2; r < REPS; ++r) {
        cudaMemsetAsync(flush, r & 0xff, FLUSH_BYTES, 0);
        cudaEventRecord(e0, 0);
        cudaMemcpyAsync(b, a, n, cudaMemcpyDeviceToDevice, 0);
        cudaEventRecord(e1, 0);
        cudaEventSynchronize(e1);
        float ms; cudaEventElapsedTime(&ms, e0, e1);
        if (r >= 0) t[r] = ms;
    }
    qsort(t, REPS, sizeof(float), cmpf);
    printf("  copy %.0f MB (read+write) %7.1f us %7.1f GB/s\n", bytes / 1e6, t[REPS / 2] * 1e3,
           bytes / (t[REPS / 2] * 1e-3) / 1e9);
    cudaFree(a); cudaFree(b); cudaEventDestroy(e0); cudaEventDestroy(e1);
}

/* AB_DTYPE=fp8|int8: the prefill grid in that input dtype (V^T, bf16 output) instead of bf16 */
static void shape(lib *L, int nl, void *flush, int d, int s, int causal, int b, int hq, int hkv, int sq)
{
    const char *t = getenv("AB_DTYPE");
    const flashc_dtype dt = t && !strcmp(t, "fp8")    ? FLASHC_DTYPE_FP8_E4M3
                            : t && !strcmp(t, "int8") ? FLASHC_DTYPE_INT8
                                                      : FLASHC_DTYPE_BF16;
    shape_ex(L, nl, flush, d, s, causal, b, hq, hkv, sq, dt, 0, s);
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    lib L[MAX_LIBS];
    int nl = 0;
    const char *only = getenv("AB_ONLY_D");
    const int skx = getenv("AB_SKX") ? atoi(getenv("AB_SKX")) : 1;
    for (int a = 1; a < argc && nl < MAX_LIBS; ++a) {
        char *spec = strdup(argv[a]);
        if (!spec) { fprintf(stderr, "ab80: out of host memory\n"); return 1; }
        lib *x = &L[nl++];
        memset(x, 0, sizeof *x);
        for (char *at = strchr(spec, '@'); at;) {
            *at = 0;
            char *var = at + 1, *eq = strchr(var, '=');
            at = strchr(var, '@');
            if (!eq || (at && at < eq) || x->n_env == MAX_ENV) {
                fprintf(stderr, "%s: want LIB@VAR=VAL, at most %d\n", argv[a], MAX_ENV);
                return 1;
            }
            *eq = 0;
            x->env_var[x->n_env] = var;
            x->env_val[x->n_env++] = eq + 1;
        }
        x->name = argv[a];
        void *hd = dlopen(spec, RTLD_NOW | RTLD_LOCAL);
        if (!hd) { fprintf(stderr, "%s\n", dlerror()); return 1; }
        x->init = must(hd, "flashc_attention_params_init"); x->make = must(hd, "flashc_make_tensor");
        x->ws = must(hd, "flashc_attention_workspace_size"); x->fwd = must(hd, "flashc_attention_forward");
        x->err = must(hd, "flashc_last_error");
        printf("lib %d: %s\n", nl - 1, argv[a]);
    }
    void *flush; cudaMalloc(&flush, FLUSH_BYTES);
    const char *set = getenv("AB_SHAPES");
    if (set && !strcmp(set, "deep16")) { /* bf16 33-64 rows: b 8 / 32 / 128, h 64/8, 8k, s_q 5 / 8,
                                             contiguous and with pages of 16 / 256 keys (b 32) */
        static const int pages16[3] = {0, 16, 256}, bs16[3] = {32, 8, 128};
        for (int bi = 0; bi < 3; ++bi)
            for (int sq = 5; sq <= 8; sq += 3)
                for (int pi = 0; pi < (bi ? 1 : 3); ++pi)
                    shape_ex(L, nl, flush, 128, 8192, 0, bs16[bi], 64, 8, sq, FLASHC_DTYPE_BF16, pages16[pi], 8192);
        return 0;
    }
    if (set && !strcmp(set, "paged")) { /* the split-key paged twins (_sk_wp whole pages, 16-bit _sk_pg):
                                            bf16 d128 b 8 h 64/8 32k s_q 1 / 4 with pages of 16 / 64 /
                                            256, s_q 3 with pages of 8 / 32, b 64 h 32/8 8k s_q 1 / 4 with
                                            pages of 16 / 64; bf16 d64 b 8 32k s_q 4 pages of 16 / 128;
                                            fp8 / int8 pages of 256; fp8 pages of 16 / 64;
                                            contiguous guards */
        static const int pg3[3] = {16, 64, 256};
        for (int sq = 1; sq <= 4; sq += 3)
            for (int pi = 0; pi < 3; ++pi) shape_ex(L, nl, flush, 128, 32768, 0, 8, 64, 8, sq, FLASHC_DTYPE_BF16, pg3[pi], 32768);
        for (int pg = 8; pg <= 32; pg *= 4) shape_ex(L, nl, flush, 128, 32768, 0, 8, 64, 8, 3, FLASHC_DTYPE_BF16, pg, 32768);
        for (int sq = 1; sq <= 4; sq += 3)
            for (int pi = 0; pi < 2; ++pi) shape_ex(L, nl, flush, 128, 8192, 0, 64, 32, 8, sq, FLASHC_DTYPE_BF16, pg3[pi], 8192);
        shape_ex(L, nl, flush, 64, 32768, 0, 8, 64, 8, 4, FLASHC_DTYPE_BF16, 16, 32768);
        shape_ex(L, nl, flush, 64, 32768, 0, 8, 64, 8, 4, FLASHC_DTYPE_BF16, 128, 32768);
        shape_ex(L, nl, flush, 128, 32768, 0, 8, 64, 8, 4, FLASHC_DTYPE_BF16, 0, 32768);
        static const flashc_dtype d8[2] = {FLASHC_DTYPE_FP8_E4M3, FLASHC_DTYPE_INT8};
        for (int t = 0; t < 2; ++t) {
            for (int sq = 1; sq <= 4; sq += 3) shape_ex(L, nl, flush, 128, 32768, 0, 8, 64, 8, sq, d8[t], 256, 32768);
            shape_ex(L, nl, flush, 128, 8192, 0, 64, 32, 8, 1, d8[t], 256, 8192);
        }
        /* 8-bit page-sub (pages of 16 / 64 keys inside a 128-key block) */
        for (int sq = 1; sq <= 4; sq += 3)
            for (int pg = 16; pg <= 64; pg *= 4) shape_ex(L, nl, flush, 128, 32768, 0, 8, 64, 8, sq, d8[0], pg, 32768);
        shape_ex(L, nl, flush, 128, 8192, 0, 64, 32, 8, 1, d8[0], 16, 8192);
        shape_ex(L, nl, flush, 128, 32768, 0, 8, 64, 8, 4, d8[0], 0, 32768);
        return 0;
    }
    if (set && !strcmp(set, "wide8")) { /* the wide 8-bit split-key tiles' rule (sm80_sk_wide): fp8 / int8 d128
                                            h 32/8, s_q 1 / 4, b 16-128 at 4k / 8k, b 8 / 16 at 32k,
                                            contiguous; pages of 256 at b 32 / 64 8k; h 64/8 b 16 / 32 8k */
        static const flashc_dtype d8[2] = {FLASHC_DTYPE_FP8_E4M3, FLASHC_DTYPE_INT8};
        static const int bs[7] = {16, 24, 32, 48, 64, 96, 128};
        for (int t = 0; t < 2; ++t) {
            for (int sk = 4096; sk <= 8192; sk *= 2)
                for (int bi = 0; bi < 7; ++bi)
                    for (int sq = 1; sq <= 4; sq += 3) shape_ex(L, nl, flush, 128, sk, 0, bs[bi], 32, 8, sq, d8[t], 0, sk);
            for (int b = 8; b <= 16; b *= 2) shape_ex(L, nl, flush, 128, 32768, 0, b, 32, 8, 1, d8[t], 0, 32768);
            for (int b = 32; b <= 64; b *= 2) shape_ex(L, nl, flush, 128, 8192, 0, b, 32, 8, 1, d8[t], 256, 8192);
            for (int b = 16; b <= 32; b *= 2) shape_ex(L, nl, flush, 128, 8192, 0, b, 64, 8, 1, d8[t], 0, 8192);
        }
        return 0;
    }
    if (set && !strcmp(set, "deep8")) { /* 8-bit 33-64 rows: b 32, h 64/8, 8k, s_q 5 / 8, contiguous and
                                            with pages of 16 / 256 keys; then b 8 and b 128 */
        static const flashc_dtype d8[2] = {FLASHC_DTYPE_FP8_E4M3, FLASHC_DTYPE_INT8};
        static const int pages8[3] = {0, 16, 256}, bs[3] = {32, 8, 128};
        for (int bi = 0; bi < 3; ++bi)
            for (int t = 0; t < 2; ++t)
                for (int sq = 5; sq <= 8; sq += 3)
                    for (int pi = 0; pi < 3; ++pi) {
                        if (bi > 0 && (t > 0 || pi == 2)) continue; /* b 8 / 128: fp8, contiguous and pages of 16 */
                        shape_ex(L, nl, flush, 128, 8192, 0, bs[bi], 64, 8, sq, d8[t], pages8[pi], 8192);
                    }
        return 0;
    }
    if (set && !strcmp(set, "sk32")) { /* 8-bit 17-64 rows (32-row split-key tiles): fp8 / int8 d128 b 8 h 64/8
                                           32k s_q 3 / 4 contiguous and pages of 16 / 32 / 64 / 256, b 32 h 64/8 8k
                                           s_q 4 / 5 / 8, b 64 h 32/8 8k s_q 5 / 8; fp8 d64 b 8 32k s_q 4 */
        static const flashc_dtype d8[2] = {FLASHC_DTYPE_FP8_E4M3, FLASHC_DTYPE_INT8};
        static const int pg[5] = {0, 16, 32, 64, 256};
        for (int t = 0; t < 2; ++t) {
            for (int sq = 3; sq <= 4; ++sq)
                for (int pi = 0; pi < 5; ++pi) shape_ex(L, nl, flush, 128, 32768, 0, 8, 64, 8, sq, d8[t], pg[pi], 32768);
            for (int sq = 4; sq <= 8; sq += sq == 4 ? 1 : 3) shape_ex(L, nl, flush, 128, 8192, 0, 32, 64, 8, sq, d8[t], 0, 8192);
            for (int sq = 5; sq <= 8; sq += 3) shape_ex(L, nl, flush, 128, 8192, 0, 64, 32, 8, sq, d8[t], 0, 8192);
        }
        shape_ex(L, nl, flush, 64, 32768, 0, 8, 64, 8, 4, d8[0], 0, 32768);
        shape_ex(L, nl, flush, 64, 8192, 0, 32, 64, 8, 8, d8[0], 0, 8192);
        return 0;
    }
    if (set && !strcmp(set, "d64")) { /* 8-bit d64 decode (64-byte K rows): fp8 / int8 b 64 h 32/8 8k s_q 1 / 4
                                          contiguous and pages of 16 / 64 / 256; b 8 h 64/8 32k s_q 1 / 4
                                          contiguous and pages of 64 */
        static const flashc_dtype d8[2] = {FLASHC_DTYPE_FP8_E4M3, FLASHC_DTYPE_INT8};
        static const int pg[4] = {0, 16, 64, 256};
        for (int t = 0; t < 2; ++t)
            for (int sq = 1; sq <= 4; sq += 3) {
                for (int pi = 0; pi < 4; ++pi) shape_ex(L, nl, flush, 64, 8192, 0, 64, 32, 8, sq, d8[t], pg[pi], 8192);
                for (int pi = 0; pi < 3; pi += 2) shape_ex(L, nl, flush, 64, 32768, 0, 8, 64, 8, sq, d8[t], pg[pi], 32768);
            }
        return 0;
    }
    if (set && !strcmp(set, "sk32t")) { /* the 32-row tiles' work threshold: fp8 / int8 d128 h 64/8 s_q 4 (32
                                            rows), b x s_k from 8 x 4k (8 key blocks per CTA slot on
                                            132 SMs) to 8 x 32k (62), contiguous */
        static const flashc_dtype d8[2] = {FLASHC_DTYPE_FP8_E4M3, FLASHC_DTYPE_INT8};
        static const int bsk[6][2] = {{8, 4096}, {16, 4096}, {8, 8192}, {32, 4096}, {8, 16384}, {16, 8192}};
        for (int t = 0; t < 2; ++t)
            for (int r = 0; r < 6; ++r) shape_ex(L, nl, flush, 128, bsk[r][1], 0, bsk[r][0], 64, 8, 4, d8[t], 0, bsk[r][1]);
        return 0;
    }
    if (set && !strcmp(set, "one")) { /* AB_ONE="dtype,d,b,h_q,h_kv,s_q,s_k,page" (dtype bf16|fp8|int8):
                                          one decode or prefill shape, e.g. for a profiler */
        const char *o = getenv("AB_ONE");
        char dts[8] = "";
        int d1, b1, hq1, hkv1, sq1, sk1, pg1;
        if (!o || sscanf(o, "%7[a-z0-9],%d,%d,%d,%d,%d,%d,%d", dts, &d1, &b1, &hq1, &hkv1, &sq1, &sk1, &pg1) != 8) {
            fprintf(stderr, "AB_ONE=dtype,d,b,h_q,h_kv,s_q,s_k,page\n");
            return 1;
        }
        const flashc_dtype dt1 = !strcmp(dts, "fp8") ? FLASHC_DTYPE_FP8_E4M3 : !strcmp(dts, "int8") ? FLASHC_DTYPE_INT8
                                                                                                  : FLASHC_DTYPE_BF16;
        shape_ex(L, nl, flush, d1, sq1, 0, b1, hq1, hkv1, sq1, dt1, pg1, sk1);
        return 0;
    }
    if (set && !strcmp(set, "decode")) {
        static const flashc_dtype dts[3] = {FLASHC_DTYPE_BF16, FLASHC_DTYPE_FP8_E4M3, FLASHC_DTYPE_INT8};
        static const int pages[3] = {0, 16, 64};
        for (int t = 0; t < 3; ++t)
            for (int pi = 0; pi < 3; ++pi) shape_ex(L, nl, flush, 128, 8192, 0, 64, 32, 8, 1, dts[t], pages[pi], 8192);
        for (int pg = 8; pg <= 32; pg *= 4) shape_ex(L, nl, flush, 128, 8192, 0, 64, 32, 8, 1, dts[0], pg, 8192);
        /* b, h_q, h_kv, s_k, s_q (bf16, contiguous) */
        static const int rows[][5] = {{8, 64, 8, 4096, 1},  {8, 64, 8, 4096, 4},   {8, 64, 8, 32768, 1},
                                      {8, 64, 8, 32768, 4}, {64, 32, 8, 4096, 1},  {128, 32, 32, 4096, 1},
                                      {128, 32, 32, 32768, 1}};
        for (size_t r = 0; r < sizeof rows / sizeof rows[0]; ++r) {
            shape_ex(L, nl, flush, 128, rows[r][3], 0, rows[r][0], rows[r][1], rows[r][2], rows[r][4], dts[0], 0, rows[r][3]);
            const double kv = 2.0 * rows[r][0] * rows[r][3] * rows[r][2] * 128 * 2;
            if (kv < 2e9 && (r == 0 || rows[r][3] != rows[r - 1][3])) copy_ref(flush, kv);
        }
        /* 8-bit small-batch rows (b 8, h 64/8: s_q 4 packs 32 rows per KV head), contiguous and
           with pages of 64 / 256 keys, then b 64 h 32/8 8k s_q 4 (32 rows) */
        static const int rows8[][3] = {{4096, 1, 0}, {4096, 4, 0}, {32768, 4, 0}, {32768, 4, 64}, {32768, 4, 256}};
        for (int t = 1; t < 3; ++t) {
            for (size_t r = 0; r < sizeof rows8 / sizeof rows8[0]; ++r)
                shape_ex(L, nl, flush, 128, rows8[r][0], 0, 8, 64, 8, rows8[r][1], dts[t], rows8[r][2], rows8[r][0]);
            shape_ex(L, nl, flush, 128, 8192, 0, 64, 32, 8, 4, dts[t], 0, 8192);
        }
        return 0;
    }
    for (int dd = 0; dd < 3; ++dd) {
        int d = 64 << dd;
        if (only && atoi(only) != d) continue;
        int seqs[8] = {2048, 8192}, ns = 2;
        if (getenv("AB_SEQS")) { /* e.g. AB_SEQS=2048,4096,8192,16384 */
            char *list = strdup(getenv("AB_SEQS"));
            ns = 0;
            for (char *t = strtok(list, ","); t && ns < 8; t = strtok(NULL, ",")) seqs[ns++] = atoi(t);
            free(list);
        }
        for (int si = 0; si < ns; ++si)
            for (int c = 0; c < 2; ++c) {
                int s = seqs[si];
                shape(L, nl, flush, d, s, c, 16384 / s, 2048 / d, 2048 / d, s);
                /* AB_SKX=x: after the non-causal row, the same tiles with x times the keys
                   (per-tile fixed cost vs per-key-block cost) */
                if (c == 0 && skx > 1)
                    shape_ex(L, nl, flush, d, s, 0, 16384 / s, 2048 / d, 2048 / d, s, FLASHC_DTYPE_BF16, 0, s * skx);
            }
    }
    if (!only) shape(L, nl, flush, 128, 8192, 0, 64, 32, 8, 1); /* decode guard */
    return 0;
}
