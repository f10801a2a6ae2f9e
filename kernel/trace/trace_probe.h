/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The fetch-argument engine shared by the probe-based dynamic events
 * (kprobe, fprobe/tprobe, uprobe and eprobe events).
 *
 * A probe event definition is turned into one "fetch program" per
 * argument by trace_probe.c; the probe front ends run those programs on a
 * hit with the helpers of trace_probe_tmpl.h.  See the comment at the top
 * of trace_probe.c for the whole pipeline.
 *
 * Besides the kprobe and fprobe front ends (trace_kprobe.c,
 * trace_fprobe.c), other tracing code includes this header and must keep
 * building against it: trace_uprobe.c, trace_eprobe.c,
 * trace_events_synth.c, trace_event_perf.c and bpf_trace.c.  What only
 * the engine's own files share is in trace_probe_internal.h.
 *
 * Locking: everything that parses or changes a probe definition runs
 * under dyn_event_ops_mutex (and event_mutex where noted); the programs
 * themselves are read-only once published and run in any context,
 * including NMI.
 */
#ifndef _KERNEL_TRACE_PROBE_H
#define _KERNEL_TRACE_PROBE_H

#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/tracefs.h>
#include <linux/types.h>
#include <linux/string.h>
#include <linux/ptrace.h>
#include <linux/perf_event.h>
#include <linux/kprobes.h>
#include <linux/stringify.h>
#include <linux/limits.h>
#include <linux/uaccess.h>
#include <linux/bitops.h>
#include <linux/btf.h>
#include <asm/bitsperlong.h>

#include "trace.h"
#include "trace_output.h"

/* Limits of a probe definition (all of them are user visible). */
#define MAX_TRACE_ARGS		128	/* arguments per probe */
#define MAX_ARGSTR_LEN		63	/* characters of one argument body */
#define MAX_ARRAY_LEN		64	/* elements of TYPE[N] */
#define MAX_ARG_NAME_LEN	32	/* characters of NAME= */
#define MAX_BTF_ARGS_LEN	128	/* buffer for $arg* expansion */
#define MAX_STRING_SIZE		PATH_MAX	/* longest recorded string */
#define MAX_PROBE_EVENT_SIZE	3072	/* fixed part of one record */

/* Field names every probe event reserves for itself. */
#define FIELD_STRING_IP		"__probe_ip"
#define FIELD_STRING_RETIP	"__probe_ret_ip"
#define FIELD_STRING_FUNC	"__probe_func"

/*
 * DEFINE_FIELD - declare one fixed field of a probe event's record.
 * Used in a ->define_fields() callback that has local variables
 * @event_call, @ret and a record named @field.
 */
#undef DEFINE_FIELD
#define DEFINE_FIELD(type, item, name, is_signed) do {			\
	size_t __offs = offsetof(typeof(field), item);			\
									\
	ret = trace_define_field(event_call, #type, name, __offs,	\
				 sizeof(field.item), is_signed,		\
				 FILTER_OTHER);				\
	if (ret)							\
		return ret;						\
} while (0)

/* trace_probe_event.flags: who has the event enabled, and how */
enum {
	TP_FLAG_TRACE	= 1,	/* instance files (ring buffers) */
	TP_FLAG_PROFILE	= 2,	/* perf */
	TP_FLAG_OVERRIDE = 4,	/* a BPF program asked to override returns */
};

/*
 * A "data location" describes a variable-length item (a string) stored
 * after the fixed part of a record: the upper 16 bits are its length,
 * the lower 16 bits its offset from the start of the entry.
 */
static nokprobe_inline u32 make_data_loc(u32 len, u32 offs)
{
	return len << 16 | (offs & 0xffff);
}

static nokprobe_inline u32 get_loc_len(u32 loc)
{
	return loc >> 16;
}

static nokprobe_inline u32 get_loc_offs(u32 loc)
{
	return loc & 0xffff;
}

static nokprobe_inline void *get_loc_data(u32 *dl, void *ent)
{
	return (u8 *)ent + get_loc_offs(*dl);
}

/* The unsigned value of the @size (1, 2, 4 or 8) bytes at @p, else 0. */
static nokprobe_inline u64 probe_load_uint(const void *p, unsigned int size)
{
	switch (size) {
	case sizeof(u8):
		return *(const u8 *)p;
	case sizeof(u16):
		return *(const u16 *)p;
	case sizeof(u32):
		return *(const u32 *)p;
	case sizeof(u64):
		return *(const u64 *)p;
	}
	return 0;
}

/* Write the low @size (1, 2, 4 or 8) bytes of @v at @p. */
static nokprobe_inline void probe_store_uint(void *p, unsigned int size, u64 v)
{
	switch (size) {
	case sizeof(u8):
		*(u8 *)p = v;
		break;
	case sizeof(u16):
		*(u16 *)p = v;
		break;
	case sizeof(u32):
		*(u32 *)p = v;
		break;
	case sizeof(u64):
		*(u64 *)p = v;
		break;
	}
}

/* The location that follows @loc once @consumed bytes of it are used. */
static nokprobe_inline u32 update_data_loc(u32 loc, int consumed)
{
	return make_data_loc(get_loc_len(loc) - consumed,
			     get_loc_offs(loc) + consumed);
}

/*
 * Instructions of a fetch program.  A program is an array of struct
 * fetch_insn terminated by FETCH_OP_END and always has this shape:
 *
 *   [FETCH_NOP_SYMBOL] LOAD (DEREF|UDEREF|CPU_PTR)* STORE [MOD_BF] [LP_ARRAY] END
 *
 * LOAD ops produce one unsigned long; the probe front end executes them
 * (they depend on its context), everything after LOAD is executed by
 * process_fetch_insn_bottom() in trace_probe_tmpl.h.
 */
enum fetch_op {
	FETCH_OP_NOP = 0,	/* unused slot while building */
	/* LOAD: produce the first value */
	FETCH_OP_REG,		/* register at .param (pt_regs offset) */
	FETCH_OP_STACK,		/* .param-th kernel/user stack entry */
	FETCH_OP_STACKP,	/* stack pointer */
	FETCH_OP_RETVAL,	/* return value */
	FETCH_OP_IMM,		/* constant .immediate */
	FETCH_OP_COMM,		/* current->comm (address) */
	FETCH_OP_ARG,		/* function argument number .param */
	FETCH_OP_FOFFS,		/* file offset .immediate (uprobe) */
	FETCH_OP_DATA,		/* address of allocated .data */
	FETCH_OP_EDATA,		/* saved entry data at .offset */
	FETCH_OP_CURRENT,	/* the current task_struct (address) */
	/* DEREF: value = *(value + .offset) */
	FETCH_OP_DEREF,		/* from kernel memory */
	FETCH_OP_UDEREF,	/* from user memory */
	/* value = this CPU's copy of the per-CPU variable at value */
	FETCH_OP_CPU_PTR,
	/* STORE: write the value into the record */
	FETCH_OP_ST_RAW,	/* the value itself, .size bytes */
	FETCH_OP_ST_MEM,	/* .size bytes at value + .offset */
	FETCH_OP_ST_UMEM,	/* same from user memory */
	FETCH_OP_ST_STRING,	/* string at value + .offset */
	FETCH_OP_ST_USTRING,	/* user string at value + .offset */
	FETCH_OP_ST_SYMSTR,	/* "symbol+off/size" of value + .offset */
	FETCH_OP_ST_EDATA,	/* (entry data slot, not used in programs) */
	/* MODIFY: extract a bitfield from the stored container */
	FETCH_OP_MOD_BF,	/* .basesize, .lshift, .rshift */
	/* LOOP: repeat STORE (and the last DEREF for strings) */
	FETCH_OP_LP_ARRAY,	/* .param elements */
	FETCH_OP_TP_ARG,	/* LOAD: field .data of the attached event */
	FETCH_OP_END,
	FETCH_NOP_SYMBOL,	/* symbol name .data for the IMM that follows */
};

struct fetch_insn {
	enum fetch_op op;
	union {				/* which one: see enum fetch_op */
		unsigned long immediate;
		void *data;
		struct {
			unsigned char basesize;
			unsigned char lshift;
			unsigned char rshift;
		};
		struct {
			unsigned int size;
			int offset;
		};
		unsigned int param;
	};
};

/* Slots of a program, the final FETCH_OP_END included. */
#define FETCH_INSN_MAX	16
/* Value a uprobe's LOAD of $comm yields (the string is read later). */
#define FETCH_TOKEN_COMM	(-ECOMM)

/* How a recorded value is printed. */
enum probe_print_kind {
	PROBE_PRINT_UNSIGNED,
	PROBE_PRINT_SIGNED,
	PROBE_PRINT_HEX,
	PROBE_PRINT_CHAR,
	PROBE_PRINT_SYMBOL,
	PROBE_PRINT_STRING,
};

/* One entry of the type table (":TYPE" of a fetch argument). */
struct fetch_type {
	const char		*name;		/* as written after ':' */
	size_t			size;		/* bytes in the record */
	bool			is_signed;	/* "signed:" of the format file */
	bool			is_string;	/* stored as a __data_loc */
	enum probe_print_kind	kind;		/* how it is printed */
	const char		*fmt;		/* printf format in print fmt */
	const char		*fmttype;	/* "type" in the format file */
};

/* For BPF's override_return: only kprobe events know the answers. */
#ifndef CONFIG_KPROBE_EVENTS
static inline bool trace_kprobe_on_func_entry(struct trace_event_call *call)
{
	return false;
}

static inline bool trace_kprobe_error_injectable(struct trace_event_call *call)
{
	return false;
}
#else
bool trace_kprobe_on_func_entry(struct trace_event_call *call);
bool trace_kprobe_error_injectable(struct trace_event_call *call);
#endif /* CONFIG_KPROBE_EVENTS */

/* One parsed fetch argument. */
struct probe_arg {
	struct fetch_insn	*code;	/* its fetch program */
	bool			dynamic;/* stores a __data_loc (string) */
	unsigned int		offset;	/* of its slot in the record */
	unsigned int		count;	/* array elements, 0: not an array */
	const char		*name;	/* field name */
	const char		*comm;	/* the argument as the user wrote it */
	char			*fmt;	/* format-file type of an array */
	const struct fetch_type	*type;
};

/*
 * Function arguments a return probe saves at function entry ($argN and
 * BTF parameters on a return probe).  code[i] is a FETCH_OP_ARG whose
 * value goes to the i-th unsigned long of the entry data; the array is
 * terminated by FETCH_OP_END and has room for @size instructions.
 */
struct probe_entry_arg {
	struct fetch_insn	*code;
	unsigned int		size;
};

struct trace_uprobe_filter {
	rwlock_t		rwlock;
	int			nr_systemwide;
	struct list_head	perf_events;
};

/* An event (name, format, files) shared by one or more probes. */
struct trace_probe_event {
	unsigned int			flags;	/* TP_FLAG_* */
	/* RCU state when a file link last went (trace_probe_remove_file()) */
	unsigned long			files_gp;
	struct trace_event_class	class;
	struct trace_event_call		call;
	struct list_head		files;	/* event_file_link, RCU */
	struct list_head		probes;	/* trace_probe.list */
	char				**field_strings; /* owned by fields */
	int				nr_field_strings;
	struct trace_uprobe_filter	filter[];
};

struct trace_probe {
	struct trace_probe_event	*event;
	struct list_head		list;	/* in event->probes */
	struct probe_entry_arg		*entry_arg;	/* return probes only */
	ssize_t				size;	/* fixed size of the args */
	unsigned int			nr_args;
	struct probe_arg		args[];
};

/* An instance file the event is enabled on, in trace_probe_event.files. */
struct event_file_link {
	struct list_head		list;
	struct trace_event_file		*file;
};

static inline unsigned int trace_probe_load_flag(struct trace_probe *tp)
{
	/*
	 * Read on the hit path without locks: pairs with the release in
	 * trace_probe_set_flag(), so a hit that sees a flag also sees the
	 * file links published before it was set.
	 */
	return smp_load_acquire(&tp->event->flags);
}

static inline bool trace_probe_test_flag(struct trace_probe *tp, unsigned int flag)
{
	return (trace_probe_load_flag(tp) & flag) != 0;
}

/* Flags change under event_mutex; hits only read them. */
static inline void trace_probe_clear_flag(struct trace_probe *tp, unsigned int flag)
{
	tp->event->flags &= ~flag;
}

static inline void trace_probe_set_flag(struct trace_probe *tp, unsigned int flag)
{
	/* pairs with smp_load_acquire() in trace_probe_load_flag() */
	smp_store_release(&tp->event->flags, tp->event->flags | flag);
}

static inline bool trace_probe_is_enabled(struct trace_probe *tp)
{
	return trace_probe_load_flag(tp) & (TP_FLAG_TRACE | TP_FLAG_PROFILE);
}

/* Accessors of the event a probe belongs to */
static inline struct trace_event_call *trace_probe_event_call(struct trace_probe *tp)
{
	return &tp->event->call;
}

static inline const char *trace_probe_name(struct trace_probe *tp)
{
	return trace_event_name(trace_probe_event_call(tp));
}

static inline const char *trace_probe_group_name(struct trace_probe *tp)
{
	return trace_probe_event_call(tp)->class->system;
}

static inline struct trace_probe_event *
trace_probe_event_from_call(struct trace_event_call *event_call)
{
	return container_of(event_call, struct trace_probe_event, call);
}

/* The first probe of the event, whose arguments define its format. */
static inline struct trace_probe *
trace_probe_primary_from_call(struct trace_event_call *call)
{
	return list_first_entry_or_null(&trace_probe_event_from_call(call)->probes,
					struct trace_probe, list);
}

static inline struct list_head *trace_probe_probe_list(struct trace_probe *tp)
{
	return &tp->event->probes;
}

/* Does another probe share @tp's event? */
static inline bool trace_probe_has_sibling(struct trace_probe *tp)
{
	struct list_head *head = &tp->event->probes;

	return !list_empty(head) && head->next != head->prev;
}

static inline bool trace_probe_has_single_file(struct trace_probe *tp)
{
	return list_is_singular(&tp->event->files);
}

/* The event (tp->event) is freed by the event layer after this. */
/*
 * The event's files go with it: a hit that found one through a link
 * before the event was disabled may still be using it, so wait for the
 * grace period after the last link went (usually long past).
 * Context: event_mutex held, may sleep.
 */
static inline int trace_probe_unregister_event_call(struct trace_probe *tp)
{
	if (tp->event->files_gp)
		cond_synchronize_rcu(tp->event->files_gp);
	return trace_remove_event_call(trace_probe_event_call(tp));
}

/*
 * A probe's life with its event (trace_probe_event.c): init, then append
 * to an existing event or register a new one, and unlink + cleanup at
 * the end.
 */
int trace_probe_init(struct trace_probe *tp, const char *event, const char *group,
		     bool alloc_filter, int nargs);
int trace_probe_append(struct trace_probe *tp, struct trace_probe *to);
int trace_probe_register_event_call(struct trace_probe *tp);
void trace_probe_unlink(struct trace_probe *tp);
void trace_probe_cleanup(struct trace_probe *tp);

/* Whether two probes may share an event, and what a delete command names. */
int trace_probe_compare_arg_type(struct trace_probe *a, struct trace_probe *b);
bool trace_probe_match_command_args(struct trace_probe *tp, int argc, const char **argv);

/* The instance files (struct event_file_link) an event is enabled on. */
int trace_probe_add_file(struct trace_probe *tp, struct trace_event_file *file);
int trace_probe_remove_file(struct trace_probe *tp, struct trace_event_file *file);
struct event_file_link *trace_probe_get_file_link(struct trace_probe *tp,
						  struct trace_event_file *file);

#define trace_probe_for_each_link(pos, tp)	\
	list_for_each_entry(pos, &(tp)->event->files, list)
#define trace_probe_for_each_link_rcu(pos, tp)	\
	list_for_each_entry_rcu(pos, &(tp)->event->files, list)

/* The values $argN of a return probe needs, saved at the function entry. */
#ifndef CONFIG_HAVE_FUNCTION_ARG_ACCESS_API
static inline void store_trace_entry_data(void *edata, struct trace_probe *tp,
					  struct pt_regs *regs)
{
}

static inline int traceprobe_get_entry_data_size(struct trace_probe *tp)
{
	return 0;
}
#else
/* Runs in the entry handler of a return probe: save the entry data. */
void store_trace_entry_data(void *edata, struct trace_probe *tp, struct pt_regs *regs);
int traceprobe_get_entry_data_size(struct trace_probe *tp);
#endif

/*
 * Where a fetch argument is evaluated (traceprobe_parse_context.flags).
 * RETURN, FENTRY and TEVENT exclude each other, so do KERNEL and USER;
 * FPROBE and TPOINT refine KERNEL and are not part of the location.
 */
enum {
	TPARG_FL_RETURN	= BIT(0),	/* at a function's return */
	TPARG_FL_KERNEL	= BIT(1),	/* kernel code (kprobe, fprobe, ...) */
	TPARG_FL_FENTRY	= BIT(2),	/* at a function's entry */
	TPARG_FL_TEVENT	= BIT(3),	/* reads a trace event's fields */
	TPARG_FL_USER	= BIT(4),	/* user code (uprobe) */
	TPARG_FL_FPROBE	= BIT(5),	/* an fprobe event */
	TPARG_FL_TPOINT	= BIT(6),	/* a tracepoint probe */
	TPARG_FL_LOC_MASK = TPARG_FL_RETURN | TPARG_FL_KERNEL |
			    TPARG_FL_FENTRY | TPARG_FL_TEVENT | TPARG_FL_USER,
};

static inline bool tparg_is_function_entry(unsigned int flags)
{
	return (flags & TPARG_FL_LOC_MASK) == (TPARG_FL_KERNEL | TPARG_FL_FENTRY);
}

static inline bool tparg_is_function_return(unsigned int flags)
{
	return (flags & TPARG_FL_LOC_MASK) == (TPARG_FL_KERNEL | TPARG_FL_RETURN);
}

/*
 * State of parsing the arguments of one probe.  The caller fills @flags,
 * @event (eprobe) and @funcname (BTF); the rest belongs to the parser.
 * traceprobe_finish_parse() must be called once parsing is over.
 */
struct traceprobe_parse_context {
	/* from the caller */
	unsigned int flags;
	struct trace_event_call *event;	/* the event an eprobe reads */
	const char *funcname;		/* the function, for its BTF */

	/* the parser's */
	struct trace_probe *tp;		/* whose argument is parsed */
	int offset;			/* error_log position of the body */

	/* BTF: the function's prototype, then what the last value was */
	struct btf *btf;
	const struct btf_type *proto;
	const struct btf_param *params;
	s32 nr_params;
	const struct btf_type *last_type;
	u32 last_bitoffs;		/* bit offset and size, bitfields */
	u32 last_bitsize;
};

/*
 * Parsing (trace_probe.c).  Context: dyn_event_ops_mutex held, errors go
 * to error_log.  A command is first split into words, its event name and
 * its probe place; the argument list may be rewritten ($arg*, %pd), then
 * each argument parsed and, for @SYM, resolved once symbols are known.
 */
int trace_probe_create(const char *raw_command, int (*createfn)(int, const char **));
int traceprobe_parse_event_name(const char **pevent, const char **pgroup, char *buf, int offset);
int traceprobe_split_symbol_offset(char *symbol, long *offset);
const char **traceprobe_expand_meta_args(int argc, const char *argv[], int *new_argc,
					 char *buf, int bufsize,
					 struct traceprobe_parse_context *ctx);
int traceprobe_expand_dentry_args(int argc, const char *argv[], char **buf);
int traceprobe_check_nr_args(int nr);
int traceprobe_parse_probe_arg(struct trace_probe *tp, int i, const char *argv,
			       struct traceprobe_parse_context *ctx);
void traceprobe_finish_parse(struct traceprobe_parse_context *ctx);
int traceprobe_update_arg(struct probe_arg *arg);
void traceprobe_free_probe_arg(struct probe_arg *arg);

/* The event's format: fields, print fmt, and printing the arguments. */
enum probe_print_type {
	PROBE_PRINT_NORMAL,	/* "(ip)" */
	PROBE_PRINT_RETURN,	/* "(ret_ip <- func)" */
	PROBE_PRINT_EVENT,	/* nothing before the arguments */
};

int traceprobe_define_arg_fields(struct trace_event_call *event_call, size_t offset,
				 struct trace_probe *tp);
int traceprobe_set_print_fmt(struct trace_probe *tp, enum probe_print_type ptype);
int traceprobe_parse_args(struct trace_probe *tp, int argc, const char *argv[],
			  struct traceprobe_parse_context *ctx,
			  enum probe_print_type ptype);
int trace_probe_print_args(struct trace_seq *s, struct probe_arg *args, int nr_args,
			   u8 *data, void *field);
enum print_line_t trace_probe_print_hit(struct trace_iterator *iter, int flags,
					struct trace_probe *tp, bool is_return);
int trace_probe_define_hit_fields(struct trace_event_call *call,
				  struct trace_probe *tp, bool is_return);
#ifdef CONFIG_PROBE_EVENTS_DUMP_FETCHARG
void trace_probe_dump_args(struct seq_file *m, struct trace_probe *tp);
#else
static inline void trace_probe_dump_args(struct seq_file *m, struct trace_probe *tp) { }
#endif

/* Local (perf-only) probe events, created by perf_event_open(). */
#ifdef CONFIG_PERF_EVENTS
struct trace_event_call *create_local_trace_kprobe(char *func, void *addr,
						   unsigned long offs, bool is_return);
void destroy_local_trace_kprobe(struct trace_event_call *event_call);
struct trace_event_call *create_local_trace_uprobe(char *name, unsigned long offs,
						   unsigned long ref_ctr_offset,
						   bool is_return);
void destroy_local_trace_uprobe(struct trace_event_call *event_call);
#endif

/*
 * Errors reported to tracefs error_log.  The messages live in
 * trace_probe_event.c (probe_err_text[]), indexed by these values.
 */
enum trace_probe_error {
	/* uprobe target */
	TP_ERR_FILE_NOT_FOUND,
	TP_ERR_NO_REGULAR_FILE,
	TP_ERR_BAD_REFCNT,
	TP_ERR_REFCNT_OPEN_BRACE,
	TP_ERR_BAD_REFCNT_SUFFIX,
	TP_ERR_BAD_UPROBE_OFFS,
	/* probe point */
	TP_ERR_BAD_MAXACT_TYPE,
	TP_ERR_BAD_MAXACT,
	TP_ERR_MAXACT_TOO_BIG,
	TP_ERR_BAD_PROBE_ADDR,
	TP_ERR_NON_UNIQ_SYMBOL,
	TP_ERR_BAD_RETPROBE,
	TP_ERR_NO_TRACEPOINT,
	TP_ERR_BAD_TP_NAME,
	TP_ERR_BAD_ADDR_SUFFIX,
	/* group and event names */
	TP_ERR_NO_GROUP_NAME,
	TP_ERR_GROUP_TOO_LONG,
	TP_ERR_BAD_GROUP_NAME,
	TP_ERR_NO_EVENT_NAME,
	TP_ERR_EVENT_TOO_LONG,
	TP_ERR_BAD_EVENT_NAME,
	TP_ERR_EVENT_EXIST,
	/* fetch arguments */
	TP_ERR_RETVAL_ON_PROBE,
	TP_ERR_NO_RETVAL,
	TP_ERR_BAD_STACK_NUM,
	TP_ERR_BAD_ARG_NUM,
	TP_ERR_BAD_VAR,
	TP_ERR_BAD_REG_NAME,
	TP_ERR_BAD_MEM_ADDR,
	TP_ERR_BAD_IMM,
	TP_ERR_IMMSTR_NO_CLOSE,
	TP_ERR_FILE_ON_KPROBE,
	TP_ERR_BAD_FILE_OFFS,
	TP_ERR_SYM_ON_UPROBE,
	TP_ERR_TOO_MANY_OPS,
	TP_ERR_DEREF_NEED_BRACE,
	TP_ERR_BAD_DEREF_OFFS,
	TP_ERR_DEREF_OPEN_BRACE,
	TP_ERR_COMM_CANT_DEREF,
	TP_ERR_BAD_FETCH_ARG,
	TP_ERR_ARRAY_NO_CLOSE,
	TP_ERR_BAD_ARRAY_SUFFIX,
	TP_ERR_BAD_ARRAY_NUM,
	TP_ERR_ARRAY_TOO_BIG,
	TP_ERR_BAD_TYPE,
	TP_ERR_BAD_STRING,
	TP_ERR_BAD_SYMSTRING,
	TP_ERR_BAD_BITFIELD,
	TP_ERR_ARG_NAME_TOO_LONG,
	TP_ERR_NO_ARG_NAME,
	TP_ERR_BAD_ARG_NAME,
	TP_ERR_USED_ARG_NAME,
	TP_ERR_ARG_TOO_LONG,
	TP_ERR_NO_ARG_BODY,
	TP_ERR_TOO_MANY_ARGS,
	TP_ERR_NOSUP_PERCPU,
	TP_ERR_TYPECAST_REQ_FIELD,
	TP_ERR_TYPECAST_SYM_OFFSET,
	TP_ERR_TYPECAST_NOT_ALIGNED,
	TP_ERR_TYPECAST_BAD_ARROW,
	TP_ERR_NO_EVENT_FIELD,
	/* registration */
	TP_ERR_BAD_INSN_BNDRY,
	TP_ERR_FAIL_REG_PROBE,
	TP_ERR_DIFF_PROBE_TYPE,
	TP_ERR_DIFF_ARG_TYPE,
	TP_ERR_SAME_PROBE,
	/* eprobe */
	TP_ERR_NO_EVENT_INFO,
	TP_ERR_BAD_ATTACH_EVENT,
	TP_ERR_BAD_ATTACH_ARG,
	TP_ERR_NO_EP_FILTER,
	/* BTF arguments */
	TP_ERR_NOSUP_BTFARG,
	TP_ERR_NO_BTFARG,
	TP_ERR_NO_BTF_ENTRY,
	TP_ERR_BAD_VAR_ARGS,
	TP_ERR_NOFENTRY_ARGS,
	TP_ERR_DOUBLE_ARGS,
	TP_ERR_ARGS_2LONG,
	TP_ERR_ARGIDX_2BIG,
	TP_ERR_NO_PTR_STRCT,
	TP_ERR_NOSUP_DAT_ARG,
	TP_ERR_BAD_HYPHEN,
	TP_ERR_NO_BTF_FIELD,
	TP_ERR_BAD_BTF_TID,
	TP_ERR_BAD_TYPE4STR,
	TP_ERR_NEED_STRING_TYPE,
	TP_ERR_EVENT_TOO_BIG,
	TP_ERR_NOT_INJECTABLE,
	TP_NR_ERRORS
};

/*
 * error_log reporting.  A front end calls trace_probe_log_init() with the
 * split command, points at the word being parsed with
 * trace_probe_log_set_index() (an index past the last word means "after
 * the command") and reports with trace_probe_log_err(offset-in-word, ERR).
 * All of it under dyn_event_ops_mutex.
 */
void __trace_probe_log_err(int offset, int err);
#define trace_probe_log_err(offs, err)	\
	__trace_probe_log_err(offs, TP_ERR_##err)

void trace_probe_log_init(const char *subsystem, int argc, const char **argv);
void trace_probe_log_clear(void);
void trace_probe_log_set_index(int index);

/*
 * Where a fetch argument was written, once the arguments were rewritten
 * ("$arg*" and "$argN" by BTF names, "%pd" by a dereference): an error
 * at offset N of the argument points at offset N + @shift of @word (kept
 * within the word), or at its start if @whole.
 */
struct probe_arg_origin {
	int	word;
	int	shift;
	bool	whole;
};

void trace_probe_log_set_origins(struct probe_arg_origin *origin, int n);
void trace_probe_log_set_arg(int i);
void trace_probe_log_shift_arg(int i, int delta);

/*
 * Report @err at @offs and give back @ret, for a parser's
 * "return trace_probe_fail(offs, ERR, ret);" (trace_probe_inval() when
 * @ret is -EINVAL).
 */
static inline int __trace_probe_fail(int offs, int err, int ret)
{
	__trace_probe_log_err(offs, err);
	return ret;
}

#define trace_probe_fail(offs, err, ret)	__trace_probe_fail(offs, TP_ERR_##err, ret)
#define trace_probe_inval(offs, err)		trace_probe_fail(offs, err, -EINVAL)

struct uprobe_dispatch_data {
	struct trace_uprobe	*tu;
	unsigned long		bp_addr;
};

#endif /* _KERNEL_TRACE_PROBE_H */
