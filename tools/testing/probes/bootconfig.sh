#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Boot the check kernel once more, with a bootconfig appended to its
# initramfs that defines probe events of every kind at boot
# (ftrace.event.GROUP.EVENT.probes: kprobes as in 6.12; fprobes,
# tracepoints/tprobes and eprobes as in Linux 7.3), and check in the
# guest that each exists as written, is enabled where the bootconfig
# says so and records, and that a bad one is refused with trace_boot's
# message while the others stay.  One TAP file for report.sh, as
# lockdown.sh writes: the guest's results, plus whether the boot
# completed and its console stayed free of splats (guest:*, console:*).
#
#   bootconfig.sh ARCH OUT_DIR RESULTS_DIR LOG_DIR [NAME]
#
# The bootconfig tool is built from the base tree (tools/bootconfig)
# into BUILD/tools/.  BOOTCONFIG_TIMEOUT (seconds, default 600) bounds
# the boot.
set -uo pipefail

arch=$1 out=$2 res=$3 logs=$4 name=${5:-$1}
here=$(dirname "$0")
build=$(dirname "$out")
tap=$res/bootconfig.tap
dir=$res/bootconfig log=$logs/$name-bootconfig.log
. "$here/splat.sh"

fail_all() { # reason
	printf 'TAP version 13\nnot ok 1 bootconfig:all-reported # %s\n1..1\n' "$1" > "$tap"
	exit 0
}

src=$build/base/tools/bootconfig tool=$build/tools/bootconfig
mkdir -p "$build/tools"
if [ ! -x "$tool" ] || [ "$src/main.c" -nt "$tool" ]; then
	gcc -Wall -O2 -I"$src/include" -o "$tool" "$src/main.c" \
		"$build/base/lib/bootconfig.c" || fail_all "cannot build $tool"
fi

rm -rf "$dir" && mkdir -p "$dir"
cat > "$dir/probes.bconf" <<'EOF'
ftrace.event {
	kprobes.bc_kp {
		probes = "vfs_read"
		enable
	}
	fprobes.bc_fp {
		probes = "vfs_read%return ret=$retval:s64"
		enable
	}
	tracepoints.bc_tp {
		probes = "sched_process_fork"
		enable
	}
	tprobes.bc_tp2 {
		probes = "t:tprobes/bc_tp2 sched_process_exit"
	}
	eprobes.bc_ep {
		probes = "sched/sched_switch prev=$prev_pid:s32"
		enable
	}
	fprobes.bc_bad {
		probes = "no_such_function_at_all"
	}
}
EOF
cp "$out/initramfs.cpio.gz" "$dir/initramfs.img"
"$tool" -a "$dir/probes.bconf" "$dir/initramfs.img" > "$dir/tool.out" 2>&1 ||
	fail_all "bootconfig -a failed: $(head -1 "$dir/tool.out")"

cat > "$dir/script.sh" <<'EOF'
T=/sys/kernel/tracing
[ -e $T/dynamic_events ] || mount -t tracefs nodev $T
out=/results/guest.tap
n=0
: > $out
result() { # ok|fail name [reason]
	n=$((n + 1))
	if [ "$1" = ok ]; then
		echo "ok $n bootconfig:$2" >> $out
	else
		echo "not ok $n bootconfig:$2 # $3" >> $out
	fi
}
check() { # name command...
	local name=$1
	shift
	if "$@" > /dev/null 2>&1; then
		result ok "$name"
	else
		result fail "$name" "failed: $*"
	fi
}
has() { grep -qxF "$1" $T/dynamic_events; }
lacks() { ! grep -q "$1" $T/dynamic_events; }
enabled() { test "$(cat $T/events/$1/enable)" = "$2"; }
cp $T/dynamic_events /results/dynamic_events.txt
dmesg > /results/dmesg.txt

check kprobe-defined has 'p:kprobes/bc_kp vfs_read'
check fprobe-defined has 'f:fprobes/bc_fp vfs_read%return ret=$retval:s64'
check tprobe-defined has 't:tracepoints/bc_tp sched_process_fork'
check tprobe-whole-line has 't:tprobes/bc_tp2 sched_process_exit'
check eprobe-defined has 'e:eprobes/bc_ep sched.sched_switch prev=$prev_pid:s32'
check bad-refused lacks bc_bad
check bad-logged grep -qF 'trace_boot: Failed to add fprobe: f:fprobes/bc_bad no_such_function_at_all' /results/dmesg.txt
check kprobe-enabled enabled kprobes/bc_kp 1
check fprobe-enabled enabled fprobes/bc_fp 1
check tprobe-enabled enabled tracepoints/bc_tp 1
check tprobe-not-enabled enabled tprobes/bc_tp2 0
check eprobe-enabled enabled eprobes/bc_ep 1
echo > $T/trace
read -r x < /proc/version
sh -c true
sleep 0.2
# (reading the trace with vfs_read() probed would only add to it)
echo 0 > $T/tracing_on
for e in bc_kp bc_fp bc_tp bc_ep; do
	check "$e-recorded" grep -q " $e: " $T/trace
done
echo "1..$n" >> $out
EOF

"$here/qemu.sh" "$arch" "$out/kernel-image" "$dir/initramfs.img" script \
	"$log" "$dir" "${BOOTCONFIG_TIMEOUT:-600}" bootconfig kunit.enable=0 || true

{
	echo "TAP version 13"
	i=0
	if [ -s "$dir/guest.tap" ]; then
		got=$(grep -cE '^(not )?ok ' "$dir/guest.tap")
		plan=$(sed -nE 's/^1\.\.([0-9]+)$/\1/p' "$dir/guest.tap")
		grep -E '^(not )?ok ' "$dir/guest.tap"
		i=$got
		if [ "$plan" != "$got" ]; then
			i=$((i + 1))
			echo "not ok $i bootconfig:all-reported # $got results, plan '${plan:-none}'"
		fi
	else
		i=$((i + 1))
		echo "not ok $i bootconfig:all-reported # the guest wrote no results"
	fi
	i=$((i + 1))
	if grep -q 'probes: script done' "$log"; then
		echo "ok $i guest:bootconfig-completed"
	else
		echo "not ok $i guest:bootconfig-completed # guest did not finish, see $log"
	fi
	i=$((i + 1))
	if grep -qE "$SPLAT_RE" "$log"; then
		echo "not ok $i console:bootconfig-no-kernel-splat # $(grep -m1 -E "$SPLAT_RE" "$log" | tr -d '\r' | cut -c1-100)"
	else
		echo "ok $i console:bootconfig-no-kernel-splat"
	fi
	echo "1..$i"
} > "$tap"
