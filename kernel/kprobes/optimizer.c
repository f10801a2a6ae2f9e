// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Glue to the architecture's jump optimizer.
 *
 * An armed breakpoint site without post handlers may be replaced by a
 * jump to a detour buffer.  Sites move through enum kprobe_opt_state,
 * and op->list links a site on the queue of its state (empty in IDLE,
 * ON and NEVER), which is what the architecture's opt.c expects.  A
 * delayed work turns the queues into text changes, one batch per run:
 * undo jumps, build the detour buffers of newly queued sites, wait for
 * every task to have left the patched regions (RCU tasks), install
 * jumps, then free sites that lost their last user meanwhile.
 *
 * A breakpoint site gets its detour buffer at registration only while
 * optimization is on (kprobe_opt_prepare()); a site registered with
 * optimization off, or an ftrace site, costs no buffer.  The optimizer
 * builds the buffer of a site queued without one (optimization switched
 * on after the site was registered).  The OPTIMIZED flag, which
 * sends int3 hits into the buffer instead of single-stepping (and which
 * kprobes/list shows), is set once the buffer is complete: at queueing
 * for a site that has one, else by the optimizer right after building
 * it, before its RCU tasks wait in both cases.
 */
#include <linux/cpu.h>
#include <linux/jump_label.h>
#include <linux/memory.h>
#include <linux/mm.h>
#include <linux/sysctl.h>
#include <linux/workqueue.h>
#include "internal.h"

#define KPROBE_OPT_DELAY	5	/* jiffies: lets a burst of changes batch */

static bool kprobe_opt_allowed;	/* debug.kprobes-optimization */
static LIST_HEAD(kprobe_opt_queue);
static LIST_HEAD(kprobe_unopt_queue);
/* Sites kprobe_opt_block() disarmed for good, for the optimizer to free. */
static LIST_HEAD(kprobe_opt_doomed);

static void kprobe_optimizer(struct work_struct *work);
static DECLARE_DELAYED_WORK(kprobe_opt_work, kprobe_optimizer);

static inline struct kprobe_site *op_site(struct optimized_kprobe *op)
{
	return container_of(op, struct kprobe_site, op);
}

static void kprobe_opt_kick(void)
{
	schedule_delayed_work(&kprobe_opt_work, KPROBE_OPT_DELAY);
}

/*
 * Build @s's detour buffer.  A site whose code cannot take a jump goes
 * to NEVER and is not queued again until its code is prepared anew.
 * Return: true if the buffer is ready.
 * Context: kprobe_mutex, cpus_read_lock, jump_label_lock, text_mutex.
 */
static bool opt_build(struct kprobe_site *s)
{
	lockdep_assert_held(&text_mutex);
	arch_prepare_optimized_kprobe(&s->op, site_kp(s));
	if (arch_prepared_optinsn(&s->op.optinsn))
		return true;
	list_del_init(&s->op.list);
	s->opt_state = KPROBE_OPT_NEVER;
	return false;
}

/*
 * Build the detour buffer of a new breakpoint site while optimization is
 * on, so that it can be queued (and shown as optimized) right away.
 * Context: as opt_build().
 */
void kprobe_opt_prepare(struct kprobe_site *s)
{
	if (kprobe_opt_allowed && !kprobe_ftrace(site_kp(s)) &&
	    !arch_prepared_optinsn(&s->op.optinsn))
		opt_build(s);
}

/*
 * From now on int3 hits may run in @s's detour buffer, which must be
 * complete.  Context: kprobe_mutex held.
 */
static void opt_set_used(struct kprobe_site *s)
{
	s->opt_used = true;
	kprobe_flags_set(site_kp(s), KPROBE_FLAG_OPTIMIZED);
}

/*
 * Queue an armed site for a jump if everything allows it (or keep the
 * jump it still has).  Context: kprobe_mutex held.
 */
void kprobe_opt_try(struct kprobe_site *s)
{
	struct kprobe *kp = site_kp(s);

	lockdep_assert_held(&kprobe_mutex);
	if (!kprobe_opt_allowed || !s->armed || !site_wants_arm(s) ||
	    kp->post_handler || kprobe_ftrace(kp) ||
	    s->opt_state == KPROBE_OPT_NEVER)
		return;
	/* Without a buffer yet, the optimizer checks after building it. */
	if (arch_prepared_optinsn(&s->op.optinsn) &&
	    arch_check_optimized_kprobe(&s->op) < 0)
		return;

	switch (s->opt_state) {
	case KPROBE_OPT_UNQUEUED:
		list_del_init(&s->op.list);
		s->opt_state = KPROBE_OPT_ON;
		break;
	case KPROBE_OPT_IDLE:
		if (arch_prepared_optinsn(&s->op.optinsn))
			opt_set_used(s);
		list_add_tail(&s->op.list, &kprobe_opt_queue);
		s->opt_state = KPROBE_OPT_QUEUED;
		kprobe_opt_kick();
		break;
	default:
		break;
	}
}

static void opt_set_idle(struct kprobe_site *s)
{
	list_del_init(&s->op.list);
	kprobe_flags_clear(site_kp(s), KPROBE_FLAG_OPTIMIZED);
	s->opt_state = KPROBE_OPT_IDLE;
}

/*
 * Stop optimizing @s.  With @force a jump in the text is replaced by
 * the breakpoint right away; without, it is queued for the optimizer.
 * Return: true if a jump is still in the text (queued to go).
 * Context: kprobe_mutex held; with @force also cpus_read_lock and
 * text_mutex.
 */
bool kprobe_opt_cancel(struct kprobe_site *s, bool force)
{
	lockdep_assert_held(&kprobe_mutex);
	switch (s->opt_state) {
	case KPROBE_OPT_QUEUED:
		opt_set_idle(s);
		return false;
	case KPROBE_OPT_ON:
	case KPROBE_OPT_UNQUEUED:
		if (force) {
			lockdep_assert_held(&text_mutex);
			lockdep_assert_cpus_held();
			arch_unoptimize_kprobe(&s->op);
			opt_set_idle(s);
			return false;
		}
		if (s->opt_state == KPROBE_OPT_ON) {
			list_add_tail(&s->op.list, &kprobe_unopt_queue);
			s->opt_state = KPROBE_OPT_UNQUEUED;
			kprobe_opt_kick();
		}
		return true;
	default:
		return false;
	}
}

/*
 * Undo right away the jumps of those of @sites that have one, with one
 * batch of text changes; they are left as armed breakpoint sites.
 * Context: kprobe_mutex, cpus_read_lock and text_mutex held.
 */
void kprobe_opt_cancel_batch(struct kprobe_site **sites, unsigned int n)
{
	struct optimized_kprobe *op, *tmp;
	LIST_HEAD(jumps);
	LIST_HEAD(done);
	unsigned int i;

	lockdep_assert_held(&kprobe_mutex);
	lockdep_assert_held(&text_mutex);
	for (i = 0; i < n; i++) {
		u8 state = sites[i]->opt_state;

		if (state == KPROBE_OPT_ON || state == KPROBE_OPT_UNQUEUED)
			list_move_tail(&sites[i]->op.list, &jumps);
	}
	if (list_empty(&jumps))
		return;
	arch_unoptimize_kprobes(&jumps, &done);
	list_for_each_entry_safe(op, tmp, &done, list)
		opt_set_idle(op_site(op));
}

/*
 * The code under @s is gone: forget any jump without touching the text
 * and free the detour buffer.  Context: kprobe_mutex held.
 */
void kprobe_opt_kill(struct kprobe_site *s)
{
	lockdep_assert_held(&kprobe_mutex);
	opt_set_idle(s);
	arch_remove_optimized_kprobe(&s->op);
}

/* Free the detour buffer of a site being freed. */
void kprobe_opt_remove(struct kprobe_site *s)
{
	arch_remove_optimized_kprobe(&s->op);
}

/* Does @s have a detour buffer whose jump region covers @addr? */
static bool opt_covers(struct kprobe_site *s, unsigned long addr)
{
	return s && arch_prepared_optinsn(&s->op.optinsn) &&
	       arch_within_optimized_kprobe(&s->op, (void *)addr);
}

/*
 * A jump that kprobe_opt_block() undid belonged to a site nobody wants
 * armed any more (its last user left and the optimizer had yet to undo
 * the jump and disarm it): take its breakpoint out now, or it would stay
 * in the text for good, and free the site with the optimizer's next
 * batch if it has no user (it waits for RCU tasks there, as the site's
 * detour buffer may still have tasks inside).
 * Context: kprobe_mutex, cpus_read_lock and text_mutex held.
 */
static void opt_drop_leftover(struct kprobe_site *s)
{
	struct kprobe *kp = site_kp(s);

	kprobe_disarm_breakpoints(&kp, 1);
	kprobe_opt_drop_unused(s);
}

/**
 * kprobe_opt_drop_unused() - free a disarmed site nobody uses any more
 * @s: a site in the table
 *
 * For a site whose last user left while its jump was in place: the
 * optimizer would have undone the jump, disarmed the site and freed it,
 * but something else undid and disarmed first (a breakpoint going in
 * under the jump, or the "enabled" switch).  The site is freed with the
 * optimizer's next batch, after RCU Tasks: tasks may still be in its
 * detour buffer.  Nothing happens if @s has a user or is armed.
 * Context: kprobe_mutex held.
 */
void kprobe_opt_drop_unused(struct kprobe_site *s)
{
	lockdep_assert_held(&kprobe_mutex);
	if (s->nr_users || s->armed)
		return;
	kprobe_site_doom(s, &kprobe_opt_doomed);
	kprobe_opt_kick();
}

/*
 * A breakpoint is about to go at @addr: every jump over it must go
 * first, and every queued one must stay out.  Not only the nearest site
 * below @addr: that one may be a disabled probe that another, farther
 * site's jump covers.
 * Context: kprobe_mutex, cpus_read_lock and text_mutex held.
 */
void kprobe_opt_block(unsigned long addr)
{
	struct kprobe_site *s;
	unsigned int i;
	bool jump;

	for (i = 1; i < MAX_OPTIMIZED_LENGTH; i++) {
		s = kprobe_site_find(addr - i);
		if (!opt_covers(s, addr))
			continue;
		jump = s->opt_state == KPROBE_OPT_ON ||
		       s->opt_state == KPROBE_OPT_UNQUEUED;
		kprobe_opt_cancel(s, true);
		if (jump && s->armed && !site_wants_arm(s) && !site_gone(s))
			opt_drop_leftover(s);
	}
}

/*
 * The breakpoint at @addr is gone: the sites it kept from jumping may
 * try again.  Context: kprobe_mutex held.
 */
void kprobe_opt_unblock(unsigned long addr)
{
	struct kprobe_site *s;
	unsigned int i;

	for (i = 1; i < MAX_OPTIMIZED_LENGTH; i++) {
		s = kprobe_site_find(addr - i);
		if (opt_covers(s, addr) && s->armed)
			kprobe_opt_try(s);
	}
}

/*
 * Undo the queued jumps.  Sites that no longer want to be armed are
 * disarmed (in one batch), unused ones doomed.  All of them go through
 * the RCU tasks wait of this optimizer run before anything is freed.
 * Context: kprobe_mutex, cpus_read_lock and text_mutex held.
 */
static void opt_run_unqueue(struct list_head *doomed)
{
	struct optimized_kprobe *op, *tmp;
	struct kprobe **kps = NULL;
	unsigned int n, i;
	LIST_HEAD(done);

	if (list_empty(&kprobe_unopt_queue))
		return;
	arch_unoptimize_kprobes(&kprobe_unopt_queue, &done);
	n = list_count_nodes(&done);
	kps = kvmalloc_array(n, sizeof(*kps), GFP_KERNEL);
	n = 0;
	list_for_each_entry(op, &done, list) {
		struct kprobe_site *s = op_site(op);

		s->opt_state = KPROBE_OPT_IDLE;
		s->opt_used = false;
		kprobe_flags_clear(&op->kp, KPROBE_FLAG_OPTIMIZED);
		if (site_wants_arm(s) || site_gone(s))
			continue;
		if (kps) {
			kps[n++] = &op->kp;
		} else {
			struct kprobe *kp = &op->kp;

			kprobe_disarm_breakpoints(&kp, 1);
		}
	}
	if (n)
		kprobe_disarm_breakpoints(kps, n);
	list_for_each_entry_safe(op, tmp, &done, list) {
		struct kprobe_site *s = op_site(op);

		list_del_init(&op->list);
		if (!s->nr_users && !s->armed)
			kprobe_site_doom(s, doomed);
	}
	/*
	 * A jump these breakpoints kept out may go in now (done is empty
	 * again, so requeueing cannot corrupt it).
	 */
	for (i = 0; i < n; i++)
		kprobe_opt_unblock((unsigned long)kps[i]->addr);
	kvfree(kps);
}

/*
 * Build the detour buffers of the queued sites that have none.  One
 * that may not jump yet (another probe in its region) goes back to
 * IDLE and is queued again when that probe goes (kprobe_opt_unblock()).
 * Context: as opt_build().
 */
static void opt_run_build(void)
{
	struct optimized_kprobe *op, *tmp;

	list_for_each_entry_safe(op, tmp, &kprobe_opt_queue, list) {
		struct kprobe_site *s = op_site(op);

		if (arch_prepared_optinsn(&op->optinsn) || !opt_build(s))
			continue;
		if (arch_check_optimized_kprobe(op) < 0) {
			opt_set_idle(s);
			continue;
		}
		/*
		 * Order the buffer and op->optinsn before the flag: an int3
		 * hit that sees the flag reads optinsn to enter the buffer
		 * (the arch's smp_rmb() pairs, e.g. x86's
		 * setup_detour_execution()).
		 */
		smp_wmb();
		opt_set_used(s);
	}
}

/* Install the queued jumps.  Context: as opt_run_unqueue(). */
static void opt_run_queue(void)
{
	struct optimized_kprobe *op, *tmp;

	if (!kprobe_opt_allowed || kprobes_all_disarmed) {
		list_for_each_entry_safe(op, tmp, &kprobe_opt_queue, list)
			opt_set_idle(op_site(op));
		return;
	}
	list_for_each_entry(op, &kprobe_opt_queue, list)
		op_site(op)->opt_state = KPROBE_OPT_ON;
	/* The arch unlinks each site as its jump goes in. */
	arch_optimize_kprobes(&kprobe_opt_queue);
}

static bool kprobe_opt_pending(void)
{
	return !list_empty(&kprobe_opt_queue) ||
	       !list_empty(&kprobe_unopt_queue) ||
	       !list_empty(&kprobe_opt_doomed);
}

/* The delayed work.  Context: process; takes kprobe_mutex. */
static void kprobe_optimizer(struct work_struct *work)
{
	LIST_HEAD(doomed);

	/* Detour buffers are slots too; see kprobe_insn_slots_throttle(). */
	kprobe_insn_slots_throttle();
	mutex_lock(&kprobe_mutex);
	list_splice_init(&kprobe_opt_doomed, &doomed);
	cpus_read_lock();
	jump_label_lock();
	mutex_lock(&text_mutex);
	opt_run_unqueue(&doomed);
	if (kprobe_opt_allowed && !kprobes_all_disarmed)
		opt_run_build();
	mutex_unlock(&text_mutex);
	jump_label_unlock();
	cpus_read_unlock();

	/*
	 * Tasks preempted inside a region about to become a jump, or
	 * inside a detour buffer about to be freed, must be gone.
	 */
	synchronize_rcu_tasks();

	cpus_read_lock();
	mutex_lock(&text_mutex);
	opt_run_queue();
	mutex_unlock(&text_mutex);
	cpus_read_unlock();

	if (!list_empty(&doomed)) {
		synchronize_rcu();
		kprobe_sites_free_doomed(&doomed);
	}
	if (kprobe_opt_pending())
		kprobe_opt_kick();
	mutex_unlock(&kprobe_mutex);
}

/**
 * wait_for_kprobe_optimizer() - wait until the optimizer queues are empty
 *
 * Context: process, may sleep; must not hold kprobe_mutex.
 */
void wait_for_kprobe_optimizer(void)
{
	bool pending;

	for (;;) {
		mutex_lock(&kprobe_mutex);
		pending = kprobe_opt_pending();
		mutex_unlock(&kprobe_mutex);
		if (!pending)
			break;
		/* Runs the work now if it is queued, or waits for it. */
		flush_delayed_work(&kprobe_opt_work);
		cond_resched();
	}
}

/* Allow or forbid jumps for every site.  Context: process. */
static void kprobe_opt_set(bool allow)
{
	struct kprobe_site *s;
	unsigned int pos = 0;

	mutex_lock(&kprobe_mutex);
	if (kprobe_opt_allowed == allow) {
		mutex_unlock(&kprobe_mutex);
		return;
	}
	kprobe_opt_allowed = allow;
	while ((s = kprobe_site_at(&pos))) {
		if (allow)
			kprobe_opt_try(s);
		else
			kprobe_opt_cancel(s, false);
	}
	mutex_unlock(&kprobe_mutex);
	if (allow) {
		pr_info("kprobe jump-optimization is enabled. All kprobes are optimized if possible.\n");
	} else {
		wait_for_kprobe_optimizer();
		pr_info("kprobe jump-optimization is disabled. All kprobes are based on software breakpoint.\n");
	}
}

#ifdef CONFIG_SYSCTL
static DEFINE_MUTEX(kprobe_opt_sysctl_lock);

/**
 * proc_kprobes_optimization_handler() - debug.kprobes-optimization
 * @table: the sysctl entry (only its identity is used)
 * @write: non-zero to set the value
 * @buffer: kernel buffer with the text read or written
 * @len: its length, updated
 * @ppos: file position, updated
 *
 * Reads 0 or 1; writing 0 turns every jump back into a breakpoint and
 * waits until that is done, writing 1 lets the optimizer turn every
 * eligible site into a jump again (asynchronously; see
 * wait_for_kprobe_optimizer()).  Other values are refused.
 *
 * Return: 0 or a negative errno, as proc_dointvec_minmax().
 * Context: process, may sleep; takes kprobe_mutex.
 */
int proc_kprobes_optimization_handler(const struct ctl_table *table,
				      int write, void *buffer, size_t *len,
				      loff_t *ppos)
{
	struct ctl_table t = {
		.procname	= table ? table->procname : NULL,
		.maxlen		= sizeof(int),
		.mode		= 0644,
		.extra1		= SYSCTL_ZERO,
		.extra2		= SYSCTL_ONE,
	};
	int val, ret;

	t.data = &val;
	mutex_lock(&kprobe_opt_sysctl_lock);
	val = READ_ONCE(kprobe_opt_allowed);
	ret = proc_dointvec_minmax(&t, write, buffer, len, ppos);
	if (!ret && write)
		kprobe_opt_set(val);
	mutex_unlock(&kprobe_opt_sysctl_lock);
	return ret;
}

static struct ctl_table kprobe_opt_sysctls[] = {
	{
		.procname	= "kprobes-optimization",
		.maxlen		= sizeof(int),
		.mode		= 0644,
		.proc_handler	= proc_kprobes_optimization_handler,
		.extra1		= SYSCTL_ZERO,
		.extra2		= SYSCTL_ONE,
	},
};
#endif

/*
 * Jumps need RCU tasks and workqueues, so they are allowed from
 * subsys_initcall on, not from the early init of the core.
 */
void __init kprobe_opt_init(void)
{
#ifdef CONFIG_SYSCTL
	register_sysctl_init("debug", kprobe_opt_sysctls);
#endif
	kprobe_opt_set(true);
}
