// SPDX-License-Identifier: GPL-2.0
/*
 * probes_unload: a module shaped like LKRG's probe use, for make
 * check-clients: at load it registers a kprobe and a kretprobe on each of
 * the functions named in funcs=, one register call at a time, and at
 * unload it unregisters them one at a time, in its exit function.  The
 * check times insmod and rmmod, ours beside the base: an unload that
 * waits for a grace period or an ftrace update per probe shows here.
 * Public probe API only, so that it builds against both kernels.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/kprobes.h>
#include <linux/module.h>

#define PU_MAX	64

static char *funcs[PU_MAX];
static int nfuncs;
module_param_array(funcs, charp, &nfuncs, 0444);
MODULE_PARM_DESC(funcs, "functions to probe, comma-separated (at most 64)");

static struct kprobe pu_kps[PU_MAX];
static struct kretprobe pu_krps[PU_MAX];
static int pu_nkps, pu_nkrps;
static atomic_t pu_hits = ATOMIC_INIT(0);

static int pu_pre(struct kprobe *p, struct pt_regs *regs)
{
	atomic_inc(&pu_hits);
	return 0;
}

static int pu_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	atomic_inc(&pu_hits);
	return 0;
}

static void pu_unregister(void)
{
	while (pu_nkrps)
		unregister_kretprobe(&pu_krps[--pu_nkrps]);
	while (pu_nkps)
		unregister_kprobe(&pu_kps[--pu_nkps]);
}

static int __init pu_init(void)
{
	int i, ret;

	for (i = 0; i < nfuncs; i++) {
		pu_kps[i].symbol_name = funcs[i];
		pu_kps[i].pre_handler = pu_pre;
		ret = register_kprobe(&pu_kps[i]);
		if (ret)
			goto fail;
		pu_nkps++;
		pu_krps[i].kp.symbol_name = funcs[i];
		pu_krps[i].handler = pu_ret;
		ret = register_kretprobe(&pu_krps[i]);
		if (ret)
			goto fail;
		pu_nkrps++;
	}
	pr_info("%d kprobes and %d kretprobes registered\n", pu_nkps, pu_nkrps);
	return 0;
fail:
	pr_err("%s: registration failed: %d\n", funcs[i], ret);
	pu_unregister();
	return ret;
}

static void __exit pu_exit(void)
{
	int n = pu_nkps + pu_nkrps;

	pu_unregister();
	pr_info("%d probes unregistered, %d hits\n", n, atomic_read(&pu_hits));
}

module_init(pu_init);
module_exit(pu_exit);
MODULE_DESCRIPTION("Probes registered and unregistered one by one, LKRG's way");
MODULE_LICENSE("GPL");
