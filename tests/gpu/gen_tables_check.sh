#!/bin/sh
# Regenerates tools/gpu/gen/* from the catalogs (`tcemu instr list | gen_instr_tables.py`, with
# `tcemu cvt --list` for gen/cvt_variants.inc) into a temporary folder and diffs it against the committed files: a catalog change that would
# change the CUDA sources fails here until they are regenerated and committed.
# Usage: gen_tables_check.sh TCEMU_CLI PYTHON SOURCE_DIR
set -eu
cli=$1
python=$2
src=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$cli" instr list > "$tmp/list.txt"
"$cli" cvt --list > "$tmp/cvt.txt"
mkdir "$tmp/gen"
"$python" "$src/tools/gpu/gen_instr_tables.py" "$tmp/gen" --cvt-list "$tmp/cvt.txt" < "$tmp/list.txt"
status=0
for f in "$src"/tools/gpu/gen/*; do
  name=$(basename "$f")
  if [ ! -f "$tmp/gen/$name" ]; then
    echo "tools/gpu/gen/$name is committed but no longer generated"
    status=1
  elif ! diff -u "$f" "$tmp/gen/$name" > "$tmp/diff.txt"; then
    echo "tools/gpu/gen/$name differs from what gen_instr_tables.py generates now:"
    head -40 "$tmp/diff.txt"
    status=1
  fi
done
for f in "$tmp"/gen/*; do
  name=$(basename "$f")
  [ -f "$src/tools/gpu/gen/$name" ] || { echo "tools/gpu/gen/$name is generated but not committed"; status=1; }
done
if [ "$status" -ne 0 ]; then
  echo "Regenerate with: build/release/tools/cli/tcemu cvt --list > /tmp/cvt.txt &&" \
    "build/release/tools/cli/tcemu instr list | /usr/bin/python3 tools/gpu/gen_instr_tables.py tools/gpu/gen --cvt-list /tmp/cvt.txt"
fi
exit "$status"
