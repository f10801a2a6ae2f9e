// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * x86 kprobes: the ftrace path.
 *
 * A probe on a function's fentry site does not need an int3: ftrace
 * already calls out from there.  The generic core registers an ftrace_ops
 * with kprobe_ftrace_handler() for such probes; the handler makes the
 * call look like an int3 hit followed by the step over the (5-byte nop)
 * fentry instruction, so that handlers see the same registers either way.
 */
#include <linux/kprobes.h>
#include <linux/ptrace.h>
#include <linux/hardirq.h>
#include <linux/preempt.h>
#include <linux/ftrace.h>

#include "common.h"

/**
 * kprobe_ftrace_handler - run the kprobe on an fentry site
 * @ip: address of the fentry site (the probe address)
 * @parent_ip: return address of the probed function
 * @ops: the kprobes ftrace_ops
 * @fregs: registers saved by the ftrace trampoline (full pt_regs, since
 *         the ops asks for FTRACE_OPS_FL_SAVE_REGS)
 *
 * Called by ftrace in any context the probed function runs in
 * (including NMI); preemption is disabled here: the site lookup is an
 * RCU-sched reader, and the handlers expect it.  On entry regs->ip is
 * the address after the fentry site; the trampoline resumes at whatever
 * regs->ip says on return, which is how a pre_handler returning non-zero
 * redirects.
 *
 * No ftrace recursion lock (ftrace_test_recursion_trylock()): kprobes
 * has its own.  kprobe_ftrace_claim() checks first that no probe runs
 * on this CPU and makes it look as if one did while it looks the probe
 * up, so a nested hit (a probed function called by the handlers or by
 * the lookup itself, an interrupt or NMI) finds current_kprobe set and
 * is counted in nmissed, every one of them, where ftrace's lock would
 * let one through per context and drop the rest unseen.
 */
void kprobe_ftrace_handler(unsigned long ip, unsigned long parent_ip,
			   struct ftrace_ops *ops, struct ftrace_regs *fregs)
{
	struct pt_regs *regs = ftrace_get_regs(fregs);
	unsigned long resume;
	struct kprobe *p;

	if (!regs)
		return;

	preempt_disable_notrace();
	p = kprobe_ftrace_claim(ip);
	if (!p)
		goto out;

	resume = regs->ip;
	/* As if the int3 at @ip had trapped. */
	regs->ip = ip + INT3_INSN_SIZE;
	if (kprobe_run_pre_handlers(p, regs))
		goto done;	/* the handler chose where to go */

	/* As if the fentry nop had been stepped. */
	regs->ip = ip + MCOUNT_INSN_SIZE;
	kprobe_run_post_handler(p, regs, get_kprobe_ctlblk());
	regs->ip = resume;
done:
	reset_current_kprobe();
out:
	preempt_enable_notrace();
}
NOKPROBE_SYMBOL(kprobe_ftrace_handler);

/**
 * arch_prepare_kprobe_ftrace - prepare a probe that ftrace will call
 * @p: the probe, on an fentry site
 *
 * Called with kprobe_mutex held.  Nothing is copied: the fentry site is
 * never stepped or emulated.
 * Return: 0.
 */
int arch_prepare_kprobe_ftrace(struct kprobe *p)
{
	memset(&p->ainsn, 0, sizeof(p->ainsn));
	p->ainsn.size = MCOUNT_INSN_SIZE;
	return 0;
}
