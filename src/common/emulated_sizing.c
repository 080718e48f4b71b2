/* emulated_sizing.c — what an emulated product holds on a device, how its panels are cut under
 * a limit and in which blocks the GPU brings its C back: pure arithmetic the plan reads
 * (call_plan.c).
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 */
#include <stdint.h>

#include "emulated.h"
#include "tilemm.h"

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

int64_t tilemm_emu_pipeline_cols (tilemm_type type, int64_t m, int64_t n, int64_t k)
{
  const double b_bytes = (double) tilemm_type_size (type) * (double) k * (double) n;
  /* Half of B hidden behind the first panel's GEMMs against one more pass over A: B's columns
   * must be at least a quarter of A's rows (per element, an upload costs several times a pass
   * of the scheme's conversions), and each panel whole 256-column GEMM tiles. */
  if (k <= 0 || m <= 0 || n < 2 * 256 || b_bytes < (double) TILEMM_EMU_PIPE_MIN_BYTES
      || 4 * n < m)
    return 0;
  int64_t cols = (n + TILEMM_EMU_PIPE_PANELS - 1) / TILEMM_EMU_PIPE_PANELS;
  cols = (cols + 255) / 256 * 256;
  return cols < n ? cols : 0;
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

