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

#include "pt_regs_asm.h"

	.text
SYM_CODE_START(arch_rethook_trampoline)
	sub	sp, sp, #PT_REGS_SIZE
	kp_save_x0_x29
	str	x30, [sp, #S_LR]

	/* sp and pc as the function returned, pstate, the frame record. */
	add	x0, sp, #PT_REGS_SIZE
	str	x0, [sp, #S_SP]
	adr	x1, arch_rethook_trampoline
	kp_pt_regs_frame x1, x2, x3

	mov	x0, sp
	bl	arch_rethook_trampoline_callback

	/* Back to where the handler says, with what the handlers left. */
	ldr	x30, [sp, #S_PC]
	kp_restore_x0_x29
	add	sp, sp, #PT_REGS_SIZE
	ret
SYM_CODE_END(arch_rethook_trampoline)
NOKPROBE(arch_rethook_trampoline)
