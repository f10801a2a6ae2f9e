/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The fetch hook of the probe events whose hit hands the engine a
 * pt_regs: kprobe and kretprobe events, fprobe and fexit events (and
 * tprobes, which are fprobes on a tracepoint's stub).  One loader of
 * what those registers hold, for both front ends.
 *
 * Include after trace_probe_tmpl.h and trace_probe_kernel.h: this file
 * defines the process_fetch_insn() that the template declares.  Every
 * function here runs on the hit path, in any context (NMI included).
 */
#ifndef __TRACE_PROBE_REGS_H_
#define __TRACE_PROBE_REGS_H_

/*
 * Load what the first instruction of a program names from the probed
 * context: a register, the stack, a function argument, the return value
 * or the entry data a return probe saved.  False if @code loads
 * something else (an immediate, comm, ...), which the engine does.
 * The parser emits FETCH_OP_REG only for kprobe events, whose pt_regs
 * are complete; FETCH_OP_ARG and FETCH_OP_EDATA only where the
 * architecture can find arguments.
 */
static nokprobe_inline bool
probe_regs_load(const struct fetch_insn *code, struct pt_regs *regs,
		void *edata, unsigned long *val)
{
	switch (code->op) {
	case FETCH_OP_REG:
		*val = regs_get_register(regs, code->param);
		return true;
	case FETCH_OP_RETVAL:
		*val = regs_return_value(regs);
		return true;
	case FETCH_OP_STACKP:
		*val = kernel_stack_pointer(regs);
		return true;
	case FETCH_OP_STACK:
		*val = regs_get_kernel_stack_nth(regs, code->param);
		return true;
#ifdef CONFIG_HAVE_FUNCTION_ARG_ACCESS_API
	case FETCH_OP_ARG:
		*val = regs_get_kernel_argument(regs, code->param);
		return true;
	case FETCH_OP_EDATA:	/* saved at entry by store_trace_entry_data() */
		memcpy(val, edata + code->offset, sizeof(*val));
		return true;
#endif
	default:
		return false;
	}
}

/*
 * Every program but a value stored as loaded: symbol placeholders,
 * immediates, dereferences, strings, bitfields, arrays.  Out of line,
 * so that only these pay for the stack frame of the string and symbol
 * stores.
 */
static noinline int
probe_regs_fetch_slow(struct fetch_insn *code, void *rec, void *edata,
		      void *dest, void *base)
{
	unsigned long val;
	int ret;

	/* A resolved @SYM keeps its name holder in front of the IMM. */
	if (code->op == FETCH_NOP_SYMBOL)
		code++;

	if (!probe_regs_load(code, rec, edata, &val)) {
		ret = process_common_fetch_insn(code, &val);
		if (ret < 0)
			return ret;
	}
	return process_fetch_insn_bottom(code + 1, val, dest, base);
}
NOKPROBE_SYMBOL(probe_regs_fetch_slow)

/*
 * Run the fetch program @code of one argument on the registers @rec of
 * a hit, storing into @dest (or sizing its dynamic data when @dest is
 * NULL).  A register, argument or stack slot stored as is, which is
 * what most arguments are, is stored here; the rest goes out of line.
 * Not verified: the program is built by the parser, not by users.
 */
static int
process_fetch_insn(struct fetch_insn *code, void *rec, void *edata,
		   void *dest, void *base)
{
	unsigned long val;

	if (likely(dest && fetch_insn_is_raw(code)) &&
	    probe_regs_load(code, rec, edata, &val)) {
		fetch_put_value(dest, code[1].size, val);
		return 0;
	}
	return probe_regs_fetch_slow(code, rec, edata, dest, base);
}
NOKPROBE_SYMBOL(process_fetch_insn)

#endif /* __TRACE_PROBE_REGS_H_ */
