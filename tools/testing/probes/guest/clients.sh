#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check-clients, guest side, in the initramfs: the BTF ftracetest
# cases, then the Debian root with perf, bpftrace and bcc (the read-only
# virtio disk under a tmpfs overlay) and clients-checks.sh inside it,
# then the BPF selftests' probe subtests (bpf-selftests.sh).
# The kernel's build directory is shared read-only as "kbuild": perf
# probe finds the DWARF of vmlinux where a Debian -dbg package puts it.
. /opt/probes/lib.sh

# 1. The ftracetest cases that need BTF, unmodified, from the tree.
run_ftracetest

# 2. The Debian root.
R=/mnt/root
rel=$(uname -r)
mkdir -p /mnt/lower /mnt/rw $R
if ! mount -t ext4 -o ro,noload /dev/vda /mnt/lower; then
	echo "probes: clients: cannot mount the root image /dev/vda"
	exit 0
fi
mount -t tmpfs -o size=1G tmpfs /mnt/rw
mkdir -p /mnt/rw/upper /mnt/rw/work
if ! mount -t overlay overlay \
	-o lowerdir=/mnt/lower,upperdir=/mnt/rw/upper,workdir=/mnt/rw/work $R; then
	echo "probes: clients: cannot mount the overlay"
	exit 0
fi
for d in proc sys dev results; do
	mkdir -p $R/$d
	mount -o rbind /$d $R/$d
done
mount -t tmpfs tmpfs $R/tmp
mkdir -p $R/lib/modules $R/opt/probes $R/kbuild $R/usr/lib/debug/boot
cp -a /lib/modules/. $R/lib/modules/
cp -a /opt/probes/. $R/opt/probes/
if mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000,ro kbuild $R/kbuild; then
	ln -sf /kbuild/vmlinux $R/usr/lib/debug/boot/vmlinux-$rel
else
	echo "probes: clients: no kbuild share (perf probe has no DWARF)"
fi

echo "probes: clients: $(cat $R/etc/debian_version 2>/dev/null) root, running the checks"
chroot $R /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
	HOME=/root TERM=dumb LANG=C.UTF-8 /bin/bash /opt/probes/clients-checks.sh
echo "probes: clients: checks exit $?"

# 3. The BPF selftests' probe subtests (test_progs, built on the host).
chroot $R /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
	HOME=/root TERM=dumb LANG=C.UTF-8 /bin/bash /opt/probes/bpf-selftests.sh
dmesg > /results/dmesg.txt
