// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for fprobe (kernel/trace/fprobe.c) beyond lib/test_fprobe.c:
 * glob filters, entry_data, skipping exits, soft disabling, the missed
 * counter, sharing with kprobes, sleeping calls in flight, and the
 * register/unregister contract.
 */
#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/bsearch.h>
#include <linux/delay.h>
#include <linux/fprobe.h>
#include <linux/ftrace.h>
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/kthread.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/wait.h>

#include "trace.h"

#define FC_NTARGETS	3
#define FC_SLEEPERS	64
#define FC_TIMEOUT	(60 * HZ)

/*
 * Targets, called through pointers set at run time so that the compiler
 * neither inlines nor clones them (a clone would not be the probed copy).
 */
static noinline u64 fprobe_core_tgt_a(u64 v)
{
	return v * 3 + 1;
}

static noinline u64 fprobe_core_tgt_b(u64 v)
{
	return v * 5 + 2;
}

static noinline u64 fprobe_core_tgt_c(u64 v)
{
	return v * 7 + 3;
}

static noinline u64 fprobe_core_outer(u64 v, u64 (*inner)(u64))
{
	return inner(v + 1) + 1;
}

static u64 (*fc_tgt[FC_NTARGETS])(u64);
static u64 (*fc_outer)(u64, u64 (*)(u64));

/* What the handlers saw; one test runs at a time. */
struct fc_state {
	struct kunit	*test;
	unsigned long	site[FC_NTARGETS];	/* ftrace sites of fc_tgt[] */
	unsigned long	outer_site;
	atomic_t	entries[FC_NTARGETS + 1];	/* [FC_NTARGETS]: outer */
	atomic_t	exits[FC_NTARGETS + 1];
	atomic_t	bad_data;
	atomic_t	bad_ip;
	atomic_t	not_busy;
	size_t		data_size;
	bool		skip_odd;
	bool		recurse;
	bool		recurse_exit;
};

static struct fc_state fc;
static noinline int fprobe_core_sleep(int i);
static int (*fc_sleep)(int);

static unsigned long fc_site_of(void *func)
{
	unsigned long size, addr = (unsigned long)func;

	if (!kallsyms_lookup_size_offset(addr, &size, NULL) || !size)
		return 0;
	return ftrace_location_range(addr, addr + size - 1);
}

static int fc_index(unsigned long ip)
{
	int i;

	for (i = 0; i < FC_NTARGETS; i++)
		if (ip == fc.site[i])
			return i;
	if (ip == fc.outer_site)
		return FC_NTARGETS;
	return -1;
}

/* A byte pattern that depends on the call's argument and the offset. */
static u8 fc_pattern(unsigned long arg, size_t off)
{
	return (u8)(arg * 31 + off * 7 + 1);
}

static notrace int fc_entry(struct fprobe *fp, unsigned long ip,
			    unsigned long ret_ip, struct pt_regs *regs,
			    void *data)
{
	unsigned long arg = regs_get_kernel_argument(regs, 0);
	int i = fc_index(ip);
	size_t off;

	if (i < 0) {
		atomic_inc(&fc.bad_ip);
		return 0;
	}
	atomic_inc(&fc.entries[i]);
	if (fprobe_shared_with_kprobes(fp) && !kprobe_running())
		atomic_inc(&fc.not_busy);
	if (fc.recurse)
		fc_tgt[2](arg);	/* probed too: must be counted as missed */
	if (fc.data_size) {
		if (!data) {
			atomic_inc(&fc.bad_data);
			return 0;
		}
		for (off = 0; off < fc.data_size; off++)
			((u8 *)data)[off] = fc_pattern(arg, off);
	} else if (data) {
		atomic_inc(&fc.bad_data);
	}
	return fc.skip_odd && (arg & 1);
}

static notrace void fc_exit(struct fprobe *fp, unsigned long ip,
			    unsigned long ret_ip, struct pt_regs *regs,
			    void *data)
{
	int i = fc_index(ip);
	unsigned long arg;
	size_t off;

	if (i < 0) {
		atomic_inc(&fc.bad_ip);
		return;
	}
	atomic_inc(&fc.exits[i]);
	if (fprobe_shared_with_kprobes(fp) && !kprobe_running())
		atomic_inc(&fc.not_busy);
	if (fc.recurse_exit)
		fc_tgt[2](i);	/* probed too: see fc_test_exit_recursion() */
	if (instruction_pointer(regs) != ret_ip)
		atomic_inc(&fc.bad_ip);
	if (!fc.data_size) {
		if (data)
			atomic_inc(&fc.bad_data);
		return;
	}
	if (!data) {
		atomic_inc(&fc.bad_data);
		return;
	}
	/* The argument is gone by now: recover it from the first byte. */
	for (arg = 0; arg < 256; arg++)
		if (fc_pattern(arg, 0) == ((u8 *)data)[0])
			break;
	for (off = 0; off < fc.data_size; off++)
		if (((u8 *)data)[off] != fc_pattern(arg, off)) {
			atomic_inc(&fc.bad_data);
			return;
		}
}

static int fc_init(struct kunit *test)
{
	int i;

	memset(&fc, 0, sizeof(fc));
	fc.test = test;
	fc_tgt[0] = fprobe_core_tgt_a;
	fc_tgt[1] = fprobe_core_tgt_b;
	fc_tgt[2] = fprobe_core_tgt_c;
	fc_outer = fprobe_core_outer;
	fc_sleep = fprobe_core_sleep;
	for (i = 0; i < FC_NTARGETS; i++) {
		fc.site[i] = fc_site_of(fc_tgt[i]);
		KUNIT_ASSERT_NE(test, fc.site[i], 0);
	}
	fc.outer_site = fc_site_of(fc_outer);
	KUNIT_ASSERT_NE(test, fc.outer_site, 0);
	return 0;
}

static void fc_call_all(u64 v)
{
	int i;

	for (i = 0; i < FC_NTARGETS; i++)
		KUNIT_EXPECT_EQ(fc.test, fc_tgt[i](v), v * (3 + 2 * i) + 1 + i);
}

/* A glob with a notfilter probes exactly the functions it names. */
static void fc_test_glob(struct kunit *test)
{
	struct fprobe fp = { .entry_handler = fc_entry, .exit_handler = fc_exit };

	KUNIT_ASSERT_EQ(test, register_fprobe(&fp, "fprobe_core_tgt_*",
					      "fprobe_core_tgt_b"), 0);
	KUNIT_EXPECT_TRUE(test, fprobe_is_registered(&fp));
	fc_call_all(4);
	KUNIT_EXPECT_EQ(test, unregister_fprobe(&fp), 0);
	KUNIT_EXPECT_FALSE(test, fprobe_is_registered(&fp));

	KUNIT_EXPECT_EQ(test, atomic_read(&fc.entries[0]), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&fc.entries[1]), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&fc.entries[2]), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&fc.exits[0]), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&fc.exits[1]), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&fc.exits[2]), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&fc.bad_ip), 0);
	KUNIT_EXPECT_EQ(test, fp.nmissed, 0);

	/* "?" and "[...]" work too; a glob that matches nothing is refused. */
	KUNIT_ASSERT_EQ(test, register_fprobe(&fp, "fprobe_core_tgt_[bc]", NULL), 0);
	fc_call_all(5);
	KUNIT_EXPECT_EQ(test, unregister_fprobe(&fp), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&fc.entries[0]), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&fc.entries[1]), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&fc.entries[2]), 2);
	KUNIT_EXPECT_EQ(test, register_fprobe(&fp, "fprobe_core_no_such_fn?", NULL),
			-EINVAL);
	KUNIT_EXPECT_FALSE(test, fprobe_is_registered(&fp));
}

/* Names, one by one and (past the short-list limit, repeated) sorted. */
static void fc_test_syms(struct kunit *test)
{
	static const char *two[] = { "fprobe_core_tgt_a", "fprobe_core_tgt_c" };
	static const char *bad[] = { "fprobe_core_tgt_a", "fprobe_core_none" };
	struct fprobe fp = { .entry_handler = fc_entry };
	const char **many;
	int i, n = 100;

	KUNIT_ASSERT_EQ(test, register_fprobe_syms(&fp, two, 2), 0);
	fc_call_all(1);
	KUNIT_EXPECT_EQ(test, unregister_fprobe(&fp), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&fc.entries[0]), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&fc.entries[1]), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&fc.entries[2]), 1);

	many = kunit_kcalloc(test, n, sizeof(*many), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, many);
	for (i = 0; i < n; i++)
		many[i] = i % 2 ? "fprobe_core_tgt_b" : "fprobe_core_outer";
	KUNIT_ASSERT_EQ(test, register_fprobe_syms(&fp, many, n), 0);
	fc_call_all(1);
	fc_outer(1, fc_tgt[1]);
	KUNIT_EXPECT_EQ(test, unregister_fprobe(&fp), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&fc.entries[0]), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&fc.entries[1]), 2);
	KUNIT_EXPECT_EQ(test, atomic_read(&fc.entries[2]), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&fc.entries[FC_NTARGETS]), 1);

	KUNIT_EXPECT_EQ(test, register_fprobe_syms(&fp, bad, 2), -ENOENT);
	many[n / 2] = "fprobe_core_none";
	KUNIT_EXPECT_EQ(test, register_fprobe_syms(&fp, many, n), -ENOENT);
	KUNIT_EXPECT_FALSE(test, fprobe_is_registered(&fp));
	KUNIT_EXPECT_EQ(test, atomic_read(&fc.bad_ip), 0);
}

/* Every fifth traceable kernel symbol's name, for fc_test_lookup_paths(). */
struct fc_sample {
	struct kunit	*test;
	const char	**names;
	unsigned int	n, max, seen;
};

static int fc_sample_name(void *data, const char *name, unsigned long addr)
{
	struct fc_sample *c = data;
	size_t len = strlen(name) + 1;
	char *copy;

	if (!ftrace_location(addr) || c->seen++ % 5)
		return 0;
	copy = kunit_kmalloc(c->test, len, GFP_KERNEL);
	if (!copy)
		return -ENOMEM;
	strscpy(copy, name, len);
	c->names[c->n++] = copy;
	return c->n == c->max;
}

static int fc_sample_cmp(const void *a, const void *b)
{
	return strcmp(*(const char * const *)a, *(const char * const *)b);
}

/*
 * ftrace_lookup_symbols() looks a short list up name by name and a long
 * one (over 1,024 names) in one walk of every symbol: the two must give
 * each name the same address, its traceable symbol of lowest address
 * (the names here include static functions that several files define),
 * and both refuse a list with a name given twice or with a name that
 * has no symbol.
 */
static void fc_test_lookup_paths(struct kunit *test)
{
	struct fc_sample c = { .test = test, .max = 3000 };
	unsigned long *walk, *each;
	unsigned int i, n, off, wrong = 0;
	char absent[KSYM_NAME_LEN + 1];
	const char *keep;

	c.names = kunit_kcalloc(test, c.max, sizeof(*c.names), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, c.names);
	KUNIT_ASSERT_GE(test, kallsyms_on_each_symbol(fc_sample_name, &c), 0);
	sort(c.names, c.n, sizeof(*c.names), fc_sample_cmp, NULL);
	for (i = 1, n = 1; i < c.n; i++)
		if (strcmp(c.names[i], c.names[n - 1]))
			c.names[n++] = c.names[i];
	KUNIT_ASSERT_GT(test, n, 2048);

	walk = kunit_kcalloc(test, n, sizeof(*walk), GFP_KERNEL);
	each = kunit_kcalloc(test, n, sizeof(*each), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, walk);
	KUNIT_ASSERT_NOT_NULL(test, each);
	KUNIT_ASSERT_EQ(test, ftrace_lookup_symbols(c.names, n, walk), 0);
	for (off = 0; off < n; off += 500)
		KUNIT_ASSERT_EQ(test, ftrace_lookup_symbols(c.names + off,
							    min(500U, n - off),
							    each + off), 0);
	for (i = 0; i < n; i++) {
		if (walk[i] == each[i] && ftrace_location(walk[i]))
			continue;
		if (!wrong++)
			kunit_info(test, "%s: walk %pS (%lx), by name %pS (%lx)\n",
				   c.names[i], (void *)walk[i], walk[i],
				   (void *)each[i], each[i]);
	}
	KUNIT_EXPECT_EQ(test, wrong, 0);

	/* A name given twice: short and long. */
	keep = c.names[1];
	c.names[1] = c.names[0];
	KUNIT_EXPECT_EQ(test, ftrace_lookup_symbols(c.names, 2, each), -ESRCH);
	KUNIT_EXPECT_EQ(test, ftrace_lookup_symbols(c.names, n, walk), -ESRCH);
	c.names[1] = keep;

	/* A name with no symbol, still in sorted order: short and long. */
	keep = c.names[n / 2];
	snprintf(absent, sizeof(absent), "%s\x01", keep);
	c.names[n / 2] = absent;
	KUNIT_EXPECT_EQ(test, ftrace_lookup_symbols(c.names + n / 2, 1, each),
			-ESRCH);
	KUNIT_EXPECT_EQ(test, ftrace_lookup_symbols(c.names, n, walk), -ESRCH);
	c.names[n / 2] = keep;
}

/* A traceable function's name that another traceable function has too. */
struct fc_shared_name {
	char		name[KSYM_NAME_LEN];
	unsigned int	n;	/* traceable symbols of a candidate name */
};

static int fc_count_traceable(void *data, unsigned long addr)
{
	struct fc_shared_name *c = data;

	c->n += !!ftrace_location(addr);
	return 0;
}

static int fc_find_shared_name(void *data, const char *name, unsigned long addr)
{
	struct fc_shared_name *c = data;

	if (!ftrace_location(addr))
		return 0;
	c->n = 0;
	kallsyms_on_each_match_symbol(fc_count_traceable, name, c);
	if (c->n < 2)
		return 0;
	strscpy(c->name, name, sizeof(c->name));
	return 1;
}

/* Does every ip of @a's filter hash lie in @b's? */
static bool fc_hash_within(struct ftrace_hash *a, struct ftrace_hash *b)
{
	struct ftrace_func_entry *e;
	unsigned long i;

	for (i = 0; i < BIT(a->size_bits); i++)
		hlist_for_each_entry(e, &a->buckets[i], hlist)
			if (!ftrace_lookup_ip(b, e->ip))
				return false;
	return true;
}

/*
 * An entry handler that counts nothing, for functions fc_entry() would
 * take for bad ips (other files') or that are too many to count.
 */
static notrace int fc_count_entry(struct fprobe *fp, unsigned long ip,
				  unsigned long ret_ip, struct pt_regs *regs,
				  void *data)
{
	return 0;
}

/*
 * register_fprobe() looks a plain name up in kallsyms' sorted index and
 * matches a glob against every symbol: a name two static functions share
 * must hook both either way (a lookup that stopped at the first symbol of
 * the name would hook one), and the notfilter still applies.
 */
static void fc_test_plain_name(struct kunit *test)
{
	struct fprobe by_name = { .entry_handler = fc_count_entry };
	struct fprobe by_glob = { .entry_handler = fc_count_entry };
	struct ftrace_hash *hn, *hg;
	struct fc_shared_name *c;
	char *glob;
	size_t len;

	c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	glob = kunit_kzalloc(test, KSYM_NAME_LEN + 2, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, c);
	KUNIT_ASSERT_NOT_NULL(test, glob);
	KUNIT_ASSERT_EQ(test, kallsyms_on_each_symbol(fc_find_shared_name, c), 1);
	kunit_info(test, "%s: %u traceable functions\n", c->name, c->n);

	/* the same name as a glob: its last character as a class */
	len = strlen(c->name);
	snprintf(glob, KSYM_NAME_LEN + 2, "%.*s[%c]", (int)len - 1, c->name,
		 c->name[len - 1]);
	KUNIT_ASSERT_EQ(test, register_fprobe(&by_name, c->name, NULL), 0);
	KUNIT_ASSERT_EQ(test, register_fprobe(&by_glob, glob, NULL), 0);
	hn = by_name.ops.func_hash->filter_hash;
	hg = by_glob.ops.func_hash->filter_hash;
	KUNIT_EXPECT_EQ(test, hn->count, (unsigned long)c->n);
	KUNIT_EXPECT_EQ(test, hg->count, (unsigned long)c->n);
	KUNIT_EXPECT_TRUE(test, fc_hash_within(hn, hg));
	KUNIT_EXPECT_EQ(test, unregister_fprobe(&by_glob), 0);
	KUNIT_EXPECT_EQ(test, unregister_fprobe(&by_name), 0);

	/* A plain name the notfilter takes, or that nothing has, is refused. */
	KUNIT_EXPECT_EQ(test, register_fprobe(&by_name, c->name, glob), -EINVAL);
	KUNIT_EXPECT_EQ(test, register_fprobe(&by_name, "fprobe_core_none", NULL),
			-EINVAL);
	KUNIT_EXPECT_FALSE(test, fprobe_is_registered(&by_name));

	/* and a plain name is still probed and fires */
	by_name.entry_handler = fc_entry;
	KUNIT_ASSERT_EQ(test, register_fprobe(&by_name, "fprobe_core_tgt_b", NULL), 0);
	fc_call_all(2);
	KUNIT_EXPECT_EQ(test, unregister_fprobe(&by_name), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&fc.entries[0]), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&fc.entries[1]), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&fc.entries[2]), 0);
}

/* entry_data of several sizes goes from each entry to its own exit. */
static void fc_test_entry_data(struct kunit *test)
{
	static const size_t sizes[] = { 1, 3, 8, 24, 100, 600, 2000 };
	unsigned long ips[2];
	int s, calls = 0;

	for (s = 0; s < ARRAY_SIZE(sizes); s++) {
		struct fprobe fp = {
			.entry_handler = fc_entry,
			.exit_handler = fc_exit,
			.entry_data_size = sizes[s],
		};

		fc.data_size = sizes[s];
		/* A function address and an ftrace site; the outer one nests. */
		ips[0] = (unsigned long)fc_tgt[0];
		ips[1] = fc.outer_site;
		KUNIT_ASSERT_EQ(test, register_fprobe_ips(&fp, ips, 2), 0);
		fc_tgt[0](10 + s);
		fc_outer(20 + s, fc_tgt[0]);
		calls += 2;
		KUNIT_EXPECT_EQ(test, unregister_fprobe(&fp), 0);
		KUNIT_EXPECT_EQ(test, fp.nmissed, 0);
		KUNIT_EXPECT_EQ(test, atomic_read(&fc.exits[0]), calls);
		KUNIT_EXPECT_EQ(test, atomic_read(&fc.exits[FC_NTARGETS]), s + 1);
	}
	KUNIT_EXPECT_EQ(test, atomic_read(&fc.bad_data), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&fc.bad_ip), 0);
}

/* A non-zero return from the entry handler skips that call's exit only. */
static void fc_test_skip_exit(struct kunit *test)
{
	struct fprobe fp = {
		.entry_handler = fc_entry,
		.exit_handler = fc_exit,
		.entry_data_size = 16,
	};
	int v;

	fc.skip_odd = true;
	fc.data_size = 16;
	KUNIT_ASSERT_EQ(test, register_fprobe(&fp, "fprobe_core_tgt_a", NULL), 0);
	for (v = 0; v < 10; v++)
		fc_tgt[0](v);
	KUNIT_EXPECT_EQ(test, unregister_fprobe(&fp), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&fc.entries[0]), 10);
	KUNIT_EXPECT_EQ(test, atomic_read(&fc.exits[0]), 5);
	KUNIT_EXPECT_EQ(test, fp.nmissed, 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&fc.bad_data), 0);
}

/* The first argument register, as an entry handler may rewrite it. */
static notrace void fc_set_arg0(struct pt_regs *regs, unsigned long v)
{
#if defined(CONFIG_X86_64)
	regs->di = v;
#elif defined(CONFIG_ARM64)
	regs->regs[0] = v;
#endif
}

static notrace int fc_arg_entry(struct fprobe *fp, unsigned long ip,
				unsigned long ret_ip, struct pt_regs *regs,
				void *data)
{
	fc_set_arg0(regs, 41);
	return 0;
}

static notrace void fc_arg_exit(struct fprobe *fp, unsigned long ip,
				unsigned long ret_ip, struct pt_regs *regs,
				void *data)
{
}

/*
 * What an entry handler writes to the argument registers is what the
 * function gets (a BPF kprobe_multi program's bpf_override_return()
 * writes the return register the same way), with and without an exit
 * handler.  arm64 copied only lr and pc back.
 */
static void fc_test_entry_writes_args(struct kunit *test)
{
	int pass;

	for (pass = 0; pass < 2; pass++) {
		struct fprobe fp = {
			.entry_handler = fc_arg_entry,
			.exit_handler = pass ? fc_arg_exit : NULL,
		};

		KUNIT_ASSERT_EQ(test, register_fprobe(&fp, "fprobe_core_tgt_a",
						      NULL), 0);
		KUNIT_EXPECT_EQ(test, fc_tgt[0](7), 41ULL * 3 + 1);
		KUNIT_EXPECT_EQ(test, unregister_fprobe(&fp), 0);
		KUNIT_EXPECT_EQ(test, fc_tgt[0](7), 7ULL * 3 + 1);
	}
}

/* A disabled fprobe runs no handler and counts nothing. */
static void fc_test_disable(struct kunit *test)
{
	struct fprobe fp = {
		.entry_handler = fc_entry,
		.exit_handler = fc_exit,
		.flags = FPROBE_FL_DISABLED,
	};

	KUNIT_ASSERT_EQ(test, register_fprobe(&fp, "fprobe_core_tgt_a", NULL), 0);
	KUNIT_EXPECT_TRUE(test, fprobe_disabled(&fp));
	fc_tgt[0](1);
	KUNIT_EXPECT_EQ(test, atomic_read(&fc.entries[0]), 0);

	enable_fprobe(&fp);
	KUNIT_EXPECT_FALSE(test, fprobe_disabled(&fp));
	fc_tgt[0](2);
	KUNIT_EXPECT_EQ(test, atomic_read(&fc.entries[0]), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&fc.exits[0]), 1);

	disable_fprobe(&fp);
	fc_tgt[0](3);
	KUNIT_EXPECT_EQ(test, atomic_read(&fc.entries[0]), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&fc.exits[0]), 1);

	enable_fprobe(&fp);
	fc_tgt[0](4);
	KUNIT_EXPECT_EQ(test, unregister_fprobe(&fp), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&fc.entries[0]), 2);
	KUNIT_EXPECT_EQ(test, atomic_read(&fc.exits[0]), 2);
	KUNIT_EXPECT_EQ(test, fp.nmissed, 0);
	KUNIT_EXPECT_FALSE(test, fprobe_disabled(NULL));
}

/*
 * Recursion: a probed function called from a handler is missed (ftrace
 * recursion guard), and so is a call nested deeper than nr_maxactive.
 */
static void fc_test_nmissed(struct kunit *test)
{
	struct fprobe fp = { .entry_handler = fc_entry, .exit_handler = fc_exit };
	struct fprobe nest = {
		.entry_handler = fc_entry,
		.exit_handler = fc_exit,
		.nr_maxactive = 1,
	};
	unsigned long ips[] = { fc.site[0], fc.site[2] };

	KUNIT_ASSERT_EQ(test, register_fprobe_ips(&fp, ips, 2), 0);
	fc.recurse = true;
	fc_tgt[0](1);
	fc_tgt[0](2);
	fc.recurse = false;
	KUNIT_EXPECT_EQ(test, unregister_fprobe(&fp), 0);
	/*
	 * ftrace lets one recursion level through (its "transition" bit, for
	 * an interrupt not yet visible in preempt_count); the handler of that
	 * nested call recurses once more, and that call is the one missed.
	 * Where ftrace calls each ops from a trampoline of its own (x86_64,
	 * and arm64's call ops), that last call reaches the fprobe, which
	 * counts it.  Elsewhere (32-bit x86) ftrace calls every ops through
	 * its list function once another ops exists anywhere, and that
	 * function stops the recursion before any ops sees it: not counted,
	 * but not run either (entries[2] below).
	 */
	if (IS_ENABLED(CONFIG_X86_64) ||
	    IS_ENABLED(CONFIG_DYNAMIC_FTRACE_WITH_CALL_OPS))
		KUNIT_EXPECT_EQ(test, fp.nmissed, 2);
	else
		KUNIT_EXPECT_LE(test, fp.nmissed, 2);
	KUNIT_EXPECT_EQ(test, atomic_read(&fc.entries[0]), 2);
	KUNIT_EXPECT_EQ(test, atomic_read(&fc.exits[0]), 2);
	KUNIT_EXPECT_EQ(test, atomic_read(&fc.entries[2]), 2);

	/*
	 * Depth 1: the inner call's exit cannot be hooked, so neither of its
	 * handlers runs (an entry is never left without its exit).
	 */
	ips[1] = fc.outer_site;
	KUNIT_ASSERT_EQ(test, register_fprobe_ips(&nest, ips, 2), 0);
	fc_outer(3, fc_tgt[0]);
	KUNIT_EXPECT_EQ(test, rethook_nmissed(nest.rethook,
					      RETHOOK_MISS_NEST_FULL), 1);
	KUNIT_EXPECT_EQ(test, unregister_fprobe(&nest), 0);
	KUNIT_EXPECT_EQ(test, nest.nmissed, 1);
	KUNIT_EXPECT_EQ(test, nest.nmissed_entry, 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&fc.entries[0]), 2);
	KUNIT_EXPECT_EQ(test, atomic_read(&fc.exits[0]), 2);
	KUNIT_EXPECT_EQ(test, atomic_read(&fc.entries[FC_NTARGETS]), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&fc.exits[FC_NTARGETS]), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&fc.bad_ip), 0);
}

/*
 * Recursion from an exit handler: the exit runs under its entry's ftrace
 * recursion bit, so a probed function it calls goes through ftrace's one
 * "transition" level and the call after that is missed, as from an entry
 * handler.  Every call: the exit of tgt[0] calls tgt[2] (entry and exit
 * run, on the transition bit), whose exit calls tgt[2] again (missed).
 * The task's recursion bits are as they were afterwards.
 */
static void fc_test_exit_recursion(struct kunit *test)
{
	struct fprobe fp = { .entry_handler = fc_entry, .exit_handler = fc_exit };
	unsigned long ips[] = { fc.site[0], fc.site[2] };
	unsigned int bits = current->trace_recursion;

	KUNIT_ASSERT_EQ(test, register_fprobe_ips(&fp, ips, 2), 0);
	fc.recurse_exit = true;
	fc_tgt[0](1);
	fc_tgt[0](2);
	fc.recurse_exit = false;
	KUNIT_EXPECT_EQ(test, unregister_fprobe(&fp), 0);
	KUNIT_EXPECT_EQ(test, current->trace_recursion, bits);
	KUNIT_EXPECT_EQ(test, atomic_read(&fc.entries[0]), 2);
	KUNIT_EXPECT_EQ(test, atomic_read(&fc.exits[0]), 2);
	/* As in fc_test_nmissed(): exact where each ops has its trampoline. */
	if (IS_ENABLED(CONFIG_X86_64) ||
	    IS_ENABLED(CONFIG_DYNAMIC_FTRACE_WITH_CALL_OPS)) {
		KUNIT_EXPECT_EQ(test, atomic_read(&fc.entries[2]), 2);
		KUNIT_EXPECT_EQ(test, atomic_read(&fc.exits[2]), 2);
		KUNIT_EXPECT_EQ(test, fp.nmissed, 2);
	} else {
		KUNIT_EXPECT_LE(test, atomic_read(&fc.exits[2]), 2);
		KUNIT_EXPECT_LE(test, fp.nmissed, 2);
	}
	KUNIT_EXPECT_EQ(test, atomic_read(&fc.bad_ip), 0);
}

/*
 * The arch half of rethook cannot be hooked itself.  A node pushed while
 * a hooked return runs its C code, before the generic code has found
 * the call's node, would sit above that node, be popped as that of a
 * call that did not return, and its own return would find no node (a
 * BUG()); one pushed from arch_rethook_prepare() would interleave with
 * the node being pushed.  Neither arch builds them with ftrace call
 * sites; a name this arch does not have is refused too.
 */
static void fc_test_return_path_untraceable(struct kunit *test)
{
	static const char * const names[] = {
		"arch_rethook_fixup_return",
		"arch_rethook_prepare",
		"arch_rethook_trampoline_callback",	/* arm64 */
	};
	struct fprobe fp = { .entry_handler = fc_entry, .exit_handler = fc_exit };
	int i, ret;

	KUNIT_EXPECT_NE(test, kallsyms_lookup_name(names[0]), 0);
	for (i = 0; i < ARRAY_SIZE(names); i++) {
		ret = register_fprobe(&fp, names[i], NULL);
		KUNIT_EXPECT_NE_MSG(test, ret, 0, "%s can be hooked", names[i]);
		if (!ret)
			KUNIT_EXPECT_EQ(test, unregister_fprobe(&fp), 0);
	}
}

static atomic_t fc_kprobe_hits;

static int fc_kprobe_pre(struct kprobe *p, struct pt_regs *regs)
{
	atomic_inc(&fc_kprobe_hits);
	return 0;
}

/*
 * KPROBE_SHARED: handlers run as if a kprobe were running, both fprobe
 * and kprobe on one function fire, and a hit while a kprobe is running
 * (here: busy) is missed, where a plain fprobe is not stopped.
 */
static void fc_test_kprobe_shared(struct kunit *test)
{
	struct fprobe shared = {
		.entry_handler = fc_entry,
		.exit_handler = fc_exit,
		.flags = FPROBE_FL_KPROBE_SHARED,
	};
	struct fprobe plain = { .entry_handler = fc_entry };
	struct kprobe kp = {
		.symbol_name = "fprobe_core_tgt_a",
		.pre_handler = fc_kprobe_pre,
	};

	atomic_set(&fc_kprobe_hits, 0);
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	KUNIT_ASSERT_EQ(test, register_fprobe(&shared, "fprobe_core_tgt_a", NULL), 0);
	KUNIT_EXPECT_TRUE(test, fprobe_shared_with_kprobes(&shared));

	fc_tgt[0](1);
	KUNIT_EXPECT_EQ(test, atomic_read(&fc_kprobe_hits), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&fc.entries[0]), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&fc.exits[0]), 1);
	KUNIT_EXPECT_EQ(test, shared.nmissed, 0);

	KUNIT_ASSERT_EQ(test, register_fprobe(&plain, "fprobe_core_tgt_b", NULL), 0);
	KUNIT_ASSERT_EQ(test, unregister_fprobe(&shared), 0);
	KUNIT_ASSERT_EQ(test, register_fprobe(&shared, "fprobe_core_tgt_[ab]", NULL), 0);
	kprobe_busy_begin();
	fc_tgt[0](2);	/* kprobe: missed, as it is busy too */
	fc_tgt[1](2);	/* shared: missed; plain: runs */
	kprobe_busy_end();
	KUNIT_EXPECT_EQ(test, atomic_read(&fc_kprobe_hits), 1);
	KUNIT_EXPECT_EQ(test, shared.nmissed, 2);
	KUNIT_EXPECT_EQ(test, plain.nmissed, 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&fc.entries[0]), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&fc.entries[1]), 1);

	/* And back to normal afterwards. */
	fc_tgt[0](3);
	KUNIT_EXPECT_EQ(test, atomic_read(&fc_kprobe_hits), 2);
	KUNIT_EXPECT_EQ(test, atomic_read(&fc.entries[0]), 2);
	KUNIT_EXPECT_EQ(test, atomic_read(&fc.exits[0]), 2);

	KUNIT_EXPECT_EQ(test, unregister_fprobe(&shared), 0);
	KUNIT_EXPECT_EQ(test, unregister_fprobe(&plain), 0);
	unregister_kprobe(&kp);
	KUNIT_EXPECT_EQ(test, atomic_read(&fc.not_busy), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&fc.bad_ip), 0);
}

/* Sleepers: many calls of one probed function in flight at once. */
struct fc_sleepers {
	wait_queue_head_t	wq;
	atomic_t		entered;
	atomic_t		done;
	bool			release;
};

static struct fc_sleepers fc_sl;

static noinline int fprobe_core_sleep(int i)
{
	atomic_inc(&fc_sl.entered);
	wake_up_all(&fc_sl.wq);
	wait_event(fc_sl.wq, READ_ONCE(fc_sl.release));
	return i + 1;
}

static atomic_t fc_sleep_entries, fc_sleep_exits, fc_sleep_bad;

static notrace int fc_sleep_entry(struct fprobe *fp, unsigned long ip,
				  unsigned long ret_ip, struct pt_regs *regs,
				  void *data)
{
	*(unsigned long *)data = regs_get_kernel_argument(regs, 0);
	atomic_inc(&fc_sleep_entries);
	return 0;
}

static notrace void fc_sleep_exit(struct fprobe *fp, unsigned long ip,
				  unsigned long ret_ip, struct pt_regs *regs,
				  void *data)
{
	if (regs_return_value(regs) != *(unsigned long *)data + 1)
		atomic_inc(&fc_sleep_bad);
	atomic_inc(&fc_sleep_exits);
}

static int fc_sleeper_thread(void *arg)
{
	fc_sleep((int)(long)arg);
	atomic_inc(&fc_sl.done);
	wake_up_all(&fc_sl.wq);
	return 0;
}

static void fc_sleepers_start(struct kunit *test, int n)
{
	struct task_struct *t;
	int i, started = 0;

	init_waitqueue_head(&fc_sl.wq);
	atomic_set(&fc_sl.entered, 0);
	atomic_set(&fc_sl.done, 0);
	fc_sl.release = false;
	for (i = 0; i < n; i++) {
		t = kthread_run(fc_sleeper_thread, (void *)(long)i, "fc_sleep/%d", i);
		if (!IS_ERR(t))
			started++;
	}
	KUNIT_EXPECT_EQ(test, started, n);
	/* A bound against a hang, not a timing check. */
	KUNIT_EXPECT_GT(test, wait_event_timeout(fc_sl.wq,
			atomic_read(&fc_sl.entered) == started, FC_TIMEOUT), 0);
}

static void fc_sleepers_finish(struct kunit *test)
{
	int started = atomic_read(&fc_sl.entered);

	WRITE_ONCE(fc_sl.release, true);
	wake_up_all(&fc_sl.wq);
	KUNIT_EXPECT_GT(test, wait_event_timeout(fc_sl.wq,
			atomic_read(&fc_sl.done) == started, FC_TIMEOUT), 0);
}

/* Every one of many sleeping calls gets its exit handler, none missed. */
static void fc_test_sleepers(struct kunit *test)
{
	struct fprobe fp = {
		.entry_handler = fc_sleep_entry,
		.exit_handler = fc_sleep_exit,
		.entry_data_size = sizeof(unsigned long),
	};

	atomic_set(&fc_sleep_entries, 0);
	atomic_set(&fc_sleep_exits, 0);
	atomic_set(&fc_sleep_bad, 0);
	KUNIT_ASSERT_EQ(test, register_fprobe(&fp, "fprobe_core_sleep", NULL), 0);
	fc_sleepers_start(test, FC_SLEEPERS);
	KUNIT_EXPECT_EQ(test, atomic_read(&fc_sleep_entries), FC_SLEEPERS);
	KUNIT_EXPECT_EQ(test, atomic_read(&fc_sleep_exits), 0);
	fc_sleepers_finish(test);
	KUNIT_EXPECT_EQ(test, unregister_fprobe(&fp), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&fc_sleep_exits), FC_SLEEPERS);
	KUNIT_EXPECT_EQ(test, atomic_read(&fc_sleep_bad), 0);
	KUNIT_EXPECT_EQ(test, fp.nmissed, 0);
}

/*
 * The contract: no handler after unregister_fprobe() returns, even for
 * calls that were in flight; the fprobe can be registered again; and the
 * calls that must fail do.
 */
static void fc_test_contract(struct kunit *test)
{
	struct fprobe fp = {
		.entry_handler = fc_sleep_entry,
		.exit_handler = fc_sleep_exit,
		.entry_data_size = sizeof(unsigned long),
	};
	struct fprobe none = { };

	atomic_set(&fc_sleep_entries, 0);
	atomic_set(&fc_sleep_exits, 0);
	atomic_set(&fc_sleep_bad, 0);
	KUNIT_EXPECT_EQ(test, unregister_fprobe(&fp), -EINVAL);
	KUNIT_EXPECT_EQ(test, register_fprobe(&none, "fprobe_core_sleep", NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, register_fprobe(&fp, "", NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, register_fprobe_ips(&fp, NULL, 1), -EINVAL);
	KUNIT_EXPECT_EQ(test, register_fprobe_syms(&fp, NULL, 1), -EINVAL);

	KUNIT_ASSERT_EQ(test, register_fprobe(&fp, "fprobe_core_sleep", NULL), 0);
	KUNIT_EXPECT_EQ(test, register_fprobe(&fp, "fprobe_core_sleep", NULL), -EBUSY);
	fc_sleepers_start(test, 4);
	KUNIT_EXPECT_EQ(test, atomic_read(&fc_sleep_entries), 4);
	KUNIT_EXPECT_EQ(test, unregister_fprobe(&fp), 0);
	fc_sleepers_finish(test);
	KUNIT_EXPECT_EQ(test, atomic_read(&fc_sleep_exits), 0);
	KUNIT_EXPECT_EQ(test, fc_sleep(1), 2);
	KUNIT_EXPECT_EQ(test, atomic_read(&fc_sleep_entries), 4);

	/* Registered again, it works again. */
	KUNIT_ASSERT_EQ(test, register_fprobe(&fp, "fprobe_core_sleep", NULL), 0);
	KUNIT_EXPECT_EQ(test, fc_sleep(2), 3);
	KUNIT_EXPECT_EQ(test, unregister_fprobe(&fp), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&fc_sleep_entries), 5);
	KUNIT_EXPECT_EQ(test, atomic_read(&fc_sleep_exits), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&fc_sleep_bad), 0);
	KUNIT_EXPECT_EQ(test, fp.nmissed, 0);
}

/* Names of traceable functions, gathered from kallsyms for the scale test. */
struct fc_names {
	const char	**names;
	char		*buf;
	size_t		used;
	size_t		size;
	int		nr;
	int		max;
};

static int fc_collect(void *data, const char *name, unsigned long addr)
{
	struct fc_names *c = data;
	size_t len = strlen(name) + 1;

	if (c->nr == c->max)
		return 1;
	if (!ftrace_location(addr) || c->used + len > c->size)
		return 0;
	memcpy(c->buf + c->used, name, len);
	c->names[c->nr++] = c->buf + c->used;
	c->used += len;
	return 0;
}

/*
 * Many functions at once: a glob and a 10,000-name list register and
 * unregister, and the fprobe works afterwards.  The times are logged for
 * the record, never checked.
 */
static void fc_test_scale(struct kunit *test)
{
	struct fprobe fp = { .entry_handler = fc_count_entry };
	struct fc_names c = { .max = 10000, .size = 10000 * 48 };
	u64 t0, t1, t2;

	t0 = ktime_get_ns();
	KUNIT_ASSERT_EQ(test, register_fprobe(&fp, "vfs_*", NULL), 0);
	t1 = ktime_get_ns();
	KUNIT_EXPECT_EQ(test, unregister_fprobe(&fp), 0);
	t2 = ktime_get_ns();
	kunit_info(test, "glob vfs_*: register %llu us, unregister %llu us\n",
		   div_u64(t1 - t0, NSEC_PER_USEC),
		   div_u64(t2 - t1, NSEC_PER_USEC));

	c.names = kvcalloc(c.max, sizeof(*c.names), GFP_KERNEL);
	c.buf = kvmalloc(c.size, GFP_KERNEL);
	if (!c.names || !c.buf)
		goto out;
	kallsyms_on_each_symbol(fc_collect, &c);
	KUNIT_EXPECT_GT(test, c.nr, 1000);
	t0 = ktime_get_ns();
	KUNIT_EXPECT_EQ(test, register_fprobe_syms(&fp, c.names, c.nr), 0);
	t1 = ktime_get_ns();
	KUNIT_EXPECT_EQ(test, unregister_fprobe(&fp), 0);
	t2 = ktime_get_ns();
	kunit_info(test, "%d names: register %llu us, unregister %llu us\n",
		   c.nr, div_u64(t1 - t0, NSEC_PER_USEC),
		   div_u64(t2 - t1, NSEC_PER_USEC));

	/* Still usable on a small set afterwards. */
	fp.entry_handler = fc_entry;
	KUNIT_EXPECT_EQ(test, register_fprobe(&fp, "fprobe_core_tgt_c", NULL), 0);
	fc_tgt[2](1);
	KUNIT_EXPECT_EQ(test, unregister_fprobe(&fp), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&fc.entries[2]), 1);
out:
	KUNIT_EXPECT_NOT_NULL(test, c.names);
	KUNIT_EXPECT_NOT_NULL(test, c.buf);
	kvfree(c.names);
	kvfree(c.buf);
}

/*
 * The order in which ftrace patches the sites of a new fprobe, seen from
 * a kprobe on x86's text_poke_queue(): that keeps a batch of sites (one
 * int3 round, three rounds of IPIs to every CPU) only while each address
 * is above the one before.  A small filter update visits only its own
 * records, looked up from its hash, and must still visit them in address
 * order, or nearly every site becomes a batch of its own.
 */
#define FC_ORDER_FUNCS	256

struct fc_order {
	struct task_struct	*task;
	unsigned long		last;
	unsigned long		skip;	/* the site of text_poke_queue() */
	unsigned long		*ips;
	int			nr;
	atomic_t		queued;
	atomic_t		descents;
};

static struct fc_order fc_order;

static int fc_order_pre(struct kprobe *p, struct pt_regs *regs)
{
	unsigned long addr = regs_get_kernel_argument(regs, 0);

	if (current != READ_ONCE(fc_order.task))
		return 0;
	/* text_mutex orders the calls: one at a time. */
	if (addr < fc_order.last)
		atomic_inc(&fc_order.descents);
	fc_order.last = addr;
	atomic_inc(&fc_order.queued);
	return 0;
}

static int fc_order_collect(void *data, const char *name, unsigned long addr)
{
	struct fc_order *o = data;
	unsigned long site = ftrace_location(addr);

	if (o->nr == FC_ORDER_FUNCS)
		return 1;
	/* Aliases come one after the other: one site once. */
	if (site && site != o->skip && (!o->nr || site != o->ips[o->nr - 1]))
		o->ips[o->nr++] = site;
	return 0;
}

static void fc_test_patch_order(struct kunit *test)
{
	struct fprobe fp = { .entry_handler = fc_count_entry };
	struct kprobe kp = {
		.symbol_name = "text_poke_queue",
		.pre_handler = fc_order_pre,
	};
	int queued, descents;

	if (!IS_ENABLED(CONFIG_X86))
		kunit_skip(test, "only x86 batches text pokes in address order");
	memset(&fc_order, 0, sizeof(fc_order));
	fc_order.ips = kunit_kcalloc(test, FC_ORDER_FUNCS, sizeof(long), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, fc_order.ips);
	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	fc_order.skip = ftrace_location((unsigned long)kp.addr);
	kallsyms_on_each_symbol(fc_order_collect, &fc_order);
	KUNIT_EXPECT_EQ(test, fc_order.nr, FC_ORDER_FUNCS);

	WRITE_ONCE(fc_order.task, current);
	if (!register_fprobe_ips(&fp, fc_order.ips, fc_order.nr)) {
		fc_order.last = 0;
		KUNIT_EXPECT_EQ(test, unregister_fprobe(&fp), 0);
	} else {
		KUNIT_FAIL(test, "register_fprobe_ips() of %d sites failed",
			   fc_order.nr);
	}
	WRITE_ONCE(fc_order.task, NULL);
	unregister_kprobe(&kp);

	queued = atomic_read(&fc_order.queued);
	descents = atomic_read(&fc_order.descents);
	kunit_info(test, "%d sites queued, %d below the one before\n",
		   queued, descents);
	/* Each site to hook it and to unhook it, unless shared. */
	KUNIT_EXPECT_GE(test, queued, fc_order.nr);
	KUNIT_EXPECT_EQ(test, descents, 0);
}

/*
 * A filter of many functions, once replaced, is freed where the CPU can
 * reschedule between its entries, not in the RCU callback (softirq)
 * that ends its grace period: a hash of every function took 22 s there
 * on a KASAN kernel (RELIABILITY.md, finding 29).  A kprobe on kfree()
 * watches the entries of the replaced hash go.
 */
struct fc_hash_free {
	unsigned long		*entries;	/* sorted */
	unsigned long		*seen;		/* bitmap, one per entry */
	int			nr;
	atomic_t		freed;
	atomic_t		freed_in_softirq;
};

static struct fc_hash_free fc_hf;

static int fc_ulong_cmp(const void *a, const void *b)
{
	unsigned long x = *(const unsigned long *)a;
	unsigned long y = *(const unsigned long *)b;

	return x < y ? -1 : x > y;
}

static void fc_hash_free_nop(unsigned long ip, unsigned long parent_ip,
			     struct ftrace_ops *op, struct ftrace_regs *fregs)
{
}

static int fc_hash_free_pre(struct kprobe *p, struct pt_regs *regs)
{
	unsigned long ptr = regs_get_kernel_argument(regs, 0);
	unsigned long *found;
	int nr = READ_ONCE(fc_hf.nr);

	if (!nr)
		return 0;
	found = bsearch(&ptr, fc_hf.entries, nr, sizeof(ptr), fc_ulong_cmp);
	/* The first kfree() of an entry is its own; later ones reuse it. */
	if (!found || test_and_set_bit(found - fc_hf.entries, fc_hf.seen))
		return 0;
	atomic_inc(&fc_hf.freed);
	/* Where RCU callbacks run, unless they are offloaded to kthreads. */
	if (in_serving_softirq())
		atomic_inc(&fc_hf.freed_in_softirq);
	return 0;
}

static void fc_test_hash_freed_in_task(struct kunit *test)
{
	static struct ftrace_ops ops = { .func = fc_hash_free_nop };
	struct kprobe kp = {
		.symbol_name = "kfree",
		.pre_handler = fc_hash_free_pre,
	};
	struct ftrace_func_entry *entry;
	struct ftrace_hash *hash;
	int i, n = 0, waited;

	memset(&fc_order, 0, sizeof(fc_order));
	memset(&fc_hf, 0, sizeof(fc_hf));
	fc_order.ips = kunit_kcalloc(test, FC_ORDER_FUNCS, sizeof(long), GFP_KERNEL);
	fc_hf.entries = kunit_kcalloc(test, FC_ORDER_FUNCS, sizeof(long), GFP_KERNEL);
	fc_hf.seen = kunit_kcalloc(test, BITS_TO_LONGS(FC_ORDER_FUNCS),
				   sizeof(long), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, fc_order.ips);
	KUNIT_ASSERT_NOT_NULL(test, fc_hf.entries);
	KUNIT_ASSERT_NOT_NULL(test, fc_hf.seen);
	kallsyms_on_each_symbol(fc_order_collect, &fc_order);
	KUNIT_ASSERT_EQ(test, fc_order.nr, FC_ORDER_FUNCS);
	KUNIT_ASSERT_EQ(test, ftrace_set_filter_ips(&ops, fc_order.ips,
						    fc_order.nr, 0, 1), 0);

	/* Nothing else changes the filter of this ops. */
	hash = ops.func_hash->filter_hash;
	for (i = 0; i < 1 << hash->size_bits; i++)
		hlist_for_each_entry(entry, &hash->buckets[i], hlist)
			if (n < FC_ORDER_FUNCS)
				fc_hf.entries[n++] = (unsigned long)entry;
	/* Aliases of one site are one entry. */
	KUNIT_ASSERT_EQ(test, n, (int)hash->count);
	KUNIT_ASSERT_GE(test, n, FC_ORDER_FUNCS / 2);
	sort(fc_hf.entries, n, sizeof(long), fc_ulong_cmp, NULL);

	KUNIT_ASSERT_EQ(test, register_kprobe(&kp), 0);
	WRITE_ONCE(fc_hf.nr, n);
	/* Dropping one function replaces the hash: the old one goes whole. */
	KUNIT_EXPECT_EQ(test, ftrace_set_filter_ips(&ops, fc_order.ips, 1, 1, 0), 0);
	rcu_barrier();
	for (waited = 0; atomic_read(&fc_hf.freed) < n && waited < 30000; waited += 20)
		msleep(20);
	WRITE_ONCE(fc_hf.nr, 0);
	unregister_kprobe(&kp);
	ftrace_free_filter(&ops);

	kunit_info(test, "%d entries freed, %d of them in a softirq\n",
		   atomic_read(&fc_hf.freed), atomic_read(&fc_hf.freed_in_softirq));
	KUNIT_EXPECT_EQ(test, atomic_read(&fc_hf.freed), n);
	KUNIT_EXPECT_EQ(test, atomic_read(&fc_hf.freed_in_softirq), 0);
}

/*
 * Two fprobes and a kretprobe on one function: every exit handler sees
 * the real return address (into fprobe_core_outer()), whichever hooked
 * the return first; never the trampoline.
 */
static unsigned long fc_stack_ret[3];
static struct fprobe *fc_stack_first;

static notrace void fc_stack_exit(struct fprobe *fp, unsigned long ip,
				  unsigned long ret_ip, struct pt_regs *regs,
				  void *data)
{
	fc_stack_ret[fp == fc_stack_first ? 0 : 1] = ret_ip;
}

#ifdef CONFIG_KRETPROBES
static int fc_stack_kret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	fc_stack_ret[2] = get_kretprobe_retaddr(ri);
	return 0;
}
#endif

static void fc_test_stacked_exits(struct kunit *test)
{
	struct fprobe fp1 = { .exit_handler = fc_stack_exit };
	struct fprobe fp2 = { .exit_handler = fc_stack_exit };
	unsigned long size, off;
	int i, n = 2;
#ifdef CONFIG_KRETPROBES
	struct kretprobe rp = { .kp.symbol_name = "fprobe_core_tgt_a",
				.handler = fc_stack_kret };
#endif

	memset(fc_stack_ret, 0, sizeof(fc_stack_ret));
	fc_stack_first = &fp1;
	KUNIT_ASSERT_EQ(test, register_fprobe(&fp1, "fprobe_core_tgt_a", NULL), 0);
#ifdef CONFIG_KRETPROBES
	KUNIT_ASSERT_EQ(test, register_kretprobe(&rp), 0);
	n = 3;
#endif
	KUNIT_ASSERT_EQ(test, register_fprobe(&fp2, "fprobe_core_tgt_a", NULL), 0);
	KUNIT_EXPECT_EQ(test, fc_outer(1, fc_tgt[0]), 8);
	KUNIT_EXPECT_EQ(test, unregister_fprobe(&fp2), 0);
#ifdef CONFIG_KRETPROBES
	unregister_kretprobe(&rp);
#endif
	KUNIT_EXPECT_EQ(test, unregister_fprobe(&fp1), 0);

	KUNIT_ASSERT_TRUE(test, kallsyms_lookup_size_offset(fc_stack_ret[0],
							    &size, &off));
	KUNIT_EXPECT_EQ(test, fc_stack_ret[0] - off,
			(unsigned long)fprobe_core_outer);
	for (i = 1; i < n; i++)
		KUNIT_EXPECT_EQ_MSG(test, fc_stack_ret[i], fc_stack_ret[0],
				    "exit handler %d", i);
}

/* A fprobe in core kernel data: its ftrace_ops is not FTRACE_OPS_FL_DYNAMIC. */
static struct fprobe fc_static_fp = { .entry_handler = fc_entry };

/* How many of ftrace's kallsyms entries are at @addr (a bounded walk). */
static int fc_trampoline_syms(unsigned long addr)
{
	char name[KSYM_NAME_LEN], mod[MODULE_NAME_LEN];
	unsigned long value;
	unsigned int i;
	int exported, n = 0;
	char type;

	for (i = 0; i < 100000; i++) {
		if (ftrace_mod_get_kallsym(i, &value, &type, name, mod,
					   &exported))
			return n;
		n += value == addr;
	}
	return -ELOOP;
}

/*
 * ftrace keeps the trampoline of an ops in kernel data across
 * unregistration (linked in its kallsyms list) and reuses it: a fprobe
 * there registers, unregisters and registers again with that list and
 * trampoline intact.  (fprobe used to clear the whole ops at
 * unregistration: the trampoline leaked and the list was cut, and the
 * next /proc/kallsyms read went through a NULL pointer.)
 */
static void fc_test_static_ops(struct kunit *test)
{
	struct fprobe *fp = &fc_static_fp;
	unsigned long tramp;

	KUNIT_ASSERT_EQ(test, register_fprobe_ips(fp, &fc.site[0], 1), 0);
	/* The suite is built in (bool): fc_static_fp is core kernel data. */
	KUNIT_EXPECT_FALSE(test, fp->ops.flags & FTRACE_OPS_FL_DYNAMIC);
	fc_call_all(1);
	tramp = fp->ops.trampoline;
	KUNIT_EXPECT_EQ(test, unregister_fprobe(fp), 0);
	KUNIT_ASSERT_EQ_MSG(test, fp->ops.trampoline, tramp,
			    "ftrace's trampoline dropped from the ops");

	KUNIT_ASSERT_EQ(test, register_fprobe_ips(fp, &fc.site[1], 1), 0);
	KUNIT_EXPECT_EQ(test, fp->ops.trampoline, tramp);
	fc_call_all(2);
	KUNIT_EXPECT_EQ(test, unregister_fprobe(fp), 0);

	KUNIT_EXPECT_EQ(test, atomic_read(&fc.entries[0]), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&fc.entries[1]), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&fc.entries[2]), 0);
	KUNIT_EXPECT_EQ(test, fp->nmissed, 0);
	/* x86_64 gives each ops a trampoline; arm64 calls ops without one. */
	if (tramp)
		KUNIT_EXPECT_EQ(test, fc_trampoline_syms(tramp), 1);
}

static struct kunit_case fc_cases[] = {
	KUNIT_CASE(fc_test_glob),
	KUNIT_CASE(fc_test_syms),
	KUNIT_CASE(fc_test_lookup_paths),
	KUNIT_CASE(fc_test_plain_name),
	KUNIT_CASE(fc_test_entry_data),
	KUNIT_CASE(fc_test_skip_exit),
	KUNIT_CASE(fc_test_entry_writes_args),
	KUNIT_CASE(fc_test_disable),
	KUNIT_CASE(fc_test_nmissed),
	KUNIT_CASE(fc_test_exit_recursion),
	KUNIT_CASE(fc_test_return_path_untraceable),
	KUNIT_CASE(fc_test_kprobe_shared),
	KUNIT_CASE(fc_test_stacked_exits),
	KUNIT_CASE(fc_test_sleepers),
	KUNIT_CASE(fc_test_contract),
	KUNIT_CASE(fc_test_scale),
	KUNIT_CASE(fc_test_patch_order),
	KUNIT_CASE(fc_test_hash_freed_in_task),
	KUNIT_CASE(fc_test_static_ops),
	{}
};

static struct kunit_suite fc_suite = {
	.name = "fprobe_core",
	.init = fc_init,
	.test_cases = fc_cases,
};
kunit_test_suite(fc_suite);

MODULE_DESCRIPTION("KUnit tests for fprobe");
MODULE_LICENSE("GPL");
