/* Dev tool (not part of the library, CI or the build): host time of one flashc call.
   host_cost LIB: dlopens libflashc.so and reports, for a decode call (b 64, h 32/8, s_k 8k, s_q 1,
   d128 bf16, paged and contiguous) and a prefill call, the wall time the host spends per call in
   flashc_attention_check (validation + backend choice), in flashc_attention_forward (that plus the
   launch; the GPU work is asynchronous and not waited for inside the timed loop), and in one
   cudaPointerGetAttributes (the per-pointer location query validation makes).
   Build: gcc -O2 -std=c11 -D_GNU_SOURCE -Iinclude -I$CUDA/include tools/host_cost.c -o host_cost
          -L$CUDA/lib64 -lcudart_static -ldl -lpthread -lrt */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cuda_runtime.h>
#include "flashc.h"

#define CALLS 2000

static double now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec * 1e-3;
}

static void *must(void *h, const char *s)
{
    void *f = dlsym(h, s);
    if (!f) { fprintf(stderr, "no %s\n", s); exit(1); }
    return f;
}

int main(int argc, char **argv)
{
    if (argc < 2) { fprintf(stderr, "usage: host_cost LIB\n"); return 2; }
    void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!h) { fprintf(stderr, "%s\n", dlerror()); return 1; }
    void (*init)(flashc_attention_params *) = must(h, "flashc_attention_params_init");
    flashc_tensor (*make)(void *, flashc_dtype, int32_t, const int64_t *) = must(h, "flashc_make_tensor");
    flashc_status (*check)(const flashc_attention_params *) = must(h, "flashc_attention_check");
    flashc_status (*wsz)(const flashc_attention_params *, size_t *) = must(h, "flashc_attention_workspace_size");
    flashc_status (*fwd)(const flashc_attention_params *, void *, size_t, cudaStream_t) =
        must(h, "flashc_attention_forward");
    const char *(*err)(void) = must(h, "flashc_last_error");

    const int b = 64, hq = 32, hkv = 8, sk = 8192, d = 128, page = 64;
    const int pages_per_seq = sk / page;
    void *q, *k, *v, *o, *ws = NULL;
    int32_t *table, *used;
    cudaMalloc(&q, (size_t)b * hq * d * 2);
    cudaMalloc(&k, (size_t)b * sk * hkv * d * 2);
    cudaMalloc(&v, (size_t)b * sk * hkv * d * 2);
    cudaMalloc(&o, (size_t)b * hq * d * 2);
    cudaMalloc((void **)&table, sizeof(int32_t) * b * pages_per_seq);
    cudaMalloc((void **)&used, sizeof(int32_t) * b);
    int32_t *ht = malloc(sizeof(int32_t) * b * pages_per_seq), hu[64];
    for (int i = 0; i < b * pages_per_seq; ++i) ht[i] = i;
    for (int i = 0; i < b; ++i) hu[i] = sk;
    cudaMemcpy(table, ht, sizeof(int32_t) * b * pages_per_seq, cudaMemcpyHostToDevice);
    cudaMemcpy(used, hu, sizeof(int32_t) * b, cudaMemcpyHostToDevice);
    free(ht);
    cudaMemset(q, 0, (size_t)b * hq * d * 2);
    cudaMemset(k, 0, (size_t)b * sk * hkv * d * 2);
    cudaMemset(v, 0, (size_t)b * sk * hkv * d * 2);

    for (int paged = 0; paged < 2; ++paged) {
        flashc_attention_params p;
        init(&p);
        int64_t qs[4] = {b, 1, hq, d}, ks[4] = {b, sk, hkv, d}, pgs[4] = {b * pages_per_seq, page, hkv, d};
        p.q = make(q, FLASHC_DTYPE_BF16, 4, qs);
        p.out = make(o, FLASHC_DTYPE_BF16, 4, qs);
        p.k = make(k, FLASHC_DTYPE_BF16, 4, paged ? pgs : ks);
        p.v = make(v, FLASHC_DTYPE_BF16, 4, paged ? pgs : ks);
        if (paged) {
            p.page_table = table; p.page_table_stride = pages_per_seq; p.max_pages_per_seq = pages_per_seq;
            p.seqused_k = used; p.max_seqlen_k = sk;
        }
        size_t wsb = 0;
        if (wsz(&p, &wsb)) { printf("workspace: %s\n", err()); return 1; }
        if (wsb) { if (ws) cudaFree(ws); cudaMalloc(&ws, wsb); }
        if (fwd(&p, ws, wsb, 0)) { printf("forward: %s\n", err()); return 1; }
        cudaDeviceSynchronize();
        double t0 = now_us();
        for (int i = 0; i < CALLS; ++i) check(&p);
        double t_check = (now_us() - t0) / CALLS;
        /* Forward: enqueue in bursts of 20 so the launch queue never fills and blocks the host. */
        double t_fwd = 0;
        for (int r = 0; r < CALLS / 20; ++r) {
            cudaDeviceSynchronize();
            t0 = now_us();
            for (int i = 0; i < 20; ++i) fwd(&p, ws, wsb, 0);
            t_fwd += now_us() - t0;
        }
        cudaDeviceSynchronize();
        printf("decode %-10s check %6.2f us/call, forward (host side) %6.2f us/call\n",
               paged ? "paged" : "contiguous", t_check, t_fwd / CALLS);
    }
    struct cudaPointerAttributes attr;
    double t0 = now_us();
    for (int i = 0; i < CALLS; ++i) cudaPointerGetAttributes(&attr, k);
    printf("cudaPointerGetAttributes %6.2f us/call\n", (now_us() - t0) / CALLS);
    cudaError_t e = cudaGetLastError();
    printf("cuda: %s\n", cudaGetErrorString(e));
    return e != cudaSuccess;
}
