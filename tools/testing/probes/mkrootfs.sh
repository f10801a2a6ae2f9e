#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The guest root file system of make check-clients: Debian bookworm
# (minbase) with the distribution's probe clients, packed into an ext4
# image that the guest attaches read-only.
#
#   mkrootfs.sh IMAGE_LINK
#
# The image is cached outside the checkout, in $CLIENTS_CACHE (default
# /var/cache/probes-clients), under a name keyed by the suite, the package
# list and this script, so a clean clone reuses it and a change of the
# list builds a new one (so does a change of $layout, to be bumped when
# this script changes what goes into the image).  IMAGE_LINK becomes a symbolic link to it.
#
# The packages come from the host's own apt sources (the first one that
# serves the suite's main component), or from debootstrap's default when
# the host has none; $CLIENTS_MIRROR overrides both.  No mirror is named
# in the repository.  The guest needs no network: everything the clients
# use is in the image.
set -euo pipefail

link=$(realpath -m "$(dirname "$1")")/$(basename "$1")
suite=bookworm
# The clients, and xz-utils for bcc to unpack /sys/kernel/kheaders.tar.xz.
pkgs=(linux-perf bpftrace bpfcc-tools bpftool kmod procps xz-utils coreutils)
layout=1
cache=${CLIENTS_CACHE:-/var/cache/probes-clients}

log() { printf '  %-8s %s\n' "$1" "$2"; }

key=$(echo "$suite minbase ${pkgs[*]} layout $layout" | sha1sum | cut -c1-16)
image=$cache/rootfs-$suite-$key.ext4
mkdir -p "$cache" "$(dirname "$link")"
if [ -s "$image" ]; then
	log ROOTFS "cached ${image} ($(du -h "$image" | cut -f1))"
	ln -sfn "$image" "$link.new" && mv -T "$link.new" "$link"
	exit 0
fi

# The host's mirror for $suite main: one-line and deb822 sources.
host_mirror() {
	local f
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -r "$f" ] || continue
		awk -v s="$suite" '$1 == "deb" && $0 !~ /\[/ && $3 == s && / main/ { print $2; exit }' "$f"
	done
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -r "$f" ] || continue
		awk -v s="$suite" '
			/^$/ { if (uri && suites ~ "(^| )" s "( |$)" && comps ~ /main/) { print uri; exit } uri = suites = comps = "" }
			/^URIs:/ { uri = $2 }
			/^Suites:/ { $1 = ""; suites = $0 " " }
			/^Components:/ { comps = $0 }
			END { if (uri && suites ~ "(^| )" s "( |$)" && comps ~ /main/) print uri }' "$f"
	done
}
mirror=${CLIENTS_MIRROR:-$(host_mirror | head -1)}

# One build at a time; a second caller waits and then finds the image.
exec 8> "$cache/.lock"
flock 8
if [ -s "$image" ]; then
	ln -sfn "$image" "$link.new" && mv -T "$link.new" "$link"
	exit 0
fi

root=$(mktemp -d "$cache/root.XXXXXX")
cleanup() {
	umount -R "$root/proc" 2>/dev/null || true
	rm -rf "$root" "$image.tmp"
}
trap cleanup EXIT

t0=$(date +%s)
log DEBOOT "$suite minbase + ${pkgs[*]} (from ${mirror:-the debootstrap default})"
# minbase first, then apt inside the root: apt resolves the clients'
# dependencies as a user's "apt-get install" would (no recommends).
debootstrap --variant=minbase "$suite" "$root" ${mirror:+"$mirror"} \
	> "$cache/debootstrap.log" 2>&1 ||
	{ tail -20 "$cache/debootstrap.log" >&2; exit 1; }
cp /etc/resolv.conf "$root/etc/resolv.conf"
mount -t proc proc "$root/proc"
chroot "$root" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
	--no-install-recommends "${pkgs[@]}" >> "$cache/debootstrap.log" 2>&1 ||
	{ tail -20 "$cache/debootstrap.log" >&2; exit 1; }
umount "$root/proc"
chroot "$root" apt-get clean
rm -rf "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/*.bin "$root/etc/resolv.conf"
: > "$root/etc/resolv.conf"
echo probes > "$root/etc/hostname"
# What is in it, for the report.
chroot "$root" dpkg-query -W -f '${Package} ${Version}\n' "${pkgs[@]}" \
	python3-bpfcc libbpfcc 2>/dev/null > "$root/etc/probes-clients-versions" || true

# An ext4 image of the tree, with some room to spare (the guest mounts
# it read-only under a tmpfs overlay).
mb=$(( $(du -sm "$root" | cut -f1) * 12 / 10 + 64 ))
mkfs.ext4 -q -F -L probes-clients -d "$root" "$image.tmp" "${mb}M" > /dev/null
mv "$image.tmp" "$image"
ln -sfn "$image" "$link.new" && mv -T "$link.new" "$link"
log ROOTFS "$image ($(du -h "$image" | cut -f1), $(($(date +%s) - t0))s)"
