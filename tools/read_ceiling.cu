/* Dev tool (issue #5; not part of the library, CI or the build): what one launch can read.
   The decode row b 8, h 64/8, s_k 4k, d 128 reads 134 MB of K+V; a device copy of the same
   traffic (67 MB, read + write) was our yardstick. This measures read-only streams of exactly the
   decode layout, timed as flashc_bench / ab80 time a call (256 MB memset to flush L2, then event,
   launch, event; median of REPS):
     empty       an empty kernel: the launch's share of every event time
     memcpy      cudaMemcpyAsync d2d of K into a scratch buffer (the old yardstick)
     ldg         grid-stride 16-byte loads over K then V, 8 in flight per thread, 2 x SMs x 4 CTAs
     sk_ring     the split-key tile's copy pattern without its math: CTA (hk, b * splits + split)
                 streams its key range of K and V for one KV head through a STAGES-stage cp.async
                 ring of BLOCK_N-key blocks (defaults 3, 64; THREADS 128, 104 KB smem, 2 CTAs per
                 SM), splits 1 / 2 / 4 / 8 / 16. Session 34 (docs/sm80.md): one CTA's stream grows
                 with THREADS (the warps issuing copies), not with STAGES. -DVT=1 reads V as the
                 8-bit paths store it (V^T [b, h_kv, d, s_k]); -DINTERLEAVE=1 gives split s the
                 blocks s, s + splits, ... instead of a contiguous range
   Usage: read_ceiling [memset|read] [hint]: "read" flushes L2 by reading the buffer instead (L2 left
   full of clean lines), hint picks the sk_ring copies' L2 policy / prefetch size (cp16 below);
   read_ceiling sweep: the best sk_ring split of every hint under both flushes, one line each.
   Session 17 (docs/sm80.md): the memset leaves ~50 MB of dirty lines whose write-back lands in the
   timed launch: 134 MB read 3.2 TB/s after a memset, 4.1-4.2 after a read flush.
   Build: nvcc -O2 -gencode=arch=compute_90a,code=sm_90a -o read_ceiling tools/read_ceiling.cu */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cuda_runtime.h>

#define REPS 21
#define FLUSH_BYTES (256u << 20)
#include "tool_check.h" /* CHECK */

/* decode layout: K and V [b, s_k, h_kv, d], ELEM_BYTES each (default bf16; -D overrides, e.g. the fp8
   d128 rows: -DELEM_BYTES=1 -DBLOCK_N=128 -DB=64, 128-byte rows in 128-key blocks) */
#ifndef B
#define B 8
#endif
#ifndef SK
#define SK 4096
#endif
#ifndef HKV
#define HKV 8
#endif
#ifndef D
#define D 128
#endif
#ifndef ELEM_BYTES
#define ELEM_BYTES 2
#endif
#define ROW_BYTES (D * ELEM_BYTES)
#ifndef BLOCK_N
#define BLOCK_N 64
#endif
#ifndef INTERLEAVE
#define INTERLEAVE 0 /* 1: key splits interleaved block by block instead of contiguous ranges */
#endif
#ifndef VT
#define VT 0 /* 1: V stored as V^T [b, h_kv, d, s_k], as the 8-bit paths read it */
#endif
#ifndef STAGES
#define STAGES 3 /* -DSTAGES=6: a ring deep enough for one CTA per SM to stream alone */
#endif
#ifndef THREADS
#define THREADS 128
#endif
#define BLOCK_BYTES (BLOCK_N * ROW_BYTES)               /* one of K or V */
#define SMEM_BYTES (8192 + STAGES * 2 * BLOCK_BYTES)    /* Q tile + ring, as the bf16 d128 m32 tile */
#define SMEM_OPTIN_KB 227                               /* sm_90's per-block opt-in */
#define MIN_CTAS (2 * SMEM_BYTES > SMEM_OPTIN_KB * 1024 ? 1 : 2) /* two per SM while two fit */

__global__ void empty_kernel(void) {}

__global__ void ldg_kernel(const uint4 *__restrict__ a, const uint4 *__restrict__ b, size_t n16, uint32_t *sink)
{
    uint32_t acc = 0;
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < 2 * n16; i += 8 * stride) {
        uint4 v[8];
#pragma unroll
        for (int u = 0; u < 8; ++u) {
            size_t j = i + u * stride;
            v[u] = j < n16 ? a[j] : j < 2 * n16 ? b[j - n16] : make_uint4(0, 0, 0, 0);
        }
#pragma unroll
        for (int u = 0; u < 8; ++u) acc ^= v[u].x ^ v[u].w;
    }
    if (acc == 0x12345678u) *sink = acc;
}

/* hint: 0 plain; 1 L2 evict_first; 2 evict_first + 256-byte L2 prefetch; 3 256-byte prefetch only;
   4 evict_first for half the lines (fraction 0.5, the rest evict_unchanged); 5 evict_unchanged;
   6 evict_normal; 7 evict_last; 8 evict_first on V only; 9 evict_first + .L2::128B prefetch;
   10 evict_unchanged + .L2::128B; 11 evict_last + .L2::128B; 12 .L2::128B prefetch only */
#define HINTS 13
static __device__ __forceinline__ uint64_t make_policy(int hint)
{
    uint64_t pol = 0;
    if (hint == 4) asm volatile("createpolicy.fractional.L2::evict_first.L2::evict_unchanged.b64 %0, 0.5;\n" : "=l"(pol));
    else if (hint == 5 || hint == 10) asm volatile("createpolicy.fractional.L2::evict_unchanged.b64 %0, 1.0;\n" : "=l"(pol));
    else if (hint == 6) asm volatile("createpolicy.fractional.L2::evict_normal.b64 %0, 1.0;\n" : "=l"(pol));
    else if (hint == 7 || hint == 11) asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;\n" : "=l"(pol));
    else asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;\n" : "=l"(pol));
    return pol;
}

static __device__ __forceinline__ void cp16(uint32_t dst, const void *src, int hint, uint64_t pol)
{
    if (hint == 2)
        asm volatile("cp.async.cg.shared.global.L2::cache_hint.L2::256B [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "l"(pol));
    else if (hint == 9 || hint == 10 || hint == 11)
        asm volatile("cp.async.cg.shared.global.L2::cache_hint.L2::128B [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "l"(pol));
    else if (hint == 3)
        asm volatile("cp.async.cg.shared.global.L2::256B [%0], [%1], 16;\n" ::"r"(dst), "l"(src));
    else if (hint == 12)
        asm volatile("cp.async.cg.shared.global.L2::128B [%0], [%1], 16;\n" ::"r"(dst), "l"(src));
    else if (hint == 0 || hint == 8)
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst), "l"(src));
    else
        asm volatile("cp.async.cg.shared.global.L2::cache_hint [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "l"(pol));
}

/* Reads the flush buffer instead of writing it: L2 ends full of clean lines (no write-back owed). */
__global__ void read_flush_kernel(const uint4 *__restrict__ a, size_t n16, uint32_t *sink)
{
    uint32_t acc = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n16; i += (size_t)gridDim.x * blockDim.x)
        acc ^= a[i].x;
    if (acc == 0x12345678u) *sink = acc;
}

__global__ void __launch_bounds__(THREADS, MIN_CTAS) sk_ring_kernel(const char *__restrict__ k, const char *__restrict__ v,
                                                             int splits, uint32_t *sink, int hint)
{
    const uint64_t pol = make_policy(hint);
    const int vhint = hint == 8 ? 1 : hint; /* 8: V only */
    extern __shared__ __align__(128) char smem[];
    const int hk = blockIdx.y, bi = blockIdx.z / splits, split = blockIdx.z % splits;
    const int blocks = SK / BLOCK_N, per = blocks / splits;
#if INTERLEAVE /* split s takes blocks s, s + splits, ...: an item's CTAs read neighbouring blocks at once */
#define BLK(i) (split + (i) * splits)
#else
#define BLK(i) (split * per + (i))
#endif
    const size_t row_stride = (size_t)HKV * ROW_BYTES;
    const char *kb = k + ((size_t)bi * SK * HKV + hk) * ROW_BYTES;
#if VT /* V^T [b, h_kv, d, s_k]: a block is D rows of BLOCK_N keys, SK keys apart */
    const char *vb = v + ((size_t)bi * HKV + hk) * D * SK * ELEM_BYTES;
#define VT_ROW_CHUNKS (BLOCK_N * ELEM_BYTES / 16)
#define VOFF(n, c, off) ((size_t)((c) / VT_ROW_CHUNKS) * SK * ELEM_BYTES + (size_t)(n) * BLOCK_N * ELEM_BYTES + \
                         ((c) % VT_ROW_CHUNKS) * 16)
#else
    const char *vb = v + ((size_t)bi * SK * HKV + hk) * ROW_BYTES;
#define VOFF(n, c, off) (off)
#endif
    const uint32_t ring = (uint32_t)__cvta_generic_to_shared(smem + 8192);
    const int tid = threadIdx.x;
    uint32_t acc = 0;
    /* 2048 chunks of 16 bytes per block (K + V), 16 per thread */
#define LOAD(n, st)                                                                                       \
    for (int it = 0; it < BLOCK_BYTES / 16 / THREADS; ++it) {                                             \
        int c = tid + it * THREADS, row = c / (ROW_BYTES / 16), ch = c % (ROW_BYTES / 16);                \
        size_t off = (size_t)((n) * BLOCK_N + row) * row_stride + ch * 16;                                 \
        cp16(ring + (st) * 2 * BLOCK_BYTES + c * 16, kb + off, hint, pol);                                           \
        cp16(ring + (st) * 2 * BLOCK_BYTES + BLOCK_BYTES + c * 16, vb + VOFF(n, c, off), vhint, pol);                 \
    }
    for (int s = 0; s < STAGES - 1; ++s) {
        if (s < per) { LOAD(BLK(s), s) }
        asm volatile("cp.async.commit_group;\n");
    }
    for (int it = 0; it < per; ++it) {
        asm volatile("cp.async.wait_group %0;\n" ::"n"(STAGES - 2));
        __syncthreads();
        int nxt = it + STAGES - 1;
        if (nxt < per) { LOAD(BLK(nxt), nxt % STAGES) }
        asm volatile("cp.async.commit_group;\n");
        acc ^= *(const uint32_t *)(smem + 8192 + (it % STAGES) * 2 * BLOCK_BYTES + tid * 16);
    }
    asm volatile("cp.async.wait_group 0;\n");
    if (acc == 0x12345678u) *sink = acc;
#undef LOAD
#undef BLK
#undef VOFF
}

static int g_read_flush; /* 1: flush L2 by reading (clean lines) instead of the memset */
static int g_hint;

static float timed(void *flush, cudaStream_t s, int which, const void *k, const void *v, void *scratch, int splits,
                   uint32_t *sink, int nsm)
{
    cudaEvent_t e0, e1;
    CHECK(cudaEventCreate(&e0)); CHECK(cudaEventCreate(&e1));
    float t[REPS];
    const size_t bytes = (size_t)B * SK * HKV * ROW_BYTES;
    for (int r = -2; r < REPS; ++r) {
        if (g_read_flush) {
            read_flush_kernel<<<nsm * 4, 512, 0, s>>>((const uint4 *)flush, FLUSH_BYTES / 16, sink);
            CHECK(cudaGetLastError());
        } else {
            CHECK(cudaMemsetAsync(flush, r & 0xff, FLUSH_BYTES, s));
        }
        CHECK(cudaEventRecord(e0, s));
        switch (which) {
        case 0: empty_kernel<<<1, 32, 0, s>>>(); break;
        case 1: CHECK(cudaMemcpyAsync(scratch, k, bytes, cudaMemcpyDeviceToDevice, s)); break;
        case 2: ldg_kernel<<<nsm * 4, 512, 0, s>>>((const uint4 *)k, (const uint4 *)v, bytes / 16, sink); break;
        default: sk_ring_kernel<<<dim3(1, HKV, B * splits), THREADS, SMEM_BYTES, s>>>((const char *)k, (const char *)v,
                                                                                      splits, sink, g_hint);
        }
        CHECK(cudaGetLastError());
        CHECK(cudaEventRecord(e1, s));
        CHECK(cudaEventSynchronize(e1));
        float ms;
        CHECK(cudaEventElapsedTime(&ms, e0, e1));
        if (r >= 0) t[r] = ms;
    }
    for (int i = 1; i < REPS; ++i)
        for (int j = i; j > 0 && t[j] < t[j - 1]; --j) { float x = t[j]; t[j] = t[j - 1]; t[j - 1] = x; }
    CHECK(cudaEventDestroy(e0)); CHECK(cudaEventDestroy(e1));
    return t[REPS / 2];
}

int main(int argc, char **argv)
{
    /* argv[1]: "read" flushes by reading, "sweep" prints the best sk_ring split of every hint under
       both flushes, one line per flush; argv[2]: cp.async hint (see cp16) */
    const int sweep = argc > 1 && !strcmp(argv[1], "sweep");
    g_read_flush = argc > 1 && argv[1][0] == 'r';
    g_hint = argc > 2 ? atoi(argv[2]) : 0;
    setvbuf(stdout, NULL, _IONBF, 0);
    int nsm = 0;
    CHECK(cudaDeviceGetAttribute(&nsm, cudaDevAttrMultiProcessorCount, 0));
    const size_t bytes = (size_t)B * SK * HKV * ROW_BYTES;
    void *flush, *k, *v, *scratch;
    uint32_t *sink;
    CHECK(cudaMalloc(&flush, FLUSH_BYTES)); CHECK(cudaMalloc(&k, bytes)); CHECK(cudaMalloc(&v, bytes));
    CHECK(cudaMalloc(&scratch, bytes)); CHECK(cudaMalloc(&sink, 4));
    CHECK(cudaMemset(k, 1, bytes)); CHECK(cudaMemset(v, 2, bytes));
    CHECK(cudaFuncSetAttribute(sk_ring_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM_BYTES));
    cudaStream_t s;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    const double traffic = 2.0 * bytes; /* K + V read (memcpy: K read + written) */
    printf("decode layout b %d, s_k %d, h_kv %d, d %d x %d B, V^T %d, interleaved splits %d, %d-key blocks, %d-stage ring of %d threads (%d KB): K+V "
           "%.1f MB; %d SMs; median of %d, L2 flushed by %s, cp.async hint %s\n",
           B, SK, HKV, D, ELEM_BYTES, VT, INTERLEAVE, BLOCK_N, STAGES, THREADS, SMEM_BYTES / 1024, traffic / 1e6, nsm, REPS,
           sweep ? "memset / reading" : g_read_flush ? "reading" : "memset", sweep ? "swept" : argc > 2 ? argv[2] : "0");
    if (sweep) {
        for (g_read_flush = 0; g_read_flush < 2; ++g_read_flush) {
            printf("  %s flush, GB/s by hint (best of splits 1/2/4):", g_read_flush ? "read  " : "memset");
            for (g_hint = 0; g_hint < HINTS; ++g_hint) {
                float best = 1e30f;
                for (int splits = 1; splits <= 4; splits *= 2) {
                    const float tt = timed(flush, s, 3, k, v, scratch, splits, sink, nsm);
                    best = tt < best ? tt : best;
                }
                printf(" %d:%4.0f", g_hint, traffic / (best * 1e-3) / 1e9);
            }
            printf("\n");
        }
        return 0;
    }
    float t = timed(flush, s, 0, k, v, scratch, 0, sink, nsm);
    printf("  %-22s %8.2f us\n", "empty kernel", t * 1e3);
    t = timed(flush, s, 1, k, v, scratch, 0, sink, nsm);
    printf("  %-22s %8.2f us  %6.0f GB/s (read + write)\n", "memcpy of K", t * 1e3, traffic / (t * 1e-3) / 1e9);
    t = timed(flush, s, 2, k, v, scratch, 0, sink, nsm);
    printf("  %-22s %8.2f us  %6.0f GB/s\n", "ldg grid-stride", t * 1e3, traffic / (t * 1e-3) / 1e9);
    for (int splits = 1; splits <= 16; splits *= 2) {
        t = timed(flush, s, 3, k, v, scratch, splits, sink, nsm);
        printf("  sk_ring splits %-7d %8.2f us  %6.0f GB/s (%d CTAs of %d blocks)\n", splits, t * 1e3,
               traffic / (t * 1e-3) / 1e9, HKV * B * splits, SK / BLOCK_N / splits);
    }
    return 0;
}
