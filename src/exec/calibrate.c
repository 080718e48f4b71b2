/* calibrate.c — the machine's facts measured (front.h: tilemm_calibrate): the host's own product
 * through the front end's callback, and tilemm's own ways through the same decision and run a
 * user's call takes (with a backend named), on random operands, each the best of a few runs.
 * A GPU product is decided on the facts measured so far, as a call decides on the stored ones:
 * its copy teams from the host copies' curve, each GPU's strip from the GPUs' kernel rates
 * (measured before every GPU is timed together), so that calibration times the product a call
 * runs.  The CPU's products and the batches are decided by the built-in model: their plans read
 * the CPU facts those same measurements make.
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
#include "emulated_arena.h"
#include "host_cpus.h"
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

/* Options for one of calibration's own products: the backend and devices named, `facts` (NULL:
 * the built-in model) deciding everything else. */
static void own_options (tilemm_options *o, tilemm_backend_choice backend,
                         const tilemm_workers *devices, const tilemm_machine_facts *facts)
{
  tilemm_options_init (o);
  o->backend = backend;
  o->precision = TILEMM_PRECISION_NATIVE;
  o->facts = facts ? facts : tilemm_facts_builtin ();
  if (devices)
    o->devices = *devices;
}

/* ---------------------------------------------------------------- tilemm's own products */

static int compare_doubles (const void *a, const void *b)
{
  const double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

/* The median of x[0 .. n - 1] (sorted in place); -1 where n < 1. */
static double median_of (double *x, int n)
{
  if (n < 1)
    return -1;
  qsort (x, (size_t) n, sizeof x[0], compare_doubles);
  return n % 2 ? x[n / 2] : 0.5 * (x[n / 2 - 1] + x[n / 2]);
}

static double mean_of (const double *x, int n)
{
  double sum = 0;
  for (int i = 0; i < n; i++)
    sum += x[i];
  return n > 0 ? sum / n : -1;
}

/* The most runs a point takes. */
enum { MOST_RUNS = 50 };

/* One of tilemm's own products, decided once and run as often as asked: calibration's unit. */
typedef struct {
  operands o;
  int owned;             /* o is this call's own (else a prefix of a pool's)          */
  size_t fresh_bytes;    /* each run into a result allocated for it, of these bytes
                            (0: into o.c, the same pages every run)                    */
  tilemm_options options;
  tilemm_decision d;
  tilemm_backend_choice backend;
} own_call;

/* How calibration's own product runs (own_call_begin's `how`): the emulated precision; each run
 * into a result array of its own, new pages as an Octave call's result has (its copy out then
 * faults them in: on a machine where that is slow, several GPUs' teams share it). */
enum { OWN_EMULATED = 1, OWN_FRESH_RESULT = 2 };

/* Decides tilemm's product of `type`, m×k by k×n, on `backend` (its devices) as a call takes it
 * on `facts` (own_options); 0 where it cannot, with the reason in *err. */
static int own_call_begin (own_call *c, tilemm_backend_choice backend,
                           const tilemm_workers *devices, const tilemm_machine_facts *facts,
                           const operands *pool, int how, tilemm_type type, int64_t m,
                           int64_t n, int64_t k, tilemm_error *err)
{
  const size_t es = tilemm_type_size (type);
  memset (c, 0, sizeof *c);
  c->backend = backend;
  if (how & OWN_FRESH_RESULT)
    c->fresh_bytes = es * (size_t) (m * n) > 0 ? es * (size_t) (m * n) : 1;
  if (pool && pool->bytes_a >= es * (size_t) (m * k) && pool->bytes_b >= es * (size_t) (k * n)
      && pool->bytes_c >= es * (size_t) (m * n))
    c->o = *pool;   /* a prefix of the pool's random values is a random operand */
  else if (operands_make (&c->o, type, m, n, k, 1))
    c->owned = 1;
  else
    {
      tilemm_error_set (err, TILEMM_ENOMEM, "out of memory for a %lldx%lld product", (long long) m,
                        (long long) n);
      return 0;
    }
  own_options (&c->options, backend, devices, facts);
  if (how & OWN_EMULATED)
    c->options.precision = TILEMM_PRECISION_EMULATED;
  const tilemm_operand a = operand_of (type, m, k, c->o.a), b = operand_of (type, k, n, c->o.b);
  if (tilemm_decide (&a, &b, &c->options, &c->d, err) == TILEMM_OK
      && c->d.action == TILEMM_DO_COMPUTE)
    return 1;
  if (err->status == TILEMM_OK)
    tilemm_error_set (err, TILEMM_EINVAL, "a calibration product was not computed");
  if (c->owned)
    operands_free (&c->o);
  return 0;
}

/* One run's seconds; -1 where it failed (the reason in *err).  *compute_ms (may be NULL): the
 * GPU's device time of it. */
static double own_call_run (own_call *c, double *compute_ms, tilemm_error *err)
{
  void *fresh = c->fresh_bytes ? malloc (c->fresh_bytes) : NULL;
  if (c->fresh_bytes && !fresh)
    {
      tilemm_error_set (err, TILEMM_ENOMEM, "out of memory for a calibration product's result");
      return -1;
    }
  const double t0 = tilemm_now_s ();
  const tilemm_status status
    = tilemm_run (&c->d, &c->options, c->o.a, c->o.b, fresh ? fresh : c->o.c, err);
  const double t = tilemm_now_s () - t0;
  free (fresh);
  if (status != TILEMM_OK)
    return -1;
  if (compute_ms)
    {
      tilemm_cuda_stats st;
      *compute_ms = 0;
      if (c->backend == TILEMM_CHOOSE_GPU)
        {
          tilemm_cuda_last_stats (&st);
          *compute_ms = st.compute_ms;
        }
    }
  return t;
}

static void own_call_end (own_call *c)
{
  if (c->owned)
    operands_free (&c->o);
}

/* The median of s[0 .. done - 1] (done >= 1); *its (may be NULL): the figure `with` gives the
 * run nearest that median (its device time). */
static double median_and_its (const double *s, const double *with, int done, double *its)
{
  double sorted[MOST_RUNS];
  memcpy (sorted, s, sizeof s[0] * (size_t) done);
  const double median = median_of (sorted, done);
  int at = 0;
  for (int i = 1; i < done; i++)
    if (fabs (s[i] - median) < fabs (s[at] - median))
      at = i;
  if (its)
    *its = with[at];
  return median;
}

/* The median seconds of `runs` runs (after one not timed) of tilemm's product of `type`, m×k by
 * k×n, on `backend` (its devices), through the decision (on `facts`) and run a call takes; -1
 * where it cannot run, with the reason in *err.  *compute_ms: the GPU's device time of the
 * median run. */
static double own_product_s (tilemm_backend_choice backend, const tilemm_workers *devices,
                             const tilemm_machine_facts *facts, const operands *pool, int how,
                             tilemm_type type, int64_t m, int64_t n, int64_t k, int runs,
                             double *compute_ms, tilemm_error *err)
{
  own_call c;
  if (compute_ms)
    *compute_ms = 0;
  if (!own_call_begin (&c, backend, devices, facts, pool, how, type, m, n, k, err))
    return -1;
  if (runs > MOST_RUNS)
    runs = MOST_RUNS;
  double s[MOST_RUNS], ms[MOST_RUNS];
  int done = 0;
  for (int r = -1; r < runs; r++)
    {
      double t_ms = 0;
      const double t = own_call_run (&c, &t_ms, err);
      if (t < 0)
        {
          done = 0;
          break;
        }
      if (r >= 0)
        ms[done] = t_ms, s[done++] = t;
    }
  own_call_end (&c);
  if (done < 1)
    return -1;
  return median_and_its (s, ms, done, compute_ms);
}

/* The median seconds of `runs` runs of a batch of `pages` pages of m×k by k×n on `backend`;
 * `how` OWN_FRESH_RESULT: each run into a result allocated for it, as pagemtimes' result is (its
 * pages new where the allocator has none free of that size, as in the call).  *kernels_s (may
 * be NULL; the GPU's): the median run's kernels' own device time (tilemm_cuda_stats). */
static double own_batch_s (tilemm_backend_choice backend, int how, tilemm_type type, int64_t m,
                           int64_t n, int64_t k, int64_t pages, int runs, double *kernels_s,
                           tilemm_error *err)
{
  if (kernels_s)
    *kernels_s = 0;
  operands o;
  if (!operands_make (&o, type, m, n, k, pages))
    {
      tilemm_error_set (err, TILEMM_ENOMEM, "out of memory for %lld pages", (long long) pages);
      return -1;
    }
  tilemm_options options;
  own_options (&options, backend, NULL, NULL);
  const tilemm_operand x = operand_of (type, m, k, o.a), y = operand_of (type, k, n, o.b);
  const int64_t xd[3] = { m, k, pages }, yd[3] = { k, n, pages };
  tilemm_batch *batch = malloc (sizeof *batch);
  double best = -1, t_runs[MOST_RUNS], k_runs[MOST_RUNS];
  int done = 0;
  if (runs > MOST_RUNS)
    runs = MOST_RUNS;
  if (batch
      && tilemm_decide_batch (&x, 3, xd, TILEMM_OP_NONE, &y, 3, yd, TILEMM_OP_NONE, &options,
                              batch, err) == TILEMM_OK
      && batch->action == TILEMM_BATCH_COMPUTE)
    for (int r = -1; r < runs; r++)
      {
        void *fresh = how & OWN_FRESH_RESULT ? malloc (o.bytes_c ? o.bytes_c : 1) : NULL;
        if ((how & OWN_FRESH_RESULT) && !fresh)
          {
            tilemm_error_set (err, TILEMM_ENOMEM, "out of memory for a batch's result");
            done = 0;
            break;
          }
        const double t0 = tilemm_now_s ();
        const tilemm_status status
          = tilemm_batch_run (batch, &options, o.a, o.b, fresh ? fresh : o.c, err);
        const double t = tilemm_now_s () - t0;
        free (fresh);
        if (status != TILEMM_OK)
          {
            done = 0;
            break;
          }
        if (r >= 0)
          {
            tilemm_cuda_stats st;
            k_runs[done] = 0;
            if (backend == TILEMM_CHOOSE_GPU)
              {
                tilemm_cuda_last_stats (&st);
                k_runs[done] = st.kernels_ms * 1e-3;
              }
            t_runs[done++] = t;
          }
      }
  if (done > 0)
    best = median_and_its (t_runs, k_runs, done, kernels_s);
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

/* A page's cost on one thread, fixed + flops · per_flop, through two sizes' (seconds a page,
 * flops a page): p1 = fixed + f1 · per_flop, p2 = fixed + f2 · per_flop; the larger size's
 * ratio alone where the two say nothing sensible (a rate not above zero). */
static void fit_page_cost (double p1, double f1, double p2, double f2, double *per_flop,
                           double *fixed)
{
  double pf = (p2 - p1) / (f2 - f1);
  if (!(pf > 0))
    pf = p2 / f2;
  *per_flop = pf;
  *fixed = p1 - f1 * pf;
}

/* The CPU's batched path: two sizes of pages too small to be tiled (computed directly), then two
 * sizes of tiled pages, each run over every thread; a page's cost on one thread is the batch's
 * time times the threads over the pages, a fixed part and the flops at one thread's rate, each
 * path its own (the direct loops run several times below the tiled kernels' rate: priced at the
 * tiled rate, a batch of 16 x 16 pages was put on the CPU at a third of its time). */
static int measure_cpu_batch (tilemm_machine_facts *f, tilemm_error *err)
{
  const double threads = (double) f->threads;
  const int64_t small_pages = 20000, direct_pages = 4000, mid_pages = 2000, large_pages = 200;
  const double small
    = own_batch_s (TILEMM_CHOOSE_CPU, 0, TILEMM_DOUBLE, 4, 4, 4, small_pages, 3, NULL, err);
  /* The largest direct page: DIRECT_SIDE^3 multiply-adds, no more than the direct path takes. */
  enum { DIRECT_SIDE = 16 };
  _Static_assert (DIRECT_SIDE * DIRECT_SIDE * DIRECT_SIDE <= TILEMM_BATCH_SMALL_PAGE_WORK,
                  "the direct pages' second size is computed directly");
  const double direct = own_batch_s (TILEMM_CHOOSE_CPU, 0, TILEMM_DOUBLE, DIRECT_SIDE, DIRECT_SIDE,
                                     DIRECT_SIDE, direct_pages, 3, NULL, err);
  const double mid
    = own_batch_s (TILEMM_CHOOSE_CPU, 0, TILEMM_DOUBLE, 24, 24, 24, mid_pages, 3, NULL, err);
  const double large = own_batch_s (TILEMM_CHOOSE_CPU, 0, TILEMM_DOUBLE, 96, 96, 96, large_pages, 3,
                                    NULL, err);
  if (!(small > 0 && direct > 0 && mid > 0 && large > 0))
    return 0;
  double per_flop, fixed;
  fit_page_cost (mid * threads / (double) mid_pages, tilemm_model_flops (TILEMM_DOUBLE, 24, 24, 24),
                 large * threads / (double) large_pages,
                 tilemm_model_flops (TILEMM_DOUBLE, 96, 96, 96), &per_flop, &fixed);
  f->cpu_thread_flops_per_s = 1.0 / per_flop;
  f->cpu_page_s = fixed > 1e-9 ? fixed : 1e-9;
  fit_page_cost (small * threads / (double) small_pages, tilemm_model_flops (TILEMM_DOUBLE, 4, 4, 4),
                 direct * threads / (double) direct_pages,
                 tilemm_model_flops (TILEMM_DOUBLE, DIRECT_SIDE, DIRECT_SIDE, DIRECT_SIDE),
                 &per_flop, &fixed);
  f->cpu_small_flops_per_s = 1.0 / per_flop;
  f->cpu_small_page_s = fixed > 1e-10 ? fixed : 1e-10;
  /* A batch of a few pages a thread, as a call makes it: what its region costs beyond the
   * pages' share, where that is more than the bare region's (measure_region). */
  if (f->threads > 1)
    {
      const int64_t few = 4 * (int64_t) f->threads;
      const double s = own_batch_s (TILEMM_CHOOSE_CPU, 0, TILEMM_DOUBLE, 16, 16, 16, few, 5, NULL, err);
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

/* Host copies of 32 MiB by the staging's own copy team (host_team.h), by team size, the median
 * of three: into pages already in memory (what an operand's copy into the pinned ring meets) and
 * into fresh ones, each faulted in by the copy (what a result's copy into the array the host has
 * just made for it meets).  What a GPU worker's copies get from as many threads. */
static void measure_copies (tilemm_machine_facts *f)
{
  enum { RUNS = 3 };
  const size_t bytes = (size_t) 32 << 20;
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
          double resident[RUNS], fresh[RUNS];
          int fresh_runs = 0;
          for (int r = 0; r < RUNS; r++)
            {
              double t0 = tilemm_now_s ();
              tilemm_parallel_copy_2d (team, t, dst, bytes, src, bytes, bytes, 1);
              resident[r] = tilemm_now_s () - t0;
              /* (A block this large is its own mapping: its pages are new at every malloc.) */
              unsigned char *fresh_dst = malloc (bytes);
              if (fresh_dst)
                {
                  t0 = tilemm_now_s ();
                  tilemm_parallel_copy_into_huge (team, t, fresh_dst, bytes, src, bytes, bytes,
                                                  1);
                  fresh[fresh_runs++] = tilemm_now_s () - t0;
                  free (fresh_dst);
                }
            }
          f->copy_threads[f->copy_points] = t;
          f->copy_bytes_per_s[f->copy_points] = (double) bytes / median_of (resident, RUNS);
          f->copy_fresh_bytes_per_s[f->copy_points++]
            = fresh_runs > 0 ? (double) bytes / median_of (fresh, fresh_runs) : 0;
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

/* The fixed cost c and the seconds per byte b of products whose kernels ran at `kernel_rate`:
 * fit_call's line through what each one's kernels leave of its time (never less than a
 * twentieth of it: a kernel's rate measured a little high must not leave nothing).  At most
 * FIT_MOST products. */
enum { FIT_MOST = 16 };
static void fit_beside_kernels (const double *bytes, const double *flops, const double *s,
                                int count, double kernel_rate, double *c, double *b)
{
  double left[FIT_MOST], zero[FIT_MOST], unused;
  if (count > FIT_MOST)
    count = FIT_MOST;
  for (int i = 0; i < count; i++)
    {
      left[i] = s[i] - flops[i] / kernel_rate;
      if (left[i] < 0.05 * s[i])
        left[i] = 0.05 * s[i];
      zero[i] = 0;
    }
  fit_call (bytes, zero, left, count, c, b, &unused);
}

static double product_bytes (tilemm_type type, double n)
{
  return (double) tilemm_type_size (type) * 3.0 * n * n;
}

/* The GPU's sizes: doubling from GPU_SIZES[0] until a product takes GPU_RUN_S (after at least
 * GPU_LEAST points) or the list ends. */
static const int64_t GPU_SIZES[] = { 128, 256, 512, 1024, 2048, 4096, 8192 };
enum { GPU_NSIZES = sizeof GPU_SIZES / sizeof GPU_SIZES[0], GPU_LEAST = 3 };
_Static_assert ((int) GPU_NSIZES <= (int) FIT_MOST, "the plain call's sizes fit fit_beside_kernels");
static const double GPU_RUN_S = 0.03;
/* The GPU's end-to-end curves reach this size (the fitted line serves past it). */
static const int64_t GPU_CURVE_LARGEST = 2048;

typedef struct {
  tilemm_workers one, all;
  int count;                       /* sizes measured on one GPU                  */
  double bytes[GPU_NSIZES], flops[GPU_NSIZES], s1[GPU_NSIZES];
  double bus_s_per_byte;           /* the fit's bus term                         */
  const operands *pool;
  const tilemm_machine_facts *facts; /* the facts measured so far: the GPU products'
                                        decisions read them, as a call's read the store's */
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
  double compute_ms, kernel = 0;
  g->count = 0;
  for (int i = 0; i < GPU_NSIZES && GPU_SIZES[i] <= largest; i++)
    {
      const int64_t n = GPU_SIZES[i];
      g->bytes[i] = product_bytes (TILEMM_DOUBLE, (double) n);
      g->flops[i] = tilemm_model_flops (TILEMM_DOUBLE, (double) n, (double) n, (double) n);
      g->s1[i] = own_product_s (TILEMM_CHOOSE_GPU, &g->one, g->facts, g->pool, 0, TILEMM_DOUBLE, n, n, n,
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
  double c, b;
  fit_beside_kernels (g->bytes, g->flops, g->s1, g->count, kernel, &c, &b);
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
        = own_product_s (TILEMM_CHOOSE_GPU, &g->one, g->facts, g->pool, 0, ty, n, n, n, 3,
                         &compute_ms, err);
      if (!(s > 0))
        return failed (err);
      const double fl = tilemm_model_flops (ty, (double) n, (double) n, (double) n);
      const double rate = compute_ms > 0 ? fl / (compute_ms * 1e-3) : kernel;
      f->gpu_kernel_flops_per_s[ty] = rate;
      f->gpu[0].kernel_flops_per_s[ty] = rate;
    }
  return TILEMM_OK;
}

/* Every GPU together against one: seconds = all_call + (one GPU's seconds - its fixed cost) /
 * speedup, fitted over the last three of doubling sizes from 256 up to where one GPU's product
 * takes GPU_RUN_S (least squares in relative terms), both timed here at each size. */
static tilemm_status measure_all_gpus (tilemm_machine_facts *f, const gpu_run *g,
                                       tilemm_error *err)
{
  enum { MOST = 6, FITTED = 3 };
  static const int64_t sizes[MOST] = { 256, 512, 1024, 2048, 4096, 8192 };
  double one[MOST], all[MOST], filled = 0;
  int count = 0;
  memset (&f->gpu_all_one, 0, sizeof f->gpu_all_one);
  memset (&f->gpu_all_every, 0, sizeof f->gpu_all_every);
  for (; count < MOST; count++)
    {
      /* Three sizes at least, then until one GPU's product takes GPU_RUN_S. */
      if (count >= FITTED && one[count - 1] > GPU_RUN_S)
        break;
      const int64_t n = sizes[count];
      const int runs = runs_for (count > 0 ? 8 * one[count - 1] : 1e-3);
      /* Each run into a new result, as a script's calls write theirs: its pages' first touch is
       * a share of the host's copies that several GPUs' teams do not divide. */
      double compute_ms = 0;
      one[count] = own_product_s (TILEMM_CHOOSE_GPU, &g->one, g->facts, g->pool,
                                  OWN_FRESH_RESULT, TILEMM_DOUBLE, n, n, n, runs, &compute_ms,
                                  err);
      all[count] = one[count] > 0 ? own_product_s (TILEMM_CHOOSE_GPU, &g->all, g->facts, g->pool,
                                                   OWN_FRESH_RESULT, TILEMM_DOUBLE, n, n, n,
                                                   runs, NULL, err)
                                  : -1;
      if (!(all[count] > 0))
        return failed (err);
      /* Each size kept (the gain measured as a function of size, gpus_model.h), and the
       * kernels' rate where the larger sizes fill the GPU (their compute window includes the
       * kernels' waits for copies: a rate no higher than the kernels'). */
      const double flops = tilemm_model_flops (TILEMM_DOUBLE, (double) n, (double) n, (double) n);
      tilemm_curve_add (&f->gpu_all_one, flops, one[count]);
      tilemm_curve_add (&f->gpu_all_every, flops, all[count]);
      if (compute_ms > 0 && flops / (compute_ms * 1e-3) > filled)
        filled = flops / (compute_ms * 1e-3);
    }
  f->gpu_filled_flops_per_s
    = filled > f->gpu_kernel_flops_per_s[TILEMM_DOUBLE] ? filled : 0;
  double sx = 0, sy = 0, sxx = 0, sxy = 0, sw = 0;
  for (int i = count - FITTED; i < count; i++)
    {
      const double s = all[i], w = 1.0 / (s * s), x = one[i] - f->gpu_call_s;
      sw += w, sx += w * x, sy += w * s, sxx += w * x * x, sxy += w * x * s;
    }
  const double det = sw * sxx - sx * sx;
  double slope = det != 0 ? (sw * sxy - sx * sy) / det : 0;
  double intercept = det != 0 ? (sy - slope * sx) / sw : 0;
  if (!(slope > 0) || intercept < 0)
    {
      /* A fit that says nothing sensible: the largest size's ratio alone. */
      slope = all[count - 1] / one[count - 1];
      intercept = f->gpu_call_s;
    }
  f->gpu_all_count = g->all.count;
  f->gpu_all_call_s = intercept;
  f->gpu_all_speedup = 1.0 / slope;
  return TILEMM_OK;
}

/* The largest of measure_gpu_batch's points (128 x 128 x 160 and 256 x 256 x 40: three arrays
 * of double) copies on one thread, as every batch under the team's bytes does. */
#define GPU_BATCH_LARGEST_BYTES (3LL * 8 * 128 * 128 * 160)
_Static_assert (GPU_BATCH_LARGEST_BYTES < TILEMM_BATCH_COPY_TEAM_MIN_BYTES,
                "the GPU batch calibration's points copy on one thread");
_Static_assert (3LL * 8 * 256 * 256 * 40 <= GPU_BATCH_LARGEST_BYTES, "the largest point is named");

/* A batch of pages on one GPU at five points (few and many small pages, mid and larger pages),
 * every one under the bytes from which a batch copies with a team (the model prices those from
 * the host's copy rates): its kernels' rate from their own device time (CUDA events: the best of
 * the points, as a plain product's), then its fixed cost and its bytes' rate fitted to what is
 * left of each point's time.  Fitted with the three terms at once, the line was ill-conditioned
 * (the points' bytes and flops grow together, and the small pages' kernels run below the large
 * pages' rate): two calibrations of one machine put the rate far apart (bench/RESULTS.md).
 * The three terms are fitted together only where the kernels were not timed.  As pagemtimes runs them:
 * each run into a result of its own (a larger point blended a team's copies into the line, and
 * the model priced a few large pages fast).  Not measured where a batch cannot run (the
 * model's figures stay). */
static void measure_gpu_batch (tilemm_machine_facts *f)
{
  enum { POINTS = 5 };
  static const int64_t side[POINTS] = { 16, 16, 64, 128, 256 };
  static const int64_t pages[POINTS] = { 200, 4000, 500, 160, 40 };
  double bytes[POINTS], flops[POINTS], s[POINTS], kernels[POINTS], kernel_rate = 0;
  for (int i = 0; i < POINTS; i++)
    {
      tilemm_error err = { TILEMM_OK, "" };
      const double n = (double) side[i];
      s[i] = own_batch_s (TILEMM_CHOOSE_GPU, OWN_FRESH_RESULT, TILEMM_DOUBLE, side[i], side[i],
                          side[i], pages[i], 3, &kernels[i], &err);
      if (!(s[i] > 0))
        return;
      bytes[i] = (double) pages[i] * product_bytes (TILEMM_DOUBLE, n);
      flops[i] = (double) pages[i] * tilemm_model_flops (TILEMM_DOUBLE, n, n, n);
      if (kernels[i] > 0 && flops[i] / kernels[i] > kernel_rate)
        kernel_rate = flops[i] / kernels[i];
    }
  double c, b, pf;
  if (kernel_rate > 0)
    {
      fit_beside_kernels (bytes, flops, s, POINTS, kernel_rate, &c, &b);
      pf = 1.0 / kernel_rate;
    }
  else
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
  /* The largest square product to 2048 that one GPU's call (as measured) runs within GPU_RUN_S:
   * its kernels run at their rate there, and a slow device (the stand-in) is not held long. */
  int64_t n = 256;
  while (n < 2048
         && tilemm_model_gpu_call_s (f, TILEMM_DOUBLE, product_bytes (TILEMM_DOUBLE, 2.0 * n),
                                     tilemm_model_flops (TILEMM_DOUBLE, 2.0 * n, 2.0 * n, 2.0 * n))
              < GPU_RUN_S)
    n *= 2;
  const double flops = tilemm_model_flops (TILEMM_DOUBLE, (double) n, (double) n, (double) n);
  /* The peer rate: the slowest receiver's, where every GPU received (0: some pair cannot
   * reach, or one GPU). */
  f->gpu_peer_bytes_per_s = g->all.count > 1 ? rates[0].peer : 0;
  for (int i = 1; i < g->all.count; i++)
    f->gpu_peer_bytes_per_s = rates[i].peer < f->gpu_peer_bytes_per_s ? rates[i].peer
                                                                       : f->gpu_peer_bytes_per_s;
  for (int i = 0; i < g->all.count; i++)
    {
      tilemm_gpu_facts *d = &f->gpu[i];
      d->up_bytes_per_s = rates[i].up, d->down_bytes_per_s = rates[i].down;
      d->up_busy_bytes_per_s = rates[i].up_busy, d->down_busy_bytes_per_s = rates[i].down_busy;
      d->ordinal = g->all.device[i];
      double compute_ms = 0;
      const tilemm_workers that = { 1, { g->all.device[i] } };
      if (d->ordinal != g->one.device[0]
          && own_product_s (TILEMM_CHOOSE_GPU, &that, g->facts, g->pool, 0, TILEMM_DOUBLE, n,
                            n, n, 3, &compute_ms, err) > 0
          && compute_ms > 0)
        d->kernel_flops_per_s[TILEMM_DOUBLE] = flops / (compute_ms * 1e-3);
      tilemm_device_info info;
      tilemm_error e2 = { TILEMM_OK, "" };
      if (tilemm_cuda_device_info (g->all.device[i], &info, &e2) == TILEMM_OK)
        snprintf (d->name, sizeof d->name, "%.127s", info.name);
    }
  tilemm_error e3 = { TILEMM_OK, "" };
  const double s = own_product_s (TILEMM_CHOOSE_GPU, &g->one, g->facts, g->pool, OWN_EMULATED,
                                  TILEMM_DOUBLE, n, n, n,
                                  2, NULL, &e3);
  if (s > 0)
    for (int i = 0; i < g->all.count; i++)
      if (f->gpu[i].ordinal == g->one.device[0])
        f->gpu[i].emulated_flops_per_s = flops / s;
  return TILEMM_OK;
}

/* The GPUs calibration measures: the caller's alone, and every usable one; 0 where none is
 * usable (then nothing of the GPUs is measured and "auto" never asks them). */
static int gpu_run_begin (gpu_run *g)
{
  tilemm_device_facts gpu;
  tilemm_backend_facts (TILEMM_BACKEND_CUDA, 0, &gpu);
  memset (g, 0, sizeof *g);
  if (!gpu.usable || gpu.count < 1)
    return 0;
  g->one.count = 1;
  g->one.device[0] = gpu.current >= 0 ? gpu.current : gpu.device[0];
  g->all.count = gpu.count < TILEMM_MAX_WORKERS ? gpu.count : TILEMM_MAX_WORKERS;
  for (int i = 0; i < g->all.count; i++)
    g->all.device[i] = gpu.device[i];
  return 1;
}

/* One GPU's call (TILEMM_FACTS_GPU): its fixed cost, bus and kernels' rates. */
static tilemm_status measure_gpu_call (tilemm_machine_facts *f, gpu_run *g, tilemm_error *err)
{
  /* To 2048, the operands' pool (past it the fitted line serves): a first call waits for this
   * part, and a 4096 product makes operands of its own and grows every buffer of the worker. */
  const tilemm_status status = measure_one_gpu (f, g, 2048, err);
  if (status != TILEMM_OK)
    return status;
  f->gpus = g->all.count;
  f->gpu_measured = 1;
  return TILEMM_OK;
}

/* Every GPU (TILEMM_FACTS_GPUS): each one's links and kernels, the emulated precision's rate,
 * then all together against one where there are several.  Each GPU first: a call on several
 * GPUs gives each its strip by their kernel rates (call_plan.c, worker_rates), so the products
 * timed together are cut as a call's only once those rates are facts. */
static tilemm_status measure_every_gpu (tilemm_machine_facts *f, gpu_run *g, tilemm_error *err)
{
  f->gpu_all_count = 0;
  f->gpu_filled_flops_per_s = 0;
  tilemm_status status = measure_each_gpu (f, g, err);
  if (status == TILEMM_OK && g->all.count > 1)
    status = measure_all_gpus (f, g, err);
  return status;
}

/* The emulated precision's int8 GEMM on the caller's GPU (TILEMM_FACTS_INT8): its modular GEMMs
 * of a square product timed on the device, with the int8 GEMM a call's plan takes there.  Kept
 * as the model's where the backend cannot time it. */
static tilemm_status measure_int8 (tilemm_machine_facts *f, const gpu_run *g, tilemm_error *err)
{
  /* Large enough to fill the GPU with tiles (its rate, not a tail wave), small enough to take
   * a fraction of a second and little memory. */
  const int64_t n = 4096;
  const tilemm_backend_ops *ops = tilemm_backend_find (TILEMM_BACKEND_CUDA);
  if (!ops || !ops->int8_rate)
    return TILEMM_OK;
  tilemm_device_facts gpu;
  tilemm_backend_facts (TILEMM_BACKEND_CUDA, 0, &gpu);
  double rate = 0;
  if (ops->int8_rate (g->one.device[0], n, (int) tilemm_emu_gemm_named ("", gpu.wgmma), &rate,
                      err) != TILEMM_OK)
    return failed (err);
  if (rate > 0)
    f->gpu_int8_ops_per_s = rate;
  return TILEMM_OK;
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

/* ---------------------------------------------------------------- the ways of one type */

/* The ways whose curves TILEMM_FACTS_WAYS holds. */
enum { WAY_HOST, WAY_CPU, WAY_GPU, NWAYS_MEASURED };

/* The ways of one type measured together, point by point: at each size, each way's runs
 * alternate with the others' (the host's `*` first, then tilemm's CPU backend and one GPU), as
 * a script that alternates `*` with tilemm runs them: a multithreaded BLAS's threads spinning
 * after its call, or a team that waits for a late thread, are in the figures.  Each point is the
 * median of its runs, with their mean over it (the curve's episodes).  A way stops growing past
 * a point of CURVE_RUN_S or its largest size; all of them once the ways took WAYS_BUDGET_S.
 *
 * A point whose median is far out of line with the way's last (more than WAYS_OUT_OF_LINE times
 * the last point's time scaled by the flops) is taken again once, after a pause long enough for
 * another library's idle threads to go to sleep (OpenBLAS's spin about 0.1 s after a call), and
 * the lower median kept: a point of the host's `*` slowed in every run (another library's
 * threads beside it) spent the budget, every curve ended there, and the model extrapolated the
 * larger sizes from it, hundreds of times slow (bench/RESULTS.md).  Its time is not the
 * budget's. */
static const double WAYS_BUDGET_S = 0.3;
static const double WAYS_OUT_OF_LINE = 4.0;
enum { WAY_RUNS_MOST = 9 };

/* One point of measure_ways: `runs` runs of n×n×n of each growing way, alternating, into t. */
static tilemm_status ways_point (const tilemm_host_product *host, const gpu_run *g,
                                 tilemm_type type, int64_t n, const int *growing, int runs,
                                 double t[][WAY_RUNS_MOST], tilemm_error *err)
{
  own_call ours[NWAYS_MEASURED];
  int begun[NWAYS_MEASURED] = { 0, 0, 0 };
  tilemm_status status = TILEMM_OK;
  if (growing[WAY_CPU])
    begun[WAY_CPU] = own_call_begin (&ours[WAY_CPU], TILEMM_CHOOSE_CPU, NULL, NULL, NULL, 0,
                                     type, n, n, n, err);
  if (growing[WAY_GPU] && (begun[WAY_CPU] || !growing[WAY_CPU]))
    begun[WAY_GPU] = own_call_begin (&ours[WAY_GPU], TILEMM_CHOOSE_GPU, &g->one, g->facts,
                                     type == TILEMM_DOUBLE ? g->pool : NULL, 0, type, n, n, n,
                                     err);
  if ((growing[WAY_CPU] && !begun[WAY_CPU]) || (growing[WAY_GPU] && !begun[WAY_GPU]))
    status = failed (err);
  /* One run of each of ours not timed (the host's product has its own, in its callback). */
  for (int w = WAY_CPU; w < NWAYS_MEASURED && status == TILEMM_OK; w++)
    if (growing[w] && own_call_run (&ours[w], NULL, err) < 0)
      status = failed (err);
  for (int r = 0; r < runs && status == TILEMM_OK; r++)
    for (int w = 0; w < NWAYS_MEASURED && status == TILEMM_OK; w++)
      {
        if (!growing[w])
          continue;
        t[w][r] = w == WAY_HOST ? host->seconds (host->ctx, type, n, n, n, 1)
                                : own_call_run (&ours[w], NULL, err);
        if (!(t[w][r] > 0))
          status = w == WAY_HOST ? tilemm_error_set (err, TILEMM_EINVAL,
                                                     "the host's product could not be timed")
                                 : failed (err);
      }
  for (int w = WAY_CPU; w < NWAYS_MEASURED; w++)
    if (begun[w])
      own_call_end (&ours[w]);
  return status;
}

static tilemm_status measure_ways (tilemm_machine_facts *f, const tilemm_host_product *host,
                                   const gpu_run *g, tilemm_type type, tilemm_error *err)
{
  tilemm_curve *curve[NWAYS_MEASURED] = { &f->host[type], &f->cpu[type], &f->gpu_curve[type] };
  const int64_t largest[NWAYS_MEASURED] = { 2048, 2048, GPU_CURVE_LARGEST };
  int growing[NWAYS_MEASURED] = { host && host->seconds, 1, g != NULL };
  double last[NWAYS_MEASURED] = { 1e-6, 1e-6, 1e-6 }, last_flops = 0;
  for (int w = 0; w < NWAYS_MEASURED; w++)
    if (growing[w])
      memset (curve[w], 0, sizeof *curve[w]);
  double start = tilemm_now_s ();
  for (size_t i = 0; i < sizeof CURVE_SIZES / sizeof CURVE_SIZES[0]; i++)
    {
      const int64_t n = CURVE_SIZES[i];
      /* One round's cost, guessed from the last point's (8 times the flops): the host's callback
       * makes its operands and runs once untimed before each timed run. */
      const double fill_s = 3.0 * (double) n * (double) n * (double) tilemm_type_size (type) / 1e9;
      double round_s = 0;
      int any = 0;
      for (int w = 0; w < NWAYS_MEASURED; w++)
        {
          growing[w] = growing[w] && n <= largest[w];
          any |= growing[w];
          round_s += !growing[w] ? 0 : w == WAY_HOST ? 16 * last[w] + fill_s : 8 * last[w];
        }
      if (!any)
        break;
      int runs = runs_for (round_s);
      runs = runs < 3 ? 3 : runs > WAY_RUNS_MOST ? WAY_RUNS_MOST : runs;
      /* A point that would overrun the budget is not begun, once each curve has three. */
      const double left = WAYS_BUDGET_S - (tilemm_now_s () - start);
      if (i >= 3 && (double) runs * round_s > left)
        {
          if ((double) 3 * round_s > left)
            break;
          runs = (int) (left / round_s);
        }
      const double flops = tilemm_model_flops (type, (double) n, (double) n, (double) n);
      double t[NWAYS_MEASURED][WAY_RUNS_MOST], median[NWAYS_MEASURED], mean[NWAYS_MEASURED];
      for (int attempt = 0; attempt < 2; attempt++)
        {
          const double t0 = tilemm_now_s ();
          const tilemm_status status = ways_point (host, g, type, n, growing, runs, t, err);
          if (status != TILEMM_OK)
            return status;
          int out_of_line = 0;
          for (int w = 0; w < NWAYS_MEASURED; w++)
            if (growing[w])
              {
                const double md = median_of (t[w], runs), mn = mean_of (t[w], runs);
                if (attempt == 0 || md < median[w])
                  median[w] = md, mean[w] = mn;
                out_of_line |= attempt == 0 && last_flops > 0
                               && md > WAYS_OUT_OF_LINE * last[w] * (flops / last_flops);
              }
          if (!out_of_line)
            break;
          /* Again after a pause; the point out of line and the pause not the budget's. */
          const struct timespec pause = { 0, 150 * 1000 * 1000 };
          nanosleep (&pause, NULL);
          start += tilemm_now_s () - t0;
        }
      for (int w = 0; w < NWAYS_MEASURED; w++)
        if (growing[w])
          {
            /* (A mean below the median: runs faster now and then, no episodes: 1.) */
            tilemm_curve_add_episodes (curve[w], flops, median[w], fmax (1.0, mean[w] / median[w]));
            last[w] = median[w];
            growing[w] = median[w] <= CURVE_RUN_S;
          }
      last_flops = flops;
      if (tilemm_now_s () - start > WAYS_BUDGET_S)
        break;
    }
  return TILEMM_OK;
}

/* ---------------------------------------------------------------- all of it */

/* The pages: the CPU's batched path and its region, a GPU's batch, the host's loop of `*`. */
static tilemm_status measure_pages (tilemm_machine_facts *f, const tilemm_host_product *host,
                                    const gpu_run *g, tilemm_error *err)
{
  measure_region (f);
  if (!measure_cpu_batch (f, err))
    return err->status != TILEMM_OK ? err->status : TILEMM_EINVAL;
  if (g)
    measure_gpu_batch (f);
  for (int t = 0; t < TILEMM_NTYPES; t++)
    {
      if (host && host->pages_seconds)
        {
          if (!measure_curve (&f->host_page[t], host_page_point, (void *) host, (tilemm_type) t,
                              PAGE_LARGEST, err))
            return err->status != TILEMM_OK ? err->status : TILEMM_EINVAL;
        }
      else if (f->host[t].points > 0)
        f->host_page[t] = f->host[t];   /* a page costs what one product does */
    }
  return TILEMM_OK;
}

tilemm_status tilemm_calibrate_parts (const tilemm_host_product *host, unsigned parts,
                                      tilemm_machine_facts *f, tilemm_error *err)
{
  const double start = tilemm_now_s ();
  cpu_sample before, after;
  const int sampled = cpu_sample_take (&before);
  tilemm_host_facts cpus;
  tilemm_host_facts_gather (&cpus);
  f->threads = cpus.threads > 0 ? cpus.threads : 1;
  tilemm_host_blas_gather (&f->host_blas);
  /* What the GPU's curves and the pages read is measured with them: one GPU's call. */
  gpu_run g;
  const int gpus = (parts & ~TILEMM_FACTS_COPIES) && gpu_run_begin (&g);
  operands pool;
  memset (&pool, 0, sizeof pool);
  tilemm_status status = TILEMM_OK;
  if (gpus)
    {
      /* One set of operands for the GPU's products up to 2048 (larger ones make their own). */
      if (!operands_make (&pool, TILEMM_DOUBLE, 2048, 2048, 2048, 1))
        return tilemm_error_set (err, TILEMM_ENOMEM, "out of memory for the GPU's calibration");
      g.pool = &pool;
      g.facts = f;
    }
  else
    f->gpus = 0;
  double t0 = tilemm_now_s ();
#define TOOK(bit)                                                                           \
  do                                                                                        \
    {                                                                                       \
      const double t1 = tilemm_now_s ();                                                    \
      f->part_s[bit] = t1 - t0;                                                             \
      t0 = t1;                                                                              \
    }                                                                                       \
  while (0)
  if (parts & TILEMM_FACTS_COPIES)
    {
      measure_copies (f);
      TOOK (0);
    }
  if (gpus && (parts & (TILEMM_FACTS_GPU | TILEMM_FACTS_GPUS)))
    {
      status = measure_gpu_call (f, &g, err);
      TOOK (6);
    }
  for (int t = 0; t < TILEMM_NTYPES && status == TILEMM_OK; t++)
    if (parts & TILEMM_FACTS_WAYS (t))
      {
        status = measure_ways (f, host, gpus ? &g : NULL, (tilemm_type) t, err);
        TOOK (1 + t);
      }
  if (status == TILEMM_OK && (parts & TILEMM_FACTS_PAGES))
    {
      status = measure_pages (f, host, gpus ? &g : NULL, err);
      TOOK (5);
    }
  if (status == TILEMM_OK && gpus && (parts & TILEMM_FACTS_GPUS))
    {
      status = measure_every_gpu (f, &g, err);
      TOOK (7);
    }
  if (status == TILEMM_OK && gpus && (parts & TILEMM_FACTS_INT8))
    {
      status = measure_int8 (f, &g, err);
      TOOK (8);
    }
#undef TOOK
  operands_free (&pool);
  if (status != TILEMM_OK)
    return status;
  /* Parts that need a GPU are measured, as none, where there is none. */
  f->parts |= parts;
  const unsigned ways = TILEMM_FACTS_WAYS (0) | TILEMM_FACTS_WAYS (1) | TILEMM_FACTS_WAYS (2)
                        | TILEMM_FACTS_WAYS (3);
  f->cpu_measured = (f->parts & ways) != 0;
  f->host_measured = f->cpu_measured && host && host->seconds;
  f->measured_s += tilemm_now_s () - start;
  const double share = sampled && cpu_sample_take (&after) ? others_share (&before, &after) : -1;
  if (share > f->others_cpu_share)
    f->others_cpu_share = share;
  f->origin = TILEMM_FACTS_MEASURED;
  return tilemm_error_set (err, TILEMM_OK, NULL);
}

tilemm_status tilemm_calibrate (const tilemm_host_product *host, tilemm_machine_facts *f,
                                tilemm_error *err)
{
  tilemm_facts_model (f, NULL);
  f->key[0] = '\0';
  f->parts = 0;
  f->measured_s = 0;
  f->others_cpu_share = -1;
  return tilemm_calibrate_parts (host, TILEMM_FACTS_ALL, f, err);
}
