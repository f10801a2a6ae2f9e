// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Putting probes into the text and taking them out, many at a time.
 *
 * Breakpoint sites are patched through arch_arm_kprobes_batch() and
 * arch_disarm_kprobes_batch(), which synchronise the CPUs once per
 * call; sites at ftrace locations are added to or removed from one of
 * two ftrace_ops with a single filter update per batch, and a site
 * whose last live user left is unhooked lazily, together with others
 * (see "Parked ftrace sites" below).
 */
#include <linux/cpu.h>
#include <linux/delay.h>
#include <linux/memory.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/workqueue.h>
#include "internal.h"

/* Set by the debugfs "enabled" switch; changed under kprobe_mutex. */
bool kprobes_all_disarmed;

static int cmp_kprobe_addr(const void *a, const void *b)
{
	const struct kprobe *pa = *(const struct kprobe * const *)a;
	const struct kprobe *pb = *(const struct kprobe * const *)b;

	if (pa->addr == pb->addr)
		return 0;
	return pa->addr < pb->addr ? -1 : 1;
}

#ifdef CONFIG_KPROBES_ON_FTRACE
bool kprobe_ftrace_disabled;

/*
 * Where ftrace can save a full pt_regs (DYNAMIC_FTRACE_WITH_REGS), the
 * handler gets them; otherwise it builds them from ftrace_regs
 * (DYNAMIC_FTRACE_WITH_ARGS, as on arm64).
 */
#define KPROBE_FOPS_REGS \
	(IS_ENABLED(CONFIG_DYNAMIC_FTRACE_WITH_REGS) ? FTRACE_OPS_FL_SAVE_REGS : 0)

static struct ftrace_ops kprobe_fops_plain __read_mostly = {
	.func = kprobe_ftrace_handler,
	.flags = KPROBE_FOPS_REGS,
};

/* Sites with a post_handler move the pc around the callback. */
static struct ftrace_ops kprobe_fops_ipmodify __read_mostly = {
	.func = kprobe_ftrace_handler,
	.flags = KPROBE_FOPS_REGS | FTRACE_OPS_FL_IPMODIFY,
};

/*
 * Hooks on each ops: armed sites, and ips parked or stuck (below).  The
 * ops is registered while non-zero.
 */
static unsigned int kprobe_fops_users[2];

static struct ftrace_ops *const kprobe_fops[2] = {
	&kprobe_fops_plain, &kprobe_fops_ipmodify,
};

static unsigned int fops_index(struct ftrace_ops *ops)
{
	return ops == &kprobe_fops_ipmodify;
}

#if IS_ENABLED(CONFIG_KPROBES_CORE_KUNIT_TEST)
/* Filter updates that are to fail with -ENOMEM (KUnit only). */
static atomic_t kprobe_kunit_filter_fails;

void kprobe_kunit_fail_filter_updates(int n)
{
	atomic_set(&kprobe_kunit_filter_fails, n);
}
EXPORT_SYMBOL_GPL(kprobe_kunit_fail_filter_updates);

/*
 * How many ftrace_ops hook the ftrace site @ip (ftrace's own count), or
 * -1.  ftrace has one record iterator, which the arch's code update
 * walks too (x86, with text_mutex held): a walk of ours in the middle
 * of an update, such as the unpark work's, would move it under ftrace.
 * While a filter update runs, the iterator may visit only the records
 * that update changes (ftrace_update_only[] in ftrace.c), walking the
 * update's old filter, which ftrace frees after a grace period (hence
 * the RCU read side): a site that is an ftrace location but was not
 * found is looked for again after it.  Module text is not freed while
 * the KUnit suites run, so the record pages stay.
 */
int kprobe_kunit_ftrace_hooks(unsigned long ip)
{
	struct ftrace_rec_iter *iter;
	struct dyn_ftrace *rec;
	int count = -1, tries;

	for (tries = 0; tries < 50; tries++) {
		mutex_lock(&text_mutex);
		rcu_read_lock();
		for_ftrace_rec_iter(iter) {
			rec = ftrace_rec_iter_record(iter);
			if (rec->ip == ip) {
				count = ftrace_rec_count(rec);
				break;
			}
		}
		rcu_read_unlock();
		mutex_unlock(&text_mutex);
		if (count >= 0 || !ftrace_location(ip))
			break;
		msleep(20);
	}
	return count;
}
EXPORT_SYMBOL_GPL(kprobe_kunit_ftrace_hooks);
#endif

/*
 * The one place that changes the filter of one of the ops: @n ips added
 * or (@remove) dropped, or (@reset) the filter made exactly @ips.
 */
static int kprobe_fops_filter(struct ftrace_ops *ops, unsigned long *ips,
			      unsigned int n, bool remove, bool reset)
{
#if IS_ENABLED(CONFIG_KPROBES_CORE_KUNIT_TEST)
	if (atomic_add_unless(&kprobe_kunit_filter_fails, -1, 0))
		return -ENOMEM;
#endif
	return ftrace_set_filter_ips(ops, ips, n, remove, reset);
}

/*
 * Parked ftrace sites.
 *
 * Unhooking one site is a filter update of its ops, which walks every
 * ftrace record and patches the call site: milliseconds, nearly all of
 * what unregister_kprobe() or disable_kprobe() of a probe at a function
 * entry costs.  Clients take probes down one at a time (a "-:" line in
 * kprobe_events, a perf event closed per probe), so that cost adds up.
 * A site whose last live user has left need not be unhooked to be
 * silent: kprobe_ftrace_claim() finds no probe there, or a disabled
 * one, and returns at once, which is all a hit costs until the hook
 * goes.  So such a site on the plain ops is parked: its ip is kept
 * here, still counted as a user of the ops, and the hooks of all
 * parked sites are dropped with one filter update by a work item a
 * little later.
 *
 * Arming a parked ip again takes it off the list, with no update at
 * all.  The list is dropped at once where the filter must be exact:
 * before the ipmodify ops hooks an ip (ftrace would then call the
 * handler twice), when the "enabled" switch disarms everything, and
 * before text is freed (a module, init text).  Sites on the ipmodify
 * ops are never parked: while that ops holds a function, live patching
 * cannot have it.
 *
 * Stuck hooks.  Should ftrace fail to drop hooks (it allocates a new
 * filter for every update), they stay where they are, counted and
 * listed on their ops' list of stuck ips, and the work item tries
 * again until it succeeds.  Nothing is ever hooked that this file does
 * not know of: a filter that could not be trimmed is replaced whole
 * (kprobe_fops_refilter()), and an ops that is registered again starts
 * from a filter of exactly the ips it hooks then.
 */
#define KPROBE_PARK_MAX		256
#define KPROBE_PARK_DELAY	HZ
#define KPROBE_STUCK_MAX	64

static unsigned long kprobe_parked[KPROBE_PARK_MAX];	/* kprobe_mutex */
static unsigned int kprobe_nr_parked;
static unsigned long kprobe_stuck[2][KPROBE_STUCK_MAX];	/* kprobe_mutex */
static unsigned int kprobe_nr_stuck[2];

static void kprobe_unpark_work_fn(struct work_struct *work);
static DECLARE_DELAYED_WORK(kprobe_unpark_work, kprobe_unpark_work_fn);

#if IS_ENABLED(CONFIG_KPROBES_CORE_KUNIT_TEST)
/*
 * KUnit: while held, the work item runs only when a case asks for it
 * (kprobe_kunit_unpark_now()), so a slow guest cannot run it in the
 * middle of a case that looks at parked or stuck hooks.
 */
static bool kprobe_unpark_held;

void kprobe_kunit_hold_unpark(bool hold)
{
	WRITE_ONCE(kprobe_unpark_held, hold);
	if (!hold)
		schedule_delayed_work(&kprobe_unpark_work, KPROBE_PARK_DELAY);
}
EXPORT_SYMBOL_GPL(kprobe_kunit_hold_unpark);

static bool kprobe_unpark_is_held(void)
{
	return READ_ONCE(kprobe_unpark_held);
}
#else
static bool kprobe_unpark_is_held(void)
{
	return false;
}
#endif

/* Drop the parked and stuck hooks a little later. */
static void kprobe_unpark_later(void)
{
	if (!kprobe_unpark_is_held())
		schedule_delayed_work(&kprobe_unpark_work, KPROBE_PARK_DELAY);
}

static bool ip_in(unsigned long ip, const unsigned long *ips, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (ips[i] == ip)
			return true;
	return false;
}

/*
 * Make the filter of @ops exactly the ips it hooks but @drop: its sites,
 * parked and stuck ips.  For when dropping @drop from it failed; one
 * update that needs no entry of the old filter to be valid (an ip whose
 * text is gone is no longer an ftrace location, so ftrace refuses to
 * drop it, and with it the whole batch).  Context: kprobe_mutex held.
 */
static int kprobe_fops_refilter(struct ftrace_ops *ops, unsigned long *drop,
				unsigned int n)
{
	unsigned int k = fops_index(ops), nr = 0, pos = 0, i, m = 0;
	struct kprobe_site *s;
	unsigned long *keep;
	int ret;

	/*
	 * Straight from the table (kprobe_mutex keeps it still), not from a
	 * snapshot: a snapshot that could not be allocated would look like
	 * no site, and the filter would lose every live one.
	 */
	while ((s = kprobe_site_at(&pos)))
		nr += s->fops == KPROBE_FOPS_PLAIN + k;
	keep = kvmalloc_array(nr + KPROBE_PARK_MAX + KPROBE_STUCK_MAX,
			      sizeof(*keep), GFP_KERNEL);
	if (!keep)
		return -ENOMEM;
	for (pos = 0; (s = kprobe_site_at(&pos)); ) {
		if (s->fops == KPROBE_FOPS_PLAIN + k)
			keep[m++] = site_addr(s);
	}
	for (i = 0; !k && i < kprobe_nr_parked; i++)
		keep[m++] = kprobe_parked[i];
	for (i = 0; i < kprobe_nr_stuck[k]; i++)
		keep[m++] = kprobe_stuck[k][i];
	/* Only what is still wanted, and still an ftrace location. */
	for (i = 0, nr = m, m = 0; i < nr; i++) {
		if (!ip_in(keep[i], drop, n) && kprobe_on_ftrace_site(keep[i]))
			keep[m++] = keep[i];
	}
	/* An empty filter would hook every function. */
	ret = m ? kprobe_fops_filter(ops, keep, m, false, true) : -EINVAL;
	kvfree(keep);
	return ret;
}

/*
 * Hook (or unhook) @n ftrace sites, all for @ops, with one filter
 * update.  An unhook fails only if ftrace could not drop the hooks,
 * which are then still there and still counted (see "Stuck hooks").
 * Context: kprobe_mutex held.
 */
static int ftrace_batch(struct ftrace_ops *ops, unsigned long *ips,
			unsigned int n, bool arm)
{
	unsigned int *users = &kprobe_fops_users[fops_index(ops)];
	int ret;

	lockdep_assert_held(&kprobe_mutex);
	if (!n)
		return 0;
	if (arm) {
		/* Not registered: whatever the filter still holds goes. */
		ret = kprobe_fops_filter(ops, ips, n, false, !*users);
		if (ret < 0)
			return ret;
		if (!*users) {
			ret = register_ftrace_function(ops);
			if (ret < 0)
				return ret;
		}
		*users += n;
		return 0;
	}
	if (kprobe_ftrace_disabled)
		return 0;
	if (*users == n) {
		/*
		 * The last hooks: unregistering drops them all, and the
		 * filter is reset when the ops is registered again.
		 */
		ret = unregister_ftrace_function(ops);
		if (WARN(ret < 0, "kprobes: cannot unregister ftrace ops (%d)\n", ret))
			return ret;
		*users = 0;
		return 0;
	}
	ret = kprobe_fops_filter(ops, ips, n, true, false);
	if (ret < 0)
		ret = kprobe_fops_refilter(ops, ips, n);
	if (ret < 0)
		return ret;
	*users -= n;
	return 0;
}

/*
 * Unhook @ips from @ops; those ftrace could not drop become stuck ips,
 * for the work item to try again.  Context: kprobe_mutex held.
 */
static void ftrace_unhook(struct ftrace_ops *ops, unsigned long *ips,
			  unsigned int n)
{
	unsigned int k = fops_index(ops), room, i;
	int ret = ftrace_batch(ops, ips, n, false);

	if (!ret)
		return;
	room = KPROBE_STUCK_MAX - kprobe_nr_stuck[k];
	pr_warn("kprobes: ftrace could not drop %u hooks (%d); trying again later\n",
		n, ret);
	for (i = 0; i < n; i++) {
		if (ip_in(ips[i], kprobe_stuck[k], kprobe_nr_stuck[k]))
			continue;
		if (!room) {
			/* Still hooked and counted, but no longer retried. */
			WARN_ONCE(1, "kprobes: ftrace hook at %pS cannot be dropped\n",
				  (void *)ips[i]);
			continue;
		}
		kprobe_stuck[k][kprobe_nr_stuck[k]++] = ips[i];
		room--;
	}
	kprobe_unpark_later();
}

/*
 * Try again to drop the stuck ips of both ops.  Context: kprobe_mutex
 * held.
 */
static void kprobe_ftrace_drop_idle(void)
{
	unsigned long ips[KPROBE_STUCK_MAX];
	unsigned int k, n;

	for (k = 0; k < 2; k++) {
		n = kprobe_nr_stuck[k];
		if (!n)
			continue;
		memcpy(ips, kprobe_stuck[k], n * sizeof(*ips));
		kprobe_nr_stuck[k] = 0;
		ftrace_unhook(kprobe_fops[k], ips, n);
	}
}

/**
 * kprobe_ftrace_unpark() - drop the hooks of parked ftrace sites now
 *
 * With one filter update (and stuck hooks with one more).  Besides the
 * work item, for callers that need the filter to hold live sites only:
 * before text is freed, and when every probe is disarmed.
 * Context: kprobe_mutex held; may sleep.
 */
void kprobe_ftrace_unpark(void)
{
	unsigned int n = kprobe_nr_parked;

	lockdep_assert_held(&kprobe_mutex);
	/* Those that failed before first; those that fail now wait. */
	kprobe_ftrace_drop_idle();
	kprobe_nr_parked = 0;
	if (n)
		ftrace_unhook(&kprobe_fops_plain, kprobe_parked, n);
}

static void kprobe_unpark_work_fn(struct work_struct *work)
{
	mutex_lock(&kprobe_mutex);
	kprobe_ftrace_unpark();
	mutex_unlock(&kprobe_mutex);
}

#if IS_ENABLED(CONFIG_KPROBES_CORE_KUNIT_TEST)
/* Run the work item now (KUnit only). */
void kprobe_kunit_unpark_now(void)
{
	mod_delayed_work(system_wq, &kprobe_unpark_work, 0);
	flush_delayed_work(&kprobe_unpark_work);
}
EXPORT_SYMBOL_GPL(kprobe_kunit_unpark_now);

/* How many hooks each ops has, and how many of them are stuck. */
void kprobe_kunit_fops_users(unsigned int *users, unsigned int *stuck)
{
	mutex_lock(&kprobe_mutex);
	users[0] = kprobe_fops_users[0];
	users[1] = kprobe_fops_users[1];
	stuck[0] = kprobe_nr_stuck[0];
	stuck[1] = kprobe_nr_stuck[1];
	mutex_unlock(&kprobe_mutex);
}
EXPORT_SYMBOL_GPL(kprobe_kunit_fops_users);
#endif

/*
 * Of @ips, just hooked on ops @k, those that were still hooked there
 * because they were stuck were counted twice: they leave the stuck
 * list and its share of the count.  Context: kprobe_mutex held.
 */
static void take_stuck(unsigned int k, unsigned long *ips, unsigned int n)
{
	unsigned int i = 0;

	while (i < kprobe_nr_stuck[k]) {
		if (ip_in(kprobe_stuck[k][i], ips, n)) {
			kprobe_stuck[k][i] = kprobe_stuck[k][--kprobe_nr_stuck[k]];
			kprobe_fops_users[k]--;
		} else {
			i++;
		}
	}
}

/* Where @ip is on the parked list, or kprobe_nr_parked. */
static unsigned int parked_index(unsigned long ip)
{
	unsigned int i;

	for (i = 0; i < kprobe_nr_parked; i++)
		if (kprobe_parked[i] == ip)
			break;
	return i;
}

/*
 * Hook @ips on the plain ops: one filter update for those not parked,
 * nothing for the parked ones.  Context: kprobe_mutex held.
 */
static int ftrace_hook_plain(unsigned long *ips, unsigned int n)
{
	unsigned int i, fresh = 0;
	int ret;

	/* Parked ones to the end of @ips. */
	for (i = 0; i < n; i++) {
		if (parked_index(ips[i]) == kprobe_nr_parked) {
			swap(ips[i], ips[fresh]);
			fresh++;
		}
	}
	ret = ftrace_batch(&kprobe_fops_plain, ips, fresh, true);
	if (ret)
		return ret;
	take_stuck(0, ips, fresh);
	for (i = fresh; i < n; i++)
		kprobe_parked[parked_index(ips[i])] =
			kprobe_parked[--kprobe_nr_parked];
	return 0;
}

/*
 * Unhook @ips from the plain ops; park them if @park.  Either way one
 * filter update at most.  Context: kprobe_mutex held.
 */
static void ftrace_unhook_plain(unsigned long *ips, unsigned int n, bool park)
{
	if (!n)
		return;
	if (kprobe_nr_parked + n <= KPROBE_PARK_MAX) {
		memcpy(&kprobe_parked[kprobe_nr_parked], ips, n * sizeof(*ips));
		kprobe_nr_parked += n;
		if (park)
			kprobe_unpark_later();
		else
			kprobe_ftrace_unpark();
		return;
	}
	kprobe_ftrace_unpark();
	ftrace_unhook(&kprobe_fops_plain, ips, n);
}

/*
 * Is one of @ips still hooked on the other ops than @k: stuck there, or
 * parked on the plain ops (once kprobe_ftrace_unpark() could not drop
 * it)?  ftrace would then call kprobe_ftrace_handler() for it twice per
 * call, and every handler of the site would run twice.
 * Context: kprobe_mutex held.
 */
static bool hooked_on_the_other_ops(unsigned int k, unsigned long *ips,
				    unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (ip_in(ips[i], kprobe_stuck[!k], kprobe_nr_stuck[!k]))
			return true;
		if (k && parked_index(ips[i]) != kprobe_nr_parked)
			return true;
	}
	return false;
}

/* The ops an ftrace site's hook belongs on, from its handlers now. */
static u8 site_fops_wanted(struct kprobe_site *s)
{
	return site_kp(s)->post_handler ? KPROBE_FOPS_IPMODIFY :
					  KPROBE_FOPS_PLAIN;
}

/*
 * Arm or disarm the ftrace sites among @sites (those with
 * KPROBE_FLAG_FTRACE), grouped by ops.  All or nothing when arming.
 * When disarming, @park lets plain sites without a live user be parked.
 * Context: kprobe_mutex held.
 */
static int ftrace_sites(struct kprobe_site **sites, unsigned int n, bool arm,
			bool park)
{
	unsigned long one_ip, *ips;
	unsigned int i, k, cnt;
	int ret = 0;

	ips = kprobe_array(n, sizeof(*ips), &one_ip, GFP_KERNEL);
	if (!ips)
		return -ENOMEM;
	for (k = 0; k < 2; k++) {
		bool park_group = park;

		cnt = 0;
		for (i = 0; i < n; i++) {
			struct kprobe_site *s = sites[i];
			u8 ops;

			if (!kprobe_ftrace(site_kp(s)))
				continue;
			ops = arm ? site_fops_wanted(s) : s->fops;
			if (ops != KPROBE_FOPS_PLAIN + k)
				continue;
			ips[cnt++] = site_addr(s);
			if (s->nr_live)
				park_group = false;
		}
		/* Never hooked on both ops at once. */
		if (k && arm && cnt)
			kprobe_ftrace_unpark();
		if (arm && hooked_on_the_other_ops(k, ips, cnt)) {
			/* ftrace could not drop the other hook (yet). */
			ret = -EBUSY;
		} else if (!k && arm) {
			ret = ftrace_hook_plain(ips, cnt);
		} else if (!k) {
			ftrace_unhook_plain(ips, cnt, park_group);
		} else {
			if (!arm) {
				ftrace_unhook(&kprobe_fops_ipmodify, ips, cnt);
			} else {
				ret = ftrace_batch(&kprobe_fops_ipmodify, ips,
						   cnt, true);
				if (!ret)
					take_stuck(1, ips, cnt);
			}
		}
		if (ret && arm) {
			if (k)	/* undo the plain group */
				goto undo;
			break;
		}
		for (i = 0; i < n; i++) {
			struct kprobe_site *s = sites[i];

			if (!kprobe_ftrace(site_kp(s)))
				continue;
			if (arm && s->fops == KPROBE_FOPS_NONE &&
			    site_fops_wanted(s) == KPROBE_FOPS_PLAIN + k)
				s->fops = KPROBE_FOPS_PLAIN + k;
			else if (!arm && s->fops == KPROBE_FOPS_PLAIN + k)
				s->fops = KPROBE_FOPS_NONE;
		}
	}
	kprobe_array_free(ips, &one_ip);
	return ret;
undo:
	cnt = 0;
	for (i = 0; i < n; i++) {
		if (sites[i]->fops == KPROBE_FOPS_PLAIN) {
			ips[cnt++] = site_addr(sites[i]);
			sites[i]->fops = KPROBE_FOPS_NONE;
		}
	}
	ftrace_unhook_plain(ips, cnt, false);
	kprobe_array_free(ips, &one_ip);
	return ret;
}

/**
 * kprobe_ftrace_kill() - ftrace is dead; never call its hooks again
 *
 * Context: any (called from ftrace's own error path).
 */
void kprobe_ftrace_kill(void)
{
	kprobe_ftrace_disabled = true;
}
#else
static int ftrace_sites(struct kprobe_site **sites, unsigned int n, bool arm,
			bool park)
{
	return 0;
}
#endif /* CONFIG_KPROBES_ON_FTRACE */

/* Scratch for single-site calls, which must not fail. */
struct kprobe_batch_one {
	struct kprobe_site *site;
	struct kprobe *kp;
};

static struct kprobe_batch_one batch_one;	/* under kprobe_mutex */

/*
 * Room for @n sites and @n probes.  A single site uses static storage
 * (kprobe_mutex serialises it), so disarming one probe never fails.
 */
static struct kprobe_site **batch_alloc(unsigned int n, struct kprobe ***kps)
{
	struct kprobe_site **v;

	if (n == 1) {
		*kps = &batch_one.kp;
		return &batch_one.site;
	}
	v = kvmalloc_array(n, sizeof(*v) + sizeof(**kps), GFP_KERNEL);
	if (v)
		*kps = (struct kprobe **)(v + n);
	return v;
}

static void batch_free(struct kprobe_site **v)
{
	if (v != &batch_one.site)
		kvfree(v);
}

/*
 * Breakpoint sites among @sites into @kps, sorted by address.
 * Returns how many.
 */
static unsigned int breakpoint_sites(struct kprobe_site **sites,
				     unsigned int n, struct kprobe **kps)
{
	unsigned int i, cnt = 0;

	for (i = 0; i < n; i++) {
		if (!kprobe_ftrace(site_kp(sites[i])))
			kps[cnt++] = site_kp(sites[i]);
	}
	sort(kps, cnt, sizeof(*kps), cmp_kprobe_addr, NULL);
	return cnt;
}

/**
 * kprobe_arm_sites() - patch unarmed sites into the text
 * @sites: sites that want to be armed (others are skipped)
 * @n: number of entries
 *
 * Ftrace sites are hooked first, all or nothing; then every breakpoint
 * site is written with a single CPU synchronisation.  Armed sites are
 * then offered to the jump optimizer.
 *
 * Return: 0, or the ftrace error (nothing was armed then).
 * Context: kprobe_mutex held; takes cpus_read_lock and text_mutex.
 */
int kprobe_arm_sites(struct kprobe_site **sites, unsigned int n)
{
	struct kprobe_site **todo;
	struct kprobe **kps;
	unsigned int i, cnt = 0, nk;
	int ret;

	lockdep_assert_held(&kprobe_mutex);
	todo = batch_alloc(n, &kps);
	if (!todo)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		struct kprobe_site *s = sites[i];

		if (!s->armed && !site_gone(s) && !kprobes_all_disarmed)
			todo[cnt++] = s;
	}

	ret = ftrace_sites(todo, cnt, true, false);
	if (ret)
		goto out;

	nk = breakpoint_sites(todo, cnt, kps);
	if (nk) {
		cpus_read_lock();
		mutex_lock(&text_mutex);
		/* A jump covering one of these addresses must go first. */
		for (i = 0; i < nk; i++)
			kprobe_opt_block((unsigned long)kps[i]->addr);
		arch_arm_kprobes_batch(kps, nk);
		mutex_unlock(&text_mutex);
		cpus_read_unlock();
	}
	for (i = 0; i < cnt; i++) {
		todo[i]->armed = true;
		kprobe_flags_set(site_kp(todo[i]), KPROBE_FLAG_ARMED_ONCE);
	}
out:
	batch_free(todo);
	return ret;
}

/**
 * kprobe_disarm_sites() - take armed sites out of the text
 * @sites: sites to disarm (unarmed ones are skipped)
 * @n: number of entries
 * @force: undo a jump right now instead of through the optimizer
 *
 * A jump-optimized site is handed to the optimizer unless @force; it
 * stays armed until the optimizer has put the original text back.
 * Every other breakpoint site is restored with one synchronisation.
 * Context: kprobe_mutex held; takes cpus_read_lock and text_mutex.
 */
void kprobe_disarm_sites(struct kprobe_site **sites, unsigned int n,
			 bool force)
{
	struct kprobe_site **todo;
	struct kprobe **kps;
	unsigned int i, cnt = 0, nk;

	lockdep_assert_held(&kprobe_mutex);
	todo = batch_alloc(n, &kps);
	if (!todo) {
		/* Fall back to one at a time; never leave a probe armed. */
		for (i = 0; i < n; i++)
			kprobe_disarm_sites(&sites[i], 1, force);
		return;
	}

	cpus_read_lock();
	mutex_lock(&text_mutex);
	/* Jumps that must go now go together. */
	if (force)
		kprobe_opt_cancel_batch(sites, n);
	for (i = 0; i < n; i++) {
		struct kprobe_site *s = sites[i];

		if (!s->armed)
			continue;
		/* Still a jump, waiting for the optimizer: it disarms. */
		if (kprobe_opt_cancel(s, force))
			continue;
		todo[cnt++] = s;
	}
	nk = breakpoint_sites(todo, cnt, kps);
	if (nk)
		kprobe_disarm_breakpoints(kps, nk);
	/* A jump these breakpoints kept out may go in now. */
	for (i = 0; i < nk; i++)
		kprobe_opt_unblock((unsigned long)kps[i]->addr);
	mutex_unlock(&text_mutex);
	cpus_read_unlock();

	ftrace_sites(todo, cnt, false, !force);
	for (i = 0; i < cnt; i++)
		todo[i]->armed = false;
	batch_free(todo);
}

/**
 * kprobe_disarm_breakpoints() - write the original text back over breakpoints
 * @kps: the probes of armed breakpoint sites (no jump in place)
 * @n: number of entries
 *
 * For kprobe_disarm_sites() and for the optimizer, which disarms the
 * sites whose jump it has just undone and nobody wants armed: one
 * synchronisation for the batch.
 * Context: kprobe_mutex, cpus_read_lock and text_mutex held.
 */
void kprobe_disarm_breakpoints(struct kprobe **kps, unsigned int n)
{
	unsigned int i;

	lockdep_assert_held(&text_mutex);
	arch_disarm_kprobes_batch(kps, n);
	for (i = 0; i < n; i++)
		to_site(kps[i])->armed = false;
}

/**
 * kprobe_disarm_gone_site() - disarm a site whose text is going away
 * @s: a site in a module being unloaded or in freed init text
 *
 * An ftrace hook is taken out (ftrace keeps the record until the
 * module is gone); a breakpoint or jump is forgotten without touching
 * the text, which nobody runs again.
 * Context: kprobe_mutex held.
 */
void kprobe_disarm_gone_site(struct kprobe_site *s)
{
	lockdep_assert_held(&kprobe_mutex);
	if (s->armed && kprobe_ftrace(site_kp(s)))
		kprobe_disarm_sites(&s, 1, true);
	s->armed = false;
}

static void report_global(const char *what, int ret, unsigned int n)
{
	if (ret)
		pr_warn("kprobes: globally %s, but %u probe sites failed (%d); see kprobes/list\n",
			what, n, ret);
	else
		pr_info("Kprobes globally %s\n", what);
}

/**
 * kprobe_arm_all() - the "enabled" switch turned on
 *
 * Arms every site with an enabled user, in one batch; per-probe
 * disabled state is kept.
 * Return: 0 if every site that should be armed is, else a negative
 * errno (the others are armed; the kernel log says how many failed).
 * Context: process; takes kprobe_mutex.
 */
int kprobe_arm_all(void)
{
	struct kprobe_site **v, *s;
	unsigned int n, i, pos = 0, failed = 0;
	int ret = 0, err;

	mutex_lock(&kprobe_mutex);
	if (!kprobes_all_disarmed)
		goto out;
	kprobes_all_disarmed = false;
	v = kprobe_site_collect(&n);
	if (v) {
		for (i = 0, pos = 0; i < n; i++) {
			if (site_wants_arm(v[i]) && !v[i]->armed)
				v[pos++] = v[i];
		}
		n = pos;
		ret = n ? kprobe_arm_sites(v, n) : 0;
	} else {
		while ((s = kprobe_site_at(&pos))) {
			if (s->nr_live)
				ret = kprobe_arm_sites(&s, 1);
		}
	}
	/* Whatever did not arm as a batch gets one more chance alone. */
	for (i = 0; v && ret && i < n; i++) {
		if (!v[i]->armed && site_wants_arm(v[i])) {
			err = kprobe_arm_sites(&v[i], 1);
			if (err)
				failed++;
		}
	}
	if (v && !failed)
		ret = 0;
	for (i = 0; v && i < n; i++) {
		if (v[i]->armed)
			kprobe_opt_try(v[i]);
	}
	kvfree(v);
	report_global("enabled", ret, failed);
out:
	mutex_unlock(&kprobe_mutex);
	return ret;
}

/**
 * kprobe_disarm_all() - the "enabled" switch turned off
 *
 * Disarms every armed site in one batch (jumps included) and waits
 * for the optimizer to be idle.
 * Return: 0; disarming cannot fail.
 * Context: process; takes kprobe_mutex.
 */
int kprobe_disarm_all(void)
{
	struct kprobe_site **v, *s;
	unsigned int n, pos = 0;

	mutex_lock(&kprobe_mutex);
	if (kprobes_all_disarmed) {
		mutex_unlock(&kprobe_mutex);
		return 0;
	}
	kprobes_all_disarmed = true;
	v = kprobe_site_collect(&n);
	if (v) {
		unsigned int i;

		kprobe_disarm_sites(v, n, true);
		/*
		 * Sites whose last user left while their jump was waiting
		 * to be undone: that is done now, and so is the optimizer's
		 * part in them.
		 */
		for (i = 0; i < n; i++)
			kprobe_opt_drop_unused(v[i]);
		kvfree(v);
	} else {
		while ((s = kprobe_site_at(&pos)))
			kprobe_disarm_sites(&s, 1, true);
	}
	kprobe_ftrace_unpark();
	report_global("disabled", 0, 0);
	mutex_unlock(&kprobe_mutex);
	wait_for_kprobe_optimizer();
	return 0;
}
