# SPDX-License-Identifier: GPL-2.0
"""gdb script: where the instructions of one call go (insn-profile.sh).

Run by gdb with the guest's vmlinux loaded and these in the environment:
PROFILE_SOCK (QEMU's gdbstub socket), PROFILE_TARGET (the address of the
function whose calls are profiled), PROFILE_CALLS (how many calls) and
PROFILE_OUT (the output file).  Each call is stepped one instruction
at a time from the function's first instruction until it returns to its
caller (QEMU steps with interrupts and timers off, so nothing else gets
in), counting instructions by the vmlinux function they are in.
Writes one line per call, "call N TOTAL", then "FUNCTION COUNT" lines
for the call with the median total.
"""
import collections
import os

import gdb

OUTSIDE = "[module, trampoline or detour]"


def symbol(pc, cache):
    name = cache.get(pc)
    if name is None:
        text = gdb.execute(f"info symbol {pc:#x}", to_string=True)
        name = OUTSIDE if text.startswith("No symbol") else \
            text.split(" + ")[0].split(" in section")[0].strip()
        cache[pc] = name
    return name


def main():
    sock = os.environ["PROFILE_SOCK"]
    target = int(os.environ["PROFILE_TARGET"], 16)
    calls = int(os.environ.get("PROFILE_CALLS", "5"))
    gdb.execute("set pagination off")
    gdb.execute("set confirm off")
    gdb.execute(f"target remote {sock}")
    inf = gdb.selected_inferior()
    cache, runs = {}, []
    for _ in range(calls):
        gdb.execute(f"hbreak *{target:#x}", to_string=True)
        gdb.execute("continue", to_string=True)
        gdb.execute("delete", to_string=True)
        sp = int(gdb.parse_and_eval("$sp"))
        ret = int.from_bytes(bytes(inf.read_memory(sp, 8)), "little")
        counts = collections.Counter()
        for _ in range(200000):
            pc = int(gdb.parse_and_eval("$pc")) & (2 ** 64 - 1)
            if pc == ret:
                break
            counts[symbol(pc, cache)] += 1
            gdb.execute("stepi", to_string=True)
        runs.append(counts)
    totals = [sum(c.values()) for c in runs]
    median = sorted(range(len(runs)), key=lambda i: totals[i])[len(runs) // 2]
    with open(os.environ["PROFILE_OUT"], "w") as f:
        for i, t in enumerate(totals):
            f.write(f"call {i + 1} {t}\n")
        for name, n in runs[median].most_common():
            f.write(f"{name} {n}\n")
    gdb.execute("kill", to_string=True)


main()
