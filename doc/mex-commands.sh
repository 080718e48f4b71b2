#!/bin/sh
# doc/mex-commands.sh mex|mexcuda [SRCDIR] — writes the MATLAB chapter's command lines (texinfo,
# included by doc/tilemm.texi) from SRCDIR/sources.mk (default: src/ beside this folder), the list
# that src/Makefile.in and tilemm_build read too, so the manual cannot name other files.
#   mex:     the CPU build with mex, then the GPU build with nvcc and mex
#   mexcuda: the GPU build with mexcuda
# The paths printed are from the tree's root (src/...), as the manual's reader runs them.
#
# Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
set -eu
what=$1
srcdir=${2:-$(dirname "$0")/../src}
TILEMM_SRC=$srcdir/
. "$srcdir/sources.sh"
# List files from the tree's root, wrapped as MATLAB continuation lines ("...").
root () { sed "s|^$srcdir/|src/|"; }
wrap () {
  root | awk -v indent="    " '
    { if (line != "" && length(line) + length($0) > 88) { print indent line " ..."; line = "" }
      line = (line == "" ? $0 : line " " $0) }
    END { if (line != "") print indent line }'
}
common=$(TILEMM_SRC=$srcdir/ tilemm_sources TILEMM_CORE TILEMM_EXEC TILEMM_CPU TILEMM_MEX_COMMON)
gateway=$(tilemm_source tilemm.c | root)
includes=$(tilemm_includes | sed "s|^-I$srcdir|-Isrc|" | tr '\n' ' ' | sed 's/ $//')
flags="-R2018a -DTILEMM_VERSION=@value{VERSION} $includes"
threads="'CFLAGS=\$CFLAGS -std=c11 -pthread' 'LDFLAGS=\$LDFLAGS -pthread'"
arch="-gencode arch=compute_90,code=sm_90"
cuda=$(tilemm_sources TILEMM_CUDA_HOST TILEMM_DEVICE TILEMM_KERNELS)
hopper=$(tilemm_sources TILEMM_KERNELS_SM90A)
hopper_flags="-gencode arch=compute_90a,code=sm_90a -DTILEMM_WGMMA_BUILT=1"

echo "@c Generated from src/sources.mk by doc/mex-commands.sh $what: edit those, not this file."
echo "@example"
case $what in
  mex)
    echo "% CPU backend"
    echo "mex $flags ..."
    echo "    $threads ..."
    echo "    -outdir src -output tilemm $gateway ..."
    echo "$common" | wrap
    echo
    echo "% GPU path: compile the CUDA files with nvcc, then link them in as well"
    for f in $cuda; do
      o=$(echo "$f" | root | sed 's/\.cu$/.o/')
      echo "!nvcc -std=c++17 -O3 $arch -Xcompiler -fPIC -DTILEMM_VERSION=@value{VERSION} $includes -c $(echo "$f" | root) -o $o"
    done
    for f in $hopper; do
      o=$(echo "$f" | root | sed 's/\.cu$/.o/')
      echo "!nvcc -std=c++17 -O3 $arch $hopper_flags -Xcompiler -fPIC -DTILEMM_VERSION=@value{VERSION} $includes -c $(echo "$f" | root) -o $o"
    done
    echo "mex $flags ..."
    echo "    $threads ..."
    echo "    -outdir src -output tilemm $gateway ..."
    { echo "$common"; printf '%s\n%s\n' "$cuda" "$hopper" | sed 's/\.cu$/.o/'; } | wrap | sed '$s/$/ .../'
    echo "    -L/usr/local/cuda/lib64 -lcudart_static -ldl -lrt -lpthread -lstdc++"
    ;;
  mexcuda)
    echo "mexcuda $flags ..."
    echo "    'NVCCFLAGS=-std=c++17 -O3 $arch' ..."
    echo "    $threads ..."
    echo "    -outdir src -output tilemm $gateway ..."
    { echo "$common"; echo "$cuda"; } | wrap
    ;;
  *) echo "usage: $0 mex|mexcuda [SRCDIR]" >&2; exit 2 ;;
esac
echo "@end example"
