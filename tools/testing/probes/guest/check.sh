#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The full guest test run (make check): KUnit results, ftracetest, the
# sample modules and our own selftests.  Each suite writes a TAP file to
# /results; the host judges them together with the console log.
. /opt/probes/lib.sh

# 1. KUnit: the probe suites are built in and have run during boot.
mkdir -p /results/kunit
for d in /sys/kernel/debug/kunit/*/; do
	[ -f "$d/results" ] || continue
	cp "$d/results" "/results/kunit/$(basename "$d").ktap"
done
echo "probes: kunit suites: $(ls /results/kunit | tr '\n' ' ')"
# What the timers run on: high resolution or the tick (guest:hres-timers).
echo "probes: timers: $(grep -c 'hres_active *: 1' /proc/timer_list) of $(nproc) CPUs in high resolution mode, clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"

# 2. ftracetest, unmodified.  The host lists the cases to run (one a line,
#    relative to the ftracetest directory) in /results/ftrace-cases.txt.
run_ftracetest

# 3. Sample modules: load, drive, check their output, unload.
sh /opt/probes/samples.sh

# 4. Reliability: torture module, kprobe_events fuzzer, access checks.
bash /opt/probes/reliability.sh

# 5. Our own selftests (tools/testing/selftests/probes), if any.
if [ -d /opt/probes/selftests ] && [ -x /opt/probes/selftests/run.sh ]; then
	/opt/probes/selftests/run.sh > /results/selftests.tap 2> /results/selftests.stderr
	# ftracetest's per-case logs, for a failed case.
	cp -a /tmp/probes-selftests-logs /results/selftests-logs 2>/dev/null
fi

# A debug kernel: was lockdep still on at the end (report.sh checks it)?
[ -r /proc/lockdep_stats ] && cat /proc/lockdep_stats > /results/lockdep_stats.txt
dmesg > /results/dmesg.txt
