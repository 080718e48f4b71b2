# bench/build-common.sh — sourced by the benchmark scripts (run-kernels.sh, run-emulated.sh,
# profile-single.sh) after src/sources.sh: their one way of compiling tilemm's sources, read from
# src/sources.mk, for a single GPU architecture ($ARCH) into $BUILD.
#
#   bench_setup                  sets INC (the -I options of a program: every folder of src/),
#                                NVFLAGS_BASE (nvcc's flags for $ARCH less the folders) and
#                                NVFLAGS (those and INC: a program's flags; for $ARCH,
#                                the version DESCRIPTION says, bare as src/Makefile passes it,
#                                with TILEMM_BENCH_VARIANTS: the kernels no plan chooses, whose
#                                history the benchmark replays, compiled in too; -Ibench for
#                                the guide's kernel)
#   bench_cu VERBOSE WHAT...     compiles each .cu of WHAT (list names such as TILEMM_KERNELS, or
#                                files) into $BUILD and prints each object's path, a file of
#                                src/FOLDER/ with its layer's folders only (tilemm_includes_of,
#                                as src/Makefile.in compiles it: the build keeps the layers);
#                                VERBOSE=1
#                                appends ptxas's report (registers, spills, shared memory) to
#                                $BUILD/ptxas.log.  Files of TILEMM_KERNELS_SM90A get Hopper's
#                                sm_90a code too, as src/Makefile.in builds them (WGMMA_FLAGS;
#                                set it empty for a toolkit without sm_90a: the wgmma kernel is
#                                then never chosen).
#   bench_core WHAT...           compiles each .c of WHAT (CFLAGS_EXTRA added, e.g. -fopenmp)
#                                with its layer's folders into $BUILD, archives them as $BUILD/libcore.a (a program links
#                                what it needs) and prints the objects' paths.
#
# BENCH_REUSE=1: an object $BUILD already holds from the same command is not compiled again, so
# that several scripts can build into one $BUILD in a row (bench/build-all.sh) without compiling
# the kernels three times; only for one unchanged tree (the command is compared, not the headers).
#
# Sourcing it sets CUDA_HOME (default /usr/local/cuda), NVCC ($CUDA_HOME/bin/nvcc) and ARCH
# (sm_90, the H100 and H200) where the environment does not.
#
# Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).

CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
NVCC=${NVCC:-$CUDA_HOME/bin/nvcc}
ARCH=${ARCH:-sm_90}

bench_setup () {
  INC=$(tilemm_includes | tr '\n' ' ')
  NVFLAGS_BASE="-std=c++17 -O3 -arch=$ARCH -Ibench -DTILEMM_BENCH_VARIANTS=1 -DTILEMM_VERSION=$(tilemm_version)"
  NVFLAGS="$NVFLAGS_BASE $INC"
}

# The -I options of file $1: its layer's folders for a file of src/ (sources.mk), else a
# program's (every folder).
bench_includes () {
  case $1 in
    "${TILEMM_SRC-src/}"*) tilemm_includes_of "$1" | tr '\n' ' ' ;;
    *) echo "$INC" ;;
  esac
}

# The files WHAT names: a list of src/sources.mk (TILEMM_...) or a file itself.
bench_files () {
  for bench_what in "$@"; do
    case $bench_what in
      TILEMM_*) tilemm_sources "$bench_what" ;;
      *) echo "$bench_what" ;;
    esac
  done
}

# Whether $1 (an object) was built by the command $2 and may be reused (BENCH_REUSE=1); else
# records $2 as its command, to be built now.
bench_reused () {
  if [ "${BENCH_REUSE:-0}" = 1 ] && [ -f "$1" ] && [ "$(cat "$1.cmd" 2> /dev/null)" = "$2" ]; then
    return 0
  fi
  rm -f "$1.cmd"
  return 1
}

bench_cu () {
  bench_verbose=$1
  shift
  bench_hopper=$(tilemm_sources TILEMM_KERNELS_SM90A)
  for bench_f in $(bench_files "$@"); do
    bench_o="$BUILD/$(basename "${bench_f%.cu}").o"
    bench_extra=""
    for bench_h in $bench_hopper; do
      if [ "$bench_h" = "$bench_f" ]; then
        bench_extra=${WGMMA_FLAGS--gencode arch=compute_90a,code=sm_90a -DTILEMM_WGMMA_BUILT=1}
      fi
    done
    bench_inc=$(bench_includes "$bench_f")
    bench_cmd="$NVCC $NVFLAGS_BASE $bench_inc $bench_extra -c $bench_f"
    if ! bench_reused "$bench_o" "$bench_cmd"; then
      if [ "$bench_verbose" = 1 ]; then
        "$NVCC" $NVFLAGS_BASE $bench_inc $bench_extra -Xptxas -v -c "$bench_f" -o "$bench_o" \
          2>> "$BUILD/ptxas.log" || return 1
      else
        "$NVCC" $NVFLAGS_BASE $bench_inc $bench_extra -c "$bench_f" -o "$bench_o" >&2 || return 1
      fi
      echo "$bench_cmd" > "$bench_o.cmd"
    fi
    echo "$bench_o"
  done
}

bench_core () {
  bench_objs=""
  for bench_f in $(bench_files "$@"); do
    bench_o="$BUILD/$(basename "${bench_f%.c}").o"
    bench_inc=$(bench_includes "$bench_f")
    bench_cmd="${CC:-cc} -std=c11 -O2 -pthread ${CFLAGS_EXTRA:-} $bench_inc -c $bench_f"
    if ! bench_reused "$bench_o" "$bench_cmd"; then
      ${CC:-cc} -std=c11 -O2 -pthread ${CFLAGS_EXTRA:-} $bench_inc -DTILEMM_VERSION="$(tilemm_version)" \
        -c "$bench_f" -o "$bench_o" >&2 || return 1
      echo "$bench_cmd" > "$bench_o.cmd"
    fi
    bench_objs="$bench_objs $bench_o"
  done
  rm -f "$BUILD/libcore.a"
  ar rcs "$BUILD/libcore.a" $bench_objs >&2 || return 1
  for bench_o in $bench_objs; do
    echo "$bench_o"
  done
}
