#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Reliability checks (make check): the kprobes torture module, the
# kprobe_events fuzzer and who may define probes.  Results in
# /results/reliability.tap, details in /results/reliability.log.
#
# Kernel command line knobs (defaults for make check in brackets):
#   probes.torture_secs=N   strict torture run, seconds [40]
#   probes.torture_lax_secs=N  run while kprobes/enabled flips [15]
#   probes.torture_seed=N   [0: the module picks and prints one]
#   probes.torture_race_us=N  a third, strict run in which every
#                           hit waits N us between the core choosing a
#                           probe and calling its handler [100; 0: no
#                           such run; needs CONFIG_KPROBES_RACE_WINDOW]
#   probes.torture_race_secs=N  its length [20]
#   probes.torture_module_probes=MASK  probes kprobes_torture puts into
#                           the target module that comes and goes [0xf]:
#                           bit 0 is the (ftrace-based) kprobe on its entry
#   probes.fuzz_lines=N     lines the fuzzer writes [2000]
#   probes.fuzz_seed=N      [1]
#   probes.fuzz_cycle=N     enable/workload/delete every N lines [500]
#   probes.fuzz_exclude=TYPE  a fetch type the fuzzer leaves out [none]:
#                           symstr was left out while the base's
#                           trace_probe_tmpl.h wrote it with sprint_symbol()
#                           straight into the event, whatever was reserved
#                           (RELIABILITY.md, finding 3); ours bounds it
. /opt/probes/lib.sh

torture_secs=40 torture_lax_secs=15 torture_seed=0 torture_module_probes=0xf
torture_race_us=100 torture_race_secs=20
fuzz_lines=2000 fuzz_seed=1 fuzz_cycle=500 fuzz_exclude=none
for arg in $(cat /proc/cmdline); do
	case $arg in
	probes.torture_secs=*) torture_secs=${arg#*=} ;;
	probes.torture_lax_secs=*) torture_lax_secs=${arg#*=} ;;
	probes.torture_seed=*) torture_seed=${arg#*=} ;;
	probes.torture_race_us=*) torture_race_us=${arg#*=} ;;
	probes.torture_race_secs=*) torture_race_secs=${arg#*=} ;;
	probes.torture_module_probes=*) torture_module_probes=${arg#*=} ;;
	probes.fuzz_lines=*) fuzz_lines=${arg#*=} ;;
	probes.fuzz_seed=*) fuzz_seed=${arg#*=} ;;
	probes.fuzz_cycle=*) fuzz_cycle=${arg#*=} ;;
	probes.fuzz_exclude=*) fuzz_exclude=${arg#*=} ;;
	esac
done

LOG=/results/reliability.log
: > $LOG
log() { echo "$*" | tee -a $LOG; }
tap_begin /results/reliability.tap

KPLIST=/sys/kernel/debug/kprobes/list
KPENABLED=/sys/kernel/debug/kprobes/enabled
OPTSYSCTL=/proc/sys/debug/kprobes-optimization
BIN=/opt/probes/bin

# Pages of kprobe instruction slots and of detour buffers are kallsyms
# entries of the [__builtin__kprobes] pseudo module, one per page, named
# kprobe_insn_page and kprobe_optinsn_page.
slot_pages() { grep -cE " $1[[:space:]]+\[__builtin__kprobes\]" /proc/kallsyms; }

trace_reset
insn_before=$(slot_pages kprobe_insn_page)
opt_before=$(slot_pages kprobe_optinsn_page)
log "reliability: start, kprobes/list has $(wc -l < $KPLIST) lines, slot pages $insn_before + $opt_before"

# --- 0. probes in a module that goes away ----------------------------

# kprobes_gone_test probes kprobes_torture_target; each step is checked
# in the kernel (see kernel/kprobes/tests/kprobes_gone_test.c), the [GONE]
# marks in kprobes/list here.
GONE_STEP=/sys/module/kprobes_gone_test/parameters/step
gone_step() {
	echo "$1" > $GONE_STEP 2>/dev/null && return 0
	dmesg | grep "kprobes_gone_test: $1: " | tail -1 | sed 's/^\[[^]]*\] //'
	return 1
}
module_gone_check() {
	local n
	modprobe kprobes_torture_target || { echo "cannot load kprobes_torture_target"; return 1; }
	modprobe kprobes_gone_test || { echo "cannot load kprobes_gone_test"; return 1; }
	gone_step refusals || return 1
	gone_step arm || return 1
	n=$(grep -E '  kprobes_torture_target ' $KPLIST | grep -vc GONE)
	[ "$n" = 3 ] || { echo "$n live lines for the target module in kprobes/list, not 3"; return 1; }
	rmmod kprobes_torture_target || { echo "cannot unload kprobes_torture_target"; return 1; }
	n=$(grep -c '\[GONE\]' $KPLIST)
	[ "$n" = 3 ] || { echo "$n [GONE] lines in kprobes/list, not 3"; return 1; }
	gone_step gone || return 1
	modprobe kprobes_torture_target || { echo "cannot reload kprobes_torture_target"; return 1; }
	gone_step reloaded || return 1
	n=$(grep -c '\[GONE\]' $KPLIST)
	[ "$n" = 3 ] || { echo "$n [GONE] lines after the reload, not 3"; return 1; }
	gone_step rearm || return 1
	n=$(grep -E '  kprobes_torture_target ' $KPLIST | grep -vc GONE)
	[ "$n" = 3 ] || { echo "$n live lines after re-registering, not 3"; return 1; }
	! grep -q GONE $KPLIST || { echo "[GONE] lines left after re-registering"; return 1; }
	rmmod kprobes_gone_test || { echo "cannot unload kprobes_gone_test"; return 1; }
	[ -s $KPLIST ] && { echo "kprobes/list not empty after unloading"; return 1; }
	return 0
}
if ! have_module kprobes_gone_test; then
	tap_result skip "reliability:module-gone" "kprobes_gone_test not built for $(uname -m)"
elif why=$(module_gone_check); then
	tap_result ok "reliability:module-gone"
else
	tap_result fail "reliability:module-gone" "$why"
	dmesg | grep 'kprobes_gone_test' | tail -10 | sed 's/^/#   /' >> "$TAP_FILE"
	sed 's/^/#   /' $KPLIST | head -10 >> "$TAP_FILE"
fi
log "module-gone: $(dmesg | grep -c 'kprobes_gone_test: .*: ok') steps ok"
rmmod kprobes_gone_test 2>/dev/null
rmmod kprobes_torture_target 2>/dev/null

# --- 1. torture -------------------------------------------------------

# torture NAME SECS STRICT FLIPPER [RACE_US]: run the module for SECS
# seconds while FLIPPER (a function) churns in the background; the
# verdict line is the module's own.
torture() {
	local name=$1 secs=$2 strict=$3 flipper=$4 race=${5:-0} fpid verdict i t0
	if ! have_module kprobes_torture; then
		tap_result skip "reliability:$name" "kprobes_torture not built for $(uname -m)"
		return
	fi
	if ! modprobe kprobes_torture duration="$secs" strict="$strict" seed="$torture_seed" \
		module_probes="$torture_module_probes" race_window_us="$race"; then
		tap_result fail "reliability:$name" "modprobe kprobes_torture failed"
		return
	fi
	$flipper &
	fpid=$!
	t0=$(date +%s)
	# Give it the run time plus generous slack for TCG.
	for i in $(seq 1 $((secs * 4 + 600))); do
		[ "$(cat /sys/module/kprobes_torture/parameters/done)" = Y ] && break
		sleep 1
	done
	kill $fpid 2>/dev/null
	wait $fpid 2>/dev/null
	verdict=$(dmesg | grep -E 'kprobes_torture: (PASS|FAIL)' | tail -1 | sed 's/^\[[^]]*\] //')
	log "$name: $verdict"
	log "$name: ${secs}s asked, $(($(date +%s) - t0))s from load to done"
	log "$name: $(cat /tmp/flipper.count 2>/dev/null)"
	rmmod kprobes_torture || log "$name: rmmod kprobes_torture failed"
	rmmod kprobes_torture_target 2>/dev/null
	case $verdict in
	"kprobes_torture: PASS "*) tap_result ok "reliability:$name" ;;
	"kprobes_torture: FAIL "*) tap_result fail "reliability:$name" "$(echo "$verdict" | cut -c1-200)"
		dmesg | grep 'kprobes_torture' | tail -20 | sed 's/^/#   /' >> "$TAP_FILE" ;;
	*) tap_result fail "reliability:$name" "no verdict (module did not finish)" ;;
	esac
}

# The flippers' tallies.  They are killed at any moment: write a new
# file and rename it, so that a kill never leaves a truncated tally.
count() {
	echo "$*" > /tmp/flipper.count.new && mv -f /tmp/flipper.count.new /tmp/flipper.count
}

# Strict run: the target module comes and goes, optimization flips.
flip_module_and_optimizer() {
	local n=0 loads=0 opt=1
	while :; do
		if modprobe kprobes_torture_target; then
			loads=$((loads + 1))
			sleep 0.2
			rmmod kprobes_torture_target
		fi
		if [ -w $OPTSYSCTL ] && [ $((n % 3)) = 0 ]; then
			opt=$((1 - opt))
			echo $opt > $OPTSYSCTL
		fi
		n=$((n + 1))
		count "target module loads=$loads optimizer flips=$((n / 3))"
		sleep 0.1
	done
}

# Lax run: the global kprobes switch flips too.
flip_enabled() {
	local n=0
	while :; do
		echo 0 > $KPENABLED
		sleep 0.3
		echo 1 > $KPENABLED
		n=$((n + 1))
		count "kprobes/enabled flips=$n"
		sleep 0.5
	done
}

torture torture-strict "$torture_secs" 1 flip_module_and_optimizer
[ -w $OPTSYSCTL ] && echo 1 > $OPTSYSCTL
# The module counts the loads it saw itself (its verdict line); the
# flipper's tally is the fallback.
loads=$(dmesg | grep -E 'kprobes_torture: (PASS|FAIL) .*strict=1' | tail -1 |
	sed -n 's/.* module_loads=\([0-9]*\).*/\1/p')
[ -n "$loads" ] || loads=$(sed -n 's/.*loads=\([0-9]*\).*/\1/p' /tmp/flipper.count 2>/dev/null)
if ! have_module kprobes_torture; then
	tap_result skip "reliability:torture-module-churn" "kprobes_torture not built for $(uname -m)"
elif [ "${loads:-0}" -ge 1 ]; then
	tap_result ok "reliability:torture-module-churn"
else
	tap_result fail "reliability:torture-module-churn" "target module never loaded"
fi
torture torture-enabled-switch "$torture_lax_secs" 0 flip_enabled
echo 1 > $KPENABLED
if [ "$torture_race_us" -gt 0 ]; then
	torture torture-race "$torture_race_secs" 1 \
		flip_module_and_optimizer "$torture_race_us"
	[ -w $OPTSYSCTL ] && echo 1 > $OPTSYSCTL
fi

# Everything back where it started.  A slot cache keeps its last page
# and frees released slots lazily, but never grows past a page while at
# most a page's worth of slots is in use (it sweeps before growing):
# more pages than max(before, 1) means slots leaked.
insn_after=$(slot_pages kprobe_insn_page)
opt_after=$(slot_pages kprobe_optinsn_page)
pages_ok=1
[ "$insn_after" -le "$((insn_before > 1 ? insn_before : 1))" ] || pages_ok=0
[ "$opt_after" -le "$((opt_before > 1 ? opt_before : 1))" ] || pages_ok=0
if [ -s $KPLIST ]; then
	tap_result fail "reliability:torture-clean" "kprobes/list not empty"
	sed 's/^/#   /' $KPLIST | head -20 >> "$TAP_FILE"
elif [ $pages_ok = 0 ]; then
	tap_result fail "reliability:torture-clean" "slot pages $insn_before + $opt_before -> $insn_after + $opt_after"
else
	tap_result ok "reliability:torture-clean"
fi
log "torture-clean: kprobes/list $(wc -l < $KPLIST) lines, slot pages $insn_before + $opt_before -> $insn_after + $opt_after"

# --- 2. kprobe_events fuzzer ------------------------------------------

trace_reset
xopt=
[ "$fuzz_exclude" = none ] || xopt="-x $fuzz_exclude"
t0=$(date +%s)
$BIN/kprobe_fuzz -s "$fuzz_seed" -n "$fuzz_lines" -c "$fuzz_cycle" $xopt > /tmp/fuzz.out 2>&1
rc=$?
cat /tmp/fuzz.out >> $LOG
log "fuzz: $fuzz_lines lines in $(($(date +%s) - t0))s"
verdict=$(grep -E '^kprobe_fuzz: (PASS|FAIL)' /tmp/fuzz.out | tail -1)
echo "$verdict"
case "$rc:$verdict" in
"0:kprobe_fuzz: PASS "*) tap_result ok "reliability:fuzz" ;;
*)	tap_result fail "reliability:fuzz" "exit $rc: $(echo "$verdict" | cut -c1-160)"
	grep '^#' /tmp/fuzz.out | head -12 | sed 's/^/#   /' >> "$TAP_FILE" ;;
esac
trace_reset
if [ -s $TRACING/dynamic_events ] || [ -s $KPLIST ]; then
	tap_result fail "reliability:fuzz-clean" "events or kprobes left after the fuzzer"
else
	tap_result ok "reliability:fuzz-clean"
fi

# --- 3. who may define probes -----------------------------------------

echo 2 > /proc/sys/kernel/perf_event_paranoid
$BIN/probe_access root > /tmp/access-root.out 2>&1
$BIN/probe_access nobody > /tmp/access-nobody.out 2>&1
log "access as root: $(tr '\n' ' ' < /tmp/access-root.out)"
log "access as nobody: $(tr '\n' ' ' < /tmp/access-nobody.out)"
for what in kprobe_events dynamic_events perf_kprobe; do
	r=$(grep "^$what " /tmp/access-root.out)
	n=$(grep "^$what " /tmp/access-nobody.out)
	# root shows that the attempt itself is well formed
	if [ "$r" = "$what allowed" ]; then
		tap_result ok "reliability:access-root-$what"
	else
		tap_result fail "reliability:access-root-$what" "${r:-no result}"
	fi
	case $n in
	"$what denied EACCES"|"$what denied EPERM") tap_result ok "reliability:access-nobody-$what" ;;
	*) tap_result fail "reliability:access-nobody-$what" "${n:-no result}" ;;
	esac
done
for f in kprobe_events dynamic_events error_log; do
	mode=$(stat -c '%u %a' $TRACING/$f)
	case $mode in
	"0 "*[0145]) tap_result ok "reliability:mode-$f" ;;
	*) tap_result fail "reliability:mode-$f" "owner and mode $mode" ;;
	esac
done
trace_reset
tap_end
