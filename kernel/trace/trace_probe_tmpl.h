/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Run-time half of the fetch-argument engine: the interpreter of the
 * fetch programs built by trace_probe.c.
 *
 * A probe front end includes this file and defines the helpers declared
 * below (how to read memory, strings and, in process_fetch_insn(), the
 * LOAD instructions that depend on its context); the stages after LOAD
 * are common and live here.  All of it runs in the probe hit path, with
 * preemption disabled and possibly in NMI context, so nothing here may
 * sleep, take locks or be probed.
 */
#ifndef _KERNEL_TRACE_PROBE_TMPL_H
#define _KERNEL_TRACE_PROBE_TMPL_H

/*
 * Provided by the front end.  All of them return the number of bytes of
 * dynamic data consumed (>= 0) or a negative error; with @dest == NULL,
 * process_fetch_insn() only returns how much dynamic data it would need.
 */
/* memory, from the kernel's and from the user's address space */
static nokprobe_inline int probe_mem_read(void *dest, void *src, size_t size);
static nokprobe_inline int probe_mem_read_user(void *dest, void *src, size_t size);

/* strings: how long one is, then a copy into the record's dynamic data */
static nokprobe_inline int fetch_store_strlen(unsigned long addr);
static nokprobe_inline int fetch_store_strlen_user(unsigned long addr);
static nokprobe_inline int fetch_store_string(unsigned long addr, void *dest, void *base);
static nokprobe_inline int fetch_store_string_user(unsigned long addr, void *dest, void *base);

/* the LOAD stage of a program, and what follows it (see below) */
static int process_fetch_insn(struct fetch_insn *code, void *rec, void *edata,
			      void *dest, void *base);

/* Bytes "symbol+0xoff/0xsize [mod]" of @addr takes, NUL included. */
static nokprobe_inline int
fetch_store_symstrlen(unsigned long addr)
{
	char name[KSYM_SYMBOL_LEN];
	int len = sprint_symbol(name, addr);

	return len < 0 ? 0 : len + 1;
}

/*
 * Store "symbol+0xoff/0xsize" of @addr at the data location *@dest
 * (relative to @base) and make *@dest describe it.  Returns the bytes
 * used, NUL included.
 */
static nokprobe_inline int
fetch_store_symstring(unsigned long addr, void *dest, void *base)
{
	u32 loc = *(u32 *)dest;
	unsigned int room = get_loc_len(loc);
	char name[KSYM_SYMBOL_LEN];
	int len;

	if (unlikely(!room))
		return -ENOMEM;
	len = sprint_symbol(name, addr) + 1;
	if (len > room)
		len = room;
	memcpy(get_loc_data(dest, base), name, len);
	((char *)get_loc_data(dest, base))[len - 1] = '\0';
	*(u32 *)dest = make_data_loc(len, get_loc_offs(loc));
	return len;
}

/* The LOAD instructions that do not depend on the probe's context. */
static nokprobe_inline int
process_common_fetch_insn(struct fetch_insn *code, unsigned long *val)
{
	if (code->op == FETCH_OP_IMM)
		*val = code->immediate;
	else if (code->op == FETCH_OP_COMM)
		*val = (unsigned long)current->comm;
	else if (code->op == FETCH_OP_CURRENT)
		*val = (unsigned long)current;
	else if (code->op == FETCH_OP_DATA)
		*val = (unsigned long)code->data;
	else
		return -EILSEQ;
	return 0;
}

static nokprobe_inline bool fetch_op_is_string_store(enum fetch_op op)
{
	return op == FETCH_OP_ST_STRING || op == FETCH_OP_ST_USTRING ||
	       op == FETCH_OP_ST_SYMSTR;
}

/* The ops of the dereference stage, between LOAD and STORE. */
static nokprobe_inline bool fetch_op_is_step(enum fetch_op op)
{
	return op == FETCH_OP_DEREF || op == FETCH_OP_UDEREF ||
	       op == FETCH_OP_CPU_PTR;
}

/*
 * This CPU's copy of the per-CPU variable whose __percpu address is @val.
 * The probe handlers run with preemption off, so the CPU cannot change
 * under the caller; raw_cpu_ptr() is this_cpu_ptr() without the check
 * that says so, which would itself be traced on a debug kernel.
 */
static nokprobe_inline unsigned long fetch_cpu_ptr(unsigned long val)
{
	return (unsigned long)raw_cpu_ptr((void __percpu *)val);
}

/* Follow one DEREF/UDEREF: *@val = *(*@val + offset). */
static nokprobe_inline int
fetch_follow(const struct fetch_insn *insn, unsigned long *val)
{
	void *addr = (void *)*val + insn->offset;

	if (insn->op == FETCH_OP_UDEREF)
		return probe_mem_read_user(val, addr, sizeof(*val));
	return probe_mem_read(val, addr, sizeof(*val));
}

/* Write the low @size bytes of @val to @dest. */
static nokprobe_inline void
fetch_put_value(void *dest, unsigned int size, unsigned long val)
{
	if (is_power_of_2(size) && size <= sizeof(u64))
		probe_store_uint(dest, size, val);
	else
		*(unsigned long *)dest = val;
}

/*
 * Is @code (a program starting at its LOAD) the common argument, a value
 * stored as it was loaded: LOAD, ST_RAW, END?  A register, $argN,
 * $stackN or $retval with a plain type is.  For such a program the
 * stages after LOAD reduce to fetch_put_value(@dest, code[1].size, val),
 * which a front end's process_fetch_insn() may do itself, away from the
 * string and symbol stores and the stack frame they need.  The program
 * holds at least LOAD, one more instruction and END, so code[2] is only
 * read when code[1] is not END.
 */
static nokprobe_inline bool fetch_insn_is_raw(const struct fetch_insn *code)
{
	return code[1].op == FETCH_OP_ST_RAW && code[2].op == FETCH_OP_END;
}

/*
 * Cut a bitfield out of its container: shift out the high, then the low
 * bits.  The container (1, 2, 4 or 8 bytes, as the parser made it) is
 * worked on at the top of a u64, so one pair of shifts serves every size;
 * the parser keeps both shifts below the container's width.
 */
static nokprobe_inline void
fetch_cut_bitfield(const struct fetch_insn *bf, void *dest)
{
	unsigned int pad = 64 - BITS_PER_BYTE * bf->basesize;
	u64 v = probe_load_uint(dest, bf->basesize);

	probe_store_uint(dest, bf->basesize,
			 (v << (bf->lshift + pad)) >> (bf->rshift + pad));
}

/*
 * Run one STORE for the value @val.  With @dest == NULL only measure the
 * dynamic data a string store would need.
 */
static nokprobe_inline int
fetch_store(const struct fetch_insn *st, unsigned long val, void *dest,
	    void *base)
{
	unsigned long addr = val + st->offset;
	int err;

	switch (st->op) {
	case FETCH_OP_ST_RAW:
		if (dest)
			fetch_put_value(dest, st->size, val);
		return 0;
	case FETCH_OP_ST_MEM:
	case FETCH_OP_ST_UMEM:
		if (!dest)
			return 0;
		if (st->op == FETCH_OP_ST_MEM)
			err = probe_mem_read(dest, (void *)addr, st->size);
		else
			err = probe_mem_read_user(dest, (void *)addr, st->size);
		if (err)	/* record zeroes rather than stale bytes */
			memset(dest, 0, st->size);
		return 0;
	case FETCH_OP_ST_STRING:
		return dest ? fetch_store_string(addr, dest, base) :
			      fetch_store_strlen(addr);
	case FETCH_OP_ST_USTRING:
		return dest ? fetch_store_string_user(addr, dest, base) :
			      fetch_store_strlen_user(addr);
	case FETCH_OP_ST_SYMSTR:
		return dest ? fetch_store_symstring(addr, dest, base) :
			      fetch_store_symstrlen(addr);
	default:
		return -EILSEQ;
	}
}

/*
 * Mark the string slots @dest[0..n) as faulted: empty, located where the
 * data of the first one would have gone.
 */
static nokprobe_inline void
fetch_fault_strings(u32 *dest, unsigned int n)
{
	u32 offs = get_loc_offs(*dest);

	while (n--)
		*dest++ = make_data_loc(0, offs);
}

/**
 * process_fetch_insn_bottom - run a fetch program after its LOAD
 * @code: the instruction after LOAD
 * @val: the value LOAD produced
 * @dest: the argument's slot in the record, or NULL to measure
 * @base: the start of the record (data locations are relative to it)
 *
 * Follows the dereferences, stores the value (once per element for an
 * array; for an array of strings the last dereference walks an array of
 * pointers) and applies the bitfield mask.  Context: probe hit path.
 *
 * Return: the bytes of dynamic data used (or needed when @dest is NULL),
 * or a negative error.  On a fault the slot is left as a faulted string
 * or as zeroes, never as stale bytes.
 */
static nokprobe_inline int
process_fetch_insn_bottom(struct fetch_insn *code, unsigned long val,
			  void *dest, void *base)
{
	struct fetch_insn *last_deref = NULL, *st, *bf = NULL;
	unsigned long ptr = 0;	/* what the last dereference started from */
	unsigned int i, nr = 1;
	bool is_array = false;
	int ret = 0, total = 0;

	/* Dereference stage: recognised by the op, so no bound is needed. */
	for (st = code; fetch_op_is_step(st->op); st++) {
		if (st->op == FETCH_OP_CPU_PTR) {
			val = fetch_cpu_ptr(val);
			continue;
		}
		ptr = val;
		ret = fetch_follow(st, &val);
		if (ret) {
			/* the STORE says how to mark the slot as faulted */
			while (fetch_op_is_step(st->op))
				st++;
			break;
		}
		last_deref = st;
	}

	/* The shape after STORE: [MOD_BF] [LP_ARRAY] END */
	code = st + 1;
	if (code->op == FETCH_OP_MOD_BF)
		bf = code++;
	if (code->op == FETCH_OP_LP_ARRAY) {
		is_array = true;
		nr = code->param;
		code++;
	}
	if (code->op != FETCH_OP_END)
		return -EILSEQ;

	if (ret) {		/* a dereference faulted */
		if (dest && fetch_op_is_string_store(st->op))
			fetch_fault_strings(dest, nr);
		else if (dest)
			memset(dest, 0, st->size * nr);
		return ret;
	}

	for (i = 0; i < nr; i++) {
		u32 loc = dest ? *(u32 *)dest : 0;

		if (i && fetch_op_is_string_store(st->op)) {
			/* Element i of an array of string pointers */
			val = ptr + i * sizeof(char *);
			if (!last_deref || fetch_follow(last_deref, &val)) {
				if (dest)
					fetch_fault_strings(dest, nr - i);
				break;
			}
		}
		ret = fetch_store(st, val, dest, base);
		if (bf && dest)
			fetch_cut_bitfield(bf, dest);
		if (!is_array)
			return ret;
		if (ret > 0)
			total += ret;
		if (!dest)
			continue;
		if (fetch_op_is_string_store(st->op)) {
			dest += sizeof(u32);
			if (i + 1 < nr)
				*(u32 *)dest = update_data_loc(loc, max(ret, 0));
		} else {
			dest += st->size;
			val += st->size;
		}
	}
	return total;
}

/* Sum up the dynamic data (strings) @tp's arguments need for this hit. */
static nokprobe_inline int
__get_data_size(struct trace_probe *tp, struct pt_regs *regs, void *edata)
{
	struct probe_arg *arg, *end = tp->args + tp->nr_args;
	int sum = 0;

	for (arg = tp->args; arg < end; arg++) {
		/* a NULL @dest only measures */
		int len = arg->dynamic ?
			process_fetch_insn(arg->code, regs, edata, NULL, NULL) : 0;

		sum += max(len, 0);
	}
	return sum;
}

/*
 * Fill the argument part @data of a record whose header is @header_size
 * bytes; @maxlen bytes of dynamic data follow the fixed part.
 */
static nokprobe_inline void
store_trace_args(void *data, struct trace_probe *tp, void *rec, void *edata,
		 int header_size, int maxlen)
{
	void *base = data - header_size;
	void *dyn = data + tp->size;
	int i, used;

	for (i = 0; i < tp->nr_args; i++) {
		struct probe_arg *arg = &tp->args[i];
		u32 *slot = data + arg->offset;

		if (unlikely(arg->dynamic))
			*slot = make_data_loc(maxlen, dyn - base);
		used = process_fetch_insn(arg->code, rec, edata, slot, base);
		if (arg->dynamic && likely(used > 0)) {
			dyn += used;
			maxlen -= used;
		}
	}
}

/*
 * The record path of the kprobe and fprobe events: one hit, written to
 * every ring buffer the event is enabled in and to this CPU's perf
 * events.  A template like the rest of this file: each front end's own
 * process_fetch_insn() runs inside.  Context: a probe handler, with
 * preemption disabled (an RCU-sched reader of the event's file links).
 */

/**
 * struct trace_probe_hit - one hit, as the record writers see it
 * @regs: registers at the probe
 * @edata: return probes: what the entry saved for the exit, else NULL
 * @func: entry probes: the probed address; return probes: the function
 * @ret_ip: return probes: where the function returns to
 * @dsize: bytes of dynamic (string) data; -1 until first needed
 * @is_return: the record head holds func and ret_ip, not ip
 */
struct trace_probe_hit {
	struct pt_regs	*regs;
	void		*edata;
	unsigned long	func;
	unsigned long	ret_ip;
	int		dsize;
	bool		is_return;
};

/*
 * The record head: struct kprobe_trace_entry_head or
 * kretprobe_trace_entry_head (the fentry and fexit heads are laid out
 * the same).
 */
static nokprobe_inline size_t trace_probe_head_size(struct trace_probe_hit *h)
{
	return h->is_return ? sizeof(struct kretprobe_trace_entry_head) :
			      sizeof(struct kprobe_trace_entry_head);
}

static nokprobe_inline int trace_probe_hit_dsize(struct trace_probe *tp,
						 struct trace_probe_hit *h)
{
	if (h->dsize < 0)
		h->dsize = __get_data_size(tp, h->regs, h->edata);
	return h->dsize;
}

/* Fill @rec after its trace_entry: the head, then the arguments. */
static nokprobe_inline void trace_probe_fill(struct trace_probe *tp,
					     void *rec,
					     struct trace_probe_hit *h)
{
	size_t head = trace_probe_head_size(h);

	if (h->is_return) {
		struct kretprobe_trace_entry_head *r = rec;

		r->func = h->func;
		r->ret_ip = h->ret_ip;
	} else {
		struct kprobe_trace_entry_head *e = rec;

		e->ip = h->func;
	}
	store_trace_args(rec + head, tp, h->regs, h->edata, head, h->dsize);
}

static nokprobe_inline void trace_probe_to_rings(struct trace_probe *tp,
						 struct trace_probe_hit *h)
{
	size_t head = trace_probe_head_size(h);
	struct trace_event_buffer fbuffer;
	struct event_file_link *link;
	void *rec;

	trace_probe_for_each_link_rcu(link, tp) {
		if (trace_trigger_soft_disabled(link->file))
			continue;
		rec = trace_event_buffer_reserve(&fbuffer, link->file,
						 head + tp->size +
						 trace_probe_hit_dsize(tp, h));
		if (!rec)
			continue;
		fbuffer.regs = h->regs;
		trace_probe_fill(tp, rec, h);
		trace_event_buffer_commit(&fbuffer);
	}
}

#ifdef CONFIG_PERF_EVENTS
/*
 * Feed this CPU's perf events of @tp's event; with @bpf, run the
 * event's BPF programs first.
 * Return: 1 if a BPF program moved an entry probe's ip
 * (bpf_override_return()): the probed instruction must not run.
 */
static nokprobe_inline int trace_probe_to_perf(struct trace_probe *tp,
					       struct trace_probe_hit *h,
					       bool bpf)
{
	struct trace_event_call *call = trace_probe_event_call(tp);
	struct hlist_head *list = this_cpu_ptr(call->perf_events);
	size_t head = trace_probe_head_size(h);
	int size, fixed, rctx;
	void *rec;

	if (bpf && bpf_prog_array_valid(call)) {
		unsigned long ip = instruction_pointer(h->regs);
		unsigned int keep = trace_call_bpf(call, h->regs);

		if (!h->is_return && ip != instruction_pointer(h->regs))
			return 1;
		if (!keep)
			return 0;
	}
	if (hlist_empty(list))
		return 0;

	/* perf puts a u32 size before the record; keep u64 alignment */
	fixed = head + tp->size;
	size = ALIGN(fixed + trace_probe_hit_dsize(tp, h) + sizeof(u32),
		     sizeof(u64)) - sizeof(u32);
	if (size > PERF_MAX_TRACE_SIZE)
		return 0;	/* too many or too long strings for perf */
	rec = perf_trace_buf_alloc(size, NULL, &rctx);
	if (!rec)
		return 0;
	/*
	 * The fixed part is written whole; a string may come out shorter
	 * than measured: no stale bytes to user space behind it.
	 */
	memset(rec + fixed, 0, size - fixed);
	trace_probe_fill(tp, rec, h);
	perf_trace_buf_submit(rec, size, rctx, call->event.type, 1, h->regs,
			      list, NULL);
	return 0;
}
#else
static nokprobe_inline int trace_probe_to_perf(struct trace_probe *tp,
					       struct trace_probe_hit *h,
					       bool bpf)
{
	return 0;
}
#endif

/*
 * Record one hit of @tp wherever its event is enabled; @bpf: also run
 * the event's BPF programs (kprobe events).
 * Return: as trace_probe_to_perf().
 */
static nokprobe_inline int trace_probe_record(struct trace_probe *tp,
					      struct trace_probe_hit *h,
					      bool bpf)
{
	unsigned int flags = trace_probe_load_flag(tp);
	int ret = 0;

	if (flags & TP_FLAG_TRACE)
		trace_probe_to_rings(tp, h);
	if (flags & TP_FLAG_PROFILE)
		ret = trace_probe_to_perf(tp, h, bpf);
	return ret;
}

#endif /* _KERNEL_TRACE_PROBE_TMPL_H */
