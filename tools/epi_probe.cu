/* Dev tool (issue #5; not part of the library, CI or the build): what a one-CTA-per-SM tile pays
   for its output, by store path, with the d256 8-warp tile's geometry and none of its math.
   1024 CTAs of 256 threads (7.76 waves of 132, one per SM: 200 KB of smem each) each spin for
   SPIN dependent FMAs per thread (about the tile's key loop at s_k 512), then write a 128 x 256
   bf16 output tile into O laid out as the benchmark's [b 32, s 512, h 8, d 256] (512-byte rows,
   4 KB apart), by one of:
     0 none       no output (thread 0 writes one word)
     1 sts+stg    the tile's epilogue: 16-byte STS of the tile, barrier, 16 x (LDS.128 + STG.128)
     2 stg        16 x STG.128 straight from registers (no staging; not the tile's layout)
     3 bulk.read  STS, fence.proxy.async, barrier, one cp.async.bulk (512 B) per row from 128
                  threads, wait_group.read 0: the CTA may exit once its smem was read
     4 bulk.done  as 3, but wait_group 0: exit after the writes completed
   and optionally (argument "load") first copies 128 KB per CTA (Q + K0 + V0) with cp.async.cg and
   waits for it before the spin. Each launch follows a 256 MB memset (L2 flush), as the benchmark;
   median of REPS event times.
   Build: nvcc -O3 -gencode=arch=compute_90a,code=sm_90a -I kernels -o epi_probe tools/epi_probe.cu
   Usage: epi_probe [spin] [load] */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime.h>
#include "tool_check.h"   /* CHECK */
#include "ptx/cp_async.h" /* the library's PTX wrappers (-I kernels) */
#include "ptx/fence.h"
#include "ptx/ldmatrix.h" /* cvta_to_shared_u32 */

#define REPS 15
#define CTAS 1024
#define THREADS 256
#define SMEM_BYTES (200 * 1024)
#define ROWS 128
#define ROW_BYTES 512
#define ROW_PITCH 4096                     /* h 8 x d 256 x 2 bytes */
#define TILE_BYTES (ROWS * ROW_BYTES)       /* 64 KB */
#define LOAD_BYTES (128 * 1024)
#define FLUSH_BYTES (256u << 20)

/* CTA -> first byte of its output tile: [b][s][h][d], CTA = (b, h, m-block of 128 rows) */
static __device__ __forceinline__ uint8_t *tile_base(uint8_t *o, int cta)
{
    const int m = cta & 3, h = (cta >> 2) & 7, b = cta >> 5;
    return o + ((int64_t)(b * 512 + m * ROWS) * 8 + h) * ROW_BYTES;
}

__global__ void __launch_bounds__(THREADS, 1) probe(uint8_t *o, const uint8_t *in, int spin, int mode, int load)
{
    extern __shared__ __align__(128) uint8_t smem[];
    const int tid = threadIdx.x;
    const uint32_t s_base = cvta_to_shared_u32(smem);
    if (load) {
        const uint8_t *src = in + (int64_t)blockIdx.x * LOAD_BYTES;
        for (int i = tid * 16; i < LOAD_BYTES; i += THREADS * 16)
            cp_async_cg_shared_global_16(s_base + i, src + i, 16);
        cp_async_commit_group();
        CP_ASYNC_WAIT_GROUP(0);
        __syncthreads();
    }
    float x = 1.0f + tid * 1e-7f, y = 0.999f;
    for (int i = 0; i < spin; ++i) x = fmaf(x, y, 1e-7f);
    uint4 v = make_uint4(__float_as_uint(x), tid, blockIdx.x, 0x3f803f80u);
    uint8_t *dst = tile_base(o, blockIdx.x);
    if (mode == 0) {
        if (tid == 0) *(uint4 *)(o + (int64_t)blockIdx.x * 16) = v;
        return;
    }
    if (mode == 2) { /* thread -> row tid / 2, half (tid & 1), 16 chunks of 16 B */
        uint8_t *row = dst + (int64_t)(tid >> 1) * ROW_PITCH + (tid & 1) * 256;
#pragma unroll
        for (int c = 0; c < 16; ++c) *(uint4 *)(row + c * 16) = v;
        return;
    }
    /* stage: thread writes 16 chunks of 16 B (rows tid / 32 + 8 c .. as the tile's STS pattern is
       conflict-free, so is this: consecutive threads, consecutive chunks) */
#pragma unroll
    for (int c = 0; c < 16; ++c) *(uint4 *)(smem + (c * THREADS + tid) * 16) = v;
    if (mode == 1) {
        __syncthreads();
#pragma unroll
        for (int c = 0; c < 16; ++c) {
            const int idx = c * THREADS + tid, row = idx >> 5, ch = idx & 31;
            *(uint4 *)(dst + (int64_t)row * ROW_PITCH + ch * 16) = *(const uint4 *)(smem + idx * 16);
        }
        return;
    }
    fence_proxy_async_shared_cta();
    __syncthreads();
    if (tid < ROWS) {
        asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;\n" ::"l"(dst + (int64_t)tid *
                                                                                             ROW_PITCH),
                     "r"(s_base + tid * ROW_BYTES), "n"(ROW_BYTES)
                     : "memory");
        asm volatile("cp.async.bulk.commit_group;\n" ::: "memory");
        if (mode == 3)
            asm volatile("cp.async.bulk.wait_group.read 0;\n" ::: "memory");
        else
            asm volatile("cp.async.bulk.wait_group 0;\n" ::: "memory");
    }
}

static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    const int spin = argc > 1 ? atoi(argv[1]) : 13000;
    const int load = argc > 2 && strcmp(argv[2], "load") == 0;
    const size_t o_bytes = (size_t)32 * 512 * 8 * ROW_BYTES;
    uint8_t *o, *in, *flush;
    CHECK(cudaMalloc(&o, o_bytes));
    CHECK(cudaMalloc(&in, (size_t)CTAS * LOAD_BYTES));
    CHECK(cudaMalloc(&flush, FLUSH_BYTES));
    CHECK(cudaMemset(in, 1, (size_t)CTAS * LOAD_BYTES));
    CHECK(cudaFuncSetAttribute(probe, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM_BYTES));
    cudaEvent_t e0, e1;
    CHECK(cudaEventCreate(&e0));
    CHECK(cudaEventCreate(&e1));
    static const char *names[] = {"none", "sts+stg", "stg", "bulk.read", "bulk.done"};
    float base = 0.f;
    printf("epi_probe: %d CTAs x %d threads, spin %d, %s\n", CTAS, THREADS, spin, load ? "128 KB load first" : "no load");
    for (int round = 0; round < 2; ++round) {
        for (int mode = 0; mode < 5; ++mode) {
            float t[REPS];
            for (int r = 0; r < REPS; ++r) {
                CHECK(cudaMemsetAsync(flush, r, FLUSH_BYTES));
                CHECK(cudaEventRecord(e0));
                probe<<<CTAS, THREADS, SMEM_BYTES>>>(o, in, spin, mode, load);
                CHECK(cudaGetLastError());
                CHECK(cudaEventRecord(e1));
                CHECK(cudaEventSynchronize(e1));
                CHECK(cudaEventElapsedTime(&t[r], e0, e1));
            }
            qsort(t, REPS, sizeof t[0], cmp_float);
            const float us = t[REPS / 2] * 1e3f;
            if (mode == 0) base = us;
            printf("  round %d  %-10s %8.2f us  (+%6.2f us, %5.2f us per CTA slot of %.2f waves)\n", round, names[mode],
                   us, us - base, (us - base) / (CTAS / 132.0f), CTAS / 132.0f);
        }
    }
    CHECK(cudaDeviceSynchronize());
    return 0;
}
