/*
 * sm80 split-key decode tile (FWD_WARP_SPLIT_KEYS): the kernel body, included by fwd_kernel.cuh in
 * place of the row-split one. Warp w belongs to row group rg = w / SK_KEY_GROUPS (WARP_ROWS query
 * rows; one group unless FWD_SK_ROW_GROUPS) and holds the keys [kg * KEYS_PER_WARP,
 * +KEYS_PER_WARP) of each key block (kg = w % SK_KEY_GROUPS), with its own running max m, sum l
 * and O over the CTA's key range. At the end a group's warps' states are merged through smem with
 * weights 2^(m_w - m) (the split-KV combine's algebra), and warp w finalises O columns
 * [kg * OQ * 8, +OQ * 8) of its group's rows.
 * Why: in the 64-row decode tiles only warps with real rows compute (s_q x group rows of 64), so a
 * block's whole QK / softmax / PV sat on one (8-bit, s_q 1) or two (s_q 4, group 8) warps; here
 * each block's math is spread over all four.
 * FWD_SK_FAST (the _sk_f twins, non-paged K/V whose every V^T chunk is 16-byte aligned, host
 * sm80_sk_fast_ok): the lean loader only. The general loader's code, never run for such K/V, made
 * the loop's SASS ~135 KB: Nsight Compute put 11 % of the 8-bit 32-row tile's stall cycles on
 * instruction fetch, and it held registers (e4m3 d128 16-row 238 -> 192, int8 d128 32-row 255 + a
 * 4-byte spill -> 254). H200, outputs bit-identical: fp8 b 8 h 64/8 32k s_q 4 +7.7 %, b 8 4k s_q 1
 * +17 %, b 64 h 32/8 4k +3 %; bf16 b 8 4k +3.1 %, b 64 4k +1.4 % (docs/sm80.md, session 15).
 * FWD_SK_WHOLE_PAGES (the _sk_wp twins, paged K/V whose pages hold whole key blocks, host
 * sm80_sk_wp_ok): the same lean loader from each block's page base, the general one compiled out.
 * H200 bf16 b 8 h 64/8 32k, pages of 64 / 256: 3.94-3.97 -> 4.11-4.20 TB/s (docs/sm80.md, session 18).
 */
#include "ptx/griddepcontrol.h"

#if !FWD_PAGE_SUB
/* Paged K/V whose pages hold whole key blocks (page_block_keys >= BLOCK_N): block n lies in one page
   (page_id, from prefetch_page_id, the same in every lane), so its rows (8-bit V^T: its keys) are
   addressed from a per-block base like the contiguous cache's, and sk_load_kv_fast copies them. The
   general loader redid the 64-bit index math per chunk: with it the 16-bit tile lost 7 % to the
   deep ring on pages of 64. 8-bit: V^T chunks stay 16-byte aligned when the base and the strides
   are (sk_whole_pages_ok; a page starts at a multiple of BLOCK_N keys). */
static __device__ __forceinline__ lean_bases sk_block_bases(const sm80_fwd_params *prm, const fwd_ctx *c, int n,
                                                          int page_id)
{
    const flashc_problem *p = &prm->p;
    const kv_offsets o = page_block_offsets(prm, n, page_id);
    lean_bases b;
    b.k = (const elem_t *)p->k + o.k + (int64_t)c->hk * p->k_stride[2];
#if VT_TILE
    b.v = (const elem_t *)p->v + o.v + (int64_t)c->hk * p->v_stride[1]; /* V^T [num_pages, h_kv, d, page_size] */
#else
    b.v = (const elem_t *)p->v + o.v + (int64_t)c->hk * p->v_stride[2];
#endif
    return b;
}

static __device__ __forceinline__ int sk_whole_pages_ok(const sm80_fwd_params *prm)
{
    const flashc_problem *p = &prm->p;
    if (p->kv_layout != FLASHC_KV_PAGED || !pages_hold_blocks(prm)) return 0;
#if VT_TILE
    return ((uintptr_t)p->v & (CP_ASYNC_CHUNK_BYTES - 1)) == 0 && ((p->v_stride[0] | p->v_stride[1] | p->v_stride[2]) &
                                                                   (CP_ASYNC_CHUNK_BYTES - 1)) == 0;
#else
    return 1;
#endif
}

/* One key block into a ring stage: the contiguous cache (fast: the CTA's base) and whole-block pages
   (the block's page base) take the lean loader, inlined once; anything else (scattered small
   pages, unaligned strides) the general one. */
static __device__ __forceinline__ void sk_load_block(const sm80_fwd_params *prm, const fwd_ctx *c, lean_bases kvb,
                                                     int fast, int whole_pages, elem_t *sK, elem_t *sV, int n,
                                                     int tid, int page_id)
{
#if FWD_SK_FAST
    load_kv_lean(prm, c, kvb, sK, sV, n, tid); /* the _f twin: the host routes only lean_kv_ok K/V here */
#elif FWD_SK_WHOLE_PAGES
    /* the _wp twin: the host routes only whole-block pages (sk_whole_pages_ok) here */
    load_kv_lean(prm, c, sk_block_bases(prm, c, n, page_id), sK, sV, n, tid);
#else
    if (fast || whole_pages)
        load_kv_lean(prm, c, fast ? kvb : sk_block_bases(prm, c, n, page_id), sK, sV, n, tid);
    else
        load_kv_tile(prm, c, sK, sV, n, tid, page_id);
#endif
}
#endif

#if (FWD_SK_FAST || FWD_SK_WHOLE_PAGES) && FWD_PAGE_SUB || (FWD_SK_FAST && FWD_SK_WHOLE_PAGES)
#error "FWD_SK_FAST / FWD_SK_WHOLE_PAGES: one lean loader each (non-paged K/V, whole-block pages), not the page-sub one"
#endif

#if FWD_PAGE_SUB
/* Page-sub twin: pages of 2^k keys (k = page_sub_shift; 8-bit 16-64 keys, 16-bit 8 up to half a
   block) split the key block and are packed as page_size rows (host: page_sub_shift), lanes 0.. of
   page_ids hold the block's page ids (prefetch_page_id). K row r (16-bit: and V row r) is virtual
   row (page << k) | (r & (2^k - 1)) from a per-CTA head base; an 8-bit V^T chunk (16 keys, one
   page) starts at its page's base plus the in-page key. The
   host routes only V^T with 16-byte multiple strides here (the base is validated), so no chunk
   needs the gather path that load_kv_tile_sub keeps (with it the e4m3 d128 tile spilled 4 bytes).
   Pages of exactly 16 keys take the _sk_pg16 twin (FWD_VT_ROW_PAIRS: its own V^T copy order). */
static __device__ __forceinline__ lean_bases sk_cta_bases_paged(const sm80_fwd_params *prm, const fwd_ctx *c)
{
    const flashc_problem *p = &prm->p;
    lean_bases b;
    b.k = (const elem_t *)p->k + (int64_t)c->hk * p->k_stride[2];
#if VT_TILE
    b.v = (const elem_t *)p->v + (int64_t)c->hk * p->v_stride[1]; /* V^T [num_pages, h_kv, d, page_size] */
#else
    b.v = (const elem_t *)p->v + (int64_t)c->hk * p->v_stride[2]; /* V rows like K's */
#endif
    return b;
}

static __device__ __forceinline__ void sk_load_kv_sub(const sm80_fwd_params *prm, const fwd_ctx *c, lean_bases b,
                                                      elem_t *sK, elem_t *sV, int n, int tid, int page_ids)
{
    const flashc_problem *p = &prm->p;
    const int shift = prm->page_sub_shift, mask = (1 << shift) - 1;
    const int j0 = n * BLOCK_N;
    {
        const int row0 = tid / ROW_CHUNKS, ch = tid % ROW_CHUNKS;
        const int64_t ks = p->k_stride[1];
#if !VT_TILE
        const int64_t vs = p->v_stride[1];
#endif
#pragma unroll
        for (int it = 0; it < KV_CHUNKS_PER_THREAD; ++it) {
            const int row = row0 + it * (NUM_THREADS / ROW_CHUNKS);
            const int page = __shfl_sync(FLASHC_FULL_WARP_MASK, page_ids, row >> shift);
            const int vrow = (page << shift) | (row & mask);
            const uint32_t bytes = j0 + row < c->seqlen_k ? CP_ASYNC_CHUNK_BYTES : 0;
            cp_async_kv_row(cvta_to_shared_u32(sK + swz(row, ch)), b.k + (int64_t)vrow * ks + ch * CHUNK_ELEMS,
                            bytes);
#if !VT_TILE /* 16-bit V: the same virtual row of V */
            cp_async_kv_row(cvta_to_shared_u32(sV + swz_v(row, ch)), b.v + (int64_t)vrow * vs + ch * CHUNK_ELEMS,
                            bytes);
#endif
        }
    }
#if !VT_TILE
#elif FWD_VT_ROW_PAIRS
    {
        /* Pages of 16 keys (the _sk_pg16 twin): a V^T row holds one 16-byte chunk per page, so
           chunk g of the block is page g / D_OUT, row g % D_OUT: a warp copies 512 contiguous
           bytes of one page, and each 32-byte sector (rows 2p, 2p+1) lands in one aligned
           shared-memory pair (swz_vt_pairs). */
        const int64_t rs = p->v_stride[2];
#pragma unroll
        for (int it = 0; it < VT_CHUNKS_PER_THREAD; ++it) {
            const int g = it * NUM_THREADS + tid, ch = g / D_OUT, dr = g % D_OUT;
            const int keys = min(max(c->seqlen_k - (j0 + ch * CHUNK_ELEMS), 0), CHUNK_ELEMS);
            const int64_t page = __shfl_sync(FLASHC_FULL_WARP_MASK, page_ids, ch);
            cp_async_cg_shared_global_16(cvta_to_shared_u32(sV + swz_vt(dr, ch)),
                                         b.v + page * p->v_stride[0] + (int64_t)dr * rs, (uint32_t)keys * ELEM_BYTES);
        }
    }
#else
    {
        /* Pages of 32-64 keys: a page's V^T row is 32-64 bytes, half a 128-byte line or less. With
           .L2::128B, L2 fetches whole lines: 8-bit b 64 h 32/8 8k, pages of 64, +6-10 % (pages of
           32 +2 %, b 8 h 64/8 32k +9 %; no change elsewhere; session 39, docs/sm80.md). */
        const int dr0 = tid / VT_ROW_CHUNKS, ch = tid % VT_ROW_CHUNKS;
        const int64_t rs = p->v_stride[2];
        const int key = ch * CHUNK_ELEMS; /* the chunk's first key in the block */
        const int keys = min(max(c->seqlen_k - (j0 + key), 0), CHUNK_ELEMS);
        const int64_t page = __shfl_sync(FLASHC_FULL_WARP_MASK, page_ids, key >> shift);
        const elem_t *vb = b.v + page * p->v_stride[0] + (key & mask) + (int64_t)dr0 * rs;
#pragma unroll
        for (int it = 0; it < VT_CHUNKS_PER_THREAD; ++it) {
            const int dr = dr0 + it * (NUM_THREADS / VT_ROW_CHUNKS);
            cp_async_cg_shared_global_16_l2_128b(cvta_to_shared_u32(sV + swz_vt(dr, ch)),
                                                 vb + (int64_t)(it * (NUM_THREADS / VT_ROW_CHUNKS)) * rs,
                                                 (uint32_t)keys * ELEM_BYTES);
        }
    }
#endif
}
#endif

/* ---- Merge of the warps' states, then the epilogue ----------------------------------------- */
#define SK_OQ (O_FRAGS / SK_KEY_GROUPS)           /* O fragments each warp finalises */
#if V_ROWS_8BIT && KEYS_PER_WARP % 16 != 0
#error "split-key _vr tiles: a warp's key slice must keep swz_v's 16-row pattern"
#endif
#if O_FRAGS % SK_KEY_GROUPS != 0
#error "split-key tiles: O columns must split evenly over a row group's warps"
#endif
/* smem after the K/V loop (all copies waited for): the output staging tile at 0 (over Q, and for
   8-bit past it), then per warp its O fragments (lane-major float4: conflict-free), m and l. */
#define SK_STAGE_BYTES (BLOCK_M * D_OUT * 2)
#define SK_PART_OFF (((TILE_Q_ELEMS * ELEM_BYTES > SK_STAGE_BYTES ? TILE_Q_ELEMS * ELEM_BYTES : SK_STAGE_BYTES) + 15) / 16 * 16)
#define SK_PART_O_BYTES (NUM_WARPS * M_SLABS * O_FRAGS * 32 * 16)
#define SK_PART_ML_BYTES (2 * NUM_WARPS * ROWS_PER_THREAD * 32 * 4)
#if SK_PART_OFF + SK_PART_O_BYTES + SK_PART_ML_BYTES > SMEM_BYTES
#error "split-key tiles: the merge area does not fit the tile's smem"
#endif

/* One past the last packed row this CTA writes: a row-halves CTA (FWD_SK_ROW_HALVES) its share of
   rows_per_cta, others every valid row of the tile. */
static __device__ __forceinline__ int sk_rows_end(const sm80_fwd_params *prm, const fwd_ctx *c)
{
#if FWD_SK_ROW_HALVES
    return min(c->m0 + prm->rows_per_cta, c->m_rows);
#else
    (void)prm;
    return c->m_rows;
#endif
}

static __device__ __forceinline__ void sk_merge_epilogue(const sm80_fwd_params *prm, const fwd_ctx *c,
                                                         const float O[M_SLABS][O_FRAGS][4],
                                                         const float m[ROWS_PER_THREAD], const float l[ROWS_PER_THREAD],
                                                         float mult, char *smem_bytes, int warp, int lane, int tid)
{
    const flashc_problem *p = &prm->p;
    float4 *part_o = (float4 *)(smem_bytes + SK_PART_OFF);                  /* [w][sl][o][lane] */
    float *part_m = (float *)(smem_bytes + SK_PART_OFF + SK_PART_O_BYTES); /* [w][rr][lane] */
    float *part_l = part_m + NUM_WARPS * ROWS_PER_THREAD * 32;
#pragma unroll
    for (int sl = 0; sl < M_SLABS; ++sl)
#pragma unroll
        for (int o = 0; o < O_FRAGS; ++o)
            part_o[((warp * M_SLABS + sl) * O_FRAGS + o) * 32 + lane] =
                make_float4(O[sl][o][0], O[sl][o][1], O[sl][o][2], O[sl][o][3]);
#pragma unroll
    for (int rr = 0; rr < ROWS_PER_THREAD; ++rr) {
        part_m[(warp * ROWS_PER_THREAD + rr) * 32 + lane] = m[rr];
        part_l[(warp * ROWS_PER_THREAD + rr) * 32 + lane] = l[rr];
    }
    __syncthreads();

    /* per row of this warp's row group: the joint max, each of the group's warps' weight
       2^(m_w - max) (0 for a warp that saw no key of the row), the joint thread-partial sum */
    const int rg = SK_ROW_GROUP(warp), kg = SK_KEY_GROUP(warp), w0 = rg * SK_KEY_GROUPS;
    float wgt[SK_KEY_GROUPS][ROWS_PER_THREAD], mj[ROWS_PER_THREAD], lj[ROWS_PER_THREAD];
#pragma unroll
    for (int rr = 0; rr < ROWS_PER_THREAD; ++rr) {
        float mw[SK_KEY_GROUPS], mx = -INFINITY;
#pragma unroll
        for (int j = 0; j < SK_KEY_GROUPS; ++j) {
            mw[j] = part_m[((w0 + j) * ROWS_PER_THREAD + rr) * 32 + lane];
            mx = fmaxf(mx, mw[j]);
        }
        const float ms = mx == -INFINITY ? 0.f : mx * mult;
        float sum = 0.f;
#pragma unroll
        for (int j = 0; j < SK_KEY_GROUPS; ++j) {
            wgt[j][rr] = ex2_approx_ftz_f32(mw[j] * mult - ms);
            sum += wgt[j][rr] * part_l[((w0 + j) * ROWS_PER_THREAD + rr) * 32 + lane];
        }
        mj[rr] = mx;
        lj[rr] = sum;
    }
    /* this warp's O columns, summed over its row group's warps */
    float Of[M_SLABS][SK_OQ][4];
#pragma unroll
    for (int sl = 0; sl < M_SLABS; ++sl)
#pragma unroll
        for (int q = 0; q < SK_OQ; ++q) {
            Of[sl][q][0] = Of[sl][q][1] = Of[sl][q][2] = Of[sl][q][3] = 0.f;
#pragma unroll
            for (int j = 0; j < SK_KEY_GROUPS; ++j) {
                const float4 v = part_o[(((w0 + j) * M_SLABS + sl) * O_FRAGS + kg * SK_OQ + q) * 32 + lane];
                Of[sl][q][0] = fmaf(wgt[j][2 * sl], v.x, Of[sl][q][0]);
                Of[sl][q][1] = fmaf(wgt[j][2 * sl], v.y, Of[sl][q][1]);
                Of[sl][q][2] = fmaf(wgt[j][2 * sl + 1], v.z, Of[sl][q][2]);
                Of[sl][q][3] = fmaf(wgt[j][2 * sl + 1], v.w, Of[sl][q][3]);
            }
        }

    float inv[ROWS_PER_THREAD], lse[ROWS_PER_THREAD];
    finish_rows(c, mj, lj, mult, inv, lse);
    const int t = lane & 3;
    const int col0 = kg * SK_OQ * MMA_N; /* this warp's first O column */
    const int r_end = sk_rows_end(prm, c);

    if (prm->num_splits > 1) {
#pragma unroll
        for (int k = 0; k < ROWS_PER_THREAD; ++k) {
            const fwd_row ri = row_info(prm, c, rg, lane, k);
            if (c->m0 + acc_row(rg, lane, k) >= r_end) continue; /* r_end <= m_rows: ri.valid */
            const int64_t grow = split_q_row(p, c, ri);
            float *dst = split_o_row(prm, c, ri, grow) + col0;
#pragma unroll
            for (int q = 0; q < SK_OQ; ++q) {
                float2 v = make_float2(Of[k >> 1][q][2 * (k & 1)] * inv[k], Of[k >> 1][q][2 * (k & 1) + 1] * inv[k]);
                *(float2 *)(dst + q * MMA_N + 2 * t) = v;
            }
            if (t == 0 && kg == 0) *split_lse(prm, c, ri, grow) = lse[k];
        }
        return;
    }

    uint16_t *sO = (uint16_t *)smem_bytes; /* disjoint from the merge area: no barrier needed */
#pragma unroll
    for (int k = 0; k < ROWS_PER_THREAD; ++k) {
        const int row = acc_row(rg, lane, k);
#pragma unroll
        for (int q = 0; q < SK_OQ; ++q) {
            const int col = col0 + q * MMA_N + 2 * t;
            uint32_t v = pack_output(Of[k >> 1][q][2 * (k & 1)] * inv[k], Of[k >> 1][q][2 * (k & 1) + 1] * inv[k],
                                     p->out_dtype);
            *(uint32_t *)(sO + swz_o(row, col / OUT_CHUNK_ELEMS) + col % OUT_CHUNK_ELEMS) = v;
        }
        if (p->lse && t == 0 && kg == 0) {
            const fwd_row ri = row_info(prm, c, rg, lane, k);
            if (c->m0 + row < r_end) store_lse(p, c, ri, lse[k]);
        }
    }
    __syncthreads();
    uint16_t *out = (uint16_t *)p->o;
#pragma unroll
    for (int it = 0; it < OUT_CHUNKS_PER_THREAD; ++it) {
        int idx = tid + it * NUM_THREADS;
        int row = idx / OUT_ROW_CHUNKS, ch = idx % OUT_ROW_CHUNKS;
        int r = c->m0 + row;
        if (r >= r_end) continue;
        int i = r / c->group;
        uint16_t *dst = out + (int64_t)c->bi * p->o_stride[0] + (int64_t)(c->q_off + i) * p->o_stride[1] +
                        (int64_t)row_head(prm, c, r) * p->o_stride[2] + ch * OUT_CHUNK_ELEMS;
        *(uint4 *)dst = *(const uint4 *)(sO + swz_o(row, ch));
    }
}

/* Key blocks this CTA visits, highest first: top - it x prm->sk_step for it < count. With sk_step
   = num_splits (> 1) split s takes every num_splits-th block of the span from its top down (a KV
   head's splits read neighbouring blocks at once: V^T's 128-byte pieces of a d-row share DRAM
   pages; and every split takes a share of a sequence shorter than the cache); with 1 its run.
   The step stays in the parameter bank (no register: these tiles sit at the register cap). */
static __device__ __forceinline__ void sk_key_walk(const sm80_fwd_params *prm, const fwd_ctx *c, int *top, int *count)
{
    int lo, hi;
    if (prm->sk_step > 1) {
        key_block_span(prm, c, &lo, &hi);
        *top = hi - 1 - c->split;
        *count = *top >= lo ? (*top - lo) / prm->sk_step + 1 : 0;
    } else {
        key_block_range(prm, c, &lo, &hi);
        *top = hi - 1;
        *count = hi - lo;
    }
}

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
    /* split-KV: the combine grid, launched as this grid's programmatic dependent (sm_90), may be
       placed on SMs as this grid's CTAs finish; it waits for all of them before reading */
    griddep_launch_dependents();

    fwd_ctx c;
    setup_ctx(&prm, &c);
    if (c.m0 >= c.m_rows) return;
    int top, count;
    sk_key_walk(&prm, &c, &top, &count);

    float O[M_SLABS][O_FRAGS][4];
    float m[ROWS_PER_THREAD], l[ROWS_PER_THREAD];
    init_accumulators(O, m, l);
    const float mult = score_mult(&prm, &c);
    const uint32_t sQ_addr = cvta_to_shared_u32(sQ);
    const int rg = SK_ROW_GROUP(warp);                 /* this warp's row group */
    const int kw = SK_KEY_GROUP(warp) * KEYS_PER_WARP; /* its first key within a block */

    if (count > 0) {
#if Q_IN_REGS
        uint32_t qf[K_STEPS_QK][QF_WORDS];
#endif
#if FWD_PAGE_SUB /* the page-sub twin (host: paged K/V whose 2^k-key pages split a block) has one loader */
        const lean_bases kvb = sk_cta_bases_paged(&prm, &c);
#else
        const lean_bases kvb = lean_cta_bases(&prm, &c);
        const int fast = lean_kv_ok(&prm, kvb);
        const int whole_pages = sk_whole_pages_ok(&prm); /* whole-block pages take the lean loader */
#endif
        /* Prologue: Q and the first STAGES-1 key blocks (highest first), one group each. */
        load_q_tile(&prm, &c, sQ, tid);
#pragma unroll
        for (int s = 0; s < STAGES - 1; ++s) {
#if FWD_PAGE_SUB
            if (s < count)
                sk_load_kv_sub(&prm, &c, kvb, sK + s * TILE_KV_ELEMS, sV + s * TILE_KV_ELEMS,
                               top - s * prm.sk_step, tid,
                               prefetch_page_id(&prm, &c, top - s * prm.sk_step, warp, lane));
#else
            if (s < count)
                sk_load_block(&prm, &c, kvb, fast, whole_pages, sK + s * TILE_KV_ELEMS, sV + s * TILE_KV_ELEMS,
                              top - s * prm.sk_step, tid,
                              prefetch_page_id(&prm, &c, top - s * prm.sk_step, warp, lane));
#endif
            cp_async_commit_group();
        }
        int page_ids =
            STAGES - 1 < count ? prefetch_page_id(&prm, &c, top - (STAGES - 1) * prm.sk_step, warp, lane) : 0;
        for (int it = 0; it < count; ++it) {
            const int n = top - it * prm.sk_step, stage = it % STAGES;
            CP_ASYNC_WAIT_GROUP(STAGES - 2);
            __syncthreads();
            TT_STAMP_LOOP(it, count);
            {
                int nxt = it + STAGES - 1;
#if FWD_PAGE_SUB
                if (nxt < count) {
                    int ns = nxt % STAGES;
                    sk_load_kv_sub(&prm, &c, kvb, sK + ns * TILE_KV_ELEMS, sV + ns * TILE_KV_ELEMS,
                                   top - nxt * prm.sk_step, tid, page_ids);
                }
#else
                if (nxt < count) {
                    int ns = nxt % STAGES;
                    sk_load_block(&prm, &c, kvb, fast, whole_pages, sK + ns * TILE_KV_ELEMS, sV + ns * TILE_KV_ELEMS,
                                  top - nxt * prm.sk_step, tid, page_ids);
                }
#endif
                cp_async_commit_group();
                if (nxt + 1 < count) page_ids = prefetch_page_id(&prm, &c, top - (nxt + 1) * prm.sk_step, warp, lane);
            }
#if Q_IN_REGS
            if (it == 0) {
#pragma unroll
                for (int kk = 0; kk < K_STEPS_QK; ++kk) load_qf(qf[kk], sQ_addr, rg, lane, kk);
            }
#endif
            float S[M_SLABS][S_FRAGS][4];
            /* K rows kw.. of the stage: kw is a multiple of 8, so the row swizzle is unchanged */
            compute_qk(S,
#if Q_IN_REGS
                       qf,
#endif
                       sQ_addr, cvta_to_shared_u32(sK + stage * TILE_KV_ELEMS + kw * D), rg, lane);
            const int need_mask = block_needs_mask(&prm, &c, n);
            if (prm.transform || need_mask) score_transform(&prm, &c, S, n * BLOCK_N + kw, rg, lane, need_mask);
            online_softmax(S, O, m, l, mult);
#if VT_TILE
            compute_pv_8bit(S, O, cvta_to_shared_u32(sV + stage * TILE_KV_ELEMS), lane, kw / CHUNK_ELEMS);
#else /* V rows (16-bit; 8-bit _vr, whose swz_v repeats every 16 rows): rows kw.. of the stage */
            compute_pv(S, O, cvta_to_shared_u32(sV + stage * TILE_KV_ELEMS + kw * D), lane);
#endif
        }
    }
    /* No copy may still target smem, and every warp is past its last ldmatrix of Q/K/V. */
    CP_ASYNC_WAIT_GROUP(0);
    __syncthreads();
    TT_STAMP(TT_LOOP_DONE);
    o_columns_to_std(O, lane);
    sk_merge_epilogue(&prm, &c, O, m, l, mult, (char *)smem, warp, lane, tid);
    TT_STAMP_END(count);
#endif
}
