// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Test module: a jprobe on jpt_target() of jprobe_test_target.ko.
 *
 * The handler checks the 8 arguments against what jprobe_test_target.c
 * passes and says so in the kernel log.  The jprobe is registered at
 * load; writing anything to /sys/module/jprobe_test_prober/parameters/
 * rearm unregisters it and registers it again by name, which is how a
 * user follows the target module after it was unloaded ([GONE]) and
 * loaded again.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>

static DEFINE_MUTEX(jpp_lock);

/* Runs at jpt_target()'s entry; preemption off, must not sleep. */
static long jpp_handler(u8 a, int b, long c, void *d, u64 e, u8 f, int g,
			u64 h)
{
	bool ok = a == 0xa5 && b == -123456789 &&
		  c == -0x7edcba9876543211L &&
		  d == (void *)0xdead0000beefUL &&
		  e == 0xfedcba9876543210ULL && f == 0x7f &&
		  g == -2000000000 && h == 0x8000000000000001ULL;

	pr_info("jpt_target hit, arguments %s\n", ok ? "ok" : "WRONG");
	jprobe_return();
	return 0;
}

static struct jprobe jpp = {
	.kp.symbol_name = "jpt_target",
	.entry = JPROBE_ENTRY(jpp_handler),
};

/* Context: process (sysfs write); may sleep. */
static int jpp_rearm(const char *val, const struct kernel_param *kp)
{
	int ret;

	mutex_lock(&jpp_lock);
	unregister_jprobe(&jpp);
	jpp.kp.addr = NULL;
	jpp.kp.flags = 0;
	ret = register_jprobe(&jpp);
	mutex_unlock(&jpp_lock);
	pr_info("re-registered: %d\n", ret);
	return ret;
}

static const struct kernel_param_ops jpp_rearm_ops = {
	.set = jpp_rearm,
};
module_param_cb(rearm, &jpp_rearm_ops, NULL, 0200);
MODULE_PARM_DESC(rearm, "write anything: unregister and register again");

static int __init jpp_init(void)
{
	int ret = register_jprobe(&jpp);

	pr_info("registered: %d\n", ret);
	return ret;
}

static void __exit jpp_exit(void)
{
	unregister_jprobe(&jpp);
}

module_init(jpp_init);
module_exit(jpp_exit);
MODULE_DESCRIPTION("jprobes test: a jprobe on another module's function");
MODULE_LICENSE("GPL");
