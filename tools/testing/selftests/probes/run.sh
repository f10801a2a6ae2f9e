#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Our own probe selftests, KTAP on stdout:
#  - ftracetest-style cases (*.tc) here and in subdirectories, run by the
#    tree's unmodified ftracetest (at /opt/ftrace in the guest), each case
#    named "selftests:<description>";
#  - engine/run.sh, the fetch-argument engine's checks (fetch types,
#    error_log texts and carets, format files), named "engine:<case>".
here=$(cd "$(dirname "$0")" && pwd)
ftrace=${FTRACETEST_DIR:-/opt/ftrace}

cases=$(find "$here" -name '*.tc' | sort)
if [ -n "$cases" ]; then
	(cd "$ftrace" && ./ftracetest -K -l /tmp/probes-selftests-logs $cases) |
		sed -E 's/^((not )?ok [0-9]+ )/\1selftests:/'
fi

if [ -x "$here/engine/run.sh" ]; then
	"$here/engine/run.sh" > /tmp/probes-engine.tap
	sed -E 's/^((not )?ok [0-9]+ )/\1engine:/' /tmp/probes-engine.tap
	grep -q '^# engine selftests done' /tmp/probes-engine.tap ||
		echo "not ok 0 engine:completed # engine/run.sh stopped early"
fi
exit 0
