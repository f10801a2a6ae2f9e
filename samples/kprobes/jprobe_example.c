// SPDX-License-Identifier: GPL-2.0-only
/*
 * A jprobe on kernel_clone(): the handler has kernel_clone()'s prototype
 * and gets its argument, a struct kernel_clone_args pointer, as a typed C
 * parameter, instead of digging it out of pt_regs.  Every fork, vfork or
 * clone prints the clone flags it was asked for.
 *
 * Build it as a module (CONFIG_SAMPLE_JPROBES=m), load it and start any
 * program: the kernel log shows a line per new task.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/kprobes.h>
#include <linux/sched/task.h>

/*
 * Runs at the entry of kernel_clone(), with its arguments, before its
 * body.  Preemption is off: print, but never sleep.  The return value is
 * ignored, and jprobe_return() is there for handlers written for the old
 * jprobes; it does nothing now.
 */
static pid_t jp_kernel_clone(struct kernel_clone_args *args)
{
	pr_info("kernel_clone: flags = 0x%llx, exit_signal = %d, comm = %s\n",
		args->flags, args->exit_signal, current->comm);

	/* Always end with a call to jprobe_return(). */
	jprobe_return();
	return 0;
}

static struct jprobe clone_jprobe = {
	.entry		= JPROBE_ENTRY(jp_kernel_clone),
	.kp = {
		.symbol_name	= "kernel_clone",
	},
};

static int __init jprobe_init(void)
{
	int ret;

	ret = register_jprobe(&clone_jprobe);
	if (ret < 0) {
		pr_err("register_jprobe failed, returned %d\n", ret);
		return ret;
	}
	pr_info("planted jprobe at %pS, handler addr %p\n",
		clone_jprobe.kp.addr, clone_jprobe.entry);
	return 0;
}

static void __exit jprobe_exit(void)
{
	unregister_jprobe(&clone_jprobe);
	pr_info("jprobe at %pS unregistered, missed %lu hits\n",
		clone_jprobe.kp.addr, clone_jprobe.kp.nmissed);
}

module_init(jprobe_init);
module_exit(jprobe_exit);
MODULE_DESCRIPTION("sample: a jprobe on kernel_clone() that prints the clone flags");
MODULE_LICENSE("GPL");
