#!/usr/bin/env python3
"""docs.using_agbmem: every command block of docs/using-agbmem.md marked
`<!-- run by docs.using_agbmem -->` runs as written, in order, with bash, in a scratch directory
where build/ is the build tree, examples/ the repository's, $P a fresh prefix and game.c
src/gba/roms/malloc_probe.c (standard C). Then the ROM the guide's link line made boots in mGBA
and prints what the probe prints on the drop-in heap.

usage: using_agbmem.py REPO BUILD AGB_MGBA_RUN"""
import os
import re
import subprocess
import sys
import tempfile

repo, build, runner = sys.argv[1:4]
doc = open(os.path.join(repo, "docs", "using-agbmem.md"), encoding="utf-8").read()
blocks = re.findall(r"<!-- run by docs.using_agbmem -->\n```sh\n(.*?)```", doc, re.S)
if len(blocks) < 4:
    sys.exit(f"using_agbmem: only {len(blocks)} marked command blocks in the guide")
with tempfile.TemporaryDirectory() as tmp:
    os.symlink(os.path.abspath(build), os.path.join(tmp, "build"))
    os.symlink(os.path.join(repo, "examples"), os.path.join(tmp, "examples"))
    with open(os.path.join(repo, "src", "gba", "roms", "malloc_probe.c"), encoding="utf-8") as f:
        open(os.path.join(tmp, "game.c"), "w", encoding="utf-8").write(f.read())
    env = dict(os.environ, P=os.path.join(tmp, "prefix"))
    for b in blocks:
        p = subprocess.run(["bash", "-euo", "pipefail", "-c", b], cwd=tmp, env=env,
                           capture_output=True, text=True, timeout=600)
        if p.returncode != 0:
            sys.exit(f"using_agbmem: the guide's commands failed (exit {p.returncode}):\n{b}\n"
                     f"{p.stdout}{p.stderr}")
        print(f"ran:\n{b}")
    for f in ("game.gba", "game-pc.elf", "build-game/template-c.gba"):
        if not os.path.exists(os.path.join(tmp, f)):
            sys.exit(f"using_agbmem: the guide's commands made no {f}")
    p = subprocess.run([runner, os.path.join(tmp, "game.gba"), "--frames", "600"],
                       capture_output=True, text=True, timeout=120)
    print(p.stderr + p.stdout)
    if p.returncode != 0 or "[gba] checks ok" not in p.stderr or "[gba] errno ENOMEM" not in p.stderr:
        sys.exit("using_agbmem: the ROM of the guide's link line did not run as it should")
