// SPDX-License-Identifier: GPL-2.0-only
/*
 * fprobe sample: print every entry and exit of some kernel functions.
 *
 *   modprobe fprobe_example                      # kernel_clone
 *   modprobe fprobe_example symbol=vfs_read,vfs_write
 *   modprobe fprobe_example symbol='vfs_*' nosymbol='vfs_fsync*'
 *
 * symbol is a comma separated list of function names, or one glob
 * (anything with a '*' or '?' in it); nosymbol is a glob of names to
 * leave out of that glob.  The kernel log shows the hits; with
 * use_trace=1 they go to the trace buffer instead.
 */
#define pr_fmt(fmt) "%s: " fmt, __func__

#include <linux/atomic.h>
#include <linux/fprobe.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/sched/debug.h>
#include <linux/slab.h>
#include <linux/string.h>

#define SYMLIST_MAX	KSYM_NAME_LEN

/* What to probe: a list ("a,b,c") or one glob, and a glob to leave out. */
static char symbol[SYMLIST_MAX] = "kernel_clone";
static char nosymbol[SYMLIST_MAX];
/* How to report a hit: a stack dump with it, the trace buffer or the log. */
static bool stackdump;
static bool use_trace;

module_param_string(symbol, symbol, sizeof(symbol), 0644);
module_param_string(nosymbol, nosymbol, sizeof(nosymbol), 0644);
module_param(stackdump, bool, 0644);
module_param(use_trace, bool, 0644);
MODULE_PARM_DESC(symbol, "functions to probe: name[,name...] or a glob (default kernel_clone)");
MODULE_PARM_DESC(nosymbol, "glob of functions that symbol's glob must skip");
MODULE_PARM_DESC(stackdump, "dump the stack at every hit (default off)");
MODULE_PARM_DESC(use_trace, "report hits with trace_printk(), for debugging (default: kernel log)");

static struct fprobe sample_probe;
static atomic_long_t sample_hits = ATOMIC_LONG_INIT(0);
/* The split-up copy of @symbol and the names in it, for a list. */
static char *sample_names_buf;
static const char **sample_names;

/*
 * Report a hit in the kernel log, or with use_trace=1 in the trace buffer
 * (debugging only: trace_printk() leaves a loud banner in the log).
 */
#define sample_report(fmt, ...)					\
	do {							\
		if (use_trace)					\
			trace_printk(fmt, ##__VA_ARGS__);	\
		else						\
			pr_info(fmt, ##__VA_ARGS__);		\
		if (stackdump)					\
			dump_stack();				\
	} while (0)

static int sample_entry(struct fprobe *fp, unsigned long ip,
			unsigned long ret_ip, struct pt_regs *regs, void *data)
{
	void *where = (void *)ip;

	atomic_long_inc(&sample_hits);
	sample_report("Enter <%pS> ip = 0x%p\n", where, where);
	return 0;
}

static void sample_exit(struct fprobe *fp, unsigned long ip,
			unsigned long ret_ip, struct pt_regs *regs, void *data)
{
	/* ret_ip is also instruction_pointer(regs) here. */
	void *where = (void *)ip, *back = (void *)ret_ip;

	sample_report("Return from <%pS> ip = 0x%p to rip = 0x%p (%pS)\n",
		      where, where, back, back);
}

/* Split @symbol at the commas into sample_names[].  Return: their number. */
static int sample_split_names(void)
{
	char *cur, *name;
	int n = 1, i = 0;

	sample_names_buf = kstrdup(symbol, GFP_KERNEL);
	if (!sample_names_buf)
		return -ENOMEM;
	for (cur = sample_names_buf; *cur; cur++)
		n += *cur == ',';
	sample_names = kcalloc(n, sizeof(*sample_names), GFP_KERNEL);
	if (!sample_names)
		return -ENOMEM;

	cur = sample_names_buf;
	while ((name = strsep(&cur, ",")) != NULL) {
		name = strim(name);
		if (*name)
			sample_names[i++] = name;
	}
	return i;
}

static void sample_free_names(void)
{
	kfree(sample_names);
	kfree(sample_names_buf);
	sample_names = NULL;
	sample_names_buf = NULL;
}

static int __init fprobe_sample_init(void)
{
	int ret, n;

	sample_probe.entry_handler = sample_entry;
	sample_probe.exit_handler = sample_exit;

	if (strpbrk(symbol, "*?")) {
		ret = register_fprobe(&sample_probe, symbol,
				      nosymbol[0] ? nosymbol : NULL);
	} else {
		n = sample_split_names();
		if (n < 0) {
			ret = n;
		} else if (!n) {
			ret = -EINVAL;
		} else {
			pr_info("%d symbols found\n", n);
			ret = register_fprobe_syms(&sample_probe, sample_names, n);
		}
	}
	if (ret < 0) {
		sample_free_names();
		pr_err("register_fprobe failed, returned %d\n", ret);
		return ret;
	}
	pr_info("Planted fprobe at %s\n", symbol);
	return 0;
}

static void __exit fprobe_sample_exit(void)
{
	unregister_fprobe(&sample_probe);
	sample_free_names();
	pr_info("fprobe at %s unregistered. %ld times hit, %ld times missed\n",
		symbol, atomic_long_read(&sample_hits), sample_probe.nmissed);
}

module_init(fprobe_sample_init)
module_exit(fprobe_sample_exit)
MODULE_DESCRIPTION("sample: fprobe entry and exit messages");
MODULE_LICENSE("GPL");
