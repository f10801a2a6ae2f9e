#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check-clients: build the base tree's BPF selftests runner
# (test_progs) and bpf_testmod.ko against the clients kernel, for the
# probe subtests that guest/bpf-selftests.sh runs.
#
#   bpf-selftests.sh ARCH BASE_SRC KERNEL_OUT
#
# The selftests are the base tree's, unmodified, built out of a shadow
# tree (real directories, links to the base's files) under
# KERNEL_OUT/bpf-selftests/: the guest sees it through the kbuild share.
# The shadow's progs/ and prog_tests/ hold only the files the probe
# subtests use (PROBE_TESTS, their BPF programs, and the programs the
# Makefile names unconditionally: the light skeletons and the linked
# ones): the whole suite wants kernel types this config does not have
# and takes long on two cores.  The compiler is Debian 12's clang-19
# (LLVM 19 from bookworm); a host without it skips the build, and the
# guest reports every subtest as skipped with that reason.
set -euo pipefail

arch=$1 base=$(realpath "$2") kout=$(realpath "$3")
out=$kout/bpf-selftests
shadow=$out/src
sel=tools/testing/selftests/bpf

log() { printf '  %-8s %s\n' "$1" "$2"; }

# The test files of test_progs that hold the probe subtests (and the two
# that bpf_cookie takes functions from: it is linked, not run, here).
PROBE_TESTS="kprobe_multi_test kprobe_multi_testmod_test attach_probe
get_func_ip_test missed fill_link_info bpf_cookie module_attach probe_user
test_bpf_syscall_macro perf_link trace_printk test_overhead
uprobe_multi_test test_lsm"

# Their BPF programs: the skeletons they include and the objects they
# open by name.
PROBE_PROGS="kprobe_multi kprobe_multi_empty kprobe_multi_override
kprobe_multi_session kprobe_multi_session_cookie kprobe_multi_sleepable
test_attach_kprobe_sleepable test_attach_probe test_attach_probe_manual
get_func_ip_test get_func_ip_uprobe_test missed_kprobe
missed_kprobe_recursion missed_tp_recursion test_fill_link_info
test_bpf_cookie uprobe_multi test_module_attach test_probe_user
bpf_syscall_macro test_perf_link trace_printk test_overhead uprobe_multi_bench
uprobe_multi_consumers uprobe_multi_pid_filter uprobe_multi_usdt lsm
lsm_tailcall"

# Programs the Makefile builds whatever the tests are: LSKELS,
# LSKELS_EXTRA and the parts of LINKED_SKELS.
MAKEFILE_PROGS="fentry_test fexit_test fexit_sleep atomics trace_vprintk
map_ptr_kern core_kern core_kern_overflow test_ringbuf test_ringbuf_n
test_ringbuf_map_key test_ringbuf_write test_ksyms_module test_ksyms_weak
kfunc_call_test kfunc_call_test_subprog test_static_linked1
test_static_linked2 linked_funcs1 linked_funcs2 linked_vars1 linked_vars2
linked_maps1 linked_maps2 test_subskeleton test_subskeleton_lib
test_subskeleton_lib2 test_usdt test_usdt_multispec"

if [ "$arch" != x86_64 ]; then
	log BPFSELF "only built for x86_64 (the runner is a host binary)"
	mkdir -p "$out" && echo "not built for $arch" > "$out/SKIPPED"
	exit 0
fi
llvm=/usr/lib/llvm-19/bin
if [ ! -x $llvm/clang ] || [ ! -x $llvm/ld.lld ]; then
	log BPFSELF "no clang-19/lld-19 on this host: the BPF subtests are skipped"
	mkdir -p "$out" && echo "no clang-19 and lld-19 on the build host" > "$out/SKIPPED"
	exit 0
fi
rm -f "$out/SKIPPED"

# A stamp of what the build depends on: the kernel's BTF and the lists.
stamp=$( { sha1sum "$kout/vmlinux" | cut -c1-40; echo $PROBE_TESTS $PROBE_PROGS $MAKEFILE_PROGS;
	   sha1sum "$0"; } | sha1sum | cut -c1-16)
if [ -x "$out/test_progs" ] && [ "$(cat "$out/.stamp" 2>/dev/null)" = "$stamp" ]; then
	log BPFSELF "up to date ($out)"
	exit 0
fi

# The shadow tree: real directories down to the selftests, links beside.
if [ ! -d "$shadow/$sel" ]; then
	log SHADOW "$shadow"
	rm -rf "$shadow"
	mkdir -p "$shadow"
	path=
	for part in tools testing selftests; do
		for e in "$base/$path"*; do
			[ "$(basename "$e")" = "$part" ] || ln -s "$e" "$shadow/$path"
		done
		path=$path$part/
		mkdir -p "$shadow/$path"
	done
	for e in "$base/$path"*; do
		[ "$(basename "$e")" = bpf ] || ln -s "$e" "$shadow/$path"
	done
	cp -as "$base/$sel" "$shadow/$sel"
	keep() {
		local dir=$1 f; shift
		for f in "$shadow/$sel/$dir"/*.c; do
			[[ " $* " == *" $(basename "$f" .c) "* ]] || rm -f "$f"
		done
	}
	# shellcheck disable=SC2086
	keep prog_tests $PROBE_TESTS
	# shellcheck disable=SC2086
	keep progs $PROBE_PROGS $MAKEFILE_PROGS
fi

log BPFSELF "test_progs with clang-19 against $kout/vmlinux"
# The test objects' dependency files name the generated skeletons
# relative to the output directory, where a later make cannot find them:
# rebuild those objects every time (there are few).
rm -f "$out"/*.test.o "$out"/*.test.d
t0=$(date +%s)
# The host's gcc builds the runner; clang-19 the BPF programs and
# urandom_read.  LLVM_CONFIG is off: the runner's disassembler would
# link libLLVM, which the guest's root does not have.
if ! PATH=$llvm:$PATH make -C "$shadow/$sel" -j"${JOBS:-$(nproc)}" \
	OUTPUT="$out" VMLINUX_BTF="$kout/vmlinux" KDIR="$kout" \
	LLVM_CONFIG=/bin/false feature-llvm=0 CLANG=$llvm/clang LLC=$llvm/llc \
	LLVM_STRIP=$llvm/llvm-strip LLD=$llvm/ld.lld \
	"$out/test_progs" > "$out/build.log" 2>&1; then
	tail -30 "$out/build.log" >&2
	echo "bpf-selftests.sh: the build failed; log in $out/build.log" >&2
	exit 1
fi
echo "$stamp" > "$out/.stamp"
log BPFSELF "done in $(($(date +%s) - t0)) s: $(ls "$out"/*.bpf.o | wc -l) BPF objects"
