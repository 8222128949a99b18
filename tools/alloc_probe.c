/* Dev tool (not part of the library, CI or the build): does a decode call's speed depend on where
   its K/V buffers landed? flashc_bench read fp8 decode b 64 at 4k / 8k 10 % slower after the bf16
   decode cases in the same process, at equal clocks (docs/bench.md). This times one fp8 decode
   shape (b 64, h 32/8, s_q 1, d 128, V sequence-innermost) in one process:
     fresh       Q, K, V, O are the process's first allocations;
     after big   the same, after 2 x 34 GB were allocated, touched and freed (the bf16 b 128, 32k
                 case's K and V);
     carved +G   K and V cut from one allocation, V starting G bytes after K's end;
   printing K's and V's addresses beside each median (15 calls, L2 flushed by a 256 MiB memset)
   and, for the same buffers, a cudaMemcpyAsync of K into V (GB/s of read + write).
   alloc_probe LIB [s_k ...]   (default s_k 4096 8192; PROBE_BF16=1: bf16, V in K's layout)
   Build: gcc -O2 -std=c11 -D_GNU_SOURCE -Iinclude -I$CUDA/include tools/alloc_probe.c -o alloc_probe
          -L$CUDA/lib64 -lcudart_static -ldl -lpthread -lrt */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime.h>
#include "flashc.h"

#define REPEATS 15
#define FLUSH_BYTES (256u << 20)
#define BIG_BYTES (34ull << 30)
#define B 64
#define HQ 32
#define HKV 8
#define D 128

static flashc_status (*fwd)(const flashc_attention_params *, void *, size_t, cudaStream_t);
static flashc_status (*wsz)(const flashc_attention_params *, size_t *);
static void (*init)(flashc_attention_params *);
static flashc_tensor (*make)(void *, flashc_dtype, int32_t, const int64_t *);
static const char *(*err)(void);
static int es = 1;             /* element size: 1 (fp8) or 2 (bf16, PROBE_BF16 set) */

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    printf("%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); exit(1); } } while (0)

static void *must(void *h, const char *s)
{
    void *f = dlsym(h, s);
    if (!f) { printf("no %s\n", s); exit(1); }
    return f;
}

static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

/* Median ms of one decode call on the given buffers; prints GB/s of K+V read. */
static void time_case(const char *label, int sk, void *q, void *k, void *v, void *o, void *flush)
{
    flashc_attention_params p;
    init(&p);
    int64_t qs[4] = {B, 1, HQ, D}, ks[4] = {B, sk, HKV, D}, vs[4] = {B, HKV, D, sk};
    const flashc_dtype dt = es == 2 ? FLASHC_DTYPE_BF16 : FLASHC_DTYPE_FP8_E4M3;
    p.q = make(q, dt, 4, qs);
    p.k = make(k, dt, 4, ks);
    p.v = make(v, dt, 4, es == 2 ? ks : vs);
    p.out = make(o, FLASHC_DTYPE_BF16, 4, qs);
    p.v_transposed = es == 1;
    size_t wsb = 0;
    void *ws = NULL;
    if (wsz(&p, &wsb)) { printf("workspace: %s\n", err()); exit(1); }
    if (wsb) CK(cudaMalloc(&ws, wsb));
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    float ms[REPEATS];
    for (int i = -3; i < REPEATS; ++i) {
        CK(cudaMemsetAsync(flush, i & 0xff, FLUSH_BYTES, 0));
        CK(cudaEventRecord(e0, 0));
        if (fwd(&p, ws, wsb, 0)) { printf("forward: %s\n", err()); exit(1); }
        CK(cudaEventRecord(e1, 0));
        CK(cudaEventSynchronize(e1));
        CK(cudaGetLastError());
        if (i >= 0) CK(cudaEventElapsedTime(&ms[i], e0, e1));
    }
    qsort(ms, REPEATS, sizeof(float), cmp_float);
    float cp[REPEATS];
    const size_t k_bytes = (size_t)B * sk * HKV * D * es;
    for (int i = -3; i < REPEATS; ++i) {
        CK(cudaMemsetAsync(flush, i & 0xff, FLUSH_BYTES, 0));
        CK(cudaEventRecord(e0, 0));
        CK(cudaMemcpyAsync(v, k, k_bytes, cudaMemcpyDeviceToDevice, 0));
        CK(cudaEventRecord(e1, 0));
        CK(cudaEventSynchronize(e1));
        if (i >= 0) CK(cudaEventElapsedTime(&cp[i], e0, e1));
    }
    qsort(cp, REPEATS, sizeof(float), cmp_float);
    const double kv_bytes = 2.0 * B * sk * HKV * D * es;
    printf("%-14s s_k %5d  k %#14llx  v %#14llx  v-k %+14lld  %.4f ms  %5.0f GB/s  copy %5.0f GB/s\n", label, sk,
           (unsigned long long)(size_t)k, (unsigned long long)(size_t)v,
           (long long)((char *)v - (char *)k), ms[REPEATS / 2], kv_bytes / (ms[REPEATS / 2] * 1e6),
           2.0 * k_bytes / (cp[REPEATS / 2] * 1e6));
    if (ws) CK(cudaFree(ws));
    CK(cudaEventDestroy(e0));
    CK(cudaEventDestroy(e1));
}

/* Separate allocations, in flashc_bench's order (q, k, v, out). */
static void run_separate(const char *label, int sk, void *flush)
{
    const size_t kv = (size_t)B * sk * HKV * D * es, qo = (size_t)B * HQ * D * es;
    void *q, *k, *v, *o;
    CK(cudaMalloc(&q, qo));
    CK(cudaMalloc(&k, kv));
    CK(cudaMalloc(&v, kv));
    CK(cudaMalloc(&o, (size_t)B * HQ * D * 2));
    CK(cudaMemset(q, 0x30, qo));
    CK(cudaMemset(k, 0x30, kv));
    CK(cudaMemset(v, 0x30, kv));
    time_case(label, sk, q, k, v, o, flush);
    CK(cudaFree(q)); CK(cudaFree(k)); CK(cudaFree(v)); CK(cudaFree(o));
}

/* K and V from one allocation, V starting gap bytes after K's end. */
static void run_carved(int sk, size_t gap, void *flush)
{
    const size_t kv = (size_t)B * sk * HKV * D * es, qo = (size_t)B * HQ * D * es;
    void *q, *base, *o;
    CK(cudaMalloc(&q, qo));
    CK(cudaMalloc(&base, 2 * kv + gap));
    CK(cudaMalloc(&o, (size_t)B * HQ * D * 2));
    CK(cudaMemset(q, 0x30, qo));
    CK(cudaMemset(base, 0x30, 2 * kv + gap));
    char label[32];
    snprintf(label, sizeof label, "carved +%zuK", gap >> 10);
    time_case(label, sk, q, base, (char *)base + kv + gap, o, flush);
    CK(cudaFree(q)); CK(cudaFree(base)); CK(cudaFree(o));
}

int main(int argc, char **argv)
{
    if (argc < 2) { printf("usage: alloc_probe LIB [s_k ...]\n"); return 2; }
    void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!h) { printf("%s\n", dlerror()); return 1; }
    init = must(h, "flashc_attention_params_init");
    make = must(h, "flashc_make_tensor");
    wsz = must(h, "flashc_attention_workspace_size");
    fwd = must(h, "flashc_attention_forward");
    err = must(h, "flashc_last_error");
    if (getenv("PROBE_BF16")) es = 2;
    int sks[8] = {4096, 8192}, n = 2;
    if (argc > 2) for (n = 0; n < argc - 2 && n < 8; ++n) sks[n] = atoi(argv[n + 2]);

    void *flush;
    CK(cudaMalloc(&flush, FLUSH_BYTES));
    for (int i = 0; i < n; ++i) run_separate("fresh", sks[i], flush);
    for (int i = 0; i < n; ++i) run_separate("fresh again", sks[i], flush);
    void *big0, *big1;
    CK(cudaMalloc(&big0, BIG_BYTES));
    CK(cudaMalloc(&big1, BIG_BYTES));
    CK(cudaMemset(big0, 0, BIG_BYTES));
    CK(cudaMemset(big1, 0, BIG_BYTES));
    CK(cudaFree(big0));
    CK(cudaFree(big1));
    for (int i = 0; i < n; ++i) run_separate("after big", sks[i], flush);
    static const size_t gaps[] = {0, 64u << 10, 1u << 20, 2u << 20, 3u << 20};
    for (int i = 0; i < n; ++i)
        for (size_t g = 0; g < sizeof gaps / sizeof gaps[0]; ++g) run_carved(sks[i], gaps[g], flush);
    for (int i = 0; i < n; ++i) run_separate("separate last", sks[i], flush);
    CK(cudaFree(flush));
    printf("cuda: %s\n", cudaGetErrorString(cudaGetLastError()));
    return 0;
}
