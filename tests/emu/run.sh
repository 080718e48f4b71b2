#!/bin/sh
# tests/emu/run.sh — builds src/kernels.cu against the host emulation of CUDA in tests/emu and runs
# test_cuda's kernel cases on it, then the GPU path of transposed operands (test_op_emu), under
# AddressSanitizer and UBSan.  Needs only g++.
#   tests/emu/run.sh [variant]        (default: variants 6 and up)
# Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
set -eu
cd "$(dirname "$0")/../.."
B=${BUILD:-/tmp/tilemm-emu}
mkdir -p "$B"
FLAGS="-std=c++17 -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=undefined -Itests/emu -Isrc -Itests -DTILEMM_VERSION=\"0.1.0\""
for f in emu.cc test_emu.cc; do g++ $FLAGS -c tests/emu/$f -o "$B/${f%.cc}.o" & done
g++ $FLAGS -x c++ -c src/kernels.cu -o "$B/kernels.o" &
for f in status view plan fault; do gcc -std=c11 -O1 -g -fsanitize=address,undefined -Isrc -DTILEMM_VERSION='"0.1.0"' -c src/$f.c -o "$B/$f.o" & done
wait
g++ -fsanitize=address,undefined "$B"/emu.o "$B"/test_emu.o "$B"/kernels.o "$B"/status.o "$B"/view.o "$B"/plan.o "$B"/fault.o -lm -o "$B/test_emu"
# The GPU path of transposed operands (backend_cuda_op.cu, transpose.cu) against the CPU backend.
g++ $FLAGS -c tests/emu/test_op_emu.cc -o "$B/test_op_emu.o" &
for f in transpose backend_cuda_op; do g++ $FLAGS -x c++ -c src/$f.cu -o "$B/$f.o" & done
for f in core backend_cpu; do gcc -std=c11 -O1 -g -fsanitize=address,undefined -Isrc -DTILEMM_VERSION='"0.1.0"' -c src/$f.c -o "$B/$f.o" & done
wait
g++ -fsanitize=address,undefined "$B"/emu.o "$B"/test_op_emu.o "$B"/transpose.o "$B"/backend_cuda_op.o \
  "$B"/kernels.o "$B"/core.o "$B"/backend_cpu.o "$B"/status.o "$B"/view.o "$B"/plan.o "$B"/fault.o -lm -o "$B/test_op_emu"
[ "${BUILD_ONLY:-0}" = 1 ] && exit 0
ASAN_OPTIONS=detect_stack_use_after_return=0 "$B/test_emu" "$@"
ASAN_OPTIONS=detect_stack_use_after_return=0 "$B/test_op_emu"
