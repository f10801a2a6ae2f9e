// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Jprobes: a handler with the probed function's own prototype.
 *
 * A jprobe is an ordinary kprobe at a function's entry (on x86 with an
 * fentry site, the ftrace path; otherwise a breakpoint) whose pre_handler
 * collects the function's arguments from the saved registers, and from
 * the caller's stack for those that did not fit in registers, following
 * the architecture's calling convention (regs_get_kernel_argument()).
 * It then calls the user's handler with them: a plain indirect C call,
 * on the probe's own stack, that returns to the pre_handler.
 *
 * Nothing is copied onto or taken off the probed function's stack, and
 * no return address or saved instruction pointer changes, so the probed
 * function goes on exactly as if only a kprobe had fired.  That keeps
 * shadow stacks, return thunks and the unwinder happy, and lets several
 * jprobes and kretprobes share a function: they are users of one probe
 * site like any other kprobe.
 */
#include <linux/kprobes.h>
#include <linux/ptrace.h>
#include <linux/slab.h>
#include "internal.h"

#if JPROBE_MAX_ARGS != 8
#error "jprobe_pre() passes exactly 8 arguments"
#endif

/*
 * How the handler is called, whatever it was declared as.  Passing more
 * arguments than a function takes is harmless in the C calling
 * conventions of the architectures with HAVE_REGS_AND_STACK_ACCESS_API
 * (the caller owns and pops the stack arguments), and every argument of
 * an integer or pointer type travels in one register or stack slot.
 */
typedef unsigned long (*jprobe_handler_t)(unsigned long, unsigned long,
					  unsigned long, unsigned long,
					  unsigned long, unsigned long,
					  unsigned long, unsigned long);

/*
 * The pre_handler of every jprobe.  kCFI would refuse the call through a
 * prototype other than the handler's, hence __nocfi; the handler is a
 * normal C function whose address was taken, so it starts with an ENDBR
 * and IBT is satisfied.
 * Context: kprobe pre_handler: preemption disabled (interrupts too on
 * the breakpoint path), any context the probed function runs in; this
 * jprobe's kprobe is the running probe, so probes hit by the handler
 * count as missed.
 */
static int __nocfi jprobe_pre(struct kprobe *p, struct pt_regs *regs)
{
	struct jprobe *jp = container_of(p, struct jprobe, kp);
	jprobe_handler_t handler = jp->entry;
	unsigned long a[JPROBE_MAX_ARGS];
	unsigned int i;

	for (i = 0; i < JPROBE_MAX_ARGS; i++)
		a[i] = regs_get_kernel_argument(regs, i);
	handler(a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7]);
	return 0;
}
NOKPROBE_SYMBOL(jprobe_pre);

bool kprobe_is_jprobe(struct kprobe *p)
{
	return p->pre_handler == jprobe_pre;
}

/*
 * Check @jp before anything is registered, then make its kprobe ours.
 * Context: process, may sleep.
 */
static int jprobe_setup(struct jprobe *jp)
{
	int ret;

	if (!jp->entry || jp->kp.offset)
		return -EINVAL;
	ret = kprobe_on_func_entry(jp->kp.addr, jp->kp.symbol_name, 0);
	if (ret)
		return ret;
	if (jp->kp.addr && kprobe_is_registered(&jp->kp))
		return -EINVAL;
	jp->kp.pre_handler = jprobe_pre;
	jp->kp.post_handler = NULL;
	return 0;
}

/**
 * register_jprobes() - insert several jprobes, all or nothing
 * @jps: the jprobes, each set up as for register_jprobe()
 * @num: number of jprobes
 *
 * Every jprobe is checked first, then all of them are registered as one
 * kprobe batch.  If any of them is refused, none stays registered and no
 * handler of the batch has run.
 *
 * Return: 0, -EINVAL if @num <= 0, or the first error (see
 * register_jprobe()).
 * Context: process, may sleep.
 */
int register_jprobes(struct jprobe **jps, int num)
{
	struct kprobe *one, **kps;
	int i, ret = 0;

	if (num <= 0)
		return -EINVAL;
	for (i = 0; i < num && !ret; i++)
		ret = jprobe_setup(jps[i]);
	if (ret)
		return ret;
	kps = KPROBES_OF(jps, num, struct jprobe, kp, &one);
	if (!kps)
		return -ENOMEM;
	ret = kprobes_register_batch(kps, num);
	kprobes_of_free(kps, &one);
	return ret;
}
EXPORT_SYMBOL_GPL(register_jprobes);

/**
 * register_jprobe() - insert a jprobe
 * @jp: the jprobe: @jp->kp.addr or @jp->kp.symbol_name names the function
 *	(@jp->kp.offset must be 0), @jp->entry the handler (JPROBE_ENTRY()).
 *	@jp->kp.flags may hold KPROBE_FLAG_DISABLED to register it disabled.
 *
 * The handler runs at every call of the function, before its body, with
 * the function's arguments as its parameters: up to JPROBE_MAX_ARGS (8)
 * arguments of integer or pointer type, the ones the calling convention
 * passes on the stack included (on x86_64 the 7th and 8th).  It gets
 * copies: what it does to its parameters does not reach the function.
 * Its return value is ignored; it returns normally (jprobe_return() is
 * a no-op kept for old handlers).
 *
 * The handler runs with preemption disabled (and, on the breakpoint
 * path, interrupts disabled), in whatever context the function is
 * called from: it must not sleep.  While it runs, probes it hits are
 * not run but counted in their nmissed, its own included.
 *
 * Several jprobes, kprobes and kretprobes may share the function.
 *
 * Return: 0; -EINVAL for a NULL @jp->entry, a non-zero offset, an
 * address that is not a function's entry, a function that may not be
 * probed (blacklisted, not kernel or module text) or a jprobe already
 * registered; -ENOENT for an unknown symbol; or a register_kprobe()
 * error.
 * Context: process, may sleep.
 */
int register_jprobe(struct jprobe *jp)
{
	return register_jprobes(&jp, 1);
}
EXPORT_SYMBOL_GPL(register_jprobe);

/**
 * unregister_jprobes() - remove several jprobes
 * @jps: the jprobes
 * @num: number of jprobes
 *
 * When this returns, no handler of @jps is running on any CPU and none
 * will run again, after one RCU grace period for the whole batch.
 * Context: process, may sleep.
 */
void unregister_jprobes(struct jprobe **jps, int num)
{
	struct kprobe *one, **kps;
	int i;

	if (num <= 0)
		return;
	kps = KPROBES_OF(jps, num, struct jprobe, kp, &one);
	if (!kps) {
		for (i = 0; i < num; i++)
			unregister_kprobe(&jps[i]->kp);
		return;
	}
	unregister_kprobes(kps, num);
	kprobes_of_free(kps, &one);
}
EXPORT_SYMBOL_GPL(unregister_jprobes);

/**
 * unregister_jprobe() - remove a jprobe
 * @jp: a jprobe registered with register_jprobe() (others are ignored)
 *
 * When this returns, the handler is not running on any CPU and will not
 * run again; @jp may be freed or registered again.
 * Context: process, may sleep.
 */
void unregister_jprobe(struct jprobe *jp)
{
	unregister_kprobe(&jp->kp);
}
EXPORT_SYMBOL_GPL(unregister_jprobe);
