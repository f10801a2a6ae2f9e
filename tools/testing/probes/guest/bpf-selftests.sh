#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check-clients: the BPF selftests' probe subtests, the base tree's
# test_progs unmodified, run in the Debian root (guest/clients.sh
# chroots here).  The host built them against this kernel
# (bpf-selftests.sh); they come through the kbuild share.
#
# One TAP line per subtest (a test without subtests: one for the test),
# in /results/bpf-selftests.tap; test_progs' own output in
# /results/bpf-selftests.log.  A test that failed outside its subtests
# gets a line of its own.  probes.bpf_tests=NAME,... on the kernel
# command line runs other tests (test_progs -t syntax).
. /opt/probes/lib.sh

SRC=/kbuild/bpf-selftests
RUN=/tmp/bpf-selftests
TAP=/results/bpf-selftests.tap
LOG=/results/bpf-selftests.log

# The probe subtests of issue 41: kprobe_multi_test has the session,
# session_cookie and attach_api_fails subtests; kprobe_multi_bench_attach
# is its serial test that attaches to every traceable function.
TESTS=kprobe_multi_test,kprobe_multi_bench_attach,kprobe_multi_testmod_test
TESTS=$TESTS,attach_probe,get_func_ip_test,missed,fill_link_info,bpf_cookie
TESTS=$TESTS,module_attach,probe_user,bpf_syscall_macro,perf_link
TESTS=$TESTS,trace_printk,test_overhead
t=$(sed -n 's/.*probes\.bpf_tests=\([^ ]*\).*/\1/p' /proc/cmdline)
TESTS=${t:-$TESTS}

tap_begin $TAP
if [ -s $SRC/SKIPPED ] || [ ! -x $SRC/test_progs ]; then
	why=$(cat $SRC/SKIPPED 2>/dev/null || echo "test_progs was not built")
	for t in ${TESTS//,/ }; do
		tap_result skip "bpf:$t" "$why"
	done
	tap_end
	echo "probes: bpf selftests done"
	exit 0
fi

# test_progs wants its objects, bpf_testmod.ko and its helpers in the
# working directory, which must be writable.
mkdir -p $RUN
find $SRC -maxdepth 1 -type f \( -name '*.bpf.o' -o ! -name '*.[od]' ! -name '*.h' \) |
	xargs cp -t $RUN
cd $RUN || exit 1
mount | grep -q ' /sys/kernel/debug ' || mount -t debugfs none /sys/kernel/debug
mount | grep -q ' /sys/kernel/tracing ' || mount -t tracefs none /sys/kernel/tracing

echo "probes: bpf selftests: test_progs -t $TESTS"
# What perf's sampling tests (bpf_cookie/perf_event) depend on, should
# one fail: the sample rate the kernel allows now (lowered when samples
# took long) and whether it throttled any event.
echo "probes: bpf selftests: perf_event_max_sample_rate $(cat /proc/sys/kernel/perf_event_max_sample_rate 2>/dev/null)," \
	"$(dmesg | grep -c 'perf: interrupt took too long') lowerings so far"
t0=$(date +%s)
./test_progs -v -t "$TESTS" > $LOG 2>&1
rc=$?
echo "probes: bpf selftests: test_progs exit $rc after $(($(date +%s) - t0)) s"
grep -E '^Summary:' $LOG | sed 's/^/probes: bpf selftests: /'

# kprobe_multi_bench_attach's own figures, for the clients' table: its
# four subtests (kernel and module functions, by name then by address)
# each print what they attached to and how long attach and detach took.
awk 'BEGIN { split("kernel-syms modules-syms kernel-addrs modules-addrs", run) }
	/^do_bench_test: found/ { n++; fns[n] = $3 }
	/^do_bench_test: attached in/ { printf "bpf:kprobe-multi-bench %s-attach %s\n", run[n], $4 + 0 }
	/^do_bench_test: detached in/ { printf "bpf:kprobe-multi-bench %s-detach %s\n", run[n], $4 + 0 }
	END { for (i = 1; i <= n; i++) printf "probes: bpf selftests: bench %s: %s functions\n", run[i], fns[i] > "/dev/stderr" }' \
	$LOG >> /results/clients-times.txt

# The result lines: "#12/3    test/subtest:OK", "#12      test:FAIL",
# as "NUM sSUB NAME RESULT" (SUB empty for a test); a subtest name that
# repeats in a test gets its number appended.
grep -E '^#[0-9]+(/[0-9]+)? +[^ ]+:(OK|FAIL|SKIP)' $LOG |
sed -E 's/^#([0-9]+)(\/([0-9]+))? +([^ ]+):([A-Z]+).*/\1 s\3 \4 \5/' |
awk '$2 != "s" { if (seen[$3]++) $3 = $3 "#" substr($2, 2) } { print }' > /tmp/bpf-results
# The first failed assertion of each failed test or subtest, "NAME\tLINE",
# for its TAP line: CI shows the output, not the log.
awk '/:FAIL:/ && first == "" { first = $0 }
	/^#[0-9]+(\/[0-9]+)? +[^ ]+:(OK|FAIL|SKIP)/ {
		if ($0 ~ /:FAIL/ && first != "") {
			name = $2; sub(/:FAIL.*/, "", name)
			printf "%s\t%s\n", name, substr(first, 1, 160)
		}
		first = ""
	}' $LOG > /tmp/bpf-first-fail
# Tests that have subtests report through them.
with_subs=" $(awk '$2 != "s" { print $1 }' /tmp/bpf-results | sort -u | tr '\n' ' ') "
n=0
while read -r num sub name res; do
	if [ "$sub" = s ] && [[ $with_subs == *" $num "* ]]; then
		[ "$res" = FAIL ] || continue
		if ! awk -v n="$num" '$1 == n && $2 != "s" && $4 == "FAIL"' /tmp/bpf-results | grep -q .; then
			tap_result fail "bpf:$name" "failed outside its subtests"
			n=$((n + 1))
		fi
		continue
	fi
	case $res in
	OK)   tap_result ok "bpf:$name" ;;
	SKIP) tap_result skip "bpf:$name" "test_progs skipped it (see bpf-selftests.log)" ;;
	*)    why=$(awk -F '\t' -v t="${name%#*}" '$1 == t { print $2; exit }' /tmp/bpf-first-fail)
	      tap_result fail "bpf:$name" "${why:+$why; }see build/results/x86_64-clients/bpf-selftests.log" ;;
	esac
	n=$((n + 1))
done < /tmp/bpf-results
[ $n -gt 0 ] || tap_result fail "bpf:test-progs" "test_progs reported no result (exit $rc)"
# Every test asked for must have reported.
for t in ${TESTS//,/ }; do
	case $t in */*|*\**) continue ;; esac
	awk -v t="$t" '$3 == t || index($3, t "/") == 1' /tmp/bpf-results | grep -q . ||
		tap_result fail "bpf:$t" "test_progs did not run it"
done
tap_end
echo "probes: bpf selftests done"
