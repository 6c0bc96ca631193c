#!/bin/sh
# emit_cli.sh — `mapc emit` on the command line: outputs, header, options, exit statuses (docs/cli.md).
# usage: emit_cli.sh MAPC CASES.map
mapc=$1
cases=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0
failed=0
check() { # check NAME CONDITION...
    name=$1
    shift
    if "$@"; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL: $name"; fi
}
status() { "$@" >"$tmp/out" 2>"$tmp/err"; echo $?; }

check "object" test "$(status "$mapc" emit "$cases" -o "$tmp/a.o")" = 0
check "object is ELF" sh -c "head -c 4 '$tmp/a.o' | grep -q ELF"
check "asm" test "$(status "$mapc" emit "$cases" -o "$tmp/a.s" --emit=asm -O0)" = 0
check "asm has Row_cell" grep -q '^Row_cell:' "$tmp/a.s"
check "llvm" test "$(status "$mapc" emit "$cases" -o "$tmp/a.ll" --emit=llvm -O3 --prefix p_)" = 0
check "llvm has prefixed symbols" grep -q 'define .*@p_Row_offset' "$tmp/a.ll"
check "header" test "$(status "$mapc" emit "$cases" -o "$tmp/b.o" --header "$tmp/b.h" --prefix q_)" = 0
check "header declares" grep -q 'void q_row_to_blk(void \*dst, const void \*src);' "$tmp/b.h"
check "header compiles" cc -c -x c -o "$tmp/h.o" "$tmp/b.h"
check "cpu native" test "$(status "$mapc" emit "$cases" -o "$tmp/c.o" --cpu native)" = 0
check "no -o is usage" test "$(status "$mapc" emit "$cases")" = 2
check "bad --emit is usage" test "$(status "$mapc" emit "$cases" -o "$tmp/d.o" --emit=exe)" = 2
check "bad prefix is usage" test "$(status "$mapc" emit "$cases" -o "$tmp/d.o" --prefix 9x)" = 2
check "unknown option is usage" test "$(status "$mapc" emit "$cases" -o "$tmp/d.o" -O7)" = 2
printf 'axes![A = 4];\ntype E = m![A %% 3];\n' >"$tmp/bad.map"
check "input error is 1" test "$(status "$mapc" emit "$tmp/bad.map" -o "$tmp/d.o")" = 1
check "input error is positioned" grep -q "bad.map:2:.*error: modulo 3 does not divide size 4" "$tmp/err"
printf 'axes![A = 8, B = 4];\ntype H = m![A %% 4, B];\ncopy half: H -> m![A, B] as f32;\ncopy e: H -> H as f99;\n' >"$tmp/copy.map"
check "copy without source is 1" test "$(status "$mapc" check "$tmp/copy.map")" = 1
check "copy without source names the index" grep -q "copy.map:3:1: error: copy half: destination position 16 holds {A:4}, which no source position holds" "$tmp/err"
check "copy element type" grep -q "copy.map:4:.*unknown element type 'f99'" "$tmp/err"
check "unwritable output is 1" test "$(status "$mapc" emit "$cases" -o "$tmp/no/such/dir.o")" = 1
check "unwritable output says so" grep -q "cannot write" "$tmp/err"
check "header states the plan" grep -q 'live box of .* transposes in registers' "$tmp/b.h"
check "header declares parts" grep -q 'void q_row_to_blk_part(void \*dst, const void \*src, uint64_t part, uint64_t nparts);' "$tmp/b.h"
# `mapc run FILE COPY`: the plan, a checked run on 3 threads, and the options of kernels refused
printf 'axes![A = 40, B = 33];\ncopy tp: m![A, B] -> m![B #{0} 48, A # 44] as bf16;\n' >"$tmp/run.map"
check "run copy" test "$(status "$mapc" run "$tmp/run.map" tp --threads 3 --reps 1)" = 0
check "run copy checks" grep -q "check: all 2112 destination positions against the interpreter: ok" "$tmp/out"
check "run copy plan" test "$(status "$mapc" run "$tmp/run.map" tp --plan --isa portable)" = 0
check "run copy plan is the plan" grep -q "portable, 16-byte vectors" "$tmp/out"
check "run copy --m is usage" test "$(status "$mapc" run "$tmp/run.map" tp --m 4)" = 2
check "run --plan of no copy is usage" test "$(status "$mapc" run "$tmp/run.map" nope --plan)" = 2
echo "$passed passed, $failed failed"
test "$failed" = 0
