/* emulated_product.cu — an emulated product's panel on one device: A and B up through the
 * staging, the scheme on the device in the workspace's arena, C back in column blocks.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 */
#include <stdlib.h>

#include "executor.h"

using namespace tilemm_cuda;

namespace tilemm_cuda {

/* The workspace for the largest emulated panel this worker may take (executor.h), made before
 * its first panel (and by emu_share before the exchange puts the shared operand in it). */
tilemm_status emu_reserve (workspace &ws, const emu_stage &stage, tilemm_type type, tilemm_op op_a,
                           tilemm_op op_b, int64_t m, int64_t n, int64_t k, tilemm_error *err)
{
  const size_t es = tilemm_type_size (type);
  const int64_t ka = k > 0 ? k : 1;
  const bool stats_only = stage.kind == emu_stage::STATS;
  /* The workspace for the largest panel the worker may take (stage.most_*), and with C from the
   * pass of statistics on: the pass of products then grows nothing, and finds the operands. */
  const int64_t mm = m > stage.most_m ? m : stage.most_m, nn = n > stage.most_n ? n : stage.most_n;
  const size_t b_bytes = es * (size_t) ka * (size_t) nn, a_bytes = es * (size_t) mm * (size_t) ka;
  const bool keeping = stage.product != 0;
  const size_t bytes[NBUF] = { b_bytes, a_bytes,
                               stats_only && !keeping ? 0 : es * (size_t) mm * (size_t) nn,
                               op_b != TILEMM_OP_NONE ? b_bytes : 0,
                               op_a != TILEMM_OP_NONE ? a_bytes : 0 };
  /* C's blocks: one event each, from the ring the pipeline's steps use. */
  const int64_t block_cols = stage.block_cols > 0 && stage.block_cols < n ? stage.block_cols : n;
  const int blocks = (int) ((nn + block_cols - 1) / (block_cols > 0 ? block_cols : 1));
  return workspace_reserve (ws, bytes, (size_t) blocks, err);
}

/* One panel of an emulated product (emulated.h) C = op_a(A)·op_b(B) on the calling thread's
 * workspace: A and B go up as stored through the pinned staging into the workspace's buffers
 * (a transposed operand is then transposed on the device, as the native product's), the scheme
 * runs on the device in the workspace's arena, C comes back through the staging in column
 * blocks, each as soon as the device has finished it (tilemm_emu_result_block_cols), while the
 * device computes the next.  pass NULL: the whole scheme (statistics, the plan, the product;
 * *used gets the plan); else pass->kind says: the statistics only, merged into *stats, or the
 * product under pass->plan. */
tilemm_status emu_panel (workspace &ws, const emu_stage &stage, tilemm_op op_a,
                         const tilemm_view *a,
                         tilemm_op op_b, const tilemm_view *b, const tilemm_view *c,
                         const tilemm_stop *stop, tilemm_emu_stats *stats, tilemm_emu_plan *used,
                         tilemm_cuda_stats *st, tilemm_error *err)
{
  const tilemm_type type = a->type;
  const size_t es = tilemm_type_size (type);
  const int64_t m = tilemm_op_rows (op_a, a), k = tilemm_op_cols (op_a, a);
  const int64_t n = tilemm_op_cols (op_b, b), ka = k > 0 ? k : 1;
  const bool stats_only = stage.kind == emu_stage::STATS;
  memset (used, 0, sizeof *used);
  if (m == 0 || n == 0)
    return TILEMM_OK;
  const int64_t mm = m > stage.most_m ? m : stage.most_m, nn = n > stage.most_n ? n : stage.most_n;
  const bool keeping = stage.product != 0;
  const int64_t block_cols = stage.block_cols > 0 && stage.block_cols < n ? stage.block_cols : n;
  const int blocks = (int) ((nn + block_cols - 1) / block_cols);
  tilemm_status status = emu_reserve (ws, stage, type, op_a, op_b, m, n, k, err);
  if (status != TILEMM_OK)
    return status;
  /* This panel's operands, still on the device from this worker's pass of statistics: not sent
   * (nor transposed) again.  Anything else sent ends what the buffers kept. */
  const kept_operand mine_a = kept_of (stage.product, TILEMM_KEEP_A, op_a, a, -1, k);
  const kept_operand mine_b = kept_of (stage.product, TILEMM_KEEP_B, op_b, b, -1, k);
  const bool kept = keeping && same_kept (ws.kept_y, mine_a) && same_kept (ws.kept_x, mine_b);
  ws.kept_x.product = ws.kept_y.product = 0;
  /* The operand the workers share, in place as op(x) from the exchange (emu_share: this
   * worker's share from the host, the others' on their way from their GPUs): not sent, nor
   * transposed, here. */
  const bool a_in = keeping && !kept && k > 0 && emu_shared_here (ws, stage, TILEMM_KEEP_A, op_a, a);
  const bool b_in = keeping && !kept && k > 0 && emu_shared_here (ws, stage, TILEMM_KEEP_B, op_b, b);
  /* The scheme's arena, sized before it (the scheme allocates nothing), for the largest panel. */
  const tilemm_emu_cuda_setup setup = { stage.gemm, 0, stage.branches, nullptr, stage.stats_gemm,
                                        stage.gemm_blocks, stage.multiprocessors };
  size_t arena[4];
  tilemm_emu_cuda_arena_need (type, mm, nn, k, stage.options,
                              stage.kind == emu_stage::PRODUCT ? stage.plan->moduli : 0,
                              stage.kind == emu_stage::WHOLE   ? TILEMM_EMU_RUN_WHOLE
                              : stats_only                     ? TILEMM_EMU_RUN_STATS
                                                               : TILEMM_EMU_RUN_GIVEN,
                              setup.chunk_tiles, arena);
  if ((status = emu_arena_reserve (ws, arena, err)) != TILEMM_OK)
    return status;
  void *const dC = ws.buffer[BUF_C];
  const tilemm_emu_cuda_blocks c_blocks = { block_cols, (void *const *) ws.ring[EV_COMP],
                                            (int) ws.ring_size };
  st->panels++;
  /* The split of __tilemm_stats__, on the host clock: until the last upload is enqueued, the
   * scheme until its last block is enqueued (it waits for the tail of the uploads and for the
   * statistics), C coming back (while the device computes its later blocks). */
  auto t0 = std::chrono::steady_clock::now ();
  if (k > 0 && !kept
      && ((!a_in && (status = stage_up (ws, *a, ws.buffer[BUF_Y], st, err)) != TILEMM_OK)
          || (!b_in && (status = stage_up (ws, *b, ws.buffer[BUF_X], st, err)) != TILEMM_OK)))
    return status;
  /* The shared operand's shares not yet on their way (their owners still sending theirs from
   * the host) waited for now, after this panel's own operand went up: the statistics read it
   * whole. */
  if ((a_in || b_in) && (status = await_shares (ws, st, err)) != TILEMM_OK)
    return status;
  st->upload_ms += ms_since (t0);
  t0 = std::chrono::steady_clock::now ();
  cudaStream_t s = ws.comp[0];
  CUDA_TRY (cudaEventRecord (ws.t_begin, ws.up), "cudaEventRecord");
  CUDA_TRY (cudaStreamWaitEvent (s, ws.t_begin, 0), "cudaStreamWaitEvent");
  if ((a_in || b_in) && (status = emu_wait_shares (ws, s, err)) != TILEMM_OK)
    return status;
  const void *a_ready = ws.buffer[op_a != TILEMM_OP_NONE ? BUF_YT : BUF_Y];
  const void *b_ready = ws.buffer[op_b != TILEMM_OP_NONE ? BUF_XT : BUF_X];
  if (k > 0 && !kept
      && ((!a_in
           && (status = operand_on_device (ws, op_a, a, BUF_Y, BUF_YT, s, &a_ready, err))
                != TILEMM_OK)
          || (!b_in
              && (status = operand_on_device (ws, op_b, b, BUF_X, BUF_XT, s, &b_ready, err))
                   != TILEMM_OK)))
    return status;
  if (keeping)
    {
      ws.kept_y = mine_a;
      ws.kept_x = mine_b;
    }
  void *const dA = (void *) a_ready, *const dB = (void *) b_ready;
  const int64_t ld = m > 1 ? m : 1;
  if (stage.kind == emu_stage::WHOLE)
    status = tilemm_emu_cuda_run (stage.options, &setup, type, m, n, k, dA, ld, dB, ka, dC, ld, s,
                                  stop, used, nullptr, nullptr, &ws.emu, &c_blocks, err);
  else if (stats_only)
    status = tilemm_emu_cuda_stats (stage.options, &setup, type, m, n, k, dA, ld, dB, ka, s, stats,
                                    &ws.emu, err);
  else
    status = tilemm_emu_cuda_run_plan (stage.plan, &setup, type, m, n, k, dA, ld, dB, ka, dC, ld, s,
                                       stop, used, nullptr, &ws.emu, &c_blocks, err);
  st->compute_ms += ms_since (t0);
  if (status != TILEMM_OK || stats_only || used->verdict != TILEMM_EMU_OK)
    return status;
  t0 = std::chrono::steady_clock::now ();
  /* C's pages: asked for as huge pages and faulted in by the copies of its blocks in their
   * stride, as the native pipeline's (threads of their own only where TILEMM_PREFAULT_THREADS
   * says: they populate the pages beside the copies, MADV_POPULATE_WRITE, bytes untouched).  Not
   * before the launches: page faults by the thousand hold up the host's own calls into the
   * driver (statistics back, launches), and the device would wait for those. */
  prefault_guard prefault;
  prefault.p = prepare_result (ws, c, st);
  for (int j = 0; j < blocks && status == TILEMM_OK; j++)
    {
      if (j > 0 && tilemm_stop_requested (stop)) /* the device's work is drained by the caller */
        status = tilemm_error_set (err, TILEMM_EINTERRUPTED, "interrupted");
      else
        {
          const int64_t j0 = j * block_cols, cols = n - j0 < block_cols ? n - j0 : block_cols;
          const tilemm_view cj = tilemm_view_sub (c, 0, j0, m, cols);
          status = stage_down (ws, (char *) dC + (size_t) j0 * (size_t) ld * es, cj,
                               ws.ring[EV_COMP][j],
                               st, err);
        }
    }
  st->download_ms += ms_since (t0);
  return status;
}


} /* namespace tilemm_cuda */
