/*
 * sm80 path, host side: the launch.h contract (check / workspace size / forward).
 * Picks the (dtype, head dim) variant, whether to pack the query heads of a KV head into one tile
 * (GQA packing: K/V are read once per KV head), and how many key splits fill the GPU (split-KV,
 * merged by sm80_combine.cu). The plan depends only on shapes and the device, so workspace size
 * and forward always agree.
 */
#include <math.h>
#include <stdint.h>
#include "launch.h"
#include "sm80/sm80_fwd.h"

#define SM80_MIN_CC_MAJOR 8
#define SM80_LOG2E 1.4426950408889634f
#define SM80_MAX_GRID_YZ 65535
#define SM80_CTAS_PER_SM_TARGET 2      /* resident CTAs per SM the split heuristic aims to fill */
#define SM80_MIN_BLOCKS_PER_SPLIT 2    /* a split below this many key blocks costs more than it gains */
#define SM80_SPLIT_EFFICIENCY 0.85     /* take the fewest splits within this of the best wave fill */
#define SM80_WS_ALIGN 256

typedef cudaError_t (*sm80_fwd_fn)(const sm80_fwd_params *, int, int, int, cudaStream_t);

typedef struct sm80_plan {
    sm80_fwd_fn fn;
    int block_n, smem;
    int pack, group;
    int grid_m, grid_h, splits;
} sm80_plan;

static int pick_variant(const flashc_problem *p, sm80_plan *pl)
{
    const int bf = p->in_dtype == FLASHC_DTYPE_BF16;
#define SM80_PICK(dt, dd)                                      \
    do {                                                       \
        pl->fn = flashc_sm80_fwd_##dt##_d##dd;                 \
        pl->block_n = flashc_sm80_fwd_##dt##_d##dd##_block_n();  \
        pl->smem = flashc_sm80_fwd_##dt##_d##dd##_smem_bytes(); \
    } while (0)
    switch (p->d) {
    case 64: if (bf) SM80_PICK(bf16, 64); else SM80_PICK(f16, 64); return 1;
    case 128: if (bf) SM80_PICK(bf16, 128); else SM80_PICK(f16, 128); return 1;
    case 256: if (bf) SM80_PICK(bf16, 256); else SM80_PICK(f16, 256); return 1;
    default: return 0;
    }
#undef SM80_PICK
}

static int choose_splits(const flashc_problem *p, const flashc_device_info *dev, const sm80_plan *pl)
{
    long long ctas = (long long)pl->grid_m * pl->grid_h * p->b;
    int n_blocks = (p->s_k + pl->block_n - 1) / pl->block_n;
    long long slots = (long long)dev->num_sms * SM80_CTAS_PER_SM_TARGET;
    if (ctas <= 0 || ctas >= slots || n_blocks < 2 * SM80_MIN_BLOCKS_PER_SPLIT) return 1;
    int max_s = n_blocks / SM80_MIN_BLOCKS_PER_SPLIT;
    if (max_s > SM80_MAX_SPLITS) max_s = SM80_MAX_SPLITS;
    while (max_s > 1 && (long long)p->b * max_s > SM80_MAX_GRID_YZ) --max_s;
    double eff[SM80_MAX_SPLITS + 1], best = 0.0;
    for (int s = 1; s <= max_s; ++s) {
        long long work = ctas * s;
        long long waves = (work + slots - 1) / slots;
        /* wave fill, and the per-split share of blocks rounds up: idle blocks count as waste */
        int per = (n_blocks + s - 1) / s;
        eff[s] = (double)work / (double)(waves * slots) * (double)n_blocks / (double)(per * s);
        if (eff[s] > best) best = eff[s];
    }
    for (int s = 1; s <= max_s; ++s)
        if (eff[s] >= SM80_SPLIT_EFFICIENCY * best) return s;
    return 1;
}

static void make_plan(const flashc_problem *p, const flashc_device_info *dev, sm80_plan *pl)
{
    pl->group = p->h_kv > 0 ? p->h_q / p->h_kv : 1;
    pl->pack = pl->group > 1;
    long long rows = (long long)p->s_q * (pl->pack ? pl->group : 1);
    pl->grid_m = (int)((rows + SM80_BLOCK_M - 1) / SM80_BLOCK_M);
    pl->grid_h = pl->pack ? p->h_kv : p->h_q;
    pl->splits = choose_splits(p, dev, pl);
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

extern "C" flashc_status flashc_sm80_check(const flashc_problem *p, const flashc_device_info *dev)
{
    if (dev->cc_major < SM80_MIN_CC_MAJOR)
        return flashc_error(FLASHC_STATUS_NOT_SUPPORTED, "sm80: needs compute capability 8.0+, device has %d.%d",
                            dev->cc_major, dev->cc_minor);
    if (p->in_dtype == FLASHC_DTYPE_FP8_E4M3 || p->in_dtype == FLASHC_DTYPE_INT8)
        return flashc_error(FLASHC_STATUS_NOT_SUPPORTED,
                            "sm80: 8-bit inputs (fp8 e4m3 / int8) are not implemented in the sm80 path yet");
    if (p->in_dtype != FLASHC_DTYPE_F16 && p->in_dtype != FLASHC_DTYPE_BF16)
        return flashc_error(FLASHC_STATUS_NOT_SUPPORTED, "sm80: input dtype %d not supported", (int)p->in_dtype);
    if (p->out_dtype != FLASHC_DTYPE_F16 && p->out_dtype != FLASHC_DTYPE_BF16)
        return flashc_error(FLASHC_STATUS_NOT_SUPPORTED, "sm80: output dtype must be f16 or bf16");
    if (p->v_transposed)
        return flashc_error(FLASHC_STATUS_NOT_SUPPORTED, "sm80: v_transposed is not implemented");
    if (p->bias && p->bias_dtype != FLASHC_DTYPE_F32 && p->bias_dtype != FLASHC_DTYPE_F16 &&
        p->bias_dtype != FLASHC_DTYPE_BF16)
        return flashc_error(FLASHC_STATUS_NOT_SUPPORTED, "sm80: bias dtype must be f32, f16 or bf16");
    sm80_plan pl;
    if (!pick_variant(p, &pl))
        return flashc_error(FLASHC_STATUS_NOT_SUPPORTED, "sm80: head dim %d not supported (have 64, 128, 256)",
                            p->d);
    if (pl.smem > dev->max_smem_optin)
        return flashc_error(FLASHC_STATUS_NOT_SUPPORTED,
                            "sm80: head dim %d needs %d bytes of shared memory, device allows %d", p->d, pl.smem,
                            dev->max_smem_optin);
    if (p->kv_layout == FLASHC_KV_PAGED && p->page_size <= 0)
        return flashc_error(FLASHC_STATUS_NOT_SUPPORTED, "sm80: paged KV with page size %d", p->page_size);
    make_plan(p, dev, &pl);
    if (pl.grid_h > SM80_MAX_GRID_YZ || (long long)p->b * pl.splits > SM80_MAX_GRID_YZ)
        return flashc_error(FLASHC_STATUS_NOT_SUPPORTED, "sm80: grid too large (heads %d, batch %d)", pl.grid_h,
                            p->b);
    return FLASHC_STATUS_SUCCESS;
}

extern "C" size_t flashc_sm80_workspace_size(const flashc_problem *p, const flashc_device_info *dev)
{
    sm80_plan pl;
    if (!pick_variant(p, &pl)) return 0;
    make_plan(p, dev, &pl);
    if (pl.splits <= 1) return 0;
    return ws_o_bytes(p, pl.splits) + ws_lse_bytes(p, pl.splits);
}

extern "C" flashc_status flashc_sm80_forward(const flashc_problem *p, const flashc_device_info *dev, void *workspace,
                                             size_t workspace_bytes, struct CUstream_st *stream)
{
    sm80_plan pl;
    if (!pick_variant(p, &pl))
        return flashc_error(FLASHC_STATUS_NOT_SUPPORTED, "sm80: head dim %d not supported", p->d);
    make_plan(p, dev, &pl);
    if (pl.grid_m == 0 || p->b == 0 || p->h_q == 0) return FLASHC_STATUS_SUCCESS;

    sm80_fwd_params prm;
    prm.p = *p;
    prm.scale_log2 = p->softmax_scale * SM80_LOG2E;
    prm.inv_softcap = p->softcap != 0.f ? 1.f / p->softcap : 0.f;
    prm.group = pl.group;
    prm.pack_gqa = pl.pack;
    prm.num_splits = pl.splits;
    prm.transform = p->softcap != 0.f || p->bias != NULL || p->alibi != NULL;
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
    if (pl.splits > 1) {
        e = flashc_sm80_combine(&prm, (cudaStream_t)stream);
        if (e != cudaSuccess)
            return flashc_error(FLASHC_STATUS_CUDA_ERROR, "sm80: combine kernel launch failed: %s",
                                cudaGetErrorString(e));
    }
    return FLASHC_STATUS_SUCCESS;
}
