# SPDX-License-Identifier: GPL-2.0
#
# Helpers of the host-side harness scripts that build for an ARCH; source
# it after "set -euo pipefail".

# log TAG TEXT: one aligned line of progress, as kbuild prints.
log() { printf '  %-8s %s\n' "$1" "$2"; }

# arch_vars ARCH SCRIPT: set karch and cross, the kernel's ARCH and
# CROSS_COMPILE for our ARCH, or stop with SCRIPT's name.
arch_vars() {
	case $1 in
	x86_64) karch=x86_64 cross= ;;
	arm64)  karch=arm64 cross=aarch64-linux-gnu- ;;
	*) echo "$2: unsupported ARCH $1" >&2; exit 1 ;;
	esac
}
