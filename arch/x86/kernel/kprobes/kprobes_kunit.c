// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the x86 int3 path of kprobes (core.c): every kind of
 * instruction it steps, boosts or emulates, with and without a
 * post_handler, and the addresses it must refuse.
 *
 * The probed code is in kprobes_kunit_asm.S, so the instructions under
 * test do not depend on the compiler.
 */

#include <kunit/test.h>
#include <linux/kprobes.h>
#include <linux/irqflags.h>
#include <linux/kallsyms.h>
#include <linux/kernel.h>
#include <linux/string.h>
#include <asm/ibt.h>

#include "kprobes_kunit.h"
#include "kunit_sysctl.h"

/*
 * The labels are looked up by name: taking their addresses in C would
 * put references to non-ENDBR code into data, which IBT objtool rejects.
 */
static kprobe_opcode_t *kpt_addr(const char *label)
{
	return (kprobe_opcode_t *)kallsyms_lookup_name(label);
}

static int kpt_pre_hits, kpt_post_hits;
static unsigned long kpt_pre_ip, kpt_post_ip;

static int kpt_pre(struct kprobe *p, struct pt_regs *regs)
{
	kpt_pre_hits++;
	kpt_pre_ip = regs->ip;
	return 0;
}

static void kpt_post(struct kprobe *p, struct pt_regs *regs,
		     unsigned long flags)
{
	kpt_post_hits++;
	kpt_post_ip = regs->ip;
}

static long kpt_expected(long x)
{
	long v = x + 0x1000;

	return (v & 1 ? v + 3 : v) + 5;
}

static long kpt_expected2(long x)
{
	return x + 0x2020 + (x & 1 ? 3 : 5) + 0x40 + 7;
}

/* One probe point and where the CPU goes after it. */
struct kpt_point {
	const char *name;
	/* label of the probed instruction */
	const char *at;
	/* label of what runs after it, for an even / odd x */
	const char *next_even, *next_odd;
	bool emulated;
	/* only odd x reach the point */
	bool odd_only;
	/* the function to call, and what it must return */
	long (*run)(long x);
	long (*model)(long x);
};

#define KPT1(n, at, ne, no, emu)	{ n, at, ne, no, emu, false, kpt_func, kpt_expected }
#define KPT2(n, at, ne, no, emu, odd)	\
	{ n, at, ne, no, emu, odd, kpt_func2_caller, kpt_expected2 }

static const struct kpt_point kpt_points[] = {
	KPT1("push", "kpt_push", "kpt_mov", "kpt_mov", false),
	KPT1("mov", "kpt_mov", "kpt_riprel", "kpt_riprel", false),
	KPT1("riprel_add", "kpt_riprel", "kpt_test", "kpt_test", false),
	KPT1("test", "kpt_test", "kpt_jcc", "kpt_jcc", false),
	/* kpt_func tests x + 0x1000, odd for odd x */
	KPT1("jcc", "kpt_jcc", "kpt_call", "kpt_odd", true),
	KPT1("call", "kpt_call", "kpt_helper", "kpt_helper", true),
	KPT1("jmp", "kpt_jmp", "kpt_jmp_target", "kpt_jmp_target", true),
	KPT1("pop", "kpt_pop", "kpt_ret", "kpt_ret", false),
	KPT2("push_riprel", "kpt2_push_mem", "kpt2_pop", "kpt2_pop", false, false),
	KPT2("pop_rax", "kpt2_pop", "kpt2_load", "kpt2_load", false, false),
	KPT2("riprel_load", "kpt2_load", "kpt2_lea", "kpt2_lea", false, false),
	KPT2("riprel_lea", "kpt2_lea", "kpt2_load_ind", "kpt2_load_ind", false, false),
	KPT2("jcc_rel32", "kpt2_jcc32", "kpt2_even", "kpt2_odd", true, false),
	KPT2("jmp_rel32", "kpt2_jmp32", "kpt2_join", "kpt2_join", true, true),
	KPT2("call_reg", "kpt2_call_reg", "kpt_helper2", "kpt_helper2", true, false),
	KPT2("ret", "kpt2_bare_ret", "kpt2_after_call", "kpt2_after_call", true, false),
	KPT2("after_call", "kpt2_after_call", "kpt2_ret", "kpt2_ret", false, false),
	/* RET: a jmp to the return thunk, or a ret patched in at boot */
	KPT2("ret_macro", "kpt2_ret", "kpt2_back", "kpt2_back", true, false),
};

static void kpt_point_desc(const struct kpt_point *p, char *desc)
{
	strscpy(desc, p->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(kpt_point, kpt_points, kpt_point_desc);

#define KPT_RUNS	4

/*
 * Run the point's function on even and odd inputs, unprobed and under
 * @kp, and check results, handler calls and where the CPU went.
 */
static void kpt_run_point(struct kunit *test, const struct kpt_point *pt,
			  struct kprobe *kp)
{
	kprobe_opcode_t *at = kpt_addr(pt->at);
	int hits = pt->odd_only ? KPT_RUNS / 2 : KPT_RUNS;
	long x, unprobed[KPT_RUNS];

	KUNIT_ASSERT_NOT_NULL(test, at);
	KUNIT_ASSERT_PTR_EQ(test, kp->addr, at);
	for (x = 0; x < KPT_RUNS; x++) {
		unprobed[x] = pt->run(x);
		KUNIT_EXPECT_EQ(test, unprobed[x], pt->model(x));
	}
	kpt_pre_hits = 0;
	kpt_post_hits = 0;
	KUNIT_ASSERT_EQ(test, register_kprobe(kp), 0);
	for (x = 0; x < KPT_RUNS; x++) {
		const char *next = (x & 1) ? pt->next_odd : pt->next_even;

		kpt_pre_ip = 0;
		kpt_post_ip = 0;
		KUNIT_EXPECT_EQ_MSG(test, pt->run(x), unprobed[x], "x=%ld", x);
		if (pt->odd_only && !(x & 1))
			continue;
		KUNIT_EXPECT_EQ(test, kpt_pre_ip,
				(unsigned long)at + INT3_INSN_SIZE);
		if (kp->post_handler)
			KUNIT_EXPECT_EQ_MSG(test, kpt_post_ip,
					    (unsigned long)kpt_addr(next),
					    "x=%ld, expected at %s", x, next);
	}
	KUNIT_EXPECT_EQ(test, kpt_pre_hits, hits);
	KUNIT_EXPECT_EQ(test, kpt_post_hits, kp->post_handler ? hits : 0);

	if (pt->emulated) {
		KUNIT_EXPECT_NULL(test, kp->ainsn.insn);
		KUNIT_EXPECT_NULL(test, kp->ainsn.boost);
	} else {
		KUNIT_EXPECT_NOT_NULL(test, kp->ainsn.insn);
		if (!IS_ENABLED(CONFIG_PREEMPTION))
			KUNIT_EXPECT_NOT_NULL(test, kp->ainsn.boost);
	}
	unregister_kprobe(kp);

	/* Handlers never run once unregister_kprobe() returned. */
	KUNIT_EXPECT_EQ(test, pt->run(1), unprobed[1]);
	KUNIT_EXPECT_EQ(test, kpt_pre_hits, hits);
}

/* No post_handler: steppable instructions take the boost slot. */
static void instruction_runs_correctly_pre_handler_only(struct kunit *test)
{
	const struct kpt_point *pt = test->param_value;
	struct kprobe kp = { .addr = kpt_addr(pt->at), .pre_handler = kpt_pre };

	kpt_run_point(test, pt, &kp);
}

/* With a post_handler: it sees the registers right after the instruction. */
static void post_handler_sees_next_instruction(struct kunit *test)
{
	const struct kpt_point *pt = test->param_value;
	struct kprobe kp = {
		.addr = kpt_addr(pt->at),
		.pre_handler = kpt_pre,
		.post_handler = kpt_post,
	};

	kpt_run_point(test, pt, &kp);
}

/*
 * Two probes on one boostable instruction, the second with a post_handler
 * added after the first was prepared: the post_handler must still run.
 */
static void post_handler_added_later_runs(struct kunit *test)
{
	struct kprobe first = { .addr = kpt_addr("kpt_mov"), .pre_handler = kpt_pre };
	struct kprobe second = { .addr = kpt_addr("kpt_mov"),
				 .post_handler = kpt_post };

	kpt_pre_hits = 0;
	kpt_post_hits = 0;
	KUNIT_ASSERT_EQ(test, register_kprobe(&first), 0);
	KUNIT_EXPECT_EQ(test, kpt_func(2), kpt_expected(2));
	KUNIT_ASSERT_EQ(test, register_kprobe(&second), 0);
	KUNIT_EXPECT_EQ(test, kpt_func(3), kpt_expected(3));
	unregister_kprobe(&second);
	unregister_kprobe(&first);

	KUNIT_EXPECT_EQ(test, kpt_pre_hits, 2);
	KUNIT_EXPECT_EQ(test, kpt_post_hits, 1);
	KUNIT_EXPECT_EQ(test, kpt_post_ip, (unsigned long)kpt_addr("kpt_riprel"));
}

/*
 * Set debug.kprobes-optimization to @val through its handler and return
 * the value it had, or -1 where there is no optimizer (nothing to set).
 */
static int kpt_set_optimization(int val)
{
	int old;

	if (kprobes_test_opt_sysctl(false, &old) ||
	    kprobes_test_opt_sysctl(true, &val))
		return -1;
	return old;
}

/*
 * Which slot a hit runs the copy from, seen by the copy itself: it
 * reads this CPU's current_kprobe.  Boosted (pre_handler only, no
 * preemption), the probe was left before the copy runs; stepped (a
 * post_handler joined the address), the copy runs inside the probe.
 * The optimizer is off meanwhile: a jump detour also leaves the probe
 * before the copy, and would hide a boost slot that is not used.
 */
static void pre_only_hit_is_boosted_post_handler_steps(struct kunit *test)
{
	struct kprobe pre = { .addr = kpt_addr("kpt_running_load"),
			      .pre_handler = kpt_pre };
	struct kprobe post = { .addr = kpt_addr("kpt_running_load"),
			       .post_handler = kpt_post };
	bool boosts = !IS_ENABLED(CONFIG_PREEMPTION);
	int opt = kpt_set_optimization(0);

	KUNIT_ASSERT_NOT_NULL(test, pre.addr);
	KUNIT_EXPECT_EQ(test, kpt_running(), 0UL);
	kpt_pre_hits = 0;
	kpt_post_hits = 0;
	KUNIT_ASSERT_EQ(test, register_kprobe(&pre), 0);
	KUNIT_EXPECT_EQ(test, kpt_running() != 0, !boosts);
	KUNIT_ASSERT_EQ(test, register_kprobe(&post), 0);
	KUNIT_EXPECT_NE(test, kpt_running(), 0UL);
	unregister_kprobe(&post);
	KUNIT_EXPECT_EQ(test, kpt_running() != 0, !boosts);
	unregister_kprobe(&pre);
	if (opt >= 0)
		kpt_set_optimization(opt);
	KUNIT_EXPECT_EQ(test, kpt_running(), 0UL);
	KUNIT_EXPECT_EQ(test, kpt_pre_hits, 3);
	KUNIT_EXPECT_EQ(test, kpt_post_hits, 1);
}

/*
 * A second level of reentry: a hit while the copy of a reentered probe
 * runs (from an NMI or a debug trap in real life).  The test puts this
 * CPU in that state (a current probe with status KPROBE_REENTER),
 * interrupts off as in a stepping slot, and runs the probed code: the
 * hit is counted as missed, no handler runs, the instruction completes
 * (emulated or boosted) and the interrupted probe's state is intact.
 */
static void second_reentry_runs_detached(struct kunit *test)
{
	const struct kpt_point *pt = test->param_value;
	struct kprobe kp = {
		.addr = kpt_addr(pt->at),
		.pre_handler = kpt_pre,
		.post_handler = kpt_post,
	};
	struct kprobe reentered = { .addr = kpt_addr("kpt_loop") };
	struct kprobe_ctlblk *kcb;
	unsigned long flags, status_after;
	struct kprobe *running_before, *running_after;
	long x, got[KPT_RUNS] = {};
	int hits = pt->odd_only ? KPT_RUNS / 2 : KPT_RUNS;

	KUNIT_ASSERT_NOT_NULL(test, kp.addr);
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	if (!pt->emulated && !kp.ainsn.boost) {
		unregister_kprobe(&kp);
		kunit_skip(test, "no boost slot (preemptible kernel): must stop");
	}
	kpt_pre_hits = 0;
	kpt_post_hits = 0;

	local_irq_save(flags);
	kcb = get_kprobe_ctlblk();
	running_before = kprobe_running();
	running_after = NULL;
	status_after = 0;
	if (!running_before) {
		__this_cpu_write(current_kprobe, &reentered);
		kcb->kprobe_status = KPROBE_REENTER;
		for (x = 0; x < KPT_RUNS; x++)
			got[x] = pt->run(x);
		running_after = kprobe_running();
		status_after = kcb->kprobe_status;
		__this_cpu_write(current_kprobe, NULL);
		kcb->kprobe_status = 0;
	}
	local_irq_restore(flags);

	unregister_kprobe(&kp);
	KUNIT_ASSERT_NULL(test, running_before);
	for (x = 0; x < KPT_RUNS; x++)
		KUNIT_EXPECT_EQ_MSG(test, got[x], pt->model(x), "x=%ld", x);
	KUNIT_EXPECT_PTR_EQ(test, running_after, &reentered);
	KUNIT_EXPECT_EQ(test, status_after, (unsigned long)KPROBE_REENTER);
	KUNIT_EXPECT_EQ(test, kp.nmissed, (unsigned long)hits);
	KUNIT_EXPECT_EQ(test, kpt_pre_hits, 0);
	KUNIT_EXPECT_EQ(test, kpt_post_hits, 0);
}

static void loop_is_emulated(struct kunit *test)
{
	struct kprobe kp = {
		.addr = kpt_addr("kpt_loop"),
		.pre_handler = kpt_pre,
		.post_handler = kpt_post,
	};

	kpt_pre_hits = 0;
	kpt_post_hits = 0;
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	KUNIT_EXPECT_EQ(test, kpt_loop3(), 3);
	unregister_kprobe(&kp);
	KUNIT_EXPECT_EQ(test, kpt_pre_hits, 3);
	KUNIT_EXPECT_EQ(test, kpt_post_hits, 3);
	KUNIT_EXPECT_NULL(test, kp.ainsn.insn);
}

/* pushf, cli and popf are emulated: the flags must come out right. */
static void interrupt_flag_modifiers_are_emulated(struct kunit *test)
{
	struct kprobe kps[] = {
		{ .addr = kpt_addr("kpt_pushf"), .pre_handler = kpt_pre },
		{ .addr = kpt_addr("kpt_cli"), .pre_handler = kpt_pre },
		{ .addr = kpt_addr("kpt_popf"), .pre_handler = kpt_pre,
		  .post_handler = kpt_post },
	};
	struct kprobe *list[] = { &kps[0], &kps[1], &kps[2] };
	unsigned long inside;

	kpt_pre_hits = 0;
	kpt_post_hits = 0;
	KUNIT_ASSERT_EQ(test, register_kprobes(list, ARRAY_SIZE(list)), 0);
	inside = kpt_flags();
	KUNIT_EXPECT_FALSE(test, irqs_disabled());
	unregister_kprobes(list, ARRAY_SIZE(list));

	KUNIT_EXPECT_FALSE(test, inside & X86_EFLAGS_IF);
	KUNIT_EXPECT_EQ(test, kpt_pre_hits, 3);
	KUNIT_EXPECT_EQ(test, kpt_post_hits, 1);
}

static void mid_instruction_is_refused(struct kunit *test)
{
	struct kprobe kp = { .addr = kpt_addr("kpt_riprel") + 1 };
	struct kprobe kp2 = { .addr = kpt_addr("kpt_riprel") + 3 };

	KUNIT_EXPECT_EQ(test, register_kprobe(&kp), -EILSEQ);
	KUNIT_EXPECT_EQ(test, register_kprobe(&kp2), -EILSEQ);
}

static void undefined_instruction_is_refused(struct kunit *test)
{
	struct kprobe kp = { .addr = kpt_addr("kpt_ud2"), .pre_handler = kpt_pre };

	KUNIT_EXPECT_EQ(test, register_kprobe(&kp), -EOPNOTSUPP);
}

/* A probe on the function symbol lands after ENDBR when there is one. */
static void function_entry_skips_endbr(struct kunit *test)
{
	struct kprobe kp = { .symbol_name = "kpt_func",
			     .pre_handler = kpt_pre };

	kpt_pre_hits = 0;
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	KUNIT_EXPECT_PTR_EQ(test, kp.addr, kpt_addr("kpt_push"));
	if (IS_ENABLED(CONFIG_X86_KERNEL_IBT))
		KUNIT_EXPECT_PTR_EQ(test, kp.addr,
				    kpt_addr("kpt_func") + ENDBR_INSN_SIZE);
	KUNIT_EXPECT_EQ(test, kpt_func(0), kpt_expected(0));
	unregister_kprobe(&kp);
	KUNIT_EXPECT_EQ(test, kpt_pre_hits, 1);
}

static struct kunit_case kprobes_x86_cases[] = {
	KUNIT_CASE_PARAM(instruction_runs_correctly_pre_handler_only,
			 kpt_point_gen_params),
	KUNIT_CASE_PARAM(post_handler_sees_next_instruction,
			 kpt_point_gen_params),
	KUNIT_CASE(post_handler_added_later_runs),
	KUNIT_CASE_PARAM(second_reentry_runs_detached, kpt_point_gen_params),
	KUNIT_CASE(pre_only_hit_is_boosted_post_handler_steps),
	KUNIT_CASE(loop_is_emulated),
	KUNIT_CASE(interrupt_flag_modifiers_are_emulated),
	KUNIT_CASE(mid_instruction_is_refused),
	KUNIT_CASE(undefined_instruction_is_refused),
	KUNIT_CASE(function_entry_skips_endbr),
	{}
};

static struct kunit_suite kprobes_x86_suite = {
	.name = "kprobes_x86",
	.test_cases = kprobes_x86_cases,
};

kunit_test_suite(kprobes_x86_suite);

MODULE_DESCRIPTION("KUnit tests for the x86 kprobes int3 path");
MODULE_LICENSE("GPL");
