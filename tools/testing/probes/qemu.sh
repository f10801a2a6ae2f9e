#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Boot a kernel + initramfs in QEMU with a hard time-out.
#
#   qemu.sh ARCH KERNEL INITRAMFS MODE LOG RESULTS_DIR TIMEOUT_S [CMDLINE...]
#
# The console goes to LOG (and to stdout when VERBOSE=1 or MODE=run);
# RESULTS_DIR is shared with the guest over 9p as /results.  KVM is used
# only when a test guest really runs under it (see kvm_works), otherwise
# TCG.  QEMU_EXTRA adds QEMU arguments (make check-clients: the root
# image as a read-only virtio disk, the kernel build as a 9p share).
# Exit status: 0 when the guest powered off by itself, 124 on
# time-out (with LOG.vcpus: what each vCPU was doing, see on_timeout),
# else QEMU's status.
set -uo pipefail

arch=$1 kernel=$2 initrd=$3 mode=$4 log=$5 results=$6 tmo=$7
shift 7
extra="$*"

mkdir -p "$(dirname "$log")" "$results"

# /dev/kvm may open, create a VM and even run a boot sector where a real
# kernel still hangs (nested hosts).  So boot this very kernel under KVM
# into the initramfs' "kvmprobe" mode, which powers off at once, and use
# KVM only if that arrives in time.  The verdict is kept per host boot.
kvm_works() {
	[ "${ACCEL:-auto}" = tcg ] && return 1
	[ "${ACCEL:-auto}" = kvm ] && return 0
	[ "$arch" = x86_64 ] && [ -w /dev/kvm ] || return 1
	local cache plog
	cache=$(dirname "$log")/kvm-verdict.$(cat /proc/sys/kernel/random/boot_id 2>/dev/null)
	if [ ! -f "$cache" ]; then
		plog=$(dirname "$log")/kvm-probe.log
		timeout -k 2 40 qemu-system-x86_64 -M q35 -accel kvm -cpu host -smp 2 -m 1G \
			-nographic -no-reboot -kernel "$kernel" -initrd "$initrd" \
			-append "console=ttyS0 panic=-1 probes.mode=kvmprobe" \
			> "$plog" 2>&1 < /dev/null
		if grep -q 'probes: kvmprobe done' "$plog"; then echo kvm; else echo tcg; fi > "$cache"
	fi
	[ "$(cat "$cache")" = kvm ]
}

# TCG threading.  Multi-threaded TCG (one host thread per vCPU) is the
# only way two vCPUs really execute at once; it is the default from QEMU
# 10 on.  With Debian 12's QEMU 7.2 one thread still runs all vCPUs, as
# its multi-threaded TCG can keep a translation made on one vCPU while
# another vCPU rewrites that code: the translating vCPU reads the bytes,
# the writer patches them and drops the page's translations, then the
# reader files its now stale block.  Seen here as a vCPU trapping forever
# on an int3 that text_poke_bp() had already replaced (a jump label in
# __schedule(), patched by the tree's jump label code, not by ours;
# single-stepping that vCPU in gdb retranslated the block and the guest
# went on), and as int3s written to memory that a vCPU never hit
# (RELIABILITY.md, findings 12 and 13).  setup.sh installs QEMU 10 from
# bookworm-backports.  TCG_THREAD=single|multi overrides the default;
# -icount needs one thread.  QEMU_BIN runs another QEMU binary (e.g. Debian
# 12's 7.2 unpacked from its .deb, for torture-compare.sh); its firmware
# directory goes in QEMU_EXTRA ("-L DIR").
case $arch in
x86_64) qemu_bin=${QEMU_BIN:-qemu-system-x86_64} ;;
arm64)  qemu_bin=${QEMU_BIN:-qemu-system-aarch64} ;;
esac
qemu_version=$("$qemu_bin" --version 2>/dev/null |
	sed -nE '1s/^QEMU emulator version ([0-9]+(\.[0-9]+)*).*/\1/p')
# arm64 guests stay on one thread until a full arm64 check has passed
# multi-threaded (TCG_THREAD=multi tries it).
if [ "${qemu_version%%.*}" -ge 10 ] 2>/dev/null && [ "$arch" = x86_64 ]; then
	tcg_thread=${TCG_THREAD:-multi}
else
	tcg_thread=${TCG_THREAD:-single}
fi
[ -n "${ICOUNT:-}" ] && tcg_thread=single
tcg=tcg,thread=$tcg_thread

# vCPUs: SMP=N (default 2).  The concurrency tests need at least two.
smp=${SMP:-2}

case $arch in
x86_64)
	qemu=("$qemu_bin" -M q35)
	arch_args=
	if kvm_works; then
		qemu+=(-accel kvm -cpu host)
		accel=kvm
	else
		qemu+=(-accel "$tcg" -cpu max)
		accel="tcg thread=$tcg_thread"
		# The config has no ACPI (so no HPET or PM timer), and the
		# kernel takes the TSCs of TCG's "max" CPU (not Intel, no
		# invariant TSC, one per socket) for out of sync: it would
		# keep time with jiffies, on which high-resolution timers
		# cannot run.  TCG's TSC is one counter for all vCPUs, never
		# going back (cpu_get_ticks()): trust it.
		arch_args=tsc=reliable
	fi
	console=ttyS0
	;;
arm64)
	# GICv3 with pseudo-NMIs on (CONFIG_ARM64_PSEUDO_NMI, as Debian's
	# arm64 kernel has it): interrupt masking is then the GIC's priority
	# mask as well as PSTATE, which every hand-made pt_regs and stepped
	# copy must get right (RELIABILITY.md, finding 63).
	qemu=("$qemu_bin" -M virt,gic-version=3 -cpu max -accel "$tcg")
	accel="tcg thread=$tcg_thread"
	console=ttyAMA0
	arch_args=irqchip.gicv3_pseudo_nmi=1
	;;
esac
[ -n "${ICOUNT:-}" ] && qemu+=(-icount "$ICOUNT") && accel="$accel icount=$ICOUNT"

cmdline="console=$console panic=-1 nokaslr loglevel=7 probes.mode=$mode${arch_args:+ $arch_args} $extra"
echo "  QEMU     $arch ${qemu_version:-?} ($accel) smp=$smp mode=$mode timeout=${tmo}s log=${log#$PWD/}"
# How the guest ran, for the results' TAP header (report.sh).
echo "${qemu_version:-?} $accel smp=$smp" > "$results/qemu.txt"

# N CPUs as N sockets: the x86 config has no ACPI, so the kernel
# learns the CPUs from SeaBIOS's MP table, which lists one CPU per
# package; "-smp 2" alone (one package, two cores) boots with one CPU.
# No network card: the guests use loopback only, and QEMU 10.0.2 once
# aborted at boot on the q35 default e1000e ("msix_table_mmio_write:
# Assertion `addr + size <= dev->msix_entries_nr * PCI_MSIX_ENTRY_SIZE'
# failed") while the kernel enumerated it under multi-threaded TCG.
qemu+=(-nic none)
qemu+=(-smp "$smp,sockets=$smp,cores=1,threads=1" -m 2G -nographic -no-reboot
	-kernel "$kernel" -initrd "$initrd" -append "$cmdline"
	-virtfs "local,path=$results,mount_tag=results,security_model=none,id=results")
# shellcheck disable=SC2206 # QEMU_EXTRA is a list of words
[ -n "${QEMU_EXTRA:-}" ] && qemu+=($QEMU_EXTRA)

# A guest that runs past its time-out in a test mode is not just killed:
# vcpu-dump.sh first reads every vCPU's registers and stack through
# QEMU's gdb stub into LOG.vcpus, then the guest gets HANG_GRACE more
# seconds (default 60) to show whether it moves on by itself once the
# stub has stopped and resumed it (RELIABILITY.md, finding 18).
on_timeout() {
	local qpid=$1 size
	touch "$sock_dir/timed-out"
	echo "  QEMU     timed out after ${tmo}s; vCPU state in ${log#$PWD/}.vcpus" >&2
	{
		echo "# $(date -u '+%F %T') UTC, ${tmo}s after boot: every vCPU"
		"$here/vcpu-dump.sh" "$arch" "$gdb_sock" "$vmlinux"
	} > "$log.vcpus" 2>&1
	size=$(stat -c %s "$log")
	sleep "${HANG_GRACE:-60}"
	if [ "$(stat -c %s "$log")" != "$size" ]; then
		echo "# after the dump the guest printed $(( $(stat -c %s "$log") - size )) more bytes of console" >> "$log.vcpus"
	else
		echo "# after the dump the guest printed nothing more" >> "$log.vcpus"
	fi
	# A second look: did the PCs and jiffies move?
	{
		echo "# $(date -u '+%F %T') UTC, ${HANG_GRACE:-60}s later: every vCPU again"
		"$here/vcpu-dump.sh" "$arch" "$gdb_sock" "$vmlinux"
	} >> "$log.vcpus" 2>&1
	kill -TERM "$qpid" 2>/dev/null
	sleep 5
	kill -KILL "$qpid" 2>/dev/null
}

t0=$SECONDS
if [ "${VERBOSE:-0}" = 1 ] || [ "$mode" = run ] || [ "$mode" = shell ]; then
	timeout --foreground -k 5 "$tmo" "${qemu[@]}" 2>&1 | tee "$log"
	rc=${PIPESTATUS[0]}
else
	here=$(dirname "$(readlink -f "$0")")
	vmlinux=${VMLINUX:-$(dirname "$kernel")/vmlinux}
	sock_dir=$(mktemp -d /tmp/probes-qemu.XXXXXX)
	trap 'rm -rf "$sock_dir"' EXIT
	rm -f "$log.vcpus"
	# QEMU_GDB_SOCK: where the stub listens, for a debugger of one's own
	# (bench/insn-profile.sh); by default a private directory.
	gdb_sock=${QEMU_GDB_SOCK:-$sock_dir/gdb}
	qemu+=(-chardev "socket,id=gdbstub,path=$gdb_sock,server=on,wait=off"
	       -gdb chardev:gdbstub)
	"${qemu[@]}" > "$log" 2>&1 < /dev/null &
	qpid=$!
	(
		deadline=$((SECONDS + tmo))
		while kill -0 "$qpid" 2>/dev/null; do
			if [ $SECONDS -ge $deadline ]; then
				on_timeout "$qpid"
				break
			fi
			sleep 2
		done
	) &
	wpid=$!
	wait "$qpid"
	rc=$?
	kill "$wpid" 2>/dev/null
	wait "$wpid" 2>/dev/null
	[ -e "$sock_dir/timed-out" ] && rc=124
fi
[ $rc = 124 ] && [ ! -e "${sock_dir:-/nonexistent}/timed-out" ] &&
	echo "  QEMU     timed out after ${tmo}s" >&2
# Wall time, to compare TCG threading and vCPU counts.
echo "  QEMU     $mode: $((SECONDS - t0))s wall, exit $rc"
exit $rc
