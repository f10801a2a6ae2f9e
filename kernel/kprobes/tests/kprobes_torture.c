// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * kprobes torture test: probes come and go while every CPU runs into them.
 *
 * Caller threads, one bound to each online CPU, call a small set of
 * target functions (a function entry, two sites in the middle of a
 * function, a recursive function and one that sleeps).  Controller
 * threads meanwhile register, unregister, enable and disable kprobes,
 * kretprobes, jprobes and fprobes on those targets in random order,
 * several on one address, sometimes as register_kprobes()/
 * register_kretprobes() batches and sometimes as batches with one
 * deliberately bad entry.  Everything goes through the public API only
 * (jprobes where CONFIG_JPROBES has them), so the module also builds out
 * of tree against a kernel with another implementation of it.
 * The hits take every path there is: ftrace-based entries (interrupts
 * on), int3 sites that are boosted, stepped (a post_handler) or jump
 * optimized, kretprobe and fprobe returns, and jprobe handlers.
 *
 * The accounting is exact.  Each probe slot has a sequence word; its
 * low two bits give the state (0 off, 1 arming, 2 armed, 3 disarming),
 * the rest the window number.  The controller moves it to "arming"
 * before register/enable and to "armed" after the call returned, and
 * to "disarming" before disable/unregister.  It goes back to "off"
 * only when no handler can still run (a grace period after disarming)
 * and no call that started in the window is still running (an SRCU
 * grace period over the callers).  A caller reads every sequence word
 * of its target before and after the call:
 *
 *  - same word, "armed" both times: the call ran wholly inside an
 *    armed window; it MUST be counted (for a recursive target once per
 *    level), on entry and on return;
 *  - a word in any non-off state of a window at some point of the
 *    call: the call MAY be counted in that window;
 *  - otherwise the probe must not see it.
 *
 * Handlers add their hit to the window of the sequence word they read,
 * and when a window is closed the controller checks hits <= may and
 * must <= hits + the misses that excuse them, for entry and return
 * handlers alike.  A miss only excuses what it stands for: an entry
 * hit, a nested hit (which ran no handler at all); a return hit, a
 * nested hit at the entry or a return the rethook could not hook because
 * the task had maxactive calls in flight (nest_full).  A return lost for
 * want of memory or of RCU, or while its rethook was being stopped,
 * excuses nothing: the callers run where RCU watches, with room in their
 * areas, and a call made wholly inside an armed window cannot meet a
 * stopped rethook.  (Built against a kernel that does not count misses
 * by cause, every miss excuses both.)  A handler
 * that runs while its slot is "off" or after unregister*() returned, a kretprobe/fprobe return whose entry data
 * is not the one its entry handler stored, a failed batch with a
 * handler call or a probe left registered: each is a violation.
 *
 * A second module, kprobes_torture_target, may be loaded and unloaded
 * while this runs; each time it goes live this module registers a
 * kprobe, a kretprobe, an fprobe and a mid-function kprobe inside it
 * (module_probes selects which) and leaves them registered across its
 * unload: they must become gone and still unregister cleanly at the
 * next load or at the end (or, with module_release_going, it
 * unregisters them while the module goes).
 *
 * Parameters: duration (seconds), controllers, strict (0 skips the
 * "must" check; for runs that flip /sys/kernel/debug/kprobes/enabled,
 * which disarms everything behind the test's back), seed,
 * module_probes, module_release_going and race_window_us (with
 * CONFIG_KPROBES_RACE_WINDOW: every hit waits that long between
 * the core choosing a probe and calling its handler, so that
 * unregistrations on other CPUs land inside hits) and slot_preempt_us
 * (a hit of a mid-function kprobe has its task preempted where the hit
 * resumes, for that long: in a boosted hit, inside the copy of the
 * probed instruction, while the controllers release the copy's slot and
 * register probes that may be given it; see kpt_ask_preempt()).
 * The verdict is one line: "kprobes_torture: PASS ..." or
 * "kprobes_torture: FAIL ...", with the counts.
 */
#define pr_fmt(fmt) "kprobes_torture: " fmt

#include <linux/atomic.h>
#include <linux/cpu.h>
#include <linux/delay.h>
#include <linux/fprobe.h>
#include <linux/irq_work.h>
#include <linux/kprobes.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/prandom.h>
#include <linux/random.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/srcu.h>
#include <linux/timekeeping.h>

static int duration = 30;
module_param(duration, int, 0444);
MODULE_PARM_DESC(duration, "seconds to run (default 30)");

static int controllers = 2;
module_param(controllers, int, 0444);
MODULE_PARM_DESC(controllers, "controller threads (default 2)");

static bool strict = true;
module_param(strict, bool, 0444);
MODULE_PARM_DESC(strict, "check that every call inside an armed window was counted (default on)");

static ulong seed;
module_param(seed, ulong, 0444);
MODULE_PARM_DESC(seed, "random seed (0: pick one)");

static uint module_probes = 0xf;
module_param(module_probes, uint, 0444);
MODULE_PARM_DESC(module_probes, "probes in kprobes_torture_target: bit 0 kprobe, 1 kretprobe, 2 mid-function kprobe, 3 fprobe (default 0xf)");

static bool module_release_going;
module_param(module_release_going, bool, 0444);
MODULE_PARM_DESC(module_release_going, "unregister the probes in kprobes_torture_target while it goes, not at its next load");

static uint race_window_us;
module_param(race_window_us, uint, 0444);
MODULE_PARM_DESC(race_window_us, "hits wait this long before their handler (needs CONFIG_KPROBES_RACE_WINDOW; default 0)");

static uint slot_preempt_us;
module_param(slot_preempt_us, uint, 0444);
MODULE_PARM_DESC(slot_preempt_us, "preempt a task where a mid-function kprobe hit resumes, for this long (a preemptible kernel: preempt=full; default 0)");

static bool done;
module_param(done, bool, 0444);
MODULE_PARM_DESC(done, "set when the verdict is printed (read only)");

/* ---------------------------------------------------------------- */
/* Targets                                                          */
/* ---------------------------------------------------------------- */

static noinline int kpt_entry(int v)
{
	return v * 13 + 5;
}

#ifdef CONFIG_X86_64
extern const int kpt_mid_offs[4];

/*
 * Probe sites in the middle of a function, at instruction boundaries
 * the assembler marks: A opens a run of plain ALU instructions that can
 * be boosted or optimized, B lies just before the compiler's epilogue;
 * C and D, one instruction after each, are kpt_reuser()'s.  Their
 * offsets from the function start go to kpt_mid_offs[] (a difference
 * the assembler resolves: no relocation into the middle of a function,
 * which IBT would flag).
 */
static noinline int kpt_mid(int v)
{
	int r;

	asm volatile("1:\n\t"
		     "mov %1, %0\n"
		     "3:\n\t"
		     "add $7, %0\n\t"
		     "imul $3, %0, %0\n"
		     "2:\n\t"
		     "xor $0x55, %0\n"
		     "4:\n\t"
		     "add %1, %0\n\t"
		     ".pushsection .rodata\n\t"
		     ".balign 4\n"
		     "kpt_mid_offs:\n\t"
		     ".long 1b - %c2, 2b - %c2, 3b - %c2, 4b - %c2\n\t"
		     ".popsection\n"
		     : "=&r" (r) : "r" (v), "i" (kpt_mid) : "cc");
	return r;
}

#define KPT_MID_BAD	(KPT_MID_A + 1)	/* inside the mov */
#define KPT_MID_XOR	0x55
#elif defined(CONFIG_ARM64)
extern const int kpt_mid_offs[4];

/* The same four sites on arm64: ALU instructions a BRK probe can boost. */
static noinline int kpt_mid(int v)
{
	int r;

	asm volatile("1:\n\t"
		     "add %w0, %w1, #7\n"
		     "3:\n\t"
		     "add %w0, %w0, %w0, lsl #1\n"
		     "2:\n\t"
		     "eor %w0, %w0, #0xff\n"
		     "4:\n\t"
		     "add %w0, %w0, %w1\n\t"
		     ".pushsection .rodata\n\t"
		     ".balign 4\n"
		     "kpt_mid_offs:\n\t"
		     ".long 1b - %c2, 2b - %c2, 3b - %c2, 4b - %c2\n\t"
		     ".popsection\n"
		     : "=&r" (r) : "r" (v), "i" (kpt_mid));
	return r;
}

#define KPT_MID_BAD	(KPT_MID_A + 2)	/* not an instruction boundary */
#define KPT_MID_XOR	0xff
#else
static noinline int kpt_mid(int v)
{
	return v * 3 + 21;
}

#define KPT_MID_BAD	0UL
#endif

#ifdef KPT_MID_XOR
#define KPT_MID(i)	((unsigned long)kpt_mid + kpt_mid_offs[i])
#else
#define KPT_MID(i)	((void)(i), (unsigned long)kpt_mid)
#endif
#define KPT_MID_A	KPT_MID(0)
#define KPT_MID_B	KPT_MID(1)
#define KPT_MID_C	KPT_MID(2)
#define KPT_MID_D	KPT_MID(3)

static int (*kpt_recurse_fn)(int depth);

static noinline int kpt_recurse(int depth)
{
	if (depth <= 0)
		return 1;
	return READ_ONCE(kpt_recurse_fn)(depth - 1) + 1;
}

static noinline int kpt_sleep(int v)
{
	usleep_range(20, 60);
	return v + 1;
}

enum { KPT_T_ENTRY, KPT_T_MID, KPT_T_RECURSE, KPT_T_SLEEP, KPT_T_NR };

/* Called through pointers only: no inlining, no clones. */
static int (*kpt_targets[KPT_T_NR])(int) = {
	kpt_entry, kpt_mid, kpt_recurse, kpt_sleep,
};

#define KPT_MAX_DEPTH	6

/*
 * What kpt_targets[@t](@v) returns when it runs as written: a probe that
 * resumes at the wrong place (a stale detour buffer, a bad step or
 * emulation) shows up as a wrong result even when every handler ran.
 */
static int kpt_expected(int t, int v)
{
	switch (t) {
	case KPT_T_ENTRY:
		return v * 13 + 5;
	case KPT_T_MID:
#ifdef KPT_MID_XOR
		return (((v + 7) * 3) ^ KPT_MID_XOR) + v;
#else
		return v * 3 + 21;
#endif
	case KPT_T_RECURSE:
		return max(v, 0) + 1;
	default:
		return v + 1;
	}
}

/* ---------------------------------------------------------------- */
/* Probe slots                                                      */
/* ---------------------------------------------------------------- */

enum kpt_kind {
	KPT_KPROBE,
	KPT_KRETPROBE,
	KPT_FPROBE,
#ifdef CONFIG_JPROBES
	KPT_JPROBE,
#endif
};

enum { KPT_OFF, KPT_ARMING, KPT_ARMED, KPT_DISARMING };

struct kpt_window {
	atomic_long_t must;
	atomic_long_t may;
	atomic_long_t hits[2];	/* entry, return */
};

/*
 * Misses by what they excuse: hits that ran no handler at all (nested
 * in another probe, or a recursion guard), returns not hooked past
 * maxactive (both excuse), returns not hooked because the rethook was
 * stopped, and returns not hooked for want of memory or of RCU (neither
 * excuses anything).
 */
enum { KPT_M_NESTED, KPT_M_RET, KPT_M_STOPPED, KPT_M_LOST, KPT_M_NR };

struct kpt_slot {
	const char *name;
	enum kpt_kind kind;
	int target;
	unsigned long addr;		/* resolved at init */
	const char *sym;		/* fprobe filter */
	bool post;			/* kprobe with a post_handler: stepped */
	bool preempt;			/* hits ask for a preemption */
	bool plain;			/* kretprobe without entry_handler */
	void *jp_handler;		/* jprobe handler */
	union {
		struct kprobe kp;
		struct kretprobe rp;
		struct fprobe fp;
#ifdef CONFIG_JPROBES
		struct jprobe jp;
#endif
	};
	atomic_long_t seq;		/* window << 2 | state */
	bool dead;			/* set once unregister returned */
	/* controller-owned */
	bool registered;
	bool enabled;
	unsigned long miss_base[KPT_M_NR];	/* when the window opened */
	unsigned long miss_snap[KPT_M_NR];	/* the rethook's, last read */
	unsigned long missed_total[KPT_M_NR];
	struct kpt_window win[4];
};

/* Entry data stored by entry handlers and checked by return handlers. */
struct kpt_stamp {
	unsigned long magic;
	struct task_struct *task;
};

#define KPT_MAGIC	0x6b7074646174614cUL

static struct kpt_slot kpt_slots[] = {
	{ "kp-entry-0",   KPT_KPROBE,    KPT_T_ENTRY },
	{ "kp-entry-1",   KPT_KPROBE,    KPT_T_ENTRY },
	{ "krp-entry",    KPT_KRETPROBE, KPT_T_ENTRY },
	{ "fp-entry",     KPT_FPROBE,    KPT_T_ENTRY, .sym = "kpt_entry" },
#ifdef CONFIG_JPROBES
	{ "jp-entry",     KPT_JPROBE,    KPT_T_ENTRY },
#endif
	{ "kp-mid-a-0",   KPT_KPROBE,    KPT_T_MID },
	{ "kp-mid-a-1",   KPT_KPROBE,    KPT_T_MID, .post = true },
	{ "kp-mid-b",     KPT_KPROBE,    KPT_T_MID },
	{ "kp-mid-entry", KPT_KPROBE,    KPT_T_MID },
	{ "kp-recurse",   KPT_KPROBE,    KPT_T_RECURSE },
	{ "krp-recurse",  KPT_KRETPROBE, KPT_T_RECURSE },
	{ "krp-plain",    KPT_KRETPROBE, KPT_T_RECURSE, .plain = true },
	{ "fp-recurse",   KPT_FPROBE,    KPT_T_RECURSE, .sym = "kpt_recurse" },
	{ "kp-sleep",     KPT_KPROBE,    KPT_T_SLEEP },
	{ "krp-sleep-0",  KPT_KRETPROBE, KPT_T_SLEEP },
	{ "krp-sleep-1",  KPT_KRETPROBE, KPT_T_SLEEP },
	{ "fp-sleep",     KPT_FPROBE,    KPT_T_SLEEP, .sym = "kpt_sleep" },
#ifdef CONFIG_JPROBES
	{ "jp-sleep",     KPT_JPROBE,    KPT_T_SLEEP },
#endif
	/* kpt_reuser()'s, last */
	{ "kp-mid-c",     KPT_KPROBE,    KPT_T_MID, .preempt = true },
};

#define KPT_NR_SLOTS	ARRAY_SIZE(kpt_slots)
#define KPT_NR_CTL_SLOTS	(KPT_NR_SLOTS - 1)	/* the controllers' */
#define KPT_SLOT_C	(&kpt_slots[KPT_NR_SLOTS - 1])

DEFINE_STATIC_SRCU(kpt_srcu);

/* Violations: any non-zero one fails the run. */
static atomic_long_t kpt_after_unregister;	/* handler ran after unregister returned */
static atomic_long_t kpt_while_off;		/* handler ran in an "off" state */
static atomic_long_t kpt_bad_stamp;		/* return without its entry's data */
static atomic_long_t kpt_batch_ran;		/* failed batch had a handler run */
static atomic_long_t kpt_wrong_result;		/* a target returned a wrong value */
static atomic_long_t kpt_wrong_arg;		/* a jprobe saw a wrong argument */
static unsigned long kpt_lost;			/* must > hits + missed */
static unsigned long kpt_extra;			/* hits > may */
static unsigned long kpt_op_errors;		/* a valid operation failed */
static unsigned long kpt_bad_accepted;		/* a bad batch registered */

/* Counts for the verdict line. */
static atomic_long_t kpt_calls;
static atomic_long_t kpt_hits_total;	/* all probes, the module's too */
static unsigned long kpt_must_total, kpt_may_total, kpt_missed_total[KPT_M_NR];
static unsigned long kpt_windows, kpt_regs, kpt_unregs, kpt_enables, kpt_disables;
static unsigned long kpt_batches, kpt_bad_batches;
static DEFINE_MUTEX(kpt_count_lock);	/* the unsigned long counts */

static unsigned int kpt_state(long seq)
{
	return seq & 3;
}

static struct kpt_window *kpt_win(struct kpt_slot *s, long seq)
{
	return &s->win[(seq >> 2) & 3];
}

/* Context: any handler context (int3, ftrace, rethook); NMI-safe. */
/*
 * Entry hits per CPU and slot: a caller compares them around its own
 * call, so a kprobe hit lost inside an armed window is seen at once and
 * reported with the state it happened in (the window check only says
 * how many, later).
 */
static DEFINE_PER_CPU(unsigned long [KPT_NR_SLOTS], kpt_cpu_hits);

static void kpt_hit(struct kpt_slot *s, int ret)
{
	long seq = atomic_long_read(&s->seq);

	/* (The probes in kprobes_torture_target have slots of their own.) */
	if (!ret && s >= kpt_slots && s < kpt_slots + KPT_NR_SLOTS)
		this_cpu_inc(kpt_cpu_hits[s - kpt_slots]);

	if (READ_ONCE(s->dead))
		atomic_long_inc(&kpt_after_unregister);
	if (kpt_state(seq) == KPT_OFF)
		atomic_long_inc(&kpt_while_off);
	atomic_long_inc(&kpt_win(s, seq)->hits[ret]);
	atomic_long_inc(&kpt_hits_total);
}
NOKPROBE_SYMBOL(kpt_hit);

/*
 * Preemption where a hit resumes.  A boosted hit returns from the
 * breakpoint straight into the copy of the probed instruction in its
 * slot, with interrupts on again; an interrupt pending at that moment
 * comes in before the copy runs, so a wakeup of a real-time task in it
 * preempts the caller inside the slot (on a kernel that preempts on
 * the way out of an interrupt: preempt=full).  There the caller stays
 * for slot_preempt_us while the controllers unregister the probe,
 * which releases the slot, and register others, which may be given it
 * once it is free: the slot must not be written again before the
 * caller ran on out of it (slots are reused only after RCU Tasks), or
 * it resumes in another site's copy and jumps back into the wrong
 * place: a wrong result, or worse.  A stepped hit resumes in the slot
 * with interrupts off, and a jump-optimized one in its detour buffer
 * or the handler's caller (preempted there alike).
 *
 * The first online CPU has a squatter, a SCHED_FIFO thread bound to
 * it, and an irq_work that wakes it; the irq_work's self-IPI is the
 * pending interrupt.  One preemption at a time; the squatter spins for
 * slot_preempt_us, then leaves the CPU alone for as long before it
 * takes the next request.  kpt_reuser() runs on another CPU, where the
 * squatter does not keep it from running.
 */
struct kpt_squat {
	struct irq_work work;
	struct task_struct *task;
	struct kpt_slot *asker;	/* the probe whose hit asked */
	unsigned long asked;	/* preemptions asked for on this CPU */
	bool busy;		/* asked, not yet done */
};

static DEFINE_PER_CPU(struct kpt_squat, kpt_squat);
static bool kpt_preempting;
/* Calls preempted between asking in their hit and returning. */
static atomic_long_t kpt_slot_preempts;

static struct kpt_slot *kpt_victim_slot;

/* Context: a pre_handler (breakpoint, or an optimized probe's detour). */
static void kpt_ask_preempt(struct kpt_slot *s)
{
	struct kpt_squat *sq = this_cpu_ptr(&kpt_squat);

	if (!READ_ONCE(kpt_preempting) || !sq->task || READ_ONCE(sq->busy))
		return;
	WRITE_ONCE(sq->busy, true);
	sq->asker = s;
	sq->asked++;
	irq_work_queue(&sq->work);
}
NOKPROBE_SYMBOL(kpt_ask_preempt);

/* Context: hard interrupt, on the CPU that asked. */
static void kpt_squat_kick(struct irq_work *work)
{
	wake_up_process(container_of(work, struct kpt_squat, work)->task);
}

static int kpt_squatter(void *arg)
{
	struct kpt_squat *sq = arg;
	u64 end;

	sched_set_fifo_low(current);
	while (!kthread_should_stop()) {
		set_current_state(TASK_INTERRUPTIBLE);
		if (!READ_ONCE(sq->busy)) {
			schedule();
			continue;
		}
		__set_current_state(TASK_RUNNING);
		/* the caller that asked is preempted now: say so, and hold it */
		WRITE_ONCE(kpt_victim_slot, sq->asker);
		end = ktime_get_ns() + slot_preempt_us * NSEC_PER_USEC;
		while (ktime_get_ns() < end && !kthread_should_stop())
			cpu_relax();
		WRITE_ONCE(kpt_victim_slot, NULL);
		usleep_range(slot_preempt_us, slot_preempt_us + 100);
		WRITE_ONCE(sq->busy, false);
	}
	return 0;
}

/*
 * Start the squatter, on the first online CPU, and return the CPU for
 * kpt_reuser(), or nr_cpu_ids (one CPU: no squatter, no reuser).
 * kpt_main() only, under cpus_read_lock().
 */
static int kpt_squatters_start(unsigned int *reuser_cpu)
{
	struct kpt_squat *sq;
	struct task_struct *t;
	unsigned int cpu;

	*reuser_cpu = nr_cpu_ids;
	for_each_possible_cpu(cpu)
		init_irq_work(&per_cpu_ptr(&kpt_squat, cpu)->work, kpt_squat_kick);
	if (!slot_preempt_us || num_online_cpus() < 2)
		return 0;
	cpu = cpumask_first(cpu_online_mask);
	sq = per_cpu_ptr(&kpt_squat, cpu);
	t = kthread_create_on_cpu(kpt_squatter, sq, cpu, "kpt_squat/%u");
	if (IS_ERR(t))
		return PTR_ERR(t);
	sq->task = t;
	wake_up_process(t);
	*reuser_cpu = cpumask_any_but(cpu_online_mask, cpu);
	WRITE_ONCE(kpt_preempting, true);
	return 0;
}

static void kpt_squatters_stop(void)
{
	unsigned int cpu;

	WRITE_ONCE(kpt_preempting, false);
	for_each_possible_cpu(cpu) {
		struct kpt_squat *sq = per_cpu_ptr(&kpt_squat, cpu);

		irq_work_sync(&sq->work);
		if (sq->task)
			kthread_stop(sq->task);
		sq->task = NULL;
	}
}

static int kpt_kp_pre(struct kprobe *p, struct pt_regs *regs)
{
	struct kpt_slot *s = container_of(p, struct kpt_slot, kp);

	kpt_hit(s, 0);
	if (s->preempt)
		kpt_ask_preempt(s);
	return 0;
}
NOKPROBE_SYMBOL(kpt_kp_pre);

/* Context: as kpt_kp_pre(), after the probed instruction. */
static void kpt_kp_post(struct kprobe *p, struct pt_regs *regs,
			unsigned long flags)
{
	kpt_hit(container_of(p, struct kpt_slot, kp), 1);
}
NOKPROBE_SYMBOL(kpt_kp_post);

/*
 * The argument each caller thread passes to the target it calls now: a
 * jprobe handler must see exactly that (callers are bound to their CPU,
 * and no other context calls the targets).
 */
static DEFINE_PER_CPU(int, kpt_cur_arg);

#ifdef CONFIG_JPROBES
static void kpt_jp_hit(struct kpt_slot *s, int v)
{
	if (v != this_cpu_read(kpt_cur_arg) &&
	    atomic_long_inc_return(&kpt_wrong_arg) <= 3)
		pr_err("%s: jprobe handler got %d, the call passed %d\n",
		       s->name, v, this_cpu_read(kpt_cur_arg));
	kpt_hit(s, 0);
}
NOKPROBE_SYMBOL(kpt_jp_hit);

static struct kpt_slot *kpt_jp_entry_slot, *kpt_jp_sleep_slot;

/* jprobe handlers: the prototypes of kpt_entry() and kpt_sleep(). */
static int kpt_jp_entry(int v)
{
	kpt_jp_hit(kpt_jp_entry_slot, v);
	return 0;
}
NOKPROBE_SYMBOL(kpt_jp_entry);

static int kpt_jp_sleep(int v)
{
	kpt_jp_hit(kpt_jp_sleep_slot, v);
	return 0;
}
NOKPROBE_SYMBOL(kpt_jp_sleep);
#endif

static void kpt_stamp_set(struct kpt_stamp *st)
{
	st->magic = KPT_MAGIC;
	st->task = current;
}

static void kpt_stamp_check(struct kpt_stamp *st)
{
	if (st->magic != KPT_MAGIC || st->task != current)
		atomic_long_inc(&kpt_bad_stamp);
	st->magic = 0;
}

static int kpt_krp_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct kretprobe *rp = get_kretprobe(ri);

	kpt_stamp_set((struct kpt_stamp *)ri->data);
	if (rp)
		kpt_hit(container_of(rp, struct kpt_slot, rp), 0);
	return 0;
}
NOKPROBE_SYMBOL(kpt_krp_entry);

static int kpt_krp_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct kretprobe *rp = get_kretprobe(ri);

	kpt_stamp_check((struct kpt_stamp *)ri->data);
	if (rp)
		kpt_hit(container_of(rp, struct kpt_slot, rp), 1);
	return 0;
}
NOKPROBE_SYMBOL(kpt_krp_ret);

/*
 * A kretprobe without an entry_handler takes the core's shorter hook
 * (rethook_try_hook()): only its returns are counted.
 */
static int kpt_krp_ret_plain(struct kretprobe_instance *ri,
			     struct pt_regs *regs)
{
	struct kretprobe *rp = get_kretprobe(ri);

	if (rp)
		kpt_hit(container_of(rp, struct kpt_slot, rp), 1);
	return 0;
}
NOKPROBE_SYMBOL(kpt_krp_ret_plain);

static int kpt_fp_entry(struct fprobe *fp, unsigned long ip,
			unsigned long ret_ip, struct pt_regs *regs, void *data)
{
	kpt_stamp_set(data);
	kpt_hit(container_of(fp, struct kpt_slot, fp), 0);
	return 0;
}
NOKPROBE_SYMBOL(kpt_fp_entry);

static void kpt_fp_exit(struct fprobe *fp, unsigned long ip,
			unsigned long ret_ip, struct pt_regs *regs, void *data)
{
	kpt_stamp_check(data);
	kpt_hit(container_of(fp, struct kpt_slot, fp), 1);
}
NOKPROBE_SYMBOL(kpt_fp_exit);


/* The first kind, from the probe structure itself: any time, any thread. */
static unsigned long kpt_nested(struct kpt_slot *s)
{
	switch (s->kind) {
	case KPT_KPROBE:
		return s->kp.nmissed;
	case KPT_KRETPROBE:
#ifdef KPROBE_MISS_CAUSES
		return s->rp.kp.nmissed;
#else
		return s->rp.nmissed + s->rp.kp.nmissed;
#endif
	case KPT_FPROBE:
#ifdef KPROBE_MISS_CAUSES
		return s->fp.nmissed_entry;
#else
		return s->fp.nmissed;
#endif
#ifdef CONFIG_JPROBES
	case KPT_JPROBE:
		return s->jp.kp.nmissed;
#endif
	}
	return 0;
}

/*
 * The other two are the rethook's, which goes with the probe: read them
 * into s->miss_snap while @s is registered.  Controller only.
 */
#ifdef KPROBE_MISS_CAUSES
/*
 * @all - @part for two miss counters read one after the other while
 * callers run: @part may already count a miss that @all does not yet
 * (fprobe counts an entry miss in nmissed_entry, then in nmissed), and
 * a difference that wrapped round would excuse any shortfall.
 */
static unsigned long kpt_sub(unsigned long all, unsigned long part)
{
	return all > part ? all - part : 0;
}
#endif

static void kpt_misses_snap(struct kpt_slot *s)
{
#ifdef KPROBE_MISS_CAUSES
	struct rethook *rh = NULL;
	unsigned long ret = 0;

	if (!s->registered || READ_ONCE(s->dead))
		return;
	if (s->kind == KPT_KRETPROBE) {
		rh = s->rp.rh;
		ret = (unsigned int)s->rp.nmissed;
	} else if (s->kind == KPT_FPROBE) {
		rh = s->fp.rethook;
		ret = kpt_sub(s->fp.nmissed, s->fp.nmissed_entry);
	}
	if (!rh)
		return;
	s->miss_snap[KPT_M_STOPPED] = rethook_nmissed(rh, RETHOOK_MISS_STOPPED);
	s->miss_snap[KPT_M_LOST] = rethook_nmissed(rh, RETHOOK_MISS_NO_MEM) +
				   rethook_nmissed(rh, RETHOOK_MISS_NO_RCU);
	/* the rest of the probe's own count: past maxactive */
	s->miss_snap[KPT_M_RET] = kpt_sub(ret, s->miss_snap[KPT_M_STOPPED] +
					  s->miss_snap[KPT_M_LOST]);
#endif
}

static void kpt_misses(struct kpt_slot *s, unsigned long *m)
{
#ifdef KPROBE_MISS_CAUSES
	unsigned long seen = 0;
#endif

	kpt_misses_snap(s);
	m[KPT_M_NESTED] = kpt_nested(s);
	m[KPT_M_RET] = s->miss_snap[KPT_M_RET];
	m[KPT_M_STOPPED] = s->miss_snap[KPT_M_STOPPED];
	m[KPT_M_LOST] = s->miss_snap[KPT_M_LOST];
#ifdef KPROBE_MISS_CAUSES
	/*
	 * Returns missed after the last look at a rethook that is gone
	 * now: while it was being unregistered, so stopped (they excuse
	 * nothing, but are reported).
	 */
	if (READ_ONCE(s->dead) && s->kind == KPT_KRETPROBE)
		seen = (unsigned int)s->rp.nmissed;
	else if (READ_ONCE(s->dead) && s->kind == KPT_FPROBE)
		seen = kpt_sub(s->fp.nmissed, s->fp.nmissed_entry);
	if (seen > m[KPT_M_RET] + m[KPT_M_STOPPED] + m[KPT_M_LOST])
		m[KPT_M_STOPPED] = seen - m[KPT_M_RET] - m[KPT_M_LOST];
#endif
}

/* Hit counters a window checks: entry, and return or post_handler. */
static int kpt_nr_counts(struct kpt_slot *s)
{
#ifdef CONFIG_JPROBES
	if (s->kind == KPT_JPROBE)
		return 1;
#endif
	if (s->kind == KPT_KPROBE && !s->post)
		return 1;
	return 2;
}

/* A fresh probe structure for the next registration.  Controller only. */
static void kpt_slot_prepare(struct kpt_slot *s, bool disabled)
{
	switch (s->kind) {
	case KPT_KPROBE:
		memset(&s->kp, 0, sizeof(s->kp));
		s->kp.addr = (kprobe_opcode_t *)s->addr;
		s->kp.pre_handler = kpt_kp_pre;
		if (s->post)
			s->kp.post_handler = kpt_kp_post;
		if (disabled)
			s->kp.flags = KPROBE_FLAG_DISABLED;
		break;
#ifdef CONFIG_JPROBES
	case KPT_JPROBE:
		memset(&s->jp, 0, sizeof(s->jp));
		s->jp.kp.addr = (kprobe_opcode_t *)s->addr;
		s->jp.entry = s->jp_handler;
		if (disabled)
			s->jp.kp.flags = KPROBE_FLAG_DISABLED;
		break;
#endif
	case KPT_KRETPROBE:
		memset(&s->rp, 0, sizeof(s->rp));
		s->rp.kp.addr = (kprobe_opcode_t *)s->addr;
		if (s->plain) {
			s->rp.handler = kpt_krp_ret_plain;
		} else {
			s->rp.entry_handler = kpt_krp_entry;
			s->rp.handler = kpt_krp_ret;
			s->rp.data_size = sizeof(struct kpt_stamp);
		}
		if (disabled)
			s->rp.kp.flags = KPROBE_FLAG_DISABLED;
		break;
	case KPT_FPROBE:
		memset(&s->fp, 0, sizeof(s->fp));
		s->fp.entry_handler = kpt_fp_entry;
		s->fp.exit_handler = kpt_fp_exit;
		s->fp.entry_data_size = sizeof(struct kpt_stamp);
		break;
	}
	memset(s->miss_base, 0, sizeof(s->miss_base));
	memset(s->miss_snap, 0, sizeof(s->miss_snap));
	WRITE_ONCE(s->dead, false);
}

static void kpt_count(unsigned long *c, unsigned long n)
{
	mutex_lock(&kpt_count_lock);
	*c += n;
	mutex_unlock(&kpt_count_lock);
}

/* Move a slot to the next state; full barriers order it against the
 * register/unregister calls around it.
 */
static void kpt_advance(struct kpt_slot *s)
{
	smp_mb();	/* the (un)registration before is complete ... */
	atomic_long_inc(&s->seq);
	smp_mb();	/* ... and the one after starts later; pairs with kpt_caller() */
}

/* From "arming" straight to "disarming": the arming failed. */
static void kpt_arming_failed(struct kpt_slot *s)
{
	smp_mb();	/* as in kpt_advance() */
	atomic_long_add(2, &s->seq);
	smp_mb();	/* as in kpt_advance() */
}

/*
 * Close the window of a slot that is "disarming" and already disarmed:
 * wait until neither a handler nor a call of the window can still be
 * running, go "off", wait for callers that read the old word, check.
 */
static void kpt_close_window(struct kpt_slot *s)
{
	long seq = atomic_long_read(&s->seq);
	struct kpt_window *w = kpt_win(s, seq);
	unsigned long must, may, m[KPT_M_NR], excuse;
	int i, nr = kpt_nr_counts(s);

	WARN_ON_ONCE(kpt_state(seq) != KPT_DISARMING);
	synchronize_rcu();
	synchronize_srcu(&kpt_srcu);
	kpt_advance(s);
	synchronize_srcu(&kpt_srcu);

	must = atomic_long_read(&w->must);
	may = atomic_long_read(&w->may);
	kpt_misses(s, m);
	for (i = 0; i < KPT_M_NR; i++)
		m[i] -= s->miss_base[i];
	/* A plain kretprobe counts its returns only. */
	for (i = s->plain ? 1 : 0; i < nr; i++) {
		unsigned long hits = atomic_long_read(&w->hits[i]);

		/* A post_handler's hits are excused as its pre_handler's. */
		excuse = m[KPT_M_NESTED];
		if (i && s->kind != KPT_KPROBE)
			excuse += m[KPT_M_RET];
		if (strict && hits + excuse < must) {
			pr_err("%s: window %ld %s: %lu hits + %lu missed (%lu nested, %lu past maxactive, %lu stopped, %lu for want of memory or RCU) < %lu calls made while armed\n",
			       s->name, seq >> 2, i ? "return" : "entry",
			       hits, excuse, m[KPT_M_NESTED], m[KPT_M_RET],
			       m[KPT_M_STOPPED], m[KPT_M_LOST], must);
			kpt_count(&kpt_lost, 1);
		}
		if (hits > may) {
			pr_err("%s: window %ld %s: %lu hits > %lu calls that could see the probe\n",
			       s->name, seq >> 2, i ? "return" : "entry",
			       hits, may);
			kpt_count(&kpt_extra, 1);
		}
	}
	mutex_lock(&kpt_count_lock);
	for (i = 0; i < KPT_M_NR; i++) {
		s->missed_total[i] += m[i];
		kpt_missed_total[i] += m[i];
	}
	kpt_must_total += must;
	kpt_may_total += may;
	kpt_windows++;
	mutex_unlock(&kpt_count_lock);
	atomic_long_set(&w->must, 0);
	atomic_long_set(&w->may, 0);
	atomic_long_set(&w->hits[0], 0);
	atomic_long_set(&w->hits[1], 0);
}

static int kpt_do_register(struct kpt_slot *s)
{
	switch (s->kind) {
	case KPT_KPROBE:
		return register_kprobe(&s->kp);
	case KPT_KRETPROBE:
		return register_kretprobe(&s->rp);
	case KPT_FPROBE:
		return register_fprobe(&s->fp, s->sym, NULL);
#ifdef CONFIG_JPROBES
	case KPT_JPROBE:
		return register_jprobe(&s->jp);
#endif
	}
	return -EINVAL;
}

static void kpt_do_unregister(struct kpt_slot *s)
{
	switch (s->kind) {
	case KPT_KPROBE:
		unregister_kprobe(&s->kp);
		break;
	case KPT_KRETPROBE:
		unregister_kretprobe(&s->rp);
		break;
	case KPT_FPROBE:
		unregister_fprobe(&s->fp);
		break;
#ifdef CONFIG_JPROBES
	case KPT_JPROBE:
		unregister_jprobe(&s->jp);
		break;
#endif
	}
	WRITE_ONCE(s->dead, true);
	kpt_count(&kpt_unregs, 1);
}

static int kpt_do_enable(struct kpt_slot *s, bool on)
{
	int ret = 0;

	switch (s->kind) {
	case KPT_KPROBE:
		ret = on ? enable_kprobe(&s->kp) : disable_kprobe(&s->kp);
		break;
	case KPT_KRETPROBE:
		ret = on ? enable_kretprobe(&s->rp) : disable_kretprobe(&s->rp);
		break;
	case KPT_FPROBE:
		if (on)
			enable_fprobe(&s->fp);
		else
			disable_fprobe(&s->fp);
		break;
#ifdef CONFIG_JPROBES
	case KPT_JPROBE:
		ret = on ? enable_jprobe(&s->jp) : disable_jprobe(&s->jp);
		break;
#endif
	}
	kpt_count(on ? &kpt_enables : &kpt_disables, 1);
	return ret;
}

static void kpt_op_failed(struct kpt_slot *s, const char *op, int ret)
{
	pr_err("%s: %s failed: %d\n", s->name, op, ret);
	kpt_count(&kpt_op_errors, 1);
}

/* Register one slot, armed or (kprobes, kretprobes) disabled. */
static void kpt_register(struct kpt_slot *s, bool disabled)
{
	int ret;

	kpt_slot_prepare(s, disabled);
	if (!disabled)
		kpt_advance(s);			/* arming */
	ret = kpt_do_register(s);
	if (ret) {
		kpt_op_failed(s, "register", ret);
		WRITE_ONCE(s->dead, true);
		if (!disabled) {
			kpt_arming_failed(s);
			kpt_close_window(s);
		}
		return;
	}
	kpt_count(&kpt_regs, 1);
	s->registered = true;
	s->enabled = !disabled;
	if (!disabled)
		kpt_advance(s);			/* armed */
}

static void kpt_unregister(struct kpt_slot *s)
{
	if (s->enabled)
		kpt_advance(s);			/* disarming */
	/* The rethook's counts go with it. */
	kpt_misses_snap(s);
	kpt_do_unregister(s);
	if (s->enabled)
		kpt_close_window(s);
	s->registered = false;
	s->enabled = false;
}

static void kpt_enable(struct kpt_slot *s)
{
	int ret;

	kpt_misses(s, s->miss_base);
	kpt_advance(s);				/* arming */
	ret = kpt_do_enable(s, true);
	if (ret) {
		kpt_op_failed(s, "enable", ret);
		kpt_arming_failed(s);
		kpt_close_window(s);
		return;
	}
	kpt_advance(s);				/* armed */
	s->enabled = true;
}

static void kpt_disable(struct kpt_slot *s)
{
	int ret;

	kpt_advance(s);				/* disarming */
	ret = kpt_do_enable(s, false);
	if (ret)
		kpt_op_failed(s, "disable", ret);
	kpt_close_window(s);
	s->enabled = false;
}

static struct kprobe *kpt_kprobe_of(struct kpt_slot *s)
{
	return s->kind == KPT_KPROBE ? &s->kp : &s->rp.kp;
}

/*
 * Register several free slots of one kind as one batch, optionally with
 * a bad probe in the middle.  A good batch arms all of them; a bad one
 * must fail as a whole, with no handler run and nothing left registered
 * (unregistering a probe that is not registered is harmless, and a
 * second registration of the same structures must succeed).
 */
static void kpt_batch(struct kpt_slot **set, int n, enum kpt_kind kind,
		      int bad, struct rnd_state *rnd)
{
	struct kprobe *kps[KPT_NR_SLOTS + 1];
	struct kretprobe *rps[KPT_NR_SLOTS + 1];
	struct kretprobe bad_rp = { };
	struct kprobe bad_kp = { };
	int i, j, ret, nr = 0, pos;

	pos = bad ? prandom_u32_state(rnd) % (n + 1) : -1;
	for (i = 0, j = 0; j < n + (bad ? 1 : 0); j++) {
		if (j == pos) {
			switch (bad) {
			case 1:	/* unknown symbol */
				bad_kp.symbol_name = "kpt_no_such_symbol";
				break;
			case 2:	/* both an address and a symbol */
				bad_kp.symbol_name = "kpt_entry";
				bad_kp.addr = (kprobe_opcode_t *)kpt_entry;
				break;
			default: /* inside an instruction, or the same symbol twice */
				if (KPT_MID_BAD)
					bad_kp.addr = (kprobe_opcode_t *)KPT_MID_BAD;
				else
					bad_kp.symbol_name = "kpt_no_such_symbol";
				break;
			}
			bad_kp.pre_handler = kpt_kp_pre;	/* never called */
			bad_rp.kp = bad_kp;
			bad_rp.handler = kpt_krp_ret;
			if (kind == KPT_KRETPROBE && bad == 3)	/* not an entry */
				bad_rp.kp.addr = (kprobe_opcode_t *)KPT_MID_A;
			kps[nr] = &bad_kp;
			rps[nr++] = &bad_rp;
			continue;
		}
		kpt_slot_prepare(set[i], false);
		kpt_advance(set[i]);		/* arming */
		kps[nr] = kpt_kprobe_of(set[i]);
		rps[nr++] = &set[i]->rp;
		i++;
	}

	if (kind == KPT_KPROBE)
		ret = register_kprobes(kps, nr);
	else
		ret = register_kretprobes(rps, nr);

	if (!bad) {
		kpt_count(&kpt_batches, 1);
		for (i = 0; i < n; i++) {
			if (ret) {
				kpt_op_failed(set[i], "batch register", ret);
				WRITE_ONCE(set[i]->dead, true);
				kpt_arming_failed(set[i]);
				kpt_close_window(set[i]);
				continue;
			}
			kpt_count(&kpt_regs, 1);
			set[i]->registered = true;
			set[i]->enabled = true;
			kpt_advance(set[i]);	/* armed */
		}
		return;
	}

	kpt_count(&kpt_bad_batches, 1);
	if (!ret) {
		pr_err("a batch of %d with a bad entry (kind %d) registered\n",
		       nr, bad);
		kpt_count(&kpt_bad_accepted, 1);
		if (kind == KPT_KPROBE)
			unregister_kprobes(kps, nr);
		else
			unregister_kretprobes(rps, nr);
	}
	/*
	 * The good members were never registered: their window saw the
	 * calls as "may" (arming) but must show no hit at all.
	 */
	for (i = 0; i < n; i++) {
		struct kpt_slot *s = set[i];
		long seq = atomic_long_read(&s->seq);
		struct kpt_window *w = kpt_win(s, seq);

		WRITE_ONCE(s->dead, true);
		kpt_arming_failed(s);
		synchronize_rcu();
		if (atomic_long_read(&w->hits[0]) || atomic_long_read(&w->hits[1])) {
			pr_err("%s: handler ran in a failed batch\n", s->name);
			atomic_long_inc(&kpt_batch_ran);
		}
		kpt_close_window(s);
	}
}

/* ---------------------------------------------------------------- */
/* Threads                                                          */
/* ---------------------------------------------------------------- */

static struct task_struct **kpt_callers;
static struct task_struct **kpt_ctls;
static unsigned int kpt_nr_callers;

/* Account one call for one slot, given its word before and after. */
static void kpt_account(struct kpt_slot *s, long s1, long s2, long n)
{
	long w;

	if (s1 == s2 && kpt_state(s1) == KPT_ARMED)
		atomic_long_add(n, &kpt_win(s, s1)->must);
	for (w = s1 >> 2; w <= s2 >> 2; w++) {
		long lo = max(s1, 4 * w + 1), hi = min(s2, 4 * w + 3);

		if (lo <= hi)
			atomic_long_add(n, &s->win[w & 3].may);
	}
}

static atomic_t kpt_lost_reports;

/*
 * A call of @s's kprobe target ran wholly in an armed window and this
 * CPU saw no entry hit and no miss: say what the text and the registry
 * look like right now.  Caller thread, bound to its CPU.
 */
static void kpt_check_own_hit(struct kpt_slot *s, unsigned long hits_before,
			      unsigned long missed_before, long seq, long n)
{
	unsigned long hits = this_cpu_read(kpt_cpu_hits[s - kpt_slots]);
	unsigned long missed = kpt_nested(s);
	u8 text[8];

	if (s->kind != KPT_KPROBE || hits - hits_before >= n ||
	    missed != missed_before)
		return;
	if (atomic_inc_return(&kpt_lost_reports) > 3)
		return;
	copy_from_kernel_nofault(text, (void *)s->addr, sizeof(text));
	pr_err("%s: lost hit on cpu %d, window %ld: %ld calls, %lu hits; text %8ph; probe flags %#x\n",
	       s->name, raw_smp_processor_id(), seq >> 2, n,
	       hits - hits_before, text, READ_ONCE(s->kp.flags));
}

static int kpt_caller(void *arg)
{
	struct rnd_state rnd;
	unsigned long hits[KPT_NR_SLOTS], missed[KPT_NR_SLOTS];
	struct kpt_squat *sq = this_cpu_ptr(&kpt_squat);
	unsigned long asked, switches;
	long before[KPT_NR_SLOTS];
	unsigned int i;

	prandom_seed_state(&rnd, seed + (unsigned long)arg * 7919);
	while (!kthread_should_stop()) {
		int t = prandom_u32_state(&rnd) % KPT_T_NR;
		int v = prandom_u32_state(&rnd) % KPT_MAX_DEPTH;
		long n = t == KPT_T_RECURSE ? v + 1 : 1;
		int idx, ret;

		idx = srcu_read_lock(&kpt_srcu);
		for (i = 0; i < KPT_NR_SLOTS; i++)
			if (kpt_slots[i].target == t) {
				before[i] = atomic_long_read(&kpt_slots[i].seq);
				hits[i] = this_cpu_read(kpt_cpu_hits[i]);
				missed[i] = kpt_nested(&kpt_slots[i]);
			}
		this_cpu_write(kpt_cur_arg, v);
		asked = READ_ONCE(sq->asked);
		switches = READ_ONCE(current->nivcsw);
		smp_mb();	/* words read before the call; pairs with kpt_advance() */
		ret = kpt_targets[t](v);
		smp_mb();	/* and again after it returned */
		if (READ_ONCE(sq->asked) != asked &&
		    READ_ONCE(current->nivcsw) != switches)
			atomic_long_inc(&kpt_slot_preempts);
		if (unlikely(ret != kpt_expected(t, v)) &&
		    atomic_long_inc_return(&kpt_wrong_result) <= 3)
			pr_err("target %d(%d) returned %d, not %d\n", t, v,
			       ret, kpt_expected(t, v));
		for (i = 0; i < KPT_NR_SLOTS; i++) {
			long after;

			if (kpt_slots[i].target != t)
				continue;
			after = atomic_long_read(&kpt_slots[i].seq);
			kpt_account(&kpt_slots[i], before[i], after, n);
			if (strict && before[i] == after &&
			    kpt_state(after) == KPT_ARMED)
				kpt_check_own_hit(&kpt_slots[i], hits[i],
						  missed[i], after, n);
		}
		srcu_read_unlock(&kpt_srcu, idx);
		atomic_long_inc(&kpt_calls);
		cond_resched();
	}
	return 0;
}

static int kpt_controller(void *arg)
{
	unsigned long me = (unsigned long)arg;
	struct kpt_slot *set[KPT_NR_SLOTS];
	struct rnd_state rnd;
	unsigned int i;

	prandom_seed_state(&rnd, seed * 31 + me);
	while (!kthread_should_stop()) {
		u32 r = prandom_u32_state(&rnd);
		struct kpt_slot *s;

		if (r % 16 == 0) {
			/* A batch of this controller's free slots of one kind. */
			enum kpt_kind kind = (r >> 4) & 1 ? KPT_KRETPROBE : KPT_KPROBE;
			int n = 0;

			for (i = me; i < KPT_NR_CTL_SLOTS; i += controllers)
				if (kpt_slots[i].kind == kind && !kpt_slots[i].registered)
					set[n++] = &kpt_slots[i];
			if (n)
				kpt_batch(set, n, kind, (r >> 5) % 4, &rnd);
			continue;
		}
		i = me + controllers * ((r >> 8) % ((KPT_NR_CTL_SLOTS - me + controllers - 1) / controllers));
		s = &kpt_slots[i];
		if (!s->registered)
			kpt_register(s, s->kind != KPT_FPROBE && r % 4 == 1);
		else if (r & 0x10)
			kpt_unregister(s);
		else if (s->enabled)
			kpt_disable(s);
		else
			kpt_enable(s);
		if (r & 0x20)
			usleep_range(100, 1000);
		cond_resched();
	}
	for (i = me; i < KPT_NR_CTL_SLOTS; i += controllers)
		if (kpt_slots[i].registered)
			kpt_unregister(&kpt_slots[i]);
	return 0;
}

/*
 * The slot reuse a preemption inside a copy is there for, made to
 * happen rather than waited for: while a caller sits preempted after a
 * hit of kp-mid-c (kpt_ask_preempt()), unregister kp-mid-c, which
 * releases its copies, and keep registering and unregistering a probe
 * of no slot's at D until the caller runs again, so that D's copies are
 * given any slot of kp-mid-c's that comes back meanwhile (slots are
 * handed out lowest first).  A slot that came back too early holds D's
 * copy when the caller resumes in it: a wrong result, or a breakpoint
 * that is no probe's.  kp-mid-c's window closes only after that (it
 * waits for the callers, the preempted one included).  Owns kp-mid-c
 * as a controller owns its slots.
 */
static unsigned long kpt_reuse_tries, kpt_reuse_seen;
static struct task_struct *kpt_reuser_task;
static struct kprobe kpt_reuse_kp;

static int kpt_reuse_pre(struct kprobe *p, struct pt_regs *regs)
{
	return 0;
}
NOKPROBE_SYMBOL(kpt_reuse_pre);

static void kpt_reuse_churn(struct kpt_slot *c)
{
	int ret;

	while (READ_ONCE(kpt_victim_slot) == c && !kthread_should_stop()) {
		memset(&kpt_reuse_kp, 0, sizeof(kpt_reuse_kp));
		kpt_reuse_kp.addr = (kprobe_opcode_t *)KPT_MID_D;
		kpt_reuse_kp.pre_handler = kpt_reuse_pre;
		ret = register_kprobe(&kpt_reuse_kp);
		if (ret) {
			kpt_op_failed(c, "register at D", ret);
			return;
		}
		usleep_range(1000, 2000);
		unregister_kprobe(&kpt_reuse_kp);
	}
}

static int kpt_reuser(void *arg)
{
	struct kpt_slot *c = KPT_SLOT_C;
	unsigned long end;

	while (!kthread_should_stop()) {
		kpt_register(c, false);
		if (!c->registered)
			continue;
		end = jiffies + HZ;
		while (READ_ONCE(kpt_victim_slot) != c &&
		       time_before(jiffies, end) && !kthread_should_stop())
			usleep_range(200, 400);
		if (READ_ONCE(kpt_victim_slot) != c) {
			kpt_unregister(c);
			continue;
		}
		kpt_count(&kpt_reuse_seen, 1);
		/* kpt_unregister(), with the churn before the window closes */
		kpt_advance(c);			/* disarming */
		kpt_misses_snap(c);
		kpt_do_unregister(c);
		if (READ_ONCE(kpt_victim_slot) == c) {
			kpt_count(&kpt_reuse_tries, 1);
			kpt_reuse_churn(c);
		}
		kpt_close_window(c);
		c->registered = false;
		c->enabled = false;
	}
	if (c->registered)
		kpt_unregister(c);
	return 0;
}

/* ---------------------------------------------------------------- */
/* Probes inside a module that comes and goes                       */
/* ---------------------------------------------------------------- */

#define KPT_MOD_NAME	"kprobes_torture_target"

static struct kpt_slot kpt_mod_slots[] = {
	{ "mod-kp-entry", KPT_KPROBE },
	{ "mod-krp-entry", KPT_KRETPROBE },
	{ "mod-kp-mid", KPT_KPROBE },
	{ "mod-fp-entry", KPT_FPROBE, .sym = "ktt_work" },
};
static const char * const kpt_mod_syms[] = {
	KPT_MOD_NAME ":ktt_work", KPT_MOD_NAME ":ktt_work",
	KPT_MOD_NAME ":ktt_mid_site", NULL,
};
static DEFINE_MUTEX(kpt_mod_lock);
static unsigned long kpt_mod_loads, kpt_mod_probes;
static bool kpt_mod_watching;

/* Unregister what the last load got.  Context: kpt_mod_lock held. */
static void kpt_mod_release(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(kpt_mod_slots); i++) {
		struct kpt_slot *s = &kpt_mod_slots[i];

		if (!s->registered)
			continue;
		kpt_do_unregister(s);
		s->registered = false;
	}
}

/*
 * Hits of these probes are not accounted by window (the module's own
 * thread makes the calls); their slots stay "armed" so that only the
 * after-unregister and entry/return pairing checks apply.
 */
static void kpt_mod_arm(void)
{
	unsigned int i;
	int ret;

	kpt_mod_release();
	kpt_mod_loads++;
	for (i = 0; i < ARRAY_SIZE(kpt_mod_slots); i++) {
		struct kpt_slot *s = &kpt_mod_slots[i];

		if (!(module_probes & BIT(i)))
			continue;
		kpt_slot_prepare(s, false);
		if (s->kind == KPT_KPROBE)
			s->kp.symbol_name = kpt_mod_syms[i];
		else if (s->kind == KPT_KRETPROBE)
			s->rp.kp.symbol_name = kpt_mod_syms[i];
		s->kp.addr = NULL;
		if (s->kind == KPT_KRETPROBE)
			s->rp.kp.addr = NULL;
		atomic_long_set(&s->seq, KPT_ARMED);
		ret = kpt_do_register(s);
		if (ret) {
			kpt_op_failed(s, "register in module", ret);
			continue;
		}
		s->registered = true;
		kpt_mod_probes++;
	}
}

static int kpt_mod_notify(struct notifier_block *nb, unsigned long val,
			  void *data)
{
	struct module *mod = data;

	if (strcmp(mod->name, KPT_MOD_NAME))
		return NOTIFY_DONE;
	mutex_lock(&kpt_mod_lock);
	if (val == MODULE_STATE_GOING && module_release_going)
		kpt_mod_release();
	else if (val == MODULE_STATE_LIVE && kpt_mod_watching)
		kpt_mod_arm();
	mutex_unlock(&kpt_mod_lock);
	return NOTIFY_DONE;
}

static struct notifier_block kpt_mod_nb = {
	.notifier_call = kpt_mod_notify,
};

/* ---------------------------------------------------------------- */
/* Run                                                              */
/* ---------------------------------------------------------------- */

static struct task_struct *kpt_main_task;

static unsigned long kpt_violations(void)
{
	return atomic_long_read(&kpt_after_unregister) +
	       atomic_long_read(&kpt_while_off) +
	       atomic_long_read(&kpt_bad_stamp) +
	       atomic_long_read(&kpt_batch_ran) +
	       atomic_long_read(&kpt_wrong_result) +
	       atomic_long_read(&kpt_wrong_arg) +
	       kpt_lost + kpt_extra + kpt_op_errors + kpt_bad_accepted;
}

static void kpt_stop_all(struct task_struct **ts, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (ts[i])
			kthread_stop(ts[i]);
}

static int kpt_main(void *unused)
{
	unsigned long end, left_registered = 0;
	unsigned int i, cpu, n = 0, reuser_cpu;
	int err = 0;

	kpt_callers = kcalloc(nr_cpu_ids, sizeof(*kpt_callers), GFP_KERNEL);
	kpt_ctls = kcalloc(controllers, sizeof(*kpt_ctls), GFP_KERNEL);
	if (!kpt_callers || !kpt_ctls) {
		err = -ENOMEM;
		goto out;
	}

	mutex_lock(&kpt_mod_lock);
	kpt_mod_watching = true;
	mutex_unlock(&kpt_mod_lock);
	err = register_module_notifier(&kpt_mod_nb);
	if (err)
		goto out;

	cpus_read_lock();
	err = kpt_squatters_start(&reuser_cpu);
	for_each_online_cpu(cpu) {
		struct task_struct *t;

		if (err)
			break;
		t = kthread_create_on_cpu(kpt_caller, (void *)(unsigned long)cpu,
					  cpu, "kpt_caller/%u");
		if (IS_ERR(t)) {
			err = PTR_ERR(t);
			break;
		}
		kpt_callers[n++] = t;
		wake_up_process(t);
	}
	cpus_read_unlock();
	kpt_nr_callers = n;
	for (i = 0; i < controllers && !err; i++) {
		struct task_struct *t;

		t = kthread_run(kpt_controller, (void *)(unsigned long)i,
				"kpt_ctl/%u", i);
		if (IS_ERR(t))
			err = PTR_ERR(t);
		else
			kpt_ctls[i] = t;
	}
	if (!err && reuser_cpu < nr_cpu_ids) {
		struct task_struct *t;

		t = kthread_create_on_cpu(kpt_reuser, NULL, reuser_cpu, "kpt_reuser");
		if (IS_ERR(t)) {
			err = PTR_ERR(t);
		} else {
			kpt_reuser_task = t;
			wake_up_process(t);
		}
	}

	end = jiffies + duration * HZ;
	while (!err && time_before(jiffies, end) && !kthread_should_stop())
		schedule_timeout_interruptible(HZ / 10);

	/* Controllers first: they unregister what they hold. */
	kpt_stop_all(kpt_ctls, controllers);
	kpt_stop_all(&kpt_reuser_task, 1);
	kpt_stop_all(kpt_callers, kpt_nr_callers);
	kpt_squatters_stop();
#ifdef CONFIG_KPROBES_RACE_WINDOW
	kprobes_set_race_window(0);
#endif
	unregister_module_notifier(&kpt_mod_nb);
	mutex_lock(&kpt_mod_lock);
	kpt_mod_watching = false;
	kpt_mod_release();
	mutex_unlock(&kpt_mod_lock);

	for (i = 0; i < KPT_NR_SLOTS; i++) {
		if (kpt_slots[i].registered)
			left_registered++;
		if (kpt_slots[i].missed_total[KPT_M_NESTED] ||
		    kpt_slots[i].missed_total[KPT_M_RET] ||
		    kpt_slots[i].missed_total[KPT_M_STOPPED] ||
		    kpt_slots[i].missed_total[KPT_M_LOST])
			pr_info("%s: missed %lu nested, %lu returns past maxactive, %lu with the rethook stopped, %lu for want of memory or RCU\n",
				kpt_slots[i].name,
				kpt_slots[i].missed_total[KPT_M_NESTED],
				kpt_slots[i].missed_total[KPT_M_RET],
				kpt_slots[i].missed_total[KPT_M_STOPPED],
				kpt_slots[i].missed_total[KPT_M_LOST]);
	}
out:
	if (err)
		pr_err("setup failed: %d\n", err);
	pr_info("%s duration=%ds cpus=%u controllers=%d seed=%lu strict=%d calls=%ld windows=%lu must=%lu may=%lu hits=%ld missed=%lu missed_nested=%lu missed_unhooked=%lu missed_stopped=%lu missed_no_room=%lu registers=%lu unregisters=%lu enables=%lu disables=%lu batches=%lu bad_batches=%lu module_loads=%lu module_probes=%lu after_unregister=%ld while_off=%ld bad_return_data=%ld failed_batch_handlers=%ld lost=%lu extra=%lu op_errors=%lu bad_batch_accepted=%lu left_registered=%lu wrong_results=%ld wrong_jprobe_args=%ld race_window_us=%u slot_preempt_us=%u slot_preempts=%ld slot_reuse_tries=%lu slot_victims=%lu\n",
		err || kpt_violations() || left_registered ? "FAIL" : "PASS",
		duration, kpt_nr_callers, controllers, seed, strict,
		atomic_long_read(&kpt_calls), kpt_windows, kpt_must_total,
		kpt_may_total, atomic_long_read(&kpt_hits_total),
		kpt_missed_total[KPT_M_NESTED] + kpt_missed_total[KPT_M_RET] +
		kpt_missed_total[KPT_M_STOPPED] + kpt_missed_total[KPT_M_LOST],
		kpt_missed_total[KPT_M_NESTED], kpt_missed_total[KPT_M_RET],
		kpt_missed_total[KPT_M_STOPPED], kpt_missed_total[KPT_M_LOST],
		kpt_regs, kpt_unregs, kpt_enables,
		kpt_disables, kpt_batches, kpt_bad_batches, kpt_mod_loads,
		kpt_mod_probes, atomic_long_read(&kpt_after_unregister),
		atomic_long_read(&kpt_while_off),
		atomic_long_read(&kpt_bad_stamp),
		atomic_long_read(&kpt_batch_ran), kpt_lost, kpt_extra,
		kpt_op_errors, kpt_bad_accepted, left_registered,
		atomic_long_read(&kpt_wrong_result),
		atomic_long_read(&kpt_wrong_arg), race_window_us,
		slot_preempt_us, atomic_long_read(&kpt_slot_preempts),
		kpt_reuse_tries, kpt_reuse_seen);
	WRITE_ONCE(done, true);
	/* Stay until module exit stops us. */
	while (!kthread_should_stop())
		schedule_timeout_interruptible(HZ);
	return 0;
}

static int __init kpt_init(void)
{
	unsigned int i;

	if (duration < 1 || controllers < 1 || controllers > KPT_NR_SLOTS)
		return -EINVAL;
	if (!seed)
		seed = get_random_u32() | 1;
	kpt_recurse_fn = kpt_recurse;
	for (i = 0; i < KPT_NR_SLOTS; i++) {
		struct kpt_slot *s = &kpt_slots[i];

		switch (s->target) {
		case KPT_T_MID:
			if (!strcmp(s->name, "kp-mid-b"))
				s->addr = KPT_MID_B;
			else if (!strcmp(s->name, "kp-mid-c"))
				s->addr = KPT_MID_C;
			else if (!strcmp(s->name, "kp-mid-entry"))
				s->addr = (unsigned long)kpt_mid;
			else
				s->addr = KPT_MID_A;
			break;
		default:
			s->addr = (unsigned long)kpt_targets[s->target];
			break;
		}
#ifdef CONFIG_JPROBES
		if (s->kind != KPT_JPROBE)
			continue;
		if (s->target == KPT_T_ENTRY) {
			s->jp_handler = JPROBE_ENTRY(kpt_jp_entry);
			kpt_jp_entry_slot = s;
		} else {
			s->jp_handler = JPROBE_ENTRY(kpt_jp_sleep);
			kpt_jp_sleep_slot = s;
		}
#endif
	}
#ifdef CONFIG_KPROBES_RACE_WINDOW
	kprobes_set_race_window(race_window_us);
#else
	if (race_window_us) {
		pr_err("race_window_us needs CONFIG_KPROBES_RACE_WINDOW\n");
		return -EOPNOTSUPP;
	}
#endif
	pr_info("start: duration=%ds controllers=%d seed=%lu strict=%d race_window_us=%u\n",
		duration, controllers, seed, strict, race_window_us);
	kpt_main_task = kthread_run(kpt_main, NULL, "kpt_main");
	return PTR_ERR_OR_ZERO(kpt_main_task);
}

static void __exit kpt_exit(void)
{
	kthread_stop(kpt_main_task);
#ifdef CONFIG_KPROBES_RACE_WINDOW
	kprobes_set_race_window(0);
#endif
	kfree(kpt_callers);
	kfree(kpt_ctls);
}

module_init(kpt_init);
module_exit(kpt_exit);
MODULE_DESCRIPTION("kprobes, kretprobes and fprobes under churn, with exact accounting");
MODULE_LICENSE("GPL");
