// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * KUnit tests for jprobes (kernel/kprobes/jprobe.c).
 *
 * The targets take 0 to 8 arguments of mixed widths; on x86_64 the 7th
 * and 8th are passed on the stack.  Each target and each handler writes
 * down what it received, widened to u64 the same way, so the test can
 * compare both with what the caller passed.  Handlers also overwrite
 * their parameters in memory (the stack slots, for stack arguments) to
 * show that this does not reach the target.
 */
#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/kthread.h>
#include <linux/limits.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/string.h>

#define NARGS	JPROBE_MAX_ARGS

static int jpk_object = 1;

/* The values the callers pass, by type. */
#define V_U8	((u8)0xa5)
#define V_U8B	((u8)0x7f)
#define V_INT	(-123456789)
#define V_INTB	(INT_MIN + 5)
#define V_LONG	(-0x7edcba9876543211L)	/* 0x8123456789abcdef */
#define V_PTR	((void *)&jpk_object)
#define V_U64	0xfedcba9876543210ULL
#define V_U64B	0x8000000000000001ULL

#define W(v)	((u64)(v))
#define WP(p)	((u64)(uintptr_t)(p))

/* Written by the targets and by the handlers. */
static u64 tgt_seen[NARGS];
static u64 hnd_seen[NARGS];
static atomic_t tgt_calls;
static atomic_t hnd_calls;

static void jpk_reset(void)
{
	memset(tgt_seen, 0xee, sizeof(tgt_seen));
	memset(hnd_seen, 0xee, sizeof(hnd_seen));
	atomic_set(&tgt_calls, 0);
	atomic_set(&hnd_calls, 0);
}

/* Overwrite a parameter where it lives, so that the store is real. */
static noinline void scribble(void *p, size_t n)
{
	memset(p, 0x5a, n);
	barrier_data(p);
}

#define SCRIBBLE(x)	scribble(&(x), sizeof(x))

/* Record one argument: slot i of arr. */
#define REC(arr, i, v)	((arr)[i] = (v))

static noinline __noclone int jpk_t0(void)
{
	atomic_inc(&tgt_calls);
	return 100;
}

static noinline __noclone int jpk_t1(u8 a)
{
	REC(tgt_seen, 0, W(a));
	atomic_inc(&tgt_calls);
	return 101;
}

static noinline __noclone int jpk_t2(int a, long b)
{
	REC(tgt_seen, 0, W(a));
	REC(tgt_seen, 1, W(b));
	atomic_inc(&tgt_calls);
	return 102;
}

static noinline __noclone int jpk_t3(void *a, u64 b, u8 c)
{
	REC(tgt_seen, 0, WP(a));
	REC(tgt_seen, 1, W(b));
	REC(tgt_seen, 2, W(c));
	atomic_inc(&tgt_calls);
	return 103;
}

static noinline __noclone int jpk_t4(long a, int b, u8 c, void *d)
{
	REC(tgt_seen, 0, W(a));
	REC(tgt_seen, 1, W(b));
	REC(tgt_seen, 2, W(c));
	REC(tgt_seen, 3, WP(d));
	atomic_inc(&tgt_calls);
	return 104;
}

static noinline __noclone int jpk_t5(u64 a, u8 b, int c, long d, void *e)
{
	REC(tgt_seen, 0, W(a));
	REC(tgt_seen, 1, W(b));
	REC(tgt_seen, 2, W(c));
	REC(tgt_seen, 3, W(d));
	REC(tgt_seen, 4, WP(e));
	atomic_inc(&tgt_calls);
	return 105;
}

static noinline __noclone int jpk_t6(int a, u8 b, long c, void *d, u64 e, int f)
{
	REC(tgt_seen, 0, W(a));
	REC(tgt_seen, 1, W(b));
	REC(tgt_seen, 2, W(c));
	REC(tgt_seen, 3, WP(d));
	REC(tgt_seen, 4, W(e));
	REC(tgt_seen, 5, W(f));
	atomic_inc(&tgt_calls);
	return 106;
}

static noinline __noclone int jpk_t7(u8 a, int b, long c, void *d, u64 e,
				     u8 f, long g)
{
	REC(tgt_seen, 0, W(a));
	REC(tgt_seen, 1, W(b));
	REC(tgt_seen, 2, W(c));
	REC(tgt_seen, 3, WP(d));
	REC(tgt_seen, 4, W(e));
	REC(tgt_seen, 5, W(f));
	REC(tgt_seen, 6, W(g));
	atomic_inc(&tgt_calls);
	return 107;
}

static noinline __noclone int jpk_t8(u8 a, int b, long c, void *d, u64 e,
				     u8 f, int g, u64 h)
{
	REC(tgt_seen, 0, W(a));
	REC(tgt_seen, 1, W(b));
	REC(tgt_seen, 2, W(c));
	REC(tgt_seen, 3, WP(d));
	REC(tgt_seen, 4, W(e));
	REC(tgt_seen, 5, W(f));
	REC(tgt_seen, 6, W(g));
	REC(tgt_seen, 7, W(h));
	atomic_inc(&tgt_calls);
	return 108;
}

/* The same as jpk_t8, without an fentry site: a breakpoint (or jump) entry. */
static noinline __noclone notrace int jpk_t8_bp(u8 a, int b, long c,
						void *d, u64 e, u8 f, int g,
						u64 h)
{
	REC(tgt_seen, 0, W(a));
	REC(tgt_seen, 1, W(b));
	REC(tgt_seen, 2, W(c));
	REC(tgt_seen, 3, WP(d));
	REC(tgt_seen, 4, W(e));
	REC(tgt_seen, 5, W(f));
	REC(tgt_seen, 6, W(g));
	REC(tgt_seen, 7, W(h));
	atomic_inc(&tgt_calls);
	return 109;
}

/* Handlers: the targets' prototypes, returning what old handlers did. */
static long jpk_h0(void)
{
	atomic_inc(&hnd_calls);
	jprobe_return();
	return 0;
}

static long jpk_h1(u8 a)
{
	REC(hnd_seen, 0, W(a));
	SCRIBBLE(a);
	atomic_inc(&hnd_calls);
	jprobe_return();
	return 0;
}

static long jpk_h2(int a, long b)
{
	REC(hnd_seen, 0, W(a));
	REC(hnd_seen, 1, W(b));
	SCRIBBLE(a);
	SCRIBBLE(b);
	atomic_inc(&hnd_calls);
	return 0;
}

static long jpk_h3(void *a, u64 b, u8 c)
{
	REC(hnd_seen, 0, WP(a));
	REC(hnd_seen, 1, W(b));
	REC(hnd_seen, 2, W(c));
	SCRIBBLE(a);
	SCRIBBLE(c);
	atomic_inc(&hnd_calls);
	return 0;
}

static long jpk_h4(long a, int b, u8 c, void *d)
{
	REC(hnd_seen, 0, W(a));
	REC(hnd_seen, 1, W(b));
	REC(hnd_seen, 2, W(c));
	REC(hnd_seen, 3, WP(d));
	SCRIBBLE(b);
	SCRIBBLE(d);
	atomic_inc(&hnd_calls);
	return 0;
}

static long jpk_h5(u64 a, u8 b, int c, long d, void *e)
{
	REC(hnd_seen, 0, W(a));
	REC(hnd_seen, 1, W(b));
	REC(hnd_seen, 2, W(c));
	REC(hnd_seen, 3, W(d));
	REC(hnd_seen, 4, WP(e));
	SCRIBBLE(a);
	SCRIBBLE(e);
	atomic_inc(&hnd_calls);
	return 0;
}

static long jpk_h6(int a, u8 b, long c, void *d, u64 e, int f)
{
	REC(hnd_seen, 0, W(a));
	REC(hnd_seen, 1, W(b));
	REC(hnd_seen, 2, W(c));
	REC(hnd_seen, 3, WP(d));
	REC(hnd_seen, 4, W(e));
	REC(hnd_seen, 5, W(f));
	SCRIBBLE(c);
	SCRIBBLE(f);
	atomic_inc(&hnd_calls);
	return 0;
}

static long jpk_h7(u8 a, int b, long c, void *d, u64 e, u8 f, long g)
{
	REC(hnd_seen, 0, W(a));
	REC(hnd_seen, 1, W(b));
	REC(hnd_seen, 2, W(c));
	REC(hnd_seen, 3, WP(d));
	REC(hnd_seen, 4, W(e));
	REC(hnd_seen, 5, W(f));
	REC(hnd_seen, 6, W(g));
	SCRIBBLE(a);
	SCRIBBLE(g);
	atomic_inc(&hnd_calls);
	return 0;
}

static long jpk_h8(u8 a, int b, long c, void *d, u64 e, u8 f, int g, u64 h)
{
	REC(hnd_seen, 0, W(a));
	REC(hnd_seen, 1, W(b));
	REC(hnd_seen, 2, W(c));
	REC(hnd_seen, 3, WP(d));
	REC(hnd_seen, 4, W(e));
	REC(hnd_seen, 5, W(f));
	REC(hnd_seen, 6, W(g));
	REC(hnd_seen, 7, W(h));
	SCRIBBLE(a);
	SCRIBBLE(e);
	SCRIBBLE(g);
	SCRIBBLE(h);
	atomic_inc(&hnd_calls);
	jprobe_return();
	return 0;
}

/* Called through pointers read with READ_ONCE(): never inlined or cloned. */
static int (*p0)(void) = jpk_t0;
static int (*p1)(u8) = jpk_t1;
static int (*p2)(int, long) = jpk_t2;
static int (*p3)(void *, u64, u8) = jpk_t3;
static int (*p4)(long, int, u8, void *) = jpk_t4;
static int (*p5)(u64, u8, int, long, void *) = jpk_t5;
static int (*p6)(int, u8, long, void *, u64, int) = jpk_t6;
static int (*p7)(u8, int, long, void *, u64, u8, long) = jpk_t7;
static int (*p8)(u8, int, long, void *, u64, u8, int, u64) = jpk_t8;
static int (*p8_bp)(u8, int, long, void *, u64, u8, int, u64) = jpk_t8_bp;

/* A call of the target with n arguments, with the test values. */
static int call_case(unsigned int nargs)
{
	switch (nargs) {
	case 0:
		return READ_ONCE(p0)();
	case 1:
		return READ_ONCE(p1)(V_U8);
	case 2:
		return READ_ONCE(p2)(V_INT, V_LONG);
	case 3:
		return READ_ONCE(p3)(V_PTR, V_U64, V_U8);
	case 4:
		return READ_ONCE(p4)(V_LONG, V_INTB, V_U8B, V_PTR);
	case 5:
		return READ_ONCE(p5)(V_U64, V_U8, V_INT, V_LONG, V_PTR);
	case 6:
		return READ_ONCE(p6)(V_INTB, V_U8B, V_LONG, V_PTR, V_U64, V_INT);
	case 7:
		return READ_ONCE(p7)(V_U8, V_INT, V_LONG, V_PTR, V_U64, V_U8B,
				     -V_LONG);
	case 8:
		return READ_ONCE(p8)(V_U8, V_INT, V_LONG, V_PTR, V_U64, V_U8B,
				     V_INTB, V_U64B);
	}
	return -1;
}

static int call_t8_bp(void)
{
	return READ_ONCE(p8_bp)(V_U8, V_INT, V_LONG, V_PTR, V_U64, V_U8B,
				V_INTB, V_U64B);
}

static const struct {
	void *target;
	void *handler;
	int ret;
	u64 expect[NARGS];
} jpk_cases[] = {
	{ (void *)jpk_t0, JPROBE_ENTRY(jpk_h0), 100, { } },
	{ (void *)jpk_t1, JPROBE_ENTRY(jpk_h1), 101, { W(V_U8) } },
	{ (void *)jpk_t2, JPROBE_ENTRY(jpk_h2), 102, { W(V_INT), W(V_LONG) } },
	{ (void *)jpk_t3, JPROBE_ENTRY(jpk_h3), 103, { WP(V_PTR), W(V_U64), W(V_U8) } },
	{ (void *)jpk_t4, JPROBE_ENTRY(jpk_h4), 104,
	  { W(V_LONG), W(V_INTB), W(V_U8B), WP(V_PTR) } },
	{ (void *)jpk_t5, JPROBE_ENTRY(jpk_h5), 105,
	  { W(V_U64), W(V_U8), W(V_INT), W(V_LONG), WP(V_PTR) } },
	{ (void *)jpk_t6, JPROBE_ENTRY(jpk_h6), 106,
	  { W(V_INTB), W(V_U8B), W(V_LONG), WP(V_PTR), W(V_U64), W(V_INT) } },
	{ (void *)jpk_t7, JPROBE_ENTRY(jpk_h7), 107,
	  { W(V_U8), W(V_INT), W(V_LONG), WP(V_PTR), W(V_U64), W(V_U8B),
	    W(-V_LONG) } },
	{ (void *)jpk_t8, JPROBE_ENTRY(jpk_h8), 108,
	  { W(V_U8), W(V_INT), W(V_LONG), WP(V_PTR), W(V_U64), W(V_U8B),
	    W(V_INTB), W(V_U64B) } },
};

/* The target and the handler both saw exactly @expect[0..n). */
static void expect_seen(struct kunit *test, const u64 *expect, unsigned int n,
			bool handler)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		KUNIT_EXPECT_EQ_MSG(test, tgt_seen[i], expect[i],
				    "target, argument %u of %u", i + 1, n);
		if (handler)
			KUNIT_EXPECT_EQ_MSG(test, hnd_seen[i], expect[i],
					    "handler, argument %u of %u",
					    i + 1, n);
	}
}

static void handler_gets_the_callers_arguments(struct kunit *test)
{
	unsigned int n;

	for (n = 0; n < ARRAY_SIZE(jpk_cases); n++) {
		struct jprobe jp = {
			.kp.addr = jpk_cases[n].target,
			.entry = jpk_cases[n].handler,
		};

		KUNIT_ASSERT_EQ_MSG(test, register_jprobe(&jp), 0,
				    "%u arguments", n);
		/* Our functions have an fentry site: the ftrace path. */
		if (IS_ENABLED(CONFIG_KPROBES_ON_FTRACE) && IS_ENABLED(CONFIG_X86))
			KUNIT_EXPECT_TRUE(test, kprobe_ftrace(&jp.kp));
		jpk_reset();
		KUNIT_EXPECT_EQ(test, call_case(n), jpk_cases[n].ret);
		KUNIT_EXPECT_EQ_MSG(test, atomic_read(&hnd_calls), 1,
				    "%u arguments", n);
		KUNIT_EXPECT_EQ(test, atomic_read(&tgt_calls), 1);
		expect_seen(test, jpk_cases[n].expect, n, true);
		unregister_jprobe(&jp);

		/* Gone: the target runs alone. */
		jpk_reset();
		KUNIT_EXPECT_EQ(test, call_case(n), jpk_cases[n].ret);
		KUNIT_EXPECT_EQ(test, atomic_read(&hnd_calls), 0);
		expect_seen(test, jpk_cases[n].expect, n, false);
	}
}

static void breakpoint_entry_gets_the_arguments(struct kunit *test)
{
	const u64 *expect = jpk_cases[8].expect;
	struct jprobe jp = {
		.kp.addr = (void *)jpk_t8_bp,
		.entry = JPROBE_ENTRY(jpk_h8),
	};

	KUNIT_ASSERT_EQ(test, register_jprobe(&jp), 0);
	KUNIT_EXPECT_FALSE(test, kprobe_ftrace(&jp.kp));
	jpk_reset();
	KUNIT_EXPECT_EQ(test, call_t8_bp(), 109);
	KUNIT_EXPECT_EQ(test, atomic_read(&hnd_calls), 1);
	expect_seen(test, expect, NARGS, true);

	/* Once the optimizer had its chance, the entry may be a jump. */
	wait_for_kprobe_optimizer();
	jpk_reset();
	KUNIT_EXPECT_EQ(test, call_t8_bp(), 109);
	KUNIT_EXPECT_EQ(test, atomic_read(&hnd_calls), 1);
	expect_seen(test, expect, NARGS, true);
	unregister_jprobe(&jp);

	jpk_reset();
	call_t8_bp();
	KUNIT_EXPECT_EQ(test, atomic_read(&hnd_calls), 0);
}

static void by_symbol_name(struct kunit *test)
{
	struct jprobe jp = {
		.kp.symbol_name = "jpk_t2",
		.entry = JPROBE_ENTRY(jpk_h2),
	};

	KUNIT_ASSERT_EQ(test, register_jprobe(&jp), 0);
	KUNIT_EXPECT_NOT_NULL(test, jp.kp.addr);
	jpk_reset();
	call_case(2);
	KUNIT_EXPECT_EQ(test, atomic_read(&hnd_calls), 1);
	expect_seen(test, jpk_cases[2].expect, 2, true);
	unregister_jprobe(&jp);
}

/* Register a jprobe as given; it must be refused, and leave nothing. */
static int try_refused(struct kunit *test, void *addr, const char *sym,
		       unsigned int offset, void *entry)
{
	struct jprobe jp = {
		.kp.addr = addr,
		.kp.symbol_name = sym,
		.kp.offset = offset,
		.entry = entry,
	};
	int ret = register_jprobe(&jp);

	if (!ret) {
		unregister_jprobe(&jp);
		return 0;
	}
	KUNIT_EXPECT_EQ(test, disable_jprobe(&jp), -EINVAL);
	return ret;
}

static void refusals(struct kunit *test)
{
	void *t2 = (void *)jpk_t2, *h2 = JPROBE_ENTRY(jpk_h2);
	void *t8 = (void *)jpk_t8, *h8 = JPROBE_ENTRY(jpk_h8);
	unsigned long size = 0, off;

	/* A handler is required. */
	KUNIT_EXPECT_EQ(test, try_refused(test, t2, NULL, 0, NULL), -EINVAL);
	/* Only the function entry. */
	KUNIT_EXPECT_EQ(test, try_refused(test, NULL, "jpk_t8", 0x10, h8),
			-EINVAL);
	KUNIT_ASSERT_TRUE(test, kallsyms_lookup_size_offset((unsigned long)t8,
							    &size, &off));
	KUNIT_ASSERT_GT(test, size, 0x10UL);
	KUNIT_EXPECT_EQ(test, try_refused(test, t8 + 0x10, NULL, 0, h8),
			-EINVAL);
	/* Not probe-able: blacklisted, the jprobe code itself, not text. */
	KUNIT_EXPECT_EQ(test, try_refused(test, NULL, "get_kprobe", 0, h2),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, try_refused(test, NULL, "jprobe_pre", 0, h2),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, try_refused(test, &jpk_object, NULL, 0, h2),
			-EINVAL);
	/* Both or neither of addr and symbol_name; unknown symbol. */
	KUNIT_EXPECT_EQ(test, try_refused(test, t2, "jpk_t2", 0, h2), -EINVAL);
	KUNIT_EXPECT_EQ(test, try_refused(test, NULL, NULL, 0, h2), -EINVAL);
	KUNIT_EXPECT_EQ(test, try_refused(test, NULL, "jpk_no_such_function",
					  0, h2), -ENOENT);

	/* Nothing was left behind; the good one is accepted. */
	jpk_reset();
	call_case(2);
	call_case(8);
	KUNIT_EXPECT_EQ(test, atomic_read(&hnd_calls), 0);
	KUNIT_EXPECT_EQ(test, try_refused(test, t2, NULL, 0, h2), 0);
	KUNIT_EXPECT_EQ(test, register_jprobes(NULL, 0), -EINVAL);
}

static void enable_disable(struct kunit *test)
{
	struct jprobe jp = {
		.kp.addr = (void *)jpk_t3,
		.kp.flags = KPROBE_FLAG_DISABLED,
		.entry = JPROBE_ENTRY(jpk_h3),
	};

	KUNIT_ASSERT_EQ(test, register_jprobe(&jp), 0);
	jpk_reset();
	call_case(3);
	KUNIT_EXPECT_EQ(test, atomic_read(&hnd_calls), 0);

	KUNIT_EXPECT_EQ(test, enable_jprobe(&jp), 0);
	jpk_reset();
	call_case(3);
	KUNIT_EXPECT_EQ(test, atomic_read(&hnd_calls), 1);
	expect_seen(test, jpk_cases[3].expect, 3, true);

	KUNIT_EXPECT_EQ(test, disable_jprobe(&jp), 0);
	jpk_reset();
	call_case(3);
	KUNIT_EXPECT_EQ(test, atomic_read(&hnd_calls), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&tgt_calls), 1);

	KUNIT_EXPECT_EQ(test, enable_jprobe(&jp), 0);
	jpk_reset();
	call_case(3);
	KUNIT_EXPECT_EQ(test, atomic_read(&hnd_calls), 1);
	unregister_jprobe(&jp);
	KUNIT_EXPECT_EQ(test, enable_jprobe(&jp), -EINVAL);
}

static void batch_is_all_or_nothing(struct kunit *test)
{
	struct jprobe a = { .kp.addr = (void *)jpk_t1, .entry = JPROBE_ENTRY(jpk_h1) };
	struct jprobe b = { .kp.addr = (void *)jpk_t8, .entry = JPROBE_ENTRY(jpk_h8) };
	struct jprobe bad = { .kp.addr = (void *)jpk_t2 };
	struct jprobe *jps[3] = { &a, &b, &bad };

	/* Refused while checking: no handler. */
	KUNIT_EXPECT_EQ(test, register_jprobes(jps, 3), -EINVAL);
	/* Refused by the core's checks: blacklisted. */
	bad.kp.addr = NULL;
	bad.kp.symbol_name = "get_kprobe";
	bad.entry = JPROBE_ENTRY(jpk_h2);
	KUNIT_EXPECT_EQ(test, register_jprobes(jps, 3), -EINVAL);

	jpk_reset();
	call_case(1);
	call_case(8);
	KUNIT_EXPECT_EQ(test, atomic_read(&hnd_calls), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&tgt_calls), 2);
	/* Neither is registered. */
	KUNIT_EXPECT_EQ(test, disable_jprobe(&a), -EINVAL);
	KUNIT_EXPECT_EQ(test, disable_jprobe(&b), -EINVAL);

	/* The good ones register afterwards, as a batch. */
	KUNIT_ASSERT_EQ(test, register_jprobes(jps, 2), 0);
	jpk_reset();
	call_case(1);
	KUNIT_EXPECT_EQ(test, atomic_read(&hnd_calls), 1);
	expect_seen(test, jpk_cases[1].expect, 1, true);
	jpk_reset();
	call_case(8);
	KUNIT_EXPECT_EQ(test, atomic_read(&hnd_calls), 1);
	expect_seen(test, jpk_cases[8].expect, NARGS, true);
	unregister_jprobes(jps, 2);
	jpk_reset();
	call_case(1);
	call_case(8);
	KUNIT_EXPECT_EQ(test, atomic_read(&hnd_calls), 0);
}

/* Sharing: two jprobes and a kretprobe on jpk_t2. */
static char share_log[8];
static atomic_t share_n;
static u64 share_ret, share_entry_arg;

static void share_mark(char c)
{
	int n = atomic_inc_return(&share_n) - 1;

	if (n < (int)sizeof(share_log) - 1)
		share_log[n] = c;
}

static long share_a(int a, long b)
{
	share_mark('a');
	return jpk_h2(a, b);
}

static long share_b(int a, long b)
{
	share_mark('b');
	return jpk_h2(a, b);
}

#ifdef CONFIG_KRETPROBES
static int share_ret_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	share_mark('e');
	share_entry_arg = regs_get_kernel_argument(regs, 0);
	return 0;
}

static int share_ret_handler(struct kretprobe_instance *ri,
			     struct pt_regs *regs)
{
	share_mark('r');
	share_ret = regs_return_value(regs);
	return 0;
}
#endif

static void share_reset(void)
{
	jpk_reset();
	memset(share_log, 0, sizeof(share_log));
	atomic_set(&share_n, 0);
	share_ret = 0;
	share_entry_arg = 0;
}

static void jprobes_and_kretprobe_share_a_function(struct kunit *test)
{
#ifdef CONFIG_KRETPROBES
	struct jprobe a = { .kp.addr = (void *)jpk_t2, .entry = JPROBE_ENTRY(share_a) };
	struct jprobe b = { .kp.addr = (void *)jpk_t2, .entry = JPROBE_ENTRY(share_b) };
	struct kretprobe rp = {
		.kp.addr = (void *)jpk_t2,
		.entry_handler = share_ret_entry,
		.handler = share_ret_handler,
	};

	KUNIT_ASSERT_EQ(test, register_jprobe(&a), 0);
	KUNIT_ASSERT_EQ(test, register_kretprobe(&rp), 0);
	KUNIT_ASSERT_EQ(test, register_jprobe(&b), 0);

	share_reset();
	KUNIT_EXPECT_EQ(test, call_case(2), 102);
	KUNIT_EXPECT_STREQ(test, share_log, "aebr");
	KUNIT_EXPECT_EQ(test, atomic_read(&hnd_calls), 2);
	expect_seen(test, jpk_cases[2].expect, 2, true);
	KUNIT_EXPECT_EQ(test, share_ret, 102ULL);
	/* An int argument: only the low 32 bits of the register are set. */
	KUNIT_EXPECT_EQ(test, (u32)share_entry_arg, (u32)V_INT);

	/* Each one goes on its own. */
	KUNIT_EXPECT_EQ(test, disable_jprobe(&a), 0);
	share_reset();
	KUNIT_EXPECT_EQ(test, call_case(2), 102);
	KUNIT_EXPECT_STREQ(test, share_log, "ebr");
	unregister_kretprobe(&rp);
	share_reset();
	call_case(2);
	KUNIT_EXPECT_STREQ(test, share_log, "b");
	expect_seen(test, jpk_cases[2].expect, 2, true);
	unregister_jprobe(&b);
	KUNIT_EXPECT_EQ(test, enable_jprobe(&a), 0);
	share_reset();
	call_case(2);
	KUNIT_EXPECT_STREQ(test, share_log, "a");
	unregister_jprobe(&a);
	share_reset();
	call_case(2);
	KUNIT_EXPECT_STREQ(test, share_log, "");
#else
	kunit_skip(test, "needs CONFIG_KRETPROBES");
#endif
}

/* A handler that calls its own target: the nested hit is missed. */
static long jpk_h1_recursing(u8 a)
{
	REC(hnd_seen, 0, W(a));
	atomic_inc(&hnd_calls);
	READ_ONCE(p1)(a + 1);
	return 0;
}

static void recursion_counts_nmissed(struct kunit *test)
{
	struct jprobe jp = {
		.kp.addr = (void *)jpk_t1,
		.entry = JPROBE_ENTRY(jpk_h1_recursing),
	};

	KUNIT_ASSERT_EQ(test, register_jprobe(&jp), 0);
	jpk_reset();
	call_case(1);
	KUNIT_EXPECT_EQ(test, atomic_read(&hnd_calls), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&tgt_calls), 2);
	KUNIT_EXPECT_EQ(test, jp.kp.nmissed, 1UL);
	KUNIT_EXPECT_EQ(test, hnd_seen[0], W(V_U8));
	/* The outer call ran last and kept its own argument. */
	KUNIT_EXPECT_EQ(test, tgt_seen[0], W(V_U8));
	jpk_reset();
	call_case(1);
	KUNIT_EXPECT_EQ(test, jp.kp.nmissed, 2UL);
	unregister_jprobe(&jp);
}

/*
 * Unregistering while another task keeps calling the target: on another
 * CPU when there is one, else interleaved with this one (the caller
 * yields at every call, and unregister sleeps in its grace period).
 */
static atomic_t hammer_hits, hammer_bad;

static long jpk_h8_check(u8 a, int b, long c, void *d, u64 e, u8 f, int g,
			 u64 h)
{
	if (a != V_U8 || b != V_INT || c != V_LONG || d != V_PTR ||
	    e != V_U64 || f != V_U8B || g != V_INTB || h != V_U64B)
		atomic_inc(&hammer_bad);
	atomic_inc(&hammer_hits);
	return 0;
}

static int hammer(void *unused)
{
	while (!kthread_should_stop()) {
		call_case(8);
		cond_resched_tasks_rcu_qs();
	}
	return 0;
}

#define HAMMER_ROUNDS	10

/* Stops the caller however the case ends, a failed assertion included. */
static void stop_hammer(void *tsk)
{
	kthread_stop(tsk);
}

static void unregister_while_the_target_is_called(struct kunit *test)
{
	struct jprobe jp = {
		.kp.addr = (void *)jpk_t8,
		.entry = JPROBE_ENTRY(jpk_h8_check),
	};
	struct task_struct *tsk;
	int round, i, before, after;
	unsigned int cpu;

	atomic_set(&hammer_hits, 0);
	atomic_set(&hammer_bad, 0);
	tsk = kthread_create(hammer, NULL, "jpk_hammer");
	KUNIT_ASSERT_FALSE(test, IS_ERR(tsk));
	cpu = cpumask_any_but(cpu_online_mask, raw_smp_processor_id());
	if (cpu < nr_cpu_ids)
		kthread_bind(tsk, cpu);
	else
		kunit_info(test, "one CPU: the caller runs interleaved\n");
	wake_up_process(tsk);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, stop_hammer, tsk),
			0);

	for (round = 0; round < HAMMER_ROUNDS; round++) {
		KUNIT_ASSERT_EQ(test, register_jprobe(&jp), 0);
		before = atomic_read(&hammer_hits);
		/* Let the caller hit it a few times (bounded wait). */
		for (i = 0; i < 250 && atomic_read(&hammer_hits) - before < 10; i++)
			msleep(20);
		KUNIT_EXPECT_GE(test, atomic_read(&hammer_hits) - before, 10);
		unregister_jprobe(&jp);
		/* From here on the handler never runs again. */
		before = atomic_read(&hammer_hits);
		msleep(20);
		after = atomic_read(&hammer_hits);
		KUNIT_EXPECT_EQ(test, before, after);
	}
	kunit_release_action(test, stop_hammer, tsk);
	KUNIT_EXPECT_EQ(test, atomic_read(&hammer_bad), 0);
	KUNIT_EXPECT_GE(test, atomic_read(&hammer_hits), 10 * HAMMER_ROUNDS);
}

static struct kunit_case jprobes_cases[] = {
	KUNIT_CASE(handler_gets_the_callers_arguments),
	KUNIT_CASE(breakpoint_entry_gets_the_arguments),
	KUNIT_CASE(by_symbol_name),
	KUNIT_CASE(refusals),
	KUNIT_CASE(enable_disable),
	KUNIT_CASE(batch_is_all_or_nothing),
	KUNIT_CASE(jprobes_and_kretprobe_share_a_function),
	KUNIT_CASE(recursion_counts_nmissed),
	KUNIT_CASE(unregister_while_the_target_is_called),
	{}
};

static struct kunit_suite jprobes_suite = {
	.name = "jprobes",
	.test_cases = jprobes_cases,
};
kunit_test_suite(jprobes_suite);
