// SPDX-License-Identifier: GPL-2.0-only
/*
 * kprobe_example: put one kprobe on a kernel function and log every hit.
 *
 *   modprobe kprobe_example                        # probes kernel_clone
 *   modprobe kprobe_example symbol=vfs_read
 *   modprobe kprobe_example symbol=vfs_read offset=0x10
 *
 * The pre_handler runs just before the probed instruction and logs where
 * the probe is, which task hit it on which CPU and, when the probe sits
 * on the function entry, the first two arguments as raw values.  The
 * post_handler runs once the probed instruction has executed and logs
 * the instruction pointer it left behind.  Unloading the module prints
 * how many hits were seen and how many the core had to skip.
 *
 * Handlers run with preemption disabled (on the breakpoint path with
 * interrupts disabled as well) and must not sleep.  The per-hit lines
 * are rate limited so that a hot function does not flood the log.
 *
 * See Documentation/trace/kprobes.rst.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/smp.h>

static char symbol[KSYM_NAME_LEN] = "kernel_clone";
module_param_string(symbol, symbol, sizeof(symbol), 0444);
MODULE_PARM_DESC(symbol, "function to probe (default: kernel_clone)");

static unsigned int offset;
module_param(offset, uint, 0444);
MODULE_PARM_DESC(offset, "byte offset of the probe in the function (default: 0)");

static atomic_long_t hits = ATOMIC_LONG_INIT(0);

/* The raw value of argument @n at a function entry, or 0 where unknown. */
static unsigned long entry_arg(struct pt_regs *regs, unsigned int n)
{
#ifdef CONFIG_HAVE_REGS_AND_STACK_ACCESS_API
	return regs_get_kernel_argument(regs, n);
#else
	return 0;
#endif
}

static int sample_pre(struct kprobe *p, struct pt_regs *regs)
{
	atomic_long_inc(&hits);

	if (p->flags & KPROBE_FLAG_ON_FUNC_ENTRY)
		pr_info_ratelimited("pre: %s at %pS, cpu %d, task %s[%d], arg1 0x%lx, arg2 0x%lx\n",
				    p->symbol_name, p->addr,
				    smp_processor_id(), current->comm,
				    task_pid_nr(current), entry_arg(regs, 0),
				    entry_arg(regs, 1));
	else
		pr_info_ratelimited("pre: %s at %pS, cpu %d, task %s[%d]\n",
				    p->symbol_name, p->addr,
				    smp_processor_id(), current->comm,
				    task_pid_nr(current));
	/* 0: let the probed instruction run. */
	return 0;
}
NOKPROBE_SYMBOL(sample_pre);

static void sample_post(struct kprobe *p, struct pt_regs *regs,
			unsigned long flags)
{
	pr_info_ratelimited("post: %s at %pS, next ip %pS\n",
			    p->symbol_name, p->addr,
			    (void *)instruction_pointer(regs));
}
NOKPROBE_SYMBOL(sample_post);

static struct kprobe sample_kp = {
	.symbol_name	= symbol,
	.pre_handler	= sample_pre,
	.post_handler	= sample_post,
};

static int __init kprobe_example_init(void)
{
	int ret;

	sample_kp.offset = offset;
	ret = register_kprobe(&sample_kp);
	if (ret) {
		pr_err("cannot probe %s+0x%x: %d\n", symbol, offset, ret);
		return ret;
	}
	pr_info("probe on %s+0x%x is at %pS%s\n", symbol, offset,
		sample_kp.addr,
		sample_kp.flags & KPROBE_FLAG_ON_FUNC_ENTRY ?
		" (function entry)" : "");
	return 0;
}

static void __exit kprobe_example_exit(void)
{
	unregister_kprobe(&sample_kp);
	pr_info("probe on %s removed: %ld hits, %lu missed\n", symbol,
		atomic_long_read(&hits), sample_kp.nmissed);
}

module_init(kprobe_example_init);
module_exit(kprobe_example_exit);
MODULE_DESCRIPTION("kprobe sample: log the hits of a probe on a kernel function");
MODULE_LICENSE("GPL");
