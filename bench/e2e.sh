#!/bin/bash
# bench/e2e.sh — end to end, from Octave, on the GPU machine: tilemm (A, B) beside Octave's `*`
# (OpenBLAS), the same `*` with NVIDIA's NVBLAS preloaded (its CPU BLAS set to the machine's
# OpenBLAS), and a naive cuBLAS mex (bench/naive_cublas_mex.c), in one run, same sizes.
#   source .gpu/setup.sh && bench/e2e.sh PKGDIR        (PKGDIR: where tilemm.oct is loaded from)
# Environment: SIZES (Octave vector, default "[1024 2048 4096 8192]"), REPEATS (default 5).
# Prints "e2e LABEL WHAT CLASS N MS GFLOPS RELDIFF" lines, then a Markdown table.
#
# Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
set -u
here=$(cd "$(dirname "$0")" && pwd)
pkgdir=$(cd "$1" && pwd)
sizes=${SIZES:-"[1024 2048 4096 8192]"}
repeats=${REPEATS:-5}
out=${OUT:-/tmp}
cuda=${CUDA_HOME:-/usr/local/cuda}
work=$(mktemp -d)

mkoctfile --mex -I"$cuda/include" "$here/naive_cublas_mex.c" -L"$cuda/lib64" -lcublas -lcudart \
  -o "$work/naive_cublas_mex.mex" || exit 1

octave () {
  octave-cli --no-gui --norc --quiet --eval "addpath ('$pkgdir'); addpath ('$here'); addpath ('$work'); $1" 2>&1 |
    grep -v "^error: ignoring const execution_exception"
}

# NVBLAS sends Octave's own dgemm/sgemm to the GPU; everything else goes to the CPU BLAS.
cpu_blas=$(ldconfig -p | awk '/libopenblas\.so\.0 /{print $NF; exit}')
[ -n "$cpu_blas" ] || cpu_blas=$(readlink -f "$(ldconfig -p | awk '/libblas\.so\.3 /{print $NF; exit}')")
cat > "$work/nvblas.conf" <<CONF
NVBLAS_CPU_BLAS_LIB $cpu_blas
NVBLAS_GPU_LIST ALL
NVBLAS_AUTOPIN_MEM_ENABLED
NVBLAS_LOGFILE $work/nvblas.log
CONF
echo "NVBLAS CPU BLAS: $cpu_blas"

{
  octave "e2e ('plain', $sizes, {'double', 'single'}, $repeats, 'mtimes', 'tilemm', 'naive')"
  GLIBC_TUNABLES=glibc.malloc.hugetlb=1 \
    octave "e2e ('hugetlb', $sizes, {'double', 'single'}, $repeats, 'mtimes', 'tilemm')"
  NVBLAS_CONFIG_FILE="$work/nvblas.conf" LD_PRELOAD="$cuda/lib64/libnvblas.so" \
    octave "e2e ('nvblas', $sizes, {'double', 'single'}, $repeats, 'mtimes')"
} | tee "$out/e2e.txt"

# The table: one row per class and size, ms (and GF/s) per contender, tilemm's speed-ups.
awk '
  $1 == "e2e" { key = $4 " " $5; ms[$2 "/" $3 "/" key] = $6; if (!(key in seen)) { seen[key] = 1; order[++n] = key } }
  END {
    print "| class | n | `*` (OpenBLAS) ms | `*` + NVBLAS ms | naive cuBLAS mex ms | tilemm ms | tilemm, hugetlb ms | vs `*` | vs NVBLAS | vs naive |"
    print "|---|---|---|---|---|---|---|---|---|---|"
    for (i = 1; i <= n; i++) {
      k = order[i]; split (k, f, " ")
      t = ms["plain/tilemm/" k]; p = ms["plain/mtimes/" k]; v = ms["nvblas/mtimes/" k]; q = ms["plain/naive/" k]
      printf "| %s | %s | %s | %s | %s | %s | %s | %.1fx | %.2fx | %.2fx |\n", f[1], f[2], p, v, q, t, \
        ms["hugetlb/tilemm/" k], p / t, v / t, q / t
    }
  }' "$out/e2e.txt" | tee "$out/e2e-table.md"
