/* Compiled with gcc -std=c99 -pedantic -Werror and only include/ on the path: the public header
   must stand alone in C99, without CUDA headers. */
#include "flashc.h"

int main(void)
{
    flashc_attention_params p;
    flashc_attention_params_init(&p);
    p.backend = FLASHC_BACKEND_CPU;
    return (int)sizeof(p) > 0 && FLASHC_VERSION > 0 ? 0 : 1;
}
