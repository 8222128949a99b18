/*
 * sm80 forward kernel body (FlashAttention-2 style, mma.sync m16n8k16, f32 accumulate).
 * Included by one tiny .cu per variant, which defines:
 *   FWD_BF16      0: f16 inputs, 1: bf16 inputs; or FWD_E4M3 / FWD_INT8 defined: 8-bit inputs
 *                 (see "8-bit inputs" below)
 *   FWD_HEAD_DIM  64, 128 or 256
 *   FWD_M_SLABS   m16 row slabs per warp: 1 (BLOCK_M 64: decode, short rows) or 2 (BLOCK_M 128:
 *                 each K/V fragment read from smem feeds twice the MMAs, which is what keeps
 *                 mma.sync ahead of shared-memory bandwidth)
 *   FWD_NAME      the extern "C" launcher's name (see sm80_fwd.h)
 *   FWD_STAGES    optional: K/V ring depth (default 2). The deep decode variants (3-4) keep 2-3
 *                 key blocks in flight while one is computed; d128's exceeds sm_86/89's 99 KB, so
 *                 they set FWD_MIN_ARCH 900 and the host picks them only on sm_90 (two CTAs per SM)
 *   FWD_MIN_ARCH  optional: below this __CUDA_ARCH__ the kernel is an empty body (never launched)
 *   FWD_PAGE_SUB  optional (default 0): the page-sub variant of a deep decode variant, taken only for
 *                 paged KV whose pages (2^k keys, k = page_sub_shift) split a key block into whole
 *                 pages: its K/V copies use load_kv_tile_sub alone. A separate variant because the
 *                 same loader next to the general one cost the contiguous path 3-18 % (H200, the
 *                 register allocation and schedule of the whole kernel change)
 *   FWD_SKIP_IDLE_WARPS optional (default 0): warps whose rows all lie past the sequence skip the
 *                 math (decode: s_q x group rows of 64). Measured on the H200 with the deep 64-row
 *                 variants: part of their decode gain; with 128-row prefill tiles and d256 it cost
 *                 3-5 %, so only the deep (decode) variants set it
 *   FWD_NUM_WARPS optional (default SM80_NUM_WARPS = 4): warps per CTA. The _n<keys> prefill
 *                 variants use 8 warps of one slab (128 rows, one CTA per SM at ~255 registers):
 *                 d128 128 x 128 keys, d256 128 x 64 (FA2's d256 tile)
 *   FWD_BLOCK_N   optional: keys per tile (default: the rule under "tiles" below). The d128 x 2-slab
 *                 _n64 twins (FlashAttention-2's d128 geometry, two CTAs per SM on sm_90) set 64
 *                 and take ptxas's 80-92 byte spill: a few loop-invariant addresses reloaded per key
 *                 block from L1. Measured with the spill, they beat the 8-warp tile by 4-11 %
 *                 (sm80_launch.cu sm80_two_slab)
 *   FWD_LEAN_MASK optional (default 0): masked key blocks without a score transform use
 *                 mask_scores (a per-row key range, 2 compares per element) instead of
 *                 score_transform. Set by d64 m128 and by the _lm twins of the 8-warp tiles, which the
 *                 host takes for causal / windowed problems only (in the non-causal kernel the same
 *                 code cost d128 3 %, d256 1.4 % through register allocation). H200 bf16 causal:
 *                 d64 +106 / +24 / +4 % at 512 / 2k / 8k, d128 +21 / +7 %, d256 +7 / +3 %. The 4-warp
 *                 d128 x 2-slab tile spilled 8 bytes with it and the decode variants were not
 *                 measured with it, so they keep the general path
 *   FWD_FAST_KV_ONLY optional (default 0): the _f twins of d64 m128 and the 8-warp tiles (_lm_f: with the
 *                 lean mask), taken only when kv_fast_ok holds (non-paged, equal K/V strides): the key
 *                 loop's and the prologue's general-loader branches are compiled out. Never executed
 *                 there, they still cost the schedule of the whole kernel: H200 bf16 non-causal
 *                 +2.1-3.4 % (d128), +2.1-2.3 % (d64), d64 causal +2.4-4.5 % without them. The
 *                 twins also load Q and store O of unpacked rows with a row step (ROW_STEP_IO).
 *                 8-bit (LEAN_8BIT: the 128-row tiles' _f / _lm_f twins): non-paged, non-varlen K/V
 *                 with 16-byte aligned V^T rows (host sm80_8bit_fast_ok), copied by the split-key
 *                 tiles' lean loader (load_kv_lean). H200 fp8 / int8 non-causal: d64 +18-21 %, d128
 *                 +12-29 %, d256 +27-31 % over the general loader (docs/sm80.md, session 19)
 *   FWD_D_SPLIT   optional (8-bit d256; default 2, the 64-row tiles): CTAs per m-block, each owning
 *                 D / FWD_D_SPLIT of O's columns; the 8-warp 128-row d256 tiles set 1
 *   FWD_QK_UNROLL optional: unroll of Q.K^T's k-step loop (default: all; 8-bit d256: 2)
 *   FWD_LPT_TAIL  optional (default 0; the lean-mask tiles, which serve causal and windowed
 *                 prefill only): CTA coordinates come from the launch-order id, m-blocks heaviest
 *                 first and the grid's last lpt_tail_pairs (head, batch) pairs m-major (see
 *                 cta_coords). d64 m128 also serves non-causal prefill, where the remap cost
 *                 0.6-1 % (H200), so its causal twins (_lm, _lm_f) carry it instead.
 *   FWD_WARP_EPILOGUE optional (default 0; set by the d64 m128 _f / _lm_f, d128 two-slab _n64_f /
 *                 _n64_lm_f and d128 _n128_lm_f twins): each warp stages its own output rows over its
 *                 own Q rows (read by no other warp; on sm_90 with stmatrix) and stores them, so the
 *                 epilogue's two CTA barriers become a __syncwarp. H200 bf16: +0.9-1.6 % at 512,
 *                 0-0.3 % at 8k. The d256 tiles (-0.3 to -1.6 %: their key loop's schedule moved) and
 *                 d128 _n128_f (-0.9 % at 8k) keep the CTA-wide store (docs/sm80.md, session 12)
 *   FWD_Q_AFTER_KV optional (default 0; set by the d64 m128 _f, d128 _n64_lm_f and d256 _f twins):
 *                 the prologue issues the first K/V block's copies before Q's. H200 bf16: +0.1-1.0 % at
 *                 512 / 1k there; the other 16-bit twins lost up to 1 % (d128 _n128_lm_f 3.6 %) and the
 *                 8-bit two-slab tiles did not move
 *   FWD_DEEP_FAST optional (default 0; with FWD_FAST_KV_ONLY, the _s<S>_f twins of the 16-bit deep
 *                 decode rings): non-paged K/V through the lean loader (LEAN_2STAGE's code at S
 *                 stages). Their page-sub twins (lean sub loader) read 13 % faster than the general-
 *                 loader ring on contiguous K/V at 40 rows (H200 bf16, docs/sm80.md session 13)
 *   FWD_VT_ROW_PAIRS optional (default 0; the 8-bit split-key _sk_pg16 twins, pages of exactly 16
 *                 keys): the V^T tile is stored as pairs of rows (swz_vt_pairs). With 16-key pages a
 *                 32-byte global sector holds rows 2p and 2p+1 of one page, and LDGSTS fetched it
 *                 once per half while their shared-memory targets were a row apart: 1.5x the
 *                 L2-to-SM sectors (Nsight Compute). H200 fp8 / int8 b 64 h 32/8 8k: +20 %
 *                 (3.11 -> 3.75 TB/s); pages of 32-64 keys keep the row layout (-17 % with pairs)
 *   FWD_V_ROWS    optional (default 0; the 8-bit _vr twins): V in K's layout (v_transposed = 0, what
 *                 engines' fp8 KV caches hold), staged like K (swz_v) and turned into P.V's B
 *                 fragments by ldmatrix.trans and byte permutes (compute_pv, o_columns_to_std). The
 *                 symbol gains _vr (FWD_SYM). H200 fp8 decode against V^T: contiguous within
 *                 -1.2 to +0.5 %, pages of 16 keys +4-12 %, 64 keys +1.5-2.5 % (docs/sm80.md)
 *   FWD_SK_ROW_GROUPS optional (default 1; the 8-bit _m32_sk split-key tiles: 2): the split-key
 *                 tile's warps form row groups of 16 rows, each group's warps splitting every key
 *                 block, so one CTA reads a K/V block for 32 rows. H200 fp8 / int8 d128, 17-32 and
 *                 49-64 rows: +10-31 % over two 16-row CTAs per KV head (sm80_launch.cu)
 *   FWD_TILE_TIMING optional, dev only (default 0; CMake FLASHC_SM80_TILE_TIMING): thread 0 of each
 *                 CTA stamps %globaltimer and clock64 at six points of the tile (see "Tile timing"
 *                 below) into a buffer set through <FWD_NAME>_tile_timing(); 0 compiles every trace
 *                 of it out, so default kernels are unchanged (issue #5, docs/sm80.md wiptime)
 * Every runtime feature (causal/window, softcap, bias, ALiBi, GQA packing, varlen, paged KV,
 * seqused_k, LSE, split-KV) is a CTA-uniform branch, so one variant serves all of them.
 *
 * Budget
 *   CTA      NUM_WARPS warps (4, or 8 in the _n<keys> variants); BLOCK_M = NUM_WARPS x 16 x
 *            M_SLABS query rows (M_SLABS m16 slabs per warp)
 *   tiles    BLOCK_N = FWD_BLOCK_N, else 64 keys (d64; d128 with one slab) or 32 (d256; d128 with
 *            two slabs, whose 64-key S spills: only the _n64 twins take that); STAGES K/V buffers
 *            (cp.async): 2, or FWD_STAGES in the deep 64-row variants
 *   smem     Q BLOCK_Mxd + STAGES x (K + V) BLOCK_Nxd, 16-bit: M64: d64 40 KB, d128 80 KB,
 *            d256 96 KB; M128: d64 48 KB, d128 64 KB (all within the 99 KB opt-in of sm_86/89);
 *            d128 x 2 slabs x 64 keys (_n64) 96 KB, two CTAs per SM on sm_90;
 *            8 warps: d128 x 128 keys 160 KB, d256 x 64 keys 192 KB (the host falls back to the
 *            4-warp tiles where the opt-in is smaller); deep M64 (sm_90): d64 x4 stages 72 KB,
 *            d128 x3 stages 112 KB: two CTAs per SM (registers allow two anyway); e4m3 two-slab
 *            tiles add an f16 copy of Q (BLOCK_M x d x 2 bytes, Q_F16_SMEM): d128 M128 64 KB;
 *            8-bit d256 8 warps x 32 keys: Q 32 KB + 2 x (K + V^T) 32 KB = 64 KB (e4m3 converts
 *            Q's fragments per use: an f16 copy spilled 108 bytes)
 *   registers per slab O d/2 f32 and S BLOCK_N/2 f32; Q fragments d/4 kept in registers only for
 *            one slab at d <= 128 (otherwise Q is re-read from smem with ldmatrix per k-step)
 *   layout   rows of d 16-bit elements; 16-byte chunk c of row r stored at chunk c ^ (r & 7), so the
 *            8 row addresses of every ldmatrix phase hit 8 distinct bank groups
 *   lean     16-bit 2-stage variants (LEAN_2STAGE: prefill tiles, 64-row tiles below sm_90) load
 *            non-paged K/V with strength-reduced addresses and form ldmatrix addresses from one
 *            lane register per operand (XOR on the swizzle bits): per block ~170 fewer
 *            instructions and ~12 fewer live registers than the general code, which the deep
 *            decode and 8-bit variants keep unchanged. H200 bf16 prefill: +23-26 % (d64/d128),
 *            +42 % (d256)
 *
 * 8-bit inputs (e4m3 on sm_89+, int8 on sm_80+): Q/K fragments use the same ldmatrix addressing in
 * 16-byte chunks and mma m16n8k32 (BLOCK_N = 32); V sequence-innermost (v_transposed) makes its
 * smem tile d rows x BLOCK_N keys, and plain ldmatrix yields the B fragments of P.V (V in K's
 * layout: the FWD_V_ROWS twins, which build the same fragments from K-like rows). The A
 * operand of P.V wants keys {4t..4t+3} per thread: the Q.K^T ldmatrix permutes the keys inside
 * each 16 so that the S accumulator holds exactly those (S_KEY). e4m3: P = 2^(x - max + 8) in
 * [0, 256] (FA3's max offset; the 2^8 cancels in O / l), rounded to e4m3 on sm_89 and to f16 on
 * sm_90, which has no e4m3 mma.sync and runs f16 MMAs on converted fragments (E4M3_VIA_F16). int8: P in [0, 1] as
 * u8 (x 255) times s8 V into s32, converted and scaled by 1/255 per mma. Descales [b, h_kv] are
 * per CTA: q*k folded into the score scale, v into the final 1 / l. 64-row tiles (at d256 each CTA
 * owns half of O's columns, D_SPLIT) and, on sm_90, 128-row tiles (d64 / d128: 4 warps of two slabs;
 * d256: 8 warps of one slab, all of O). V^T chunks cp.async cannot take are gathered (load_kv_tile).
 * The 8-bit variants are built only with FLASHC_SM80_ENABLE_8BIT (sm80_fwd.h).
 *
 * Grid: x = m-block of (packed) query rows, y = query head (or KV head when GQA-packed),
 *       z = batch x num_splits. Keys are visited from the last block down, so the blocks that
 *       need masking (causal diagonal, tail) come first.
 */
#include <stdint.h>
#include <math.h>
#include "sm80/sm80_fwd.h"
#include "ptx/mma.h"
#include "ptx/ldmatrix.h"
#include "ptx/cp_async.h"
#include "ptx/cvt.h"
#include "ptx/ex2.h"
#include "ptx/prefetch.h"
#include "common/softmax.cuh"
#include "common/dtype.cuh"

/* ---- Budget constants ----------------------------------------------------------------------- */
#define D FWD_HEAD_DIM
#if defined(FWD_E4M3) || defined(FWD_INT8)
#define IS_8BIT 1
#define ELEM_BYTES 1                              /* e4m3 / int8 */
typedef uint8_t elem_t;
#else
#define IS_8BIT 0
#define ELEM_BYTES 2                              /* f16 / bf16 */
typedef uint16_t elem_t;
#endif
#define M_SLABS FWD_M_SLABS
#ifdef FWD_NUM_WARPS
#define NUM_WARPS FWD_NUM_WARPS                   /* per variant (the _n<keys> prefill tiles: 8) */
#else
#define NUM_WARPS SM80_NUM_WARPS
#endif
#define NUM_THREADS (NUM_WARPS * 32)
/* d256's 8-warp tile (one CTA per SM): causal m-blocks heaviest first. H200: causal +4 % at 8k,
   +1-2 % at 2k over the plain order, non-causal unchanged. On d128's 8-warp tile causal gained
   ~1 % but non-causal lost 1-3 % (code generation), and the 4-warp tiles are unmeasured, so
   those keep the plain order. Causal problems now run the lean-mask twins, whose FWD_LPT_TAIL
   order (cta_coords) replaces this select. */
#ifndef FWD_LPT_TAIL
#define FWD_LPT_TAIL 0
#endif
#define M_BLOCKS_HEAVY_FIRST (LEAN_2STAGE && NUM_WARPS == 8 && D == 256 && !FWD_LPT_TAIL)
/* mma.sync m16n8k16 geometry; an ldmatrix 8x8 matrix row is one 16-byte chunk (8 elements) */
#define MMA_M 16
#define MMA_N 8
#if IS_8BIT
#define MMA_K 32                                  /* m16n8k32 for 8-bit inputs */
#else
#define MMA_K 16
#endif
#define WARP_LANES 32
#define MMA_ROW_HALF 8                            /* accumulator rows g and g + 8 */
#define LDSM_ROWS 8                               /* rows of one ldmatrix 8x8 matrix */
/* S_KEY(f, t, e): the key (within the warp's slice of the block) of accumulator element e of S
   tile f in quad lane t; K_LDSM_ROW(lane): the K row of the block's 16-key group that lane
   addresses in the Q.K^T ldmatrix (matrices: tile 2q keys, chunk 0 | 1; tile 2q+1 keys, chunk 0 | 1).
   16-bit: tile f column c is key 8f + c. 8-bit: keys are permuted inside each 16-key group so that
   a thread's accumulators of tiles 2q, 2q+1 hold keys 16q + 4t .. 4t+3, the 8-bit A-fragment
   order of P: P then needs no shuffles before P.V (compute_pv_8bit). Tile 2q + r takes the pair
   4t + 2r + {0, 1}, or with K_PAIR_SWAP 4t + 2(r ^ t / 2) + {0, 1}: each ldmatrix matrix's 8 rows
   then differ in row % 8 (rows {0,1,4,5,10,11,14,15} and {2,3,6,7,8,9,12,13}) and read K without
   bank conflicts under the 8-row chunk swizzle, where the plain pairing's rows {0,1,4,5,8,9,12,13}
   conflict two-way; lanes t >= 2 then reorder their P pairs. H200 prefill against the shuffles
   (docs/sm80.md, session 16): int8 plain -5.4 % d128 causal, -2.4 % d256; swapped +3.4 % d256,
   +3.7 % d64. e4m3 on sm_90 (E4M3_VIA_F16) keeps the plain pairing: its P reorder is 4 selects
   per 16 keys, and plain read +8.1-8.8 % d128 where swapped read +5.0-7.6 %. */
#if IS_8BIT
#define S_KEY(f, t, e) (((f) >> 1) * 2 * MMA_N + 4 * (t) + 2 * (((f) & 1) ^ (K_PAIR_SWAP & ((t) >> 1))) + (e))
#define K_LDSM_ROW(lane)                                                                                   \
    (4 * (((lane) % LDSM_ROWS) >> 1) + 2 * (((lane) / (2 * LDSM_ROWS)) ^ (K_PAIR_SWAP & (((lane) % LDSM_ROWS) >> 2))) + \
     ((lane) & 1))
#else
#define S_KEY(f, t, e) ((f) * MMA_N + 2 * (t) + (e))
#define K_LDSM_ROW(lane) (((lane) % LDSM_ROWS) + ((lane) / (2 * LDSM_ROWS)) * LDSM_ROWS)
#endif
#define WARP_ROWS (MMA_M * M_SLABS)
#define BLOCK_M (NUM_WARPS * WARP_ROWS)
#define ROWS_PER_THREAD (2 * M_SLABS)             /* accumulator rows g and g+8 of each slab */
#ifdef FWD_BLOCK_N
#define BLOCK_N FWD_BLOCK_N                       /* per variant */
#elif !IS_8BIT && (FWD_HEAD_DIM == 64 || (FWD_HEAD_DIM == 128 && FWD_M_SLABS == 1))
#define BLOCK_N 64
#else
#define BLOCK_N 32                                /* d128 x 2 slabs, 8-bit: 64 keys would spill */
#endif
#define Q_IN_REGS (M_SLABS == 1 && FWD_HEAD_DIM <= 128)
#ifdef FWD_STAGES
#define STAGES FWD_STAGES                         /* deep variant: STAGES-1 blocks in flight */
#else
#define STAGES 2
#endif
#ifndef FWD_SKIP_IDLE_WARPS
#define FWD_SKIP_IDLE_WARPS 0
#endif
/* FWD_KV_STAGGER (default 0; with FWD_STAGES 1 and FWD_FAST_KV_ONLY): one K and one V buffer,
   copied in turn (FlashAttention-2's schedule): V_n lands under Q.K_n^T and the softmax, K_n-1
   under P.V_n, two barriers per block. Q + K + V of a 64 x 64-key d256 tile is 96 KB, so two CTAs
   share an SM and one's tile start and end overlap the other's loop. */
#ifndef FWD_KV_STAGGER
#define FWD_KV_STAGGER 0
#endif
#if FWD_KV_STAGGER && (STAGES != 1 || !FWD_FAST_KV_ONLY)
#error "FWD_KV_STAGGER needs FWD_STAGES 1 and FWD_FAST_KV_ONLY"
#endif
#ifndef FWD_LEAN_MASK
#define FWD_LEAN_MASK 0                           /* see the variant list at the top */
#endif
#ifndef FWD_SK_FAST
#define FWD_SK_FAST 0                             /* split-key _f twins, see fwd_splitk.cuh */
#endif
#ifndef FWD_SK_WHOLE_PAGES
#define FWD_SK_WHOLE_PAGES 0                      /* split-key _wp twins, see fwd_splitk.cuh */
#endif
/* a split-key variant's name: its lean-loader twins end in _f (non-paged) and _wp (whole-block
   pages), its page-sub twins in _pg (8-bit pages of 32-64 keys; 16-bit pages splitting a block)
   and _pg16 (8-bit pages of 16, FWD_VT_ROW_PAIRS) */
#if FWD_SK_FAST
#define FWD_SK_NAME(name) name##_f
#elif FWD_SK_WHOLE_PAGES
#define FWD_SK_NAME(name) name##_wp
#elif FWD_PAGE_SUB && FWD_VT_ROW_PAIRS
#define FWD_SK_NAME(name) name##_pg16
#elif FWD_PAGE_SUB
#define FWD_SK_NAME(name) name##_pg
#else
#define FWD_SK_NAME(name) name
#endif
#ifndef FWD_FAST_KV_ONLY
#define FWD_FAST_KV_ONLY 0                        /* see the variant list at the top */
#endif
/* The _f twins (prefill) load Q and store O of unpacked rows from one base pointer and a row
   step; the general loops divide by the GQA group and redo 64-bit index math per 16-byte chunk,
   which a one-CTA-per-SM tile pays at the start and end of every tile (H200 bf16, the epilogue
   alone: +0.5-6 %, most at 512 / causal) */
#define ROW_STEP_IO FWD_FAST_KV_ONLY
/* optional (default 0; set by the d256 _f twins): each CTA prefetches into L2 the Q tile of the
   CTA expected to start after it on its SM (linear block id + resident CTAs), so that CTA's first
   load hits L2. H200 bf16: d256 +1-1.5 %; d128 -1 to -3 % from 2k; d64 +-0.5 % */
#ifndef FWD_PREFETCH_NEXT_Q
#define FWD_PREFETCH_NEXT_Q 0
#endif
#define PREFETCH_NEXT_Q (FWD_PREFETCH_NEXT_Q && FWD_FAST_KV_ONLY)
#ifndef FWD_WARP_EPILOGUE
#define FWD_WARP_EPILOGUE 0                       /* see the variant list at the top */
#endif
#ifndef FWD_Q_AFTER_KV
#define FWD_Q_AFTER_KV 0                          /* see the variant list at the top */
#endif
#if defined(FWD_MIN_ARCH) && defined(__CUDA_ARCH__) && __CUDA_ARCH__ < FWD_MIN_ARCH
#define FWD_ARCH_SKIPPED 1                        /* empty body: the host never picks it here */
#endif
#if IS_8BIT && FWD_HEAD_DIM == 256 && !defined(FWD_D_SPLIT)
/* 8-bit d256 64-row tiles: all 256 O columns plus the 8-bit fragment shuffles did not fit 255
   registers (before S_KEY removed the shuffles), so each CTA owns half of O's columns and both
   halves compute the same S (1.5x the MMA work of one pass; K is read twice, V once). The 8-warp
   128-row tiles (FWD_D_SPLIT 1) hold all of O: 254-255 registers, 8-16 bytes of spill. */
#define D_SPLIT 2
#elif defined(FWD_D_SPLIT)
#define D_SPLIT FWD_D_SPLIT
#else
#define D_SPLIT 1
#endif
#define D_OUT (D / D_SPLIT)                       /* O columns (and V^T rows) of one CTA */
#if defined(FWD_QK_UNROLL)
#define QK_UNROLL FWD_QK_UNROLL
#elif IS_8BIT && FWD_HEAD_DIM == 256
#define QK_UNROLL 2     /* ptxas on sm_90 hoists all 8 k-steps' fragments (96 registers) and spills */
#else
#define QK_UNROLL K_STEPS_QK
#endif
#define MIN_CTAS_PER_SM 1                         /* lets ptxas use up to 255 registers: no spills */
#define CHUNK_ELEMS (CP_ASYNC_CHUNK_BYTES / ELEM_BYTES)
#define ROW_CHUNKS (D / CHUNK_ELEMS)
#define SWIZZLE_ROWS_MASK 7                       /* 8 rows x 16 B chunks form one swizzle atom */
#define OUT_CHUNK_ELEMS 8                         /* 16-bit output: 8 per 16-byte chunk */
#define OUT_ROW_CHUNKS (D_OUT / OUT_CHUNK_ELEMS)
#define OUT_CHUNKS_PER_THREAD (BLOCK_M * OUT_ROW_CHUNKS / NUM_THREADS)
#define TILE_Q_ELEMS (BLOCK_M * D)
#define TILE_KV_ELEMS (BLOCK_N * D)
/* Q_F16_SMEM (e4m3 row-split tiles of two-slab warps: the 128-row prefill tiles): on sm_90
   (Q_FROM_F16_COPY) Q.K^T takes Q from an f16 copy, converted once per CTA in the MMA's k order
   (q_to_f16_smem), where converting each 8-bit fragment per key block was a third of such a
   warp's conversions. The copy (BLOCK_M x D f16) follows the K/V ring; sm_89 leaves it unused. */
#if defined(FWD_E4M3) && FWD_M_SLABS == 2 && !FWD_WARP_SPLIT_KEYS
#define Q_F16_SMEM 1
#define Q_F16_BYTES (BLOCK_M * D * 2)
#else
#define Q_F16_SMEM 0
#define Q_F16_BYTES 0
#endif
#define KV_RING_END_BYTES ((TILE_Q_ELEMS + 2 * STAGES * TILE_KV_ELEMS) * ELEM_BYTES)
#define SMEM_BYTES (KV_RING_END_BYTES + Q_F16_BYTES)
/* Shared memory a block may opt into on the arch being compiled (sm_80/87 163 KB, sm_86/89 99 KB,
   sm_90 227 KB). A variant above it is never launched there (the host compares with the device's
   opt-in), so it compiles to an empty body rather than code ptxas spills (the 8-warp tiles on
   sm_89, d256's on sm_80). The check follows the split-key tiles' BLOCK_M, below. */
#if defined(__CUDA_ARCH__)
#if __CUDA_ARCH__ >= 900
#define ARCH_SMEM_OPTIN_KB 227
#elif __CUDA_ARCH__ == 800 || __CUDA_ARCH__ == 870
#define ARCH_SMEM_OPTIN_KB 163
#else
#define ARCH_SMEM_OPTIN_KB 99
#endif
#endif
#define S_FRAGS (BLOCK_N / MMA_N)                 /* n8 accumulators of S per slab */
#define O_FRAGS (D_OUT / MMA_N)                   /* n8 accumulators of O per slab */
#define K_STEPS_QK (D / MMA_K)
#define K_STEPS_PV (BLOCK_N / MMA_K)
#define CHUNKS_PER_K_STEP (MMA_K / CHUNK_ELEMS)   /* 16-byte chunks per k16 step: 2 */
#define Q_CHUNKS_PER_THREAD (BLOCK_M * ROW_CHUNKS / NUM_THREADS)
#define KV_CHUNKS_PER_THREAD (BLOCK_N * ROW_CHUNKS / NUM_THREADS)
#define VT_ROW_CHUNKS (BLOCK_N / CHUNK_ELEMS)     /* 8-bit V^T tile: d rows of BLOCK_N keys */
#define VT_CHUNKS_PER_THREAD (D_OUT * VT_ROW_CHUNKS / NUM_THREADS)
/* 16-bit 2-stage variants (prefill, and 64-row tiles below sm_90) and the deep rings' _f twins
   (FWD_DEEP_FAST): non-paged K/V through load_kv_tile_fast and the conditional O rescale. The
   other deep decode and the 8-bit variants keep the general loader and the unconditional rescale
   (their code is unchanged by these). */
#ifndef FWD_DEEP_FAST
#define FWD_DEEP_FAST 0 /* see the variant list at the top */
#endif
#if FWD_DEEP_FAST && (IS_8BIT || STAGES < 3 || !FWD_FAST_KV_ONLY || FWD_PAGE_SUB)
#error "FWD_DEEP_FAST: 16-bit deep rings, with FWD_FAST_KV_ONLY"
#endif
#if !IS_8BIT && (STAGES == 2 || FWD_KV_STAGGER || FWD_DEEP_FAST)
#define LEAN_2STAGE 1
#define KV_FAST_MAX_STRIDE (INT32_MAX / BLOCK_N)  /* a thread's row offset fits 32 bits */
#else
#define LEAN_2STAGE 0
#endif
/* per-warp output store (16-bit output over Q, one column range, unpacked rows at run time) */
#define WARP_EPILOGUE (FWD_WARP_EPILOGUE && ROW_STEP_IO && LEAN_2STAGE && !IS_8BIT && D_SPLIT == 1)
#if WARP_EPILOGUE && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define EPI_STMATRIX 1                            /* one stmatrix.x4 per two n8 fragments */
#include "ptx/stmatrix.h"
#else
#define EPI_STMATRIX 0
#endif
/* which halves of a key block load_kv_tile_fast copies */
#define KV_PART_K 1
#define KV_PART_V 2
#define KV_PART_BOTH (KV_PART_K | KV_PART_V)

#ifndef FWD_PAGE_SUB
#define FWD_PAGE_SUB 0
#endif
#if FWD_PAGE_SUB && (LEAN_2STAGE || (M_SLABS != 1 && !FWD_WARP_SPLIT_KEYS))
#error "page-sub variants are deep decode variants of one slab per warp, or split-key tiles"
#endif
#ifndef FWD_VT_ROW_PAIRS
#define FWD_VT_ROW_PAIRS 0 /* see the variant list at the top */
#endif
#if FWD_VT_ROW_PAIRS && !(IS_8BIT && FWD_PAGE_SUB && FWD_WARP_SPLIT_KEYS && BLOCK_N >= 4 * CHUNK_ELEMS)
#error "FWD_VT_ROW_PAIRS: the 8-bit split-key page-sub tiles only (pages of 16 keys, 4+ chunks per V^T row)"
#endif
#ifndef FWD_V_ROWS
#define FWD_V_ROWS 0 /* see the variant list at the top */
#endif
#if FWD_V_ROWS && (!IS_8BIT || FWD_VT_ROW_PAIRS)
#error "FWD_V_ROWS: 8-bit V in K's layout (16-bit V always is); V^T row pairs are a V^T layout"
#endif
/* VT_TILE: the 8-bit V^T tile (D_OUT rows of BLOCK_N keys); otherwise V is staged like K (BLOCK_N
   rows of D), 16-bit or 8-bit _vr twins (V_ROWS_8BIT, compute_pv_vrows) */
#define VT_TILE (IS_8BIT && !FWD_V_ROWS)
#define V_ROWS_8BIT (IS_8BIT && FWD_V_ROWS)
/* a D_SPLIT CTA's first V column in its V-rows stage (bytes); V^T tiles hold only its columns */
#define V_COL_BYTES(c) (V_ROWS_8BIT && D_SPLIT > 1 ? (uint32_t)(c).d0 * ELEM_BYTES : 0u)

#ifndef FWD_WARP_SPLIT_KEYS
#define FWD_WARP_SPLIT_KEYS 0
#endif
/* 8-bit _f twins of the row-split tiles (FWD_FAST_KV_ONLY; host: non-paged K/V, not varlen, V^T
   d-rows a multiple of 16 bytes apart, so every V^T chunk starts 16-byte aligned): the split-key
   tiles' lean loader (load_kv_lean) is the only K/V loader, the general one and its page-id
   lookups are compiled out */
#define LEAN_8BIT (IS_8BIT && FWD_FAST_KV_ONLY && !FWD_WARP_SPLIT_KEYS)
#if LEAN_8BIT && (D_SPLIT != 1 || FWD_PAGE_SUB || FWD_KV_STAGGER)
#error "8-bit _f twins: whole O per CTA (the lean V^T copy starts at d-row 0), non-paged, a plain ring"
#endif
#if FWD_WARP_SPLIT_KEYS
/* Split-key decode tile (fwd_splitk.cuh): the NUM_WARPS warps share the tile's WARP_ROWS query
   rows and each takes a 1/NUM_WARPS slice of every key block (its own running max / sum / O),
   merged through smem once at the end. Every decode shape then does 1/NUM_WARPS of a block's
   math per warp, where the 64-row tiles left it all to the one or two warps with real rows. */
/* FWD_SK_ROW_GROUPS (default 1; the 8-bit _m32_sk tiles: 2): the warps form row groups of
   WARP_ROWS rows each, and the SK_KEY_GROUPS warps of a group split every key block. Two 16-row
   groups read each K/V block once for 32 rows, where two 16-row CTAs read it twice (the second
   mostly from L2), and each warp keeps the 16-row tile's registers (an 8-bit warp of two slabs
   spilled). */
#ifndef FWD_SK_ROW_GROUPS
#define FWD_SK_ROW_GROUPS 1
#endif
#define SK_ROW_GROUPS FWD_SK_ROW_GROUPS
#define SK_KEY_GROUPS (NUM_WARPS / SK_ROW_GROUPS)
#if NUM_WARPS % SK_ROW_GROUPS != 0 || (SK_ROW_GROUPS > 1 && M_SLABS != 1)
#error "split-key tiles: row groups of one slab must split the warps evenly"
#endif
#undef BLOCK_M
#define BLOCK_M (WARP_ROWS * SK_ROW_GROUPS)
#define KEYS_PER_WARP (BLOCK_N / SK_KEY_GROUPS)
/* a warp's row group and key group (one group: 0 and the warp, folded at compile time, since the
   compiler cannot bound warp / SK_KEY_GROUPS) */
#define SK_ROW_GROUP(warp) (SK_ROW_GROUPS == 1 ? 0 : (warp) / SK_KEY_GROUPS)
#define SK_KEY_GROUP(warp) (SK_ROW_GROUPS == 1 ? (warp) : (warp) % SK_KEY_GROUPS)
/* The wide tiles (8 warps, one row group) may hold half the rows of a 16-row tile each (row halves,
   host sm80_row_halves): CTA x starts at packed row x * rows_per_cta, computes its 16-row tile and
   writes only its rows_per_cta (sk_rows_end). Other tiles start at x * BLOCK_M. */
#define FWD_SK_ROW_HALVES (NUM_WARPS == 8 && SK_ROW_GROUPS == 1)
#undef S_FRAGS
#define S_FRAGS (KEYS_PER_WARP / MMA_N)           /* this warp's keys only */
#undef K_STEPS_PV
#define K_STEPS_PV (KEYS_PER_WARP / MMA_K)
/* 8-bit d64 with 16 rows has fewer Q chunks than threads: the Q buffer is padded to one chunk per
   thread (the extra rows are loaded, zero-filled past the sequence, and never read) */
#if BLOCK_M * ROW_CHUNKS < NUM_THREADS
#undef TILE_Q_ELEMS
#define TILE_Q_ELEMS (NUM_THREADS * CHUNK_ELEMS)
#undef Q_CHUNKS_PER_THREAD
#define Q_CHUNKS_PER_THREAD 1
#endif
#if LEAN_2STAGE || FWD_SKIP_IDLE_WARPS || FWD_LEAN_MASK || D_SPLIT != 1 || KEYS_PER_WARP % MMA_K != 0 || \
    KEYS_PER_WARP % 16 != 0
#error "split-key tiles: deep ring, general (or page-sub) loader, whole O per CTA, k-steps of whole slices"
#endif
#if Q_CHUNKS_PER_THREAD * NUM_THREADS * CHUNK_ELEMS != TILE_Q_ELEMS || OUT_CHUNKS_PER_THREAD * NUM_THREADS != BLOCK_M * OUT_ROW_CHUNKS
#error "split-key tiles: Q / output chunks must divide evenly over the threads"
#endif
#endif
/* after the split-key tiles' BLOCK_M (their rows, not NUM_WARPS x WARP_ROWS) */
#if defined(__CUDA_ARCH__) && SMEM_BYTES > ARCH_SMEM_OPTIN_KB * 1024 && !defined(FWD_ARCH_SKIPPED)
#define FWD_ARCH_SKIPPED 1
#endif

/* QK_A_WORDS: registers of one Q.K^T A fragment as the MMA consumes it (4; 8 where e4m3 is
   converted to f16 first). PV_A_WORDS: the same for P in P.V. */
#define QK_A_WORDS 4
#define PV_A_WORDS 4
#if defined(FWD_E4M3) && defined(__CUDA_ARCH__) && __CUDA_ARCH__ < SM80_E4M3_MIN_ARCH
/* e4m3 mma/cvt need sm_89: this arch's kernel is an empty body (check() refuses cc < 8.9). */
#define FWD_ARCH_LACKS_E4M3 1
#define MMA_16816(d, a, b0, b1) ((void)(d), (void)(a), (void)(b0), (void)(b1))
#define PV_MMA(d, a, b0, b1) ((void)(d), (void)(a), (void)(b0), (void)(b1))
#define P_EXP_OFFSET 8.f
#elif defined(FWD_E4M3) && __CUDA_ARCH__ >= 900 && !FLASHC_SM80_E4M3_NATIVE
/* sm_90 has no e4m3 mma.sync in hardware: ptxas expands each m16n8k32.e4m3 into two HMMA.16816
   from a zero accumulator and four FADDs into D (4 FADDs per 2 HMMA in the loop's SASS). Here the
   fragments are converted explicitly (exact: every e4m3 is an f16) and both f16 MMAs accumulate
   into D. Inside a 32-wide k step, A and B permute k alike (a reduction allows it): f16 k step h
   takes bytes {4t, 4t+1} of register h as k {2t, 2t+1} and bytes {4t+2, 4t+3} as k {2t+8, 2t+9}.
   A arrives converted (E4M3_VIA_F16): Q once per CTA (qk_a_from_e4m3), P packed from f32
   straight to f16 (never rounded to e4m3 here; sm_89 rounds it to e4m3 for its native MMA). */
#define E4M3_VIA_F16 1
#undef QK_A_WORDS
#undef PV_A_WORDS
#define QK_A_WORDS 8
#define PV_A_WORDS 8
static __device__ __forceinline__ uint32_t e4m3_lo_f16x2(uint32_t x) { return cvt_rn_f16x2_e4m3x2(x, 0); }
static __device__ __forceinline__ uint32_t e4m3_hi_f16x2(uint32_t x) { return cvt_rn_f16x2_e4m3x2(x, 1); }
/* an 8-bit A fragment (m16 x k32) -> the two f16 k-steps' A fragments, k permuted as above */
static __device__ __forceinline__ void qk_a_from_e4m3(uint32_t ah[QK_A_WORDS], const uint32_t a[4])
{
    ah[0] = e4m3_lo_f16x2(a[0]), ah[1] = e4m3_lo_f16x2(a[1]), ah[2] = e4m3_hi_f16x2(a[0]), ah[3] = e4m3_hi_f16x2(a[1]);
    ah[4] = e4m3_lo_f16x2(a[2]), ah[5] = e4m3_lo_f16x2(a[3]), ah[6] = e4m3_hi_f16x2(a[2]), ah[7] = e4m3_hi_f16x2(a[3]);
}
/* D += A (two converted f16 k-steps) x B (e4m3 k32 fragment, converted here) */
static __device__ __forceinline__ void mma_f16_e4m3_via_f16(float d[4], const uint32_t ah[QK_A_WORDS], uint32_t b0,
                                                            uint32_t b1)
{
    mma_m16n8k16_row_col_f32_f16_f16_f32(d, ah, e4m3_lo_f16x2(b0), e4m3_hi_f16x2(b0));
    mma_m16n8k16_row_col_f32_f16_f16_f32(d, ah + 4, e4m3_lo_f16x2(b1), e4m3_hi_f16x2(b1));
}
#define MMA_16816 mma_f16_e4m3_via_f16
#define PV_MMA mma_f16_e4m3_via_f16
#define P_EXP_OFFSET 8.f                          /* FA3 max offset: P <= 2^8 fits e4m3 (max 448) */
#elif defined(FWD_E4M3)
#define MMA_16816 mma_m16n8k32_row_col_f32_e4m3_e4m3_f32
#define PV_MMA mma_m16n8k32_row_col_f32_e4m3_e4m3_f32
#define P_EXP_OFFSET 8.f                          /* FA3 max offset: P <= 2^8 fits e4m3 (max 448) */
#elif defined(FWD_INT8)
#define MMA_16816 mma_s8_acc_f32
#define P_U8_SCALE 255.f                          /* P in [0, 1] stored as u8 */
#define PV_MMA(d, a, b0, b1) mma_u8s8_acc_f32((d), (a), (b0), (b1), 1.f / P_U8_SCALE)
#elif FWD_BF16
#define MMA_16816 mma_m16n8k16_row_col_f32_bf16_bf16_f32
#define PACK_INPUT cvt_rn_bf16x2_f32
#else
#define MMA_16816 mma_m16n8k16_row_col_f32_f16_f16_f32
#define PACK_INPUT cvt_rn_f16x2_f32
#endif
#ifndef E4M3_VIA_F16
#define E4M3_VIA_F16 0
#endif
#define K_PAIR_SWAP (IS_8BIT && !E4M3_VIA_F16) /* see S_KEY */
#define Q_FROM_F16_COPY (Q_F16_SMEM && E4M3_VIA_F16) /* see Q_F16_SMEM */
/* QF_WORDS: registers per k step of the Q fragments a Q_IN_REGS warp keeps: converted ones
   (QK_A_WORDS), or the 8-bit ones converted at each use (FWD_Q_RAW_REGS, for a variant whose 16
   more registers would spill) */
#if E4M3_VIA_F16 && defined(FWD_Q_RAW_REGS)
#define QF_WORDS 4
#else
#define QF_WORDS QK_A_WORDS
#endif
#if IS_8BIT && !defined(FWD_E4M3)
#define P_EXP_OFFSET 0.f
#endif
/* 8-bit: the output tile (16-bit) is staged over Q and the K/V buffers from the smem base, which
   must hold it (split-key tiles: fwd_splitk.cuh stages past Q) */
#if IS_8BIT && !FWD_WARP_SPLIT_KEYS && BLOCK_M * D_OUT * 2 > SMEM_BYTES
#error "8-bit: the output staging does not fit the tile's smem"
#endif

#define FWD_STR(x) #x
#define FWD_PRAGMA(x) _Pragma(FWD_STR(x)) /* a #pragma whose argument is a macro */
#define FWD_CAT2(a, b) a##b
#define FWD_CAT(a, b) FWD_CAT2(a, b)
/* the launcher's symbol: the variant file's name, with _vr for its V-rows twin (FWD_V_ROWS) */
#if FWD_V_ROWS
#define FWD_SYM FWD_CAT(FWD_NAME, _vr)
#else
#define FWD_SYM FWD_NAME
#endif
#define FWD_KERNEL FWD_CAT(FWD_SYM, _kernel)

/* ---- Tile timing (FWD_TILE_TIMING, dev only) -------------------------------------------------
   Where the ~5 us per-tile fixed cost goes: per CTA, TT_WORDS u64 at CTA index (blockIdx.x fastest)
   x TT_WORDS: [0..5] %globaltimer ns at TT_ENTRY .. TT_DRAINED, [6] smid, [7] key blocks,
   [8..13] clock64 at the same points. Only thread 0 writes; stamps 1-5 follow a CTA-wide barrier
   (the loop's own, or one added here in the timing build), so they time the whole CTA. The buffer
   pointer is a per-variant __device__ global, reloaded at each stamp so that nothing extra stays
   live across the key loop; a null pointer (the default) skips the stamps. */
#ifndef FWD_TILE_TIMING
#define FWD_TILE_TIMING 0
#endif
#if FWD_TILE_TIMING
#include "ptx/timer.h"
#define TT_WORDS 16
#define TT_ENTRY 0      /* kernel entry */
#define TT_FIRST 1      /* Q and the first K/V block landed (after the first loop barrier) */
#define TT_LAST 2       /* start of the last key block (after its barrier) */
#define TT_LOOP_DONE 3  /* every warp past its last PV (after the post-loop barrier) */
#define TT_STORED 4     /* every thread has issued its O (and LSE) stores */
#define TT_DRAINED 5    /* those stores are visible device-wide (__threadfence, then a barrier) */
__device__ uint64_t *FWD_CAT(FWD_SYM, _tt_buf);
static __device__ __forceinline__ uint64_t *tt_record(void)
{
    uint64_t *b = *(uint64_t *volatile *)&FWD_CAT(FWD_SYM, _tt_buf);
    if (!b) return 0;
    return b + ((uint64_t)blockIdx.x + (uint64_t)gridDim.x * (blockIdx.y + (uint64_t)gridDim.y * blockIdx.z)) * TT_WORDS;
}
static __device__ __forceinline__ void tt_stamp(int k)
{
    if (threadIdx.x != 0) return;
    uint64_t *r = tt_record();
    if (!r) return;
    r[k] = globaltimer_u64();
    r[8 + k] = (uint64_t)clock64();
}
static __device__ __forceinline__ void tt_info(int blocks)
{
    if (threadIdx.x != 0) return;
    uint64_t *r = tt_record();
    if (!r) return;
    r[6] = smid_u32();
    r[7] = (uint64_t)blocks;
}
/* Key-loop stamps, after the loop's barrier: the first block landed, the last one started. */
static __device__ __forceinline__ void tt_stamp_loop(int it, int count)
{
    if (it == 0) tt_stamp(TT_FIRST);
    if (it == count - 1) tt_stamp(TT_LAST);
}
/* After the epilogue: every thread has issued its stores, then they are visible device-wide. */
static __device__ __forceinline__ void tt_stamp_end(int count)
{
    __syncthreads();
    tt_stamp(TT_STORED);
    __threadfence();
    __syncthreads();
    tt_stamp(TT_DRAINED);
    tt_info(count);
}
#define TT_STAMP(k) tt_stamp(k)
#define TT_STAMP_LOOP(it, count) tt_stamp_loop(it, count)
#define TT_STAMP_END(count) tt_stamp_end(count)
#else
#define TT_STAMP(k) ((void)0)
#define TT_STAMP_LOOP(it, count) ((void)0)
#define TT_STAMP_END(count) ((void)0)
#endif

/* Per-CTA coordinates, resolved once. */
typedef struct fwd_ctx {
    int bi, split;
    int head_y;            /* blockIdx.y: query head, or KV head when packed */
    int hk;                /* KV head */
    int group;             /* query rows per query index (group if packed, else 1) */
    int seqlen_q, seqlen_k, q_off, k_off, diag;
    int m0, m_rows;        /* first packed row of the tile; packed rows of the sequence */
    int d0;                /* first O column of this CTA (D_SPLIT > 1), else 0 */
#if IS_8BIT
    float qk_descale, v_descale; /* of this CTA's (batch, KV head) */
#endif
} fwd_ctx;

/* What the transform, mask and epilogue need about one accumulator row. Recomputed where used
   (cheap integer work) rather than kept live across the key loop, which would cost registers. */
typedef struct fwd_row {
    int i;                 /* query index inside the sequence */
    int h;                 /* query head */
    int valid;             /* row exists */
} fwd_row;

/* Tile row of accumulator row rr of this thread. */
static __device__ __forceinline__ int acc_row(int warp, int lane, int rr)
{
    return warp * WARP_ROWS + (rr >> 1) * MMA_M + (lane >> 2) + MMA_ROW_HALF * (rr & 1);
}

/* Element offset of 16-byte chunk `chunk` of row `row` in a swizzled tile. */
static __device__ __forceinline__ int swz(int row, int chunk)
{
    /* Written so the compiler sees that only the low 3 chunk bits depend on the row: unrolled
       fragment loops then share a few lane bases plus immediate offsets. */
    return row * D + (chunk & ~SWIZZLE_ROWS_MASK) * CHUNK_ELEMS +
           (((chunk & SWIZZLE_ROWS_MASK) ^ (row & SWIZZLE_ROWS_MASK)) * CHUNK_ELEMS);
}

#if LEAN_2STAGE
/* ldmatrix addresses with one lane register per operand. A tile starts on 128 bytes and a row is
   a multiple of 128 bytes (d >= 64, 16-bit), so the swizzled chunk (c & 7) ^ (r & 7) of row r only
   touches address bits 4-6: for c = 2s + b (b the lane's 0/1 chunk within a k-step s),
   addr = ((tile + r * row + ((b ^ (r & 7)) << 4)) ^ (((2s) & 7) << 4)) + ((2s) >> 3) * 128. The
   lane part is computed once, each k-step costs one LOP3 instead of a hoisted register per step
   (the 128-row tiles ran out of registers with the latter). */
#define ROW_BYTES (D * ELEM_BYTES)
#define SWZ_ATOM_BYTES ((SWIZZLE_ROWS_MASK + 1) * CP_ASYNC_CHUNK_BYTES)  /* 128 */
static __device__ __forceinline__ uint32_t swz_lane_off(int row, int chunk_bit)
{
    return (uint32_t)(row * ROW_BYTES + ((chunk_bit ^ (row & SWIZZLE_ROWS_MASK)) * CP_ASYNC_CHUNK_BYTES));
}
/* address of chunk `c0` (even, lane's b added by swz_lane_off) from base + lane part */
static __device__ __forceinline__ uint32_t swz_step_addr(uint32_t base_lane, int c0)
{
    return (base_lane ^ (uint32_t)((c0 & SWIZZLE_ROWS_MASK) * CP_ASYNC_CHUNK_BYTES)) +
           (uint32_t)((c0 & ~SWIZZLE_ROWS_MASK) * CP_ASYNC_CHUNK_BYTES);
}
#endif

#if IS_8BIT
/* 8-bit tiles can have rows of only 4 chunks (64 bytes): the XOR pattern then spans 4 chunks and
   changes every 2 rows, which keeps the 8 rows of an ldmatrix phase on distinct bank groups. */
static __device__ __forceinline__ int swz_rows(int row, int chunk, int row_elems, int row_chunks)
{
    const int atom = row_chunks < 8 ? row_chunks : 8;
    return row * row_elems + (chunk & ~(atom - 1)) * CHUNK_ELEMS +
           (((chunk & (atom - 1)) ^ ((row / (8 / atom)) & (atom - 1))) * CHUNK_ELEMS);
}
#define swz(row, chunk) swz_rows((row), (chunk), D, ROW_CHUNKS)
#if FWD_VT_ROW_PAIRS
/* V^T tile stored as pairs of rows: the 16-key chunks of rows 2p and 2p+1 sit side by side, so a
   32-byte global sector that holds both (pages of 16 keys: V^T [page][d][16]) lands in one aligned
   32-byte pair of shared memory, which LDGSTS needs to fetch it as one sector. The pair's unit is
   XORed with p & 3: an ldmatrix phase (8 rows of one chunk = 4 pairs) hits 4 distinct 32-byte bank
   groups. */
#define VT_PAIR_SWIZZLE_MASK 3
static __device__ __forceinline__ int swz_vt_pairs(int row, int chunk)
{
    const int pr = row >> 1;
    return pr * 2 * BLOCK_N + ((chunk ^ (pr & VT_PAIR_SWIZZLE_MASK)) * 2 + (row & 1)) * CHUNK_ELEMS;
}
#define swz_vt(row, chunk) swz_vt_pairs((row), (chunk))
#else
#define swz_vt(row, chunk) swz_rows((row), (chunk), BLOCK_N, VT_ROW_CHUNKS)
#endif
/* 16-bit output tile (rows of D_OUT elements, counted in 16-bit units) */
static __device__ __forceinline__ int swz_o(int row, int chunk)
{
    return row * D_OUT + (chunk & ~SWIZZLE_ROWS_MASK) * OUT_CHUNK_ELEMS +
           (((chunk & SWIZZLE_ROWS_MASK) ^ (row & SWIZZLE_ROWS_MASK)) * OUT_CHUNK_ELEMS);
}

/* int8 S/O accumulation: an s8 (or u8 x s8) mma into a zeroed s32 tile, added to f32 scaled.
   Per mma |sum| <= 255 * 127 * 32 < 2^24, so the conversion is exact. */
static __device__ __forceinline__ void mma_s8_acc_f32(float d[4], const uint32_t a[4], uint32_t b0, uint32_t b1)
{
    int32_t t[4] = {0, 0, 0, 0};
    mma_m16n8k32_row_col_s32_s8_s8_s32(t, a, b0, b1);
    d[0] += (float)t[0], d[1] += (float)t[1], d[2] += (float)t[2], d[3] += (float)t[3];
}
static __device__ __forceinline__ void mma_u8s8_acc_f32(float d[4], const uint32_t a[4], uint32_t b0, uint32_t b1,
                                                        float scale)
{
    int32_t t[4] = {0, 0, 0, 0};
    mma_m16n8k32_row_col_s32_u8_s8_s32(t, a, b0, b1);
    d[0] = fmaf((float)t[0], scale, d[0]), d[1] = fmaf((float)t[1], scale, d[1]);
    d[2] = fmaf((float)t[2], scale, d[2]), d[3] = fmaf((float)t[3], scale, d[3]);
}
#else
#define swz_o swz
#endif

#if V_ROWS_8BIT
/* 8-bit V rows (the _vr twins) as K's, but with the chunk XOR taken from row bits 0 and 2-3 (d64:
   2-3): compute_pv's ldmatrix.trans matrices are the rows {0,1,4,5,8,9,12,13} and {2,3,6,7,10,11,
   14,15} of each 16-key group, and each set then hits 8 distinct bank groups (with K's XOR,
   row % 8, they would conflict two-way). The pattern repeats every 16 rows, so a split-key warp's
   key slice (a multiple of 16 rows) is a plain row offset. */
static __device__ __forceinline__ int swz_v(int row, int chunk)
{
#if ROW_CHUNKS >= 8
    const int x = (row & 1) | ((row >> 1) & 6);
    return row * D + (chunk & ~SWIZZLE_ROWS_MASK) * CHUNK_ELEMS + ((chunk & SWIZZLE_ROWS_MASK) ^ x) * CHUNK_ELEMS;
#else /* d64: 64-byte rows, two per 128-byte line */
    return row * D + ((chunk ^ (row >> 2)) & (ROW_CHUNKS - 1)) * CHUNK_ELEMS;
#endif
}
#else
#define swz_v swz /* V rows stored like K's */
#endif

static __device__ __forceinline__ int row_head(const sm80_fwd_params *prm, const fwd_ctx *c, int r)
{
    return prm->pack_gqa ? c->hk * c->group + r % c->group : c->head_y;
}

/* ---- Setup ---------------------------------------------------------------------------------- */
#if FWD_LPT_TAIL
#if D_SPLIT != 1
#error "FWD_LPT_TAIL: one CTA per m-block (no column split)"
#endif
/* Grid coordinates of the CTA launched L-th (x fastest, as the hardware dispatches them). Causal
   m-blocks get more keys the later they sit, so in the plain order the last wave mixes heavy and
   light tiles and SMs idle while the last heavy ones finish (H200 stamps, d256 causal 1k on the
   staggered tile: the SMs' last CTAs end 16-42 us before the grid's). Here each pair (y, z)
   launches its m-blocks heaviest first, and the grid's last prm->lpt_tail_pairs pairs launch
   m-major across pairs (longest processing time first over about two waves), so the grid ends
   on its lightest tiles. A pair's m-blocks still run within about two waves, so its K/V stays in
   L2 as in the plain order. */
typedef struct cta_xyz {
    uint32_t x, y, z;
} cta_xyz;

static __device__ __forceinline__ cta_xyz cta_coords(const sm80_fwd_params *prm, uint32_t L)
{
    const uint32_t gx = gridDim.x, gy = gridDim.y, pairs = gy * gridDim.z;
    const uint32_t tail = (uint32_t)prm->lpt_tail_pairs, head = (pairs - tail) * gx;
    cta_xyz g;
    uint32_t pair;
    if (L < head) {
        pair = L / gx;
        g.x = gx - 1 - (L - pair * gx);
    } else {
        const uint32_t t = L - head, rank = t / tail;
        pair = pairs - tail + (t - rank * tail);
        g.x = gx - 1 - rank;
    }
    g.y = pair % gy;
    g.z = pair / gy;
    return g;
}
#endif
/* launch-order id of this CTA (x fastest, as the hardware dispatches them) */
#define CTA_LINEAR_ID (blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z))

static __device__ __forceinline__ void setup_ctx(const sm80_fwd_params *prm, fwd_ctx *c)
{
    const flashc_problem *p = &prm->p;
#if FWD_LPT_TAIL
    const cta_xyz g = cta_coords(prm, CTA_LINEAR_ID);
    c->bi = g.z / prm->num_splits;
    c->split = g.z % prm->num_splits;
    c->head_y = g.y;
    c->hk = prm->pack_gqa ? (int)g.y : (int)g.y / prm->group;
#else
    c->bi = blockIdx.z / prm->num_splits;
    c->split = blockIdx.z % prm->num_splits;
    c->head_y = blockIdx.y;
    c->hk = prm->pack_gqa ? (int)blockIdx.y : (int)blockIdx.y / prm->group;
#endif
    c->group = prm->pack_gqa ? prm->group : 1;
    if (p->q_varlen) {
        c->q_off = p->cu_seqlens_q[c->bi];
        c->seqlen_q = p->cu_seqlens_q[c->bi + 1] - c->q_off;
    } else {
        c->q_off = 0;
        c->seqlen_q = p->s_q;
    }
    c->k_off = 0;
    c->seqlen_k = p->s_k;
    if (p->kv_layout == FLASHC_KV_VARLEN) {
        c->k_off = p->cu_seqlens_k[c->bi];
        c->seqlen_k = p->cu_seqlens_k[c->bi + 1] - c->k_off;
    }
    if (p->seqused_k) c->seqlen_k = p->seqused_k[c->bi];
    c->diag = c->seqlen_k - c->seqlen_q;
#if M_BLOCKS_HEAVY_FIRST
    /* Causal (a right window, no left one): a row's key count grows with it, so the heaviest
       m-blocks start first and the last wave is made of light ones (one CTA per SM here). */
    const int m_block = p->window_right >= 0 && p->window_left < 0 ? (int)(gridDim.x - 1 - blockIdx.x)
                                                                   : (int)blockIdx.x;
    c->m0 = m_block * BLOCK_M;
#elif FWD_LPT_TAIL
    c->m0 = (int)g.x * BLOCK_M;
#elif FWD_WARP_SPLIT_KEYS && FWD_SK_ROW_HALVES
    c->m0 = (int)blockIdx.x * prm->rows_per_cta;
#else
    c->m0 = (int)(blockIdx.x / D_SPLIT) * BLOCK_M;
#endif
    c->d0 = (int)(blockIdx.x % D_SPLIT) * D_OUT;
    c->m_rows = c->seqlen_q * c->group;
#if IS_8BIT
    const float dq = p->q_descale ? p->q_descale[(int64_t)c->bi * p->q_descale_stride[0] +
                                                 (int64_t)c->hk * p->q_descale_stride[1]] : 1.f;
    const float dk = p->k_descale ? p->k_descale[(int64_t)c->bi * p->k_descale_stride[0] +
                                                 (int64_t)c->hk * p->k_descale_stride[1]] : 1.f;
    c->qk_descale = dq * dk;
    c->v_descale = p->v_descale ? p->v_descale[(int64_t)c->bi * p->v_descale_stride[0] +
                                               (int64_t)c->hk * p->v_descale_stride[1]] : 1.f;
#endif
}

/* Key blocks [*lo, *hi) the tile's rows reach (the window's reach; every split together). */
static __device__ __forceinline__ void key_block_span(const sm80_fwd_params *prm, const fwd_ctx *c, int *lo, int *hi)
{
    const flashc_problem *p = &prm->p;
    int i_lo = c->m0 / c->group;
    int i_hi = (min(c->m0 + BLOCK_M, c->m_rows) - 1) / c->group;
    int k_end = c->seqlen_k;
    if (p->window_right >= 0) k_end = min(k_end, i_hi + c->diag + p->window_right + 1);
    int k_begin = 0;
    if (p->window_left >= 0) k_begin = max(0, i_lo + c->diag - p->window_left);
    *lo = k_begin / BLOCK_N;
    *hi = k_end > k_begin ? (k_end + BLOCK_N - 1) / BLOCK_N : *lo;
}

/* Key blocks [*lo, *hi) this CTA visits: the span, then its split share (a run). */
static __device__ __forceinline__ void key_block_range(const sm80_fwd_params *prm, const fwd_ctx *c, int *lo,
                                                       int *hi)
{
    int b_lo, b_hi;
    key_block_span(prm, c, &b_lo, &b_hi);
    int per_split = (b_hi - b_lo + prm->num_splits - 1) / prm->num_splits;
    *lo = min(b_hi, b_lo + c->split * per_split);
    *hi = min(b_hi, *lo + per_split);
}

/* Whether key block n has any masked element for this tile's rows (else the mask is skipped). */
static __device__ __forceinline__ int block_needs_mask(const sm80_fwd_params *prm, const fwd_ctx *c, int n)
{
    const flashc_problem *p = &prm->p;
    int i_lo = c->m0 / c->group;
    int i_hi = (min(c->m0 + BLOCK_M, c->m_rows) - 1) / c->group;
    int k0 = n * BLOCK_N, k1 = k0 + BLOCK_N - 1;
    if (k1 >= c->seqlen_k) return 1;
    if (p->window_right >= 0 && k1 > i_lo + c->diag + p->window_right) return 1;
    if (p->window_left >= 0 && k0 < i_hi + c->diag - p->window_left) return 1;
    return 0;
}

/* Accumulator row rr (= 2 * slab + k: row g + 8k of the slab) of this thread. */
static __device__ __forceinline__ fwd_row row_info(const sm80_fwd_params *prm, const fwd_ctx *c, int warp, int lane,
                                                   int rr)
{
    fwd_row ri;
    int r = c->m0 + acc_row(warp, lane, rr);
    ri.valid = r < c->m_rows;
    ri.i = r / c->group;
    ri.h = row_head(prm, c, r);
    return ri;
}

/* ---- Producer: cp.async tile loads (zero-filled past the sequence) -------------------------- */
/* One 16-byte chunk of a K row (or of a V row in K's layout). A row shorter than a 128-byte line
   (8-bit d64: 64 bytes) is fetched with .L2::128B: on a miss L2 brings in the whole line, whose
   other half is the neighbouring KV head's row of the same key (or, h_kv = 1, the next key), read
   by its CTA at about the same time, so DRAM serves whole lines. H200 8-bit d64 decode, outputs
   bit-identical: V^T +2-15 % (b 64 h 32/8 8k contiguous +15 %, pages of 256 +11-14 %), V in K's
   layout +20-28 %; 8-bit d128, the deep rings and d64 prefill unchanged (session 40, docs/sm80.md). */
#define KV_ROW_BYTES (D * ELEM_BYTES)
#define LINE_BYTES 128 /* an L2 cache line */
static __device__ __forceinline__ void cp_async_kv_row(uint32_t smem_addr, const void *gmem, uint32_t src_bytes)
{
#if KV_ROW_BYTES < LINE_BYTES
    cp_async_cg_shared_global_16_l2_128b(smem_addr, gmem, src_bytes);
#else
    cp_async_cg_shared_global_16(smem_addr, gmem, src_bytes);
#endif
}

static __device__ __forceinline__ void load_q_tile(const sm80_fwd_params *prm, const fwd_ctx *c, elem_t *sQ,
                                                   int tid)
{
    const flashc_problem *p = &prm->p;
    const elem_t *q = (const elem_t *)p->q;
#if ROW_STEP_IO && NUM_THREADS % ROW_CHUNKS == 0
    if (!prm->pack_gqa) { /* row r of the tile is query m0 + r of head head_y */
        const int row0 = tid / ROW_CHUNKS, ch = tid % ROW_CHUNKS;
        const elem_t *src = q + (int64_t)c->bi * p->q_stride[0] + (int64_t)(c->q_off + c->m0 + row0) * p->q_stride[1] +
                            (int64_t)c->head_y * p->q_stride[2] + ch * CHUNK_ELEMS;
        const int64_t step = (int64_t)(NUM_THREADS / ROW_CHUNKS) * p->q_stride[1];
#pragma unroll
        for (int it = 0; it < Q_CHUNKS_PER_THREAD; ++it) {
            const int row = row0 + it * (NUM_THREADS / ROW_CHUNKS);
            const int ok = c->m0 + row < c->m_rows;
            cp_async_cg_shared_global_16(cvta_to_shared_u32(sQ + swz(row, ch)), ok ? src + it * step : q,
                                         ok ? CP_ASYNC_CHUNK_BYTES : 0);
        }
        return;
    }
#endif
#pragma unroll
    for (int it = 0; it < Q_CHUNKS_PER_THREAD; ++it) {
        int idx = tid + it * NUM_THREADS;
        int row = idx / ROW_CHUNKS, ch = idx % ROW_CHUNKS;
        int r = c->m0 + row;
        const elem_t *src = q;
        uint32_t bytes = 0;
        if (r < c->m_rows) {
            int i = r / c->group;
            src = q + (int64_t)c->bi * p->q_stride[0] + (int64_t)(c->q_off + i) * p->q_stride[1] +
                  (int64_t)row_head(prm, c, r) * p->q_stride[2] + ch * CHUNK_ELEMS;
            bytes = CP_ASYNC_CHUNK_BYTES;
        }
        cp_async_cg_shared_global_16(cvta_to_shared_u32(sQ + swz(row, ch)), src, bytes);
    }
}

#if PREFETCH_NEXT_Q
/* Q rows of the CTA that should start on this SM after this one: block ids are dispatched in
   order, so with CTAS_RESIDENT per SM it is about linear id + SMs x CTAS_RESIDENT. Unpacked,
   non-varlen, unsplit problems only (the others skip it); a wrong guess costs an L2 line. */
#define CTAS_RESIDENT (NUM_WARPS == 8 ? 1 : 2)
static __device__ __forceinline__ void prefetch_next_q(const sm80_fwd_params *prm, int tid)
{
    const flashc_problem *p = &prm->p;
    if (prm->pack_gqa || p->q_varlen || prm->num_splits != 1) return;
    uint32_t nsm;
    asm("mov.u32 %0, %%nsmid;" : "=r"(nsm));
    const uint32_t gx = gridDim.x, gy = gridDim.y;
    const uint32_t nxt = CTA_LINEAR_ID + nsm * CTAS_RESIDENT;
#if FWD_LPT_TAIL
    if (nxt >= gx * gy * gridDim.z) return;
    const cta_xyz g = cta_coords(prm, nxt);
    const uint32_t y = g.y, z = g.z, mb = g.x;
#else
    const uint32_t x = nxt % gx, y = (nxt / gx) % gy, z = nxt / (gx * gy);
    if (z >= gridDim.z) return;
#if M_BLOCKS_HEAVY_FIRST
    const uint32_t mb = p->window_right >= 0 && p->window_left < 0 ? gx - 1 - x : x;
#else
    const uint32_t mb = x;
#endif
#endif
    const char *q = (const char *)p->q + ((int64_t)z * p->q_stride[0] + (int64_t)y * p->q_stride[2]) * ELEM_BYTES;
#pragma unroll
    for (int it = 0; it < (BLOCK_M * ROW_BYTES / LINE_BYTES + NUM_THREADS - 1) / NUM_THREADS; ++it) {
        const int idx = tid + it * NUM_THREADS, row = idx / (ROW_BYTES / LINE_BYTES);
        const int i = (int)mb * BLOCK_M + row;
        if (row < BLOCK_M && i < p->s_q)
            prefetch_global_L2(q + (int64_t)i * p->q_stride[1] * ELEM_BYTES + (idx % (ROW_BYTES / LINE_BYTES)) * LINE_BYTES);
    }
}
#endif

/* Page of key j (paged KV): j / page_size by multiply-high (sm80_fwd_params.page_div_mul). */
static __device__ __forceinline__ int page_of(const sm80_fwd_params *prm, int j)
{
    return prm->page_div_mul ? (int)(__umulhi((uint32_t)j, prm->page_div_mul) >> prm->page_div_shift) : j;
}

#if IS_8BIT
/* Element offset of key j in V^T, without the head and dim-row terms. */
static __device__ __forceinline__ int64_t vt_key_offset(const sm80_fwd_params *prm, const fwd_ctx *c, int j)
{
    const flashc_problem *p = &prm->p;
    if (p->kv_layout == FLASHC_KV_PAGED) {
        const int pg = page_of(prm, j);
        return p->page_table[(int64_t)c->bi * p->page_table_stride + pg] * p->v_stride[0] + (j - pg * p->page_size);
    }
    return (int64_t)c->bi * p->v_stride[0] + (int64_t)(c->k_off + j);
}

/* The 16 keys j.. of one V^T row, byte by byte (zero past the sequence), for chunks cp.async cannot
   copy. Stored with a plain st.shared: the barrier before the block's first use orders it like the
   cp.async data. */
static __device__ __forceinline__ uint4 gather_vt_chunk(const sm80_fwd_params *prm, const fwd_ctx *c, const elem_t *v, int j,
                                                         int64_t row_off)
{
    uint32_t w[CP_ASYNC_CHUNK_BYTES / 4] = {0, 0, 0, 0};
#pragma unroll
    for (int e = 0; e < CHUNK_ELEMS; ++e)
        if (j + e < c->seqlen_k) w[e / 4] |= (uint32_t)v[vt_key_offset(prm, c, j + e) + row_off] << (8 * (e % 4));
    return make_uint4(w[0], w[1], w[2], w[3]);
}
#endif

/* Paged KV: the page-table lookups of a block are issued one iteration before its K/V copies, so
   their latency hides under a block of math instead of delaying the copies (decode streams K/V,
   and a dependent lookup per copy cost ~35 % of the bandwidth). Lane l of a warp holds the page of
   one row its warp copies: copy step `it` of the threads with lane / ROW_CHUNKS = b takes the row
   of lane b + it * KV_ROWS_PER_WARP_STEP. */
#define KV_ROWS_PER_WARP_STEP (32 / ROW_CHUNKS)
#if KV_ROWS_PER_WARP_STEP * KV_CHUNKS_PER_THREAD > 32
#error "page-id prefetch: a warp copies more K rows per block than it has lanes"
#endif
static __device__ __forceinline__ int kv_row_of_lane(int warp, int l)
{
    return warp * KV_ROWS_PER_WARP_STEP + l % KV_ROWS_PER_WARP_STEP +
           (l / KV_ROWS_PER_WARP_STEP) * (NUM_THREADS / ROW_CHUNKS);
}
/* Pages made of whole key blocks (page_size a multiple of BLOCK_N): one page per block, so its rows
   are addressed like a contiguous cache (base + j * row stride). */
static __device__ __forceinline__ int pages_hold_blocks(const sm80_fwd_params *prm)
{
    return prm->page_block_keys >= BLOCK_N;
}

/* Whole-block pages: element offsets (no head term) that put key j of block n at offset + j * key
   stride, as in a contiguous cache. page_id: the block's page (prefetch_page_id). */
typedef struct {
    int64_t k, v;
} kv_offsets;
static __device__ __forceinline__ kv_offsets page_block_offsets(const sm80_fwd_params *prm, int n, int page_id)
{
    const flashc_problem *p = &prm->p;
    const int64_t first = (int64_t)page_of(prm, n * BLOCK_N) * p->page_size; /* key at the page start */
    kv_offsets o;
    o.k = (int64_t)page_id * p->k_stride[0] - first * p->k_stride[1];
#if VT_TILE
    o.v = (int64_t)page_id * p->v_stride[0] - first; /* V^T: keys innermost */
#else
    o.v = (int64_t)page_id * p->v_stride[0] - first * p->v_stride[1];
#endif
    return o;
}

static __device__ __forceinline__ int prefetch_page_id(const sm80_fwd_params *prm, const fwd_ctx *c, int n, int warp,
                                                       int lane)
{
    const flashc_problem *p = &prm->p;
#if FWD_PAGE_SUB
    /* lane l: the block's page l (load_kv_tile_sub) */
    const int j = n * BLOCK_N + (lane << prm->page_sub_shift);
    return lane < (BLOCK_N >> prm->page_sub_shift) && j < c->seqlen_k
               ? p->page_table[(int64_t)c->bi * p->page_table_stride + (j >> prm->page_sub_shift)]
               : 0;
#else
    if (p->kv_layout != FLASHC_KV_PAGED) return 0;
    if (pages_hold_blocks(prm)) /* every lane: the page of the whole block */
        return p->page_table[(int64_t)c->bi * p->page_table_stride + page_of(prm, n * BLOCK_N)];
    if (lane >= KV_ROWS_PER_WARP_STEP * KV_CHUNKS_PER_THREAD) return 0;
    const int j = n * BLOCK_N + kv_row_of_lane(warp, lane);
    return j < c->seqlen_k ? p->page_table[(int64_t)c->bi * p->page_table_stride + page_of(prm, j)] : 0;
#endif
}

/* K and V rows of key block n. Paged KV: every row's page comes from `page_ids` (see above). */
static __device__ __forceinline__ void load_kv_tile(const sm80_fwd_params *prm, const fwd_ctx *c, elem_t *sK,
                                                    elem_t *sV, int n, int tid, int page_ids)
{
    const flashc_problem *p = &prm->p;
    const elem_t *k = (const elem_t *)p->k;
    const elem_t *v = (const elem_t *)p->v;
    const int paged = p->kv_layout == FLASHC_KV_PAGED;
    /* Key j sits at base + j * stride[1] (+ head, chunk), unless pages split the block (per_row). */
    const int per_row = paged && !pages_hold_blocks(prm);
    int64_t k_base = (int64_t)c->bi * p->k_stride[0] + (int64_t)c->k_off * p->k_stride[1];
#if !VT_TILE
    int64_t v_base = (int64_t)c->bi * p->v_stride[0] + (int64_t)c->k_off * p->v_stride[1];
#else
    int64_t v_base = (int64_t)c->bi * p->v_stride[0] + c->k_off; /* V^T: keys innermost */
#endif
    if (paged && !per_row) {
        const kv_offsets o = page_block_offsets(prm, n, page_ids);
        k_base = o.k;
        v_base = o.v;
    }
#pragma unroll
    for (int it = 0; it < KV_CHUNKS_PER_THREAD; ++it) {
        int idx = tid + it * NUM_THREADS;
        int row = idx / ROW_CHUNKS, ch = idx % ROW_CHUNKS;
        int j = n * BLOCK_N + row;
        /* every lane shuffles (the branch below diverges); only per-row paging uses it */
        const int page_id = per_row ? __shfl_sync(FLASHC_FULL_WARP_MASK, page_ids,
                                                  (tid & 31) / ROW_CHUNKS + it * KV_ROWS_PER_WARP_STEP)
                                    : 0;
#if VT_TILE
        const elem_t *ks = k;
#else
        const elem_t *ks = k, *vs = v;
#endif
        uint32_t bytes = 0;
        if (j < c->seqlen_k) {
#if VT_TILE
            int64_t ko;
#else
            int64_t ko, vo;
#endif
            if (per_row) {
                int64_t page = page_id;
                int in_page = j - page_of(prm, j) * p->page_size;
                ko = page * p->k_stride[0] + (int64_t)in_page * p->k_stride[1];
#if !VT_TILE
                vo = page * p->v_stride[0] + (int64_t)in_page * p->v_stride[1];
#endif
            } else {
                ko = k_base + (int64_t)j * p->k_stride[1];
#if !VT_TILE
                vo = v_base + (int64_t)j * p->v_stride[1];
#endif
            }
            ks = k + ko + (int64_t)c->hk * p->k_stride[2] + ch * CHUNK_ELEMS;
#if !VT_TILE
            vs = v + vo + (int64_t)c->hk * p->v_stride[2] + ch * CHUNK_ELEMS;
#endif
            bytes = CP_ASYNC_CHUNK_BYTES;
        }
        cp_async_kv_row(cvta_to_shared_u32(sK + swz(row, ch)), ks, bytes);
#if !VT_TILE
        cp_async_kv_row(cvta_to_shared_u32(sV + swz_v(row, ch)), vs, bytes);
#endif
    }
#if VT_TILE
    /* V^T: row = head-dim index (this CTA's D_OUT of them), 16 consecutive keys per chunk; the
       tail chunk is partly zero-filled. A chunk whose keys straddle a page or whose start is not
       16-byte aligned (varlen starts, page sizes or s_k not multiples of 16) is gathered. */
#pragma unroll
    for (int it = 0; it < VT_CHUNKS_PER_THREAD; ++it) {
        int idx = tid + it * NUM_THREADS;
        int dr = idx / VT_ROW_CHUNKS, ch = idx % VT_ROW_CHUNKS;
        int j = n * BLOCK_N + ch * CHUNK_ELEMS;
        const int64_t row_off = (int64_t)c->hk * p->v_stride[1] + (int64_t)(c->d0 + dr) * p->v_stride[2];
        const elem_t *vs = v;
        uint32_t bytes = 0;
        if (j < c->seqlen_k) {
            const int keys = min(c->seqlen_k - j, CHUNK_ELEMS);
            /* (whole-block pages: the block's page, like K's rows) */
            vs = v + (per_row ? vt_key_offset(prm, c, j) : v_base + j) + row_off;
            const int one_page = !per_row || j - page_of(prm, j) * p->page_size + keys <= p->page_size;
            if (!one_page || ((uintptr_t)vs & (CP_ASYNC_CHUNK_BYTES - 1)) != 0) {
                *(uint4 *)(sV + swz_vt(dr, ch)) = gather_vt_chunk(prm, c, v, j, row_off);
                continue;
            }
            bytes = keys * ELEM_BYTES;
        }
        cp_async_cg_shared_global_16(cvta_to_shared_u32(sV + swz_vt(dr, ch)), vs, bytes);
    }
#endif
}

#if FWD_PAGE_SUB
/* K and V (8-bit: V^T) of key block n in a page-sub variant: pages of 2^k keys (k =
   page_sub_shift) split the block, lanes 0.. of page_ids hold its pages' ids (prefetch_page_id),
   and row r of the block is virtual row (page id << k) | (r & (2^k - 1)) of K and V (the host
   checked that pages are packed as page_size rows). A shuffle, a shift-or and the contiguous
   path's row multiply per copy, where the per-row path divides by the page size and builds two
   64-bit offsets. */
static __device__ __forceinline__ void load_kv_tile_sub(const sm80_fwd_params *prm, const fwd_ctx *c, elem_t *sK,
                                                        elem_t *sV, int n, int tid, int page_ids)
{
    const flashc_problem *p = &prm->p;
    const int shift = prm->page_sub_shift, mask = (1 << shift) - 1;
    const elem_t *k = (const elem_t *)p->k + (int64_t)c->hk * p->k_stride[2];
#if !VT_TILE
    const elem_t *v = (const elem_t *)p->v + (int64_t)c->hk * p->v_stride[2];
#endif
#pragma unroll
    for (int it = 0; it < KV_CHUNKS_PER_THREAD; ++it) {
        const int idx = tid + it * NUM_THREADS, row = idx / ROW_CHUNKS, ch = idx % ROW_CHUNKS;
        const int page = __shfl_sync(FLASHC_FULL_WARP_MASK, page_ids, row >> shift); /* before the branch */
        const int vrow = (page << shift) | (row & mask);
        const elem_t *ks = k;
#if !VT_TILE
        const elem_t *vs = v;
#endif
        uint32_t bytes = 0;
        if (n * BLOCK_N + row < c->seqlen_k) {
            ks = k + (int64_t)vrow * p->k_stride[1] + ch * CHUNK_ELEMS;
#if !VT_TILE
            vs = v + (int64_t)vrow * p->v_stride[1] + ch * CHUNK_ELEMS;
#endif
            bytes = CP_ASYNC_CHUNK_BYTES;
        }
        cp_async_kv_row(cvta_to_shared_u32(sK + swz(row, ch)), ks, bytes);
#if !VT_TILE
        cp_async_kv_row(cvta_to_shared_u32(sV + swz_v(row, ch)), vs, bytes);
#endif
    }
#if VT_TILE
    /* V^T: a 16-key chunk lies in one page (pages of >= 16 keys) */
    const elem_t *v = (const elem_t *)p->v;
#pragma unroll
    for (int it = 0; it < VT_CHUNKS_PER_THREAD; ++it) {
        const int idx = tid + it * NUM_THREADS, dr = idx / VT_ROW_CHUNKS, ch = idx % VT_ROW_CHUNKS;
        const int j = n * BLOCK_N + ch * CHUNK_ELEMS;
        const int64_t page = __shfl_sync(FLASHC_FULL_WARP_MASK, page_ids, (ch * CHUNK_ELEMS) >> shift);
        const int64_t row_off = (int64_t)c->hk * p->v_stride[1] + (int64_t)(c->d0 + dr) * p->v_stride[2];
        const elem_t *vs = v;
        uint32_t bytes = 0;
        if (j < c->seqlen_k) {
            vs = v + page * p->v_stride[0] + ((ch * CHUNK_ELEMS) & mask) + row_off;
            if (((uintptr_t)vs & (CP_ASYNC_CHUNK_BYTES - 1)) != 0) {
                *(uint4 *)(sV + swz_vt(dr, ch)) = gather_vt_chunk(prm, c, v, j, row_off);
                continue;
            }
            bytes = min(c->seqlen_k - j, CHUNK_ELEMS) * ELEM_BYTES;
        }
        cp_async_cg_shared_global_16(cvta_to_shared_u32(sV + swz_vt(dr, ch)), vs, bytes);
    }
#endif
}
#endif

#if LEAN_2STAGE
/* K and V rows of key block n, non-paged (rows past the sequence are zero-filled, not read).
   Each address is a base for the block (CTA-uniform but for one per-thread 32-bit offset: its row
   and chunk; kv_fast_ok checks that BLOCK_N rows of stride fit 2^31 elements) plus a uniform row
   step per chunk, so a K/V chunk pair costs a few instructions. The general loader above redoes
   every chunk's 64-bit index math and paging test: ~50 instructions per chunk pair, about a third
   of all per-block instructions of a 128-row tile (measured: +15-31 % prefill with this path). */
#define KV_ROWS_PER_PASS (NUM_THREADS / ROW_CHUNKS) /* key rows one pass of the CTA's chunks covers */
/* d >= 128: one K base (sequence and KV head) stays live across the key loop and V's is derived
   from it, instead of both being rebuilt with 64-bit math per block. H200 A/B: d128 +0.3-1 %,
   d256 +2.5-3 %, but the 4-warp d64 tile -0.3 to -2 %, so d64 rebuilds them per block. */
#define KV_KEEP_BASE (D >= 128)
/* Evaluated where used from the (constant-bank) parameters, not kept in a register. */
static __device__ __forceinline__ int kv_fast_ok(const sm80_fwd_params *prm)
{
    const flashc_problem *p = &prm->p;
#if KV_KEEP_BASE
    return p->kv_layout != FLASHC_KV_PAGED && p->k_stride[0] == p->v_stride[0] && p->k_stride[1] == p->v_stride[1] &&
           p->k_stride[2] == p->v_stride[2] && p->k_stride[1] <= KV_FAST_MAX_STRIDE;
#else
    return p->kv_layout != FLASHC_KV_PAGED && p->k_stride[1] == p->v_stride[1] && p->k_stride[1] <= KV_FAST_MAX_STRIDE;
#endif
}
#if KV_KEEP_BASE
/* K's key row 0 for this CTA's sequence and KV head; V's is at the same offset from p->v
   (kv_fast_ok: same strides), so one pointer stays live across the key loop. */
typedef const elem_t *kv_bases;

static __device__ __forceinline__ kv_bases kv_cta_bases(const sm80_fwd_params *prm, const fwd_ctx *c)
{
    const flashc_problem *p = &prm->p;
    return (const elem_t *)p->k + (int64_t)c->bi * p->k_stride[0] + (int64_t)c->hk * p->k_stride[2] +
           (int64_t)c->k_off * p->k_stride[1];
}
#else
typedef int kv_bases; /* unused */
static __device__ __forceinline__ kv_bases kv_cta_bases(const sm80_fwd_params *prm, const fwd_ctx *c) { return 0; }
#endif

static __device__ __forceinline__ void load_kv_tile_fast(const sm80_fwd_params *prm, const fwd_ctx *c, kv_bases cb,
                                                         uint32_t sK_addr, uint32_t sV_addr, int n, int tid,
                                                         int parts)
{
    const flashc_problem *p = &prm->p;
    const int row0 = tid / ROW_CHUNKS, ch = tid % ROW_CHUNKS;
    const int j0 = n * BLOCK_N;
    const int64_t rs = p->k_stride[1]; /* = v_stride[1] (kv_fast_ok) */
    const int t_off = row0 * (int)rs + ch * CHUNK_ELEMS;
#if KV_KEEP_BASE
    const elem_t *kb = cb + (int64_t)j0 * rs + t_off;
    const elem_t *vb = (const elem_t *)((const char *)kb + ((uintptr_t)p->v - (uintptr_t)p->k));
#else
    const elem_t *kb = (const elem_t *)p->k + (int64_t)c->bi * p->k_stride[0] + (int64_t)c->hk * p->k_stride[2] +
                       (int64_t)(c->k_off + j0) * rs + t_off;
    const elem_t *vb = (const elem_t *)p->v + (int64_t)c->bi * p->v_stride[0] + (int64_t)c->hk * p->v_stride[2] +
                       (int64_t)(c->k_off + j0) * rs + t_off;
#endif
#pragma unroll
    for (int it = 0; it < KV_CHUNKS_PER_THREAD; ++it) {
        const int row = row0 + it * KV_ROWS_PER_PASS;
        const uint32_t bytes = j0 + row < c->seqlen_k ? CP_ASYNC_CHUNK_BYTES : 0;
        /* rows a multiple of 8 apart share the swizzle: one base plus an immediate */
        const uint32_t so = (KV_ROWS_PER_PASS % (SWIZZLE_ROWS_MASK + 1) == 0
                                 ? swz(row0, ch) + it * KV_ROWS_PER_PASS * D
                                 : swz(row, ch)) * ELEM_BYTES;
        if (parts & KV_PART_K) cp_async_kv_row(sK_addr + so, kb + (int64_t)(it * KV_ROWS_PER_PASS) * rs, bytes);
        if (parts & KV_PART_V) cp_async_kv_row(sV_addr + so, vb + (int64_t)(it * KV_ROWS_PER_PASS) * rs, bytes);
    }
}
#endif

#if FWD_WARP_SPLIT_KEYS || LEAN_8BIT
/* ---- Lean K/V loader of the split-key tiles and the 8-bit _f twins (non-paged) -------------- */
/* The general loader redoes every chunk's 64-bit index math, the paging test and (8-bit) the V^T
   alignment / page test per chunk: about half of the split-key 8-bit tile's per-block instructions.
   Non-paged K/V are addressed from per-CTA bases (K row j and, 16-bit, V row j at base + j * row
   stride; 8-bit V^T key j of dim row r at base + r * v_stride[2] + j); the caller checked that every
   V^T chunk start is 16-byte aligned (lean_kv_ok), so no chunk needs the gather path. */
typedef struct lean_bases {
    const elem_t *k, *v;
} lean_bases;

static __device__ __forceinline__ lean_bases lean_cta_bases(const sm80_fwd_params *prm, const fwd_ctx *c)
{
    const flashc_problem *p = &prm->p;
    lean_bases b;
    b.k = (const elem_t *)p->k + (int64_t)c->bi * p->k_stride[0] + (int64_t)c->hk * p->k_stride[2] +
          (int64_t)c->k_off * p->k_stride[1];
#if VT_TILE
    b.v = (const elem_t *)p->v + (int64_t)c->bi * p->v_stride[0] + (int64_t)c->hk * p->v_stride[1] + c->k_off;
#else
    b.v = (const elem_t *)p->v + (int64_t)c->bi * p->v_stride[0] + (int64_t)c->hk * p->v_stride[2] +
          (int64_t)c->k_off * p->v_stride[1];
#endif
    return b;
}

static __device__ __forceinline__ int lean_kv_ok(const sm80_fwd_params *prm, lean_bases b)
{
    const flashc_problem *p = &prm->p;
#if VT_TILE
    return p->kv_layout != FLASHC_KV_PAGED && ((uintptr_t)b.v & (CP_ASYNC_CHUNK_BYTES - 1)) == 0 &&
           (p->v_stride[2] & (CP_ASYNC_CHUNK_BYTES - 1)) == 0;
#else
    return p->kv_layout != FLASHC_KV_PAGED;
#endif
}

static __device__ __forceinline__ void load_kv_lean(const sm80_fwd_params *prm, const fwd_ctx *c, lean_bases b,
                                                       elem_t *sK, elem_t *sV, int n, int tid)
{
    const flashc_problem *p = &prm->p;
    const int j0 = n * BLOCK_N;
    {
        const int row0 = tid / ROW_CHUNKS, ch = tid % ROW_CHUNKS;
        const int64_t ks = p->k_stride[1];
        const elem_t *kb = b.k + (int64_t)(j0 + row0) * ks + ch * CHUNK_ELEMS;
#if !VT_TILE
        const int64_t vs = p->v_stride[1];
        const elem_t *vb = b.v + (int64_t)(j0 + row0) * vs + ch * CHUNK_ELEMS;
#endif
#pragma unroll
        for (int it = 0; it < KV_CHUNKS_PER_THREAD; ++it) {
            const int row = row0 + it * (NUM_THREADS / ROW_CHUNKS);
            const uint32_t bytes = j0 + row < c->seqlen_k ? CP_ASYNC_CHUNK_BYTES : 0;
            cp_async_kv_row(cvta_to_shared_u32(sK + swz(row, ch)),
                            kb + (int64_t)(it * (NUM_THREADS / ROW_CHUNKS)) * ks, bytes);
#if !VT_TILE
            cp_async_kv_row(cvta_to_shared_u32(sV + swz_v(row, ch)),
                            vb + (int64_t)(it * (NUM_THREADS / ROW_CHUNKS)) * vs, bytes);
#endif
        }
    }
#if VT_TILE
    {
        const int dr0 = tid / VT_ROW_CHUNKS, ch = tid % VT_ROW_CHUNKS;
        const int64_t rs = p->v_stride[2];
        const int j = j0 + ch * CHUNK_ELEMS;
        const int keys = min(max(c->seqlen_k - j, 0), CHUNK_ELEMS);
        const elem_t *vb = b.v + (int64_t)dr0 * rs + j;
#pragma unroll
        for (int it = 0; it < VT_CHUNKS_PER_THREAD; ++it) {
            const int dr = dr0 + it * (NUM_THREADS / VT_ROW_CHUNKS);
            cp_async_cg_shared_global_16(cvta_to_shared_u32(sV + swz_vt(dr, ch)),
                                         vb + (int64_t)(it * (NUM_THREADS / VT_ROW_CHUNKS)) * rs,
                                         (uint32_t)keys * ELEM_BYTES);
        }
    }
#endif
}
#if NUM_THREADS % ROW_CHUNKS != 0 || (VT_TILE && NUM_THREADS % VT_ROW_CHUNKS != 0)
#error "lean loader: a thread's chunk column must stay fixed across its copies"
#endif
#endif

/* ---- Consumer: S = Q K^T ------------------------------------------------------------------- */
/* A fragment (16 rows x 16 k) of Q's slab `sl` at k-step kk for this warp, via one ldmatrix.x4. */
static __device__ __forceinline__ void load_q_frag(uint32_t a[4], uint32_t sQ_addr, int warp, int lane, int kk,
                                                   int sl)
{
    /* lanes 8i..8i+7 address matrix i: (rows 0-7 | 8-15) x (k 0-7 | 8-15), row-half first */
    int row = warp * WARP_ROWS + sl * MMA_M + (lane % LDSM_ROWS) + ((lane / LDSM_ROWS) & 1) * LDSM_ROWS;
    int ch = kk * CHUNKS_PER_K_STEP + (lane / (2 * LDSM_ROWS));
    ldmatrix_sync_aligned_m8n8_x4_shared_b16(a, sQ_addr + swz(row, ch) * ELEM_BYTES);
}

#if Q_FROM_F16_COPY
#define Q_F16_CHUNK_ELEMS 8 /* f16 per 16-byte chunk of the copy */
/* u16 offset of 16-byte chunk `chunk` of row `row` in the f16 Q copy (rows of D f16, the 8 x 8
   chunk XOR swizzle of the tiles) */
static __device__ __forceinline__ int swz_qh(int row, int chunk)
{
    return row * D + (chunk & ~SWIZZLE_ROWS_MASK) * Q_F16_CHUNK_ELEMS +
           ((chunk & SWIZZLE_ROWS_MASK) ^ (row & SWIZZLE_ROWS_MASK)) * Q_F16_CHUNK_ELEMS;
}

/* This thread's Q chunks (the ones load_q_tile copied: chunk tid + it * NUM_THREADS), landed, to
   the f16 copy: 8-bit chunk c of a row (dims 16c + 4t .. 4t+3 in word t) becomes f16 chunks 2c
   (word t's low half: dims 4t, 4t+1 at f16 k 2t, 2t+1) and 2c + 1 (high halves: k 2t+8, 2t+9 of
   the f16 k step), qk_a_from_e4m3's order. A block barrier must follow before any warp reads. */
static __device__ __forceinline__ void q_to_f16_smem(const elem_t *sQ, uint16_t *sQh, int tid)
{
#pragma unroll
    for (int it = 0; it < Q_CHUNKS_PER_THREAD; ++it) {
        const int idx = tid + it * NUM_THREADS, row = idx / ROW_CHUNKS, ch = idx % ROW_CHUNKS;
        const uint4 w = *(const uint4 *)(sQ + swz(row, ch));
        const uint4 lo = make_uint4(e4m3_lo_f16x2(w.x), e4m3_lo_f16x2(w.y), e4m3_lo_f16x2(w.z), e4m3_lo_f16x2(w.w));
        const uint4 hi = make_uint4(e4m3_hi_f16x2(w.x), e4m3_hi_f16x2(w.y), e4m3_hi_f16x2(w.z), e4m3_hi_f16x2(w.w));
        *(uint4 *)(sQh + swz_qh(row, 2 * ch)) = lo;
        *(uint4 *)(sQh + swz_qh(row, 2 * ch + 1)) = hi;
    }
}
#endif

/* The same fragment as the Q.K^T MMA consumes it (E4M3_VIA_F16: converted to f16; Q_FROM_F16_COPY:
   sQ_addr is the f16 copy, read as the two f16 k steps' fragments). */
static __device__ __forceinline__ void load_qk_a(uint32_t a[QK_A_WORDS], uint32_t sQ_addr, int warp, int lane, int kk,
                                                 int sl)
{
#if Q_FROM_F16_COPY
    const int row = warp * WARP_ROWS + sl * MMA_M + (lane % LDSM_ROWS) + ((lane / LDSM_ROWS) & 1) * LDSM_ROWS;
#pragma unroll
    for (int h = 0; h < 2; ++h) /* f16 k step h of the 32-wide step kk: copy chunks 4kk + 2h, +1 */
        ldmatrix_sync_aligned_m8n8_x4_shared_b16(
            a + 4 * h, sQ_addr + swz_qh(row, 2 * (kk * CHUNKS_PER_K_STEP + h) + lane / (2 * LDSM_ROWS)) * 2);
#elif E4M3_VIA_F16
    uint32_t raw[4];
    load_q_frag(raw, sQ_addr, warp, lane, kk, sl);
    qk_a_from_e4m3(a, raw);
#else
    load_q_frag(a, sQ_addr, warp, lane, kk, sl);
#endif
}

/* Q_IN_REGS: this warp's Q fragment at k step kk as it keeps it (QF_WORDS) */
static __device__ __forceinline__ void load_qf(uint32_t qf[QF_WORDS], uint32_t sQ_addr, int warp, int lane, int kk)
{
#if QF_WORDS != QK_A_WORDS
    load_q_frag(qf, sQ_addr, warp, lane, kk, 0);
#else
    load_qk_a(qf, sQ_addr, warp, lane, kk, 0);
#endif
}

static __device__ __forceinline__ void compute_qk(float S[M_SLABS][S_FRAGS][4],
#if Q_IN_REGS
                                                  const uint32_t qf[K_STEPS_QK][QF_WORDS],
#endif
                                                  uint32_t sQ_addr, uint32_t sK_addr, int warp, int lane)
{
#pragma unroll
    for (int sl = 0; sl < M_SLABS; ++sl)
#pragma unroll
        for (int f = 0; f < S_FRAGS; ++f) S[sl][f][0] = S[sl][f][1] = S[sl][f][2] = S[sl][f][3] = 0.f;
#if LEAN_2STAGE
    /* lane parts of the ldmatrix addresses (see swz_step_addr) */
    const uint32_t lane_k = swz_lane_off((lane % LDSM_ROWS) + (lane / (2 * LDSM_ROWS)) * LDSM_ROWS,
                                         (lane / LDSM_ROWS) & 1);
#if !Q_IN_REGS
    const uint32_t lane_q = swz_lane_off(warp * WARP_ROWS + (lane % LDSM_ROWS) + ((lane / LDSM_ROWS) & 1) * LDSM_ROWS,
                                         lane / (2 * LDSM_ROWS));
#endif
#endif
    FWD_PRAGMA(unroll QK_UNROLL)
    for (int kk = 0; kk < K_STEPS_QK; ++kk) {
        uint32_t a[M_SLABS][QK_A_WORDS];
#pragma unroll
        for (int sl = 0; sl < M_SLABS; ++sl) {
#if Q_IN_REGS && QF_WORDS != QK_A_WORDS
            qk_a_from_e4m3(a[sl], qf[kk]);
#elif Q_IN_REGS
#pragma unroll
            for (int w = 0; w < QK_A_WORDS; ++w) a[sl][w] = qf[kk][w];
#elif LEAN_2STAGE
            ldmatrix_sync_aligned_m8n8_x4_shared_b16(
                a[sl], swz_step_addr(sQ_addr + lane_q, kk * CHUNKS_PER_K_STEP) + sl * MMA_M * ROW_BYTES);
#else
            load_qk_a(a[sl], sQ_addr, warp, lane, kk, sl);
#endif
        }
#pragma unroll
        for (int nn = 0; nn < S_FRAGS / 2; ++nn) {
            /* matrices: (keys 0-7, k 0-7), (keys 0-7, k 8-15), (keys 8-15, k 0-7), (keys 8-15, k 8-15) */
            uint32_t b[4];
#if LEAN_2STAGE
            const uint32_t k_addr = swz_step_addr(sK_addr + lane_k, kk * CHUNKS_PER_K_STEP) + nn * 2 * MMA_N * ROW_BYTES;
#else
            int row = nn * 2 * MMA_N + K_LDSM_ROW(lane);
            int ch = kk * CHUNKS_PER_K_STEP + ((lane / LDSM_ROWS) & 1);
            const uint32_t k_addr = sK_addr + swz(row, ch) * ELEM_BYTES;
#endif
            ldmatrix_sync_aligned_m8n8_x4_shared_b16(b, k_addr);
#pragma unroll
            for (int sl = 0; sl < M_SLABS; ++sl) {
                MMA_16816(S[sl][2 * nn], a[sl], b[0], b[1]);
                MMA_16816(S[sl][2 * nn + 1], a[sl], b[2], b[3]);
            }
        }
    }
}

/* Scores -> log2 units with softcap / bias / ALiBi (when present), and the mask (when needed).
   j0: key of the scores' first column (block n: n * BLOCK_N; a split-key warp adds its slice);
   row_warp: the warp whose accumulator rows S holds (split-key tiles: every warp has warp 0's). */
static __device__ __forceinline__ void score_transform(const sm80_fwd_params *prm, const fwd_ctx *c,
                                                       float S[M_SLABS][S_FRAGS][4], int j0, int row_warp, int lane,
                                                       int need_mask)
{
    const flashc_problem *p = &prm->p;
    const int transform = prm->transform;
#pragma unroll
    for (int rr = 0; rr < ROWS_PER_THREAD; ++rr) {
        const int sl = rr >> 1, k = rr & 1;
        const fwd_row ri = row_info(prm, c, row_warp, lane, rr);
        const int64_t bias_off = (int64_t)c->bi * p->bias_stride[0] + (int64_t)ri.h * p->bias_stride[1] +
                                 (int64_t)ri.i * p->bias_stride[2];
        const float slope =
            p->alibi ? p->alibi[(int64_t)c->bi * p->alibi_stride[0] + (int64_t)ri.h * p->alibi_stride[1]] : 0.f;
#pragma unroll
        for (int f = 0; f < S_FRAGS; ++f) {
#pragma unroll
            for (int e2 = 0; e2 < 2; ++e2) {
                const int e = 2 * k + e2;
                const int j = j0 + S_KEY(f, lane & 3, e2);
                float x = S[sl][f][e];
                if (transform) {
#if IS_8BIT
                    x *= p->softmax_scale * c->qk_descale;
#else
                    x *= p->softmax_scale;
#endif
                    if (p->softcap != 0.f) x = apply_softcap(x, p->softcap, prm->inv_softcap);
                    if (p->bias && ri.valid && j < c->seqlen_k)
                        x += load_as_f32(p->bias, bias_off + (int64_t)j * p->bias_stride[3], p->bias_dtype);
                    if (p->alibi) x += alibi_term(slope, ri.i, j, c->diag);
                    x *= FLASHC_LOG2E;
                }
                if (need_mask && !key_visible(ri.i, j, c->seqlen_k, c->diag, p->window_left, p->window_right))
                    x = -INFINITY;
                S[sl][f][e] = x;
            }
        }
    }
}

#if FWD_LEAN_MASK
/* The mask alone (a block that needs one, no score transform): per row the visible keys are a
   range [lo, hi) relative to the thread's first key of the block, computed once; per element two
   compares and a select. Through score_transform (per-element key_visible with a branch, per-row
   bias/ALiBi offsets) a masked block cost 3-5 unmasked ones at d64 (H200: 55 % of causal time at
   s = 512, docs/sm80.md). Same visibility rule as key_visible. */
#define MASK_FAR (INT32_MIN / 2) /* "no lower bound", far enough from overflow after - j0 */
static __device__ __forceinline__ void mask_scores(const sm80_fwd_params *prm, const fwd_ctx *c,
                                                   float S[M_SLABS][S_FRAGS][4], int n, int warp, int lane)
{
    const flashc_problem *p = &prm->p;
#if IS_8BIT
    const int j0 = n * BLOCK_N; /* 8-bit: S_KEY permutes the keys inside each 16 */
#else
    const int j0 = n * BLOCK_N + 2 * (lane & 3);
#endif
#pragma unroll
    for (int rr = 0; rr < ROWS_PER_THREAD; ++rr) {
        const int sl = rr >> 1, k = rr & 1;
        const int r = c->m0 + acc_row(warp, lane, rr);
        const int i = c->group == 1 ? r : r / c->group;
        int hi = c->seqlen_k;
        if (p->window_right >= 0) hi = min(hi, i + c->diag + p->window_right + 1);
        const int lo = p->window_left >= 0 ? max(i + c->diag - p->window_left - j0, MASK_FAR) : MASK_FAR;
        hi -= j0;
#pragma unroll
        for (int f = 0; f < S_FRAGS; ++f)
#pragma unroll
            for (int e2 = 0; e2 < 2; ++e2) {
#if IS_8BIT
                const int jr = S_KEY(f, lane & 3, e2); /* key j0 + jr */
#else
                const int jr = f * MMA_N + e2; /* key j0 + jr */
#endif
                if (jr >= hi || jr < lo) S[sl][f][2 * k + e2] = -INFINITY;
            }
    }
}
#endif

/* Online softmax over one key block: running max m, running (thread-partial) sum l, O rescale.
   `mult` turns S into log2 units (scale * log2 e, or 1 when score_transform already did). */
static __device__ __forceinline__ void online_softmax(float S[M_SLABS][S_FRAGS][4], float O[M_SLABS][O_FRAGS][4],
                                                      float m[ROWS_PER_THREAD], float l[ROWS_PER_THREAD], float mult)
{
#pragma unroll
    for (int rr = 0; rr < ROWS_PER_THREAD; ++rr) {
        const int sl = rr >> 1, k = rr & 1;
        float mx = m[rr];
#pragma unroll
        for (int f = 0; f < S_FRAGS; ++f) mx = fmaxf(mx, fmaxf(S[sl][f][2 * k], S[sl][f][2 * k + 1]));
        mx = quad_max(mx);
        /* A row with every key masked so far keeps max -inf: subtract 0 so exp2 gives 0, not NaN. */
        float ms = mx == -INFINITY ? 0.f : mx * mult;
        float corr = ex2_approx_ftz_f32(m[rr] * mult - ms);
        m[rr] = mx;
#if IS_8BIT
        ms -= P_EXP_OFFSET; /* e4m3: P = 2^(x - max + 8) in [0, 256]; the 2^8 cancels in O / l */
#endif
        float sum = 0.f;
#pragma unroll
        for (int f = 0; f < S_FRAGS; ++f) {
            float p0 = ex2_approx_ftz_f32(fmaf(S[sl][f][2 * k], mult, -ms));
            float p1 = ex2_approx_ftz_f32(fmaf(S[sl][f][2 * k + 1], mult, -ms));
            S[sl][f][2 * k] = p0;
            S[sl][f][2 * k + 1] = p1;
            sum += p0 + p1;
        }
        l[rr] = l[rr] * corr + sum;
#pragma unroll
        for (int o = 0; o < O_FRAGS; ++o) {
            O[sl][o][2 * k] *= corr;
            O[sl][o][2 * k + 1] *= corr;
        }
    }
}

/* ---- Consumer: O += P V (P re-used from the S accumulators as A fragments) ------------------ */
#if IS_8BIT
#define BYTE_PERM_PAIRS 0x5410         /* x.b0 x.b1 y.b0 y.b1 */
#define BYTE_PERM_PAIRS_SWAPPED 0x1054 /* y.b0 y.b1 x.b0 x.b1 */
#endif
#if IS_8BIT && !E4M3_VIA_F16
/* Two P values -> two bytes (byte 0 = lo). */
static __device__ __forceinline__ uint32_t pack_p2(float lo, float hi)
{
#if defined(FWD_ARCH_LACKS_E4M3)
    return 0u * (uint32_t)(lo + hi);
#elif defined(FWD_E4M3)
    return cvt_rn_satfinite_e4m3x2_f32(lo, hi);
#else
    return (uint32_t)__float2int_rn(lo * P_U8_SCALE) | ((uint32_t)__float2int_rn(hi * P_U8_SCALE) << 8);
#endif
}
#endif

#if IS_8BIT
/* S_KEY: with K_PAIR_SWAP lanes t >= 2 hold keys 4t, 4t+1 in tile j+1 and 4t+2, 4t+3 in tile j
   (unused with E4M3_VIA_F16, whose P fragments are f16 pairs) */
static __device__ __forceinline__ uint32_t pv_p_order(int lane)
{
    return K_PAIR_SWAP && (lane & 3) >> 1 ? BYTE_PERM_PAIRS_SWAPPED : BYTE_PERM_PAIRS;
}

/* P's A fragments of key step kk (32 keys): tiles j, j+1 of a 16-key group hold keys 4t..4t+3 of it
   (S_KEY), so no shuffles; in the order the B fragments of V (V^T or V rows) hold the keys. */
static __device__ __forceinline__ void pv_a_frags(const float S[M_SLABS][S_FRAGS][4], uint32_t a[M_SLABS][PV_A_WORDS],
                                                  int kk, uint32_t order)
{
#pragma unroll
    for (int sl = 0; sl < M_SLABS; ++sl) {
#pragma unroll
        for (int hf = 0; hf < 2; ++hf) {
            const int j = kk * (MMA_K / MMA_N) + 2 * hf; /* first n8 tile of this 16-key group */
#if E4M3_VIA_F16
            /* f16 k step hf: k {2t, 2t+1} = keys 4t, 4t+1, k {2t+8, 2t+9} = keys 4t+2, 4t+3 */
            (void)order;
            a[sl][4 * hf + 0] = cvt_rn_f16x2_f32(S[sl][j][0], S[sl][j][1]); /* row g */
            a[sl][4 * hf + 1] = cvt_rn_f16x2_f32(S[sl][j][2], S[sl][j][3]); /* row g + 8 */
            a[sl][4 * hf + 2] = cvt_rn_f16x2_f32(S[sl][j + 1][0], S[sl][j + 1][1]);
            a[sl][4 * hf + 3] = cvt_rn_f16x2_f32(S[sl][j + 1][2], S[sl][j + 1][3]);
#else
            /* row g, then row g + 8: bytes of keys 16hf + 4t .. 4t+3 */
            a[sl][2 * hf] = __byte_perm(pack_p2(S[sl][j][0], S[sl][j][1]), pack_p2(S[sl][j + 1][0], S[sl][j + 1][1]), order);
            a[sl][2 * hf + 1] =
                __byte_perm(pack_p2(S[sl][j][2], S[sl][j][3]), pack_p2(S[sl][j + 1][2], S[sl][j + 1][3]), order);
#endif
        }
    }
}

#if VT_TILE
/* This lane's B fragments of P.V at key step kk for O fragments 2dd (b[0], b[1]: keys 0-15,
   16-31) and 2dd+1 (b[2], b[3]); lane: pv_b_lane's value, here the lane itself. V^T matrices:
   (d 0-7, keys 0-15), (d 0-7, keys 16-31), (d 8-15, keys 0-15), (d 8-15, keys 16-31). kc0: first
   V^T chunk of the keys S covers (0; a split-key warp's slice: the swizzle XORs chunk bits, so the
   slice is selected by chunk index, not by a byte offset). */
static __device__ __forceinline__ int pv_b_lane(int lane) { return lane; }
static __device__ __forceinline__ void pv_b_frags(uint32_t b[4], uint32_t sVt_addr, int lane, int kc0, int kk, int dd)
{
    int row = dd * 2 * MMA_N + (lane % LDSM_ROWS) + (lane / (2 * LDSM_ROWS)) * LDSM_ROWS;
    int ch = kc0 + kk * CHUNKS_PER_K_STEP + ((lane / LDSM_ROWS) & 1);
    ldmatrix_sync_aligned_m8n8_x4_shared_b16(b, sVt_addr + swz_vt(row, ch) * ELEM_BYTES);
}
#else
/* 8-bit V in K's layout (the _vr twins): B fragments of P.V want 4 consecutive keys of one column d
   per register, which V^T rows give directly. From V rows, ldmatrix.trans (b16) hands a lane two
   keys x two adjacent columns (bytes: key k0 d 2c, 2c+1, key k1 d 2c, 2c+1; c = lane / 4, k0 and k1
   the rows of lanes 2t, 2t+1 of the matrix, t = lane % 4). With one matrix on keys {4t, 4t+1} and
   one on {4t+2, 4t+3} of a 16-key group, two byte permutes give the registers of columns 2c (even)
   and 2c+1 (odd) for keys 4t..4t+3, P's A-fragment order (S_KEY). So fragment 2dd of O holds
   columns 16dd + 2n and fragment 2dd+1 columns 16dd + 2n + 1 (n the MMA column); o_columns_to_std
   restores the usual order once after the key loop. swz_v keeps each matrix's 8 rows on distinct
   bank groups. */
/* int8 d256 128-row tiles: two x2 loads per 32 keys instead of one x4 (4 live registers at most, as
   V^T's x4; the x4 and its permutes hold 6-8): ptxas _f_vr 36 -> 16 bytes of spill, _lm_f_vr
   220 -> 28; H200 +6-7 % non-causal, +18-19 % causal. On the other tiles x2 moved spills both ways
   (e4m3 d128 _m128_f_vr 4 -> 44), so they keep the x4. */
#if defined(FWD_INT8) && D == 256 && M_SLABS == 1 && NUM_WARPS == 8
#define V_LDSM_X2 1
#else
#define V_LDSM_X2 0
#endif
#define V_SEL_EVEN 0x6420 /* x.b0 x.b2 y.b0 y.b2: keys 4t..4t+3 of column 2c */
#define V_SEL_ODD 0x7531  /* x.b1 x.b3 y.b1 y.b3: column 2c + 1 */
/* the key row lane addresses in the x4 ldmatrix of a 32-key step: matrices (keys {4t, 4t+1} |
   {4t+2, 4t+3}) x (keys 0-15 | 16-31) */
static __device__ __forceinline__ int v_ldsm_row(int lane)
{
    const int i = lane % LDSM_ROWS;
    return (lane / (2 * LDSM_ROWS)) * 2 * MMA_N + 4 * (i >> 1) + 2 * ((lane / LDSM_ROWS) & 1) + (i & 1);
}

/* The same fragments (O fragment 2dd: even columns, 2dd+1: odd ones) from V rows. sV_addr: the
   stage's V rows (a D_SPLIT CTA adds its first column's byte offset, a multiple of the swizzle
   atom; a split-key warp its first key row, a multiple of 16); row_l: v_ldsm_row (pv_b_lane);
   kc0 is V^T's. */
/* (x2: lanes 16-31's addresses are ignored; the second load adds the 16 keys) */
static __device__ __forceinline__ int pv_b_lane(int lane)
{
    return v_ldsm_row(V_LDSM_X2 ? lane % (2 * LDSM_ROWS) : lane);
}
static __device__ __forceinline__ void pv_b_frags(uint32_t b[4], uint32_t sV_addr, int row_l, int kc0, int kk, int dd)
{
    (void)kc0;
#if V_LDSM_X2
    /* two x2 loads (keys 0-15, then 16-31 of the step), each permuted before the next */
    uint32_t r[2];
    ldmatrix_sync_aligned_m8n8_x2_trans_shared_b16(r, sV_addr + swz_v(kk * MMA_K + row_l, dd) * ELEM_BYTES);
    b[0] = __byte_perm(r[0], r[1], V_SEL_EVEN), b[2] = __byte_perm(r[0], r[1], V_SEL_ODD);
    ldmatrix_sync_aligned_m8n8_x2_trans_shared_b16(r,
                                                   sV_addr + swz_v(kk * MMA_K + 2 * MMA_N + row_l, dd) * ELEM_BYTES);
    b[1] = __byte_perm(r[0], r[1], V_SEL_EVEN), b[3] = __byte_perm(r[0], r[1], V_SEL_ODD);
#else
    uint32_t r[4];
    ldmatrix_sync_aligned_m8n8_x4_trans_shared_b16(r, sV_addr + swz_v(kk * MMA_K + row_l, dd) * ELEM_BYTES);
    b[0] = __byte_perm(r[0], r[1], V_SEL_EVEN), b[1] = __byte_perm(r[2], r[3], V_SEL_EVEN);
    b[2] = __byte_perm(r[0], r[1], V_SEL_ODD), b[3] = __byte_perm(r[2], r[3], V_SEL_ODD);
#endif
}
#endif

/* O += P V for the keys S covers (kc0: see pv_b_frags). */
static __device__ __forceinline__ void compute_pv_8bit(const float S[M_SLABS][S_FRAGS][4], float O[M_SLABS][O_FRAGS][4],
                                                       uint32_t sV_addr, int lane, int kc0)
{
    const uint32_t order = pv_p_order(lane);
    const int lb = pv_b_lane(lane); /* the lane's part of the B-fragment addresses */
#pragma unroll
    for (int kk = 0; kk < K_STEPS_PV; ++kk) {
        uint32_t a[M_SLABS][PV_A_WORDS];
        pv_a_frags(S, a, kk, order);
#pragma unroll
        for (int dd = 0; dd < O_FRAGS / 2; ++dd) {
            uint32_t b[4];
            pv_b_frags(b, sV_addr, lb, kc0, kk, dd);
#pragma unroll
            for (int sl = 0; sl < M_SLABS; ++sl) {
                PV_MMA(O[sl][2 * dd], a[sl], b[0], b[1]);
                PV_MMA(O[sl][2 * dd + 1], a[sl], b[2], b[3]);
            }
        }
    }
}
static __device__ __forceinline__ void compute_pv(const float S[M_SLABS][S_FRAGS][4], float O[M_SLABS][O_FRAGS][4],
                                                  uint32_t sV_addr, int lane)
{
    compute_pv_8bit(S, O, sV_addr, lane, 0);
}
#else
static __device__ __forceinline__ void compute_pv(const float S[M_SLABS][S_FRAGS][4], float O[M_SLABS][O_FRAGS][4],
                                                  uint32_t sV_addr, int lane)
{
#if LEAN_2STAGE
    const uint32_t lane_v = swz_lane_off((lane % LDSM_ROWS) + ((lane / LDSM_ROWS) & 1) * LDSM_ROWS,
                                         lane / (2 * LDSM_ROWS));
#endif
#pragma unroll
    for (int kk = 0; kk < K_STEPS_PV; ++kk) {
        uint32_t a[M_SLABS][4];
#pragma unroll
        for (int sl = 0; sl < M_SLABS; ++sl) {
            a[sl][0] = PACK_INPUT(S[sl][2 * kk][0], S[sl][2 * kk][1]);
            a[sl][1] = PACK_INPUT(S[sl][2 * kk][2], S[sl][2 * kk][3]);
            a[sl][2] = PACK_INPUT(S[sl][2 * kk + 1][0], S[sl][2 * kk + 1][1]);
            a[sl][3] = PACK_INPUT(S[sl][2 * kk + 1][2], S[sl][2 * kk + 1][3]);
        }
#pragma unroll
        for (int dd = 0; dd < O_FRAGS / 2; ++dd) {
            /* transposed matrices: (keys 0-7, d 0-7), (keys 8-15, d 0-7), (keys 0-7, d 8-15), (keys 8-15, d 8-15) */
            uint32_t b[4];
#if LEAN_2STAGE
            const uint32_t v_addr = swz_step_addr(sV_addr + lane_v, dd * CHUNKS_PER_K_STEP) + kk * MMA_K * ROW_BYTES;
#else
            int row = kk * MMA_K + (lane % LDSM_ROWS) + ((lane / LDSM_ROWS) & 1) * LDSM_ROWS;
            int ch = dd * CHUNKS_PER_K_STEP + (lane / (2 * LDSM_ROWS));
            const uint32_t v_addr = sV_addr + swz(row, ch) * ELEM_BYTES;
#endif
            ldmatrix_sync_aligned_m8n8_x4_trans_shared_b16(b, v_addr);
#pragma unroll
            for (int sl = 0; sl < M_SLABS; ++sl) {
                MMA_16816(O[sl][2 * dd], a[sl], b[0], b[1]);
                MMA_16816(O[sl][2 * dd + 1], a[sl], b[2], b[3]);
            }
        }
    }
}
#endif

/* 8-bit V rows: O's columns as compute_pv leaves them (fragment 2dd: 16dd + 2n, 2dd+1: 16dd + 2n + 1,
   so quad lane q holds columns 16dd + 4q .. 4q+3) back to the MMA order the merge and epilogues
   assume (2dd: 16dd + n, 2dd+1: 16dd + 8 + n; lane q holds 2q, 2q+1 and 8 + 2q, 9 + 2q). Lane q
   needs its low pair from quad lane q / 2 and its high pair from 2 + q / 2, the pair q % 2 of each:
   two shuffle rounds in which each lane sends one of its pairs (round A: its pair q / 2, read by
   lane ((q & 1) << 1) | (q >> 1); round B: the other, read by that lane ^ 2). Once per tile, after
   the key loop, with all lanes converged. */
#if V_ROWS_8BIT
static __device__ __forceinline__ void o_columns_to_std(float O[M_SLABS][O_FRAGS][4], int lane)
{
    const int q = lane & 3, hi = q >> 1, odd = q & 1;
    const int src_a = (lane & ~3) | (odd << 1) | hi, src_b = src_a ^ 2;
#pragma unroll
    for (int sl = 0; sl < M_SLABS; ++sl)
#pragma unroll
        for (int dd = 0; dd < O_FRAGS / 2; ++dd)
#pragma unroll
            for (int h = 0; h < 2; ++h) { /* accumulator row g, then g + 8 */
                /* pair 0: columns 4q, 4q+1; pair 1: 4q+2, 4q+3 (x: fragment 2dd, y: 2dd+1) */
                const float p0x = O[sl][2 * dd][2 * h], p0y = O[sl][2 * dd + 1][2 * h];
                const float p1x = O[sl][2 * dd][2 * h + 1], p1y = O[sl][2 * dd + 1][2 * h + 1];
                const float ax = __shfl_sync(FLASHC_FULL_WARP_MASK, hi ? p1x : p0x, src_a);
                const float ay = __shfl_sync(FLASHC_FULL_WARP_MASK, hi ? p1y : p0y, src_a);
                const float bx = __shfl_sync(FLASHC_FULL_WARP_MASK, hi ? p0x : p1x, src_b);
                const float by = __shfl_sync(FLASHC_FULL_WARP_MASK, hi ? p0y : p1y, src_b);
                O[sl][2 * dd][2 * h] = odd ? bx : ax; /* column 2q */
                O[sl][2 * dd][2 * h + 1] = odd ? by : ay;
                O[sl][2 * dd + 1][2 * h] = odd ? ax : bx; /* column 8 + 2q */
                O[sl][2 * dd + 1][2 * h + 1] = odd ? ay : by;
            }
}
#else
static __device__ __forceinline__ void o_columns_to_std(float (*O)[O_FRAGS][4], int lane) { (void)O, (void)lane; }
#endif

/* ---- Epilogue ------------------------------------------------------------------------------- */
static __device__ __forceinline__ uint32_t pack_output(float lo, float hi, flashc_dtype dt)
{
    return dt == FLASHC_DTYPE_BF16 ? cvt_rn_bf16x2_f32(lo, hi) : cvt_rn_f16x2_f32(lo, hi);
}

#if ROW_STEP_IO
/* Unpacked rows (row r of the tile is query m0 + r of head head_y): 16-byte chunk ch of the staged
   rows row0, row0 + rows_per_pass, ... (passes of them) to O, from one pointer and a row step. */
static __device__ __forceinline__ void store_o_rows(const sm80_fwd_params *prm, const fwd_ctx *c,
                                                    const uint16_t *sO, int row0, int ch, int rows_per_pass,
                                                    int passes)
{
    const flashc_problem *p = &prm->p;
    uint16_t *dst = (uint16_t *)p->o + (int64_t)c->bi * p->o_stride[0] +
                    (int64_t)(c->q_off + c->m0 + row0) * p->o_stride[1] + (int64_t)c->head_y * p->o_stride[2] + c->d0 +
                    ch * OUT_CHUNK_ELEMS;
    const int64_t step = (int64_t)rows_per_pass * p->o_stride[1];
#pragma unroll
    for (int it = 0; it < passes; ++it) {
        const int row = row0 + it * rows_per_pass;
        if (c->m0 + row < c->m_rows) *(uint4 *)(dst + it * step) = *(const uint4 *)(sO + swz_o(row, ch));
    }
}
#endif

/* A thread's rows at the end of the key loop: the normaliser of O (1 / sum; 8-bit: times V's
   descale) and the row's LSE (natural log, -inf for a row that saw no key), from the running max
   m (before mult) and the lane's share l of the sum. */
static __device__ __forceinline__ void finish_rows(const fwd_ctx *c, const float m[ROWS_PER_THREAD],
                                                   const float l[ROWS_PER_THREAD], float mult,
                                                   float inv[ROWS_PER_THREAD], float lse[ROWS_PER_THREAD])
{
#pragma unroll
    for (int k = 0; k < ROWS_PER_THREAD; ++k) {
        float sum = quad_sum(l[k]);
#if IS_8BIT
        inv[k] = sum > 0.f ? c->v_descale / sum : 0.f;
        lse[k] = sum > 0.f ? (m[k] * mult + log2f(sum) - P_EXP_OFFSET) * FLASHC_LN2 : -INFINITY;
#else
        inv[k] = sum > 0.f ? 1.f / sum : 0.f;
        lse[k] = sum > 0.f ? (m[k] * mult + log2f(sum)) * FLASHC_LN2 : -INFINITY;
#endif
    }
}

/* Split-KV partials: row ri's query row in the packed total_q, its f32 O row in the workspace and
   its LSE there. */
static __device__ __forceinline__ int64_t split_q_row(const flashc_problem *p, const fwd_ctx *c, fwd_row ri)
{
    return (p->q_varlen ? (int64_t)c->q_off : (int64_t)c->bi * p->s_q) + ri.i;
}
static __device__ __forceinline__ float *split_o_row(const sm80_fwd_params *prm, const fwd_ctx *c, fwd_row ri,
                                                     int64_t grow)
{
    return prm->ws_o + (((int64_t)c->split * prm->p.total_q + grow) * prm->p.h_q + ri.h) * D;
}
static __device__ __forceinline__ float *split_lse(const sm80_fwd_params *prm, const fwd_ctx *c, fwd_row ri,
                                                   int64_t grow)
{
    return prm->ws_lse + ((int64_t)c->split * prm->p.h_q + ri.h) * prm->p.total_q + grow;
}

/* The caller's LSE output of row ri (p->lse set, row valid). */
static __device__ __forceinline__ void store_lse(const flashc_problem *p, const fwd_ctx *c, fwd_row ri, float lse)
{
    p->lse[(int64_t)c->bi * p->lse_stride[0] + (int64_t)ri.h * p->lse_stride[1] + c->q_off + ri.i] = lse;
}

/* Normalise O, then either store it (out dtype, staged through smem for 16-byte rows) and LSE,
   or store the f32 partial and its LSE for the combine kernel. */
static __device__ __forceinline__ void epilogue(const sm80_fwd_params *prm, const fwd_ctx *c,
                                                float O[M_SLABS][O_FRAGS][4], const float m[ROWS_PER_THREAD],
                                                const float l[ROWS_PER_THREAD], float mult, uint16_t *sO, int warp,
                                                int lane, int tid)
{
    const flashc_problem *p = &prm->p;
    float inv[ROWS_PER_THREAD], lse[ROWS_PER_THREAD];
    finish_rows(c, m, l, mult, inv, lse);
    const int t = lane & 3;

    if (prm->num_splits > 1) {
#pragma unroll
        for (int k = 0; k < ROWS_PER_THREAD; ++k) {
            const fwd_row ri = row_info(prm, c, warp, lane, k);
            if (!ri.valid) continue;
            const int64_t grow = split_q_row(p, c, ri);
            float *dst = split_o_row(prm, c, ri, grow) + c->d0;
#pragma unroll
            for (int o = 0; o < O_FRAGS; ++o) {
                float2 v = make_float2(O[k >> 1][o][2 * (k & 1)] * inv[k], O[k >> 1][o][2 * (k & 1) + 1] * inv[k]);
                *(float2 *)(dst + o * MMA_N + 2 * t) = v;
            }
            if (t == 0 && c->d0 == 0) *split_lse(prm, c, ri, grow) = lse[k];
        }
        return;
    }

    /* Stage the tile in smem over the Q buffer (8-bit inputs: Q and the first K buffer); the
       caller's barrier ordered this after every read of those buffers (WARP_EPILOGUE: a warp
       writes only its own Q rows, which no other warp reads). */
#if EPI_STMATRIX
    /* lanes 8i..8i+7 address matrix i: rows 0-7 | 8-15 (i & 1) of fragment o + (i >> 1) */
    const uint32_t st_lane = cvta_to_shared_u32(sO) +
                             swz_lane_off(warp * WARP_ROWS + (lane % LDSM_ROWS) + ((lane / LDSM_ROWS) & 1) * MMA_ROW_HALF,
                                          lane / (2 * LDSM_ROWS));
#pragma unroll
    for (int sl = 0; sl < M_SLABS; ++sl) {
        const float i0 = inv[2 * sl], i1 = inv[2 * sl + 1];
#pragma unroll
        for (int o = 0; o < O_FRAGS; o += 2) {
            const uint32_t r[4] = {pack_output(O[sl][o][0] * i0, O[sl][o][1] * i0, p->out_dtype),
                                   pack_output(O[sl][o][2] * i1, O[sl][o][3] * i1, p->out_dtype),
                                   pack_output(O[sl][o + 1][0] * i0, O[sl][o + 1][1] * i0, p->out_dtype),
                                   pack_output(O[sl][o + 1][2] * i1, O[sl][o + 1][3] * i1, p->out_dtype)};
            stmatrix_sync_aligned_m8n8_x4_shared_b16(swz_step_addr(st_lane + sl * MMA_M * ROW_BYTES, o), r);
        }
    }
#endif
#pragma unroll
    for (int k = 0; k < ROWS_PER_THREAD; ++k) {
#if !EPI_STMATRIX
        int row = acc_row(warp, lane, k);
#pragma unroll
        for (int o = 0; o < O_FRAGS; ++o) {
            int col = o * MMA_N + 2 * t;
            uint32_t v = pack_output(O[k >> 1][o][2 * (k & 1)] * inv[k], O[k >> 1][o][2 * (k & 1) + 1] * inv[k],
                                     p->out_dtype);
            *(uint32_t *)(sO + swz_o(row, col / OUT_CHUNK_ELEMS) + col % OUT_CHUNK_ELEMS) = v;
        }
#endif
        if (p->lse && t == 0 && c->d0 == 0) {
            const fwd_row ri = row_info(prm, c, warp, lane, k);
            if (ri.valid) store_lse(p, c, ri, lse[k]);
        }
    }
#if WARP_EPILOGUE
    if (!prm->pack_gqa) { /* this warp's rows, WARP_LANES / OUT_ROW_CHUNKS of them per pass */
        __syncwarp();
        store_o_rows(prm, c, sO, warp * WARP_ROWS + lane / OUT_ROW_CHUNKS, lane % OUT_ROW_CHUNKS,
                     WARP_LANES / OUT_ROW_CHUNKS, WARP_ROWS * OUT_ROW_CHUNKS / WARP_LANES);
        return;
    }
#endif
    __syncthreads();
    uint16_t *out = (uint16_t *)p->o;
#if ROW_STEP_IO && NUM_THREADS % OUT_ROW_CHUNKS == 0
    if (!prm->pack_gqa) {
        store_o_rows(prm, c, sO, tid / OUT_ROW_CHUNKS, tid % OUT_ROW_CHUNKS, NUM_THREADS / OUT_ROW_CHUNKS,
                     OUT_CHUNKS_PER_THREAD);
        return;
    }
#endif
#pragma unroll
    for (int it = 0; it < OUT_CHUNKS_PER_THREAD; ++it) {
        int idx = tid + it * NUM_THREADS;
        int row = idx / OUT_ROW_CHUNKS, ch = idx % OUT_ROW_CHUNKS;
        int r = c->m0 + row;
        if (r >= c->m_rows) continue;
        int i = r / c->group;
        uint16_t *dst = out + (int64_t)c->bi * p->o_stride[0] + (int64_t)(c->q_off + i) * p->o_stride[1] +
                        (int64_t)row_head(prm, c, r) * p->o_stride[2] + c->d0 + ch * OUT_CHUNK_ELEMS;
        *(uint4 *)dst = *(const uint4 *)(sO + swz_o(row, ch));
    }
}

/* O, the row maxima and the row sums before the first key block */
static __device__ __forceinline__ void init_accumulators(float O[M_SLABS][O_FRAGS][4], float m[ROWS_PER_THREAD],
                                                         float l[ROWS_PER_THREAD])
{
#pragma unroll
    for (int sl = 0; sl < M_SLABS; ++sl)
#pragma unroll
        for (int o = 0; o < O_FRAGS; ++o) O[sl][o][0] = O[sl][o][1] = O[sl][o][2] = O[sl][o][3] = 0.f;
#pragma unroll
    for (int k = 0; k < ROWS_PER_THREAD; ++k) m[k] = -INFINITY, l[k] = 0.f;
}

/* factor from raw Q.K^T scores to log2 units in online_softmax (1 where score_transform already
   scaled them) */
static __device__ __forceinline__ float score_mult(const sm80_fwd_params *prm, const fwd_ctx *c)
{
#if IS_8BIT
    return prm->transform ? 1.f : prm->scale_log2 * c->qk_descale;
#else
    return prm->transform ? 1.f : prm->scale_log2;
#endif
}

#if !FWD_WARP_SPLIT_KEYS
/* S = Q.K_n^T, masked / transformed where the block needs it, then the online softmax (S becomes
   P, O and the row statistics are rescaled): everything of key block n but P.V. */
static __device__ __forceinline__ void block_scores(const sm80_fwd_params *prm, const fwd_ctx *c,
                                                    float S[M_SLABS][S_FRAGS][4], float O[M_SLABS][O_FRAGS][4],
                                                    float m[ROWS_PER_THREAD], float l[ROWS_PER_THREAD], float mult,
#if Q_IN_REGS
                                                    const uint32_t qf[K_STEPS_QK][QF_WORDS],
#endif
                                                    uint32_t sQ_addr, uint32_t sK_addr, int n, int warp, int lane)
{
    compute_qk(S,
#if Q_IN_REGS
               qf,
#endif
               sQ_addr, sK_addr, warp, lane);
    const int need_mask = block_needs_mask(prm, c, n);
#if FWD_LEAN_MASK
    if (prm->transform) score_transform(prm, c, S, n * BLOCK_N, warp, lane, need_mask);
    else if (need_mask) mask_scores(prm, c, S, n, warp, lane);
#else
    if (prm->transform || need_mask) score_transform(prm, c, S, n * BLOCK_N, warp, lane, need_mask);
#endif
    online_softmax(S, O, m, l, mult);
}
#endif

#if FWD_WARP_SPLIT_KEYS
#include "sm80/fwd_splitk.cuh"
#else
/* ---- Kernel --------------------------------------------------------------------------------- */
__global__ void __launch_bounds__(NUM_THREADS, MIN_CTAS_PER_SM) FWD_KERNEL(const __grid_constant__ sm80_fwd_params prm)
{
#if defined(FWD_ARCH_LACKS_E4M3) || defined(FWD_ARCH_SKIPPED)
    return;
#else
    TT_STAMP(TT_ENTRY);
    extern __shared__ __align__(128) elem_t smem[];
    elem_t *sQ = smem;
    elem_t *sK = sQ + TILE_Q_ELEMS;                    /* STAGES K tiles */
    elem_t *sV = sK + STAGES * TILE_KV_ELEMS;          /* STAGES V tiles (8-bit V^T: d x BLOCK_N) */
    const int tid = threadIdx.x, warp = tid >> 5, lane = tid & 31;

    fwd_ctx c;
    setup_ctx(&prm, &c);
    if (c.m0 >= c.m_rows) return;
    int b_lo, b_hi;
    key_block_range(&prm, &c, &b_lo, &b_hi);

    float O[M_SLABS][O_FRAGS][4];
    float m[ROWS_PER_THREAD], l[ROWS_PER_THREAD];
    init_accumulators(O, m, l);
    const float mult = score_mult(&prm, &c);
#if Q_FROM_F16_COPY
    uint16_t *sQh = (uint16_t *)((char *)smem + KV_RING_END_BYTES); /* Q.K^T reads Q from here */
    const uint32_t sQ_addr = cvta_to_shared_u32(sQh);
#else
    const uint32_t sQ_addr = cvta_to_shared_u32(sQ);
#endif
    const int count = b_hi - b_lo;
#if FWD_SKIP_IDLE_WARPS
    /* A warp whose rows all lie past the sequence (decode: 4 of 64 rows are real) skips the math;
       it still issues its share of the loads and meets every barrier. Its O and l stay 0. */
    const int warp_active = c.m0 + warp * WARP_ROWS < c.m_rows;
#endif

    if (count > 0) {
#if Q_IN_REGS
        uint32_t qf[K_STEPS_QK][QF_WORDS];
#endif
#if LEAN_2STAGE
        const kv_bases kvb = kv_cta_bases(&prm, &c);
#elif LEAN_8BIT
        const lean_bases kvb = lean_cta_bases(&prm, &c);
#endif
#if FWD_KV_STAGGER
        /* Q and K of the last key block, then per block: K_n landed -> copy V_n -> S = Q.K_n^T,
           softmax -> V_n landed -> copy K_n-1 -> O += P.V_n. One group is in flight at each
           wait, so every wait is for all of them. */
        load_q_tile(&prm, &c, sQ, tid);
        load_kv_tile_fast(&prm, &c, kvb, cvta_to_shared_u32(sK), cvta_to_shared_u32(sV), b_hi - 1, tid, KV_PART_K);
        cp_async_commit_group();
        for (int it = 0; it < count; ++it) {
            const int n = b_hi - 1 - it;
            CP_ASYNC_WAIT_GROUP(0);
            /* K_n landed for every thread; every warp is done with V_n+1 (P.V of the last block) */
            __syncthreads();
            TT_STAMP_LOOP(it, count);
            load_kv_tile_fast(&prm, &c, kvb, cvta_to_shared_u32(sK), cvta_to_shared_u32(sV), n, tid, KV_PART_V);
            cp_async_commit_group();
#if Q_IN_REGS
            if (it == 0) {
#pragma unroll
                for (int kk = 0; kk < K_STEPS_QK; ++kk) load_qf(qf[kk], sQ_addr, warp, lane, kk);
            }
#endif
            float S[M_SLABS][S_FRAGS][4];
            block_scores(&prm, &c, S, O, m, l, mult,
#if Q_IN_REGS
                         qf,
#endif
                         sQ_addr, cvta_to_shared_u32(sK), n, warp, lane);
            CP_ASYNC_WAIT_GROUP(0);
            /* V_n landed for every thread; every warp is done with K_n */
            __syncthreads();
            if (it + 1 < count)
                load_kv_tile_fast(&prm, &c, kvb, cvta_to_shared_u32(sK), cvta_to_shared_u32(sV), n - 1, tid,
                                  KV_PART_K);
            cp_async_commit_group();
            compute_pv(S, O, cvta_to_shared_u32(sV), lane);
        }
#else
        /* Prologue: Q and the first STAGES-1 key blocks (highest first), one group each. */
#if !FWD_Q_AFTER_KV
        load_q_tile(&prm, &c, sQ, tid);
#endif
#pragma unroll
        for (int s = 0; s < STAGES - 1; ++s) {
            if (s < count) {
#if LEAN_2STAGE
                if (FWD_FAST_KV_ONLY || kv_fast_ok(&prm))
                    load_kv_tile_fast(&prm, &c, kvb, cvta_to_shared_u32(sK + s * TILE_KV_ELEMS),
                                      cvta_to_shared_u32(sV + s * TILE_KV_ELEMS), b_hi - 1 - s, tid, KV_PART_BOTH);
                else
#endif
#if FWD_PAGE_SUB
                    load_kv_tile_sub(&prm, &c, sK + s * TILE_KV_ELEMS, sV + s * TILE_KV_ELEMS, b_hi - 1 - s, tid,
                                     prefetch_page_id(&prm, &c, b_hi - 1 - s, warp, lane));
#elif LEAN_8BIT
                    load_kv_lean(&prm, &c, kvb, sK + s * TILE_KV_ELEMS, sV + s * TILE_KV_ELEMS, b_hi - 1 - s, tid);
#else
                    load_kv_tile(&prm, &c, sK + s * TILE_KV_ELEMS, sV + s * TILE_KV_ELEMS, b_hi - 1 - s, tid,
                                 prefetch_page_id(&prm, &c, b_hi - 1 - s, warp, lane));
#endif
            }
#if FWD_Q_AFTER_KV
            if (s == 0) load_q_tile(&prm, &c, sQ, tid); /* in the first group, after K/V's copies */
#endif
            cp_async_commit_group();
        }
#if PREFETCH_NEXT_Q
        prefetch_next_q(&prm, tid);
#endif
#if !LEAN_8BIT
        /* paged: pages of the next block to copy, looked up one iteration ahead */
        int page_ids = STAGES - 1 < count ? prefetch_page_id(&prm, &c, b_hi - STAGES, warp, lane) : 0;
#endif
        for (int it = 0; it < count; ++it) {
            const int n = b_hi - 1 - it, stage = it % STAGES;
            CP_ASYNC_WAIT_GROUP(STAGES - 2);
#if Q_FROM_F16_COPY
            if (it == 0) q_to_f16_smem(sQ, sQh, tid); /* this thread's Q chunks landed; the barrier follows */
#endif
            /* Block `it` landed for every thread, and every warp is done with block it-1's buffers. */
            __syncthreads();
            TT_STAMP_LOOP(it, count);
            {
                int nxt = it + STAGES - 1;
                if (nxt < count) {
                    int ns = nxt % STAGES;
#if LEAN_2STAGE
                    if (FWD_FAST_KV_ONLY || kv_fast_ok(&prm))
                        load_kv_tile_fast(&prm, &c, kvb, cvta_to_shared_u32(sK + ns * TILE_KV_ELEMS),
                                          cvta_to_shared_u32(sV + ns * TILE_KV_ELEMS), b_hi - 1 - nxt, tid,
                                          KV_PART_BOTH);
                    else
#endif
#if FWD_PAGE_SUB
                        load_kv_tile_sub(&prm, &c, sK + ns * TILE_KV_ELEMS, sV + ns * TILE_KV_ELEMS, b_hi - 1 - nxt,
                                         tid, page_ids);
#elif LEAN_8BIT
                        load_kv_lean(&prm, &c, kvb, sK + ns * TILE_KV_ELEMS, sV + ns * TILE_KV_ELEMS, b_hi - 1 - nxt,
                                     tid);
#else
                        load_kv_tile(&prm, &c, sK + ns * TILE_KV_ELEMS, sV + ns * TILE_KV_ELEMS, b_hi - 1 - nxt, tid,
                                     page_ids);
#endif
                }
                cp_async_commit_group(); /* possibly empty: keeps the group count uniform */
#if !LEAN_8BIT
                if (nxt + 1 < count) page_ids = prefetch_page_id(&prm, &c, b_hi - 2 - nxt, warp, lane);
#endif
            }
#if FWD_SKIP_IDLE_WARPS
            if (!warp_active) continue;
#endif
#if Q_IN_REGS
            if (it == 0) {
#pragma unroll
                for (int kk = 0; kk < K_STEPS_QK; ++kk) load_qf(qf[kk], sQ_addr, warp, lane, kk);
            }
#endif
            float S[M_SLABS][S_FRAGS][4];
            block_scores(&prm, &c, S, O, m, l, mult,
#if Q_IN_REGS
                         qf,
#endif
                         sQ_addr, cvta_to_shared_u32(sK + stage * TILE_KV_ELEMS), n, warp, lane);
            compute_pv(S, O, cvta_to_shared_u32(sV + stage * TILE_KV_ELEMS) + V_COL_BYTES(c), lane);
        }
#endif /* FWD_KV_STAGGER */
    }
    /* No copy may still target smem, and every warp is past its last ldmatrix of Q/K/V (with
       WARP_EPILOGUE each warp overwrites only its own Q rows; the packed-GQA store syncs). */
    CP_ASYNC_WAIT_GROUP(0);
#if !WARP_EPILOGUE
    __syncthreads();
#endif
    TT_STAMP(TT_LOOP_DONE);
    o_columns_to_std(O, lane);
    /* the output tile (16-bit) is staged over Q and, for 8-bit inputs, the first K buffer */
    epilogue(&prm, &c, O, m, l, mult, (uint16_t *)sQ, warp, lane, tid);
    TT_STAMP_END(count);
#endif
}

#endif /* FWD_WARP_SPLIT_KEYS */

/* ---- Launcher ------------------------------------------------------------------------------- */
extern "C" cudaError_t FWD_SYM(const sm80_fwd_params *prm, int grid_m, int grid_h, int grid_z,
                                cudaStream_t stream)
{
    cudaError_t e = cudaFuncSetAttribute(FWD_KERNEL, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM_BYTES);
    if (e != cudaSuccess) return e;
#if STAGES > 2 || FWD_KV_STAGGER
    /* deep and staggered variants count on two CTAs per SM: ask for the whole unified L1/smem as smem (the
       loads bypass L1 anyway, cp.async.cg) */
    e = cudaFuncSetAttribute(FWD_KERNEL, cudaFuncAttributePreferredSharedMemoryCarveout, cudaSharedmemCarveoutMaxShared);
    if (e != cudaSuccess) return e;
#endif
    FWD_KERNEL<<<dim3(grid_m * D_SPLIT, grid_h, grid_z), NUM_THREADS, SMEM_BYTES, stream>>>(*prm);
    return cudaGetLastError();
}

#if FWD_TILE_TIMING
/* Dev only: sets (buf != NULL) or clears the tile-timing buffer of this variant (see "Tile
   timing"); buf holds TT_WORDS u64 per CTA of the launches that follow, zeroed by the caller. */
extern "C" __attribute__((visibility("default"))) cudaError_t FWD_CAT(FWD_SYM, _tile_timing)(void *buf)
{
    return cudaMemcpyToSymbol(FWD_CAT(FWD_SYM, _tt_buf), &buf, sizeof buf);
}
#endif
extern "C" int FWD_CAT(FWD_SYM, _smem_bytes)(void) { return SMEM_BYTES; }
extern "C" int FWD_CAT(FWD_SYM, _block_n)(void) { return BLOCK_N; }
extern "C" int FWD_CAT(FWD_SYM, _block_m)(void) { return BLOCK_M; }
/* the lowest compute capability (x 10) whose kernel has a body: FWD_MIN_ARCH, e4m3's 89, else 80 */
extern "C" int FWD_CAT(FWD_SYM, _min_cc)(void)
{
#if defined(FWD_MIN_ARCH)
    return FWD_MIN_ARCH / 10;
#elif defined(FWD_E4M3)
    return SM80_E4M3_MIN_ARCH / 10;
#else
    return SM80_MIN_ARCH / 10;
#endif
}
