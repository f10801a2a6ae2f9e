// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * kprobes NMI stress test: probes hit while NMIs keep arriving.
 *
 * Caller threads, one bound to each online CPU, call five target
 * functions in a loop, with interrupts on and off, while NMIs arrive on
 * every CPU: each caller sends one to every other CPU each round (an
 * NMI IPI, as the NMI backtrace code sends them), and every few
 * task-context handler calls a probe handler sends one to its own CPU,
 * where it arrives inside that handler.  The module's NMI handler
 * recognises its own NMIs (a per-CPU flag set before the IPI, cleared
 * when the handler is done, so that a CPU has at most one of them
 * pending) and calls the same targets: probes are hit from NMI context
 * on top of whatever the CPU was doing, a probe handler, a stepped
 * copy, a return trampoline or a detour included.
 *
 * The probes, registered once for the whole run:
 *  - kns_entry(): a kprobe (the ftrace path) and a kretprobe;
 *  - kns_fentry(): an fprobe with an exit handler;
 *  - kns_mid(): three int3 sites in its middle: one stepped (its kprobe
 *    has a post_handler), one boosted (a jump into the bytes after it
 *    keeps the optimizer away; the copy runs boosted where the trapped
 *    context has interrupts off, and is stepped elsewhere on a
 *    preemptible kernel), one jump-optimized;
 *  - kns_helper() and kns_fhelper(), which four handlers of the probes
 *    above call: a kprobe at the entry of the first (the ftrace path),
 *    an int3 kprobe in its middle and a kretprobe, and an fprobe on the
 *    second.  Called from a kprobe handler, these kprobes are nested
 *    hits, counted as missed, and the int3 site pushes a reentry level.
 *
 * The fprobes have functions of their own: where two ftrace_ops share a
 * function, ftrace calls them through its list function, whose recursion
 * guard drops a call nested too deeply in one context without anybody
 * counting it (an int3 handler runs in NMI context as ftrace sees it, so
 * a real NMI over a kprobe handler in an int3 is the same context).
 * That is ftrace's, not the probes', and would make exact counts
 * impossible.
 *
 * The accounting is exact.  Every call of a target is counted, by
 * context (a task, or this module's NMI handler), before it is made, and
 * handlers count their hits by the same context.  A caller thread's call
 * is never nested in another probe, so each probe on kns_entry(),
 * kns_fentry() and kns_mid() must have exactly one hit (and one return,
 * or one post_handler call) per such call.  An NMI's call is either a
 * hit or, when the NMI came in while the CPU ran a probe, counted in
 * nmissed.  The helpers are called from handlers too, so there only the
 * sums are exact: hits + nmissed == calls.  A kretprobe's misses are its
 * kprobe's and its own (no instance), and every entry hit has its
 * return; an fprobe's exit handler runs for every call not counted in
 * nmissed.  Each target must return what it computes without probes.
 *
 * x86_64 only.  arm64 has NMIs only as pseudo-NMIs (GIC priority
 * masking: CONFIG_ARM64_PSEUDO_NMI, a GICv3 and irqchip.gicv3_pseudo_nmi=1),
 * which neither the test kernel nor the QEMU virt guest (a GICv2) has,
 * and no interface lets a module raise one: there the module says so
 * and its verdict is SKIP.
 *
 * Parameters: duration (seconds), nmi_every (a caller sends its NMIs
 * every that many rounds; 0: never), self_nmi_every (every that many
 * task-context handler calls on a CPU, one NMI to that CPU; 0: never).
 * The verdict is one line: "kprobes_nmi_stress: PASS ...", "FAIL ..."
 * or "SKIP ...", with the counts.
 */
#define pr_fmt(fmt) "kprobes_nmi_stress: " fmt

#include <linux/atomic.h>
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/fprobe.h>
#include <linux/irqflags.h>
#include <linux/kprobes.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/slab.h>
#ifdef CONFIG_X86_64
#include <asm/apic.h>
#include <asm/nmi.h>
#include <asm/text-patching.h>
#endif

static int duration = 20;
module_param(duration, int, 0444);
MODULE_PARM_DESC(duration, "seconds to run (default 20)");

static uint nmi_every = 1;
module_param(nmi_every, uint, 0444);
MODULE_PARM_DESC(nmi_every, "a caller sends an NMI to every other CPU every that many rounds (default 1; 0: never)");

static uint self_nmi_every = 256;
module_param(self_nmi_every, uint, 0444);
MODULE_PARM_DESC(self_nmi_every, "every that many task-context handler calls, an NMI to the handler's CPU (default 256; 0: never)");

static bool done;
module_param(done, bool, 0444);
MODULE_PARM_DESC(done, "set when the verdict is printed (read only)");

#ifdef CONFIG_X86_64

/* ---------------------------------------------------------------- */
/* Targets                                                          */
/* ---------------------------------------------------------------- */

static noinline int kns_entry(int v)
{
	return v * 13 + 5;
}

/* The fprobes get functions of their own (see kns_probes[]). */
static noinline int kns_fentry(int v)
{
	return v * 7 + 2;
}

static noinline int kns_fhelper(int v)
{
	return v * 5 + 3;
}

extern const int kns_mid_offs[3];

/*
 * Three probe sites at instruction boundaries the assembler marks, their
 * offsets from the function start in kns_mid_offs[] (a difference the
 * assembler resolves: no relocation into the middle of a function, which
 * IBT would flag).  Site 1 opens a mov/add pair.  Site 2 is an imul
 * followed by the target of the js, inside the five bytes a jump would
 * replace: the optimizer refuses it, so its copy is boosted or stepped.
 * Site 4 opens a run of plain ALU instructions, which the optimizer
 * replaces with a jump.  The js is never taken: callers pass v >= 0.
 */
static noinline int kns_mid(int v)
{
	int r;

	asm volatile("test %1, %1\n\t"
		     "js 3f\n"
		     "1:\n\t"
		     "mov %1, %0\n\t"
		     "add $7, %0\n"
		     "2:\n\t"
		     "imul $3, %0, %0\n"
		     "3:\n\t"
		     "xor $0x55, %0\n"
		     "4:\n\t"
		     "add %1, %0\n\t"
		     "sub $3, %0\n\t"
		     "xor $0x11, %0\n\t"
		     ".pushsection .rodata\n\t"
		     ".balign 4\n"
		     "kns_mid_offs:\n\t"
		     ".long 1b - %c2, 2b - %c2, 4b - %c2\n\t"
		     ".popsection\n"
		     : "=&r" (r) : "r" (v), "i" (kns_mid) : "cc");
	return r;
}

extern const int kns_helper_off;

/*
 * One int3 site, a mov, kept from the optimizer as site 2 of kns_mid()
 * is: the js jumps to the instruction after it.
 */
static noinline int kns_helper(int v)
{
	int r;

	asm volatile("test %1, %1\n\t"
		     "js 2f\n"
		     "1:\n\t"
		     "mov %1, %0\n"
		     "2:\n\t"
		     "add $3, %0\n\t"
		     "xor $0x2a, %0\n\t"
		     ".pushsection .rodata\n\t"
		     ".balign 4\n"
		     "kns_helper_off:\n\t"
		     ".long 1b - %c2\n\t"
		     ".popsection\n"
		     : "=&r" (r) : "r" (v), "i" (kns_helper) : "cc");
	return r;
}

enum {
	KNS_T_ENTRY, KNS_T_FENTRY, KNS_T_MID,	/* callers and NMIs call these */
	KNS_T_HELPER, KNS_T_FHELPER,		/* handlers too */
	KNS_T_NR
};

/*
 * Called through pointers the compiler cannot see through (READ_ONCE()):
 * no inlining, and no clone for a constant argument that the probes on
 * the original would not see.
 */
static int (*kns_fns[KNS_T_NR])(int v) = {
	kns_entry, kns_fentry, kns_mid, kns_helper, kns_fhelper,
};

static int kns_expected(int t, int v)
{
	switch (t) {
	case KNS_T_ENTRY:
		return v * 13 + 5;
	case KNS_T_FENTRY:
		return v * 7 + 2;
	case KNS_T_MID:
		return (((((v + 7) * 3) ^ 0x55) + v - 3) ^ 0x11);
	case KNS_T_HELPER:
		return (v + 3) ^ 0x2a;
	default:
		return v * 5 + 3;
	}
}

/* ---------------------------------------------------------------- */
/* Probes                                                           */
/* ---------------------------------------------------------------- */

/* Where a call was made from: a task, or this module's NMI handler. */
enum { KNS_TASK, KNS_NMI, KNS_NR_CTX };

enum kns_kind { KNS_KPROBE, KNS_KRETPROBE, KNS_FPROBE };

/* Where a probe sits: a function entry, or a site of kns_mid()/kns_helper(). */
enum kns_site { KNS_AT_ENTRY, KNS_AT_STEP, KNS_AT_BOOST, KNS_AT_OPT, KNS_AT_HELPER };

/* Which of a probe's handlers calls kns_helper() and kns_fhelper(). */
enum { KNS_H_NONE, KNS_H_ENTRY, KNS_H_RETURN };

struct kns_probe {
	const char *name;
	enum kns_kind kind;
	int target;
	enum kns_site site;
	bool post;		/* a kprobe with a post_handler */
	int helper;		/* KNS_H_*: the handler that calls the helpers */
	union {
		struct kprobe kp;
		struct kretprobe rp;
		struct fprobe fp;
	};
	bool registered;
	/* [context][0: entry or pre_handler, 1: return or post_handler] */
	atomic_long_t hits[KNS_NR_CTX][2];
};

static struct kns_probe kns_probes[] = {
	{ "kp-entry",        KNS_KPROBE,    KNS_T_ENTRY,  KNS_AT_ENTRY,
	  .helper = KNS_H_ENTRY },
	{ "krp-entry",       KNS_KRETPROBE, KNS_T_ENTRY,  KNS_AT_ENTRY,
	  .helper = KNS_H_RETURN },
	{ "fp-entry",        KNS_FPROBE,    KNS_T_FENTRY, KNS_AT_ENTRY,
	  .helper = KNS_H_ENTRY },
	{ "kp-mid-step",     KNS_KPROBE,    KNS_T_MID,    KNS_AT_STEP,
	  .post = true, .helper = KNS_H_RETURN },
	{ "kp-mid-boost",    KNS_KPROBE,    KNS_T_MID,    KNS_AT_BOOST },
	{ "kp-mid-opt",      KNS_KPROBE,    KNS_T_MID,    KNS_AT_OPT },
	{ "kp-helper-entry", KNS_KPROBE,    KNS_T_HELPER, KNS_AT_ENTRY },
	{ "kp-helper-mid",   KNS_KPROBE,    KNS_T_HELPER, KNS_AT_HELPER },
	{ "krp-helper",      KNS_KRETPROBE, KNS_T_HELPER, KNS_AT_ENTRY },
	{ "fp-helper",       KNS_FPROBE,    KNS_T_FHELPER, KNS_AT_ENTRY },
};

static const char * const kns_fn_names[KNS_T_NR] = {
	"kns_entry", "kns_fentry", "kns_mid", "kns_helper", "kns_fhelper",
};

/* Calls of each target by context, counted before they are made. */
static atomic_long_t kns_calls[KNS_T_NR][KNS_NR_CTX];
static atomic_long_t kns_wrong_result;
static atomic_long_t kns_rounds;

/* NMIs: sent, handled, and where the handled ones came in. */
static atomic_long_t kns_nmis_raised[2];	/* to another CPU, to its own */
static atomic_long_t kns_nmis_handled;
static atomic_long_t kns_nmis_in_handler;	/* inside one of our handlers */
static atomic_long_t kns_nmis_in_call;		/* in a target, between handlers */

static DEFINE_PER_CPU(atomic_t, kns_nmi_pending);
static DEFINE_PER_CPU(int, kns_nmi_depth);	/* in kns_nmi() */
static DEFINE_PER_CPU(int, kns_handler_depth);	/* in one of our handlers */
static DEFINE_PER_CPU(int, kns_in_call);	/* a caller is in target N - 1 */
static DEFINE_PER_CPU(unsigned int, kns_self_tick);

/* The NMI handler calls the targets only while this is set. */
static bool kns_nmi_calls;

static unsigned long kns_site_addr(struct kns_probe *p)
{
	unsigned long fn = (unsigned long)kns_fns[p->target];

	switch (p->site) {
	case KNS_AT_STEP:
		return fn + kns_mid_offs[0];
	case KNS_AT_BOOST:
		return fn + kns_mid_offs[1];
	case KNS_AT_OPT:
		return fn + kns_mid_offs[2];
	case KNS_AT_HELPER:
		return fn + kns_helper_off;
	default:
		return fn;
	}
}

/* Send @cpu an NMI unless one is pending there.  Context: not NMI. */
static void kns_raise(unsigned int cpu, bool self)
{
	if (atomic_cmpxchg(per_cpu_ptr(&kns_nmi_pending, cpu), 0, 1))
		return;
	atomic_long_inc(&kns_nmis_raised[self]);
	apic->send_IPI_mask(cpumask_of(cpu), NMI_VECTOR);
}

static int kns_ctx(void)
{
	return this_cpu_read(kns_nmi_depth) ? KNS_NMI : KNS_TASK;
}

/* Call target @t from context @ctx, counted first.  Context: any. */
static void kns_call(int t, int v, int ctx)
{
	int (*fn)(int v) = READ_ONCE(kns_fns[t]);

	atomic_long_inc(&kns_calls[t][ctx]);
	if (unlikely(fn(v) != kns_expected(t, v)))
		atomic_long_inc(&kns_wrong_result);
}

/*
 * A hit of @p; @ret: a return or post_handler hit.  Now and then a
 * task-context hit sends its CPU an NMI, which arrives in this handler.
 * The handler that is to call the helpers does.
 * Context: a probe handler (int3, ftrace, detour, rethook), NMI included.
 */
static void kns_hit(struct kns_probe *p, int ret)
{
	int ctx = kns_ctx();

	this_cpu_inc(kns_handler_depth);
	atomic_long_inc(&p->hits[ctx][ret]);
	if (ctx == KNS_TASK && self_nmi_every &&
	    this_cpu_inc_return(kns_self_tick) % self_nmi_every == 0)
		kns_raise(smp_processor_id(), true);
	if (p->helper == (ret ? KNS_H_RETURN : KNS_H_ENTRY)) {
		kns_call(KNS_T_HELPER, 0x1234, ctx);
		kns_call(KNS_T_FHELPER, 0x1234, ctx);
	}
	this_cpu_dec(kns_handler_depth);
}

static int kns_kp_pre(struct kprobe *kp, struct pt_regs *regs)
{
	kns_hit(container_of(kp, struct kns_probe, kp), 0);
	return 0;
}

static void kns_kp_post(struct kprobe *kp, struct pt_regs *regs,
			unsigned long flags)
{
	kns_hit(container_of(kp, struct kns_probe, kp), 1);
}

static int kns_krp_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct kretprobe *rp = get_kretprobe(ri);

	if (rp)
		kns_hit(container_of(rp, struct kns_probe, rp), 0);
	return 0;
}

static int kns_krp_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct kretprobe *rp = get_kretprobe(ri);

	if (rp)
		kns_hit(container_of(rp, struct kns_probe, rp), 1);
	return 0;
}

static int kns_fp_entry(struct fprobe *fp, unsigned long ip,
			unsigned long ret_ip, struct pt_regs *regs, void *data)
{
	kns_hit(container_of(fp, struct kns_probe, fp), 0);
	return 0;
}

static void kns_fp_exit(struct fprobe *fp, unsigned long ip,
			unsigned long ret_ip, struct pt_regs *regs, void *data)
{
	kns_hit(container_of(fp, struct kns_probe, fp), 1);
}

static unsigned long kns_nmissed(struct kns_probe *p)
{
	switch (p->kind) {
	case KNS_KPROBE:
		return p->kp.nmissed;
	case KNS_KRETPROBE:
		return p->rp.kp.nmissed + p->rp.nmissed;
	default:
		return p->fp.nmissed;
	}
}

static int kns_register(struct kns_probe *p)
{
	unsigned long addr = kns_site_addr(p);

	switch (p->kind) {
	case KNS_KPROBE:
		p->kp.addr = (kprobe_opcode_t *)addr;
		p->kp.pre_handler = kns_kp_pre;
		if (p->post)
			p->kp.post_handler = kns_kp_post;
		return register_kprobe(&p->kp);
	case KNS_KRETPROBE:
		p->rp.kp.addr = (kprobe_opcode_t *)addr;
		p->rp.entry_handler = kns_krp_entry;
		p->rp.handler = kns_krp_ret;
		return register_kretprobe(&p->rp);
	default:
		p->fp.entry_handler = kns_fp_entry;
		p->fp.exit_handler = kns_fp_exit;
		return register_fprobe(&p->fp, kns_fn_names[p->target], NULL);
	}
}

static void kns_unregister(struct kns_probe *p)
{
	switch (p->kind) {
	case KNS_KPROBE:
		unregister_kprobe(&p->kp);
		break;
	case KNS_KRETPROBE:
		unregister_kretprobe(&p->rp);
		break;
	default:
		unregister_fprobe(&p->fp);
		break;
	}
	p->registered = false;
}

/* ---------------------------------------------------------------- */
/* NMIs and callers                                                 */
/* ---------------------------------------------------------------- */

/*
 * The NMI handler: ours if this CPU's flag is set.  It calls every target
 * and clears the flag last, so that no second NMI is sent to this CPU
 * before this one is done.
 * Context: NMI.
 */
static int kns_nmi(unsigned int cmd, struct pt_regs *regs)
{
	atomic_t *pending = this_cpu_ptr(&kns_nmi_pending);
	int t;

	if (!atomic_read(pending))
		return NMI_DONE;
	if (this_cpu_read(kns_handler_depth))
		atomic_long_inc(&kns_nmis_in_handler);
	else if (this_cpu_read(kns_in_call))
		atomic_long_inc(&kns_nmis_in_call);
	if (READ_ONCE(kns_nmi_calls)) {
		this_cpu_inc(kns_nmi_depth);
		for (t = 0; t < KNS_T_NR; t++)
			kns_call(t, 0x4321, KNS_NMI);
		this_cpu_dec(kns_nmi_depth);
	}
	atomic_long_inc(&kns_nmis_handled);
	atomic_set(pending, 0);
	return NMI_HANDLED;
}

/* Context: a caller thread, bound to its CPU. */
static void kns_task_call(int t, int v)
{
	this_cpu_write(kns_in_call, t + 1);
	kns_call(t, v, KNS_TASK);
	this_cpu_write(kns_in_call, 0);
}

static int kns_caller(void *arg)
{
	unsigned int round = 0, cpu, me;
	unsigned long flags;
	int t;

	while (!kthread_should_stop()) {
		int v = round & 0xffff;

		if (nmi_every && round % nmi_every == 0) {
			me = get_cpu();
			for_each_online_cpu(cpu)
				if (cpu != me)
					kns_raise(cpu, false);
			put_cpu();
		}
		for (t = 0; t < KNS_T_NR; t++)
			kns_task_call(t, v);
		/* With interrupts off the boost site's copy is boosted. */
		local_irq_save(flags);
		kns_task_call(KNS_T_MID, v);
		kns_task_call(KNS_T_HELPER, v);
		local_irq_restore(flags);
		atomic_long_inc(&kns_rounds);
		round++;
		cond_resched();
	}
	return 0;
}

/* ---------------------------------------------------------------- */
/* Run                                                              */
/* ---------------------------------------------------------------- */

static struct task_struct *kns_main_task;

static u8 kns_text_byte(struct kns_probe *p)
{
	return READ_ONCE(*(u8 *)kns_site_addr(p));
}

static struct kns_probe *kns_probe_named(const char *name)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(kns_probes); i++)
		if (!strcmp(kns_probes[i].name, name))
			return &kns_probes[i];
	return NULL;
}

/*
 * Is every probe where this test means it to be?  Entry kprobes on the
 * ftrace path, the optimized site a jump, the other int3 sites int3s
 * with (boost, helper) a boost slot.  Writes what it found to @buf.
 */
static bool kns_sites_ok(char *buf, size_t len)
{
	struct kns_probe *entry = kns_probe_named("kp-entry");
	struct kns_probe *step = kns_probe_named("kp-mid-step");
	struct kns_probe *boost = kns_probe_named("kp-mid-boost");
	struct kns_probe *opt = kns_probe_named("kp-mid-opt");
	struct kns_probe *helper = kns_probe_named("kp-helper-mid");
	bool ftrace = kprobe_ftrace(&entry->kp);
	bool jump = kns_text_byte(opt) == JMP32_INSN_OPCODE;
	bool step_int3 = kns_text_byte(step) == INT3_INSN_OPCODE;
	bool boost_int3 = kns_text_byte(boost) == INT3_INSN_OPCODE;
	bool helper_int3 = kns_text_byte(helper) == INT3_INSN_OPCODE;

	snprintf(buf, len, "entry:%s,step:%s,boost:%s%s,opt:%s,helper:%s%s",
		 ftrace ? "ftrace" : "int3",
		 step_int3 ? "int3" : "other",
		 boost_int3 ? "int3" : "other",
		 boost->kp.ainsn.boost ? "+slot" : "",
		 jump ? "jump" : "not-optimized",
		 helper_int3 ? "int3" : "other",
		 helper->kp.ainsn.boost ? "+slot" : "");
	return ftrace && jump && step_int3 && boost_int3 && helper_int3 &&
	       boost->kp.ainsn.boost && helper->kp.ainsn.boost;
}

/*
 * Check one probe's counts against the calls (see the file's header) and
 * print them.  Context: everything stopped.
 */
static bool kns_check(struct kns_probe *p, unsigned long *hits,
		      unsigned long *missed, long *unseen)
{
	long c0 = atomic_long_read(&kns_calls[p->target][KNS_TASK]);
	long c1 = atomic_long_read(&kns_calls[p->target][KNS_NMI]);
	long e0 = atomic_long_read(&p->hits[KNS_TASK][0]);
	long e1 = atomic_long_read(&p->hits[KNS_NMI][0]);
	long r0 = atomic_long_read(&p->hits[KNS_TASK][1]);
	long r1 = atomic_long_read(&p->hits[KNS_NMI][1]);
	long m = kns_nmissed(p), calls = c0 + c1;
	bool ok, twice = p->kind != KNS_KPROBE || p->post;
	long lost;

	switch (p->kind) {
	case KNS_KPROBE:
	case KNS_KRETPROBE:
		/* A return (post_handler) for each entry (pre_handler). */
		lost = calls - (e0 + e1 + m);
		ok = !lost && (!twice || (r0 == e0 && r1 == e1));
		break;
	default:
		/* An entry may run without its exit hooked (a miss). */
		lost = calls - (r0 + r1 + m);
		ok = !lost && r0 <= e0 && r1 <= e1 &&
		     e0 + e1 <= calls && e0 + e1 + m >= calls;
		break;
	}
	ok = ok && e0 <= c0 && e1 <= c1;
	/* A caller thread's call of these is never nested. */
	if (p->target < KNS_T_HELPER)
		ok = ok && e0 == c0 && (!twice || r0 == c0);

	pr_info("%s: %s calls=%ld+%ld hits=%ld+%ld returns=%ld+%ld missed=%ld unseen=%ld\n",
		p->name, ok ? "ok" : "BAD", c0, c1, e0, e1, r0, r1, m, lost);
	*hits += e0 + e1 + r0 + r1;
	*missed += m;
	*unseen += lost;
	return ok;
}

static int kns_main(void *unused)
{
	unsigned long end, hits = 0, missed = 0, lost = 0, bad = 0, calls = 0;
	long unseen = 0;
	unsigned long nmi_calls = 0;
	struct task_struct **callers = NULL;
	unsigned int i, cpu, n = 0;
	char sites[128] = "unchecked", sites_end[128];
	bool sites_ok = false, nmi_on = false;
	int err = 0;

	for (i = 0; i < ARRAY_SIZE(kns_probes); i++) {
		err = kns_register(&kns_probes[i]);
		if (err) {
			pr_err("%s: register failed: %d\n", kns_probes[i].name, err);
			goto out;
		}
		kns_probes[i].registered = true;
	}
	/*
	 * Give the optimizer time to replace the int3 of kp-mid-opt: it
	 * waits for RCU Tasks first, which on a debug kernel under
	 * emulation can take tens of seconds.
	 */
	for (i = 0; i < 600 && !kns_sites_ok(sites, sizeof(sites)); i++)
		schedule_timeout_interruptible(HZ / 10);
	sites_ok = kns_sites_ok(sites, sizeof(sites));
	if (!sites_ok) {
		pr_err("the probes are not where the test needs them: %s\n", sites);
		err = -EINVAL;
		goto out;
	}

	err = register_nmi_handler(NMI_LOCAL, kns_nmi, 0, "kprobes_nmi_stress");
	if (err)
		goto out;
	nmi_on = true;
	WRITE_ONCE(kns_nmi_calls, true);

	callers = kcalloc(nr_cpu_ids, sizeof(*callers), GFP_KERNEL);
	if (!callers) {
		err = -ENOMEM;
		goto out;
	}
	cpus_read_lock();
	for_each_online_cpu(cpu) {
		struct task_struct *t;

		t = kthread_create_on_cpu(kns_caller, NULL, cpu, "kns_caller/%u");
		if (IS_ERR(t)) {
			err = PTR_ERR(t);
			break;
		}
		callers[n++] = t;
		wake_up_process(t);
	}
	cpus_read_unlock();

	end = jiffies + duration * HZ;
	while (!err && time_before(jiffies, end) && !kthread_should_stop())
		schedule_timeout_interruptible(HZ / 10);

out:
	for (i = 0; i < n; i++)
		kthread_stop(callers[i]);
	kfree(callers);
	/* Let the NMIs in flight arrive; a flag still set is an NMI lost. */
	for (i = 0; i < 100; i++) {
		lost = 0;
		for_each_online_cpu(cpu)
			lost += atomic_read(per_cpu_ptr(&kns_nmi_pending, cpu));
		if (!lost)
			break;
		schedule_timeout_interruptible(HZ / 100);
	}
	WRITE_ONCE(kns_nmi_calls, false);
	if (nmi_on)
		unregister_nmi_handler(NMI_LOCAL, "kprobes_nmi_stress");
	if (sites_ok && !kns_sites_ok(sites_end, sizeof(sites_end))) {
		pr_err("the probes moved during the run: %s\n", sites_end);
		bad++;
	}

	for (i = 0; i < ARRAY_SIZE(kns_probes); i++)
		if (kns_probes[i].registered && !err &&
		    !kns_check(&kns_probes[i], &hits, &missed, &unseen))
			bad++;
	for (i = 0; i < ARRAY_SIZE(kns_probes); i++)
		if (kns_probes[i].registered)
			kns_unregister(&kns_probes[i]);
	for (i = 0; i < KNS_T_NR; i++) {
		calls += atomic_long_read(&kns_calls[i][KNS_TASK]);
		nmi_calls += atomic_long_read(&kns_calls[i][KNS_NMI]);
	}
	/*
	 * Exact counts of nothing prove nothing: the run is about NMIs that
	 * land inside a probe's handler, and probed calls made from NMIs.
	 */
	if (!err && nmi_on &&
	    (!atomic_long_read(&kns_nmis_in_handler) || !nmi_calls)) {
		pr_err("no NMI landed in a handler (%ld) or made a probed call (%lu)\n",
		       atomic_long_read(&kns_nmis_in_handler), nmi_calls);
		bad++;
	}
	if (err)
		pr_err("setup failed: %d\n", err);
	pr_info("%s duration=%ds cpus=%u rounds=%ld nmis_raised=%ld+%ld nmis_handled=%ld nmis_lost=%lu nmis_in_handler=%ld nmis_in_call=%ld calls=%lu nmi_calls=%lu hits=%lu missed=%lu unseen=%ld bad_probes=%lu wrong_results=%ld sites=%s\n",
		err || bad || lost || atomic_long_read(&kns_wrong_result) ?
		"FAIL" : "PASS",
		duration, n, atomic_long_read(&kns_rounds),
		atomic_long_read(&kns_nmis_raised[0]),
		atomic_long_read(&kns_nmis_raised[1]),
		atomic_long_read(&kns_nmis_handled), lost,
		atomic_long_read(&kns_nmis_in_handler),
		atomic_long_read(&kns_nmis_in_call), calls, nmi_calls, hits,
		missed, unseen, bad, atomic_long_read(&kns_wrong_result), sites);
	WRITE_ONCE(done, true);
	/* Stay until module exit stops us. */
	while (!kthread_should_stop())
		schedule_timeout_interruptible(HZ);
	return 0;
}

static int __init kns_init(void)
{
	if (duration < 1)
		return -EINVAL;
	pr_info("start: duration=%ds nmi_every=%u self_nmi_every=%u\n",
		duration, nmi_every, self_nmi_every);
	kns_main_task = kthread_run(kns_main, NULL, "kns_main");
	return PTR_ERR_OR_ZERO(kns_main_task);
}

static void __exit kns_exit(void)
{
	kthread_stop(kns_main_task);
}

#else /* !CONFIG_X86_64 */

/*
 * arm64 has NMIs only as GICv3 pseudo-NMIs (CONFIG_ARM64_PSEUDO_NMI,
 * irqchip.gicv3_pseudo_nmi=1, which the test guests have), and no
 * interface for a module to raise one: the only NMI IPI a module can ask
 * for is the backtrace one, which prints a whole backtrace each time.
 */
static int __init kns_init(void)
{
	if (IS_ENABLED(CONFIG_ARM64))
		pr_info("SKIP arm64: no way for a module to raise a pseudo-NMI (only the backtrace IPI, which prints a backtrace each time)\n");
	else
		pr_info("SKIP the test raises NMIs through the x86 local APIC only\n");
	WRITE_ONCE(done, true);
	return 0;
}

static void __exit kns_exit(void)
{
}

#endif /* CONFIG_X86_64 */

module_init(kns_init);
module_exit(kns_exit);
MODULE_DESCRIPTION("kprobes, kretprobes and fprobes hit while NMIs keep coming, with exact accounting");
MODULE_LICENSE("GPL");
