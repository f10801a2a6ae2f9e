#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Our own probe selftests: ftracetest-style cases (*.tc) here and in
# subdirectories, run by the tree's unmodified ftracetest (at
# /opt/ftrace in the guest).  KTAP on stdout, each case named
# "selftests:<description>".
here=$(cd "$(dirname "$0")" && pwd)
ftrace=${FTRACETEST_DIR:-/opt/ftrace}

cases=$(find "$here" -name '*.tc' | sort)
[ -n "$cases" ] || exit 0
cd "$ftrace" || exit 1
./ftracetest -K -l /tmp/probes-selftests-logs $cases |
	sed -E 's/^((not )?ok [0-9]+ )/\1selftests:/'
