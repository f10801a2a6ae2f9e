// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Registering and unregistering probes, singly or in batches.
 *
 * A batch goes through four steps so that it is all or nothing and so
 * that no handler of it runs before it has committed:
 *
 *  1. resolve and check every address (no lock held);
 *  2. under kprobe_mutex, check again what a module may have done since
 *     (finished or failed its init, begun to go), then attach every probe
 *     to its site, creating and preparing sites as needed; attached
 *     probes are held disabled;
 *  3. arm the sites that will have an enabled probe, in one batch
 *     (the only step besides 2 that can fail);
 *  4. commit: clear the held-disabled state of the probes the caller
 *     registered enabled.
 *
 * A failure in 2 or 3 detaches what was attached and waits one grace
 * period before returning.  Unregistering a batch detaches and disarms
 * everything under the mutex, then waits until no handler can still be
 * running (see kprobes_unregister_finish()) before the probes are handed
 * back; the sites they leave behind are freed later, off the caller's
 * path.
 */
#include <linux/bug.h>
#include <linux/cpu.h>
#include <linux/jump_label.h>
#include <linux/kallsyms.h>
#include <linux/memory.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include "internal.h"

/* Guards the registry, sites, users, their flags and the optimizer queues. */
DEFINE_MUTEX(kprobe_mutex);

/* Per-probe state of a registration batch. */
struct kprobe_reg {
	struct module *mod;
	unsigned long mod_text;		/* in @mod's core text: finds it again */
	struct kprobe_func func;
	bool enable;
	bool ftrace;
	bool entry;
	bool attached;
};

/* Step 1 for one probe: resolve, classify and check the address. */
static int kprobe_reg_check(struct kprobe *p, struct kprobe_reg *r)
{
	char name[KSYM_NAME_LEN];
	kprobe_opcode_t *addr;
	unsigned long a;
	int ret;

	ret = kprobe_resolve_func(p->addr, p->symbol_name, p->offset, &addr,
				  &r->entry, &r->func, name);
	if (ret)
		return ret;
	p->addr = addr;
	a = (unsigned long)addr;
	r->enable = !(p->flags & KPROBE_FLAG_DISABLED);
	r->ftrace = kprobe_on_ftrace_site(a);
	if (r->ftrace && !IS_ENABLED(CONFIG_KPROBES_ON_FTRACE))
		return -EINVAL;
	ret = kprobe_check_text(a, name, &r->mod);
	if (!ret && r->mod)
		r->mod_text = (unsigned long)r->mod->mem[MOD_TEXT].base;
	return ret;
}

/*
 * Is @r's module still there?  A module whose init failed is freed
 * without waiting for the references others hold: if it is gone, so is
 * ours.  What this finds holds until kprobe_mutex is dropped, as the
 * module's GOING notifier (ours, before the module is freed) takes it.
 * Context: kprobe_mutex held.
 */
static bool kprobe_reg_mod_alive(struct kprobe_reg *r)
{
	bool alive;

	lockdep_assert_held(&kprobe_mutex);
	preempt_disable();
	alive = __module_address(r->mod_text) == r->mod;
	preempt_enable();
	if (!alive)
		r->mod = NULL;
	return alive;
}

/*
 * Step 1 ran without kprobe_mutex: since then @p's module may have
 * finished its init (its init text is about to be freed), failed it or
 * begun to go away.  Its notifier removes probes in that text only
 * after the state changed, under kprobe_mutex: a probe attached now
 * would escape it, so it is refused (-ENOENT, as step 1 would have).
 * Context: kprobe_mutex held.
 */
static int kprobe_reg_recheck(struct kprobe *p, struct kprobe_reg *r)
{
	struct module *mod = r->mod;

	if (!mod)
		return 0;
	if (!kprobe_reg_mod_alive(r) || mod->state == MODULE_STATE_GOING ||
	    (within_module_init((unsigned long)p->addr, mod) &&
	     !module_is_coming(mod)))
		return -ENOENT;
	return 0;
}

/*
 * Drop the module references of @r[0..@n-1] while the modules cannot
 * be freed under us (see kprobe_reg_mod_alive()).
 * Context: kprobe_mutex held.
 */
static void kprobe_reg_put(struct kprobe_reg *r, unsigned int n)
{
	while (n--) {
		if (r[n].mod && kprobe_reg_mod_alive(&r[n]))
			module_put(r[n].mod);
	}
}

/* Context: kprobe_mutex held (and the locks of kprobe_attach()). */
static int kprobe_prepare_site(struct kprobe_site *s, struct kprobe_reg *r)
{
	struct kprobe *kp = site_kp(s);
	unsigned long off = site_addr(s) - r->func.start;
	int ret;

	/*
	 * For kprobe_func_bounds(); 0 (look it up) if it does not fit.  Set
	 * every time: a gone site may be prepared again for new code.
	 */
	s->func_size = 0;
	if (r->func.size <= U32_MAX && off < r->func.size) {
		s->func_off = off;
		s->func_size = r->func.size;
	}
	if (kprobe_ftrace(kp))
		ret = arch_prepare_kprobe_ftrace(kp);
	else
		ret = arch_prepare_kprobe(kp);
	if (!ret)
		kprobe_opt_prepare(s);
	return ret;
}

/*
 * Step 2 for one probe: find or make its site and add it as a user,
 * held disabled.
 * Context: kprobe_mutex, cpus_read_lock, jump_label_lock and text_mutex
 * held.
 */
static int kprobe_attach(struct kprobe *p, struct kprobe_reg *r)
{
	unsigned long addr = (unsigned long)p->addr;
	struct kprobe_site *s;
	struct kprobe *kp;
	int ret;

	lockdep_assert_held(&kprobe_mutex);
	lockdep_assert_held(&text_mutex);
	if (WARN_ON_ONCE(kprobe_user_site(p)))
		return -EINVAL;

	s = kprobe_site_find(addr);
	if (!s) {
		s = kprobe_site_alloc(addr);
		if (!s)
			return -ENOMEM;
		kp = site_kp(s);
		if (r->ftrace)
			kp->flags |= KPROBE_FLAG_FTRACE;
		if (p->post_handler)
			kprobe_site_want_post(kp);
		ret = kprobe_prepare_site(s, r);
		if (!ret) {
			ret = kprobe_site_insert(s);
			if (ret)
				kprobe_site_free(s);
		} else {
			kprobe_site_discard(s);
		}
		if (ret)
			return ret;
	} else if (site_gone(s)) {
		/*
		 * New code at an address whose old code went away: the site
		 * takes the new code's kind (an ftrace site or not, a
		 * function entry or not), not the old one's.
		 */
		kp = site_kp(s);
		kprobe_flags_clear(kp, KPROBE_FLAG_FTRACE |
				   KPROBE_FLAG_ON_FUNC_ENTRY);
		if (r->ftrace)
			kprobe_flags_set(kp, KPROBE_FLAG_FTRACE);
		if (p->post_handler)
			kprobe_site_want_post(kp);
		ret = kprobe_prepare_site(s, r);
		if (ret)
			return ret;
		kprobe_flags_clear(site_kp(s), KPROBE_FLAG_GONE);
	}
	kp = site_kp(s);
	if (p->post_handler) {
		/* A jump never calls post handlers: back to a breakpoint. */
		kprobe_opt_cancel(s, true);
		/*
		 * The arch chooses stepping or boosting at each hit from
		 * the site's post_handler (see arch_prepare_kprobe()), so
		 * pointing it at the fan-out is all a joining post
		 * handler needs.
		 */
		kprobe_site_want_post(kp);
	}
	if (r->entry)
		kprobe_flags_set(kp, KPROBE_FLAG_ON_FUNC_ENTRY);

	p->flags = KPROBE_FLAG_DISABLED;
	if (r->ftrace)
		p->flags |= KPROBE_FLAG_FTRACE;
	if (r->entry)
		p->flags |= KPROBE_FLAG_ON_FUNC_ENTRY;
	p->nmissed = 0;
	p->opcode = kp->opcode;
	p->ainsn = kp->ainsn;
	kprobe_site_join(s, p);
	r->attached = true;
	return 0;
}

/*
 * Sites doomed by unregistration wait here for kprobe_free_work, so that
 * an unregistering caller does not also wait for what only their memory
 * needs: RCU tasks for a detour buffer, a grace period for slot reuse.
 */
static LIST_HEAD(kprobe_free_list);
static DEFINE_SPINLOCK(kprobe_free_lock);

static void kprobe_free_fn(struct work_struct *work)
{
	LIST_HEAD(doomed);

	spin_lock(&kprobe_free_lock);
	list_splice_init(&kprobe_free_list, &doomed);
	spin_unlock(&kprobe_free_lock);
	kprobe_sites_free_doomed(&doomed);
}

static DECLARE_WORK(kprobe_free_work, kprobe_free_fn);

/*
 * Hand doomed sites to kprobe_free_work.
 * Context: process; no handler can reach the sites any more.
 */
static void kprobe_sites_free_later(struct list_head *doomed)
{
	if (list_empty(doomed))
		return;
	spin_lock(&kprobe_free_lock);
	list_splice_tail_init(doomed, &kprobe_free_list);
	spin_unlock(&kprobe_free_lock);
	/* It may wait for RCU tasks: seconds on a busy system. */
	queue_work(system_long_wq, &kprobe_free_work);
}

/* Sort and deduplicate an array of sites in place; returns the count. */
static unsigned int unique_sites(struct kprobe_site **v, unsigned int n)
{
	unsigned int i, k = 0;

	sort(v, n, sizeof(*v), kprobe_cmp_ulong, NULL);
	for (i = 0; i < n; i++) {
		if (!k || v[k - 1] != v[i])
			v[k++] = v[i];
	}
	return k;
}

/*
 * Doom the sites in @v that lost their last user and are not waiting
 * for the optimizer.  Context: kprobe_mutex held.
 */
static void doom_unused(struct kprobe_site **v, unsigned int n,
			struct list_head *doomed)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (!v[i]->nr_users && !v[i]->armed)
			kprobe_site_doom(v[i], doomed);
	}
}

/*
 * Put sites that users have just left (@v, @n entries, duplicates
 * allowed) in the state their remaining users need: armed sites without
 * a live user are disarmed together, the others offered to the jump
 * optimizer again (a joining post handler may have taken the jump away),
 * and unused sites doomed.
 * Context: kprobe_mutex held; takes cpus_read_lock and text_mutex.
 */
static void settle_left_sites(struct kprobe_site **v, unsigned int n,
			      struct list_head *doomed)
{
	unsigned int i, noff = 0;

	n = unique_sites(v, n);
	for (i = 0; i < n; i++) {
		if (v[i]->armed && !site_wants_arm(v[i])) {
			swap(v[i], v[noff]);
			noff++;
		}
	}
	if (noff)
		kprobe_disarm_sites(v, noff, false);
	for (i = 0; i < n; i++) {
		if (v[i]->armed)
			kprobe_opt_try(v[i]);
	}
	doom_unused(v, n, doomed);
}

/**
 * kprobes_of() - the kprobes embedded in an array of wrappers
 * @objs: @num pointers to structures that embed a struct kprobe
 *	(jprobes, kretprobes)
 * @num: how many (at least one)
 * @offset: where the struct kprobe is in those structures
 * @one: room for the pointer when @num is 1, so that single probes
 *	need no allocation
 *
 * Use KPROBES_OF() to get @offset from a type and member.
 *
 * Return: an array of @num kprobe pointers (@one when @num is 1, else
 * allocated: release it with kprobes_of_free()), or NULL when out of
 * memory.
 * Context: process, may sleep.
 */
struct kprobe **kprobes_of(void *const *objs, unsigned int num,
			   size_t offset, struct kprobe **one)
{
	struct kprobe **kps = kprobe_array(num, sizeof(*kps), one, GFP_KERNEL);
	unsigned int i;

	if (!kps)
		return NULL;
	for (i = 0; i < num; i++)
		kps[i] = (struct kprobe *)((char *)objs[i] + offset);
	return kps;
}

/**
 * kprobes_of_free() - release an array from kprobes_of()
 * @kps: the array
 * @one: the @one passed to kprobes_of()
 *
 * Context: process.
 */
void kprobes_of_free(struct kprobe **kps, struct kprobe **one)
{
	kprobe_array_free(kps, one);
}

/**
 * kprobes_register_batch() - register @num probes, all or nothing
 * @kps: the probes
 * @num: how many (at least one)
 *
 * Return: 0, or the first error; on error no probe of the batch stays
 * registered and none of their handlers has run.
 * Context: process, may sleep; takes kprobe_mutex.
 */
int kprobes_register_batch(struct kprobe **kps, unsigned int num)
{
	struct kprobe_site *one_site, **sites;
	unsigned int i, n, nr_attached = 0;
	struct kprobe_reg one_reg, *r;
	LIST_HEAD(doomed);
	int ret = 0;

	r = kprobe_array(num, sizeof(*r), &one_reg, GFP_KERNEL | __GFP_ZERO);
	sites = kprobe_array(num, sizeof(*sites), &one_site, GFP_KERNEL);
	if (!r || !sites) {
		ret = -ENOMEM;
		goto free;
	}
	ret = kprobes_check_unique(kps, num);
	if (ret)
		goto free;

	for (i = 0; i < num; i++) {
		ret = kprobe_reg_check(kps[i], &r[i]);
		if (ret)
			goto put;
	}

	/* Before any lock: released slots may have to come back first. */
	kprobe_insn_slots_throttle();
	mutex_lock(&kprobe_mutex);
	for (i = 0; i < num && !ret; i++)
		ret = kprobe_reg_recheck(kps[i], &r[i]);
	if (!ret)
		ret = kprobe_site_reserve(num);
	if (ret)
		goto unlock;

	cpus_read_lock();
	jump_label_lock();
	mutex_lock(&text_mutex);
	for (i = 0; i < num && !ret; i++) {
		ret = kprobe_attach(kps[i], &r[i]);
		nr_attached += r[i].attached;
	}
	mutex_unlock(&text_mutex);
	jump_label_unlock();
	cpus_read_unlock();
	if (ret)
		goto rollback;

	/* Step 3: arm, in one batch, every site that gains a live user. */
	for (i = 0, n = 0; i < num; i++) {
		if (r[i].enable)
			sites[n++] = kprobe_user_site(kps[i]);
	}
	n = unique_sites(sites, n);
	ret = kprobe_arm_sites(sites, n);
	if (ret)
		goto rollback;

	/* Step 4: commit.  Handlers may run from here on. */
	for (i = 0; i < num; i++) {
		struct kprobe_site *s = kprobe_user_site(kps[i]);

		if (r[i].enable)
			kprobe_site_user_on(s, kps[i]);
	}
	for (i = 0; i < n; i++)
		kprobe_opt_try(sites[i]);
	goto unlock;

rollback:
	for (i = 0, n = 0; i < num; i++) {
		struct kprobe_site *s;

		if (!r[i].attached)
			continue;
		s = kprobe_user_site(kps[i]);
		kprobe_site_leave(s, kps[i]);
		sites[n++] = s;
	}
	settle_left_sites(sites, n, &doomed);
unlock:
	kprobe_reg_put(r, num);
	mutex_unlock(&kprobe_mutex);
	if (ret && nr_attached) {
		/*
		 * Readers may still walk the probes we took back: the same
		 * wait as an unregistration's (expedited, see
		 * kprobes_unregister_finish()).  A batch refused before any
		 * of it was attached published nothing and does not wait.
		 */
		synchronize_rcu_expedited();
		kprobe_sites_free_doomed(&doomed);
		for (i = 0; i < num; i++) {
			if (!r[i].attached)
				continue;
			INIT_LIST_HEAD(&kps[i]->list);
			kps[i]->flags = r[i].enable ? 0 : KPROBE_FLAG_DISABLED;
		}
	}
	goto free;
put:
	/* Step 1 failed at @i: the references taken before it, if any. */
	for (n = 0; n < i && !r[n].mod; n++)
		;
	if (n < i) {
		mutex_lock(&kprobe_mutex);
		kprobe_reg_put(r, i);
		mutex_unlock(&kprobe_mutex);
	}
free:
	kprobe_array_free(r, &one_reg);
	kprobe_array_free(sites, &one_site);
	return ret;
}

/**
 * kprobes_unregister_begin() - detach and disarm a batch of probes
 * @kps: the probes (ones not registered are skipped)
 * @num: how many
 * @u: state for kprobes_unregister_finish()
 *
 * After this, no new hit reaches the probes' handlers; hits already
 * running may still do so until kprobes_unregister_finish().
 * Context: process, may sleep; takes kprobe_mutex.
 */
void kprobes_unregister_begin(struct kprobe **kps, unsigned int num,
			      struct kprobe_unreg *u)
{
	struct kprobe_site *one_site, **sites;
	unsigned int i, n = 0;

	INIT_LIST_HEAD(&u->doomed);
	sites = kprobe_array(num, sizeof(*sites), &one_site, GFP_KERNEL);

	mutex_lock(&kprobe_mutex);
	for (i = 0; i < num; i++) {
		struct kprobe_site *s = kprobe_user_site(kps[i]);

		if (!s)
			continue;
		kprobe_site_leave(s, kps[i]);
		if (!sites) {
			/* No memory for a batch: finish this site alone. */
			if (s->armed && !site_wants_arm(s))
				kprobe_disarm_sites(&s, 1, false);
			doom_unused(&s, 1, &u->doomed);
			continue;
		}
		sites[n++] = s;
	}
	if (sites)
		settle_left_sites(sites, n, &u->doomed);
	mutex_unlock(&kprobe_mutex);
	/* From here on no new hit can reach a handler of @kps. */
	get_state_synchronize_rcu_full(&u->gp);
	kprobe_array_free(sites, &one_site);
}

/**
 * kprobes_unregister_finish() - wait out running handlers
 * @kps: the probes passed to kprobes_unregister_begin()
 * @num: how many
 * @u: its state
 *
 * Every way into a handler (the breakpoint and single-step traps, the
 * ftrace callback, the detour buffer's callback, the return trampoline)
 * finds its probe with interrupts or preemption disabled, and stays so
 * until the handler returns: each hit is an RCU read-side critical
 * section.  kprobes_unregister_begin() took the probes out of every
 * lookup and noted the grace-period state; one full grace period after
 * that note, no hit that could see them is still running.
 *
 * That grace period is not always waited for here: if one has already
 * passed (a concurrent caller's, or one that ran while the text was being
 * restored), this returns at once, so callers that unregister at the
 * same time share their waits.  Otherwise the wait is expedited, which
 * costs an IPI to each non-idle CPU instead of a normal grace period's
 * few milliseconds: one-at-a-time teardown is the common case (tracefs,
 * perf and BPF all detach probe by probe), and without it a tool with a
 * thousand probes waits seconds to exit.  Booting with
 * rcupdate.rcu_normal=1 makes the wait a normal grace period, for
 * systems where an IPI costs more than the wait.
 *
 * After this no handler of @kps is running or will run, and the probes
 * can be freed or registered again.  The sites they leave are freed
 * later, by a work item.
 * Context: process, may sleep.
 */
void kprobes_unregister_finish(struct kprobe **kps, unsigned int num,
			       struct kprobe_unreg *u)
{
	unsigned int i;

	cond_synchronize_rcu_expedited_full(&u->gp);
	kprobe_sites_free_later(&u->doomed);
	for (i = 0; i < num; i++)
		INIT_LIST_HEAD(&kps[i]->list);
}

/* Whether @p is registered.  Context: process; takes kprobe_mutex. */
bool kprobe_is_registered(struct kprobe *p)
{
	bool ret;

	mutex_lock(&kprobe_mutex);
	ret = kprobe_user_site(p);
	mutex_unlock(&kprobe_mutex);
	return ret;
}

/**
 * register_kprobe() - insert a probe
 * @p: the probe; set either @p->addr or @p->symbol_name (with an
 *	optional @p->offset), and the handlers.  @p->flags may hold
 *	KPROBE_FLAG_DISABLED to register it disabled.
 *
 * Several probes may sit at one address; their handlers run in
 * registration order, and disabling one leaves the others running.
 *
 * Contract: no handler of @p runs before this call has committed the
 * registration, and none ever runs if it fails.  Handlers run with
 * preemption disabled and must not sleep.
 *
 * Return: 0; -EINVAL for both or neither of addr and symbol_name, an
 * address outside kernel or module text, in the blacklist or in text
 * patched by others, or a probe already registered; -EILSEQ for an
 * address inside an instruction, the landing pad at a function's start
 * included (symbol + 1..3 with IBT); -ENOENT for an unknown symbol or
 * freed init text; -ENOMEM; or an ftrace error.
 * Context: process, may sleep.
 */
int register_kprobe(struct kprobe *p)
{
	return kprobes_register_batch(&p, 1);
}
EXPORT_SYMBOL_GPL(register_kprobe);

/**
 * register_kprobes() - insert several probes, all or nothing
 * @kps: the probes, each set up as for register_kprobe()
 * @num: number of probes
 *
 * The text is patched with one CPU synchronisation for the batch, and
 * ftrace-based probes with one ftrace filter update.  If any probe
 * fails, none stays registered and no handler of the batch has run.
 *
 * Return: 0, -EINVAL if @num <= 0 or a probe is in @kps twice, or the
 * first error (see register_kprobe()).
 * Context: process, may sleep.
 */
int register_kprobes(struct kprobe **kps, int num)
{
	if (num <= 0)
		return -EINVAL;
	return kprobes_register_batch(kps, num);
}
EXPORT_SYMBOL_GPL(register_kprobes);

/**
 * unregister_kprobe() - remove a probe
 * @p: a probe registered with register_kprobe() (others are ignored)
 *
 * Contract: when this returns, no handler of @p is running on any CPU
 * and none will run again; @p may be freed or registered again.
 *
 * The wait is for the hits that could still see @p: an RCU grace period
 * from the moment @p went out of reach, expedited unless one has passed
 * already (see kprobes_unregister_finish()), so removing probes one by
 * one costs an IPI round each rather than a normal grace period each.
 * Context: process, may sleep.
 */
void unregister_kprobe(struct kprobe *p)
{
	unregister_kprobes(&p, 1);
}
EXPORT_SYMBOL_GPL(unregister_kprobe);

/**
 * unregister_kprobes() - remove several probes
 * @kps: the probes
 * @num: number of probes
 *
 * Same contract as unregister_kprobe() for every probe of @kps, with a
 * single wait and a single text synchronisation for the batch.
 * Context: process, may sleep.
 */
void unregister_kprobes(struct kprobe **kps, int num)
{
	struct kprobe_unreg u;

	if (num <= 0)
		return;
	kprobes_unregister_begin(kps, num, &u);
	kprobes_unregister_finish(kps, num, &u);
}
EXPORT_SYMBOL_GPL(unregister_kprobes);

/**
 * disable_kprobe() - stop a probe from firing, keeping it registered
 * @kp: a registered probe
 *
 * Other probes at the same address keep firing.  When this returns no
 * new hit calls @kp's handlers (one already running may finish).
 *
 * Return: 0, or -EINVAL if @kp is not registered.
 * Context: process, may sleep.
 */
int disable_kprobe(struct kprobe *kp)
{
	struct kprobe_site *s;
	int ret = 0;

	mutex_lock(&kprobe_mutex);
	s = kprobe_user_site(kp);
	if (!s) {
		ret = -EINVAL;
	} else if (!kprobe_disabled(kp)) {
		if (kprobe_site_user_off(s, kp) && s->armed)
			kprobe_disarm_sites(&s, 1, false);
	}
	mutex_unlock(&kprobe_mutex);
	return ret;
}
EXPORT_SYMBOL_GPL(disable_kprobe);

/**
 * enable_kprobe() - let a disabled probe fire again
 * @kp: a registered probe
 *
 * Return: 0; -EINVAL if @kp is not registered or its code is gone; or
 * the error from arming it (it then stays disabled).
 * Context: process, may sleep.
 */
int enable_kprobe(struct kprobe *kp)
{
	struct kprobe_site *s;
	int ret = 0;

	mutex_lock(&kprobe_mutex);
	s = kprobe_user_site(kp);
	if (!s || kprobe_gone(kp)) {
		ret = -EINVAL;
		goto out;
	}
	if (!kprobe_disabled(kp))
		goto out;
	if (!s->armed && !kprobes_all_disarmed) {
		ret = kprobe_arm_sites(&s, 1);
		if (ret)
			goto out;
	}
	kprobe_site_user_on(s, kp);
	kprobe_opt_try(s);
out:
	mutex_unlock(&kprobe_mutex);
	return ret;
}
EXPORT_SYMBOL_GPL(enable_kprobe);

/*
 * The code under @s was (or is about to be) freed: the site and its
 * users can never fire again.  Ftrace hooks are removed (ftrace still
 * knows the code), breakpoints are left in the dying text.
 * Context: kprobe_mutex held.
 */
void kprobe_kill_site(struct kprobe_site *s, struct list_head *doomed)
{
	struct kprobe *kp = site_kp(s);

	lockdep_assert_held(&kprobe_mutex);
	if (site_gone(s))
		return;
	kprobe_disarm_gone_site(s);
	kprobe_opt_kill(s);
	kprobe_site_users_gone(s);
	WRITE_ONCE(kp->post_handler, NULL);
	arch_remove_kprobe(kp);
	if (!s->nr_users)
		kprobe_site_doom(s, doomed);
}

/**
 * dump_kprobe() - print a probe's identity, for fatal error reports
 * @kp: the probe
 *
 * Context: any.
 */
void dump_kprobe(struct kprobe *kp)
{
	pr_err("Dump kprobe:\n.symbol_name = %s, .offset = %x, .addr = %pS\n",
	       kp->symbol_name, kp->offset, kp->addr);
}
NOKPROBE_SYMBOL(dump_kprobe);
