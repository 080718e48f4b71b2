// test_pages.cc — a batch of pages (pagemtimes) in C: the shape's rules (src/common/batch_plan.c),
// the plan, and the run (src/exec/batch.c) on the CPU and on the GPU's batched product
// (src/cuda/batch_product.cu) over the stand-in CUDA runtime (tests/mock_cuda: its batched
// "kernel", mock_batched.cc, multiplies on the host), against a long-double loop over the pages
// that reads its own pages of X and Y (expansion written out here, not through the library).
//
// Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
//
// Each case: classes and complexity (real, complex, mixed: pairs and split), the nine transpose
// pairs, page dimensions with expansion on either side, page counts 0, 1 and many, small pages
// (packed) and medium ones (tiled), the GPU's panels of pages under a small max_device_bytes,
// pages that run alone (a plain product each, bitwise a loop of plain products, under a quarter
// of a page); then the device memory given back.

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <complex>
#include <vector>

#include "backend.h"
#include "batch.h"
#include "batch_run.h"
#include "check.h"
#include "pages_shape.h"
#include "copy_team.h"
#include "front.h"
#include "tilemm.h"

// Built twice: on the stand-in runtime (TILEMM_TEST_MOCK, test_pages) and on the real CUDA
// backend (test_pages_gpu, where CUDA is built: the real batched kernels, on the GPU machine;
// its GPU cases are skipped where no GPU is usable).
#ifdef TILEMM_TEST_MOCK
extern "C" size_t mock_cuda_device_bytes (void);
extern "C" size_t mock_cuda_peak_bytes (void);
extern "C" void mock_cuda_reset_peak (void);
extern "C" unsigned long long mock_kernels_launches (int variant);
extern "C" unsigned long long mock_kernels_transposes (void);
extern "C" unsigned long long mock_batched_launches (void);
extern "C" unsigned long long mock_batched_kernel_launches (int kernel);
#endif
#ifndef TILEMM_TEST_MOCK
static size_t mock_cuda_device_bytes (void) { return 0; }
#endif

#include "test_random.h"

namespace
{
// Uniform in [-1, 1): the tests' generator (test_random.h).
double uniform ()
{
  return 2 * urand () - 1;
}

typedef std::complex<long double> ref_t;

// An array of pages as Octave stores it: complex interleaved, `dims` (rows, cols, pages...).
struct array
{
  bool complex_, single;
  std::vector<int64_t> dims;
  std::vector<double> re, im;   // the values (as the type holds them)
  std::vector<unsigned char> bytes;
  int64_t numel () const
  {
    int64_t c = 1;
    for (int64_t d : dims)
      c *= d;
    return c;
  }
  void fill ()
  {
    const int64_t count = numel ();
    re.resize (count), im.resize (count);
    const size_t es = single ? 4 : 8;
    bytes.assign ((size_t) count * es * (complex_ ? 2 : 1) + 1, 0);
    for (int64_t i = 0; i < count; i++)
      {
        re[i] = uniform (), im[i] = complex_ ? uniform () : 0.0;
        if (single)
          re[i] = (float) re[i], im[i] = (float) im[i];
        for (int part = 0; part < (complex_ ? 2 : 1); part++)
          {
            const double v = part ? im[i] : re[i];
            const size_t at = (size_t) (complex_ ? 2 * i + part : i) * es;
            if (single)
              {
                const float f = (float) v;
                memcpy (&bytes[at], &f, 4);
              }
            else
              memcpy (&bytes[at], &v, 8);
          }
      }
  }
};

ref_t op_at (const array &a, int64_t page, tilemm_op op, int64_t i, int64_t l)
{
  const int64_t rows = a.dims[0], per = a.dims[0] * a.dims[1];
  const int64_t at = page * per + (op == TILEMM_OP_NONE ? i + l * rows : l + i * rows);
  const ref_t v (a.re[at], a.im[at]);
  return op == TILEMM_OP_CTRANSPOSE ? std::conj (v) : v;
}

int64_t dim (const array &a, int d)
{
  return d < (int) a.dims.size () ? a.dims[d] : 1;
}

// The loop over Z's pages, expansion written out: a page index per dimension past the second.
bool check_result (const array &x, tilemm_op op_a, const array &y, tilemm_op op_b,
                   const void *z, bool z_complex, bool single, const char *what)
{
  const int64_t m = op_a == TILEMM_OP_NONE ? x.dims[0] : x.dims[1];
  const int64_t k = op_a == TILEMM_OP_NONE ? x.dims[1] : x.dims[0];
  const int64_t n = op_b == TILEMM_OP_NONE ? y.dims[1] : y.dims[0];
  const int nd = (int) (x.dims.size () > y.dims.size () ? x.dims.size () : y.dims.size ());
  int64_t pages = 1;
  for (int d = 2; d < nd; d++)
    pages *= dim (x, d) == 1 ? dim (y, d) : dim (x, d);
  const long double eps = single ? 1.2e-7L : 2.3e-16L;
  int bad = 0;
  for (int64_t p = 0; p < pages; p++)
    {
      int64_t rest = p, xp = 0, yp = 0, xs = 1, ys = 1;
      for (int d = 2; d < nd; d++)
        {
          const int64_t size = dim (x, d) == 1 ? dim (y, d) : dim (x, d);
          const int64_t at = rest % size;
          rest /= size;
          if (dim (x, d) != 1)
            xp += at * xs;
          if (dim (y, d) != 1)
            yp += at * ys;
          xs *= dim (x, d);
          ys *= dim (y, d);
        }
      for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < m; i++)
          {
            ref_t acc = 0;
            long double mag = 0;
            for (int64_t l = 0; l < k; l++)
              {
                const ref_t t = op_at (x, xp, op_a, i, l) * op_at (y, yp, op_b, l, j);
                acc += t;
                mag += std::abs (t);
              }
            const int64_t e = p * m * n + i + j * m;
            long double zr, zi = 0;
            if (single)
              {
                const float *f = (const float *) z;
                zr = z_complex ? f[2 * e] : f[e];
                zi = z_complex ? f[2 * e + 1] : 0;
              }
            else
              {
                const double *f = (const double *) z;
                zr = z_complex ? f[2 * e] : f[e];
                zi = z_complex ? f[2 * e + 1] : 0;
              }
            const long double bound = 4 * (k + 2) * eps * (mag + 1e-30L);
            if (fabsl (zr - acc.real ()) > bound || fabsl (zi - acc.imag ()) > bound)
              {
                if (bad++ < 3)
                  printf ("  %s: page %lld (%lld,%lld): %Lg%+Lgi, expected %Lg%+Lgi\n", what,
                          (long long) p, (long long) i, (long long) j, zr, zi, acc.real (),
                          acc.imag ());
              }
          }
    }
  return bad == 0;
}

tilemm_operand describe (const array &a)
{
  tilemm_operand d;
  memset (&d, 0, sizeof d);
  d.cls = a.single ? TILEMM_CLASS_SINGLE : TILEMM_CLASS_DOUBLE;
  d.is_complex = a.complex_;
  d.ndims = 2;
  d.rows = a.dims[0];
  d.cols = a.dims[1];
  return d;
}

// Converts an operand to what the route reads (the front end's job): the result's class,
// complex where the route makes it so.
std::vector<unsigned char> as_route_reads (const array &a, bool single, bool to_complex)
{
  const bool cplx = a.complex_ || to_complex;
  const int64_t count = a.numel ();
  std::vector<unsigned char> out ((size_t) count * (single ? 4 : 8) * (cplx ? 2 : 1) + 1);
  for (int64_t i = 0; i < count; i++)
    for (int part = 0; part < (cplx ? 2 : 1); part++)
      {
        const double v = part ? a.im[i] : a.re[i];
        const size_t at = (size_t) (cplx ? 2 * i + part : i);
        if (single)
          ((float *) out.data ())[at] = (float) v;
        else
          ((double *) out.data ())[at] = v;
      }
  return out;
}

const char *op_name (tilemm_op op)
{
  return op == TILEMM_OP_NONE ? "none" : op == TILEMM_OP_TRANSPOSE ? "transpose" : "ctranspose";
}

// One case on one backend: true when it ran and matched.
void one_case (const char *label, tilemm_backend_choice choice, size_t max_device_bytes,
               bool xc, bool xs, std::vector<int64_t> xd, tilemm_op op_a, bool yc, bool ys,
               std::vector<int64_t> yd, tilemm_op op_b)
{
  char name[256];
  snprintf (name, sizeof name, "%s %s: %s%s [%lld %lld ...%d] %s x %s%s [%lld %lld ...%d] %s",
            label, choice == TILEMM_CHOOSE_GPU ? "gpu" : "cpu", xs ? "single" : "double",
            xc ? " complex" : "", (long long) xd[0], (long long) xd[1], (int) xd.size (),
            op_name (op_a), ys ? "single" : "double", yc ? " complex" : "", (long long) yd[0],
            (long long) yd[1], (int) yd.size (), op_name (op_b));
  check_case (name);
  array x{ xc, xs, xd, {}, {}, {} }, y{ yc, ys, yd, {}, {}, {} };
  x.fill ();
  y.fill ();
  tilemm_batch batch;
  tilemm_error err = { TILEMM_OK, "" };
  tilemm_status st = tilemm_batch_shape_make ((int) xd.size (), xd.data (), op_a, (int) yd.size (),
                                              yd.data (), op_b, &batch.shape, &err);
  CHECK (st == TILEMM_OK, "%s", err.detail);
  if (st != TILEMM_OK)
    return;
  tilemm_options options;
  tilemm_options_init (&options);
  options.backend = TILEMM_CHOOSE_CPU;
  options.max_device_bytes = max_device_bytes;
  const tilemm_operand da = describe (x), db = describe (y);
  st = tilemm_decide_op (&da, op_a, &db, op_b, &options, &batch.decision, &err);
  CHECK (st == TILEMM_OK && batch.decision.action == TILEMM_DO_COMPUTE, "%s", err.detail);
  if (st != TILEMM_OK || batch.decision.action != TILEMM_DO_COMPUTE)
    return;
  // Batched (pages_alone 0), whatever the rule would say: these cases are the batched path's,
  // one page among them (TILEMM_PAGES_ALONE=0 runs it so; the rule runs one page alone).
  st = tilemm_batch_plan_make (&batch.decision.route, &batch.shape, 2, TILEMM_CPU_ISA_DEFAULT, choice, 1,
                               max_device_bytes, 0, 0, NULL, &batch.plan, &err);
  CHECK (st == TILEMM_OK, "%s", err.detail);
  if (batch.plan.backend == TILEMM_BACKEND_CUDA)
    {
      // The GPU's part of the plan, as tilemm_decide_batch completes it: one device, its copy
      // team, the chunk's panels and the staging.
      tilemm_host_facts host;
      tilemm_host_facts_gather (&host);
      const tilemm_workers one = { 1, { 0 } };
      tilemm_batch_plan_devices (&batch.plan, &batch.decision.route, batch.shape.z_pages, &one, 0,
                                 &host, NULL, NULL);
      tilemm_call_settings settings;
      tilemm_call_settings_read (&settings);
      tilemm_plan_staging (&settings, &batch.plan.staging);
    }
  batch.decision.backend = batch.plan.backend;
  const tilemm_route &r = batch.decision.route;
  const bool single = r.result_class == TILEMM_CLASS_SINGLE;
  const std::vector<unsigned char> xb = as_route_reads (x, single, r.use_a == TILEMM_OPERAND_TO_COMPLEX);
  const std::vector<unsigned char> yb = as_route_reads (y, single, r.use_b == TILEMM_OPERAND_TO_COMPLEX);
  const size_t z_count = (size_t) (r.m * r.n * batch.shape.z_pages);
  std::vector<unsigned char> z (z_count * (single ? 4 : 8) * (r.result_complex ? 2 : 1) + 1, 0xA5);
  if (max_device_bytes > 0)
    tilemm_cuda_release ();   // what the panels hold, alone
#ifdef TILEMM_TEST_MOCK
  const unsigned long long named0 = mock_batched_kernel_launches (batch.plan.gpu_kernel);
  const unsigned long long other0 = mock_batched_kernel_launches (!batch.plan.gpu_kernel);
#endif
  st = tilemm_batch_run (&batch, &options, xb.data (), yb.data (), z.data (), &err);
  CHECK (st == TILEMM_OK, "%s", err.detail);
#ifdef TILEMM_TEST_MOCK
  // The batched kernel that ran is the one the plan names (kernels/batched.cu chooses none).
  if (st == TILEMM_OK && batch.plan.backend == TILEMM_BACKEND_CUDA && !batch.plan.per_page
      && r.m > 0 && r.n > 0 && batch.shape.z_pages > 0)
    CHECK (mock_batched_kernel_launches (batch.plan.gpu_kernel) > named0
             && mock_batched_kernel_launches (!batch.plan.gpu_kernel) == other0,
           "the plan's batched kernel (%d) ran, no other", (int) batch.plan.gpu_kernel);
  // Each panel's kernels timed on their own (the stand-in's events say 0.5 ms apart), what
  // calibration fits the batch's kernel rate to: one figure a panel, none lost or counted twice.
  if (st == TILEMM_OK && batch.plan.backend == TILEMM_BACKEND_CUDA && !batch.plan.per_page
      && r.m > 0 && r.n > 0 && batch.shape.z_pages > 0)
    {
      tilemm_cuda_stats cs;
      tilemm_cuda_last_stats (&cs);
      CHECK (cs.panels > 0 && fabs (cs.kernels_ms - 0.5 * (double) cs.panels) < 1e-9,
             "%s: the kernels' device time %.3f ms over %lld panels, 0.5 ms each", name,
             cs.kernels_ms, (long long) cs.panels);
    }
#endif
  if (max_device_bytes > 0)
    CHECK (tilemm_cuda_bytes_held () <= max_device_bytes, "%zu device bytes held, limit %zu",
           tilemm_cuda_bytes_held (), max_device_bytes);
  if (st == TILEMM_OK)
    CHECK (check_result (x, op_a, y, op_b, z.data (), r.result_complex, single, name),
           "values differ from the loop over pages");
}
#ifdef TILEMM_TEST_MOCK
// What the stand-in ran: the tiled kernels' launches (every variant), its device transposes,
// the batched kernels' launches.
struct ran
{
  unsigned long long tiled, transposes, batched;
};
ran ran_now ()
{
  ran r = { 0, mock_kernels_transposes (), mock_batched_launches () };
  for (int v = 1; v <= 16; v++)
    r.tiled += mock_kernels_launches (v);
  return r;
}

// The pages of X and Y that Z's page p reads, written out here (not tilemm_batch_sources).
void own_sources (const array &x, const array &y, int64_t p, int64_t *xp, int64_t *yp)
{
  const int nd = (int) (x.dims.size () > y.dims.size () ? x.dims.size () : y.dims.size ());
  int64_t rest = p, xs = 1, ys = 1;
  *xp = *yp = 0;
  for (int d = 2; d < nd; d++)
    {
      const int64_t size = dim (x, d) == 1 ? dim (y, d) : dim (x, d);
      const int64_t at = rest % size;
      rest /= size;
      if (dim (x, d) != 1)
        *xp += at * xs;
      if (dim (y, d) != 1)
        *yp += at * ys;
      xs *= dim (x, d);
      ys *= dim (y, d);
    }
}

int stop_at_once (void *) { return 1; }

// Pages that run alone (TILEMM_PAGES_ALONE=1: pages too small for the device model to send
// alone, so that the stand-in is quick), decided by tilemm_decide_batch under a limit of a
// quarter of one page's data: the plan says one by one and holds the call plan a plain call of
// one page gets; the batch is bitwise a loop of plain products of its pages (tilemm_decide_op
// and tilemm_run on each page, its sources found here), ran the tiled kernels as often as that
// loop did and the batched kernels never, within the limit.  same: Y is X (X'·X: mirrored).
void alone_case (const char *label, tilemm_backend_choice choice, bool xc, bool xs,
                 std::vector<int64_t> xd, tilemm_op op_a, bool yc, std::vector<int64_t> yd,
                 tilemm_op op_b, bool same = false)
{
  const bool gpu = choice == TILEMM_CHOOSE_GPU;
  char name[256];
  snprintf (name, sizeof name, "pages alone, %s %s: %s %s x %s", label, gpu ? "gpu" : "cpu",
            xc ? "complex" : "real", op_name (op_a), op_name (op_b));
  check_case (name);
  array x{ xc, xs, xd, {}, {}, {} }, y{ yc, xs, yd, {}, {}, {} };
  x.fill ();
  if (same)
    y = x;
  else
    y.fill ();
  tilemm_operand dx = describe (x), dy = describe (y);
  if (same)
    dx.identity = dy.identity = &x;
  // A quarter of one page's data as the kernels see it (pairs and splits counted).
  const int64_t m = op_a == TILEMM_OP_NONE ? xd[0] : xd[1], k = op_a == TILEMM_OP_NONE ? xd[1] : xd[0];
  const int64_t n = op_b == TILEMM_OP_NONE ? yd[1] : yd[0];
  const size_t es = (xs ? 4 : 8) * ((xc || yc) ? 2 : 1);
  const size_t quarter = gpu ? es * (size_t) (m * k + k * n + m * n) / 4 : 0;
  tilemm_options options;
  tilemm_options_init (&options);
  options.backend = choice;
  options.max_device_bytes = quarter;
  setenv ("TILEMM_PAGES_ALONE", "1", 1);
  tilemm_batch batch;
  tilemm_error err = { TILEMM_OK, "" };
  tilemm_status st = tilemm_decide_batch (&dx, (int) xd.size (), xd.data (), op_a, &dy,
                                          (int) yd.size (), yd.data (), op_b, &options, &batch,
                                          &err);
  unsetenv ("TILEMM_PAGES_ALONE");
  CHECK (st == TILEMM_OK && batch.action == TILEMM_BATCH_COMPUTE, "decide: %s", err.detail);
  if (st != TILEMM_OK || batch.action != TILEMM_BATCH_COMPUTE)
    return;
  CHECK (batch.plan.per_page == 1, "the plan runs the pages batched");
  CHECK (batch.plan.backend == (gpu ? TILEMM_BACKEND_CUDA : TILEMM_BACKEND_CPU)
           && batch.decision.backend == batch.plan.backend, "backend %d", (int) batch.plan.backend);
  if (same)
    CHECK (batch.decision.route.mirror != TILEMM_MIRROR_NONE, "X'*X not mirrored");
  const tilemm_route &r = batch.decision.route;
  const bool single = r.result_class == TILEMM_CLASS_SINGLE;
  const std::vector<unsigned char> xb = as_route_reads (x, single, r.use_a == TILEMM_OPERAND_TO_COMPLEX);
  const std::vector<unsigned char> yb = as_route_reads (y, single, r.use_b == TILEMM_OPERAND_TO_COMPLEX);
  const int64_t pages = batch.shape.z_pages;
  const size_t x_bytes = (xb.size () - 1) / (size_t) batch.shape.x_pages;
  const size_t y_bytes = (yb.size () - 1) / (size_t) batch.shape.y_pages;
  const size_t z_bytes = (size_t) (r.m * r.n) * (single ? 4 : 8) * (r.result_complex ? 2 : 1);
  std::vector<unsigned char> z (z_bytes * (size_t) pages + 1, 0xA5), loop (z.size (), 0x5A);
  loop.back () = z.back ();
  tilemm_cuda_release ();   // what the pages hold, alone
  mock_cuda_reset_peak ();
  const ran before = ran_now ();
  st = tilemm_batch_run (&batch, &options, xb.data (), yb.data (), z.data (), &err);
  const ran after = ran_now ();
  CHECK (st == TILEMM_OK, "run: %s", err.detail);
  if (gpu)
    CHECK (mock_cuda_peak_bytes () <= quarter, "the device held %zu bytes, the limit is %zu",
           mock_cuda_peak_bytes (), quarter);
  // The loop of plain products, each page decided as tilemm decides a 2-D call of its shape.
  tilemm_operand px = dx, py = dy;
  px.rows = xd[0], px.cols = xd[1], py.rows = yd[0], py.cols = yd[1];
  px.ndims = py.ndims = 2;
  tilemm_decision d;
  st = tilemm_decide_op (&px, op_a, &py, op_b, &options, &d, &err);
  CHECK (st == TILEMM_OK && d.action == TILEMM_DO_COMPUTE, "a page's decision: %s", err.detail);
  if (st != TILEMM_OK || d.action != TILEMM_DO_COMPUTE)
    return;
  const tilemm_call_plan &bp = batch.decision.plan, &pp = d.plan;
  CHECK (d.backend == batch.decision.backend && bp.type == pp.type && bp.m == pp.m && bp.n == pp.n
           && bp.k == pp.k && bp.split == pp.split && bp.device_limit == pp.device_limit
           && bp.native.variant == pp.native.variant && bp.native.panel_rows == pp.native.panel_rows
           && bp.native.panel_cols == pp.native.panel_cols && bp.workers.count == pp.workers.count,
         "the batch's page plan differs from a plain call's (variant %d/%d, panels %lldx%lld/%lldx%lld)",
         bp.native.variant, pp.native.variant, (long long) bp.native.panel_rows,
         (long long) bp.native.panel_cols, (long long) pp.native.panel_rows,
         (long long) pp.native.panel_cols);
  if (gpu)
    CHECK (tilemm_plan_panel_count (&pp.native) > 1, "a quarter of a page: %lld panel(s)",
           (long long) tilemm_plan_panel_count (&pp.native));
  for (int64_t p = 0; p < pages && st == TILEMM_OK; p++)
    {
      int64_t xp, yp;
      own_sources (x, y, p, &xp, &yp);
      st = tilemm_run (&d, &options, xb.data () + (size_t) xp * x_bytes,
                       yb.data () + (size_t) yp * y_bytes, loop.data () + (size_t) p * z_bytes, &err);
    }
  const ran looped = ran_now ();
  CHECK (st == TILEMM_OK, "the loop: %s", err.detail);
  CHECK (memcmp (z.data (), loop.data (), z.size ()) == 0, "not bitwise the loop of plain products");
  if (gpu)
    {
      CHECK (after.batched == before.batched, "%llu launches of the batched kernels",
             after.batched - before.batched);
      CHECK (after.tiled - before.tiled == looped.tiled - after.tiled
               && after.tiled - before.tiled >= (unsigned long long) pages,
             "%llu tiled launches, the loop of plain products %llu (%lld pages)",
             after.tiled - before.tiled, looped.tiled - after.tiled, (long long) pages);
      CHECK (after.transposes - before.transposes == looped.transposes - after.transposes,
             "%llu device transposes, the loop %llu", after.transposes - before.transposes,
             looped.transposes - after.transposes);
    }
  CHECK (check_result (x, op_a, y, op_b, z.data (), r.result_complex, single, name),
         "values differ from the loop over pages");
  // Ctrl-C between pages: the batch stops.
  tilemm_options stopping = options;
  stopping.stop.should_stop = stop_at_once;
  CHECK (tilemm_batch_run (&batch, &stopping, xb.data (), yb.data (), z.data (), &err)
           == TILEMM_EINTERRUPTED, "a stop asked: %s", err.detail);
}
#endif
} // namespace

/* The route of a square real product of n: what a batch plan's tests start from. */
static tilemm_route square_route (tilemm_type type, int64_t n)
{
  tilemm_route r;
  memset (&r, 0, sizeof r);
  r.action = TILEMM_ROUTE_COMPUTE;
  r.compute_type = type;
  r.m = r.n = r.k = n;
  return r;
}

int main (void)
{
  tilemm_error err = { TILEMM_OK, "" };
#ifdef TILEMM_TEST_MOCK
  const char *program = "test_pages";
  CHECK_CASE ("the stand-in runtime is a usable GPU");
  CHECK (tilemm_cuda_probe (&err) == TILEMM_OK, "%s", err.detail);
  const bool gpu = true;
#else
  const char *program = "test_pages_gpu";
  const bool gpu = tilemm_cuda_probe (&err) == TILEMM_OK;
  if (!gpu)
    check_skip ("the GPU's batched product", err.detail);
#endif

  // ---------------------------------------------------------------- the shape's rules
  {
    tilemm_batch_shape s;
    const int64_t x1[] = { 2, 3, 4, 1 }, y1[] = { 3, 5, 1, 6 };
    CHECK_CASE ("shape: expansion on both sides");
    CHECK (tilemm_batch_shape_make (4, x1, TILEMM_OP_NONE, 4, y1, TILEMM_OP_NONE, &s, &err) == TILEMM_OK,
           "%s", err.detail);
    CHECK (s.m == 2 && s.n == 5 && s.k == 3 && s.page_ndims == 2 && s.z_dims[0] == 4
             && s.z_dims[1] == 6 && s.z_pages == 24, "dims");
    int64_t xp, yp;
    tilemm_batch_sources (&s, 4 * 5 + 3, &xp, &yp);   // (3, 5) of 4x6 pages
    CHECK (xp == 3 && yp == 5, "sources %lld %lld", (long long) xp, (long long) yp);
    CHECK_CASE ("shape: inner dimensions");
    const int64_t x2[] = { 2, 3 }, y2[] = { 2, 3 };
    CHECK (tilemm_batch_shape_make (2, x2, TILEMM_OP_NONE, 2, y2, TILEMM_OP_NONE, &s, &err) == TILEMM_ESHAPE
             && s.bad_dim == 2, "inner");
    CHECK (tilemm_batch_shape_make (2, x2, TILEMM_OP_TRANSPOSE, 2, y2, TILEMM_OP_NONE, &s, &err) == TILEMM_OK,
           "x' * y");
    CHECK_CASE ("shape: page dimensions");
    const int64_t x3[] = { 2, 2, 3 }, y3[] = { 2, 2, 2 };
    CHECK (tilemm_batch_shape_make (3, x3, TILEMM_OP_NONE, 3, y3, TILEMM_OP_NONE, &s, &err) == TILEMM_ESHAPE
             && s.bad_dim == 3, "3 vs 2");
    const int64_t y4[] = { 2, 2, 1, 0 };
    CHECK (tilemm_batch_shape_make (3, x3, TILEMM_OP_NONE, 4, y4, TILEMM_OP_NONE, &s, &err) == TILEMM_OK
             && s.z_pages == 0, "no pages");
  }

  // ---------------------------------------------------------------- runs
  const tilemm_op ops[] = { TILEMM_OP_NONE, TILEMM_OP_TRANSPOSE, TILEMM_OP_CTRANSPOSE };
  const tilemm_backend_choice choices[] = { TILEMM_CHOOSE_CPU, TILEMM_CHOOSE_GPU };
  for (tilemm_backend_choice choice : choices)
    {
      if (choice == TILEMM_CHOOSE_GPU && !gpu)
        continue;
      for (tilemm_op oa : ops)
        for (tilemm_op ob : ops)
          {
            // (stored shapes chosen so op(X) is 3x4 and op(Y) is 4x2)
            const std::vector<int64_t> xd = oa == TILEMM_OP_NONE ? std::vector<int64_t>{ 3, 4, 5 }
                                                                 : std::vector<int64_t>{ 4, 3, 5 };
            const std::vector<int64_t> yd = ob == TILEMM_OP_NONE ? std::vector<int64_t>{ 4, 2, 5 }
                                                                 : std::vector<int64_t>{ 2, 4, 5 };
            one_case ("flags complex", choice, 0, true, false, xd, oa, true, false, yd, ob);
            one_case ("flags real", choice, 0, false, true, xd, oa, false, false, yd, ob);
            one_case ("flags complex x real", choice, 0, true, false, xd, oa, false, false, yd, ob);
            one_case ("flags real x complex", choice, 0, false, false, xd, oa, true, true, yd, ob);
          }
      // Expansion: a 2-D operand on either side, rows and columns of pages.
      one_case ("2-D X", choice, 0, false, false, { 5, 6 }, TILEMM_OP_NONE, false, false,
                { 6, 7, 9 }, TILEMM_OP_NONE);
      one_case ("2-D Y", choice, 0, true, false, { 6, 5, 2, 3 }, TILEMM_OP_TRANSPOSE, false, false,
                { 6, 7 }, TILEMM_OP_NONE);
      one_case ("row x column of pages", choice, 0, false, false, { 4, 3, 1, 5 }, TILEMM_OP_NONE,
                false, false, { 3, 2, 4, 1 }, TILEMM_OP_NONE);
      one_case ("column x row of pages", choice, 0, false, false, { 4, 3, 3, 1, 2 },
                TILEMM_OP_NONE, true, false, { 2, 3, 1, 4, 2 }, TILEMM_OP_CTRANSPOSE);
      one_case ("one page", choice, 0, false, false, { 7, 9 }, TILEMM_OP_NONE, false, false,
                { 9, 8 }, TILEMM_OP_NONE);
      one_case ("no pages", choice, 0, false, false, { 7, 9, 0 }, TILEMM_OP_NONE, false, false,
                { 9, 8 }, TILEMM_OP_NONE);
      one_case ("many tiny pages", choice, 0, false, false, { 2, 3, 700 }, TILEMM_OP_NONE, false,
                false, { 3, 2, 700 }, TILEMM_OP_NONE);
      one_case ("1x1 results", choice, 0, true, false, { 1, 5, 40 }, TILEMM_OP_NONE, false, false,
                { 5, 1, 40 }, TILEMM_OP_NONE);
      // Small real pages computed directly: a column in blocks of 16 rows and the rows left over
      // (X as stored), one element at a time (X transposed); single and double.
      one_case ("direct pages, rows in blocks", choice, 0, false, false, { 37, 6, 30 },
                TILEMM_OP_NONE, false, false, { 6, 11, 30 }, TILEMM_OP_NONE);
      one_case ("direct pages, rows in blocks", choice, 0, false, true, { 16, 16, 9 },
                TILEMM_OP_NONE, false, true, { 16, 16, 9 }, TILEMM_OP_NONE);
      one_case ("direct pages, X transposed", choice, 0, false, false, { 6, 37, 30 },
                TILEMM_OP_TRANSPOSE, false, false, { 11, 6, 30 }, TILEMM_OP_TRANSPOSE);
      one_case ("larger than a tile", choice, 0, false, false, { 70, 40, 3 }, TILEMM_OP_TRANSPOSE,
                false, false, { 70, 33, 3 }, TILEMM_OP_NONE);
      // Panels of pages: a limit that holds a few pages at a time.
      one_case ("panels", choice, 3 * 8 * (6 * 6 * 3), false, false, { 6, 6, 50 },
                TILEMM_OP_NONE, false, false, { 6, 6, 50 }, TILEMM_OP_TRANSPOSE);
      one_case ("panels, expanded", choice, 3 * 8 * (5 * 5 * 3), false, false, { 5, 5, 1, 6 },
                TILEMM_OP_NONE, false, false, { 5, 5, 7, 1 }, TILEMM_OP_NONE);
      // Over the bytes from which a GPU batch runs two panels in flight (batch_plan.c).
      one_case ("panels in flight", choice, 0, false, false, { 96, 96, 100 }, TILEMM_OP_NONE,
                false, false, { 96, 96, 100 }, TILEMM_OP_NONE);
    }
  // The GPU's panels two in flight (a batch over 8 MB): the next panel's pages up while one
  // computes, its Z down while the next computes; under a limit, and with expansion.
  if (gpu)
    {
      one_case ("two panels in flight", TILEMM_CHOOSE_GPU, 0, false, false, { 8, 8, 20000 },
                TILEMM_OP_NONE, false, false, { 8, 8, 20000 }, TILEMM_OP_TRANSPOSE);
      one_case ("two panels in flight, limited", TILEMM_CHOOSE_GPU, 3 * 8 * 64 * 50, false,
                false, { 8, 8, 20000 }, TILEMM_OP_CTRANSPOSE, true, false, { 8, 8, 20000 },
                TILEMM_OP_NONE);
      one_case ("two panels in flight, expanded", TILEMM_CHOOSE_GPU, 3 * 8 * 64 * 500, false,
                false, { 8, 8, 1, 200 }, TILEMM_OP_NONE, false, false, { 8, 8, 100, 1 },
                TILEMM_OP_NONE);
    }
  // Large pages take the tiled kernels page by page (the stand-in's tilemm_cuda_launch).
  if (gpu)
    one_case ("large pages", TILEMM_CHOOSE_GPU, 0, false, false, { 384, 64, 2 }, TILEMM_OP_NONE,
            false, false, { 64, 390, 2 }, TILEMM_OP_NONE);

#ifdef TILEMM_TEST_MOCK
  // Large pages run alone: through the plain product, page by page.  Expansion on either side,
  // transposes, real and complex pages (pairs, split), X'·X of one array.
  for (tilemm_backend_choice choice : choices)
    {
      alone_case ("2-D X", choice, false, false, { 45, 67 }, TILEMM_OP_TRANSPOSE, false,
                  { 45, 59, 3 }, TILEMM_OP_NONE);
      alone_case ("2-D Y, complex x real", choice, true, false, { 67, 45, 2, 2 }, TILEMM_OP_NONE,
                  false, { 59, 45 }, TILEMM_OP_TRANSPOSE);
      alone_case ("row x column, real x complex", choice, false, false, { 45, 67, 1, 3 },
                  TILEMM_OP_TRANSPOSE, true, { 59, 45, 2, 1 }, TILEMM_OP_CTRANSPOSE);
      alone_case ("single, complex", choice, true, true, { 67, 45, 4 }, TILEMM_OP_NONE, true,
                  { 45, 59, 4 }, TILEMM_OP_NONE);
      alone_case ("X'*X", choice, true, false, { 45, 67, 3 }, TILEMM_OP_CTRANSPOSE, true,
                  { 45, 67, 3 }, TILEMM_OP_NONE, true);
    }
#endif

  CHECK_CASE ("plan: which pages run alone");
  {
    tilemm_route r = square_route (TILEMM_DOUBLE, 2048);
    CHECK (tilemm_batch_page_alone (&r, 16, NULL), "2048x2048 double pages batched");
    tilemm_batch_plan plan;
    CHECK (tilemm_batch_plan_make (&r, test_pages_shape (&r, 16), 2, TILEMM_CPU_ISA_DEFAULT, TILEMM_CHOOSE_GPU, 1, 8 * 2048 * 2048, 0, -1, NULL, &plan, &err)
             == TILEMM_OK && plan.per_page && plan.pages_per_panel == 1
             && plan.backend == TILEMM_BACKEND_CUDA,
           "GPU, a limit of a third of a page: %s", err.detail);
    CHECK (tilemm_batch_plan_make (&r, test_pages_shape (&r, 100), 2, TILEMM_CPU_ISA_DEFAULT, TILEMM_CHOOSE_CPU, 1, 0, 0, -1, NULL, &plan, &err) == TILEMM_OK
             && plan.per_page && !plan.parallel_pages && plan.backend == TILEMM_BACKEND_CPU,
           "CPU: pages alone, each on every thread");
    r.compute_type = TILEMM_SINGLE;
    CHECK (tilemm_batch_page_alone (&r, 16, NULL), "2048x2048 single pages batched");
    r.compute_type = TILEMM_DOUBLE;
    r.m = r.n = r.k = 512;
    CHECK (!tilemm_batch_page_alone (&r, 16, NULL), "512x512 pages alone");
    // One page is one product: the plain call's, whatever its size (a batched kernel of one
    // 256 page ran 1.25x the plain call on an H200: bench/RESULTS.md).
    CHECK (tilemm_batch_page_alone (&r, 1, NULL), "one 512x512 page batched");
    CHECK (tilemm_batch_plan_make (&r, test_pages_shape (&r, 1), 2, TILEMM_CPU_ISA_DEFAULT, TILEMM_CHOOSE_GPU, 1, 0, 0, -1, NULL, &plan, &err) == TILEMM_OK
             && plan.per_page && plan.backend == TILEMM_BACKEND_CUDA, "GPU: one page batched");
    CHECK (tilemm_batch_plan_make (&r, test_pages_shape (&r, 2), 2, TILEMM_CPU_ISA_DEFAULT, TILEMM_CHOOSE_GPU, 1, 0, 0, -1, NULL, &plan, &err) == TILEMM_OK
             && !plan.per_page, "GPU: two 512x512 pages alone");
    r.m = r.n = 384, r.k = 64;
    CHECK (!tilemm_batch_page_alone (&r, 16, NULL), "384x384 (k 64) pages alone");
    CHECK (tilemm_batch_plan_make (&r, test_pages_shape (&r, 1000), 2, TILEMM_CPU_ISA_DEFAULT, TILEMM_CHOOSE_GPU, 1, 0, 0, -1, NULL, &plan, &err) == TILEMM_OK
             && !plan.per_page && plan.pages_per_panel == 1000, "GPU: small pages batched");
  }

  CHECK_CASE ("plan: the batched kernel a GPU batch runs, named by the plan");
  {
    // Pages of at most TILEMM_BATCHED_SMALL_PAGE elements of Z as the kernels see them (pairs
    // and splits counted) run the small-pages kernel, larger ones the tiled one.
    tilemm_batch_plan plan;
    struct { int64_t m, n; int pairs, b_split; tilemm_batched_kernel want; } k[] = {
      { 4, 8, 0, 0, TILEMM_BATCHED_SMALL }, { 5, 7, 0, 0, TILEMM_BATCHED_TILED },
      { 1, 1, 0, 0, TILEMM_BATCHED_SMALL }, { 4, 4, 1, 0, TILEMM_BATCHED_SMALL },
      { 4, 5, 1, 0, TILEMM_BATCHED_TILED }, { 4, 5, 0, 1, TILEMM_BATCHED_TILED },
      { 64, 64, 0, 0, TILEMM_BATCHED_TILED } };
    for (const auto &c : k)
      {
        tilemm_route r = square_route (TILEMM_DOUBLE, 8);
        r.m = c.m, r.n = c.n, r.k = 3;
        r.a_as_pairs = c.pairs;
        r.b_split = c.b_split;
        CHECK (tilemm_batch_plan_make (&r, test_pages_shape (&r, 1000), 2, TILEMM_CPU_ISA_DEFAULT, TILEMM_CHOOSE_GPU, 1, 0,
                                       0, 0, NULL, &plan, &err) == TILEMM_OK
                 && plan.backend == TILEMM_BACKEND_CUDA && plan.gpu_kernel == c.want,
               "%lldx%lld pages (pairs %d, B split %d): kernel %d, want %d", (long long) c.m,
               (long long) c.n, c.pairs, c.b_split, (int) plan.gpu_kernel, (int) c.want);
      }
    tilemm_batch b;
    memset (&b, 0, sizeof b);
    b.action = TILEMM_BATCH_COMPUTE;
    b.plan = plan;
    char text[8192];
    tilemm_batch_describe (&b, text, sizeof text);
    CHECK (strstr (text, "gpu_kernel: tiled") != NULL, "the plan in words names it: %s", text);
  }

  CHECK_CASE ("plan: a tiny batch on one thread, a larger one on every thread but the reserved");
  {
    tilemm_route r = square_route (TILEMM_DOUBLE, 3);
    tilemm_batch_plan plan;
    CHECK (tilemm_batch_plan_make (&r, test_pages_shape (&r, 100), 8, TILEMM_CPU_ISA_DEFAULT, TILEMM_CHOOSE_CPU, 0, 0, 0, -1, NULL, &plan, &err) == TILEMM_OK
             && plan.threads == 1, "100 pages of 3x3: %d threads", plan.threads);
    CHECK (tilemm_batch_plan_make (&r, test_pages_shape (&r, 100000), 8, TILEMM_CPU_ISA_DEFAULT, TILEMM_CHOOSE_CPU, 0, 0, 0, -1, NULL, &plan, &err) == TILEMM_OK
             && plan.threads == 8 - tilemm_copy_reserved_cpus (8),
           "10^5 pages of 3x3: %d threads", plan.threads);
    r.m = r.n = r.k = 64;
    CHECK (tilemm_batch_plan_make (&r, test_pages_shape (&r, 10), 8, TILEMM_CPU_ISA_DEFAULT, TILEMM_CHOOSE_CPU, 0, 0, 0, -1, NULL, &plan, &err) == TILEMM_OK
             && plan.threads == 8 - tilemm_copy_reserved_cpus (8),
           "10 pages of 64x64: %d threads", plan.threads);
  }

  CHECK_CASE ("plan: a page over the limit on the GPU");
  {
    tilemm_route r = square_route (TILEMM_DOUBLE, 100);
    tilemm_batch_plan plan;
    CHECK (tilemm_batch_plan_make (&r, test_pages_shape (&r, 10), 2, TILEMM_CPU_ISA_DEFAULT, TILEMM_CHOOSE_GPU, 1, 1000, 0, -1, NULL, &plan, &err)
             == TILEMM_EDEVMEM, "EDEVMEM");
    CHECK (tilemm_batch_plan_make (&r, test_pages_shape (&r, 10), 2, TILEMM_CPU_ISA_DEFAULT, TILEMM_CHOOSE_GPU, 0, 0, 0, -1, NULL, &plan, &err)
             == TILEMM_ENOGPU, "ENOGPU");
    CHECK (tilemm_batch_plan_make (&r, test_pages_shape (&r, 10), 2, TILEMM_CPU_ISA_DEFAULT, TILEMM_CHOOSE_GPU, 1, 3 * 8 * 10000 * 4, 0, -1, NULL, &plan, &err)
             == TILEMM_OK && plan.pages_per_panel == 4, "4 pages a panel: %lld",
           (long long) plan.pages_per_panel);
  }

  CHECK_CASE ("plan: the GPUs of a batch, its chunks, pages alone one device each");
  {
    tilemm_host_facts host;
    tilemm_cpu_set_parse ("0-31", &host.cpus);
    host.threads = 32;
    tilemm_device_facts gpu;
    memset (&gpu, 0, sizeof gpu);
    gpu.usable = 1;
    gpu.count = 2;
    gpu.device[0] = 0, gpu.device[1] = 1;
    gpu.current = 1;
    const tilemm_workers two = { 2, { 0, 1 } };
    tilemm_route r = square_route (TILEMM_DOUBLE, 256);
    tilemm_batch_plan plan;
    CHECK (tilemm_batch_plan_make (&r, test_pages_shape (&r, 200), 8, TILEMM_CPU_ISA_DEFAULT, TILEMM_CHOOSE_GPU, 1, 0, 0, -1, NULL, &plan, &err)
             == TILEMM_OK && !plan.per_page, "200 pages of 256x256 batched");
    tilemm_batch_plan_devices (&plan, &r, 200, &two, 1, &host, &gpu, NULL);
    CHECK (plan.workers.count == 2 && plan.pages_per_chunk == 25 && !plan.pages_over_devices
             && plan.teams[0].threads == 15 && plan.teams[1].threads == 15,
           "named [0 1] on 32 CPUs less the two left to the process (copy_team.h): %d GPUs, chunks of %lld, teams %d and %d", plan.workers.count,
           (long long) plan.pages_per_chunk, plan.teams[0].threads, plan.teams[1].threads);
    r = square_route (TILEMM_DOUBLE, 8);
    tilemm_batch_plan_make (&r, test_pages_shape (&r, 10), 8, TILEMM_CPU_ISA_DEFAULT, TILEMM_CHOOSE_GPU, 1, 0, 0, -1, NULL, &plan, &err);
    tilemm_batch_plan_devices (&plan, &r, 10, &two, 0, &host, &gpu, NULL);
    CHECK (plan.workers.count == 1 && plan.workers.device[0] == 1 && plan.pages_per_chunk == 10
             && plan.teams[0].threads == 1,
           "10 pages of 8x8, not named: %d GPU(s), GPU %d, %d copy thread(s)",
           plan.workers.count, plan.workers.device[0], plan.teams[0].threads);
    r = square_route (TILEMM_DOUBLE, 2048);
    for (int64_t pages : { 3, 4, 9 })
      {
        tilemm_batch_plan_make (&r, test_pages_shape (&r, pages), 8, TILEMM_CPU_ISA_DEFAULT, TILEMM_CHOOSE_GPU, 1, 0, 0, -1, NULL, &plan, &err);
        tilemm_batch_plan_devices (&plan, &r, pages, &two, 1, &host, &gpu, NULL);
        const int over = pages != 3;
        CHECK (plan.per_page && plan.pages_over_devices == over
                 && plan.workers.count == (over ? 2 : 1),
               "%lld pages of 2048^2 on [0 1]: over devices %d, %d GPU(s)", (long long) pages,
               plan.pages_over_devices, plan.workers.count);
      }
  }

  CHECK_CASE ("plan: a batch's panels of pages, two in flight, cut where expansion widens them");
  {
    tilemm_route r = square_route (TILEMM_DOUBLE, 64);
    tilemm_batch_plan plan;
    tilemm_batch_plan_make (&r, test_pages_shape (&r, 1000), 8, TILEMM_CPU_ISA_DEFAULT, TILEMM_CHOOSE_GPU, 1, 0, 0, -1, NULL, &plan, &err);
    tilemm_host_facts host;
    tilemm_host_facts_gather (&host);
    const tilemm_workers one = { 1, { 0 } }, two = { 2, { 0, 1 } };
    int64_t per_panel;
    int pipelined;
    CHECK (!tilemm_batch_chunk_cut (&plan, 1000, &per_panel, &pipelined),
           "no chunk's panels before the plan has its devices");
    tilemm_batch_plan_devices (&plan, &r, 1000, &one, 0, &host, NULL, NULL);
    CHECK (tilemm_batch_chunk_cut (&plan, 1000, &per_panel, &pipelined) && pipelined
             && per_panel == 250, "1000 pages of 64^2: pipelined %d, %lld a panel", pipelined,
           (long long) per_panel);
    CHECK (!tilemm_batch_chunk_cut (&plan, 6, &per_panel, &pipelined),
           "no chunk of 6 pages in a one-device queue of 1000");
    tilemm_batch_plan six;
    tilemm_batch_plan_make (&r, test_pages_shape (&r, 6), 8, TILEMM_CPU_ISA_DEFAULT, TILEMM_CHOOSE_GPU, 1, 0, 0, -1, NULL, &six, &err);
    tilemm_batch_plan_devices (&six, &r, 6, &one, 0, &host, NULL, NULL);
    CHECK (tilemm_batch_chunk_cut (&six, 6, &per_panel, &pipelined) && !pipelined
             && per_panel == six.pages_per_panel,
           "a chunk of 6 pages: pipelined %d, %lld a panel", pipelined, (long long) per_panel);
    /* Two named GPUs: a page a chunk's worth; the whole chunks and the last one are cut. */
    tilemm_batch_plan_devices (&plan, &r, 1000, &two, 1, &host, NULL, NULL);
    const int64_t chunk = plan.pages_per_chunk, last = 1000 % chunk ? 1000 % chunk : chunk;
    CHECK (tilemm_batch_chunk_cut (&plan, chunk, &per_panel, &pipelined)
             && tilemm_batch_chunk_cut (&plan, last, &per_panel, &pipelined),
           "chunks of %lld pages and a last one of %lld", (long long) chunk, (long long) last);
    /* X of 10 pages against Y expanded (one page): a panel of 4 pages reads 4 of X, 1 of Y. */
    const int64_t xd[] = { 64, 64, 10 }, yd[] = { 64, 64, 1 };
    tilemm_batch_shape shape;
    tilemm_batch_shape_make (3, xd, TILEMM_OP_NONE, 3, yd, TILEMM_OP_NONE, &shape, &err);
    int64_t xl, xh, yl, yh;
    const double pb = 8.0 * 64 * 64;
    CHECK (tilemm_batch_panel_at (&shape, 2, 10, 4, pb, pb, pb, 100 * pb, &xl, &xh, &yl, &yh) == 4
             && xl == 2 && xh == 5 && yl == 0 && yh == 0,
           "panel at 2: X %lld..%lld, Y %lld..%lld", (long long) xl, (long long) xh,
           (long long) yl, (long long) yh);
    CHECK (tilemm_batch_panel_at (&shape, 8, 10, 4, pb, pb, pb, 100 * pb, &xl, &xh, &yl, &yh) == 2,
           "the chunk's end");
    CHECK (tilemm_batch_panel_at (&shape, 0, 10, 8, pb, pb, pb, 6 * pb, &xl, &xh, &yl, &yh) == 2,
           "halved to its budget");
  }

  CHECK_CASE ("device memory given back");
  tilemm_cuda_release ();
  CHECK (mock_cuda_device_bytes () == 0 && tilemm_cuda_bytes_held () == 0, "%zu bytes left",
         mock_cuda_device_bytes ());
  return check_summary (program);
}
