// SPDX-License-Identifier: GPL-2.0
/*
 * kprobe events: the command language.  A line written to tracefs
 * "kprobe_events" or "dynamic_events",
 *
 *	p[:[GRP/][EVENT]] [MOD:]SYM[+OFFS]|ADDR [FETCHARGS]
 *	r[MAXACTIVE][:[GRP/][EVENT]] [MOD:]SYM[+0] [FETCHARGS]
 *	p[:[GRP/][EVENT]] [MOD:]SYM[+0]%return [FETCHARGS]
 *	-:[GRP/]EVENT [SYM [FETCHARGS]]
 *
 * is parsed here into a kev_req, the kprobe_ev is made and installed by
 * trace_kprobe.c.  The in-kernel command API of <linux/trace_events.h>,
 * "kprobe_event=" on the kernel command line and the boot-time selftest
 * drive the same path.  Back the other way, a definition is printed as
 * a command (kev_show()) and matched against one (kev_match()).  The
 * tracefs files kprobe_events and kprobe_profile, the dyn_event
 * operations (kev_dyn_ops) and the initcalls are here too.
 *
 * Calls go one way: tracefs write -> this file -> trace_kprobe.c (the
 * kprobe_ev object) -> the trace and kprobe core.  trace_kprobe.c calls
 * nothing here; it only marks its dyn_events with kev_dyn_ops.
 *
 * Locking as in trace_kprobe.c: commands run under dyn_event_ops_mutex
 * (error_log) and take event_mutex to install.
 */
#define pr_fmt(fmt)	"trace_kprobe: " fmt

#include "trace_kprobe_internal.h"
#include "trace_kprobe_selftest.h"

#include <asm/setup.h>	/* COMMAND_LINE_SIZE */

/* ---- command parsing ---- */

/*
 * "p[:EV]" or "r[N][:EV]": the probe type, maxactive and where the event
 * name starts.  Error positions are in argv[0] (log index 0).
 */
static int kev_parse_head(const char *head, struct kev_req *req)
{
	const char *digits = head + 1;
	const char *colon = strchr(digits, ':');
	char num[MAX_EVENT_NAME_LEN];
	size_t len;

	req->is_return = head[0] == 'r';
	req->event = colon ? colon + 1 : NULL;
	if (!isdigit(*digits))
		return 0;

	if (!req->is_return)
		return trace_probe_inval(1, BAD_MAXACT_TYPE);
	len = colon ? colon - digits : strlen(digits);
	if (len >= sizeof(num))
		goto bad;
	memcpy(num, digits, len);
	num[len] = '\0';
	if (kstrtouint(num, 0, &req->maxactive) || !req->maxactive)
		goto bad;
	/* the instances are preallocated; keep that reasonable */
	if (req->maxactive > KEV_MAXACTIVE_LIMIT)
		return trace_probe_inval(1, MAXACT_TOO_BIG);
	return 0;
bad:
	trace_probe_log_err(1, BAD_MAXACT);
	return -EINVAL;
}

/*
 * "ADDR" or "[MOD:]SYM[+OFFS][%return]": the probed place (argv[1]).
 * Returns -ECANCELED for what looks like a uprobe ("PATH:OFFS").
 */
static int kev_parse_place(const char *arg, struct kev_req *req)
{
	unsigned long addr;
	char *suffix;
	int ret;

	if (!kstrtoul(arg, 0, &addr)) {
		req->addr = (void *)addr;
		if (req->is_return)
			req->argflags |= TPARG_FL_RETURN;
		else if (!kprobe_on_func_entry(req->addr, NULL, 0))
			req->argflags |= TPARG_FL_FENTRY;
		return 0;
	}

	trace_probe_log_set_index(1);
	if (strchr(arg, '/') && strchr(arg, ':'))
		return -ECANCELED;

	req->sym = kstrdup(arg, GFP_KERNEL);
	if (!req->sym)
		return -ENOMEM;

	suffix = strchr(req->sym, '%');
	if (suffix) {
		if (strcmp(suffix, "%return"))
			return trace_probe_inval(suffix - req->sym, BAD_ADDR_SUFFIX);
		*suffix = '\0';
		req->is_return = true;
	}

	/* TODO: .init functions of modules */
	if (traceprobe_split_symbol_offset(req->sym, &req->offs) ||
	    req->offs < 0 || req->offs > UINT_MAX)
		return trace_probe_inval(0, BAD_PROBE_ADDR);

	/*
	 * An ambiguous symbol is a malformed request (-EINVAL); one that
	 * does not exist is -ENOENT, as for an address in no text, an
	 * fprobe event on an unknown function and the perf PMU.
	 */
	ret = kev_check_symbol(req->sym);
	if (ret == -EADDRNOTAVAIL)
		return trace_probe_inval(0, NON_UNIQ_SYMBOL);
	if (ret) {
		trace_probe_log_err(0, BAD_PROBE_ADDR);
		return -ENOENT;
	}

	/* -ENOENT (a module not loaded yet) is left to registration */
	ret = kprobe_on_func_entry(NULL, req->sym, req->offs);
	if (req->is_return) {
		if (ret == -EINVAL)
			return trace_probe_inval(0, BAD_RETPROBE);
		req->argflags |= TPARG_FL_RETURN;
	} else if (!ret) {
		req->argflags |= TPARG_FL_FENTRY;
	}
	return 0;
}

/* Log why kev_install() failed, unless it did already. */
static void kev_log_install_error(int err)
{
	/* a registration error is about the probed place */
	trace_probe_log_set_index(1);
	switch (err) {
	case -ENOMEM:
	case -EEXIST:
		break;
	case -EILSEQ:
		trace_probe_log_err(0, BAD_INSN_BNDRY);
		break;
	case -ENOENT:
		trace_probe_log_err(0, BAD_PROBE_ADDR);
		break;
	default:
		trace_probe_log_err(0, FAIL_REG_PROBE);
		break;
	}
}

/*
 * Create one kprobe event from a split command; see the top of this file.
 * Context: process, dyn_event_ops_mutex held.
 */
static int kev_create_argv(int argc, const char *argv[])
{
	struct traceprobe_parse_context ctx = { .flags = TPARG_FL_KERNEL };
	struct kev_req req = { .group = KPROBE_EVENT_SYSTEM };
	struct kprobe_ev *kev = NULL;
	char gbuf[MAX_EVENT_NAME_LEN];
	char nbuf[MAX_EVENT_NAME_LEN];
	char abuf[MAX_BTF_ARGS_LEN];
	const char **xargv = NULL;
	char *dbuf = NULL;
	int xargc, ret;

	if ((argv[0][0] != 'p' && argv[0][0] != 'r') || argc < 2)
		return -ECANCELED;	/* not ours */

	trace_probe_log_init("trace_kprobe", argc, argv);

	ret = kev_parse_head(argv[0], &req);
	if (!ret)
		ret = kev_parse_place(argv[1], &req);
	if (ret)
		goto out;

	trace_probe_log_set_index(0);
	if (req.event) {
		ret = traceprobe_parse_event_name(&req.event, &req.group, gbuf,
						  req.event - argv[0]);
		if (ret)
			goto out;
	}
	if (!req.event) {
		if (req.sym)
			snprintf(nbuf, sizeof(nbuf), "%c_%s_%ld",
				 req.is_return ? 'r' : 'p', req.sym, req.offs);
		else
			snprintf(nbuf, sizeof(nbuf), "%c_0x%p",
				 req.is_return ? 'r' : 'p', req.addr);
		sanitize_event_name(nbuf);
		req.event = nbuf;
	}

	argc -= 2;
	argv += 2;
	ctx.flags |= req.argflags;
	ctx.funcname = req.sym;
	/* "$arg*" and friends may turn into several arguments */
	xargv = traceprobe_expand_meta_args(argc, argv, &xargc, abuf,
					    sizeof(abuf), &ctx);
	ret = PTR_ERR_OR_ZERO(xargv);
	if (ret) {
		xargv = NULL;
		goto out;
	}
	if (xargv) {
		argv = xargv;
		argc = xargc;
	}
	ret = traceprobe_check_nr_args(argc) ?:
	      traceprobe_expand_dentry_args(argc, argv, &dbuf);
	if (ret)
		goto out;

	kev = kev_alloc(&req, argc);
	if (IS_ERR(kev)) {
		ret = PTR_ERR(kev);
		kev = NULL;
		goto out;
	}

	ret = traceprobe_parse_args(&kev->tp, argc, argv, &ctx, kev->is_return ?
				    PROBE_PRINT_RETURN : PROBE_PRINT_NORMAL);
	if (ret)
		goto out;

	ret = kev_install(kev);
	if (ret)
		kev_log_install_error(ret);
	else
		kev = NULL;	/* published */
out:
	traceprobe_finish_parse(&ctx);
	trace_probe_log_clear();
	kev_free(kev);
	kfree(xargv);
	kfree(req.sym);
	kfree(dbuf);
	return ret;
}

/* Run one kprobe_events command: "-:..." deletes, anything else creates. */
static int kev_command(const char *cmd)
{
	int ret = *cmd == '-' ? dyn_event_release(cmd, &kev_dyn_ops) :
				dyn_event_create(cmd, &kev_dyn_ops);

	/* -ECANCELED: the command is no kprobe command at all */
	return ret == -ECANCELED ? -EINVAL : ret;
}

/* ---- listing and matching ---- */

/*
 * Is @arg the place of @kev, as kev_show() prints it?  The symbol is
 * compared in place: "MOD:SYM" may be longer than any argument buffer.
 */
static bool kev_place_is(struct kprobe_ev *kev, const char *arg)
{
	struct kprobe *kp = &kev->krp.kp;
	char tail[24];
	size_t len;

	if (!kev->sym) {
		snprintf(tail, sizeof(tail), "0x%p", kp->addr);
		return !strcmp(tail, arg);
	}
	len = strlen(kev->sym);
	if (strncmp(arg, kev->sym, len))
		return false;
	if (!kp->offset)
		return !arg[len];
	snprintf(tail, sizeof(tail), "+%u", kp->offset);
	return !strcmp(arg + len, tail);
}

static bool kev_match(const char *system, const char *event,
		      int argc, const char **argv, struct dyn_event *ev)
{
	struct kprobe_ev *kev = kev_of_dyn(ev);

	if (event[0] && strcmp(trace_probe_name(&kev->tp), event))
		return false;
	if (system && strcmp(trace_probe_group_name(&kev->tp), system))
		return false;
	if (!argc)
		return true;
	if (!kev_place_is(kev, argv[0]))
		return false;

	return trace_probe_match_command_args(&kev->tp, argc - 1, argv + 1);
}

static int kev_show(struct seq_file *m, struct dyn_event *ev)
{
	struct kprobe_ev *kev = kev_of_dyn(ev);
	struct kprobe *kp = &kev->krp.kp;
	struct probe_arg *arg;

	if (kev->is_return) {
		seq_putc(m, 'r');
		if (kev->krp.maxactive)
			seq_printf(m, "%d", kev->krp.maxactive);
	} else {
		seq_putc(m, 'p');
	}
	seq_printf(m, ":%s/%s", trace_probe_group_name(&kev->tp),
		   trace_probe_name(&kev->tp));

	if (!kev->sym)
		seq_printf(m, " 0x%p", kp->addr);
	else if (kp->offset)
		seq_printf(m, " %s+%u", kev->sym, kp->offset);
	else
		seq_printf(m, " %s", kev->sym);

	for (arg = kev->tp.args; arg < kev->tp.args + kev->tp.nr_args; arg++)
		seq_printf(m, " %s=%s", arg->name, arg->comm);
	seq_putc(m, '\n');
	trace_probe_dump_args(m, &kev->tp);
	return 0;
}

static int kev_seq_show(struct seq_file *m, void *v)
{
	return kev_of_dyn(v) ? kev_show(m, v) : 0;
}

/* kprobe_events and kprobe_profile walk the dyn_event list alike. */
#define KEV_SEQ_OPS(_show) {						\
	.start = dyn_event_seq_start, .next = dyn_event_seq_next,	\
	.stop = dyn_event_seq_stop, .show = _show			\
}

/* ... and are seq_files of the same kind, writable or not */
#define KEV_SEQ_FOPS(_open, _write) {					\
	.owner = THIS_MODULE, .open = _open, .read = seq_read,		\
	.llseek = seq_lseek, .release = seq_release, .write = _write	\
}

static const struct seq_operations kev_seq_ops = KEV_SEQ_OPS(kev_seq_show);

static int kev_events_open(struct inode *inode, struct file *file)
{
	bool truncate = (file->f_mode & FMODE_WRITE) &&
			(file->f_flags & O_TRUNC);
	int ret = security_locked_down(LOCKDOWN_TRACEFS);

	/* "> kprobe_events" removes every kprobe event */
	if (!ret && truncate)
		ret = dyn_events_release_all(&kev_dyn_ops);
	return ret < 0 ? ret : seq_open(file, &kev_seq_ops);
}

static ssize_t kev_events_write(struct file *file, const char __user *buf,
				size_t count, loff_t *ppos)
{
	return trace_parse_run_command(file, buf, count, ppos, kev_command);
}

static const struct file_operations kev_events_fops =
	KEV_SEQ_FOPS(kev_events_open, kev_events_write);

static int kev_profile_show(struct seq_file *m, void *v)
{
	struct kprobe_ev *kev = kev_of_dyn(v);

	if (kev)
		seq_printf(m, "  %-44s %15lu %15lu\n",
			   trace_probe_name(&kev->tp), kev_hit_count(kev),
			   kev_miss_count(kev));
	return 0;
}

static const struct seq_operations kev_profile_seq_ops =
	KEV_SEQ_OPS(kev_profile_show);

static int kev_profile_open(struct inode *inode, struct file *file)
{
	return security_locked_down(LOCKDOWN_TRACEFS) ?:
	       seq_open(file, &kev_profile_seq_ops);
}

static const struct file_operations kev_profile_fops =
	KEV_SEQ_FOPS(kev_profile_open, NULL);

/* ---- in-kernel command API (trace_events.h) ---- */

static int kev_run_cmd(struct dynevent_cmd *cmd)
{
	return kev_command(cmd->seq.buffer);
}

/**
 * kprobe_event_cmd_init - prepare a command that creates a kprobe event
 * @cmd: the command to prepare
 * @buf: the buffer the command text is built in
 * @maxlen: size of @buf
 *
 * Call this first, then kprobe_event_gen_cmd_start() (or
 * kretprobe_event_gen_cmd_start()), optionally kprobe_event_add_fields(),
 * and finally kprobe_event_gen_cmd_end() to create the event.
 * Context: any.
 */
void kprobe_event_cmd_init(struct dynevent_cmd *cmd, char *buf, int maxlen)
{
	dynevent_cmd_init(cmd, buf, maxlen, DYNEVENT_TYPE_KPROBE, kev_run_cmd);
}
EXPORT_SYMBOL_GPL(kprobe_event_cmd_init);

/* Append one word to @cmd. */
static int kev_cmd_add_word(struct dynevent_cmd *cmd, const char *word)
{
	struct dynevent_arg arg;

	dynevent_arg_init(&arg, 0);
	arg.str = word;
	return dynevent_arg_add(cmd, &arg, NULL);
}

/* Append the NULL-terminated fetch arguments @fields to @cmd. */
static int kev_cmd_add_fields(struct dynevent_cmd *cmd, va_list fields)
{
	const char *field;
	int ret = 0;

	while (!ret && (field = va_arg(fields, const char *)))
		ret = ++cmd->n_fields > MAX_TRACE_ARGS ? -EINVAL :
		      kev_cmd_add_word(cmd, field);
	return ret;
}

/**
 * __kprobe_event_gen_cmd_start - start a kprobe event command
 * @cmd: a command prepared by kprobe_event_cmd_init()
 * @kretprobe: create a return probe ("r") rather than a kprobe ("p")
 * @name: the event name; the group is "kprobes"
 * @loc: the probed place, "[MOD:]SYM[+OFFS]" or an address
 * @...: fetch arguments (strings), terminated by NULL
 *
 * Use the kprobe_event_gen_cmd_start() and kretprobe_event_gen_cmd_start()
 * macros, which add the terminating NULL.  More arguments can follow
 * with kprobe_event_add_fields().
 * Context: any.
 *
 * Return: 0, or -EINVAL for a wrong @cmd, a NULL @loc or more than
 * MAX_TRACE_ARGS arguments, or -E2BIG if the command buffer is full.
 */
int __kprobe_event_gen_cmd_start(struct dynevent_cmd *cmd, bool kretprobe,
				 const char *name, const char *loc, ...)
{
	char head[MAX_EVENT_NAME_LEN];
	va_list fields;
	int ret;

	if (cmd->type != DYNEVENT_TYPE_KPROBE || !loc)
		return -EINVAL;

	snprintf(head, sizeof(head), "%c:%s/%s", kretprobe ? 'r' : 'p',
		 KPROBE_EVENT_SYSTEM, name);
	ret = dynevent_str_add(cmd, head);
	if (!ret)
		ret = kev_cmd_add_word(cmd, loc);
	if (!ret) {
		va_start(fields, loc);
		ret = kev_cmd_add_fields(cmd, fields);
		va_end(fields);
	}
	return ret;
}
EXPORT_SYMBOL_GPL(__kprobe_event_gen_cmd_start);

/**
 * __kprobe_event_add_fields - add fetch arguments to a kprobe event command
 * @cmd: a command started with __kprobe_event_gen_cmd_start()
 * @...: fetch arguments (strings), terminated by NULL
 *
 * Use the kprobe_event_add_fields() macro, which adds the terminating
 * NULL.  The arguments are appended in order.
 * Context: any.
 *
 * Return: 0, or -EINVAL for a wrong @cmd or more than MAX_TRACE_ARGS
 * arguments in all, or -E2BIG if the command buffer is full.
 */
int __kprobe_event_add_fields(struct dynevent_cmd *cmd, ...)
{
	va_list fields;
	int ret;

	if (cmd->type != DYNEVENT_TYPE_KPROBE)
		return -EINVAL;

	va_start(fields, cmd);
	ret = kev_cmd_add_fields(cmd, fields);
	va_end(fields);
	return ret;
}
EXPORT_SYMBOL_GPL(__kprobe_event_add_fields);

/**
 * kprobe_event_delete - delete a kprobe event
 * @name: the event, as "EVENT" or "GROUP/EVENT"
 *
 * Context: process, may sleep; takes event_mutex.
 *
 * Return: 0, -ENOENT if there is no such event, -EBUSY if it is in use.
 */
int kprobe_event_delete(const char *name)
{
	char cmd[MAX_EVENT_NAME_LEN];

	snprintf(cmd, sizeof(cmd), "-:%s", name);
	return kev_command(cmd);
}
EXPORT_SYMBOL_GPL(kprobe_event_delete);

/* ---- boot time ---- */

/* "kprobe_event=CMD[;CMD...]", commas standing for spaces */
static char kev_boot_cmds[COMMAND_LINE_SIZE] __initdata;

static int __init kev_boot_param(char *str)
{
	strscpy(kev_boot_cmds, str, sizeof(kev_boot_cmds));
	disable_tracing_selftest("running kprobe events");
	return 1;
}
__setup("kprobe_event=", kev_boot_param);

static void __init kev_boot_events(void)
{
	struct trace_array *tr = top_trace_array();
	struct trace_event_file *file;
	char *rest = kev_boot_cmds, *cmd;
	int ret;

	strreplace(kev_boot_cmds, ',', ' ');
	while ((cmd = strsep(&rest, ";"))) {
		if (!*cmd)
			continue;
		ret = kev_command(cmd);
		if (ret)
			pr_warn("Failed to add event(%d): %s\n", ret, cmd);
	}

	/* kprobe events defined so far record from the start */
	if (!tr)
		return;
	guard(mutex)(&event_mutex);
	list_for_each_entry(file, &tr->events, list)
		if (file->event_call->class->reg == kev_reg)
			trace_event_enable_disable(file, 1, 0);
}

/* ---- initialisation ---- */

/* dyn_event .create.  Context: process, dyn_event_ops_mutex held. */
static int kev_create(const char *raw_command)
{
	return trace_probe_create(raw_command, kev_create_argv);
}

struct dyn_event_operations kev_dyn_ops = {
	.create = kev_create, .show = kev_show, .is_busy = kev_busy,
	.free = kev_release, .match = kev_match,
};

/*
 * The dyn_event type exists from core_initcall on, so that kernel code
 * can create kprobe events before tracefs is up.
 */
static __init int kev_init_early(void)
{
	int ret;

	ret = dyn_event_register(&kev_dyn_ops);
	if (ret)
		return ret;
	return kev_module_notifier_init() ? -EINVAL : 0;
}
core_initcall(kev_init_early);

static __init int kev_init_tracefs(void)
{
	if (tracing_init_dentry())
		return 0;

	trace_create_file("kprobe_events", TRACE_MODE_WRITE, NULL, NULL,
			  &kev_events_fops);
	trace_create_file("kprobe_profile", TRACE_MODE_READ, NULL, NULL,
			  &kev_profile_fops);
	kev_boot_events();
	return 0;
}
fs_initcall(kev_init_tracefs);

#ifdef CONFIG_FTRACE_STARTUP_TEST
/*
 * Boot-time selftest: an entry probe and a return probe on
 * kprobe_trace_selftest_target() must each hit once per call.  Runs
 * alone at late_initcall, so it drives the events without event_mutex.
 */
static struct {
	const char *cmd;
	const char *name;
} kev_selftests[] __initdata = {
	{ "p:testprobe kprobe_trace_selftest_target $stack $stack0 +0($stack)",
	  "testprobe" },
	{ "r:testprobe2 kprobe_trace_selftest_target $retval", "testprobe2" },
};

static __init struct trace_event_file *kev_selftest_file(const char *name)
{
	struct trace_array *tr = top_trace_array();
	struct trace_event_file *file;
	struct kprobe_ev *kev;

	kev = kev_find(name, KPROBE_EVENT_SYSTEM);
	if (!kev || !tr)
		return NULL;
	list_for_each_entry(file, &tr->events, list)
		if (file->event_call == trace_probe_event_call(&kev->tp))
			return file;
	return NULL;
}

static __init int kev_selftest(void)
{
	typeof(&kprobe_trace_selftest_target) target;
	struct trace_event_file *file;
	int i, bad = 0;

	if (tracing_is_disabled())
		return -ENODEV;
	if (tracing_selftest_disabled)
		return 0;

	for (i = 0; i < ARRAY_SIZE(kev_selftests); i++) {
		file = NULL;
		if (!kev_command(kev_selftests[i].cmd))
			file = kev_selftest_file(kev_selftests[i].name);
		if (WARN_ONCE(!file, "error on creating probe %s.",
			      kev_selftests[i].name))
			bad++;
		else
			kev_event_enable(file->event_call, file);
	}
	if (bad)
		goto done;

	/* the result keeps the compiler from dropping the call */
	target = kprobe_trace_selftest_target;
	if (target(1, 2, 3, 4, 5, 6) != 21)
		bad++;

	for (i = 0; i < ARRAY_SIZE(kev_selftests); i++) {
		file = kev_selftest_file(kev_selftests[i].name);
		if (WARN_ONCE(!file, "error on getting probe %s.",
			      kev_selftests[i].name)) {
			bad++;
			continue;
		}
		if (WARN_ONCE(kev_hit_count(kev_of_call(file->event_call)) != 1,
			      "incorrect number of %s hits.",
			      kev_selftests[i].name))
			bad++;
		kev_event_disable(file->event_call, file);
	}

	for (i = 0; i < ARRAY_SIZE(kev_selftests); i++) {
		char cmd[MAX_EVENT_NAME_LEN];

		snprintf(cmd, sizeof(cmd), "-:%s", kev_selftests[i].name);
		if (WARN_ONCE(kev_command(cmd), "error on deleting a probe."))
			bad++;
	}
done:
	/* the optimizer must not touch probes in freed __init text */
	wait_for_kprobe_optimizer();
	pr_info("Testing kprobe tracing: %s\n",
		bad ? "NG: Some tests are failed. Please check them." : "OK");
	return 0;
}
late_initcall(kev_selftest);
#endif /* CONFIG_FTRACE_STARTUP_TEST */
