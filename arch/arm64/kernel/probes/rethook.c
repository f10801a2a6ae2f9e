// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * arm64 side of rethook: hook a return at a function entry, and the C
 * half of the trampoline the hooked function returns into
 * (rethook_trampoline.S).
 *
 * At a function entry (a BRK kprobe on its first instruction, or an
 * ftrace callback before its prologue) the return address is still in
 * the link register and x29 is the caller's frame pointer.  Both are what
 * they were again when the function returns, and x29 is what the
 * unwinder holds when it meets the trampoline's address in a frame
 * record: so the caller's x29 identifies a hooked call ("frame").
 */
#include <linux/kprobes.h>
#include <linux/ptrace.h>
#include <linux/rethook.h>

void arch_rethook_trampoline_callback(struct pt_regs *regs);

/*
 * Called by arch_rethook_trampoline() only, with the registers of the
 * return; the context is the one the hooked function returned in.
 */
__visible void arch_rethook_trampoline_callback(struct pt_regs *regs)
{
	rethook_trampoline_handler(regs, regs->regs[29]);
}
NOKPROBE_SYMBOL(arch_rethook_trampoline_callback);

/**
 * arch_rethook_fixup_return() - where the trampoline goes back to
 * @regs: the registers built by the trampoline
 * @correct_ret_addr: the real return address of the hooked call
 *
 * Handlers see the registers as at the real return (pc and lr the return
 * address), a stack trace from @regs starts at the real caller, and the
 * trampoline returns to regs->pc.
 * Context: arch_rethook_trampoline_callback().
 */
void arch_rethook_fixup_return(struct pt_regs *regs,
			       unsigned long correct_ret_addr)
{
	regs->pc = correct_ret_addr;
	regs->regs[30] = correct_ret_addr;
}
NOKPROBE_SYMBOL(arch_rethook_fixup_return);

/**
 * arch_rethook_prepare() - hook the return of the function entered
 * @node: the node of this call
 * @regs: the registers at the function's entry
 * @mcount: @regs come from an ftrace callback (no difference on arm64:
 *	the callback's regs hold the function's own link register too)
 *
 * Context: any, at the hooked function's entry.
 */
void arch_rethook_prepare(struct rethook_node *node, struct pt_regs *regs,
			  bool mcount)
{
	node->ret_addr = regs->regs[30];
	node->frame = regs->regs[29];
	regs->regs[30] = (unsigned long)arch_rethook_trampoline;
}
NOKPROBE_SYMBOL(arch_rethook_prepare);
