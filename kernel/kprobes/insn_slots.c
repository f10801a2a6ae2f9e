// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Executable slots for copied instructions and detour buffers.
 *
 * Each cache holds pages of fixed-size slots, tracked by bitmaps: slots
 * in use, slots released "dirty" (something may still be running in
 * them), and dirty slots a retiring pass has taken.  A worker retires
 * dirty slots in passes (slot_caches_retire()): neither releasing nor
 * allocating a slot waits for a grace period; a cache with no clean slot
 * grows instead.  Past SLOT_GARBAGE_PAGES pages of slots waiting for a
 * pass, the next registration (or optimizer run) waits for the pass
 * first, before it takes any lock (kprobe_insn_slots_throttle()).  The
 * page list is RCU-protected so that
 * __is_insn_slot_addr() can be asked from any context (the unwinder and
 * kernel_text_address() do).
 */
#include <linux/bitmap.h>
#include <linux/execmem.h>
#include <linux/kallsyms.h>
#include <linux/perf_event.h>
#include <linux/rcupdate_wait.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include "internal.h"

#ifdef __ARCH_WANT_KPROBES_INSN_SLOT

struct kprobe_slot_page {
	struct list_head list;
	kprobe_opcode_t *base;
	unsigned int nr_used;	/* dirty and retiring ones included */
	unsigned int nr_dirty;
	unsigned int nr_retiring;
	unsigned long *used;	/* these three point into bits[] */
	unsigned long *dirty;
	unsigned long *retiring;
	struct kprobe_insn_cache *cache;
	struct rcu_work free_work;
	unsigned long bits[];
};

static unsigned int slots_in_page(struct kprobe_insn_cache *c)
{
	return PAGE_SIZE / (c->insn_size * sizeof(kprobe_opcode_t));
}

/*
 * How many pages' worth of released slots (kprobe_insn_cache.nr_garbage)
 * a cache may hold before it waits for a pass instead of growing.
 * Passes end after an RCU Tasks grace period, which a task that runs in
 * the kernel without ever switching voluntarily holds back for as long
 * as it runs (with preempt=full, cond_resched() does not switch); a
 * cache that only grew would take a page per SLOT_GARBAGE_PAGES' worth
 * of register/unregister cycles meanwhile.
 */
#define SLOT_GARBAGE_PAGES	4

/**
 * alloc_insn_page() - one page of executable memory for slots
 *
 * Weak default: execmem within reach of kernel and module text (x86-64
 * relocates RIP-relative operands, so the copies must stay near).
 *
 * Return: the page, or NULL.
 */
void *__weak alloc_insn_page(void)
{
	return execmem_alloc(EXECMEM_KPROBES, PAGE_SIZE);
}

static void free_insn_page(void *page)
{
	execmem_free(page);
}

struct kprobe_insn_cache kprobe_insn_slots = {
	.mutex = __MUTEX_INITIALIZER(kprobe_insn_slots.mutex),
	.alloc = alloc_insn_page,
	.free = free_insn_page,
	.sym = KPROBE_INSN_PAGE_SYM,
	.pages = LIST_HEAD_INIT(kprobe_insn_slots.pages),
	.insn_size = MAX_INSN_SIZE,
};
#if IS_ENABLED(CONFIG_KPROBES_CORE_KUNIT_TEST)
EXPORT_SYMBOL_GPL(kprobe_insn_slots);
#endif

#ifdef CONFIG_OPTPROBES
/**
 * alloc_optinsn_page() - one page of executable memory for detours
 *
 * Return: the page, or NULL.
 */
void *__weak alloc_optinsn_page(void)
{
	return alloc_insn_page();
}

/**
 * free_optinsn_page() - release a page from alloc_optinsn_page()
 * @page: the page
 */
void __weak free_optinsn_page(void *page)
{
	free_insn_page(page);
}

/*
 * Size of a detour slot, in kprobe_opcode_t units: at most
 * MAX_OPTINSN_SIZE, which is what an architecture can declare at build
 * time; one that knows its template's size only at run time returns
 * that (smaller slots, more per page).
 */
size_t __weak arch_optinsn_slot_size(void)
{
	return MAX_OPTINSN_SIZE;
}

/* insn_size depends on the arch template, so it is set at boot. */
struct kprobe_insn_cache kprobe_optinsn_slots = {
	.mutex = __MUTEX_INITIALIZER(kprobe_optinsn_slots.mutex),
	.alloc = alloc_optinsn_page,
	.free = free_optinsn_page,
	.sym = KPROBE_OPTINSN_PAGE_SYM,
	.pages = LIST_HEAD_INIT(kprobe_optinsn_slots.pages),
};
#endif

void __init kprobe_insn_slots_init(void)
{
#ifdef CONFIG_OPTPROBES
	kprobe_optinsn_slots.insn_size = arch_optinsn_slot_size();
#endif
}

/* A new page with every slot clean.  Context: c->mutex held. */
static struct kprobe_slot_page *slot_page_new(struct kprobe_insn_cache *c)
{
	unsigned int n = slots_in_page(c);
	struct kprobe_slot_page *pg;

	pg = kzalloc(struct_size(pg, bits, 3 * BITS_TO_LONGS(n)), GFP_KERNEL);
	if (!pg)
		return NULL;
	pg->base = c->alloc();
	if (!pg->base) {
		kfree(pg);
		return NULL;
	}
	pg->cache = c;
	pg->used = pg->bits;
	pg->dirty = pg->bits + BITS_TO_LONGS(n);
	pg->retiring = pg->bits + 2 * BITS_TO_LONGS(n);
	list_add_rcu(&pg->list, &c->pages);
	perf_event_ksymbol(PERF_RECORD_KSYMBOL_TYPE_OOL, (unsigned long)pg->base,
			   PAGE_SIZE, false, c->sym);
	return pg;
}

static void slot_page_free(struct work_struct *work)
{
	struct kprobe_slot_page *pg = container_of(to_rcu_work(work),
						   struct kprobe_slot_page,
						   free_work);

	pg->cache->free(pg->base);
	kfree(pg);
}

/*
 * Give an empty page back, unless it is the last one.  It is freed
 * after a grace period (__is_insn_slot_addr() may be looking at it), by
 * a worker: unregistering a batch of probes does not wait for one grace
 * period per page it empties.  Context: c->mutex held.
 */
static void slot_page_release(struct kprobe_insn_cache *c,
			      struct kprobe_slot_page *pg)
{
	if (pg->nr_used || list_is_singular(&c->pages))
		return;
	perf_event_ksymbol(PERF_RECORD_KSYMBOL_TYPE_OOL, (unsigned long)pg->base,
			   PAGE_SIZE, true, c->sym);
	list_del_rcu(&pg->list);
	INIT_RCU_WORK(&pg->free_work, slot_page_free);
	queue_rcu_work(system_wq, &pg->free_work);
}

static struct kprobe_insn_cache *const slot_caches[] = {
	&kprobe_insn_slots,
#ifdef CONFIG_OPTPROBES
	&kprobe_optinsn_slots,
#endif
};

/* The dirty slots of @c join the pass that starts.  c->mutex held. */
static void slot_cache_take_dirty(struct kprobe_insn_cache *c)
{
	unsigned int n = slots_in_page(c);
	struct kprobe_slot_page *pg;

	list_for_each_entry(pg, &c->pages, list) {
		if (!pg->nr_dirty)
			continue;
		bitmap_or(pg->retiring, pg->retiring, pg->dirty, n);
		bitmap_zero(pg->dirty, n);
		pg->nr_retiring += pg->nr_dirty;
		pg->nr_dirty = 0;
	}
}

/* The slots the pass took are free.  c->mutex held. */
static void slot_cache_free_retiring(struct kprobe_insn_cache *c)
{
	unsigned int n = slots_in_page(c);
	struct kprobe_slot_page *pg, *tmp;

	list_for_each_entry_safe(pg, tmp, &c->pages, list) {
		if (!pg->nr_retiring)
			continue;
		bitmap_andnot(pg->used, pg->used, pg->retiring, n);
		bitmap_zero(pg->retiring, n);
		pg->nr_used -= pg->nr_retiring;
		c->nr_garbage -= pg->nr_retiring;
		pg->nr_retiring = 0;
		slot_page_release(c, pg);
	}
}

/*
 * One retiring pass over every cache: take the slots released dirty so
 * far, wait, free them.  Slots released meanwhile wait for the next pass
 * (__free_insn_slot() queued it).
 *
 * What is waited for.  A CPU running a copy or a detour with preemption
 * off (an interrupt, an NMI, a hit with interrupts off, any hit on a
 * kernel without preemption) is out of it after an RCU grace period.  A
 * task preempted inside a boosted copy or a detour is out of it once it
 * ran again, and RCU Tasks waits for every task to switch voluntarily,
 * which it cannot do there (nothing in a copy or a detour sleeps).  RCU
 * Tasks does not wait for idle tasks, hence both.  So an architecture may
 * boost a hit in any context, and nobody waits for the passes but the
 * worker.
 */
static void slot_caches_retire(struct work_struct *work)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(slot_caches); i++) {
		mutex_lock(&slot_caches[i]->mutex);
		slot_cache_take_dirty(slot_caches[i]);
		mutex_unlock(&slot_caches[i]->mutex);
	}
	synchronize_rcu_mult(call_rcu, call_rcu_tasks);
	for (i = 0; i < ARRAY_SIZE(slot_caches); i++) {
		mutex_lock(&slot_caches[i]->mutex);
		slot_cache_free_retiring(slot_caches[i]);
		mutex_unlock(&slot_caches[i]->mutex);
	}
}

static DECLARE_WORK(slot_retire_work, slot_caches_retire);

/**
 * kprobe_insn_slots_flush() - free every slot released dirty so far
 *
 * For tests and for whoever must see the caches shrink: returns once a
 * retiring pass that started after the call has ended.
 *
 * Context: process, may sleep (an RCU and an RCU Tasks grace period).
 */
void kprobe_insn_slots_flush(void)
{
	queue_work(system_unbound_wq, &slot_retire_work);
	flush_work(&slot_retire_work);
}
#if IS_ENABLED(CONFIG_KPROBES_CORE_KUNIT_TEST)
EXPORT_SYMBOL_GPL(kprobe_insn_slots_flush);
#endif

/**
 * kprobe_insn_slots_throttle() - wait for a pass if slots pile up
 *
 * A cache holding SLOT_GARBAGE_PAGES pages' worth of released slots
 * would grow by a page for every such amount of register/unregister
 * cycles while RCU Tasks is held back; the callers about to allocate
 * slots wait here for a retiring pass instead.  Here and not in
 * __get_insn_slot(), whose callers hold kprobe_mutex, cpus_read_lock,
 * jump_label_lock and text_mutex: RCU Tasks can be held back for as long
 * as a task runs in the kernel without switching voluntarily, and CPU
 * hotplug, static keys, ftrace and module loading must not wait as long.
 *
 * Context: process, may sleep; no kprobes lock held.
 */
void kprobe_insn_slots_throttle(void)
{
	bool full = false;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(slot_caches); i++) {
		struct kprobe_insn_cache *c = slot_caches[i];

		mutex_lock(&c->mutex);
		full |= c->nr_garbage >= SLOT_GARBAGE_PAGES * slots_in_page(c);
		mutex_unlock(&c->mutex);
	}
	if (full)
		kprobe_insn_slots_flush();
}
#if IS_ENABLED(CONFIG_KPROBES_CORE_KUNIT_TEST)
EXPORT_SYMBOL_GPL(kprobe_insn_slots_throttle);
#endif

/**
 * __get_insn_slot() - allocate one slot
 * @c: the cache
 *
 * Never waits for released slots: a cache without a clean slot grows
 * (kprobe_insn_slots_throttle() bounds how far).
 *
 * Return: the slot, or NULL without memory.
 * Context: process, may sleep (memory allocation); callers hold
 * kprobe_mutex, often cpus_read_lock and text_mutex too.
 */
kprobe_opcode_t *__get_insn_slot(struct kprobe_insn_cache *c)
{
	unsigned int n = slots_in_page(c), i;
	struct kprobe_slot_page *pg;
	kprobe_opcode_t *slot = NULL;

	mutex_lock(&c->mutex);
	list_for_each_entry(pg, &c->pages, list) {
		i = find_first_zero_bit(pg->used, n);
		if (i < n)
			goto found;
	}
	/* Released slots come back when their pass ends: grow meanwhile. */
	pg = slot_page_new(c);
	if (!pg)
		goto out;
	i = 0;
found:
	__set_bit(i, pg->used);
	pg->nr_used++;
	slot = pg->base + i * c->insn_size;
out:
	mutex_unlock(&c->mutex);
	return slot;
}
#if IS_ENABLED(CONFIG_KPROBES_CORE_KUNIT_TEST)
EXPORT_SYMBOL_GPL(__get_insn_slot);
#endif

/**
 * __free_insn_slot() - release a slot
 * @c: the cache
 * @slot: from __get_insn_slot()
 * @dirty: something may still be executing in @slot: reuse it only
 *	after a retiring pass (slot_caches_retire())
 *
 * Context: process, may sleep.
 */
void __free_insn_slot(struct kprobe_insn_cache *c,
		      kprobe_opcode_t *slot, int dirty)
{
	struct kprobe_slot_page *pg;
	unsigned long off;
	unsigned int i;

	mutex_lock(&c->mutex);
	list_for_each_entry(pg, &c->pages, list) {
		off = (unsigned long)slot - (unsigned long)pg->base;
		if (off < PAGE_SIZE)
			goto found;
	}
	WARN(1, "kprobes: freeing unknown slot %p\n", slot);
	goto out;
found:
	i = off / (c->insn_size * sizeof(kprobe_opcode_t));
	if (WARN_ON_ONCE(!test_bit(i, pg->used) || test_bit(i, pg->dirty) ||
			 test_bit(i, pg->retiring)))
		goto out;
	if (dirty) {
		__set_bit(i, pg->dirty);
		pg->nr_dirty++;
		c->nr_garbage++;
		queue_work(system_unbound_wq, &slot_retire_work);
	} else {
		__clear_bit(i, pg->used);
		pg->nr_used--;
		slot_page_release(c, pg);
	}
out:
	mutex_unlock(&c->mutex);
}
#if IS_ENABLED(CONFIG_KPROBES_CORE_KUNIT_TEST)
EXPORT_SYMBOL_GPL(__free_insn_slot);
#endif

/**
 * __is_insn_slot_addr() - does an address lie in one of a cache's pages?
 * @c: the cache
 * @addr: the address
 *
 * Return: true if @addr is in a page of @c.
 * Context: any (RCU reader; used by kernel_text_address()).
 */
bool __is_insn_slot_addr(struct kprobe_insn_cache *c, unsigned long addr)
{
	struct kprobe_slot_page *pg;
	bool ret = false;

	rcu_read_lock();
	list_for_each_entry_rcu(pg, &c->pages, list) {
		if (addr - (unsigned long)pg->base < PAGE_SIZE) {
			ret = true;
			break;
		}
	}
	rcu_read_unlock();
	return ret;
}

/**
 * kprobe_cache_get_kallsym() - a cache page as a kallsyms entry
 * @c: the cache
 * @symnum: index of the wanted entry; decremented past this cache's pages
 * @value: the page address
 * @type: symbol type ('t')
 * @sym: symbol name buffer (KSYM_NAME_LEN)
 *
 * Return: 0 if entry *@symnum is a page of @c, -ERANGE otherwise.
 */
int kprobe_cache_get_kallsym(struct kprobe_insn_cache *c, unsigned int *symnum,
			     unsigned long *value, char *type, char *sym)
{
	struct kprobe_slot_page *pg, *hit = NULL;
	unsigned int seen = 0;

	rcu_read_lock();
	list_for_each_entry_rcu(pg, &c->pages, list) {
		if (seen++ == *symnum) {
			hit = pg;
			*value = (unsigned long)pg->base;
			break;
		}
	}
	rcu_read_unlock();
	if (!hit) {
		/* Let the caller go on counting in the next cache. */
		*symnum -= seen;
		return -ERANGE;
	}
	*type = 't';
	strscpy(sym, c->sym, KSYM_NAME_LEN);
	return 0;
}
#else
void __init kprobe_insn_slots_init(void)
{
}

void kprobe_insn_slots_flush(void)
{
}
#if IS_ENABLED(CONFIG_KPROBES_CORE_KUNIT_TEST)
EXPORT_SYMBOL_GPL(kprobe_insn_slots_flush);
#endif

void kprobe_insn_slots_throttle(void)
{
}
#if IS_ENABLED(CONFIG_KPROBES_CORE_KUNIT_TEST)
EXPORT_SYMBOL_GPL(kprobe_insn_slots_throttle);
#endif
#endif /* __ARCH_WANT_KPROBES_INSN_SLOT */

/**
 * arch_kprobe_get_kallsym() - arch-owned kallsyms entries
 * @symnum: index of the wanted entry
 * @value: address
 * @type: symbol type
 * @sym: symbol name buffer
 *
 * Return: -ERANGE (weak default: none).
 */
int __weak arch_kprobe_get_kallsym(unsigned int *symnum, unsigned long *value,
				   char *type, char *sym)
{
	return -ERANGE;
}

/**
 * kprobe_get_kallsym() - kallsyms entries for kprobes' executable pages
 * @symnum: index of the wanted entry
 * @value: address
 * @type: symbol type
 * @sym: symbol name buffer
 *
 * Return: 0 if entry @symnum exists, -ERANGE otherwise.
 */
int kprobe_get_kallsym(unsigned int symnum, unsigned long *value, char *type,
		       char *sym)
{
#ifdef __ARCH_WANT_KPROBES_INSN_SLOT
	/* Step slots first, then detour buffers, then the arch's own. */
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(slot_caches); i++) {
		if (!kprobe_cache_get_kallsym(slot_caches[i], &symnum, value,
					      type, sym))
			return 0;
	}
#endif
	return arch_kprobe_get_kallsym(&symnum, value, type, sym);
}
