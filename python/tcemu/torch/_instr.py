"""The tensor-core instruction a recipe's GEMM runs on each architecture by default, and the
check that the catalog has it. Any catalog entry can be chosen instead (the recipes' `instr`
argument); tcemu.instructions(arch) lists them."""

from .. import _mma

# Per-tensor-scaled or unscaled operands of two formats (a, b) on each arch. Formats: f16,
# bf16, e4m3, e5m2. The N of an instruction shape does not change any D element (each is one
# chained dot product over K), so the smallest N of a family stands for all of them.
_PLAIN = {
    "sm_80": {("f16", "f16"): "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32",
              ("bf16", "bf16"): "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"},
    "sm_89": {("f16", "f16"): "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32",
              ("bf16", "bf16"): "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32",
              **{(a, b): f"mma.sync.aligned.m16n8k32.row.col.f32.{a}.{b}.f32"
                 for a in ("e4m3", "e5m2") for b in ("e4m3", "e5m2")}},
    "sm_90a": {("f16", "f16"): "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16",
               ("bf16", "bf16"): "wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16",
               **{(a, b): f"wgmma.mma_async.sync.aligned.m64n8k32.f32.{a}.{b}"
                  for a in ("e4m3", "e5m2") for b in ("e4m3", "e5m2")}},
    "sm_100a": {("f16", "f16"): "tcgen05.mma.cta_group::1.kind::f16",
                ("bf16", "bf16"): "tcgen05.mma.cta_group::1.kind::f16",
                **{(a, b): "tcgen05.mma.cta_group::1.kind::f8f6f4"
                   for a in ("e4m3", "e5m2") for b in ("e4m3", "e5m2")}},
    "sm_120a": {**{(a, b): f"mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32.{a}.{b}.f32"
                   for a in ("e4m3", "e5m2") for b in ("e4m3", "e5m2")}},
}
# Block-scaled operands: (scaling, a, b) -> instruction. MX: UE8M0 per 32; NVFP4: UE4M3 per 16.
_SCALED = {
    "sm_100a": {**{("mx", a, b): "tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.scale_vec::1X"
                   for a in ("e4m3", "e5m2") for b in ("e4m3", "e5m2")},
                ("nvfp4", "e2m1", "e2m1"): "tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.scale_vec::4X"},
    "sm_120a": {**{("mx", a, b): f"mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.{a}.{b}.f32.ue8m0"
                   for a in ("e4m3", "e5m2") for b in ("e4m3", "e5m2")},
                ("nvfp4", "e2m1", "e2m1"): "mma.sync.aligned.m16n8k64.row.col.kind::mxf4nvf4.block_scale.scale_vec::4X.f32.e2m1.e2m1.f32.ue4m3"},
}
_STYPE = {"mx": "ue8m0", "nvfp4": "ue4m3"}
ARCHES = ("sm_80", "sm_89", "sm_90a", "sm_100a", "sm_120a")


class Instr:
    """One GEMM's instruction: the tcemu.mma keyword arguments arch, instr, atype, btype,
    dtype, stype, and the catalog row (its K and scale block)."""

    def __init__(self, arch, instr, atype, btype, stype=None):
        self.arch, self.instr, self.atype, self.btype, self.stype = arch, instr, atype, btype, stype
        try:
            self.row = _mma._lookup(arch, instr, atype, btype, "f32", stype)
        except ValueError as err:
            raise ValueError(f"{arch} has no {instr} for {atype} x {btype}"
                             f"{' with ' + stype + ' scales' if stype else ''} ({err})") from None
        if self.row["atype"] != atype or self.row["btype"] != btype:
            raise ValueError(f"{instr} on {arch} takes {self.row['atype']} x {self.row['btype']}, "
                             f"not {atype} x {btype}")
        self.K = self.row["K"]

    def kwargs(self):
        """The instruction's tcemu.mma / tcemu.gemm keyword arguments."""
        out = {"arch": self.arch, "instr": self.instr}
        if "descriptor" in self.row.get("note", "") or self.instr.startswith("tcgen05"):
            out.update(atype=self.atype, btype=self.btype, dtype="f32")
            if self.stype:
                out["stype"] = self.stype
        return out

    def __repr__(self):
        return f"Instr({self.arch}, {self.instr}, {self.atype} x {self.btype}{', ' + self.stype if self.stype else ''})"


def default_instr(arch, atype, btype, scaling=None):
    """The default instruction for operands atype x btype on arch (scaling None, 'mx' or
    'nvfp4'), or a ValueError naming what the arch lacks."""
    if not isinstance(arch, str):
        raise TypeError(f"arch: an architecture name such as 'sm_90a' is required, got {type(arch).__name__}")
    if arch not in ARCHES:
        raise ValueError(f"arch: '{arch}' has no default instructions in tcemu.torch (one of {', '.join(ARCHES)}; "
                         f"other architectures: pass instr=)")
    if scaling is None:
        name = _PLAIN[arch].get((atype, btype))
        stype = None
    else:
        name = _SCALED.get(arch, {}).get((scaling, atype, btype))
        stype = _STYPE[scaling]
    if name is None:
        what = f"{scaling.upper()} block-scaled " if scaling else ""
        raise ValueError(f"arch: {arch} has no {what}{atype} x {btype} tensor-core instruction "
                         f"(choose another arch or recipe)")
    return Instr(arch, name, atype, btype, stype)
