// SPDX-License-Identifier: GPL-2.0
/*
 * fprobe: entry and exit callbacks on many kernel functions at once.
 *
 * Entries.  A fprobe owns an ftrace_ops (saving registers) whose
 * filter is the set of probed functions.  Its callback takes the ftrace
 * recursion guard (and, for %FPROBE_FL_KPROBE_SHARED, the kprobe one),
 * hooks the return if there is an exit handler, and calls the entry
 * handler.  Nothing on that path allocates or takes a lock.
 *
 * Exits.  A fprobe with an exit handler owns a rethook.  Each hooked call
 * gets a node (struct fprobe_call) that holds the entry address and the
 * entry_data shared by the two handlers.  Nodes come from the per-task
 * return areas of the rethook, so concurrent calls (sleeping ones
 * included) do not run out of them; fprobe::nr_maxactive bounds the calls
 * of one fprobe pending in one task (recursion depth) instead.  When no
 * node can be had, the call counts as missed and runs neither handler: an
 * entry handler that ran is always followed by its exit handler (unless it
 * asked to skip it), which BPF's kprobe sessions rely on.  An exit handler
 * runs under the ftrace recursion bit its entry held (see
 * fprobe_exit_trylock()).
 *
 * Registers.  With DYNAMIC_FTRACE_WITH_REGS the handlers get the pt_regs
 * that ftrace saved.  On arm64, which only has DYNAMIC_FTRACE_WITH_ARGS,
 * ftrace saves the argument registers, fp, lr, sp and pc: the handlers
 * get a pt_regs filled from them (ftrace_partial_regs()) on the entry
 * callback's stack, and the link register and pc they (or the return
 * hook) leave there go back into the ftrace_regs that ftrace_caller
 * returns with.
 *
 * Registration.  The set of functions is computed first and handed to
 * ftrace in one ftrace_set_filter_ips() call, then the ops is registered
 * once: ftrace updates its call sites in one pass whatever the number of
 * functions.  A glob is matched while walking the symbol table once
 * (instead of asking kallsyms for the name of every ftrace site), and a
 * list of names is resolved by a binary search each when it is short and
 * by one walk of the symbol table against the sorted list when it is long.
 *
 * Lifetime of the handlers.  Everything a callback uses is set up before
 * register_ftrace_function(), so the first hit, which may come before
 * register_fprobe*() returns (as with ftrace), finds a complete fprobe.
 * unregister_fprobe() first stops the rethook (exits that come later
 * return to their callers without a handler, and later entries of a
 * fprobe with an exit handler run no handler), then unregisters the
 * ftrace_ops.  For a dynamic ops
 * (any fprobe not in core kernel data) ftrace then waits for an RCU-tasks
 * and an RCU-tasks-rude grace period; otherwise we wait for the same two
 * ourselves.  Handlers run with preemption disabled, so after that wait
 * no entry or exit handler of the fprobe is running or will run.
 */
#define pr_fmt(fmt) "fprobe: " fmt

#include <linux/err.h>
#include <linux/fprobe.h>
#include <linux/ftrace.h>
#include <linux/glob.h>
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/rethook.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>
#include <linux/trace_recursion.h>

/* Calls of one fprobe that may wait for their exit in a task, by default. */
#define FPROBE_DEFAULT_DEPTH	32


/**
 * struct fprobe_call - one call waiting for its exit
 * @node: the rethook's part, first.
 * @entry_ip: the ftrace site the call came through.
 * @bit: the ftrace recursion bit the entry callback held, which the exit
 *	takes again (see fprobe_exit_trylock()).
 * @data: fprobe::entry_data_size bytes for the handlers.
 */
struct fprobe_call {
	struct rethook_node	node;
	unsigned long		entry_ip;
	int			bit;
	u64			data[];
};

/* A miss: count it.  Any context, so no plain increment. */
static void fprobe_count_miss(struct fprobe *fp)
{
	kprobe_count_miss(&fp->nmissed);
}
NOKPROBE_SYMBOL(fprobe_count_miss);

/* A miss of the entry handler itself (the recursion guards). */
static void fprobe_count_entry_miss(struct fprobe *fp)
{
	kprobe_count_miss(&fp->nmissed_entry);
	kprobe_count_miss(&fp->nmissed);
}
NOKPROBE_SYMBOL(fprobe_count_entry_miss);

static size_t fprobe_data_size(struct fprobe *fp)
{
	return ALIGN(fp->entry_data_size, sizeof(u64));
}

/*
 * struct fprobe_regs_buf: room on the entry callback's stack for the
 * registers, where ftrace does not save a pt_regs itself.  Empty with
 * WITH_REGS, so that the hit path there does not even clear it (the
 * kernel may zero every local: INIT_STACK_ALL_ZERO).
 */
#ifdef CONFIG_DYNAMIC_FTRACE_WITH_REGS
#define FPROBE_OPS_FL_REGS	FTRACE_OPS_FL_SAVE_REGS

struct fprobe_regs_buf { };

/* The registers ftrace saved (NULL if it could not). */
static __always_inline struct pt_regs *fprobe_regs(struct ftrace_regs *fregs,
						   struct fprobe_regs_buf *buf)
{
	return ftrace_get_regs(fregs);
}

static __always_inline void fprobe_regs_done(struct ftrace_regs *fregs,
					     struct pt_regs *regs)
{
}
#else /* arm64: DYNAMIC_FTRACE_WITH_ARGS (see Kconfig.probes) */
#define FPROBE_OPS_FL_REGS	0

struct fprobe_regs_buf {
	struct pt_regs regs;
};

/* What ftrace did not save reads as zero, not as stale stack. */
static __always_inline struct pt_regs *fprobe_regs(struct ftrace_regs *fregs,
						   struct fprobe_regs_buf *buf)
{
	memset(&buf->regs, 0, sizeof(buf->regs));
	return ftrace_partial_regs(fregs, &buf->regs);
}

/*
 * ftrace_caller returns with the argument registers, lr and pc of the
 * ftrace_regs: what the handler wrote to them takes effect (a BPF
 * program's bpf_override_return() writes x0 and pc).
 */
static __always_inline void fprobe_regs_done(struct ftrace_regs *fregs,
					     struct pt_regs *regs)
{
	struct __arch_ftrace_regs *f = arch_ftrace_regs(fregs);

	memcpy(f->regs, regs->regs, sizeof(f->regs));
	f->lr = procedure_link_pointer(regs);
	ftrace_regs_set_instruction_pointer(fregs, instruction_pointer(regs));
}
#endif

/* Context: fprobe entry callback, recursion guard @bit held. */
static __always_inline void fprobe_entry(struct fprobe *fp, unsigned long ip,
					 unsigned long parent_ip,
					 struct ftrace_regs *fregs, int bit)
{
	struct fprobe_regs_buf regs_buf __maybe_unused;
	struct pt_regs *regs = fprobe_regs(fregs, &regs_buf);
	struct rethook_node *node;
	struct fprobe_call *call;
	int skip_exit = 0;

	if (!fp->exit_handler) {
		if (fp->entry_handler) {
			fp->entry_handler(fp, ip, parent_ip, regs, NULL);
			fprobe_regs_done(fregs, regs);
		}
		return;
	}

	if (unlikely(!regs)) {
		fprobe_count_entry_miss(fp);
		return;
	}
	/*
	 * No node, or a call whose exit could not be hooked in order: the
	 * rethook counted why (rethook_nmissed()).  The entry handler does
	 * not run either, as its exit could not follow it.
	 */
	node = rethook_try_get(fp->rethook, regs);
	if (unlikely(!node)) {
		fprobe_count_miss(fp);
		return;
	}
	call = container_of(node, struct fprobe_call, node);
	call->entry_ip = ip;
	call->bit = bit;
	if (fp->entry_handler)
		skip_exit = fp->entry_handler(fp, ip, parent_ip, regs,
					      fp->entry_data_size ? call->data : NULL);
	if (skip_exit)
		rethook_recycle(node);
	else if (unlikely(!rethook_hook(node, regs, true)))
		fprobe_count_miss(fp);
	fprobe_regs_done(fregs, regs);
}

/* ftrace_ops::func of a plain fprobe.  Context: any traced context. */
static void fprobe_ftrace_entry(unsigned long ip, unsigned long parent_ip,
				struct ftrace_ops *ops, struct ftrace_regs *fregs)
{
	struct fprobe *fp = container_of(ops, struct fprobe, ops);
	int bit;

	if (unlikely(fprobe_disabled(fp)))
		return;
	bit = ftrace_test_recursion_trylock(ip, parent_ip);
	if (unlikely(bit < 0)) {
		fprobe_count_entry_miss(fp);
		return;
	}
	fprobe_entry(fp, ip, parent_ip, fregs, bit);
	ftrace_test_recursion_unlock(bit);
}
NOKPROBE_SYMBOL(fprobe_ftrace_entry);

/*
 * ftrace_ops::func of a fprobe with %FPROBE_FL_KPROBE_SHARED: also keep
 * out of (and keep kprobes out of) a running kprobe handler.
 */
static void fprobe_ftrace_entry_kshared(unsigned long ip, unsigned long parent_ip,
					struct ftrace_ops *ops,
					struct ftrace_regs *fregs)
{
	struct fprobe *fp = container_of(ops, struct fprobe, ops);
	int bit;

	if (unlikely(fprobe_disabled(fp)))
		return;
	bit = ftrace_test_recursion_trylock(ip, parent_ip);
	if (unlikely(bit < 0)) {
		fprobe_count_entry_miss(fp);
		return;
	}
	if (unlikely(kprobe_running())) {
		fprobe_count_entry_miss(fp);
	} else {
		kprobe_busy_begin();
		fprobe_entry(fp, ip, parent_ip, fregs, bit);
		kprobe_busy_end();
	}
	ftrace_test_recursion_unlock(bit);
}
NOKPROBE_SYMBOL(fprobe_ftrace_entry_kshared);

/*
 * The recursion guard of an exit handler.  A hooked call returns in the
 * context it was made in: calls made in an interrupt (or NMI) return
 * before the code it interrupted goes on.  So the exit takes the ftrace
 * recursion bit its entry held, the one ftrace_test_recursion_trylock()
 * would find again, without working out the context a second time.  If
 * that bit is held, a handler of this context is under way and has led
 * to this return: a recursion, and a miss.  Even where a function
 * changes the context between its entry and its return (irq_enter_rcu()),
 * a bit that is held is left alone, so no other holder loses its guard.
 * (One read of the word, not trace_recursion_test() then _set(): six
 * instructions fewer on every exit.)
 * Context: the exit handler, preemption disabled.
 */
static __always_inline bool fprobe_exit_trylock(int bit)
{
	unsigned int val = READ_ONCE(current->trace_recursion);

	if (unlikely(val & BIT(bit)))
		return false;
	WRITE_ONCE(current->trace_recursion, val | BIT(bit));
	barrier();
	return true;
}

static __always_inline void fprobe_exit_unlock(int bit)
{
	barrier();
	trace_recursion_clear(bit);
}

/* The exit handler under the kprobe rules (%FPROBE_FL_KPROBE_SHARED). */
static noinline void fprobe_exit_kshared(struct fprobe *fp,
					 struct fprobe_call *call,
					 unsigned long ret_ip,
					 struct pt_regs *regs)
{
	if (unlikely(kprobe_running())) {
		fprobe_count_miss(fp);
		return;
	}
	kprobe_busy_begin();
	fp->exit_handler(fp, call->entry_ip, ret_ip, regs,
			 fp->entry_data_size ? call->data : NULL);
	kprobe_busy_end();
}
NOKPROBE_SYMBOL(fprobe_exit_kshared);

/* rethook handler.  Context: the return of a hooked call, preemption off. */
static void fprobe_rethook_exit(struct rethook_node *node, void *data,
				unsigned long ret_ip, struct pt_regs *regs)
{
	struct fprobe_call *call = container_of(node, struct fprobe_call, node);
	struct fprobe *fp = data;

	if (unlikely(fprobe_disabled(fp)))
		return;
	if (unlikely(!fprobe_exit_trylock(call->bit))) {
		fprobe_count_miss(fp);
		return;
	}
	if (unlikely(fprobe_shared_with_kprobes(fp)))
		fprobe_exit_kshared(fp, call, ret_ip, regs);
	else
		fp->exit_handler(fp, call->entry_ip, ret_ip, regs,
				 fp->entry_data_size ? call->data : NULL);
	fprobe_exit_unlock(call->bit);
}
NOKPROBE_SYMBOL(fprobe_rethook_exit);

/**
 * fprobe_is_registered() - is a fprobe registered?
 * @fp: the fprobe, may be NULL
 *
 * Context: any; the answer is only stable under whatever serializes the
 * caller's register and unregister calls.
 * Return: true from a successful register_fprobe*() until
 * unregister_fprobe().
 */
bool fprobe_is_registered(struct fprobe *fp)
{
	return fp && READ_ONCE(fp->ops.private) == fp;
}
EXPORT_SYMBOL_GPL(fprobe_is_registered);

/*
 * Release what fprobe_prepare() set up.  The ops itself stays as ftrace
 * left it: ftrace keeps the trampoline of an ops in core kernel data (not
 * FTRACE_OPS_FL_DYNAMIC) for good, linked through ops.list into its
 * kallsyms list, and reuses it at the next registration; a cleared ops
 * would cut that list.  Only the filter hashes, which ftrace_free_filter()
 * frees without resetting, are set back to what a zeroed ops has.
 * Context: process.
 */
static void fprobe_release(struct fprobe *fp)
{
	ftrace_free_filter(&fp->ops);
	fp->ops.func_hash->filter_hash = NULL;
	fp->ops.func_hash->notrace_hash = NULL;
	if (fp->rethook) {
		rethook_free(fp->rethook);
		fp->rethook = NULL;
	}
}

/*
 * Check @fp and give it what its callbacks need.  On failure nothing is
 * left to release.  Context: process, may sleep.
 */
static int fprobe_prepare(struct fprobe *fp)
{
	int depth;

	if (!fp || (!fp->entry_handler && !fp->exit_handler) ||
	    fp->nr_maxactive < 0 || fp->entry_data_size > PAGE_SIZE)
		return -EINVAL;
	if (fprobe_is_registered(fp))
		return -EBUSY;

	fp->nmissed = 0;
	fp->nmissed_entry = 0;
	fp->rethook = NULL;
	fp->ops.func = fprobe_shared_with_kprobes(fp) ?
		       fprobe_ftrace_entry_kshared : fprobe_ftrace_entry;
	fp->ops.flags |= FPROBE_OPS_FL_REGS;
	fp->ops.private = NULL;

	if (!fp->exit_handler)
		return 0;

	depth = fp->nr_maxactive ?: FPROBE_DEFAULT_DEPTH;
	fp->rethook = rethook_alloc(fp, fprobe_rethook_exit,
				    sizeof(struct fprobe_call) +
				    fprobe_data_size(fp), depth);
	if (IS_ERR(fp->rethook)) {
		int err = PTR_ERR(fp->rethook);

		fp->rethook = NULL;
		return err;
	}
	return 0;
}

/*
 * Hook the @num ftrace sites in @locs (or addresses ftrace_location()
 * maps to them) and go live.  @fp was prepared; it is released on
 * failure.  Context: process, may sleep.
 */
static int fprobe_arm(struct fprobe *fp, unsigned long *locs, unsigned int num)
{
	int ret;

	ret = ftrace_set_filter_ips(&fp->ops, locs, num, 0, 1);
	if (!ret) {
		/* Marks @fp registered before the first hit can look. */
		WRITE_ONCE(fp->ops.private, fp);
		ret = register_ftrace_function(&fp->ops);
	}
	if (ret) {
		WRITE_ONCE(fp->ops.private, NULL);
		fprobe_release(fp);
	}
	return ret;
}

/**
 * register_fprobe_ips() - register a fprobe on functions given by address
 * @fp: the fprobe, with its handlers set
 * @addrs: ftrace sites, or function addresses (sym+0) that have one
 * @num: number of entries in @addrs
 *
 * Handlers may start running before this returns, and run for every hit
 * after it returned.
 *
 * Context: process, may sleep.  Calls for one @fp must not race.
 * Return: 0, -EINVAL for a bad argument or an address that is not a
 * traceable function, -EBUSY if @fp is registered already, -ENOMEM, or
 * another error from ftrace.
 */
int register_fprobe_ips(struct fprobe *fp, unsigned long *addrs, int num)
{
	int ret;

	if (!addrs || num <= 0)
		return -EINVAL;
	ret = fprobe_prepare(fp);
	if (ret)
		return ret;
	return fprobe_arm(fp, addrs, num);
}
EXPORT_SYMBOL_GPL(register_fprobe_ips);

/* Functions found for a glob: ftrace sites, unsorted, maybe repeated. */
struct fprobe_glob_walk {
	const char	*filter;
	const char	*notfilter;
	unsigned long	*locs;
	unsigned int	nr;
	unsigned int	room;
	int		err;
};

/* Add the ftrace site of the function at @addr, if it has one. */
static int fprobe_walk_add(struct fprobe_glob_walk *walk, unsigned long addr)
{
	unsigned long loc = ftrace_location(addr);

	if (!loc)
		return 0;
	if (walk->nr == walk->room) {
		unsigned int room = walk->room ? walk->room * 2 : 64;
		unsigned long *locs;

		locs = kvrealloc(walk->locs, room * sizeof(*locs), GFP_KERNEL);
		if (!locs) {
			walk->err = -ENOMEM;
			return 1;
		}
		walk->locs = locs;
		walk->room = room;
	}
	walk->locs[walk->nr++] = loc;
	return 0;
}

/* kallsyms walker callback for a glob.  Context: process, may sleep. */
static int fprobe_glob_one(void *data, const char *name, unsigned long addr)
{
	struct fprobe_glob_walk *walk = data;

	if (!glob_match(walk->filter, name))
		return 0;
	if (walk->notfilter && glob_match(walk->notfilter, name))
		return 0;
	return fprobe_walk_add(walk, addr);
}

/* kallsyms_on_each_match_symbol() callback: a symbol of the plain name. */
static int fprobe_name_one(void *data, unsigned long addr)
{
	return fprobe_walk_add(data, addr);
}

/* Module symbols walker callback for a plain name. */
static int fprobe_mod_name_one(void *data, const char *name, unsigned long addr)
{
	struct fprobe_glob_walk *walk = data;

	return strcmp(walk->filter, name) ? 0 : fprobe_walk_add(walk, addr);
}

/*
 * Find what @walk->filter names.  A glob is matched against every
 * symbol, each name expanded from kallsyms' compressed table.  A plain
 * name (no character glob_match() treats as special) is looked up in
 * kallsyms' sorted index instead: enabling an fprobe event on one
 * function need not expand every name of the kernel.  Either way every
 * function of the name is found (static functions of several files may
 * share it), and the modules' symbols, not in that index, are walked.
 */
static void fprobe_find(struct fprobe_glob_walk *walk)
{
	if (strpbrk(walk->filter, "*?[\\")) {
		kallsyms_on_each_symbol(fprobe_glob_one, walk);
		if (!walk->err)
			module_kallsyms_on_each_symbol(NULL, fprobe_glob_one,
						       walk);
		return;
	}
	if (walk->notfilter && glob_match(walk->notfilter, walk->filter))
		return;
	kallsyms_on_each_match_symbol(fprobe_name_one, walk->filter, walk);
	if (!walk->err)
		module_kallsyms_on_each_symbol(NULL, fprobe_mod_name_one, walk);
}

/**
 * register_fprobe() - register a fprobe on functions matching a glob
 * @fp: the fprobe, with its handlers set
 * @filter: glob (``*``, ``?``, ``[...]``) of the function names to probe
 * @notfilter: glob of names to leave out of @filter's, or NULL
 *
 * Matches the names of the kernel's and the loaded modules' functions
 * that ftrace can trace.  See register_fprobe_ips() for when handlers run.
 *
 * Context: process, may sleep.  Calls for one @fp must not race.
 * Return: 0, -EINVAL for a bad argument or when no function matches,
 * -EBUSY if @fp is registered already, -ENOMEM, or another error from
 * ftrace.
 */
int register_fprobe(struct fprobe *fp, const char *filter, const char *notfilter)
{
	struct fprobe_glob_walk walk = {
		.filter = filter,
		.notfilter = notfilter && *notfilter ? notfilter : NULL,
	};
	int ret;

	if (!filter || !*filter)
		return -EINVAL;
	ret = fprobe_prepare(fp);
	if (ret)
		return ret;

	fprobe_find(&walk);
	if (walk.err || !walk.nr) {
		ret = walk.err ?: -EINVAL;
		fprobe_release(fp);
	} else {
		ret = fprobe_arm(fp, walk.locs, walk.nr);
	}
	kvfree(walk.locs);
	return ret;
}
EXPORT_SYMBOL_GPL(register_fprobe);

static int fprobe_name_cmp(const void *a, const void *b)
{
	return strcmp(*(const char * const *)a, *(const char * const *)b);
}

/*
 * Resolve @num distinct-or-not names into traceable function addresses,
 * in any order; the result has @num or fewer entries (repeated names
 * count once).  Context: process, may sleep.
 * Return: number of addresses, or -ENOENT if a name is not a traceable
 * function, -ENOMEM.
 */
static int fprobe_resolve_syms(const char **syms, int num, unsigned long *addrs)
{
	const char **sorted;
	int i, n, ret;

	sorted = kvmalloc_array(num, sizeof(*sorted), GFP_KERNEL);
	if (!sorted)
		return -ENOMEM;
	memcpy(sorted, syms, num * sizeof(*sorted));
	sort(sorted, num, sizeof(*sorted), fprobe_name_cmp, NULL);
	/* ftrace_lookup_symbols() wants each name once. */
	for (i = 1, n = 1; i < num; i++)
		if (strcmp(sorted[i], sorted[n - 1]))
			sorted[n++] = sorted[i];
	ret = ftrace_lookup_symbols(sorted, n, addrs);
	kvfree(sorted);
	if (ret)
		return ret == -ESRCH ? -ENOENT : ret;
	return n;
}

/**
 * register_fprobe_syms() - register a fprobe on functions given by name
 * @fp: the fprobe, with its handlers set
 * @syms: function names (exact, no globs)
 * @num: number of entries in @syms
 *
 * See register_fprobe_ips() for when handlers run.
 *
 * Context: process, may sleep.  Calls for one @fp must not race.
 * Return: 0, -EINVAL for a bad argument, -ENOENT if a name is not a
 * traceable function, -EBUSY if @fp is registered already, -ENOMEM, or
 * another error from ftrace.
 */
int register_fprobe_syms(struct fprobe *fp, const char **syms, int num)
{
	unsigned long *addrs;
	int ret, i;

	if (!syms || num <= 0)
		return -EINVAL;
	for (i = 0; i < num; i++)
		if (!syms[i])
			return -EINVAL;
	ret = fprobe_prepare(fp);
	if (ret)
		return ret;

	addrs = kvcalloc(num, sizeof(*addrs), GFP_KERNEL);
	ret = addrs ? fprobe_resolve_syms(syms, num, addrs) : -ENOMEM;
	if (ret < 0)
		fprobe_release(fp);
	else
		ret = fprobe_arm(fp, addrs, ret);
	kvfree(addrs);
	return ret;
}
EXPORT_SYMBOL_GPL(register_fprobe_syms);

/**
 * unregister_fprobe() - remove a fprobe from its functions
 * @fp: the fprobe
 *
 * When this returns, no handler of @fp runs any more and none will: calls
 * still in flight return to their callers without calling the exit
 * handler.  @fp may then be freed, or registered again.
 *
 * Context: process, may sleep (waits for RCU-tasks grace periods).  Calls
 * for one @fp must not race.
 * Return: 0, -EINVAL if @fp is not registered, or ftrace's error (ftrace
 * is dead then and the fprobe stays registered but does nothing).
 */
int unregister_fprobe(struct fprobe *fp)
{
	bool synced;
	int ret;

	if (!fprobe_is_registered(fp))
		return -EINVAL;

	/*
	 * From now on no exit handler starts, nor does the entry handler of
	 * a fprobe with an exit handler (its exit could not be reported).
	 */
	if (fp->rethook)
		rethook_stop(fp->rethook);

	/*
	 * ftrace waits for the callers of a dynamic ops itself.  For one in
	 * kernel data we wait as it would: for the handlers, which run with
	 * preemption off, and, on a preemptible kernel, for a task preempted
	 * in the trampoline or in our callback before it turned preemption
	 * off (it would go on with the fprobe released).
	 */
	synced = fp->ops.flags & FTRACE_OPS_FL_DYNAMIC;
	ret = unregister_ftrace_function(&fp->ops);
	if (ret)
		return ret;
	if (!synced) {
		synchronize_rcu_tasks_rude();
		if (IS_ENABLED(CONFIG_PREEMPTION))
			synchronize_rcu_tasks();
	}

	WRITE_ONCE(fp->ops.private, NULL);
	fprobe_release(fp);
	return 0;
}
EXPORT_SYMBOL_GPL(unregister_fprobe);
