// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * kprobes_sweep: a probe on every function the kernel can trace.
 *
 * User space gives the functions, then asks for the probes, runs a
 * workload and asks for their removal, through debugfs:
 *
 *   /sys/kernel/debug/kprobes_sweep/funcs    write: one function a line,
 *	its ftrace site as a hex address first (the format of
 *	tracing/available_filter_functions_addrs; the rest of the line is
 *	ignored)
 *   /sys/kernel/debug/kprobes_sweep/control  write: "register", then
 *	"unregister"
 *   /sys/kernel/debug/kprobes_sweep/stats    read: one line of counts
 *   /sys/kernel/debug/kprobes_sweep/refused  read: each refused site with
 *	its errno
 *
 * The list comes from user space because a module can reach neither
 * kallsyms' iteration nor ftrace_location(), and because it lets the
 * harness pick, seed and print the sample it sweeps.
 *
 * The "mode" parameter says what goes on each function:
 *
 *   kprobe     a kprobe at the function's start (symbol + 0, which the
 *		core moves past a landing pad), register_kprobes() in
 *		batches of "batch";
 *   kretprobe  a kretprobe, register_kretprobes() in batches;
 *   fprobe     one fprobe, entry and exit handlers, on all of them at
 *		once with register_fprobe_ips();
 *   mid        kprobes on instruction boundaries inside the functions,
 *		past their ftrace site, each boundary taken with a chance of
 *		1 in "mid_every" ("seed" seeds the choice).  x86 finds the
 *		boundaries with the kernel's own instruction decoder (built
 *		into this module: it is not exported), and leaves out the
 *		int3s that fill gaps no code runs in; fixed-size
 *		instructions elsewhere.
 *
 * A batch that fails is halved until each failing entry has failed
 * alone: that site is refused, and its errno recorded.  Every other site
 * is registered, and hit or not by the workload.  Handlers count a hit
 * in a per-CPU counter and set a flag in their site; they take no lock
 * and call nothing, so they are safe in NMI and on any function they may
 * themselves reach.  After the last unregistration returned, no handler
 * may run: hits counted after it are reported as "late" (a violation of
 * the unregister contract).
 */
#define pr_fmt(fmt) "kprobes_sweep: " fmt

#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/fprobe.h>
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/ktime.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/prandom.h>
#include <linux/seq_file.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/uaccess.h>

#ifdef CONFIG_X86
/*
 * The kernel's x86 instruction decoder, the one kprobes checks
 * boundaries with.  It is not exported to modules, so the module builds
 * its own copy (its Makefile generates the opcode tables beside it).
 */
#include "../../../arch/x86/lib/inat.c"
#include "../../../arch/x86/lib/insn.c"
#elif defined(CONFIG_ARM64)
#include <asm/insn.h>
#endif

static char *mode = "kprobe";
module_param(mode, charp, 0444);
MODULE_PARM_DESC(mode, "kprobe, kretprobe, fprobe or mid (default kprobe)");

static int batch = 256;
module_param(batch, int, 0444);
MODULE_PARM_DESC(batch, "probes per register_kprobes()/register_kretprobes() call (default 256)");

static ulong seed = 1;
module_param(seed, ulong, 0444);
MODULE_PARM_DESC(seed, "seed of the mid-function sample (default 1)");

static uint mid_every = 16;
module_param(mid_every, uint, 0444);
MODULE_PARM_DESC(mid_every, "mid mode: probe one instruction boundary in this many (default 16)");

static uint max_funcs = 131072;
module_param(max_funcs, uint, 0444);
MODULE_PARM_DESC(max_funcs, "most functions the list may hold (default 131072)");

static uint max_sites = 262144;
module_param(max_sites, uint, 0444);
MODULE_PARM_DESC(max_sites, "mid mode: most sites swept (default 262144)");

enum sweep_mode { SWEEP_KPROBE, SWEEP_KRETPROBE, SWEEP_FPROBE, SWEEP_MID };

static const char * const sweep_mode_names[] = {
	[SWEEP_KPROBE]		= "kprobe",
	[SWEEP_KRETPROBE]	= "kretprobe",
	[SWEEP_FPROBE]		= "fprobe",
	[SWEEP_MID]		= "mid",
};

enum sweep_state { SWEEP_LOADING, SWEEP_ARMED, SWEEP_DONE };

/* Longest function the mid mode walks; a larger "function" is a data blob. */
#define SWEEP_MAX_FUNC_SIZE	SZ_64K

/**
 * struct sweep_site - one place probed
 * @addr: where the probe goes: the function's start (kprobe, kretprobe),
 *	its ftrace site (fprobe) or an instruction inside it (mid)
 * @func: the function's ftrace site, as user space gave it
 * @err: the errno the site was refused with, or 0
 * @registered: the site's probe is registered
 * @hit: a handler ran for the site (written by handlers)
 * @missed: the probe's nmissed when it was unregistered (not fprobes)
 */
struct sweep_site {
	unsigned long addr;
	unsigned long func;
	int err;
	bool registered;
	u8 hit;
	unsigned long missed;
};

/* A group of sites under one fprobe (one, unless some sites were refused). */
struct sweep_fgroup {
	struct fprobe fp;
	struct list_head list;
};

static struct {
	enum sweep_mode mode;
	enum sweep_state state;
	unsigned long *funcs;
	unsigned int nr_funcs;
	unsigned int nr_unresolved;
	unsigned int nr_undecodable;
	struct sweep_site *sites;
	unsigned int nr_sites;
	struct kprobe *kps;
	struct kretprobe *rps;
	struct list_head fgroups;
	void **ptrs;
	unsigned long *ips;
	unsigned int batches;
	unsigned int failed_batches;
	unsigned int nr_filler;	/* mid sites left out: no code runs there */
	unsigned long missed;
	u64 register_ns;
	u64 failed_ns;		/* in register_ns: the calls that failed */
	u64 unregister_ns;
	unsigned long armed_hits;
	unsigned long late_hits;
	char partial[64];
	unsigned int partial_len;
} sweep;

static DEFINE_MUTEX(sweep_lock);
static DEFINE_PER_CPU(unsigned long, sweep_hits);
static DEFINE_PER_CPU(unsigned long, sweep_exits);
static struct dentry *sweep_dir;

/* ---------------------------------------------------------------- */
/* Handlers: any context, NMI included; no locks, no calls           */
/* ---------------------------------------------------------------- */

/*
 * The handlers are notrace and in .kprobes.text, where no probe may go:
 * the sweep probes the kernel, not itself.
 */

static __always_inline void sweep_hit(struct sweep_site *s)
{
	this_cpu_inc(sweep_hits);
	if (!READ_ONCE(s->hit))
		WRITE_ONCE(s->hit, 1);
}

/* The site at @addr in the sorted sites, or NULL.  Any context. */
static __always_inline struct sweep_site *sweep_find(unsigned long addr)
{
	unsigned int lo = 0, hi = sweep.nr_sites;

	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;

		if (sweep.sites[mid].addr == addr)
			return &sweep.sites[mid];
		if (sweep.sites[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* Context: kprobe hit, preemption (and maybe interrupts) disabled. */
static int __kprobes notrace sweep_kprobe_pre(struct kprobe *p, struct pt_regs *regs)
{
	unsigned long i = ((unsigned long)p - (unsigned long)sweep.kps) /
			  sizeof(*p);

	if (i < sweep.nr_sites)
		sweep_hit(&sweep.sites[i]);
	else
		this_cpu_inc(sweep_hits);
	return 0;
}

/* Context: the rethook trampoline, preemption disabled. */
static int __kprobes notrace sweep_kretprobe_ret(struct kretprobe_instance *ri,
						struct pt_regs *regs)
{
	unsigned long i = ((unsigned long)get_kretprobe(ri) -
			   (unsigned long)sweep.rps) / sizeof(struct kretprobe);

	if (i < sweep.nr_sites)
		sweep_hit(&sweep.sites[i]);
	else
		this_cpu_inc(sweep_hits);
	return 0;
}

/* Context: ftrace callback, preemption disabled. */
static int __kprobes notrace sweep_fprobe_entry(struct fprobe *fp, unsigned long ip,
					       unsigned long ret_ip,
					       struct pt_regs *regs, void *data)
{
	struct sweep_site *s = sweep_find(ip);

	if (s)
		sweep_hit(s);
	else
		this_cpu_inc(sweep_hits);
	return 0;
}

/* Context: the rethook trampoline, preemption disabled. */
static void __kprobes notrace sweep_fprobe_exit(struct fprobe *fp, unsigned long ip,
					       unsigned long ret_ip,
					       struct pt_regs *regs, void *data)
{
	this_cpu_inc(sweep_exits);
}

static unsigned long sweep_sum(unsigned long __percpu *v)
{
	unsigned long sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += *per_cpu_ptr(v, cpu);
	return sum;
}

/* ---------------------------------------------------------------- */
/* Building the sites                                               */
/* ---------------------------------------------------------------- */

/*
 * The start and size of the function around @ip, from kallsyms'
 * "name+0xoff/0xsize" (kallsyms_lookup_size_offset() is not exported).
 */
static bool sweep_func_bounds(unsigned long ip, unsigned long *start,
			      unsigned long *size)
{
	char buf[KSYM_SYMBOL_LEN];
	unsigned long off;
	char *plus;

	sprint_symbol(buf, ip);
	plus = strrchr(buf, '+');
	if (!plus || sscanf(plus, "+%lx/%lx", &off, size) != 2 || off > ip)
		return false;
	*start = ip - off;
	return true;
}

/*
 * Length of the instruction at @addr, or a negative errno when it cannot
 * be decoded.  *@filler says whether it is one no code runs: on x86 an
 * int3, which pads functions and fills the tail of each return thunk
 * jump that alternatives turned into a ret.  The core refuses a probe
 * there (-EOPNOTSUPP); as one site in fourteen, they made every other
 * batch fail and be halved.
 */
static int sweep_insn_len(unsigned long addr, bool *filler)
{
#ifdef CONFIG_X86
	u8 buf[MAX_INSN_SIZE];
	struct insn insn;

	*filler = false;
	if (copy_from_kernel_nofault(buf, (void *)addr, sizeof(buf)))
		return -EFAULT;
	if (insn_decode(&insn, buf, sizeof(buf), INSN_MODE_KERN) < 0)
		return -EILSEQ;
	*filler = buf[0] == INT3_INSN_OPCODE;
	return insn.length;
#elif defined(CONFIG_ARM64)
	*filler = false;
	return AARCH64_INSN_SIZE;
#else
	*filler = false;
	return -EOPNOTSUPP;
#endif
}

static struct sweep_site *sweep_add_site(unsigned long addr, unsigned long func)
{
	struct sweep_site *s;

	if (sweep.nr_sites >= max_sites)
		return NULL;
	s = &sweep.sites[sweep.nr_sites++];
	s->addr = addr;
	s->func = func;
	return s;
}

/* A function kallsyms does not know: refused before any registration. */
static void sweep_add_unresolved(unsigned long func)
{
	struct sweep_site *s = sweep_add_site(func, func);

	if (s)
		s->err = -ENOENT;
	sweep.nr_unresolved++;
}

/* The boundaries of the function at @func picked for the mid mode. */
static int sweep_add_mid_sites(unsigned long func, struct rnd_state *rnd)
{
	unsigned long start, size, off;
	bool filler;
	int len;

	if (!sweep_func_bounds(func, &start, &size)) {
		sweep_add_unresolved(func);
		return 0;
	}
	size = min_t(unsigned long, size, SWEEP_MAX_FUNC_SIZE);
	for (off = 0; off < size; off += len) {
		len = sweep_insn_len(start + off, &filler);
		if (len <= 0) {
			if (len != -EOPNOTSUPP)
				sweep.nr_undecodable++;
			return len;
		}
		if (start + off <= func || prandom_u32_state(rnd) % mid_every)
			continue;
		if (filler) {
			sweep.nr_filler++;
			continue;
		}
		if (!sweep_add_site(start + off, func))
			return -E2BIG;
	}
	return 0;
}

static int sweep_cmp_site(const void *a, const void *b)
{
	const struct sweep_site *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int sweep_build_sites(void)
{
	unsigned int i, cap = sweep.mode == SWEEP_MID ? max_sites : sweep.nr_funcs;
	struct rnd_state rnd;
	int ret;

	sweep.sites = kvcalloc(max(cap, 1U), sizeof(*sweep.sites), GFP_KERNEL);
	if (!sweep.sites)
		return -ENOMEM;
	prandom_seed_state(&rnd, seed);
	for (i = 0; i < sweep.nr_funcs; i++) {
		unsigned long func = sweep.funcs[i], start, size;

		switch (sweep.mode) {
		case SWEEP_MID:
			ret = sweep_add_mid_sites(func, &rnd);
			if (ret == -E2BIG) {
				pr_warn("max_sites=%u reached after %u of %u functions\n",
					max_sites, i, sweep.nr_funcs);
				i = sweep.nr_funcs;
			} else if (ret == -EOPNOTSUPP) {
				return ret;
			}
			break;
		case SWEEP_FPROBE:
			sweep_add_site(func, func);
			break;
		default:
			if (sweep_func_bounds(func, &start, &size))
				sweep_add_site(start, func);
			else
				sweep_add_unresolved(func);
			break;
		}
		cond_resched();
	}
	sort(sweep.sites, sweep.nr_sites, sizeof(*sweep.sites),
	     sweep_cmp_site, NULL);
	return 0;
}

/* ---------------------------------------------------------------- */
/* Registration: batches, halved on failure                         */
/* ---------------------------------------------------------------- */

static void sweep_init_probe(unsigned int i)
{
	struct sweep_site *s = &sweep.sites[i];

	if (sweep.mode == SWEEP_KRETPROBE) {
		struct kretprobe *rp = &sweep.rps[i];

		memset(rp, 0, sizeof(*rp));
		rp->kp.addr = (kprobe_opcode_t *)s->addr;
		rp->handler = sweep_kretprobe_ret;
		sweep.ptrs[i % batch] = rp;
	} else {
		struct kprobe *kp = &sweep.kps[i];

		memset(kp, 0, sizeof(*kp));
		kp->addr = (kprobe_opcode_t *)s->addr;
		kp->pre_handler = sweep_kprobe_pre;
		sweep.ptrs[i % batch] = kp;
	}
}

/* Register sites @lo..@lo+@n-1 (one batch or part of one). */
static int sweep_register_batch(unsigned int lo, unsigned int n)
{
	void **ptrs = &sweep.ptrs[lo % batch];
	unsigned int i;

	for (i = lo; i < lo + n; i++)
		sweep_init_probe(i);
	sweep.batches++;
	if (sweep.mode == SWEEP_KRETPROBE)
		return register_kretprobes((struct kretprobe **)ptrs, n);
	return register_kprobes((struct kprobe **)ptrs, n);
}

/* One fprobe on the ftrace sites of sites @lo..@lo+@n-1. */
static int sweep_register_fgroup(unsigned int lo, unsigned int n)
{
	struct sweep_fgroup *g;
	unsigned int i;
	int ret;

	g = kzalloc(sizeof(*g), GFP_KERNEL);
	if (!g)
		return -ENOMEM;
	g->fp.entry_handler = sweep_fprobe_entry;
	g->fp.exit_handler = sweep_fprobe_exit;
	for (i = 0; i < n; i++)
		sweep.ips[i] = sweep.sites[lo + i].addr;
	sweep.batches++;
	ret = register_fprobe_ips(&g->fp, sweep.ips, n);
	if (ret) {
		kfree(g);
		return ret;
	}
	list_add_tail(&g->list, &sweep.fgroups);
	return 0;
}

/*
 * Register sites @lo..@lo+@n-1; a batch that fails is split in two until
 * the sites that fail alone are found.  Returns the number refused.
 */
static unsigned int sweep_register_range(unsigned int lo, unsigned int n)
{
	unsigned int i, half;
	u64 t0 = ktime_get_ns();
	int ret;

	if (sweep.mode == SWEEP_FPROBE)
		ret = sweep_register_fgroup(lo, n);
	else
		ret = sweep_register_batch(lo, n);
	if (!ret) {
		for (i = lo; i < lo + n; i++)
			sweep.sites[i].registered = true;
		return 0;
	}
	sweep.failed_ns += ktime_get_ns() - t0;
	sweep.failed_batches++;
	if (n == 1) {
		sweep.sites[lo].err = ret;
		return 1;
	}
	if (ret == -ENOMEM)
		pr_warn("-ENOMEM for a batch of %u at %pS\n", n,
			(void *)sweep.sites[lo].addr);
	half = n / 2;
	return sweep_register_range(lo, half) +
	       sweep_register_range(lo + half, n - half);
}

/*
 * Register every site not refused yet: runs of such sites, cut at
 * "batch" (kprobe modes) so that sites of one call share its ptrs[] slice.
 */
static void sweep_register_all(void)
{
	unsigned int i = 0, n;

	while (i < sweep.nr_sites) {
		if (sweep.sites[i].err) {
			i++;
			continue;
		}
		n = 1;
		while (i + n < sweep.nr_sites && !sweep.sites[i + n].err &&
		       (sweep.mode == SWEEP_FPROBE || (i + n) % batch))
			n++;
		sweep_register_range(i, n);
		i += n;
		cond_resched();
	}
}

static unsigned long sweep_nmissed(void)
{
	struct sweep_fgroup *g;
	unsigned long n = 0;
	unsigned int i;

	if (sweep.mode == SWEEP_FPROBE) {
		list_for_each_entry(g, &sweep.fgroups, list)
			n += g->fp.nmissed;
		return n;
	}
	for (i = 0; i < sweep.nr_sites; i++) {
		struct sweep_site *s = &sweep.sites[i];

		if (!s->registered)
			continue;
		if (sweep.mode == SWEEP_KRETPROBE)
			s->missed = sweep.rps[i].nmissed + sweep.rps[i].kp.nmissed;
		else
			s->missed = sweep.kps[i].nmissed;
		n += s->missed;
	}
	return n;
}

static void sweep_unregister_all(void)
{
	struct sweep_fgroup *g, *tmp;
	unsigned int i, n = 0;

	list_for_each_entry_safe(g, tmp, &sweep.fgroups, list) {
		unregister_fprobe(&g->fp);
		list_del(&g->list);
		kfree(g);
	}
	for (i = 0; i <= sweep.nr_sites; i++) {
		if (n && (n == batch || i == sweep.nr_sites)) {
			if (sweep.mode == SWEEP_KRETPROBE)
				unregister_kretprobes((struct kretprobe **)sweep.ptrs, n);
			else
				unregister_kprobes((struct kprobe **)sweep.ptrs, n);
			n = 0;
			cond_resched();
		}
		if (i == sweep.nr_sites || !sweep.sites[i].registered ||
		    sweep.mode == SWEEP_FPROBE)
			continue;
		if (sweep.mode == SWEEP_KRETPROBE)
			sweep.ptrs[n++] = &sweep.rps[i];
		else
			sweep.ptrs[n++] = &sweep.kps[i];
	}
}

static int sweep_register(void)
{
	unsigned int probe_size;
	u64 t0;
	int ret;

	ret = sweep_build_sites();
	if (ret)
		return ret;
	if (sweep.mode == SWEEP_FPROBE) {
		sweep.ips = kvcalloc(max(sweep.nr_sites, 1U), sizeof(*sweep.ips),
				     GFP_KERNEL);
		if (!sweep.ips)
			return -ENOMEM;
	} else {
		probe_size = sweep.mode == SWEEP_KRETPROBE ?
			     sizeof(struct kretprobe) : sizeof(struct kprobe);
		sweep.ptrs = kvcalloc(batch, sizeof(*sweep.ptrs), GFP_KERNEL);
		if (sweep.mode == SWEEP_KRETPROBE)
			sweep.rps = kvcalloc(max(sweep.nr_sites, 1U), probe_size,
					     GFP_KERNEL);
		else
			sweep.kps = kvcalloc(max(sweep.nr_sites, 1U), probe_size,
					     GFP_KERNEL);
		if (!sweep.ptrs || (!sweep.rps && !sweep.kps))
			return -ENOMEM;
	}
	pr_info("%s: registering %u sites of %u functions, batch=%d seed=%lu mid_every=%u\n",
		sweep_mode_names[sweep.mode], sweep.nr_sites, sweep.nr_funcs,
		batch, seed, mid_every);
	t0 = ktime_get_ns();
	sweep_register_all();
	sweep.register_ns = ktime_get_ns() - t0;
	sweep.state = SWEEP_ARMED;
	return 0;
}

static void sweep_unregister(void)
{
	unsigned long exits;
	u64 t0;

	sweep.missed = sweep_nmissed();
	t0 = ktime_get_ns();
	sweep_unregister_all();
	sweep.unregister_ns = ktime_get_ns() - t0;
	sweep.armed_hits = sweep_sum(&sweep_hits);
	exits = sweep_sum(&sweep_exits);
	/*
	 * None of our handlers may run any more, on entry or on return (a
	 * return hooked before the removal must not call its handler after
	 * it): count whatever does.
	 */
	msleep(100);
	sweep.late_hits = sweep_sum(&sweep_hits) - sweep.armed_hits +
			  sweep_sum(&sweep_exits) - exits;
	sweep.state = SWEEP_DONE;
}

/* ---------------------------------------------------------------- */
/* debugfs                                                          */
/* ---------------------------------------------------------------- */

static const struct {
	int err;
	const char *name;
} sweep_errnos[] = {
	{ EINVAL, "EINVAL" }, { EILSEQ, "EILSEQ" }, { ENOENT, "ENOENT" },
	{ EBUSY, "EBUSY" }, { EEXIST, "EEXIST" }, { ENOMEM, "ENOMEM" },
	{ E2BIG, "E2BIG" }, { EFAULT, "EFAULT" }, { EPERM, "EPERM" },
	{ ENODEV, "ENODEV" }, { EOPNOTSUPP, "EOPNOTSUPP" },
	{ EADDRNOTAVAIL, "EADDRNOTAVAIL" }, { ERANGE, "ERANGE" },
};

static void sweep_print_errno(struct seq_file *m, int err)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(sweep_errnos); i++) {
		if (sweep_errnos[i].err == -err) {
			seq_puts(m, sweep_errnos[i].name);
			return;
		}
	}
	seq_printf(m, "E%d", -err);
}

/* Add one line of the function list.  Context: sweep_lock held. */
static int sweep_add_func(char *line)
{
	unsigned long addr;
	char *tok;

	tok = strsep(&line, " \t");
	if (!*tok)
		return 0;
	if (kstrtoul(tok, 16, &addr) || !addr)
		return -EINVAL;
	if (sweep.nr_funcs >= max_funcs)
		return -E2BIG;
	sweep.funcs[sweep.nr_funcs++] = addr;
	return 0;
}

/*
 * Whole lines are taken; a line cut by the end of a write waits in
 * sweep.partial for the next one.
 */
static ssize_t sweep_funcs_write(struct file *file, const char __user *ubuf,
				 size_t len, loff_t *ppos)
{
	size_t n = min_t(size_t, len, SZ_64K);
	char *buf, *p, *nl;
	ssize_t ret = n;
	int err;

	buf = vmemdup_user(ubuf, n);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	mutex_lock(&sweep_lock);
	if (sweep.state != SWEEP_LOADING) {
		ret = -EBUSY;
		goto out;
	}
	for (p = buf; p < buf + n; p = nl + 1) {
		nl = memchr(p, '\n', buf + n - p);
		if (!nl) {
			if (sweep.partial_len + (buf + n - p) >= sizeof(sweep.partial)) {
				ret = -EINVAL;
				goto out;
			}
			memcpy(sweep.partial + sweep.partial_len, p, buf + n - p);
			sweep.partial_len += buf + n - p;
			break;
		}
		*nl = '\0';
		if (sweep.partial_len) {
			if (sweep.partial_len + (nl - p) >= sizeof(sweep.partial)) {
				ret = -EINVAL;
				goto out;
			}
			memcpy(sweep.partial + sweep.partial_len, p, nl - p + 1);
			sweep.partial_len = 0;
			err = sweep_add_func(sweep.partial);
		} else {
			err = sweep_add_func(p);
		}
		if (err) {
			ret = err;
			goto out;
		}
	}
out:
	mutex_unlock(&sweep_lock);
	kvfree(buf);
	return ret;
}

static ssize_t sweep_control_write(struct file *file, const char __user *ubuf,
				   size_t len, loff_t *ppos)
{
	char buf[16], *cmd;
	int ret = 0;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	cmd = strim(buf);

	mutex_lock(&sweep_lock);
	if (!strcmp(cmd, "register") && sweep.state == SWEEP_LOADING) {
		if (sweep.partial_len) {
			sweep.partial[sweep.partial_len] = '\0';
			sweep.partial_len = 0;
			ret = sweep_add_func(sweep.partial);
		}
		if (!ret)
			ret = sweep_register();
		if (ret)
			sweep.state = SWEEP_DONE;
	} else if (!strcmp(cmd, "unregister") && sweep.state == SWEEP_ARMED) {
		sweep_unregister();
	} else {
		ret = -EINVAL;
	}
	mutex_unlock(&sweep_lock);
	return ret ?: len;
}

static int sweep_stats_show(struct seq_file *m, void *v)
{
	unsigned int i, e, registered = 0, refused = 0, hit = 0;
	unsigned int by_errno[ARRAY_SIZE(sweep_errnos) + 1] = { };
	bool first = true;
	int other = 0;

	mutex_lock(&sweep_lock);
	for (i = 0; i < sweep.nr_sites; i++) {
		struct sweep_site *s = &sweep.sites[i];

		registered += s->registered;
		hit += s->registered && READ_ONCE(s->hit);
		if (!s->err)
			continue;
		refused++;
		for (e = 0; e < ARRAY_SIZE(sweep_errnos); e++) {
			if (sweep_errnos[e].err == -s->err)
				break;
		}
		if (e == ARRAY_SIZE(sweep_errnos))
			other = s->err;
		by_errno[e]++;
	}
	seq_printf(m, "mode=%s state=%s funcs=%u sites=%u registered=%u refused=%u hit=%u",
		   sweep_mode_names[sweep.mode],
		   sweep.state == SWEEP_LOADING ? "loading" :
		   sweep.state == SWEEP_ARMED ? "armed" : "done",
		   sweep.nr_funcs, sweep.nr_sites, registered, refused, hit);
	seq_printf(m, " hits=%lu exits=%lu missed=%lu late=%lu unresolved=%u undecodable=%u filler=%u",
		   sweep.state == SWEEP_DONE ? sweep.armed_hits : sweep_sum(&sweep_hits),
		   sweep_sum(&sweep_exits), sweep.missed, sweep.late_hits,
		   sweep.nr_unresolved, sweep.nr_undecodable, sweep.nr_filler);
	seq_printf(m, " batches=%u failed_batches=%u register_ms=%llu failed_ms=%llu unregister_ms=%llu refused_by_errno=",
		   sweep.batches, sweep.failed_batches,
		   div_u64(sweep.register_ns, NSEC_PER_MSEC),
		   div_u64(sweep.failed_ns, NSEC_PER_MSEC),
		   div_u64(sweep.unregister_ns, NSEC_PER_MSEC));
	for (e = 0; e <= ARRAY_SIZE(sweep_errnos); e++) {
		if (!by_errno[e])
			continue;
		if (!first)
			seq_putc(m, ',');
		first = false;
		sweep_print_errno(m, e < ARRAY_SIZE(sweep_errnos) ?
				  -sweep_errnos[e].err : other);
		seq_printf(m, ":%u", by_errno[e]);
	}
	if (first)
		seq_puts(m, "none");
	seq_putc(m, '\n');
	mutex_unlock(&sweep_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(sweep_stats);

static int sweep_refused_show(struct seq_file *m, void *v)
{
	unsigned int i;

	mutex_lock(&sweep_lock);
	for (i = 0; i < sweep.nr_sites; i++) {
		if (!sweep.sites[i].err)
			continue;
		sweep_print_errno(m, sweep.sites[i].err);
		seq_printf(m, " %pS\n", (void *)sweep.sites[i].addr);
	}
	mutex_unlock(&sweep_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(sweep_refused);

/*
 * The sites whose probe missed hits, with the count, once the probes
 * are gone (kprobe, kretprobe and mid modes; an fprobe counts for all
 * its sites at once).  A hit misses when it is nested in another
 * probe's: an interrupt or NMI over a handler, or a function that the
 * hit path itself calls and that neither notrace nor the blacklist
 * keeps a probe from.  With handlers that only count, the second kind
 * shows as a function that misses about as often as the others hit.
 */
static int sweep_missed_show(struct seq_file *m, void *v)
{
	unsigned int i;

	mutex_lock(&sweep_lock);
	for (i = 0; sweep.state == SWEEP_DONE && i < sweep.nr_sites; i++) {
		if (sweep.sites[i].missed)
			seq_printf(m, "%lu %pS\n", sweep.sites[i].missed,
				   (void *)sweep.sites[i].addr);
	}
	mutex_unlock(&sweep_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(sweep_missed);

static const struct file_operations sweep_funcs_fops = {
	.owner = THIS_MODULE,
	.write = sweep_funcs_write,
	.llseek = noop_llseek,
};

static const struct file_operations sweep_control_fops = {
	.owner = THIS_MODULE,
	.write = sweep_control_write,
	.llseek = noop_llseek,
};

static void sweep_free(void)
{
	kvfree(sweep.funcs);
	kvfree(sweep.sites);
	kvfree(sweep.kps);
	kvfree(sweep.rps);
	kvfree(sweep.ptrs);
	kvfree(sweep.ips);
}

static int __init sweep_init(void)
{
	int m;

	m = match_string(sweep_mode_names, ARRAY_SIZE(sweep_mode_names), mode);
	if (m < 0 || batch <= 0 || !mid_every || !max_funcs || !max_sites) {
		pr_err("bad parameters: mode=%s batch=%d mid_every=%u\n",
		       mode, batch, mid_every);
		return -EINVAL;
	}
	sweep.mode = m;
	INIT_LIST_HEAD(&sweep.fgroups);
	sweep.funcs = kvcalloc(max_funcs, sizeof(*sweep.funcs), GFP_KERNEL);
	if (!sweep.funcs)
		return -ENOMEM;
	sweep_dir = debugfs_create_dir("kprobes_sweep", NULL);
	debugfs_create_file("funcs", 0200, sweep_dir, NULL, &sweep_funcs_fops);
	debugfs_create_file("control", 0200, sweep_dir, NULL,
			    &sweep_control_fops);
	debugfs_create_file("stats", 0444, sweep_dir, NULL, &sweep_stats_fops);
	debugfs_create_file("refused", 0444, sweep_dir, NULL,
			    &sweep_refused_fops);
	debugfs_create_file("missed", 0444, sweep_dir, NULL,
			    &sweep_missed_fops);
	return 0;
}

static void __exit sweep_exit(void)
{
	debugfs_remove_recursive(sweep_dir);
	if (sweep.state == SWEEP_ARMED)
		sweep_unregister();
	sweep_free();
}

module_init(sweep_init);
module_exit(sweep_exit);
MODULE_DESCRIPTION("A kprobe, kretprobe, fprobe or mid-function kprobe on every traceable function");
MODULE_LICENSE("GPL");
