#!/usr/bin/env python3
"""Generates the instruction tables of tcemu-gpu from the catalog.

    tcemu instr list | python3 tools/gpu/gen_instr_tables.py tools/gpu/gen

writes gen/mma_instrs.inc (one X-macro row per instruction: data only, read by host and device
code) and gen/mma_kernels.cuh (one inline-assembly body per instruction, each compiled only for
the architectures where it exists). Rerun it when the catalog gains mma.sync or wgmma entries;
the output is committed so that a build needs neither Python nor a built `tcemu`.

Operand register counts follow the PTX ISA fragment tables (9.7.14.5.x, 9.7.15.5.1.1); the
same numbers come out of tools/gpu/fragment_layout.hpp (tested in tests/gpu).
"""
import re
import sys

WGMMA_N = (8, 256)  # N of the wgmma instances built (the committed golden sets use N = 8)

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
    mma, wg = {}, {}
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
            m = re.search(r"\.m64n(\d+)k", ptx)
            if m and int(m.group(1)) in WGMMA_N:
                wg[ptx] = wg.get(ptx, 0) | arch_bit(arch)
    return {p: m for p, m in mma.items() if m}, {p: m for p, m in wg.items() if m}


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
                mask=mask, wgmma=True, kind=cls)


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


def asm_wg(i, r):
    n = r["rc"]
    f = r["acc"] == "F"
    dl = ",".join("%%%d" % j for j in range(n))
    outs = ", ".join(('"+f"(d%d)' % j) if f else ('"+r"(d[%d])' % j) for j in range(n))
    imm = {"FULL": ", p, 1, 1, 0, 0", "AB": ", p, 1, 1", "INT": ", p"}[r["kind"]]
    text = ('{\\n.reg .pred p;\\nsetp.ne.b32 p, %%%d, 0;\\n%s {%s}, %%%d, %%%d%s;\\n}\\n' %
            (n + 2, r["ptx"], dl, n, n + 1, imm))
    body = []
    if f:
        body.append("  float %s;" % ", ".join("d%d = __uint_as_float(d[%d])" % (j, j) for j in range(n)))
    body.append('  asm volatile("%s"\n               : %s\n               : "l"(da), "l"(db), "r"(scale_d));' % (text, outs))
    if f:
        body.append("  " + " ".join("d[%d] = __float_as_uint(d%d);" % (j, j) for j in range(n)))
    return "\n".join(body)




def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "tools/gpu/gen"
    mma, wg = parse(sys.stdin)
    rows = [mma_row(p, m) for p, m in sorted(mma.items(), key=lambda kv: (-kv[1], kv[0]))]
    rows += [wg_row(p, m) for p, m in sorted(wg.items())]
    hdr = "// Generated by tools/gpu/gen_instr_tables.py from `tcemu instr list`; do not edit.\n"
    with open(out + "/mma_instrs.inc", "w") as fh:
        fh.write(hdr)
        fh.write("// X(id, ptx, wgmma, arch_mask, M, N, K, atype, btype, dtype, acc, ab_bits, a_code_bits, "
                 "b_code_bits, c_bits, regs_a, regs_b, regs_c, scale_vec, stype)\n")
        fh.write("// arch_mask: 1 sm_90a, 2 sm_100a, 4 sm_120a. ab_bits: bits of one element in the registers\n"
                 "// (FP6/FP4 of kind::f8f6f4 in 8-bit containers); code bits: the element's own width.\n")
        fh.write("#define TCEMU_GPU_MMA_INSTRS(X) \\\n")
        for i, r in enumerate(rows):
            fh.write('  X(%d, "%s", %s, %d, %d, %d, %d, "%s", "%s", "%s", \'%s\', %d, %d, %d, %d, %d, %d, %d, %d, "%s") \\\n' % (
                i, r["ptx"], "true" if r["wgmma"] else "false", r["mask"], r["m"], r["n"], r["k"], r["at"], r["bt"],
                r["dt"], r["acc"], r["ab_bits"], r["a_code"], r["b_code"], r["c_bits"], r["ra"], r["rb"], r["rc"],
                r["scale_vec"], r["stype"]))
        fh.write("\n#define TCEMU_GPU_MMA_COUNT %d\n" % len(rows))
    with open(out + "/mma_kernels.cuh", "w") as fh:
        fh.write(hdr)
        fh.write("// One device function per instruction of mma_instrs.inc; the guard macros are defined in\n"
                 "// tools/gpu/mma_device.cu from the architecture being compiled.\n#pragma once\n\n")
        for i, r in enumerate(rows):
            guard = "(TCEMU_GPU_ARCH_BIT & %d)" % r["mask"]
            if r["wgmma"]:
                fh.write("template <> __device__ void wg_op<%d>(uint64_t da, uint64_t db, uint32_t* d, int scale_d) {\n" % i)
                fh.write("#if %s\n%s\n#else\n  (void)da; (void)db; (void)d; (void)scale_d;\n#endif\n}\n" % (guard, asm_wg(i, r)))
            else:
                fh.write("template <> __device__ void mma_op<%d>(const uint32_t* a, const uint32_t* b, const uint32_t* c, "
                         "uint32_t* d, uint32_t sa, uint32_t sb) {\n" % i)
                fh.write("#if %s\n%s\n%s#else\n  (void)a; (void)b; (void)c; (void)d; (void)sa; (void)sb;\n#endif\n}\n" % (
                    guard, asm_mma(i, r), "" if r["scale_vec"] else "  (void)sa; (void)sb;\n"))


if __name__ == "__main__":
    main()
