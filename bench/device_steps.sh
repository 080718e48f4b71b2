#!/bin/bash
# bench/device_steps.sh STEP — the device steps of the session of 2026-11-28 (bench/RESULTS.md),
# one per device command (each under its 10-minute limit), run from the repository root on the GPU
# machine with .gpu carried: .gpu/setup.sh (shared/docs/gpu-machine.md), .gpu/built.tar.xz (this
# tree built here: tar -cJf .gpu/built.tar.xz src/tilemm.oct src/tilemm_info.mex src/tilemm_info.m
# src/mex src/libtilemm_blas.so src/FILES src/PKG_ADD src/tilemm.cc-tst), and for some steps .gpu/tilemm-0.1.0.tar.gz
# (make dist), .gpu/base.tar.xz (another tree built the same way), .gpu/blas-test
# (tools/pack-blas-tester), .gpu/emubin.tar.xz (bench_emulated and the GEMMul8 peer).  Steps:
#   host      issue 41: bench/host_steady.sh first steady copies cpu bist (HOST_STEPS names others:
#             alternate) (+ the first call on GPU 0 alone where there are several)
#   multi     issue 43: bench/multi-gpu.sh --from-build (sweep 256-16384, single, emulated, pages, blas)
#   checks    tests/gpu-checks.sh on the release tarball
#   pkgtest   issue 41: pkg install of the tarball (sm_90), `pkg test tilemm` ROUNDS times (BUDGET s)
#   cpubist   bench/host_steady.sh first cpu bist
#   four      issue 45: one, two, four GPUs and the default (SWEEP4, default "8192 16384"; PARTS4;
#             FOUR_LINE_S, a line's limit: 60 s, 32768 needs about 150)
#   emucheck  the emulated scheme's GPU tests, the BIST and emulated_octave on the tarball
#   grid      issue 41: the auto grid (with the model's ways), the ways back to back
#   ab        issue 42: native and emulated end to end, .gpu/base.tar.xz's tree and this one
#   emu       issue 44: emulated_octave, bench_emulated (ours) and GEMMul8 v3 (EMU_OCTAVE,
#             EMU_ACCURACY, EMU_OCTAVE_SIZES/_CLASSES/_REPEATS/_S, EMU_BENCH, EMU_TYPES,
#             EMU_SIZES, EMU_PEER_SIZES, EMU_MAIN_S, EMU_PEER_S)
#   multi5    issues 43/45: calibration's every-GPU times (gpu_all_one / gpu_all_every) beside
#             Octave's [0], [0 1] and the default at 4096, 8192, 16384 and single 16384
#   gputests  the GPU's C test programs built here (.gpu/gputests.tar.xz: test_cuda,
#             test_emulated_cuda, test_emulated_panels, test_pages_gpu, test_leaks_gpu), side by
#             side, each its summary line (a short check of a change below the GPU's entry points)
#   episode   issue 41: bench/cpu_after_blas.m and `test tilemm_info` (the facts' check) in PROCS
#             fresh processes each, .gpu/before.tar.xz's tree and this one alternating
#   emu6      issue 43: the emulated double product at 8192 and 16384 on [0] and [0 1] (medians
#             of 3, bitwise GPU 0's, host reads: 1.00 where each operand is read once), the plan
#   staging   issues 41/43/45: double 8192, 16384 on GPU 0 and every GPU at TILEMM_STAGING_KB
#             16384 (the default), 4096, 1024 (STAGING_N, STAGING_KBS)
#   blasepisode  issue 41: Octave's `*` after each of tilemm's ways (bench/blas_after_ways.m) and
#             `test tilemm_info` in PROCS fresh processes, with where every thread ran
# Results: $OUT/STEP.tgz.  Run on a GPU machine so far: host (with alternate too), multi,
# checks, cpubist, four, ab, pkgtest, multi5, emu6, emu, grid, gputests, episode, staging,
# blasepisode; emucheck is written but not yet run there.
#
# Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
set -u
step=${1:?usage: bench/device_steps.sh STEP}
source .gpu/setup.sh > /dev/null || exit 1
root=$PWD
R=$OUT/$step; mkdir -p $R
[ -f src/tilemm.oct ] || tar -xJf .gpu/built.tar.xz
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader > $R/gpu.txt
echo "== $step on $(head -1 $R/gpu.txt) x$(wc -l < $R/gpu.txt), $(nproc) CPUs, $(date -u +%T)"
case $step in
  host)
    bench/host_steady.sh src $R/hs ${HOST_STEPS:-first steady copies cpu bist} > $R/hs.log 2>&1
    cat $R/hs/steady.txt
    grep -h "^n " $R/hs/steady-*.log $R/hs/alt-*.log 2>/dev/null
    if [ "$(wc -l < $R/gpu.txt)" -gt 1 ]; then
      CUDA_VISIBLE_DEVICES=0 bench/host_steady.sh src $R/hs0 first > $R/hs0.log 2>&1
      echo "GPU 0 alone:"; cat $R/hs0/steady.txt
    fi
    ;;
  multi)
    export TILEMM_CALIBRATION_DIR=$R/facts
    OUT=$R/m LINE_TIMEOUT=100 timeout 560 bench/multi-gpu.sh --from-build $root > $R/m.log 2>&1
    tail -5 $R/m.log; cat $R/m/multi-gpu-table.md
    grep -h "^gpu_all\|^gpu_peer\|^gpu \|^measured" $R/facts/*.txt 2>/dev/null
    ;;
  checks)
    OUT=$R/c WORK=/tmp/tg timeout 580 tests/gpu-checks.sh .gpu/tilemm-0.1.0.tar.gz 2>&1 | tail -40
    ;;
  pkgtest)
    P=/tmp/pkgp; rm -rf $P; mkdir -p $P
    start=$(date +%s)
    with_cuda_arch=90 octave-cli --no-gui --norc --quiet --eval "pkg ('prefix', '$P', '$P'); pkg ('local_list', '$P/list'); pkg ('install', '-local', '$root/.gpu/tilemm-0.1.0.tar.gz')" > $R/install.log 2>&1
    echo "installed in $(( $(date +%s) - start )) s: $(tail -2 $R/install.log | head -1)"
    export TILEMM_CALIBRATION_DIR=$R/facts
    for r in $(seq 1 ${ROUNDS:-5}); do
      [ $(( $(date +%s) - start )) -lt ${BUDGET:-500} ] || { echo "round $r: out of time"; break; }
      mkdir -p /tmp/pt$r; cd /tmp/pt$r
      t0=$(date +%s)
      octave-cli --no-gui --norc --quiet --eval "pkg ('prefix', '$P', '$P'); pkg ('local_list', '$P/list'); pkg load tilemm; addpath ('$root/tests'); exit (run_pkg_test ('pkg_test_round_$r') > 0)" > $R/round-$r.log 2>&1
      echo "round $r rc $? in $(( $(date +%s) - t0 )) s: $(grep "^pkg_test_round" $R/round-$r.log)"
      grep -B3 -A8 "^!!!!!" /tmp/pt$r/fntests.log 2>/dev/null | head -40
      cp /tmp/pt$r/fntests.log $R/fntests-$r.log 2>/dev/null
      cd $root
    done
    ;;
  emucheck)
    # The emulated scheme's GPU tests and the BIST on the tarball (a short check of one change).
    W=/tmp/te; rm -rf $W; mkdir -p $W; tar -C $W -xzf .gpu/tilemm-0.1.0.tar.gz; cd $W/tilemm-*
    { ./configure --with-cuda-arch=90 && make -j"$(nproc)" && make -C src -j"$(nproc)" test-programs; } > $R/build.log 2>&1 || { tail -20 $R/build.log; exit 1; }
    echo "built at $(date -u +%T)"
    timeout 200 src/test_emulated_cuda > $R/test_emulated_cuda.log 2>&1; tail -1 $R/test_emulated_cuda.log
    timeout 120 src/test_emulated_panels > $R/test_emulated_panels.log 2>&1; tail -1 $R/test_emulated_panels.log
    TILEMM_BUILDDIR=$PWD TILEMM_SRCDIR=$PWD timeout 200 tests/bist.sh > $R/bist.log 2>&1; grep -E "^bist.*passed|^tilemm.*passed of" $R/bist.log | tail -8
    timeout 100 octave-cli --no-gui --norc --quiet --eval "addpath ('$PWD/src'); addpath ('$root/bench'); emulated_octave ([8192 16384], 3)" 2>&1 | grep "^emu " | tee $R/emu.txt
    cd $root
    ;;
  cpubist)
    bench/host_steady.sh src $R/hs first cpu bist > $R/hs.log 2>&1
    cat $R/hs/steady.txt
    ;;
  four)
    # issue 45: one, two and four GPUs and the default, double 8192 and 16384, single 16384.
    export TILEMM_CALIBRATION_DIR=$R/facts
    OUT=$R/m CONFIGS="0;0 1;0 1 2 3;default" SWEEP="${SWEEP4:-8192 16384}" PARTS="${PARTS4:-sweep single}" REPEATS=3 LINE_TIMEOUT=${FOUR_LINE_S:-60} timeout ${FOUR_S:-320} bench/multi-gpu.sh --from-build $root > $R/m.log 2>&1
    grep "^multi-gpu \|^multi-gpu-split" $R/m/multi-gpu.txt
    grep -h "^gpu_all\|^gpu_peer\|^measured" $R/facts/*.txt 2>/dev/null
    ;;
  grid)
    GRID_TIMEOUT=${GRID_TIMEOUT:-400} bench/host_steady.sh src $R/hs grid > $R/hs.log 2>&1
    cat $R/hs/steady.txt; awk 'NR == 1 || $13 == 0' $R/hs/grid.txt | head -40
    ;;
  ab)
    # issue 42: the native and emulated end-to-end figures before (cff3910, the issue's base) and
    # after (this tree), one machine, one call; each tree in its own processes and facts.
    # AB_ROUNDS: the two trees alternating, each round a fresh process of each (the host's
    # process-to-process spread, issue 41, is as large as what is compared); AB_SIZES, AB_EMU=0
    # (the native lines alone).
    mkdir -p /tmp/base && tar -C /tmp/base -xJf .gpu/base.tar.xz
    for round in $(seq ${AB_ROUNDS:-1}); do
      for t in base after; do
        d=$root/src; [ $t = base ] && d=/tmp/base/src
        export TILEMM_CALIBRATION_DIR=/tmp/facts-$t
        echo "== $t (round $round)"
        timeout 150 octave-cli --no-gui --norc --quiet --eval "addpath ('$d'); addpath ('$root/bench'); e2e ('$t', [${AB_SIZES:-1024 4096 8192}], {'double', 'single'}, 5, 'tilemm', 'gpu')" 2>&1 | grep "^e2e " | tee -a $R/e2e-$t.txt
        [ "${AB_EMU:-1}" = 1 ] && timeout 150 octave-cli --no-gui --norc --quiet --eval "addpath ('$d'); addpath ('$root/bench'); emulated_octave ([8192 16384], 3)" 2>&1 | grep "^emu " | tee -a $R/emu-$t.txt
      done
    done
    ;;
  emu)
    # issue 44: the emulated call from Octave (EMU_OCTAVE=0: not), then bench_emulated's tables
    # (cuBLAS, ours certified and native-matching, uniform and phi = 4 data, errors against the
    # exact product) for EMU_TYPES (default d; ds: single too) at EMU_SIZES, then GEMMul8 v3.0.5
    # preloaded on the same data (double fast/accurate 14 and 16; with s, single fast/accurate 7).
    # EMU_ACCURACY: the Octave calls' "accuracy" option ("elementwise"; default: the emulated
    # precision's own rule), EMU_OCTAVE_SIZES, EMU_OCTAVE_CLASSES (an Octave cell, default
    # {'double','single'}), EMU_OCTAVE_S; EMU_BENCH=0: the Octave calls alone.
    export TILEMM_CALIBRATION_DIR=/tmp/facts
    classes=${EMU_OCTAVE_CLASSES:-"{'double','single'}"}
    if [ "${EMU_OCTAVE:-1}" = 1 ]; then
      timeout ${EMU_OCTAVE_S:-150} octave-cli --no-gui --norc --quiet --eval "addpath ('$root/src'); addpath ('$root/bench'); emulated_octave ([${EMU_OCTAVE_SIZES:-8192 16384}], ${EMU_OCTAVE_REPEATS:-3}, '${EMU_ACCURACY:-}', $classes)" 2>&1 | grep -v "^error: ignoring" | tee $R/octave.txt
    fi
    if [ "${EMU_BENCH:-1}" = 1 ]; then
      tar -C /tmp -xJf .gpu/emubin.tar.xz   # /tmp/eb/bench_emulated, /tmp/peers/libgemmul8-v3.so
      BIN=/tmp/eb/bench_emulated PEERS=/tmp/peers PEER=none timeout ${EMU_MAIN_S:-200} bench/run-peers.sh --runs 5 --types ${EMU_TYPES:-d} --sizes ${EMU_SIZES:-4096,8192,16384,65536x64x4096} > $R/bench-main.txt 2>&1
      tail -80 $R/bench-main.txt
      ln -sfn /tmp/peers .gpu-peers
      MAIN=0 PEER=v3 PEER_TYPES=${EMU_TYPES:-d} BIN=/tmp/eb/bench_emulated PEERS=.gpu-peers timeout ${EMU_PEER_S:-150} bench/run-peers.sh --runs 5 --sizes ${EMU_PEER_SIZES:-8192,16384} > $R/bench-v3.txt 2>&1
      tail -40 $R/bench-v3.txt
    fi
    ;;
  multi5)
    # issues 43/45: does calibration time [0 1] as Octave's calls run it, and does the default
    # then take the faster count?  Fresh facts (measured by the sweep's first 4096 call).
    export TILEMM_CALIBRATION_DIR=$R/facts
    OUT=$R/m CONFIGS="${CONFIGS5:-0;0 1;default}" SWEEP="${SWEEP5:-4096 8192 16384}" PARTS="sweep single" REPEATS=3 LINE_TIMEOUT=80 timeout ${MULTI5_S:-400} bench/multi-gpu.sh --from-build $root > $R/m.log 2>&1
    grep "^tilemm: measured" $R/m.log | head -3
    echo "Octave (median ms, GPUs the default took):"
    grep "^multi-gpu " $R/m/multi-gpu.txt | awk '{ printf "  %s %s %-8s %8.2f ms  ran on %s\n", $3, $4, $5, $6, $10 }'
    echo "calibration, every GPU against one (ms; the ratio every/one, below 1: every GPU pays):"
    cat $R/facts/*.txt 2>/dev/null | awk '
      $1 == "gpu_all_one" || $1 == "gpu_all_every" {
        for (i = 0; i < $4; i++) { n = int (exp (log ($(5 + 3 * i) / 2) / 3) + 0.5); t[$1, n] = 1e3 * $(6 + 3 * i); ns[n] = 1 } }
      $1 == "gpu_peer" || $1 == "gpu_all" || $1 == "gpu_filled" { print "  " $0 }
      END { for (n in ns) printf "  n %5d  one %8.3f  every %8.3f  ratio %.2f\n", n, t["gpu_all_one", n], t["gpu_all_every", n], t["gpu_all_every", n] / t["gpu_all_one", n] }' | sort -k2 -n
    ;;
  gputests)
    tar -C src -xJf .gpu/gputests.tar.xz
    # As tests/gpu-checks.sh runs them: those that measure the GPU's free memory alone.
    for t in test_cuda test_emulated_cuda test_pages_gpu; do
      ( timeout ${GPUTESTS_S:-240} src/$t > $R/$t.log 2>&1 ) &
    done
    wait
    timeout 200 src/test_leaks_gpu > $R/test_leaks_gpu.log 2>&1
    timeout 200 src/test_emulated_panels > $R/test_emulated_panels.log 2>&1
    for t in test_cuda test_emulated_cuda test_emulated_panels test_pages_gpu test_leaks_gpu; do
      grep -h "^FAIL" $R/$t.log | head -5
      tail -n 1 $R/$t.log
    done
    ;;
  blasepisode)
    # issue 41: Octave's own `*` as tilemm_info's facts check times it (after tilemm's ways), in
    # fresh processes, with each thread's CPU and context switches (bench/blas_after_ways.m); then
    # the check itself.  The first process measures the facts.
    export TILEMM_CALIBRATION_DIR=/tmp/facts-blas
    for p in $(seq 1 ${PROCS:-6}); do
      # AFTER_TESTS=1: first tilemm's own BIST in the same process (src/tilemm.cc-tst, in
      # built.tar.xz), as `pkg test` runs it before tilemm_info's check.
      pre=""; [ "${AFTER_TESTS:-0}" = 1 ] && pre="addpath ('$root/tests'); addpath ('$root/inst'); [ok, all] = test ('tilemm', 'quiet'); printf ('tilemm %d of %d\\n', ok, all);"
      timeout ${EPISODE_S:-90} octave-cli --no-gui --norc --quiet --eval "addpath ('$root/src'); addpath ('$root/bench'); $pre blas_after_ways (256, 9); [ok, all] = test ('tilemm_info', 'quiet', stdout); printf ('tilemm_info %d of %d\\n', ok, all);" > $R/blasepisode-$p.txt 2>&1
      echo "process $p: $(grep "^blas_after_ways\|^tilemm \|^tilemm_info\|model says\|^star_threads\|^idle_busy\|^traced " $R/blasepisode-$p.txt | tr '\n' ' ')"
      awk '$1 == "thread" { n[$3]++; cpus[$3] = cpus[$3] " " $5; inv[$3] += $10 } END { for (k in n) printf "  %-16s %3d threads, involuntary switches %d, CPUs:%s\n", k, n[k], inv[k], cpus[k] }' $R/blasepisode-$p.txt
    done
    ;;
  staging)
    # issues 41/43/45: the pinned staging chunk against the host's caches.  Each GPU's ring holds
    # TILEMM_STAGING_CHUNKS (4) chunks each way; a chunk small enough that the ring stays in the
    # last-level cache would spare host memory the ring's write and read.  Double products on
    # GPU 0 and on every GPU, one process a line (multi_gpu.m), medians of 3, at each chunk size.
    export TILEMM_CALIBRATION_DIR=$R/facts
    all=$(seq -s ' ' 0 $(( $(wc -l < $R/gpu.txt) - 1 )))
    lscpu | grep -i "model name\|L3\|NUMA node(s)" > $R/cpu.txt; cat $R/cpu.txt
    for n in ${STAGING_N:-8192 16384}; do
      for kb in ${STAGING_KBS:-16384 4096 1024}; do
        configs=("0"); [ "$all" = 0 ] || configs+=("$all")   # every GPU where there are several
        for d in "${configs[@]}"; do
          TILEMM_STAGING_KB=$kb timeout ${STAGING_LINE_S:-90} octave-cli --no-gui --norc --quiet --eval "crash_dumps_octave_core (false); addpath ('$root/src'); addpath ('$root/bench'); multi_gpu ('plain', 'double', $n, [$d], 3)" 2>&1 | grep "^multi-gpu \|^multi-gpu-split" | sed "s/^/kb $kb /" | tee -a $R/staging.txt
        done
      done
    done
    ;;
  episode)
    # issue 41: the CPU backend right after an OpenBLAS `*` in fresh processes, before and after
    # a change of the host teams; each tree with facts of its own (its first process measures).
    mkdir -p /tmp/before && tar -C /tmp/before -xJf .gpu/before.tar.xz
    for p in $(seq 1 ${PROCS:-8}); do
      for t in before after; do
        d=$root/src; [ $t = before ] && d=/tmp/before/src
        export TILEMM_CALIBRATION_DIR=/tmp/facts-$t
        r=$(timeout 60 octave-cli --no-gui --norc --quiet --eval "addpath ('$d'); addpath ('$root/bench'); cpu_after_blas ([256 512], 9); [ok, all] = test ('tilemm_info', 'quiet', stdout); printf ('tilemm_info %d of %d\\n', ok, all);" 2>&1 | grep "^cpu_after_blas\|^tilemm_info\|failed\|model says" | tr '\n' ' ')
        echo "$t process $p: $r" | tee -a $R/episode.txt
      done
    done
    ;;
  emu6)
    # issue 43's emulated line: one Octave process a line (bench/multi_gpu.m: a warm-up, the
    # median of 3, bitwise against GPU 0's, __tilemm_stats__'s host reads and each GPU's bytes up
    # and from its peers), then the plan of [0 1] at 16384 (its emulated_exchange line).
    export TILEMM_CALIBRATION_DIR=$R/facts
    for n in 8192 16384; do
      for d in "[0]" "[0 1]"; do
        timeout 150 octave-cli --no-gui --norc --quiet --eval "addpath ('$root/src'); addpath ('$root/inst'); addpath ('$root/bench'); multi_gpu ('emulated', 'double', $n, $d, 3)" 2>&1 | grep -v "^error: ignoring" | tee -a $R/emu6.txt
      done
    done
    timeout 100 octave-cli --no-gui --norc --quiet --eval "addpath ('$root/src'); A = rand (16384); disp (__tilemm_plan__ (A, A, 'precision', 'emulated', 'devices', [0 1]))" 2>&1 | tee $R/plan.txt | grep "^emulated_\|^workers"
    awk '$1 == "multi-gpu" { t[$4 " " $5] = $6; print } $1 == "multi-gpu-split" { print "host_reads", $4, $5, $12 }
         END { if (t["8192 0,1"]) printf "speedup 8192 %.2f\n", t["8192 0"] / t["8192 0,1"]; if (t["16384 0,1"]) printf "speedup 16384 %.2f\n", t["16384 0"] / t["16384 0,1"] }' $R/emu6.txt
    ;;
esac
cd $OUT && tar -czf $step.tgz $step && rm -rf $step
