// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Probe sites and their users.
 *
 * A site is what the architecture sees: get_kprobe() returns it, its
 * pre_handler and post_handler are the ones below, and they call the
 * registered probes at that address in registration order.  A disabled
 * or gone user is skipped; the others still run.
 */
#include <linux/delay.h>
#include <linux/jump_label.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include "internal.h"

#ifdef CONFIG_KPROBES_RACE_WINDOW
DEFINE_STATIC_KEY_FALSE(kprobe_race_key);
static unsigned int kprobe_race_us;
static DEFINE_MUTEX(kprobe_race_lock);

#if IS_ENABLED(CONFIG_KPROBES_CORE_KUNIT_TEST)
/* KUnit: what happens on another CPU while a hit waits in the window. */
void (*kprobe_race_test_hook)(void);
EXPORT_SYMBOL_GPL(kprobe_race_test_hook);
#endif

/**
 * kprobes_set_race_window() - widen the window between hit and handler
 * @us: microseconds every hit waits, 0 to stop
 *
 * For race hunting (see Kconfig.probes); the kprobes_torture module
 * calls it.  Context: process, may sleep.
 */
void kprobes_set_race_window(unsigned int us)
{
	mutex_lock(&kprobe_race_lock);
	WRITE_ONCE(kprobe_race_us, us);
	if (us)
		static_branch_enable(&kprobe_race_key);
	else
		static_branch_disable(&kprobe_race_key);
	mutex_unlock(&kprobe_race_lock);
}
EXPORT_SYMBOL_GPL(kprobes_set_race_window);

/**
 * kprobe_race_wait() - wait the race-hunting delay, if one is set
 *
 * Called through kprobe_race_window() between choosing a handler and
 * calling it: by the core for pre and post handlers, by rethook for
 * return handlers.
 * Context: a hit path, preemption disabled.
 */
noinline void kprobe_race_wait(void)
{
	unsigned int us = READ_ONCE(kprobe_race_us);
#if IS_ENABLED(CONFIG_KPROBES_CORE_KUNIT_TEST)
	void (*hook)(void) = READ_ONCE(kprobe_race_test_hook);

	if (hook)
		hook();
#endif
	if (us)
		udelay(us);
}
NOKPROBE_SYMBOL(kprobe_race_wait);
#endif

/*
 * Run the users' pre_handlers; stop at the first that returns non-zero
 * (it moved regs->ip, so the probed instruction must not run).
 * Kept out of line so that the one-user path below saves no registers.
 * Context: as kprobe_site_pre_handler().
 */
static noinline int site_run_users(struct kprobe_site *s, struct pt_regs *regs)
{
	struct kprobe *u;

	list_for_each_entry_rcu(u, &s->users, list, kprobe_hit_reader()) {
		if (!u->pre_handler || kprobe_disabled(u))
			continue;
		kprobe_race_window();
		if (u->pre_handler(u, regs))
			return 1;
	}
	return 0;
}
NOKPROBE_SYMBOL(site_run_users);

/*
 * The site's pre_handler: its one live user's directly, else every
 * user's in turn.  The arch hit paths come here through
 * kprobe_run_pre_handlers(), which calls a lone user itself unless the
 * race window is open; so this mostly runs for shared sites.
 * Context: int3 or ftrace callback, preemption (and, for int3,
 * interrupts) disabled; RCU-sched reader of the user list.
 */
int kprobe_site_pre_handler(struct kprobe *p, struct pt_regs *regs)
{
	struct kprobe_site *s = to_site(p);
	struct kprobe *u = READ_ONCE(site_kp(s)->solo);

	if (likely(u)) {
		kprobe_race_window();
		return u->pre_handler(u, regs);
	}
	return site_run_users(s, regs);
}
NOKPROBE_SYMBOL(kprobe_site_pre_handler);

/* Context: as kprobe_site_pre_handler(), after the probed instruction. */
static void kprobe_site_post_handler(struct kprobe *p, struct pt_regs *regs,
				     unsigned long flags)
{
	struct kprobe_site *s = to_site(p);
	struct kprobe *u;

	list_for_each_entry_rcu(u, &s->users, list, kprobe_hit_reader()) {
		if (u->post_handler && !kprobe_disabled(u)) {
			kprobe_race_window();
			u->post_handler(u, regs, flags);
		}
	}
}
NOKPROBE_SYMBOL(kprobe_site_post_handler);

#ifdef CONFIG_OPTPROBES
/**
 * opt_pre_handler() - run the pre_handlers of a jump-optimized site
 * @p: the site
 * @regs: registers as a breakpoint would have saved them
 *
 * Return values of the handlers are ignored: the detour buffer always
 * goes on with the copied instructions.
 * Context: the arch's optimized callback, preemption disabled.
 */
void opt_pre_handler(struct kprobe *p, struct pt_regs *regs)
{
	struct kprobe_site *s = to_site(p);
	struct kprobe *u = READ_ONCE(site_kp(s)->solo);

	if (likely(u)) {
		kprobe_race_window();
		u->pre_handler(u, regs);
		return;
	}
	list_for_each_entry_rcu(u, &s->users, list, kprobe_hit_reader()) {
		if (u->pre_handler && !kprobe_disabled(u)) {
			kprobe_race_window();
			u->pre_handler(u, regs);
		}
	}
}
NOKPROBE_SYMBOL(opt_pre_handler);
#endif

bool kprobe_is_site(struct kprobe *p)
{
	return p->pre_handler == kprobe_site_pre_handler;
}
NOKPROBE_SYMBOL(kprobe_is_site);

/**
 * kprobes_inc_nmissed_count() - count a nested hit whose handlers were skipped
 * @p: the probe that was hit (a site: every user at it counts the miss)
 *
 * Every count lands, whatever else counts at the same time.  Calls
 * nothing a probe could be put on.
 * Context: int3, ftrace or optimized callback with preemption disabled.
 */
void kprobes_inc_nmissed_count(struct kprobe *p)
{
	struct kprobe_site *s;
	struct kprobe *u;

	if (!kprobe_is_site(p)) {
		kprobe_count_miss(&p->nmissed);
		return;
	}
	s = to_site(p);
	list_for_each_entry_rcu(u, &s->users, list, kprobe_hit_reader())
		kprobe_count_miss(&u->nmissed);
}
NOKPROBE_SYMBOL(kprobes_inc_nmissed_count);

#if IS_ENABLED(CONFIG_KPROBES_CORE_KUNIT_TEST)
void (*kprobe_outer_test_hook)(void);
EXPORT_SYMBOL_GPL(kprobe_outer_test_hook);
#endif

/* Misses that no probe can be charged with (enum kprobe_anon_miss). */
static DEFINE_PER_CPU(unsigned long [KPROBE_MISS_ANON_NR], kprobe_anon_missed);

/**
 * kprobe_missed_anon() - misses that could not be charged to a probe
 * @why: which kind
 *
 * Return: how many, since boot, summed over the CPUs.
 * Context: any.
 */
unsigned long kprobe_missed_anon(enum kprobe_anon_miss why)
{
	unsigned long sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += READ_ONCE(per_cpu(kprobe_anon_missed, cpu)[why]);
	return sum;
}
EXPORT_SYMBOL_GPL(kprobe_missed_anon);

#ifdef CONFIG_KPROBES_ON_FTRACE
struct kprobe kprobe_ftrace_claiming;

/*
 * Where this CPU's kprobe_ftrace_missed() is looking a probe up: the
 * interrupt nesting of that context (kprobe_missing_level()), or 0.
 */
static DEFINE_PER_CPU(unsigned int, kprobe_missing_ctx);

/*
 * Set while a lookup runs at the level already in kprobe_missing_ctx:
 * an interrupt's entry code calls traceable functions before it raises
 * preempt_count() (irq_enter_rcu() is one), so a probe on one of them
 * hit during a lookup finds the interrupted level.  One such level is
 * let through, as ftrace's own recursion guard lets one through (its
 * TRANSITION bit); a second at the same level is a recursion.
 */
static DEFINE_PER_CPU(bool, kprobe_missing_transition);

/*
 * The interrupt nesting of preempt_count() (NMI and hardirq depth,
 * softirq serving), with bit 0 set so that it is never 0.  An interrupt
 * or NMI that arrives during a lookup is one level deeper and may look
 * its own probe up; only a hit from the lookup itself finds its own
 * level taken.  The depth, not the kind, of context: an int3 or BRK
 * handler counts as NMI in preempt_count(), and a real NMI over it is a
 * second NMI level.
 */
static __always_inline unsigned int kprobe_missing_level(void)
{
	return (preempt_count() & (NMI_MASK | HARDIRQ_MASK | SOFTIRQ_OFFSET)) | 1;
}

/**
 * kprobe_ftrace_missed() - count an ftrace hit that runs no handler
 * @ip: the ftrace site that was hit
 *
 * For kprobe_ftrace_claim(): this CPU runs a probe already (nested), or
 * RCU is not watching it.  A nested hit is charged to the probe at @ip,
 * which takes a lookup; should a probe be hit from that lookup at the
 * same interrupt level (nothing there may be probed, so this would be a
 * bug elsewhere), the hit is counted as KPROBE_MISS_RECURSION and goes
 * no deeper.  An NMI or interrupt that lands in the lookup is a level
 * deeper and is charged to its own probe, and so is one hit in an
 * interrupt's entry before its level is raised (the transition, once).
 * Without RCU there is no lookup at all.
 * Context: ftrace callback, preemption disabled.
 */
void kprobe_ftrace_missed(unsigned long ip)
{
	unsigned int ctx = kprobe_missing_level();
	unsigned int outer = __this_cpu_read(kprobe_missing_ctx);
	bool transition = false;
	struct kprobe *p;

	if (unlikely(!kprobe_rcu_watching())) {
		this_cpu_inc(kprobe_anon_missed[KPROBE_MISS_NO_RCU]);
		return;
	}
	if (unlikely(outer == ctx)) {
		if (__this_cpu_read(kprobe_missing_transition)) {
			this_cpu_inc(kprobe_anon_missed[KPROBE_MISS_RECURSION]);
			return;
		}
		__this_cpu_write(kprobe_missing_transition, true);
		transition = true;
	}
	__this_cpu_write(kprobe_missing_ctx, ctx);
	barrier();
	p = get_kprobe((kprobe_opcode_t *)ip);
	if (p && !kprobe_disabled(p))
		kprobes_inc_nmissed_count(p);
	barrier();
	if (transition)
		__this_cpu_write(kprobe_missing_transition, false);
	__this_cpu_write(kprobe_missing_ctx, outer);
}
NOKPROBE_SYMBOL(kprobe_ftrace_missed);
#endif

/* Stands in as the running probe while kprobe_busy_begin() holds. */
static struct kprobe kprobe_busy_marker;

/**
 * kprobe_busy_begin() - make probes on this CPU count as recursion
 *
 * Until kprobe_busy_end(), kprobe_running() is non-NULL on this CPU, so
 * any probe hit here only bumps its nmissed count.
 * Context: any; disables preemption until kprobe_busy_end().
 */
void kprobe_busy_begin(void)
{
	preempt_disable();
	__this_cpu_write(current_kprobe, &kprobe_busy_marker);
	kprobe_status_set(get_kprobe_ctlblk(), KPROBE_HIT_ACTIVE);
}
NOKPROBE_SYMBOL(kprobe_busy_begin);

/**
 * kprobe_busy_end() - end a kprobe_busy_begin() section
 *
 * Context: the CPU that called kprobe_busy_begin(); enables preemption.
 */
void kprobe_busy_end(void)
{
	__this_cpu_write(current_kprobe, NULL);
	preempt_enable();
}
NOKPROBE_SYMBOL(kprobe_busy_end);

/*
 * The state a site keeps about its users: the user list, @nr_users,
 * @nr_live, the site's own DISABLED flag (set while no user is live) and
 * the lone-user shortcut.  Only the helpers below change it, so the
 * four always agree.  A user's own DISABLED flag is the caller's: it
 * means "registered disabled" to registration and must survive
 * unregistration.  Context of all four: kprobe_mutex held.
 */

/* @p joins the users of @s, not live yet. */
void kprobe_site_join(struct kprobe_site *s, struct kprobe *p)
{
	lockdep_assert_held(&kprobe_mutex);
	list_add_tail_rcu(&p->list, &s->users);
	s->nr_users++;
}

/*
 * @p leaves the users of @s.  Hits already running may still walk past
 * it until a grace period has passed.  Returns whether it was live.
 */
bool kprobe_site_leave(struct kprobe_site *s, struct kprobe *p)
{
	bool live = !kprobe_disabled(p);

	lockdep_assert_held(&kprobe_mutex);
	list_del_rcu(&p->list);
	s->nr_users--;
	if (live)
		s->nr_live--;
	if (!s->nr_live)
		kprobe_flags_set(site_kp(s), KPROBE_FLAG_DISABLED);
	kprobe_site_update_solo(s);
	if (p->post_handler)
		kprobe_site_update_post(s);
	return live;
}

/* A user of @s that was not live starts firing. */
void kprobe_site_user_on(struct kprobe_site *s, struct kprobe *p)
{
	lockdep_assert_held(&kprobe_mutex);
	kprobe_flags_clear(p, KPROBE_FLAG_DISABLED);
	s->nr_live++;
	kprobe_flags_clear(site_kp(s), KPROBE_FLAG_DISABLED);
	kprobe_site_update_solo(s);
}

/*
 * A live user of @s stops firing but stays registered.  Returns true
 * when that leaves @s without a live user (the caller disarms it).
 */
bool kprobe_site_user_off(struct kprobe_site *s, struct kprobe *p)
{
	lockdep_assert_held(&kprobe_mutex);
	kprobe_flags_set(p, KPROBE_FLAG_DISABLED);
	if (!--s->nr_live)
		kprobe_flags_set(site_kp(s), KPROBE_FLAG_DISABLED);
	kprobe_site_update_solo(s);
	return !s->nr_live;
}

/* The code under @s went away: no user of it can fire again. */
void kprobe_site_users_gone(struct kprobe_site *s)
{
	struct kprobe *u;

	lockdep_assert_held(&kprobe_mutex);
	kprobe_flags_set(site_kp(s), KPROBE_FLAG_GONE | KPROBE_FLAG_DISABLED);
	list_for_each_entry(u, &s->users, list)
		kprobe_flags_set(u, KPROBE_FLAG_GONE);
	s->nr_live = 0;
	kprobe_site_update_solo(s);
}

/*
 * Sites come from their own cache: at 192 bytes (x86_64 with optprobes)
 * a kmalloc() would round each up to 256.
 */
static struct kmem_cache *kprobe_site_cache __ro_after_init;

void __init kprobe_site_cache_init(void)
{
	kprobe_site_cache = KMEM_CACHE(kprobe_site, SLAB_PANIC);
}

/* A new site for @addr: disabled, unarmed, no users.  May sleep. */
struct kprobe_site *kprobe_site_alloc(unsigned long addr)
{
	struct kprobe_site *s = kmem_cache_zalloc(kprobe_site_cache, GFP_KERNEL);
	struct kprobe *kp;

	if (!s)
		return NULL;
	kp = site_kp(s);
	kp->addr = (kprobe_opcode_t *)addr;
	kp->pre_handler = kprobe_site_pre_handler;
	kp->flags = KPROBE_FLAG_DISABLED;
	INIT_LIST_HEAD(&kp->list);
	kp->solo = NULL;
	INIT_LIST_HEAD(&s->users);
#ifdef CONFIG_OPTPROBES
	INIT_LIST_HEAD(&s->op.list);
#endif
	return s;
}

/* Release a site that was never prepared, armed or in the table. */
void kprobe_site_discard(struct kprobe_site *s)
{
	kmem_cache_free(kprobe_site_cache, s);
}

/*
 * Release a site that is out of the table, unarmed, and that no reader
 * can reach any more (a grace period has passed).  May sleep; called
 * without kprobe_mutex, from kprobe_free_work or the caller that doomed
 * the site.
 */
void kprobe_site_free(struct kprobe_site *s)
{
	kprobe_opt_remove(s);
	arch_remove_kprobe(site_kp(s));
	kmem_cache_free(kprobe_site_cache, s);
}

/*
 * Take an unused, unarmed site out of the table; it is freed by
 * kprobe_sites_free_doomed() after a grace period.
 * Context: kprobe_mutex held.
 */
void kprobe_site_doom(struct kprobe_site *s, struct list_head *doomed)
{
	lockdep_assert_held(&kprobe_mutex);
	kprobe_site_remove(s);
	list_add_tail(&site_kp(s)->list, doomed);
}

/*
 * Free doomed sites.  A task preempted in a detour buffer is not waited
 * for by a normal grace period: wait for RCU tasks too when a site's
 * buffer was in use (synchronize_rcu_tasks() is synchronize_rcu() on
 * kernels without preemption, where the caller's grace period is enough).
 * Context: a grace period after kprobe_site_doom().
 */
void kprobe_sites_free_doomed(struct list_head *doomed)
{
	struct kprobe *kp, *tmp;

	if (IS_ENABLED(CONFIG_TASKS_RCU) && IS_ENABLED(CONFIG_OPTPROBES)) {
		list_for_each_entry(kp, doomed, list) {
			if (kprobe_site_opt_used(to_site(kp))) {
				synchronize_rcu_tasks();
				break;
			}
		}
	}

	list_for_each_entry_safe(kp, tmp, doomed, list) {
		list_del(&kp->list);
		kprobe_site_free(to_site(kp));
	}
}

/*
 * Point the site's post_handler at the fan-out only while some user has
 * one: a site without one may be boosted or optimized.
 * Context: kprobe_mutex held.
 */
void kprobe_site_update_post(struct kprobe_site *s)
{
	kprobe_post_handler_t post = NULL;
	struct kprobe *u;

	lockdep_assert_held(&kprobe_mutex);
	list_for_each_entry(u, &s->users, list) {
		if (u->post_handler && !kprobe_gone(u)) {
			post = kprobe_site_post_handler;
			break;
		}
	}
	WRITE_ONCE(site_kp(s)->post_handler, post);
}

/**
 * kprobe_site_update_solo() - recompute the site's single-user shortcut
 * @s: the site, after a user joined, left, or was enabled, disabled or
 *	marked gone
 *
 * A hit reads the site's ->solo once and calls it, so a user that has just been
 * disabled may see one more call from a hit that started before this
 * update, exactly as a walk of the list that read its flags first would.
 * Unregistration waits for such hits before it returns.
 * Context: kprobe_mutex held.
 */
void kprobe_site_update_solo(struct kprobe_site *s)
{
	struct kprobe *solo = NULL, *u;

	lockdep_assert_held(&kprobe_mutex);
	if (s->nr_live == 1 && !site_gone(s)) {
		list_for_each_entry(u, &s->users, list) {
			if (!kprobe_disabled(u)) {
				solo = u->pre_handler ? u : NULL;
				break;
			}
		}
	}
	WRITE_ONCE(site_kp(s)->solo, solo);
}

/*
 * Point a site's post_handler at the fan-out.  The arch reads it at each
 * hit to choose between stepping (post handlers run) and boosting, so it
 * may change while the site is armed.
 * Context: kprobe_mutex held.
 */
void kprobe_site_want_post(struct kprobe *kp)
{
	WRITE_ONCE(kp->post_handler, kprobe_site_post_handler);
}

/*
 * The site @p is registered at, or NULL if @p is not registered.
 * Context: kprobe_mutex held.
 */
struct kprobe_site *kprobe_user_site(struct kprobe *p)
{
	struct kprobe_site *s;
	struct kprobe *u;

	lockdep_assert_held(&kprobe_mutex);
	if (!p->addr)
		return NULL;
	s = kprobe_site_find((unsigned long)p->addr);
	if (!s)
		return NULL;
	list_for_each_entry(u, &s->users, list) {
		if (u == p)
			return s;
	}
	return NULL;
}
