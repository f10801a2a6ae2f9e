// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * KUnit suite kprobes_arm64: the arm64 BRK path, instruction by
 * instruction.
 *
 * Each simulated class (b, bl, b.cond for every condition, cbz/cbnz and
 * tbz/tbnz in both widths, adr, adrp, the literal loads, prfm, br, blr,
 * ret, nop, bti) and each stepped one (paciasp, autiasp, ALU, sp-relative
 * load; with and without a post_handler, that is, stepped and boosted)
 * is probed in a small assembly function (kprobes_kunit_asm.S).  Every
 * function is run on a set of inputs without the probe, then with it,
 * and must return the same values, with the pre_handler (and the
 * post_handler) called once per run.  The refused classes must be
 * refused with -EOPNOTSUPP, a misaligned address with -EILSEQ.
 *
 * Reentry: on a reentry faked on this CPU at each depth the control
 * block keeps, and past it, a hit on a simulated or a stepped
 * instruction must complete without handlers, count a miss and give
 * every level back as it was.
 *
 * Function entries: a probe on a C function's start goes on its ftrace
 * call site and is armed through ftrace (CONFIG_KPROBES_ON_FTRACE); one
 * on an assembly function's first instruction is a BRK.  Both are
 * called from kpa_call_probed(), which knows what x0-x8, x29, x30 and sp
 * hold at the entry, and the handlers must see exactly that on either
 * path; the ftrace path must also carry post_handlers, redirection,
 * changed arguments, kretprobes and jprobes, and survive being
 * unregistered while another CPU calls the function.
 *
 * Jump optimization (CONFIG_OPTPROBES): the instructions that may run in
 * a detour buffer (stepped ones that are no landing pad) must become a
 * branch once the optimizer ran, everything else must stay a BRK, and
 * the optimized probe must compute the same results and show handlers
 * the same registers; the sysctl takes branches out and puts them back.
 */
#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/ftrace.h>
#include <linux/kprobes.h>
#include <linux/kthread.h>
#include <linux/limits.h>
#include <linux/vmalloc.h>

#include <asm/insn.h>

#include "kprobes_kunit.h"

struct kpa_case {
	const char *name;
	kpa_fn_t fn;
	void *site;
};

#define KPA_CASE(n)	{ #n, kpa_##n, kpa_##n##_site }

static const struct kpa_case kpa_cases[] = {
	KPA_CASE(b), KPA_CASE(bl),
	KPA_CASE(bcond_eq), KPA_CASE(bcond_ne), KPA_CASE(bcond_cs),
	KPA_CASE(bcond_cc), KPA_CASE(bcond_mi), KPA_CASE(bcond_pl),
	KPA_CASE(bcond_vs), KPA_CASE(bcond_vc), KPA_CASE(bcond_hi),
	KPA_CASE(bcond_ls), KPA_CASE(bcond_ge), KPA_CASE(bcond_lt),
	KPA_CASE(bcond_gt), KPA_CASE(bcond_le), KPA_CASE(bcond_al),
	KPA_CASE(cbz_x), KPA_CASE(cbnz_x), KPA_CASE(cbz_w), KPA_CASE(cbnz_w),
	KPA_CASE(tbz_3), KPA_CASE(tbnz_3), KPA_CASE(tbz_40), KPA_CASE(tbnz_63),
	KPA_CASE(adr), KPA_CASE(adr_back), KPA_CASE(adrp),
	KPA_CASE(ldr_x), KPA_CASE(ldr_w), KPA_CASE(ldrsw), KPA_CASE(prfm),
	KPA_CASE(br), KPA_CASE(blr), KPA_CASE(ret),
	KPA_CASE(nop), { "bti", kpa_bti, kpa_bti },
	KPA_CASE(pac), { "aut", kpa_pac, kpa_aut_site },
	KPA_CASE(add), KPA_CASE(sp),
};

/* Inputs: equal, ordered both ways signed and unsigned, overflowing. */
static const long kpa_inputs[][2] = {
	{ 0, 0 }, { 1, 2 }, { 2, 1 }, { -1, 1 }, { 1, -1 },
	{ LONG_MIN, 1 }, { LONG_MAX, -1 }, { 0x100000000L, 0 },
	{ 8, 0 }, { 1L << 40, 0 }, { 0x80000001L, 7 }, { -8, -8 },
};

static struct {
	unsigned int pre, post;
	unsigned long post_pc;
} kpa_hits;

static int kpa_pre(struct kprobe *p, struct pt_regs *regs)
{
	kpa_hits.pre++;
	return 0;
}

static void kpa_post(struct kprobe *p, struct pt_regs *regs,
		     unsigned long flags)
{
	kpa_hits.post++;
	kpa_hits.post_pc = instruction_pointer(regs);
}

/* Run @c on every input with a probe (post_handler or not) and compare. */
static void kpa_run_case(struct kunit *test, const struct kpa_case *c,
			 bool post)
{
	long want[ARRAY_SIZE(kpa_inputs)];
	struct kprobe kp = {
		.addr = (kprobe_opcode_t *)c->site,
		.pre_handler = kpa_pre,
		.post_handler = post ? kpa_post : NULL,
	};
	unsigned int i;
	long got;
	int ret;

	for (i = 0; i < ARRAY_SIZE(kpa_inputs); i++)
		want[i] = c->fn(kpa_inputs[i][0], kpa_inputs[i][1]);

	ret = register_kprobe(&kp);
	KUNIT_ASSERT_EQ_MSG(test, ret, 0, "%s: register_kprobe", c->name);
	for (i = 0; i < ARRAY_SIZE(kpa_inputs); i++) {
		memset(&kpa_hits, 0, sizeof(kpa_hits));
		got = c->fn(kpa_inputs[i][0], kpa_inputs[i][1]);
		KUNIT_EXPECT_EQ_MSG(test, got, want[i], "%s(%ld, %ld)%s",
				    c->name, kpa_inputs[i][0], kpa_inputs[i][1],
				    post ? " with post_handler" : "");
		KUNIT_EXPECT_EQ_MSG(test, kpa_hits.pre, 1, "%s", c->name);
		KUNIT_EXPECT_EQ_MSG(test, kpa_hits.post, post ? 1 : 0, "%s",
				    c->name);
	}
	unregister_kprobe(&kp);

	/* Unregistered: the text is back, the handlers are not called. */
	memset(&kpa_hits, 0, sizeof(kpa_hits));
	got = c->fn(kpa_inputs[0][0], kpa_inputs[0][1]);
	KUNIT_EXPECT_EQ(test, got, want[0]);
	KUNIT_EXPECT_EQ(test, kpa_hits.pre, 0);
}

static void kpa_case_desc(const struct kpa_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(kpa_case, kpa_cases, kpa_case_desc);

static void kpa_test_pre_only(struct kunit *test)
{
	kpa_run_case(test, test->param_value, false);
}

static void kpa_test_with_post(struct kunit *test)
{
	kpa_run_case(test, test->param_value, true);
}

/* The post_handler sees the pc after the instruction (stepped case). */
static void kpa_test_post_pc(struct kunit *test)
{
	struct kprobe kp = {
		.addr = (kprobe_opcode_t *)kpa_add_site,
		.pre_handler = kpa_pre,
		.post_handler = kpa_post,
	};

	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	memset(&kpa_hits, 0, sizeof(kpa_hits));
	KUNIT_EXPECT_EQ(test, kpa_add(40, 2), 42);
	KUNIT_EXPECT_EQ(test, kpa_hits.post_pc,
			(unsigned long)kpa_add_site + AARCH64_INSN_SIZE);
	unregister_kprobe(&kp);

	/* A simulated branch: the post_handler sees its target. */
	kp = (struct kprobe){
		.addr = (kprobe_opcode_t *)kpa_b_site,
		.pre_handler = kpa_pre,
		.post_handler = kpa_post,
	};
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	memset(&kpa_hits, 0, sizeof(kpa_hits));
	KUNIT_EXPECT_EQ(test, kpa_b(0, 0), 2);
	/* "b 1f; mov x0, #1; ret; 1:" */
	KUNIT_EXPECT_EQ(test, kpa_hits.post_pc,
			(unsigned long)kpa_b_site + 3 * AARCH64_INSN_SIZE);
	unregister_kprobe(&kp);
}

struct kpa_refusal {
	const char *name;
	void *site;
	int err;
};

static void kpa_test_refusals(struct kunit *test)
{
	const struct kpa_refusal refusals[] = {
		{ "svc", kpa_svc_site, -EOPNOTSUPP },
		{ "hvc", kpa_hvc_site, -EOPNOTSUPP },
		{ "brk", kpa_brk_site, -EOPNOTSUPP },
		{ "eret", kpa_eret_site, -EOPNOTSUPP },
		{ "msr daifset", kpa_daifset_site, -EOPNOTSUPP },
		{ "msr daif", kpa_msr_daif_site, -EOPNOTSUPP },
		{ "mrs elr_el1", kpa_mrs_elr_site, -EOPNOTSUPP },
		{ "mrs elr_el2", kpa_mrs_elr_el2_site, -EOPNOTSUPP },
		{ "msr spsr_el2", kpa_msr_spsr_el2_site, -EOPNOTSUPP },
		{ "retaa", kpa_retaa_site, -EOPNOTSUPP },
		{ "braa", kpa_braa_site, -EOPNOTSUPP },
		{ "ldr q literal", kpa_ldr_q_site, -EOPNOTSUPP },
		{ "udf", kpa_udf_site, -EOPNOTSUPP },
		{ "ldxr", (void *)kpa_excl_sites[0], -EOPNOTSUPP },
		{ "inside ldxr/stxr", (void *)kpa_excl_sites[1], -EOPNOTSUPP },
		{ "stxr", (void *)kpa_excl_sites[2], -EOPNOTSUPP },
		{ "misaligned", kpa_add_site + 2, -EILSEQ },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(refusals); i++) {
		struct kprobe kp = {
			.addr = (kprobe_opcode_t *)refusals[i].site,
			.pre_handler = kpa_pre,
		};
		int ret = register_kprobe(&kp);

		KUNIT_EXPECT_EQ_MSG(test, ret, refusals[i].err, "%s",
				    refusals[i].name);
		if (!ret)
			unregister_kprobe(&kp);
	}
}

/* After the exclusive sequence a probe is fine. */
static void kpa_test_after_exclusive(struct kunit *test)
{
	struct kprobe kp = {
		.addr = (kprobe_opcode_t *)kpa_excl_sites[3],
		.pre_handler = kpa_pre,
	};
	long v = 41;

	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	memset(&kpa_hits, 0, sizeof(kpa_hits));
	KUNIT_EXPECT_EQ(test, kpa_excl(&v, 0), 42);
	KUNIT_EXPECT_EQ(test, v, 42);
	KUNIT_EXPECT_EQ(test, kpa_hits.pre, 1);
	unregister_kprobe(&kp);
}

/*
 * Reentry.  This CPU is put in a reentry faked in its kprobe_ctlblk:
 * kpa_outer[0] in its handlers, each kpa_outer[i] hit inside
 * kpa_outer[i - 1] and stepping its copy.  None of them is registered:
 * their step BRKs are never taken.  The depth is read from the control
 * block, so that the suite says what a one-level stack does too.
 */
#define KPA_LEVELS	ARRAY_SIZE(((struct kprobe_ctlblk *)NULL)->outer)

static struct kprobe kpa_outer[KPA_LEVELS + 1];

/* PSTATE.I and F saved at level @i: not the same at two levels in a row. */
static unsigned long kpa_level_flags(unsigned int i)
{
	return (i & 1 ? PSR_I_BIT : 0) | (i & 2 ? PSR_F_BIT : 0);
}

/* Make kpa_outer[@levels] the running probe, @levels reentries deep. */
static void kpa_fake_levels(struct kprobe_ctlblk *kcb, unsigned int levels)
{
	unsigned int i;

	for (i = 0; i < levels; i++) {
		kcb->outer[i].kp = &kpa_outer[i];
		kcb->outer[i].status = i ? KPROBE_REENTER : KPROBE_HIT_ACTIVE;
		kcb->outer[i].saved_flags = kpa_level_flags(i);
	}
	kcb->nr_outer = levels;
	kcb->kprobe_status = KPROBE_REENTER;
	kcb->saved_flags = kpa_level_flags(levels);
	__this_cpu_write(current_kprobe, &kpa_outer[levels]);
}

/* This CPU's reentry state, as the probed code left it. */
struct kpa_levels {
	struct kprobe_ctlblk kcb;
	struct kprobe *running;
	bool irqs_off;
};

static void kpa_save_levels(struct kpa_levels *l)
{
	l->kcb = *get_kprobe_ctlblk();
	l->running = kprobe_running();
	l->irqs_off = irqs_disabled();
}

/*
 * Run @c on every input into @got[], @levels deep in a faked reentry and
 * with interrupts off, as in a stepping slot, then give this CPU its own
 * state back.  Return: false, having run nothing, if a probe was
 * running on this CPU.
 */
static bool kpa_run_reentered(const struct kpa_case *c, unsigned int levels,
			      long *got, struct kpa_levels *before,
			      struct kpa_levels *after)
{
	struct kprobe_ctlblk *kcb, own;
	unsigned long flags;
	bool ran = false;
	unsigned int i;

	local_irq_save(flags);
	kcb = get_kprobe_ctlblk();
	if (!kprobe_running()) {
		own = *kcb;
		kpa_fake_levels(kcb, levels);
		kpa_save_levels(before);
		for (i = 0; i < ARRAY_SIZE(kpa_inputs); i++)
			got[i] = c->fn(kpa_inputs[i][0], kpa_inputs[i][1]);
		kpa_save_levels(after);
		*kcb = own;
		__this_cpu_write(current_kprobe, NULL);
		ran = true;
	}
	local_irq_restore(flags);
	return ran;
}

/*
 * A probe on @c, hit with @levels faked: every result right, every hit
 * missed, no handler called, and the faked levels given back as they
 * were.  With every level in use (@full), an instruction that must be
 * stepped cannot run (kp_reenter() stops): skipped there.
 */
static void kpa_reentry_at(struct kunit *test, const struct kpa_case *c,
			   unsigned int levels, bool full)
{
	long want[ARRAY_SIZE(kpa_inputs)], got[ARRAY_SIZE(kpa_inputs)] = {};
	struct kprobe kp = {
		.addr = (kprobe_opcode_t *)c->site,
		.pre_handler = kpa_pre,
		.post_handler = kpa_post,
	};
	struct kpa_levels before, after;
	unsigned int i;
	bool ran;

	for (i = 0; i < ARRAY_SIZE(kpa_inputs); i++)
		want[i] = c->fn(kpa_inputs[i][0], kpa_inputs[i][1]);
	KUNIT_ASSERT_EQ_MSG(test, register_kprobe(&kp), 0, "%s", c->name);
	if (full && !kp.ainsn.simulate && !kp.ainsn.boost) {
		unregister_kprobe(&kp);
		kunit_skip(test, "%s must be stepped, and no level is left to step it",
			   c->name);
	}
	memset(&kpa_hits, 0, sizeof(kpa_hits));
	ran = kpa_run_reentered(c, levels, got, &before, &after);
	unregister_kprobe(&kp);

	KUNIT_ASSERT_TRUE_MSG(test, ran, "a probe was running on this CPU");
	for (i = 0; i < ARRAY_SIZE(kpa_inputs); i++)
		KUNIT_EXPECT_EQ_MSG(test, got[i], want[i], "%s(%ld, %ld), %u levels",
				    c->name, kpa_inputs[i][0], kpa_inputs[i][1],
				    levels);
	KUNIT_EXPECT_EQ(test, kp.nmissed, (unsigned long)ARRAY_SIZE(kpa_inputs));
	KUNIT_EXPECT_EQ(test, kpa_hits.pre, 0);
	KUNIT_EXPECT_EQ(test, kpa_hits.post, 0);
	KUNIT_EXPECT_TRUE(test, after.irqs_off);
	KUNIT_EXPECT_PTR_EQ(test, after.running, before.running);
	KUNIT_EXPECT_EQ(test, after.kcb.kprobe_status, before.kcb.kprobe_status);
	KUNIT_EXPECT_EQ(test, after.kcb.saved_flags, before.kcb.saved_flags);
	KUNIT_ASSERT_EQ(test, after.kcb.nr_outer, before.kcb.nr_outer);
	for (i = 0; i < before.kcb.nr_outer; i++) {
		KUNIT_EXPECT_PTR_EQ_MSG(test, after.kcb.outer[i].kp,
					before.kcb.outer[i].kp, "level %u", i);
		KUNIT_EXPECT_EQ_MSG(test, after.kcb.outer[i].status,
				    before.kcb.outer[i].status, "level %u", i);
		KUNIT_EXPECT_EQ_MSG(test, after.kcb.outer[i].saved_flags,
				    before.kcb.outer[i].saved_flags, "level %u", i);
	}
}

/* Simulated (b, a literal load) and stepped (add, an sp-relative load). */
static const struct kpa_case kpa_reentry_cases[] = {
	KPA_CASE(b), KPA_CASE(ldr_x), KPA_CASE(add), KPA_CASE(sp),
};

KUNIT_ARRAY_PARAM(kpa_reentry, kpa_reentry_cases, kpa_case_desc);

/*
 * A hit on a reentered probe's copy (a watchpoint hit by the copy of a
 * probe that an IRQ hit inside an ftrace-path handler) and at every
 * deeper level that can still be pushed: the second level always, even
 * on a one-level stack, where a stepped instruction stops the kernel.
 */
static void kpa_test_reentry_completes_at_every_level(struct kunit *test)
{
	unsigned int levels, top = max_t(unsigned int, KPA_LEVELS - 1, 1);

	for (levels = 1; levels <= top; levels++)
		kpa_reentry_at(test, test->param_value, levels, false);
}

/* Every level in use: the hit runs detached, the levels untouched. */
static void kpa_test_reentry_past_deepest_runs_detached(struct kunit *test)
{
	kpa_reentry_at(test, test->param_value, KPA_LEVELS, true);
}

/* Function entries, through a BRK and through ftrace. */

/* A C function, so that it has an ftrace call site. */
noinline long kpa_ftrace_entry(long a, long b)
{
	return a * 3 + b;
}

/* Called through a pointer the compiler cannot see through: no inlining. */
static long kpa_ftrace_fn(long a, long b)
{
	long (*fn)(long a, long b) = kpa_ftrace_entry;

	OPTIMIZER_HIDE_VAR(fn);
	return fn(a, b);
}

static struct {
	struct kpa_expect want;
	struct pt_regs pre, post;
	unsigned int npre, npost;
} kpa_seen;

static int kpa_seen_pre(struct kprobe *p, struct pt_regs *regs)
{
	kpa_seen.pre = *regs;
	kpa_seen.npre++;
	return 0;
}

static void kpa_seen_post(struct kprobe *p, struct pt_regs *regs,
			  unsigned long flags)
{
	kpa_seen.post = *regs;
	kpa_seen.npost++;
}

/* The registers of the handlers' contract, as kpa_call_probed() set them. */
static void kpa_check_entry_regs(struct kunit *test, const struct pt_regs *regs,
				 unsigned long pc, const char *path)
{
	unsigned int i;

	for (i = 0; i <= 8; i++)
		KUNIT_EXPECT_EQ_MSG(test, regs->regs[i], (u64)KPA_REG(i),
				    "%s: x%u", path, i);
	KUNIT_EXPECT_EQ_MSG(test, regs->regs[29], kpa_seen.want.fp, "%s: fp",
			    path);
	KUNIT_EXPECT_EQ_MSG(test, regs->regs[30], kpa_seen.want.lr, "%s: lr",
			    path);
	KUNIT_EXPECT_EQ_MSG(test, regs->sp, kpa_seen.want.sp, "%s: sp", path);
	KUNIT_EXPECT_EQ_MSG(test, regs->pc, (u64)pc, "%s: pc", path);
	KUNIT_EXPECT_EQ_MSG(test, regs->pstate & PSR_MODE_MASK,
			    (u64)PSR_MODE_EL1h, "%s: pstate", path);
}

static void kpa_skip_without_ftrace(struct kunit *test)
{
	if (!IS_ENABLED(CONFIG_KPROBES_ON_FTRACE))
		kunit_skip(test, "no CONFIG_KPROBES_ON_FTRACE");
	if (!ftrace_location((unsigned long)kpa_ftrace_entry))
		kunit_skip(test, "kpa_ftrace_entry has no ftrace call site");
}

/*
 * The two words before a traced function hold its ftrace ops (CALL_OPS):
 * data that ftrace rewrites, refused as not an instruction.
 */
static void kpa_test_ftrace_literal(struct kunit *test)
{
	unsigned long site, literal;
	unsigned int i;

	if (!IS_ENABLED(CONFIG_DYNAMIC_FTRACE_WITH_CALL_OPS))
		kunit_skip(test, "no CONFIG_DYNAMIC_FTRACE_WITH_CALL_OPS");
	site = ftrace_location((unsigned long)kpa_ftrace_entry);
	if (!site)
		kunit_skip(test, "kpa_ftrace_entry has no ftrace call site");
	literal = ALIGN_DOWN(site - 12, 8);
	for (i = 0; i < 2; i++) {
		struct kprobe kp = {
			.addr = (kprobe_opcode_t *)(literal + i * AARCH64_INSN_SIZE),
			.pre_handler = kpa_pre,
		};
		int ret = register_kprobe(&kp);

		KUNIT_EXPECT_EQ_MSG(test, ret, -EILSEQ, "literal word %u", i);
		if (!ret)
			unregister_kprobe(&kp);
	}
}

/* Handlers at an entry see the same registers on both paths. */
static void kpa_test_entry_regs(struct kunit *test)
{
	struct kprobe kp = {
		.symbol_name = "kpa_brk_entry",
		.pre_handler = kpa_seen_pre,
		.post_handler = kpa_seen_post,
	};
	unsigned long site;
	long ret;

	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	KUNIT_EXPECT_PTR_EQ(test, (void *)kp.addr, (void *)kpa_brk_entry);
	KUNIT_EXPECT_FALSE(test, kp.flags & KPROBE_FLAG_FTRACE);
	memset(&kpa_seen, 0, sizeof(kpa_seen));
	ret = kpa_call_probed(kpa_brk_entry, &kpa_seen.want);
	unregister_kprobe(&kp);
	KUNIT_EXPECT_EQ(test, ret, (long)(KPA_REG(0) + KPA_REG(1)));
	KUNIT_ASSERT_EQ(test, kpa_seen.npre, 1);
	kpa_check_entry_regs(test, &kpa_seen.pre, (unsigned long)kp.addr,
			     "BRK");

	kpa_skip_without_ftrace(test);
	site = ftrace_location((unsigned long)kpa_ftrace_entry);
	kp = (struct kprobe){
		.symbol_name = "kpa_ftrace_entry",
		.pre_handler = kpa_seen_pre,
		.post_handler = kpa_seen_post,
	};
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	KUNIT_EXPECT_EQ(test, (unsigned long)kp.addr, site);
	KUNIT_EXPECT_TRUE(test, kp.flags & KPROBE_FLAG_FTRACE);
	KUNIT_EXPECT_TRUE(test, kp.flags & KPROBE_FLAG_ON_FUNC_ENTRY);
	memset(&kpa_seen, 0, sizeof(kpa_seen));
	ret = kpa_call_probed(kpa_ftrace_entry, &kpa_seen.want);
	unregister_kprobe(&kp);
	KUNIT_EXPECT_EQ(test, ret, (long)(KPA_REG(0) * 3 + KPA_REG(1)));
	KUNIT_ASSERT_EQ(test, kpa_seen.npre, 1);
	KUNIT_ASSERT_EQ(test, kpa_seen.npost, 1);
	kpa_check_entry_regs(test, &kpa_seen.pre, site, "ftrace pre");
	/* The mov before the site has copied the link register. */
	KUNIT_EXPECT_EQ(test, kpa_seen.pre.regs[9], kpa_seen.want.lr);
	kpa_check_entry_regs(test, &kpa_seen.post, site + AARCH64_INSN_SIZE,
			     "ftrace post");

	/* The site's own offset names the same probe; the mov does not. */
	kp = (struct kprobe){
		.symbol_name = "kpa_ftrace_entry",
		.offset = site - (unsigned long)kpa_ftrace_entry,
		.pre_handler = kpa_seen_pre,
	};
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	KUNIT_EXPECT_EQ(test, (unsigned long)kp.addr, site);
	KUNIT_EXPECT_TRUE(test, kp.flags & KPROBE_FLAG_FTRACE);
	unregister_kprobe(&kp);
}

static int kpa_change_args(struct kprobe *p, struct pt_regs *regs)
{
	regs->regs[1] = 100;
	return 0;
}

/* Return 42 from the probed function without running it. */
static int kpa_override(struct kprobe *p, struct pt_regs *regs)
{
	regs->regs[0] = 42;
	instruction_pointer_set(regs, procedure_link_pointer(regs));
	return 1;
}

/* What a handler writes to the registers takes effect on the ftrace path. */
static void kpa_test_ftrace_writes(struct kunit *test)
{
	struct kprobe kp = {
		.symbol_name = "kpa_ftrace_entry",
		.pre_handler = kpa_change_args,
	};

	kpa_skip_without_ftrace(test);
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	KUNIT_EXPECT_EQ(test, kpa_ftrace_fn(1, 2), 103L);
	unregister_kprobe(&kp);

	kp = (struct kprobe){
		.symbol_name = "kpa_ftrace_entry",
		.pre_handler = kpa_override,
	};
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	KUNIT_EXPECT_EQ(test, kpa_ftrace_fn(1, 2), 42L);
	unregister_kprobe(&kp);
	KUNIT_EXPECT_EQ(test, kpa_ftrace_fn(1, 2), 5L);
}

static struct {
	long arg0, retval;
	unsigned int entries, returns;
} kpa_rp_seen;

static int kpa_rp_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	kpa_rp_seen.arg0 = regs->regs[0];
	kpa_rp_seen.entries++;
	return 0;
}

static int kpa_rp_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	kpa_rp_seen.retval = regs_return_value(regs);
	kpa_rp_seen.returns++;
	return 0;
}

#ifdef CONFIG_JPROBES
static long kpa_jp_args[2];

static long kpa_jp_handler(long a, long b)
{
	kpa_jp_args[0] = a;
	kpa_jp_args[1] = b;
	return 0;
}
#endif

/* kretprobes and jprobes at an ftrace entry ride the ftrace path. */
static void kpa_test_ftrace_users(struct kunit *test)
{
	struct kretprobe rp = {
		.kp.symbol_name = "kpa_ftrace_entry",
		.entry_handler = kpa_rp_entry,
		.handler = kpa_rp_ret,
	};

	kpa_skip_without_ftrace(test);
	KUNIT_ASSERT_EQ(test, register_kretprobe(&rp), 0);
	KUNIT_EXPECT_TRUE(test, rp.kp.flags & KPROBE_FLAG_FTRACE);
	memset(&kpa_rp_seen, 0, sizeof(kpa_rp_seen));
	KUNIT_EXPECT_EQ(test, kpa_ftrace_fn(5, 6), 21L);
	KUNIT_EXPECT_EQ(test, kpa_ftrace_fn(7, 1), 22L);
	unregister_kretprobe(&rp);
	KUNIT_EXPECT_EQ(test, kpa_rp_seen.entries, 2);
	KUNIT_EXPECT_EQ(test, kpa_rp_seen.returns, 2);
	KUNIT_EXPECT_EQ(test, kpa_rp_seen.arg0, 7L);
	KUNIT_EXPECT_EQ(test, kpa_rp_seen.retval, 22L);
	KUNIT_EXPECT_EQ(test, rp.nmissed, 0);

#ifdef CONFIG_JPROBES
	{
		struct jprobe jp = {
			.kp.symbol_name = "kpa_ftrace_entry",
			.entry = JPROBE_ENTRY(kpa_jp_handler),
		};

		KUNIT_ASSERT_EQ(test, register_jprobe(&jp), 0);
		KUNIT_EXPECT_TRUE(test, jp.kp.flags & KPROBE_FLAG_FTRACE);
		memset(kpa_jp_args, 0, sizeof(kpa_jp_args));
		KUNIT_EXPECT_EQ(test, kpa_ftrace_fn(8, 9), 33L);
		unregister_jprobe(&jp);
		KUNIT_EXPECT_EQ(test, kpa_jp_args[0], 8L);
		KUNIT_EXPECT_EQ(test, kpa_jp_args[1], 9L);
	}
#endif
}

static atomic_t kpa_hammer_hits, kpa_hammer_bad;

static int kpa_hammer_pre(struct kprobe *p, struct pt_regs *regs)
{
	if (regs->regs[0] != 3 || regs->regs[1] != 4 ||
	    regs->pc != (unsigned long)p->addr)
		atomic_inc(&kpa_hammer_bad);
	atomic_inc(&kpa_hammer_hits);
	return 0;
}

/* What the hammer calls: 3 and 4 in, @kpa_hammer_want out. */
static long (*kpa_hammer_fn)(long a, long b);
static long kpa_hammer_want;

static int kpa_hammer(void *unused)
{
	while (!kthread_should_stop()) {
		if (kpa_hammer_fn(3, 4) != kpa_hammer_want)
			atomic_inc(&kpa_hammer_bad);
		/* The optimizer waits for RCU tasks: give it a quiescent state. */
		cond_resched_tasks_rcu_qs();
	}
	return 0;
}

static void kpa_stop_hammer(void *tsk)
{
	kthread_stop(tsk);
}

#define KPA_HAMMER_ROUNDS	20

static bool kpa_optimized(struct kprobe *kp);

/*
 * Register and unregister a probe at @addr while another CPU keeps
 * calling it; with @opt, wait each round until the probe is a branch.
 */
static void kpa_unregister_while_hit(struct kunit *test, void *addr, bool opt)
{
	struct task_struct *tsk;
	int round, i, before;
	unsigned int cpu;

	cpu = cpumask_any_but(cpu_online_mask, raw_smp_processor_id());
	if (cpu >= nr_cpu_ids)
		kunit_skip(test, "needs a second CPU");
	atomic_set(&kpa_hammer_hits, 0);
	atomic_set(&kpa_hammer_bad, 0);
	tsk = kthread_create(kpa_hammer, NULL, "kpa_hammer");
	KUNIT_ASSERT_FALSE(test, IS_ERR(tsk));
	kthread_bind(tsk, cpu);
	wake_up_process(tsk);
	KUNIT_ASSERT_EQ(test,
			kunit_add_action_or_reset(test, kpa_stop_hammer, tsk),
			0);

	for (round = 0; round < KPA_HAMMER_ROUNDS; round++) {
		struct kprobe kp = {
			.addr = addr,
			.pre_handler = kpa_hammer_pre,
			/* Odd rounds: the IPMODIFY ops, or no optimization. */
			.post_handler = round & 1 ? kpa_seen_post : NULL,
		};

		KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
		if (opt) {
			wait_for_kprobe_optimizer();
			KUNIT_EXPECT_EQ(test, kpa_optimized(&kp),
					!(round & 1));
		}
		before = atomic_read(&kpa_hammer_hits);
		for (i = 0; i < 250 && atomic_read(&kpa_hammer_hits) - before < 10;
		     i++)
			msleep(20);
		KUNIT_EXPECT_GE(test, atomic_read(&kpa_hammer_hits) - before, 10);
		unregister_kprobe(&kp);
		/* Once unregister_kprobe() has returned, no handler runs. */
		before = atomic_read(&kpa_hammer_hits);
		msleep(20);
		KUNIT_EXPECT_EQ(test, atomic_read(&kpa_hammer_hits), before);
	}
	kunit_release_action(test, kpa_stop_hammer, tsk);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpa_hammer_bad), 0);
}

static void kpa_test_ftrace_unregister_while_hit(struct kunit *test)
{
	kpa_skip_without_ftrace(test);
	kpa_hammer_fn = kpa_ftrace_fn;
	kpa_hammer_want = 13;
	kpa_unregister_while_hit(test, kpa_ftrace_entry, false);
}

/* Jump optimization. */

#if defined(CONFIG_OPTPROBES) && defined(CONFIG_SYSCTL)
static int kpa_opt_sysctl(int val)
{
	char buf[8];
	size_t len = scnprintf(buf, sizeof(buf), "%d\n", val);
	loff_t pos = 0;

	return proc_kprobes_optimization_handler(NULL, 1, buf, &len, &pos);
}
#else
static int kpa_opt_sysctl(int val)
{
	return -EOPNOTSUPP;
}
#endif

static u32 kpa_text(void *addr)
{
	return le32_to_cpu(READ_ONCE(*(__le32 *)addr));
}

/* Whether the site of @kp is (queued to be) a branch. */
static bool kpa_optimized(struct kprobe *kp)
{
	struct kprobe *site;
	bool opt = false;

	preempt_disable();
	site = get_kprobe(kp->addr);
	if (site)
		opt = kprobe_optimized(site);
	preempt_enable();
	return opt;
}

/* The classes a detour may run: stepped, and not a landing pad. */
static bool kpa_case_optimizable(const struct kpa_case *c)
{
	return !strcmp(c->name, "add") || !strcmp(c->name, "sp") ||
	       !strcmp(c->name, "aut");
}

/* Every class: a branch where it may be, a BRK elsewhere; same results. */
static void kpa_test_opt_classes(struct kunit *test)
{
	const struct kpa_case *c = test->param_value;
	long want[ARRAY_SIZE(kpa_inputs)];
	struct kprobe kp = {
		.addr = (kprobe_opcode_t *)c->site,
		.pre_handler = kpa_pre,
	};
	u32 orig = kpa_text(c->site);
	bool opt = kpa_case_optimizable(c);
	unsigned int i;

	if (!IS_ENABLED(CONFIG_OPTPROBES))
		kunit_skip(test, "no CONFIG_OPTPROBES");
	for (i = 0; i < ARRAY_SIZE(kpa_inputs); i++)
		want[i] = c->fn(kpa_inputs[i][0], kpa_inputs[i][1]);

	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	wait_for_kprobe_optimizer();
	KUNIT_EXPECT_EQ_MSG(test, kpa_optimized(&kp), opt, "%s", c->name);
	KUNIT_EXPECT_EQ_MSG(test, aarch64_insn_is_b(kpa_text(c->site)), opt,
			    "%s: text %08x", c->name, kpa_text(c->site));
	for (i = 0; i < ARRAY_SIZE(kpa_inputs); i++) {
		memset(&kpa_hits, 0, sizeof(kpa_hits));
		KUNIT_EXPECT_EQ_MSG(test,
				    c->fn(kpa_inputs[i][0], kpa_inputs[i][1]),
				    want[i], "%s(%ld, %ld)", c->name,
				    kpa_inputs[i][0], kpa_inputs[i][1]);
		KUNIT_EXPECT_EQ_MSG(test, kpa_hits.pre, 1, "%s", c->name);
	}
	unregister_kprobe(&kp);
	/* The branch goes back to a BRK asynchronously, then the BRK goes. */
	wait_for_kprobe_optimizer();
	KUNIT_EXPECT_EQ_MSG(test, kpa_text(c->site), orig, "%s", c->name);
}

/*
 * An optimized probe shows the handlers what a BRK does; the sysctl
 * turns it back into a BRK and into a branch again.
 */
static void kpa_test_opt_regs(struct kunit *test)
{
	struct kprobe kp = {
		.addr = (kprobe_opcode_t *)kpa_opt_site,
		.pre_handler = kpa_seen_pre,
	};
	void *site = kpa_opt_site;
	int round;

	if (!IS_ENABLED(CONFIG_OPTPROBES))
		kunit_skip(test, "no CONFIG_OPTPROBES");
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	for (round = 0; round < 3; round++) {
		bool opt = round != 1;
		long ret;

		KUNIT_ASSERT_EQ(test, kpa_opt_sysctl(opt), 0);
		wait_for_kprobe_optimizer();
		KUNIT_EXPECT_EQ(test, kpa_optimized(&kp), opt);
		KUNIT_EXPECT_EQ(test, aarch64_insn_is_b(kpa_text(site)), opt);
		KUNIT_EXPECT_EQ(test, kpa_text(site) == BRK64_OPCODE_KPROBES,
				!opt);
		memset(&kpa_seen, 0, sizeof(kpa_seen));
		ret = kpa_call_probed(kpa_brk_entry, &kpa_seen.want);
		KUNIT_EXPECT_EQ(test, ret, (long)(KPA_REG(0) + KPA_REG(1)));
		KUNIT_ASSERT_EQ(test, kpa_seen.npre, 1);
		kpa_check_entry_regs(test, &kpa_seen.pre,
				     (unsigned long)kp.addr,
				     opt ? "optimized" : "BRK");
	}
	unregister_kprobe(&kp);
}

static long kpa_extable_value = 42;

/* A post_handler keeps the probe a BRK; so does an exception table entry. */
static void kpa_test_opt_post_stays_brk(struct kunit *test)
{
	struct kprobe kp = {
		.addr = (kprobe_opcode_t *)kpa_add_site,
		.pre_handler = kpa_pre,
		.post_handler = kpa_post,
	};

	if (!IS_ENABLED(CONFIG_OPTPROBES))
		kunit_skip(test, "no CONFIG_OPTPROBES");
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	wait_for_kprobe_optimizer();
	KUNIT_EXPECT_FALSE(test, kpa_optimized(&kp));
	KUNIT_EXPECT_EQ(test, kpa_text(kpa_add_site), BRK64_OPCODE_KPROBES);
	memset(&kpa_hits, 0, sizeof(kpa_hits));
	KUNIT_EXPECT_EQ(test, kpa_add(40, 2), 42L);
	KUNIT_EXPECT_EQ(test, kpa_hits.post, 1);
	unregister_kprobe(&kp);

	kp = (struct kprobe){
		.addr = (kprobe_opcode_t *)kpa_extable_site,
		.pre_handler = kpa_pre,
	};
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	wait_for_kprobe_optimizer();
	KUNIT_EXPECT_FALSE(test, kpa_optimized(&kp));
	KUNIT_EXPECT_EQ(test, kpa_text(kpa_extable_site), BRK64_OPCODE_KPROBES);
	memset(&kpa_hits, 0, sizeof(kpa_hits));
	KUNIT_EXPECT_EQ(test, kpa_extable(&kpa_extable_value, 0), 42L);
	KUNIT_EXPECT_EQ(test, kpa_hits.pre, 1);
	unregister_kprobe(&kp);
}

/*
 * The stepped copy of an exception-table load faults on a kernel address.
 * Such a fault does not pass do_page_fault(), yet the pc must go back to
 * the original instruction for its fixup to run, and the probe be left.
 */
static void kpa_test_extable_fault(struct kunit *test)
{
	struct kprobe kp = {
		.addr = (kprobe_opcode_t *)kpa_extable_site,
		.pre_handler = kpa_pre,
	};
	long *area, *guard;

	area = vmalloc(PAGE_SIZE);
	KUNIT_ASSERT_NOT_NULL(test, area);
	/* The guard page after a vmalloc() area is never mapped. */
	guard = area + PAGE_SIZE / sizeof(*area);
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	memset(&kpa_hits, 0, sizeof(kpa_hits));
	/* The fixup returns with x0, the address, untouched. */
	KUNIT_EXPECT_EQ(test, kpa_extable(guard, 0), (long)guard);
	KUNIT_EXPECT_EQ(test, kpa_hits.pre, 1);
	KUNIT_EXPECT_EQ(test, kpa_extable(&kpa_extable_value, 0), 42L);
	KUNIT_EXPECT_EQ(test, kpa_hits.pre, 2);
	unregister_kprobe(&kp);
	vfree(area);
}

static long kpa_brk_entry_fn(long a, long b)
{
	return kpa_brk_entry(a, b);
}

static void kpa_test_opt_unregister_while_hit(struct kunit *test)
{
	if (!IS_ENABLED(CONFIG_OPTPROBES))
		kunit_skip(test, "no CONFIG_OPTPROBES");
	kpa_hammer_fn = kpa_brk_entry_fn;
	kpa_hammer_want = 7;
	kpa_unregister_while_hit(test, kpa_opt_site, true);
}

static struct kunit_case kpa_test_cases[] = {
	KUNIT_CASE_PARAM(kpa_test_pre_only, kpa_case_gen_params),
	KUNIT_CASE_PARAM(kpa_test_with_post, kpa_case_gen_params),
	KUNIT_CASE(kpa_test_post_pc),
	KUNIT_CASE(kpa_test_refusals),
	KUNIT_CASE(kpa_test_after_exclusive),
	KUNIT_CASE_PARAM(kpa_test_reentry_completes_at_every_level,
			 kpa_reentry_gen_params),
	KUNIT_CASE_PARAM(kpa_test_reentry_past_deepest_runs_detached,
			 kpa_reentry_gen_params),
	KUNIT_CASE(kpa_test_ftrace_literal),
	KUNIT_CASE(kpa_test_entry_regs),
	KUNIT_CASE(kpa_test_ftrace_writes),
	KUNIT_CASE(kpa_test_ftrace_users),
	KUNIT_CASE_SLOW(kpa_test_ftrace_unregister_while_hit),
	KUNIT_CASE_PARAM(kpa_test_opt_classes, kpa_case_gen_params),
	KUNIT_CASE(kpa_test_opt_regs),
	KUNIT_CASE(kpa_test_opt_post_stays_brk),
	KUNIT_CASE(kpa_test_extable_fault),
	KUNIT_CASE_SLOW(kpa_test_opt_unregister_while_hit),
	{}
};

static struct kunit_suite kpa_test_suite = {
	.name = "kprobes_arm64",
	.test_cases = kpa_test_cases,
};

kunit_test_suites(&kpa_test_suite);

MODULE_DESCRIPTION("KUnit tests for the arm64 kprobes BRK and ftrace paths");
MODULE_LICENSE("GPL");
