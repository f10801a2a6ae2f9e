/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * arm64 instructions that a probe runs on the saved registers instead of
 * out of line: everything that reads the PC, and the branches.
 *
 * The simulations are probes_handler_t: called with the instruction,
 * the address it was at and the registers it runs on, they leave
 * regs->pc at the next instruction to run.
 */
#ifndef _ARM64_KERNEL_PROBES_SIMULATE_INSN_H
#define _ARM64_KERNEL_PROBES_SIMULATE_INSN_H

#include <linux/types.h>
#include <asm/probes.h>

/* Branches: immediate, conditional, compare/test and branch, register. */
probes_handler_t arm64_sim_b_bl, arm64_sim_b_cond, arm64_sim_cbz_cbnz,
		 arm64_sim_tbz_tbnz, arm64_sim_br_blr_ret;

/* PC-relative addresses and literal loads. */
probes_handler_t arm64_sim_adr_adrp, arm64_sim_ldr_literal,
		 arm64_sim_ldrsw_literal;

/* Hints that do nothing at a probe (nop, bti), and prfm. */
probes_handler_t arm64_sim_nop;

/* Does condition @cond (B.cond encoding) hold for the flags in @pstate? */
bool arm64_sim_cond_holds(u64 pstate, unsigned int cond);

#endif /* _ARM64_KERNEL_PROBES_SIMULATE_INSN_H */
