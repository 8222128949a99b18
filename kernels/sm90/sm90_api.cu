/*
 * Host side of the Hopper path (src/launch.h contract): which problems it takes, tensor-map
 * encoding with a small cache, and the launch of the per-variant kernels (fwd_<dtype>_d<D>.cu).
 * Host code only; compiled for sm_90a with the rest of kernels/sm90.
 *
 * Tensor maps are encoded through the driver entry point obtained from the runtime
 * (cudaGetDriverEntryPointByVersion), so the library links the CUDA runtime only, never libcuda.
 */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime.h>

#include "launch.h"
#include "sm90/sm90_decode.h"
#include "sm90/sm90_fwd.cuh"

#define SM90_TMAP_CACHE_ENTRIES 32
#define SM90_TMAP_RANK 4
#define SM90_DRIVER_API_VERSION 12000 /* cuTensorMapEncodeTiled as introduced in CUDA 12.0 */
#define SM90_TMA_MAX_STRIDE_BYTES (1ll << 40)
#define SM90_TMA_STRIDE_ALIGN 16
#define SM90_LOG2E 1.44269504088896340736

/* ---- Variants --------------------------------------------------------------------------------- */
typedef cudaError_t (*sm90_launcher)(const sm90_fwd_params *, int, cudaStream_t);

typedef struct sm90_variant {
    int block_m, block_n, stages, q_slots;
    int o_stage; /* 1: the epilogue stores O with TMA (tmap_o) from a shared-memory stage */
    int v_rows;  /* 8-bit V in K's layout, transposed in the kernel (a V^T ring in shared memory) */
    sm90_launcher launch;
    sm90_launcher launch_tail; /* the same kernel with the tail split compiled in, or NULL */
} sm90_variant;

static sm90_variant sm90_variant_of(int wgs, int block_n, int stages, int q_slots, int o_stage, sm90_launcher launch,
                                    sm90_launcher launch_tail)
{
    sm90_variant v;
    v.block_m = wgs * SM90_WG_ROWS;
    v.block_n = block_n;
    v.stages = stages;
    v.q_slots = q_slots;
    v.o_stage = o_stage;
    v.v_rows = 0;
    v.launch = launch;
    v.launch_tail = launch_tail;
    return v;
}

/* Per-sequence lengths (the _vl kernels): packed sequences, seqused_k, paged K/V. */
static int sm90_per_sequence(const flashc_problem *p)
{
    return p->q_varlen || p->kv_layout != FLASHC_KV_BATCHED || p->seqused_k;
}

/* Per-sequence lengths: the tile shapes of the batched kernels (d64: 2 WGs), O from registers;
   with softcap or ALiBi the _vl_mod twins (none for fp8 d256: check() refuses it). */
static sm90_variant sm90_pick_varlen(const flashc_problem *p)
{
    const int bf16 = p->in_dtype == FLASHC_DTYPE_BF16, vr = !p->v_transposed;
    const int mod = p->softcap != 0.0f || p->alibi;
    sm90_variant v;
    if (p->in_dtype == FLASHC_DTYPE_FP8_E4M3) {
        if (p->d == 64)
            v = sm90_variant_of(mod ? SM90_E4M3_D64_MOD_WGS : SM90_E4M3_D64_WGS, SM90_E4M3_D64_BLOCK_N,
                                SM90_E4M3_D64_STAGES, SM90_E4M3_D64_Q_SLOTS, 0,
                                mod ? (vr ? flashc_sm90_fwd_e4m3_d64_vr_vl_mod : flashc_sm90_fwd_e4m3_d64_vl_mod)
                                    : (vr ? flashc_sm90_fwd_e4m3_d64_vr_vl : flashc_sm90_fwd_e4m3_d64_vl),
                                NULL);
        else if (p->d == 128)
            v = sm90_variant_of(SM90_E4M3_D128_WGS, SM90_E4M3_D128_BLOCK_N, SM90_E4M3_D128_STAGES,
                                SM90_E4M3_D128_Q_SLOTS, 0,
                                mod ? (vr ? flashc_sm90_fwd_e4m3_d128_vr_vl_mod : flashc_sm90_fwd_e4m3_d128_vl_mod)
                                    : (vr ? flashc_sm90_fwd_e4m3_d128_vr_vl : flashc_sm90_fwd_e4m3_d128_vl),
                                NULL);
        else
            v = sm90_variant_of(SM90_E4M3_D256_WGS, SM90_E4M3_D256_BLOCK_N, SM90_E4M3_D256_STAGES,
                                SM90_E4M3_D256_Q_SLOTS, 0,
                                vr ? flashc_sm90_fwd_e4m3_d256_vr_vl : flashc_sm90_fwd_e4m3_d256_vl, NULL);
        v.v_rows = vr;
        return v;
    }
    if (p->d == 64)
        return sm90_variant_of(SM90_D64_SHORT_WGS, SM90_D64_SHORT_BLOCK_N, SM90_D64_SHORT_STAGES,
                               SM90_D64_SHORT_Q_SLOTS, 0,
                               mod ? (bf16 ? flashc_sm90_fwd_bf16_d64_vl_mod : flashc_sm90_fwd_f16_d64_vl_mod)
                                   : (bf16 ? flashc_sm90_fwd_bf16_d64_vl : flashc_sm90_fwd_f16_d64_vl),
                               NULL);
    if (p->d == 128)
        return sm90_variant_of(SM90_D128_WGS, SM90_D128_BLOCK_N, SM90_D128_STAGES, SM90_D128_Q_SLOTS, 0,
                               mod ? (bf16 ? flashc_sm90_fwd_bf16_d128_vl_mod : flashc_sm90_fwd_f16_d128_vl_mod)
                                   : (bf16 ? flashc_sm90_fwd_bf16_d128_vl : flashc_sm90_fwd_f16_d128_vl),
                               NULL);
    return sm90_variant_of(SM90_D256_WGS, SM90_D256_BLOCK_N, SM90_D256_STAGES, SM90_D256_Q_SLOTS, 0,
                           mod ? (bf16 ? flashc_sm90_fwd_bf16_d256_vl_mod : flashc_sm90_fwd_f16_d256_vl_mod)
                               : (bf16 ? flashc_sm90_fwd_bf16_d256_vl : flashc_sm90_fwd_f16_d256_vl),
                           NULL);
}

/* The kernel for *p (check() has accepted the dtype and head dim). */
static sm90_variant sm90_pick(const flashc_problem *p)
{
    const int bf16 = p->in_dtype == FLASHC_DTYPE_BF16;
    if (sm90_per_sequence(p)) return sm90_pick_varlen(p);
    if (p->in_dtype == FLASHC_DTYPE_FP8_E4M3) {
        /* V pre-transposed, or in K's layout (_vr: the kernel transposes it); score transforms:
           the _cap (softcap, + ALiBi) / _alibi kernels, without the tail split */
        const int vr = !p->v_transposed, cap = p->softcap != 0.0f, mod = cap || p->alibi;
        sm90_launcher plain, tail;
        if (p->d == 64) {
            plain = mod ? (cap ? (vr ? flashc_sm90_fwd_e4m3_d64_vr_cap : flashc_sm90_fwd_e4m3_d64_cap)
                               : (vr ? flashc_sm90_fwd_e4m3_d64_vr_alibi : flashc_sm90_fwd_e4m3_d64_alibi))
                        : (vr ? flashc_sm90_fwd_e4m3_d64_vr : flashc_sm90_fwd_e4m3_d64);
            tail = mod ? NULL : vr ? flashc_sm90_fwd_e4m3_d64_vr_tail : flashc_sm90_fwd_e4m3_d64_tail;
        } else if (p->d == 128) {
            plain = mod ? (cap ? (vr ? flashc_sm90_fwd_e4m3_d128_vr_cap : flashc_sm90_fwd_e4m3_d128_cap)
                               : (vr ? flashc_sm90_fwd_e4m3_d128_vr_alibi : flashc_sm90_fwd_e4m3_d128_alibi))
                        : (vr ? flashc_sm90_fwd_e4m3_d128_vr : flashc_sm90_fwd_e4m3_d128);
            tail = mod ? NULL : vr ? flashc_sm90_fwd_e4m3_d128_vr_tail : flashc_sm90_fwd_e4m3_d128_tail;
        } else {
            plain = mod ? (cap ? (vr ? flashc_sm90_fwd_e4m3_d256_vr_cap : flashc_sm90_fwd_e4m3_d256_cap)
                               : (vr ? flashc_sm90_fwd_e4m3_d256_vr_alibi : flashc_sm90_fwd_e4m3_d256_alibi))
                        : (vr ? flashc_sm90_fwd_e4m3_d256_vr : flashc_sm90_fwd_e4m3_d256);
            tail = mod ? NULL : vr ? flashc_sm90_fwd_e4m3_d256_vr_tail : flashc_sm90_fwd_e4m3_d256_tail;
        }
        sm90_variant v;
        if (p->d == 64)
            v = sm90_variant_of(SM90_E4M3_D64_WGS, SM90_E4M3_D64_BLOCK_N, SM90_E4M3_D64_STAGES, SM90_E4M3_D64_Q_SLOTS,
                                vr ? SM90_E4M3_VR_D64_O_STAGE : SM90_E4M3_D64_O_STAGE, plain, tail);
        else if (p->d == 128)
            v = sm90_variant_of(SM90_E4M3_D128_WGS, SM90_E4M3_D128_BLOCK_N, SM90_E4M3_D128_STAGES,
                                SM90_E4M3_D128_Q_SLOTS, vr ? SM90_E4M3_VR_D128_O_STAGE : SM90_E4M3_D128_O_STAGE, plain,
                                tail);
        else
            v = sm90_variant_of(SM90_E4M3_D256_WGS, SM90_E4M3_D256_BLOCK_N, SM90_E4M3_D256_STAGES,
                                SM90_E4M3_D256_Q_SLOTS, vr ? SM90_E4M3_VR_D256_O_STAGE : SM90_E4M3_D256_O_STAGE, plain,
                                tail);
        v.v_rows = vr;
        return v;
    }
    if (p->softcap != 0.0f || p->alibi) {
        /* score transforms: softcap (+ ALiBi) or ALiBi alone; 2-WG d64 shape, no tail split */
        const int cap = p->softcap != 0.0f;
        if (p->d == 64)
            return sm90_variant_of(SM90_D64_SHORT_WGS, SM90_D64_SHORT_BLOCK_N, SM90_D64_SHORT_STAGES,
                                   SM90_D64_SHORT_Q_SLOTS, SM90_D64_SHORT_O_STAGE,
                                   cap ? (bf16 ? flashc_sm90_fwd_bf16_d64_cap : flashc_sm90_fwd_f16_d64_cap)
                                       : (bf16 ? flashc_sm90_fwd_bf16_d64_alibi : flashc_sm90_fwd_f16_d64_alibi),
                                   NULL);
        if (p->d == 128)
            return sm90_variant_of(SM90_D128_WGS, SM90_D128_BLOCK_N, SM90_D128_STAGES, SM90_D128_Q_SLOTS,
                                   SM90_D128_O_STAGE,
                                   cap ? (bf16 ? flashc_sm90_fwd_bf16_d128_cap : flashc_sm90_fwd_f16_d128_cap)
                                       : (bf16 ? flashc_sm90_fwd_bf16_d128_alibi : flashc_sm90_fwd_f16_d128_alibi),
                                   NULL);
        return sm90_variant_of(SM90_D256_WGS, SM90_D256_BLOCK_N, SM90_D256_STAGES, SM90_D256_Q_SLOTS,
                               SM90_D256_O_STAGE,
                               cap ? (bf16 ? flashc_sm90_fwd_bf16_d256_cap : flashc_sm90_fwd_f16_d256_cap)
                                   : (bf16 ? flashc_sm90_fwd_bf16_d256_alibi : flashc_sm90_fwd_f16_d256_alibi),
                               NULL);
    }
    switch (p->d) {
    case 64:
        if (p->s_k >= SM90_D64_LONG_MIN_SK)
            return sm90_variant_of(SM90_D64_LONG_WGS, SM90_D64_LONG_BLOCK_N, SM90_D64_LONG_STAGES,
                                   SM90_D64_LONG_Q_SLOTS, SM90_D64_LONG_O_STAGE,
                                   bf16 ? flashc_sm90_fwd_bf16_d64_long : flashc_sm90_fwd_f16_d64_long,
                                   bf16 ? flashc_sm90_fwd_bf16_d64_long_tail : flashc_sm90_fwd_f16_d64_long_tail);
        return sm90_variant_of(SM90_D64_SHORT_WGS, SM90_D64_SHORT_BLOCK_N, SM90_D64_SHORT_STAGES,
                               SM90_D64_SHORT_Q_SLOTS, SM90_D64_SHORT_O_STAGE,
                               bf16 ? flashc_sm90_fwd_bf16_d64 : flashc_sm90_fwd_f16_d64,
                               bf16 ? flashc_sm90_fwd_bf16_d64_tail : flashc_sm90_fwd_f16_d64_tail);
    case 128:
        return sm90_variant_of(SM90_D128_WGS, SM90_D128_BLOCK_N, SM90_D128_STAGES, SM90_D128_Q_SLOTS, SM90_D128_O_STAGE,
                               bf16 ? flashc_sm90_fwd_bf16_d128 : flashc_sm90_fwd_f16_d128,
                               bf16 ? flashc_sm90_fwd_bf16_d128_tail : flashc_sm90_fwd_f16_d128_tail);
    default:
        return sm90_variant_of(SM90_D256_WGS, SM90_D256_BLOCK_N, SM90_D256_STAGES, SM90_D256_Q_SLOTS, SM90_D256_O_STAGE,
                               bf16 ? flashc_sm90_fwd_bf16_d256 : flashc_sm90_fwd_f16_d256,
                               bf16 ? flashc_sm90_fwd_bf16_d256_tail : flashc_sm90_fwd_f16_d256_tail);
    }
}

/* ---- Which problems this path takes --------------------------------------------------------- */
static int sm90_is_16bit(flashc_dtype t) { return t == FLASHC_DTYPE_F16 || t == FLASHC_DTYPE_BF16; }
static int sm90_elem_bytes(flashc_dtype t) { return sm90_is_16bit(t) ? 2 : 1; }

static size_t sm90_smem_bytes(const sm90_variant *v, int d, flashc_dtype in_dtype)
{
    return SM90_SMEM_BYTES(d, v->block_m, v->block_n, v->stages, v->q_slots, v->o_stage, sm90_elem_bytes(in_dtype),
                           v->v_rows);
}

/* Strides (elements) of a TMA view: 16-byte multiples below 2^40 bytes. */
static flashc_status sm90_check_strides(const char *name, const int64_t stride[3], int elem_bytes)
{
    for (int i = 0; i < 3; ++i) {
        const int64_t bytes = stride[i] * elem_bytes;
        if (bytes < 0 || bytes >= SM90_TMA_MAX_STRIDE_BYTES || bytes % SM90_TMA_STRIDE_ALIGN != 0)
            return flashc_error(FLASHC_STATUS_NOT_SUPPORTED,
                                "sm90: %s stride[%d] = %lld elements is not a TMA stride (16-byte multiple < 2^40 B)",
                                name, i, (long long)stride[i]);
    }
    return FLASHC_STATUS_SUCCESS;
}

#define NOT_SUPPORTED(...) flashc_error(FLASHC_STATUS_NOT_SUPPORTED, __VA_ARGS__)

/* Paged K/V: rows per TMA box (sm90_fwd_params.page_box_rows), 0 where the page size does not fit
   the key block. Each box lies inside one page and starts a swizzle atom (8 rows) in shared
   memory: pages holding whole blocks take one box per block, smaller pages one box per page.
   8-bit V^T boxes are 128 keys of one page's rows: pages of whole blocks only. */
#define SM90_PAGE_MIN_ROWS 8
static int sm90_page_box_rows(const flashc_problem *p, const sm90_variant *v)
{
    const int ps = p->page_size, n = v->block_n;
    if (ps >= n) return ps % n == 0 ? n : 0;
    if (p->v_transposed) return 0;
    return n % ps == 0 && ps % SM90_PAGE_MIN_ROWS == 0 ? ps : 0;
}

flashc_status flashc_sm90_check(const flashc_problem *p, const flashc_device_info *dev)
{
    if (!p || !dev) return flashc_error(FLASHC_STATUS_INTERNAL_ERROR, "sm90: check called without problem or device");
    if (dev->cc_major != 9 || dev->cc_minor != 0)
        return NOT_SUPPORTED("sm90: needs compute capability 9.0 (sm_90a), this device is %d.%d", dev->cc_major,
                             dev->cc_minor);
    const int fp8 = p->in_dtype == FLASHC_DTYPE_FP8_E4M3;
    if (!sm90_is_16bit(p->in_dtype) && !fp8)
        return NOT_SUPPORTED("sm90: int8 inputs have no Hopper kernel yet (f16, bf16 and fp8 e4m3 do)");
    if (!sm90_is_16bit(p->out_dtype)) return NOT_SUPPORTED("sm90: output must be f16 or bf16");
    if (p->d != 64 && p->d != 128 && p->d != 256)
        return NOT_SUPPORTED("sm90: head dim %d has no Hopper kernel (64, 128, 256 do)", (int)p->d);
    if (sm90_per_sequence(p) && (p->softcap != 0.0f || p->alibi) && fp8 && p->d == 256)
        return NOT_SUPPORTED("sm90: softcap / ALiBi at fp8 head dim 256 with packed sequences, seqused_k or paged "
                             "k/v not implemented (no registers left for both)");
    if (p->v_transposed && !fp8) return NOT_SUPPORTED("sm90: v_transposed applies to 8-bit inputs only");
    /* V^T's key axis is its innermost TMA coordinate: a packed sequence starting at a key that is not
       a multiple of 16 bytes makes the bulk tensor copy fault (illegal instruction, seen on an H100);
       the starts live in device memory, so every packed V^T call is refused. */
    if (p->v_transposed && p->kv_layout == FLASHC_KV_VARLEN)
        return NOT_SUPPORTED("sm90: fp8 V^T with packed keys (cu_seqlens_k) not implemented: a sequence start "
                             "off 16 bytes faults the TMA copy; pass V in K's layout (v_transposed = 0), or the "
                             "portable path takes it");
    if (p->bias) return NOT_SUPPORTED("sm90: bias not implemented");
    if (!fp8 && (p->q_descale || p->k_descale || p->v_descale))
        return NOT_SUPPORTED("sm90: descales apply to 8-bit inputs only; not implemented for f16/bf16");
    if (!(p->softmax_scale > 0.0f) || !isfinite(p->softmax_scale))
        return NOT_SUPPORTED("sm90: softmax_scale must be positive and finite (got %g)", (double)p->softmax_scale);
    if (p->s_q < 1 || p->s_k < 1 || p->b < 1 || p->h_q < 1 || p->h_kv < 1)
        return NOT_SUPPORTED("sm90: empty problems (s_q = %d, s_k = %d) go to the portable path", (int)p->s_q,
                             (int)p->s_k);
    if ((p->q_varlen && p->total_q < 1) || (p->kv_layout == FLASHC_KV_VARLEN && p->total_k < 1))
        return NOT_SUPPORTED("sm90: packed tensors without rows (total_q = %d, total_k = %d) go to the portable path "
                             "(a TMA map has no empty extent)", (int)p->total_q, (int)p->total_k);
    if (p->h_q % p->h_kv != 0) return NOT_SUPPORTED("sm90: h_q %% h_kv != 0");
    if (fp8 && p->d == 256 && (p->window_left != -1 || (p->window_right != -1 && p->window_right != 0)))
        return NOT_SUPPORTED("sm90: sliding window (window_left/right other than causal) at fp8 head dim 256 is "
                             "not implemented (no registers left for the window's bounds)");
    const sm90_variant v = sm90_pick(p);
    if (p->kv_layout == FLASHC_KV_PAGED && !sm90_page_box_rows(p, &v))
        return NOT_SUPPORTED("sm90: paged k/v with page_size %d: pages are loaded as whole TMA boxes, so page_size "
                             "must be a multiple of %d (the key block)%s; the portable path takes any page size",
                             (int)p->page_size, v.block_n,
                             p->v_transposed ? " with V^T" : ", or a multiple of 8 dividing it");
    if (p->kv_layout == FLASHC_KV_PAGED &&
        (int64_t)(p->b - 1) * p->page_table_stride + p->max_pages_per_seq > INT32_MAX)
        return NOT_SUPPORTED("sm90: page tables of more than 2^31 entries (b x page_table_stride) not implemented");
    const int64_t m_blocks = ((int64_t)p->s_q + v.block_m - 1) / v.block_m;
    if (m_blocks * p->h_q * p->b > INT32_MAX) return NOT_SUPPORTED("sm90: more than 2^31 query tiles");
    if ((size_t)dev->max_smem_optin < sm90_smem_bytes(&v, p->d, p->in_dtype))
        return NOT_SUPPORTED("sm90: needs %zu bytes of shared memory per block, device allows %d",
                             sm90_smem_bytes(&v, p->d, p->in_dtype), dev->max_smem_optin);
    const int in_bytes = sm90_elem_bytes(p->in_dtype);
    flashc_status st;
    if ((st = sm90_check_strides("q", p->q_stride, in_bytes)) != FLASHC_STATUS_SUCCESS ||
        (st = sm90_check_strides("k", p->k_stride, in_bytes)) != FLASHC_STATUS_SUCCESS ||
        (st = sm90_check_strides("v", p->v_stride, in_bytes)) != FLASHC_STATUS_SUCCESS ||
        /* out: the TMA stores of the O_STAGE variants */
        (st = sm90_check_strides("out", p->o_stride, SM90_O_ELEM_BYTES)) != FLASHC_STATUS_SUCCESS)
        return st;
    return FLASHC_STATUS_SUCCESS;
}

/* ---- Tail split ----------------------------------------------------------------------------
 * The static schedule runs T tiles in rounds of grid = #SMs; when T % grid = R > 0 the last round
 * keeps only R SMs busy (at the benchmark sizes R = 68 of 132 at d128: ~3 % of the run with half
 * the GPU idle). With the split, the last round's R * NB key blocks are dealt out evenly over all
 * blocks as contiguous (tile, key block) ranges (stream-K, sm90_fwd_params.tail_*) and
 * sm90_combine merges the pieces. Causal problems keep their own schedule (tiles of unequal
 * length, sorted longest first), and windowed ones are not split (their tiles' key ranges start
 * at fwd_first_n_block, which the pieces' positions do not model). */
typedef struct sm90_tail {
    int on;
    int32_t round, start, nb, len, rem;
} sm90_tail;

/* Dev/test hook (not API): FLASHC_SM90_TAIL_SPLIT=0 never splits, =force splits every
   non-causal problem with a partial last round (also one of fewer tiles than SMs), so small
   test shapes exercise the path. Read on every call: workspace_size and forward agree. */
static int sm90_tail_mode(void)
{
    const char *e = getenv("FLASHC_SM90_TAIL_SPLIT");
    if (!e) return 1;
    if (!strcmp(e, "0")) return 0;
    if (!strcmp(e, "force")) return 2;
    return 1;
}

static sm90_tail sm90_tail_plan(const flashc_problem *p, const sm90_variant *v, const flashc_device_info *dev)
{
    sm90_tail tp;
    memset(&tp, 0, sizeof tp);
    const int mode = sm90_tail_mode();
    if (mode == 0 || !v->launch_tail || p->causal || p->window_left >= 0 || p->window_right >= 0 ||
        dev->num_sms < 1)
        return tp;
    const int64_t grid = dev->num_sms;
    const int64_t tiles = ((int64_t)p->s_q + v->block_m - 1) / v->block_m * p->h_q * p->b;
    const int64_t nb = ((int64_t)p->s_k + v->block_n - 1) / v->block_n;
    const int64_t full = tiles / grid, rest = tiles % grid, work = rest * nb;
    /* positions must stay < 2^31 for fwd_div_nb, the plain index through the tail rounds too */
    if (rest == 0 || work >= (1ll << 30) || tiles + 2 * grid >= INT32_MAX) return tp;
    /* the last round must get shorter by enough to pay for the split */
    if (mode == 1 && (full < 1 || nb - (work + grid - 1) / grid < SM90_TAIL_MIN_SAVED_BLOCKS)) return tp;
    tp.on = 1;
    tp.round = (int32_t)full;
    tp.start = (int32_t)(full * grid);
    tp.nb = (int32_t)nb;
    tp.len = (int32_t)(work / grid);
    tp.rem = (int32_t)(work % grid);
    return tp;
}

static size_t sm90_tail_workspace(const sm90_variant *v, int d, const flashc_device_info *dev)
{
    return (size_t)SM90_TAIL_SLOTS_PER_BLOCK * dev->num_sms * v->block_m * ((size_t)d + 1) * sizeof(float);
}

/* ---- Decode tile (sm90_decode.cu) -------------------------------------------------------------
 * fp8 decode of up to 64 packed rows per KV head on QGMMA; sm90_decode.h has its budget and the
 * measurements behind the rule. */
#define SM90_DEC_MAX_GRID_YZ 65535 /* grid y (KV heads) and z (batch) */

/* Packed rows per KV head: the query tokens x the query heads that share it. */
static int64_t sm90_decode_rows(const flashc_problem *p) { return (int64_t)p->s_q * (p->h_q / p->h_kv); }

/* What the tile can run: fp8 d128, V^T or V in K's layout (the V-rows kernel), a dense cache
   (seqused_k or not) or pages holding whole 128-key blocks, causal or no mask, no score
   transforms, one CTA's 64 rows per KV head. */
static int sm90_decode_shape_ok(const flashc_problem *p)
{
    if (p->in_dtype != FLASHC_DTYPE_FP8_E4M3 || p->d != SM90_DEC_D) return 0;
    if (p->kv_layout == FLASHC_KV_VARLEN || p->q_varlen) return 0;
    if (p->kv_layout == FLASHC_KV_PAGED && p->page_size % SM90_DEC_N != 0) return 0;
    if (p->bias || p->alibi || p->softcap != 0.0f || p->window_left != -1) return 0;
    if (p->window_right != -1 && p->window_right != 0) return 0;
    if (p->h_kv < 1 || p->h_q % p->h_kv != 0 || p->s_q < 1 || p->s_k < 1 || p->b < 1) return 0;
    if (p->b > SM90_DEC_MAX_GRID_YZ || p->h_kv > SM90_DEC_MAX_GRID_YZ) return 0;
    return sm90_decode_rows(p) <= SM90_DEC_M;
}

/* Dev hook (not API): FLASHC_SM90_DECODE=0 never, =1 wherever the tile can run (tests, A/B);
   unset: SM90_DEC_MIN_ROWS packed rows and SM90_DEC_MIN_KEYS keys, or SM90_DEC_MID_ROWS rows and
   SM90_DEC_MID_MIN_KEYS keys on at most one KV head per SM. Read on every call: workspace_size and
   forward agree. */
static int sm90_decode_rule(const flashc_problem *p, const flashc_device_info *dev)
{
    const char *e = getenv("FLASHC_SM90_DECODE");
    if (e) return atoi(e) == 1;
    const int64_t rows = sm90_decode_rows(p);
    if (rows >= SM90_DEC_MIN_ROWS) return p->s_k >= SM90_DEC_MIN_KEYS;
    /* V rows at 17-32 rows stay on the portable _vr tiles: the V-rows kernel forced there read -3.0
       to +1.7 % against them on the H100 (session 63, docs/sm90.md v29); the H200 is not measured */
    if (!p->v_transposed) return 0;
    return rows >= SM90_DEC_MID_ROWS && p->s_k >= SM90_DEC_MID_MIN_KEYS &&
           (int64_t)p->b * p->h_kv <= dev->num_sms;
}

int flashc_sm90_decode_route(const flashc_problem *p, const flashc_device_info *dev)
{
    if (dev->cc_major != 9 || dev->cc_minor != 0 || !sm90_decode_shape_ok(p) || !sm90_decode_rule(p, dev)) return 0;
    if ((size_t)dev->max_smem_optin < (p->v_transposed ? SM90_DEC_SMEM_BYTES : SM90_DEC_VR_SMEM_BYTES)) return 0;
    return flashc_sm90_check(p, dev) == FLASHC_STATUS_SUCCESS;
}

/* The K / V^T loads' L2 policy: evict-first up to SM90_DEC_EVICT_FIRST_MAX_L2X times the L2 of
   K + V (b x s_k keys, the bound of what the call reads). Dev hook (not API):
   FLASHC_SM90_DEC_EVICT_FIRST=1 / 0 picks it (A/B, tests). */
static int sm90_decode_evict_first(const flashc_problem *p, const flashc_device_info *dev)
{
    const char *e = getenv("FLASHC_SM90_DEC_EVICT_FIRST");
    if (e) return atoi(e) == 1;
    const double kv_bytes = 2.0 * p->b * p->s_k * p->h_kv * SM90_DEC_D; /* e4m3: one byte each */
    return kv_bytes <= (double)SM90_DEC_EVICT_FIRST_MAX_L2X * dev->l2_bytes;
}

/* Whether split s streams key blocks s, s + splits, ... (1) or a run of blocks_per_split (0).
   Dev hook (not API): FLASHC_SM90_DEC_INTERLEAVE=1 / 0 picks it (A/B, tests). */
static int sm90_decode_interleave(void)
{
    const char *e = getenv("FLASHC_SM90_DEC_INTERLEAVE");
    if (e) return atoi(e) == 1;
    return SM90_DEC_INTERLEAVE;
}

/* CTAs per SM the key splits fill: one where an SM's share of the DRAM peak is at most what one
   CTA's consumers carry (SM90_DEC_ONE_CTA_MAX_SM_SHARE), else (or the rate unknown) as many as fit. */
static int sm90_decode_split_ctas_per_sm(const flashc_device_info *dev)
{
    const int one = dev->dram_bytes_per_s > 0 && dev->num_sms > 0 &&
                    dev->dram_bytes_per_s / dev->num_sms <= SM90_DEC_ONE_CTA_MAX_SM_SHARE;
    return one ? 1 : SM90_DEC_CTAS_PER_SM;
}

/* Key splits: fill sm90_decode_split_ctas_per_sm CTAs per SM with b x h_kv x splits CTAs, each
   streaming at least SM90_DEC_MIN_BLOCKS_PER_SPLIT key blocks. Dev hook (not API), read on every
   call (the workspace query too): FLASHC_SM90_DEC_SPLITS=N forces N splits (clamped to the key
   blocks), for A/B and tests. */
typedef struct sm90_dec_plan {
    int32_t splits, blocks_per_split, num_blocks;
} sm90_dec_plan;

static sm90_dec_plan sm90_decode_plan(const flashc_problem *p, const flashc_device_info *dev)
{
    sm90_dec_plan pl;
    pl.num_blocks = (p->s_k + SM90_DEC_N - 1) / SM90_DEC_N;
    /* the V-rows kernel runs one CTA per SM anywhere */
    const int per_sm = p->v_transposed ? sm90_decode_split_ctas_per_sm(dev) : 1;
    int64_t splits = (int64_t)per_sm * dev->num_sms / ((int64_t)p->b * p->h_kv);
    const int64_t most = pl.num_blocks / SM90_DEC_MIN_BLOCKS_PER_SPLIT;
    if (splits > most) splits = most;
    const char *e = getenv("FLASHC_SM90_DEC_SPLITS");
    const int forced = e ? atoi(e) : 0;
    if (forced > 0) splits = forced < pl.num_blocks ? forced : pl.num_blocks;
    if (splits < 1) splits = 1;
    pl.blocks_per_split = (int32_t)((pl.num_blocks + splits - 1) / splits);
    pl.splits = (pl.num_blocks + pl.blocks_per_split - 1) / pl.blocks_per_split;
    return pl;
}

/* The solo kernel (sm90_dec_kernel_solo: one CTA per SM, its GEMMs overlapped, a 6-stage ring) is
   off by default: on the H100, where the splits aim at one CTA per SM, it read 1.6-2.9 % less than
   the pair kernel at the same splits (docs/sm90.md v29); the V-rows kernel keeps its overlap. Dev
   hook (not API): FLASHC_SM90_DEC_SOLO=1 runs it wherever the opt-in holds its ring (A/B, tests;
   the H200 question of v29), 0 or unset never. */
static int sm90_decode_solo(const flashc_device_info *dev)
{
    if ((size_t)dev->max_smem_optin < SM90_DEC_SOLO_SMEM_BYTES) return 0;
    const char *e = getenv("FLASHC_SM90_DEC_SOLO");
    return e && atoi(e) == 1;
}

/* Each split's O / l ([splits, b, h_kv, 64, 128] f32) and log2 LSE ([splits, b, h_kv, 64]). */
static size_t sm90_decode_workspace(const flashc_problem *p, const sm90_dec_plan *pl)
{
    if (pl->splits <= 1) return 0;
    const size_t rows = (size_t)pl->splits * p->b * p->h_kv * SM90_DEC_M;
    return rows * (SM90_DEC_D + 1) * sizeof(float);
}

size_t flashc_sm90_workspace_size(const flashc_problem *p, const flashc_device_info *dev)
{
    if (flashc_sm90_decode_route(p, dev)) {
        const sm90_dec_plan pl = sm90_decode_plan(p, dev);
        return sm90_decode_workspace(p, &pl);
    }
    const sm90_variant v = sm90_pick(p);
    return sm90_tail_plan(p, &v, dev).on ? sm90_tail_workspace(&v, p->d, dev) : 0;
}

/* ---- Tensor maps ---------------------------------------------------------------------------- */
/* A [batch, rows, heads, inner] view (strides in elements: batch, row, head) tiled as panels of
   row_bytes-byte rows (128: 64 16-bit or 128 8-bit columns, 128-byte swizzle; 64: 8-bit d64's Q and
   K, 64-byte swizzle) and box_rows rows. Q, K, V and O are [b, s, h, d] (inner = d); 8-bit V^T is
   [b, h_kv, d, s_k], a view with inner = s_k and rows = d. */
typedef struct sm90_tmap_key {
    const void *ptr;
    int dtype;
    int device;
    uint64_t dims[SM90_TMAP_RANK];
    uint64_t strides[SM90_TMAP_RANK - 1]; /* bytes */
    uint32_t box_rows, row_bytes;
    int promotion; /* CUtensorMapL2promotion */
} sm90_tmap_key;

typedef struct sm90_tmap_entry {
    int used;
    sm90_tmap_key key;
    CUtensorMap map;
} sm90_tmap_entry;

static pthread_mutex_t g_tmap_lock = PTHREAD_MUTEX_INITIALIZER;
static sm90_tmap_entry g_tmap_cache[SM90_TMAP_CACHE_ENTRIES];
static unsigned g_tmap_next; /* round-robin victim */
static PFN_cuTensorMapEncodeTiled_v12000 g_encode;

static flashc_status sm90_get_encoder(PFN_cuTensorMapEncodeTiled_v12000 *fn)
{
    if (!g_encode) {
        void *f = NULL;
        cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSymbolNotFound;
        cudaError_t e = cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &f, SM90_DRIVER_API_VERSION,
                                                         cudaEnableDefault, &q);
        if (e != cudaSuccess || q != cudaDriverEntryPointSuccess || !f)
            return flashc_error(FLASHC_STATUS_CUDA_ERROR, "sm90: driver entry point cuTensorMapEncodeTiled unavailable (%s)",
                                e != cudaSuccess ? cudaGetErrorString(e) : "symbol not found");
        g_encode = (PFN_cuTensorMapEncodeTiled_v12000)f;
    }
    *fn = g_encode;
    return FLASHC_STATUS_SUCCESS;
}

static flashc_status sm90_tensor_map_promo(CUtensorMap *out, const void *ptr, flashc_dtype dtype, int device,
                                           int64_t inner, int64_t rows, int64_t heads, int64_t batch,
                                           const int64_t stride[3], uint32_t box_rows, uint32_t row_bytes,
                                           CUtensorMapL2promotion promotion)
{
    const int elem_bytes = sm90_elem_bytes(dtype);
    sm90_tmap_key key;
    memset(&key, 0, sizeof key); /* padding takes part in memcmp */
    key.ptr = ptr;
    key.dtype = (int)dtype;
    key.device = device;
    key.dims[0] = (uint64_t)inner;
    key.dims[1] = (uint64_t)rows;
    key.dims[2] = (uint64_t)heads;
    key.dims[3] = (uint64_t)batch;
    /* stride order in the map: row, head, batch. An extent-1 dimension is never stepped; give it
       a legal stride (validation may have stored 0 or an unaligned value there). */
    const int64_t s_in[3] = {stride[1], stride[2], stride[0]};
    const int64_t inner_bytes = (inner * elem_bytes + SM90_TMA_STRIDE_ALIGN - 1) / SM90_TMA_STRIDE_ALIGN * SM90_TMA_STRIDE_ALIGN;
    for (int i = 0; i < 3; ++i) {
        int64_t bytes = s_in[i] * elem_bytes;
        if (key.dims[i + 1] == 1) bytes = inner_bytes;
        key.strides[i] = (uint64_t)bytes;
    }
    key.box_rows = box_rows;
    key.row_bytes = row_bytes;
    key.promotion = (int)promotion;

    flashc_status st = FLASHC_STATUS_SUCCESS;
    pthread_mutex_lock(&g_tmap_lock);
    for (int i = 0; i < SM90_TMAP_CACHE_ENTRIES; ++i)
        if (g_tmap_cache[i].used && memcmp(&g_tmap_cache[i].key, &key, sizeof key) == 0) {
            *out = g_tmap_cache[i].map;
            pthread_mutex_unlock(&g_tmap_lock);
            return FLASHC_STATUS_SUCCESS;
        }
    PFN_cuTensorMapEncodeTiled_v12000 encode;
    st = sm90_get_encoder(&encode);
    if (st == FLASHC_STATUS_SUCCESS) {
        const cuuint32_t box[SM90_TMAP_RANK] = {(cuuint32_t)(row_bytes / elem_bytes), box_rows, 1, 1};
        const cuuint32_t elem_strides[SM90_TMAP_RANK] = {1, 1, 1, 1};
        const CUtensorMapDataType type = dtype == FLASHC_DTYPE_BF16  ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16
                                         : dtype == FLASHC_DTYPE_F16 ? CU_TENSOR_MAP_DATA_TYPE_FLOAT16
                                                                     : CU_TENSOR_MAP_DATA_TYPE_UINT8;
        CUtensorMap map;
        CUresult r = encode(&map, type, SM90_TMAP_RANK, (void *)ptr, key.dims, key.strides, box, elem_strides,
                            CU_TENSOR_MAP_INTERLEAVE_NONE,
                            row_bytes == SM90_PANEL_ROW_BYTES ? CU_TENSOR_MAP_SWIZZLE_128B : CU_TENSOR_MAP_SWIZZLE_64B,
                            promotion, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
        if (r != CUDA_SUCCESS) {
            st = flashc_error(FLASHC_STATUS_CUDA_ERROR, "sm90: cuTensorMapEncodeTiled failed (CUresult %d)", (int)r);
        } else {
            sm90_tmap_entry *e = &g_tmap_cache[g_tmap_next++ % SM90_TMAP_CACHE_ENTRIES];
            e->used = 1;
            e->key = key;
            e->map = map;
            *out = map;
        }
    }
    pthread_mutex_unlock(&g_tmap_lock);
    return st;
}

/* The forward's maps: L2 promotion 256B (the prefill tiles' whole-panel rows). */
static flashc_status sm90_tensor_map(CUtensorMap *out, const void *ptr, flashc_dtype dtype, int device,
                                     int64_t inner, int64_t rows, int64_t heads, int64_t batch,
                                     const int64_t stride[3], uint32_t box_rows, uint32_t row_bytes)
{
    return sm90_tensor_map_promo(out, ptr, dtype, device, inner, rows, heads, batch, stride, box_rows, row_bytes,
                                 CU_TENSOR_MAP_L2_PROMOTION_L2_256B);
}

void flashc_sm90_release_caches(void)
{
    pthread_mutex_lock(&g_tmap_lock);
    memset(g_tmap_cache, 0, sizeof g_tmap_cache);
    g_tmap_next = 0;
    pthread_mutex_unlock(&g_tmap_lock);
}

/* ---- Launch --------------------------------------------------------------------------------- */
/* Division by an invariant d >= 1 of any n < 2^31 as umulhi(2n, mul) >> shift, i.e.
   floor(n * mul / 2^(31 + l)) (Granlund-Montgomery: l = ceil(log2 d), mul = ceil(2^(31 + l) / d),
   which is < 2^32, exact for n < 2^31); shift = l. */
static void sm90_fast_div_init(uint32_t d, uint32_t *mul, uint32_t *shift)
{
    uint32_t l = 0;
    while ((1ull << l) < d) ++l;
    *mul = (uint32_t)(((1ull << (31 + l)) + d - 1) / d);
    *shift = l;
}

/* Tile order: see fwd_tile_at. Snake rounds balance causal tiles sorted longest first; that
   order runs about grid / heads tiles of one head at a time, so with many heads of short tiles
   their K/V come from DRAM once per tile: pairs there (thresholds in sm90_fwd.cuh). */
static int32_t sm90_default_schedule(const flashc_problem *p, const sm90_variant *v, const flashc_device_info *dev)
{
    if (!(p->causal || p->window_right == 0)) return 0;
    const int64_t heads = (int64_t)p->h_q * p->b;
    const int64_t m_blocks = (p->s_q + v->block_m - 1) / v->block_m;
    const int64_t grid = heads * m_blocks < dev->num_sms ? heads * m_blocks : dev->num_sms;
    return m_blocks <= SM90_PAIRS_MAX_M_BLOCKS && grid < heads * SM90_PAIRS_BELOW_TILES_PER_HEAD ? SM90_SCHED_PAIRS
                                                                                                : SM90_SCHED_SNAKE;
}

static flashc_status sm90_launch(const flashc_problem *p, const flashc_device_info *dev, const sm90_variant *v,
                                 int32_t schedule, const sm90_tail *tail, void *workspace, cudaStream_t stream)
{
    sm90_fwd_params prm;
    memset(&prm, 0, sizeof prm);
    flashc_status st;
    /* Q and K rows: one 128-byte panel row, or a whole 64-byte row (8-bit d64) */
    const int64_t row_bytes = p->d * sm90_elem_bytes(p->in_dtype);
    const uint32_t qk_row_bytes = row_bytes < SM90_PANEL_ROW_BYTES ? (uint32_t)row_bytes : SM90_PANEL_ROW_BYTES;
    /* a packed side is one batch of total rows (its tiles add their sequence's first row); paged
       K/V is [num_pages, page_size, h_kv, d], a view with pages for batches, boxes of
       page_box_rows rows (V^T [num_pages, h_kv, d, page_size]: 128-key boxes as ever) */
    const int q_packed = p->q_varlen, kv_packed = p->kv_layout == FLASHC_KV_VARLEN;
    const int paged = p->kv_layout == FLASHC_KV_PAGED;
    const int64_t q_rows = q_packed ? p->total_q : p->s_q, q_batch = q_packed ? 1 : p->b;
    const int64_t kv_rows = paged ? p->page_size : kv_packed ? p->total_k : p->s_k;
    const int64_t kv_batch = paged ? p->num_pages : kv_packed ? 1 : p->b;
    const uint32_t kv_box_rows = paged ? (uint32_t)sm90_page_box_rows(p, v) : (uint32_t)v->block_n;
    if ((st = sm90_tensor_map(&prm.tmap_q, p->q, p->in_dtype, dev->device, p->d, q_rows, p->h_q, q_batch, p->q_stride,
                              (uint32_t)v->block_m, qk_row_bytes)) != FLASHC_STATUS_SUCCESS)
        return st;
    if ((st = sm90_tensor_map(&prm.tmap_k, p->k, p->in_dtype, dev->device, p->d, kv_rows, p->h_kv, kv_batch,
                              p->k_stride, kv_box_rows, qk_row_bytes)) != FLASHC_STATUS_SUCCESS)
        return st;
    if (p->v_transposed) {
        /* V^T [b, h_kv, d, s_k]: v_stride is (batch, head, dim); as a view (batch, row = dim, head) */
        const int64_t vt_stride[3] = {p->v_stride[0], p->v_stride[2], p->v_stride[1]};
        st = sm90_tensor_map(&prm.tmap_v, p->v, p->in_dtype, dev->device, kv_rows, p->d, p->h_kv, kv_batch, vt_stride,
                             (uint32_t)p->d, SM90_PANEL_ROW_BYTES);
    } else {
        st = sm90_tensor_map(&prm.tmap_v, p->v, p->in_dtype, dev->device, p->d, kv_rows, p->h_kv, kv_batch,
                             p->v_stride, kv_box_rows, qk_row_bytes);
    }
    if (st != FLASHC_STATUS_SUCCESS) return st;
    if (v->o_stage &&
        (st = sm90_tensor_map(&prm.tmap_o, p->o, p->out_dtype, dev->device, p->d, p->s_q, p->h_q, p->b, p->o_stride,
                              (uint32_t)SM90_WG_ROWS, SM90_PANEL_ROW_BYTES)) != FLASHC_STATUS_SUCCESS)
        return st;
    prm.o = p->o;
    prm.lse = p->lse;
    memcpy(prm.o_stride, p->o_stride, sizeof prm.o_stride);
    memcpy(prm.lse_stride, p->lse_stride, sizeof prm.lse_stride);
    prm.b = p->b;
    prm.h_q = p->h_q;
    prm.h_kv = p->h_kv;
    prm.s_q = p->s_q;
    prm.s_k = p->s_k;
    prm.q_per_kv = p->h_q / p->h_kv;
    prm.causal = p->causal || p->window_right == 0;
    prm.window_left = p->window_left;
    prm.window_right = p->causal ? 0 : p->window_right;
    prm.out_bf16 = p->out_dtype == FLASHC_DTYPE_BF16;
    prm.scale_log2 = p->softmax_scale * (float)SM90_LOG2E;
    prm.softmax_scale = p->softmax_scale;
    prm.softcap = p->softcap;
    prm.alibi = p->alibi;
    memcpy(prm.alibi_stride, p->alibi_stride, sizeof prm.alibi_stride);
    prm.cu_seqlens_q = q_packed ? p->cu_seqlens_q : NULL;
    prm.cu_seqlens_k = kv_packed ? p->cu_seqlens_k : NULL;
    prm.seqused_k = p->seqused_k;
    if (paged) {
        prm.page_table = p->page_table;
        prm.page_table_stride = p->page_table_stride;
        prm.page_size = p->page_size;
        prm.page_box_rows = (int32_t)kv_box_rows;
        sm90_fast_div_init((uint32_t)p->page_size, &prm.page_div_mul, &prm.page_div_shift);
    }
    prm.q_descale = p->q_descale;
    prm.k_descale = p->k_descale;
    prm.v_descale = p->v_descale;
    memcpy(prm.descale_stride[0], p->q_descale_stride, sizeof prm.descale_stride[0]);
    memcpy(prm.descale_stride[1], p->k_descale_stride, sizeof prm.descale_stride[1]);
    memcpy(prm.descale_stride[2], p->v_descale_stride, sizeof prm.descale_stride[2]);
    prm.num_m_blocks = (p->s_q + v->block_m - 1) / v->block_m;
    prm.num_tiles = prm.num_m_blocks * p->h_q * p->b;
    prm.schedule = schedule;
    /* pairs: one work unit per pair of tiles (see fwd_tile_index) */
    const int32_t pairs = (prm.num_m_blocks + 1) / 2;
    prm.num_units = pairs * p->h_q * p->b;
    sm90_fast_div_init((uint32_t)pairs, &prm.pairs_div_mul, &prm.pairs_div_shift);
    const int32_t units = (schedule & SM90_SCHED_PAIRS) ? prm.num_units : prm.num_tiles;
    int grid = units < dev->num_sms ? units : dev->num_sms;
    prm.tail_round = INT32_MAX;
    prm.tail_nb = 1;
    if (tail->on) {
        grid = dev->num_sms; /* every SM takes a share of the tail, even with fewer tiles than SMs */
        prm.tail_round = tail->round;
        prm.tail_start = tail->start;
        prm.tail_tiles = prm.num_tiles - tail->start;
        prm.num_tiles = (tail->round + 2) * grid; /* the plain index runs on through the tail rounds */
        prm.tail_nb = tail->nb;
        prm.tail_len = tail->len;
        prm.tail_rem = tail->rem;
        prm.ws_o = (float *)workspace;
        prm.ws_lse = prm.ws_o + (size_t)SM90_TAIL_SLOTS_PER_BLOCK * grid * v->block_m * p->d;
    }
    sm90_fast_div_init((uint32_t)prm.tail_nb, &prm.nb_div_mul, &prm.nb_div_shift);

    cudaError_t e = (tail->on ? v->launch_tail : v->launch)(&prm, grid, stream);
    if (e != cudaSuccess)
        return flashc_error(FLASHC_STATUS_CUDA_ERROR, "sm90: kernel launch failed: %s", cudaGetErrorString(e));
    if (tail->on && (e = flashc_sm90_tail_combine(&prm, v->block_m, p->d, stream)) != cudaSuccess)
        return flashc_error(FLASHC_STATUS_CUDA_ERROR, "sm90: tail combine launch failed: %s", cudaGetErrorString(e));
    return FLASHC_STATUS_SUCCESS;
}

static flashc_status sm90_decode_forward(const flashc_problem *p, const flashc_device_info *dev, void *workspace,
                                         size_t workspace_bytes, cudaStream_t stream)
{
    sm90_dec_plan pl = sm90_decode_plan(p, dev);
    const size_t need = sm90_decode_workspace(p, &pl);
    /* api.c refuses a workspace below the size asked for; without one, one split per KV head.
       The pieces are read as float4. */
    if (need > 0 && (!workspace || workspace_bytes < need || (uintptr_t)workspace % 16 != 0)) {
        pl.splits = 1;
        pl.blocks_per_split = pl.num_blocks;
    }
    sm90_dec_params prm;
    memset(&prm, 0, sizeof prm);
    /* the maps' batches are pages when paged: [num_pages, page_size, h_kv, d] and V^T [num_pages,
       h_kv, d, page_size] */
    const int paged = p->kv_layout == FLASHC_KV_PAGED;
    const int64_t kv_rows = paged ? p->page_size : p->s_k, kv_batch = paged ? p->num_pages : p->b;
    /* L2 promotion none: the boxes are 128-byte rows strided apart, and 256B promotion fetched a
       neighbour no CTA wanted then (prototype, H100: 7-17 % slower) */
    flashc_status st = sm90_tensor_map_promo(&prm.tmap_k, p->k, p->in_dtype, dev->device, p->d, kv_rows, p->h_kv,
                                             kv_batch, p->k_stride, SM90_DEC_N, SM90_DEC_ROW_BYTES,
                                             CU_TENSOR_MAP_L2_PROMOTION_NONE);
    if (st != FLASHC_STATUS_SUCCESS) return st;
    if (p->v_transposed) { /* V^T: v_stride is (batch, head, dim); as a view (batch, row = dim, head) */
        const int64_t vt_stride[3] = {p->v_stride[0], p->v_stride[2], p->v_stride[1]};
        st = sm90_tensor_map_promo(&prm.tmap_vt, p->v, p->in_dtype, dev->device, kv_rows, p->d, p->h_kv, kv_batch,
                                   vt_stride, (uint32_t)p->d, SM90_DEC_ROW_BYTES, CU_TENSOR_MAP_L2_PROMOTION_NONE);
    } else { /* V in K's layout: K's map on V */
        st = sm90_tensor_map_promo(&prm.tmap_vt, p->v, p->in_dtype, dev->device, p->d, kv_rows, p->h_kv, kv_batch,
                                   p->v_stride, SM90_DEC_N, SM90_DEC_ROW_BYTES, CU_TENSOR_MAP_L2_PROMOTION_NONE);
    }
    if (st != FLASHC_STATUS_SUCCESS) return st;
    prm.seqused_k = p->seqused_k;
    if (paged) {
        prm.page_table = p->page_table;
        prm.page_table_stride = p->page_table_stride;
        prm.page_size = p->page_size;
    }
    prm.q = (const uint8_t *)p->q;
    prm.o = p->o;
    prm.lse = p->lse;
    prm.q_descale = p->q_descale;
    prm.k_descale = p->k_descale;
    prm.v_descale = p->v_descale;
    memcpy(prm.q_stride, p->q_stride, sizeof prm.q_stride);
    memcpy(prm.o_stride, p->o_stride, sizeof prm.o_stride);
    memcpy(prm.lse_stride, p->lse_stride, sizeof prm.lse_stride);
    memcpy(prm.descale_stride[0], p->q_descale_stride, sizeof prm.descale_stride[0]);
    memcpy(prm.descale_stride[1], p->k_descale_stride, sizeof prm.descale_stride[1]);
    memcpy(prm.descale_stride[2], p->v_descale_stride, sizeof prm.descale_stride[2]);
    prm.b = p->b;
    prm.s_q = p->s_q;
    prm.h_q = p->h_q;
    prm.h_kv = p->h_kv;
    prm.group = p->h_q / p->h_kv;
    prm.s_k = p->s_k;
    prm.rows = p->s_q * prm.group;
    prm.splits = pl.splits;
    prm.blocks_per_split = pl.blocks_per_split;
    prm.interleave = sm90_decode_interleave();
    prm.causal = p->causal || p->window_right == 0;
    prm.out_bf16 = p->out_dtype == FLASHC_DTYPE_BF16;
    prm.evict_first = sm90_decode_evict_first(p, dev);
    prm.solo = sm90_decode_solo(dev);
    prm.v_rows = !p->v_transposed;
    prm.scale_log2 = p->softmax_scale * (float)SM90_LOG2E;
    if (pl.splits > 1) {
        prm.ws_o = (float *)workspace;
        prm.ws_lse = prm.ws_o + (size_t)pl.splits * p->b * p->h_kv * SM90_DEC_M * SM90_DEC_D;
    }
    const cudaError_t e = flashc_sm90_decode_launch(&prm, stream);
    if (e != cudaSuccess)
        return flashc_error(FLASHC_STATUS_CUDA_ERROR, "sm90: decode kernel launch failed: %s", cudaGetErrorString(e));
    return FLASHC_STATUS_SUCCESS;
}

flashc_status flashc_sm90_forward(const flashc_problem *p, const flashc_device_info *dev, void *workspace,
                                  size_t workspace_bytes, struct CUstream_st *stream)
{
    if (flashc_sm90_decode_route(p, dev))
        return sm90_decode_forward(p, dev, workspace, workspace_bytes, (cudaStream_t)stream);
    const sm90_variant v = sm90_pick(p);
    sm90_tail tail = sm90_tail_plan(p, &v, dev);
    /* api.c refuses a workspace below flashc_sm90_workspace_size; without one, no split */
    if (tail.on && (!workspace || workspace_bytes < sm90_tail_workspace(&v, p->d, dev))) tail.on = 0;
    /* the pieces are written as float2 and read as float4 */
    if (tail.on && (uintptr_t)workspace % 16 != 0) tail.on = 0;
    return sm90_launch(p, dev, &v, sm90_default_schedule(p, &v, dev), &tail, workspace, (cudaStream_t)stream);
}
