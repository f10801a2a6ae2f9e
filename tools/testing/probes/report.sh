#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Merge what a guest run left in RESULTS_DIR, plus the console LOG, into
# one TAP file, print the failures and end with the count line.
#
#   report.sh ARCH RESULTS_DIR LOG TAP_OUT MODE
#
# Anything missing is a failure: a KUnit suite that did not report, fewer
# ftracetest results than cases, a guest that never reached the end of
# its script.  In MODE clients (make check-clients) a skipped ftracetest
# case fails (BTF is on there), the failing checks' guest output is kept
# in a directory named like TAP_OUT beside LOG, and the clients' versions
# are printed once.  So is any oops, BUG, WARNING, lockdep, KASAN, KFENCE, UBSAN,
# RCU or sleep-in-atomic report on the console (splat.sh).  With
# REPORT_DEBUG=1 (make check DEBUG=1) the debug facilities must have been
# on.  Exit status 1 if anything failed.
set -uo pipefail

arch=$1 res=$2 log=$3 tap=$4 mode=$5
case $arch in
arm64) default_suites="kprobes_test fprobe_test kprobes_arm64 kprobes_core rethook jprobes fprobe_core" ;;
*)     default_suites="kprobes_test fprobe_test kprobes_x86 kprobes_core rethook jprobes fprobe_core kprobes_opt" ;;
esac
kunit_suites=${KUNIT_SUITES:-$default_suites}
body=$(mktemp)
trap 'rm -f "$body"' EXIT

pass=0 fail=0 skip=0 n=0
emit() { # ok|fail|skip NAME [REASON]
	n=$((n + 1))
	case $1 in
	ok)   echo "ok $n $2" >> "$body"; pass=$((pass + 1)) ;;
	skip) echo "ok $n $2 # SKIP ${3:-}" >> "$body"; skip=$((skip + 1)) ;;
	*)    echo "not ok $n $2${3:+ # $3}" >> "$body"; fail=$((fail + 1))
	      echo "FAIL: $2${3:+ ($3)}" ;;
	esac
}

# merge_tap PREFIX FILE [DEPTH_INDENT]: take the result lines of a TAP/KTAP
# file at one nesting level (leading spaces), directives included.
merge_tap() {
	local prefix=$1 file=$2 indent=${3:-} line rest name
	while IFS= read -r line; do
		case $line in
		"${indent}ok "*|"${indent}not ok "*) ;;
		*) continue ;;
		esac
		rest=${line#"$indent"}
		[ "${rest:0:1}" = " " ] && continue
		name=$(echo "$rest" | sed -E 's/^(not )?ok [0-9]+ //; s/ *#.*$//')
		if echo "$rest" | grep -qiE '# *(SKIP|XFAIL)' && [ -n "${MERGE_SKIP_FAILS:-}" ]; then
			emit fail "$prefix$name" "did not run: $(echo "$rest" | sed -E 's/.*# *//')"
		elif echo "$rest" | grep -qiE '# *(SKIP|XFAIL)'; then
			emit skip "$prefix$name" "$(echo "$rest" | sed -E 's/.*# *//')"
		elif [ "${rest:0:3}" = "ok " ]; then
			emit ok "$prefix$name"
		else
			emit fail "$prefix$name" "$(echo "$rest" | sed -nE 's/.*# *//p')"
		fi
	done < "$file"
}

# The ftracetest cases the guest listed in ftrace-cases.txt, each reported
# once: merge ftrace.ktap and check that none is missing.
merge_ftrace() {
	local expect f=$res/ftrace.ktap before got

	expect=$(cat "$res/ftrace-cases.txt" 2>/dev/null | wc -l)
	[ "$expect" != 0 ] || return 0
	if [ ! -s "$f" ]; then
		emit fail "ftrace" "no ftracetest results"
		return 0
	fi
	before=$n
	merge_tap "ftrace:" "$f"
	got=$((n - before))
	[ "$got" = "$expect" ] ||
		emit fail "ftrace:all-cases-reported" "$got of $expect cases reported"
	# The guest's watchdog gave up on a case that stopped making progress:
	# name it, and show what the kernel was doing (lib.sh: stall_dump).
	if [ -s "$res/ftrace-stalled.txt" ]; then
		read -r c secs < "$res/ftrace-stalled.txt"
		emit fail "ftrace:$c" "hung: no progress for ${secs}s, killed"
		stall_digest
	fi
}

# stall_digest: the start of the guest's stall dump (tasks that were
# running or blocked, with their kernel stacks), on stdout and in the TAP.
stall_digest() {
	local d
	d=$(grep -a 'probes: STALL' "$log" | tr -d '\r' | sed 's/^.*probes: STALL/STALL/' |
		head -"${STALL_LINES:-60}")
	[ -n "$d" ] || return 0
	echo "$d" | sed 's/^/#   /' >> "$body"
	echo "$d" | sed 's/^/  /'
}

if [ "$mode" = check ]; then
	# KUnit: one file per suite, cases one level in.
	for s in $kunit_suites; do
		f=$res/kunit/$s.ktap
		if [ ! -s "$f" ]; then
			emit fail "kunit:$s" "suite did not report"
			continue
		fi
		before=$n
		merge_tap "kunit:$s:" "$f" "    "
		[ $n -gt $before ] || emit fail "kunit:$s" "no test cases in results"
	done

	# ftracetest: every listed case must report; known base bugs skip.
	merge_ftrace
	if [ -s "$res/ftrace-skips.txt" ]; then
		while read -r c reason; do
			emit skip "ftrace:$c" "$reason"
		done < "$res/ftrace-skips.txt"
	fi

	for t in samples selftests reliability lockdown; do
		[ -f "$res/$t.tap" ] && merge_tap "" "$res/$t.tap"
	done
	[ -f "$res/samples.tap" ] || emit fail "samples" "sample checks did not run"
	[ -s "$res/reliability.tap" ] || emit fail "reliability" "reliability checks did not run"
	[ -s "$res/lockdown.tap" ] || emit fail "lockdown" "lockdown boots did not run"
fi

if [ "$mode" = clients ]; then
	sed 's/^/  VERSION  /' "$res/clients-versions.txt" 2>/dev/null ||
		echo "  VERSION  (the guest reported no client versions)"
	MERGE_SKIP_FAILS=1 merge_ftrace
	if [ -s "$res/clients.tap" ]; then
		merge_tap "" "$res/clients.tap"
	else
		emit fail "clients" "the client checks did not run"
	fi
	grep -q 'probes: clients checks done' "$log" ||
		emit fail "clients:all-checks-ran" "the guest did not reach the end of the checks"
	# What the failing checks printed, for people.
	keep=$(dirname "$log")/$(basename "$tap" .tap)
	rm -rf "$keep"
	grep '^not ok ' "$res/clients.tap" 2>/dev/null | sed -E 's/^not ok [0-9]+ //; s/ *#.*$//' |
	while read -r c; do
		mkdir -p "$keep"
		cp "$res/clients-logs/$c.log" "$keep/$c.log" 2>/dev/null &&
			echo "  LOG      $c: ${keep#$PWD/}/$c.log"
	done
fi

# The guest ran its script to the end.
if grep -q "probes: $mode done" "$log"; then
	emit ok "guest:$mode-completed"
else
	emit fail "guest:$mode-completed" "guest did not finish (crash, hang or time-out; see ${log#$PWD/})"
	# Where it stopped, for whoever only sees this output (CI).
	tail -n "${CONSOLE_LINES:-25}" "$log" | tr -d '\r' | cut -c1-160 | sed 's/^/  CONSOLE  /'
fi

# The concurrency tests need a second CPU: the guest must have come up
# with all the harness gave it (qemu.sh: SMP, default 2).
if [ "$mode" = check ]; then
	cpus=$(sed -n 's/.* smp=\([0-9]*\).*/\1/p' "$res/qemu.txt" 2>/dev/null)
	cpus=${cpus:-2}
	if grep -qE "smp: Brought up [0-9]+ nodes?, $cpus CPUs" "$log"; then
		emit ok "guest:all-cpus"
	else
		emit fail "guest:all-cpus" "not $cpus CPUs: $(grep -m1 -E 'smp: Brought up' "$log" | tr -d '\r')"
	fi
fi

# Nothing on the console that a kernel developer would call a splat.
. "$(dirname "$0")/splat.sh"
splat=$SPLAT_RE
if grep -qE "$splat" "$log"; then
	emit fail "console:no-kernel-splat" "$(grep -m1 -E "$splat" "$log" | tr -d '\r' | cut -c1-120)"
	grep -m3 -B2 -A25 -E "$splat" "$log" | sed 's/^/#   /' >> "$body"
else
	emit ok "console:no-kernel-splat"
fi

# DEBUG=1: the debug facilities were really on, and lockdep still was at
# the end (it turns itself off after its first report or when a table
# overflows, and the rest of the run would go unchecked).
if [ "$mode" = check ] && [ "${REPORT_DEBUG:-}" = 1 ]; then
	if grep -q 'KernelAddressSanitizer initialized' "$log"; then
		emit ok "guest:debug-kasan-on"
	else
		emit fail "guest:debug-kasan-on" "no KASAN banner on the console"
	fi
	if grep -q 'kfence: initialized' "$log"; then
		emit ok "guest:debug-kfence-on"
	else
		emit fail "guest:debug-kfence-on" "no KFENCE banner on the console"
	fi
	dl=$(sed -n 's/^ *debug_locks: *//p' "$res/lockdep_stats.txt" 2>/dev/null)
	if [ "$dl" = 1 ]; then
		emit ok "guest:debug-lockdep-on-at-end"
	else
		emit fail "guest:debug-lockdep-on-at-end" "debug_locks=${dl:-?} in /proc/lockdep_stats at the end"
	fi
fi

mkdir -p "$(dirname "$tap")"
{
	echo "TAP version 13"
	echo "# probes $mode, $arch, kernel $(cat "$res/kernel-release" 2>/dev/null || echo '?')"
	# How the guest ran (qemu.sh): QEMU version, accelerator and TCG
	# threading, vCPUs.
	echo "# qemu: $(cat "$res/qemu.txt" 2>/dev/null || echo '?')"
	echo "1..$n"
	cat "$body"
} > "$tap"
echo "  TAP      ${tap#$PWD/}"
echo "  QEMU     $(cat "$res/qemu.txt" 2>/dev/null || echo '?')"
echo "$pass passed, $fail failed, $skip skipped"
[ $fail = 0 ]
