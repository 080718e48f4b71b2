/* plan.c — how a product is cut into work: kernel variant, tiles, padding and panels.
 * Pure functions of the shape, the type and the limits, so they are unit-tested anywhere.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 */
#include <math.h>
#include <stdint.h>

#include "cuda_variants.h"
#include "device_model.h"
#include "devices.h"
#include "ksplit.h"
#include "plan_unfilled.h"
#include "team_size.h"
#include "tilemm.h"

const char *tilemm_backend_name (tilemm_backend backend)
{
  switch (backend)
    {
    case TILEMM_BACKEND_CPU:
      return "cpu";
    case TILEMM_BACKEND_CUDA:
      return "gpu";
    default:
      return "unknown";
    }
}

/* CPU tiles: a tile of Bᵀ (tile_rows × tile_depth) and one of Aᵀ (tile_depth × tile_cols) sit
 * in each thread's stack buffers, the CPU's stand-in for shared memory; 64×64×64 doubles keep the
 * pair within 64 KiB, inside a core's L2.  Complex elements are twice as wide, so half the depth. */
static void plan_cpu_tiles (tilemm_plan *plan)
{
  plan->variant = 1;
  plan->tile_rows = 64;
  plan->tile_cols = 64;
  plan->tile_depth = tilemm_type_is_complex (plan->type) ? 32 : 64;
  plan->pad = 0;
}

/* The faster of the rule's per-thread rate and the one the facts measured. */
static double thread_flops_per_s (const tilemm_machine_facts *facts)
{
  const double measured = tilemm_model_cpu_thread_flops_per_s (facts);
  return measured > TILEMM_TEAM_THREAD_FLOPS_PER_S ? measured : TILEMM_TEAM_THREAD_FLOPS_PER_S;
}

/* The CPU backend's tiles of a panel go one at a time to the threads (backend_cpu.c). */
int tilemm_plan_cpu_threads (const tilemm_plan *plan, const tilemm_machine_facts *facts,
                             int host_threads)
{
  const int64_t rows = plan->panel_rows < plan->n ? plan->panel_rows : plan->n;
  const int64_t cols = plan->panel_cols < plan->m ? plan->panel_cols : plan->m;
  const int64_t tiles = tilemm_ceil_div (rows, plan->tile_rows) * tilemm_ceil_div (cols, plan->tile_cols);
  const double flops = tilemm_model_flops (plan->type, (double) plan->m, (double) plan->n,
                                           (double) plan->k);
  return tilemm_team_size (host_threads, tiles, flops / thread_flops_per_s (facts));
}

int64_t tilemm_plan_cpu_tile_batch (const tilemm_plan *plan, int64_t tiles_down,
                                    int64_t tiles_across, int polled, int64_t first, int *team)
{
  const int threads = plan->threads > 0 ? plan->threads : 1;
  const int64_t ntiles = tiles_down * tiles_across;
  int64_t batch = ntiles;
  if (polled && tiles_across > 0)
    batch = tilemm_ceil_div (TILEMM_CPU_POLL_TILES_PER_THREAD * (int64_t) threads, tiles_across)
            * tiles_across;
  const int64_t count = ntiles - first < batch ? ntiles - first : batch;
  /* No more threads than tiles (the plan sized them to the whole panel). */
  *team = tilemm_team_size (threads, count, INFINITY);
  return count;
}

/* Blocks a variant's tiles cut the product into (the kernels' Cᵀ is n × m; for a complex type
 * run as a real product, n × 2m reals). */
static int64_t cuda_blocks (const tilemm_plan *plan, const tilemm_cuda_variant *v)
{
  const int64_t cols = tilemm_type_is_complex (plan->type) && v->real_product ? 2 * plan->m
                                                                               : plan->m;
  return tilemm_ceil_div (plan->n, v->tile_rows) * tilemm_ceil_div (cols, v->tile_cols);
}

/* Below this k a split of k does not pay for its second pass (the partial sums written and read,
 * a second launch); bench/NOTES.md. */
#define TILEMM_CUDA_SPLIT_MIN_K 1024

/* Whether packed operands of this product have rows of whole 16-byte chunks (m and k elements),
 * the condition of the pipelined kernels' 16-byte copies (src/kernels/kernels.cu: wide_whole).  The larger
 * preferred tiles pay only with them: variant 13 ran at 33.5 TF/s against variant 6's 37.5 on a
 * 4097 single product (H100, 2026-11-23), where both fall back to element copies; a later
 * preferred variant with tiles no larger than the first's (double: 10 after 9) needs nothing. */
static int plan_rows_whole_chunks (const tilemm_plan *plan)
{
  const int64_t es = (int64_t) tilemm_type_size (plan->type);
  return es > 0 && (plan->m * es) % 16 == 0 && (plan->k * es) % 16 == 0;
}

/* The multiprocessors a plan fills: the limits' (the fewest of the call's GPUs, from their
 * facts), else an H100's (TILEMM_CUDA_SMALL_BLOCKS: no limits, or facts that do not name them). */
static int plan_multiprocessors (const tilemm_limits *limits)
{
  return limits && limits->multiprocessors > 0 ? limits->multiprocessors
                                               : TILEMM_CUDA_SMALL_BLOCKS;
}

/* The CUDA variant for the type and shape on a GPU of `sms` multiprocessors.  From the table:
 * the preferred one — where a type has several (larger tiles appended later), the last one
 * whose tiles number at least the SMs, so big products get the big tiles and middling ones keep
 * enough blocks; the preferred_small one (smaller tiles, more blocks) when no preferred tiles
 * number that many; and the preferred_split one (k split among blocks, partials added in a fixed
 * order) when even the small tiles would fill at most a quarter of the SMs and k is long:
 * 64×8192 · 8192×64 has one 64×64 tile, so without a split one SM does all the work. */
static int plan_cuda_tiles (tilemm_plan *plan, int sms)
{
  const tilemm_cuda_variant *chosen = NULL, *filling = NULL, *small = NULL, *split = NULL;
  for (int i = 0; i < TILEMM_CUDA_NVARIANTS; i++)
    {
      const tilemm_cuda_variant *v = &tilemm_cuda_variants[i];
      if (!(v->types & TILEMM_TYPE_BIT (plan->type)))
        continue;
      if (v->preferred)
        {
          if (!chosen)
            chosen = v;
          if (cuda_blocks (plan, v) >= sms
              && (v->tile_rows * v->tile_cols <= chosen->tile_rows * chosen->tile_cols
                  || plan_rows_whole_chunks (plan)))
            filling = v;
        }
      if (v->preferred_small)
        small = v;
      if (v->preferred_split)
        split = v;
    }
  if (!chosen)
    return 0;
  if (filling)
    chosen = filling;
  else if (small)
    chosen = small;
  if (split && cuda_blocks (plan, split) * 4 <= sms
      && plan->k >= TILEMM_CUDA_SPLIT_MIN_K)
    chosen = split;
  plan->variant = chosen->id;
  plan->tile_rows = chosen->tile_rows;
  plan->tile_cols = chosen->tile_cols;
  plan->tile_depth = chosen->tile_depth;
  plan->pad = chosen->pad;
  return 1;
}

/* The GPU streams a panel in steps (tilemm.h): Bᵀ's panel stays on the device while A's rows
 * go through it, one kernel launch per step.  A step must keep the GPU busy on its own: at least
 * PLAN_STEP_BLOCKS blocks, about one per SM (H100: 132 SMs; in the first device run, steps of 128
 * blocks ran at 96% of the speed of one launch for the whole product, steps of 77 blocks at half
 * of it).  More steps overlap more of the copies with compute. */
enum { PLAN_MAX_ROW_PARTS = 8, PLAN_MAX_STEPS = 16, PLAN_SLOTS = 2, PLAN_STEP_BLOCKS = 128 };

static int64_t round_up (int64_t a, int64_t q)
{
  return q > 0 ? tilemm_ceil_div (a, q) * q : a;
}

/* The one-panel plan: the first kernel can start once one part of Bᵀ (n/P rows) and one step of
 * A's rows (m/Q) are up, so P and Q are chosen to make that wait, n/P + m/Q (times k), shortest
 * while every one of the P·Q kernels still has PLAN_STEP_BLOCKS blocks; steps of whole tiles. */
static void plan_whole (tilemm_plan *plan)
{
  plan->panel_rows = plan->n;
  plan->panel_cols = plan->m;
  const int64_t tr = plan->tile_rows > 0 ? plan->tile_rows : 1;
  const int64_t tc = plan->tile_cols > 0 ? plan->tile_cols : 1;
  const int64_t row_blocks = tilemm_ceil_div (plan->n, tr), col_blocks = tilemm_ceil_div (plan->m, tc);
  const int64_t most = row_blocks * col_blocks / PLAN_STEP_BLOCKS;
  int64_t best_p = 1, best_q = 1;
  double best = -1;
  for (int64_t p = 1; p <= PLAN_MAX_ROW_PARTS && p <= row_blocks; p++)
    for (int64_t q = 1; q <= PLAN_MAX_STEPS && q <= col_blocks; q++)
      {
        if (p * q > (most > 1 ? most : 1))
          break;
        const double wait = (double) plan->n / (double) p + (double) plan->m / (double) q;
        if (best < 0 || wait < best - 1e-9)
          {
            best = wait;
            best_p = p;
            best_q = q;
          }
      }
  int64_t rows = round_up (tilemm_ceil_div (plan->n, best_p), tr);
  if (rows > plan->n || rows < 1)
    rows = plan->n > 0 ? plan->n : 1;
  int64_t cols = round_up (tilemm_ceil_div (plan->m, best_q), tc);
  if (cols > plan->m || cols < 1)
    cols = plan->m > 0 ? plan->m : 1;
  plan->step_rows = rows;
  plan->step_cols = cols;
  plan->slots = plan->m > 0 ? tilemm_ceil_div (plan->m, cols) : 1;
}

/* Elements of the transposed operands' scratch for steps of step_rows × step_cols (see
 * tilemm_plan_transposed_scratch).  None on the CPU (its plans record no ops). */
static double transposed_scratch (const tilemm_plan *plan, double step_rows, double step_cols)
{
  const double a = plan->op_a != TILEMM_OP_NONE ? step_cols : 0;
  const double b = plan->op_b != TILEMM_OP_NONE ? step_rows : 0;
  return (double) plan->k * (a + b);
}

/* Panels under a limit: Bᵀ's panel (pr rows) on the device, A's rows streamed in steps of sc rows
 * through PLAN_SLOTS slots:  es·(pr·k + PLAN_SLOTS·sc·(k + pr)) <= limit, plus the scratch of a
 * transposed operand (pr·k for op_b, sc·k for op_a: transposed_scratch).  A is sent once per
 * panel row, B and C once.  Among the largest sc for each pr (a fraction of n in whole tiles),
 * the model picks the shortest time: the bus (copies overlapped with compute) or the kernels
 * (slowed where a step's blocks cannot fill the GPU), whichever is longer, plus uploading each
 * panel of Bᵀ before its first step and a small cost per step. */
static tilemm_status plan_panels (tilemm_plan *plan, const tilemm_limits *limits)
{
  plan_whole (plan);
  if (!limits || limits->max_device_bytes == 0)
    return TILEMM_OK;
  const double es = (double) tilemm_type_size (plan->type);
  const double budget = floor ((double) limits->max_device_bytes / es); /* in elements */
  const double m = (double) plan->m, n = (double) plan->n, k = (double) plan->k;
  if (m * k + k * n + m * n
        + transposed_scratch (plan, (double) plan->step_rows, (double) plan->step_cols)
      <= budget)
    return TILEMM_OK;
  const double ta = plan->op_a != TILEMM_OP_NONE, tb = plan->op_b != TILEMM_OP_NONE;
  const int64_t tr = plan->tile_rows > 0 ? plan->tile_rows : 1;
  const int64_t tc = plan->tile_cols > 0 ? plan->tile_cols : 1;
  const double flops = tilemm_model_flops (plan->type, m, n, k);
  const tilemm_machine_facts *facts = limits->facts;
  double best = -1;
  int64_t best_pr = 0, best_sc = 0, last_pr = -1;
  for (int64_t q = 1; q <= 64 + 12; q++)
    {
      /* q = 1..64: n/q in whole tiles; then 2048, 1024, ..., 1 rows for tiny limits. */
      int64_t pr;
      if (q <= 64)
        {
          pr = tilemm_ceil_div (plan->n, q);
          if (pr > tr)
            pr = round_up (pr, tr) < plan->n ? round_up (pr, tr) : plan->n;
        }
      else
        pr = (int64_t) 1 << (76 - q); /* 2048 … 1 */
      if (pr > plan->n || pr < 1 || pr == last_pr)
        continue;
      last_pr = pr;
      const double avail = budget - (1 + tb) * (double) pr * k;
      if (avail <= 0)
        continue;
      double s = floor (avail / (PLAN_SLOTS * (k + (double) pr) + ta * k));
      if (s < 1)
        continue;
      int64_t sc = s >= m ? plan->m : (int64_t) s;
      if (sc >= tc && sc < plan->m)
        sc -= sc % tc;
      const double passes = (double) tilemm_ceil_div (plan->n, pr);
      const double steps = passes * (double) tilemm_ceil_div (plan->m, sc);
      const double up = es * (k * n + passes * k * m), down = es * m * n;
      const double bus = tilemm_model_bus_s (facts, up > down ? up : down);
      double fill = (double) (tilemm_ceil_div (pr, tr) * tilemm_ceil_div (sc, tc))
                    / plan_multiprocessors (limits);
      if (fill > 1)
        fill = 1;
      const double compute = tilemm_model_kernel_s (facts, plan->type, flops) / fill;
      const double t = (bus > compute ? bus : compute)
                       + tilemm_model_bus_s (facts, passes * es * (double) pr * k)
                       + steps * tilemm_model_step_s (facts);
      if (best < 0 || t < best)
        {
          best = t;
          best_pr = pr;
          best_sc = sc;
        }
    }
  /* Not even one panel fits.  On the GPU that is its memory (the limit may be what it has free);
   * the cpu backend has no device memory, only the caller's limit. */
  if (best < 0)
    return plan->backend == TILEMM_BACKEND_CPU ? TILEMM_ELIMIT : TILEMM_EDEVMEM;
  plan->panel_rows = best_pr;
  plan->panel_cols = best_sc;
  plan->step_rows = best_pr;
  plan->step_cols = best_sc;
  plan->slots = PLAN_SLOTS;
  return TILEMM_OK;
}

/* A step's extent: the plan's, unless it is unset or not smaller than the panel's, which is
 * never larger than the product's. */
static int64_t step_extent (int64_t step, int64_t panel, int64_t whole)
{
  const int64_t p = panel < whole ? panel : whole;
  return step >= 1 && step < p ? step : p;
}

void tilemm_plan_steps (const tilemm_plan *plan, int64_t *step_rows, int64_t *step_cols)
{
  *step_rows = step_extent (plan->step_rows, plan->panel_rows, plan->n);
  *step_cols = step_extent (plan->step_cols, plan->panel_cols, plan->m);
}

void tilemm_plan_transposed_scratch (const tilemm_plan *plan, tilemm_op op_a, tilemm_op op_b,
                                     int64_t *a_elements, int64_t *b_elements)
{
  int64_t sr, sc;
  tilemm_plan_steps (plan, &sr, &sc);
  *a_elements = op_a != TILEMM_OP_NONE ? sc * plan->k : 0;
  *b_elements = op_b != TILEMM_OP_NONE ? sr * plan->k : 0;
}

size_t tilemm_plan_device_bytes (const tilemm_plan *plan)
{
  if (!plan || plan->m == 0 || plan->n == 0)
    return 0;
  const int one_panel = plan->panel_rows >= plan->n && plan->panel_cols >= plan->m;
  const int64_t rows = one_panel ? plan->m : plan->slots * plan->step_cols;
  int64_t scratch_a, scratch_b;
  tilemm_plan_transposed_scratch (plan, plan->op_a, plan->op_b, &scratch_a, &scratch_b);
  return tilemm_type_size (plan->type)
         * ((size_t) (plan->panel_rows * plan->k + rows * (plan->k + plan->panel_rows))
            + (size_t) (scratch_a + scratch_b));
}

tilemm_way tilemm_plan_auto_way (const tilemm_machine_facts *facts, tilemm_type type, int64_t m,
                                 int64_t n, int64_t k, int rank_k, int gpus,
                                 tilemm_way_costs *costs)
{
  tilemm_way_costs local;
  if (!costs)
    costs = &local;
  if ((int) type < 0 || type >= TILEMM_NTYPES || m <= 0 || n <= 0 || k <= 0)
    {
      for (int w = 0; w < TILEMM_NWAYS; w++)
        costs->seconds[w] = 0;
      costs->best = TILEMM_WAY_HOST;
      return TILEMM_WAY_HOST;
    }
  const double es = (double) tilemm_type_size (type);
  const double flops = tilemm_model_flops (type, (double) m, (double) n, (double) k);
  /* The GPU path moves A and B up as stored and the whole C down, and computes the whole
   * product even for a rank-k update (transposed on the device); the host's ?syrk/?herk computes
   * one triangle, so its crossover comes at larger sizes. */
  const double bytes = es * ((double) m * (double) k + (double) k * (double) n
                             + (double) m * (double) n);
  const double host_flops
    = rank_k ? tilemm_model_rank_k_flops (type, (double) n, (double) k) : flops;
  tilemm_model_ways (facts, type, bytes, flops, host_flops, gpus, costs);
  return costs->best;
}

int tilemm_plan_gpu_pays (tilemm_type type, int64_t m, int64_t n, int64_t k)
{
  return (int) type >= 0 && type < TILEMM_NTYPES && m > 0 && n > 0 && k > 0
         && tilemm_plan_auto_way (NULL, type, m, n, k, 0, 1, NULL) == TILEMM_WAY_GPU;
}

int tilemm_plan_rank_k_gpu_pays (tilemm_type type, int64_t n, int64_t k)
{
  return (int) type >= 0 && type < TILEMM_NTYPES && n > 0 && k > 0
         && tilemm_plan_auto_way (NULL, type, n, n, k, 1, 1, NULL) == TILEMM_WAY_GPU;
}

tilemm_status tilemm_plan_make (tilemm_plan *plan, tilemm_backend backend, tilemm_type type,
                                int64_t m, int64_t n, int64_t k, const tilemm_limits *limits)
{
  return tilemm_plan_make_op (plan, backend, type, m, n, k, TILEMM_OP_NONE, TILEMM_OP_NONE,
                              limits);
}

tilemm_status tilemm_plan_unfilled_op (tilemm_plan *plan, tilemm_backend backend,
                                       tilemm_type type, int64_t m, int64_t n, int64_t k,
                                       tilemm_op op_a, tilemm_op op_b,
                                       const tilemm_limits *limits)
{
  if (!plan || (int) type < 0 || type >= TILEMM_NTYPES || m < 0 || n < 0 || k < 0
      || (int) op_a < 0 || op_a >= TILEMM_NOPS || (int) op_b < 0 || op_b >= TILEMM_NOPS)
    return TILEMM_EINVAL;
  tilemm_plan p = { 0 };
  p.backend = backend;
  p.type = type;
  p.m = m;
  p.n = n;
  p.k = k;
  /* Only the GPU transposes on the device (the CPU reads a transposed operand as it is). */
  p.op_a = backend == TILEMM_BACKEND_CUDA ? op_a : TILEMM_OP_NONE;
  p.op_b = backend == TILEMM_BACKEND_CUDA ? op_b : TILEMM_OP_NONE;
  switch (backend)
    {
    case TILEMM_BACKEND_CPU:
      plan_cpu_tiles (&p);
      break;
    case TILEMM_BACKEND_CUDA:
      if (!plan_cuda_tiles (&p, plan_multiprocessors (limits)))
        return TILEMM_EBACKEND;
      break;
    default:
      return TILEMM_EINVAL;
    }
  tilemm_status status = plan_panels (&p, limits);
  if (status != TILEMM_OK)
    return status;
  *plan = p;
  return TILEMM_OK;
}

tilemm_status tilemm_plan_make_op (tilemm_plan *plan, tilemm_backend backend, tilemm_type type,
                                   int64_t m, int64_t n, int64_t k, tilemm_op op_a, tilemm_op op_b,
                                   const tilemm_limits *limits)
{
  const tilemm_status status
    = tilemm_plan_unfilled_op (plan, backend, type, m, n, k, op_a, op_b, limits);
  if (status == TILEMM_OK)
    tilemm_plan_launches (plan);
  return status;
}

int64_t tilemm_plan_panel_count (const tilemm_plan *plan)
{
  if (plan->m == 0 || plan->n == 0)
    return 0;
  return tilemm_ceil_div (plan->n, plan->panel_rows) * tilemm_ceil_div (plan->m, plan->panel_cols);
}

int tilemm_plan_panel (const tilemm_plan *plan, int64_t index, tilemm_panel *panel)
{
  const int64_t across = tilemm_ceil_div (plan->m, plan->panel_cols);
  if (index < 0 || index >= tilemm_plan_panel_count (plan))
    return 0;
  const int64_t pr = index / across, pc = index % across;
  panel->row = pr * plan->panel_rows;
  panel->col = pc * plan->panel_cols;
  panel->rows = plan->n - panel->row < plan->panel_rows ? plan->n - panel->row : plan->panel_rows;
  panel->cols = plan->m - panel->col < plan->panel_cols ? plan->m - panel->col : plan->panel_cols;
  return 1;
}

/* ---------------------------------------------------------------- several devices (multi.h) */

/* Whether the variant's arithmetic depends on the shape of a launch: the split-k variant splits
 * k by the launch's size, so a panel would sum in another order than the whole product. */
static int plan_shape_dependent (const tilemm_plan *plan)
{
  if (plan->backend != TILEMM_BACKEND_CUDA)
    return 0;
  for (int i = 0; i < TILEMM_CUDA_NVARIANTS; i++)
    if (tilemm_cuda_variants[i].id == plan->variant && tilemm_cuda_variants[i].preferred_split)
      return 1;
  return 0;
}

/* How many of `available` workers the product gains from (the crossover, devices.h), and the
 * most panels it can give (*most): one tile each when named, else each worth a worker's fixed
 * cost (tilemm_model_min_panel_flops, from the machine's facts).  1: one worker. */
static int workers_worth (const tilemm_plan *plan, int available, int named,
                          const tilemm_machine_facts *facts, double *most)
{
  if (available > TILEMM_MAX_WORKERS)
    available = TILEMM_MAX_WORKERS;
  *most = 1;
  if (available < 2 || plan->m == 0 || plan->n == 0 || plan->k == 0
      || plan_shape_dependent (plan))
    return 1;
  const int64_t tr = plan->tile_rows > 0 ? plan->tile_rows : 1;
  const int64_t tc = plan->tile_cols > 0 ? plan->tile_cols : 1;
  const int64_t row_tiles = tilemm_ceil_div (plan->n, tr), col_tiles = tilemm_ceil_div (plan->m, tc);
  *most = (double) row_tiles * (double) col_tiles;
  if (!named)
    {
      const double flops
        = tilemm_model_flops (plan->type, (double) plan->m, (double) plan->n, (double) plan->k);
      const double by_work = floor (flops / tilemm_model_min_panel_flops (facts, plan->type));
      if (by_work < *most)
        *most = by_work;
    }
  int workers = available;
  const int per_worker = named ? 1 : TILEMM_MULTI_MIN_PANELS;
  while (workers > 1 && (double) workers * per_worker > *most)
    workers--;
  return workers;
}

/* The queue's panels as strips: every panel the whole of one operand (all of op(A)'s rows when
 * cut along n, all of op(B)'s columns when cut along m, the longer side cut), `target` strips of
 * whole tiles, so that a worker keeps that operand on its device from one of its panels to the
 * next (tilemm_call_plan.queue_keeps) and sends it once, whatever panels it takes.  0 where the
 * longer side has fewer tiles than `workers` (no strip for every worker). */
static int strips (tilemm_plan *queue, const tilemm_plan *plan, int workers, double target)
{
  const int along_n = plan->n >= plan->m;
  const int64_t side = along_n ? plan->n : plan->m;
  const int64_t tile = along_n ? (plan->tile_rows > 0 ? plan->tile_rows : 1)
                               : (plan->tile_cols > 0 ? plan->tile_cols : 1);
  if (tilemm_ceil_div (side, tile) < workers)
    return 0;
  int64_t parts = (int64_t) target;
  if (parts < workers)
    parts = workers;
  int64_t width = round_up (tilemm_ceil_div (side, parts), tile);
  if (width > side)
    width = side;
  queue->panel_rows = along_n ? width : plan->n;
  queue->panel_cols = along_n ? plan->m : width;
  return 1;
}

/* The queue's panels as a grid as square as the tiles allow, `target` of them, since each panel
 * sends its rows of A and its columns of B: cut the longer side each time.  No larger than the
 * plan's own panels (a plan already cut to fit the device keeps them). */
static void grid (tilemm_plan *queue, const tilemm_plan *plan, double target)
{
  const int64_t tr = plan->tile_rows > 0 ? plan->tile_rows : 1;
  const int64_t tc = plan->tile_cols > 0 ? plan->tile_cols : 1;
  const int64_t row_tiles = tilemm_ceil_div (plan->n, tr), col_tiles = tilemm_ceil_div (plan->m, tc);
  int64_t parts_n = 1, parts_m = 1;
  while ((double) (parts_n * parts_m) < target)
    {
      const double side_n = (double) plan->n / (double) parts_n;
      const double side_m = (double) plan->m / (double) parts_m;
      if ((side_n >= side_m && parts_n < row_tiles) || parts_m >= col_tiles)
        parts_n++;
      else
        parts_m++;
      if (parts_n >= row_tiles && parts_m >= col_tiles)
        break;
    }
  int64_t rows = round_up (tilemm_ceil_div (plan->n, parts_n), tr);
  int64_t cols = round_up (tilemm_ceil_div (plan->m, parts_m), tc);
  if (rows > plan->panel_rows)
    rows = plan->panel_rows;
  if (cols > plan->panel_cols)
    cols = plan->panel_cols;
  queue->panel_rows = rows < plan->n ? rows : plan->n;
  queue->panel_cols = cols < plan->m ? cols : plan->m;
}

int tilemm_plan_unfilled_queue (tilemm_plan *queue, const tilemm_plan *plan, int available,
                                int named, int per_worker, const tilemm_machine_facts *facts)
{
  *queue = *plan;
  double most;
  int workers = workers_worth (plan, available, named, facts, &most);
  if (workers < 2)
    return 1;
  /* About per_worker panels a worker (no more than the product gives), so a slower device ends
   * at most about its last panel late.  A plan of one panel (the whole product fits a device) is
   * cut into strips; one already cut to fit the device, into a grid of its panels. */
  double target = (double) workers * (per_worker > 0 ? per_worker : 1);
  if (target > most)
    target = most;
  const int one_panel = plan->panel_rows >= plan->n && plan->panel_cols >= plan->m;
  if (!one_panel || !strips (queue, plan, workers, target))
    grid (queue, plan, target);
  const int64_t panels = tilemm_plan_panel_count (queue);
  if (panels < workers)
    workers = (int) panels;
  if (workers < 2)
    {
      *queue = *plan;
      return 1;
    }
  return workers;
}

int tilemm_plan_unfilled_workers (tilemm_plan *queue, const tilemm_plan *plan, int available,
                                  int named, const tilemm_machine_facts *facts)
{
  return tilemm_plan_unfilled_queue (queue, plan, available, named,
                                     TILEMM_MULTI_PANELS_PER_WORKER, facts);
}

int tilemm_plan_workers (tilemm_plan *queue, const tilemm_plan *plan, int available, int named,
                         const tilemm_machine_facts *facts)
{
  const int workers = tilemm_plan_unfilled_workers (queue, plan, available, named, facts);
  if (workers > 1)
    tilemm_plan_launches (queue);   /* (one worker: *queue is *plan, launches and all) */
  return workers;
}

tilemm_status tilemm_plan_unfilled_for_panel (tilemm_plan *sub, const tilemm_plan *parent,
                                              int64_t rows, int64_t cols,
                                              const tilemm_limits *limits)
{
  if (!sub || !parent || rows < 1 || cols < 1)
    return TILEMM_EINVAL;
  tilemm_plan p = *parent;   /* the same variant, tiles and threads: the same sums */
  p.n = rows;
  p.m = cols;
  tilemm_status status = plan_panels (&p, limits);
  if (status != TILEMM_OK)
    return status;
  *sub = p;
  return TILEMM_OK;
}

tilemm_status tilemm_plan_for_panel (tilemm_plan *sub, const tilemm_plan *parent, int64_t rows,
                                     int64_t cols, const tilemm_limits *limits)
{
  const tilemm_status status = tilemm_plan_unfilled_for_panel (sub, parent, rows, cols, limits);
  if (status == TILEMM_OK)
    tilemm_plan_launches (sub);   /* the parent's fallback, this panel's launches */
  return status;
}
