/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the files of the probe core share.
 *
 * Every registered struct kprobe (a "user") hangs off exactly one probe
 * site: the object that owns the probed address, the copied instruction
 * and the breakpoint (or ftrace hook, or jump).  Users at the same
 * address share their site, so the hit path always has the same shape:
 * address -> site (table.c) -> users (site.c).
 *
 * The files: resolve.c (where a probe goes and whether it may),
 * register.c (registration and unregistration in batches), table.c
 * (the address -> site table), site.c (sites, their users and
 * handlers), arming.c (patching breakpoints and ftrace hooks in
 * batches), optimizer.c (jumps), kretprobe.c, jprobe.c, insn_slots.c,
 * blacklist.c, module.c, debugfs.c and init.c; the tests are in
 * tests/.
 *
 * Lock order: kprobe_mutex -> cpus_read_lock -> jump_label_lock ->
 * text_mutex.  kprobe_mutex guards the registry, the site and user
 * lists, the flags of sites and users, and the optimizer queues.
 */
#ifndef _KERNEL_KPROBES_INTERNAL_H
#define _KERNEL_KPROBES_INTERNAL_H

#include <linux/kprobes.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>

extern struct mutex kprobe_mutex;
extern bool kprobes_all_disarmed;

/* Where a site stands with the jump optimizer (optimizer.c). */
enum kprobe_opt_state {
	KPROBE_OPT_IDLE,	/* breakpoint (or nothing) in the text */
	KPROBE_OPT_QUEUED,	/* breakpoint in text, queued for a jump */
	KPROBE_OPT_ON,		/* jump in the text */
	KPROBE_OPT_UNQUEUED,	/* jump in text, queued to go back */
	KPROBE_OPT_NEVER,	/* no detour could be built for this code */
};

/**
 * struct kprobe_site - everything the core keeps for one probed address
 * @op: the arch-visible probe (with CONFIG_OPTPROBES, its optimizer part)
 * @kp: the arch-visible probe (without CONFIG_OPTPROBES)
 * @users: registered struct kprobe at this address, linked by ->list,
 *	in registration order; walked under RCU by the handlers
 * @nr_users: entries on @users
 * @nr_live: users that are neither disabled nor gone
 * @armed: the breakpoint or ftrace hook (or a jump) is in place; written
 *	only by arming.c
 * @opt_state: enum kprobe_opt_state
 * @opt_used: int3 hits may have run in the detour buffer since the
 *	optimizer last waited for RCU tasks: wait again before freeing
 * @fops: which of the core's two ftrace_ops an ftrace site is hooked
 *	on: KPROBE_FOPS_NONE, _PLAIN or _IPMODIFY (one byte, not a pointer:
 *	it keeps the site at 192 bytes on x86_64)
 * @func_off: offset of the site in its function, as registration found it
 * @func_size: size of that function; 0 if unknown (kprobe_func_bounds()
 *	then asks kallsyms)
 */
struct kprobe_site {
#ifdef CONFIG_OPTPROBES
	struct optimized_kprobe op;
#else
	struct kprobe kp;
#endif
	struct list_head users;
	unsigned int nr_users;
	unsigned int nr_live;
	bool armed;
	u8 opt_state;
	bool opt_used;
	u8 fops;
	u32 func_off;
	u32 func_size;
};

/* kprobe_site::fops.  _PLAIN + k is the k-th ops of kernel/kprobes/arming.c. */
enum {
	KPROBE_FOPS_NONE,
	KPROBE_FOPS_PLAIN,	/* handlers leave regs->ip alone */
	KPROBE_FOPS_IPMODIFY,	/* a post_handler: the step is emulated */
};

#ifdef CONFIG_OPTPROBES
#define site_kp(s)	(&(s)->op.kp)
#define to_site(p)	container_of(p, struct kprobe_site, op.kp)
#else
#define site_kp(s)	(&(s)->kp)
#define to_site(p)	container_of(p, struct kprobe_site, kp)
#endif

static inline unsigned long site_addr(struct kprobe_site *s)
{
	return (unsigned long)site_kp(s)->addr;
}

static inline bool site_gone(struct kprobe_site *s)
{
	return kprobe_gone(site_kp(s));
}

/* May a task still run in the site's detour buffer after a grace period? */
static inline bool kprobe_site_opt_used(struct kprobe_site *s)
{
	return IS_ENABLED(CONFIG_OPTPROBES) && s->opt_used;
}

/*
 * Flags of a probe that hit paths may be reading: written once, whole.
 * Context: kprobe_mutex held (or the probe not yet visible to a hit).
 */
static inline void kprobe_flags_set(struct kprobe *p, u32 flags)
{
	WRITE_ONCE(p->flags, p->flags | flags);
}

static inline void kprobe_flags_clear(struct kprobe *p, u32 flags)
{
	WRITE_ONCE(p->flags, p->flags & ~flags);
}

/*
 * The lockdep condition of the hit paths' RCU reads: they run with
 * preemption disabled (RCU-sched readers).  Written out so that it calls
 * nothing: rcu_read_lock_sched_held() and rcu_read_lock_any_held(), the
 * checks that rcu_dereference_check() and list_for_each_entry_rcu()
 * would otherwise make under PROVE_RCU(_LIST), are ordinary traceable
 * functions, and a probe on one of them would be hit again from its
 * own hit path, without end.
 */
#define kprobe_hit_reader()	(!preemptible())

/* Should the site's text be patched right now? */
static inline bool site_wants_arm(struct kprobe_site *s)
{
	return s->nr_live && !site_gone(s) && !kprobes_all_disarmed;
}

/* blacklist.c */
bool kprobe_blacklisted_named(unsigned long addr, const char *name);

/*
 * table.c: the address -> site table.  The lookup itself is
 * get_kprobe(), which the arch hit paths call; the site's probe is its
 * first member, so this costs nothing on top.  Context: as get_kprobe().
 */
static inline struct kprobe_site *kprobe_site_find(unsigned long addr)
{
	struct kprobe *p = get_kprobe((void *)addr);

	return p ? to_site(p) : NULL;
}

int kprobe_site_reserve(unsigned int more);
int kprobe_site_insert(struct kprobe_site *s);
void kprobe_site_remove(struct kprobe_site *s);
struct kprobe_site **kprobe_site_collect(unsigned int *nr);
struct kprobe_site *kprobe_site_at(unsigned int *pos);
int kprobe_cmp_ulong(const void *a, const void *b);

/* site.c: site handlers and the user list */
bool kprobe_is_site(struct kprobe *p);
void __init kprobe_site_cache_init(void);
struct kprobe_site *kprobe_site_alloc(unsigned long addr);
void kprobe_site_discard(struct kprobe_site *s);
void kprobe_site_free(struct kprobe_site *s);
void kprobe_site_update_post(struct kprobe_site *s);
void kprobe_site_join(struct kprobe_site *s, struct kprobe *p);
bool kprobe_site_leave(struct kprobe_site *s, struct kprobe *p);
void kprobe_site_user_on(struct kprobe_site *s, struct kprobe *p);
bool kprobe_site_user_off(struct kprobe_site *s, struct kprobe *p);
void kprobe_site_users_gone(struct kprobe_site *s);
void kprobe_site_update_solo(struct kprobe_site *s);
void kprobe_site_want_post(struct kprobe *kp);
struct kprobe_site *kprobe_user_site(struct kprobe *p);

#if defined(CONFIG_KPROBES_RACE_WINDOW) && IS_ENABLED(CONFIG_KPROBES_CORE_KUNIT_TEST)
/* site.c, for the KUnit suite: called in every race window. */
extern void (*kprobe_race_test_hook)(void);
/* kretprobe.c, for the KUnit suite: called as a kretprobe leaves. */
extern void (*kretprobe_unreg_test_hook)(void);
#endif

/* arming.c: patching the text, in batches */
int kprobe_arm_sites(struct kprobe_site **sites, unsigned int n);
#ifdef CONFIG_KPROBES_ON_FTRACE
void kprobe_ftrace_unpark(void);
#if IS_ENABLED(CONFIG_KPROBES_CORE_KUNIT_TEST)
/* For the KUnit suite (tests/kprobes_kunit.c) only. */
void kprobe_kunit_fail_filter_updates(int n);
int kprobe_kunit_ftrace_hooks(unsigned long ip);
void kprobe_kunit_unpark_now(void);
void kprobe_kunit_hold_unpark(bool hold);
void kprobe_kunit_fops_users(unsigned int *users, unsigned int *stuck);
#endif
#else
static inline void kprobe_ftrace_unpark(void) { }
#endif
void kprobe_disarm_sites(struct kprobe_site **sites, unsigned int n,
			 bool force);
void kprobe_disarm_breakpoints(struct kprobe **kps, unsigned int n);
void kprobe_disarm_gone_site(struct kprobe_site *s);
int kprobe_arm_all(void);
int kprobe_disarm_all(void);

/* optimizer.c */
#ifdef CONFIG_OPTPROBES
void kprobe_opt_prepare(struct kprobe_site *s);
void kprobe_opt_try(struct kprobe_site *s);
bool kprobe_opt_cancel(struct kprobe_site *s, bool force);
void kprobe_opt_cancel_batch(struct kprobe_site **sites, unsigned int n);
void kprobe_opt_kill(struct kprobe_site *s);
void kprobe_opt_drop_unused(struct kprobe_site *s);
void kprobe_opt_unblock(unsigned long addr);
void kprobe_opt_block(unsigned long addr);
void kprobe_opt_remove(struct kprobe_site *s);
void __init kprobe_opt_init(void);
#else
static inline void kprobe_opt_prepare(struct kprobe_site *s) { }
static inline void kprobe_opt_try(struct kprobe_site *s) { }
static inline bool kprobe_opt_cancel(struct kprobe_site *s, bool force)
{
	return false;
}

static inline void kprobe_opt_cancel_batch(struct kprobe_site **sites,
					   unsigned int n) { }
static inline void kprobe_opt_kill(struct kprobe_site *s) { }
static inline void kprobe_opt_drop_unused(struct kprobe_site *s) { }
static inline void kprobe_opt_unblock(unsigned long addr) { }
static inline void kprobe_opt_block(unsigned long addr) { }
static inline void kprobe_opt_remove(struct kprobe_site *s) { }
static inline void kprobe_opt_init(void) { }
#endif

/*
 * Scratch arrays of the batch paths: most calls are for one probe, so
 * the caller passes storage for one element (@one) and only a batch
 * of two or more is allocated.  kprobe_array_free() gives it back.
 * With __GFP_ZERO in @gfp, @one is zeroed too.  Context: may sleep
 * (GFP_KERNEL).
 */
static inline void *kprobe_array(unsigned int n, size_t size, void *one,
				 gfp_t gfp)
{
	if (n > 1)
		return kvmalloc_array(n, size, gfp);
	if (gfp & __GFP_ZERO)
		memset(one, 0, size);
	return one;
}

static inline void kprobe_array_free(void *v, void *one)
{
	if (v != one)
		kvfree(v);
}

/* resolve.c: where a probe goes, and whether it may */

/* The function a probe address lies in: [start, start + size). */
struct kprobe_func {
	unsigned long start;
	unsigned long size;
};

int kprobe_resolve_func(kprobe_opcode_t *addr, const char *sym,
			unsigned long offset, kprobe_opcode_t **out,
			bool *on_func_entry, struct kprobe_func *f, char *name);
int kprobe_check_text(unsigned long addr, const char *name,
		      struct module **modp);
int kprobe_resolve_addr(kprobe_opcode_t *addr, const char *sym,
			unsigned long offset, kprobe_opcode_t **out,
			bool *on_func_entry);
int kprobes_check_unique(struct kprobe **kps, unsigned int num);

/* register.c */
struct kprobe_unreg {
	struct list_head doomed;	/* sites to free after a grace period */
	struct rcu_gp_oldstate gp;	/* when the last user went out of reach */
};

bool kprobe_is_registered(struct kprobe *p);
int kprobes_register_batch(struct kprobe **kps, unsigned int num);
void kprobes_unregister_begin(struct kprobe **kps, unsigned int num,
			      struct kprobe_unreg *u);
void kprobes_unregister_finish(struct kprobe **kps, unsigned int num,
			       struct kprobe_unreg *u);
struct kprobe **kprobes_of(void *const *objs, unsigned int num,
			   size_t offset, struct kprobe **one);
void kprobes_of_free(struct kprobe **kps, struct kprobe **one);
/* The kprobes in @num wrappers of @type (a jprobe...) at @member. */
#define KPROBES_OF(objs, num, type, member, one)			\
	kprobes_of((void *const *)(objs), (num), offsetof(type, member), (one))
void kprobe_site_doom(struct kprobe_site *s, struct list_head *doomed);
void kprobe_sites_free_doomed(struct list_head *doomed);
void kprobe_kill_site(struct kprobe_site *s, struct list_head *doomed);

/* blacklist.c */
int __init kprobe_blacklist_init(void);
void kprobe_blacklist_add_module(struct module *mod);
void kprobe_blacklist_remove_module(struct module *mod);
void *kprobe_blacklist_seq_start(struct seq_file *m, loff_t *pos);
void *kprobe_blacklist_seq_next(struct seq_file *m, void *v, loff_t *pos);
int kprobe_blacklist_seq_show(struct seq_file *m, void *v);
void kprobe_blacklist_seq_stop(struct seq_file *m, void *v);

/* kretprobe.c */
#ifdef CONFIG_KRETPROBES
bool kprobe_is_kretprobe(struct kprobe *p);
void __init kretprobe_init(void);
#else
static inline bool kprobe_is_kretprobe(struct kprobe *p)
{
	return false;
}

static inline void kretprobe_init(void) { }
#endif

/* jprobe.c */
#ifdef CONFIG_JPROBES
bool kprobe_is_jprobe(struct kprobe *p);
#else
static inline bool kprobe_is_jprobe(struct kprobe *p)
{
	return false;
}
#endif

/* insn_slots.c */
void __init kprobe_insn_slots_init(void);
void kprobe_insn_slots_flush(void);
void kprobe_insn_slots_throttle(void);

/* module.c */
int __init kprobe_module_init(void);

#endif /* _KERNEL_KPROBES_INTERNAL_H */
