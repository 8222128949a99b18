/*
 * The in-kernel transpose of 8-bit V rows into V^T (sm90_vt8.h: the mapping, the key order, and the
 * CPU test that replays it), as a device function shared by the Hopper forward's V pass
 * (fwd_kernel.cuh, FWD_V_ROWS) and the decode tile's transposer warps (sm90_decode.cu), and the
 * packing of P against that V^T. Generic-proxy stores: the caller fences them to the async proxy
 * before wgmma reads V^T.
 */
#ifndef FLASHC_SM90_VT8_TRANSPOSE_CUH
#define FLASHC_SM90_VT8_TRANSPOSE_CUH

#include <stdint.h>
#include "ptx/cvt.h"
#include "ptx/ldmatrix.h"
#include "ptx/stmatrix.h"
#include "sm90/sm90_vt8.h"

/* One block of `keys` V rows at shared address v (panels of row_bytes-byte rows, v_panel_bytes
   apart, swizzled as TMA writes K) into V^T at vt ([d rows x 128 keys] panels, vt_panel_bytes
   apart). Units of 32 keys x 16 columns: warp w of `warps` takes units w, w + warps, ... */
static __device__ __forceinline__ void sm90_vt8_transpose(uint32_t v, uint32_t vt, int32_t keys, int32_t d,
                                                          int32_t row_bytes, int32_t v_panel_bytes,
                                                          int32_t vt_panel_bytes, int warp, int warps, int lane)
{
    const uint32_t sel_a = SM90_VT8_SEL(lane, 0), sel_b = SM90_VT8_SEL(lane, 1);
    const int32_t st_col = SM90_VT8_ST_COL(lane), st_key = SM90_VT8_ST_KEY(lane);
    const int32_t key_units = keys / SM90_VT8_UNIT_KEYS, units = key_units * (d / SM90_VT8_UNIT_COLS);
#pragma unroll 1 /* two units in flight spill the forward's 24-register transposers (16-28 B) */
    for (int u = warp; u < units; u += warps) {
        const int32_t key0 = (u % key_units) * SM90_VT8_UNIT_KEYS, chunk = u / key_units;
        uint32_t r[4], w[4];
        ldmatrix_sync_aligned_m8n8_x4_trans_shared_b16(
            r, v + SM90_VT8_ROW_OFFSET(key0 + lane, chunk, row_bytes, v_panel_bytes));
#pragma unroll
        for (int g = 0; g < 2; ++g) {
            w[2 * g] = __byte_perm(r[2 * g], r[2 * g + 1], sel_a);
            w[2 * g + 1] = __byte_perm(r[2 * g], r[2 * g + 1], sel_b);
        }
        stmatrix_sync_aligned_m8n8_x4_shared_b16(
            vt + SM90_VT8_T_OFFSET(chunk * SM90_VT8_UNIT_COLS + st_col, key0 + st_key, vt_panel_bytes), w);
    }
}

/* P (a row pair's scores over `keys` keys, accumulator layout) to e4m3 A fragments against the
   transposed V^T, whose keys inside each 16 are in accumulator order (sm90_vt8.h): lane t's
   register for a row holds its own keys 2t, 2t+1 of the low 8 and 2t, 2t+1 of the high 8, so each
   lane packs its own scores (no exchange, unlike sm90_p8_convert against a pre-transposed V^T). */
static __device__ __forceinline__ void sm90_vt8_convert_p(uint32_t *pf, const float *s, int keys)
{
#pragma unroll
    for (int g = 0; g < keys / 16; ++g)
#pragma unroll
        for (int r = 0; r < 2; ++r)
            pf[2 * g + r] = cvt_rn_satfinite_e4m3x2_f32(s[SM90_VT8_S_INDEX(g, r, 0)], s[SM90_VT8_S_INDEX(g, r, 1)]) |
                            (uint32_t)cvt_rn_satfinite_e4m3x2_f32(s[SM90_VT8_S_INDEX(g, r, 2)],
                                                                  s[SM90_VT8_S_INDEX(g, r, 3)])
                                << 16;
}

#endif /* FLASHC_SM90_VT8_TRANSPOSE_CUH */
