/* imma_wgmma.h — the host side of the Hopper int8 GEMM (kernels_imma_wgmma.cuh), for
 * src/kernels/emulated_cuda.cu's launchers: whether it can run on the current device, and its
 * launch.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 */
#ifndef TILEMM_IMMA_WGMMA_H
#define TILEMM_IMMA_WGMMA_H

#include <cuda_runtime_api.h>

#include "kernels_imma.cuh"
#include "tilemm.h"

/* True when the current device has compute capability 9.0 exactly (sm_90a code runs on no other)
 * and this build carries the kernel's sm_90a code.  A failed query is false: the caller keeps the
 * mma.sync kernel. */
bool tilemm_emu_wgmma_usable ();

/* The MOD epilogue of imma_kernel (kernels_imma.cuh) for `planes` planes on `stream`: the same
 * fields of args, the same R.  args.chunk_tiles counts 64-byte tiles, as for imma_kernel.  The
 * persistent grid takes at most args.blocks blocks (the plan's: one a multiprocessor of the
 * device, tilemm_emu_gemm_grid of call_plan.h's emu_multiprocessors; below 1: TILEMM_EINVAL); the launch reads no device
 * attribute. */
tilemm_status tilemm_emu_wgmma_launch (const imma_args &args, int planes, cudaStream_t stream,
                                       tilemm_error *err);

/* The STATS epilogue of imma_kernel for one plane, for a launch that sums all of k (k_begin 0,
 * k_end kp; TILEMM_EINVAL otherwise), on at most args.blocks blocks as above. */
tilemm_status tilemm_emu_wgmma_launch_stats (const imma_args &args, cudaStream_t stream, tilemm_error *err);

#endif
