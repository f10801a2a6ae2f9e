// SPDX-License-Identifier: GPL-2.0
/*
 * rethook: generic return hooking.
 *
 * Storage.  A hooked call needs a node (struct rethook_node plus the
 * owner's data) from its entry until its return.  Every task gets a
 * small area (struct rethook_task) when a rethook is allocated and none
 * exists yet (for the tasks alive then, in one walk of the task list) or
 * when it is created while rethooks exist (task_newtask tracepoint),
 * both in a context that may allocate.  Some time after the last
 * rethook is freed, the areas are taken back and the tracepoint goes
 * (rethook_tasks_release_fn()): a kernel that no longer hooks returns
 * pays nothing per task.  A task's hooked
 * calls return in the reverse order they were hooked in: nested
 * interrupts and NMIs on the same CPU finish before the code they
 * interrupted goes on.  So the area is used as a stack: taking a node
 * moves its top up, returning moves it back.  The hit path never
 * allocates and never takes a lock, and the number of calls in flight
 * is not limited by anything but the depth of each task's nesting: @num
 * (maxactive) bounds the calls of one rethook in flight per task, that
 * is its nesting or recursion depth, not the number of sleeping tasks.
 * When the area is full (deep recursion, or owner data larger than the
 * area), the node comes from the rethook's own pool of @num nodes, and
 * only when that is exhausted too is the call missed.
 *
 * Pending nodes of a task are kept on a list, newest first, in its area;
 * the task_struct's rethooks member points to the area.  The trampoline
 * handler and the unwinder (rethook_find_ret_addr()) walk that list.
 * The unwinder may walk another task's list while that task dies, so an
 * area is freed only after an RCU grace period, as the pools are, and
 * such walks are RCU readers.
 *
 * A task whose area could not be allocated (GFP_NOWAIT at fork, or
 * short of memory when the areas were handed out) is "bare": its nodes
 * come from the pools, and task_struct::rethooks.first itself heads the
 * pending list, tagged with RETHOOK_BARE (NULL when it is empty).  Only
 * the task pushes and pops that list; another CPU may only install an
 * area, with a cmpxchg from NULL, so the task pushes with a cmpxchg and
 * finds the area if one arrived.  The next rethook_alloc() tries again
 * to give such tasks an area.
 *
 * Lifetime.  A rethook counts its nodes in flight per CPU.  After
 * rethook_free() no node can be taken (checked under RCU), so once a
 * grace period has passed the count only goes down.  Then the count is
 * summed once; if calls are still in flight, the rethook waits without
 * polling: whoever releases a node of a stopped rethook kicks (an
 * irq_work, NMI-safe) a new sum.  At zero, one more grace period for the
 * releaser that brought it there, and the rethook is freed.  A call
 * that never returns keeps its rethook's memory, and nothing else.
 */
#define pr_fmt(fmt) "rethook: " fmt

#include <linux/bitops.h>
#include <linux/context_tracking.h>
#include <linux/irq_work.h>
#include <linux/kprobes.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/rethook.h>
#include <linux/sched.h>
#include <linux/uaccess.h>
#include <linux/sched/stat.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/thread_info.h>
#include <trace/events/task.h>

/* Bytes per task, header included: a kmalloc-1k object. */
#define RETHOOK_TASK_BYTES	1024
/* Areas allocated beyond the tasks counted, for those forked during the fill. */
#define RETHOOK_FILL_SLACK	64
/* How long the areas stay after the last rethook went. */
#define RETHOOK_AREAS_LINGER	(10 * HZ)
/* The longest pending list the unwinder walks in another task. */
#define RETHOOK_WALK_MAX	8192
/* task_struct::rethooks.first of a bare task: a tagged pending node. */
#define RETHOOK_BARE		1UL

/* rethook::reap_state bits. */
#define RETHOOK_REAP_WAITING	0	/* a grace period after rethook_free() */
#define RETHOOK_REAP_DRAINED	1	/* nothing in flight; freeing */

/* node->where: the node lives in a pool (index) or a task area (offset). */
#define RETHOOK_WHERE_POOL	1UL
#define RETHOOK_WHERE_SHIFT	1

/**
 * struct rethook_task - per-task node area and pending list
 * @self: what task_struct::rethooks.first points to.
 * @rcu: frees the area after a grace period.
 * @pending: hooked calls of this task that have not returned, newest first.
 * @top: bytes of @area in use.
 * @size: bytes in @area.
 * @area: node storage, used as a stack.
 *
 * Only the task itself changes it (in any of its contexts, each of which
 * leaves it as it found it before the interrupted one goes on), except
 * rethook_flush_task() after the task is gone.
 */
struct rethook_task {
	struct llist_node	self;
	struct rcu_head		rcu;
	struct llist_head	pending;
	unsigned int		top;
	unsigned int		size;
	unsigned long		area[];
};

#if IS_ENABLED(CONFIG_RETHOOK_KUNIT_TEST)
/* For the KUnit suite: rethooks not yet freed, and sums of a count. */
static atomic_t rethook_nr_live;
static atomic_long_t rethook_nr_sums;
/* Task areas allocated and not yet freed; tasks visited to hand them out. */
static atomic_long_t rethook_nr_areas, rethook_nr_visits;

static inline void rethook_count_area(long n)
{
	atomic_long_add(n, &rethook_nr_areas);
}

static inline void rethook_count_visit(void)
{
	atomic_long_inc(&rethook_nr_visits);
}
#else
static inline void rethook_count_area(long n) { }
static inline void rethook_count_visit(void) { }
#endif

/* task_struct::rethooks.first of a task that rethook_flush_task() saw. */
static struct llist_node rethook_task_gone;

/* Guards the three below and the task_newtask tracepoint. */
static DEFINE_MUTEX(rethook_tasks_lock);
/* Areas are handed out: the tracepoint is registered. */
static bool rethook_tasks_on;
/* Some task got no area: the next rethook_alloc() hands them out again. */
static bool rethook_tasks_short;
/* Rethooks allocated and not yet freed. */
static unsigned int rethook_nr_users;

static __always_inline bool rethook_is_bare(unsigned long first)
{
	return !first || (first & RETHOOK_BARE);
}

/* Any context. */
static __always_inline struct rethook_task *rethook_task_of(struct task_struct *tsk)
{
	unsigned long first = (unsigned long)READ_ONCE(tsk->rethooks.first);

	if (rethook_is_bare(first) || first == (unsigned long)&rethook_task_gone)
		return NULL;
	return container_of((struct llist_node *)first, struct rethook_task, self);
}

/*
 * The current task's area, or NULL if it is bare.  A running task is
 * never gone (rethook_flush_task() comes after its last schedule).
 */
static __always_inline struct rethook_task *rethook_task_current(void)
{
	unsigned long first = (unsigned long)READ_ONCE(current->rethooks.first);

	if (unlikely(rethook_is_bare(first)))
		return NULL;
	return container_of((struct llist_node *)first, struct rethook_task, self);
}

/*
 * The newest pending node of @tsk, whose area is @rt (NULL: bare).
 * Context: @tsk's own, or @tsk not running.
 */
static __always_inline struct llist_node *
rethook_pending_first(struct task_struct *tsk, struct rethook_task *rt)
{
	unsigned long first;

	if (likely(rt))
		return READ_ONCE(rt->pending.first);
	first = (unsigned long)READ_ONCE(tsk->rethooks.first);
	if (first == (unsigned long)&rethook_task_gone)
		return NULL;
	return (struct llist_node *)(first & ~RETHOOK_BARE);
}

/*
 * Make @next the newest pending node of the current task (a pop).
 * A bare list is not empty here, so nobody else may write the word.
 */
static __always_inline void rethook_pending_set(struct rethook_task *rt,
						struct llist_node *next)
{
	if (likely(rt))
		WRITE_ONCE(rt->pending.first, next);
	else
		WRITE_ONCE(current->rethooks.first,
			   next ? (void *)((unsigned long)next | RETHOOK_BARE) : NULL);
}

/*
 * Is RCU watching this CPU?  The inline form where context tracking
 * provides one.  Context: preemption disabled.
 */
static __always_inline bool rethook_rcu_watching(void)
{
#ifdef CONFIG_CONTEXT_TRACKING_IDLE
	return rcu_is_watching_curr_cpu();
#else
	return rcu_is_watching();
#endif
}

static struct rethook_task *rethook_task_new(gfp_t gfp)
{
	struct rethook_task *rt = kmalloc(RETHOOK_TASK_BYTES, gfp);

	if (!rt)
		return NULL;
	rt->self.next = NULL;
	init_llist_head(&rt->pending);
	rt->top = 0;
	rt->size = RETHOOK_TASK_BYTES - sizeof(*rt);
	rethook_count_area(1);
	return rt;
}

/* An area that no task ever had. */
static void rethook_task_discard(struct rethook_task *rt)
{
	rethook_count_area(-1);
	kfree(rt);
}

/*
 * An area that a task had: the unwinder may still walk it.  Context:
 * any but NMI.
 */
static void rethook_task_free(struct rethook_task *rt)
{
	rethook_count_area(-1);
	kfree_rcu(rt, rcu);
}

/*
 * Give @tsk the area @rt unless it has one or is gone.  Return: whether
 * @tsk took it.  Context: @tsk is safe to touch (a reference or RCU).
 */
static bool rethook_task_install(struct task_struct *tsk, struct rethook_task *rt)
{
	struct llist_node *none = NULL;

	return try_cmpxchg(&tsk->rethooks.first, &none, &rt->self);
}

/* task_newtask tracepoint: the new task has not run yet.  Atomic context. */
static void rethook_task_newtask(void *data, struct task_struct *tsk,
				 unsigned long clone_flags)
{
	struct rethook_task *rt = rethook_task_new(GFP_NOWAIT | __GFP_NOWARN);

	if (!rt)
		WRITE_ONCE(rethook_tasks_short, true);
	else if (!rethook_task_install(tsk, rt))
		rethook_task_discard(rt);
}

static bool rethook_task_wants_area(struct task_struct *tsk)
{
	return !READ_ONCE(tsk->rethooks.first);
}

/* Call @fn on every task, the idle tasks included, in one RCU walk. */
static void rethook_each_task(void (*fn)(struct task_struct *t, void *arg),
			      void *arg)
{
	struct task_struct *g, *t;
	int cpu;

	rcu_read_lock();
	for_each_possible_cpu(cpu) {
		t = idle_task(cpu);
		if (t)
			fn(t, arg);
	}
	for_each_process_thread(g, t)
		fn(t, arg);
	rcu_read_unlock();
}

/* Areas to hand out in one walk: @n in @spare, @used of them given. */
struct rethook_fill {
	struct rethook_task	**spare;
	unsigned int		n;
	unsigned int		used;
	unsigned int		wanting;
	bool			enough;
};

/* Count @t if it has no area (a refill allocates for those only). */
static void rethook_task_count_bare(struct task_struct *t, void *arg)
{
	struct rethook_fill *f = arg;

	f->wanting += rethook_task_wants_area(t);
}

/* Give @t the next spare area if it has none; note when none is left. */
static void rethook_task_offer(struct task_struct *t, void *arg)
{
	struct rethook_fill *f = arg;

	rethook_count_visit();
	if (!rethook_task_wants_area(t))
		return;
	if (f->used == f->n) {
		f->enough = false;
		return;
	}
	if (rethook_task_install(t, f->spare[f->used]))
		f->used++;
}

/*
 * Give every task an area: new tasks from now on through the tracepoint,
 * existing ones here.  The areas are allocated first, one for every task
 * there is and a few more, then handed out in a single walk of the task
 * list; a task created meanwhile gets its own from the tracepoint.
 * Context: process, may sleep; rethook_tasks_lock.
 */
static void rethook_tasks_fill(void)
{
	struct rethook_fill f = { .enough = true };
	unsigned int want, i;

	lockdep_assert_held(&rethook_tasks_lock);

	if (rethook_tasks_on) {
		/*
		 * A refill, after a fork found no memory for an area: only
		 * the tasks that went without, not one area per thread
		 * again, which under the same memory pressure would fail
		 * and leave the next rethook_alloc() to try it all over.
		 */
		rethook_each_task(rethook_task_count_bare, &f);
		want = f.wanting + RETHOOK_FILL_SLACK;
	} else {
		if (register_trace_task_newtask(rethook_task_newtask, NULL))
			pr_warn("no task_newtask tracepoint: new tasks get no return stack\n");
		want = READ_ONCE(nr_threads) + num_possible_cpus() +
		       RETHOOK_FILL_SLACK;
	}
	WRITE_ONCE(rethook_tasks_short, false);

	f.spare = kvmalloc_array(want, sizeof(*f.spare), GFP_KERNEL);
	for (f.n = 0; f.spare && f.n < want; f.n++) {
		f.spare[f.n] = rethook_task_new(GFP_KERNEL);
		if (!f.spare[f.n])
			break;
		cond_resched();
	}

	rethook_each_task(rethook_task_offer, &f);

	for (i = f.used; i < f.n; i++)
		rethook_task_discard(f.spare[i]);
	kvfree(f.spare);
	if (!f.enough) {
		WRITE_ONCE(rethook_tasks_short, true);
		pr_warn("out of memory: some tasks hook returns from the pools only\n");
	}
}

/* Take @t's area back.  Context: rethook_tasks_release_fn(). */
static void rethook_task_take_back(struct task_struct *t, void *arg)
{
	struct llist_node *first = READ_ONCE(t->rethooks.first);
	struct rethook_task *rt;

	if (rethook_is_bare((unsigned long)first) || first == &rethook_task_gone)
		return;
	rt = container_of(first, struct rethook_task, self);
	/* No rethook exists, so no hooked call can be pending. */
	if (WARN_ON_ONCE(READ_ONCE(rt->pending.first)))
		return;
	/* Unless the task is being flushed right now, which frees it. */
	if (try_cmpxchg(&t->rethooks.first, &first, NULL))
		rethook_task_free(rt);
}

/*
 * The last rethook went a while ago: stop giving new tasks an area, and
 * take back those of the tasks there are.  A rethook allocated
 * meanwhile keeps them.  Context: workqueue.
 */
static void rethook_tasks_release_fn(struct work_struct *work)
{
	mutex_lock(&rethook_tasks_lock);
	if (rethook_nr_users || !rethook_tasks_on)
		goto out;
	unregister_trace_task_newtask(rethook_task_newtask, NULL);
	/* No tracepoint call may hand out an area after the walk. */
	tracepoint_synchronize_unregister();
	WRITE_ONCE(rethook_tasks_on, false);
	WRITE_ONCE(rethook_tasks_short, false);

	rethook_each_task(rethook_task_take_back, NULL);
out:
	mutex_unlock(&rethook_tasks_lock);
}

static DECLARE_DELAYED_WORK(rethook_tasks_release, rethook_tasks_release_fn);

/*
 * A rethook is being allocated: hand out the areas, the first time or
 * again for tasks that got none.  Context: process, may sleep.
 */
static void rethook_tasks_get(void)
{
	mutex_lock(&rethook_tasks_lock);
	rethook_nr_users++;
	/* A release that already runs waits for the lock, then sees us. */
	cancel_delayed_work(&rethook_tasks_release);
	if (!rethook_tasks_on || READ_ONCE(rethook_tasks_short)) {
		rethook_tasks_fill();
		WRITE_ONCE(rethook_tasks_on, true);
	}
	mutex_unlock(&rethook_tasks_lock);
}

/* A rethook was freed.  Context: process, may sleep. */
static void rethook_tasks_put(void)
{
	mutex_lock(&rethook_tasks_lock);
	if (!--rethook_nr_users)
		schedule_delayed_work(&rethook_tasks_release,
				      RETHOOK_AREAS_LINGER);
	mutex_unlock(&rethook_tasks_lock);
}

/*
 * Take @size bytes from the top of @rt's area.  Any context of the task
 * that owns @rt.
 */
static __always_inline struct rethook_node *
rethook_area_take(struct rethook_task *rt, unsigned int size)
{
	unsigned int top = READ_ONCE(rt->top);
	struct rethook_node *node;

	if (size > rt->size - top)
		return NULL;
	WRITE_ONCE(rt->top, top + size);
	barrier();
	node = (struct rethook_node *)((char *)rt->area + top);
	node->where = (unsigned long)top << RETHOOK_WHERE_SHIFT;
	return node;
}

/*
 * Does the current task have @rh's limit of calls in flight already?
 * Context: the task's own, on the hit path.
 */
static __always_inline bool rethook_nest_full(struct llist_node *pos,
					      struct rethook *rh)
{
	unsigned int n = 0;

	for (; pos; pos = pos->next) {
		if (llist_entry(pos, struct rethook_node, llist)->rethook == rh &&
		    ++n >= rh->pool_size)
			return true;
	}
	return false;
}

/* Take a free node of @rh's pool.  Any context. */
static __always_inline struct rethook_node *rethook_pool_take(struct rethook *rh)
{
	unsigned int nwords = BITS_TO_LONGS(rh->pool_size);
	unsigned int first = raw_smp_processor_id() % nwords;
	unsigned int w, i, idx;
	unsigned long busy;
	struct rethook_node *node;

	for (w = 0; w < nwords; w++) {
		i = (first + w) % nwords;
		busy = READ_ONCE(rh->pool_busy[i]);
		while (~busy) {
			idx = i * BITS_PER_LONG + __ffs(~busy);
			if (idx >= rh->pool_size)
				break;
			if (!test_and_set_bit_lock(idx, rh->pool_busy)) {
				node = rh->pool + (size_t)idx * rh->node_size;
				node->where = ((unsigned long)idx << RETHOOK_WHERE_SHIFT) |
					      RETHOOK_WHERE_POOL;
				return node;
			}
			busy = READ_ONCE(rh->pool_busy[i]);
		}
	}
	return NULL;
}

/*
 * Give @node's storage back and drop its count.  @node must not be
 * touched afterwards; its rethook stays until the caller's preemption-
 * disabled section ends, for rethook_kick().  A bare task (@rt NULL)
 * only has pool nodes.  Context: the task's own, preemption disabled
 * (or the task is gone).
 */
static __always_inline void rethook_node_release(struct rethook_task *rt,
						 struct rethook_node *node)
{
	struct rethook *rh = node->rethook;
	unsigned long where = node->where;

	if (where & RETHOOK_WHERE_POOL)
		clear_bit_unlock(where >> RETHOOK_WHERE_SHIFT, rh->pool_busy);
	else
		WRITE_ONCE(rt->top, where >> RETHOOK_WHERE_SHIFT);
	this_cpu_dec(rh->pcpu->inflight);
}

/*
 * A node of a stopped rethook was released: have its count summed
 * again, it may be the last.  Context: any, NMI included; @rh must be
 * alive (released from within the same preemption-disabled section).
 */
static void rethook_kick(struct rethook *rh)
{
	irq_work_queue(&rh->kick);
}
NOKPROBE_SYMBOL(rethook_kick);

static long rethook_inflight(struct rethook *rh)
{
	long sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += READ_ONCE(per_cpu_ptr(rh->pcpu, cpu)->inflight);
	return sum;
}

/*
 * Sum the count of a stopped rethook whose grace period is over; at zero
 * wait one more grace period for the releaser that brought it there
 * (it may still be in rethook_kick()).  Otherwise a later release kicks
 * this again.  Context: workqueue.
 */
static void rethook_reap_check(struct rethook *rh)
{
#if IS_ENABLED(CONFIG_RETHOOK_KUNIT_TEST)
	atomic_long_inc(&rethook_nr_sums);
#endif
	if (rethook_inflight(rh))
		return;
	if (test_and_set_bit(RETHOOK_REAP_DRAINED, &rh->reap_state))
		return;
	queue_rcu_work(system_wq, &rh->reap_rcu);
}

/* After the grace period of rethook_free(), and after the last one. */
static void rethook_reap_rcu(struct work_struct *work)
{
	struct rethook *rh = container_of(to_rcu_work(work), struct rethook,
					  reap_rcu);

	if (!test_bit(RETHOOK_REAP_DRAINED, &rh->reap_state)) {
		set_bit(RETHOOK_REAP_WAITING, &rh->reap_state);
		/* Kicks count from now on; pairs with rethook_kick_fn(). */
		smp_mb__after_atomic();
		rethook_reap_check(rh);
		return;
	}
	irq_work_sync(&rh->kick);
	cancel_work_sync(&rh->reap);
	kvfree(rh->pool);
	bitmap_free(rh->pool_busy);
	free_percpu(rh->pcpu);
	kfree(rh);
#if IS_ENABLED(CONFIG_RETHOOK_KUNIT_TEST)
	atomic_dec(&rethook_nr_live);
#endif
	rethook_tasks_put();
}

static void rethook_reap_work(struct work_struct *work)
{
	rethook_reap_check(container_of(work, struct rethook, reap));
}

/* Context: hard interrupt (irq_work). */
static void rethook_kick_fn(struct irq_work *work)
{
	struct rethook *rh = container_of(work, struct rethook, kick);

	/* The release before the kick is seen by the sum, or ... */
	smp_mb();
	/* ... the sum runs after this, pairs with rethook_reap_rcu(). */
	if (test_bit(RETHOOK_REAP_WAITING, &rh->reap_state))
		queue_work(system_wq, &rh->reap);
}

/**
 * rethook_alloc() - create a return hook
 * @data: the owner's cookie, passed to @handler and kept in rethook::data.
 * @handler: called at every hooked return, see rethook_handler_t.
 * @size: bytes per node: struct rethook_node at offset 0 and the owner's
 *	data behind it.
 * @num: how many calls hooked by this rethook may be in flight in one
 *	task (nesting, recursion); also the number of nodes in the fallback
 *	pool, used when a task's own area is full (deep nesting, large @size).
 *	The number of tasks with calls in flight is not limited.
 *
 * While no rethook exists, tasks have no return area: a call then gives
 * one to every task (and to every task created while rethooks exist),
 * so it may take a while.
 *
 * Context: process, may sleep.
 * Return: the rethook, or an ERR_PTR(): -EINVAL for bad arguments,
 * -ENOMEM.
 */
struct rethook *rethook_alloc(void *data, rethook_handler_t handler, int size,
			      int num)
{
	struct rethook *rh;

	if (!handler || num <= 0 || size < (int)sizeof(struct rethook_node))
		return ERR_PTR(-EINVAL);

	rh = kzalloc(sizeof(*rh), GFP_KERNEL);
	if (!rh)
		return ERR_PTR(-ENOMEM);
	rh->node_size = ALIGN(size, sizeof(long));
	rh->pool_size = num;
	rh->pool = kvcalloc(num, rh->node_size, GFP_KERNEL);
	rh->pool_busy = bitmap_zalloc(num, GFP_KERNEL);
	rh->pcpu = alloc_percpu(struct rethook_pcpu);
	if (!rh->pool || !rh->pool_busy || !rh->pcpu) {
		kvfree(rh->pool);
		bitmap_free(rh->pool_busy);
		free_percpu(rh->pcpu);
		kfree(rh);
		return ERR_PTR(-ENOMEM);
	}
	rethook_tasks_get();
	INIT_RCU_WORK(&rh->reap_rcu, rethook_reap_rcu);
	INIT_WORK(&rh->reap, rethook_reap_work);
	init_irq_work(&rh->kick, rethook_kick_fn);
	rh->data = data;
	rh->handler = handler;
#if IS_ENABLED(CONFIG_RETHOOK_KUNIT_TEST)
	atomic_inc(&rethook_nr_live);
#endif
	return rh;
}

/**
 * rethook_stop() - stop hooking new calls and calling the handler
 * @rh: the rethook
 *
 * rethook_try_get() fails from now on, and hooked calls that return from
 * now on go back to their callers without calling the handler.  A handler
 * that already started may still run: it runs with preemption disabled,
 * so after a following synchronize_rcu() none is running.
 *
 * Context: any.
 */
void rethook_stop(struct rethook *rh)
{
	WRITE_ONCE(rh->handler, NULL);
}

/**
 * rethook_free() - stop a rethook and let it go
 * @rh: the rethook
 *
 * Does rethook_stop() and hands @rh back: the memory goes once no hooked
 * call is in flight any more (calls that never return are counted out
 * when their task goes; until then the rethook waits for them without
 * polling).  The caller must not use @rh afterwards; it does not wait,
 * see rethook_stop() for when handlers are done.
 *
 * Context: process, softirq or hardirq; not NMI.
 */
void rethook_free(struct rethook *rh)
{
	rethook_stop(rh);
	queue_rcu_work(system_wq, &rh->reap_rcu);
}

/*
 * A node of @rh for the current call, whose task's area is @rt (NULL:
 * bare), or NULL with the miss counted.  Context: preemption disabled,
 * RCU watching.
 */
static __always_inline struct rethook_node *
rethook_take(struct rethook *rh, struct rethook_task *rt)
{
	struct rethook_node *node = NULL;
	enum rethook_miss why;

	this_cpu_inc(rh->pcpu->inflight);
	if (unlikely(!READ_ONCE(rh->handler))) {
		why = RETHOOK_MISS_STOPPED;
	} else if (!rethook_nest_full(rethook_pending_first(current, rt), rh)) {
		/* A bare task takes from the pool only. */
		if (likely(rt))
			node = rethook_area_take(rt, rh->node_size);
		if (unlikely(!node))
			node = rethook_pool_take(rh);
		why = RETHOOK_MISS_NO_MEM;
	} else {
		why = RETHOOK_MISS_NEST_FULL;
	}
	if (likely(node)) {
		node->rethook = rh;
		return node;
	}
	this_cpu_dec(rh->pcpu->inflight);
	this_cpu_inc(rh->pcpu->missed[why]);
	return NULL;
}

/**
 * rethook_nmissed() - calls that rethook_try_get() could not hook
 * @rh: the rethook, not yet freed
 * @why: for which reason
 *
 * Return: how many, since rethook_alloc().
 * Context: any.
 */
unsigned long rethook_nmissed(struct rethook *rh, enum rethook_miss why)
{
	unsigned long sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += READ_ONCE(per_cpu_ptr(rh->pcpu, cpu)->missed[why]);
	return sum;
}
EXPORT_SYMBOL_GPL(rethook_nmissed);

/* Give back an unhooked node of the current task, whose area is @rt. */
static __always_inline void rethook_give_back(struct rethook_node *node,
					      struct rethook_task *rt)
{
	struct rethook *rh = node->rethook;
	bool stopped = !READ_ONCE(rh->handler);

	rethook_node_release(rt, node);
	if (unlikely(stopped))
		rethook_kick(rh);
}

/**
 * rethook_recycle() - give back a node that was not hooked
 * @node: from rethook_try_get() in this context, not hooked
 *
 * Context: the one the node was taken in.
 */
void rethook_recycle(struct rethook_node *node)
{
	preempt_disable_notrace();
	rethook_give_back(node, rethook_task_current());
	preempt_enable_notrace();
}
NOKPROBE_SYMBOL(rethook_recycle);

/*
 * Push @node on the pending list of the current, bare task.  Another CPU
 * may give the task an area while its list is empty: then the node goes
 * on the area's list instead.  Context: as rethook_hook().
 */
static noinline void rethook_bare_push(struct rethook_node *node)
{
	unsigned long *first = (unsigned long *)&current->rethooks.first;
	unsigned long old = READ_ONCE(*first);
	struct rethook_task *rt;

	do {
		if (!rethook_is_bare(old)) {
			rt = container_of((struct llist_node *)old,
					  struct rethook_task, self);
			node->llist.next = rt->pending.first;
			barrier();
			WRITE_ONCE(rt->pending.first, &node->llist);
			return;
		}
		node->llist.next = (struct llist_node *)(old & ~RETHOOK_BARE);
	} while (!try_cmpxchg(first, &old,
			      (unsigned long)&node->llist | RETHOOK_BARE));
}
NOKPROBE_SYMBOL(rethook_bare_push);

/*
 * Is the newest pending node, @top, that of a call newer than the one
 * entered with @regs, and still running?  Returns come back newest
 * first, so a node must never go above a newer call's: that call would
 * return first, find this node on top and take it for one of a call
 * that did not return, and this call's return would then find none.
 * It happens when a call is hooked from inside a function whose own
 * return is hooked: an fprobe exit on a function of a kprobe's hit path
 * (kretprobe_entry(), the int3 handler) while a kretprobe is hit.
 *
 * A newer call's node has its frame below @regs' stack pointer (the
 * architectures record the return address slot, or the caller's frame
 * record, both at or above it); the call is still running if that
 * frame is above ours.  A node of another stack (an interrupted
 * context's) cannot lie between the two, which are on the current one.
 * Only the newest node needs a look: this check keeps the others in
 * order.  A node left by a call that did not return can still fall in
 * that range; the hook is then refused and counted, never lost.
 * Context: as rethook_hook().
 */
static __always_inline bool rethook_out_of_order(struct llist_node *top,
						 struct pt_regs *regs)
{
	unsigned long f;

	if (!top)
		return false;
	f = llist_entry(top, struct rethook_node, llist)->frame;
	return f < kernel_stack_pointer(regs) && f >= current_stack_pointer;
}

/* A node that could not be pushed goes back; the miss is counted. */
static noinline void rethook_refuse(struct rethook_node *node,
				    struct rethook_task *rt)
{
	this_cpu_inc(node->rethook->pcpu->missed[RETHOOK_MISS_ORDER]);
	rethook_give_back(node, rt);
}
NOKPROBE_SYMBOL(rethook_refuse);

/**
 * rethook_try_get() - take a node for the call entered with @regs
 * @rh: the rethook
 * @regs: registers at the function entry, as rethook_hook() will get them
 *
 * The node comes from the current task's area, or from @rh's pool when
 * that is full.  Follow with rethook_hook(), or with rethook_recycle() to
 * give it back unused, in the same context.  A call that rethook_hook()
 * would refuse for its order (a newer hooked call still running below
 * it; see rethook_out_of_order()) gets no node here already, so that a
 * caller running an entry handler between the two runs it only where the
 * exit will follow: rethook_hook() of a node from here, in the same
 * context, is never refused.
 *
 * Context: any (including NMI), on the hooked function's entry.
 * Return: a node, or NULL if @rh is stopped, RCU is not watching, the
 * task has @num calls of @rh in flight already, no storage is left, or
 * the call is out of order (the caller counts it as a miss; @rh counts
 * it by reason, see rethook_nmissed()).
 */
struct rethook_node *rethook_try_get(struct rethook *rh, struct pt_regs *regs)
{
	struct rethook_node *node = NULL;
	struct rethook_task *rt;

	preempt_disable_notrace();
	/*
	 * rethook_free() relies on RCU: this must be a read-side section.
	 * Where RCU is not watching, only the miss is counted, in @rh all
	 * the same.  fprobe's ftrace callback may get here so, and
	 * unregister_fprobe() waits for every CPU to schedule
	 * (synchronize_rcu_tasks_rude(), ftrace's or its own) before it
	 * calls rethook_free(), so @rh is still there.  A kretprobe's
	 * entry does not: int3 makes RCU watch, kprobe_ftrace_claim()
	 * checks, and text that runs without RCU is noinstr, which no
	 * kprobe (nor its detour buffer) may patch.
	 */
	if (likely(rethook_rcu_watching())) {
		rt = rethook_task_current();
		node = rethook_take(rh, rt);
		if (node &&
		    unlikely(rethook_out_of_order(rethook_pending_first(current, rt),
						  regs))) {
			rethook_refuse(node, rt);
			node = NULL;
		}
	} else {
		this_cpu_inc(rh->pcpu->missed[RETHOOK_MISS_NO_RCU]);
	}
	preempt_enable_notrace();
	return node;
}
NOKPROBE_SYMBOL(rethook_try_get);

/* rethook_hook() for the current task, whose area is @rt (NULL: bare). */
static __always_inline bool rethook_push(struct rethook_node *node,
					 struct pt_regs *regs, bool mcount,
					 struct rethook_task *rt)
{
	struct llist_node *top = rethook_pending_first(current, rt);

	if (unlikely(rethook_out_of_order(top, regs))) {
		rethook_refuse(node, rt);
		return false;
	}
	arch_rethook_prepare(node, regs, mcount);
	if (unlikely(!rt)) {
		rethook_bare_push(node);
		return true;
	}
	node->llist.next = top;
	barrier();
	WRITE_ONCE(rt->pending.first, &node->llist);
	return true;
}

/**
 * rethook_hook() - hook the return of the current call
 * @node: from rethook_try_get() in this context
 * @regs: registers at the function entry
 * @mcount: @regs come from an ftrace (mcount/fentry) callback, not from
 *	a breakpoint
 *
 * When the function returns, @node's rethook handler is called (unless it
 * was stopped) and @node goes back by itself.  If a newer call is hooked
 * and still running (see rethook_out_of_order()), this one is not:
 * @node goes back at once and the miss is counted (RETHOOK_MISS_ORDER).
 * A node from rethook_try_get() is never refused so.
 *
 * Context: the one rethook_try_get() was called in.
 * Return: true if hooked, false if not (the caller counts it as a miss).
 */
bool rethook_hook(struct rethook_node *node, struct pt_regs *regs, bool mcount)
{
	return rethook_push(node, regs, mcount, rethook_task_current());
}
NOKPROBE_SYMBOL(rethook_hook);

/**
 * rethook_try_hook() - hook the return of the current call, in one step
 * @rh: the rethook
 * @regs: registers at the function entry
 * @mcount: as for rethook_hook()
 *
 * rethook_try_get() and rethook_hook() together, for a user with nothing
 * to do between the two (a kretprobe without an entry_handler), and
 * without what a kprobe hit already guarantees: preemption is off, and
 * RCU watches (an int3 makes it; kprobe_ftrace_claim() checks on the
 * ftrace path).
 *
 * Context: a kprobe's pre_handler, on the hooked function's entry.
 * Return: true if hooked; false if not, the miss counted by reason in
 * @rh as by rethook_try_get().
 */
bool rethook_try_hook(struct rethook *rh, struct pt_regs *regs, bool mcount)
{
	struct rethook_task *rt = rethook_task_current();
	struct rethook_node *node = rethook_take(rh, rt);

	if (unlikely(!node))
		return false;
	return rethook_push(node, regs, mcount, rt);
}
NOKPROBE_SYMBOL(rethook_try_hook);

/* The link after @pos in another task's list, or NULL if it cannot be read. */
static struct llist_node *rethook_peek_next(struct llist_node *pos)
{
	struct llist_node *next;

	if (get_kernel_nofault(next, &pos->next))
		return NULL;
	return next;
}
NOKPROBE_SYMBOL(rethook_peek_next);

/*
 * Does a node saved for the stack slot @f, with the return address @r,
 * hold the real return address of the call that returns through @frame?
 * Several rethooks may hook one call (a kretprobe and an fprobe exit):
 * all their nodes have @frame, and all but the first hooked saw the
 * trampoline there; the real address is in that first one.
 */
static __always_inline bool rethook_frame_match(unsigned long f,
						unsigned long r,
						unsigned long frame)
{
	return f == frame && !is_rethook_trampoline(r);
}

/*
 * The current task's first pending node, from @pos on, that holds the
 * real return address for @frame, or NULL.  Only the task itself (and
 * its interrupts, which undo what they do) changes its list.
 */
static __always_inline struct llist_node *
rethook_find_current(struct llist_node *pos, unsigned long frame)
{
	struct rethook_node *node;

	for (; pos; pos = READ_ONCE(pos->next)) {
		node = llist_entry(pos, struct rethook_node, llist);
		if (rethook_frame_match(node->frame, node->ret_addr, frame))
			return pos;
	}
	return NULL;
}

/**
 * rethook_find_ret_addr() - the real return address of a hooked frame
 * @tsk: the task whose stack is unwound: current, or one not running
 * @frame: the stack address holding the trampoline address
 * @cur: cursor, NULL on the first call of an unwind; then pass it back
 *	so that the search goes on from the last frame found
 *
 * Another task's list may change under the walk (the task may run again)
 * and may be flushed, its area freed, between two calls of one unwind or
 * during one (the task dies: rethook_flush_task()).  So it is walked
 * with preemption off (areas and pools are freed after a grace period),
 * from its head at every call, each word read with a fault fixup, and
 * the search goes on from *@cur only if that node is still on the list.
 * A node reused meanwhile can only give a wrong address for a frame,
 * never a walk of freed memory nor a wild pointer followed.
 *
 * Context: any.
 * Return: the address the trampoline will return to, or 0 if @frame is
 * not hooked (or @tsk runs elsewhere, or its list went).
 */
unsigned long rethook_find_ret_addr(struct task_struct *tsk,
				    unsigned long frame,
				    struct llist_node **cur)
{
	struct rethook_node *node;
	struct llist_node *pos;
	unsigned long ret = 0;
	unsigned int n = 0;

	if (WARN_ON_ONCE(!cur))
		return 0;
	if (tsk == current) {
		pos = rethook_find_current(*cur ? READ_ONCE((*cur)->next) :
					   rethook_pending_first(tsk, rethook_task_current()),
					   frame);
		if (!pos)
			return 0;
		*cur = pos;
		return llist_entry(pos, struct rethook_node, llist)->ret_addr;
	}
	if (task_is_running(tsk))
		return 0;

	/*
	 * The area stays while preemption is off (kfree_rcu()), but not what
	 * it holds: @tsk may run again on another CPU and pop the node the
	 * walk stands on, and the area may then give that memory to a node
	 * of another rethook, of another size, whose data covers what was a
	 * link.  So no word read here is trusted to point anywhere: each is
	 * read with a fault fixup, a fault ends the walk, and the walk is
	 * bounded.  At worst it answers wrong for a task that ran meanwhile,
	 * as any unwind of a running task can.
	 */
	preempt_disable_notrace();
	pos = rethook_pending_first(tsk, rethook_task_of(tsk));
	if (*cur) {
		while (pos && pos != *cur && ++n < RETHOOK_WALK_MAX)
			pos = rethook_peek_next(pos);
		pos = pos == *cur ? rethook_peek_next(pos) : NULL;
	}
	for (; pos && ++n < RETHOOK_WALK_MAX; pos = rethook_peek_next(pos)) {
		unsigned long f, r;

		node = llist_entry(pos, struct rethook_node, llist);
		if (get_kernel_nofault(f, &node->frame) ||
		    get_kernel_nofault(r, &node->ret_addr))
			break;
		if (rethook_frame_match(f, r, frame)) {
			*cur = pos;
			ret = r;
			break;
		}
	}
	preempt_enable_notrace();
	return ret;
}
NOKPROBE_SYMBOL(rethook_find_ret_addr);

/*
 * Pop the newest pending node, @pos, calling its handler if it is one of
 * @frame's (nodes above @frame's belong to calls that did not return).
 * Context: rethook_trampoline_handler(), preemption disabled.
 */
static __always_inline void rethook_return_node(struct rethook_task *rt,
						struct llist_node *pos,
						unsigned long frame,
						unsigned long ret_addr,
						struct pt_regs *regs)
{
	struct rethook_node *node = llist_entry(pos, struct rethook_node, llist);
	struct rethook *rh = node->rethook;
	rethook_handler_t handler = READ_ONCE(rh->handler);

	if (likely(handler) && node->frame == frame) {
		kprobe_race_window();
		handler(node, rh->data, ret_addr, regs);
	}
	rethook_pending_set(rt, pos->next);
	rethook_node_release(rt, node);
	if (unlikely(!handler))
		rethook_kick(rh);
}

/*
 * Several nodes to pop: stacked hooks of one call, or nodes left above
 * @frame's by calls that did not return.  Up to and including @last,
 * the first node of @frame (the one that holds the real address).
 */
static noinline void rethook_return_nodes(struct rethook_task *rt,
					  struct rethook_node *last,
					  unsigned long frame,
					  unsigned long ret_addr,
					  struct pt_regs *regs)
{
	struct llist_node *pos;

	do {
		pos = rethook_pending_first(current, rt);
		rethook_return_node(rt, pos, frame, ret_addr, regs);
	} while (pos != &last->llist);
}
NOKPROBE_SYMBOL(rethook_return_nodes);

/**
 * rethook_trampoline_handler() - the generic part of a hooked return
 * @regs: registers at the return, built by the arch trampoline
 * @frame: the stack address that held the return address
 *
 * Calls the handler of every node hooked on @frame, newest first, each
 * while its node is still pending (so a stack trace from a handler finds
 * the real caller), then releases the nodes.
 *
 * Context: the arch trampoline only, in the context the hooked function
 * returned in.
 * Return: the address to return to.
 */
__visible unsigned long rethook_trampoline_handler(struct pt_regs *regs,
						   unsigned long frame)
{
	struct rethook_task *rt = rethook_task_current();
	struct llist_node *first = rethook_pending_first(current, rt);
	struct llist_node *pos = first;
	struct rethook_node *last;
	unsigned long ret_addr;

	/*
	 * Usually the newest node is @frame's only one: it holds the real
	 * address, and any other hook of the same call would have been
	 * pushed above it (saving the trampoline's), as would a node left
	 * by a call that did not return.  Else walk to @frame's first.
	 */
	last = llist_entry(pos, struct rethook_node, llist);
	if (unlikely(!pos || !rethook_frame_match(last->frame, last->ret_addr,
						  frame))) {
		pos = rethook_find_current(first, frame);
		/* Nothing to return to: there is no way to go on. */
		BUG_ON(!pos);
		last = llist_entry(pos, struct rethook_node, llist);
	}
	ret_addr = last->ret_addr;
	arch_rethook_fixup_return(regs, ret_addr);

	preempt_disable_notrace();
	if (likely(pos == first))
		rethook_return_node(rt, pos, frame, ret_addr, regs);
	else
		rethook_return_nodes(rt, last, frame, ret_addr, regs);
	preempt_enable_notrace();

	return ret_addr;
}
NOKPROBE_SYMBOL(rethook_trampoline_handler);

/**
 * rethook_flush_task() - let go of a dead task's area and pending nodes
 * @tk: the task, gone for good
 *
 * Calls that never returned (do_exit()) are released without calling
 * their handlers.
 *
 * Context: the RCU callback that puts the task_struct.
 */
void rethook_flush_task(struct task_struct *tk)
{
	unsigned long first = (unsigned long)xchg(&tk->rethooks.first,
						  &rethook_task_gone);
	struct rethook_task *rt = NULL;
	struct rethook_node *node;
	struct llist_node *pos;
	struct rethook *rh;
	bool stopped;

	if (first == (unsigned long)&rethook_task_gone)
		return;
	if (rethook_is_bare(first)) {
		pos = (struct llist_node *)(first & ~RETHOOK_BARE);
	} else {
		rt = container_of((struct llist_node *)first,
				  struct rethook_task, self);
		pos = rt->pending.first;
	}
	while (pos) {
		node = llist_entry(pos, struct rethook_node, llist);
		pos = pos->next;
		rh = node->rethook;
		stopped = !READ_ONCE(rh->handler);
		rethook_node_release(rt, node);
		if (stopped)
			rethook_kick(rh);
	}
	if (rt)
		rethook_task_free(rt);
}

#if IS_ENABLED(CONFIG_RETHOOK_KUNIT_TEST)
/*
 * For the KUnit suite only: make the current task bare, as if its area
 * could not be allocated, and give the area back.  No hooked call of
 * the task may be pending across either.  Context: process.
 */
void *rethook_kunit_take_area(void)
{
	struct rethook_task *rt = rethook_task_current();

	if (!rt || rt->pending.first)
		return NULL;
	WRITE_ONCE(current->rethooks.first, NULL);
	return rt;
}

bool rethook_kunit_give_area(void *area)
{
	struct rethook_task *rt = area;

	if (READ_ONCE(current->rethooks.first) ||
	    !rethook_task_install(current, rt)) {
		rethook_task_discard(rt);
		return false;
	}
	return true;
}

/* Rethooks not freed yet, and how often a stopped one's count was summed. */
void rethook_kunit_stats(int *live, long *sums)
{
	*live = atomic_read(&rethook_nr_live);
	*sums = atomic_long_read(&rethook_nr_sums);
}

/* Task areas allocated and not given back yet (counted when queued for freeing). */
long rethook_kunit_areas(void)
{
	return atomic_long_read(&rethook_nr_areas);
}

/* Tasks visited so far to hand areas out. */
long rethook_kunit_visits(void)
{
	return atomic_long_read(&rethook_nr_visits);
}

/* Has rethook_flush_task() let go of @tsk's area and pending calls? */
bool rethook_kunit_flushed(struct task_struct *tsk)
{
	return READ_ONCE(tsk->rethooks.first) == &rethook_task_gone;
}

/* Is the release of the areas waiting for its delay? */
bool rethook_kunit_release_pending(void)
{
	return delayed_work_pending(&rethook_tasks_release);
}

/* Run the release of the areas now, rather than after the delay. */
void rethook_kunit_release_areas(void)
{
	mod_delayed_work(system_wq, &rethook_tasks_release, 0);
	flush_delayed_work(&rethook_tasks_release);
}
#endif
