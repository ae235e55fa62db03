"""tcemu.formats: every number format's properties as data."""

from dataclasses import dataclass
from typing import Optional

from . import _tcemu


@dataclass(frozen=True)
class Format:
    name: str
    width: int               # bits in a code
    container_bytes: int     # bytes of one element in arrays (uint8/16/32/64)
    is_int: bool
    is_signed: bool
    exp_bits: int
    man_bits: int
    bias: int
    man_shift: int           # tf32: 13 (its codes are f32 containers)
    specials: str            # ieee, nan_all_ones, nan_max_code, none
    has_inf: bool
    has_nan: bool
    has_zero: bool
    has_subnormals: bool
    emin: int
    emax: int
    code_mask: int
    max_finite: int          # code of +MAX_NORM
    max_finite_neg: int
    min_normal: int
    min_subnormal: Optional[int]
    zero: Optional[int]
    neg_zero: Optional[int]
    inf: Optional[int]
    neg_inf: Optional[int]
    nan: Optional[int]       # canonical NaN code
    max_value: str           # exact decimal of MAX_NORM

    @property
    def dtype(self):
        import numpy as np
        return {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[self.container_bytes]


formats = {d["name"]: Format(**d) for d in _tcemu.format_table()}
