#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""What a user of the clients waits for, ours beside the base.

    clients-times.py RESULTS_DIR ARCH

Reads the "CHECK LABEL SECONDS" lines that make check-clients leaves in
RESULTS_DIR/ARCH-clients/clients-times.txt (ours) and
RESULTS_DIR/ARCH-clients-base/clients-times.txt (make check-clients
IMPL=base), prints them as a table with the ratio ours / base and writes
the table to RESULTS_DIR/ARCH-clients-times.md.  A side without a run
shows "-".
"""
import os
import sys


def load(path):
    rows = {}
    try:
        with open(path) as f:
            for line in f:
                parts = line.split()
                if len(parts) == 3:
                    rows[(parts[0], parts[1])] = float(parts[2])
    except OSError:
        pass
    return rows


def main():
    results, arch = sys.argv[1:3]
    ours = load(os.path.join(results, f"{arch}-clients", "clients-times.txt"))
    base = load(os.path.join(results, f"{arch}-clients-base",
                             "clients-times.txt"))
    keys = list(base) + [k for k in ours if k not in base]
    if not keys:
        return
    lines = ["| check | what | base (s) | ours (s) | ours / base |",
             "| --- | --- | --- | --- | --- |"]
    for k in keys:
        b, o = base.get(k), ours.get(k)
        ratio = f"{o / b:.3f}" if b and o is not None else "-"
        lines.append(f"| {k[0]} | {k[1]} | {'-' if b is None else f'{b:.2f}'}"
                     f" | {'-' if o is None else f'{o:.2f}'} | {ratio} |")
    text = "\n".join(lines) + "\n"
    with open(os.path.join(results, f"{arch}-clients-times.md"), "w") as f:
        f.write(text)
    print(text, end="")


if __name__ == "__main__":
    main()
