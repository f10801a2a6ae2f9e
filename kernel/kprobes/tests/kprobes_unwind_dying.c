// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unwinding tasks that die inside functions whose return is hooked.
 *
 * A task that exits inside a function with a kretprobe or an fprobe exit
 * handler never returns through the hook: the return address on its
 * stack stays the rethook trampoline's, and its rethook nodes stay
 * pending until rethook_flush_task() releases them, from the RCU
 * callback that puts the task_struct once the task was reaped (and off
 * its CPU for the last time).  An unwinder that meets the trampoline on
 * a stack asks rethook_find_ret_addr() for the real return address, and
 * that walks the task's pending nodes.  stack_trace_save_tsk() (and
 * /proc/PID/stack, which calls it) may unwind any task it holds a
 * reference to, also while the task dies and after: the task_struct
 * stays, and so does the stack while one unwind holds it, but the nodes
 * live in the task's rethook area, which the flush frees.
 *
 * Victim threads, one at a time, call kud_die() recursively (depth + 1
 * levels).  It carries a kretprobe and an fprobe with an exit handler;
 * its innermost level sleeps a little, then calls kthread_exit(), which
 * carries a kretprobe and calls do_exit(), which carries an fprobe with
 * an exit handler.  Reader threads (more than there are CPUs, one of
 * them at the lowest priority, so that on a fully preemptible kernel a
 * reader is now and then preempted for long in the middle of an unwind)
 * each take a reference to the victim (get_task_struct()) and call
 * stack_trace_save_tsk() on it again and again, from before it runs
 * until after the RCU callback that flushes it has run (the main thread
 * waits for that with rcu_barrier() while the readers go on).
 *
 * Checks: no splat (with KASAN, an unwinder that reads a freed area is
 * reported); a trace taken while the victim sleeps at the bottom of
 * kud_die() (asleep and off its CPU before and after the unwind) shows
 * every level of kud_die() and no trampoline; no return handler of these
 * probes runs (none of the functions returns); every call of kud_die()
 * is an entry hit or a counted miss, and every victim enters
 * kthread_exit() and do_exit().
 *
 * Parameters: duration (seconds), depth, readers.  The verdict is one
 * line: "kprobes_unwind_dying: PASS ..." or "FAIL ...", with the counts.
 */
#define pr_fmt(fmt) "kprobes_unwind_dying: " fmt

#include <linux/atomic.h>
#include <linux/fprobe.h>
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/stacktrace.h>
#include <linux/string.h>

#define KUD_MAX_DEPTH	16
#define KUD_ENTRIES	64

static int duration = 20;
module_param(duration, int, 0444);
MODULE_PARM_DESC(duration, "seconds to run (default 20)");

static int depth = 6;
module_param(depth, int, 0444);
MODULE_PARM_DESC(depth, "levels of kud_die() above the one that exits (default 6, at most 16)");

static int readers = 3;
module_param(readers, int, 0444);
MODULE_PARM_DESC(readers, "reader threads (default 3)");

static bool done;
module_param(done, bool, 0444);
MODULE_PARM_DESC(done, "set when the verdict is printed (read only)");

/* ---------------------------------------------------------------- */
/* Victims                                                          */
/* ---------------------------------------------------------------- */

/* Set while a victim sleeps at the bottom of kud_die(). */
static bool kud_parked;

/* kud_die() calls itself through this: no clones, no tail call. */
static int (*kud_die_fn)(int level);

/*
 * Go down @level more levels, sleep, exit.  Never returns.
 * Context: a victim thread.
 */
static noinline int kud_die(int level)
{
	if (level > 0)
		return READ_ONCE(kud_die_fn)(level - 1) + 1;
	WRITE_ONCE(kud_parked, true);
	schedule_timeout_uninterruptible(2);
	WRITE_ONCE(kud_parked, false);
	kthread_exit(0);
}

static atomic_long_t kud_calls;		/* of kud_die() */

static int kud_victim(void *unused)
{
	atomic_long_add(depth + 1, &kud_calls);
	return READ_ONCE(kud_die_fn)(depth);
}

/* ---------------------------------------------------------------- */
/* Probes                                                           */
/* ---------------------------------------------------------------- */

/* The victim the readers unwind now (NULL: none), and its number. */
static DEFINE_SPINLOCK(kud_lock);
static struct task_struct *kud_cur;
static unsigned long kud_gen;

enum kud_kind { KUD_KRETPROBE, KUD_FPROBE };

struct kud_probe {
	const char *name;
	enum kud_kind kind;
	const char *sym;
	union {
		struct kretprobe rp;
		struct fprobe fp;
	};
	bool registered;
	atomic_long_t entries;		/* every task's */
	atomic_long_t own;		/* the victims' */
	atomic_long_t returns;		/* must stay 0 */
};

static struct kud_probe kud_probes[] = {
	{ "krp-die",         KUD_KRETPROBE, "kud_die" },
	{ "fp-die",          KUD_FPROBE,    "kud_die" },
	{ "krp-kthread-exit", KUD_KRETPROBE, "kthread_exit" },
	{ "fp-do-exit",      KUD_FPROBE,    "do_exit" },
};

/* Context: a probe's entry handler. */
static void kud_entry_hit(struct kud_probe *p)
{
	atomic_long_inc(&p->entries);
	if (current == READ_ONCE(kud_cur))
		atomic_long_inc(&p->own);
}

static int kud_krp_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct kretprobe *rp = get_kretprobe(ri);

	if (rp)
		kud_entry_hit(container_of(rp, struct kud_probe, rp));
	return 0;
}

static int kud_krp_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct kretprobe *rp = get_kretprobe(ri);

	if (rp)
		atomic_long_inc(&container_of(rp, struct kud_probe, rp)->returns);
	return 0;
}

static int kud_fp_entry(struct fprobe *fp, unsigned long ip,
			unsigned long ret_ip, struct pt_regs *regs, void *data)
{
	kud_entry_hit(container_of(fp, struct kud_probe, fp));
	return 0;
}

static void kud_fp_exit(struct fprobe *fp, unsigned long ip,
			unsigned long ret_ip, struct pt_regs *regs, void *data)
{
	atomic_long_inc(&container_of(fp, struct kud_probe, fp)->returns);
}

static int kud_register(struct kud_probe *p)
{
	if (p->kind == KUD_KRETPROBE) {
		p->rp.kp.symbol_name = p->sym;
		p->rp.entry_handler = kud_krp_entry;
		p->rp.handler = kud_krp_ret;
		p->rp.maxactive = KUD_MAX_DEPTH + 2;
		return register_kretprobe(&p->rp);
	}
	p->fp.entry_handler = kud_fp_entry;
	p->fp.exit_handler = kud_fp_exit;
	p->fp.nr_maxactive = KUD_MAX_DEPTH + 2;
	return register_fprobe(&p->fp, p->sym, NULL);
}

static unsigned long kud_nmissed(struct kud_probe *p)
{
	if (p->kind == KUD_KRETPROBE)
		return p->rp.kp.nmissed + p->rp.nmissed;
	return p->fp.nmissed;
}

/* ---------------------------------------------------------------- */
/* Readers                                                          */
/* ---------------------------------------------------------------- */

static atomic_long_t kud_reads;		/* stack_trace_save_tsk() calls */
static atomic_long_t kud_reads_empty;	/* no stack (any more) */
static atomic_long_t kud_reads_exiting;	/* traces of a victim past exit_notify() */
static atomic_long_t kud_checked;	/* traces of a victim asleep in kud_die() */
static atomic_long_t kud_bad;		/* ... that were wrong */

static unsigned long kud_switches(struct task_struct *t)
{
	return READ_ONCE(t->nvcsw) + READ_ONCE(t->nivcsw);
}

/* Is @addr in the function @name (of the kernel or a module)? */
static bool kud_is(unsigned long addr, const char *name, char *buf)
{
	size_t len = strlen(name);

	sprint_symbol_no_offset(buf, addr);
	return !strncmp(buf, name, len) && (!buf[len] || buf[len] == ' ');
}

/*
 * A trace of a victim asleep at the bottom of kud_die(): every level
 * (depth + 1 return addresses in kud_die(), depth of them found through
 * rethook), and no trampoline left.
 */
static void kud_check(unsigned long *entries, unsigned int n)
{
	char buf[KSYM_SYMBOL_LEN];
	unsigned int i, levels = 0, tramps = 0;

	for (i = 0; i < n; i++) {
		if (kud_is(entries[i], "kud_die", buf))
			levels++;
		else if (kud_is(entries[i], "arch_rethook_trampoline", buf))
			tramps++;
	}
	atomic_long_inc(&kud_checked);
	if (levels == depth + 1 && !tramps)
		return;
	if (atomic_long_inc_return(&kud_bad) > 3)
		return;
	pr_err("a victim asleep in kud_die(): %u levels of %d, %u trampolines in %u entries:\n",
	       levels, depth + 1, tramps, n);
	for (i = 0; i < n; i++)
		pr_err("  %pS\n", (void *)entries[i]);
}

/* One unwind of @t.  Context: a reader thread. */
static void kud_read(struct task_struct *t, unsigned long *entries)
{
	bool parked = READ_ONCE(kud_parked);
	unsigned long sw = kud_switches(t);
	unsigned int state, n;
	bool asleep;

	smp_rmb();	/* the count before on_cpu: pairs with __schedule() */
	asleep = !smp_load_acquire(&t->on_cpu);
	state = READ_ONCE(t->__state);
	n = stack_trace_save_tsk(t, entries, KUD_ENTRIES, 0);
	atomic_long_inc(&kud_reads);
	if (!n) {
		atomic_long_inc(&kud_reads_empty);
		return;
	}
	if (READ_ONCE(t->exit_state))
		atomic_long_inc(&kud_reads_exiting);
	/* Asleep in kud_die() all along: nothing moved under the unwind. */
	smp_rmb();	/* the unwind before the second look */
	if (parked && asleep && state == TASK_UNINTERRUPTIBLE &&
	    READ_ONCE(kud_parked) && READ_ONCE(t->__state) == state &&
	    kud_switches(t) == sw)
		kud_check(entries, n);
}

static int kud_reader(void *arg)
{
	unsigned long *entries, gen = 0;
	struct task_struct *t;

	entries = kmalloc_array(KUD_ENTRIES, sizeof(*entries), GFP_KERNEL);
	if (!entries)
		return -ENOMEM;
	if (!arg)
		set_user_nice(current, MAX_NICE);
	while (!kthread_should_stop()) {
		spin_lock(&kud_lock);
		t = kud_cur;
		if (t && kud_gen != gen)
			get_task_struct(t);
		else
			t = NULL;
		gen = kud_gen;
		spin_unlock(&kud_lock);
		if (!t) {
			schedule_timeout_interruptible(1);
			continue;
		}
		while (READ_ONCE(kud_cur) == t && READ_ONCE(kud_gen) == gen &&
		       !kthread_should_stop()) {
			kud_read(t, entries);
			cond_resched();
		}
		put_task_struct(t);
	}
	kfree(entries);
	return 0;
}

/* ---------------------------------------------------------------- */
/* Run                                                              */
/* ---------------------------------------------------------------- */

static struct task_struct *kud_main_task;

/*
 * Start one victim, let the readers at it, wait until it is off its CPU
 * for the last time and its task_struct's RCU callback (which flushes
 * its rethook area) has run.  Return: 0, or why the victim failed.
 */
static int kud_one_victim(void)
{
	unsigned long deadline = jiffies + 30 * HZ;
	struct task_struct *t;
	int err = 0;

	t = kthread_create(kud_victim, NULL, "kud_victim");
	if (IS_ERR(t))
		return PTR_ERR(t);
	get_task_struct(t);
	spin_lock(&kud_lock);
	kud_cur = t;
	kud_gen++;
	spin_unlock(&kud_lock);
	wake_up_process(t);

	for (;;) {
		bool dead = READ_ONCE(t->__state) == TASK_DEAD;

		/* finish_task_switch() releases on_cpu after the last switch */
		if (dead && !smp_load_acquire(&t->on_cpu))
			break;
		if (time_after(jiffies, deadline)) {
			pr_err("victim %d did not die in 30 s\n", t->pid);
			err = -ETIMEDOUT;
			break;
		}
		schedule_timeout_uninterruptible(1);
	}
	if (!err) {
		/* Its last switch queued the callback; the readers go on. */
		schedule_timeout_uninterruptible(1);
		rcu_barrier();
		schedule_timeout_uninterruptible(1);
	}

	spin_lock(&kud_lock);
	kud_cur = NULL;
	spin_unlock(&kud_lock);
	put_task_struct(t);
	return err;
}

static int kud_main(void *unused)
{
	unsigned long end, victims = 0, bad = 0, missed = 0;
	struct task_struct **rts;
	unsigned int i, n = 0;
	int err = 0;

	rts = kcalloc(readers, sizeof(*rts), GFP_KERNEL);
	if (!rts) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 0; i < ARRAY_SIZE(kud_probes); i++) {
		err = kud_register(&kud_probes[i]);
		if (err) {
			pr_err("%s: register on %s failed: %d\n",
			       kud_probes[i].name, kud_probes[i].sym, err);
			goto out;
		}
		kud_probes[i].registered = true;
	}
	for (i = 0; i < readers; i++) {
		struct task_struct *t;

		/* Reader 0 runs at the lowest priority. */
		t = kthread_run(kud_reader, (void *)(unsigned long)i, "kud_reader/%u", i);
		if (IS_ERR(t)) {
			err = PTR_ERR(t);
			goto out;
		}
		rts[n++] = t;
	}

	end = jiffies + duration * HZ;
	while (time_before(jiffies, end) && !kthread_should_stop()) {
		err = kud_one_victim();
		if (err)
			break;
		victims++;
	}

out:
	for (i = 0; i < n; i++)
		kthread_stop(rts[i]);
	kfree(rts);
	for (i = 0; i < ARRAY_SIZE(kud_probes); i++) {
		struct kud_probe *p = &kud_probes[i];
		long entries = atomic_long_read(&p->entries);
		long own = atomic_long_read(&p->own);
		long returns = atomic_long_read(&p->returns);
		unsigned long m = kud_nmissed(p);
		bool ok = !returns;

		if (!p->registered)
			continue;
		if (p->kind == KUD_KRETPROBE)
			unregister_kretprobe(&p->rp);
		else
			unregister_fprobe(&p->fp);
		/*
		 * Every return hooked, none missed: one victim at a time,
		 * maxactive above its depth, and no other probe of ours runs
		 * where these are hit.  A miss here would be a return the
		 * unwinder never had to resolve: it excuses nothing.
		 */
		ok = ok && !m;
		if (!strcmp(p->sym, "kud_die"))
			ok = ok && own == atomic_long_read(&kud_calls);
		else
			ok = ok && own == (long)victims;
		pr_info("%s (%s): %s entries=%ld by victims=%ld returns=%ld missed=%lu\n",
			p->name, p->sym, ok ? "ok" : "BAD", entries, own,
			returns, m);
		bad += !ok;
		missed += m;
	}
	if (!err && atomic_long_read(&kud_checked) == 0) {
		pr_err("no trace of a victim asleep in kud_die() was taken\n");
		bad++;
	}
	if (err)
		pr_err("failed: %d\n", err);
	pr_info("%s duration=%ds depth=%d readers=%d victims=%lu kud_die_calls=%ld reads=%ld reads_empty=%ld reads_exiting=%ld checked=%ld bad_traces=%ld bad_probes=%lu missed=%lu\n",
		err || bad || atomic_long_read(&kud_bad) ? "FAIL" : "PASS",
		duration, depth, readers, victims,
		atomic_long_read(&kud_calls), atomic_long_read(&kud_reads),
		atomic_long_read(&kud_reads_empty),
		atomic_long_read(&kud_reads_exiting),
		atomic_long_read(&kud_checked), atomic_long_read(&kud_bad),
		bad, missed);
	WRITE_ONCE(done, true);
	/* Stay until module exit stops us. */
	while (!kthread_should_stop())
		schedule_timeout_interruptible(HZ);
	return 0;
}

static int __init kud_init(void)
{
	if (duration < 1 || depth < 0 || depth > KUD_MAX_DEPTH || readers < 1)
		return -EINVAL;
	kud_die_fn = kud_die;
	pr_info("start: duration=%ds depth=%d readers=%d\n",
		duration, depth, readers);
	kud_main_task = kthread_run(kud_main, NULL, "kud_main");
	return PTR_ERR_OR_ZERO(kud_main_task);
}

static void __exit kud_exit(void)
{
	kthread_stop(kud_main_task);
}

module_init(kud_init);
module_exit(kud_exit);
MODULE_DESCRIPTION("stack traces of tasks that die inside kretprobed and fprobe-exit functions");
MODULE_LICENSE("GPL");
