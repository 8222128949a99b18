/*
 * sm80 path, host side: the launch.h contract (check / workspace size / forward).
 * Picks the (dtype, head dim, rows per CTA) variant, whether to pack the query heads of a KV head into one tile
 * (GQA packing: K/V are read once per KV head), and how many key splits fill the GPU (split-KV,
 * merged by sm80_combine.cu). The plan depends only on shapes and the device, so workspace size
 * and forward always agree.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include "launch.h"
#include "sm80/sm80_fwd.h"

#define SM80_MIN_CC_MAJOR 8
#define SM80_E4M3_MIN_CC (SM80_E4M3_MIN_ARCH / 10) /* mma / cvt e4m3: sm_89+ */
#define SM80_LOG2E 1.4426950408889634f
#define SM80_MAX_GRID_YZ 65535
#define SM80_CTAS_PER_SM_TARGET 2      /* resident CTAs per SM the split heuristic aims to fill */
#define SM80_MIN_BLOCKS_PER_SPLIT 2    /* a split below this many key blocks costs more than it gains */
#define SM80_SPLIT_EFFICIENCY 0.85     /* take the fewest splits within this of the best wave fill */
#define SM80_WS_ALIGN 256
#define SM80_MAX_BLOCK_N 256           /* key-block sizes of the variants (fwd_kernel.cuh BLOCK_N) */
#define SM80_MIN_BLOCK_N 32
#define SM80_CP_ASYNC_CHUNK_BYTES 16   /* one cp.async copy: a V^T chunk must start at a multiple */

static int sm80_is_8bit(const flashc_problem *p)
{
    return p->in_dtype == FLASHC_DTYPE_FP8_E4M3 || p->in_dtype == FLASHC_DTYPE_INT8;
}

/* 8-bit V given sequence-innermost (V^T); 8-bit V in K's layout takes the _vr twins instead */
static int sm80_vt(const flashc_problem *p)
{
    return sm80_is_8bit(p) && p->v_transposed;
}

typedef cudaError_t (*sm80_fwd_fn)(const sm80_fwd_params *, int, int, int, cudaStream_t);

typedef struct sm80_plan {
    sm80_fwd_fn fn;
    int variant;                    /* its index in k_variants */
    int block_m, block_n, smem;
    int page_sub_shift;             /* a page-sub variant (FWD_PAGE_SUB): log2(page_size); else 0 */
    int pack, group;
    int grid_m, grid_h, splits;
    int split_keys;                 /* a split-key tile (fwd_splitk.cuh) */
    int rows_per_cta;               /* packed rows each CTA writes: block_m, or half the rows (row halves) */
} sm80_plan;

/* Rows (query rows x packed heads) from which the 128-row tile is used: below, most of it would
   be padding (decode), and the 64-row tile keeps MMA work per byte of K/V low. */
#define SM80_BIG_TILE_MIN_ROWS 128
#define SM80_SMALL_TILE_M 64

/* Deep variants (64-row tiles with a 3-4 stage K/V ring, FWD_STAGES, for decode) are compiled for
   sm_90 only (d128's 112 KB exceeds sm_86/89's smem); they are taken where SM80_DEEP_CTAS_PER_SM of
   them fit the opt-in (sm_90: 227 KB), because a deeper ring at one CTA per SM would keep fewer
   bytes in flight, not more. Measured on the H200: decode 3.3 -> 4.2 TB/s; the same rings on the
   128-row prefill tiles were not faster, so those have none. */
#define SM80_DEEP_MIN_CC 90
#define SM80_DEEP_CTAS_PER_SM 2
#define SM80_SMEM_PER_SM_RESERVED 1024 /* the runtime's per-CTA shared-memory reservation */
#define SM80_MAX_CTAS_PER_SM 2
/* CTAs of `smem` bytes that one SM holds at once (by shared memory; at most SM80_MAX_CTAS_PER_SM) */
static int sm80_resident_ctas(const flashc_device_info *dev, int smem)
{
    const int per_sm = (dev->max_smem_optin + SM80_SMEM_PER_SM_RESERVED) / (smem + SM80_SMEM_PER_SM_RESERVED);
    return per_sm < 1 ? 1 : per_sm > SM80_MAX_CTAS_PER_SM ? SM80_MAX_CTAS_PER_SM : per_sm;
}

typedef struct sm80_variant {
    flashc_dtype dt;
    int d, block_m;
    int kind;       /* SM80_KIND_*: plain, deep ring (page-sub), lean-mask / fast-loader twins, split keys */
    sm80_fwd_fn fn;
    int (*smem)(void);
    int (*block_n)(void);
    const char *name; /* the launcher's symbol, for the launch counts (flashc_sm80_variant_launches) */
    int v_rows;       /* 8-bit: 1 for V in K's layout (the _vr twins, FWD_V_ROWS), 0 for V^T */
    int (*min_cc)(void); /* lowest compute capability x 10 its kernel has a body for (FWD_MIN_ARCH) */
} sm80_variant;

#define SM80_KIND_PLAIN 0
#define SM80_KIND_DEEP 1
#define SM80_KIND_DEEP_PAGE_SUB 2
#define SM80_KIND_LEAN_MASK 3
#define SM80_KIND_SPLIT_KEYS 4
#define SM80_KIND_FAST_KV 5
#define SM80_KIND_LEAN_MASK_FAST_KV 6
#define SM80_KIND_SPLIT_KEYS_PAGE_SUB 7
#define SM80_KIND_KV_STAGGER 8
#define SM80_KIND_TWO_SLAB 9           /* FA2's d128 geometry (fast loader only), see sm80_two_slab */
#define SM80_KIND_TWO_SLAB_LEAN_MASK 10 /* the same with the lean mask */
#define SM80_KIND_8BIT_TWO_SLAB 11      /* 8-bit 128-row prefill tiles, see sm80_8bit_two_slab */
#define SM80_KIND_SPLIT_KEYS_PAGE16 12  /* 8-bit split-key twins for pages of 16 keys (_sk_pg16) */
#define SM80_KIND_DEEP_FAST_KV 13       /* 16-bit deep rings' lean-loader twins (_s<S>_f), non-paged K/V */
#define SM80_KIND_SPLIT_KEYS_FAST_KV 14 /* split-key tiles' lean-loader twins (_sk_f), see sm80_sk_fast_ok */
#define SM80_KIND_SPLIT_KEYS_WHOLE_PAGES 15 /* their whole-page twins (_sk_wp), see sm80_sk_wp_ok */
#define SM80_KIND_8BIT_FAST_KV 16       /* lean-loader twins (_f) of 8-bit 128-row tiles, see sm80_8bit_fast_ok */
#define SM80_KIND_8BIT_LEAN_MASK_FAST_KV 17 /* their lean-mask twins (_lm_f), see sm80_8bit_lean_mask */
#define SM80_VARIANT_NAMED(dtype, dd, mm, kind, name) \
    {dtype, dd, mm, kind, name, name##_smem_bytes, name##_block_n, #name, 0, name##_min_cc}
#define SM80_VARIANT(dtype, dt, dd, mm) SM80_VARIANT_NAMED(dtype, dd, mm, SM80_KIND_PLAIN, flashc_sm80_fwd_##dt##_d##dd##_m##mm)
#define SM80_VARIANT_N(dtype, dt, dd, mm, nn) \
    SM80_VARIANT_NAMED(dtype, dd, mm, SM80_KIND_PLAIN, flashc_sm80_fwd_##dt##_d##dd##_m##mm##_n##nn)
#define SM80_VARIANT_DEEP(dtype, dt, dd, mm, st) \
    SM80_VARIANT_NAMED(dtype, dd, mm, SM80_KIND_DEEP, flashc_sm80_fwd_##dt##_d##dd##_m##mm##_s##st)
#define SM80_VARIANT_DEEP_F(dtype, dt, dd, mm, st) \
    SM80_VARIANT_NAMED(dtype, dd, mm, SM80_KIND_DEEP_FAST_KV, flashc_sm80_fwd_##dt##_d##dd##_m##mm##_s##st##_f)
#define SM80_VARIANT_DEEP_PG(dtype, dt, dd, mm, st) \
    SM80_VARIANT_NAMED(dtype, dd, mm, SM80_KIND_DEEP_PAGE_SUB, flashc_sm80_fwd_##dt##_d##dd##_m##mm##_s##st##_pg)
/* Lean-mask twins (FWD_LEAN_MASK) of the 8-warp tiles, taken only for causal / windowed problems:
   H200 bf16 causal +21 / +7 % (d128, 512 / 2k) and +7 / +3 % (d256), but the same code in the
   non-causal kernel moved ptxas' allocation of the unmasked loop and cost 2.6-3 % (d128) and
   1.4 % (d256) there, so non-causal problems keep the plain kernel. d64's single tile carries
   the lean mask for both (no measurable non-causal cost). */
#define SM80_VARIANT_N_LM(dtype, dt, dd, mm, nn) \
    SM80_VARIANT_NAMED(dtype, dd, mm, SM80_KIND_LEAN_MASK, flashc_sm80_fwd_##dt##_d##dd##_m##mm##_n##nn##_lm)
/* Split-key decode tiles (fwd_splitk.cuh, sm_90 like the deep rings): BLOCK_M rows shared by the
   4 warps, each warp a quarter of every key block, so a decode block's math is spread over all
   warps instead of the one or two with real rows. Taken for rows <= BLOCK_M (16-bit: 32, 8-bit:
   16), non-paged or with pages holding whole key blocks; page-sub pages go to the _pg variants,
   other paged layouts to the 64-row deep ring (per-row page path). H200: 8-bit s_q 1 +48 %,
   16-bit 32 rows +20 %; 16-bit rows <= 16 on non-paged K/V +2-8 % (b 64, h 32/8, 4k / 8k s_q 1:
   +2.0 / +3.6 %; b 8 32k +2.8 %; b 128 MHA +5-8 %). Paged with pages of 64 it lost 7 % to the
   deep ring while it copied whole-block pages with the general loader; since they take its lean
   loader from a per-block base (sk_block_bases) it wins there: b 64 h 32/8 8k s_q 1, pages of 64
   3957 -> 4228 GB/s (+6.8 %), pages of 256 3960 -> 4281 (flashc_bench). So paged 16-bit rows <= 16
   take it when pages hold whole blocks (others: the deep ring's page-sub twins or per-row path);
   dev hook FLASHC_SM80_SK_WHOLE_PAGES=0 keeps them on the 64-row deep ring, for A/B.
   8-bit 17-64 rows take 32-row tiles of two 16-row warp groups (SM80_SK32_ROWS_8BIT; a warp of two
   16-row slabs spilled 4-120 bytes) or, where those would pad more, up to four 16-row CTAs per KV
   head (grid_m 2-4, adjacent in launch order, so the later ones read K/V mostly from L2; see
   SM80_SPLIT_KEYS_MAX_TILES_8BIT); the 64-row ring left each block's math to two warps. 8-bit
   pages of 16-64 keys (2^k, splitting a 128-key block) take the split-key page-sub twins (_sk_pg,
   FWD_PAGE_SUB; pages of 16: _sk_pg16, see below). 16-bit ones keep the deep ring's page-sub
   twins up to 16 rows, where split-key twins of them read the same (H200 bf16 b 64 h 32/8 8k,
   pages of 16: 4257 against 4265 GB/s; pages of 8: -1.8 %); 17-32 rows take those twins (_sk_pg,
   see sm80_sk_pg_16bit). Whole-block pages take the _sk_wp twins (sm80_sk_wp_ok). */
#define SM80_SPLIT_KEYS_MIN_ROWS_16BIT_PAGED 16
/* 8-bit 33-64 rows (s_q 5-8 with 8 query heads per KV head: speculative decoding) on up to four
   16-row split-key CTAs per KV head instead of the 64-row deep ring, whose block math sits on the
   warps that hold rows. H200 (session 13, ab80 AB_SHAPES=deep8, b 32 h 64/8 8k, fp8 / int8):
   40 rows +49 / +41 % contiguous, +45 / +40 % pages of 256; 64 rows +16 / +12 %, +12 / +9 %.
   Pages of 16 keys: 40 rows +5 / +2 %, 64 rows -19 / -20 %, so three tiles at most there.
   (-D overrides for A/B.) */
#ifndef SM80_SPLIT_KEYS_MAX_TILES_8BIT
#define SM80_SPLIT_KEYS_MAX_TILES_8BIT 4
#endif
#ifndef SM80_SPLIT_KEYS_MAX_TILES_16BIT
#define SM80_SPLIT_KEYS_MAX_TILES_16BIT 1
#endif
#ifndef SM80_SPLIT_KEYS_MAX_TILES_8BIT_PAGE16
#define SM80_SPLIT_KEYS_MAX_TILES_8BIT_PAGE16 3
#endif
/* 8-bit 32-row split-key tiles (_m32_sk: two 16-row groups of two warps, each warp half of every
   128-key block, FWD_SK_ROW_GROUPS), non-paged or whole-block pages: one CTA reads each K/V block
   for 32 rows, where two 16-row CTAs read it twice (the second mostly from L2). Taken where their
   padded rows are no more than the 16-row tiles' (17-32 and 49-64 rows), at most
   SM80_SK32_MAX_TILES_8BIT per KV head. H200 (session 14, ab80 AB_SHAPES=sk32, fp8 / int8 d128):
   b 8 h 64/8 32k s_q 3-4 +10 / +15 % contiguous, +14 / +20 % pages of 256; b 64 h 32/8 8k s_q 5
   (20 rows) +15 / +22 %; b 32 h 64/8 8k s_q 8 (64 rows) +17 / +27 %; s_q 5 (40 rows) on two of
   them -10 / -3 % against three 16-row tiles, hence the padding rule. Small problems lose: b 8
   h 64/8 4k s_q 4 -7 % (8 key blocks per CTA slot of the GPU, against 62+ in the rows above: a
   32-row CTA's start, merge and combine share weigh more), so they take the 32-row tile only
   from SM80_SK32_MIN_BLOCKS_PER_SLOT key blocks of work per slot. Session 15 (ab80 AB_SHAPES=sk32t
   and single rows, the _sk_f twins, fp8 / int8 h 64/8 s_q 4): 8 and 16 blocks per slot -4 to -8 %,
   23 (b 24 4k, b 12 8k, b 8 12k) -3.0 / +2.9 / +1.3 % fp8, 31 (b 32 4k, b 8 16k, b 16 8k) +7.2 /
   +4.5 / +1.3 % fp8, +9.4 / +2.6 / -0.5 % int8: the threshold sits between 23 and 31. Pages of
   16-64 keys take the tile's page-sub twins (_m32_sk_pg, pages of 32 / 64; _m32_sk_pg16, pages of
   16 with V^T row pairs), under the same rule. Session 17 (ab80 AB_SHAPES=sk32 / deep8), against
   two 16-row page-sub CTAs per KV head: b 8 h 64/8 32k s_q 3-4, fp8 / int8, pages of 16 +32 / +35 %,
   32 +29 / +31 %, 64 +20 / +25 % (fp8 pages of 64: 2.75 -> 3.32 TB/s); 64 rows with pages of 16
   (four 16-row tiles: the deep ring before) +6-13 % / +9 %. (A 32-row tile of 64-key blocks that
   takes pages of 64 whole was no faster there, and 7-10 % slower contiguous.)
   int8 d128 spills 4 bytes (255 registers; its _sk_f twin does not), measured with it. Dev hook
   FLASHC_SM80_SK32=0: the 16-row tiles only, for A/B. */
#define SM80_SK_ROWS_8BIT 16
#define SM80_SK32_ROWS_8BIT 32
#define SM80_SK32_MAX_TILES_8BIT 2
#define SM80_SK32_MIN_BLOCKS_PER_SLOT 24
/* Fast-loader-only twins (FWD_FAST_KV_ONLY, _f) of d64 m128 and of the 8-warp tiles (their
   non-causal kernels; _lm_f: their lean-mask kernels), taken when the kernel's kv_fast_ok holds
   (fast_kv_ok below): the general K/V loader, never run there, cost the schedule of the whole
   kernel 0.7-4 % (H200 bf16, docs/sm80.md prefill80c). Paged or unequal-stride prefill keeps the
   general tiles (_lm for causal / windowed). */
#define SM80_VARIANT_F(dtype, dd, mm, name) SM80_VARIANT_NAMED(dtype, dd, mm, SM80_KIND_FAST_KV, name)
#define SM80_VARIANT_LM_F(dtype, dd, mm, name) SM80_VARIANT_NAMED(dtype, dd, mm, SM80_KIND_LEAN_MASK_FAST_KV, name)
#define SM80_VARIANT_SK(dtype, dt, dd, mm) \
    SM80_VARIANT_NAMED(dtype, dd, mm, SM80_KIND_SPLIT_KEYS, flashc_sm80_fwd_##dt##_d##dd##_m##mm##_sk)
/* Lean-loader twins of the split-key tiles (FWD_SK_FAST, _sk_f), listed before each: see sm80_sk_fast_ok */
#define SM80_VARIANT_SK_F(dtype, dt, dd, mm) \
    SM80_VARIANT_NAMED(dtype, dd, mm, SM80_KIND_SPLIT_KEYS_FAST_KV, flashc_sm80_fwd_##dt##_d##dd##_m##mm##_sk_f)
#define SM80_VARIANT_SK_PG(dtype, dt, dd, mm) \
    SM80_VARIANT_NAMED(dtype, dd, mm, SM80_KIND_SPLIT_KEYS_PAGE_SUB, flashc_sm80_fwd_##dt##_d##dd##_m##mm##_sk_pg)
/* Whole-page lean-loader twins of the split-key tiles (FWD_SK_WHOLE_PAGES, _sk_wp), listed before each
   _sk_f: see sm80_sk_wp_ok */
#define SM80_VARIANT_SK_WP(dtype, dt, dd, mm) \
    SM80_VARIANT_NAMED(dtype, dd, mm, SM80_KIND_SPLIT_KEYS_WHOLE_PAGES, flashc_sm80_fwd_##dt##_d##dd##_m##mm##_sk_wp)
/* The 8-bit d128 16-row split-key tile's wide twins (fwd_<dt>_d128_m16_sk8*: 8 warps, 256-key blocks,
   one CTA per SM), whole-page, lean-loader and general, listed before the 4-warp tiles: see
   sm80_sk_wide */
#define SM80_VARIANT_SK8(dtype, dt)                                                                         \
    SM80_VARIANT_NAMED(dtype, 128, 16, SM80_KIND_SPLIT_KEYS_WHOLE_PAGES, flashc_sm80_fwd_##dt##_d128_m16_sk8_wp), \
        SM80_VARIANT_NAMED(dtype, 128, 16, SM80_KIND_SPLIT_KEYS_FAST_KV, flashc_sm80_fwd_##dt##_d128_m16_sk8_f), \
        SM80_VARIANT_NAMED(dtype, 128, 16, SM80_KIND_SPLIT_KEYS, flashc_sm80_fwd_##dt##_d128_m16_sk8)
/* 8-bit pages of exactly 16 keys: a V^T row of a page is one 16-byte chunk, so two rows share each
   32-byte sector, and the _sk_pg layout (rows a V^T row apart in shared memory) made LDGSTS fetch
   every sector twice (Nsight Compute: 1.5x the L2-to-SM sectors). The _sk_pg16 twins store V^T as
   row pairs (FWD_VT_ROW_PAIRS). H200 fp8 / int8 b 64 h 32/8 8k s_q 1: 3.11 -> 3.75 TB/s; the same
   layout at pages of 64 lost 17 %, so those keep _sk_pg. */
#define SM80_PAGE16_SHIFT 4
#define SM80_VARIANT_SK_PG16(dtype, dt, dd, mm) \
    SM80_VARIANT_NAMED(dtype, dd, mm, SM80_KIND_SPLIT_KEYS_PAGE16, flashc_sm80_fwd_##dt##_d##dd##_m##mm##_sk_pg16)
/* FA2's d128 geometry, 128 rows x 64 keys in 4 warps of two slabs (see sm80_two_slab); tail: _f / _lm_f */
#define SM80_VARIANT_2S(dtype, dt, tail, kind) \
    SM80_VARIANT_NAMED(dtype, 128, 128, kind, flashc_sm80_fwd_##dt##_d128_m128_n64##tail)
/* the staggered d256 tile (see SM80_KV_STAGGER_MAX_KEYS) */
#define SM80_VARIANT_KV(dtype, dt) \
    SM80_VARIANT_NAMED(dtype, 256, 64, SM80_KIND_KV_STAGGER, flashc_sm80_fwd_##dt##_d256_m64_n64_kv)
/* Per (dtype, head dim): preferred first (larger tile, then deeper ring; a page-sub variant before
   its twin). The 8-warp 128-row tiles (_n<keys>: d128 128 x 128, d256 128 x 64; H200 bf16 prefill
   +2-7 % and +4-15 % over the 4-warp ones) need 160 / 192 KB of smem: where the opt-in is smaller
   (sm_86/89: 99 KB; A100: 163 KB, for d256) the 4-warp tile after them is taken. */
/* 8-bit runs listed in both 8-bit lists below (V^T, then the _vr twins): the split-key page-sub tiles
   of 32 and 16 rows (pages of 32-64 keys; V rows: 16-64), the 32-row split-key tiles' whole-page,
   lean-loader and general tiles, and the prefill and 64-row tiles (see sm80_8bit_two_slab; d64 /
   d128 two-slab, int8 d64 only as the lean-loader twins: its general tile lost everywhere; d256 8
   warps), each after its lean-mask (_lm_f) and lean-loader (_f) twins. */
/* The tiles of mm rows that list macro V names, for fp8 and int8 at d64 and d128 */
#define SM80_8BIT_D64_D128(V, mm) \
    V(FLASHC_DTYPE_FP8_E4M3, e4m3, 64, mm), V(FLASHC_DTYPE_FP8_E4M3, e4m3, 128, mm), V(FLASHC_DTYPE_INT8, int8, 64, mm), \
        V(FLASHC_DTYPE_INT8, int8, 128, mm)
/* The fp8 and int8 128-row prefill tiles of head dim dd and one kind (symbol suffix sfx) */
#define SM80_8BIT_PAIR_M128(dd, kind, sfx) \
    SM80_VARIANT_NAMED(FLASHC_DTYPE_FP8_E4M3, dd, 128, kind, flashc_sm80_fwd_e4m3_d##dd##_m128##sfx), \
        SM80_VARIANT_NAMED(FLASHC_DTYPE_INT8, dd, 128, kind, flashc_sm80_fwd_int8_d##dd##_m128##sfx)
#define SM80_8BIT_SK_PG32 \
    SM80_8BIT_D64_D128(SM80_VARIANT_SK_PG, 32),
#define SM80_8BIT_SK_PG16_ROWS \
    SM80_8BIT_D64_D128(SM80_VARIANT_SK_PG, 16),
#define SM80_8BIT_SK32 \
    SM80_8BIT_D64_D128(SM80_VARIANT_SK_WP, 32), \
    SM80_8BIT_D64_D128(SM80_VARIANT_SK_F, 32), \
    SM80_8BIT_D64_D128(SM80_VARIANT_SK, 32),
#define SM80_8BIT_PREFILL \
    SM80_8BIT_PAIR_M128(64, SM80_KIND_8BIT_LEAN_MASK_FAST_KV, _lm_f), \
    SM80_8BIT_PAIR_M128(128, SM80_KIND_8BIT_LEAN_MASK_FAST_KV, _lm_f), \
    SM80_8BIT_PAIR_M128(64, SM80_KIND_8BIT_FAST_KV, _f), \
    SM80_8BIT_PAIR_M128(128, SM80_KIND_8BIT_FAST_KV, _f), \
    SM80_VARIANT_NAMED(FLASHC_DTYPE_FP8_E4M3, 64, 128, SM80_KIND_8BIT_TWO_SLAB, flashc_sm80_fwd_e4m3_d64_m128), \
    SM80_8BIT_PAIR_M128(128, SM80_KIND_8BIT_TWO_SLAB, ), \
    SM80_8BIT_D64_D128(SM80_VARIANT, 64), \
    SM80_8BIT_PAIR_M128(256, SM80_KIND_8BIT_LEAN_MASK_FAST_KV, _lm_f), \
    SM80_8BIT_PAIR_M128(256, SM80_KIND_8BIT_FAST_KV, _f), \
    SM80_8BIT_PAIR_M128(256, SM80_KIND_8BIT_TWO_SLAB, ), \
    SM80_VARIANT(FLASHC_DTYPE_FP8_E4M3, e4m3, 256, 64), SM80_VARIANT(FLASHC_DTYPE_INT8, int8, 256, 64),
/* A 16-bit head dim's decode tiles, after its prefill tiles: split-key page-sub, deep-ring page-sub
   (st stages), split-key whole-page, lean-loader and general, deep-ring lean-loader and general,
   then the 64-row tile. */
#define SM80_16BIT_DECODE(dtype, dt, dd, st) \
    SM80_VARIANT_SK_PG(dtype, dt, dd, 32), SM80_VARIANT_DEEP_PG(dtype, dt, dd, 64, st), \
        SM80_VARIANT_SK_WP(dtype, dt, dd, 32), SM80_VARIANT_SK_F(dtype, dt, dd, 32), SM80_VARIANT_SK(dtype, dt, dd, 32), \
        SM80_VARIANT_DEEP_F(dtype, dt, dd, 64, st), SM80_VARIANT_DEEP(dtype, dt, dd, 64, st), SM80_VARIANT(dtype, dt, dd, 64)
/* The 16-bit list of one dtype: f16 and bf16 have the same tiles, in the same order. */
#define SM80_16BIT_VARIANTS(dtype, dt) \
    SM80_VARIANT_LM_F(dtype, 64, 128, flashc_sm80_fwd_##dt##_d64_m128_lm_f), \
    SM80_VARIANT_NAMED(dtype, 64, 128, SM80_KIND_LEAN_MASK, flashc_sm80_fwd_##dt##_d64_m128_lm), \
    SM80_VARIANT_F(dtype, 64, 128, flashc_sm80_fwd_##dt##_d64_m128_f), \
    SM80_VARIANT(dtype, dt, 64, 128), \
    SM80_16BIT_DECODE(dtype, dt, 64, 4), \
    SM80_VARIANT_2S(dtype, dt, _lm_f, SM80_KIND_TWO_SLAB_LEAN_MASK), \
    SM80_VARIANT_2S(dtype, dt, _f, SM80_KIND_TWO_SLAB), \
    SM80_VARIANT_LM_F(dtype, 128, 128, flashc_sm80_fwd_##dt##_d128_m128_n128_lm_f), \
    SM80_VARIANT_N_LM(dtype, dt, 128, 128, 128), \
    SM80_VARIANT_F(dtype, 128, 128, flashc_sm80_fwd_##dt##_d128_m128_n128_f), \
    SM80_VARIANT_N(dtype, dt, 128, 128, 128), \
    SM80_VARIANT(dtype, dt, 128, 128), \
    SM80_16BIT_DECODE(dtype, dt, 128, 3), \
    SM80_VARIANT_KV(dtype, dt), \
    SM80_VARIANT_LM_F(dtype, 256, 128, flashc_sm80_fwd_##dt##_d256_m128_n64_lm_f), \
    SM80_VARIANT_N_LM(dtype, dt, 256, 128, 64), \
    SM80_VARIANT_F(dtype, 256, 128, flashc_sm80_fwd_##dt##_d256_m128_n64_f), \
    SM80_VARIANT_N(dtype, dt, 256, 128, 64), \
    SM80_VARIANT(dtype, dt, 256, 64),
static const sm80_variant k_variants[] = {
    SM80_16BIT_VARIANTS(FLASHC_DTYPE_F16, f16)
    SM80_16BIT_VARIANTS(FLASHC_DTYPE_BF16, bf16)
#if FLASHC_SM80_ENABLE_8BIT
    SM80_8BIT_D64_D128(SM80_VARIANT_SK_PG16, 32),
    SM80_8BIT_SK_PG32
    SM80_8BIT_D64_D128(SM80_VARIANT_SK_PG16, 16),
    SM80_8BIT_SK_PG16_ROWS
    SM80_VARIANT_NAMED(FLASHC_DTYPE_INT8, 128, 32, SM80_KIND_SPLIT_KEYS_FAST_KV, flashc_sm80_fwd_int8_d128_m32_sk8_f),
    SM80_8BIT_SK32
    SM80_VARIANT_SK_WP(FLASHC_DTYPE_FP8_E4M3, e4m3, 64, 16),
    SM80_VARIANT_DEEP_PG(FLASHC_DTYPE_FP8_E4M3, e4m3, 64, 64, 8), SM80_VARIANT_SK_F(FLASHC_DTYPE_FP8_E4M3, e4m3, 64, 16), SM80_VARIANT_SK(FLASHC_DTYPE_FP8_E4M3, e4m3, 64, 16), SM80_VARIANT_DEEP(FLASHC_DTYPE_FP8_E4M3, e4m3, 64, 64, 8),
    SM80_VARIANT_SK8(FLASHC_DTYPE_FP8_E4M3, e4m3),
    SM80_VARIANT_SK_WP(FLASHC_DTYPE_FP8_E4M3, e4m3, 128, 16),
    SM80_VARIANT_DEEP_PG(FLASHC_DTYPE_FP8_E4M3, e4m3, 128, 64, 6), SM80_VARIANT_SK_F(FLASHC_DTYPE_FP8_E4M3, e4m3, 128, 16), SM80_VARIANT_SK(FLASHC_DTYPE_FP8_E4M3, e4m3, 128, 16), SM80_VARIANT_DEEP(FLASHC_DTYPE_FP8_E4M3, e4m3, 128, 64, 6),
    SM80_VARIANT_SK_WP(FLASHC_DTYPE_INT8, int8, 64, 16),
    SM80_VARIANT_DEEP_PG(FLASHC_DTYPE_INT8, int8, 64, 64, 8),     SM80_VARIANT_SK_F(FLASHC_DTYPE_INT8, int8, 64, 16), SM80_VARIANT_SK(FLASHC_DTYPE_INT8, int8, 64, 16), SM80_VARIANT_DEEP(FLASHC_DTYPE_INT8, int8, 64, 64, 8),
    SM80_VARIANT_SK8(FLASHC_DTYPE_INT8, int8),
    SM80_VARIANT_SK_WP(FLASHC_DTYPE_INT8, int8, 128, 16),
    SM80_VARIANT_DEEP_PG(FLASHC_DTYPE_INT8, int8, 128, 64, 6),    SM80_VARIANT_SK_F(FLASHC_DTYPE_INT8, int8, 128, 16), SM80_VARIANT_SK(FLASHC_DTYPE_INT8, int8, 128, 16), SM80_VARIANT_DEEP(FLASHC_DTYPE_INT8, int8, 128, 64, 6),
    SM80_8BIT_PREFILL
/* V-rows twins (_vr, FWD_V_ROWS: 8-bit V in K's layout, v_transposed = 0), in the order of the V^T
   list above so that the same rules pick among them (pick_variant matches v_rows to the layout);
   the list and run (SM80_8BIT_*) macros are reused with SM80_VARIANT_NAMED naming the _vr symbol.
   No twins of the deep rings (s6 / s8 and their page-sub twins: those rows take the 64-row tile)
   nor of the _pg16 tiles (a V^T layout; pages of 16 take _sk_pg_vr). */
#undef SM80_VARIANT_NAMED
#define SM80_VARIANT_NAMED(dtype, dd, mm, kind, name) \
    {dtype, dd, mm, kind, name##_vr, name##_vr_smem_bytes, name##_vr_block_n, #name "_vr", 1, name##_vr_min_cc}
    SM80_8BIT_SK_PG32
    SM80_8BIT_SK_PG16_ROWS
    SM80_8BIT_SK32
    SM80_VARIANT_SK_WP(FLASHC_DTYPE_FP8_E4M3, e4m3, 64, 16), SM80_VARIANT_SK_F(FLASHC_DTYPE_FP8_E4M3, e4m3, 64, 16),
    SM80_VARIANT_SK(FLASHC_DTYPE_FP8_E4M3, e4m3, 64, 16),
    SM80_VARIANT_SK8(FLASHC_DTYPE_FP8_E4M3, e4m3),
    SM80_VARIANT_SK_WP(FLASHC_DTYPE_FP8_E4M3, e4m3, 128, 16), SM80_VARIANT_SK_F(FLASHC_DTYPE_FP8_E4M3, e4m3, 128, 16),
    SM80_VARIANT_SK(FLASHC_DTYPE_FP8_E4M3, e4m3, 128, 16),
    SM80_VARIANT_SK_WP(FLASHC_DTYPE_INT8, int8, 64, 16), SM80_VARIANT_SK_F(FLASHC_DTYPE_INT8, int8, 64, 16),
    SM80_VARIANT_SK(FLASHC_DTYPE_INT8, int8, 64, 16),
    SM80_VARIANT_SK8(FLASHC_DTYPE_INT8, int8),
    SM80_VARIANT_SK_WP(FLASHC_DTYPE_INT8, int8, 128, 16), SM80_VARIANT_SK_F(FLASHC_DTYPE_INT8, int8, 128, 16),
    SM80_VARIANT_SK(FLASHC_DTYPE_INT8, int8, 128, 16),
    SM80_8BIT_PREFILL
#endif
};
#define SM80_NUM_VARIANTS ((int)(sizeof k_variants / sizeof k_variants[0]))

/* Successful launches per variant since the library loaded: the tests' route coverage (a tile the
   grid stopped reaching, as the 8-bit 32-row tiles did for four sessions, shows up as zero). */
static unsigned long long k_variant_launches[SM80_NUM_VARIANTS];

/* Successful launches as row halves (sm80_row_halves), for the tests */
static unsigned long long k_row_halves_launches;
extern "C" unsigned long long flashc_sm80_row_halves_launches(void)
{
    return __atomic_load_n(&k_row_halves_launches, __ATOMIC_RELAXED);
}

extern "C" int flashc_sm80_variant_launches(int i, const char **name, unsigned long long *launches)
{
    if (i >= 0 && i < SM80_NUM_VARIANTS) {
        if (name) *name = k_variants[i].name;
        if (launches) *launches = __atomic_load_n(&k_variant_launches[i], __ATOMIC_RELAXED);
    }
    return SM80_NUM_VARIANTS;
}

/* Page-sub variants: paged KV whose pages of 2^k keys split a key block into whole pages, stored as
   page_size rows each (page stride = page_size x row stride, for K and for V unless V^T), so key
   row j of page id g is virtual row g * page_size + j (total_k = num_pages * page_size < 2^31).
   8-bit: a V^T chunk of 16 keys must stay in one page. Returns k, or 0. */
#define SM80_PAGE_SUB_MIN_KEYS 8
#define SM80_PAGE_SUB_MIN_KEYS_8BIT 16
static int page_sub_shift(const flashc_problem *p, int block_n)
{
    const int is8 = sm80_is_8bit(p);
    if (p->kv_layout != FLASHC_KV_PAGED || p->k_stride[0] != (int64_t)p->page_size * p->k_stride[1] ||
        (!p->v_transposed && p->v_stride[0] != (int64_t)p->page_size * p->v_stride[1]))
        return 0;
    for (int k = 0; (1 << k) < block_n; ++k)
        if (p->page_size == 1 << k && p->page_size >= (is8 ? SM80_PAGE_SUB_MIN_KEYS_8BIT : SM80_PAGE_SUB_MIN_KEYS))
            return k;
    return 0;
}

/* fwd_kernel.cuh's kv_fast_ok on the host: non-paged K/V, a block's row offsets fit 32 bits, equal
   row strides (d >= 128 keeps one K base for V too: all strides equal). */
static int fast_kv_ok(const flashc_problem *p, int block_n)
{
    return p->kv_layout != FLASHC_KV_PAGED && p->k_stride[1] == p->v_stride[1] &&
           p->k_stride[1] <= INT32_MAX / block_n &&
           (p->d < 128 || (p->k_stride[0] == p->v_stride[0] && p->k_stride[2] == p->v_stride[2]));
}

/* fwd_kernel.cuh's lean_kv_ok on the host, for the twins that copy K/V with load_kv_lean only:
   non-paged K/V and, 8-bit V^T, every V^T chunk of 16 keys 16-byte aligned: the base and the outer
   strides are validated (flashc_validate_gpu), so the d-row stride must be a multiple of 16 bytes
   and the keys of a sequence must start at 0 (no varlen K, whose sequences start anywhere in the
   row). A layout rule, so the plan still depends on the layout only; the twins have their tiles'
   geometry, so the split count and the workspace do not change. */
static int lean_loader_ok(const flashc_problem *p)
{
    if (p->kv_layout == FLASHC_KV_PAGED) return 0;
    return !sm80_vt(p) || (p->kv_layout != FLASHC_KV_VARLEN && p->v_stride[2] % SM80_CP_ASYNC_CHUNK_BYTES == 0);
}

/* The split-key tiles' lean-loader twins (_sk_f). Dev hook (not API): FLASHC_SM80_SK_FAST=0 keeps
   the general tiles, for A/B. */
static int sm80_sk_fast_ok(const flashc_problem *p)
{
    const char *e = getenv("FLASHC_SM80_SK_FAST");
    if (e && atoi(e) == 0) return 0;
    return lean_loader_ok(p);
}

/* The lean-loader twins of the 8-bit 128-row tiles (_f, _lm_f: the split-key tiles' loader in the
   row-split body, the general loader compiled out; docs/sm80.md session 19). Dev hook (not API): FLASHC_SM80_8BIT_FAST=0 keeps the general tiles, for A/B. */
static int sm80_8bit_fast_ok(const flashc_problem *p)
{
    const char *e = getenv("FLASHC_SM80_8BIT_FAST");
    if (e && atoi(e) == 0) return 0;
    return lean_loader_ok(p);
}

/* Every 16-key V^T chunk of a page-sub tile starts 16-byte aligned (pages of 2^k >= 16 keys; the
   base and the outer strides are validated, flashc_validate_gpu): the split-key page-sub loader has
   no gather path. A stride, not the pointer, so the plan still depends on the layout only. */
static int vt_chunks_aligned(const flashc_problem *p)
{
    return p->v_stride[0] % SM80_CP_ASYNC_CHUNK_BYTES == 0 && p->v_stride[1] % SM80_CP_ASYNC_CHUNK_BYTES == 0 &&
           p->v_stride[2] % SM80_CP_ASYNC_CHUNK_BYTES == 0;
}

/* fwd_splitk.cuh's sk_whole_pages_ok on the host, for the whole-page lean-loader twins (_sk_wp):
   paged K/V whose pages hold whole key blocks (a block lies in one page, addressed from that page's
   base like a contiguous cache) and, 8-bit, V^T chunks 16-byte aligned. The general tile, its other
   loaders compiled in, ran such pages 7-8 % below the contiguous cache's _sk_f twin (bf16 b 8 h 64/8
   32k, pages of 64 / 256: 3.93-3.97 against 4.27-4.30 TB/s). Session 18, H200 ab80, against it:
   bf16 pages of 256 +4.3-5.4 % (4.15 TB/s), pages of 64 +3 % with two CTAs per SM (see
   split_ctas_per_sm); fp8 / int8 pages of 256 at 32 rows +4.1-6.3 %, at 8 rows +0.8-2.9 %, b 64
   h 32/8 8k +0-0.7 %. Dev hook (not API): FLASHC_SM80_SK_WP=0 keeps the general tiles, for A/B. */
static int sm80_sk_wp_ok(const flashc_problem *p, int block_n)
{
    const char *e = getenv("FLASHC_SM80_SK_WP");
    if (e && atoi(e) == 0) return 0;
    return p->kv_layout == FLASHC_KV_PAGED && p->page_size % block_n == 0 && (!sm80_vt(p) || vt_chunks_aligned(p));
}

/* 16-bit split-key page-sub twins (_sk_pg: pages of 2^k keys splitting a key block) for more than
   SM80_SK_PG_MIN_ROWS_16BIT packed rows (s_q 3-4 with 8 query heads per KV head: speculative
   decoding), where the 64-row deep ring's page-sub twin leaves each block's math to the two warps
   that hold rows (H200 bf16 b 8 h 64/8 32k s_q 4, pages of 16: 3.73 TB/s against 4.27 contiguous on
   the split-key tile). Session 18, H200 ab80, at two CTAs per SM (split_ctas_per_sm; at one they
   lost 5-22 %), against the deep ring: bf16 d128 b 8 h 64/8 32k, pages of 16 at 32 rows +8.3 %
   (3.72 -> 4.03 TB/s), pages of 8 / 32 at 24 rows +4.8 / +8.7 %, d64 pages of 16 +23 %. At <= 16 rows
   they read the same as the deep ring (session 8: pages of 16 -0.4 %, 8 -2.1 %), which keeps those.
   Dev hook (not API): FLASHC_SM80_SK_PG16BIT=0 never, =1 at any row count the tile holds, for A/B. */
#define SM80_SK_PG_MIN_ROWS_16BIT 16
static int sm80_sk_pg_16bit(long long rows)
{
    const char *e = getenv("FLASHC_SM80_SK_PG16BIT");
    if (e) return atoi(e) == 1;
    return rows > SM80_SK_PG_MIN_ROWS_16BIT;
}

/* The staggered d256 tile (64 x 64 keys, 4 warps, one K and one V buffer copied in turn,
   FWD_KV_STAGGER: FlashAttention-2's d256 schedule) runs two CTAs per SM where the opt-in holds
   two. H200 bf16 against the 8-warp 128 x 64 tile: causal +12 / +6.5 / +2.7 / -0.6 / -3.4 % at
   512 / 1k / 2k / 4k / 8k, non-causal -4.4 to -4.7 % at every length. So it takes causal
   problems of at most SM80_KV_STAGGER_MAX_KEYS keys, where the 8-warp tile's fixed cost per tile
   (one CTA per SM) is the larger share. */
#define SM80_KV_STAGGER_MAX_KEYS 2048
#define SM80_KV_STAGGER_CTAS_PER_SM 2

/* Dev hook (not API): FLASHC_SM80_KV_STAGGER=1 sends every non-paged d256 prefill to the staggered
   tile, =0 none, for A/B and tests; unset: the rule above. Read on every call. */
static int sm80_kv_stagger(const flashc_problem *p, const flashc_device_info *dev, int smem)
{
    const char *e = getenv("FLASHC_SM80_KV_STAGGER");
    if (e) return atoi(e) == 1;
    return p->causal && p->s_k <= SM80_KV_STAGGER_MAX_KEYS && SM80_KV_STAGGER_CTAS_PER_SM * smem <= dev->max_smem_optin;
}

/* FlashAttention-2's d128 geometry (4 warps x 2 row slabs x 64 keys, 96 KB) at two CTAs per SM,
   against the 8-warp 128 x 128-key tile at one. The 8-warp tile's warps each read a whole K and V
   block through ldmatrix for 16 rows (0.125 B of smem per MAC; Nsight Compute on the H200: L1/smem
   the busiest unit at 63 %, 0.45 eligible warps per scheduler); two slabs per warp halve that.
   H200 bf16: non-causal +10.9 / +8.1 / +5.9 / +4.5 / +3.8 % at 512 / 1k / 2k / 4k / 8k, causal
   +6.3 / +4.3 / +2.1 / +0.5 / -1.0 %. ptxas spills 80-92 bytes (255 registers, a few loads of
   loop-invariant addresses per key block, L1 hits), measured with them. So: non-causal at every
   length, causal / windowed up to SM80_TWO_SLAB_MAX_KEYS_MASKED keys. */
#define SM80_TWO_SLAB_MAX_KEYS_MASKED 2048
#define SM80_TWO_SLAB_CTAS_PER_SM 2
#define SM80_TWO_SLAB_MIN_CC 90 /* the variants' FWD_MIN_ARCH 900: empty bodies below sm_90 */

/* Dev hook (not API): FLASHC_SM80_TWO_SLAB=1 sends every d128 16-bit prefill the tile can take
   (non-paged, equal strides, >= 128 rows) to it wherever two CTAs fit, =0 none (the 8-warp tile),
   for A/B and tests; unset: the rule above. Read on every call. */
static int sm80_two_slab(const flashc_problem *p, const flashc_device_info *dev, int smem)
{
    if (dev->cc_major * 10 + dev->cc_minor < SM80_TWO_SLAB_MIN_CC || SM80_TWO_SLAB_CTAS_PER_SM * smem > dev->max_smem_optin)
        return 0;
    const char *e = getenv("FLASHC_SM80_TWO_SLAB");
    if (e) return atoi(e) == 1;
    const int masked = p->causal || p->window_left >= 0 || p->window_right >= 0;
    return !masked || p->s_k <= SM80_TWO_SLAB_MAX_KEYS_MASKED;
}

/* Two-slab 8-bit prefill tiles (128 rows x 32 keys in 4 warps of two 16-row slabs: each K / V^T
   fragment read from smem feeds both slabs) against the 64-row tiles. On sm_90 an e4m3 m16n8k32
   is two HMMA.16816 plus conversions, and the two-slab loop issues 34.7 instructions per MMA
   against 48.5. H200 (bf16 output, V^T; both sides before mma_e4m3_via_f16, which later added
   3-24 % to every fp8 tile), at 512 / 2k / 8k: fp8 d64 non-causal +22 / +20 / +20 %,
   causal -21 / +6.6 / +15 %; fp8 d128 +15 / +20 / +23 %, causal -26 / +3.0 / +13 %; int8 d128
   +13 / +20 / +23 %, causal -31 / -1.4 / +14 %; int8 d64 -3 % non-causal and -6 to -37 % causal
   (no tile built). Short causal loses because 128-row tiles halve the CTAs and the diagonal
   leaves more of each idle. So: non-causal at every length, causal / windowed from
   SM80_8BIT_TWO_SLAB_MIN_KEYS_MASKED keys, on sm_90 only (sm_89's native e4m3 mma.sync is
   unmeasured: Ada keeps the 64-row tiles).
   d256 (session 19): 8 warps of 16 rows with all 256 O columns per CTA (fwd_<dt>_d256_m128*),
   where the 64-row tile splits O's columns over two CTAs that both compute S (1.5x the MMA work):
   H200 fp8 / int8 non-causal +52-76 % (general loader), +99-107 % (_f twin), causal +30-52 %
   (general) and +74-84 % (_f) at 512-2k, where the 64-row tile ran: every length, masked or not.
   The lean-loader twins (_f, sm80_8bit_fast_ok) move the masked threshold too: fp8 d128 causal
   512 / 1k +13 / +21 %, int8 d128 +9 / +19 / +31 % at 512 / 1k / 2k, fp8 d64 -8 / +6 % at 512 / 1k
   over the 64-row tiles; so _f tiles take masked problems from SM80_8BIT_LEAN_MIN_KEYS_MASKED_D64
   keys at fp8 d64 and at every length at d128. int8 d64 has lean-loader twins only (session 20):
   over the 64-row tile non-causal +9-16 % at 512-16k, causal (_lm_f) +16-20 % at 1k-16k and
   +23.5 % at 512, so they take every length. */
#define SM80_8BIT_TWO_SLAB_MIN_KEYS_MASKED_E4M3 2048
#define SM80_8BIT_TWO_SLAB_MIN_KEYS_MASKED_INT8 4096
#define SM80_8BIT_LEAN_MIN_KEYS_MASKED_D64 1024
#define SM80_8BIT_TWO_SLAB_MIN_CC 90

/* Dev hook (not API): FLASHC_SM80_8BIT_TWO_SLAB=1 sends every 8-bit prefill the tiles take (>= 128
   rows, d64 e4m3, d128, d256) to them, =0 none; unset: the rule above. Read on every call.
   lean: the tile is a lean-loader twin (_f, _lm_f). */
static int sm80_8bit_two_slab(const flashc_problem *p, const flashc_device_info *dev, int lean)
{
    const char *e = getenv("FLASHC_SM80_8BIT_TWO_SLAB");
    if (e) return atoi(e) == 1;
    if (dev->cc_major * 10 + dev->cc_minor < SM80_8BIT_TWO_SLAB_MIN_CC) return 0;
    const int masked = p->causal || p->window_left >= 0 || p->window_right >= 0;
    if (!masked || p->d == 256) return 1;
    if (lean) return p->d != 64 || p->in_dtype == FLASHC_DTYPE_INT8 || p->s_k >= SM80_8BIT_LEAN_MIN_KEYS_MASKED_D64;
    return p->s_k >= (p->in_dtype == FLASHC_DTYPE_INT8 ? SM80_8BIT_TWO_SLAB_MIN_KEYS_MASKED_INT8
                                                       : SM80_8BIT_TWO_SLAB_MIN_KEYS_MASKED_E4M3);
}

/* Lean-mask twins of the 8-bit _f tiles (_lm_f: mask_scores and the FWD_LPT_TAIL launch order, as the
   16-bit lean-mask tiles), for causal / windowed problems. Dev hook (not API):
   FLASHC_SM80_8BIT_LEAN_MASK=0 keeps them on the _f tiles, for A/B. */
static int sm80_8bit_lean_mask(void)
{
    const char *e = getenv("FLASHC_SM80_8BIT_LEAN_MASK");
    return !(e && atoi(e) == 0);
}

/* Dev hook (not API): FLASHC_SM80_SK_WHOLE_PAGES=0 sends paged 16-bit decode of <= 16 rows to the
   deep ring, as before the split-key tile's whole-block-page loader (see the split-key note). */
static int sm80_sk_whole_pages(void)
{
    const char *e = getenv("FLASHC_SM80_SK_WHOLE_PAGES");
    return !(e && atoi(e) == 0);
}

/* 8-bit rows for the 32-row split-key tiles: more than 16, padded to 32s no more than to 16s, and
   enough key blocks of work per CTA slot (see SM80_SK32_ROWS_8BIT; the tile cap is checked with the
   others). Dev hook FLASHC_SM80_SK32=0: never, =1: whatever the work. */
static int sm80_sk32_rows(const flashc_problem *p, const flashc_device_info *dev, long long rows, int block_n)
{
    const char *e = getenv("FLASHC_SM80_SK32");
    if (e && atoi(e) == 0) return 0;
    const long long tiles = (rows + SM80_SK32_ROWS_8BIT - 1) / SM80_SK32_ROWS_8BIT;
    const long long pad16 = (rows + SM80_SK_ROWS_8BIT - 1) / SM80_SK_ROWS_8BIT * SM80_SK_ROWS_8BIT;
    if (rows <= SM80_SK_ROWS_8BIT || tiles * SM80_SK32_ROWS_8BIT > pad16) return 0;
    if (e && atoi(e) == 1) return 1;
    const long long blocks = (long long)p->b * p->h_kv * tiles * ((p->s_k + block_n - 1) / block_n);
    return blocks >= (long long)SM80_SK32_MIN_BLOCKS_PER_SLOT * dev->num_sms * SM80_CTAS_PER_SM_TARGET;
}

/* The wide 8-bit split-key tiles (_m16_sk8*: 8 warps share 16 rows, each an eighth of every 256-key
   block; 196 KB, one CTA per SM) for at most 16 rows per KV head and at least
   SM80_SK_WIDE_MIN_KEYS_PER_SM keys per SM (b x h_kv x s_k / SMs: the key range each CTA streams
   once the splits fill the GPU). One 4-warp CTA streams about 31 GB/s per SM and 8 copy warps 48
   (read_ceiling, session 34). H200 (session 35, ab80 AB_SHAPES=wide8, h 32/8, s_q 1 / 4, fp8 and
   int8 alike, GB/s against the 4-warp tiles): 4k keys b 48-128 +2-7.5 % (fp8 b 128 4007 -> 4125),
   8k b 24-128 +3.3-7.1 % (b 64 3965 -> 4152, b 96-128 4220-4270), 32k b 8 / 16 +2.7-4.9 %, b 16 8k
   +2.5-3.7 %, pages of 256 +2.3-3.5 %; b 16-32 4k (4-8k keys per SM) -0.6 to +1.6 %; b 8 h 64/8 4k
   (2k keys per SM, split keys of 8 blocks) -0.5 to -1.7 % at s_q 1 and -9 to -14 % as two tiles of
   32 rows (session 34), where the ring's fill and drain of 256-key blocks is exposed. Dev hook (not
   API): FLASHC_SM80_SK_WIDE=0 never, =1 wherever the tile holds the rows (up to 16, and 17-32 as the
   pair below where the 32-row tile is not taken). */
#define SM80_SK_WIDE_MIN_KEYS_PER_SM 6144
#define SM80_SK_WIDE_BLOCK_N 256
/* 17-32 rows as a pair of wide CTAs per KV head (grid_m 2, each 16 rows), one CTA per SM, where the
   32-row tile is not taken (fewer than SM80_SK32_MIN_BLOCKS_PER_SLOT key blocks per slot) and the
   pairs, 2 x b x h_kv CTAs, fill one wave of the SMs to between SM80_SK_WIDE_PAIR_MIN_FILL and 1:
   one unsplit wave, no combine grid, where the rule's 4-warp tiles run two per SM in two key splits
   plus the combine. H200 (session 50, ab80, d128 h 64/8 against the rule): b 8 4k s_q 4 fp8 +6.6 %
   (2108 -> 2248 GB/s), V rows +6.3 %, s_q 3 +7.0 / +4.9 %, int8 +5.8 / +6.3 %, pages of 256
   +2.7 / +1.1 %, 8k -0.3 to +3.1 %, 12k +1.5 %, h 32/8 s_q 8 4k +7.2 %. Grids past one wave lose
   (b 16 4k, 256 CTAs, -9 to -11 %; b 12 4k -2.7 %), and so do grids of half a wave, whose keys split
   to fill it (b 4 8k / 16k -2.6 / -2.8 %); where the 32-row tile runs, two wide readers of each block
   lose 10-23 % to its one. */
#define SM80_SK_WIDE_PAIR_MIN_FILL 0.9
static int sm80_sk_wide_pair(const flashc_problem *p, const flashc_device_info *dev)
{
    const long long ctas = 2LL * p->b * p->h_kv;
    return ctas <= dev->num_sms && (double)ctas >= SM80_SK_WIDE_PAIR_MIN_FILL * dev->num_sms;
}

/* Row halves: 8-bit 2-16 rows as two wide CTAs per KV head, each computing one 16-row tile from row
   x * ceil(rows / 2) and writing its half (fwd_kernel.cuh FWD_SK_ROW_HALVES), where the pairs fill
   one wave (sm80_sk_wide_pair): one unsplit wave at one CTA per SM, where the rule's tiles split the
   keys (4-warp tiles in two splits, or from SM80_SK_WIDE_MIN_KEYS_PER_SM one wide CTA per KV head in
   two) and combine; the second CTA of a pair reads K/V mostly from L2. H100 (session 53, ab80,
   d128 h 64/8 b 8, against the rule; bench/results/2026-12-05-h100-row-halves-ab.txt): fp8 4k
   s_q 1 / 2 +7.2 / +6.3 % (V rows +2.8 %), int8 s_q 1 +8.1 %, V rows s_q 2 +3.8 %, pages of 256
   +5.5 %, 8k / 12k / 16k / 32k +4.5 / +4.4 / +3.0 / +2.3 %; on every grid (b 64 h 32/8 4k, two
   waves of pairs) -6.4 %. Dev hook (not API): FLASHC_SM80_ROW_HALVES=0 never, =1 wherever the wide
   tile holds the rows, unset or 2: the rule. */
static int sm80_row_halves(const flashc_problem *p, const flashc_device_info *dev, long long rows)
{
    const char *e = getenv("FLASHC_SM80_ROW_HALVES");
    const int mode = e ? atoi(e) : 2;
    if (mode <= 0 || rows < 2 || rows > SM80_SK_ROWS_8BIT) return 0;
    return mode == 1 || sm80_sk_wide_pair(p, dev);
}

/* The wide 32-row tile (int8 d128 _m32_sk8_f: two 16-row groups of 4 warps, each warp a quarter of
   every 256-key block; 8 warps, one CTA per SM) for 17-32 rows (one tile per KV head) wherever the
   32-row tile's rule holds and its lean loader does (non-paged V^T rows of 16-byte multiples); the
   others keep the 4-warp tile, which runs two CTAs per SM, one streaming faster than the other
   (session 41). H200 (session 55, ab80 against FLASHC_SM80_SK32_WIDE=0, h 64/8 s_q 4, GB/s;
   bench/results/2026-12-06-h200-sk32-wide-ab.txt): int8 b 8 32k 3456 -> 3664 (+6.0 %), b 32 8k
   +2.4 %; fp8 b 8 32k s_q 4 / 3 +0.9 / +1.0 %, 16k +0.5 %, b 16 16k +2.5 %, b 32 8k -2.0 % (no
   fp8 twin: at 32 rows fp8 is bound by its f16 HMMAs, twice int8's k32 IMMAs, not by the stream;
   docs/sm80.md "Session 55"); 64 rows as two tiles (fp8 b 64 h 32/8
   / b 32 h 64/8 s_q 8 8k) -4.2 / -8.3 %; pages of 256 (a whole-page twin) fp8 -0.1 %, int8 -3.1 %,
   so neither is built. Dev hook FLASHC_SM80_SK32_WIDE=0: the 4-warp tile, for A/B. */
static int sm80_sk32_wide(long long rows)
{
    const char *e = getenv("FLASHC_SM80_SK32_WIDE");
    return rows <= SM80_SK32_ROWS_8BIT && !(e && atoi(e) == 0);
}

static int sm80_sk_wide(const flashc_problem *p, const flashc_device_info *dev, long long rows)
{
    const char *e = getenv("FLASHC_SM80_SK_WIDE");
    if (rows > 2 * SM80_SK_ROWS_8BIT) return 0;
    if (e) return atoi(e) == 1;
    if (rows > SM80_SK_ROWS_8BIT) return sm80_sk_wide_pair(p, dev);
    return (long long)p->b * p->h_kv * p->s_k >= (long long)SM80_SK_WIDE_MIN_KEYS_PER_SM * dev->num_sms;
}

/* Largest tile (listed first) for the dtype and head dim that the rows warrant and the device's
   shared memory allows. Returns 0 if none. */
static int pick_variant(const flashc_problem *p, const flashc_device_info *dev, long long rows, sm80_plan *pl)
{
    const int is8 = sm80_is_8bit(p);
    for (int i = 0; i < SM80_NUM_VARIANTS; ++i) {
        const sm80_variant *v = &k_variants[i];
        if (v->dt != p->in_dtype || v->d != p->d || (is8 && v->v_rows != !p->v_transposed)) continue;
        /* an empty body below its arch: never, whatever a rule or dev hook below says */
        if (dev->cc_major * 10 + dev->cc_minor < v->min_cc()) continue;
        const int two = v->kind == SM80_KIND_TWO_SLAB || v->kind == SM80_KIND_TWO_SLAB_LEAN_MASK;
        const int lean = v->kind == SM80_KIND_LEAN_MASK || v->kind == SM80_KIND_LEAN_MASK_FAST_KV ||
                         v->kind == SM80_KIND_TWO_SLAB_LEAN_MASK || v->kind == SM80_KIND_8BIT_LEAN_MASK_FAST_KV;
        const int deep_f = v->kind == SM80_KIND_DEEP_FAST_KV;
        const int fast = v->kind == SM80_KIND_FAST_KV || v->kind == SM80_KIND_LEAN_MASK_FAST_KV ||
                         v->kind == SM80_KIND_KV_STAGGER || two || deep_f;
        /* FA2's d128 geometry: where two CTAs fit, non-causal, short causal (sm80_two_slab) */
        if (two && !sm80_two_slab(p, dev, v->smem())) continue;
        const int f8 = v->kind == SM80_KIND_8BIT_FAST_KV || v->kind == SM80_KIND_8BIT_LEAN_MASK_FAST_KV;
        if ((v->kind == SM80_KIND_8BIT_TWO_SLAB || f8) && !sm80_8bit_two_slab(p, dev, f8)) continue;
        if (f8 && !sm80_8bit_fast_ok(p)) continue;
        if (v->kind == SM80_KIND_8BIT_LEAN_MASK_FAST_KV && !sm80_8bit_lean_mask()) continue;
        if (lean && !p->causal && p->window_left < 0 && p->window_right < 0) continue;
        if (fast && !fast_kv_ok(p, v->block_n())) continue;
        /* the staggered d256 tile: short causal prefill, non-paged equal-stride K/V */
        if (v->kind == SM80_KIND_KV_STAGGER && (!sm80_kv_stagger(p, dev, v->smem()) || rows < SM80_BIG_TILE_MIN_ROWS))
            continue;
        /* deep rings: the page-sub variant exactly when pages split its key blocks */
        const int pg16 = v->kind == SM80_KIND_SPLIT_KEYS_PAGE16;
        const int sk_f = v->kind == SM80_KIND_SPLIT_KEYS_FAST_KV;
        const int sk_wp = v->kind == SM80_KIND_SPLIT_KEYS_WHOLE_PAGES;
        const int sk_pg = v->kind == SM80_KIND_SPLIT_KEYS_PAGE_SUB;
        const int sk = v->kind == SM80_KIND_SPLIT_KEYS || sk_pg || pg16 || sk_f || sk_wp;
        const int wide = sk && v->block_n() == SM80_SK_WIDE_BLOCK_N;
        const int halves = wide && v->block_m == SM80_SK_ROWS_8BIT && sm80_row_halves(p, dev, rows);
        /* wide tiles: 32 rows by their rule; 16 rows by row halves or the wide rule */
        if (wide && v->block_m > SM80_SK_ROWS_8BIT && !sm80_sk32_wide(rows)) continue;
        if (wide && v->block_m <= SM80_SK_ROWS_8BIT && !halves && !sm80_sk_wide(p, dev, rows)) continue;
        if (sk_f && !sm80_sk_fast_ok(p)) continue;
        if (sk_wp && !sm80_sk_wp_ok(p, v->block_n())) continue;
        if (sk_pg && !is8 && !sm80_sk_pg_16bit(rows)) continue;
        const int pg = v->kind == SM80_KIND_DEEP_PAGE_SUB || v->kind == SM80_KIND_SPLIT_KEYS_PAGE_SUB || pg16;
        const int deep = v->kind == SM80_KIND_DEEP || deep_f || sk || pg;
        const int sub = deep ? page_sub_shift(p, v->block_n()) : 0;
        const int tiles8 = v->block_m > SM80_SK_ROWS_8BIT     ? SM80_SK32_MAX_TILES_8BIT
                           : sub == SM80_PAGE16_SHIFT ? SM80_SPLIT_KEYS_MAX_TILES_8BIT_PAGE16
                                                      : SM80_SPLIT_KEYS_MAX_TILES_8BIT;
        /* the 32-row work threshold counts 128-key blocks for the wide tile too (its A/B's basis) */
        if (sk && is8 && v->block_m > SM80_SK_ROWS_8BIT && !sm80_sk32_rows(p, dev, rows, wide ? SM80_SK_WIDE_BLOCK_N / 2 : v->block_n())) continue;
        if (sk && (rows > (long long)v->block_m * (is8 ? tiles8 : SM80_SPLIT_KEYS_MAX_TILES_16BIT) ||
                   (!is8 && p->kv_layout == FLASHC_KV_PAGED && rows <= SM80_SPLIT_KEYS_MIN_ROWS_16BIT_PAGED &&
                    !sm80_sk_whole_pages())))
            continue;
        /* split-key tile: non-paged or whole-block pages; its page-sub twin: pages splitting a block */
        if (v->kind == SM80_KIND_SPLIT_KEYS && p->kv_layout == FLASHC_KV_PAGED && p->page_size % v->block_n() != 0)
            continue;
        if ((sk_pg || pg16) && sm80_vt(p) && !vt_chunks_aligned(p)) continue;
        if (pg16 && sub != SM80_PAGE16_SHIFT) continue;
        if (deep && pg != (sub > 0)) continue;
        if (v->block_m > SM80_SMALL_TILE_M && rows < SM80_BIG_TILE_MIN_ROWS) continue;
        if (v->smem() > dev->max_smem_optin) continue;
        /* deep rings are for decode-shaped tiles (8-bit has only 64-row tiles, so say it); the wide
           split-key tiles run one CTA per SM by design (sm80_sk_wide) */
        if (deep && (rows >= SM80_BIG_TILE_MIN_ROWS || dev->cc_major * 10 + dev->cc_minor < SM80_DEEP_MIN_CC ||
                        (!wide && SM80_DEEP_CTAS_PER_SM * v->smem() > dev->max_smem_optin)))
            continue;
        pl->fn = v->fn;
        pl->variant = i;
        pl->page_sub_shift = pg ? sub : 0;
        pl->block_m = v->block_m;
        pl->block_n = v->block_n();
        pl->smem = v->smem();
        pl->split_keys = sk;
        pl->rows_per_cta = halves ? (int)((rows + 1) / 2) : v->block_m;
        return 1;
    }
    return 0;
}

/* CTAs per SM the key splits aim to fill. The split-key tiles that stream K/V at the memory's
   pace (16-bit; 8-bit with at most 16 rows per KV head) want one: a second resident CTA per SM
   brought no bandwidth, only more CTA starts, warp merges and partials to combine. H200, key splits
   swept per shape (session 15): bf16 b 8 h 64/8 2 splits (128 CTAs) against 4, +3.6 to +4.2 % at
   4k-32k, s_q 1 and 4; b 16 1 against 2, +5.6 %; fp8 b 8 s_q 1 +3.0 / +4.8 / +0.7 % at 4k / 8k /
   32k, b 16 +5.9 %. 8-bit tiles of more rows (two 16-row tiles per KV head, or the 32-row tile) do
   two or four times the math per byte and want two: fp8 b 8 8k s_q 4 on one per SM -13.9 %, b 8
   32k s_q 4 (32-row tiles) -9.7 %. 8-bit page-sub tiles (pages of 16-64 keys, _sk_pg / _sk_pg16)
   gather each V^T row of a block from 2-8 pages in 16-byte pieces and want two as well (session 17,
   fp8 b 8 h 64/8 32k s_q 1: see docs/sm80.md). 16-bit tiles on pages of less than
   SM80_STREAM_MIN_PAGE_BYTES per KV head want two too (session 18, bf16 b 8 h 64/8 32k, one -> two
   CTAs per SM): the page-sub twins (_sk_pg, 24-32 rows, pages of 8 / 16 / 32 keys) -17 to -23 % ->
   +5 to +9 % against the deep ring, d64 pages of 16 +23 %; the whole-page twins (_sk_wp) on pages of
   one key block (d128 pages of 64, d64 pages of 128: 16 KB) -1 % -> +1.4 to +3 %, while pages of 256
   (64 KB) read 2.5 % less with two (+4.5-5 % with one). Not the page-id loads: an L2 prefetch of
   the CTA's page-table slice at one CTA per SM changed nothing (-0.4 to +0.4 %); small scattered
   pages seem to need more copies in flight. 8-bit whole pages of 256 keys keep one at 16 rows
   (+2.6-3 % against +0.3 % with two); other 8-bit whole-page sizes are unmeasured and keep the
   8-bit rule. The wide tiles (one CTA per SM by their shared memory) count one at any grid_m: their
   pair of 17-32 rows (sm80_sk_wide_pair) fills its one wave unsplit. Dev hook (not API):
   FLASHC_SM80_SPLIT_CTAS_PER_SM=N. */
#define SM80_STREAM_CTAS_PER_SM 1
#define SM80_STREAM_MIN_PAGE_BYTES 32768
static int split_ctas_per_sm(const flashc_problem *p, const sm80_plan *pl)
{
    const char *e = getenv("FLASHC_SM80_SPLIT_CTAS_PER_SM");
    if (e && atoi(e) > 0) return atoi(e);
    const int is8 = sm80_is_8bit(p);
    const int elem_bytes = is8 ? 1 : 2;
    const int small_pages = p->kv_layout == FLASHC_KV_PAGED &&
                            (long long)p->page_size * p->d * elem_bytes < SM80_STREAM_MIN_PAGE_BYTES;
    const int wide = pl->split_keys && pl->block_n == SM80_SK_WIDE_BLOCK_N; /* one per SM by its smem */
    const int streams = pl->split_keys && (is8 ? wide || (pl->grid_m == 1 && pl->block_m == SM80_SK_ROWS_8BIT &&
                                                          pl->page_sub_shift == 0)
                                               : !small_pages);
    return streams ? SM80_STREAM_CTAS_PER_SM : SM80_CTAS_PER_SM_TARGET;
}

/* Split-key grids of more CTAs than the SMs hold at once (sm80_resident_ctas) run in waves, and a
   last wave mostly empty leaves most SMs idle: where the grid's wave fill is below
   SM80_WAVE_FILL_SPLIT, split the keys into the fewest parts that fill the waves to
   SM80_WAVE_FILL_GOAL (none: the best fill, if SM80_WAVE_FILL_GAIN x one split's). H200, fp8 / bf16 d128
   h 32/8 decode, ab80 session 21, key splits forced on the a879028 library (GB/s, 1 split -> the
   rule's): b 40 4k (320 CTAs, 1.2 waves) fp8 3086 -> 3458 (4 splits, +12.1 %), bf16 3405 -> 3846
   (+12.9 %); b 48 8k fp8 +8.5 %, bf16 +12.4 % (2); b 80 4k fp8 +4.8 %, bf16 +8.2 % (2); every one
   the best or within 0.3 % of the best of 1-8 splits. Fuller grids keep one: b 64 (1.94 waves)
   -3 % with 2, b 96 (2.9 waves) -2.4 %; fewer CTAs than slots keep choose_splits' own rule (b 24:
   +0.8 % at best). */
#define SM80_WAVE_FILL_SPLIT 0.9
#define SM80_WAVE_FILL_GOAL 0.95
#define SM80_WAVE_FILL_GAIN 1.1
/* fill of the waves of `slots` CTAs by ctas x s, times the per-split share of blocks rounded up
   (idle blocks count as waste) */
static double sm80_wave_fill(long long ctas, long long slots, int n_blocks, int s)
{
    const long long work = ctas * s, waves = (work + slots - 1) / slots;
    const int per = (n_blocks + s - 1) / s;
    return (double)work / (double)(waves * slots) * (double)n_blocks / (double)(per * s);
}

static int sm80_wave_splits(const flashc_device_info *dev, const sm80_plan *pl, long long ctas, int n_blocks,
                            int max_s)
{
    const long long slots = (long long)dev->num_sms * sm80_resident_ctas(dev, pl->smem);
    const double one = sm80_wave_fill(ctas, slots, n_blocks, 1);
    if (!pl->split_keys || ctas < slots || one >= SM80_WAVE_FILL_SPLIT) return 1;
    double best = one;
    int best_s = 1;
    for (int s = 2; s <= max_s; ++s) {
        const double f = sm80_wave_fill(ctas, slots, n_blocks, s);
        if (f >= SM80_WAVE_FILL_GOAL) return s;
        if (f > best) best = f, best_s = s;
    }
    return best >= SM80_WAVE_FILL_GAIN * one ? best_s : 1;
}

/* Dev hook (not API), read on every call: FLASHC_SM80_SPLITS=N forces N key splits (clamped to the
   key blocks and the grid limit), for A/B of the heuristic. */
static int choose_splits(const flashc_problem *p, const flashc_device_info *dev, const sm80_plan *pl)
{
    long long ctas = (long long)pl->grid_m * pl->grid_h * p->b;
    int n_blocks = (p->s_k + pl->block_n - 1) / pl->block_n;
    const char *forced = getenv("FLASHC_SM80_SPLITS");
    if (forced && atoi(forced) > 0) {
        int s = atoi(forced);
        if (s > SM80_MAX_SPLITS) s = SM80_MAX_SPLITS;
        if (s > n_blocks) s = n_blocks > 0 ? n_blocks : 1;
        while (s > 1 && (long long)p->b * s > SM80_MAX_GRID_YZ) --s;
        return s;
    }
    long long slots = (long long)dev->num_sms * split_ctas_per_sm(p, pl);
    if (ctas <= 0 || n_blocks < 2 * SM80_MIN_BLOCKS_PER_SPLIT) return 1;
    int max_s = n_blocks / SM80_MIN_BLOCKS_PER_SPLIT;
    if (max_s > SM80_MAX_SPLITS) max_s = SM80_MAX_SPLITS;
    while (max_s > 1 && (long long)p->b * max_s > SM80_MAX_GRID_YZ) --max_s;
    if (ctas >= slots) return sm80_wave_splits(dev, pl, ctas, n_blocks, max_s);
    double eff[SM80_MAX_SPLITS + 1], best = 0.0;
    for (int s = 1; s <= max_s; ++s) {
        eff[s] = sm80_wave_fill(ctas, slots, n_blocks, s);
        if (eff[s] > best) best = eff[s];
    }
    for (int s = 1; s <= max_s; ++s)
        if (eff[s] >= SM80_SPLIT_EFFICIENCY * best) return s;
    return 1;
}

/* Causal prefill on the FWD_LPT_TAIL tiles: how many (head, batch) pairs at the end of the grid
   launch heaviest m-block first (fwd_kernel.cuh cta_coords). About SM80_LPT_TAIL_WAVES waves of
   CTAs: enough for the heavy tiles of the last pairs to start while earlier CTAs still run, few
   enough that those pairs' K/V stay in L2 together. Resident CTAs per SM from the tile's smem (a
   4-warp tile at 255 registers fits two). Simulated on the H200 stamps' per-block and per-tile
   costs (list scheduling in launch order), d256 causal 1k on the staggered tile: 284 -> 254 us.
   Dev/test hook (not API), read on every call: FLASHC_SM80_LPT_TAIL=0 no tail (each pair's
   m-blocks still heaviest first), =N the last N pairs. */
#define SM80_LPT_TAIL_WAVES 2
static int sm80_lpt_tail_pairs(const flashc_problem *p, const flashc_device_info *dev, const sm80_plan *pl)
{
    if (!(p->window_right >= 0 && p->window_left < 0) || pl->splits != 1 || pl->grid_m <= 1) return 0;
    const long long pairs = (long long)pl->grid_h * p->b;
    const char *e = getenv("FLASHC_SM80_LPT_TAIL");
    if (e) { /* dev/test hook: 0 = no tail, N > 0 = the last N pairs (tests: pairs before and in the tail) */
        const long long n = atoll(e);
        return (int)(n <= 0 ? 0 : n < pairs ? n : pairs);
    }
    const long long slots = (long long)dev->num_sms * sm80_resident_ctas(dev, pl->smem);
    long long tail = (SM80_LPT_TAIL_WAVES * slots + pl->grid_m - 1) / pl->grid_m;
    return (int)(tail < pairs ? tail : pairs);
}

/* The split-key tiles' key splits interleaved (fwd_splitk.cuh sk_key_walk): split s visits every
   num_splits-th key block, so a KV head's splits read neighbouring pieces of V^T (and K) at once
   (the Hopper decode tile's twin of this, session 60: +1.3-2.6 % on the H100; a bare V^T ring on
   the H200 +1-3 %, docs/sm80.md session 34). Dev hook (not API): FLASHC_SM80_SK_INTERLEAVE=0 runs. */
#define SM80_SK_INTERLEAVE 1
static int sm80_sk_interleave(void)
{
    const char *e = getenv("FLASHC_SM80_SK_INTERLEAVE");
    return e ? atoi(e) == 1 : SM80_SK_INTERLEAVE;
}

/* The combine grid follows the forward as its programmatic dependent where the device has
   griddepcontrol (sm_90+): its CTAs are placed as the forward's (split-key tiles: which release it
   at their start) finish and wait on-device, so no launch gap sits between the two. H200 bf16,
   b 8 h 64/8 4k decode: the combine rewrite +2.6-3.0 %, with this on top about +2 % more.
   Dev hook (not API): FLASHC_SM80_PDL=0 launches it plainly. */
#define SM80_PDL_MIN_CC_MAJOR 9
static int sm80_pdl(const flashc_device_info *dev)
{
    const char *e = getenv("FLASHC_SM80_PDL");
    return dev->cc_major >= SM80_PDL_MIN_CC_MAJOR && !(e && atoi(e) == 0);
}

/* The device as the portable path plans for it, after two dev/test hooks (not API), read on every
   call so that check, workspace_size and forward agree:
   FLASHC_SM80_SMEM_OPTIN=BYTES: a shared-memory opt-in of at most BYTES (e.g. 101376, sm_86/89's
   99 KB), so the H200 runs and tests the tiles those GPUs get (4-warp 128-row tiles, no deep rings).
   FLASHC_SM80_AS_CC=NN (80, 86, 87 or 89, below the device's): plan, check and launch as a GPU of
   that compute capability would, with its opt-in (163 KB for 80 / 87, 99 KB for 86 / 89): no
   sm_90-only tile (each variant's min_cc), no programmatic dependent launch, fp8 refused below 89.
   The kernels stay this GPU's; a build with FLASHC_SM80_E4M3_NATIVE makes its e4m3 ones sm_89's
   code, so the H200 tests what Ada runs (scripts/gpu_suite.sh). */
#define SM80_SMEM_OPTIN_SM80 166912 /* sm_80 / sm_87: 163 KB */
#define SM80_SMEM_OPTIN_SM86 101376 /* sm_86 / sm_89: 99 KB */
static flashc_device_info sm80_device(const flashc_device_info *in)
{
    flashc_device_info dev = *in;
    const char *cc_env = getenv("FLASHC_SM80_AS_CC");
    const long cc = cc_env ? strtol(cc_env, NULL, 10) : 0;
    if ((cc == 80 || cc == 86 || cc == 87 || cc == 89) && cc < in->cc_major * 10 + in->cc_minor) {
        dev.cc_major = (int)(cc / 10);
        dev.cc_minor = (int)(cc % 10);
        const int optin = cc == 80 || cc == 87 ? SM80_SMEM_OPTIN_SM80 : SM80_SMEM_OPTIN_SM86;
        if (optin < dev.max_smem_optin) dev.max_smem_optin = optin;
    }
    const char *e = getenv("FLASHC_SM80_SMEM_OPTIN");
    const long v = e ? strtol(e, NULL, 10) : 0;
    if (v > 0 && v < dev.max_smem_optin) dev.max_smem_optin = (int)v;
    return dev;
}

/* Returns 0 if no variant fits (head dim or shared memory). dev: as sm80_device gives it. */
static int make_plan(const flashc_problem *p, const flashc_device_info *dev, sm80_plan *pl)
{
    pl->group = p->h_kv > 0 ? p->h_q / p->h_kv : 1;
    pl->pack = pl->group > 1;
    long long rows = (long long)p->s_q * (pl->pack ? pl->group : 1);
    if (!pick_variant(p, dev, rows, pl)) return 0;
    pl->grid_m = (int)((rows + pl->rows_per_cta - 1) / pl->rows_per_cta);
    pl->grid_h = pl->pack ? p->h_kv : p->h_q;
    pl->splits = choose_splits(p, dev, pl);
    return 1;
}

/* The variant make_plan picks for *p on *dev (its index in k_variants), or -1: the planner alone,
   for flashc_sm80_route (launch.h). */
extern "C" int flashc_sm80_plan_variant(const flashc_problem *p, const flashc_device_info *dev_in)
{
    const flashc_device_info dev = sm80_device(dev_in);
    sm80_plan pl;
    return make_plan(p, &dev, &pl) ? pl.variant : -1;
}

/* The compute capability (x 10) the portable path plans *dev as (after FLASHC_SM80_AS_CC), for the
   tests' expectations (launch.h) */
extern "C" int flashc_sm80_planned_cc(const flashc_device_info *dev_in)
{
    const flashc_device_info dev = sm80_device(dev_in);
    return dev.cc_major * 10 + dev.cc_minor;
}

/* 1 if this build's e4m3 kernels run sm_89's code on sm_90 too (FLASHC_SM80_E4M3_NATIVE: P
   rounded to e4m3), for the tests' tolerance (launch.h) */
extern "C" int flashc_sm80_e4m3_native(void) { return FLASHC_SM80_E4M3_NATIVE; }

/* Division by the page size as a multiply-high and shift (runtime integer division costs ~20
   instructions per K/V row copy): with l = ceil(log2 d), mul = ceil(2^(31+l) / d) gives
   floor(j / d) = umulhi(j, mul) >> (l - 1) for every j < 2^31. d = 1: mul 0 (quotient j). */
static void sm80_page_divider(int d, uint32_t *mul, uint32_t *shift)
{
    if (d <= 1) {
        *mul = 0;
        *shift = 0;
        return;
    }
    int l = 0;
    while ((1ll << l) < d) ++l;
    *mul = (uint32_t)(((1ull << (31 + l)) + (unsigned long long)d - 1) / (unsigned long long)d);
    *shift = (uint32_t)(l - 1);
}

static size_t align_up(size_t x) { return (x + SM80_WS_ALIGN - 1) / SM80_WS_ALIGN * SM80_WS_ALIGN; }

static size_t ws_o_bytes(const flashc_problem *p, int splits)
{
    return align_up((size_t)splits * p->total_q * p->h_q * p->d * sizeof(float));
}
static size_t ws_lse_bytes(const flashc_problem *p, int splits)
{
    return align_up((size_t)splits * p->h_q * p->total_q * sizeof(float));
}

extern "C" flashc_status flashc_sm80_check(const flashc_problem *p, const flashc_device_info *dev_in)
{
    const flashc_device_info dev_eff = sm80_device(dev_in);
    const flashc_device_info *dev = &dev_eff;
    if (dev->cc_major < SM80_MIN_CC_MAJOR)
        return flashc_error(FLASHC_STATUS_NOT_SUPPORTED, "sm80: needs compute capability 8.0+, device has %d.%d",
                            dev->cc_major, dev->cc_minor);
    const int is8 = sm80_is_8bit(p);
    if (is8) {
        if (!FLASHC_SM80_ENABLE_8BIT)
            return flashc_error(FLASHC_STATUS_NOT_SUPPORTED,
                                "sm80: 8-bit inputs (fp8 e4m3 / int8) are not enabled in this build "
                                "(built with FLASHC_SM80_ENABLE_8BIT=0)");
        if (p->in_dtype == FLASHC_DTYPE_FP8_E4M3 && dev->cc_major * 10 + dev->cc_minor < SM80_E4M3_MIN_CC)
            return flashc_error(FLASHC_STATUS_NOT_SUPPORTED, "sm80: fp8 e4m3 needs compute capability 8.9+, device has %d.%d",
                                dev->cc_major, dev->cc_minor);
    } else {
        if (p->in_dtype != FLASHC_DTYPE_F16 && p->in_dtype != FLASHC_DTYPE_BF16)
            return flashc_error(FLASHC_STATUS_NOT_SUPPORTED, "sm80: input dtype %d not supported", (int)p->in_dtype);
        if (p->v_transposed)
            return flashc_error(FLASHC_STATUS_NOT_SUPPORTED, "sm80: v_transposed needs 8-bit inputs");
    }
    if (p->out_dtype != FLASHC_DTYPE_F16 && p->out_dtype != FLASHC_DTYPE_BF16)
        return flashc_error(FLASHC_STATUS_NOT_SUPPORTED, "sm80: output dtype must be f16 or bf16");
    if (p->bias && p->bias_dtype != FLASHC_DTYPE_F32 && p->bias_dtype != FLASHC_DTYPE_F16 &&
        p->bias_dtype != FLASHC_DTYPE_BF16)
        return flashc_error(FLASHC_STATUS_NOT_SUPPORTED, "sm80: bias dtype must be f32, f16 or bf16");
    if (p->kv_layout == FLASHC_KV_PAGED && p->page_size <= 0)
        return flashc_error(FLASHC_STATUS_NOT_SUPPORTED, "sm80: paged KV with page size %d", p->page_size);
    if (p->d != 64 && p->d != 128 && p->d != 256)
        return flashc_error(FLASHC_STATUS_NOT_SUPPORTED, "sm80: head dim %d not supported (have 64, 128, 256)",
                            p->d);
    sm80_plan pl;
    if (!make_plan(p, dev, &pl))
        return flashc_error(FLASHC_STATUS_NOT_SUPPORTED,
                            "sm80: head dim %d needs more shared memory than the device allows (%d bytes)", p->d,
                            dev->max_smem_optin);
    if (pl.grid_h > SM80_MAX_GRID_YZ || (long long)p->b * pl.splits > SM80_MAX_GRID_YZ)
        return flashc_error(FLASHC_STATUS_NOT_SUPPORTED, "sm80: grid too large (heads %d, batch %d)", pl.grid_h,
                            p->b);
    return FLASHC_STATUS_SUCCESS;
}

extern "C" size_t flashc_sm80_workspace_size(const flashc_problem *p, const flashc_device_info *dev_in)
{
    const flashc_device_info dev = sm80_device(dev_in);
    sm80_plan pl;
    if (!make_plan(p, &dev, &pl) || pl.splits <= 1) return 0;
    return ws_o_bytes(p, pl.splits) + ws_lse_bytes(p, pl.splits);
}

extern "C" flashc_status flashc_sm80_forward(const flashc_problem *p, const flashc_device_info *dev_in, void *workspace,
                                             size_t workspace_bytes, struct CUstream_st *stream)
{
    const flashc_device_info dev_eff = sm80_device(dev_in);
    const flashc_device_info *dev = &dev_eff;
    sm80_plan pl;
    if (!make_plan(p, dev, &pl))
        return flashc_error(FLASHC_STATUS_NOT_SUPPORTED, "sm80: no kernel for head dim %d on this device", p->d);
    if (pl.grid_m == 0 || p->b == 0 || p->h_q == 0) return FLASHC_STATUS_SUCCESS;

    sm80_fwd_params prm;
    prm.p = *p;
    prm.scale_log2 = p->softmax_scale * SM80_LOG2E;
    prm.inv_softcap = p->softcap != 0.f ? 1.f / p->softcap : 0.f;
    prm.group = pl.group;
    prm.pack_gqa = pl.pack;
    prm.num_splits = pl.splits;
    prm.transform = p->softcap != 0.f || p->bias != NULL || p->alibi != NULL;
    sm80_page_divider(p->kv_layout == FLASHC_KV_PAGED ? p->page_size : 1, &prm.page_div_mul, &prm.page_div_shift);
    prm.page_block_keys = 0;
    if (p->kv_layout == FLASHC_KV_PAGED)
        for (int keys = SM80_MAX_BLOCK_N; keys >= SM80_MIN_BLOCK_N && !prm.page_block_keys; keys /= 2)
            if (p->page_size % keys == 0) prm.page_block_keys = keys;
    prm.page_sub_shift = pl.page_sub_shift;
    prm.lpt_tail_pairs = sm80_lpt_tail_pairs(p, dev, &pl);
    prm.rows_per_cta = pl.rows_per_cta;
    prm.sk_step = pl.splits > 1 && sm80_sk_interleave() ? pl.splits : 1;
    prm.ws_o = NULL;
    prm.ws_lse = NULL;
    if (pl.splits > 1) {
        size_t need = ws_o_bytes(p, pl.splits) + ws_lse_bytes(p, pl.splits);
        if (!workspace || workspace_bytes < need)
            return flashc_error(FLASHC_STATUS_WORKSPACE_TOO_SMALL, "sm80: split-KV needs %zu bytes of workspace",
                                need);
        prm.ws_o = (float *)workspace;
        prm.ws_lse = (float *)((char *)workspace + ws_o_bytes(p, pl.splits));
    }
    cudaError_t e = pl.fn(&prm, pl.grid_m, pl.grid_h, p->b * pl.splits, (cudaStream_t)stream);
    if (e != cudaSuccess)
        return flashc_error(FLASHC_STATUS_CUDA_ERROR, "sm80: forward kernel launch failed: %s",
                            cudaGetErrorString(e));
    __atomic_fetch_add(&k_variant_launches[pl.variant], 1ULL, __ATOMIC_RELAXED);
    if (pl.rows_per_cta != pl.block_m) __atomic_fetch_add(&k_row_halves_launches, 1ULL, __ATOMIC_RELAXED);
    if (pl.splits > 1) {
        e = flashc_sm80_combine(&prm, sm80_pdl(dev), (cudaStream_t)stream);
        if (e != cudaSuccess)
            return flashc_error(FLASHC_STATUS_CUDA_ERROR, "sm80: combine kernel launch failed: %s",
                                cudaGetErrorString(e));
    }
    return FLASHC_STATUS_SUCCESS;
}
