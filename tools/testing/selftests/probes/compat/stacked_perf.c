// SPDX-License-Identifier: GPL-2.0
/*
 * The perf side of stacked return probes: open each named return event
 * of tracefs as a perf tracepoint event on this task with raw samples,
 * do one read(2), and print the caller each event's record names in
 * __probe_ret_ip:
 *
 *   stacked_perf GROUP/EVENT...  ->  "EVENT: __probe_ret_ip in SYMBOL"
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
#include <sys/mman.h>
#include <sys/syscall.h>
#include <linux/perf_event.h>

#define EVENTS		"/sys/kernel/tracing/events/"
#define MAX_EVENTS	8
#define DATA_PAGES	8

static void fail(const char *what)
{
	printf("FAIL: %s (errno %d: %s)\n", what, errno, strerror(errno));
	exit(1);
}

/* The number after "key" in the first line of @path that has it. */
static long field_of(const char *path, const char *key)
{
	char line[512], *p;
	FILE *f = fopen(path, "r");
	long v = -1;

	if (!f)
		fail(path);
	while (fgets(line, sizeof(line), f)) {
		p = strstr(line, key);
		if (p) {
			v = strtol(p + strlen(key), NULL, 0);
			break;
		}
	}
	fclose(f);
	return v;
}

/* The text symbol @ip is in, from /proc/kallsyms. */
static void symbol_of(unsigned long long ip, char *name, size_t size)
{
	unsigned long long addr, best = 0;
	char line[512], sym[256], type;
	FILE *f = fopen("/proc/kallsyms", "r");

	if (!f)
		fail("open /proc/kallsyms");
	snprintf(name, size, "?");
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %255s", &addr, &type, sym) != 3)
			continue;
		if (type != 't' && type != 'T')
			continue;
		if (addr <= ip && addr > best) {
			best = addr;
			snprintf(name, size, "%s", sym);
		}
	}
	fclose(f);
}

int main(int argc, char *argv[])
{
	struct perf_event_mmap_page *pg[MAX_EVENTS];
	long pagesz = sysconf(_SC_PAGESIZE), off[MAX_EVENTS];
	int fd[MAX_EVENTS], n = argc - 1, i, rfd;
	char path[512], buf[64], sym[256];

	setvbuf(stdout, NULL, _IONBF, 0);
	if (n < 1 || n > MAX_EVENTS) {
		fprintf(stderr, "usage: %s GROUP/EVENT...\n", argv[0]);
		return 2;
	}
	for (i = 0; i < n; i++) {
		struct perf_event_attr a;

		memset(&a, 0, sizeof(a));
		a.size = sizeof(a);
		a.type = PERF_TYPE_TRACEPOINT;
		snprintf(path, sizeof(path), EVENTS "%s/id", argv[i + 1]);
		a.config = field_of(path, "");
		snprintf(path, sizeof(path), EVENTS "%s/format", argv[i + 1]);
		off[i] = field_of(path, "__probe_ret_ip;\toffset:");
		if (off[i] < 0)
			fail("no __probe_ret_ip in the format");
		a.sample_type = PERF_SAMPLE_RAW;
		a.sample_period = 1;
		a.disabled = 1;
		fd[i] = syscall(__NR_perf_event_open, &a, 0, -1, -1, 0);
		if (fd[i] < 0)
			fail(argv[i + 1]);
		pg[i] = mmap(NULL, (1 + DATA_PAGES) * pagesz,
			     PROT_READ | PROT_WRITE, MAP_SHARED, fd[i], 0);
		if (pg[i] == MAP_FAILED)
			fail("mmap");
	}

	rfd = open("/proc/version", O_RDONLY);
	if (rfd < 0)
		fail("open /proc/version");
	for (i = 0; i < n; i++)
		if (ioctl(fd[i], PERF_EVENT_IOC_ENABLE, 0))
			fail("enable");
	if (read(rfd, buf, sizeof(buf)) <= 0)
		fail("read");
	for (i = 0; i < n; i++)
		if (ioctl(fd[i], PERF_EVENT_IOC_DISABLE, 0))
			fail("disable");
	close(rfd);

	/* The first PERF_RECORD_SAMPLE of each: header, u32 size, raw data */
	for (i = 0; i < n; i++) {
		char *data = (char *)pg[i] + pg[i]->data_offset;
		uint64_t head = __atomic_load_n(&pg[i]->data_head,
						__ATOMIC_ACQUIRE);
		uint64_t pos = 0;
		unsigned long long ip = 0;
		const char *ev = strrchr(argv[i + 1], '/');

		while (pos < head) {
			struct perf_event_header *h = (void *)(data + pos);

			if (h->type == PERF_RECORD_SAMPLE) {
				char *raw = (char *)(h + 1) + sizeof(uint32_t);

				memcpy(&ip, raw + off[i], sizeof(ip));
				break;
			}
			pos += h->size;
		}
		if (!ip) {
			printf("%s: no sample\n", ev ? ev + 1 : argv[i + 1]);
			continue;
		}
		symbol_of(ip, sym, sizeof(sym));
		printf("%s: __probe_ret_ip in %s\n", ev ? ev + 1 : argv[i + 1],
		       sym);
	}
	return 0;
}
