#!/bin/sh
# tests/emu/run.sh — builds src/kernels/kernels.cu against the host emulation of CUDA in tests/emu and runs
# test_cuda's kernel cases on it, under AddressSanitizer and UBSan.  Needs only g++.  (The GPU path
# of transposed operands now runs in the executor, src/cuda/, whose runtime calls this
# emulation does not cover: test_cuda and tests/differential.sh check it on the GPU.)
#   tests/emu/run.sh [variant]        (default: variants 6 and up)
# Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
set -eu
cd "$(dirname "$0")/../.."
. src/sources.sh    # the lists of src/sources.mk
B=${BUILD:-/tmp/tilemm-emu}
mkdir -p "$B"
SAN="-fsanitize=address,undefined -fno-sanitize-recover=undefined"
INC=$(tilemm_includes | tr '\n' ' ')
# A source of src/FOLDER/ is compiled with its layer's folders only (tilemm_includes_of: the
# build keeps the layers); the programs of tests/ with every folder.
SRC_FLAGS="-std=c++17 -O1 -g $SAN -Itests/emu -Ibench -DTILEMM_BENCH_VARIANTS=1 -DTILEMM_VERSION=$(tilemm_version)"
FLAGS="$SRC_FLAGS $INC -Itests"
CFLAGS="-std=c11 -O1 -g $SAN -pthread -DTILEMM_VERSION=$(tilemm_version)"
obj () { echo "$B/$(basename "${1%.*}").o"; }
for f in emu.cc test_emu.cc; do g++ $FLAGS -c tests/emu/$f -o "$(obj $f)" & done
# The kernels and the GPU path of transposed operands, on the emulation.
kernels=""
for f in $(tilemm_sources TILEMM_KERNELS); do
  g++ $SRC_FLAGS $(tilemm_includes_of "$f") -x c++ -c "$f" -o "$(obj "$f")" &
done
for f in $(tilemm_sources TILEMM_KERNELS); do kernels="$kernels $(obj "$f")"; done
# The core and the CPU backend, compiled once into an archive: each program links what it needs.
core=""
for f in $(tilemm_sources TILEMM_CORE TILEMM_EXEC TILEMM_CPU); do
  gcc $CFLAGS $(tilemm_includes_of "$f") -c "$f" -o "$(obj "$f")" &
  core="$core $(obj "$f")"
done
wait
rm -f "$B/libcore.a"
ar rcs "$B/libcore.a" $core
g++ $SAN -pthread "$B"/emu.o "$B"/test_emu.o $kernels "$B/libcore.a" -lm -o "$B/test_emu"
[ "${BUILD_ONLY:-0}" = 1 ] && exit 0
ASAN_OPTIONS=detect_stack_use_after_return=0 "$B/test_emu" "$@"
