#!/usr/bin/env python3
"""Checks the target masks of tools/gpu/gen/cvt_variants.inc against ptxas (no GPU needed).

For every variant, and for every spelling of golden/sets/ptx_cvt.json that has none, assembles
a small kernel holding the instruction with `ptxas -arch=sm_90a`, `sm_100a` and `sm_120a`
(operands in the register types cvt_ops.cuh gives the variant's shape) and compares where it
is accepted with the variant's mask (a spelling without a variant must be rejected everywhere).

  tools/gpu/cvt_masks.py [--ptxas PATH] [-v]      # from the repository root; exit 1 on a difference
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

TARGETS = [(1, "sm_90a"), (2, "sm_100a"), (4, "sm_120a")]

# Shape -> (assembly with D, A, B, E, F, R placeholders, destination register, source register):
# the PTX that cvt_ops.cuh's inline assembly becomes. h .b16, r .b32, f .f32, d .f64.
SHAPES = {
    "F32_B16": ("SP D, A;", "h", "f"),
    "F32_B32": ("SP D, A;", "r", "f"),
    "F32_F64": ("SP D, A;", "d", "f"),
    "F32P_B32": ("SP D, A, B;", "r", "f"),
    "F32P_B16": ("SP D, A, B;", "h", "f"),
    "F32P_B8": ("{ .reg .b8 t; SP t, A, B; cvt.u16.u8 D, t; }", "h", "f"),
    "B32_B16": ("SP D, A;", "h", "r"),
    "B16_B32": ("SP D, A;", "r", "h"),
    "B8_B32": ("{ .reg .b8 t; cvt.u8.u16 t, A; SP D, t; }", "r", "h"),
    "B16_F32": ("SP D, A;", "f", "h"),
    "B16_F64": ("SP D, A;", "d", "h"),
    "B16_B16": ("SP D, A;", "h", "h"),
    "F64_F32": ("SP D, A;", "f", "d"),
    "F64_B16": ("SP D, A;", "h", "d"),
    "F32_I8": ("SP D, A;", "h", "f"),
    "I8_F32": ("SP D, A;", "f", "h"),
    "F32P_R_B32": ("SP D, A, B, R;", "r", "f"),
    "F32Q_R_B32": ("SP D, {A, B, E, F}, R;", "r", "f"),
    "F32Q_R_B16": ("SP D, {A, B, E, F}, R;", "h", "f"),
}
REG = {"h": "%rs", "r": "%r", "f": "%f", "d": "%fd"}


def guess_shape(sp):
    """A shape for a spelling without a variant (only to try it with ptxas)."""
    t = sp.split(".")
    d, s = t[-2], t[-1]
    if t[1] == "rs":
        return "F32P_R_B32" if d in ("f16x2", "bf16x2") else ("F32Q_R_B16" if d == "e2m1x4" else "F32Q_R_B32")
    if s in ("f16x2", "bf16x2"):
        return "B32_B16"
    if s == "f32":
        return "F32P_B8" if d == "e2m1x2" else ("F32P_B16" if d.endswith("x2") and d not in ("f16x2", "bf16x2") else "F32P_B32")
    return "B16_B32"


def kernel(sp, shape, arch):
    tmpl, dr, sr = SHAPES[shape]
    rep = {"D": REG[dr] + "0", "A": REG[sr] + "1", "B": REG[sr] + "2", "E": REG[sr] + "3", "F": REG[sr] + "4", "R": "%r5"}
    body = re.sub(r"\b(SP|D|A|B|E|F|R)\b", lambda m: sp if m.group(1) == "SP" else rep[m.group(1)], tmpl)
    return f""".version 9.0
.target {arch}
.address_size 64
.visible .entry k(.param .u64 p)
{{
 .reg .b16 %rs<8>; .reg .b32 %r<8>; .reg .f32 %f<8>; .reg .f64 %fd<8>; .reg .b64 %rd<4>;
 ld.param.u64 %rd1, [p];
 ld.global.u16 %rs1, [%rd1]; ld.global.u32 %r1, [%rd1+8]; ld.global.u32 %r5, [%rd1+16];
 ld.global.f32 %f1, [%rd1+20]; ld.global.f32 %f2, [%rd1+24]; ld.global.f32 %f3, [%rd1+28]; ld.global.f32 %f4, [%rd1+32];
 ld.global.f64 %fd1, [%rd1+40];
 {body}
 st.global.u16 [%rd1+64], %rs0; st.global.u32 [%rd1+68], %r0; st.global.f32 [%rd1+72], %f0; st.global.f64 [%rd1+80], %fd0;
 ret;
}}
"""


def accepted(ptxas, sp, shape, tmp):
    mask, errs = 0, []
    for bit, arch in TARGETS:
        src = os.path.join(tmp, "k.ptx")
        with open(src, "w") as f:
            f.write(kernel(sp, shape, arch))
        r = subprocess.run([ptxas, f"-arch={arch}", src, "-o", os.path.join(tmp, "k.cubin")], capture_output=True, text=True)
        if r.returncode == 0:
            mask |= bit
        else:
            errs.append(f"{arch}: {r.stderr.strip().splitlines()[0] if r.stderr.strip() else 'rc ' + str(r.returncode)}")
    return mask, errs


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ptxas", default=os.environ.get("PTXAS", "/usr/local/cuda/bin/ptxas"))
    ap.add_argument("-v", action="store_true", help="print every variant and ptxas's first error line per target")
    a = ap.parse_args()
    if not os.path.exists("tools/gpu/gen/cvt_variants.inc"):
        sys.exit("cvt_masks.py: run it from the repository root")
    rows = re.findall(r'X\((\d+), (\w+), (\d+), "([^"]+)"\)', open("tools/gpu/gen/cvt_variants.inc").read())
    if not rows:
        sys.exit("cvt_masks.py: no variants found in tools/gpu/gen/cvt_variants.inc")
    catalog = []
    for c in json.load(open("golden/sets/ptx_cvt.json"))["cases"]:
        if c["instruction"]["ptx"] not in catalog:
            catalog.append(c["instruction"]["ptx"])
    names = {b: n for b, n in TARGETS}
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        known = set()
        for _, shape, mask, sp in rows:
            known.add(sp)
            got, errs = accepted(a.ptxas, sp, shape, tmp)
            ok = got == int(mask)
            bad += not ok
            if a.v or not ok:
                print(f"{'ok  ' if ok else 'DIFF'} {sp:40s} mask {int(mask)} ptxas {got}  " + "; ".join(errs))
        for sp in catalog:
            if sp in known:
                continue
            got, errs = accepted(a.ptxas, sp, guess_shape(sp), tmp)
            ok = got == 0
            bad += not ok
            print(f"{'ok  ' if ok else 'DIFF'} {sp:40s} no variant, ptxas accepts on {got}  " + "; ".join(errs))
    print(f"{len(rows)} variants, {len([s for s in catalog if s not in known])} catalog spellings without one; {bad} differences"
          f" ({', '.join(names[b] for b, _ in TARGETS)})")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
