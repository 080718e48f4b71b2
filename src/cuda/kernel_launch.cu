/* kernel_launch.cu — a kernel launch of the plan's variant on the calling worker's device, as
 * the caller decides it (ksplit.h): the fallback from the device's compute capability, the split
 * of k from the launch's shape, the scratch from the workspace, one buffer per compute stream.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 */
#include "executor.h"

namespace tilemm_cuda {

size_t split_scratch_bytes (const tilemm_plan *plan, int64_t height, int64_t width, int64_t k)
{
  tilemm_kernel_launch lp;
  tilemm_kernel_launch_plan (plan->variant, plan->type, height, width, k, 8, &lp);
  return lp.scratch_bytes;
}

tilemm_status launch_kernel (const tilemm_plan *plan, const tilemm_matrix &c,
                             const tilemm_matrix &x, const tilemm_matrix &y, int comp,
                             tilemm_error *err)
{
  tilemm_kernel_launch lp;
  tilemm_kernel_launch_plan (plan->variant, plan->type, c.height, c.width, x.width, ws.cc_major,
                             &lp);
  lp.scratch = ws.buffer[BUF_SPLIT + comp];
  lp.scratch_bytes = ws.capacity[BUF_SPLIT + comp];
  return tilemm_cuda_launch (plan->variant, plan->type, c, x, y, &lp, ws.comp[comp], err);
}

} /* namespace tilemm_cuda */
