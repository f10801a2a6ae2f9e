/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * arm64 jump optimization: the detour buffer template (see opt.c).
 *
 * arch_prepare_optimized_kprobe() copies kp_detour_tmpl into a detour
 * slot and fills in the displaced instruction, the branch back and the
 * three literals; the probed instruction is then replaced by "b <slot>".
 * The copy runs with the registers of the probed instruction and
 * interrupts as the probed code had them.  It saves every general
 * register in a struct pt_regs below sp, with pc the probe address and
 * a frame record { x29, probe address } for unwinds from the handlers,
 * calls kp_detour_handler(op, regs), puts the registers (and NZCV) back,
 * runs the displaced instruction and branches back after it.
 *
 * The template is data: it never runs where it is, only its copies do,
 * and it only refers to itself (the literals, with "ldr <literal>").
 */
#include <linux/linkage.h>
#include <asm/asm-offsets.h>
#include <asm/assembler.h>
#include <asm/ptrace.h>

#include "pt_regs_asm.h"

	.section .rodata, "a"
	.balign	8
	.global	kp_detour_tmpl
kp_detour_tmpl:
	sub	sp, sp, #PT_REGS_SIZE
	kp_save_x0_x29
	add	x0, sp, #PT_REGS_SIZE
	stp	x30, x0, [sp, #S_LR]		/* regs[30], then sp */
	ldr	x1, kp_detour_tmpl_addr
	kp_pt_regs_frame x1, x2, x3
	ldr	x0, kp_detour_tmpl_op
	mov	x1, sp
	ldr	x2, kp_detour_tmpl_call
	blr	x2
	ldr	x0, [sp, #S_PSTATE]
	msr	nzcv, x0
	kp_restore_x0_x29
	ldr	x30, [sp, #S_LR]
	add	sp, sp, #PT_REGS_SIZE
	.global	kp_detour_tmpl_insn
kp_detour_tmpl_insn:
	nop				/* the displaced instruction */
	nop				/* b <probe address + 4> */
	.balign	8
	.global	kp_detour_tmpl_op
kp_detour_tmpl_op:
	.quad	0			/* the optimized_kprobe */
kp_detour_tmpl_call:
	.quad	kp_detour_handler
kp_detour_tmpl_addr:
	.quad	0			/* the probe address */
	.global	kp_detour_tmpl_end
kp_detour_tmpl_end:
