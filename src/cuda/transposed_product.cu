/* transposed_product.cu — a product with transposed operands on one device: the operands up as
 * stored through the staging, transposed on the device, one launch, C back.
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

/* C = op_a(A)·op_b(B) for one panel on the workspace it is handed.  The tiled kernels read
 * op(A) and op(B) in one layout only, so a transposed operand goes up exactly as stored (through
 * the pinned staging, as every operand) and is transposed, conjugated for 'C', on the device by
 * transpose.cu, an O(n²) pass beside the O(n³) product; the product is one launch of the plan's
 * variant, and C comes back through the staging.  No steps: the panel's A, B, their transposes
 * and C are on the device at once (the plan's panels, or the workers' queue, keep them small). */
tilemm_status op_panel (workspace &ws, const tilemm_plan *plan, tilemm_op op_a,
                        const tilemm_view *a,
                        tilemm_op op_b, const tilemm_view *b, const tilemm_view *c,
                        tilemm_cuda_stats *st, tilemm_error *err)
{
  const size_t es = tilemm_type_size (plan->type);
  const int64_t m = plan->m, n = plan->n, k = plan->k;
  const size_t a_bytes = es * (size_t) a->rows * (size_t) a->cols;
  const size_t b_bytes = es * (size_t) b->rows * (size_t) b->cols;
  const size_t bytes[NBUF] = { b_bytes, a_bytes, es * (size_t) m * (size_t) n,
                               op_b != TILEMM_OP_NONE ? b_bytes : 0,
                               op_a != TILEMM_OP_NONE ? a_bytes : 0,
                               split_scratch_bytes (plan, n, m, k) };
  tilemm_status status = workspace_reserve (ws, bytes, 1, err);
  if (status != TILEMM_OK)
    return status;
  st->panels++;
  st->steps++;
  auto t0 = std::chrono::steady_clock::now ();
  if ((status = stage_up (ws, *a, ws.buffer[BUF_Y], st, err)) != TILEMM_OK
      || (status = stage_up (ws, *b, ws.buffer[BUF_X], st, err)) != TILEMM_OK)
    return status;
  st->upload_ms += ms_since (t0);
  t0 = std::chrono::steady_clock::now ();
  /* The host waits for the device from here: C's pages are faulted in meanwhile. */
  prefault_guard prefault;
  prefault.p = prepare_result (c, st, idle_prefault_threads ());
  cudaStream_t s = ws.comp[0];
  CUDA_TRY (cudaEventRecord (ws.t_begin, ws.up), "cudaEventRecord");
  CUDA_TRY (cudaStreamWaitEvent (s, ws.t_begin, 0), "cudaStreamWaitEvent");
  const void *a_ready, *b_ready;
  if ((status = operand_on_device (ws, op_a, a, BUF_Y, BUF_YT, s, &a_ready, err)) != TILEMM_OK
      || (status = operand_on_device (ws, op_b, b, BUF_X, BUF_XT, s, &b_ready, err)) != TILEMM_OK)
    return status;
  /* Cᵀ (n×m) = op(B)ᵀ (n×k) · op(A)ᵀ (k×m): the row-major readings of the packed buffers. */
  status = launch_kernel (ws, plan, device_matrix (ws.buffer[BUF_C], n, m),
                          device_matrix ((void *) b_ready, n, k),
                          device_matrix ((void *) a_ready, k, m), 0, err);
  if (status != TILEMM_OK)
    return status;
  CUDA_TRY (cudaEventRecord (ws.t_last, s), "cudaEventRecord");
  tilemm_prefault_finish (prefault.p);
  prefault.p = nullptr;
  status = stage_down (ws, ws.buffer[BUF_C], *c, ws.t_last, st, err);
  st->compute_ms += ms_since (t0);
  return status;
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
  bool done;
  tilemm_status status = entry_checks (plan, c, &done, err);
  if (done)
    return status;
  workspace &ws = ws_pool[0]; /* the caller's thread: worker 0 */
  return recorded_product (ws,
    [&] (tilemm_cuda_stats *st) { return op_panel (ws, plan, op_a, a, op_b, b, c, st, err); },
    false);
}

} /* extern "C" */
