/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Saving and restoring x0-x29 in a struct pt_regs at sp, for the code
 * that builds a pt_regs outside the exception entry: the rethook
 * trampoline and the detour buffers of jump-optimized kprobes; then the
 * pc, pstate and frame record of that pt_regs.  x30 and sp are each
 * caller's own business.
 */
#ifndef _ARM64_KERNEL_PROBES_PT_REGS_ASM_H
#define _ARM64_KERNEL_PROBES_PT_REGS_ASM_H

#include <asm/asm-offsets.h>
#include <asm/ptrace.h>

	.macro	kp_pt_regs_x0_x29 op
	\op	x0, x1, [sp, #S_X0]
	\op	x2, x3, [sp, #S_X2]
	\op	x4, x5, [sp, #S_X4]
	\op	x6, x7, [sp, #S_X6]
	\op	x8, x9, [sp, #S_X8]
	\op	x10, x11, [sp, #S_X10]
	\op	x12, x13, [sp, #S_X12]
	\op	x14, x15, [sp, #S_X14]
	\op	x16, x17, [sp, #S_X16]
	\op	x18, x19, [sp, #S_X18]
	\op	x20, x21, [sp, #S_X20]
	\op	x22, x23, [sp, #S_X22]
	\op	x24, x25, [sp, #S_X24]
	\op	x26, x27, [sp, #S_X26]
	\op	x28, x29, [sp, #S_X28]
	.endm

	.macro	kp_save_x0_x29
	kp_pt_regs_x0_x29 stp
	.endm

	.macro	kp_restore_x0_x29
	kp_pt_regs_x0_x29 ldp
	.endm

	/*
	 * pc (from \pc) and pstate (NZCV and DAIF of the moment, EL1h) of
	 * the pt_regs at sp, and its stackframe as a frame record
	 * { x29, pc }, which x29 then points to.  Clobbers \t1 and \t2.
	 */
	.macro	kp_pt_regs_frame pc, t1, t2
	str	\pc, [sp, #S_PC]
	mrs	\t1, nzcv
	mrs	\t2, daif
	orr	\t1, \t1, \t2
	mov	\t2, #PSR_MODE_EL1h
	orr	\t1, \t1, \t2
	str	\t1, [sp, #S_PSTATE]
	stp	x29, \pc, [sp, #S_STACKFRAME]
	add	x29, sp, #S_STACKFRAME
	.endm

#endif /* _ARM64_KERNEL_PROBES_PT_REGS_ASM_H */
