#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Write the patch series from the tree and the plan (make patches).

    series.py REPO_DIR BUILD_DIR

The series is not the repository's history: it is the difference between
the base and this repository's kernel tree (HEAD, laid over the base as
"make kernel" lays it), cut into topics and patches by series/plan.

A patch of the plan lists paths.  A path is given its final content (the
tree's) by exactly one patch, so code appears in its final file, under
its final name, once.  A patch can also apply a diff from series/parts/
("< NAME.diff"): an intermediate step of a file that a later patch
finishes (a Makefile line that must wait for the file it builds, one
concept of a base file that several patches change).

Each topic becomes build/patches/NN-TOPIC/, written by git format-patch
with a cover letter from series/msg/TOPIC.cover; each patch's message is
series/msg/NAME.  The shape of every patch and topic is checked here
(the rules are in series/README.md) and written to
build/results/series-shape.txt; series/order.txt lists the patch files
in order for check.sh.  Exits non-zero when the plan does not give the
tree; make patches-check fails when a rule is broken without a waiver.
"""

import fnmatch
import os
import re
import shutil
import subprocess
import sys
import tempfile

MAX_TOPIC = 25          # patches in a topic
MAX_LINES = 800         # changed lines in a patch, unless its kind allows more
SIDE_LINES = 60         # lines a "newfile" or "motion" patch may change besides
KINDS = ("motion", "newfile", "waived")


def die(msg):
    print("series: " + msg, file=sys.stderr)
    sys.exit(1)


def git(tree, *args, check=True, inp=None, env=None):
    r = subprocess.run(("git", "-C", tree) + args, input=inp, text=True,
                       capture_output=True, env=env)
    if check and r.returncode:
        die("git %s: %s" % (" ".join(args), r.stderr.strip()))
    return r.stdout


class Patch:
    def __init__(self, topic, name, kind, reason, lineno):
        self.topic, self.name, self.kind, self.reason = topic, name, kind, reason
        self.lineno = lineno
        self.entries = []       # ("final", pattern), ("part", file), ("remove", path)
        self.commit = None
        self.lines = 0
        self.problems = []


def read_plan(path):
    """Topics (in order) and their patches from series/plan."""
    topics, patch = [], None
    with open(path) as f:
        for n, raw in enumerate(f, 1):
            line = raw.split("#", 1)[0].rstrip()
            if not line:
                continue
            if line.startswith("topic "):
                topics.append((line.split()[1], []))
                patch = None
            elif line.startswith("patch "):
                if not topics:
                    die("plan:%d: patch before any topic" % n)
                words = line.split(None, 3)
                kind = words[2] if len(words) > 2 else ""
                if kind and kind not in KINDS:
                    die("plan:%d: unknown kind %s" % (n, kind))
                reason = words[3] if len(words) > 3 else ""
                if kind == "waived" and not reason:
                    die("plan:%d: a waiver needs its reason" % n)
                patch = Patch(topics[-1][0], words[1], kind, reason, n)
                topics[-1][1].append(patch)
            elif raw[0] in " \t" and patch:
                e = line.strip()
                if e.startswith("<"):
                    patch.entries.append(("part", e[1:].strip()))
                elif e.startswith("- "):
                    patch.entries.append(("remove", e[2:].strip()))
                else:
                    patch.entries.append(("final", e))
            else:
                die("plan:%d: cannot read %r" % (n, line))
    return topics


def fresh_worktree(base, tree, branch):
    """Worktree TREE of the base repository on BRANCH, reset to the base."""
    git(base, "worktree", "prune")
    if not os.path.exists(os.path.join(tree, ".git")):
        git(base, "worktree", "add", "-q", "-B", branch, tree, "base")
    git(tree, "checkout", "-q", "-B", branch, "base")
    git(tree, "reset", "-q", "--hard", "base")
    git(tree, "clean", "-qfdx")


def final_tree(repo, build, base):
    """The tree object of HEAD's kernel files laid over the base."""
    tree = os.path.join(build, "series-final")
    fresh_worktree(base, tree, "series-final")
    for m in (".overlay.manifest", ".deleted.manifest"):
        if os.path.exists(tree + m):
            os.unlink(tree + m)
    with tempfile.TemporaryDirectory() as export:
        arch = subprocess.run(("git", "-C", repo, "archive", "HEAD"),
                              capture_output=True, check=True).stdout
        subprocess.run(("tar", "-x", "-C", export), input=arch, check=True)
        env = dict(os.environ, QUIET="1")
        subprocess.run((os.path.join(repo, "tools/testing/probes/overlay.sh"),
                        export, build, tree), env=env, check=True,
                       stdout=subprocess.DEVNULL)
    git(tree, "add", "-f", "-A", ".")
    return git(tree, "write-tree").strip()


def numstat(tree, rev):
    """(added, removed, path) of each file a commit changes (a rename
    counts only the lines it changes)."""
    out = []
    for line in git(tree, "show", "-M", "--numstat", "--format=",
                    rev).splitlines():
        a, d, p = line.split("\t", 2)
        out.append((0 if a == "-" else int(a), 0 if d == "-" else int(d), p))
    return out


def diff_lines(tree, rev, sign):
    """The added (sign "+") or removed ("-") lines of a commit, stripped."""
    out = []
    for line in git(tree, "show", "--no-renames", "--format=", "-U0",
                    rev).splitlines():
        if line.startswith(sign) and not line.startswith(sign * 3):
            s = line[1:].strip()
            if s:
                out.append(s)
    return out


def check_kind(tree, p, stat):
    """A large patch must be what its kind says."""
    total = sum(a + d for a, d, _ in stat)
    p.lines = total
    if total <= MAX_LINES:
        return
    if p.kind == "newfile":
        new = [a for a, d, path in stat
               if git(tree, "cat-file", "-t", "%s^:%s" % (p.commit, path),
                      check=False).strip() == "" and d == 0]
        if len(new) != 1 or total - new[0] > SIDE_LINES:
            p.problems.append("%d lines, not one new file (+ at most %d)" %
                              (total, SIDE_LINES))
    elif p.kind == "motion":
        removed = {}
        for s in diff_lines(tree, p.commit, "-"):
            removed[s] = removed.get(s, 0) + 1
        new = 0
        for s in diff_lines(tree, p.commit, "+"):
            if removed.get(s):
                removed[s] -= 1
            else:
                new += 1
        if new > SIDE_LINES:
            p.problems.append("%d lines, %d of them not moved" % (total, new))
    elif p.kind != "waived":
        p.problems.append("%d changed lines (at most %d)" % (total, MAX_LINES))


def check_rewrites(tree, p, mine):
    """Lines a patch removes must not come from an earlier patch."""
    if p.kind == "waived":
        return
    rev = p.commit
    cur = None
    ranges = []
    for line in git(tree, "show", "--no-renames", "--format=", "-U0",
                    rev).splitlines():
        if line.startswith("--- "):
            cur = line[6:] if line.startswith("--- a/") else None
        m = re.match(r"@@ -(\d+)(?:,(\d+))? ", line)
        if m and cur:
            start, count = int(m.group(1)), int(m.group(2) or "1")
            if count:
                ranges.append((cur, start, start + count - 1))
    hits = {}
    for path, a, b in ranges:
        out = git(tree, "blame", "--porcelain", "-L", "%d,%d" % (a, b),
                  rev + "^", "--", path, check=False)
        for line in out.splitlines():
            if re.match(r"[0-9a-f]{40} ", line) and line[:40] in mine:
                hits[mine[line[:40]]] = hits.get(mine[line[:40]], 0) + 1
    for name, n in sorted(hits.items()):
        p.problems.append("removes %d lines that %s added" % (n, name))


def main():
    repo, build = os.path.realpath(sys.argv[1]), os.path.realpath(sys.argv[2])
    here = os.path.join(repo, "tools/testing/probes/series")
    base = os.path.join(build, "base")
    tree = os.path.join(build, "series")
    outdir = os.path.join(build, "patches")
    version = open(os.path.join(build, "base-version")).read().strip()
    topics = read_plan(os.path.join(here, "plan"))

    final = final_tree(repo, build, base)
    changed = set(git(base, "diff", "--no-renames", "--name-only", "base",
                      final).splitlines())

    fresh_worktree(base, tree, "series")

    name = git(repo, "config", "user.name", check=False).strip() or \
        "Probes Developers"
    mail = git(repo, "config", "user.email", check=False).strip() or \
        "probes@localhost"
    env = dict(os.environ, GIT_AUTHOR_NAME=name, GIT_AUTHOR_EMAIL=mail,
               GIT_COMMITTER_NAME=name, GIT_COMMITTER_EMAIL=mail,
               GIT_AUTHOR_DATE="2026-12-01T00:00:00Z",
               GIT_COMMITTER_DATE="2026-12-01T00:00:00Z")
    done, names = {}, set()
    for topic, patches in topics:
        for p in patches:
            if p.name in names:
                die("plan:%d: patch %s twice" % (p.lineno, p.name))
            names.add(p.name)
            for kind, what in p.entries:
                if kind == "part":
                    diff = os.path.join(here, "parts", what)
                    r = subprocess.run(("git", "-C", tree, "apply", "--index",
                                        diff), capture_output=True, text=True)
                    if r.returncode:
                        die("plan:%d: parts/%s does not apply:\n%s" %
                            (p.lineno, what, r.stderr))
                    continue
                if kind == "remove":
                    git(tree, "rm", "-q", "--", what)
                    continue
                paths = sorted(c for c in changed if c == what or
                               fnmatch.fnmatchcase(c, what) or
                               c.startswith(what.rstrip("/") + "/"))
                paths = [c for c in paths if c not in done]
                if not paths:
                    die("plan:%d: %s: no path the tree changes is left" %
                        (p.lineno, what))
                for c in paths:
                    done[c] = p.name
                    if git(tree, "cat-file", "-t", "%s:%s" % (final, c),
                           check=False).strip():
                        git(tree, "checkout", final, "--", c)
                    else:
                        git(tree, "rm", "-q", "--ignore-unmatch", "--", c)
            msgfile = os.path.join(here, "msg", p.name)
            if not os.path.exists(msgfile):
                die("plan:%d: no message series/msg/%s" % (p.lineno, p.name))
            msg = open(msgfile).read().rstrip() + "\n\nSigned-off-by: %s <%s>\n" % (name, mail)
            if not git(tree, "status", "--porcelain", "--untracked-files=no"):
                die("plan:%d: patch %s changes nothing" % (p.lineno, p.name))
            git(tree, "commit", "-q", "-F", "-", inp=msg, env=env)
            p.commit = git(tree, "rev-parse", "HEAD").strip()

    left = sorted(changed - set(done))
    if left:
        die("no patch of the plan gives these their final content:\n  " +
            "\n  ".join(left))
    if git(tree, "diff", "--stat", "HEAD", final):
        die("the series does not give the tree:\n" +
            git(tree, "diff", "--stat", "HEAD", final))

    # The shape of each patch and topic.
    shape, bad, mine = [], 0, {}
    for topic, patches in topics:
        for p in patches:
            stat = numstat(tree, p.commit)
            check_kind(tree, p, stat)
            check_rewrites(tree, p, mine)
            mine[p.commit] = p.name
        largest = max(patches, key=lambda q: q.lines)
        line = "%s: %d patches, largest %d lines (%s)" % (
            topic, len(patches), largest.lines, largest.name)
        if len(patches) > MAX_TOPIC:
            line += "; MORE THAN %d PATCHES" % MAX_TOPIC
            bad += 1
        shape.append(line)
        for i, p in enumerate(patches, 1):
            note = p.kind + (" (" + p.reason + ")" if p.reason else "")
            shape.append("  %02d %-52s %6d %s%s" % (
                i, p.name, p.lines, note,
                "".join("; BROKEN: " + x for x in p.problems)))
            bad += len(p.problems)
    waived = sum(1 for t in topics for p in t[1] if p.kind == "waived")
    npatches = sum(len(t[1]) for t in topics)
    summary = ("series: %d topics, %d patches, %d rules broken, %d patches "
               "waived, applied result = the tree" %
               (len(topics), npatches, bad, waived))

    shutil.rmtree(outdir, ignore_errors=True)
    os.makedirs(outdir)
    order = []
    prev = "base"
    for n, (topic, patches) in enumerate(topics, 1):
        d = os.path.join(outdir, "%02d-%s" % (n, topic))
        git(tree, "-c", "user.name=" + name, "-c", "user.email=" + mail,
            "format-patch", "-q", "--cover-letter", "--thread", "-o", d,
            "--subject-prefix=PATCH %s" % topic,
            "%s..%s" % (prev, patches[-1].commit))
        prev = patches[-1].commit
        cover = open(os.path.join(here, "msg", topic + ".cover")).read()
        subject, _, body = cover.partition("\n\n")
        body = body.rstrip() + "\n\nBase: Linux %s (Debian linux-source-6.12)." % version
        body += "\nShape (make patches-check):\n" + "\n".join(
            "  " + s for s in shape if s.startswith(topic + ":") or
            any(s.startswith("  %02d %s " % (i, q.name))
                for i, q in enumerate(patches, 1)))
        cl = os.path.join(d, "0000-cover-letter.patch")
        text = open(cl).read().replace("*** SUBJECT HERE ***", subject.strip())
        text = text.replace("*** BLURB HERE ***", body)
        open(cl, "w").write(text)
        order += sorted(os.path.join(d, f) for f in os.listdir(d)
                        if not f.startswith("0000-"))
    with open(os.path.join(outdir, "order.txt"), "w") as f:
        f.write("\n".join(order) + "\n")
    os.makedirs(os.path.join(build, "results"), exist_ok=True)
    with open(os.path.join(build, "results", "series-shape.txt"), "w") as f:
        f.write("\n".join(shape) + "\n" + summary + "\n")
    print("\n".join(shape))
    print(summary)


if __name__ == "__main__":
    main()
