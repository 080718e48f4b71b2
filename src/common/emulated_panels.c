/* emulated_panels.c — the emulated precision (emulated.h) over panels and devices: how a
 * product too large for one device's memory, or spread over several devices, keeps bitwise the
 * result of the whole product.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 *
 * The plan of an emulated product (its moduli and bit widths) is decided from statistics over
 * every (row of A, column of B) pair; everything else a panel computes depends on its own rows of
 * A and columns of B only (the exponents of a row or a column, its scaled integers and residues,
 * its entries of C).  So a product in panels runs two passes over them: the statistics of every
 * panel, merged (each a maximum, exact), give the whole product's plan; then every panel is
 * computed under that plan.  One panel on one device is one pass: its data go up once.
 */
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "emulated_panels.h"
#include "multi.h"

/* ---------------------------------------------------------------- the device bytes of a panel */

static double ceil16 (double x)
{
  return x > 0 ? 16.0 * (double) (((int64_t) x + 15) / 16) : 16.0;
}

int64_t tilemm_emu_result_block_cols (tilemm_type type, int64_t rows, int64_t cols,
                                      size_t chunk_bytes)
{
  const double bytes = (double) tilemm_type_size (type) * (double) rows * (double) cols;
  const double per_block = 4.0 * (double) (chunk_bytes > 0 ? chunk_bytes : 1);
  if (rows <= 0 || cols <= 1 || bytes < 2 * per_block)
    return cols;
  const int64_t blocks = bytes >= TILEMM_EMU_MAX_BLOCKS * per_block
                           ? TILEMM_EMU_MAX_BLOCKS
                           : (int64_t) (bytes / per_block);
  int64_t width = (cols + blocks - 1) / blocks;
  if (width > 256)
    width = (width + 255) / 256 * 256;
  return width < cols ? width : cols;
}

double tilemm_emu_panel_bytes (tilemm_type type, int64_t rows, int64_t cols, int64_t k,
                               int moduli, tilemm_op op_a, tilemm_op op_b)
{
  const double es = (double) tilemm_type_size (type), r = (double) rows, c = (double) cols;
  const int complex_type = tilemm_type_is_complex (type);
  const double kk = complex_type ? 2.0 * (double) k : (double) k, kp = ceil16 (kk);
  const double kd = k > 0 ? (double) k : 1.0;
  /* A, B and C as they travel; a complex product's two real problems' operands besides. */
  double bytes = es * (r * kd + kd * c + r * c);
  if (op_a != TILEMM_OP_NONE)
    bytes += es * r * kd;
  if (op_b != TILEMM_OP_NONE)
    bytes += es * kd * c;
  if (complex_type)
    bytes += 2.0 * es * (r * kd + kd * c) + 1024.0;
  /* Per real problem: exponents, maxima and sums (8 + 4 + 4·8 bytes a line), the statistics'
   * quantized operands and 64-bit sums, alignment; then N residue planes of each operand and N
   * of the product. */
  const double problem = (r + c) * 44.0 + (r + c) * kp + 8.0 * r * c + 4096.0;
  bytes += (complex_type ? 2.0 : 1.0) * problem;
  bytes += (double) moduli * ((r + c) * kp + r * c) + 1024.0;
  return bytes;
}

/* The moduli a product may need: the explicit count, else the automatic rule's most. */
static int most_moduli (const tilemm_emu_options *options)
{
  if (options->moduli > 0)
    return options->moduli;
  return options->max_moduli > 0 ? options->max_moduli : TILEMM_EMU_DEFAULT_MAX_MODULI;
}

tilemm_status tilemm_emu_plan_panels (tilemm_plan *plan, const tilemm_emu_options *options,
                                      tilemm_op op_a, tilemm_op op_b, size_t max_device_bytes)
{
  const int64_t m = plan->m, n = plan->n, k = plan->k;
  plan->panel_rows = n > 0 ? n : 1;
  plan->panel_cols = m > 0 ? m : 1;
  if (max_device_bytes == 0 || m == 0 || n == 0)
    return TILEMM_OK;
  const int moduli = most_moduli (options);
  int64_t rows = m, cols = n; /* of C */
  while (tilemm_emu_panel_bytes (plan->type, rows, cols, k, moduli, op_a, op_b)
         > (double) max_device_bytes)
    {
      if (rows == 1 && cols == 1)
        return plan->backend == TILEMM_BACKEND_CPU ? TILEMM_ELIMIT : TILEMM_EDEVMEM;
      /* Halve the longer side: square panels send A and B the fewest times. */
      if (rows >= cols)
        rows = (rows + 1) / 2;
      else
        cols = (cols + 1) / 2;
    }
  plan->panel_rows = cols;
  plan->panel_cols = rows;
  return TILEMM_OK;
}

/* ---------------------------------------------------------------- the CPU as a backend */

/* The operands of one product as stored, with how each enters it. */
typedef struct {
  tilemm_op op_a, op_b;
  const tilemm_view *a, *b, *c;
} operands;

static tilemm_status cpu_panel (const tilemm_emu_options *options, tilemm_emu_pass *pass,
                                const operands *x, const tilemm_stop *stop, tilemm_emu_plan *used,
                                tilemm_error *err)
{
  if (!pass)
    {
      tilemm_plan plan;
      const tilemm_status status
        = tilemm_plan_make (&plan, TILEMM_BACKEND_CPU, x->a->type, x->c->rows, x->c->cols,
                            tilemm_op_cols (x->op_a, x->a), NULL);
      if (status != TILEMM_OK)
        return tilemm_error_set (err, status, "%s", tilemm_strerror (status));
      return tilemm_cpu_multiply_emulated (&plan, options, tilemm_emu_decide_by_rule, NULL,
                                           x->op_a, x->a, x->op_b, x->b, x->c, stop, used, err);
    }
  if (pass->kind == TILEMM_EMU_PASS_STATS)
    {
      tilemm_emu_stats mine;
      const tilemm_status status
        = tilemm_emu_stats_cpu_op (x->op_a, x->a, x->op_b, x->b, &mine, err);
      if (status == TILEMM_OK)
        tilemm_emu_stats_merge (&pass->stats[0], &mine);
      return status;
    }
  if (tilemm_stop_requested (stop))
    return tilemm_error_set (err, TILEMM_EINTERRUPTED, "interrupted");
  *used = pass->plan;
  return tilemm_emu_run_cpu_op (&pass->plan, x->op_a, x->a, x->op_b, x->b, x->c, err);
}

static tilemm_status cpu_workers (const tilemm_plan *queue, const tilemm_workers *workers,
                                  tilemm_emu_pass *pass, const operands *x,
                                  const tilemm_stop *stop, tilemm_error *err)
{
  tilemm_sim_config config;
  tilemm_sim_config_init (&config, workers->count);
  config.stop = *stop;
  config.emu = pass;
  return tilemm_sim_multiply_op (queue, &config, x->op_a, x->a, x->op_b, x->b, x->c, NULL, err);
}

static tilemm_status cuda_panel (const tilemm_emu_options *options, tilemm_emu_pass *pass,
                                 const operands *x, const tilemm_stop *stop,
                                 tilemm_emu_plan *used, tilemm_error *err)
{
  if (!pass)
    return tilemm_cuda_multiply_emulated (NULL, options, tilemm_emu_decide_by_rule, NULL, x->op_a,
                                          x->a, x->op_b, x->b, x->c, stop, used, err);
  return tilemm_cuda_emu_panel (pass, x->op_a, x->a, x->op_b, x->b, x->c, stop, used, err);
}

static tilemm_status cuda_workers (const tilemm_plan *queue, const tilemm_workers *workers,
                                   tilemm_emu_pass *pass, const operands *x,
                                   const tilemm_stop *stop, tilemm_error *err)
{
  return tilemm_cuda_emu_workers (queue, NULL, workers, pass, x->op_a, x->a, x->op_b, x->b, x->c,
                                  stop, NULL, err);
}

/* ---------------------------------------------------------------- the passes */

/* One pass over the panels of `plan` on one device. */
static tilemm_status pass_over_panels (tilemm_backend backend, const tilemm_plan *plan,
                                       tilemm_emu_pass *pass, const operands *x,
                                       const tilemm_stop *stop, tilemm_error *err)
{
  const int64_t count = tilemm_plan_panel_count (plan);
  for (int64_t i = 0; i < count; i++)
    {
      if (i > 0 && tilemm_stop_requested (stop))
        return tilemm_error_set (err, TILEMM_EINTERRUPTED, "interrupted before panel %lld of %lld",
                                 (long long) i + 1, (long long) count);
      tilemm_panel p;
      tilemm_plan_panel (plan, i, &p);
      /* Cᵀ's rows are C's columns: the panel is C(p.col +, p.row +), op(A)'s rows p.col +,
       * op(B)'s columns p.row + (tilemm.h). */
      const tilemm_view sa = tilemm_view_op_sub (x->op_a, x->a, p.col, 0, p.cols, plan->k);
      const tilemm_view sb = tilemm_view_op_sub (x->op_b, x->b, 0, p.row, plan->k, p.rows);
      const tilemm_view sc = tilemm_view_sub (x->c, p.col, p.row, p.cols, p.rows);
      const operands sub = { x->op_a, x->op_b, &sa, &sb, &sc };
      tilemm_emu_plan used;
      const tilemm_status status = backend == TILEMM_BACKEND_CUDA
                                     ? cuda_panel (NULL, pass, &sub, stop, &used, err)
                                     : cpu_panel (NULL, pass, &sub, stop, &used, err);
      if (status != TILEMM_OK)
        return status;
    }
  return TILEMM_OK;
}

tilemm_status tilemm_emu_multiply_panels (const tilemm_plan *plan,
                                          const tilemm_emu_options *options,
                                          const tilemm_workers *workers, int named, tilemm_op op_a,
                                          const tilemm_view *a, tilemm_op op_b,
                                          const tilemm_view *b, const tilemm_view *c,
                                          const tilemm_stop *stop, tilemm_emu_plan *used,
                                          tilemm_error *err)
{
  static const tilemm_stop no_stop = { NULL, NULL };
  if (!stop)
    stop = &no_stop;
  memset (used, 0, sizeof *used);
  const operands x = { op_a, op_b, a, b, c };
  const int cuda = plan->backend == TILEMM_BACKEND_CUDA;
  /* Workers: the queue of tilemm_plan_workers, as the native product's. */
  tilemm_plan queue = *plan;
  int count = 1;
  if (workers && workers->count > 1)
    count = tilemm_plan_workers (&queue, plan, workers->count, named);
  tilemm_workers use;
  if (workers)
    use = *workers;
  use.count = count;
  const int64_t panels = tilemm_plan_panel_count (plan);
  if ((count <= 1 && panels <= 1) || plan->k == 0)
    return cuda ? cuda_panel (options, NULL, &x, stop, used, err)
                : cpu_panel (options, NULL, &x, stop, used, err);

  tilemm_emu_pass *pass = calloc (1, sizeof *pass);
  if (!pass)
    return tilemm_error_set (err, TILEMM_ENOMEM, "%s", tilemm_strerror (TILEMM_ENOMEM));
  pass->kind = TILEMM_EMU_PASS_STATS;
  pass->options = *options;
  tilemm_status status
    = count > 1 ? (cuda ? cuda_workers : cpu_workers) (&queue, &use, pass, &x, stop, err)
                : pass_over_panels (plan->backend, plan, pass, &x, stop, err);
  if (status == TILEMM_OK)
    {
      tilemm_emu_stats stats;
      memset (&stats, 0, sizeof stats);
      stats.inner = tilemm_type_is_complex (plan->type) ? 2 * plan->k : plan->k;
      for (int w = 0; w < TILEMM_MAX_WORKERS; w++)
        tilemm_emu_stats_merge (&stats, &pass->stats[w]);
      if (stats.nonfinite)
        used->verdict = TILEMM_EMU_NONFINITE;
      else
        tilemm_emu_decide (options, &stats, used);
      if (used->verdict == TILEMM_EMU_OK)
        {
          pass->kind = TILEMM_EMU_PASS_PRODUCT;
          pass->plan = *used;
          status = count > 1
                     ? (cuda ? cuda_workers : cpu_workers) (&queue, &use, pass, &x, stop, err)
                     : pass_over_panels (plan->backend, plan, pass, &x, stop, err);
        }
    }
  free (pass);
  return status;
}
