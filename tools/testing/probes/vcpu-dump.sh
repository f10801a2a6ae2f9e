#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# What every vCPU of a hung guest is doing, read through QEMU's gdb stub
# (qemu.sh calls this when a guest times out).  A guest that stopped
# printing cannot be asked for a backtrace, and our kernels have no debug
# info, so this prints for each vCPU its registers, the instructions at
# the PC and the kernel text addresses found on its stack (newest first,
# symbolized from VMLINUX: a "guess" unwind, as the kernel's own
# CONFIG_UNWINDER_GUESS would do; read it with that in mind).
#
#   vcpu-dump.sh ARCH SOCKET VMLINUX
#
# Attaching stops every vCPU; the dump detaches again so the caller can
# see whether the guest moves on by itself afterwards (a vCPU spinning in
# a stale translation retranslates after a stop, RELIABILITY.md finding
# 13).
set -uo pipefail

arch=$1 sock=$2 vmlinux=$3

case $arch in
x86_64) gdb_bin=gdb; sp=rsp; regs="rip rsp rbp rax rdi rsi eflags cs" ;;
arm64)  gdb_bin=gdb-multiarch; sp=sp; regs="pc sp x29 x30 x0 x1 cpsr" ;;
*) echo "vcpu-dump: no support for $arch"; exit 0 ;;
esac
if ! command -v "$gdb_bin" > /dev/null; then
	echo "vcpu-dump: $gdb_bin is not installed"
	exit 0
fi

script=$(mktemp)
trap 'rm -f "$script"' EXIT
cat > "$script" <<EOF
set pagination off
set confirm off
set width 0
target remote $sock
python
import gdb

def text_symbol(addr):
    out = gdb.execute("info symbol %#x" % addr, to_string=True).strip()
    if out.startswith("No symbol") or " in section " not in out:
        return None
    name, section = out.split(" in section ", 1)
    if "text" not in section:
        return None
    return name

# With a periodic tick only one CPU advances jiffies: if it is stuck with
# interrupts off, jiffies stands still and so does every watchdog that
# counts in jiffies (RELIABILITY.md, finding 18).
for var, ctype in (("jiffies", "unsigned long"), ("tick_do_timer_cpu", "int")):
    try:
        print("%s = %d" % (var, int(gdb.parse_and_eval("*(%s *)&%s" % (ctype, var)))))
    except gdb.error as e:
        print("%s: %s" % (var, e))

for t in sorted(gdb.selected_inferior().threads(), key=lambda t: t.num):
    t.switch()
    print("=== vCPU %d" % (t.num - 1))
    gdb.execute("info registers $regs")
    try:
        gdb.execute("x/6i \$pc")
    except gdb.error as e:
        print("  (no code at pc: %s)" % e)
    sp = int(gdb.parse_and_eval("\$$sp")) & (2**64 - 1)
    print("  stack, kernel text only:")
    for i in range(256):
        try:
            word = int(gdb.parse_and_eval("*(unsigned long *)%d" % (sp + 8 * i)))
        except gdb.error:
            break
        word &= 2**64 - 1
        sym = text_symbol(word)
        if sym:
            print("    [sp+%#05x] %#x %s" % (8 * i, word, sym))
end
detach
EOF
timeout -k 5 120 "$gdb_bin" -q -batch -x "$script" "$vmlinux" 2>&1 |
	grep -v '^warning: No executable has been specified'
