#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of lockdown.sh: booted with lockdown=integrity or
# lockdown=confidentiality, check what root may do with probes, as the
# base tree behaves: integrity leaves kprobe events and the kprobe PMU to
# root; confidentiality leaves tracing unset (no kprobe_events or
# dynamic_events file) and the kprobe PMU refuses (EPERM).  An unsigned
# module is refused in both.
. /opt/probes/lib.sh

want=none
for arg in $(cat /proc/cmdline); do
	case $arg in lockdown=*) want=${arg#lockdown=} ;; esac
done
tap_begin /results/lockdown.tap
p=lockdown-$want

mountpoint -q /sys/kernel/security || mount -t securityfs securityfs /sys/kernel/security
state=$(cat /sys/kernel/security/lockdown 2>/dev/null)
echo "probes: lockdown state: $state"
case $state in
*"[$want]"*) tap_result ok "$p:state" ;;
*) tap_result fail "$p:state" "lockdown file says '${state:-nothing}'" ;;
esac

# Modules are installed unsigned (see probes.config): lockdown must
# refuse them in both modes, as it refuses any module without a valid
# signature.
if modprobe kprobe_example 2>/dev/null; then
	tap_result fail "$p:unsigned-module-refused" "kprobe_example loaded"
	rmmod kprobe_example
else
	tap_result ok "$p:unsigned-module-refused"
fi

/opt/probes/bin/probe_access root > /tmp/access.out 2>&1
echo "probes: access as root: $(tr '\n' ' ' < /tmp/access.out)"
for what in kprobe_events dynamic_events perf_kprobe; do
	got=$(grep "^$what " /tmp/access.out)
	# Under confidentiality the base does not set tracing up at all
	# ("Tracing disabled due to lockdown"): the tracefs files are not
	# there; the kprobe PMU refuses with EPERM.
	case $want:$what in
	integrity:*) expect="$what allowed" ;;
	*:perf_kprobe) expect="$what denied EPERM" ;;
	*) expect="$what denied ENOENT" ;;
	esac
	if [ "$got" = "$expect" ]; then
		tap_result ok "$p:root-$what"
	else
		tap_result fail "$p:root-$what" "expected '$expect', got '${got:-nothing}'"
	fi
done
tap_end
