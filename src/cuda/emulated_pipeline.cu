/* emulated_pipeline.cu — an emulated product of one pass on one device, pipelined in panels of
 * C's columns (tilemm_call_plan.emu_pipe_first, then emu_pipe_cols each): A up whole, then each
 * panel's columns of B sent while the device computes the panel before, and each panel's C brought back in blocks while
 * the device computes the next.  A real A's work (exponents, sums, lo(A), residues) is done
 * once, by the first panel's calls, and kept in the arena for the others (tilemm_emu_cuda_keep,
 * emulated_scheme.h): every later panel does B's part, the GEMMs and the CRT only.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 *
 * The plan of an emulated product (its moduli and widths) is selected from statistics over
 * every (row of A, column of B) pair; each entry of C depends on its row of A, its column of B
 * and that plan only (emulated_passes.c).  So panel p runs under the branch that the statistics
 * of panels 0..p, merged (each a maximum, exact), select; the last panel's selection is the
 * whole product's, and a panel computed under another branch is computed again under it (B's
 * columns are still on the device): bitwise the product of one panel whatever the cut.  The
 * statistics of a panel cover all of A and the panel's columns of B, exactly what the merge of
 * the whole product needs, nothing of another panel.
 *
 * The host thread's order keeps the device fed: with panel p's product enqueued, it sends the
 * columns of B of panel p + 1 and brings C of panel p − 1 back, then waits for the statistics of
 * panel p + 1 (enqueued after panel p's product).  The staging and the copy team are the ones
 * every product uses (stage_up, stage_down in staging.cu).
 */
#include <stdlib.h>

#include "executor.h"

using namespace tilemm_cuda;

namespace tilemm_cuda {

namespace {

/* What the product of an entry depends on in a plan (its log2 figures are only reported). */
bool same_branch (const tilemm_emu_plan &x, const tilemm_emu_plan &y)
{
  return x.verdict == y.verdict && x.moduli == y.moduli && x.pa == y.pa && x.pb == y.pb;
}

/* One pipelined product's state on the workspace. */
struct emu_pipe
{
  workspace &ws;
  const emu_stage &stage;
  tilemm_op op_a, op_b;
  const tilemm_view *a, *b, *c;
  tilemm_type type;
  size_t es;
  int64_t m, n, k, ka, ld, first_cols, cols, block_cols;
  int panels, blocks_per_panel;
  const void *dA;
  char *dB, *dC;
  tilemm_emu_cuda_setup setup;
  tilemm_cuda_stats *st;
  tilemm_error *err;

  int64_t first (int p) const { return p == 0 ? 0 : first_cols + (int64_t) (p - 1) * cols; }
  int64_t width (int p) const
  {
    const int64_t w = p == 0 ? first_cols : cols;
    return n - first (p) < w ? n - first (p) : w;
  }
  char *b_panel (int p) const { return dB + es * (size_t) ka * (size_t) first (p); }
  cudaEvent_t block_done (int p, int j) const
  {
    return ws.ring[EV_COMP][(size_t) p * (size_t) blocks_per_panel + (size_t) j];
  }

  /* Panel p's columns of B up (a transposed B's rows as stored, then transposed into place on
   * ws.up), and its event recorded on ws.up after them. */
  tilemm_status send_b (int p)
  {
    const auto t0 = std::chrono::steady_clock::now ();
    const int64_t j0 = first (p), w = width (p);
    tilemm_status status;
    if (op_b == TILEMM_OP_NONE)
      status = stage_up (ws, tilemm_view_sub (b, 0, j0, k, w), b_panel (p), st, err);
    else
      {
        char *const scratch = (char *) ws.buffer[BUF_XT] + es * (size_t) k * (size_t) j0;
        status = stage_up (ws, tilemm_view_sub (b, j0, 0, w, k), scratch, st, err);
        if (status == TILEMM_OK)
          status = tilemm_cuda_transpose (type, op_b == TILEMM_OP_CTRANSPOSE, scratch, w, k, w,
                                          b_panel (p), ka, ws.up, err);
      }
    if (status != TILEMM_OK)
      return status;
    CUDA_TRY (cudaEventRecord (ws.ring[EV_X][p], ws.up), "cudaEventRecord(panel %d of B)", p);
    st->upload_ms += ms_since (t0);
    return TILEMM_OK;
  }

  /* Panel p's statistics (all of A, its columns of B) once its columns are up: waited for. */
  tilemm_status statistics (int p, tilemm_emu_stats *stats)
  {
    const auto t0 = std::chrono::steady_clock::now ();
    cudaStream_t s = ws.comp[0];
    CUDA_TRY (cudaStreamWaitEvent (s, ws.ring[EV_X][p], 0), "cudaStreamWaitEvent");
    const tilemm_status status
      = tilemm_emu_cuda_stats (stage.options, &setup, type, m, width (p), k, dA, ld, b_panel (p),
                               ka, s, stats, &ws.emu, err);
    st->compute_ms += ms_since (t0);
    return status;
  }

  /* Panel p's product under `plan`, enqueued; its blocks' events recorded as each is done. */
  tilemm_status product (int p, const tilemm_emu_plan &plan, const tilemm_stop *stop)
  {
    const auto t0 = std::chrono::steady_clock::now ();
    const tilemm_emu_cuda_blocks blocks
      = { block_cols, (void *const *) &ws.ring[EV_COMP][(size_t) p * (size_t) blocks_per_panel],
          blocks_per_panel };
    tilemm_emu_plan ran;
    const tilemm_status status
      = tilemm_emu_cuda_run_plan (&plan, &setup, type, m, width (p), k, dA, ld, b_panel (p), ka,
                                  dC + es * (size_t) ld * (size_t) first (p), ld, ws.comp[0],
                                  stop, &ran, nullptr, &ws.emu, &blocks, err);
    st->steps++; /* panels' products run, a panel run again under the whole's branch counted twice */
    st->compute_ms += ms_since (t0);
    return status;
  }

  /* Panel p's C back, block by block as the device finishes each. */
  tilemm_status bring_back (int p, const tilemm_stop *stop)
  {
    const auto t0 = std::chrono::steady_clock::now ();
    tilemm_status status = TILEMM_OK;
    const int64_t j0 = first (p), w = width (p);
    for (int j = 0; (int64_t) j * block_cols < w && status == TILEMM_OK; j++)
      {
        if (tilemm_stop_requested (stop)) /* the device's work is drained by the caller */
          return tilemm_error_set (err, TILEMM_EINTERRUPTED, "interrupted");
        const int64_t c0 = (int64_t) j * block_cols;
        const int64_t bw = w - c0 < block_cols ? w - c0 : block_cols;
        status = stage_down (ws, dC + es * (size_t) ld * (size_t) (j0 + c0),
                             tilemm_view_sub (c, 0, j0 + c0, m, bw), block_done (p, j), st, err);
      }
    st->download_ms += ms_since (t0);
    return status;
  }
};

} /* namespace */

tilemm_status emu_pipelined (workspace &ws, const emu_stage &stage, int64_t first_cols,
                             int64_t panel_cols, tilemm_op op_a, const tilemm_view *a, tilemm_op op_b,
                             const tilemm_view *b, const tilemm_view *c, const tilemm_stop *stop,
                             tilemm_emu_plan *used, tilemm_cuda_stats *st, tilemm_error *err)
{
  const tilemm_type type = a->type;
  const size_t es = tilemm_type_size (type);
  const int64_t m = tilemm_op_rows (op_a, a), k = tilemm_op_cols (op_a, a);
  const int64_t n = tilemm_op_cols (op_b, b);
  memset (used, 0, sizeof *used);
  if (m == 0 || n == 0)
    return TILEMM_OK;
  if (k == 0 || panel_cols <= 0 || first_cols <= 0 || first_cols >= n)
    return tilemm_error_set (err, TILEMM_EINVAL, "emulated pipeline: panels of %lld, then %lld "
                             "columns of %lld, k = %lld (the plan pipelines k > 0 in two panels "
                             "or more)", (long long) first_cols, (long long) panel_cols,
                             (long long) n, (long long) k);
  const int panels = 1 + (int) ((n - first_cols + panel_cols - 1) / panel_cols);
  const int64_t widest = first_cols > panel_cols ? first_cols : panel_cols;
  const int64_t block_cols = stage.block_cols > 0 && stage.block_cols < widest
                               ? stage.block_cols : widest;
  const int blocks_per_panel = (int) ((widest + block_cols - 1) / block_cols);
  /* A, B and C whole (B's panels side by side, transposed ones through BUF_XT), as the panel of
   * one pass holds them; one event per panel of B and per block of C. */
  const size_t b_bytes = es * (size_t) k * (size_t) n, a_bytes = es * (size_t) m * (size_t) k;
  const size_t bytes[NBUF] = { b_bytes, a_bytes, es * (size_t) m * (size_t) n,
                               op_b != TILEMM_OP_NONE ? b_bytes : 0,
                               op_a != TILEMM_OP_NONE ? a_bytes : 0 };
  const size_t ring = (size_t) panels * (size_t) blocks_per_panel;
  tilemm_status status = workspace_reserve (ws, bytes, ring > (size_t) panels ? ring : panels, err);
  if (status != TILEMM_OK)
    return status;
  ws.kept_x.product = ws.kept_y.product = 0;
  /* The arena for the widest panel: its statistics and its product at the most moduli. */
  size_t arena[4];
  tilemm_emu_cuda_arena_need (type, m, widest, k, stage.options, 0, TILEMM_EMU_RUN_WHOLE, 0,
                              arena);
  /* A's work (exponents, sums, lo(A), residues) done by the first panel's calls and kept in
   * the arena for the others (a real product's; a complex one forms its real operands anew) */
  tilemm_emu_cuda_keep keep;
  memset (&keep, 0, sizeof keep);
  const bool keeps_a = !tilemm_type_is_complex (type);
  if (keeps_a)
    tilemm_emu_cuda_arena_keep_a (type, m, widest, k, 0, arena);
  if ((status = emu_arena_reserve (ws, arena, err)) != TILEMM_OK)
    return status;
  emu_pipe pp = { ws, stage, op_a, op_b, a, b, c, type, es, m, n, k, k,
                  m > 1 ? m : 1, first_cols, panel_cols, block_cols, panels, blocks_per_panel,
                  nullptr, (char *) ws.buffer[BUF_X], (char *) ws.buffer[BUF_C],
                  { stage.gemm, 0, stage.branches, keeps_a ? &keep : nullptr, stage.stats_gemm,
                    stage.gemm_blocks, stage.multiprocessors }, st, err };
  st->panels++;
  /* A whole (every panel reads all of it), transposed on ws.up where it is. */
  auto t0 = std::chrono::steady_clock::now ();
  if ((status = stage_up (ws, *a, ws.buffer[BUF_Y], st, err)) != TILEMM_OK
      || (status = operand_on_device (ws, op_a, a, BUF_Y, BUF_YT, ws.up, &pp.dA, err))
           != TILEMM_OK)
    return status;
  st->upload_ms += ms_since (t0);
  if ((status = pp.send_b (0)) != TILEMM_OK)
    return status;

  /* The branch each panel ran under (verdict other than OK: not run), and whether its C came
   * back under that branch. */
  struct panel_state
  {
    tilemm_emu_plan plan;
    bool back;
  };
  panel_state *ran = (panel_state *) calloc ((size_t) panels, sizeof *ran);
  if (!ran)
    return tilemm_error_set (err, TILEMM_ENOMEM, "%s", tilemm_strerror (TILEMM_ENOMEM));
  tilemm_emu_stats merged;
  memset (&merged, 0, sizeof merged);
  merged.inner = tilemm_type_is_complex (type) ? 2 * k : k;
  tilemm_emu_plan now;
  memset (&now, 0, sizeof now);
  prefault_guard prefault;
  for (int p = 0; p < panels && status == TILEMM_OK; p++)
    {
      tilemm_emu_stats stats;
      if (p > 0 && tilemm_stop_requested (stop))
        {
          status = tilemm_error_set (err, TILEMM_EINTERRUPTED, "interrupted");
          break;
        }
      if ((status = pp.statistics (p, &stats)) != TILEMM_OK)
        break;
      tilemm_emu_stats_merge (&merged, &stats);
      tilemm_emu_select (stage.branches, &merged, &now);
      if (merged.nonfinite)
        break; /* the whole product's verdict: no panel runs */
      if (now.verdict == TILEMM_EMU_OK)
        {
          if ((status = pp.product (p, now, stop)) != TILEMM_OK)
            break;
          ran[p].plan = now;
        }
      if (p == 0)
        prefault.p = prepare_result (ws, c, st); /* as emu_panel: after the first launches */
      /* While the device computes panel p: B of panel p + 1 up, C of panel p − 1 back (unless
       * its branch is no longer the one the statistics so far select: it will run again). */
      if (p + 1 < panels && (status = pp.send_b (p + 1)) != TILEMM_OK)
        break;
      if (p > 0 && ran[p - 1].plan.verdict == TILEMM_EMU_OK && same_branch (ran[p - 1].plan, now))
        {
          status = pp.bring_back (p - 1, stop);
          ran[p - 1].back = true;
        }
    }
  if (status == TILEMM_OK)
    {
      /* The whole product's branch: a panel run under another runs again under it; each
       * panel's C back once under it. */
      *used = now;
      if (now.verdict == TILEMM_EMU_OK)
        {
          for (int p = 0; p < panels && status == TILEMM_OK; p++)
            if (ran[p].plan.verdict != TILEMM_EMU_OK || !same_branch (ran[p].plan, now))
              {
                status = pp.product (p, now, stop);
                ran[p].plan = now;
                ran[p].back = false;
              }
          for (int p = 0; p < panels && status == TILEMM_OK; p++)
            if (!ran[p].back)
              status = pp.bring_back (p, stop);
        }
    }
  free (ran);
  return status;
}

} /* namespace tilemm_cuda */
