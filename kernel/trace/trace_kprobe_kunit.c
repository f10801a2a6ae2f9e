// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for kprobe events: what the event layer tells BPF about an
 * event holds for every probe of it, not only for the first.
 *
 * A BPF program attached to a kprobe event runs at a hit of any of its
 * probes; one that overrides return values (bpf_override_return()) may
 * only be attached where every probe is on the entry of a function that
 * allows error injection, and a probe that is not must not join the
 * event later.  BPF's query of a perf event on the event reads its first
 * probe, which must stay as long as the perf event does.
 */
#include <kunit/test.h>
#include <linux/error-injection.h>
#include <linux/slab.h>
#include <linux/trace_events.h>

#include "trace_dynevent.h"
#include "trace_probe.h"

#define KEK_EVENT	"kek_override"

/*
 * An error-injectable function, and one with the same arguments that is
 * not; only probed, never called.
 */
static noinline __used int kek_injectable(int v)
{
	return v + 1;
}
ALLOW_ERROR_INJECTION(kek_injectable, ERRNO);

static noinline __used int kek_plain(int v)
{
	return v + 2;
}

static noinline __used int kek_plain2(int v)
{
	return v + 3;
}

/* Add a probe on @func to the kprobe event KEK_EVENT (made if needed). */
static int kek_add_probe(struct kunit *test, const char *func)
{
	struct dynevent_cmd cmd;
	char *buf;
	int ret;

	buf = kunit_kzalloc(test, MAX_DYNEVENT_CMD_LEN, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	kprobe_event_cmd_init(&cmd, buf, MAX_DYNEVENT_CMD_LEN);
	ret = kprobe_event_gen_cmd_start(&cmd, KEK_EVENT, func);
	if (!ret)
		ret = kprobe_event_gen_cmd_end(&cmd);
	return ret;
}

/* What BPF's attach of an overriding program asks, in its order. */
static bool kek_may_override(struct kunit *test)
{
	struct trace_event_file *file;
	bool ok;

	file = trace_get_event_file(NULL, "kprobes", KEK_EVENT);
	KUNIT_ASSERT_FALSE(test, IS_ERR(file));
	ok = trace_kprobe_on_func_entry(file->event_call) &&
	     trace_kprobe_error_injectable(file->event_call);
	trace_put_event_file(file);
	return ok;
}

/* Without error injection no function is injectable: nothing to test. */
static void kek_need_injection(struct kunit *test)
{
	if (!IS_ENABLED(CONFIG_FUNCTION_ERROR_INJECTION))
		kunit_skip(test, "needs CONFIG_FUNCTION_ERROR_INJECTION");
}

static void kek_exit(struct kunit *test)
{
	kprobe_event_delete(KEK_EVENT);
}

/*
 * An event with a probe on an injectable function and one on a plain
 * function: an overriding program would run at the plain one's hits.
 * 6.12 checked the first probe only.
 */
static void override_checks_every_probe(struct kunit *test)
{
	kek_need_injection(test);
	KUNIT_ASSERT_EQ(test, kek_add_probe(test, "kek_injectable"), 0);
	KUNIT_ASSERT_EQ(test, kek_add_probe(test, "kek_plain"), 0);
	KUNIT_EXPECT_FALSE(test, kek_may_override(test));
}

/* Once an overriding program asked for the event, no plain probe joins. */
static void override_event_takes_no_plain_probe(struct kunit *test)
{
	kek_need_injection(test);
	KUNIT_ASSERT_EQ(test, kek_add_probe(test, "kek_injectable"), 0);
	KUNIT_EXPECT_TRUE(test, kek_may_override(test));
	KUNIT_EXPECT_EQ(test, kek_add_probe(test, "kek_plain"), -EINVAL);
	KUNIT_EXPECT_TRUE(test, kek_may_override(test));
}

/* An event refused to such a program is not marked: probes still join. */
static void refused_override_leaves_the_event_open(struct kunit *test)
{
	kek_need_injection(test);
	KUNIT_ASSERT_EQ(test, kek_add_probe(test, "kek_plain"), 0);
	KUNIT_EXPECT_FALSE(test, kek_may_override(test));
	KUNIT_EXPECT_EQ(test, kek_add_probe(test, "kek_plain2"), 0);
}

/*
 * A user holding a reference on the event (perf, and BPF through a perf
 * event) keeps every probe of it: BPF's query reads the first probe's
 * symbol without event_mutex.  6.12 deleted one probe of such an event.
 */
static void event_in_use_keeps_its_probes(struct kunit *test)
{
	struct trace_event_file *file;
	int ret;

	KUNIT_ASSERT_EQ(test, kek_add_probe(test, "kek_plain"), 0);
	KUNIT_ASSERT_EQ(test, kek_add_probe(test, "kek_plain2"), 0);
	file = trace_get_event_file(NULL, "kprobes", KEK_EVENT);
	KUNIT_ASSERT_FALSE(test, IS_ERR(file));
	ret = dyn_event_release("-:kprobes/" KEK_EVENT " kek_plain", NULL);
	trace_put_event_file(file);
	KUNIT_EXPECT_EQ(test, ret, -EBUSY);
	/* Without the user, the probe goes and the event keeps the other. */
	KUNIT_EXPECT_EQ(test,
			dyn_event_release("-:kprobes/" KEK_EVENT " kek_plain",
					  NULL), 0);
	file = trace_get_event_file(NULL, "kprobes", KEK_EVENT);
	KUNIT_EXPECT_FALSE(test, IS_ERR(file));
	if (!IS_ERR(file))
		trace_put_event_file(file);
}

static struct kunit_case kek_cases[] = {
	KUNIT_CASE(override_checks_every_probe),
	KUNIT_CASE(override_event_takes_no_plain_probe),
	KUNIT_CASE(refused_override_leaves_the_event_open),
	KUNIT_CASE(event_in_use_keeps_its_probes),
	{}
};

static struct kunit_suite kek_suite = {
	.name = "kprobe_events",
	.exit = kek_exit,
	.test_cases = kek_cases,
};

kunit_test_suite(kek_suite);

MODULE_DESCRIPTION("KUnit tests for kprobe events");
MODULE_LICENSE("GPL");
