// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Jump optimization of x86 kprobes ("optprobes").
 *
 * An armed int3 probe whose surroundings allow it is turned into a
 * "jmp rel32" to a detour buffer.  The five bytes of the jump cover the
 * probed instruction and maybe a few more: the "region", a run of whole
 * instructions of at least JMP32_INSN_SIZE bytes.  The detour buffer is
 *
 *	[ detour head: build a struct pt_regs as int3 would, call
 *	  kp_detour_handler(op, regs), restore everything ]
 *	[ the region's instructions, rip-relative operands relocated ]
 *	[ jmp <end of region> ; int3 ]
 *
 * The head is assembled once, below, into .rodata (it never runs from
 * there); arch_prepare_optimized_kprobe() copies it into a slot of the
 * optinsn cache and fills in the per-probe words.  An int3 hit on a
 * probe that is flagged optimized skips the head: the int3 path has run
 * the handlers already and resumes at the copied region.
 *
 * Safety (checked once, when the site is prepared): the region lies in
 * one function, every instruction of it can run from the copy (as for
 * boosting: no branch, no exception table entry, rip-relative operands
 * within reach), no ENDBR in it, none of its bytes is patched by ftrace,
 * jump labels, static calls or alternatives; and nothing in the whole
 * function can land inside the region: no relative branch targets its
 * interior, no indirect jump (directly or through a retpoline/ITS
 * thunk) exists, and no instruction has an exception table entry (its
 * fixup might jump anywhere); the same for the function's ".cold" part.  When the optimizer is about to act, no
 * other probe may sit inside the region (arch_check_optimized_kprobe()).
 *
 * Patching: a site reaches the optimizer with its int3 already synced
 * in, so installing the jump is "write the rel32 behind the int3, sync,
 * write the opcode, sync", done for a whole batch of sites with those
 * two syncs.  Going back is "write int3, sync, write the original four
 * bytes, sync", also per batch.  In both windows a CPU that executes
 * the first byte traps on the int3 and is sent into the detour buffer
 * by setup_detour_execution(), which stays valid throughout.
 *
 * Locking: everything but the hit path runs under kprobe_mutex; the
 * patching functions also under cpus_read_lock and text_mutex.
 */
#include <linux/extable.h>
#include <linux/ftrace.h>
#include <linux/jump_label.h>
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/memory.h>
#include <linux/perf_event.h>
#include <linux/sizes.h>
#include <linux/static_call.h>
#include <linux/string.h>
#include <linux/unaligned.h>
#include <asm/alternative.h>
#include <asm/ibt.h>
#include <asm/insn.h>
#include <asm/text-patching.h>

#include "common.h"

#ifdef CONFIG_X86_64

/*
 * The detour head.  Entered by the jump with %rsp at S, the stack
 * pointer of the probed instruction.  It leaves, from S downwards:
 *
 *	S-8	the probe address + 1 (a fake return address) \ a frame
 *	S-16	the caller's %rbp                              / record
 *	S-24	ss   \
 *	S-32	sp    |
 *	S-40	flags |  struct pt_regs (sp, cs, ip and orig_ax are
 *	...	      |  filled in by kp_detour_handler())
 *	S-184	r15  /
 *
 * The frame record lets an ORC unwind that meets the buffer (it has no
 * ORC data and falls back to frame pointers) step over it into the
 * probed function with the right stack pointer.  Only lea and push
 * touch %rsp before pushfq and after popfq, so the flags survive.
 */
#define KP_DETOUR_REGS_SIZE	168	/* sizeof(struct pt_regs) */

#ifdef CONFIG_FRAME_POINTER
/* SAVE_REGS_STRING has pointed %rbp at the regs (an encoded frame). */
#define KP_DETOUR_FRAME		""
#else
#define KP_DETOUR_FRAME		"	lea 168(%rsp), %rbp\n"
#endif

asm(
	".pushsection .rodata\n"
	".global kp_detour_tmpl\n"
	"kp_detour_tmpl:\n"
	"	.byte 0x68\n"			/* push $imm32 */
	"kp_detour_tmpl_retaddr:\n"
	"	.long 0\n"
	"	push %rbp\n"
	"	push $" __stringify(__KERNEL_DS) "\n"
	"	lea -8(%rsp), %rsp\n"
	"	pushfq\n"
	"kp_detour_tmpl_clac:\n"
	"	.byte 0x0f, 0x1f, 0x00\n"	/* nopl (%rax), or clac */
	SAVE_REGS_STRING
	KP_DETOUR_FRAME
	"	mov %rsp, %rsi\n"
	"kp_detour_tmpl_op:\n"
	"	movabs $0, %rdi\n"
	"kp_detour_tmpl_call:\n"
	"	.byte 0xe8\n"			/* call rel32 */
	"	.long 0\n"
	RESTORE_REGS_STRING
	"	popfq\n"
	"	lea 32(%rsp), %rsp\n"
	".global kp_detour_tmpl_end\n"
	"kp_detour_tmpl_end:\n"
	".popsection\n"
);

extern const u8 kp_detour_tmpl_retaddr[], kp_detour_tmpl_clac[],
	kp_detour_tmpl_op[], kp_detour_tmpl_call[];

/* Functions larger than this are not decoded (nor optimized). */
#define KP_MAX_FUNC_SIZE	SZ_64K

#define KP_TMPL_OFF(label)	((label) - kp_detour_tmpl)

/* Where the copied region starts in a detour buffer. */
static inline kprobe_opcode_t *kp_detour_region(struct optimized_kprobe *op)
{
	return op->optinsn.insn + KP_DETOUR_TMPL_SIZE;
}

/**
 * kp_detour_handler() - the handler call of a detour buffer
 * @op: the optimized site
 * @regs: registers saved by the detour head
 *
 * Completes @regs to what an int3 at the probe would have saved and
 * runs the site's pre_handlers, with the same per-CPU state as the
 * int3 path so that a probe hit inside a handler counts as a miss.
 * Changes the handlers make to @regs->ip are ignored (documented).
 * Context: the detour buffer; interrupts as the probed code had them;
 * disables preemption.
 */
static void kp_detour_handler(struct optimized_kprobe *op,
			      struct pt_regs *regs)
{
	struct kprobe *site = &op->kp;

	regs->ip = (unsigned long)site->addr + INT3_INSN_SIZE;
	regs->sp = (unsigned long)regs + KP_DETOUR_REGS_SIZE + 2 * sizeof(long);
	regs->cs = __KERNEL_CS;
	regs->orig_ax = ~0UL;

	preempt_disable();
	if (unlikely(kprobe_running())) {
		/* Hit inside another probe's handler: count, skip. */
		kprobes_inc_nmissed_count(site);
		goto out;
	}
	/* Running first, then the status: see kprobe_ftrace_claim(). */
	__this_cpu_write(current_kprobe, site);
	barrier();
	kprobe_status_set(get_kprobe_ctlblk(), KPROBE_HIT_ACTIVE);
	opt_pre_handler(site, regs);
	reset_current_kprobe();
out:
	preempt_enable();
}
NOKPROBE_SYMBOL(kp_detour_handler);

/*
 * setup_detour_execution - see common.h.  An int3 hit on a site that is
 * (or is about to be) a jump: the handlers have run, so resume at the
 * copied region instead of stepping.
 * Context: int3 handler.
 */
int setup_detour_execution(struct kprobe *p, struct pt_regs *regs, int reenter)
{
	struct optimized_kprobe *op;

	if (!kprobe_optimized(p))
		return 0;
	/* The flag before the buffer: pairs with opt_run_build()'s smp_wmb(). */
	smp_rmb();
	op = container_of(p, struct optimized_kprobe, kp);
	if (!op->optinsn.insn)
		return 0;
	regs->ip = (unsigned long)kp_detour_region(op);
	if (!reenter)
		reset_current_kprobe();
	return 1;
}
NOKPROBE_SYMBOL(setup_detour_execution);

/*
 * __recover_optprobed_insn - see common.h.  Puts back the original bytes
 * of any prepared site whose jump may cover @addr .. @addr + 4; @buf
 * already holds the text at @addr.
 * Context: kprobe_mutex held.
 */
unsigned long __recover_optprobed_insn(kprobe_opcode_t *buf,
				       unsigned long addr)
{
	struct optimized_kprobe *op;
	unsigned long start;
	bool changed = false;
	struct kprobe *p;
	int i, j;

	for (i = 0; i < JMP32_INSN_SIZE; i++) {
		start = addr - i;
		p = get_kprobe((void *)start);
		if (!p || kprobe_ftrace(p))
			continue;
		op = container_of(p, struct optimized_kprobe, kp);
		if (!op->optinsn.insn)
			continue;
		for (j = i; j < JMP32_INSN_SIZE; j++)
			buf[j - i] = op->optinsn.orig[j];
		changed = true;
	}
	return changed ? (unsigned long)buf : addr;
}

/* Decode the original instruction at @pos; @buf backs @insn. */
static int kp_opt_decode(unsigned long pos, kprobe_opcode_t *buf,
			 struct insn *insn)
{
	unsigned long from = recover_probed_instruction(buf, pos);

	if (!from)
		return -EFAULT;
	if (insn_decode_kernel(insn, (void *)from) < 0)
		return -EILSEQ;
	return 0;
}

/* The target of a relative jump, call or loop, or 0 for anything else. */
static unsigned long kp_rel_target(struct insn *insn, unsigned long pos)
{
	u8 op = insn->opcode.bytes[0];

	if (insn_is_avx(insn))
		return 0;
	switch (op) {
	case 0x70 ... 0x7f:	/* jcc rel8 */
	case 0xe0 ... 0xe3:	/* loopne, loope, loop, jrcxz */
	case 0xe8:		/* call rel32 */
	case 0xe9:		/* jmp rel32 */
	case 0xeb:		/* jmp rel8 */
		break;
	case 0x0f:		/* jcc rel32 */
		if (insn->opcode.nbytes == 2 &&
		    (insn->opcode.bytes[1] & 0xf0) == 0x80)
			break;
		return 0;
	default:
		return 0;
	}
	return pos + insn->length + insn->immediate.value;
}

/* jmp *r/m: group 5, /4 (near) or /5 (far). */
static bool kp_is_indirect_jmp(struct insn *insn)
{
	u8 reg;

	if (insn_is_avx(insn) || insn->opcode.bytes[0] != 0xff)
		return false;
	reg = X86_MODRM_REG(insn->modrm.bytes[0]);
	return reg == 4 || reg == 5;
}

/*
 * Where a relative jump that leaves the function goes.  Retpoline and
 * ITS thunks are named __x86_indirect_*: such a jump is an indirect jump
 * in disguise, and so is a jump to code kallsyms does not know (a
 * dynamically allocated thunk).  GCC moves unlikely paths of a function
 * into "<name>.cold", which jumps back into the function; the function
 * reaches it only by jumping there, so the jumps found here are how its
 * cold parts are found.  One symbol lookup per such jump: jumps to core
 * kernel text (the return thunk) are a binary search.
 */
enum kp_exit { KP_EXIT_PLAIN, KP_EXIT_INDIRECT, KP_EXIT_COLD };

static enum kp_exit kp_classify_exit(unsigned long target,
				     unsigned long *cstart,
				     unsigned long *cend)
{
	char name[KSYM_NAME_LEN];
	unsigned long size, off;
	char *mod;

	if (!kallsyms_lookup(target, &size, &off, &mod, name))
		return KP_EXIT_INDIRECT;
	if (str_has_prefix(name, "__x86_indirect_"))
		return KP_EXIT_INDIRECT;
	if (!strstr(name, ".cold"))
		return KP_EXIT_PLAIN;
	*cstart = target - off;
	*cend = target - off + size;
	return KP_EXIT_COLD;
}

/*
 * Decode the function [@fstart, @fend) and check that nothing can
 * enter the region [@start, @end) but its first byte.  @cold: this is a
 * cold part (its own exits are not followed further).
 */
static int kp_check_function(unsigned long fstart, unsigned long fend,
			     unsigned long start, unsigned long end,
			     bool cold)
{
	unsigned long pos, target, cstart, cend, checked = 0;
	kprobe_opcode_t buf[MAX_INSN_SIZE];
	struct insn insn;
	int ret;

	for (pos = fstart; pos < fend; pos += insn.length) {
		ret = kp_opt_decode(pos, buf, &insn);
		if (ret)
			return ret;
		/* Its fixup may jump into the region. */
		if (search_exception_tables(pos))
			return -EBUSY;
		/* A jump table or computed goto. */
		if (kp_is_indirect_jmp(&insn))
			return -EBUSY;
		target = kp_rel_target(&insn, pos);
		if (!target)
			continue;
		if (target > start && target < end)
			return -EBUSY;
		/* Calls return; jumps inside the function are checked. */
		if (insn.opcode.bytes[0] == 0xe8 ||
		    (target >= fstart && target < fend))
			continue;
		switch (kp_classify_exit(target, &cstart, &cend)) {
		case KP_EXIT_INDIRECT:
			return -EBUSY;
		case KP_EXIT_COLD:
			if (cold || cstart == checked)
				break;
			if (cend - cstart > KP_MAX_FUNC_SIZE)
				return -E2BIG;
			ret = kp_check_function(cstart, cend, start, end, true);
			if (ret)
				return ret;
			checked = cstart;
			break;
		default:
			break;
		}
	}
	return pos == fend ? 0 : -EILSEQ;
}

/*
 * Is any byte of [@start, @end) patched by someone else, or the target
 * of a jump label (a nop while its key is off, so that the decoding in
 * kp_check_function() does not see its jump)?
 */
static bool kp_region_reserved(unsigned long start, unsigned long end)
{
	void *s = (void *)start, *e = (void *)(end - 1);

	return ftrace_text_reserved(s, e) || alternatives_text_reserved(s, e) ||
	       kprobe_jump_label_meets(start, end - 1) ||
	       static_call_text_reserved(s, e);
}

/*
 * Copy the region starting at @addr into @dest, relocated to run at
 * @real.  Returns the region's length, or a negative errno if it cannot
 * be copied or would end past @fend.
 */
static int kp_copy_region(u8 *dest, u8 *real, unsigned long addr,
			  unsigned long fend)
{
	struct insn insn;
	int len = 0, n;

	while (len < JMP32_INSN_SIZE) {
		if (addr + len >= fend)
			return -ERANGE;
		n = __copy_instruction(dest + len, (u8 *)addr + len,
				       real + len, &insn);
		if (!n)
			return -EILSEQ;
		if (!can_boost(&insn, (void *)(addr + len)))
			return -EOPNOTSUPP;
		if (n >= ENDBR_INSN_SIZE && is_endbr(get_unaligned((u32 *)(dest + len))))
			return -EOPNOTSUPP;
		len += n;
	}
	if (addr + len > fend)
		return -ERANGE;
	return len;
}

/*
 * The original bytes the jump at @addr will replace, into @orig: decoded
 * instruction by instruction, so that the int3 of any other probe in
 * them, and any jump over them, is taken out as it is for the site's
 * own first byte.  A probe inside the region keeps the jump out while it
 * is enabled, but may still be in the text when the buffer is built;
 * its int3 in @orig would be written back when the jump goes, and stay
 * there, no probe's, after the probe is gone.
 */
static int kp_region_orig(u8 *orig, unsigned long addr)
{
	kprobe_opcode_t buf[MAX_INSN_SIZE];
	unsigned long pos = addr;
	struct insn insn;
	int ret;

	while (pos < addr + JMP32_INSN_SIZE) {
		ret = kp_opt_decode(pos, buf, &insn);
		if (ret)
			return ret;
		memcpy(orig + (pos - addr), insn.kaddr,
		       min_t(unsigned long, insn.length,
			     addr + JMP32_INSN_SIZE - pos));
		pos += insn.length;
	}
	return 0;
}

/* Fill the per-probe words of the detour head in @code, to run at @slot. */
static int kp_fill_head(u8 *code, kprobe_opcode_t *slot,
			struct optimized_kprobe *op)
{
	static const u8 clac[] = { 0x0f, 0x01, 0xca };
	unsigned long retaddr = (unsigned long)op->kp.addr + INT3_INSN_SIZE;
	u8 *call = code + KP_TMPL_OFF(kp_detour_tmpl_call);
	u8 *mov = code + KP_TMPL_OFF(kp_detour_tmpl_op);
	void *target;

	BUILD_BUG_ON(sizeof(struct pt_regs) != KP_DETOUR_REGS_SIZE);
	if ((long)retaddr != (s32)retaddr)
		return -ERANGE;
	memcpy(code, kp_detour_tmpl, KP_DETOUR_TMPL_SIZE);
	/* movabs $imm64, %rdi: REX.W, b8+7, then the immediate. */
	if (WARN_ON_ONCE(mov[0] != 0x48 || mov[1] != 0xbf))
		return -EINVAL;
	put_unaligned((s32)retaddr,
		      (s32 *)(code + KP_TMPL_OFF(kp_detour_tmpl_retaddr)));
	if (boot_cpu_has(X86_FEATURE_SMAP))
		memcpy(code + KP_TMPL_OFF(kp_detour_tmpl_clac), clac,
		       sizeof(clac));
	put_unaligned((unsigned long)op, (unsigned long *)(mov + 2));
	/* Through the call-depth accounting thunk when there is one. */
	target = callthunks_translate_call_dest(kp_detour_handler);
	synthesize_relcall(call, slot + KP_TMPL_OFF(kp_detour_tmpl_call),
			   target);
	return 0;
}

/* The head, the longest region, the jump back and an int3. */
#define KP_DETOUR_SIZE	(KP_DETOUR_TMPL_SIZE + MAX_OPTIMIZED_LENGTH + \
			 JMP32_INSN_SIZE + INT3_INSN_SIZE)

/*
 * A detour slot holds what a detour can need and no more (MAX_OPTINSN_SIZE
 * only bounds the buffer a detour is built in).  Called once at boot.
 */
size_t arch_optinsn_slot_size(void)
{
	return KP_DETOUR_SIZE;
}

/**
 * arch_prepare_optimized_kprobe() - check a site and build its detour
 * @op: the site (@op->kp.addr is set, its int3 may or may not be armed)
 * @orig: the same probe (kept for the generic interface)
 *
 * Leaves @op->optinsn.size zero if the site can never be optimized.
 *
 * Return: 0 if the detour is ready, or a negative errno.
 * Context: kprobe_mutex, cpus_read_lock, jump_label_lock and text_mutex.
 */
int arch_prepare_optimized_kprobe(struct optimized_kprobe *op,
				  struct kprobe *orig)
{
	u8 code[MAX_OPTINSN_SIZE];
	unsigned long addr = (unsigned long)op->kp.addr, fstart, size, off;
	kprobe_opcode_t *slot;
	u8 *region;
	int len, ret;

	lockdep_assert_held(&text_mutex);
	arch_remove_optimized_kprobe(op);
	if (WARN_ON_ONCE(KP_DETOUR_SIZE > MAX_OPTINSN_SIZE))
		return -E2BIG;

	/*
	 * kallsyms sizes run to the next symbol; a huge one is a gap, not
	 * a function, and not worth decoding.
	 */
	if (!kprobe_func_bounds(&op->kp, &fstart, &size))
		return -EILSEQ;
	off = addr - fstart;
	if (size > KP_MAX_FUNC_SIZE)
		return -E2BIG;

	slot = get_optinsn_slot();
	if (!slot)
		return -ENOMEM;

	ret = kp_fill_head(code, slot, op);
	if (ret)
		goto fail;
	region = code + KP_DETOUR_TMPL_SIZE;
	len = kp_copy_region(region, slot + KP_DETOUR_TMPL_SIZE, addr,
			     addr - off + size);
	if (len < 0) {
		ret = len;
		goto fail;
	}
	if (kp_region_reserved(addr, addr + len)) {
		ret = -EBUSY;
		goto fail;
	}
	ret = kp_check_function(addr - off, addr - off + size, addr,
				addr + len, false);
	if (ret)
		goto fail;

	ret = kp_region_orig(op->optinsn.orig, addr);
	if (ret)
		goto fail;

	synthesize_reljump(region + len, slot + KP_DETOUR_TMPL_SIZE + len,
			   (void *)(addr + len));
	region[len + JMP32_INSN_SIZE] = INT3_INSN_OPCODE;
	len += JMP32_INSN_SIZE + INT3_INSN_SIZE;

	perf_event_text_poke(slot, NULL, 0, code, KP_DETOUR_TMPL_SIZE + len);
	text_poke(slot, code, KP_DETOUR_TMPL_SIZE + len);
	op->optinsn.insn = slot;
	op->optinsn.size = len - JMP32_INSN_SIZE - INT3_INSN_SIZE;
	return 0;

fail:
	free_optinsn_slot(slot, 0);
	return ret;
}

#else /* !CONFIG_X86_64 */

/* 32-bit kernels keep their probes as int3: nothing is ever prepared. */
int setup_detour_execution(struct kprobe *p, struct pt_regs *regs, int reenter)
{
	return 0;
}
NOKPROBE_SYMBOL(setup_detour_execution);

unsigned long __recover_optprobed_insn(kprobe_opcode_t *buf,
				       unsigned long addr)
{
	return addr;
}

int arch_prepare_optimized_kprobe(struct optimized_kprobe *op,
				  struct kprobe *orig)
{
	return -EOPNOTSUPP;
}

#endif /* CONFIG_X86_64 */

/**
 * arch_remove_optimized_kprobe() - free the detour buffer of a site
 * @op: the site; its jump is not in the text
 *
 * The slot is released dirty if the site was ever armed: a CPU may still
 * run in it until a grace period has passed (the core waits for RCU tasks
 * before freeing a site that ever ran through its detour).  A site never
 * armed (a refused batch's rollback) gives it back clean.
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

/*
 * Does a probe sit on a byte of the region after the first: an enabled
 * one, or one whose jump is still in the text (its last user gone, the
 * jump queued for the optimizer to undo)?  While such a jump is there,
 * this site may not even send int3 hits through its detour buffer,
 * which returns to the end of the region: that may be inside the jump.
 */
static bool kp_region_probed(struct optimized_kprobe *op)
{
	kprobe_opcode_t *a = op->kp.addr + INT3_INSN_SIZE;
	kprobe_opcode_t *end = op->kp.addr + op->optinsn.size;
	struct kprobe *p;

	for (; a < end; a++) {
		p = get_kprobe(a);
		if (p && (!kprobe_disabled(p) || kprobe_optimized(p)))
			return true;
	}
	return false;
}

/**
 * arch_check_optimized_kprobe() - may the jump go in now?
 * @op: a prepared site
 *
 * A disabled probe inside the region has no int3 in the text; if it is
 * enabled again, the core takes the jump out before arming it.  One
 * whose own jump has yet to be undone still counts.
 *
 * Return: 0, or -EEXIST if a probe sits inside the region (the jump
 * would swallow its int3, or clash with its jump), -EINVAL if @op is
 * not prepared.
 * Context: kprobe_mutex held.
 */
int arch_check_optimized_kprobe(struct optimized_kprobe *op)
{
	if (!arch_prepared_optinsn(&op->optinsn))
		return -EINVAL;
	return kp_region_probed(op) ? -EEXIST : 0;
}

/**
 * arch_within_optimized_kprobe() - is @addr inside the region of @op?
 * @op: a prepared site
 * @addr: a text address
 *
 * Return: non-zero if @addr is one of the bytes the jump replaces.
 * Context: kprobe_mutex held.
 */
int arch_within_optimized_kprobe(struct optimized_kprobe *op,
				 kprobe_opcode_t *addr)
{
	unsigned long off = addr - op->kp.addr;

	/* Below the probe, off wraps around and is too large as well. */
	return off < op->optinsn.size;
}

/* The jump of @op, into @jmp. */
static void kp_make_jump(struct optimized_kprobe *op, u8 *jmp)
{
	synthesize_reljump(jmp, op->kp.addr, op->optinsn.insn);
}

/**
 * arch_optimize_kprobes() - replace the int3 of every site on @oplist
 * by its jump
 * @oplist: prepared, armed sites, linked by ->list; emptied
 *
 * Two CPU synchronisations for the whole list: one after the rel32s
 * went in behind the int3s, one after the opcodes.  The caller has made
 * sure (RCU tasks) that no task is inside any of the regions.
 * Context: kprobe_mutex, cpus_read_lock and text_mutex held.
 */
void arch_optimize_kprobes(struct list_head *oplist)
{
	struct optimized_kprobe *op, *tmp;
	u8 jmp[JMP32_INSN_SIZE], old[JMP32_INSN_SIZE];

	lockdep_assert_held(&text_mutex);
	if (list_empty(oplist))
		return;
	list_for_each_entry(op, oplist, list) {
		kp_make_jump(op, jmp);
		text_poke(op->kp.addr + INT3_INSN_SIZE, jmp + INT3_INSN_SIZE,
			  DISP32_SIZE);
	}
	text_poke_sync();
	list_for_each_entry_safe(op, tmp, oplist, list) {
		kp_make_jump(op, jmp);
		text_poke(op->kp.addr, jmp, INT3_INSN_SIZE);
		memcpy(old, op->optinsn.orig, JMP32_INSN_SIZE);
		old[0] = INT3_INSN_OPCODE;
		perf_event_text_poke(op->kp.addr, old, JMP32_INSN_SIZE,
				     jmp, JMP32_INSN_SIZE);
		list_del_init(&op->list);
	}
	text_poke_sync();
}

/* Put int3 and the original rel32 bytes back at @n sites of @ops. */
static void kp_unjump(struct optimized_kprobe **ops, unsigned int n)
{
	u8 int3 = INT3_INSN_OPCODE, jmp[JMP32_INSN_SIZE], now[JMP32_INSN_SIZE];
	unsigned int i;

	for (i = 0; i < n; i++)
		text_poke(ops[i]->kp.addr, &int3, INT3_INSN_SIZE);
	text_poke_sync();
	for (i = 0; i < n; i++) {
		struct optimized_kprobe *op = ops[i];

		text_poke(op->kp.addr + INT3_INSN_SIZE,
			  op->optinsn.orig + INT3_INSN_SIZE, DISP32_SIZE);
		kp_make_jump(op, jmp);
		memcpy(now, op->optinsn.orig, JMP32_INSN_SIZE);
		now[0] = INT3_INSN_OPCODE;
		perf_event_text_poke(op->kp.addr, jmp, JMP32_INSN_SIZE,
				     now, JMP32_INSN_SIZE);
	}
	text_poke_sync();
}

/**
 * arch_unoptimize_kprobe() - put the int3 form back at one site
 * @op: a site whose jump is in the text
 *
 * Context: kprobe_mutex, cpus_read_lock and text_mutex held.
 */
void arch_unoptimize_kprobe(struct optimized_kprobe *op)
{
	lockdep_assert_held(&text_mutex);
	kp_unjump(&op, 1);
}

#define KP_UNJUMP_BATCH	64

/**
 * arch_unoptimize_kprobes() - put the int3 form back at many sites
 * @oplist: sites whose jumps are in the text, linked by ->list
 * @done_list: where they go once restored
 *
 * Two CPU synchronisations per KP_UNJUMP_BATCH sites.
 * Context: kprobe_mutex, cpus_read_lock and text_mutex held.
 */
void arch_unoptimize_kprobes(struct list_head *oplist,
			     struct list_head *done_list)
{
	struct optimized_kprobe *batch[KP_UNJUMP_BATCH];
	struct optimized_kprobe *op, *tmp;
	unsigned int n = 0, i;

	lockdep_assert_held(&text_mutex);
	list_for_each_entry_safe(op, tmp, oplist, list) {
		batch[n++] = op;
		if (n < KP_UNJUMP_BATCH && !list_is_last(&op->list, oplist))
			continue;
		kp_unjump(batch, n);
		for (i = 0; i < n; i++)
			list_move_tail(&batch[i]->list, done_list);
		n = 0;
	}
}
