/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * arm64 rethook trampoline: where a hooked function returns to.
 *
 * arch_rethook_prepare() put its address in the function's link register
 * at the entry, so the function's own "ret" lands here with the return
 * value in x0 (x0-x7, x8 for larger results), x29 the caller's frame
 * pointer again and sp the caller's stack pointer.  The trampoline saves
 * every general register in a struct pt_regs below sp, makes its
 * stackframe a frame record { caller's x29, arch_rethook_trampoline } so
 * that an unwind from the handlers goes through it (and the unwinder
 * asks rethook for the real return address of that frame), calls the
 * generic handler, and returns to the pc that it left in the pt_regs.
 */
#include <linux/linkage.h>
#include <asm/asm-offsets.h>
#include <asm/assembler.h>
#include <asm/ptrace.h>

	.text
SYM_CODE_START(arch_rethook_trampoline)
	sub	sp, sp, #PT_REGS_SIZE
	stp	x0, x1, [sp, #S_X0]
	stp	x2, x3, [sp, #S_X2]
	stp	x4, x5, [sp, #S_X4]
	stp	x6, x7, [sp, #S_X6]
	stp	x8, x9, [sp, #S_X8]
	stp	x10, x11, [sp, #S_X10]
	stp	x12, x13, [sp, #S_X12]
	stp	x14, x15, [sp, #S_X14]
	stp	x16, x17, [sp, #S_X16]
	stp	x18, x19, [sp, #S_X18]
	stp	x20, x21, [sp, #S_X20]
	stp	x22, x23, [sp, #S_X22]
	stp	x24, x25, [sp, #S_X24]
	stp	x26, x27, [sp, #S_X26]
	stp	x28, x29, [sp, #S_X28]
	str	x30, [sp, #S_LR]

	/* sp and pc as the function returned; an EL1h pstate. */
	add	x0, sp, #PT_REGS_SIZE
	str	x0, [sp, #S_SP]
	adr	x1, arch_rethook_trampoline
	str	x1, [sp, #S_PC]
	mrs	x2, nzcv
	mrs	x3, daif
	orr	x2, x2, x3
	mov	x3, #PSR_MODE_EL1h
	orr	x2, x2, x3
	str	x2, [sp, #S_PSTATE]

	/* The frame record the unwinder follows from the handlers. */
	stp	x29, x1, [sp, #S_STACKFRAME]
	add	x29, sp, #S_STACKFRAME

	mov	x0, sp
	bl	arch_rethook_trampoline_callback

	/* Back to where the handler says, with what the handlers left. */
	ldr	x30, [sp, #S_PC]
	ldp	x0, x1, [sp, #S_X0]
	ldp	x2, x3, [sp, #S_X2]
	ldp	x4, x5, [sp, #S_X4]
	ldp	x6, x7, [sp, #S_X6]
	ldp	x8, x9, [sp, #S_X8]
	ldp	x10, x11, [sp, #S_X10]
	ldp	x12, x13, [sp, #S_X12]
	ldp	x14, x15, [sp, #S_X14]
	ldp	x16, x17, [sp, #S_X16]
	ldp	x18, x19, [sp, #S_X18]
	ldp	x20, x21, [sp, #S_X20]
	ldp	x22, x23, [sp, #S_X22]
	ldp	x24, x25, [sp, #S_X24]
	ldp	x26, x27, [sp, #S_X26]
	ldp	x28, x29, [sp, #S_X28]
	add	sp, sp, #PT_REGS_SIZE
	ret
SYM_CODE_END(arch_rethook_trampoline)
NOKPROBE(arch_rethook_trampoline)
