#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench: what probes cost with our implementation and with the base
# tree's, measured in one run.
#
#   bench.sh ARCH BUILD_DIR FRAGMENT...
#
# "ours" is the usual build ($BUILD/$ARCH, built by make's "initramfs"
# prerequisite); "base" is the untouched base tree ($BUILD/base, no
# overlay) built with the same config fragments into $BUILD/$ARCH-base.
# The benchmark module (tools/testing/probes/bench) is built against each,
# appended to each kernel's initramfs, and the two kernels are booted in
# turn, base then ours, BENCH_ROUNDS times under plain TCG (wall time)
# and BENCH_ICOUNT_ROUNDS times under -icount (instruction count).  The
# guest side is guest/bench.sh; report.py turns the results into
# $BUILD/results/bench-$ARCH.json and the table bench-$ARCH.txt.
#
# Environment:
#   BENCH_ROUNDS=3          wall-time rounds (one boot of each kernel each)
#   BENCH_ICOUNT_ROUNDS=3   icount rounds; 0 skips icount
#   BENCH_ICOUNT=shift=0,sleep=off   QEMU -icount argument
#   BENCH_N=20000           calls per call-cost figure
#   BENCH_MAX=10000         largest number of probes of the scaling steps
#   BENCH_EACH=1000         largest count registered one by one
#   BENCH_FULL_ROUNDS=1     rounds per mode that run the steps above at
#                           full size; the other rounds stop at 1000 and
#                           100 (registering 10,000 kprobes takes about
#                           two minutes in this guest)
#   BENCH_TIMEOUT=1800      seconds one boot may take (the base's full
#                           rounds register 10,000 kprobes at function
#                           entries one filter update each: minutes)
#   BENCH_NO_BUILD=1        do not (re)build the base kernel
#   BENCH_STEPS=6,8         only these numbered steps of guest/bench.sh
#                           (default: all)
set -euo pipefail

arch=$1 build=$2
shift 2
frags=("$@")
here=tools/testing/probes
res=$build/results/bench-$arch
logs=$build/logs
rounds=${BENCH_ROUNDS:-3}
irounds=${BENCH_ICOUNT_ROUNDS:-3}
icount=${BENCH_ICOUNT:-shift=0,sleep=off}
tmo=${BENCH_TIMEOUT:-1800}
full_rounds=${BENCH_FULL_ROUNDS:-1}
# The KUnit suites built into the kernel would run at every bench boot:
# time wasted, and under -icount their cross-CPU stress cases (callers
# spinning on one CPU while the other waits for an IPI) take longer than
# a boot may.  The bench does not need them.
guest_args="kunit.enable=0${BENCH_STEPS:+ probes.bench_steps=$BENCH_STEPS}"
full_args="$guest_args probes.bench_n=${BENCH_N:-20000} probes.bench_max=${BENCH_MAX:-10000} probes.bench_each=${BENCH_EACH:-1000}"
short_args="$guest_args probes.bench_n=${BENCH_N:-20000} probes.bench_max=1000 probes.bench_each=100"

# shellcheck source=common.sh
. "$here/common.sh"
arch_vars "$arch" bench

start=$(date +%s)

# 1. The base kernel: the untouched tree, same fragments, its own output.
#    BENCH_NO_BUILD=1 boots the kernels already built (boots only).
#    Options of our own (torture test, our samples) do not exist there.
[ -n "${BENCH_NO_BUILD:-}" ] ||
	PROBES_CONFIG_MISSING_OK=1 \
	"$here/build.sh" "$arch" "$build/base" "$build/$arch-base" "${frags[@]}"
"$here/mkinitramfs.sh" "$arch" "$build/$arch-base" "$build/base" . \
	"$build/$arch-base/initramfs.cpio.gz"

# 2. The module against each kernel, and a bench initramfs for each: the
#    kernel's own initramfs with a second cpio archive appended that holds
#    /opt/probes-bench/probes_bench.ko (the kernel unpacks both).
for side in base ours; do
	if [ $side = base ]; then out=$build/$arch-base; else out=$build/$arch; fi
	mod=$out/bench-module
	# The appended archive holds the module and nothing else: a file
	# left in its root by hand would override the image's own.
	rm -rf "$mod.root"
	mkdir -p "$mod" "$mod.root/opt/probes-bench"
	rsync -a "$here/bench/module/" "$mod/"
	log MODULE "probes_bench.ko for $side"
	make -s -C "$out" M="$(realpath "$mod")" ARCH="$karch" \
		CROSS_COMPILE="$cross" CC="ccache ${cross}gcc" modules
	"${cross}strip" --strip-debug -o "$mod.root/opt/probes-bench/probes_bench.ko" \
		"$mod/probes_bench.ko"
	(cd "$mod.root" && find . -print0 | cpio --null -o -H newc --quiet) |
		gzip -1 > "$mod.cpio.gz"
	cat "$out/initramfs.cpio.gz" "$mod.cpio.gz" > "$out/initramfs-bench.cpio.gz"
done

# 3. Boot base and ours in turn, each round; wall time first, then icount.
rm -rf "$res"
mkdir -p "$res" "$logs"
boots=$res/boots.txt
: > "$boots"
run_round() { # MODE ROUND
	local mode=$1 r=$2 side out dir lg t0 ic= args=$full_args
	[ "$mode" = icount ] && ic=$icount
	[ "$r" -le "$full_rounds" ] || args=$short_args
	for side in base ours; do
		if [ $side = base ]; then out=$build/$arch-base; else out=$build/$arch; fi
		dir=$res/$mode/$side/r$r
		lg=$logs/bench-$arch-$mode-$side-r$r.log
		mkdir -p "$dir"
		t0=$(date +%s)
		ICOUNT=$ic ACCEL=tcg "$here/qemu.sh" "$arch" "$out/kernel-image" \
			"$out/initramfs-bench.cpio.gz" bench "$lg" "$dir" "$tmo" \
			$args || true
		if grep -q 'probes: bench done' "$lg" && [ -s "$dir/bench.jsonl" ]; then
			echo "$mode $side r$r ok $(($(date +%s) - t0))s" >> "$boots"
		else
			echo "$mode $side r$r FAILED $(($(date +%s) - t0))s" >> "$boots"
			echo "  BENCH    $mode $side round $r did not finish; see $lg" >&2
		fi
		# A boot that failed left no steps: go on with the others.
		tail -1 "$dir/bench-steps.txt" 2>/dev/null |
			sed "s/^/  GUEST    $mode $side r$r: /" || true
	done
}
for r in $(seq 1 "$rounds"); do run_round wall "$r"; done
for r in $(seq 1 "$irounds"); do run_round icount "$r"; done

echo "total $(($(date +%s) - start))s" >> "$boots"
python3 "$here/bench/report.py" "$res" "$build/results/bench-$arch.json" \
	"$build/results/bench-$arch.txt" "$icount"
