/*
 * Keys past a sequence in an 8-bit V^T ring stage (or in V rows: sm90_zero_v_rows), set to 0
 * before the P.V wgmma reads it: the mask hides those keys from S, but their bytes (the rest of a
 * page or of a cache: anything, NaN included) would still meet P = 0 there, and 0 x NaN is NaN.
 * Shared by the Hopper forward's V pass (fwd_kernel.cuh) and the decode tile (sm90_decode.cu).
 *
 * Layout: panels of [rows x 128 keys], 128B-swizzled: key k of row r in 16-byte chunk
 * (k / 16) ^ (r % 8), byte k % 16. Whole chunks past the last key are stored as zeros, and the
 * bytes after it in its own chunk one by one. A thread takes whole rows (no division).
 * Generic-proxy stores: the caller fences them to the async proxy before wgmma reads the stage.
 */
#ifndef FLASHC_SM90_VT_ZERO_CUH
#define FLASHC_SM90_VT_ZERO_CUH

#include <stdint.h>
#include <cuda_runtime.h>

#define SM90_VT_PANEL_KEYS 128 /* a V^T panel row: 128 one-byte keys */
#define SM90_VT_CHUNK_BYTES 16
#define SM90_VT_CHUNKS_PER_ROW (SM90_VT_PANEL_KEYS / SM90_VT_CHUNK_BYTES)

/* Keys [keys, block_keys) of the stage at shared address vt ([block_keys / 128] panels of `rows`
   rows), rows tid, tid + threads, ... */
static __device__ __forceinline__ void sm90_zero_vt_keys(uint32_t vt, int32_t keys, int32_t block_keys, int32_t rows,
                                                         int tid, int threads)
{
    for (int32_t row = tid; row < rows; row += threads)
        for (int32_t key = keys; key < block_keys;) {
            const int32_t panel = key / SM90_VT_PANEL_KEYS, k = key % SM90_VT_PANEL_KEYS;
            const uint32_t chunk = vt + panel * (rows * SM90_VT_PANEL_KEYS) + row * SM90_VT_PANEL_KEYS +
                                   ((k / SM90_VT_CHUNK_BYTES) ^ (row % SM90_VT_CHUNKS_PER_ROW)) * SM90_VT_CHUNK_BYTES;
            uint4 *dst = (uint4 *)__cvta_shared_to_generic(chunk);
            if (k % SM90_VT_CHUNK_BYTES == 0) {
                *dst = make_uint4(0u, 0u, 0u, 0u);
                key += SM90_VT_CHUNK_BYTES;
            } else {
                *((volatile uint8_t *)dst + k % SM90_VT_CHUNK_BYTES) = 0;
                ++key;
            }
        }
}

/* Keys [keys, block_keys) of a stage in K's layout (V rows, as TMA writes K): whole rows of each of
   `panels` panels of row_bytes-byte rows, panel_bytes apart (the swizzle only permutes 16-byte
   chunks inside a row), i.e. one contiguous run of bytes per panel; chunks tid, tid + threads, ...
   Shared by the Hopper forward's V pass and the decode tile's transposers (V-rows kernel). */
static __device__ __forceinline__ void sm90_zero_v_rows(uint32_t v, int32_t keys, int32_t block_keys, int32_t row_bytes,
                                                        int32_t panels, int32_t panel_bytes, int tid, int threads)
{
    const int32_t chunks = (block_keys - keys) * row_bytes / SM90_VT_CHUNK_BYTES;
#pragma unroll
    for (int pc = 0; pc < panels; ++pc)
        for (int32_t i = tid; i < chunks; i += threads)
            *(uint4 *)__cvta_shared_to_generic(v + pc * panel_bytes + keys * row_bytes + i * SM90_VT_CHUNK_BYTES) =
                make_uint4(0u, 0u, 0u, 0u);
}

#endif /* FLASHC_SM90_VT_ZERO_CUH */
