/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the files of the fetch-argument engine share and nobody else
 * sees.  Calls go one way: trace_probe.c (parsing arguments into fetch
 * programs) calls trace_probe_btf.c (arguments named by BTF), and both
 * call trace_probe_event.c (error_log, the fetch types, the entry data
 * of return probes, event formats, and probes with their events), which
 * calls neither.  The fetch_prog helpers below are for the first two;
 * the interface to the probe event front ends, and to the uprobe, eprobe
 * and BPF code of the tree, is trace_probe.h.
 */
#ifndef _TRACE_PROBE_INTERNAL_H
#define _TRACE_PROBE_INTERNAL_H

#include "trace_probe.h"

/*
 * A program being built.  insn[cur] is the instruction written last (or
 * about to be written); the last slot is kept for FETCH_OP_END, so at
 * most FETCH_INSN_MAX - 1 instructions fit.
 */
struct fetch_prog {
	struct fetch_insn	insn[FETCH_INSN_MAX];
	int			cur;
};

static inline struct fetch_insn *prog_cur(struct fetch_prog *prog)
{
	return &prog->insn[prog->cur];
}

/* Move to a fresh slot; NULL when the program is full. */
static inline struct fetch_insn *prog_next(struct fetch_prog *prog)
{
	if (prog->cur + 1 >= FETCH_INSN_MAX - 1)
		return NULL;
	return &prog->insn[++prog->cur];
}

/* Like prog_next() but report TOO_MANY_OPS at @offs when full. */
static inline struct fetch_insn *prog_next_or_log(struct fetch_prog *prog,
						  int offs)
{
	struct fetch_insn *insn = prog_next(prog);

	if (!insn)
		trace_probe_log_err(offs, TOO_MANY_OPS);
	return insn;
}

/* trace_probe_event.c: the fetch type named @name, or NULL. */
const struct fetch_type *trace_probe_find_fetch_type(const char *name,
						     unsigned int flags);
/*
 * trace_probe_event.c: have the entry of a return probe save argument
 * @argnum; returns its slot in the entry data, or a negative error.
 */
int trace_probe_save_entry_arg(struct trace_probe *tp, unsigned int argnum);
/* trace_probe_event.c: free what @n instructions own (up to FETCH_OP_END). */
void trace_probe_free_insn_data(struct fetch_insn *insn, int n);

/*
 * trace_probe_btf.c, for trace_probe.c.  Without
 * CONFIG_PROBE_EVENTS_BTF_ARGS these are stubs that refuse BTF names.
 */
const struct fetch_type *
trace_probe_btf_fetch_type(struct traceprobe_parse_context *ctx);
int trace_probe_parse_btf_typecast(char *cast, int cast_offs, char *members,
				   int members_offs, struct fetch_prog *prog,
				   struct traceprobe_parse_context *ctx);
int trace_probe_parse_btf_arg(char *name, struct fetch_prog *prog,
			      struct traceprobe_parse_context *ctx);
int trace_probe_add_btf_bitfield(struct fetch_prog *prog,
				 const struct fetch_type *t,
				 struct traceprobe_parse_context *ctx);
int trace_probe_prepare_btf_string(const char *type, struct fetch_prog *prog,
				   struct traceprobe_parse_context *ctx);

#endif /* _TRACE_PROBE_INTERNAL_H */
