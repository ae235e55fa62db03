#!/usr/bin/env python3
"""Generates the instruction tables of tcemu-gpu from the catalog.

    tcemu cvt --list > cvt.txt
    tcemu instr list | python3 tools/gpu/gen_instr_tables.py tools/gpu/gen --cvt-list cvt.txt

writes gen/mma_instrs.inc (one X-macro row per instruction: data only, read by host and device
code, and by mma_record, whose mma_record_instrs.cuh takes shapes and formats from it), gen/mma_kernels.cuh (one inline-assembly body per mma.sync and wmma instruction, each
compiled only for the architectures where it exists) and gen/wgmma_part<i>.cu (the wgmma
kernels, sm_90a only, split into WGMMA_PARTS translation units that build in parallel; each
instruction in four imm-scale-a/b variants where the type has them) with gen/wgmma_parts.inc
(the launcher lookup); with --cvt-list, also gen/cvt_variants.inc, the device cvt variants
from the PTX cvt catalog (gen_cvt_variants.py). Rerun it when the catalog gains mma.sync, wmma
or wgmma entries or the PTX cvt catalog changes; the output is committed so that a build needs neither Python nor a built `tcemu`; the test
gpu_gen_tables_check (tests/gpu/gen_tables_check.sh) regenerates it and fails while the
committed files differ.

Operand register counts follow the PTX ISA fragment tables (9.7.14.5.x, 9.7.15.5.1.1); the
same numbers come out of tools/gpu/fragment_layout.hpp (tested in tests/gpu). wmma fragments
are opaque: their register counts (WMMA_REGS) are those of the PTX ISA's wmma.load /
wmma.mma descriptions (9.7.13.4-5), the same as nvcc 13.0 emits for <mma.h>'s fragments.
"""
import re
import sys

import gen_cvt_variants

WGMMA_PARTS = 8  # translation units the wgmma kernels are spread over

# wmma fragments (9.7.13.4, wmma.load: "fragment" sizes; checked against the PTX that nvcc 13.0
# emits for <mma.h>): (shape, A/B type) -> (A registers, B registers); C/D: f32 and s32 8
# registers, f16 4 (f16x2).
WMMA_REGS = {
    ("m16n16k16", "f16"): (8, 8), ("m32n8k16", "f16"): (8, 8), ("m8n32k16", "f16"): (8, 8),
    ("m16n16k16", "bf16"): (4, 4), ("m32n8k16", "bf16"): (8, 2), ("m8n32k16", "bf16"): (2, 8),
    ("m16n16k8", "tf32"): (4, 4),
    ("m16n16k16", "s8"): (2, 2), ("m16n16k16", "u8"): (2, 2),
    ("m32n8k16", "s8"): (4, 1), ("m32n8k16", "u8"): (4, 1), ("m8n32k16", "s8"): (1, 4), ("m8n32k16", "u8"): (1, 4),
}

# Catalog spellings that ptxas of CUDA 13.0 rejects for the architecture (so no kernel is built;
# tcemu-gpu skips their cases saying so). Found by compiling every generated kernel.
PTXAS_REJECTS = {
    # "Illegal modifier '.scale_vec::4X' for instruction 'mma' with type '.ue8m0'"
    "mma.sync.aligned.m16n8k64.row.col.kind::mxf4nvf4.block_scale.scale_vec::4X.f32.e2m1.e2m1.f32.ue8m0",
}

BITS = {"f16": 16, "bf16": 16, "tf32": 32, "e4m3": 8, "e5m2": 8, "e3m2": 8, "e2m3": 8, "e2m1": 8,
        "s8": 8, "u8": 8, "s4": 4, "u4": 4}
CODE_BITS = {"f16": 16, "bf16": 16, "tf32": 32, "e4m3": 8, "e5m2": 8, "e3m2": 6, "e2m3": 6, "e2m1": 4,
             "s8": 8, "u8": 8, "s4": 4, "u4": 4}
# Architecture masks: bit 0 sm_90a, bit 1 sm_100a, bit 2 sm_120a (the targets tcemu-gpu builds).
ALL, SM90A, SM100A, SM120A = 7, 1, 2, 4


def arch_bit(arch):
    for prefix, bit in (("sm_90", SM90A), ("sm_100", SM100A), ("sm_120", SM120A)):
        if arch.startswith(prefix):
            return bit
    return 0


def parse(lines):
    """Spellings -> mask of the built targets whose catalog lists them (sm_90/sm_90a -> sm_90a,
    sm_100* -> sm_100a, sm_120* -> sm_120a); spellings of no built target are left out."""
    mma, wg, wm = {}, {}, {}
    for line in lines:
        f = line.rstrip("\n").split("\t")
        if len(f) < 2 or f[0] == "arch":
            continue
        arch, ptx = f[0], f[1]
        if ptx in PTXAS_REJECTS:
            continue
        if ptx.startswith("mma.sync.aligned."):
            mma[ptx] = mma.get(ptx, 0) | arch_bit(arch)
        elif ptx.startswith("wgmma.mma_async"):
            wg[ptx] = wg.get(ptx, 0) | arch_bit(arch)
        elif ptx.startswith("wmma.mma.sync"):
            wm[ptx] = wm.get(ptx, 0) | arch_bit(arch)
    keep = lambda d: {p: m for p, m in d.items() if m}
    return keep(mma), keep(wg), keep(wm)


def mma_row(ptx, mask):
    toks = ptx.split(".")
    shape = next(t for t in toks if re.fullmatch(r"m\d+n\d+k\d+", t))
    m, n, k = map(int, re.findall(r"\d+", shape))
    kind = next((t for t in toks if t.startswith("kind::")), "")
    scale_vec = 0
    sv = re.search(r"scale_vec::(\d)X", ptx)
    if sv:
        scale_vec = int(sv.group(1))
    # The types: after the layout tokens, d a b c (and the scale type last when block-scaled).
    tail = ptx.split(".row.col.")[1].split(".")
    tail = [t for t in tail if t not in ("satfinite",) and not t.startswith("kind::")
            and t not in ("block_scale",) and not t.startswith("scale_vec")]
    dt, at, bt, ct = tail[0], tail[1], tail[2], tail[3]
    stype = tail[4] if len(tail) > 4 else ""
    ab_bits = BITS[at]
    if kind in ("kind::mxf4", "kind::mxf4nvf4"):
        ab_bits = 4  # packed e2m1, two per byte (9.7.14.5.11)
    acc = {"f32": "F", "f16": "H", "s32": "I"}[dt]
    c_bits = 16 if dt == "f16" else 32
    if m == 8:  # m8n8k4: A, B two f16x2; C eight f32 or four f16x2
        ra, rb, rc = 2, 2, (8 if c_bits == 32 else 4)
    else:
        ra, rb, rc = m * k * ab_bits // 32 // 32, k * n * ab_bits // 32 // 32, m * n * c_bits // 32 // 32
    return dict(ptx=ptx, m=m, n=n, k=k, at=at, bt=bt, dt=dt, acc=acc, ab_bits=ab_bits, a_code=CODE_BITS[at],
                b_code=CODE_BITS[bt], c_bits=c_bits, ra=ra, rb=rb, rc=rc, scale_vec=scale_vec, stype=stype, mask=mask,
                wgmma=False, kind=kind)


def wg_row(ptx, mask):
    toks = ptx.split(".")
    shape = next(t for t in toks if re.fullmatch(r"m64n\d+k\d+", t))
    m, n, k = map(int, re.findall(r"\d+", shape))
    types = [t for t in toks[toks.index(shape) + 1:] if t != "satfinite"]
    dt, at, bt = types
    acc = {"f32": "F", "f16": "H", "s32": "I"}[dt]
    c_bits = 16 if dt == "f16" else 32
    # imm-scale-a/b exist for floating types; imm-trans-a/b only for f16/bf16 (9.7.15.5.2).
    cls = "INT" if acc == "I" else ("FULL" if at in ("f16", "bf16") else "AB")
    return dict(ptx=ptx, m=m, n=n, k=k, at=at, bt=bt, dt=dt, acc=acc, ab_bits=BITS[at], a_code=CODE_BITS[at],
                b_code=CODE_BITS[bt], c_bits=c_bits, ra=0, rb=0, rc=n * c_bits // 32 // 2, scale_vec=0, stype="",
                mask=mask, wgmma=True, wmma=False, kind=cls)


def wm_row(ptx, mask):
    # wmma.mma.sync.aligned.row.col.<shape>.<dtype>.<ctype> (f16 inputs) or
    # .<shape>.<dtype>.<atype>.<btype>.<ctype>[.satfinite] (9.7.13.5)
    toks = ptx.split(".")
    shape = next(t for t in toks if re.fullmatch(r"m\d+n\d+k\d+", t))
    m, n, k = map(int, re.findall(r"\d+", shape))
    types = [t for t in toks[toks.index(shape) + 1:] if t != "satfinite"]
    if len(types) == 2:
        dt, ct = types
        at = bt = "f16"
    else:
        dt, at, bt, ct = types
    acc = {"f32": "F", "f16": "H", "s32": "I"}[dt]
    c_bits = 16 if dt == "f16" else 32
    ra, rb = WMMA_REGS[(shape, at)]
    return dict(ptx=ptx, m=m, n=n, k=k, at=at, bt=bt, dt=dt, ct=ct, acc=acc, ab_bits=BITS[at], a_code=CODE_BITS[at],
                b_code=CODE_BITS[bt], c_bits=c_bits, ra=ra, rb=rb, rc=(4 if c_bits == 16 else 8), scale_vec=0,
                stype="", mask=mask, wgmma=False, wmma=True, kind="", shape=shape)


def asm_mma(i, r):
    ops, outs, ins = [], [], []
    idx = 0
    f = r["acc"] == "F"
    dregs = []
    for j in range(r["rc"]):
        dregs.append("%%%d" % idx)
        outs.append('"=f"(d%d)' % j if f else '"=r"(d[%d])' % j)
        idx += 1
    aregs = []
    for j in range(r["ra"]):
        aregs.append("%%%d" % idx); ins.append('"r"(a[%d])' % j); idx += 1
    bregs = []
    for j in range(r["rb"]):
        bregs.append("%%%d" % idx); ins.append('"r"(b[%d])' % j); idx += 1
    cregs = []
    for j in range(r["rc"]):
        cregs.append("%%%d" % idx)
        ins.append('"f"(__uint_as_float(c[%d]))' % j if f else '"r"(c[%d])' % j)
        idx += 1
    text = "%s {%s}, {%s}, {%s}, {%s}" % (r["ptx"], ",".join(dregs), ",".join(aregs), ",".join(bregs), ",".join(cregs))
    if r["scale_vec"]:
        # Selectors fixed at {byte-id 0, thread-id 0}: valid for every scale_vec (9.7.14.3,
        # Table 37); fragment_layout.hpp's mma_scale_{a,b}_slot place the scales for them.
        text += ", %%%d, {0, 0}, %%%d, {0, 0}" % (idx, idx + 1)
        ins += ['"r"(sa)', '"r"(sb)']
    body = []
    if f:
        body.append("  float %s;" % ", ".join("d%d" % j for j in range(r["rc"])))
    body.append('  asm volatile("%s;"\n               : %s\n               : %s);' % (text, ", ".join(outs), ", ".join(ins)))
    if f:
        body.append("  " + " ".join("d[%d] = __float_as_uint(d%d);" % (j, j) for j in range(r["rc"])))
    return "\n".join(body)


def asm_wmma(i, r):
    """wmma: the fragments are opaque, so the instruction runs between wmma.load (A row-major
    with leading dimension K, B column-major with K, C row-major with N) and wmma.store.d
    (row-major, N), all through generic addresses; registers are declared inside the block."""
    sh = r["shape"]
    ra, rb, rc = r["ra"], r["rb"], r["rc"]
    creg = ".f32" if r["dt"] == "f32" else ".b32"
    rl = lambda p, n: ",".join("%s%d" % (p, j) for j in range(n))
    lines = [
        "{",
        ".reg .b32 a<%d>, b<%d>;" % (ra, rb),
        ".reg %s c<%d>, d<%d>;" % (creg, rc, rc),
        "wmma.load.a.sync.aligned.row.%s.%s {%s}, [%%0], %%4;" % (sh, r["at"], rl("a", ra)),
        "wmma.load.b.sync.aligned.col.%s.%s {%s}, [%%1], %%4;" % (sh, r["bt"], rl("b", rb)),
        "wmma.load.c.sync.aligned.row.%s.%s {%s}, [%%2], %%5;" % (sh, r["ct"], rl("c", rc)),
        "%s {%s}, {%s}, {%s}, {%s};" % (r["ptx"], rl("d", rc), rl("a", ra), rl("b", rb), rl("c", rc)),
        "wmma.store.d.sync.aligned.row.%s.%s [%%3], {%s}, %%5;" % (sh, r["dt"], rl("d", rc)),
        "}",
    ]
    text = "\\n".join(lines) + "\\n"
    return ('  asm volatile("%s"\n               :\n               : "l"(a), "l"(b), "l"(c), "l"(d), "r"(%d), "r"(%d)\n'
            '               : "memory");' % (text, r["k"], r["n"]))


NEG_IMM = {0: (1, 1), 1: (-1, 1), 2: (1, -1), 3: (-1, -1)}  # bit 0: A negated, bit 1: B


def wg_imm(r, neg):
    sa, sb = NEG_IMM[neg]
    return {"FULL": ", p, %d, %d, 0, 0" % (sa, sb), "AB": ", p, %d, %d" % (sa, sb), "INT": ", p"}[r["kind"]]


def write_wgmma_regs(fh, rcs):
    """Per accumulator register count: the operand list of the asm text (D registers, then the
    two descriptors) and the predicate's operand, and the output constraints (f32 or b32)."""
    for rc in sorted(rcs):
        fh.write('#define TCEMU_WG_OPERANDS_%d "{%s}, %%%d, %%%d"\n' % (rc, ",".join("%%%d" % j for j in range(rc)), rc, rc + 1))
        fh.write('#define TCEMU_WG_PRED_%d "%%%d"\n' % (rc, rc + 2))
        fh.write("#define TCEMU_WG_OUT_F_%d %s\n" % (rc, ", ".join('"+f"(f[%d])' % j for j in range(rc))))
        fh.write("#define TCEMU_WG_OUT_R_%d %s\n" % (rc, ", ".join('"+r"(d[%d])' % j for j in range(rc))))


def wg_variants(r):
    """imm-scale-a/b combinations built: all four for floating types, (1, 1) for integers."""
    return (0,) if r["kind"] == "INT" else (0, 1, 2, 3)


def write_wgmma_parts(out, hdr, rows):
    wg = [(i, r) for i, r in enumerate(rows) if r["wgmma"]]
    # Balance the parts by the work ptxas does: registers times variants.
    load = [0] * WGMMA_PARTS
    parts = [[] for _ in range(WGMMA_PARTS)]
    for i, r in sorted(wg, key=lambda ir: -ir[1]["rc"] * len(wg_variants(ir[1]))):
        p = load.index(min(load))
        parts[p].append((i, r))
        load[p] += r["rc"] * len(wg_variants(r)) + 8
    for p, items in enumerate(parts):
        items.sort()
        with open("%s/wgmma_part%d.cu" % (out, p), "w") as fh:
            fh.write(hdr)
            fh.write("// wgmma kernels, part %d of %d (sm_90a only; see tools/gpu/wgmma_kernel.cuh).\n" % (p, WGMMA_PARTS))
            fh.write('#include "../wgmma_kernel.cuh"\n#include "wgmma_regs.cuh"\n\nnamespace tcemu_gpu::wgmma_gen {\n\n')
            fh.write("// TCEMU_WG_OP(id, imm-scale variant, register count, F (f32) or R (b32) accumulator,\n"
                     "//             instruction, immediate operands): wgmma_kernel.cuh\n")
            for i, r in items:
                for neg in wg_variants(r):
                    fh.write('TCEMU_WG_OP(%d, %d, %d, %s, "%s", "%s")\n' % (
                        i, neg, r["rc"], "F" if r["acc"] == "F" else "R", r["ptx"], wg_imm(r, neg)))
            fh.write("\nWgLaunch part%d_launcher(int id, int neg) {\n  switch (id) {\n" % p)
            for i, r in items:
                if len(wg_variants(r)) == 4:
                    fh.write("    case %d: return pick<%d, %d, %d, true>(neg);\n" % (i, i, r["n"], r["rc"]))
                else:
                    fh.write("    case %d: return pick<%d, %d, %d, false>(neg);\n" % (i, i, r["n"], r["rc"]))
            fh.write("  }\n  return nullptr;\n}\n\n}  // namespace tcemu_gpu::wgmma_gen\n")
    with open(out + "/wgmma_regs.cuh", "w") as fh:
        fh.write(hdr)
        fh.write("// Operand lists of the wgmma asm statements by accumulator register count.\n#pragma once\n")
        write_wgmma_regs(fh, {r["rc"] for _, r in wg})
    with open(out + "/wgmma_parts.inc", "w") as fh:
        fh.write(hdr)
        fh.write("// The wgmma launcher of an instruction id and imm-scale variant (bit 0: imm-scale-a = -1,\n"
                 "// bit 1: imm-scale-b = -1), from the parts gen/wgmma_part<i>.cu; nullptr when not built\n"
                 "// (TCEMU_GPU_NO_WGMMA: a build for a GPU other than sm_90a leaves the parts out).\n#pragma once\n\n")
        fh.write("namespace tcemu_gpu::wgmma_gen {\n#ifndef TCEMU_GPU_NO_WGMMA\n")
        for p in range(WGMMA_PARTS):
            fh.write("WgLaunch part%d_launcher(int id, int neg);\n" % p)
        fh.write("inline WgLaunch launcher(int id, int neg) {\n  WgLaunch f = nullptr;\n")
        for p in range(WGMMA_PARTS):
            fh.write("  if (!f) f = part%d_launcher(id, neg);\n" % p)
        fh.write("  return f;\n}\n#else\ninline WgLaunch launcher(int, int) { return nullptr; }\n#endif\n"
                 "}  // namespace tcemu_gpu::wgmma_gen\n")


def main():
    args = sys.argv[1:]
    cvt_list = None
    if "--cvt-list" in args:
        i = args.index("--cvt-list")
        cvt_list = args[i + 1]
        del args[i:i + 2]
    out = args[0] if args else "tools/gpu/gen"
    if cvt_list:
        with open(cvt_list) as fh:
            gen_cvt_variants.write(out + "/cvt_variants.inc", fh)
    mma, wg, wm = parse(sys.stdin)
    rows = [mma_row(p, m) for p, m in sorted(mma.items(), key=lambda kv: (-kv[1], kv[0]))]
    for r in rows:
        r["wmma"] = False
    rows += [wm_row(p, m) for p, m in sorted(wm.items())]
    rows += [wg_row(p, m) for p, m in sorted(wg.items(), key=lambda kv: wg_key(kv[0]))]
    hdr = "// Generated by tools/gpu/gen_instr_tables.py from `tcemu instr list`; do not edit.\n"
    with open(out + "/mma_instrs.inc", "w") as fh:
        fh.write(hdr)
        fh.write("// X(id, ptx, wgmma, arch_mask, M, N, K, atype, btype, dtype, acc, ab_bits, a_code_bits, "
                 "b_code_bits, c_bits, regs_a, regs_b, regs_c, scale_vec, stype, wmma)\n")
        fh.write("// arch_mask: 1 sm_90a, 2 sm_100a, 4 sm_120a. ab_bits: bits of one element in the registers\n"
                 "// (FP6/FP4 of kind::f8f6f4 in 8-bit containers); code bits: the element's own width.\n"
                 "// wmma: regs_a/b/c are the opaque fragments' registers (wmma.load).\n")
        fh.write("#define TCEMU_GPU_MMA_INSTRS(X) \\\n")
        for i, r in enumerate(rows):
            fh.write('  X(%d, "%s", %s, %d, %d, %d, %d, "%s", "%s", "%s", \'%s\', %d, %d, %d, %d, %d, %d, %d, %d, "%s", %s) \\\n' % (
                i, r["ptx"], "true" if r["wgmma"] else "false", r["mask"], r["m"], r["n"], r["k"], r["at"], r["bt"],
                r["dt"], r["acc"], r["ab_bits"], r["a_code"], r["b_code"], r["c_bits"], r["ra"], r["rb"], r["rc"],
                r["scale_vec"], r["stype"], "true" if r["wmma"] else "false"))
        fh.write("\n#define TCEMU_GPU_MMA_COUNT %d\n" % len(rows))
    with open(out + "/mma_kernels.cuh", "w") as fh:
        fh.write(hdr)
        fh.write("// One device function per mma.sync and wmma instruction of mma_instrs.inc (wgmma: the\n"
                 "// gen/wgmma_part<i>.cu files); the guard macros are defined in tools/gpu/mma_device.cu from\n"
                 "// the architecture being compiled.\n#pragma once\n\n")
        for i, r in enumerate(rows):
            guard = "(TCEMU_GPU_ARCH_BIT & %d)" % r["mask"]
            if r["wgmma"]:
                continue
            if r["wmma"]:
                fh.write("template <> __device__ void wmma_op<%d>(const void* a, const void* b, const void* c, void* d) {\n" % i)
                fh.write("#if %s\n%s\n#else\n  (void)a; (void)b; (void)c; (void)d;\n#endif\n}\n" % (guard, asm_wmma(i, r)))
            else:
                fh.write("template <> __device__ void mma_op<%d>(const uint32_t* a, const uint32_t* b, const uint32_t* c, "
                         "uint32_t* d, uint32_t sa, uint32_t sb) {\n" % i)
                fh.write("#if %s\n%s\n%s#else\n  (void)a; (void)b; (void)c; (void)d; (void)sa; (void)sb;\n#endif\n}\n" % (
                    guard, asm_mma(i, r), "" if r["scale_vec"] else "  (void)sa; (void)sb;\n"))
    write_wgmma_parts(out, hdr, rows)


def wg_key(ptx):
    """wgmma rows ordered by types, then N (numerically)."""
    n = int(re.search(r"\.m64n(\d+)k", ptx).group(1))
    return (re.sub(r"\.m64n\d+k", ".m64nXk", ptx), n)


if __name__ == "__main__":
    main()
