#!/usr/bin/env python3
"""Runs every command shown in README.md and docs/*.md (the convention: docs/doc-commands.md).

Each document's commands run in order, in a fresh scratch directory of their own (so one
command can use the files an earlier one wrote), through `bash -o pipefail -c`, with the
directory holding the `tcemu` executable first on PATH. Inputs the documents name but never
create (x.npy, IN.npy, kernel_output.npy, ...) are prepared first by fixtures.py.
A command fails the run when its exit status is not the expected one (0, or the N of a
trailing `[exit N]` marker) or when it runs longer than --timeout seconds.

  run_doc_commands.py --repo ROOT --cli-dir DIR         # run them all (what ctest does)
  run_doc_commands.py --repo ROOT --list                 # print the commands found, run nothing
  run_doc_commands.py --repo ROOT --cli-dir DIR FILE.md  # only these files (paths under ROOT)
Only the standard library is used.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fixtures  # noqa: E402

# A line is a command when, after its indentation and an optional "$ " prompt, it starts
# with `tcemu ` or `scripts/`, or it is `echo`/`printf`/`cat` output piped into tcemu, or it
# runs something of the build tree: `build/release/...` (benchmarks),
# `PYTHONPATH=build/release/python /usr/bin/python3 ...` (the Python package) or
# `cmake --build build/release ...`. `scripts/py ...` (the test environment's Python with the
# built package) runs from the root too, so its relative paths (examples/...) lead there.
# A command may start with environment assignments (OMP_WAIT_POLICY=passive build/release/...).
ENV_PREFIX = r"(?:[A-Z][A-Z0-9_]*=[\w./:-]*\s+)*"
COMMAND = re.compile(r"^" + ENV_PREFIX + r"(tcemu\s|scripts/\S+|(echo|printf|cat)\s.*\|\s*tcemu\s|" +
                     r"build/release/\S+|PYTHONPATH=build/release/python\s|cmake --build build/release\b)")
# Commands of the build tree run from the repository's root, where their relative paths lead.
IN_REPO = re.compile(r"^" + ENV_PREFIX + r"(build/release/|PYTHONPATH=build/release/python\s|cmake --build build/release\b|"
                     r"scripts/py\s)")
FENCE = re.compile(r"^\s*(```|~~~)\s*([\w+-]*)")
SHELL_LANGS = {"", "sh", "bash", "shell", "console"}
DIRECTIVE = re.compile(r"<!--\s*doc-test:\s*(\w[\w-]*)\s*(.*?)\s*-->")
EXIT_MARK = re.compile(r"#.*\[exit (\d+)\]")
KNOWN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "known_failures.txt")


def known_failures():
    """(document, command prefix) -> reason: documented commands known to fail, each with the
    reason and who fixes it. Such a command must still fail: one that passes is reported, so
    the list cannot go stale."""
    out = {}
    if os.path.exists(KNOWN):
        with open(KNOWN, encoding="utf-8") as f:
            for line in f:
                if not line.strip() or line.startswith("#"):
                    continue
                doc, prefix, reason = line.rstrip("\n").split("\t")
                out[(doc, prefix)] = reason
    return out


@dataclass
class Command:
    doc: str
    line: int
    text: str
    expect_exit: int = 0
    skip: str = ""  # the reason, when a directive says not to run it


@dataclass
class Block:
    start: int
    lines: list = field(default_factory=list)  # (line number, text)
    directives: list = field(default_factory=list)


def blocks_of(path):
    """Fenced blocks with a shell (or no) info string, and indented blocks, with the
    `<!-- doc-test: ... -->` directives written just above each."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    out, pending = [], []
    i = 0
    prev_blank = True
    while i < len(lines):
        line = lines[i]
        d = DIRECTIVE.search(line)
        if d:
            pending.append((d.group(1), d.group(2)))
            i += 1
            continue
        m = FENCE.match(line)
        if m:
            fence, lang = m.group(1), m.group(2).lower()
            b = Block(i + 1, [], pending)
            pending = []
            i += 1
            while i < len(lines) and not lines[i].lstrip().startswith(fence):
                b.lines.append((i + 1, lines[i]))
                i += 1
            i += 1
            if lang in SHELL_LANGS:
                out.append(b)
            prev_blank = False
            continue
        if prev_blank and line.startswith("    ") and line.strip():
            # an indented block: indented lines, blank lines inside it, until unindented text
            b = Block(i + 1, [], pending)
            pending = []
            while i < len(lines):
                cur = lines[i]
                if cur.startswith("    ") and cur.strip():
                    b.lines.append((i + 1, cur))
                    i += 1
                elif not cur.strip():
                    j = i
                    while j < len(lines) and not lines[j].strip():
                        j += 1
                    if j < len(lines) and lines[j].startswith("    "):
                        i = j
                    else:
                        break
                else:
                    break
            out.append(b)
            prev_blank = False
            continue
        if line.strip() and pending and not line.lstrip().startswith("<!--"):
            pending = []  # a directive applies only to the block right below it
        prev_blank = not line.strip() or line.lstrip().startswith("#")  # a heading ends a paragraph
        i += 1
    return out


def commands_of(root, rel):
    cmds = []
    for b in blocks_of(os.path.join(root, rel)):
        skip = ""
        for name, arg in b.directives:
            if name == "skip":
                if not arg:
                    raise SystemExit(f"{rel}:{b.start}: `doc-test: skip` needs a reason")
                skip = arg
            else:
                raise SystemExit(f"{rel}:{b.start}: unknown directive `doc-test: {name}`")
        k = 0
        while k < len(b.lines):
            num, raw = b.lines[k]
            text = raw.strip()
            if text.startswith("$ "):
                text = text[2:]
            if not COMMAND.match(text) and not (text.endswith("|") and k + 1 < len(b.lines)):
                k += 1
                continue
            # continuation lines: a trailing backslash or pipe joins the next line
            while (text.endswith("\\") or text.endswith("|")) and k + 1 < len(b.lines):
                k += 1
                nxt = b.lines[k][1].strip()
                text = (text[:-1] if text.endswith("\\") else text) + " " + nxt
            k += 1
            if not COMMAND.match(text):
                continue
            m = EXIT_MARK.search(text)
            cmds.append(Command(rel, num, text, int(m.group(1)) if m else 0, skip))
    return cmds


def documents(root):
    docs = ["README.md"]
    ddir = os.path.join(root, "docs")
    docs += sorted("docs/" + f for f in os.listdir(ddir) if f.endswith(".md"))
    return docs


def run_document(root, cli_dir, rel, cmds, timeout, keep):
    scratch = tempfile.mkdtemp(prefix="tcemu_doc_")
    env = dict(os.environ)
    env["PATH"] = cli_dir + os.pathsep + env.get("PATH", "")
    env["TCEMU_REPO"] = root
    # Benchmarks shown in the docs run each case for as short a time as Google Benchmark
    # allows (the flag's environment form): the test checks that they run, not how fast.
    env["BENCHMARK_MIN_TIME"] = "0.001"
    failures = []
    known = known_failures()
    try:
        fixtures.prepare(scratch, cli_dir)
        for c in cmds:
            where = f"{c.doc}:{c.line}"
            if c.skip:
                print(f"SKIP {where}: {c.text}\n     ({c.skip})")
                continue
            # scripts/... resolve against the repository (they cd there themselves).
            text = re.sub(r"^scripts/", root.rstrip("/") + "/scripts/", c.text)
            fixtures.before(scratch, cli_dir, text)
            try:
                p = subprocess.run(["bash", "-o", "pipefail", "-c", text], cwd=root if IN_REPO.match(c.text) else scratch, env=env,
                                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=timeout)
                rc, out = p.returncode, p.stdout.decode("utf-8", "replace")
            except subprocess.TimeoutExpired:
                rc, out = "timeout", f"ran longer than {timeout} s"
            ok = rc == c.expect_exit
            why = next((r for (d, pre), r in known.items() if d == c.doc and c.text.startswith(pre)), None)
            if why is not None:
                print(f"{'FAIL' if ok else 'xfail'} {where}: exit {rc}: {c.text}\n     (known failure: {why})")
                if ok:
                    print("     it passes now: remove it from tests/docs/known_failures.txt")
                    failures.append(where)
                continue
            print(f"{'ok  ' if ok else 'FAIL'} {where}: exit {rc} (expected {c.expect_exit}): {c.text}")
            if not ok:
                tail = "\n".join(out.splitlines()[-15:])
                print("     " + tail.replace("\n", "\n     "))
                failures.append(where)
    finally:
        if keep:
            print(f"scratch directory kept: {scratch}")
        else:
            shutil.rmtree(scratch, ignore_errors=True)
    return failures


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repo", required=True)
    ap.add_argument("--cli-dir", help="directory holding the tcemu executable")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--timeout", type=float, default=120)
    ap.add_argument("--keep", action="store_true", help="keep the scratch directories")
    ap.add_argument("--min-commands", type=int, default=0,
                    help="fail when fewer commands are found (an extractor that finds nothing passes nothing)")
    ap.add_argument("files", nargs="*")
    a = ap.parse_args()
    root = os.path.abspath(a.repo)
    files = a.files or documents(root)
    all_cmds = {rel: commands_of(root, rel) for rel in files}
    total = sum(len(v) for v in all_cmds.values())
    if a.list:
        for rel, cmds in all_cmds.items():
            for c in cmds:
                mark = f"  [exit {c.expect_exit}]" if c.expect_exit else ""
                mark += f"  [skip: {c.skip}]" if c.skip else ""
                print(f"{c.doc}:{c.line}: {c.text}{mark}")
        print(f"{total} commands")
        return 0
    if not a.cli_dir or not os.access(os.path.join(a.cli_dir, "tcemu"), os.X_OK):
        print(f"no tcemu executable in --cli-dir {a.cli_dir!r}")
        return 2
    if total < a.min_commands:
        print(f"only {total} commands found, expected at least {a.min_commands}: is the extractor broken?")
        return 1
    failures = []
    for rel, cmds in all_cmds.items():
        if cmds:
            failures += run_document(root, os.path.abspath(a.cli_dir), rel, cmds, a.timeout, a.keep)
    ran = sum(1 for v in all_cmds.values() for c in v if not c.skip)
    print(f"{ran} commands run from {len(files)} documents, {len(failures)} failed")
    if failures:
        print("failed: " + ", ".join(failures))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
