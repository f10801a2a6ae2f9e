#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Selftests of the probe events' fetch-argument engine; TAP on stdout
# (called by ../run.sh).
#
#  fetch:*   every fetch type end to end: kprobe, kretprobe and fprobe
#            events on probe_fetch_test_target() of the probe_fetch_test
#            module, whose argument points to known values, must show
#            exactly those values; an eprobe on the exec of a known
#            program must show its fields.
#  errors:*  every line of errors.list is written to its control file
#            and error_log (message, command and caret) must read
#            byte for byte as in expected/errors.txt.
#  formats:* the definitions of formats.list are created and
#            dynamic_events, uprobe_events and each event's format file
#            (ID line left out) must read as in expected/formats.txt.
#
# The expected/ files were recorded by this script on the base tree's own
# engine (Debian 6.12 trace_probe.c), so they pin the user-visible
# behaviour our engine must keep.  When one is missing or differs, the
# output is written to /results/selftests-record/ and the case fails.
HERE=$(dirname "$(realpath "$0")")
T=/sys/kernel/tracing
N=0
RECORD=/results/selftests-record

result() { # ok|fail NAME [REASON]
	N=$((N + 1))
	if [ "$1" = ok ]; then
		echo "ok $N $2"
	else
		echo "not ok $N $2${3:+ # $3}"
	fi
}

reset_probes() {
	echo 0 > $T/events/enable
	echo > $T/dynamic_events
	echo > $T/kprobe_events 2>/dev/null
	echo > $T/uprobe_events 2>/dev/null
	echo > $T/trace
}

# ---------------------------------------------------------------------
# fetch: known values through every fetch type

PFT_ARGS_INTS='u8=+28($arg1):u8 s8=+29($arg1):s8 x8=+28($arg1):x8
u16=+24($arg1):u16 s16=+26($arg1):s16 x16=+24($arg1):x16
u32=+16($arg1):u32 s32=+20($arg1):s32 x32=+16($arg1):x32
u64=+0($arg1):u64 s64=+8($arg1):s64 x64=+0($arg1):x64 ch=+30($arg1):char'
PFT_WANT_INTS=" u8=254 s8=-2 x8=0xfe u16=65244 s16=-292 x16=0xfedc \
u32=4275878552 s32=-19088744 x32=0xfedcba98 u64=18364758544493064720 \
s64=-81985529216486896 x64=0xfedcba9876543210 ch='P'"

PFT_ARGS_STRS='str=+52($arg1):string strp=+0(+64($arg1)):string
strs=+72($arg1):string[3] chars=+52($arg1):char[5] comm=$comm
imm=\"abc" bad=+0(+104($arg1)):string badu=+0(+104($arg1)):u32'
PFT_WANT_STRS=" str=\"hello\" strp=\"world\" strs={\"a\",\"bc\",\"def\"} \
chars={'h','e','l','l','o'} comm=\"COMM\" imm=\"abc\" bad=(fault) badu=0"

PFT_ARGS_MISC='arr=+36($arg1):u32[4] arrx=+36($arg1):x8[4]
neg=-4(+112($arg1)):u32 bf1=+32($arg1):b4@8/32 bf2=+32($arg1):b12@4/32
bf3=+32($arg1):b8@24/32 bf8=+32($arg1):b3@1/8 g0=@probe_fetch_test_global:x32
g1=@probe_fetch_test_global+4:x32 second=$arg2:x32 si=%si:x32 imm=\-3:s8
imm2=\0x10:u16 st=$stack:x8'
PFT_WANT_MISC=" arr={1,2,3,4} arrx={0x1,0x0,0x0,0x0} neg=2 bf1=6 bf2=1383 \
bf3=18 bf8=4 g0=0xcafe g1=0xbeef second=0x5678 si=0x5678 imm=-3 imm2=16 st=0x"

PFT_ARGS_SYM='sym=+96($arg1):symbol ss=+96($arg1):symstr'
PFT_WANT_SYM=' sym=probe_fetch_test_target\+0x0/0x[0-9a-f]+ \[probe_fetch_test\] ss="probe_fetch_test_target\+0x0/0x[0-9a-f]+ \[probe_fetch_test\]"$'

PFT_ARGS_RET='ret=$retval:x32 a2=$arg2:x32 s=+52($arg1):string'
PFT_WANT_RET=' ret=0x1234 a2=0x5678 s="hello"'

pft_trigger() { echo 1 > /sys/module/probe_fetch_test/parameters/run; }

# fetch_check NAME WANT EVENT: the arguments part of EVENT's first trace
# line must be WANT ("re:REGEX" for a regex; a WANT ending in "st=0x" only
# fixes what precedes the stack address).
fetch_check() {
	local name=$1 want=$2 line ok=0

	line=$(grep -m1 " $3: (" $T/trace)
	line=${line#*)}
	case $want in
	re:*)	echo "$line" | grep -qE -- "${want#re:}" && ok=1 ;;
	*st=0x)	[ -n "$line" ] && [ "${line%st=0x*}st=0x" = "$want" ] && ok=1 ;;
	*)	[ "$line" = "$want" ] && ok=1 ;;
	esac
	if [ $ok = 1 ]; then
		result ok "fetch:$name"
	else
		result fail "fetch:$name" "got '$line'"
	fi
}

# one line, no globbing
oneline() { printf '%s' "$1" | tr '\n' ' '; }

fetch_tests() {
	local comm want

	if ! modprobe probe_fetch_test; then
		result fail "fetch:module" "modprobe probe_fetch_test failed"
		return
	fi
	reset_probes
	comm=$(cat /proc/$$/comm)
	{
		echo "p:pft/ints probe_fetch_test_target $(oneline "$PFT_ARGS_INTS")"
		echo "p:pft/strs probe_fetch_test_target $(oneline "$PFT_ARGS_STRS")"
		echo "p:pft/misc probe_fetch_test_target $(oneline "$PFT_ARGS_MISC")"
		echo "p:pft/sym probe_fetch_test_target $PFT_ARGS_SYM"
		echo "r:pft/ret probe_fetch_test_target $PFT_ARGS_RET"
	} > /tmp/pft.defs
	while read -r def; do
		if ! echo "$def" >> $T/kprobe_events; then
			result fail "fetch:define" "$def: $(tail -3 $T/error_log | head -1)"
			modprobe -r probe_fetch_test
			return
		fi
	done < /tmp/pft.defs
	echo "f:pft/fent probe_fetch_test_target a=+28(\$arg1):u8 s=+52(\$arg1):string" >> $T/dynamic_events &&
	echo "f:pft/fret probe_fetch_test_target%return $PFT_ARGS_RET" >> $T/dynamic_events &&
	# eprobes attach to ordinary events only: take the exec of a known
	# program, whose fields we know ($comm is a string only when asked
	# for, on eprobes)
	echo 'e:pft/ep sched/sched_process_exec f=$filename:string c=$comm:string p=$pid:u32 x=$pid:x16 s=$filename:x8' >> $T/dynamic_events ||
		result fail "fetch:define-dynamic" "$(tail -3 $T/error_log | head -1)"
	echo 1 > $T/events/pft/enable
	pft_trigger
	/bin/busybox true &
	pid=$!
	wait $pid
	echo 0 > $T/events/pft/enable

	fetch_check ints "$PFT_WANT_INTS" ints
	fetch_check strings "${PFT_WANT_STRS/COMM/$comm}" strs
	fetch_check arrays-bitfields-symbols-imm "$PFT_WANT_MISC" misc
	fetch_check symbol-symstr "re:$PFT_WANT_SYM" sym
	fetch_check kretprobe-retval-entry-arg "$PFT_WANT_RET" ret
	fetch_check fprobe-entry ' a=254 s="hello"' fent
	fetch_check fprobe-exit "$PFT_WANT_RET" fret
	fetch_check eprobe-fields \
		"re:^ f=\"/bin/busybox\" c=\"[^\"]+\" p=$pid x=$(printf '0x%x' $((pid & 0xffff))) s=0x[0-9a-f]{1,2}$" ep

	# the record of a multi-argument event, as the format file says
	if grep -qF 'field:__data_loc char[][3] strs;	offset:' $T/events/pft/strs/format &&
	   grep -qF 'field:u32 arr[];	offset:' $T/events/pft/misc/format &&
	   grep -qF 'size:16;' $T/events/pft/misc/format; then
		result ok "fetch:array-fields"
	else
		result fail "fetch:array-fields"
	fi

	reset_probes
	modprobe -r probe_fetch_test || result fail "fetch:unload"
}

# ---------------------------------------------------------------------
# errors: error_log, byte for byte

strip_log() { sed -E 's/^\[[ 0-9.]+\] //' "$@"; }

error_tests() {
	local file cmd out=/tmp/errors.out
	: > $out
	reset_probes
	while IFS='|' read -r file cmd; do
		[ -z "$file" ] || [ "${file:0:1}" = "#" ] && continue
		echo > $T/error_log
		if echo "$cmd" >> $T/$file 2>/dev/null; then
			echo "ACCEPTED: $file: $cmd" >> $out
			reset_probes
		fi
		strip_log $T/error_log >> $out
	done < "$HERE/errors.list"
	reset_probes
	compare errors "$out" errors.txt
}

# compare SUITE OUTPUT EXPECTED_NAME: one case per differing block
compare() {
	local suite=$1 out=$2 exp=$HERE/expected/$3
	if [ ! -f "$exp" ]; then
		mkdir -p $RECORD && cp "$out" $RECORD/$3
		result fail "$suite:expected" "no $3 recorded; output in $RECORD"
		return
	fi
	if cmp -s "$out" "$exp"; then
		result ok "$suite:all-match ($(grep -c . "$exp") lines)"
	else
		mkdir -p $RECORD && cp "$out" $RECORD/$3
		result fail "$suite:all-match" "differs: $(diff "$exp" "$out" | grep -m1 '^[<>]')"
	fi
}

# ---------------------------------------------------------------------
# formats: what tracefs shows for valid definitions

format_tests() {
	local file cmd ev out=/tmp/formats.out ok=1
	: > $out
	reset_probes
	while IFS='|' read -r file cmd; do
		[ -z "$file" ] || [ "${file:0:1}" = "#" ] && continue
		if ! echo "$cmd" >> $T/$file; then
			echo "REFUSED: $file: $cmd" >> $out
			strip_log $T/error_log | tail -3 >> $out
		fi
	done < "$HERE/formats.list"
	{
		# without the '#' lines of CONFIG_PROBE_EVENTS_DUMP_FETCHARG
		# (kprobe_events_fetch_dump.tc checks those)
		echo "== dynamic_events"
		grep -v '^#' $T/dynamic_events
		echo "== uprobe_events"
		grep -v '^#' $T/uprobe_events
		for ev in $T/events/ptest/*/; do
			echo "== $(basename $ev)"
			grep -v '^ID:' $ev/format
		done
	} >> $out
	reset_probes
	compare formats "$out" formats.txt
}

echo "TAP version 13"
fetch_tests
error_tests
format_tests
echo "1..$N"

echo "# engine selftests done"
