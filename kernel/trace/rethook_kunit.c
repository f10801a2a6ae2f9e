// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for return hooks, through the public kretprobe API so that
 * they hold whatever implements kretprobes on top of rethook.
 */
#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/kprobes.h>
#include <linux/kthread.h>
#include <linux/rcupdate.h>
#include <linux/rethook.h>
#include <linux/sched.h>
#include <linux/sched/stat.h>
#include <linux/sched/task.h>
#include <linux/wait.h>

#define RK_SLEEPERS	64
#define RK_MAGIC	0x5245544bUL
#define RK_TIMEOUT	(20 * HZ)

struct rk_sleepers {
	wait_queue_head_t	wq;
	bool			release;
	atomic_t		entered;
	atomic_t		done;
	atomic_t		handled;
	atomic_t		handled_after_unregister;
	bool			unregistered;
	int			ret[RK_SLEEPERS];
};

struct rk_sleeper_arg {
	struct rk_sleepers	*s;
	int			i;
};

/* Wait inside a probed function until the test lets everybody go. */
static noinline int rk_sleep_in(struct rk_sleepers *s, int i)
{
	atomic_inc(&s->entered);
	wake_up_all(&s->wq);
	wait_event(s->wq, READ_ONCE(s->release));
	return 3 * i + 1;
}

/* Sleepers without a return area of their own: they hook from the pool. */
static bool rk_bare_sleepers;

static int rk_sleeper_thread(void *data)
{
	struct rk_sleeper_arg *a = data;
	struct rk_sleepers *s = a->s;
	void *area = NULL;

	if (rk_bare_sleepers)
		area = rethook_kunit_take_area();
	s->ret[a->i] = rk_sleep_in(s, a->i);
	if (area && !rethook_kunit_give_area(area))
		s->ret[a->i] = -2;
	atomic_inc(&s->done);
	wake_up_all(&s->wq);
	return 0;
}

static struct rk_sleepers *rk_cur;

static int rk_sleep_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct rk_sleepers *s = rk_cur;

	if (READ_ONCE(s->unregistered))
		atomic_inc(&s->handled_after_unregister);
	atomic_inc(&s->handled);
	return 0;
}

static struct rk_sleepers *rk_sleepers_start(struct kunit *test, int n,
					     struct rk_sleeper_arg *args)
{
	struct rk_sleepers *s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	struct task_struct *t;
	long left;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, s);
	init_waitqueue_head(&s->wq);
	rk_cur = s;
	for (i = 0; i < n; i++) {
		args[i].s = s;
		args[i].i = i;
		s->ret[i] = -1;
		t = kthread_run(rk_sleeper_thread, &args[i], "rk_sleeper/%d", i);
		KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	}
	left = wait_event_timeout(s->wq, atomic_read(&s->entered) == n,
				  RK_TIMEOUT);
	KUNIT_ASSERT_GT(test, left, 0L);
	return s;
}

static void rk_sleepers_finish(struct kunit *test, struct rk_sleepers *s, int n)
{
	long left;
	int i;

	WRITE_ONCE(s->release, true);
	wake_up_all(&s->wq);

	left = wait_event_timeout(s->wq, atomic_read(&s->done) == n,
				  RK_TIMEOUT);
	KUNIT_ASSERT_GT(test, left, 0L);
	for (i = 0; i < n; i++)
		KUNIT_EXPECT_EQ(test, s->ret[i], 3 * i + 1);
}

/* 64 calls asleep in one function at once, default maxactive: none missed. */
static void no_miss_with_64_sleepers_default_maxactive(struct kunit *test)
{
	struct kretprobe rp = {
		.kp.addr = (kprobe_opcode_t *)rk_sleep_in,
		.handler = rk_sleep_ret,
	};
	struct rk_sleeper_arg *args;
	struct rk_sleepers *s;

	args = kunit_kcalloc(test, RK_SLEEPERS, sizeof(*args), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, args);
	KUNIT_ASSERT_EQ(test, register_kretprobe(&rp), 0);
	s = rk_sleepers_start(test, RK_SLEEPERS, args);
	kunit_info(test, "%d calls in flight, maxactive %d, nmissed %d\n",
		   atomic_read(&s->entered), rp.maxactive, rp.nmissed);
	KUNIT_EXPECT_EQ(test, rp.nmissed, 0);
	rk_sleepers_finish(test, s, RK_SLEEPERS);
	KUNIT_EXPECT_EQ(test, atomic_read(&s->handled), RK_SLEEPERS);
	KUNIT_EXPECT_EQ(test, rp.nmissed, 0);
	unregister_kretprobe(&rp);
}

/* Sleepers woken after unregister return to their callers, unhandled. */
static void unregister_while_calls_in_flight(struct kunit *test)
{
	struct kretprobe rp = {
		.kp.addr = (kprobe_opcode_t *)rk_sleep_in,
		.handler = rk_sleep_ret,
	};
	struct rk_sleeper_arg *args;
	struct rk_sleepers *s;
	const int n = 8;

	args = kunit_kcalloc(test, n, sizeof(*args), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, args);
	KUNIT_ASSERT_EQ(test, register_kretprobe(&rp), 0);
	s = rk_sleepers_start(test, n, args);
	unregister_kretprobe(&rp);
	WRITE_ONCE(s->unregistered, true);
	rk_sleepers_finish(test, s, n);
	KUNIT_EXPECT_EQ(test, atomic_read(&s->handled), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&s->handled_after_unregister), 0);
}

struct rk_data {
	unsigned long	magic;
	unsigned long	arg;
};

static atomic_t rk_data_ok, rk_data_bad;

static noinline unsigned long rk_data_target(unsigned long x)
{
	return x * 7 + 3;
}

static int rk_data_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct rk_data *d = (struct rk_data *)ri->data;

	d->magic = RK_MAGIC;
	d->arg = regs_get_kernel_argument(regs, 0);
	/* Odd arguments: skip the return handler. */
	return d->arg & 1;
}

static int rk_data_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct rk_data *d = (struct rk_data *)ri->data;

	if (d->magic == RK_MAGIC && !(d->arg & 1) &&
	    regs_return_value(regs) == d->arg * 7 + 3)
		atomic_inc(&rk_data_ok);
	else
		atomic_inc(&rk_data_bad);
	d->magic = 0;
	return 0;
}

/* data_size bytes travel from the entry to the return handler. */
static void data_round_trip_and_entry_skip(struct kunit *test)
{
	struct kretprobe rp = {
		.kp.addr = (kprobe_opcode_t *)rk_data_target,
		.entry_handler = rk_data_entry,
		.handler = rk_data_ret,
		.data_size = sizeof(struct rk_data),
	};
	unsigned long i, sum = 0;

	atomic_set(&rk_data_ok, 0);
	atomic_set(&rk_data_bad, 0);
	KUNIT_ASSERT_EQ(test, register_kretprobe(&rp), 0);
	for (i = 0; i < 100; i++)
		sum += rk_data_target(i);
	unregister_kretprobe(&rp);
	KUNIT_EXPECT_EQ(test, sum, 100UL * 99 / 2 * 7 + 300);
	KUNIT_EXPECT_EQ(test, atomic_read(&rk_data_ok), 50);
	KUNIT_EXPECT_EQ(test, atomic_read(&rk_data_bad), 0);
	KUNIT_EXPECT_EQ(test, rp.nmissed, 0);
}

static atomic_t rk_rec_calls;
static unsigned long rk_rec_expect;
static atomic_t rk_rec_bad;

static noinline unsigned long rk_recurse(unsigned long n)
{
	unsigned long r;

	if (!n)
		return 0;
	r = rk_recurse(n - 1);
	/* Keep the recursion a real one (no accumulator loop). */
	OPTIMIZER_HIDE_VAR(r);
	return r + 2;
}

static int rk_rec_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	/* Innermost returns first: 0, 2, 4, ... */
	if (regs_return_value(regs) != rk_rec_expect)
		atomic_inc(&rk_rec_bad);
	rk_rec_expect += 2;
	atomic_inc(&rk_rec_calls);
	return 0;
}

static void rk_recurse_probed(struct kunit *test, unsigned long depth,
			      int maxactive, int *calls, int *missed)
{
	struct kretprobe rp = {
		.kp.addr = (kprobe_opcode_t *)rk_recurse,
		.handler = rk_rec_ret,
		.maxactive = maxactive,
	};

	atomic_set(&rk_rec_calls, 0);
	atomic_set(&rk_rec_bad, 0);
	rk_rec_expect = 0;
	KUNIT_ASSERT_EQ(test, register_kretprobe(&rp), 0);
	KUNIT_EXPECT_EQ(test, rk_recurse(depth), 2 * depth);
	unregister_kretprobe(&rp);
	*calls = atomic_read(&rk_rec_calls);
	*missed = rp.nmissed;
}

/*
 * maxactive bounds the calls in flight per task, i.e. the recursion depth
 * that is hooked; deeper levels are missed and counted, and the levels
 * that are hooked see their own return values.
 */
static void recursion_hooked_up_to_maxactive_and_counted(struct kunit *test)
{
	int calls, missed;

	rk_recurse_probed(test, 16, 20, &calls, &missed);
	KUNIT_EXPECT_EQ(test, missed, 0);
	KUNIT_EXPECT_EQ(test, calls, 17);
	KUNIT_EXPECT_EQ(test, atomic_read(&rk_rec_bad), 0);

	rk_recurse_probed(test, 300, 20, &calls, &missed);
	kunit_info(test, "depth 300, maxactive 20: %d hooked, %d missed\n",
		   calls, missed);
	KUNIT_EXPECT_EQ(test, calls, 20);
	KUNIT_EXPECT_EQ(test, missed, 281);
}

static atomic_t rk_exit_ret;
static DECLARE_COMPLETION(rk_exit_started);
static DECLARE_COMPLETION(rk_exit_done);

/* Never returns: the task exits inside the probed function. */
static noinline int rk_exit_inside(int x)
{
	complete(&rk_exit_started);
	kthread_complete_and_exit(&rk_exit_done, x);
	return x;
}

static int rk_exit_thread(void *data)
{
	return rk_exit_inside(5);
}

static int rk_exit_handler(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	atomic_inc(&rk_exit_ret);
	return 0;
}

/* A task that exits with a hooked call pending: no handler, no leak. */
static void task_exit_with_pending_instance(struct kunit *test)
{
	struct kretprobe rp = {
		.kp.addr = (kprobe_opcode_t *)rk_exit_inside,
		.handler = rk_exit_handler,
	};
	struct task_struct *t;

	atomic_set(&rk_exit_ret, 0);
	reinit_completion(&rk_exit_started);
	reinit_completion(&rk_exit_done);
	KUNIT_ASSERT_EQ(test, register_kretprobe(&rp), 0);
	t = kthread_run(rk_exit_thread, NULL, "rk_exit");
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	KUNIT_ASSERT_GT(test, wait_for_completion_timeout(&rk_exit_done,
							  RK_TIMEOUT), 0UL);
	/* Let the task be reaped and its RCU-delayed put run. */
	msleep(100);
	rcu_barrier();
	KUNIT_EXPECT_EQ(test, rp.nmissed, 0);
	unregister_kretprobe(&rp);
	rcu_barrier();
	KUNIT_EXPECT_EQ(test, atomic_read(&rk_exit_ret), 0);
}

/*
 * A return lost for want of storage is told from one past maxactive: two
 * bare tasks asleep in the function hold both nodes of its pool
 * (maxactive 2), so a call by a third bare task, which has nothing in
 * flight itself, finds no node: no_mem, not nest_full.
 */
static void pool_held_by_others_is_no_mem(struct kunit *test)
{
	struct kretprobe rp = {
		.kp.addr = (kprobe_opcode_t *)rk_sleep_in,
		.handler = rk_sleep_ret,
		.maxactive = 2,
	};
	struct rk_sleeper_arg args[2];
	struct rk_sleepers *s, *now;
	void *area;

	now = kunit_kzalloc(test, sizeof(*now), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, now);
	init_waitqueue_head(&now->wq);
	now->release = true;	/* this task's call does not wait */

	KUNIT_ASSERT_EQ(test, register_kretprobe(&rp), 0);
	rk_bare_sleepers = true;
	s = rk_sleepers_start(test, 2, args);
	rk_bare_sleepers = false;
	area = rethook_kunit_take_area();
	KUNIT_EXPECT_EQ(test, rk_sleep_in(now, 5), 16);
	if (area)
		KUNIT_EXPECT_TRUE(test, rethook_kunit_give_area(area));
	KUNIT_EXPECT_EQ(test, rethook_nmissed(rp.rh, RETHOOK_MISS_NO_MEM), 1UL);
	KUNIT_EXPECT_EQ(test, rethook_nmissed(rp.rh, RETHOOK_MISS_NEST_FULL), 0UL);
	rk_sleepers_finish(test, s, 2);
	unregister_kretprobe(&rp);
	KUNIT_EXPECT_EQ(test, atomic_read(&s->handled), 2);
	KUNIT_EXPECT_EQ(test, rp.nmissed, 1);
}

static atomic_t rk_bare_ret, rk_bare_calls;

/* Not a pure function: each call of the loop below must happen. */
static noinline int rk_bare_target(int x)
{
	atomic_inc(&rk_bare_calls);
	return x * 5 + 1;
}

static int rk_bare_handler(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	if (regs_return_value(regs) == 11)
		atomic_inc(&rk_bare_ret);
	return 0;
}

/*
 * A task without its own return area (its allocation failed) hooks its
 * calls from the rethook's pool: none is missed while the pool lasts,
 * recursion is still bounded by maxactive (deeper levels are counted as
 * missed, for want of a slot), and the return path finds the real
 * caller.
 */
static void task_without_area_uses_the_pool(struct kunit *test)
{
	struct kretprobe rp = {
		.kp.addr = (kprobe_opcode_t *)rk_bare_target,
		.handler = rk_bare_handler,
	};
	int calls, missed, i;
	void *area;

	atomic_set(&rk_bare_ret, 0);
	atomic_set(&rk_bare_calls, 0);
	KUNIT_ASSERT_EQ(test, register_kretprobe(&rp), 0);
	area = rethook_kunit_take_area();
	KUNIT_ASSERT_NOT_NULL(test, area);
	for (i = 0; i < 10; i++)
		KUNIT_EXPECT_EQ(test, rk_bare_target(2), 11);
	rk_recurse_probed(test, 16, 20, &calls, &missed);
	KUNIT_EXPECT_EQ(test, calls, 17);
	KUNIT_EXPECT_EQ(test, missed, 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&rk_rec_bad), 0);
	/* Deeper than maxactive: the bound holds without an area too. */
	rk_recurse_probed(test, 300, 20, &calls, &missed);
	KUNIT_EXPECT_TRUE(test, rethook_kunit_give_area(area));
	unregister_kretprobe(&rp);
	KUNIT_EXPECT_EQ(test, atomic_read(&rk_bare_calls), 10);
	KUNIT_EXPECT_EQ(test, atomic_read(&rk_bare_ret), 10);
	KUNIT_EXPECT_EQ(test, rp.nmissed, 0);
	KUNIT_EXPECT_EQ(test, calls, 20);
	KUNIT_EXPECT_EQ(test, missed, 281);
}

static struct kretprobe_instance *rk_die_ri;
static DECLARE_COMPLETION(rk_die_started);
static DECLARE_COMPLETION(rk_die_go);
static DECLARE_COMPLETION(rk_die_done);

/* Waits, then exits inside the probed function. */
static noinline int rk_die_inside(int x)
{
	complete(&rk_die_started);
	wait_for_completion(&rk_die_go);
	kthread_complete_and_exit(&rk_die_done, x);
	return x;
}

static int rk_die_thread(void *data)
{
	return rk_die_inside(7);
}

static int rk_die_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	WRITE_ONCE(rk_die_ri, ri);
	return 0;
}

/*
 * An unwinder of another task (/proc/PID/stack, stack_trace_save_tsk())
 * may still hold that task when it dies inside a hooked function, and
 * go on walking its hooked calls after rethook_flush_task() let go of
 * them, with the cursor of its last frame.  It must find nothing then,
 * and touch nothing that was freed (KASAN reports it).
 */
static void unwinding_a_task_after_it_died(struct kunit *test)
{
	struct kretprobe rp = {
		.kp.addr = (kprobe_opcode_t *)rk_die_inside,
		.handler = rk_exit_handler,
		.entry_handler = rk_die_entry,
	};
	struct llist_node *cur = NULL, *again = NULL;
	unsigned long frame, ret, end;
	struct task_struct *t;

	WRITE_ONCE(rk_die_ri, NULL);
	reinit_completion(&rk_die_started);
	reinit_completion(&rk_die_go);
	reinit_completion(&rk_die_done);
	KUNIT_ASSERT_EQ(test, register_kretprobe(&rp), 0);
	t = kthread_run(rk_die_thread, NULL, "rk_die");
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	get_task_struct(t);
	KUNIT_ASSERT_GT(test, wait_for_completion_timeout(&rk_die_started,
							  RK_TIMEOUT), 0UL);
	end = jiffies + RK_TIMEOUT;
	while (task_is_running(t) && time_before(jiffies, end))
		msleep(20);
	KUNIT_ASSERT_NOT_NULL(test, READ_ONCE(rk_die_ri));
	frame = READ_ONCE(rk_die_ri)->node.frame;

	/* Asleep inside: its hooked frame is found. */
	ret = rethook_find_ret_addr(t, frame, &cur);
	KUNIT_EXPECT_NE(test, ret, 0UL);
	KUNIT_EXPECT_FALSE(test, is_rethook_trampoline(ret));

	/* Dead, reaped and flushed: nothing is found any more. */
	complete(&rk_die_go);
	KUNIT_ASSERT_GT(test, wait_for_completion_timeout(&rk_die_done,
							  RK_TIMEOUT), 0UL);
	end = jiffies + RK_TIMEOUT;
	while (!rethook_kunit_flushed(t) && time_before(jiffies, end)) {
		rcu_barrier();
		msleep(20);
	}
	KUNIT_ASSERT_TRUE(test, rethook_kunit_flushed(t));
	/* Let the RCU-delayed free of the area happen (kfree_rcu() batches). */
	kvfree_rcu_barrier();
	KUNIT_EXPECT_EQ(test, rethook_find_ret_addr(t, frame, &cur), 0UL);
	KUNIT_EXPECT_EQ(test, rethook_find_ret_addr(t, frame, &again), 0UL);
	put_task_struct(t);
	unregister_kretprobe(&rp);
	KUNIT_EXPECT_EQ(test, rp.nmissed, 0);
}

static atomic_t rk_area_calls;
static int rk_live_settled(void);

static int rk_idle_thread(void *arg)
{
	while (!kthread_should_stop())
		schedule_timeout_interruptible(HZ / 10);
	return 0;
}

static int rk_area_handler(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	atomic_inc(&rk_area_calls);
	return 0;
}

/*
 * While no rethook exists, no task has a return area.  The first
 * rethook hands one to every task in one walk of the task list, and
 * some time after the last one goes, they are all given back.
 */
static void areas_come_with_the_first_rethook_and_go_after_the_last(struct kunit *test)
{
	struct kretprobe rp = {
		.kp.addr = (kprobe_opcode_t *)rk_bare_target,
		.handler = rk_area_handler,
	};
	struct rk_sleeper_arg *args;
	struct task_struct *t;
	struct rk_sleepers *s;
	long visits, tasks;

	if (rk_live_settled())
		kunit_skip(test, "another rethook is alive: the areas must stay");
	rethook_kunit_release_areas();
	KUNIT_EXPECT_EQ(test, rethook_kunit_areas(), 0L);
	KUNIT_EXPECT_NULL(test, READ_ONCE(current->rethooks.first));

	/* More tasks, so that a walk per batch of tasks would show. */
	args = kunit_kcalloc(test, RK_SLEEPERS, sizeof(*args), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, args);
	s = rk_sleepers_start(test, RK_SLEEPERS, args);
	tasks = READ_ONCE(nr_threads) + num_possible_cpus();
	visits = rethook_kunit_visits();
	KUNIT_ASSERT_EQ(test, register_kretprobe(&rp), 0);
	visits = rethook_kunit_visits() - visits;
	kunit_info(test, "%ld tasks, %ld visited, %ld areas\n", tasks, visits,
		   rethook_kunit_areas());
	KUNIT_EXPECT_LE(test, visits, tasks + 8);
	KUNIT_EXPECT_GE(test, rethook_kunit_areas(), tasks - 8);
	KUNIT_EXPECT_NOT_NULL(test, READ_ONCE(current->rethooks.first));
	atomic_set(&rk_area_calls, 0);
	KUNIT_EXPECT_EQ(test, rk_bare_target(2), 11);
	KUNIT_EXPECT_EQ(test, atomic_read(&rk_area_calls), 1);
	rk_sleepers_finish(test, s, RK_SLEEPERS);
	unregister_kretprobe(&rp);

	KUNIT_ASSERT_EQ(test, rk_live_settled(), 0);
	/* The last rethook went: the release is on its way. */
	KUNIT_EXPECT_TRUE(test, rethook_kunit_release_pending());
	rethook_kunit_release_areas();
	KUNIT_EXPECT_EQ(test, rethook_kunit_areas(), 0L);
	KUNIT_EXPECT_NULL(test, READ_ONCE(current->rethooks.first));

	/* And a task born after the release gets none: the fork hook went. */
	t = kthread_run(rk_idle_thread, NULL, "rk_after");
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	KUNIT_EXPECT_NULL(test, READ_ONCE(t->rethooks.first));
	KUNIT_EXPECT_EQ(test, rethook_kunit_areas(), 0L);
	kthread_stop(t);
}

/*
 * The number of live rethooks once those that earlier cases freed have
 * gone (their last grace periods and work items are behind us).
 */
static int rk_live_settled(void)
{
	int live, prev = -1, same = 0;
	unsigned long end = jiffies + RK_TIMEOUT;
	long sums;

	while (time_before(jiffies, end)) {
		rcu_barrier();
		msleep(100);
		rethook_kunit_stats(&live, &sums);
		if (live != prev)
			same = 0;
		else if (++same == 3)
			break;
		prev = live;
	}
	return live;
}

/*
 * A freed rethook whose call never returns waits for it without
 * polling, and goes as soon as the call returns.
 */
static void freed_rethook_waits_without_polling(struct kunit *test)
{
	struct kretprobe rp = {
		.kp.addr = (kprobe_opcode_t *)rk_sleep_in,
		.handler = rk_sleep_ret,
	};
	struct rk_sleeper_arg *args;
	struct rk_sleepers *s;
	int live0, live1, live;
	long sums1, sums;
	unsigned long end;

	args = kunit_kcalloc(test, 1, sizeof(*args), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, args);
	live0 = rk_live_settled();
	KUNIT_ASSERT_EQ(test, register_kretprobe(&rp), 0);
	s = rk_sleepers_start(test, 1, args);
	unregister_kretprobe(&rp);
	WRITE_ONCE(s->unregistered, true);
	/* Past the grace period of rethook_free() and the first sum. */
	rcu_barrier();
	msleep(300);
	rethook_kunit_stats(&live1, &sums1);
	msleep(1000);
	rethook_kunit_stats(&live, &sums);
	kunit_info(test, "in flight: %ld sums in 1 s, %d rethooks live (%d before)\n",
		   sums - sums1, live, live0);
	KUNIT_EXPECT_EQ(test, live1, live0 + 1);
	KUNIT_EXPECT_EQ(test, live, live0 + 1);
	KUNIT_EXPECT_LE(test, sums - sums1, 1L);

	rk_sleepers_finish(test, s, 1);
	end = jiffies + RK_TIMEOUT;
	do {
		msleep(20);
		rethook_kunit_stats(&live, &sums);
	} while (live != live0 && time_before(jiffies, end));
	KUNIT_EXPECT_EQ(test, live, live0);
	KUNIT_EXPECT_EQ(test, atomic_read(&s->handled), 0);
}

/*
 * A batch that names one kretprobe twice is refused before either setup:
 * the second setup replaced the first's rethook, which then lived on with
 * nothing to free it.
 */
static void batch_naming_a_kretprobe_twice_leaks_nothing(struct kunit *test)
{
	struct kretprobe rp = {
		.kp.addr = (kprobe_opcode_t *)rk_data_target,
		.handler = rk_data_ret,
	};
	struct kretprobe *rps[] = { &rp, &rp };
	int live0, live;

	live0 = rk_live_settled();
	KUNIT_EXPECT_EQ(test, register_kretprobes(rps, 2), -EINVAL);
	KUNIT_EXPECT_NULL(test, rp.rh);
	live = rk_live_settled();
	KUNIT_EXPECT_EQ(test, live, live0);
}

static struct kunit_case rethook_cases[] = {
	KUNIT_CASE(no_miss_with_64_sleepers_default_maxactive),
	KUNIT_CASE(unregister_while_calls_in_flight),
	KUNIT_CASE(data_round_trip_and_entry_skip),
	KUNIT_CASE(recursion_hooked_up_to_maxactive_and_counted),
	KUNIT_CASE(task_exit_with_pending_instance),
	KUNIT_CASE(task_without_area_uses_the_pool),
	KUNIT_CASE(pool_held_by_others_is_no_mem),
	KUNIT_CASE(unwinding_a_task_after_it_died),
	KUNIT_CASE_SLOW(areas_come_with_the_first_rethook_and_go_after_the_last),
	KUNIT_CASE_SLOW(freed_rethook_waits_without_polling),
	KUNIT_CASE_SLOW(batch_naming_a_kretprobe_twice_leaks_nothing),
	{}
};

static struct kunit_suite rethook_suite = {
	.name = "rethook",
	.test_cases = rethook_cases,
};
kunit_test_suite(rethook_suite);

MODULE_DESCRIPTION("KUnit tests for rethook and kretprobes");
MODULE_LICENSE("GPL");
