#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Write the patch series: every commit of this repository that changes the
# kernel tree becomes one patch, with the commit's subject, body and
# author.  The commits are replayed onto the untouched base in a worktree
# ($BUILD/series, branch "series"), then "git format-patch" writes them to
# $BUILD/patches with a cover letter.  Commits that only touch the harness
# (Makefile, README, tools/testing/probes) do not appear.  A commit whose
# subject is listed in series/folds is folded into the patch before it,
# or into the patch a second, tab-separated subject names (see the file).
#
# Usage: patches.sh REPO_DIR BUILD_DIR
set -euo pipefail

repo=$(realpath "$1")
build=$(realpath -m "$2")
here=$repo/tools/testing/probes
base=$build/base
tree=$build/series
outdir=$build/patches
# Subjects of commits that only mend the commit before them (review
# follow-ups): their change is folded into the previous patch.
folds=$here/series/folds
# Lines that a commit added before the file they need existed: each is
# kept out of the series until the patch that adds that file.
holds=$here/series/holds
# Subjects the series shows instead of the history's (see the file).
# The cover letter ends with series/figures (the measured figures) and
# series/notes (why the remaining checkpatch warnings stay).
subjects=$here/series/subjects
version=$(cat "$build/base-version")

git -C "$base" worktree prune
if [ ! -e "$tree/.git" ]; then
	git -C "$base" worktree add -q -B series "$tree" base
fi
git -C "$tree" checkout -q -B series base
git -C "$tree" reset -q --hard base
git -C "$tree" clean -qfdx
rm -f "$tree.overlay.manifest" "$tree.deleted.manifest"

export_dir=$(mktemp -d)
trap '[ -n "${PATCHES_KEEP:-}" ] || rm -rf "$export_dir"' EXIT

signoff_name=$(git -C "$repo" config user.name || echo "Probes Developers")
signoff_mail=$(git -C "$repo" config user.email || echo "probes@localhost")

# hold_lines DIR SUBJECT: drop from DIR the lines series/holds still
# holds back at the commit SUBJECT.  A hold ends at the commit whose
# subject it names, and stays ended (released[]).
declare -A released=()
hold_lines() {
	local dir=$1 subject=$2 until file line
	[ -f "$holds" ] || return 0
	while IFS=$'\t' read -r until file line; do
		case $until in ''|'#'*) continue ;; esac
		[ "$subject" = "$until" ] && released[$until]=1
		[ -z "${released[$until]:-}" ] && [ -f "$dir/$file" ] || continue
		grep -vxF -- "$line" "$dir/$file" > "$dir/.hold" || true
		cat "$dir/.hold" > "$dir/$file"
		rm -f "$dir/.hold"
	done < "$holds"
}

# Folds into an earlier patch ("SUBJECT<TAB>INTO[<TAB>PATHS[<TAB>MOVES]]"): the
# commit's change to the kernel paths (or to PATHS only, for a commit
# that fixes several earlier patches: one line for each) is applied to
# the tree of INTO and of every commit after it, up to the commit
# itself, whose own patch then comes out empty and is dropped.  A file
# that was renamed between a tree and the fix is patched under its name
# in that tree; MOVES ("NEW=OLD ...") names the earlier home of code
# that moved to another file without a rename git can see.
#
# INTO "*" absorbs the change (series/absorb.py): each hunk goes back
# into the patch that wrote the lines it changes.  PATHS "@FILE" names a
# diff in series/ that is the change as it reads in older code, folded
# into INTO until the commit that the next line of the same SUBJECT
# folds into, where that line takes over.  A change that does not apply
# to one of its trees stops the series with both subjects named.
kpaths=(arch kernel include lib mm samples Documentation tools scripts Kconfig.probes
	':(exclude)tools/testing/probes')
declare -A fold_into=() fold_what=() fold_commit=() fold_moves=() fold_active=() is_fold=()
declare -A fold_until=()
nfold=0
declare -A subject_commit=() commit_index=()
n=0
for c in $(git -C "$repo" rev-list HEAD); do
	subject_commit[$(git -C "$repo" log -1 --format=%s "$c")]=$c
	commit_index[$c]=$((n = n - 1))
done
# add_fold WHAT COMMIT INTO_COMMIT DIFF MOVES
add_fold() {
	nfold=$((nfold + 1))
	fold_what[$nfold]=$1
	fold_commit[$nfold]=$2
	fold_into[$nfold]=$3
	cp "$4" "$export_dir/fold-$nfold.diff"
	fold_moves[$nfold]=$5
	is_fold[$2]=1
}
foldmap=$export_dir/foldmap
: > "$foldmap"
absorbs=() variant=
while IFS=$'\t' read -r what into paths moves; do
	case $what in ''|'#'*) continue ;; esac
	[ -n "$into" ] || continue
	c=${subject_commit[$what]:-}
	[ -n "$c" ] && { [ "$into" = '*' ] || [ -n "${subject_commit[$into]:-}" ]; } || {
		echo "patches: series/folds: no commit \"$what\" or \"$into\"" >&2
		exit 1
	}
	# The line after an "@FILE" one says where it ends.
	if [ -n "$variant" ]; then
		[ "${fold_what[$variant]}" = "$what" ] && [ "$into" != '*' ] || {
			echo "patches: series/folds: \"$what\": no line after its @ diff" >&2
			exit 1
		}
		fold_until[$variant]=${subject_commit[$into]}
		variant=
	fi
	if [ "$into" = '*' ]; then
		printf '%s\t*\t%s\n' "$c" "$paths" >> "$foldmap"
		absorbs+=("$what")
		continue
	fi
	case $paths in
	@*)
		[ -f "$here/series/${paths#@}" ] || {
			echo "patches: series/folds: no file series/${paths#@}" >&2
			exit 1
		}
		add_fold "$what" "$c" "${subject_commit[$into]}" "$here/series/${paths#@}" "$moves"
		variant=$nfold
		continue
		;;
	'')
		git -C "$repo" diff "$c^" "$c" -- "${kpaths[@]}" > "$export_dir/fold.diff" ;;
	*)
		printf '%s\t%s\t%s\n' "$c" "${subject_commit[$into]}" "$paths" >> "$foldmap"
		# shellcheck disable=SC2086 # PATHS is a list of pathspecs
		git -C "$repo" diff "$c^" "$c" -- $paths > "$export_dir/fold.diff" ;;
	esac
	[ -n "$paths" ] || printf '%s\t%s\n' "$c" "${subject_commit[$into]}" >> "$foldmap"
	[ -s "$export_dir/fold.diff" ] || {
		echo "patches: series/folds: \"$what\" changes nothing in ${paths:-the kernel tree}" >&2
		exit 1
	}
	add_fold "$what" "$c" "${subject_commit[$into]}" "$export_dir/fold.diff" "$moves"
done < "$folds"
[ -z "$variant" ] || {
	echo "patches: series/folds: \"${fold_what[$variant]}\": no line after its @ diff" >&2
	exit 1
}
for what in "${absorbs[@]}"; do
	c=${subject_commit[$what]}
	out=$(python3 "$here/series/absorb.py" "$repo" "$c" "$foldmap" "$export_dir/absorb") || {
		echo "patches: series/folds: \"$what\" cannot be absorbed" >&2
		exit 1
	}
	while IFS=$'\t' read -r into diff; do
		add_fold "$what" "$c" "$into" "$diff" ""
	done <<< "$out"
done

# fold_apply N COMMIT DIR: apply fold N's change to DIR, the tree of
# COMMIT, under the names its files had at COMMIT (git's renames, commit
# by commit from the newest back, and
# the fold's MOVES where the new file does not exist yet).
fold_apply() {
	local n=$1 at=$2 dir=$3 diff=$export_dir/fold-$1.diff old new move
	if [ "$at" != "${fold_commit[$n]}" ]; then
		cp "$diff" "$export_dir/fold.diff"
		while IFS=$'\t' read -r _ old new; do
			grep -qF " b/$new" "$diff" || continue
			sed -i -e "s|^diff --git a/$new b/$new\$|diff --git a/$old b/$old|" \
			       -e "s|^--- a/$new\$|--- a/$old|" -e "s|^+++ b/$new\$|+++ b/$old|" \
			       "$export_dir/fold.diff"
		done < <(git -C "$repo" log -M --name-status --diff-filter=R --format= \
				"$at..${fold_commit[$n]}^" -- "${kpaths[@]}")
		for move in ${fold_moves[$n]}; do
			new=${move%%=*} old=${move#*=}
			[ -e "$dir/$new" ] || [ ! -e "$dir/$old" ] && continue
			sed -i -e "s|^diff --git a/$new b/$new\$|diff --git a/$old b/$old|" \
			       -e "s|^--- a/$new\$|--- a/$old|" -e "s|^+++ b/$new\$|+++ b/$old|" \
			       "$export_dir/fold.diff"
		done
		diff=$export_dir/fold.diff
	fi
	git -C "$dir" apply "$diff" 2>/dev/null && return 0
	# Context that changed in between (a neighbouring line edited by a
	# later commit): let patch(1) place the hunks, and say so.
	patch -d "$dir" -p1 -F3 -s --dry-run < "$diff" >/dev/null 2>&1 || return 1
	patch -d "$dir" -p1 -F3 -s --no-backup-if-mismatch < "$diff" >/dev/null
	echo "patches: \"${fold_what[$n]}\" applied with fuzz at $(git -C "$repo" log -1 --format=%s "$at")" >&2
}

count=0 folded=0
for c in $(git -C "$repo" rev-list --reverse HEAD); do
	rm -rf "$export_dir/t" && mkdir "$export_dir/t"
	git -C "$repo" archive "$c" | tar -x -C "$export_dir/t"
	subject=$(git -C "$repo" log -1 --format=%s "$c")
	# The folds that start here, and those that end here (the
	# commit's own tree has their change).
	for f in "${!fold_into[@]}"; do
		[ "${fold_into[$f]}" = "$c" ] && fold_active[$f]=1
		[ "${fold_until[$f]:-}" = "$c" ] && unset "fold_active[$f]"
		[ "${fold_commit[$f]}" = "$c" ] && unset "fold_active[$f]"
	done
	# Oldest fix first: a later fix may change what an earlier one wrote.
	for f in $(for a in "${!fold_active[@]}"; do
			echo "${commit_index[${fold_commit[$a]}]} $a"
		   done | sort -n -k1,1 -k2,2 | cut -d' ' -f2); do
		fold_apply "$f" "$c" "$export_dir/t" || {
			echo "patches: \"${fold_what[$f]}\" (series/folds) does not apply at \"$subject\"" >&2
			exit 1
		}
	done
	hold_lines "$export_dir/t" "$subject"
	# The overlay reads the kernel paths, MAINTAINERS and, of the
	# harness, only the edits and the list of deleted files.  A tree
	# that is the same as the last commit's in those (a commit that
	# changed only the harness or the docs outside the kernel) gives
	# the same kernel tree: skip the overlay and "git add" of the
	# whole kernel tree, which are most of the time of this loop.
	find "$export_dir/t/tools/testing/probes" -mindepth 1 -maxdepth 1 \
		! -name edits ! -name deleted-files -exec rm -rf {} + 2>/dev/null || true
	rm -f "$export_dir/t/README.md" "$export_dir/t/Makefile"
	rm -rf "$export_dir/t/.ci"
	if [ -d "$export_dir/prev" ] && diff -rq "$export_dir/prev" "$export_dir/t" >/dev/null 2>&1; then
		[ -n "${is_fold[$c]:-}" ] && folded=$((folded + 1))
		continue
	fi
	rm -rf "$export_dir/prev"
	cp -a "$export_dir/t" "$export_dir/prev"
	QUIET=1 "$here/overlay.sh" "$export_dir/t" "$build" "$tree" >/dev/null
	# Debian's .gitignore ignores every new top-level path: add by force
	# (the series tree holds no build output; builds are out of tree).
	git -C "$tree" add -f -A .
	if git -C "$tree" diff --cached --quiet; then
		[ -n "${is_fold[$c]:-}" ] && folded=$((folded + 1))
		continue
	fi
	[ -z "${is_fold[$c]:-}" ] || {
		echo "patches: \"$subject\" is folded into an earlier patch but left changes" >&2
		exit 1
	}
	if [ "$count" -gt 0 ] && grep -qxF "$subject" "$folds" 2>/dev/null; then
		# A follow-up of the patch before it: fold it in, keep that
		# patch's message.
		GIT_COMMITTER_NAME="$signoff_name" GIT_COMMITTER_EMAIL="$signoff_mail" \
			git -C "$tree" commit -q --amend --no-edit
		folded=$((folded + 1))
		continue
	fi
	msg=$(git -C "$repo" log -1 --format=%B "$c")
	# A subject mapped in series/subjects: the series shows the new one.
	# A third field names a file in series/ whose text replaces the body.
	if [ -f "$subjects" ]; then
		mapped=$(awk -F'\t' -v s="$subject" '!/^#/ && $1 == s { print $2; exit }' "$subjects")
		body=$(awk -F'\t' -v s="$subject" '!/^#/ && $1 == s { print $3; exit }' "$subjects")
		[ -n "$mapped" ] && msg=$(printf '%s\n%s' "$mapped" "$(printf '%s\n' "$msg" | tail -n +2)")
		[ -n "$body" ] && msg=$(printf '%s\n\n%s' "$(printf '%s\n' "$msg" | head -1)" "$(cat "$here/series/$body")")
	fi
	author=$(git -C "$repo" log -1 --format='%an <%ae>' "$c")
	date=$(git -C "$repo" log -1 --format=%aD "$c")
	echo "$msg" | grep -q '^Signed-off-by:' ||
		msg=$(printf '%s\n\nSigned-off-by: %s\n' "$msg" "$author")
	GIT_COMMITTER_NAME="$signoff_name" GIT_COMMITTER_EMAIL="$signoff_mail" \
		git -C "$tree" commit -q --author="$author" --date="$date" -m "$msg"
	count=$((count + 1))
done

rm -rf "$outdir" && mkdir -p "$outdir"
if [ "$count" = 0 ]; then
	echo "  PATCHES  no commit changes the kernel tree yet"
	exit 0
fi
cover=$(mktemp)
{
	echo "probes: a new kprobes, kretprobes, rethook, fprobe and probe events for $version"
	echo
	echo "This series replaces the probe subsystem of Linux $version with a new"
	echo "implementation, layer by layer.  It applies to the untouched base"
	echo "tree (Debian linux-source-6.12, $version)."
	echo
	for tap in "$build"/results/*.tap; do
		[ -f "$tap" ] || continue
		echo "Last test run ($(basename "$tap" .tap), make check):"
		ok=$(grep -c '^ok' "$tap" || true)
		sk=$(grep -c '^ok.*# SKIP' "$tap" || true)
		nok=$(grep -c '^not ok' "$tap" || true)
		echo "  $((ok - sk)) passed, $nok failed, $sk skipped"
		echo
	done
	[ -f "$here/series/figures" ] && cat "$here/series/figures"
	[ -f "$here/series/notes" ] && cat "$here/series/notes"
} > "$cover"
git -C "$tree" -c user.name="$signoff_name" -c user.email="$signoff_mail" \
	format-patch -q --cover-letter --cover-from-description=subject \
	-o "$outdir" base..series
# Fill in the cover letter from the description above.
python3 - "$outdir"/0000-cover-letter.patch "$cover" <<'PY'
import sys
path, cover = sys.argv[1], open(sys.argv[2]).read()
subject, _, body = cover.partition("\n\n")
text = open(path).read()
text = text.replace("*** SUBJECT HERE ***", subject)
text = text.replace("*** BLURB HERE ***", body.rstrip())
open(path, "w").write(text)
PY
rm -f "$cover"
echo "  PATCHES  $count patches + cover letter in ${outdir#$PWD/} ($folded follow-ups folded)"
ls "$outdir" | sed 's/^/           /'
