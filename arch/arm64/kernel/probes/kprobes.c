// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * arm64 kprobes: the BRK path.
 *
 * Like the x86 int3 path, in three parts:
 *
 *  1. Prepare (process context, kprobe_mutex and text_mutex held): check
 *     the address, classify the instruction (decode-insn.c) and build its
 *     slots, or record its simulation.
 *  2. The hit path, from the BRK #KPROBES_BRK_IMM written over the
 *     instruction (debug exception: DAIF masked, preemption off): run the
 *     handlers, then simulate the instruction (simulate-insn.c) or run its
 *     copy from a slot.
 *  3. Completion: the BRK #KPROBES_BRK_SS_IMM after the copy in the
 *     stepping slot, and faults taken while the copy runs.
 *
 * Slots (two instructions each, from the generic insn cache):
 *
 *   insn:   [ copy of the instruction ][ brk #KPROBES_BRK_SS_IMM ]
 *   boost:  [ copy of the instruction ][ b <probe address + 4> ]
 *
 * The stepping slot runs with IRQ and FIQ masked, so that the CPU comes
 * back to the second BRK with current_kprobe still ours; the registers
 * are then put back as if the instruction had run in place, and the
 * post_handler runs.  The boost slot needs no second exception: used when
 * no post_handler is there to run, for instructions with no exception
 * table entry (a fault in a boosted copy would not be fixed up), and only
 * when the branch back reaches.  Also on a preemptible kernel: a task
 * preempted inside the slot is out of it before the slot is reused (the
 * retiring pass of kernel/kprobes/insn_slots.c waits for RCU Tasks).
 *
 * PSTATE.BTYPE is cleared when the CPU is sent to a slot or to a
 * simulated branch's target: the branch that got to the probe was
 * checked against the BTI at the probe's address (or the BTI itself is
 * what was probed), not against what the exception returns to.
 */

#include <linux/execmem.h>
#include <linux/extable.h>
#include <linux/ftrace.h>
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/memory.h>
#include <linux/preempt.h>
#include <linux/ptrace.h>
#include <linux/sched/debug.h>
#include <linux/set_memory.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/stop_machine.h>
#include <linux/string.h>

#include <asm/cacheflush.h>
#include <asm/daifflags.h>
#include <asm/debug-monitors.h>
#include <asm/insn.h>
#include <asm/patching.h>
#include <asm/sections.h>

#include "decode-insn.h"

DEFINE_PER_CPU(struct kprobe *, current_kprobe);
DEFINE_PER_CPU(struct kprobe_ctlblk, kprobe_ctlblk);

/* No function needs to be kept from kretprobes on arm64. */
struct kretprobe_blackpoint kretprobe_blacklist[] = {
	{ .name = NULL }
};

const int kretprobe_blacklist_size = ARRAY_SIZE(kretprobe_blacklist);

/* PSTATE bits the stepping slot runs with set. */
#define KP_STEP_MASKED	(PSR_I_BIT | PSR_F_BIT)
/*
 * With pseudo-NMIs, kcb->saved_flags also holds the trapped context's
 * pmr_save (bits 32-39), flagged by KP_SAVED_PMR.
 */
#define KP_SAVED_PMR_SHIFT	32
#define KP_SAVED_PMR		BIT(63)

/* Return probes use rethook: no kprobe is a kretprobe trampoline. */
int arch_trampoline_kprobe(struct kprobe *p)
{
	return false;
}

/* The BRK handlers are called by name from call_el1_break_hook(). */
int __init arch_init_kprobes(void)
{
	return 0;
}

/* ---------------------------------------------------------------------
 * Part 1: prepare.
 */

/* Write @n instructions into a slot (read-only, executable memory). */
static int kp_fill_slot(kprobe_opcode_t *slot, const u32 *insns, int n)
{
	int i, ret;

	for (i = 0; i < n; i++) {
		ret = aarch64_insn_patch_text_nosync(slot + i, insns[i]);
		if (ret)
			return ret;
	}
	return 0;
}

/**
 * alloc_insn_page() - a page for slots, within branch range if it can be
 *
 * Module text, which arm64 places within branch range of the kernel
 * image when it can: a boost copy jumps back with a "b" (+-128M), and a
 * detour buffer (opt.c) is reached by one, while execmem's kprobes range
 * is all of vmalloc space.  Read-only and executable; slots are written
 * through the patching alias.
 *
 * Return: the page, or NULL.
 */
void *alloc_insn_page(void)
{
	void *page = execmem_alloc(EXECMEM_MODULE_TEXT, PAGE_SIZE);

	if (page && set_memory_rox((unsigned long)page, 1)) {
		execmem_free(page);
		return NULL;
	}
	return page;
}

/*
 * Whether the copy of @p may jump straight back (see the top of the
 * file); the branch back itself is checked by kp_build_slots().
 */
static bool kp_can_boost(struct kprobe *p)
{
	return !search_exception_tables((unsigned long)p->addr);
}

static int kp_build_slots(struct kprobe *p, u32 insn)
{
	u32 code[MAX_INSN_SIZE];
	kprobe_opcode_t *slot;
	long offset;
	int ret;

	slot = get_insn_slot();
	if (!slot)
		return -ENOMEM;
	code[0] = insn;
	code[1] = BRK64_OPCODE_KPROBES_SS;
	ret = kp_fill_slot(slot, code, MAX_INSN_SIZE);
	if (ret) {
		free_insn_slot(slot, 0);
		return ret;
	}
	p->ainsn.insn = slot;

	if (!kp_can_boost(p))
		return 0;
	slot = get_insn_slot();
	if (!slot)
		return 0;	/* boosting is an optimization only */
	/* "b" reaches +-128M: a slot too far away is only for stepping. */
	offset = (long)(p->addr + 1) - (long)(slot + 1);
	if (offset < -SZ_128M || offset >= SZ_128M) {
		free_insn_slot(slot, 0);
		return 0;
	}
	code[1] = aarch64_insn_gen_branch_imm((unsigned long)(slot + 1),
					      (unsigned long)(p->addr + 1),
					      AARCH64_INSN_BRANCH_NOLINK);
	if (code[1] == AARCH64_BREAK_FAULT ||
	    kp_fill_slot(slot, code, MAX_INSN_SIZE)) {
		free_insn_slot(slot, 0);
		return 0;
	}
	p->ainsn.boost = slot;
	return 0;
}

#ifdef CONFIG_DYNAMIC_FTRACE_WITH_CALL_OPS
/*
 * The two words before a traced function are not code: they hold the
 * ftrace_ops that its call site loads (the literal is at
 * ALIGN_DOWN(site - 12, 8), see ftrace_rec_set_ops()), and ftrace
 * rewrites them whenever the function's ops change.  They decode as
 * anything; a BRK there would be a corrupt ops pointer.
 */
static bool kp_in_ftrace_literal(unsigned long addr)
{
	unsigned long literal = ALIGN_DOWN(addr, 8);

	return ftrace_location_range(literal + 12, literal + 16);
}
#else
static bool kp_in_ftrace_literal(unsigned long addr)
{
	return false;
}
#endif

/**
 * arch_prepare_kprobe() - check and prepare the instruction at @p->addr
 * @p: the probe; @p->addr is set
 *
 * Called with kprobe_mutex and text_mutex held, before the probe is
 * armed.
 *
 * Return: 0; -EILSEQ if @p->addr is not 4-byte aligned or is the ftrace
 * ops literal before a traced function; -EOPNOTSUPP if the instruction
 * can be neither stepped nor simulated (exception generation, eret,
 * pointer-authenticating branches, PSTATE and exception register
 * accesses, exclusives, SIMD&FP literal loads, unallocated encodings) or
 * if it runs inside an exclusive sequence; -EFAULT if it cannot be read;
 * -ENOMEM.
 */
int arch_prepare_kprobe(struct kprobe *p)
{
	struct arch_probe_insn api;
	u32 insn;

	if (!IS_ALIGNED((unsigned long)p->addr, AARCH64_INSN_SIZE) ||
	    kp_in_ftrace_literal((unsigned long)p->addr))
		return -EILSEQ;
	if (aarch64_insn_read(p->addr, &insn))
		return -EFAULT;

	memset(&p->ainsn, 0, sizeof(p->ainsn));
	if (arm_probe_is_unallocated(insn))
		return -EOPNOTSUPP;
	switch (arm_probe_decode_insn(insn, &api)) {
	case INSN_REJECTED:
		return -EOPNOTSUPP;
	case INSN_GOOD_NO_SLOT:
		p->ainsn.simulate = api.handler;
		break;
	case INSN_GOOD:
		break;
	}
	if (arm_kprobe_in_exclusive_sequence(p->addr))
		return -EOPNOTSUPP;

	p->opcode = insn;
	if (p->ainsn.simulate)
		return 0;
	return kp_build_slots(p, insn);
}

/*
 * Patch the instructions of @n probes, in one stop_machine() when the
 * arrays can be had, else one by one.
 */
static void kp_patch_batch(struct kprobe **ps, unsigned int n, bool arm)
{
	void **addrs;
	u32 *insns;
	unsigned int i;

	lockdep_assert_held(&text_mutex);
	addrs = kmalloc_array(n, sizeof(*addrs), GFP_KERNEL);
	insns = kmalloc_array(n, sizeof(*insns), GFP_KERNEL);
	if (addrs && insns) {
		for (i = 0; i < n; i++) {
			addrs[i] = ps[i]->addr;
			insns[i] = arm ? BRK64_OPCODE_KPROBES : ps[i]->opcode;
		}
		WARN_ON(aarch64_insn_patch_text(addrs, insns, n));
	} else {
		for (i = 0; i < n; i++) {
			void *addr = ps[i]->addr;
			u32 insn = arm ? BRK64_OPCODE_KPROBES : ps[i]->opcode;

			WARN_ON(aarch64_insn_patch_text(&addr, &insn, 1));
		}
	}
	kfree(addrs);
	kfree(insns);
}

/**
 * arch_arm_kprobes_batch() - arm many probes with one stop_machine()
 * @ps: the probes
 * @n: how many
 *
 * Context: text_mutex and cpus_read_lock held.
 */
void arch_arm_kprobes_batch(struct kprobe **ps, unsigned int n)
{
	kp_patch_batch(ps, n, true);
}

/**
 * arch_disarm_kprobes_batch() - disarm many probes with one stop_machine()
 * @ps: the probes
 * @n: how many
 *
 * Context: text_mutex and cpus_read_lock held.
 */
void arch_disarm_kprobes_batch(struct kprobe **ps, unsigned int n)
{
	kp_patch_batch(ps, n, false);
}

/**
 * arch_remove_kprobe() - release the slots of @p
 * @p: a disarmed probe
 *
 * Process context, a grace period after the site went out of every
 * lookup; no lock held.  The boost slot is freed "dirty" if the site
 * was ever armed: a CPU may have left the BRK handler for it and still be
 * running it.  A site that never was (a refused batch's rollback) gives
 * it back clean, for reuse without a retiring pass.
 */
void arch_remove_kprobe(struct kprobe *p)
{
	if (p->ainsn.insn) {
		free_insn_slot(p->ainsn.insn, 0);
		p->ainsn.insn = NULL;
	}
	if (p->ainsn.boost) {
		free_insn_slot(p->ainsn.boost, kprobe_ever_armed(p));
		p->ainsn.boost = NULL;
	}
}

/*
 * Code that runs where a BRK cannot be taken safely: the exception
 * vectors and entry code, the identity-mapped and hypervisor text, the
 * hibernation exit and the KPTI trampoline.
 */
static bool kp_in_section(unsigned long addr, const char *start,
			  const char *end)
{
	return addr - (unsigned long)start < (unsigned long)(end - start);
}

/**
 * arch_within_kprobe_blacklist() - arm64 ranges that are never probed
 * @addr: address to check
 *
 * Return: true if @addr must not be probed.
 */
bool arch_within_kprobe_blacklist(unsigned long addr)
{
	if (kp_in_section(addr, __kprobes_text_start, __kprobes_text_end) ||
	    kp_in_section(addr, __entry_text_start, __entry_text_end) ||
	    kp_in_section(addr, __idmap_text_start, __idmap_text_end) ||
	    kp_in_section(addr, __hyp_text_start, __hyp_text_end) ||
	    kp_in_section(addr, __hyp_idmap_text_start, __hyp_idmap_text_end))
		return true;
#ifdef CONFIG_HIBERNATION
	if (kp_in_section(addr, __hibernate_exit_text_start,
			  __hibernate_exit_text_end))
		return true;
#endif
#ifdef CONFIG_UNMAP_KERNEL_AT_EL0
	if (kp_in_section(addr, __entry_tramp_text_start,
			  __entry_tramp_text_end))
		return true;
#endif
	return false;
}

/*
 * Boot, kprobe_mutex held: list the entry code by function too, so that
 * the debugfs blacklist shows it.
 */
int __init arch_populate_kprobe_blacklist(void)
{
	return kprobe_add_area_blacklist((unsigned long)__entry_text_start,
					 (unsigned long)__entry_text_end);
}

/* ---------------------------------------------------------------------
 * Part 2: the hit path.  Debug exception context: DAIF masked,
 * preemption off.
 */

static nokprobe_inline void kp_set_pc(struct pt_regs *regs, unsigned long pc)
{
	instruction_pointer_set(regs, pc);
	regs->pstate &= ~PSR_BTYPE_MASK;
}

/*
 * Mask interrupts for a step: PSTATE.I and F, and with pseudo-NMIs the
 * priority mask too (pmr_save, which the exception return restores): an
 * exception taken from the copy sets the priority mask from pmr_save,
 * and irqs_disabled() reads that mask.  A fault in the copy must find a
 * context that cannot be preempted, or kprobe_page_fault() leaves it to
 * the fault handler with the ip in the copy.
 */
static nokprobe_inline void kp_mask_step(struct pt_regs *regs,
					 struct kprobe_ctlblk *kcb)
{
	unsigned long saved = regs->pstate & KP_STEP_MASKED;

	regs->pstate |= KP_STEP_MASKED;
	if (system_uses_irq_prio_masking()) {
		saved |= KP_SAVED_PMR |
			 (unsigned long)regs->pmr_save << KP_SAVED_PMR_SHIFT;
		regs->pmr_save |= GIC_PRIO_PSR_I_SET;
	}
	WRITE_ONCE(kcb->saved_flags, saved);
}

/* The copy is over (done or faulted): unmask, and resume at @pc. */
static nokprobe_inline void kp_end_step(struct pt_regs *regs,
					struct kprobe_ctlblk *kcb,
					unsigned long pc)
{
	unsigned long saved = READ_ONCE(kcb->saved_flags);

	regs->pstate = (regs->pstate & ~KP_STEP_MASKED) |
		       (saved & KP_STEP_MASKED);
	if (saved & KP_SAVED_PMR)
		regs->pmr_save = (u8)(saved >> KP_SAVED_PMR_SHIFT);
	kp_set_pc(regs, pc);
}

/*
 * The instruction of @p has run (or was simulated): the post_handler,
 * unless inside another probe, then leave the probe.
 */
static nokprobe_inline void kp_finish(struct kprobe *p, struct pt_regs *regs,
				      struct kprobe_ctlblk *kcb)
{
	if (kprobe_status_get(kcb) != KPROBE_REENTER)
		kprobe_run_post_handler(p, regs, kcb);
	kprobe_leave(kcb);
}

static nokprobe_inline void kp_simulate(struct kprobe *p, struct pt_regs *regs)
{
	p->ainsn.simulate(p->opcode, (long)p->addr, regs);
	regs->pstate &= ~PSR_BTYPE_MASK;
}

/*
 * Execute the instruction of @p, the current probe, whose handlers (if
 * any) have run.  kcb->kprobe_status is KPROBE_HIT_ACTIVE, or
 * KPROBE_REENTER when no handler runs.
 */
static nokprobe_inline void kp_execute(struct kprobe *p, struct pt_regs *regs,
				       struct kprobe_ctlblk *kcb)
{
	bool reenter = kprobe_status_get(kcb) == KPROBE_REENTER;

	if (p->ainsn.simulate) {
		kp_simulate(p, regs);
		kp_finish(p, regs, kcb);
		return;
	}

	if (p->ainsn.boost && (reenter || !p->post_handler)) {
		kp_set_pc(regs, (unsigned long)p->ainsn.boost);
		kprobe_leave(kcb);
		return;
	}

	if (!reenter)
		kprobe_status_set(kcb, KPROBE_HIT_SS);
	kp_mask_step(regs, kcb);
	kp_set_pc(regs, (unsigned long)p->ainsn.insn);
}

/*
 * A probe hit while another one runs on this CPU: in its handlers, or
 * while a copy is stepped (from an SError, a debug exception or an SDEI
 * event: IRQs are masked there).  Count a miss and run the instruction
 * without handlers, as a level pushed on kcb->outer[]: simulated or
 * boosted, the level is left at once; stepped, its own step BRK leaves
 * it, which gives the interrupted probe back its status and saved flags.
 *
 * KPROBE_OUTER_DEPTH levels are kept, one for each way in
 * <asm/kprobes.h>, so a hit past the deepest level needs something that
 * none of them is, such as a kernel debugger stepping, or a broken kprobe
 * state.  Should one come, an instruction that completes without coming
 * back here (simulated or boosted) still runs, and the levels are left
 * as they are.  One that must be stepped would come back to a step BRK
 * that no saved level describes, with nothing to say where to resume or
 * which PSTATE.I and F to give back: skipping it would silently lose what
 * it does, and returning to the BRK would take it again forever with
 * interrupts masked, so stop here with both probes named.
 */
static nokprobe_inline void kp_reenter(struct kprobe *p, struct pt_regs *regs,
				       struct kprobe_ctlblk *kcb)
{
	kprobes_inc_nmissed_count(p);
	if (likely(kprobe_push_outer(kcb, p))) {
		kp_execute(p, regs, kcb);
		return;
	}
	if (p->ainsn.simulate) {
		kp_simulate(p, regs);
		return;
	}
	if (p->ainsn.boost) {
		kp_set_pc(regs, (unsigned long)p->ainsn.boost);
		return;
	}
	pr_err("kprobe at %pS hit %u levels deep in %pS, and it cannot run detached\n",
	       p->addr, kcb->nr_outer + 1, kprobe_running()->addr);
	dump_kprobe(p);
	BUG();
}

/**
 * kprobe_brk_handler() - a BRK #KPROBES_BRK_IMM was hit in the kernel
 * @regs: the trapped context; @regs->pc is the BRK's address
 * @esr: the exception syndrome
 *
 * Return: DBG_HOOK_HANDLED when @regs now say where to resume,
 * DBG_HOOK_ERROR when the BRK is not a probe's.
 */
int kprobe_brk_handler(struct pt_regs *regs, unsigned long esr)
{
	kprobe_opcode_t *addr = (kprobe_opcode_t *)instruction_pointer(regs);
	struct kprobe_ctlblk *kcb = get_kprobe_ctlblk();
	struct kprobe *p;

	p = get_kprobe(addr);
	if (!p) {
		/*
		 * The probe went away after this CPU took its BRK (the
		 * instruction is back): run it.
		 */
		if (le32_to_cpu(READ_ONCE(*addr)) != BRK64_OPCODE_KPROBES)
			return DBG_HOOK_HANDLED;
		return DBG_HOOK_ERROR;
	}

	if (kprobe_running()) {
		kp_reenter(p, regs, kcb);
		return DBG_HOOK_HANDLED;
	}

	__this_cpu_write(current_kprobe, p);
	kprobe_status_set(kcb, KPROBE_HIT_ACTIVE);

	/* A pre_handler that returns non-zero has set regs->pc itself. */
	if (kprobe_run_pre_handlers(p, regs)) {
		reset_current_kprobe();
		return DBG_HOOK_HANDLED;
	}

	kp_execute(p, regs, kcb);
	return DBG_HOOK_HANDLED;
}
NOKPROBE_SYMBOL(kprobe_brk_handler);

/* ---------------------------------------------------------------------
 * Part 3: completion.
 */

/**
 * kprobe_ss_brk_handler() - the BRK after a copy in a stepping slot
 * @regs: the trapped context; @regs->pc is the BRK's address
 * @esr: the exception syndrome
 *
 * Return: DBG_HOOK_HANDLED if it ends the running probe's copy,
 * DBG_HOOK_ERROR otherwise.
 */
int kprobe_ss_brk_handler(struct pt_regs *regs, unsigned long esr)
{
	struct kprobe_ctlblk *kcb = get_kprobe_ctlblk();
	struct kprobe *cur = kprobe_running();

	if (!cur || !kprobe_stepping(kcb) || !cur->ainsn.insn ||
	    instruction_pointer(regs) != (unsigned long)(cur->ainsn.insn + 1))
		return DBG_HOOK_ERROR;

	kp_end_step(regs, kcb, (unsigned long)(cur->addr + 1));
	kp_finish(cur, regs, kcb);
	return DBG_HOOK_HANDLED;
}
NOKPROBE_SYMBOL(kprobe_ss_brk_handler);

/**
 * kretprobe_brk_handler() - the BRK of a kretprobe trampoline
 * @regs: the trapped context
 * @esr: the exception syndrome
 *
 * Return probes go through rethook, whose trampoline returns with no
 * exception: no BRK #KRETPROBES_BRK_IMM is ever ours.
 *
 * Return: DBG_HOOK_ERROR.
 */
int kretprobe_brk_handler(struct pt_regs *regs, unsigned long esr)
{
	return DBG_HOOK_ERROR;
}
NOKPROBE_SYMBOL(kretprobe_brk_handler);

/**
 * kprobe_fault_handler() - a fault was taken while a kprobe runs here
 * @regs: the faulting context
 * @fsr: the exception syndrome
 *
 * Called from the page fault handler with preemption disabled.  A fault
 * in the copy of an instruction is made to look like a fault at the
 * original address, so that the exception table finds its fixup (or the
 * oops names the right place).
 * Return: 0 always: the fault is not consumed.
 */
int kprobe_fault_handler(struct pt_regs *regs, unsigned int fsr)
{
	struct kprobe_ctlblk *kcb = get_kprobe_ctlblk();
	struct kprobe *cur = kprobe_running();

	if (!kprobe_stepping(kcb) || !cur->ainsn.insn)
		return 0;
	if (instruction_pointer(regs) == (unsigned long)cur->ainsn.insn) {
		kp_end_step(regs, kcb, (unsigned long)cur->addr);
		kprobe_leave(kcb);
	}
	return 0;
}
NOKPROBE_SYMBOL(kprobe_fault_handler);
