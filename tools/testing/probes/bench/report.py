#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Aggregate make bench results into JSON and a readable table.

    report.py RESULTS_DIR JSON_OUT TABLE_OUT ICOUNT_ARG

RESULTS_DIR holds MODE/SIDE/rROUND/bench.jsonl as tools/testing/probes/
bench.sh leaves them (MODE wall or icount, SIDE base or ours) and
boots.txt.  For every mode and scenario it takes the per-boot figures of
each side, their median and range, and the ratio ours / base: the ratio
of the medians, with the range of the per-round ratios.  "base max/min"
is the base compared with itself across boots: what run-to-run noise
alone does to a ratio, the sanity check of the figures.

The figure compared is get_cycles() per operation (bytes for memory).
Under plain TCG the guest's cycle counter runs at the host's TSC rate:
the table shows it as ns, converted with the median rate measured over
all wall-time boots, the same factor for both sides.  Under -icount it
counts virtual ns, that is executed guest instructions times 2^shift: the
table shows instructions.
"""
import json
import os
import re
import statistics
import sys

MODES = ("wall", "icount")
SIDES = ("base", "ours")

# Table order; scenarios not listed come after, in name order.
ORDER = [
    "none", "kprobe_entry", "jprobe_entry", "kprobe_int3", "kprobe_int3_irqs_on",
    "kprobe_int3_post",
    "kprobe_opt", "kprobe_opt_NOT_OPTIMIZED", "kretprobe", "kretprobe_entry",
    "fprobe_entry", "fprobe_exit", "kprobe_event_4args",
    "kprobe_int3_with_1_others", "kprobe_int3_with_10000_others",
    "kprobe_entry_with_1_others", "kprobe_entry_with_10000_others",
]


def order_key(name):
    if name in ORDER:
        return (0, ORDER.index(name), 0, name)
    m = re.match(r"(.*?)_(\d+)$", name)
    if m:
        return (1, 0, m.group(1), int(m.group(2)))
    return (2, 0, name, 0)


def load(res):
    """runs[mode][side] = list of (round, {scenario: record})."""
    runs = {m: {s: [] for s in SIDES} for m in MODES}
    for mode in MODES:
        for side in SIDES:
            d = os.path.join(res, mode, side)
            if not os.path.isdir(d):
                continue
            for r in sorted(os.listdir(d), key=lambda x: int(x[1:])):
                f = os.path.join(d, r, "bench.jsonl")
                if not os.path.exists(f):
                    continue
                recs = {}
                with open(f) as fh:
                    for line in fh:
                        line = line.strip()
                        if not line:
                            continue
                        try:
                            rec = json.loads(line)
                        except ValueError:
                            continue
                        recs[rec["scenario"]] = rec
                if recs:
                    runs[mode][side].append((int(r[1:]), recs))
    return runs


def value(rec):
    return float(rec["bytes"] if rec["unit"] == "byte" else rec["cycles"])


def summarize(runs, mode, scale):
    """One row per scenario: both sides' values and the ratios."""
    names = set()
    for side in SIDES:
        for _, recs in runs[mode][side]:
            names.update(recs)
    rows = []
    for name in sorted(names, key=order_key):
        row = {"scenario": name}
        per_round = {}
        for side in SIDES:
            vals = []
            for rnd, recs in runs[mode][side]:
                if name in recs:
                    rec = recs[name]
                    row["unit"] = rec["unit"]
                    v = value(rec)
                    if rec["unit"] != "byte":
                        v *= scale
                    vals.append(v)
                    per_round.setdefault(rnd, {})[side] = v
            if vals:
                row[side] = {"median": statistics.median(vals),
                             "min": min(vals), "max": max(vals),
                             "values": vals}
        if "base" in row and "ours" in row and row["base"]["median"] > 0:
            row["ratio"] = row["ours"]["median"] / row["base"]["median"]
            pr = [p["ours"] / p["base"] for p in per_round.values()
                  if "base" in p and "ours" in p and p["base"] > 0]
            if pr:
                row["ratio_min"], row["ratio_max"] = min(pr), max(pr)
        if "base" in row and row["base"]["min"] > 0:
            row["base_self"] = row["base"]["max"] / row["base"]["min"]
        rows.append(row)
    return rows


def fmt(v, unit, mode):
    """A value for the table: times in ns/us/ms/s, counts in k/M/G."""
    if unit == "byte":
        return "%.0f" % v
    if mode == "wall":
        steps = ((1e9, "s"), (1e6, "ms"), (1e3, "us"), (1, "ns"))
    else:
        steps = ((1e9, "G"), (1e6, "M"), (1e3, "k"), (1, ""))
    for div, suffix in steps:
        if v >= div or div == 1:
            x = v / div
            return ("%.0f" if x >= 100 else "%.1f" if x >= 10 else
                    "%.2f") % x + suffix
    return "%g" % v


def table(rows, mode, title, vunit):
    out = ["== %s ==" % title]
    hdr = "%-31s %-5s %26s %26s %9s %15s %9s" % (
        "scenario", "per", "base median [min-max]", "ours median [min-max]",
        "ours/base", "[per-round]", "base/base")
    out.append(hdr)
    out.append("-" * len(hdr))
    for row in rows:
        unit = row.get("unit", "?")
        per = {"call": "call", "probe": "probe", "op": "op",
               "byte": "bytes"}.get(unit, unit)
        cells = []
        for side in SIDES:
            s = row.get(side)
            if not s:
                cells.append("-")
                continue
            cells.append("%s [%s-%s]" % (fmt(s["median"], unit, mode),
                                         fmt(s["min"], unit, mode),
                                         fmt(s["max"], unit, mode)))
        ratio = "%.3f" % row["ratio"] if "ratio" in row else "-"
        spread = ("[%.3f-%.3f]" % (row["ratio_min"], row["ratio_max"])
                  if "ratio_min" in row else "")
        bself = "%.3f" % row["base_self"] if "base_self" in row else "-"
        out.append("%-31s %-5s %26s %26s %9s %15s %9s" % (
            row["scenario"], per, cells[0], cells[1], ratio, spread, bself))
    out.append("(values in %s; bytes for memory rows)" % vunit)
    return out


def main():
    res, json_out, table_out, icount_arg = sys.argv[1:5]
    runs = load(res)

    # Wall time: one cycles->ns factor for both sides (median of all boots).
    khz = [recs["none"]["khz"] for side in SIDES
           for _, recs in runs["wall"][side] if "none" in recs]
    wall_scale = 1e6 / statistics.median(khz) if khz else 1.0
    m = re.search(r"shift=(\d+)", icount_arg or "")
    shift = int(m.group(1)) if m else 0
    icount_scale = 1.0 / (1 << shift)

    result = {"icount": icount_arg,
              "wall_cycles_per_ms": statistics.median(khz) if khz else None,
              "boots": {m: {s: [r for r, _ in runs[m][s]] for s in SIDES}
                        for m in MODES}}
    lines = []
    boots = os.path.join(res, "boots.txt")
    if os.path.exists(boots):
        with open(boots) as fh:
            result["boot_log"] = fh.read().splitlines()
    mhz = statistics.median(khz) / 1e3 if khz else 0
    for mode, scale, title, vunit in (
            ("wall", wall_scale,
             "TCG wall time in ns (guest cycle counter at %.0f MHz)" % mhz,
             "ns"),
            ("icount", icount_scale,
             "QEMU -icount %s: guest instructions" % icount_arg,
             "instructions")):
        if not any(runs[mode][s] for s in SIDES):
            continue
        rows = summarize(runs, mode, scale)
        result[mode] = rows
        nb = len(runs[mode]["base"])
        no = len(runs[mode]["ours"])
        lines += table(rows, mode, "%s; %d base + %d ours boots" %
                       (title, nb, no), vunit)
        calls = [r for r in rows if r.get("unit") == "call" and "ratio" in r]
        if calls:
            gm = statistics.geometric_mean([r["ratio"] for r in calls])
            worst = max((r.get("base_self", 1.0) for r in calls))
            result.setdefault("summary", {})[mode] = {
                "call_ratio_geomean": gm, "call_base_self_worst": worst}
            lines.append("call costs: ours/base geometric mean %.3f; "
                         "worst base/base (max/min over boots) %.3f" %
                         (gm, worst))
        lines.append("")
    if "boot_log" in result:
        lines.append("boots: " + "; ".join(result["boot_log"]))

    with open(json_out, "w") as fh:
        json.dump(result, fh, indent=1)
        fh.write("\n")
    with open(table_out, "w") as fh:
        fh.write("\n".join(lines) + "\n")
    print("\n".join(lines))
    print("  BENCH    %s, %s" % (json_out, table_out))


if __name__ == "__main__":
    main()
