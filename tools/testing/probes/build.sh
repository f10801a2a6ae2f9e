#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Configure and build one kernel out of tree.
#
#   build.sh ARCH SRC_DIR OUT_DIR FRAGMENT...
#
# The config is "make tinyconfig" plus the fragments, then olddefconfig.
# It is regenerated only when a fragment changes (kbuild's own syncconfig
# follows Kconfig changes of the overlay).  Every =y/=m line of the
# fragments must be in the final .config, otherwise the build stops and
# names the options that did not stick (of an option that several
# fragments set, the last value counts).
set -euo pipefail

arch=$1 src=$(realpath "$2") out=$(realpath -m "$3")
shift 3
frags=()
for f in "$@"; do frags+=("$(realpath "$f")"); done

jobs=${JOBS:-$(nproc)}
case $arch in
x86_64) karch=x86_64 image=arch/x86/boot/bzImage cross= ;;
arm64)  karch=arm64 image=arch/arm64/boot/Image cross=aarch64-linux-gnu- ;;
*) echo "build.sh: unsupported ARCH $arch" >&2; exit 1 ;;
esac

cc="${cross}gcc"
if command -v ccache >/dev/null; then
	cc="ccache $cc"
	export CCACHE_DIR=${CCACHE_DIR:-/var/cache/probes-ccache}
	export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-8G}
	export CCACHE_BASEDIR=$(dirname "$src")
	export CCACHE_NOHASHDIR=1
	export CCACHE_SLOPPINESS=time_macros,include_file_mtime,include_file_ctime
fi
# Reproducible build info keeps ccache hits and relinks cheap.
export KBUILD_BUILD_TIMESTAMP="${KBUILD_BUILD_TIMESTAMP:-2026-01-01}"
export KBUILD_BUILD_USER=probes KBUILD_BUILD_HOST=qemu

kmake() {
	make -s -C "$src" O="$out" ARCH="$karch" CROSS_COMPILE="$cross" \
		CC="$cc" HOSTCC="ccache gcc" LOCALVERSION= "$@"
}

# One kernel build at a time on this machine, whichever checkout asks.
exec 9> "${PROBES_BUILD_LOCK:-/tmp/probes-build.lock}"
if ! flock -n 9; then
	echo "  WAIT     another kernel build holds the build lock"
	flock 9
fi

mkdir -p "$out"
stamp=$(cat "${frags[@]}" | sha1sum | cut -c1-16)
if [ ! -f "$out/.config" ] || [ "$(cat "$out/.probes-config-stamp" 2>/dev/null)" != "$stamp" ]; then
	echo "  CONFIG   tinyconfig + ${*##*/}"
	kmake tinyconfig >/dev/null
	"$src/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" "${frags[@]}" >/dev/null
	kmake olddefconfig >/dev/null
	# A later fragment may override an option of an earlier one (e.g.
	# debug.config's "# CONFIG_PREEMPT_NONE is not set"): only the last
	# value of each option is what must stick.
	declare -A last=()
	while IFS= read -r line; do
		case $line in
		"# CONFIG_"*" is not set") opt=${line#\# }; last[${opt%% *}]= ;;
		*) last[${line%%=*}]=$line ;;
		esac
	done < <(cat "${frags[@]}" | grep -E '^(CONFIG_[A-Z0-9_]+=.*|# CONFIG_[A-Z0-9_]+ is not set)$')
	missing=0
	while IFS= read -r line; do
		opt=${line%%=*}
		[ "${last[$opt]}" = "$line" ] || continue
		if ! grep -qxF "$line" "$out/.config"; then
			echo "  CONFIG   $line did not stick (have: $(grep -E "^(# )?$opt[= ]" "$out/.config" || echo unset))" >&2
			missing=1
		fi
	done < <(cat "${frags[@]}" | grep -E '^CONFIG_[A-Z0-9_]+=(y|m|".*"|[0-9]+)$')
	# The base tree (make bench) lacks the symbols our series adds: there
	# a missing option is reported but does not stop the build.
	[ $missing = 0 ] || [ -n "${PROBES_CONFIG_MISSING_OK:-}" ] || exit 1
	echo "$stamp" > "$out/.probes-config-stamp"
fi

echo "  MAKE     $arch -j$jobs -> ${out#$PWD/}"
kmake -j"$jobs" all
rm -rf "$out/modroot"
kmake INSTALL_MOD_PATH="$out/modroot" INSTALL_MOD_STRIP=1 modules_install >/dev/null
ln -sf "$image" "$out/kernel-image"
echo "  KERNEL   $(kmake -s kernelrelease) $(du -h "$out/$image" | cut -f1)"
