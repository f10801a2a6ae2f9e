// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Test module: probes in a module that goes away ([GONE]), and the
 * refusals that only exist once the kernel has booted.
 *
 * It probes kprobes_torture_target, whose thread calls ktt_work() all
 * the time: a kprobe on its entry (the ftrace path), one with a
 * post_handler at ktt_mid_site (the breakpoint path, stepped from a
 * slot) and a kretprobe.  The guest script loads and unloads the target
 * and writes the name of each step to /sys/module/kprobes_gone_test/
 * parameters/step:
 *
 *   refusals  probes on the kernel's __init text, freed after boot,
 *             are refused with -EINVAL
 *   arm       register the three probes; each must see calls
 *   gone      (the target was unloaded) each probe is gone and disabled,
 *             and cannot be enabled
 *   reloaded  (the target is back) a new probe on ktt_work() sees calls
 *             while the gone ones see none
 *   rearm     unregister the gone probes and register them again by
 *             name; each must see calls
 *
 * A step prints "kprobes_gone_test: STEP: ok" or "...: FAIL why" and the
 * write fails with -EIO on failure.  Unloading unregisters what is left.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>

#define KGT_TARGET	"kprobes_torture_target"

static atomic_t kgt_entry_hits, kgt_mid_hits, kgt_mid_post, kgt_ret_hits;
static atomic_t kgt_fresh_hits;

/* Probe handlers: preemption (and, at the breakpoint, IRQs) off. */
static int kgt_entry_pre(struct kprobe *p, struct pt_regs *regs)
{
	atomic_inc(&kgt_entry_hits);
	return 0;
}

static int kgt_mid_pre(struct kprobe *p, struct pt_regs *regs)
{
	atomic_inc(&kgt_mid_hits);
	return 0;
}

static void kgt_mid_post_handler(struct kprobe *p, struct pt_regs *regs,
				 unsigned long flags)
{
	atomic_inc(&kgt_mid_post);
}

static int kgt_ret_handler(struct kretprobe_instance *ri,
			   struct pt_regs *regs)
{
	atomic_inc(&kgt_ret_hits);
	return 0;
}

static int kgt_fresh_pre(struct kprobe *p, struct pt_regs *regs)
{
	atomic_inc(&kgt_fresh_hits);
	return 0;
}

static struct kprobe kgt_entry, kgt_mid;
static struct kretprobe kgt_ret;
static bool kgt_registered;
static DEFINE_MUTEX(kgt_lock);

static void kgt_setup(void)
{
	memset(&kgt_entry, 0, sizeof(kgt_entry));
	kgt_entry.symbol_name = KGT_TARGET ":ktt_work";
	kgt_entry.pre_handler = kgt_entry_pre;

	memset(&kgt_mid, 0, sizeof(kgt_mid));
	kgt_mid.symbol_name = KGT_TARGET ":ktt_mid_site";
	kgt_mid.pre_handler = kgt_mid_pre;
	kgt_mid.post_handler = kgt_mid_post_handler;

	memset(&kgt_ret, 0, sizeof(kgt_ret));
	kgt_ret.kp.symbol_name = KGT_TARGET ":ktt_work";
	kgt_ret.handler = kgt_ret_handler;
}

static void kgt_unregister(void)
{
	struct kprobe *kps[] = { &kgt_entry, &kgt_mid };

	if (!kgt_registered)
		return;
	unregister_kprobes(kps, ARRAY_SIZE(kps));
	unregister_kretprobe(&kgt_ret);
	kgt_registered = false;
}

/* Register the three probes by name.  Context: process, kgt_lock held. */
static int kgt_register(void)
{
	struct kprobe *kps[] = { &kgt_entry, &kgt_mid };
	int ret;

	kgt_setup();
	ret = register_kprobes(kps, ARRAY_SIZE(kps));
	if (ret)
		return ret;
	ret = register_kretprobe(&kgt_ret);
	if (ret) {
		unregister_kprobes(kps, ARRAY_SIZE(kps));
		return ret;
	}
	kgt_registered = true;
	return 0;
}

/* Wait up to 20 s for @v to reach @min (the target calls all the time). */
static bool kgt_wait_for(atomic_t *v, int min)
{
	unsigned long end = jiffies + 20 * HZ;

	while (atomic_read(v) < min && time_before(jiffies, end))
		msleep(20);
	return atomic_read(v) >= min;
}

static void kgt_reset(void)
{
	atomic_set(&kgt_entry_hits, 0);
	atomic_set(&kgt_mid_hits, 0);
	atomic_set(&kgt_mid_post, 0);
	atomic_set(&kgt_ret_hits, 0);
}

static const char *kgt_all_fire(void)
{
	if (!kgt_wait_for(&kgt_entry_hits, 10))
		return "the entry kprobe sees no calls";
	if (!kgt_wait_for(&kgt_mid_hits, 10))
		return "the mid-function kprobe sees no calls";
	if (!kgt_wait_for(&kgt_mid_post, 10))
		return "the mid-function post_handler does not run";
	if (!kgt_wait_for(&kgt_ret_hits, 10))
		return "the kretprobe sees no returns";
	return NULL;
}

static int kgt_refused(const char *sym)
{
	struct kprobe kp = { .symbol_name = sym, .pre_handler = kgt_fresh_pre };
	int ret = register_kprobe(&kp);

	if (!ret)
		unregister_kprobe(&kp);
	return ret;
}

static int kgt_ret_refused(const char *sym)
{
	struct kretprobe rp = { .kp.symbol_name = sym,
				.handler = kgt_ret_handler };
	int ret = register_kretprobe(&rp);

	if (!ret)
		unregister_kretprobe(&rp);
	return ret;
}

static const char *kgt_step_refusals(void)
{
	/* start_kernel() is __init: its text was freed at the end of boot. */
	if (kgt_refused("start_kernel") != -EINVAL)
		return "a kprobe on __init start_kernel is not refused with -EINVAL";
	if (kgt_ret_refused("start_kernel") != -EINVAL)
		return "a kretprobe on __init start_kernel is not refused with -EINVAL";
	return NULL;
}

static const char *kgt_step_arm(void)
{
	kgt_unregister();
	kgt_reset();
	if (kgt_register())
		return "cannot register the probes";
	return kgt_all_fire();
}

static int kgt_gone_entry, kgt_gone_mid, kgt_gone_ret;

static const char *kgt_step_gone(void)
{
	if (!kgt_registered)
		return "nothing registered";
	if (!kprobe_gone(&kgt_entry) || !kprobe_gone(&kgt_mid) ||
	    !kprobe_gone(&kgt_ret.kp))
		return "a probe in the unloaded module is not gone";
	if (!kprobe_disabled(&kgt_entry) || !kprobe_disabled(&kgt_mid) ||
	    !kprobe_disabled(&kgt_ret.kp))
		return "a gone probe is not disabled";
	if (enable_kprobe(&kgt_entry) != -EINVAL ||
	    enable_kprobe(&kgt_mid) != -EINVAL ||
	    enable_kretprobe(&kgt_ret) != -EINVAL)
		return "a gone probe can be enabled";
	kgt_gone_entry = atomic_read(&kgt_entry_hits);
	kgt_gone_mid = atomic_read(&kgt_mid_hits);
	kgt_gone_ret = atomic_read(&kgt_ret_hits);
	return NULL;
}

static const char *kgt_step_reloaded(void)
{
	struct kprobe fresh = { .symbol_name = KGT_TARGET ":ktt_work",
				.pre_handler = kgt_fresh_pre };
	bool seen;

	if (!kgt_registered)
		return "nothing registered";
	atomic_set(&kgt_fresh_hits, 0);
	if (register_kprobe(&fresh))
		return "cannot probe the reloaded module";
	seen = kgt_wait_for(&kgt_fresh_hits, 100);
	unregister_kprobe(&fresh);
	if (!seen)
		return "the reloaded module's function is not called";
	if (atomic_read(&kgt_entry_hits) != kgt_gone_entry ||
	    atomic_read(&kgt_mid_hits) != kgt_gone_mid ||
	    atomic_read(&kgt_ret_hits) != kgt_gone_ret)
		return "a gone probe fired on the reloaded module";
	if (!kprobe_gone(&kgt_entry) || !kprobe_gone(&kgt_mid) ||
	    !kprobe_gone(&kgt_ret.kp))
		return "a gone probe came back by itself";
	return NULL;
}

static const char *kgt_step_rearm(void)
{
	return kgt_step_arm();
}

static const struct {
	const char *name;
	const char *(*run)(void);
} kgt_steps[] = {
	{ "refusals", kgt_step_refusals },
	{ "arm", kgt_step_arm },
	{ "gone", kgt_step_gone },
	{ "reloaded", kgt_step_reloaded },
	{ "rearm", kgt_step_rearm },
};

/* Context: process (sysfs write); may sleep. */
static int kgt_step_set(const char *val, const struct kernel_param *kp)
{
	const char *why = "unknown step";
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(kgt_steps); i++) {
		if (sysfs_streq(val, kgt_steps[i].name))
			break;
	}
	if (i == ARRAY_SIZE(kgt_steps)) {
		pr_info("%s: FAIL %s\n", val, why);
		return -EINVAL;
	}
	mutex_lock(&kgt_lock);
	why = kgt_steps[i].run();
	mutex_unlock(&kgt_lock);
	if (why) {
		pr_info("%s: FAIL %s\n", kgt_steps[i].name, why);
		return -EIO;
	}
	pr_info("%s: ok\n", kgt_steps[i].name);
	return 0;
}

static const struct kernel_param_ops kgt_step_ops = {
	.set = kgt_step_set,
};
module_param_cb(step, &kgt_step_ops, NULL, 0200);
MODULE_PARM_DESC(step, "refusals, arm, gone, reloaded or rearm");

static void __exit kgt_exit(void)
{
	mutex_lock(&kgt_lock);
	kgt_unregister();
	mutex_unlock(&kgt_lock);
}

module_exit(kgt_exit);
MODULE_DESCRIPTION("kprobes test: probes in a module that goes away");
MODULE_LICENSE("GPL");
