#!/bin/bash
# tests/gpu-checks.sh — every GPU check of tilemm in one device run of under ten minutes, from the
# release tarball: the kernel and backend tests (test_cuda), the BLAS library's tests and the
# reference BLAS tester on the GPU backend, compute-sanitizer's four tools on the kernel tests,
# 10,000 mixed calls for leaks on the real runtime (test_leaks_gpu), the emulated guarantee
# against exact products (test_emulated_exact), tilemm against `*` on generated operands on the
# gpu backend (tests/differential.sh), the BIST with the GPU blocks
# executed (oct-file and mex), Ctrl-C during a GPU product, and a breakdown of one large call.
# Built for sm_90 only, to save the device's time; tests/gpu-machine.sh is the full `make check`.
#
#   source .gpu/setup.sh && tests/gpu-checks.sh tilemm-0.1.0.tar.gz
#       (carry .gpu, with .gpu/blas-test from tools/pack-blas-tester, and the tarball)
#
# Logs go to $OUT (default /tmp/tilemm-gpu-out); the last line sums the counts.  Correctness
# tests that do not measure the GPU's free memory run side by side; those that do run alone.
#
# Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
set -u
tarball=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
top=$(pwd)
out=${OUT:-/tmp/tilemm-gpu-out}
mkdir -p "$out"
work=${WORK:-/tmp/tilemm-gpu}
rm -rf "$work"; mkdir -p "$work"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$out/gpu.txt"
tar -C "$work" -xzf "$tarball" || exit 1
cd "$work"/tilemm-* || exit 1
src=$PWD/src
echo "== build"
{ ./configure --with-cuda-arch=90 && make -j"$(nproc)" && make -C src -j"$(nproc)" test-programs blas; } \
  > "$out/build.log" 2>&1 || { tail -30 "$out/build.log"; echo "0 passed, 1 failed, 0 skipped"; exit 1; }

echo "== side by side: test_cuda, test_blas, xblat3 (gpu), compute-sanitizer"
( timeout 300 "$src/test_cuda" > "$out/test_cuda.log" 2>&1 ) &
( timeout 300 "$src/test_blas" > "$out/test_blas.log" 2>&1 ) &
( XBLAT3_DIR=$top/.gpu/blas-test TILEMM_XBLAT3_REQUIRE_GPU=1 TILEMM_BUILDDIR=$PWD TILEMM_SRCDIR=$PWD \
    timeout 300 tests/xblat3.sh gpu > "$out/xblat3.log" 2>&1 ) &
# Each tool's bound in seconds.  Racecheck is the slowest (its cost grows with every shared-memory
# access), so it runs once per variant, side by side, on the kernel cases of small shapes only
# (TILEMM_TEST_QUICK=2: every ragged edge and layout still), with a longer bound.
sanitizer_limit=${TILEMM_SANITIZER_LIMIT:-150}
racecheck_limit=${TILEMM_RACECHECK_LIMIT:-300}
sanitize () {
  # One tool on a test program's quick cases (no big shapes); counts as one test: clean or not.
  # CUDA API errors are left to the program, which provokes some on purpose (test_cuda: a 102 GB
  # cudaMalloc) and checks each status itself; the tool reports what happens inside the kernels.
  # The tool's own output goes to sanitizer-NAME.txt, the verdict to sanitizer_NAME.log.
  # PROGRAM defaults to test_cuda (the tiled kernels); test_pages_gpu runs the batched ones.
  local tool=$1 variants=$2 name=$3 quick=$4 limit=$5 program=${6:-test_cuda}
  local raw="$out/sanitizer-$name.txt" log="$out/sanitizer_$name.log"
  TILEMM_TEST_QUICK=$quick TILEMM_TEST_VARIANTS=$variants timeout "$limit" compute-sanitizer --tool "$tool" \
    --print-limit 20 --report-api-errors no "$src/$program" > "$raw" 2>&1
  local rc=$?
  { grep -E "ERROR SUMMARY|RACECHECK SUMMARY|^$program: [0-9]" "$raw"
    if grep -qE "(ERROR SUMMARY: 0 errors|RACECHECK SUMMARY: 0 hazards)" "$raw" \
       && grep -q "^$program: [0-9]* passed, 0 failed" "$raw"; then
      echo "sanitizer_$name: 1 passed, 0 failed, 0 skipped"
    elif [ $rc = 124 ]; then
      echo "SKIP: sanitizer $name timed out after $limit s"; echo "sanitizer_$name: 0 passed, 0 failed, 1 skipped"
    else
      echo "sanitizer_$name: 0 passed, 1 failed, 0 skipped"
    fi; } | sed "s/^$program: /  under the tool: /" > "$log"
}
if command -v compute-sanitizer > /dev/null; then
  sanitize memcheck "1-16" memcheck 1 "$sanitizer_limit" &
  for v in ${TILEMM_RACECHECK_VARIANTS:-6 9 10 11 13}; do  # the package's variants
    sanitize racecheck "$v" "racecheck_v$v" 2 "$racecheck_limit" &
  done
  sanitize synccheck "6,9,10,11,13" synccheck 1 "$sanitizer_limit" &
  sanitize initcheck "6,9,10,11,13" initcheck 1 "$sanitizer_limit" &
  # the batched kernels of pagemtimes (their shared-memory pages and the packed small pages)
  sanitize racecheck "" racecheck_pages 1 "$racecheck_limit" test_pages_gpu &
  sanitize memcheck "" memcheck_pages 1 "$sanitizer_limit" test_pages_gpu &
fi
( timeout 200 "$src/test_emulated_cuda" > "$out/test_emulated_cuda.log" 2>&1 ) &
# the emulated guarantee against exact products, on the CPU and the GPU backend
# (a few OpenMP threads: its products are small, and 16 spinning threads per product beside the
# other jobs here slow it down many times)
# A test this machine cannot build is a skip with its reason, never a failure nor a silent pass
# (configure builds it only where GMP is, as xblat3 runs only where the tester is).
if [ -x "$src/test_emulated_exact" ]; then
  ( OMP_NUM_THREADS=4 timeout 200 "$src/test_emulated_exact" > "$out/test_emulated_exact.log" 2>&1 ) &
else
  { echo "SKIP: test_emulated_exact: not built here (configure found no GMP on this machine)"
    echo "test_emulated_exact: 0 passed, 0 failed, 1 skipped"; } > "$out/test_emulated_exact.log"
fi
# tilemm against `*` on generated operands, the gpu backend included; pagemtimes likewise
( TILEMM_BUILDDIR=$PWD TILEMM_SRCDIR=$PWD timeout 400 tests/differential.sh \
    > "$out/differential.log" 2>&1 ) &
( TILEMM_BUILDDIR=$PWD TILEMM_SRCDIR=$PWD timeout 400 tests/differential_pages.sh \
    > "$out/differential_pages.log" 2>&1 ) &
# pages on the batched kernels themselves; the executor's grid (stand-in runtime, no GPU needed)
( timeout 200 "$src/test_pages_gpu" > "$out/test_pages_gpu.log" 2>&1 ) &
( TILEMM_TEST_NO_EMULATED=1 timeout 300 "$src/test_executor" > "$out/test_executor.log" 2>&1 ) &
wait
for f in "$out"/test_cuda.log "$out"/test_blas.log "$out"/xblat3.log "$out"/test_emulated_cuda.log \
         "$out"/test_emulated_exact.log "$out"/differential.log "$out"/differential_pages.log \
         "$out"/test_pages_gpu.log "$out"/test_executor.log "$out"/sanitizer_*.log; do
  [ -f "$f" ] && tail -n 1 "$f"
done

echo "== alone: test_leaks_gpu, test_emulated_panels, BIST (GPU blocks), Ctrl-C on the GPU"
timeout 200 "$src/test_leaks_gpu" > "$out/test_leaks_gpu.log" 2>&1
tail -n 1 "$out/test_leaks_gpu.log"
# the emulated product in panels and over workers, transposed products over workers: bitwise
timeout 200 "$src/test_emulated_panels" > "$out/test_emulated_panels.log" 2>&1
tail -n 1 "$out/test_emulated_panels.log"
# again with staging chunks of 4 KiB: C comes back in several column blocks, each downloaded while
# the device computes the next (tilemm_emu_result_block_cols)
TILEMM_STAGING_KB=4 timeout 200 "$src/test_emulated_panels" > "$out/test_emulated_panels_blocks.log" 2>&1
tail -n 1 "$out/test_emulated_panels_blocks.log"
TILEMM_BUILDDIR=$PWD TILEMM_SRCDIR=$PWD timeout 300 tests/bist.sh > "$out/bist.log" 2>&1
grep -E "^(bist|bist_mex): " "$out/bist.log"
TILEMM_BUILDDIR=$PWD TILEMM_INTERRUPT_BACKEND=gpu timeout 120 tests/interrupt.sh \
  > "$out/interrupt-gpu.log" 2>&1
tail -n 1 "$out/interrupt-gpu.log"

echo "== one large call, where its time goes"
${OCTAVE:-octave-cli} --no-gui --norc --quiet --eval "
  addpath ('$src');
  for cls = {'double', 'single'}
    A = rand (4096, cls{1}); B = rand (4096, cls{1});
    for r = 1:3, C = tilemm (A, B, 'backend', 'gpu'); end
    s = __tilemm_stats__ ();
    printf ('%s 4096: backend %.2f ms = upload %.2f + compute %.2f + download %.2f; host copies in %.2f, out %.2f, result prep %.2f ms; %d panels, %d steps\n', ...
            cls{1}, s.backend_ms, s.upload_ms, s.compute_ms, s.download_ms, s.copy_in_ms, s.copy_out_ms, s.result_prep_ms, s.panels, s.steps);
  end
  % X'*X of one object is mirrored (route.mirror); the same product of two objects is not:
  % whether the GPU's kernels alone would give an exactly Hermitian result.
  X = complex (rand (1500, 700), rand (1500, 700));
  H0 = tilemm (X, 'ctranspose', X + 0, 'none', 'backend', 'gpu');
  H = tilemm (X, 'ctranspose', X, 'none', 'backend', 'gpu');
  printf ('X''*X on the GPU: exactly Hermitian unmirrored %d, mirrored %d; max |imag diag| unmirrored %g\n', ...
          isequal (H0, H0'), isequal (H, H'), max (abs (imag (diag (H0)))));" 2>&1 | tee "$out/breakdown.log"

"$top"/tests/sum-counts "$out"/test_cuda.log "$out"/test_blas.log "$out"/xblat3.log "$out"/test_emulated_cuda.log \
  "$out"/test_emulated_panels.log "$out"/test_emulated_panels_blocks.log \
  "$out"/differential_pages.log "$out"/test_pages_gpu.log "$out"/test_executor.log \
  "$out"/test_emulated_exact.log "$out"/differential.log "$out"/sanitizer_*.log "$out"/test_leaks_gpu.log "$out"/bist.log "$out"/interrupt-gpu.log
