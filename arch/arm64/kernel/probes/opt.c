// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * arm64 kprobes: jump optimization.
 *
 * An armed BRK probe on an instruction that can run anywhere is replaced
 * by a single "b" to a detour buffer (the template is opt_detour.S): the
 * buffer saves the registers, calls the handlers, restores the registers,
 * runs the displaced instruction and branches back after it.  A hit then
 * costs a branch and a call instead of a debug exception.
 *
 * Only one instruction is replaced, so no other instruction is covered
 * by the jump and nothing can branch into the middle of it; what remains
 * to check is per instruction and per place:
 *
 *  - Range: "b" reaches +-128 MiB.  Detour pages come from the module
 *    text area, which arm64 keeps within 128 MiB of the kernel image
 *    when it can; a probe whose buffer is out of reach (or whose return
 *    branch is) stays a BRK.
 *  - The displaced instruction runs at another address, so it must not
 *    read the pc: branches, adr/adrp and literal loads are simulated on
 *    the BRK path and are not optimized; neither is anything the BRK
 *    path refuses or simulates (hints included).
 *  - Landing pads: an indirect branch may land on "bti" or on
 *    "paciasp"/"pacibsp" (implicit landing pads under BTI); a "b" there
 *    would fault, so they stay BRKs.
 *  - A load or store with an exception table entry stays a BRK: a fault
 *    in the buffer would find no fixup for its address.
 *  - Probes with a post_handler are never optimized (generic rule), and
 *    handlers cannot redirect: changes to regs->pc are ignored.
 *
 * Replacing a BRK by a "b" and back is one 4-byte store of instructions
 * the architecture allows to be modified while other CPUs run them; the
 * optimizer still does each pass with one aarch64_insn_patch_text()
 * (one stop_machine()), so that when it returns no CPU can fetch the old
 * instruction.  A task preempted inside a buffer keeps it in use; the
 * generic optimizer waits for RCU tasks before freeing one.
 *
 * Locking: everything but kp_detour_handler() runs under kprobe_mutex;
 * the prepare and patching functions also under text_mutex and
 * cpus_read_lock.
 */
#include <linux/extable.h>
#include <linux/kprobes.h>
#include <linux/list.h>
#include <linux/memory.h>
#include <linux/sizes.h>

#include <asm/insn.h>
#include <asm/patching.h>

#include "decode-insn.h"

extern const u32 kp_detour_tmpl[], kp_detour_tmpl_insn[],
	kp_detour_tmpl_op[], kp_detour_tmpl_end[];

#define KP_DETOUR_INSNS		(kp_detour_tmpl_end - kp_detour_tmpl)
#define KP_DETOUR_INSN_IDX	(kp_detour_tmpl_insn - kp_detour_tmpl)
#define KP_DETOUR_OP_IDX	(kp_detour_tmpl_op - kp_detour_tmpl)

asmlinkage void kp_detour_handler(struct optimized_kprobe *op,
				  struct pt_regs *regs);

/**
 * kp_detour_handler() - the call in every detour buffer
 * @op: the optimized site
 * @regs: the registers saved by the buffer (pc is the probe address)
 *
 * Runs the site's pre_handlers with the same per-CPU state as the BRK
 * path, so that a probe hit inside a handler counts as a miss.
 * Context: a detour buffer; interrupts as the probed code had them;
 * disables preemption.
 */
asmlinkage void kp_detour_handler(struct optimized_kprobe *op,
				  struct pt_regs *regs)
{
	struct kprobe *site = &op->kp;

	regs->orig_x0 = regs->regs[0];
	regs->syscallno = NO_SYSCALL;
	preempt_disable();
	if (unlikely(kprobe_running())) {
		kprobes_inc_nmissed_count(site);
	} else {
		/* Running first, then the status: see kprobe_ftrace_claim(). */
		__this_cpu_write(current_kprobe, site);
		barrier();
		kprobe_status_set(get_kprobe_ctlblk(), KPROBE_HIT_ACTIVE);
		opt_pre_handler(site, regs);
		__this_cpu_write(current_kprobe, NULL);
	}
	preempt_enable();
}
NOKPROBE_SYMBOL(kp_detour_handler);

/* Detour pages are the step slots' (alloc_insn_page(), in kprobes.c). */

/* Detour slots are cut to the template (in instructions). */
size_t arch_optinsn_slot_size(void)
{
	return KP_DETOUR_INSNS;
}

static bool kp_in_branch_range(const void *from, const void *to)
{
	long off = (long)to - (long)from;

	return off >= -SZ_128M && off < SZ_128M;
}

/* Landing pads of indirect branches: a "b" there would fault under BTI. */
static bool kp_is_landing_pad(u32 insn)
{
	return aarch64_insn_is_bti(insn) ||
	       insn == aarch64_insn_gen_hint(AARCH64_INSN_HINT_PACIASP) ||
	       insn == aarch64_insn_gen_hint(AARCH64_INSN_HINT_PACIBSP);
}

/**
 * arch_prepare_optimized_kprobe() - check a site and build its detour
 * @op: the site; @op->kp is prepared for the BRK path (its opcode read)
 * @orig: the same probe (kept for the generic interface)
 *
 * Leaves @op->optinsn.size zero if the site can never be optimized.
 *
 * Return: 0 if the detour is ready; -EOPNOTSUPP for an instruction that
 * must stay a BRK (see the top of the file); -ERANGE if no buffer within
 * branch range could be had; -ENOMEM.
 * Context: kprobe_mutex, cpus_read_lock and text_mutex held.
 */
int arch_prepare_optimized_kprobe(struct optimized_kprobe *op,
				  struct kprobe *orig)
{
	u32 code[MAX_OPTINSN_SIZE];
	kprobe_opcode_t *addr = op->kp.addr, *slot, *back;
	struct arch_probe_insn api;
	u32 insn = op->kp.opcode;
	u64 lit[3];

	lockdep_assert_held(&text_mutex);
	arch_remove_optimized_kprobe(op);
	if (WARN_ON_ONCE(KP_DETOUR_INSNS > MAX_OPTINSN_SIZE))
		return -E2BIG;

	if (arm_probe_decode_insn(insn, &api) != INSN_GOOD ||
	    kp_is_landing_pad(insn) ||
	    search_exception_tables((unsigned long)addr))
		return -EOPNOTSUPP;

	slot = get_optinsn_slot();
	if (!slot)
		return -ENOMEM;
	back = slot + KP_DETOUR_INSN_IDX + 1;
	if (!kp_in_branch_range(addr, slot) ||
	    !kp_in_branch_range(back, addr + 1)) {
		free_optinsn_slot(slot, 0);
		return -ERANGE;
	}

	memcpy(code, kp_detour_tmpl, KP_DETOUR_INSNS * sizeof(u32));
	code[KP_DETOUR_INSN_IDX] = insn;
	code[KP_DETOUR_INSN_IDX + 1] =
		aarch64_insn_gen_branch_imm((unsigned long)back,
					    (unsigned long)(addr + 1),
					    AARCH64_INSN_BRANCH_NOLINK);
	/* The op, the handler (already in the template), the address. */
	memcpy(lit, &code[KP_DETOUR_OP_IDX], sizeof(lit));
	lit[0] = (u64)op;
	lit[2] = (u64)addr;
	memcpy(&code[KP_DETOUR_OP_IDX], lit, sizeof(lit));

	if (!aarch64_insn_copy(slot, code, KP_DETOUR_INSNS * sizeof(u32))) {
		free_optinsn_slot(slot, 0);
		return -EFAULT;
	}
	op->optinsn.insn = slot;
	op->optinsn.size = AARCH64_INSN_SIZE;
	return 0;
}

/**
 * arch_remove_optimized_kprobe() - free the detour buffer of a site
 * @op: the site; its branch is not in the text
 *
 * The slot is released dirty if the site was ever armed: a CPU may
 * still run in it until the generic core's RCU tasks wait has passed.
 * A site never armed (a refused batch's rollback) gives it back clean.
 * Context: kprobe_mutex held, or the site is unreachable.
 */
void arch_remove_optimized_kprobe(struct optimized_kprobe *op)
{
	if (op->optinsn.insn) {
		free_optinsn_slot(op->optinsn.insn, kprobe_ever_armed(&op->kp));
		op->optinsn.insn = NULL;
	}
	op->optinsn.size = 0;
}

/**
 * arch_check_optimized_kprobe() - may the branch go in now?
 * @op: a site
 *
 * The branch replaces the probed instruction only, so no other probe
 * can be in its way.
 * Return: 0, or -EINVAL if @op is not prepared.
 * Context: kprobe_mutex held.
 */
int arch_check_optimized_kprobe(struct optimized_kprobe *op)
{
	return arch_prepared_optinsn(&op->optinsn) ? 0 : -EINVAL;
}

/**
 * arch_within_optimized_kprobe() - is @addr under the branch of @op?
 * @op: a prepared site
 * @addr: a text address
 *
 * Return: non-zero if @addr is the probed instruction.
 * Context: kprobe_mutex held.
 */
int arch_within_optimized_kprobe(struct optimized_kprobe *op,
				 kprobe_opcode_t *addr)
{
	return addr == op->kp.addr;
}

/* The "b" from @op's probe address to its detour buffer. */
static u32 kp_opt_branch(struct optimized_kprobe *op)
{
	return aarch64_insn_gen_branch_imm((unsigned long)op->kp.addr,
					   (unsigned long)op->optinsn.insn,
					   AARCH64_INSN_BRANCH_NOLINK);
}

/* Sites patched per stop_machine(); the arrays live on the stack. */
#define KP_OPT_BATCH	64

/*
 * Write, at @n (at most KP_OPT_BATCH) sites, the branch to the detour
 * (@jump) or the BRK back, in one stop_machine().
 */
static void kp_opt_patch(struct optimized_kprobe **ops, unsigned int n,
			 bool jump)
{
	void *addrs[KP_OPT_BATCH];
	u32 insns[KP_OPT_BATCH];
	unsigned int i;

	lockdep_assert_held(&text_mutex);
	if (WARN_ON_ONCE(n > KP_OPT_BATCH))
		return;
	for (i = 0; i < n; i++) {
		addrs[i] = ops[i]->kp.addr;
		insns[i] = jump ? kp_opt_branch(ops[i]) : BRK64_OPCODE_KPROBES;
	}
	WARN_ON(aarch64_insn_patch_text(addrs, insns, n));
}

/*
 * Patch the sites of @oplist in batches of KP_OPT_BATCH, moving each
 * batch to @done (or unlinking it when @done is NULL).
 */
static void kp_opt_patch_list(struct list_head *oplist, struct list_head *done,
			      bool jump)
{
	struct optimized_kprobe *batch[KP_OPT_BATCH];
	struct optimized_kprobe *op, *tmp;
	unsigned int n = 0, i;

	list_for_each_entry_safe(op, tmp, oplist, list) {
		batch[n++] = op;
		if (n < KP_OPT_BATCH && !list_is_last(&op->list, oplist))
			continue;
		kp_opt_patch(batch, n, jump);
		for (i = 0; i < n; i++) {
			if (done)
				list_move_tail(&batch[i]->list, done);
			else
				list_del_init(&batch[i]->list);
		}
		n = 0;
	}
}

/**
 * arch_optimize_kprobes() - replace the BRK of every site on @oplist by
 * its branch
 * @oplist: prepared, armed sites, linked by ->list; emptied
 *
 * One stop_machine() per KP_OPT_BATCH sites.
 * Context: kprobe_mutex, cpus_read_lock and text_mutex held.
 */
void arch_optimize_kprobes(struct list_head *oplist)
{
	kp_opt_patch_list(oplist, NULL, true);
}

/**
 * arch_unoptimize_kprobes() - put the BRK back at many sites
 * @oplist: sites whose branches are in the text, linked by ->list
 * @done_list: where they go once restored
 *
 * One stop_machine() per KP_OPT_BATCH sites.
 * Context: kprobe_mutex, cpus_read_lock and text_mutex held.
 */
void arch_unoptimize_kprobes(struct list_head *oplist,
			     struct list_head *done_list)
{
	kp_opt_patch_list(oplist, done_list, false);
}

/**
 * arch_unoptimize_kprobe() - put the BRK back at one site
 * @op: a site whose branch is in the text
 *
 * Context: kprobe_mutex, cpus_read_lock and text_mutex held.
 */
void arch_unoptimize_kprobe(struct optimized_kprobe *op)
{
	kp_opt_patch(&op, 1, false);
}
