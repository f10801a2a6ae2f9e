#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install what the harness needs on a Debian 12 host, once.  A second run
# installs nothing: packages already present are not asked for again.
#
# Usage: setup.sh ARCH [clients]
# "clients" adds what make check-clients needs (debootstrap for its root
# image, mkfs.ext4 to pack it, clang-19 for the BPF selftests).
#
# QEMU comes from Debian's bookworm-backports (10.0, against bookworm's
# 7.2): the multi-threaded TCG of 7.2 can run code another vCPU has just
# rewritten from a stale translation (RELIABILITY.md, findings 12 and
# 13), so guests on it had to run one vCPU at a time.  The suite is added
# from the same mirror as the host's own bookworm entry, and pinned so
# that only the qemu-system packages and the newer seabios they need come
# from it; nothing else on the host moves.
#
# For arm64 it also fetches the arm64 busybox-static and bash-static
# packages (dpkg --add-architecture arm64, apt-get download) and unpacks
# them into $PROBES_BUILD/arm64-userland (default build/) for the guest's
# initramfs.
set -euo pipefail

arch=${1:-x86_64}
build=$(realpath -m "${PROBES_BUILD:-build}")
pkgs=(linux-source-6.12 gcc make bc flex bison libelf-dev libssl-dev cpio kmod
      busybox-static bash-static ccache rsync git xz-utils
      python3 perl dwarves)
qemu_pkgs=(qemu-system-x86)
[ "$arch" = arm64 ] && pkgs+=(gcc-aarch64-linux-gnu libc6-dev-arm64-cross) &&
	qemu_pkgs+=(qemu-system-arm)
# clang-19 and lld-19 (bookworm's newest LLVM) build the BPF selftests
# of 6.12, which want a newer one than bookworm's default clang 14.
[ "${2:-}" = clients ] && pkgs+=(debootstrap e2fsprogs)
[ "${2:-}" = clients ] && [ "$arch" = x86_64 ] && pkgs+=(clang-19 lld-19 llvm-19)
qemu_min=1:10
bpo=bookworm-backports
bpo_list=/etc/apt/sources.list.d/probes-backports.sources
bpo_pin=/etc/apt/preferences.d/probes-backports

installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'ok installed'; }
qemu_new() {
	installed "$1" &&
		dpkg --compare-versions "$(dpkg-query -W -f='${Version}' "$1")" ge "$qemu_min"
}

missing=() qemu_missing=()
for p in "${pkgs[@]}"; do
	installed "$p" || missing+=("$p")
done
for p in "${qemu_pkgs[@]}"; do
	qemu_new "$p" || qemu_missing+=("$p")
done

# write_if_changed FILE: stdin to FILE unless it already says that;
# status 0 when the file was (re)written.
write_if_changed() {
	local new
	new=$(cat)
	[ -f "$1" ] && [ "$(cat "$1")" = "$new" ] && return 1
	printf '%s\n' "$new" > "$1"
}

# bookworm-backports from the mirror of the host's bookworm entry (apt
# itself resolves one-line and deb822 sources), signed by the Debian
# archive keyring as bookworm is; lists refreshed when the entry or pin
# is new or its lists were never fetched.
backports() {
	local uri key changed=0
	uri=$(apt-get indextargets --format '$(REPO_URI)' 'Codename: bookworm' \
		'Target-Of: deb' 'Identifier: Packages' | head -1)
	[ -n "$uri" ] || uri=$(apt-get indextargets --format '$(REPO_URI)' 'Release: bookworm' \
		'Target-Of: deb' 'Identifier: Packages' | head -1)
	if [ -z "$uri" ]; then
		echo "setup: no bookworm entry in the host's apt sources to take $bpo from" >&2
		exit 1
	fi
	key=/usr/share/keyrings/debian-archive-keyring.gpg
	write_if_changed "$bpo_list" <<-EOF && changed=1
	# Written by tools/testing/probes/setup.sh: QEMU 10 for the probes
	# harness (multi-threaded TCG), pinned in $bpo_pin.
	Types: deb
	URIs: $uri
	Suites: $bpo
	Components: main
	$(if [ -r "$key" ]; then echo "Signed-By: $key"; else echo "# apt's trusted keys"; fi)
	EOF
	write_if_changed "$bpo_pin" <<-EOF && changed=1
	# Written by tools/testing/probes/setup.sh: from $bpo only QEMU's
	# system emulators, their common and data packages, and the seabios
	# they depend on; everything else stays at bookworm's.
	Package: qemu-system-* seabios
	Pin: release n=$bpo
	Pin-Priority: 990

	Package: *
	Pin: release n=$bpo
	Pin-Priority: 100
	EOF
	if [ $changed = 1 ] || [ -z "$(apt-get indextargets --format '$(FILENAME)' \
		"Release: $bpo" 'Identifier: Packages' | xargs -r ls 2>/dev/null)" ]; then
		echo "  SETUP    $bpo from $uri (qemu-system-* and seabios pinned)"
		apt-get update -q >/dev/null
	fi
}

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

if [ ${#missing[@]} = 0 ] && [ ${#qemu_missing[@]} = 0 ]; then
	echo "  SETUP    all host packages present"
	[ "$arch" != arm64 ] || arm64_userland
	exit 0
fi
if [ "$(id -u)" != 0 ]; then
	echo "setup: missing packages (${missing[*]} ${qemu_missing[*]}; QEMU >= $qemu_min from $bpo); run as root or install them" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
if [ ${#qemu_missing[@]} != 0 ]; then
	backports
	missing+=("${qemu_missing[@]}")
fi
echo "  SETUP    apt-get install ${missing[*]}"
# Refresh the lists when they are old or the first install attempt fails.
if [ -z "$(find /var/lib/apt/lists -maxdepth 1 -name '*Packages*' -mmin -1440 2>/dev/null | head -1)" ]; then
	apt-get update -q >/dev/null
fi
apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null ||
	{ apt-get update -q >/dev/null && apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null; }
for p in "${qemu_pkgs[@]}"; do
	qemu_new "$p" && continue
	echo "setup: $p $(dpkg-query -W -f='${Version}' "$p" 2>/dev/null) installed, not >= $qemu_min from $bpo" >&2
	exit 1
done
[ "$arch" != arm64 ] || arm64_userland
