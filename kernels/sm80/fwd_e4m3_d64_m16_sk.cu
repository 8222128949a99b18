/* sm80 forward variant: e4m3 inputs (V sequence-innermost), head dim 64, split-key decode tile (fwd_splitk.cuh):
   16 query rows shared by the 4 warps, each taking a quarter of every 128-key block; 5-stage K/V
   ring. Built for sm_90 only (two CTAs per SM), like the deep decode variants; empty below. */
#include "sm80/sm80_fwd.h"
#if FLASHC_SM80_ENABLE_8BIT
#define FWD_E4M3 1
#define FWD_HEAD_DIM 64
#define FWD_M_SLABS 1
#define FWD_BLOCK_N 128
#define FWD_STAGES 5
#define FWD_MIN_ARCH 900
#define FWD_WARP_SPLIT_KEYS 1
#define FWD_NAME FWD_SK_NAME(flashc_sm80_fwd_e4m3_d64_m16_sk) /* _f: its FWD_SK_FAST twin */
#include "sm80/fwd_kernel.cuh"
#endif
