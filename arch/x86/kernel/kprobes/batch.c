// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Arming and disarming many breakpoint probes with one synchronisation.
 *
 * A kprobe only ever rewrites the first byte of an instruction, and a
 * one-byte store is seen by other CPUs either whole or not at all, so
 * all the bytes of a batch can be written first and the CPUs
 * serialised once afterwards (this is what the int3 phase of
 * text_poke_bp_batch() does too).
 */
#include <linux/kprobes.h>
#include <linux/memory.h>
#include <linux/perf_event.h>
#include <asm/text-patching.h>

/**
 * arch_arm_kprobes_batch() - put an int3 at the start of every probe
 * @ps: the probes
 * @n: how many
 *
 * Context: text_mutex and cpus_read_lock held.
 */
void arch_arm_kprobes_batch(struct kprobe **ps, unsigned int n)
{
	u8 int3 = INT3_INSN_OPCODE;
	unsigned int i;

	lockdep_assert_held(&text_mutex);
	for (i = 0; i < n; i++) {
		text_poke(ps[i]->addr, &int3, 1);
		perf_event_text_poke(ps[i]->addr, &ps[i]->opcode, 1, &int3, 1);
	}
	text_poke_sync();
}

/**
 * arch_disarm_kprobes_batch() - put the original first bytes back
 * @ps: the probes
 * @n: how many
 *
 * Context: text_mutex and cpus_read_lock held.
 */
void arch_disarm_kprobes_batch(struct kprobe **ps, unsigned int n)
{
	u8 int3 = INT3_INSN_OPCODE;
	unsigned int i;

	lockdep_assert_held(&text_mutex);
	for (i = 0; i < n; i++) {
		perf_event_text_poke(ps[i]->addr, &int3, 1, &ps[i]->opcode, 1);
		text_poke(ps[i]->addr, &ps[i]->opcode, 1);
	}
	text_poke_sync();
}
