#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# What users' scripts see, compared with Linux 6.12 (issue 27); TAP on
# stdout (called by ../run.sh).  Definitions are written to kprobe_events
# and dynamic_events as a user would, and a transcript is made of what
# comes back: whether the write was refused and with which errno, the
# error_log (message, command, caret), listings and trace lines.
#
#  compat:same-as-base   the cases where we match the base.  Expected
#                        text: expected/same-as-base.txt, recorded by this
#                        script on the base tree's own implementation
#                        (Debian 6.12, booted with the harness and the same
#                        config), so it is the base's behaviour.
#  compat:differences    the deliberate differences ("Differences from
#                        Linux 6.12" in Documentation/trace/kprobetrace.rst
#                        and fprobetrace.rst).  Expected text:
#                        expected/differences.txt, ours.  What the base
#                        gives for the very same script is kept, for
#                        reference only, in expected/differences.base.txt.
#
# A transcript that is missing or differs is written to
# /results/selftests-record/ and the case fails.  Lines of an expected
# file that start with "## " are notes, left out of the comparison.
# Addresses, sizes and offsets that depend on the build are replaced by
# names.  x86_64 only: the landing pad (ENDBR) cases need IBT.
HERE=$(dirname "$(realpath "$0")")
T=/sys/kernel/tracing
N=0
RECORD=/results/selftests-record

result() { # ok|fail|skip NAME [REASON]
	N=$((N + 1))
	case $1 in
	ok)	echo "ok $N $2" ;;
	skip)	echo "ok $N $2 # SKIP $3" ;;
	*)	echo "not ok $N $2${3:+ # $3}" ;;
	esac
}

reset_probes() {
	echo 0 > $T/events/enable
	echo > $T/dynamic_events
	echo > $T/kprobe_events 2>/dev/null
	echo > $T/trace
}

SUBST=()
# sanitize: build-dependent addresses by name
sanitize() {
	local s
	s=$(cat)
	[ -n "$s" ] || return 0
	for ((i = 0; i < ${#SUBST[@]}; i += 2)); do
		s=${s//"${SUBST[i]}"/"${SUBST[i + 1]}"}
	done
	printf '%s\n' "$s"
}

# run FILE COMMAND: write COMMAND to FILE as a user would; the outcome
# (the errno text the shell printed) and error_log
run() {
	local file=$1 cmd=$2 err

	echo > $T/error_log
	echo "> $file: $cmd" | sanitize
	if err=$({ echo "$cmd" >> $T/$file; } 2>&1); then
		echo "  accepted"
	else
		echo "  refused: ${err##*write error: }"
	fi
	sed -E 's/^\[[ 0-9.]+\] /  /' $T/error_log | sanitize
}

# (an address probe is listed with its hashed address, new every boot)
# The fetch programs CONFIG_PROBE_EVENTS_DUMP_FETCHARG adds as '#' lines
# are not a listing the base has (kprobe_events_fetch_dump.tc checks them).
listing() { # FILE
	echo "== $1"
	sed -E '/^#/d; s/^/  /; s/ 0x[0-9a-f]{16}/ <hashed address>/' $T/$1 | sanitize
}

# The events' trace lines of task PID: "event: (where)" without the
# task, CPU, flags and time, without function sizes and without the
# offset in the caller of a return (they depend on the build).
trace_of() { # PID
	sed -nE "s/^ *[^ ]+-$1 +.* ([A-Za-z0-9_]+: \(.*)$/\1/p" $T/trace |
		sed -E 's/\/0x[0-9a-f]+//g; s/\+0x[0-9a-f]+ <-/ <-/g; s/^/  /'
}

# read(2)s of a small file by a new task (a subshell: busybox cat may
# use sendfile): vfs_read() called by ksys_read().
read_once() {
	(read -r _ < /proc/version) &
	PID=$!
	wait $PID
}

# which of the tprobes tp_a and tp_b recorded something
fired() {
	local f

	f=$(grep -o ' tp_[ab]: ' $T/trace | sort -u | tr -d ' \n')
	echo "== fired: ${f:-none}"
}

addr_of() { # SYMBOL: its address in /proc/kallsyms, 0x-prefixed
	awk -v s="$1" '$3 == s { print "0x" $1; exit }' /proc/kallsyms
}

# ---------------------------------------------------------------------
# Where we match the base.

same_as_base() {
	local vr a1

	reset_probes
	vr=$(addr_of vfs_read)
	a1=$(printf '0x%x' $((vr + 1)))
	SUBST=("$a1" "<vfs_read+1>")

	echo "# 1. Probe offsets inside the ENDBR at a function's start"
	run kprobe_events 'p:kprobes/ev_p1 vfs_read+1'
	run kprobe_events 'p:kprobes/ev_p2 vfs_read+2'
	run kprobe_events 'p:kprobes/ev_p3 vfs_read+3'
	run dynamic_events 'p:kprobes/ev_d2 vfs_read+2'
	run kprobe_events 'r:kprobes/ev_r1 vfs_read+1'
	run kprobe_events 'r:kprobes/ev_r3 vfs_read+3'
	run kprobe_events "p:kprobes/ev_a1 $a1"
	echo "# +0 and +4 are the entry, after the ENDBR"
	run kprobe_events 'p:kprobes/ev_p0 vfs_read+0'
	run kprobe_events 'p:kprobes/ev_p4 vfs_read+4'
	run kprobe_events 'r:kprobes/ev_r4 vfs_read+4'
	listing kprobe_events
	echo 1 > $T/events/kprobes/enable
	read_once
	echo 0 > $T/events/kprobes/enable
	echo "== trace"
	trace_of $PID | sort -u
	reset_probes
}

# ---------------------------------------------------------------------
# The deliberate differences.

differences() {
	local mf ma

	reset_probes
	echo "# 2. A raw address in no kernel text"
	run kprobe_events 'p:kprobes/ev_bad 0xffffffffdeadbeef'
	run dynamic_events 'r:kprobes/ev_badr 0xffffffffdeadbeef'
	echo "# an address in a loaded module is accepted, and stays with it"
	rmmod trace-printk 2>/dev/null
	mf=none
	if modprobe trace-printk; then
		mf=trace_printk_irq_work
		ma=$(addr_of $mf)
	fi
	SUBST=("$ma" "<$mf>")
	run kprobe_events "p:kprobes/ev_modaddr $ma"
	listing kprobe_events
	echo 1 > $T/events/kprobes/ev_modaddr/enable
	rmmod trace-printk
	echo "# after the module went"
	listing kprobe_events
	echo "# and came back (its init calls $mf once)"
	modprobe trace-printk
	echo "== hits: $(awk '$1 == "ev_modaddr" { print $2 }' $T/kprobe_profile)"
	echo 0 > $T/events/kprobes/ev_modaddr/enable
	rmmod trace-printk
	run kprobe_events '-:kprobes/ev_modaddr'
	listing kprobe_events
	SUBST=()

	echo "# 3. Unknown function or module, or an offset"
	run dynamic_events 'f:fprobes/f_nofunc no_such_function_here'
	run dynamic_events 'f:fprobes/f_nofuncr no_such_function_here%return'
	run dynamic_events 'f:fprobes/f_nomod no_such_module:vfs_read'
	run dynamic_events 'f:fprobes/f_offs vfs_read+4'
	run dynamic_events 'f:fprobes/f_offsr vfs_read+4%return'
	run kprobe_events 'p:kprobes/k_nofunc no_such_function_here'
	run dynamic_events 'r:kprobes/k_nofuncr no_such_function_here'
	echo "# (a kprobe on a module that is not loaded waits for it)"
	run kprobe_events 'p:kprobes/k_nomod no_such_module:vfs_read'
	listing dynamic_events
	reset_probes

	echo "# 4. Several tprobes on one tracepoint"
	run dynamic_events 't:tprobes/tp_a sched_process_fork'
	run dynamic_events 't:tprobes/tp_b sched_process_fork'
	listing dynamic_events
	echo 1 > $T/events/tprobes/enable
	/bin/busybox true
	fired
	echo 0 > $T/events/tprobes/tp_a/enable
	run dynamic_events '-:tprobes/tp_a'
	listing dynamic_events
	echo > $T/trace
	/bin/busybox true
	fired
	reset_probes

	echo "# 5. Several return probes on one function: the order in which"
	echo "# their handlers run, and the return address each one sees"
	run kprobe_events 'r:kprobes/ret_a vfs_read'
	run kprobe_events 'r:kprobes/ret_b vfs_read'
	run kprobe_events 'r:kprobes/ret_c vfs_read'
	echo 1 > $T/events/kprobes/enable
	read_once
	echo 0 > $T/events/kprobes/enable
	echo "== trace (one read)"
	trace_of $PID | head -3
	echo "== perf (one read, raw samples)"
	"$HERE/stacked_perf" kprobes/ret_a kprobes/ret_b kprobes/ret_c 2>&1 |
		sed 's/^/  /'
	reset_probes
	run dynamic_events 'f:fprobes/fx_a vfs_read%return'
	run dynamic_events 'f:fprobes/fx_b vfs_read%return'
	echo 1 > $T/events/fprobes/enable
	read_once
	echo 0 > $T/events/fprobes/enable
	echo "== trace (one read)"
	trace_of $PID | head -2
	reset_probes
	echo "# an fprobe exit and a kretprobe on one function"
	run kprobe_events 'r:kprobes/ret_a vfs_read'
	run dynamic_events 'f:fprobes/fx_a vfs_read%return'
	echo 1 > $T/events/kprobes/enable
	echo 1 > $T/events/fprobes/enable
	read_once
	echo 0 > $T/events/enable
	# Their entries are two ftrace callbacks, run in the order ftrace
	# keeps its ops, which no script can rely on: the records sorted.
	echo "== trace (one read, sorted)"
	trace_of $PID | head -2 | sort
	reset_probes
}

# compare NAME OUTPUT EXPECTED_NAME
compare() {
	local name=$1 out=$2 exp=$HERE/expected/$3
	if [ ! -f "$exp" ]; then
		mkdir -p $RECORD && cp "$out" $RECORD/$3
		result fail "$name" "no $3 recorded; output in $RECORD"
		return
	fi
	# "## " lines of the expected file are notes (where it was recorded)
	if grep -v '^## ' "$exp" | cmp -s "$out" -; then
		result ok "$name ($(grep -c '^>' "$exp") commands)"
	else
		mkdir -p $RECORD && cp "$out" $RECORD/$3
		result fail "$name" \
			"differs: $(grep -v '^## ' "$exp" | diff - "$out" |
				    grep -m1 '^[<>]')"
	fi
}

echo "TAP version 13"
if [ "$(uname -m)" != x86_64 ]; then
	result skip same-as-base "x86_64 only (ENDBR)"
	result skip differences "x86_64 only"
else
	same_as_base > /tmp/compat-same.out 2>&1
	compare same-as-base /tmp/compat-same.out same-as-base.txt
	differences > /tmp/compat-diff.out 2>&1
	compare differences /tmp/compat-diff.out differences.txt
fi
echo "1..$N"
echo "# compat selftests done"
