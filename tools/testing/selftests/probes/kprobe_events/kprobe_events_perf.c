// SPDX-License-Identifier: GPL-2.0
/*
 * perf_event_open() on the "kprobe" PMU, as perf and bpftrace use it;
 * the kernel side is create_local_trace_kprobe().  One line per check;
 * exit status 1 at the first failed check.
 *
 * Built static by the harness (tools/testing/probes/mkinitramfs.sh).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <linux/perf_event.h>

#define PMU_DIR		"/sys/bus/event_source/devices/kprobe"
#define KPROBE_EVENTS	"/sys/kernel/tracing/kprobe_events"
#define NREADS		8

static int pmu_type, retprobe_bit;

static void fail(const char *what)
{
	printf("FAIL: %s (errno %d: %s)\n", what, errno, strerror(errno));
	exit(1);
}

static int read_first_line(const char *path, char *buf, int size)
{
	FILE *f = fopen(path, "r");
	int ok;

	if (!f)
		return -1;
	ok = fgets(buf, size, f) != NULL;
	fclose(f);
	return ok ? 0 : -1;
}

static unsigned long long ksym_addr(const char *name)
{
	unsigned long long addr, found = 0;
	char line[512], type, sym[256];
	FILE *f = fopen("/proc/kallsyms", "r");

	if (!f)
		fail("open /proc/kallsyms");
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %255s", &addr, &type, sym) == 3 &&
		    !strcmp(sym, name) && (type == 't' || type == 'T')) {
			found = addr;
			break;
		}
	}
	fclose(f);
	return found;
}

static int ksym_count(const char *name)
{
	char line[512], sym[256], type;
	unsigned long long addr;
	FILE *f = fopen("/proc/kallsyms", "r");
	int n = 0;

	if (!f)
		fail("open /proc/kallsyms");
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %c %255s", &addr, &type, sym) == 3 &&
		    !strcmp(sym, name))
			n++;
	fclose(f);
	return n;
}

/* func NULL: probe addr (offs unused).  Returns the fd or -1 with errno. */
static int open_kprobe(const char *func, unsigned long long addr,
		       unsigned long long offs, int ret)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = pmu_type;
	a.config = ret ? 1ULL << retprobe_bit : 0;
	/* kprobe_addr and probe_offset share config2 */
	if (func) {
		a.kprobe_func = (uint64_t)(uintptr_t)func;
		a.probe_offset = offs;
	} else {
		a.kprobe_addr = addr;
	}
	a.disabled = 1;
	/* this task, any CPU */
	return syscall(__NR_perf_event_open, &a, 0, -1, -1, 0);
}

/* Count the hits of @fd over NREADS read()s; every read() calls vfs_read. */
static unsigned long long count_reads(int fd)
{
	unsigned long long count;
	char buf[64];
	int i, f;

	f = open("/proc/self/stat", O_RDONLY);
	if (f < 0)
		fail("open /proc/self/stat");
	if (ioctl(fd, PERF_EVENT_IOC_RESET, 0) || ioctl(fd, PERF_EVENT_IOC_ENABLE, 0))
		fail("enable");
	for (i = 0; i < NREADS; i++)
		if (pread(f, buf, sizeof(buf), 0) < 0)
			fail("pread");
	if (ioctl(fd, PERF_EVENT_IOC_DISABLE, 0))
		fail("disable");
	close(f);
	if (read(fd, &count, sizeof(count)) != sizeof(count))
		fail("read count");
	return count;
}

static void expect_hits(const char *what, int fd)
{
	unsigned long long n;
	char line[256];

	if (fd < 0)
		fail(what);
	/* a local probe is not a kprobe_events entry */
	if (!read_first_line(KPROBE_EVENTS, line, sizeof(line))) {
		printf("FAIL: %s: listed in kprobe_events: %s", what, line);
		exit(1);
	}
	n = count_reads(fd);
	if (n < NREADS) {
		printf("FAIL: %s: %llu hits for %d reads\n", what, n, NREADS);
		exit(1);
	}
	close(fd);
	printf("ok: %s: %llu hits\n", what, n);
}

static void expect_error(const char *what, int fd, int err)
{
	if (fd >= 0 || errno != err) {
		printf("FAIL: %s: fd %d errno %d, expected errno %d\n",
		       what, fd, fd >= 0 ? 0 : errno, err);
		exit(1);
	}
	printf("ok: %s: errno %d\n", what, err);
}

int main(void)
{
	unsigned long long addr;
	char buf[64];

	setvbuf(stdout, NULL, _IONBF, 0);
	if (read_first_line(PMU_DIR "/type", buf, sizeof(buf)))
		fail("no kprobe PMU");
	pmu_type = atoi(buf);
	if (read_first_line(PMU_DIR "/format/retprobe", buf, sizeof(buf)) ||
	    sscanf(buf, "config:%d", &retprobe_bit) != 1)
		fail("no retprobe format");

	expect_hits("kprobe on vfs_read", open_kprobe("vfs_read", 0, 0, 0));
	expect_hits("kretprobe on vfs_read", open_kprobe("vfs_read", 0, 0, 1));

	addr = ksym_addr("vfs_read");
	if (!addr)
		fail("no address for vfs_read");
	expect_hits("kprobe on the address of vfs_read",
		    open_kprobe(NULL, addr, 0, 0));

	expect_error("unknown symbol",
		     open_kprobe("no_such_function_here", 0, 0, 0), ENOENT);
	expect_error("kretprobe off the entry",
		     open_kprobe("vfs_read", 0, 10, 1), EINVAL);
	if (ksym_count("name_show") > 1)
		expect_error("non-unique symbol",
			     open_kprobe("name_show", 0, 0, 0), EADDRNOTAVAIL);
	return 0;
}
