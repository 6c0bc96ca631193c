#!/usr/bin/env bash
# limits.sh — requests beyond the memory a process can have, under `ulimit -v`: each is a clear error with
# its numbers, exit status 1 and no signal, before anything large is allocated. Prints "N passed, N failed".
# Usage: limits.sh MAPC SOURCE_ROOT
set -u
mapc=$1
root=$2
passed=0 failed=0
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
export MAPC_CACHE_DIR=  # no disk cache: nothing here should reach the JIT
g=$root/samples/gemm/gemm.map
# 2 GiB of address space: enough to load mapc and LLVM, far below any request here
limit_kib=2097152
check() { # name, expected status, pattern the output must contain, mapc arguments...
    local name=$1 want=$2 pattern=$3; shift 3
    (ulimit -v "$limit_kib"; exec "$mapc" "$@") >"$dir/out" 2>&1
    local got=$?
    if [ "$got" -eq "$want" ] && grep -q -- "$pattern" "$dir/out"; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1)); echo "FAIL $name (status $got, want $want; expected '$pattern')"; sed 's/^/    /' "$dir/out"
    fi
}
cat >"$dir/big.map" <<'MAP'
axes![A = 50000000, B = 1048576];
type T = m![A];
type S = m![B, B];
MAP
# mapc run: the operands of 100000 x 100000 x 16 (120 GB with the host arrays) against the 2 GiB limit; the HBM
# capacity rule (48 GiB per chip) for 10^12-element results; a product that fits the HBM but not the process
check run-host 1 "kernel sgemm with M=100000 N=100000 K=16 cannot run here: its operand tensors, host arrays and \
reference need at least 120051200000 bytes, more than the 2147483648 bytes of memory this process can have" \
    run "$g" sgemm --m 100000 --n 100000 --k 16 --reps 1
check run-hbm 1 "tensor C: HBM tensor needs 4000000000000 bytes per chip (1000000000000 f32 elements), more than the \
51539607552 bytes of a chip" run "$g" sgemm --m 1000000 --n 1000000 --reps 1
check run-small 1 "need at least 2952790016 bytes" run "$g" sgemm --m 8192 --n 8192 --k 8192 --reps 1
# mapc table --all: 50 million cells (2.4 GB of cell texts) and 2^40 cells, with --max-cells raised past them; a
# table cut in the middle (the default) shows few cells whatever the size
check table-cells 1 "a table of 50000000 cells needs about 2400000000 bytes, more than the 2147483648 bytes" \
    table "$dir/big.map" T --all --max-cells 100000000
check table-huge 1 "a table of 1099511627776 cells needs about 52776558133248 bytes" \
    table "$dir/big.map" S --all --max-cells 1099511627776
check table-all 1 "the mapping has 1099511627776 cells, more than --all prints (raise it with --max-cells N) 65536" \
    table "$dir/big.map" S --all
check table-cut 0 "49999999" table "$dir/big.map" T
# a run that fits goes through under the same limit
check run-fits 0 "elements against a double reference" run "$g" sgemm --m 64 --n 64 --k 64 --reps 1 --isa portable
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
