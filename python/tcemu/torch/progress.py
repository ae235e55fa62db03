"""A progress line for long emulated runs: `with tcemu.torch.Progress(total=steps) as p:` and
`p.step()` after each training step; while active, every emulated GEMM updates one line on
stderr (at most every `every` seconds) with the step, the GEMMs and multiply-adds so far and the
emulated MAC/s inside tcemu.gemm. It only reads the counters of tcemu.torch.counters()."""

import sys
import time

from . import _layer


class Progress:
    def __init__(self, total=None, *, every=0.5, file=None, label="tcemu"):
        if total is not None and (isinstance(total, bool) or not isinstance(total, int) or total < 1):
            raise ValueError(f"total: a positive int (the number of steps) or None, got {total!r}")
        if isinstance(every, bool) or not isinstance(every, (int, float)) or every < 0:
            raise ValueError(f"every: seconds between updates (a number >= 0), got {every!r}")
        self.total, self.every, self.label = total, float(every), str(label)
        self.file = sys.stderr if file is None else file
        self.steps = 0
        self.gemms = 0
        self._start = None
        self._last = 0.0
        self._c0 = None

    def __enter__(self):
        self._start = time.perf_counter()
        self._c0 = _layer.counters()
        _layer.progress_hooks.append(self)
        return self

    def __exit__(self, *exc):
        _layer.progress_hooks.remove(self)
        self._write(final=True)
        return False

    def step(self, n=1):
        """Counts n training steps done (and updates the line)."""
        self.steps += n
        self._write()

    def gemm_done(self):
        """Called by tcemu.torch after each emulated GEMM."""
        self.gemms += 1
        if time.perf_counter() - self._last >= self.every:
            self._write()

    def line(self):
        """The progress line's text: steps, GEMMs, emulated multiply-adds and their rate."""
        c = _layer.counters()
        macs = c["macs"] - self._c0["macs"]
        secs = c["gemm_seconds"] - self._c0["gemm_seconds"]
        wall = time.perf_counter() - self._start
        step = f"step {self.steps}/{self.total}" if self.total else f"step {self.steps}"
        rate = f"{macs / secs / 1e9:.2f} G emulated MAC/s" if secs > 0 else "- G emulated MAC/s"
        return f"{self.label}: {step}, {self.gemms} GEMMs, {macs / 1e9:.2f} G MAC, {rate}, {wall:.1f} s"

    def _write(self, final=False):
        self._last = time.perf_counter()
        end = "\n" if final else ""
        print("\r" + self.line(), end=end, file=self.file, flush=True)
