// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for x86 jump optimization (opt.c and the optimizer in
 * kernel/kprobes/optimizer.c): which probes become jumps, what their
 * handlers see, when the jump goes away and comes back.
 *
 * The probed functions are in opt_kunit_asm.S.  "Optimized" is checked
 * after wait_for_kprobe_optimizer() as both the site's OPTIMIZED flag
 * and a jmp opcode in the text; "int3 form" as no flag and an int3.
 */
#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/jump_label.h>
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/kthread.h>
#include <linux/sched.h>
#include <linux/stacktrace.h>
#include <linux/string.h>
#include <asm/text-patching.h>

#include "kunit_sysctl.h"
#include "opt_kunit.h"

static const char * const kpo_funcs[] = {
	[KPO_SITE] = "kpo_straight",
	[KPO_SITE_NEXT] = "kpo_straight",
	[KPO_REGS_SITE] = "kpo_regs",
	[KPO_JT_SITE] = "kpo_jt",
	[KPO_IJ_SITE] = "kpo_ij",
	[KPO_SHORT_SITE] = "kpo_short",
	[KPO_CHAIN_A] = "kpo_chain",
	[KPO_CHAIN_B] = "kpo_chain",
	[KPO_CHAIN_C] = "kpo_chain",
	[KPO_JL_SITE] = "kpo_jl",
};

/* kpo_jl's static branch; off but while a test turns it on. */
DEFINE_STATIC_KEY_FALSE(kpo_jl_key);

/* The address of a probe point: its function by name, plus its offset. */
static kprobe_opcode_t *kpo_addr(enum kpo_point pt)
{
	unsigned long func = kallsyms_lookup_name(kpo_funcs[pt]);

	return func ? (kprobe_opcode_t *)(func + kpo_offsets[pt]) : NULL;
}

static long kpo_straight_expected(long x)
{
	return x + 0x100 + 7;
}

/* The site at @addr, if any; its flags are read under RCU-sched. */
static bool kpo_site_flag(kprobe_opcode_t *addr, bool *optimized)
{
	struct kprobe *p;

	preempt_disable();
	p = get_kprobe(addr);
	if (p)
		*optimized = kprobe_optimized(p);
	preempt_enable();
	return p;
}

static bool kpo_is_jump(kprobe_opcode_t *addr)
{
	bool opt = false;

	wait_for_kprobe_optimizer();
	return kpo_site_flag(addr, &opt) && opt &&
	       READ_ONCE(*addr) == JMP32_INSN_OPCODE;
}

static bool kpo_is_int3(kprobe_opcode_t *addr)
{
	bool opt = true;

	wait_for_kprobe_optimizer();
	return kpo_site_flag(addr, &opt) && !opt &&
	       READ_ONCE(*addr) == INT3_INSN_OPCODE;
}

static void kpo_set_sysctl(struct kunit *test, int val)
{
	int now = -1;

	KUNIT_ASSERT_EQ(test, kprobes_test_opt_sysctl(true, &val), 0);
	KUNIT_ASSERT_EQ(test, kprobes_test_opt_sysctl(false, &now), 0);
	KUNIT_ASSERT_EQ(test, now, val);
	wait_for_kprobe_optimizer();
}

static atomic_t kpo_hits;
static struct pt_regs kpo_snap;

static int kpo_count(struct kprobe *p, struct pt_regs *regs)
{
	atomic_inc(&kpo_hits);
	return 0;
}

static int kpo_snapshot(struct kprobe *p, struct pt_regs *regs)
{
	kpo_snap = *regs;
	atomic_inc(&kpo_hits);
	return 0;
}

static void kpo_post(struct kprobe *p, struct pt_regs *regs,
		     unsigned long flags)
{
}

static int kpo_init(struct kunit *test)
{
	atomic_set(&kpo_hits, 0);
	kpo_set_sysctl(test, 1);
	return 0;
}

/* A probe inside a function becomes a jump and keeps working. */
static void probe_inside_function_is_optimized(struct kunit *test)
{
	struct kprobe kp = { .addr = kpo_addr(KPO_SITE),
			     .pre_handler = kpo_count };
	long x;

	KUNIT_ASSERT_NOT_NULL(test, kp.addr);
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	KUNIT_EXPECT_TRUE(test, kpo_is_jump(kp.addr));
	/* The region holds a rip-relative add: relocated, not refused. */
	for (x = 0; x < 10; x++)
		KUNIT_EXPECT_EQ(test, kpo_straight(x), kpo_straight_expected(x));
	KUNIT_EXPECT_EQ(test, atomic_read(&kpo_hits), 10);
	unregister_kprobe(&kp);
	KUNIT_EXPECT_EQ(test, kpo_straight(3), kpo_straight_expected(3));
	KUNIT_EXPECT_EQ(test, atomic_read(&kpo_hits), 10);
	wait_for_kprobe_optimizer();
	KUNIT_EXPECT_EQ(test, READ_ONCE(*kp.addr), 0x48);	/* mov: REX.W */
}

static unsigned long kpo_flag_mask = X86_EFLAGS_CF | X86_EFLAGS_PF |
	X86_EFLAGS_ZF | X86_EFLAGS_SF | X86_EFLAGS_OF | X86_EFLAGS_IF;

/* Check @r against what kpo_regs(@s) loaded. */
static void kpo_check_regs(struct kunit *test, struct pt_regs *r,
			   unsigned long s, const char *form)
{
	unsigned long want[] = {
		r->ax - (s + 1), r->bx - (s + 2), r->cx - (s + 3),
		r->dx - (s + 4), r->si - (s + 5), r->bp - (s + 6),
		r->di - (s + 7), r->r8 - (s + 8), r->r9 - (s + 9),
		r->r10 - (s + 10), r->r11 - (s + 11), r->r12 - (s + 12),
		r->r13 - (s + 13), r->r14 - (s + 14), r->r15 - (s + 15),
	};
	int i;

	for (i = 0; i < ARRAY_SIZE(want); i++)
		KUNIT_EXPECT_EQ_MSG(test, want[i], 0UL, "%s: register %d", form, i);
	KUNIT_EXPECT_EQ_MSG(test, r->ip,
			    (unsigned long)kpo_addr(KPO_REGS_SITE) + INT3_INSN_SIZE,
			    "%s", form);
	KUNIT_EXPECT_EQ_MSG(test, r->sp, READ_ONCE(kpo_seen_sp), "%s", form);
	KUNIT_EXPECT_EQ_MSG(test, r->cs, (unsigned long)__KERNEL_CS, "%s", form);
	KUNIT_EXPECT_TRUE_MSG(test, r->flags & X86_EFLAGS_ZF, "%s", form);
	KUNIT_EXPECT_TRUE_MSG(test, r->flags & X86_EFLAGS_IF, "%s", form);
}

/* The handler of a jump sees the registers an int3 would have saved. */
static void handler_regs_match_int3_form(struct kunit *test)
{
	struct kprobe kp = { .addr = kpo_addr(KPO_REGS_SITE),
			     .pre_handler = kpo_snapshot };
	const unsigned long s = 0x5a5a0000;
	struct pt_regs by_int3, by_jump;

	KUNIT_ASSERT_NOT_NULL(test, kp.addr);
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);

	kpo_set_sysctl(test, 0);
	KUNIT_EXPECT_TRUE(test, kpo_is_int3(kp.addr));
	KUNIT_EXPECT_EQ(test, kpo_regs(s), 3 * s + 1 + 6 + 15);
	by_int3 = kpo_snap;
	kpo_check_regs(test, &by_int3, s, "int3");

	kpo_set_sysctl(test, 1);
	KUNIT_EXPECT_TRUE(test, kpo_is_jump(kp.addr));
	KUNIT_EXPECT_EQ(test, kpo_regs(s), 3 * s + 1 + 6 + 15);
	by_jump = kpo_snap;
	kpo_check_regs(test, &by_jump, s, "jump");
	unregister_kprobe(&kp);

	KUNIT_EXPECT_EQ(test, atomic_read(&kpo_hits), 2);
	KUNIT_EXPECT_EQ(test, by_jump.flags & kpo_flag_mask,
			by_int3.flags & kpo_flag_mask);
	KUNIT_EXPECT_EQ(test, by_jump.sp, by_int3.sp);
	KUNIT_EXPECT_EQ(test, by_jump.ip, by_int3.ip);
}

static unsigned long kpo_trace[16];
static unsigned int kpo_trace_len;

static int kpo_stack(struct kprobe *p, struct pt_regs *regs)
{
	kpo_trace_len = stack_trace_save(kpo_trace, ARRAY_SIZE(kpo_trace), 0);
	atomic_inc(&kpo_hits);
	return 0;
}

/* Does the trace taken by kpo_stack() pass through kpo_straight()? */
static bool kpo_trace_has_straight(void)
{
	unsigned long start = kallsyms_lookup_name("kpo_straight"), size, off;
	unsigned int i;

	if (!start || !kallsyms_lookup_size_offset(start, &size, &off))
		return false;
	for (i = 0; i < kpo_trace_len; i++) {
		if (kpo_trace[i] > start && kpo_trace[i] < start + size)
			return true;
	}
	return false;
}

/*
 * A stack trace taken in a jump's handler unwinds through the detour
 * buffer (no ORC data there) into the probed function.
 */
static void handler_stack_trace_reaches_probed_function(struct kunit *test)
{
	struct kprobe kp = { .addr = kpo_addr(KPO_SITE), .pre_handler = kpo_stack };

	KUNIT_ASSERT_NOT_NULL(test, kp.addr);
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	KUNIT_EXPECT_TRUE(test, kpo_is_jump(kp.addr));
	kpo_trace_len = 0;
	KUNIT_EXPECT_EQ(test, kpo_straight(4), kpo_straight_expected(4));
	unregister_kprobe(&kp);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpo_hits), 1);
	KUNIT_EXPECT_TRUE(test, kpo_trace_has_straight());
}

/* A probe that must stay an int3, and what it computes meanwhile. */
struct kpo_refusal {
	const char *name;
	enum kpo_point site;
	long (*call)(long x);
	long (*expected)(long x);
};

static long kpo_jt_call(long x)
{
	return kpo_jt(x);
}

static long kpo_jt_expected(long x)
{
	return max(x + 1, 8L);
}

static long kpo_ij_call(long x)
{
	return kpo_ij(x, NULL);
}

static long kpo_ij_expected(long x)
{
	return x + 2;
}

static long kpo_short_expected(long x)
{
	return x + 1;
}

static const struct kpo_refusal kpo_refusals[] = {
	{ "jump_target_in_region", KPO_JT_SITE, kpo_jt_call, kpo_jt_expected },
	{ "indirect_jump_in_function", KPO_IJ_SITE, kpo_ij_call, kpo_ij_expected },
	{ "region_past_return", KPO_SHORT_SITE, kpo_short, kpo_short_expected },
};

static void kpo_refusal_desc(const struct kpo_refusal *r, char *desc)
{
	strscpy(desc, r->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(kpo_refusal, kpo_refusals, kpo_refusal_desc);

static void unsafe_region_is_refused(struct kunit *test)
{
	const struct kpo_refusal *r = test->param_value;
	struct kprobe kp = { .addr = kpo_addr(r->site), .pre_handler = kpo_count };
	long x;

	KUNIT_ASSERT_NOT_NULL(test, kp.addr);
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	KUNIT_EXPECT_TRUE(test, kpo_is_int3(kp.addr));
	for (x = 0; x < 4; x++)
		KUNIT_EXPECT_EQ(test, r->call(x), r->expected(x));
	unregister_kprobe(&kp);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpo_hits), 4);
}

/*
 * A static branch whose target is inside the region keeps the probe an
 * int3: while its key is off it is a nop, which no decoding of the
 * function finds, and turned on it would jump into the middle of the
 * jump.  The key is turned on only if the probe stayed an int3.
 */
static void jump_label_into_region_is_refused(struct kunit *test)
{
	struct kprobe kp = {
		.addr = kpo_addr(KPO_JL_SITE),
		.pre_handler = kpo_count,
	};
	bool int3;

	KUNIT_ASSERT_NOT_NULL(test, kp.addr);
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	int3 = kpo_is_int3(kp.addr);
	KUNIT_EXPECT_TRUE(test, int3);
	KUNIT_EXPECT_EQ(test, kpo_jl(5), 8L);
	if (int3) {
		static_branch_enable(&kpo_jl_key);
		KUNIT_EXPECT_EQ(test, kpo_jl(5), 7L);
		static_branch_disable(&kpo_jl_key);
	}
	KUNIT_EXPECT_EQ(test, kpo_jl(5), 8L);
	unregister_kprobe(&kp);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpo_hits), 2);
}

/* A post_handler keeps a probe an int3; one joining later undoes the jump. */
static void post_handler_prevents_jump(struct kunit *test)
{
	struct kprobe pre = { .addr = kpo_addr(KPO_SITE), .pre_handler = kpo_count };
	struct kprobe post = { .addr = kpo_addr(KPO_SITE), .post_handler = kpo_post };

	KUNIT_ASSERT_NOT_NULL(test, pre.addr);
	KUNIT_ASSERT_EQ(test, register_kprobe(&post), 0);
	KUNIT_EXPECT_TRUE(test, kpo_is_int3(post.addr));
	unregister_kprobe(&post);

	KUNIT_ASSERT_EQ(test, register_kprobe(&pre), 0);
	KUNIT_EXPECT_TRUE(test, kpo_is_jump(pre.addr));
	KUNIT_ASSERT_EQ(test, register_kprobe(&post), 0);
	KUNIT_EXPECT_TRUE(test, kpo_is_int3(pre.addr));
	KUNIT_EXPECT_EQ(test, kpo_straight(1), kpo_straight_expected(1));
	unregister_kprobe(&post);
	KUNIT_EXPECT_TRUE(test, kpo_is_jump(pre.addr));
	KUNIT_EXPECT_EQ(test, kpo_straight(2), kpo_straight_expected(2));
	unregister_kprobe(&pre);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpo_hits), 2);
}

/* Has the site at @addr a detour buffer?  Read as kpo_site_flag(). */
static bool kpo_has_detour(kprobe_opcode_t *addr)
{
	struct kprobe *p;
	bool ret = false;

	wait_for_kprobe_optimizer();
	preempt_disable();
	p = get_kprobe(addr);
	if (p)
		ret = container_of(p, struct optimized_kprobe, kp)->optinsn.insn;
	preempt_enable();
	return ret;
}

/*
 * A site registered with optimization off gets no detour buffer; the
 * optimizer builds one when optimization is switched on.
 */
static void detour_built_only_when_optimizing(struct kunit *test)
{
	struct kprobe kp = { .addr = kpo_addr(KPO_SITE), .pre_handler = kpo_count };

	KUNIT_ASSERT_NOT_NULL(test, kp.addr);
	kpo_set_sysctl(test, 0);
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	KUNIT_EXPECT_TRUE(test, kpo_is_int3(kp.addr));
	KUNIT_EXPECT_FALSE(test, kpo_has_detour(kp.addr));
	KUNIT_EXPECT_EQ(test, kpo_straight(1), kpo_straight_expected(1));
	kpo_set_sysctl(test, 1);
	KUNIT_EXPECT_TRUE(test, kpo_is_jump(kp.addr));
	KUNIT_EXPECT_TRUE(test, kpo_has_detour(kp.addr));
	KUNIT_EXPECT_EQ(test, kpo_straight(2), kpo_straight_expected(2));
	unregister_kprobe(&kp);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpo_hits), 2);
}

/* A second probe inside the region sends the first back to int3. */
static void second_probe_in_region_prevents_jump(struct kunit *test)
{
	struct kprobe first = { .addr = kpo_addr(KPO_SITE), .pre_handler = kpo_count };
	struct kprobe inner = { .addr = kpo_addr(KPO_SITE_NEXT),
				.pre_handler = kpo_count };
	u8 inner_text, text;

	KUNIT_ASSERT_NOT_NULL(test, first.addr);
	KUNIT_ASSERT_NOT_NULL(test, inner.addr);
	inner_text = READ_ONCE(*inner.addr);
	KUNIT_ASSERT_EQ(test, register_kprobe(&first), 0);
	KUNIT_EXPECT_TRUE(test, kpo_is_jump(first.addr));
	KUNIT_ASSERT_EQ(test, register_kprobe(&inner), 0);
	KUNIT_EXPECT_TRUE(test, kpo_is_int3(first.addr));
	/* Its own region (the rip-relative add) is fine. */
	KUNIT_EXPECT_TRUE(test, kpo_is_jump(inner.addr));
	KUNIT_EXPECT_EQ(test, kpo_straight(5), kpo_straight_expected(5));
	KUNIT_EXPECT_EQ(test, atomic_read(&kpo_hits), 2);
	unregister_kprobe(&inner);
	KUNIT_EXPECT_TRUE(test, kpo_is_jump(first.addr));
	KUNIT_EXPECT_EQ(test, kpo_straight(6), kpo_straight_expected(6));
	KUNIT_EXPECT_EQ(test, atomic_read(&kpo_hits), 3);

	/* The other order: the inner probe first keeps the outer an int3. */
	unregister_kprobe(&first);
	KUNIT_ASSERT_EQ(test, register_kprobe(&inner), 0);
	KUNIT_ASSERT_EQ(test, register_kprobe(&first), 0);
	KUNIT_EXPECT_TRUE(test, kpo_is_int3(first.addr));
	/*
	 * The outer's detour was built with the inner's int3 in the text.
	 * Once the inner goes the outer jumps, and when the jump goes, it
	 * must leave the original text behind, not the inner's int3 (which
	 * no probe would own: the next call would die on it).
	 */
	unregister_kprobe(&inner);
	KUNIT_EXPECT_TRUE(test, kpo_is_jump(first.addr));
	unregister_kprobe(&first);
	wait_for_kprobe_optimizer();
	text = READ_ONCE(*inner.addr);
	KUNIT_ASSERT_EQ(test, text, inner_text);
	KUNIT_EXPECT_EQ(test, kpo_straight(7), kpo_straight_expected(7));
}

/*
 * A probe inside the region whose last user just left keeps its jump
 * until the optimizer undoes it.  Until then the covering site must not
 * take its detour either: the detour returns to the end of its region,
 * inside that jump.
 */
static void leaving_jump_keeps_the_covering_site_out(struct kunit *test)
{
	struct kprobe first = { .addr = kpo_addr(KPO_SITE), .pre_handler = kpo_count };
	struct kprobe inner = { .addr = kpo_addr(KPO_SITE_NEXT),
				.pre_handler = kpo_count };
	bool opt = true, jump_left = false;
	int tries;

	KUNIT_ASSERT_NOT_NULL(test, first.addr);
	KUNIT_ASSERT_NOT_NULL(test, inner.addr);
	/* The optimizer may run between the two; try again if it did. */
	for (tries = 0; tries < 10 && !jump_left; tries++) {
		memset(&inner, 0, sizeof(inner));
		inner.addr = kpo_addr(KPO_SITE_NEXT);
		inner.pre_handler = kpo_count;
		KUNIT_ASSERT_EQ(test, register_kprobe(&inner), 0);
		KUNIT_ASSERT_TRUE(test, kpo_is_jump(inner.addr));
		unregister_kprobe(&inner);
		memset(&first, 0, sizeof(first));
		first.addr = kpo_addr(KPO_SITE);
		first.pre_handler = kpo_count;
		KUNIT_ASSERT_EQ(test, register_kprobe(&first), 0);
		/* the flag first: a jump that is gone now was there then */
		kpo_site_flag(first.addr, &opt);
		jump_left = READ_ONCE(*inner.addr) == JMP32_INSN_OPCODE;
		if (!jump_left)
			unregister_kprobe(&first);
	}
	KUNIT_ASSERT_TRUE(test, jump_left);
	KUNIT_EXPECT_FALSE(test, opt);
	/* Once the jump is gone, the covering site jumps. */
	KUNIT_EXPECT_TRUE(test, kpo_is_jump(first.addr));
	KUNIT_EXPECT_EQ(test, kpo_straight(8), kpo_straight_expected(8));
	unregister_kprobe(&first);
}

/*
 * A probe armed inside the regions of two sites, the nearer of them a
 * disabled probe (which has a detour buffer but no jump, and does not
 * keep the farther one from jumping): the farther site's jump must go
 * before the breakpoint is written, or the breakpoint lands in the
 * jump's rel32.
 */
static void jump_over_a_disabled_probe_goes_for_a_new_one(struct kunit *test)
{
	struct kprobe far = { .addr = kpo_addr(KPO_CHAIN_A),
			      .pre_handler = kpo_count };
	struct kprobe near = { .addr = kpo_addr(KPO_CHAIN_B),
			       .pre_handler = kpo_count,
			       .flags = KPROBE_FLAG_DISABLED };
	struct kprobe inner = { .addr = kpo_addr(KPO_CHAIN_C),
				.pre_handler = kpo_count };
	u8 text[8], now[8];
	bool far_jump;

	KUNIT_ASSERT_NOT_NULL(test, far.addr);
	KUNIT_ASSERT_NOT_NULL(test, near.addr);
	KUNIT_ASSERT_NOT_NULL(test, inner.addr);
	memcpy(text, far.addr, sizeof(text));
	KUNIT_ASSERT_EQ(test, register_kprobe(&near), 0);
	KUNIT_ASSERT_EQ(test, register_kprobe(&far), 0);
	KUNIT_EXPECT_TRUE(test, kpo_is_jump(far.addr));
	KUNIT_ASSERT_EQ(test, register_kprobe(&inner), 0);
	/* Before any call: the text as the arming left it. */
	far_jump = READ_ONCE(*far.addr) == JMP32_INSN_OPCODE;
	KUNIT_EXPECT_FALSE(test, far_jump);
	now[0] = READ_ONCE(*inner.addr);
	KUNIT_EXPECT_EQ(test, now[0], INT3_INSN_OPCODE);
	if (!far_jump) {
		KUNIT_EXPECT_EQ(test, kpo_chain(3), 7);
		/* far and inner; near is disabled */
		KUNIT_EXPECT_EQ(test, atomic_read(&kpo_hits), 2);
	}
	unregister_kprobe(&inner);
	unregister_kprobe(&far);
	unregister_kprobe(&near);
	wait_for_kprobe_optimizer();
	memcpy(now, far.addr, sizeof(now));
	KUNIT_ASSERT_TRUE(test, !memcmp(now, text, sizeof(text)));
	KUNIT_EXPECT_EQ(test, kpo_chain(3), 7);
}

static bool kpo_site_present(kprobe_opcode_t *addr)
{
	bool opt;

	return kpo_site_flag(addr, &opt);
}

/*
 * A probe placed inside a jump whose last user has just left (the jump
 * waiting for the optimizer) undoes that jump at once.  The breakpoint
 * under it belongs to nobody: it must go with the jump, and the site
 * with it, not stay in the text for good.
 */
static void probe_inside_a_leaving_jump_takes_its_site_away(struct kunit *test)
{
	struct kprobe first, inner;
	bool jump_left = false, site_left = true;
	kprobe_opcode_t *addr = kpo_addr(KPO_SITE);
	u8 orig, text;
	int tries;

	KUNIT_ASSERT_NOT_NULL(test, addr);
	orig = READ_ONCE(*addr);
	/* The optimizer may undo the jump first; try again if it did. */
	for (tries = 0; tries < 10 && !jump_left; tries++) {
		memset(&first, 0, sizeof(first));
		first.addr = addr;
		first.pre_handler = kpo_count;
		KUNIT_ASSERT_EQ(test, register_kprobe(&first), 0);
		KUNIT_ASSERT_TRUE(test, kpo_is_jump(addr));
		unregister_kprobe(&first);
		memset(&inner, 0, sizeof(inner));
		inner.addr = kpo_addr(KPO_SITE_NEXT);
		inner.pre_handler = kpo_count;
		jump_left = READ_ONCE(*addr) == JMP32_INSN_OPCODE;
		KUNIT_ASSERT_EQ(test, register_kprobe(&inner), 0);
		site_left = kpo_site_present(addr);
		if (!jump_left)
			unregister_kprobe(&inner);
	}
	KUNIT_ASSERT_TRUE(test, jump_left);
	KUNIT_EXPECT_FALSE(test, site_left);
	wait_for_kprobe_optimizer();
	KUNIT_EXPECT_FALSE(test, kpo_site_present(addr));
	text = READ_ONCE(*addr);
	KUNIT_EXPECT_EQ(test, text, orig);
	KUNIT_EXPECT_EQ(test, kpo_straight(4), kpo_straight_expected(4));
	unregister_kprobe(&inner);
	/* the one call above, through the inner probe */
	KUNIT_EXPECT_EQ(test, atomic_read(&kpo_hits), 1);
}

/*
 * A refused batch takes back what it did to the sites it joined: a post
 * handler joining a jump's site undoes that jump at once, and when the
 * batch then fails (here its second probe, inside an instruction), the
 * probe that had the jump gets it back.
 */
static void refused_batch_gives_the_jump_back(struct kunit *test)
{
	struct kprobe keep = { .addr = kpo_addr(KPO_SITE),
			       .pre_handler = kpo_count };
	struct kprobe post = { .addr = keep.addr, .post_handler = kpo_post };
	struct kprobe bad = { .pre_handler = kpo_count };
	struct kprobe *batch[] = { &post, &bad };

	KUNIT_ASSERT_NOT_NULL(test, keep.addr);
	bad.addr = keep.addr + 1;	/* inside the mov */
	KUNIT_ASSERT_EQ(test, register_kprobe(&keep), 0);
	KUNIT_ASSERT_TRUE(test, kpo_is_jump(keep.addr));
	KUNIT_EXPECT_EQ(test, register_kprobes(batch, 2), -EILSEQ);
	KUNIT_EXPECT_TRUE(test, kpo_is_jump(keep.addr));
	KUNIT_EXPECT_EQ(test, kpo_straight(5), kpo_straight_expected(5));
	unregister_kprobe(&keep);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpo_hits), 1);
}

/*
 * The same refused batch over a jump whose last user has just left: the
 * breakpoint that replaced the jump belongs to nobody, and must go with
 * its site rather than trap every call for good.
 */
static void refused_batch_over_a_leaving_jump_leaves_no_site(struct kunit *test)
{
	kprobe_opcode_t *addr = kpo_addr(KPO_SITE);
	struct kprobe first, post, bad;
	struct kprobe *batch[] = { &post, &bad };
	bool jump_left = false;
	int tries;
	u8 orig, text;

	KUNIT_ASSERT_NOT_NULL(test, addr);
	orig = READ_ONCE(*addr);
	/* The optimizer may undo the jump first; try again if it did. */
	for (tries = 0; tries < 10 && !jump_left; tries++) {
		first = (struct kprobe){ .addr = addr, .pre_handler = kpo_count };
		KUNIT_ASSERT_EQ(test, register_kprobe(&first), 0);
		KUNIT_ASSERT_TRUE(test, kpo_is_jump(addr));
		unregister_kprobe(&first);
		post = (struct kprobe){ .addr = addr, .post_handler = kpo_post };
		bad = (struct kprobe){ .addr = addr + 1,
				       .pre_handler = kpo_count };
		jump_left = READ_ONCE(*addr) == JMP32_INSN_OPCODE;
		KUNIT_ASSERT_EQ(test, register_kprobes(batch, 2), -EILSEQ);
	}
	KUNIT_ASSERT_TRUE(test, jump_left);
	wait_for_kprobe_optimizer();
	KUNIT_EXPECT_FALSE(test, kpo_site_present(addr));
	text = READ_ONCE(*addr);
	KUNIT_EXPECT_EQ(test, text, orig);
	KUNIT_EXPECT_EQ(test, kpo_straight(6), kpo_straight_expected(6));
	KUNIT_EXPECT_EQ(test, atomic_read(&kpo_hits), 0);
}

/*
 * A site refused with its batch was never armed, so nothing ran in the
 * detour buffer built at its registration: the buffer goes back clean,
 * not dirty, where every refused batch would bring the next registration
 * closer to waiting for a retiring pass (RELIABILITY.md, finding 39).
 */
static void refused_batch_leaves_no_dirty_detour(struct kunit *test)
{
	struct kprobe a = { .addr = kpo_addr(KPO_SITE),
			    .pre_handler = kpo_count };
	struct kprobe bad = { .pre_handler = kpo_count };
	struct kprobe *batch[] = { &a, &bad };
	int before, after;

	KUNIT_ASSERT_NOT_NULL(test, a.addr);
	bad.addr = a.addr + 1;	/* inside the mov */
	before = READ_ONCE(kprobe_optinsn_slots.nr_garbage);
	KUNIT_EXPECT_EQ(test, register_kprobes(batch, 2), -EILSEQ);
	after = READ_ONCE(kprobe_optinsn_slots.nr_garbage);
	KUNIT_EXPECT_LE(test, after, before);
}

/* A disabled probe is no jump; enabling it makes it one again. */
static void disable_removes_jump(struct kunit *test)
{
	struct kprobe kp = { .addr = kpo_addr(KPO_SITE), .pre_handler = kpo_count };

	KUNIT_ASSERT_NOT_NULL(test, kp.addr);
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	KUNIT_EXPECT_TRUE(test, kpo_is_jump(kp.addr));
	KUNIT_ASSERT_EQ(test, disable_kprobe(&kp), 0);
	wait_for_kprobe_optimizer();
	KUNIT_EXPECT_EQ(test, READ_ONCE(*kp.addr), 0x48);
	KUNIT_EXPECT_EQ(test, kpo_straight(1), kpo_straight_expected(1));
	KUNIT_EXPECT_EQ(test, atomic_read(&kpo_hits), 0);
	KUNIT_ASSERT_EQ(test, enable_kprobe(&kp), 0);
	KUNIT_EXPECT_TRUE(test, kpo_is_jump(kp.addr));
	KUNIT_EXPECT_EQ(test, kpo_straight(1), kpo_straight_expected(1));
	KUNIT_EXPECT_EQ(test, atomic_read(&kpo_hits), 1);
	unregister_kprobe(&kp);
}

/* debug.kprobes-optimization: 0 undoes every jump, 1 brings them back. */
static void sysctl_round_trip(struct kunit *test)
{
	struct kprobe kp = { .addr = kpo_addr(KPO_SITE), .pre_handler = kpo_count };
	int val = 7;

	KUNIT_ASSERT_NOT_NULL(test, kp.addr);
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	KUNIT_EXPECT_TRUE(test, kpo_is_jump(kp.addr));

	kpo_set_sysctl(test, 0);
	KUNIT_EXPECT_TRUE(test, kpo_is_int3(kp.addr));
	KUNIT_EXPECT_EQ(test, kpo_straight(1), kpo_straight_expected(1));

	/* Out of range: refused, nothing changes. */
	KUNIT_EXPECT_EQ(test, kprobes_test_opt_sysctl(true, &val), -EINVAL);
	KUNIT_EXPECT_EQ(test, kprobes_test_opt_sysctl(false, &val), 0);
	KUNIT_EXPECT_EQ(test, val, 0);

	kpo_set_sysctl(test, 1);
	KUNIT_EXPECT_TRUE(test, kpo_is_jump(kp.addr));
	KUNIT_EXPECT_EQ(test, kpo_straight(2), kpo_straight_expected(2));
	unregister_kprobe(&kp);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpo_hits), 2);
}

/* A kretprobe's entry probe becomes a jump too. */
static int kpo_ret_seen;
static long kpo_ret_val;

static int kpo_ret_handler(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	kpo_ret_seen++;
	kpo_ret_val = regs_return_value(regs);
	return 0;
}

static void kretprobe_entry_is_optimized(struct kunit *test)
{
	struct kretprobe rp = {
		.kp.symbol_name = "kpo_straight",
		.handler = kpo_ret_handler,
	};

	kpo_ret_seen = 0;
	KUNIT_ASSERT_EQ(test, register_kretprobe(&rp), 0);
	KUNIT_EXPECT_TRUE(test, kpo_is_jump(rp.kp.addr));
	KUNIT_EXPECT_EQ(test, kpo_straight(9), kpo_straight_expected(9));
	unregister_kretprobe(&rp);
	KUNIT_EXPECT_EQ(test, kpo_ret_seen, 1);
	KUNIT_EXPECT_EQ(test, kpo_ret_val, kpo_straight_expected(9));
}

struct kpo_caller {
	atomic_long_t calls;
	atomic_t wrong;
};

static int kpo_caller_fn(void *arg)
{
	struct kpo_caller *c = arg;
	long x = 0;

	while (!kthread_should_stop()) {
		if (kpo_straight(x) != kpo_straight_expected(x))
			atomic_inc(&c->wrong);
		atomic_long_inc(&c->calls);
		x++;
		cond_resched_tasks_rcu_qs();
	}
	return 0;
}

/* Wait until *@v passed @target; false if it stops moving (~20s). */
static bool kpo_wait_past(atomic_long_t *v, long target)
{
	int i;

	for (i = 0; i < 20000; i++) {
		if (atomic_long_read(v) > target)
			return true;
		usleep_range(1000, 2000);
	}
	return false;
}

/*
 * Register, optimize and unregister while another task calls the
 * function in a loop: every call computes the right value, and no
 * handler runs once unregister_kprobe() has returned.
 */
static void unregister_while_called(struct kunit *test)
{
	struct kprobe kp = { .addr = kpo_addr(KPO_SITE), .pre_handler = kpo_count };
	struct kpo_caller c = { .calls = ATOMIC_LONG_INIT(0), .wrong = ATOMIC_INIT(0) };
	struct task_struct *t;
	int round, cpu;
	long before, n;

	KUNIT_ASSERT_NOT_NULL(test, kp.addr);
	t = kthread_create(kpo_caller_fn, &c, "kpo_caller");
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	cpu = cpumask_any_but(cpu_online_mask, raw_smp_processor_id());
	if (cpu < nr_cpu_ids)
		kthread_bind(t, cpu);
	wake_up_process(t);

	for (round = 0; round < 3; round++) {
		kp.addr = kpo_addr(KPO_SITE);
		kp.flags = 0;
		KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
		KUNIT_EXPECT_TRUE(test, kpo_is_jump(kp.addr));
		before = atomic_read(&kpo_hits);
		KUNIT_EXPECT_TRUE(test, kpo_wait_past(&c.calls,
						      atomic_long_read(&c.calls) + 200));
		unregister_kprobe(&kp);
		n = atomic_read(&kpo_hits);
		KUNIT_EXPECT_GT(test, n, before);
		KUNIT_EXPECT_TRUE(test, kpo_wait_past(&c.calls,
						      atomic_long_read(&c.calls) + 200));
		KUNIT_EXPECT_EQ(test, (long)atomic_read(&kpo_hits), n);
	}
	kthread_stop(t);
	KUNIT_EXPECT_EQ(test, atomic_read(&c.wrong), 0);
	wait_for_kprobe_optimizer();
	KUNIT_EXPECT_EQ(test, READ_ONCE(*kp.addr), 0x48);
}

static struct kunit_case kprobes_opt_cases[] = {
	KUNIT_CASE(probe_inside_function_is_optimized),
	KUNIT_CASE(handler_regs_match_int3_form),
	KUNIT_CASE(handler_stack_trace_reaches_probed_function),
	KUNIT_CASE_PARAM(unsafe_region_is_refused, kpo_refusal_gen_params),
	KUNIT_CASE(jump_label_into_region_is_refused),
	KUNIT_CASE(post_handler_prevents_jump),
	KUNIT_CASE(detour_built_only_when_optimizing),
	KUNIT_CASE(second_probe_in_region_prevents_jump),
	KUNIT_CASE(leaving_jump_keeps_the_covering_site_out),
	KUNIT_CASE(jump_over_a_disabled_probe_goes_for_a_new_one),
	KUNIT_CASE(probe_inside_a_leaving_jump_takes_its_site_away),
	KUNIT_CASE(refused_batch_gives_the_jump_back),
	KUNIT_CASE(refused_batch_over_a_leaving_jump_leaves_no_site),
	KUNIT_CASE(refused_batch_leaves_no_dirty_detour),
	KUNIT_CASE(disable_removes_jump),
	KUNIT_CASE(sysctl_round_trip),
	KUNIT_CASE(kretprobe_entry_is_optimized),
	KUNIT_CASE(unregister_while_called),
	{}
};

static struct kunit_suite kprobes_opt_suite = {
	.name = "kprobes_opt",
	.init = kpo_init,
	.test_cases = kprobes_opt_cases,
};

kunit_test_suite(kprobes_opt_suite);

MODULE_DESCRIPTION("KUnit tests for x86 kprobe jump optimization");
MODULE_LICENSE("GPL");
