#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check-clients: build the clients' test modules
# (tools/testing/probes/clients-module/, public probe API only) against
# the clients kernel, ours or the base, into KERNEL_OUT/clients-module/;
# the guest loads them from the kbuild share.
#
#   clients-module.sh ARCH KERNEL_OUT
set -euo pipefail

arch=$1 kout=$(realpath "$2")
here=$(dirname "$(readlink -f "$0")")
mod=$kout/clients-module
karch=$arch cross=
[ "$arch" = x86_64 ] && karch=x86
[ "$arch" = arm64 ] && cross=aarch64-linux-gnu-

mkdir -p "$mod"
rsync -a "$here/clients-module/" "$mod/"
# Always rebuilt: a module left from an earlier kernel carries BTF
# against that kernel's vmlinux, which the new one refuses.
rm -f "$mod"/*.ko "$mod"/*.o "$mod"/*.mod "$mod"/*.mod.c
printf '  %-8s %s\n' MODULE "probes_unload.ko against $kout"
make -s -C "$kout" M="$mod" ARCH="$karch" CROSS_COMPILE="$cross" \
	CC="ccache ${cross}gcc" modules
