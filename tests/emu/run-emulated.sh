#!/bin/sh
# tests/emu/run-emulated.sh — builds the GPU side of the emulated precision (src/cuda/emulated_scheme.cu
# on the kernels of src/kernels/emulated_cuda.cu and kernels_imma.cuh) with tests/test_emulated_cuda.cu
# against the host emulation of CUDA in
# tests/emu (the int8 mma.sync and ldmatrix emulated per their PTX fragment layouts) and runs it
# under AddressSanitizer and UBSan.  Needs only g++.  src/common/emulated_plan.c and src/cpu/emulated_cpu.c are the CPU side (tables, plan,
# the references the GPU is compared with).
# Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
set -eu
cd "$(dirname "$0")/../.."
. src/sources.sh    # the lists of src/sources.mk
B=${BUILD:-/tmp/tilemm-emu-emulated}
mkdir -p "$B"
SAN="-fsanitize=address,undefined -fno-sanitize-recover=undefined"
INC=$(tilemm_includes | tr '\n' ' ')
# A source of src/FOLDER/ is compiled with its layer's folders only (tilemm_includes_of: the
# build keeps the layers); the programs of tests/ with every folder.
SRC_FLAGS="-std=c++17 -O1 -g $SAN -Itests/emu -DTILEMM_VERSION=$(tilemm_version)"
FLAGS="$SRC_FLAGS $INC -Itests"
CFLAGS="-std=c11 -O1 -g $SAN -pthread -DTILEMM_VERSION=$(tilemm_version)"
g++ $FLAGS -c tests/emu/emu.cc -o "$B/emu.o" &
g++ $FLAGS -x c++ -c tests/test_emulated_cuda.cu -o "$B/test_emulated_cuda.o" &
# The scheme's stages (the test includes the kernels and their launchers itself).
g++ $SRC_FLAGS $(tilemm_includes_of "$(tilemm_source emulated_scheme.cu)") -x c++ -c "$(tilemm_source emulated_scheme.cu)" -o "$B/emulated_scheme.o" &
# The core and the CPU side (the emulated plan and CPU scheme: tables, plan, the CPU references),
# compiled once into an archive of which the program links what it needs; the stand-in for the
# executor (TILEMM_EXEC) finds no GPU table there, which the emulation never reaches.
core=""
for f in $(tilemm_sources TILEMM_CORE TILEMM_EXEC TILEMM_CPU); do
  o="$B/$(basename "${f%.c}").o"
  gcc $CFLAGS $(tilemm_includes_of "$f") -c "$f" -o "$o" &
  core="$core $o"
done
wait
rm -f "$B/libcore.a"
ar rcs "$B/libcore.a" $core
g++ $SAN -pthread "$B"/emu.o "$B"/test_emulated_cuda.o "$B"/emulated_scheme.o "$B/libcore.a" -lm \
  -o "$B/test_emulated_cuda"
[ "${BUILD_ONLY:-0}" = 1 ] && exit 0
ASAN_OPTIONS=detect_stack_use_after_return=0 "$B/test_emulated_cuda" "$@"
