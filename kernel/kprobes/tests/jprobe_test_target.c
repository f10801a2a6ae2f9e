// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Test module: module code for a jprobe to probe.
 *
 * jpt_target() takes 8 arguments (two on the stack on x86_64); writing
 * anything to /sys/module/jprobe_test_target/parameters/call calls it
 * with the values jprobe_test_prober.c expects.  The guest script loads,
 * unloads and reloads this module under the prober's jprobe.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/compiler.h>
#include <linux/module.h>
#include <linux/moduleparam.h>

static noinline __noclone int jpt_target(u8 a, int b, long c, void *d, u64 e,
					 u8 f, int g, u64 h)
{
	return a + b + (int)c + (d ? 1 : 0) + (int)(e ^ h) + f + g;
}

static int (*jpt_fn)(u8, int, long, void *, u64, u8, int, u64) = jpt_target;

/* Context: process (sysfs write). */
static int jpt_call(const char *val, const struct kernel_param *kp)
{
	int ret = READ_ONCE(jpt_fn)(0xa5, -123456789, -0x7edcba9876543211L,
				    (void *)0xdead0000beefUL,
				    0xfedcba9876543210ULL, 0x7f, -2000000000,
				    0x8000000000000001ULL);

	pr_info("jpt_target returned %d\n", ret);
	return 0;
}

static const struct kernel_param_ops jpt_call_ops = {
	.set = jpt_call,
};
module_param_cb(call, &jpt_call_ops, NULL, 0200);
MODULE_PARM_DESC(call, "write anything: call jpt_target() once");

MODULE_DESCRIPTION("jprobes test: a module function to probe");
MODULE_LICENSE("GPL");
