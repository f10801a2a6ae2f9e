/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef _ASM_ARM64_KPROBES_H
#define _ASM_ARM64_KPROBES_H
/*
 * arm64 side of kprobes: what the generic core and the arch files share.
 *
 * A probe is a "BRK #KPROBES_BRK_IMM" written over a whole (4-byte)
 * instruction.  When it is hit, probes/kprobes.c either simulates the
 * displaced instruction on the saved registers or runs a copy of it from
 * an instruction slot (see kprobes.c for the slot layouts).
 */

#include <asm-generic/kprobes.h>

#ifdef CONFIG_KPROBES
#include <linux/percpu.h>
#include <linux/ptrace.h>
#include <linux/types.h>
#include <asm/probes.h>

/* A probe replaces one whole instruction. */
typedef u32 kprobe_opcode_t;

/* Slot size in instructions: the copy, then a BRK or a branch back. */
#define MAX_INSN_SIZE			2

/* Slots come from the generic insn cache (execmem, read-only pages). */
#define __ARCH_WANT_KPROBES_INSN_SLOT

struct kprobe;

/* Slots are written with the text patching helpers, which flush. */
static inline void flush_insn_slot(struct kprobe *p)
{
}

/*
 * How the hit path completes one probed instruction; decided once by
 * arch_prepare_kprobe().  p->ainsn is copied verbatim between the probes
 * that share an address, so it holds no per-hit state.
 */
struct arch_specific_insn {
	/* Slot: the copy, then BRK #KPROBES_BRK_SS_IMM; or NULL. */
	kprobe_opcode_t *insn;
	/* Slot: the copy, then "b <probe address + 4>"; or NULL. */
	kprobe_opcode_t *boost;
	/* Simulation on the registers (no slot), or NULL. */
	probes_handler_t *simulate;
};

/*
 * Jump optimization (opt.c): the probed instruction is replaced by a "b"
 * to a detour buffer of MAX_OPTINSN_SIZE instructions at most.
 */
#define MAX_OPTIMIZED_LENGTH		AARCH64_INSN_SIZE
#define MAX_OPTINSN_SIZE		64

struct arch_optimized_insn {
	/* detour buffer (an optinsn slot), or NULL */
	kprobe_opcode_t *insn;
	/* bytes the branch replaces (4); 0: cannot be optimized */
	u8 size;
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
 * Reentry levels kept: one for each way a probe can be hit while the
 * probe pushed before it is still in use on this CPU.  A copy is stepped
 * with PSTATE.I and F set (KP_STEP_MASKED in kprobes.c), D and A as the
 * trapped context had them:
 *
 *  1. A hit while the running probe's handlers run: from the handlers,
 *     or, on the ftrace path and in a detour buffer, whose handlers run
 *     with interrupts as the probed code had them, from an IRQ, a
 *     pseudo-NMI, an SError or a debug exception taken meanwhile.
 *  2. An SError taken from a copy: its handler masks A, I and F, not D.
 *  3. A debug exception taken from a copy, such as a watchpoint on what
 *     the copy accesses: its handler runs with all of DAIF masked.
 *  4. An SDEI event of normal priority: firmware delivers it whatever
 *     PSTATE masks, and the handler runs with all of DAIF masked.
 *  5. An SDEI event of critical priority, which preempts a normal one.
 *
 * IRQs and pseudo-NMIs (PSTATE.I masks every priority) never come while
 * a copy runs, so they only make level 1; each of 2-5 masks itself and
 * those before it, so none of them comes twice.  See kp_reenter() for a
 * hit past the deepest level.
 */
#define KPROBE_OUTER_DEPTH	5

/* per-cpu kprobe control block */
struct kprobe_ctlblk {
	unsigned long kprobe_status;
	/*
	 * PSTATE.I and .F of the trapped context while a copy runs (and,
	 * with pseudo-NMIs, its pmr_save: see kp_mask_step()).
	 */
	unsigned long saved_flags;
	/* entries of outer[] in use */
	unsigned int nr_outer;
	struct kprobe_outer outer[KPROBE_OUTER_DEPTH];
};

void arch_remove_kprobe(struct kprobe *p);
int kprobe_fault_handler(struct pt_regs *regs, unsigned int fsr);

extern const int kretprobe_blacklist_size;

#endif /* CONFIG_KPROBES */

/* Entry points from call_el1_break_hook() (debug-monitors.c). */
int kprobe_brk_handler(struct pt_regs *regs, unsigned long esr);
int kprobe_ss_brk_handler(struct pt_regs *regs, unsigned long esr);
int kretprobe_brk_handler(struct pt_regs *regs, unsigned long esr);

#endif /* _ASM_ARM64_KPROBES_H */
