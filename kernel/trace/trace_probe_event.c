// SPDX-License-Identifier: GPL-2.0
/*
 * Probe events as trace events: the format file and print fmt built
 * from the arguments' types, and the trace_probe <-> trace_probe_event
 * bookkeeping (several probes may share one event).  Part of the
 * fetch-argument engine (see trace_probe.c).
 */
#define pr_fmt(fmt)	"trace_probe: " fmt

#include <linux/fs.h>

#include "trace_output.h"
#include "trace_probe_internal.h"

/* ------------------------------------------------------------------ */
/* Event format: print fmt and fields                                 */

/* A bounded string writer that counts what it could not write too. */
struct fmt_writer {
	char	*buf;
	int	size;
	int	len;
};

static __printf(2, 3) void fmt_add(struct fmt_writer *w, const char *fmt, ...)
{
	int room = w->len < w->size ? w->size - w->len : 0;
	va_list ap;

	va_start(ap, fmt);
	w->len += vsnprintf(room ? w->buf + w->len : NULL, room, fmt, ap);
	va_end(ap);
}

static void write_print_fmt(struct fmt_writer *w, struct trace_probe *tp,
			    const char *head, const char *head_args)
{
	int i, j;

	fmt_add(w, "\"%s", head);
	for (i = 0; i < tp->nr_args; i++) {
		struct probe_arg *a = &tp->args[i];

		fmt_add(w, " %s=", a->name);
		if (!a->count) {
			fmt_add(w, "%s", a->type->fmt);
			continue;
		}
		for (j = 0; j < a->count; j++)
			fmt_add(w, "%s%s", j ? "," : "{", a->type->fmt);
		fmt_add(w, "}");
	}
	fmt_add(w, "\"%s", head_args);

	for (i = 0; i < tp->nr_args; i++) {
		struct probe_arg *a = &tp->args[i];
		const char *how = a->type->is_string ? "__get_str(%s" : "REC->%s";

		for (j = 0; j < (a->count ?: 1); j++) {
			fmt_add(w, ", ");
			fmt_add(w, how, a->name);
			if (a->count)
				fmt_add(w, "[%d]", j);
			if (a->type->is_string)
				fmt_add(w, ")");
		}
	}
}

/* What the print fmt shows before and after the arguments' formats. */
static const struct print_fmt_head {
	const char *head;
	const char *head_args;
} print_fmt_heads[] = {
	[PROBE_PRINT_NORMAL] = { "(%lx)", ", REC->" FIELD_STRING_IP },
	[PROBE_PRINT_RETURN] = {
		"(%lx <- %lx)",
		", REC->" FIELD_STRING_FUNC ", REC->" FIELD_STRING_RETIP
	},
	[PROBE_PRINT_EVENT] = { "", "" },
};

/**
 * traceprobe_set_print_fmt - build the event's print fmt
 * @tp: the probe, arguments parsed
 * @ptype: what precedes the arguments (address, return addresses, none)
 *
 * Return: 0 or -ENOMEM.
 */
int traceprobe_set_print_fmt(struct trace_probe *tp, enum probe_print_type ptype)
{
	struct fmt_writer w = { };
	const struct print_fmt_head *h;

	if (WARN_ON_ONCE((unsigned int)ptype >= ARRAY_SIZE(print_fmt_heads)))
		return 0;
	h = &print_fmt_heads[ptype];

	/* measure, then write */
	write_print_fmt(&w, tp, h->head, h->head_args);
	w.size = w.len + 1;
	w.len = 0;
	w.buf = kmalloc(w.size, GFP_KERNEL);
	if (!w.buf)
		return -ENOMEM;
	write_print_fmt(&w, tp, h->head, h->head_args);
	trace_probe_event_call(tp)->print_fmt = w.buf;
	return 0;
}

static void free_field_strings(struct trace_probe_event *tpe)
{
	while (tpe->nr_field_strings)
		kfree(tpe->field_strings[--tpe->nr_field_strings]);
	kfree(tpe->field_strings);
	tpe->field_strings = NULL;
}

/* A copy of @str that @tpe owns (freed with its field strings), or NULL. */
static const char *tpe_keep_string(struct trace_probe_event *tpe,
				   const char *str)
{
	char *copy = kstrdup(str, GFP_KERNEL);

	if (copy)
		tpe->field_strings[tpe->nr_field_strings++] = copy;
	return copy;
}

/**
 * traceprobe_define_arg_fields - define the format fields of the args
 * @event_call: the event
 * @offset: where the arguments start in the record
 * @tp: the probe whose arguments describe the event
 *
 * The field names and types are copies owned by the event, so that they
 * outlive @tp when a sibling probe keeps the event.  Safe to call again
 * after a failure.  Context: event_mutex held.
 *
 * Return: 0 or a negative error.
 */
int traceprobe_define_arg_fields(struct trace_event_call *event_call,
				 size_t offset, struct trace_probe *tp)
{
	struct trace_probe_event *tpe = trace_probe_event_from_call(event_call);
	int i, ret;

	free_field_strings(tpe);
	if (!tp->nr_args)
		return 0;
	tpe->field_strings = kcalloc(2 * tp->nr_args, sizeof(char *), GFP_KERNEL);
	if (!tpe->field_strings)
		return -ENOMEM;

	for (i = 0; i < tp->nr_args; i++) {
		struct probe_arg *a = &tp->args[i];
		const char *name = tpe_keep_string(tpe, a->name);
		const char *type = name ?
			tpe_keep_string(tpe, a->fmt ?: a->type->fmttype) : NULL;

		if (!type)
			return -ENOMEM;
		ret = trace_define_field(event_call, type, name,
					 offset + a->offset,
					 a->type->size * (a->count ?: 1),
					 a->type->is_signed, FILTER_OTHER);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * The records of kprobe and fprobe events start with one of two heads:
 * the entry head (ip) or the return head (func, ret_ip).  Each front end
 * has its own struct for them; the layouts are one.
 */
static_assert(sizeof(struct fentry_trace_entry_head) ==
	      sizeof(struct kprobe_trace_entry_head));
static_assert(offsetof(struct fentry_trace_entry_head, ip) ==
	      offsetof(struct kprobe_trace_entry_head, ip));
static_assert(sizeof(struct fexit_trace_entry_head) ==
	      sizeof(struct kretprobe_trace_entry_head));
static_assert(offsetof(struct fexit_trace_entry_head, func) ==
	      offsetof(struct kretprobe_trace_entry_head, func));
static_assert(offsetof(struct fexit_trace_entry_head, ret_ip) ==
	      offsetof(struct kretprobe_trace_entry_head, ret_ip));

/**
 * trace_probe_print_hit - print a record of a kprobe or fprobe event
 * @iter: the trace iterator, at the record
 * @flags: the trace_event_functions.trace flags
 * @tp: the event's primary probe
 * @is_return: the record has the return head, not the entry head
 *
 * Prints "NAME: (IP) ARGS" or "NAME: (RET_IP <- FUNC) ARGS".
 * Context: reading the trace, trace_event_sem held.
 * Return: as a trace_event_functions.trace callback does.
 */
enum print_line_t trace_probe_print_hit(struct trace_iterator *iter, int flags,
					struct trace_probe *tp, bool is_return)
{
	struct kretprobe_trace_entry_head *r = (void *)iter->ent;
	struct kprobe_trace_entry_head *e = (void *)iter->ent;
	struct trace_seq *s = &iter->seq;
	u8 *args;

	trace_seq_printf(s, "%s: (", trace_probe_name(tp));
	if (is_return) {
		args = (u8 *)(r + 1);
		if (!seq_print_ip_sym(s, r->ret_ip, flags | TRACE_ITER_SYM_OFFSET))
			goto out;
		trace_seq_puts(s, " <- ");
		if (!seq_print_ip_sym(s, r->func, flags & ~TRACE_ITER_SYM_OFFSET))
			goto out;
	} else {
		args = (u8 *)(e + 1);
		if (!seq_print_ip_sym(s, e->ip, flags | TRACE_ITER_SYM_OFFSET))
			goto out;
	}
	trace_seq_putc(s, ')');
	if (!trace_probe_print_args(s, tp->args, tp->nr_args, args, iter->ent))
		trace_seq_putc(s, '\n');
out:
	return trace_handle_return(s);
}

/**
 * trace_probe_define_hit_fields - the fields of a kprobe or fprobe event
 * @call: the event
 * @tp: its primary probe
 * @is_return: its records have the return head, not the entry head
 *
 * The head's fields (ip; or func and ret_ip), then the arguments'.
 * Context: event_mutex held.
 * Return: 0 or a negative error.
 */
int trace_probe_define_hit_fields(struct trace_event_call *call,
				  struct trace_probe *tp, bool is_return)
{
	int ret;

	if (!is_return) {
		ret = trace_define_field(call, "unsigned long", FIELD_STRING_IP,
					 offsetof(struct kprobe_trace_entry_head, ip),
					 sizeof(unsigned long), 0, FILTER_OTHER);
		return ret ?: traceprobe_define_arg_fields(call,
				sizeof(struct kprobe_trace_entry_head), tp);
	}
	ret = trace_define_field(call, "unsigned long", FIELD_STRING_FUNC,
				 offsetof(struct kretprobe_trace_entry_head, func),
				 sizeof(unsigned long), 0, FILTER_OTHER);
	if (!ret)
		ret = trace_define_field(call, "unsigned long", FIELD_STRING_RETIP,
					 offsetof(struct kretprobe_trace_entry_head, ret_ip),
					 sizeof(unsigned long), 0, FILTER_OTHER);
	return ret ?: traceprobe_define_arg_fields(call,
			sizeof(struct kretprobe_trace_entry_head), tp);
}

/* ------------------------------------------------------------------ */
/* Probes and their events                                            */

/* Free an event nobody refers to any more, with the strings it owns. */
static void tp_event_release(struct trace_probe_event *tpe)
{
	free_field_strings(tpe);
	kfree(tpe->call.print_fmt);
	kfree(tpe->call.name);
	kfree(tpe->class.system);
	kfree(tpe);
}

/**
 * trace_probe_append - make @tp share the event of @to
 * @tp: a probe with its own, unregistered event (which is freed)
 * @to: a probe of the event to join
 *
 * Context: dyn_event_ops_mutex held.
 * Return: 0, or -EBUSY if @tp's event has other probes.
 */
int trace_probe_append(struct trace_probe *tp, struct trace_probe *to)
{
	struct trace_probe_event *own = tp->event;

	if (trace_probe_has_sibling(tp))
		return -EBUSY;

	/* @tp is the only probe of its event: drop the event, join @to's */
	list_move_tail(&tp->list, &to->event->probes);
	tp->event = to->event;
	tp_event_release(own);
	return 0;
}

/**
 * trace_probe_unlink - detach @tp from its event
 * @tp: the probe
 *
 * The event is freed with its last probe.  A reader of the trace prints
 * each record of the event with its first probe, whichever probe wrote
 * it (trace_probe_primary_from_call(), under trace_event_sem read): the
 * probe leaves the list under trace_event_sem write, so that no print
 * still uses it when the caller frees it.
 *
 * Context: process, may sleep; event_mutex may be held (it nests
 * trace_event_sem, as in trace_remove_event_call()).
 */
void trace_probe_unlink(struct trace_probe *tp)
{
	struct trace_probe_event *tpe = tp->event;

	down_write(&trace_event_sem);
	tp->event = NULL;
	list_del_init(&tp->list);
	up_write(&trace_event_sem);
	if (list_empty(&tpe->probes))
		tp_event_release(tpe);
}

/**
 * trace_probe_cleanup - free everything @tp owns (not @tp itself)
 * @tp: the probe
 */
void trace_probe_cleanup(struct trace_probe *tp)
{
	struct probe_entry_arg *ea = tp->entry_arg;
	struct probe_arg *a;

	for (a = tp->args; a < tp->args + tp->nr_args; a++)
		traceprobe_free_probe_arg(a);

	tp->entry_arg = NULL;
	if (ea)
		kfree(ea->code);
	kfree(ea);

	if (tp->event)
		trace_probe_unlink(tp);
}

/**
 * trace_probe_init - set up @tp with a new event GROUP/EVENT
 * @tp: the probe (args[@nargs] follow it)
 * @event: event name
 * @group: group (system) name
 * @alloc_filter: reserve a struct trace_uprobe_filter with the event
 * @nargs: number of arguments
 *
 * Return: 0, -EINVAL or -ENOMEM (then @tp is cleaned up).
 */
int trace_probe_init(struct trace_probe *tp, const char *event,
		     const char *group, bool alloc_filter, int nargs)
{
	struct trace_probe_event *tpe;
	size_t size = sizeof(*tpe);

	if (!event || !group)
		return -EINVAL;

	if (alloc_filter)
		size += sizeof(struct trace_uprobe_filter);
	tpe = kzalloc(size, GFP_KERNEL);
	if (!tpe)
		return -ENOMEM;

	INIT_LIST_HEAD(&tpe->files);
	INIT_LIST_HEAD(&tpe->class.fields);
	INIT_LIST_HEAD(&tpe->probes);
	tpe->call.class = &tpe->class;
	tp->event = tpe;
	INIT_LIST_HEAD(&tp->list);
	list_add(&tp->list, &tpe->probes);

	tp->nr_args = nargs;
	if (nargs)
		memset(tp->args, 0, nargs * sizeof(tp->args[0]));

	tpe->call.name = kstrdup(event, GFP_KERNEL);
	tpe->class.system = kstrdup(group, GFP_KERNEL);
	if (!tpe->call.name || !tpe->class.system) {
		trace_probe_cleanup(tp);
		return -ENOMEM;
	}
	return 0;
}

static struct trace_event_call *
find_trace_event_call(const char *system, const char *event_name)
{
	struct trace_event_call *call;
	const char *name;

	list_for_each_entry(call, &ftrace_events, list) {
		if (!call->class->system || strcmp(system, call->class->system))
			continue;
		name = trace_event_name(call);
		if (name && !strcmp(event_name, name))
			return call;
	}
	return NULL;
}

/* Is GROUP/EVENT of @tp already an event (ours or anyone's)? */
static bool tp_event_name_taken(struct trace_probe *tp)
{
	return find_trace_event_call(trace_probe_group_name(tp),
				     trace_probe_name(tp)) != NULL;
}

/*
 * TP_FLAG_TRACE says "some instance file is linked": keep it in step
 * with the link list after every change to it.
 */
static void tp_sync_trace_flag(struct trace_probe *tp)
{
	if (list_empty(&tp->event->files))
		trace_probe_clear_flag(tp, TP_FLAG_TRACE);
	else
		trace_probe_set_flag(tp, TP_FLAG_TRACE);
}

/**
 * trace_probe_register_event_call - make @tp's event visible
 * @tp: the probe
 *
 * Context: event_mutex held.
 * Return: 0, -EEXIST if GROUP/EVENT is taken, or another error.
 */
int trace_probe_register_event_call(struct trace_probe *tp)
{
	struct trace_event *ev = &trace_probe_event_call(tp)->event;
	int err = -EEXIST;

	lockdep_assert_held(&event_mutex);

	if (tp_event_name_taken(tp))
		return err;
	err = register_trace_event(ev) ? 0 : -ENODEV;
	if (!err) {
		err = trace_add_event_call(trace_probe_event_call(tp));
		if (err)
			unregister_trace_event(ev);
	}
	return err;
}

/**
 * trace_probe_add_file - enable the event on an instance's file
 * @tp: the probe
 * @file: the trace_event_file
 *
 * Context: event_mutex held.
 * Return: 0 or -ENOMEM.
 */
int trace_probe_add_file(struct trace_probe *tp, struct trace_event_file *file)
{
	struct event_file_link *link = kmalloc(sizeof(*link), GFP_KERNEL);

	if (link) {
		*link = (struct event_file_link){ .file = file };
		list_add_tail_rcu(&link->list, &tp->event->files);
		tp_sync_trace_flag(tp);
	}
	return link ? 0 : -ENOMEM;
}

/**
 * trace_probe_get_file_link - find the link of @file
 * @tp: the probe
 * @file: the trace_event_file
 *
 * Context: event_mutex held.
 * Return: the link or NULL.
 */
struct event_file_link *trace_probe_get_file_link(struct trace_probe *tp,
						  struct trace_event_file *file)
{
	struct event_file_link *link;

	trace_probe_for_each_link(link, tp)
		if (link->file == file)
			return link;
	return NULL;
}

/**
 * trace_probe_remove_file - disable the event on an instance's file
 * @tp: the probe
 * @file: the trace_event_file
 *
 * The link is freed after an RCU grace period, hit paths may still be
 * walking it.  Context: event_mutex held, may sleep.
 * Return: 0 or -ENOENT.
 */
int trace_probe_remove_file(struct trace_probe *tp,
			    struct trace_event_file *file)
{
	struct event_file_link *link = trace_probe_get_file_link(tp, file);

	if (link) {
		list_del_rcu(&link->list);
		tp_sync_trace_flag(tp);
		kvfree_rcu_mightsleep(link);
	}
	return link ? 0 : -ENOENT;
}

/* Same name, type and array count: the event records them alike. */
static bool same_arg_shape(const struct probe_arg *x, const struct probe_arg *y)
{
	return x->type == y->type && x->count == y->count &&
	       !strcmp(x->name, y->name);
}

/**
 * trace_probe_compare_arg_type - compare the arguments of two probes
 * @a: a probe
 * @b: another probe
 *
 * Return: 0 if both have the same argument names, types and counts,
 * else the 1-based index of the first argument that differs (for lists
 * of different lengths, the one after the shorter list).
 */
int trace_probe_compare_arg_type(struct trace_probe *a, struct trace_probe *b)
{
	int n = min(a->nr_args, b->nr_args);
	int i;

	/* a different number of arguments differs after the shorter list */
	if (a->nr_args != b->nr_args)
		return n + 1;
	for (i = 0; i < n; i++)
		if (!same_arg_shape(&a->args[i], &b->args[i]))
			return i + 1;
	return 0;
}

/**
 * trace_probe_match_command_args - do "NAME=EXPR" words match the args?
 * @tp: the probe
 * @argc: number of words
 * @argv: words as the user wrote them
 *
 * Return: true if the first @argc arguments of @tp are exactly these.
 */
bool trace_probe_match_command_args(struct trace_probe *tp,
				    int argc, const char **argv)
{
	int i;

	if (argc > tp->nr_args)
		return false;
	for (i = 0; i < argc; i++) {
		const char *w = argv[i];
		size_t len = strlen(tp->args[i].name);

		if (strncmp(w, tp->args[i].name, len) || w[len] != '=' ||
		    strcmp(w + len + 1, tp->args[i].comm))
			return false;
	}
	return true;
}

/**
 * trace_probe_create - split a command into words and create a probe
 * @raw_command: the command line
 * @createfn: called with the words (not for an empty command)
 *
 * Return: what @createfn returns, 0 for an empty command, or -ENOMEM.
 */
int trace_probe_create(const char *raw_command, int (*createfn)(int, const char **))
{
	int argc = 0, ret;
	char **argv = argv_split(GFP_KERNEL, raw_command, &argc);

	if (!argv)
		return -ENOMEM;
	ret = argc ? createfn(argc, (const char **)argv) : 0;
	argv_free(argv);
	return ret;
}
