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
#include <asm/insn.h>
#include <asm/text-patching.h>
#include <linux/percpu.h>
#include <linux/ptrace.h>
#include <linux/types.h>

/* A probe replaces one byte: the first of the instruction, by int3. */
typedef u8 kprobe_opcode_t;

/*
 * Copies run from slots of the generic insn cache (execmem pages); they
 * are written with text_poke(), which keeps the I-cache coherent.
 */
#define __ARCH_WANT_KPROBES_INSN_SLOT

struct kprobe;
struct pt_regs;

static inline void flush_insn_slot(struct kprobe *p)
{
}

/*
 * Jump optimization (opt.c).  A detour buffer is the detour head (a
 * template in .rodata, kp_detour_tmpl .. kp_detour_tmpl_end), then the
 * copied region of at most MAX_OPTIMIZED_LENGTH bytes (instructions
 * starting in the 5 bytes of the jump), then "jmp back; int3".
 * MAX_OPTINSN_SIZE bounds that at build time (checked against the head
 * at run time); the slots themselves are cut to what a detour can need
 * (arch_optinsn_slot_size() in opt.c).
 */
extern const u8 kp_detour_tmpl[], kp_detour_tmpl_end[];
#define KP_DETOUR_TMPL_SIZE	((size_t)(kp_detour_tmpl_end - kp_detour_tmpl))
#define MAX_OPTIMIZED_LENGTH	(MAX_INSN_SIZE + DISP32_SIZE)
#define MAX_OPTINSN_SIZE	160

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

/* The jump-optimized form of a probe site (opt.c). */
struct arch_optimized_insn {
	/* detour buffer (an optinsn slot), or NULL */
	kprobe_opcode_t *insn;
	/* length of the region copied into it; 0: cannot be optimized */
	u8 size;
	/* original bytes under the jump; orig[0] is under the int3 too */
	u8 orig[JMP32_INSN_SIZE];
};

/* Non-zero once arch_prepare_optimized_kprobe() built the detour. */
static inline int arch_prepared_optinsn(struct arch_optimized_insn *optinsn)
{
	return optinsn->size != 0;
}

/*
 * A probe this CPU was running when it reentered another one; the
 * generic reentry helpers in <linux/kprobes.h> use it.
 */
#define ARCH_KPROBE_CTLBLK_OUTER
struct kprobe_outer {
	struct kprobe *kp;
	unsigned long status;
	unsigned long saved_flags;
};

/*
 * Reentry levels kept: one for a hit in a handler, and one for each
 * exception that can come while a reentered copy runs with interrupts
 * off and that cannot nest in itself (NMI, #DB, #MC).  See kp_reenter()
 * in core.c.
 */
#define KPROBE_OUTER_DEPTH	4

/* per-cpu kprobe control block */
struct kprobe_ctlblk {
	unsigned long kprobe_status;
	/* X86_EFLAGS_IF of the trapped context while a copy runs. */
	unsigned long saved_flags;
	/* entries of outer[] in use */
	unsigned int nr_outer;
	struct kprobe_outer outer[KPROBE_OUTER_DEPTH];
};

/* Entry points from the trap handlers (core.c). */
int kprobe_int3_handler(struct pt_regs *regs);
int kprobe_fault_handler(struct pt_regs *regs, int trapnr);
void arch_remove_kprobe(struct kprobe *p);

extern const int kretprobe_blacklist_size;

#endif /* CONFIG_KPROBES */
#endif /* _ASM_X86_KPROBES_H */
