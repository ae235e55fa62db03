#!/bin/sh
# mma_fast.cpp's whitelist must not compile once DatapathParams, MmaOptions or MmaProblem gain
# a field (the structured bindings in `accepts` name every field). Adds a field to a copy of
# each header in turn and expects the compiler to refuse mma_fast.cpp; the unmodified copy
# must compile.
# Usage: fast_whitelist_check.sh CXX SOURCE_DIR
set -u
cxx=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
compile() { "$cxx" -std=c++20 -fsyntax-only -I"$tmp/include" -I"$src/emulator/src" "$src/emulator/src/mma_fast.cpp" 2> "$tmp/err.txt"; }
fresh() { rm -rf "$tmp/include"; mkdir "$tmp/include"; cp -r "$src/emulator/include/tcemu" "$tmp/include/"; }
fresh
compile || { echo "mma_fast.cpp does not compile unmodified:"; cat "$tmp/err.txt"; exit 1; }
status=0
for edit in "datapath.hpp|  bool positive_zero = false;" "mma.hpp|  int scale_input_d = -1;" "mma.hpp|  int scale_block = 0;"; do
  file=${edit%%|*}
  line=${edit#*|}
  fresh
  grep -qF "$line" "$tmp/include/tcemu/$file" || { echo "$file no longer holds '$line': update this test"; exit 1; }
  awk -v l="$line" '{ print } $0 == l { print "  int added_field = 0;" }' "$src/emulator/include/tcemu/$file" > "$tmp/include/tcemu/$file"
  if compile; then
    echo "mma_fast.cpp still compiles with a field added after '$line' in $file"
    status=1
  elif ! grep -q "structured binding" "$tmp/err.txt"; then
    echo "mma_fast.cpp fails for another reason with a field added in $file:"
    cat "$tmp/err.txt"
    status=1
  fi
done
exit "$status"
