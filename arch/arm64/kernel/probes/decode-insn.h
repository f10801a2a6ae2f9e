/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * arm64 instruction classification for kprobes and uprobes.
 */
#ifndef _ARM64_KERNEL_PROBES_DECODE_INSN_H
#define _ARM64_KERNEL_PROBES_DECODE_INSN_H

#include <asm/probes.h>

/*
 * What a probe can do with an instruction:
 * INSN_REJECTED	neither stepped nor simulated: the probe is refused
 * INSN_GOOD_NO_SLOT	simulated on the saved registers (api->handler)
 * INSN_GOOD		run out of line, from a copy in a slot
 */
enum probe_insn {
	INSN_REJECTED,
	INSN_GOOD_NO_SLOT,
	INSN_GOOD,
};

enum probe_insn arm_probe_decode_insn(probe_opcode_t insn,
				      struct arch_probe_insn *api);

/* Encodings that can never be stepped in the kernel. */
bool arm_probe_is_unallocated(probe_opcode_t insn);

/* Load/store exclusive (the monitor a trap in between would clear). */
bool arm_probe_is_load_exclusive(probe_opcode_t insn);
bool arm_probe_is_store_exclusive(probe_opcode_t insn);

#ifdef CONFIG_KPROBES
#include <asm/kprobes.h>

/* Instructions looked at before a probed one for an open exclusive. */
#define KPROBE_EXCLUSIVE_LOOKBACK	16

bool arm_kprobe_in_exclusive_sequence(const kprobe_opcode_t *addr);
#endif

#endif /* _ARM64_KERNEL_PROBES_DECODE_INSN_H */
