/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The probe targets of kprobes_kunit_asm.S, for kprobes_kunit.c.
 */
#ifndef _ARM64_KERNEL_PROBES_KPROBES_KUNIT_H
#define _ARM64_KERNEL_PROBES_KPROBES_KUNIT_H

/* What kpa_call_probed() puts in x0-x8 before the call. */
#define KPA_REG(n)	(0x5a00 + (n))

#ifndef __ASSEMBLY__

typedef long (*kpa_fn_t)(long a, long b);

#define KPA_DECLARE(name)						\
	long kpa_##name(long a, long b);				\
	extern char kpa_##name##_site[]

KPA_DECLARE(b);
KPA_DECLARE(bl);
KPA_DECLARE(bcond_eq);
KPA_DECLARE(bcond_ne);
KPA_DECLARE(bcond_cs);
KPA_DECLARE(bcond_cc);
KPA_DECLARE(bcond_mi);
KPA_DECLARE(bcond_pl);
KPA_DECLARE(bcond_vs);
KPA_DECLARE(bcond_vc);
KPA_DECLARE(bcond_hi);
KPA_DECLARE(bcond_ls);
KPA_DECLARE(bcond_ge);
KPA_DECLARE(bcond_lt);
KPA_DECLARE(bcond_gt);
KPA_DECLARE(bcond_le);
KPA_DECLARE(bcond_al);
KPA_DECLARE(cbz_x);
KPA_DECLARE(cbnz_x);
KPA_DECLARE(cbz_w);
KPA_DECLARE(cbnz_w);
KPA_DECLARE(tbz_3);
KPA_DECLARE(tbnz_3);
KPA_DECLARE(tbz_40);
KPA_DECLARE(tbnz_63);
KPA_DECLARE(adr);
KPA_DECLARE(adr_back);
KPA_DECLARE(adrp);
KPA_DECLARE(ldr_x);
KPA_DECLARE(ldr_w);
KPA_DECLARE(ldrsw);
KPA_DECLARE(prfm);
KPA_DECLARE(br);
KPA_DECLARE(blr);
KPA_DECLARE(ret);
KPA_DECLARE(nop);
KPA_DECLARE(pac);
KPA_DECLARE(add);
KPA_DECLARE(sp);
long kpa_bti(long a, long b);
extern char kpa_aut_site[];

extern char kpa_svc_site[], kpa_hvc_site[], kpa_brk_site[], kpa_eret_site[];
extern char kpa_daifset_site[], kpa_msr_daif_site[], kpa_mrs_elr_site[];
extern char kpa_mrs_elr_el2_site[], kpa_msr_spsr_el2_site[];
extern char kpa_retaa_site[], kpa_braa_site[], kpa_ldr_q_site[];
extern char kpa_udf_site[];
long kpa_excl(long *p, long unused);
extern const unsigned long kpa_excl_sites[4];

/* The sp, x29 and x30 a function called by kpa_call_probed() starts with. */
struct kpa_expect {
	unsigned long sp, fp, lr;
};

long kpa_call_probed(void *fn, struct kpa_expect *expect);
long kpa_brk_entry(long a, long b);
extern char kpa_opt_site[];
long kpa_extable(long *p, long unused);
extern char kpa_extable_site[];
long kpa_ftrace_entry(long a, long b);

#endif /* __ASSEMBLY__ */
#endif /* _ARM64_KERNEL_PROBES_KPROBES_KUNIT_H */
