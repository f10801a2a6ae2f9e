# SPDX-License-Identifier: GPL-2.0
# Helpers shared by the guest scripts.  Results go to /results as TAP
# files, one per suite; the host merges them into build/results/<arch>.tap.

TRACING=/sys/kernel/tracing

# tap_begin FILE: start a TAP file.  tap_end closes it with its plan
# ("1..N"): the host (report.sh) fails a file without one, or with fewer
# or more results than it says, so a script that stopped half way cannot
# pass for one that ran everything.
tap_begin() {
	TAP_FILE=$1
	TAP_N=0
	echo "TAP version 13" > "$TAP_FILE"
}

tap_end() {
	echo "1..$TAP_N" >> "$TAP_FILE"
}

# tap_result ok|fail|skip NAME [REASON]: for ok, REASON is a comment
# (what was measured), never a directive.
tap_result() {
	TAP_N=$((TAP_N + 1))
	case $1 in
	ok)   echo "ok $TAP_N $2${3:+ # $3}" >> "$TAP_FILE" ;;
	skip) echo "ok $TAP_N $2 # SKIP ${3:-}" >> "$TAP_FILE" ;;
	*)    echo "not ok $TAP_N $2${3:+ # $3}" >> "$TAP_FILE" ;;
	esac
	echo "probes: $1 $2 ${3:-}"
}

# have_module NAME: the module was built for this kernel (a test module
# whose Kconfig symbol this architecture cannot have is reported as
# skipped, never as passed).
have_module() { modinfo "$1" > /dev/null 2>&1; }

# Reset tracing to a clean state between checks.
trace_reset() {
	echo 0 > $TRACING/tracing_on
	echo 0 > $TRACING/events/enable 2>/dev/null
	echo > $TRACING/dynamic_events 2>/dev/null
	echo > $TRACING/kprobe_events 2>/dev/null
	echo > $TRACING/trace
	echo 1 > $TRACING/tracing_on
}

# A little work that crosses fork, exec and the VFS.
workload() {
	local i
	for i in 1 2 3 4 5; do
		/bin/busybox true
		cat /proc/version > /dev/null
		ls / > /dev/null
		echo x > /tmp/probes-workload && rm -f /tmp/probes-workload
	done
}

# stall_dump WHAT: what the kernel was doing when a test stopped making
# progress, on the console (the host keeps the console log and report.sh
# prints the start of this dump): every task that is running or in
# uninterruptible sleep with its kernel stack, the probes and ftrace
# state, and, where the kernel has SysRq, every CPU's backtrace and the
# blocked tasks.
stall_dump() {
	local d st
	echo "probes: STALL $1"
	for d in /proc/[0-9]*; do
		st=$(sed -n 's/^State:[[:space:]]*\([A-Z]\).*/\1/p' "$d/status" 2>/dev/null)
		case $st in R|D) ;; *) continue ;; esac
		echo "probes: STALL task ${d#/proc/} $(cat "$d/comm" 2>/dev/null) state $st wchan $(cat "$d/wchan" 2>/dev/null)"
		sed 's/^/probes: STALL   /' "$d/stack" 2>/dev/null
	done
	sed 's/^/probes: STALL kprobes: /' /sys/kernel/debug/kprobes/list 2>/dev/null | head -40
	sed 's/^/probes: STALL dynamic_events: /' $TRACING/dynamic_events 2>/dev/null | head -20
	echo "probes: STALL enabled_functions: $(wc -l < $TRACING/enabled_functions 2>/dev/null)"
	if [ -w /proc/sysrq-trigger ]; then
		echo l > /proc/sysrq-trigger
		echo w > /proc/sysrq-trigger
	fi
	echo "probes: STALL end"
}

# run_ftracetest: the unmodified ftracetest cases the host listed in
# /results/ftrace-cases.txt (one a line, relative to the ftracetest
# directory), KTAP to /results/ftrace.ktap, logs to /results/ftrace-logs.
#
# A watchdog follows it: when no case has finished for FTRACE_STALL
# seconds (the slowest case takes well under a minute under TCG), it
# names the case in /results/ftrace-stalled.txt, dumps the kernel's state
# (stall_dump) and kills ftracetest, so that a hang costs one failed case
# and a diagnosis instead of the whole guest run.
FTRACE_STALL=${FTRACE_STALL:-300}
run_ftracetest() {
	local pid cases size last=-1 quiet=0 done_n case_name

	[ -s /results/ftrace-cases.txt ] || return 0
	cd /opt/ftrace || return 0
	cases=$(wc -l < /results/ftrace-cases.txt)
	echo "probes: ftracetest, $cases cases"
	rm -f /results/ftrace-stalled.txt
	# shellcheck disable=SC2046 # one case a line, no spaces
	setsid ./ftracetest -K -vv -l /tmp/ftrace-logs $(cat /results/ftrace-cases.txt) \
		> /results/ftrace.ktap 2> /results/ftrace.stderr &
	pid=$!
	while kill -0 $pid 2>/dev/null; do
		sleep 5
		size=$(wc -c < /results/ftrace.ktap)
		if [ "$size" != "$last" ]; then
			last=$size quiet=0
			continue
		fi
		quiet=$((quiet + 5))
		[ $quiet -ge "$FTRACE_STALL" ] || continue
		done_n=$(grep -cE '^(not )?ok ' /results/ftrace.ktap)
		case_name=$(sed -n "$((done_n + 1))p" /results/ftrace-cases.txt)
		echo "${case_name:-?} $quiet" > /results/ftrace-stalled.txt
		stall_dump "ftracetest: no case finished for ${quiet}s, in ${case_name:-?}"
		kill -9 -- -$pid 2>/dev/null
		break
	done
	if [ -s /results/ftrace-stalled.txt ]; then
		# A task stuck in the kernel does not die; do not wait for it.
		sleep 5
		kill -0 $pid 2>/dev/null && echo "probes: ftracetest did not die"
	else
		wait $pid
		echo "probes: ftracetest exit $?"
	fi
	cp -a /tmp/ftrace-logs /results/ftrace-logs 2>/dev/null
	cd /
	trace_reset
}
