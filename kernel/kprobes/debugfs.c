// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * debugfs: kprobes/list, kprobes/missed, kprobes/enabled and
 * kprobes/blacklist.
 *
 * kprobes/list prints one line per registered probe, in address order:
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
#include <linux/slab.h>
#include <linux/sort.h>
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
 * Both files list the sites there were when the file was opened, in
 * address order: a position is an index in that snapshot.  A read()
 * resumes at its position after kprobe_mutex was dropped, and the
 * table's slots are no positions (a rebuild moves every site): a long
 * listing would repeat or skip probes.  A site gone since the open is
 * left out, one added since is not shown.
 */
struct kprobes_listing {
	unsigned int nr;
	unsigned long addr[];
};

/* The file's seq_operations are its debugfs data (kprobes_debugfs_init()). */
static int listing_open(struct inode *inode, struct file *file)
{
	const struct seq_operations *ops = inode->i_private;
	struct kprobes_listing *l;
	struct kprobe_site *s;
	unsigned int pos, n = 0;
	int ret;

	mutex_lock(&kprobe_mutex);
	for (pos = 0; kprobe_site_at(&pos); )
		n++;
	l = kvmalloc(struct_size(l, addr, n), GFP_KERNEL);
	if (l) {
		for (pos = 0, l->nr = 0; l->nr < n; l->nr++) {
			s = kprobe_site_at(&pos);
			l->addr[l->nr] = site_addr(s);
		}
	}
	mutex_unlock(&kprobe_mutex);
	if (!l)
		return -ENOMEM;
	sort(l->addr, l->nr, sizeof(l->addr[0]), kprobe_cmp_ulong, NULL);

	ret = seq_open(file, ops);
	if (ret) {
		kvfree(l);
		return ret;
	}
	((struct seq_file *)file->private_data)->private = l;
	return 0;
}

static int listing_release(struct inode *inode, struct file *file)
{
	kvfree(((struct seq_file *)file->private_data)->private);
	return seq_release(inode, file);
}

static const struct file_operations kprobes_listing_fops = {
	.open = listing_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = listing_release,
};

/* The first site at or after snapshot index *@pos that is still there. */
static struct kprobe_site *listing_from(struct seq_file *m, loff_t *pos)
{
	struct kprobes_listing *l = m->private;
	struct kprobe_site *s;

	for (; *pos < l->nr; (*pos)++) {
		s = kprobe_site_find(l->addr[*pos]);
		if (s)
			return s;
	}
	return NULL;
}

static void *list_start(struct seq_file *m, loff_t *pos)
{
	mutex_lock(&kprobe_mutex);
	return listing_from(m, pos);
}

static void *list_next(struct seq_file *m, void *v, loff_t *pos)
{
	(*pos)++;
	return listing_from(m, pos);
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

/* kprobes/missed: the sites, then one line more for the misses of no probe. */
static char missed_anon_line;
#define MISSED_ANON	((void *)&missed_anon_line)

static void *missed_from(struct seq_file *m, loff_t *pos)
{
	struct kprobes_listing *l = m->private;
	struct kprobe_site *s = listing_from(m, pos);

	if (s)
		return s;
	return *pos == l->nr ? MISSED_ANON : NULL;
}

static void *missed_start(struct seq_file *m, loff_t *pos)
{
	mutex_lock(&kprobe_mutex);
	return missed_from(m, pos);
}

static void *missed_next(struct seq_file *m, void *v, loff_t *pos)
{
	(*pos)++;
	return missed_from(m, pos);
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

	debugfs_create_file("list", 0400, dir, (void *)&kprobes_list_sops,
			    &kprobes_listing_fops);
	debugfs_create_file("missed", 0400, dir, (void *)&kprobes_missed_sops,
			    &kprobes_listing_fops);
	debugfs_create_file("enabled", 0600, dir, NULL, &kprobes_enabled_fops);
	debugfs_create_file("blacklist", 0400, dir, NULL,
			    &kprobes_blacklist_fops);
	return 0;
}
late_initcall(kprobes_debugfs_init);
