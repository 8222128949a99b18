/* sm80 forward variant: the lean-loader twin of fwd_int8_d128_m16_sk8.cu (FWD_SK_FAST: the general K/V
   loader compiled out), for non-paged K/V whose V^T chunks are 16-byte aligned (host
   sm80_sk_fast_ok). Same tile, ring and launch. */
#define FWD_SK_FAST 1
#include "sm80/fwd_int8_d128_m16_sk8.cu"
