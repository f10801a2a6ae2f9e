// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Bringing the probe core up at boot.
 */
#include <linux/init.h>
#include <linux/kdebug.h>
#include "internal.h"

/**
 * kprobe_exceptions_notify() - die notifier for architectures that route
 * probe traps through it
 * @self: the notifier block
 * @val: die event
 * @data: struct die_args
 *
 * Return: NOTIFY_DONE (weak default: not handled).
 */
int __weak kprobe_exceptions_notify(struct notifier_block *self,
				    unsigned long val, void *data)
{
	return NOTIFY_DONE;
}
NOKPROBE_SYMBOL(kprobe_exceptions_notify);

static struct notifier_block kprobe_die_nb = {
	.notifier_call = kprobe_exceptions_notify,
	.priority = 0x7fffffff,	/* before everyone else */
};

static int __init kprobes_early_init(void)
{
	int err;

	err = kprobe_blacklist_init();
	if (err)
		pr_err("kprobes: blacklist incomplete (%d): probes are not restricted, be careful\n",
		       err);
	kprobe_site_cache_init();
	kprobe_insn_slots_init();
	kretprobe_init();
	err = arch_init_kprobes();
	if (!err)
		err = register_die_notifier(&kprobe_die_nb);
	if (!err)
		err = kprobe_module_init();
	return err;
}
early_initcall(kprobes_early_init);

static int __init kprobes_subsys_init(void)
{
	kprobe_opt_init();
	return 0;
}
subsys_initcall(kprobes_subsys_init);
