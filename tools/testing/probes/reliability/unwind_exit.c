// SPDX-License-Identifier: GPL-2.0
/*
 * unwind_exit: /proc/PID/stack of processes inside do_exit().
 *
 *   unwind_exit SECONDS [READERS]
 *
 * For SECONDS, fork children one after the other, each traced with
 * PTRACE_O_TRACEEXIT, so that when it calls _exit() it stops inside
 * do_exit() (PTRACE_EVENT_EXIT).  The caller has hooked do_exit()'s
 * return (a kretprobe event, an fprobe exit event): the return address
 * on the stopped child's stack is the rethook trampoline, and the
 * unwinder must find the real one (do_group_exit()) through rethook.
 * So the child's /proc/PID/stack, read while it is stopped, must name
 * do_exit() and do_group_exit() and no trampoline.  Then the child is
 * let go; READERS threads (default 2) read its /proc/PID/stack over and
 * over from its fork until it has been reaped, while it dies.
 *
 * Prints one line, "unwind_exit: PASS ..." or "unwind_exit: FAIL ...",
 * with the number of children, of checked stacks and of reads, and the
 * first wrong stack; exit status 0 on PASS.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The child the readers read (0: none). */
static atomic_int cur_pid;
static atomic_int stop_readers;
static atomic_long reads, reads_ok, reads_in_exit;

/* Read /proc/@pid/stack into @buf; returns its length, or -1. */
static ssize_t read_stack(int pid, char *buf, size_t size)
{
	char path[64];
	ssize_t n, len = 0;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stack", pid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	while (len < (ssize_t)size - 1 &&
	       (n = read(fd, buf + len, size - 1 - len)) > 0)
		len += n;
	close(fd);
	buf[len] = 0;
	return n < 0 ? -1 : len;
}

static void *reader(void *arg)
{
	static __thread char buf[8192];
	int pid;

	while (!atomic_load(&stop_readers)) {
		pid = atomic_load(&cur_pid);
		if (!pid) {
			sched_yield();
			continue;
		}
		atomic_fetch_add(&reads, 1);
		if (read_stack(pid, buf, sizeof(buf)) > 0) {
			atomic_fetch_add(&reads_ok, 1);
			if (strstr(buf, " do_exit+"))
				atomic_fetch_add(&reads_in_exit, 1);
		}
	}
	return NULL;
}

/* Wait for @pid to stop or end; returns the status, or -1. */
static int wait_for(int pid)
{
	int status;

	while (waitpid(pid, &status, __WALL) < 0)
		if (errno != EINTR)
			return -1;
	return status;
}

int main(int argc, char **argv)
{
	static char stack[8192], bad_stack[8192 + 16];
	int secs = argc > 1 ? atoi(argv[1]) : 10;
	int nreaders = argc > 2 ? atoi(argv[2]) : 2;
	long children = 0, checked = 0, bad = 0, errors = 0;
	pthread_t *threads;
	time_t end;
	int i, pid, status;

	if (secs < 1 || nreaders < 0) {
		fprintf(stderr, "usage: unwind_exit SECONDS [READERS]\n");
		return 2;
	}
	threads = calloc(nreaders, sizeof(*threads));
	for (i = 0; i < nreaders; i++)
		pthread_create(&threads[i], NULL, reader, NULL);

	end = time(NULL) + secs;
	while (time(NULL) < end && errors < 3) {
		pid = fork();
		if (pid < 0) {
			perror("fork");
			errors++;
			continue;
		}
		if (!pid) {
			if (ptrace(PTRACE_TRACEME, 0, NULL, NULL))
				_exit(1);
			raise(SIGSTOP);
			_exit(0);
		}
		children++;
		atomic_store(&cur_pid, pid);
		/* Stopped by its SIGSTOP: stop it again inside do_exit(). */
		status = wait_for(pid);
		if (status < 0 || !WIFSTOPPED(status) ||
		    ptrace(PTRACE_SETOPTIONS, pid, NULL,
			   (void *)PTRACE_O_TRACEEXIT) ||
		    ptrace(PTRACE_CONT, pid, NULL, NULL)) {
			fprintf(stderr, "child %d: cannot trace it (status %#x): %m\n",
				pid, status);
			errors++;
			kill(pid, SIGKILL);
			wait_for(pid);
			atomic_store(&cur_pid, 0);
			continue;
		}
		status = wait_for(pid);
		if (status >> 8 == (SIGTRAP | PTRACE_EVENT_EXIT << 8)) {
			unsigned long code;

			/*
			 * The stop is reported while the child may still be
			 * switching out, and the unwinder gives no stack for a
			 * task running on another CPU.  A ptrace request first
			 * waits until it is off its CPU (ptrace_check_attach(),
			 * wait_task_inactive()); /proc/PID/stack does not.
			 */
			if (ptrace(PTRACE_GETEVENTMSG, pid, NULL, &code)) {
				fprintf(stderr, "child %d: PTRACE_GETEVENTMSG: %m\n",
					pid);
				errors++;
			}
			checked++;
			if (read_stack(pid, stack, sizeof(stack)) <= 0 ||
			    !strstr(stack, " do_exit+") ||
			    !strstr(stack, " do_group_exit+") ||
			    strstr(stack, "rethook_trampoline")) {
				if (!bad++)
					snprintf(bad_stack, sizeof(bad_stack), "%s\n",
						 stack[0] ? stack : "(empty)");
			}
			ptrace(PTRACE_CONT, pid, NULL, NULL);
			status = wait_for(pid);
		}
		if (status < 0 || !WIFEXITED(status)) {
			fprintf(stderr, "child %d: did not exit (status %#x)\n",
				pid, status);
			errors++;
		}
		atomic_store(&cur_pid, 0);
	}

	atomic_store(&stop_readers, 1);
	for (i = 0; i < nreaders; i++)
		pthread_join(threads[i], NULL);
	printf("unwind_exit: %s children=%ld stopped_in_do_exit=%ld bad_stacks=%ld errors=%ld reads=%ld reads_with_a_stack=%ld reads_in_do_exit=%ld\n",
	       bad || errors || !checked ? "FAIL" : "PASS", children, checked,
	       bad, errors, atomic_load(&reads), atomic_load(&reads_ok),
	       atomic_load(&reads_in_exit));
	if (bad)
		printf("# the first wrong stack of a child stopped in do_exit():\n%s",
		       bad_stack);
	return bad || errors || !checked;
}
