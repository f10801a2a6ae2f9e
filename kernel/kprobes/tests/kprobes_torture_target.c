// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The module that kprobes_torture probes while it is loaded and
 * unloaded: a thread that keeps calling a function with a probe site
 * at its entry and one in its middle.  kprobes_torture registers probes
 * here each time this module goes live and leaves them registered
 * across the unload, so the kprobes core has to retire probes on text
 * that goes away.
 */
#define pr_fmt(fmt) "kprobes_torture_target: " fmt

#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/module.h>

static noinline int ktt_work(int v)
{
	int r = v;

#ifdef CONFIG_X86_64
	asm volatile(".globl ktt_mid_site\n"
		     "ktt_mid_site:\n\t"
		     "add $11, %0\n\t"
		     "imul $5, %0, %0\n\t"
		     : "+r" (r) : : "cc");
#else
	asm volatile(".globl ktt_mid_site\nktt_mid_site:\n" : : : "memory");
	r = r * 5 + 55;
#endif
	return r;
}

static int (*ktt_fn)(int) = ktt_work;
static struct task_struct *ktt_task;
static unsigned long ktt_calls;

static int ktt_thread(void *unused)
{
	while (!kthread_should_stop()) {
		READ_ONCE(ktt_fn)(ktt_calls & 0xff);
		ktt_calls++;
		if (!(ktt_calls & 63))
			usleep_range(50, 200);
		cond_resched();
	}
	return 0;
}

static int __init ktt_init(void)
{
	ktt_task = kthread_run(ktt_thread, NULL, "ktt_caller");
	return PTR_ERR_OR_ZERO(ktt_task);
}

static void __exit ktt_exit(void)
{
	kthread_stop(ktt_task);
	pr_debug("%lu calls\n", ktt_calls);
}

module_init(ktt_init);
module_exit(ktt_exit);
MODULE_DESCRIPTION("A module for kprobes_torture to probe while it comes and goes");
MODULE_LICENSE("GPL");
