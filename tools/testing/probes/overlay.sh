#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Lay this repository's kernel files over the base worktree ($BUILD/src).
#
# Every tracked file of the repository under a kernel path is copied in
# when its content differs (unchanged files keep their mtime, so the
# kernel build stays incremental).  A file that a previous overlay put in
# and that the repository no longer has is restored from the base, or
# removed if the base never had it.  Base files listed in
# tools/testing/probes/deleted-files are removed from the tree.
#
# Usage: overlay.sh REPO_DIR BUILD_DIR [TREE_DIR]
# TREE_DIR defaults to BUILD_DIR/src; its manifests sit beside it.
# REPO_DIR need not be a git checkout (make patches overlays exported
# commits): then every file under the kernel paths counts.
set -euo pipefail

repo=$(realpath "$1")
build=$(realpath -m "$2")
src=$(realpath -m "${3:-$build/src}")
manifest=$src.overlay.manifest
kpaths=(arch kernel include lib mm samples Documentation tools scripts Kconfig.probes)
deleted_list=$repo/tools/testing/probes/deleted-files

[ -d "$src" ] || { echo "overlay: $src missing; run prepare-base.sh" >&2; exit 1; }

cd "$repo"
# Tracked and untracked-but-not-ignored files, as a developer sees them.
# The harness itself (tools/testing/probes) is host tooling, not kernel.
if git rev-parse --git-dir >/dev/null 2>&1; then
	git ls-files -co --exclude-standard -- "${kpaths[@]}" 2>/dev/null
else
	for p in "${kpaths[@]}"; do [ -e "$p" ] && find "$p" -type f; done
fi | grep -v '^tools/testing/probes/' | sort -u > "$manifest.new" || true

changed=0
while IFS= read -r f; do
	[ -f "$repo/$f" ] || continue
	if ! cmp -s "$repo/$f" "$src/$f"; then
		mkdir -p "$(dirname "$src/$f")"
		cp "$repo/$f" "$src/$f"
		[ -n "${QUIET:-}" ] || echo "  OVERLAY  $f"
		changed=$((changed + 1))
	fi
done < "$manifest.new"

# Small edits to base files we do not own: tools/testing/probes/edits/
# holds PATH.diff, a unified diff of the base's PATH (diff -u, no fuzz
# allowed), for each such file, so that the repository carries the lines
# it changes rather than a copy that goes stale.  Each edit is applied to
# the base's own PATH; one that no longer applies stops here, naming the
# file: the base moved under it, and the edit must be made again.
edits=$repo/tools/testing/probes/edits
if [ -d "$edits" ]; then
	etmp=$(mktemp -d)
	while IFS= read -r d; do
		f=${d#"$edits"/}
		f=${f%.diff}
		if grep -qxF "$f" "$manifest.new"; then
			echo "overlay: $f is both carried whole and edited (${d#"$repo"/})" >&2
			rm -rf "$etmp"
			exit 1
		fi
		if ! git -C "$src" show "base:$f" > "$etmp/file" 2>/dev/null; then
			echo "overlay: ${d#"$repo"/} edits $f, which the base does not have" >&2
			rm -rf "$etmp"
			exit 1
		fi
		if ! patch -s -f -F0 --no-backup-if-mismatch -r "$etmp/rej" \
			"$etmp/file" < "$d" > "$etmp/log" 2>&1; then
			echo "overlay: ${d#"$repo"/} no longer applies to the base's $f:" >&2
			sed 's/^/overlay:   /' "$etmp/log" >&2
			echo "overlay: the base moved; make the edit again against it" >&2
			rm -rf "$etmp"
			exit 1
		fi
		if ! cmp -s "$etmp/file" "$src/$f"; then
			cp "$etmp/file" "$src/$f"
			[ -n "${QUIET:-}" ] || echo "  EDIT     $f"
		fi
		echo "$f" >> "$manifest.new"
	done < <(find "$edits" -type f -name '*.diff' | sort)
	rm -rf "$etmp"
	sort -u -o "$manifest.new" "$manifest.new"
fi

# Files overlaid last time that are gone from the repository now.
if [ -f "$manifest" ]; then
	comm -23 "$manifest" "$manifest.new" | while IFS= read -r f; do
		if git -C "$src" cat-file -e "base:$f" 2>/dev/null; then
			git -C "$src" checkout base -- "$f"
			echo "  RESTORE  $f"
		else
			rm -f "$src/$f"
			echo "  REMOVE   $f"
		fi
	done
fi
mv "$manifest.new" "$manifest"

# Base files the series deletes; a file dropped from the list comes back.
dmanifest=$src.deleted.manifest
if [ -f "$deleted_list" ]; then
	grep -v '^[[:space:]]*\(#\|$\)' "$deleted_list" | sort -u > "$dmanifest.new" || true
else
	: > "$dmanifest.new"
fi
while IFS= read -r f; do
	if [ -e "$src/$f" ] && ! grep -qxF "$f" "$manifest"; then
		rm -f "$src/$f"
		echo "  DELETE   $f"
	fi
done < "$dmanifest.new"
if [ -f "$dmanifest" ]; then
	comm -23 "$dmanifest" "$dmanifest.new" | while IFS= read -r f; do
		if ! grep -qxF "$f" "$manifest" && git -C "$src" cat-file -e "base:$f" 2>/dev/null; then
			git -C "$src" checkout base -- "$f"
			echo "  RESTORE  $f"
		fi
	done
fi
mv "$dmanifest.new" "$dmanifest"

# MAINTAINERS holds our subsystem entry in the kernel's format; it takes
# the place of the base's KPROBES entry in the tree's MAINTAINERS.
if [ -f "$repo/MAINTAINERS" ]; then
	tmp=$(mktemp)
	git -C "$src" show base:MAINTAINERS | awk -v ours="$repo/MAINTAINERS" '
		/^KPROBES$/ { while ((getline l < ours) > 0) print l; skip = 1; next }
		skip && /^$/ { skip = 0 }
		!skip' > "$tmp"
	if ! cmp -s "$tmp" "$src/MAINTAINERS"; then
		cp "$tmp" "$src/MAINTAINERS"
		echo "  MAINT    our entry in MAINTAINERS"
	fi
	rm -f "$tmp"
elif ! git -C "$src" diff --quiet base -- MAINTAINERS; then
	git -C "$src" checkout base -- MAINTAINERS
fi

# Kconfig.probes is sourced from the top-level Kconfig.
if [ -f "$src/Kconfig.probes" ]; then
	if ! grep -q 'source "Kconfig.probes"' "$src/Kconfig"; then
		printf '\nsource "Kconfig.probes"\n' >> "$src/Kconfig"
		echo "  KCONFIG  source Kconfig.probes"
	fi
elif grep -q 'source "Kconfig.probes"' "$src/Kconfig"; then
	git -C "$src" checkout base -- Kconfig
fi
