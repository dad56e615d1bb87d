#!/usr/bin/env python3
# tests/docs/run.py - every console example of README.md and docs/ is run,
# and its output compared where the page shows one (TAP on stdout).
#
# Pages are found, not listed: README.md and every docs/**/*.md. An example
# is a fenced block whose info string is `console`:
#
#   ```console
#   $ fabtune spec dgx-h100:2              <- a command, run by bash
#   cluster dgx-h100:2 (dgx-h100:2)       <- its expected output, line by line
#   ...                                   <- any number of lines (elision)
#   $ fabtune archive compare   # exit 1  <- the exit status it must give
#   ```
#
# A command continues on the next line after a trailing backslash. Without
# an "# exit N" comment a command must exit 0. Output lines are compared
# after stripping trailing spaces; a line may end with "..." to match any
# line that starts with the text before it. A command followed by no
# output lines has its output unchecked (its exit status still is).
#
# A page marks an example that cannot run here (it needs RDMA hardware, a
# GPU, several hosts) with a visible line just above the fence:
#
#   **Not run by the docs test**: needs an InfiniBand port.
#
# which the test reports as a skip with that reason, never silently.
#
# Commands run with bash from a scratch folder that mirrors the repository
# root (its top-level entries linked), so relative paths in the docs resolve
# as from the root and files the examples write stay out of the tree;
# `fabtune` on PATH is the binary under test. Each block has a scratch folder,
# HOME and archive (FABTUNE_ARCHIVE) of its own: the commands of one block share
# them, so a block can import runs and then compare them, and no block depends
# on another (which lets the blocks run in shards, in any order).
#
# run.py FABTUNE K/N runs shard K of N: the examples whose place in the list,
# counted from 0, is K-1 modulo N, so that meson can run the shards side by
# side (tests/meson.build) and each example runs in exactly one of them.
# run.py --list [K/N] prints the examples' names (PAGE:LINE) of one shard
# instead of running them (tests/shards.sh checks that the shards cover every
# example once).
import os
import re
import shutil
import subprocess
import sys
import tempfile

SKIP_RE = re.compile(r"^\*\*Not run by the docs test\*\*:\s*(.+?)\s*$")
EXIT_RE = re.compile(r"\s+#\s*exit\s+(\d+)\s*$")


def find_pages(root):
    pages = [os.path.join(root, "README.md")]
    for d, _, files in os.walk(os.path.join(root, "docs")):
        pages += [os.path.join(d, f) for f in files if f.endswith(".md")]
    return sorted(p for p in pages if os.path.isfile(p))


def stray_prompts(path):
    """Lines that look like console examples ("$ fabtune ...") outside a console block."""
    lines = open(path, encoding="utf-8").read().split("\n")
    fence, out = None, []
    for n, line in enumerate(lines, 1):
        t = line.strip()
        if t.startswith("```"):
            fence = None if fence is not None else t[3:].strip()
            continue
        if fence != "console" and re.match(r"^\$ \S", t):
            out.append((n, t))
    return out


def blocks(path):
    """(line, skip reason or None, [(command, exit, [expected lines])])."""
    lines = open(path, encoding="utf-8").read().split("\n")
    out, i = [], 0
    while i < len(lines):
        if lines[i].strip() != "```console":
            i += 1
            continue
        start, reason = i + 1, None
        for k in (i - 1, i - 2):
            if k >= 0 and lines[k].strip():
                m = SKIP_RE.match(lines[k].strip())
                reason = m.group(1) if m else None
                break
        i += 1
        cmds = []
        while i < len(lines) and lines[i].strip() != "```":
            line = lines[i]
            if line.startswith("$ "):
                cmd = line[2:]
                while cmd.endswith("\\") and i + 1 < len(lines):
                    i += 1
                    cmd = cmd[:-1] + " " + lines[i].strip()
                m = EXIT_RE.search(cmd)
                code = int(m.group(1)) if m else 0
                cmds.append([cmd, code, []])
            elif cmds:
                cmds[-1][2].append(line.rstrip())
            i += 1
        for c in cmds:  # blank lines between commands are layout, not output
            while c[2] and c[2][-1] == "":
                c[2].pop()
        out.append((start, reason, cmds))
        i += 1
    return out


def matches(expected, actual):
    """Line-by-line with "..." lines as elisions (any number of lines)."""
    if not expected:
        return True
    memo = {}

    def go(e, a):
        key = (e, a)
        if key in memo:
            return memo[key]
        if e == len(expected):
            r = a == len(actual)
        elif expected[e] == "...":
            r = any(go(e + 1, k) for k in range(a, len(actual) + 1))
        elif a < len(actual) and (
            expected[e] == actual[a]
            or (expected[e].endswith("...") and actual[a].startswith(expected[e][:-3]))
        ):
            r = go(e + 1, a + 1)
        else:
            r = False
        memo[key] = r
        return r

    return go(0, 0)


def scratch_root(root, fabtune):
    d = tempfile.mkdtemp(prefix="ft-docs-")
    for name in os.listdir(root):
        if name in (".git",):
            continue
        os.symlink(os.path.join(root, name), os.path.join(d, name))
    bindir = os.path.join(d, ".bin")
    os.mkdir(bindir)
    os.symlink(fabtune, os.path.join(bindir, "fabtune"))
    return d, bindir


def parse_shard(arg):
    m = re.match(r"^(\d+)/(\d+)$", arg)
    if not m or not 1 <= int(m.group(1)) <= int(m.group(2)):
        sys.exit("run.py: shard '%s' is not K/N with 1 <= K <= N" % arg)
    return int(m.group(1)) - 1, int(m.group(2))


def run_block(root, fabtune, page, cmds):
    """Run one example's commands in a scratch root of their own: (why it
    failed or None, whether a command said a port was in use)."""
    work, bindir = scratch_root(root, fabtune)
    env = dict(os.environ)
    for k in ("FABTUNE_TEST_STABLE", "FABTUNE_ARCHIVE", "OMPI_ALLOW_RUN_AS_ROOT",
              "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM"):
        env.pop(k, None)
    env.update(PATH=bindir + ":" + env["PATH"], HOME=work, XDG_DATA_HOME=os.path.join(work, ".data"),
               FABTUNE_ARCHIVE=os.path.join(work, ".archive-" + re.sub(r"\W", "_", page) + ".db"),
               NO_COLOR="1", LC_ALL="C", TZ="UTC")
    bad = None
    busy = False
    for cmd, code, expected in cmds:
        try:
            p = subprocess.run(["bash", "-o", "pipefail", "-c", cmd], cwd=work, env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=300)
        except subprocess.TimeoutExpired:
            bad = "'%s' timed out" % cmd
            break
        err = p.stderr.decode("utf-8", "replace")
        actual = [l.rstrip() for l in p.stdout.decode("utf-8", "replace").split("\n")]
        while actual and actual[-1] == "":
            actual.pop()
        if p.returncode != code:
            bad = "'%s' exited %d, the page says %d\n%s" % (cmd, p.returncode, code, err[-1500:])
            busy = "Address already in use" in err
            break
        if not matches([e for e in expected], actual):
            bad = "'%s': output differs from the page\n--- page\n%s\n--- actual\n%s" % (
                cmd, "\n".join(expected), "\n".join(actual[:60]))
            busy = "Address already in use" in err
            break
    shutil.rmtree(work, ignore_errors=True)
    return bad, busy


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: run.py PATH-TO-FABTUNE|--list [K/N]")
    if len(sys.argv) > 2:
        k, nshards = parse_shard(sys.argv[2])
    root = os.path.abspath(os.environ.get("FT_SOURCE_ROOT", os.path.join(os.path.dirname(__file__), "../..")))
    cases = []
    for page in find_pages(root):
        for start, reason, cmds in blocks(page):
            cases.append((os.path.relpath(page, root), start, reason, cmds))
        for line, text in stray_prompts(page):
            # an example the test cannot see would go stale unnoticed
            cases.append((os.path.relpath(page, root), line, None,
                          "a console example outside a ```console block: " + text))
    if len(sys.argv) > 2:  # one shard: every nshards-th example from the k-th
        cases = cases[k::nshards]
    if sys.argv[1] == "--list":
        for page, line, _, _ in cases:
            print("%s:%d" % (page, line))
        return 0
    fabtune = os.path.abspath(sys.argv[1])
    print("1..%d" % len(cases))
    fails = 0
    for n, (page, line, reason, cmds) in enumerate(cases, 1):
        name = "%s:%d" % (page, line)
        if reason:
            print("ok %d - %s # SKIP %s" % (n, name, reason))
            continue
        if isinstance(cmds, str):
            print("not ok %d - %s: %s" % (n, name, cmds))
            fails += 1
            continue
        if not cmds:
            print("not ok %d - %s: a console block with no '$ ' command" % (n, name))
            fails += 1
            continue
        # An example that listens on a fixed port (perftest's forms) fails when
        # anything else on the host holds it: the block runs again, up to 3 times.
        for attempt in range(3):
            bad, busy = run_block(root, fabtune, page, cmds)
            if not busy:
                break
        if bad:
            fails += 1
            print("not ok %d - %s" % (n, name))
            for l in bad.split("\n"):
                print("# " + l)
        else:
            print("ok %d - %s (%d command%s)" % (n, name, len(cmds), "" if len(cmds) == 1 else "s"))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
