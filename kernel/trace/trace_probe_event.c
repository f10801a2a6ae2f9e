// SPDX-License-Identifier: GPL-2.0
/*
 * The bottom of the fetch-argument engine (see trace_probe.c): what the
 * parser (trace_probe.c) and the BTF arguments (trace_probe_btf.c) build
 * on; it calls neither of them.  error_log reporting, the fetch types and
 * the printing of recorded values, freeing parsed arguments, the entry
 * data of return probes; and probe events as trace events: the format
 * file and print fmt built from the arguments' types, and the
 * trace_probe <-> trace_probe_event bookkeeping (several probes may
 * share one event).
 */
#define pr_fmt(fmt)	"trace_probe: " fmt

#include <linux/fs.h>

#include "trace_output.h"
#include "trace_probe_internal.h"

/* ------------------------------------------------------------------ */
/* error_log                                                          */

static const char *probe_err_text[TP_NR_ERRORS] = {
	[TP_ERR_FILE_NOT_FOUND]		= "Failed to find the given file",
	[TP_ERR_NO_REGULAR_FILE]	= "Not a regular file",
	[TP_ERR_BAD_REFCNT]		= "Invalid reference counter offset",
	[TP_ERR_REFCNT_OPEN_BRACE]	= "Reference counter brace is not closed",
	[TP_ERR_BAD_REFCNT_SUFFIX]	= "Reference counter has wrong suffix",
	[TP_ERR_BAD_UPROBE_OFFS]	= "Invalid uprobe offset",
	[TP_ERR_BAD_MAXACT_TYPE]	= "Maxactive is only for function exit",
	[TP_ERR_BAD_MAXACT]		= "Invalid maxactive number",
	[TP_ERR_MAXACT_TOO_BIG]		= "Maxactive is too big",
	[TP_ERR_BAD_PROBE_ADDR]		= "Invalid probed address or symbol",
	[TP_ERR_NON_UNIQ_SYMBOL]	= "The symbol is not unique",
	[TP_ERR_BAD_RETPROBE]		= "Retprobe address must be an function entry",
	[TP_ERR_NO_TRACEPOINT]		= "Tracepoint is not found",
	[TP_ERR_BAD_TP_NAME]		= "Invalid character in tracepoint name",
	[TP_ERR_BAD_ADDR_SUFFIX]	= "Invalid probed address suffix",
	[TP_ERR_NO_GROUP_NAME]		= "Group name is not specified",
	[TP_ERR_GROUP_TOO_LONG]		= "Group name is too long",
	[TP_ERR_BAD_GROUP_NAME]		= "Group name must follow the same rules as C identifiers",
	[TP_ERR_NO_EVENT_NAME]		= "Event name is not specified",
	[TP_ERR_EVENT_TOO_LONG]		= "Event name is too long",
	[TP_ERR_BAD_EVENT_NAME]		= "Event name must follow the same rules as C identifiers",
	[TP_ERR_EVENT_EXIST]		= "Given group/event name is already used by another event",
	[TP_ERR_RETVAL_ON_PROBE]	= "$retval is not available on probe",
	[TP_ERR_NO_RETVAL]		= "This function returns 'void' type",
	[TP_ERR_BAD_STACK_NUM]		= "Invalid stack number",
	[TP_ERR_BAD_ARG_NUM]		= "Invalid argument number",
	[TP_ERR_BAD_VAR]		= "Invalid $-variable specified",
	[TP_ERR_BAD_REG_NAME]		= "Invalid register name",
	[TP_ERR_BAD_MEM_ADDR]		= "Invalid memory address",
	[TP_ERR_BAD_IMM]		= "Invalid immediate value",
	[TP_ERR_IMMSTR_NO_CLOSE]	= "String is not closed with '\"'",
	[TP_ERR_FILE_ON_KPROBE]		= "File offset is not available with kprobe",
	[TP_ERR_BAD_FILE_OFFS]		= "Invalid file offset value",
	[TP_ERR_SYM_ON_UPROBE]		= "Symbol is not available with uprobe",
	[TP_ERR_TOO_MANY_OPS]		= "Dereference is too much nested",
	[TP_ERR_DEREF_NEED_BRACE]	= "Dereference needs a brace",
	[TP_ERR_BAD_DEREF_OFFS]		= "Invalid dereference offset",
	[TP_ERR_DEREF_OPEN_BRACE]	= "Dereference brace is not closed",
	[TP_ERR_COMM_CANT_DEREF]	= "$comm can not be dereferenced",
	[TP_ERR_BAD_FETCH_ARG]		= "Invalid fetch argument",
	[TP_ERR_ARRAY_NO_CLOSE]		= "Array is not closed",
	[TP_ERR_BAD_ARRAY_SUFFIX]	= "Array has wrong suffix",
	[TP_ERR_BAD_ARRAY_NUM]		= "Invalid array size",
	[TP_ERR_ARRAY_TOO_BIG]		= "Array number is too big",
	[TP_ERR_BAD_TYPE]		= "Unknown type is specified",
	[TP_ERR_BAD_STRING]		= "String accepts only memory argument",
	[TP_ERR_BAD_SYMSTRING]		= "Symbol String doesn't accept data/userdata",
	[TP_ERR_BAD_BITFIELD]		= "Invalid bitfield",
	[TP_ERR_ARG_NAME_TOO_LONG]	= "Argument name is too long",
	[TP_ERR_NO_ARG_NAME]		= "Argument name is not specified",
	[TP_ERR_BAD_ARG_NAME]		= "Argument name must follow the same rules as C identifiers",
	[TP_ERR_USED_ARG_NAME]		= "This argument name is already used",
	[TP_ERR_ARG_TOO_LONG]		= "Argument expression is too long",
	[TP_ERR_NO_ARG_BODY]		= "No argument expression",
	[TP_ERR_TOO_MANY_ARGS]		= "Too many arguments are specified",
	[TP_ERR_NOSUP_PERCPU]		= "Per-cpu variable access is only for kernel probes",
	[TP_ERR_TYPECAST_REQ_FIELD]	= "Typecast requires a field access",
	[TP_ERR_TYPECAST_SYM_OFFSET]	= "@SYM+/-OFFSET with typecast needs parentheses",
	[TP_ERR_TYPECAST_NOT_ALIGNED]	= "Typecast field option is not byte-aligned",
	[TP_ERR_TYPECAST_BAD_ARROW]	= "Typecast field option does not support -> operator",
	[TP_ERR_NO_EVENT_FIELD]		= "This event field is not found.",
	[TP_ERR_BAD_INSN_BNDRY]		= "Probe point is not an instruction boundary",
	[TP_ERR_FAIL_REG_PROBE]		= "Failed to register probe event",
	[TP_ERR_DIFF_PROBE_TYPE]	= "Probe type is different from existing probe",
	[TP_ERR_DIFF_ARG_TYPE]		= "Argument type or name is different from existing probe",
	[TP_ERR_SAME_PROBE]		= "There is already the exact same probe event",
	[TP_ERR_NO_EVENT_INFO]		= "This requires both group and event name to attach",
	[TP_ERR_BAD_ATTACH_EVENT]	= "Attached event does not exist",
	[TP_ERR_BAD_ATTACH_ARG]		= "Attached event does not have this field",
	[TP_ERR_NO_EP_FILTER]		= "No filter rule after 'if'",
	[TP_ERR_NOSUP_BTFARG]		= "BTF is not available or not supported",
	[TP_ERR_NO_BTFARG]		= "This variable is not found at this probe point",
	[TP_ERR_NO_BTF_ENTRY]		= "No BTF entry for this probe point",
	[TP_ERR_BAD_VAR_ARGS]		= "$arg* must be an independent parameter without name etc.",
	[TP_ERR_NOFENTRY_ARGS]		= "$arg* can be used only on function entry or exit",
	[TP_ERR_DOUBLE_ARGS]		= "$arg* can be used only once in the parameters",
	[TP_ERR_ARGS_2LONG]		= "$arg* failed because the argument list is too long",
	[TP_ERR_ARGIDX_2BIG]		= "$argN index is too big",
	[TP_ERR_NO_PTR_STRCT]		= "This is not a pointer to union/structure.",
	[TP_ERR_NOSUP_DAT_ARG]		= "Non pointer structure/union argument is not supported.",
	[TP_ERR_BAD_HYPHEN]		= "Failed to parse single hyphen. Forgot '>'?",
	[TP_ERR_NO_BTF_FIELD]		= "This field is not found.",
	[TP_ERR_BAD_BTF_TID]		= "Failed to get BTF type info.",
	[TP_ERR_BAD_TYPE4STR]		= "This type does not fit for string.",
	[TP_ERR_NEED_STRING_TYPE]	= "$comm and immediate-string only accepts string type",
	[TP_ERR_EVENT_TOO_BIG]		= "Event too big (too many fields?)",
	[TP_ERR_NOT_INJECTABLE]		= "A BPF program may override returns of this event: only error-injectable function entries can join it",
};

/* The command being parsed; all under dyn_event_ops_mutex. */
struct probe_log_state {
	const char	*subsystem;
	const char	**argv;
	int		argc;
	int		index;	/* word the next error points into */
	int		shift;	/* added to offsets in that word */
	bool		whole;	/* errors point at the word's start */
	struct probe_arg_origin *origin;	/* of each fetch argument */
	int		nr_origin;
};
static struct probe_log_state probe_log;

extern struct mutex dyn_event_ops_mutex;

/**
 * trace_probe_log_init - start reporting errors for one command
 * @subsystem: the name error_log shows ("trace_kprobe", ...)
 * @argc: number of words of the command
 * @argv: the words; they must stay valid until trace_probe_log_clear()
 *
 * Context: dyn_event_ops_mutex held.
 */
void trace_probe_log_init(const char *subsystem, int argc, const char **argv)
{
	lockdep_assert_held(&dyn_event_ops_mutex);
	probe_log = (struct probe_log_state) {
		.subsystem = subsystem, .argv = argv, .argc = argc,
	};
}

/**
 * trace_probe_log_clear - stop reporting errors for the current command
 *
 * Context: dyn_event_ops_mutex held.
 */
void trace_probe_log_clear(void)
{
	trace_probe_log_init(NULL, 0, NULL);
}

/**
 * trace_probe_log_set_index - choose the word later errors point into
 * @index: word index; argc or more means "just after the command"
 *
 * Context: dyn_event_ops_mutex held.
 */
void trace_probe_log_set_index(int index)
{
	lockdep_assert_held(&dyn_event_ops_mutex);
	probe_log.index = index;
	probe_log.shift = 0;
	probe_log.whole = false;
}

/**
 * trace_probe_log_set_origins - say where rewritten arguments came from
 * @origin: one entry per fetch argument as parsed; must stay valid until
 *	trace_probe_log_clear()
 * @n: number of entries
 *
 * Context: dyn_event_ops_mutex held.
 */
void trace_probe_log_set_origins(struct probe_arg_origin *origin, int n)
{
	lockdep_assert_held(&dyn_event_ops_mutex);
	probe_log.origin = origin;
	probe_log.nr_origin = n;
}

/**
 * trace_probe_log_set_arg - point later errors into fetch argument @i
 * @i: 0-based index among the arguments as parsed
 *
 * The word the user wrote it in: word @i + 2 unless the arguments were
 * rewritten (trace_probe_log_set_origins()).
 * Context: dyn_event_ops_mutex held.
 */
void trace_probe_log_set_arg(int i)
{
	const struct probe_arg_origin *o = NULL;

	if (i >= 0 && i < probe_log.nr_origin)
		o = &probe_log.origin[i];
	trace_probe_log_set_index(o ? o->word : i + 2);
	if (o) {
		probe_log.shift = o->shift;
		probe_log.whole = o->whole;
	}
}

/**
 * trace_probe_log_shift_arg - fetch argument @i was rewritten again
 * @i: 0-based index among the arguments as parsed
 * @delta: offset in the new text + @delta = offset in the old one
 *
 * Context: dyn_event_ops_mutex held.
 */
void trace_probe_log_shift_arg(int i, int delta)
{
	lockdep_assert_held(&dyn_event_ops_mutex);
	if (i >= 0 && i < probe_log.nr_origin)
		probe_log.origin[i].shift += delta;
}

/* Where word @n starts in the command joined by single spaces. */
static int probe_log_word_start(int n)
{
	int i, start = 0;

	for (i = 0; i < n && i < probe_log.argc; i++)
		start += strlen(probe_log.argv[i]) + 1;
	return start;
}

/**
 * __trace_probe_log_err - report an error to error_log
 * @offset: position of the culprit in the current word
 * @err: TP_ERR_* value
 *
 * Writes the command (its words joined by single spaces) with a caret
 * under the culprit.  Context: dyn_event_ops_mutex held, may sleep.
 */
void __trace_probe_log_err(int offset, int err)
{
	int i, pos, total;
	char *cmd, *p;

	lockdep_assert_held(&dyn_event_ops_mutex);

	if (!probe_log.argc || !probe_log.argv)
		return;
	total = probe_log_word_start(probe_log.argc);
	/* past the last word: after it and its separator, at offset 0 */
	pos = probe_log_word_start(probe_log.index);
	if (probe_log.index >= probe_log.argc || probe_log.whole)
		offset = 0;
	else
		offset = clamp_t(int, offset + probe_log.shift, 0,
				 strlen(probe_log.argv[probe_log.index]));

	cmd = kzalloc(total, GFP_KERNEL);
	if (!cmd)
		return;
	for (i = 0, p = cmd; i < probe_log.argc; i++)
		p += sprintf(p, i ? " %s" : "%s", probe_log.argv[i]);

	tracing_log_err(NULL, probe_log.subsystem, cmd, probe_err_text, err,
			pos + offset);
	kfree(cmd);
}

/* ------------------------------------------------------------------ */
/* Types                                                              */

#define FT(_name, _size, _signed, _kind, _fmt, _fmttype)		\
	{ .name = _name, .size = _size, .is_signed = _signed,		\
	  .is_string = (_kind) == PROBE_PRINT_STRING, .kind = _kind,	\
	  .fmt = _fmt, .fmttype = _fmttype }

#define FT_STRING(_name)						\
	FT(_name, sizeof(u32), true, PROBE_PRINT_STRING,		\
	   "\\\"%s\\\"", "__data_loc char[]")

/*
 * Every type an argument can have.  Strings are flagged signed, as the
 * format file has always shown them; "symbol" is an address-sized
 * unsigned field.
 */
static const struct fetch_type fetch_types[] = {
	FT_STRING("string"),
	FT_STRING("ustring"),
	FT_STRING("symstr"),
	FT("u8",  1, false, PROBE_PRINT_UNSIGNED, "%u",   "u8"),
	FT("u16", 2, false, PROBE_PRINT_UNSIGNED, "%u",   "u16"),
	FT("u32", 4, false, PROBE_PRINT_UNSIGNED, "%u",   "u32"),
	FT("u64", 8, false, PROBE_PRINT_UNSIGNED, "%Lu",  "u64"),
	FT("s8",  1, true,  PROBE_PRINT_SIGNED,   "%d",   "s8"),
	FT("s16", 2, true,  PROBE_PRINT_SIGNED,   "%d",   "s16"),
	FT("s32", 4, true,  PROBE_PRINT_SIGNED,   "%d",   "s32"),
	FT("s64", 8, true,  PROBE_PRINT_SIGNED,   "%Ld",  "s64"),
	FT("x8",  1, false, PROBE_PRINT_HEX,      "0x%x", "u8"),
	FT("x16", 2, false, PROBE_PRINT_HEX,      "0x%x", "u16"),
	FT("x32", 4, false, PROBE_PRINT_HEX,      "0x%x", "u32"),
	FT("x64", 8, false, PROBE_PRINT_HEX,      "0x%Lx", "u64"),
	FT("char", 1, false, PROBE_PRINT_CHAR,    "'%c'", "u8"),
	FT("symbol", sizeof(long), false, PROBE_PRINT_SYMBOL, "%pS",
	   BITS_PER_LONG == 64 ? "u64" : "u32"),
};

/* The type of an argument written without ":TYPE": a hex long. */
#define DEFAULT_TYPE_NAME	(BITS_PER_LONG == 64 ? "x64" : "x32")

static const struct fetch_type *lookup_type_name(const char *name)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(fetch_types); i++)
		if (!strcmp(fetch_types[i].name, name))
			return &fetch_types[i];
	return NULL;
}

/*
 * The type a ":TYPE" suffix names (NULL: the default).  A bitfield
 * "b<width>@<offset>/<container>" is stored as its unsigned container;
 * its layout is checked later by add_bitfield().
 */
const struct fetch_type *trace_probe_find_fetch_type(const char *name,
						     unsigned int flags)
{
	unsigned long bits;
	const char *slash;

	if (!name)
		return lookup_type_name(DEFAULT_TYPE_NAME);

	/* uprobes have no kernel symbols to print */
	if ((flags & TPARG_FL_USER) &&
	    (!strcmp(name, "symbol") || !strcmp(name, "symstr")))
		return NULL;

	if (name[0] != 'b')
		return lookup_type_name(name);

	slash = strchr(name, '/');
	if (!slash || kstrtoul(slash + 1, 0, &bits))
		return NULL;
	switch (bits) {
	case 8:
		return lookup_type_name("u8");
	case 16:
		return lookup_type_name("u16");
	case 32:
		return lookup_type_name("u32");
	case 64:
		return lookup_type_name("u64");
	}
	return NULL;
}

/* Print one value of type @t at @data; @ent is the whole entry. */
static bool print_value(struct trace_seq *s, const struct fetch_type *t,
			void *data, void *ent)
{
	u64 v = probe_load_uint(data, t->size);

	switch (t->kind) {
	case PROBE_PRINT_UNSIGNED:
		trace_seq_printf(s, "%llu", v);
		break;
	case PROBE_PRINT_SIGNED:
		/* sign-extend from the type's width */
		trace_seq_printf(s, "%lld",
				 (s64)(v << (64 - 8 * t->size)) >> (64 - 8 * t->size));
		break;
	case PROBE_PRINT_HEX:
		trace_seq_printf(s, "0x%llx", v);
		break;
	case PROBE_PRINT_CHAR:
		trace_seq_printf(s, "'%c'", (char)v);
		break;
	case PROBE_PRINT_SYMBOL:
		trace_seq_printf(s, "%pS", (void *)*(unsigned long *)data);
		break;
	case PROBE_PRINT_STRING:
		if (!get_loc_len(*(u32 *)data))
			trace_seq_puts(s, FAULT_STRING);
		else
			trace_seq_printf(s, "\"%s\"",
					 (const char *)get_loc_data(data, ent));
		break;
	}
	return !trace_seq_has_overflowed(s);
}

/**
 * trace_probe_print_args - print the arguments of a record
 * @s: where to print
 * @args: the probe's arguments
 * @nr_args: how many
 * @data: the argument part of the record
 * @field: the record (data locations are relative to it)
 *
 * Prints " NAME=VALUE" for each argument, arrays as "{V,V,...}".
 *
 * Return: 0, or -ENOMEM when @s overflowed.
 */
int trace_probe_print_args(struct trace_seq *s, struct probe_arg *args,
			   int nr_args, u8 *data, void *field)
{
	int i, j;

	for (i = 0; i < nr_args; i++) {
		struct probe_arg *a = &args[i];
		u8 *p = data + a->offset;

		trace_seq_printf(s, " %s=", a->name);
		if (!a->count) {
			if (!print_value(s, a->type, p, field))
				return -ENOMEM;
			continue;
		}
		for (j = 0; j < a->count; j++, p += a->type->size) {
			trace_seq_putc(s, j ? ',' : '{');
			if (!print_value(s, a->type, p, field))
				return -ENOMEM;
		}
		trace_seq_putc(s, '}');
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Freeing fetch programs                                             */

/* Free what the instructions own (symbol names, immediate strings). */
void trace_probe_free_insn_data(struct fetch_insn *insn, int n)
{
	int i;

	for (i = 0; i < n && insn[i].op != FETCH_OP_END; i++)
		if (insn[i].op == FETCH_NOP_SYMBOL || insn[i].op == FETCH_OP_DATA)
			kfree(insn[i].data);
}

/**
 * traceprobe_free_probe_arg - free what a parsed argument owns
 * @arg: the argument (the struct itself is not freed)
 */
void traceprobe_free_probe_arg(struct probe_arg *arg)
{
	if (arg->code)
		trace_probe_free_insn_data(arg->code, INT_MAX);
	kfree(arg->code);
	kfree(arg->name);
	kfree(arg->comm);
	kfree(arg->fmt);
}

/* ------------------------------------------------------------------ */
/* Entry data of return probes                                        */

#ifdef CONFIG_HAVE_FUNCTION_ARG_ACCESS_API
/* An entry-data program of @n instructions, all FETCH_OP_END. */
static struct probe_entry_arg *alloc_entry_arg(unsigned int n)
{
	struct probe_entry_arg *ea = kzalloc(sizeof(*ea), GFP_KERNEL);

	if (ea)
		ea->code = kcalloc(n, sizeof(*ea->code), GFP_KERNEL);
	if (!ea || !ea->code) {
		kfree(ea);
		return NULL;
	}
	ea->size = n;
	while (n--)
		ea->code[n].op = FETCH_OP_END;
	return ea;
}

/*
 * Make the entry handler of @tp save function argument @argnum and
 * return the offset of its slot in the entry data.  An argument that is
 * already saved keeps its slot.
 */
int trace_probe_save_entry_arg(struct trace_probe *tp, unsigned int argnum)
{
	struct probe_entry_arg *ea = tp->entry_arg;
	unsigned int i;

	if (!ea) {
		/* one slot per argument at most, plus the END */
		ea = alloc_entry_arg(tp->nr_args + 1);
		if (!ea)
			return -ENOMEM;
		tp->entry_arg = ea;
	}

	for (i = 0; i + 1 < ea->size; i++) {
		struct fetch_insn *insn = &ea->code[i];

		if (insn->op == FETCH_OP_END) {
			insn->op = FETCH_OP_ARG;
			insn->param = argnum;
			return i * sizeof(unsigned long);
		}
		if (insn->param == argnum)
			return i * sizeof(unsigned long);
	}
	return -ENOSPC;
}

/**
 * traceprobe_get_entry_data_size - size of the entry data of @tp
 * @tp: a return probe
 *
 * Return: the bytes the entry handler stores (0 if none).
 */
int traceprobe_get_entry_data_size(struct trace_probe *tp)
{
	struct probe_entry_arg *ea = tp->entry_arg;
	unsigned int n = 0;

	if (!ea)
		return 0;
	while (n < ea->size && ea->code[n].op == FETCH_OP_ARG)
		n++;
	return n * sizeof(unsigned long);
}

/**
 * store_trace_entry_data - save the entry data of a return probe
 * @edata: traceprobe_get_entry_data_size() bytes
 * @tp: the probe
 * @regs: registers at function entry
 *
 * Context: the probe's entry handler (any context, NMI included).
 */
void store_trace_entry_data(void *edata, struct trace_probe *tp, struct pt_regs *regs)
{
	struct probe_entry_arg *ea = tp->entry_arg;
	unsigned long *slot = edata;
	unsigned int i;

	if (!ea)
		return;
	for (i = 0; i < ea->size && ea->code[i].op == FETCH_OP_ARG; i++)
		slot[i] = regs_get_kernel_argument(regs, ea->code[i].param);
}

NOKPROBE_SYMBOL(store_trace_entry_data)
#else
int trace_probe_save_entry_arg(struct trace_probe *tp, unsigned int argnum)
{
	return -EOPNOTSUPP;
}
#endif

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
static void tpe_release(struct trace_probe_event *tpe)
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
	tpe_release(own);
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
		tpe_release(tpe);
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
static bool event_name_taken(struct trace_probe *tp)
{
	return find_trace_event_call(trace_probe_group_name(tp),
				     trace_probe_name(tp)) != NULL;
}

/*
 * TP_FLAG_TRACE says "some instance file is linked": keep it in step
 * with the link list after every change to it.
 */
static void sync_trace_flag(struct trace_probe *tp)
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

	if (event_name_taken(tp))
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
		sync_trace_flag(tp);
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
 * walking it; so may they be using @file, which goes with the event:
 * trace_probe_unregister_event_call() waits for that grace period.
 * Context: event_mutex held, may sleep.
 * Return: 0 or -ENOENT.
 */
int trace_probe_remove_file(struct trace_probe *tp,
			    struct trace_event_file *file)
{
	struct event_file_link *link = trace_probe_get_file_link(tp, file);

	if (link) {
		list_del_rcu(&link->list);
		sync_trace_flag(tp);
		kvfree_rcu_mightsleep(link);
		tp->event->files_gp = get_state_synchronize_rcu();
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
