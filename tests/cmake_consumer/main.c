/* A downstream project found flashc through find_package: check the loaded library's version. */
#include <stdio.h>
#include "flashc.h"

int main(void)
{
    printf("flashc %d\n", flashc_version());
    return flashc_version() == FLASHC_VERSION ? 0 : 1;
}
