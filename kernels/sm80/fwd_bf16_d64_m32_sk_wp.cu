/* sm80 forward variant: the whole-page lean-loader twin (FWD_SK_WHOLE_PAGES, _wp) of fwd_bf16_d64_m32_sk.cu:
   paged K/V whose pages hold whole key blocks, each block copied by the lean loader from its
   page's base (the general loader compiled out; host sm80_sk_whole_pages_ok). Same tile, ring and
   launch. */
#define FWD_SK_WHOLE_PAGES 1
#include "sm80/fwd_bf16_d64_m32_sk.cu"
