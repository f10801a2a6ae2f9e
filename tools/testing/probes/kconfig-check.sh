#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make kconfig-check: the series moves the probe subsystem's Kconfig
# symbols into Kconfig.probes.  Check that this changes no configuration:
# run "make olddefconfig" on each of Debian's own 6.12 kernel configs
# (package linux-config-6.12) in the base tree and in the patched tree, and
# compare the resulting option sets (order aside; the symbols move to their
# own menu).  Also check that every probe symbol is defined exactly once.
#
# Usage: kconfig-check.sh REPO BUILD
set -euo pipefail

repo=$(realpath "$1")
build=$(realpath -m "$2")
cache=${PROBES_CACHE:-/var/cache/probes}/linux-config
work=$build/kconfig-check
here=$(dirname "$(realpath "$0")")

log() { printf '  %-8s %s\n' "$1" "$2"; }

mkdir -p "$cache"
if ! ls "$cache"/linux-config-6.12_*.deb >/dev/null 2>&1; then
	log FETCH "linux-config-6.12 (Debian's kernel configs)"
	(cd "$cache" && apt-get download -q linux-config-6.12 >/dev/null 2>&1)
fi
deb=$(ls "$cache"/linux-config-6.12_*.deb | tail -1)

rm -rf "$work/configs"
mkdir -p "$work/configs"
dpkg-deb -x "$deb" "$work/configs"

for t in base ours; do
	if [ ! -e "$work/$t/Makefile" ]; then
		rm -rf "$work/$t"
		git -C "$build/base" worktree prune
		git -C "$build/base" worktree add -q --detach "$work/$t" base
	fi
done
"$here/overlay.sh" "$repo" "$build" "$work/ours" > /dev/null

syms=$(sed -n 's/^config \([A-Z0-9_]*\)$/\1/p' "$repo/Kconfig.probes")
fail=0
# Each symbol of Kconfig.probes must be defined nowhere else.
for sym in $syms; do
	n=$(cd "$work/ours" && grep -rlx --include='Kconfig*' "config $sym" . | wc -l)
	if [ "$n" != 1 ]; then
		echo "FAIL: CONFIG_$sym is defined in $n Kconfig files"
		fail=1
	fi
done

n=0
for xz in "$work"/configs/usr/src/linux-config-6.12/config.*.xz; do
	name=$(basename "$xz" .xz)
	for t in base ours; do
		xz -dc "$xz" > "$work/$t/.config"
		make -s -C "$work/$t" ARCH=x86 olddefconfig > /dev/null 2>&1
		grep -E '^(# )?CONFIG_' "$work/$t/.config" | sort > "$work/$name.$t"
	done
	if cmp -s "$work/$name.base" "$work/$name.ours"; then
		set=$(for sym in $syms; do grep -E "^CONFIG_$sym=[ym]" "$work/$name.ours" || true; done | wc -l)
		log SAME "$name: $set of our $(echo $syms | wc -w) symbols set"
	else
		echo "FAIL: $name: olddefconfig differs:"
		diff "$work/$name.base" "$work/$name.ours" | head -20
		fail=1
	fi
	n=$((n + 1))
done
[ "$n" -gt 0 ] || { echo "FAIL: no configs in $deb"; exit 1; }
[ "$fail" = 0 ] && echo "kconfig-check: $n Debian configs give identical options"
exit $fail
