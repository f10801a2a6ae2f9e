#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench, in the guest: load the benchmark module (probes_bench.ko,
# see tools/testing/probes/bench/module/) and run every scenario once.  Each
# figure is one JSON line in /results/bench.jsonl; how long each step took
# goes to /results/bench-steps.txt.  The host boots this several times per
# kernel and aggregates (tools/testing/probes/bench/report.py).
#
# Kernel command line knobs (the host sets them):
#   probes.bench_n=N     calls timed per call-cost figure (default 20000)
#   probes.bench_max=K   largest probe count of the scaling steps: 1, 100,
#                        1000 or 10000 (default)
#   probes.bench_each=K  largest count for one-by-one (un)registration,
#                        (1000; the base waits a grace period per probe)
#   probes.bench_steps=1,8  run only these numbered steps (default: all)
. /opt/probes/lib.sh

OUT=/results/bench.jsonl
STEPS=/results/bench-steps.txt
D=/sys/kernel/debug/probes_bench
KP=/sys/kernel/debug/kprobes
OPT=/proc/sys/debug/kprobes-optimization
: > $OUT
: > $STEPS

N=20000 MAX=10000 EACH=1000
for arg in $(cat /proc/cmdline); do
	case $arg in
	probes.bench_n=*) N=${arg#*=} ;;
	probes.bench_max=*) MAX=${arg#*=} ;;
	probes.bench_each=*) EACH=${arg#*=} ;;
	probes.bench_steps=*) ONLY=${arg#*=} ;;
	esac
done

# step N: whether numbered step N is to run.
step() {
	[ -z "${ONLY:-}" ] || [[ ",$ONLY," == *",$1,"* ]]
}

# Milliseconds since boot, in 10 ms steps (busybox date has no %N).
now_ms() {
	local up
	read -r up _ < /proc/uptime
	echo $((10#${up/./} * 10))
}
T0=$(now_ms)

# cmd COMMAND...: run one module command, keep its figures, log its time.
cmd() {
	local t=$(now_ms) rc=0
	echo "$*" > $D/run || rc=1
	cat $D/result >> $OUT
	echo "$(($(now_ms) - t)) ms  $*$([ $rc = 0 ] || echo '  FAILED')" >> $STEPS
	[ $rc = 0 ] || echo "probes: bench: '$*' failed"
	return $rc
}

# meminfo: "MemFree SUnreclaim VmallocUsed Percpu" in kB.  Probes are
# unreclaimable slab; the reclaimable part (dentries and inodes of this
# script's own file accesses) only adds noise.
meminfo() {
	awk '/^(MemFree|SUnreclaim|VmallocUsed|Percpu):/ { v[$1] = $2 }
	     END { print v["MemFree:"], v["SUnreclaim:"], v["VmallocUsed:"], v["Percpu:"] }' /proc/meminfo
}

# settle: let the frees of earlier steps land before a memory reading or
# a timed step, so that neither counts another step's work: RCU
# callbacks, kvfree_rcu() batches (drained up to 5 s later), the probe
# cores' deferred work.  The same wait for both kernels.
settle() {
	sleep "${SETTLE_S:-6}"
}

# memfig NAME COUNT BEFORE AFTER: bytes per unit; "bytes" is what
# unreclaimable slab, vmalloc and per-cpu allocations grew by, "bytes_memfree" what MemFree
# shrank by (all page allocations, noisier).
memfig() {
	local name=$1 n=$2 b a
	read -r -a b <<< "$3"
	read -r -a a <<< "$4"
	local grew=$(( (a[1] - b[1]) + (a[2] - b[2]) + (a[3] - b[3]) ))
	local free=$(( b[0] - a[0] ))
	printf '{"scenario":"%s","unit":"byte","n":%d,"bytes":%d,"bytes_memfree":%d,"slab_kb":%d,"vmalloc_kb":%d,"percpu_kb":%d}\n' \
		"$name" "$n" $((grew * 1024 / n)) $((free * 1024 / n)) \
		$((a[1] - b[1])) $((a[2] - b[2])) $((a[3] - b[3])) >> $OUT
}

if ! insmod /opt/probes-bench/probes_bench.ko; then
	echo "probes: bench: cannot load probes_bench.ko"
	exit 1
fi
echo "probes: bench: N=$N MAX=$MAX EACH=$EACH"
trace_reset

# drain: a kprobe at a function entry may keep its ftrace hook for up
# to a second after it is removed (kprobes drops such hooks in batches),
# and until then every call of the function pays ftrace's callback.  A
# call figure taken right after a probe on the target was removed would
# count that: wait before each, in both kernels alike.
drain() {
	sleep 2
}

# 1. Call cost, optimization off so that int3 probes stay breakpoints.
#    The first command finds the probe offsets by placing and removing
#    probes on the target; "disarm" does that and times nothing.
if step 1; then
	echo 0 > $OPT
	echo disarm > $D/run
	for s in none kprobe_entry jprobe_entry kprobe_int3 kprobe_int3_irqs_on \
		 kprobe_int3_post kretprobe kretprobe_entry fprobe_entry fprobe_exit; do
		drain
		cmd "$s $N"
	done
fi

# 2. Optimized kprobe: arm with optimization on, wait for the optimizer.
if step 2; then
	echo 1 > $OPT
	if cmd "arm kprobe_opt"; then
		opt=kprobe_opt_NOT_OPTIMIZED
		for i in $(seq 1 100); do
			if grep -q 'probes_bench_target+0x[0-9a-f]*.*\[OPTIMIZED\]' $KP/list; then
				# The list says OPTIMIZED once the probe is queued for
				# the optimizer, which patches the jump some ticks later.
				sleep 1
				opt=kprobe_opt
				break
			fi
			sleep 0.1
		done
		grep probes_bench_target $KP/list >> $STEPS
		cmd "time $N $opt"
		cmd disarm
	fi
	#    And K probes at once: from their registration until every site is
	#    a jump, then their unregistration (which undoes the jumps).
	for k in 100 1000; do
		[ $k -le $MAX ] && cmd "optimize $k"
	done
	echo 0 > $OPT
fi

# 3. A kprobe event with 4 fetch args, enabled in tracefs; the module
#    times its plain loop while the event records every call.
if step 3; then
	drain
	if echo 'p:pbench/ev4 probes_bench:probes_bench_target a=$arg1 b=$arg2:u32 c=$arg3:x64 d=$arg4:s64' \
		>> $TRACING/kprobe_events; then
		echo 1 > $TRACING/events/pbench/ev4/enable
		cmd "none $N kprobe_event_4args"
		echo 0 > $TRACING/events/pbench/ev4/enable
		grep pbench $TRACING/kprobe_profile >> $STEPS
	fi
	trace_reset
fi

# 4. K kprobes on K distinct addresses, K = 1, 100, 1000, MAX: the batch
#    registration and unregistration ("hold" and "release" time them),
#    the hit cost of one more probe with 1 and with MAX others registered
#    (the lookup of the hit probe), the memory per probe at 1000 (every
#    round: mem_per_kprobe) and 10000 (full rounds: mem_per_kprobe_10000),
#    then K one-by-one registrations and unregistrations (up to EACH:
#    every unregister_kprobe() waits until no hit can see its probe).
if step 4; then
	for k in 1 100 1000 10000; do
		[ $k -le $MAX ] || continue
		[ $k -ge 1000 ] && settle
		before=$(meminfo)
		cmd "hold $k" || continue
		case $k in
		1000)  memfig mem_per_kprobe $k "$before" "$(meminfo)" ;;
		10000) memfig mem_per_kprobe_10000 $k "$before" "$(meminfo)" ;;
		esac
		if [ $k = 1 ] || [ $k = $MAX ]; then
			cmd "kprobe_int3 $N kprobe_int3_with_${k}_others"
			cmd "kprobe_entry $N kprobe_entry_with_${k}_others"
		fi
		cmd release
		[ $k -le $EACH ] && cmd "reg_each $k"
	done
fi

# 5. Memory per kretprobe instance.
if step 5; then
	settle
	before=$(meminfo)
	if cmd "hold_kretprobe $MAX"; then
		memfig mem_per_kretprobe_instance "$MAX" "$before" "$(meminfo)"
		cmd release
	fi
fi

# 6. fprobe registration on a glob and on MAX kernel symbols.
if step 6; then
	cmd "fprobe_glob vfs_*"
	grep -v '\[' $TRACING/available_filter_functions | grep -v '^__' |
		sort -u | head -n $MAX > /tmp/syms
	cat /tmp/syms > $D/syms
	settle
	cmd fprobe_syms
	#    The same functions by address (names defined once, their first
	#    kallsyms address): an fprobe without the name lookup
	#    (fprobe_register_ips), and a bare ftrace_ops with a callback that
	#    does nothing (ftrace_register_ips): what ftrace itself costs.
	grep -v '\[' $TRACING/available_filter_functions | grep -v '^__' |
		sort | uniq -u | head -n $MAX > /tmp/once
	awk 'NR == FNR { want[$1] = 1; next }
	     NF == 3 && ($2 == "t" || $2 == "T") && ($3 in want) && !($3 in seen) { seen[$3] = 1; print $1 }' \
		/tmp/once /proc/kallsyms > /tmp/addrs
	for c in ftrace_ips fprobe_ips; do
		cat /tmp/addrs > $D/syms
		settle
		cmd $c
	done
fi

# 7. One fprobe on every traceable function of the kernel (by name, as
#    in step 6; module functions and names starting with "__" left out)
#    and on the target: its registration, and the target's hit with all
#    of them attached (against fprobe_entry, the fprobe on the target
#    alone).
if step 7; then
	{ grep -v '\[' $TRACING/available_filter_functions | grep -v '^__' |
		sort -u; echo probes_bench_target; } > /tmp/syms
	cat /tmp/syms > $D/syms
	settle
	cmd "fprobe_wide $N"
fi

# 8. K kprobes at the entries of real kernel functions, by name, as in
#    step 4: where the kernel puts entry kprobes on ftrace, each
#    registration is an ftrace filter update, which a batch can do
#    once.  The names: traceable functions of the kernel (no module's,
#    none starting with "__", none defined twice), none in the kprobe
#    blacklist, in name order.  Last, because the base's 10,000 take
#    many minutes: a boot that runs out of time loses only these.
if step 8; then
	awk '{ print $2 }' $KP/blacklist | sort -u > /tmp/blacklist
	grep -v '\[' $TRACING/available_filter_functions | grep -v '^__' |
		sort | uniq -u | grep -vxFf /tmp/blacklist | head -n $MAX > /tmp/syms
	cat /tmp/syms > $D/syms
	settle
	[ $MAX -ge 1000 ] && cmd "entries 1000"
	cmd "entries_each $EACH"
	if [ $MAX -ge 10000 ]; then
		settle
		cmd "entries 10000"
	fi
fi

rmmod probes_bench
echo "$(($(now_ms) - T0)) ms  total" >> $STEPS
echo "probes: bench: $(wc -l < $OUT) figures in $(($(now_ms) - T0)) ms"
