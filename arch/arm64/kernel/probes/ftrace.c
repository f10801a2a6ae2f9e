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
 *  - x10-x28 read as zero.  x10-x18 are dead at a function's entry
 *    (AAPCS64 scratch registers); x19-x28 still hold the caller's
 *    values, but ftrace does not save them, so no C code can read them
 *    reliably.
 *
 * What a handler changes in x0-x8, x29, x30 and pc takes effect when
 * ftrace_caller returns into the function: that is how a pre_handler
 * that returns non-zero redirects, and how a return hook replaces the
 * link register.  Changes to sp and to x9-x28 are lost.
 */
#include <linux/ftrace.h>
#include <linux/kprobes.h>
#include <linux/ptrace.h>

#include <asm/insn.h>

/* Four stores; a loop zeroing x10-x28 would become a memset() call. */
static nokprobe_inline void kp_zero4(u64 *r)
{
	r[0] = 0;
	r[1] = 0;
	r[2] = 0;
	r[3] = 0;
}

/*
 * Fill every field of @regs: the frame lives on the stack uninitialised
 * (zeroing all of it first would cost as much as the rest of the hit).
 */
static nokprobe_inline void
kp_regs_from_ftrace(struct pt_regs *regs, const struct __arch_ftrace_regs *f,
		    unsigned long ip)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(f->regs); i++)
		regs->regs[i] = f->regs[i];
	regs->regs[9] = f->lr;
	kp_zero4(&regs->regs[10]);
	kp_zero4(&regs->regs[14]);
	kp_zero4(&regs->regs[18]);
	kp_zero4(&regs->regs[22]);
	regs->regs[26] = 0;
	regs->regs[27] = 0;
	regs->regs[28] = 0;
	regs->regs[29] = f->fp;
	regs->regs[30] = f->lr;
	regs->sp = f->sp;
	regs->pc = ip;
	regs->pstate = PSR_MODE_EL1h | read_sysreg(daif);
	/* The rest as a BRK from kernel code would leave it. */
	regs->orig_x0 = f->regs[0];
	regs->syscallno = NO_SYSCALL;
	regs->unused2 = 0;
	regs->sdei_ttbr1 = 0;
	regs->pmr_save = 0;
	regs->stackframe[0] = 0;
	regs->stackframe[1] = 0;
	regs->lockdep_hardirqs = 0;
	regs->exit_rcu = 0;
}

static nokprobe_inline void kp_regs_to_ftrace(struct __arch_ftrace_regs *f,
					      const struct pt_regs *regs)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(f->regs); i++)
		f->regs[i] = regs->regs[i];
	f->fp = regs->regs[29];
	f->lr = regs->regs[30];
	f->pc = regs->pc;
}

/*
 * The probe at @ip, made this CPU's running probe, or NULL when none is
 * to run: ftrace is dead, the probe is gone or disabled, or this CPU is
 * already inside a probe (a miss, counted).
 */
static nokprobe_inline struct kprobe *kp_ftrace_claim(unsigned long ip)
{
	struct kprobe *p;

	if (unlikely(kprobe_ftrace_disabled))
		return NULL;
	p = get_kprobe((kprobe_opcode_t *)ip);
	if (!p || kprobe_disabled(p))
		return NULL;
	if (kprobe_running()) {
		kprobes_inc_nmissed_count(p);
		return NULL;
	}
	__this_cpu_write(current_kprobe, p);
	return p;
}

/* The pre_handlers at the site, then, unless they redirected, the post. */
static nokprobe_inline void kp_ftrace_run(struct kprobe *p,
					  struct pt_regs *regs,
					  unsigned long ip)
{
	struct kprobe_ctlblk *kcb = get_kprobe_ctlblk();

	kcb->kprobe_status = KPROBE_HIT_ACTIVE;
	if (kprobe_run_pre_handlers(p, regs))
		return;
	/* As if the bl had been stepped. */
	regs->pc = ip + AARCH64_INSN_SIZE;
	if (p->post_handler) {
		kcb->kprobe_status = KPROBE_HIT_SSDONE;
		p->post_handler(p, regs, 0);
	}
}

/**
 * kprobe_ftrace_handler - run the kprobe on an ftrace call site
 * @ip: address of the site's bl (the probe address)
 * @parent_ip: the probed function's return address
 * @ops: the kprobes ftrace_ops
 * @fregs: what ftrace_caller saved (see the top of this file)
 *
 * Context: called by ftrace_caller in the probed function's context
 * (any, including NMI), with interrupts as the function had them;
 * preemption is disabled here for the handlers.
 */
void kprobe_ftrace_handler(unsigned long ip, unsigned long parent_ip,
			   struct ftrace_ops *ops, struct ftrace_regs *fregs)
{
	struct __arch_ftrace_regs *f = arch_ftrace_regs(fregs);
	struct pt_regs regs __uninitialized;
	struct kprobe *p;
	int bit;

	bit = ftrace_test_recursion_trylock(ip, parent_ip);
	if (bit < 0)
		return;
	p = kp_ftrace_claim(ip);
	if (p) {
		kp_regs_from_ftrace(&regs, f, ip);
		kp_ftrace_run(p, &regs, ip);
		__this_cpu_write(current_kprobe, NULL);
		kp_regs_to_ftrace(f, &regs);
	}
	ftrace_test_recursion_unlock(bit);
}
NOKPROBE_SYMBOL(kprobe_ftrace_handler);

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
