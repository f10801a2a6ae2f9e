#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make patches-boot: boot the last patch of every topic and run the tests
# its tree has.  Needs the series applied by make patches-check (the
# worktree $BUILD/am, branch "am", one commit per patch).
#
#   series/boot.sh ARCH BUILD_DIR FRAGMENT...
#
# For each topic, in order, its last patch is checked out in $BUILD/am
# and built into $BUILD/$ARCH-topic (incremental, ccache).  The config is
# tinyconfig plus the fragments again at each topic, so an option whose
# symbol the tree does not have yet is left out, and one it gains is set
# as make check sets it.  The kernel boots with this repository's guest
# scripts, and passes when:
#
#   - KUnit: no case of any built-in suite is "not ok" (6.12's
#     test_kprobes and test_fprobe from the first topic on, ours from
#     the tests topic on);
#   - ftracetest, the tree's own test.d (BOOT_FTRACE=DIRS to narrow it),
#     with the cases of known-base-bugs and known-env-failures skipped
#     as make check skips them: no case failed ("unresolved" cases, which
#     need what the guest lacks, are counted apart);
#   - the console shows no splat (splat.sh).
#
# The last topic's tree is the repository's kernel (series.py checks it),
# on which make check runs everything else.  BOOT_TOPICS="NN ..." boots
# only those topics (their numbers in build/patches).
#
# Writes $BUILD/results/patches-boot.txt, one line per topic and a
# summary; exits non-zero if a topic failed to build or boot or failed a
# test.
set -euo pipefail

arch=$1 build=$(realpath -m "$2")
shift 2
frags=()
for f in "$@"; do frags+=("$(realpath "$f")"); done
repo=$(pwd)
here=$repo/tools/testing/probes
tree=$build/am
out=$build/$arch-topic
patches=$build/patches
report=$build/results/patches-boot.txt
ftrace=${BOOT_FTRACE:-test.d}
only=${BOOT_TOPICS:-}
# shellcheck source=../splat.sh
. "$here/splat.sh"

mapfile -t series < "$patches/order.txt" 2>/dev/null || true
[ ${#series[@]} -gt 0 ] || { echo "patches-boot: no patches (make patches)" >&2; exit 1; }
mapfile -t commits < <(git -C "$tree" rev-list --reverse base..am 2>/dev/null)
if [ ${#commits[@]} != ${#series[@]} ]; then
	echo "patches-boot: $tree has ${#commits[@]} commits on base, the series ${#series[@]} patches (make patches-check first)" >&2
	exit 1
fi

# The index of each topic's last patch.
declare -A last
topics=()
for i in "${!series[@]}"; do
	t=$(basename "$(dirname "${series[$i]}")")
	[ -n "${last[$t]:-}" ] || topics+=("$t")
	last[$t]=$i
done

# judge TOPIC RES LOG: one line saying what the boot showed; status 1 if
# it failed.
judge() {
	local res=$2 lg=$3 ku=0 kbad=0 f ktap=$2/ftrace.ktap p fl u s k splat why=

	for f in "$res"/kunit/*.ktap; do
		[ -f "$f" ] || continue
		ku=$((ku + $(grep -cE '^ +ok [0-9]+ ' "$f" || true)))
		kbad=$((kbad + $(grep -E '^ +not ok [0-9]+ ' "$f" | grep -vc '# SKIP' || true)))
	done
	p=$(grep -E '^ok ' "$ktap" 2>/dev/null | grep -vcE '# (SKIP|XFAIL)' || true)
	s=$(grep -cE '^ok .*# SKIP' "$ktap" 2>/dev/null || true)
	fl=$(grep -E '^not ok ' "$ktap" 2>/dev/null | grep -vc '# UNRESOLVED' || true)
	u=$(grep -cE '^not ok .*# UNRESOLVED' "$ktap" 2>/dev/null || true)
	splat=$(grep -E "$SPLAT_RE" "$lg" | head -n 1 || true)
	grep -q 'probes: script done' "$lg" || why="the guest did not finish (log: ${lg#"$repo"/})"
	[ "$ku" -gt 0 ] || why=${why:-"no KUnit results"}
	[ "$kbad" = 0 ] || why=${why:-"$kbad KUnit cases not ok"}
	grep -q '^# Totals:' "$ktap" 2>/dev/null || why=${why:-"ftracetest did not finish"}
	[ "$fl" = 0 ] || why=${why:-"$fl ftracetest cases failed: $(grep -E '^not ok ' "$ktap" | grep -v '# UNRESOLVED' | head -n 3 | sed 's/^not ok [0-9]* //' | tr '\n' ';')"}
	[ -z "$splat" ] || why=${why:-"splat: $splat"}
	k=$(wc -l < "$res/ftrace-skips.txt")
	echo "KUnit $ku ok, $kbad not ok; ftracetest $p passed, $fl failed, $u unresolved, $s skipped, $k left out (known base bugs)${why:+; FAILED: $why}"
	[ -z "$why" ]
}

mkdir -p "$(dirname "$report")" "$build/logs"
: > "$report.tmp"
bad=0 booted=0
for t in "${topics[@]}"; do
	if [ -n "$only" ] && ! grep -qw "${t%%-*}" <<< "$only"; then
		continue
	fi
	i=${last[$t]}
	git -C "$tree" checkout -q "${commits[$i]}"
	res=$build/results/boot-$t lg=$build/logs/boot-$arch-$t.log
	rm -rf "$res"
	mkdir -p "$res"
	echo "  TOPIC    $t: $(basename "${series[$i]}")"
	rm -f "$out/.probes-config-stamp"
	if ! PROBES_CONFIG_MISSING_OK=1 "$here/build.sh" "$arch" "$tree" "$out" "${frags[@]}" \
	     > "$res/build.log" 2>&1; then
		line="topic $t: BUILD FAILED (log: ${res#"$repo"/}/build.log)"
	else
		"$here/mkinitramfs.sh" "$arch" "$out" "$tree" "$repo" "$out/initramfs.cpio.gz" >/dev/null
		PROBES_ARCH=$arch "$here/ftrace-cases.sh" "$tree" "$ftrace" "$res/ftrace-skips.txt" \
			> "$res/ftrace-cases.txt"
		cat > "$res/script.sh" <<'EOF'
. /opt/probes/lib.sh
mkdir -p /results/kunit
for d in /sys/kernel/debug/kunit/*/; do
	[ -f "$d/results" ] && cp "$d/results" "/results/kunit/$(basename "$d").ktap"
done
run_ftracetest
EOF
		"$here/qemu.sh" "$arch" "$out/kernel-image" "$out/initramfs.cpio.gz" script \
			"$lg" "$res" "${BOOT_TIMEOUT:-1800}" || true
		booted=$((booted + 1))
		if verdict=$(judge "$t" "$res" "$lg"); then
			line="topic $t: boots, $verdict"
		else
			line="topic $t: $verdict"
		fi
	fi
	case $line in *FAILED*) bad=$((bad + 1)) ;; esac
	echo "$line" | tee -a "$report.tmp"
done
git -C "$tree" checkout -q am
summary="patches-boot: $booted topics booted ($arch), $bad failed"
{ cat "$report.tmp"; echo "$summary"; } > "$report"
rm -f "$report.tmp"
echo "$summary"
[ "$bad" = 0 ]
