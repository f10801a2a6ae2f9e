/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Kernel probes: break into almost any kernel instruction and run a
 * handler there.
 *
 * This header is the whole public interface of the probe core in
 * kernel/kprobes/: the probe descriptors that callers fill in, the
 * registration API, and the narrow set of hooks that an architecture
 * implements (arch_*) or calls back into (get_kprobe(), current_kprobe,
 * the instruction slot caches, the optimizer callbacks).
 *
 * Registration contract, for every probe type below: a handler runs only
 * after the register call that installs it has committed (a probe whose
 * registration fails never has a handler called), and a handler never
 * runs once the matching unregister call has returned.  Handlers run in
 * the context of the probed instruction with preemption disabled (and
 * with interrupts disabled on the breakpoint path); they must not sleep.
 */
#ifndef _LINUX_KPROBES_H
#define _LINUX_KPROBES_H

#include <linux/array_size.h>
#include <linux/compiler.h>
#include <linux/linkage.h>
#include <linux/list.h>
#include <linux/notifier.h>
#include <linux/smp.h>
#include <linux/bug.h>
#include <linux/percpu.h>
#include <linux/spinlock.h>
#include <linux/rcupdate.h>
#include <linux/mutex.h>
#include <linux/ftrace.h>
#include <linux/jump_label.h>
#include <linux/rethook.h>
#ifdef CONFIG_CONTEXT_TRACKING_IDLE
#include <linux/context_tracking.h>
#endif
#include <asm/kprobes.h>

#ifdef CONFIG_KPROBES
/* States of the per-CPU control block (kprobe_ctlblk::kprobe_status). */
#define KPROBE_HIT_ACTIVE	0x00000001
#define KPROBE_HIT_SS		0x00000002
#define KPROBE_REENTER		0x00000004
#define KPROBE_HIT_SSDONE	0x00000008
#else
#include <asm-generic/kprobes.h>
typedef int kprobe_opcode_t;
struct arch_specific_insn {
	int dummy;
};
#endif

struct kprobe;
struct pt_regs;
struct kretprobe;
struct kretprobe_instance;

typedef int (*kprobe_pre_handler_t)(struct kprobe *, struct pt_regs *);
typedef void (*kprobe_post_handler_t)(struct kprobe *, struct pt_regs *,
				      unsigned long flags);
typedef int (*kretprobe_handler_t)(struct kretprobe_instance *,
				   struct pt_regs *);

/**
 * struct kprobe - one breakpoint probe
 * @hlist: not used by the core in a caller's probe; kept so that users
 *	which reset it after unregistering (and test it with
 *	hlist_unhashed()) keep working.
 * @solo: core-private, set only in a probe site (what get_kprobe()
 *	returns, never a caller's probe): the site's one enabled user when
 *	it has exactly one and that user has a pre_handler, else NULL.
 *	kprobe_run_pre_handlers() calls it directly.
 * @list: while registered, links the probe into the users of the probe
 *	site at @addr; empty once unregistered.
 * @nmissed: hits that could not run the handlers (recursion).
 * @addr: probed address; filled in from @symbol_name + @offset when
 *	@addr is NULL.  Giving both @addr and @symbol_name is an error.
 * @symbol_name: symbol to probe, or NULL.
 * @offset: offset into @symbol_name (or from @addr).
 * @pre_handler: called before the probed instruction runs.  A non-zero
 *	return means the handler changed regs->ip and the probed
 *	instruction must not be run.
 * @post_handler: called after the probed instruction ran.
 * @opcode: the original first opcode of the probed instruction.
 * @ainsn: the architecture's copy of the probed instruction.
 * @flags: KPROBE_FLAG_*; the caller may only set KPROBE_FLAG_DISABLED
 *	before registering.  Owned by the core (under kprobe_mutex) after.
 */
struct kprobe {
	union {
		struct hlist_node hlist;
		struct kprobe *solo;
	};
	struct list_head list;
	unsigned long nmissed;
	kprobe_opcode_t *addr;
	const char *symbol_name;
	unsigned int offset;
	kprobe_pre_handler_t pre_handler;
	kprobe_post_handler_t post_handler;
	kprobe_opcode_t opcode;
	struct arch_specific_insn ainsn;
	u32 flags;
};

#define KPROBE_FLAG_GONE		1  /* probed code was freed */
#define KPROBE_FLAG_DISABLED		2  /* probe does not fire */
#define KPROBE_FLAG_OPTIMIZED		4  /* site runs (or will run) a jump */
#define KPROBE_FLAG_FTRACE		8  /* site is an ftrace location */
#define KPROBE_FLAG_ON_FUNC_ENTRY	16 /* probe is at a function entry */
#define KPROBE_FLAG_ARMED_ONCE		32 /* site was armed at least once */

/*
 * The flags of a registered probe change under kprobe_mutex while the hit
 * paths read them without a lock; the core writes them with WRITE_ONCE()
 * (kprobe_flags_set() in kernel/kprobes/internal.h), and these read them
 * once.
 */
static inline bool kprobe_gone(struct kprobe *p)
{
	return READ_ONCE(p->flags) & KPROBE_FLAG_GONE;
}

/* A gone probe counts as disabled: it can never fire again. */
static inline bool kprobe_disabled(struct kprobe *p)
{
	return READ_ONCE(p->flags) & (KPROBE_FLAG_DISABLED | KPROBE_FLAG_GONE);
}

static inline bool kprobe_optimized(struct kprobe *p)
{
	return READ_ONCE(p->flags) & KPROBE_FLAG_OPTIMIZED;
}

static inline bool kprobe_ftrace(struct kprobe *p)
{
	return READ_ONCE(p->flags) & KPROBE_FLAG_FTRACE;
}

/*
 * Whether the copies an arch made of @p's instruction may ever have run:
 * false while the core has never armed @p's site, e.g. when the
 * registration was refused for another probe of its batch and rolled
 * back.  arch_remove_kprobe() may give such slots back for reuse at once
 * instead of after a retiring pass.
 */
static inline bool kprobe_ever_armed(struct kprobe *p)
{
	return READ_ONCE(p->flags) & KPROBE_FLAG_ARMED_ONCE;
}

/*
 * Add one to a miss counter that other CPUs, and interrupts or NMIs on
 * this one, may add to at the same time: no count is lost.  For the
 * nmissed members, whose types predate atomics.
 */
#define kprobe_count_miss(cnt)						\
do {									\
	typeof(cnt) __cnt = (cnt);					\
	typeof(*__cnt) __seen = READ_ONCE(*__cnt);			\
									\
	while (!try_cmpxchg(__cnt, &__seen, __seen + 1))		\
		;							\
} while (0)

/*
 * Return probes.  A kretprobe is a kprobe at a function entry whose
 * pre_handler hooks the return address; @handler then runs when the
 * function returns.  @entry_handler (optional) runs at entry and can
 * veto the return hook by returning non-zero.  @maxactive bounds the
 * calls tracked at once; @nmissed counts returns that were not hooked.
 */
struct kretprobe {
	struct kprobe kp;
	kretprobe_handler_t handler;
	kretprobe_handler_t entry_handler;
	int maxactive;
	int nmissed;
	size_t data_size;
	struct rethook *rh;
};

#define KRETPROBE_MAX_DATA_SIZE	4096

/**
 * struct jprobe - a probe whose handler takes the probed function's arguments
 * @kp: the kprobe at the function's entry; set @kp.addr or @kp.symbol_name
 *	(with @kp.offset 0).  The jprobe code owns @kp.pre_handler and
 *	@kp.post_handler.
 * @entry: the handler, a function with the probed function's prototype;
 *	use JPROBE_ENTRY() to set it.  Its return value is ignored.
 *
 * The handler is called with the arguments the probed function was
 * called with, read from the saved registers and the caller's stack,
 * before the probed function's body runs.  It gets copies: changing its
 * parameters changes nothing in the probed function.  At most
 * JPROBE_MAX_ARGS arguments are passed, each one register wide (integers
 * and pointers, not structures passed by value).  See register_jprobe().
 */
struct jprobe {
	struct kprobe kp;
	void *entry;
};

/* The handler of a jprobe, whatever its prototype. */
#define JPROBE_ENTRY(handler)	((void *)(handler))

/* Arguments a jprobe handler receives (6 in registers on x86_64). */
#define JPROBE_MAX_ARGS		8

struct kretprobe_instance {
	struct rethook_node node;
	char data[];
};

/* A function that must never get a kretprobe (arch-provided table). */
struct kretprobe_blackpoint {
	const char *name;
	void *addr;
};

/* One address range where probes are refused. */
struct kprobe_blacklist_entry {
	struct list_head list;
	unsigned long start_addr;
	unsigned long end_addr;
	struct rcu_head rcu;
};

#ifdef CONFIG_KPROBES_RACE_WINDOW
void kprobes_set_race_window(unsigned int us);
void kprobe_race_wait(void);
DECLARE_STATIC_KEY_FALSE(kprobe_race_key);
#define kprobe_race_window_open()	static_branch_unlikely(&kprobe_race_key)
#else
#define kprobe_race_window_open()	false
static inline void kprobe_race_wait(void) { }
#endif

/*
 * Between choosing a handler and calling it: with the race-hunting delay
 * on, wait there (so that unregistrations on other CPUs land inside
 * hits); a no-op jump otherwise.
 */
static __always_inline void kprobe_race_window(void)
{
	if (kprobe_race_window_open())
		kprobe_race_wait();
}

#ifdef CONFIG_KPROBES
DECLARE_PER_CPU(struct kprobe *, current_kprobe);
DECLARE_PER_CPU(struct kprobe_ctlblk, kprobe_ctlblk);

/*
 * Why a hit ran no handler.  A kprobe's own @nmissed counts nested hits
 * only: it was hit while this CPU ran a probe (its handlers, its stepped
 * copy, or the core's own hit path).  A kretprobe's @nmissed counts the
 * calls whose return could not be hooked, for one of rethook's reasons
 * (enum rethook_miss).  The two below cannot be charged to a probe,
 * because finding the probe is what they prevented; the core counts them
 * per CPU (kprobe_missed_anon()).  debugfs kprobes/missed shows all of
 * them.
 */
#define KPROBE_MISS_CAUSES	1	/* for code built against several kernels */

enum kprobe_anon_miss {
	KPROBE_MISS_NO_RCU,	/* an ftrace hit where RCU was not watching */
	KPROBE_MISS_RECURSION,	/* a hit from the core's own miss path */
	KPROBE_MISS_ANON_NR,
};

unsigned long kprobe_missed_anon(enum kprobe_anon_miss why);

void kprobe_busy_begin(void);
void kprobe_busy_end(void);

#ifdef CONFIG_KRETPROBES
int arch_trampoline_kprobe(struct kprobe *p);

/* The owning kretprobe of an instance; rethook::data never changes. */
static nokprobe_inline struct kretprobe *
get_kretprobe(struct kretprobe_instance *ri)
{
	return (struct kretprobe *)ri->node.rethook->data;
}

static nokprobe_inline unsigned long
get_kretprobe_retaddr(struct kretprobe_instance *ri)
{
	return ri->node.ret_addr;
}

#else /* !CONFIG_KRETPROBES */
static inline int arch_trampoline_kprobe(struct kprobe *p)
{
	return 0;
}
#endif /* CONFIG_KRETPROBES */

/* NOKPROBE_SYMBOL() entries, collected by the linker. */
extern unsigned long __start_kprobe_blacklist[];
extern unsigned long __stop_kprobe_blacklist[];

extern struct kretprobe_blackpoint kretprobe_blacklist[];

/*
 * Architecture hooks.  arch_prepare_kprobe() copies the instruction at
 * p->addr (text_mutex held).  arch_arm_kprobes_batch() and
 * arch_disarm_kprobes_batch() patch the breakpoints of an array of
 * probes, sorted by address, with one synchronisation of the other CPUs
 * (text_mutex and cpus_read_lock held); a single probe is a batch of
 * one.  A prepared probe must serve both cases at every hit: p->post_handler
 * may be set or cleared while it is armed, and the arch then steps the
 * instruction (post handler runs) or boosts it, reading it per hit.
 */
int arch_prepare_kprobe(struct kprobe *p);
void arch_arm_kprobes_batch(struct kprobe **ps, unsigned int n);
void arch_disarm_kprobes_batch(struct kprobe **ps, unsigned int n);
int arch_init_kprobes(void);
void kprobes_inc_nmissed_count(struct kprobe *p);
bool arch_within_kprobe_blacklist(unsigned long addr);
int arch_populate_kprobe_blacklist(void);
int kprobe_on_func_entry(kprobe_opcode_t *addr, const char *sym,
			 unsigned long offset);
bool kprobe_func_bounds(struct kprobe *p, unsigned long *start,
			unsigned long *size);

bool within_kprobe_blacklist(unsigned long addr);
#ifdef CONFIG_JUMP_LABEL
bool kprobe_jump_label_reserved(unsigned long start, unsigned long end);
bool kprobe_jump_label_meets(unsigned long start, unsigned long end);
#else
static inline bool kprobe_jump_label_reserved(unsigned long start,
					      unsigned long end)
{
	return false;
}

static inline bool kprobe_jump_label_meets(unsigned long start,
					   unsigned long end)
{
	return false;
}
#endif
int kprobe_add_ksym_blacklist(unsigned long entry);
int kprobe_add_area_blacklist(unsigned long start, unsigned long end);

/*
 * Executable memory for out-of-line copies of probed instructions, cut
 * into fixed-size slots.  @pages is walked under RCU by
 * __is_insn_slot_addr(), so the unwinder may ask from any context.
 */
struct kprobe_insn_cache {
	struct mutex mutex;
	void *(*alloc)(void);
	void (*free)(void *);
	const char *sym;
	struct list_head pages;
	size_t insn_size;
	int nr_garbage;
};

#ifdef __ARCH_WANT_KPROBES_INSN_SLOT
kprobe_opcode_t *__get_insn_slot(struct kprobe_insn_cache *c);
void __free_insn_slot(struct kprobe_insn_cache *c,
		      kprobe_opcode_t *slot, int dirty);
bool __is_insn_slot_addr(struct kprobe_insn_cache *c, unsigned long addr);

#define DEFINE_INSN_CACHE_OPS(__name)					\
extern struct kprobe_insn_cache kprobe_##__name##_slots;		\
									\
static inline kprobe_opcode_t *get_##__name##_slot(void)		\
{									\
	return __get_insn_slot(&kprobe_##__name##_slots);		\
}									\
									\
static inline void free_##__name##_slot(kprobe_opcode_t *slot, int dirty)\
{									\
	__free_insn_slot(&kprobe_##__name##_slots, slot, dirty);	\
}									\
									\
static inline bool is_kprobe_##__name##_slot(unsigned long addr)	\
{									\
	return __is_insn_slot_addr(&kprobe_##__name##_slots, addr);	\
}
#define KPROBE_INSN_PAGE_SYM		"kprobe_insn_page"
#define KPROBE_OPTINSN_PAGE_SYM		"kprobe_optinsn_page"
int kprobe_cache_get_kallsym(struct kprobe_insn_cache *c, unsigned int *symnum,
			     unsigned long *value, char *type, char *sym);
#else
#define DEFINE_INSN_CACHE_OPS(__name)					\
static inline bool is_kprobe_##__name##_slot(unsigned long addr)	\
{									\
	return false;							\
}
#endif

DEFINE_INSN_CACHE_OPS(insn);

#ifdef CONFIG_OPTPROBES
/*
 * A probe site that the architecture may turn into a jump.  @list is
 * the optimizer's queue link: empty while the site is idle, on one of
 * the optimizer's queues otherwise (see kernel/kprobes/optimizer.c).
 */
struct optimized_kprobe {
	struct kprobe kp;
	struct list_head list;
	struct arch_optimized_insn optinsn;
};

int arch_prepared_optinsn(struct arch_optimized_insn *optinsn);
int arch_check_optimized_kprobe(struct optimized_kprobe *op);
int arch_prepare_optimized_kprobe(struct optimized_kprobe *op,
				  struct kprobe *orig);
void arch_remove_optimized_kprobe(struct optimized_kprobe *op);
size_t arch_optinsn_slot_size(void);
void arch_optimize_kprobes(struct list_head *oplist);
void arch_unoptimize_kprobes(struct list_head *oplist,
			     struct list_head *done_list);
void arch_unoptimize_kprobe(struct optimized_kprobe *op);
int arch_within_optimized_kprobe(struct optimized_kprobe *op,
				 kprobe_opcode_t *addr);

void opt_pre_handler(struct kprobe *p, struct pt_regs *regs);

DEFINE_INSN_CACHE_OPS(optinsn);

void wait_for_kprobe_optimizer(void);
#ifdef CONFIG_SYSCTL
struct ctl_table;
int proc_kprobes_optimization_handler(const struct ctl_table *table,
				      int write, void *buffer, size_t *len,
				      loff_t *ppos);
#endif
#else
static inline void wait_for_kprobe_optimizer(void) { }
#endif /* CONFIG_OPTPROBES */

#ifdef CONFIG_KPROBES_ON_FTRACE
void kprobe_ftrace_handler(unsigned long ip, unsigned long parent_ip,
			   struct ftrace_ops *ops, struct ftrace_regs *fregs);
int arch_prepare_kprobe_ftrace(struct kprobe *p);
/* Set once ftrace is dead; probes on ftrace then never fire again. */
extern bool kprobe_ftrace_disabled __read_mostly;
void kprobe_ftrace_kill(void);
#else
static inline int arch_prepare_kprobe_ftrace(struct kprobe *p)
{
	return -EINVAL;
}

static inline void kprobe_ftrace_kill(void) { }
#endif /* CONFIG_KPROBES_ON_FTRACE */

/**
 * kprobe_on_ftrace_site() - is @addr an ftrace site itself?
 * @addr: text address
 *
 * What ftrace_location(@addr) == @addr says, without its fallback for a
 * symbol's first byte, which looks the symbol up: in a module that is a
 * walk of its whole symbol table, and the instruction decoders ask this
 * of every instruction of a function they check.
 * Return: true if ftrace has a call site starting exactly at @addr.
 * Context: any.
 */
static inline bool kprobe_on_ftrace_site(unsigned long addr)
{
#ifdef CONFIG_DYNAMIC_FTRACE
	return ftrace_location_range(addr, addr) == addr;
#else
	return false;
#endif
}

struct kprobe *get_kprobe(void *addr);
int kprobe_site_pre_handler(struct kprobe *p, struct pt_regs *regs);

/**
 * kprobe_run_pre_handlers() - run the pre_handlers at a hit probe site
 * @p: what get_kprobe() returned for the hit address
 * @regs: registers as the breakpoint saved them
 *
 * The arch hit paths call this rather than @p->pre_handler.  A site
 * with one enabled user (the common case) calls that user's handler
 * from here, with no call into the core in between; otherwise
 * kprobe_site_pre_handler() walks the users.  So does a hit while the
 * race-hunting delay is on (kprobes_set_race_window()), which it adds.
 * Return: non-zero if a handler changed the PC (skip the instruction).
 * Context: breakpoint or ftrace callback, preemption disabled (an
 * RCU-sched reader of the site).
 */
static __always_inline int kprobe_run_pre_handlers(struct kprobe *p,
						   struct pt_regs *regs)
{
	struct kprobe *u = READ_ONCE(p->solo);

	if (likely(u) && !kprobe_race_window_open())
		return u->pre_handler(u, regs);
	return kprobe_site_pre_handler(p, regs);
}

/* The probe whose handlers run on this CPU (preemption disabled). */
static inline struct kprobe *kprobe_running(void)
{
	return __this_cpu_read(current_kprobe);
}

static inline void reset_current_kprobe(void)
{
	__this_cpu_write(current_kprobe, NULL);
}

static inline struct kprobe_ctlblk *get_kprobe_ctlblk(void)
{
	return this_cpu_ptr(&kprobe_ctlblk);
}

/*
 * A CPU's control block is shared with whatever interrupts the context
 * that uses it: an NMI, or an int3, #DB or #MC taken inside a handler,
 * may run a hit path over it, and leaves it as it found it (a level of
 * its own, kprobe_push_outer() and kprobe_pop_outer()).  No other CPU
 * touches it.  So its words are read and written whole and once, with
 * READ_ONCE() and WRITE_ONCE(): the compiler may not tear, fuse or
 * refetch an access that a nested hit can come between, and KCSAN's
 * interrupt watcher knows the sharing is by design.  The status goes
 * through these two.
 */
static __always_inline unsigned long kprobe_status_get(struct kprobe_ctlblk *kcb)
{
	return READ_ONCE(kcb->kprobe_status);
}

static __always_inline void kprobe_status_set(struct kprobe_ctlblk *kcb,
					      unsigned long status)
{
	WRITE_ONCE(kcb->kprobe_status, status);
}

/**
 * kprobe_run_post_handler() - run the post_handlers at a hit probe site
 * @p: what get_kprobe() returned for the hit address
 * @regs: registers after the probed instruction
 * @kcb: this CPU's control block, whose status becomes KPROBE_HIT_SSDONE
 *	if a post_handler runs
 *
 * The site's post_handler is the core's fan-out while some user has a
 * post_handler, and NULL otherwise; the core changes it while the site
 * is armed (a user with one joins or leaves: kprobe_site_update_post()).
 * So it is read once here, and what was read is called: a second read
 * could find the NULL that a concurrent unregistration just stored.
 * Context: as kprobe_run_pre_handlers().
 */
static __always_inline void kprobe_run_post_handler(struct kprobe *p,
						    struct pt_regs *regs,
						    struct kprobe_ctlblk *kcb)
{
	kprobe_post_handler_t post = READ_ONCE(p->post_handler);

	if (!post)
		return;
	kprobe_race_window();
	kprobe_status_set(kcb, KPROBE_HIT_SSDONE);
	post(p, regs, 0);
}

/*
 * Is RCU watching this CPU?  The inline form where context tracking
 * provides one (nothing a probe could recurse through).  Context:
 * preemption disabled.
 */
static __always_inline bool kprobe_rcu_watching(void)
{
#ifdef CONFIG_CONTEXT_TRACKING_IDLE
	return rcu_is_watching_curr_cpu();
#else
	return rcu_is_watching();
#endif
}

#ifdef CONFIG_KPROBES_ON_FTRACE
/* This CPU's running probe while an ftrace hit looks its probe up. */
extern struct kprobe kprobe_ftrace_claiming;
void kprobe_ftrace_missed(unsigned long ip);

/**
 * kprobe_ftrace_claim() - the probe to run at an ftrace site, made running
 * @ip: the site's address (the probe address)
 *
 * For the arch ftrace-path handlers.  The site's probe becomes this
 * CPU's running probe, with status KPROBE_HIT_ACTIVE, unless none is to
 * run: ftrace is dead, the probe is gone or disabled, RCU is not
 * watching (the lookup reads tables that RCU frees), or this CPU already
 * runs a probe (a nested hit from a handler, an interrupt or an NMI).
 * The last two are misses, counted by kprobe_ftrace_missed().
 *
 * There is no ftrace recursion lock on this path: the check of
 * kprobe_running() comes first and is its guard.  Until a probe is
 * found, a marker stands in as the running probe, so that a hit from
 * anything the lookup runs (nothing should be probe-able there; the
 * lookup's RCU check is kept to inline code for that reason) is a miss,
 * not a recursion.
 * Return: the probe, or NULL.
 * Context: ftrace callback, preemption disabled.
 */
static __always_inline struct kprobe *kprobe_ftrace_claim(unsigned long ip)
{
	struct kprobe *p;

	if (unlikely(kprobe_ftrace_disabled))
		return NULL;
	if (unlikely(kprobe_running() || !kprobe_rcu_watching())) {
		kprobe_ftrace_missed(ip);
		return NULL;
	}
	/*
	 * Running first, then the status, as the breakpoint path does: an
	 * NMI in between takes its hit for a nested one, and the status it
	 * may leave behind is overwritten here, not run with.
	 */
	__this_cpu_write(current_kprobe, &kprobe_ftrace_claiming);
	barrier();
	kprobe_status_set(get_kprobe_ctlblk(), KPROBE_HIT_ACTIVE);
	p = get_kprobe((kprobe_opcode_t *)ip);
	if (unlikely(!p || kprobe_disabled(p)))
		p = NULL;
	barrier();
	__this_cpu_write(current_kprobe, p);
	return p;
}
#endif

#ifdef ARCH_KPROBE_CTLBLK_OUTER
/*
 * Reentry: a probe hit while this CPU runs another probe's handlers or
 * steps its copy.  For arch code whose struct kprobe_ctlblk has
 * kprobe_status, saved_flags (the interrupt mask bits of the trapped
 * context while a copy runs), a stack of struct kprobe_outer,
 * outer[KPROBE_OUTER_DEPTH], and nr_outer, the number of its entries in
 * use.  Each entry is a probe that a deeper one interrupted, innermost
 * last; the running probe is in current_kprobe and the ctlblk itself.
 *
 * Context: the breakpoint exception (or the step trap), this CPU only,
 * preemption and interrupts off.  Levels nest strictly: a deeper level is
 * left before the one it interrupted runs again, so the stack needs no
 * lock.  An NMI (or #DB, #MC) may still hit a probe half way through a
 * push or a pop here; it pushes and pops a level of its own and leaves
 * everything as it found it.  So a push reserves its entry before it
 * fills it, and a pop reads its entry before it gives it back: the
 * entry in use is never one such a nested level can take.
 */

#if IS_ENABLED(CONFIG_KPROBES_CORE_KUNIT_TEST)
/* KUnit: called where a nested level could come in the middle of a push or pop. */
extern void (*kprobe_outer_test_hook)(void);
#define kprobe_outer_test_point()					\
do {									\
	void (*__hook)(void) = READ_ONCE(kprobe_outer_test_hook);	\
									\
	if (unlikely(__hook))						\
		__hook();						\
} while (0)
#else
#define kprobe_outer_test_point()	do { } while (0)
#endif

/**
 * kprobe_push_outer - remember the running probe, then run @p inside it
 * @kcb: this CPU's control block
 * @p: the probe hit while another one runs
 *
 * @p becomes the current probe with status KPROBE_REENTER.
 *
 * Return: false, with nothing changed, when the stack is full.
 */
static __always_inline bool kprobe_push_outer(struct kprobe_ctlblk *kcb,
					      struct kprobe *p)
{
	unsigned int top = READ_ONCE(kcb->nr_outer);
	struct kprobe_outer *o;

	if (unlikely(top >= ARRAY_SIZE(kcb->outer)))
		return false;
	o = &kcb->outer[top];
	/* Reserved first: a nested level takes the entry above. */
	WRITE_ONCE(kcb->nr_outer, top + 1);
	barrier();
	kprobe_outer_test_point();
	o->kp = kprobe_running();
	o->status = kprobe_status_get(kcb);
	o->saved_flags = READ_ONCE(kcb->saved_flags);
	__this_cpu_write(current_kprobe, p);
	kprobe_status_set(kcb, KPROBE_REENTER);
	return true;
}

/**
 * kprobe_pop_outer - leave a reentered probe for the one it interrupted
 * @kcb: this CPU's control block; its status is KPROBE_REENTER
 */
static __always_inline void kprobe_pop_outer(struct kprobe_ctlblk *kcb)
{
	unsigned int top = READ_ONCE(kcb->nr_outer) - 1;
	struct kprobe_outer *o = &kcb->outer[top];
	unsigned long status = o->status, flags = o->saved_flags;
	struct kprobe *kp = o->kp;

	barrier();
	kprobe_outer_test_point();
	__this_cpu_write(current_kprobe, kp);
	kprobe_status_set(kcb, status);
	WRITE_ONCE(kcb->saved_flags, flags);
	o->kp = NULL;
	/* Given back last: until here a nested level takes the entry above. */
	barrier();
	WRITE_ONCE(kcb->nr_outer, top);
}

/* Leave the current probe: back to the outer one, or to none. */
static __always_inline void kprobe_leave(struct kprobe_ctlblk *kcb)
{
	if (kprobe_status_get(kcb) == KPROBE_REENTER)
		kprobe_pop_outer(kcb);
	else
		reset_current_kprobe();
}

/* Is the current probe's copy running from the stepping slot? */
static __always_inline bool kprobe_stepping(struct kprobe_ctlblk *kcb)
{
	unsigned long status = kprobe_status_get(kcb);

	return status == KPROBE_HIT_SS || status == KPROBE_REENTER;
}
#endif /* ARCH_KPROBE_CTLBLK_OUTER */

kprobe_opcode_t *kprobe_lookup_name(const char *name, unsigned int offset);
kprobe_opcode_t *arch_adjust_kprobe_addr(unsigned long addr,
					 unsigned long offset,
					 bool *on_func_entry);

int register_kprobe(struct kprobe *p);
void unregister_kprobe(struct kprobe *p);
int register_kprobes(struct kprobe **kps, int num);
void unregister_kprobes(struct kprobe **kps, int num);

/* Return hooks of a dying task are rethook's business (rethook_flush_task()). */
#define kprobe_flush_task(tk)	do {} while (0)

void kprobe_free_init_mem(void);

int disable_kprobe(struct kprobe *kp);
int enable_kprobe(struct kprobe *kp);

void dump_kprobe(struct kprobe *kp);

void *alloc_insn_page(void);

void *alloc_optinsn_page(void);
void free_optinsn_page(void *page);

int kprobe_get_kallsym(unsigned int symnum, unsigned long *value, char *type,
		       char *sym);

int arch_kprobe_get_kallsym(unsigned int *symnum, unsigned long *value,
			    char *type, char *sym);

int kprobe_exceptions_notify(struct notifier_block *self,
			     unsigned long val, void *data);

#else /* !CONFIG_KPROBES */

static inline int kprobe_fault_handler(struct pt_regs *regs, int trapnr)
{
	return 0;
}

static inline struct kprobe *get_kprobe(void *addr)
{
	return NULL;
}

static inline struct kprobe *kprobe_running(void)
{
	return NULL;
}

#define kprobe_busy_begin()	do {} while (0)
#define kprobe_busy_end()	do {} while (0)

static inline int register_kprobe(struct kprobe *p)
{
	return -EOPNOTSUPP;
}

static inline int register_kprobes(struct kprobe **kps, int num)
{
	return -EOPNOTSUPP;
}

static inline void unregister_kprobe(struct kprobe *p) { }
static inline void unregister_kprobes(struct kprobe **kps, int num) { }

static inline void kprobe_flush_task(struct task_struct *tk) { }
static inline void kprobe_free_init_mem(void) { }
static inline void kprobe_ftrace_kill(void) { }

static inline int disable_kprobe(struct kprobe *kp)
{
	return -EOPNOTSUPP;
}

static inline int enable_kprobe(struct kprobe *kp)
{
	return -EOPNOTSUPP;
}

static inline bool within_kprobe_blacklist(unsigned long addr)
{
	return true;
}

static inline int kprobe_get_kallsym(unsigned int symnum, unsigned long *value,
				     char *type, char *sym)
{
	return -ERANGE;
}
#endif /* CONFIG_KPROBES */

/* Return probes need rethook (KRETPROBES); without, registering fails. */
#ifdef CONFIG_KRETPROBES
int register_kretprobe(struct kretprobe *rp);
void unregister_kretprobe(struct kretprobe *rp);
int register_kretprobes(struct kretprobe **rps, int num);
void unregister_kretprobes(struct kretprobe **rps, int num);
#else
static inline int register_kretprobe(struct kretprobe *rp)
{
	return -EOPNOTSUPP;
}

static inline int register_kretprobes(struct kretprobe **rps, int num)
{
	return -EOPNOTSUPP;
}

static inline void unregister_kretprobe(struct kretprobe *rp) { }
static inline void unregister_kretprobes(struct kretprobe **rps, int num) { }
#endif

#ifdef CONFIG_JPROBES
int register_jprobe(struct jprobe *jp);
void unregister_jprobe(struct jprobe *jp);
int register_jprobes(struct jprobe **jps, int num);
void unregister_jprobes(struct jprobe **jps, int num);
#else
static inline int register_jprobe(struct jprobe *jp)
{
	return -EOPNOTSUPP;
}

static inline int register_jprobes(struct jprobe **jps, int num)
{
	return -EOPNOTSUPP;
}

static inline void unregister_jprobe(struct jprobe *jp) { }
static inline void unregister_jprobes(struct jprobe **jps, int num) { }
#endif

/**
 * disable_jprobe() - stop a jprobe's handler from running
 * @jp: a registered jprobe
 *
 * Return: 0, or -EINVAL if @jp is not registered.
 * Context: process, may sleep.  See disable_kprobe().
 */
static inline int disable_jprobe(struct jprobe *jp)
{
	return disable_kprobe(&jp->kp);
}

/**
 * enable_jprobe() - let a disabled jprobe's handler run again
 * @jp: a registered jprobe
 *
 * Return: 0, -EINVAL if @jp is not registered or its code is gone, or
 * an error from arming it.
 * Context: process, may sleep.  See enable_kprobe().
 */
static inline int enable_jprobe(struct jprobe *jp)
{
	return enable_kprobe(&jp->kp);
}

/**
 * jprobe_return() - end of a jprobe handler (does nothing)
 *
 * Handlers written for the old jprobes had to call it last, to get back
 * to the probed function; a handler now simply returns.  Kept so that
 * such handlers build and work unchanged.
 */
static inline void jprobe_return(void)
{
}

static inline int disable_kretprobe(struct kretprobe *rp)
{
	return disable_kprobe(&rp->kp);
}

static inline int enable_kretprobe(struct kretprobe *rp)
{
	return enable_kprobe(&rp->kp);
}

#ifndef CONFIG_KPROBES
static inline bool is_kprobe_insn_slot(unsigned long addr)
{
	return false;
}
#endif

#ifndef CONFIG_OPTPROBES
static inline bool is_kprobe_optinsn_slot(unsigned long addr)
{
	return false;
}
#endif

#ifdef CONFIG_KRETPROBES
static nokprobe_inline bool is_kretprobe_trampoline(unsigned long addr)
{
	return is_rethook_trampoline(addr);
}

static nokprobe_inline unsigned long
kretprobe_find_ret_addr(struct task_struct *tsk, void *fp,
			struct llist_node **cur)
{
	return rethook_find_ret_addr(tsk, (unsigned long)fp, cur);
}
#else
static nokprobe_inline bool is_kretprobe_trampoline(unsigned long addr)
{
	return false;
}

static nokprobe_inline unsigned long
kretprobe_find_ret_addr(struct task_struct *tsk, void *fp,
			struct llist_node **cur)
{
	return 0;
}
#endif

/*
 * Called from the page fault handler: true if a probe on this CPU was
 * single-stepping the faulting instruction and took care of the fault.
 */
static nokprobe_inline bool kprobe_page_fault(struct pt_regs *regs,
					      unsigned int trap)
{
	if (!IS_ENABLED(CONFIG_KPROBES))
		return false;
	if (user_mode(regs))
		return false;
	/* kprobe_running() is only meaningful without preemption. */
	if (preemptible())
		return false;
	if (!kprobe_running())
		return false;
	return kprobe_fault_handler(regs, trap);
}

#endif /* _LINUX_KPROBES_H */
