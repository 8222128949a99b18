/* sm80 forward variant: int8 inputs (V sequence-innermost), head dim 128, wide split-key decode tile
   (fwd_splitk.cuh): 16 query rows shared by 8 warps, each taking an eighth of every 256-key block;
   3-stage K/V ring (196 KB: one CTA per SM). The 4-warp fwd_int8_d128_m16_sk.cu's twin for grids that
   fill the GPU without key splits (host sm80_sk_wide): twice the copy warps per SM. Built for sm_90
   only, like the deep decode variants; empty below. The wide 32-row tile (_m32_sk8_f) includes it
   with FWD_SK_ROW_GROUPS 2. */
#include "sm80/sm80_fwd.h"
#if FLASHC_SM80_ENABLE_8BIT
#define FWD_INT8 1
#define FWD_HEAD_DIM 128
#define FWD_M_SLABS 1
#define FWD_BLOCK_N 256
#define FWD_NUM_WARPS 8
#define FWD_STAGES 3
#define FWD_MIN_ARCH 900
#define FWD_WARP_SPLIT_KEYS 1
#ifndef FWD_SK_ROW_GROUPS
#define FWD_NAME FWD_SK_NAME(flashc_sm80_fwd_int8_d128_m16_sk8) /* _f, _wp: its lean-loader twins */
#else /* the wide 32-row tile (_m32_sk8_f: two 16-row groups of 4 warps) */
#define FWD_NAME FWD_SK_NAME(flashc_sm80_fwd_int8_d128_m32_sk8)
#endif
#include "sm80/fwd_kernel.cuh"
#endif
