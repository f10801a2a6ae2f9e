# SPDX-License-Identifier: GPL-2.0
# Sourced by report.sh and lockdown.sh for "make check KCSAN=1".
#
# A KCSAN report is a block between two lines of '=' that starts with
# "BUG: KCSAN: data-race in A / B" (or "... in A", or "assert: race in
# A / B").  It is the probe subsystem's when A or B is a function defined
# in one of the files the series overlays (build/src.overlay.manifest):
# those fail the run.  The others are the rest of the kernel's, and are
# only counted and listed.

# kcsan_our_functions OUT_DIR MANIFEST: the function names defined in our
# object files of OUT_DIR, one a line.
kcsan_our_functions() {
	local out=$1 manifest=$2 f o
	grep -E '^(kernel|arch|lib|mm)/.*\.c$' "$manifest" | while read -r f; do
		o=$out/${f%.c}.o
		[ -f "$o" ] && nm --defined-only "$o" 2>/dev/null
	done | awk '$2 ~ /^[tTwW]$/ { sub(/\..*/, "", $3); print $3 }' | sort -u
}

# kcsan_split LOG OURS OUT_LOG OUT_REPORTS: OUT_LOG is LOG without the
# KCSAN reports that name no function of OURS (a file of names); their
# headers go to OUT_REPORTS with "other: " in front, and the headers of
# ours with "ours: ".
kcsan_split() {
	awk -v ours="$2" -v rep="$4" '
	BEGIN { while ((getline n < ours) > 0) mine[n] = 1 }
	function fn(s) { sub(/\+0x.*/, "", s); sub(/\..*/, "", s); return s }
	/^=+\r?$/ && !inblk { inblk = 1; buf = $0 "\n"; hdr = ""; next }
	inblk && hdr == "" && /BUG: KCSAN: / {
		hdr = $0; sub(/\r$/, "", hdr)
		line = hdr; sub(/.*(race|data-race) in /, "", line)
		split(line, f, / \/ /)
		is_ours = (fn(f[1]) in mine) || (f[2] != "" && fn(f[2]) in mine)
	}
	inblk {
		buf = buf $0 "\n"
		if (/^=+\r?$/ && hdr != "") {
			print (is_ours ? "ours: " : "other: ") hdr > rep
			if (is_ours)
				printf "%s", buf
			inblk = 0
		} else if (hdr == "" && buf ~ /\n.*\n.*\n.*\n/) {
			# Not a KCSAN block after all.
			printf "%s", buf; inblk = 0
		}
		next
	}
	{ print }
	END { if (inblk) printf "%s", buf }
	' "$1" > "$3"
}
