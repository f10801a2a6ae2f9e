#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check-loop: run "make check" N times in a row on the same tree
# and keep the tally, to tell a race that shows once in a while from a
# tree that passes every time.
#
#   check-loop.sh N MAKE_ARGS...
#
# Each run's TAP is kept as build/results/check-loop/RUN.tap and its
# console as build/results/check-loop/RUN.log; the tally, one line a run
# and a last line "N of N runs passed", goes to
# build/results/check-loop/tally.txt (and stdout).  A run passes when it
# ends with "P passed, 0 failed" and "harness: H ok, 0 failed".  The
# loop goes on after a failed run, so that the tally says how often.
set -uo pipefail

n=${1:?usage: check-loop.sh N [make arguments]}
shift
dir=build/results/check-loop
mkdir -p "$dir"
tally=$dir/tally.txt
{
	echo "# make check $* x $n, tree $(git rev-parse --short HEAD 2>/dev/null || echo '?')$(git diff --quiet 2>/dev/null || echo '+dirty'), $(date -u '+%F %H:%M') UTC"
} > "$tally"

ok=0
for i in $(seq 1 "$n"); do
	t0=$SECONDS
	make check "$@" > "$dir/$i.out" 2>&1
	counts=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$dir/$i.out" | tail -1)
	harness=$(grep -E '^harness: [0-9]+ ok, [0-9]+ failed' "$dir/$i.out" | tail -1)
	arch=x86_64
	for a in "$@"; do case $a in ARCH=*) arch=${a#ARCH=} ;; esac; done
	cp -f "build/results/$arch.tap" "$dir/$i.tap" 2>/dev/null
	cp -f "build/logs/$arch-check.log" "$dir/$i.log" 2>/dev/null
	rm -f "$dir/$i.vcpus"
	cp -f "build/logs/$arch-check.log.vcpus" "$dir/$i.vcpus" 2>/dev/null
	verdict=FAIL
	if [[ $counts =~ ^[0-9]+\ passed,\ 0\ failed ]] &&
	   [[ $harness =~ ^harness:\ [0-9]+\ ok,\ 0\ failed ]]; then
		verdict=PASS
		ok=$((ok + 1))
	fi
	echo "run $i: $verdict, ${counts:-no count line}; ${harness:-no harness line}; $((SECONDS - t0)) s" |
		tee -a "$tally"
done
echo "$ok of $n runs passed" | tee -a "$tally"
[ "$ok" -eq "$n" ]
