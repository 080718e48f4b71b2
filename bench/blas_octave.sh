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
# Two parts beside the default ones (each prints its own table):
#   sweep    Octave's `*` without and with the library preloaded, double and single, square at
#            SWEEP_SIZES (default 1 2 3 8 16 31 64 100 128 256 512 1000 1024 2048 4096 8192
#            16384), medians of SWEEP_REPEATS (5) fresh samples, sizes from SWEEP_ONCE (16384) up
#            timed once; small products timed as loops of calls (blas_octave.m, "sweep"); the
#            ratio with/without, flagged where the library is more than 5% slower.  About 1.5
#            minutes on the H100 machine (16 cores; estimated from the 2026-11-25 run), most of it
#            `*` without the library at 8192 (2.2 s double) and 16384 (~18 s once) and making the
#            operands.
#   hugetlb  A*B, A'*A and Octave's allocation of the result at HUGETLB_SIZES (default [4096
#            8192]), double and single, REPEATS each, with and without GLIBC_TUNABLES=
#            glibc.malloc.hugetlb=1 (glibc >= 2.35: malloc madvises its large chunks for
#            transparent huge pages), each without and with the library preloaded; prints the
#            machine's THP settings, the glibc version and each process's AnonHugePages after a
#            fresh 8192x8192 zeros.  About 4 minutes on the H100 machine (estimated from the
#            2026-11-25 run: `*` without the library, 2.2 s at 8192 double, and A'*A dominate).
#   TILEMM_BLAS_BACKEND passes through (cpu: the CPU backend, to check the parts run where there
#   is no GPU).
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
if has sweep; then
  sweep_sizes=${SWEEP_SIZES:-"[1 2 3 8 16 31 64 100 128 256 512 1000 1024 2048 4096 8192 16384]"}
  sweep_once=${SWEEP_ONCE:-16384}
  echo "== sweep: sizes $sweep_sizes, median of ${SWEEP_REPEATS:-5} samples, sizes >= $sweep_once once (one sample, no median)" | tee -a "$log"
  sweep () {   # $1 label
    octave "blas_octave ('$1', $sweep_sizes, {'double', 'single'}, ${SWEEP_REPEATS:-5}, {'sweep'}, [], $sweep_once)"
  }
  sweep sweep_plain
  TILEMM_BLAS_TRACE="$trace" LD_PRELOAD="$lib" sweep sweep_lib
fi
if has hugetlb; then
  hugetlb_sizes=${HUGETLB_SIZES:-"[4096 8192]"}
  {
    echo "== hugetlb: GLIBC_TUNABLES=glibc.malloc.hugetlb=1 beside without, sizes $hugetlb_sizes"
    echo "transparent_hugepage/enabled: $(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null || echo unknown)"
    echo "transparent_hugepage/defrag: $(cat /sys/kernel/mm/transparent_hugepage/defrag 2>/dev/null || echo unknown)"
    echo "glibc: $(getconf GNU_LIBC_VERSION 2>/dev/null || ldd --version 2>/dev/null | head -n 1) (the tunable needs >= 2.35)"
  } | tee -a "$log"
  # One process per setting: Octave's timings, then its AnonHugePages after a fresh zeros (8192).
  huge_run () {   # $1 label
    octave "blas_octave ('$1', $hugetlb_sizes, {'double', 'single'}, $repeats, {'alloc', 'mtimes', 'syrk'}, $hugetlb_sizes);
            Z = zeros (8192); Z(end) = 1;
            s = regexp (fileread ('/proc/self/smaps_rollup'), 'AnonHugePages:\\s*\\d+ kB', 'match', 'once');
            printf ('hugetlb %s after zeros (8192): %s\\n', '$1', s);"
  }
  huge_run hugetlb_off_plain
  GLIBC_TUNABLES=glibc.malloc.hugetlb=1 huge_run hugetlb_on_plain
  TILEMM_BLAS_TRACE="$trace" LD_PRELOAD="$lib" huge_run hugetlb_off_lib
  GLIBC_TUNABLES=glibc.malloc.hugetlb=1 TILEMM_BLAS_TRACE="$trace" LD_PRELOAD="$lib" \
    huge_run hugetlb_on_lib
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
if has plain || has nvblas || has tilemm; then
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
        h = ms["hugetlb_on_lib/" key]; d = ms["direct/tilemm/" cls "/" s]; a = ms["plain/alloc/" cls "/" s]
        printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", o == 2 ? "A\x27*A" : "A*B", cls, s, p, v, t, h,
          o == 2 ? "" : d, a, (v != "" && t > 0) ? sprintf("%.2fx", v / t) : "",
          (o == 1 && d > 0 && t != "") ? sprintf("%.2fx", t / d) : ""
      }
    }
  }' "$log" | tee -a "$log.table"
cat "$log.table" >> "$log"
fi
if has sweep; then
  echo | tee -a "$log"
  awk '
    $1 == "blas" && $3 == "sweep" { k = $4 "/" $5; ms[$2 "/" k] = $6; mn[$2 "/" k] = $7;
                                    calls[$2 "/" k] = $8; smp[$2 "/" k] = $9
                                    if (!(k in seen)) { seen[k] = 1; order[++n] = k } }
    END {
      print "| class | n | `*` ms | `*` + libtilemm_blas ms | lib / `*` (median) | lib / `*` (min) | calls a sample | samples | |"
      print "|---|---|---|---|---|---|---|---|---|"
      for (i = 1; i <= n; i++) {
        k = order[i]; split(k, f, "/"); p = ms["sweep_plain/" k]; l = ms["sweep_lib/" k]
        r = (p > 0 && l != "") ? l / p : 0; rm = (mn["sweep_plain/" k] > 0) ? mn["sweep_lib/" k] / mn["sweep_plain/" k] : 0
        printf "| %s | %s | %s | %s | %.3f | %.3f | %s | %s | %s |\n", f[1], f[2], p, l, r, rm,
          calls["sweep_plain/" k], smp["sweep_plain/" k],
          (r > 1.05 ? "SLOWER by more than 5%" : (smp["sweep_plain/" k] == 1 ? "(one sample)" : ""))
      }
    }' "$log" | tee -a "$log.sweep"
  cat "$log.sweep" >> "$log"
fi
if has hugetlb; then
  echo | tee -a "$log"
  awk -v sizes="$(list "${hugetlb_sizes}")" '
    $1 == "blas" && $2 ~ /^hugetlb_/ { ms[$2 "/" $3 "/" $4 "/" $5] = $6 }
    END {
      print "| what | class | n | `*` | `*`, hugetlb | `*` + lib | `*` + lib, hugetlb | hugetlb gain, no lib | hugetlb gain, lib |"
      print "|---|---|---|---|---|---|---|---|---|"
      m = split(sizes, sz, " "); split("mtimes syrk alloc", ops, " ")
      for (o = 1; o <= 3; o++) for (c = 0; c < 2; c++) for (i = 1; i <= m; i++) {
        cls = c ? "single" : "double"; key = ops[o] "/" cls "/" sz[i]
        a = ms["hugetlb_off_plain/" key]; b = ms["hugetlb_on_plain/" key]
        d = ms["hugetlb_off_lib/" key]; e = ms["hugetlb_on_lib/" key]
        printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
          ops[o] == "syrk" ? "A\x27*A" : ops[o] == "alloc" ? "alloc (zeros)" : "A*B", cls, sz[i], a, b, d, e,
          (a > 0 && b > 0) ? sprintf("%.2fx", a / b) : "", (d > 0 && e > 0) ? sprintf("%.2fx", d / e) : ""
      }
    }' "$log" | tee -a "$log.hugetlb"
  cat "$log.hugetlb" >> "$log"
fi
echo "blas_octave.sh: log in $log"
rm -rf "$work"
