# tilemm_cuda.m4 — TILEMM_CHECK_CUDA: optional CUDA, found the autotools way.
#
# Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
#
#   --with-cuda[=DIR]     build the GPU path (an error if it cannot be built)
#   --without-cuda        never build it
#   (neither)             build it when a working toolkit is found: NVCC, then CUDA_HOME or
#                         CUDA_PATH, then nvcc on PATH, then /usr/local/cuda
#   --with-cuda-arch=LIST compute capabilities, e.g. "80 90" (default: 75 80 86 89 90 + PTX)
#
# Sets and substitutes HAVE_CUDA (1 or 0), NVCC, NVCCFLAGS, CUDA_ARCH_FLAGS, CUDA_LIBS; sets
# tilemm_cuda_why (why not built) and CUDA_ARCH_SUMMARY.  The runtime is linked statically
# (libcudart_static), so the mex files need no LD_LIBRARY_PATH.
AC_DEFUN([TILEMM_CHECK_CUDA], [
AC_ARG_VAR([NVCC], [CUDA compiler (default: found through CUDA_HOME, CUDA_PATH, PATH, /usr/local/cuda)])
AC_ARG_VAR([NVCCFLAGS], [extra flags for nvcc])
AC_ARG_VAR([CUDA_HOME], [CUDA toolkit directory])
AC_ARG_WITH([cuda],
  [AS_HELP_STRING([--with-cuda@<:@=DIR@:>@], [build the GPU backend (with the toolkit in DIR); default: when found])],
  [], [with_cuda=check])
AC_ARG_WITH([cuda-arch],
  [AS_HELP_STRING([--with-cuda-arch=LIST], [compute capabilities to build for, e.g. "80 90" (default: 75 80 86 89 90, plus PTX of the newest)])],
  [], [with_cuda_arch="75 80 86 89 90"])

HAVE_CUDA=0
CUDA_LIBS=
CUDA_ARCH_FLAGS=
tilemm_cuda_why=
AS_CASE([$with_cuda],
  [no], [tilemm_cuda_why="--without-cuda"],
  [yes|check], [],
  [CUDA_HOME="$with_cuda"; NVCC="$with_cuda/bin/nvcc"])

AS_IF([test "x$with_cuda" != xno], [
  dnl Find nvcc: NVCC, then CUDA_HOME / CUDA_PATH, then PATH, then /usr/local/cuda.
  AS_IF([test -z "$NVCC" && test -n "$CUDA_HOME" && test -x "$CUDA_HOME/bin/nvcc"], [NVCC="$CUDA_HOME/bin/nvcc"])
  AS_IF([test -z "$NVCC" && test -n "$CUDA_PATH" && test -x "$CUDA_PATH/bin/nvcc"], [NVCC="$CUDA_PATH/bin/nvcc"])
  AS_IF([test -z "$NVCC"], [AC_PATH_PROG([NVCC], [nvcc], [], [$PATH:/usr/local/cuda/bin])])
  AC_MSG_CHECKING([for the CUDA compiler])
  AS_IF([test -n "$NVCC" && test -x "$NVCC"], [AC_MSG_RESULT([$NVCC])],
        [AC_MSG_RESULT([no]); NVCC=; tilemm_cuda_why="no nvcc found (set NVCC or CUDA_HOME)"])
])

AS_IF([test -n "$NVCC" && test -z "$tilemm_cuda_why"], [
  tilemm_cuda_root=`dirname "$NVCC"`
  tilemm_cuda_root=`cd "$tilemm_cuda_root/.." && pwd`
  tilemm_cuda_libdir=
  for d in "$tilemm_cuda_root/lib64" "$tilemm_cuda_root/lib" "$tilemm_cuda_root/targets/x86_64-linux/lib"; do
    AS_IF([test -f "$d/libcudart_static.a"], [tilemm_cuda_libdir="$d"; break])
  done
  AS_IF([test -z "$tilemm_cuda_libdir"],
        [tilemm_cuda_why="libcudart_static.a not found under $tilemm_cuda_root"])
])

AS_IF([test -n "$NVCC" && test -z "$tilemm_cuda_why"], [
  dnl Keep only the architectures this nvcc can build; PTX of the newest for later GPUs.
  AC_MSG_CHECKING([which GPU architectures nvcc $NVCC builds])
  tilemm_known=`"$NVCC" --list-gpu-code 2>/dev/null | tr '\n' ' '`
  tilemm_newest=
  CUDA_ARCH_SUMMARY=
  for cc in $with_cuda_arch; do
    AS_CASE([" $tilemm_known "], [*" sm_$cc "*], [
      CUDA_ARCH_FLAGS="$CUDA_ARCH_FLAGS -gencode arch=compute_$cc,code=sm_$cc"
      CUDA_ARCH_SUMMARY="$CUDA_ARCH_SUMMARY sm_$cc"
      tilemm_newest=$cc])
  done
  AS_IF([test -n "$tilemm_newest"], [
    CUDA_ARCH_FLAGS="$CUDA_ARCH_FLAGS -gencode arch=compute_$tilemm_newest,code=compute_$tilemm_newest"
    CUDA_ARCH_SUMMARY="$CUDA_ARCH_SUMMARY + PTX compute_$tilemm_newest"
    AC_MSG_RESULT([$CUDA_ARCH_SUMMARY])],
    [AC_MSG_RESULT([none of: $with_cuda_arch]); tilemm_cuda_why="nvcc builds none of the architectures $with_cuda_arch"])
])

AS_IF([test -n "$NVCC" && test -z "$tilemm_cuda_why"], [
  dnl Compile a small kernel with the chosen architectures and link it statically, as the mex does.
  CUDA_LIBS="-L$tilemm_cuda_libdir -lcudart_static -ldl -lrt -lpthread -lstdc++"
  AC_MSG_CHECKING([whether a CUDA kernel compiles and links])
  cat > conftest_cuda.cu <<_TILEMM_EOF
#include <cuda_runtime.h>
__global__ void twice (float *x) { x[[threadIdx.x]] *= 2.0f; }
extern "C" int tilemm_conftest (void)
{
  int n = 0;
  twice<<<1, 1>>> (0);
  return cudaGetDeviceCount (&n) == cudaSuccess ? n : -1;
}
_TILEMM_EOF
  cat > conftest_main.c <<_TILEMM_EOF
int tilemm_conftest (void);
int main (void) { return tilemm_conftest () < -1; }
_TILEMM_EOF
  AS_IF([$NVCC $CUDA_ARCH_FLAGS $NVCCFLAGS -Xcompiler -fPIC -c conftest_cuda.cu -o conftest_cuda.o >&AS_MESSAGE_LOG_FD 2>&1 &&
         $CC $CFLAGS conftest_main.c conftest_cuda.o $CUDA_LIBS -o conftest_cuda$EXEEXT >&AS_MESSAGE_LOG_FD 2>&1],
        [AC_MSG_RESULT([yes]); HAVE_CUDA=1],
        [AC_MSG_RESULT([no]); tilemm_cuda_why="a test kernel did not compile and link with $NVCC (see config.log)"])
  rm -f conftest_cuda.cu conftest_main.c conftest_cuda.o conftest_cuda$EXEEXT
])

AS_IF([test "x$HAVE_CUDA" != x1 && test "x$with_cuda" != xno && test "x$with_cuda" != xcheck],
      [AC_MSG_ERROR([--with-cuda was given but the GPU path cannot be built: $tilemm_cuda_why])])
AS_IF([test "x$HAVE_CUDA" != x1], [CUDA_LIBS=; CUDA_ARCH_FLAGS=])
AC_SUBST([HAVE_CUDA])
AC_SUBST([NVCC])
AC_SUBST([NVCCFLAGS])
AC_SUBST([CUDA_ARCH_FLAGS])
AC_SUBST([CUDA_LIBS])
])
