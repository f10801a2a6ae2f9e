// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Classify an arm64 instruction for a probe: simulate it, run a copy of
 * it out of line, or refuse it.
 *
 * One pass over the top-level encoding groups (Arm ARM, "A64 instruction
 * set encoding", op0 = bits 28:25), most specific match first:
 *
 *   reserved, unallocated, SME       stepped for uprobes (they trap
 *                                    wherever they run), refused by
 *                                    kprobes
 *   data processing, immediate       adr/adrp simulated, the rest stepped
 *   branches, exceptions, system     branches simulated; exception
 *                                    generation, eret, the pointer
 *                                    authenticating branches, PSTATE
 *                                    writes and the registers an
 *                                    exception overwrites refused; nop
 *                                    and bti simulated; other hints
 *                                    (paciasp, autiasp...) stepped
 *   loads and stores                 literal loads simulated (SIMD&FP
 *                                    ones refused), exclusives refused
 *   everything else                  stepped
 *
 * A copy runs between two exceptions (the BRK of the probe and the BRK
 * after the copy), so anything that depends on the PC, on the exception
 * registers or on the exclusive monitor cannot be stepped.
 */
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <asm/patching.h>
#include <asm/sysreg.h>

#include "decode-insn.h"
#include "simulate-insn.h"

/* Exclusive load/store: class 0b001000 in bits 29:24, o2 (bit 23) clear. */
#define DEC_EXCL_MASK		0x3f800000
#define DEC_EXCL_VAL		0x08000000
#define DEC_EXCL_L		BIT(22)
#define DEC_EXCL_O1		BIT(21)
#define DEC_EXCL_SIZE_HI	BIT(31)

static bool dec_is_exclusive(probe_opcode_t insn)
{
	if ((insn & DEC_EXCL_MASK) != DEC_EXCL_VAL)
		return false;
	/* o1 with a 32-bit size is CASP, a single atomic instruction. */
	return !((insn & DEC_EXCL_O1) && !(insn & DEC_EXCL_SIZE_HI));
}

/**
 * arm_probe_is_load_exclusive() - ldxr, ldaxr, ldxp, ldaxp (any size)
 * @insn: the instruction
 *
 * Return: true if @insn opens an exclusive access.
 */
bool arm_probe_is_load_exclusive(probe_opcode_t insn)
{
	return dec_is_exclusive(insn) && (insn & DEC_EXCL_L);
}

/**
 * arm_probe_is_store_exclusive() - stxr, stlxr, stxp, stlxp (any size)
 * @insn: the instruction
 *
 * Return: true if @insn closes an exclusive access.
 */
bool arm_probe_is_store_exclusive(probe_opcode_t insn)
{
	return dec_is_exclusive(insn) && !(insn & DEC_EXCL_L);
}

/**
 * arm_probe_is_unallocated() - reserved, unallocated or SME encoding
 * @insn: the instruction
 *
 * Return: true for the top-level groups that hold no instruction a
 * kernel probe can step (udf, reserved and unallocated space, SME).
 */
bool arm_probe_is_unallocated(probe_opcode_t insn)
{
	switch ((insn >> 25) & 0xf) {
	case 0x0:
	case 0x1:
	case 0x3:
		return true;
	default:
		return false;
	}
}

/* The system register field (op0..op2) of mrs/msr, as sys_reg() has it. */
#define DEC_SYSREG_MASK		0x001fffe0

/*
 * Registers that the probe's own exceptions overwrite (a copy would read
 * the BRK's values, or its write would be lost) or that mask interrupts
 * behind the probe's back.  A VHE kernel takes its exceptions at EL2:
 * its _EL1 names already reach the EL2 registers, and the explicit _EL2
 * encodings (KVM's VHE world switch) are the same registers.
 */
static bool dec_sysreg_refused(probe_opcode_t insn)
{
	switch (insn & DEC_SYSREG_MASK) {
	case sys_reg(3, 0, 4, 0, 0):	/* SPSR_EL1 */
	case sys_reg(3, 0, 4, 0, 1):	/* ELR_EL1 */
	case sys_reg(3, 0, 5, 2, 0):	/* ESR_EL1 */
	case sys_reg(3, 0, 6, 0, 0):	/* FAR_EL1 */
	case sys_reg(3, 4, 4, 0, 0):	/* SPSR_EL2 */
	case sys_reg(3, 4, 4, 0, 1):	/* ELR_EL2 */
	case sys_reg(3, 4, 5, 2, 0):	/* ESR_EL2 */
	case sys_reg(3, 4, 6, 0, 0):	/* FAR_EL2 */
	case sys_reg(3, 3, 4, 2, 1):	/* DAIF */
		return true;
	default:
		return false;
	}
}

static enum probe_insn dec_simulate(struct arch_probe_insn *api,
				    probes_handler_t *handler)
{
	api->handler = handler;
	return INSN_GOOD_NO_SLOT;
}

/* Branches, exception generation and system instructions. */
static enum probe_insn dec_branch_sys(probe_opcode_t insn,
				      struct arch_probe_insn *api)
{
	unsigned int hint;

	if ((insn & 0x7c000000) == 0x14000000)		/* b, bl */
		return dec_simulate(api, arm64_sim_b_bl);
	if ((insn & 0xff000000) == 0x54000000)		/* b.cond, bc.cond */
		return dec_simulate(api, arm64_sim_b_cond);
	if ((insn & 0x7e000000) == 0x34000000)		/* cbz, cbnz */
		return dec_simulate(api, arm64_sim_cbz_cbnz);
	if ((insn & 0x7e000000) == 0x36000000)		/* tbz, tbnz */
		return dec_simulate(api, arm64_sim_tbz_tbnz);

	if ((insn & 0xfe000000) == 0xd6000000) {	/* branch to register */
		switch (insn & 0xfffffc1f) {
		case 0xd61f0000:			/* br */
		case 0xd63f0000:			/* blr */
		case 0xd65f0000:			/* ret */
			return dec_simulate(api, arm64_sim_br_blr_ret);
		}
		/* eret, drps, braa, blraa, retaa... */
		return INSN_REJECTED;
	}

	if ((insn & 0xff000000) == 0xd4000000)		/* svc, hvc, brk... */
		return INSN_REJECTED;

	if ((insn & 0xffc00000) != 0xd5000000)		/* unallocated */
		return INSN_REJECTED;

	if ((insn & 0xfffff01f) == 0xd503201f) {	/* hint #n */
		hint = (insn >> 5) & 0x7f;
		/* nop; bti, bti c, bti j, bti jc */
		if (hint == 0 || (hint & 0x79) == 0x20)
			return dec_simulate(api, arm64_sim_nop);
		/* paciasp, autiasp, yield, esb...: fine at any address */
		return INSN_GOOD;
	}
	if ((insn & 0xfff8f01f) == 0xd500401f)		/* msr <pstate>, #imm */
		return INSN_REJECTED;
	if ((insn & 0xffd00000) == 0xd5100000 &&	/* mrs, msr (register) */
	    dec_sysreg_refused(insn))
		return INSN_REJECTED;
	return INSN_GOOD;
}

/* Loads and stores. */
static enum probe_insn dec_load_store(probe_opcode_t insn,
				      struct arch_probe_insn *api)
{
	if ((insn & 0x3b000000) == 0x18000000) {	/* load literal */
		if (insn & BIT(26))			/* SIMD&FP register */
			return INSN_REJECTED;
		switch (insn >> 30) {
		case 0:					/* ldr Wt */
		case 1:					/* ldr Xt */
			return dec_simulate(api, arm64_sim_ldr_literal);
		case 2:
			return dec_simulate(api, arm64_sim_ldrsw_literal);
		default:				/* prfm */
			return dec_simulate(api, arm64_sim_nop);
		}
	}
	if (dec_is_exclusive(insn))
		return INSN_REJECTED;
	return INSN_GOOD;
}

/**
 * arm_probe_decode_insn() - what a probe can do with one instruction
 * @insn: the instruction (CPU byte order)
 * @api: filled in: @api->handler is the simulation, or NULL
 *
 * Shared by kprobes and uprobes.  Only the instruction itself is looked
 * at; kprobes also checks its surroundings.
 *
 * Return: INSN_GOOD_NO_SLOT (simulate), INSN_GOOD (run a copy), or
 * INSN_REJECTED.
 */
enum probe_insn arm_probe_decode_insn(probe_opcode_t insn,
				      struct arch_probe_insn *api)
{
	api->insn = NULL;
	api->pstate_cc = NULL;
	api->handler = NULL;
	api->restore = 0;

	switch ((insn >> 25) & 0xf) {
	case 0x0:				/* reserved, udf, SME */
	case 0x1:
	case 0x3:
		/*
		 * It traps wherever it runs: from a uprobe's slot the task
		 * gets its SIGILL at the probed address.  kprobes refuses it
		 * (arm_probe_is_unallocated()).
		 */
		return INSN_GOOD;
	case 0x8:				/* data processing, immediate */
	case 0x9:
		if ((insn & 0x1f000000) == 0x10000000)	/* adr, adrp */
			return dec_simulate(api, arm64_sim_adr_adrp);
		return INSN_GOOD;
	case 0xa:				/* branch, exception, system */
	case 0xb:
		return dec_branch_sys(insn, api);
	case 0x4:				/* loads and stores */
	case 0x6:
	case 0xc:
	case 0xe:
		return dec_load_store(insn, api);
	default:				/* data processing, SVE, SIMD */
		return INSN_GOOD;
	}
}

#ifdef CONFIG_KPROBES
/**
 * arm_kprobe_in_exclusive_sequence() - is @addr between ldxr and stxr?
 * @addr: a kernel text address
 *
 * Looks back at most KPROBE_EXCLUSIVE_LOOKBACK instructions, without
 * leaving the function: a load-exclusive found before any
 * store-exclusive means that @addr runs while the monitor is open, and
 * the exceptions of a probe would clear it (the sequence would retry
 * for ever).
 *
 * Return: true if a probe at @addr must be refused.
 */
bool arm_kprobe_in_exclusive_sequence(const kprobe_opcode_t *addr)
{
	unsigned long size, offset = KPROBE_EXCLUSIVE_LOOKBACK * sizeof(*addr);
	unsigned int n;
	u32 insn;

	/* Outside a known function: look back the whole window. */
	if (kallsyms_lookup_size_offset((unsigned long)addr, &size, &offset))
		offset = min_t(unsigned long, offset,
			       KPROBE_EXCLUSIVE_LOOKBACK * sizeof(*addr));
	for (n = 1; n * sizeof(*addr) <= offset; n++) {
		if (aarch64_insn_read((void *)(addr - n), &insn))
			return false;
		if (arm_probe_is_store_exclusive(insn))
			return false;
		if (arm_probe_is_load_exclusive(insn))
			return true;
	}
	return false;
}
#endif /* CONFIG_KPROBES */
