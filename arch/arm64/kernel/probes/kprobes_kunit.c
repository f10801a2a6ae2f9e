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
 */
#include <kunit/test.h>
#include <linux/kprobes.h>
#include <linux/limits.h>

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

static struct kunit_case kpa_test_cases[] = {
	KUNIT_CASE_PARAM(kpa_test_pre_only, kpa_case_gen_params),
	KUNIT_CASE_PARAM(kpa_test_with_post, kpa_case_gen_params),
	KUNIT_CASE(kpa_test_post_pc),
	KUNIT_CASE(kpa_test_refusals),
	KUNIT_CASE(kpa_test_after_exclusive),
	{}
};

static struct kunit_suite kpa_test_suite = {
	.name = "kprobes_arm64",
	.test_cases = kpa_test_cases,
};

kunit_test_suites(&kpa_test_suite);

MODULE_DESCRIPTION("KUnit tests for the arm64 kprobes BRK path");
MODULE_LICENSE("GPL");
