/* ksplit.h — what the caller of a kernel launch decides for it (tilemm_cuda_launch, kernels.h):
 * the register-tiled fallback where the device has no FP64 tensor cores, the split of k and its
 * scratch.  Plain C, pure functions: the plan reads them, the launcher only follows them.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 */
#ifndef TILEMM_KSPLIT_H
#define TILEMM_KSPLIT_H

#include <stddef.h>
#include <stdint.h>

#include "tilemm.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How one launch runs, decided by its caller.  The kernels' products are C' (height × width) =
 * X (height × k) · Y (k × width), sizes in elements of the type (kernels.h). */
typedef struct {
  int dmma_fallback;    /* 1: the device has no FP64 tensor cores (compute capability < 8): the
                           DMMA variants (8–10, 11 for double types) run their register-tiled
                           fallback instead, unsplit; the other variants ignore it             */
  int splits;           /* pieces of k, each into its own plane of the scratch, then added in a
                           fixed order (variant 11 only; 1: unsplit)                           */
  int64_t kchunk;       /* reals of k per piece (complex types: twice the elements), a whole
                           number of the variant's k steps; used when splits > 1               */
  void *scratch;        /* device memory for the partial sums when splits > 1, 16-byte aligned,
                           owned by the caller (the worker's workspace)                        */
  size_t scratch_bytes; /* its size: at least tilemm_cuda_launch_scratch_bytes                 */
} tilemm_kernel_launch;

/* The split of k for a split-k variant of `type` whose block tile (cuda_variant_list.h, in
 * elements of the type) is tile_rows × tile_cols with k step tile_depth, on a product of
 * height × width × k: enough blocks to fill the GPU twice over (256), each piece at least four
 * k steps, at most 128 pieces and 32 MB of partial sums; unsplit (1) where a piece would be the
 * whole, or the product is taller than one grid.  A function of the shape only, so a product
 * gives the same bits on any GPU.  *kchunk: reals of k per piece (k's reals when unsplit). */
int tilemm_plan_ksplit (tilemm_type type, int tile_rows, int tile_cols, int tile_depth,
                        int64_t height, int64_t width, int64_t k, int64_t *kchunk);

/* The scratch bytes a launch of `splits` pieces on a C' of height × width needs: one plane of
 * partial sums per piece, rows of whole 16-byte chunks. */
size_t tilemm_cuda_launch_scratch_bytes (tilemm_type type, int64_t height, int64_t width,
                                         int splits);

/* The launch of variant `variant` for `type` on C' = X·Y (sizes as above) on a device of compute
 * capability major `cc_major`: the fallback flag, and for the split-k variant its split
 * (tilemm_plan_ksplit) and the scratch it needs (scratch_bytes; scratch NULL: the caller gives
 * its buffer).  An unknown variant: no fallback, unsplit. */
void tilemm_kernel_launch_plan (int variant, tilemm_type type, int64_t height, int64_t width,
                                int64_t k, int cc_major, tilemm_kernel_launch *launch);

/* Fills the plan's launches (tilemm.h: launch_rows, launch_cols, ksplit, kchunk) from its
 * variant, type, k, panels and steps and its kernel_fallback (which the caller sets from the
 * devices' facts first; 0 where it has none): every C' the GPU launches the plan on (a step, the
 * last step of a panel's rows or columns, the last panel's, the whole of a panel run in one
 * launch) and each one's split of k (tilemm_kernel_launch_plan; unsplit where the fallback runs
 * instead of a split variant).  Pure. */
void tilemm_plan_launches (tilemm_plan *plan);

/* The launch the plan holds for C' (height × width) · k: 1 and *launch (scratch NULL: the caller
 * gives its buffer), or 0 when the plan holds no such launch. */
int tilemm_plan_launch_of (const tilemm_plan *plan, int64_t height, int64_t width, int64_t k,
                           tilemm_kernel_launch *launch);

#ifdef __cplusplus
}
#endif

#endif /* TILEMM_KSPLIT_H */
