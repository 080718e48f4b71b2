/* transposed_product.cu — transposed operands on one device: the emulated product's whole
 * operand transposed on the device (operand_on_device), and the low-level entry of a native
 * product with transposed operands, which runs through the pipeline (pipeline.cu: each step's
 * piece transposed on the device).
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 */
#include "executor.h"

using namespace tilemm_cuda;

namespace tilemm_cuda {

/* ---------------------------------------------------------------- transposed operands */

tilemm_status operand_on_device (workspace &ws, tilemm_op op, const tilemm_view *x, int stored,
                                 int transposed,
                                 cudaStream_t s, const void **ready, tilemm_error *err)
{
  *ready = ws.buffer[stored];
  if (op == TILEMM_OP_NONE)
    return TILEMM_OK;
  *ready = ws.buffer[transposed];
  return tilemm_cuda_transpose (x->type, op == TILEMM_OP_CTRANSPOSE, ws.buffer[stored], x->rows,
                                x->cols, x->rows > 0 ? x->rows : 1, ws.buffer[transposed],
                                x->cols > 0 ? x->cols : 1, s, err);
}

} /* namespace tilemm_cuda */

extern "C" {

tilemm_status tilemm_cuda_multiply_op (const tilemm_plan *plan, tilemm_op op_a,
                                       const tilemm_view *a, tilemm_op op_b, const tilemm_view *b,
                                       const tilemm_view *c, tilemm_error *err)
{
  if (!plan || !a || !b || !c)
    return tilemm_error_set (err, TILEMM_EINVAL, "tilemm_cuda_multiply_op: null argument");
  if (op_a == TILEMM_OP_NONE && op_b == TILEMM_OP_NONE)
    return tilemm_cuda_multiply (plan, a, b, c, NULL, err);
  std::lock_guard<std::mutex> lock (ws_mutex);
  tilemm_fault_begin ();
  tilemm_status status = probe (err);
  if (status != TILEMM_OK)
    return status;
  if (plan->panel_rows < 1 || plan->panel_cols < 1)
    return tilemm_error_set (err, TILEMM_EINVAL, "plan with empty panels (%lld x %lld)",
                             (long long) plan->panel_rows, (long long) plan->panel_cols);
  bool done;
  status = entry_checks (plan, c, &done, err);
  if (done)
    return status;
  workspace &ws = ws_pool[0]; /* the caller's thread: worker 0 */
  return recorded_product (ws,
    [&] (tilemm_cuda_stats *st) {
      return run_pipeline (ws, plan, op_a, a, op_b, b, c, NULL, st, err);
    },
    true);
}

} /* extern "C" */
