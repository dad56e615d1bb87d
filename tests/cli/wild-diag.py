#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Diagnosis of real tool outputs with real faults (tests/fixtures/wild-diag).

Each NAME.txt is read as users read a cluster's captures: `fabtune diagnose
--json DIR`, DIR a folder holding that one file. NAME.expect, checked by hand
against the output and its header, lists the findings that must be there
("SEVERITY RULE ENTITY"), "none", or "skipped" (a file in no format fabtune
reads: the folder then holds no known file, exit 2). A finding of severity warning or above that is not listed is a false
alarm; an info finding not listed is allowed. One TAP line per file.
"""
import json
import os
import subprocess
import sys
import tempfile

FIXTURES = os.path.join('tests', 'fixtures', 'wild-diag')
LOUD = ('critical', 'error', 'warning')


def expected(path):
    want, skipped = set(), False
    with open(path, encoding='utf-8') as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith('#') or line == 'none':
                continue
            if line == 'skipped':
                skipped = True
                continue
            sev, rule, entity = line.split(' ', 2)
            want.add((sev, rule, entity))
    return want, skipped


def diagnose(exe, txt):
    with tempfile.TemporaryDirectory() as d:
        os.symlink(os.path.abspath(txt), os.path.join(d, os.path.basename(txt)))
        p = subprocess.run([exe, 'diagnose', '--json', d], capture_output=True, text=True)
    if p.returncode not in (0, 1):
        return None, 'exit %d: %s' % (p.returncode, p.stderr.strip())
    return json.loads(p.stdout), None


def check(exe, txt):
    want, skipped = expected(txt[:-4] + '.expect')
    doc, err = diagnose(exe, txt)
    if skipped:  # a folder of no known file is an error naming it
        return [] if err and 'no file in a known format' in err else ['read, not skipped']
    if err:
        return [err]
    if doc.get('skipped'):
        return ['skipped as in no known format']
    got = {(f['severity'], f['rule'], f['entity']) for f in doc['findings']}
    bad = ['missing: %s %s %s' % w for w in sorted(want - got)]
    bad += ['false alarm: %s %s %s' % g for g in sorted(got - want) if g[0] in LOUD]
    return bad


def main():
    exe = sys.argv[1]
    files = sorted(f for f in os.listdir(FIXTURES) if f.endswith('.txt'))
    print('1..%d' % len(files))
    failed = 0
    for i, name in enumerate(files, 1):
        txt = os.path.join(FIXTURES, name)
        if not os.path.exists(txt[:-4] + '.expect'):
            bad = ['no %s.expect beside it' % name[:-4]]
        else:
            bad = check(exe, txt)
        print('%s %d - %s' % ('not ok' if bad else 'ok', i, name))
        for b in bad:
            print('# ' + b)
        failed += bool(bad)
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
