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
#include <asm/ibt.h>

#include "kprobes_kunit.h"

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

/* One probe point of kpt_func() and where the CPU goes after it. */
struct kpt_point {
	const char *name;
	/* label of the probed instruction */
	const char *at;
	/* label of what runs after it, for an even / odd x + 0x1000 */
	const char *next_even, *next_odd;
	bool emulated;
};

static const struct kpt_point kpt_points[] = {
	{ "push", "kpt_push", "kpt_mov", "kpt_mov", false },
	{ "mov", "kpt_mov", "kpt_riprel", "kpt_riprel", false },
	{ "riprel_load", "kpt_riprel", "kpt_test", "kpt_test", false },
	{ "test", "kpt_test", "kpt_jcc", "kpt_jcc", false },
	{ "jcc", "kpt_jcc", "kpt_call", "kpt_odd", true },
	{ "call", "kpt_call", "kpt_helper", "kpt_helper", true },
	{ "jmp", "kpt_jmp", "kpt_jmp_target", "kpt_jmp_target", true },
	{ "pop", "kpt_pop", "kpt_ret", "kpt_ret", false },
};

static void kpt_point_desc(const struct kpt_point *p, char *desc)
{
	strscpy(desc, p->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(kpt_point, kpt_points, kpt_point_desc);

/* Run kpt_func() on even and odd inputs under @kp and check everything. */
static void kpt_run_point(struct kunit *test, const struct kpt_point *pt,
			  struct kprobe *kp)
{
	kprobe_opcode_t *at = kpt_addr(pt->at);
	long x;

	KUNIT_ASSERT_NOT_NULL(test, at);
	KUNIT_ASSERT_PTR_EQ(test, kp->addr, at);
	kpt_pre_hits = 0;
	kpt_post_hits = 0;
	KUNIT_ASSERT_EQ(test, register_kprobe(kp), 0);
	for (x = 0; x < 4; x++) {
		const char *next = (x & 1) ? pt->next_odd : pt->next_even;

		KUNIT_EXPECT_EQ(test, kpt_func(x), kpt_expected(x));
		KUNIT_EXPECT_EQ(test, kpt_pre_ip,
				(unsigned long)at + INT3_INSN_SIZE);
		if (kp->post_handler)
			KUNIT_EXPECT_EQ_MSG(test, kpt_post_ip,
					    (unsigned long)kpt_addr(next),
					    "x=%ld, expected at %s", x, next);
	}
	KUNIT_EXPECT_EQ(test, kpt_pre_hits, 4);
	KUNIT_EXPECT_EQ(test, kpt_post_hits, kp->post_handler ? 4 : 0);

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
	KUNIT_EXPECT_EQ(test, kpt_func(1), kpt_expected(1));
	KUNIT_EXPECT_EQ(test, kpt_pre_hits, 4);
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
