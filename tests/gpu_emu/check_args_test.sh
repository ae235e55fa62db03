#!/bin/sh
# The command lines of tools/gpu/cvt_check and mma_record (CLI11: cvt_check_args.cpp,
# mma_record_args.cpp), run without a GPU (ctest gpu_check_args, CUDA builds):
#   tests/gpu_emu/check_args_test.sh CVT_CHECK MMA_RECORD SOURCE_DIR
# A bad value, an out-of-range one, an unknown option or a missing value exits 2 with one line
# on stderr naming the option; --help lists the options; --list, --selftest-host and
# --host-dry-run run; integers are decimal; an option given twice counts once, the last.
set -u
CVT=$1
MMA=$2
SRC=$3
T=$(mktemp -d /tmp/tcemu-check-args.XXXXXX)
trap 'rm -rf "$T"' EXIT
FAILS=0
fail() { echo "FAIL: $*"; FAILS=$((FAILS + 1)); }

# bad NAME PROGRAM ARGS...: exit 2, exactly one line on stderr, holding NAME.
bad() {
  name=$1
  shift
  rc=0
  "$@" > "$T/out" 2> "$T/err" || rc=$?
  if [ "$rc" != 2 ]; then fail "$* : exit $rc, not 2"; return; fi
  [ "$(wc -l < "$T/err")" = 1 ] || fail "$* : not one line on stderr: $(cat "$T/err")"
  grep -qF -- "$name" "$T/err" || fail "$* : the message does not name $name: $(cat "$T/err")"
  [ -s "$T/out" ] && fail "$* : printed on stdout: $(head -3 "$T/out")"
  echo "ok (exit 2): $* -> $(cat "$T/err")"
}
# good PROGRAM ARGS...: exit 0, stdout in $T/out.
good() {
  rc=0
  "$@" > "$T/out" 2> "$T/err" || rc=$?
  [ "$rc" = 0 ] || { fail "$* : exit $rc: $(cat "$T/err")"; return 1; }
  echo "ok (exit 0): $*"
}

# cvt_check: --budget is a number of seconds from 0 to 86400.
for v in abc -1 nan inf 86401 1e9 5x ""; do bad --budget "$CVT" --budget "$v"; done
bad --budget "$CVT" --budget 5 --budget abc   # every value is checked, not only the last
bad --budget "$CVT" --list --budget
bad --nope "$CVT" --nope
bad stray "$CVT" stray
bad --full "$CVT" --full=maybe
good "$CVT" --help && for o in --out --budget --full --only --list --eval-only --selftest-host; do
  grep -q -- "$o" "$T/out" || fail "cvt_check --help does not list $o"
done
n=$(grep -c '^  X(' "$SRC/tools/gpu/gen/cvt_variants.inc")
good "$CVT" --budget 0 --list && { [ "$(wc -l < "$T/out")" = "$n" ] || fail "cvt_check --list: $(wc -l < "$T/out") lines, not $n"; }
good "$CVT" --budget 86400 --budget 1e2 --only .bf16.f16 --selftest-host &&
  { grep -q 'host self-check: [1-9][0-9]* variants with a model, 0 inconsistent' "$T/out" || fail "cvt_check --selftest-host: $(tail -1 "$T/out")"; }

# mma_record: --jobs 1 to 64, --random and --random-wg 0 to 10000, --child-timeout 5 to 3600 s,
# --child an instruction index.
for v in x -3 0 65 1.5 0x4 99999999999999999999 ""; do bad --jobs "$MMA" --jobs "$v"; done
for v in -1 10001 abc; do bad --random: "$MMA" --random "$v"; bad --random-wg "$MMA" --random-wg "$v"; done
for v in 4 0 3601 -90; do bad --child-timeout "$MMA" --child-timeout "$v"; done
good "$MMA" --list && ni=$(wc -l < "$T/out")
for v in -1 "$ni" 1x; do bad --child "$MMA" --child "$v"; done
bad --nope "$MMA" --nope
bad --jobs "$MMA" --jobs
good "$MMA" --help && for o in --out --only --jobs --random --random-wg --child-timeout --list --host-dry-run; do
  grep -q -- "$o" "$T/out" || fail "mma_record --help does not list $o"
done
good "$MMA" --out "$T/dry" --only m16n8k16.row.col.f32.bf16 --random 0 --random-wg 0 --host-dry-run &&
  { grep -q 'C/D round trip ok' "$T/out" && ! grep -q FAIL "$T/out" || fail "mma_record --host-dry-run: $(cat "$T/out")"; }
# The values as the parent reads them (its children fail without a GPU, it still exits 0):
# decimal with leading zeros, the last of two.
good "$MMA" --out "$T/run" --only m16n8k16.row.col.f32.bf16 --jobs 4 --jobs 010 --child-timeout 0012 &&
  { grep -q '1 instructions, 10 at a time, child timeout 12 s' "$T/out" || fail "mma_record: $(head -1 "$T/out")"; }

[ "$FAILS" = 0 ] || { echo "$FAILS failures"; exit 1; }
echo "all passed"
