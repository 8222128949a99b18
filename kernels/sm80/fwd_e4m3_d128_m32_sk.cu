/* sm80 forward variant: e4m3 inputs (V sequence-innermost), head dim 128, split-key decode tile (fwd_splitk.cuh)
   of two 16-row groups (FWD_SK_ROW_GROUPS): 32 query rows, each group's two warps taking half of
   every 128-key block; 3-stage K/V ring, as the 16-row tile (_m16_sk). Built for sm_90 only (two
   CTAs per SM), like the deep decode variants; empty below. Twins include this file: _f (lean loader),
   _pg / _pg16 (page-sub); FWD_SK_NAME names them. */
#include "sm80/sm80_fwd.h"
#if FLASHC_SM80_ENABLE_8BIT
#define FWD_E4M3 1
#define FWD_HEAD_DIM 128
#define FWD_M_SLABS 1
#define FWD_BLOCK_N 128
#define FWD_STAGES 3
#define FWD_MIN_ARCH 900
#define FWD_WARP_SPLIT_KEYS 1
#define FWD_SK_ROW_GROUPS 2
#if !defined(FWD_SK_FAST) && !defined(FWD_SK_WHOLE_PAGES) && !(defined(FWD_PAGE_SUB) && !defined(FWD_VT_ROW_PAIRS))
/* beside the general loader, f16 Q fragments in registers spilled 36 bytes; the _pg16 twin spills
   4 bytes either way (outside the key loop) and keeps these, as measured */
#define FWD_Q_RAW_REGS 1
#endif
#define FWD_NAME FWD_SK_NAME(flashc_sm80_fwd_e4m3_d128_m32_sk) /* or a twin's name */
#include "sm80/fwd_kernel.cuh"
#endif
