#!/usr/bin/env python3
"""Issue 12 finding 4: a big trace is cheap. Generates a 1 M-event EWRAM trace (~19 MB; random
churn with a bounded live set, the generator of scripts/bench-throughput) and replays it; the
replay's peak resident memory must stay within 2x the file size + 64 MiB (the loader streams
the events array; the whole cJSON tree of the old loader peaked at ~16x the file).

usage: trace_memory.py AGBSIM WORK_DIR [EVENTS]
"""
import os
import random
import resource
import subprocess
import sys


def generate(n, out):
    rng = random.Random(20261122)
    live, next_id, budget, used = [], 0, 160 * 1024, 0
    with open(out, "w") as f:
        f.write('{"version":1,"arena":"ewram","arena_bytes":262144,"name":"memory-%d",\n' % n)
        f.write('"source":"tests/cli/trace_memory.py","events":[\n')
        for i in range(n):
            if live and (used > budget or rng.random() < 0.5):
                k = rng.randrange(len(live))
                live[k], live[-1] = live[-1], live[k]
                ident, size = live.pop()
                used -= size
                ev = '["free",%d]' % ident
            else:
                size = rng.choice((8, 12, 16, 24, 32, 48, 64, 96, 128, 256, 512, 2048))
                ev = '["alloc",%d,%d]' % (next_id, size)
                live.append((next_id, size))
                used += size
                next_id += 1
            f.write(ev + (",\n" if i + 1 < n else "\n"))
        f.write("]}\n")


def main():
    agbsim, work = sys.argv[1], sys.argv[2]
    n = int(sys.argv[3]) if len(sys.argv) > 3 else 1000000
    os.makedirs(work, exist_ok=True)
    path = os.path.join(work, "memory-%d.json" % n)
    generate(n, path)
    size = os.path.getsize(path)
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    r = subprocess.run([agbsim, "replay", path, "--allocator=tlsf"], stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True)
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024  # KiB -> bytes
    os.remove(path)
    if r.returncode != 0:
        print("FAIL: replay exit %d: %s" % (r.returncode, r.stderr.strip()))
        return 1
    if before * 1024 >= peak:
        print("FAIL: no child peak measured")
        return 1
    limit = 2 * size + 64 * 1024 * 1024
    print("trace %.1f MB, %d events: replay peak RSS %.1f MB, limit %.1f MB (2x file + 64 MiB)"
          % (size / 1e6, n, peak / 1e6, limit / 1e6))
    if peak > limit:
        print("FAIL: peak memory over the limit")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
