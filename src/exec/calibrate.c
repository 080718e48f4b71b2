/* calibrate.c — the machine's facts measured (front.h: tilemm_calibrate): the host's own product
 * through the front end's callback, and tilemm's own ways through the same decision and run a
 * user's call takes (with a backend named, and the built-in model deciding the rest, so that no
 * measurement reads facts being measured), on random operands, each the best of a few runs.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 *
 * A curve grows its products by doubling until one run takes CURVE_RUN_S or the curve has taken
 * CURVE_BUDGET_S, so a slow host (the reference BLAS on two cores) and a fast one (OpenBLAS on
 * many) both finish in about a second, and each curve reaches the sizes where its rate settles.
 */
#define _POSIX_C_SOURCE 200809L   /* nanosleep */

#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "backend.h"
#include "batch_run.h"
#include "device_model.h"
#include "front.h"
#include "host_pool.h"
#include "machine_facts.h"
#include "parallel_copy.h"
#include "uniform_fill.h"

/* A curve stops growing past a product that takes this long in one run ... */
static const double CURVE_RUN_S = 0.03;
/* ... or once its measurements took this long in all. */
static const double CURVE_BUDGET_S = 0.2;
/* A point's runs take about this long in all (at least 3 runs, at most 50). */
static const double POINT_S = 0.004;
/* The pages of the host's loop are measured up to this size: larger pages cost what one product
 * of theirs does, and a few of them are too few to time as a loop. */
static const int64_t PAGE_LARGEST = 256;
/* The square sizes a curve grows through (up to where a multithreaded BLAS's rate settles: a
 * curve read past its last point keeps that point's rate). */
static const int64_t CURVE_SIZES[] = { 4, 16, 64, 128, 256, 512, 1024, 2048, 4096 };

/* ---------------------------------------------------------------- operands */

typedef struct {
  void *a, *b, *c;
  size_t bytes_a, bytes_b, bytes_c;
} operands;

static void operands_free (operands *o)
{
  free (o->a);
  free (o->b);
  free (o->c);
  memset (o, 0, sizeof *o);
}

/* A (m×k), B (k×n) random and C (m×n) of `type`, times `pages`.  0 where memory is short. */
static int operands_make (operands *o, tilemm_type type, int64_t m, int64_t n, int64_t k,
                          int64_t pages)
{
  const size_t es = tilemm_type_size (type);
  memset (o, 0, sizeof *o);
  o->bytes_a = es * (size_t) (m * k * pages);
  o->bytes_b = es * (size_t) (k * n * pages);
  o->bytes_c = es * (size_t) (m * n * pages);
  o->a = malloc (o->bytes_a ? o->bytes_a : 1);
  o->b = malloc (o->bytes_b ? o->bytes_b : 1);
  o->c = malloc (o->bytes_c ? o->bytes_c : 1);
  if (!o->a || !o->b || !o->c)
    {
      operands_free (o);
      return 0;
    }
  const int is_single = type == TILEMM_SINGLE || type == TILEMM_COMPLEX_SINGLE;
  const size_t real = is_single ? sizeof (float) : sizeof (double);
  tilemm_uniform_fill (o->a, o->bytes_a / real, is_single, 1);
  tilemm_uniform_fill (o->b, o->bytes_b / real, is_single, 2);
  tilemm_uniform_fill (o->c, o->bytes_c / real, is_single, 3);
  return 1;
}

static tilemm_operand operand_of (tilemm_type type, int64_t rows, int64_t cols, const void *id)
{
  tilemm_operand d;
  memset (&d, 0, sizeof d);
  d.cls = type == TILEMM_SINGLE || type == TILEMM_COMPLEX_SINGLE ? TILEMM_CLASS_SINGLE
                                                                 : TILEMM_CLASS_DOUBLE;
  d.is_complex = tilemm_type_is_complex (type);
  d.ndims = 2;
  d.rows = rows;
  d.cols = cols;
  d.identity = id;
  return d;
}

/* Options for one of calibration's own products: the backend and devices named, the built-in
 * model deciding everything else. */
static void own_options (tilemm_options *o, tilemm_backend_choice backend,
                         const tilemm_workers *devices)
{
  tilemm_options_init (o);
  o->backend = backend;
  o->precision = TILEMM_PRECISION_NATIVE;
  o->facts = tilemm_facts_builtin ();
  if (devices)
    o->devices = *devices;
}

/* ---------------------------------------------------------------- tilemm's own products */

/* The fewest seconds of `runs` runs (after one not timed) of tilemm's product of `type`, m×k by
 * k×n, on `backend` (its devices), through the decision and run a call takes; -1 where it
 * cannot run, with the reason in *err.  *compute_ms: the GPU's device time of the best run. */
static double own_product_s (tilemm_backend_choice backend, const tilemm_workers *devices,
                             const operands *pool, int emulated, tilemm_type type, int64_t m,
                             int64_t n, int64_t k, int runs, double *compute_ms,
                             tilemm_error *err)
{
  const size_t es = tilemm_type_size (type);
  operands o;
  if (pool && pool->bytes_a >= es * (size_t) (m * k) && pool->bytes_b >= es * (size_t) (k * n)
      && pool->bytes_c >= es * (size_t) (m * n))
    o = *pool;   /* a prefix of the pool's random values is a random operand */
  else if (!operands_make (&o, type, m, n, k, 1))
    {
      tilemm_error_set (err, TILEMM_ENOMEM, "out of memory for a %lldx%lld product", (long long) m,
                        (long long) n);
      return -1;
    }
  tilemm_options options;
  own_options (&options, backend, devices);
  if (emulated)
    options.precision = TILEMM_PRECISION_EMULATED;
  const tilemm_operand a = operand_of (type, m, k, o.a), b = operand_of (type, k, n, o.b);
  tilemm_decision d;
  double best = -1;
  if (compute_ms)
    *compute_ms = 0;
  if (tilemm_decide (&a, &b, &options, &d, err) == TILEMM_OK && d.action == TILEMM_DO_COMPUTE)
    for (int r = -1; r < runs; r++)
      {
        const double t0 = tilemm_now_s ();
        if (tilemm_run (&d, &options, o.a, o.b, o.c, err) != TILEMM_OK)
          {
            best = -1;
            break;
          }
        const double t = tilemm_now_s () - t0;
        if (r >= 0 && (best < 0 || t < best))
          {
            best = t;
            if (compute_ms && backend == TILEMM_CHOOSE_GPU)
              {
                tilemm_cuda_stats st;
                tilemm_cuda_last_stats (&st);
                *compute_ms = st.compute_ms;
              }
          }
      }
  else if (err->status == TILEMM_OK)
    tilemm_error_set (err, TILEMM_EINVAL, "a calibration product was not computed");
  if (!pool || o.a != pool->a)
    operands_free (&o);
  return best;
}

/* The fewest seconds of `runs` runs of a batch of `pages` pages of m×k by k×n on `backend`. */
static double own_batch_s (tilemm_backend_choice backend, tilemm_type type, int64_t m, int64_t n,
                           int64_t k, int64_t pages, int runs, tilemm_error *err)
{
  operands o;
  if (!operands_make (&o, type, m, n, k, pages))
    {
      tilemm_error_set (err, TILEMM_ENOMEM, "out of memory for %lld pages", (long long) pages);
      return -1;
    }
  tilemm_options options;
  own_options (&options, backend, NULL);
  const tilemm_operand x = operand_of (type, m, k, o.a), y = operand_of (type, k, n, o.b);
  const int64_t xd[3] = { m, k, pages }, yd[3] = { k, n, pages };
  tilemm_batch *batch = malloc (sizeof *batch);
  double best = -1;
  if (batch
      && tilemm_decide_batch (&x, 3, xd, TILEMM_OP_NONE, &y, 3, yd, TILEMM_OP_NONE, &options,
                              batch, err) == TILEMM_OK
      && batch->action == TILEMM_BATCH_COMPUTE)
    for (int r = -1; r < runs; r++)
      {
        const double t0 = tilemm_now_s ();
        if (tilemm_batch_run (batch, &options, o.a, o.b, o.c, err) != TILEMM_OK)
          {
            best = -1;
            break;
          }
        const double t = tilemm_now_s () - t0;
        if (r >= 0 && (best < 0 || t < best))
          best = t;
      }
  free (batch);
  operands_free (&o);
  return best;
}

/* Runs for a product that takes about `guess` seconds: enough to see its best (a run slowed by
 * a thread that woke late, or by another process, is not the product's time), few where each is
 * long. */
static int runs_for (double guess)
{
  const double r = POINT_S / (guess > 1e-7 ? guess : 1e-7);
  return r < 3 ? (guess > CURVE_RUN_S ? 2 : 3) : r > 50 ? 50 : (int) r;
}

/* ---------------------------------------------------------------- the host's and CPU's curves */

typedef double (*curve_fn) (void *ctx, tilemm_type type, int64_t n, int runs, tilemm_error *err);

/* A curve of square products from 4 up to `largest`, doubling, until a run takes CURVE_RUN_S or
 * the curve has taken CURVE_BUDGET_S.  0 where the first point failed. */
static int measure_curve (tilemm_curve *curve, curve_fn fn, void *ctx, tilemm_type type,
                          int64_t largest, tilemm_error *err)
{
  memset (curve, 0, sizeof *curve);
  const double start = tilemm_now_s ();
  double last = 1e-6;
  for (size_t i = 0; i < sizeof CURVE_SIZES / sizeof CURVE_SIZES[0]; i++)
    {
      const int64_t n = CURVE_SIZES[i];
      if (n > largest)
        break;
      const double s = fn (ctx, type, n, runs_for (last * 8), err);
      if (!(s > 0))
        return curve->points > 0;
      tilemm_curve_add (curve, tilemm_model_flops (type, (double) n, (double) n, (double) n), s);
      last = s;
      if (s > CURVE_RUN_S || tilemm_now_s () - start > CURVE_BUDGET_S)
        break;
    }
  return curve->points > 0;
}

static double host_point (void *ctx, tilemm_type type, int64_t n, int runs, tilemm_error *err)
{
  const tilemm_host_product *host = ctx;
  const double s = host->seconds (host->ctx, type, n, n, n, runs);
  if (!(s > 0))
    tilemm_error_set (err, TILEMM_EINVAL, "the host's product could not be timed");
  return s;
}

/* One page of the host's loop over enough pages of n×n for about a millisecond (a page costs at
 * least a couple of microseconds: its views and the call), the best of three. */
static double host_page_point (void *ctx, tilemm_type type, int64_t n, int runs, tilemm_error *err)
{
  const tilemm_host_product *host = ctx;
  (void) runs;
  const double one = host->seconds (host->ctx, type, n, n, n, 2);
  int64_t pages = one > 0 ? (int64_t) (1e-3 / (one > 2e-6 ? one : 2e-6)) : 16;
  pages = pages < 2 ? 2 : pages > 1000 ? 1000 : pages;
  const double s = host->pages_seconds (host->ctx, type, n, n, n, pages, 3);
  if (!(s > 0))
    {
      tilemm_error_set (err, TILEMM_EINVAL, "the host's loop over pages could not be timed");
      return s;
    }
  return s / (double) pages;
}

static double cpu_point (void *ctx, tilemm_type type, int64_t n, int runs, tilemm_error *err)
{
  (void) ctx;
  return own_product_s (TILEMM_CHOOSE_CPU, NULL, NULL, 0, type, n, n, n, runs, NULL, err);
}

/* The CPU's batched path: pages too small to be tiled, then two sizes of tiled pages, each run
 * over every thread; a page's cost on one thread is the batch's time times the threads over the
 * pages, a fixed part and the flops at one thread's rate. */
static int measure_cpu_batch (tilemm_machine_facts *f, tilemm_error *err)
{
  const double threads = (double) f->threads;
  const int64_t small_pages = 20000, mid_pages = 2000, large_pages = 200;
  const double small = own_batch_s (TILEMM_CHOOSE_CPU, TILEMM_DOUBLE, 4, 4, 4, small_pages, 3, err);
  const double mid = own_batch_s (TILEMM_CHOOSE_CPU, TILEMM_DOUBLE, 24, 24, 24, mid_pages, 3, err);
  const double large = own_batch_s (TILEMM_CHOOSE_CPU, TILEMM_DOUBLE, 96, 96, 96, large_pages, 3,
                                    err);
  if (!(small > 0 && mid > 0 && large > 0))
    return 0;
  const double fm = tilemm_model_flops (TILEMM_DOUBLE, 24, 24, 24);
  const double fl = tilemm_model_flops (TILEMM_DOUBLE, 96, 96, 96);
  const double pm = mid * threads / (double) mid_pages, pl = large * threads / (double) large_pages;
  /* pm = fixed + fm / rate, pl = fixed + fl / rate. */
  double per_flop = (pl - pm) / (fl - fm);
  if (!(per_flop > 0))
    per_flop = pl / fl;
  double fixed = pm - fm * per_flop;
  f->cpu_thread_flops_per_s = 1.0 / per_flop;
  f->cpu_page_s = fixed > 1e-9 ? fixed : 1e-9;
  const double ps = small * threads / (double) small_pages
                    - tilemm_model_flops (TILEMM_DOUBLE, 4, 4, 4) * per_flop;
  f->cpu_small_page_s = ps > 1e-10 ? ps : 1e-10;
  /* A batch of a few pages a thread, as a call makes it: what its region costs beyond the
   * pages' share, where that is more than the bare region's (measure_region). */
  if (f->threads > 1)
    {
      const int64_t few = 4 * (int64_t) f->threads;
      const double s = own_batch_s (TILEMM_CHOOSE_CPU, TILEMM_DOUBLE, 16, 16, 16, few, 5, err);
      if (!(s > 0))
        return 0;
      const double share
        = (double) few * tilemm_batch_cpu_page_s (f, TILEMM_DOUBLE, 16, 16, 16) / threads;
      if (s - share > f->cpu_region_s)
        f->cpu_region_s = s - share;
    }
  return 1;
}

/* ---------------------------------------------------------------- a parallel region */

static int compare_doubles (const void *a, const void *b)
{
  const double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

/* One index of measure_region's job: a touch of a shared counter. */
static void region_touch (void *arg, int64_t index, int member)
{
  (void) index;
  (void) member;
  atomic_fetch_add ((atomic_int *) arg, 1);
}

/* A job of the host pool on every thread, each time after a pause long enough for idle threads
 * to sleep (as between the groups of a batch, or a script's calls): its start and end, the
 * median of several. */
static void measure_region (tilemm_machine_facts *f)
{
  enum { ROUNDS = 7 };
  double s[ROUNDS];
  atomic_int sink;
  atomic_init (&sink, 0);
  for (int r = 0; r < ROUNDS; r++)
    {
      const struct timespec pause = { 0, 5 * 1000 * 1000 };
      nanosleep (&pause, NULL);
      const double t0 = tilemm_now_s ();
      tilemm_host_pool_run (f->threads, f->threads, region_touch, &sink);
      s[r] = tilemm_now_s () - t0;
    }
  qsort (s, ROUNDS, sizeof s[0], compare_doubles);
  f->cpu_region_s = s[ROUNDS / 2] > 1e-7 ? s[ROUNDS / 2] : 1e-7;
}

/* ---------------------------------------------------------------- host copies */

/* Host copies of 64 MiB by the staging's own copy team (host_team.h), by team size: what a GPU
 * worker's copies get from as many threads. */
static void measure_copies (tilemm_machine_facts *f)
{
  const size_t bytes = (size_t) 64 << 20;
  unsigned char *src = malloc (bytes), *dst = malloc (bytes);
  const tilemm_cpu_set anywhere = { 0 };
  tilemm_host_team *team = f->threads > 1 ? tilemm_host_team_start (f->threads, &anywhere) : NULL;
  const int most = team ? tilemm_host_team_size (team) : 1;
  f->copy_points = 0;
  if (src && dst)
    {
      memset (src, 1, bytes);
      memset (dst, 2, bytes);
      for (int t = 1; t <= most && f->copy_points < TILEMM_COPY_POINTS; t *= 2)
        {
          double best = -1;
          for (int r = 0; r < 3; r++)
            {
              const double t0 = tilemm_now_s ();
              tilemm_parallel_copy_2d (team, t, dst, bytes, src, bytes, bytes, 1);
              const double s = tilemm_now_s () - t0;
              if (best < 0 || s < best)
                best = s;
            }
          f->copy_threads[f->copy_points] = t;
          f->copy_bytes_per_s[f->copy_points++] = (double) bytes / best;
          if (t < most && 2 * t > most)
            t = most / 2;   /* the team's whole size last */
        }
    }
  tilemm_host_team_stop (team);
  free (src);
  free (dst);
}

/* ---------------------------------------------------------------- GPUs */

/* Weighted least squares of seconds = c + b·bytes + f·flops over the points (weights 1/seconds²:
 * relative errors), the three kept non-negative. */
static void fit_call (const double *bytes, const double *flops, const double *s, int count,
                      double *c, double *b, double *f)
{
  double best_err = INFINITY;
  *c = *b = *f = 0;
  /* Each subset of the three terms, solved by normal equations; the best non-negative fit wins. */
  for (int mask = 1; mask < 8; mask++)
    {
      double x[3][3] = { { 0 } }, y[3] = { 0 };
      int used[3], nu = 0;
      for (int j = 0; j < 3; j++)
        if (mask & (1 << j))
          used[nu++] = j;
      for (int i = 0; i < count; i++)
        {
          const double w = 1.0 / (s[i] * s[i]);
          const double row[3] = { 1.0, bytes[i], flops[i] };
          for (int p = 0; p < nu; p++)
            {
              for (int q = 0; q < nu; q++)
                x[p][q] += w * row[used[p]] * row[used[q]];
              y[p] += w * row[used[p]] * s[i];
            }
        }
      /* Gaussian elimination on the nu×nu system. */
      int singular = 0;
      for (int p = 0; p < nu && !singular; p++)
        {
          if (fabs (x[p][p]) < 1e-300)
            {
              singular = 1;
              break;
            }
          for (int q = p + 1; q < nu; q++)
            {
              const double r = x[q][p] / x[p][p];
              for (int z = p; z < nu; z++)
                x[q][z] -= r * x[p][z];
              y[q] -= r * y[p];
            }
        }
      if (singular)
        continue;
      double sol[3] = { 0 };
      for (int p = nu - 1; p >= 0; p--)
        {
          double v = y[p];
          for (int q = p + 1; q < nu; q++)
            v -= x[p][q] * sol[q];
          sol[p] = v / x[p][p];
        }
      double coef[3] = { 0, 0, 0 };
      int negative = 0;
      for (int p = 0; p < nu; p++)
        {
          coef[used[p]] = sol[p];
          if (sol[p] < 0)
            negative = 1;
        }
      if (negative)
        continue;
      double e = 0;
      for (int i = 0; i < count; i++)
        {
          const double r = (coef[0] + coef[1] * bytes[i] + coef[2] * flops[i] - s[i]) / s[i];
          e += r * r;
        }
      if (e < best_err)
        {
          best_err = e;
          *c = coef[0], *b = coef[1], *f = coef[2];
        }
    }
}

static double product_bytes (tilemm_type type, double n)
{
  return (double) tilemm_type_size (type) * 3.0 * n * n;
}

/* The GPU's sizes: doubling from GPU_SIZES[0] until a product takes GPU_RUN_S (after at least
 * GPU_LEAST points) or the list ends. */
static const int64_t GPU_SIZES[] = { 128, 256, 512, 1024, 2048, 4096, 8192 };
enum { GPU_NSIZES = sizeof GPU_SIZES / sizeof GPU_SIZES[0], GPU_LEAST = 3 };
static const double GPU_RUN_S = 0.03;
/* The GPU's end-to-end curves reach this size (the fitted line serves past it). */
static const int64_t GPU_CURVE_LARGEST = 2048;

typedef struct {
  tilemm_workers one, all;
  int count;                       /* sizes measured on one GPU                  */
  double bytes[GPU_NSIZES], flops[GPU_NSIZES], s1[GPU_NSIZES];
  double bus_s_per_byte;           /* the fit's bus term                         */
  const operands *pool;
} gpu_run;

static tilemm_status failed (tilemm_error *err)
{
  return err->status != TILEMM_OK ? err->status : TILEMM_ECUDA;
}

/* One GPU end to end over doubling sizes of double: its kernels' rate from CUDA events (the
 * best of the sizes: the largest pipelines stall on their copies), then the call's fixed cost
 * and the bus fitted to what is left of each product's time.  The other types' kernels from one
 * product each. */
static tilemm_status measure_one_gpu (tilemm_machine_facts *f, gpu_run *g, int largest,
                                      tilemm_error *err)
{
  double compute_ms, kernel = 0, left[GPU_NSIZES], zero[GPU_NSIZES];
  g->count = 0;
  for (int i = 0; i < GPU_NSIZES && GPU_SIZES[i] <= largest; i++)
    {
      const int64_t n = GPU_SIZES[i];
      g->bytes[i] = product_bytes (TILEMM_DOUBLE, (double) n);
      g->flops[i] = tilemm_model_flops (TILEMM_DOUBLE, (double) n, (double) n, (double) n);
      g->s1[i] = own_product_s (TILEMM_CHOOSE_GPU, &g->one, g->pool, 0, TILEMM_DOUBLE, n, n, n,
                                runs_for (i > 0 ? 4 * g->s1[i - 1] : 1e-4), &compute_ms, err);
      if (!(g->s1[i] > 0))
        return failed (err);
      g->count = i + 1;
      if (compute_ms > 0 && g->flops[i] / (compute_ms * 1e-3) > kernel)
        kernel = g->flops[i] / (compute_ms * 1e-3);
      if (i + 1 >= GPU_LEAST && g->s1[i] > GPU_RUN_S)
        break;
    }
  if (!(kernel > 0))
    return tilemm_error_set (err, TILEMM_ECUDA, "the GPU's kernels were not timed");
  f->gpu_kernel_flops_per_s[TILEMM_DOUBLE] = kernel;
  f->gpu[0].kernel_flops_per_s[TILEMM_DOUBLE] = kernel;
  for (int i = 0; i < g->count; i++)
    {
      left[i] = g->s1[i] - g->flops[i] / kernel;
      if (left[i] < 0.05 * g->s1[i])
        left[i] = 0.05 * g->s1[i];
      zero[i] = 0;
    }
  double c, b, unused;
  fit_call (g->bytes, zero, left, g->count, &c, &b, &unused);
  f->gpu_call_s = c > 1e-6 ? c : 1e-6;
  f->gpu_first_bytes = 0;
  f->gpu_first_bytes_per_s = 0;
  f->gpu_bus_bytes_per_s = b > 0 ? 1.0 / b : 1e12;
  g->bus_s_per_byte = b;
  static const tilemm_type others[] = { TILEMM_SINGLE, TILEMM_COMPLEX_SINGLE,
                                        TILEMM_COMPLEX_DOUBLE };
  const int64_t side = GPU_SIZES[g->count - 1] < 2048 ? GPU_SIZES[g->count - 1] : 2048;
  for (int t = 0; t < 3; t++)
    {
      const tilemm_type ty = others[t];
      const int64_t n = tilemm_type_is_complex (ty) ? side / 2 : side;
      const double s
        = own_product_s (TILEMM_CHOOSE_GPU, &g->one, g->pool, 0, ty, n, n, n, 3, &compute_ms, err);
      if (!(s > 0))
        return failed (err);
      const double fl = tilemm_model_flops (ty, (double) n, (double) n, (double) n);
      const double rate = compute_ms > 0 ? fl / (compute_ms * 1e-3) : kernel;
      f->gpu_kernel_flops_per_s[ty] = rate;
      f->gpu[0].kernel_flops_per_s[ty] = rate;
    }
  return TILEMM_OK;
}

/* One GPU's plain product of n×n end to end, the caller's GPU (the double pool's prefix for
 * double, operands of its own for the other types). */
static double gpu_point (void *ctx, tilemm_type type, int64_t n, int runs, tilemm_error *err)
{
  const gpu_run *g = ctx;
  return own_product_s (TILEMM_CHOOSE_GPU, &g->one, type == TILEMM_DOUBLE ? g->pool : NULL, 0,
                        type, n, n, n, runs, NULL, err);
}

/* Every GPU together: seconds = all_call + (one GPU's seconds - its fixed cost) / speedup, fitted
 * over the three largest sizes (least squares in relative terms). */
static tilemm_status measure_all_gpus (tilemm_machine_facts *f, const gpu_run *g,
                                       tilemm_error *err)
{
  double sx = 0, sy = 0, sxx = 0, sxy = 0, sw = 0, last_all = 0, last_one = 0;
  for (int i = g->count >= 3 ? g->count - 3 : 0; i < g->count; i++)
    {
      const int64_t n = GPU_SIZES[i];
      const double s = own_product_s (TILEMM_CHOOSE_GPU, &g->all, g->pool, 0, TILEMM_DOUBLE, n, n,
                                      n, runs_for (g->s1[i]), NULL, err);
      if (!(s > 0))
        return failed (err);
      const double w = 1.0 / (s * s);
      const double x = g->s1[i] - f->gpu_call_s;
      sw += w, sx += w * x, sy += w * s, sxx += w * x * x, sxy += w * x * s;
      last_all = s, last_one = g->s1[i];
    }
  const double det = sw * sxx - sx * sx;
  double slope = det != 0 ? (sw * sxy - sx * sy) / det : 0;
  double intercept = det != 0 ? (sy - slope * sx) / sw : 0;
  if (!(slope > 0) || intercept < 0)
    {
      /* A fit that says nothing sensible: the largest size's ratio alone. */
      slope = last_all / last_one;
      intercept = f->gpu_call_s;
    }
  f->gpu_all_count = g->all.count;
  f->gpu_all_call_s = intercept;
  f->gpu_all_speedup = 1.0 / slope;
  return TILEMM_OK;
}

/* A batch of pages on one GPU at five points (few and many small pages, mid and larger pages):
 * its fixed cost, its bytes' rate and its kernels' rate fitted.  Not measured where a batch
 * cannot run (the model's figures stay). */
static void measure_gpu_batch (tilemm_machine_facts *f)
{
  enum { POINTS = 5 };
  static const int64_t side[POINTS] = { 16, 16, 64, 128, 256 };
  static const int64_t pages[POINTS] = { 200, 4000, 500, 200, 40 };
  double bytes[POINTS], flops[POINTS], s[POINTS];
  for (int i = 0; i < POINTS; i++)
    {
      tilemm_error err = { TILEMM_OK, "" };
      const double n = (double) side[i];
      s[i] = own_batch_s (TILEMM_CHOOSE_GPU, TILEMM_DOUBLE, side[i], side[i], side[i], pages[i], 3,
                          &err);
      if (!(s[i] > 0))
        return;
      bytes[i] = (double) pages[i] * product_bytes (TILEMM_DOUBLE, n);
      flops[i] = (double) pages[i] * tilemm_model_flops (TILEMM_DOUBLE, n, n, n);
    }
  double c, b, pf;
  fit_call (bytes, flops, s, POINTS, &c, &b, &pf);
  f->gpu_batch_call_s = c > 1e-6 ? c : 1e-6;
  f->gpu_batch_bus_bytes_per_s = b > 0 ? 1.0 / b : 0;
  const double rate = pf > 0 ? 1.0 / pf : f->gpu_kernel_flops_per_s[TILEMM_DOUBLE];
  for (int t = 0; t < TILEMM_NTYPES; t++)
    f->gpu_batch_flops_per_s[t]
      = rate * (f->gpu_kernel_flops_per_s[t] / f->gpu_kernel_flops_per_s[TILEMM_DOUBLE]);
}

/* Each GPU's links alone and all together, its kernels' rate of double (device time), its name;
 * the emulated precision's double product on the caller's GPU (not measured where it cannot
 * run there). */
static tilemm_status measure_each_gpu (tilemm_machine_facts *f, const gpu_run *g,
                                       tilemm_error *err)
{
  const tilemm_backend_ops *ops = tilemm_backend_find (TILEMM_BACKEND_CUDA);
  tilemm_link_rates rates[TILEMM_MAX_WORKERS];
  memset (rates, 0, sizeof rates);
  if (ops && ops->links && ops->links (&g->all, rates, err) != TILEMM_OK)
    return failed (err);
  const int mid = g->count >= 2 ? g->count - 2 : 0;
  const int64_t n = GPU_SIZES[mid];
  for (int i = 0; i < g->all.count; i++)
    {
      tilemm_gpu_facts *d = &f->gpu[i];
      d->up_bytes_per_s = rates[i].up, d->down_bytes_per_s = rates[i].down;
      d->up_busy_bytes_per_s = rates[i].up_busy, d->down_busy_bytes_per_s = rates[i].down_busy;
      d->ordinal = g->all.device[i];
      double compute_ms = 0;
      const tilemm_workers that = { 1, { g->all.device[i] } };
      if (d->ordinal != g->one.device[0]
          && own_product_s (TILEMM_CHOOSE_GPU, &that, g->pool, 0, TILEMM_DOUBLE, n, n, n, 3,
                            &compute_ms, err) > 0
          && compute_ms > 0)
        d->kernel_flops_per_s[TILEMM_DOUBLE] = g->flops[mid] / (compute_ms * 1e-3);
      tilemm_device_info info;
      tilemm_error e2 = { TILEMM_OK, "" };
      if (tilemm_cuda_device_info (g->all.device[i], &info, &e2) == TILEMM_OK)
        snprintf (d->name, sizeof d->name, "%.127s", info.name);
    }
  tilemm_error e3 = { TILEMM_OK, "" };
  const double s = own_product_s (TILEMM_CHOOSE_GPU, &g->one, g->pool, 1, TILEMM_DOUBLE, n, n, n,
                                  2, NULL, &e3);
  if (s > 0)
    for (int i = 0; i < g->all.count; i++)
      if (f->gpu[i].ordinal == g->one.device[0])
        f->gpu[i].emulated_flops_per_s = g->flops[mid] / s;
  return TILEMM_OK;
}

/* Every usable GPU: one alone end to end (the caller's), all together where there are several, a
 * batch of pages, each one's links and kernels.  No GPU: nothing measured, "auto" never asks. */
static tilemm_status measure_gpus (tilemm_machine_facts *f, tilemm_error *err)
{
  tilemm_device_facts gpu;
  tilemm_backend_facts (TILEMM_BACKEND_CUDA, 0, &gpu);
  f->gpu_measured = 0;
  f->gpus = 0;
  f->gpu_all_count = 0;
  if (!gpu.usable || gpu.count < 1)
    return TILEMM_OK;
  gpu_run g;
  memset (&g, 0, sizeof g);
  g.one.count = 1;
  g.one.device[0] = gpu.current >= 0 ? gpu.current : gpu.device[0];
  g.all.count = gpu.count < TILEMM_MAX_WORKERS ? gpu.count : TILEMM_MAX_WORKERS;
  for (int i = 0; i < g.all.count; i++)
    g.all.device[i] = gpu.device[i];
  /* One set of operands for the products up to 2048 (larger ones, reached only where a GPU is
   * fast, make their own), so that few are filled. */
  operands pool;
  const int64_t most = 2048;
  if (!operands_make (&pool, TILEMM_DOUBLE, most, most, most, 1))
    return tilemm_error_set (err, TILEMM_ENOMEM, "out of memory for the GPU's calibration");
  g.pool = &pool;
  /* Past 4096 only where several GPUs are to be weighed against one: their fit needs the
   * products where a second GPU pays. */
  tilemm_status status = measure_one_gpu (f, &g, g.all.count > 1 ? 8192 : 4096, err);
  /* Each type's calls end to end up to GPU_CURVE_LARGEST; double's from GPU_SIZES[0] up are the
   * products measure_one_gpu just timed, taken as they are rather than timed again. */
  for (int t = 0; t < TILEMM_NTYPES && status == TILEMM_OK; t++)
    {
      const tilemm_type type = (tilemm_type) t;
      const int64_t largest = type == TILEMM_DOUBLE ? GPU_SIZES[0] - 1 : GPU_CURVE_LARGEST;
      if (!measure_curve (&f->gpu_curve[t], gpu_point, &g, type, largest, err))
        status = failed (err);
      else if (type == TILEMM_DOUBLE)
        for (int i = 0; i < g.count && GPU_SIZES[i] <= GPU_CURVE_LARGEST; i++)
          tilemm_curve_add (&f->gpu_curve[t], g.flops[i], g.s1[i]);
    }
  if (status == TILEMM_OK && g.all.count > 1)
    status = measure_all_gpus (f, &g, err);
  if (status == TILEMM_OK)
    {
      measure_gpu_batch (f);
      status = measure_each_gpu (f, &g, err);
    }
  operands_free (&pool);
  if (status != TILEMM_OK)
    return status;
  f->gpus = g.all.count;
  f->gpu_measured = 1;
  return tilemm_error_set (err, TILEMM_OK, NULL);
}

/* ---------------------------------------------------------------- the machine's other work */

/* The CPUs' busy seconds over every process (the hypervisor's steal included) and their count,
 * from /proc/stat; this process's own CPU seconds (all its threads: a BLAS's spinning threads
 * are its own); the wall clock. */
typedef struct {
  double busy_s, own_s, wall_s;
  int cpus;
} cpu_sample;

/* 0 where /proc/stat cannot be read (not Linux): the machine's other work is then not known. */
static int cpu_sample_take (cpu_sample *s)
{
  FILE *f = fopen ("/proc/stat", "r");
  if (!f)
    return 0;
  unsigned long long v[8] = { 0 };
  char line[512];
  int cpus = 0, ok = 0;
  while (fgets (line, sizeof line, f))
    if (strncmp (line, "cpu ", 4) == 0)
      ok = sscanf (line + 4, "%llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2],
                   &v[3], &v[4], &v[5], &v[6], &v[7]) == 8;
    else if (strncmp (line, "cpu", 3) == 0 && line[3] >= '0' && line[3] <= '9')
      cpus++;
  fclose (f);
  const long tick = sysconf (_SC_CLK_TCK);
  struct rusage ru;
  if (!ok || cpus < 1 || tick <= 0 || getrusage (RUSAGE_SELF, &ru) != 0)
    return 0;
  /* user, nice, system, idle, iowait, irq, softirq, steal: all but idle and iowait */
  s->busy_s = (double) (v[0] + v[1] + v[2] + v[5] + v[6] + v[7]) / (double) tick;
  s->own_s = (double) ru.ru_utime.tv_sec + 1e-6 * (double) ru.ru_utime.tv_usec
             + (double) ru.ru_stime.tv_sec + 1e-6 * (double) ru.ru_stime.tv_usec;
  s->wall_s = tilemm_now_s ();
  s->cpus = cpus;
  return 1;
}

/* The share of the CPUs' time between two samples that other processes took (0 to 1). */
static double others_share (const cpu_sample *a, const cpu_sample *b)
{
  const double capacity = (b->wall_s - a->wall_s) * (double) b->cpus;
  if (!(capacity > 0))
    return -1;
  const double others = (b->busy_s - a->busy_s) - (b->own_s - a->own_s);
  return others <= 0 ? 0 : others >= capacity ? 1 : others / capacity;
}

/* ---------------------------------------------------------------- all of it */

tilemm_status tilemm_calibrate (const tilemm_host_product *host, tilemm_machine_facts *f,
                                tilemm_error *err)
{
  const double start = tilemm_now_s ();
  cpu_sample before, after;
  const int sampled = cpu_sample_take (&before);
  tilemm_facts_model (f, NULL);
  f->key[0] = '\0';
  tilemm_host_facts cpus;
  tilemm_host_facts_gather (&cpus);
  f->threads = cpus.threads;
  /* tilemm's own ways first, the host's product last: a multithreaded BLAS keeps its threads
   * spinning for a while after each call, and threads that spin on every core would be timed
   * as part of whatever ran next. */
  measure_copies (f);
  measure_region (f);
  f->cpu_measured = 0;
  for (int t = 0; t < TILEMM_NTYPES; t++)
    if (!measure_curve (&f->cpu[t], cpu_point, NULL, (tilemm_type) t, 2048, err))
      return err->status != TILEMM_OK ? err->status : TILEMM_EINVAL;
  f->cpu_measured = 1;
  if (!measure_cpu_batch (f, err))
    return err->status != TILEMM_OK ? err->status : TILEMM_EINVAL;
  const tilemm_status status = measure_gpus (f, err);
  if (status != TILEMM_OK)
    return status;
  f->host_measured = 0;
  if (host && host->seconds)
    {
      int ok = 1;
      for (int t = 0; t < TILEMM_NTYPES && ok; t++)
        ok = measure_curve (&f->host[t], host_point, (void *) host, (tilemm_type) t, 2048, err);
      for (int t = 0; t < TILEMM_NTYPES && ok; t++)
        {
          if (host->pages_seconds)
            ok = measure_curve (&f->host_page[t], host_page_point, (void *) host,
                                (tilemm_type) t, PAGE_LARGEST, err);
          else
            f->host_page[t] = f->host[t];
        }
      if (!ok)
        return err->status != TILEMM_OK ? err->status : TILEMM_EINVAL;
      f->host_measured = 1;
    }
  f->measured_s = tilemm_now_s () - start;
  f->others_cpu_share = sampled && cpu_sample_take (&after) ? others_share (&before, &after) : -1;
  f->origin = TILEMM_FACTS_MEASURED;
  return tilemm_error_set (err, TILEMM_OK, NULL);
}
