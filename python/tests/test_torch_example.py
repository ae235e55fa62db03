"""The README's model-level example, short: examples/torch/train_lm.py --quick trains the
small LM under every recipe for 4 steps and writes its plots and reports."""

import json
import os
import subprocess
import sys

from conftest import ROOT


def test_train_lm_quick(tmp_path):
    out = tmp_path / "lm"
    r = subprocess.run([sys.executable, os.path.join(ROOT, "examples", "torch", "train_lm.py"), "--quick",
                        "--no-progress", "--out", str(out)], capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stderr
    for f in ("loss_curves.png", "loss_curves.svg", "heatmap.png", "heatmap.svg", "summary.json",
              "report_te-nvfp4.json"):
        assert (out / f).stat().st_size > 0, f
    s = json.loads((out / "summary.json").read_text())
    assert set(s) >= {"f32", "bf16-amp", "fp16-amp", "te-delayed-hybrid", "te-mxfp8", "te-nvfp4"}
    for name in ("bf16-amp", "te-nvfp4"):
        assert 0 < s[name]["final_loss"] < 10
    # FP8 inference moves the logits, but not far.
    assert 10 < s["fp8_inference_logit_sqnr_db"] < 80
    rep = json.loads((out / "report_te-nvfp4.json").read_text())
    assert set(rep["layers"]["blocks.0.fc1"]) == {"fprop", "dgrad", "wgrad"}
    assert "FP8 inference" in r.stdout


def test_train_lm_rejects_bad_arguments():
    r = subprocess.run([sys.executable, os.path.join(ROOT, "examples", "torch", "train_lm.py"), "--recipes", "fp9"],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 2 and "unknown fp9" in r.stderr
