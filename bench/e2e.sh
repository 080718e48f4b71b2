#!/bin/bash
# bench/e2e.sh — end to end, from Octave, on the GPU machine: tilemm (A, B) beside Octave's `*`
# (OpenBLAS), the same `*` with NVIDIA's NVBLAS preloaded (its CPU BLAS set to the machine's
# OpenBLAS), and a naive cuBLAS mex (bench/naive_cublas_mex.c), in one run, same sizes; tilemm's
# own time split (upload / compute / download / hand-back, from __tilemm_stats__); the same under
# glibc settings users can make; products streamed under a device limit of a quarter of their
# data; the crossover of "auto" at small sizes; memory held around 1,000 calls; a plot.
#   source .gpu/setup.sh && bench/e2e.sh PKGDIR        (PKGDIR: where tilemm.oct is loaded from)
# Environment: SIZES (Octave vector, default "[1024 2048 4096 8192]"), REPEATS (default 5),
#   PARTS (default "plain nvblas quarter small leak hugetlb tuned noprep plot"), QSIZES (sizes
#   of the "quarter" part, default "[4096 8192]"), SMALL (sizes of the crossover sweep, default
#   "[64 128 192 256 384 512 768 1024]"), VARIANTS ("label:VAR=value,VAR=value;..." extra runs
#   of tilemm under other settings, e.g. "chunks8:TILEMM_STAGING_CHUNKS=8"), SETTINGS_WHAT (what
#   runs under the glibc settings, default "'tilemm'"), PLOTSIZES (tilemm_bench's plot, default
#   "[256 512 1024 2048 4096]"), E2E_TIMEOUT (seconds per Octave run, 300), OUT (default /tmp).
# Prints "e2e LABEL WHAT CLASS N MS GFLOPS RELDIFF UP COMPUTE DOWN HANDBACK" lines, then tables.
#
# Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
set -u
here=$(cd "$(dirname "$0")" && pwd)
pkgdir=$(cd "$1" && pwd)
sizes=${SIZES:-"[1024 2048 4096 8192]"}
repeats=${REPEATS:-5}
parts=${PARTS:-"plain nvblas quarter small leak hugetlb tuned noprep plot"}
qsizes=${QSIZES:-"[4096 8192]"}
small=${SMALL:-"[64 128 192 256 384 512 768 1024]"}
variants=${VARIANTS:-}
plotsizes=${PLOTSIZES:-"[256 512 1024 2048 4096]"}
# Under the glibc settings: tilemm only, or `*` too (SETTINGS_WHAT="'mtimes', 'tilemm'").
settings_what=${SETTINGS_WHAT:-"'tilemm'"}
out=${OUT:-/tmp}
cuda=${CUDA_HOME:-/usr/local/cuda}
work=$(mktemp -d)
has () { case " $parts " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }

mkoctfile --mex -I"$cuda/include" "$here/naive_cublas_mex.c" -L"$cuda/lib64" -lcublas -lcudart \
  -o "$work/naive_cublas_mex.mex" || exit 1

octave () {
  timeout "${E2E_TIMEOUT:-300}" octave-cli --no-gui --norc --quiet --eval "addpath ('$pkgdir'); addpath ('$here'); addpath ('$work'); $1" 2>&1 |
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
# glibc keeping freed memory for reuse: large blocks from the heap, never trimmed.
tuned="glibc.malloc.mmap_threshold=4294967296:glibc.malloc.trim_threshold=4294967296"

{
  has plain && octave "e2e ('plain', $sizes, {'double', 'single'}, $repeats, 'mtimes', 'tilemm', 'naive')"
  has nvblas && NVBLAS_CONFIG_FILE="$work/nvblas.conf" LD_PRELOAD="$cuda/lib64/libnvblas.so" \
    octave "e2e ('nvblas', $sizes, {'double', 'single'}, $repeats, 'mtimes')"
  has quarter && octave "e2e ('quarter', $qsizes, {'double', 'single'}, $repeats, 'gpu', 'quarter')"
  has small && octave "e2e ('small', $small, {'double', 'single'}, $repeats, 'mtimes', 'gpu', 'tilemm')"
  has leak && octave "e2e ('leak', [], {}, 0)"
  has hugetlb && GLIBC_TUNABLES=glibc.malloc.hugetlb=1 \
    octave "e2e ('hugetlb', $sizes, {'double', 'single'}, $repeats, $settings_what)"
  has tuned && GLIBC_TUNABLES=$tuned \
    octave "e2e ('tuned', $sizes, {'double', 'single'}, $repeats, $settings_what)"
  has noprep && TILEMM_HUGEPAGES=0 TILEMM_PREFAULT_THREADS=0 \
    octave "e2e ('noprep', $sizes, {'double', 'single'}, $repeats, 'tilemm')"
  IFS=';' read -r -a extra <<< "$variants"
  for v in "${extra[@]}"; do
    [ -n "$v" ] || continue
    label=${v%%:*}; settings=${v#*:}
    (export ${settings//,/ }; octave "e2e ('$label', $sizes, {'double', 'single'}, $repeats, 'tilemm')")
  done
  has plot && octave "graphics_toolkit ('gnuplot'); tilemm_bench ($plotsizes, {'double', 'single'}, 'repeats', 3, 'plot', '$out/e2e.png')" | sed 's/^/bench /'
} | tee "$out/e2e.txt"

# Table 1 (as before): one row per class and size, ms per contender, tilemm's speed-ups.
awk '
  $1 == "e2e" { key = $4 " " $5; ms[$2 "/" $3 "/" key] = $6; if (!(key in seen)) { seen[key] = 1; order[++n] = key } }
  END {
    print "| class | n | `*` (OpenBLAS) ms | `*` + NVBLAS ms | naive cuBLAS mex ms | tilemm ms | tilemm, hugetlb ms | vs `*` | vs NVBLAS | vs naive |"
    print "|---|---|---|---|---|---|---|---|---|---|"
    for (i = 1; i <= n; i++) {
      k = order[i]; split (k, f, " ")
      t = ms["plain/tilemm/" k]; p = ms["plain/mtimes/" k]; v = ms["nvblas/mtimes/" k]; q = ms["plain/naive/" k]
      if (t == "" || p == "") continue
      printf "| %s | %s | %s | %s | %s | %s | %s | %.1fx | %.2fx | %.2fx |\n", f[1], f[2], p, v, q, t, \
        ms["hugetlb/tilemm/" k], p / t, (v == "" ? 0 : v / t), (q == "" ? 0 : q / t)
    }
  }' "$out/e2e.txt" | tee "$out/e2e-table.md"

# Table 2: tilemm's own time split (plain Octave), and under the glibc settings.
awk '
  $1 == "e2e" && $3 == "tilemm" { key = $4 " " $5; row[$2 "/" key] = $0; if (!(key in seen)) { seen[key] = 1; order[++n] = key } }
  $1 == "e2e" && $3 == "mtimes" { mt[$2 "/" $4 " " $5] = $6 }
  END {
    print ""
    print "| class | n | tilemm ms | upload | compute | download | own (up+comp+down) | hand-back | `*` ms | tilemm, tuned glibc ms | own, tuned | `*`, tuned ms | tilemm, hugetlb ms | tilemm, no page prep ms |"
    print "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
    for (i = 1; i <= n; i++) {
      k = order[i]; split (k, f, " ")
      if (!(("plain/" k) in row)) continue
      split (row["plain/" k], a, " "); split (row["tuned/" k], u, " "); split (row["hugetlb/" k], h, " "); split (row["noprep/" k], z, " ")
      printf "| %s | %s | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %s | %s | %s | %s | %s | %s |\n", f[1], f[2], a[6], a[9], a[10], a[11], \
        a[9] + a[10] + a[11], a[12], mt["plain/" k], u[6], (u[9] == "" ? "" : sprintf ("%.2f", u[9] + u[10] + u[11])), mt["tuned/" k], h[6], z[6]
    }
  }' "$out/e2e.txt" | tee -a "$out/e2e-table.md"

# Table 3: a quarter of the data as the device limit against the in-memory path.
awk '
  $1 == "e2e" && $2 == "quarter" { ms[$3 "/" $4 " " $5] = $6; if (!(($4 " " $5) in seen)) { seen[$4 " " $5] = 1; order[++n] = $4 " " $5 } }
  END {
    if (n == 0) exit
    print ""
    print "| class | n | in memory ms | limit = 1/4 of the data ms | rate vs in memory |"
    print "|---|---|---|---|---|"
    for (i = 1; i <= n; i++) { k = order[i]; split (k, f, " ")
      printf "| %s | %s | %s | %s | %.0f%% |\n", f[1], f[2], ms["gpu/" k], ms["quarter/" k], 100 * ms["gpu/" k] / ms["quarter/" k] }
  }' "$out/e2e.txt" | tee -a "$out/e2e-table.md"

# Table 4: the crossover sweep ("auto" should follow the faster of the two).
awk '
  $1 == "e2e" && $2 == "small" { ms[$3 "/" $4 " " $5] = $6; if (!(($4 " " $5) in seen)) { seen[$4 " " $5] = 1; order[++n] = $4 " " $5 } }
  END {
    if (n == 0) exit
    print ""
    print "| class | n | `*` ms | tilemm \"gpu\" ms | tilemm \"auto\" ms | faster |"
    print "|---|---|---|---|---|---|"
    for (i = 1; i <= n; i++) { k = order[i]; split (k, f, " ")
      printf "| %s | %s | %s | %s | %s | %s |\n", f[1], f[2], ms["mtimes/" k], ms["gpu/" k], ms["tilemm/" k], \
        (ms["gpu/" k] + 0 < ms["mtimes/" k] + 0 ? "gpu" : "`*`") }
  }' "$out/e2e.txt" | tee -a "$out/e2e-table.md"
