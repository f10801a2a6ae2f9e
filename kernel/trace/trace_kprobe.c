// SPDX-License-Identifier: GPL-2.0
/*
 * kprobe events: trace events recorded by kprobes and kretprobes.
 *
 * This is the kprobe front end of the dynamic probe events, in two files
 * whose calls go one way:
 *
 *	tracefs write -> trace_kprobe_cmd.c -> trace_kprobe.c -> core
 *
 * trace_kprobe_cmd.c is the command language (its top shows the syntax):
 * it parses a command, prints a definition back as one, and has the
 * kprobe_events and kprobe_profile files, the dyn_event operations
 * (kev_dyn_ops) and the initcalls.  This file is what a command makes,
 * a struct kprobe_ev: one kprobe (or kretprobe) whose handler writes a
 * record laid out by the fetch-argument engine (trace_probe.c) into the
 * ring buffer and/or perf.  It calls nothing in trace_kprobe_cmd.c: it
 * only marks its dyn_events with kev_dyn_ops (kev_alloc(), kev_of_dyn()).
 * Several kprobe_evs may feed one trace event ("multiprobe"); they are
 * siblings on the probe list of the shared trace_probe_event, and the
 * first of them (the primary) describes the event to the trace core.
 *
 * kev_: a kprobe event (struct kprobe_ev).
 *
 * Life of a kprobe_ev:
 *
 *	kev_alloc():   for a kev_req, which trace_kprobe_cmd.c parsed from
 *	               the head and the probe place; it then parses the
 *	               fetch arguments and sets the format;
 *	kev_install(): join an existing event or register a new one,
 *	               register the probe with the kprobe core (a probe on
 *	               a module that is not loaded stays unregistered),
 *	               publish it on the dyn_event list (and kev_mod_list);
 *	kev_release(): the reverse, for "-:EVENT" and for truncation.
 *
 * Probes on module symbols are also on kev_mod_list, so that the module
 * notifier only looks at those when a module comes in.
 *
 * Locking:
 *  - event_mutex serialises everything but the hit path: the dyn_event
 *    list, kev_mod_list, ->registered, and enabling/disabling of events
 *    (the trace core calls kev_reg() with it held).
 *  - Command parsing runs under dyn_event_ops_mutex as well (taken by
 *    dyn_event_create()); it protects the error_log context.
 *  - The hit path (kev_hit_entry(), kev_hit_return(), kev_save_entry())
 *    runs in kprobe handler context: preemption (and on x86 interrupts)
 *    disabled, possibly interrupting NMI-like contexts.  It takes no
 *    lock: it reads the event flags with acquire semantics and walks the
 *    event-file list under RCU.
 *  - Probes created for the perf "kprobe" PMU (create_local_trace_kprobe())
 *    are never published on the dyn_event list; perf owns them.
 */
#define pr_fmt(fmt)	"trace_kprobe: " fmt

#include "trace_kprobe_internal.h"
#include "trace_probe_tmpl.h"
#include "trace_probe_kernel.h"
#include "trace_probe_regs.h"

/* Probes whose symbol names a module; protected by event_mutex. */
static LIST_HEAD(kev_mod_list);

/* The primary kprobe_ev of @call, or NULL if @call is not a kprobe event. */
struct kprobe_ev *kev_of_call(struct trace_event_call *call)
{
	struct trace_probe *tp;

	if (!call || call->class->reg != kev_reg)
		return NULL;
	tp = trace_probe_primary_from_call(call);
	return tp ? container_of(tp, struct kprobe_ev, tp) : NULL;
}

/* Find a published kprobe_ev by event and group name.  event_mutex held. */
struct kprobe_ev *kev_find(const char *event, const char *group)
{
	struct dyn_event *pos;
	struct kprobe_ev *kev;

	for_each_dyn_event(pos) {
		kev = kev_of_dyn(pos);
		if (kev && !strcmp(trace_probe_name(&kev->tp), event) &&
		    !strcmp(trace_probe_group_name(&kev->tp), group))
			return kev;
	}
	return NULL;
}

unsigned long kev_hit_count(struct kprobe_ev *kev)
{
	unsigned long sum = 0;
	unsigned int cpu;

	for_each_possible_cpu(cpu)
		sum += per_cpu(*kev->hits, cpu);
	return sum;
}

unsigned long kev_miss_count(struct kprobe_ev *kev)
{
	unsigned long n = kev->krp.kp.nmissed;

	if (kev->is_return)
		n += kev->krp.nmissed;
	return n;
}

/*
 * The probed address as the symbol table gives it (no arch adjustment
 * such as skipping an ENDBR), or 0 if the symbol is unknown.
 */
static unsigned long kev_target_addr(struct kprobe_ev *kev)
{
	unsigned long addr;

	if (!kev->sym)
		return (unsigned long)kev->place;
	addr = kallsyms_lookup_name(kev->sym);
	return addr ? addr + kev->krp.kp.offset : 0;
}

static bool kev_on_func_entry(struct kprobe_ev *kev)
{
	struct kprobe *kp = &kev->krp.kp;

	if (kp->addr)
		return !kprobe_on_func_entry(kp->addr, NULL, 0);
	return !kprobe_on_func_entry(NULL, kp->symbol_name, kp->offset);
}

static bool kev_error_injectable(struct kprobe_ev *kev)
{
	return within_error_injection_list(kev_target_addr(kev));
}

/*
 * Whether every probe of the kprobe event @call passes @ok: a BPF
 * program attached to the event runs at a hit of any of them.
 * Context: event_mutex held (the event's probe list changes under it).
 */
static bool kev_every_probe(struct trace_event_call *call,
			    bool (*ok)(struct kprobe_ev *kev))
{
	struct kprobe_ev *kev = kev_of_call(call);
	struct trace_probe *tp;

	lockdep_assert_held(&event_mutex);
	if (!kev)
		return false;
	list_for_each_entry(tp, trace_probe_probe_list(&kev->tp), list) {
		if (!ok(container_of(tp, struct kprobe_ev, tp)))
			return false;
	}
	return true;
}

/**
 * trace_kprobe_on_func_entry - is a kprobe event on function entries?
 * @call: the event; any trace event is accepted
 *
 * Used by BPF to decide whether a program may override the return value.
 * Context: process; takes event_mutex.
 *
 * Return: true if @call is a kprobe event whose every probe sits on the
 * entry of a function.
 */
bool trace_kprobe_on_func_entry(struct trace_event_call *call)
{
	guard(mutex)(&event_mutex);
	return kev_every_probe(call, kev_on_func_entry);
}

/**
 * trace_kprobe_error_injectable - may a kprobe event inject errors?
 * @call: the event; any trace event is accepted
 *
 * Asked by BPF for a program that overrides return values, before it is
 * attached.  When the answer is yes, a probe joins the event from then
 * on only if it is on an error-injectable function entry too
 * (kev_install()): the program runs at every probe's hits.  The answer
 * and the mark are one event_mutex section, so no probe joins between
 * them.
 * Context: process; takes event_mutex.
 *
 * Return: true if @call is a kprobe event whose every probe is on a
 * function listed for error injection.
 */
bool trace_kprobe_error_injectable(struct trace_event_call *call)
{
	guard(mutex)(&event_mutex);
	if (!kev_every_probe(call, kev_error_injectable))
		return false;
	trace_probe_set_flag(&kev_of_call(call)->tp, TP_FLAG_OVERRIDE);
	return true;
}

/* ---- symbols and modules ---- */

struct kev_symcount {
	const char	*name;
	unsigned int	n;
};

/* kallsyms iterators stop at a non-zero return: stop at the second hit */
static int kev_count_core(void *data, unsigned long addr)
{
	struct kev_symcount *c = data;

	return ++c->n > 1;
}

static int kev_count_mod(void *data, const char *name, unsigned long addr)
{
	struct kev_symcount *c = data;

	if (strcmp(name, c->name))
		return 0;
	return ++c->n > 1;
}

/*
 * Is @name one symbol?  In module @modname, or (@modname NULL) in the
 * kernel and all modules together.
 * Return: 0 if unique, -EADDRNOTAVAIL if not, -ENOENT if absent.
 * Context: process, may sleep (takes module_mutex).
 */
static int kev_symbol_unique(const char *modname, const char *name)
{
	struct kev_symcount c = { .name = name };

	if (!modname)
		kallsyms_on_each_match_symbol(kev_count_core, name, &c);
	if (c.n < 2)
		module_kallsyms_on_each_symbol(modname, kev_count_mod, &c);

	if (c.n > 1)
		return -EADDRNOTAVAIL;	/* an address tells them apart */
	return c.n ? 0 : -ENOENT;
}

#ifdef CONFIG_MODULES
/* Copy "MOD" of "MOD:SYM" into @buf; false if it cannot be a module name. */
static bool kev_modname(const char *sym, int modlen, char *buf)
{
	if (modlen < 0 || modlen >= MODULE_NAME_LEN)
		return false;
	memcpy(buf, sym, modlen);
	buf[modlen] = '\0';
	return true;
}

static bool kev_module_loaded(struct kprobe_ev *kev)
{
	char name[MODULE_NAME_LEN];
	bool found;

	if (!kev_modname(kev->sym, kev->modlen, name))
		return false;
	rcu_read_lock_sched();
	found = find_module(name);
	rcu_read_unlock_sched();
	return found;
}

/*
 * Check that "[MOD:]SYM" @sym can be probed unambiguously.  A symbol of a
 * module that is not loaded passes: the module notifier checks it again
 * when the module comes.
 */
int kev_check_symbol(const char *sym)
{
	const char *colon = strchr(sym, ':');
	char name[MODULE_NAME_LEN];
	struct module *mod;
	int ret;

	if (!colon)
		return kev_symbol_unique(NULL, sym);
	if (!kev_modname(sym, colon - sym, name))
		return 0;

	rcu_read_lock_sched();
	mod = find_module(name);
	if (mod && !try_module_get(mod))
		mod = NULL;		/* going away */
	rcu_read_unlock_sched();
	if (!mod)
		return 0;

	ret = kev_symbol_unique(name, colon + 1);
	module_put(mod);
	return ret;
}
#else
static bool kev_module_loaded(struct kprobe_ev *kev)
{
	return false;
}

int kev_check_symbol(const char *sym)
{
	return strchr(sym, ':') ? 0 : kev_symbol_unique(NULL, sym);
}
#endif /* CONFIG_MODULES */

#if defined(CONFIG_DYNAMIC_FTRACE) && !defined(CONFIG_KPROBE_EVENTS_ON_NOTRACE)
/* Is the function containing @addr invisible to ftrace (notrace)? */
static bool kev_func_is_notrace(unsigned long addr)
{
	unsigned long size, off, start;

	if (!addr || !kallsyms_lookup_size_offset(addr, &size, &off))
		return false;
	start = addr - off;
	/* no ftrace site in [start, start + size), the end being inclusive */
	return ftrace_location_range(start, start + size - 1) == 0;
}

static bool kev_on_notrace(struct kprobe_ev *kev)
{
	unsigned long addr = kev_target_addr(kev);
	char name[KSYM_NAME_LEN];
	char *dot;

	if (!kev_func_is_notrace(addr))
		return false;
	/*
	 * A compiler clone ("foo.isra.0", "foo.constprop.0") is never
	 * traced itself; it may be probed when its origin may be.
	 */
	if (lookup_symbol_name(addr, name))
		return true;
	dot = strchr(name, '.');
	if (!dot)
		return true;
	*dot = '\0';
	addr = (unsigned long)kprobe_lookup_name(name, 0);
	return !addr || kev_func_is_notrace(addr);
}
#else
static bool kev_on_notrace(struct kprobe_ev *kev)
{
	return false;
}
#endif

/* ---- allocation, registration ---- */

static int kev_hit_entry(struct kprobe *kp, struct pt_regs *regs);
static int kev_hit_return(struct kretprobe_instance *ri, struct pt_regs *regs);
static int kev_save_entry(struct kretprobe_instance *ri, struct pt_regs *regs);

void kev_free(struct kprobe_ev *kev)
{
	if (!kev)
		return;
	trace_probe_cleanup(&kev->tp);
	kfree(kev->sym);
	free_percpu(kev->hits);
	kfree(kev);
}

/* Allocate a kprobe_ev for @req with room for @nargs arguments; takes @req->sym. */
struct kprobe_ev *kev_alloc(struct kev_req *req, int nargs)
{
	struct kprobe_ev *kev;
	struct kprobe *kp;
	int ret;

	kev = kzalloc(struct_size(kev, tp.args, nargs), GFP_KERNEL);
	if (!kev)
		return ERR_PTR(-ENOMEM);
	INIT_LIST_HEAD(&kev->mod_node);
	kev->modlen = -1;
	kev->is_return = req->is_return;
	kp = &kev->krp.kp;

	kev->hits = alloc_percpu(unsigned long);
	if (!kev->hits) {
		ret = -ENOMEM;
		goto fail;
	}

	if (req->sym) {
		const char *colon = strchr(req->sym, ':');

		kev->sym = req->sym;
		req->sym = NULL;
		if (colon)
			kev->modlen = colon - kev->sym;
		kp->symbol_name = kev->sym;
		kp->offset = req->offs;
	} else {
		kev->place = req->addr;
		kp->addr = req->addr;
	}

	if (kev->is_return) {
		kev->krp.handler = kev_hit_return;
		kev->krp.maxactive = req->maxactive;
	} else {
		kp->pre_handler = kev_hit_entry;
	}

	ret = trace_probe_init(&kev->tp, req->event, req->group, false, nargs);
	if (!ret) {
		dyn_event_init(&kev->dev, &kev_dyn_ops);
		return kev;
	}
fail:
	kev_free(kev);
	return ERR_PTR(ret);
}

/*
 * Register @kev's probe with the kprobe core, enabled if its event is.
 * Context: event_mutex held (or a local probe owned by the caller).
 */
static int kev_register(struct kprobe_ev *kev)
{
	struct kprobe *kp = &kev->krp.kp;
	struct probe_arg *arg, *end = kev->tp.args + kev->tp.nr_args;
	int ret = security_locked_down(LOCKDOWN_KPROBES);

	if (ret)
		return ret;
	if (kev->registered)
		return -EINVAL;
	if (kev_on_notrace(kev)) {
		pr_warn("Could not probe notrace function %ps\n",
			(void *)kev_target_addr(kev));
		return -EINVAL;
	}

	/* @SYM arguments are resolved now: the module may be new */
	for (arg = kev->tp.args; arg < end && !ret; arg++)
		ret = traceprobe_update_arg(arg);
	if (ret)
		return ret;

	kp->flags &= ~KPROBE_FLAG_DISABLED;
	if (!trace_probe_is_enabled(&kev->tp))
		kp->flags |= KPROBE_FLAG_DISABLED;

	if (kev->is_return)
		ret = register_kretprobe(&kev->krp);
	else
		ret = register_kprobe(kp);

	if (!ret)
		kev->registered = true;
	else if (kev->sym)
		kp->addr = NULL;	/* resolve the symbol again next time */
	return ret;
}

/* Undo kev_register().  Context: as kev_register(); may sleep. */
static void kev_unregister(struct kprobe_ev *kev)
{
	if (!kev->registered)
		return;
	if (kev->is_return)
		unregister_kretprobe(&kev->krp);
	else
		unregister_kprobe(&kev->krp.kp);
	kev->registered = false;
	if (kev->sym)
		kev->krp.kp.addr = NULL;
}

/*
 * Enable (@on) or disable the probes of every sibling of @tp.  Unregistered
 * probes are skipped, and so are gone ones when enabling.  If enabling
 * one fails, those enabled before it are disabled again.
 * Context: event_mutex held.
 */
static int kev_switch_all(struct trace_probe *tp, bool on)
{
	struct kprobe_ev *kev, *done;
	int ret;

	list_for_each_entry(kev, trace_probe_probe_list(tp), tp.list) {
		if (!kev->registered)
			continue;
		if (!on) {
			disable_kprobe(&kev->krp.kp);
			continue;
		}
		if (kprobe_gone(&kev->krp.kp))
			continue;
		ret = enable_kprobe(&kev->krp.kp);
		if (ret)
			goto undo;
	}
	return 0;
undo:
	list_for_each_entry(done, trace_probe_probe_list(tp), tp.list) {
		if (done == kev)
			break;
		if (done->registered)
			disable_kprobe(&done->krp.kp);
	}
	return ret;
}

/*
 * Start recording @call into @file, or into perf if @file is NULL.
 * Context: event_mutex held.
 */
int kev_event_enable(struct trace_event_call *call,
		     struct trace_event_file *file)
{
	struct trace_probe *tp = trace_probe_primary_from_call(call);
	bool was_on;
	int ret = 0;

	if (WARN_ON_ONCE(!tp))
		return -ENODEV;

	/* the probes are armed already if another user enabled the event */
	was_on = trace_probe_is_enabled(tp);
	if (file)
		ret = trace_probe_add_file(tp, file);
	else
		trace_probe_set_flag(tp, TP_FLAG_PROFILE);
	if (ret || was_on)
		return ret;

	ret = kev_switch_all(tp, true);
	if (ret && !file)
		trace_probe_clear_flag(tp, TP_FLAG_PROFILE);
	else if (ret)
		trace_probe_remove_file(tp, file);
	return ret;
}

/*
 * Stop recording @call into @file, or into perf if @file is NULL.
 * Context: event_mutex held.
 */
int kev_event_disable(struct trace_event_call *call,
		      struct trace_event_file *file)
{
	struct trace_probe *tp = trace_probe_primary_from_call(call);

	if (WARN_ON_ONCE(!tp))
		return -ENODEV;

	if (file) {
		if (!trace_probe_get_file_link(tp, file))
			return -ENOENT;
		if (trace_probe_has_single_file(tp))
			trace_probe_clear_flag(tp, TP_FLAG_TRACE);
	} else {
		trace_probe_clear_flag(tp, TP_FLAG_PROFILE);
	}

	if (!trace_probe_is_enabled(tp))
		kev_switch_all(tp, false);

	/*
	 * A hit may still be using @file: the event's deletion waits for
	 * it (trace_probe_unregister_event_call()); for perf,
	 * perf_trace_event_unreg() waits instead.
	 */
	if (file)
		trace_probe_remove_file(tp, file);
	return 0;
}

/*
 * Is there a sibling on @to's event at the same place with the same
 * arguments?  trace_probe_compare_arg_type() already checked that the
 * argument names and types agree.
 */
static bool kev_duplicate(struct kprobe_ev *to, struct kprobe_ev *kev)
{
	struct kprobe_ev *sib;
	int i;

	list_for_each_entry(sib, trace_probe_probe_list(&to->tp), tp.list) {
		if (!sib->sym != !kev->sym)
			continue;
		if (!kev->sym && sib->place != kev->place)
			continue;
		if (kev->sym && (strcmp(sib->sym, kev->sym) ||
				 sib->krp.kp.offset != kev->krp.kp.offset))
			continue;
		for (i = 0; i < kev->tp.nr_args; i++)
			if (strcmp(sib->tp.args[i].comm, kev->tp.args[i].comm))
				break;
		if (i == kev->tp.nr_args)
			return true;
	}
	return false;
}

static void kev_setup_call(struct kprobe_ev *kev);

/*
 * Publish @kev: add it to the event of its name (creating the event if
 * needed), register its probe with the kprobe core and put it on the
 * dyn_event list.
 * Context: process; takes event_mutex.
 */
int kev_install(struct kprobe_ev *kev)
{
	struct trace_probe *tp = &kev->tp;
	struct kprobe_ev *old;
	int ret;

	/* A return probe that uses entry values saves them at the entry. */
	if (kev->is_return && tp->entry_arg) {
		kev->krp.entry_handler = kev_save_entry;
		kev->krp.data_size = traceprobe_get_entry_data_size(tp);
	}

	guard(mutex)(&event_mutex);

	old = kev_find(trace_probe_name(tp), trace_probe_group_name(tp));
	if (old) {
		trace_probe_log_set_index(0);
		if (old->is_return != kev->is_return)
			return trace_probe_fail(0, DIFF_PROBE_TYPE, -EEXIST);
		ret = trace_probe_compare_arg_type(tp, &old->tp);
		if (ret) {
			/* ret is the 1-based argument */
			trace_probe_log_set_arg(ret - 1);
			trace_probe_log_err(0, DIFF_ARG_TYPE);
			return -EEXIST;
		}
		if (kev_duplicate(old, kev))
			return trace_probe_fail(0, SAME_PROBE, -EEXIST);
		if (trace_probe_test_flag(&old->tp, TP_FLAG_OVERRIDE) &&
		    !(kev_on_func_entry(kev) && kev_error_injectable(kev))) {
			trace_probe_log_set_index(1);
			return trace_probe_fail(0, NOT_INJECTABLE, -EINVAL);
		}
		ret = trace_probe_append(tp, &old->tp);
		if (ret)
			return ret;
	} else {
		kev_setup_call(kev);
		ret = trace_probe_register_event_call(tp);
		if (ret) {
			if (ret == -EEXIST) {
				trace_probe_log_set_index(0);
				trace_probe_log_err(0, EVENT_EXIST);
			} else {
				pr_warn("Failed to register probe event(%d)\n", ret);
			}
			return ret;
		}
	}

	ret = kev_register(kev);
	if (ret == -ENOENT && kev->modlen >= 0 && !kev_module_loaded(kev)) {
		pr_warn("This probe might be able to register after target module is loaded. Continue.\n");
		ret = 0;
	}
	if (ret) {
		if (old)
			trace_probe_unlink(tp);
		else
			trace_probe_unregister_event_call(tp);
		return ret;
	}

	dyn_event_add(&kev->dev, trace_probe_event_call(tp));
	if (kev->modlen >= 0)
		list_add_tail(&kev->mod_node, &kev_mod_list);
	return 0;
}

/*
 * dyn_event .free: remove and free one kprobe_ev.  The event goes with
 * its last probe, which is refused while the event is enabled or in use.
 * No probe of an event in use (perf, BPF, an eprobe or a trigger holds a
 * reference) goes either: BPF asks a perf event about the event's first
 * probe (bpf_get_kprobe_info(), without event_mutex) and copies its
 * symbol out after, so that probe must outlive every such user.
 * Context: event_mutex held.
 */
int kev_release(struct dyn_event *ev)
{
	struct kprobe_ev *kev = kev_of_dyn(ev);
	struct trace_probe *tp = &kev->tp;
	bool last = !trace_probe_has_sibling(tp);

	if (trace_event_dyn_busy(trace_probe_event_call(tp)) ||
	    (last && trace_probe_is_enabled(tp)))
		return -EBUSY;
	/* fails while ftrace or perf still uses the event */
	if (last && trace_probe_unregister_event_call(tp))
		return -EBUSY;

	kev_unregister(kev);
	dyn_event_remove(&kev->dev);
	list_del_init(&kev->mod_node);
	trace_probe_unlink(tp);
	kev_free(kev);
	return 0;
}

bool kev_busy(struct dyn_event *ev)
{
	return trace_probe_is_enabled(&kev_of_dyn(ev)->tp);
}

/* ---- module notifier ---- */

#ifdef CONFIG_MODULES
/*
 * A module is coming: (re)register the probes on its symbols.  Runs after
 * the kprobe core (priority 0) and jump labels (priority 1) have seen the
 * module, so its kprobe blacklist and jump sites are known when probing.
 * Context: process, module notifier chain; takes event_mutex.
 */
static int kev_module_event(struct notifier_block *nb, unsigned long state,
			    void *data)
{
	struct module *mod = data;
	struct kprobe_ev *kev;
	int len, ret;

	if (state != MODULE_STATE_COMING)
		return NOTIFY_DONE;

	len = strlen(module_name(mod));
	guard(mutex)(&event_mutex);
	list_for_each_entry(kev, &kev_mod_list, mod_node) {
		if (kev->modlen != len || memcmp(kev->sym, module_name(mod), len))
			continue;
		/* a probe registered on an earlier module load is gone */
		kev_unregister(kev);
		ret = kev_symbol_unique(module_name(mod), kev->sym + len + 1);
		if (!ret)
			ret = kev_register(kev);
		if (ret)
			pr_warn("Failed to re-register probe %s on %s: %d\n",
				trace_probe_name(&kev->tp), module_name(mod),
				ret);
	}
	return NOTIFY_DONE;
}

static struct notifier_block kev_module_nb = {
	.notifier_call	= kev_module_event,
	.priority	= -1,
};

int __init kev_module_notifier_init(void)
{
	return register_module_notifier(&kev_module_nb);
}
#endif /* CONFIG_MODULES */

/* ---- the hit path (the fetch hook: trace_probe_regs.h) ---- */

static nokprobe_inline int kev_hit(struct kprobe_ev *kev,
				   struct trace_probe_hit *h)
{
	raw_cpu_inc(*kev->hits);
	return trace_probe_record(&kev->tp, h, true);
}

/* kprobe pre_handler.  Context: kprobe handler (see top of file). */
static int kev_hit_entry(struct kprobe *kp, struct pt_regs *regs)
{
	struct kprobe_ev *kev = container_of(kp, struct kprobe_ev, krp.kp);
	struct trace_probe_hit h = {
		.regs	= regs,
		.func	= (unsigned long)kp->addr,
		.dsize	= -1,
	};

	return kev_hit(kev, &h);
}
NOKPROBE_SYMBOL(kev_hit_entry);

/* kretprobe handler.  Context: kprobe handler (see top of file). */
static int kev_hit_return(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct kretprobe *rp = get_kretprobe(ri);
	struct kprobe_ev *kev;
	struct trace_probe_hit h = {
		.regs		= regs,
		.edata		= ri->data,
		.ret_ip		= get_kretprobe_retaddr(ri),
		.dsize		= -1,
		.is_return	= true,
	};

	/* the kretprobe may be going away on another CPU */
	if (unlikely(!rp))
		return 0;
	kev = container_of(rp, struct kprobe_ev, krp);
	h.func = (unsigned long)rp->kp.addr;
	kev_hit(kev, &h);
	return 0;
}
NOKPROBE_SYMBOL(kev_hit_return);

/*
 * kretprobe entry_handler, set only for return probes that use entry
 * values ($argN etc.): save them in the instance for kev_hit_return().
 * Context: kprobe handler (see top of file).
 */
static int kev_save_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct kretprobe *rp = get_kretprobe(ri);
	struct trace_probe *tp;

	if (unlikely(!rp))
		return -ENOENT;	/* no return hook for a dying probe */
	tp = &container_of(rp, struct kprobe_ev, krp)->tp;
	store_trace_entry_data(ri->data, tp, regs);
	return 0;
}
NOKPROBE_SYMBOL(kev_save_entry);

/* ---- the trace event ---- */

static bool kev_is_return(struct trace_probe *tp)
{
	return container_of(tp, struct kprobe_ev, tp)->is_return;
}

static enum print_line_t kev_print(struct trace_iterator *iter, int flags,
				   struct trace_event *event)
{
	struct trace_event_call *call =
		container_of(event, struct trace_event_call, event);
	struct trace_probe *tp = trace_probe_primary_from_call(call);

	if (WARN_ON_ONCE(!tp))
		return trace_handle_return(&iter->seq);
	return trace_probe_print_hit(iter, flags, tp, kev_is_return(tp));
}

static int kev_define_fields(struct trace_event_call *event_call)
{
	struct trace_probe *tp = trace_probe_primary_from_call(event_call);

	if (WARN_ON_ONCE(!tp))
		return -ENOENT;
	return trace_probe_define_hit_fields(event_call, tp, kev_is_return(tp));
}

static struct trace_event_functions kev_event_funcs = {
	.trace	= kev_print,
};

static struct trace_event_fields kev_event_fields[] = {
	{ .type = TRACE_FUNCTION_TYPE, .define_fields = kev_define_fields },
	{}
};

/*
 * trace_event_class .reg: the trace core turns recording into a ring
 * buffer (@data is the file) or perf on and off.
 * Context: event_mutex held.  (The boot-time selftest calls the enable
 * and disable functions directly, alone in the system.)
 */
int kev_reg(struct trace_event_call *call, enum trace_reg type, void *data)
{
	struct trace_event_file *file = data;
	bool on;

	switch (type) {
	case TRACE_REG_REGISTER:
	case TRACE_REG_UNREGISTER:
		on = type == TRACE_REG_REGISTER;
		break;
#ifdef CONFIG_PERF_EVENTS
	case TRACE_REG_PERF_REGISTER:
	case TRACE_REG_PERF_UNREGISTER:
		on = type == TRACE_REG_PERF_REGISTER;
		file = NULL;		/* perf */
		break;
#endif
	default:
		return 0;		/* perf open/close/add/del */
	}
	return on ? kev_event_enable(call, file) : kev_event_disable(call, file);
}

static void kev_setup_call(struct kprobe_ev *kev)
{
	struct trace_event_call *call = trace_probe_event_call(&kev->tp);

	call->event.funcs = &kev_event_funcs;
	call->class->fields_array = kev_event_fields;
	call->class->reg = kev_reg;
	call->flags = TRACE_EVENT_FL_KPROBE;
}

/* ---- perf and BPF ---- */

#ifdef CONFIG_PERF_EVENTS
/**
 * bpf_get_kprobe_info - describe the kprobe behind a perf event for BPF
 * @event: a perf event on a kprobe event (TRACE_EVENT_FL_KPROBE)
 * @fd_type: set to BPF_FD_TYPE_KPROBE or BPF_FD_TYPE_KRETPROBE
 * @symbol: set to the probed "[MOD:]SYM", or NULL for an address probe
 * @probe_offset: set to the offset from @symbol
 * @probe_addr: set to the probed address if the caller may see kernel
 *	addresses, else 0
 * @missed: if not NULL, set to the missed-hit count
 * @perf_type_tracepoint: @event was opened as a tracepoint on a kprobe
 *	event from kprobe_events, rather than on the kprobe PMU
 *
 * The perf event holds a reference on its trace event, and no probe of
 * an event with references is deleted (kev_release()): the first probe,
 * and @symbol, stay while @event does.
 * Context: process.
 *
 * Return: 0, or -EINVAL if @event is not on a kprobe event.
 */
int bpf_get_kprobe_info(const struct perf_event *event, u32 *fd_type,
			const char **symbol, u64 *probe_offset,
			u64 *probe_addr, unsigned long *missed,
			bool perf_type_tracepoint)
{
	struct kprobe_ev *kev = kev_of_call(event->tp_event);

	if (!kev)
		return -EINVAL;

	*fd_type = kev->is_return ? BPF_FD_TYPE_KRETPROBE : BPF_FD_TYPE_KPROBE;
	*probe_offset = kev->krp.kp.offset;
	*probe_addr = kallsyms_show_value(current_cred()) ?
		      (unsigned long)kev->krp.kp.addr : 0;
	*symbol = kev->sym;
	if (missed)
		*missed = kev_miss_count(kev);
	return 0;
}

/**
 * create_local_trace_kprobe - make a kprobe event for the perf kprobe PMU
 * @func: "[MOD:]SYM" to probe, or NULL to probe @addr
 * @addr: the address to probe when @func is NULL
 * @offs: offset from @func (ignored with @addr)
 * @is_return: make a kretprobe
 *
 * The event is not published in tracefs or on the dyn_event list and
 * has no arguments; the caller owns it and frees it with
 * destroy_local_trace_kprobe().  It is registered disabled.
 * Context: process, may sleep; does not need event_mutex.
 *
 * Return: the event's trace_event_call, or an ERR_PTR(): -EADDRNOTAVAIL
 * for an ambiguous @func, -ENOENT for an unknown one, a registration
 * error, or -ENOMEM.
 */
struct trace_event_call *
create_local_trace_kprobe(char *func, void *addr, unsigned long offs,
			  bool is_return)
{
	struct kev_req req = {
		.event		= func ? func : "DUMMY_EVENT",
		.group		= KPROBE_EVENT_SYSTEM,
		.addr		= addr,
		.offs		= offs,
		.is_return	= is_return,
	};
	struct kprobe_ev *kev;
	int ret;

	if (func) {
		ret = kev_check_symbol(func);
		if (ret)
			return ERR_PTR(ret);
		req.sym = kstrdup(func, GFP_KERNEL);
		if (!req.sym)
			return ERR_PTR(-ENOMEM);
	}

	/* Never looked up by name: the name needs not be unique. */
	kev = kev_alloc(&req, 0);
	kfree(req.sym);
	if (IS_ERR(kev)) {
		pr_info("Failed to allocate trace_probe.(%d)\n",
			(int)PTR_ERR(kev));
		return ERR_CAST(kev);
	}
	kev_setup_call(kev);

	if (traceprobe_set_print_fmt(&kev->tp, is_return ? PROBE_PRINT_RETURN :
				     PROBE_PRINT_NORMAL) < 0)
		ret = -ENOMEM;
	else
		ret = kev_register(kev);
	if (!ret)
		return trace_probe_event_call(&kev->tp);
	kev_free(kev);
	return ERR_PTR(ret);
}

/**
 * destroy_local_trace_kprobe - free an event of create_local_trace_kprobe()
 * @event_call: the event; perf must have stopped using it
 *
 * Context: process, may sleep.
 */
void destroy_local_trace_kprobe(struct trace_event_call *event_call)
{
	struct kprobe_ev *kev = kev_of_call(event_call);

	if (WARN_ON_ONCE(!kev))
		return;
	if (WARN_ON(trace_probe_is_enabled(&kev->tp)))
		return;
	kev_unregister(kev);
	kev_free(kev);
}
#endif /* CONFIG_PERF_EVENTS */
