/* tests/emu/test_op_emu.cc — the GPU path for transposed operands (src/backend_cuda_op.cu and the
 * device transpose of src/transpose.cu) on the host emulation of CUDA: every type and pair of
 * 'N', 'T', 'C', ragged and tile-edge shapes, strides above the rows, against the CPU backend's
 * product of the same views (which reads transposed operands in place), within a rounding bound.
 * The emulation runs the plan's kernel variant as the GPU would.  Built and run by
 * tests/emu/run.sh, under AddressSanitizer.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 */
#include <cmath>
#include <cstdlib>
#include <vector>

#include "backend.h"
#include "check.h"

/* The rest of the CUDA backend (backend_cuda.cu) is not emulated: a GPU that is always there,
 * and a plain product that is not this test's. */
tilemm_status tilemm_cuda_probe (tilemm_error *) { return TILEMM_OK; }
tilemm_status tilemm_cuda_multiply (const tilemm_plan *, const tilemm_view *, const tilemm_view *,
                                    const tilemm_view *, const tilemm_stop *, tilemm_error *err)
{
  return tilemm_error_set (err, TILEMM_ENOGPU, "not emulated");
}

static double uniform ()
{
  return 2.0 * rand () / RAND_MAX - 1.0;
}

/* Reals per element, and the value of real i of a buffer of `type` as a double. */
static int parts (tilemm_type t) { return tilemm_type_is_complex (t) ? 2 : 1; }
static bool single (tilemm_type t) { return t == TILEMM_SINGLE || t == TILEMM_COMPLEX_SINGLE; }
static double real_at (tilemm_type t, const void *p, size_t i)
{
  return single (t) ? ((const float *) p)[i] : ((const double *) p)[i];
}

/* A stored rows×cols operand with stride rows + gap, random. */
struct operand
{
  std::vector<double> storage;
  tilemm_view view;
  operand (tilemm_type t, int64_t rows, int64_t cols, int64_t gap)
  {
    const int64_t stride = rows + gap;
    const size_t reals = (size_t) (stride * (cols > 0 ? cols : 1)) * parts (t);
    storage.assign (reals, 0.0); /* doubles: room for floats too */
    for (size_t i = 0; i < reals; i++)
      {
        if (single (t))
          ((float *) storage.data ())[i] = (float) uniform ();
        else
          storage[i] = uniform ();
      }
    tilemm_view_init (&view, t, rows, cols, stride, storage.data ());
  }
};

static void op_case (tilemm_type t, tilemm_op op_a, tilemm_op op_b, int64_t m, int64_t n, int64_t k)
{
  static const char *const op_name = "NTC";
  CHECK_CASE ("%s %c%c m=%lld n=%lld k=%lld", tilemm_type_name (t), op_name[op_a], op_name[op_b],
              (long long) m, (long long) n, (long long) k);
  const bool ta = op_a != TILEMM_OP_NONE, tb = op_b != TILEMM_OP_NONE;
  operand a (t, ta ? k : m, ta ? m : k, 3), b (t, tb ? n : k, tb ? k : n, 1);
  operand c_gpu (t, m, n, 2), c_cpu = c_gpu;   /* the same start, gaps included */
  c_cpu.view.data = c_cpu.storage.data ();
  tilemm_plan gpu, cpu;
  tilemm_error err = { TILEMM_OK, "" };
  CHECK (tilemm_plan_make (&gpu, TILEMM_BACKEND_CUDA, t, m, n, k, NULL) == TILEMM_OK, "plan");
  CHECK (tilemm_plan_make (&cpu, TILEMM_BACKEND_CPU, t, m, n, k, NULL) == TILEMM_OK, "plan");
  const tilemm_status s = tilemm_multiply_op (&gpu, op_a, &a.view, op_b, &b.view, &c_gpu.view, &err);
  CHECK (s == TILEMM_OK, "GPU path: %s", err.detail);
  CHECK (tilemm_multiply_op (&cpu, op_a, &a.view, op_b, &b.view, &c_cpu.view, &err) == TILEMM_OK,
         "CPU: %s", err.detail);
  /* |C_gpu − C_cpu| ≤ 2 · 4·eps·k·max|a||b| per real part (every operand is within [−1, 1]). */
  const double eps = single (t) ? 1.2e-7 : 2.3e-16;
  const double bound = 8 * eps * (double) (k + 2) * 2;
  const int P = parts (t);
  int bad = 0;
  for (int64_t j = 0; j < n; j++)
    for (int64_t i = 0; i < m * P; i++)
      {
        const size_t at = (size_t) (j * c_gpu.view.stride * P + i);
        const double g = real_at (t, c_gpu.view.data, at), r = real_at (t, c_cpu.view.data, at);
        if (!(std::fabs (g - r) <= bound) && bad++ < 3)
          CHECK (0, "C real %lld of column %lld: GPU %.17g, CPU %.17g", (long long) i,
                 (long long) j, g, r);
      }
  /* C's gaps between columns are the untouched random values (both started alike). */
  int gap_written = 0;
  for (int64_t j = 0; j + 1 < n; j++)
    for (int64_t i = m * P; i < c_gpu.view.stride * P; i++)
      {
        const size_t at = (size_t) (j * c_gpu.view.stride * P + i);
        gap_written += real_at (t, c_gpu.view.data, at) != real_at (t, c_cpu.view.data, at);
      }
  CHECK (gap_written == 0, "%d reals of C's gaps written", gap_written);
}

int main ()
{
  srand (7);
  static const int64_t shapes[][3] = { { 1, 1, 1 }, { 5, 3, 7 }, { 33, 17, 65 }, { 64, 64, 64 },
                                       { 70, 45, 130 } };
  for (int t = 0; t < TILEMM_NTYPES; t++)
    for (int x = 0; x < TILEMM_NOPS; x++)
      for (int y = 0; y < TILEMM_NOPS; y++)
        {
          if (x == 0 && y == 0)
            continue; /* the pipeline's product, not this path's */
          for (const auto &s : shapes)
            op_case ((tilemm_type) t, (tilemm_op) x, (tilemm_op) y, s[0], s[1], s[2]);
        }
  /* k = 0 writes zeros; an empty product nothing. */
  {
    CHECK_CASE ("k = 0 and empty products");
    operand a (TILEMM_DOUBLE, 0, 4, 1), b (TILEMM_DOUBLE, 3, 0, 0), c (TILEMM_DOUBLE, 4, 3, 1);
    tilemm_plan plan;
    tilemm_error err = { TILEMM_OK, "" };
    tilemm_plan_make (&plan, TILEMM_BACKEND_CUDA, TILEMM_DOUBLE, 4, 3, 0, NULL);
    CHECK (tilemm_multiply_op (&plan, TILEMM_OP_TRANSPOSE, &a.view, TILEMM_OP_TRANSPOSE, &b.view,
                               &c.view, &err) == TILEMM_OK, "%s", err.detail);
    for (int j = 0; j < 3; j++)
      for (int i = 0; i < 4; i++)
        CHECK (((double *) c.view.data)[i + 5 * j] == 0, "C(%d,%d) not zero", i, j);
  }
  return check_summary ("test_op_emu");
}
