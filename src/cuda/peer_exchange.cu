/* peer_exchange.cu — the operand every worker of a product keeps, sent once from the host: each
 * worker uploads its share of it (call_plan.h's exchange: 1/N of its columns) into
 * its kept buffer, in the place and layout its pipeline keeps it, and publishes it; then copies
 * every other share from its owner's device (cudaMemcpyPeerAsync on its own peer stream, after
 * the owner's "uploaded" event: a wait across devices), so its panels find the whole operand
 * kept, their kernels waiting for the shares still on their way (pipeline.cu).
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 */
#include <vector>

#include "executor.h"

using namespace tilemm_cuda;

namespace {

/* A piece of a share: its view as stored (what goes up), where it lies in the kept buffer, its
 * bytes there (packed). */
struct share_piece
{
  tilemm_view stored;
  size_t offset, bytes;
};

/* Where the pipeline keeps the shared operand (pipeline.cu), cut as the plan's shares cut it:
 * op(B) as op(B)ᵀ, n lines of k (its columns) one after the other, a step (a part) of them a
 * time, so a run of its columns is contiguous; op(A) as op(A)ᵀ a step of its rows at a time,
 * step y (rows y·sc …, cols of them) at y·sc·k, k lines of cols, so a run [k0, k1) of its inner
 * dimension is contiguous in each step. */
struct kept_geometry
{
  tilemm_keep which;
  int64_t step, m, n, k;
  size_t es;
  tilemm_op op;
  const tilemm_view *x;   /* A or B as stored, whole */

  /* The pieces of columns [c0, c1) of what the shares cut: at most one per step. */
  std::vector<share_piece> pieces (int64_t c0, int64_t c1) const
  {
    std::vector<share_piece> out;
    if (c1 <= c0)
      return out;
    if (which == TILEMM_KEEP_B)
      for (int64_t p0 = c0 / step * step; p0 < c1; p0 += step)
        {
          const int64_t j0 = p0 > c0 ? p0 : c0;
          const int64_t j1 = p0 + step < c1 ? p0 + step : c1;
          out.push_back ({ tilemm_view_op_sub (op, x, 0, j0, k, j1 - j0), (size_t) (j0 * k) * es,
                           (size_t) ((j1 - j0) * k) * es });
        }
    else
      for (int64_t r0 = 0; r0 < m; r0 += step)
        {
          const int64_t cols = m - r0 < step ? m - r0 : step;
          out.push_back ({ tilemm_view_op_sub (op, x, r0, c0, cols, c1 - c0),
                           (size_t) (r0 * k + c0 * cols) * es, (size_t) ((c1 - c0) * cols) * es });
        }
    return out;
  }
};

/* Columns [c0, c1) up from the host into the kept buffer `base` (through the scratch and the
 * device transpose, for a transposed operand: a piece is at most a step, as the scratch), on
 * ws.up. */
tilemm_status upload_share (workspace &ws, const kept_geometry &g, char *base, void *scratch,
                            int64_t c0, int64_t c1, tilemm_cuda_stats *st, tilemm_error *err)
{
  for (const share_piece &p : g.pieces (c0, c1))
    {
      char *const slot = base + p.offset;
      const bool t = g.op != TILEMM_OP_NONE;
      tilemm_status status = stage_up (ws, p.stored, t ? scratch : (void *) slot, st, err);
      if (status == TILEMM_OK && t)
        status = transpose_into_slot (ws, g.op, p.stored, scratch, slot, err);
      if (status != TILEMM_OK)
        return status;
    }
  return TILEMM_OK;
}

/* This device may read `peer`'s memory directly: enabled once per pair and kept by the driver
 * for the context's life, so "already enabled" is the answer of every product after the first. */
tilemm_status reach_peer (workspace &ws, int peer, tilemm_error *err)
{
  if (peer == ws.device)
    return TILEMM_OK;
  const cudaError_t e = cudaDeviceEnablePeerAccess (peer, 0);
  if (e == cudaErrorPeerAccessAlreadyEnabled)
    {
      cudaGetLastError ();   /* not an error: leave nothing for the next check to find */
      return TILEMM_OK;
    }
  CUDA_TRY (e, "cudaDeviceEnablePeerAccess(GPU %d reads GPU %d)", ws.device, peer);
  return TILEMM_OK;
}

} // namespace

namespace tilemm_cuda {

tilemm_status share_operand (workspace &ws, int worker, const tilemm_call_plan *plan,
                             unsigned long long product, tilemm_op op_a, const tilemm_view *a,
                             tilemm_op op_b, const tilemm_view *b, tilemm_exchange *exchange,
                             tilemm_cuda_stats *st, tilemm_error *err)
{
  const tilemm_exchange_plan &x = plan->exchange;
  if (x.path != TILEMM_EXCHANGE_PEER || worker < 0 || worker >= x.shares
      || (x.which != TILEMM_KEEP_A && x.which != TILEMM_KEEP_B) || product == 0)
    return tilemm_error_set (err, TILEMM_EINVAL, "worker %d: no share of an operand to exchange",
                             worker);
  /* The workspace every panel of this worker's queue runs in, made now: the share goes where
   * the panels keep the operand, and no panel makes the buffers anew. */
  tilemm_status status = reserve_for_panels (ws, &plan->sub[0][0], 4, op_a, op_b, err);
  if (status != TILEMM_OK)
    return status;
  const bool keep_a = x.which == TILEMM_KEEP_A;
  int64_t sr = 0, sc = 0;
  tilemm_plan_steps (&plan->sub[0][0], &sr, &sc);
  if ((keep_a ? sc : sr) != x.step)
    return tilemm_error_set (err, TILEMM_EINVAL, "the exchange's steps (%lld) are not the "
                             "panels' (%lld)", (long long) x.step, (long long) (keep_a ? sc : sr));
  kept_geometry g;
  g.which = x.which;
  g.step = x.step;
  g.m = plan->m;
  g.n = plan->n;
  g.k = plan->k;
  g.es = tilemm_type_size (plan->type);
  g.op = keep_a ? op_a : op_b;
  g.x = keep_a ? a : b;
  char *const base = (char *) ws.buffer[keep_a ? BUF_Y : BUF_X];
  void *const scratch = ws.buffer[keep_a ? BUF_YT : BUF_XT];
  /* Its own share up, then published: the others copy it once its event has happened. */
  status = upload_share (ws, g, base, scratch, x.first[worker], x.first[worker + 1], st, err);
  if (status != TILEMM_OK)
    return status;
  CUDA_TRY (cudaEventRecord (ws.share_up, ws.up), "cudaEventRecord");
  ws.published = { ws.device, base, ws.share_up };
  tilemm_exchange_publish (exchange, worker, &ws.published);
  /* The others' shares, the next worker's first, so that the owners' first readers differ. */
  for (int i = 1; i < x.shares; i++)
    {
      const int o = (worker + i) % x.shares;
      if (x.first[o + 1] <= x.first[o])
        continue;
      const void *handle = nullptr;
      const tilemm_share_state got = tilemm_exchange_await (exchange, o, &handle);
      if (got == TILEMM_SHARE_STOPPED)
        return tilemm_error_set (err, TILEMM_EINTERRUPTED,
                                 "stopped while waiting for worker %d's share", o);
      if (got == TILEMM_SHARE_ABSENT)
        {
          /* Its owner does not run: from the host, in the upload stream's order. */
          status = upload_share (ws, g, base, scratch, x.first[o], x.first[o + 1], st, err);
          if (status != TILEMM_OK)
            return status;
          CUDA_TRY (cudaEventRecord (ws.share_in[o], ws.up), "cudaEventRecord");
          continue;
        }
      const share_handle &h = *(const share_handle *) handle;
      status = reach_peer (ws, h.device, err);
      if (status != TILEMM_OK)
        return status;
      CUDA_TRY (cudaStreamWaitEvent (ws.peer, h.uploaded, 0),
                "cudaStreamWaitEvent(GPU %d's share)", h.device);
      for (const share_piece &p : g.pieces (x.first[o], x.first[o + 1]))
        {
          CUDA_TRY (TILEMM_FAULT_OR (TILEMM_FAULT_MEMCPY, cudaErrorInvalidValue,
                                     cudaMemcpyPeerAsync (base + p.offset, ws.device,
                                                          h.base + p.offset, h.device, p.bytes,
                                                          ws.peer)),
                    "cudaMemcpyPeerAsync(%zu bytes, GPU %d to GPU %d)", p.bytes, h.device,
                    ws.device);
          st->bytes_peer += (double) p.bytes;
        }
      CUDA_TRY (cudaEventRecord (ws.share_in[o], ws.peer), "cudaEventRecord");
    }
  /* The operand is kept as a panel of this product keeps it (pipeline.cu), its shares
   * arriving. */
  const int64_t sr_or_sc = x.step, k = plan->k;
  const tilemm_view whole = keep_a ? tilemm_view_op_sub (op_a, a, 0, 0, plan->m, k)
                                   : tilemm_view_op_sub (op_b, b, 0, 0, k, plan->n);
  (keep_a ? ws.kept_y : ws.kept_x)
    = kept_of (product, x.which, keep_a ? op_a : op_b, &whole, sr_or_sc, k);
  ws.arriving = product;
  ws.arriving_plan = &x;
  ws.arriving_worker = worker;
  return TILEMM_OK;
}

} // namespace tilemm_cuda
