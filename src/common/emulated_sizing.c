/* emulated_sizing.c — what an emulated product holds on a device, how its panels are cut under
 * a limit and in which blocks the GPU brings its C back: pure arithmetic the plan reads
 * (call_plan.c).
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 */
#include <math.h>
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

/* One column of C's product (the moduli's GEMMs and the statistics', a complex product's four
 * real ones) and one column of B's upload, in seconds. */
static void per_column (tilemm_type type, int64_t m, int64_t k, int moduli,
                        const tilemm_emu_pipe_rates *rates, double *product_s, double *upload_s)
{
  const double real_products = tilemm_type_is_complex (type) ? 4.0 : 1.0;
  *product_s = (double) (moduli + 1) * 2.0 * (double) m * (double) k * real_products
               / rates->int8_ops_per_s;
  *upload_s = (double) tilemm_type_size (type) * (double) k / rates->bus_bytes_per_s;
}

double tilemm_emu_pipeline_gain_s (tilemm_type type, int64_t m, int64_t n, int64_t k, int moduli,
                                   int64_t first, const tilemm_emu_pipe_rates *rates)
{
  if (first <= 0 || first >= n || m <= 0 || k <= 0 || moduli < 1 || !rates
      || !(rates->int8_ops_per_s > 0) || !(rates->bus_bytes_per_s > 0))
    return 0;
  double product_s, upload_s;
  per_column (type, m, k, moduli, rates, &product_s, &upload_s);
  const double first_product = product_s * (double) first;
  const double rest_upload = upload_s * (double) (n - first);
  double extra = TILEMM_EMU_PIPE_SYNCS * (rates->step_s > 0 ? rates->step_s : 0);
  if (tilemm_type_is_complex (type))
    {
      /* A's work again (emulated_scheme.cu): its two real operands formed (A read, twice its
       * bytes written), then for each of the two real problems (inner dimension 2k, real
       * elements): two scans, the quantization and the residues each reading A, lo(A) and the
       * residues of every modulus written (a byte an element each). */
      const double es = (double) tilemm_type_size (type), er = es / 2.0;
      const double elements = (double) m * 2.0 * (double) k; /* one real problem's A */
      const double bytes = 3.0 * es * (double) m * (double) k
                           + 2.0 * (4.0 * er * elements + (1.0 + moduli) * elements);
      extra += bytes / TILEMM_EMU_DEVICE_BYTES_PER_S;
    }
  return (first_product < rest_upload ? first_product : rest_upload) - extra;
}

int64_t tilemm_emu_pipeline_first (tilemm_type type, int64_t m, int64_t n, int64_t k, int moduli,
                                   const tilemm_emu_pipe_rates *rates)
{
  const double es = (double) tilemm_type_size (type);
  const double b_bytes = es * (double) k * (double) n;
  if (k <= 0 || m <= 0 || n < 2 * 256 || b_bytes < (double) TILEMM_EMU_PIPE_MIN_BYTES || !rates
      || !(rates->int8_ops_per_s > 0) || !(rates->bus_bytes_per_s > 0) || moduli < 1)
    return 0;
  /* The first panel's product must last while the rest of B comes up: first·r = n − first. */
  double product_s, upload_s;
  per_column (type, m, k, moduli, rates, &product_s, &upload_s);
  const double r = product_s / upload_s;
  int64_t first = (int64_t) ceil ((double) n / (1.0 + r));
  /* whole 256-column GEMM tiles, at least one, at most half of n */
  first = (first + 255) / 256 * 256;
  const int64_t half = (n / 2 + 255) / 256 * 256;
  if (first > half)
    first = half;
  if (first >= n || !(tilemm_emu_pipeline_gain_s (type, m, n, k, moduli, first, rates) > 0))
    return 0;
  return first;
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

