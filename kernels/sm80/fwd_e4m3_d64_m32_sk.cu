/* sm80 forward variant: e4m3 inputs (V sequence-innermost), head dim 64, split-key decode tile (fwd_splitk.cuh)
   of two 16-row groups (FWD_SK_ROW_GROUPS): 32 query rows, each group's two warps taking half of
   every 128-key block; 5-stage K/V ring, as the 16-row tile (_m16_sk). Built for sm_90 only (two
   CTAs per SM), like the deep decode variants; empty below. Twins include this file: _f (lean loader),
   _pg / _pg16 (page-sub); FWD_SK_NAME names them. */
#include "sm80/sm80_fwd.h"
#if FLASHC_SM80_ENABLE_8BIT
#define FWD_E4M3 1
#define FWD_HEAD_DIM 64
#define FWD_M_SLABS 1
#define FWD_BLOCK_N 128
#define FWD_STAGES 5
#define FWD_MIN_ARCH 900
#define FWD_WARP_SPLIT_KEYS 1
#define FWD_SK_ROW_GROUPS 2
#define FWD_NAME FWD_SK_NAME(flashc_sm80_fwd_e4m3_d64_m32_sk) /* or a twin's name */
#include "sm80/fwd_kernel.cuh"
#endif
