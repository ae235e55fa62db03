"""Inputs that README.md and docs/*.md name but no documented command creates.

prepare(): files every document may use, written into its scratch directory first:
  x.npy, IN.npy           64 x 64 float32 tensors (a deterministic mix of magnitudes)
  step1.npy, step2.npy    gradients for `tcemu lossscale --megatron --grads` (step2 has an Inf)
  found_inf_flags.txt     one 0/1 overflow flag per training step for `tcemu lossscale`
  bias64.npy, rows64.npy  64 float32 values: a bias and rowwise scales for `tcemu gemm`
before(): files derived from a golden file an earlier command wrote, made just before the
command that reads them:
  kernel_output.npy, P.actual.bin, P.actual.npy
      the "kernel output" compared by `tcemu compare G.json ...`: the expected D of the first
      case of G.json (the first .json named in the command), as a kernel that reproduces the
      model bit for bit would write it (.npy float32, or raw little-endian).
A new document that needs another input adds it here (docs/doc-commands.md).
Standard library only: .npy files are written and read by hand (format version 1.0).
"""
import json
import math
import os
import random
import re
import struct


def write_npy(path, descr, shape, data):
    header = "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }" % (
        descr, ", ".join(str(s) for s in shape) + ("," if len(shape) == 1 else ""))
    pad = 64 - (10 + len(header) + 1) % 64
    header += " " * (pad % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode("latin1") + data)


def npy_data(path):
    with open(path, "rb") as f:
        raw = f.read()
    if raw[:6] != b"\x93NUMPY":
        raise ValueError(f"{path} is not a .npy file")
    if raw[6] == 1:
        hlen, start = struct.unpack("<H", raw[8:10])[0], 10
    else:
        hlen, start = struct.unpack("<I", raw[8:12])[0], 12
    return raw[start + hlen:]


def f32_tensor(rows, cols, seed):
    rng = random.Random(seed)
    vals = []
    for i in range(rows * cols):
        v = rng.gauss(0.0, 1.0) * math.ldexp(1.0, rng.randint(-6, 6))
        vals.append(0.0 if i % 97 == 0 else v)
    return struct.pack("<%df" % len(vals), *vals)


def prepare(scratch, cli_dir):
    del cli_dir
    write_npy(os.path.join(scratch, "x.npy"), "<f4", (64, 64), f32_tensor(64, 64, 1))
    write_npy(os.path.join(scratch, "IN.npy"), "<f4", (64, 64), f32_tensor(64, 64, 2))
    write_npy(os.path.join(scratch, "step1.npy"), "<f4", (256,), f32_tensor(1, 256, 3))
    g2 = bytearray(f32_tensor(1, 256, 4))
    g2[40:44] = struct.pack("<f", float("inf"))
    write_npy(os.path.join(scratch, "step2.npy"), "<f4", (256,), bytes(g2))
    write_npy(os.path.join(scratch, "bias64.npy"), "<f4", (64,), f32_tensor(1, 64, 5))
    write_npy(os.path.join(scratch, "rows64.npy"), "<f4", (64,), struct.pack("<64f", *[0.25 + i / 64 for i in range(64)]))
    with open(os.path.join(scratch, "found_inf_flags.txt"), "w") as f:
        f.write("0\n0\n1\n0\n0\n")


DESCR = {"f32": ("<f4", 4), "tf32": ("<f4", 4), "f16": ("<f2", 2), "s32": ("<i4", 4)}


def expected_d(golden_path):
    """(descr, shape, little-endian bytes) of the first case's expected D, storage order."""
    with open(golden_path) as f:
        g = json.load(f)
    d = g["cases"][0]["expected"]["D"]
    descr, size = DESCR[d["type"]]
    rows, cols = d["shape"]
    order = d.get("order", "row")
    ld = d.get("ld", cols if order == "row" else rows)
    shape = (rows, ld) if order == "row" else (cols, ld)
    if "npy" in d:
        data = npy_data(os.path.join(os.path.dirname(golden_path), d["npy"]))
    else:
        digits = 2 * size
        h = d["hex"]
        data = b"".join(int(h[i:i + digits], 16).to_bytes(size, "little") for i in range(0, len(h), digits))
    return descr, shape, data


def before(scratch, cli_dir, command):
    del cli_dir
    wanted = re.findall(r"(\S+\.actual\.(?:bin|npy)|kernel_output\.npy)", command)
    golden = re.findall(r"(\S+\.json)\b", command)
    for name in wanted:
        path = os.path.join(scratch, name)
        if os.path.exists(path) or not golden or not os.path.exists(os.path.join(scratch, golden[0])):
            continue
        descr, shape, data = expected_d(os.path.join(scratch, golden[0]))
        if name.endswith(".bin"):
            with open(path, "wb") as f:
                f.write(data)
        else:
            write_npy(path, descr, shape, data)
