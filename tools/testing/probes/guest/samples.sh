#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Load each sample module, make the probed code run, check what the module
# printed (kernel log) or traced (trace buffer), and unload it.
. /opt/probes/lib.sh

tap_begin /results/samples.tap

# log_mark writes a unique line to the kernel log; new_log prints what
# came after it (counting lines would break when the ring buffer wraps).
LOG_SEQ=0
log_mark() {
	LOG_SEQ=$((LOG_SEQ + 1))
	echo "probes-samples-mark-$LOG_SEQ" > /dev/kmsg
}
new_log() { dmesg | sed -n "/probes-samples-mark-$LOG_SEQ\$/,\$p" | tail -n +2; }

# sample NAME MODPROBE_ARGS -- CHECK_COMMAND...
# If a function CHECK_COMMAND_unloaded exists, it checks the log once the
# module is gone (what the module printed at unload).
sample() {
	local name=$1 mod=$2 why after
	shift 2
	after=${1}_unloaded
	if ! have_module "${mod%% *}"; then
		tap_result skip "sample:$name" "${mod%% *} not built for $(uname -m)"
		return
	fi
	log_mark
	if ! modprobe $mod; then
		tap_result fail "sample:$name" "modprobe $mod failed"
		return
	fi
	workload
	sleep 1
	if why=$("$@"); then
		tap_result ok "sample:$name"
	else
		tap_result fail "sample:$name" "$why"
		new_log | tail -20 | sed 's/^/#   /' >> "$TAP_FILE"
	fi
	if ! modprobe -r ${mod%% *}; then
		tap_result fail "sample:$name:unload" "rmmod failed"
	elif type "$after" > /dev/null 2>&1; then
		if why=$("$after"); then
			tap_result ok "sample:$name:unload"
		else
			tap_result fail "sample:$name:unload" "$why"
			new_log | tail -5 | sed 's/^/#   /' >> "$TAP_FILE"
		fi
	fi
}

# expect_log PATTERN MIN: at least MIN new kernel log lines match PATTERN.
expect_log() {
	local n
	n=$(new_log | grep -cE "$1")
	[ "$n" -ge "$2" ] || { echo "expected >= $2 log lines matching '$1', got $n"; return 1; }
}

expect_trace() {
	grep -qE "$1" $TRACING/trace || { echo "no trace line matching '$1'"; return 1; }
}

# kprobe_example on kernel_clone: the registration line, a pre line with
# the two first arguments (arg1 is the struct kernel_clone_args pointer,
# a kernel address: 0xffff... on x86_64, 0xfff0... on arm64), a post line, and at unload hits but no misses.
KSYM='kernel_clone\+0x[0-9a-f]+/0x[0-9a-f]+'
check_kprobe() {
	expect_log "kprobe_example: probe on kernel_clone\+0x0 is at $KSYM \(function entry\)\$" 1 &&
	expect_log "kprobe_example: pre: kernel_clone at $KSYM, cpu [0-9]+, task .+\[[0-9]+\], arg1 0xfff[0-9a-f]{13}, arg2 0x[0-9a-f]+\$" 1 &&
	expect_log "kprobe_example: post: kernel_clone at $KSYM, next ip $KSYM\$" 1
}
check_kprobe_unloaded() {
	expect_log 'kprobe_example: probe on kernel_clone removed: [1-9][0-9]* hits, 0 missed$' 1
}
# kretprobe_example on kernel_clone: the parent sees the child's pid.
check_kretprobe() {
	expect_log "kretprobe_example: return probe on kernel_clone at $KSYM, maxactive [1-9][0-9]*\$" 1 &&
	expect_log 'kretprobe_example: kernel_clone returned [1-9][0-9]* \(0x[0-9a-f]+\) after [0-9]+ ns, task .+\[[0-9]+\], cpu [0-9]+ -> [0-9]+$' 1
}
check_kretprobe_unloaded() {
	expect_log 'kretprobe_example: return probe on kernel_clone removed: [1-9][0-9]* returns, 0 missed$' 1
}
# A fork's kernel_clone_args carry SIGCHLD (17) as the exit signal.
check_jprobe() {
	expect_log 'jprobe_example: planted jprobe at kernel_clone\+0x[0-9a-f]+/' 1 || return 1
	expect_log 'jprobe_example: kernel_clone: flags = 0x[0-9a-f]+, exit_signal = 17, comm = ' 1 || return 1
	grep -qE ' j  kernel_clone\+0x[0-9a-f]+ ' /sys/kernel/debug/kprobes/list ||
		{ echo "no 'j' line for kernel_clone in kprobes/list"; return 1; }
}
# A jprobe on module code: jprobe_test_prober probes jpt_target() of
# jprobe_test_target.  Unloading the target leaves the jprobe [GONE];
# reloaded, the target runs unprobed until the prober registers again.
live_jprobe() {
	grep -E ' j  jpt_target\+0x[0-9a-f]+  jprobe_test_target ' /sys/kernel/debug/kprobes/list |
		grep -qv GONE
}
jprobe_module_function() {
	local kl=/sys/kernel/debug/kprobes/list
	local tp=/sys/module/jprobe_test_target/parameters/call
	local rearm=/sys/module/jprobe_test_prober/parameters/rearm

	modprobe jprobe_test_target || { echo "cannot load jprobe_test_target"; return 1; }
	modprobe jprobe_test_prober || { echo "cannot load jprobe_test_prober"; return 1; }
	expect_log 'jprobe_test_prober: registered: 0' 1 || return 1
	live_jprobe || { echo "no live 'j' line for jpt_target in kprobes/list"; return 1; }
	log_mark
	echo 1 > $tp
	expect_log 'jprobe_test_prober: jpt_target hit, arguments ok' 1 || return 1

	modprobe -r jprobe_test_target || { echo "cannot unload jprobe_test_target"; return 1; }
	grep -qE ' j  .*\[GONE\]' $kl || { echo "no [GONE] 'j' line in kprobes/list"; return 1; }
	modprobe jprobe_test_target || { echo "cannot reload jprobe_test_target"; return 1; }
	log_mark
	echo 1 > $tp
	expect_log 'jpt_target returned' 1 || return 1
	[ "$(new_log | grep -c 'jpt_target hit')" = 0 ] ||
		{ echo "a gone jprobe fired on the reloaded module"; return 1; }

	log_mark
	echo 1 > $rearm || { echo "re-registering failed"; return 1; }
	echo 1 > $tp
	expect_log 'jprobe_test_prober: re-registered: 0' 1 || return 1
	expect_log 'jprobe_test_prober: jpt_target hit, arguments ok' 1 || return 1
	live_jprobe || { echo "no live 'j' line for jpt_target after re-registering"; return 1; }
}

jprobe_module_test() {
	local why
	log_mark
	if why=$(jprobe_module_function); then
		tap_result ok "jprobes:module_function"
	else
		tap_result fail "jprobes:module_function" "$why"
		new_log | tail -20 | sed 's/^/#   /' >> "$TAP_FILE"
	fi
	modprobe -r jprobe_test_prober 2>/dev/null
	modprobe -r jprobe_test_target 2>/dev/null
}
# The fprobe entry ip is the function's ftrace site: +0 or after an ENDBR.
check_fprobe() {
	expect_log 'Enter <kernel_clone\+0x[0-9a-f]+/' 1 &&
	expect_log 'Return from <kernel_clone\+0x[0-9a-f]+/.*> ip = .* to rip = .*\(__do_sys_clone\+' 1
}
check_fprobe_sym() { expect_log 'Enter <vfs_read\+0x[0-9a-f]+/' 1; }
check_trace_events() {
	[ -d $TRACING/events/sample-trace/foo_bar ] || { echo "no sample-trace/foo_bar event"; return 1; }
	echo 1 > $TRACING/events/sample-trace/foo_bar/enable
	sleep 2
	echo 0 > $TRACING/events/sample-trace/foo_bar/enable
	expect_trace 'foo_bar: foo hello'
}
check_trace_printk() { expect_trace 'This is a static string that will use trace_bputs'; }

trace_reset
sample kprobe_example kprobe_example check_kprobe
sample kretprobe_example kretprobe_example check_kretprobe
sample jprobe_example jprobe_example check_jprobe
jprobe_module_test
sample fprobe_example fprobe_example check_fprobe
sample "fprobe_example(symbol=vfs_read)" "fprobe_example symbol=vfs_read" check_fprobe_sym
trace_reset
sample trace-events-sample trace-events-sample check_trace_events
trace_reset
sample trace-printk trace-printk check_trace_printk
trace_reset
tap_end
