/*
 * griddepcontrol wrappers: PTX ISA "Parallel Synchronization and Communication Instructions:
 * griddepcontrol" (sm_90+, PTX 7.8): programmatic dependent launch between two grids of a stream.
 * Below sm_90 both compile to nothing; there the host never asks for the overlap (a dependent
 * grid then starts after this one, as a plain launch).
 */
#ifndef FLASHC_PTX_GRIDDEPCONTROL_H
#define FLASHC_PTX_GRIDDEPCONTROL_H

/* griddepcontrol.launch_dependents: this CTA no longer holds back the launch of the grid that
   depends on this one; its memory operations are not made visible by it */
static __device__ __forceinline__ void griddep_launch_dependents(void)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.launch_dependents;\n" ::: "memory");
#endif
}

/* griddepcontrol.wait: blocks until every prerequisite grid has completed and its memory
   operations are visible to this thread */
static __device__ __forceinline__ void griddep_wait(void)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;\n" ::: "memory");
#endif
}

#endif /* FLASHC_PTX_GRIDDEPCONTROL_H */
