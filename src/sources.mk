# src/sources.mk — the one list of tilemm's source files, by layer.  Every build reads it:
# src/Makefile.in (include), inst/tilemm_build.m (the MATLAB and Octave mex route), the
# top-level Makefile.am (what the release tarball ships), doc/mex-commands.sh (the manual's mex
# and mexcuda command lines), and the test and benchmark scripts (tests/sources.sh).
#
# Keep it plain, so that make, sh (sed) and MATLAB/Octave (fileread, regexp) all read it alike:
# only "NAME = file file \" lines with backslash continuations and # comments; no references to
# other variables, no make functions.  Paths are relative to src/, so moving files into folders
# (common/, cpu/, cuda/, kernels/, front/) edits this file only: add the new folders to
# TILEMM_INCLUDE_DIRS as well.  tests/mex-build.sh fails when a source file in src/ is missing
# here or a file named here is missing from src/.
#
# Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).

# The folders, one per layer (doc/ARCHITECTURE.md draws how a call goes through them):
#   common/   the request, the plan and every decision in it, the front ends' shared rules, the
#             simulated devices, the emulated precision's plan and panels (plain C11, no CUDA;
#             not named core/: configure scripts delete files named core, and say so for a folder)
#   cpu/      the CPU backend (OpenMP) and the emulated precision's CPU scheme
#   cuda/     the CUDA executor: the device state, the staging, the products on host views
#   kernels/  code that runs on device pointers: the tiled kernels, the device transpose, the
#             emulated precision's device scheme and its Hopper int8 GEMM
#   front/    the front ends: the oct-file, the mex gateways, the BLAS library, their BIST

# Folders (under src/) searched for headers: each becomes an -I of every compile.
TILEMM_INCLUDE_DIRS = common cpu cuda kernels front

# The core: status, views, the plan, routing, the front ends' shared rules, host staging helpers,
# simulated devices and fault injection, the emulated precision's plan and panels.  Plain C11.
TILEMM_CORE = common/status.c common/view.c common/device_model.c common/plan.c common/route.c \
  common/core.c \
  common/options.c common/decide.c common/run.c common/parallel_copy.c common/host_pages.c \
  common/fault.c common/multi.c common/emulated_plan.c common/emulated_panels.c \
  common/exact_dot.c

# The CPU backend (OpenMP) and the emulated precision's CPU scheme.
TILEMM_CPU = cpu/backend_cpu.c cpu/emulated_cpu.c

# Stands in for the CUDA executor in a build without CUDA.
TILEMM_NOCUDA = cuda/backend_nocuda.c

# The CUDA executor (host code only, no kernels: the pipeline test builds it on a stand-in CUDA
# runtime): the device probe, the workspaces, the staging, the native, transposed and emulated
# products on host views, several workers.
TILEMM_CUDA_HOST = cuda/device.cu cuda/workspace.cu cuda/staging.cu cuda/pipeline.cu \
  cuda/transposed_product.cu cuda/emulated_product.cu cuda/workers.cu

# Code on device pointers beside the tiled kernels: the device transpose, the emulated
# precision's device scheme.
TILEMM_DEVICE = kernels/transpose.cu kernels/emulated_cuda.cu

# The CUDA kernels (the .cuh files below are included by these).
TILEMM_KERNELS = kernels/kernels.cu

# Kernels of Hopper's own instructions (wgmma, setmaxnreg, the tensor copy engine): compiled with
# sm_90a code beside the fat binary and -DTILEMM_WGMMA_BUILT=1 where the architectures include
# 90; elsewhere compiled plain, and never chosen.
TILEMM_KERNELS_SM90A = kernels/imma_wgmma.cu

# The mex front ends: each gateway is its own mex file; TILEMM_MEX_COMMON is linked into each.
TILEMM_MEX_GATEWAYS = front/tilemm.c front/tilemm_info.c
TILEMM_MEX_COMMON = front/mex_common.c

# The Octave-native front end (tilemm.oct).
TILEMM_OCT = front/tilemm_oct.cc

# The BLAS library (libtilemm_blas.so, installed beside the oct-file): its entry points, where a
# call's product runs, the next BLAS in the process, the per-process trace.
TILEMM_BLAS = front/blas_shim.c front/blas_product.c front/blas_next.c front/blas_trace.c

# Headers, by the layer that owns them.  (Not *_HEADERS: automake, which reads this file for the
# tarball, gives that suffix a meaning of its own.)
TILEMM_CORE_H = common/tilemm.h common/device_model.h common/backend.h common/front.h common/parallel_copy.h common/host_pages.h \
  common/fault.h common/multi.h common/emulated.h common/emulated_panels.h common/cuda_variants.h \
  common/cuda_variant_list.h common/exact_dot.h
TILEMM_CPU_H = cpu/backend_cpu_tile.h
TILEMM_CUDA_H = cuda/cuda_try.h cuda/executor.h kernels/transpose.h kernels/emulated_cuda.h \
  kernels/kernels.h kernels/imma_wgmma.h
TILEMM_KERNEL_H = kernels/kernels_types.cuh kernels/kernels_async.cuh kernels/kernels_simt.cuh \
  kernels/kernels_regtile.cuh kernels/kernels_dmma.cuh \
  kernels/kernels_imma.cuh kernels/kernels_imma_wgmma.cuh kernels/emulated_kernels.cuh
TILEMM_FRONT_H = front/mex_common.h front/blas_shim.h front/blas_internal.h

# Not compiled, shipped: the help texts of the gateways, their Octave tests (the %! blocks the
# build appends to the help files tilemm.m and tilemm_info.m) and the BLAS library's symbol map.
TILEMM_OTHER = front/tilemm.help front/tilemm_info.help front/tilemm.tst front/tilemm_info.tst \
  front/blas_shim.map
