// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Return probes on top of rethook.
 *
 * A kretprobe is a kprobe at a function entry whose pre_handler takes a
 * rethook node (one kretprobe_instance) and hooks the return address.
 * Everything that knows how instances are stored stays in this file, so
 * the storage can change without touching the rest of the core.
 */
#include <linux/slab.h>
#include "internal.h"

#ifndef CONFIG_KRETPROBE_ON_RETHOOK
#error "the kprobes core implements kretprobes on rethook only"
#endif

/*
 * Entry side: take an instance, let the entry_handler veto, hook the
 * return.  Context: a kprobe pre_handler (preemption disabled).
 */
static int kretprobe_entry(struct kprobe *p, struct pt_regs *regs)
{
	struct kretprobe *rp = container_of(p, struct kretprobe, kp);
	struct kretprobe_instance *ri;
	struct rethook_node *node;

	/* Nothing to run between taking a node and hooking: one call. */
	if (likely(!rp->entry_handler)) {
		if (unlikely(!rethook_try_hook(rp->rh, regs, kprobe_ftrace(p))))
			kprobe_count_miss(&rp->nmissed);
		return 0;
	}
	/* Nor does the entry_handler run where the return cannot be hooked. */
	node = rethook_try_get(rp->rh, regs);
	if (!node) {
		/* Why: rethook_nmissed() of rp->rh. */
		kprobe_count_miss(&rp->nmissed);
		return 0;
	}
	ri = container_of(node, struct kretprobe_instance, node);
	if (rp->entry_handler(ri, regs))
		rethook_recycle(node);
	else if (unlikely(!rethook_hook(node, regs, kprobe_ftrace(p))))
		kprobe_count_miss(&rp->nmissed);
	return 0;
}
NOKPROBE_SYMBOL(kretprobe_entry);

/*
 * Return side, called by rethook.  The kretprobe is the running probe
 * while its handler runs, so probes hit inside count as missed.
 *
 * Of several return hooks on one frame, only the first one hooked saw
 * the real return address; the others saved the trampoline's.  rethook
 * hands every handler the real one in @ret_addr, so put it in the
 * instance: get_kretprobe_retaddr() then gives each handler the real
 * caller.  The node is still pending, and the unwinder skips nodes that
 * hold the trampoline, so it finds the same address either way.
 * Context: the rethook trampoline, preemption disabled.
 */
static void kretprobe_return(struct rethook_node *node, void *data,
			     unsigned long ret_addr, struct pt_regs *regs)
{
	struct kretprobe *rp = data;

	WRITE_ONCE(node->ret_addr, ret_addr);
	/* rethook_alloc() was given @rp: never NULL. */
	if (!rp->handler)
		return;
	__this_cpu_write(current_kprobe, &rp->kp);
	kprobe_status_set(get_kprobe_ctlblk(), KPROBE_HIT_ACTIVE);
	rp->handler(container_of(node, struct kretprobe_instance, node), regs);
	__this_cpu_write(current_kprobe, NULL);
}
NOKPROBE_SYMBOL(kretprobe_return);

bool kprobe_is_kretprobe(struct kprobe *p)
{
	return p->pre_handler == kretprobe_entry;
}

/* Functions the arch says must never be return-probed. */
static bool kretprobe_refused(kprobe_opcode_t *addr)
{
	unsigned int i;

	if (!kretprobe_blacklist_size)
		return false;
	for (i = 0; kretprobe_blacklist[i].name; i++) {
		if (kretprobe_blacklist[i].addr == addr)
			return true;
	}
	return false;
}

void __init kretprobe_init(void)
{
	unsigned int i;

	if (!kretprobe_blacklist_size)
		return;
	for (i = 0; kretprobe_blacklist[i].name; i++) {
		kretprobe_blacklist[i].addr =
			kprobe_lookup_name(kretprobe_blacklist[i].name, 0);
		if (!kretprobe_blacklist[i].addr)
			pr_err("kretprobe: cannot find blacklisted symbol '%s'\n",
			       kretprobe_blacklist[i].name);
	}
}

/* Check @rp and give it instances; its kprobe is not registered yet. */
static int kretprobe_setup(struct kretprobe *rp)
{
	kprobe_opcode_t *addr;
	bool entry;
	int ret;

	ret = kprobe_resolve_addr(rp->kp.addr, rp->kp.symbol_name,
				  rp->kp.offset, &addr, &entry);
	if (ret)
		return ret;
	if (!entry)
		return -EINVAL;
	if (rp->kp.addr && WARN_ON_ONCE(kprobe_is_registered(&rp->kp)))
		return -EINVAL;
	if (kretprobe_refused(addr))
		return -EINVAL;
	if (rp->data_size > KRETPROBE_MAX_DATA_SIZE)
		return -E2BIG;

	rp->kp.pre_handler = kretprobe_entry;
	rp->kp.post_handler = NULL;
	if (rp->maxactive <= 0)
		rp->maxactive = max_t(unsigned int, 10, 2 * num_possible_cpus());
	rp->rh = rethook_alloc(rp, kretprobe_return,
			       sizeof(struct kretprobe_instance) + rp->data_size,
			       rp->maxactive);
	if (IS_ERR(rp->rh)) {
		ret = PTR_ERR(rp->rh);
		rp->rh = NULL;
		return ret;
	}
	rp->nmissed = 0;
	return 0;
}

/*
 * Let go of @rp's rethook; it frees itself once the calls still hooked
 * have returned.  No entry handler of @rp may be running.
 */
static void kretprobe_teardown(struct kretprobe *rp)
{
	if (rp->rh)
		rethook_free(rp->rh);
	rp->rh = NULL;
}

/**
 * register_kretprobes() - insert several return probes, all or nothing
 * @rps: the return probes; each needs kp.addr or kp.symbol_name (with
 *	kp.offset resolving to a function entry) and a handler
 * @num: number of probes
 *
 * Contract: as register_kprobes(); the entry probes are armed as one
 * batch, and no handler runs unless all of them registered.
 *
 * Return: 0; -EINVAL if @num <= 0, for a point that is not a function
 * entry, a refused function, a probe already registered or one that is
 * in @rps twice; -E2BIG for
 * data_size above KRETPROBE_MAX_DATA_SIZE; or a register_kprobe() error.
 * Context: process, may sleep.
 */
int register_kretprobes(struct kretprobe **rps, int num)
{
	struct kprobe *one, **kps;
	int i, ret = 0;

	if (num <= 0)
		return -EINVAL;
	kps = KPROBES_OF(rps, num, struct kretprobe, kp, &one);
	if (!kps)
		return -ENOMEM;
	ret = kprobes_check_unique(kps, num);
	for (i = 0; i < num && !ret; i++) {
		ret = kretprobe_setup(rps[i]);
		if (ret)
			break;
	}
	if (!ret)
		ret = kprobes_register_batch(kps, num);
	if (ret) {
		while (i--)
			kretprobe_teardown(rps[i]);
	}
	kprobes_of_free(kps, &one);
	return ret;
}
EXPORT_SYMBOL_GPL(register_kretprobes);

/**
 * register_kretprobe() - insert a return probe
 * @rp: the return probe (see register_kretprobes())
 *
 * Return: see register_kretprobes().
 * Context: process, may sleep.
 */
int register_kretprobe(struct kretprobe *rp)
{
	return register_kretprobes(&rp, 1);
}
EXPORT_SYMBOL_GPL(register_kretprobe);

#if defined(CONFIG_KPROBES_RACE_WINDOW) && IS_ENABLED(CONFIG_KPROBES_CORE_KUNIT_TEST)
void (*kretprobe_unreg_test_hook)(void);
EXPORT_SYMBOL_GPL(kretprobe_unreg_test_hook);

/* KUnit: what happens between taking kretprobes out and stopping them. */
static void kretprobe_unreg_test_point(void)
{
	void (*hook)(void) = READ_ONCE(kretprobe_unreg_test_hook);

	if (hook)
		hook();
}
#else
static inline void kretprobe_unreg_test_point(void) { }
#endif

/**
 * unregister_kretprobes() - remove several return probes
 * @rps: the return probes
 * @num: number of probes
 *
 * Contract: when this returns, neither the entry nor the return
 * handler of any of @rps is running or will run again, with one wait
 * for the batch, as unregister_kprobes().  Functions still in flight
 * return normally.
 * Context: process, may sleep.
 */
void unregister_kretprobes(struct kretprobe **rps, int num)
{
	struct kprobe *one, **kps;
	struct kprobe_unreg u;
	int i;

	if (num <= 0)
		return;
	kps = KPROBES_OF(rps, num, struct kretprobe, kp, &one);
	if (!kps) {
		for (i = 0; i < num; i++)
			unregister_kretprobes(&rps[i], 1);
		return;
	}
	kprobes_unregister_begin(kps, num, &u);
	kretprobe_unreg_test_point();
	/*
	 * Hooked calls that return from now on skip the handler.  An entry
	 * handler that started before the disarm may still be running on
	 * another CPU and read rp->rh (an ftrace-based hit runs with
	 * interrupts on, and a site shared with another probe stays armed),
	 * so the rethook stays in place until kprobes_unregister_finish()
	 * has waited for it.
	 */
	for (i = 0; i < num; i++) {
		if (rps[i]->rh)
			rethook_stop(rps[i]->rh);
	}
	/*
	 * A return that read its handler before the stop may have begun
	 * after kprobes_unregister_begin() noted the grace-period state,
	 * and a grace period that started in between need not wait for
	 * it.  Note the state again: the wait then covers every return
	 * handler that can still run.
	 */
	get_state_synchronize_rcu_full(&u.gp);
	kprobes_unregister_finish(kps, num, &u);
	for (i = 0; i < num; i++)
		kretprobe_teardown(rps[i]);
	kprobes_of_free(kps, &one);
}
EXPORT_SYMBOL_GPL(unregister_kretprobes);

/**
 * unregister_kretprobe() - remove a return probe
 * @rp: the return probe
 *
 * Context: process, may sleep.  See unregister_kretprobes().
 */
void unregister_kretprobe(struct kretprobe *rp)
{
	unregister_kretprobes(&rp, 1);
}
EXPORT_SYMBOL_GPL(unregister_kretprobe);
