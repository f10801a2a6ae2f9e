#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make run: show the probe subsystem at work, as a kernel developer would
# try it first.  Prints to the console; the host shows it.
. /opt/probes/lib.sh
T=$TRACING

step() { printf '\n==== %s\n' "$*"; }
show() { printf '# %s\n' "$*"; sh -c "$*"; }

trace_reset
step "kprobe event with fetch arguments, kretprobe event with \$retval, fprobe events"
show "echo 'p:myopen do_sys_openat2 dfd=\$arg1:s32 path=+0(\$arg2):string flags=+0(\$arg3):x64' >> $T/kprobe_events"
show "echo 'r:myopenret do_sys_openat2 ret=\$retval:s64' >> $T/kprobe_events"
show "echo 'f:vfsread vfs_read count=\$arg3:u64' >> $T/dynamic_events"
show "echo 'f:vfsreadret vfs_read%return ret=\$retval:s64' >> $T/dynamic_events"
show "echo 'f:vfswrite vfs_write count=\$arg3:u64' >> $T/dynamic_events"
show "cat $T/dynamic_events"
echo 1 > $T/events/kprobes/enable
echo 1 > $T/events/fprobes/enable
step "/sys/kernel/debug/kprobes/list (armed)"
cat /sys/kernel/debug/kprobes/list

step "workload: cat /proc/version; ls /opt; echo hi > /tmp/x"
cat /proc/version > /dev/null
ls /opt > /dev/null
echo hi > /tmp/x
echo 0 > $T/events/kprobes/enable
echo 0 > $T/events/fprobes/enable

step "trace (first lines)"
grep -v '^#' $T/trace | head -20
step "kprobe_profile"
cat $T/kprobe_profile
trace_reset

step "kprobe_example module on kernel_clone"
dmesg -c > /dev/null
modprobe kprobe_example
/bin/busybox true
modprobe -r kprobe_example
dmesg | head -8
