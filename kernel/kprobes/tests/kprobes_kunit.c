// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * KUnit tests for the generic kprobes core: what lib/test_kprobes.c
 * does not cover.
 */
#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/fprobe.h>
#include <linux/ftrace.h>
#include <linux/jump_label.h>
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/kthread.h>
#include <linux/memory.h>
#include <linux/module.h>
#include <linux/rethook.h>
#include <linux/sched.h>
#if defined(CONFIG_X86) || defined(CONFIG_ARM64)
#include <asm/insn.h>
#endif
#include "../internal.h"

static noinline int kpk_target(int v)
{
	return v * 7 + 1;
}

static noinline int kpk_target2(int v)
{
	return v * 5 + 2;
}

static noinline int kpk_recursed(int v)
{
	return v * 3 + 3;
}

/* Called through pointers read with READ_ONCE(): never folded. */
static int (*kpk_fn)(int) = kpk_target;
static int (*kpk_fn2)(int) = kpk_target2;
static int (*kpk_fn_rec)(int) = kpk_recursed;
#define kpk_call(v)	READ_ONCE(kpk_fn)(v)
#define kpk_call2(v)	READ_ONCE(kpk_fn2)(v)
#define kpk_call_rec(v)	READ_ONCE(kpk_fn_rec)(v)

static int kpk_data_object = 42;

#define KPK_MAX_LOG	8
static int kpk_log[KPK_MAX_LOG];
static atomic_t kpk_nlog;
static atomic_t kpk_hits;

static void kpk_reset(void)
{
	memset(kpk_log, 0, sizeof(kpk_log));
	atomic_set(&kpk_nlog, 0);
	atomic_set(&kpk_hits, 0);
}

/* Each test probe logs its id (kp.offset is 0; the id rides in a wrapper). */
struct kpk_probe {
	struct kprobe kp;
	int id;
};

static int kpk_pre(struct kprobe *p, struct pt_regs *regs)
{
	struct kpk_probe *t = container_of(p, struct kpk_probe, kp);
	int n = atomic_inc_return(&kpk_nlog) - 1;

	if (n < KPK_MAX_LOG)
		kpk_log[n] = t->id;
	atomic_inc(&kpk_hits);
	return 0;
}

/* A post_handler adds 100, so that one hit of both counts 101. */
static void __maybe_unused kpk_post(struct kprobe *p, struct pt_regs *regs,
				    unsigned long flags)
{
	atomic_add(100, &kpk_hits);
}

static void kpk_init(struct kpk_probe *t, void *addr, int id)
{
	memset(t, 0, sizeof(*t));
	t->kp.addr = addr;
	t->kp.pre_handler = kpk_pre;
	t->id = id;
}

/* Three probes on kpk_target, ids 1, 2 and 3. */
static void kpk_init3(struct kpk_probe *a, struct kpk_probe *b,
		      struct kpk_probe *c)
{
	kpk_init(a, kpk_target, 1);
	kpk_init(b, kpk_target, 2);
	kpk_init(c, kpk_target, 3);
}

static void aggregate_handlers_run_in_order_and_disable_is_per_probe(struct kunit *test)
{
	struct kpk_probe a, b, c;

	kpk_init3(&a, &b, &c);
	c.kp.flags = KPROBE_FLAG_DISABLED;

	KUNIT_ASSERT_EQ(test, register_kprobe(&a.kp), 0);
	KUNIT_ASSERT_EQ(test, register_kprobe(&b.kp), 0);
	KUNIT_ASSERT_EQ(test, register_kprobe(&c.kp), 0);
	KUNIT_EXPECT_TRUE(test, kprobe_disabled(&c.kp));

	kpk_reset();
	kpk_call(1);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpk_nlog), 2);
	KUNIT_EXPECT_EQ(test, kpk_log[0], 1);
	KUNIT_EXPECT_EQ(test, kpk_log[1], 2);

	/* Disabling the first leaves the second running. */
	KUNIT_EXPECT_EQ(test, disable_kprobe(&a.kp), 0);
	KUNIT_EXPECT_EQ(test, enable_kprobe(&c.kp), 0);
	kpk_reset();
	kpk_call(1);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpk_nlog), 2);
	KUNIT_EXPECT_EQ(test, kpk_log[0], 2);
	KUNIT_EXPECT_EQ(test, kpk_log[1], 3);

	/* All disabled: nothing runs; re-enabled: all run, in order. */
	KUNIT_EXPECT_EQ(test, disable_kprobe(&b.kp), 0);
	KUNIT_EXPECT_EQ(test, disable_kprobe(&c.kp), 0);
	kpk_reset();
	kpk_call(1);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpk_nlog), 0);
	KUNIT_EXPECT_EQ(test, enable_kprobe(&a.kp), 0);
	KUNIT_EXPECT_EQ(test, enable_kprobe(&b.kp), 0);
	KUNIT_EXPECT_EQ(test, enable_kprobe(&c.kp), 0);
	kpk_reset();
	kpk_call(1);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpk_nlog), 3);
	KUNIT_EXPECT_EQ(test, kpk_log[0], 1);
	KUNIT_EXPECT_EQ(test, kpk_log[2], 3);

	/* Unregistering the middle one keeps the others. */
	unregister_kprobe(&b.kp);
	kpk_reset();
	kpk_call(1);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpk_nlog), 2);
	KUNIT_EXPECT_EQ(test, kpk_log[0], 1);
	KUNIT_EXPECT_EQ(test, kpk_log[1], 3);

	unregister_kprobe(&a.kp);
	unregister_kprobe(&c.kp);
	kpk_reset();
	kpk_call(1);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpk_hits), 0);
	KUNIT_EXPECT_EQ(test, disable_kprobe(&a.kp), -EINVAL);
}

/* Hit kpk_target once; return the ids logged, as a number like 12 for [1, 2]. */
static int kpk_hit_ids(void)
{
	int i, n, ids = 0;

	kpk_reset();
	kpk_call(1);
	n = min(atomic_read(&kpk_nlog), KPK_MAX_LOG);
	for (i = 0; i < n; i++)
		ids = ids * 10 + kpk_log[i];
	return ids;
}

/*
 * A site with one live user calls it without walking the user list: every
 * change of the live set (join, enable, disable, unregister) must move
 * that shortcut, or a disabled probe keeps firing and a new one never does.
 */
static void single_live_user_follows_every_change(struct kunit *test)
{
	struct kpk_probe a, b, c;

	kpk_init3(&a, &b, &c);
	b.kp.flags = KPROBE_FLAG_DISABLED;

	KUNIT_ASSERT_EQ(test, register_kprobe(&a.kp), 0);
	KUNIT_EXPECT_EQ(test, kpk_hit_ids(), 1);
	KUNIT_ASSERT_EQ(test, register_kprobe(&b.kp), 0);
	KUNIT_EXPECT_EQ(test, kpk_hit_ids(), 1);
	KUNIT_EXPECT_EQ(test, enable_kprobe(&b.kp), 0);
	KUNIT_EXPECT_EQ(test, kpk_hit_ids(), 12);
	KUNIT_EXPECT_EQ(test, disable_kprobe(&a.kp), 0);
	KUNIT_EXPECT_EQ(test, kpk_hit_ids(), 2);
	unregister_kprobe(&b.kp);
	KUNIT_EXPECT_EQ(test, kpk_hit_ids(), 0);
	KUNIT_EXPECT_EQ(test, enable_kprobe(&a.kp), 0);
	KUNIT_EXPECT_EQ(test, kpk_hit_ids(), 1);
	KUNIT_ASSERT_EQ(test, register_kprobe(&c.kp), 0);
	KUNIT_EXPECT_EQ(test, kpk_hit_ids(), 13);
	unregister_kprobe(&a.kp);
	KUNIT_EXPECT_EQ(test, kpk_hit_ids(), 3);
	unregister_kprobe(&c.kp);
	KUNIT_EXPECT_EQ(test, kpk_hit_ids(), 0);
}

static void register_kprobes_rolls_back_on_bad_entry(struct kunit *test)
{
	struct kpk_probe a, b, bad;
	struct kprobe *kps[3] = { &a.kp, &b.kp, &bad.kp };

	kpk_init(&a, kpk_target, 1);
	kpk_init(&b, kpk_target2, 2);
	kpk_init(&bad, NULL, 3);
	bad.kp.symbol_name = "kpk_no_such_symbol_anywhere";

	KUNIT_EXPECT_EQ(test, register_kprobes(kps, 3), -ENOENT);
	kpk_reset();
	kpk_call(1);
	kpk_call2(1);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpk_hits), 0);
	/* Nothing stayed registered: these are no-ops / refusals. */
	KUNIT_EXPECT_EQ(test, disable_kprobe(&a.kp), -EINVAL);
	KUNIT_EXPECT_EQ(test, disable_kprobe(&b.kp), -EINVAL);

	/* The same probes can be registered afterwards. */
	KUNIT_ASSERT_EQ(test, register_kprobes(kps, 2), 0);
	kpk_reset();
	kpk_call(1);
	kpk_call2(1);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpk_hits), 2);
	unregister_kprobes(kps, 2);

	KUNIT_EXPECT_EQ(test, register_kprobes(kps, 0), -EINVAL);
}

#ifdef CONFIG_X86
static unsigned long kpk_insn_at(void *fn, unsigned long min_off,
				 unsigned int min_len);

static bool kpk_site_exists(void *addr)
{
	bool ret;

	preempt_disable();
	ret = get_kprobe(addr);
	preempt_enable();
	return ret;
}

/*
 * A batch that fails while attaching (the instruction check is done by
 * the arch as the site is prepared): the probe that joined a site
 * already in use and the site the batch created are taken back, the
 * probe that was there before keeps running.
 */
static void register_kprobes_rollback_after_attach_keeps_others(struct kunit *test)
{
	unsigned long mid = kpk_insn_at(kpk_target2, 4, 2);
	struct kpk_probe keep, a, b, bad;
	struct kprobe *kps[3] = { &a.kp, &b.kp, &bad.kp };

	KUNIT_ASSERT_NE(test, mid, 0UL);
	kpk_init(&keep, kpk_target, 1);
	kpk_init(&a, kpk_target, 2);
	kpk_init(&b, kpk_target2, 3);
	kpk_init(&bad, (void *)mid + 1, 4);
	KUNIT_ASSERT_EQ(test, register_kprobe(&keep.kp), 0);
	KUNIT_ASSERT_FALSE(test, kpk_site_exists(kpk_target2));

	KUNIT_EXPECT_EQ(test, register_kprobes(kps, 3), -EILSEQ);
	kpk_reset();
	kpk_call(1);
	kpk_call2(1);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpk_hits), 1);
	KUNIT_EXPECT_EQ(test, kpk_log[0], 1);
	KUNIT_EXPECT_TRUE(test, list_empty(&a.kp.list));
	KUNIT_EXPECT_TRUE(test, list_empty(&b.kp.list));
	KUNIT_EXPECT_EQ(test, disable_kprobe(&a.kp), -EINVAL);
	KUNIT_EXPECT_EQ(test, disable_kprobe(&b.kp), -EINVAL);
	/* The site made for b is gone; keep's is still there. */
	KUNIT_EXPECT_FALSE(test, kpk_site_exists(b.kp.addr));
	KUNIT_EXPECT_TRUE(test, kpk_site_exists(keep.kp.addr));

	/* The two good ones register afterwards, next to keep. */
	KUNIT_ASSERT_EQ(test, register_kprobes(kps, 2), 0);
	kpk_reset();
	kpk_call(1);
	kpk_call2(1);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpk_hits), 3);
	KUNIT_EXPECT_EQ(test, kpk_log[0], 1);
	KUNIT_EXPECT_EQ(test, kpk_log[1], 2);
	KUNIT_EXPECT_EQ(test, kpk_log[2], 3);
	unregister_kprobes(kps, 2);
	unregister_kprobe(&keep.kp);
	KUNIT_EXPECT_FALSE(test, kpk_site_exists(keep.kp.addr));
}

/*
 * Slots of a site that was never armed cannot have run: a batch refused
 * at its last probe gives the others' boost slots back for reuse at
 * once.  A sweep of mid-function probes refused batch after batch used
 * to release them dirty, until each next registration waited for a
 * retiring pass and its RCU Tasks grace period (RELIABILITY.md, finding
 * 39).
 */
static int kpk_dirty_slots(void)
{
	return READ_ONCE(kprobe_insn_slots.nr_garbage);
}

static void refused_batch_leaves_no_dirty_slot(struct kunit *test)
{
	unsigned long site = kpk_insn_at(kpk_target, 9, 1);
	unsigned long mid = kpk_insn_at(kpk_target2, 4, 2);
	struct kpk_probe a, bad;
	struct kprobe *kps[2] = { &a.kp, &bad.kp };

	KUNIT_ASSERT_NE(test, site, 0UL);
	KUNIT_ASSERT_NE(test, mid, 0UL);
	kpk_init(&a, (void *)site, 1);
	kpk_init(&bad, (void *)mid + 1, 2);
	/* No slot released dirty before, and no pass still to end. */
	kprobe_insn_slots_flush();
	KUNIT_ASSERT_EQ(test, kpk_dirty_slots(), 0);

	KUNIT_EXPECT_EQ(test, register_kprobes(kps, 2), -EILSEQ);
	/* a's site was prepared with a boost slot, then rolled back. */
	KUNIT_EXPECT_NOT_NULL(test, a.kp.ainsn.boost);
	KUNIT_EXPECT_FALSE(test, kpk_site_exists(a.kp.addr));
	KUNIT_EXPECT_EQ(test, kpk_dirty_slots(), 0);
}
#else
static void register_kprobes_rollback_after_attach_keeps_others(struct kunit *test)
{
	kunit_skip(test, "instruction boundaries are checked on x86 only");
}

static void refused_batch_leaves_no_dirty_slot(struct kunit *test)
{
	kunit_skip(test, "instruction boundaries are checked on x86 only");
}
#endif

static int kpk_refusal(void *addr, const char *sym, unsigned int offset)
{
	struct kpk_probe t;
	int ret;

	kpk_init(&t, addr, 0);
	t.kp.symbol_name = sym;
	t.kp.offset = offset;
	ret = register_kprobe(&t.kp);
	if (!ret)
		unregister_kprobe(&t.kp);
	return ret;
}

static void refusals_have_their_errno(struct kunit *test)
{
	/* Both addr and symbol_name, or neither. */
	KUNIT_EXPECT_EQ(test, kpk_refusal(kpk_target, "kpk_target", 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, kpk_refusal(NULL, NULL, 0), -EINVAL);
	/* Unknown symbol. */
	KUNIT_EXPECT_EQ(test, kpk_refusal(NULL, "kpk_no_such_symbol_anywhere", 0),
			-ENOENT);
	/* Blacklisted: NOKPROBE_SYMBOL() and the core's own hit path. */
	KUNIT_EXPECT_EQ(test, kpk_refusal(NULL, "get_kprobe", 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, kpk_refusal(NULL, "kprobes_inc_nmissed_count", 0),
			-EINVAL);
	/* Text no probe may trap in: noinstr, and the arch's entry code. */
#ifdef CONFIG_X86
	KUNIT_EXPECT_EQ(test, kpk_refusal(NULL, "exc_int3", 0), -EINVAL);
#endif
#ifdef CONFIG_X86_64
	KUNIT_EXPECT_EQ(test, kpk_refusal(NULL, "entry_SYSCALL_64", 0), -EINVAL);
#endif
#ifdef CONFIG_ARM64
	KUNIT_EXPECT_EQ(test, kpk_refusal(NULL, "el1h_64_sync_handler", 0),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, kpk_refusal(NULL, "vectors", 0), -EINVAL);
#endif
	/* The padding before a function, which CFI and call depth use. */
	if (IS_ENABLED(CONFIG_CALL_PADDING))
		KUNIT_EXPECT_EQ(test, kpk_refusal(NULL, "__pfx_kpk_target", 0),
				-EINVAL);
	/* Not text. */
	KUNIT_EXPECT_EQ(test, kpk_refusal(&kpk_data_object, NULL, 0), -EINVAL);
	/* Sanity: the target itself is fine. */
	KUNIT_EXPECT_EQ(test, kpk_refusal(kpk_target, NULL, 0), 0);
}

/*
 * An offset inside the landing pad at a function's start (ENDBR with
 * IBT, BTI on arm64) names no instruction: refused with -EILSEQ, by
 * symbol and by address alike.  Offset 0 and the pad's size both mean
 * the entry; a kretprobe inside the pad is not at the entry (-EINVAL).
 */
static void landing_pad_offsets_are_eilseq(struct kunit *test)
{
	struct kretprobe rp = { .kp.symbol_name = "kpk_target" };
	struct kpk_probe at0, atpad;
	unsigned int off;

	for (off = 1; off < 4; off++) {
		KUNIT_EXPECT_EQ_MSG(test, kpk_refusal(NULL, "kpk_target", off),
				    -EILSEQ, "offset %u", off);
		KUNIT_EXPECT_EQ_MSG(test,
				    kpk_refusal((void *)kpk_target + off, NULL, 0),
				    -EILSEQ, "address +%u", off);
		KUNIT_EXPECT_EQ_MSG(test,
				    kprobe_on_func_entry(NULL, "kpk_target", off),
				    -EINVAL, "entry check +%u", off);
		rp.kp.offset = off;
		KUNIT_EXPECT_EQ_MSG(test, register_kretprobe(&rp), -EINVAL,
				    "kretprobe +%u", off);
	}

	kpk_init(&at0, NULL, 1);
	at0.kp.symbol_name = "kpk_target";
	KUNIT_ASSERT_EQ(test, register_kprobe(&at0.kp), 0);
	KUNIT_EXPECT_EQ(test, kprobe_on_func_entry(NULL, "kpk_target", 0), 0);
	if ((unsigned long)at0.kp.addr != (unsigned long)kpk_target) {
		/* A landing pad: its size is the entry too, the same place. */
		off = (unsigned long)at0.kp.addr - (unsigned long)kpk_target;
		kpk_init(&atpad, NULL, 2);
		atpad.kp.symbol_name = "kpk_target";
		atpad.kp.offset = off;
		KUNIT_EXPECT_EQ(test, register_kprobe(&atpad.kp), 0);
		KUNIT_EXPECT_PTR_EQ(test, atpad.kp.addr, at0.kp.addr);
		KUNIT_EXPECT_EQ(test,
				kprobe_on_func_entry(NULL, "kpk_target", off), 0);
		kpk_reset();
		kpk_call(1);
		KUNIT_EXPECT_EQ(test, atomic_read(&kpk_hits), 2);
		unregister_kprobe(&atpad.kp);
	} else if (IS_ENABLED(CONFIG_X86_KERNEL_IBT)) {
		KUNIT_FAIL(test, "no ENDBR skipped at kpk_target");
	}
	unregister_kprobe(&at0.kp);
}

#ifdef CONFIG_X86
/*
 * The first instruction of @fn at or after @min_off (past any landing
 * pad, inside which no offset is accepted) that is at least
 * @min_len bytes long, or 0.
 */
static unsigned long kpk_insn_at(void *fn, unsigned long min_off,
				 unsigned int min_len)
{
	unsigned long start = (unsigned long)fn, size, off, a;
	struct insn insn;

	if (!kallsyms_lookup_size_offset(start, &size, &off))
		return 0;
	for (a = start; a < start + size; a += insn.length) {
		if (insn_decode_kernel(&insn, (void *)a))
			return 0;
		if (a - start >= min_off && insn.length >= min_len)
			return a;
	}
	return 0;
}

static void mid_instruction_is_eilseq(struct kunit *test)
{
	unsigned long a = kpk_insn_at(kpk_target2, 4, 2);

	KUNIT_ASSERT_NE(test, a, 0UL);
	KUNIT_EXPECT_EQ(test, kpk_refusal((void *)a + 1, NULL, 0), -EILSEQ);
	KUNIT_EXPECT_EQ(test, kpk_refusal((void *)a, NULL, 0), 0);
}

/*
 * A probe with a post_handler joining a breakpoint site that was set
 * up for boosting (no post handler) still gets its post_handler run.
 */
static void post_handler_joins_boosted_site(struct kunit *test)
{
	/* Past the ftrace call, so that this is a breakpoint site. */
	unsigned long a = kpk_insn_at(kpk_target, 9, 1);
	struct kpk_probe pre_only, with_post;

	KUNIT_ASSERT_NE(test, a, 0UL);
	kpk_init(&pre_only, (void *)a, 1);
	kpk_init(&with_post, (void *)a, 2);
	with_post.kp.post_handler = kpk_post;
	KUNIT_ASSERT_EQ(test, register_kprobe(&pre_only.kp), 0);
	kpk_reset();
	kpk_call(1);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpk_hits), 1);
	KUNIT_ASSERT_EQ(test, register_kprobe(&with_post.kp), 0);
	kpk_reset();
	kpk_call(1);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpk_hits), 102);
	unregister_kprobe(&with_post.kp);
	kpk_reset();
	kpk_call(1);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpk_hits), 1);
	unregister_kprobe(&pre_only.kp);
}

#ifdef CONFIG_OPTPROBES
static bool kpk_site_optimized(unsigned long addr)
{
	struct kprobe *p;
	bool ret;

	preempt_disable();
	p = get_kprobe((void *)addr);
	ret = p && kprobe_optimized(p);
	preempt_enable();
	return ret;
}

/* Is the site at @addr left with no user, its jump still to be undone? */
static bool kpk_site_unused(unsigned long addr)
{
	struct kprobe_site *s;
	bool ret;

	mutex_lock(&kprobe_mutex);
	s = kprobe_site_find(addr);
	ret = s && !s->nr_users;
	mutex_unlock(&kprobe_mutex);
	return ret;
}

/*
 * The "enabled" switch turned off just after the last user of a jump
 * left, before the optimizer undid the jump: the switch undoes it and
 * disarms the site, and the site must go too.  It stayed in the table
 * for good, with its slot and detour buffer (another one each time).
 * The optimizer runs a few jiffies after the unregistration; a try that
 * finds it has already run is repeated.
 */
static void disarm_all_frees_a_site_whose_jump_was_leaving(struct kunit *test)
{
	unsigned long a = kpk_insn_at(kpk_target, 9, 1);
	struct kpk_probe p;
	int tries;

	KUNIT_ASSERT_NE(test, a, 0UL);
	for (tries = 0; tries < 10; tries++) {
		kpk_init(&p, (void *)a, 1);
		KUNIT_ASSERT_EQ(test, register_kprobe(&p.kp), 0);
		wait_for_kprobe_optimizer();
		if (!kpk_site_optimized(a)) {
			unregister_kprobe(&p.kp);
			kunit_skip(test, "no jump at %pS here", (void *)a);
		}
		unregister_kprobe(&p.kp);
		if (kpk_site_unused(a))
			break;
		wait_for_kprobe_optimizer();
	}
	if (tries == 10)
		kunit_skip(test, "the optimizer always came first");
	kprobe_disarm_all();
	wait_for_kprobe_optimizer();
	KUNIT_EXPECT_FALSE(test, kpk_site_exists((void *)a));
	KUNIT_EXPECT_EQ(test, kprobe_arm_all(), 0);
	KUNIT_EXPECT_EQ(test, kpk_call(2), 15);
}
#else
static void disarm_all_frees_a_site_whose_jump_was_leaving(struct kunit *test)
{
	kunit_skip(test, "no jump optimization");
}
#endif
#else
static void post_handler_joins_boosted_site(struct kunit *test)
{
	kunit_skip(test, "x86 only");
}

static void disarm_all_frees_a_site_whose_jump_was_leaving(struct kunit *test)
{
	kunit_skip(test, "x86 only");
}

static void mid_instruction_is_eilseq(struct kunit *test)
{
	kunit_skip(test, "instruction boundaries are checked on x86 only");
}
#endif

#if defined(CONFIG_KPROBES_RACE_WINDOW)
/*
 * The site whose post_handler a hit is to lose, and whether the hit has
 * run its pre_handlers (then the arch has read, or is about to read,
 * the post_handler; the next race window is between that and the call).
 */
static struct kprobe *kpk_drop_post_site;
static bool kpk_drop_post_now;

static int kpk_pre_then_drop_post(struct kprobe *p, struct pt_regs *regs)
{
	WRITE_ONCE(kpk_drop_post_now, true);
	return kpk_pre(p, regs);
}

/* What the last user with a post_handler leaving does to the site. */
static void kpk_drop_post(void)
{
	struct kprobe *site = READ_ONCE(kpk_drop_post_site);

	if (site && READ_ONCE(kpk_drop_post_now)) {
		WRITE_ONCE(site->post_handler, NULL);
		WRITE_ONCE(kpk_drop_post_site, NULL);
	}
}

/* One hit at @addr that loses the site's post_handler after its check. */
static void kpk_post_goes_mid_hit(struct kunit *test, void *addr)
{
	struct kpk_probe t;
	int ret;

	kpk_init(&t, addr, 1);
	t.kp.pre_handler = kpk_pre_then_drop_post;
	t.kp.post_handler = kpk_post;
	ret = register_kprobe(&t.kp);
	KUNIT_EXPECT_EQ(test, ret, 0);
	if (ret)
		return;
	preempt_disable();
	WRITE_ONCE(kpk_drop_post_site, get_kprobe(t.kp.addr));
	preempt_enable();
	WRITE_ONCE(kpk_drop_post_now, false);
	kpk_reset();
	kpk_call(1);
	/* The hit called the fan-out it had checked: the user's handler. */
	KUNIT_EXPECT_EQ(test, atomic_read(&kpk_hits), 101);
	KUNIT_EXPECT_NULL(test, READ_ONCE(kpk_drop_post_site));
	WRITE_ONCE(kpk_drop_post_site, NULL);
	unregister_kprobe(&t.kp);
}

/*
 * A site's post_handler goes to NULL when its last user with one leaves
 * (kprobe_site_update_post()), while the site may still be hit.  A hit
 * that checked it and read it again to call it called NULL: arm64's
 * ftrace path did, and the ftrace-site unregister test oopsed once in
 * a few runs on a loaded host.  Here the hook of the race window does
 * what the leaving user does, exactly between the check and the call,
 * on the ftrace path and the breakpoint path.
 */
static void post_handler_may_go_mid_hit(struct kunit *test)
{
	void *body = NULL;

#ifdef CONFIG_X86
	body = (void *)kpk_insn_at(kpk_target, 9, 1);
#elif defined(CONFIG_ARM64)
	if (ftrace_location((unsigned long)kpk_target))
		body = (void *)ftrace_location((unsigned long)kpk_target) +
		       AARCH64_INSN_SIZE;
#endif
	kprobes_set_race_window(1);
	WRITE_ONCE(kprobe_race_test_hook, kpk_drop_post);
	kpk_post_goes_mid_hit(test, kpk_target);
	if (body)
		kpk_post_goes_mid_hit(test, body);
	WRITE_ONCE(kprobe_race_test_hook, NULL);
	kprobes_set_race_window(0);
	if (!body)
		kunit_skip(test, "no breakpoint site known in kpk_target here");
}
#else
static void post_handler_may_go_mid_hit(struct kunit *test)
{
	kunit_skip(test, "needs CONFIG_KPROBES_RACE_WINDOW");
}
#endif

#ifdef CONFIG_KRETPROBES
/* Which return handler ran when, and the return address it saw. */
struct kpk_ret {
	struct kretprobe rp;
	int id;
};

static unsigned long kpk_ret_seen[KPK_MAX_LOG];

static int kpk_ret_handler(struct kretprobe_instance *ri,
			   struct pt_regs *regs)
{
	struct kpk_ret *t = container_of(get_kretprobe(ri), struct kpk_ret, rp);
	int n = atomic_inc_return(&kpk_nlog) - 1;

	if (n < KPK_MAX_LOG) {
		kpk_log[n] = t->id;
		kpk_ret_seen[n] = get_kretprobe_retaddr(ri);
	}
	return 0;
}

/* Not a tail call: the hooked call returns here. */
static noinline int kpk_stacked_caller(void)
{
	return kpk_call(1) + 1;
}

/*
 * Several return probes on one function: every handler sees the real
 * return address (in Linux 6.12, all but the one hooked first saw the
 * trampoline), and they run newest hook first, that is in the reverse
 * order of their entry handlers, which run in registration order.
 */
static void stacked_kretprobes_see_the_real_return_address(struct kunit *test)
{
	struct kpk_ret r[3] = {};
	unsigned long size, off;
	int i;

	for (i = 0; i < 3; i++) {
		r[i].rp.kp.symbol_name = "kpk_target";
		r[i].rp.handler = kpk_ret_handler;
		r[i].id = i + 1;
		KUNIT_ASSERT_EQ(test, register_kretprobe(&r[i].rp), 0);
	}
	kpk_reset();
	memset(kpk_ret_seen, 0, sizeof(kpk_ret_seen));
	KUNIT_EXPECT_EQ(test, kpk_stacked_caller(), 9);
	for (i = 0; i < 3; i++)
		unregister_kretprobe(&r[i].rp);

	KUNIT_ASSERT_EQ(test, atomic_read(&kpk_nlog), 3);
	for (i = 0; i < 3; i++) {
		KUNIT_EXPECT_EQ(test, kpk_log[i], 3 - i);
		KUNIT_EXPECT_FALSE(test, is_rethook_trampoline(kpk_ret_seen[i]));
		KUNIT_EXPECT_EQ(test, kpk_ret_seen[i], kpk_ret_seen[0]);
	}
	KUNIT_ASSERT_TRUE(test, kallsyms_lookup_size_offset(kpk_ret_seen[0],
							    &size, &off));
	KUNIT_EXPECT_EQ(test, kpk_ret_seen[0] - off,
			(unsigned long)kpk_stacked_caller);
}
#else
static void stacked_kretprobes_see_the_real_return_address(struct kunit *test)
{
	kunit_skip(test, "no kretprobes");
}
#endif

#if defined(CONFIG_KRETPROBES) && defined(CONFIG_KPROBES_RACE_WINDOW)
/*
 * A return handler that read its rethook's handler after the kretprobe
 * was taken out of every lookup, but before the rethook was stopped.
 */
enum { KPK_LATE_IDLE, KPK_LATE_GO, KPK_LATE_IN_RETURN };
static atomic_t kpk_late_state;
static struct task_struct *kpk_late_caller;
static bool kpk_late_unregistered;
static atomic_t kpk_late_entered, kpk_late_handled, kpk_late_after;

/* Hooked; returns when told to, or after two seconds. */
static noinline int kpk_late_target(int v)
{
	unsigned long end = jiffies + 2 * HZ;

	while (atomic_read(&kpk_late_state) != KPK_LATE_GO &&
	       time_before(jiffies, end))
		usleep_range(1000, 2000);
	return v + 1;
}

static int kpk_late_caller_fn(void *arg)
{
	kpk_late_target(1);
	while (!kthread_should_stop())
		usleep_range(1000, 2000);
	return 0;
}

static int kpk_late_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	atomic_inc(&kpk_late_entered);
	return 0;
}

static int kpk_late_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	atomic_inc(&kpk_late_handled);
	if (READ_ONCE(kpk_late_unregistered))
		atomic_inc(&kpk_late_after);
	return 0;
}

/*
 * In the return path, between reading the handler and calling it (an
 * RCU read-side section): hold the caller's return until unregistration
 * has returned, or 200 ms.
 */
static void kpk_late_in_return(void)
{
	int i;

	if (current != READ_ONCE(kpk_late_caller) ||
	    atomic_cmpxchg(&kpk_late_state, KPK_LATE_GO,
			   KPK_LATE_IN_RETURN) != KPK_LATE_GO)
		return;
	for (i = 0; i < 200 && !READ_ONCE(kpk_late_unregistered); i++)
		mdelay(1);
}

/*
 * Between taking the kretprobe out and stopping its rethook: a full
 * grace period, then the hooked call returns and reads the handler.
 */
static void kpk_late_unreg_point(void)
{
	unsigned long end = jiffies + 2 * HZ;

	synchronize_rcu();
	atomic_set(&kpk_late_state, KPK_LATE_GO);
	while (atomic_read(&kpk_late_state) != KPK_LATE_IN_RETURN &&
	       time_before(jiffies, end))
		usleep_range(1000, 2000);
}

/*
 * No return handler runs after unregister_kretprobe() returns, even one
 * of a call that returned while the kretprobe was going: it began after
 * the probe left every lookup, so only a grace period noted after the
 * rethook stopped covers it.  Before that, a grace period in between let
 * the unregistration return while the handler was about to run.
 */
static void return_handler_never_runs_after_unregister(struct kunit *test)
{
	struct kretprobe rp = { .kp.addr = (void *)kpk_late_target,
				.entry_handler = kpk_late_entry,
				.handler = kpk_late_ret };
	unsigned int here, there;
	struct task_struct *t;
	unsigned long end;

	if (num_online_cpus() < 2)
		kunit_skip(test, "needs two CPUs");
	atomic_set(&kpk_late_state, KPK_LATE_IDLE);
	atomic_set(&kpk_late_entered, 0);
	atomic_set(&kpk_late_handled, 0);
	atomic_set(&kpk_late_after, 0);
	WRITE_ONCE(kpk_late_unregistered, false);
	KUNIT_ASSERT_EQ(test, register_kretprobe(&rp), 0);

	/* The caller on one CPU, the unregistration on another. */
	here = cpumask_first(cpu_online_mask);
	there = cpumask_next(here, cpu_online_mask);
	KUNIT_ASSERT_EQ(test, set_cpus_allowed_ptr(current, cpumask_of(here)), 0);
	t = kthread_create_on_cpu(kpk_late_caller_fn, NULL, there, "kpk_late");
	if (IS_ERR(t)) {
		unregister_kretprobe(&rp);
		set_cpus_allowed_ptr(current, cpu_possible_mask);
		KUNIT_FAIL(test, "no caller thread");
		return;
	}
	WRITE_ONCE(kpk_late_caller, t);
	wake_up_process(t);
	end = jiffies + 2 * HZ;
	while (!atomic_read(&kpk_late_entered) && time_before(jiffies, end))
		usleep_range(1000, 2000);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpk_late_entered), 1);

	kprobes_set_race_window(1);
	WRITE_ONCE(kprobe_race_test_hook, kpk_late_in_return);
	WRITE_ONCE(kretprobe_unreg_test_hook, kpk_late_unreg_point);
	unregister_kretprobe(&rp);
	WRITE_ONCE(kpk_late_unregistered, true);
	WRITE_ONCE(kretprobe_unreg_test_hook, NULL);
	WRITE_ONCE(kprobe_race_test_hook, NULL);
	kprobes_set_race_window(0);

	kthread_stop(t);
	WRITE_ONCE(kpk_late_caller, NULL);
	set_cpus_allowed_ptr(current, cpu_possible_mask);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpk_late_state), KPK_LATE_IN_RETURN);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpk_late_handled), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpk_late_after), 0);
}
#else
static void return_handler_never_runs_after_unregister(struct kunit *test)
{
	kunit_skip(test, "needs kretprobes and CONFIG_KPROBES_RACE_WINDOW");
}
#endif

/*
 * A batch that names one probe twice is refused at once (-EINVAL), before
 * anything of it is attached: it used to reach the attach, which warned
 * about a probe registered twice.
 */
static void batch_naming_a_probe_twice_is_refused(struct kunit *test)
{
	struct kprobe kp = { .addr = (void *)kpk_target, .pre_handler = kpk_pre };
	struct kprobe other = { .addr = (void *)kpk_target2,
				.pre_handler = kpk_pre };
	struct kprobe *kps[] = { &kp, &other, &kp };
	bool warned = test_taint(TAINT_WARN);

	KUNIT_EXPECT_EQ(test, register_kprobes(kps, 3), -EINVAL);
	/* no WARN on the way (one earlier would hide it) */
	if (!warned)
		KUNIT_EXPECT_FALSE(test, test_taint(TAINT_WARN));
	KUNIT_EXPECT_FALSE(test, kprobe_is_registered(&kp));
	KUNIT_EXPECT_FALSE(test, kprobe_is_registered(&other));
	/* both register afterwards */
	KUNIT_ASSERT_EQ(test, register_kprobes(kps, 2), 0);
	unregister_kprobes(kps, 2);
}

static int kpk_recursing_pre(struct kprobe *p, struct pt_regs *regs)
{
	atomic_inc(&kpk_hits);
	kpk_call_rec(2);	/* hits this very probe again */
	return 0;
}

static void recursion_counts_nmissed_on_every_probe(struct kunit *test)
{
	struct kprobe a = { .addr = (void *)kpk_recursed,
			    .pre_handler = kpk_recursing_pre };
	struct kprobe b = { .addr = (void *)kpk_recursed,
			    .pre_handler = kpk_recursing_pre };

	KUNIT_ASSERT_EQ(test, register_kprobe(&a), 0);
	kpk_reset();
	kpk_call_rec(1);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpk_hits), 1);
	KUNIT_EXPECT_EQ(test, a.nmissed, 1UL);

	KUNIT_ASSERT_EQ(test, register_kprobe(&b), 0);
	kpk_reset();
	kpk_call_rec(1);
	/* Both handlers run; each nested hit is missed by both probes. */
	KUNIT_EXPECT_EQ(test, atomic_read(&kpk_hits), 2);
	KUNIT_EXPECT_EQ(test, a.nmissed, 3UL);
	KUNIT_EXPECT_EQ(test, b.nmissed, 2UL);
	unregister_kprobe(&a);
	unregister_kprobe(&b);
}

#ifdef CONFIG_KRETPROBES
static int (*kpk_nest_fn)(int depth);

static noinline int kpk_nest(int depth)
{
	return depth > 0 ? READ_ONCE(kpk_nest_fn)(depth - 1) + 1 : 0;
}

/* The same without an ftrace site: a probe at its entry is a breakpoint. */
static noinline notrace int kpk_nest_bp(int depth)
{
	return depth > 0 ? READ_ONCE(kpk_nest_fn)(depth - 1) + 1 : 0;
}

static int kpk_nest_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	atomic_inc(&kpk_hits);
	return 0;
}

/*
 * A kretprobe's misses say why: nested hits are the kprobe's, returns
 * that could not be hooked are its rethook's, by reason.  Four nested
 * calls with maxactive 2: two hooked, two past maxactive (nest_full).
 */
static void kretprobe_misses_say_why(struct kunit *test)
{
	struct kretprobe rp = {
		.kp.addr = (kprobe_opcode_t *)kpk_nest,
		.handler = kpk_nest_ret,
		.maxactive = 2,
	};

	WRITE_ONCE(kpk_nest_fn, kpk_nest);
	KUNIT_ASSERT_EQ(test, register_kretprobe(&rp), 0);
	kpk_reset();
	KUNIT_EXPECT_EQ(test, kpk_nest(3), 3);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpk_hits), 2);
	KUNIT_EXPECT_EQ(test, rp.nmissed, 2);
	KUNIT_EXPECT_EQ(test, rp.kp.nmissed, 0UL);
	KUNIT_EXPECT_EQ(test, rethook_nmissed(rp.rh, RETHOOK_MISS_NEST_FULL), 2UL);
	KUNIT_EXPECT_EQ(test, rethook_nmissed(rp.rh, RETHOOK_MISS_NO_MEM), 0UL);
	KUNIT_EXPECT_EQ(test, rethook_nmissed(rp.rh, RETHOOK_MISS_STOPPED), 0UL);
	KUNIT_EXPECT_EQ(test, rethook_nmissed(rp.rh, RETHOOK_MISS_NO_RCU), 0UL);
	KUNIT_EXPECT_EQ(test, rethook_nmissed(rp.rh, RETHOOK_MISS_ORDER), 0UL);
	unregister_kretprobe(&rp);
}

#ifdef CONFIG_FPROBE
static atomic_t kpk_fexits, kpk_nest_entries;

static int kpk_nest_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	atomic_inc(&kpk_nest_entries);
	return 0;
}

static void kpk_fexit(struct fprobe *fp, unsigned long entry_ip,
		      unsigned long ret_ip, struct pt_regs *regs, void *data)
{
	atomic_inc(&kpk_fexits);
}

/*
 * An fprobe exit on a function of the kretprobe's own hit path: its
 * return is hooked first, then, below it, the kretprobe's function's.
 * That function's hook is refused and counted (out_of_order), and both
 * calls return where they should.  Hooking it anyway left the two
 * returns out of order: the inner one took the kretprobe's node for a
 * call that did not return, and the probed function's return found none
 * and hit the BUG() in rethook_trampoline_handler().  @fn is entered
 * through ftrace (kpk_nest) or a breakpoint (kpk_nest_bp): the hook
 * finds the probed call's return address from the ftrace regs or from
 * the exception's, and the handler runs on the ftrace caller's stack or
 * the breakpoint's.  With @entry the kretprobe has an entry_handler too,
 * which must not run where the return is refused: an entry without its
 * return (it ran three times before the refusal moved ahead of it).
 */
static void kpk_kretprobe_under_fexit(struct kunit *test, int (*fn)(int),
				      bool breakpoint, bool entry)
{
	struct kretprobe rp = {
		.kp.addr = (kprobe_opcode_t *)fn,
		.handler = kpk_nest_ret,
		.entry_handler = entry ? kpk_nest_entry : NULL,
	};
	struct kretprobe alone = {
		.kp.addr = (kprobe_opcode_t *)fn,
		.handler = kpk_nest_ret,
	};
	struct fprobe fp = { .exit_handler = kpk_fexit };

	WRITE_ONCE(kpk_nest_fn, fn);
	KUNIT_ASSERT_EQ(test, register_kretprobe(&rp), 0);
	if (breakpoint)
		KUNIT_EXPECT_FALSE(test, kprobe_ftrace(&rp.kp));
	if (register_fprobe(&fp, "kretprobe_entry", NULL)) {
		unregister_kretprobe(&rp);
		kunit_skip(test, "kretprobe_entry() cannot be traced");
	}
	kpk_reset();
	atomic_set(&kpk_fexits, 0);
	atomic_set(&kpk_nest_entries, 0);
	KUNIT_EXPECT_EQ(test, fn(2), 2);
	unregister_fprobe(&fp);

	/* kretprobe_entry() ran and returned once per call of @fn. */
	KUNIT_EXPECT_EQ(test, atomic_read(&kpk_fexits), 3);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpk_hits), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpk_nest_entries), 0);
	KUNIT_EXPECT_EQ(test, rp.nmissed, 3);
	KUNIT_EXPECT_EQ(test, rethook_nmissed(rp.rh, RETHOOK_MISS_ORDER), 3UL);
	unregister_kretprobe(&rp);

	/* Alone, a kretprobe there hooks every return. */
	KUNIT_ASSERT_EQ(test, register_kretprobe(&alone), 0);
	kpk_reset();
	KUNIT_EXPECT_EQ(test, fn(2), 2);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpk_hits), 3);
	KUNIT_EXPECT_EQ(test, alone.nmissed, 0);
	unregister_kretprobe(&alone);
}

static void kretprobe_under_fprobe_exit_of_its_path(struct kunit *test)
{
	kpk_kretprobe_under_fexit(test, kpk_nest, false, false);
	kpk_kretprobe_under_fexit(test, kpk_nest_bp, true, false);
	kpk_kretprobe_under_fexit(test, kpk_nest, false, true);
	kpk_kretprobe_under_fexit(test, kpk_nest_bp, true, true);
}
#else
static void kretprobe_under_fprobe_exit_of_its_path(struct kunit *test)
{
	kunit_skip(test, "no fprobe");
}
#endif
#else
static void kretprobe_misses_say_why(struct kunit *test)
{
	kunit_skip(test, "no kretprobes");
}

static void kretprobe_under_fprobe_exit_of_its_path(struct kunit *test)
{
	kunit_skip(test, "no kretprobes");
}
#endif

static int kpk_hammer(void *arg)
{
	while (!kthread_should_stop()) {
		kpk_call(3);
		cond_resched_tasks_rcu_qs();
	}
	return 0;
}

static void unregister_waits_for_running_handlers(struct kunit *test)
{
	struct kpk_probe a;
	struct task_struct *tsk;
	int i, before, after;

	kpk_init(&a, kpk_target, 1);
	kpk_reset();
	KUNIT_ASSERT_EQ(test, register_kprobe(&a.kp), 0);
	tsk = kthread_run(kpk_hammer, NULL, "kpk_hammer");
	KUNIT_ASSERT_FALSE(test, IS_ERR(tsk));

	for (i = 0; i < 200 && atomic_read(&kpk_hits) < 100; i++)
		msleep(20);
	KUNIT_EXPECT_GE(test, atomic_read(&kpk_hits), 100);

	unregister_kprobe(&a.kp);
	before = atomic_read(&kpk_hits);
	msleep(100);
	after = atomic_read(&kpk_hits);
	kthread_stop(tsk);
	KUNIT_EXPECT_EQ(test, before, after);
}

/*
 * The unregister contract under hits on every CPU: a handler running
 * when unregister_kprobe() is called has finished when it returns, and
 * none starts afterwards.  The handler is slow so that one is usually
 * running at the call.  When another probe shares the site, the site
 * stays armed: only the grace period keeps the promise, and the other
 * probe keeps firing.
 */
struct kpk_unreg_case {
	const char *name;
	bool int3;	/* a breakpoint site, not the ftrace entry */
	bool shared;
};

static const struct kpk_unreg_case kpk_unreg_cases[] = {
	{ "entry", false, false },
	{ "entry_shared", false, true },
	{ "int3", true, false },
	{ "int3_shared", true, true },
};

static void kpk_unreg_desc(const struct kpk_unreg_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(kpk_unreg, kpk_unreg_cases, kpk_unreg_desc);

static atomic_t kpk_inside, kpk_late, kpk_keep_hits;
static bool kpk_unregistered;

static int kpk_slow_pre(struct kprobe *p, struct pt_regs *regs)
{
	atomic_inc(&kpk_inside);
	if (READ_ONCE(kpk_unregistered))
		atomic_inc(&kpk_late);
	udelay(50);
	atomic_inc(&kpk_hits);
	atomic_dec(&kpk_inside);
	return 0;
}

static int kpk_keep_pre(struct kprobe *p, struct pt_regs *regs)
{
	atomic_inc(&kpk_keep_hits);
	return 0;
}

static void *kpk_unreg_site(bool int3)
{
#ifdef CONFIG_X86
	/* Past the ftrace call: a breakpoint site. */
	if (int3)
		return (void *)kpk_insn_at(kpk_target, 9, 1);
#endif
	return kpk_target;
}

/* Spins without ever switching voluntarily: an RCU Tasks holdout. */
static int kpk_spinner(void *arg)
{
	while (!kthread_should_stop())
		cond_resched();
	return 0;
}

static DECLARE_COMPLETION(kpk_flushed);

static int kpk_flusher(void *arg)
{
	kprobe_insn_slots_flush();
	complete(&kpk_flushed);
	return 0;
}

/*
 * A slot released dirty (a boosted copy, a stepping copy, a detour) is
 * reused only once no task can still be in it: a task preempted there
 * runs on from it when it is scheduled again.  So the retiring pass
 * waits for RCU Tasks, which ends only when every task has switched
 * voluntarily, and not only for RCU, whose quiescent states a task
 * passes while preempted.  A kthread that only spins (RCU sees it pass
 * through quiescent states, RCU Tasks waits for it) holds the pass back
 * until it stops; with the pass waiting for RCU alone, the flush
 * returned while it spun.
 */
static void dirty_slots_wait_for_every_task(struct kunit *test)
{
	struct task_struct *spin, *flush;
	struct kpk_probe a;

	/* on x86 a breakpoint site: a copy in a slot, released dirty */
	kpk_init(&a, kpk_unreg_site(true), 1);
	KUNIT_ASSERT_EQ(test, register_kprobe(&a.kp), 0);
	unregister_kprobe(&a.kp);
	reinit_completion(&kpk_flushed);

	spin = kthread_run(kpk_spinner, NULL, "kpk_spinner");
	KUNIT_ASSERT_FALSE(test, IS_ERR(spin));
	msleep(20);
	flush = kthread_run(kpk_flusher, NULL, "kpk_flusher");
	if (IS_ERR(flush)) {
		kthread_stop(spin);
		KUNIT_FAIL(test, "no flusher thread");
		return;
	}
	msleep(500);
	KUNIT_EXPECT_FALSE(test, completion_done(&kpk_flushed));
	kthread_stop(spin);
	wait_for_completion(&kpk_flushed);
}

#ifdef __ARCH_WANT_KPROBES_INSN_SLOT
/* Slots allocated and released dirty by kpk_churner() so far. */
static atomic_t kpk_churned;

static int kpk_churner(void *arg)
{
	unsigned int i, n = (unsigned long)arg;
	kprobe_opcode_t *slot;

	for (i = 0; i < n; i++) {
		/* as a registration does, before it takes its locks */
		kprobe_insn_slots_throttle();
		slot = get_insn_slot();
		if (!slot)
			break;
		free_insn_slot(slot, 1);
		atomic_inc(&kpk_churned);
	}
	complete(&kpk_flushed);
	return 0;
}

#if defined(CONFIG_X86) && IS_BUILTIN(CONFIG_KPROBES_CORE_KUNIT_TEST)
static DECLARE_COMPLETION(kpk_registered);
static int kpk_reg_ret;

static int kpk_registrant(void *arg)
{
	kpk_reg_ret = register_kprobe(arg);
	complete(&kpk_registered);
	return 0;
}

/*
 * A registration that needs a slot while the cache is over its bound
 * waits for the pass too, but before it takes its locks: sample
 * text_mutex while it waits (someone else may hold it a moment, but not
 * for the whole wait).  Return: how many of ten samples found it free.
 */
static int kpk_register_while_held_back(struct kunit *test, struct kprobe *kp)
{
	struct task_struct *reg;
	int i, free = 0;

	reinit_completion(&kpk_registered);
	reg = kthread_run(kpk_registrant, kp, "kpk_registrant");
	if (IS_ERR(reg))
		return -1;
	msleep(200);
	for (i = 0; i < 10; i++) {
		free += !mutex_is_locked(&text_mutex);
		msleep(20);
	}
	KUNIT_EXPECT_FALSE(test, completion_done(&kpk_registered));
	return free;
}
#endif

/*
 * While RCU Tasks is held back, released slots cannot be reused, and a
 * cache with no clean slot grows.  It grows only so far: past a few
 * pages' worth of released slots the next registration waits for the
 * pass.  16 pages' worth of register/unregister cycles (slots taken and
 * released dirty) must not get through while a spinner holds RCU Tasks
 * back, and must once it stops; without the bound they all went through
 * at once, taking 16 pages.  A real registration waits likewise, and
 * holds no global lock meanwhile: it used to wait inside the slot
 * allocation, with text_mutex, jump_label_lock and cpus_read_lock held
 * for as long as RCU Tasks was held back.
 */
static void slot_cache_growth_is_bounded(struct kunit *test)
{
	unsigned int n = 16 * PAGE_SIZE /
			 (kprobe_insn_slots.insn_size * sizeof(kprobe_opcode_t));
	struct task_struct *spin, *churn;
	struct kprobe kp __maybe_unused = { .pre_handler = kpk_keep_pre };
	int text_free __maybe_unused = -2;
	unsigned long end;
	int seen;

	atomic_set(&kpk_churned, 0);
	reinit_completion(&kpk_flushed);
	spin = kthread_run(kpk_spinner, NULL, "kpk_spinner");
	KUNIT_ASSERT_FALSE(test, IS_ERR(spin));
	msleep(20);
	churn = kthread_run(kpk_churner, (void *)(unsigned long)n, "kpk_churner");
	if (IS_ERR(churn)) {
		kthread_stop(spin);
		KUNIT_FAIL(test, "no churner thread");
		return;
	}
	/* until the churner stops making progress (or is done) */
	end = jiffies + 20 * HZ;
	do {
		seen = atomic_read(&kpk_churned);
		msleep(200);
	} while (atomic_read(&kpk_churned) != seen && time_before(jiffies, end));
	KUNIT_EXPECT_FALSE(test, completion_done(&kpk_flushed));
	KUNIT_EXPECT_LT(test, atomic_read(&kpk_churned), n);
#if defined(CONFIG_X86) && IS_BUILTIN(CONFIG_KPROBES_CORE_KUNIT_TEST)
	kp.addr = kpk_unreg_site(true);
	text_free = kpk_register_while_held_back(test, &kp);
#endif
	kthread_stop(spin);
	wait_for_completion(&kpk_flushed);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpk_churned), n);
#if defined(CONFIG_X86) && IS_BUILTIN(CONFIG_KPROBES_CORE_KUNIT_TEST)
	if (text_free >= 0) {
		wait_for_completion(&kpk_registered);
		KUNIT_EXPECT_EQ(test, kpk_reg_ret, 0);
		if (!kpk_reg_ret)
			unregister_kprobe(&kp);
	}
	KUNIT_EXPECT_GT(test, text_free, 0);
#endif
	kprobe_insn_slots_flush();
}
#endif

static void unregister_under_hits_on_every_cpu(struct kunit *test)
{
	const struct kpk_unreg_case *c = test->param_value;
	struct kprobe slow = { .pre_handler = kpk_slow_pre };
	struct kprobe keep = { .pre_handler = kpk_keep_pre };
	struct task_struct **tsk;
	int inside_at_return, keep_at_return, saw_inside = 0;
	unsigned int cpu, n = 0;
	unsigned long end;

	if (!IS_ENABLED(CONFIG_X86) && c->int3)
		kunit_skip(test, "breakpoint sites are found on x86 only");
	/* The handler must run on one CPU while this one unregisters. */
	if (num_online_cpus() < 2)
		kunit_skip(test, "needs two CPUs");
	slow.addr = kpk_unreg_site(c->int3);
	keep.addr = slow.addr;
	KUNIT_ASSERT_NOT_NULL(test, slow.addr);
	tsk = kunit_kcalloc(test, nr_cpu_ids, sizeof(*tsk), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, tsk);
	kpk_reset();
	atomic_set(&kpk_inside, 0);
	atomic_set(&kpk_late, 0);
	atomic_set(&kpk_keep_hits, 0);
	WRITE_ONCE(kpk_unregistered, false);
	if (c->shared)
		KUNIT_ASSERT_EQ(test, register_kprobe(&keep), 0);
	KUNIT_ASSERT_EQ(test, register_kprobe(&slow), 0);

	for_each_online_cpu(cpu) {
		struct task_struct *t;

		t = kthread_create_on_cpu(kpk_hammer, NULL, cpu, "kpk_hammer/%u");
		if (IS_ERR(t))
			break;
		tsk[n++] = t;
		wake_up_process(t);
	}
	KUNIT_EXPECT_EQ(test, n, num_online_cpus());

	/* Call unregister while a handler runs on another CPU. */
	end = jiffies + 10 * HZ;
	while (atomic_read(&kpk_hits) < 50 && time_before(jiffies, end))
		msleep(20);
	while (!(saw_inside = atomic_read(&kpk_inside)) &&
	       time_before(jiffies, end))
		cpu_relax();
	unregister_kprobe(&slow);
	inside_at_return = atomic_read(&kpk_inside);
	keep_at_return = atomic_read(&kpk_keep_hits);
	WRITE_ONCE(kpk_unregistered, true);

	/* Let the other CPUs run into the site for a while longer. */
	end = jiffies + 10 * HZ;
	while (c->shared && atomic_read(&kpk_keep_hits) < keep_at_return + 50 &&
	       time_before(jiffies, end))
		msleep(20);
	msleep(20);
	while (n--)
		kthread_stop(tsk[n]);
	if (c->shared)
		unregister_kprobe(&keep);

	KUNIT_EXPECT_GT(test, saw_inside, 0);
	KUNIT_EXPECT_EQ(test, inside_at_return, 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpk_late), 0);
	if (c->shared)
		KUNIT_EXPECT_GE(test, atomic_read(&kpk_keep_hits),
				keep_at_return + 50);
}

#ifdef CONFIG_KPROBES_ON_FTRACE
/*
 * An entry probe's ftrace hook outlives its last live user for a while
 * (it is parked and dropped later with others): no handler may run
 * through it, a new probe there must fire once, and a probe with a
 * post_handler, which hooks the site on the other ftrace_ops, must not
 * be called twice.
 */
static void parked_entry_hook_is_silent_and_rearms(struct kunit *test)
{
	struct kpk_probe a, b;

	kpk_init(&a, kpk_target, 1);
	KUNIT_ASSERT_EQ(test, register_kprobe(&a.kp), 0);
	if (!kprobe_ftrace(&a.kp)) {
		unregister_kprobe(&a.kp);
		kunit_skip(test, "the entry of kpk_target is not an ftrace site");
	}
	unregister_kprobe(&a.kp);
	kpk_reset();
	kpk_call(1);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpk_hits), 0);
	/* Parked: still hooked, until the work item drops it. */
	KUNIT_EXPECT_EQ(test, kprobe_kunit_ftrace_hooks((unsigned long)a.kp.addr), 1);
	kprobe_kunit_unpark_now();
	KUNIT_EXPECT_EQ(test, kprobe_kunit_ftrace_hooks((unsigned long)a.kp.addr), 0);

	/* Again at the parked site; then disabled and enabled. */
	kpk_init(&b, kpk_target, 2);
	KUNIT_ASSERT_EQ(test, register_kprobe(&b.kp), 0);
	kpk_reset();
	kpk_call(1);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpk_hits), 1);
	KUNIT_EXPECT_EQ(test, disable_kprobe(&b.kp), 0);
	kpk_reset();
	kpk_call(1);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpk_hits), 0);
	KUNIT_EXPECT_EQ(test, enable_kprobe(&b.kp), 0);
	kpk_reset();
	kpk_call(1);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpk_hits), 1);
	unregister_kprobe(&b.kp);

	/* With a post_handler: pre and post once each. */
	kpk_init(&a, kpk_target, 3);
	a.kp.post_handler = kpk_post;
	KUNIT_ASSERT_EQ(test, register_kprobe(&a.kp), 0);
	kpk_reset();
	kpk_call(1);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpk_hits), 101);
	unregister_kprobe(&a.kp);
	kpk_reset();
	kpk_call(1);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpk_hits), 0);
	kprobe_kunit_unpark_now();
	KUNIT_EXPECT_EQ(test, kprobe_kunit_ftrace_hooks((unsigned long)a.kp.addr), 0);
}

/*
 * ftrace fails to drop hooks (an update allocates a new filter): they
 * stay hooked and counted, the filter keeps nothing the core does not
 * know of, and the work item drops them once ftrace can.
 */
static void ftrace_unhook_failure_is_retried(struct kunit *test)
{
	struct kpk_probe a, b, c;
	struct kprobe *two[2] = { &a.kp, &b.kp };
	unsigned int users[2], stuck[2];
	unsigned long ia, ib, ic;

	kpk_init(&a, kpk_target, 1);
	kpk_init(&b, kpk_target2, 2);
	kpk_init(&c, kpk_recursed, 3);
	/* The probes are on this stack: no ASSERT while one is registered. */
	KUNIT_ASSERT_EQ(test, register_kprobe(&a.kp), 0);
	if (register_kprobe(&b.kp)) {
		KUNIT_FAIL(test, "cannot register the second probe");
		unregister_kprobe(&a.kp);
		return;
	}
	if (register_kprobe(&c.kp)) {
		KUNIT_FAIL(test, "cannot register the third probe");
		unregister_kprobes(two, 2);
		return;
	}
	if (!kprobe_ftrace(&a.kp) || !kprobe_ftrace(&b.kp) || !kprobe_ftrace(&c.kp)) {
		unregister_kprobe(&a.kp);
		unregister_kprobe(&b.kp);
		unregister_kprobe(&c.kp);
		kunit_skip(test, "the test functions' entries are not ftrace sites");
	}
	ia = (unsigned long)a.kp.addr;
	ib = (unsigned long)b.kp.addr;
	ic = (unsigned long)c.kp.addr;
	kprobe_kunit_unpark_now();
	kprobe_kunit_fops_users(users, stuck);
	KUNIT_EXPECT_EQ(test, users[0], 3U);

	/* Parked by the unregistration; both the drop and the rebuild fail. */
	unregister_kprobes(two, 2);
	kprobe_kunit_fail_filter_updates(2);
	kprobe_kunit_unpark_now();
	kprobe_kunit_fail_filter_updates(0);
	kprobe_kunit_fops_users(users, stuck);
	KUNIT_EXPECT_EQ(test, users[0], 3U);
	KUNIT_EXPECT_EQ(test, stuck[0], 2U);
	KUNIT_EXPECT_EQ(test, kprobe_kunit_ftrace_hooks(ia), 1);
	KUNIT_EXPECT_EQ(test, kprobe_kunit_ftrace_hooks(ib), 1);

	/* The work item tries again, and now ftrace can. */
	kprobe_kunit_unpark_now();
	kprobe_kunit_fops_users(users, stuck);
	KUNIT_EXPECT_EQ(test, users[0], 1U);
	KUNIT_EXPECT_EQ(test, stuck[0], 0U);
	KUNIT_EXPECT_EQ(test, kprobe_kunit_ftrace_hooks(ia), 0);
	KUNIT_EXPECT_EQ(test, kprobe_kunit_ftrace_hooks(ib), 0);
	KUNIT_EXPECT_EQ(test, kprobe_kunit_ftrace_hooks(ic), 1);

	/* Only the batch drop fails: the filter is rebuilt at once. */
	if (register_kprobe(&a.kp)) {
		KUNIT_FAIL(test, "cannot register the first probe again");
		unregister_kprobe(&c.kp);
		kprobe_kunit_unpark_now();
		return;
	}
	unregister_kprobe(&a.kp);
	kprobe_kunit_fail_filter_updates(1);
	kprobe_kunit_unpark_now();
	kprobe_kunit_fail_filter_updates(0);
	kprobe_kunit_fops_users(users, stuck);
	KUNIT_EXPECT_EQ(test, users[0], 1U);
	KUNIT_EXPECT_EQ(test, stuck[0], 0U);
	KUNIT_EXPECT_EQ(test, kprobe_kunit_ftrace_hooks(ia), 0);
	KUNIT_EXPECT_EQ(test, kprobe_kunit_ftrace_hooks(ic), 1);
	kpk_reset();
	kpk_call_rec(1);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpk_hits), 1);

	/* The last hook: the ops goes, and comes back with a clean filter. */
	unregister_kprobe(&c.kp);
	kprobe_kunit_unpark_now();
	kprobe_kunit_fops_users(users, stuck);
	KUNIT_EXPECT_EQ(test, users[0], 0U);
	KUNIT_EXPECT_EQ(test, kprobe_kunit_ftrace_hooks(ic), 0);
	kpk_init(&a, kpk_target, 1);
	KUNIT_ASSERT_EQ(test, register_kprobe(&a.kp), 0);
	KUNIT_EXPECT_EQ(test, kprobe_kunit_ftrace_hooks(ia), 1);
	KUNIT_EXPECT_EQ(test, kprobe_kunit_ftrace_hooks(ib), 0);
	KUNIT_EXPECT_EQ(test, kprobe_kunit_ftrace_hooks(ic), 0);
	unregister_kprobe(&a.kp);
	kprobe_kunit_unpark_now();
}

/*
 * A hook ftrace could not drop from one ops stays there ("stuck"): the
 * same site must not be hooked on the other ops meanwhile, or each call
 * runs its handlers twice.  Its registration is refused until the old
 * hook is gone.
 */
static void stuck_hook_keeps_the_site_off_the_other_ops(struct kunit *test)
{
	unsigned int users[2], stuck[2];
	struct kpk_probe a, b, c;
	int ret;

	kpk_init(&a, kpk_target, 1);
	kpk_init(&c, kpk_target2, 3);
	/* The probes are on this stack: no ASSERT while one is registered. */
	KUNIT_ASSERT_EQ(test, register_kprobe(&a.kp), 0);
	if (register_kprobe(&c.kp)) {
		KUNIT_FAIL(test, "cannot register the second probe");
		unregister_kprobe(&a.kp);
		return;
	}
	if (!kprobe_ftrace(&a.kp) || !kprobe_ftrace(&c.kp)) {
		unregister_kprobe(&a.kp);
		unregister_kprobe(&c.kp);
		kunit_skip(test, "the test functions' entries are not ftrace sites");
	}
	kprobe_kunit_unpark_now();
	/*
	 * Parked on the plain ops (which c keeps registered); its drop and
	 * the rebuild of the filter both fail: stuck there.
	 */
	unregister_kprobe(&a.kp);
	kprobe_kunit_fail_filter_updates(2);
	kprobe_kunit_unpark_now();
	kprobe_kunit_fail_filter_updates(0);
	kprobe_kunit_fops_users(users, stuck);
	KUNIT_EXPECT_EQ(test, stuck[0], 1U);

	/*
	 * A post_handler puts the site on the ipmodify ops; the retry of
	 * the stuck hook before that fails again: refused.
	 */
	kpk_init(&b, kpk_target, 2);
	b.kp.post_handler = kpk_post;
	kprobe_kunit_fail_filter_updates(2);
	ret = register_kprobe(&b.kp);
	kprobe_kunit_fail_filter_updates(0);
	KUNIT_EXPECT_EQ(test, ret, -EBUSY);
	if (!ret) {
		kpk_reset();
		kpk_call(1);
		kunit_info(test, "hooked on both ops: one call counted %d\n",
			   atomic_read(&kpk_hits));
		unregister_kprobe(&b.kp);
	}

	/* Once ftrace can drop the stuck hook, it registers, hit once. */
	kprobe_kunit_unpark_now();
	kprobe_kunit_fops_users(users, stuck);
	KUNIT_EXPECT_EQ(test, stuck[0], 0U);
	kpk_init(&b, kpk_target, 2);
	b.kp.post_handler = kpk_post;
	if (register_kprobe(&b.kp)) {
		KUNIT_FAIL(test, "cannot register the probe once the hook went");
	} else {
		kpk_reset();
		kpk_call(1);
		KUNIT_EXPECT_EQ(test, atomic_read(&kpk_hits), 101);
		unregister_kprobe(&b.kp);
	}
	unregister_kprobe(&c.kp);
	kprobe_kunit_unpark_now();
}

static atomic_t kpk_rcu_check_hits;

static int kpk_count_pre(struct kprobe *p, struct pt_regs *regs)
{
	atomic_inc(&kpk_rcu_check_hits);
	return 0;
}

/*
 * The checks that PROVE_RCU and PROVE_RCU_LIST build into
 * rcu_dereference_check() and list_for_each_entry_rcu() are traceable
 * functions kprobes accepts.  The ftrace path must not call them while
 * it finds out whether a probe runs: a probe on one would be hit from
 * its own lookup, again and again, until the stack overflows.  (Linux
 * 6.12's ftrace_test_recursion_trylock() stopped that at the second
 * level.)  Without those checks in the kernel there is nothing to test.
 */
static void probes_on_rcu_checks_do_not_recurse(struct kunit *test)
{
	static const char * const names[] = {
		"rcu_read_lock_sched_held", "rcu_read_lock_any_held",
		"rcu_read_lock_held", "rcu_lockdep_current_cpu_online",
	};
	struct kprobe kp[ARRAY_SIZE(names)];
	unsigned long recursion = kprobe_missed_anon(KPROBE_MISS_RECURSION);
	struct kpk_probe a;
	unsigned int i, n = 0;

	if (!IS_ENABLED(CONFIG_PROVE_RCU))
		kunit_skip(test, "no RCU lockdep checks to probe (CONFIG_PROVE_RCU)");
	for (i = 0; i < ARRAY_SIZE(names); i++) {
		memset(&kp[n], 0, sizeof(kp[n]));
		kp[n].symbol_name = names[i];
		kp[n].pre_handler = kpk_count_pre;
		if (register_kprobe(&kp[n]))
			continue;
		if (kprobe_ftrace(&kp[n]))
			n++;
		else
			unregister_kprobe(&kp[n]);
	}
	/* With PROVE_RCU, they are there to be probed: a refusal is a failure. */
	if (!n) {
		KUNIT_FAIL(test, "none of the RCU lockdep checks could be probed at its ftrace site");
		return;
	}

	kpk_init(&a, kpk_target, 1);
	if (register_kprobe(&a.kp)) {
		KUNIT_FAIL(test, "cannot register the probe on the target");
		goto out;
	}
	kpk_reset();
	atomic_set(&kpk_rcu_check_hits, 0);
	for (i = 0; i < 10; i++)
		kpk_call(1);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpk_hits), 10);
	KUNIT_EXPECT_EQ(test, a.kp.nmissed, 0UL);
	unregister_kprobe(&a.kp);
out:
	for (i = 0; i < n; i++)
		unregister_kprobe(&kp[i]);
	/* The lockdep checks ran meanwhile, and were probed. */
	KUNIT_EXPECT_GT(test, atomic_read(&kpk_rcu_check_hits), 0);
	KUNIT_EXPECT_EQ(test, kprobe_missed_anon(KPROBE_MISS_RECURSION), recursion);
}
#else
static void parked_entry_hook_is_silent_and_rearms(struct kunit *test)
{
	kunit_skip(test, "no kprobes on ftrace");
}

static void ftrace_unhook_failure_is_retried(struct kunit *test)
{
	kunit_skip(test, "no kprobes on ftrace");
}

static void stuck_hook_keeps_the_site_off_the_other_ops(struct kunit *test)
{
	kunit_skip(test, "no kprobes on ftrace");
}

static void probes_on_rcu_checks_do_not_recurse(struct kunit *test)
{
	kunit_skip(test, "no kprobes on ftrace");
}
#endif

#ifdef ARCH_KPROBE_CTLBLK_OUTER
static struct kprobe kpk_outer_fake[3];
static bool kpk_nested_ran;
static int kpk_nested_cpu;

/*
 * What an NMI that hits a probe at this point of a push or pop does: a
 * level of its own, pushed and popped.  Only on the test's CPU: a real
 * reentry elsewhere passes the same point with its own control block.
 * Context: interrupts off.
 */
static void kpk_nested_level(void)
{
	struct kprobe_ctlblk *kcb = get_kprobe_ctlblk();

	if (smp_processor_id() != READ_ONCE(kpk_nested_cpu))
		return;
	WRITE_ONCE(kprobe_outer_test_hook, NULL);
	if (kprobe_push_outer(kcb, &kpk_outer_fake[2])) {
		kpk_nested_ran = true;
		kprobe_pop_outer(kcb);
	}
}

/*
 * The reentry stack is the breakpoint path's, but an NMI may hit a
 * probe half way through a push or a pop: its own level must never take
 * the entry the interrupted push or pop is using.
 */
static void outer_levels_survive_a_nested_level_midway(struct kunit *test)
{
	struct kprobe_ctlblk *kcb, saved;
	struct kprobe *running[2] = {};
	unsigned long status[2] = {}, flags;
	unsigned int depth[2] = {};
	bool nested[2] = {}, ok;

	local_irq_save(flags);
	kcb = get_kprobe_ctlblk();
	ok = !kprobe_running();
	if (ok) {
		WRITE_ONCE(kpk_nested_cpu, smp_processor_id());
		saved = *kcb;
		kcb->nr_outer = 0;
		kcb->kprobe_status = KPROBE_HIT_ACTIVE;
		__this_cpu_write(current_kprobe, &kpk_outer_fake[0]);

		kpk_nested_ran = false;
		WRITE_ONCE(kprobe_outer_test_hook, kpk_nested_level);
		kprobe_push_outer(kcb, &kpk_outer_fake[1]);
		nested[0] = kpk_nested_ran;
		running[0] = kprobe_running();
		depth[0] = kcb->nr_outer;
		status[0] = kcb->kprobe_status;

		kpk_nested_ran = false;
		WRITE_ONCE(kprobe_outer_test_hook, kpk_nested_level);
		kprobe_pop_outer(kcb);
		nested[1] = kpk_nested_ran;
		running[1] = kprobe_running();
		depth[1] = kcb->nr_outer;
		status[1] = kcb->kprobe_status;

		WRITE_ONCE(kprobe_outer_test_hook, NULL);
		*kcb = saved;
		__this_cpu_write(current_kprobe, NULL);
	}
	local_irq_restore(flags);

	KUNIT_ASSERT_TRUE(test, ok);
	KUNIT_EXPECT_TRUE(test, nested[0]);
	KUNIT_EXPECT_PTR_EQ(test, running[0], &kpk_outer_fake[1]);
	KUNIT_EXPECT_EQ(test, depth[0], 1U);
	KUNIT_EXPECT_EQ(test, status[0], (unsigned long)KPROBE_REENTER);
	KUNIT_EXPECT_TRUE(test, nested[1]);
	KUNIT_EXPECT_PTR_EQ(test, running[1], &kpk_outer_fake[0]);
	KUNIT_EXPECT_EQ(test, depth[1], 0U);
	KUNIT_EXPECT_EQ(test, status[1], (unsigned long)KPROBE_HIT_ACTIVE);
}
#else
static void outer_levels_survive_a_nested_level_midway(struct kunit *test)
{
	kunit_skip(test, "no reentry stack on this architecture");
}
#endif

#define KPK_BATCH	3

static void batch_register_and_unregister(struct kunit *test)
{
	struct kpk_probe t[KPK_BATCH];
	struct kprobe *kps[KPK_BATCH];
	void *where[KPK_BATCH] = { kpk_target, kpk_target2, kpk_target };
	int i;

	for (i = 0; i < KPK_BATCH; i++) {
		kpk_init(&t[i], where[i], i + 1);
		kps[i] = &t[i].kp;
	}
	KUNIT_ASSERT_EQ(test, register_kprobes(kps, KPK_BATCH), 0);
	kpk_reset();
	kpk_call(1);
	kpk_call2(1);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpk_hits), KPK_BATCH);
	unregister_kprobes(kps, KPK_BATCH);
	kpk_reset();
	kpk_call(1);
	kpk_call2(1);
	KUNIT_EXPECT_EQ(test, atomic_read(&kpk_hits), 0);
	for (i = 0; i < KPK_BATCH; i++)
		KUNIT_EXPECT_TRUE(test, list_empty(&t[i].kp.list));
}

#ifdef CONFIG_JUMP_LABEL
#define KPK_JUMP_SITES	8
#define KPK_JUMP_AROUND	8

/*
 * kprobe_jump_label_reserved() gives jump_label_text_reserved()'s answer
 * without sizing every entry: compare the two on each byte around jump
 * label sites spread over the kernel's table, and check that a probe on
 * such a site is refused.
 */
static void jump_label_check_agrees_with_the_tree(struct kunit *test)
{
	long n = __stop___jump_table - __start___jump_table;
	long step = max(n / KPK_JUMP_SITES, 1L);
	unsigned int sites = 0, reserved = 0;
	unsigned long code, a;
	struct jump_entry *e;
	bool tree;
	long d;

	jump_label_lock();
	for (e = __start___jump_table; e < __stop___jump_table; e += step) {
		if (jump_entry_is_init(e))
			continue;
		code = jump_entry_code(e);
		sites++;
		for (d = -KPK_JUMP_AROUND; d <= KPK_JUMP_AROUND; d++) {
			a = code + d;
			tree = jump_label_text_reserved((void *)a, (void *)a);
			KUNIT_EXPECT_EQ_MSG(test, kprobe_jump_label_reserved(a, a),
					    tree, "at %pS", (void *)a);
			reserved += tree;
		}
		/* Ranges: ending on the site, and ending just before it. */
		KUNIT_EXPECT_TRUE(test, kprobe_jump_label_reserved(code - 16,
								   code));
		tree = jump_label_text_reserved((void *)code - 16,
						(void *)code - 1);
		KUNIT_EXPECT_EQ(test, kprobe_jump_label_reserved(code - 16,
								 code - 1), tree);
	}
	jump_label_unlock();
	KUNIT_ASSERT_GT(test, sites, 0U);
	/* Each site's own first byte, at least. */
	KUNIT_EXPECT_GE(test, reserved, sites);

	code = jump_entry_code(__start___jump_table + n / 2);
	if (!jump_entry_is_init(__start___jump_table + n / 2))
		KUNIT_EXPECT_EQ(test, kpk_refusal((void *)code, NULL, 0), -EINVAL);
}
#endif

static struct kunit_case kprobes_core_cases[] = {
	KUNIT_CASE(aggregate_handlers_run_in_order_and_disable_is_per_probe),
	KUNIT_CASE(single_live_user_follows_every_change),
	KUNIT_CASE(register_kprobes_rolls_back_on_bad_entry),
	KUNIT_CASE(register_kprobes_rollback_after_attach_keeps_others),
	KUNIT_CASE(batch_naming_a_probe_twice_is_refused),
	KUNIT_CASE(refused_batch_leaves_no_dirty_slot),
	KUNIT_CASE(refusals_have_their_errno),
	KUNIT_CASE(mid_instruction_is_eilseq),
	KUNIT_CASE(landing_pad_offsets_are_eilseq),
	KUNIT_CASE(stacked_kretprobes_see_the_real_return_address),
	KUNIT_CASE(post_handler_joins_boosted_site),
	KUNIT_CASE(disarm_all_frees_a_site_whose_jump_was_leaving),
	KUNIT_CASE(post_handler_may_go_mid_hit),
	KUNIT_CASE(return_handler_never_runs_after_unregister),
	KUNIT_CASE(parked_entry_hook_is_silent_and_rearms),
	KUNIT_CASE(ftrace_unhook_failure_is_retried),
	KUNIT_CASE(stuck_hook_keeps_the_site_off_the_other_ops),
	KUNIT_CASE(probes_on_rcu_checks_do_not_recurse),
	KUNIT_CASE(outer_levels_survive_a_nested_level_midway),
	KUNIT_CASE(recursion_counts_nmissed_on_every_probe),
	KUNIT_CASE(kretprobe_misses_say_why),
	KUNIT_CASE(kretprobe_under_fprobe_exit_of_its_path),
	KUNIT_CASE(unregister_waits_for_running_handlers),
	KUNIT_CASE(dirty_slots_wait_for_every_task),
#ifdef __ARCH_WANT_KPROBES_INSN_SLOT
	KUNIT_CASE_SLOW(slot_cache_growth_is_bounded),
#endif
	KUNIT_CASE_PARAM(unregister_under_hits_on_every_cpu, kpk_unreg_gen_params),
	KUNIT_CASE(batch_register_and_unregister),
#ifdef CONFIG_JUMP_LABEL
	KUNIT_CASE(jump_label_check_agrees_with_the_tree),
#endif
	{}
};

#ifdef CONFIG_KPROBES_ON_FTRACE
/*
 * The cases look at parked and stuck ftrace hooks and drop them when
 * they choose (kprobe_kunit_unpark_now()): the work item that drops
 * them by itself a second later must not run in the middle of one, as
 * it could on a slow guest.
 */
static int kpk_suite_init(struct kunit_suite *suite)
{
	kprobe_kunit_hold_unpark(true);
	return 0;
}

static void kpk_suite_exit(struct kunit_suite *suite)
{
	kprobe_kunit_hold_unpark(false);
}
#else
#define kpk_suite_init	NULL
#define kpk_suite_exit	NULL
#endif

static struct kunit_suite kprobes_core_suite = {
	.name = "kprobes_core",
	.suite_init = kpk_suite_init,
	.suite_exit = kpk_suite_exit,
	.test_cases = kprobes_core_cases,
};
kunit_test_suite(kprobes_core_suite);

MODULE_DESCRIPTION("KUnit tests for the kprobes core");
MODULE_LICENSE("GPL");
