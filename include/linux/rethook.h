/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rethook: hook the return of a function from its entry.
 *
 * A user (kretprobes, fprobe) calls rethook_try_get() and rethook_hook()
 * at a function entry, with its entry handler in between
 * (or rethook_try_hook(), both in one, from a kprobe with nothing to do in
 * between); when the function returns, it returns into
 * arch_rethook_trampoline(), which calls the rethook's handler and then
 * goes back to the real caller.
 *
 * Every hooked call is described by a node which carries the user's
 * private data behind it.  Nodes come first from a small per-task area
 * (so that a default rethook never misses a return, whatever the number
 * of calls in flight), and otherwise from a per-rethook pool of @num
 * nodes given at rethook_alloc().  @num also bounds how many calls of one
 * rethook may be pending in one task (nesting depth), as maxactive did.
 */
#ifndef _LINUX_RETHOOK_H
#define _LINUX_RETHOOK_H

#include <linux/compiler.h>
#include <linux/irq_work_types.h>
#include <linux/kallsyms.h>
#include <linux/llist.h>
#include <linux/rcupdate.h>
#include <linux/types.h>
#include <linux/workqueue.h>

struct pt_regs;
struct task_struct;
struct rethook_node;

/**
 * typedef rethook_handler_t - return hook handler
 * @node: the node given by rethook_try_get() for this call
 * @data: the @data given to rethook_alloc()
 * @ret_addr: the real return address of the hooked call
 * @regs: registers at the return; regs->ax is the return value
 *
 * Runs in the context the hooked function returned in, with preemption
 * disabled.
 */
typedef void (*rethook_handler_t)(struct rethook_node *node, void *data,
				  unsigned long ret_addr, struct pt_regs *regs);

/**
 * enum rethook_miss - why the return of a call was not hooked
 * @RETHOOK_MISS_NEST_FULL: the task has @num calls of this rethook in
 *	flight already (recursion deeper than the owner allows).
 * @RETHOOK_MISS_NO_MEM: the task's area and the rethook's pool were both
 *	full (other tasks hold the pool, and this one has no room of its
 *	own): storage ran out, no limit was reached.
 * @RETHOOK_MISS_STOPPED: the rethook was stopped (its owner is going).
 * @RETHOOK_MISS_NO_RCU: RCU was not watching the CPU.
 * @RETHOOK_MISS_ORDER: the call was entered below a newer hooked call
 *	(the hook is made from inside a function whose own return is
 *	hooked, such as a probe's handler under an fprobe exit): that one
 *	returns first, and would find this older call's node on top.
 * @RETHOOK_MISS_NR: the number of reasons.
 */
enum rethook_miss {
	RETHOOK_MISS_NEST_FULL,
	RETHOOK_MISS_NO_MEM,
	RETHOOK_MISS_STOPPED,
	RETHOOK_MISS_NO_RCU,
	RETHOOK_MISS_ORDER,
	RETHOOK_MISS_NR,
};

struct rethook_pcpu {
	long			inflight;
	unsigned long		missed[RETHOOK_MISS_NR];
};

/**
 * struct rethook - a return hook shared by many calls
 * @data: the owner's cookie, passed to @handler; it never changes, so a
 *	node holder may read it at any time (see get_kretprobe()).
 * @handler: the return handler, NULL once the rethook is stopped.
 * @node_size: size of one node with the owner's data behind it.
 * @pool_size: number of nodes in @pool, and how many calls may be in
 *	flight per task.
 * @pool: fallback nodes, @node_size bytes apart.
 * @pool_busy: bitmap of the @pool nodes in use.
 * @pcpu: per-CPU counts: nodes taken and not yet released (only the sum
 *	over all CPUs means anything), and calls rethook_try_get() could
 *	not hook, by reason (rethook_nmissed()).
 * @reap_state: where freeing stands (internal bits).
 * @reap_rcu: waits for a grace period after rethook_free(), and for one
 *	more once the nodes in flight were seen at zero.
 * @reap: sums the nodes in flight again, kicked by @kick.
 * @kick: queued by the release of a node of a stopped rethook.
 *
 * Allocated by rethook_alloc() and freed by the rethook itself once the
 * owner called rethook_free() and the last hooked call has returned (or
 * its task has gone).  Don't embed it in another structure.
 */
struct rethook {
	void			*data;
	rethook_handler_t	handler;
	unsigned int		node_size;
	unsigned int		pool_size;
	void			*pool;
	unsigned long		*pool_busy;
	struct rethook_pcpu __percpu *pcpu;
	unsigned long		reap_state;
	struct rcu_work		reap_rcu;
	struct work_struct	reap;
	struct irq_work		kick;
};

/**
 * struct rethook_node - one hooked call
 * @llist: link in the task's list of pending nodes, newest first.
 * @rethook: the rethook this node belongs to.
 * @ret_addr: the real return address of the hooked call.
 * @frame: the stack address that held @ret_addr (arch defined).
 * @where: where the node is stored: per-task area offset or pool index
 *	(internal).
 *
 * Owners embed this as the first member of their own per-call
 * structure (the @size passed to rethook_alloc() covers both) and get
 * back to it with container_of().  The owner's part is not cleared
 * between uses.
 */
struct rethook_node {
	struct llist_node	llist;
	struct rethook		*rethook;
	unsigned long		ret_addr;
	unsigned long		frame;
	unsigned long		where;
};

struct rethook *rethook_alloc(void *data, rethook_handler_t handler, int size,
			      int num);
void rethook_stop(struct rethook *rh);
void rethook_free(struct rethook *rh);
struct rethook_node *rethook_try_get(struct rethook *rh, struct pt_regs *regs);
void rethook_recycle(struct rethook_node *node);
bool rethook_hook(struct rethook_node *node, struct pt_regs *regs, bool mcount);
bool rethook_try_hook(struct rethook *rh, struct pt_regs *regs, bool mcount);
unsigned long rethook_nmissed(struct rethook *rh, enum rethook_miss why);
unsigned long rethook_find_ret_addr(struct task_struct *tsk,
				    unsigned long frame,
				    struct llist_node **cur);

/*
 * The architecture provides these.
 *
 * arch_rethook_prepare(): at a function entry (@regs as seen there),
 * save the return address and its stack slot in @node and make the
 * function return to arch_rethook_trampoline().  Any context.
 *
 * arch_rethook_trampoline(): asm stub that builds a struct pt_regs and
 * calls rethook_trampoline_handler(), then returns to the address that
 * arch_rethook_fixup_return() put in place.  Never called directly.
 *
 * arch_rethook_fixup_return(): put @correct_ret_addr where the
 * trampoline will return to.  Called from rethook_trampoline_handler().
 */
void arch_rethook_prepare(struct rethook_node *node, struct pt_regs *regs,
			  bool mcount);
void arch_rethook_trampoline(void);
void arch_rethook_fixup_return(struct pt_regs *regs,
			       unsigned long correct_ret_addr);

/**
 * is_rethook_trampoline() - is @addr the return trampoline?
 * @addr: a (return) address
 *
 * Return: true if @addr is the address hooked returns go to.
 */
static inline bool is_rethook_trampoline(unsigned long addr)
{
	return addr == (unsigned long)dereference_symbol_descriptor(arch_rethook_trampoline);
}

/* Called by the arch trampoline only. */
unsigned long rethook_trampoline_handler(struct pt_regs *regs,
					 unsigned long frame);

#if IS_ENABLED(CONFIG_RETHOOK_KUNIT_TEST)
/* Test hooks of the rethook KUnit suite; see kernel/trace/rethook.c. */
void *rethook_kunit_take_area(void);
bool rethook_kunit_give_area(void *area);
void rethook_kunit_stats(int *live, long *sums);
long rethook_kunit_areas(void);
long rethook_kunit_visits(void);
bool rethook_kunit_flushed(struct task_struct *tsk);
bool rethook_kunit_release_pending(void);
void rethook_kunit_release_areas(void);
#endif

#ifdef CONFIG_RETHOOK
void rethook_flush_task(struct task_struct *tk);
#else
static inline void rethook_flush_task(struct task_struct *tk) { }
#endif

#endif /* _LINUX_RETHOOK_H */
