/*
 * setmaxnreg wrappers: PTX ISA §9.7.17.1 "Miscellaneous Instructions: setmaxnreg" (sm_90a).
 * Every warp of a warpgroup must execute the same instruction; the count is an immediate in
 * [24, 256], a multiple of 8. ptxas honours it only if the kernel's entry register count is known
 * (__launch_bounds__(threads, 1)); otherwise it warns (C7508) and ignores it. The registers come
 * from the block's own pool (its launch allocation, threads x the entry count): if the warpgroups'
 * counts sum to more, an .inc waits forever.
 */
#ifndef FLASHC_PTX_SETMAXNREG_H
#define FLASHC_PTX_SETMAXNREG_H

/* Macros, not functions: the register count must be an immediate at the asm statement. */
#define setmaxnreg_inc_sync_aligned_u32(REGS) \
    asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(REGS))
#define setmaxnreg_dec_sync_aligned_u32(REGS) \
    asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(REGS))

#endif /* FLASHC_PTX_SETMAXNREG_H */
