#!/usr/bin/env python3
"""Every repository file a comment or a doc names exists, and every section it cites exists.

Scans the source, build and documentation files under --repo (not build trees, not .git) for
  - file names: a token ending in a source or doc extension (.hpp .cpp .cu .py .md .sh ...). A
    name with a directory must be the tail of a path in the tree (`tcemu/mma.hpp`,
    `src/mma_fast.hpp`, `docs/golden.md`); a bare name must be some file's name;
  - sections: `X.md §N` (N like 4 or 3.2: a heading "## N." / "### N.M" of X.md), a bare `§N`
    after an X.md on the same or an earlier line of the same file (the doc last named), and
    `X.md, "Title"` / `X.md "Title"` (a heading of X.md containing Title).
Names of other projects' files are not checked where the line says whose they are (a URL, an
upstream repository or commit: see EXTERNAL) or where EXTERNAL_FILES lists them; placeholders
(X.md, cmd_NAME.cpp) are not files. Prints each bad reference as FILE:LINE: what, and
exits 1 when there is one. Usage: check_references.py --repo DIR [FILE ...]
"""
import argparse
import os
import re
import sys

SKIP_DIRS = {".git", "build", "__pycache__", ".venv", "venv", "node_modules", ".pytest_cache", ".hypothesis"}
SCAN_EXT = {".hpp", ".cpp", ".h", ".cu", ".cuh", ".py", ".sh", ".cmake", ".md", ".toml", ".in"}
SCAN_NAMES = {"CMakeLists.txt", "CMakePresets.json", "run", "py"}
# A reference to a file: these extensions always; data extensions only with a repository
# directory in front (a bare `D.json` or `A.npy` is the user's file in an example).
REF_EXT = "hpp|cpp|cuh|cu|h|py|md|sh|cmake"
DATA_EXT = "json|tsv|npy|txt|toml|yml|yaml|csv"
TOP_DIRS = "docs|tests|emulator|tools|golden|python|scripts|reference|testing|examples|fuzz|cmake|\\.ci"
FILE_RE = re.compile(r"(?<![\w/.\-+$<{])((?:[\w.+\-]+/)*[\w.+\-]*\w\.(?:" + REF_EXT + r"))(?![\w/]|\.in\b)")
DATA_RE = re.compile(r"(?<![\w/.\-])((?:" + TOP_DIRS + r")/(?:[\w.+\-]+/)*[\w.+\-]+\.(?:" + DATA_EXT + r"))(?![\w/])")
# Lines naming other projects' files (upstream sources cited by path).
EXTERNAL = re.compile(r"https?://|github|upstream|\b[0-9a-f]{12,40}\b|transformer_engine|torchao/|pytorch/|"
                      r"TransformerEngine|cutlass|deep_gemm|DeepGEMM|ml_dtypes/|gfloat/|site-packages|/usr/|"
                      r"\$\{|\$<|\bpip\b|\bNVIDIA/|MMA-Sim|softfloat|auto_round/|auto-round", re.I)
# Other projects' files cited by name on a line that does not say whose they are (the
# surrounding paragraph does): CUDA's headers, upstream sources of docs/sources.md.
EXTERNAL_FILES = {
    "float8/float8_linear.py",
    "float8_linear.py",
    "float8_ops.py",
    "prototype/moe_training/mxfp8_linear.py",
    "aten/src/ATen/native/cuda/ScaledBlas.cpp",
    "module/linear.py",
    # Upstream files the model-level, GEMM-plan, conventions and new-target docs cite by name
    # (PyTorch, TransformerEngine, torchao, CUTLASS, LLVM, MMA-Sim, gfloat), and report files
    # that documented tcemu-gpu commands write.
    "autocast_mode.cpp", "recipe/__init__.py", "_blockwise.cu", "common/recipe/nvfp4.cu",
    "prototype/mx_formats/mx_tensor.py", "float8/config.py", "float8_utils.py", "cublaslt_gemm.cu",
    "aten/src/ATen/cuda/CUDABlas.cpp", "common/cast/nvfp4/quantize_4over6_nvfp4.cuh",
    "common/cast/dispatch/quantize.cuh", "exmy_base.h", "numeric_conversion.h", "NVPTXSubtarget.h",
    "mmasim/arithmetic/fdpa.py", "mmasim/nv_ptx/sim.py", "arithmetic/fma_cpu.cpp", "round.py",
    "random.md", "run.md", "cpp_extensions/gemm.py", "gemm.py",
    "04-2cta-block-scale-matmul.py",
    "04_mma_tma_2sm_sm100_mxfp8.cu",
    "_mxfp8_test_utils.py",
    "aten/src/ATen/native/cuda/AmpKernels.cu",
    "common/cast/nvfp4/core_nvfp4.cuh",
    "common/cast/nvfp4/dequantize_nvfp4.cuh",
    "common/recipe/current_scaling.cu",
    "common/recipe/delayed_scaling.cu",
    "common/recipe/recipe_common.cuh",
    "common/util/ptx.cuh",
    "core_nvfp4.cuh",
    "cuda_bf16.h",
    "cuda_bf16.hpp",
    "cuda_fp16.h",
    "cuda_fp16.hpp",
    "cuda_fp4.h",
    "cuda_fp4.hpp",
    "cuda_fp6.h",
    "cuda_fp6.hpp",
    "cuda_fp8.h",
    "cuda_fp8.hpp",
    "curand_kernel.h",
    "custom_fp_utils.py",
    "delayed_scaling.cu",
    "dequantize_mxfp8.cuh",
    "dequantize_nvfp4.cuh",
    "examples/cute/tutorial/blackwell/mxfp8/04_mma_tma_2sm_sm100_mxfp8.cu",
    "examples/torch/train_lm.py",
    "fdpa.py",
    "float8.h",
    "helper.py",
    "include/flashinfer/mamba/conversion.cuh",
    "isa_tcgen05mma.py",
    "isa_wgmma.py",
    "llvm/lib/Support/APFloat.cpp",
    "megatron/core/optimizer/grad_scaler.py",
    "mma_fp8_output_fp16.cu",
    "mma_fp8_output_fp32.cu",
    "mmasim/nv_ptx/isa_mma.py",
    "mx_kernels/mxfp8_quantize.cuh",
    "mxfp8_quantize.cuh",
    "nlohmann/json.hpp",
    "numpy/lib/format.py",
    "nvfp4_tensor.py",
    "ptx_arch_spec.cuh",
    "python/examples/gluon/04-2cta-block-scale-matmul.py",
    "quantization.py",
    "quantize_mxfp8.cuh",
    "quantize_transpose_nvfp4.cuh",
    "run_gemm.cu",
    "specialized/quantize_transpose_nvfp4_tuned_1D.cuh",
    "test/prototype/mx_formats/test_mx_tensor.py",
    "test_mxfp8_dequantize_extreme_scales.py",
    "tests/cpp/operator/test_cast_nvfp4_transpose.cu",
    "tests/cpp/test_common.h",
    "torch/amp/grad_scaler.py",
}
# Placeholders in examples and usage lines (X.md, cmd_NAME.cpp, OUT/...), files a program writes
# into its output directory (crossval/...), my_tests.cpp of a user's project, Python's self.h.
PLACEHOLDER = re.compile(r"(^|/)[A-Z][A-Z_]*(\.|/)|_[A-Z]+\.|^OUT/|^crossval/|^my_tests\.cpp$|^self\.h$|^d\.cu$")
SECTION_RE = re.compile(r"([\w./\-]*\w\.md)\)?,?\s*§\s*(\d+(?:\.\d+)*)((?:,\s*§\s*\d+(?:\.\d+)*)*)")
TITLE_RE = re.compile(r"([\w./\-]*\w\.md)\)?,?\s+(?:section\s+)?\"([^\"\n]{3,60})\"")


def walk(repo):
    for root, dirs, files in os.walk(repo):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and not d.startswith("build"))
        for f in sorted(files):
            yield os.path.relpath(os.path.join(root, f), repo)


def headings(path, cache):
    if path not in cache:
        nums, titles = set(), []
        try:
            with open(path, encoding="utf-8") as fh:
                fence = False
                for line in fh:
                    if line.startswith("```"):
                        fence = not fence
                    if fence or not line.startswith("#"):
                        continue
                    title = line.lstrip("#").strip()
                    titles.append(title.lower())
                    m = re.match(r"(\d+(?:\.\d+)*)\.?\s", title)
                    if m:
                        nums.add(m.group(1))
        except OSError:
            pass
        cache[path] = (nums, titles)
    return cache[path]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repo", required=True)
    ap.add_argument("files", nargs="*", help="only these files (relative to --repo); default: the whole tree")
    args = ap.parse_args()
    repo = os.path.abspath(args.repo)
    tree = list(walk(repo))
    paths = set(tree)
    names = {os.path.basename(p) for p in tree}
    dirs = set()
    for p in tree:
        d = os.path.dirname(p)
        while d:
            dirs.add(d)
            d = os.path.dirname(d)
    suffixes = set()
    for p in list(paths) + list(dirs):
        parts = p.split("/")
        for i in range(len(parts)):
            suffixes.add("/".join(parts[i:]))

    md_cache = {}

    def find_md(ref, here):
        """The tree path of doc `ref` named in file `here`, or None."""
        ref = ref.lstrip("./") if not ref.startswith("../") else ref
        cand = os.path.normpath(os.path.join(os.path.dirname(here), ref))
        if cand in paths:
            return cand
        ref = re.sub(r"^(\.\./)+", "", ref)
        if ref not in md_cache:
            hits = [p for p in tree if p == ref or p.endswith("/" + ref)]
            if not hits and "/" not in ref:
                hits = [p for p in tree if p == "docs/" + ref]
            md_cache[ref] = hits[0] if hits else None
        return md_cache[ref]

    def file_ok(ref):
        r = re.sub(r"^(\./|\.\./)+", "", ref)
        if r in EXTERNAL_FILES or os.path.basename(r) in EXTERNAL_FILES or PLACEHOLDER.search(r):
            return True
        if "/" not in r:
            return r in names
        return r in suffixes

    cache = {}
    bad = []
    # tests/docs/selftest holds deliberately bad references (the checker's own test).
    scan = args.files or [p for p in tree if (os.path.splitext(p)[1] in SCAN_EXT or os.path.basename(p) in SCAN_NAMES)
                          and not p.startswith("tests/docs/selftest/")]
    for rel in scan:
        try:
            with open(os.path.join(repo, rel), encoding="utf-8") as fh:
                lines = fh.read().split("\n")
        except (OSError, UnicodeDecodeError):
            continue
        for no, line in enumerate(lines, 1):
            external = EXTERNAL.search(line)
            if not external:
                for rx in (FILE_RE, DATA_RE):
                    for m in rx.finditer(line):
                        ref = m.group(1)
                        if not file_ok(ref):
                            bad.append(f"{rel}:{no}: names {ref}, which is not a file of the repository")
            for m in SECTION_RE.finditer(line):
                md = find_md(m.group(1), rel)
                if md is None:
                    if not external:
                        bad.append(f"{rel}:{no}: cites {m.group(1)} §{m.group(2)}: no such document")
                    continue
                for sec in [m.group(2)] + re.findall(r"§\s*(\d+(?:\.\d+)*)", m.group(3)):
                    if sec not in headings(os.path.join(repo, md), cache)[0]:
                        bad.append(f"{rel}:{no}: cites {m.group(1)} §{sec}, which {md} has no heading for")
            for m in TITLE_RE.finditer(line):
                md = find_md(m.group(1), rel)
                if md is None:
                    continue
                title = m.group(2).lower()
                if not any(title in t for t in headings(os.path.join(repo, md), cache)[1]):
                    bad.append(f"{rel}:{no}: cites {m.group(1)} \"{m.group(2)}\", which {md} has no heading for")
    for b in bad:
        print(b)
    print(f"{len(scan)} files checked, {len(bad)} bad references")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
