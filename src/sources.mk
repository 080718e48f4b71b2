# src/sources.mk — the one list of tilemm's source files, by layer.  Every build reads it:
# src/Makefile.in (include), inst/tilemm_build.m (the MATLAB and Octave mex route), the
# top-level Makefile.am (what the release tarball ships), doc/mex-commands.sh (the manual's mex
# and mexcuda command lines), and the test and benchmark scripts (tests/sources.sh).
#
# Keep it plain, so that make, sh (sed) and MATLAB/Octave (fileread, regexp) all read it alike:
# only "NAME = file file \" lines with backslash continuations and # comments; no references to
# other variables, no make functions.  Paths are relative to src/, so moving files into folders
# (common/, cpu/, cuda/, kernels/, front/) edits this file only: give a new folder its
# TILEMM_INCLUDE_DIRS_FOLDER list and add it to those of the layers above it and to
# TILEMM_INCLUDE_DIRS.  tests/mex-build.sh fails when a source file in src/ is missing
# here or a file named here is missing from src/.
#
# Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).

# The folders, one per layer, each calling only the ones below it (doc/ARCHITECTURE.md draws how
# a call goes through them; tests/check-layers.sh checks the direction):
#   front/    the front ends: the oct-file, the mex gateways, the BLAS library, their BIST
#   exec/     the executor: the decision's facts gathered, the plan run (panels, the queue of
#             devices, the workers, the emulated passes) through the backends' tables
#   cpu/      the CPU backend (on the host pool), its simulated devices, the emulated precision's CPU scheme
#   cuda/     the CUDA backend's host side: the device state, the staging, the products on host
#             views, its table
#   kernels/  code that runs on device pointers and its launchers: the tiled kernels, the device
#             transpose, the emulated precision's device scheme and its Hopper int8 GEMM
#   common/   at the bottom, calling nothing above it: types, views, route (`*`'s rules),
#             options, the device model, the plan of a call (every decision), status (plain
#             C11, no CUDA; not named core/: configure scripts delete files named core)

# Folders (under src/) searched for headers, by the folder of the file compiled: its own and
# those of the layers below it, and no other, so that a file including a header of a layer above
# its own does not compile (the build keeps the layers; tests/check-layers.sh keeps the calls).
# cpu/ and cuda/ are siblings: neither sees the other.  Every build of the sources compiles a
# file of FOLDER with TILEMM_INCLUDE_DIRS_FOLDER (tilemm_includes FOLDER in sources.sh).
TILEMM_INCLUDE_DIRS_common = common
TILEMM_INCLUDE_DIRS_kernels = kernels common
TILEMM_INCLUDE_DIRS_cpu = cpu common
TILEMM_INCLUDE_DIRS_cuda = cuda kernels common
TILEMM_INCLUDE_DIRS_exec = exec cpu cuda kernels common
TILEMM_INCLUDE_DIRS_front = front exec cpu cuda kernels common
# What the test programs and the benchmarks' own files see, above every layer: all of them.
TILEMM_INCLUDE_DIRS = common exec cpu cuda kernels front

# The bottom layer: status, views, the device model, the plan of a product and of a call, routing,
# options, host thread helpers (the host's CPUs, a team of threads, the process's pool of them,
# the one rule sizing every team, each GPU's copy team), fault
# injection, the emulated precision's plan and sizes.  Plain C11.
TILEMM_CORE = common/status.c common/view.c common/device_model.c common/plan.c common/route.c \
  common/options.c common/call_plan.c common/parallel_copy.c common/host_pages.c \
  common/fault.c common/emulated_plan.c common/emulated_sizing.c common/exact_dot.c \
  common/batch_plan.c common/ksplit.c common/emulated_arena.c common/machine_facts.c \
  common/host_cpus.c common/host_team.c common/host_pool.c common/team_size.c common/copy_team.c \
  common/uniform_fill.c common/host_blas.c common/precision_auto.c common/exchange_plan.c \
  common/exchange.c common/gpus_model.c common/strip_owners.c

# The executor: the decision (facts gathered, the plan made), the plan run, the queue and its
# workers, the emulated passes, the backends' tables, the GPU's public facts, a BLAS call's own
# arithmetic around its product.  Plain C11.
TILEMM_EXEC = exec/prepare.c exec/decide.c exec/run.c exec/native.c exec/workers.c exec/emulated_passes.c \
  exec/multiply.c exec/backends.c exec/devices.c exec/batch.c exec/parts.c exec/blas_request.c \
  exec/machine.c exec/calibrate.c

# The CPU backend (on the host pool), its simulated devices, the emulated precision's CPU scheme and its
# batch of pages.
TILEMM_CPU = cpu/backend_cpu.c cpu/simulated.c cpu/emulated_cpu.c cpu/batch_cpu.c

# The CUDA backend's host side (no kernels: the pipeline test builds it on a stand-in CUDA
# runtime): the device probe, the workspaces, the staging, the native, transposed and emulated
# products on host views, its table (backend.h).  A build without it has no GPU table at all.
TILEMM_CUDA_HOST = cuda/device.cu cuda/workspace.cu cuda/staging.cu cuda/pipeline.cu \
  cuda/transposed_product.cu cuda/emulated_product.cu cuda/emulated_pipeline.cu \
  cuda/emulated_exchange.cu cuda/backend_ops.cu cuda/batch_product.cu cuda/kernel_launch.cu cuda/links.cu \
  cuda/peer_exchange.cu cuda/int8_rate.cu

# Code on device pointers beside the tiled kernels: the device transpose, the emulated
# precision's scheme (its stages' host side in cuda/: the arena's slots, the statistics brought
# to the host, the launches in order; its kernels and their launchers in kernels/), the batched
# kernels.  (Not part of TILEMM_CUDA_HOST: the pipeline test's stand-in runtime has no kernels
# for the scheme, tests/mock_cuda/cuda_op_none.c answers for it.)
TILEMM_DEVICE = kernels/transpose.cu cuda/emulated_scheme.cu kernels/emulated_cuda.cu \
  kernels/batched.cu

# The CUDA kernels (the .cuh files below are included by these).
TILEMM_KERNELS = kernels/kernels.cu

# Kernels of Hopper's own instructions (wgmma, setmaxnreg, the tensor copy engine): compiled with
# sm_90a code beside the fat binary and -DTILEMM_WGMMA_BUILT=1 where the architectures include
# 90; elsewhere compiled plain, and never chosen.
TILEMM_KERNELS_SM90A = kernels/imma_wgmma.cu

# The mex front ends: each gateway is its own mex file; TILEMM_MEX_COMMON is linked into each.
TILEMM_MEX_GATEWAYS = front/tilemm.c front/tilemm_info.c
TILEMM_MEX_COMMON = front/mex_common.c front/mex_host.c

# The Octave-native front end (tilemm.oct).
TILEMM_OCT = front/tilemm_oct.cc front/pages_oct.cc front/oct_shared.cc front/oct_host.cc

# The BLAS library (libtilemm_blas.so, installed beside the oct-file): its entry points, where a
# call's product runs, the next BLAS in the process, the per-process trace, and large zero fills
# on all cores (Octave fills every result before it calls dgemm_).
TILEMM_BLAS = front/blas_shim.c front/blas_product.c front/blas_next.c front/blas_trace.c \
  front/blas_memset.c front/blas_host.c

# Headers, by the layer that owns them.  (Not *_HEADERS: automake, which reads this file for the
# tarball, gives that suffix a meaning of its own.)
TILEMM_CORE_H = common/tilemm.h common/device_model.h common/backend.h common/front.h common/parallel_copy.h common/host_pages.h \
  common/fault.h common/devices.h common/call_plan.h common/emulated.h common/cuda_variants.h \
  common/cuda_variant_list.h common/exact_dot.h common/batch.h common/ksplit.h common/plan_unfilled.h common/emulated_arena.h \
  common/machine_facts.h common/host_cpus.h common/host_team.h common/host_pool.h common/team_size.h common/copy_team.h common/uniform_fill.h \
  common/host_blas.h common/exchange.h common/exchange_plan.h common/precision_auto.h common/gpus_model.h common/strip_owners.h \
  common/tilemm_settings.h
TILEMM_EXEC_H = exec/multi.h exec/emulated_passes.h exec/batch_run.h exec/parts.h exec/decide.h
TILEMM_CPU_H = cpu/backend_cpu_tile.h cpu/backend_cpu_variant.h cpu/cpu_isa.h
TILEMM_CUDA_H = kernels/cuda_try.h cuda/executor.h cuda/emulated_scheme.h kernels/transpose.h \
  kernels/emulated_launch.h kernels/kernels.h kernels/imma_wgmma.h kernels/batched.h
TILEMM_KERNEL_H = kernels/kernels_types.cuh kernels/kernels_async.cuh kernels/kernels_simt.cuh \
  kernels/kernels_regtile.cuh kernels/kernels_dmma.cuh \
  kernels/kernels_imma.cuh kernels/kernels_imma_wgmma.cuh kernels/emulated_kernels.cuh
TILEMM_FRONT_H = front/mex_common.h front/blas_shim.h front/oct_shared.h front/blas_internal.h

# Not compiled, shipped: the help texts of the gateways, their Octave tests (the %! blocks the
# build writes into tilemm.cc-tst and appends to the help file tilemm_info.m) and the BLAS
# library's symbol map.
TILEMM_OTHER = front/tilemm.help front/tilemm_info.help front/tilemm.tst front/tilemm_info.tst \
  front/blas_shim.map
