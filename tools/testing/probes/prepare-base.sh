#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Extract the pinned base tree once into $BUILD/base and make it a git
# repository whose first (and only) commit is the untouched base.  The
# patched tree ($BUILD/src) is a git worktree of that repository, so
# "git diff base" there shows exactly what our overlay changes.
#
# Usage: prepare-base.sh BUILD_DIR
set -euo pipefail

build=$(realpath -m "$1")
tarball=${BASE_TARBALL:-/usr/src/linux-source-6.12.tar.xz}
base=$build/base
src=$build/src

log() { printf '  %-8s %s\n' "$1" "$2"; }

if [ ! -f "$base/.probes-base-ready" ]; then
	[ -r "$tarball" ] || { echo "missing $tarball (apt-get install linux-source-6.12)" >&2; exit 1; }
	log EXTRACT "$tarball -> $base"
	rm -rf "$base" "$src"
	mkdir -p "$base"
	tar -xJf "$tarball" -C "$base" --strip-components=1
	cd "$base"
	git init -q -b base .
	git config user.name "probes harness"
	git config user.email "probes@localhost"
	git config core.autocrlf false
	git config gc.auto 0
	# The tarball ships its own .gitignore files; keep every file of it.
	git add -f -A .
	git commit -q -m "base: $(basename "$tarball")"
	touch .probes-base-ready
fi

cd "$base"
version=$(make -s --no-print-directory kernelversion 2>/dev/null)
echo "$version" > "$build/base-version"

if [ ! -d "$src/.git" ] && [ ! -f "$src/.git" ]; then
	log WORKTREE "$src"
	rm -rf "$src"
	git -C "$base" worktree prune
	git -C "$base" worktree add -q -B patched "$src" base
fi

log BASE "linux $version (Debian linux-source-6.12)"
