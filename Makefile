# SPDX-License-Identifier: GPL-2.0
#
# The probe subsystem series: build it over the pinned base kernel, boot it
# in QEMU, test it, write the patch series.
#
#   make run       build, boot, and show probes at work
#   make check     build, boot, run every probe test suite; ends with
#                  "N passed, N failed, N skipped"
#   make patches   write the series into build/patches/
#   make patches-check  apply it to a fresh base, build and checkpatch each patch
#   make shell     boot to a shell in the guest
#   make kconfig-check  Debian configs give the same options with ours
#
# Variables: ARCH=x86_64|arm64, FTRACE=test.d/kprobe/probepoint.tc,...
# (ftracetest cases for check; "none" to skip), VERBOSE=1 (console on stdout),
# ACCEL=tcg|kvm (default: KVM when it really works), JOBS=N,
# CMDLINE="..." (extra guest kernel arguments, e.g. kunit.filter_glob=...).

ARCH		?= x86_64
BUILD		:= build
OUT		:= $(BUILD)/$(ARCH)
HARNESS		:= tools/testing/probes
FRAGMENTS	:= $(HARNESS)/config/probes.config $(HARNESS)/config/$(ARCH).config
RESULTS		:= $(BUILD)/results
LOGS		:= $(BUILD)/logs
CHECK_TIMEOUT	?= 2400
RUN_TIMEOUT	?= 600
FTRACE		?= test.d/kprobe,test.d/dynevent
CMDLINE		?=

export ARCH_HOST := $(shell uname -m)

.PHONY: all setup base overlay kernel initramfs run check shell patches clean distclean help

all: check

help:
	@sed -n '3,18p' Makefile | sed 's/^# \{0,1\}//'

setup:
	@$(HARNESS)/setup.sh $(ARCH)

base: setup
	@$(HARNESS)/prepare-base.sh $(BUILD)

overlay: base
	@$(HARNESS)/overlay.sh . $(BUILD)

kernel: overlay
	@$(HARNESS)/build.sh $(ARCH) $(BUILD)/src $(OUT) $(FRAGMENTS)

initramfs: kernel
	@$(HARNESS)/mkinitramfs.sh $(ARCH) $(OUT) $(BUILD)/src . $(OUT)/initramfs.cpio.gz

run: initramfs
	@rm -rf $(RESULTS)/$(ARCH)-run && mkdir -p $(RESULTS)/$(ARCH)-run
	@$(HARNESS)/qemu.sh $(ARCH) $(OUT)/kernel-image $(OUT)/initramfs.cpio.gz run \
		$(LOGS)/$(ARCH)-run.log $(RESULTS)/$(ARCH)-run $(RUN_TIMEOUT) || true
	@$(HARNESS)/report.sh $(ARCH) $(RESULTS)/$(ARCH)-run $(LOGS)/$(ARCH)-run.log \
		$(RESULTS)/$(ARCH)-run.tap run

check: initramfs
	@rm -rf $(RESULTS)/$(ARCH) && mkdir -p $(RESULTS)/$(ARCH)
	@$(HARNESS)/ftrace-cases.sh $(BUILD)/src "$(FTRACE)" $(RESULTS)/$(ARCH)/ftrace-skips.txt \
		> $(RESULTS)/$(ARCH)/ftrace-cases.txt
	@$(HARNESS)/qemu.sh $(ARCH) $(OUT)/kernel-image $(OUT)/initramfs.cpio.gz check \
		$(LOGS)/$(ARCH)-check.log $(RESULTS)/$(ARCH) $(CHECK_TIMEOUT) $(CMDLINE) || true
	@$(HARNESS)/lockdown.sh $(ARCH) $(OUT) $(RESULTS)/$(ARCH) $(LOGS)
	@$(HARNESS)/report.sh $(ARCH) $(RESULTS)/$(ARCH) $(LOGS)/$(ARCH)-check.log \
		$(RESULTS)/$(ARCH).tap check

shell: initramfs
	@$(HARNESS)/qemu.sh $(ARCH) $(OUT)/kernel-image $(OUT)/initramfs.cpio.gz shell \
		$(LOGS)/$(ARCH)-shell.log $(RESULTS)/$(ARCH)-shell 86400

# make bench: probe costs, ours against the base tree built with the same
# config, in QEMU, A/B boots (see tools/testing/probes/BENCH.md).
.PHONY: bench
bench: initramfs
	@$(HARNESS)/bench.sh $(ARCH) $(BUILD) $(FRAGMENTS)

patches: base
	@$(HARNESS)/patches.sh . $(BUILD)

# make patches-check: git am the series onto a fresh base, build at every
# patch, checkpatch --strict every patch (PATCHES_FROM=N, PATCHES_BUILD=0).
.PHONY: patches-check
patches-check: patches
	@$(HARNESS)/patches-check.sh $(ARCH) $(BUILD) $(FRAGMENTS)

# make kconfig-check: Debian's configs give the same options with the
# symbols moved into Kconfig.probes.
.PHONY: kconfig-check
kconfig-check: base
	@$(HARNESS)/kconfig-check.sh . $(BUILD)

clean:
	rm -rf $(OUT) $(RESULTS) $(LOGS)

distclean:
	rm -rf $(BUILD)
