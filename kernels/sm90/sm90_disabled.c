/* Built instead of the Hopper path when FLASHC_BUILD_SM90=OFF: every call is NOT_SUPPORTED. */
#include "launch.h"

flashc_status flashc_sm90_check(const flashc_problem *p, const flashc_device_info *dev)
{
    (void)p;
    (void)dev;
    return flashc_error(FLASHC_STATUS_NOT_SUPPORTED, "sm90: this build has no Hopper path (FLASHC_BUILD_SM90=OFF)");
}
size_t flashc_sm90_workspace_size(const flashc_problem *p, const flashc_device_info *dev) { (void)p; (void)dev; return 0; }
flashc_status flashc_sm90_forward(const flashc_problem *p, const flashc_device_info *dev, void *ws, size_t bytes,
                                  struct CUstream_st *stream)
{
    (void)ws; (void)bytes; (void)stream;
    return flashc_sm90_check(p, dev);
}
int flashc_sm90_decode_route(const flashc_problem *p, const flashc_device_info *dev) { (void)p; (void)dev; return 0; }
void flashc_sm90_release_caches(void) {}
