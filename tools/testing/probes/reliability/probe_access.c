// SPDX-License-Identifier: GPL-2.0
/*
 * probe_access: who may define probes?
 *
 *   probe_access root|nobody [TRACEFS]
 *
 * "nobody" drops to uid/gid 65534 with no supplementary groups (and so
 * no capabilities) first.  Then it tries, printing one line each:
 *
 *   kprobe_events   open for append and write a kprobe definition
 *   dynamic_events  the same on dynamic_events
 *   perf_kprobe     perf_event_open() on the kprobe PMU (type from
 *                   /sys/bus/event_source/devices/kprobe/type) at vfs_read
 *
 * as "<name> allowed" or "<name> denied <ERRNO-NAME>".  The caller
 * decides what is expected (root: allowed, which shows the attempts are
 * well formed; nobody: denied with EACCES or EPERM).  A kprobe event it
 * did create is deleted again.  Exit status 0 unless it could not run.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static const char *tracefs = "/sys/kernel/tracing";

static void report(const char *what, int err)
{
	if (!err)
		printf("%s allowed\n", what);
	else
		printf("%s denied %s\n", what, strerrorname_np(err) ? : "?");
}

static int try_write(const char *file, const char *line)
{
	char path[256];
	int fd, err = 0;

	snprintf(path, sizeof(path), "%s/%s", tracefs, file);
	fd = open(path, O_WRONLY | O_APPEND);
	if (fd < 0)
		return errno;
	if (write(fd, line, strlen(line)) < 0)
		err = errno;
	close(fd);
	return err;
}

/* The kprobe PMU's type, read before dropping privileges; -1 if none. */
static int kprobe_pmu_type(void)
{
	char buf[32];
	int fd, n;

	fd = open("/sys/bus/event_source/devices/kprobe/type", O_RDONLY);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	return atoi(buf);
}

static int try_perf_kprobe(int type)
{
	struct perf_event_attr attr;
	int fd;

	if (type < 0)
		return -1;
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = type;
	attr.config1 = (uint64_t)(uintptr_t)"vfs_read";	/* kprobe_func */
	attr.config2 = 0;					/* probe_offset */
	attr.sample_period = 1;
	attr.disabled = 1;
	fd = syscall(__NR_perf_event_open, &attr, 0, -1, -1, 0);
	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	int err, type = kprobe_pmu_type();

	if (argc < 2) {
		fprintf(stderr, "usage: probe_access root|nobody [TRACEFS]\n");
		return 2;
	}
	if (argc > 2)
		tracefs = argv[2];
	if (!strcmp(argv[1], "nobody")) {
		if (setgroups(0, NULL) || setgid(65534) || setuid(65534)) {
			perror("probe_access: dropping to nobody");
			return 2;
		}
	}
	printf("uid=%d euid=%d\n", getuid(), geteuid());

	err = try_write("kprobe_events", "p:pa_test/pa_kp vfs_read\n");
	report("kprobe_events", err);
	if (!err)
		try_write("kprobe_events", "-:pa_test/pa_kp\n");

	err = try_write("dynamic_events", "p:pa_test/pa_dyn vfs_read\n");
	report("dynamic_events", err);
	if (!err)
		try_write("dynamic_events", "-:pa_test/pa_dyn\n");

	err = try_perf_kprobe(type);
	if (err < 0) {
		printf("perf_kprobe unavailable\n");
		return 0;
	}
	report("perf_kprobe", err);
	return 0;
}
