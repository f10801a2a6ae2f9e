// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * debugfs: kprobes/list, kprobes/missed, kprobes/enabled and
 * kprobes/blacklist.
 *
 * kprobes/list prints one line per registered probe:
 *   "<addr>  <k|r|j>  <sym>+<off>  <module> [GONE][DISABLED][OPTIMIZED][FTRACE]"
 * the layout tools and ftracetest parse (k: kprobe, r: kretprobe,
 * j: jprobe).  GONE and DISABLED describe the probe, OPTIMIZED and
 * FTRACE the site it sits on.
 *
 * kprobes/missed prints the same probes, in the same order, with their
 * misses by cause (Documentation/trace/kprobes.rst):
 *   "<addr>  <k|r|j>  <sym>+<off>  <module> nmissed=N nested=N nest_full=N no_mem=N stopped=N no_rcu=N"
 * where nmissed is what kprobe_profile shows (the kprobe's and, for a
 * kretprobe, its return side's together), and one last line for the
 * misses no probe could be charged with:
 *   "(none)  no_rcu=N recursion=N"
 */
#include <linux/debugfs.h>
#include <linux/kallsyms.h>
#include <linux/seq_file.h>
#include "internal.h"

static const char *probe_type(struct kprobe *u)
{
	if (kprobe_is_kretprobe(u))
		return "r";
	return kprobe_is_jprobe(u) ? "j" : "k";
}

/* What both files print first about a probe. */
static void probe_name(struct seq_file *m, struct kprobe *u, const char *sym,
		       unsigned long off, const char *modname)
{
	void *addr = kallsyms_show_value(m->file->f_cred) ? u->addr : NULL;

	if (sym)
		seq_printf(m, "%px  %s  %s+0x%lx  %s ", addr,
			   probe_type(u), sym, off,
			   modname ? modname : " ");
	else
		seq_printf(m, "%px  %s  %pS ", addr, probe_type(u), u->addr);
}

static void list_one(struct seq_file *m, struct kprobe_site *s,
		     struct kprobe *u, const char *sym, unsigned long off,
		     const char *modname)
{
	struct kprobe *kp = site_kp(s);

	probe_name(m, u, sym, off, modname);
	seq_printf(m, "%s%s%s%s\n",
		   kprobe_gone(u) ? "[GONE]" : "",
		   kprobe_disabled(u) && !kprobe_gone(u) ? "[DISABLED]" : "",
		   kprobe_optimized(kp) ? "[OPTIMIZED]" : "",
		   kprobe_ftrace(kp) ? "[FTRACE]" : "");
}

/*
 * A kprobe misses only when nested (kprobes_inc_nmissed_count()); a
 * kretprobe adds the calls whose return its rethook could not hook.
 */
static void missed_one(struct seq_file *m, struct kprobe_site *s,
		       struct kprobe *u, const char *sym, unsigned long off,
		       const char *modname)
{
	unsigned long nested = READ_ONCE(u->nmissed), ret[RETHOOK_MISS_NR] = {};
	unsigned long total = nested;
	struct kretprobe *rp;
	int i;

	if (kprobe_is_kretprobe(u)) {
		rp = container_of(u, struct kretprobe, kp);
		total += (unsigned int)READ_ONCE(rp->nmissed);
		for (i = 0; rp->rh && i < RETHOOK_MISS_NR; i++)
			ret[i] = rethook_nmissed(rp->rh, i);
	}
	probe_name(m, u, sym, off, modname);
	seq_printf(m, "nmissed=%lu nested=%lu nest_full=%lu no_mem=%lu stopped=%lu no_rcu=%lu out_of_order=%lu\n",
		   total, nested, ret[RETHOOK_MISS_NEST_FULL],
		   ret[RETHOOK_MISS_NO_MEM], ret[RETHOOK_MISS_STOPPED],
		   ret[RETHOOK_MISS_NO_RCU], ret[RETHOOK_MISS_ORDER]);
}

/*
 * *pos is the table slot of the current site.  kprobe_mutex is held
 * from start to stop, so the table does not change under the walk.
 */
static void *list_from(loff_t *pos, unsigned int slot)
{
	struct kprobe_site *s = kprobe_site_at(&slot);

	/* kprobe_site_at() left slot just past the site it returned. */
	*pos = s ? slot - 1 : slot;
	return s;
}

static void *list_start(struct seq_file *m, loff_t *pos)
{
	mutex_lock(&kprobe_mutex);
	return list_from(pos, *pos);
}

static void *list_next(struct seq_file *m, void *v, loff_t *pos)
{
	return list_from(pos, *pos + 1);
}

static void list_stop(struct seq_file *m, void *v)
{
	mutex_unlock(&kprobe_mutex);
}

static void site_show(struct seq_file *m, struct kprobe_site *s,
		      void (*one)(struct seq_file *m, struct kprobe_site *s,
				  struct kprobe *u, const char *sym,
				  unsigned long off, const char *modname))
{
	char name[KSYM_NAME_LEN], *modname;
	unsigned long off;
	const char *sym;
	struct kprobe *u;

	sym = kallsyms_lookup(site_addr(s), NULL, &off, &modname, name);
	list_for_each_entry(u, &s->users, list)
		one(m, s, u, sym, off, modname);
}

static int list_show(struct seq_file *m, void *v)
{
	site_show(m, v, list_one);
	return 0;
}

static const struct seq_operations kprobes_list_sops = {
	.start = list_start,
	.next = list_next,
	.stop = list_stop,
	.show = list_show,
};
DEFINE_SEQ_ATTRIBUTE(kprobes_list);

/*
 * kprobes/missed: the sites, then one line more for the misses of no
 * probe, at position UINT_MAX (a table never has that many slots).
 */
static char missed_anon_line;
#define MISSED_ANON	((void *)&missed_anon_line)

static void *missed_from(loff_t *pos, loff_t at)
{
	void *v;

	if (at > UINT_MAX) {
		*pos = at;
		return NULL;
	}
	if (at < UINT_MAX) {
		v = list_from(pos, at);
		if (v)
			return v;
	}
	*pos = UINT_MAX;
	return MISSED_ANON;
}

static void *missed_start(struct seq_file *m, loff_t *pos)
{
	mutex_lock(&kprobe_mutex);
	return missed_from(pos, *pos);
}

static void *missed_next(struct seq_file *m, void *v, loff_t *pos)
{
	return missed_from(pos, *pos + 1);
}

static int missed_show(struct seq_file *m, void *v)
{
	if (v == MISSED_ANON)
		seq_printf(m, "(none)  no_rcu=%lu recursion=%lu\n",
			   kprobe_missed_anon(KPROBE_MISS_NO_RCU),
			   kprobe_missed_anon(KPROBE_MISS_RECURSION));
	else
		site_show(m, v, missed_one);
	return 0;
}

static const struct seq_operations kprobes_missed_sops = {
	.start = missed_start,
	.next = missed_next,
	.stop = list_stop,
	.show = missed_show,
};
DEFINE_SEQ_ATTRIBUTE(kprobes_missed);

static const struct seq_operations kprobes_blacklist_sops = {
	.start = kprobe_blacklist_seq_start,
	.next = kprobe_blacklist_seq_next,
	.stop = kprobe_blacklist_seq_stop,
	.show = kprobe_blacklist_seq_show,
};
DEFINE_SEQ_ATTRIBUTE(kprobes_blacklist);

static ssize_t enabled_read(struct file *file, char __user *ubuf,
			    size_t count, loff_t *ppos)
{
	char buf[2] = { READ_ONCE(kprobes_all_disarmed) ? '0' : '1', '\n' };

	return simple_read_from_buffer(ubuf, count, ppos, buf, sizeof(buf));
}

static ssize_t enabled_write(struct file *file, const char __user *ubuf,
			     size_t count, loff_t *ppos)
{
	bool on;
	int ret;

	ret = kstrtobool_from_user(ubuf, count, &on);
	if (ret)
		return ret;
	ret = on ? kprobe_arm_all() : kprobe_disarm_all();
	return ret ? ret : count;
}

static const struct file_operations kprobes_enabled_fops = {
	.read = enabled_read,
	.write = enabled_write,
	.llseek = default_llseek,
};

static int __init kprobes_debugfs_init(void)
{
	struct dentry *dir = debugfs_create_dir("kprobes", NULL);

	debugfs_create_file("list", 0400, dir, NULL, &kprobes_list_fops);
	debugfs_create_file("missed", 0400, dir, NULL, &kprobes_missed_fops);
	debugfs_create_file("enabled", 0600, dir, NULL, &kprobes_enabled_fops);
	debugfs_create_file("blacklist", 0400, dir, NULL,
			    &kprobes_blacklist_fops);
	return 0;
}
late_initcall(kprobes_debugfs_init);
