// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Simulation of the arm64 instructions that cannot run from a slot.
 *
 * The branches and the PC-relative instructions compute with the address
 * they were fetched from, so a copy elsewhere would compute something
 * else.  They are few and simple: each one is done here on the saved
 * registers, from the fields of its encoding (Arm ARM, "A64 instruction
 * set encoding").  Register number 31 reads as zero and discards writes
 * (XZR/WZR) in every instruction handled here.
 *
 * Used by kprobes (kernel addresses, exception context) and uprobes
 * (user addresses, process context): the literal loads read through the
 * matching accessor.
 */
#include <linux/bitfield.h>
#include <linux/bits.h>
#include <linux/kprobes.h>
#include <linux/ptrace.h>
#include <linux/sched/signal.h>
#include <linux/uaccess.h>
#include <asm/insn.h>

#include "simulate-insn.h"

#define SIM_RT		GENMASK(4, 0)		/* Rd / Rt */
#define SIM_RN		GENMASK(9, 5)		/* Rn (br, blr, ret) */
#define SIM_COND	GENMASK(3, 0)		/* b.cond */
#define SIM_IMM19	GENMASK(23, 5)		/* b.cond, cbz, ldr literal */
#define SIM_IMM26	GENMASK(25, 0)		/* b, bl */
#define SIM_IMM14	GENMASK(18, 5)		/* tbz */
#define SIM_B40		GENMASK(23, 19)		/* tbz: bit number, low */
#define SIM_IMMLO	GENMASK(30, 29)		/* adr, adrp */
#define SIM_IMMHI	GENMASK(23, 5)
#define SIM_SF		BIT(31)			/* 64-bit form; tbz: b5 */
#define SIM_OP24	BIT(24)			/* cbnz / tbnz */
#define SIM_LINK	BIT(31)			/* bl */
#define SIM_PAGE	BIT(31)			/* adrp */
#define SIM_X_LOAD	BIT(30)			/* ldr literal: 64-bit */
#define SIM_BR_OPC	GENMASK(22, 21)		/* 0: br, 1: blr, 2: ret */

static nokprobe_inline u64 sim_x(struct pt_regs *regs, unsigned int n)
{
	return n == 31 ? 0 : regs->regs[n];
}

static nokprobe_inline void sim_set_x(struct pt_regs *regs, unsigned int n,
				      u64 val)
{
	if (n != 31)
		regs->regs[n] = val;
}

/* The signed byte offset of an immediate field counted in words. */
static nokprobe_inline s64 sim_word_offset(u32 field, unsigned int bits)
{
	return sign_extend64((u64)field << 2, bits + 1);
}

/*
 * Resume at @pc.  PSTATE.BTYPE is cleared: the branch that reached the
 * probed instruction was checked against it (a simulated bti included),
 * and the instruction the exception returns to is not a branch target.
 */
static nokprobe_inline void sim_set_pc(struct pt_regs *regs, u64 pc)
{
	instruction_pointer_set(regs, pc);
	regs->pstate &= ~PSR_BTYPE_MASK;
}

static nokprobe_inline void sim_next(struct pt_regs *regs, long addr)
{
	sim_set_pc(regs, addr + AARCH64_INSN_SIZE);
}

static nokprobe_inline void sim_branch(struct pt_regs *regs, long addr,
				       bool taken, s64 offset)
{
	sim_set_pc(regs, taken ? addr + offset : addr + AARCH64_INSN_SIZE);
}

/**
 * arm64_sim_cond_holds() - evaluate a condition code
 * @pstate: PSTATE (or SPSR) holding N, Z, C, V
 * @cond: the 4-bit condition of a b.cond
 *
 * Return: whether the branch is taken.
 */
bool arm64_sim_cond_holds(u64 pstate, unsigned int cond)
{
	bool n = pstate & PSR_N_BIT, z = pstate & PSR_Z_BIT;
	bool c = pstate & PSR_C_BIT, v = pstate & PSR_V_BIT;
	bool holds;

	switch (cond >> 1) {
	case 0:
		holds = z;			/* eq */
		break;
	case 1:
		holds = c;			/* cs */
		break;
	case 2:
		holds = n;			/* mi */
		break;
	case 3:
		holds = v;			/* vs */
		break;
	case 4:
		holds = c && !z;		/* hi */
		break;
	case 5:
		holds = n == v;			/* ge */
		break;
	case 6:
		holds = n == v && !z;		/* gt */
		break;
	default:
		return true;			/* al, nv */
	}
	/* Odd conditions are the negations, except for "nv" (always). */
	return (cond & 1) ? !holds : holds;
}
NOKPROBE_SYMBOL(arm64_sim_cond_holds);

/* Hints that do nothing here (nop, bti): go on with the next one. */
void arm64_sim_nop(u32 opcode, long addr, struct pt_regs *regs)
{
	sim_next(regs, addr);
}
NOKPROBE_SYMBOL(arm64_sim_nop);

/* adr Xd, label / adrp Xd, label */
void arm64_sim_adr_adrp(u32 opcode, long addr, struct pt_regs *regs)
{
	u64 imm = (FIELD_GET(SIM_IMMHI, opcode) << 2) |
		  FIELD_GET(SIM_IMMLO, opcode);
	u64 val;

	if (opcode & SIM_PAGE)
		val = (addr & ~0xfffL) + (sign_extend64(imm, 20) << 12);
	else
		val = addr + sign_extend64(imm, 20);
	sim_set_x(regs, FIELD_GET(SIM_RT, opcode), val);
	sim_next(regs, addr);
}
NOKPROBE_SYMBOL(arm64_sim_adr_adrp);

/* b label / bl label */
void arm64_sim_b_bl(u32 opcode, long addr, struct pt_regs *regs)
{
	if (opcode & SIM_LINK)
		regs->regs[30] = addr + AARCH64_INSN_SIZE;
	sim_branch(regs, addr, true,
		   sim_word_offset(FIELD_GET(SIM_IMM26, opcode), 26));
}
NOKPROBE_SYMBOL(arm64_sim_b_bl);

/* b.cond label (and bc.cond, the same with a hint) */
void arm64_sim_b_cond(u32 opcode, long addr, struct pt_regs *regs)
{
	sim_branch(regs, addr,
		   arm64_sim_cond_holds(regs->pstate, FIELD_GET(SIM_COND, opcode)),
		   sim_word_offset(FIELD_GET(SIM_IMM19, opcode), 19));
}
NOKPROBE_SYMBOL(arm64_sim_b_cond);

/* br Xn / blr Xn / ret {Xn} */
void arm64_sim_br_blr_ret(u32 opcode, long addr, struct pt_regs *regs)
{
	/* Read the target first: "blr x30" branches to the old x30. */
	u64 target = sim_x(regs, FIELD_GET(SIM_RN, opcode));

	if (FIELD_GET(SIM_BR_OPC, opcode) == 1)
		regs->regs[30] = addr + AARCH64_INSN_SIZE;
	sim_set_pc(regs, target);
}
NOKPROBE_SYMBOL(arm64_sim_br_blr_ret);

/* cbz / cbnz Rt, label */
void arm64_sim_cbz_cbnz(u32 opcode, long addr, struct pt_regs *regs)
{
	u64 val = sim_x(regs, FIELD_GET(SIM_RT, opcode));
	bool zero;

	if (!(opcode & SIM_SF))
		val = (u32)val;
	zero = !val;
	sim_branch(regs, addr, (opcode & SIM_OP24) ? !zero : zero,
		   sim_word_offset(FIELD_GET(SIM_IMM19, opcode), 19));
}
NOKPROBE_SYMBOL(arm64_sim_cbz_cbnz);

/* tbz / tbnz Rt, #bit, label */
void arm64_sim_tbz_tbnz(u32 opcode, long addr, struct pt_regs *regs)
{
	unsigned int bit = FIELD_GET(SIM_B40, opcode) |
			   ((opcode & SIM_SF) ? 32 : 0);
	bool set = sim_x(regs, FIELD_GET(SIM_RT, opcode)) & BIT_ULL(bit);

	sim_branch(regs, addr, (opcode & SIM_OP24) ? set : !set,
		   sim_word_offset(FIELD_GET(SIM_IMM14, opcode), 14));
}
NOKPROBE_SYMBOL(arm64_sim_tbz_tbnz);

/*
 * Read the literal of a load at @addr: from the kernel image for a
 * kprobe, through the user accessors for a uprobe (process context).
 * Returns false (and the task gets a SIGSEGV) if a user read faults.
 */
static nokprobe_inline bool sim_read_literal(struct pt_regs *regs, long addr,
					     u32 opcode, void *val,
					     size_t size)
{
	unsigned long src = addr + sim_word_offset(FIELD_GET(SIM_IMM19, opcode), 19);

	if (!user_mode(regs)) {
		memcpy(val, (void *)src, size);
		return true;
	}
	if (!copy_from_user(val, (void __user *)src, size))
		return true;
	force_sig(SIGSEGV);
	return false;
}

/* ldr Wt, label / ldr Xt, label */
void arm64_sim_ldr_literal(u32 opcode, long addr, struct pt_regs *regs)
{
	u64 val64 = 0;
	u32 val32 = 0;

	if (opcode & SIM_X_LOAD) {
		if (!sim_read_literal(regs, addr, opcode, &val64, sizeof(val64)))
			return;
	} else {
		if (!sim_read_literal(regs, addr, opcode, &val32, sizeof(val32)))
			return;
		val64 = val32;
	}
	sim_set_x(regs, FIELD_GET(SIM_RT, opcode), val64);
	sim_next(regs, addr);
}
NOKPROBE_SYMBOL(arm64_sim_ldr_literal);

/* ldrsw Xt, label */
void arm64_sim_ldrsw_literal(u32 opcode, long addr, struct pt_regs *regs)
{
	s32 val = 0;

	if (!sim_read_literal(regs, addr, opcode, &val, sizeof(val)))
		return;
	sim_set_x(regs, FIELD_GET(SIM_RT, opcode), (s64)val);
	sim_next(regs, addr);
}
NOKPROBE_SYMBOL(arm64_sim_ldrsw_literal);
