# SPDX-License-Identifier: GPL-2.0
# Helpers shared by the guest scripts.  Results go to /results as TAP
# files, one per suite; the host merges them into build/results/<arch>.tap.

TRACING=/sys/kernel/tracing

# tap_begin FILE: start a TAP file.
tap_begin() {
	TAP_FILE=$1
	TAP_N=0
	: > "$TAP_FILE"
}

# tap_result ok|fail|skip NAME [REASON]
tap_result() {
	TAP_N=$((TAP_N + 1))
	case $1 in
	ok)   echo "ok $TAP_N $2" >> "$TAP_FILE" ;;
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

# run_ftracetest: the unmodified ftracetest cases the host listed in
# /results/ftrace-cases.txt (one a line, relative to the ftracetest
# directory), KTAP to /results/ftrace.ktap, logs to /results/ftrace-logs.
run_ftracetest() {
	[ -s /results/ftrace-cases.txt ] || return 0
	cd /opt/ftrace || return 0
	echo "probes: ftracetest, $(wc -l < /results/ftrace-cases.txt) cases"
	# shellcheck disable=SC2046 # one case a line, no spaces
	./ftracetest -K -vv -l /tmp/ftrace-logs $(cat /results/ftrace-cases.txt) \
		> /results/ftrace.ktap 2> /results/ftrace.stderr
	echo "probes: ftracetest exit $?"
	cp -a /tmp/ftrace-logs /results/ftrace-logs 2>/dev/null
	cd /
	trace_reset
}
