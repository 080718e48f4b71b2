/* backend_ops.cu — the GPU's table (backend.h: tilemm_cuda_backend_ops): what the executor asks
 * of the CUDA backend.  Each operation runs one thing on the workspace of its worker (the
 * executor's worker w uses ws_pool[w], handed to what it runs, on its own thread, bound to its
 * device); the product's
 * turn (begin to end) holds ws_mutex, so products take turns on the workspaces.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 */
#include <stdlib.h>

#include "batch.h"
#include "executor.h"

using namespace tilemm_cuda;

namespace {

/* One product's state, from begin to end. */
struct product_state
{
  const tilemm_call_plan *plan;           /* the call's plan (NULL: a low-level entry's)   */
  unsigned long long serial;              /* this product's number (what a worker kept
                                             between its panels is this product's only)    */
  std::chrono::steady_clock::time_point t0;
  int caller_device;
  int used[TILEMM_MAX_WORKERS];           /* the device each worker started on, or -1     */
  tilemm_cuda_stats st[TILEMM_MAX_WORKERS];
  int threads[TILEMM_MAX_WORKERS];        /* each worker's copy team's members            */
  std::chrono::steady_clock::time_point started[TILEMM_MAX_WORKERS], ended[TILEMM_MAX_WORKERS];
  long long taken[TILEMM_MAX_WORKERS];    /* queue panels each worker took                */
  bool settled;                           /* every device's work waited for (a failure)  */
  bool streamed;                          /* a panel went through the pipeline: its download
                                             is what is left of the total                 */
};

/* Products numbered from 1 (under ws_mutex). */
unsigned long long products_begun = 0;

tilemm_status cuda_probe (tilemm_error *err)
{
  return locked_probe (err);
}

void cuda_facts (int with_budgets, tilemm_device_facts *facts)
{
  memset (facts, 0, sizeof *facts);
  facts->current = -1;
  std::lock_guard<std::mutex> lock (ws_mutex);
  tilemm_error why = { TILEMM_OK, "" };
  if (probe (&why) != TILEMM_OK)
    {
      facts->why_status = why.status;
      snprintf (facts->why, sizeof facts->why, "%s", why.detail);
      return;
    }
  facts->usable = 1;
  tilemm_workers usable;
  usable_devices (&usable, facts->cc_major, &facts->total, facts->numa_node, facts->local_cpus,
                  facts->multiprocessors);
  facts->count = usable.count;
  for (int i = 0; i < usable.count; i++)
    facts->device[i] = usable.device[i];
  int current = -1;
  if (cudaGetDevice (&current) == cudaSuccess)
    facts->current = current;
  cudaGetLastError ();
  /* Which devices can read each other's memory: the path of an operand the workers share
   * (the plan's exchange).  Asked at every call, as the devices' facts are. */
  if (usable.count > 1)
    {
      for (int i = 0; i < usable.count; i++)
        for (int j = 0; j < usable.count; j++)
          {
            int can = 0;
            if (i != j && cudaDeviceCanAccessPeer (&can, usable.device[i], usable.device[j])
                            != cudaSuccess)
              can = 0;
            facts->peer[i][j] = i == j || can;
          }
      facts->peers_known = 1;
      cudaGetLastError ();
    }
  facts->wgmma = tilemm_emu_cuda_wgmma_runs ();
  if (with_budgets)
    {
      for (int i = 0; i < usable.count; i++)
        device_memory (usable.device[i], &facts->memory_free[i], &facts->memory_total[i]);
      facts->budgets = 1;
    }
}

tilemm_status cuda_begin (const void *config, void **state, tilemm_error *err)
{
  if (!config)
    return tilemm_error_set (err, TILEMM_EINVAL, "GPU product: no call plan");
  ws_mutex.lock ();
  /* TILEMM_FAULT, a test hook: the call plan's, armed per product (fault.h) */
  tilemm_fault_begin (&((const tilemm_call_plan *) config)->fault);
  tilemm_status status = probe (err);
  product_state *s = status == TILEMM_OK ? (product_state *) calloc (1, sizeof (product_state))
                                         : nullptr;
  if (status == TILEMM_OK && !s)
    status = tilemm_error_set (err, TILEMM_ENOMEM, "no memory for the product's figures");
  int caller = 0;
  if (status == TILEMM_OK && cudaGetDevice (&caller) != cudaSuccess)
    {
      cudaGetLastError ();
      status = tilemm_error_set (err, TILEMM_ECUDA, "cudaGetDevice failed");
    }
  if (status != TILEMM_OK)
    {
      free (s);
      ws_mutex.unlock ();
      return status;
    }
  s->plan = (const tilemm_call_plan *) config;
  s->serial = ++products_begun;
  s->t0 = std::chrono::steady_clock::now ();
  s->caller_device = caller;
  for (int w = 0; w < TILEMM_MAX_WORKERS; w++)
    s->used[w] = -1;
  *state = s;
  return TILEMM_OK;
}

/* The figures of a product that ended with `status` on `workers` workers: one worker's as it
 * counted them (its download what is left of the total, where a panel streamed); on several,
 * each device's own, the sums of the copies and bytes, and the split of the device busy
 * longest (backend.h). */
tilemm_cuda_stats product_stats (const product_state *s, int workers, tilemm_status status)
{
  tilemm_cuda_stats st;
  memset (&st, 0, sizeof st);
  if (workers <= 1)
    st = s->st[0];
  double longest = -1;
  for (int w = 0; w < TILEMM_MAX_WORKERS; w++)
    {
      if (s->used[w] < 0)
        continue;
      const tilemm_cuda_stats &x = s->st[w];
      const double busy = s->taken[w] > 0 ? std::chrono::duration<double, std::milli> (
                                              s->ended[w] - s->started[w]).count ()
                                          : 0;
      tilemm_cuda_device_stats &d = st.device[st.devices++];
      d = device_stats (x, s->used[w], s->threads[w], s->taken[w], busy);
      if (workers > 1)
        {
          st.copy_in_ms += x.copy_in_ms;
          st.kernels_ms += x.kernels_ms;
          st.copy_out_ms += x.copy_out_ms;
          st.result_prep_ms += x.result_prep_ms;
          st.bytes_up += x.bytes_up;
          st.bytes_down += x.bytes_down;
          st.bytes_peer += x.bytes_peer;
          st.panels += x.panels;
          st.steps += x.steps;
          if (d.busy_ms > longest)
            {
              longest = d.busy_ms;
              st.upload_ms = d.upload_ms;
              st.compute_ms = d.compute_ms;
              st.download_ms = d.download_ms;
            }
        }
    }
  st.calls = last_stats.calls + 1;
  st.ok = status == TILEMM_OK;
  if (s->plan)
    st.operand_bytes = (double) tilemm_type_size (s->plan->type) * (double) s->plan->k
                       * ((double) s->plan->m + (double) s->plan->n);
  st.total_ms = ms_since (s->t0);
  if (workers <= 1 && s->streamed)
    st.download_ms = st.ok ? st.total_ms - st.upload_ms - st.compute_ms : 0;
  if (workers <= 1 && st.devices == 1)
    {
      st.device[0].busy_ms = st.total_ms;
      st.device[0].download_ms = st.download_ms;
    }
  accumulate_stats (st);
  return st;
}

/* The product's end: a stopped product's workspaces drained and kept, a failed one's freed (and
 * a context broken for good reset), the caller's device and workspace back, the figures kept
 * as the last product's (__tilemm_stats__), the turn given up. */
/* Waits for everything enqueued on every device of the product: a worker may still copy from
 * another's buffers (a share of the operand they share), so none is freed before all are idle. */
void settle (product_state *s)
{
  if (s->settled)
    return;
  s->settled = true;
  for (int w = 0; w < TILEMM_MAX_WORKERS; w++)
    if (s->used[w] >= 0 && cudaSetDevice (s->used[w]) == cudaSuccess)
      cudaDeviceSynchronize ();
  cudaGetLastError ();
}

void cuda_end (void *state, tilemm_status status)
{
  product_state *s = (product_state *) state;
  int workers = 0;
  for (int w = 0; w < TILEMM_MAX_WORKERS; w++)
    workers += s->used[w] >= 0;
  /* A worker that took no panel after its share went up has its upload and its peer copies
   * still running: done before the product returns and the next may touch their buffers. */
  for (int w = 0; w < TILEMM_MAX_WORKERS; w++)
    {
      workspace &ws = ws_pool[w];
      if (s->used[w] < 0 || !ws.peer || cudaSetDevice (ws.device) != cudaSuccess)
        continue;
      if ((cudaStreamSynchronize (ws.up) != cudaSuccess
           || cudaStreamSynchronize (ws.peer) != cudaSuccess)
          && status == TILEMM_OK)
        status = TILEMM_ECUDA;   /* a device in trouble: freed and reset below as after any
                                    failure, so the next product starts clean             */
    }
  if (status == TILEMM_EINTERRUPTED)
    for (int w = 0; w < TILEMM_MAX_WORKERS; w++)
      {
        if (s->used[w] < 0 || cudaSetDevice (s->used[w]) != cudaSuccess)
          continue;
        workspace_drain (ws_pool[w]);
      }
  else if (status != TILEMM_OK)
    {
      /* Every workspace (a reset below would orphan those of earlier products' workers). */
      pool_free_all ();
      for (int w = 0; w < TILEMM_MAX_WORKERS; w++)
        if (s->used[w] >= 0 && cudaSetDevice (s->used[w]) == cudaSuccess
            && cudaDeviceSynchronize () != cudaSuccess)
          cudaDeviceReset ();
    }
  cudaSetDevice (s->caller_device);
  cudaGetLastError ();
  last_stats = product_stats (s, workers, status);
  free (s);
  ws_mutex.unlock ();
}

/* On the worker's thread: its device (its workspace, ws_pool[worker], is handed to each panel)
 * and its workspace's copy team and staging, the plan's. */
tilemm_status cuda_worker_start (void *state, int worker, int device,
                                 const tilemm_copy_team *team, tilemm_error *err)
{
  product_state *s = (product_state *) state;
  s->used[worker] = device;
  s->started[worker] = s->ended[worker] = std::chrono::steady_clock::now ();
  CUDA_TRY (cudaSetDevice (device), "cudaSetDevice(%d)", device);
  const tilemm_staging_plan &staging = s->plan->staging;
  if (staging.chunks < 1 || staging.chunks > MAX_CHUNKS || staging.chunk_bytes == 0)
    return tilemm_error_set (err, TILEMM_EINVAL, "GPU worker: the call plan gives it no staging");
  const tilemm_status status = workspace_team (ws_pool[worker], team, err);
  if (status != TILEMM_OK)
    return status;
  ws_pool[worker].staging = staging;
  s->threads[worker] = ws_pool[worker].team_threads;
  return TILEMM_OK;
}

/* One panel (or chunk) of worker w, run by `panel` (tilemm_status (tilemm_cuda_stats *)) on the
 * worker's figures: when its work ended, how many it took, and (where the panel's own split
 * left the rest of its time uncounted: the pipeline times its uploads and kernels only) its
 * download. */
template <typename Panel> tilemm_status timed_panel (product_state *s, int worker, Panel panel)
{
  tilemm_cuda_stats &st = s->st[worker];
  const double up = st.upload_ms, comp = st.compute_ms, down = st.download_ms;
  const auto t0 = std::chrono::steady_clock::now ();
  const tilemm_status status = panel (&st);
  const auto t1 = std::chrono::steady_clock::now ();
  s->ended[worker] = t1;
  s->taken[worker]++;
  if (st.download_ms == down)
    st.download_ms += std::chrono::duration<double, std::milli> (t1 - t0).count ()
                      - (st.upload_ms - up) - (st.compute_ms - comp);
  return status;
}

/* After every worker stopped: a failed product frees the worker's workspace (kept otherwise, so
 * the next product allocates nothing). */
void cuda_worker_finish (void *state, int worker, int, int failed)
{
  if (!failed)
    return;
  settle ((product_state *) state);
  pool_free (worker);
}

/* Before worker `worker`'s first panel: its share of the operand the workers share up and
 * published, the others' copied in from their devices (peer_exchange.cu). */
tilemm_status cuda_share (void *state, int worker, tilemm_op op_a, const tilemm_view *a,
                          tilemm_op op_b, const tilemm_view *b, tilemm_exchange *exchange,
                          tilemm_error *err)
{
  product_state *s = (product_state *) state;
  if (!s->plan)
    return tilemm_error_set (err, TILEMM_EINVAL, "GPU share: no call plan");
  return share_operand (ws_pool[worker], worker, s->plan, s->serial, op_a, a, op_b, b, exchange,
                        &s->st[worker], err);
}

/* One panel of the native product: the pipeline (panels and steps, stoppable between steps; a
 * transposed operand transposed on the device step by step). */
tilemm_status cuda_product (void *state, int worker, const tilemm_plan *plan, tilemm_op op_a,
                            const tilemm_view *a, tilemm_op op_b, const tilemm_view *b,
                            const tilemm_view *c, const tilemm_stop *stop, tilemm_error *err)
{
  product_state *s = (product_state *) state;
  workspace &ws = ws_pool[worker];
  bool done;
  tilemm_status status = entry_checks (plan, c, &done, err);
  if (done)
    return status;
  s->streamed = true;
  /* What the call's plan says each worker keeps between its panels (a low-level entry's plan
   * runs its own panels, whole). */
  const tilemm_keep keep = s->plan ? s->plan->queue_keeps : TILEMM_KEEP_NONE;
  /* The workspace made once for the largest panel of the queue this worker may take. */
  const bool queue = s->plan && s->plan->workers.count > 1;
  return timed_panel (s, worker, [&] (tilemm_cuda_stats *st) {
    return run_pipeline (ws, plan, op_a, a, op_b, b, c, stop, st, err, keep, s->serial,
                         queue ? &s->plan->sub[0][0] : nullptr, queue ? 4 : 0);
  });
}

int64_t block_cols_of (const product_state *s)
{
  return s->plan->emu_block_cols;
}

/* The largest panel of the emulated queue (rows, columns of C), for a workspace made once, and
 * the product whose panels stay on their devices from the pass of statistics to the pass of
 * products (the emulated passes give each panel to the worker that took it first). */
void emulated_most (const product_state *s, emu_stage &stage)
{
  stage.most_m = stage.most_n = 0;
  stage.product = 0;
  if (s->plan && s->plan->emu_workers > 1)
    {
      stage.product = s->serial;
      const tilemm_plan &q = s->plan->emu_queue;
      stage.most_m = q.panel_cols < q.m ? q.panel_cols : q.m;
      stage.most_n = q.panel_rows < q.n ? q.panel_rows : q.n;
    }
}

/* The int8 GEMM the call's plan chose. */
tilemm_emu_gemm gemm_of (const product_state *s)
{
  return s->plan->emu_gemm;
}

/* The statistics' int8 GEMM the call's plan chose. */
tilemm_emu_gemm stats_gemm_of (const product_state *s)
{
  return s->plan->emu_stats_gemm;
}

/* The multiprocessors of `worker`'s device, as the call's plan holds them. */
int multiprocessors_of (const product_state *s, int worker)
{
  return worker >= 0 && worker < TILEMM_MAX_WORKERS ? s->plan->emu_multiprocessors[worker] : 0;
}

/* The wgmma GEMM's persistent grid on `worker`'s device: the plan's reader of its
 * multiprocessors. */
int gemm_blocks_of (const product_state *s, int worker)
{
  return tilemm_emu_gemm_grid (multiprocessors_of (s, worker));
}

tilemm_status cuda_emu_stats (void *state, int worker, const tilemm_emu_options *options,
                              tilemm_op op_a, const tilemm_view *a, tilemm_op op_b,
                              const tilemm_view *b, tilemm_emu_stats *stats, tilemm_error *err)
{
  product_state *s = (product_state *) state;
  emu_stage stage = { emu_stage::STATS, options, nullptr, 0, gemm_of (s), nullptr,
                      stats_gemm_of (s), gemm_blocks_of (s, worker),
                      multiprocessors_of (s, worker) };
  emulated_most (s, stage);
  tilemm_emu_plan used;
  return timed_panel (s, worker, [&] (tilemm_cuda_stats *st) {
    return emu_panel (ws_pool[worker], stage, op_a, a, op_b, b, nullptr, nullptr, stats, &used,
                      st, err);
  });
}

/* Before worker `worker`'s pass of statistics: its share of the operand every emulated worker
 * holds up and published, the others' copied in from their devices (emulated_exchange.cu). */
tilemm_status cuda_emu_share (void *state, int worker, tilemm_op op_a, const tilemm_view *a,
                              tilemm_op op_b, const tilemm_view *b, tilemm_exchange *exchange,
                              tilemm_error *err)
{
  product_state *s = (product_state *) state;
  if (!s->plan)
    return tilemm_error_set (err, TILEMM_EINVAL, "GPU emulated share: no call plan");
  emu_stage stage = { emu_stage::STATS, nullptr, nullptr, 0, gemm_of (s), nullptr,
                      stats_gemm_of (s), gemm_blocks_of (s, worker),
                      multiprocessors_of (s, worker) };
  emulated_most (s, stage);
  return emu_share (ws_pool[worker], worker, s->plan, stage, op_a, a, op_b, b, exchange,
                    &s->st[worker], err);
}

tilemm_status cuda_emu_product (void *state, int worker, const tilemm_emu_plan *plan,
                                tilemm_op op_a, const tilemm_view *a, tilemm_op op_b,
                                const tilemm_view *b, const tilemm_view *c,
                                const tilemm_stop *stop, tilemm_emu_plan *used, tilemm_error *err)
{
  product_state *s = (product_state *) state;
  emu_stage stage = { emu_stage::PRODUCT, nullptr, plan, block_cols_of (s), gemm_of (s), nullptr,
                      stats_gemm_of (s), gemm_blocks_of (s, worker),
                      multiprocessors_of (s, worker) };
  emulated_most (s, stage);
  return timed_panel (s, worker, [&] (tilemm_cuda_stats *st) {
    return emu_panel (ws_pool[worker], stage, op_a, a, op_b, b, c, stop, nullptr, used, st, err);
  });
}

tilemm_status cuda_emu_whole (void *state, int worker, const tilemm_emu_options *options,
                              const tilemm_emu_branches *branches, tilemm_op op_a,
                              const tilemm_view *a, tilemm_op op_b, const tilemm_view *b,
                              const tilemm_view *c, const tilemm_stop *stop, tilemm_emu_plan *used,
                              tilemm_error *err)
{
  product_state *s = (product_state *) state;
  emu_stage stage = { emu_stage::WHOLE, options, nullptr, block_cols_of (s), gemm_of (s), branches,
                      stats_gemm_of (s), gemm_blocks_of (s, worker),
                      multiprocessors_of (s, worker) };
  /* the plan's panels of C */
  const int64_t first = s->plan ? s->plan->emu_pipe_first : 0;
  const int64_t pipe = s->plan ? s->plan->emu_pipe_cols : 0;
  return timed_panel (s, worker, [&] (tilemm_cuda_stats *st) {
    return first > 0 ? emu_pipelined (ws_pool[worker], stage, first, pipe, op_a, a, op_b, b, c,
                                      stop, used, st, err)
                    : emu_panel (ws_pool[worker], stage, op_a, a, op_b, b, c, stop, nullptr, used,
                                 st, err);
  });
}

/* A chunk of a batch's pages on worker `worker` (its panels the plan's). */
tilemm_status cuda_batch (void *state, int worker, const tilemm_batch_job *job, int64_t first,
                          int64_t count, const tilemm_stop *stop, tilemm_error *err)
{
  product_state *s = (product_state *) state;
  return timed_panel (s, worker, [&] (tilemm_cuda_stats *st) {
    return batch_chunk (ws_pool[worker], job, first, count, stop, st, err);
  });
}

} /* namespace */

extern "C" {

/* Hidden: found only by the module it is linked into (exec/backends.c says why). */
extern const tilemm_backend_ops tilemm_cuda_backend_ops __attribute__ ((visibility ("hidden")));
const tilemm_backend_ops tilemm_cuda_backend_ops = {
  "gpu",
  "GPU",
  cuda_probe,
  cuda_facts,
  cuda_begin,
  cuda_end,
  cuda_worker_start,
  cuda_worker_finish,
  cuda_product,
  cuda_emu_stats,
  cuda_emu_product,
  cuda_emu_whole,
  nullptr, /* the exact part of an emulated product runs on the CPU's table */
  cuda_batch,
  release_all,
  bytes_held,
  pinned_bytes_held,
  copy_last_stats,
  device_count,
  device_info,
  current_device,
  cuda_links,
  cuda_share,
  cuda_int8_rate,
  cuda_emu_share,
};

} /* extern "C" */
