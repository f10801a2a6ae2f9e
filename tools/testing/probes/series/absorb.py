#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Split a fixing commit's change by the patches whose lines it changes.

    absorb.py REPO COMMIT FOLDMAP OUTDIR

For a folds line whose INTO is "*" (see series/folds): every hunk of
COMMIT's change (to the folds line's PATHS, or to the kernel tree) goes back into the
patch of the commit that last wrote the lines the hunk replaces, found
with git blame on COMMIT's parent; a hunk that only adds lines goes
where the line above it came from.  A hunk whose lines come from
several commits goes to the newest of them, the first whose tree holds
all of them.

Blame may name a commit that is itself folded elsewhere: FOLDMAP has one
"COMMIT<TAB>INTO_COMMIT<TAB>PATHSPEC..." line for each fold with a fixed
target (the change then lives in INTO_COMMIT's patch, for files under
PATHSPEC or everywhere when there is none) and "COMMIT<TAB>*[<TAB>PATHS]"
for one that is absorbed itself (COMMIT among them): a line such a
commit wrote goes where the hunk that wrote it went.

Writes OUTDIR/absorb-N.diff, one per target, and prints one line
"TARGET_COMMIT<TAB>DIFF" for each.  Exits non-zero, naming the hunk,
when a hunk cannot be placed.
"""
import os
import re
import subprocess
import sys

KPATHS = ["arch", "kernel", "include", "lib", "mm", "samples",
          "Documentation", "tools", "scripts", "Kconfig.probes",
          ":(exclude)tools/testing/probes"]


def git(repo, *args):
    return subprocess.run(["git", "-C", repo, *args], check=True,
                          capture_output=True, text=True).stdout


def covers(specs, path):
    if not specs:
        return True
    return any(path == s or path.startswith(s.rstrip("/") + "/")
               for s in specs)


def parse_hunks(diff):
    """(path, header lines, hunk lines) for every hunk of a diff."""
    out, header, path, hunk = [], [], None, None
    for line in diff.splitlines(keepends=True):
        if line.startswith("diff --git "):
            if hunk:
                out.append((path, header, hunk))
            hunk, header, path = None, [line], None
        elif hunk is None and not line.startswith("@@"):
            header.append(line)
            if line.startswith("--- "):
                path = (None if line.strip() == "--- /dev/null"
                        else line[6:].rstrip("\n"))
        elif line.startswith("@@"):
            if hunk:
                out.append((path, header, hunk))
            hunk = [line]
        else:
            hunk.append(line)
    if hunk:
        out.append((path, header, hunk))
    return out


def main():
    repo, commit, foldmap, outdir = sys.argv[1:5]
    order = {c: i for i, c in
             enumerate(git(repo, "rev-list", "--reverse", "HEAD").split())}

    fixed, absorbed = {}, {}
    with open(foldmap) as f:
        for line in f:
            parts = line.rstrip("\n").split("\t")
            if len(parts) < 2:
                continue
            specs = parts[2].split() if len(parts) > 2 else []
            if parts[1] == "*":
                absorbed[parts[0]] = specs
            else:
                fixed.setdefault(parts[0], []).append((parts[1], specs))

    memo = {}

    def blame(sha, path, first, last):
        """(commit, line in that commit's file, its path) per line."""
        out = git(repo, "blame", "--porcelain", "-L", f"{first},{last}",
                  sha + "^", "--", path)
        lines, names, cur = [], {}, None
        for l in out.splitlines():
            m = re.match(r"^([0-9a-f]{40}) (\d+) \d+", l)
            if m:
                cur = m.group(1)
                lines.append([cur, int(m.group(2)), None])
            elif l.startswith("filename "):
                names[cur] = l[9:]
        for line in lines:
            line[2] = names[line[0]]
        return lines

    def place(sha, path, first, last):
        """The commit whose patch the lines of @sha^ go back into."""
        best = None
        for c, line, name in blame(sha, path, first, last):
            t = None
            if c in absorbed:
                t = next((t for p, a, b, t, _, _ in absorb(c, absorbed[c])
                          if p == name and a <= line <= b), None)
            if t is None:
                t = next((i for i, s in fixed.get(c, [])
                          if covers(s, name)), c)
            if best is None or order.get(t, -1) > order.get(best, -1):
                best = t
        return best

    def absorb(sha, specs):
        """(path, first new line, last new line, target, header, hunk)."""
        if sha in memo:
            return memo[sha]
        diff = git(repo, "diff", "-U3", "--no-renames", sha + "^", sha,
                   "--", *(specs or KPATHS))
        res = []
        for path, header, hunk in parse_hunks(diff):
            m = re.match(r"@@ -(\d+)(?:,\d+)? \+(\d+)(?:,(\d+))? ", hunk[0])
            old = ln = int(m.group(1))
            new_first = int(m.group(2))
            new_last = new_first + int(m.group(3) or 1) - 1
            changed, above = [], None
            for l in hunk[1:]:
                if l.startswith("-"):
                    changed.append(ln)
                    ln += 1
                elif l.startswith("+"):
                    if above is None:
                        above = ln - 1
                else:
                    ln += 1
            if path is None:
                sys.exit(f"absorb: {sha[:12]} adds a file: no earlier patch")
            if changed:
                first, last = min(changed), max(changed)
            else:
                first = last = max(above if above is not None else old, 1)
            t = place(sha, path, first, last)
            if order.get(t, -1) >= order[sha]:
                sys.exit(f"absorb: {path}:{first} has no earlier patch")
            res.append((path, new_first, new_last, t, header, hunk))
        memo[sha] = res
        return res

    commit = git(repo, "rev-parse", commit).strip()
    groups = {}
    for path, _, _, t, header, hunk in absorb(commit,
                                              absorbed.get(commit, [])):
        groups.setdefault(t, {}).setdefault(path, (header, []))[1].append(
            "".join(hunk))

    os.makedirs(outdir, exist_ok=True)
    for n, (t, files) in enumerate(sorted(groups.items(),
                                          key=lambda g: order[g[0]])):
        out = os.path.join(outdir, f"absorb-{commit[:12]}-{n}.diff")
        with open(out, "w") as f:
            for path, (hdr, hunks) in files.items():
                f.write("".join(hdr) + "".join(hunks))
        print(f"{t}\t{out}")


if __name__ == "__main__":
    main()
