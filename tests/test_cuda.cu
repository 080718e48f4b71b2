/* test_cuda.cu — the CUDA kernels and backend against a long-double reference.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 *
 * Prints SKIP (and exits 0) where there is no usable GPU.  Otherwise, for every kernel variant ×
 * element type × shape × layout: fresh random inputs in [-1, 1] (never zero), the gaps between
 * rows and stride of X and Y filled with NaN (a kernel that reads them poisons its answer), C
 * poisoned with a NaN sentinel everywhere; afterwards every element of C' must be written and
 * within the error bound of a long-double reference, and every gap element must still hold the
 * sentinel, bit for bit.  Then the backend through tilemm_multiply: host views with strides,
 * panels under a small device limit (bitwise equal to one panel), NaN/Inf propagation, k = 0,
 * device memory held stable across calls and zero after release, and recovery after an
 * allocation failure.
 *
 * The error bound.  The kernels accumulate one fused multiply-add per k, in increasing k, from 0:
 * s_i = fl(s_{i-1} + x_i·y_i).  Each step rounds once, so |computed − exact| <= u·Σ|s_i| to first
 * order (two steps per k for each complex component).  The test allows 2u·Σ|s_i| with s_i the
 * exact partial sums: never looser than the textbook γ_k·Σ|x||y| (Σ|s_i| <= k·Σ|x_i y_i|), and
 * tight enough that a single product dropped or added twice (|x_i y_i| ~ 0.25) fails it.
 */
#include <cuda_runtime_api.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "backend.h"
#include "check.h"
#include "cuda_variants.h"
#include "kernels.h"
#include "multi.h"
#include "tilemm.h"

/* ---------------------------------------------------------------- element access */

typedef long double real_l;

struct value
{
  real_l re, im;
};

static int is_double (tilemm_type t)
{
  return t == TILEMM_DOUBLE || t == TILEMM_COMPLEX_DOUBLE;
}

static int is_complex (tilemm_type t)
{
  return tilemm_type_is_complex (t);
}

static real_l unit_roundoff (tilemm_type t)
{
  return is_double (t) ? ldexpl (1.0L, -53) : ldexpl (1.0L, -24);
}

static value get (tilemm_type t, const void *base, int64_t i)
{
  value v = { 0, 0 };
  const int parts = is_complex (t) ? 2 : 1;
  if (is_double (t))
    {
      const double *p = (const double *) base + i * parts;
      v.re = p[0];
      if (parts == 2)
        v.im = p[1];
    }
  else
    {
      const float *p = (const float *) base + i * parts;
      v.re = p[0];
      if (parts == 2)
        v.im = p[1];
    }
  return v;
}

static void put (tilemm_type t, void *base, int64_t i, value v)
{
  const int parts = is_complex (t) ? 2 : 1;
  if (is_double (t))
    {
      double *p = (double *) base + i * parts;
      p[0] = (double) v.re;
      if (parts == 2)
        p[1] = (double) v.im;
    }
  else
    {
      float *p = (float *) base + i * parts;
      p[0] = (float) v.re;
      if (parts == 2)
        p[1] = (float) v.im;
    }
}

/* xorshift64*: reproducible, fast, fresh numbers for every case. */
static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static real_l random_nonzero (void)
{
  for (;;)
    {
      rng_state ^= rng_state >> 12;
      rng_state ^= rng_state << 25;
      rng_state ^= rng_state >> 27;
      const uint64_t r = rng_state * 2685821657736338717ull;
      const real_l v = (real_l) (r >> 11) / (real_l) (1ull << 53) * 2 - 1; /* [-1, 1) */
      if (fabsl (v) > 1e-3L)
        return v;
    }
}

static value random_value (tilemm_type t)
{
  value v = { random_nonzero (), is_complex (t) ? random_nonzero () : 0 };
  return v;
}

/* The sentinel left in every gap element of C: a NaN with a payload nothing computes. */
static void put_sentinel (tilemm_type t, void *base, int64_t i)
{
  const int parts = is_complex (t) ? 2 : 1;
  for (int p = 0; p < parts; p++)
    if (is_double (t))
      {
        const uint64_t bits = 0x7ff80000deadbeefull;
        memcpy ((double *) base + i * parts + p, &bits, 8);
      }
    else
      {
        const uint32_t bits = 0x7fc0beefu;
        memcpy ((float *) base + i * parts + p, &bits, 4);
      }
}

static int is_sentinel (tilemm_type t, const void *base, int64_t i)
{
  char expect[16];
  put_sentinel (t, expect, 0);
  return memcmp ((const char *) base + i * tilemm_type_size (t), expect, tilemm_type_size (t)) == 0;
}

static void put_nan (tilemm_type t, void *base, int64_t i)
{
  value v = { NAN, is_complex (t) ? (real_l) NAN : 0 };
  put (t, base, i, v);
}

static int value_is_nan (value v)
{
  return isnan (v.re) || isnan (v.im);
}

/* ---------------------------------------------------------------- reference */

/* Row-major host matrices as the kernels see them (element (r, c) at r*stride + c). */
struct host_matrix
{
  int64_t height, width, stride;
  void *e;
};

/* The exact (long double) entry (r, c) of X·Y and the error allowance 2u·Σ|partial sums|. */
static void reference (tilemm_type t, const host_matrix &x, const host_matrix &y, int64_t r,
                       int64_t c, value *exact, value *allow)
{
  real_l sre = 0, sim = 0, pre = 0, pim = 0;
  for (int64_t k = 0; k < x.width; k++)
    {
      const value a = get (t, x.e, r * x.stride + k);
      const value b = get (t, y.e, k * y.stride + c);
      if (!is_complex (t))
        {
          sre += a.re * b.re;
          pre += fabsl (sre);
        }
      else
        {
          sre += a.re * b.re; /* the kernels' order: re += ar·br, re -= ai·bi */
          pre += fabsl (sre);
          sre -= a.im * b.im;
          pre += fabsl (sre);
          sim += a.re * b.im; /* im += ar·bi, im += ai·br */
          pim += fabsl (sim);
          sim += a.im * b.re;
          pim += fabsl (sim);
        }
    }
  const real_l u = unit_roundoff (t);
  exact->re = sre;
  exact->im = sim;
  allow->re = 2 * u * pre;
  allow->im = 2 * u * pim;
}

/* Rows (or columns) to compare: all of them when few, else the edges, tile boundaries and a
 * random sample. */
static int64_t pick_indices (int64_t n, int64_t *out, int64_t max)
{
  if (n <= max)
    {
      for (int64_t i = 0; i < n; i++)
        out[i] = i;
      return n;
    }
  int64_t count = 0;
  const int64_t fixed[] = { 0, 1, 15, 16, 31, 32, 63, 64, 127, 128, n - 2, n - 1 };
  for (int64_t f : fixed)
    if (f >= 0 && f < n)
      out[count++] = f;
  while (count < max)
    out[count++] = (int64_t) ((random_nonzero () + 1) / 2 * (real_l) n) % n;
  return count;
}

/* Compares C' (host copy) with X·Y: every element written, every gap untouched, sampled (or
 * all) elements within the bound.  Returns the number of failures; the first is described in
 * compare_first. */
static char compare_first[512];

static long compare (tilemm_type t, const host_matrix &x, const host_matrix &y,
                     const host_matrix &c, int64_t max_sample)
{
  long failures = 0;
  compare_first[0] = '\0';
  for (int64_t r = 0; r < c.height; r++)
    for (int64_t j = 0; j < c.stride; j++)
      {
        const int64_t i = r * c.stride + j;
        if (j < c.width && value_is_nan (get (t, c.e, i)))
          {
            if (failures++ == 0)
              snprintf (compare_first, sizeof compare_first, "C'(%lld,%lld) not written (NaN)",
                        (long long) r, (long long) j);
          }
        else if (j >= c.width && (r < c.height - 1) && !is_sentinel (t, c.e, i))
          {
            if (failures++ == 0)
              snprintf (compare_first, sizeof compare_first, "gap element C'(%lld,%lld) written",
                        (long long) r, (long long) j);
          }
      }
  static int64_t rows[64], cols[64];
  const int64_t nr = pick_indices (c.height, rows, max_sample);
  const int64_t nc = pick_indices (c.width, cols, max_sample);
  for (int64_t a = 0; a < nr; a++)
    for (int64_t b = 0; b < nc; b++)
      {
        value exact, allow;
        reference (t, x, y, rows[a], cols[b], &exact, &allow);
        const value got = get (t, c.e, rows[a] * c.stride + cols[b]);
        const real_l ere = fabsl (got.re - exact.re), eim = fabsl (got.im - exact.im);
        if (!(ere <= allow.re) || !(eim <= allow.im))
          if (failures++ == 0)
            snprintf (compare_first, sizeof compare_first,
                      "C'(%lld,%lld) = %.9Lg%+.9Lgi, exact %.9Lg%+.9Lgi, error %.3Lg%+.3Lgi > "
                      "bound %.3Lg%+.3Lgi",
                      (long long) rows[a], (long long) cols[b], got.re, got.im, exact.re,
                      exact.im, ere, eim, allow.re, allow.im);
      }
  return failures;
}

/* ---------------------------------------------------------------- direct kernel cases */

/* How strides and base pointers are laid out: the launcher picks wide or element loads from
 * them, so each layout drives a different instantiation. */
enum layout
{
  LAYOUT_PACKED,      /* stride = width                                           */
  LAYOUT_ODD_STRIDE,  /* stride = width + 3: rows not 16-byte aligned             */
  LAYOUT_WIDE_STRIDE, /* stride rounded up to 16 bytes, plus 16 bytes: gaps, wide */
  LAYOUT_OFFSET_BASE, /* aligned stride, base pointer one element past 16 bytes   */
  NLAYOUTS
};
static const char *const layout_name[NLAYOUTS] = { "packed", "odd stride", "wide stride",
                                                   "offset base" };

static int64_t layout_stride (enum layout l, int64_t width, size_t es)
{
  const int64_t per16 = es >= 16 ? 1 : (int64_t) (16 / es);
  const int64_t w = width > 0 ? width : 1;
  switch (l)
    {
    case LAYOUT_PACKED:
      return w;
    case LAYOUT_ODD_STRIDE:
      return w + 3;
    default:
      return (w + per16 - 1) / per16 * per16 + per16;
    }
}

/* Elements a row-major matrix spans: up to the end of its last row, not its last stride. */
static int64_t extent (int64_t height, int64_t width, int64_t stride)
{
  return height > 0 && width > 0 ? (height - 1) * stride + width : 0;
}

/* A device copy of a host matrix at the layout's base offset; *raw is what to cudaFree. */
static int device_copy (const host_matrix &h, size_t es, int64_t offset, void **raw, void **dev)
{
  /* exactly the extent: a read past the matrix's last element leaves the allocation */
  const int64_t elements = extent (h.height, h.width, h.stride) + offset;
  const size_t bytes = (size_t) (elements > 0 ? elements : 1) * es;
  if (cudaMalloc (raw, bytes) != cudaSuccess)
    return 0;
  *dev = (char *) *raw + offset * es;
  return cudaMemcpy (*dev, h.e, (size_t) extent (h.height, h.width, h.stride) * es,
                     cudaMemcpyHostToDevice)
         == cudaSuccess;
}

static host_matrix host_alloc (int64_t height, int64_t width, int64_t stride, size_t es)
{
  host_matrix m = { height, width, stride, NULL };
  m.e = malloc ((size_t) (height * stride + 1) * es);
  return m;
}

/* Inputs: random values, gaps NaN. */
static void fill_input (tilemm_type t, host_matrix &m)
{
  for (int64_t r = 0; r < m.height; r++)
    for (int64_t j = 0; j < m.stride; j++)
      if (j < m.width)
        put (t, m.e, r * m.stride + j, random_value (t));
      else
        put_nan (t, m.e, r * m.stride + j);
}

/* Output: NaN in C', the sentinel in the gaps. */
static void poison_output (tilemm_type t, host_matrix &m)
{
  for (int64_t r = 0; r < m.height; r++)
    for (int64_t j = 0; j < m.stride; j++)
      if (j < m.width)
        put_nan (t, m.e, r * m.stride + j);
      else
        put_sentinel (t, m.e, r * m.stride + j);
}

/* A launch as the executor makes it (src/cuda/kernel_launch.cu): the fallback and the split of k
 * that the plan gives for this device and shape, the split's scratch allocated here (fresh device
 * memory: every partial must be written before it is read) and freed once the kernel is done. */
static tilemm_status launch_planned (int variant, tilemm_type t, tilemm_matrix c, tilemm_matrix x,
                                     tilemm_matrix y, tilemm_error *err)
{
  int dev = 0, major = 0;
  if (cudaGetDevice (&dev) != cudaSuccess
      || cudaDeviceGetAttribute (&major, cudaDevAttrComputeCapabilityMajor, dev) != cudaSuccess)
    return tilemm_error_set (err, TILEMM_ECUDA, "asking the compute capability");
  tilemm_kernel_launch lp;
  tilemm_kernel_launch_plan (variant, t, c.height, c.width, x.width, major, &lp);
  if (lp.scratch_bytes > 0 && cudaMalloc (&lp.scratch, lp.scratch_bytes) != cudaSuccess)
    return tilemm_error_set (err, TILEMM_ECUDA, "cudaMalloc(split-k scratch, %zu bytes)",
                             lp.scratch_bytes);
  const tilemm_status s = tilemm_cuda_launch (variant, t, c, x, y, &lp, 0, err);
  if (lp.scratch)
    {
      cudaDeviceSynchronize (); /* its error, if any, is the caller's next synchronisation's too */
      cudaFree (lp.scratch);
    }
  return s;
}

static void kernel_case (int variant, tilemm_type t, int64_t H, int64_t K, int64_t W, enum layout l)
{
  const size_t es = tilemm_type_size (t);
  CHECK_CASE ("kernel v%d %s C'(%lldx%lld) = X(%lldx%lld)·Y(%lldx%lld), %s", variant,
              tilemm_type_name (t), (long long) H, (long long) W, (long long) H, (long long) K,
              (long long) K, (long long) W, layout_name[l]);
  host_matrix x = host_alloc (H, K, layout_stride (l, K, es), es);
  host_matrix y = host_alloc (K, W, layout_stride (l, W, es), es);
  host_matrix c = host_alloc (H, W, layout_stride (l, W, es), es);
  const int64_t offset = l == LAYOUT_OFFSET_BASE ? (es >= 16 ? 0 : 1) : 0;
  fill_input (t, x);
  fill_input (t, y);
  poison_output (t, c);
  void *rx = NULL, *ry = NULL, *rc = NULL, *dx = NULL, *dy = NULL, *dc = NULL;
  int ok = device_copy (x, es, offset, &rx, &dx) && device_copy (y, es, offset, &ry, &dy)
           && device_copy (c, es, offset, &rc, &dc);
  CHECK (ok, "device buffers: %s", cudaGetErrorString (cudaGetLastError ()));
  if (ok)
    {
      tilemm_matrix mc = { H, W, c.stride, dc }, mx = { H, K, x.stride, dx },
                    my = { K, W, y.stride, dy };
      tilemm_error err = { TILEMM_OK, "" };
      tilemm_status s = launch_planned (variant, t, mc, mx, my, &err);
      CHECK (s == TILEMM_OK, "launch: %s (%s)", tilemm_strerror (s), err.detail);
      cudaError_t e = cudaDeviceSynchronize ();
      CHECK (e == cudaSuccess, "kernel: %s", cudaGetErrorString (e));
      e = cudaMemcpy (c.e, dc, (size_t) extent (H, W, c.stride) * es, cudaMemcpyDeviceToHost);
      CHECK (e == cudaSuccess, "download: %s", cudaGetErrorString (e));
      if (s == TILEMM_OK && e == cudaSuccess)
        {
          const long failures = compare (t, x, y, c, H * W * K <= 4000000 ? 64 : 24);
          CHECK (failures == 0, "%ld wrong, first: %s", failures, compare_first);
        }
    }
  cudaFree (rx);
  cudaFree (ry);
  cudaFree (rc);
  free (x.e);
  free (y.e);
  free (c.e);
}

/* Shapes (H, K, W) of C' = X·Y: all the edge sizes, k = 1 and 0, 4097, tall and skinny. */
struct shape
{
  int64_t H, K, W;
};
static const shape square_shapes[] = {
  { 1, 1, 1 },     { 15, 15, 15 },  { 16, 16, 16 },  { 17, 17, 17 },    { 31, 31, 31 },
  { 33, 33, 33 },  { 127, 127, 127 }, { 17, 33, 15 }, { 129, 65, 255 },  { 33, 1, 127 },
  { 15, 0, 17 },   { 1, 4097, 1 },  { 1000, 1000, 1000 }, { 1023, 1023, 1023 },
  { 4097, 33, 17 }, { 31, 17, 4097 }, { 2, 300, 257 }, { 5, 3001, 7 }, { 130, 1500, 40 },
};
static const shape skinny_shapes[] = {
  { 8192, 64, 8192 }, /* C = 8192×64 · 64×8192: a big C from a thin k */
  { 64, 8192, 64 },   /* C = 64×8192 · 8192×64: a small C from a long k */
};

/* TILEMM_TEST_QUICK=1 leaves out the big shapes (for slow runs: sanitizers, emulation);
 * TILEMM_TEST_QUICK=2 keeps only the kernel cases of small shapes (every ragged edge and layout
 * still), for racecheck, whose cost grows with every shared-memory access. */
static int quick_level (void)
{
  const char *q = getenv ("TILEMM_TEST_QUICK");
  return q && *q ? atoi (q) : 0;
}
static int quick_mode (void)
{
  return quick_level () > 0;
}

/* TILEMM_TEST_VARIANTS="6-12" or "3,8" narrows the kernel cases to those variants (a quick look
 * on the GPU machine); unset, every variant is tested. */
static int variant_selected (int variant)
{
  const char *sel = getenv ("TILEMM_TEST_VARIANTS");
  if (!sel || !*sel)
    return 1;
  for (const char *p = sel; *p;)
    {
      char *end;
      const long lo = strtol (p, &end, 10);
      long hi = lo;
      if (end == p)
        return 1; /* not a list: test everything */
      if (*end == '-')
        {
          p = end + 1;
          hi = strtol (p, &end, 10);
        }
      if (variant >= lo && variant <= hi)
        return 1;
      p = *end == ',' ? end + 1 : end;
      if (*end && *end != ',')
        break;
    }
  return 0;
}

static void kernel_cases (void)
{
  const int64_t big = quick_level () >= 2 ? 300000 : quick_mode () ? 3000000 : INT64_MAX;
  for (int variant = 1; variant <= 16; variant++)
    for (int ti = 0; ti < TILEMM_NTYPES && variant_selected (variant); ti++)
      {
        const tilemm_type t = (tilemm_type) ti;
        int r, c, d, p, th;
        if (!tilemm_cuda_kernel_shape (variant, t, &r, &c, &d, &p, &th))
          continue;
        for (const shape &s : square_shapes)
          for (int l = 0; l < NLAYOUTS; l++)
            {
              /* the big squares once per layout family is plenty */
              if (s.H * s.K * s.W > big
                  || (s.H * s.K * s.W > 100000000 && l != LAYOUT_PACKED && l != LAYOUT_ODD_STRIDE))
                continue;
              kernel_case (variant, t, s.H, s.K, s.W, (enum layout) l);
            }
        for (const shape &s : skinny_shapes)
          if (s.H * s.K * s.W <= big)
            kernel_case (variant, t, s.H, s.K, s.W, LAYOUT_WIDE_STRIDE);
      }
}

/* Long k through every variant: the same bits twice (split k adds its partials in a fixed order),
 * and Inf·0 = NaN, Inf·1 = Inf wherever in k they fall (here in a late split). */
static void long_k_cases (void)
{
  const int64_t H = 3, K = 4096, W = 5;
  for (int variant = 1; variant <= 16; variant++)
    for (int ti = 0; ti < TILEMM_NTYPES; ti++)
      {
        const tilemm_type t = (tilemm_type) ti;
        int r, c, d, p, th;
        if (!variant_selected (variant) || !tilemm_cuda_kernel_shape (variant, t, &r, &c, &d, &p, &th))
          continue;
        CHECK_CASE ("kernel v%d %s long k: the same bits twice, Inf*0 = NaN late in k", variant,
                    tilemm_type_name (t));
        const size_t es = tilemm_type_size (t);
        host_matrix x = host_alloc (H, K, K, es), y = host_alloc (K, W, W, es),
                    c1 = host_alloc (H, W, W, es), c2 = host_alloc (H, W, W, es);
        fill_input (t, x);
        fill_input (t, y);
        value inf = { INFINITY, 0 }, zero = { 0, 0 }, one = { 1, 0 };
        put (t, x.e, 0 * K + 3001, inf);  /* X(0, 3001) = Inf          */
        put (t, y.e, 3001 * W + 0, zero); /* Y(3001, 0) = 0: C'(0,0) NaN */
        put (t, y.e, 3001 * W + 1, one);  /* Y(3001, 1) = 1: C'(0,1) Inf */
        void *dx = NULL, *dy = NULL, *dc = NULL;
        int ok = cudaMalloc (&dx, (size_t) (H * K) * es) == cudaSuccess
                 && cudaMalloc (&dy, (size_t) (K * W) * es) == cudaSuccess
                 && cudaMalloc (&dc, (size_t) (H * W) * es) == cudaSuccess
                 && cudaMemcpy (dx, x.e, (size_t) (H * K) * es, cudaMemcpyHostToDevice) == cudaSuccess
                 && cudaMemcpy (dy, y.e, (size_t) (K * W) * es, cudaMemcpyHostToDevice) == cudaSuccess;
        CHECK (ok, "device buffers");
        tilemm_matrix mc = { H, W, W, dc }, mx = { H, K, K, dx }, my = { K, W, W, dy };
        tilemm_error err;
        for (int run = 0; run < 2 && ok; run++)
          {
            ok = launch_planned (variant, t, mc, mx, my, &err) == TILEMM_OK
                 && cudaDeviceSynchronize () == cudaSuccess
                 && cudaMemcpy (run ? c2.e : c1.e, dc, (size_t) (H * W) * es,
                                cudaMemcpyDeviceToHost) == cudaSuccess;
            CHECK (ok, "run %d: %s", run, err.detail);
          }
        if (ok)
          {
            CHECK (memcmp (c1.e, c2.e, (size_t) (H * W) * es) == 0, "two runs differ");
            CHECK (isnan (get (t, c1.e, 0).re), "C'(0,0) = %Lg, not NaN", get (t, c1.e, 0).re);
            CHECK (isinf (get (t, c1.e, 1).re), "C'(0,1) = %Lg, not Inf", get (t, c1.e, 1).re);
            /* the other rows hold no Inf: within the bound of the reference */
            for (int64_t i = 1; i < H; i++)
              for (int64_t j = 0; j < W; j++)
                {
                  value exact, allow;
                  reference (t, x, y, i, j, &exact, &allow);
                  const value got = get (t, c1.e, i * W + j);
                  CHECK (fabsl (got.re - exact.re) <= allow.re && fabsl (got.im - exact.im) <= allow.im,
                         "C'(%lld,%lld) = %Lg, exact %Lg", (long long) i, (long long) j, got.re,
                         exact.re);
                }
          }
        cudaFree (dx);
        cudaFree (dy);
        cudaFree (dc);
        free (x.e);
        free (y.e);
        free (c1.e);
        free (c2.e);
      }
}

/* ---------------------------------------------------------------- the table and the launcher */

static void table_cases (void)
{
  CHECK_CASE ("cuda_variants.h agrees with the compiled kernels");
  for (int i = 0; i < TILEMM_CUDA_NVARIANTS; i++)
    {
      const tilemm_cuda_variant *v = &tilemm_cuda_variants[i];
      for (int t = 0; t < TILEMM_NTYPES; t++)
        {
          if (!(v->types & TILEMM_TYPE_BIT (t)))
            continue;
          int r = 0, c = 0, d = 0, p = 0, th = 0;
          const int found = tilemm_cuda_kernel_shape (v->id, (tilemm_type) t, &r, &c, &d, &p, &th);
          /* The variants no plan chooses are in the benchmark's build only. */
          const int wanted = !v->bench_only || tilemm_cuda_bench_variants_built ();
          CHECK (found == wanted, "variant %d %s: %s", v->id, tilemm_type_name ((tilemm_type) t),
                 found ? "bench-only, but in the package's kernels" : "no kernel");
          CHECK (!found || (r == v->tile_rows && c == v->tile_cols && d == v->tile_depth
                            && p == v->pad && th == v->threads),
                 "variant %d %s: table says %dx%dx%d pad %d threads %d, kernel %dx%dx%d pad %d "
                 "threads %d",
                 v->id, tilemm_type_name ((tilemm_type) t), v->tile_rows, v->tile_cols,
                 v->tile_depth, v->pad, v->threads, r, c, d, p, th);
        }
    }
  CHECK_CASE ("every type has a preferred variant the plan picks");
  for (int t = 0; t < TILEMM_NTYPES; t++)
    {
      tilemm_plan plan;
      const tilemm_status s = tilemm_plan_make (&plan, TILEMM_BACKEND_CUDA, (tilemm_type) t, 10,
                                                10, 10, NULL);
      CHECK (s == TILEMM_OK, "plan for %s: %s", tilemm_type_name ((tilemm_type) t),
             tilemm_strerror (s));
      int r, c, d, p, th;
      CHECK (s != TILEMM_OK || tilemm_cuda_kernel_shape (plan.variant, (tilemm_type) t, &r, &c, &d, &p, &th),
             "plan picks variant %d, not compiled for %s", plan.variant,
             tilemm_type_name ((tilemm_type) t));
    }

  CHECK_CASE ("launcher refuses bad arguments");
  {
    float dummy[4];
    tilemm_matrix c = { 2, 2, 2, dummy }, x = { 2, 2, 2, dummy }, y = { 2, 2, 2, dummy };
    tilemm_error err;
    /* Variants every build has: the plan's (the package holds no others). */
    tilemm_plan plan, zplan;
    CHECK (tilemm_plan_make (&plan, TILEMM_BACKEND_CUDA, TILEMM_SINGLE, 2, 2, 2, NULL) == TILEMM_OK
             && tilemm_plan_make (&zplan, TILEMM_BACKEND_CUDA, TILEMM_COMPLEX_DOUBLE, 2, 2, 2, NULL)
                  == TILEMM_OK,
           "plans");
    const int v = plan.variant;
    CHECK (tilemm_cuda_launch (999, TILEMM_SINGLE, c, x, y, NULL, 0, &err) == TILEMM_EINVAL,
           "unknown variant accepted");
    CHECK (strstr (err.detail, "999") != NULL, "detail '%s' does not name the variant", err.detail);
    tilemm_matrix y3 = { 3, 2, 2, dummy };
    CHECK (tilemm_cuda_launch (v, TILEMM_SINGLE, c, x, y3, NULL, 0, &err) == TILEMM_ESHAPE,
           "mismatched k accepted");
    tilemm_matrix bad = { 2, 2, 1, dummy };
    CHECK (tilemm_cuda_launch (v, TILEMM_SINGLE, bad, x, y, NULL, 0, &err) == TILEMM_EINVAL,
           "stride < width accepted");
    tilemm_matrix mis = { 2, 2, 2, (char *) dummy + 8 };
    CHECK (tilemm_cuda_launch (zplan.variant, TILEMM_COMPLEX_DOUBLE, mis, mis, mis, NULL, 0, &err)
               == TILEMM_EINVAL || ((uintptr_t) dummy + 8) % 16 == 0,
           "misaligned complex double accepted");
    tilemm_matrix empty = { 0, 2, 2, NULL }, x0 = { 0, 2, 2, NULL };
    CHECK (tilemm_cuda_launch (v, TILEMM_SINGLE, empty, x0, y, NULL, 0, &err) == TILEMM_OK,
           "empty product refused: %s", err.detail);
    /* The split of k is the caller's: the launcher refuses one it cannot follow, and allocates
     * no scratch of its own.  (Refused before anything runs: the dummies are never read.) */
    static float big[2 * 128];
    tilemm_matrix xk = { 2, 128, 128, big }, yk = { 128, 2, 2, big };
    tilemm_kernel_launch lp = { 0, 2, 64, NULL, 0 };
    CHECK (tilemm_cuda_launch (v, TILEMM_SINGLE, c, xk, yk, &lp, 0, &err) == TILEMM_EINVAL
             || v == 11,
           "variant %d split k", v);
    CHECK (tilemm_cuda_launch (11, TILEMM_SINGLE, c, xk, yk, &lp, 0, &err) == TILEMM_EINVAL
             && strstr (err.detail, "scratch") != NULL,
           "a split without scratch accepted (%s)", err.detail);
    lp.scratch = big;
    lp.scratch_bytes = tilemm_cuda_launch_scratch_bytes (TILEMM_SINGLE, 2, 2, 2) - 16;
    CHECK (tilemm_cuda_launch (11, TILEMM_SINGLE, c, xk, yk, &lp, 0, &err) == TILEMM_EINVAL,
           "a split with too little scratch accepted");
    lp.scratch_bytes += 16;
    lp.kchunk = 48; /* not whole k steps of 16 */
    CHECK (tilemm_cuda_launch (11, TILEMM_SINGLE, c, xk, yk, &lp, 0, &err) == TILEMM_EINVAL,
           "a split of k in pieces of 48 accepted");
  }
}

/* ---------------------------------------------------------------- through tilemm_multiply */

/* A column-major host view m×n with stride ld, filled, and its row-major reading. */
static tilemm_view host_view (tilemm_type t, int64_t rows, int64_t cols, int64_t ld)
{
  tilemm_view v;
  void *data = malloc ((size_t) (ld * cols + 1) * tilemm_type_size (t));
  tilemm_view_init (&v, t, rows, cols, ld, data);
  return v;
}

static host_matrix reading (const tilemm_view &v)
{
  host_matrix m = { v.cols, v.rows, v.stride, v.data };
  return m;
}

static void multiply_case (tilemm_type t, int64_t m, int64_t n, int64_t k, size_t limit)
{
  CHECK_CASE ("tilemm_multiply gpu %s (%lldx%lld)·(%lldx%lld), strided, device limit %zu",
              tilemm_type_name (t), (long long) m, (long long) k, (long long) k, (long long) n,
              limit);
  tilemm_view a = host_view (t, m, k, m + 5), b = host_view (t, k, n, k + 2),
              c = host_view (t, m, n, m + 3), c1 = host_view (t, m, n, m + 3);
  host_matrix ar = reading (a), br = reading (b), cr = reading (c), c1r = reading (c1);
  fill_input (t, ar);
  fill_input (t, br);
  poison_output (t, cr);
  poison_output (t, c1r);
  tilemm_plan whole, panelled;
  tilemm_limits lim = { limit, NULL, 0 };
  tilemm_error err = { TILEMM_OK, "" };
  CHECK (tilemm_plan_make (&whole, TILEMM_BACKEND_CUDA, t, m, n, k, NULL) == TILEMM_OK, "plan");
  CHECK (tilemm_plan_make (&panelled, TILEMM_BACKEND_CUDA, t, m, n, k, &lim) == TILEMM_OK,
         "panelled plan");
  tilemm_status s = tilemm_multiply (&whole, &a, &b, &c, &err);
  CHECK (s == TILEMM_OK, "multiply: %s (%s)", tilemm_strerror (s), err.detail);
  /* Cᵀ = Bᵀ·Aᵀ: X is B's reading, Y is A's. */
  long failures = s == TILEMM_OK ? compare (t, br, ar, cr, 32) : 0;
  CHECK (failures == 0, "%ld wrong, first: %s", failures, compare_first);
  if (limit)
    {
      CHECK (tilemm_plan_panel_count (&panelled) > 1, "limit %zu gives one panel", limit);
      tilemm_cuda_release ();
      s = tilemm_multiply (&panelled, &a, &b, &c1, &err);
      CHECK (s == TILEMM_OK, "panelled multiply: %s (%s)", tilemm_strerror (s), err.detail);
      CHECK (tilemm_cuda_bytes_held () <= limit, "holds %zu bytes, limit %zu",
             tilemm_cuda_bytes_held (), limit);
      const size_t row_bytes = (size_t) m * tilemm_type_size (t);
      int same = 1;
      for (int64_t j = 0; j < n; j++)
        same &= memcmp ((char *) c.data + (size_t) (j * c.stride) * tilemm_type_size (t),
                        (char *) c1.data + (size_t) (j * c1.stride) * tilemm_type_size (t),
                        row_bytes)
                == 0;
      CHECK (same, "panelled result differs from the one-panel result");
      failures = compare (t, br, ar, c1r, 16);
      CHECK (failures == 0, "panelled: %ld wrong, first: %s", failures, compare_first);
    }
  free (a.data);
  free (b.data);
  free (c.data);
  free (c1.data);
}

/* Products whose answers IEEE fixes exactly: Inf·0 = NaN is never skipped. */
static void special_values_cases (void)
{
  struct special
  {
    double a0, a1, b0, b1, expect;
    const char *what;
  };
  const special cases[] = {
    { INFINITY, 1, 0, 1, NAN, "[Inf 1]*[0;1] = NaN" },
    { INFINITY, 1, 1, 1, INFINITY, "[Inf 1]*[1;1] = Inf" },
    { 1, NAN, 0, 0, NAN, "[1 NaN]*[0;0] = NaN" },
    { INFINITY, -INFINITY, 1, 1, NAN, "[Inf -Inf]*[1;1] = NaN" },
    { 0, 0, INFINITY, 2, NAN, "[0 0]*[Inf;2] = NaN" },
    { 3, 4, 5, -6, -9, "[3 4]*[5;-6] = -9" },
  };
  for (int ti = 0; ti < TILEMM_NTYPES; ti++)
    for (const special &sc : cases)
      {
        const tilemm_type t = (tilemm_type) ti;
        CHECK_CASE ("gpu %s %s", tilemm_type_name (t), sc.what);
        tilemm_view a = host_view (t, 1, 2, 1), b = host_view (t, 2, 1, 2), c = host_view (t, 1, 1, 1);
        value v0 = { sc.a0, 0 }, v1 = { sc.a1, 0 }, w0 = { sc.b0, 0 }, w1 = { sc.b1, 0 };
        put (t, a.data, 0, v0);
        put (t, a.data, 1, v1);
        put (t, b.data, 0, w0);
        put (t, b.data, 1, w1);
        put_sentinel (t, c.data, 0);
        tilemm_plan plan;
        tilemm_error err;
        tilemm_plan_make (&plan, TILEMM_BACKEND_CUDA, t, 1, 1, 2, NULL);
        const tilemm_status s = tilemm_multiply (&plan, &a, &b, &c, &err);
        CHECK (s == TILEMM_OK, "%s (%s)", tilemm_strerror (s), err.detail);
        const value got = get (t, c.data, 0);
        if (isnan (sc.expect))
          CHECK (isnan (got.re), "got %Lg", got.re);
        else
          CHECK (got.re == sc.expect, "got %Lg, expected %g", got.re, sc.expect);
        free (a.data);
        free (b.data);
        free (c.data);
      }
}

static void zero_k_case (void)
{
  for (int ti = 0; ti < TILEMM_NTYPES; ti++)
    {
      const tilemm_type t = (tilemm_type) ti;
      CHECK_CASE ("gpu %s k = 0 gives zeros and leaves the gaps", tilemm_type_name (t));
      tilemm_view a = host_view (t, 5, 0, 5), b = host_view (t, 0, 4, 1), c = host_view (t, 5, 4, 7);
      host_matrix cr = reading (c);
      poison_output (t, cr);
      tilemm_plan plan;
      tilemm_error err;
      tilemm_plan_make (&plan, TILEMM_BACKEND_CUDA, t, 5, 4, 0, NULL);
      const tilemm_status s = tilemm_multiply (&plan, &a, &b, &c, &err);
      CHECK (s == TILEMM_OK, "%s (%s)", tilemm_strerror (s), err.detail);
      for (int64_t j = 0; j < 4; j++)
        for (int64_t i = 0; i < 7; i++)
          {
            const int64_t idx = i + j * 7;
            if (i < 5)
              CHECK (get (t, c.data, idx).re == 0 && get (t, c.data, idx).im == 0,
                     "C(%lld,%lld) not zero", (long long) i, (long long) j);
            else if (j < 3)
              CHECK (is_sentinel (t, c.data, idx), "gap (%lld,%lld) written", (long long) i,
                     (long long) j);
          }
      free (a.data);
      free (b.data);
      free (c.data);
    }
}

static void lifetime_cases (void)
{
  CHECK_CASE ("device memory held is stable across calls and zero after release");
  {
    const tilemm_type t = TILEMM_DOUBLE;
    tilemm_view a = host_view (t, 300, 200, 300), b = host_view (t, 200, 100, 200),
                c = host_view (t, 300, 100, 300);
    host_matrix ar = reading (a), br = reading (b);
    fill_input (t, ar);
    fill_input (t, br);
    tilemm_plan plan;
    tilemm_error err;
    tilemm_plan_make (&plan, TILEMM_BACKEND_CUDA, t, 300, 100, 200, NULL);
    tilemm_cuda_release ();
    CHECK (tilemm_cuda_bytes_held () == 0, "holds %zu bytes after release", tilemm_cuda_bytes_held ());
    size_t held[3];
    for (int i = 0; i < 3; i++)
      {
        const tilemm_status s = tilemm_multiply (&plan, &a, &b, &c, &err);
        CHECK (s == TILEMM_OK, "call %d: %s (%s)", i, tilemm_strerror (s), err.detail);
        held[i] = tilemm_cuda_bytes_held ();
      }
    CHECK (held[0] > 0 && held[0] == held[1] && held[1] == held[2],
           "held %zu, %zu, %zu bytes over three calls", held[0], held[1], held[2]);
    tilemm_cuda_release ();
    CHECK (tilemm_cuda_bytes_held () == 0, "holds %zu bytes after release", tilemm_cuda_bytes_held ());
    const tilemm_status s = tilemm_multiply (&plan, &a, &b, &c, &err);
    CHECK (s == TILEMM_OK, "call after release: %s (%s)", tilemm_strerror (s), err.detail);
    tilemm_cuda_release ();
    free (a.data);
    free (b.data);
    free (c.data);
  }

  CHECK_CASE ("a product too big for the GPU fails cleanly, and the next call works");
  {
    tilemm_device_info info;
    tilemm_error err;
    const tilemm_status s0 = tilemm_cuda_device_info (tilemm_cuda_current_device (), &info, &err);
    CHECK (s0 == TILEMM_OK, "device info: %s (%s)", tilemm_strerror (s0), err.detail);
    /* C alone (single, k = 1) is 1.2 times the GPU's memory.  Allocation fails before anything
     * is copied, so C's host buffer is only reserved address space (touching it would crash). */
    const int64_t side = (int64_t) sqrt (1.2 * (double) info.total_memory / 4) + 1;
    const size_t c_bytes = (size_t) side * side * 4;
    void *cdata = mmap (NULL, c_bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    CHECK (cdata != MAP_FAILED, "cannot reserve %zu bytes of address space", c_bytes);
    if (s0 == TILEMM_OK && cdata != MAP_FAILED)
      {
        tilemm_view a = host_view (TILEMM_SINGLE, side, 1, side),
                    b = host_view (TILEMM_SINGLE, 1, side, 1), c;
        tilemm_view_init (&c, TILEMM_SINGLE, side, side, side, cdata);
        tilemm_plan plan;
        tilemm_plan_make (&plan, TILEMM_BACKEND_CUDA, TILEMM_SINGLE, side, side, 1, NULL);
        const tilemm_status s = tilemm_multiply (&plan, &a, &b, &c, &err);
        CHECK (s == TILEMM_EDEVMEM, "got %s (%s)", tilemm_strerror (s), err.detail);
        CHECK (strstr (err.detail, "cudaMalloc") != NULL, "detail '%s' does not name the call",
               err.detail);
        printf ("  (expected failure said: %s)\n", err.detail);
        CHECK (tilemm_cuda_bytes_held () == 0, "holds %zu bytes after the failure",
               tilemm_cuda_bytes_held ());
        free (a.data);
        free (b.data);
      }
    if (cdata != MAP_FAILED)
      munmap (cdata, c_bytes);
    multiply_case (TILEMM_SINGLE, 40, 30, 20, 0); /* and the next call works */
  }
}

/* ---------------------------------------------------------------- the checker itself */

static void checker_case (void)
{
  CHECK_CASE ("the comparison catches one product dropped");
  const tilemm_type t = TILEMM_SINGLE;
  host_matrix x = host_alloc (3, 4097, 4097, 4), y = host_alloc (4097, 3, 3, 4), c = host_alloc (3, 3, 3, 4);
  fill_input (t, x);
  fill_input (t, y);
  for (int64_t r = 0; r < 3; r++)
    for (int64_t j = 0; j < 3; j++)
      {
        value exact, allow;
        reference (t, x, y, r, j, &exact, &allow);
        if (r == 1 && j == 2) /* drop the product at k = 77 */
          {
            const value a = get (t, x.e, 1 * 4097 + 77), b = get (t, y.e, 77 * 3 + 2);
            exact.re -= a.re * b.re;
          }
        put (t, c.e, r * 3 + j, exact);
      }
  const long failures = compare (t, x, y, c, 64);
  CHECK (failures == 1, "compare found %ld failures, expected the one planted", failures);
  free (x.e);
  free (y.e);
  free (c.e);
}

/* Several workers (multi.h): on the one GPU of the test machine, workers [0 0] and [0 0 0] (each a
 * host thread with its own streams, buffers and pinned staging; TILEMM_DEVICES="0,0"), and on a
 * machine with two GPUs [0 1] and [1 0 1] too.  Bitwise the one-worker product, right against the
 * reference; a failure names the device and frees every worker's memory. */
static void workers_case (tilemm_type t, int64_t m, int64_t n, int64_t k, const tilemm_workers &w,
                          size_t limit)
{
  char list[64] = "";
  for (int i = 0; i < w.count; i++)
    snprintf (list + strlen (list), sizeof list - strlen (list), "%s%d", i ? "," : "", w.device[i]);
  CHECK_CASE ("workers [%s] %s (%lldx%lld)·(%lldx%lld), limit %zu: bitwise one worker", list,
              tilemm_type_name (t), (long long) m, (long long) k, (long long) k, (long long) n,
              limit);
  tilemm_view a = host_view (t, m, k, m + 1), b = host_view (t, k, n, k + 3),
              c = host_view (t, m, n, m + 2), c1 = host_view (t, m, n, m + 2);
  host_matrix ar = reading (a), br = reading (b), cr = reading (c), c1r = reading (c1);
  fill_input (t, ar);
  fill_input (t, br);
  poison_output (t, cr);
  poison_output (t, c1r);
  tilemm_plan plan;
  tilemm_error err = { TILEMM_OK, "" };
  CHECK (tilemm_plan_make (&plan, TILEMM_BACKEND_CUDA, t, m, n, k, NULL) == TILEMM_OK, "plan");
  tilemm_status s = tilemm_multiply (&plan, &a, &b, &c1, &err);
  CHECK (s == TILEMM_OK, "one worker: %s", err.detail);
  const tilemm_limits lim = { limit, NULL, 0 };
  tilemm_multi_report rep;
  s = tilemm_cuda_multiply_workers (&plan, &lim, &w, 1, &a, &b, &c, NULL, &rep, &err);
  CHECK (s == TILEMM_OK, "workers: %s (%s)", tilemm_strerror (s), err.detail);
  CHECK (rep.workers >= 2, "%d workers ran on %lld panels", rep.workers, (long long) rep.panels);
  int64_t total = 0;
  for (int i = 0; i < TILEMM_MAX_WORKERS; i++)
    total += rep.done[i];
  CHECK (total == rep.panels, "%lld of %lld panels", (long long) total, (long long) rep.panels);
  const size_t es = tilemm_type_size (t);
  int same = 1;
  for (int64_t j = 0; j < n; j++)
    same &= memcmp ((char *) c.data + (size_t) (j * c.stride) * es,
                    (char *) c1.data + (size_t) (j * c1.stride) * es, (size_t) m * es) == 0;
  CHECK (same, "differs from the one-worker result");
  const long failures = compare (t, br, ar, cr, 16);
  CHECK (failures == 0, "%ld wrong, first: %s", failures, compare_first);
  printf ("  workers [%s]: %d ran, panels done:", list, rep.workers);
  for (int i = 0; i < w.count; i++)
    printf (" %lld", (long long) rep.done[i]);
  printf ("\n");
  free (a.data);
  free (b.data);
  free (c.data);
  free (c1.data);
}

static void workers_failure_case (const tilemm_workers &w)
{
  CHECK_CASE ("workers: no room for a panel is the plan's error, before any work; the next call works");
  const tilemm_type t = TILEMM_DOUBLE;
  const int64_t m = 700, n = 600, k = 500;
  tilemm_view a = host_view (t, m, k, m), b = host_view (t, k, n, k), c = host_view (t, m, n, m);
  host_matrix ar = reading (a), br = reading (b), cr = reading (c);
  fill_input (t, ar);
  fill_input (t, br);
  tilemm_plan plan;
  tilemm_error err = { TILEMM_OK, "" };
  tilemm_plan_make (&plan, TILEMM_BACKEND_CUDA, t, m, n, k, NULL);
  tilemm_multi_report rep;
  /* A warm product first, so there is memory to free. */
  tilemm_status s = tilemm_cuda_multiply_workers (&plan, NULL, &w, 1, &a, &b, &c, NULL, &rep, &err);
  CHECK (s == TILEMM_OK && tilemm_cuda_bytes_held () > 0, "warm-up: %s", err.detail);
  const tilemm_limits tiny = { 1000, NULL, 0 }; /* not even one row of A and B fits */
  const size_t held = tilemm_cuda_bytes_held ();
  s = tilemm_cuda_multiply_workers (&plan, &tiny, &w, 1, &a, &b, &c, NULL, &rep, &err);
  CHECK (s == TILEMM_EDEVMEM, "got %s (%s)", tilemm_strerror (s), err.detail);
  CHECK (strstr (err.detail, "workers") != NULL, "detail '%s'", err.detail);
  /* The plan failed, so nothing ran: what the workers hold is kept for the next call (a failure
   * while running frees it: test_leaks_gpu's injected faults). */
  CHECK (tilemm_cuda_bytes_held () == held, "held %zu device bytes after the plan's failure, %zu before",
         tilemm_cuda_bytes_held (), held);
  poison_output (t, cr);
  s = tilemm_cuda_multiply_workers (&plan, NULL, &w, 1, &a, &b, &c, NULL, &rep, &err);
  CHECK (s == TILEMM_OK, "next call: %s", err.detail);
  const long failures = compare (t, br, ar, cr, 16);
  CHECK (failures == 0, "next call: %ld wrong, first: %s", failures, compare_first);
  tilemm_cuda_release ();
  CHECK (tilemm_cuda_bytes_held () == 0 && tilemm_cuda_pinned_bytes_held () == 0,
         "release leaves %zu device bytes", tilemm_cuda_bytes_held ());
  free (a.data);
  free (b.data);
  free (c.data);
}

static void workers_cases (void)
{
  const tilemm_workers two = { 2, { 0, 0 } }, three = { 3, { 0, 0, 0 } };
  for (int t = 0; t < TILEMM_NTYPES; t++)
    {
      workers_case ((tilemm_type) t, 1000, 900, 300, two, 0);
      workers_case ((tilemm_type) t, 777, 1025, 129, three, 0);
      workers_case ((tilemm_type) t, 1000, 1000, 300, two, 1u << 20); /* panels of panels */
    }
  tilemm_workers all;
  if (tilemm_cuda_usable_devices (&all) >= 2)
    {
      const tilemm_workers pair = { 2, { 0, 1 } }, mixed = { 3, { 1, 0, 1 } };
      for (int t = 0; t < TILEMM_NTYPES; t++)
        {
          workers_case ((tilemm_type) t, 2000, 1900, 500, pair, 0);
          workers_case ((tilemm_type) t, 1500, 1300, 700, mixed, 0);
        }
      workers_failure_case (pair);
    }
  workers_failure_case (two);
}

int main (void)
{
  tilemm_error err = { TILEMM_OK, "" };
  setvbuf (stdout, NULL, _IOLBF, 0); /* progress visible in a log cut short by a timeout */
  if (tilemm_cuda_probe (&err) != TILEMM_OK)
    {
      check_skip ("test_cuda", err.detail);
      return check_summary ("test_cuda");
    }
  tilemm_device_info info;
  if (tilemm_cuda_device_info (tilemm_cuda_current_device (), &info, &err) == TILEMM_OK)
    printf ("test_cuda: %s, compute capability %d.%d, %d SMs, %.1f GiB\n", info.name,
            info.cc_major, info.cc_minor, info.multiprocessors,
            (double) info.total_memory / (1u << 30));
  checker_case ();
  table_cases ();
  kernel_cases ();
  long_k_cases ();
  if (quick_level () >= 2)
    {
      tilemm_cuda_release ();
      return check_summary ("test_cuda");
    }
  for (int t = 0; t < TILEMM_NTYPES; t++)
    {
      multiply_case ((tilemm_type) t, 1, 1, 1, 0);
      multiply_case ((tilemm_type) t, 333, 257, 129, 0);
      if (!quick_mode ())
        multiply_case ((tilemm_type) t, 1000, 1000, 300, 1u << 20); /* 4×4 panels or so */
      else
        multiply_case ((tilemm_type) t, 200, 190, 60, 64u << 10);
      multiply_case ((tilemm_type) t, 17, 1500, 40, 64u << 10);   /* panels along n only */
    }
  special_values_cases ();
  zero_k_case ();
  lifetime_cases ();
  workers_cases ();
  tilemm_cuda_release ();
  return check_summary ("test_cuda");
}
