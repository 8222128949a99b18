/*
 * P (f32 scores of an m64nN wgmma accumulator) to the A fragment of the 8-bit P.V wgmma, for the
 * Hopper forward (fwd_kernel.cuh, V^T inputs) and the decode tile (sm90_decode.cu): each lane rounds
 * its scores to e4m3 pairs, and two shuffles inside the lane quad plus a byte permute put them
 * where the fragment wants them (sm90_p8.h explains the mapping; tests/cpu/test_sm90_p8.c replays
 * it for every lane).
 */
#ifndef FLASHC_SM90_P8_CUH
#define FLASHC_SM90_P8_CUH

#include <stdint.h>
#include "common/softmax.cuh" /* FLASHC_FULL_WARP_MASK */
#include "ptx/cvt.h"
#include "sm90/sm90_p8.h"

/* keys: the accumulator's N (a compile-time constant at every call, so the loop unrolls); pf gets
   keys / 8 registers. */
static __device__ __forceinline__ void sm90_p8_convert(uint32_t *pf, const float *s, const int keys)
{
    const int t = threadIdx.x % 4;
    const int src = SM90_P8_SRC(t), high_first = SM90_P8_FIRST_SENDS_HIGH(t);
    const uint32_t sel0 = SM90_P8_SEL_ROW0(t), sel1 = SM90_P8_SEL_ROW1(t);
#pragma unroll
    for (int g = 0; g < keys / 16; ++g) {
        const float *lo = s + 8 * g, *hi = s + 8 * g + 4; /* s[4j + 2r + c], j = 2g, 2g + 1 */
        const uint32_t w_lo = cvt_rn_satfinite_e4m3x2_f32(lo[0], lo[1]) |
                              (uint32_t)cvt_rn_satfinite_e4m3x2_f32(lo[2], lo[3]) << 16;
        const uint32_t w_hi = cvt_rn_satfinite_e4m3x2_f32(hi[0], hi[1]) |
                              (uint32_t)cvt_rn_satfinite_e4m3x2_f32(hi[2], hi[3]) << 16;
        const uint32_t first = __shfl_sync(FLASHC_FULL_WARP_MASK, high_first ? w_hi : w_lo, src, 4);
        const uint32_t second = __shfl_sync(FLASHC_FULL_WARP_MASK, high_first ? w_lo : w_hi, src ^ 1, 4);
        pf[2 * g] = __byte_perm(first, second, sel0);
        pf[2 * g + 1] = __byte_perm(first, second, sel1);
    }
}

#endif /* FLASHC_SM90_P8_CUH */
