// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * arm64 kprobes: the ftrace path.
 *
 * With DYNAMIC_FTRACE_WITH_ARGS every traceable function starts with
 *
 *	func:	[bti c]
 *		mov	x9, x30		// written once, when ftrace starts
 *		bl	ftrace_caller	// a nop while nothing traces func
 *
 * A probe on the bl (where arch_adjust_kprobe_addr() puts a probe on
 * "func" or "func+0") is armed by adding the site to a kprobes
 * ftrace_ops.  A hit is then a call, not a BRK exception, and nothing
 * is stepped: the bl itself is the instruction the probe displaces.
 *
 * ftrace_caller saves struct ftrace_regs, not a full exception frame:
 * x0-x8, the frame pointer, the caller's link register (which the mov
 * copied to x9), sp and the pc after the bl.  The handlers get a
 * pt_regs built from those:
 *
 *  - x0-x8, x29, x30 and sp as a BRK on the bl would see them; x9 equals
 *    x30 (the mov has run).
 *  - pc is the probe address for the pre_handlers and the address after
 *    the bl for the post_handlers, as if the bl had been stepped.
 *  - pstate is EL1h with the interrupt masks (DAIF) of the moment.
 *  - x10-x28 do not hold the function's values.  x10-x18 are dead at a
 *    function's entry (AAPCS64 scratch registers); x19-x28 still hold
 *    the caller's values, but ftrace does not save them, so no C code
 *    can read them reliably.  They read as zero, unless an earlier
 *    handler on the same CPU wrote to them (see below).
 *
 * What a handler changes in x0-x8, x29, x30 and pc takes effect when
 * ftrace_caller returns into the function: that is how a pre_handler
 * that returns non-zero redirects, and how a return hook replaces the
 * link register.  Changes to sp and to x9-x28 are lost.
 *
 * The pt_regs is per CPU, not on the stack: only the fields ftrace saved
 * are written at a hit, the rest stays as it was set once (zero, and
 * syscallno NO_SYSCALL), and a hit deep in a call chain does not put a
 * 336-byte frame on the stack.  It has one user at a time: a CPU fills
 * it only after making the probe its running probe (current_kprobe),
 * and a hit that finds a running probe (an interrupt or NMI in the
 * middle of a hit, a probed function called by a handler) is counted as
 * missed without touching it.
 */
#include <linux/ftrace.h>
#include <linux/init.h>
#include <linux/kprobes.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/ptrace.h>
#include <linux/string.h>

#include <asm/insn.h>

static DEFINE_PER_CPU(struct pt_regs, kp_ftrace_regs);

/* The fields ftrace saved; the per-CPU frame keeps the others. */
static nokprobe_inline void
kp_regs_from_ftrace(struct pt_regs *regs, const struct __arch_ftrace_regs *f,
		    unsigned long ip)
{
	/* A fixed-size copy: paired loads and stores, not a loop. */
	memcpy(regs->regs, f->regs, sizeof(f->regs));
	regs->regs[9] = f->lr;
	regs->regs[29] = f->fp;
	regs->regs[30] = f->lr;
	regs->sp = f->sp;
	regs->pc = ip;
	regs->pstate = PSR_MODE_EL1h | read_sysreg(daif);
	regs->orig_x0 = f->regs[0];
}

static nokprobe_inline void kp_regs_to_ftrace(struct __arch_ftrace_regs *f,
					      const struct pt_regs *regs)
{
	memcpy(f->regs, regs->regs, sizeof(f->regs));
	f->fp = regs->regs[29];
	f->lr = regs->regs[30];
	f->pc = regs->pc;
}

/* The pre_handlers at the site, then, unless they redirected, the post. */
static nokprobe_inline void kp_ftrace_run(struct kprobe *p,
					  struct pt_regs *regs,
					  unsigned long ip)
{
	if (kprobe_run_pre_handlers(p, regs))
		return;
	/* As if the bl had been stepped. */
	regs->pc = ip + AARCH64_INSN_SIZE;
	kprobe_run_post_handler(p, regs, get_kprobe_ctlblk());
}

/**
 * kprobe_ftrace_handler - run the kprobe on an ftrace call site
 * @ip: address of the site's bl (the probe address)
 * @parent_ip: the probed function's return address
 * @ops: the kprobes ftrace_ops
 * @fregs: what ftrace_caller saved (see the top of this file)
 *
 * The ops do not ask ftrace for recursion protection, and the handler
 * takes none of ftrace's (ftrace_test_recursion_trylock()): kprobes has
 * its own.  kprobe_ftrace_claim() checks first that no probe runs on
 * this CPU and makes it look as if one did while it looks the probe up,
 * so a probed function that the handlers (or the lookup) call, or an
 * interrupt or NMI hits, finds current_kprobe set and counts a miss.
 * So every nested hit is counted in nmissed, where ftrace's lock would
 * drop nested hits of one context unseen.
 *
 * Context: called by ftrace_caller in the probed function's context
 * (any, including NMI), with interrupts as the function had them;
 * preemption is disabled here: the site lookup is an RCU-sched reader,
 * and the handlers expect it.
 */
void kprobe_ftrace_handler(unsigned long ip, unsigned long parent_ip,
			   struct ftrace_ops *ops, struct ftrace_regs *fregs)
{
	struct __arch_ftrace_regs *f = arch_ftrace_regs(fregs);
	struct pt_regs *regs;
	struct kprobe *p;

	preempt_disable_notrace();
	p = kprobe_ftrace_claim(ip);
	if (p) {
		regs = this_cpu_ptr(&kp_ftrace_regs);
		kp_regs_from_ftrace(regs, f, ip);
		kp_ftrace_run(p, regs, ip);
		kp_regs_to_ftrace(f, regs);
		__this_cpu_write(current_kprobe, NULL);
	}
	preempt_enable_notrace();
}
NOKPROBE_SYMBOL(kprobe_ftrace_handler);

/* The fields no hit writes: as a BRK from kernel code would leave them. */
static int __init kp_ftrace_regs_init(void)
{
	int cpu;

	for_each_possible_cpu(cpu)
		per_cpu(kp_ftrace_regs, cpu).syscallno = NO_SYSCALL;
	return 0;
}
early_initcall(kp_ftrace_regs_init);

/**
 * arch_prepare_kprobe_ftrace - prepare a probe that ftrace will call
 * @p: the probe, on an ftrace call site
 *
 * Nothing is copied or simulated: the site's bl is never run by a probe.
 * Context: process, kprobe_mutex held.
 * Return: 0.
 */
int arch_prepare_kprobe_ftrace(struct kprobe *p)
{
	memset(&p->ainsn, 0, sizeof(p->ainsn));
	return 0;
}

/**
 * arch_adjust_kprobe_addr - map a symbol offset to the probed address
 * @addr: start of the symbol
 * @offset: offset into it
 * @on_func_entry: set when the result is the function's entry
 *
 * A probe at a traceable function's start (offset 0) goes on its ftrace
 * call site, the bl one or two instructions in: only the landing pad
 * and the "mov x9, x30" that ftrace wrote come before it, and neither
 * is the function's own work.  A probe at the site's own offset is the
 * same probe.  Functions without a site (notrace, assembly) are probed
 * where asked.
 * Return: the address to probe.
 */
kprobe_opcode_t *arch_adjust_kprobe_addr(unsigned long addr,
					 unsigned long offset,
					 bool *on_func_entry)
{
	unsigned long site = ftrace_location(addr);

	if (site > addr && site - addr <= 2 * AARCH64_INSN_SIZE &&
	    (!offset || offset == site - addr)) {
		*on_func_entry = true;
		return (kprobe_opcode_t *)site;
	}
	*on_func_entry = !offset;
	return (kprobe_opcode_t *)(addr + offset);
}
