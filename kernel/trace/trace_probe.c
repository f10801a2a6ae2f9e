// SPDX-License-Identifier: GPL-2.0
/*
 * The fetch-argument engine of the probe-based dynamic events.
 *
 * Each fetch argument of a probe definition ("NAME=EXPR:TYPE") goes
 * through one pipeline:
 *
 *  1. parse   traceprobe_parse_probe_arg() splits NAME, EXPR and TYPE,
 *             looks TYPE up in fetch_types[] and parses EXPR recursively
 *             (parse_expr()) into a scratch struct fetch_prog;
 *  2. program finish_prog() appends the STORE, MOD_BF and LP_ARRAY steps
 *             the type asks for, so that every program has the shape
 *             [NOP_SYMBOL] LOAD DEREF* STORE [MOD_BF] [LP_ARRAY] END
 *             (see enum fetch_op), and the program is copied to its
 *             final, exactly sized array (probe_arg.code).  Symbols
 *             (@SYM) are resolved later by traceprobe_update_arg();
 *  3. record  on a hit the front end runs LOAD and
 *             process_fetch_insn_bottom() (trace_probe_tmpl.h) the rest;
 *             store_trace_args() gives each argument its fixed slot and
 *             strings a __data_loc into the dynamic area after them;
 *  4. print   trace_probe_print_args() prints a record as text, and the
 *             same types describe the event's format file
 *             (traceprobe_define_arg_fields()) and its print fmt
 *             (traceprobe_set_print_fmt()).
 *
 * The engine is three files, and calls between them go one way:
 *
 *	trace_probe.c -> trace_probe_btf.c -> trace_probe_event.c
 *
 * (trace_probe.c calls trace_probe_event.c directly too).  This one has
 * stages 1 and 2; trace_probe_btf.c the arguments named by BTF and the
 * "$arg*" expansion; trace_probe_event.c what both build on (error_log,
 * the fetch types and stage 4, freeing arguments, the entry data of
 * return probes) and the event format, print fmt and probes with their
 * events.
 *
 * Errors are reported to tracefs error_log with the position of the
 * offending character; ctx->offset is the position of the expression
 * being parsed inside the current word of the command.
 *
 * Locking: parsing, updating and freeing probe definitions run under
 * dyn_event_ops_mutex (the error_log state is protected by it too);
 * registering events additionally under event_mutex.  The record and
 * print stages are lockless.
 */
#define pr_fmt(fmt)	"trace_probe: " fmt

#include <linux/bpf.h>
#include <linux/fs.h>
#include <linux/glob.h>
#include "trace_btf.h"

#include "trace_probe_internal.h"

/* ------------------------------------------------------------------ */
/* The number of arguments                                            */

/**
 * traceprobe_check_nr_args - refuse a command with too many arguments
 * @nr: its fetch arguments, "$arg*" expanded
 *
 * A refusal is logged under the command's first argument (its third
 * word), as upstream's error_log shows it.  Context: under
 * dyn_event_ops_mutex, with the command's log open.
 *
 * Return: 0, or -E2BIG for more than MAX_TRACE_ARGS.
 */
int traceprobe_check_nr_args(int nr)
{
	if (nr <= MAX_TRACE_ARGS)
		return 0;
	trace_probe_log_set_index(2);
	return trace_probe_fail(0, TOO_MANY_ARGS, -E2BIG);
}

/* ------------------------------------------------------------------ */
/* Event names and probe points                                       */

/**
 * traceprobe_split_symbol_offset - split "SYM+OFFS" or "SYM-OFFS"
 * @symbol: the string; cut at the sign on success
 * @offset: where the signed offset goes (0 if there is none)
 *
 * Return: 0, or -EINVAL / -ERANGE for a bad offset.
 */
int traceprobe_split_symbol_offset(char *symbol, long *offset)
{
	char *sign = strpbrk(symbol, "+-");
	int ret = 0;

	if (!offset)
		return -EINVAL;
	*offset = 0;
	if (sign) {
		ret = kstrtol(sign, 0, offset);
		if (!ret)
			*sign = '\0';
	}
	return ret;
}

/**
 * traceprobe_parse_event_name - parse "[GROUP/]EVENT" (or GROUP.EVENT)
 * @pevent: in: the string; out: the event name, NULL if only "GROUP/"
 * @pgroup: out: the group name when one is given
 * @buf: MAX_EVENT_NAME_LEN bytes to hold the group name
 * @offset: error_log position of the string in the current word
 *
 * Context: dyn_event_ops_mutex held (errors go to error_log).
 * Return: 0 or -EINVAL.
 */
int traceprobe_parse_event_name(const char **pevent, const char **pgroup,
				char *buf, int offset)
{
	const char *name = *pevent;
	const char *sep = strchr(name, '/');
	size_t len;

	if (!sep)
		sep = strchr(name, '.');
	if (sep) {
		len = sep - name;
		if (!len)
			return trace_probe_inval(offset, NO_GROUP_NAME);
		if (len >= MAX_EVENT_NAME_LEN)
			return trace_probe_inval(offset, GROUP_TOO_LONG);
		memcpy(buf, name, len);
		buf[len] = '\0';
		if (!is_good_system_name(buf))
			return trace_probe_inval(offset, BAD_GROUP_NAME);
		*pgroup = buf;
		name = sep + 1;
		*pevent = name;
		offset += len + 1;
	}

	len = strlen(name);
	if (!len && sep) {
		/* "GROUP/" alone: the caller names the event */
		*pevent = NULL;
		return 0;
	}
	if (!len)
		return trace_probe_inval(offset, NO_EVENT_NAME);
	if (len >= MAX_EVENT_NAME_LEN)
		return trace_probe_inval(offset, EVENT_TOO_LONG);
	if (!is_good_name(name))
		return trace_probe_inval(offset, BAD_EVENT_NAME);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Stage 1: parse an expression into LOAD and DEREF instructions       */

/* Deepest $stackN a kernel probe may read. */
#define PARAM_MAX_STACK (THREAD_SIZE / sizeof(unsigned long))

/* The field @name of the trace event a tprobe/eprobe reads, or NULL. */
static struct ftrace_event_field *
tevent_field(struct traceprobe_parse_context *ctx, const char *name)
{
	struct ftrace_event_field *field;

	if (!(ctx->flags & TPARG_FL_TEVENT))
		return NULL;
	list_for_each_entry(field, trace_get_fields(ctx->event), link)
		if (!strcmp(field->name, name))
			return field;
	return NULL;
}

/* "$name": a variable.  @var points at the '$'. */
static int parse_var(char *var, struct fetch_prog *prog,
		     struct traceprobe_parse_context *ctx)
{
	struct fetch_insn *insn = prog_cur(prog);
	const char *name = var + 1;
	struct ftrace_event_field *field;
	int err = TP_ERR_BAD_VAR;
	unsigned long n;
	int len;

	/* a trace event's own fields first, then $comm: nothing else */
	field = tevent_field(ctx, name);
	if (field) {
		insn->op = FETCH_OP_TP_ARG;
		insn->data = field;
		return 0;
	}
	if (!strcmp(name, "comm") || !strcmp(name, "COMM")) {
		insn->op = FETCH_OP_COMM;
		return 0;
	}
	len = str_has_prefix(name, "current");
	if (len && (!name[len] || name[len] == '-' || name[len] == '.')) {
		/* a kernel address: of no use to a uprobe, which reads user memory */
		if (!(ctx->flags & TPARG_FL_KERNEL))
			goto bad;
		if (!name[len]) {
			insn->op = FETCH_OP_CURRENT;
			return 0;
		}
		/* "$current->member": a task_struct pointer, typed by BTF */
		if (!IS_ENABLED(CONFIG_PROBE_EVENTS_BTF_ARGS))
			return trace_probe_inval(ctx->offset, NOSUP_BTFARG);
		return trace_probe_parse_btf_arg(var, prog, ctx);
	}
	if (ctx->flags & TPARG_FL_TEVENT)
		goto bad;

	if (str_has_prefix(name, "retval")) {
		if (!(ctx->flags & TPARG_FL_RETURN))
			return trace_probe_inval(ctx->offset, RETVAL_ON_PROBE);
		if (IS_ENABLED(CONFIG_PROBE_EVENTS_BTF_ARGS) &&
		    (ctx->flags & TPARG_FL_KERNEL))
			return trace_probe_parse_btf_arg(var, prog, ctx);
		insn->op = FETCH_OP_RETVAL;
		return 0;
	}

	len = str_has_prefix(name, "stack");
	if (len) {
		if (!name[len]) {
			insn->op = FETCH_OP_STACKP;
			return 0;
		}
		if (!isdigit(name[len]) || kstrtoul(name + len, 10, &n))
			goto bad;
		if ((ctx->flags & TPARG_FL_KERNEL) && n > PARAM_MAX_STACK)
			return trace_probe_inval(ctx->offset, BAD_STACK_NUM);
		insn->op = FETCH_OP_STACK;
		insn->param = n;
		return 0;
	}

	len = str_has_prefix(name, "arg");
	if (len && IS_ENABLED(CONFIG_HAVE_FUNCTION_ARG_ACCESS_API)) {
		int slot;

		if (kstrtoul(name + len, 10, &n))
			goto bad;
		if (!n || n > PARAM_MAX_STACK)
			return trace_probe_inval(ctx->offset, BAD_ARG_NUM);
		/* $arg1 is the first argument, number 0 */
		if (tparg_is_function_entry(ctx->flags)) {
			insn->op = FETCH_OP_ARG;
			/* a tracepoint stub's first argument is not shown */
			insn->param = n - 1 + !!(ctx->flags & TPARG_FL_TPOINT);
			return 0;
		}
		if (tparg_is_function_return(ctx->flags)) {
			slot = trace_probe_save_entry_arg(ctx->tp, n - 1);
			if (slot < 0)
				return slot;
			insn->op = FETCH_OP_EDATA;
			insn->offset = slot;
			return 0;
		}
		err = TP_ERR_NOFENTRY_ARGS;
	}
bad:
	return __trace_probe_fail(ctx->offset, err, -EINVAL);
}

/* "@ADDR", "@+FOFFS" or "@SYM[+|-offs]": a memory location. */
static int parse_memory(char *arg, struct fetch_prog *prog,
			struct traceprobe_parse_context *ctx)
{
	struct fetch_insn *insn = prog_cur(prog);
	unsigned long addr;
	long foffs;
	int ret;

	if (isdigit(arg[1])) {
		ret = kstrtoul(arg + 1, 0, &addr);
		if (ret)
			return trace_probe_fail(ctx->offset, BAD_MEM_ADDR, ret);
		insn->op = FETCH_OP_IMM;
		insn->immediate = addr;
	} else if (arg[1] == '+') {
		if (ctx->flags & TPARG_FL_KERNEL)
			return trace_probe_inval(ctx->offset, FILE_ON_KPROBE);
		ret = kstrtol(arg + 2, 0, &foffs);
		if (ret)
			return trace_probe_fail(ctx->offset, BAD_FILE_OFFS, ret);
		insn->op = FETCH_OP_FOFFS;
		insn->immediate = foffs;
	} else {
		if (!(ctx->flags & TPARG_FL_KERNEL))
			return trace_probe_inval(ctx->offset, SYM_ON_UPROBE);
		/* the name waits for traceprobe_update_arg() */
		insn->op = FETCH_NOP_SYMBOL;
		insn->data = kstrdup(arg + 1, GFP_KERNEL);
		if (!insn->data)
			return -ENOMEM;
		insn = prog_next_or_log(prog, ctx->offset);
		if (!insn)
			return -EINVAL;
		insn->op = FETCH_OP_IMM;
		insn->immediate = 0;
	}

	/* the location is read, not taken */
	insn = prog_next_or_log(prog, ctx->offset);
	if (!insn)
		return -EINVAL;
	insn->op = FETCH_OP_DEREF;
	insn->offset = 0;
	return 0;
}

static int parse_expr(char *arg, struct fetch_prog *prog,
		      struct traceprobe_parse_context *ctx);

/* "+|-[u]OFFS(EXPR)": read memory at EXPR + OFFS. */
static int parse_deref(char *arg, struct fetch_prog *prog,
		       struct traceprobe_parse_context *ctx)
{
	bool user = arg[1] == 'u';
	char *num, *open, *inner, *close;
	struct fetch_insn *insn;
	int inner_offs, ret;
	long offs;

	/* the number keeps a '-' sign, a '+' one is dropped */
	num = arg + 1 + user;
	if (arg[0] == '-')
		*--num = '-';
	open = strchr(num, '(');
	if (!open)
		return trace_probe_inval(ctx->offset, DEREF_NEED_BRACE);
	*open = '\0';
	ret = kstrtol(num, 0, &offs);
	if (ret)
		return trace_probe_fail(ctx->offset, BAD_DEREF_OFFS, ret);

	/*
	 * Errors inside the braces are reported relative to the inner
	 * expression.  error_log has always counted that from the number
	 * text, plus one unless the number starts with '-': keep it, so
	 * that carets stay where users and tests expect them (this places
	 * them one short after "+u", "-u" and "+-").
	 */
	inner = open + 1;
	inner_offs = ctx->offset + (inner - num) + (num[0] != '-');
	ctx->offset = inner_offs;
	close = strrchr(inner, ')');
	if (!close)
		return trace_probe_inval(ctx->offset + strlen(inner), DEREF_OPEN_BRACE);
	*close = '\0';

	ret = parse_expr(inner, prog, ctx);
	if (ret)
		return ret;
	ctx->offset = inner_offs;

	insn = prog_cur(prog);
	if (insn->op == FETCH_OP_COMM || insn->op == FETCH_OP_DATA)
		return trace_probe_inval(ctx->offset, COMM_CANT_DEREF);
	insn = prog_next_or_log(prog, ctx->offset);
	if (!insn)
		return -EINVAL;
	insn->op = user ? FETCH_OP_UDEREF : FETCH_OP_DEREF;
	insn->offset = offs;
	/* what BTF said about the inner value no longer applies */
	ctx->last_type = NULL;
	return 0;
}

/*
 * "this_cpu_ptr(EXPR)" and "this_cpu_read(EXPR)", as the kernel's macros:
 * EXPR is the __percpu address of a per-CPU variable (for "@SYM", the
 * per-CPU symbol SYM itself, not the memory at its address), and the
 * value is the address of this CPU's copy, or what that copy holds.
 */
static int parse_this_cpu(char *arg, struct fetch_prog *prog,
			  struct traceprobe_parse_context *ctx)
{
	int base = ctx->offset, len, ret;
	struct fetch_insn *insn;
	char *inner, *close;
	bool read;

	len = str_has_prefix(arg, "this_cpu_read(");
	read = len;
	if (!len)
		len = str_has_prefix(arg, "this_cpu_ptr(");
	if (!(ctx->flags & TPARG_FL_KERNEL))
		return trace_probe_inval(base, NOSUP_PERCPU);

	inner = arg + len;
	close = strrchr(inner, ')');
	if (!close)
		return trace_probe_inval(base + len + strlen(inner), DEREF_OPEN_BRACE);
	if (close[1])
		return trace_probe_inval(base + (close + 1 - arg), BAD_FETCH_ARG);
	*close = '\0';
	ctx->offset = base + len;
	ret = parse_expr(inner, prog, ctx);
	if (ret)
		return ret;
	ctx->offset = base;

	insn = prog_cur(prog);
	if (inner[0] == '@' && !isdigit(inner[1]) && insn->op == FETCH_OP_DEREF) {
		/* the symbol is the variable: take its address, do not read it */
		insn->op = FETCH_OP_NOP;
		prog->cur--;
	} else if (insn->op == FETCH_OP_COMM || insn->op == FETCH_OP_DATA) {
		return trace_probe_inval(base + len, COMM_CANT_DEREF);
	}

	insn = prog_next_or_log(prog, base);
	if (!insn)
		return -EINVAL;
	insn->op = FETCH_OP_CPU_PTR;
	if (read) {
		insn = prog_next_or_log(prog, base);
		if (!insn)
			return -EINVAL;
		insn->op = FETCH_OP_DEREF;
		insn->offset = 0;
	}
	ctx->last_type = NULL;
	return 0;
}

/*
 * Where the fetch argument after a typecast ends: after the ')' that
 * closes a parenthesized one, else at its first "->".
 */
static char *typecast_var_end(char *var)
{
	int depth = 0;
	char *p;

	if (var[0] != '(') {
		p = strstr(var, "->");
		return p ? p : var + strlen(var);
	}
	for (p = var; *p; p++) {
		if (*p == '(')
			depth++;
		else if (*p == ')' && !--depth)
			return p + 1;
	}
	return NULL;
}

/*
 * "(STRUCT[,FIELD[.FIELD...]])VAR->MEMBER...": VAR, a pointer, taken as
 * a pointer to struct STRUCT (with FIELD, to that member of one, as
 * container_of() does), whose members BTF then names.  VAR is a name (an
 * eprobe's field needs no '$') or any fetch argument in parentheses,
 * another typecast included.  A '(' not followed by a C identifier is
 * an invalid fetch argument, as it was before typecasts.
 */
static int parse_typecast(char *arg, struct fetch_prog *prog,
			  struct traceprobe_parse_context *ctx)
{
	int base = ctx->offset, ret;
	char *close, *var, *end, *p;
	struct ftrace_event_field *field;
	struct fetch_insn *insn;

	/* not "(NAME" with a C identifier: no typecast, as before 7.x */
	for (p = arg + 1; isalnum(*p) || *p == '_'; p++)
		;
	if (!(isalpha(arg[1]) || arg[1] == '_') || (*p != ')' && *p != ','))
		return trace_probe_inval(base, BAD_FETCH_ARG);

	if (!(ctx->flags & TPARG_FL_KERNEL) ||
	    !IS_ENABLED(CONFIG_PROBE_EVENTS_BTF_ARGS) ||
	    !((ctx->flags & TPARG_FL_TEVENT) ||
	      tparg_is_function_entry(ctx->flags) ||
	      tparg_is_function_return(ctx->flags)))
		return trace_probe_inval(base, NOSUP_BTFARG);

	close = strchr(arg, ')');
	if (!close)
		return trace_probe_inval(base + strlen(arg), DEREF_OPEN_BRACE);
	*close = '\0';
	var = close + 1;
	end = typecast_var_end(var);
	if (!end)
		return trace_probe_inval(base + (var - arg) + strlen(var),
					 DEREF_OPEN_BRACE);
	if (!str_has_prefix(end, "->"))
		return trace_probe_inval(base + (end - arg), TYPECAST_REQ_FIELD);
	if (var[0] == '@' && !isdigit(var[1]) && strpbrk(var, "+-") < end)
		return trace_probe_inval(base + (var - arg), TYPECAST_SYM_OFFSET);
	*end = '\0';
	if (var[0] == '(') {
		var++;
		end[-1] = '\0';
	}

	ctx->offset = base + (var - arg);
	if ((ctx->flags & TPARG_FL_TEVENT) && (isalpha(var[0]) || var[0] == '_')) {
		field = tevent_field(ctx, var);
		if (!field)
			return trace_probe_inval(ctx->offset, NO_EVENT_FIELD);
		insn = prog_cur(prog);
		insn->op = FETCH_OP_TP_ARG;
		insn->data = field;
	} else {
		/* MAX_ARGSTR_LEN bounds the nesting: a cast takes 8 characters */
		ret = parse_expr(var, prog, ctx);
		if (ret)
			return ret;
		insn = prog_cur(prog);
		if (insn->op == FETCH_OP_COMM || insn->op == FETCH_OP_DATA)
			return trace_probe_inval(ctx->offset, COMM_CANT_DEREF);
	}

	return trace_probe_parse_btf_typecast(arg + 1, base + 1, end + 2,
					      base + (end + 2 - arg), prog, ctx);
}

/* "\IMM" or "\"STRING\"": a constant. */
static int parse_immediate(char *arg, struct fetch_prog *prog,
			   struct traceprobe_parse_context *ctx)
{
	struct fetch_insn *insn = prog_cur(prog);
	char *body = arg + 1;
	unsigned long imm;
	size_t len;
	int ret;

	if (body[0] == '"') {
		body++;
		len = strlen(body);
		if (!len || body[len - 1] != '"')
			return trace_probe_inval(ctx->offset + 2 + len, IMMSTR_NO_CLOSE);
		insn->data = kstrndup(body, len - 1, GFP_KERNEL);
		if (!insn->data)
			return -ENOMEM;
		insn->op = FETCH_OP_DATA;
		return 0;
	}

	if (isdigit(body[0]))
		ret = kstrtoul(body, 0, &imm);
	else if (body[0] == '-')
		ret = kstrtol(body, 0, (long *)&imm);
	else if (body[0] == '+')
		ret = kstrtol(body + 1, 0, (long *)&imm);
	else
		ret = -EINVAL;
	if (ret)
		return trace_probe_fail(ctx->offset + 1, BAD_IMM, ret);
	insn->op = FETCH_OP_IMM;
	insn->immediate = imm;
	return 0;
}

/*
 * Parse one expression into @prog: its LOAD goes to the current slot,
 * dereferences after it.  On success the current slot is the last
 * instruction written.
 */
static int parse_expr(char *arg, struct fetch_prog *prog,
		      struct traceprobe_parse_context *ctx)
{
	struct fetch_insn *insn;
	int ret = 0;

	switch (arg[0]) {
	case '$':
		ret = parse_var(arg, prog, ctx);
		break;
	case '%':
		if (ctx->flags & (TPARG_FL_TEVENT | TPARG_FL_FPROBE)) {
			/* no register set there; error_log shows it twice */
			trace_probe_log_err(ctx->offset, BAD_VAR);
			break;
		}
		ret = regs_query_register_offset(arg + 1);
		if (ret < 0) {
			trace_probe_log_err(ctx->offset, BAD_REG_NAME);
			break;
		}
		insn = prog_cur(prog);
		insn->op = FETCH_OP_REG;
		insn->param = ret;
		ret = 0;
		break;
	case '@':
		ret = parse_memory(arg, prog, ctx);
		break;
	case '+':
	case '-':
		ret = parse_deref(arg, prog, ctx);
		break;
	case '\\':
		ret = parse_immediate(arg, prog, ctx);
		break;
	case '(':
		ret = parse_typecast(arg, prog, ctx);
		break;
	default:
		if (!isalpha(arg[0]) && arg[0] != '_')
			break;
		if (str_has_prefix(arg, "this_cpu_read(") ||
		    str_has_prefix(arg, "this_cpu_ptr(")) {
			ret = parse_this_cpu(arg, prog, ctx);
			break;
		}
		/* a parameter name, known from BTF */
		if (!tparg_is_function_entry(ctx->flags) &&
		    !tparg_is_function_return(ctx->flags))
			return trace_probe_inval(ctx->offset, NOSUP_BTFARG);
		ret = trace_probe_parse_btf_arg(arg, prog, ctx);
		break;
	}

	if (!ret && prog_cur(prog)->op == FETCH_OP_NOP) {
		trace_probe_log_err(ctx->offset, BAD_FETCH_ARG);
		ret = -EINVAL;
	}
	return ret;
}

/* ------------------------------------------------------------------ */
/* Stage 2: complete the program for the argument's type              */

/* The ops a string store may follow (it reads from their address). */
static bool op_gives_string_addr(enum fetch_op op)
{
	return op == FETCH_OP_DEREF || op == FETCH_OP_UDEREF ||
	       op == FETCH_OP_IMM || op == FETCH_OP_COMM ||
	       op == FETCH_OP_DATA || op == FETCH_OP_TP_ARG;
}

/* The ops whose value "symstr" may print as a symbol. */
static bool op_gives_symbol_addr(enum fetch_op op)
{
	return op == FETCH_OP_REG || op == FETCH_OP_STACK ||
	       op == FETCH_OP_RETVAL || op == FETCH_OP_ARG ||
	       op == FETCH_OP_DEREF || op == FETCH_OP_TP_ARG;
}

/* Add the STORE of a string type; the last DEREF becomes the store. */
static int add_string_store(struct fetch_prog *prog, struct probe_arg *parg,
			    int type_offs, struct traceprobe_parse_context *ctx)
{
	bool symstr = !strcmp(parg->type->name, "symstr");
	struct fetch_insn *insn = prog_cur(prog);

	if (symstr ? !op_gives_symbol_addr(insn->op) :
		     !op_gives_string_addr(insn->op)) {
		if (symstr)
			trace_probe_log_err(ctx->offset + type_offs, BAD_SYMSTRING);
		else
			trace_probe_log_err(ctx->offset + type_offs, BAD_STRING);
		return -EINVAL;
	}

	/*
	 * A dereference is turned into the store, which reads the string
	 * from where the dereference would have read.  Values that are the
	 * address themselves, symbols and arrays of string pointers keep
	 * theirs and get a separate store.
	 */
	if (symstr || parg->count || insn->op == FETCH_OP_IMM ||
	    insn->op == FETCH_OP_COMM || insn->op == FETCH_OP_DATA ||
	    insn->op == FETCH_OP_TP_ARG) {
		insn = prog_next_or_log(prog, ctx->offset);
		if (!insn)
			return -EINVAL;
	}

	if (!strcmp(parg->type->name, "ustring") || insn->op == FETCH_OP_UDEREF)
		insn->op = FETCH_OP_ST_USTRING;
	else if (symstr)
		insn->op = FETCH_OP_ST_SYMSTR;
	else
		insn->op = FETCH_OP_ST_STRING;
	insn->size = parg->type->size;
	parg->dynamic = true;
	return 0;
}

/* "b<width>@<offset>/<container>": add the MOD_BF that extracts it. */
static int add_bitfield(const char *type, struct fetch_prog *prog,
			const struct fetch_type *t)
{
	unsigned int cbits = BITS_PER_BYTE * t->size;
	unsigned long width, shift;
	struct fetch_insn *insn;
	char *end;

	width = simple_strtoul(type + 1, &end, 0);
	if (!width || *end != '@')
		return -EINVAL;
	type = end + 1;
	shift = simple_strtoul(type, &end, 0);
	if (end == type || *end != '/')
		return -EINVAL;
	/* Each alone first: their sum may wrap. */
	if (width > cbits || shift >= cbits || width + shift > cbits)
		return -EINVAL;

	insn = prog_next(prog);
	if (!insn)
		return -EINVAL;
	insn->op = FETCH_OP_MOD_BF;
	insn->basesize = t->size;
	insn->lshift = cbits - (width + shift);
	insn->rshift = cbits - width;
	return 0;
}

/*
 * Append STORE, MOD_BF, LP_ARRAY and END to the parsed expression.
 * @type is the text after ':' (NULL if none) at @type_offs in the body.
 */
static int finish_prog(struct fetch_prog *prog, struct probe_arg *parg,
		       const char *type, int type_offs,
		       struct traceprobe_parse_context *ctx)
{
	struct fetch_insn *insn = prog_cur(prog);
	struct fetch_insn *store;
	int ret;

	if (parg->type->is_string) {
		ret = add_string_store(prog, parg, type_offs, ctx);
		if (ret)
			return ret;
	} else if (insn->op == FETCH_OP_DEREF || insn->op == FETCH_OP_UDEREF) {
		/* read the value itself instead of a pointer */
		insn->op = insn->op == FETCH_OP_DEREF ? FETCH_OP_ST_MEM :
							FETCH_OP_ST_UMEM;
		insn->size = parg->type->size;
	} else {
		insn = prog_next_or_log(prog, ctx->offset);
		if (!insn)
			return -E2BIG;
		insn->op = FETCH_OP_ST_RAW;
		insn->size = parg->type->size;
	}
	store = prog_cur(prog);

	if (type && type[0] == 'b') {
		ret = add_bitfield(type, prog, parg->type);
		if (ret)
			return trace_probe_fail(ctx->offset + type_offs, BAD_BITFIELD, ret);
	} else if (!type && IS_ENABLED(CONFIG_PROBE_EVENTS_BTF_ARGS) &&
		   ctx->last_type) {
		ret = trace_probe_add_btf_bitfield(prog, parg->type, ctx);
		if (ret)
			return ret;
	}

	if (parg->count) {
		if (store->op != FETCH_OP_ST_MEM &&
		    store->op != FETCH_OP_ST_STRING &&
		    store->op != FETCH_OP_ST_USTRING)
			return trace_probe_inval(ctx->offset + type_offs, BAD_STRING);
		insn = prog_next_or_log(prog, ctx->offset);
		if (!insn)
			return -E2BIG;
		insn->op = FETCH_OP_LP_ARRAY;
		insn->param = parg->count;
	}

	prog->insn[++prog->cur].op = FETCH_OP_END;
	return 0;
}

/* ------------------------------------------------------------------ */
/* One fetch argument                                                 */

/*
 * "[N]" after a type: @lb follows the '[' (at @arg + its offset in the
 * body).  Sets parg->count.
 */
static int parse_array_count(char *lb, const char *arg, struct probe_arg *parg,
			     struct traceprobe_parse_context *ctx)
{
	char *rb = strchr(lb, ']');
	int err;

	if (!rb) {
		lb += strlen(lb);
		err = TP_ERR_ARRAY_NO_CLOSE;
	} else if (rb[1]) {
		lb = rb + 1;
		err = TP_ERR_BAD_ARRAY_SUFFIX;
	} else {
		*rb = '\0';
		if (kstrtouint(lb, 0, &parg->count) || !parg->count)
			err = TP_ERR_BAD_ARRAY_NUM;
		else if (parg->count > MAX_ARRAY_LEN)
			err = TP_ERR_ARRAY_TOO_BIG;
		else
			return 0;
	}
	return __trace_probe_fail(ctx->offset + (lb - arg), err, -EINVAL);
}

/*
 * Split ":TYPE[N]" off @arg (cut at the ':'), set parg->count and
 * parg->type.  Returns the type text (NULL if none) or an ERR_PTR.
 */
static char *parse_arg_type(char *arg, struct probe_arg *parg,
			    struct traceprobe_parse_context *ctx)
{
	char *type = strchr(arg, ':');
	char *lb;
	int type_offs;

	if (type) {
		*type++ = '\0';
		lb = strchr(type, '[');
		if (lb) {
			*lb++ = '\0';
			if (parse_array_count(lb, arg, parg, ctx))
				return ERR_PTR(-EINVAL);
		}
	}
	type_offs = type ? type - arg : 0;

	/* $comm and "immediate strings" are strings and nothing else */
	if (!(ctx->flags & TPARG_FL_TEVENT) &&
	    (!strcmp(arg, "$comm") || !strcmp(arg, "$COMM") ||
	     !strncmp(arg, "\\\"", 2))) {
		if (parg->count || (type && strcmp(type, "string")))
			return ERR_PTR(trace_probe_inval(ctx->offset + type_offs,
							 NEED_STRING_TYPE));
		parg->type = trace_probe_find_fetch_type("string", ctx->flags);
	} else {
		parg->type = trace_probe_find_fetch_type(type, ctx->flags);
	}
	if (!parg->type)
		return ERR_PTR(trace_probe_inval(ctx->offset + type_offs, BAD_TYPE));
	return type;
}

/* Parse "EXPR[:TYPE]" into @parg; *@size is the record size so far. */
static int parse_arg_body(const char *body, ssize_t *size,
			  struct probe_arg *parg,
			  struct traceprobe_parse_context *ctx)
{
	struct fetch_prog *prog = NULL;
	char *arg, *type;
	int n, ret, len = strlen(body);

	if (len > MAX_ARGSTR_LEN)
		return trace_probe_fail(ctx->offset, ARG_TOO_LONG, -E2BIG);
	if (!len)
		return trace_probe_inval(ctx->offset, NO_ARG_BODY);

	arg = kstrdup(body, GFP_KERNEL);
	parg->comm = kstrdup(body, GFP_KERNEL);
	if (!arg || !parg->comm) {
		ret = -ENOMEM;
		goto out;
	}

	type = parse_arg_type(arg, parg, ctx);
	ret = PTR_ERR_OR_ZERO(type);
	if (ret)
		goto out;

	prog = kzalloc(sizeof(*prog), GFP_KERNEL);
	if (!prog) {
		ret = -ENOMEM;
		goto out;
	}
	prog->insn[FETCH_INSN_MAX - 1].op = FETCH_OP_END;

	ctx->last_type = NULL;
	ret = parse_expr(arg, prog, ctx);
	if (ret)
		goto out;

	/* without ":TYPE", BTF knows better than the default */
	if (IS_ENABLED(CONFIG_PROBE_EVENTS_BTF_ARGS) && ctx->last_type) {
		if (!type) {
			parg->type = trace_probe_btf_fetch_type(ctx);
		} else if (strstr(type, "string")) {
			ret = trace_probe_prepare_btf_string(type, prog, ctx);
			if (ret)
				goto out;
		}
	}

	parg->offset = *size;
	*size += parg->type->size * (parg->count ?: 1);
	if (*size > MAX_PROBE_EVENT_SIZE) {
		trace_probe_log_err(ctx->offset, EVENT_TOO_BIG);
		ret = -E2BIG;
		goto out;
	}

	if (parg->count) {
		parg->fmt = kasprintf(GFP_KERNEL, "%s[%u]",
				      parg->type->fmttype, parg->count);
		if (!parg->fmt) {
			ret = -ENOMEM;
			goto out;
		}
	}

	ret = finish_prog(prog, parg, type, type ? type - arg : 0, ctx);
	if (ret)
		goto out;

	n = prog->cur + 1;
	parg->code = kmemdup(prog->insn, n * sizeof(*prog->insn), GFP_KERNEL);
	if (!parg->code)
		ret = -ENOMEM;
out:
	/* on success the data moved to parg->code with the instructions */
	if (ret && prog)
		trace_probe_free_insn_data(prog->insn, FETCH_INSN_MAX);
	kfree(prog);
	kfree(arg);
	return ret;
}

/* The fields every event has, and those a probe event adds itself. */
static const char * const reserved_field_names[] = {
	"common_type", "common_flags", "common_preempt_count", "common_pid",
	"common_tgid", FIELD_STRING_IP, FIELD_STRING_RETIP, FIELD_STRING_FUNC,
};

static bool arg_name_taken(const char *name, struct probe_arg *args, int n)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(reserved_field_names); i++)
		if (!strcmp(reserved_field_names[i], name))
			return true;
	for (i = 0; i < n; i++)
		if (!strcmp(args[i].name, name))
			return true;
	return false;
}

/*
 * The name of an argument given without "NAME=": a BTF variable is
 * named after itself, anything else "argN".
 */
static char *default_arg_name(const char *arg, int idx)
{
	char *name;

	if (IS_ENABLED(CONFIG_PROBE_EVENTS_BTF_ARGS)) {
		name = kmemdup_nul(arg, strchrnul(arg, ':') - arg, GFP_KERNEL);
		if (name && is_good_name(name))
			return name;
		kfree(name);
	}
	return kasprintf(GFP_KERNEL, "arg%d", idx + 1);
}

/**
 * traceprobe_parse_probe_arg - parse one fetch argument of a probe
 * @tp: the probe; its args[@i] receives the result
 * @i: argument index
 * @arg: "[NAME=]EXPR[:TYPE]"
 * @ctx: parse context of the probe (flags, BTF state)
 *
 * Errors are reported to error_log relative to the current word.
 * Context: dyn_event_ops_mutex held, may sleep.
 * Return: 0 or a negative error; @tp->args[@i] is freed with @tp.
 */
int traceprobe_parse_probe_arg(struct trace_probe *tp, int i, const char *arg,
			       struct traceprobe_parse_context *ctx)
{
	struct probe_arg *parg = &tp->args[i];
	const char *eq = strchr(arg, '=');
	const char *body = arg;

	ctx->tp = tp;
	if (eq) {
		if (eq - arg > MAX_ARG_NAME_LEN)
			return trace_probe_inval(0, ARG_NAME_TOO_LONG);
		if (eq == arg)
			return trace_probe_inval(0, NO_ARG_NAME);
		parg->name = kmemdup_nul(arg, eq - arg, GFP_KERNEL);
		body = eq + 1;
	} else {
		parg->name = default_arg_name(arg, i);
	}
	if (!parg->name)
		return -ENOMEM;

	if (!is_good_name(parg->name))
		return trace_probe_inval(0, BAD_ARG_NAME);
	if (arg_name_taken(parg->name, tp->args, i))
		return trace_probe_inval(0, USED_ARG_NAME);

	ctx->offset = body - arg;
	return parse_arg_body(body, &tp->size, parg, ctx);
}

/**
 * traceprobe_parse_args - parse every argument of a probe, then its format
 * @tp: the probe, allocated for @argc arguments
 * @argc: number of arguments
 * @argv: the arguments: the command's words from the third on
 * @ctx: parse context of the probe
 * @ptype: how its records begin (PROBE_PRINT_NORMAL or _RETURN)
 *
 * The tail that kprobe and fprobe event commands share: each argument
 * parsed with error_log pointing at its word, then the print fmt.
 * Context: dyn_event_ops_mutex held, may sleep.
 * Return: 0 or a negative error (logged where it is the user's).
 */
int traceprobe_parse_args(struct trace_probe *tp, int argc, const char *argv[],
			  struct traceprobe_parse_context *ctx,
			  enum probe_print_type ptype)
{
	int i, ret;

	for (i = 0; i < argc; i++) {
		trace_probe_log_set_arg(i);
		ctx->offset = 0;
		ret = traceprobe_parse_probe_arg(tp, i, argv[i], ctx);
		if (ret)
			return ret;
	}
	ret = traceprobe_set_print_fmt(tp, ptype);
	return ret < 0 ? ret : 0;
}

/**
 * traceprobe_update_arg - resolve the @SYM addresses of an argument
 * @arg: a parsed argument
 *
 * Context: may sleep (kallsyms lookup).
 * Return: 0, -ENOENT for an unknown symbol, -EINVAL for a bad offset.
 */
int traceprobe_update_arg(struct probe_arg *arg)
{
	struct fetch_insn *insn;
	unsigned long addr;
	long offs;
	char *sym;
	int ret;

	for (insn = arg->code; insn && insn->op != FETCH_OP_END; insn++) {
		if (insn->op != FETCH_NOP_SYMBOL)
			continue;
		if (insn[1].op != FETCH_OP_IMM)
			return -EINVAL;
		sym = kstrdup(insn->data, GFP_KERNEL);
		if (!sym)
			return -ENOMEM;
		ret = traceprobe_split_symbol_offset(sym, &offs);
		addr = ret ? 0 : kallsyms_lookup_name(sym);
		kfree(sym);
		if (ret)
			return ret;
		if (!addr)
			return -ENOENT;
		insn[1].immediate = addr + offs;
	}
	return 0;
}

#ifdef CONFIG_PROBE_EVENTS_DUMP_FETCHARG
/* One instruction as "NAME" or "NAME(operands)"; see trace_probe_dump_args(). */
static void dump_fetch_insn(struct seq_file *m, const struct fetch_insn *insn)
{
	const struct ftrace_event_field *field;

	switch (insn->op) {
	case FETCH_OP_NOP:
		seq_puts(m, "NOP");
		break;
	case FETCH_OP_REG:
		seq_printf(m, "REG(%u)", insn->param);
		break;
	case FETCH_OP_STACK:
		seq_printf(m, "STACK(%u)", insn->param);
		break;
	case FETCH_OP_STACKP:
		seq_puts(m, "STACKP");
		break;
	case FETCH_OP_RETVAL:
		seq_puts(m, "RETVAL");
		break;
	case FETCH_OP_IMM:
		seq_printf(m, "IMM(0x%lx)", insn->immediate);
		break;
	case FETCH_OP_COMM:
		seq_puts(m, "COMM");
		break;
	case FETCH_OP_ARG:
		seq_printf(m, "ARG(%u)", insn->param);
		break;
	case FETCH_OP_FOFFS:
		seq_printf(m, "FOFFS(0x%lx)", insn->immediate);
		break;
	case FETCH_OP_DATA:
		/* upstream's name for an immediate string */
		seq_printf(m, "IMMSTR(%s)", (const char *)insn->data);
		break;
	case FETCH_OP_EDATA:
		seq_printf(m, "EDATA(offset=%d)", insn->offset);
		break;
	case FETCH_OP_CURRENT:
		seq_puts(m, "CURRENT");
		break;
	case FETCH_OP_DEREF:
	case FETCH_OP_UDEREF:
		seq_printf(m, "%sDEREF(offset=%d)",
			   insn->op == FETCH_OP_UDEREF ? "U" : "", insn->offset);
		break;
	case FETCH_OP_CPU_PTR:
		seq_puts(m, "CPU_PTR");
		break;
	case FETCH_OP_ST_RAW:
		seq_printf(m, "ST_RAW(size=%u)", insn->size);
		break;
	case FETCH_OP_ST_MEM:
	case FETCH_OP_ST_UMEM:
	case FETCH_OP_ST_STRING:
	case FETCH_OP_ST_USTRING:
	case FETCH_OP_ST_SYMSTR:
		seq_printf(m, "ST_%s(offset=%d,size=%u)",
			   insn->op == FETCH_OP_ST_MEM ? "MEM" :
			   insn->op == FETCH_OP_ST_UMEM ? "UMEM" :
			   insn->op == FETCH_OP_ST_STRING ? "STRING" :
			   insn->op == FETCH_OP_ST_USTRING ? "USTRING" : "SYMSTR",
			   insn->offset, insn->size);
		break;
	case FETCH_OP_ST_EDATA:
		seq_printf(m, "ST_EDATA(offset=%d)", insn->offset);
		break;
	case FETCH_OP_MOD_BF:
		seq_printf(m, "MOD_BF(basesize=%u,lshift=%u,rshift=%u)",
			   insn->basesize, insn->lshift, insn->rshift);
		break;
	case FETCH_OP_LP_ARRAY:
		seq_printf(m, "LP_ARRAY(%u)", insn->param);
		break;
	case FETCH_OP_TP_ARG:
		field = insn->data;
		seq_printf(m, "TP_ARG(%s)", field->name);
		break;
	case FETCH_OP_END:
		seq_puts(m, "END");
		break;
	case FETCH_NOP_SYMBOL:
		seq_printf(m, "NOP_SYMBOL(%s)", (const char *)insn->data);
		break;
	default:
		seq_printf(m, "unknown(%d)", insn->op);
		break;
	}
}

/**
 * trace_probe_dump_args() - show the fetch programs of a probe's arguments
 * @m: the seq_file of dynamic_events, kprobe_events or uprobe_events
 * @tp: the probe whose definition line was just shown
 *
 * With CONFIG_PROBE_EVENTS_DUMP_FETCHARG, each argument's compiled program
 * follows the definition as a comment line, the way upstream shows it:
 *
 *   #  arg1: ARG(0) -> ST_USTRING(offset=0,size=4) -> END
 *
 * Commands written to those files stop at '#', so what is read can still
 * be written back.  A debugging aid: IMM shows raw kernel addresses.
 * Called with event_mutex held (the files' seq_start takes it), so the
 * programs cannot change under it.
 */
void trace_probe_dump_args(struct seq_file *m, struct trace_probe *tp)
{
	const struct fetch_insn *insn, *last;
	struct probe_arg *arg;

	for (arg = tp->args; arg < tp->args + tp->nr_args; arg++) {
		seq_printf(m, "#  %s: ", arg->name);
		/* a program never exceeds FETCH_INSN_MAX slots, END included */
		last = arg->code + FETCH_INSN_MAX - 1;
		for (insn = arg->code; ; insn++) {
			dump_fetch_insn(m, insn);
			if (insn->op == FETCH_OP_END || insn == last)
				break;
			seq_puts(m, " -> ");
		}
		seq_putc(m, '\n');
	}
}
#endif /* CONFIG_PROBE_EVENTS_DUMP_FETCHARG */
