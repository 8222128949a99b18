/* sm80 forward variant: f16 inputs, head dim 128, split-key decode tile (fwd_splitk.cuh):
   32 query rows shared by the 4 warps, each taking a quarter of every 64-key block; 3-stage K/V
   ring. Built for sm_90 only (two CTAs per SM), like the deep decode variants; empty below. */
#define FWD_BF16 0
#define FWD_HEAD_DIM 128
#define FWD_M_SLABS 2
#define FWD_BLOCK_N 64
#define FWD_STAGES 3
#define FWD_MIN_ARCH 900
#define FWD_WARP_SPLIT_KEYS 1
#define FWD_NAME FWD_SK_NAME(flashc_sm80_fwd_f16_d128_m32_sk) /* _f: its FWD_SK_FAST twin */
#include "sm80/fwd_kernel.cuh"
