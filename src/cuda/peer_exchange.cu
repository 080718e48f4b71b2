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

namespace {

/* The geometry of the operand product ws.arriving shares, as share_operand left it. */
kept_geometry arriving_geometry (const workspace &ws)
{
  kept_geometry g;
  g.which = ws.arriving_plan->which;
  g.step = ws.arriving_plan->step;
  g.m = ws.arriving_m;
  g.n = 0;   /* (not read: op(B)'s shares cut its columns, of k each) */
  g.k = ws.arriving_k;
  g.es = tilemm_type_size (ws.arriving_stored.type);
  g.op = ws.arriving_op;
  g.x = &ws.arriving_stored;
  return g;
}

/* Share o in, its copy enqueued and share_in[o] recorded after it: from its owner's device on
 * ws.peer once the owner's upload event has happened (a wait across devices, on the GPU), or,
 * where its owner does not run, from the host in the upload stream's order. */
tilemm_status copy_share_in (workspace &ws, const kept_geometry &g, int o, int got,
                             const void *handle, tilemm_cuda_stats *st, tilemm_error *err)
{
  const tilemm_exchange_plan &x = *ws.arriving_plan;
  char *const base = ws.arriving_base;
  if (got == TILEMM_SHARE_ABSENT)
    {
      void *const scratch = ws.arriving_scratch;
      const tilemm_status status = upload_share (ws, g, base, scratch, x.first[o],
                                                 x.first[o + 1], st, err);
      if (status != TILEMM_OK)
        return status;
      CUDA_TRY (cudaEventRecord (ws.share_in[o], ws.up), "cudaEventRecord");
      return TILEMM_OK;
    }
  const share_handle &h = *(const share_handle *) handle;
  tilemm_status status = reach_peer (ws, h.device, err);
  if (status != TILEMM_OK)
    return status;
  CUDA_TRY (cudaStreamWaitEvent (ws.peer, h.uploaded, 0), "cudaStreamWaitEvent(GPU %d's share)",
            h.device);
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
  return TILEMM_OK;
}

} // namespace

namespace tilemm_cuda {

tilemm_status receive_shares (workspace &ws, tilemm_cuda_stats *st, tilemm_error *err)
{
  if (ws.arriving == 0 || ws.arriving_left == 0)
    return TILEMM_OK;
  const tilemm_exchange_plan &x = *ws.arriving_plan;
  const kept_geometry g = arriving_geometry (ws);
  /* The next worker's first, so that the owners' first readers differ. */
  for (int i = 1; i < x.shares; i++)
    {
      const int o = (ws.arriving_worker + i) % x.shares;
      if (!ws.arriving_pending[o])
        continue;
      const void *handle = nullptr;
      const int got = tilemm_exchange_poll (ws.arriving_exchange, o, &handle);
      if (got == 0)
        continue;   /* not yet: asked again after the pipeline's next round */
      if (got == TILEMM_SHARE_STOPPED)
        return tilemm_error_set (err, TILEMM_EINTERRUPTED,
                                 "stopped while waiting for worker %d's share", o);
      const tilemm_status status = copy_share_in (ws, g, o, got, handle, st, err);
      if (status != TILEMM_OK)
        return status;
      ws.arriving_pending[o] = false;
      ws.arriving_left--;
    }
  return TILEMM_OK;
}

tilemm_status await_shares (workspace &ws, tilemm_cuda_stats *st, tilemm_error *err)
{
  if (ws.arriving == 0)
    return TILEMM_OK;
  /* Each missing share waited for on the host (published, absent, or the product stopping),
   * then every one of them copied in. */
  for (int o = 0; o < TILEMM_MAX_WORKERS && ws.arriving_left > 0; o++)
    if (ws.arriving_pending[o])
      {
        const void *handle = nullptr;
        tilemm_exchange_await (ws.arriving_exchange, o, &handle);
      }
  const tilemm_status status = receive_shares (ws, st, err);
  if (status == TILEMM_OK && ws.arriving_left > 0)   /* cannot happen: every one answered */
    return tilemm_error_set (err, TILEMM_EINVAL, "%d shares never came", ws.arriving_left);
  return status;
}

bool shares_enqueued (const workspace &ws, int64_t begin, int64_t end)
{
  if (ws.arriving == 0 || ws.arriving_left == 0)
    return true;
  int first = 0, last = -1;
  tilemm_exchange_shares_of (ws.arriving_plan, begin, end, &first, &last);
  for (int o = first; o <= last; o++)
    if (ws.arriving_pending[o])
      return false;
  return true;
}

tilemm_status share_operand (workspace &ws, int worker, const tilemm_call_plan *plan,
                             unsigned long long product, tilemm_op op_a, const tilemm_view *a,
                             tilemm_op op_b, const tilemm_view *b, tilemm_exchange *exchange,
                             tilemm_cuda_stats *st, tilemm_error *err)
{
  const tilemm_exchange_plan &x = plan->exchange;
  ws.arriving = 0;
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
  /* Its share up from the host into the buffer the pipeline keeps the operand in (a transposed
   * one through that operand's own scratch: the pipeline uploads only the other operand), the
   * others' arriving; the operand kept as a panel of this product keeps it (pipeline.cu). */
  status = publish_share (ws, worker, &x, product, plan->m, plan->k, keep_a ? op_a : op_b,
                          keep_a ? a : b, (char *) ws.buffer[keep_a ? BUF_Y : BUF_X],
                          ws.buffer[keep_a ? BUF_YT : BUF_XT], exchange, st, err);
  const tilemm_view whole = keep_a ? tilemm_view_op_sub (op_a, a, 0, 0, plan->m, plan->k)
                                   : tilemm_view_op_sub (op_b, b, 0, 0, plan->k, plan->n);
  if (status == TILEMM_OK)
    (keep_a ? ws.kept_y : ws.kept_x)
      = kept_of (product, x.which, keep_a ? op_a : op_b, &whole, x.step, plan->k);
  return status;
}

tilemm_status publish_share (workspace &ws, int worker, const tilemm_exchange_plan *x,
                             unsigned long long product, int64_t m, int64_t k, tilemm_op op,
                             const tilemm_view *stored, char *base, void *scratch,
                             tilemm_exchange *exchange, tilemm_cuda_stats *st, tilemm_error *err)
{
  ws.arriving = 0;
  ws.arriving_plan = x;
  ws.arriving_worker = worker;
  ws.arriving_exchange = exchange;
  ws.arriving_stored = *stored;
  ws.arriving_op = op;
  ws.arriving_m = m;
  ws.arriving_k = k;
  ws.arriving_base = base;
  ws.arriving_scratch = scratch;
  const kept_geometry g = arriving_geometry (ws);
  /* Its own share up, then published: the others copy it once its event has happened. */
  tilemm_status status = upload_share (ws, g, base, scratch, x->first[worker],
                                       x->first[worker + 1], st, err);
  if (status != TILEMM_OK)
    return status;
  CUDA_TRY (cudaEventRecord (ws.share_up, ws.up), "cudaEventRecord");
  ws.published = { ws.device, base, ws.share_up };
  tilemm_exchange_publish (exchange, worker, &ws.published);
  /* The others' shares: those published by now copied in at once, the rest as they are
   * published. */
  ws.arriving_left = 0;
  for (int o = 0; o < TILEMM_MAX_WORKERS; o++)
    {
      ws.arriving_pending[o] = o < x->shares && o != worker && x->first[o + 1] > x->first[o];
      ws.arriving_left += ws.arriving_pending[o];
    }
  ws.arriving = product;
  return receive_shares (ws, st, err);
}

} // namespace tilemm_cuda
