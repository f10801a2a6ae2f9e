/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fprobe: callbacks at the entry and the exit of many kernel functions at
 * once, built on an ftrace_ops (entries) and a rethook (exits).
 *
 * See Documentation/trace/fprobe.rst for the user's view.
 */
#ifndef _LINUX_FPROBE_H
#define _LINUX_FPROBE_H

#include <linux/compiler.h>
#include <linux/ftrace.h>
#include <linux/rethook.h>

struct fprobe;

/* Soft-disabled: registered, but no handler runs. */
#define FPROBE_FL_DISABLED	1

/*
 * The handlers share code with kprobe handlers, so they must not run
 * while a kprobe handler runs on this CPU, and mark the CPU busy for
 * kprobes while they run.  Set before registering.
 */
#define FPROBE_FL_KPROBE_SHARED	2

/**
 * typedef fprobe_entry_cb - handler run at the entry of a probed function
 * @fp: the fprobe
 * @entry_ip: the ftrace site of the function (may be after an ENDBR)
 * @ret_ip: where the function will return to
 * @regs: registers at the entry
 * @entry_data: @fp's per-call storage of fprobe::entry_data_size bytes,
 *	or NULL when it has none
 *
 * Runs with preemption disabled.  Return: 0, or non-zero to skip the
 * exit handler of this call.
 */
typedef int (*fprobe_entry_cb)(struct fprobe *fp, unsigned long entry_ip,
			       unsigned long ret_ip, struct pt_regs *regs,
			       void *entry_data);

/**
 * typedef fprobe_exit_cb - handler run when a probed function returns
 * @fp: the fprobe
 * @entry_ip: the ftrace site of the function, as given at its entry
 * @ret_ip: the address the function returns to
 * @regs: registers at the return (ip is @ret_ip, the return value is in
 *	the usual register)
 * @entry_data: the storage the entry handler of the same call saw
 *
 * Runs with preemption disabled.
 */
typedef void (*fprobe_exit_cb)(struct fprobe *fp, unsigned long entry_ip,
			       unsigned long ret_ip, struct pt_regs *regs,
			       void *entry_data);

/**
 * struct fprobe - probe on the entries and exits of a set of functions
 * @ops: the ftrace_ops that brings us to the entries (internal; its
 *	@private member says the fprobe is registered).
 * @nmissed: calls whose handlers were skipped: the ftrace (or, with
 *	%FPROBE_FL_KPROBE_SHARED, kprobe) recursion guard was taken at the
 *	entry or at the exit, or the exit could not be hooked.
 * @nmissed_entry: the part of @nmissed that a recursion guard stopped at
 *	the entry (neither handler ran).  Calls whose exit could not be
 *	hooked are counted by @rethook, by reason (rethook_nmissed()), and
 *	ran neither handler.  The rest of @nmissed are exit handlers skipped
 *	by a recursion guard.
 * @flags: %FPROBE_FL_* bits.
 * @rethook: the exit hook, when @exit_handler is set (internal).
 * @entry_data_size: bytes of per-call storage handed to both handlers.
 * @nr_maxactive: how many calls of this fprobe may wait for their exit
 *	in one task at a time (nesting depth); 0 picks a default.
 * @entry_handler: called at each entry, may be NULL.
 * @exit_handler: called at each exit, may be NULL.
 *
 * Fill in the handlers, @entry_data_size, @nr_maxactive and @flags, then
 * call one of the register_fprobe*() functions.  Everything else is set by
 * fprobe and must be left zero before the first registration.
 */
struct fprobe {
#ifdef CONFIG_FUNCTION_TRACER
	/*
	 * Kept out without the function tracer (there is no fprobe then),
	 * so that users may still embed a struct fprobe.
	 */
	struct ftrace_ops	ops;
#endif
	unsigned long		nmissed;
	unsigned long		nmissed_entry;
	unsigned int		flags;
	struct rethook		*rethook;
	size_t			entry_data_size;
	int			nr_maxactive;

	fprobe_entry_cb		entry_handler;
	fprobe_exit_cb		exit_handler;
};

/**
 * fprobe_disabled() - is a fprobe soft-disabled?
 * @fp: the fprobe, may be NULL
 *
 * Context: any.
 * Return: true if @fp is non-NULL and disabled.
 */
static inline bool fprobe_disabled(struct fprobe *fp)
{
	return fp && (READ_ONCE(fp->flags) & FPROBE_FL_DISABLED);
}

/**
 * fprobe_shared_with_kprobes() - does a fprobe follow the kprobe rules?
 * @fp: the fprobe, may be NULL
 *
 * Context: any.
 * Return: true if @fp is non-NULL and has %FPROBE_FL_KPROBE_SHARED.
 */
static inline bool fprobe_shared_with_kprobes(struct fprobe *fp)
{
	return fp && (READ_ONCE(fp->flags) & FPROBE_FL_KPROBE_SHARED);
}

#ifdef CONFIG_FPROBE
int register_fprobe(struct fprobe *fp, const char *filter, const char *notfilter);
int register_fprobe_ips(struct fprobe *fp, unsigned long *addrs, int num);
int register_fprobe_syms(struct fprobe *fp, const char **syms, int num);
int unregister_fprobe(struct fprobe *fp);
bool fprobe_is_registered(struct fprobe *fp);
#else
static inline int register_fprobe(struct fprobe *fp, const char *filter,
				  const char *notfilter)
{
	return -EOPNOTSUPP;
}

static inline int register_fprobe_ips(struct fprobe *fp, unsigned long *addrs,
				      int num)
{
	return -EOPNOTSUPP;
}

static inline int register_fprobe_syms(struct fprobe *fp, const char **syms,
				       int num)
{
	return -EOPNOTSUPP;
}

static inline int unregister_fprobe(struct fprobe *fp)
{
	return -EOPNOTSUPP;
}

static inline bool fprobe_is_registered(struct fprobe *fp)
{
	return false;
}
#endif

/**
 * disable_fprobe() - stop running a fprobe's handlers
 * @fp: the fprobe, may be NULL
 *
 * The functions stay hooked; entries and exits seen from now on run no
 * handler until enable_fprobe().  A handler already running finishes.
 *
 * Context: any.
 */
static inline void disable_fprobe(struct fprobe *fp)
{
	if (fp)
		WRITE_ONCE(fp->flags, READ_ONCE(fp->flags) | FPROBE_FL_DISABLED);
}

/**
 * enable_fprobe() - run a disabled fprobe's handlers again
 * @fp: the fprobe, may be NULL
 *
 * Context: any.
 */
static inline void enable_fprobe(struct fprobe *fp)
{
	if (fp)
		WRITE_ONCE(fp->flags, READ_ONCE(fp->flags) & ~FPROBE_FL_DISABLED);
}

#endif /* _LINUX_FPROBE_H */
