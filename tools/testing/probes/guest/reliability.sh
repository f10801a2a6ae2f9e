#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Reliability checks (make check): the kprobes torture module, probes
# hit under NMIs, stack traces of tasks dying inside hooked functions,
# the kprobe_events fuzzer and who may define probes.  Results in
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
#   probes.torture_slot_preempt_us=N  in that run, a hit of one
#                           mid-function kprobe has its task preempted where
#                           it resumes (a boosted hit: in its slot) for N us,
#                           under preempt=full, while the probe's slots are
#                           released and others are registered [100000;
#                           0: not]
#   probes.torture_module_probes=MASK  probes kprobes_torture puts into
#                           the target module that comes and goes [0xf]:
#                           bit 0 is the (ftrace-based) kprobe on its entry
#   probes.nmi_secs=N       kprobes_nmi_stress: probes hit while NMIs keep
#                           arriving on every CPU, seconds [20; 0: no run]
#   probes.unwind_secs=N    kprobes_unwind_dying: stack traces of threads
#                           that exit inside kretprobed and fprobe-exit
#                           functions, seconds [20; 0: no run]
#   probes.unwind_proc_secs=N  /proc/PID/stack of processes exiting inside
#                           a kretprobe and an fprobe exit event on
#                           do_exit(), seconds [15; 0: no run]
#   probes.fuzz_lines=N     lines the fuzzer writes [2000]
#   probes.fuzz_seed=N      [1]
#   probes.fuzz_cycle=N     enable/workload/delete every N lines [500]
#   probes.fuzz_exclude=TYPE  a fetch type the fuzzer leaves out [none]:
#                           symstr was left out while the base's
#                           trace_probe_tmpl.h wrote it with sprint_symbol()
#                           straight into the event, whatever was reserved
#                           (RELIABILITY.md, finding 3); ours bounds it
#   probes.sweep_funcs=N    functions each sweep mode probes, a seeded
#                           sample of available_filter_functions [2000;
#                           0: all of them, as make check DEBUG=1 does]
#   probes.sweep_seed=N     the sample's seed (mode i takes seed + i) [1]
#   probes.sweep_batch=N    probes per register_k*probes() call [256]
#   probes.sweep_mid_every=N  mid mode: one instruction boundary in N
#                           of each function is probed [64]
#   probes.sweep_modes=LIST  kprobe,kretprobe,fprobe,mid,fexit [all five]
#   probes.sweep_step_secs=N  time-out of one step (register, workload,
#                           unregister) [900]
#   probes.sweep_exclude=F1,F2  functions left out of every mode [none]:
#                           to sweep past a known crash
. /opt/probes/lib.sh

torture_secs=40 torture_lax_secs=15 torture_seed=0 torture_module_probes=0xf
torture_race_us=100 torture_race_secs=20 torture_slot_preempt_us=100000
nmi_secs=20 unwind_secs=20 unwind_proc_secs=15
fuzz_lines=2000 fuzz_seed=1 fuzz_cycle=500 fuzz_exclude=none
sweep_funcs=2000 sweep_seed=1 sweep_batch=256 sweep_mid_every=64
sweep_modes=kprobe,kretprobe,fprobe,mid,fexit sweep_step_secs=900 sweep_exclude=
for arg in $(cat /proc/cmdline); do
	case $arg in
	probes.torture_secs=*) torture_secs=${arg#*=} ;;
	probes.torture_lax_secs=*) torture_lax_secs=${arg#*=} ;;
	probes.torture_seed=*) torture_seed=${arg#*=} ;;
	probes.torture_race_us=*) torture_race_us=${arg#*=} ;;
	probes.torture_race_secs=*) torture_race_secs=${arg#*=} ;;
	probes.torture_slot_preempt_us=*) torture_slot_preempt_us=${arg#*=} ;;
	probes.torture_module_probes=*) torture_module_probes=${arg#*=} ;;
	probes.nmi_secs=*) nmi_secs=${arg#*=} ;;
	probes.unwind_secs=*) unwind_secs=${arg#*=} ;;
	probes.unwind_proc_secs=*) unwind_proc_secs=${arg#*=} ;;
	probes.fuzz_lines=*) fuzz_lines=${arg#*=} ;;
	probes.fuzz_seed=*) fuzz_seed=${arg#*=} ;;
	probes.fuzz_cycle=*) fuzz_cycle=${arg#*=} ;;
	probes.fuzz_exclude=*) fuzz_exclude=${arg#*=} ;;
	probes.sweep_funcs=*) sweep_funcs=${arg#*=} ;;
	probes.sweep_seed=*) sweep_seed=${arg#*=} ;;
	probes.sweep_batch=*) sweep_batch=${arg#*=} ;;
	probes.sweep_mid_every=*) sweep_mid_every=${arg#*=} ;;
	probes.sweep_modes=*) sweep_modes=${arg#*=} ;;
	probes.sweep_step_secs=*) sweep_step_secs=${arg#*=} ;;
	probes.sweep_exclude=*) sweep_exclude=${arg#*=} ;;
	esac
done

LOG=/results/reliability.log
: > $LOG
log() { echo "$*" | tee -a $LOG; }
tap_begin /results/reliability.tap

# The misses no probe can be charged with (kprobes/missed, its last
# line: RCU not watching, recursion on the ftrace path), logged after
# each result they changed in.  A recursion is a probe hit from the
# ftrace path's own lookup: a bug, and this names the run it came in.
eval "$(declare -f tap_result | sed '1s/^tap_result/lib_tap_result/')"
anon_missed=$(tail -n 1 /sys/kernel/debug/kprobes/missed 2>/dev/null)
tap_result() {
	local now

	lib_tap_result "$@"
	now=$(tail -n 1 /sys/kernel/debug/kprobes/missed 2>/dev/null)
	[ "$now" = "$anon_missed" ] || log "kprobes/missed after $2: $now"
	anon_missed=$now
}

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

# torture NAME SECS STRICT FLIPPER [RACE_US [SLOT_PREEMPT_US]]: run the
# module for SECS seconds while FLIPPER (a function) churns in the
# background; the verdict line is the module's own.
torture() {
	local name=$1 secs=$2 strict=$3 flipper=$4 race=${5:-0} preempt=${6:-0}
	local fpid verdict i t0
	if ! have_module kprobes_torture; then
		tap_result skip "reliability:$name" "kprobes_torture not built for $(uname -m)"
		return
	fi
	if ! modprobe kprobes_torture duration="$secs" strict="$strict" seed="$torture_seed" \
		module_probes="$torture_module_probes" race_window_us="$race" \
		slot_preempt_us="$preempt"; then
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
# The race run preempts tasks inside boosted copies: that needs a kernel
# that preempts on the way out of an interrupt.  PREEMPT_DYNAMIC kernels
# boot voluntary here; debugfs switches them (and back afterwards).
PREEMPTCTL=/sys/kernel/debug/sched/preempt
if [ "$torture_race_us" -gt 0 ]; then
	preempt_was=
	if [ "$torture_slot_preempt_us" -gt 0 ] && [ -w $PREEMPTCTL ]; then
		preempt_was=$(sed -n 's/.*(\([a-z]*\)).*/\1/p' $PREEMPTCTL)
		echo full > $PREEMPTCTL
		log "torture-race: preemption $preempt_was -> $(cat $PREEMPTCTL)"
	fi
	torture torture-race "$torture_race_secs" 1 \
		flip_module_and_optimizer "$torture_race_us" "$torture_slot_preempt_us"
	[ -w $OPTSYSCTL ] && echo 1 > $OPTSYSCTL
	[ -n "$preempt_was" ] && echo "$preempt_was" > $PREEMPTCTL
	# The preemptions, and slots released under them, must have
	# happened, or the run tested nothing of the kind (a hit that is
	# never boosted, an interrupt that came in elsewhere, an
	# unregistration that waited for the preempted task).
	v=$(dmesg | grep -E 'kprobes_torture: (PASS|FAIL) .*race_window_us=' | tail -1)
	n=$(echo "$v" | sed -n 's/.* slot_preempts=\([0-9]*\).*/\1/p')
	r=$(echo "$v" | sed -n 's/.* slot_reuse_tries=\([0-9]*\).*/\1/p')
	if [ "$torture_slot_preempt_us" = 0 ]; then
		:
	elif [ -z "$preempt_was" ] && ! grep -qw full $PREEMPTCTL 2>/dev/null; then
		tap_result skip "reliability:torture-slot-preempt" "cannot switch to preempt=full ($PREEMPTCTL)"
	elif [ "$(nproc)" -lt 2 ]; then
		tap_result skip "reliability:torture-slot-preempt" "needs two CPUs"
	elif [ "${n:-0}" -gt 0 ] && [ "${r:-0}" -gt 0 ]; then
		tap_result ok "reliability:torture-slot-preempt"
	else
		tap_result fail "reliability:torture-slot-preempt" "${n:-0} calls preempted after their hit, ${r:-0} slots released under one"
	fi
	log "torture-slot-preempt: ${n:-no} calls preempted after their hit, ${r:-no} times its probe released under it"
fi

# Everything back where it started.  A slot cache keeps its last page;
# released slots come back after a retiring pass (a worker waits for an
# RCU and an RCU Tasks grace period), and the cache grows meanwhile, then
# gives empty pages back: once the passes are done, more pages than
# max(before, 1) means slots leaked.  Wait for them up to 30 s.
n=0
while :; do
	insn_after=$(slot_pages kprobe_insn_page)
	opt_after=$(slot_pages kprobe_optinsn_page)
	pages_ok=1
	[ "$insn_after" -le "$((insn_before > 1 ? insn_before : 1))" ] || pages_ok=0
	[ "$opt_after" -le "$((opt_before > 1 ? opt_before : 1))" ] || pages_ok=0
	[ $pages_ok = 1 ] || [ $n -ge 30 ] && break
	n=$((n + 1))
	sleep 1
done
if [ -s $KPLIST ]; then
	tap_result fail "reliability:torture-clean" "kprobes/list not empty"
	sed 's/^/#   /' $KPLIST | head -20 >> "$TAP_FILE"
elif [ $pages_ok = 0 ]; then
	tap_result fail "reliability:torture-clean" "slot pages $insn_before + $opt_before -> $insn_after + $opt_after"
else
	tap_result ok "reliability:torture-clean"
fi
log "torture-clean: kprobes/list $(wc -l < $KPLIST) lines, slot pages $insn_before + $opt_before -> $insn_after + $opt_after"

# --- 2. NMIs during hits ---------------------------------------------

# stress_module MOD SECS [PARAM=VALUE...]: load a test module that runs
# for about SECS seconds in a thread of its own, wait until its "done"
# parameter says its verdict is out, unload it, and print the verdict
# line ("MOD: PASS|FAIL|SKIP ...").  The module's other lines go to the
# log.
stress_module() {
	local mod=$1 secs=$2 i verdict t0
	shift 2
	t0=$(date +%s)
	modprobe "$mod" "$@" || { echo "$mod: modprobe failed"; return; }
	for i in $(seq 1 $((secs * 4 + 300))); do
		[ "$(cat /sys/module/"$mod"/parameters/done)" = Y ] && break
		sleep 1
	done
	dmesg | grep "$mod: " | grep -vE "$mod: (PASS|FAIL|SKIP) " |
		sed "s/^\[[^]]*\] /$mod:   /" >> $LOG
	verdict=$(dmesg | grep -E "$mod: (PASS|FAIL|SKIP) " | tail -1 | sed 's/^\[[^]]*\] //')
	rmmod "$mod" || log "$mod: rmmod failed" >&2
	log "$mod: ${secs}s asked, $(($(date +%s) - t0))s from load to unload" >&2
	echo "${verdict:-$mod: no verdict (the module did not finish)}"
}

# stress_result NAME MOD VERDICT: the TAP line for a stress module's
# verdict; a pass also needs the probes gone and no NMI that nobody
# claimed (an NMI of the module's that came too late, or one that the
# module took for its own and was not).
stress_result() {
	local name=$1 mod=$2 verdict=$3
	log "$name: $verdict"
	case $verdict in
	"$mod: PASS "*)
		if [ -s $KPLIST ]; then
			tap_result fail "reliability:$name" "kprobes/list not empty after unloading $mod"
			sed 's/^/#   /' $KPLIST | head -10 >> "$TAP_FILE"
		elif [ "$(unknown_nmis)" != "$unknown_nmis_before" ]; then
			tap_result fail "reliability:$name" "NMIs received for unknown reason: $unknown_nmis_before before, $(unknown_nmis) after"
		else
			tap_result ok "reliability:$name"
		fi ;;
	"$mod: SKIP "*)
		tap_result skip "reliability:$name" "${verdict#"$mod: SKIP "}" ;;
	*)	tap_result fail "reliability:$name" "$(echo "$verdict" | cut -c1-200)"
		dmesg | grep "$mod: " | grep -vE ': (ok|start)' | tail -20 | sed 's/^/#   /' >> "$TAP_FILE" ;;
	esac
}
unknown_nmis() { dmesg | grep -c 'NMI received for unknown reason'; }

# kprobes_nmi_stress: kprobes (ftrace path, stepped, boosted, optimized),
# kretprobes and fprobes hit on every CPU while NMIs keep arriving, some
# inside the handlers; the module's NMI handler hits the probes too.
if ! have_module kprobes_nmi_stress; then
	tap_result skip "reliability:nmi-stress" "kprobes_nmi_stress not built for $(uname -m)"
elif [ "$nmi_secs" = 0 ]; then
	tap_result skip "reliability:nmi-stress" "probes.nmi_secs=0"
else
	[ -w $OPTSYSCTL ] && echo 1 > $OPTSYSCTL
	unknown_nmis_before=$(unknown_nmis)
	stress_result nmi-stress kprobes_nmi_stress \
		"$(stress_module kprobes_nmi_stress "$nmi_secs" duration="$nmi_secs")"
fi

# --- 3. unwinding tasks that die inside hooked functions -------------

# kprobes_unwind_dying: threads exit inside a kretprobed and fprobe-exit
# function while other threads hold them and call stack_trace_save_tsk()
# on them until after the RCU callback that flushes their rethook nodes.
if ! have_module kprobes_unwind_dying; then
	tap_result skip "reliability:unwind-dying" "kprobes_unwind_dying not built for $(uname -m)"
elif [ "$unwind_secs" = 0 ]; then
	tap_result skip "reliability:unwind-dying" "probes.unwind_secs=0"
else
	unknown_nmis_before=$(unknown_nmis)
	stress_result unwind-dying kprobes_unwind_dying \
		"$(stress_module kprobes_unwind_dying "$unwind_secs" duration="$unwind_secs")"
fi

# The same from user space, through /proc/PID/stack, with do_exit()'s
# return hooked by a kretprobe event and an fprobe exit event (and its
# entry counted by a kprobe event).  unwind_exit stops processes inside
# do_exit() (ptrace's exit event), checks that their stacks name
# do_exit()'s real caller, and reads them again and again while they
# die; beside it a shell loop keeps short-lived processes coming and a
# reader loop reads every process's stack.  do_exit() never returns:
# neither return event may record anything.
#
# unwind_spawn END: fork processes that exit at once, eight at a time,
# until END (seconds since the epoch); the tally goes to
# /tmp/unwind.spawned.
unwind_spawn() {
	local n=0 i
	while [ "$(date +%s)" -lt "$1" ]; do
		for i in 1 2 3 4 5 6 7 8; do
			( exit 0 ) &
		done
		wait
		n=$((n + 8))
	done
	echo $n > /tmp/unwind.spawned
}

# unwind_read END: read the kernel stack of every process until END;
# the numbers of files read, of their lines and of lines in do_exit()
# go to /tmp/unwind.read.
unwind_read() {
	local files=0 lines=0 in_exit=0 f l
	while [ "$(date +%s)" -lt "$1" ]; do
		for f in /proc/[0-9]*/stack; do
			{
				while read -r l; do
					lines=$((lines + 1))
					case $l in *" do_exit+"*) in_exit=$((in_exit + 1)) ;; esac
				done < "$f"
			} 2> /dev/null
			files=$((files + 1))
		done
	done
	echo "$files files, $lines lines, $in_exit in do_exit()" > /tmp/unwind.read
}

unwind_proc() {
	local end entries records spawned verdict rc
	trace_reset
	{ echo 'p:unwind/exit_p do_exit' >> $TRACING/kprobe_events &&
	  echo 'r:unwind/exit_r do_exit' >> $TRACING/kprobe_events &&
	  echo 'f:unwind/exit_f do_exit%return' >> $TRACING/dynamic_events &&
	  echo 1 > $TRACING/events/unwind/exit_r/enable &&
	  echo 1 > $TRACING/events/unwind/exit_f/enable &&
	  echo 1 > $TRACING/events/unwind/exit_p/enable; } 2> /dev/null ||
		{ echo "cannot define or enable the do_exit() events"; return 1; }
	end=$(($(date +%s) + unwind_proc_secs))
	unwind_spawn $end &
	unwind_read $end &
	verdict=$($BIN/unwind_exit "$unwind_proc_secs" 2>&1)
	rc=$?
	wait
	echo 0 > $TRACING/events/unwind/enable
	entries=$(awk '$1 == "exit_p" { print $2 }' $TRACING/kprobe_profile)
	records=$(grep -c 'exit_[rf]:' $TRACING/trace)
	spawned=$(cat /tmp/unwind.spawned 2> /dev/null)
	log "unwind-dying-proc: $verdict" >&2
	log "unwind-dying-proc: ${unwind_proc_secs}s, shell: ${spawned:-0} processes, stack reads: $(cat /tmp/unwind.read 2> /dev/null); do_exit() entries ${entries:-0}, return records $records" >&2
	trace_reset
	[ $rc = 0 ] || { echo "$verdict" | head -1 | cut -c1-200; return 1; }
	[ "${spawned:-0}" -gt 0 ] || { echo "no process spawned"; return 1; }
	[ -s /tmp/unwind.read ] || { echo "the reader loop did not finish"; return 1; }
	[ "${entries:-0}" -ge "$spawned" ] ||
		{ echo "${entries:-0} do_exit() entries for $spawned processes"; return 1; }
	[ "$records" = 0 ] || { echo "$records return records of do_exit(), which never returns"; return 1; }
	return 0
}
if [ "$unwind_proc_secs" = 0 ]; then
	tap_result skip "reliability:unwind-dying-proc" "probes.unwind_proc_secs=0"
elif why=$(unwind_proc); then
	tap_result ok "reliability:unwind-dying-proc"
else
	tap_result fail "reliability:unwind-dying-proc" "$why"
	grep -A40 '^unwind-dying-proc: unwind_exit' $LOG | grep '^#\|^\[' | head -20 | sed 's/^/#   /' >> "$TAP_FILE"
fi

# --- 4. kprobe_events fuzzer ------------------------------------------

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

# --- 5. who may define probes -----------------------------------------

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

# --- 4. probe everything ------------------------------------------------

# kprobes_sweep puts, in one mode at a time, a kprobe at +0, a kretprobe,
# one fprobe, or kprobes on a sample of instruction boundaries inside
# them, on each function of available_filter_functions (a seeded sample
# of sweep_funcs functions, or all), in batches; sweep_workload then runs
# with all of them armed, and they are removed.  A mode passes when every
# site was registered or refused with an errno (kernel/kprobes/tests/
# kprobes_sweep.c), some were hit, no handler ran after the removal and
# no probe is left.  A splat fails the run (splat.sh), and so does a hang
# (a step that does not end in sweep_step_secs, or the guest's time-out).
# The fexit mode puts the fprobe (entry and exit) on every function of
# the kprobe blacklist that ftrace can trace, the probes' own hit paths,
# while kprobe events hit (finding 40): it passes when, besides the
# above, some kretprobe return was refused as out of order.
# Each mode's counts, refusals and times go to /results/sweep.log, its
# list of functions to /results/sweep-MODE.list.
SWEEPFS=/sys/kernel/debug/kprobes_sweep
SWEEPLOG=/results/sweep.log
: > $SWEEPLOG

# What the probes must survive: syscalls, the VFS on tmpfs, fork and
# exec, signals, timers, a module load and unload, and TCP and ICMP on
# the loopback device.
sweep_workload() {
	local i did=
	workload
	mkdir -p /tmp/sweep-mnt
	if mount -t tmpfs sweep /tmp/sweep-mnt; then
		dd if=/dev/zero of=/tmp/sweep-mnt/f bs=4k count=64 2>/dev/null
		cat /tmp/sweep-mnt/f > /dev/null
		sync
		umount /tmp/sweep-mnt
	fi
	cat /proc/meminfo /proc/interrupts /proc/self/maps /proc/self/status > /dev/null
	ls -l /sys/kernel/tracing /dev > /dev/null
	for i in 1 2 3; do
		sh -c 'exit 3'
		sleep 0.1 &
		kill -TERM $! 2>/dev/null
		wait 2>/dev/null
	done
	modprobe kprobes_torture_target && rmmod kprobes_torture_target && did="$did module"
	ip link set lo up 2>/dev/null
	if ip addr show lo 2>/dev/null | grep -q 127.0.0.1; then
		ping -c 2 -W 2 127.0.0.1 > /dev/null 2>&1 && did="$did icmp"
		timeout 10 nc -l -p 7777 > /tmp/sweep-nc.out 2>&1 &
		sleep 0.3
		echo sweep | timeout 10 nc 127.0.0.1 7777 2>/dev/null
		wait 2>/dev/null
		grep -q sweep /tmp/sweep-nc.out && did="$did tcp"
	fi
	sleep 0.5
	echo "fork exec vfs tmpfs signals timers$did" > /tmp/sweep-workload.txt
}

# sweep_step NAME SECS CMD...: run CMD in the background for at most SECS
# seconds; on a time-out dump the kernel's state and fail.
sweep_step() {
	local name=$1 secs=$2 pid i
	shift 2
	"$@" &
	pid=$!
	for i in $(seq 1 $((secs * 2))); do
		kill -0 $pid 2>/dev/null || break
		sleep 0.5
	done
	if kill -0 $pid 2>/dev/null; then
		stall_dump "sweep: $name did not end in ${secs}s"
		return 124
	fi
	wait $pid
}

sweep_field() { echo "$2" | tr ' ' '\n' | sed -n "s/^$1=//p"; }

# sweep_recursion: the recursions on the ftrace path counted so far
# (kprobes/missed, its last line): hits no probe is charged with.
sweep_recursion() {
	tail -n 1 /sys/kernel/debug/kprobes/missed 2>/dev/null |
		sed -n 's/.*recursion=\([0-9]*\).*/\1/p' | grep . || echo 0
}

# sweep_bad_refusals MODE: the refused sites whose errno is not one a
# probe there may be refused with.  At a function's entry (kprobe,
# kretprobe, fprobe): EINVAL for a function on the kprobe blacklist,
# ENOENT for one kallsyms does not know.  Inside a function (mid), also
# EINVAL (text that jump labels, static calls or alternatives reserve),
# EOPNOTSUPP (an instruction that cannot be stepped nor emulated) and
# EILSEQ (not an instruction boundary, or a landing pad).
sweep_bad_refusals() {
	awk -v m="$1" 'NR == FNR { bl[$2] = 1; next }
		{ f = $2; sub(/\+.*/, "", f) }
		$1 == "ENOENT" || ($1 == "EINVAL" && (f in bl)) { next }
		m == "mid" && ($1 == "EINVAL" || $1 == "EOPNOTSUPP" || $1 == "EILSEQ") { next }
		{ print $1 " " $2 }' /results/kprobes-blacklist.txt $SWEEPFS/refused
}

# sweep MODE INDEX: one mode; the TAP line's comment carries the counts.
sweep() {
	local m=$1 idx=$2 name=reliability:sweep-$1 list=/results/sweep-$1.list
	local t0 t1 t2 t3 stats why= n sites reg ref hit late left ftrace0
	local kmode=$1 ooo
	if ! have_module kprobes_sweep; then
		tap_result skip "$name" "kprobes_sweep not built for $(uname -m)"
		return
	fi
	# Kernel functions only: the workload's module comes and goes.
	echo "$sweep_exclude" | tr ',' '\n' | sed '/^$/d; s/^/ /; s/$/$/' > /tmp/sweep-exclude
	echo ' \[' >> /tmp/sweep-exclude
	if [ "$m" = fexit ]; then
		# Every blacklisted function ftrace can trace: the probes' own
		# hit paths, under fprobe exits while kprobes and kretprobes hit.
		kmode=fprobe
		awk 'NR == FNR { bl[$2] = 1; next } ($2 in bl)' \
			/results/kprobes-blacklist.txt $TRACING/available_filter_functions_addrs |
			grep -v -f /tmp/sweep-exclude > $list
	elif [ "$sweep_funcs" = 0 ]; then
		grep -v -f /tmp/sweep-exclude $TRACING/available_filter_functions_addrs > $list
	else
		grep -v -f /tmp/sweep-exclude $TRACING/available_filter_functions_addrs |
			awk -v seed=$((sweep_seed + idx)) 'BEGIN { srand(seed) } { print rand() " " $0 }' |
			sort -n | head -n "$sweep_funcs" | cut -d' ' -f2- > $list
	fi
	n=$(wc -l < $list)
	if [ "$sweep_funcs" = 0 ]; then
		log "sweep-$m: all $n functions, batch $sweep_batch, mid_every $sweep_mid_every"
	else
		log "sweep-$m: $n functions (seed $((sweep_seed + idx))), batch $sweep_batch, mid_every $sweep_mid_every"
	fi
	ftrace0=$(wc -l < $TRACING/enabled_functions)
	recursion0=$(sweep_recursion)
	t0=$(date +%s)
	if ! modprobe kprobes_sweep mode="$kmode" batch="$sweep_batch" \
		seed=$((sweep_seed + idx)) mid_every="$sweep_mid_every"; then
		tap_result fail "$name" "modprobe kprobes_sweep failed"
		return
	fi
	[ "$m" = fexit ] && sweep_fexit_probes on
	if ! cat $list > $SWEEPFS/funcs; then
		why="writing the list failed"
	elif ! sweep_step register "$sweep_step_secs" sh -c "echo register > $SWEEPFS/control"; then
		why="register failed or hung"
	fi
	t1=$(date +%s)
	log "sweep-$m: armed: $(cat $SWEEPFS/stats)"
	if [ -z "$why" ]; then
		sweep_step workload "$sweep_step_secs" sweep_workload || why="the workload hung"
		log "sweep-$m: workload: $(cat /tmp/sweep-workload.txt 2>/dev/null)"
	fi
	t2=$(date +%s)
	if ! sweep_step unregister "$sweep_step_secs" sh -c "echo unregister > $SWEEPFS/control" &&
		[ -z "$why" ]; then
		why="unregister failed or hung"
	fi
	t3=$(date +%s)
	[ "$m" = fexit ] && ooo=$(sweep_fexit_probes off)
	stats=$(cat $SWEEPFS/stats)
	{
		echo "sweep-$m: $stats"
		echo "sweep-$m: seconds: register $((t1 - t0)), workload $((t2 - t1)), unregister $((t3 - t2)), total $((t3 - t0))"
		sed "s/^/sweep-$m: refused /" $SWEEPFS/refused
		sort -rn $SWEEPFS/missed | sed "s/^/sweep-$m: missed /"
	} >> $SWEEPLOG
	log "sweep-$m: $stats"
	log "sweep-$m: $((t3 - t0))s; refusals listed in $SWEEPLOG"
	bad=$(sweep_bad_refusals $m | head -n 3 | tr '\n' ';')
	rmmod kprobes_sweep || why=${why:-"rmmod kprobes_sweep failed"}
	sites=$(sweep_field sites "$stats") reg=$(sweep_field registered "$stats")
	ref=$(sweep_field refused "$stats") hit=$(sweep_field hit "$stats")
	late=$(sweep_field late "$stats")
	left=$(($(wc -l < $KPLIST) + $(wc -l < $TRACING/enabled_functions) - ftrace0))
	recursions=$(($(sweep_recursion) - recursion0))
	if [ -n "$why" ]; then
		:
	elif [ "$(sweep_field state "$stats")" != done ]; then
		why="the sweep did not finish: $stats"
	elif [ "$(sweep_field funcs "$stats")" != "$n" ]; then
		why="$n functions listed, but the module took $(sweep_field funcs "$stats")"
	elif [ $((reg + ref)) != "$sites" ]; then
		why="$sites sites, but $reg registered and $ref refused"
	elif [ -n "$bad" ]; then
		why="refused for a reason a probe there does not have: $bad"
	elif [ "$recursions" != 0 ]; then
		why="$recursions probe hits counted as recursions on the ftrace path (kprobes/missed)"
	elif [ "$reg" = 0 ] || [ "$hit" = 0 ]; then
		why="$reg registered, $hit hit: nothing was probed"
	elif [ "$late" != 0 ]; then
		why="$late hits after the last unregistration returned"
	elif [ "$left" != 0 ]; then
		why="$left probes or ftrace sites left after rmmod"
	elif [ "$m" = fexit ] && [ "${ooo:-0}" = 0 ]; then
		why="no kretprobe return refused as out of order: the probes' paths were not under fprobe exits"
	fi
	if [ -n "$why" ]; then
		tap_result fail "$name" "$why"
		sed 's/^/#   /' $SWEEPFS/stats >> "$TAP_FILE" 2>/dev/null
		return
	fi
	tap_result ok "$name" "$n functions, $sites sites: $reg registered, $ref refused ($(sweep_field refused_by_errno "$stats")), $hit hit${ooo:+, $ooo kretprobe returns refused out of order}; $((t3 - t0))s"
}

# sweep_fexit_probes on|off: the probes that hit under the fexit mode's
# fprobe: two kretprobes and a kprobe at functions the workload calls.
# "off" removes them and prints how many returns the kretprobes had
# refused as out of order (their hooks made under an fprobe exit).
sweep_fexit_probes() {
	if [ "$1" = on ]; then
		echo 'r:sweepfx/rk vfs_read' >> $TRACING/kprobe_events
		echo 'r:sweepfx/rko do_sys_openat2' >> $TRACING/kprobe_events
		echo 'p:sweepfx/kw vfs_write' >> $TRACING/kprobe_events
		echo 1 > $TRACING/events/sweepfx/enable
		return
	fi
	echo 0 > $TRACING/events/sweepfx/enable
	awk '$2 == "r" && ($3 ~ /^vfs_read\+/ || $3 ~ /^do_sys_openat2\+/) {
		sub(/.*out_of_order=/, ""); n += $0 } END { print n + 0 }' \
		/sys/kernel/debug/kprobes/missed
	log "sweep-fexit: $(grep sweepfx $TRACING/kprobe_profile | tr -s ' ' | tr '\n' ';')" >&2
	echo '-:sweepfx/rk' >> $TRACING/kprobe_events
	echo '-:sweepfx/rko' >> $TRACING/kprobe_events
	echo '-:sweepfx/kw' >> $TRACING/kprobe_events
}

trace_reset
# What the refusals are checked against.
cat /sys/kernel/debug/kprobes/blacklist > /results/kprobes-blacklist.txt 2>/dev/null
[ -n "$sweep_exclude" ] && log "sweep: leaving out $sweep_exclude"
i=0 t0=$(date +%s)
for m in kprobe kretprobe fprobe mid fexit; do
	case ,$sweep_modes, in *,$m,*) sweep $m $i ;; esac
	i=$((i + 1))
done
log "sweep: $(($(date +%s) - t0))s for the modes $sweep_modes"
trace_reset
tap_end
