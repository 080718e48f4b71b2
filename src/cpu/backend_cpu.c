/* backend_cpu.c — the CPU backend: the GPU's tiled algorithm on host threads.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 *
 * C = A·B is computed as the row-major product Cᵀ = Bᵀ·Aᵀ on the row-major readings of the
 * untouched column-major buffers, panel by panel as the plan cuts it, block tile by block tile
 * within a panel (the tiles claimed one at a time by the threads of the host pool, host_pool.h,
 * as many as the plan says).  The per-type kernel is written once, in
 * backend_cpu_tile.h, and instantiated below for float, double and their complex pairs, once
 * per CPU variant (cpu_isa.h): the build's baseline and, on x86-64 with GCC or clang, AVX2 and
 * AVX-512 copies compiled with target attributes; a product runs the one its plan names
 * (tilemm_plan.cpu_isa: the widest the CPU runs, from the host's facts, host_cpus.h).
 *
 * Bitwise reproducibility: every element of C is accumulated in its own element type, starting
 * from zero, one product at a time in increasing k; neither the tile nor the panel an element
 * falls in, nor the thread that computes it, changes that sequence.  So results do not depend on
 * the panel limit, the thread count or the CPU variant.  For the variants that needs each product
 * rounded before it is added: no contraction into fused multiply-adds, whatever flags the build
 * passes.  GCC contracts under -ffp-contract=fast (the default of its GNU dialects, and of a user's
 * CFLAGS that ask for it): the kernels' functions say fp-contract=off themselves (CPU_NO_CONTRACT);
 * clang contracts within an expression by default, which the STDC pragma below turns off.  The
 * AVX2 variant is compiled without the FMA instructions besides.  tests/test_core.c compares every
 * variant the machine runs bitwise against the default.
 */
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#include "backend.h"
#include "batch.h"
#include "call_plan.h"
#include "cpu_isa.h"
#include "host_pool.h"
#include "tilemm.h"

#ifdef __clang__
#pragma STDC FP_CONTRACT OFF
#endif

/* The largest block tile (rows and columns of Cᵀ, and real k depth) the local buffers hold.
 * Three 64×64 double tiles are 96 KiB of stack per thread, 128 KiB for complex double (whose
 * depth is halved); every platform's default thread stack (512 KiB and up) has room, and the host
 * pool's threads have 1 MiB (host_team.c). */
#define CPU_TILE_MAX 64

/* The operands of one panel, as the kernels read them.  A transposed operand is the same view
 * read the other way: its row-major reading is already op(B)ᵀ's transpose, so the kernel reads
 * element (r, c) of op(B)ᵀ at (c, r) of that reading (bt_swap) — no copy, no reordering. */
typedef struct {
  tilemm_matrix bt;   /* Bᵀ: n_panel × k (bt_swap: B's reading, k × n_panel) */
  tilemm_matrix at;   /* Aᵀ: k × m_panel (at_swap: A's reading, m_panel × k) */
  tilemm_matrix ct;   /* Cᵀ: n_panel × m_panel */
  int64_t k;
  int bt_swap, at_swap;   /* read (c, r) for (r, c): the operand is transposed          */
  int bt_conj, at_conj;   /* negate imaginary parts as they load: conjugate transposed  */
  int64_t tile_rows, tile_cols, tile_depth;
} cpu_operands;

static int round_up (int value, int multiple)
{
  return (value + multiple - 1) / multiple * multiple;
}

/* One block tile of Cᵀ at (r0, c0), rows × cols valid elements: the kernel of one element type
 * and variant (backend_cpu_tile.h). */
typedef void cpu_tile_fn (const cpu_operands *op, int64_t r0, int64_t c0, int rows, int cols);

/* GCC's vector extension (clang's too) for the register blocks; without it, one scalar a lane. */
#if defined(__GNUC__) || defined(__clang__)
#define TILE_USE_VECTORS 1
#define TILE_UNROLL _Pragma ("GCC unroll 16")
#else
#define TILE_USE_VECTORS 0
#define TILE_UNROLL
#endif

/* GCC's optimize attribute is the one way to pin the contraction mode per function (it has no
 * STDC FP_CONTRACT pragma); clang has the pragma above and no such attribute. */
#if defined(__GNUC__) && !defined(__clang__)
#define CPU_NO_CONTRACT __attribute__ ((optimize ("fp-contract=off")))
#else
#define CPU_NO_CONTRACT
#endif

/* The wider variants are built where host_cpus.h detects them (TILEMM_CPU_X86_VARIANTS). */
#define CPU_X86_VARIANTS TILEMM_CPU_X86_VARIANTS

/* Each variant: its name (CPU_VARIANT, the suffix of its functions), its function attribute
 * (TILE_TARGET) and its register block (backend_cpu_tile.h): TILE_VECS vectors of TILE_VEC_BYTES
 * a row, TILE_ROWS rows for a real type (half as many for complex, which holds two planes).  The
 * blocks' rows and lanes divide CPU_TILE_MAX, so a tile padded to whole blocks still fits the
 * buffers.  backend_cpu_variant.h instantiates the kernel for the four types and makes the
 * variant's table, cpu_tile_fns_<variant>. */

/* The baseline: 16-byte vectors (SSE2, NEON), two a row, 4 rows: a 4 × 32-byte block. */
#define CPU_VARIANT default
#define TILE_TARGET CPU_NO_CONTRACT
#define TILE_VEC_BYTES 16
#define TILE_VECS 2
#define TILE_ROWS 4
#include "backend_cpu_variant.h"

#if CPU_X86_VARIANTS
/* AVX2 (16 registers of 32 bytes): a 4 × 2-vector block is 8 accumulators, leaving room for the
 * row of Aᵀ and the broadcasts.  Without the "fma" feature, so no product is ever fused. */
#define CPU_VARIANT avx2
#define TILE_TARGET __attribute__ ((target ("avx2"))) CPU_NO_CONTRACT
#define TILE_VEC_BYTES 32
#define TILE_VECS 2
#define TILE_ROWS 4
#include "backend_cpu_variant.h"

/* AVX-512 (32 registers of 64 bytes): an 8 × 2-vector block is 16 accumulators. */
#define CPU_VARIANT avx512
#define TILE_TARGET __attribute__ ((target ("avx512f"))) CPU_NO_CONTRACT
#define TILE_VEC_BYTES 64
#define TILE_VECS 2
#define TILE_ROWS 8
#include "backend_cpu_variant.h"
#endif

/* Whether the plan's tiles fit the fixed local buffers (CPU_TILE_MAX is a multiple of every
 * register block, so a tile that fits also fits once padded to whole blocks). */
static int cpu_tiles_fit (const tilemm_plan *plan)
{
  const int depth_max = CPU_TILE_MAX / (tilemm_type_is_complex (plan->type) ? 2 : 1);
  return plan->tile_rows >= 1 && plan->tile_rows <= CPU_TILE_MAX && plan->tile_cols >= 1
         && plan->tile_cols <= CPU_TILE_MAX && plan->tile_depth >= 1
         && plan->tile_depth <= depth_max;
}

/* The operands of one panel: sub-views of A, B and C (the guide's GetSubMatrix), read row-major.
 * Panel (row, col, rows, cols) of Cᵀ is C(col…, row…) = A(col…, :) · B(:, row…). */
static cpu_operands cpu_panel_operands (const tilemm_plan *plan, const tilemm_panel *panel,
                                        tilemm_op op_a, const tilemm_view *a, tilemm_op op_b,
                                        const tilemm_view *b, const tilemm_view *c)
{
  /* op(A)'s rows col… are A's columns col… when A is transposed; likewise for B. */
  const tilemm_view a_panel = tilemm_view_op_sub (op_a, a, panel->col, 0, panel->cols, plan->k);
  const tilemm_view b_panel = tilemm_view_op_sub (op_b, b, 0, panel->row, plan->k, panel->rows);
  const tilemm_view c_panel = tilemm_view_sub (c, panel->col, panel->row, panel->cols, panel->rows);
  const int complex_type = tilemm_type_is_complex (plan->type);
  cpu_operands op;
  op.bt = tilemm_row_major_reading (&b_panel);
  op.at = tilemm_row_major_reading (&a_panel);
  op.ct = tilemm_row_major_reading (&c_panel);
  op.k = plan->k;
  op.bt_swap = op_b != TILEMM_OP_NONE;
  op.at_swap = op_a != TILEMM_OP_NONE;
  op.bt_conj = complex_type && op_b == TILEMM_OP_CTRANSPOSE;
  op.at_conj = complex_type && op_a == TILEMM_OP_CTRANSPOSE;
  op.tile_rows = plan->tile_rows;
  op.tile_cols = plan->tile_cols;
  op.tile_depth = plan->tile_depth;
  return op;
}

/* One batch of a panel's tiles, a job of the host pool: tile `first + index`. */
typedef struct {
  const cpu_operands *op;
  cpu_tile_fn *tile;
  int64_t first, tiles_across;
} tile_batch;

static void cpu_tile_at (void *arg, int64_t index, int member)
{
  (void) member;
  const tile_batch *b = (const tile_batch *) arg;
  const cpu_operands *op = b->op;
  const int64_t t = b->first + index;
  const int64_t r0 = (t / b->tiles_across) * op->tile_rows;
  const int64_t c0 = (t % b->tiles_across) * op->tile_cols;
  const int rows = (int) (op->ct.height - r0 < op->tile_rows ? op->ct.height - r0 : op->tile_rows);
  const int cols = (int) (op->ct.width - c0 < op->tile_cols ? op->ct.width - c0 : op->tile_cols);
  b->tile (op, r0, c0, rows, cols);
}

/* Every block tile of one panel, spread over the threads, each by tile (the kernel of the type
 * and variant), in the plan's batches on the plan's teams (tilemm_plan_cpu_tile_batch): with a
 * stop callback, whole tile rows, the callback polled on this thread between batches (it need
 * not be thread-safe, and no thread leaves a job early).  Returns 1 when stopped. */
static int cpu_panel (const tilemm_plan *plan, const cpu_operands *op, cpu_tile_fn *tile,
                      const tilemm_stop *stop)
{
  const int64_t tiles_down = tilemm_ceil_div (op->ct.height, op->tile_rows);
  const int64_t tiles_across = tilemm_ceil_div (op->ct.width, op->tile_cols);
  const int64_t ntiles = tiles_down * tiles_across;
  const int polled = stop && stop->should_stop;
  int64_t count;
  for (int64_t first = 0; first < ntiles; first += count)
    {
      if (first > 0 && tilemm_stop_requested (stop))
        return 1;
      int team;
      count = tilemm_plan_cpu_tile_batch (plan, tiles_down, tiles_across, polled, first, &team);
      const tile_batch b = { op, tile, first, tiles_across };
      tilemm_host_pool_run (team, count, cpu_tile_at, (void *) &b);
    }
  return 0;
}

/* ---------------------------------------------------------------- the variants (cpu_isa.h) */

/* The variant's kernels by element type; NULL where the variant is not built. */
static cpu_tile_fn *const *cpu_isa_kernels (tilemm_cpu_isa isa)
{
  switch (isa)
    {
    case TILEMM_CPU_ISA_DEFAULT:
      return cpu_tile_fns_default;
#if CPU_X86_VARIANTS
    case TILEMM_CPU_ISA_AVX2:
      return cpu_tile_fns_avx2;
    case TILEMM_CPU_ISA_AVX512:
      return cpu_tile_fns_avx512;
#endif
    default:
      return NULL;
    }
}

/* Products each variant ran (tilemm_cpu_isa_products). */
static atomic_long cpu_isa_runs[TILEMM_CPU_NISAS];

long tilemm_cpu_isa_products (tilemm_cpu_isa isa)
{
  return (int) isa >= 0 && isa < TILEMM_CPU_NISAS
           ? atomic_load_explicit (&cpu_isa_runs[isa], memory_order_relaxed)
           : 0;
}

/* ---------------------------------------------------------------- products */

tilemm_status tilemm_cpu_multiply (const tilemm_plan *plan, const tilemm_view *a,
                                   const tilemm_view *b, const tilemm_view *c,
                                   const tilemm_stop *stop, tilemm_error *err)
{
  return tilemm_cpu_multiply_op (plan, TILEMM_OP_NONE, a, TILEMM_OP_NONE, b, c, stop, err);
}

tilemm_status tilemm_cpu_multiply_op (const tilemm_plan *plan, tilemm_op op_a,
                                      const tilemm_view *a, tilemm_op op_b, const tilemm_view *b,
                                      const tilemm_view *c, const tilemm_stop *stop,
                                      tilemm_error *err)
{
  /* The plan's variant (0, the default, for a plan made without the host's facts). */
  return tilemm_cpu_multiply_isa ((tilemm_cpu_isa) plan->cpu_isa, plan, op_a, a, op_b, b, c,
                                  stop, err);
}

tilemm_status tilemm_cpu_multiply_isa (tilemm_cpu_isa isa, const tilemm_plan *plan,
                                       tilemm_op op_a, const tilemm_view *a, tilemm_op op_b,
                                       const tilemm_view *b, const tilemm_view *c,
                                       const tilemm_stop *stop, tilemm_error *err)
{
  if ((int) plan->type < 0 || plan->type >= TILEMM_NTYPES)
    return tilemm_error_set (err, TILEMM_ETYPE, "cpu backend: unknown element type %d",
                             (int) plan->type);
  /* A check of the plan, not a choice: a variant this CPU lacks is refused, never replaced. */
  if (!cpu_isa_kernels (isa) || !tilemm_cpu_isa_available (isa))
    return tilemm_error_set (err, TILEMM_EINVAL, "cpu backend: variant %s not available here",
                             tilemm_cpu_isa_name (isa));
  if (!cpu_tiles_fit (plan))
    return tilemm_error_set (err, TILEMM_EINVAL,
                             "cpu backend: tile %dx%dx%d does not fit the %dx%d local buffers "
                             "(depth at most %d for %s)",
                             plan->tile_rows, plan->tile_cols, plan->tile_depth, CPU_TILE_MAX,
                             CPU_TILE_MAX,
                             CPU_TILE_MAX / (tilemm_type_is_complex (plan->type) ? 2 : 1),
                             tilemm_type_name (plan->type));
  if (plan->panel_rows < 1 || plan->panel_cols < 1)
    return tilemm_error_set (err, TILEMM_EINVAL, "cpu backend: empty panels (%lld x %lld)",
                             (long long) plan->panel_rows, (long long) plan->panel_cols);

  cpu_tile_fn *const tile = cpu_isa_kernels (isa)[plan->type];
  atomic_fetch_add_explicit (&cpu_isa_runs[isa], 1, memory_order_relaxed);
  const int64_t npanels = tilemm_plan_panel_count (plan);
  for (int64_t i = 0; i < npanels; i++)
    {
      tilemm_panel panel;
      if (!tilemm_plan_panel (plan, i, &panel))
        return tilemm_error_set (err, TILEMM_EINVAL, "cpu backend: panel %lld of %lld missing",
                                 (long long) i, (long long) npanels);
      const cpu_operands op = cpu_panel_operands (plan, &panel, op_a, a, op_b, b, c);
      if ((i > 0 && tilemm_stop_requested (stop)) || cpu_panel (plan, &op, tile, stop))
        return tilemm_error_set (err, TILEMM_EINTERRUPTED, "interrupted in panel %lld of %lld",
                                 (long long) i + 1, (long long) npanels);
    }
  return tilemm_error_set (err, TILEMM_OK, NULL);
}

/* ---------------------------------------------------------------- the CPU's table (backend.h) */

static tilemm_status cpu_probe (tilemm_error *err)
{
  return tilemm_error_set (err, TILEMM_OK, NULL);
}

static void cpu_facts (int with_budgets, tilemm_device_facts *facts)
{
  (void) with_budgets;
  memset (facts, 0, sizeof *facts);
  facts->usable = 1;
  facts->total = facts->count = 1;
  facts->current = 0;
}

/* The state is the call's plan (config), which the emulated statistics read: the CPU holds
 * nothing of its own between the operations. */
static tilemm_status cpu_begin (const void *config, void **state, tilemm_error *err)
{
  if (!config)
    return tilemm_error_set (err, TILEMM_EINVAL, "cpu backend: no call plan");
  *state = (void *) config;
  return tilemm_error_set (err, TILEMM_OK, NULL);
}

static void cpu_end (void *state, tilemm_status status)
{
  (void) state;
  (void) status;
}

static tilemm_status cpu_product (void *state, int worker, const tilemm_plan *plan,
                                  tilemm_op op_a, const tilemm_view *a, tilemm_op op_b,
                                  const tilemm_view *b, const tilemm_view *c,
                                  const tilemm_stop *stop, tilemm_error *err)
{
  (void) state;
  (void) worker;
  return tilemm_cpu_multiply_op (plan, op_a, a, op_b, b, c, stop, err);
}

static tilemm_status cpu_emu_stats (void *state, int worker, const tilemm_emu_options *options,
                                    tilemm_op op_a, const tilemm_view *a, tilemm_op op_b,
                                    const tilemm_view *b, tilemm_emu_stats *stats,
                                    tilemm_error *err)
{
  (void) worker;
  (void) options;   /* the plan's branches say what the statistics must give */
  const tilemm_call_plan *plan = (const tilemm_call_plan *) state;
  return tilemm_emu_stats_cpu_planned (plan->emu_branches.threads, plan->emu_branches.needs_ratios,
                                       op_a, a, op_b, b, stats, err);
}

static tilemm_status cpu_emu_product (void *state, int worker, const tilemm_emu_plan *plan,
                                      tilemm_op op_a, const tilemm_view *a, tilemm_op op_b,
                                      const tilemm_view *b, const tilemm_view *c,
                                      const tilemm_stop *stop, tilemm_emu_plan *used,
                                      tilemm_error *err)
{
  (void) state;
  (void) worker;
  if (tilemm_stop_requested (stop))
    return tilemm_error_set (err, TILEMM_EINTERRUPTED, "interrupted");
  *used = *plan;
  return tilemm_emu_run_cpu_op (plan, op_a, a, op_b, b, c, err);
}

static tilemm_status cpu_emu_whole (void *state, int worker, const tilemm_emu_options *options,
                                    const tilemm_emu_branches *branches, tilemm_op op_a,
                                    const tilemm_view *a, tilemm_op op_b, const tilemm_view *b,
                                    const tilemm_view *c, const tilemm_stop *stop,
                                    tilemm_emu_plan *used, tilemm_error *err)
{
  (void) state;
  (void) worker;
  tilemm_plan typed;
  memset (&typed, 0, sizeof typed);
  typed.backend = TILEMM_BACKEND_CPU;
  typed.type = a->type;
  return tilemm_cpu_multiply_emulated (&typed, options, branches, op_a, a, op_b, b, c,
                                       stop, used, err);
}

const tilemm_backend_ops tilemm_cpu_backend_ops = {
  .name = "cpu",
  .device_kind = "CPU",
  .probe = cpu_probe,
  .facts = cpu_facts,
  .begin = cpu_begin,
  .end = cpu_end,
  .product = cpu_product,
  .emu_stats = cpu_emu_stats,
  .emu_product = cpu_emu_product,
  .emu_whole = cpu_emu_whole,
  .emu_split = tilemm_emu_multiply_split_cpu,
  .batch = tilemm_cpu_multiply_batch,
};
