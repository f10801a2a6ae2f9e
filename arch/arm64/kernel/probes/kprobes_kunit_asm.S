/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Probe targets for the kprobes_arm64 KUnit suite (kprobes_kunit.c).
 *
 * Every function takes two longs (x0, x1) and returns a long, and has
 * its probed instruction at the global label <function>_site.  The suite
 * runs each one without a probe and again with one, and compares.  The
 * functions under kpa_refusals are never run: only probed (and refused).
 */
#include <linux/linkage.h>
#include <asm/asm-extable.h>
#include <asm/assembler.h>

#include "kprobes_kunit.h"

	.text

/* b: 2 when the branch is taken */
SYM_FUNC_START(kpa_b)
SYM_INNER_LABEL(kpa_b_site, SYM_L_GLOBAL)
	b	1f
	mov	x0, #1
	ret
1:	mov	x0, #2
	ret
SYM_FUNC_END(kpa_b)

SYM_FUNC_START_LOCAL(kpa_callee)
	add	x0, x0, x1
	add	x0, x0, #5
	ret
SYM_FUNC_END(kpa_callee)

/* bl: the callee runs and comes back to the next instruction */
SYM_FUNC_START(kpa_bl)
	stp	x29, x30, [sp, #-16]!
	mov	x29, sp
SYM_INNER_LABEL(kpa_bl_site, SYM_L_GLOBAL)
	bl	kpa_callee
	add	x0, x0, #100
	ldp	x29, x30, [sp], #16
	ret
SYM_FUNC_END(kpa_bl)

/* b.<cond> after "cmp x0, x1": 1 when taken */
.macro kpa_bcond c
SYM_FUNC_START(kpa_bcond_\c)
	cmp	x0, x1
SYM_INNER_LABEL(kpa_bcond_\c\()_site, SYM_L_GLOBAL)
	b.\c	1f
	mov	x0, #0
	ret
1:	mov	x0, #1
	ret
SYM_FUNC_END(kpa_bcond_\c)
.endm

.irp c, eq, ne, cs, cc, mi, pl, vs, vc, hi, ls, ge, lt, gt, le, al
kpa_bcond \c
.endr

/* cbz / cbnz / tbz / tbnz on x0: 1 when taken */
.macro kpa_cmpbr name, insn:vararg
SYM_FUNC_START(kpa_\name)
SYM_INNER_LABEL(kpa_\name\()_site, SYM_L_GLOBAL)
	\insn, 1f
	mov	x0, #0
	ret
1:	mov	x0, #1
	ret
SYM_FUNC_END(kpa_\name)
.endm

kpa_cmpbr cbz_x, cbz x0
kpa_cmpbr cbnz_x, cbnz x0
kpa_cmpbr cbz_w, cbz w0
kpa_cmpbr cbnz_w, cbnz w0
kpa_cmpbr tbz_3, tbz x0, #3
kpa_cmpbr tbnz_3, tbnz w0, #3
kpa_cmpbr tbz_40, tbz x0, #40
kpa_cmpbr tbnz_63, tbnz x0, #63

/* adr forwards and backwards, adrp: the address computed */
SYM_FUNC_START(kpa_adr)
SYM_INNER_LABEL(kpa_adr_site, SYM_L_GLOBAL)
	adr	x0, kpa_lit_x
	ret
SYM_FUNC_END(kpa_adr)

SYM_FUNC_START(kpa_adr_back)
SYM_INNER_LABEL(kpa_adr_back_site, SYM_L_GLOBAL)
	adr	x0, kpa_b
	ret
SYM_FUNC_END(kpa_adr_back)

SYM_FUNC_START(kpa_adrp)
SYM_INNER_LABEL(kpa_adrp_site, SYM_L_GLOBAL)
	adrp	x0, kpa_lit_x
	ret
SYM_FUNC_END(kpa_adrp)

/* literal loads: the value loaded */
SYM_FUNC_START(kpa_ldr_x)
SYM_INNER_LABEL(kpa_ldr_x_site, SYM_L_GLOBAL)
	ldr	x0, kpa_lit_x
	ret
SYM_FUNC_END(kpa_ldr_x)

SYM_FUNC_START(kpa_ldr_w)
	mov	x0, #-1
SYM_INNER_LABEL(kpa_ldr_w_site, SYM_L_GLOBAL)
	ldr	w0, kpa_lit_x
	ret
SYM_FUNC_END(kpa_ldr_w)

SYM_FUNC_START(kpa_ldrsw)
SYM_INNER_LABEL(kpa_ldrsw_site, SYM_L_GLOBAL)
	ldrsw	x0, kpa_lit_w
	ret
SYM_FUNC_END(kpa_ldrsw)

SYM_FUNC_START(kpa_prfm)
SYM_INNER_LABEL(kpa_prfm_site, SYM_L_GLOBAL)
	prfm	pldl1keep, kpa_lit_x
	add	x0, x0, x1
	ret
SYM_FUNC_END(kpa_prfm)

	.balign	8
kpa_lit_x:
	.quad	0x8765432112345678
kpa_lit_w:
	.long	0x80000001
	.long	0

/* br, blr, ret */
SYM_FUNC_START(kpa_br)
	adr	x16, 1f
SYM_INNER_LABEL(kpa_br_site, SYM_L_GLOBAL)
	br	x16
	mov	x0, #1
	ret
1:	mov	x0, #2
	ret
SYM_FUNC_END(kpa_br)

SYM_FUNC_START(kpa_blr)
	stp	x29, x30, [sp, #-16]!
	mov	x29, sp
	adr	x9, kpa_callee
SYM_INNER_LABEL(kpa_blr_site, SYM_L_GLOBAL)
	blr	x9
	add	x0, x0, #200
	ldp	x29, x30, [sp], #16
	ret
SYM_FUNC_END(kpa_blr)

SYM_FUNC_START(kpa_ret)
	add	x0, x0, #3
SYM_INNER_LABEL(kpa_ret_site, SYM_L_GLOBAL)
	ret
SYM_FUNC_END(kpa_ret)

/* hints: nop and bti simulated, paciasp and autiasp stepped */
SYM_FUNC_START(kpa_nop)
SYM_INNER_LABEL(kpa_nop_site, SYM_L_GLOBAL)
	nop
	add	x0, x0, x1
	ret
SYM_FUNC_END(kpa_nop)

/* The bti c that SYM_FUNC_START puts first is the probed instruction. */
SYM_FUNC_START(kpa_bti)
	add	x0, x0, x1
	ret
SYM_FUNC_END(kpa_bti)

SYM_FUNC_START(kpa_pac)
SYM_INNER_LABEL(kpa_pac_site, SYM_L_GLOBAL)
	hint	#25			/* paciasp */
	stp	x29, x30, [sp, #-16]!
	mov	x29, sp
	bl	kpa_callee
	ldp	x29, x30, [sp], #16
SYM_INNER_LABEL(kpa_aut_site, SYM_L_GLOBAL)
	hint	#29			/* autiasp */
	ret
SYM_FUNC_END(kpa_pac)

/* Stepped out of line: a plain ALU instruction, an sp-relative load */
SYM_FUNC_START(kpa_add)
SYM_INNER_LABEL(kpa_add_site, SYM_L_GLOBAL)
	add	x0, x0, x1
	ret
SYM_FUNC_END(kpa_add)

SYM_FUNC_START(kpa_sp)
	sub	sp, sp, #16
	str	x0, [sp, #8]
SYM_INNER_LABEL(kpa_sp_site, SYM_L_GLOBAL)
	ldr	x0, [sp, #8]
	add	sp, sp, #16
	add	x0, x0, x1
	ret
SYM_FUNC_END(kpa_sp)

/* Refused: never run. */
SYM_FUNC_START(kpa_refusals)
SYM_INNER_LABEL(kpa_svc_site, SYM_L_GLOBAL)
	svc	#0
SYM_INNER_LABEL(kpa_hvc_site, SYM_L_GLOBAL)
	hvc	#0
SYM_INNER_LABEL(kpa_brk_site, SYM_L_GLOBAL)
	brk	#0x20
SYM_INNER_LABEL(kpa_eret_site, SYM_L_GLOBAL)
	eret
SYM_INNER_LABEL(kpa_daifset_site, SYM_L_GLOBAL)
	msr	daifset, #2
SYM_INNER_LABEL(kpa_msr_daif_site, SYM_L_GLOBAL)
	msr	daif, x0
SYM_INNER_LABEL(kpa_mrs_elr_site, SYM_L_GLOBAL)
	mrs	x0, elr_el1
SYM_INNER_LABEL(kpa_mrs_elr_el2_site, SYM_L_GLOBAL)
	mrs	x0, elr_el2
SYM_INNER_LABEL(kpa_msr_spsr_el2_site, SYM_L_GLOBAL)
	msr	spsr_el2, x0
SYM_INNER_LABEL(kpa_retaa_site, SYM_L_GLOBAL)
	.inst	0xd65f0bff		/* retaa */
SYM_INNER_LABEL(kpa_braa_site, SYM_L_GLOBAL)
	.inst	0xd71f0820		/* braa x1, x0 */
SYM_INNER_LABEL(kpa_ldr_q_site, SYM_L_GLOBAL)
	.inst	0x9c000040		/* ldr q0, .+8 */
SYM_INNER_LABEL(kpa_udf_site, SYM_L_GLOBAL)
	.inst	0x00000000		/* udf #0 */
	ret
SYM_FUNC_END(kpa_refusals)

/* An exclusive sequence; the probed instructions are not symbols. */
SYM_FUNC_START(kpa_excl)
.Lkpa_ldxr:
	ldxr	x1, [x0]
.Lkpa_mid:
	add	x1, x1, #1
.Lkpa_stxr:
	stxr	w2, x1, [x0]
	cbnz	w2, .Lkpa_ldxr
.Lkpa_after:
	mov	x0, x1
	ret
SYM_FUNC_END(kpa_excl)

	.pushsection .rodata
	.balign	8
SYM_DATA_START(kpa_excl_sites)
	.quad	.Lkpa_ldxr, .Lkpa_mid, .Lkpa_stxr, .Lkpa_after
SYM_DATA_END(kpa_excl_sites)
	.popsection

/*
 * kpa_call_probed(fn, expect): call fn with x0-x8 set to KPA_REG(0..8)
 * and write to expect[] the sp, x29 and x30 that fn sees at its entry,
 * so that a probe handler there can be checked register by register,
 * whichever path (BRK or ftrace) called it.  Returns what fn returns.
 */
SYM_FUNC_START(kpa_call_probed)
	stp	x29, x30, [sp, #-32]!
	mov	x29, sp
	str	x19, [sp, #16]
	mov	x16, x0
	mov	x19, x1
	mov	x0, sp
	str	x0, [x19, #0]
	str	x29, [x19, #8]
	adr	x0, 1f
	str	x0, [x19, #16]
	.irp	n, 0, 1, 2, 3, 4, 5, 6, 7, 8
	mov	x\n, #KPA_REG(\n)
	.endr
	blr	x16
1:	ldr	x19, [sp, #16]
	ldp	x29, x30, [sp], #32
	ret
SYM_FUNC_END(kpa_call_probed)

/*
 * An entry without an ftrace site: a BRK probe on its first instruction
 * (a "bti c", simulated), or a BRK or a branch to a detour on the add.
 */
SYM_FUNC_START(kpa_brk_entry)
SYM_INNER_LABEL(kpa_opt_site, SYM_L_GLOBAL)
	add	x0, x0, x1
	ret
SYM_FUNC_END(kpa_brk_entry)

/*
 * A load with an exception table entry (never faults here): it must stay
 * a BRK, as a fault in a detour buffer would find no fixup.
 */
SYM_FUNC_START(kpa_extable)
SYM_INNER_LABEL(kpa_extable_site, SYM_L_GLOBAL)
	ldr	x0, [x0]
1:	ret
	_asm_extable_uaccess kpa_extable_site, 1b
SYM_FUNC_END(kpa_extable)
