/* sm80 forward variant: the whole-page lean-loader twin (FWD_SK_WHOLE_PAGES, _wp) of
   fwd_e4m3_d128_m16_sk8.cu: paged K/V whose pages hold whole 256-key blocks (host sm80_sk_wp_ok).
   Same tile, ring and launch. */
#define FWD_SK_WHOLE_PAGES 1
#include "sm80/fwd_e4m3_d128_m16_sk8.cu"
