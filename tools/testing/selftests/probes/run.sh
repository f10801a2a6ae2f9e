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
here=$(cd "$(dirname "$0")" && pwd)
ftrace=${FTRACETEST_DIR:-/opt/ftrace}

cases=$(find "$here" -name '*.tc' | sort)
if [ -n "$cases" ]; then
	(cd "$ftrace" && ./ftracetest -K -l /tmp/probes-selftests-logs $cases) |
		sed -E 's/^((not )?ok [0-9]+ )/\1selftests:/'
fi

for suite in engine compat; do
	[ -x "$here/$suite/run.sh" ] || continue
	"$here/$suite/run.sh" > /tmp/probes-$suite.tap
	sed -E "s/^((not )?ok [0-9]+ )/\1$suite:/" /tmp/probes-$suite.tap
	grep -q "^# $suite selftests done" /tmp/probes-$suite.tap ||
		echo "not ok 0 $suite:completed # $suite/run.sh stopped early"
done
exit 0
