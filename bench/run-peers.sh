#!/bin/sh
# bench/run-peers.sh — GEMMul8 beside ours in one command, on the same data: bench_emulated's
# tables (cuBLAS DGEMM, ours certified and native-matching, uniform and phi = 4 data, errors
# against the exact product, the whole calls from host memory), then its double table once per
# GEMMul8 configuration with the peer preloaded (--cublas-only: the cuBLAS column is then the
# peer's; the data are drawn from the same seeds, so each row's errors are on the same entries).
#   bench/run-peers.sh [bench_emulated options, e.g. --sizes 4096,8192,16384,65536x64x4096]
# MAIN=0: the peers only; PEER=v2 or v3: that version only, none: no peer (a GPU command's time
# limit may want the run in parts).  PEER_TYPES (default d): the peers' tables for double (14 and
# 16 moduli) and, with s, single (7 moduli: the single fast-7 the issue compares with, and
# accurate-7), each fast and accurate.
# BIN: the bench_emulated binary (bench/run-emulated.sh --build-only builds it into $BUILD);
# PEERS: the folder holding libgemmul8.so (v2.0.14) and libgemmul8-v3.so (v3.0.5), copied from
# ../shared/peers into a git-ignored folder sent with the run (../shared/peers/README.md).
# Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
set -eu
cd "$(dirname "$0")/.."
BIN=${BIN:-/tmp/emu-build/bench_emulated}
PEERS=${PEERS:-.gpu}
[ -x "$BIN" ] || { echo "no $BIN: run BUILD=$(dirname "$BIN") bench/run-emulated.sh --build-only first"; exit 1; }
if [ "${MAIN:-1}" = 1 ]; then
  echo "== cuBLAS DGEMM, ours certified and native-matching, whole calls"
  "$BIN" --no-int8 "$@"
fi
for peer in libgemmul8.so:v2.0.14 libgemmul8-v3.so:v3.0.5; do
  lib=${peer%%:*}
  version=${peer#*:}
  case "${PEER:-all}" in
    all) ;;
    v2) [ "$version" = v2.0.14 ] || continue ;;
    v3) [ "$version" = v3.0.5 ] || continue ;;
    *) continue ;;   # PEER=none: the main run alone
  esac
  if [ ! -f "$PEERS/$lib" ]; then
    echo "== GEMMul8 $version: $PEERS/$lib missing, skipped"
    continue
  fi
  for type in $(echo "${PEER_TYPES:-d}" | sed 's/./& /g'); do
    case $type in
      d) counts="14 16" ;;
      s) counts="7" ;;
      *) echo "PEER_TYPES: d and/or s, not $type"; exit 1 ;;
    esac
    TYPE=$(echo $type | tr ds DS)
    for fast in 1 0; do
      for moduli in $counts; do
        mode=$([ $fast = 1 ] && echo fast || echo accurate)
        echo "== GEMMul8 $version $type $mode-$moduli (the cuBLAS ${TYPE}GEMM column below)"
        env LD_PRELOAD="$PWD/$PEERS/$lib" GEMMUL8_NUM_MOD_$TYPE=$moduli GEMMUL8_FASTMODE_$TYPE=$fast \
          "$BIN" --no-int8 --no-v10 --no-whole --cublas-only --types $type "$@" | grep -E '^\|' || true
      done
    done
  done
done
