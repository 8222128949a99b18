/*
 * The Hopper fp8 decode tile (sm90_decode.cu), shared with its host side (sm90_api.cu): the
 * parameter block and the budget the host needs to plan, size the workspace and encode the maps.
 *
 * Why: the portable path runs fp8 decode as f16 HMMA (sm_90 has no e4m3 mma.sync), and at 33-64
 * packed rows per KV head its tiles are bound by those MMAs (H100, b 8 h 64/8 s_q 8: 2041 GB/s at
 * 32k against 2858 at s_q 1); QGMMA reads e4m3 at wgmma's rate. Measured as a stand-alone
 * prototype first (tools/sm90_decode_proto.cu, retired with this tile, in commit 1908593;
 * docs/sm90.md "Next steps", session 58: +25 / +17 % at 64 rows, 32k / 16k keys).
 */
#ifndef FLASHC_SM90_DECODE_H
#define FLASHC_SM90_DECODE_H

#include <stdint.h>
#include <cuda.h> /* CUtensorMap (type only: the library never links libcuda) */
#include <cuda_runtime.h>

/* ---- Budget -------------------------------------------------------------------------------
 * One CTA per (key split, KV head, batch) holds the KV head's s_q x group query rows (token-major),
 * at most one wgmma M of 64; keys in 128-key blocks through a 3-stage K / V^T ring.
 * smem: Q 8 KB + 3 x (K 16 KB + V^T 16 KB) = 104 KB + 1 KB alignment + barriers: two CTAs per SM,
 * so one CTA's softmax and epilogue run under the other's stream. */
#define SM90_DEC_D 128
#define SM90_DEC_N 128           /* keys per block: one 128-byte V^T box row, one m64n128 S wgmma */
#define SM90_DEC_M 64            /* packed rows per tile: one wgmma M */
#define SM90_DEC_STAGES 3
#define SM90_DEC_CTAS_PER_SM 2
/* The solo kernel (sm90_dec_kernel_solo): one CTA per SM, so no second CTA fills its consumers'
 * gaps: the next block's Q K^T is issued under this block's P V^T (S and O live together: up to
 * 255 registers, 173 used), and its ring is deeper (Q 8 KB + 6 x 32 KB: 201 KB with alignment).
 * Off by default: on the H100 it read 1.6-2.9 % less than the pair kernel at one CTA per SM
 * (docs/sm90.md v29); FLASHC_SM90_DEC_SOLO=1 runs it (sm90_api.cu). */
#define SM90_DEC_SOLO_STAGES 6
/* The V-rows kernel (sm90_dec_kernel_solo_vr): V in K's layout (what engines' fp8 caches hold)
 * comes by TMA as K does, and three more warps transpose each block into one of
 * SM90_DEC_VT_SLOTS V^T slots (sm90_vt8.h, as the forward's V pass): Q 8 KB + 5 x (K + V rows)
 * 32 KB + 2 x V^T 16 KB = 200 KB with alignment; one CTA per SM, the solo kernel's overlap. */
#define SM90_DEC_VR_STAGES 5
#define SM90_DEC_VT_SLOTS 2
#define SM90_DEC_ROW_BYTES 128   /* an e4m3 row of d 128; a V^T row of 128 keys */
#define SM90_DEC_Q_BYTES (SM90_DEC_M * SM90_DEC_ROW_BYTES)
#define SM90_DEC_K_BYTES (SM90_DEC_N * SM90_DEC_ROW_BYTES)
#define SM90_DEC_VT_BYTES (SM90_DEC_D * SM90_DEC_N)
#define SM90_DEC_STAGE_BYTES (SM90_DEC_K_BYTES + SM90_DEC_VT_BYTES)
#define SM90_DEC_BAR_OFFSET(stages) (SM90_DEC_Q_BYTES + (stages) * SM90_DEC_STAGE_BYTES)
#define SM90_DEC_ALIGN 1024      /* 128B-swizzle atom: TMA and wgmma descriptors agree at offset 0 */
#define SM90_DEC_SMEM_BYTES_FOR(stages) (SM90_DEC_BAR_OFFSET(stages) + 2 * (stages) * 8 + SM90_DEC_ALIGN)
#define SM90_DEC_SMEM_BYTES SM90_DEC_SMEM_BYTES_FOR(SM90_DEC_STAGES)
#define SM90_DEC_SOLO_SMEM_BYTES SM90_DEC_SMEM_BYTES_FOR(SM90_DEC_SOLO_STAGES)
#define SM90_DEC_VR_SMEM_BYTES                                                                              \
    (SM90_DEC_SMEM_BYTES_FOR(SM90_DEC_VR_STAGES) + SM90_DEC_VT_SLOTS * (SM90_DEC_VT_BYTES + 2 * 8))

/* ---- Plan (host) ----------------------------------------------------------------------------
 * Where the tile runs by default: fp8 e4m3, d 128, V^T, a dense cache (with or without seqused_k)
 * or pages of a multiple of 128 keys (not packed K/V), no bias / softcap / ALiBi / sliding window
 * (causal or none), at least SM90_DEC_MIN_ROWS packed rows per KV head and SM90_DEC_MIN_KEYS keys.
 * H100 (session 58, GB/s of K+V against the portable tiles through AUTO, b 8 h 64/8): 64 rows
 * +21 / +15 / +7.5 % at 32k / 16k / 8k, 40 rows +13 % at 32k; 32 rows -2.6 % (32k) and -1.8 %
 * (b 64 h 32/8 4k) with the tile forced; pages of 128 / 256 keys +32 / +30 % at 64 rows, 32k
 * (session 59). H200 (session 59, bench/results/2026-12-06-h200-sm90-decode-evict-rows.txt): 64
 * rows +35 / +51 / +70 % at 8k / 16k / 32k (2066 -> 3513 GB/s at 32k), pages of 256 +82 %; with
 * the tile forced, 17-32 rows +0.4 to +4.5 % from 16k keys, -1.6 / -8.1 % at 8k / 4k, 16 rows
 * +16 % at b 8 32k but -2.6 % at b 64 8k. H100 (session 61, both interleaves in, one CTA per SM
 * as below, tile through AUTO against the portable tiles): 24 / 32 rows at b 8 32k +3.5 / +3.7 %,
 * 16k +3.2 / +3.1 %, pages of 256 +5.2 %, b 16 16k +1.7 %; but 8k -2.8 %, 16 rows -3.4 %, and a
 * grid of more KV heads than SMs (b 64 h 32/8 8k, 512 CTAs) -3.6 %, where the portable tiles read
 * at the copy rate. Hence 17-32 rows from SM90_DEC_MID_MIN_KEYS keys on at most one KV head per SM. */
#define SM90_DEC_MIN_ROWS 33
#define SM90_DEC_MIN_KEYS 8192
#define SM90_DEC_MID_ROWS 17
#define SM90_DEC_MID_MIN_KEYS 16384
/* CTAs per SM the key splits aim at. One CTA's consumers keep up with ~28 GB/s of K+V (session 61,
 * H100, the prototype with its loads removed: 3554-3599 GB/s over 128 CTAs; 4734-4821 over 256,
 * two per SM), so where an SM's share of the DRAM peak is below SM90_DEC_ONE_CTA_MAX_SM_SHARE one
 * CTA per SM carries it, and streams faster than two: H100 (3.35 TB/s, 25 GB/s per SM), tile
 * forced, b 8 h 64/8 64 rows 2 splits against 4: +3.6 % at 32k, +3.3 % at 16k, +3.7 % at 8k, 32
 * rows +2.5 %, pages of 256 +4.5 %; b 16 1 against 2 +3.1 % (16k) / +1.8 % (32k); b 8 h 32/4 and b 4
 * h 64/8 4 against 8 +4.3 / +5.5 %; 3 splits (60 SMs with two CTAs) -9.4 %. The H200's share (4.8
 * TB/s, 36 GB/s per SM) is above what one CTA's math carries: two per SM there, as measured in
 * sessions 58-60; a GPU that does not report its DRAM rate too. */
#define SM90_DEC_ONE_CTA_MAX_SM_SHARE 28e9
#define SM90_DEC_MIN_BLOCKS_PER_SPLIT 4 /* a split streams at least this many key blocks */
/* Split s streams key blocks s, s + splits, ...: a KV head's splits read neighbouring 128-byte
   pieces of each V^T d-row at once (session 60, H100, tile forced: +1.3-2.6 % over runs of
   blocks, pages +0.5 %; docs/sm90.md v25). 0: each split a run of blocks_per_split. */
#define SM90_DEC_INTERLEAVE 1
/* L2 policy of the K / V^T loads. Evict-first while the cache is at most this many times the L2:
   the lines a previous kernel left dirty then stay (their write-back would share this call's DRAM
   time); on longer streams evict-normal, as evict-first lines held the stream back there (session
   59, ab80 b 8 h 64/8 s_q 8, tile forced each way: H100 8k keys, 134 MB, evict-first +2.8 %; 16k /
   32k, 268 / 537 MB, evict-normal +1.5 / +2.8 %, 40 rows 32k and pages of 256 +3.0 / +2.5 %; H200
   8k / 12k evict-first +4.5 / +2.9 %, 16k / 24k / 32k evict-normal +0.6 / +3.0 / +4.4 %, 40 rows
   32k +4.5 %, pages of 256 +5.4 %, b 64 h 32/8 8k (1 GB) +3.7 %). */
#define SM90_DEC_EVICT_FIRST_MAX_L2X 4

typedef struct sm90_dec_params {
    CUtensorMap tmap_k;      /* K [b, s_k, h_kv, 128] (paged: [pages, page_size, h_kv, 128]) e4m3: box 128 B x 128 keys */
    CUtensorMap tmap_vt;     /* V^T [b, h_kv, 128, s_k] ([pages, h_kv, 128, page_size]) e4m3: box 128 keys x 128 dims;
                                v_rows: V [b, s_k, h_kv, 128] ([pages, page_size, h_kv, 128]), box as K's */
    const uint8_t *q;        /* [b, s_q, h_q, 128] e4m3 */
    void *o;                 /* [b, s_q, h_q, 128] f16 / bf16 */
    float *lse;              /* [b, h_q, s_q] natural log, may be NULL */
    const float *q_descale, *k_descale, *v_descale; /* [b, h_kv], may be NULL (1.0) */
    const int32_t *seqused_k; /* [b] keys per sequence, may be NULL (s_k each); required if paged */
    const int32_t *page_table; /* [b, page_table_stride] page ids, NULL unless paged */
    float *ws_o;             /* [splits, b, h_kv, 64, 128] f32: each split's O / l (splits > 1) */
    float *ws_lse;           /* [splits, b, h_kv, 64] f32: each split's log2 LSE, -inf without keys */
    int64_t q_stride[3];     /* elements: batch, row, head */
    int64_t o_stride[3];
    int64_t lse_stride[2];   /* batch, head */
    int64_t descale_stride[3][2]; /* q, k, v: batch, KV head */
    int64_t page_table_stride;
    int32_t page_size;       /* paged: a multiple of SM90_DEC_N, so a key block lies in one page */
    int32_t b, s_q, h_q, h_kv, group, s_k; /* s_k: the cache's length (paged: max_seqlen_k) */
    int32_t rows;            /* s_q x group */
    int32_t splits, blocks_per_split;
    int32_t interleave;      /* 1: split s streams key blocks s, s + splits, ...; 0: blocks_per_split in a row */
    int32_t causal;          /* bottom-right: token t sees keys up to t + s_k - s_q */
    int32_t out_bf16;
    int32_t evict_first;     /* 1: the K / V^T loads evict-first in L2, 0: evict-normal */
    int32_t solo;            /* 1: sm90_dec_kernel_solo (one CTA per SM), 0: sm90_dec_kernel */
    int32_t v_rows;          /* 1: V in K's layout, sm90_dec_kernel_solo_vr (whatever solo says) */
    float scale_log2;        /* softmax_scale x log2(e) (descales apply per CTA) */
} sm90_dec_params;

#ifdef __cplusplus
extern "C" {
#endif
/* Decode kernel, then (splits > 1) the combine, on `stream`. */
cudaError_t flashc_sm90_decode_launch(const sm90_dec_params *params, cudaStream_t stream);
#ifdef __cplusplus
}
#endif

#endif /* FLASHC_SM90_DECODE_H */
