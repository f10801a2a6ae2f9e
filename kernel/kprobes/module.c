// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Probes in code that goes away: module text and kernel init text.
 *
 * When a module is coming, its blacklist is added.  When its init text
 * is freed (MODULE_STATE_LIVE) or the whole module goes, the sites in
 * that text are killed: marked gone (with their users), ftrace hooks
 * removed (parked ones too), instruction slots freed; the breakpoints
 * stay in the dying text.  A gone probe stays registered until its
 * owner unregisters it; when the module loads again, probes can be
 * registered there anew.
 */
#include <linux/module.h>
#include <asm/sections.h>
#include "internal.h"

/* Kill every site in [start, end).  Context: kprobe_mutex held. */
static void kill_range(unsigned long start, unsigned long end,
		       struct list_head *doomed)
{
	struct kprobe_site *s;
	unsigned int pos = 0;

	lockdep_assert_held(&kprobe_mutex);
	while ((s = kprobe_site_at(&pos))) {
		if (site_addr(s) - start < end - start)
			kprobe_kill_site(s, doomed);
	}
}

static void free_doomed(struct list_head *doomed)
{
	if (list_empty(doomed))
		return;
	synchronize_rcu();
	kprobe_sites_free_doomed(doomed);
}

#ifdef CONFIG_MODULES
static void kill_module_mem(struct module *mod, enum mod_mem_type type,
			    struct list_head *doomed)
{
	struct module_memory *mem = &mod->mem[type];

	if (mem->size)
		kill_range((unsigned long)mem->base,
			   (unsigned long)mem->base + mem->size, doomed);
}

/* Context: process (module notifier chain). */
static int kprobe_module_event(struct notifier_block *nb, unsigned long val,
			       void *data)
{
	struct module *mod = data;
	LIST_HEAD(doomed);

	mutex_lock(&kprobe_mutex);
	switch (val) {
	case MODULE_STATE_COMING:
		kprobe_blacklist_add_module(mod);
		break;
	case MODULE_STATE_LIVE:
		/* .init.text is about to be freed. */
		for_class_mod_mem_type(type, init)
			kill_module_mem(mod, type, &doomed);
		kprobe_ftrace_unpark();
		break;
	case MODULE_STATE_GOING:
		for_each_mod_mem_type(type)
			kill_module_mem(mod, type, &doomed);
		kprobe_ftrace_unpark();
		kprobe_blacklist_remove_module(mod);
		break;
	}
	mutex_unlock(&kprobe_mutex);
	free_doomed(&doomed);
	return NOTIFY_DONE;
}

static struct notifier_block kprobe_module_nb = {
	.notifier_call = kprobe_module_event,
};

int __init kprobe_module_init(void)
{
	return register_module_notifier(&kprobe_module_nb);
}
#else
int __init kprobe_module_init(void)
{
	return 0;
}
#endif /* CONFIG_MODULES */

/**
 * kprobe_free_init_mem() - the kernel's init text is about to be freed
 *
 * Kills every probe in it.
 * Context: process, late boot; may sleep.
 */
void kprobe_free_init_mem(void)
{
	LIST_HEAD(doomed);

	mutex_lock(&kprobe_mutex);
	kill_range((unsigned long)__init_begin, (unsigned long)__init_end,
		   &doomed);
	kprobe_ftrace_unpark();
	mutex_unlock(&kprobe_mutex);
	free_doomed(&doomed);
}
