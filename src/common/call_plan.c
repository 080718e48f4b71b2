/* call_plan.c — the plan of one call, made once (see call_plan.h).
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "call_plan.h"
#include "device_model.h"
#include "fault.h"
#include "gpus_model.h"
#include "machine_facts.h"
#include "strip_owners.h"
#include "team_size.h"
#include "front.h"
#include "ksplit.h"
#include "plan_unfilled.h"

/* A product below this many bytes never nears a GPU's memory: its plan needs no budget (and
 * the executor asks the device for none: the query costs more than a small product). */
#define CALL_PLAN_BUDGET_BYTES ((double) (64u << 20))

int tilemm_call_plan_needs_budget (double bytes)
{
  return bytes > CALL_PLAN_BUDGET_BYTES;
}

size_t tilemm_facts_budget (const tilemm_device_facts *facts, int device)
{
  if (!facts->budgets)
    return 0;
  for (int i = 0; i < facts->count; i++)
    if (facts->device[i] == device)
      {
        const size_t total = facts->memory_total[i], usable = facts->memory_free[i];
        if (total == 0)
          return 0;
        size_t margin = total / TILEMM_DEVICE_MARGIN_PARTS;
        if (margin < TILEMM_DEVICE_MARGIN_LEAST)
          margin = TILEMM_DEVICE_MARGIN_LEAST;
        return usable > margin ? usable - margin : 1;
      }
  return 0;
}

/* The moduli an emulated product may need: the explicit count, else the rule's most. */
static int most_moduli (const tilemm_emu_options *emu)
{
  if (emu->moduli > 0)
    return emu->moduli;
  return emu->max_moduli > 0 ? emu->max_moduli : TILEMM_EMU_DEFAULT_MAX_MODULI;
}

/* The device limit of a product holding `bytes` on the GPU: a product larger than the memory the
 * GPU has is cut into panels that fit it, so the limit is the smaller of the two. */
static size_t limit_for (tilemm_backend backend, const tilemm_device_facts *gpu, double bytes,
                         size_t asked)
{
  if (backend != TILEMM_BACKEND_CUDA || !tilemm_call_plan_needs_budget (bytes))
    return asked;
  const size_t budget = tilemm_facts_budget (gpu, gpu->current);
  if (budget > 0 && bytes > (double) budget && (asked == 0 || asked > budget))
    return budget;
  return asked;
}

/* The smallest share of device memory one of `w`'s workers has, its device shared among the
 * workers on it; 0 when not measured. */
static size_t worker_share (const tilemm_device_facts *gpu, const tilemm_workers *w)
{
  size_t least = 0;
  for (int i = 0; i < w->count; i++)
    {
      int sharing = 0;
      for (int j = 0; j < w->count; j++)
        sharing += w->device[j] == w->device[i];
      const size_t budget = tilemm_facts_budget (gpu, w->device[i]);
      const size_t share = budget / (size_t) (sharing > 0 ? sharing : 1);
      if (budget > 0 && (least == 0 || share < least))
        least = share > 0 ? share : 1;
    }
  return least;
}

/* The product's limit holds for each device: workers sharing one split it. */
static size_t shared_limit (size_t limit, const tilemm_workers *w)
{
  int most = 1;
  for (int i = 0; i < w->count; i++)
    {
      int sharing = 0;
      for (int j = 0; j < w->count; j++)
        sharing += w->device[j] == w->device[i];
      if (sharing > most)
        most = sharing;
    }
  return limit / (size_t) most;
}

static size_t smaller_limit (size_t a, size_t b)
{
  if (a == 0)
    return b;
  if (b == 0)
    return a;
  return a < b ? a : b;
}

/* Whether the product may spread over several workers (GPUs, or simulated CPU devices). */
static int several_workers (const tilemm_call_plan *p, tilemm_backend backend)
{
  return backend == TILEMM_BACKEND_CUDA ? p->workers.count > 1 : p->simulated > 1;
}

/* What one panel may hold: the product's limit, and on several GPU workers each one's share of
 * its device (the limit split among the workers sharing a device, and its memory budget). */
static size_t panel_limit_of (const tilemm_call_plan *p, tilemm_backend backend,
                              const tilemm_device_facts *gpu)
{
  if (backend != TILEMM_BACKEND_CUDA || !several_workers (p, backend))
    return p->device_limit;
  return smaller_limit (shared_limit (p->device_limit, &p->workers),
                        worker_share (gpu, &p->workers));
}

/* Device ordinal `device`'s multiprocessors, as the facts gathered them (0: they do not name
 * it). */
static int device_multiprocessors (const tilemm_device_facts *gpu, int device)
{
  for (int i = 0; i < gpu->count && i < TILEMM_MAX_WORKERS; i++)
    if (gpu->device[i] == device)
      return gpu->multiprocessors[i];
  return 0;
}

/* The fewest multiprocessors among the call's GPU workers, as the devices' facts gathered them
 * (0: a CPU call, or facts that name none of them: the plan then fills an H100's): the count
 * the plans' variant and fill model read (tilemm_limits), the same for every worker so that
 * each runs one variant and the GPUs' results are bitwise equal. */
static int workers_multiprocessors (const tilemm_call_plan *p, tilemm_backend backend,
                                    const tilemm_device_facts *gpu)
{
  if (backend != TILEMM_BACKEND_CUDA)
    return 0;
  int fewest = 0;
  for (int w = 0; w < p->workers.count; w++)
    {
      const int count = device_multiprocessors (gpu, p->workers.device[w]);
      if (count > 0 && (fewest == 0 || count < fewest))
        fewest = count;
    }
  return fewest;
}

/* The plans of the queue's panels: [in the last panel row][in the last panel column]. */
static tilemm_status plan_subs (tilemm_call_plan *p, size_t panel_limit, int multiprocessors)
{
  const tilemm_plan *q = &p->queue;
  const int64_t rows = q->panel_rows < q->n ? q->panel_rows : q->n;
  const int64_t cols = q->panel_cols < q->m ? q->panel_cols : q->m;
  const int64_t last_rows = q->n - (tilemm_ceil_div (q->n, rows > 0 ? rows : 1) - 1) * rows;
  const int64_t last_cols = q->m - (tilemm_ceil_div (q->m, cols > 0 ? cols : 1) - 1) * cols;
  const tilemm_limits limits = { panel_limit, p->facts, multiprocessors };
  for (int r = 0; r < 2; r++)
    for (int c = 0; c < 2; c++)
      {
        const int64_t pr = r ? last_rows : rows, pc = c ? last_cols : cols;
        tilemm_plan *sub = &p->sub[r][c];
        if (q->m == 0 || q->n == 0 || pr < 1 || pc < 1)
          {
            *sub = *q;
            continue;
          }
        const tilemm_status status = tilemm_plan_unfilled_for_panel (sub, q, pr, pc, &limits);
        if (status != TILEMM_OK)
          return status;
      }
  return TILEMM_OK;
}

/* What each GPU worker keeps between its panels: the operand every panel of the queue holds
 * whole (strips: tilemm_plan_unfilled_queue), where every panel runs whole on its device (one
 * panel of its own, no slots taken in turn); and then the kept operand's steps made the same in
 * every panel's plan, so that it lies on the device the same way for each. */
static void plan_keep (tilemm_call_plan *p)
{
  p->queue_keeps = TILEMM_KEEP_NONE;
  const tilemm_plan *q = &p->queue;
  if (p->workers.count < 2 || q->m == 0 || q->n == 0)
    return;
  for (int r = 0; r < 2; r++)
    for (int c = 0; c < 2; c++)
      if (tilemm_plan_panel_count (&p->sub[r][c]) != 1)
        return;
  if (q->panel_cols >= q->m)
    {
      /* Every panel all of op(A)'s rows: its steps of them as the first panel's. */
      p->queue_keeps = TILEMM_KEEP_A;
      const int64_t step = p->sub[0][1].step_cols;
      for (int r = 0; r < 2; r++)
        for (int c = 0; c < 2; c++)
          {
            p->sub[r][c].step_cols = step;
            p->sub[r][c].slots = step > 0 ? tilemm_ceil_div (p->sub[r][c].m, step) : 1;
          }
    }
  else if (q->panel_rows >= q->n)
    {
      /* Every panel all of op(B)'s columns: its parts of them as the first panel's. */
      p->queue_keeps = TILEMM_KEEP_B;
      const int64_t step = p->sub[1][0].step_rows;
      for (int r = 0; r < 2; r++)
        for (int c = 0; c < 2; c++)
          p->sub[r][c].step_rows = step;
    }
}

/* The kernel rate of each GPU worker's device for the product's type, where the facts measured
 * it (0 where not: strip_owners.h then takes the devices as one rate).  Devices of one name are
 * one rate, the best measured of them: calibration times each at a size its kernels do not fill
 * (a first call waits for it), where two cards of one model read 1.3-3x apart; and it times the
 * types other than double on the first GPU only, which a card of the same name shares. */
static void worker_rates (const tilemm_call_plan *p, double rate[TILEMM_MAX_WORKERS])
{
  const tilemm_machine_facts *f = p->facts;
  const char *name[TILEMM_MAX_WORKERS];
  int one_model = 1;
  double best = 0;
  for (int w = 0; w < p->workers.count; w++)
    {
      rate[w] = 0;
      name[w] = NULL;
      for (int i = 0; f && i < f->gpus && i < TILEMM_MAX_WORKERS; i++)
        if (f->gpu[i].ordinal == p->workers.device[w])
          {
            rate[w] = f->gpu[i].kernel_flops_per_s[p->type];
            name[w] = f->gpu[i].name;
          }
      one_model = one_model && name[w] && name[w][0] && strcmp (name[w], name[0]) == 0;
      best = rate[w] > best ? rate[w] : best;
    }
  for (int w = 0; one_model && w < p->workers.count; w++)
    rate[w] = best;
}

/* The GPU workers' strips given in advance where the queue is strips of a product that fits one
 * device and the facts measured every worker's device (strip_owners.h): kept only where each
 * strip still runs whole on its device (so the workers keep an operand and share it).  Else the
 * queue as it was, each panel to the first worker free: it balances devices whose rates the
 * plan does not know (a device slower than anyone measured takes fewer panels). */
static tilemm_status plan_owned (tilemm_call_plan *p, size_t panel_limit, int multiprocessors)
{
  p->queue_owned = 0;
  const tilemm_plan *n = &p->native;
  if (n->panel_rows < n->n || n->panel_cols < n->m)
    return TILEMM_OK;
  double rate[TILEMM_MAX_WORKERS];
  worker_rates (p, rate);
  for (int w = 0; w < p->workers.count; w++)
    if (!(rate[w] > 0))
      return TILEMM_OK;
  tilemm_plan queue;
  int64_t first[TILEMM_MAX_WORKERS + 1];
  if (!tilemm_strip_owners (&queue, n, p->workers.count, rate, first))
    return TILEMM_OK;
  const tilemm_plan was = p->queue;
  tilemm_plan subs[2][2];
  memcpy (subs, p->sub, sizeof subs);
  p->queue = queue;
  tilemm_status status = plan_subs (p, panel_limit, multiprocessors);
  int whole = status == TILEMM_OK;
  for (int r = 0; r < 2 && whole; r++)
    for (int c = 0; c < 2; c++)
      whole = whole && tilemm_plan_panel_count (&p->sub[r][c]) == 1;
  if (!whole)
    {
      p->queue = was;
      memcpy (p->sub, subs, sizeof subs);
      return TILEMM_OK;
    }
  p->queue_owned = 1;
  memcpy (p->queue_first, first, sizeof first);
  return TILEMM_OK;
}

/* How the operand every worker keeps reaches them (exchange_plan.h): its steps are those of
 * every panel's plan (plan_keep made them the same); its shares cut op(B)'s columns, or op(A)'s
 * inner dimension (contiguous in each step of op(A)ᵀ the pipeline keeps). */
static void plan_exchange (tilemm_call_plan *p, const tilemm_device_facts *gpu)
{
  int64_t sr = 0, sc = 0;
  tilemm_plan_steps (&p->sub[0][0], &sr, &sc);
  const int keep_a = p->queue_keeps == TILEMM_KEEP_A;
  tilemm_exchange_plan_make (&p->exchange, p->queue_keeps, keep_a ? sc : sr,
                             keep_a ? p->k : p->n, &p->workers, gpu);
}

/* How the operand every emulated GPU worker's strip holds whole reaches the workers
 * (exchange_plan.h), as the native product's kept operand does: where emu_queue is one strip a
 * worker, each all of op(A)'s rows (strips of C's columns) or all of op(B)'s columns (of its
 * rows), each worker reads its share from the host and copies the others' from their GPUs, or,
 * where a pair of them cannot reach each other, every worker reads all of it from the host.
 * The shares cut it as the native exchange cuts it (op(B)'s columns, op(A)'s inner dimension),
 * in one step of the whole operand: op(x) packed, as an emulated panel holds it.  What crosses
 * between GPUs is that operand in the product's type, not its int8 residues: those are a byte
 * an element for each modulus (7 to 20 of them, against an element's 4 or 8 bytes), and the
 * moduli are known only after the pass of statistics, which reads the operand whole.  Worker w
 * runs strip w, the one whose share it sends (and on the host's path too: a worker that took
 * two strips would compute them one after the other, and send the second's operands again). */
static void plan_emu_exchange (tilemm_call_plan *p, tilemm_backend backend,
                               const tilemm_device_facts *gpu)
{
  memset (&p->emu_exchange, 0, sizeof p->emu_exchange);
  memset (p->emu_first, 0, sizeof p->emu_first);
  const tilemm_plan *q = &p->emu_queue;
  if (backend != TILEMM_BACKEND_CUDA || p->emu_one_pass || p->emu_workers < 2 || p->m < 1
      || p->n < 1 || p->k < 1 || tilemm_plan_panel_count (q) != p->emu_workers)
    return;
  const tilemm_keep keeps = q->panel_cols >= p->m   ? TILEMM_KEEP_A
                            : q->panel_rows >= p->n ? TILEMM_KEEP_B
                                                    : TILEMM_KEEP_NONE;
  const int keep_a = keeps == TILEMM_KEEP_A;
  tilemm_exchange_plan_make (&p->emu_exchange, keeps, keep_a ? p->m : p->n, keep_a ? p->k : p->n,
                             &p->emu_devices, gpu);
  if (p->emu_exchange.path != TILEMM_EXCHANGE_NONE)
    for (int w = 0; w <= p->emu_workers; w++)
      p->emu_first[w] = w;
}

/* The statistics' int8 GEMM for the modular GEMMs' `gemm` on a product of `type` with inner
 * dimension k: the scheme's real problem sums 2k terms for a complex product (its parts side by
 * side), padded as the GEMM reads them, in chunks of the GEMM's whole k-chunk. */
static tilemm_emu_gemm stats_gemm (tilemm_emu_gemm gemm, tilemm_type type, int64_t k)
{
  return tilemm_emu_plan_stats_gemm (gemm, type, k, TILEMM_EMU_KCHUNK_TILES);
}

/* Each emulated worker's multiprocessors, as the facts gathered them for its device (0: they
 * do not name it).  The wgmma GEMM's persistent grid (tilemm_emu_gemm_grid) and the moduli a
 * modular GEMM launch takes (tilemm_emu_planes_per_launch) follow them. */
static void emu_multiprocessors (tilemm_call_plan *p, const tilemm_device_facts *gpu)
{
  for (int w = 0; w < TILEMM_MAX_WORKERS; w++)
    p->emu_multiprocessors[w] = device_multiprocessors (gpu, p->emu_devices.device[w]);
}

/* The table of the emulated passes: the simulated devices' where the native product runs on
 * them (on_simulated), unless the passes are one (the simulated devices' table has none). */
static void plan_emu_table (tilemm_call_plan *p)
{
  p->emu_on_simulated = p->on_simulated && !p->emu_one_pass;
}

/* The emulated precision's panels, workers and passes for the product p->m × p->n × p->k. */
static tilemm_status plan_emulated (tilemm_call_plan *p, tilemm_backend backend,
                                    const tilemm_emu_options *emu, size_t asked,
                                    const tilemm_call_settings *settings,
                                    const tilemm_device_facts *gpu,
                                    const tilemm_host_facts *host, size_t chunk_bytes,
                                    const tilemm_workers *available)
{
  tilemm_status status = tilemm_plan_unfilled_op (&p->emu_panels, backend, p->type, p->m, p->n,
                                                 p->k, TILEMM_OP_NONE, TILEMM_OP_NONE, NULL);
  if (status != TILEMM_OK)
    return status;
  const size_t limit = limit_for (
    backend, gpu,
    tilemm_emu_panel_bytes (p->type, p->m, p->n, p->k, most_moduli (emu), p->op_a, p->op_b),
    asked);
  if ((status = tilemm_emu_plan_panels (&p->emu_panels, emu, p->op_a, p->op_b, limit))
      != TILEMM_OK)
    return status;
  p->emu_queue = p->emu_panels;
  p->emu_workers = 1;
  p->emu_devices = *available;
  if (p->simulated > 1)
    for (int w = 0; w < p->simulated; w++)
      p->emu_devices.device[w] = w;
  const int count = p->simulated > 1 ? p->simulated : available->count;
  /* A panel a worker: the pass of products finds each worker's panel still on its device. */
  if (count > 1)
    p->emu_workers = tilemm_plan_unfilled_queue (&p->emu_queue, &p->emu_panels, count,
                                                 p->simulated > 1 || p->devices_named, 1,
                                                 p->facts);
  if (p->emu_workers <= 1 && backend == TILEMM_BACKEND_CUDA && !p->devices_named)
    p->emu_devices.device[0] = gpu->current >= 0 ? gpu->current : p->emu_devices.device[0];
  p->emu_devices.count = p->emu_workers;
  if (backend == TILEMM_BACKEND_CUDA)
    tilemm_plan_copy_teams (host, gpu, &p->emu_devices, gpu->copy_threads,
                            tilemm_model_copy_saturating_threads (p->facts), p->emu_teams);
  p->emu_one_pass = (p->emu_workers <= 1 && tilemm_plan_panel_count (&p->emu_panels) <= 1)
                    || p->k == 0;
  plan_emu_table (p);
  plan_emu_exchange (p, backend, gpu);
  const int64_t panel_rows = p->emu_panels.panel_cols < p->m ? p->emu_panels.panel_cols : p->m;
  const int64_t panel_cols = p->emu_panels.panel_rows < p->n ? p->emu_panels.panel_rows : p->n;
  p->emu_block_cols = tilemm_emu_result_block_cols (p->type, panel_rows, panel_cols, chunk_bytes);
  /* One pass on the GPU pipelined in panels of C's columns (TILEMM_EMU_PIPE_COLS and _FIRST,
   * else the rule: two panels, the first from the int8 rate and the bus's), C of each panel
   * back in its blocks. */
  p->emu_pipe_first = p->emu_pipe_cols = 0;
  if (backend == TILEMM_BACKEND_CUDA && p->emu_one_pass && p->k > 0 && p->m > 0
      && settings->emu_pipe_cols >= 0)
    {
      int64_t first, cols;
      if (settings->emu_pipe_cols > 0)
        {
          cols = settings->emu_pipe_cols;
          first = settings->emu_pipe_first > 0 ? settings->emu_pipe_first : cols;
          if ((p->n + cols - 1) / cols > TILEMM_EMU_PIPE_MOST)
            first = cols = (p->n + TILEMM_EMU_PIPE_MOST - 1) / TILEMM_EMU_PIPE_MOST;
        }
      else
        {
          const tilemm_machine_facts *f = p->facts ? p->facts : tilemm_facts_builtin ();
          const tilemm_machine_facts *model = tilemm_facts_builtin ();
          const tilemm_emu_pipe_rates rates = {
            f->gpu_int8_ops_per_s > 0 ? f->gpu_int8_ops_per_s : model->gpu_int8_ops_per_s,
            f->gpu_bus_bytes_per_s > 0 ? f->gpu_bus_bytes_per_s : model->gpu_bus_bytes_per_s,
            f->gpu_step_s > 0 ? f->gpu_step_s : model->gpu_step_s
          };
          const int moduli = tilemm_emu_typical_moduli (emu, tilemm_type_is_complex (p->type)
                                                               ? 2 * p->k : p->k);
          first = tilemm_emu_pipeline_first (p->type, p->m, p->n, p->k,
                                             moduli > 0 ? moduli : most_moduli (emu), &rates);
          cols = p->n - first;
        }
      if (first > 0 && first < p->n && cols > 0)
        {
          p->emu_pipe_first = first;
          p->emu_pipe_cols = cols;
        }
    }
  if (p->emu_pipe_first > 0)
    p->emu_block_cols = tilemm_emu_result_block_cols (
      p->type, p->m, p->emu_pipe_cols > p->emu_pipe_first ? p->emu_pipe_cols : p->emu_pipe_first,
      chunk_bytes);
  p->emu_gemm = tilemm_emu_gemm_named (settings->emu_gemm, gpu->wgmma);
  p->emu_stats_gemm = stats_gemm (p->emu_gemm, p->type, p->k);
  emu_multiprocessors (p, gpu);
  /* The branches the statistics may take: an explicit count of moduli promises nothing, so
   * where it cannot carry the data the native product serves (and says so); the rule's moduli
   * promise the bound, kept by the exact split. */
  p->emu_on_range = emu->moduli > 0 ? TILEMM_EMU_RANGE_NATIVE : TILEMM_EMU_RANGE_SPLIT;
  p->emu_split_backend = TILEMM_BACKEND_CPU;   /* the pairs' classification is the CPU's */
  p->emu_on_nonfinite = TILEMM_EMU_NONFINITE_NATIVE_THEN_FINITE;
  /* The moduli and bit widths of every outcome of the statistics. */
  tilemm_emu_branches_make (emu, &p->emu_branches);
  p->emu_branches.threads = p->host_threads;
  return TILEMM_OK;
}

/* The launches of the call's plans (tilemm_plan_launches), filled here only, once, as the last
 * step of each function that hands out a call plan (tilemm_call_plan_make, tilemm_call_plan_queue,
 * tilemm_call_plan_emulated_around), when every panel, step and the fallback are final: before that, the
 * one-panel steps (TILEMM_STEP_*), the fallback (plan_fallback), the queue's panels and the
 * queue panels' sub-plans still change them.  Every plan takes the native plan's fallback: the
 * plans the native product runs (native, queue, sub) and, with_emulated, the emulated ones,
 * whose panels a product that falls back to the native one runs under.  (plan.c's public
 * functions return plans with their launches, for callers that run a plan as they get it; a
 * call plan is made of plan_unfilled.h's, which leave them to this.) */
static void fill_launches (tilemm_call_plan *p, int with_emulated)
{
  tilemm_plan *plans[] = { &p->native,    &p->queue,     &p->sub[0][0], &p->sub[0][1],
                           &p->sub[1][0], &p->sub[1][1], &p->emu_panels, &p->emu_queue };
  const size_t count = sizeof plans / sizeof plans[0] - (with_emulated ? 0 : 2);
  for (size_t i = 0; i < count; i++)
    {
      plans[i]->kernel_fallback = p->native.kernel_fallback;
      tilemm_plan_launches (plans[i]);
    }
}

/* The register-tiled fallback of the DMMA variants: where a device of the call's GPU workers has
 * no FP64 tensor cores (compute capability below 8, from the facts), every worker runs it, so
 * that every panel is computed by the same kernel.  A device the facts do not name changes
 * nothing (a plan made without facts keeps its own, tilemm_plan_make's 0). */
static void plan_fallback (tilemm_call_plan *p, tilemm_backend backend,
                           const tilemm_device_facts *gpu)
{
  if (backend != TILEMM_BACKEND_CUDA)
    return;
  for (int w = 0; w < p->workers.count; w++)
    for (int i = 0; i < gpu->count && i < TILEMM_MAX_WORKERS; i++)
      if (gpu->device[i] == p->workers.device[w] && gpu->cc_major[i] < 8)
        p->native.kernel_fallback = 1;
  p->queue.kernel_fallback = p->native.kernel_fallback;
}

/* How many of the call's GPUs its product runs on when the user named none: the count the cost
 * model finds fastest, its stages priced on each count (gpus_model.h: each GPU's host bytes, the
 * host's copies shared by the GPUs' teams, the exchange's peer bytes where every pair of the
 * GPUs reaches, the kernels on each GPU's part), several GPUs only where the machine's facts
 * measured a gain, so a model that has not seen two GPUs pay keeps the product on one. */
static int gpus_that_pay (const tilemm_call_plan *p, const tilemm_call_facts *facts)
{
  const int available = p->workers.count;
  if (available < 2 || p->devices_named)
    return available;
  tilemm_exchange_plan reach;
  tilemm_exchange_plan_make (&reach, TILEMM_KEEP_B, 1, available, &p->workers, &facts->gpu);
  const tilemm_gpus_product product = { p->type, (double) p->m, (double) p->n, (double) p->k,
                                        reach.path == TILEMM_EXCHANGE_PEER, facts->host.threads, 1 };
  return tilemm_model_product_gpus_that_pay (p->facts, &product, available, NULL);
}

/* The queue of the native plan's panels, their launches not yet filled (fill_launches). */
static tilemm_status plan_queue (tilemm_call_plan *p, tilemm_backend backend,
                                 const tilemm_call_facts *facts)
{
  const tilemm_device_facts *gpu = &facts->gpu;
  const int several = several_workers (p, backend);
  const size_t panel_limit = panel_limit_of (p, backend, gpu);
  /* The transposed operands the GPU's pipeline transposes, and so its plans count (a low-level
   * entry's plan is made without them: tilemm_plan_make). */
  if (backend == TILEMM_BACKEND_CUDA)
    {
      p->native.op_a = p->op_a;
      p->native.op_b = p->op_b;
    }
  /* The queue: the workers' panels; one device runs the whole plan in one piece (its own panels
   * and steps). */
  int count = 1;
  p->queue = p->native;
  if (several)
    count = tilemm_plan_unfilled_workers (&p->queue, &p->native,
                                 backend == TILEMM_BACKEND_CUDA ? gpus_that_pay (p, facts)
                                                                : p->simulated,
                                 backend == TILEMM_BACKEND_CUDA ? p->devices_named : 1,
                                 p->facts);
  if (backend == TILEMM_BACKEND_CUDA)
    {
      /* One worker: the caller's device, or the one device the user named. */
      if (count <= 1 && !p->devices_named)
        p->workers.device[0] = gpu->current >= 0 ? gpu->current : p->workers.device[0];
      p->workers.count = count;
    }
  else if (p->simulated > 1)
    {
      p->workers.count = count;
      for (int w = 0; w < count; w++)
        p->workers.device[w] = w;
    }
  else
    {
      p->workers.count = 1;
      p->workers.device[0] = 0;
    }
  plan_fallback (p, backend, gpu);
  /* Each GPU worker's host copy team, all of them copying at once. */
  if (backend == TILEMM_BACKEND_CUDA)
    tilemm_plan_copy_teams (&facts->host, gpu, &p->workers, gpu->copy_threads,
                            tilemm_model_copy_saturating_threads (p->facts), p->teams);
  p->queue_keeps = TILEMM_KEEP_NONE;
  p->queue_owned = 0;
  memset (&p->exchange, 0, sizeof p->exchange);
  if (count <= 1)
    {
      p->queue.panel_rows = p->n > 0 ? p->n : 1;
      p->queue.panel_cols = p->m > 0 ? p->m : 1;
      for (int r = 0; r < 2; r++)
        for (int c = 0; c < 2; c++)
          p->sub[r][c] = p->native;
      return TILEMM_OK;
    }
  const int multiprocessors = workers_multiprocessors (p, backend, gpu);
  tilemm_status status = plan_subs (p, panel_limit, multiprocessors);
  if (status == TILEMM_OK && backend == TILEMM_BACKEND_CUDA)
    status = plan_owned (p, panel_limit, multiprocessors);
  if (status == TILEMM_OK && backend == TILEMM_BACKEND_CUDA)
    {
      plan_keep (p);
      plan_exchange (p, gpu);
    }
  return status;
}

/* A BLAS call's host work around its product (exec/blas_request.c), on the plan's host_threads:
 * the update of C (m×n) and the pack of a strided operand, A and B as stored (op(A) m×k, op(B)
 * k×n).  Every plan a BLAS call may get names them: the route's type and shape. */
static void plan_blas_host (tilemm_call_plan *p, tilemm_type type, int64_t m, int64_t n,
                            int64_t k, tilemm_op op_a, tilemm_op op_b)
{
  const size_t es = tilemm_type_size (type);
  p->update_columns = TILEMM_UPDATE_COLUMNS;
  p->update_team = tilemm_update_team (p->host_threads, es, m, n);
  const int64_t rows[2] = { op_a == TILEMM_OP_NONE ? m : k, op_b == TILEMM_OP_NONE ? k : n };
  const int64_t cols[2] = { op_a == TILEMM_OP_NONE ? k : m, op_b == TILEMM_OP_NONE ? n : k };
  for (int i = 0; i < 2; i++)
    {
      p->pack_columns[i] = tilemm_pack_cols_per_piece (es, rows[i], cols[i]);
      p->pack_team[i] = tilemm_pack_team (p->host_threads, es, rows[i], cols[i]);
    }
}

void tilemm_call_plan_around (tilemm_call_plan *p, const tilemm_plan *given, tilemm_op op_a,
                              tilemm_op op_b, size_t limit, const tilemm_call_settings *settings)
{
  memset (p, 0, sizeof *p);
  p->type = given->type;
  p->m = given->m;
  p->n = given->n;
  p->k = given->k;
  p->op_a = op_a;
  p->op_b = op_b;
  p->device_limit = limit;
  p->host_threads = given->threads;   /* the low-level plan's (0: one) */
  plan_blas_host (p, given->type, given->m, given->n, given->k, op_a, op_b);
  p->native = *given;
  p->queue = *given;
  for (int r = 0; r < 2; r++)
    for (int c = 0; c < 2; c++)
      p->sub[r][c] = *given;
  p->workers.count = 1;
  p->sim_faults = settings->sim_faults;
  p->fault = settings->fault;
  tilemm_plan_staging (settings, &p->staging);
  p->emu_panels = *given;
  p->emu_queue = *given;
  p->emu_workers = 1;
  p->emu_devices.count = 1;
  p->emu_one_pass = 1;
}

void tilemm_call_plan_simulated (tilemm_call_plan *p, int devices,
                                 const tilemm_sim_faults *faults)
{
  p->simulated = devices;
  p->on_simulated = 1;
  p->sim_faults = *faults;
  plan_emu_table (p);
}

tilemm_status tilemm_call_plan_emulated_around (tilemm_call_plan *p, const tilemm_plan *given,
                                                tilemm_op op_a, tilemm_op op_b,
                                                const tilemm_workers *workers, int named,
                                                const tilemm_call_facts *call_facts,
                                                const tilemm_call_settings *settings)
{
  const tilemm_device_facts *facts = &call_facts->gpu;
  tilemm_call_plan_around (p, given, op_a, op_b, 0, settings);
  p->host_threads = tilemm_team_threads_left (call_facts->host.threads);
  plan_blas_host (p, given->type, given->m, given->n, given->k, op_a, op_b);
  p->devices_named = named;
  p->emu_devices.device[0] = facts->current >= 0 ? facts->current : 0;
  if (workers && workers->count > 1)
    {
      p->emu_devices = *workers;
      if (given->backend == TILEMM_BACKEND_CPU)
        {
          p->simulated = workers->count;
          p->on_simulated = 1;
        }
      p->emu_workers = tilemm_plan_unfilled_queue (&p->emu_queue, given, workers->count, named, 1,
                                                   NULL);
      p->emu_devices.count = p->emu_workers;
    }
  p->emu_one_pass
    = (p->emu_workers <= 1 && tilemm_plan_panel_count (given) <= 1) || given->k == 0;
  plan_emu_table (p);
  const int64_t rows = given->panel_cols < given->m ? given->panel_cols : given->m;
  const int64_t cols = given->panel_rows < given->n ? given->panel_rows : given->n;
  p->emu_block_cols = tilemm_emu_result_block_cols (given->type, rows, cols,
                                                    facts->staging_chunk_bytes);
  p->emu_gemm = tilemm_emu_gemm_named (settings->emu_gemm, facts->wgmma);
  p->emu_stats_gemm = stats_gemm (p->emu_gemm, given->type, given->k);
  emu_multiprocessors (p, facts);
  /* Each GPU worker's host copy team, as a call's plan sizes it (no machine facts to cap it). */
  if (given->backend == TILEMM_BACKEND_CUDA)
    tilemm_plan_copy_teams (&call_facts->host, facts, &p->emu_devices, facts->copy_threads,
                            TILEMM_COPY_SATURATING_THREADS, p->emu_teams);
  fill_launches (p, 1);
  return TILEMM_OK;
}

tilemm_status tilemm_call_plan_queue (tilemm_call_plan *p, tilemm_backend backend,
                                      const tilemm_call_facts *facts)
{
  const tilemm_status status = plan_queue (p, backend, facts);
  if (status == TILEMM_OK)
    fill_launches (p, 0);
  return status;
}

/* The native product's plan, its queue of panels and their plans. */
static tilemm_status plan_native (tilemm_call_plan *p, tilemm_backend backend,
                                  const tilemm_call_settings *settings,
                                  const tilemm_call_facts *facts)
{
  const tilemm_limits limits
    = { p->device_limit, p->facts, workers_multiprocessors (p, backend, &facts->gpu) };
  tilemm_status status = tilemm_plan_unfilled_op (&p->native, backend, p->type, p->m, p->n, p->k,
                                              p->op_a, p->op_b, &limits);
  if (status != TILEMM_OK)
    return status;
  if (backend == TILEMM_BACKEND_CPU)
    {
      p->native.threads = tilemm_plan_cpu_threads (&p->native, p->facts, p->host_threads);
      p->native.cpu_isa = facts->host.cpu_isa;   /* the variant the host runs: its facts' */
    }
  /* TILEMM_STEP_COLS, TILEMM_STEP_ROWS: a one-panel GPU product's steps (measurements).  A
   * transposed operand's scratch grows with the steps, so under a limit they stay the plan's. */
  const int one_panel = p->native.panel_rows >= p->n && p->native.panel_cols >= p->m;
  const int transposed = p->native.op_a != TILEMM_OP_NONE || p->native.op_b != TILEMM_OP_NONE;
  if (backend == TILEMM_BACKEND_CUDA && one_panel && !(transposed && p->device_limit > 0)
      && p->m > 0 && p->n > 0)
    {
      const int64_t sc = settings->step_cols, sr = settings->step_rows;
      if (sc > 0)
        {
          p->native.step_cols = sc < p->m ? sc : p->m;
          p->native.slots = tilemm_ceil_div (p->m, p->native.step_cols);
        }
      if (sr > 0)
        p->native.step_rows = sr < p->n ? sr : p->n;
    }
  return plan_queue (p, backend, facts);
}

tilemm_status tilemm_call_plan_make (tilemm_call_plan *p, const tilemm_route *route,
                                     tilemm_backend backend, tilemm_op op_a, tilemm_op op_b,
                                     int emulated, const tilemm_emu_options *emu,
                                     const struct tilemm_options_s *options,
                                     const tilemm_call_settings *settings,
                                     const tilemm_call_facts *facts, tilemm_error *err)
{
  memset (p, 0, sizeof *p);
  p->facts = facts->machine;
  p->type = route->compute_type;
  p->m = route->a_as_pairs ? 2 * route->m : route->m;
  p->n = route->n;
  p->k = route->k;
  p->op_a = op_a;
  p->op_b = op_b;
  if (route->b_split)
    {
      /* op(B)'s parts side by side, [re ±im] (k×2n): B transposed is copied stacked, so that
       * its transpose is side by side (exec/run.c). */
      p->split = TILEMM_SPLIT_B;
      p->n = 2 * route->n;
      p->op_b = op_b == TILEMM_OP_NONE ? TILEMM_OP_NONE : TILEMM_OP_TRANSPOSE;
    }
  else if (route->a_split)
    {
      p->split = TILEMM_SPLIT_A;
      p->m = 2 * route->m;
      p->op_a = TILEMM_OP_TRANSPOSE;
    }
  p->host_threads = tilemm_team_threads_left (facts->host.threads);
  plan_blas_host (p, route->compute_type, route->m, route->n, route->k, op_a, op_b);
  if (p->split != TILEMM_SPLIT_NONE)
    {
      /* The complex operand as stored (exec/run.c copies it apart as stored: B k×n, or n×k
       * where transposed; A k×m, transposed or not), and C (m×n). */
      const int single = route->compute_type == TILEMM_SINGLE;
      const int64_t rows = p->split == TILEMM_SPLIT_B && op_b == TILEMM_OP_NONE ? route->k
                           : p->split == TILEMM_SPLIT_B                       ? route->n
                                                                              : route->k;
      const int64_t cols = p->split == TILEMM_SPLIT_B && op_b == TILEMM_OP_NONE ? route->n
                           : p->split == TILEMM_SPLIT_B                       ? route->k
                                                                              : route->m;
      p->split_team = tilemm_parts_team (p->host_threads, single, rows, cols);
      p->join_team = tilemm_parts_team (p->host_threads, single, route->m, route->n);
    }
  p->sim_faults = settings->sim_faults;
  p->fault = settings->fault;
  tilemm_plan_staging (settings, &p->staging);
  const tilemm_device_facts *gpu = &facts->gpu;
  if (backend == TILEMM_BACKEND_CUDA)
    {
      tilemm_status status
        = tilemm_devices_of_call (options, settings, gpu, &p->workers, &p->devices_named, err);
      if (status != TILEMM_OK)
        return status;
      if (p->workers.count < 1)
        {
          p->workers.count = 1;
          p->workers.device[0] = gpu->current >= 0 ? gpu->current : 0;
        }
    }
  else
    {
      const int simulated = tilemm_simulated_of_call (options, settings);
      p->simulated = simulated > 1 ? simulated : 0;
      p->on_simulated = p->simulated > 1;
      p->workers.count = 1;
      p->workers.device[0] = 0;
    }
  const double es = (double) tilemm_type_size (p->type);
  p->device_limit = limit_for (backend, gpu,
                               es * ((double) p->m * (double) p->k + (double) p->k * (double) p->n
                                     + (double) p->m * (double) p->n),
                               options->max_device_bytes);
  const tilemm_workers available = p->workers;
  tilemm_status status = plan_native (p, backend, settings, facts);
  if (status == TILEMM_OK && emulated)
    status = plan_emulated (p, backend, emu, options->max_device_bytes, settings, gpu, &facts->host,
                            gpu->staging_chunk_bytes, &available);
  if (status != TILEMM_OK)
    return tilemm_error_set (err, status, "%s", tilemm_strerror (status));
  fill_launches (p, 1);
  return TILEMM_OK;
}

/* ---------------------------------------------------------------- in words */

typedef struct {
  char *buf;
  size_t size, used;
} text;

static void say (text *t, const char *fmt, ...)
{
  if (t->used >= t->size)
    return;
  va_list ap;
  va_start (ap, fmt);
  const int n = vsnprintf (t->buf + t->used, t->size - t->used, fmt, ap);
  va_end (ap);
  if (n > 0)
    t->used += (size_t) n < t->size - t->used ? (size_t) n : t->size - t->used - 1;
}

static const char *op_name (tilemm_op op)
{
  return op == TILEMM_OP_NONE ? "none" : op == TILEMM_OP_TRANSPOSE ? "transpose" : "ctranspose";
}

static const char *gemm_name (tilemm_emu_gemm gemm)
{
  return gemm == TILEMM_EMU_GEMM_V2      ? "v2 (mma.sync)"
         : gemm == TILEMM_EMU_GEMM_BIG   ? "big (mma.sync)"
         : gemm == TILEMM_EMU_GEMM_SMALL ? "small (mma.sync)"
                                         : "wgmma";
}

static void say_panels (text *t, const char *name, const tilemm_plan *q)
{
  say (t, "%s: %lld panel(s) of %lld x %lld (rows x cols of C)\n", name,
       (long long) tilemm_plan_panel_count (q), (long long) q->panel_cols,
       (long long) q->panel_rows);
}

/* Each worker's copy team: "name: GPU d: t thread(s) on cpus, ..." */
static void say_teams (text *t, const char *name, const tilemm_copy_team *teams,
                       const tilemm_workers *w)
{
  say (t, "%s:", name);
  for (int i = 0; i < w->count; i++)
    {
      char cpus[128];
      tilemm_cpu_set_format (&teams[i].cpus, cpus, sizeof cpus);
      say (t, "%s GPU %d: %d thread(s)%s%s", i ? "," : "", w->device[i], teams[i].threads,
           cpus[0] ? " on CPUs " : " (unpinned)", cpus);
    }
  say (t, "\n");
}

/* The kept operand's path: "exchange: op(B) in 2 shares of its columns, each read once from the
 * host (GPU 0: 0-49, GPU 1: 50-99), the others' shares copied from their GPUs (peer access)". */
static void say_exchange (text *t, const char *label, const tilemm_exchange_plan *x,
                          const tilemm_workers *w)
{
  const char *name = x->which == TILEMM_KEEP_A ? "op(A)" : "op(B)";
  if (x->path == TILEMM_EXCHANGE_NONE)
    {
      say (t, "%s: none (each GPU's operands from the host)\n", label);
      return;
    }
  if (x->path == TILEMM_EXCHANGE_HOST)
    {
      say (t, "%s: host staging for every GPU: each reads all of %s from the host (GPU %d "
              "cannot read GPU %d's memory: no peer access)\n",
           label, name, x->apart_to, x->apart_from);
      return;
    }
  say (t, "%s: %s in %d shares of its %s, each read once from the host (", label, name,
       x->shares, x->which == TILEMM_KEEP_A ? "columns (k)" : "columns");
  for (int s = 0; s < x->shares; s++)
    {
      if (x->first[s + 1] > x->first[s])
        say (t, "%sGPU %d: %lld-%lld", s ? ", " : "", w->device[s], (long long) x->first[s],
             (long long) x->first[s + 1] - 1);
      else
        say (t, "%sGPU %d: none", s ? ", " : "", w->device[s]);
    }
  say (t, "), the others' shares copied from their GPUs (peer access)\n");
}

void tilemm_call_plan_describe (const tilemm_call_plan *p, tilemm_backend backend, int emulated,
                                const tilemm_emu_options *emu, char *buf, size_t size)
{
  text t = { buf, size, 0 };
  if (size > 0)
    buf[0] = '\0';
  say (&t, "backend: %s\n", tilemm_backend_name (backend));
  say (&t, "product: %s %lld x %lld x %lld, op_a %s, op_b %s%s\n", tilemm_type_name (p->type),
       (long long) p->m, (long long) p->n, (long long) p->k, op_name (p->op_a), op_name (p->op_b),
       p->split == TILEMM_SPLIT_B   ? ", B split into parts"
       : p->split == TILEMM_SPLIT_A ? ", A split into parts"
                                    : "");
  if (p->split != TILEMM_SPLIT_NONE)
    say (&t, "split_parts: apart on %d thread(s), joined on %d\n", p->split_team, p->join_team);
  say (&t, "precision: %s\n", emulated ? "emulated" : "native");
  say (&t, "device_limit: %zu\n", p->device_limit);
  say (&t, "variant: %d (tiles %d x %d x %d, pad %d)%s\n", p->native.variant, p->native.tile_rows,
       p->native.tile_cols, p->native.tile_depth, p->native.pad,
       p->native.kernel_fallback ? ", register-tiled fallback" : "");
  if (backend == TILEMM_BACKEND_CPU)
    say (&t, "cpu: variant %s, %d thread(s)\n",
         tilemm_cpu_isa_name ((tilemm_cpu_isa) p->native.cpu_isa),
         p->native.threads > 0 ? p->native.threads : 1);
  say (&t, "ksplit:");
  int split = 0;
  for (int i = 0; i < p->native.launch_heights; i++)
    for (int j = 0; j < p->native.launch_widths; j++)
      if (p->native.ksplit[i][j] > 1)
        say (&t, "%s %lld x %lld in %d pieces of %lld", split++ ? "," : "",
             (long long) p->native.launch_cols[j], (long long) p->native.launch_rows[i],
             p->native.ksplit[i][j], (long long) p->native.kchunk[i][j]);
  say (&t, "%s\n", split ? " (rows x cols of C, reals of k)" : " none");
  say_panels (&t, "panels", &p->native);
  say (&t, "steps: %lld x %lld, slots %lld\n", (long long) p->native.step_cols,
       (long long) p->native.step_rows, (long long) p->native.slots);
  say (&t, "workers: %d on", p->workers.count);
  for (int w = 0; w < p->workers.count; w++)
    say (&t, " %d", p->workers.device[w]);
  say (&t, "%s%s\n", p->devices_named ? " (named)" : "",
       p->simulated > 1 ? " (simulated devices)" : "");
  say_panels (&t, "queue", &p->queue);
  if (backend == TILEMM_BACKEND_CUDA)
    {
      say (&t, "queue_keeps: %s\n",
           p->queue_keeps == TILEMM_KEEP_A   ? "op(A) on each device between its panels"
           : p->queue_keeps == TILEMM_KEEP_B ? "op(B) on each device between its panels"
                                             : "nothing");
      if (p->queue_owned)
        {
          say (&t, "queue_owners: strips given in advance (");
          for (int w = 0; w < p->workers.count; w++)
            say (&t, "%sGPU %d %lld-%lld", w ? ", " : "", p->workers.device[w],
                 (long long) p->queue_first[w], (long long) p->queue_first[w + 1] - 1);
          say (&t, ")\n");
        }
      say_teams (&t, "copy_teams", p->teams, &p->workers);
      say (&t, "staging: %d chunks of %zu bytes each way, a view in about %d units of %zu bytes "
           "or more\n", p->staging.chunks, p->staging.chunk_bytes, p->staging.units_per_view,
           p->staging.least_unit_bytes);
      say_exchange (&t, "exchange", &p->exchange, &p->workers);
    }
  if (emulated)
    {
      say (&t, "emulated_rule: %s, moduli %s%d, target %d bits\n",
           emu->moduli > 0                          ? "explicit"
           : emu->rule == TILEMM_EMU_RULE_NATIVE ? "native-matching"
           : emu->rule == TILEMM_EMU_RULE_ELEMENTWISE ? "elementwise native bound"
                                                    : "certified",
           emu->moduli > 0 ? "" : "at most ", most_moduli (emu), emu->target_bits);
      say_panels (&t, "emulated_panels", &p->emu_panels);
      say (&t, "emulated_passes: %s over %d worker(s)\n",
           p->emu_one_pass ? "one (statistics, plan and product on data sent once)"
                           : "two (statistics of every panel, then products)",
           p->emu_workers);
      say (&t, "emulated_gemm: %s\n", gemm_name (p->emu_gemm));
      say (&t, "emulated_stats_gemm: %s\n", gemm_name (p->emu_stats_gemm));
      if (backend == TILEMM_BACKEND_CUDA)
        {
          say (&t, "emulated_blocks: %lld columns\n", (long long) p->emu_block_cols);
          if (p->emu_pipe_first > 0)
            say (&t, "emulated_pipeline: a first panel of %lld columns, then panels of %lld, "
                 "each one's B sent while the one before computes\n",
                 (long long) p->emu_pipe_first, (long long) p->emu_pipe_cols);
          say_teams (&t, "emulated_copy_teams", p->emu_teams, &p->emu_devices);
          if (p->emu_workers > 1)
            say_exchange (&t, "emulated_exchange", &p->emu_exchange, &p->emu_devices);
        }
      say (&t, "emulated_on_range: %s\n",
           p->emu_on_range == TILEMM_EMU_RANGE_NATIVE
             ? "the native product, with a warning (explicit moduli)"
             : "the pairs the moduli carry emulated, the others exactly, on the CPU");
      say (&t, "emulated_on_nonfinite: %s\n",
           "the native product, then the finite rows and columns emulated under this plan");
    }
  if (p->simulated > 1 && (p->sim_faults.fail_device >= 0 || p->sim_faults.slow_device >= 0))
    say (&t, "simulated_faults: device %d fails after %d panels, device %d pauses %d ms\n",
         p->sim_faults.fail_device, p->sim_faults.fail_after, p->sim_faults.slow_device,
         p->sim_faults.slow_ms);
  if (p->fault.kind >= 0)
    say (&t, "fault_hook: %s:%ld (TILEMM_FAULT: that operation of each product fails)\n",
         tilemm_fault_kind_name (p->fault.kind), p->fault.nth);
}
