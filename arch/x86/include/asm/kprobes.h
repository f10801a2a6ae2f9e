/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef _ASM_X86_KPROBES_H
#define _ASM_X86_KPROBES_H
/*
 * x86 side of kprobes: what the generic core and the arch files share.
 *
 * A probe is an int3 written over the first byte of an instruction.  When
 * it is hit, core.c either emulates the displaced instruction or runs a
 * copy of it from an instruction slot (see core.c for the slot layout).
 */

#include <asm-generic/kprobes.h>

#ifdef CONFIG_KPROBES
#include <linux/types.h>
#include <linux/ptrace.h>
#include <linux/percpu.h>
#include <asm/text-patching.h>
#include <asm/insn.h>

/* Instruction slots come from the generic insn cache (execmem pages). */
#define __ARCH_WANT_KPROBES_INSN_SLOT

struct pt_regs;
struct kprobe;

typedef u8 kprobe_opcode_t;

/* Slots are written with text_poke(), which keeps the I-cache coherent. */
#define flush_insn_slot(p)	do { } while (0)

/* Boundaries of the optprobe detour template (opt.c). */
extern __visible kprobe_opcode_t optprobe_template_entry[];
extern __visible kprobe_opcode_t optprobe_template_clac[];
extern __visible kprobe_opcode_t optprobe_template_val[];
extern __visible kprobe_opcode_t optprobe_template_call[];
extern __visible kprobe_opcode_t optprobe_template_end[];
#define MAX_OPTIMIZED_LENGTH (MAX_INSN_SIZE + DISP32_SIZE)
#define MAX_OPTINSN_SIZE 				\
	(((unsigned long)optprobe_template_end -	\
	  (unsigned long)optprobe_template_entry) +	\
	 MAX_OPTIMIZED_LENGTH + JMP32_INSN_SIZE)

extern const int kretprobe_blacklist_size;

void arch_remove_kprobe(struct kprobe *p);

/*
 * How the hit path completes one probed instruction; decided once by
 * arch_prepare_kprobe().  p->ainsn is copied verbatim between the probes
 * that share an address, so it holds no per-probe state.
 */
struct arch_specific_insn {
	/* Slot: the copy followed by int3, to trap back after it ran. */
	kprobe_opcode_t *insn;
	/* Slot: the copy followed by a jmp back (boosting), or NULL. */
	kprobe_opcode_t *boost;
	/* Length of the probed instruction. */
	u8 size;
	/* enum kp_insn_kind in core.c. */
	u8 kind;
	/* Condition code (jcc), or pt_regs offset / 8 (indirect branch). */
	u8 arg;
	/* Branch displacement, or bytes released by "ret imm16". */
	s32 disp;
};

struct arch_optimized_insn {
	/* copy of the original instructions */
	kprobe_opcode_t copied_insn[DISP32_SIZE];
	/* detour code buffer */
	kprobe_opcode_t *insn;
	/* the size of instructions copied to detour code buffer */
	size_t size;
};

/* Return true (!0) if optinsn is prepared for optimization. */
static inline int arch_prepared_optinsn(struct arch_optimized_insn *optinsn)
{
	return optinsn->size;
}

/* The probe this CPU was running when it reentered another one. */
struct kprobe_outer {
	struct kprobe *kp;
	unsigned long status;
	unsigned long saved_if;
};

/* per-cpu kprobe control block */
struct kprobe_ctlblk {
	unsigned long kprobe_status;
	/* X86_EFLAGS_IF of the trapped context while a copy runs. */
	unsigned long saved_if;
	struct kprobe_outer outer;
};

extern int kprobe_fault_handler(struct pt_regs *regs, int trapnr);
extern int kprobe_int3_handler(struct pt_regs *regs);

#endif /* CONFIG_KPROBES */
#endif /* _ASM_X86_KPROBES_H */
