#!/bin/bash
# bench/blas_octave.sh — Octave's own `*` (and A'*A) with no script changed, on the GPU machine:
# without a preloaded library (the machine's OpenBLAS), with NVIDIA's NVBLAS preloaded (its CPU
# BLAS set to the machine's OpenBLAS), with tilemm's libtilemm_blas.so preloaded (also with
# glibc's huge pages for malloc, GLIBC_TUNABLES=glibc.malloc.hugetlb=1, which makes Octave's own
# zero fill of the result cheaper), and the direct call tilemm (A, B); double and single at
# SIZES, A'*A at SYRK_SIZES; medians of REPEATS calls on fresh operands; then a table, and the
# split of one preloaded call (TILEMM_BLAS_TIMES=1: the library's decide, copies, scratch, run,
# update) beside Octave's allocation of the result (blas_octave.m, "alloc").
#   source .gpu/setup.sh && bench/blas_octave.sh PKGDIR
# PKGDIR: the installed package's architecture folder (tilemm.oct and libtilemm_blas.so; in
# Octave, fileparts (tilemm_info ().blas_library)), or src/ of a build.
# Environment: SIZES (default "[1024 4096 8192]"), SYRK_SIZES (default "[4096 8192]"), REPEATS
#   (default 5), PARTS (default "plain nvblas tilemm hugetlb split"), OUT (default /tmp),
#   BLAS_TIMEOUT (seconds per Octave run, 600).
# Prints "blas LABEL WHAT CLASS N MEDIAN_MS MIN_MS RELDIFF" lines (blas_octave.m), then a table.
#
# Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
set -u
here=$(cd "$(dirname "$0")" && pwd)
pkgdir=$(cd "${1:?usage: bench/blas_octave.sh PKGDIR}" && pwd)
lib="$pkgdir/libtilemm_blas.so"
[ -f "$lib" ] || { echo "blas_octave.sh: no $lib"; exit 1; }
sizes=${SIZES:-"[1024 4096 8192]"}
syrk_sizes=${SYRK_SIZES:-"[4096 8192]"}
repeats=${REPEATS:-5}
parts=${PARTS:-"plain nvblas tilemm hugetlb split"}
out=${OUT:-/tmp}
cuda=${CUDA_HOME:-/usr/local/cuda}
work=$(mktemp -d)
log="$out/blas_octave-$(date -u +%Y%m%d-%H%M%S).txt"
has () { case " $parts " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }

octave () {
  timeout "${BLAS_TIMEOUT:-600}" octave-cli --no-gui --norc --quiet \
    --eval "addpath ('$pkgdir'); addpath ('$here'); $1" 2>&1 | tee -a "$log"
}
run_all () {   # $1 label, $2 Octave's list of what to time
  octave "blas_octave ('$1', $sizes, {'double', 'single'}, $repeats, $2, $syrk_sizes)"
}

echo "blas_octave.sh: $(date -u), $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1), library $lib" | tee "$log"
# The library's own record of where the products ran (one record per process).
trace="$work/trace"
if has plain; then
  run_all plain "{'alloc', 'mtimes', 'syrk'}"
fi
if has nvblas; then
  # NVBLAS sends Octave's own dgemm/sgemm/dsyrk... to the GPU; everything else to the CPU BLAS.
  cpu_blas=$(ldconfig -p | awk '/libopenblas\.so\.0 /{print $NF; exit}')
  cat > "$work/nvblas.conf" <<CONF
NVBLAS_CPU_BLAS_LIB $cpu_blas
NVBLAS_GPU_LIST ALL
NVBLAS_AUTOPIN_MEM_ENABLED
NVBLAS_LOGFILE $work/nvblas.log
CONF
  echo "NVBLAS CPU BLAS: $cpu_blas" | tee -a "$log"
  NVBLAS_CONFIG_FILE="$work/nvblas.conf" LD_PRELOAD="$cuda/lib64/libnvblas.so" \
    run_all nvblas "{'mtimes', 'syrk'}"
fi
if has tilemm; then
  TILEMM_BLAS_TRACE="$trace" LD_PRELOAD="$lib" run_all tilemm_blas "{'mtimes', 'syrk'}"
  run_all direct "{'tilemm'}"
fi
if has hugetlb; then
  GLIBC_TUNABLES=glibc.malloc.hugetlb=1 TILEMM_BLAS_TRACE="$trace" LD_PRELOAD="$lib" \
    run_all tilemm_blas_hugetlb "{'alloc', 'mtimes', 'syrk'}"
fi
if has split; then
  # One call of each kind, the library's split on stderr, beside Octave's whole `*`.
  echo "== the split of one preloaded call (TILEMM_BLAS_TIMES=1)" | tee -a "$log"
  TILEMM_BLAS_TIMES=1 LD_PRELOAD="$lib" octave "
    for n = $sizes
      for cls = {'double', 'single'}
        A = rand (n, cls{1}); B = rand (n, cls{1});
        C = A * B; clear C;   # warm-up
        tic; C = A * B; printf ('split: whole %s * at %d: %.2f ms\n', cls{1}, n, 1e3 * toc); clear C;
        tic; C = A' * A; printf ('split: whole %s A''*A at %d: %.2f ms\n', cls{1}, n, 1e3 * toc); clear C;
        tic; C = zeros (n, cls{1}); printf ('split: Octave''s result allocation and zero fill at %d: %.2f ms\n', n, 1e3 * toc); clear C;
      endfor
    endfor"
fi
if [ -f "$trace" ]; then
  echo "== TILEMM_BLAS_TRACE" | tee -a "$log"
  tee -a "$log" < "$trace"
fi

# The table: medians in ms.
echo | tee -a "$log"
list () { echo "$1" | tr -d '[],'; }
awk -v sizes="$(list "$sizes")" -v syrk_sizes="$(list "$syrk_sizes")" '
  $1 == "blas" { ms[$2 "/" $3 "/" $4 "/" $5] = $6 }
  END {
    print "| what | class | n | `*` (OpenBLAS) | `*` + NVBLAS | `*` + libtilemm_blas | same, hugetlb | tilemm (A, B) | Octave alloc | lib vs NVBLAS | lib / direct |"
    print "|---|---|---|---|---|---|---|---|---|---|---|"
    split("mtimes syrk", ops, " ")
    for (o = 1; o <= 2; o++) for (c = 0; c < 2; c++) {
      cls = c ? "single" : "double"
      m = split(o == 1 ? sizes : syrk_sizes, sz, " ")
      for (i = 1; i <= m; i++) {
        s = sz[i]; key = ops[o] "/" cls "/" s
        p = ms["plain/" key]; v = ms["nvblas/" key]; t = ms["tilemm_blas/" key]
        h = ms["tilemm_blas_hugetlb/" key]; d = ms["direct/tilemm/" cls "/" s]; a = ms["plain/alloc/" cls "/" s]
        printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", o == 2 ? "A\x27*A" : "A*B", cls, s, p, v, t, h,
          o == 2 ? "" : d, a, (v != "" && t > 0) ? sprintf("%.2fx", v / t) : "",
          (o == 1 && d > 0 && t != "") ? sprintf("%.2fx", t / d) : ""
      }
    }
  }' "$log" | tee -a "$log.table"
cat "$log.table" >> "$log"
echo "blas_octave.sh: log in $log"
rm -rf "$work"
