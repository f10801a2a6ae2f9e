#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make patches-check: the series that "make patches" wrote (the topics of
# series/plan, in build/patches/order.txt's order) applies to a fresh copy
# of the base with git am, builds at every patch, passes checkpatch
# --strict with no error, and breaks no shape rule (series.py's report).
#
#   series/check.sh ARCH BUILD_DIR FRAGMENT...
#
# The patches are applied one by one in $BUILD/am (a worktree of the base
# repository, branch "am"); after each one the tree is built out of tree
# into $BUILD/$ARCH-am (incremental, ccache).  The config is the usual
# tinyconfig plus fragments, generated once on the fully applied series
# (where every symbol of the fragments exists) and then re-fitted to each
# patch's Kconfig with olddefconfig, so a patch that comes before a
# symbol simply builds without it.
#
# Environment: PATCHES_FROM=N starts building at patch N (all patches are
# still applied and checkpatch'ed); PATCHES_ONLY="5 6 7 83-89" builds just
# those patches (numbers and ranges); PATCHES_BOOT=1 also boots the last
# patch of each topic (series/boot.sh); PATCHES_BUILD=0 skips the builds;
# PATCHES_BUILD=kbuild builds only the patches that change a Makefile,
# Kbuild or Kconfig file or a header (the changes that most often break
# other patches' builds or the order of the series), PATCHES_BUILD=kconfig
# only those that change a Kconfig file, PATCHES_BUILD=changed every patch
# except those that change nothing the build reads (builds_nothing()).
#
# Writes $BUILD/results/patches-check.txt: one line per patch (applied,
# built, checkpatch errors and warnings) and a summary line.  Exits
# non-zero if any patch fails to apply or build or has a checkpatch error.
set -euo pipefail

arch=$1 build=$(realpath -m "$2")
shift 2
frags=()
for f in "$@"; do frags+=("$(realpath "$f")"); done
base=$build/base
# PATCHES_WORKER=NAME: a second run beside the first, e.g. on the other
# half of the series (its own worktree, branch, output, lock and report).
worker=${PATCHES_WORKER:+-$PATCHES_WORKER}
branch=am$worker
tree=$build/am$worker
out=$build/$arch-am$worker
patches=$build/patches
report=$build/results/patches-check$worker.txt
from=${PATCHES_FROM:-1}
only=${PATCHES_ONLY:-}
do_build=${PATCHES_BUILD:-1}
jobs=${JOBS:-$(nproc)}

# shellcheck source=../common.sh
. "$(dirname "$(readlink -f "$0")")/../common.sh"
arch_vars "$arch" patches-check

# Does patch file $1 change a file that PATCHES_BUILD=$do_build selects?
touches_kbuild() {
	local re='(^|/)(Makefile|Kbuild|Kconfig[^/]*)$|\.h$'

	[ "$do_build" = kconfig ] && re='(^|/)Kconfig[^/]*$'
	grep -E '^diff --git ' "$1" | awk '{ print $3 }' | grep -qE "$re"
}

# Does patch $1 leave every file the build reads as it was?  True when
# it only changes Documentation/, tools/ or MAINTAINERS, or adds files
# that no Makefile of theirs names yet (a .c or .S whose object is not in
# its directory's Makefile; a new header, which only files of the same
# patch can include).  Its build would be the previous patch's.
builds_nothing() {
	local c=${commits[$1]} st f o
	while read -r st f; do
		case $f in Documentation/*|tools/*|MAINTAINERS) continue ;; esac
		[ "$st" = A ] || return 1
		case $f in
		*.h) ;;
		*.c|*.S)
			o=$(basename "${f%.*}").o
			if git -C "$tree" show "$c:$(dirname "$f")/Makefile" 2>/dev/null |
			   grep -qw -- "$o"; then
				return 1
			fi ;;
		*) return 1 ;;
		esac
	done < <(git -C "$tree" diff --no-renames --name-status "$c^" "$c")
	return 0
}

# Is patch $1 to be built?  PATCHES_ONLY, else PATCHES_FROM onwards.
want_build() {
	local i=$1 r
	case $do_build in
	kbuild|kconfig) touches_kbuild "${series[$((i - 1))]}"; return ;;
	changed) ! builds_nothing "$i"; return ;;
	esac
	[ "$do_build" = 1 ] || return 1
	[ -n "$only" ] || { [ "$i" -ge "$from" ]; return; }
	for r in $only; do
		case $r in
		*-*) [ "$i" -ge "${r%-*}" ] && [ "$i" -le "${r#*-}" ] && return 0 ;;
		*) [ "$i" = "$r" ] && return 0 ;;
		esac
	done
	return 1
}

# The patches in order (series.py writes the list): NN-TOPIC/NNNN-*.patch.
mapfile -t series < "$patches/order.txt" 2>/dev/null || true
[ ${#series[@]} -gt 0 ] || { echo "patches-check: no patches in $patches (make patches)" >&2; exit 1; }
shape=$build/results/series-shape.txt

cc="${cross}gcc"
if command -v ccache >/dev/null; then
	cc="ccache $cc"
	export CCACHE_DIR=${CCACHE_DIR:-/var/cache/probes-ccache}
	export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-8G}
	export CCACHE_BASEDIR=$build
	export CCACHE_NOHASHDIR=1
	export CCACHE_SLOPPINESS=time_macros,include_file_mtime,include_file_ctime
fi
export KBUILD_BUILD_TIMESTAMP=2026-01-01 KBUILD_BUILD_USER=probes KBUILD_BUILD_HOST=qemu
kmake() {
	make -s -C "$tree" O="$out" ARCH="$karch" CROSS_COMPILE="$cross" \
		CC="$cc" HOSTCC="ccache gcc" LOCALVERSION= "$@"
}

# A fresh copy of the base: its own worktree, reset to the base commit.
git -C "$base" worktree prune
[ -e "$tree/.git" ] || git -C "$base" worktree add -q -B "$branch" "$tree" base
git -C "$tree" am --abort >/dev/null 2>&1 || true
git -C "$tree" checkout -q -B "$branch" base
git -C "$tree" reset -q --hard base
git -C "$tree" clean -qfdx
git -C "$tree" config user.name "probes harness"
git -C "$tree" config user.email "probes@localhost"

# 1. Apply every patch, then checkpatch them all, $jobs at a time (in the
# fully applied tree: checkpatch reads the patch, and of the tree only
# what no patch of ours changes).
mkdir -p "$(dirname "$report")"
: > "$report.tmp"
rm -f "$report.tmp.err" "$report.tmp.topics"
declare -a commits cp_err cp_warn built
n=0
for p in "${series[@]}"; do
	n=$((n + 1))
	if ! git -C "$tree" am -q --keep-cr "$p" >/dev/null 2>&1; then
		git -C "$tree" am --abort >/dev/null 2>&1 || true
		echo "$(basename "$p"): FAILED to apply" | tee -a "$report.tmp"
		mv "$report.tmp" "$report"
		exit 1
	fi
	commits[$n]=$(git -C "$tree" rev-parse HEAD)
done
cpdir=$(mktemp -d)
for i in $(seq 1 "$n"); do printf '%s\t%s\n' "$i" "${series[$((i - 1))]}"; done |
	(cd "$tree" && xargs -P "$jobs" -L1 sh -c \
		'perl scripts/checkpatch.pl --strict --terse --no-summary \
			--show-types "$2" > "$0/$1" 2>&1 || true' "$cpdir")
for i in $(seq 1 "$n"); do
	p=${series[$((i - 1))]}
	cpout=$(cat "$cpdir/$i")
	cp_err[$i]=$(grep -c ': ERROR:' <<< "$cpout" || true)
	cp_warn[$i]=$(grep -Ec ': (WARNING|CHECK):' <<< "$cpout" || true)
	if [ "${cp_err[$i]}" != 0 ]; then
		grep ': ERROR:' <<< "$cpout" | sed "s|^|    $(basename "$p"): |" >> "$report.tmp.err"
	fi
done
rm -rf "$cpdir"
log APPLIED "${#series[@]} patches onto base ($(git -C "$tree" log -1 --format=%h base))"

# 2. The config, on the fully applied series.
built_ok=0 built_bad=0 skipped=0
if [ "$do_build" != 0 ]; then
	# One kernel build at a time on this machine: the lock is taken
	# for each patch's build, so other checkouts can build in between.
	exec 9> "${PROBES_BUILD_LOCK:-/tmp/probes-build$worker.lock}"
	mkdir -p "$out"
	flock 9
	kmake tinyconfig >/dev/null
	"$tree/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" "${frags[@]}" >/dev/null
	kmake olddefconfig >/dev/null
	cp "$out/.config" "$out/.config.full"
	flock -u 9
fi

# 3. Walk the series from its first patch and build each step.
for i in $(seq 1 "$n"); do
	p=${series[$((i - 1))]}
	status=-
	if want_build "$i"; then
		git -C "$tree" checkout -q "${commits[$i]}"
		cp "$out/.config.full" "$out/.config"
		flock 9
		t0=$(date +%s)
		if kmake olddefconfig >/dev/null 2>"$out/build-$i.log" &&
		   kmake -j"$jobs" all >>"$out/build-$i.log" 2>&1; then
			status="built $(($(date +%s) - t0))s"
			built_ok=$((built_ok + 1))
		else
			status="BUILD FAILED (log: ${out#$PWD/}/build-$i.log)"
			built_bad=$((built_bad + 1))
		fi
		flock -u 9
		# Warnings a patch adds show in its own log; list their count.
		w=$(grep -c ': warning:' "$out/build-$i.log" || true)
		[ "$w" = 0 ] || status="$status, $w compiler warnings"
	else
		skipped=$((skipped + 1))
		[ "$do_build" = changed ] && status="not built (builds nothing new)"
	fi
	built[$i]=$status
	line="$(basename "$(dirname "$p")")/$(basename "$p"): applied, $status, checkpatch ${cp_err[$i]} errors ${cp_warn[$i]} warnings"
	echo "$line" >> "$report.tmp"
	log PATCH "$line"
done
[ "$do_build" != 0 ] && git -C "$tree" checkout -q "$branch"

# 4. PATCHES_BOOT=1: boot each topic's last patch (series/boot.sh).
boots=
if [ "${PATCHES_BOOT:-0}" = 1 ]; then
	boots=$build/results/patches-boot.txt
	"$(dirname "$(readlink -f "$0")")/boot.sh" "$arch" "$build" "${frags[@]}" || true
fi

errs=0 warns=0
for i in $(seq 1 "$n"); do
	errs=$((errs + cp_err[$i]))
	warns=$((warns + cp_warn[$i]))
done
# Per topic: patches, the largest (series.py's shape report), builds,
# and with PATCHES_BOOT=1 whether its last patch booted and passed.
topics=$(for p in "${series[@]}"; do basename "$(dirname "$p")"; done | uniq)
boot_bad=0
for topic in $topics; do
	tb=0 tf=0 tn=0
	for i in $(seq 1 "$n"); do
		[ "$(basename "$(dirname "${series[$((i - 1))]}")")" = "$topic" ] || continue
		tn=$((tn + 1))
		case ${built[$i]} in
		built*) tb=$((tb + 1)) ;;
		BUILD*) tf=$((tf + 1)) ;;
		esac
	done
	largest=$(grep -m1 "^${topic#[0-9][0-9]-}: " "$shape" 2>/dev/null |
		sed 's/.*largest \([0-9]*\) lines.*/\1/')
	boot="boots: not run (make patches-boot)"
	if [ -n "$boots" ]; then
		boot=$(grep -m1 "^topic $topic: " "$boots" | sed "s/^topic $topic: //")
		case $boot in
		boots,*) boot="boots: ok" ;;
		"") boot="boots: FAILED (no result)"; boot_bad=$((boot_bad + 1)) ;;
		*) boot="boots: FAILED (${boot#*FAILED: })"; boot_bad=$((boot_bad + 1)) ;;
		esac
	fi
	echo "topic $topic: $tn patches, largest ${largest:-?} lines, built $tb, build failures $tf, not built $((tn - tb - tf)), $boot" >> "$report.tmp.topics"
done
rules=$(tail -1 "$shape" 2>/dev/null | sed -n 's/.* \([0-9]*\) rules broken.*/\1/p')
summary="patches-check: $n patches applied, $built_ok built, $built_bad build failures, $skipped not built, checkpatch $errs errors, $warns warnings, ${rules:-?} shape rules broken${boots:+, $boot_bad topics failed to boot}"
{
	cat "$report.tmp"
	[ -f "$report.tmp.err" ] && { echo "checkpatch errors:"; cat "$report.tmp.err"; }
	cat "$report.tmp.topics"
	grep -F BROKEN "$shape" 2>/dev/null || true
	echo "$summary"
} > "$report"
cat "$report.tmp.topics"
grep -F BROKEN "$shape" 2>/dev/null || true
rm -f "$report.tmp" "$report.tmp.err" "$report.tmp.topics"
echo "$summary"
[ "$built_bad" = 0 ] && [ "$errs" = 0 ] && [ "${rules:-1}" = 0 ] && [ "$boot_bad" = 0 ]
