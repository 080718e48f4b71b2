#!/bin/sh
# run-emulated.sh — build the GPU side of the emulated precision (src/cuda/emulated_scheme.cu on
# the kernels of src/kernels/emulated_cuda.cu and kernels_imma.cuh) with its test program and its
# benchmark, run the tests (and a compute-sanitizer memcheck pass of their quick subset), then the
# benchmark.  Everything in one
# go, for the GPU machine: needs only the CUDA toolkit (nvcc, cuBLAS), no Octave, no configure.
# Logs go to $OUT (default /tmp/emu-out): build.log, ptxas.log (registers, spills, shared memory
# of every kernel), test_emulated_cuda.log, sanitizer.log, bench_emulated.log.
#
#   bench/run-emulated.sh [--build-only] [--quick] [bench_emulated options]
#
# Builds for sm_90 (the H100) unless ARCH says otherwise, and src/kernels/imma_wgmma.cu for sm_90a too
# (WGMMA_FLAGS; set it empty for a toolkit without sm_90a: the wgmma kernel is then never chosen).
# src/common/emulated_plan.c and src/cpu/emulated_cpu.c are the CPU side of the contract (tables,
# plan, references).
# TEST_TIMEOUT, SANITIZER_TIMEOUT, BENCH_TIMEOUT (seconds) bound the three steps.
#
# Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
set -eu
cd "$(dirname "$0")/.."
. src/sources.sh    # the lists of src/sources.mk
. bench/build-common.sh   # CUDA_HOME, NVCC, ARCH (default sm_90) and the compile helpers
OUT=${OUT:-/tmp/emu-out}
BUILD=${BUILD:-$(mktemp -d)}
mkdir -p "$OUT" "$BUILD"
run=1
quick=""
while [ $# -gt 0 ]; do
  case $1 in
    --build-only) run=0; shift ;;
    --quick) quick=--quick; shift ;;
    *) break ;;
  esac
done

bench_setup
# Each step checked: set -e does not reach into a function whose status is tested.
build () {
  echo "== build ($NVCC $NVFLAGS)"
  : > "$BUILD/ptxas.log"
  bench_cu 1 "$(tilemm_source emulated_cuda.cu)" > /dev/null || return 1   # its report: the scheme's kernels
  kernels=$(bench_cu 0 TILEMM_KERNELS) || return 1
  hopper=$(bench_cu 1 TILEMM_KERNELS_SM90A) || return 1   # Hopper's own kernels, sm_90a beside $ARCH
  # The core, the executor and the CPU side (src/sources.mk; the emulated plan and the CPU scheme
  # are the contract: tables, plan, references) as an archive, of which each program links what
  # it needs.
  CFLAGS_EXTRA=-fopenmp bench_core TILEMM_CORE TILEMM_EXEC TILEMM_CPU > /dev/null || return 1
  # The CUDA backend's host side, the scheme's stages and the device code beside them (the device
  # transpose, the batched kernels), for the test's cases through the host entries: the test and
  # the benchmark include src/kernels/emulated_cuda.cu themselves (they reach its launchers).
  scheme=$(bench_cu 0 "$(tilemm_source emulated_scheme.cu)") || return 1
  host=$(bench_cu 0 TILEMM_CUDA_HOST "$(tilemm_source transpose.cu)" "$(tilemm_source batched.cu)") \
    || return 1
  "$NVCC" $NVFLAGS -Itests tests/test_emulated_cuda.cu $scheme $host $kernels $hopper \
    "$BUILD/libcore.a" -Xcompiler -fopenmp -o "$BUILD/test_emulated_cuda" || return 1
  # The benchmark's whole calls (table 5) run tilemm's executor: the CUDA host side too.
  "$NVCC" $NVFLAGS bench/bench_emulated.cu $scheme $host $kernels $hopper "$BUILD/libcore.a" \
    -lcublas -Xcompiler -fopenmp -o "$BUILD/bench_emulated"
}
build > "$OUT/build.log" 2>&1 || { cat "$OUT/build.log"; exit 1; }
cp "$BUILD/ptxas.log" "$OUT/"
# registers, spills and shared memory per kernel, demangled where c++filt is at hand
awk '/Compiling entry function/ { n = $7; gsub(/'\''/, "", n) } /Used/ { print n ": " $0 } /spill/ { print n ": " $0 }' \
  "$BUILD/ptxas.log" | sed 's/ptxas info *: //' | (c++filt 2> /dev/null || cat) > "$OUT/resources.txt"
grep -E "imma_kernel|imma_wgmma_kernel" "$OUT/resources.txt" || true
if grep -E "[1-9][0-9]* bytes spill (stores|loads)" "$BUILD/ptxas.log" > /dev/null; then
  echo "note: a kernel spills registers (see $OUT/resources.txt)"
fi
[ $run = 1 ] || exit 0

nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv > "$OUT/gpu.txt" 2>&1 || true
echo "== tests/test_emulated_cuda"
timeout "${TEST_TIMEOUT:-180}" "$BUILD/test_emulated_cuda" > "$OUT/test_emulated_cuda.log" 2>&1 || true
grep -E "^FAIL|^  " "$OUT/test_emulated_cuda.log" | head -40 || true
tail -1 "$OUT/test_emulated_cuda.log"
if command -v compute-sanitizer > /dev/null && [ "${SANITIZER_TIMEOUT:-90}" -gt 0 ]; then
  echo "== compute-sanitizer memcheck, quick subset"
  TILEMM_TEST_QUICK=1 timeout "${SANITIZER_TIMEOUT:-90}" compute-sanitizer --tool memcheck --print-limit 20 \
    "$BUILD/test_emulated_cuda" > "$OUT/sanitizer.log" 2>&1 || true
  grep -E "ERROR SUMMARY|passed|Invalid|out of bounds" "$OUT/sanitizer.log" | head -20 || true
fi
echo "== bench/bench_emulated $quick $*"
timeout "${BENCH_TIMEOUT:-300}" "$BUILD/bench_emulated" $quick "$@" 2>&1 | tee "$OUT/bench_emulated.log"
