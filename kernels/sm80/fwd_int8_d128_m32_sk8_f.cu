/* sm80 forward variant: int8 d128, the wide 32-row split-key tile, lean loader only (FWD_SK_FAST:
   non-paged K/V whose V^T chunks are 16-byte aligned, host sm80_sk_fast_ok). fwd_int8_d128_m16_sk8.cu's
   tile with two 16-row groups of 4 warps (FWD_SK_ROW_GROUPS), each warp a quarter of every 256-key
   block: the 4-warp _m32_sk tile's work per warp, one CTA per SM instead of two unevenly paced ones.
   Registers (sm_90): 254, no spills; with the general loader beside it the tile spilled 52-60 bytes.
   int8 only: its fp8 and whole-page twins did not win (docs/sm80.md "Session 55"). */
#define FWD_SK_FAST 1
#define FWD_SK_ROW_GROUPS 2
#include "sm80/fwd_int8_d128_m16_sk8.cu"
