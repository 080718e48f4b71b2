/* kernel_launch.cu — a kernel launch of the plan's variant on the calling worker's device, as
 * the plan holds it for the launch's shape (tilemm_plan_launch_of, ksplit.h): the fallback and
 * the split of k were decided with the plan; the scratch comes from the workspace, one buffer
 * per compute stream.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 */
#include "executor.h"

namespace tilemm_cuda {

size_t split_scratch_bytes (const tilemm_plan *plan, int64_t height, int64_t width, int64_t k)
{
  tilemm_kernel_launch lp;
  return tilemm_plan_launch_of (plan, height, width, k, &lp) ? lp.scratch_bytes : 0;
}

tilemm_status launch_kernel (workspace &ws, const tilemm_plan *plan, const tilemm_matrix &c,
                             const tilemm_matrix &x, const tilemm_matrix &y, int comp,
                             tilemm_error *err)
{
  tilemm_kernel_launch lp;
  if (!tilemm_plan_launch_of (plan, c.height, c.width, x.width, &lp))
    return tilemm_error_set (err, TILEMM_EINVAL,
                             "the plan holds no launch of %lldx%lldx%lld (variant %d)",
                             (long long) c.height, (long long) c.width, (long long) x.width,
                             plan->variant);
  lp.scratch = ws.buffer[BUF_SPLIT + comp];
  lp.scratch_bytes = ws.capacity[BUF_SPLIT + comp];
  return tilemm_cuda_launch (plan->variant, plan->type, c, x, y, &lp, ws.comp[comp], err);
}

} /* namespace tilemm_cuda */
