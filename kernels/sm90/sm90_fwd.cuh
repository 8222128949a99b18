/*
 * Shared between the Hopper forward kernel variants and their host launcher (sm90_api.cu):
 * the kernel parameter block and the tile table. Each tile shape is a compile-time constant of one
 * variant; the host reads the same table to encode the TMA boxes and size shared memory.
 */
#ifndef FLASHC_SM90_FWD_CUH
#define FLASHC_SM90_FWD_CUH

#include <stdint.h>
#include <cuda.h> /* CUtensorMap (type only: the library never links libcuda) */
#include <cuda_runtime.h>

/* ---- Tile table ------------------------------------------------------------------------------
 * WGS consumer warpgroups x 64 rows = BLOCK_M query rows per tile; BLOCK_N keys per K/V stage;
 * STAGES deep K/V ring; Q_SLOTS Q buffers; 16-bit elements; O_STAGE 1: the epilogue stages O
 * [BLOCK_M x D] in shared memory for TMA stores (0: straight from registers to global);
 * LAZY_RESCALE 1: O is rescaled only when a row max grows by more than a slack (fwd_softmax).
 * Shared memory (bytes in comments) = Q_SLOTS * Q + STAGES * (K + V [+ V^T]) + O_STAGE * O
 * + alignment slack + barriers; the per-block limit is 232,448 B. d64 has two shapes: 3 consumer
 * WGs win once the key loop is long, 2 win on short ones (fewer, shorter tile transitions). */
#define SM90_D64_SHORT_WGS 2
#define SM90_D64_SHORT_BLOCK_N 128
#define SM90_D64_SHORT_STAGES 2
#define SM90_D64_SHORT_Q_SLOTS 2
#define SM90_D64_SHORT_O_STAGE 1      /* 115,968 B */
#define SM90_D64_SHORT_LAZY_RESCALE 1
#define SM90_D64_LONG_WGS 3
#define SM90_D64_LONG_BLOCK_N 128
#define SM90_D64_LONG_STAGES 2
#define SM90_D64_LONG_Q_SLOTS 2
#define SM90_D64_LONG_O_STAGE 1       /* 140,544 B */
#define SM90_D64_LONG_LAZY_RESCALE 1
#define SM90_D64_LONG_MIN_SK 4096     /* s_k from which the 3-WG shape is used */
#define SM90_D128_WGS 2
#define SM90_D128_BLOCK_N 128
#define SM90_D128_STAGES 2
#define SM90_D128_Q_SLOTS 2
#define SM90_D128_O_STAGE 1           /* 230,656 B */
#define SM90_D128_LAZY_RESCALE 1
#define SM90_D256_WGS 2
#define SM90_D256_BLOCK_N 80
#define SM90_D256_STAGES 2
#define SM90_D256_Q_SLOTS 1
#define SM90_D256_O_STAGE 0           /* 230,656 B (no room for a second Q or an O stage) */
#define SM90_D256_LAZY_RESCALE 1
/* fp8 e4m3 with V pre-transposed (8-bit wgmma, both operands K-major). Panels hold 128 columns, so
   a K/V stage is half the 16-bit one's bytes; V^T boxes are 128 keys wide (BLOCK_N a multiple of
   128). Shapes as FA3's V-column-major fp8 tiles, unmeasured here: the ring depth and BLOCK_N
   are the first knobs to sweep. */
/* d64: Q / K rows are 64 bytes (64-byte swizzle), three consumer warpgroups as FA3's fp8 d64 */
#define SM90_E4M3_D64_WGS 3
#define SM90_E4M3_D64_BLOCK_N 128
#define SM90_E4M3_D64_STAGES 2
#define SM90_E4M3_D64_Q_SLOTS 2
#define SM90_E4M3_D64_O_STAGE 1       /* 83,200 B */
#define SM90_E4M3_D64_LAZY_RESCALE 1
#define SM90_E4M3_D64_MOD_WGS 2      /* per-sequence + score transforms (_vl_mod): 3 WGs spill there */
#define SM90_E4M3_D128_WGS 2
#define SM90_E4M3_D128_BLOCK_N 128
#define SM90_E4M3_D128_STAGES 2
#define SM90_E4M3_D128_Q_SLOTS 2
#define SM90_E4M3_D128_O_STAGE 1      /* 132,352 B */
#define SM90_E4M3_D128_LAZY_RESCALE 1
#define SM90_E4M3_D256_WGS 2
#define SM90_E4M3_D256_BLOCK_N 128
#define SM90_E4M3_D256_STAGES 2
#define SM90_E4M3_D256_Q_SLOTS 1
#define SM90_E4M3_D256_O_STAGE 1      /* 230,656 B */
#define SM90_E4M3_D256_LAZY_RESCALE 1
/* fp8 e4m3 with V in K's layout (fwd_e4m3_d<D>_vr.cu): the same shapes plus a V^T ring of STAGES
   x [D x BLOCK_N] bytes, which the kernel writes from the V rows; d256 gives up its O stage for it. */
#define SM90_E4M3_VR_D64_O_STAGE SM90_E4M3_D64_O_STAGE   /* 99,584 B */
#define SM90_E4M3_VR_D128_O_STAGE SM90_E4M3_D128_O_STAGE /* 165,120 B */
#define SM90_E4M3_VR_D256_O_STAGE 0                      /* 230,656 B */
/* Columns of one 128-byte swizzle panel (16-bit elements; 128 for 8-bit inputs): TMA boxes and
   wgmma tiles are built from panels of [rows x 64]. */
#define SM90_WG_ROWS 64
#define SM90_PANEL_COLS 64
#define SM90_PANEL_ROW_BYTES 128
#define SM90_SMEM_ALIGN 1024 /* 128B-swizzle atom: TMA, wgmma descriptors agree at base offset 0 */
#define SM90_BARRIER_BYTES 256
#define SM90_O_ELEM_BYTES 2 /* O is f16 or bf16 */
/* V_ROWS 1: the 8-bit variants that transpose V in the kernel keep a V^T ring beside the V rows. */
#define SM90_SMEM_BYTES(D, BLOCK_M, BLOCK_N, STAGES, Q_SLOTS, O_STAGE, ELEM_BYTES, V_ROWS)             \
    (SM90_SMEM_ALIGN + ((Q_SLOTS) * (BLOCK_M) + 2 * (STAGES) * (BLOCK_N)) * (D) * (ELEM_BYTES) +          \
     (V_ROWS) * (STAGES) * (BLOCK_N) * (D) + (O_STAGE) * (BLOCK_M) * (D) * SM90_O_ELEM_BYTES +          \
     SM90_BARRIER_BYTES)

/* Tile schedule options (sm90_fwd_params.schedule). */
#define SM90_SCHED_SNAKE 1 /* reverse the block order on odd rounds */
/* Causal: a block runs query tile m and then tile M-1-m of the same (batch, head), so every unit
   of work has about the same length and the units in flight cover few heads, whose K/V stay in
   L2. Longest-first order instead runs one m_block of all heads at once and re-reads each head's
   K/V from DRAM once per tile when there are many heads (short sequences). */
#define SM90_SCHED_PAIRS 2
/* Default: pairs when the snake order would run fewer than this many tiles of one head at a
   time (grid < heads * N: little K/V reuse) and the tiles are short (at most
   SM90_PAIRS_MAX_M_BLOCKS query tiles per head). Measured pairs vs snake, H200, b*s = 16k, causal
   (docs/sm90.md v7): s = 2k (16 tiles per head) +9% d128, +3% d256, +0.5% d64; s = 4k -1..-2.5%,
   8k-16k -3..-5% (the tail of equal-length units costs more than the L2 reuse gains). */
#define SM90_PAIRS_BELOW_TILES_PER_HEAD 4
#define SM90_PAIRS_MAX_M_BLOCKS 16

/* ---- Kernel parameters -------------------------------------------------------------------- */
typedef struct sm90_fwd_params {
    CUtensorMap tmap_q; /* dims {d, s_q, h_q, b}, box {64, BLOCK_M, 1, 1} */
    CUtensorMap tmap_k; /* dims {d, s_k, h_kv, b}, box {64, BLOCK_N, 1, 1} (8-bit: {min(d, 128), ...}) */
    CUtensorMap tmap_v; /* as k; 8-bit V^T: dims {s_k, d, h_kv, b}, box {128, d, 1, 1} */
    void *o;            /* [b, s_q, h_q, d] through o_stride */
    float *lse;         /* [b, h_q, s_q] through lse_stride, or NULL */
    int64_t o_stride[3];  /* batch, row, head (elements) */
    int64_t lse_stride[2]; /* batch, head */
    int32_t b, h_q, h_kv, s_q, s_k;
    int32_t q_per_kv;   /* h_q / h_kv (GQA group size) */
    int32_t causal;     /* window_right == 0: causal tile order (longest first, see fwd_tile_at) */
    int32_t out_bf16;   /* 1: out is bf16, 0: f16 */
    float scale_log2;   /* softmax_scale * log2(e) */
    int32_t num_m_blocks;
    int32_t num_tiles;  /* num_m_blocks * h_q * b; with the tail split (tail_round + 2) * grid */
    int32_t schedule;   /* SM90_SCHED_* bits */
    int32_t num_units;  /* SM90_SCHED_PAIRS: pairs * h_q * b, pairs = (num_m_blocks + 1) / 2 */
    uint32_t pairs_div_mul, pairs_div_shift; /* n / pairs = umulhi(2n, mul) >> shift (sm90_api.cu) */
    /* O_STAGE variants only: dims {d, s_q, h_q, b}, box {64, 64, 1, 1}, output dtype. Last, so
       the fields above keep their offsets for kernels built without it (the A/B tool's base). */
    CUtensorMap tmap_o;
    /* Tail split (stream-K over the last round, non-causal only; sm90_api.cu decides): rounds
       < tail_round run whole tiles as above; the tail's tail_tiles tiles from tail_start, each of
       tail_nb key blocks, are cut into one contiguous range of (tile, key block) positions per
       block: block i gets tail_len + (i < tail_rem) positions from i * tail_len + min(i, tail_rem).
       A range covers at most two tile pieces, run in rounds tail_round and tail_round + 1; each
       piece writes O / its own row sum (f32) and its LSE to workspace slot 2 i + (piece), and
       sm90_combine merges them. tail_round = INT32_MAX: off. */
    int32_t tail_round, tail_start, tail_tiles, tail_nb, tail_len, tail_rem;
    uint32_t nb_div_mul, nb_div_shift; /* n / tail_nb as for pairs_div_* */
    float *ws_o;   /* [2 * grid slots][BLOCK_M rows][d] */
    float *ws_lse; /* [2 * grid slots][BLOCK_M rows] */
    /* 8-bit variants: dequantisation scales, f32 [b, h_kv] through descale_stride[q|k|v][batch,
       head] (elements), NULL = 1 (unread by the 16-bit variants). */
    const float *q_descale, *k_descale, *v_descale;
    int64_t descale_stride[3][2];
    /* Key window, bottom-right aligned: row i sees keys i + s_k - s_q - window_left ..
       i + s_k - s_q + window_right; -1 = unbounded (causal: window_right = 0). */
    int32_t window_left, window_right;
    /* Score transforms (the _cap / _alibi variants only): softmax_scale as given (the transforms
       act on scaled scores), softcap > 0 (_cap), ALiBi slopes f32 [b, h_q] through alibi_stride
       (batch, head; elements), NULL = none. */
    float softmax_scale, softcap;
    const float *alibi;
    int64_t alibi_stride[2];
    /* Packed sequences (the _vl variants only): [b + 1] row offsets of Q / of K and V, NULL for a
       batched side. A packed side's tensor map has one batch of total rows; s_q / s_k above are
       the maxima, which size the tile grid (tiles past a sequence's end are skipped). */
    const int32_t *cu_seqlens_q, *cu_seqlens_k;
    /* Per-sequence key counts and paged K/V (the _vl variants only). seqused_k: [b] keys used
       (NULL: the sequence's length). page_table: [b, max_pages] rows page_table_stride apart, NULL
       for contiguous K/V; then tmap_k / tmap_v are [num_pages, page_size, h_kv, d] (V^T: [num_pages,
       h_kv, d, page_size]) and a key block is loaded as BLOCK_N / page_box_rows boxes, each inside
       one page (page_box_rows = min(BLOCK_N, page_size), see sm90_page_box_rows). */
    const int32_t *seqused_k;
    const int32_t *page_table;
    int64_t page_table_stride;
    int32_t page_size, page_box_rows;
    uint32_t page_div_mul, page_div_shift; /* n / page_size as for pairs_div_* */
} sm90_fwd_params;

/* Tail split: pieces in flight per block (see tail_round above). */
#define SM90_TAIL_SLOTS_PER_BLOCK 2
/* Split the tail only when it shortens the last round by at least this many key blocks
   (NB - ceil(R NB / grid)): the split costs ~15 us at d128 and ~40 us at d256 (f32 pieces
   through the workspace, the combine launch), ~10-25 key-block steps. Measured on the H200
   (docs/sm90.md v12): 31-62 saved blocks +1.6..+2.5 %, 21-24 +0.9..+1.3 %, 15 or fewer
   -0.5..-6 %. */
#define SM90_TAIL_MIN_SAVED_BLOCKS 20

#ifdef __cplusplus
extern "C" {
#endif
/* One launcher per variant (kernels/sm90/fwd_<dtype>_d<D>.cu). grid = persistent block count. */
#define SM90_DECLARE_LAUNCHER(NAME)                                                                      \
    cudaError_t NAME(const sm90_fwd_params *params, int grid, cudaStream_t stream)
SM90_DECLARE_LAUNCHER(flashc_sm90_fwd_bf16_d64);
SM90_DECLARE_LAUNCHER(flashc_sm90_fwd_bf16_d64_long);
SM90_DECLARE_LAUNCHER(flashc_sm90_fwd_bf16_d128);
SM90_DECLARE_LAUNCHER(flashc_sm90_fwd_bf16_d256);
SM90_DECLARE_LAUNCHER(flashc_sm90_fwd_f16_d64);
SM90_DECLARE_LAUNCHER(flashc_sm90_fwd_f16_d64_long);
SM90_DECLARE_LAUNCHER(flashc_sm90_fwd_f16_d128);
SM90_DECLARE_LAUNCHER(flashc_sm90_fwd_f16_d256);
/* The same variants with the tail split compiled in (fwd_<dtype>_d<D>_tail.cu). */
SM90_DECLARE_LAUNCHER(flashc_sm90_fwd_bf16_d64_tail);
SM90_DECLARE_LAUNCHER(flashc_sm90_fwd_bf16_d64_long_tail);
SM90_DECLARE_LAUNCHER(flashc_sm90_fwd_bf16_d128_tail);
SM90_DECLARE_LAUNCHER(flashc_sm90_fwd_bf16_d256_tail);
SM90_DECLARE_LAUNCHER(flashc_sm90_fwd_f16_d64_tail);
SM90_DECLARE_LAUNCHER(flashc_sm90_fwd_f16_d64_long_tail);
SM90_DECLARE_LAUNCHER(flashc_sm90_fwd_f16_d128_tail);
SM90_DECLARE_LAUNCHER(flashc_sm90_fwd_f16_d256_tail);
/* fp8 e4m3, V pre-transposed (fwd_e4m3_d<D>[_tail].cu). */
SM90_DECLARE_LAUNCHER(flashc_sm90_fwd_e4m3_d64);
SM90_DECLARE_LAUNCHER(flashc_sm90_fwd_e4m3_d64_tail);
SM90_DECLARE_LAUNCHER(flashc_sm90_fwd_e4m3_d128);
SM90_DECLARE_LAUNCHER(flashc_sm90_fwd_e4m3_d256);
SM90_DECLARE_LAUNCHER(flashc_sm90_fwd_e4m3_d128_tail);
SM90_DECLARE_LAUNCHER(flashc_sm90_fwd_e4m3_d256_tail);
/* fp8 e4m3, V in K's layout, transposed in the kernel (fwd_e4m3_d<D>_vr[_tail].cu). */
SM90_DECLARE_LAUNCHER(flashc_sm90_fwd_e4m3_d64_vr);
SM90_DECLARE_LAUNCHER(flashc_sm90_fwd_e4m3_d64_vr_tail);
SM90_DECLARE_LAUNCHER(flashc_sm90_fwd_e4m3_d128_vr);
SM90_DECLARE_LAUNCHER(flashc_sm90_fwd_e4m3_d128_vr_tail);
SM90_DECLARE_LAUNCHER(flashc_sm90_fwd_e4m3_d256_vr);
SM90_DECLARE_LAUNCHER(flashc_sm90_fwd_e4m3_d256_vr_tail);
/* With score transforms (fwd_<dtype>_d<D>_cap.cu: softcap, and ALiBi when given;
   fwd_<dtype>_d<D>_alibi.cu: ALiBi alone); no tail split. d64 takes the 2-WG shape. */
SM90_DECLARE_LAUNCHER(flashc_sm90_fwd_bf16_d64_cap);
SM90_DECLARE_LAUNCHER(flashc_sm90_fwd_bf16_d128_cap);
SM90_DECLARE_LAUNCHER(flashc_sm90_fwd_bf16_d256_cap);
SM90_DECLARE_LAUNCHER(flashc_sm90_fwd_f16_d64_cap);
SM90_DECLARE_LAUNCHER(flashc_sm90_fwd_f16_d128_cap);
SM90_DECLARE_LAUNCHER(flashc_sm90_fwd_f16_d256_cap);
SM90_DECLARE_LAUNCHER(flashc_sm90_fwd_bf16_d64_alibi);
SM90_DECLARE_LAUNCHER(flashc_sm90_fwd_bf16_d128_alibi);
SM90_DECLARE_LAUNCHER(flashc_sm90_fwd_bf16_d256_alibi);
SM90_DECLARE_LAUNCHER(flashc_sm90_fwd_f16_d64_alibi);
SM90_DECLARE_LAUNCHER(flashc_sm90_fwd_f16_d128_alibi);
SM90_DECLARE_LAUNCHER(flashc_sm90_fwd_f16_d256_alibi);
/* fp8 with score transforms, V^T or V rows (fwd_e4m3_d<D>[_vr]_cap.cu / _alibi.cu); no tail split. */
SM90_DECLARE_LAUNCHER(flashc_sm90_fwd_e4m3_d64_cap);
SM90_DECLARE_LAUNCHER(flashc_sm90_fwd_e4m3_d128_cap);
SM90_DECLARE_LAUNCHER(flashc_sm90_fwd_e4m3_d256_cap);
SM90_DECLARE_LAUNCHER(flashc_sm90_fwd_e4m3_d64_vr_cap);
SM90_DECLARE_LAUNCHER(flashc_sm90_fwd_e4m3_d128_vr_cap);
SM90_DECLARE_LAUNCHER(flashc_sm90_fwd_e4m3_d256_vr_cap);
SM90_DECLARE_LAUNCHER(flashc_sm90_fwd_e4m3_d64_alibi);
SM90_DECLARE_LAUNCHER(flashc_sm90_fwd_e4m3_d128_alibi);
SM90_DECLARE_LAUNCHER(flashc_sm90_fwd_e4m3_d256_alibi);
SM90_DECLARE_LAUNCHER(flashc_sm90_fwd_e4m3_d64_vr_alibi);
SM90_DECLARE_LAUNCHER(flashc_sm90_fwd_e4m3_d128_vr_alibi);
SM90_DECLARE_LAUNCHER(flashc_sm90_fwd_e4m3_d256_vr_alibi);
/* Per-sequence kernels (fwd_<dtype>_d<D>[_vr]_vl.cu): packed sequences, seqused_k, paged K/V; O from
   registers, no tail split, d64 2-WG. */
SM90_DECLARE_LAUNCHER(flashc_sm90_fwd_bf16_d64_vl);
SM90_DECLARE_LAUNCHER(flashc_sm90_fwd_bf16_d128_vl);
SM90_DECLARE_LAUNCHER(flashc_sm90_fwd_bf16_d256_vl);
SM90_DECLARE_LAUNCHER(flashc_sm90_fwd_f16_d64_vl);
SM90_DECLARE_LAUNCHER(flashc_sm90_fwd_f16_d128_vl);
SM90_DECLARE_LAUNCHER(flashc_sm90_fwd_f16_d256_vl);
SM90_DECLARE_LAUNCHER(flashc_sm90_fwd_e4m3_d64_vl);
SM90_DECLARE_LAUNCHER(flashc_sm90_fwd_e4m3_d128_vl);
SM90_DECLARE_LAUNCHER(flashc_sm90_fwd_e4m3_d256_vl);
SM90_DECLARE_LAUNCHER(flashc_sm90_fwd_e4m3_d64_vr_vl);
SM90_DECLARE_LAUNCHER(flashc_sm90_fwd_e4m3_d128_vr_vl);
SM90_DECLARE_LAUNCHER(flashc_sm90_fwd_e4m3_d256_vr_vl);
/* The same with score transforms (fwd_<dtype>_d<D>[_vr]_vl_mod.cu: softcap where softcap > 0, ALiBi
   where slopes are given); no fp8 d256. */
SM90_DECLARE_LAUNCHER(flashc_sm90_fwd_bf16_d64_vl_mod);
SM90_DECLARE_LAUNCHER(flashc_sm90_fwd_bf16_d128_vl_mod);
SM90_DECLARE_LAUNCHER(flashc_sm90_fwd_bf16_d256_vl_mod);
SM90_DECLARE_LAUNCHER(flashc_sm90_fwd_f16_d64_vl_mod);
SM90_DECLARE_LAUNCHER(flashc_sm90_fwd_f16_d128_vl_mod);
SM90_DECLARE_LAUNCHER(flashc_sm90_fwd_f16_d256_vl_mod);
SM90_DECLARE_LAUNCHER(flashc_sm90_fwd_e4m3_d64_vl_mod);
SM90_DECLARE_LAUNCHER(flashc_sm90_fwd_e4m3_d128_vl_mod);
SM90_DECLARE_LAUNCHER(flashc_sm90_fwd_e4m3_d64_vr_vl_mod);
SM90_DECLARE_LAUNCHER(flashc_sm90_fwd_e4m3_d128_vr_vl_mod);
/* Merges the tail pieces of *params (tail_round != INT32_MAX) into O and LSE; block_m: the
   forward variant's BLOCK_M, d: head dim (sm90_combine.cu). */
cudaError_t flashc_sm90_tail_combine(const sm90_fwd_params *params, int block_m, int d, cudaStream_t stream);
#ifdef __cplusplus
}
#endif

#endif /* FLASHC_SM90_FWD_CUH */
