#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""tests/cli/options-doc.py FABTUNE - the options a command takes against its
help and its page.

For every command and subcommand (`fabtune help --json`, then the
"commands:" list of each `--help`), its option table comes from
`fabtune CMD --help --json` (the table the parser reads). Each long option of
it must appear in the command's `--help` text and, as `--name`, in
docs/cmd/TOP.md (TOP: the first word of the command). Each `--name` in a
synopsis, the help's and the page's own (front matter and "## Synopsis"),
must be an option the command or one of its subcommands takes, or a global
one. A TAP line per command; a failure names the command, the option and
where it is missing or unknown.
"""
import json
import os
import re
import subprocess
import sys

FABTUNE = sys.argv[1]
ROOT = os.environ.get("FT_SOURCE_ROOT", ".")
OPT_RE = re.compile(r"(?<![\w-])--([A-Za-z0-9][A-Za-z0-9_-]*)")  # perftest spells --CPU-freq


def run(*args):
    p = subprocess.run([FABTUNE, *args], capture_output=True, text=True, timeout=60)
    if p.returncode != 0:
        raise RuntimeError(f"fabtune {' '.join(args)}: exit {p.returncode}: {p.stderr}")
    return p.stdout


def subcommands(help_text):
    """The names of the 'commands:' section of a --help text."""
    names, inside = [], False
    for line in help_text.splitlines():
        if line.strip() == "commands:":
            inside = True
        elif inside and not line.strip():
            break
        elif inside:
            names.append(line.split()[0])
    return names


def commands():
    """Every command path, ['archive', 'baseline', 'add'] style, with its help text."""
    todo = [[c["name"]] for c in json.loads(run("help", "--json"))["commands"]]
    while todo:
        path = todo.pop(0)
        text = run(*path, "--help")
        subs = subcommands(text)
        if subs:
            todo.extend(path + [s] for s in subs)
        else:
            yield path, text


def page_synopsis(page):
    """The page's front matter and '## Synopsis' section."""
    out, section = [], None
    lines = page.splitlines()
    if lines and lines[0] == "---":
        end = lines.index("---", 1)
        out += [l for l in lines[1:end] if not l.startswith("summary:")]
    for line in lines:
        if line.startswith("## "):
            section = line[3:].strip().lower()
        elif section == "synopsis":
            out.append(line)
    return "\n".join(out)


def main():
    problems, ntests = [], 0
    pages, per_top, globals_ = {}, {}, set()
    for path, text in commands():
        usage = json.loads(run(*path, "--help", "--json"))
        longs = [o["long"] for o in usage["options"] if o.get("long")]
        globals_ |= {o["long"] for o in usage["global_options"] if o.get("long")}
        globals_.add("help")
        top = path[0]
        per_top.setdefault(top, set()).update(longs)
        name = " ".join(path)
        if top not in pages:
            with open(os.path.join(ROOT, "docs", "cmd", top + ".md"), encoding="utf-8") as f:
                pages[top] = f.read()
        documented = set(OPT_RE.findall(pages[top]))
        mine = []
        for opt in longs:
            if f"--{opt}" not in text:
                mine.append(f"{name}: --{opt} is not in its --help")
            if opt not in documented:
                mine.append(f"{name}: --{opt} is not in docs/cmd/{top}.md")
        for line in usage["synopsis"]:
            for opt in OPT_RE.findall(line):
                if opt not in longs and opt not in globals_:
                    mine.append(f"{name}: its synopsis names --{opt}, which it does not take")
        ntests += 1
        print(("not ok" if mine else "ok") + f" {ntests} - {name}: {len(longs)} options")
        for m in mine:
            print("# " + m)
        problems += mine
    for top, longs in sorted(per_top.items()):
        unknown = sorted({o for o in OPT_RE.findall(page_synopsis(pages[top]))
                          if o not in longs and o not in globals_})
        ntests += 1
        print(("not ok" if unknown else "ok") + f" {ntests} - docs/cmd/{top}.md synopsis")
        for o in unknown:
            print(f"# docs/cmd/{top}.md: its synopsis names --{o}, which {top} does not take")
        problems += unknown
    print(f"1..{ntests}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
