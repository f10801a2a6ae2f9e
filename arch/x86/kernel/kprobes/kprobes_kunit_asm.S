/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Probe targets for kprobes_kunit.c: short functions whose instructions
 * are known, each probe point with its own label.
 */
#include <linux/linkage.h>
#include <asm/asm.h>

	.pushsection .data
SYM_DATA(kpt_data, .quad 0x1000)
	.popsection

	.text

/*
 * long kpt_func(long x): v = x + kpt_data; if v is odd, v += 3; v += 5.
 * One of each: push, mov, rip-relative load, test, jcc, call, jmp, pop.
 */
SYM_FUNC_START(kpt_func)
SYM_INNER_LABEL(kpt_push, SYM_L_GLOBAL)
	push	%rbx
SYM_INNER_LABEL(kpt_mov, SYM_L_GLOBAL)
	mov	%rdi, %rbx
SYM_INNER_LABEL(kpt_riprel, SYM_L_GLOBAL)
	add	kpt_data(%rip), %rbx
SYM_INNER_LABEL(kpt_test, SYM_L_GLOBAL)
	test	$1, %bl
SYM_INNER_LABEL(kpt_jcc, SYM_L_GLOBAL)
	jz	.Lkpt_even
SYM_INNER_LABEL(kpt_odd, SYM_L_GLOBAL)
	add	$3, %rbx
.Lkpt_even:
SYM_INNER_LABEL(kpt_call, SYM_L_GLOBAL)
	call	kpt_helper
SYM_INNER_LABEL(kpt_jmp, SYM_L_GLOBAL)
	jmp	.Lkpt_out
.Lkpt_out:
SYM_INNER_LABEL(kpt_jmp_target, SYM_L_GLOBAL)
	mov	%rbx, %rax
SYM_INNER_LABEL(kpt_pop, SYM_L_GLOBAL)
	pop	%rbx
SYM_INNER_LABEL(kpt_ret, SYM_L_GLOBAL)
	RET
SYM_FUNC_END(kpt_func)

SYM_FUNC_START(kpt_helper)
	add	$5, %rbx
	RET
SYM_FUNC_END(kpt_helper)

/* long kpt_loop3(void): counts three turns of a loop instruction. */
SYM_FUNC_START(kpt_loop3)
	xor	%eax, %eax
	mov	$3, %ecx
.Lkpt_again:
	inc	%eax
SYM_INNER_LABEL(kpt_loop, SYM_L_GLOBAL)
	loop	.Lkpt_again
	RET
SYM_FUNC_END(kpt_loop3)

/*
 * unsigned long kpt_flags(void): the flags seen after a cli, with the
 * caller's flags restored by popf on the way out.
 */
SYM_FUNC_START(kpt_flags)
SYM_INNER_LABEL(kpt_pushf, SYM_L_GLOBAL)
	pushf
SYM_INNER_LABEL(kpt_cli, SYM_L_GLOBAL)
	cli
	pushf
	pop	%rax
SYM_INNER_LABEL(kpt_popf, SYM_L_GLOBAL)
	popf
	RET
SYM_FUNC_END(kpt_flags)

/* Never called: an instruction kprobes must refuse. */
SYM_FUNC_START(kpt_bad)
SYM_INNER_LABEL(kpt_ud2, SYM_L_GLOBAL)
	ud2
SYM_FUNC_END(kpt_bad)
