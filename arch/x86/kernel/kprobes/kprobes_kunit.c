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
#include <linux/preempt.h>
#include <linux/string.h>
#include <linux/vmalloc.h>
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
 * reads this CPU's current_kprobe.  Boosted (pre_handler only, on any
 * kernel), the probe was left before the copy runs; stepped (a
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
	int opt = kpt_set_optimization(0);

	KUNIT_ASSERT_NOT_NULL(test, pre.addr);
	KUNIT_EXPECT_EQ(test, kpt_running(), 0UL);
	kpt_pre_hits = 0;
	kpt_post_hits = 0;
	KUNIT_ASSERT_EQ(test, register_kprobe(&pre), 0);
	KUNIT_EXPECT_EQ(test, kpt_running(), 0UL);
	KUNIT_ASSERT_EQ(test, register_kprobe(&post), 0);
	KUNIT_EXPECT_NE(test, kpt_running(), 0UL);
	unregister_kprobe(&post);
	KUNIT_EXPECT_EQ(test, kpt_running(), 0UL);
	unregister_kprobe(&pre);
	if (opt >= 0)
		kpt_set_optimization(opt);
	KUNIT_EXPECT_EQ(test, kpt_running(), 0UL);
	KUNIT_EXPECT_EQ(test, kpt_pre_hits, 3);
	KUNIT_EXPECT_EQ(test, kpt_post_hits, 1);
}

/*
 * A pre_handler-only hit is boosted with interrupts off and on, on a
 * preemptible kernel too: a task preempted in the boost slot is out of it
 * before the slot is reused (the retiring pass waits for RCU Tasks, see
 * the kprobes_core case dirty_slots_wait_for_every_task).  Seen, as
 * above, by the copy reading current_kprobe, with the optimizer off.
 */
static void hit_is_boosted_with_irqs_off_and_on(struct kunit *test)
{
	struct kprobe kp = { .addr = kpt_addr("kpt_running_load"),
			     .pre_handler = kpt_pre };
	unsigned long flags, off = ~0UL, on = ~0UL;
	int opt, ret;

	KUNIT_ASSERT_NOT_NULL(test, kp.addr);
	kpt_pre_hits = 0;
	opt = kpt_set_optimization(0);
	ret = register_kprobe(&kp);
	if (!ret) {
		local_irq_save(flags);
		off = kpt_running();
		local_irq_restore(flags);
		on = kpt_running();
		unregister_kprobe(&kp);
	}
	if (opt >= 0)
		kpt_set_optimization(opt);
	KUNIT_ASSERT_EQ(test, ret, 0);
	KUNIT_EXPECT_NOT_NULL(test, kp.ainsn.boost);
	KUNIT_EXPECT_EQ(test, off, 0UL);
	KUNIT_EXPECT_EQ(test, on, 0UL);
	KUNIT_EXPECT_EQ(test, kpt_pre_hits, 2);
}

/*
 * Reentry state faked on this CPU: kpt_fake[0] in its handlers, each
 * kpt_fake[i] reentered inside kpt_fake[i - 1] and running its copy.
 * The probes are not registered: their step traps are never taken.
 */
static struct kprobe kpt_fake[KPROBE_OUTER_DEPTH + 1];

/*
 * Make kpt_fake[@levels] the running probe, @levels deep.  The saved
 * flags differ from level to level, so that a level given back in the
 * wrong place shows.  Interrupts off, no probe running on this CPU.
 */
static void kpt_fake_reentry(struct kprobe_ctlblk *kcb, unsigned int levels)
{
	unsigned int i;

	for (i = 0; i < levels; i++) {
		kcb->outer[i].kp = &kpt_fake[i];
		kcb->outer[i].status = i ? KPROBE_REENTER : KPROBE_HIT_ACTIVE;
		kcb->outer[i].saved_flags = i & 1 ? 0 : X86_EFLAGS_IF;
	}
	kcb->nr_outer = levels;
	kcb->kprobe_status = KPROBE_REENTER;
	kcb->saved_flags = X86_EFLAGS_IF;
	__this_cpu_write(current_kprobe, &kpt_fake[levels]);
}

/* The reentry state as seen before and after the probed code ran. */
struct kpt_levels {
	struct kprobe_ctlblk kcb;
	struct kprobe *running;
};

static void kpt_save_levels(struct kpt_levels *l)
{
	l->kcb = *get_kprobe_ctlblk();
	l->running = kprobe_running();
}

/* The levels in use must be given back exactly. */
static void kpt_expect_levels(struct kunit *test, const struct kpt_levels *want,
			      const struct kpt_levels *got)
{
	unsigned int i;

	KUNIT_EXPECT_PTR_EQ(test, got->running, want->running);
	KUNIT_EXPECT_EQ(test, got->kcb.kprobe_status, want->kcb.kprobe_status);
	KUNIT_EXPECT_EQ(test, got->kcb.saved_flags, want->kcb.saved_flags);
	KUNIT_ASSERT_EQ(test, got->kcb.nr_outer, want->kcb.nr_outer);
	for (i = 0; i < want->kcb.nr_outer; i++) {
		KUNIT_EXPECT_PTR_EQ_MSG(test, got->kcb.outer[i].kp,
					want->kcb.outer[i].kp, "level %u", i);
		KUNIT_EXPECT_EQ_MSG(test, got->kcb.outer[i].status,
				    want->kcb.outer[i].status, "level %u", i);
		KUNIT_EXPECT_EQ_MSG(test, got->kcb.outer[i].saved_flags,
				    want->kcb.outer[i].saved_flags, "level %u", i);
	}
}

/*
 * Run @fn(@x) for x in 0 .. @runs - 1 into @got[], on this CPU put
 * @levels deep in a faked reentry, with interrupts off as in a stepping
 * slot; record the state before and after.  Returns false, having run
 * nothing, when a probe was already running on this CPU.
 */
static bool kpt_run_reentered(unsigned int levels, long (*fn)(long x),
			      long *got, int runs, struct kpt_levels *before,
			      struct kpt_levels *after, bool *irqs_off)
{
	struct kprobe_ctlblk *kcb, saved;
	unsigned long flags;
	bool ok = false;
	int x;

	local_irq_save(flags);
	kcb = get_kprobe_ctlblk();
	if (!kprobe_running()) {
		saved = *kcb;
		kpt_fake_reentry(kcb, levels);
		kpt_save_levels(before);
		for (x = 0; x < runs; x++)
			got[x] = fn(x);
		kpt_save_levels(after);
		*irqs_off = irqs_disabled();
		*kcb = saved;
		__this_cpu_write(current_kprobe, NULL);
		ok = true;
	}
	local_irq_restore(flags);
	return ok;
}

/*
 * A hit @levels deep in a reentry (a hit while the copy of a reentered
 * probe runs: from an NMI, a debug trap or a machine check in real
 * life), on every kind of instruction: counted as missed, no handler
 * runs, the instruction completes and the interrupted levels are given
 * back exactly.  Past the deepest level an instruction that must be
 * stepped cannot run (kp_reenter()): skipped there.
 */
static void kpt_reentry_at(struct kunit *test, unsigned int levels)
{
	const struct kpt_point *pt = test->param_value;
	struct kprobe kp = {
		.addr = kpt_addr(pt->at),
		.pre_handler = kpt_pre,
		.post_handler = kpt_post,
	};
	int hits = pt->odd_only ? KPT_RUNS / 2 : KPT_RUNS;
	struct kpt_levels before, after;
	long x, got[KPT_RUNS] = {};
	bool irqs_off = false, ran;

	KUNIT_ASSERT_NOT_NULL(test, kp.addr);
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	if (levels >= KPROBE_OUTER_DEPTH && !pt->emulated && !kp.ainsn.boost) {
		unregister_kprobe(&kp);
		kunit_skip(test, "no boost slot: must be stepped, past the deepest level");
	}
	kpt_pre_hits = 0;
	kpt_post_hits = 0;
	ran = kpt_run_reentered(levels, pt->run, got, KPT_RUNS, &before,
				&after, &irqs_off);
	unregister_kprobe(&kp);

	KUNIT_ASSERT_TRUE(test, ran);
	for (x = 0; x < KPT_RUNS; x++)
		KUNIT_EXPECT_EQ_MSG(test, got[x], pt->model(x), "x=%ld", x);
	KUNIT_EXPECT_TRUE(test, irqs_off);
	kpt_expect_levels(test, &before, &after);
	KUNIT_EXPECT_EQ(test, kp.nmissed, (unsigned long)hits);
	KUNIT_EXPECT_EQ(test, kpt_pre_hits, 0);
	KUNIT_EXPECT_EQ(test, kpt_post_hits, 0);
}

/* One level already reentered: the hit is the second level. */
static void second_level_reentry_completes(struct kunit *test)
{
	kpt_reentry_at(test, 1);
}

/* Every level in use: the hit runs detached, the levels untouched. */
static void reentry_past_deepest_level_runs_detached(struct kunit *test)
{
	kpt_reentry_at(test, KPROBE_OUTER_DEPTH);
}

static long kpt_running_stepped_x(long x)
{
	return (long)kpt_running_stepped();
}

/* The probe the int3 handler runs for @kp's address: its site's. */
static struct kprobe *kpt_site(struct kprobe *kp)
{
	struct kprobe *site;

	preempt_disable();
	site = get_kprobe(kp->addr);
	preempt_enable();
	return site;
}

/*
 * A second level on an instruction that is never boosted (it has an
 * exception table entry), on any kernel: its copy is stepped as a level
 * of its own, so it sees its probe (its site's) as the running one, and
 * its step trap gives the reentered probe back its status and saved
 * flags.  The same one level below the deepest.
 */
static void reentry_steps_unboostable_instruction(struct kunit *test)
{
	struct kprobe kp = {
		.addr = kpt_addr("kpt_running_stepped_load"),
		.pre_handler = kpt_pre,
		.post_handler = kpt_post,
	};
	unsigned int levels[] = { 1, KPROBE_OUTER_DEPTH - 1 };
	struct kpt_levels before, after;
	struct kprobe *site;
	long got[KPT_RUNS];
	bool irqs_off;
	unsigned int i;
	int x;

	KUNIT_ASSERT_NOT_NULL(test, kp.addr);
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	KUNIT_EXPECT_NOT_NULL(test, kp.ainsn.insn);
	KUNIT_EXPECT_NULL(test, kp.ainsn.boost);
	site = kpt_site(&kp);
	KUNIT_EXPECT_NOT_NULL(test, site);
	kpt_pre_hits = 0;
	kpt_post_hits = 0;

	for (i = 0; i < ARRAY_SIZE(levels); i++) {
		irqs_off = false;
		memset(got, 0, sizeof(got));
		if (!kpt_run_reentered(levels[i], kpt_running_stepped_x, got,
				       KPT_RUNS, &before, &after, &irqs_off)) {
			KUNIT_FAIL(test, "a probe was running on this CPU");
			break;
		}
		for (x = 0; x < KPT_RUNS; x++)
			KUNIT_EXPECT_PTR_EQ_MSG(test, (struct kprobe *)got[x],
						site, "%u levels, run %d",
						levels[i], x);
		KUNIT_EXPECT_TRUE(test, irqs_off);
		kpt_expect_levels(test, &before, &after);
	}
	unregister_kprobe(&kp);

	KUNIT_EXPECT_EQ(test, kp.nmissed, (unsigned long)(i * KPT_RUNS));
	KUNIT_EXPECT_EQ(test, kpt_pre_hits, 0);
	KUNIT_EXPECT_EQ(test, kpt_post_hits, 0);
	/* Outside any reentry it is stepped with its handlers. */
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	site = kpt_site(&kp);
	KUNIT_EXPECT_NOT_NULL(test, site);
	KUNIT_EXPECT_PTR_EQ(test, (struct kprobe *)kpt_running_stepped(), site);
	unregister_kprobe(&kp);
	KUNIT_EXPECT_EQ(test, kpt_pre_hits, 1);
	KUNIT_EXPECT_EQ(test, kpt_post_hits, 1);
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

/*
 * An int3 already in the text is refused: a hit could not tell the
 * probe's from the one that was there (the sweep no longer meets the
 * int3 filler after returns, so this is the case that checks it).
 */
static void int3_is_refused(struct kunit *test)
{
	struct kprobe kp = { .addr = kpt_addr("kpt_int3"), .pre_handler = kpt_pre };

	KUNIT_ASSERT_NOT_NULL(test, kp.addr);
	KUNIT_ASSERT_EQ(test, *(u8 *)kp.addr, INT3_INSN_OPCODE);
	KUNIT_EXPECT_EQ(test, register_kprobe(&kp), -EOPNOTSUPP);
}

/*
 * A stepped load with an exception table entry that faults: the fault
 * is fixed up at the original address, as without the probe.  A page
 * fault (a vmalloc() guard page) comes to the kprobe before its fixup
 * is looked for; a general protection fault (a non-canonical address)
 * only after that lookup failed at the copy's address, and oopsed.
 */
static void stepped_load_faults_are_fixed_up(struct kunit *test)
{
	struct kprobe kp = { .addr = kpt_addr("kpt_extable_load"),
			     .pre_handler = kpt_pre, .post_handler = kpt_post };
	long v = 0x1234, *page;

	KUNIT_ASSERT_NOT_NULL(test, kp.addr);
	page = vmalloc(PAGE_SIZE);
	KUNIT_ASSERT_NOT_NULL(test, page);
	kpt_pre_hits = 0;
	kpt_post_hits = 0;
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	KUNIT_EXPECT_EQ(test, kpt_load_or_efault(&v), 0x1234L);
	KUNIT_EXPECT_EQ(test, kpt_load_or_efault(page + PAGE_SIZE / sizeof(long)),
			-EFAULT);
	KUNIT_EXPECT_EQ(test, kpt_load_or_efault((long *)0x8000000000000000UL),
			-EFAULT);
	KUNIT_EXPECT_EQ(test, kpt_load_or_efault(&v), 0x1234L);
	unregister_kprobe(&kp);
	vfree(page);
	KUNIT_EXPECT_EQ(test, kpt_pre_hits, 4);
	/* a faulting copy does not finish its step */
	KUNIT_EXPECT_EQ(test, kpt_post_hits, 2);
}

/*
 * The same for a trap other than a fault: a divide error in a stepped
 * div with an exception table entry.  do_trap() looks the fixup up at
 * the copy, and oopsed, unless the kprobe is asked to move the trap back
 * (the traps.c edit).
 */
static void stepped_div_trap_is_fixed_up(struct kunit *test)
{
	struct kprobe kp = { .addr = kpt_addr("kpt_extable_div"),
			     .pre_handler = kpt_pre, .post_handler = kpt_post };

	KUNIT_ASSERT_NOT_NULL(test, kp.addr);
	kpt_pre_hits = 0;
	kpt_post_hits = 0;
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	KUNIT_EXPECT_EQ(test, kpt_div_or_efault(7), 14UL);
	KUNIT_EXPECT_EQ(test, kpt_div_or_efault(0), (unsigned long)-EFAULT);
	KUNIT_EXPECT_EQ(test, kpt_div_or_efault(5), 20UL);
	unregister_kprobe(&kp);
	KUNIT_EXPECT_EQ(test, kpt_pre_hits, 3);
	KUNIT_EXPECT_EQ(test, kpt_post_hits, 2);
}

/*
 * load_unaligned_zeropad()'s fixup decodes the instruction at the
 * faulting address, which would be the int3: such loads are refused.
 */
static void zeropad_load_is_refused(struct kunit *test)
{
	struct kprobe kp = { .addr = kpt_addr("kpt_zeropad_load"),
			     .pre_handler = kpt_pre };

	KUNIT_ASSERT_NOT_NULL(test, kp.addr);
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
	KUNIT_CASE_PARAM(second_level_reentry_completes, kpt_point_gen_params),
	KUNIT_CASE_PARAM(reentry_past_deepest_level_runs_detached,
			 kpt_point_gen_params),
	KUNIT_CASE(reentry_steps_unboostable_instruction),
	KUNIT_CASE(pre_only_hit_is_boosted_post_handler_steps),
	KUNIT_CASE(hit_is_boosted_with_irqs_off_and_on),
	KUNIT_CASE(loop_is_emulated),
	KUNIT_CASE(interrupt_flag_modifiers_are_emulated),
	KUNIT_CASE(mid_instruction_is_refused),
	KUNIT_CASE(undefined_instruction_is_refused),
	KUNIT_CASE(int3_is_refused),
	KUNIT_CASE(stepped_load_faults_are_fixed_up),
	KUNIT_CASE(stepped_div_trap_is_fixed_up),
	KUNIT_CASE(zeropad_load_is_refused),
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
