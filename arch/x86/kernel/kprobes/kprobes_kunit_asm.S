/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Probe targets for kprobes_kunit.c: short functions whose instructions
 * are known, each probe point with its own label.
 */
#include <linux/linkage.h>
#include <asm/asm.h>
#include <asm/nospec-branch.h>
#include <asm/percpu.h>

	.pushsection .data
SYM_DATA(kpt_data, .quad 0x1000)
SYM_DATA(kpt_data2, .quad 0x20)
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

/*
 * long kpt_func2(long x), called through kpt_func2_caller() so that its
 * return lands on a label: x + 2 * kpt_data + kpt_data2, + 3 if x is
 * odd, else + 5, then + 0x40 in kpt_helper2(), + 7.  One of each: push
 * of a rip-relative operand, pop, rip-relative mov load, rip-relative
 * lea, load through a register, jcc rel32, jmp rel32, call *%reg, the
 * instruction a call returns to, a bare ret and the return macro.
 */
SYM_FUNC_START(kpt_func2)
SYM_INNER_LABEL(kpt2_push_mem, SYM_L_GLOBAL)
	pushq	kpt_data(%rip)
SYM_INNER_LABEL(kpt2_pop, SYM_L_GLOBAL)
	pop	%rax
SYM_INNER_LABEL(kpt2_load, SYM_L_GLOBAL)
	mov	kpt_data2(%rip), %rdx
SYM_INNER_LABEL(kpt2_lea, SYM_L_GLOBAL)
	lea	kpt_data(%rip), %rcx
SYM_INNER_LABEL(kpt2_load_ind, SYM_L_GLOBAL)
	add	(%rcx), %rax
	add	%rdx, %rax
	add	%rdi, %rax
	test	$1, %dil
	/* jz rel32 and jmp rel32, whatever the assembler would pick */
SYM_INNER_LABEL(kpt2_jcc32, SYM_L_GLOBAL)
	.byte	0x0f, 0x84
	.long	.Lkpt2_even - (. + 4)
SYM_INNER_LABEL(kpt2_odd, SYM_L_GLOBAL)
	add	$3, %rax
SYM_INNER_LABEL(kpt2_jmp32, SYM_L_GLOBAL)
	.byte	0xe9
	.long	.Lkpt2_join - (. + 4)
.Lkpt2_even:
SYM_INNER_LABEL(kpt2_even, SYM_L_GLOBAL)
	add	$5, %rax
.Lkpt2_join:
SYM_INNER_LABEL(kpt2_join, SYM_L_GLOBAL)
	lea	kpt_helper2(%rip), %rcx
SYM_INNER_LABEL(kpt2_call_reg, SYM_L_GLOBAL)
	ANNOTATE_RETPOLINE_SAFE
	call	*%rcx
SYM_INNER_LABEL(kpt2_after_call, SYM_L_GLOBAL)
	add	$7, %rax
SYM_INNER_LABEL(kpt2_ret, SYM_L_GLOBAL)
	RET
SYM_FUNC_END(kpt_func2)

/* Ends with a plain ret, not the return thunk: the 0xc3 opcode itself. */
SYM_FUNC_START(kpt_helper2)
	add	$0x40, %rax
SYM_INNER_LABEL(kpt2_bare_ret, SYM_L_GLOBAL)
	ANNOTATE_UNRET_SAFE
	ret
SYM_INNER_LABEL(kpt_int3, SYM_L_GLOBAL)
	int3
SYM_FUNC_END(kpt_helper2)

SYM_FUNC_START(kpt_func2_caller)
	call	kpt_func2
SYM_INNER_LABEL(kpt2_back, SYM_L_GLOBAL)
	RET
SYM_FUNC_END(kpt_func2_caller)

/*
 * unsigned long kpt_running(void): this CPU's current_kprobe as the
 * probed instruction at kpt_running_load sees it.  A boosted copy runs
 * after the int3 handler left the probe (NULL); a stepped copy runs
 * inside it.
 */
SYM_FUNC_START(kpt_running)
SYM_INNER_LABEL(kpt_running_load, SYM_L_GLOBAL)
	movq	PER_CPU_VAR(current_kprobe), %rax
	RET
SYM_FUNC_END(kpt_running)

/*
 * unsigned long kpt_running_stepped(void): as kpt_running(), but the
 * load has an exception table entry, so kprobes always step it (a fault
 * in a copy is fixed up at the original address, which only a stepped
 * copy can give): the probe the copy runs in.
 */
SYM_FUNC_START(kpt_running_stepped)
SYM_INNER_LABEL(kpt_running_stepped_load, SYM_L_GLOBAL)
	movq	PER_CPU_VAR(current_kprobe), %rax
	_ASM_EXTABLE(kpt_running_stepped_load, .Lkpt_stepped_out)
.Lkpt_stepped_out:
	RET
SYM_FUNC_END(kpt_running_stepped)

/*
 * long kpt_load_or_efault(long *p): *p, or -EFAULT when the load faults
 * (an exception table entry, so a probe on the load is stepped).
 */
SYM_FUNC_START(kpt_load_or_efault)
SYM_INNER_LABEL(kpt_extable_load, SYM_L_GLOBAL)
	movq	(%rdi), %rax
	RET
.Lkpt_load_fault:
	mov	$-14, %rax
	RET
	_ASM_EXTABLE(kpt_extable_load, .Lkpt_load_fault)
SYM_FUNC_END(kpt_load_or_efault)

/*
 * unsigned long kpt_div_or_efault(unsigned long d): 100 / d, or -EFAULT
 * when the division traps (an exception table entry, so a probe on the
 * div is stepped).
 */
SYM_FUNC_START(kpt_div_or_efault)
	mov	$100, %eax
	xor	%edx, %edx
SYM_INNER_LABEL(kpt_extable_div, SYM_L_GLOBAL)
	div	%rdi
	RET
.Lkpt_div_fault:
	mov	$-14, %rax
	RET
	_ASM_EXTABLE(kpt_extable_div, .Lkpt_div_fault)
SYM_FUNC_END(kpt_div_or_efault)

/*
 * Never called: a load whose fixup decodes the instruction at the
 * faulting address (load_unaligned_zeropad()'s kind).
 */
SYM_FUNC_START(kpt_zeropad)
SYM_INNER_LABEL(kpt_zeropad_load, SYM_L_GLOBAL)
	movq	(%rdi), %rax
.Lkpt_zeropad_out:
	RET
	_ASM_EXTABLE_TYPE(kpt_zeropad_load, .Lkpt_zeropad_out, EX_TYPE_ZEROPAD)
SYM_FUNC_END(kpt_zeropad)

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
