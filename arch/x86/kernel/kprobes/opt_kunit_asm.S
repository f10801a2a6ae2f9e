/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Probe targets for opt_kunit.c: functions whose instruction mix decides
 * whether a probe in them may become a jump.
 *
 * The optimizer takes the extent of a function from kallsyms, so the
 * probe points are local labels (a global label would end the
 * "function" there); kpo_offsets[] gives their offsets in the function.
 */
#include <linux/linkage.h>
#include <asm/asm.h>
#include <asm/nospec-branch.h>

	.pushsection .data
SYM_DATA(kpo_data, .quad 0x100)
SYM_DATA(kpo_seen_sp, .quad 0)
	.popsection

	.text

/*
 * long kpo_straight(long x): x + kpo_data + 7, in straight-line code.
 * The region of a probe at kpo_site is a mov and a rip-relative add.
 */
SYM_FUNC_START(kpo_straight)
	push	%rbx
.Lkpo_site:
	mov	%rdi, %rbx
.Lkpo_site_next:
	add	kpo_data(%rip), %rbx
	lea	7(%rbx), %rax
	pop	%rbx
	RET
SYM_FUNC_END(kpo_straight)

/*
 * unsigned long kpo_regs(unsigned long s): loads every general register
 * with s + n (n = 1 for %rax ... 15 for %r15, as listed below), records
 * %rsp in kpo_seen_sp and sets ZF and PF (cmp of equal values) before
 * kpo_regs_site.  Returns %rax + %rbp + %r15 as seen after it.
 */
SYM_FUNC_START(kpo_regs)
	push	%rbx
	push	%rbp
	push	%r12
	push	%r13
	push	%r14
	push	%r15
	mov	%rsp, kpo_seen_sp(%rip)
	lea	1(%rdi), %rax
	lea	2(%rdi), %rbx
	lea	3(%rdi), %rcx
	lea	4(%rdi), %rdx
	lea	5(%rdi), %rsi
	lea	6(%rdi), %rbp
	lea	8(%rdi), %r8
	lea	9(%rdi), %r9
	lea	10(%rdi), %r10
	lea	11(%rdi), %r11
	lea	12(%rdi), %r12
	lea	13(%rdi), %r13
	lea	14(%rdi), %r14
	lea	15(%rdi), %r15
	lea	7(%rdi), %rdi
	cmp	%rdi, %rdi
.Lkpo_regs_site:
	mov	%rax, %rax
	mov	%rbx, %rbx
	mov	%rcx, %rcx
	add	%rbp, %rax
	add	%r15, %rax
	pop	%r15
	pop	%r14
	pop	%r13
	pop	%r12
	pop	%rbp
	pop	%rbx
	RET
SYM_FUNC_END(kpo_regs)

/*
 * long kpo_jt(long x): max(x + 1, 8), counting up in a loop whose head
 * is the second instruction of the region of kpo_jt_site.
 */
SYM_FUNC_START(kpo_jt)
.Lkpo_jt_site:
	mov	%rdi, %rax
.Lkpo_jt_again:
	add	$1, %rax
	cmp	$8, %rax
	jl	.Lkpo_jt_again
	RET
SYM_FUNC_END(kpo_jt)

/*
 * long kpo_ij(long x, void *where): x + 2, or a jump to @where if it is
 * not NULL (the callers always pass NULL).  The function holds an
 * indirect jump, so no probe in it may become a jump.
 */
SYM_FUNC_START(kpo_ij)
.Lkpo_ij_site:
	mov	%rdi, %rax
	add	$2, %rax
	test	%rsi, %rsi
	jz	.Lkpo_ij_out
	JMP_NOSPEC rsi
.Lkpo_ij_out:
	RET
SYM_FUNC_END(kpo_ij)

/* long kpo_short(long x): x + 1; too little room before the ret. */
SYM_FUNC_START(kpo_short)
	mov	%rdi, %rax
.Lkpo_short_site:
	inc	%rax
	RET
SYM_FUNC_END(kpo_short)

/*
 * long kpo_chain(long x): (u32)x + 4, four two-byte increments.  The
 * regions of probes at kpo_chain_a and kpo_chain_b (three increments
 * each) both cover kpo_chain_c, whose own region would reach the ret.
 */
SYM_FUNC_START(kpo_chain)
	mov	%edi, %eax
.Lkpo_chain_a:
	inc	%eax
.Lkpo_chain_b:
	inc	%eax
.Lkpo_chain_c:
	inc	%eax
	inc	%eax
	RET
SYM_FUNC_END(kpo_chain)

/*
 * long kpo_jl(long x): x + 3, or x + 2 while kpo_jl_key is on.  The
 * static branch is a nop while the key is off; on, it jumps to the
 * second instruction of the region of kpo_jl_site.
 */
SYM_FUNC_START(kpo_jl)
	mov	%rdi, %rax
1:	.byte	0x0f, 0x1f, 0x44, 0x00, 0x00
	.pushsection __jump_table, "aw"
	_ASM_ALIGN
	.long	1b - .
	.long	.Lkpo_jl_in - .
	_ASM_PTR	kpo_jl_key - .
	.popsection
.Lkpo_jl_site:
	add	$1, %rax
.Lkpo_jl_in:
	add	$2, %rax
	RET
SYM_FUNC_END(kpo_jl)

/* enum kpo_point order: offsets of the probe points in their function. */
	.pushsection .rodata
SYM_DATA_START(kpo_offsets)
	.quad	.Lkpo_site - kpo_straight
	.quad	.Lkpo_site_next - kpo_straight
	.quad	.Lkpo_regs_site - kpo_regs
	.quad	.Lkpo_jt_site - kpo_jt
	.quad	.Lkpo_ij_site - kpo_ij
	.quad	.Lkpo_short_site - kpo_short
	.quad	.Lkpo_chain_a - kpo_chain
	.quad	.Lkpo_chain_b - kpo_chain
	.quad	.Lkpo_chain_c - kpo_chain
	.quad	.Lkpo_jl_site - kpo_jl
SYM_DATA_END(kpo_offsets)
	.popsection
