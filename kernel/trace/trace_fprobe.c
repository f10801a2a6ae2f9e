// SPDX-License-Identifier: GPL-2.0
/*
 * Function-entry/exit (fprobe) and tracepoint (tprobe) dynamic events.
 *
 * Commands written to tracefs "dynamic_events":
 *
 *   f[:[GRP/][EVENT]] SYM [FETCHARGS]                 function entry
 *   f[MAXACT][:[GRP/][EVENT]] SYM%return [FETCHARGS]  function exit
 *   t[:[GRP/][EVENT]] TRACEPOINT [FETCHARGS]          tracepoint
 *   -:[GRP/]EVENT                                     delete
 *
 * Every command becomes one struct fprobe_ev, the "probe".  A probe
 * owns one struct fprobe; several probes with the same GRP/EVENT share
 * one trace event (siblings, see trace_probe_append()).
 *
 * fev_: an fprobe or tprobe event (struct fprobe_ev).
 *
 * A function probe hands SYM (an ftrace filter string) to register_fprobe().
 *
 * A tracepoint probe cannot hook the tracepoint with a C callback of the
 * right prototype, so it goes through the tracepoint's stub: the stub
 * function (an empty __probestub_TP(void *data, proto...)) is connected to
 * the tracepoint as an ordinary tracepoint callback, and an fprobe on the
 * stub's entry sees the tracepoint arguments in its pt_regs ($arg1 is the
 * first argument after the hidden @data).  The stub is connected once per
 * tracepoint, however many probes use it: it is connected when the first
 * registered probe arrives and disconnected when the last one leaves.
 *
 * A probe is registered (its fprobe registered, a tprobe's stub connected)
 * only while its event is enabled, for a trace instance or for perf: a
 * defined event that nobody records costs its functions nothing, not even
 * the ftrace call of a disabled fprobe.  Definition only checks that the
 * target exists; enabling registers every probe of the event and fails if
 * one cannot be registered; disabling the last user unregisters them.
 *
 * A tracepoint probe is also in one of two states:
 *
 *   bound    ->tpoint points to the tracepoint: registered while enabled;
 *   waiting  ->tpoint is NULL: the tracepoint is in a module that is not
 *            loaded (yet, or any more).  Nothing is registered.
 *
 * The tracepoint module notifier moves probes between the two states: a
 * module going away unbinds every probe bound to one of its tracepoints
 * (which then waits for it), a module coming binds every waiting probe
 * whose tracepoint it carries and registers it if its event is enabled.
 * Whether the event is enabled is kept on the trace_probe flags and does
 * not change with the module: a probe that is enabled while it waits
 * starts tracing as soon as it is bound.
 *
 * Locking: every change to the probes (create, delete, enable, disable,
 * bind, unbind) is made under event_mutex; creation also runs under
 * dyn_event_ops_mutex (which protects the error log).  The module notifier
 * is called with tracepoint_module_list_mutex held and takes event_mutex,
 * so creation must look tracepoints up (which takes the tracepoint module
 * list mutex) before taking event_mutex, never under it.
 *
 * The hit path (fev_on_entry(), fev_on_exit()) runs in the fprobe's
 * context: any context ftrace traces, including NMI, with preemption
 * disabled on entry; it takes no locks and reads the list of trace files
 * under RCU.
 */
#define pr_fmt(fmt)	"trace_fprobe: " fmt

#include <linux/fprobe.h>
#include <linux/ftrace.h>
#include <linux/glob.h>
#include <linux/kallsyms.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/notifier.h>
#include <linux/rculist.h>
#include <linux/security.h>
#include <linux/tracepoint.h>
#include <linux/uaccess.h>

#include "trace_dynevent.h"
#include "trace_probe.h"
#include "trace_probe_kernel.h"
#include "trace_probe_tmpl.h"
#include "trace_probe_regs.h"

#define FPROBE_DEFAULT_GROUP	"fprobes"
#define TPROBE_DEFAULT_GROUP	"tracepoints"
#define FEV_SUBSYSTEM		"trace_fprobe"

/* Upper bound of the MAXACT prefix of an exit probe. */
#define FEV_MAXACTIVE_LIMIT	4096

enum fev_kind {
	FEV_FENTRY,		/* f SYM */
	FEV_FEXIT,		/* f SYM%return */
	FEV_TPOINT,		/* t TRACEPOINT */
};

/**
 * struct fprobe_ev - one fprobe/tprobe command
 * @devent:	link on the dynamic event list
 * @fp:		the fprobe; reinitialised before each registration
 * @symbol:	function filter (fprobe) or tracepoint name (tprobe)
 * @kind:	entry, exit or tracepoint probe
 * @maxactive:	MAXACT of an exit probe, 0 for the fprobe default
 * @registered:	@fp is registered (only while the event is enabled)
 * @tpoint:	bound tracepoint of a tprobe, NULL while it waits for it
 * @tpmod:	module that owns @tpoint, NULL for a built-in tracepoint
 * @tp:		the trace_probe (arguments and event); must be last
 *
 * @registered, @tpoint and @tpmod change only under event_mutex.
 */
struct fprobe_ev {
	struct dyn_event	devent;
	struct fprobe		fp;
	char			*symbol;
	enum fev_kind		kind;
	int			maxactive;
	bool			registered;
	struct tracepoint	*tpoint;
	struct module		*tpmod;
	struct trace_probe	tp;
};

/*
 * Bumped (under event_mutex) whenever a module with tracepoints comes, so
 * that a creation that looked a tracepoint up without event_mutex can tell
 * whether it raced with a module load.
 */
static unsigned long fev_module_epoch;

/* Our type on the dynamic event list; defined at the end. */
static struct dyn_event_operations fev_dyn_ops;

static inline bool is_fev(struct dyn_event *ev)
{
	return ev->ops == &fev_dyn_ops;
}

static inline struct fprobe_ev *dyn_to_fev(struct dyn_event *ev)
{
	return container_of(ev, struct fprobe_ev, devent);
}

static inline struct fprobe_ev *fev_of_tp(struct trace_probe *tp)
{
	return container_of(tp, struct fprobe_ev, tp);
}

/*
 * The next fprobe/tprobe on the dynamic event list after @ev (NULL: from
 * the start), or NULL.  Caller holds event_mutex.
 */
static struct fprobe_ev *fev_next(struct fprobe_ev *tf)
{
	struct list_head *pos = tf ? &tf->devent.list : &dyn_event_list;

	for (pos = pos->next; pos != &dyn_event_list; pos = pos->next) {
		struct dyn_event *ev = list_entry(pos, struct dyn_event, list);

		if (is_fev(ev))
			return dyn_to_fev(ev);
	}
	return NULL;
}

static inline bool fev_is_exit(const struct fprobe_ev *tf)
{
	return tf->kind == FEV_FEXIT;
}

static inline bool fev_is_tprobe(const struct fprobe_ev *tf)
{
	return tf->kind == FEV_TPOINT;
}

/* ------------------------------------------------------------------ */
/* Hit path (the fetch hook: trace_probe_regs.h)                       */
/* ------------------------------------------------------------------ */

/*
 * A hit of @tf to record: at the entry (@ret_ip 0, no @edata) or at the
 * exit of the function, with the values the entry saved.  The records
 * are laid out as those of kprobe events, which trace_probe_record()
 * writes (the engine asserts that the heads agree, trace_probe_event.c).
 */
static nokprobe_inline void fev_hit_at(struct fprobe_ev *tf,
				       unsigned long entry_ip,
				       unsigned long ret_ip,
				       struct pt_regs *regs, void *edata)
{
	struct trace_probe_hit hit = {
		.regs		= regs,
		.edata		= edata,
		.func		= entry_ip,
		.ret_ip		= ret_ip,
		.dsize		= -1,
		.is_return	= fev_is_exit(tf),
	};

	trace_probe_record(&tf->tp, &hit, false);
}

/*
 * fprobe entry handler.  An entry or tracepoint probe records here; an exit
 * probe only saves the entry values its $argN need and lets the exit run.
 */
static int fev_on_entry(struct fprobe *fp, unsigned long entry_ip,
			unsigned long ret_ip, struct pt_regs *regs,
			void *entry_data)
{
	struct fprobe_ev *tf = container_of(fp, struct fprobe_ev, fp);

	if (fev_is_exit(tf))
		store_trace_entry_data(entry_data, &tf->tp, regs);
	else
		fev_hit_at(tf, entry_ip, 0, regs, NULL);
	return 0;
}
NOKPROBE_SYMBOL(fev_on_entry);

/* fprobe exit handler of an exit probe. */
static void fev_on_exit(struct fprobe *fp, unsigned long entry_ip,
			unsigned long ret_ip, struct pt_regs *regs,
			void *entry_data)
{
	fev_hit_at(container_of(fp, struct fprobe_ev, fp), entry_ip, ret_ip,
		   regs, entry_data);
}
NOKPROBE_SYMBOL(fev_on_exit);

/* ------------------------------------------------------------------ */
/* Event output and format                                             */
/* ------------------------------------------------------------------ */

/* trace_event_functions.trace: one line of the "trace" file. */
static enum print_line_t fev_print(struct trace_iterator *iter, int flags,
				   struct trace_event *event)
{
	struct trace_event_call *call =
		container_of(event, struct trace_event_call, event);
	struct trace_probe *tp = trace_probe_primary_from_call(call);

	if (WARN_ON_ONCE(!tp))
		return trace_handle_return(&iter->seq);
	return trace_probe_print_hit(iter, flags, tp, fev_is_exit(fev_of_tp(tp)));
}

/* trace_event_fields.define_fields: the record head, then the args. */
static int fev_define_fields(struct trace_event_call *call)
{
	struct trace_probe *tp = trace_probe_primary_from_call(call);

	if (WARN_ON_ONCE(!tp))
		return -ENOENT;
	return trace_probe_define_hit_fields(call, tp, fev_is_exit(fev_of_tp(tp)));
}

static struct trace_event_functions fev_event_funcs = {
	.trace	= fev_print,
};

static struct trace_event_fields fev_fields_array[] = {
	{ .type = TRACE_FUNCTION_TYPE, .define_fields = fev_define_fields },
	{}
};

/* ------------------------------------------------------------------ */
/* Registration: fprobes and tracepoint stubs                          */
/* ------------------------------------------------------------------ */

/* (Re)initialise @tf->fp for a registration; it must not be registered. */
static void fev_setup_fprobe(struct fprobe_ev *tf)
{
	memset(&tf->fp, 0, sizeof(tf->fp));

	if (fev_is_exit(tf)) {
		tf->fp.exit_handler = fev_on_exit;
		tf->fp.nr_maxactive = tf->maxactive;
		if (tf->tp.entry_arg) {
			tf->fp.entry_handler = fev_on_entry;
			tf->fp.entry_data_size =
				traceprobe_get_entry_data_size(&tf->tp);
		}
	} else {
		tf->fp.entry_handler = fev_on_entry;
	}
}

/*
 * Is the stub of @tpoint connected for another registered probe than
 * @self?  Caller holds event_mutex.
 */
static bool fev_stub_shared(struct tracepoint *tpoint,
			    struct fprobe_ev *self)
{
	struct fprobe_ev *tf;

	for (tf = fev_next(NULL); tf; tf = fev_next(tf)) {
		if (tf != self && tf->registered && tf->tpoint == tpoint)
			return true;
	}
	return false;
}

/* Is @sym an ftrace filter pattern rather than one symbol name? */
static bool fev_is_pattern(const char *sym)
{
	return !!strpbrk(sym, "*?[!");
}

/*
 * Resolve @SYM arguments; done again at each registration of the fprobe
 * (module symbols).
 */
static int fev_resolve_args(struct fprobe_ev *tf)
{
	int i, err;

	for (i = 0; i < tf->tp.nr_args; i++) {
		err = traceprobe_update_arg(&tf->tp.args[i]);
		if (err)
			return err;
	}
	return 0;
}

/**
 * fev_register_fprobe - register the fprobe of a probe
 * @tf: an unregistered probe; a tprobe must be bound (->tpoint set)
 *
 * Context: process, event_mutex held.
 * Return: 0 or a negative errno from the registration.
 */
static int fev_register_fprobe(struct fprobe_ev *tf)
{
	struct tracepoint *tpoint = tf->tpoint;
	unsigned long stub;
	bool shared;
	int err;

	lockdep_assert_held(&event_mutex);

	if (WARN_ON_ONCE(tf->registered))
		return -EBUSY;

	err = security_locked_down(LOCKDOWN_KPROBES);
	if (err)
		return err;

	err = fev_resolve_args(tf);
	if (err)
		return err;

	fev_setup_fprobe(tf);

	if (!fev_is_tprobe(tf)) {
		/* A plain name must exist; a pattern is ftrace's business. */
		if (!fev_is_pattern(tf->symbol) &&
		    !kallsyms_lookup_name(tf->symbol))
			return -ENOENT;
		err = register_fprobe(&tf->fp, tf->symbol, NULL);
		if (!err)
			tf->registered = true;
		return err;
	}

	if (WARN_ON_ONCE(!tpoint))
		return -ENOENT;

	shared = fev_stub_shared(tpoint, tf);
	if (!shared) {
		err = tracepoint_probe_register_prio_may_exist(tpoint,
							       tpoint->probestub,
							       NULL, 0);
		if (err && err != -EEXIST)
			return err;
	}

	stub = (unsigned long)tpoint->probestub;
	err = register_fprobe_ips(&tf->fp, &stub, 1);
	if (err) {
		if (!shared)
			tracepoint_probe_unregister(tpoint, tpoint->probestub,
						    NULL);
		return err;
	}
	tf->registered = true;
	return 0;
}

/**
 * fev_unregister_fprobe - unregister the fprobe of a probe, if it is registered
 * @tf: the probe
 *
 * For a tprobe, the tracepoint stub is disconnected too when no other
 * registered probe uses it.  A tprobe stays bound to its tracepoint.
 *
 * Context: process, event_mutex held.
 */
static void fev_unregister_fprobe(struct fprobe_ev *tf)
{
	struct tracepoint *tpoint = tf->tpoint;

	lockdep_assert_held(&event_mutex);

	if (!tf->registered)
		return;

	unregister_fprobe(&tf->fp);
	tf->registered = false;

	if (fev_is_tprobe(tf) && tpoint && !fev_stub_shared(tpoint, tf))
		tracepoint_probe_unregister(tpoint, tpoint->probestub, NULL);
}

/* kallsyms walker: does a traceable function match the glob @data? */
static int fev_glob_hit(void *data, const char *name, unsigned long addr)
{
	return glob_match(data, name) && ftrace_location(addr);
}

/**
 * fev_check_target - can the fprobe of the function probe @tf be registered?
 * @tf: a function probe whose fprobe is not registered
 *
 * What fev_register_fprobe() would find, without registering anything: a
 * plain name must name a function, traceable; a pattern must match one.
 *
 * Context: process.
 * Return: 0, -ENOENT for a name that no symbol has, or -EINVAL when
 * nothing traceable matches.
 */
static int fev_check_target(struct fprobe_ev *tf)
{
	const char *sym = tf->symbol;
	unsigned long addr;

	if (fev_is_pattern(sym)) {
		if (kallsyms_on_each_symbol(fev_glob_hit, (void *)sym) ||
		    module_kallsyms_on_each_symbol(NULL, fev_glob_hit,
						   (void *)sym))
			return 0;
		return -EINVAL;
	}
	if (!ftrace_lookup_symbols(&sym, 1, &addr))
		return 0;
	/* no such symbol, or none of that name can be traced */
	return kallsyms_lookup_name(sym) ? -EINVAL : -ENOENT;
}

/*
 * Unregister the fprobe of every probe of an event: it is no longer enabled
 * anywhere.
 */
static void fev_event_unregister_fprobes(struct trace_probe *tp)
{
	struct trace_probe *pos;

	list_for_each_entry(pos, trace_probe_probe_list(tp), list)
		fev_unregister_fprobe(fev_of_tp(pos));
}

/*
 * Register the fprobe of every probe of an event that is (now) enabled, but
 * of a tprobe still waiting for its module.  On an error the caller undoes
 * the enabling and unregisters the event's fprobes if nothing else has it
 * enabled.
 */
static int fev_event_register_fprobes(struct trace_probe *tp)
{
	struct trace_probe *pos;
	int err;

	list_for_each_entry(pos, trace_probe_probe_list(tp), list) {
		struct fprobe_ev *tf = fev_of_tp(pos);

		if (tf->registered || (fev_is_tprobe(tf) && !tf->tpoint))
			continue;
		err = fev_register_fprobe(tf);
		if (err)
			return err;
	}
	return 0;
}

/*
 * trace_event_class.reg: enable/disable the event for a trace instance
 * (@data is its trace_event_file) or for perf.
 * Context: event_mutex held (by the event or perf core).
 */
static int fev_event_reg(struct trace_event_call *call, enum trace_reg type,
			 void *data)
{
	struct trace_probe *tp = trace_probe_primary_from_call(call);
	struct trace_event_file *file = data;
	int err = 0;

	if (WARN_ON_ONCE(!tp))
		return -ENODEV;

	switch (type) {
	case TRACE_REG_REGISTER:
		err = trace_probe_add_file(tp, file);
		if (err)
			break;
		err = fev_event_register_fprobes(tp);
		if (err) {
			trace_probe_remove_file(tp, file);
			if (!trace_probe_is_enabled(tp))
				fev_event_unregister_fprobes(tp);
		}
		break;
	case TRACE_REG_UNREGISTER:
		err = trace_probe_remove_file(tp, file);
		if (!err && !trace_probe_is_enabled(tp))
			fev_event_unregister_fprobes(tp);
		break;
#ifdef CONFIG_PERF_EVENTS
	case TRACE_REG_PERF_REGISTER:
		trace_probe_set_flag(tp, TP_FLAG_PROFILE);
		err = fev_event_register_fprobes(tp);
		if (err) {
			trace_probe_clear_flag(tp, TP_FLAG_PROFILE);
			if (!trace_probe_is_enabled(tp))
				fev_event_unregister_fprobes(tp);
		}
		break;
	case TRACE_REG_PERF_UNREGISTER:
		trace_probe_clear_flag(tp, TP_FLAG_PROFILE);
		if (!trace_probe_is_enabled(tp))
			fev_event_unregister_fprobes(tp);
		break;
	case TRACE_REG_PERF_OPEN:
	case TRACE_REG_PERF_CLOSE:
	case TRACE_REG_PERF_ADD:
	case TRACE_REG_PERF_DEL:
		break;
#endif
	}
	return err;
}

/* ------------------------------------------------------------------ */
/* Tracepoint lookup and module tracking                               */
/* ------------------------------------------------------------------ */

struct fev_tp_query {
	const char		*name;
	struct tracepoint	*found;
	struct module		*mod;
	bool			pin;	/* take a reference on the module */
};

static void fev_match_builtin_tp(struct tracepoint *tpoint, void *priv)
{
	struct fev_tp_query *q = priv;

	if (!q->found && !strcmp(tpoint->name, q->name))
		q->found = tpoint;
}

#ifdef CONFIG_MODULES
static void fev_match_module_tp(struct tracepoint *tpoint, struct module *mod,
				void *priv)
{
	struct fev_tp_query *q = priv;

	if (q->found || strcmp(tpoint->name, q->name))
		return;
	/* A module on its way out is as good as absent. */
	if (q->pin && !try_module_get(mod))
		return;
	q->found = tpoint;
	q->mod = mod;
}
#endif

/*
 * Find tracepoint @name, built-in or in a loaded module.  A module's
 * tracepoint comes with a reference on the module in *@modp, to drop with
 * module_put() once the probe is bound (or given up).
 * Context: process; must not hold event_mutex (see the top comment).
 */
static struct tracepoint *fev_find_tracepoint(const char *name,
					      struct module **modp)
{
	struct fev_tp_query q = { .name = name, .pin = true };

	*modp = NULL;
	for_each_kernel_tracepoint(fev_match_builtin_tp, &q);
#ifdef CONFIG_MODULES
	if (!q.found)
		for_each_module_tracepoint(fev_match_module_tp, &q);
#endif
	*modp = q.mod;
	return q.found;
}

#ifdef CONFIG_MODULES
/* Bind the waiting probes whose tracepoint @mod carries. */
static void fev_module_coming(struct module *mod)
{
	struct fprobe_ev *tf;
	int err;

	WRITE_ONCE(fev_module_epoch, fev_module_epoch + 1);
	for (tf = fev_next(NULL); tf; tf = fev_next(tf)) {
		struct fev_tp_query q = { .name = tf->symbol };

		if (!fev_is_tprobe(tf) || tf->tpoint)
			continue;
		/* The notifier holds tracepoint_module_list_mutex. */
		for_each_tracepoint_in_module(mod, fev_match_module_tp, &q);
		if (!q.found)
			continue;

		tf->tpoint = q.found;
		tf->tpmod = mod;
		if (!trace_probe_is_enabled(&tf->tp))
			continue;
		err = fev_register_fprobe(tf);
		if (err) {
			pr_warn("cannot attach %s/%s to %s:%s (%d)\n",
				trace_probe_group_name(&tf->tp),
				trace_probe_name(&tf->tp), mod->name,
				tf->symbol, err);
			tf->tpoint = NULL;
			tf->tpmod = NULL;
		}
	}
}

/* Unbind the probes on tracepoints of @mod: they wait for it again. */
static void fev_module_going(struct module *mod)
{
	struct fprobe_ev *tf;

	for (tf = fev_next(NULL); tf; tf = fev_next(tf)) {
		if (!fev_is_tprobe(tf) || !tf->tpoint || tf->tpmod != mod)
			continue;
		fev_unregister_fprobe(tf);
		tf->tpoint = NULL;
		tf->tpmod = NULL;
	}
}

/*
 * Tracepoint module notifier: called with tracepoint_module_list_mutex
 * held, after a module's tracepoints are listed (COMING) and before they
 * are dropped (GOING).
 */
static int fev_tp_module_notify(struct notifier_block *nb, unsigned long val,
				void *data)
{
	struct tp_module *tpm = data;

	mutex_lock(&event_mutex);
	if (val == MODULE_STATE_COMING)
		fev_module_coming(tpm->mod);
	else if (val == MODULE_STATE_GOING)
		fev_module_going(tpm->mod);
	mutex_unlock(&event_mutex);

	return NOTIFY_DONE;
}

static struct notifier_block fev_tp_module_nb = {
	.notifier_call = fev_tp_module_notify,
};
#endif /* CONFIG_MODULES */

/* ------------------------------------------------------------------ */
/* Probe objects and registration                                      */
/* ------------------------------------------------------------------ */

static void fev_free(struct fprobe_ev *tf)
{
	if (!tf)
		return;
	trace_probe_cleanup(&tf->tp);
	kfree(tf->symbol);
	kfree(tf);
}

static struct fprobe_ev *fev_alloc(const char *group, const char *event,
				   const char *symbol, enum fev_kind kind,
				   int maxactive, int nargs)
{
	struct fprobe_ev *tf;
	int err;

	tf = kzalloc(struct_size(tf, tp.args, nargs), GFP_KERNEL);
	if (!tf)
		return ERR_PTR(-ENOMEM);

	tf->symbol = kstrdup(symbol, GFP_KERNEL);
	if (!tf->symbol) {
		kfree(tf);
		return ERR_PTR(-ENOMEM);
	}
	tf->kind = kind;
	tf->maxactive = maxactive;

	err = trace_probe_init(&tf->tp, event, group, false, nargs);
	if (err) {
		kfree(tf->symbol);
		kfree(tf);
		return ERR_PTR(err);
	}
	dyn_event_init(&tf->devent, &fev_dyn_ops);
	return tf;
}

static struct fprobe_ev *fev_find_event(const char *group,
					const char *event)
{
	struct fprobe_ev *tf;

	for (tf = fev_next(NULL); tf; tf = fev_next(tf)) {
		if (!strcmp(trace_probe_group_name(&tf->tp), group) &&
		    !strcmp(trace_probe_name(&tf->tp), event))
			return tf;
	}
	return NULL;
}

/* Does a probe of @event already do exactly what @tf would? */
static bool fev_duplicates(struct fprobe_ev *event, struct fprobe_ev *tf)
{
	struct trace_probe *pos;
	int i;

	list_for_each_entry(pos, trace_probe_probe_list(&event->tp), list) {
		struct fprobe_ev *old = fev_of_tp(pos);

		if (strcmp(old->symbol, tf->symbol))
			continue;
		/* Names and types already compared equal; compare sources. */
		for (i = 0; i < tf->tp.nr_args; i++)
			if (strcmp(old->tp.args[i].comm, tf->tp.args[i].comm))
				break;
		if (i == tf->tp.nr_args)
			return true;
	}
	return false;
}

/*
 * Why can @tf not be one more probe of the event of @to?  Returns the
 * TP_ERR_* code, with the command word it is about in *@word (-N for
 * the Nth fetch argument, wherever the user wrote it), or -1.
 */
static int fev_join_conflict(struct fprobe_ev *tf, struct fprobe_ev *to,
			     int *word)
{
	int n;

	*word = 0;
	if (tf->kind != to->kind)
		return TP_ERR_DIFF_PROBE_TYPE;

	/* the 1-based number of the argument that differs */
	n = trace_probe_compare_arg_type(&tf->tp, &to->tp);
	if (n) {
		*word = -n;
		return TP_ERR_DIFF_ARG_TYPE;
	}
	return fev_duplicates(to, tf) ? TP_ERR_SAME_PROBE : -1;
}

/*
 * Check a new probe as registering its fprobe would, without registering
 * it: its @SYM arguments, and a function probe's target.
 */
static int fev_check_new(struct fprobe_ev *tf)
{
	int err;

	err = security_locked_down(LOCKDOWN_KPROBES);
	if (!err)
		err = fev_resolve_args(tf);
	if (!err && !fev_is_tprobe(tf))
		err = fev_check_target(tf);
	return err;
}

/* Add @tf as one more probe of the existing event of @to. */
static int fev_join_event(struct fprobe_ev *tf, struct fprobe_ev *to)
{
	int conflict, word, err;

	conflict = fev_join_conflict(tf, to, &word);
	if (conflict >= 0) {
		/* a negative word is an argument, as parsed */
		if (word < 0)
			trace_probe_log_set_arg(-word - 1);
		else
			trace_probe_log_set_index(word);
		__trace_probe_log_err(0, conflict);
		return -EEXIST;
	}

	/* Checked before it joins: nothing to undo if it is refused. */
	err = fev_check_new(tf);
	if (err)
		return err;
	err = trace_probe_append(&tf->tp, &to->tp);
	if (err)
		return err;

	/* A new probe of an enabled event records at once. */
	if (trace_probe_is_enabled(&tf->tp) &&
	    (!fev_is_tprobe(tf) || tf->tpoint)) {
		err = fev_register_fprobe(tf);
		if (err) {
			trace_probe_unlink(&tf->tp);
			return err;
		}
	}
	dyn_event_add(&tf->devent, trace_probe_event_call(&tf->tp));
	return 0;
}

static void fev_init_event_call(struct fprobe_ev *tf)
{
	struct trace_event_call *call = trace_probe_event_call(&tf->tp);

	call->event.funcs = &fev_event_funcs;
	call->class->fields_array = fev_fields_array;
	call->flags = TRACE_EVENT_FL_FPROBE;
	call->class->reg = fev_event_reg;
}

/*
 * Create the trace event of @tf, not enabled, so its fprobe is not
 * registered.
 */
static int fev_new_event(struct fprobe_ev *tf)
{
	int err;

	fev_init_event_call(tf);
	err = trace_probe_register_event_call(&tf->tp);
	if (err) {
		if (err == -EEXIST) {
			trace_probe_log_set_index(0);
			trace_probe_log_err(0, EVENT_EXIST);
		} else {
			pr_warn("cannot register event %s/%s (%d)\n",
				trace_probe_group_name(&tf->tp),
				trace_probe_name(&tf->tp), err);
		}
		return err;
	}

	err = fev_check_new(tf);
	if (err) {
		trace_probe_unregister_event_call(&tf->tp);
		return err;
	}
	dyn_event_add(&tf->devent, trace_probe_event_call(&tf->tp));
	return 0;
}

/*
 * Register a parsed probe: join the event of the same name or make a new
 * one.  @epoch is fev_module_epoch sampled before the tracepoint lookup;
 * *@modp the module reference from it, which this may replace.
 */
static int fev_register(struct fprobe_ev *tf, unsigned long epoch,
			struct module **modp)
{
	struct fprobe_ev *old;
	int err;

	for (;;) {
		mutex_lock(&event_mutex);
		/*
		 * A waiting tprobe that missed a module load between its lookup
		 * and now would wait forever: look again.
		 */
		if (tf->tpmod && !module_is_live(tf->tpmod)) {
			/* Its going notifier may have run already: wait. */
			tf->tpoint = NULL;
			tf->tpmod = NULL;
		}
		if (!fev_is_tprobe(tf) || tf->tpoint ||
		    READ_ONCE(fev_module_epoch) == epoch)
			break;
		epoch = fev_module_epoch;
		mutex_unlock(&event_mutex);
		if (*modp)
			module_put(*modp);
		tf->tpoint = fev_find_tracepoint(tf->symbol, modp);
		tf->tpmod = *modp;
	}

	old = fev_find_event(trace_probe_group_name(&tf->tp),
			     trace_probe_name(&tf->tp));
	if (old)
		err = fev_join_event(tf, old);
	else
		err = fev_new_event(tf);
	mutex_unlock(&event_mutex);
	return err;
}

/* ------------------------------------------------------------------ */
/* Command parser                                                      */
/* ------------------------------------------------------------------ */

/* Scratch space of one command; too big for the stack. */
struct fev_cmd {
	enum fev_kind	kind;
	int		maxactive;
	const char	*group;
	const char	*event;
	char		*symbol;
	char		ename[MAX_EVENT_NAME_LEN];
	char		gname[MAX_EVENT_NAME_LEN];
	char		stubname[KSYM_NAME_LEN];
	char		btfargs[MAX_BTF_ARGS_LEN];
};

/* "f12:..." - parse the MAXACT digits after the command letter. */
static int fev_parse_maxactive(const char *head, const char *colon,
			       struct fev_cmd *cmd)
{
	size_t len = colon ? colon - head : strlen(head);
	char digits[MAX_EVENT_NAME_LEN];
	unsigned int val = 0;
	bool bad = true;

	if (!isdigit(head[0]))
		return 0;

	if (len < sizeof(digits)) {
		memcpy(digits, head, len);
		digits[len] = '\0';
		bad = kstrtouint(digits, 0, &val) || !val;
	}
	if (bad)
		return trace_probe_inval(1, BAD_MAXACT);
	if (val > FEV_MAXACTIVE_LIMIT)
		return trace_probe_inval(1, MAXACT_TOO_BIG);
	cmd->maxactive = val;
	return 0;
}

/*
 * Word 1: SYM, SYM%return or TRACEPOINT.  A function probe whose arguments
 * use $retval is an exit probe even without the suffix.
 */
static int fev_parse_target(int argc, const char *argv[], struct fev_cmd *cmd)
{
	const char *word = argv[1];
	const char *pct = strchr(word, '%');
	const char *p;
	int i;

	trace_probe_log_set_index(1);
	/*
	 * An fprobe is on a function's entry: it takes no offset (a
	 * malformed place, -EINVAL; the caret under the place, where
	 * ftracetest's fprobe_syntax_errors.tc expects it).
	 */
	p = strchr(word, '+');
	if (cmd->kind != FEV_TPOINT && p && (!pct || p < pct))
		return trace_probe_inval(0, BAD_PROBE_ADDR);
	if (pct) {
		if (cmd->kind == FEV_TPOINT || strcmp(pct, "%return"))
			return trace_probe_inval(pct - word, BAD_ADDR_SUFFIX);
		cmd->kind = FEV_FEXIT;
		cmd->symbol = kmemdup_nul(word, pct - word, GFP_KERNEL);
		return cmd->symbol ? 0 : -ENOMEM;
	}

	if (cmd->kind == FEV_TPOINT) {
		for (p = word; *p; p++) {
			if (!isalnum(*p) && *p != '_')
				return trace_probe_inval(p - word, BAD_TP_NAME);
		}
	}

	for (i = 2; i < argc; i++) {
		p = strstr(argv[i], "$retval");
		if (!p || isalnum(p[7]) || p[7] == '_')
			continue;
		if (cmd->kind == FEV_TPOINT) {
			trace_probe_log_set_index(i);
			trace_probe_log_err(p - argv[i], RETVAL_ON_PROBE);
			return -EINVAL;
		}
		cmd->kind = FEV_FEXIT;
		break;
	}

	cmd->symbol = kstrdup(word, GFP_KERNEL);
	return cmd->symbol ? 0 : -ENOMEM;
}

/* Fill in the group and event names, explicit or generated. */
static int fev_parse_names(const char *argv0, const char *ename,
			   struct fev_cmd *cmd)
{
	int err;

	cmd->group = cmd->kind == FEV_TPOINT ? TPROBE_DEFAULT_GROUP :
					       FPROBE_DEFAULT_GROUP;
	cmd->event = ename;
	trace_probe_log_set_index(0);
	if (ename) {
		err = traceprobe_parse_event_name(&cmd->event, &cmd->group,
						  cmd->gname, ename - argv0);
		if (err)
			return err;
	}
	if (cmd->event)
		return 0;

	if (cmd->kind == FEV_TPOINT)
		snprintf(cmd->ename, sizeof(cmd->ename), "%s%s",
			 isdigit(cmd->symbol[0]) ? "_" : "", cmd->symbol);
	else
		snprintf(cmd->ename, sizeof(cmd->ename), "%s__%s", cmd->symbol,
			 cmd->kind == FEV_FEXIT ? "exit" : "entry");
	sanitize_event_name(cmd->ename);
	cmd->event = cmd->ename;
	return 0;
}

/* Point the error log at word 1 for a failed registration. */
static void fev_log_register_error(int err)
{
	int why;

	switch (err) {
	case -ENOMEM:
	case -EEXIST:	/* the conflict is logged where it was found */
		return;
	case -ENOENT:
		why = TP_ERR_BAD_PROBE_ADDR;
		break;
	case -EILSEQ:
		why = TP_ERR_BAD_INSN_BNDRY;
		break;
	default:
		why = TP_ERR_FAIL_REG_PROBE;
		break;
	}
	trace_probe_log_set_index(1);
	__trace_probe_log_err(0, why);
}

static int fev_parse(int argc, const char *argv[])
{
	struct traceprobe_parse_context ctx = { .flags = TPARG_FL_KERNEL |
							 TPARG_FL_FPROBE };
	const char **expanded = NULL;
	struct fprobe_ev *tf = NULL;
	struct module *tpmod = NULL;
	struct tracepoint *tpoint = NULL;
	struct fev_cmd *cmd = NULL;
	const char *colon;
	char *dentry_buf = NULL;
	unsigned long epoch = 0;
	int nargs, err;

	if (argc < 2 || (argv[0][0] != 'f' && argv[0][0] != 't'))
		return -ECANCELED;

	trace_probe_log_init(FEV_SUBSYSTEM, argc, argv);

	cmd = kzalloc(sizeof(*cmd), GFP_KERNEL);
	if (!cmd) {
		err = -ENOMEM;
		goto out;
	}
	cmd->kind = argv[0][0] == 't' ? FEV_TPOINT : FEV_FENTRY;

	colon = strchr(argv[0] + 1, ':');
	err = fev_parse_maxactive(argv[0] + 1, colon, cmd);
	if (err)
		goto out;

	err = fev_parse_target(argc, argv, cmd);
	if (err)
		goto out;

	if (cmd->maxactive && cmd->kind != FEV_FEXIT) {
		trace_probe_log_set_index(0);
		trace_probe_log_err(1, BAD_MAXACT_TYPE);
		err = -EINVAL;
		goto out;
	}

	err = fev_parse_names(argv[0], colon ? colon + 1 : NULL, cmd);
	if (err)
		goto out;

	ctx.flags |= cmd->kind == FEV_FEXIT ? TPARG_FL_RETURN :
					       TPARG_FL_FENTRY;
	ctx.funcname = cmd->symbol;
	if (cmd->kind == FEV_TPOINT) {
		ctx.flags |= TPARG_FL_TPOINT;
		epoch = READ_ONCE(fev_module_epoch);
		tpoint = fev_find_tracepoint(cmd->symbol, &tpmod);
		if (tpoint) {
			unsigned long stub = (unsigned long)tpoint->probestub;

			/* BTF describes the arguments of the stub. */
			ctx.funcname = kallsyms_lookup(stub, NULL, NULL, NULL,
						       cmd->stubname);
		} else if (!IS_ENABLED(CONFIG_MODULES)) {
			/* No module can bring it later. */
			trace_probe_log_set_index(1);
			trace_probe_log_err(0, NO_TRACEPOINT);
			err = -EINVAL;
			goto out;
		}
	}

	/* The fetch arguments are words 2.. of the command. */
	nargs = argc - 2;
	expanded = traceprobe_expand_meta_args(nargs, argv + 2, &nargs,
					       cmd->btfargs,
					       sizeof(cmd->btfargs), &ctx);
	if (IS_ERR(expanded)) {
		err = PTR_ERR(expanded);
		expanded = NULL;
		goto out;
	}
	err = traceprobe_check_nr_args(nargs);
	if (err)
		goto out;
	argv = expanded ? expanded : argv + 2;

	err = traceprobe_expand_dentry_args(nargs, argv, &dentry_buf);
	if (err)
		goto out;

	tf = fev_alloc(cmd->group, cmd->event, cmd->symbol, cmd->kind,
		       cmd->maxactive, nargs);
	if (IS_ERR(tf)) {
		err = PTR_ERR(tf);
		tf = NULL;
		goto out;
	}
	tf->tpoint = tpoint;
	tf->tpmod = tpmod;

	err = traceprobe_parse_args(&tf->tp, nargs, argv, &ctx,
				    cmd->kind == FEV_FEXIT ? PROBE_PRINT_RETURN :
							     PROBE_PRINT_NORMAL);
	if (err)
		goto out;

	err = fev_register(tf, epoch, &tpmod);
	if (err) {
		fev_log_register_error(err);
		goto out;
	}
	tf = NULL;	/* now owned by the dynamic event list */

out:
	/* A bound module tracepoint is now tracked by the notifier. */
	if (tpmod)
		module_put(tpmod);
	fev_free(tf);
	traceprobe_finish_parse(&ctx);
	trace_probe_log_clear();
	kfree(dentry_buf);
	kfree(expanded);
	if (cmd)
		kfree(cmd->symbol);
	kfree(cmd);
	return err;
}

static int fev_create(const char *raw_command)
{
	return trace_probe_create(raw_command, fev_parse);
}

/* ------------------------------------------------------------------ */
/* dynamic_events operations                                           */
/* ------------------------------------------------------------------ */

static int fev_show(struct seq_file *m, struct dyn_event *ev)
{
	struct fprobe_ev *tf = dyn_to_fev(ev);
	int i;

	seq_putc(m, fev_is_tprobe(tf) ? 't' : 'f');
	if (fev_is_exit(tf) && tf->maxactive)
		seq_printf(m, "%d", tf->maxactive);
	seq_printf(m, ":%s/%s %s%s", trace_probe_group_name(&tf->tp),
		   trace_probe_name(&tf->tp), tf->symbol,
		   fev_is_exit(tf) ? "%return" : "");
	for (i = 0; i < tf->tp.nr_args; i++)
		seq_printf(m, " %s=%s", tf->tp.args[i].name,
			   tf->tp.args[i].comm);
	seq_putc(m, '\n');
	trace_probe_dump_args(m, &tf->tp);
	return 0;
}

static bool fev_is_busy(struct dyn_event *ev)
{
	return trace_probe_is_enabled(&dyn_to_fev(ev)->tp);
}

/*
 * Does a "-:[GRP/]EVENT [SYM[%return] [ARGS]]" command name this probe?
 * An empty EVENT with a GRP names the whole group.
 */
static bool fev_match(const char *system, const char *event,
		      int argc, const char **argv, struct dyn_event *ev)
{
	struct fprobe_ev *tf = dyn_to_fev(ev);
	size_t len;

	if (event[0] && strcmp(trace_probe_name(&tf->tp), event))
		return false;
	if (system && strcmp(trace_probe_group_name(&tf->tp), system))
		return false;
	if (!argc)
		return true;

	len = strlen(tf->symbol);
	if (strncmp(argv[0], tf->symbol, len) ||
	    strcmp(argv[0] + len, fev_is_exit(tf) ? "%return" : ""))
		return false;

	return trace_probe_match_command_args(&tf->tp, argc - 1, argv + 1);
}

/* Delete one probe; its event goes with the last probe.  event_mutex. */
static int fev_release(struct dyn_event *ev)
{
	struct fprobe_ev *tf = dyn_to_fev(ev);
	struct trace_probe *tp = &tf->tp;

	if (!trace_probe_has_sibling(tp)) {
		if (trace_probe_is_enabled(tp) ||
		    trace_event_dyn_busy(trace_probe_event_call(tp)) ||
		    trace_probe_unregister_event_call(tp))
			return -EBUSY;
	}

	fev_unregister_fprobe(tf);
	dyn_event_remove(&tf->devent);
	trace_probe_unlink(tp);
	fev_free(tf);
	return 0;
}

static struct dyn_event_operations fev_dyn_ops = {
	.create = fev_create, .show = fev_show, .is_busy = fev_is_busy,
	.match = fev_match, .free = fev_release,
};

/*
 * Set up at core_initcall: boot-time (postcore) users may make fprobe
 * events before tracefs exists.  No module is loaded yet, so the notifier
 * has nothing to bind at registration.
 */
static __init int fev_init(void)
{
#ifdef CONFIG_MODULES
	if (register_tracepoint_module_notifier(&fev_tp_module_nb))
		pr_warn("tprobes will not follow module tracepoints\n");
#endif
	return dyn_event_register(&fev_dyn_ops);
}
core_initcall(fev_init);
