#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make torture-compare: the strict torture run against the base kernel
# and against ours, under each QEMU given, to tell a fault of ours from
# one of QEMU's multi-threaded TCG (RELIABILITY.md, findings 12 and 13).
#
#   torture-compare.sh ARCH BUILD_DIR FRAGMENT...
#
# kprobes_torture and kprobes_torture_target use only the public probe
# API, so both are built out of tree, from the same sources, against
# $BUILD/$ARCH-base (the untouched base, built here as "make bench" does;
# COMPARE_NO_BUILD=1 uses the one there) and
# against $BUILD/$ARCH (ours).  The jprobe slots are left out of both
# builds (the base has no jprobes), so the two kernels run the same
# workload.  Each boot loads the module COMPARE_RUNS times for
# COMPARE_SECS seconds each, with the target module coming and going and
# the optimizer flipping, as make check's torture-strict does.  Boots
# alternate base and ours for each QEMU.
#
# Environment:
#   COMPARE_QEMUS  "LABEL=BINARY[:FIRMWARE_DIR] ..."; the label "7.2"
#                  alone is Debian 12's own QEMU, fetched with apt-get
#                  download and unpacked into $BUILD/qemu-7.2 (x86_64)
#                  [10=qemu-system-x86_64 7.2]
#   COMPARE_RUNS   torture runs per boot [10]
#   COMPARE_BOOTS  boots per kernel and QEMU [1]; COMPARE_BOOT_FIRST=N
#                  numbers them from N, to add boots to an earlier run
#   COMPARE_SIDES  the kernels to boot ["base ours"]
#   COMPARE_SECS   seconds per run [40]
#   TCG_THREAD, SMP  as for qemu.sh (defaults here: multi, 2)
#   COMPARE_REPORT_ONLY=1  only write the table from the last run's logs
#
# Writes $BUILD/results/torture-compare.txt: one line per run and a table
# of runs failed, runs with lost hits, lost hits and hits per kernel and
# QEMU.  This is an experiment, not a test: it always exits 0 once the
# guests ran.
set -euo pipefail

arch=$1 build=$(realpath -m "$2")
shift 2
frags=()
for f in "$@"; do frags+=("$(realpath "$f")"); done
here=$(dirname "$(dirname "$(readlink -f "$0")")")
repo=$(realpath "$here/../../..")
runs=${COMPARE_RUNS:-10} secs=${COMPARE_SECS:-40} boots=${COMPARE_BOOTS:-1}
qemus=${COMPARE_QEMUS:-10=qemu-system-$([ "$arch" = arm64 ] && echo aarch64 || echo x86_64) 7.2}
export TCG_THREAD=${TCG_THREAD:-multi} SMP=${SMP:-2}
res=$build/results/torture-compare
report=$build/results/torture-compare.txt

# shellcheck source=../common.sh
. "$(dirname "$(readlink -f "$0")")/../common.sh"
arch_vars "$arch" torture-compare

# Debian 12's QEMU 7.2 beside the installed one: its packages unpacked
# (not installed) into $BUILD/qemu-7.2, with the firmware the installed
# seabios and ipxe-qemu packages provide.
qemu72() {
	local d=$build/qemu-7.2 deb f
	if [ ! -x "$d/usr/bin/qemu-system-x86_64" ]; then
		log QEMU "fetching Debian 12's QEMU 7.2 into ${d#$PWD/}" >&2
		rm -rf "$d.debs" && mkdir -p "$d.debs" "$d"
		(cd "$d.debs" && apt-get download -q qemu-system-x86/bookworm \
			qemu-system-common/bookworm qemu-system-data/bookworm >/dev/null)
		for deb in "$d.debs"/*.deb; do dpkg -x "$deb" "$d"; done
		for f in /usr/share/seabios/* /usr/lib/ipxe/qemu/*; do
			[ -e "$d/usr/share/qemu/${f##*/}" ] || ln -s "$f" "$d/usr/share/qemu/"
		done
	fi
	echo "7.2=$d/usr/bin/qemu-system-x86_64:$d/usr/share/qemu"
}
q=
for w in $qemus; do
	if [ "$w" = 7.2 ]; then
		[ "$arch" = x86_64 ] || { log QEMU "7.2 is fetched for x86_64 only" >&2; continue; }
		w=$(qemu72)
	fi
	q="$q $w"
done
qemus=$q

# 1. The base kernel (the untouched tree, same fragments), then the two
#    modules against each kernel, from the same sources.
build_modules() {
	[ "${COMPARE_NO_BUILD:-0}" = 1 ] ||
		"$here/build.sh" "$arch" "$build/base" "$build/$arch-base" "${frags[@]}"
	for side in base ours; do
		if [ $side = base ]; then out=$build/$arch-base; else out=$build/$arch; fi
		[ -f "$out/kernel-image" ] || {
			echo "torture-compare: no $side kernel in $out" >&2
			exit 1
		}
		mod=$out/torture-module
		rm -rf "$mod" && mkdir -p "$mod"
		cp "$repo/kernel/kprobes/tests/kprobes_torture.c" \
		   "$repo/kernel/kprobes/tests/kprobes_torture_target.c" "$mod/"
		cat > "$mod/no-jprobes.h" <<-'EOF'
		/* Included after the kernel's config: the same slots on every kernel. */
		#undef CONFIG_JPROBES
		EOF
		cat > "$mod/Kbuild" <<-'EOF'
		obj-m := kprobes_torture.o kprobes_torture_target.o
		ccflags-y := -include $(src)/no-jprobes.h
		EOF
		log MODULE "kprobes_torture.ko for $side"
		make -s -C "$out" M="$mod" ARCH="$karch" CROSS_COMPILE="$cross" \
			CC="ccache ${cross}gcc" modules
		# The base's initramfs, with the guest scripts of this tree.
		if [ $side = base ]; then
			"$here/mkinitramfs.sh" "$arch" "$out" "$build/base" "$repo" \
				"$out/initramfs.cpio.gz" >/dev/null
		fi
	done
}

# 2. The guest side: a script the init's "script" mode runs from /results.
guest_script() {
	cat <<-EOF
	runs=$runs secs=$secs
	EOF
	cat <<-'EOF'
	R=/results
	OPT=/proc/sys/debug/kprobes-optimization
	flipper() {
		n=0
		while :; do
			if insmod $R/kprobes_torture_target.ko; then
				sleep 0.2
				rmmod kprobes_torture_target
			fi
			if [ -w $OPT ] && [ $((n % 3)) = 0 ]; then
				echo $(( (n / 3 + 1) % 2 )) > $OPT
			fi
			n=$((n + 1))
			sleep 0.1
		done
	}
	for i in $(seq 1 $runs); do
		dmesg -c > /dev/null
		if ! insmod $R/kprobes_torture.ko duration=$secs strict=1 module_probes=0xf; then
			echo "run $i: insmod failed" >> $R/runs.txt
			continue
		fi
		flipper &
		fpid=$!
		for t in $(seq 1 $((secs * 4 + 600))); do
			[ "$(cat /sys/module/kprobes_torture/parameters/done)" = Y ] && break
			sleep 1
		done
		kill $fpid
		wait $fpid 2>/dev/null
		v=$(dmesg | grep -E 'kprobes_torture: (PASS|FAIL)' | tail -1 | sed 's/^\[[^]]*\] //')
		echo "run $i: ${v:-no verdict}" >> $R/runs.txt
		# The module's reports of hits short of the calls made.
		dmesg | grep -E 'lost hit|calls made while armed' | sed 's/^\[[^]]*\] //' |
			head -5 | sed "s/^/run $i:   /" >> $R/runs.txt
		rmmod kprobes_torture
		rmmod kprobes_torture_target 2>/dev/null
		[ -w $OPT ] && echo 1 > $OPT
	done
	echo done > $R/finished
	EOF
}

# 3. Boot: base then ours, for each QEMU, COMPARE_BOOTS times.
boot_all() {
	local first=${COMPARE_BOOT_FIRST:-1} sides=${COMPARE_SIDES:-base ours}
	tmo=$(( runs * (secs * 3 + 120) + 300 ))
	for q in $qemus; do
		label=${q%%=*} spec=${q#*=}
		bin=${spec%%:*} fw=
		[ "$spec" != "$bin" ] && fw=${spec#*:}
		for b in $(seq "$first" $((first + boots - 1))); do
			for side in $sides; do
				if [ $side = base ]; then out=$build/$arch-base; else out=$build/$arch; fi
				dir=$res/$label-$side-b$b
				rm -rf "$dir" && mkdir -p "$dir"
				cp "$out/torture-module/kprobes_torture.ko" \
				   "$out/torture-module/kprobes_torture_target.ko" "$dir/"
				guest_script > "$dir/script.sh"
				QEMU_BIN=$bin QEMU_EXTRA=${fw:+-L $fw} ACCEL=tcg \
					"$here/qemu.sh" "$arch" "$out/kernel-image" "$out/initramfs.cpio.gz" \
					script "$dir/console.log" "$dir" "$tmo" kunit.enable=0 || true
				[ -f "$dir/finished" ] || echo "boot did not finish" >> "$dir/runs.txt"
				sed "s/^/$label $side b$b /" "$dir/runs.txt" 2>/dev/null || true
			done
		done
	done
}

if [ "${COMPARE_REPORT_ONLY:-0}" != 1 ]; then
	build_modules
	boot_all
fi

# 4. The table.
{
	echo "# torture-compare $(date -u +%F), $arch, TCG_THREAD=$TCG_THREAD SMP=$SMP,"
	echo "# $runs runs of ${secs}s per boot; every boot in ${res#$PWD/} counts"
	for d in "$res"/*/; do
		echo "$(basename "$d"): QEMU $(cat "$d/qemu.txt" 2>/dev/null)"
		sed "s|^|$(basename "$d") |" "$d/runs.txt" 2>/dev/null
	done
	echo
	printf '%-6s %-5s %5s %6s %5s %6s %9s %5s %10s  %s\n' qemu side boots oopsed runs failed \
		lost-runs lost hits "where hits were lost; other counters that were not 0 (sums)"
	for q in $qemus; do
		label=${q%%=*}
		for side in base ours; do
			nb=0 no=0
			for d in "$res/$label-$side"-b*/; do
				[ -d "$d" ] || continue
				nb=$((nb + 1))
				grep -q '^Oops:' "$d/console.log" 2>/dev/null && no=$((no + 1))
			done
			cat "$res/$label-$side"-b*/console.log 2>/dev/null | tr -d '\r' |
			sed 's/^\[[^]]*\] //' | awk -v q="$label" -v s="$side" -v nb=$nb -v no=$no '
				# A short window names its probe: "kp-mid-b: window
				# 40 entry: 0 hits + 0 missed < 4 calls made while armed".
				/^kprobes_torture: [^ ]+: window .* calls made while armed/ {
					slot = $2; sub(/:$/, "", slot)
					where[slot]++
				}
				/^kprobes_torture: (PASS|FAIL) / {
					n++
					if ($2 != "PASS") f++
					for (i = 1; i <= NF; i++) {
						if (split($i, kv, "=") != 2 || kv[2] !~ /^[0-9]+$/)
							continue
						if (kv[1] == "hits") hits += kv[2]
						else if (kv[1] == "lost") { lost += kv[2]; if (kv[2] > 0) lr++ }
						else if (kv[1] ~ /^(after_unregister|while_off|bad_return_data|failed_batch_handlers|extra|op_errors|bad_batch_accepted|left_registered|wrong_results|wrong_jprobe_args)$/ && kv[2] > 0)
							other[kv[1]] += kv[2]
					}
				}
				END {
					o = ""
					for (k in where) o = o (o == "" ? "" : " ") k ":" where[k]
					o = (o == "" ? "-" : o) ";"
					for (k in other) o = o " " k "=" other[k]
					printf "%-6s %-5s %5d %6d %5d %6d %9d %5d %10d  %s\n", q, s, nb, no, n, f, lr, lost, hits, o
				}'
		done
	done
} > "$report"
sed -n '/^qemu /,$p' "$report"
log REPORT "${report#$PWD/}"
