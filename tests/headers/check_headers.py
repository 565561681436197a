#!/usr/bin/env python3
"""check_headers: every public header of the game library (include/agb/*.h) compiles on its own,
as C (-std=c11) and as C++ (-std=c++17), with -Wall -Wextra -Werror, alone, after libtonc's
headers and after libgba's (the stand-ins in tests/headers/tonc and tests/headers/libgba, which
define the names those libraries define), for each compiler given (the host's and
arm-none-eabi's). With --clang, also checks that every function and variable a header declares
has C language linkage in C++ (it sits inside the header's extern "C"): a C++ game then links
against libagbmem.a without mangled-name errors.

usage: check_headers.py ROOT [--cc CC --cxx CXX [--flags "..."]]... [--clang CLANG++] [-j N]
Each --cc/--cxx pair (with the --flags after it) is one target. Exit 0 when every compile
passes, 1 otherwise (each failure printed with its command and the compiler's messages).
"""
import argparse
import concurrent.futures
import glob
import json
import os
import shlex
import subprocess
import sys

PRELUDES = {
    "alone": [],
    "libtonc": ["tonc_types.h", "tonc_memmap.h"],
    "libgba": ["gba_types.h", "gba_base.h", "gba_video.h"],
}
LANGS = {"c": ["-x", "c", "-std=c11"], "c++": ["-x", "c++", "-std=c++17"]}
WARN = ["-Wall", "-Wextra", "-Werror"]


def source(header, prelude):
    lines = [f'#include "{p}"' for p in PRELUDES[prelude]]
    lines.append(f'#include "agb/{header}"')
    # Something declared after the header, so that no compiler sees an empty unit.
    lines.append("int agb_header_check_anchor;")
    return "\n".join(lines) + "\n"


def compile_one(job):
    cmd, text, label = job
    p = subprocess.run(cmd, input=text, capture_output=True, text=True)
    return label, cmd, p.returncode, p.stderr


def c_linkage_failures(clang, root, inc, header):
    """Names declared by include/agb/HEADER (or the agb headers it includes) outside an
    extern "C" block, in C++."""
    cmd = [clang, "-x", "c++", "-std=c++17", "-fsyntax-only", "-I", inc, "-I",
           os.path.join(root, "tests", "headers", "tonc"), "-Xclang", "-ast-dump=json", "-"]
    p = subprocess.run(cmd, input=f'#include "agb/{header}"\n', capture_output=True, text=True)
    if p.returncode != 0:
        return [f"clang++ failed: {p.stderr.strip()}"]
    bad = []
    agb_dir = os.path.abspath(os.path.join(inc, "agb"))
    cur = [None]

    def file_of(node):
        loc = node.get("loc") or {}
        for key in (None, "spellingLoc", "expansionLoc"):
            d = loc if key is None else loc.get(key) or {}
            if d.get("file"):
                cur[0] = d["file"]
        return cur[0]

    def walk(nodes, in_c):
        for n in nodes or []:
            f = file_of(n)
            kind = n.get("kind")
            if kind == "LinkageSpecDecl":
                walk(n.get("inner"), n.get("language") == "C")
                continue
            if kind in ("FunctionDecl", "VarDecl") and f and os.path.dirname(
                    os.path.abspath(f)) == agb_dir and not in_c and not n.get("isImplicit"):
                if n.get("storageClass") == "static" and kind == "VarDecl":
                    continue
                bad.append(f"{os.path.basename(f)}: {n.get('name')} has C++ linkage")

    walk(json.loads(p.stdout).get("inner"), False)
    return bad


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("root")
    ap.add_argument("--cc", action="append", default=[])
    ap.add_argument("--cxx", action="append", default=[])
    ap.add_argument("--flags", action="append", default=[])
    ap.add_argument("--clang")
    ap.add_argument("-j", type=int, default=2)
    a = ap.parse_args()
    if len(a.cc) != len(a.cxx) or not a.cc:
        ap.error("give --cc and --cxx in pairs, at least one pair")
    flags = (a.flags + [""] * len(a.cc))[:len(a.cc)]
    inc = os.path.join(a.root, "include")
    headers = sorted(os.path.basename(h) for h in glob.glob(os.path.join(inc, "agb", "*.h")))
    if not headers:
        print(f"check_headers: no headers in {inc}/agb", file=sys.stderr)
        return 1
    jobs = []
    for cc, cxx, fl in zip(a.cc, a.cxx, flags):
        for lang, lflags in LANGS.items():
            comp = cc if lang == "c" else cxx
            for prelude in PRELUDES:
                pdir = "libgba" if prelude == "libgba" else "tonc"
                for h in headers:
                    cmd = ([comp] + lflags + WARN + shlex.split(fl) +
                           ["-fsyntax-only", "-I", inc, "-I",
                            os.path.join(a.root, "tests", "headers", pdir), "-"])
                    label = f"{os.path.basename(comp)} {lang} {prelude} agb/{h}"
                    jobs.append((cmd, source(h, prelude), label))
    failed = 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=a.j) as ex:
        for label, cmd, rc, err in ex.map(compile_one, jobs):
            if rc != 0:
                failed += 1
                print(f"FAIL {label}\n  {shlex.join(cmd)}\n{err}", file=sys.stderr)
    linkage = 0
    if a.clang:
        for h in headers:
            for msg in c_linkage_failures(a.clang, a.root, inc, h):
                linkage += 1
                print(f"FAIL linkage agb/{h}: {msg}", file=sys.stderr)
    print(f"check_headers: {len(headers)} headers, {len(jobs)} compiles, {failed} failed"
          + (f"; C linkage checked with {os.path.basename(a.clang)}: {linkage} problems"
             if a.clang else ""))
    return 1 if failed or linkage else 0


if __name__ == "__main__":
    sys.exit(main())
