#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Boot the check kernel twice more, with lockdown=integrity and with
# lockdown=confidentiality (KUnit off), run guest/lockdown.sh in each and
# collect one TAP file for report.sh: the guest's results (and a failure
# when the guest's file has fewer results than its plan), plus, per boot,
# whether it completed and whether its console stayed free of splats
# (guest:lockdown-MODE-completed, console:lockdown-MODE-no-kernel-splat,
# which report.sh counts apart from the probe tests).
#
#   lockdown.sh ARCH OUT_DIR RESULTS_DIR LOG_DIR [NAME]
#
# Logs are LOG_DIR/NAME-lockdown-MODE.log (NAME: ARCH, or ARCH-debug).
# LOCKDOWN_TIMEOUT (seconds, default 600) bounds each boot; LOCKDOWN_SKIP=1
# leaves both boots out.
set -uo pipefail

arch=$1 out=$2 res=$3 logs=$4 name=${5:-$1}
here=$(dirname "$0")
tap=$res/lockdown.tap
# make check KCSAN=1 does without (the rest of the kernel's data races
# would fill their consoles, and they test access, not concurrency).
if [ "${LOCKDOWN_SKIP:-}" = 1 ]; then
	rm -f "$tap"
	exit 0
fi
. "$here/splat.sh"
splat=$SPLAT_RE

: > "$tap.tmp"
for mode in integrity confidentiality; do
	dir=$res/lockdown-$mode log=$logs/$name-lockdown-$mode.log
	rm -rf "$dir" && mkdir -p "$dir"
	"$here/qemu.sh" "$arch" "$out/kernel-image" "$out/initramfs.cpio.gz" lockdown \
		"$log" "$dir" "${LOCKDOWN_TIMEOUT:-600}" "lockdown=$mode" kunit.enable=0 || true
	if [ -s "$dir/lockdown.tap" ]; then
		grep -E '^(not )?ok ' "$dir/lockdown.tap" | sed -E 's/^(not ok|ok) [0-9]+ /\1 /' |
			while read -r line; do
				case $line in
				"not ok "*) echo "not ok X ${line#not ok }" ;;
				*) echo "ok X ${line#ok }" ;;
				esac
			done >> "$tap.tmp"
		# The guest closes its file with its plan (lib.sh: tap_end).
		got=$(grep -cE '^(not )?ok ' "$dir/lockdown.tap")
		plan=$(sed -nE 's/^1\.\.([0-9]+).*/\1/p' "$dir/lockdown.tap" | tail -1)
		if [ -z "$plan" ]; then
			echo "not ok X lockdown-$mode:all-reported # $got results and no plan: the guest script stopped early" >> "$tap.tmp"
		elif [ "$plan" != "$got" ]; then
			echo "not ok X lockdown-$mode:all-reported # $got of $plan results (plan 1..$plan)" >> "$tap.tmp"
		fi
	else
		echo "not ok X lockdown-$mode:all-reported # the guest wrote no results" >> "$tap.tmp"
	fi
	# Whether the boot completed and its console stayed clean test no
	# probe code: report.sh counts guest:* and console:* apart.
	if grep -q 'probes: lockdown done' "$log"; then
		echo "ok X guest:lockdown-$mode-completed" >> "$tap.tmp"
	else
		echo "not ok X guest:lockdown-$mode-completed # guest did not finish, see $log" >> "$tap.tmp"
	fi
	if grep -qE "$splat" "$log"; then
		echo "not ok X console:lockdown-$mode-no-kernel-splat # $(grep -m1 -E "$splat" "$log" | tr -d '\r' | cut -c1-100)" >> "$tap.tmp"
	else
		echo "ok X console:lockdown-$mode-no-kernel-splat" >> "$tap.tmp"
	fi
done
i=0
{
	echo "TAP version 13"
	while IFS= read -r line; do
		i=$((i + 1))
		case $line in
		"not ok X "*) echo "not ok $i ${line#not ok X }" ;;
		*) echo "ok $i ${line#ok X }" ;;
		esac
	done < "$tap.tmp"
	echo "1..$i"
} > "$tap"
rm -f "$tap.tmp"
