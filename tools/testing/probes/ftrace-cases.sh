#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Expand a comma-separated list of ftracetest cases and directories
# (relative to tools/testing/selftests/ftrace) into one case a line, in
# ftracetest's own order.  A case "probes/PATH" is one of our selftests,
# tools/testing/selftests/probes/PATH, given by its path in the guest.  Cases listed in known-base-bugs whose buggy file
# is still the base's text go to SKIP_FILE as TAP skip lines instead.
#
# Usage: ftrace-cases.sh SRC_DIR LIST SKIP_FILE > cases
set -euo pipefail
src=$1 list=$2 skipfile=$3
here=$(dirname "$(realpath "$0")")
dir=$src/tools/testing/selftests/ftrace
: > "$skipfile"
[ "$list" = none ] && exit 0

declare -A known
while read -r c f reason; do
	[ -z "$c" ] || [ "${c:0:1}" = "#" ] && continue
	if git -C "$src" diff --quiet base -- "$f" 2>/dev/null; then
		known[$c]=$reason
	fi
done < "$here/known-base-bugs"
while read -r a c reason; do
	[ -z "$a" ] || [ "${a:0:1}" = "#" ] && continue
	[ "$a" = "${PROBES_ARCH:-x86_64}" ] && known[$c]=$reason
done < "$here/known-env-failures"

for c in ${list//,/ }; do
	if [ "${c#probes/}" != "$c" ]; then
		# one of our own selftests (tools/testing/selftests/probes),
		# where the guest has them
		[ -f "$here/../selftests/$c" ] || {
			echo "ftrace-cases: no such case $c" >&2
			exit 1
		}
		echo "/opt/probes/selftests/${c#probes/}"
	elif [ -d "$dir/$c" ]; then
		(cd "$dir" && find "$c" -name '*.tc' | sort)
	elif [ -f "$dir/$c" ]; then
		echo "$c"
	else
		echo "ftrace-cases: no such case $c" >&2
		exit 1
	fi
done | while read -r c; do
	if [ -n "${known[$c]:-}" ]; then
		echo "$c ${known[$c]}" >> "$skipfile"
	else
		echo "$c"
	fi
done
