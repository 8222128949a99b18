/*
 * FlashAttention forward for Hopper (sm_90a): TMA loads, wgmma, warp-specialised, persistent.
 * Body of one variant; a tiny .cu defines the constants below and includes this file.
 *
 *   FWD_NAME         extern "C" launcher symbol (declared in sm90_fwd.cuh)
 *   FWD_ELEM         bf16 | f16 | e4m3   (Q, K, V element type; token used in wgmma wrapper names)
 *   FWD_ELEM_IS_BF16 1 | 0
 *   FWD_ELEM_IS_E4M3 0 | 1      (1: 8-bit inputs with V pre-transposed, [b, h_kv, d, s_k]; see below)
 *   FWD_V_ROWS       0 | 1      (8-bit only; 1: V in K's layout, transposed in shared memory by the
 *                                producer warpgroup's other warps, see below)
 *   FWD_HEAD_DIM     64 | 128 | 256
 *   FWD_BLOCK_N      keys per K/V tile (multiple of 16, one of the SS shapes in ptx/wgmma.h)
 *
 *   FWD_CONSUMER_WGS 2 | 3      (BLOCK_M = 64 x consumer warpgroups)
 *   FWD_KV_STAGES    2 | 3      (depth of the K/V ring)
 *   FWD_Q_SLOTS      1 | 2      (Q buffers: 2 lets the next tile's Q land during this tile)
 *   FWD_O_STAGE      0 | 1      (1: epilogue through a shared-memory O stage and TMA stores)
 *   FWD_LAZY_RESCALE 0 | 1      (1: rescale O only when a row max grows by more than a slack)
 *   FWD_WINDOWS      1 | 0      (0: window_left / window_right compiled out, causal only: the 8-bit
 *                                d256 consumers have no register to spare for the window's bounds)
 *   FWD_SOFTCAP      0 | 1      (1: scores become softcap * tanh(s / softcap), sm90_fwd_params.softcap;
 *                                with FWD_VARLEN only where softcap > 0, so one kernel serves
 *                                softcap, ALiBi and both)
 *   FWD_ALIBI        0 | 1      (1: scores get -slope * |i + s_k - s_q - j|, slope per (batch, head)
 *                                from sm90_fwd_params.alibi, 0 without; with either score transform
 *                                the scores are scaled before the softmax, which then runs in
 *                                natural-log units: fwd_score_mod)
 *   FWD_VARLEN       0 | 1      (1: per-sequence lengths: packed sequences (cu_seqlens_q / _k),
 *                                seqused_k and paged K/V (page_table): each tile reads its
 *                                sequence's offsets and lengths; keys past a sequence in its
 *                                last key block are zeroed in V by the V pass (below); built
 *                                without the tail split and the O stage)
 *   FWD_TAIL_SPLIT   0 | 1      (1: the tail split of sm90_fwd_params.tail_*; 0: compiled out,
 *                                so the kernel is the plain one: the split's per-tile bookkeeping
 *                                and code cost 0.5-4 % at 2k when compiled in, see docs/sm90.md v12)
 *
 * Budget (per block; one block per SM, 128 x (1 + WGS) threads):
 *   warpgroup 0   producer: one thread issues every TMA load; with FWD_V_ROWS or FWD_VARLEN warps
 *                  1-3 run the V pass over each V stage (transpose V, zero keys past the
 *                  sequence) before the consumers read it; 24 registers (setmaxnreg.dec)
 *   warpgroups 1.. consumers: 64 query rows each; 240 registers (2 WGs) or 160 (3 WGs)
 *                  registers/thread: S = BLOCK_N/2 f32, P = BLOCK_N/4 b32 (BLOCK_N/8 for 8-bit),
 *                  O = D/2 f32
 *   shared memory: Q_SLOTS x Q [BLOCK_M x D] + STAGES x (K + V) [BLOCK_N x D] (+ O [BLOCK_M x D],
 *                  16-bit, with FWD_O_STAGE), as panels of 128-byte rows (64 16-bit or 128 8-bit
 *                  columns), 128B-swizzled as TMA and wgmma descriptors expect; + 1 KB alignment
 *                  slack + mbarriers (the tile table in sm90_fwd.cuh lists each variant's total)
 *
 * Grid: one block per SM, static round-robin over tiles (BLOCK_M query rows of one (batch,
 * head)); causal tiles go longest first with the block order reversed on odd rounds (snake).
 * FWD_TAIL_SPLIT: the last round's tiles are cut into pieces of consecutive key blocks spread
 * over all blocks (sm90_fwd_params.tail_*); pieces go through the workspace to sm90_combine.cu.
 *
 * 8-bit (FWD_ELEM_IS_E4M3): wgmma has no transpose for 8-bit types, so both operands of P V must
 * be K-major, i.e. V with keys innermost: the variant reads V pre-transposed ([b, h_kv, d, s_k],
 * the API's v_transposed), one TMA box of [D rows x 128 keys] per 128 keys. Q K^T is the 16-bit
 * GEMM with k = 32 bytes per instruction. P is rounded to e4m3 with an offset of 2^FWD_P_OFFSET_LOG2
 * (small probabilities keep their bits; 1/rowsum cancels it); its accumulator layout is not the
 * 8-bit A-fragment layout, so fwd_convert_p exchanges halves inside each lane quad (two shuffles
 * per 8 bytes). q_descale * k_descale scales the scores, v_descale the output (per batch, KV head).
 * FWD_V_ROWS: V arrives in K's layout and warps 1-3 of the producer warpgroup rewrite each stage as
 * V^T (ldmatrix.trans, byte permutes, stmatrix; sm90_vt8.h) into a V^T ring beside it. Inside each
 * 16 keys they store the keys in the order a lane's accumulators hold them, so P needs no lane
 * exchange: each lane packs its own scores (fwd_convert_p).
 *
 * Schedule per tile; key blocks run high -> low so the masked ones (causal diagonal, s_k tail)
 * come first:
 *   producer:  Q once (into the tile's Q slot), then K_n, V_n for n = last .. 0 through a ring of
 *              mbarrier-guarded stages
 *   consumer:  S = Q K_n^T (SS wgmma) is issued together with O += P_{n+1} V_{n+1} (RS wgmma, P
 *              from registers, V row-major = MN-major B; 8-bit: V^T, K-major B); the softmax of
 *              S_n overlaps that PV.
 *              The consumer warpgroups take turns issuing (named-barrier ping-pong) so one's
 *              softmax overlaps the others' GEMMs.
 *   epilogue:  O / rowsum to global, LSE in f32; the next tile's first QK^T is issued before it,
 *              so the stores overlap that GEMM. FWD_O_STAGE: stmatrix into the warpgroup's O
 *              stage, one thread stores it with TMA (full lines, rows >= s_q clipped by TMA);
 *              otherwise 4-byte stores from registers (rows >= s_q skipped).
 */
#include <stdint.h>
#include <math.h>
#include <cuda_runtime.h>

#include "ptx/bar.h"
#include "ptx/cp_async_bulk.h"
#include "ptx/cvt.h"
#include "ptx/ex2.h"
#include "ptx/fence.h"
#include "ptx/mbarrier.h"
#include "ptx/setmaxnreg.h"
#include "ptx/stmatrix.h"
#include "ptx/wgmma.h"
#include "common/softmax.cuh"
#include "sm90/sm90_fwd.cuh"
#include "sm90/sm90_p8.cuh"
#include "sm90/sm90_vt8.h"
#include "sm90/sm90_vt8_transpose.cuh"
#include "sm90/sm90_vt_zero.cuh"
#include "ptx/ldmatrix.h"

/* ---- Budget ------------------------------------------------------------------------------ */
#define FWD_D FWD_HEAD_DIM
#define FWD_N FWD_BLOCK_N
#define FWD_WGS FWD_CONSUMER_WGS            /* consumer warpgroups: 2 or 3 */
#define FWD_WG_ROWS SM90_WG_ROWS            /* query rows per consumer warpgroup (wgmma M = 64) */
#define FWD_M (FWD_WG_ROWS * FWD_WGS)
#define FWD_STAGES FWD_KV_STAGES
#define FWD_WG_THREADS 128
#define FWD_THREADS (FWD_WG_THREADS * (1 + FWD_WGS))
#define FWD_CONSUMER_WARPS (FWD_WGS * FWD_WG_THREADS / 32)
#define FWD_TURN_THREADS (2 * FWD_WG_THREADS) /* a turn barrier: its owner syncs, the previous WG arrives */
#ifndef FWD_V_ROWS
#define FWD_V_ROWS 0
#endif
/* Register split: setmaxnreg moves registers inside the block's own launch allocation (a per-CTA
   pool, ptx/setmaxnreg.h), 128 x (1 + WGS) threads x the launch count (65536 / threads,
   rounded down to 8: 168 for 2 consumer WGs, 128 for 3), so
   128 x P + WGS x 128 x R <= 64,512 (2 WGs) or 65,536 (3 WGs); a larger sum hangs the consumers'
   setmaxnreg.inc. 232 registers spill in the 8-bit d256 consumers, so the V transpose
   (FWD_V_ROWS) is written to fit in 24 as well. */
#define FWD_PRODUCER_REGS 24
#if FWD_WGS == 2
#define FWD_CONSUMER_REGS 240
#elif FWD_WGS == 3
#define FWD_CONSUMER_REGS 160
#else
#error "fwd_kernel.cuh: FWD_CONSUMER_WGS must be 2 or 3"
#endif
#ifndef FWD_ELEM_IS_E4M3
#define FWD_ELEM_IS_E4M3 0
#endif
#if FWD_ELEM_IS_E4M3
#define FWD_ELEM_BYTES 1
#define FWD_P_OFFSET_LOG2 6.0f              /* P = 2^6 exp2(s - max): e4m3 keeps 2^-15 of the max */
#define FWD_RESCALE_SLACK_LOG2 2.0f         /* lazy max: P <= 2^(6 + 2) = 256 < 448, e4m3's largest */
#else
#define FWD_ELEM_BYTES 2
#define FWD_P_OFFSET_LOG2 0.0f
#define FWD_RESCALE_SLACK_LOG2 8.0f         /* stale-max slack (log2 units) of the lazy rescale */
#endif
/* Q and K rows in shared memory: 128-byte panels, or one 64-byte panel where a whole row is 64 bytes
   (8-bit d64), which takes the 64-byte swizzle. */
#define FWD_QK_ROW_BYTES (FWD_D * FWD_ELEM_BYTES < SM90_PANEL_ROW_BYTES ? FWD_D * FWD_ELEM_BYTES : SM90_PANEL_ROW_BYTES)
#define FWD_PANEL_COLS (FWD_QK_ROW_BYTES / FWD_ELEM_BYTES) /* input columns per Q / K panel row */
#define FWD_PANELS (FWD_D / FWD_PANEL_COLS)
#define FWD_O_PANELS (FWD_D / SM90_PANEL_COLS) /* O is 16-bit: 64 columns per panel */
#define FWD_Q_PANEL_BYTES (FWD_M * FWD_QK_ROW_BYTES)
#define FWD_KV_PANEL_BYTES (FWD_N * FWD_QK_ROW_BYTES)
#define FWD_Q_BYTES (FWD_Q_PANEL_BYTES * FWD_PANELS)
#define FWD_KV_BYTES (FWD_KV_PANEL_BYTES * FWD_PANELS)
#ifndef FWD_O_STAGE
#define FWD_O_STAGE 0
#endif
#define FWD_SMEM_BYTES                                                                                   \
    SM90_SMEM_BYTES(FWD_D, FWD_M, FWD_N, FWD_STAGES, FWD_Q_SLOTS, FWD_O_STAGE, FWD_ELEM_BYTES, FWD_V_ROWS)
#define FWD_O_PANEL_BYTES (FWD_WG_ROWS * SM90_PANEL_ROW_BYTES) /* O stage: one 64-row panel per WG */
#define FWD_O_STAGE_WG_BYTES (FWD_O_PANEL_BYTES * FWD_O_PANELS)
#define FWD_CHUNK_BYTES 16                  /* 128B swizzle permutes 16-byte chunks within a row: */
#define FWD_CHUNKS_PER_ROW (SM90_PANEL_ROW_BYTES / FWD_CHUNK_BYTES) /* chunk c of row r at c ^ (r % 8) */
#define FWD_MMA_K_BYTES 32                  /* k of one wgmma: 16 16-bit or 32 8-bit elements */
#define FWD_MMA_K (FWD_MMA_K_BYTES / FWD_ELEM_BYTES)
#define FWD_SWIZZLE_GROUP_BYTES (8 * SM90_PANEL_ROW_BYTES) /* 8 rows x 128 B: one swizzle atom */
#define FWD_QK_SWIZZLE_GROUP_BYTES (8 * FWD_QK_ROW_BYTES)  /* Q / K: 8 rows of their panels */
#define FWD_S_REGS (FWD_N / 2)
#define FWD_P_REGS (FWD_N * FWD_ELEM_BYTES / 8) /* two rows x N/4 keys per thread, 4 bytes a register */
#define FWD_O_REGS (FWD_D / 2)
#define FWD_BAR_TURN_BASE 1                 /* named barriers 1..WGS: issue turn of each consumer WG */
#define FWD_BAR_EPI_BASE (FWD_BAR_TURN_BASE + FWD_WGS) /* next WGS: a WG's O stage is written / free */
#define FWD_BAR_V_PASS (FWD_BAR_EPI_BASE + FWD_WGS)   /* the V pass's warps: zeroed rows -> transpose */
#ifndef FWD_LAZY_RESCALE
#define FWD_LAZY_RESCALE 0                  /* 1: rescale O only when a row max grows by > slack */
#endif
#ifndef FWD_TAIL_SPLIT
#define FWD_TAIL_SPLIT 0
#endif
#ifndef FWD_WINDOWS
#define FWD_WINDOWS 1
#endif
#ifndef FWD_SOFTCAP
#define FWD_SOFTCAP 0
#endif
#ifndef FWD_ALIBI
#define FWD_ALIBI 0
#endif
#define FWD_SCORE_MOD (FWD_SOFTCAP || FWD_ALIBI)
/* Softcap applies: always in the _cap kernels, per call in the per-sequence ones (_vl_mod). */
#define FWD_SOFTCAP_ON(p) (FWD_SOFTCAP && (!FWD_VARLEN || (p)->softcap > 0.0f))
#ifndef FWD_VARLEN
#define FWD_VARLEN 0
#endif
#if FWD_VARLEN && (FWD_TAIL_SPLIT || FWD_O_STAGE)
/* no O stage: a TMA store box would write the next sequence's rows of a partial tile */
#error "varlen variants are built without the tail split and the O stage"
#endif
/* The V pass (producer warps 1-3, fwd_v_pass): every V stage goes through it before the consumers'
   P.V when V must be transposed (FWD_V_ROWS) or may hold keys past the sequence (FWD_VARLEN: the
   rest of a page or of a cache, the next packed sequence, any bytes, NaN included; the mask hides
   them from S, but 0 x NaN in P.V would not). */
#define FWD_V_PASS (FWD_V_ROWS || FWD_VARLEN)
/* The window bounds this variant honours (FWD_WINDOWS 0: causal or none; the host refuses others). */
#define FWD_WINDOW_LEFT(p) (FWD_WINDOWS ? (p)->window_left : -1)
#define FWD_WINDOW_RIGHT(p) (FWD_WINDOWS ? (p)->window_right : ((p)->causal ? 0 : -1))

#if FWD_N % 16 != 0 || FWD_N > 256 || FWD_D % FWD_PANEL_COLS != 0
#error "fwd_kernel.cuh: unsupported tile shape"
#endif
#define FWD_VT_PANEL_KEYS SM90_PANEL_ROW_BYTES              /* 8-bit V^T: [D rows x 128 keys] per panel */
#define FWD_VT_PANEL_BYTES (FWD_D * SM90_PANEL_ROW_BYTES)
#if FWD_ELEM_IS_E4M3 && FWD_N % FWD_VT_PANEL_KEYS != 0
#error "fwd_kernel.cuh: 8-bit V^T boxes are 128 keys wide: BLOCK_N must be a multiple of 128"
#endif
#if FWD_V_ROWS && !FWD_ELEM_IS_E4M3
#error "fwd_kernel.cuh: FWD_V_ROWS is the 8-bit variant's V layout (16-bit V is read row-major as is)"
#endif
#define FWD_VT_BYTES (FWD_D * FWD_N)                  /* one V^T stage (FWD_V_ROWS) */
#define FWD_TRANSPOSE_WARP0 1                        /* warps 1-3 of the producer warpgroup transpose V */
#define FWD_TRANSPOSE_WARPS (FWD_WG_THREADS / 32 - FWD_TRANSPOSE_WARP0)
#define FWD_TRANSPOSE_THREADS (32 * FWD_TRANSPOSE_WARPS)

/* wgmma wrapper for this variant's element type and shapes (two-step paste expands the macros). */
#if FWD_ELEM_IS_E4M3
#define FWD_PASTE_SS(N, T) wgmma_m64n##N##k32_f32_##T##_##T##_ss
#define FWD_PASTE_RS(N, T) wgmma_m64n##N##k32_f32_##T##_##T##_rs
#else
#define FWD_PASTE_SS(N, T) wgmma_m64n##N##k16_f32_##T##_##T##_ss
#define FWD_PASTE_RS(N, T) wgmma_m64n##N##k16_f32_##T##_##T##_rs_bmn
#endif
#define FWD_WGMMA_SS(N, T) FWD_PASTE_SS(N, T)
#define FWD_WGMMA_RS(N, T) FWD_PASTE_RS(N, T)
#define FWD_WGMMA_QK FWD_WGMMA_SS(FWD_BLOCK_N, FWD_ELEM)
#define FWD_WGMMA_PV FWD_WGMMA_RS(FWD_HEAD_DIM, FWD_ELEM)
#if FWD_ELEM_IS_BF16
#define FWD_PACK cvt_rn_bf16x2_f32
#elif !FWD_ELEM_IS_E4M3
#define FWD_PACK cvt_rn_f16x2_f32
#endif

#define FWD_CAT2(a, b) a##b
#define FWD_CAT(a, b) FWD_CAT2(a, b)
#define FWD_KERNEL FWD_CAT(FWD_NAME, _kernel)

/* ---- Setup: shared-memory map, tiles ----------------------------------------------------- */
/* Offsets from the 1 KB-aligned base: Q slots | K stages | V stages | V^T stages (FWD_V_ROWS) |
   O stage | mbarriers (8 B each). Addresses are computed, not tabled, so a run-time index never
   sends a table to local memory. */
#define FWD_K_OFFSET (FWD_Q_SLOTS * FWD_Q_BYTES)
#define FWD_V_OFFSET (FWD_K_OFFSET + FWD_STAGES * FWD_KV_BYTES)
#define FWD_VT_OFFSET (FWD_K_OFFSET + 2 * FWD_STAGES * FWD_KV_BYTES)
#define FWD_O_OFFSET (FWD_VT_OFFSET + FWD_V_ROWS * FWD_STAGES * FWD_VT_BYTES)
#define FWD_BAR_OFFSET (FWD_O_OFFSET + FWD_O_STAGE * FWD_WGS * FWD_O_STAGE_WG_BYTES)
#define FWD_MBARRIER_BYTES 8
/* FWD_V_READY (FWD_V_PASS): the V pass is done with the stage (its V^T written, its keys past the
   sequence zeroed). The slot is free again with the stage's V_EMPTY, which also frees the V rows
   (the V pass waits for the V_FULL that follows it). */
enum fwd_barrier {
    FWD_Q_FULL,
    FWD_Q_EMPTY,
    FWD_K_FULL,
    FWD_K_EMPTY,
    FWD_V_FULL,
    FWD_V_EMPTY,
    FWD_V_READY
};
#define FWD_BARRIER_KINDS (FWD_V_READY + FWD_V_PASS) /* V_READY exists with FWD_V_PASS only */

#define FWD_BARRIER_SLOTS (FWD_STAGES > FWD_Q_SLOTS ? FWD_STAGES : FWD_Q_SLOTS)
/* FWD_V_PASS: after the barriers, a word the producer sets when it has issued its last V, then
   (FWD_VARLEN) one word per stage: the keys of the stage's block inside the sequence (BLOCK_N for a
   whole block), written before the stage's V_FULL arrival, read by the V pass after it. */
#define FWD_DONE_FLAG_OFFSET (FWD_BAR_OFFSET + FWD_BARRIER_SLOTS * FWD_BARRIER_KINDS * FWD_MBARRIER_BYTES)
#define FWD_V_KEYS_OFFSET (FWD_DONE_FLAG_OFFSET + 4)
typedef char fwd_barriers_fit[FWD_V_KEYS_OFFSET - FWD_BAR_OFFSET + 4 * FWD_STAGES <= SM90_BARRIER_BYTES ? 1 : -1];

typedef struct fwd_smem {
    uint32_t base; /* shared address of Q slot 0 */
} fwd_smem;

/* Q slot `slot`; warpgroup w's rows start at + w * 64 rows of every panel. */
static __device__ __forceinline__ uint32_t fwd_q(const fwd_smem *s, uint32_t slot)
{
    return s->base + slot * FWD_Q_BYTES;
}
static __device__ __forceinline__ uint32_t fwd_k(const fwd_smem *s, uint32_t stage)
{
    return s->base + FWD_K_OFFSET + stage * FWD_KV_BYTES;
}
static __device__ __forceinline__ uint32_t fwd_v(const fwd_smem *s, uint32_t stage)
{
    return s->base + FWD_V_OFFSET + stage * FWD_KV_BYTES;
}
/* V^T of a stage (FWD_V_ROWS). */
static __device__ __forceinline__ uint32_t fwd_vt(const fwd_smem *s, uint32_t stage)
{
    return s->base + FWD_VT_OFFSET + stage * FWD_VT_BYTES;
}
/* The P.V operand of a stage and the barrier that says it is ready. */
static __device__ __forceinline__ uint32_t fwd_pv_operand(const fwd_smem *s, uint32_t stage)
{
    return FWD_V_ROWS ? fwd_vt(s, stage) : fwd_v(s, stage);
}
#define FWD_PV_FULL (FWD_V_PASS ? FWD_V_READY : FWD_V_FULL)
/* O stage of consumer warpgroup cwg (FWD_O_STAGE). */
static __device__ __forceinline__ uint32_t fwd_o_stage(const fwd_smem *s, int cwg)
{
    return s->base + FWD_O_OFFSET + cwg * FWD_O_STAGE_WG_BYTES;
}
/* Barrier `kind` of K/V `stage` or Q `slot`. */
static __device__ __forceinline__ uint32_t fwd_bar(const fwd_smem *s, int kind, uint32_t stage)
{
    return s->base + FWD_BAR_OFFSET + (stage * FWD_BARRIER_KINDS + kind) * FWD_MBARRIER_BYTES;
}

/* The producer's done flag (FWD_V_PASS), as a pointer: plain shared-memory loads and stores. */
static __device__ __forceinline__ volatile uint32_t *fwd_done_flag(const fwd_smem *s)
{
    return (volatile uint32_t *)__cvta_shared_to_generic(s->base + FWD_DONE_FLAG_OFFSET);
}
/* Keys of stage `stage`'s block inside the sequence (FWD_VARLEN), likewise. */
static __device__ __forceinline__ volatile int32_t *fwd_v_keys(const fwd_smem *s, uint32_t stage)
{
    return (volatile int32_t *)__cvta_shared_to_generic(s->base + FWD_V_KEYS_OFFSET + 4 * stage);
}

static __device__ void fwd_init_barriers(const fwd_smem *s)
{
    /* Empty barriers take one arrival per consumer warp (each warp sees its own wgmma finish). */
    for (uint32_t i = 0; i < FWD_Q_SLOTS; ++i) {
        mbarrier_init(fwd_bar(s, FWD_Q_FULL, i), 1);
        mbarrier_init(fwd_bar(s, FWD_Q_EMPTY, i), FWD_CONSUMER_WARPS);
    }
    for (uint32_t i = 0; i < FWD_STAGES; ++i) {
        mbarrier_init(fwd_bar(s, FWD_K_FULL, i), 1);
        mbarrier_init(fwd_bar(s, FWD_K_EMPTY, i), FWD_CONSUMER_WARPS);
        mbarrier_init(fwd_bar(s, FWD_V_FULL, i), 1);
        mbarrier_init(fwd_bar(s, FWD_V_EMPTY, i), FWD_CONSUMER_WARPS);
        if (FWD_V_PASS) mbarrier_init(fwd_bar(s, FWD_V_READY, i), FWD_TRANSPOSE_THREADS);
    }
    if (FWD_V_PASS) *fwd_done_flag(s) = 0;
    fence_mbarrier_init_release_cluster();
}

typedef struct fwd_tile {
    int32_t m_block, head, batch;
#if FWD_VARLEN
    int32_t q_off, s_q, k_off, s_k; /* the sequence's first row and length in Q, in K/V (s_k: keys used) */
#endif
} fwd_tile;

/* The tile's sequence: lengths, first rows in the (packed) Q and K/V, and the batch coordinate of
   their TMA maps (a packed side is one batch of total rows; paged K/V finds its rows through the
   page table instead, fwd_load_paged). */
#if FWD_VARLEN
#define FWD_SQ(p, c) ((c)->s_q)
#define FWD_SK(p, c) ((c)->s_k)
#define FWD_Q_OFF(c) ((c)->q_off)
#define FWD_K_OFF(c) ((c)->k_off)
#define FWD_Q_BATCH(p, c) ((p)->cu_seqlens_q ? 0 : (c)->batch)
#define FWD_K_BATCH(p, c) ((p)->cu_seqlens_k ? 0 : (c)->batch)
#else
#define FWD_SQ(p, c) ((p)->s_q)
#define FWD_SK(p, c) ((p)->s_k)
#define FWD_Q_OFF(c) 0
#define FWD_K_OFF(c) 0
#define FWD_Q_BATCH(p, c) ((c)->batch)
#define FWD_K_BATCH(p, c) ((c)->batch)
#endif

/* n / pairs per (batch, head) for 0 <= n < 2^31, by multiply-high (sm90_fwd_params.pairs_div_*).
   A run-time integer division (or a select on the divisor) here cost 4-8% on every shape: it is
   computed off the uniform datapath, the tile index stops being provably warp-uniform, and ptxas
   guards every shuffle of the consumer with a divergent-path copy (BRA.DIV, WARPSYNC in SASS). */
static __device__ __forceinline__ int32_t fwd_div_pairs(const sm90_fwd_params *p, int32_t n)
{
    return (int32_t)(__umulhi((uint32_t)n << 1, p->pairs_div_mul) >> p->pairs_div_shift);
}

#define FWD_NO_TILE (-1)   /* this block has no more work */
#define FWD_SKIP_TILE (-2) /* no tile in this round (SM90_SCHED_PAIRS, odd m_block count), go on */

/* Static persistent schedule. Round r gives block i the tile r * grid + i, or with
   SM90_SCHED_SNAKE on odd rounds r * grid + (grid - 1 - i), which evens out the per-block sums of
   tiles sorted longest first. With SM90_SCHED_PAIRS block i runs unit (r / 2) * grid + i: its
   tile m (even r) then tile M-1-m (odd r) of one (batch, head), m_block fastest in the tile index
   as for non-causal. */
static __device__ __forceinline__ int32_t fwd_tile_index(const sm90_fwd_params *p, int32_t round)
{
    /* Both orders are computed and one selected: early returns here have the same effect on ptxas
       as the division above (divergent-path copies of the consumer's shuffles). */
    const int32_t odd = round & 1;
    const int32_t lane = (p->schedule & SM90_SCHED_SNAKE) && odd ? gridDim.x - 1 - blockIdx.x : blockIdx.x;
    const int32_t plain = round * gridDim.x + lane;
    const int32_t m_blocks = p->num_m_blocks, pairs = (m_blocks + 1) / 2;
    const int32_t unit = (round / 2) * gridDim.x + blockIdx.x;
    const int32_t bh = fwd_div_pairs(p, unit), pair = unit - bh * pairs;
    const int32_t longer = m_blocks - 1 - pair;
    const int use_pairs = (p->schedule & SM90_SCHED_PAIRS) != 0;
    const int32_t t = use_pairs ? bh * m_blocks + (odd ? pair : longer) : plain;
    const int past_end = use_pairs ? unit >= p->num_units : plain >= p->num_tiles;
    const int skip = use_pairs && odd && pair == longer; /* odd m_block count: the middle tile is alone */
    return past_end ? FWD_NO_TILE : skip ? FWD_SKIP_TILE : t;
}

/* Tile order. Non-causal and causal pairs: m_block fastest, so the tiles in flight share few
   heads' K/V in L2. Causal otherwise: (batch, head) fastest and m_block descending, i.e. longest
   tiles first. */
static __device__ __forceinline__ fwd_tile fwd_tile_at(const sm90_fwd_params *p, int32_t t)
{
    fwd_tile c;
    int32_t bh;
    if (p->causal && !(p->schedule & SM90_SCHED_PAIRS)) {
        const int32_t heads = p->h_q * p->b;
        c.m_block = p->num_m_blocks - 1 - t / heads;
        bh = t % heads;
    } else {
        c.m_block = t % p->num_m_blocks;
        bh = t / p->num_m_blocks;
    }
    c.head = bh % p->h_q;
    c.batch = bh / p->h_q;
#if FWD_VARLEN
    c.q_off = 0;
    c.s_q = p->s_q;
    c.k_off = 0;
    c.s_k = p->s_k;
    if (p->cu_seqlens_q) {
        c.q_off = p->cu_seqlens_q[c.batch];
        c.s_q = p->cu_seqlens_q[c.batch + 1] - c.q_off;
    }
    if (p->cu_seqlens_k) {
        c.k_off = p->cu_seqlens_k[c.batch];
        c.s_k = p->cu_seqlens_k[c.batch + 1] - c.k_off;
    }
    if (p->seqused_k) c.s_k = p->seqused_k[c.batch]; /* from the sequence's first key (paged: its first page) */
#endif
    return c;
}

/* The tile's key window (sm90_fwd_params.window_*): row i sees keys i + diag - window_left ..
   i + diag + window_right, diag = s_k - s_q (bottom-right aligned), -1 = unbounded; causal is
   window_right = 0. */
static __device__ __forceinline__ int32_t fwd_last_row(const sm90_fwd_params *p, const fwd_tile *c)
{
    return min((c->m_block + 1) * FWD_M, FWD_SQ(p, c)) - 1;
}

/* First key block the tile needs: 0, or (window_left) the block of its first row's first key. */
static __device__ __forceinline__ int32_t fwd_first_n_block(const sm90_fwd_params *p, const fwd_tile *c)
{
    const int32_t first_key = c->m_block * FWD_M + FWD_SK(p, c) - FWD_SQ(p, c) - FWD_WINDOW_LEFT(p);
    return FWD_WINDOW_LEFT(p) >= 0 && first_key > 0 ? first_key / FWD_N : 0;
}

/* FWD_VARLEN: the tile starts past its sequence's last query (max_seqlen_q sizes the grid). */
static __device__ __forceinline__ int fwd_tile_beyond(const sm90_fwd_params *p, const fwd_tile *c)
{
    return FWD_VARLEN && c->m_block * FWD_M >= FWD_SQ(p, c);
}

/* Key blocks the tile needs from fwd_first_n_block on: up to the end of s_k, or (window_right)
   up to the last key its last valid row sees. FWD_VARLEN: 0 for a tile past its sequence's end
   (fwd_tile_beyond), which is then skipped altogether. */
static __device__ __forceinline__ int32_t fwd_num_n_blocks(const sm90_fwd_params *p, const fwd_tile *c)
{
    if (fwd_tile_beyond(p, c)) return 0;
    int32_t n = (FWD_SK(p, c) + FWD_N - 1) / FWD_N;
    if (FWD_WINDOW_RIGHT(p) >= 0) {
        const int32_t last_key = fwd_last_row(p, c) + FWD_SK(p, c) - FWD_SQ(p, c) + FWD_WINDOW_RIGHT(p);
        if (last_key < 0) return 0;
        n = min(n, last_key / FWD_N + 1);
    }
    return max(n - fwd_first_n_block(p, c), 0);
}

static __device__ __forceinline__ int32_t fwd_div_nb(const sm90_fwd_params *p, int32_t n)
{
    return (int32_t)(__umulhi((uint32_t)n << 1, p->nb_div_mul) >> p->nb_div_shift);
}

/* n / page_size (paged K/V), likewise: a division by a run-time value spills the producer's 24
   registers. */
static __device__ __forceinline__ int32_t fwd_div_page(const sm90_fwd_params *p, int32_t n)
{
    return (int32_t)(__umulhi((uint32_t)n << 1, p->page_div_mul) >> p->page_div_shift);
}

/* Tail split (sm90_fwd_params.tail_*): in tail rounds (round >= tail_round) block i runs piece
   j = round - tail_round of its range of tail positions, the part in its first (j = 0) or second
   (j = 1) tile. Positions count a tile's key blocks in the order they are visited (high n
   first), so only a piece that starts a tile holds the s_k tail block. *tl: tail tile of the
   piece, [*lo, *hi): its positions (empty: no piece). */
static __device__ __forceinline__ int fwd_tail_piece(const sm90_fwd_params *p, int32_t round, int32_t *tl,
                                                     int32_t *lo, int32_t *hi)
{
    const int32_t i = blockIdx.x, nb = p->tail_nb;
    const int32_t j = FWD_TAIL_SPLIT ? round - p->tail_round : -1; /* tail_round = INT32_MAX: off */
    const int32_t start = i * p->tail_len + min(i, p->tail_rem);
    const int32_t end = start + p->tail_len + (i < p->tail_rem ? 1 : 0);
    *tl = fwd_div_nb(p, start) + j;
    *lo = max(start, *tl * nb);
    *hi = j <= 1 ? min(end, (*tl + 1) * nb) : *lo;
    return j >= 0;
}

/* The work index of round `round`: fwd_tile_index's, FWD_NO_TILE once this block's tail range
   is done. In tail rounds it is only a token (>= 0: there is a piece; fwd_work_coords gives its
   tile): ptxas keeps the control flow provably warp-uniform only while this index is the plain
   round-robin one (a tail tile number here, even round - tail_round + const, brings back the
   BRA.DIV / WARPSYNC copies of v7 in the prologue, epilogue and wgmma issue). The host sets
   num_tiles past the tail rounds so the plain index is valid there. */
static __device__ __forceinline__ int32_t fwd_work_tile(const sm90_fwd_params *p, int32_t round)
{
    int32_t tl, lo, hi;
    const int in_tail = fwd_tail_piece(p, round, &tl, &lo, &hi);
    const int32_t t_plain = fwd_tile_index(p, round);
    return in_tail && !(lo < hi) ? FWD_NO_TILE : t_plain;
}

/* The tile that work index t of round `round` runs. */
static __device__ __forceinline__ fwd_tile fwd_work_coords(const sm90_fwd_params *p, int32_t round, int32_t t)
{
    int32_t tl, lo, hi;
    const int in_tail = fwd_tail_piece(p, round, &tl, &lo, &hi);
    return fwd_tile_at(p, in_tail ? p->tail_start + tl : t);
}

/* Key blocks [*n_lo, *n_lo + *n_blocks) of the round's tile that this block runs (all outside
   the tail), and the workspace slot of a tail piece (-1: a whole tile, written to O). */
static __device__ __forceinline__ void fwd_work_range(const sm90_fwd_params *p, int32_t round, const fwd_tile *c,
                                                      int32_t *n_lo, int32_t *n_blocks, int32_t *ws_slot)
{
    int32_t tl, lo, hi;
    const int in_tail = fwd_tail_piece(p, round, &tl, &lo, &hi);
    *n_lo = in_tail ? (tl + 1) * p->tail_nb - hi : fwd_first_n_block(p, c);
    *n_blocks = in_tail ? hi - lo : fwd_num_n_blocks(p, c);
    *ws_slot = in_tail ? SM90_TAIL_SLOTS_PER_BLOCK * (int32_t)blockIdx.x + (round - p->tail_round) : -1;
}

/* Whether some score of key block n is masked for some row of the tile: past s_k, past the first
   row's last key (window_right), or before the last valid row's first key (window_left). */
static __device__ __forceinline__ int fwd_block_needs_mask(const sm90_fwd_params *p, const fwd_tile *c, int32_t n)
{
    const int32_t last_key = (n + 1) * FWD_N - 1, diag = FWD_SK(p, c) - FWD_SQ(p, c);
    if (last_key >= FWD_SK(p, c)) return 1;
    if (FWD_WINDOW_RIGHT(p) >= 0 && last_key > c->m_block * FWD_M + diag + FWD_WINDOW_RIGHT(p)) return 1;
    return FWD_WINDOW_LEFT(p) >= 0 && n * FWD_N < fwd_last_row(p, c) + diag - FWD_WINDOW_LEFT(p);
}

/* ---- Producer: TMA loads ----------------------------------------------------------------- */
static __device__ __forceinline__ void fwd_load_tile(uint32_t dst, uint32_t panel_bytes, const CUtensorMap *map,
                                                     int32_t row, int32_t head, int32_t batch, uint32_t bar,
                                                     uint64_t policy)
{
    for (int c = 0; c < FWD_PANELS; ++c)
        cp_async_bulk_tensor_4d_shared_global(dst + c * panel_bytes, map, c * FWD_PANEL_COLS, row, head, batch,
                                              bar, policy);
}

/* V of key block `key0 ..`: row-major like K, or (8-bit, unless FWD_V_ROWS) V^T as panels of
   [D rows x 128 keys]. */
static __device__ __forceinline__ void fwd_load_v(uint32_t dst, const CUtensorMap *map, int32_t key0, int32_t head,
                                                  int32_t batch, uint32_t bar, uint64_t policy)
{
#if FWD_ELEM_IS_E4M3 && !FWD_V_ROWS
    for (int c = 0; c < FWD_N / FWD_VT_PANEL_KEYS; ++c)
        cp_async_bulk_tensor_4d_shared_global(dst + c * FWD_VT_PANEL_BYTES, map, key0 + c * FWD_VT_PANEL_KEYS, 0, head,
                                              batch, bar, policy);
#else
    fwd_load_tile(dst, FWD_KV_PANEL_BYTES, map, key0, head, batch, bar, policy);
#endif
}

#if FWD_VARLEN
/* Paged K or V rows (sm90_fwd_params.page_table): key block key0 .. of the tile's sequence as
   boxes of page_box_rows keys, each inside one page: one box where pages hold whole blocks
   (page_size a multiple of BLOCK_N), else one per page (page_size divides BLOCK_N, a multiple of 8
   rows so each box starts on a swizzle atom). Only boxes with keys inside the sequence are loaded
   (no page-table entry past its pages is read) and the barrier expects just their bytes: the rows
   past them keep what the stage held, which the mask and the V pass hide like the keys past the
   sequence in the last box. Page-table indices are 32-bit (the host refuses larger tables): 64-bit
   address arithmetic here spills the producer's 24 registers. */
static __device__ __forceinline__ void fwd_load_paged(uint32_t dst, const CUtensorMap *map, const sm90_fwd_params *p,
                                                      const fwd_tile *c, int32_t key0, int32_t kv_head, uint32_t bar)
{
    const int32_t box = p->page_box_rows;
    const int32_t boxes = min(c->s_k - key0 + box - 1, FWD_N) / box; /* >= 1: key0 < s_k */
    mbarrier_arrive_expect_tx(bar, boxes * box * FWD_QK_ROW_BYTES * FWD_PANELS);
    int32_t entry = fwd_div_page(p, key0);
    int32_t slot = key0 - entry * p->page_size;
    entry += c->batch * (int32_t)p->page_table_stride;
    for (int32_t k = 0; k < boxes * box; k += box) {
        const int32_t page = p->page_table[entry];
        for (int pc = 0; pc < FWD_PANELS; ++pc)
            cp_async_bulk_tensor_4d_shared_global(dst + pc * FWD_KV_PANEL_BYTES + k * FWD_QK_ROW_BYTES, map,
                                                  pc * FWD_PANEL_COLS, slot, kv_head, page, bar,
                                                  CP_ASYNC_BULK_EVICT_LAST);
        slot += box;
        if (slot == p->page_size) slot = 0, ++entry;
    }
}

#if FWD_ELEM_IS_E4M3 && !FWD_V_ROWS
/* Paged 8-bit V^T ([num_pages, h_kv, d, page_size]): pages hold whole key blocks, so the block's
   [D x 128-key] panels all come from one page. */
static __device__ __forceinline__ void fwd_load_paged_vt(uint32_t dst, const CUtensorMap *map,
                                                         const sm90_fwd_params *p, const fwd_tile *c, int32_t key0,
                                                         int32_t kv_head, uint32_t bar)
{
    mbarrier_arrive_expect_tx(bar, FWD_KV_BYTES);
    const int32_t first = fwd_div_page(p, key0);
    const int32_t page = p->page_table[c->batch * (int32_t)p->page_table_stride + first];
    const int32_t slot = key0 - first * p->page_size;
    for (int pc = 0; pc < FWD_N / FWD_VT_PANEL_KEYS; ++pc)
        cp_async_bulk_tensor_4d_shared_global(dst + pc * FWD_VT_PANEL_BYTES, map, slot + pc * FWD_VT_PANEL_KEYS, 0,
                                              kv_head, page, bar, CP_ASYNC_BULK_EVICT_LAST);
}
#define FWD_LOAD_PAGED_V fwd_load_paged_vt
#else
#define FWD_LOAD_PAGED_V fwd_load_paged
#endif
#endif

/* Run by one thread. Stage counter `kv` runs across tiles exactly as the consumers' does. */
static __device__ void fwd_producer(const sm90_fwd_params *p, const fwd_smem *s)
{
    prefetch_tensormap(&p->tmap_q);
    prefetch_tensormap(&p->tmap_k);
    prefetch_tensormap(&p->tmap_v);
    uint32_t kv = 0, tile_iter = 0;
    for (int32_t round = 0;; ++round) {
        const int32_t t = fwd_work_tile(p, round);
        if (t == FWD_NO_TILE) break;
        if (t == FWD_SKIP_TILE) continue;
        const fwd_tile c = fwd_work_coords(p, round, t);
        int32_t n_lo, n_blocks, ws_slot;
        fwd_work_range(p, round, &c, &n_lo, &n_blocks, &ws_slot);
        if (n_blocks == 0) continue;
        const int32_t kv_head = c.head / p->q_per_kv;
        /* Q slot: the consumers release it after their last QK^T of the tile that used it. */
        const uint32_t q_slot = tile_iter % FWD_Q_SLOTS, q_parity = (tile_iter / FWD_Q_SLOTS) & 1;
        mbarrier_wait_parity(fwd_bar(s, FWD_Q_EMPTY, q_slot), q_parity ^ 1);
        mbarrier_arrive_expect_tx(fwd_bar(s, FWD_Q_FULL, q_slot), FWD_Q_BYTES);
        fwd_load_tile(fwd_q(s, q_slot), FWD_Q_PANEL_BYTES, &p->tmap_q, FWD_Q_OFF(&c) + c.m_block * FWD_M, c.head,
                      FWD_Q_BATCH(p, &c),
                      fwd_bar(s, FWD_Q_FULL, q_slot), CP_ASYNC_BULK_EVICT_FIRST);
        for (int32_t n = n_blocks - 1; n >= 0; --n, ++kv) {
            const uint32_t stage = kv % FWD_STAGES, parity = (kv / FWD_STAGES) & 1;
            const int32_t key0 = (n + n_lo) * FWD_N; /* in the sequence */
            mbarrier_wait_parity(fwd_bar(s, FWD_K_EMPTY, stage), parity ^ 1);
#if FWD_VARLEN
            if (p->page_table)
                fwd_load_paged(fwd_k(s, stage), &p->tmap_k, p, &c, key0, kv_head, fwd_bar(s, FWD_K_FULL, stage));
            else
#endif
            {
                mbarrier_arrive_expect_tx(fwd_bar(s, FWD_K_FULL, stage), FWD_KV_BYTES);
                fwd_load_tile(fwd_k(s, stage), FWD_KV_PANEL_BYTES, &p->tmap_k, FWD_K_OFF(&c) + key0, kv_head,
                              FWD_K_BATCH(p, &c), fwd_bar(s, FWD_K_FULL, stage), CP_ASYNC_BULK_EVICT_LAST);
            }
            mbarrier_wait_parity(fwd_bar(s, FWD_V_EMPTY, stage), parity ^ 1);
#if FWD_VARLEN
            /* for the V pass; the arrival below releases it (its reader of the stage's previous use
               is done: the consumers released V_EMPTY after that use's V_READY) */
            *fwd_v_keys(s, stage) = min(max(FWD_SK(p, &c) - key0, 0), FWD_N);
            if (p->page_table)
                FWD_LOAD_PAGED_V(fwd_v(s, stage), &p->tmap_v, p, &c, key0, kv_head, fwd_bar(s, FWD_V_FULL, stage));
            else
#endif
            {
                mbarrier_arrive_expect_tx(fwd_bar(s, FWD_V_FULL, stage), FWD_KV_BYTES);
                fwd_load_v(fwd_v(s, stage), &p->tmap_v, FWD_K_OFF(&c) + key0, kv_head, FWD_K_BATCH(p, &c),
                           fwd_bar(s, FWD_V_FULL, stage), CP_ASYNC_BULK_EVICT_LAST);
            }
        }
        ++tile_iter;
    }
#if FWD_V_PASS
    /* No more V for the V pass: the stage after the last one completes its V_FULL phase
       without a load, with the done flag set. First every V-pass thread must be past its flag
       check of the last real stage (its V_READY), or it could read the flag set there and skip
       that stage; that also means the next stage's previous V_FULL phase has completed, so this
       arrival cannot land on it. */
    if (kv > 0) {
        const uint32_t last = kv - 1;
        mbarrier_wait_parity(fwd_bar(s, FWD_V_READY, last % FWD_STAGES), (last / FWD_STAGES) & 1);
    }
    *fwd_done_flag(s) = 1;
    mbarrier_arrive(fwd_bar(s, FWD_V_FULL, kv % FWD_STAGES)); /* release: seen after the V pass's wait */
#endif
}

#if FWD_V_PASS
/* ---- Producer warps 1-3: the V pass (FWD_V_PASS) ----------------------------------------- */
#if FWD_VARLEN
/* A 16-byte chunk of shared memory, through a generic pointer (plain ld / st, generic proxy). */
/* Keys [keys, BLOCK_N) of a V stage in K's layout: whole rows of every panel (the swizzle only
   permutes 16-byte chunks inside a row), i.e. one contiguous run of bytes per panel. */
static __device__ __forceinline__ void fwd_zero_v_rows(uint32_t v, int32_t keys, int tid)
{
    sm90_zero_v_rows(v, keys, FWD_N, FWD_QK_ROW_BYTES, FWD_PANELS, FWD_KV_PANEL_BYTES, tid, FWD_TRANSPOSE_THREADS);
}

#if FWD_ELEM_IS_E4M3 && !FWD_V_ROWS
/* Keys [keys, BLOCK_N) of an 8-bit V^T stage (sm90_vt_zero.cuh; a thread takes whole rows, no
   division: 24 registers). */
static __device__ __forceinline__ void fwd_zero_vt_keys(uint32_t vt, int32_t keys, int tid)
{
    sm90_zero_vt_keys(vt, keys, FWD_N, FWD_D, tid, FWD_TRANSPOSE_THREADS);
}
#endif

/* The stage's keys past the sequence (`keys` of BLOCK_N are in it) become 0 in the P.V operand:
   in the V rows before they are transposed (FWD_V_ROWS; the transpose then reads them, so the
   three warps meet at a named barrier first), or in place. */
static __device__ __forceinline__ void fwd_zero_past_keys(uint32_t v, int32_t keys, int tid)
{
#if FWD_ELEM_IS_E4M3 && !FWD_V_ROWS
    fwd_zero_vt_keys(v, keys, tid);
#else
    fwd_zero_v_rows(v, keys, tid);
#endif
#if FWD_V_ROWS
    bar_sync(FWD_BAR_V_PASS, FWD_TRANSPOSE_THREADS);
#endif
}
#endif /* FWD_VARLEN */


/* Run by warps 1-3 of the producer warpgroup: every V stage the producer loads, in its order,
   until the producer's last arrival (done flag): keys past the sequence zeroed (FWD_VARLEN, the
   block count the producer left in fwd_v_keys), then V transposed (FWD_V_ROWS). Each thread
   arrives on V_READY once its stores are visible to wgmma. The schedule is not recomputed here:
   it would not fit in 24 registers. */
static __device__ void fwd_v_pass(const fwd_smem *s, int warp)
{
    const int lane = threadIdx.x % 32;
    for (uint32_t kv = 0;; ++kv) {
        const uint32_t stage = kv % FWD_STAGES, parity = (kv / FWD_STAGES) & 1;
        mbarrier_wait_parity(fwd_bar(s, FWD_V_FULL, stage), parity);
        if (*fwd_done_flag(s)) break;
#if FWD_VARLEN
        const int32_t keys = *fwd_v_keys(s, stage);
        if (keys < FWD_N) fwd_zero_past_keys(fwd_v(s, stage), keys, 32 * warp + lane);
#endif
#if FWD_V_ROWS
        /* one stage: warp w of the FWD_TRANSPOSE_WARPS takes units w, w + WARPS, ... */
        sm90_vt8_transpose(fwd_v(s, stage), fwd_vt(s, stage), FWD_N, FWD_D, FWD_QK_ROW_BYTES, FWD_KV_PANEL_BYTES,
                           FWD_VT_PANEL_BYTES, warp, FWD_TRANSPOSE_WARPS, lane);
#endif
        fence_proxy_async_shared_cta(); /* st / stmatrix (generic proxy) -> wgmma reads (async proxy) */
        mbarrier_arrive(fwd_bar(s, FWD_V_READY, stage));
    }
}
#endif /* FWD_V_PASS */

/* ---- Consumer: GEMMs --------------------------------------------------------------------- */
/* Bytes from a K-major operand tile's start to its k-step kk: rows of row_bytes (128, or 64 for
   8-bit d64's Q and K) hold row_bytes / 32 steps of 32 B; further steps go to the next panel,
   panel_bytes on. */
static __device__ __forceinline__ uint32_t fwd_kmajor_step(int kk, uint32_t row_bytes, uint32_t panel_bytes)
{
    const int steps = row_bytes / FWD_MMA_K_BYTES;
    return (kk / steps) * panel_bytes + (kk % steps) * FWD_MMA_K_BYTES;
}

/* Q / K operand descriptor: 128-byte swizzle, or 64-byte where their rows are 64 bytes. */
static __device__ __forceinline__ uint64_t fwd_qk_desc(uint32_t addr)
{
    return FWD_QK_ROW_BYTES == SM90_PANEL_ROW_BYTES ? wgmma_desc_sw128(addr, 16, FWD_QK_SWIZZLE_GROUP_BYTES)
                                                    : wgmma_desc_sw64(addr, 16, FWD_QK_SWIZZLE_GROUP_BYTES);
}

/* S[64 x N] = Q[64 x D] K[N x D]^T: both K-major. */
static __device__ __forceinline__ void fwd_issue_qk(float *s, uint32_t q, uint32_t k)
{
    const uint64_t da0 = fwd_qk_desc(q);
    const uint64_t db0 = fwd_qk_desc(k);
#pragma unroll
    for (int kk = 0; kk < FWD_D / FWD_MMA_K; ++kk) {
        const uint64_t da = wgmma_desc_advance(da0, fwd_kmajor_step(kk, FWD_QK_ROW_BYTES, FWD_Q_PANEL_BYTES));
        const uint64_t db = wgmma_desc_advance(db0, fwd_kmajor_step(kk, FWD_QK_ROW_BYTES, FWD_KV_PANEL_BYTES));
        FWD_WGMMA_QK(s, da, db, kk > 0);
    }
}

/* O[64 x D] += P[64 x N] V[N x D]: P from registers (4 b32 per k-step), V row-major in smem is
   MN-major B: 64-column panels FWD_KV_PANEL_BYTES apart, 8-key groups 1 KB apart, 16 keys = 2 KB.
   8-bit: V^T [D x N] is K-major B like K in fwd_issue_qk: k-step kk is 128-key panel kk/4, + 32 B.
   accumulate = 0 on a tile's first PV overwrites O, so O is never zeroed by ordinary instructions
   (which would serialise the next tile's QK^T that is in flight during the epilogue). */
static __device__ __forceinline__ void fwd_issue_pv(float *o, const uint32_t *pf, uint32_t v, int accumulate)
{
#if FWD_ELEM_IS_E4M3
    const uint64_t db0 = wgmma_desc_sw128(v, 16, FWD_SWIZZLE_GROUP_BYTES);
#pragma unroll
    for (int kk = 0; kk < FWD_N / FWD_MMA_K; ++kk) {
        const uint64_t db = wgmma_desc_advance(db0, fwd_kmajor_step(kk, SM90_PANEL_ROW_BYTES, FWD_VT_PANEL_BYTES));
        FWD_WGMMA_PV(o, pf + 4 * kk, db, kk > 0 || accumulate);
    }
#else
    const uint64_t db0 = wgmma_desc_sw128(v, FWD_KV_PANEL_BYTES, FWD_SWIZZLE_GROUP_BYTES);
#pragma unroll
    for (int kk = 0; kk < FWD_N / FWD_MMA_K; ++kk) {
        const uint64_t db = wgmma_desc_advance(db0, kk * 2 * FWD_SWIZZLE_GROUP_BYTES);
        FWD_WGMMA_PV(o, pf + 4 * kk, db, kk > 0 || accumulate);
    }
#endif
}

static __device__ __forceinline__ void fwd_fence_s(float *s)
{
#pragma unroll
    for (int i = 0; i < FWD_S_REGS; ++i) wgmma_fence_operand_f32(&s[i]);
}
static __device__ __forceinline__ void fwd_fence_o(float *o)
{
#pragma unroll
    for (int i = 0; i < FWD_O_REGS; ++i) wgmma_fence_operand_f32(&o[i]);
}
static __device__ __forceinline__ void fwd_fence_p(uint32_t *pf)
{
#pragma unroll
    for (int i = 0; i < FWD_P_REGS; ++i) wgmma_fence_operand_b32(&pf[i]);
}

/* Ping-pong: wait for this warpgroup's turn to issue, then hand the turn to the next one. */
static __device__ __forceinline__ void fwd_turn_wait(int cwg)
{
    bar_sync(FWD_BAR_TURN_BASE + cwg, FWD_TURN_THREADS);
}
static __device__ __forceinline__ void fwd_turn_pass(int cwg)
{
    bar_arrive(FWD_BAR_TURN_BASE + (cwg + 1) % FWD_WGS, FWD_TURN_THREADS);
}

/* One arrival per consumer warp, after that warp's wgmma reading the buffer has completed. */
static __device__ __forceinline__ void fwd_release(uint32_t bar)
{
    if (threadIdx.x % 32 == 0) mbarrier_arrive(bar);
}

/* ---- Consumer: softmax ------------------------------------------------------------------- */
/* A tile's score scale (softmax_scale * log2(e), times q_descale * k_descale for 8-bit inputs) and
   output scale (v_descale), per (batch, KV head). */
typedef struct fwd_scales {
    float log2, v;
#if FWD_SCORE_MOD
    float pre;   /* scores -> natural units before the transforms (softmax_scale [x dq dk]; / softcap) */
    float slope; /* ALiBi slope of the tile's (batch, head); 0: none */
#endif
} fwd_scales;

/* An 8-bit dequantisation scale of the tile's (batch, KV head), through its [batch, head] strides. */
static __device__ __forceinline__ float fwd_descale_at(const float *d, const int64_t *stride, const fwd_tile *c,
                                                       int64_t kv_head)
{
    return d[c->batch * stride[0] + kv_head * stride[1]];
}

static __device__ __forceinline__ fwd_scales fwd_tile_scales(const sm90_fwd_params *p, const fwd_tile *c)
{
    fwd_scales r;
    r.log2 = p->scale_log2;
    r.v = 1.0f;
#if FWD_SCORE_MOD
    /* The transforms work on scaled scores (flashc.h: softcap(scale * dq dk s) + alibi), so the
       softmax and the LSE run in natural units: exp2 of log2(e) times the transformed score. */
    r.pre = p->softmax_scale;
#endif
#if FWD_ELEM_IS_E4M3
    /* q_descale * k_descale scale the scores: inside the transforms' scale where there are any */
#if FWD_SCORE_MOD
    float *qk_scale = &r.pre;
#else
    float *qk_scale = &r.log2;
#endif
    const int64_t kv_head = c->head / p->q_per_kv;
    if (p->q_descale) *qk_scale *= fwd_descale_at(p->q_descale, p->descale_stride[0], c, kv_head);
    if (p->k_descale) *qk_scale *= fwd_descale_at(p->k_descale, p->descale_stride[1], c, kv_head);
    if (p->v_descale) r.v = fwd_descale_at(p->v_descale, p->descale_stride[2], c, kv_head);
#endif
#if FWD_SCORE_MOD
    if (FWD_SOFTCAP_ON(p)) r.pre /= p->softcap;
    r.slope = p->alibi ? p->alibi[(int64_t)c->batch * p->alibi_stride[0] + (int64_t)c->head * p->alibi_stride[1]] : 0.0f;
    r.log2 = FLASHC_LOG2E;
#endif
    (void)c;
    return r;
}

/* Thread layout of S: s[4j + 2r + c] = row (row0 + 8r), key n*N + 8j + 2*quad_col + c. */
static __device__ __forceinline__ void fwd_mask(float *s, const sm90_fwd_params *p, const fwd_tile *c, int32_t n,
                                                int32_t row0, int quad_col)
{
    const int32_t key0 = n * FWD_N + 2 * quad_col;
#pragma unroll
    for (int r = 0; r < 2; ++r) {
        const int32_t diag = row0 + 8 * r + FWD_SK(p, c) - FWD_SQ(p, c) - key0; /* the row's diagonal key - key0 */
        int32_t limit = FWD_SK(p, c) - 1 - key0;                                 /* last visible key */
        if (FWD_WINDOW_RIGHT(p) >= 0) limit = min(limit, diag + FWD_WINDOW_RIGHT(p));
        const int32_t first = FWD_WINDOW_LEFT(p) >= 0 ? diag - FWD_WINDOW_LEFT(p) : INT32_MIN; /* first visible key */
#pragma unroll
        for (int j = 0; j < FWD_N / 8; ++j)
#pragma unroll
            for (int k = 0; k < 2; ++k)
                if (8 * j + k > limit || 8 * j + k < first) s[4 * j + 2 * r + k] = -INFINITY;
    }
}

#if FWD_SCORE_MOD
/* flashc.h's score transforms in the accumulator layout of fwd_mask: s = softcap * tanh(scale * s
   / softcap) (FWD_SOFTCAP), then - slope * |row + s_k - s_q - key| (FWD_ALIBI, slope 0 without
   slopes). Runs before the mask, which then overwrites what it hides. The distance is formed in
   f32 from one conversion per row (exact below 2^24 keys), so a score costs one FADD and FFMA. */
static __device__ __forceinline__ void fwd_score_mod(float *s, const sm90_fwd_params *p, const fwd_tile *c,
                                                     const fwd_scales *sc, int32_t n, int32_t row0, int quad_col)
{
    const int32_t key0 = n * FWD_N + 2 * quad_col;
#pragma unroll
    for (int r = 0; r < 2; ++r) {
        const float dist0 = (float)(row0 + 8 * r + FWD_SK(p, c) - FWD_SQ(p, c) - key0); /* row's diagonal key - key0 */
#pragma unroll
        for (int j = 0; j < FWD_N / 8; ++j)
#pragma unroll
            for (int k = 0; k < 2; ++k) {
                /* sc->pre holds the softmax scale (and descales) over softcap: apply_softcap's 1/softcap */
                float x = FWD_SOFTCAP_ON(p) ? apply_softcap(s[4 * j + 2 * r + k], p->softcap, sc->pre)
                                            : s[4 * j + 2 * r + k] * sc->pre;
                if (FWD_ALIBI) x = fmaf(-sc->slope, fabsf(dist0 - (float)(8 * j + k)), x);
                s[4 * j + 2 * r + k] = x;
            }
    }
}
#endif

/* Online softmax of one key block: s becomes exp2(s*scale_log2 - max*scale_log2); corr[r] is the
   factor the previous O and row sum must be multiplied by. Row sums stay per-thread partials.
   Returns whether O must be rescaled (warp-uniform). With FWD_LAZY_RESCALE the running max stays
   stale until some row of the warp grows by more than FWD_RESCALE_SLACK_LOG2 (exp2 values then
   reach at most 2^slack, harmless in f32 and in the 16-bit P; 8-bit: 2^(offset + slack) <= 256),
   so most blocks skip the O rescale
   (FA4's trick). The vote makes the decision warp-uniform: no divergent path around shuffles. */
static __device__ __forceinline__ int fwd_softmax(float *s, float *row_max, float *row_sum, float *corr,
                                                  float scale_log2)
{
    float mx[2];
#pragma unroll
    for (int r = 0; r < 2; ++r) {
        float m = row_max[r];
#pragma unroll
        for (int j = 0; j < FWD_N / 8; ++j) m = fmaxf(m, fmaxf(s[4 * j + 2 * r], s[4 * j + 2 * r + 1]));
        mx[r] = quad_max(m);
    }
#if FWD_LAZY_RESCALE
    /* A row whose max is still -inf compares false (NaN or -inf), one that sees its first key
       compares +inf > slack: it always takes the new max. */
    const int grow = (mx[0] - row_max[0]) * scale_log2 > FWD_RESCALE_SLACK_LOG2 ||
                     (mx[1] - row_max[1]) * scale_log2 > FWD_RESCALE_SLACK_LOG2;
    const int rescale = __any_sync(FLASHC_FULL_WARP_MASK, grow);
#else
    const int rescale = 1;
#endif
#pragma unroll
    for (int r = 0; r < 2; ++r) {
        const float m_new = rescale ? mx[r] : row_max[r];
        /* A row with no visible key yet keeps max -inf: use 0 so exp2(-inf - 0) = 0, never NaN. */
        const float m_scaled = m_new == -INFINITY ? 0.0f : m_new * scale_log2;
        corr[r] = rescale ? ex2_approx_ftz_f32(row_max[r] * scale_log2 - m_scaled) : 1.0f;
        row_max[r] = m_new;
        const float m_off = m_scaled - FWD_P_OFFSET_LOG2; /* P carries 2^offset (8-bit; 0 otherwise) */
        float sum = 0.0f;
#pragma unroll
        for (int j = 0; j < FWD_N / 8; ++j)
#pragma unroll
            for (int c = 0; c < 2; ++c) {
                const float e = ex2_approx_ftz_f32(fmaf(s[4 * j + 2 * r + c], scale_log2, -m_off));
                s[4 * j + 2 * r + c] = e;
                sum += e;
            }
        row_sum[r] = rescale ? fmaf(row_sum[r], corr[r], sum) : row_sum[r] + sum;
    }
    return rescale;
}

#if FWD_V_ROWS
/* P to the 8-bit A fragment against the in-kernel V^T: each lane packs its own scores
   (sm90_vt8_transpose.cuh). */
static __device__ __forceinline__ void fwd_convert_p(uint32_t *pf, const float *s) { sm90_vt8_convert_p(pf, s, FWD_N); }
#elif FWD_ELEM_IS_E4M3
/* P to the 8-bit A fragment through the lane-quad exchange (sm90_p8.cuh). */
static __device__ __forceinline__ void fwd_convert_p(uint32_t *pf, const float *s) { sm90_p8_convert(pf, s, FWD_N); }
#else
/* The accumulator layout of S equals the A-fragment layout of P: pair (2i, 2i+1) -> register i. */
static __device__ __forceinline__ void fwd_convert_p(uint32_t *pf, const float *s)
{
#pragma unroll
    for (int i = 0; i < FWD_P_REGS; ++i) pf[i] = FWD_PACK(s[2 * i], s[2 * i + 1]);
}
#endif

static __device__ __forceinline__ void fwd_rescale_o(float *o, const float *corr)
{
#pragma unroll
    for (int j = 0; j < FWD_D / 8; ++j)
#pragma unroll
        for (int r = 0; r < 2; ++r) {
            o[4 * j + 2 * r] *= corr[r];
            o[4 * j + 2 * r + 1] *= corr[r];
        }
}

/* ---- Consumer: main loop over key blocks of one tile ------------------------------------- */
/* S = Q K^T of a tile's first (highest) key block, left in flight: waits for Q and K, takes a turn. */
static __device__ __forceinline__ void fwd_issue_first_qk(const fwd_smem *sm, int cwg, uint32_t tile_iter,
                                                          uint32_t kv, float *s)
{
    const uint32_t q_slot = tile_iter % FWD_Q_SLOTS, q_parity = (tile_iter / FWD_Q_SLOTS) & 1;
    const uint32_t stage = kv % FWD_STAGES, parity = (kv / FWD_STAGES) & 1;
    mbarrier_wait_parity(fwd_bar(sm, FWD_Q_FULL, q_slot), q_parity);
    mbarrier_wait_parity(fwd_bar(sm, FWD_K_FULL, stage), parity);
    fwd_turn_wait(cwg);
    wgmma_fence();
    fwd_issue_qk(s, fwd_q(sm, q_slot) + cwg * FWD_WG_ROWS * FWD_QK_ROW_BYTES, fwd_k(sm, stage));
    wgmma_commit_group();
    fwd_turn_pass(cwg);
}

/* One steady-state step for key block n: issue S_{n-1} = Q K_{n-1}^T and O += P_n V_n, softmax of
   S_{n-1} while PV runs, then rescale O and convert P. `masked` is a compile-time constant at
   both call sites: a branch between wait_group(1) and wait_group(0) (a control-flow join with the
   PV in flight) makes ptxas place the PV wait at the join, before the softmax, which loses the
   softmax/PV overlap (seen in SASS: WARPGROUP.DEPBAR gsb0 0x0 right after the mask's join). */
static __device__ __forceinline__ void fwd_step(const sm90_fwd_params *p, const fwd_smem *sm, int cwg,
                                                const fwd_tile *c, int32_t n, int32_t n_blocks, int32_t row0,
                                                int quad_col, uint32_t q, uint32_t q_slot, uint32_t *kv,
                                                uint32_t *stage, uint32_t *parity, float *s, float *o, uint32_t *pf,
                                                float *row_max, float *row_sum, float *corr, int32_t n_lo,
                                                const fwd_scales *sc, int masked)
{
    const uint32_t v_stage = *stage, v_parity = *parity;
    ++*kv;
    *stage = *kv % FWD_STAGES;
    *parity = (*kv / FWD_STAGES) & 1;
    mbarrier_wait_parity(fwd_bar(sm, FWD_K_FULL, *stage), *parity);
    fwd_turn_wait(cwg);
    fwd_fence_o(o);
    fwd_fence_p(pf);
    wgmma_fence();
    fwd_issue_qk(s, q, fwd_k(sm, *stage));
    wgmma_commit_group();
    mbarrier_wait_parity(fwd_bar(sm, FWD_PV_FULL, v_stage), v_parity);
    wgmma_fence();
    fwd_issue_pv(o, pf, fwd_pv_operand(sm, v_stage), n < n_blocks - 1);
    wgmma_commit_group();
    fwd_turn_pass(cwg);
    wgmma_wait_group(1);
    fwd_fence_s(s);
    fwd_release(fwd_bar(sm, FWD_K_EMPTY, *stage));
    if (n == 1) fwd_release(fwd_bar(sm, FWD_Q_EMPTY, q_slot));
#if FWD_SCORE_MOD
    fwd_score_mod(s, p, c, sc, n - 1 + n_lo, row0, quad_col);
#endif
    if (masked) fwd_mask(s, p, c, n - 1 + n_lo, row0, quad_col);
    const int rescale = fwd_softmax(s, row_max, row_sum, corr, sc->log2);
    wgmma_wait_group(0);
    fwd_fence_o(o);
    fwd_fence_p(pf);
    fwd_release(fwd_bar(sm, FWD_V_EMPTY, v_stage));
    if (rescale) fwd_rescale_o(o, corr);
    fwd_convert_p(pf, s);
}

/* The tile's first QK^T (into s) has been issued by fwd_issue_first_qk and has completed. n counts
   the piece's key blocks (0 .. n_blocks - 1), key block n_lo + n of the tile. */
static __device__ __forceinline__ void fwd_mainloop(const sm90_fwd_params *p, const fwd_smem *sm, int cwg,
                                                    const fwd_tile *c, int32_t n_lo, int32_t n_blocks, int32_t row0,
                                                    int quad_col, uint32_t *kv_counter, uint32_t tile_iter,
                                                    const fwd_scales *sc, float *s, float *o, float *row_max,
                                                    float *row_sum)
{
    const uint32_t q_slot = tile_iter % FWD_Q_SLOTS;
    const uint32_t q = fwd_q(sm, q_slot) + cwg * FWD_WG_ROWS * FWD_QK_ROW_BYTES;
    float corr[2];
    uint32_t pf[FWD_P_REGS];
    uint32_t kv = *kv_counter;
    uint32_t stage = kv % FWD_STAGES, parity = (kv / FWD_STAGES) & 1;
    int32_t n = n_blocks - 1;

    /* Prologue: S of the last key block alone. */
    fwd_fence_s(s);
    fwd_release(fwd_bar(sm, FWD_K_EMPTY, stage));
    if (n == 0) fwd_release(fwd_bar(sm, FWD_Q_EMPTY, q_slot));
#if FWD_SCORE_MOD
    fwd_score_mod(s, p, c, sc, n + n_lo, row0, quad_col);
#endif
    if (fwd_block_needs_mask(p, c, n + n_lo)) fwd_mask(s, p, c, n + n_lo, row0, quad_col);
    fwd_softmax(s, row_max, row_sum, corr, sc->log2);
    fwd_convert_p(pf, s);

    /* Steady state: S_{n-1} = Q K_{n-1}^T and O += P_n V_n in flight together. The blocks that
       need masking come first (high n: causal diagonal, s_k tail) and, with window_left, last
       (the window's left edge): they get their own copy of the step, so neither copy branches
       between the two waits (see fwd_step). Below the first stretch only window_left masks. */
    for (; n > 0 && fwd_block_needs_mask(p, c, n - 1 + n_lo); --n)
        fwd_step(p, sm, cwg, c, n, n_blocks, row0, quad_col, q, q_slot, &kv, &stage, &parity, s, o, pf, row_max,
                 row_sum, corr, n_lo, sc, 1);
    for (; n > 0 && !(FWD_WINDOW_LEFT(p) >= 0 && fwd_block_needs_mask(p, c, n - 1 + n_lo)); --n)
        fwd_step(p, sm, cwg, c, n, n_blocks, row0, quad_col, q, q_slot, &kv, &stage, &parity, s, o, pf, row_max,
                 row_sum, corr, n_lo, sc, 0);
#if FWD_WINDOWS
    for (; n > 0; --n) /* the window's left edge */
        fwd_step(p, sm, cwg, c, n, n_blocks, row0, quad_col, q, q_slot, &kv, &stage, &parity, s, o, pf, row_max,
                 row_sum, corr, n_lo, sc, 1);
#endif

    /* Drain: O += P_0 V_0. */
    mbarrier_wait_parity(fwd_bar(sm, FWD_PV_FULL, stage), parity);
    fwd_turn_wait(cwg);
    fwd_fence_o(o);
    fwd_fence_p(pf);
    wgmma_fence();
    fwd_issue_pv(o, pf, fwd_pv_operand(sm, stage), n_blocks > 1);
    wgmma_commit_group();
    fwd_turn_pass(cwg);
    wgmma_wait_group(0);
    fwd_fence_o(o);
    fwd_release(fwd_bar(sm, FWD_V_EMPTY, stage));
    *kv_counter = kv + 1;
}

/* ---- Epilogue ---------------------------------------------------------------------------- */
/* ln of the row's softmax denominator from the running max and the thread-summed row sum (which
   carries P's 2^FWD_P_OFFSET_LOG2). */
static __device__ __forceinline__ float fwd_lse(float row_max, float sum, float scale_log2)
{
    return sum > 0.0f ? (row_max * scale_log2 + __log2f(sum) - FWD_P_OFFSET_LOG2) * FLASHC_LN2 : -INFINITY;
}

/* O / rowsum to global (bf16x2 / f16x2 per thread, rows >= s_q skipped); LSE = ln(sum) + max*scale.
   A row with no visible key has sum 0: it writes zeros and LSE -inf. Also writes the key-less
   tiles of the FWD_O_STAGE variants (rare: causal s_q > s_k), whose O registers hold garbage. */
static __device__ __forceinline__ void fwd_epilogue_direct(const sm90_fwd_params *p, const fwd_scales *sc,
                                                           const fwd_tile *c, int32_t row0, int quad_col,
                                                           const float *o, const float *row_max, const float *row_sum)
{
#pragma unroll
    for (int r = 0; r < 2; ++r) {
        const float sum = quad_sum(row_sum[r]);
        const int32_t row = row0 + 8 * r;
        if (row >= FWD_SQ(p, c)) continue;
        const float inv = sum > 0.0f ? sc->v / sum : 0.0f;
        /* varlen: o_stride[0] and lse_stride[0] are 0 and rows count from the packed tensor's start */
        uint16_t *dst = (uint16_t *)p->o + (int64_t)c->batch * p->o_stride[0] +
                        (int64_t)(FWD_Q_OFF(c) + row) * p->o_stride[1] + (int64_t)c->head * p->o_stride[2] +
                        2 * quad_col;
#pragma unroll
        for (int j = 0; j < FWD_D / 8; ++j) {
            /* select, not multiply: O is not initialised for a tile without keys */
            const float lo = sum > 0.0f ? o[4 * j + 2 * r] * inv : 0.0f;
            const float hi = sum > 0.0f ? o[4 * j + 2 * r + 1] * inv : 0.0f;
            *(uint32_t *)(dst + 8 * j) = p->out_bf16 ? cvt_rn_bf16x2_f32(lo, hi) : cvt_rn_f16x2_f32(lo, hi);
        }
        if (p->lse && quad_col == 0)
            p->lse[(int64_t)c->batch * p->lse_stride[0] + (int64_t)c->head * p->lse_stride[1] + FWD_Q_OFF(c) + row] =
                fwd_lse(row_max[r], sum, sc->log2);
    }
}

/* A tail piece: O / (its own row sum) in f32 and its LSE to workspace slot `slot` (rows >= s_q
   skipped; sm90_combine reads only rows < s_q). Every row of a non-causal piece sees a key. */
static __device__ __forceinline__ void fwd_epilogue_ws(const sm90_fwd_params *p, const fwd_scales *sc, int32_t slot,
                                                       int32_t row_in_tile, int32_t row0, int quad_col, const float *o,
                                                       const float *row_max, const float *row_sum)
{
#pragma unroll
    for (int r = 0; r < 2; ++r) {
        const float sum = quad_sum(row_sum[r]);
        if (row0 + 8 * r >= p->s_q) continue;
        const int64_t row = (int64_t)slot * FWD_M + row_in_tile + 8 * r;
        const float inv = sum > 0.0f ? sc->v / sum : 0.0f;
        float *dst = p->ws_o + row * FWD_D + 2 * quad_col;
#pragma unroll
        for (int j = 0; j < FWD_D / 8; ++j)
            *(float2 *)(dst + 8 * j) = make_float2(o[4 * j + 2 * r] * inv, o[4 * j + 2 * r + 1] * inv);
        if (quad_col == 0)
            p->ws_lse[row] = fwd_lse(row_max[r], sum, sc->log2);
    }
}

#if FWD_O_STAGE
/* O / rowsum through the warpgroup's O stage: stmatrix in the 128B-swizzled panel layout of the
   O tensor map, then one thread issues the TMA stores (whole 128-byte rows; rows >= s_q are
   clipped by TMA). The stage is reused a tile later: the store has long been read by then, the
   wait below only makes sure. Every tile reaching here has keys, so its O was written by wgmma
   (a row without a visible key holds 0 and gets inv = 0). */
static __device__ __forceinline__ void fwd_epilogue(const sm90_fwd_params *p, const fwd_scales *sc,
                                                    const fwd_smem *sm, int cwg, const fwd_tile *c, int32_t row0,
                                                    int quad_col, const float *o, const float *row_max,
                                                    const float *row_sum)
{
    const int tid = threadIdx.x % FWD_WG_THREADS, warp = tid / 32, lane = tid % 32;
    float inv[2];
#pragma unroll
    for (int r = 0; r < 2; ++r) {
        const float sum = quad_sum(row_sum[r]);
        const int32_t row = row0 + 8 * r;
        inv[r] = sum > 0.0f ? sc->v / sum : 0.0f;
        if (p->lse && quad_col == 0 && row < p->s_q)
            p->lse[(int64_t)c->batch * p->lse_stride[0] + (int64_t)c->head * p->lse_stride[1] + row] =
                fwd_lse(row_max[r], sum, sc->log2);
    }
    const uint32_t stage = fwd_o_stage(sm, cwg);
    if (tid == 0) cp_async_bulk_wait_group_read(0);
    bar_sync(FWD_BAR_EPI_BASE + cwg, FWD_WG_THREADS);
    /* One stmatrix.x4 per 16 columns: matrices (cols j, rows 0-7), (j, 8-15), (j+1, 0-7),
       (j+1, 8-15) of the warp's 16 rows, j counting 8-column chunks; lane l addresses row l % 8
       of matrix l / 8. */
    const int32_t st_row = warp * 16 + ((lane / 8) % 2) * 8 + lane % 8;
    const int st_chunk = lane / 16;
#pragma unroll
    for (int j = 0; j < FWD_D / 8; j += 2) {
        uint32_t frag[4];
#pragma unroll
        for (int jj = 0; jj < 2; ++jj)
#pragma unroll
            for (int r = 0; r < 2; ++r) {
                const float lo = o[4 * (j + jj) + 2 * r] * inv[r], hi = o[4 * (j + jj) + 2 * r + 1] * inv[r];
                frag[2 * jj + r] = p->out_bf16 ? cvt_rn_bf16x2_f32(lo, hi) : cvt_rn_f16x2_f32(lo, hi);
            }
        const int chunk = j + st_chunk;
        const uint32_t addr = stage + (chunk / FWD_CHUNKS_PER_ROW) * FWD_O_PANEL_BYTES + st_row * SM90_PANEL_ROW_BYTES +
                              ((chunk % FWD_CHUNKS_PER_ROW) ^ (st_row % FWD_CHUNKS_PER_ROW)) * FWD_CHUNK_BYTES;
        stmatrix_sync_aligned_m8n8_x4_shared_b16(addr, frag);
    }
    fence_proxy_async_shared_cta(); /* generic-proxy writes -> the TMA store's async-proxy reads */
    bar_sync(FWD_BAR_EPI_BASE + cwg, FWD_WG_THREADS);
    if (tid == 0) {
        const int32_t row = c->m_block * FWD_M + cwg * FWD_WG_ROWS;
#pragma unroll
        for (int panel = 0; panel < FWD_O_PANELS; ++panel)
            cp_async_bulk_tensor_4d_global_shared(&p->tmap_o, panel * SM90_PANEL_COLS, row, c->head, c->batch,
                                                  stage + panel * FWD_O_PANEL_BYTES);
        cp_async_bulk_commit_group();
    }
}
#else
static __device__ __forceinline__ void fwd_epilogue(const sm90_fwd_params *p, const fwd_scales *sc,
                                                    const fwd_smem *sm, int cwg, const fwd_tile *c, int32_t row0,
                                                    int quad_col, const float *o, const float *row_max,
                                                    const float *row_sum)
{
    (void)sm;
    (void)cwg;
    fwd_epilogue_direct(p, sc, c, row0, quad_col, o, row_max, row_sum);
}
#endif

/* First work at or after `*round` that has key blocks; tiles without any (causal, s_q > s_k) are
   written on the way (zeros, LSE -inf). Returns its tile, -1 when this block has no more work.
   Only the round crosses the consumer's tile loop; the work is recomputed from it there. */
static __device__ __forceinline__ int32_t fwd_next_work(const sm90_fwd_params *p, int32_t *round, int32_t row_in_tile,
                                                        int quad_col, const float *o)
{
    const float no_max[2] = {-INFINITY, -INFINITY}, no_sum[2] = {0.0f, 0.0f};
    const fwd_scales no_scales = {p->scale_log2, 1.0f}; /* a row without keys: zeros, LSE -inf */
    for (;; ++*round) {
        const int32_t t = fwd_work_tile(p, *round);
        if (t == FWD_NO_TILE) return -1;
        if (t == FWD_SKIP_TILE) continue;
        const fwd_tile c = fwd_work_coords(p, *round, t);
        /* tail pieces (never causal) always have keys; varlen tiles past their sequence write nothing */
        if (fwd_num_n_blocks(p, &c) > 0) return t;
        if (fwd_tile_beyond(p, &c)) continue;
        fwd_epilogue_direct(p, &no_scales, &c, c.m_block * FWD_M + row_in_tile, quad_col, o, no_max, no_sum);
    }
}

static __device__ void fwd_consumer(const sm90_fwd_params *p, const fwd_smem *sm, int cwg)
{
    const int tid = threadIdx.x % FWD_WG_THREADS;
    const int warp = tid / 32, lane = tid % 32;
    const int quad_col = lane % 4;
    const int32_t row_in_tile = cwg * FWD_WG_ROWS + warp * 16 + lane / 4;
    uint32_t kv = 0, tile_iter = 0;
    float s[FWD_S_REGS], o[FWD_O_REGS]; /* accumulators live across tiles (see fwd_issue_pv) */
    /* The first consumer warpgroup holds the first turn (passed to it by the "last" one). */
    if (cwg == 0) fwd_turn_pass(FWD_WGS - 1);
    /* Each tile's first QK^T is issued once: here, or under the previous tile's epilogue. It is
       complete (wait_group 0) before control flow joins, so no accumulator is in flight across a
       join (ptxas would serialise every wgmma otherwise, C7515). */
    int32_t round = 0;
    int32_t t = fwd_next_work(p, &round, row_in_tile, quad_col, o);
    if (t >= 0) {
        fwd_issue_first_qk(sm, cwg, tile_iter, kv, s);
        wgmma_wait_group(0);
    }
    while (t >= 0) {
        const fwd_tile c = fwd_work_coords(p, round, t);
        int32_t n_lo, n_blocks, ws_slot;
        fwd_work_range(p, round, &c, &n_lo, &n_blocks, &ws_slot);
        const int32_t row0 = c.m_block * FWD_M + row_in_tile;
        float row_max[2] = {-INFINITY, -INFINITY}, row_sum[2] = {0.0f, 0.0f};
        const fwd_scales sc = fwd_tile_scales(p, &c);
        fwd_mainloop(p, sm, cwg, &c, n_lo, n_blocks, row0, quad_col, &kv, tile_iter, &sc, s, o, row_max, row_sum);
        ++tile_iter;
        ++round;
        const int32_t t_next = fwd_next_work(p, &round, row_in_tile, quad_col, o);
        /* Each branch waits for the next first QK^T before it rejoins (see above). */
        if (FWD_TAIL_SPLIT && ws_slot >= 0) {
            if (t_next >= 0) {
                fwd_issue_first_qk(sm, cwg, tile_iter, kv, s);
                fwd_epilogue_ws(p, &sc, ws_slot, row_in_tile, row0, quad_col, o, row_max, row_sum);
                wgmma_wait_group(0);
            } else {
                fwd_epilogue_ws(p, &sc, ws_slot, row_in_tile, row0, quad_col, o, row_max, row_sum);
            }
        } else if (t_next >= 0) {
            fwd_issue_first_qk(sm, cwg, tile_iter, kv, s);
            fwd_epilogue(p, &sc, sm, cwg, &c, row0, quad_col, o, row_max, row_sum);
            wgmma_wait_group(0);
        } else {
            fwd_epilogue(p, &sc, sm, cwg, &c, row0, quad_col, o, row_max, row_sum);
        }
        t = t_next;
    }
#if FWD_O_STAGE
    /* The O stage must outlive the last TMA store's reads of it. */
    if (threadIdx.x % FWD_WG_THREADS == 0) cp_async_bulk_wait_group(0);
#endif
}

/* ---- Kernel and launcher ----------------------------------------------------------------- */
__global__ void __launch_bounds__(FWD_THREADS, 1) FWD_KERNEL(const __grid_constant__ sm90_fwd_params params)
{
    extern __shared__ uint8_t fwd_smem_raw[];
    const uint32_t raw = (uint32_t)__cvta_generic_to_shared(fwd_smem_raw);
    fwd_smem sm;
    sm.base = (raw + SM90_SMEM_ALIGN - 1) & ~(uint32_t)(SM90_SMEM_ALIGN - 1);
    if (threadIdx.x == 0) fwd_init_barriers(&sm);
    __syncthreads();
    if (threadIdx.x < FWD_WG_THREADS) {
        setmaxnreg_dec_sync_aligned_u32(FWD_PRODUCER_REGS);
        const int warp = threadIdx.x / 32;
        if (threadIdx.x == 0) fwd_producer(&params, &sm);
#if FWD_V_PASS
        if (warp >= FWD_TRANSPOSE_WARP0) fwd_v_pass(&sm, warp - FWD_TRANSPOSE_WARP0);
#else
        (void)warp;
#endif
    } else {
        setmaxnreg_inc_sync_aligned_u32(FWD_CONSUMER_REGS);
        fwd_consumer(&params, &sm, threadIdx.x / FWD_WG_THREADS - 1);
    }
}

extern "C" cudaError_t FWD_NAME(const sm90_fwd_params *params, int grid, cudaStream_t stream)
{
    cudaError_t err = cudaFuncSetAttribute(FWD_KERNEL, cudaFuncAttributeMaxDynamicSharedMemorySize, FWD_SMEM_BYTES);
    if (err != cudaSuccess) return err;
    FWD_KERNEL<<<grid, FWD_THREADS, FWD_SMEM_BYTES, stream>>>(*params);
    return cudaGetLastError();
}
