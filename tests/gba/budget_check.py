#!/usr/bin/env python3
"""budget_check.py MODE REPORT.json GAME.log — holds `agbsim budget --format=json` of a test ROM
(src/gba/roms/budget_test.c) against what the ROM measured itself and printed:

  recurse   the system stack's peak is top - (the deepest level's stack pointer), within one
            level's frame; paint and store watch agree; the deepest store is in dive(); no
            overflow.
  overflow  the system stack overflowed, in the frame the ROM dove in, in dive(), below the end
            of .bss the ROM printed (the report's static end).
  irq       the IRQ stack's peak is top - (the handler's lowest stack pointer), within one frame
            of the handler; its deepest store is in irq_handler; no overflow.
Prints one line "budget_check MODE: ..." and exits 0, or says what differs and exits 1."""
import json
import re
import sys


def fields(log, key):
    for line in log.splitlines():
        if line.startswith("budget-test: " + key) or (key == "" and line.startswith("budget-test: sys_top")):
            return {k: v for k, v in re.findall(r"(\w+)=(\w+)", line)}
    sys.exit(f"budget_check: no 'budget-test: {key}' line in the game's log")


def fail(msg):
    print(f"budget_check: FAIL: {msg}")
    sys.exit(1)


def main():
    mode, report, logpath = sys.argv[1:4]
    r = json.load(open(report))
    log = open(logpath).read()
    top = fields(log, "")
    sys_top, irq_top, bss_end = (int(top[k], 16) for k in ("sys_top", "irq_top", "bss_end"))
    sysst, irq = r["stacks"]["system"], r["stacks"]["irq"]
    if sysst["top"] != sys_top or irq["top"] != irq_top:
        fail(f"stack tops {sysst['top']:#x}/{irq['top']:#x}, the ROM's {sys_top:#x}/{irq_top:#x}")
    if r["iwram_static_end"] != bss_end:
        fail(f"static end {r['iwram_static_end']:#x}, the ROM's __bss_end {bss_end:#x}")
    if mode in ("recurse", "overflow"):
        d = fields(log, "dive")
        level = int(d["level_bytes"])
        deepest = int(d["deepest_sp"], 16)
        want = sys_top - deepest
        if mode == "recurse":
            if sysst["overflow"] is not None or r["ok"] is not True:
                fail("an overflow reported for a recursion that fits")
            if not (abs(sysst["peak"] - want) <= level and abs(sysst["peak_paint"] - sysst["peak_watch"]) <= level):
                fail(f"peak {sysst['peak']} (paint {sysst['peak_paint']}, watch {sysst['peak_watch']}), "
                     f"the ROM's {want} +- {level}")
            if not sysst["chain"] or not sysst["chain"][0]["function"].startswith("dive"):
                fail(f"deepest store in {sysst['chain'][:1]}, not dive()")
            print(f"budget_check recurse: peak {sysst['peak']} = the ROM's {want} within one "
                  f"{level}-byte frame (paint {sysst['peak_paint']}, watch {sysst['peak_watch']})")
        else:
            ov = sysst["overflow"]
            if ov is None or r["ok"] is not False:
                fail("no overflow reported")
            if ov["frame"] != int(d["frame"]) or not ov["function"].startswith("dive") or ov["addr"] >= bss_end:
                fail(f"overflow {ov}, the ROM dove in frame {d['frame']} below {bss_end:#x}")
            print(f"budget_check overflow: frame {ov['frame']}, {ov['function']} at pc {ov['pc']:#x} "
                  f"wrote {ov['addr']:#x} below .bss's end {bss_end:#x}")
    elif mode == "irq":
        d = fields(log, "irq")
        frame = int(d["words"]) * 4 + 32  # the handler's locals and what it pushes
        want = irq_top - int(d["min_sp"], 16)
        if irq["overflow"] is not None or sysst["overflow"] is not None:
            fail("an overflow reported")
        if not abs(irq["peak"] - want) <= frame or irq["peak_paint"] != irq["peak_watch"]:
            fail(f"IRQ peak {irq['peak']} (paint {irq['peak_paint']}, watch {irq['peak_watch']}), "
                 f"the ROM's {want} +- {frame}")
        if not irq["chain"] or irq["chain"][0]["function"] != "irq_handler":
            fail(f"deepest IRQ store in {irq['chain'][:1]}, not irq_handler")
        print(f"budget_check irq: IRQ stack peak {irq['peak']} = the ROM's {want} "
              f"(paint {irq['peak_paint']}, watch {irq['peak_watch']}); system stack {sysst['peak']}")
    else:
        sys.exit(f"budget_check: unknown mode {mode}")


main()
