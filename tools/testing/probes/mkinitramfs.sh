#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the guest's initramfs:
#   /bin       busybox (static) and bash (static, for ftracetest)
#   /lib/modules/<release>   the kernel's modules (modules_install output)
#   /opt/ftrace              the tree's tools/testing/selftests/ftrace, unmodified
#   /opt/probes              our guest scripts and tests
#   /init                    guest/init
#
# Usage: mkinitramfs.sh ARCH KERNEL_OUT SRC_DIR REPO_DIR OUTPUT
set -euo pipefail

arch=$1 out=$(realpath "$2") src=$(realpath "$3") repo=$(realpath "$4") dest=$(realpath -m "$5")
here=$repo/tools/testing/probes

case $arch in
x86_64) busybox=/bin/busybox bash=/bin/bash-static ;;
arm64)  busybox=${ARM64_BUSYBOX:-${out%/*}/arm64-userland/bin/busybox}
	bash=${ARM64_BASH:-${out%/*}/arm64-userland/bin/bash-static} ;;
esac
# The applet names; the host's busybox (same Debian version) lists them
# when the guest's cannot run here.
applets=$("$busybox" --list 2>/dev/null || /bin/busybox --list 2>/dev/null || true)

root=$(mktemp -d "${dest%/*}/initramfs.XXXXXX")
trap 'rm -rf "$root"' EXIT

mkdir -p "$root"/{bin,sbin,dev,proc,sys,tmp,root,etc,results,lib/modules,opt,usr/bin,usr/sbin}
cp "$busybox" "$root/bin/busybox"
cp "$bash" "$root/bin/bash"
for applet in $applets; do
	[ -e "$root/bin/$applet" ] || ln -s busybox "$root/bin/$applet"
done
ln -sf bash "$root/bin/sh"
# Debian's busybox has renice but no nice, which ftracetest's onchange
# and snapshot trigger cases run ("nice -n 1 ping ..."): the same thing
# on renice.
if [ ! -e "$root/bin/nice" ]; then
	cat > "$root/bin/nice" <<-'EOF'
	#!/bin/sh
	# nice [-n N] COMMAND...: COMMAND with its niceness raised by N (10).
	n=10
	if [ "$1" = -n ]; then n=$2; shift 2; fi
	renice -n "$n" -p $$ > /dev/null && exec "$@"
	EOF
	chmod +x "$root/bin/nice"
fi
cp -a "$out/modroot/lib/modules/." "$root/lib/modules/"
cp -a "$src/tools/testing/selftests/ftrace" "$root/opt/ftrace"
cp -a "$here/guest" "$root/opt/probes"
if [ -d "$repo/tools/testing/selftests/probes" ]; then
	cp -a "$repo/tools/testing/selftests/probes" "$root/opt/probes/selftests"
	# The selftests and their recorded expectations name x86 registers.
	# On arm64 they get the registers that play the same part, with
	# names of the same length, so that error_log carets stay put:
	# %di, %si, %dx (arguments 1-3) -> %x0, %x1, %x2; %ax -> %x9 (a
	# register distinct from those); %ip -> %pc; %sp stays.  And
	# vfs_read+4, the function entry on x86 (after ENDBR), is +0 here.
	if [ "$arch" = arm64 ]; then
		find "$root/opt/probes/selftests" -type f ! -name '*.c' -print0 |
			xargs -0 sed -i -E 's/%di\b/%x0/g; s/%si\b/%x1/g;
				s/%dx\b/%x2/g; s/%ax\b/%x9/g; s/%ip\b/%pc/g;
				s/vfs_read\+4 /vfs_read+0 /g'
	fi
	# C helpers of the selftests, static for the guest (no compiler there)
	case $arch in x86_64) tcc=gcc ;; arm64) tcc=aarch64-linux-gnu-gcc ;; esac
	for c in $(find "$root/opt/probes/selftests" -name '*.c'); do
		$tcc -static -O2 -Wall -o "${c%.c}" "$c"
	done
fi
# The reliability tools (guest/reliability.sh), static binaries.
mkdir -p "$root/opt/probes/bin"
for t in kprobe_fuzz probe_access unwind_exit; do
	case $arch in x86_64) hostcc=gcc ;; *) hostcc=${arch/arm64/aarch64}-linux-gnu-gcc ;; esac
	$hostcc -static -O2 -Wall -o "$root/opt/probes/bin/$t" "$here/reliability/$t.c"
done
cp "$here/guest/init" "$root/init"
chmod +x "$root/init"
echo "root:x:0:0:root:/root:/bin/sh" > "$root/etc/passwd"
echo "nobody:x:65534:65534:nobody:/:/bin/sh" >> "$root/etc/passwd"
echo "root:x:0:" > "$root/etc/group"
echo "nogroup:x:65534:" >> "$root/etc/group"

(cd "$root" && find . -print0 | cpio --null -o -H newc --quiet) | gzip -1 > "$dest.tmp"
mv "$dest.tmp" "$dest"
echo "  INITRAMFS ${dest#$PWD/} $(du -h "$dest" | cut -f1)"
