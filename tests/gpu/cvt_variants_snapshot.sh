#!/bin/sh
# The rows of tools/gpu/gen/cvt_variants.inc (generated from the PTX cvt catalog) against
# tests/data/catalog/cvt_variants.txt, the hand-written list as it stood before the generation
# (issue 12): id, shape, target mask and spelling of every variant, in order.
# Usage: cvt_variants_snapshot.sh SOURCE_DIR
set -eu
src=$1
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
sed -n 's/^  X(\([0-9]*\), \([A-Z0-9_]*\), \([0-9]*\), "\([^"]*\)") \\$/\1 \2 \3 \4/p' \
  "$src/tools/gpu/gen/cvt_variants.inc" > "$tmp"
if [ ! -s "$tmp" ]; then
  echo "no variant rows read from tools/gpu/gen/cvt_variants.inc"
  exit 1
fi
grep -v '^#' "$src/tests/data/catalog/cvt_variants.txt" | diff -u - "$tmp"
