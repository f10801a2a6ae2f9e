#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check-clients: the distribution's probe clients (perf, bpftrace,
# bcc, bpftool) and the BTF side of tracefs, run as a user runs them, in
# the Debian root (guest/clients.sh chroots here).
#
# Each check is a function c_<name> run in its own bash under a time-out;
# its output goes to /results/clients-logs/<name>.log, and when it fails
# its last "why:" line is the reason in the TAP line.  Expected values
# come from what the workload does (a file of known size read by cat,
# opened O_RDONLY), never from what a probe printed before.
#
#   clients-checks.sh            run them all, TAP in /results/clients.tap
#   clients-checks.sh --one NAME run one check (the runner's child)
. /opt/probes/lib.sh

LOGS=/results/clients-logs
MARKER=/tmp/probes-clients-marker
# bpftrace 0.17 refuses "-c cat" on a merged /usr (cat is found twice
# on PATH): the workload's cat by its path.
CAT=/usr/bin/cat
W=/tmp/clients-work
# bcc's tools are Python: their lines reach the log as they come.
export PYTHONUNBUFFERED=1

# --- helpers ----------------------------------------------------------------

# Each check runs in its own bash (--one): the first reason ends it.
why() { echo "why: $*"; exit 1; }

# The workload: cat a file of known content.  cat opens it O_RDONLY
# (f_flags O_RDONLY|O_LARGEFILE), reads it (one read returns its size),
# reads again (0 at EOF).
marker_size() { stat -c %s $MARKER; }

# drive_until LOG PATTERN SECS: run the workload once a second until LOG
# matches PATTERN (a tool started in the background writes LOG) or SECS
# pass.
drive_until() {
	local log=$1 pat=$2 secs=$3
	for _ in $(seq "$secs"); do
		cat $MARKER > /dev/null
		grep -qE -- "$pat" "$log" 2>/dev/null && return 0
		sleep 1
	done
	return 1
}

# wait_for LOG PATTERN SECS: wait until LOG matches PATTERN.
wait_for() {
	for _ in $(seq "$3"); do
		grep -qE -- "$2" "$1" 2>/dev/null && return 0
		sleep 1
	done
	return 1
}

# $BG TOOL ARGS... > LOG &: a tool in the background that still takes
# Ctrl-C (bash starts background jobs with SIGINT ignored, and Python
# then never installs its handler: bcc's tools print their tables on it).
BG="env --default-signal=INT"

# stop_bg PID: end a background tool as a user would (Ctrl-C), then wait.
stop_bg() {
	kill -INT "$1" 2>/dev/null
	for _ in $(seq 30); do kill -0 "$1" 2>/dev/null || break; sleep 1; done
	kill -KILL "$1" 2>/dev/null
	wait "$1" 2>/dev/null
	return 0
}

# A tracefs event with a comm filter, the workload, the trace.
# tracefs_event KIND DEFINITION: KIND kprobe or fprobe; defines it as
# clients/<name>, enables it for comm "cat" only, runs the workload and
# leaves the trace in $W/trace and the format in $W/format.
tracefs_event() {
	local file=$1 def=$2 name
	name=${def%% *}
	name=${name#*:clients/}
	trace_reset
	echo "# $def >> $file"
	echo "$def" >> $TRACING/$file || { cat $TRACING/error_log; why "definition refused"; }
	cat $TRACING/events/clients/$name/format > $W/format
	cat $W/format
	echo 'comm == "cat"' > $TRACING/events/clients/$name/filter
	echo 1 > $TRACING/events/clients/$name/enable
	cat $MARKER > /dev/null
	echo 0 > $TRACING/events/clients/$name/enable
	grep -v '^#' $TRACING/trace > $W/trace
	echo "# trace:"
	head -20 $W/trace
	echo "-:clients/$name" >> $TRACING/dynamic_events
	[ -s $W/trace ] || why "no trace line for comm cat"
}

# format_has FIELD: the event format lists the field.
format_has() {
	grep -qE "field:[^;]* $1;" $W/format || why "format has no field $1"
}

# bpftrace_start OUT PATTERN SECS PROGRAM: bpftrace (-B none) in the
# background, its output in OUT and its pid in $bt_pid, once OUT matches
# PATTERN; the check fails if it does not within SECS.
bpftrace_start() {
	$BG bpftrace -B none -e "$4" > "$1" 2>&1 &
	bt_pid=$!
	wait_for "$1" "$2" "$3" && return 0
	cat "$1"
	stop_bg $bt_pid
	why "bpftrace did not attach ($(basename "$1" .out))"
}

# --- perf probe -------------------------------------------------------------

c_perf_probe_add() {
	perf probe -a vfs_read || why "perf probe -a vfs_read failed"
	cat $TRACING/kprobe_events
	grep -qE '^p:probe/vfs_read ' $TRACING/kprobe_events ||
		why "no p:probe/vfs_read in kprobe_events"
}

c_perf_probe_return() {
	perf probe -a 'vfs_read%return $retval' || why "perf probe -a 'vfs_read%return \$retval' failed"
	cat $TRACING/kprobe_events
	grep -qE '^r[0-9]*:probe/vfs_read__return .*=\$retval' $TRACING/kprobe_events ||
		why "no r:probe/vfs_read__return with \$retval in kprobe_events"
}

c_perf_probe_register_typed() {
	perf probe -a 'openat2=do_sys_openat2 dfd=%di:s32' ||
		why "perf probe -a 'openat2=do_sys_openat2 dfd=%di:s32' failed"
	cat $TRACING/kprobe_events
	grep -qE '^p:probe/openat2 .* dfd=%di:s32' $TRACING/kprobe_events ||
		why "no p:probe/openat2 with dfd=%di:s32 in kprobe_events"
}

# Argument names, as perf knows them (from the DWARF of vmlinux: a -dbg
# package's file, here the build's vmlinux).
c_perf_probe_named_args() {
	perf probe -a 'vfs_read_args=vfs_read file count' ||
		why "perf probe -a 'vfs_read_args=vfs_read file count' failed"
	cat $TRACING/kprobe_events
	grep -qE '^p:probe/vfs_read_args .* file=[^ ]+ .*count=[^ ]+' $TRACING/kprobe_events ||
		why "no p:probe/vfs_read_args with file= and count= in kprobe_events"
}

c_perf_probe_list() {
	local e out
	out=$(perf probe -l 2>&1)
	echo "$out"
	for e in vfs_read vfs_read__return openat2 vfs_read_args; do
		echo "$out" | grep -qE "^ *probe:$e +\(on " || why "perf probe -l does not list probe:$e"
	done
}

c_perf_record_script() {
	local size out
	size=$(marker_size)
	cd $W || return 1
	perf record -q -o $W/perf.data -e probe:vfs_read__return -e probe:vfs_read_args \
		-e probe:openat2 -- cat $MARKER > /dev/null || why "perf record failed"
	out=$(perf script -i $W/perf.data 2>&1)
	echo "$out"
	echo "$out" | grep -qE "^ *cat .* probe:vfs_read__return: .* arg1=($size|$(printf '0x%x' "$size"))\$" ||
		why "perf script: no probe:vfs_read__return sample of cat returning $size"
	echo "$out" | grep -qE '^ *cat .* probe:vfs_read_args: .* count=' ||
		why "perf script: no probe:vfs_read_args sample of cat"
	echo "$out" | grep -qE '^ *cat .* probe:openat2: .* dfd=-100( |$)' ||
		why "perf script: no probe:openat2 sample with dfd=-100 (AT_FDCWD)"
}

c_perf_stat() {
	local n
	perf stat -x, -o $W/stat.txt -e probe:vfs_read -- cat $MARKER > /dev/null ||
		why "perf stat failed"
	cat $W/stat.txt
	n=$(grep -E ',probe:vfs_read(,|$)' $W/stat.txt | cut -d, -f1)
	# cat reads the file and then reads again to see its end: >= 2.
	[ -n "$n" ] && [ "$n" -ge 2 ] 2>/dev/null ||
		why "perf stat counted '${n:-nothing}' probe:vfs_read hits of cat, expected >= 2"
}

c_perf_probe_del() {
	perf probe -d 'probe:*' || why "perf probe -d 'probe:*' failed"
	cat $TRACING/kprobe_events
	! grep -q ':probe/' $TRACING/kprobe_events || why "probe/ events left in kprobe_events"
}

# --- bpftrace ---------------------------------------------------------------

c_bpftrace_info() {
	bpftrace --info > $W/bpftrace-info.txt 2>&1
	cat $W/bpftrace-info.txt
	cp $W/bpftrace-info.txt /results/bpftrace-info.txt
	local f
	for f in 'kprobe_multi' 'kfunc' 'btf'; do
		grep -qiE "^ *$f: *yes" $W/bpftrace-info.txt || why "bpftrace --info: $f not yes"
	done
}

c_bpftrace_kprobe_count() {
	local out n
	out=$(bpftrace -e 'kprobe:vfs_read /pid == cpid/ { @reads = count(); }' -c "$CAT $MARKER" 2>&1)
	echo "$out"
	n=$(echo "$out" | sed -n 's/^@reads: *//p')
	[ -n "$n" ] && [ "$n" -ge 2 ] 2>/dev/null || why "@reads is '${n:-missing}', expected >= 2"
}

c_bpftrace_kretprobe_retval() {
	local out size
	size=$(marker_size)
	out=$(bpftrace -e 'kretprobe:vfs_read /pid == cpid/ { printf("ret=%d\n", retval); }' \
		-c "$CAT $MARKER" 2>&1)
	echo "$out"
	echo "$out" | grep -qx "ret=$size" || why "no ret=$size (the file's size) from kretprobe:vfs_read"
	echo "$out" | grep -qx "ret=0" || why "no ret=0 (end of file) from kretprobe:vfs_read"
}

# arg1 (the path) is a user pointer: uptr() makes str() read user memory.
c_bpftrace_kprobe_arg0() {
	local out
	out=$(bpftrace -e 'kprobe:do_sys_openat2 /pid == cpid/ { printf("dfd=%d path=%s\n", arg0, str(uptr(arg1))); }' \
		-c "$CAT $MARKER" 2>&1)
	echo "$out"
	echo "$out" | grep -qx "dfd=-100 path=$MARKER" ||
		why "no 'dfd=-100 path=$MARKER' (AT_FDCWD, the file cat opens)"
}

# A wildcard attaches as one kprobe_multi link (fprobe), not as one kprobe
# per function: bpftool shows one such link, and the kprobes list has no
# vfs_ functions.
c_bpftrace_kprobe_multi() {
	local pid n
	# No "probe" builtin: it would make bpftrace build one program per
	# function (and attach plain kprobes).
	bpftrace_start $W/multi.out '^Attaching' 120 'kprobe:vfs_* { @hits = count(); }'
	pid=$bt_pid
	sleep 3
	cat $MARKER > /dev/null
	bpftool link show > $W/links.txt 2>&1
	cat /sys/kernel/debug/kprobes/list > $W/kprobes-list.txt 2>&1
	stop_bg $pid
	cat $W/multi.out
	echo "# bpftool link show:"
	cat $W/links.txt
	echo "# /sys/kernel/debug/kprobes/list:"
	cat $W/kprobes-list.txt
	n=$(grep -cE '^[0-9]+: +kprobe_multi ' $W/links.txt)
	[ "$n" = 1 ] || why "bpftool link show: $n kprobe_multi links, expected 1"
	! grep -qE ' vfs_[a-z_0-9]+\+' $W/kprobes-list.txt ||
		why "vfs_ functions have kprobes: not attached through kprobe_multi"
	grep -qE '^@hits: [1-9]' $W/multi.out || why "no hits counted"
}

c_bpftrace_kfunc() {
	local out size
	size=$(marker_size)
	out=$(bpftrace -e 'kfunc:vfs_read /pid == cpid/ { printf("count=%d i_size=%d\n", args->count, args->file->f_inode->i_size); }' \
		-c "$CAT $MARKER" 2>&1)
	echo "$out"
	echo "$out" | grep -qE "^count=[1-9][0-9]* i_size=$size\$" ||
		why "no kfunc:vfs_read line with the file's i_size $size"
}

# bpftrace's exit closes the perf event of each kprobe it attached one
# by one, and each close waited for an RCU tasks-trace grace period in
# perf_event_detach_bpf_prog() (kernel/trace/bpf_trace.c), one after the
# other: most of the time of BENCH.md's bpftrace detach.  Counted, not
# timed: a kprobe event on synchronize_rcu_tasks_trace() while bpftrace
# on 20 kprobes exits.  One call per probe is the base's; none ours.
c_bpftrace_detach_waits() {
	local pid n prog
	scale_funcs 20 > $W/funcs
	[ "$(wc -l < $W/funcs)" = 20 ] || why "only $(wc -l < $W/funcs) functions to probe"
	prog="$(sed 's/^/kprobe:/' $W/funcs | paste -sd,) { @hits = count(); }
BEGIN { printf(\"attached\\n\"); }"
	bpftrace_start $W/waits.out '^attached' 240 "$prog"
	pid=$bt_pid
	trace_reset
	echo 'p:waits/sync synchronize_rcu_tasks_trace' >> $TRACING/kprobe_events ||
		{ stop_bg $pid; why "no kprobe event on synchronize_rcu_tasks_trace"; }
	echo 'comm == "bpftrace"' > $TRACING/events/waits/sync/filter
	echo 1 > $TRACING/events/waits/sync/enable
	stop_bg $pid
	echo 0 > $TRACING/events/waits/sync/enable
	n=$(grep -c ' sync: ' $TRACING/trace)
	grep -v '^#' $TRACING/trace | head -5
	echo '-:waits/sync' >> $TRACING/kprobe_events
	echo "synchronize_rcu_tasks_trace() calls during bpftrace's exit: $n"
	[ "$n" = 0 ] || why "$n waits for RCU tasks-trace in bpftrace's exit, 20 kprobes"
}

# --- bcc --------------------------------------------------------------------

c_bcc_funccount() {
	local pid
	$BG funccount-bpfcc 'vfs_*' > $W/funccount.out 2>&1 &
	pid=$!
	if ! wait_for $W/funccount.out '^Tracing' 600; then
		cat $W/funccount.out
		stop_bg $pid
		why "funccount did not start tracing"
	fi
	for _ in 1 2 3 4 5; do cat $MARKER > /dev/null; sleep 1; done
	stop_bg $pid
	cat $W/funccount.out
	grep -qE "^(b')?vfs_read'? +[1-9]" $W/funccount.out || why "funccount: no count for vfs_read"
}

c_bcc_trace_arg() {
	local pid
	$BG trace-bpfcc 'do_sys_openat2 "%s", arg2@user' > $W/trace-arg.out 2>&1 &
	pid=$!
	drive_until $W/trace-arg.out "cat +do_sys_openat2 +$MARKER\$" 240
	stop_bg $pid
	cat $W/trace-arg.out
	grep -qE "cat +do_sys_openat2 +$MARKER\$" $W/trace-arg.out ||
		why "trace: no do_sys_openat2 line of cat with $MARKER"
}

c_bcc_trace_retval() {
	local pid size
	size=$(marker_size)
	$BG trace-bpfcc -n cat 'r::vfs_read "ret=%d", retval' > $W/trace-ret.out 2>&1 &
	pid=$!
	drive_until $W/trace-ret.out "cat +vfs_read +ret=$size\$" 240
	stop_bg $pid
	cat $W/trace-ret.out
	grep -qE "cat +vfs_read +ret=$size\$" $W/trace-ret.out ||
		why "trace: no vfs_read return of cat with ret=$size"
}

# --- tracefs with BTF -------------------------------------------------------

c_tracefs_readme_btf() {
	grep -F '<argname>' $TRACING/README || why "README: no <argname> (PROBE_EVENTS_BTF_ARGS off?)"
	grep -F -- '->field' $TRACING/README || why "README: no ->field access"
}

# $arg* expands to vfs_read(file, buf, count, pos).
args_star() {
	local f
	for f in file buf count pos; do format_has $f || return 1; done
	grep -qE ' count=[1-9]' $W/trace || why "no count=N in the trace"
}

c_tracefs_kprobe_args_star() {
	tracefs_event kprobe_events 'p:clients/kpstar vfs_read $arg*' && args_star
}

c_tracefs_fprobe_args_star() {
	tracefs_event dynamic_events 'f:clients/fpstar vfs_read $arg*' && args_star
}

named_args() {
	format_has file && format_has count || return 1
	grep -qE ' file=0x[0-9a-f]+ count=[1-9]' $W/trace || why "no file=0x... count=N in the trace"
}

c_tracefs_kprobe_named_args() {
	tracefs_event kprobe_events 'p:clients/kpnamed vfs_read file count' && named_args
}

c_tracefs_fprobe_named_args() {
	tracefs_event dynamic_events 'f:clients/fpnamed vfs_read file count' && named_args
}

# vfs_read() returns ssize_t: BTF makes $retval signed 64-bit, printed in
# decimal; cat reads the whole file in one call.
typed_retval() {
	local size
	size=$(marker_size)
	grep -qE 'field:s64 ret;' $W/format || why "ret is not s64 in the format"
	grep -qE " ret=$size\$" $W/trace || why "no ret=$size in the trace"
	grep -qE ' ret=0$' $W/trace || why "no ret=0 (end of file) in the trace"
}

c_tracefs_kretprobe_typed_retval() {
	tracefs_event kprobe_events 'r:clients/krret vfs_read ret=$retval' && typed_retval
}

c_tracefs_fprobe_typed_retval() {
	tracefs_event dynamic_events 'f:clients/fpret vfs_read%return ret=$retval' && typed_retval
}

# file->f_flags is an unsigned int: u32 from BTF.  cat opens the file
# O_RDONLY, the kernel adds O_LARGEFILE (0100000).
struct_field() {
	grep -qE 'field:u32 flags;' $W/format || why "flags is not u32 in the format"
	grep -qE ' flags=(32768|0x8000)$' $W/trace || why "no flags=32768 (O_RDONLY|O_LARGEFILE) in the trace"
}

c_tracefs_kprobe_struct_field() {
	tracefs_event kprobe_events 'p:clients/kpfield vfs_read flags=file->f_flags' && struct_field
}

c_tracefs_fprobe_struct_field() {
	tracefs_event dynamic_events 'f:clients/fpfield vfs_read flags=file->f_flags' && struct_field
}

# A BTF bitfield is cut out of its own slot: a u32 member's cut wrote
# eight bytes, zeroing the next argument's (here $comm's data location,
# read back as an empty string).  in_iowait is a 1-bit "unsigned".
c_tracefs_kprobe_btf_bitfield() {
	tracefs_event kprobe_events 'p:clients/kpbf vfs_read b=$current->in_iowait c=$comm' || return 1
	grep -qE 'field:u32 b;' $W/format || why "b is not u32 in the format"
	grep -qE ' b=0 c="cat"$' $W/trace || why "no b=0 c=\"cat\" in the trace"
}

# refused_with_error_log EVENT DEFINITION WHAT: writing DEFINITION to
# kprobe_events fails and leaves an error_log entry (EVENT is removed if
# it was defined after all).
refused_with_error_log() {
	echo > $TRACING/error_log
	if echo "$2" >> $TRACING/kprobe_events 2>/dev/null; then
		echo "-:$1" >> $TRACING/kprobe_events
		why "$3: accepted"
	fi
	cat $TRACING/error_log
	grep -q 'error:' $TRACING/error_log || why "$3: no error_log entry"
}

# $argN past the function's parameters is refused with an error_log
# entry, however large N is (N = 2^31 + 1 once indexed below the
# parameters, reading BTF 16 GiB below it).
c_tracefs_btf_arg_out_of_range() {
	local n
	trace_reset
	for n in 5 2147483649 4294967296 18446744073709551615; do
		refused_with_error_log clients/kpargn "p:clients/kpargn vfs_read \$arg$n" \
			"\$arg$n for vfs_read (4 parameters)"
	done
}

# An error in an argument after "$arg*" or "$argN" points into the word
# the user wrote (here under "%none"), not at the word of its place among
# the expanded arguments (with "$arg*", past the end of the command).
c_tracefs_btf_arg_caret() {
	local cmd pos want
	trace_reset
	for cmd in 'p:clients/kpcaret vfs_read $arg* x=%none' \
		   'p:clients/kpcaret vfs_read $arg2 x=%none'; do
		refused_with_error_log clients/kpcaret "$cmd" "$cmd"
		pos=${cmd%%%none*}
		# "  Command: " is 11 columns
		want=$(printf '%*s^' $((11 + ${#pos})) '')
		grep -qxF "$want" $TRACING/error_log ||
			why "$cmd: the caret is not under %none"
	done
}

# A return probe on an address: $retval is the return register (no
# function, no BTF prototype); a parameter name is refused with an
# error_log entry.
c_tracefs_address_retval() {
	local addr size
	size=$(marker_size)
	addr=0x$(awk '$3 == "vfs_read" && NF == 3 { print $1; exit }' /proc/kallsyms)
	refused_with_error_log clients/kpaddrf "p:clients/kpaddrf $addr file" \
		"a BTF name on an address probe"
	tracefs_event kprobe_events "r:clients/kpaddr $addr ret=\$retval" || return 1
	grep -qE " ret=(0x)?0*$size\$| ret=$(printf '0x%x' "$size")\$" $W/trace ||
		why "no ret=$size in the trace"
}

# --- at scale: what a user waits for ----------------------------------------
#
# Many probes attached and detached the way the clients do it, one probe
# at a time: a kprobe_events line per probe, a perf_kprobe event and a
# BPF link per probe for bpftrace, perf probe's deletions line by line.
# Each check asserts what it attached and that all of it went away, and
# prints "time: LABEL SECONDS" for what it timed: the runner collects
# those into /results/clients-times.txt (ours and IMPL=base side by
# side: bench/clients-times.py).  Timings are measured, never asserted.

now() { date +%s.%N; }
# elapsed T0: seconds since T0, two decimals.
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }'; }

# scale_funcs N: N kernel functions that a kprobe can take by name, the
# same ones in every kernel as far as their names agree: built-in
# functions (no module) that ftrace can trace, whose name no other
# symbol of kallsyms has, plain (no .isra or .cold), outside the kprobes
# blacklist, and not in the tracing, probing, locking, RCU, scheduling,
# interrupt and BPF code that a probe's own hit runs through.  Chosen by a hash of
# the name, so one kernel's extra functions do not shift the choice.
scale_funcs() {
	local n=$1
	# Unique among all symbols: a data symbol of the same name (a
	# "blacklist" table beside a blacklist() function) makes the name
	# ambiguous, and kprobe_events refuses it.
	awk '{ c[$3]++; if ($2 ~ /^[tT]$/ && NF == 3) t[$3] = 1 }
	     END { for (f in t) if (c[f] == 1) print f }' /proc/kallsyms | sort > $W/unique-syms
	awk '{ print $NF }' /sys/kernel/debug/kprobes/blacklist | sort -u > $W/blacklist-syms
	grep -vE ' |\.' $TRACING/available_filter_functions | sort | uniq -u |
		grep -vE 'kprobe|rethook|fprobe|trace|ftrace|perf|bpf|btf|lock|rcu|sched|irq|preempt|nmi|percpu|atomic|idle|tick|time|clock|context|entry|exit|ret_from|stack|arch_|text_poke|jump_label|static_call|alternative|int3|_cpu|cpu_|smp|apic|x86|native|kasan|kcsan|lockdep|debug|printk|console|panic|warn|bug|^_' |
		comm -12 - $W/unique-syms | comm -23 - $W/blacklist-syms |
		awk '{ h = 0; for (i = 1; i <= length($0); i++) h = (h * 31 + index("abcdefghijklmnopqrstuvwxyz0123456789_", substr($0, i, 1))) % 1000003; if (h % 7 == 0) print }' |
		head -n "$n"
}

# probed: the lines of kprobes/list at the functions of $W/funcs.
probed() {
	awk 'NR == FNR { f[$1]; next } { s = $3; sub(/\+.*/, "", s); if (s in f) print }' \
		$W/funcs /sys/kernel/debug/kprobes/list
}

# kprobe_events, a line per probe: 1,000 probes defined one by one, then
# enabled at once, disabled, and deleted one by one ("-:").
c_scale_kprobe_events_1000() {
	local f i t0 n
	scale_funcs 1000 > $W/funcs
	[ "$(wc -l < $W/funcs)" = 1000 ] || why "only $(wc -l < $W/funcs) functions to probe"
	echo > $TRACING/kprobe_events
	i=0 t0=$(now)
	while read -r f; do
		i=$((i + 1))
		echo "p:scale/p$i $f" >> $TRACING/kprobe_events ||
			why "defining p:scale/p$i $f failed"
	done < $W/funcs
	echo "time: define_1000 $(elapsed "$t0")"
	n=$(grep -c '^p:scale/' $TRACING/kprobe_events)
	[ "$n" = 1000 ] || why "$n scale/ probes in kprobe_events after 1000 lines"
	t0=$(now)
	echo 1 > $TRACING/events/scale/enable || why "enabling events/scale failed"
	echo "time: enable_1000 $(elapsed "$t0")"
	n=$(probed | grep -cvF '[DISABLED]')
	[ "$n" = 1000 ] || why "$n armed kprobes with the 1000 events enabled"
	t0=$(now)
	echo 0 > $TRACING/events/scale/enable || why "disabling events/scale failed"
	echo "time: disable_1000 $(elapsed "$t0")"
	t0=$(now)
	for i in $(seq 1000); do
		echo "-:scale/p$i" >> $TRACING/kprobe_events || why "deleting scale/p$i failed"
	done
	echo "time: delete_1000 $(elapsed "$t0")"
	! grep -q '^p:scale/' $TRACING/kprobe_events || why "scale/ probes left in kprobe_events"
	n=$(probed | wc -l)
	[ "$n" = 0 ] || why "$n kprobes left after deleting the events"
}

# A module shaped like LKRG's use of probes: a kprobe and a kretprobe
# on each of 50 functions, registered one at a time at load and
# unregistered one at a time in its exit function
# (tools/testing/probes/clients-module/probes_unload.c, built against
# this kernel and reached through the kbuild share).  Its load and its
# unload are timed: an unregistration that waits for a grace period or
# patches ftrace's every record shows in the unload.
c_scale_module_unload_50() {
	local ko=/kbuild/clients-module/probes_unload.ko n t0
	[ -f $ko ] || why "no $ko (tools/testing/probes/clients-module.sh builds it)"
	scale_funcs 50 > $W/funcs
	[ "$(wc -l < $W/funcs)" = 50 ] || why "only $(wc -l < $W/funcs) functions to probe"
	t0=$(now)
	insmod $ko funcs="$(paste -sd, $W/funcs)" || why "insmod probes_unload.ko failed"
	echo "time: load_50 $(elapsed "$t0")"
	n=$(probed | wc -l)
	probed | head -4
	if [ "$n" != 100 ]; then
		rmmod probes_unload
		why "$n probes listed at the 50 functions, 100 expected"
	fi
	t0=$(now)
	rmmod probes_unload || why "rmmod probes_unload failed"
	echo "time: unload_50 $(elapsed "$t0")"
	dmesg | grep 'probes_unload:' | tail -n 2
	n=$(probed | wc -l)
	[ "$n" = 0 ] || why "$n probes left after the unload"
}

# bpftrace on 1,000 functions named one by one: a perf_kprobe event and
# a BPF link each (a list without wildcards does not use kprobe_multi).
# BEGIN runs once everything is attached; Ctrl-C detaches everything.
c_scale_bpftrace_1000_kprobes() {
	local pid t0 n prog
	scale_funcs 1000 > $W/funcs
	[ "$(wc -l < $W/funcs)" = 1000 ] || why "only $(wc -l < $W/funcs) functions to probe"
	prog="$(sed 's/^/kprobe:/' $W/funcs | paste -sd,) { @hits = count(); }
BEGIN { printf(\"attached\\n\"); }"
	# bpftrace keeps a descriptor or two per probe open.
	ulimit -n 65536 || why "cannot raise the open-file limit"
	t0=$(now)
	BPFTRACE_MAX_PROBES=2000 $BG bpftrace -B none -e "$prog" > $W/bt1000.out 2>&1 &
	pid=$!
	# Polled ten times a second: the attach time is read to 0.1 s.
	for _ in $(seq 12000); do
		grep -q '^attached' $W/bt1000.out && break
		kill -0 $pid 2>/dev/null || break
		sleep 0.1
	done
	if ! grep -q '^attached' $W/bt1000.out; then
		tail -n 20 $W/bt1000.out
		stop_bg $pid
		why "bpftrace did not attach to 1000 kprobes"
	fi
	echo "time: attach_1000 $(elapsed "$t0")"
	n=$(probed | wc -l)
	t0=$(now)
	kill -INT $pid
	wait $pid
	echo "time: detach_1000 $(elapsed "$t0")"
	head -n 3 $W/bt1000.out
	tail -n 3 $W/bt1000.out
	[ "$n" -ge 1000 ] || why "$n of the 1000 functions had a kprobe while attached"
	n=$(probed | wc -l)
	[ "$n" = 0 ] || why "$n kprobes left after bpftrace exited"
}

# perf probe: 100 probes added in one command, deleted in one (which
# writes a "-:" line per probe to kprobe_events).  Without the DWARF of
# vmlinux, as on a machine without the -dbg package: perf then places
# function probes from kallsyms.  With it, perf 6.1 searches the DWARF
# for every probe, minutes each under TCG, and the time would be perf's.
c_scale_perf_probe_100() {
	local t0 n args=() dbg
	dbg=/usr/lib/debug/boot/vmlinux-$(uname -r)
	scale_funcs 100 > $W/funcs
	[ "$(wc -l < $W/funcs)" = 100 ] || why "only $(wc -l < $W/funcs) functions to probe"
	while read -r f; do args+=(-a "$f"); done < $W/funcs
	[ -e "$dbg" ] && mv "$dbg" "$dbg.hidden"
	# shellcheck disable=SC2064 # the path, as it is now
	trap "[ -e '$dbg.hidden' ] && mv '$dbg.hidden' '$dbg'" EXIT
	cd $W || why "no $W"
	t0=$(now)
	perf probe -q "${args[@]}" || why "perf probe of 100 functions failed"
	echo "time: add_100 $(elapsed "$t0")"
	n=$(grep -c '^p:probe/' $TRACING/kprobe_events)
	[ "$n" = 100 ] || why "$n probe/ events after adding 100"
	n=$(probed | wc -l)
	[ "$n" = 100 ] || why "$n kprobes at the 100 functions"
	t0=$(now)
	perf probe -q -d 'probe:*' || why "perf probe -d 'probe:*' failed"
	echo "time: delete_100 $(elapsed "$t0")"
	! grep -q ':probe/' $TRACING/kprobe_events || why "probe/ events left in kprobe_events"
}

# --- the runner -------------------------------------------------------------

# name:timeout, in the order they run (the perf probe checks share the
# events they add; perf_probe_del removes them).
CHECKS="
tracefs_readme_btf:30
tracefs_kprobe_args_star:60
tracefs_fprobe_args_star:60
tracefs_kprobe_named_args:60
tracefs_fprobe_named_args:60
tracefs_kretprobe_typed_retval:60
tracefs_fprobe_typed_retval:60
tracefs_kprobe_struct_field:60
tracefs_fprobe_struct_field:60
tracefs_kprobe_btf_bitfield:60
tracefs_btf_arg_out_of_range:60
tracefs_btf_arg_caret:60
tracefs_address_retval:60
perf_probe_add:300
perf_probe_return:300
perf_probe_register_typed:300
perf_probe_named_args:300
perf_probe_list:120
perf_record_script:300
perf_stat:120
perf_probe_del:120
bpftrace_info:120
bpftrace_kprobe_count:300
bpftrace_kretprobe_retval:300
bpftrace_kprobe_arg0:300
bpftrace_kprobe_multi:400
bpftrace_kfunc:300
bpftrace_detach_waits:400
bcc_funccount:600
bcc_trace_arg:600
bcc_trace_retval:600
scale_kprobe_events_1000:900
scale_perf_probe_100:900
scale_module_unload_50:600
scale_bpftrace_1000_kprobes:1500
"

if [ "${1:-}" = --one ]; then
	mkdir -p $W
	"c_$2"
	exit $?
fi

mkdir -p $LOGS $W
tap_begin /results/clients.tap
printf 'probes-clients marker: a file of known size\n' > $MARKER
: > /results/clients-times.txt

# The clients' versions, once.
{
	echo "perf: $(perf --version 2>&1)"
	echo "bpftrace: $(bpftrace --version 2>&1)"
	echo "bpftool: $(bpftool version 2>&1 | head -1)"
	echo "bcc: $(dpkg-query -W -f '${Version}' python3-bpfcc 2>&1)"
	echo "debian: $(cat /etc/debian_version)"
} > /results/clients-versions.txt
sed 's/^/probes: version /' /results/clients-versions.txt

# probes.clients_only=NAME,NAME on the kernel command line (make
# check-clients CMDLINE=...) runs only those checks.
only=$(sed -n 's/.*probes\.clients_only=\([^ ]*\).*/\1/p' /proc/cmdline)
for c in $CHECKS; do
	name=${c%%:*} tmo=${c##*:}
	[ -z "$only" ] || [[ ",$only," == *",$name,"* ]] || continue
	tname=$(echo "$name" | sed 's/_/:/; s/_/-/g')
	log=$LOGS/$tname.log
	echo "probes: clients check $tname (time-out ${tmo}s)"
	t0=$(date +%s)
	timeout -k 10 "$tmo" bash "$0" --one "$name" > "$log" 2>&1
	rc=$?
	echo "# ${tname}: exit $rc after $(($(date +%s) - t0))s" >> "$log"
	sed -n "s/^time: /$tname /p" "$log" >> /results/clients-times.txt
	if [ $rc = 0 ]; then
		tap_result ok "$tname"
	elif [ $rc = 124 ] || [ $rc = 137 ]; then
		tap_result fail "$tname" "timed out after ${tmo}s"
	else
		tap_result fail "$tname" "$(sed -n 's/^why: //p' "$log" | head -1)"
	fi
	case $name in tracefs_*) trace_reset > /dev/null 2>&1 ;; esac
done
tap_end
echo "probes: clients checks done"
