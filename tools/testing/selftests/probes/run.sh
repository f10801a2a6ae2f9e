#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Our own probe selftests, KTAP on stdout:
#  - ftracetest-style cases (*.tc) here and in subdirectories, run by the
#    tree's unmodified ftracetest (at /opt/ftrace in the guest), each case
#    named "selftests:<description>";
#  - engine/run.sh, the fetch-argument engine's checks (fetch types,
#    error_log texts and carets, format files), named "engine:<case>";
#  - compat/run.sh, what users' scripts see compared with the base
#    (errnos, error_log, listings, trace lines), named "compat:<case>".
#
# Exit status: 0 only if every case passed or was skipped (a TAP "# SKIP"
# directive), and ftracetest and both suites ran to their end.
here=$(cd "$(dirname "$0")" && pwd)
ftrace=${FTRACETEST_DIR:-/opt/ftrace}
out=$(mktemp)
trap 'rm -f "$out"' EXIT
rc=0

cases=$(find "$here" -name '*.tc' | sort)
if [ -n "$cases" ]; then
	(cd "$ftrace" && ./ftracetest -K -l /tmp/probes-selftests-logs $cases) |
		sed -E 's/^((not )?ok [0-9]+ )/\1selftests:/' | tee -a "$out"
	[ "${PIPESTATUS[0]}" = 0 ] || rc=1
fi

for suite in engine compat; do
	[ -x "$here/$suite/run.sh" ] || continue
	"$here/$suite/run.sh" > /tmp/probes-$suite.tap || rc=1
	sed -E "s/^((not )?ok [0-9]+ )/\1$suite:/" /tmp/probes-$suite.tap | tee -a "$out"
	if ! grep -q "^# $suite selftests done" /tmp/probes-$suite.tap; then
		echo "not ok 0 $suite:completed # $suite/run.sh stopped early" | tee -a "$out"
	fi
done

# A failed case fails the run, whatever the suites' own status said.
grep -v '# SKIP' "$out" | grep -q '^not ok ' && rc=1
exit $rc
