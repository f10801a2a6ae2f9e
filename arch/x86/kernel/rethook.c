// SPDX-License-Identifier: GPL-2.0-only
/*
 * x86 side of rethook: hook a return address at a function entry, and the
 * trampoline the hooked function returns into.
 *
 * At the entry (int3 kprobe or ftrace callback) regs->sp points at the
 * return address.  arch_rethook_prepare() saves it and puts the
 * trampoline's address there.  When the function returns, the trampoline
 * runs with the stack pointer just above that slot.  It pushes a word
 * (landing exactly on the old slot, where the real return address will
 * be written), then a struct pt_regs, and calls the generic handler.  The
 * ORC unwinder sees the pt_regs (ip = trampoline, sp = slot + 8) and asks
 * rethook_find_ret_addr() for the real return address of the slot.
 *
 * The 32-bit trampoline has no ORC to describe it.  It makes a frame of
 * its own instead: the pushed word is its return address slot and %ebp
 * links to the hooked function's caller, so the frame-pointer unwinder
 * (and the guess unwinder, which scans the stack) find the real return
 * address there once the handler has written it.
 */
#include <linux/kprobes.h>
#include <linux/linkage.h>
#include <linux/objtool.h>
#include <linux/rethook.h>
#include <linux/stddef.h>
#include <asm/asm.h>
#include <asm/orc_types.h>
#include <asm/ptrace.h>
#include <asm/segment.h>
#include <asm/unwind_hints.h>

#define RH_S(x)		__stringify(x)

#define RH_TRAMPOLINE_BEGIN						\
	".pushsection .text, \"ax\"\n"					\
	".globl arch_rethook_trampoline\n"				\
	".type arch_rethook_trampoline, @function\n"			\
	"arch_rethook_trampoline:\n"

#define RH_TRAMPOLINE_END						\
	ASM_RET								\
	".size arch_rethook_trampoline, .-arch_rethook_trampoline\n"	\
	".popsection\n"

#ifdef CONFIG_X86_64

/* struct pt_regs offsets for the trampoline, checked below. */
#define RH_R15		0
#define RH_R14		8
#define RH_R13		16
#define RH_R12		24
#define RH_BP		32
#define RH_BX		40
#define RH_R11		48
#define RH_R10		56
#define RH_R9		64
#define RH_R8		72
#define RH_AX		80
#define RH_CX		88
#define RH_DX		96
#define RH_SI		104
#define RH_DI		112
#define RH_ORIG_AX	120
#define RH_IP		128
#define RH_CS		136
#define RH_FLAGS	144
#define RH_SP		152
#define RH_SS		160
#define RH_SIZE		168

/*
 * Reached by the hooked function's RET, never called: no ENDBR needed.
 * The interrupted-at-entry case is handled by the ORC unwinder itself
 * (it recovers the trampoline address from the slot below the stack
 * pointer).
 */
asm(
	RH_TRAMPOLINE_BEGIN
	UNWIND_HINT_UNDEFINED
	ANNOTATE_NOENDBR
	/* The slot the real return address goes to; a call frame from here. */
	"	pushq $arch_rethook_trampoline\n"
	UNWIND_HINT_FUNC
	"	subq $" RH_S(RH_SIZE) ", %rsp\n"
	"	movq %rdi, " RH_S(RH_DI) "(%rsp)\n"
	"	movq %rsi, " RH_S(RH_SI) "(%rsp)\n"
	"	movq %rdx, " RH_S(RH_DX) "(%rsp)\n"
	"	movq %rcx, " RH_S(RH_CX) "(%rsp)\n"
	"	movq %rax, " RH_S(RH_AX) "(%rsp)\n"
	"	movq %r8, " RH_S(RH_R8) "(%rsp)\n"
	"	movq %r9, " RH_S(RH_R9) "(%rsp)\n"
	"	movq %r10, " RH_S(RH_R10) "(%rsp)\n"
	"	movq %r11, " RH_S(RH_R11) "(%rsp)\n"
	"	movq %rbx, " RH_S(RH_BX) "(%rsp)\n"
	"	movq %rbp, " RH_S(RH_BP) "(%rsp)\n"
	"	movq %r12, " RH_S(RH_R12) "(%rsp)\n"
	"	movq %r13, " RH_S(RH_R13) "(%rsp)\n"
	"	movq %r14, " RH_S(RH_R14) "(%rsp)\n"
	"	movq %r15, " RH_S(RH_R15) "(%rsp)\n"
	"	pushfq\n"
	"	popq " RH_S(RH_FLAGS) "(%rsp)\n"
	"	movq $-1, " RH_S(RH_ORIG_AX) "(%rsp)\n"
	"	movq $arch_rethook_trampoline, " RH_S(RH_IP) "(%rsp)\n"
	"	movq $" RH_S(__KERNEL_CS) ", " RH_S(RH_CS) "(%rsp)\n"
	"	movq $" RH_S(__KERNEL_DS) ", " RH_S(RH_SS) "(%rsp)\n"
	/* The stack pointer the hooked function returned with. */
	"	leaq " RH_S(RH_SIZE + 8) "(%rsp), %rax\n"
	"	movq %rax, " RH_S(RH_SP) "(%rsp)\n"
	UNWIND_HINT(UNWIND_HINT_TYPE_REGS, ORC_REG_SP, 0, 0)
	"	movq %rsp, %rdi\n"
	"	leaq " RH_S(RH_SIZE) "(%rsp), %rsi\n"
	"	call rethook_trampoline_handler\n"
	/*
	 * Handlers may have changed the registers the caller sees changed
	 * by a call: the return value, and the scratch registers of
	 * functions with a narrower clobber list.  The callee-saved ones
	 * are as the hooked function left them (the C code kept them).
	 */
	"	movq " RH_S(RH_R11) "(%rsp), %r11\n"
	"	movq " RH_S(RH_R10) "(%rsp), %r10\n"
	"	movq " RH_S(RH_R9) "(%rsp), %r9\n"
	"	movq " RH_S(RH_R8) "(%rsp), %r8\n"
	"	movq " RH_S(RH_AX) "(%rsp), %rax\n"
	"	movq " RH_S(RH_CX) "(%rsp), %rcx\n"
	"	movq " RH_S(RH_DX) "(%rsp), %rdx\n"
	"	movq " RH_S(RH_SI) "(%rsp), %rsi\n"
	"	movq " RH_S(RH_DI) "(%rsp), %rdi\n"
	"	addq $" RH_S(RH_SIZE) ", %rsp\n"
	UNWIND_HINT_FUNC
	RH_TRAMPOLINE_END
);

static_assert(offsetof(struct pt_regs, r15) == RH_R15);
static_assert(offsetof(struct pt_regs, r14) == RH_R14);
static_assert(offsetof(struct pt_regs, r13) == RH_R13);
static_assert(offsetof(struct pt_regs, r12) == RH_R12);
static_assert(offsetof(struct pt_regs, r11) == RH_R11);
static_assert(offsetof(struct pt_regs, r10) == RH_R10);
static_assert(offsetof(struct pt_regs, r9) == RH_R9);
static_assert(offsetof(struct pt_regs, r8) == RH_R8);

#else /* !CONFIG_X86_64 */

/* struct pt_regs offsets for the trampoline, checked below. */
#define RH_BX		0
#define RH_CX		4
#define RH_DX		8
#define RH_SI		12
#define RH_DI		16
#define RH_BP		20
#define RH_AX		24
#define RH_DS		28
#define RH_ES		32
#define RH_FS		36
#define RH_GS		40
#define RH_ORIG_AX	44
#define RH_IP		48
#define RH_CS		52
#define RH_FLAGS	56
#define RH_SP		60
#define RH_SS		64
#define RH_SIZE		68

/*
 * Stack while the handler runs, from the top down: the slot the real
 * return address goes to (at the hooked function's return address slot),
 * the caller's %ebp (%ebp points here), struct pt_regs (%esp points
 * here).  rethook_trampoline_handler() takes @regs in %eax and the slot
 * in %edx (regparm).
 */
asm(
	RH_TRAMPOLINE_BEGIN
	"	pushl $arch_rethook_trampoline\n"
	"	pushl %ebp\n"
	"	movl %esp, %ebp\n"
	"	subl $" RH_S(RH_SIZE) ", %esp\n"
	"	movl %eax, " RH_S(RH_AX) "(%esp)\n"
	"	movl %ebx, " RH_S(RH_BX) "(%esp)\n"
	"	movl %ecx, " RH_S(RH_CX) "(%esp)\n"
	"	movl %edx, " RH_S(RH_DX) "(%esp)\n"
	"	movl %esi, " RH_S(RH_SI) "(%esp)\n"
	"	movl %edi, " RH_S(RH_DI) "(%esp)\n"
	"	movl (%ebp), %eax\n"
	"	movl %eax, " RH_S(RH_BP) "(%esp)\n"
	"	movw %ds, " RH_S(RH_DS) "(%esp)\n"
	"	movw %es, " RH_S(RH_ES) "(%esp)\n"
	"	movw %fs, " RH_S(RH_FS) "(%esp)\n"
	"	movw %gs, " RH_S(RH_GS) "(%esp)\n"
	"	pushfl\n"
	"	popl " RH_S(RH_FLAGS) "(%esp)\n"
	"	movl $-1, " RH_S(RH_ORIG_AX) "(%esp)\n"
	"	movl $arch_rethook_trampoline, " RH_S(RH_IP) "(%esp)\n"
	"	movl $" RH_S(__KERNEL_CS) ", " RH_S(RH_CS) "(%esp)\n"
	"	movl $" RH_S(__KERNEL_DS) ", " RH_S(RH_SS) "(%esp)\n"
	/* The stack pointer the hooked function returned with. */
	"	leal 8(%ebp), %eax\n"
	"	movl %eax, " RH_S(RH_SP) "(%esp)\n"
	"	movl %esp, %eax\n"
	"	leal 4(%ebp), %edx\n"
	"	call rethook_trampoline_handler\n"
	/* As above: the callee-saved registers are the function's. */
	"	movl " RH_S(RH_CX) "(%esp), %ecx\n"
	"	movl " RH_S(RH_DX) "(%esp), %edx\n"
	"	movl " RH_S(RH_AX) "(%esp), %eax\n"
	"	leave\n"
	RH_TRAMPOLINE_END
);

static_assert(offsetof(struct pt_regs, ds) == RH_DS);
static_assert(offsetof(struct pt_regs, es) == RH_ES);
static_assert(offsetof(struct pt_regs, fs) == RH_FS);
static_assert(offsetof(struct pt_regs, gs) == RH_GS);

#endif /* CONFIG_X86_64 */

NOKPROBE_SYMBOL(arch_rethook_trampoline);

static_assert(offsetof(struct pt_regs, bx) == RH_BX);
static_assert(offsetof(struct pt_regs, cx) == RH_CX);
static_assert(offsetof(struct pt_regs, dx) == RH_DX);
static_assert(offsetof(struct pt_regs, si) == RH_SI);
static_assert(offsetof(struct pt_regs, di) == RH_DI);
static_assert(offsetof(struct pt_regs, bp) == RH_BP);
static_assert(offsetof(struct pt_regs, ax) == RH_AX);
static_assert(offsetof(struct pt_regs, orig_ax) == RH_ORIG_AX);
static_assert(offsetof(struct pt_regs, ip) == RH_IP);
static_assert(offsetof(struct pt_regs, cs) == RH_CS);
static_assert(offsetof(struct pt_regs, flags) == RH_FLAGS);
static_assert(offsetof(struct pt_regs, sp) == RH_SP);
static_assert(offsetof(struct pt_regs, ss) == RH_SS);
static_assert(sizeof(struct pt_regs) == RH_SIZE);

/*
 * Put the real return address in the slot the trampoline returns through,
 * just below the stack pointer the hooked function returned with, and in
 * regs->ip: handlers see the registers as at the real return, and a stack
 * trace from them (or from @regs) starts at the real caller.
 * Context: rethook_trampoline_handler(), from the trampoline.
 */
void arch_rethook_fixup_return(struct pt_regs *regs,
			       unsigned long correct_ret_addr)
{
	unsigned long *slot = (unsigned long *)regs->sp - 1;

	*slot = correct_ret_addr;
	regs->ip = correct_ret_addr;
}
NOKPROBE_SYMBOL(arch_rethook_fixup_return);

/*
 * Hook the return of the function whose entry @regs describe: at an int3
 * on the first instruction and in an ftrace callback alike, regs->sp
 * points at the return address (@mcount makes no difference on x86).
 * Context: any, at the hooked function's entry.
 */
void arch_rethook_prepare(struct rethook_node *node, struct pt_regs *regs,
			  bool mcount)
{
	unsigned long *slot = (unsigned long *)regs->sp;

	node->ret_addr = *slot;
	node->frame = (unsigned long)slot;
	*slot = (unsigned long)arch_rethook_trampoline;
}
NOKPROBE_SYMBOL(arch_rethook_prepare);
