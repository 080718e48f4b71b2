#!/bin/sh
# profile-single.sh — is single's FFMA loop issue-bound?  Nsight Compute (ncu) on ONE launch each of
# variant 6 (single, 128×128, 8×8 per thread), variant 13 (single, 128×256, 8×16 per thread),
# variant 10 (double on the FP64 tensor cores: the kernel that reaches 90% of cuBLAS, for
# contrast) and cuBLAS SGEMM, at n = 4096 (N to change it).  Sections: SpeedOfLight,
# ComputeWorkloadAnalysis, WarpStateStats (stall reasons), InstructionStats, SchedulerStats,
# MemoryWorkloadAnalysis, plus LaunchStats and Occupancy (registers, shared memory, waves).
# Each launch's details page as text in $OUT/ncu-<name>.txt, its report in $OUT/ncu-<name>.ncu-rep,
# bench_kernels's own lines (the check of each result) in $OUT/ncu-<name>.log.  About 2–3 minutes
# with the build, under 1 with --prebuilt.
#
#   bench/profile-single.sh [--build-only | --prebuilt]
#
# Builds bench_kernels into $BUILD (the same flags as bench/run-kernels.sh; only what the benchmark
# links) and profiles; --build-only stops after the build (a machine with nvcc and no GPU);
# --prebuilt uses $BUILD/bench_kernels as left there by --build-only or by
# `bench/run-kernels.sh --build-only`.  NCU names the ncu binary (default: ncu on PATH, else $CUDA_HOME/bin/ncu);
# without one the script says so and stops (exit 0: nothing to profile with is not a failure of
# the kernels).  NCU_TIMEOUT bounds each ncu run (seconds, default 90).  Clocks are left alone
# (--clock-control none), as in round 1's profile (bench/NOTES.md).
#
# Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
set -eu
cd "$(dirname "$0")/.."
. src/sources.sh    # the lists of src/sources.mk
. bench/build-common.sh   # CUDA_HOME, NVCC, ARCH (default sm_90) and the compile helpers
OUT=${OUT:-bench/out}
BUILD=${BUILD:-$(mktemp -d)}
N=${N:-4096}
mkdir -p "$OUT" "$BUILD"

build=1
run=1
case ${1:-} in
  --prebuilt) build=0 ;;
  --build-only) run=0 ;;
  "") ;;
  *) echo "usage: $0 [--build-only | --prebuilt]"; exit 2 ;;
esac

if [ $build = 1 ]; then
  bench_setup
  echo "== build bench_kernels ($NVCC $NVFLAGS)"
  # The core (src/sources.mk) as an archive: the benchmark links what the kernels need of it.
  bench_core TILEMM_CORE > /dev/null
  : > "$BUILD/ptxas.log"
  kernels=$(bench_cu 1 TILEMM_KERNELS)
  "$NVCC" $NVFLAGS -Itests bench/bench_kernels.cu $kernels "$BUILD/libcore.a" -lcublas \
    -o "$BUILD/bench_kernels"
  cp "$BUILD/ptxas.log" "$OUT/ptxas.log"
fi
[ $run = 1 ] || exit 0
if [ ! -x "$BUILD/bench_kernels" ]; then
  echo "no $BUILD/bench_kernels (build it: bench/run-kernels.sh --build-only with BUILD=$BUILD)"
  exit 2
fi

NCU=${NCU:-$(command -v ncu || true)}
if [ -z "$NCU" ] && [ -x "$CUDA_HOME/bin/ncu" ]; then
  NCU=$CUDA_HOME/bin/ncu
fi
if [ -z "$NCU" ]; then
  echo "ncu (Nsight Compute CLI) not found on PATH nor in $CUDA_HOME/bin: nothing profiled"
  exit 0
fi
echo "== $("$NCU" --version | tail -1)"

SECTIONS="--section SpeedOfLight --section ComputeWorkloadAnalysis --section WarpStateStats
  --section InstructionStats --section SchedulerStats --section MemoryWorkloadAnalysis
  --section LaunchStats --section Occupancy"
# The sections' tables too (stall reasons, instruction mix), where this ncu can print them.
DETAILS=""
if "$NCU" --help 2> /dev/null | grep -q -- --print-details; then
  DETAILS="--print-details all"
fi

status=0
# profile NAME TYPES VARIANTS WHAT: one launch of each chosen kernel (bench_kernels --profile:
# between cudaProfilerStart and Stop, after an unprofiled check of the same product).
profile ()
{
  name=$1
  echo "== $name: ncu on one launch, n = $N"
  rm -f "$OUT/ncu-$name.ncu-rep"
  if timeout "${NCU_TIMEOUT:-90}" "$NCU" --profile-from-start off --clock-control none $SECTIONS \
       --export "$OUT/ncu-$name" --force-overwrite \
       "$BUILD/bench_kernels" --types "$2" --variants "$3" --sizes "$N" --profile "$4" \
       > "$OUT/ncu-$name.log" 2>&1; then
    "$NCU" --import "$OUT/ncu-$name.ncu-rep" --page details $DETAILS > "$OUT/ncu-$name.txt" 2>&1 || true
    grep -E "gemm .*profiled" "$OUT/ncu-$name.log" || true
    # The lines that answer "issue-bound or not", for a first look.
    grep -E "^  [a-zA-Z_]|Issue Slots Busy|Issued Ipc Active|Executed Ipc Active|No Eligible|Eligible Warps|Active Warps Per Scheduler|Registers Per Thread|Achieved Occupancy|Warp Cycles Per Issued|Compute \(SM\) Throughput|Memory Throughput|Duration|SM Frequency" \
      "$OUT/ncu-$name.txt" | head -30 || true
  else
    echo "ncu failed or timed out for $name (see $OUT/ncu-$name.log):"
    tail -5 "$OUT/ncu-$name.log"
    status=1
  fi
}

profile v6 s 6 ours
profile v13 s 13 ours
profile v10-double d 10 ours
profile cublas-sgemm s 0 cublas
exit $status
