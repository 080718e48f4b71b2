#!/bin/sh
# tests/emu/run-emulated.sh — builds the GPU side of the emulated precision (src/emulated_cuda.cu,
# src/kernels_imma.cuh) with tests/test_emulated_cuda.cu against the host emulation of CUDA in
# tests/emu (the int8 mma.sync and ldmatrix emulated per their PTX fragment layouts) and runs it
# under AddressSanitizer and UBSan.  Needs only g++.  src/emulated.c is the CPU side (tables, plan,
# the references the GPU is compared with).
# Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
set -eu
cd "$(dirname "$0")/../.."
B=${BUILD:-/tmp/tilemm-emu-emulated}
mkdir -p "$B"
SAN="-fsanitize=address,undefined -fno-sanitize-recover=undefined"
FLAGS="-std=c++17 -O1 -g $SAN -Itests/emu -Isrc -Itests -DTILEMM_VERSION=\"0.1.0\""
CFLAGS="-std=c11 -O1 -g $SAN -Isrc -DTILEMM_VERSION=\"0.1.0\""
contract=src/emulated.c
g++ $FLAGS -c tests/emu/emu.cc -o "$B/emu.o" &
g++ $FLAGS -x c++ -c tests/test_emulated_cuda.cu -o "$B/test_emulated_cuda.o" &
for f in status view fault exact_dot; do gcc $CFLAGS -c src/$f.c -o "$B/$f.o" & done
gcc $CFLAGS -c "$contract" -o "$B/contract.o" &
wait
g++ $SAN "$B"/emu.o "$B"/test_emulated_cuda.o "$B"/status.o "$B"/view.o "$B"/fault.o "$B"/exact_dot.o "$B"/contract.o \
  -lm -o "$B/test_emulated_cuda"
[ "${BUILD_ONLY:-0}" = 1 ] && exit 0
ASAN_OPTIONS=detect_stack_use_after_return=0 "$B/test_emulated_cuda" "$@"
