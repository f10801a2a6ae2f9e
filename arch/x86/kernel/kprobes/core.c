// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * x86 kprobes: the int3 path.
 *
 * The file has three parts:
 *
 *  1. Decode and prepare (process context, kprobe_mutex and text_mutex
 *     held): check that the address starts an instruction, classify the
 *     instruction with one table (kp_classify()) and build its slots.
 *  2. The hit path (int3 context: IRQs off, preemption off, may interrupt
 *     NMI-unsafe code): run the handlers, then emulate the instruction or
 *     run its copy from a slot.
 *  3. Completion: the int3 that follows the copy in the stepping slot, and
 *     faults taken while the copy runs.
 *
 * Slots (MAX_INSN_SIZE bytes each, from the generic insn cache, which
 * gets read-only executable pages from execmem):
 *
 *   insn:   [ copy of the instruction ][ int3 ]
 *   boost:  [ copy of the instruction ][ jmp <probe address + length> ]
 *
 * The stepping slot is used when a post_handler must run after the
 * instruction: the int3 brings the CPU back to kprobe_int3_handler() with
 * interrupts still disabled.  The boost slot lets the CPU go straight
 * back to the original text without a second trap.  Both are built when
 * the instruction allows boosting, so that the choice can be made at each
 * hit from the probe's current handlers: another probe with a
 * post_handler may join the address later.
 *
 * Instructions that do not behave the same at another address (branches,
 * calls, returns) or that the int3 protocol cannot step (the interrupt
 * flag modifiers) are emulated on the saved registers instead and get no
 * slot at all.
 */

#include <linux/kprobes.h>
#include <linux/ptrace.h>
#include <linux/string.h>
#include <linux/slab.h>
#include <linux/hardirq.h>
#include <linux/preempt.h>
#include <linux/sched/debug.h>
#include <linux/perf_event.h>
#include <linux/extable.h>
#include <linux/kdebug.h>
#include <linux/kallsyms.h>
#include <linux/kgdb.h>
#include <linux/ftrace.h>
#include <linux/execmem.h>
#include <linux/vmalloc.h>
#include <linux/pgtable.h>
#include <linux/set_memory.h>
#include <linux/cfi.h>
#include <linux/unaligned.h>
#include <linux/memory.h>

#include <asm/text-patching.h>
#include <asm/cacheflush.h>
#include <asm/desc.h>
#include <asm/debugreg.h>
#include <asm/ibt.h>
#include <asm/insn.h>
#include <asm/nops.h>
#include <asm/sections.h>
#include <asm/trapnr.h>

#include "common.h"

DEFINE_PER_CPU(struct kprobe *, current_kprobe);
DEFINE_PER_CPU(struct kprobe_ctlblk, kprobe_ctlblk);

/*
 * __switch_to() returns on another task's stack: a return probe there
 * would hand the wrong task's return address back.
 */
struct kretprobe_blackpoint kretprobe_blacklist[] = {
	{ .name = "__switch_to" },
	{ .name = NULL }
};

const int kretprobe_blacklist_size = ARRAY_SIZE(kretprobe_blacklist);

/* Return probes use rethook: no kprobe is a kretprobe trampoline. */
int arch_trampoline_kprobe(struct kprobe *p)
{
	return false;
}

/* Nothing to set up: slots and tables are static or allocated lazily. */
int __init arch_init_kprobes(void)
{
	return 0;
}

/* ---------------------------------------------------------------------
 * Part 1: decode, classify, prepare.
 */

/*
 * What the hit path does with an instruction.  KP_REFUSE must be 0 so
 * that the tables below refuse everything they do not list... except
 * that they list everything: ranges default to KP_BOOST and the
 * exceptions follow.
 */
enum kp_insn_kind {
	KP_REFUSE = 0,	/* cannot be stepped or emulated: refuse the probe */
	KP_BOOST,	/* run out of line; may jump back without a trap */
	KP_STEP,	/* run out of line; always trap back after it */
	KP_GROUP,	/* kind depends on the ModRM byte: kp_group_kind() */
	KP_EMU_JMP,	/* jmp rel8/rel32 */
	KP_EMU_CALL,	/* call rel32 */
	KP_EMU_JCC,	/* jcc rel8/rel32 */
	KP_EMU_RET,	/* ret, ret imm16 */
	KP_EMU_LOOP,	/* loop, loope, loopne, jrcxz */
	KP_EMU_CALL_REG, /* call *%reg */
	KP_EMU_JMP_REG,	/* jmp *%reg */
	KP_EMU_CLI,
	KP_EMU_STI,
	KP_EMU_PUSHF,
	KP_EMU_POPF,
};

#define KP_FIRST_EMU	KP_EMU_JMP

/* One-byte opcode map. */
static const u8 kp_onebyte_kind[256] = {
	[0x00 ... 0xff]	= KP_BOOST,
	[0x70 ... 0x7f]	= KP_EMU_JCC,
	[0x8e]		= KP_STEP,	/* mov to segment register */
	[0x9a]		= KP_REFUSE,	/* far call */
	[0x9c]		= KP_EMU_PUSHF,
	[0x9d]		= KP_EMU_POPF,
	[0xc2 ... 0xc3]	= KP_EMU_RET,
	[0xc7]		= KP_GROUP,	/* mov imm / xbegin */
	[0xca ... 0xcb]	= KP_REFUSE,	/* far ret */
	[0xcc ... 0xcf]	= KP_REFUSE,	/* int3, int n, into, iret */
	[0xe0 ... 0xe3]	= KP_EMU_LOOP,
	[0xe8]		= KP_EMU_CALL,
	[0xe9]		= KP_EMU_JMP,
	[0xea]		= KP_REFUSE,	/* far jmp */
	[0xeb]		= KP_EMU_JMP,
	[0xf1]		= KP_REFUSE,	/* int1 */
	[0xf4]		= KP_REFUSE,	/* hlt: would halt with IF clear */
	[0xfa]		= KP_EMU_CLI,
	[0xfb]		= KP_EMU_STI,
	[0xff]		= KP_GROUP,	/* inc/dec/call/jmp/push */
};

/* Two-byte opcode map (0x0f xx). */
static const u8 kp_twobyte_kind[256] = {
	[0x00 ... 0xff]	= KP_BOOST,
	[0x00 ... 0x01]	= KP_GROUP,	/* system: lgdt, swapgs, clac... */
	[0x05]		= KP_REFUSE,	/* syscall */
	[0x07]		= KP_REFUSE,	/* sysret */
	[0x0b]		= KP_REFUSE,	/* ud2 */
	[0x34 ... 0x35]	= KP_REFUSE,	/* sysenter, sysexit */
	[0x80 ... 0x8f]	= KP_EMU_JCC,
	[0xaa]		= KP_REFUSE,	/* rsm */
	[0xb9]		= KP_REFUSE,	/* ud1 */
	[0xff]		= KP_REFUSE,	/* ud0 */
};

#define KP_GPR(reg)	(offsetof(struct pt_regs, reg) / sizeof(unsigned long))

/* pt_regs word of the register numbered @n in ModRM/REX encoding. */
static const u8 kp_gpr_index[] = {
	KP_GPR(ax), KP_GPR(cx), KP_GPR(dx), KP_GPR(bx),
	KP_GPR(sp), KP_GPR(bp), KP_GPR(si), KP_GPR(di),
#ifdef CONFIG_X86_64
	KP_GPR(r8), KP_GPR(r9), KP_GPR(r10), KP_GPR(r11),
	KP_GPR(r12), KP_GPR(r13), KP_GPR(r14), KP_GPR(r15),
#endif
};

/* The ModRM-dependent opcodes: 0xc7, 0xff, 0x0f 0x00, 0x0f 0x01. */
static enum kp_insn_kind kp_group_kind(struct insn *insn)
{
	u8 op = insn->opcode.bytes[0];
	u8 modrm = insn->modrm.bytes[0];
	u8 reg = X86_MODRM_REG(modrm);

	if (op == 0xc7)		/* xbegin branches to its abort handler */
		return modrm == 0xf8 ? KP_REFUSE : KP_BOOST;

	if (op == 0x0f) {
		/* swapgs leaves the kernel GS base unusable for the trap */
		if (insn->opcode.bytes[1] == 0x01 && modrm == 0xf8)
			return KP_REFUSE;
		return KP_STEP;
	}

	/* 0xff */
	switch (reg) {
	case 2:			/* call near indirect */
	case 4:			/* jmp near indirect */
		/* The target is only emulated from a register. */
		if (X86_MODRM_MOD(modrm) != 3)
			return KP_REFUSE;
		return reg == 2 ? KP_EMU_CALL_REG : KP_EMU_JMP_REG;
	case 3:			/* call far */
	case 5:			/* jmp far */
	case 7:			/* undefined */
		return KP_REFUSE;
	default:		/* inc, dec, push */
		return KP_BOOST;
	}
}

/* Classify a decoded instruction: see enum kp_insn_kind. */
static enum kp_insn_kind kp_classify(struct insn *insn)
{
	u8 op = insn->opcode.bytes[0];
	enum kp_insn_kind kind;

	/* Hypervisor "emulate" prefixes trap on purpose; REX2 is unknown. */
	if (insn_has_emulate_prefix(insn) || insn_is_rex2(insn))
		return KP_REFUSE;

	/* VEX/EVEX: vector and bit-manipulation operations only. */
	if (insn_is_avx(insn))
		return KP_BOOST;

	if (insn->opcode.nbytes == 1)
		kind = kp_onebyte_kind[op];
	else if (op == 0x0f && insn->opcode.nbytes == 2)
		kind = kp_twobyte_kind[insn->opcode.bytes[1]];
	else
		kind = KP_BOOST;	/* three-byte maps 0f 38 / 0f 3a */

	if (kind == KP_GROUP)
		kind = kp_group_kind(insn);

	/* loop/jrcxz with a 32-bit counter in 64-bit code: not emulated. */
	if (kind == KP_EMU_LOOP && insn->addr_bytes != sizeof(long))
		return KP_REFUSE;

	return kind;
}

/**
 * can_boost - may this instruction run from a copy that jumps back?
 * @insn: decoded instruction
 * @orig_addr: where the instruction lives in the kernel text
 *
 * See common.h.  Called from process context (prepare paths).
 * Return: true if the instruction may be boosted.
 */
bool can_boost(struct insn *insn, void *orig_addr)
{
	if (kp_classify(insn) != KP_BOOST)
		return false;

	/*
	 * A fault in a copy that nobody tracks cannot be fixed up: the
	 * exception table knows the original address only.
	 */
	return !search_exception_tables((unsigned long)orig_addr);
}

/* Both are the text-patching generator with a fixed opcode (common.h). */
void synthesize_reljump(void *dest, void *from, void *to)
{
	__text_gen_insn(dest, JMP32_INSN_OPCODE, from, to, JMP32_INSN_SIZE);
}
NOKPROBE_SYMBOL(synthesize_reljump);

void synthesize_relcall(void *dest, void *from, void *to)
{
	__text_gen_insn(dest, CALL_INSN_OPCODE, from, to, CALL_INSN_SIZE);
}
NOKPROBE_SYMBOL(synthesize_relcall);

/*
 * recover_probed_instruction - see common.h.
 * Process context; kprobe_mutex held (get_kprobe() walks the table).
 */
unsigned long recover_probed_instruction(kprobe_opcode_t *buf,
					 unsigned long addr)
{
	struct kprobe *p;
	unsigned long ret;

	if (copy_from_kernel_nofault(buf, (void *)addr, MAX_INSN_SIZE))
		return 0;

	/* An ftrace site holds a call or a nop, originally a 5-byte nop. */
	if (kprobe_on_ftrace_site(addr)) {
		memcpy(buf, x86_nops[CALL_INSN_SIZE], CALL_INSN_SIZE);
		return (unsigned long)buf;
	}

	/* A jump of an optimized probe may cover @addr. */
	ret = __recover_optprobed_insn(buf, addr);
	if (ret != addr)
		return ret;

	p = get_kprobe((void *)addr);
	if (!p || kprobe_ftrace(p))
		return addr;

	/* The int3 (armed or not) replaced this byte. */
	buf[0] = p->opcode;
	return (unsigned long)buf;
}

/* Decode the original instruction at @addr into @insn; @buf backs it. */
static int kp_decode_at(unsigned long addr, kprobe_opcode_t *buf,
			struct insn *insn)
{
	unsigned long from = recover_probed_instruction(buf, addr);

	if (!from)
		return -EFAULT;
	if (insn_decode_kernel(insn, (void *)from) < 0)
		return -EILSEQ;
	return 0;
}

/*
 * __copy_instruction - see common.h.
 * Process context; kprobe_mutex held.
 */
int __copy_instruction(u8 *dest, u8 *src, u8 *real, struct insn *insn)
{
	kprobe_opcode_t buf[MAX_INSN_SIZE];
	s64 disp;
	int len;

	if (kp_decode_at((unsigned long)src, buf, insn))
		return 0;

	len = insn->length;
	memcpy(dest, insn->kaddr, len);

	if (insn_rip_relative(insn)) {
		/* Keep the operand address: src + len + d == real + len + d'. */
		disp = (s64)insn->displacement.value + (src - real);
		if (disp != (s32)disp)
			return 0;
		put_unaligned((s32)disp,
			      (s32 *)(dest + insn_offset_displacement(insn)));
		insn->displacement.value = (s32)disp;
	}

	/* @insn describes the copy from now on. */
	insn->kaddr = dest;
	return len;
}

/*
 * Is @p->addr the first byte of an instruction?  Walk the instructions of the
 * enclosing symbol from its start: kallsyms is the only reliable place to
 * start decoding from.  Process context; kprobe_mutex held.
 */
static int kp_check_insn_boundary(struct kprobe *p)
{
	unsigned long addr = (unsigned long)p->addr, start, size, pos;
	kprobe_opcode_t buf[MAX_INSN_SIZE];
	struct insn insn;

	if (!kprobe_func_bounds(p, &start, &size))
		return -EILSEQ;

	for (pos = start; pos < addr; pos += insn.length) {
		if (kp_decode_at(pos, buf, &insn))
			return -EILSEQ;
	}

	return pos == addr ? 0 : -EILSEQ;
}

/* Fill the slot @slot with @len bytes of @code.  text_mutex held. */
static kprobe_opcode_t *kp_fill_slot(kprobe_opcode_t *slot, const u8 *code,
				     size_t len)
{
	lockdep_assert_held(&text_mutex);

	text_poke(slot, code, len);
	return slot;
}

/*
 * Allocate and fill the slots of @p: the stepping slot always, the boost
 * slot when @boost.  Caller holds text_mutex.
 */
static int kp_build_slots(struct kprobe *p, bool boost)
{
	u8 code[MAX_INSN_SIZE];
	struct insn insn;
	kprobe_opcode_t *slot;
	int len;

	slot = get_insn_slot();
	if (!slot)
		return -ENOMEM;

	len = __copy_instruction(code, p->addr, slot, &insn);
	if (!len || len + INT3_INSN_SIZE > MAX_INSN_SIZE)
		goto refuse;
	code[len] = INT3_INSN_OPCODE;
	p->ainsn.insn = kp_fill_slot(slot, code, len + INT3_INSN_SIZE);

	/* Also on a preemptible kernel: see kp_may_boost(). */
	if (!boost || len + JMP32_INSN_SIZE > MAX_INSN_SIZE)
		return 0;

	slot = get_insn_slot();
	if (!slot)
		return 0;	/* boosting is an optimization only */
	if (__copy_instruction(code, p->addr, slot, &insn) != len) {
		free_insn_slot(slot, 0);
		return 0;
	}
	synthesize_reljump(code + len, slot + len, p->addr + len);
	p->ainsn.boost = kp_fill_slot(slot, code, len + JMP32_INSN_SIZE);
	return 0;

refuse:
	free_insn_slot(slot, 0);
	return -ERANGE;
}

/* Record in @p how to emulate @insn of kind @kind. */
static void kp_setup_emulation(struct kprobe *p, struct insn *insn,
			       enum kp_insn_kind kind)
{
	u8 rm;

	switch (kind) {
	case KP_EMU_JMP:
	case KP_EMU_CALL:
		p->ainsn.disp = insn->immediate.value;
		break;
	case KP_EMU_JCC:
		p->ainsn.disp = insn->immediate.value;
		p->ainsn.arg = insn->opcode.bytes[insn->opcode.nbytes - 1] & 0xf;
		break;
	case KP_EMU_LOOP:
		p->ainsn.disp = insn->immediate.value;
		p->ainsn.arg = insn->opcode.bytes[0];
		break;
	case KP_EMU_RET:
		/* "ret imm16" releases imm16 bytes after popping. */
		p->ainsn.disp = insn->opcode.bytes[0] == 0xc2 ?
				(u16)insn->immediate.value : 0;
		break;
	case KP_EMU_CALL_REG:
	case KP_EMU_JMP_REG:
		rm = X86_MODRM_RM(insn->modrm.bytes[0]);
		if (insn->rex_prefix.nbytes &&
		    X86_REX_B(insn->rex_prefix.bytes[0]))
			rm += 8;
		p->ainsn.arg = kp_gpr_index[rm];
		break;
	default:
		break;
	}
}

/**
 * arch_prepare_kprobe - check and prepare the instruction at @p->addr
 * @p: the probe; @p->addr is set
 *
 * Called with kprobe_mutex and text_mutex held, before the probe is armed.
 * Return: 0, -EILSEQ if @p->addr is not on an instruction boundary,
 * -EOPNOTSUPP if the instruction can be neither stepped nor emulated, or
 * another negative errno.
 */
int arch_prepare_kprobe(struct kprobe *p)
{
	kprobe_opcode_t buf[MAX_INSN_SIZE];
	unsigned long addr = (unsigned long)p->addr;
	enum kp_insn_kind kind;
	struct insn insn;
	int ret;

	lockdep_assert_held(&text_mutex);

	ret = kp_check_insn_boundary(p);
	if (ret)
		return ret;

	ret = kp_decode_at(addr, buf, &insn);
	if (ret)
		return ret;

	kind = kp_classify(&insn);
	if (kind == KP_REFUSE)
		return -EOPNOTSUPP;
	/*
	 * A fault in a stepped copy is moved back to the original address
	 * for its fixup; the fixup of load_unaligned_zeropad() then decodes
	 * the instruction there, which is our int3.
	 */
	if (ex_get_fixup_type(addr) == EX_TYPE_ZEROPAD)
		return -EOPNOTSUPP;

	memset(&p->ainsn, 0, sizeof(p->ainsn));
	p->ainsn.size = insn.length;
	p->ainsn.kind = kind;
	p->opcode = insn.kaddr[0];

	if (kind >= KP_FIRST_EMU) {
		kp_setup_emulation(p, &insn, kind);
		return 0;
	}

	return kp_build_slots(p, can_boost(&insn, p->addr));
}

/**
 * arch_remove_kprobe - release the slots of @p
 * @p: a disarmed probe
 *
 * Process context, a grace period after the site went out of every
 * lookup; no lock held.  The boost slot is freed "dirty" if the site
 * was ever armed: a CPU may have left the int3 handler for it and still be
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
 * Instruction slot pages: read-only and executable from the start; the
 * slots are written with text_poke().
 */
void *alloc_insn_page(void)
{
	void *page = execmem_alloc(EXECMEM_KPROBES, PAGE_SIZE);

	if (page)
		set_memory_rox((unsigned long)page, 1);
	return page;
}

/**
 * arch_adjust_kprobe_addr - map a symbol offset to the probed address
 * @addr: start of the symbol
 * @offset: offset into it
 * @on_func_entry: set when the result is the function's entry
 *
 * With IBT, a function starts with ENDBR, which cannot be probed (an
 * indirect branch must land on it) and is not where the function's work
 * starts: a probe at any offset inside it goes right after it.
 * Return: the address to probe.
 */
kprobe_opcode_t *arch_adjust_kprobe_addr(unsigned long addr,
					 unsigned long offset,
					 bool *on_func_entry)
{
	u32 first;

	if (offset <= ENDBR_INSN_SIZE && ENDBR_INSN_SIZE &&
	    !copy_from_kernel_nofault(&first, (void *)addr, sizeof(first)) &&
	    is_endbr(first)) {
		*on_func_entry = true;
		return (kprobe_opcode_t *)(addr + ENDBR_INSN_SIZE);
	}

	*on_func_entry = !offset;
	return (kprobe_opcode_t *)(addr + offset);
}

/*
 * Boot, kprobe_mutex held: the entry code runs before the kernel state
 * kprobes rely on (stack, GS base, RCU watching) is set up.
 */
int __init arch_populate_kprobe_blacklist(void)
{
	unsigned long start = (unsigned long)__entry_text_start;

	return kprobe_add_area_blacklist(start,
					 (unsigned long)__entry_text_end);
}

/* ---------------------------------------------------------------------
 * Part 2: the hit path.  Everything below runs in int3 context (IRQs
 * off, preemption off) or, for the fault handler, in the context of a
 * fault taken with a kprobe running on this CPU.
 */

/* Bits popf may change at CPL 0. */
#define KP_POPF_MASK	(X86_EFLAGS_CF | X86_EFLAGS_PF | X86_EFLAGS_AF | \
			 X86_EFLAGS_ZF | X86_EFLAGS_SF | X86_EFLAGS_TF | \
			 X86_EFLAGS_IF | X86_EFLAGS_DF | X86_EFLAGS_OF | \
			 X86_EFLAGS_IOPL | X86_EFLAGS_NT | X86_EFLAGS_AC | \
			 X86_EFLAGS_ID)

/* loop/loope/loopne/jrcxz: decrement and test the counter. */
static nokprobe_inline bool kp_loop_taken(struct pt_regs *regs, u8 op)
{
	bool zf = regs->flags & X86_EFLAGS_ZF;

	if (op == 0xe3)			/* jrcxz: no decrement */
		return !regs->cx;

	regs->cx--;
	if (!regs->cx)
		return false;
	if (op == 0xe0)			/* loopne */
		return !zf;
	if (op == 0xe1)			/* loope */
		return zf;
	return true;			/* loop */
}

/* Do on @regs what the instruction of @p would have done. */
static nokprobe_inline void kp_emulate(struct kprobe *p, struct pt_regs *regs)
{
	unsigned long next = (unsigned long)p->addr + p->ainsn.size;
	unsigned long *gpr = (unsigned long *)regs;
	unsigned long target;

	switch (p->ainsn.kind) {
	case KP_EMU_CALL:
		int3_emulate_push(regs, next);
		fallthrough;
	case KP_EMU_JMP:
		int3_emulate_jmp(regs, next + p->ainsn.disp);
		break;
	case KP_EMU_JCC:
		int3_emulate_jcc(regs, p->ainsn.arg, next, p->ainsn.disp);
		break;
	case KP_EMU_LOOP:
		if (kp_loop_taken(regs, p->ainsn.arg))
			next += p->ainsn.disp;
		int3_emulate_jmp(regs, next);
		break;
	case KP_EMU_RET:
		target = int3_emulate_pop(regs);
		regs->sp += p->ainsn.disp;
		int3_emulate_jmp(regs, target);
		break;
	case KP_EMU_CALL_REG:
	case KP_EMU_JMP_REG:
		/* Read the target before the push: it may be %rsp-based. */
		target = gpr[p->ainsn.arg];
		if (p->ainsn.kind == KP_EMU_CALL_REG)
			int3_emulate_push(regs, next);
		int3_emulate_jmp(regs, target);
		break;
	case KP_EMU_CLI:
		regs->flags &= ~X86_EFLAGS_IF;
		int3_emulate_jmp(regs, next);
		break;
	case KP_EMU_STI:
		regs->flags |= X86_EFLAGS_IF;
		int3_emulate_jmp(regs, next);
		break;
	case KP_EMU_PUSHF:
		/* The image pushf stores has RF and VM clear. */
		int3_emulate_push(regs, regs->flags &
				  ~(X86_EFLAGS_RF | X86_EFLAGS_VM));
		int3_emulate_jmp(regs, next);
		break;
	case KP_EMU_POPF:
		target = int3_emulate_pop(regs);
		regs->flags = (regs->flags & ~KP_POPF_MASK) |
			      (target & KP_POPF_MASK);
		int3_emulate_jmp(regs, next);
		break;
	}
}

/* The copy is over (done or faulted): give back IF and resume at @ip. */
static nokprobe_inline void kp_end_step(struct pt_regs *regs,
					struct kprobe_ctlblk *kcb,
					unsigned long ip)
{
	regs->flags |= READ_ONCE(kcb->saved_flags);
	regs->ip = ip;
}

/*
 * The instruction of @p has been executed (or emulated) and @regs point
 * after it: run the post_handler, unless we are inside another probe,
 * and leave the probe.
 */
static nokprobe_inline void kp_finish(struct kprobe *p, struct pt_regs *regs,
				      struct kprobe_ctlblk *kcb)
{
	if (kprobe_status_get(kcb) != KPROBE_REENTER)
		kprobe_run_post_handler(p, regs, kcb);
	kprobe_leave(kcb);
}

/*
 * May the copy of @p run from its boost slot, which jumps back to the
 * text by itself?  Whenever it has one: the slot is reused only after a
 * retiring pass (kernel/kprobes/insn_slots.c), which waits for RCU and
 * for RCU Tasks, so also a task preempted in the slot (a preemptible
 * kernel, interrupts on) is out of it by then.
 */
static nokprobe_inline bool kp_may_boost(struct kprobe *p)
{
	return p->ainsn.boost;
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

	/* An optimized probe hit through its int3 takes the detour. */
	if (setup_detour_execution(p, regs, reenter)) {
		/* It has left the probe unless reentering. */
		if (reenter)
			kprobe_pop_outer(kcb);
		return;
	}

	if (p->ainsn.kind >= KP_FIRST_EMU) {
		kp_emulate(p, regs);
		kp_finish(p, regs, kcb);
		return;
	}

	/* Nothing to do after the instruction: jump back from the slot. */
	if (kp_may_boost(p) && (reenter || !p->post_handler)) {
		regs->ip = (unsigned long)p->ainsn.boost;
		kprobe_leave(kcb);
		return;
	}

	/*
	 * Run the copy with interrupts off: this CPU must come back to the
	 * int3 after it with current_kprobe still ours.
	 */
	if (!reenter)
		kprobe_status_set(kcb, KPROBE_HIT_SS);
	WRITE_ONCE(kcb->saved_flags, regs->flags & X86_EFLAGS_IF);
	regs->flags &= ~X86_EFLAGS_IF;
	regs->ip = (unsigned long)p->ainsn.insn;
}

/*
 * Complete the instruction of @p without making @p the current probe:
 * emulate it on @regs, or resume at its boost slot or at the detour of
 * its optimized form, both of which jump back to the text by
 * themselves.  Returns false when the instruction can only be stepped
 * (no boost slot: an exception table entry, too long for the jump back,
 * or an instruction that must trap back).
 */
static nokprobe_inline bool kp_run_detached(struct kprobe *p,
					    struct pt_regs *regs)
{
	if (setup_detour_execution(p, regs, true))
		return true;
	if (p->ainsn.kind >= KP_FIRST_EMU) {
		kp_emulate(p, regs);
		return true;
	}
	if (kp_may_boost(p)) {
		regs->ip = (unsigned long)p->ainsn.boost;
		return true;
	}
	return false;
}

/*
 * A probe hit while another one runs on this CPU: in its handlers, or
 * while a copy runs in a stepping slot (interrupts are off there, so the
 * hit comes from an NMI, a debug trap or a machine check).  Count a miss
 * and run the instruction without handlers, as a level pushed on
 * kcb->outer[]: boosted, emulated or through its detour, the level is
 * left at once; stepped, its own step trap leaves it, which gives the
 * interrupted probe back its status and saved flags, ready for its own
 * step trap.
 *
 * KPROBE_OUTER_DEPTH levels are kept: a hit in a handler, then one for
 * each of NMI, #DB and #MC arriving while a reentered copy runs.  None of
 * them nests in itself (a second NMI waits for the first one's iret, the
 * #DB handler clears DR7, a #MC inside a #MC shuts the CPU down), so a
 * hit past the deepest level needs a kernel debugger stepping with TF or
 * a broken kprobe state.  Should one come, an instruction that completes
 * without coming back to the int3 handler (kp_run_detached()) still runs
 * and the levels below are left as they are: nothing needs saving for
 * it.  One that must be stepped would trap back to an int3 that no saved
 * level describes: the handler could not tell where to resume nor which
 * interrupt flag to give back.  The only ways on would be to skip the
 * instruction, silently losing what it does, or to return to the int3
 * and take it again forever with interrupts off; stopping here, with
 * both probes named, is the least harmful.
 */
static nokprobe_inline void kp_reenter(struct kprobe *p, struct pt_regs *regs,
				       struct kprobe_ctlblk *kcb)
{
	kprobes_inc_nmissed_count(p);
	if (likely(kprobe_push_outer(kcb, p))) {
		kp_execute(p, regs, kcb);
		return;
	}

	if (kp_run_detached(p, regs))
		return;

	pr_err("kprobe at %pS hit %u levels deep in %pS, and it cannot run detached\n",
	       p->addr, kcb->nr_outer + 1, kprobe_running()->addr);
	dump_kprobe(p);
	BUG();
}

/* Is @addr the int3 that ends the stepping slot of the running probe? */
static nokprobe_inline bool kp_is_step_trap(struct kprobe *cur,
					    struct kprobe_ctlblk *kcb,
					    kprobe_opcode_t *addr)
{
	return kprobe_stepping(kcb) && cur->ainsn.insn &&
	       addr == cur->ainsn.insn + cur->ainsn.size;
}

/**
 * kprobe_int3_handler - handle an int3 that may belong to kprobes
 * @regs: the trapped context; @regs->ip points after the int3
 *
 * Called from the int3 exception (IRQs off, preemption off, possibly on
 * top of an NMI).
 * Return: 1 if the trap was a kprobe's and @regs now say where to
 * resume, 0 to let the other int3 users look at it.
 */
int kprobe_int3_handler(struct pt_regs *regs)
{
	kprobe_opcode_t *addr;
	struct kprobe_ctlblk *kcb;
	struct kprobe *p, *cur;

	if (user_mode(regs))
		return 0;

	addr = (kprobe_opcode_t *)(regs->ip - INT3_INSN_SIZE);
	kcb = get_kprobe_ctlblk();
	cur = kprobe_running();

	/* Back from the copy in the stepping slot. */
	if (cur && kp_is_step_trap(cur, kcb, addr)) {
		kp_end_step(regs, kcb, (unsigned long)cur->addr + cur->ainsn.size);
		kp_finish(cur, regs, kcb);
		return 1;
	}

	p = get_kprobe(addr);
	if (!p) {
		/*
		 * The probe went away after this CPU trapped on its int3
		 * (the byte is back): run the original instruction.
		 */
		if (*addr != INT3_INSN_OPCODE) {
			regs->ip = (unsigned long)addr;
			return 1;
		}
		return 0;
	}

	/*
	 * A probe on an ftrace site is armed through ftrace and has no
	 * slot: an int3 here is ftrace's own patching (or already gone).
	 */
	if (unlikely(kprobe_ftrace(p))) {
		if (*addr != INT3_INSN_OPCODE) {
			regs->ip = (unsigned long)addr;
			return 1;
		}
		return 0;
	}

	if (cur) {
		kp_reenter(p, regs, kcb);
		return 1;
	}

	__this_cpu_write(current_kprobe, p);
	kprobe_status_set(kcb, KPROBE_HIT_ACTIVE);

	/* A pre_handler that returns non-zero has set regs->ip itself. */
	if (kprobe_run_pre_handlers(p, regs)) {
		reset_current_kprobe();
		return 1;
	}

	kp_execute(p, regs, kcb);
	return 1;
}
NOKPROBE_SYMBOL(kprobe_int3_handler);

/**
 * kprobe_fault_handler - a fault was taken while a kprobe runs here
 * @regs: the faulting context
 * @trapnr: the trap number
 *
 * Called from the fault handlers with preemption disabled.  A fault in
 * the copy of an instruction is made to look like a fault at the
 * original address, so that the exception table finds its fixup (or the
 * oops names the right place).  A page fault comes here before its
 * fixup is looked for; a general protection fault (a nofault load from
 * a non-canonical address, rdmsr_safe() of a missing MSR) only after
 * the lookup failed at the copy's address, so its fixup is looked up
 * here again.  Faults in handlers are left to the usual fixups.
 * Return: 1 if the fault was fixed up here, else 0.
 */
int kprobe_fault_handler(struct pt_regs *regs, int trapnr)
{
	struct kprobe_ctlblk *kcb = get_kprobe_ctlblk();
	struct kprobe *cur = kprobe_running();
	unsigned long copy;

	if (!kprobe_stepping(kcb))
		return 0;

	/* Only the copy runs in these states, but an NMI may fault too. */
	copy = (unsigned long)cur->ainsn.insn;
	if (!copy || regs->ip - copy >= cur->ainsn.size)
		return 0;
	kp_end_step(regs, kcb, (unsigned long)cur->addr);
	kprobe_leave(kcb);
	if (trapnr == X86_TRAP_PF)
		return 0;
	return fixup_exception(regs, trapnr, current->thread.error_code, 0);
}
NOKPROBE_SYMBOL(kprobe_fault_handler);
