#!/bin/sh
# run-kernels.sh — build tilemm's CUDA kernels with the kernel benchmark (ours against cuBLAS) and
# run it; with --tests, first build and run tests/test_cuda (and a compute-sanitizer memcheck
# pass of its quick subset) and summarise the kernels' SASS.  Logs go to $OUT (default
# bench/out).  Arguments after the options go to bench_kernels (e.g. --quick, --types sd,
# --variants 1,3).
#
#   bench/run-kernels.sh [--tests] [--no-bench] [--build-only] [--prebuilt] [bench_kernels options]
#
# --build-only builds everything into $BUILD and stops (on a machine with nvcc but no GPU);
# --prebuilt runs what such a build left in $BUILD without building (the GPU machine then needs
# only the CUDA runtime and cuBLAS).  Needs nvcc and cuBLAS (CUDA_HOME, default /usr/local/cuda)
# and a GPU.  Builds for sm_90 (the H100) unless ARCH says otherwise.  TEST_TIMEOUT,
# SANITIZER_TIMEOUT and BENCH_TIMEOUT (seconds) bound the three steps; TILEMM_TEST_VARIANTS
# (e.g. "6-12") narrows test_cuda's kernel cases.
#
# Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
set -eu
cd "$(dirname "$0")/.."
. src/sources.sh    # the lists of src/sources.mk
. bench/build-common.sh   # CUDA_HOME, NVCC, ARCH (default sm_90) and the compile helpers
OUT=${OUT:-bench/out}
BUILD=${BUILD:-$(mktemp -d)}
mkdir -p "$OUT" "$BUILD"

tests=0
bench=1
build=1
run=1
while [ $# -gt 0 ]; do
  case $1 in
    --tests) tests=1; shift ;;
    --no-bench) bench=0; shift ;;
    --build-only) run=0; shift ;;
    --prebuilt) build=0; shift ;;
    *) break ;;
  esac
done

bench_setup
if [ $build = 1 ]; then
  echo "== build ($NVCC $NVFLAGS)"
  : > "$BUILD/ptxas.log"
  kernels=$(bench_cu 1 TILEMM_KERNELS)
  hopper=$(bench_cu 1 TILEMM_KERNELS_SM90A)   # Hopper's own kernels, sm_90a beside $ARCH
  if grep -E "[1-9][0-9]* bytes spill (stores|loads)" "$BUILD/ptxas.log"; then
    echo "warning: a kernel spills registers (see $BUILD/ptxas.log)"
  fi
  # The core, the executor and the CPU backend (src/sources.mk), also as an archive for the
  # benchmark, which links only what the kernels need.
  objs=$(CFLAGS_EXTRA=-fopenmp bench_core TILEMM_CORE TILEMM_EXEC TILEMM_CPU)
  # The CUDA executor and the device code beside the kernels (transpose, emulated scheme).
  host=$(bench_cu 0 TILEMM_CUDA_HOST TILEMM_DEVICE)
  "$NVCC" $NVFLAGS -Itests tests/test_cuda.cu $host $kernels $hopper $objs \
    -Xcompiler -fopenmp -o "$BUILD/test_cuda"
  "$NVCC" $NVFLAGS -Itests bench/bench_kernels.cu $kernels "$BUILD/libcore.a" -lcublas \
    -o "$BUILD/bench_kernels"
  if command -v cuobjdump > /dev/null; then
    # Instruction mix of each kernel: wide loads present, no local memory, FMAs per shared load.
    cuobjdump -sass $kernels | awk '
      function flush () { if (name != "") { printf "%s", name; for (k in n) printf " %s=%d", k, n[k]; print "" } delete n }
      /Function :/ { flush(); name = $3; next }
      { for (i = 1; i <= NF; i++) if ($i ~ /^(FFMA|DFMA|DMMA|LDS|LDG|STS|STG|BAR|LDL|STL|LDGSTS)/) { op = $i; sub(/;$/, "", op); n[op]++ } }
      END { flush() }' > "$BUILD/sass-mix.txt" || true
  fi
fi
cp "$BUILD/ptxas.log" "$BUILD/sass-mix.txt" "$OUT/" 2> /dev/null || true
[ $run = 1 ] || exit 0

if [ $tests = 1 ]; then
  echo "== tests/test_cuda"
  timeout "${TEST_TIMEOUT:-300}" "$BUILD/test_cuda" > "$OUT/test_cuda.log" 2>&1 || true
  grep -E "^(FAIL|SKIP)|  .*check failed" "$OUT/test_cuda.log" | head -40 || true
  tail -1 "$OUT/test_cuda.log"
  if command -v compute-sanitizer > /dev/null && [ "${SANITIZER_TIMEOUT:-120}" -gt 0 ]; then
    echo "== compute-sanitizer memcheck, quick subset"
    TILEMM_TEST_QUICK=1 timeout "${SANITIZER_TIMEOUT:-120}" compute-sanitizer --tool memcheck --report-api-errors no --print-limit 20 \
      "$BUILD/test_cuda" > "$OUT/sanitizer.log" 2>&1 || true
    grep -E "ERROR SUMMARY|passed|Invalid|out of bounds" "$OUT/sanitizer.log" | head -20 || true
  fi
fi

if [ $bench = 1 ]; then
  echo "== bench/bench_kernels $*"
  timeout "${BENCH_TIMEOUT:-600}" "$BUILD/bench_kernels" "$@" | tee "$OUT/bench.log"
fi
