// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Where probes are refused.
 *
 * The blacklist is a list of address ranges, one per function: every
 * NOKPROBE_SYMBOL() entry, every function in .kprobes.text and
 * .noinstr.text, whatever the architecture adds (entry text on x86),
 * and the same sections of each module while it is loaded, and the
 * kernel's compiler-made clones of those functions.  Readers
 * walk it under RCU; writers hold kprobe_mutex (or run at boot).
 */
#include <linux/jump_label.h>
#include <linux/kallsyms.h>
#include <linux/module.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <asm/sections.h>
#include "internal.h"

static LIST_HEAD(kprobe_blacklist);

/**
 * arch_within_kprobe_blacklist() - the architecture's own refusals
 * @addr: address to check
 *
 * Weak default: the .kprobes.text section.
 *
 * Return: true if @addr must not be probed.
 */
bool __weak arch_within_kprobe_blacklist(unsigned long addr)
{
	unsigned long start = (unsigned long)__kprobes_text_start;

	return addr - start < (unsigned long)__kprobes_text_end - start;
}

/* Whether a listed range, or the architecture, covers @addr. */
static bool blacklist_covers(unsigned long addr)
{
	struct kprobe_blacklist_entry *ent;
	bool hit = arch_within_kprobe_blacklist(addr);

	rcu_read_lock();
	for (ent = list_first_or_null_rcu(&kprobe_blacklist,
					  struct kprobe_blacklist_entry, list);
	     ent && !hit;
	     ent = list_next_or_null_rcu(&kprobe_blacklist, &ent->list,
					 struct kprobe_blacklist_entry, list))
		hit = addr - ent->start_addr < ent->end_addr - ent->start_addr;
	rcu_read_unlock();
	return hit;
}

/* Is @name a compiler clone ("foo.cold") of a blacklisted function? */
static bool clone_of_blacklisted(const char *name)
{
	char parent[KSYM_NAME_LEN];
	const char *dot = strchr(name, '.');
	unsigned long at;

	if (!dot || dot == name)
		return false;
	strscpy(parent, name, min_t(size_t, dot - name + 1, sizeof(parent)));
	at = (unsigned long)kprobe_lookup_name(parent, 0);
	return at && blacklist_covers(at);
}

/*
 * The blacklist check for @addr whose symbol name the caller looked up
 * already (@name, or NULL when kallsyms does not know @addr), so that a
 * registration needs one symbol lookup for all its checks.
 */
bool kprobe_blacklisted_named(unsigned long addr, const char *name)
{
	return blacklist_covers(addr) || (name && clone_of_blacklisted(name));
}

/**
 * within_kprobe_blacklist() - may a probe be placed at an address?
 * @addr: the address
 *
 * Compiler-made clones ("foo.cold", "foo.constprop.0") count as their
 * parent function: if foo is blacklisted, so are they.
 *
 * Return: true if @addr must not be probed.
 * Context: any that may call kallsyms (not NMI).
 */
bool within_kprobe_blacklist(unsigned long addr)
{
	char name[KSYM_NAME_LEN];

	if (blacklist_covers(addr))
		return true;
	return !lookup_symbol_name(addr, name) && clone_of_blacklisted(name);
}

#ifdef CONFIG_JUMP_LABEL
/* Longer than any instruction a jump label patches, on any architecture. */
#define KP_JUMP_SITE_MAX	16

/*
 * Does any entry of [@e, @stop) patch a byte of [@start, @end], or (with
 * @lands) jump, once its key flips, to a byte of (@start, @end]?  A jump
 * label that is a nop now is invisible to a decoder, but its target is
 * in the table.
 */
static bool jump_entries_meet(struct jump_entry *e, struct jump_entry *stop,
			      unsigned long start, unsigned long end,
			      bool init, bool lands)
{
	for (; e < stop; e++) {
		unsigned long code = jump_entry_code(e);
		unsigned long target;

		if (!init && jump_entry_is_init(e))
			continue;
		if (lands) {
			target = jump_entry_target(e);
			if (target > start && target <= end)
				return true;
		}
		/* Far entries are ruled out without sizing them. */
		if (code > end || code + KP_JUMP_SITE_MAX <= start)
			continue;
		if (code + jump_entry_size(e) > start)
			return true;
	}
	return false;
}

/* The kernel's table, or the table of the module that holds @start. */
static bool jump_label_meets(unsigned long start, unsigned long end,
			     bool lands)
{
	struct module *mod;
	bool hit;

	if (jump_entries_meet(__start___jump_table, __stop___jump_table,
			      start, end, system_state < SYSTEM_RUNNING, lands))
		return true;
	if (!IS_ENABLED(CONFIG_MODULES))
		return false;
	preempt_disable();
	mod = __module_text_address(start);
	hit = mod && jump_entries_meet(mod->jump_entries,
				       mod->jump_entries + mod->num_jump_entries,
				       start, end,
				       mod->state == MODULE_STATE_COMING, lands);
	preempt_enable();
	return hit;
}

/**
 * kprobe_jump_label_reserved() - does a jump label patch [@start, @end]?
 * @start: first byte
 * @end: last byte (inclusive), in the same function as @start
 *
 * The question jump_label_text_reserved() answers, asked of the kernel's
 * table and of the module that holds @start.  That function sizes every
 * entry before it compares addresses (on x86, an instruction decode per
 * entry per question, thousands of them), which made it most of the cost
 * of registering a kprobe; here only the entries near @start are sized.
 *
 * Context: jump_label_lock() held, so that no entry is added or patched
 * to another size meanwhile; any preemption state.
 * Return: true if a jump label's instruction overlaps the range.
 */
bool kprobe_jump_label_reserved(unsigned long start, unsigned long end)
{
	return jump_label_meets(start, end, false);
}

/**
 * kprobe_jump_label_meets() - may a jump label patch or enter a range?
 * @start: first byte, the only one a jump may reach
 * @end: last byte (inclusive), in the same function as @start
 *
 * kprobe_jump_label_reserved(), and also: may a jump label jump to a
 * byte of (@start, @end]?  A jump label whose key is off is a nop, so a
 * decoder that looks for jumps into a range of instructions does not
 * see it; once the key flips, it jumps to its target.  For a caller
 * about to replace the instructions of the range by one longer
 * instruction, in one walk of the table.
 *
 * Context: jump_label_lock() held, so that no key flips meanwhile; any
 * preemption state.
 * Return: true if a jump label's instruction overlaps the range or its
 * target is in the range but not @start.
 */
bool kprobe_jump_label_meets(unsigned long start, unsigned long end)
{
	return jump_label_meets(start, end, true);
}
#endif /* CONFIG_JUMP_LABEL */

/* Append [@start, @end) to the blacklist.  Context: as its callers. */
static int blacklist_append(unsigned long start, unsigned long end)
{
	struct kprobe_blacklist_entry *ent = kmalloc(sizeof(*ent), GFP_KERNEL);

	if (!ent)
		return -ENOMEM;
	*ent = (struct kprobe_blacklist_entry){
		.start_addr = start,
		.end_addr = end,
	};
	list_add_tail_rcu(&ent->list, &kprobe_blacklist);
	return 0;
}

/**
 * kprobe_add_ksym_blacklist() - refuse probes in one function
 * @entry: an address at the start of the function
 *
 * Return: the function's size (0 for an alias), or -EINVAL if @entry is
 * not kernel text, or -ENOMEM.
 * Context: boot, or kprobe_mutex held.
 */
int kprobe_add_ksym_blacklist(unsigned long entry)
{
	unsigned long size, offset;
	int ret;

	if (!kernel_text_address(entry) ||
	    !kallsyms_lookup_size_offset(entry, &size, &offset))
		return -EINVAL;
	ret = blacklist_append(entry, entry + size);
	return ret ? ret : size;
}

/**
 * kprobe_add_area_blacklist() - refuse probes in every function of a range
 * @start: start of the range
 * @end: end of the range (exclusive)
 *
 * Return: 0, or the first error of kprobe_add_ksym_blacklist().
 * Context: boot, or kprobe_mutex held.
 */
int kprobe_add_area_blacklist(unsigned long start, unsigned long end)
{
	unsigned long addr = start;
	int size;

	while (addr < end) {
		size = kprobe_add_ksym_blacklist(addr);
		if (size < 0)
			return size;
		addr += size ? size : 1;
	}
	return 0;
}

/**
 * arch_populate_kprobe_blacklist() - let the architecture add ranges
 *
 * Return: 0 or an error (weak default: nothing to add).
 */
int __init __weak arch_populate_kprobe_blacklist(void)
{
	return 0;
}

/*
 * A kernel clone ("foo.part.0", "foo.cold") of a refused function gets
 * a range of its own, so that kprobes/blacklist names every function a
 * probe is refused in (perf probe reads it to refuse before asking).
 * A module's clones are refused by name only (clone_of_blacklisted()).
 */
static int __init blacklist_add_clone(void *data, const char *name,
				      unsigned long addr)
{
	int ret;

	if (!strchr(name, '.') || !clone_of_blacklisted(name) ||
	    blacklist_covers(addr))
		return 0;
	ret = kprobe_add_ksym_blacklist(addr);
	return ret == -ENOMEM ? ret : 0;
}

/* Build the kernel's blacklist.  Context: early boot. */
int __init kprobe_blacklist_init(void)
{
	unsigned long *iter, addr;
	int ret;

	for (iter = __start_kprobe_blacklist; iter < __stop_kprobe_blacklist; iter++) {
		addr = (unsigned long)dereference_symbol_descriptor((void *)*iter);
		ret = kprobe_add_ksym_blacklist(addr);
		if (ret < 0 && ret != -EINVAL)
			return ret;
	}
	ret = kprobe_add_area_blacklist((unsigned long)__kprobes_text_start,
					(unsigned long)__kprobes_text_end);
	if (!ret)
		ret = kprobe_add_area_blacklist((unsigned long)__noinstr_text_start,
						(unsigned long)__noinstr_text_end);
	if (!ret)
		ret = arch_populate_kprobe_blacklist();
	if (!ret)
		ret = kallsyms_on_each_symbol(blacklist_add_clone, NULL);
	return ret;
}

#ifdef CONFIG_MODULES
/* Drop the ranges that start inside [start, end).  kprobe_mutex held. */
static void blacklist_drop(unsigned long start, unsigned long end)
{
	struct kprobe_blacklist_entry *ent, *tmp;

	lockdep_assert_held(&kprobe_mutex);
	list_for_each_entry_safe(ent, tmp, &kprobe_blacklist, list) {
		if (ent->start_addr - start < end - start) {
			list_del_rcu(&ent->list);
			kfree_rcu(ent, rcu);
		}
	}
}

/* Add or drop every blacklisted area of @mod. */
static void module_areas(struct module *mod, bool add)
{
	struct {
		unsigned long start, size;
	} areas[] = {
		{ (unsigned long)mod->kprobes_text_start, mod->kprobes_text_size },
		{ (unsigned long)mod->noinstr_text_start, mod->noinstr_text_size },
	};
	unsigned int i;

	for (i = 0; i < mod->num_kprobe_blacklist; i++) {
		unsigned long a = mod->kprobe_blacklist[i];

		if (add)
			kprobe_add_ksym_blacklist(a);
		else
			blacklist_drop(a, a + 1);
	}
	for (i = 0; i < ARRAY_SIZE(areas); i++) {
		if (!areas[i].start)
			continue;
		if (add)
			kprobe_add_area_blacklist(areas[i].start,
						  areas[i].start + areas[i].size);
		else
			blacklist_drop(areas[i].start,
				       areas[i].start + areas[i].size);
	}
}

/* A module is coming: add its blacklist.  Context: kprobe_mutex held. */
void kprobe_blacklist_add_module(struct module *mod)
{
	lockdep_assert_held(&kprobe_mutex);
	module_areas(mod, true);
}

/* A module is going: drop its blacklist.  Context: kprobe_mutex held. */
void kprobe_blacklist_remove_module(struct module *mod)
{
	module_areas(mod, false);
}
#endif

/* debugfs kprobes/blacklist: "0xstart-0xend\tsymbol" per range. */
void *kprobe_blacklist_seq_start(struct seq_file *m, loff_t *pos)
{
	mutex_lock(&kprobe_mutex);
	return seq_list_start(&kprobe_blacklist, *pos);
}

void *kprobe_blacklist_seq_next(struct seq_file *m, void *v, loff_t *pos)
{
	return seq_list_next(v, &kprobe_blacklist, pos);
}

int kprobe_blacklist_seq_show(struct seq_file *m, void *v)
{
	struct kprobe_blacklist_entry *ent =
		list_entry(v, struct kprobe_blacklist_entry, list);
	bool show = kallsyms_show_value(m->file->f_cred);

	/* Hide addresses exactly when /proc/kallsyms does. */
	seq_printf(m, "0x%px-0x%px\t%ps\n",
		   show ? (void *)ent->start_addr : NULL,
		   show ? (void *)ent->end_addr : NULL,
		   (void *)ent->start_addr);
	return 0;
}

void kprobe_blacklist_seq_stop(struct seq_file *m, void *v)
{
	mutex_unlock(&kprobe_mutex);
}
