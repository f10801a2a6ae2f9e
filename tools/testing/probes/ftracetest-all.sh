#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make ftracetest: the whole ftracetest (every directory of test.d, or
# FTRACE=...) against our kernel, or with IMPL=base against the base
# tree's own (the kernel make bench builds: the same config fragments,
# $BUILD/$ARCH-base), for a change to ftrace or the tracing core, whose
# result goes beside the base's in BASELINE.md.
#
#   ftracetest-all.sh ARCH BUILD_DIR IMPL CASES TIMEOUT FRAGMENT...
#
# Nothing but ftracetest runs in the guest (the init's "script" mode);
# the TAP is $BUILD/results/ftracetest-$ARCH-$IMPL/ftrace.ktap, the
# console $BUILD/logs/ftracetest-$ARCH-$IMPL.log, and the last line
# counts what ftracetest said of each case.
set -euo pipefail

arch=$1 build=$2 impl=$3 cases=$4 tmo=$5
shift 5
frags=("$@")
here=tools/testing/probes
# shellcheck source=common.sh
. "$here/common.sh"
arch_vars "$arch" ftracetest

if [ "$impl" = base ]; then
	src=$build/base out=$build/$arch-base
	PROBES_CONFIG_MISSING_OK=1 "$here/build.sh" "$arch" "$src" "$out" "${frags[@]}"
	# The base's kernel, with the guest scripts of this tree.
	"$here/mkinitramfs.sh" "$arch" "$out" "$src" . "$out/initramfs.cpio.gz" >/dev/null
else
	src=$build/src out=$build/$arch
fi

res=$build/results/ftracetest-$arch-$impl
lg=$build/logs/ftracetest-$arch-$impl.log
rm -rf "$res"
mkdir -p "$res" "$build/logs"
PROBES_ARCH=$arch "$here/ftrace-cases.sh" "$src" "$cases" "$res/ftrace-skips.txt" \
	> "$res/ftrace-cases.txt"
cat > "$res/script.sh" <<'EOF'
. /opt/probes/lib.sh
run_ftracetest
dmesg > /results/dmesg.txt
EOF
"$here/qemu.sh" "$arch" "$out/kernel-image" "$out/initramfs.cpio.gz" script \
	"$lg" "$res" "$tmo" kunit.enable=0 || true

ktap=$res/ftrace.ktap
[ -s "$ktap" ] || { echo "ftracetest: no results (see $lg)" >&2; exit 1; }
grep -E '^not ok ' "$ktap" | grep -vE '# (SKIP|XFAIL)' | sed "s/^/  $impl: /" || true
# A case flagged "instance" runs twice (the second time in an instance),
# so there are more results than cases.
awk -v impl="$impl" -v cases="$(wc -l < "$res/ftrace-cases.txt")" '
	/^ok / { if (/# SKIP/) s++; else if (/# XFAIL/) x++; else p++ }
	/^not ok / { if (/# UNRESOLVED/) u++; else f++ }
	/^# Totals:/ { done = 1 }
	END { printf "ftracetest %s: %d cases, %d results: %d passed, %d failed, %d unresolved, %d skipped (unsupported or untested), %d xfail%s\n",
		impl, cases, p + f + u + s + x, p, f, u, s, x, done ? "" : "; ftracetest did not finish" }' "$ktap"
