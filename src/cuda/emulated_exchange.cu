/* emulated_exchange.cu — the operand every GPU worker of an emulated product holds whole (the
 * call plan's emu_exchange), sent once from the host: before its pass of statistics each worker
 * uploads its share of it, as op(x) packed in the place its panel reads the operand from, and
 * publishes it; the others' shares come from their owners' devices by peer copies (the native
 * product's machinery, peer_exchange.cu, in one step of the whole operand).  Its panel of
 * statistics sends only its own operand, then waits for every share: the statistics read the
 * shared operand whole, so they wait for its copies on the GPU, and on the host only for shares
 * not yet published.  The pass of products finds both operands kept (emulated_product.cu).
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 */
#include "executor.h"

namespace tilemm_cuda {

tilemm_status emu_share (workspace &ws, int worker, const tilemm_call_plan *plan,
                         const emu_stage &stage, tilemm_op op_a, const tilemm_view *a,
                         tilemm_op op_b, const tilemm_view *b, tilemm_exchange *exchange,
                         tilemm_cuda_stats *st, tilemm_error *err)
{
  const tilemm_exchange_plan &x = plan->emu_exchange;
  ws.arriving = 0;
  const bool keep_a = x.which == TILEMM_KEEP_A;
  const int64_t m = tilemm_op_rows (op_a, a), k = tilemm_op_cols (op_a, a);
  const int64_t n = tilemm_op_cols (op_b, b);
  if (x.path != TILEMM_EXCHANGE_PEER || worker < 0 || worker >= x.shares
      || (x.which != TILEMM_KEEP_A && x.which != TILEMM_KEEP_B) || stage.product == 0)
    return tilemm_error_set (err, TILEMM_EINVAL, "worker %d: no share of an emulated operand to "
                             "exchange", worker);
  /* One step of the whole operand, its shares of its whole extent: op(x) packed, as a panel
   * holds it (what publish_share's pieces then are). */
  if (x.step != (keep_a ? m : n) || x.extent != (keep_a ? k : n) || k < 1)
    return tilemm_error_set (err, TILEMM_EINVAL, "the emulated exchange cuts %lld of %lld in steps "
                             "of %lld, not op(%c) whole (%lld x %lld)", (long long) x.extent,
                             (long long) (keep_a ? k : n), (long long) x.step, keep_a ? 'A' : 'B',
                             (long long) (keep_a ? m : k), (long long) (keep_a ? k : n));
  /* The workspace of this worker's panels, made now as its panels make it (they then make
   * nothing anew, and find the shares where they read the operand). */
  tilemm_status status = emu_reserve (ws, stage, a->type, op_a, op_b, keep_a ? m : stage.most_m,
                                      keep_a ? stage.most_n : n, k, err);
  if (status != TILEMM_OK)
    return status;
  const tilemm_op op = keep_a ? op_a : op_b;
  const int stored = keep_a ? BUF_Y : BUF_X, transposed = keep_a ? BUF_YT : BUF_XT;
  /* op(x) where the panel reads it; a transposed share's pieces up as stored in the buffer the
   * panel would have sent the operand into, then transposed into their place. */
  char *const base = (char *) ws.buffer[op != TILEMM_OP_NONE ? transposed : stored];
  return publish_share (ws, worker, &x, stage.product, m, k, op, keep_a ? a : b, base,
                        ws.buffer[stored], exchange, st, err);
}

bool emu_shared_here (const workspace &ws, const emu_stage &stage, tilemm_keep which, tilemm_op op,
                      const tilemm_view *v)
{
  const tilemm_view &s = ws.arriving_stored;
  return ws.arriving != 0 && ws.arriving == stage.product && ws.arriving_plan
         && ws.arriving_plan->which == which && ws.arriving_op == op && s.data == v->data
         && s.rows == v->rows && s.cols == v->cols && s.stride == v->stride && s.type == v->type;
}

tilemm_status emu_wait_shares (workspace &ws, cudaStream_t s, tilemm_error *err)
{
  const tilemm_exchange_plan *x = ws.arriving_plan;
  if (ws.arriving == 0 || !x)
    return TILEMM_OK;
  for (int o = 0; o < x->shares; o++)
    if (o != ws.arriving_worker && x->first[o + 1] > x->first[o])
      CUDA_TRY (cudaStreamWaitEvent (s, ws.share_in[o], 0),
                "cudaStreamWaitEvent(share %d of the emulated operand)", o);
  /* Every share's copy is enqueued and waited for by the panel's stream (the product's end
   * waits for the peer streams whatever happens): nothing is arriving any more. */
  ws.arriving = 0;
  return TILEMM_OK;
}

} /* namespace tilemm_cuda */
