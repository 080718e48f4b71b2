# src/sources.mk — the one list of tilemm's source files, by layer.  Every build reads it:
# src/Makefile.in (include), inst/tilemm_build.m (the MATLAB and Octave mex route), the
# top-level Makefile.am (what the release tarball ships), doc/mex-commands.sh (the manual's mex
# and mexcuda command lines), and the test and benchmark scripts (tests/sources.sh).
#
# Keep it plain, so that make, sh (sed) and MATLAB/Octave (fileread, regexp) all read it alike:
# only "NAME = file file \" lines with backslash continuations and # comments; no references to
# other variables, no make functions.  Paths are relative to src/, so moving files into folders
# (core/, cpu/, cuda/, kernels/, front/) edits this file only: add the new folders to
# TILEMM_INCLUDE_DIRS as well.  tests/mex-build.sh fails when a source file in src/ is missing
# here or a file named here is missing from src/.
#
# Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).

# Folders (under src/) searched for headers: each becomes an -I of every compile.
TILEMM_INCLUDE_DIRS = .

# The core: status, views, the plan, routing, the front ends' shared rules, host staging helpers,
# simulated devices and fault injection, the emulated precision's CPU side.  Plain C11, no CUDA.
TILEMM_CORE = status.c view.c plan.c route.c core.c front.c parallel_copy.c host_pages.c \
  fault.c multi.c emulated.c emulated_panels.c exact_dot.c

# The CPU backend (OpenMP).
TILEMM_CPU = backend_cpu.c

# Stands in for the CUDA host side in a build without CUDA.
TILEMM_NOCUDA = backend_nocuda.c

# The CUDA host side: device probe, the executor (staging pipeline, transposed operands, the
# emulated product's data), the device transpose, the emulated precision on device pointers.
TILEMM_CUDA_HOST = backend_cuda.cu transpose.cu emulated_cuda.cu

# The CUDA kernels (the .cuh files below are included by these).
TILEMM_KERNELS = kernels.cu

# Kernels of Hopper's own instructions (wgmma, setmaxnreg, the tensor copy engine): compiled with
# sm_90a code beside the fat binary and -DTILEMM_WGMMA_BUILT=1 where the architectures include
# 90; elsewhere compiled plain, and never chosen.
TILEMM_KERNELS_SM90A = imma_wgmma.cu

# The mex front ends: each gateway is its own mex file; TILEMM_MEX_COMMON is linked into each.
TILEMM_MEX_GATEWAYS = tilemm.c tilemm_info.c
TILEMM_MEX_COMMON = mex_common.c

# The Octave-native front end (tilemm.oct).
TILEMM_OCT = tilemm_oct.cc

# The BLAS library (libtilemm_blas.so, for `make check`).
TILEMM_BLAS = blas_shim.c

# Headers, by the layer that owns them.  (Not *_HEADERS: automake, which reads this file for the
# tarball, gives that suffix a meaning of its own.)
TILEMM_CORE_H = tilemm.h backend.h front.h parallel_copy.h host_pages.h fault.h multi.h \
  emulated.h emulated_panels.h cuda_variants.h cuda_variant_list.h exact_dot.h
TILEMM_CPU_H = backend_cpu_tile.h
TILEMM_CUDA_H = cuda_try.h transpose.h emulated_cuda.h kernels.h imma_wgmma.h
TILEMM_KERNEL_H = kernels_types.cuh kernels_async.cuh kernels_simt.cuh kernels_regtile.cuh \
  kernels_dmma.cuh kernels_guide.cuh kernels_imma.cuh kernels_imma_wgmma.cuh
TILEMM_FRONT_H = mex_common.h blas_shim.h

# Not compiled, shipped: the help texts of the gateways, their Octave tests (the %! blocks the
# build appends to the help files tilemm.m and tilemm_info.m) and the BLAS library's symbol map.
TILEMM_OTHER = tilemm.help tilemm_info.help tilemm.tst tilemm_info.tst blas_shim.map
