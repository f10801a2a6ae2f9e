# SPDX-License-Identifier: GPL-2.0
#
# The probe subsystem series: build it over the pinned base kernel, boot it
# in QEMU, test it, write the patch series.
#
#   make run       build, boot, and show probes at work
#   make check     build, boot, run every probe test suite; ends with
#                  "N passed, N failed, N skipped"
#   make check-loop N=10  make check N times in a row, with the tally
#   make torture-compare  the torture module against the base and ours
#   make patches   write the series into build/patches/
#   make patches-check  apply it to a fresh base, build and checkpatch each patch
#   make patches-boot   boot each topic's last patch: KUnit, ftracetest
#   make shell     boot to a shell in the guest
#   make kconfig-check  Debian configs give the same options with ours
#   make check-clients  perf probe, bpftrace, bcc and BTF probe events in a
#                  Debian guest (IMPL=base: against the base tree's own code)
#   make ftracetest  the whole ftracetest alone (IMPL=base: on the base tree)
#
# Variables: ARCH=x86_64|arm64, FTRACE=test.d/kprobe/probepoint.tc,...
# (ftracetest cases for check; "none" to skip), VERBOSE=1 (console on stdout),
# ACCEL=tcg|kvm (default: KVM when it really works), TCG_THREAD=single|multi
# (default: multi on QEMU >= 10), SMP=N (vCPUs, default 2), JOBS=N,
# CMDLINE="..." (extra guest kernel arguments, e.g. kunit.filter_glob=...),
# DEBUG=1 (debug kernel: lockdep, KASAN, KFENCE, UBSAN, preemptible; built
# in build/ARCH-debug, results as ARCH-debug; a long torture and fuzz run),
# KCSAN=1 (the concurrency sanitizer, build/ARCH-kcsan).

ARCH		?= x86_64
BUILD		:= build
HARNESS		:= tools/testing/probes
FRAGMENTS	:= $(HARNESS)/config/probes.config $(HARNESS)/config/$(ARCH).config
RESULTS		:= $(BUILD)/results
LOGS		:= $(BUILD)/logs
RUN_TIMEOUT	?= 600
FTRACE		?= test.d/kprobe,test.d/dynevent
CMDLINE		?=
DEBUG		?=

# DEBUG=1: config/debug.config on top, its own output directory and
# result names (VARIANT), a longer time-out, and reliability knobs for a
# long run (the user's CMDLINE comes after them, so it wins).  KCSAN=1:
# config/kcsan.config instead (KCSAN and KASAN exclude each other), the
# same long run without the lockdown boots; a data race reported in a
# function of ours fails it (kcsan.sh).
ifeq ($(KCSAN),1)
VARIANT		:= $(ARCH)-kcsan
FRAGMENTS	+= $(HARNESS)/config/kcsan.config
CHECK_TIMEOUT	?= 9000
DEBUG_CMDLINE	:= probes.torture_secs=300 probes.torture_lax_secs=30 \
		   probes.torture_race_us=100 probes.torture_race_secs=120 \
		   probes.fuzz_lines=4000
export LOCKDOWN_SKIP := 1
else ifeq ($(DEBUG),1)
VARIANT		:= $(ARCH)-debug
FRAGMENTS	+= $(HARNESS)/config/debug.config
CHECK_TIMEOUT	?= 9000
DEBUG_CMDLINE	:= probes.torture_secs=600 probes.torture_lax_secs=60 \
		   probes.torture_race_us=100 probes.torture_race_secs=600 \
		   probes.fuzz_lines=100000 probes.fuzz_cycle=1000 \
		   probes.sweep_funcs=0 probes.sweep_batch=4096 \
		   probes.sweep_mid_every=128 \
		   probes.sweep_step_secs=3600 \
		   probes.nmi_secs=300 probes.unwind_secs=300 \
		   probes.unwind_proc_secs=120
else
VARIANT		:= $(ARCH)
# About five times a normal x86_64 run (5 minutes); a hang must not eat
# the CI's 90 minutes.  arm64 under TCG is slower.
ifeq ($(ARCH),arm64)
CHECK_TIMEOUT	?= 2400
else
CHECK_TIMEOUT	?= 1500
endif
DEBUG_CMDLINE	:=
endif
OUT		:= $(BUILD)/$(VARIANT)
export REPORT_DEBUG := $(DEBUG)
export REPORT_KCSAN := $(KCSAN)
export REPORT_OUT := $(abspath $(OUT))
export REPORT_MANIFEST := $(abspath $(BUILD))/src.overlay.manifest

export ARCH_HOST := $(shell uname -m)

.PHONY: all setup base overlay kernel initramfs run check shell patches clean distclean help

all: check

help:
	@sed -n '3,22p' Makefile | sed 's/^# \{0,1\}//'

setup:
	@PROBES_BUILD=$(BUILD) $(HARNESS)/setup.sh $(ARCH)

base: setup
	@$(HARNESS)/prepare-base.sh $(BUILD)

overlay: base
	@$(HARNESS)/overlay.sh . $(BUILD)

kernel: overlay
	@$(HARNESS)/build.sh $(ARCH) $(BUILD)/src $(OUT) $(FRAGMENTS)

initramfs: kernel
	@$(HARNESS)/mkinitramfs.sh $(ARCH) $(OUT) $(BUILD)/src . $(OUT)/initramfs.cpio.gz

run: initramfs
	@rm -rf $(RESULTS)/$(VARIANT)-run && mkdir -p $(RESULTS)/$(VARIANT)-run
	@$(HARNESS)/qemu.sh $(ARCH) $(OUT)/kernel-image $(OUT)/initramfs.cpio.gz run \
		$(LOGS)/$(VARIANT)-run.log $(RESULTS)/$(VARIANT)-run $(RUN_TIMEOUT) || true
	@$(HARNESS)/report.sh $(ARCH) $(RESULTS)/$(VARIANT)-run $(LOGS)/$(VARIANT)-run.log \
		$(RESULTS)/$(VARIANT)-run.tap run

check: initramfs
	@rm -rf $(RESULTS)/$(VARIANT) && mkdir -p $(RESULTS)/$(VARIANT)
	@PROBES_ARCH=$(ARCH) $(HARNESS)/ftrace-cases.sh $(BUILD)/src "$(FTRACE)" \
		$(RESULTS)/$(VARIANT)/ftrace-skips.txt \
		> $(RESULTS)/$(VARIANT)/ftrace-cases.txt
	@$(HARNESS)/qemu.sh $(ARCH) $(OUT)/kernel-image $(OUT)/initramfs.cpio.gz check \
		$(LOGS)/$(VARIANT)-check.log $(RESULTS)/$(VARIANT) $(CHECK_TIMEOUT) $(DEBUG_CMDLINE) $(CMDLINE) || true
	@$(HARNESS)/lockdown.sh $(ARCH) $(OUT) $(RESULTS)/$(VARIANT) $(LOGS) $(VARIANT)
	@$(HARNESS)/bootconfig.sh $(ARCH) $(OUT) $(RESULTS)/$(VARIANT) $(LOGS) $(VARIANT)
	@$(HARNESS)/report.sh $(ARCH) $(RESULTS)/$(VARIANT) $(LOGS)/$(VARIANT)-check.log \
		$(RESULTS)/$(VARIANT).tap check

shell: initramfs
	@$(HARNESS)/qemu.sh $(ARCH) $(OUT)/kernel-image $(OUT)/initramfs.cpio.gz shell \
		$(LOGS)/$(VARIANT)-shell.log $(RESULTS)/$(VARIANT)-shell 86400

# make check-loop N=10: make check N times in a row on this tree, with the
# tally in build/results/check-loop/tally.txt (DEBUG= is not supported:
# the loop runs the normal kernel).
N		?= 10
.PHONY: check-loop
check-loop: initramfs
	@$(HARNESS)/reliability/check-loop.sh $(N) ARCH=$(ARCH) $(if $(SMP),SMP=$(SMP)) \
		$(if $(FTRACE),FTRACE="$(FTRACE)") $(if $(CMDLINE),CMDLINE="$(CMDLINE)")

# make bench: probe costs, ours against the base tree built with the same
# config, in QEMU, A/B boots (see tools/testing/probes/bench/BENCH.md).
.PHONY: bench
bench: initramfs
	@$(HARNESS)/bench/bench.sh $(ARCH) $(BUILD) $(FRAGMENTS)

# make insn-profile: where the instructions of one call of a bench
# scenario go, function by function, the base beside ours (x86_64, the
# kernels make bench built; gdb steps through the call).
.PHONY: insn-profile
insn-profile:
	@$(HARNESS)/bench/insn-profile.sh $(BUILD) $(SCENARIO)

# make torture-compare: the strict torture run against the base and
# against ours, under each QEMU of COMPARE_QEMUS (RELIABILITY.md,
# finding 12); table in build/results/torture-compare.txt.
.PHONY: torture-compare
torture-compare: initramfs
	@$(HARNESS)/reliability/torture-compare.sh $(ARCH) $(BUILD) $(FRAGMENTS)

# make check-clients: the distribution's clients (perf probe, bpftrace,
# bcc, bpftool) in a Debian bookworm root (a cached ext4 image, read-only),
# on a kernel with BTF (config/clients.config) built into
# build/ARCH-clients; results in build/results/ARCH-clients.tap.
# IMPL=base runs the same checks on the untouched base tree (the baseline,
# build/ARCH-clients-base).  Then the base tree's BPF selftests' probe
# subtests (test_progs, built with clang-19 by bpf-selftests.sh into
# build/ARCH-clients*/bpf-selftests; x86_64 only).  clients-module.sh
# builds the checks' own modules (clients-module/) against the kernel.
IMPL		?= ours
CLIENTS_FTRACE	?= test.d/dynevent/add_remove_btfarg.tc,test.d/dynevent/fprobe_syntax_errors.tc,test.d/kprobe/kprobe_syntax_errors.tc,probes/kprobe_events/kprobe_events_current_this_cpu.tc,probes/kprobe_events/kprobe_events_typecast.tc
CLIENTS_TIMEOUT	?= 3600
ifeq ($(IMPL),base)
CLIENTS_VARIANT	:= $(ARCH)-clients-base
CLIENTS_SRC	:= $(BUILD)/base
CLIENTS_TREE	:= base
CLIENTS_ENV	:= PROBES_CONFIG_MISSING_OK=1
else
CLIENTS_VARIANT	:= $(ARCH)-clients
CLIENTS_SRC	:= $(BUILD)/src
CLIENTS_TREE	:= overlay
CLIENTS_ENV	:=
endif
CLIENTS_OUT	:= $(BUILD)/$(CLIENTS_VARIANT)
CLIENTS_ROOTFS	:= $(BUILD)/clients-rootfs.ext4

.PHONY: check-clients
check-clients: $(CLIENTS_TREE)
	@$(HARNESS)/setup.sh $(ARCH) clients
	@$(HARNESS)/mkrootfs.sh $(CLIENTS_ROOTFS)
	@$(CLIENTS_ENV) $(HARNESS)/build.sh $(ARCH) $(CLIENTS_SRC) $(CLIENTS_OUT) \
		$(FRAGMENTS) $(HARNESS)/config/clients.config
	@$(HARNESS)/bpf-selftests.sh $(ARCH) $(BUILD)/base $(CLIENTS_OUT)
	@$(HARNESS)/clients-module.sh $(ARCH) $(CLIENTS_OUT)
	@$(HARNESS)/mkinitramfs.sh $(ARCH) $(CLIENTS_OUT) $(CLIENTS_SRC) . $(CLIENTS_OUT)/initramfs.cpio.gz
	@rm -rf $(RESULTS)/$(CLIENTS_VARIANT) && mkdir -p $(RESULTS)/$(CLIENTS_VARIANT)
	@$(HARNESS)/ftrace-cases.sh $(CLIENTS_SRC) "$(CLIENTS_FTRACE)" \
		$(RESULTS)/$(CLIENTS_VARIANT)/ftrace-skips.txt > $(RESULTS)/$(CLIENTS_VARIANT)/ftrace-cases.txt
	@QEMU_EXTRA="-drive file=$$(realpath $(CLIENTS_ROOTFS)),if=virtio,format=raw,readonly=on \
		-virtfs local,path=$$(realpath $(CLIENTS_OUT)),mount_tag=kbuild,security_model=none,readonly=on" \
		$(HARNESS)/qemu.sh $(ARCH) $(CLIENTS_OUT)/kernel-image $(CLIENTS_OUT)/initramfs.cpio.gz clients \
		$(LOGS)/$(CLIENTS_VARIANT).log $(RESULTS)/$(CLIENTS_VARIANT) $(CLIENTS_TIMEOUT) \
		kunit.enable=0 $(CMDLINE) || true
	@$(HARNESS)/bench/clients-times.py $(RESULTS) $(ARCH)
	@$(HARNESS)/report.sh $(ARCH) $(RESULTS)/$(CLIENTS_VARIANT) $(LOGS)/$(CLIENTS_VARIANT).log \
		$(RESULTS)/$(CLIENTS_VARIANT).tap clients

# make ftracetest: the whole ftracetest (FTRACE_ALL, every directory by
# default) and nothing else, against our kernel or (IMPL=base) the base
# tree's, built as make bench builds it; for changes to ftrace and the
# tracing core (BASELINE.md).
FTRACE_ALL	?= test.d
.PHONY: ftracetest
ftracetest: $(if $(filter base,$(IMPL)),base,initramfs)
	@$(HARNESS)/ftracetest-all.sh $(ARCH) $(BUILD) $(IMPL) "$(FTRACE_ALL)" \
		$(CHECK_TIMEOUT) $(FRAGMENTS)

patches: base
	@python3 $(HARNESS)/series/series.py . $(BUILD)

# make patches-check: git am the series onto a fresh base, build at every
# patch, checkpatch --strict every patch (PATCHES_FROM=N, PATCHES_BUILD=0).
.PHONY: patches-check
patches-check: patches
	@$(HARNESS)/series/check.sh $(ARCH) $(BUILD) $(FRAGMENTS)

# make patches-boot: boot the last patch of each topic of the series that
# make patches-check applied, with KUnit and the tree's own ftracetest
# (BOOT_TOPICS="NN ...", BOOT_FTRACE=DIRS).
.PHONY: patches-boot
patches-boot: base
	@$(HARNESS)/series/boot.sh $(ARCH) $(BUILD) $(FRAGMENTS)

# make kconfig-check: Debian's configs give the same options with the
# symbols moved into Kconfig.probes.
.PHONY: kconfig-check
kconfig-check: base
	@$(HARNESS)/kconfig-check.sh . $(BUILD)

clean:
	rm -rf $(OUT) $(RESULTS) $(LOGS)

distclean:
	rm -rf $(BUILD)
