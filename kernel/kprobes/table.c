// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The address -> probe site table.
 *
 * An open-addressing hash table of site pointers with linear probing,
 * published through RCU.  Lookups take no lock and touch one or two
 * cache lines whatever the number of probes, because the table is
 * rebuilt at twice the live count whenever live entries plus
 * tombstones pass three quarters of it.  Writers (kprobe_mutex) only
 * ever store into a slot: a new site into an empty or dead slot, a
 * tombstone over a removed one; a chain is never cut, so a lookup
 * racing with a writer still finds every site that was in the table
 * when it started.  A rebuild fills a private table and publishes it
 * whole; the old one is freed after a grace period.
 */
#include <linux/hash.h>
#include <linux/log2.h>
#include <linux/slab.h>
#include <linux/mm.h>
#include "internal.h"

#define KPROBE_TABLE_MIN	64

/*
 * A removed entry: a site whose address is its own, in kernel data,
 * where no probe can be, so that the lookup loop matches it against no
 * address and needs no test of its own for it.
 */
static struct kprobe_site kprobe_tomb = {
#ifdef CONFIG_OPTPROBES
	.op.kp.addr = (kprobe_opcode_t *)&kprobe_tomb,
#else
	.kp.addr = (kprobe_opcode_t *)&kprobe_tomb,
#endif
};
#define KPROBE_SLOT_DEAD	(&kprobe_tomb)

/*
 * @shift and @mask are kept ready for the lock-free lookup: the slot of
 * an address is the top bits of its multiplicative hash (hash_long()).
 */
struct kprobe_table {
	struct rcu_head rcu;
	unsigned int shift;
	unsigned int mask;
	unsigned int live;
	unsigned int dead;
	struct kprobe_site *slot[];
};

/*
 * The table until the first site comes: two empty slots (the top bit of
 * the hash picks one), so that a lookup needs no test for "no table".
 * Never written to, never freed.
 */
static struct kprobe_table kprobe_table_none = {
	.shift = BITS_PER_LONG - 1,
	.mask = 1,
	.slot = { NULL, NULL },
};

static struct kprobe_table __rcu *kprobe_table =
	RCU_INITIALIZER(&kprobe_table_none);

static inline unsigned int table_size(struct kprobe_table *t)
{
	return t->mask + 1;
}

/* An unsigned long: no zero extension when it indexes the slots. */
static inline unsigned long table_hash(const struct kprobe_table *t,
				       unsigned long addr)
{
	return (addr * (unsigned long)GOLDEN_RATIO_PRIME) >> t->shift;
}

static struct kprobe_table *table_locked(void)
{
	return rcu_dereference_protected(kprobe_table,
					 lockdep_is_held(&kprobe_mutex));
}

/*
 * get_kprobe() past a first slot that held another site: walk on along
 * the chain.  Context: as get_kprobe().
 */
static noinline struct kprobe *get_kprobe_chain(struct kprobe_table *t,
						void *addr)
{
	unsigned int i = table_hash(t, (unsigned long)addr), n;
	struct kprobe_site *s;

	/* The table always keeps an empty slot; the bound is a backstop. */
	for (n = 1; n <= t->mask; n++) {
		i = (i + 1) & t->mask;
		s = READ_ONCE(t->slot[i]);
		if (!s)
			return NULL;
		if (site_kp(s)->addr == addr)
			return site_kp(s);
	}
	return NULL;
}
NOKPROBE_SYMBOL(get_kprobe_chain);

/**
 * get_kprobe() - the probe that owns an address
 * @addr: probed address
 *
 * The lookup of every hit: one multiply, then usually one slot, which
 * holds the site or is empty; a chain is walked out of line.
 *
 * Return: the site probe at @addr (the object the architecture arms and
 * whose handlers call every registered probe there), or NULL.
 * Context: any, including int3 and NMI, with preemption disabled (an
 * RCU-sched reader: int3, NMI, ftrace callbacks), or kprobe_mutex held.
 * It calls no function that a probe could be put on (see
 * kprobe_hit_reader()), so a probe hit from here cannot recur.
 * The result is valid until preemption is enabled again, or while the
 * mutex is held.
 */
struct kprobe *get_kprobe(void *addr)
{
	struct kprobe_table *t;
	struct kprobe_site *s;

	t = rcu_dereference_check(kprobe_table,
				  kprobe_hit_reader() ||
				  lockdep_is_held(&kprobe_mutex));
	s = READ_ONCE(t->slot[table_hash(t, (unsigned long)addr)]);
	if (likely(s && site_kp(s)->addr == addr))
		return site_kp(s);
	if (!s)
		return NULL;
	return get_kprobe_chain(t, addr);
}
NOKPROBE_SYMBOL(get_kprobe);

/* Place @s in @t, which has room.  Caller owns @t or holds kprobe_mutex. */
static void table_place(struct kprobe_table *t, struct kprobe_site *s)
{
	unsigned int i = table_hash(t, site_addr(s));
	struct kprobe_site *old;

	for (;; i = (i + 1) & t->mask) {
		old = t->slot[i];
		if (!old || old == KPROBE_SLOT_DEAD)
			break;
	}
	if (old)
		t->dead--;
	t->live++;
	/* Publish a fully initialised site to lock-free readers. */
	smp_store_release(&t->slot[i], s);
}

/* Rebuild the table with room for @want live entries.  kprobe_mutex held. */
static int table_rebuild(unsigned int want)
{
	struct kprobe_table *old = table_locked(), *t;
	unsigned int bits, i;

	lockdep_assert_held(&kprobe_mutex);
	bits = ilog2(roundup_pow_of_two(max(2 * want, KPROBE_TABLE_MIN)));
	t = kvzalloc(struct_size(t, slot, 1UL << bits), GFP_KERNEL);
	if (!t)
		return -ENOMEM;
	t->shift = BITS_PER_LONG - bits;
	t->mask = (1U << bits) - 1;
	for (i = 0; i < table_size(old); i++) {
		if (old->slot[i] && old->slot[i] != KPROBE_SLOT_DEAD)
			table_place(t, old->slot[i]);
	}
	rcu_assign_pointer(kprobe_table, t);
	if (old != &kprobe_table_none)
		kvfree_rcu(old, rcu);
	return 0;
}

/*
 * Make sure @more sites can be inserted without a rebuild, so that a
 * batch registration resizes at most once.
 * Context: kprobe_mutex held; may sleep.
 */
int kprobe_site_reserve(unsigned int more)
{
	struct kprobe_table *t = table_locked();

	lockdep_assert_held(&kprobe_mutex);
	if (t != &kprobe_table_none &&
	    4 * (t->live + t->dead + more) <= 3 * table_size(t))
		return 0;
	return table_rebuild(t->live + more);
}

/*
 * Add a site to the table.  The site must be fully set up: lookups can
 * find it as soon as this returns.
 * Context: kprobe_mutex held; may sleep.
 */
int kprobe_site_insert(struct kprobe_site *s)
{
	int ret = kprobe_site_reserve(1);
	struct kprobe_table *t;

	if (ret) {
		/* No memory to grow: go on while one empty slot remains. */
		t = table_locked();
		if (t == &kprobe_table_none ||
		    t->live + t->dead + 2 > table_size(t))
			return ret;
	}
	table_place(table_locked(), s);
	return 0;
}

/*
 * Take a site out of the table.  Lookups already running may still
 * return it until a grace period has passed.
 * Context: kprobe_mutex held.
 */
void kprobe_site_remove(struct kprobe_site *s)
{
	struct kprobe_table *t = table_locked();
	unsigned int i, n;

	lockdep_assert_held(&kprobe_mutex);
	i = table_hash(t, site_addr(s));
	for (n = 0; n <= t->mask; n++, i = (i + 1) & t->mask) {
		if (t->slot[i] == s) {
			WRITE_ONCE(t->slot[i], KPROBE_SLOT_DEAD);
			t->live--;
			t->dead++;
			return;
		}
		if (!t->slot[i])
			break;
	}
	WARN(1, "kprobes: site %pS missing from the table\n", (void *)site_addr(s));
}

/*
 * The live site at or after slot *@pos, advancing *@pos past it, or
 * NULL at the end.  For iterators that hold kprobe_mutex throughout.
 */
struct kprobe_site *kprobe_site_at(unsigned int *pos)
{
	struct kprobe_table *t = table_locked();
	struct kprobe_site *s;

	lockdep_assert_held(&kprobe_mutex);
	for (; *pos < table_size(t); (*pos)++) {
		s = t->slot[*pos];
		if (s && s != KPROBE_SLOT_DEAD) {
			(*pos)++;
			return s;
		}
	}
	return NULL;
}

/*
 * Snapshot of all sites, for walks that change the table or patch text
 * in one batch.  Returns a kvmalloc()ed array (free with kvfree()), or
 * NULL with *@nr == 0 when there is no site or no memory.
 * Context: kprobe_mutex held; may sleep.
 */
struct kprobe_site **kprobe_site_collect(unsigned int *nr)
{
	struct kprobe_table *t = table_locked();
	struct kprobe_site **v, *s;
	unsigned int pos = 0, n = 0;

	lockdep_assert_held(&kprobe_mutex);
	*nr = 0;
	if (!t->live)
		return NULL;
	v = kvmalloc_array(t->live, sizeof(*v), GFP_KERNEL);
	if (!v)
		return NULL;
	while ((s = kprobe_site_at(&pos)))
		v[n++] = s;
	*nr = n;
	return v;
}

/*
 * sort() order of unsigned longs: addresses (debugfs.c's listings), or
 * pointers to sites and probes, where sorting only brings duplicates
 * together (register.c, resolve.c).
 */
int kprobe_cmp_ulong(const void *a, const void *b)
{
	unsigned long x = *(const unsigned long *)a;
	unsigned long y = *(const unsigned long *)b;

	return x < y ? -1 : x > y;
}
