#!/bin/sh
# build-all.sh — every benchmark program under bench/ compiled and linked into $BUILD, nothing
# run: what a machine with nvcc and no GPU can check (tests/bench-build.sh runs it in CI, so that
# a change that breaks a benchmark is red), and the GPU machine's one build command.
#
#   BUILD=DIR bench/build-all.sh        (BUILD default: a new temporary folder, printed)
#
# The programs, each built as the script that runs it builds it:
#   test_cuda, bench_kernels              bench/run-kernels.sh --build-only
#   test_emulated_cuda, bench_emulated    bench/run-emulated.sh --build-only
#   bench_kernels (profile)               bench/profile-single.sh --build-only
#   hostmem, fresh_probe                  nvcc, as their headers say (fresh_probe: bench/fresh.sh)
#   blas_latency, blas_strided, syrk_mirror, fresh_pages  cc, as their headers say (blas_latency: -lblas)
#   naive_cublas_mex                      mkoctfile --mex, as bench/e2e.sh builds it
# The three scripts build into the one $BUILD with BENCH_REUSE=1 (bench/build-common.sh), so the
# kernels are compiled once; the standalone programs build beside them meanwhile.  Every
# bench/*.c and bench/*.cu must be one of these: a program without a build here is a failure.
#
# Prints one line a program: "built NAME", "FAILED NAME" (its compiler's output in
# $BUILD/NAME.log, shown), or "skipped NAME: why" (no nvcc, no mkoctfile, no BLAS to link).
# Exit status 1 when one failed.  ARCH (default sm_90) as in bench/build-common.sh.
#
# Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
set -u
cd "$(dirname "$0")/.."
. src/sources.sh
. bench/build-common.sh   # CUDA_HOME, NVCC, ARCH
BUILD=${BUILD:-$(mktemp -d)}
OUT=$BUILD/out   # the scripts' logs (ptxas.log, sass-mix.txt), out of the tree
export BUILD OUT BENCH_REUSE=1
mkdir -p "$BUILD"
echo "build-all: into $BUILD"
status=0

# The programs this script builds, by source: each bench/*.c and bench/*.cu must be named here.
PROGRAMS="bench_kernels.cu bench_emulated.cu hostmem.cu fresh_probe.cu blas_latency.c
  blas_strided.c syrk_mirror.c naive_cublas_mex.c fresh_pages.c"
for f in bench/*.c bench/*.cu; do
  case " $(echo $PROGRAMS) " in
    *" ${f#bench/} "*) ;;
    *) echo "FAILED ${f#bench/}: a benchmark program that bench/build-all.sh does not build"
       status=1 ;;
  esac
done

# report NAME LOG STATUS: the program's line, its log shown when it failed.
report () {
  if [ "$3" = 0 ]; then
    echo "built $1"
  else
    echo "FAILED $1"
    tail -n 40 "$2" | sed 's/^/  /'
    status=1
  fi
}

# script NAME... -- SCRIPT ARGS: a build script's run, each NAME counted by whether it left it in
# $BUILD (a script that fails after building them all: counted once more, as itself).
script () {
  names=""
  while [ "$1" != -- ]; do names="$names $1"; shift; done
  shift
  log="$BUILD/$(basename "$1" .sh).log"
  for name in $names; do rm -f "$BUILD/$name"; done
  "$@" > "$log" 2>&1
  st=$?
  all=1
  for name in $names; do
    if [ -x "$BUILD/$name" ]; then
      report "$name ($1)" "$log" 0
    else
      report "$name ($1)" "$log" 1
      all=0
    fi
  done
  if [ "$st" != 0 ] && [ "$all" = 1 ]; then
    report "$1 (exit status $st)" "$log" 1
  fi
}

have_nvcc=0
[ -x "$NVCC" ] && have_nvcc=1

# The standalone programs, in the background while the scripts build.
standalone () {
  if [ $have_nvcc = 1 ]; then
    "$NVCC" -O2 -std=c++17 -arch="$ARCH" -Xcompiler -fopenmp bench/hostmem.cu \
      -o "$BUILD/hostmem" > "$BUILD/hostmem.log" 2>&1
    report hostmem "$BUILD/hostmem.log" $?
    "$NVCC" -O2 -std=c++17 -arch="$ARCH" -Xcompiler -fopenmp bench/fresh_probe.cu \
      -o "$BUILD/fresh_probe" > "$BUILD/fresh_probe.log" 2>&1
    report fresh_probe "$BUILD/fresh_probe.log" $?
  else
    echo "skipped hostmem: no nvcc ($NVCC)"
    echo "skipped fresh_probe: no nvcc ($NVCC)"
  fi
  ${CC:-cc} -O2 -std=c11 -Wall bench/syrk_mirror.c -o "$BUILD/syrk_mirror" > "$BUILD/syrk_mirror.log" 2>&1
  report syrk_mirror "$BUILD/syrk_mirror.log" $?
  ${CC:-cc} -O2 -std=c11 -Wall -pthread bench/fresh_pages.c -o "$BUILD/fresh_pages" \
    > "$BUILD/fresh_pages.log" 2>&1
  report fresh_pages "$BUILD/fresh_pages.log" $?
  if echo 'int main(void){return 0;}' | ${CC:-cc} -x c - -lblas -o "$BUILD/has_blas" 2> /dev/null; then
    ${CC:-cc} -O2 -std=c11 -Wall bench/blas_latency.c -lblas -o "$BUILD/blas_latency" \
      > "$BUILD/blas_latency.log" 2>&1
    report blas_latency "$BUILD/blas_latency.log" $?
    ${CC:-cc} -O2 -std=c11 -Wall bench/blas_strided.c -lblas -o "$BUILD/blas_strided" \
      > "$BUILD/blas_strided.log" 2>&1
    report blas_strided "$BUILD/blas_strided.log" $?
  else
    echo "skipped blas_latency: no BLAS to link (-lblas)"
  fi
  if [ $have_nvcc = 0 ]; then
    echo "skipped naive_cublas_mex: no nvcc ($NVCC): no CUDA toolkit to link"
  elif ! command -v "${MKOCTFILE:-mkoctfile}" > /dev/null; then
    echo "skipped naive_cublas_mex: no mkoctfile"
  else
    ( cd "$BUILD" && "${MKOCTFILE:-mkoctfile}" --mex -I"$CUDA_HOME/include" \
        "$OLDPWD/bench/naive_cublas_mex.c" -L"$CUDA_HOME/lib64" -lcublas -lcudart \
        -o naive_cublas_mex.mex ) > "$BUILD/naive_cublas_mex.log" 2>&1
    report naive_cublas_mex "$BUILD/naive_cublas_mex.log" $?
  fi
  [ "$status" = 0 ]
}
standalone > "$BUILD/standalone.out" 2>&1 &
standalone_pid=$!

if [ $have_nvcc = 1 ]; then
  script test_cuda bench_kernels -- bench/run-kernels.sh --build-only
  script test_emulated_cuda bench_emulated -- bench/run-emulated.sh --build-only
  script bench_kernels -- bench/profile-single.sh --build-only
else
  for name in test_cuda bench_kernels test_emulated_cuda bench_emulated "bench_kernels (profile)"; do
    echo "skipped $name: no nvcc ($NVCC)"
  done
fi
wait "$standalone_pid" || status=1
cat "$BUILD/standalone.out"
exit $status
