/* Scalar loads of 16/32-bit element types as f32 (bias tensors). */
#ifndef FLASHC_COMMON_DTYPE_CUH
#define FLASHC_COMMON_DTYPE_CUH

#include <stdint.h>
#include "flashc.h"
#include "ptx/cvt.h"

static __device__ __forceinline__ float load_as_f32(const void *base, int64_t idx, flashc_dtype dt)
{
    if (dt == FLASHC_DTYPE_F32) return ((const float *)base)[idx];
    uint16_t h = ((const uint16_t *)base)[idx];
    return dt == FLASHC_DTYPE_F16 ? cvt_f32_f16(h) : cvt_f32_bf16(h);
}

#endif /* FLASHC_COMMON_DTYPE_CUH */
