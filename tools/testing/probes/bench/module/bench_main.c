// SPDX-License-Identifier: GPL-2.0
/*
 * probes_bench: what a probe costs, measured through the public probe API
 * only (register_kprobe(), register_kretprobe(), register_fprobe*() and
 * their batch and unregister forms), so that the same source builds
 * against the base kernel and against ours and the two can be compared.
 *
 * Interface, in /sys/kernel/debug/probes_bench/:
 *   run     write one command; it runs synchronously, in the writer
 *   result  read the JSON lines (one per figure) of the last command
 *   syms    write symbol names, one a line, for "fprobe_syms" and
 *           "entries"
 *
 * Commands:
 *   SCEN N [LABEL]    arm scenario SCEN, time N calls, disarm
 *   arm SCEN          arm SCEN and leave it armed (the guest waits until
 *                     the kprobe optimizer has run, for example)
 *   time N LABEL      time N calls with whatever is armed
 *   disarm            remove what "arm" armed
 *   hold K            register K int3 kprobes on K distinct generated
 *                     functions with register_kprobes() and keep them
 *                     (memory, lookup cost with K others); reports how
 *                     long the registration took, per probe
 *   hold_kretprobe M  register a kretprobe with M instances and keep it
 *   release           unregister what "hold" and "hold_kretprobe" did
 *                     (unregister_kprobes() of the held kprobes: timed)
 *   reg_each K        time K register_kprobe() and then K
 *                     unregister_kprobe() calls on distinct addresses
 *   optimize K        register K int3 kprobes on generated functions in
 *                     one batch with the optimizer on, time until all of
 *                     them are jumps (x86), then their unregistration
 *   entries K         register_kprobes() and then unregister_kprobes() of
 *                     K kprobes at the entries of the first K functions
 *                     named in "syms" (real kernel functions: ftrace-based
 *                     where the kernel has KPROBES_ON_FTRACE), timed
 *   entries_each K    the same with K register_kprobe() and then K
 *                     unregister_kprobe() calls
 *   ftrace_ips        hook one bare ftrace_ops (a callback that does
 *                     nothing) on the addresses written to "syms" (hex,
 *                     one a line) with one filter update, then unhook
 *                     it, timed: what ftrace itself costs under an fprobe
 *                     on the same functions
 *   fprobe_ips        register_fprobe_ips() and unregister_fprobe() on
 *                     those addresses: an fprobe without name lookup
 *   fprobe_glob GLOB  time register_fprobe() and unregister_fprobe() of
 *                     one fprobe on the functions matching GLOB
 *   fprobe_syms       the same with register_fprobe_syms() on the names
 *                     written to "syms"
 *   fprobe_wide N     the same on the names written to "syms" (every
 *                     traceable function of the kernel, and
 *                     probes_bench_target), and N calls of the target
 *                     while the fprobe is on
 *
 * Scenarios: what one call of probes_bench_target() costs with
 *   none              no probe: the baseline every other one includes
 *   kprobe_entry      a kprobe at the function entry, pre_handler only;
 *                     ftrace-based where the kernel has KPROBES_ON_FTRACE
 *   jprobe_entry      a jprobe at the same entry: the kprobe plus reading
 *                     the 4 arguments and calling a handler with them.
 *                     Kernels without jprobes (no JPROBE_ENTRY()) answer
 *                     it with no figure and no error.
 *   kprobe_int3       a kprobe on an instruction inside the body (a
 *                     breakpoint), pre_handler only, so the instruction
 *                     can be boosted: run out of line and jumped back
 *                     from, without a second trap.  The guest turns
 *                     optimization off first.
 *   kprobe_int3_post  the same with a post_handler: not boosted, the
 *                     instruction is single-stepped and traps again
 *   kprobe_int3_irqs_on  kprobe_int3 timed with interrupts on (preemption
 *                     off), as most probed code runs; every other
 *                     scenario is timed with interrupts off.  A kernel
 *                     that boosts only with interrupts off steps here.
 *   kprobe_opt        the kprobe_int3 probe with optimization allowed;
 *                     the guest arms it and waits for [OPTIMIZED] in the
 *                     kprobes list before it times it: then a jump
 *                     replaces the breakpoint
 *   kretprobe         a kretprobe, return handler only
 *   kretprobe_entry   a kretprobe with an entry_handler and 8 bytes of
 *                     per-instance data
 *   fprobe_entry      an fprobe, entry handler only
 *   fprobe_exit       an fprobe with entry and exit handlers
 * A kprobe event defined in tracefs is timed as "none" with a label while
 * the guest has the event enabled.
 *
 * Each call figure is the fastest of PB_BATCHES batches of N / PB_BATCHES
 * calls, timed with interrupts off, divided by the number of calls.  All
 * times are taken with get_cycles(): a guest without a usable clocksource
 * (TSC unstable, only jiffies, as the harness's QEMU guest) still has a
 * fine cycle counter.  Under QEMU TCG that counter runs at the host's TSC
 * rate, under -icount it counts virtual nanoseconds, which are executed
 * instructions scaled by 2^shift.  The counter's rate is measured against
 * jiffies once (PB_CALIBRATE_MS) and every figure also comes in ns.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/fprobe.h>
#include <linux/ftrace.h>
#include <linux/irqflags.h>
#include <linux/kprobes.h>
#include <linux/jiffies.h>
#include <linux/minmax.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/timex.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#include "probes_bench.h"

#define PB_BATCHES	5
#define PB_RESULT_SIZE	4096
#define PB_SYMS_SIZE	SZ_1M
#define PB_CMD_SIZE	256
#define PB_CALIBRATE_MS	500

static DEFINE_MUTEX(pb_lock);
static struct dentry *pb_dir;
static char pb_result[PB_RESULT_SIZE];
static size_t pb_result_len;

/* Where the probes go, found on first use (see pb_find_offsets()). */
static bool pb_offsets_known;
static unsigned int pb_entry_off;	/* function entry as kprobes sees it */
static unsigned int pb_body_off;	/* first instruction after the entry */
static unsigned int pb_gen_off;		/* the same in a generated function */
static unsigned long pb_entry_ip;	/* target's entry, for the fprobes */
static u64 pb_khz;			/* get_cycles() per millisecond */

/* The armed scenario. */
static const char *pb_armed;
static struct kprobe pb_kp;
static struct kretprobe pb_krp;
static struct fprobe pb_fp;
#ifdef JPROBE_ENTRY
static struct jprobe pb_jp;
#endif
static atomic_long_t pb_hits;

/* Probes kept by "hold" and "hold_kretprobe". */
static struct kprobe *pb_gen_kps;
static struct kprobe **pb_gen_ptrs;
static unsigned int pb_held;
static struct kretprobe pb_held_krp;
static bool pb_held_krp_on;

/* Names written to "syms". */
static char *pb_syms;
static size_t pb_syms_len;

static unsigned long probes_bench_sink;

/*
 * The probed function: straight-line code, long enough that a probe on
 * its first body instruction can be optimized (a 5-byte jump fits in it).
 * Global and not cloned, so tracefs can name it "probes_bench_target".
 */
noinline __noclone int probes_bench_target(unsigned long a, unsigned long b,
					   unsigned long c, unsigned long d)
{
	unsigned long x = a * 3 + b;

	x ^= c << 2;
	x += d;
	WRITE_ONCE(probes_bench_sink, x);
	return (int)x;
}

/* Handlers: count the hit and nothing else. */
static int pb_pre(struct kprobe *p, struct pt_regs *regs)
{
	atomic_long_inc(&pb_hits);
	return 0;
}

static void pb_post(struct kprobe *p, struct pt_regs *regs,
		    unsigned long flags)
{
}

#ifdef JPROBE_ENTRY
static int pb_jp_entry(unsigned long a, unsigned long b, unsigned long c,
		       unsigned long d)
{
	atomic_long_inc(&pb_hits);
	return 0;
}
#endif

static int pb_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	atomic_long_inc(&pb_hits);
	return 0;
}

static int pb_ret_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	*(unsigned long *)ri->data = 1;
	return 0;
}

static int pb_fp_entry(struct fprobe *fp, unsigned long entry_ip,
		       unsigned long ret_ip, struct pt_regs *regs,
		       void *entry_data)
{
	atomic_long_inc(&pb_hits);
	return 0;
}

static void pb_fp_exit(struct fprobe *fp, unsigned long entry_ip,
		       unsigned long ret_ip, struct pt_regs *regs,
		       void *entry_data)
{
}

static __printf(1, 2) void pb_emit(const char *fmt, ...)
{
	va_list args;

	va_start(args, fmt);
	pb_result_len += vscnprintf(pb_result + pb_result_len,
				    PB_RESULT_SIZE - pb_result_len, fmt, args);
	va_end(args);
}

/* One figure: TOTAL_CYCLES of get_cycles() spent on N operations. */
static void pb_emit_figure(const char *name, const char *unit, u64 n,
			   u64 total_cycles)
{
	u64 cyc_milli = div64_u64(total_cycles * 1000, max_t(u64, n, 1));
	u64 ns_milli = div64_u64(cyc_milli * 1000000, max_t(u64, pb_khz, 1));

	pb_emit("{\"scenario\":\"%s\",\"unit\":\"%s\",\"n\":%llu,",
		name, unit, n);
	pb_emit("\"ns\":%llu.%03llu,\"cycles\":%llu.%03llu,\"khz\":%llu",
		ns_milli / 1000, ns_milli % 1000,
		cyc_milli / 1000, cyc_milli % 1000, pb_khz);
}

static void pb_emit_end(void)
{
	pb_emit("}\n");
}

/* An (un)registration figure: CYCLES for K probes, per probe. */
static void pb_emit_op(const char *what, unsigned int k, u64 cycles)
{
	char name[64];

	snprintf(name, sizeof(name), "%s_%u", what, k);
	pb_emit_figure(name, "probe", k, cycles);
	pb_emit_end();
}

/* get_cycles() per millisecond, measured against jiffies. */
static u64 pb_calibrate(void)
{
	unsigned long j0, j1;
	cycles_t c0, c1;

	/* Start on a tick edge. */
	j0 = jiffies + 1;
	while (time_before(jiffies, j0))
		cpu_relax();
	c0 = get_cycles();
	j0 = jiffies;
	j1 = j0 + msecs_to_jiffies(PB_CALIBRATE_MS);
	while (time_before(jiffies, j1))
		cpu_relax();
	c1 = get_cycles();
	return div64_u64(c1 - c0, jiffies_to_msecs(j1 - j0));
}

/*
 * Find the probe sites once: register a kprobe at the function's address
 * and see where it landed (past an ENDBR, for example) and then the first
 * address after the entry's instruction that register_kprobe() accepts,
 * which is the next instruction boundary.
 */
static int pb_find_body(void *fn, unsigned int *entry_off,
			unsigned int *body_off)
{
	struct kprobe kp = { .addr = fn, .pre_handler = pb_pre };
	unsigned int off;
	int ret;

	ret = register_kprobe(&kp);
	if (ret)
		return ret;
	*entry_off = (unsigned long)kp.addr - (unsigned long)fn;
	unregister_kprobe(&kp);

	for (off = *entry_off + 1; off < *entry_off + 64; off++) {
		memset(&kp, 0, sizeof(kp));
		kp.addr = fn + off;
		kp.pre_handler = pb_pre;
		if (!register_kprobe(&kp)) {
			unregister_kprobe(&kp);
			*body_off = off;
			return 0;
		}
	}
	return -ENOENT;
}

static int pb_find_offsets(void)
{
	unsigned int gen_entry;
	int ret;

	if (pb_offsets_known)
		return 0;
	ret = pb_find_body(probes_bench_target, &pb_entry_off, &pb_body_off);
	if (ret) {
		pr_err("no probe site in probes_bench_target: %d\n", ret);
		return ret;
	}
	ret = pb_find_body(probes_bench_gen_fns[0], &gen_entry, &pb_gen_off);
	if (ret) {
		pr_err("no probe site in the generated functions: %d\n", ret);
		return ret;
	}
	pb_entry_ip = (unsigned long)probes_bench_target + pb_entry_off;
	pb_khz = pb_calibrate();
	pb_offsets_known = true;
	pr_info("entry +%u, body +%u, generated body +%u, %llu cycles/ms\n",
		pb_entry_off, pb_body_off, pb_gen_off, pb_khz);
	return 0;
}

static int pb_arm(const char *scen)
{
	void *target = probes_bench_target;
	int ret;

	if (pb_armed)
		return -EBUSY;
	atomic_long_set(&pb_hits, 0);
	memset(&pb_kp, 0, sizeof(pb_kp));
	memset(&pb_krp, 0, sizeof(pb_krp));
	memset(&pb_fp, 0, sizeof(pb_fp));

	if (!strcmp(scen, "none")) {
		pb_armed = "none";
		return 0;
	} else if (!strcmp(scen, "kprobe_entry")) {
		pb_kp.addr = target;
		pb_kp.pre_handler = pb_pre;
		ret = register_kprobe(&pb_kp);
	} else if (!strcmp(scen, "kprobe_int3") ||
		   !strcmp(scen, "kprobe_int3_irqs_on") ||
		   !strcmp(scen, "kprobe_opt")) {
		pb_kp.addr = target + pb_body_off;
		pb_kp.pre_handler = pb_pre;
		ret = register_kprobe(&pb_kp);
	} else if (!strcmp(scen, "kprobe_int3_post")) {
		pb_kp.addr = target + pb_body_off;
		pb_kp.pre_handler = pb_pre;
		pb_kp.post_handler = pb_post;
		ret = register_kprobe(&pb_kp);
	} else if (!strcmp(scen, "jprobe_entry")) {
#ifdef JPROBE_ENTRY
		memset(&pb_jp, 0, sizeof(pb_jp));
		pb_jp.kp.addr = target;
		pb_jp.entry = JPROBE_ENTRY(pb_jp_entry);
		ret = register_jprobe(&pb_jp);
#else
		return -EOPNOTSUPP;
#endif
	} else if (!strcmp(scen, "kretprobe") ||
		   !strcmp(scen, "kretprobe_entry")) {
		pb_krp.kp.addr = target;
		pb_krp.handler = pb_ret;
		if (!strcmp(scen, "kretprobe_entry")) {
			pb_krp.entry_handler = pb_ret_entry;
			pb_krp.data_size = sizeof(unsigned long);
		}
		ret = register_kretprobe(&pb_krp);
	} else if (!strcmp(scen, "fprobe_entry") ||
		   !strcmp(scen, "fprobe_exit")) {
		pb_fp.entry_handler = pb_fp_entry;
		if (!strcmp(scen, "fprobe_exit"))
			pb_fp.exit_handler = pb_fp_exit;
		ret = register_fprobe_ips(&pb_fp, &pb_entry_ip, 1);
	} else {
		return -EINVAL;
	}
	if (ret) {
		pr_err("arming %s failed: %d\n", scen, ret);
		return ret;
	}
	pb_armed = scen[0] == 'k' && scen[1] == 'r' ? "kretprobe" :
		   scen[0] == 'k' ? "kprobe" :
		   scen[0] == 'j' ? "jprobe" : "fprobe";
	return 0;
}

static void pb_disarm(void)
{
	if (!pb_armed)
		return;
	if (!strcmp(pb_armed, "kprobe"))
		unregister_kprobe(&pb_kp);
	else if (!strcmp(pb_armed, "kretprobe"))
		unregister_kretprobe(&pb_krp);
	else if (!strcmp(pb_armed, "fprobe"))
		unregister_fprobe(&pb_fp);
#ifdef JPROBE_ENTRY
	else if (!strcmp(pb_armed, "jprobe"))
		unregister_jprobe(&pb_jp);
#endif
	pb_armed = NULL;
}

/*
 * Time N calls of the target with whatever is armed; report as LABEL.
 * Interrupts are off while a batch runs, unless @irqs_on (then only
 * preemption is).
 */
static int pb_time_ctx(unsigned long n, const char *label, bool irqs_on)
{
	unsigned long per = max_t(unsigned long, n / PB_BATCHES, 1);
	u64 best = U64_MAX;
	unsigned long flags, i;
	int batch;

	for (batch = 0; batch < PB_BATCHES; batch++) {
		cycles_t c0, c1;

		if (irqs_on)
			preempt_disable();
		else
			local_irq_save(flags);
		c0 = get_cycles();
		for (i = 0; i < per; i++)
			probes_bench_target(i, batch, per, n);
		c1 = get_cycles();
		if (irqs_on)
			preempt_enable();
		else
			local_irq_restore(flags);
		best = min_t(u64, best, c1 - c0);
		cond_resched();
	}
	pb_emit_figure(label, "call", per, best);
	pb_emit(",\"hits\":%ld,\"calls\":%lu,\"entry_off\":%u,\"body_off\":%u",
		atomic_long_read(&pb_hits), per * PB_BATCHES,
		pb_entry_off, pb_body_off);
	pb_emit_end();
	return 0;
}

static int pb_time(unsigned long n, const char *label)
{
	return pb_time_ctx(n, label, false);
}

/* Set up K kprobes on K generated functions, not yet registered. */
static int pb_gen_setup(unsigned int k)
{
	unsigned int i;

	if (k > PROBES_BENCH_NGEN)
		return -E2BIG;
	if (pb_held)
		return -EBUSY;
	for (i = 0; i < k; i++) {
		memset(&pb_gen_kps[i], 0, sizeof(pb_gen_kps[i]));
		pb_gen_kps[i].addr = (void *)probes_bench_gen_fns[i] +
				     pb_gen_off;
		pb_gen_kps[i].pre_handler = pb_pre;
		pb_gen_ptrs[i] = &pb_gen_kps[i];
	}
	return 0;
}

static int pb_hold(unsigned int k)
{
	u64 t0, t1;
	int ret = pb_gen_setup(k);

	if (ret)
		return ret;
	t0 = get_cycles();
	ret = register_kprobes(pb_gen_ptrs, k);
	t1 = get_cycles();
	if (ret)
		return ret;
	pb_held = k;
	pb_emit_op("kprobe_register_batch", k, t1 - t0);
	return 0;
}

static int pb_hold_kretprobe(unsigned int m)
{
	if (pb_held_krp_on)
		return -EBUSY;
	memset(&pb_held_krp, 0, sizeof(pb_held_krp));
	pb_held_krp.kp.addr = (void *)probes_bench_target;
	pb_held_krp.handler = pb_ret;
	pb_held_krp.maxactive = m;
	if (register_kretprobe(&pb_held_krp))
		return -EINVAL;
	pb_held_krp_on = true;
	return 0;
}

static void pb_release(void)
{
	u64 t0, t1;

	if (pb_held) {
		t0 = get_cycles();
		unregister_kprobes(pb_gen_ptrs, pb_held);
		t1 = get_cycles();
		pb_emit_op("kprobe_unregister_batch", pb_held, t1 - t0);
	}
	pb_held = 0;
	if (pb_held_krp_on)
		unregister_kretprobe(&pb_held_krp);
	pb_held_krp_on = false;
}

/*
 * Time the registration and unregistration of the K probes set up in
 * pb_gen_ptrs: one register_kprobes() and one unregister_kprobes() call,
 * or (@each) K register_kprobe() and K unregister_kprobe() calls.  The
 * figures are kprobe_register_@what and kprobe_unregister_@what, per
 * probe.
 */
static int pb_reg_unreg(unsigned int k, bool each, const char *what)
{
	char name[48];
	unsigned int i;
	u64 t0, t1, t2;
	int ret = 0;

	t0 = get_cycles();
	if (!each) {
		ret = register_kprobes(pb_gen_ptrs, k);
	} else {
		for (i = 0; i < k; i++) {
			ret = register_kprobe(pb_gen_ptrs[i]);
			if (ret) {
				pr_err("register_kprobe() of probe %u: %d\n",
				       i, ret);
				while (i--)
					unregister_kprobe(pb_gen_ptrs[i]);
				break;
			}
		}
	}
	t1 = get_cycles();
	if (ret)
		return ret;
	if (!each) {
		unregister_kprobes(pb_gen_ptrs, k);
	} else {
		for (i = 0; i < k; i++)
			unregister_kprobe(pb_gen_ptrs[i]);
	}
	t2 = get_cycles();
	snprintf(name, sizeof(name), "kprobe_register_%s", what);
	pb_emit_op(name, k, t1 - t0);
	snprintf(name, sizeof(name), "kprobe_unregister_%s", what);
	pb_emit_op(name, k, t2 - t1);
	return 0;
}

/* K register_kprobe() calls, then K unregister_kprobe() calls. */
static int pb_reg_each(unsigned int k)
{
	int ret = pb_gen_setup(k);

	return ret ?: pb_reg_unreg(k, true, "each");
}

#ifdef CONFIG_X86
#define PB_OPT_WAIT_MS	120000

/* Probes of "hold" whose site is a jump now (x86: the opcode of jmp rel32). */
static unsigned int pb_count_jumps(unsigned int k)
{
	unsigned int i, n = 0;

	for (i = 0; i < k; i++)
		n += READ_ONCE(*(u8 *)pb_gen_kps[i].addr) == 0xe9;
	return n;
}

/*
 * K int3 kprobes registered in one batch with the optimizer on (the
 * guest sets the sysctl): the time from register_kprobes() returning
 * until every site is a jump, and from calling it until then (an
 * optimizer that works while the batch registers finishes sooner after
 * it), per probe; then the time to unregister them all, which has to
 * put the original bytes back.
 */
static int pb_optimize(unsigned int k)
{
	unsigned long deadline;
	unsigned int jumps;
	u64 t0, t1, t2, t3;
	char name[64];
	int ret = pb_gen_setup(k);

	if (ret)
		return ret;
	t0 = get_cycles();
	ret = register_kprobes(pb_gen_ptrs, k);
	if (ret)
		return ret;
	t1 = get_cycles();
	deadline = jiffies + msecs_to_jiffies(PB_OPT_WAIT_MS);
	while ((jumps = pb_count_jumps(k)) < k && time_before(jiffies, deadline))
		msleep(1);
	t2 = get_cycles();
	unregister_kprobes(pb_gen_ptrs, k);
	t3 = get_cycles();
	snprintf(name, sizeof(name), "kprobe_optimize_%u", k);
	pb_emit_figure(name, "probe", k, t2 - t1);
	pb_emit(",\"optimized\":%u}\n", jumps);
	pb_emit_op("kprobe_register_optimize", k, t2 - t0);
	pb_emit_op("kprobe_unregister_optimized", k, t3 - t2);
	return jumps == k ? 0 : -ETIMEDOUT;
}
#else
static int pb_optimize(unsigned int k)
{
	return 0;	/* no jump optimization: no figure */
}
#endif

/*
 * The names written to "syms" as an array (*@nsyms of them) pointing into
 * pb_syms, whose newlines become NULs until pb_syms_put() puts them back.
 */
static const char **pb_syms_get(unsigned int *nsyms)
{
	const char **syms;
	unsigned int n = 0;
	char *p;

	if (!pb_syms_len)
		return ERR_PTR(-ENODATA);
	for (p = pb_syms; p < pb_syms + pb_syms_len; p++)
		n += *p == '\n';
	syms = kvcalloc(n + 1, sizeof(*syms), GFP_KERNEL);
	if (!syms)
		return ERR_PTR(-ENOMEM);
	n = 0;
	p = pb_syms;
	while (p < pb_syms + pb_syms_len) {
		char *nl = strchr(p, '\n');

		if (!nl)
			break;
		*nl = '\0';
		if (*p)
			syms[n++] = p;
		p = nl + 1;
	}
	*nsyms = n;
	return syms;
}

static void pb_syms_put(const char **syms)
{
	char *p;

	for (p = pb_syms; p < pb_syms + pb_syms_len; p++)
		if (!*p)
			*p = '\n';
	kvfree(syms);
}

/*
 * K kprobes at the entries of K real kernel functions, the first K names
 * of "syms": register_kprobes() and unregister_kprobes() of them all
 * (@each false), or K register_kprobe() and K unregister_kprobe() calls.
 * Where the kernel puts entry kprobes on ftrace, every registration is an
 * ftrace filter update, which is what this times.
 */
static int pb_entries(unsigned int k, bool each)
{
	const char **syms;
	unsigned int nsyms, i;
	int ret;

	if (pb_held)
		return -EBUSY;
	if (k > PROBES_BENCH_NGEN)
		return -E2BIG;
	syms = pb_syms_get(&nsyms);
	if (IS_ERR(syms))
		return PTR_ERR(syms);
	if (nsyms < k) {
		ret = -ENOENT;
		goto out;
	}
	for (i = 0; i < k; i++) {
		memset(&pb_gen_kps[i], 0, sizeof(pb_gen_kps[i]));
		pb_gen_kps[i].symbol_name = syms[i];
		pb_gen_kps[i].pre_handler = pb_pre;
		pb_gen_ptrs[i] = &pb_gen_kps[i];
	}
	ret = pb_reg_unreg(k, each, each ? "entries_each" : "entries_batch");
out:
	pb_syms_put(syms);
	return ret;
}

static void pb_ftrace_nop(unsigned long ip, unsigned long parent_ip,
			  struct ftrace_ops *op, struct ftrace_regs *fregs)
{
}

/*
 * The "ftrace_ips" command (@fprobe false): ftrace's own cost, no probe
 * code; "fprobe_ips" (@fprobe true): an fprobe given addresses.
 */
static int pb_ftrace_ips(bool fprobe)
{
	struct ftrace_ops *ops = NULL;
	const char **syms;
	unsigned long *ips;
	unsigned int n, i;
	u64 t0, t1, t2;
	int ret;

	syms = pb_syms_get(&n);
	if (IS_ERR(syms))
		return PTR_ERR(syms);
	ips = kvcalloc(max(n, 1U), sizeof(*ips), GFP_KERNEL);
	ret = ips ? 0 : -ENOMEM;
	for (i = 0; !ret && i < n; i++)
		ret = kstrtoul(syms[i], 16, &ips[i]);
	pb_syms_put(syms);
	if (ret || !n)
		goto out;
	if (fprobe) {
		memset(&pb_fp, 0, sizeof(pb_fp));
		pb_fp.entry_handler = pb_fp_entry;
		t0 = get_cycles();
		ret = register_fprobe_ips(&pb_fp, ips, n);
		t1 = get_cycles();
		if (ret)
			goto out;
		unregister_fprobe(&pb_fp);
		t2 = get_cycles();
	} else {
		/* A fresh ops each time: ftrace does not expect one reused. */
		ops = kzalloc(sizeof(*ops), GFP_KERNEL);
		if (!ops) {
			ret = -ENOMEM;
			goto out;
		}
		ops->func = pb_ftrace_nop;
		t0 = get_cycles();
		ret = ftrace_set_filter_ips(ops, ips, n, 0, 1);
		if (!ret)
			ret = register_ftrace_function(ops);
		t1 = get_cycles();
		if (ret) {
			ftrace_free_filter(ops);
			goto out;
		}
		unregister_ftrace_function(ops);
		ftrace_free_filter(ops);
		t2 = get_cycles();
	}
	pb_emit_figure(fprobe ? "fprobe_register_ips" : "ftrace_register_ips",
		       "op", 1, t1 - t0);
	pb_emit(",\"symbols\":%u}\n", n);
	pb_emit_figure(fprobe ? "fprobe_unregister_ips" : "ftrace_unregister_ips",
		       "op", 1, t2 - t1);
	pb_emit(",\"symbols\":%u}\n", n);
out:
	kfree(ops);
	kvfree(ips);
	return ret;
}

/*
 * Register and unregister one fprobe by glob or by the "syms" list.
 * With @wide_n (the "fprobe_wide N" command, "syms" holding every
 * traceable function of the kernel and the target), also time N calls
 * of the target while the fprobe is on all of them, and name the
 * figures "_all".
 */
static int pb_fprobe_reg(const char *glob, unsigned long wide_n)
{
	const char **syms = NULL;
	unsigned int nsyms = 0;
	u64 t0, t1, t2;
	int ret;

	memset(&pb_fp, 0, sizeof(pb_fp));
	pb_fp.entry_handler = pb_fp_entry;
	atomic_long_set(&pb_hits, 0);
	if (!glob) {
		syms = pb_syms_get(&nsyms);
		if (IS_ERR(syms))
			return PTR_ERR(syms);
	}
	t0 = get_cycles();
	if (glob)
		ret = register_fprobe(&pb_fp, glob, NULL);
	else
		ret = register_fprobe_syms(&pb_fp, syms, nsyms);
	t1 = get_cycles();
	if (!ret) {
		long hits = atomic_long_read(&pb_hits);
		u64 tu;

		if (wide_n)
			pb_time(wide_n, "fprobe_entry_with_all");
		tu = get_cycles();
		unregister_fprobe(&pb_fp);
		t2 = get_cycles();
		pb_emit_figure(wide_n ? "fprobe_register_all" : glob ?
			       "fprobe_register_glob" : "fprobe_register_syms",
			       "op", 1, t1 - t0);
		pb_emit(",\"symbols\":%u,\"hits_while_on\":%ld}\n", nsyms,
			hits);
		pb_emit_figure(wide_n ? "fprobe_unregister_all" : glob ?
			       "fprobe_unregister_glob" : "fprobe_unregister_syms",
			       "op", 1, t2 - tu);
		pb_emit(",\"symbols\":%u}\n", nsyms);
	}
	if (syms)
		pb_syms_put(syms);
	return ret;
}

static int pb_command(char *cmd)
{
	char *argv[3] = { NULL, NULL, NULL };
	unsigned long n;
	int argc = 0, ret;
	char *tok;

	while ((tok = strsep(&cmd, " \t")) && argc < 3)
		if (*tok)
			argv[argc++] = tok;
	if (!argc)
		return -EINVAL;
	ret = pb_find_offsets();
	if (ret)
		return ret;

	if (!strcmp(argv[0], "arm") && argc >= 2)
		return pb_arm(argv[1]);
	if (!strcmp(argv[0], "disarm")) {
		pb_disarm();
		return 0;
	}
	if (!strcmp(argv[0], "time") && argc == 3) {
		if (kstrtoul(argv[1], 0, &n))
			return -EINVAL;
		return pb_time(n, argv[2]);
	}
	if (!strcmp(argv[0], "release")) {
		pb_release();
		return 0;
	}
	if (!strcmp(argv[0], "fprobe_glob") && argc >= 2)
		return pb_fprobe_reg(argv[1], 0);
	if (!strcmp(argv[0], "fprobe_syms"))
		return pb_fprobe_reg(NULL, 0);
	if (!strcmp(argv[0], "ftrace_ips"))
		return pb_ftrace_ips(false);
	if (!strcmp(argv[0], "fprobe_ips"))
		return pb_ftrace_ips(true);
	if (!strcmp(argv[0], "fprobe_wide") && argc >= 2) {
		if (kstrtoul(argv[1], 0, &n) || !n)
			return -EINVAL;
		return pb_fprobe_reg(NULL, n);
	}
	if (argc < 2 || kstrtoul(argv[1], 0, &n))
		return -EINVAL;
	if (!strcmp(argv[0], "hold"))
		return pb_hold(n);
	if (!strcmp(argv[0], "hold_kretprobe"))
		return pb_hold_kretprobe(n);
	if (!strcmp(argv[0], "reg_each"))
		return pb_reg_each(n);
	if (!strcmp(argv[0], "optimize"))
		return pb_optimize(n);
	if (!strcmp(argv[0], "entries"))
		return pb_entries(n, false);
	if (!strcmp(argv[0], "entries_each"))
		return pb_entries(n, true);

	/* SCEN N [LABEL] */
	ret = pb_arm(argv[0]);
	if (ret == -EOPNOTSUPP)
		return 0;	/* not in this kernel: no figure */
	if (ret)
		return ret;
	ret = pb_time_ctx(n, argv[2] ?: argv[0],
			  !strcmp(argv[0], "kprobe_int3_irqs_on"));
	pb_disarm();
	return ret;
}

static ssize_t pb_run_write(struct file *file, const char __user *ubuf,
			    size_t count, loff_t *ppos)
{
	char cmd[PB_CMD_SIZE];
	int ret;

	if (count >= sizeof(cmd))
		return -E2BIG;
	if (copy_from_user(cmd, ubuf, count))
		return -EFAULT;
	cmd[count] = '\0';

	mutex_lock(&pb_lock);
	pb_result_len = 0;
	pb_result[0] = '\0';
	ret = pb_command(strim(cmd));
	mutex_unlock(&pb_lock);
	if (ret)
		pr_err("command failed: %d\n", ret);
	return ret ?: count;
}

static ssize_t pb_result_read(struct file *file, char __user *ubuf,
			      size_t count, loff_t *ppos)
{
	ssize_t ret;

	mutex_lock(&pb_lock);
	ret = simple_read_from_buffer(ubuf, count, ppos, pb_result,
				      pb_result_len);
	mutex_unlock(&pb_lock);
	return ret;
}

/* The names arrive in several writes; a write at offset 0 starts over. */
static ssize_t pb_syms_write(struct file *file, const char __user *ubuf,
			     size_t count, loff_t *ppos)
{
	ssize_t ret = count;

	mutex_lock(&pb_lock);
	if (*ppos == 0)
		pb_syms_len = 0;
	if (pb_syms_len + count + 1 > PB_SYMS_SIZE) {
		ret = -E2BIG;
	} else if (copy_from_user(pb_syms + pb_syms_len, ubuf, count)) {
		ret = -EFAULT;
	} else {
		pb_syms_len += count;
		*ppos += count;
	}
	mutex_unlock(&pb_lock);
	return ret;
}

static const struct file_operations pb_run_fops = {
	.owner = THIS_MODULE,
	.write = pb_run_write,
};

static const struct file_operations pb_result_fops = {
	.owner = THIS_MODULE,
	.read = pb_result_read,
	.llseek = default_llseek,
};

static const struct file_operations pb_syms_fops = {
	.owner = THIS_MODULE,
	.write = pb_syms_write,
};

static int __init probes_bench_init(void)
{
	pb_gen_kps = kvcalloc(PROBES_BENCH_NGEN, sizeof(*pb_gen_kps),
			      GFP_KERNEL);
	pb_gen_ptrs = kvcalloc(PROBES_BENCH_NGEN, sizeof(*pb_gen_ptrs),
			       GFP_KERNEL);
	pb_syms = vmalloc(PB_SYMS_SIZE);
	if (!pb_gen_kps || !pb_gen_ptrs || !pb_syms)
		goto nomem;

	pb_dir = debugfs_create_dir("probes_bench", NULL);
	debugfs_create_file("run", 0200, pb_dir, NULL, &pb_run_fops);
	debugfs_create_file("result", 0400, pb_dir, NULL, &pb_result_fops);
	debugfs_create_file("syms", 0200, pb_dir, NULL, &pb_syms_fops);
	return 0;

nomem:
	vfree(pb_syms);
	kvfree(pb_gen_ptrs);
	kvfree(pb_gen_kps);
	return -ENOMEM;
}

static void __exit probes_bench_exit(void)
{
	debugfs_remove_recursive(pb_dir);
	mutex_lock(&pb_lock);
	pb_disarm();
	pb_release();
	mutex_unlock(&pb_lock);
	vfree(pb_syms);
	kvfree(pb_gen_ptrs);
	kvfree(pb_gen_kps);
}

module_init(probes_bench_init);
module_exit(probes_bench_exit);

MODULE_DESCRIPTION("Probe cost benchmark through the public probe API");
MODULE_LICENSE("GPL");
