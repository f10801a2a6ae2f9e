// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Where a probe goes, and whether it may: symbol and offset to address,
 * the function around it, and the checks on the text there (kernel or
 * live module text, not reserved by another patcher or the blacklist).
 * Step 1 of every registration, run without kprobe_mutex; the arch
 * prepare hooks ask kprobe_func_bounds() under it.
 */
#include <linux/bug.h>
#include <linux/extable.h>
#include <linux/jump_label.h>
#include <linux/kallsyms.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/static_call.h>
#include <linux/string.h>
#include "internal.h"

/**
 * kprobe_lookup_name() - address of a symbol, for probing
 * @name: symbol name
 * @offset: offset the caller will add (architectures may use it)
 *
 * Return: the symbol's address (without @offset), or NULL.
 */
kprobe_opcode_t *__weak kprobe_lookup_name(const char *name,
					   unsigned int offset)
{
	return (kprobe_opcode_t *)kallsyms_lookup_name(name);
}

/**
 * arch_adjust_kprobe_addr() - where a probe at symbol+offset really goes
 * @addr: start of the symbol
 * @offset: offset inside the symbol
 * @on_func_entry: set to whether the result is the function's entry
 *
 * Architectures with landing pads at function entry (IBT, BTI) map
 * offsets inside the pad to the first real instruction.
 *
 * Return: the probe address, or NULL if it cannot be probed.
 */
kprobe_opcode_t *__weak arch_adjust_kprobe_addr(unsigned long addr,
						unsigned long offset,
						bool *on_func_entry)
{
	*on_func_entry = offset == 0;
	return (kprobe_opcode_t *)(addr + offset);
}

/*
 * Turn addr-or-symbol plus offset into a probe address: exactly one of
 * @addr and @sym must be given; the result is normalised to its
 * symbol's start and handed to the architecture to adjust.  The
 * enclosing function goes to @f, and its name to @name if that is not
 * NULL (KSYM_NAME_LEN bytes), all from one symbol lookup: in a module,
 * each lookup walks the module's whole symbol table.
 */
int kprobe_resolve_func(kprobe_opcode_t *addr, const char *sym,
			unsigned long offset, kprobe_opcode_t **out,
			bool *on_func_entry, struct kprobe_func *f,
			char *name)
{
	unsigned long target, symoff, size;
	char *modname;
	bool found;

	if (!addr == !sym)
		return -EINVAL;
	if (sym) {
		addr = kprobe_lookup_name(sym, offset);
		if (!addr)
			return -ENOENT;
	}
	target = (unsigned long)addr + offset;
	if (name)
		found = kallsyms_lookup(target, &size, &symoff, &modname, name);
	else
		found = kallsyms_lookup_size_offset(target, &size, &symoff);
	if (!found)
		return -ENOENT;
	f->start = target - symoff;
	f->size = size;
	addr = arch_adjust_kprobe_addr(f->start, symoff, on_func_entry);
	if (!addr)
		return -EINVAL;
	*out = addr;
	/*
	 * The architecture moves a probe at a function's start past its
	 * landing pad (ENDBR, BTI).  Only offset 0 and the offset of the
	 * first instruction after the pad name that place; an offset
	 * inside the pad names no instruction and is refused, as the
	 * user made a mistake and a probe elsewhere would not say so.
	 */
	if (symoff && (unsigned long)addr != target) {
		*on_func_entry = false;
		return -EILSEQ;
	}
	return 0;
}

/*
 * For the callers that ask whether a place is a function entry
 * (kretprobes, kprobe_on_func_entry()): an offset inside a landing
 * pad resolves, but not to the entry.
 */
int kprobe_resolve_addr(kprobe_opcode_t *addr, const char *sym,
			unsigned long offset, kprobe_opcode_t **out,
			bool *on_func_entry)
{
	struct kprobe_func f;
	int ret;

	ret = kprobe_resolve_func(addr, sym, offset, out, on_func_entry, &f,
				  NULL);
	return ret == -EILSEQ ? 0 : ret;
}

/**
 * kprobe_func_bounds() - the function a probe site lies in
 * @p: the probe site being prepared (what the arch prepare hooks get)
 * @start: set to the function's first byte
 * @size: set to its size
 *
 * For the architecture's prepare hooks, which decode from the start of
 * the function.  The site carries what its registration's own symbol
 * lookup found, so this usually costs no kallsyms walk (in a module,
 * each walks the module's whole symbol table).
 *
 * Context: process, kprobe_mutex held.
 * Return: false if kallsyms knows no symbol at @p->addr.
 */
bool kprobe_func_bounds(struct kprobe *p, unsigned long *start,
			unsigned long *size)
{
	struct kprobe_site *s = to_site(p);
	unsigned long addr = (unsigned long)p->addr, off;

	lockdep_assert_held(&kprobe_mutex);
	if (s->func_size) {
		*start = addr - s->func_off;
		*size = s->func_size;
		return true;
	}
	if (!kallsyms_lookup_size_offset(addr, size, &off))
		return false;
	*start = addr - off;
	return true;
}

/**
 * kprobe_on_func_entry() - is a probe point a function's entry?
 * @addr: probe address, or NULL
 * @sym: symbol name, or NULL (exactly one of @addr and @sym)
 * @offset: offset from @addr or @sym
 *
 * Return: 0 if @addr/@sym + @offset is a function entry, -EINVAL if it
 * is not (or both or neither of @addr and @sym were given), -ENOENT if
 * the symbol or address is unknown.
 */
int kprobe_on_func_entry(kprobe_opcode_t *addr, const char *sym,
			 unsigned long offset)
{
	kprobe_opcode_t *where;
	bool entry;
	int ret;

	ret = kprobe_resolve_addr(addr, sym, offset, &where, &entry);
	if (ret)
		return ret;
	return entry ? 0 : -EINVAL;
}

/*
 * Refuse text that other patching owns or that must not trap: the
 * blacklist, jump labels, static calls, BUG() sites, CFI preambles and
 * the vsyscall page.  @name is the symbol's name ("" if it has none):
 * it serves the blacklist's clone rule and the preamble check alike.
 * Context: jump_label_lock held, preemption off.
 */
static bool kprobe_text_reserved(unsigned long addr, const char *name)
{
	bool named = name[0];
	void *p = (void *)addr;

	if (in_gate_area_no_mm(addr) ||
	    kprobe_blacklisted_named(addr, named ? name : NULL) ||
	    kprobe_jump_label_reserved(addr, addr) ||
	    static_call_text_reserved(p, p) ||
	    find_bug(addr))
		return true;
	return named && (str_has_prefix(name, "__cfi_") ||
			 str_has_prefix(name, "__pfx_"));
}

/*
 * Check that @addr (in the function named @name) is probe-able kernel
 * or module text.  On success, a
 * module address comes with a reference on the module in *@modp, to
 * be dropped once the probe is in (or the attempt abandoned).
 */
int kprobe_check_text(unsigned long addr, const char *name,
		      struct module **modp)
{
	struct module *mod = NULL;
	int ret = 0;

	jump_label_lock();
	preempt_disable();
	if (!core_kernel_text(addr)) {
		mod = __module_text_address(addr);
		if (!mod) {
			ret = -EINVAL;
			goto out;
		}
	}
	if (kprobe_text_reserved(addr, name)) {
		mod = NULL;
		ret = -EINVAL;
		goto out;
	}
	if (mod && !try_module_get(mod)) {
		mod = NULL;
		ret = -ENOENT;
		goto out;
	}
	/* A loaded module's init text is gone (or about to be). */
	if (mod && within_module_init(addr, mod) && !module_is_coming(mod)) {
		module_put(mod);
		mod = NULL;
		ret = -ENOENT;
	}
out:
	preempt_enable();
	jump_label_unlock();
	*modp = mod;
	return ret;
}

/**
 * kprobes_check_unique() - refuse a batch that names a probe twice
 * @kps: the probes
 * @num: how many
 *
 * Done before anything of the batch is set up: a kretprobe's rethook is
 * allocated per kretprobe, so the second setup of the same one would
 * lose the first's.
 * Return: 0, -EINVAL if a probe is in @kps twice, or -ENOMEM.
 * Context: process, may sleep.
 */
int kprobes_check_unique(struct kprobe **kps, unsigned int num)
{
	struct kprobe **v;
	unsigned int i;
	int ret = 0;

	if (num < 2)
		return 0;
	v = kvmalloc_array(num, sizeof(*v), GFP_KERNEL);
	if (!v)
		return -ENOMEM;
	memcpy(v, kps, num * sizeof(*v));
	sort(v, num, sizeof(*v), kprobe_cmp_ulong, NULL);
	for (i = 1; i < num && !ret; i++) {
		if (v[i] == v[i - 1])
			ret = -EINVAL;
	}
	kvfree(v);
	return ret;
}
