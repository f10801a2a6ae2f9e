/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __X86_KERNEL_KPROBES_OPT_KUNIT_H
#define __X86_KERNEL_KPROBES_OPT_KUNIT_H

/* opt_kunit_asm.S: the functions under test. */
long kpo_straight(long x);
unsigned long kpo_regs(unsigned long s);
long kpo_jt(long x);
long kpo_ij(long x, void *where);
long kpo_short(long x);
long kpo_chain(long x);
long kpo_jl(long x);

extern long kpo_data;
extern unsigned long kpo_seen_sp;
extern struct static_key_false kpo_jl_key;

/* Probe points, in the order of kpo_offsets[]. */
enum kpo_point {
	KPO_SITE,		/* kpo_straight: mov; rip-relative add */
	KPO_SITE_NEXT,		/* kpo_straight: the add, inside that region */
	KPO_REGS_SITE,		/* kpo_regs: after every register is loaded */
	KPO_JT_SITE,		/* kpo_jt: a loop head is in the region */
	KPO_IJ_SITE,		/* kpo_ij: the function has an indirect jump */
	KPO_SHORT_SITE,		/* kpo_short: only a ret follows */
	KPO_CHAIN_A,		/* kpo_chain: its region covers B and C */
	KPO_CHAIN_B,		/* kpo_chain: its region covers C */
	KPO_CHAIN_C,		/* kpo_chain: too close to the ret to jump */
	KPO_JL_SITE,		/* kpo_jl: a static branch may jump into it */
};

extern const long kpo_offsets[];

#endif /* __X86_KERNEL_KPROBES_OPT_KUNIT_H */
