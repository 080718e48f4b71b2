// test_pipeline.cc — the CUDA backend's host side (src/cuda/: pinned staging, streams,
// events, steps, slots and panels) on a stand-in CUDA runtime that runs the enqueued work late and
// in random orders (tests/mock_cuda), so the pipeline is tested in CI, where there is no GPU.
//
// Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
//
// The "kernel" (tilemm_cuda_launch below) multiplies on the host, in the order the real kernels
// do (one multiply-add per k, increasing k), on the device buffers it is given.  Each product is
// checked against a long-double reference within a rounding bound, the gaps of C (between its
// rows and its stride) must keep their sentinel, a panelled product must equal the one-panel
// product bit for bit, the memory held must stay within the limit and be the memory the runtime
// saw allocated, and release must give everything back.  The program runs itself once per
// staging configuration (tiny chunks make lines longer than a chunk, so lines are split).

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <atomic>
#include <complex>
#include <vector>

#include "backend.h"
#include "check.h"
#include "fault.h"
#include "kernels.h"
#include "ksplit.h"
#include "multi.h"
#include "tilemm.h"

// The stand-in kernel (tilemm_cuda_launch) lives in tests/mock_cuda/mock_kernels.cc.

// ---------------------------------------------------------------- matrices

#include "test_random.h"

namespace
{
// Uniform in [-1, 1): the tests' generator (test_random.h).
double uniform ()
{
  return 2 * urand () - 1;
}

const unsigned char SENTINEL = 0xA5;

struct host_matrix
{
  tilemm_view v;
  std::vector<unsigned char> bytes;
};

host_matrix make (tilemm_type t, int64_t rows, int64_t cols, int64_t ld, bool fill)
{
  host_matrix h;
  const size_t es = tilemm_type_size (t);
  h.bytes.assign ((size_t) (ld * (cols > 0 ? cols : 1) + 8) * es, SENTINEL);
  tilemm_view_init (&h.v, t, rows, cols, ld, h.bytes.data ());
  const int parts = tilemm_type_is_complex (t) ? 2 : 1;
  for (int64_t j = 0; j < cols; j++)
    for (int64_t i = 0; i < rows; i++)
      for (int p = 0; p < parts; p++)
        {
          const size_t at = (size_t) ((i + j * ld) * parts + p);
          const double v = fill ? uniform () : NAN;
          if (t == TILEMM_SINGLE || t == TILEMM_COMPLEX_SINGLE)
            ((float *) h.bytes.data ())[at] = (float) v;
          else
            ((double *) h.bytes.data ())[at] = v;
        }
  return h;
}

long double part (const host_matrix &h, int64_t i, int64_t j, int p)
{
  const int parts = tilemm_type_is_complex (h.v.type) ? 2 : 1;
  const size_t at = (size_t) ((i + j * h.v.stride) * parts + p);
  if (h.v.type == TILEMM_SINGLE || h.v.type == TILEMM_COMPLEX_SINGLE)
    return ((const float *) h.bytes.data ())[at];
  return ((const double *) h.bytes.data ())[at];
}

// Bytes of C's gaps (between its rows and its stride, and after it) that were written.
long gaps_changed (const host_matrix &c)
{
  const size_t es = tilemm_type_size (c.v.type);
  const int64_t m = c.v.rows, n = c.v.cols;
  long changed = 0;
  for (int64_t j = 0; j < n; j++)
    for (size_t byte = (size_t) m * es; byte < (size_t) c.v.stride * es; byte++)
      changed += c.bytes[(size_t) j * c.v.stride * es + byte] != SENTINEL;
  for (size_t byte = (size_t) ((n - 1) * c.v.stride + m) * es; byte < c.bytes.size (); byte++)
    changed += c.bytes[byte] != SENTINEL;
  return changed;
}

// Elements of C wrong against the reference (within 4·eps·k·Σ|a||b| per part), and gap bytes
// changed.
long check_product (const host_matrix &a, const host_matrix &b, const host_matrix &c,
                    long *gaps)
{
  const tilemm_type t = c.v.type;
  const bool cplx = tilemm_type_is_complex (t);
  const long double eps
    = t == TILEMM_SINGLE || t == TILEMM_COMPLEX_SINGLE ? 1.1920929e-7L : 2.220446e-16L;
  const int64_t m = c.v.rows, n = c.v.cols, k = a.v.cols;
  long wrong = 0;
  for (int64_t j = 0; j < n; j++)
    for (int64_t i = 0; i < m; i++)
      {
        long double re = 0, im = 0, bound = 0;
        for (int64_t q = 0; q < k; q++)
          {
            const long double ar = part (a, i, q, 0), br = part (b, q, j, 0);
            const long double ai = cplx ? part (a, i, q, 1) : 0, bi = cplx ? part (b, q, j, 1) : 0;
            re += ar * br - ai * bi;
            im += ar * bi + ai * br;
            bound += (fabsl (ar) + fabsl (ai)) * (fabsl (br) + fabsl (bi));
          }
        bound *= 4 * eps * (k + 1);
        const long double got_re = part (c, i, j, 0), got_im = cplx ? part (c, i, j, 1) : 0;
        if (!(fabsl (got_re - re) <= bound) || !(fabsl (got_im - im) <= bound))
          wrong++;
      }
  *gaps = gaps_changed (c);
  return wrong;
}

bool same_elements (const host_matrix &x, const host_matrix &y)
{
  const size_t es = tilemm_type_size (x.v.type);
  for (int64_t j = 0; j < x.v.cols; j++)
    if (memcmp (x.bytes.data () + (size_t) j * x.v.stride * es,
                y.bytes.data () + (size_t) j * y.v.stride * es, (size_t) x.v.rows * es))
      return false;
  return true;
}

tilemm_plan gpu_plan (tilemm_type t, int64_t m, int64_t n, int64_t k, size_t limit)
{
  tilemm_plan plan;
  const tilemm_limits lim = { limit, NULL, 0 };
  const tilemm_status s = tilemm_plan_make (&plan, TILEMM_BACKEND_CUDA, t, m, n, k, &lim);
  CHECK (s == TILEMM_OK, "plan: %s", tilemm_strerror (s));
  plan.variant = 3; // the stand-in kernel's only variant
  return plan;
}

// One product, with and without a limit, under several random orders.
void product_case (tilemm_type t, int64_t m, int64_t n, int64_t k, size_t limit, int orders)
{
  CHECK_CASE ("pipeline %s (%lldx%lld)·(%lldx%lld), strided, limit %zu, %d orders",
              tilemm_type_name (t), (long long) m, (long long) k, (long long) k, (long long) n,
              limit, orders);
  const host_matrix a = make (t, m, k, m + 3, true), b = make (t, k, n, k + 1, true);
  host_matrix whole = make (t, m, n, m + 2, false);
  tilemm_error err = { TILEMM_OK, "" };
  const tilemm_plan p1 = gpu_plan (t, m, n, k, 0);
  tilemm_cuda_release (); // buffers grow only: start from none to compare with the plan
  mock_cuda_seed (1);
  tilemm_status s = tilemm_multiply (&p1, &a.v, &b.v, &whole.v, &err);
  CHECK (s == TILEMM_OK, "one panel: %s (%s)", tilemm_strerror (s), err.detail);
  long gaps = 0;
  const long wrong = check_product (a, b, whole, &gaps);
  CHECK (wrong == 0, "%ld elements wrong", wrong);
  CHECK (gaps == 0, "%ld gap bytes written", gaps);
  CHECK (tilemm_cuda_bytes_held () == mock_cuda_device_bytes (), "holds %zu, runtime has %zu",
         tilemm_cuda_bytes_held (), mock_cuda_device_bytes ());
  CHECK (tilemm_cuda_bytes_held () == tilemm_plan_device_bytes (&p1), "holds %zu, plan says %zu",
         tilemm_cuda_bytes_held (), tilemm_plan_device_bytes (&p1));
  tilemm_cuda_stats st;
  tilemm_cuda_last_stats (&st);
  CHECK (st.ok && st.steps >= 1 && st.panels == 1, "stats ok %d steps %lld panels %lld", st.ok,
         st.steps, st.panels);
  CHECK (fabs (st.upload_ms + st.compute_ms + st.download_ms - st.total_ms) < 1e-9,
         "split %g + %g + %g != %g", st.upload_ms, st.compute_ms, st.download_ms, st.total_ms);
  const size_t es = tilemm_type_size (t);
  CHECK (st.bytes_down == (double) (es * (size_t) (m * n)), "bytes down %g", st.bytes_down);
  for (int o = 0; o < orders; o++)
    {
      const tilemm_plan plan = limit ? gpu_plan (t, m, n, k, limit) : p1;
      if (limit)
        {
          CHECK (tilemm_plan_panel_count (&plan) > 1, "limit %zu gives one panel", limit);
          tilemm_cuda_release ();
        }
      host_matrix c = make (t, m, n, m + 2, false);
      mock_cuda_seed (1000 + (unsigned long long) o * 7919);
      tilemm_cuda_stats before;
      tilemm_cuda_last_stats (&before);
      s = tilemm_multiply (&plan, &a.v, &b.v, &c.v, &err);
      CHECK (s == TILEMM_OK, "order %d: %s (%s)", o, tilemm_strerror (s), err.detail);
      CHECK (same_elements (c, whole), "order %d: differs from the one-panel product", o);
      gaps = gaps_changed (c);
      CHECK (gaps == 0, "order %d: %ld gap bytes written", o, gaps);
      if (limit)
        CHECK (tilemm_cuda_bytes_held () <= limit, "holds %zu bytes, limit %zu",
               tilemm_cuda_bytes_held (), limit);
      tilemm_cuda_last_stats (&st);
      CHECK (st.ok && st.steps >= (limit ? 2 : 1), "order %d: steps %lld", o, st.steps);
      /* The sums since load (pagemtimes' benchmark takes their differences) grow by this
       * product's own figures. */
      CHECK (fabs (st.sum_total_ms - before.sum_total_ms - st.total_ms) < 1e-9
               && fabs (st.sum_copy_in_ms - before.sum_copy_in_ms - st.copy_in_ms) < 1e-9
               && fabs (st.sum_copy_out_ms - before.sum_copy_out_ms - st.copy_out_ms) < 1e-9
               && st.sum_total_ms >= st.total_ms,
             "order %d: sums %g %g %g, before %g %g %g, product %g %g %g", o, st.sum_total_ms,
             st.sum_copy_in_ms, st.sum_copy_out_ms, before.sum_total_ms, before.sum_copy_in_ms,
             before.sum_copy_out_ms, st.total_ms, st.copy_in_ms, st.copy_out_ms);
    }
  CHECK (mock_kernels_bad_launches () == 0, "%d launches with bad shapes",
         mock_kernels_bad_launches ());
}

void release_case (void)
{
  CHECK_CASE ("release gives every device and pinned byte, stream and event back");
  tilemm_cuda_release ();
  CHECK (tilemm_cuda_bytes_held () == 0 && mock_cuda_device_bytes () == 0, "device %zu / %zu",
         tilemm_cuda_bytes_held (), mock_cuda_device_bytes ());
  CHECK (tilemm_cuda_pinned_bytes_held () == 0 && mock_cuda_pinned_bytes () == 0,
         "pinned %zu / %zu", tilemm_cuda_pinned_bytes_held (), mock_cuda_pinned_bytes ());
  CHECK (mock_cuda_live_objects () == 0, "%d streams and events left", mock_cuda_live_objects ());
}

// x stored as an operand whose op (transpose, conjugated for C) is x: x itself for NONE, else its
// transpose, at a stride `extra` past its rows (so a piece cut by stored rows is strided).
host_matrix stored_as (const host_matrix &x, tilemm_op op, int64_t extra)
{
  if (op == TILEMM_OP_NONE)
    return x;
  const tilemm_type t = x.v.type;
  const size_t es = tilemm_type_size (t);
  const bool cplx = tilemm_type_is_complex (t);
  host_matrix s = make (t, x.v.cols, x.v.rows, x.v.cols + extra, false);
  for (int64_t j = 0; j < x.v.cols; j++)
    for (int64_t i = 0; i < x.v.rows; i++)
      {
        unsigned char *to = s.bytes.data () + (size_t) (j + i * s.v.stride) * es;
        memcpy (to, x.bytes.data () + (size_t) (i + j * x.v.stride) * es, es);
        if (cplx && op == TILEMM_OP_CTRANSPOSE)
          {
            if (t == TILEMM_COMPLEX_SINGLE)
              ((float *) to)[1] = -((float *) to)[1];
            else
              ((double *) to)[1] = -((double *) to)[1];
          }
      }
  return s;
}

// A product with transposed operands through the pipeline (tilemm_cuda_multiply_op): the same
// panels, steps and slots as the plain product of op(A) and op(B), bitwise its result, the
// device holding exactly the plan's bytes (its transposed operands' scratch counted) and within
// the limit, each step's transposed piece transposed on the device.  With no limit the plan's
// one panel is cut into steps by hand (several steps of A's rows and parts of Bᵀ).
void transposed_case (tilemm_type t, int64_t m, int64_t n, int64_t k, tilemm_op op_a,
                      tilemm_op op_b, size_t limit)
{
  static const char names[] = "NTC";
  CHECK_CASE ("pipeline %s %c%c (%lldx%lld)·(%lldx%lld), limit %zu: steps, bitwise the plain "
              "product", tilemm_type_name (t), names[op_a], names[op_b], (long long) m,
              (long long) k, (long long) k, (long long) n, limit);
  const host_matrix a = make (t, m, k, m + 3, true), b = make (t, k, n, k + 1, true);
  const host_matrix sa = stored_as (a, op_a, 2), sb = stored_as (b, op_b, 5);
  tilemm_plan plan;
  const tilemm_limits lim = { limit, NULL, 0 };
  tilemm_status s
    = tilemm_plan_make_op (&plan, TILEMM_BACKEND_CUDA, t, m, n, k, op_a, op_b, &lim);
  CHECK (s == TILEMM_OK, "plan: %s", tilemm_strerror (s));
  if (s != TILEMM_OK)
    return;
  plan.variant = 3; // the stand-in kernel's only variant
  if (limit == 0)
    {
      plan.step_cols = (m + 2) / 3;
      plan.step_rows = (n + 1) / 2;
      plan.slots = (m + plan.step_cols - 1) / plan.step_cols;
    }
  tilemm_plan_launches (&plan);
  CHECK (plan.op_a == op_a && plan.op_b == op_b, "the plan records ops %d %d", (int) plan.op_a,
         (int) plan.op_b);
  CHECK (limit == 0 || tilemm_plan_panel_count (&plan) > 1, "limit %zu gives one panel", limit);
  tilemm_plan plain = plan;
  plain.op_a = plain.op_b = TILEMM_OP_NONE;
  tilemm_error err = { TILEMM_OK, "" };
  host_matrix want = make (t, m, n, m + 2, false), c = make (t, m, n, m + 2, false);
  tilemm_cuda_release ();
  mock_cuda_seed (77);
  s = tilemm_cuda_multiply (&plain, &a.v, &b.v, &want.v, NULL, &err);
  CHECK (s == TILEMM_OK, "plain: %s (%s)", tilemm_strerror (s), err.detail);
  tilemm_cuda_stats plain_st;
  tilemm_cuda_last_stats (&plain_st);
  tilemm_cuda_release ();
  mock_cuda_reset_peak ();
  mock_cuda_seed (78);
  const unsigned long long transposes = mock_kernels_transposes ();
  s = tilemm_cuda_multiply_op (&plan, op_a, &sa.v, op_b, &sb.v, &c.v, &err);
  CHECK (s == TILEMM_OK, "transposed: %s (%s)", tilemm_strerror (s), err.detail);
  CHECK (same_elements (c, want), "not bitwise the plain product of op(A) and op(B)");
  long gaps = 0;
  const long wrong = check_product (a, b, c, &gaps);
  CHECK (wrong == 0 && gaps == 0, "%ld elements wrong, %ld gap bytes written", wrong, gaps);
  CHECK (tilemm_cuda_bytes_held () == tilemm_plan_device_bytes (&plan),
         "holds %zu, the plan says %zu", tilemm_cuda_bytes_held (),
         tilemm_plan_device_bytes (&plan));
  if (limit)
    CHECK (mock_cuda_peak_bytes () <= limit, "the device held %zu bytes, limit %zu",
           mock_cuda_peak_bytes (), limit);
  tilemm_cuda_stats st;
  tilemm_cuda_last_stats (&st);
  CHECK (st.ok && st.steps == plain_st.steps && st.panels == plain_st.panels && st.steps > 1,
         "steps %lld panels %lld, the plain product's %lld %lld", st.steps, st.panels,
         plain_st.steps, plain_st.panels);
  CHECK (fabs (st.upload_ms + st.compute_ms + st.download_ms - st.total_ms) < 1e-9,
         "split %g + %g + %g != %g", st.upload_ms, st.compute_ms, st.download_ms, st.total_ms);
  CHECK (mock_kernels_transposes () - transposes > 1, "%llu device transposes in %lld steps",
         mock_kernels_transposes () - transposes, st.steps);
}

// The split-k variant: the workspace gives the launch the scratch its split of k needs (the
// stand-in kernel refuses a split without it), and holds it as its own device memory.
void split_case (void)
{
  const tilemm_type t = TILEMM_DOUBLE;
  const int64_t m = 8, n = 8, k = 4096;
  CHECK_CASE ("pipeline double (%lldx%lld)·(%lldx%lld), variant 11: split-k scratch from the "
              "workspace", (long long) m, (long long) k, (long long) k, (long long) n);
  const host_matrix a = make (t, m, k, m + 1, true), b = make (t, k, n, k, true);
  host_matrix c = make (t, m, n, m, false);
  tilemm_plan plan = gpu_plan (t, m, n, k, 0);
  plan.variant = 11;
  tilemm_kernel_launch lp;
  tilemm_kernel_launch_plan (11, t, n, m, k, 9, &lp);
  CHECK (lp.splits > 1 && lp.scratch_bytes > 0, "the plan does not split k (%d pieces)", lp.splits);
  tilemm_cuda_release ();
  tilemm_error err = { TILEMM_OK, "" };
  mock_cuda_seed (7);
  const tilemm_status s = tilemm_multiply (&plan, &a.v, &b.v, &c.v, &err);
  CHECK (s == TILEMM_OK, "%s (%s)", tilemm_strerror (s), err.detail);
  long gaps = 0;
  const long wrong = check_product (a, b, c, &gaps);
  CHECK (wrong == 0 && gaps == 0, "%ld elements wrong, %ld gap bytes written", wrong, gaps);
  CHECK (tilemm_cuda_bytes_held () == mock_cuda_device_bytes (), "holds %zu, runtime has %zu",
         tilemm_cuda_bytes_held (), mock_cuda_device_bytes ());
  CHECK (tilemm_cuda_bytes_held () >= tilemm_plan_device_bytes (&plan) + lp.scratch_bytes,
         "holds %zu: not the plan's %zu and the scratch's %zu", tilemm_cuda_bytes_held (),
         tilemm_plan_device_bytes (&plan), lp.scratch_bytes);
  tilemm_cuda_release ();
}

void steady_case (void)
{
  CHECK_CASE ("repeated and mixed products hold the same memory after the first of each");
  const host_matrix a = make (TILEMM_DOUBLE, 150, 90, 150, true);
  const host_matrix b = make (TILEMM_DOUBLE, 90, 170, 90, true);
  host_matrix c = make (TILEMM_DOUBLE, 150, 170, 150, false);
  const tilemm_plan big = gpu_plan (TILEMM_DOUBLE, 150, 170, 90, 0);
  const tilemm_plan small = gpu_plan (TILEMM_DOUBLE, 150, 170, 90, 60000);
  tilemm_error err;
  tilemm_multiply (&big, &a.v, &b.v, &c.v, &err);
  tilemm_multiply (&small, &a.v, &b.v, &c.v, &err);
  const size_t held = tilemm_cuda_bytes_held (), pinned = tilemm_cuda_pinned_bytes_held ();
  const int objects = mock_cuda_live_objects ();
  CHECK (pinned > 0 && pinned == mock_cuda_pinned_bytes (), "pinned %zu", pinned);
  for (int i = 0; i < 50; i++)
    {
      const tilemm_status s = tilemm_multiply (i % 2 ? &big : &small, &a.v, &b.v, &c.v, &err);
      CHECK (s == TILEMM_OK, "call %d: %s", i, err.detail);
    }
  CHECK (tilemm_cuda_bytes_held () == held && mock_cuda_device_bytes () == held,
         "held %zu then %zu", held, tilemm_cuda_bytes_held ());
  CHECK (tilemm_cuda_pinned_bytes_held () == pinned, "pinned %zu then %zu", pinned,
         tilemm_cuda_pinned_bytes_held ());
  CHECK (mock_cuda_live_objects () == objects, "%d objects then %d", objects,
         mock_cuda_live_objects ());
  tilemm_cuda_stats st;
  tilemm_cuda_last_stats (&st);
  CHECK (st.calls >= 52, "calls %llu", st.calls);
}

void failure_case (void)
{
  CHECK_CASE ("a device allocation failure frees everything, and the next call works");
  tilemm_cuda_release ();
  const host_matrix a = make (TILEMM_SINGLE, 200, 100, 200, true);
  const host_matrix b = make (TILEMM_SINGLE, 100, 300, 100, true);
  host_matrix c = make (TILEMM_SINGLE, 200, 300, 200, false);
  const tilemm_plan plan = gpu_plan (TILEMM_SINGLE, 200, 300, 100, 0);
  tilemm_error err = { TILEMM_OK, "" };
  mock_cuda_fail_malloc_over (4 * 200 * 300);
  tilemm_status s = tilemm_multiply (&plan, &a.v, &b.v, &c.v, &err);
  CHECK (s == TILEMM_EDEVMEM, "got %s", tilemm_strerror (s));
  CHECK (strstr (err.detail, "cudaMalloc") != NULL, "detail '%s'", err.detail);
  CHECK (tilemm_cuda_bytes_held () == 0 && mock_cuda_device_bytes () == 0
           && mock_cuda_pinned_bytes () == 0 && mock_cuda_live_objects () == 0,
         "left %zu device, %zu pinned, %d objects", mock_cuda_device_bytes (),
         mock_cuda_pinned_bytes (), mock_cuda_live_objects ());
  tilemm_cuda_stats st;
  tilemm_cuda_last_stats (&st);
  CHECK (!st.ok, "stats say the failed call succeeded");
  s = tilemm_multiply (&plan, &a.v, &b.v, &c.v, &err);
  CHECK (s == TILEMM_OK, "next call: %s", err.detail);
  long gaps;
  CHECK (check_product (a, b, c, &gaps) == 0 && gaps == 0, "next call's product is wrong");
}

// A result large enough for the page preparation (huge pages, background faulting).
void large_result_case (void)
{
  CHECK_CASE ("a large result (8 MiB and more) is prepared by other threads and correct");
  const int64_t m = 1200, n = 1100, k = 3;
  const host_matrix a = make (TILEMM_DOUBLE, m, k, m, true), b = make (TILEMM_DOUBLE, k, n, k, true);
  host_matrix c = make (TILEMM_DOUBLE, m, n, m, false);
  const tilemm_plan plan = gpu_plan (TILEMM_DOUBLE, m, n, k, 0);
  tilemm_error err;
  const tilemm_status s = tilemm_multiply (&plan, &a.v, &b.v, &c.v, &err);
  CHECK (s == TILEMM_OK, "%s", err.detail);
  long gaps;
  CHECK (check_product (a, b, c, &gaps) == 0 && gaps == 0, "wrong product");
  tilemm_cuda_stats st;
  tilemm_cuda_last_stats (&st);
  CHECK (st.steps > 1, "steps %lld: one panel should be cut into steps", st.steps);
}

// TILEMM_FAULT=KIND:N for every N from 1 until a product has fewer than N operations of that
// kind: each injected failure must give `want`, leave nothing behind (by the runtime's own books:
// device and pinned bytes, streams, events, queued work), and the next call must succeed with
// the very result of a call that never failed.  `held`: start with the buffers already held
// (copies and launches fail mid-pipeline with work in flight), else from nothing (allocations).
void fault_case (const char *kind, tilemm_fault_kind fk, tilemm_status want, bool held)
{
  CHECK_CASE ("TILEMM_FAULT=%s:N for every N, %s", kind, held ? "buffers held" : "from nothing");
  const host_matrix a = make (TILEMM_DOUBLE, 100, 60, 101, true);
  const host_matrix b = make (TILEMM_DOUBLE, 60, 110, 60, true);
  const tilemm_plan plan = gpu_plan (TILEMM_DOUBLE, 100, 110, 60, 30000); // panels, 2 slots
  host_matrix good = make (TILEMM_DOUBLE, 100, 110, 100, false);
  tilemm_error err = { TILEMM_OK, "" };
  unsetenv ("TILEMM_FAULT");
  tilemm_status s = tilemm_multiply (&plan, &a.v, &b.v, &good.v, &err);
  CHECK (s == TILEMM_OK, "without a fault: %s", err.detail);
  int injected = 0;
  for (long n = 1; n < 100000; n++)
    {
      if (held)
        s = tilemm_multiply (&plan, &a.v, &b.v, &good.v, &err);
      else
        tilemm_cuda_release ();
      char spec[64];
      snprintf (spec, sizeof spec, "%s:%ld", kind, n);
      setenv ("TILEMM_FAULT", spec, 1);
      host_matrix c = make (TILEMM_DOUBLE, 100, 110, 100, false);
      s = tilemm_multiply (&plan, &a.v, &b.v, &c.v, &err);
      const long seen = tilemm_fault_count (fk);
      unsetenv ("TILEMM_FAULT");
      if (s == TILEMM_OK)
        {
          CHECK (seen < n, "%s: %ld operations seen and none failed", spec, seen);
          CHECK (same_elements (c, good), "%s: wrong result", spec);
          break;
        }
      injected++;
      CHECK (s == want, "%s: got %s (%s), want %s", spec, tilemm_strerror (s), err.detail,
             tilemm_strerror (want));
      CHECK (tilemm_cuda_bytes_held () == 0 && mock_cuda_device_bytes () == 0
               && tilemm_cuda_pinned_bytes_held () == 0 && mock_cuda_pinned_bytes () == 0
               && mock_cuda_live_objects () == 0 && mock_cuda_pending_ops () == 0,
             "%s: left %zu device, %zu pinned bytes, %d objects, %zu queued", spec,
             mock_cuda_device_bytes (), mock_cuda_pinned_bytes (), mock_cuda_live_objects (),
             mock_cuda_pending_ops ());
      host_matrix next = make (TILEMM_DOUBLE, 100, 110, 100, false);
      s = tilemm_multiply (&plan, &a.v, &b.v, &next.v, &err);
      CHECK (s == TILEMM_OK && same_elements (next, good), "%s: the next call: %s", spec,
             err.detail);
    }
  CHECK (injected >= 1, "no %s operation to fail", kind);
  printf ("  %s (%s): %d failures injected\n", kind, held ? "held" : "from nothing", injected);
}

// A stop callback that answers "stop" at its `after`th poll.
struct stop_after
{
  int polls, after;
};
int stop_after_poll (void *arg)
{
  stop_after *s = (stop_after *) arg;
  return ++s->polls >= s->after;
}

// For every poll at which the product could stop: TILEMM_EINTERRUPTED, the GPU idle (nothing
// queued), its buffers, pinned ring, streams and events kept as they were, and the next call right.
void interrupt_case (tilemm_backend backend, size_t limit)
{
  CHECK_CASE ("a stop at every poll (%s, limit %zu): interrupted cleanly, the next call works",
              tilemm_backend_name (backend), limit);
  const host_matrix a = make (TILEMM_SINGLE, 300, 200, 300, true);
  const host_matrix b = make (TILEMM_SINGLE, 200, 310, 200, true);
  tilemm_plan plan;
  const tilemm_limits lim = { limit, NULL, 0 };
  tilemm_plan_make (&plan, backend, TILEMM_SINGLE, 300, 310, 200, &lim);
  if (backend == TILEMM_BACKEND_CUDA)
    {
      plan.variant = 3;
      if (limit == 0) // one panel: in steps, so there is something to stop between
        plan.step_cols = plan.step_rows = 64;
    }
  plan.threads = 2;
  host_matrix good = make (TILEMM_SINGLE, 300, 310, 300, false);
  tilemm_error err = { TILEMM_OK, "" };
  tilemm_status s = tilemm_multiply (&plan, &a.v, &b.v, &good.v, &err);
  CHECK (s == TILEMM_OK, "without a stop: %s", err.detail);
  const size_t held = tilemm_cuda_bytes_held (), pinned = tilemm_cuda_pinned_bytes_held ();
  const int objects = mock_cuda_live_objects ();
  int stopped = 0;
  for (int after = 1; after < 100000; after++)
    {
      stop_after state = { 0, after };
      const tilemm_stop stop = { stop_after_poll, &state };
      host_matrix c = make (TILEMM_SINGLE, 300, 310, 300, false);
      s = tilemm_multiply_stoppable (&plan, &a.v, &b.v, &c.v, &stop, &err);
      if (s == TILEMM_OK)
        {
          CHECK (state.polls < after, "poll %d said stop and the product went on", after);
          CHECK (same_elements (c, good), "a product that was not stopped is wrong");
          break;
        }
      stopped++;
      CHECK (s == TILEMM_EINTERRUPTED && state.polls == after, "stop at poll %d: %s after %d polls",
             after, tilemm_strerror (s), state.polls);
      CHECK (mock_cuda_pending_ops () == 0, "stop at poll %d: %zu operations still queued", after,
             mock_cuda_pending_ops ());
      CHECK (tilemm_cuda_bytes_held () == held && mock_cuda_device_bytes () == held
               && tilemm_cuda_pinned_bytes_held () == pinned && mock_cuda_live_objects () == objects,
             "stop at poll %d: held %zu (was %zu), pinned %zu (was %zu), objects %d (were %d)",
             after, tilemm_cuda_bytes_held (), held, tilemm_cuda_pinned_bytes_held (), pinned,
             mock_cuda_live_objects (), objects);
      host_matrix next = make (TILEMM_SINGLE, 300, 310, 300, false);
      s = tilemm_multiply (&plan, &a.v, &b.v, &next.v, &err);
      CHECK (s == TILEMM_OK && same_elements (next, good), "after a stop at poll %d: %s", after,
             err.detail);
    }
  CHECK (stopped >= 2, "only %d polls: nothing to stop between", stopped);
  printf ("  %s, limit %zu: stopped at each of %d polls\n", tilemm_backend_name (backend), limit,
          stopped);
}

// Several workers on the one (stand-in) device, as TILEMM_DEVICES="0,0,0" runs them on one GPU:
// each a host thread with its own workspace, panels from one queue, bitwise the one-worker
// product; a failure on one frees every worker's memory and names the device.
void workers_case (tilemm_type t, int64_t m, int64_t n, int64_t k, int count, size_t limit)
{
  CHECK_CASE ("workers: %d on device 0, %s (%lldx%lld)·(%lldx%lld), limit %zu, bitwise one worker",
              count, tilemm_type_name (t), (long long) m, (long long) k, (long long) k,
              (long long) n, limit);
  const host_matrix a = make (t, m, k, m + 1, true), b = make (t, k, n, k + 2, true);
  host_matrix one = make (t, m, n, m + 3, false), many = make (t, m, n, m + 3, false);
  const tilemm_plan plan = gpu_plan (t, m, n, k, 0);
  tilemm_error err = { TILEMM_OK, "" };
  mock_cuda_seed (77);
  tilemm_status s = tilemm_multiply (&plan, &a.v, &b.v, &one.v, &err);
  CHECK (s == TILEMM_OK, "one worker: %s", err.detail);
  tilemm_workers w;
  w.count = count;
  for (int i = 0; i < count; i++)
    w.device[i] = 0;
  const tilemm_limits lim = { limit, NULL, 0 };
  tilemm_multi_report rep;
  s = tilemm_cuda_multiply_workers (&plan, &lim, &w, 1, &a.v, &b.v, &many.v, NULL, &rep, &err);
  CHECK (s == TILEMM_OK, "%d workers: %s", count, err.detail);
  CHECK (rep.workers >= 2 && rep.workers <= count, "%d workers ran", rep.workers);
  int64_t total = 0;
  for (int i = 0; i < TILEMM_MAX_WORKERS; i++)
    total += rep.done[i];
  CHECK (total == rep.panels && rep.panels >= rep.workers, "%lld of %lld panels",
         (long long) total, (long long) rep.panels);
  CHECK (same_elements (one, many), "differs from one worker");
  CHECK (gaps_changed (many) == 0, "gap bytes written");
  CHECK (tilemm_cuda_bytes_held () == mock_cuda_device_bytes (), "holds %zu, runtime has %zu",
         tilemm_cuda_bytes_held (), mock_cuda_device_bytes ());
  CHECK (tilemm_cuda_pinned_bytes_held () == mock_cuda_pinned_bytes (), "pinned %zu vs %zu",
         tilemm_cuda_pinned_bytes_held (), mock_cuda_pinned_bytes ());
  tilemm_cuda_stats st;
  tilemm_cuda_last_stats (&st);
  CHECK (st.ok && st.panels >= rep.panels, "stats ok %d panels %lld", st.ok, st.panels);
  // Again, on the kept workspaces (a worker's grow when it takes a larger panel than before).
  s = tilemm_cuda_multiply_workers (&plan, &lim, &w, 1, &a.v, &b.v, &many.v, NULL, &rep, &err);
  CHECK (s == TILEMM_OK && same_elements (one, many), "second call: %s", err.detail);
  CHECK (tilemm_cuda_bytes_held () == mock_cuda_device_bytes (), "holds %zu, runtime has %zu",
         tilemm_cuda_bytes_held (), mock_cuda_device_bytes ());
  CHECK (mock_kernels_bad_launches () == 0, "%d launches with bad shapes", mock_kernels_bad_launches ());
}

void workers_failure_case (void)
{
  CHECK_CASE ("workers: a failure on one worker stops all, frees all, names the device");
  const int64_t m = 400, n = 390, k = 50;
  const host_matrix a = make (TILEMM_DOUBLE, m, k, m, true), b = make (TILEMM_DOUBLE, k, n, k, true);
  host_matrix c = make (TILEMM_DOUBLE, m, n, m, false);
  const tilemm_plan plan = gpu_plan (TILEMM_DOUBLE, m, n, k, 0);
  tilemm_workers w = { 3, { 0, 0, 0 } };
  tilemm_error err = { TILEMM_OK, "" };
  tilemm_multi_report rep;
  tilemm_cuda_release ();
  mock_cuda_fail_malloc_over (1); // the first allocation of any worker fails
  tilemm_status s = tilemm_cuda_multiply_workers (&plan, NULL, &w, 1, &a.v, &b.v, &c.v, NULL, &rep, &err);
  mock_cuda_fail_malloc_over (0);
  CHECK (s == TILEMM_EDEVMEM, "got %s", tilemm_strerror (s));
  CHECK (strstr (err.detail, "GPU 0 (worker ") != NULL && strstr (err.detail, "cudaMalloc") != NULL,
         "detail '%s'", err.detail);
  CHECK (rep.failed_worker >= 0, "failed worker %d", rep.failed_worker);
  CHECK (tilemm_cuda_bytes_held () == 0 && mock_cuda_device_bytes () == 0
           && mock_cuda_pinned_bytes () == 0 && mock_cuda_live_objects () == 0,
         "left %zu device, %zu pinned, %d objects", mock_cuda_device_bytes (),
         mock_cuda_pinned_bytes (), mock_cuda_live_objects ());
  tilemm_cuda_stats st;
  tilemm_cuda_last_stats (&st);
  CHECK (!st.ok, "stats say the failed call succeeded");
  s = tilemm_cuda_multiply_workers (&plan, NULL, &w, 1, &a.v, &b.v, &c.v, NULL, &rep, &err);
  CHECK (s == TILEMM_OK, "next call: %s", err.detail);
  long gaps;
  CHECK (check_product (a, b, c, &gaps) == 0 && gaps == 0, "next call's product is wrong");

  CHECK_CASE ("workers: a device that does not exist is an error naming it; nothing held");
  tilemm_workers bad = { 2, { 0, 1 } };
  tilemm_cuda_release ();
  s = tilemm_cuda_multiply_workers (&plan, NULL, &bad, 1, &a.v, &b.v, &c.v, NULL, &rep, &err);
  CHECK (s == TILEMM_ECUDA && strstr (err.detail, "GPU 1 (worker 1)") != NULL, "%s: '%s'",
         tilemm_strerror (s), err.detail);
  CHECK (tilemm_cuda_bytes_held () == 0 && mock_cuda_device_bytes () == 0
           && mock_cuda_pinned_bytes () == 0,
         "left %zu device, %zu pinned", mock_cuda_device_bytes (), mock_cuda_pinned_bytes ());

  CHECK_CASE ("workers: the usable devices are listed; one worker is the one-device path");
  tilemm_workers all;
  CHECK (tilemm_cuda_usable_devices (&all) == 1 && all.count == 1 && all.device[0] == 0,
         "count %d", all.count);
  s = tilemm_cuda_multiply_workers (&plan, NULL, &all, 0, &a.v, &b.v, &c.v, NULL, &rep, &err);
  CHECK (s == TILEMM_OK && rep.workers == 1, "%s, %d workers", err.detail, rep.workers);
  CHECK (check_product (a, b, c, &gaps) == 0 && gaps == 0, "product is wrong");
}
} // namespace

int main (int argc, char **argv)
{
  test_seed (0x2545F4914F6CDD1Dull);   // the data this program has always drawn
  (void) argc;
  // The parent runs itself under each staging configuration and sums the counts.
  static const char *const configs[][4] = {
    { "tiny", "TILEMM_STAGING_KB=4", "TILEMM_STAGING_CHUNKS=2", "TILEMM_PREFAULT_THREADS=0" },
    { "small", "TILEMM_STAGING_KB=64", "TILEMM_STAGING_CHUNKS=3", "TILEMM_PREFAULT_THREADS=3" },
    { "large", "TILEMM_STAGING_KB=1024", "TILEMM_STAGING_CHUNKS=4",
      "TILEMM_STEP_COLS=37 TILEMM_STEP_ROWS=53" },
  };
  if (!getenv ("TILEMM_TEST_PIPELINE_CHILD"))
    {
      int status = 0;
      for (const auto &cfg : configs)
        {
          char command[4096];
          snprintf (command, sizeof command,
                    "env TILEMM_TEST_PIPELINE_CHILD=%s %s %s %s '%s'", cfg[0], cfg[1], cfg[2],
                    cfg[3], argv[0]);
          printf ("test_pipeline_%s: %s %s %s\n", cfg[0], cfg[1], cfg[2], cfg[3]);
          fflush (stdout);
          status |= system (command);
        }
      return status ? 1 : 0;
    }
  tilemm_error err;
  CHECK_CASE ("the stand-in runtime is seen as a usable GPU");
  CHECK (tilemm_cuda_probe (&err) == TILEMM_OK, "%s", err.detail);
  CHECK (tilemm_cuda_built () == 1, "cuda_built");

  const tilemm_type types[] = { TILEMM_DOUBLE, TILEMM_SINGLE, TILEMM_COMPLEX_DOUBLE,
                                TILEMM_COMPLEX_SINGLE };
  for (tilemm_type t : types)
    {
      const size_t es = tilemm_type_size (t);
      product_case (t, 1, 1, 1, 0, 2);
      product_case (t, 37, 29, 41, 0, 3);
      product_case (t, 300, 257, 129, 0, 3);
      product_case (t, 300, 257, 129, es * 20000, 3);   // a few panels, two slots
      product_case (t, 17, 1500, 40, 64u << 10, 2);     // panels along n only
      product_case (t, 130, 90, 700, es * 60000, 2);   // long lines: split across tiny chunks
    }
  product_case (TILEMM_DOUBLE, 400, 380, 100, 1u << 18, 1);
  product_case (TILEMM_DOUBLE, 500, 7, 9, 8 * 3000, 3);  // many one-step panels
  for (tilemm_type t : types)
    {
      const size_t es = tilemm_type_size (t);
      const tilemm_op ops[][2] = { { TILEMM_OP_TRANSPOSE, TILEMM_OP_NONE },
                                   { TILEMM_OP_NONE, TILEMM_OP_CTRANSPOSE },
                                   { TILEMM_OP_CTRANSPOSE, TILEMM_OP_TRANSPOSE } };
      for (const auto &op : ops)
        {
          transposed_case (t, 97, 83, 45, op[0], op[1], 0);
          transposed_case (t, 97, 83, 45, op[0], op[1], es * 5000); // panels, two slots
        }
    }
  split_case ();
  steady_case ();
  large_result_case ();
  failure_case ();
  fault_case ("malloc", TILEMM_FAULT_MALLOC, TILEMM_EDEVMEM, false);
  fault_case ("host", TILEMM_FAULT_HOST, TILEMM_ENOMEM, false);
  fault_case ("memcpy", TILEMM_FAULT_MEMCPY, TILEMM_ECUDA, false);
  fault_case ("memcpy", TILEMM_FAULT_MEMCPY, TILEMM_ECUDA, true);
  fault_case ("launch", TILEMM_FAULT_LAUNCH, TILEMM_ECUDA, true);
  interrupt_case (TILEMM_BACKEND_CUDA, 0);
  interrupt_case (TILEMM_BACKEND_CUDA, 4 * 60000);
  interrupt_case (TILEMM_BACKEND_CPU, 0);
  interrupt_case (TILEMM_BACKEND_CPU, 4 * 60000);
  workers_case (TILEMM_DOUBLE, 300, 257, 129, 3, 0);
  workers_case (TILEMM_SINGLE, 513, 200, 40, 2, 0);
  workers_case (TILEMM_COMPLEX_DOUBLE, 260, 300, 33, 4, 0);
  workers_case (TILEMM_COMPLEX_SINGLE, 700, 650, 20, 3, 8 * 40000); // panels of panels
  workers_failure_case ();
  release_case ();
  char label[64];
  snprintf (label, sizeof label, "test_pipeline_%s", getenv ("TILEMM_TEST_PIPELINE_CHILD"));
  return check_summary (label);
}
