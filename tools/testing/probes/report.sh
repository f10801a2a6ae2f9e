#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Merge what a guest run left in RESULTS_DIR, plus the console LOG, into
# one TAP file, print the failures and end with the count line.
#
#   report.sh ARCH RESULTS_DIR LOG TAP_OUT MODE
#
# Anything missing is a failure: a KUnit suite that did not report, fewer
# ftracetest results than cases, a TAP document (KUnit suite, ftracetest,
# samples, our selftests and engine, reliability, lockdown, clients)
# without its plan or with fewer results than its plan says, a guest
# that never reached the end of its script.  So is any oops, BUG,
# WARNING, lockdep, KASAN, KFENCE, UBSAN, RCU or sleep-in-atomic report
# on the console (splat.sh).  A "not ok" is a skip only with a real SKIP
# directive.  The guest:* and console:* results (the guest completed with
# its CPUs, no splat on a console) test no probe code: they are counted
# on a line of their own, "harness: N ok, N failed", not in the final
# count line, and one that failed still fails the run.  In MODE clients
# (make check-clients) a skipped ftracetest case fails (BTF is on
# there), the failing checks' guest output is kept in a directory named
# like TAP_OUT beside LOG, and the clients' versions are printed once.
# With REPORT_DEBUG=1 (make check DEBUG=1) the debug facilities must have
# been on.  Exit status 1 if anything failed.
set -uo pipefail

arch=$1 res=$2 log=$3 tap=$4 mode=$5
case $arch in
arm64) default_suites="kprobes_test fprobe_test kprobes_arm64 kprobes_core rethook jprobes fprobe_core kprobe_events" ;;
*)     default_suites="kprobes_test fprobe_test kprobes_x86 kprobes_core rethook jprobes fprobe_core kprobes_opt kprobe_events" ;;
esac
kunit_suites=${KUNIT_SUITES:-$default_suites}
body=$(mktemp)
trap 'rm -f "$body"' EXIT

pass=0 fail=0 skip=0 n=0
# Results that test no probe code (guest:*: the guest ran to the end with
# its CPUs; console:*: no splat on a console) are counted apart: they are
# not in the final count line, but one that failed still fails the run.
hpass=0 hfail=0
emit() { # ok|fail|skip NAME [REASON] (for ok, a comment that is kept)
	n=$((n + 1))
	case $1:$2 in
	ok:guest:*|ok:console:*) hpass=$((hpass + 1)) ;;
	*:guest:*|*:console:*) hfail=$((hfail + 1)) ;;
	esac
	case $1 in
	ok)   echo "ok $n $2${3:+ # $3}" >> "$body"
	      case $2 in guest:*|console:*) ;; *) pass=$((pass + 1)) ;; esac ;;
	skip) echo "ok $n $2 # SKIP${3:+ $3}" >> "$body"; skip=$((skip + 1)) ;;
	*)    echo "not ok $n $2${3:+ # $3}" >> "$body"
	      case $2 in guest:*|console:*) ;; *) fail=$((fail + 1)) ;; esac
	      echo "FAIL: $2${3:+ ($3)}" ;;
	esac
}

# merge_tap GROUP PREFIX FILE [INDENT]: take the result lines of a TAP or
# KTAP file at one nesting level (INDENT: its leading spaces) as
# PREFIX<name>, and hold each document in it to its plan.  A "TAP
# version" or "KTAP version" line at that level starts a document (a file
# may hold several, one after the other); its plan "1..N", before or
# after its results, must be there and match the number of results, or
# GROUP:all-reported fails: a suite that stopped half way must not pass
# for one that ran everything.  A result is a skip only with a SKIP
# directive, the first word after the first "#" (KTAP: the description
# cannot hold a "#"); ftracetest's XFAIL counts as a skip too.  Any other
# "not ok" is a failure, whatever its comment says.  MERGE_SKIP_FAILS=1:
# a skip fails (make check-clients: those cases must run).
# Sets tap_results to the number of results merged.  TAP_NAME names the
# file in messages (default: its name).
merge_tap() {
	local group=$1 prefix=$2 file=$3 indent=${4:-} line rest re name dir word
	local doc=0 got=0 plan=
	re='^(not )?ok [0-9]+( (.*))?$'
	tap_results=0
	while IFS= read -r line || [ -n "$line" ]; do
		line=${line%$'\r'}
		[ "${line:0:${#indent}}" = "$indent" ] || continue
		rest=${line:${#indent}}
		case $rest in
		" "*|"") continue ;;
		"TAP version "*|"KTAP version "*)
			[ $doc = 0 ] || tap_plan_check "$group" "$file" $doc $got "$plan"
			doc=$((doc + 1)) got=0 plan=
			continue ;;
		esac
		if [[ $rest =~ ^1\.\.([0-9]+)([[:space:]]|$) ]]; then
			[ $doc != 0 ] || doc=1
			if [ -n "$plan" ]; then
				emit fail "$group:all-reported" "${TAP_NAME:-${file##*/}}: document $doc has two plans"
			fi
			plan=${BASH_REMATCH[1]}
			continue
		fi
		[[ $rest =~ $re ]] || continue
		[ $doc != 0 ] || doc=1
		got=$((got + 1))
		tap_results=$((tap_results + 1))
		rest=${BASH_REMATCH[3]}
		name=${rest%%#*}
		name=${name%"${name##*[![:space:]]}"}
		dir=
		case $rest in *"#"*) dir=${rest#*#} ;; esac
		dir=${dir#"${dir%%[![:space:]]*}"}
		word=${dir%%[[:space:]]*}
		case ${word^^} in
		SKIP|XFAIL)
			if [ -n "${MERGE_SKIP_FAILS:-}" ]; then
				emit fail "$prefix$name" "did not run: $dir"
			else
				dir=${dir#"$word"}
				emit skip "$prefix$name" "${dir#"${dir%%[![:space:]]*}"}"
			fi ;;
		*)
			if [ "${line:${#indent}:3}" = "ok " ]; then
				emit ok "$prefix$name" "$dir"
			else
				emit fail "$prefix$name" "$dir"
			fi ;;
		esac
	done < "$file"
	if [ $doc = 0 ]; then
		emit fail "$group:all-reported" "${TAP_NAME:-${file##*/}}: no results and no plan"
	else
		tap_plan_check "$group" "$file" $doc $got "$plan"
	fi
}

# tap_plan_check GROUP FILE DOC GOT PLAN: one document's results against
# its plan.
tap_plan_check() {
	local what=${TAP_NAME:-${2##*/}}
	[ "$3" = 1 ] || what="$what, document $3"
	if [ -z "$5" ]; then
		emit fail "$1:all-reported" "$what: $4 results and no plan (1..N): stopped early?"
	elif [ "$4" != "$5" ]; then
		emit fail "$1:all-reported" "$what: $4 results for a plan of 1..$5"
	fi
}

# The ftracetest cases the guest listed in ftrace-cases.txt, each reported
# once: merge ftrace.ktap and check that none is missing.
merge_ftrace() {
	local expect f=$res/ftrace.ktap got

	expect=$(cat "$res/ftrace-cases.txt" 2>/dev/null | wc -l)
	[ "$expect" != 0 ] || return 0
	if [ ! -s "$f" ]; then
		emit fail "ftrace" "no ftracetest results"
		return 0
	fi
	merge_tap ftrace "ftrace:" "$f"
	got=$tap_results
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

# Our selftests (tools/testing/selftests/probes/run.sh) write two
# documents into selftests.tap, one after the other: ftracetest's over
# our *.tc cases (selftests:*, plan first) and the fetch engine's
# (engine:*, plan last).  Each must be there and complete.
merge_selftests() {
	local f=$res/selftests.tap d p st=0 en=0 tc=0 tree
	tree=$(dirname "$0")/../selftests/probes
	[ -n "$(find "$tree" -name '*.tc' 2>/dev/null | head -1)" ] && tc=1
	d=$(mktemp -d)
	[ -s "$f" ] && awk -v d="$d" '/^K?TAP version / { n++ } { print > (d "/" n + 0) }' "$f"
	for p in $(ls "$d" | sort -n); do
		if grep -qE '^(not )?ok [0-9]+ engine:' "$d/$p"; then
			TAP_NAME="selftests.tap, engine part" merge_tap engine "" "$d/$p"
			en=$((en + 1))
		elif grep -qE '^((not )?ok [0-9]+ |1\.\.)' "$d/$p"; then
			TAP_NAME="selftests.tap, ftracetest part" merge_tap selftests "" "$d/$p"
			st=$((st + 1))
		fi
	done
	rm -rf "$d"
	[ -s "$f" ] || f="no selftests.tap: the selftests did not run"
	[ $st != 0 ] || [ $tc = 0 ] ||
		emit fail "selftests:all-reported" "${f#$res/}: no ftracetest results for our *.tc cases"
	[ $en != 0 ] || [ ! -x "$tree/engine/run.sh" ] ||
		emit fail "engine:all-reported" "${f#$res/}: no engine results"
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
		before=$fail
		merge_tap "kunit:$s" "kunit:$s:" "$f" "    "
		[ "$tap_results" -gt 0 ] || emit fail "kunit:$s" "no test cases in results"
		# The suite's own verdict, one level up: "not ok" with no
		# failed case (its init or exit failed) is a failure too.
		if grep -qE "^not ok [0-9]+ $s *(\$|#)" "$f" &&
		   ! grep -qiE "^not ok [0-9]+ $s *# *SKIP( |\$)" "$f" && [ $fail = "$before" ]; then
			emit fail "kunit:$s" "the suite reported not ok with no case failed"
		fi
	done

	# ftracetest: every listed case must report; known base bugs skip.
	merge_ftrace
	if [ -s "$res/ftrace-skips.txt" ]; then
		while read -r c reason; do
			emit skip "ftrace:$c" "$reason"
		done < "$res/ftrace-skips.txt"
	fi

	# Each guest script closes its file with its plan (guest/lib.sh:
	# tap_end); lockdown.sh writes one for its two boots, bootconfig.sh
	# one for its boot.
	for t in samples selftests reliability lockdown bootconfig; do
		if [ "$t" = lockdown ] && [ "${LOCKDOWN_SKIP:-}" = 1 ]; then
			emit skip "lockdown:all" "LOCKDOWN_SKIP=1 (make check KCSAN=1)"
		elif [ "$t" = selftests ]; then
			merge_selftests
		elif [ -s "$res/$t.tap" ]; then
			merge_tap "$t" "" "$res/$t.tap"
		else
			emit fail "$t:all-reported" "no $t results: the checks did not run"
		fi
	done
fi

if [ "$mode" = clients ]; then
	sed 's/^/  VERSION  /' "$res/clients-versions.txt" 2>/dev/null ||
		echo "  VERSION  (the guest reported no client versions)"
	MERGE_SKIP_FAILS=1 merge_ftrace
	# GROUP|TAP|DONE|WHAT: a part of the clients' run, its TAP file, the
	# console line "probes: DONE done" its end prints, and its name.
	while IFS='|' read -r group file done what; do
		if [ -s "$res/$file" ]; then
			merge_tap "$group" "" "$res/$file"
		else
			emit fail "$group" "the $what did not run"
		fi
		grep -q "probes: $done done" "$log" ||
			emit fail "$group:all-checks-ran" "the guest did not reach the end of the $what"
	done <<-EOF
		clients|clients.tap|clients checks|client checks
		bpf|bpf-selftests.tap|bpf selftests|BPF selftests
	EOF
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
	# A time-out: what each vCPU was doing (qemu.sh, vcpu-dump.sh), the
	# PC and the newest kernel text on its stack.
	if [ -s "$log.vcpus" ]; then
		awk '/^# .*UTC/ || /^jiffies =/ { print; next }
		     /^=== vCPU/ { n = 0; print; next }
		     /^(rip|pc) / { print "  " $1 " " $NF; next }
		     /^    \[sp/ && n++ < 12 { print }
		     /^# after the dump/ { print }' "$log.vcpus" |
			cut -c1-160 | sed 's/^/  VCPU     /'
		echo "  VCPU     (all of it: ${log#$PWD/}.vcpus)"
	fi
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

# Timers as Debian has them (RELIABILITY.md, harness finding 9): every
# CPU in high resolution mode, or hrtimer-driven tests (perf's sampling)
# run on the 4 ms tick.
if [ "$mode" = check ]; then
	hres=$(grep -m1 -a 'probes: timers:' "$log" | tr -d '\r')
	if [[ $hres =~ timers:\ ([0-9]+)\ of\ ([0-9]+)\ CPUs ]] &&
	   [ "${BASH_REMATCH[1]}" = "${BASH_REMATCH[2]}" ]; then
		emit ok "guest:hres-timers"
	else
		emit fail "guest:hres-timers" "${hres:-no timer line on the console}"
	fi
fi

# KCSAN=1: the reports that name a function of ours fail the run
# (kcsan:no-race-in-probes); the rest of the kernel's are listed in
# RESULTS_DIR/kcsan-reports.txt and left out of the splat check below.
splat_log=$log
if [ "$mode" = check ] && [ "${REPORT_KCSAN:-}" = 1 ]; then
	. "$(dirname "$0")/kcsan.sh"
	kcsan_our_functions "$REPORT_OUT" "$REPORT_MANIFEST" > "$res/kcsan-ours.txt"
	kcsan_split "$log" "$res/kcsan-ours.txt" "$res/console-kcsan-filtered.log" \
		"$res/kcsan-reports.txt"
	splat_log=$res/console-kcsan-filtered.log
	nours=$(grep -c '^ours: ' "$res/kcsan-reports.txt")
	nother=$(grep -c '^other: ' "$res/kcsan-reports.txt")
	echo "  KCSAN    $nours reports in the probe subsystem, $nother elsewhere ($(wc -l < "$res/kcsan-ours.txt") functions of ours)"
	if ! grep -q 'kcsan: enabled early' "$log"; then
		emit fail "guest:kcsan-on" "no KCSAN banner on the console"
	else
		emit ok "guest:kcsan-on"
	fi
	if [ "$nours" = 0 ]; then
		emit ok "kcsan:no-race-in-probes"
	else
		emit fail "kcsan:no-race-in-probes" "$nours: $(grep -m1 '^ours: ' "$res/kcsan-reports.txt" | cut -c7-120)"
		grep '^ours: ' "$res/kcsan-reports.txt" | sort | uniq -c | sed 's/^/#   /' >> "$body"
	fi
fi

# Nothing on the console that a kernel developer would call a splat.
. "$(dirname "$0")/splat.sh"
splat=$SPLAT_RE
if grep -qE "$splat" "$splat_log"; then
	emit fail "console:no-kernel-splat" "$(grep -m1 -E "$splat" "$splat_log" | tr -d '\r' | cut -c1-120)"
	grep -m3 -B2 -A25 -E "$splat" "$splat_log" | sed 's/^/#   /' >> "$body"
	# The first one, for whoever only sees this output (CI): the
	# registers and the call trace say where it was.
	grep -m1 -B4 -A40 -E "$splat" "$splat_log" | tr -d '\r' | cut -c1-160 |
		sed 's/^/  SPLAT    /'
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
	echo "# harness: $hpass ok, $hfail failed (guest:*, console:*; not in the count line)"
	echo "1..$n"
	cat "$body"
} > "$tap"
echo "  TAP      ${tap#$PWD/}"
echo "  QEMU     $(cat "$res/qemu.txt" 2>/dev/null || echo '?')"
echo "harness: $hpass ok, $hfail failed"
echo "$pass passed, $fail failed, $skip skipped"
[ $fail = 0 ] && [ $hfail = 0 ]
