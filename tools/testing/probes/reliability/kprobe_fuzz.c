// SPDX-License-Identifier: GPL-2.0
/*
 * kprobe_fuzz: write generated probe definitions to tracefs kprobe_events
 * and dynamic_events and check what the kernel makes of them.
 *
 *   kprobe_fuzz [-s SEED] [-n LINES] [-c CYCLE] [-t TRACEFS] [-x TYPE] [-v]
 *
 * -x TYPE leaves one fetch type out of the generated arguments (for a
 * type with a known bug that would end the run).
 *
 * Each line starts from a valid definition (kprobe, kretprobe, fprobe,
 * tracepoint probe, with fetch arguments) and is usually mutated in a
 * grammar-aware way: bad symbols, offsets, registers and types, nested
 * +offs() dereferences, huge and empty tokens, non-ASCII bytes, more
 * than 128 arguments, duplicate argument and event names, odd group and
 * event names; some lines are deletions or plain garbage.  Every line is
 * one write(2) on a descriptor opened with O_APPEND.
 *
 * Checks:
 *  - a rejected line that the probe parsers own (it starts with a probe
 *    type letter, has a location, fits a line) left an entry in
 *    error_log (error_log is emptied after each line that left one, so
 *    what it holds after a write came from that write, however many
 *    entries it keeps); the entry's "Command:" is compared with the line
 *    and differences counted (the parsers may rewrite arguments);
 *    refusals that the base never logs (-ENOMEM, -EEXIST, more than 128
 *    arguments) are counted apart;
 *  - an accepted line left no error_log entry;
 *  - every CYCLE lines, and at the end: each accepted event can be
 *    enabled, a small workload runs with all of them enabled, they are
 *    disabled and deleted (half one by one with "-:GROUP/EVENT", the
 *    rest by truncating the files), and then dynamic_events,
 *    kprobe_events and debugfs kprobes/list are empty and no event
 *    directory is left behind.
 *
 * The generator is a seeded xorshift; the same seed on the same kernel
 * writes the same lines.  Output ends with one line
 * "kprobe_fuzz: PASS|FAIL seed=... lines=... counts"; exit status 0 on
 * PASS.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define LINE_MAX_LEN	6000	/* some lines exceed the kernel's 4094 */
#define KERNEL_LINE_MAX	4094
#define MAX_EXAMPLES	8

static const char *tracefs = "/sys/kernel/tracing";
static int verbose;

/* ---------------- random numbers ---------------- */

static uint64_t rng_state;

static uint64_t rnd(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545F4914F6CDD1DULL;
}

static unsigned int rn(unsigned int n)
{
	return n ? rnd() % n : 0;
}

static int chance(unsigned int pct)
{
	return rn(100) < pct;
}

#define PICK(a)	((a)[rn(sizeof(a) / sizeof((a)[0]))])

/* ---------------- output buffer ---------------- */

struct buf {
	char s[LINE_MAX_LEN + 64];
	size_t n;
};

static void bput(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	int r;

	if (b->n >= LINE_MAX_LEN)
		return;
	va_start(ap, fmt);
	r = vsnprintf(b->s + b->n, LINE_MAX_LEN - b->n, fmt, ap);
	va_end(ap);
	if (r > 0)
		b->n += (size_t)r < LINE_MAX_LEN - b->n ? (size_t)r : LINE_MAX_LEN - b->n - 1;
}

/* ---------------- symbols ---------------- */

static const char *good_syms[] = {
	"vfs_read", "vfs_write", "vfs_open", "do_sys_openat2", "kernel_clone",
	"do_exit", "ksys_read", "ksys_write", "__x64_sys_getpid", "schedule",
	"vfs_getattr", "filp_close", "do_filp_open", "path_openat",
	"security_file_open", "fput", "dput", "__kmalloc_noprof", "kfree",
	"vfs_fstatat", "do_dup2", "pipe_read", "pipe_write", "seq_read",
	"proc_reg_read", "iterate_dir", "__x64_sys_close", "wake_up_process",
};

static const char *bad_syms[] = {
	"no_such_symbol", "vfs_read_", "VFS_READ", "vfs_read.cold",
	"nosuchmod:vfs_read", "kprobes:vfs_read", "vfs:read", "_", "0x",
	"0xffffffffffffffff", "0", "-1", "do_int3", "kprobe_int3_handler",
	"rcu_read_lock", "__x64_sys_getpid.isra.0", "vfs_read+", "+vfs_read",
	"%ax", "$stack", "@vfs_read", "vfs_read%return%return", "vfs_read%ret",
	"/bin/sh:0x10", "notrace_fn", "arch_cpu_idle", "native_safe_halt",
	"preempt_count_add", "trace_hardirqs_on", "kprobe_ftrace_handler",
};

static const char *tracepoints[] = {
	"sched_switch", "sched_process_exec", "sys_enter", "sys_exit",
	"kmalloc", "kfree", "sched_wakeup", "no_such_tracepoint",
	"sched_process_fork", "module_load",
};

static char **ksyms;
static unsigned int nr_ksyms;

/* Core-kernel text symbols from /proc/kallsyms, in file order. */
static void load_kallsyms(void)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	char line[512], type, name[256];
	unsigned long long addr;
	unsigned int cap = 0;

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (strchr(line, '['))
			continue;
		if (sscanf(line, "%llx %c %255s", &addr, &type, name) != 3)
			continue;
		if (type != 't' && type != 'T')
			continue;
		if (nr_ksyms == cap) {
			cap = cap ? cap * 2 : 4096;
			ksyms = realloc(ksyms, cap * sizeof(*ksyms));
			if (!ksyms)
				exit(2);
		}
		ksyms[nr_ksyms++] = strdup(name);
	}
	fclose(f);
}

static const char *some_sym(void)
{
	if (nr_ksyms && chance(8))
		return ksyms[rn(nr_ksyms)];
	return PICK(good_syms);
}

/* ---------------- generator ---------------- */

static const char *regs[] = {
	"%ax", "%bx", "%cx", "%dx", "%si", "%di", "%bp", "%sp", "%ip",
	"%r8", "%r9", "%r10", "%r11", "%r12", "%r13", "%r14", "%r15",
	"%flags", "%cs", "%ss",
};
static const char *bad_regs[] = {
	"%", "%zz", "%rax", "%eax", "%ax1", "%%ax", "%r16", "%AX", "%-1",
	"%ax:", "% ax",
};
static const char *types[] = {
	"u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64", "x8", "x16",
	"x32", "x64", "char", "string", "ustring", "symbol", "symstr",
	"b4@2/32", "b1@0/8", "u32[4]", "x8[2]", "string[2]",
};
static const char *bad_types[] = {
	"u7", "x", "", "string[", "b0@0/8", "b65@0/64", "b4@30/32", "u8[0]",
	"u8[99999]", "symbol[2]", "u128", "s", "stringx", "b4@2", "b4/32",
	"u32[4][2]", "char[-1]", "x64[", ":", "u8 u8",
};

static int gen_is_return;
static int gen_kind;	/* 'p', 'r', 'f', 't' */

static void gen_fetch(struct buf *b, int depth);

static void gen_deref(struct buf *b, int depth)
{
	bput(b, "%s%s%d(", chance(30) ? "-" : "+", chance(10) ? "u" : "",
	     rn(4) * 8);
	gen_fetch(b, depth + 1);
	bput(b, ")");
}

static void gen_fetch(struct buf *b, int depth)
{
	switch (rn(depth > 2 ? 6 : 9)) {
	case 0: case 1:
		bput(b, "%s", PICK(regs));
		break;
	case 2:
		if (rn(2))
			bput(b, "$stack%u", rn(8));
		else
			bput(b, "$stack");
		break;
	case 3:
		bput(b, "%s", gen_is_return ? "$retval" : "$comm");
		break;
	case 4:
		bput(b, "$arg%u", 1 + rn(6));
		break;
	case 5:
		bput(b, "@%s%s", PICK(good_syms), chance(40) ? "+8" : "");
		break;
	case 6: case 7:
		gen_deref(b, depth);
		break;
	default:
		bput(b, "\\%d", (int)rn(1000) - 500);
		break;
	}
}

static const char *excluded_type;	/* -x: a type never generated */

static void gen_arg(struct buf *b, int i)
{
	const char *t;

	if (chance(85))
		bput(b, "a%d=", i);
	gen_fetch(b, 0);
	if (chance(50)) {
		do
			t = PICK(types);
		while (excluded_type && !strcmp(t, excluded_type));
		bput(b, ":%s", t);
	}
}

/* A name for an event: mostly from a small pool, so names repeat. */
static void gen_event_name(struct buf *b)
{
	bput(b, "e%u", rn(200));
}

static const char *groups[] = { "fz", "fz2", "kprobes", "fprobes", "tracepoints" };

/* A valid definition; returns the offset of the first argument. */
static size_t gen_valid(struct buf *b, int dyn)
{
	int nargs, i;

	gen_is_return = 0;
	gen_kind = dyn ? "pprft"[rn(5)] : "ppr"[rn(3)];
	switch (gen_kind) {
	case 'p':
		bput(b, "p");
		break;
	case 'r':
		gen_is_return = 1;
		if (chance(30))
			bput(b, "r%u", 1 + rn(64));
		else
			bput(b, "r");
		break;
	default:
		bput(b, "%c", gen_kind);
		break;
	}
	if (chance(85)) {
		bput(b, ":");
		if (chance(80))
			bput(b, "%s/", PICK(groups));
		gen_event_name(b);
	}
	bput(b, " ");
	if (gen_kind == 't') {
		bput(b, "%s", PICK(tracepoints));
	} else {
		bput(b, "%s", some_sym());
		if (gen_kind == 'p' && chance(15))
			bput(b, "+%u", rn(3) * 4);
		if ((gen_kind == 'p' || gen_kind == 'f') && chance(15)) {
			bput(b, "%%return");
			gen_is_return = 1;
		}
	}
	i = (int)b->n;
	nargs = rn(5);
	for (int k = 0; k < nargs; k++) {
		bput(b, " ");
		gen_arg(b, k);
	}
	return i;
}

/* Replace the text between [from, to) with the formatted string. */
static void bsplice(struct buf *b, size_t from, size_t to, const char *with)
{
	size_t wl = strlen(with);

	if (to > b->n)
		to = b->n;
	if (from > to)
		from = to;
	if (b->n - (to - from) + wl >= LINE_MAX_LEN)
		return;
	memmove(b->s + from + wl, b->s + to, b->n - to);
	memcpy(b->s + from, with, wl);
	b->n = b->n - (to - from) + wl;
}

/* Token boundaries: start of the nth whitespace-separated token. */
static int token_span(struct buf *b, int nth, size_t *from, size_t *to)
{
	size_t i = 0;
	int t = -1;

	while (i < b->n) {
		while (i < b->n && b->s[i] == ' ')
			i++;
		if (i >= b->n)
			break;
		t++;
		*from = i;
		while (i < b->n && b->s[i] != ' ')
			i++;
		*to = i;
		if (t == nth)
			return 1;
	}
	return 0;
}

static int nr_tokens(struct buf *b)
{
	size_t f, t;
	int n = 0;

	while (token_span(b, n, &f, &t))
		n++;
	return n;
}

static void mutate(struct buf *b)
{
	size_t f = 0, t = 0;
	char tmp[5200];
	int ntok = nr_tokens(b), k, i;

	switch (rn(16)) {
	case 0:	/* bad symbol */
		if (token_span(b, 1, &f, &t))
			bsplice(b, f, t, PICK(bad_syms));
		break;
	case 1:	/* bad offset */
		if (token_span(b, 1, &f, &t)) {
			static const char *offs[] = {
				"+1", "+2", "+3", "+99999", "+-1", "+0x", "+",
				"+18446744073709551615", "+0x7fffffff", "-8",
				"+0+0", "+1%return", "+4%return",
			};
			bsplice(b, t, t, PICK(offs));
		}
		break;
	case 2:	/* bad register */
		snprintf(tmp, sizeof(tmp), " r=%s", PICK(bad_regs));
		bsplice(b, b->n, b->n, tmp);
		break;
	case 3:	/* bad type */
		snprintf(tmp, sizeof(tmp), " t=%%di:%s", PICK(bad_types));
		bsplice(b, b->n, b->n, tmp);
		break;
	case 4: /* nested dereference */
		k = 1 + rn(40);
		strcpy(tmp, " deep=");
		for (i = 0; i < k; i++)
			strcat(tmp, "+0(");
		strcat(tmp, PICK(regs));
		for (i = 0; i < k; i++)
			strcat(tmp, ")");
		if (chance(50))
			strcat(tmp, ":string");
		bsplice(b, b->n, b->n, tmp);
		break;
	case 5: /* huge token */
		k = chance(70) ? 60 + rn(200) : 1000 + rn(4000);
		memset(tmp, 'a' + rn(26), k);
		tmp[k] = '\0';
		if (token_span(b, rn(ntok ? ntok : 1), &f, &t)) {
			if (b->s[f] == 'p' || b->s[f] == 'r' || b->s[f] == 'f' ||
			    b->s[f] == 't') {
				/* the event name, keeping the type letter */
				char head[8];

				snprintf(head, sizeof(head), "%c:", b->s[f]);
				memmove(tmp + strlen(head), tmp, k + 1);
				memcpy(tmp, head, strlen(head));
			}
			bsplice(b, f, t, tmp);
		}
		break;
	case 6: { /* empty tokens */
		static const char *empties[] = {
			"p:", "p: ", "p:/", "p:fz/", "p:/e1", "r:", "f:", "t:",
			"p:fz/ ", "p", "r0:", "r:fz/",
		};
		static const char *empty_args[] = {
			" =", " a=", " =%ax", " :u8", " a=:u8", " a=%ax:",
			" a", " ==", " a=+()", " a=+0()", " a=@", " a=$",
		};
		if (chance(50)) {
			if (token_span(b, 0, &f, &t))
				bsplice(b, f, t, PICK(empties));
		} else {
			bsplice(b, b->n, b->n, PICK(empty_args));
		}
		break;
	}
	case 7: /* non-ASCII bytes */
		k = 1 + rn(4);
		for (i = 0; i < k && b->n; i++)
			b->s[rn(b->n)] = (char)(0x80 + rn(128));
		break;
	case 8: /* 128+ arguments */
		k = 120 + rn(20);
		for (i = 0; i < k && b->n < LINE_MAX_LEN - 32; i++)
			bput(b, " x%d=%s", i, PICK(regs));
		break;
	case 9: /* duplicate argument names */
		bput(b, " dup=%%ax dup=%%bx");
		break;
	case 10: { /* group and event edge cases */
		static const char *names[] = {
			"p:1abc", "p:fz/1abc", "p:a-b", "p:fz/a.b", "p:a/b/c",
			"p:sched/sched_switch", "p:ftrace/function",
			"p:fz/sched_switch", "p:header_page", "p:enable",
			"p:fz/enable", "p:fz/filter", "p:events/e1", "p:./e1",
			"p:../e1", "p:fz/..", "p:fz/.", "p:fz/e1:e2", "p:fz/e\\1",
			"p:fz/e1/", "p:kprobes/e1", "p:fprobes/e1", "f:kprobes/e1",
			"p:fz/" "abcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcd",
			"p:" "abcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcde" "/e1",
			"r9999999:fz/e1", "r0:fz/e1", "rx:fz/e1", "p5:fz/e1", "r4096:fz/e1",
		};
		if (token_span(b, 0, &f, &t))
			bsplice(b, f, t, PICK(names));
		break;
	}
	case 11: /* delete a character */
		if (b->n > 1) {
			f = rn(b->n);
			memmove(b->s + f, b->s + f + 1, b->n - f - 1);
			b->n--;
		}
		break;
	case 12: /* insert a punctuation character */
		if (b->n) {
			static const char punct[] = "()+-:%$@=/\\[]{}.,;'\"`!&|*?^~<>";
			char c[2] = { punct[rn(sizeof(punct) - 1)], 0 };

			f = rn(b->n);
			bsplice(b, f, f, c);
		}
		break;
	case 13: /* truncate */
		if (b->n > 2)
			b->n = 1 + rn(b->n - 1);
		break;
	case 14: /* swap two tokens */
		if (ntok > 2) {
			size_t f2, t2;
			char a[LINE_MAX_LEN];

			token_span(b, 1, &f, &t);
			token_span(b, 2 + rn(ntok - 2), &f2, &t2);
			memcpy(a, b->s + f, t - f);
			a[t - f] = 0;
			memcpy(tmp, b->s + f2, t2 - f2 < 5000 ? t2 - f2 : 5000);
			tmp[t2 - f2 < 5000 ? t2 - f2 : 5000] = 0;
			bsplice(b, f2, t2, a);
			bsplice(b, f, t, tmp);
		}
		break;
	default: /* garbage line */
		b->n = 0;
		k = rn(80);
		for (i = 0; i < k; i++)
			b->s[b->n++] = (char)(0x21 + rn(0x5e));
		break;
	}
}

/* ---------------- tracefs helpers ---------------- */

static char path_buf[512];

static const char *tpath(const char *rel)
{
	snprintf(path_buf, sizeof(path_buf), "%s/%s", tracefs, rel);
	return path_buf;
}

static int open_append(const char *rel)
{
	int fd = open(tpath(rel), O_WRONLY | O_APPEND);

	if (fd < 0) {
		fprintf(stderr, "kprobe_fuzz: open %s: %s\n", rel, strerror(errno));
		exit(2);
	}
	return fd;
}

static int truncate_file(const char *rel)
{
	int fd = open(tpath(rel), O_WRONLY | O_TRUNC);

	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

/* Read a whole file (up to cap bytes) into buf; returns length or -errno. */
static ssize_t read_file(const char *path, char *buf, size_t cap)
{
	ssize_t n, tot = 0;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return -errno;
	while ((size_t)tot < cap - 1 && (n = read(fd, buf + tot, cap - 1 - tot)) > 0)
		tot += n;
	close(fd);
	buf[tot] = 0;
	return tot;
}

static int write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY), ret = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, s, strlen(s)) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

/* ---------------- checks ---------------- */

static unsigned long n_lines, n_kprobe_events, n_dynamic_events;
static unsigned long n_accepted, n_rejected, n_logged, n_unlogged_ok;
static unsigned long n_unlogged_bad, n_multi_log, n_cmd_mismatch, n_log_on_accept;
static unsigned long n_unlogged_e2big;
static unsigned long n_enabled, n_enable_failed, n_events_seen, n_cycles;
static unsigned long n_deleted_one, n_delete_failed, n_leaks, n_too_long;
static unsigned long n_errno[256];
static int examples;

static void example(const char *what, const char *line, size_t len, int err)
{
	char shown[161];
	size_t i, n = len < 160 ? len : 160;

	if (examples++ >= MAX_EXAMPLES)
		return;
	for (i = 0; i < n; i++) {
		unsigned char c = line[i];

		shown[i] = (c >= 0x20 && c < 0x7f) ? c : '?';
	}
	shown[n] = 0;
	printf("# %s (errno %d, %zu bytes): %s%s\n", what, err, len, shown,
	       len > n ? "..." : "");
}

/* The kernel's isspace(): ASCII white space and 0xa0. */
static int kspace(unsigned char c)
{
	return c == ' ' || (c >= '\t' && c <= '\r') || c == 0xa0;
}

/* Normalize white space the way argv_split() + join with ' ' does. */
static size_t normalize(const char *in, size_t len, char *out)
{
	size_t i = 0, o = 0;

	while (i < len) {
		while (i < len && kspace(in[i]))
			i++;
		if (i >= len)
			break;
		if (o)
			out[o++] = ' ';
		while (i < len && !kspace(in[i]))
			out[o++] = in[i++];
	}
	out[o] = 0;
	return o;
}

/*
 * Does this line belong to the probe parsers, so that a rejection must
 * be explained in error_log?  Lines a parser hands back (other type
 * letter, no location, a uprobe-style PATH:OFFSET, a deletion) and
 * lines the tracefs writer refuses before parsing (too long) are not.
 */
static int expects_log(const char *norm, int dyn)
{
	const char *sp = strchr(norm, ' '), *loc, *end;

	if (!sp)
		return 0;
	switch (norm[0]) {
	case 'p': case 'r':
		break;
	case 'f': case 't':
		if (!dyn)
			return 0;
		break;
	default:
		return 0;
	}
	loc = sp + 1;
	end = strchr(loc, ' ');
	if (!end)
		end = loc + strlen(loc);
	if (norm[0] != 'f' && norm[0] != 't') {
		/* PATH:OFFSET is a uprobe: the kprobe parser declines it. */
		const char *slash = memchr(loc, '/', end - loc);
		const char *colon = memchr(loc, ':', end - loc);

		if (slash && colon)
			return 0;
	}
	return 1;
}

static char logbuf[1 << 16];
static char normbuf[LINE_MAX_LEN + 64];

static void check_line(const char *line, size_t len, int dyn, int err)
{
	char el_path[512];
	ssize_t n;
	int entries = 0;
	char *p, *cmd;
	size_t nl;

	snprintf(el_path, sizeof(el_path), "%s/error_log", tracefs);
	n = read_file(el_path, logbuf, sizeof(logbuf));
	if (n < 0) {
		fprintf(stderr, "kprobe_fuzz: read error_log: %s\n", strerror((int)-n));
		exit(2);
	}
	for (p = logbuf; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (*p == '[')
			entries++;
	if (!err) {
		if (entries) {
			n_log_on_accept++;
			example("accepted line logged an error", line, len, 0);
		}
		goto clear;
	}
	nl = normalize(line, len, normbuf);
	if (!entries) {
		if (len >= KERNEL_LINE_MAX || !expects_log(normbuf, dyn) ||
		    err == ENOMEM || err == EEXIST) {
			n_unlogged_ok++;
		} else if (err == E2BIG) {
			/*
			 * More than MAX_TRACE_ARGS arguments: the base's
			 * trace_kprobe.c and trace_fprobe.c return -E2BIG
			 * without an error_log entry.  Counted apart, not
			 * failed, while those files are the base's.
			 */
			n_unlogged_e2big++;
		} else {
			n_unlogged_bad++;
			example("rejected without an error_log entry", line, len, err);
		}
		goto clear;
	}
	n_logged++;
	/*
	 * Several entries for one line are allowed: the base's fprobe
	 * parser logs "Invalid $-variable specified" and then "Invalid
	 * fetch argument" for a register argument.  Counted only.
	 */
	if (entries > 1)
		n_multi_log++;
	cmd = strstr(logbuf, "  Command: ");
	if (cmd) {
		char *e;

		cmd += strlen("  Command: ");
		e = strchr(cmd, '\n');
		if (e)
			*e = 0;
		if (strlen(cmd) != nl || memcmp(cmd, normbuf, nl)) {
			n_cmd_mismatch++;
			if (verbose)
				example("error_log command differs", line, len, err);
		}
	}
clear:
	if (entries && truncate_file("error_log")) {
		fprintf(stderr, "kprobe_fuzz: cannot clear error_log\n");
		exit(2);
	}
}

/* ---------------- enable, workload, delete ---------------- */

static void workload(void)
{
	char b[256];
	int i;

	for (i = 0; i < 3; i++) {
		pid_t pid = fork();

		if (pid == 0) {
			execl("/bin/busybox", "true", (char *)NULL);
			_exit(0);
		}
		if (pid > 0)
			waitpid(pid, NULL, 0);
		read_file("/proc/version", b, sizeof(b));
		read_file("/proc/self/stat", b, sizeof(b));
		getpid();
		close(dup(1));
	}
}

struct ev {
	char group[128];
	char name[128];
	char type;
};

/* Parse dynamic_events into a list of events. */
static int list_events(struct ev **out)
{
	static char text[1 << 20];
	char *line, *save = NULL;
	struct ev *evs = NULL;
	int n = 0, i;

	if (read_file(tpath("dynamic_events"), text, sizeof(text)) < 0)
		return 0;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *c = strchr(line, ':'), *sl, *sp;

		/* CONFIG_PROBE_EVENTS_DUMP_FETCHARG's fetch programs */
		if (line[0] == '#' || !c)
			continue;
		sl = strchr(c, '/');
		sp = strchr(c, ' ');
		if (!sl || !sp || sl > sp)
			continue;
		/*
		 * Probes appended to one event are listed one a line, under
		 * the same name; the event is enabled and deleted once.
		 */
		for (i = 0; i < n; i++)
			if (strlen(evs[i].group) == (size_t)(sl - c - 1) &&
			    !strncmp(evs[i].group, c + 1, sl - c - 1) &&
			    strlen(evs[i].name) == (size_t)(sp - sl - 1) &&
			    !strncmp(evs[i].name, sl + 1, sp - sl - 1))
				break;
		if (i < n)
			continue;
		evs = realloc(evs, (n + 1) * sizeof(*evs));
		if (!evs)
			exit(2);
		evs[n].type = line[0];
		snprintf(evs[n].group, sizeof(evs[n].group), "%.*s", (int)(sl - c - 1), c + 1);
		snprintf(evs[n].name, sizeof(evs[n].name), "%.*s", (int)(sp - sl - 1), sl + 1);
		n++;
	}
	*out = evs;
	return n;
}

static int file_empty(const char *path)
{
	char b[4096];
	ssize_t n = read_file(path, b, sizeof(b));

	return n == 0;
}

static void cycle(int final)
{
	struct ev *evs = NULL;
	char p[512];
	int n, i, ret;

	n_cycles++;
	if (verbose) {
		/* The events about to be enabled, for a report if it oopses. */
		static char text[1 << 20];

		if (read_file(tpath("dynamic_events"), text, sizeof(text)) >= 0)
			fprintf(stderr, "cycle %lu enables:\n%s", n_cycles, text);
	}
	n = list_events(&evs);
	n_events_seen += n;
	for (i = 0; i < n; i++) {
		snprintf(p, sizeof(p), "%s/events/%s/%s/enable", tracefs,
			 evs[i].group, evs[i].name);
		ret = write_str(p, "1");
		if (ret) {
			n_enable_failed++;
			example("cannot enable an accepted event", evs[i].name,
				strlen(evs[i].name), -ret);
		} else {
			n_enabled++;
		}
	}
	workload();
	for (i = 0; i < n; i++) {
		snprintf(p, sizeof(p), "%s/events/%s/%s/enable", tracefs,
			 evs[i].group, evs[i].name);
		write_str(p, "0");
	}
	/* Half of them one by one, the rest by truncation. */
	for (i = 0; i < n; i += 2) {
		char cmd[300];
		int fd = open_append("dynamic_events");

		snprintf(cmd, sizeof(cmd), "-:%s/%s\n", evs[i].group, evs[i].name);
		if (write(fd, cmd, strlen(cmd)) < 0) {
			n_delete_failed++;
			example("cannot delete an accepted event", cmd, strlen(cmd), errno);
		} else {
			n_deleted_one++;
		}
		close(fd);
	}
	if (truncate_file("kprobe_events") || truncate_file("dynamic_events")) {
		n_delete_failed++;
		example("cannot truncate the event files", "", 0, errno);
	}
	truncate_file("error_log");
	/* Nothing may be left behind. */
	if (!file_empty(tpath("dynamic_events")) || !file_empty(tpath("kprobe_events"))) {
		n_leaks++;
		example("events left after deleting all", "", 0, 0);
	}
	for (i = 0; i < n; i++) {
		struct stat st;

		snprintf(p, sizeof(p), "%s/events/%s/%s", tracefs, evs[i].group,
			 evs[i].name);
		if (!stat(p, &st)) {
			n_leaks++;
			example("event directory left behind", p, strlen(p), 0);
		}
	}
	if (final && !file_empty("/sys/kernel/debug/kprobes/list")) {
		n_leaks++;
		example("kprobes/list not empty at the end", "", 0, 0);
	}
	free(evs);
	truncate_file("trace");
}

int main(int argc, char **argv)
{
	unsigned long seed = 1, lines = 100000, cycle_every = 1000;
	struct buf b;
	int fd_k, fd_d, opt, fail;

	while ((opt = getopt(argc, argv, "s:n:c:t:x:v")) != -1) {
		switch (opt) {
		case 's': seed = strtoul(optarg, NULL, 0); break;
		case 'n': lines = strtoul(optarg, NULL, 0); break;
		case 'c': cycle_every = strtoul(optarg, NULL, 0); break;
		case 't': tracefs = optarg; break;
		case 'x': excluded_type = optarg; break;
		case 'v': verbose = 1; break;
		default:
			fprintf(stderr, "usage: kprobe_fuzz [-s SEED] [-n LINES] [-c CYCLE] [-t TRACEFS] [-x TYPE] [-v]\n");
			return 2;
		}
	}
	if (!cycle_every)
		cycle_every = lines + 1;
	rng_state = seed * 0x9E3779B97F4A7C15ULL + 1;
	load_kallsyms();
	printf("kprobe_fuzz: seed=%lu lines=%lu cycle=%lu kallsyms=%u excluded_type=%s\n",
	       seed, lines, cycle_every, nr_ksyms, excluded_type ? : "none");
	fflush(stdout);

	truncate_file("kprobe_events");
	truncate_file("dynamic_events");
	truncate_file("error_log");
	fd_k = open_append("kprobe_events");
	fd_d = open_append("dynamic_events");

	for (n_lines = 0; n_lines < lines; n_lines++) {
		int dyn = rn(2), err = 0;
		ssize_t w;

		b.n = 0;
		if (chance(4)) {
			/* a deletion, of a likely or an unlikely event */
			bput(&b, "-:%s/e%u", PICK(groups), rn(200));
		} else {
			gen_valid(&b, dyn);
			if (chance(75))
				mutate(&b);
			if (chance(10))
				mutate(&b);
		}
		if (b.n >= KERNEL_LINE_MAX)
			n_too_long++;
		/* Never a '#' (comment) or a NUL; they cut the line short. */
		for (size_t i = 0; i < b.n; i++)
			if (b.s[i] == '#' || b.s[i] == '\0' || b.s[i] == '\n')
				b.s[i] = '_';
		b.s[b.n] = '\n';
		if (verbose)
			fprintf(stderr, "%lu %s: %.*s\n", n_lines, dyn ? "dyn" : "kpe",
				(int)b.n, b.s);
		w = write(dyn ? fd_d : fd_k, b.s, b.n + 1);
		if (w < 0)
			err = errno;
		(dyn ? &n_dynamic_events : &n_kprobe_events)[0]++;
		if (err) {
			n_rejected++;
			n_errno[err & 255]++;
		} else {
			n_accepted++;
		}
		check_line(b.s, b.n, dyn, err);
		if ((n_lines + 1) % cycle_every == 0)
			cycle(0);
	}
	close(fd_k);
	close(fd_d);
	cycle(1);

	fail = n_unlogged_bad || n_log_on_accept || n_enable_failed ||
	       n_delete_failed || n_leaks;
	printf("# errno of rejected lines:");
	for (int i = 0; i < 256; i++)
		if (n_errno[i])
			printf(" %s=%lu", strerrorname_np(i) ? strerrorname_np(i) : "?", n_errno[i]);
	printf("\n");
	printf("kprobe_fuzz: %s seed=%lu lines=%lu kprobe_events=%lu dynamic_events=%lu accepted=%lu rejected=%lu logged=%lu unlogged_by_design=%lu unlogged_too_many_args=%lu unlogged_bad=%lu multi_log=%lu log_on_accept=%lu cmd_differs=%lu too_long=%lu cycles=%lu events=%lu enabled=%lu enable_failed=%lu deleted_one_by_one=%lu delete_failed=%lu leaks=%lu\n",
	       fail ? "FAIL" : "PASS", seed, n_lines, n_kprobe_events,
	       n_dynamic_events, n_accepted, n_rejected, n_logged, n_unlogged_ok,
	       n_unlogged_e2big, n_unlogged_bad, n_multi_log, n_log_on_accept, n_cmd_mismatch,
	       n_too_long, n_cycles, n_events_seen, n_enabled, n_enable_failed,
	       n_deleted_one, n_delete_failed, n_leaks);
	return fail ? 1 : 0;
}
