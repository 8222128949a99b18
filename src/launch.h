/*
 * The contract between the C host (src/api.c, which validates and dispatches) and each GPU path.
 * Each path is a set of extern "C" functions implemented in its .cu files:
 *
 *   check      : SUCCESS if this path has a kernel for *p on this device, else
 *                flashc_error(FLASHC_STATUS_NOT_SUPPORTED, "<path>: <what is missing>").
 *                Pure host logic: no CUDA call, no data read.
 *   workspace  : device bytes the launch needs for *p (0 if none). Deterministic in shapes.
 *   forward    : enqueue the kernels on `stream`; no sync, no allocation. Returns
 *                FLASHC_STATUS_CUDA_ERROR (with cudaGetErrorString in the message) if a launch fails.
 *
 * api.c calls check before workspace/forward, so forward may assume check passed.
 */
#ifndef FLASHC_LAUNCH_H
#define FLASHC_LAUNCH_H

#include <stddef.h>
#include "problem.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct flashc_device_info {
    int device;                   /* CUDA ordinal the call runs on (current device) */
    int cc_major, cc_minor;
    int num_sms;
    int max_smem_optin;           /* bytes of dynamic shared memory a block may opt into */
    int l2_bytes;
    double dram_bytes_per_s;      /* peak DRAM bandwidth (2 x memory clock x bus width), 0 if unknown */
} flashc_device_info;

flashc_status flashc_sm80_check(const flashc_problem *p, const flashc_device_info *dev);
size_t flashc_sm80_workspace_size(const flashc_problem *p, const flashc_device_info *dev);
flashc_status flashc_sm80_forward(const flashc_problem *p, const flashc_device_info *dev,
                                  void *workspace, size_t workspace_bytes,
                                  struct CUstream_st *stream);
/* Successful launches of each sm80 kernel variant since the library loaded, for the library's own
   route-coverage checks (tests/gpu/test_gpu.c); not part of the ABI. Returns the number of variants;
   for 0 <= i < that number fills *name (the launcher's symbol) and *launches where not NULL. */
int flashc_sm80_variant_launches(int i, const char **name, unsigned long long *launches);
/* Launches as row halves (two wide CTAs per KV head, half the rows each) since the library loaded */
unsigned long long flashc_sm80_row_halves_launches(void);
/* The sm80 variant (index as above) that *p's call would launch on the device *dev describes, or -1
   where the planner finds none (flashc_sm80_check names why). Pure host logic on a synthetic
   device, no GPU needed: the CPU test test_routes plans the GPU suite's cases with it. */
int flashc_sm80_plan_variant(const flashc_problem *p, const flashc_device_info *dev);
/* The compute capability (x 10) the sm80 path plans *dev as: the device's, or the older one the
   dev/test hook FLASHC_SM80_AS_CC names */
int flashc_sm80_planned_cc(const flashc_device_info *dev);
/* 1 if the build's e4m3 kernels run sm_89's code on sm_90 too (FLASHC_SM80_E4M3_NATIVE): P rounded to e4m3 */
int flashc_sm80_e4m3_native(void);
/* The same from public parameters: flashc_validate and flashc_validate_gpu (no pointer checks, no
   device query), flashc_sm80_check, the plan. Not part of the ABI. */
int flashc_sm80_route(const flashc_attention_params *params, const flashc_device_info *dev);
/* The workspace that plan needs (0: no key splits), or (size_t)-1 where flashc_sm80_route gives -1 */
size_t flashc_sm80_route_workspace(const flashc_attention_params *params, const flashc_device_info *dev);

flashc_status flashc_sm90_check(const flashc_problem *p, const flashc_device_info *dev);
size_t flashc_sm90_workspace_size(const flashc_problem *p, const flashc_device_info *dev);
flashc_status flashc_sm90_forward(const flashc_problem *p, const flashc_device_info *dev,
                                  void *workspace, size_t workspace_bytes,
                                  struct CUstream_st *stream);
/* 1 where the Hopper fp8 decode tile (kernels/sm90/sm90_decode.cu) takes *p: the tile can run it,
   its rule (or the dev hook FLASHC_SM90_DECODE) picks it and flashc_sm90_check accepts it. The
   dispatcher sends such calls to the Hopper path ahead of its portable-decode preference. */
int flashc_sm90_decode_route(const flashc_problem *p, const flashc_device_info *dev);
/* Drop cached tensor maps (called by flashc_release_caches). */
void flashc_sm90_release_caches(void);

#ifdef __cplusplus
}
#endif

#endif /* FLASHC_LAUNCH_H */
