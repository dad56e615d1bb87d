#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""tests/cli/wild.py FABTUNE - tool outputs as users paste them, against facts
checked by hand.

Every tests/fixtures/wild/TOOL/NAME.txt is a real output from a public
source (its header says which). Beside it, NAME.expect holds what a reader
of that text sees in it, one fact a line ("#" starts a comment):

    rows N                   result rows read
    test NAME                every row's collective or test
    nranks N|none            every row's rank count (none: not known)
    first BYTES, last BYTES  the size of the first and of the last row
    row BYTES[@K] F=V ...    fields of the K-th row (from 0) of that size;
                             V "-" when the field must be absent
    obs KEY N [VALUE]        N observations of KEY, the first one VALUE
                             (a number or a string)
    obsat KEY FIELD VALUE    the first observation of KEY has FIELD (host,
                             device, port, rank, line) VALUE
    skipped N                lines left unread (parse.skipped)
    calibrate RC [OP]        `fabtune model dgx-h100 --calibrate FILE` exits
                             with RC and, when 0, fits the collective OP

`fabtune --json parse FILE` is read once per file; a TAP line per file names
each fact that does not hold.
"""
import json
import os
import subprocess
import sys

FABTUNE = sys.argv[1]
ROOT = os.environ.get("FT_SOURCE_ROOT", ".")
WILD = os.path.join("tests", "fixtures", "wild")


def run(*args):
    return subprocess.run([FABTUNE, *args], capture_output=True, text=True, timeout=60,
                          cwd=ROOT)


def same(want, got):
    """A fact's value against the parsed one: numbers to 1e-9, else text."""
    if want == "-":
        return got is None
    if got is None:
        return False
    if isinstance(got, str):
        return got == want
    try:
        w = float(want)
        return isinstance(got, (int, float)) and abs(float(got) - w) <= 1e-9 * max(1.0, abs(w))
    except ValueError:
        return str(got) == want


def check_row(rows, spec, fields):
    size, _, k = spec.partition("@")
    match = [r for r in rows if str(r.get("bytes")) == size]
    k = int(k or 0)
    if k >= len(match):
        return [f"no row {spec} (rows of that size: {len(match)})"]
    row, bad = match[k], []
    for f in fields:
        name, _, want = f.partition("=")
        if not same(want, row.get(name)):
            bad.append(f"row {spec}: {name} is {row.get(name)!r}, expected {want}")
    return bad


def check_fact(words, path, doc):
    rows = [r for f in doc["files"] for r in f.get("rows", [])]
    obs = [o for f in doc["files"] for o in f.get("observations", [])]
    what, args = words[0], words[1:]
    if what == "rows":
        return [] if len(rows) == int(args[0]) else [f"{len(rows)} rows, expected {args[0]}"]
    if what == "test":
        got = sorted({r.get("test") for r in rows})
        return [] if got == [args[0]] else [f"tests {got}, expected {args[0]}"]
    if what == "nranks":
        got = sorted({str(r.get("nranks", "none")) for r in rows})
        return [] if got == [args[0]] else [f"nranks {got}, expected {args[0]}"]
    if what in ("first", "last"):
        got = rows[0 if what == "first" else -1].get("bytes") if rows else None
        return [] if str(got) == args[0] else [f"{what} row of {got} bytes, expected {args[0]}"]
    if what == "row":
        return check_row(rows, args[0], args[1:])
    if what in ("obs", "skipped"):
        key, n = ("parse.skipped", args[0]) if what == "skipped" else (args[0], args[1])
        found = [o for o in obs if o["key"] == key]
        if len(found) != int(n):
            return [f"{len(found)} {key}, expected {n}"]
        want = " ".join(args[2:]) if what == "obs" else ""
        if want and not same(want, found[0].get("num", found[0].get("str"))):
            return [f"first {key} is {found[0].get('num', found[0].get('str'))!r}, expected {want}"]
        return []
    if what == "obsat":
        found = [o for o in obs if o["key"] == args[0]]
        got = found[0].get(args[1]) if found else None
        want = " ".join(args[2:])
        return [] if same(want, got) else [f"first {args[0]} has {args[1]} {got!r}, expected {want}"]
    if what == "calibrate":
        p = run("--json", "model", "dgx-h100", "--calibrate", path)
        if str(p.returncode) != args[0]:
            return [f"calibrate exits {p.returncode}, expected {args[0]}: {p.stderr.strip()}"]
        if p.returncode == 0 and len(args) > 1:
            ops = [c["op"] for c in json.loads(p.stdout)["curves"]]
            return [] if ops == [args[1]] else [f"calibrate fits {ops}, expected {args[1]}"]
        return []
    return [f"unknown fact '{what}'"]


def main():
    cases = []
    for tool in sorted(os.listdir(os.path.join(ROOT, WILD))):
        d = os.path.join(WILD, tool)
        cases += [os.path.join(d, f) for f in sorted(os.listdir(os.path.join(ROOT, d)))
                  if f.endswith(".txt")]
    print(f"1..{len(cases)}")
    nfail = 0
    for i, path in enumerate(cases, 1):
        bad = []
        expect = os.path.join(ROOT, path[:-4] + ".expect")
        if not os.path.exists(expect):
            bad = [f"no {path[:-4]}.expect"]
        else:
            p = run("--json", "parse", path)
            doc = json.loads(p.stdout) if p.returncode == 0 else {"files": []}
            if p.returncode != 0:
                bad.append(f"parse exits {p.returncode}: {p.stderr.strip()}")
            with open(expect) as f:
                for line in f:
                    words = line.split("#", 1)[0].split()
                    if words:
                        bad += check_fact(words, path, doc)
        nfail += bool(bad)
        print(("not ok" if bad else "ok") + f" {i} - {path}")
        for b in bad:
            print(f"# {b}")
    return 1 if nfail else 0


if __name__ == "__main__":
    sys.exit(main())
