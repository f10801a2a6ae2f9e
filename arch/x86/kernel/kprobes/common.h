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

/* orig_ax, ip, cs: three words the callers fill or skip. */
#define SAVE_REGS_STRING						\
	"	subq $24, %rsp\n"						\
	"	pushq %rdi; pushq %rsi; pushq %rdx; pushq %rcx\n"		\
	"	pushq %rax; pushq %r8; pushq %r9; pushq %r10\n"			\
	"	pushq %r11; pushq %rbx; pushq %rbp; pushq %r12\n"		\
	"	pushq %r13; pushq %r14; pushq %r15\n"				\
	ENCODE_FRAME_POINTER

#define RESTORE_REGS_STRING						\
	"	popq %r15; popq %r14; popq %r13; popq %r12\n"			\
	"	popq %rbp; popq %rbx; popq %r11; popq %r10\n"			\
	"	popq %r9; popq %r8; popq %rax; popq %rcx\n"			\
	"	popq %rdx; popq %rsi; popq %rdi\n"				\
	"	addq $24, %rsp\n"

#else /* CONFIG_X86_32 */

/* gs, orig_ax, ip, cs: four words the callers fill or skip. */
#define SAVE_REGS_STRING						\
	"	subl $16, %esp\n"						\
	"	pushl %fs; pushl %es; pushl %ds; pushl %eax\n"			\
	"	pushl %ebp; pushl %edi; pushl %esi; pushl %edx\n"		\
	"	pushl %ecx; pushl %ebx\n"					\
	ENCODE_FRAME_POINTER

/* The segment registers are not reloaded: skip ds, es, fs too. */
#define RESTORE_REGS_STRING						\
	"	popl %ebx; popl %ecx; popl %edx; popl %esi\n"			\
	"	popl %edi; popl %ebp; popl %eax\n"				\
	"	addl $28, %esp\n"

#endif /* CONFIG_X86_64 */

/*
 * True when @insn, read from @orig_addr, may run from a copy followed by a
 * jump back to the original text: it does not branch, does not depend on
 * where it runs (rip-relative operands are relocated by
 * __copy_instruction()), does not touch the interrupt flag and has no
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
