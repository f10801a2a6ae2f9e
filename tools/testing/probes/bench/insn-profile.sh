#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make insn-profile: where the instructions of one hit go, the base's
# kernel beside ours.  Boots each bench kernel (what make bench built,
# x86_64) with QEMU's gdbstub, sets up one bench scenario in the guest
# and lets gdb step through single calls of probes_bench_target()
# (bench/insn-profile.py), counting the instructions of each call by the
# function they run in.  -icount says how many instructions a call
# takes; this says where they are.
#
#   insn-profile.sh BUILD_DIR [SCENARIO]
#
# SCENARIO: kprobe_event_4args (the default, the event of make bench's
# step 3).  Writes build/results/insn-profile-SCENARIO.txt: the totals
# of five calls on each side and the functions of the median call, side
# by side.
set -euo pipefail

build=$(realpath "$1")
scenario=${2:-kprobe_event_4args}
here=$(dirname "$(readlink -f "$0")")/..
res=$build/results/insn-profile
out_txt=$build/results/insn-profile-$scenario.txt

case $scenario in
kprobe_event_4args)
	setup='echo '\''p:pbench/ev4 probes_bench:probes_bench_target a=$arg1 b=$arg2:u32 c=$arg3:x64 d=$arg4:s64'\'' >> /sys/kernel/tracing/kprobe_events
echo 1 > /sys/kernel/tracing/events/pbench/ev4/enable'
	;;
*)
	echo "insn-profile: unknown scenario $scenario" >&2
	exit 1
	;;
esac

rm -rf "$res"
for side in base ours; do
	if [ $side = base ]; then out=$build/x86_64-base; else out=$build/x86_64; fi
	[ -f "$out/initramfs-bench.cpio.gz" ] || {
		echo "insn-profile: no $out/initramfs-bench.cpio.gz: run make bench first" >&2
		exit 1
	}
	dir=$res/$side
	mkdir -p "$dir"
	cat > "$dir/script.sh" <<EOS
insmod /opt/probes-bench/probes_bench.ko || exit 1
$setup
echo "probes: profile target \$(grep -w probes_bench_target /proc/kallsyms | cut -d' ' -f1)" > /dev/console
while :; do echo "none 100000 $scenario" > /sys/kernel/debug/probes_bench/run; done
EOS
	log=$dir/console.log
	rm -f "/tmp/probes-profile-$side.sock"
	QEMU_GDB_SOCK=/tmp/probes-profile-$side.sock ACCEL=tcg TCG_THREAD=single \
		"$here/qemu.sh" x86_64 "$out/kernel-image" "$out/initramfs-bench.cpio.gz" \
		script "$log" "$dir" 600 kunit.enable=0 > /dev/null 2>&1 &
	qpid=$!
	target=
	for _ in $(seq 300); do
		target=$(sed -n 's/.*probes: profile target \([0-9a-f]*\).*/\1/p' "$log" 2>/dev/null | head -1 || true)
		[ -n "$target" ] && break
		sleep 1
	done
	if [ -z "$target" ]; then
		kill "$qpid" 2>/dev/null || true
		echo "insn-profile: the $side guest did not start the scenario (see $log)" >&2
		exit 1
	fi
	echo "  PROFILE  $side: probes_bench_target at $target"
	PROFILE_SOCK=/tmp/probes-profile-$side.sock PROFILE_TARGET=$target PROFILE_OUT=$dir/profile.txt \
		timeout 600 gdb -q -nx -batch -ex "file $out/vmlinux" \
		-x "$here/bench/insn-profile.py" > "$dir/gdb.log" 2>&1 || true
	# The guest loops for ever: end it (qemu.sh's QEMU, then qemu.sh).
	pkill -f -- "path=/tmp/probes-profile-$side.sock" 2>/dev/null || true
	wait "$qpid" 2>/dev/null || true
	[ -s "$dir/profile.txt" ] || {
		echo "insn-profile: no profile from the $side guest (see $dir/gdb.log)" >&2
		exit 1
	}
done

python3 - "$res/base/profile.txt" "$res/ours/profile.txt" "$scenario" > "$out_txt" <<'PY'
import sys

def load(path):
    calls, funcs = [], {}
    for line in open(path):
        parts = line.rsplit(" ", 1)
        if line.startswith("call "):
            calls.append(int(parts[1]))
        else:
            funcs[parts[0]] = int(parts[1])
    return calls, funcs

(bc, bf), (oc, of) = load(sys.argv[1]), load(sys.argv[2])
print(f"{sys.argv[3]}: instructions per call of probes_bench_target()")
print(f"base, five calls: {' '.join(map(str, bc))}")
print(f"ours, five calls: {' '.join(map(str, oc))}")
print()
print(f"{'function (median call)':48} {'base':>6} {'ours':>6}")
names = sorted(set(bf) | set(of), key=lambda n: -max(bf.get(n, 0), of.get(n, 0)))
for n in names:
    print(f"{n[:48]:48} {bf.get(n, '-'):>6} {of.get(n, '-'):>6}")
print(f"{'total':48} {sum(bf.values()):>6} {sum(of.values()):>6}")
PY
cat "$out_txt"
