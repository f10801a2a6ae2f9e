/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __X86_KERNEL_KPROBES_COMMON_H
#define __X86_KERNEL_KPROBES_COMMON_H

/*
 * What the int3 path (core.c), the jump path (opt.c), the ftrace path
 * (ftrace.c) and rethook share.
 */

#include <asm/asm.h>
#include <asm/frame.h>
#include <asm/insn.h>

/*
 * SAVE_REGS_STRING builds a struct pt_regs below the return address on the
 * stack, leaving cs, ip and orig_ax (and gs on 32-bit) for the caller to
 * fill; RESTORE_REGS_STRING unwinds it.  Both are pasted into top-level
 * asm by the trampolines.  The push order is the reverse of the field
 * order of struct pt_regs.
 */
#ifdef CONFIG_X86_64

#define __KP_PUSH(reg)		"	pushq %" #reg "\n"
#define __KP_POP(reg)		"	popq %" #reg "\n"
#define __KP_SP_ADD(n)		"	addq $" #n ", %rsp\n"
#define __KP_SP_SUB(n)		"	subq $" #n ", %rsp\n"

/* orig_ax, ip, cs: three words the callers fill or skip. */
#define SAVE_REGS_STRING						\
	__KP_SP_SUB(24)							\
	__KP_PUSH(rdi) __KP_PUSH(rsi) __KP_PUSH(rdx) __KP_PUSH(rcx)	\
	__KP_PUSH(rax) __KP_PUSH(r8) __KP_PUSH(r9) __KP_PUSH(r10)	\
	__KP_PUSH(r11) __KP_PUSH(rbx) __KP_PUSH(rbp) __KP_PUSH(r12)	\
	__KP_PUSH(r13) __KP_PUSH(r14) __KP_PUSH(r15)			\
	ENCODE_FRAME_POINTER

#define RESTORE_REGS_STRING						\
	__KP_POP(r15) __KP_POP(r14) __KP_POP(r13) __KP_POP(r12)		\
	__KP_POP(rbp) __KP_POP(rbx) __KP_POP(r11) __KP_POP(r10)		\
	__KP_POP(r9) __KP_POP(r8) __KP_POP(rax) __KP_POP(rcx)		\
	__KP_POP(rdx) __KP_POP(rsi) __KP_POP(rdi)			\
	__KP_SP_ADD(24)

#else /* CONFIG_X86_32 */

#define __KP_PUSH(reg)		"	pushl %" #reg "\n"
#define __KP_POP(reg)		"	popl %" #reg "\n"
#define __KP_SP_ADD(n)		"	addl $" #n ", %esp\n"
#define __KP_SP_SUB(n)		"	subl $" #n ", %esp\n"

/* gs, orig_ax, ip, cs: four words the callers fill or skip. */
#define SAVE_REGS_STRING						\
	__KP_SP_SUB(16)							\
	__KP_PUSH(fs) __KP_PUSH(es) __KP_PUSH(ds) __KP_PUSH(eax)	\
	__KP_PUSH(ebp) __KP_PUSH(edi) __KP_PUSH(esi) __KP_PUSH(edx)	\
	__KP_PUSH(ecx) __KP_PUSH(ebx)					\
	ENCODE_FRAME_POINTER

/* The segment registers are not reloaded: skip ds, es, fs too. */
#define RESTORE_REGS_STRING						\
	__KP_POP(ebx) __KP_POP(ecx) __KP_POP(edx) __KP_POP(esi)		\
	__KP_POP(edi) __KP_POP(ebp) __KP_POP(eax)			\
	__KP_SP_ADD(28)

#endif /* CONFIG_X86_64 */

/*
 * True when @insn, read from @orig_addr, may run from a copy that simply
 * falls through to a jump back to the original text: it does not branch,
 * does not depend on where it runs (rip-relative operands are relocated
 * by __copy_instruction()), does not touch the interrupt flag and has no
 * exception table entry.  Used for boosting and by the optprobe detour.
 */
bool can_boost(struct insn *insn, void *orig_addr);

/*
 * If @addr holds an int3 of a kprobe, an optprobe jump or an ftrace call,
 * put the original instruction bytes (MAX_INSN_SIZE of them) into @buf and
 * return @buf; return @addr when the text there is original, 0 on error.
 * Caller holds kprobe_mutex (or otherwise keeps the probes from changing).
 */
unsigned long recover_probed_instruction(kprobe_opcode_t *buf,
					 unsigned long addr);

/*
 * Decode the original instruction at @src into @insn and write it to
 * @dest, relocating a rip-relative operand so that the copy works when
 * executed at @real.  Returns its length, or 0 if it cannot be copied.
 */
int __copy_instruction(u8 *dest, u8 *src, u8 *real, struct insn *insn);

/* Write a "jmp rel32" / "call rel32" at @dest that will run at @from. */
void synthesize_reljump(void *dest, void *from, void *to);
void synthesize_relcall(void *dest, void *from, void *to);

#ifdef	CONFIG_OPTPROBES
int setup_detour_execution(struct kprobe *p, struct pt_regs *regs, int reenter);
unsigned long __recover_optprobed_insn(kprobe_opcode_t *buf, unsigned long addr);
#else	/* !CONFIG_OPTPROBES */
static inline int setup_detour_execution(struct kprobe *p, struct pt_regs *regs,
					 int reenter)
{
	return 0;
}

static inline unsigned long __recover_optprobed_insn(kprobe_opcode_t *buf,
						     unsigned long addr)
{
	return addr;
}
#endif

#endif /* __X86_KERNEL_KPROBES_COMMON_H */
