// SPDX-License-Identifier: GPL-2.0-only
/*
 * kretprobe_example: time the calls of a kernel function and log what
 * each one returned.
 *
 *   modprobe kretprobe_example                     # times kernel_clone
 *   modprobe kretprobe_example func=vfs_read maxactive=4
 *
 * The entry_handler stores a timestamp and the CPU in the per-call data
 * of the kretprobe instance; the return handler logs the return value,
 * how long the call took and where it started and ended.  Calls made by
 * kernel threads are not followed (the entry_handler returns non-zero,
 * so no return is hooked for them).  Unloading the module prints how
 * many returns were seen and how many calls could not be followed
 * (kretprobe::nmissed).
 *
 * maxactive bounds how many calls of the function one task may have in
 * flight at once (recursion or nesting depth); 0 lets the core choose.
 * The number of tasks inside the function at the same time is not
 * limited by it.
 *
 * Both handlers may run in any context the function is called from,
 * NMI included, so the timestamps come from ktime_get_mono_fast_ns().
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
#include <linux/timekeeping.h>

static char func_name[KSYM_NAME_LEN] = "kernel_clone";
module_param_string(func, func_name, sizeof(func_name), 0444);
MODULE_PARM_DESC(func, "function to time (default: kernel_clone)");

static int maxactive;
module_param(maxactive, int, 0444);
MODULE_PARM_DESC(maxactive, "calls in flight per task (default 0: the core's choice)");

/* What the entry handler leaves for the return handler, per call. */
struct call_stamp {
	u64 start_ns;
	int start_cpu;
};

static atomic_long_t returns = ATOMIC_LONG_INIT(0);

static int sample_entry(struct kretprobe_instance *ri, struct pt_regs *regs);
static int sample_return(struct kretprobe_instance *ri, struct pt_regs *regs);

static struct kretprobe sample_rp = {
	.entry_handler	= sample_entry,
	.handler	= sample_return,
	.data_size	= sizeof(struct call_stamp),
};

static int sample_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct call_stamp *stamp = (struct call_stamp *)ri->data;

	/* Follow calls made on behalf of user tasks only. */
	if (!current->mm)
		return 1;
	stamp->start_cpu = smp_processor_id();
	stamp->start_ns = ktime_get_mono_fast_ns();
	return 0;
}
NOKPROBE_SYMBOL(sample_entry);

static int sample_return(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct call_stamp *stamp = (struct call_stamp *)ri->data;
	u64 now = ktime_get_mono_fast_ns();
	u64 took = now > stamp->start_ns ? now - stamp->start_ns : 0;

	atomic_long_inc(&returns);
	pr_info_ratelimited("%s returned %ld (0x%lx) after %llu ns, task %s[%d], cpu %d -> %d\n",
			    func_name, (long)regs_return_value(regs),
			    regs_return_value(regs), took, current->comm,
			    task_pid_nr(current), stamp->start_cpu,
			    smp_processor_id());
	return 0;
}
NOKPROBE_SYMBOL(sample_return);

static int __init kretprobe_example_init(void)
{
	int ret;

	sample_rp.kp.symbol_name = func_name;
	sample_rp.maxactive = maxactive;
	ret = register_kretprobe(&sample_rp);
	if (ret) {
		pr_err("cannot put a return probe on %s: %d\n", func_name, ret);
		return ret;
	}
	pr_info("return probe on %s at %pS, maxactive %d\n", func_name,
		sample_rp.kp.addr, sample_rp.maxactive);
	return 0;
}

static void __exit kretprobe_example_exit(void)
{
	unregister_kretprobe(&sample_rp);
	pr_info("return probe on %s removed: %ld returns, %d missed\n",
		func_name, atomic_long_read(&returns), sample_rp.nmissed);
}

module_init(kretprobe_example_init);
module_exit(kretprobe_example_exit);
MODULE_DESCRIPTION("kretprobe sample: log return values and durations of a kernel function");
MODULE_LICENSE("GPL");
