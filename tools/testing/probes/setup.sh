#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install what the harness needs on a Debian 12 host, once.  A second run
# installs nothing: packages already present are not asked for again.
#
# Usage: setup.sh ARCH [clients]
# "clients" adds what make check-clients needs (debootstrap for its root
# image, mkfs.ext4 to pack it).
#
# For arm64 it also fetches the arm64 busybox-static and bash-static
# packages (dpkg --add-architecture arm64, apt-get download) and unpacks
# them into $PROBES_BUILD/arm64-userland (default build/) for the guest's
# initramfs.
set -euo pipefail

arch=${1:-x86_64}
build=$(realpath -m "${PROBES_BUILD:-build}")
pkgs=(linux-source-6.12 gcc make bc flex bison libelf-dev libssl-dev cpio kmod
      busybox-static bash-static qemu-system-x86 ccache rsync git xz-utils
      python3 perl dwarves)
[ "$arch" = arm64 ] && pkgs+=(gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-system-arm)
[ "${2:-}" = clients ] && pkgs+=(debootstrap e2fsprogs)

missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p")
done

# The guest's static userland for arm64: the same Debian packages as the
# host's, for arm64, unpacked (not installed) under BUILD_DIR.
arm64_userland() {
	local dest=$build/arm64-userland tmp p
	[ -x "$dest/bin/busybox" ] && [ -x "$dest/bin/bash-static" ] && return 0
	if ! dpkg --print-foreign-architectures | grep -qx arm64; then
		[ "$(id -u)" = 0 ] || { echo "setup: run as root to add the arm64 architecture" >&2; exit 1; }
		echo "  SETUP    dpkg --add-architecture arm64"
		dpkg --add-architecture arm64
		apt-get update -q >/dev/null
	fi
	tmp=$(mktemp -d)
	chmod 755 "$tmp"
	for p in busybox-static bash-static; do
		(cd "$tmp" && apt-get download -q "$p:arm64" >/dev/null 2>&1) ||
			{ apt-get update -q >/dev/null && (cd "$tmp" && apt-get download -q "$p:arm64" >/dev/null); }
	done
	mkdir -p "$dest"
	for d in "$tmp"/*.deb; do dpkg-deb -x "$d" "$dest"; done
	rm -rf "$tmp"
	echo "  SETUP    arm64 busybox and bash in ${dest#$PWD/}"
}

if [ ${#missing[@]} = 0 ]; then
	echo "  SETUP    all host packages present"
	[ "$arch" != arm64 ] || arm64_userland
	exit 0
fi
if [ "$(id -u)" != 0 ]; then
	echo "setup: missing packages (${missing[*]}); run as root or install them" >&2
	exit 1
fi
echo "  SETUP    apt-get install ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
# Refresh the lists when they are old or the first install attempt fails.
if [ -z "$(find /var/lib/apt/lists -maxdepth 1 -name '*Packages*' -mmin -1440 2>/dev/null | head -1)" ]; then
	apt-get update -q >/dev/null
fi
apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null ||
	{ apt-get update -q >/dev/null && apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null; }
[ "$arch" != arm64 ] || arm64_userland
