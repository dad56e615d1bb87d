#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
#
# tests/check-exports.py - libfabtune.so exports the public API and nothing else.
#
# The library is compiled with hidden visibility; FT_API (fabtune/error.h)
# marks what is exported. This reads the shared library's dynamic symbol
# table (nm -D, else readelf --dyn-syms) and the public headers, and fails on
#   - any exported ft__ symbol (an internal of a module),
#   - any exported symbol that no public header declares FT_API,
#   - any FT_API declaration that the library does not export (declared in
#     a header but never defined, or defined without the header in scope),
#   - any function or object declared at file scope of a public header
#     without FT_API (it would be hidden: the API would lose it silently).
# Symbols of the toolchain (names starting with '_') are left alone.
#
# usage: check-exports.py LIBFABTUNE.so INCLUDE-DIR   (prints TAP)
import os
import re
import shutil
import subprocess
import sys


def dynamic_symbols(lib):
    """Defined global/weak symbols of the dynamic table."""
    names = set()
    if shutil.which("nm"):
        out = subprocess.run(["nm", "-D", "--defined-only", lib], check=True,
                             capture_output=True, text=True).stdout
        for line in out.splitlines():
            parts = line.split()
            if len(parts) >= 3 and parts[1] not in ("U", "w", "v"):
                names.add(parts[2].split("@")[0])
        return names
    out = subprocess.run(["readelf", "-W", "--dyn-syms", lib], check=True,
                         capture_output=True, text=True).stdout
    for line in out.splitlines():
        parts = line.split()
        # Num: Value Size Type Bind Vis Ndx Name
        if len(parts) >= 8 and parts[4] in ("GLOBAL", "WEAK") and parts[6] != "UND":
            names.add(parts[7].split("@")[0])
    return names


COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
DECL = re.compile(r"\bFT_API\b([^;{]*)[;{]", re.S)
CALL = re.compile(r"([A-Za-z_]\w*)\s*\(")
LAST_ID = re.compile(r"([A-Za-z_]\w*)\s*(?:\[[^\]]*\]\s*)*(?:=.*)?$", re.S)


def declared_api(incdir):
    """Name -> 'header:line' of every FT_API declaration in the public headers."""
    api = {}
    for name in sorted(os.listdir(incdir)):
        if not name.endswith(".h"):
            continue
        path = os.path.join(incdir, name)
        with open(path, encoding="utf-8") as f:
            text = f.read()
        # Blank out comments but keep the line count, and drop the macro that
        # defines FT_API itself.
        text = COMMENT.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)
        text = re.sub(r"^\s*#\s*define\s+FT_API\b[^\n]*", "", text, flags=re.M)
        for m in DECL.finditer(text):
            body = m.group(1)
            call = CALL.search(body)
            ident = call.group(1) if call else None
            if ident is None:
                last = LAST_ID.search(body.strip())
                ident = last.group(1) if last else None
            if ident:
                line = text.count("\n", 0, m.start()) + 1
                api.setdefault(ident, "%s:%d" % (name, line))
    return api


CPLUSPLUS = re.compile(r'#\s*ifdef\s+__cplusplus\s*\n\s*(?:extern\s+"C"\s*\{|\})\s*\n\s*#\s*endif')
PREPROC = re.compile(r"^\s*#(?:[^\n]*\\\n)*[^\n]*", re.M)


def unexported_decls(incdir):
    """'header:line: text' of file-scope declarations of a public header without FT_API."""
    bad = []
    for name in sorted(os.listdir(incdir)):
        if not name.endswith(".h"):
            continue
        with open(os.path.join(incdir, name), encoding="utf-8") as f:
            text = f.read()
        keep_lines = lambda m: re.sub(r"[^\n]", " ", m.group(0))
        text = COMMENT.sub(keep_lines, text)
        text = CPLUSPLUS.sub(keep_lines, text)
        text = PREPROC.sub(keep_lines, text)
        depth, start = 0, 0
        for i, ch in enumerate(text):
            if ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
                if depth == 0:
                    start = i + 1  # a definition ends here (struct, enum, inline body)
            elif ch == ";" and depth == 0:
                raw = text[start:i]
                stmt = raw.strip()
                line = text.count("\n", 0, start + len(raw) - len(raw.lstrip())) + 1
                start = i + 1
                words = stmt.split()
                if not words or words[0] in ("typedef", "static", "FT_API"):
                    continue
                if words[0] in ("struct", "enum", "union") and len(words) <= 2:
                    continue  # a forward declaration or the end of a definition
                if "(" in stmt or words[0] == "extern":
                    bad.append("%s:%d: %s" % (name, line, " ".join(words)[:80]))
    return bad


def main():
    if len(sys.argv) != 3:
        sys.stderr.write("usage: check-exports.py LIBFABTUNE.so INCLUDE-DIR\n")
        return 2
    lib, incdir = sys.argv[1], sys.argv[2]
    exported = dynamic_symbols(lib)
    api = declared_api(incdir)
    if len(api) < 50:
        print("1..0 # SKIP found only %d FT_API declarations: header parse failed?" % len(api))
        return 1
    ours = sorted(s for s in exported if not s.startswith("_"))
    internal = [s for s in ours if s.startswith("ft__")]
    undeclared = [s for s in ours if not s.startswith("ft__") and s not in api]
    missing = sorted(n for n in api if n not in exported)
    checks = [
        ("no ft__ internal is exported (%d exported symbols)" % len(ours), internal,
         "exported internal"),
        ("every exported symbol is declared FT_API in include/fabtune/*.h", undeclared,
         "exported but not declared FT_API in a public header"),
        ("every FT_API declaration (%d) is exported" % len(api),
         ["%s (%s)" % (n, api[n]) for n in missing], "declared FT_API but not exported"),
        ("every declaration of a public header is FT_API", unexported_decls(incdir),
         "declared without FT_API"),
    ]
    print("1..%d" % len(checks))
    for i, (title, bad, why) in enumerate(checks, 1):
        if bad:
            print("not ok %d - %s" % (i, title))
            for s in bad:
                print("# %s: %s" % (why, s))
        else:
            print("ok %d - %s" % (i, title))
    return 0


if __name__ == "__main__":
    sys.exit(main())
