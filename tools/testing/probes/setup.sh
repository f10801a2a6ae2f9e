#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install what the harness needs on a Debian 12 host, once.  A second run
# installs nothing: packages already present are not asked for again.
#
# Usage: setup.sh ARCH [clients]
# "clients" adds what make check-clients needs (debootstrap for its root
# image, mkfs.ext4 to pack it).
set -euo pipefail

arch=${1:-x86_64}
pkgs=(linux-source-6.12 gcc make bc flex bison libelf-dev libssl-dev cpio kmod
      busybox-static bash-static qemu-system-x86 ccache rsync git xz-utils
      python3 perl dwarves)
[ "$arch" = arm64 ] && pkgs+=(gcc-aarch64-linux-gnu qemu-system-arm)
[ "${2:-}" = clients ] && pkgs+=(debootstrap e2fsprogs)

missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p")
done
if [ ${#missing[@]} = 0 ]; then
	echo "  SETUP    all host packages present"
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
