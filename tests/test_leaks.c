/* test_leaks.c — 10,000 mixed calls through the rules every front end follows (front.h: options,
 * decision, run, narrowing), after which the memory in use is back where it started.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 *
 * The calls mix sizes (0 to 24, scalars, vectors; 1 in 50 up to 130), classes (double, single, complex, logical,
 * char, integers), backends ("cpu", "gpu", "auto"), panels (small max_device_bytes) and errors:
 * bad options, nonconformant operands, delegated ones, "gpu" with no GPU, a limit too small to
 * plan, stops from the interrupt callback, and (where the CUDA backend is built) failures
 * injected with TILEMM_FAULT.  Each call allocates and frees its operands as a front end does;
 * every status is checked against what the call demands and one result in eight against a
 * long-double reference.  Built three ways (src/Makefile.in):
 *   test_leaks_cpu   core + CPU backend, no CUDA: run under valgrind --leak-check=full in CI
 *                    (tests/valgrind.sh), which proves every host byte is given back;
 *   test_leaks_mock  core + the CUDA backend on the stand-in runtime (tests/mock_cuda): the GPU
 *                    path's faults and stops, its device and pinned bytes, streams and events
 *                    counted by the runtime's own books; and every fault and every stop of one
 *                    product in panels (every_fault_and_stop);
 *   test_leaks_gpu   core + the real CUDA backend, for the GPU machine (skips its GPU part
 *                    without one): device memory in use by cudaMemGetInfo, and every fault and
 *                    every stop on the real runtime.
 * Host memory is also compared with glibc's mallinfo2 (bytes in use), with glibc's per-thread
 * cache of freed chunks turned off (the program runs itself again with GLIBC_TUNABLES set): that
 * cache counts as "in use" and grows with every new size freed.  Any leaked block is a chunk of
 * 32 bytes or more, so a leak in even one call in twenty exceeds the tolerance (16 KiB).
 */
#define _POSIX_C_SOURCE 200809L /* setenv, unsetenv */

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "backend.h"
#include "check.h"
#include "fault.h"
#include "front.h"

#ifdef TILEMM_TEST_MOCK
#include "cuda_runtime_api.h" /* the stand-in runtime's books (tests/mock_cuda) */
#endif

/* Gives back everything tilemm keeps on the GPU between calls: the workspaces' buffers (the
 * split-k scratch and the emulated arena among them), streams, events and pinned ring. */
static void release_all (void)
{
  tilemm_cuda_release ();
}

#ifndef TILEMM_LEAKS_CALLS
#define TILEMM_LEAKS_CALLS 10000
#endif

static unsigned long long rng_state = 0x9E3779B97F4A7C15ull;
static unsigned next_u32 (void)
{
  rng_state ^= rng_state >> 12;
  rng_state ^= rng_state << 25;
  rng_state ^= rng_state >> 27;
  return (unsigned) ((rng_state * 0x2545F4914F6CDD1Dull) >> 32);
}
static int below (int n)
{
  return (int) (next_u32 () % (unsigned) n);
}

#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
#define HAVE_MALLINFO2 1
#endif

/* Heap bytes in use; 0 when unknown (no mallinfo2, the cache of freed chunks on, valgrind). */
static size_t host_bytes_in_use (void)
{
#ifdef HAVE_MALLINFO2
  const char *t = getenv ("GLIBC_TUNABLES");
  if (t && strstr (t, "glibc.malloc.tcache_count=0"))
    return mallinfo2 ().uordblks;
#endif
  return 0;
}

/* Runs this program again with glibc's cache of freed chunks off (see the top); returns only
 * when that is not possible or already done. */
static void rerun_without_tcache (char **argv)
{
#ifdef HAVE_MALLINFO2
  const char *t = getenv ("GLIBC_TUNABLES");
  if ((t && strstr (t, "glibc.malloc.tcache_count=0")) || getenv ("TILEMM_LEAKS_RERUN"))
    return;
  char value[1024];
  snprintf (value, sizeof value, "%s%sglibc.malloc.tcache_count=0", t ? t : "", t ? ":" : "");
  setenv ("GLIBC_TUNABLES", value, 1);
  setenv ("TILEMM_LEAKS_RERUN", "1", 1);
  fflush (stdout);
  execv ("/proc/self/exe", argv);
#else
  (void) argv;
#endif
}

/* Device memory in use on the current GPU (total - free), 0 where there is none. */
static size_t device_bytes_in_use (void)
{
  tilemm_device_info info;
  const int dev = tilemm_cuda_current_device ();
  if (dev < 0 || tilemm_cuda_device_info (dev, &info, NULL) != TILEMM_OK)
    return 0;
  return info.total_memory - info.free_memory;
}

/* A stop callback that says "stop" at its `after`th poll. */
typedef struct {
  int polls, after;
} stop_state;
static int stop_at (void *arg)
{
  stop_state *s = (stop_state *) arg;
  return ++s->polls >= s->after;
}

/* ---------------------------------------------------------------- one call */

typedef struct {
  long calls, options_bad, delegated, filled, nogpu, computed, gpu_runs, faults_armed,
    faults_hit, stops_armed, stopped, limit_too_small, checked, narrowed;
} mix_counts;

static const tilemm_class classes[] = { TILEMM_CLASS_DOUBLE, TILEMM_CLASS_SINGLE,
                                        TILEMM_CLASS_DOUBLE, TILEMM_CLASS_SINGLE,
                                        TILEMM_CLASS_LOGICAL, TILEMM_CLASS_CHAR,
                                        TILEMM_CLASS_INTEGER };

static tilemm_operand random_operand (int64_t rows, int64_t cols)
{
  tilemm_operand o;
  o.cls = classes[below ((int) (sizeof classes / sizeof classes[0]))];
  o.is_complex = (o.cls == TILEMM_CLASS_DOUBLE || o.cls == TILEMM_CLASS_SINGLE) && below (3) == 0;
  o.is_sparse = 0;
  o.ndims = 2;
  o.rows = rows;
  o.cols = cols;
  o.is_structured = 0;
  o.identity = NULL;
  o.host_two_real = 0;
  return o;
}

static int64_t random_size (void)
{
  const int r = below (16);
  return r == 0 ? 0 : r == 1 ? 1 : 1 + below (24);
}

/* Element (i, j), real and imaginary part, of a column-major m-row buffer. */
static void element (const void *data, int single, int cplx, int64_t m, int64_t i, int64_t j,
                     long double *re, long double *im)
{
  const size_t at = (size_t) (i + j * m) * (cplx ? 2 : 1);
  if (single)
    {
      *re = ((const float *) data)[at];
      *im = cplx ? ((const float *) data)[at + 1] : 0;
    }
  else
    {
      *re = ((const double *) data)[at];
      *im = cplx ? ((const double *) data)[at + 1] : 0;
    }
}

/* Elements of C outside 8·eps·(k+1)·Σ|a||b| of the long-double product. */
static long wrong_elements (const tilemm_route *r, const void *a, int a_cplx, const void *b,
                            int b_cplx, const void *c)
{
  const int single = r->result_class == TILEMM_CLASS_SINGLE;
  const long double eps = single ? 1.1920929e-7L : 2.220446e-16L;
  long wrong = 0;
  for (int64_t j = 0; j < r->n; j++)
    for (int64_t i = 0; i < r->m; i++)
      {
        long double re = 0, im = 0, bound = 0;
        for (int64_t q = 0; q < r->k; q++)
          {
            long double ar, ai, br, bi;
            element (a, single, a_cplx, r->m, i, q, &ar, &ai);
            element (b, single, b_cplx, r->k, q, j, &br, &bi);
            re += ar * br - ai * bi;
            im += ar * bi + ai * br;
            bound += (fabsl (ar) + fabsl (ai)) * (fabsl (br) + fabsl (bi));
          }
        bound *= 8 * eps * (long double) (r->k + 1);
        long double cr, ci;
        element (c, single, r->result_complex, r->m, i, j, &cr, &ci);
        if (!(fabsl (cr - re) <= bound) || !(fabsl (ci - im) <= bound))
          wrong++;
      }
  return wrong;
}

static void *random_buffer (size_t count, int single)
{
  void *p = malloc (count * (single ? sizeof (float) : sizeof (double)) + 1);
  for (size_t i = 0; i < count; i++)
    {
      const double v = (double) (next_u32 () % 2001) / 1000.0 - 1.0;
      if (single)
        ((float *) p)[i] = (float) v;
      else
        ((double *) p)[i] = v;
    }
  return p;
}

/* One call, as a front end makes it.  gpu: whether the GPU path can run here. */
static void one_call (int gpu, mix_counts *mc)
{
  mc->calls++;
  /* 1 call in 50 larger: several tiles, tile rows and panels to stop between. */
  const int big = below (50) == 0;
  const int64_t m = big ? 30 + below (100) : random_size ();
  const int64_t k = big ? 30 + below (100) : random_size ();
  const int64_t kb = below (20) == 0 ? k + 1 + below (3) : k; /* 1 in 20: nonconformant */
  const int64_t n = big ? 30 + below (100) : random_size ();
  const tilemm_operand da = random_operand (m, k), db = random_operand (kb, n);

  tilemm_options o;
  tilemm_options_init (&o);
  tilemm_error err = { TILEMM_OK, "" };
  static const char *const backends[] = { "cpu", "cpu", "gpu", "auto" };
  tilemm_value v = { TILEMM_VALUE_STRING, backends[below (4)], 0, NULL, 0 };
  const int option_kind = below (20);
  tilemm_status s = tilemm_options_set (&o, "backend", &v, &err);
  CHECK (s == TILEMM_OK, "backend %s: %s", v.string, err.detail);
  if (option_kind == 0) /* a bad option: the front end raises tilemm:badoption */
    {
      static const char *const names[] = { "colour", "backend", "max_device_bytes" };
      const int which = below (3);
      const tilemm_value bad = which == 1 ? (tilemm_value) { TILEMM_VALUE_STRING, "tpu", 0, NULL, 0 }
                                          : (tilemm_value) { TILEMM_VALUE_REAL_SCALAR, "", -1, NULL, 0 };
      s = tilemm_options_set (&o, names[which], &bad, &err);
      CHECK (s == TILEMM_EOPTION, "bad option %s: %s", names[which], tilemm_strerror (s));
      mc->options_bad++;
      return;
    }
  const int limited = option_kind <= 4;
  if (limited) /* panels; or (1 in 20) a limit no plan fits in */
    {
      const double bytes = option_kind == 1 ? 8 : big ? 20000 + below (100000) : 2000 + below (3000);
      const tilemm_value limit = { TILEMM_VALUE_REAL_SCALAR, "", bytes, NULL, 0 };
      s = tilemm_options_set (&o, "max_device_bytes", &limit, &err);
      CHECK (s == TILEMM_OK, "max_device_bytes: %s", err.detail);
    }
  stop_state stop = { 0, 1 + below (3) };
  const int stop_armed = below (16) == 0;
  if (stop_armed)
    {
      o.stop.should_stop = stop_at;
      o.stop.arg = &stop;
    }

  /* TILEMM_FAULT, for a product on the GPU: read with the call's settings when it is decided
   * (into its plan, which each product arms as it starts). */
  const int fault_drawn = below (8) == 0;
  if (fault_drawn)
    {
      static const char *const kinds[] = { "malloc", "host", "memcpy", "launch" };
      char spec[32];
      snprintf (spec, sizeof spec, "%s:%d", kinds[below (4)], 1 + below (6));
      setenv ("TILEMM_FAULT", spec, 1);
    }
  tilemm_decision d;
  s = tilemm_decide (&da, &db, &o, &d, &err);
  if (fault_drawn)
    unsetenv ("TILEMM_FAULT");
  if (s != TILEMM_OK)
    {
      /* The plan is made with the decision: a limit no panel fits in is said there. */
      if (limited && (s == TILEMM_ELIMIT || s == TILEMM_EDEVMEM))
        {
          mc->limit_too_small++;
          return;
        }
      CHECK (s == TILEMM_ENOGPU && o.backend == TILEMM_CHOOSE_GPU && !gpu,
             "decide: %s (%s)", tilemm_strerror (s), err.detail);
      mc->nogpu++;
      return;
    }
  if (d.action == TILEMM_DO_DELEGATE) /* mtimes answers (or raises nonconformant) */
    {
      CHECK (kb != k || d.route.action == TILEMM_ROUTE_DELEGATE || o.backend == TILEMM_CHOOSE_AUTO,
             "delegated a product the kernels compute");
      mc->delegated++;
      return;
    }
  CHECK (kb == k, "%lldx%lld times %lldx%lld was not sent to mtimes", (long long) m,
         (long long) k, (long long) kb, (long long) n);
  const tilemm_route *r = &d.route;
  const int single = r->result_class == TILEMM_CLASS_SINGLE;
  const size_t es = single ? sizeof (float) : sizeof (double);
  if (d.action == TILEMM_DO_FILL)
    {
      void *zeros = calloc ((size_t) (r->m * r->n) + 1, es);
      CHECK (zeros != NULL, "calloc");
      free (zeros);
      mc->filled++;
      return;
    }

  /* The operands after the route's conversions, and the result, as a front end makes them. */
  const int a_cplx = da.is_complex || r->use_a == TILEMM_OPERAND_TO_COMPLEX;
  const int b_cplx = db.is_complex || r->use_b == TILEMM_OPERAND_TO_COMPLEX;
  void *a = random_buffer ((size_t) (r->m * r->k) * (a_cplx ? 2 : 1), single);
  void *b = random_buffer ((size_t) (r->k * r->n) * (b_cplx ? 2 : 1), single);
  void *c = malloc ((size_t) (r->m * r->n) * es * (r->result_complex ? 2 : 1) + 1);
  mc->computed++;

  const int on_gpu = d.backend == TILEMM_BACKEND_CUDA;
  const int fault_armed = on_gpu && fault_drawn;
  mc->faults_armed += fault_armed;
  mc->gpu_runs += on_gpu;
  mc->stops_armed += stop_armed;
  s = tilemm_run (&d, &o, a, b, c, &err);
  if (s == TILEMM_OK)
    {
      if (below (8) == 0)
        {
          const long wrong = wrong_elements (r, a, a_cplx, b, b_cplx, c);
          CHECK (wrong == 0, "%ld of %lldx%lld wrong (%s, k %lld)", wrong, (long long) r->m,
                 (long long) r->n, tilemm_type_name (r->compute_type), (long long) r->k);
          mc->checked++;
        }
      if (r->result_complex) /* `*`'s narrowing, as the front ends do it */
        {
          const tilemm_type ct = single ? TILEMM_COMPLEX_SINGLE : TILEMM_COMPLEX_DOUBLE;
          if (tilemm_imag_all_zero (ct, c, (size_t) (r->m * r->n)))
            {
              void *real = malloc ((size_t) (r->m * r->n) * es + 1);
              tilemm_copy_real_parts (ct, c, (size_t) (r->m * r->n), real);
              free (real);
              mc->narrowed++;
            }
        }
    }
  else if (s == TILEMM_EINTERRUPTED)
    {
      CHECK (stop_armed && stop.polls == stop.after, "interrupted without a stop (%d polls)",
             stop.polls);
      mc->stopped++;
    }
  else if (limited && s == (on_gpu ? TILEMM_EDEVMEM : TILEMM_ELIMIT)
           && strstr (err.detail, "cudaMalloc") == NULL)
    mc->limit_too_small++;
  else
    {
      CHECK (fault_armed && (s == TILEMM_EDEVMEM || s == TILEMM_ENOMEM || s == TILEMM_ECUDA),
             "run: %s (%s)", tilemm_strerror (s), err.detail);
      mc->faults_hit++;
    }
  free (a);
  free (b);
  free (c);
}

/* ---------------------------------------------------------------- every fault, every stop */

/* One product of a fault test into c, whatever it calls (ctx: its own data). */
typedef tilemm_status (*fault_call) (void *ctx, void *c, tilemm_error *err);

/* For every kind of fault and every N, the Nth operation of that kind fails (TILEMM_FAULT) in
 * call: it must give its status and leave tilemm holding nothing, and the next call give the
 * undisturbed bits `good`; until the call runs past its last operation of the kind.  `what`
 * names the product in the counts printed; a kind the product never does (no_launch: its device
 * side launches nothing of tilemm's own) may inject none. */
static void every_fault (fault_call call, void *ctx, const void *good, void *c, size_t bytes_c,
                         const char *what, int no_launch)
{
  static const struct {
    const char *name;
    tilemm_fault_kind kind;
    tilemm_status want;
  } kinds[] = { { "malloc", TILEMM_FAULT_MALLOC, TILEMM_EDEVMEM },
                { "host", TILEMM_FAULT_HOST, TILEMM_ENOMEM },
                { "memcpy", TILEMM_FAULT_MEMCPY, TILEMM_ECUDA },
                { "launch", TILEMM_FAULT_LAUNCH, TILEMM_ECUDA } };
  tilemm_error err = { TILEMM_OK, "" };
  for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
    {
      int injected = 0;
      for (long nth = 1; nth < 100000; nth++)
        {
          if (kinds[i].kind == TILEMM_FAULT_MALLOC || kinds[i].kind == TILEMM_FAULT_HOST)
            release_all (); /* allocations happen only when nothing is held */
          char spec[64];
          snprintf (spec, sizeof spec, "%s:%ld", kinds[i].name, nth);
          setenv ("TILEMM_FAULT", spec, 1);
          memset (c, 0x5a, bytes_c);
          tilemm_status s = call (ctx, c, &err);
          const long seen = tilemm_fault_count (kinds[i].kind);
          unsetenv ("TILEMM_FAULT");
          if (s == TILEMM_OK)
            {
              CHECK (seen < nth && memcmp (c, good, bytes_c) == 0,
                     "%s: %ld operations and none failed, or a wrong result", spec, seen);
              break;
            }
          injected++;
          CHECK (s == kinds[i].want, "%s: %s (%s)", spec, tilemm_strerror (s), err.detail);
          CHECK (tilemm_cuda_bytes_held () == 0 && tilemm_cuda_pinned_bytes_held () == 0,
                 "%s: %zu device, %zu pinned bytes still held", spec, tilemm_cuda_bytes_held (),
                 tilemm_cuda_pinned_bytes_held ());
          s = call (ctx, c, &err);
          CHECK (s == TILEMM_OK && memcmp (c, good, bytes_c) == 0, "%s: the next call: %s", spec,
                 err.detail);
        }
      printf ("  %s: %d failures injected%s\n", kinds[i].name, injected, what);
      CHECK (injected > 0 || (no_launch && kinds[i].kind == TILEMM_FAULT_LAUNCH), "no %s to fail",
             kinds[i].name);
    }
}

/* every_fault_and_stop's product: a plan's panels on the GPU path. */
typedef struct {
  const tilemm_plan *plan;
  const tilemm_view *va, *vb, *vc;
} panels_call;

static tilemm_status panels_product (void *ctx, void *c, tilemm_error *err)
{
  const panels_call *p = (const panels_call *) ctx;
  (void) c; /* p->vc views it */
  return tilemm_multiply (p->plan, p->va, p->vb, p->vc, err);
}

/* On whatever runtime this build has (the stand-in, or the real GPU): a double product in panels
 * on the GPU path; for every N, the Nth operation of each kind fails (TILEMM_FAULT) and for every
 * poll a stop comes there.  A fault must give its status and leave tilemm holding nothing; a stop
 * must give TILEMM_EINTERRUPTED and keep exactly what was held; after either, the next call gives
 * the very bits of a call that was never disturbed (products are reproducible bit for bit). */
static void every_fault_and_stop (void)
{
  const int64_t m = 300, k = 200, n = 310;
  const size_t bytes_c = (size_t) (m * n) * sizeof (double);
  double *a = random_buffer ((size_t) (m * k), 0), *b = random_buffer ((size_t) (k * n), 0);
  double *good = malloc (bytes_c), *c = malloc (bytes_c);
  tilemm_view va, vb, vgood, vc;
  tilemm_view_init (&va, TILEMM_DOUBLE, m, k, m, a);
  tilemm_view_init (&vb, TILEMM_DOUBLE, k, n, k, b);
  tilemm_view_init (&vgood, TILEMM_DOUBLE, m, n, m, good);
  tilemm_view_init (&vc, TILEMM_DOUBLE, m, n, m, c);
  const tilemm_limits limits
    = { sizeof (double) * (size_t) (m * k + k * n + m * n) / 4, NULL, 0 };
  tilemm_plan plan;
  tilemm_error err = { TILEMM_OK, "" };
  tilemm_status s = tilemm_plan_make (&plan, TILEMM_BACKEND_CUDA, TILEMM_DOUBLE, m, n, k, &limits);
  CHECK_CASE ("every injected fault on this runtime: its status, nothing held, the next call right");
  CHECK (s == TILEMM_OK && tilemm_plan_panel_count (&plan) > 1, "plan: %s, %lld panels",
         tilemm_strerror (s), (long long) tilemm_plan_panel_count (&plan));
  s = tilemm_multiply (&plan, &va, &vb, &vgood, &err);
  CHECK (s == TILEMM_OK, "undisturbed: %s", err.detail);
  panels_call pc = { &plan, &va, &vb, &vc };
  every_fault (panels_product, &pc, good, c, bytes_c, "", 0);

  CHECK_CASE ("a stop at every poll on this runtime: interrupted, buffers kept, the next call right");
  s = tilemm_multiply (&plan, &va, &vb, &vc, &err);
  const size_t held = tilemm_cuda_bytes_held (), pinned = tilemm_cuda_pinned_bytes_held ();
  int stopped = 0;
  for (int after = 1; after < 100000; after++)
    {
      stop_state state = { 0, after };
      const tilemm_stop stop = { stop_at, &state };
      s = tilemm_multiply_stoppable (&plan, &va, &vb, &vc, &stop, &err);
      if (s == TILEMM_OK)
        {
          CHECK (state.polls < after && memcmp (c, good, bytes_c) == 0,
                 "poll %d said stop and the product went on, or a wrong result", after);
          break;
        }
      stopped++;
      CHECK (s == TILEMM_EINTERRUPTED && state.polls == after, "stop at poll %d: %s", after,
             tilemm_strerror (s));
      CHECK (tilemm_cuda_bytes_held () == held && tilemm_cuda_pinned_bytes_held () == pinned,
             "stop at poll %d: held %zu / %zu, was %zu / %zu", after, tilemm_cuda_bytes_held (),
             tilemm_cuda_pinned_bytes_held (), held, pinned);
      s = tilemm_multiply (&plan, &va, &vb, &vc, &err);
      CHECK (s == TILEMM_OK && memcmp (c, good, bytes_c) == 0, "after a stop at poll %d: %s",
             after, err.detail);
    }
  printf ("  stopped at each of %d polls\n", stopped);
  CHECK (stopped > 1, "only %d polls", stopped);
  free (a);
  free (b);
  free (good);
  free (c);
}

/* ---------------------------------------------------------------- the emulated pipeline */

/* One emulated double product on the GPU, decided with the environment as it is now
 * (TILEMM_FAULT, TILEMM_EMU_PIPE_COLS), into c. */
static tilemm_status emulated_call (const tilemm_operand *da, const tilemm_operand *db,
                                    const void *a, const void *b, void *c, int *pipelined,
                                    tilemm_error *err)
{
  tilemm_options o;
  tilemm_options_init (&o);
  const tilemm_value gpu = { TILEMM_VALUE_STRING, "gpu", 0, NULL, 0 };
  const tilemm_value emu = { TILEMM_VALUE_STRING, "emulated", 0, NULL, 0 };
  tilemm_status s = tilemm_options_set (&o, "backend", &gpu, err);
  if (s == TILEMM_OK)
    s = tilemm_options_set (&o, "precision", &emu, err);
  tilemm_decision d;
  if (s == TILEMM_OK)
    s = tilemm_decide (da, db, &o, &d, err);
  if (s != TILEMM_OK)
    return s;
  *pipelined = d.plan.emu_pipe_first > 0;
  return tilemm_run (&d, &o, a, b, c, err);
}

/* emulated_pipeline_faults's product. */
typedef struct {
  const tilemm_operand *da, *db;
  const double *a, *b;
} pipe_call;

static tilemm_status pipe_product (void *ctx, void *c, tilemm_error *err)
{
  const pipe_call *p = (const pipe_call *) ctx;
  int pipelined = 0;
  const tilemm_status s = emulated_call (p->da, p->db, p->a, p->b, c, &pipelined, err);
  CHECK (s != TILEMM_OK || pipelined, "the emulated product was not pipelined");
  return s;
}

/* The emulated product pipelined in panels (TILEMM_EMU_PIPE_COLS) on this runtime: for every N,
 * the Nth operation of each kind fails; the call gives its status, tilemm holds nothing after
 * it, and the next call gives the undisturbed bits. */
static void emulated_pipeline_faults (void)
{
  const int64_t m = 60, k = 40, n = 150;
  const tilemm_operand da = { TILEMM_CLASS_DOUBLE, 0, 0, 2, m, k, 0, NULL, 0 };
  const tilemm_operand db = { TILEMM_CLASS_DOUBLE, 0, 0, 2, k, n, 0, NULL, 0 };
  double *a = random_buffer ((size_t) (m * k), 0), *b = random_buffer ((size_t) (k * n), 0);
  const size_t bytes_c = (size_t) (m * n) * sizeof (double);
  double *good = malloc (bytes_c), *c = malloc (bytes_c);
  tilemm_error err = { TILEMM_OK, "" };
  int pipelined = 0;
  CHECK_CASE ("the emulated pipeline: every injected fault gives its status, nothing held");
  setenv ("TILEMM_EMU_PIPE_COLS", "37", 1);
  tilemm_status s = emulated_call (&da, &db, a, b, good, &pipelined, &err);
  CHECK (s == TILEMM_OK && pipelined, "undisturbed: %s (pipelined %d)", err.detail, pipelined);
  pipe_call pc = { &da, &db, a, b };
  every_fault (pipe_product, &pc, good, c, bytes_c, " in the emulated pipeline", 1);
  unsetenv ("TILEMM_EMU_PIPE_COLS");
  free (a);
  free (b);
  free (good);
  free (c);
}

/* ---------------------------------------------------------------- main */

int main (int argc, char **argv)
{
  /* The name on the counts line: the first argument, else the program's own (test_leaks_mock…). */
  const char *slash = strrchr (argv[0], '/');
  const char *name = argc > 1 ? argv[1] : slash ? slash + 1 : argv[0];
  if (!getenv ("TILEMM_LEAKS_NO_RERUN"))
    rerun_without_tcache (argv);
#ifdef TILEMM_TEST_GPU
  /* Every kernel loaded with the context, before the baseline: loaded lazily, a variant first
   * used later would add its code to the device memory in use. */
  setenv ("CUDA_MODULE_LOADING", "EAGER", 0);
#endif
#ifdef TILEMM_TEST_MOCK
  /* Small staging chunks: the stand-in allocates and fills its pinned memory for real, and
   * every fault makes it do so again. */
  setenv ("TILEMM_STAGING_KB", "256", 0);
#endif
  tilemm_error err = { TILEMM_OK, "" };
  const int gpu = tilemm_cuda_probe (&err) == TILEMM_OK;
  unsetenv ("TILEMM_FAULT");
  printf ("%s: %s\n", name, gpu ? "GPU path usable" : err.detail);

  /* A warm-up pass first: the OpenMP pool, the CUDA context, stdio and the runtime's own
   * allocations happen once; then the baseline, with tilemm's GPU buffers released. */
  mix_counts warm = { 0 }, mc = { 0 };
  CHECK_CASE ("warm-up: 300 mixed calls");
  for (int i = 0; i < 300; i++)
    one_call (gpu, &warm);
  release_all ();
  const size_t host0 = host_bytes_in_use (), dev0 = device_bytes_in_use ();

  CHECK_CASE ("%d mixed calls: every status what the call demands, sampled results right",
              TILEMM_LEAKS_CALLS);
  for (int i = 0; i < TILEMM_LEAKS_CALLS; i++)
    one_call (gpu, &mc);
  printf ("  %ld calls: %ld bad options, %ld to mtimes, %ld filled, %ld no GPU, %ld computed "
          "(%ld on the GPU, %ld results checked, %ld narrowed), %ld faults armed / %ld hit, "
          "%ld stops armed / %ld stopped, %ld limits too small\n",
          mc.calls, mc.options_bad, mc.delegated, mc.filled, mc.nogpu, mc.computed, mc.gpu_runs,
          mc.checked, mc.narrowed, mc.faults_armed, mc.faults_hit, mc.stops_armed, mc.stopped,
          mc.limit_too_small);
  CHECK (mc.options_bad > 0 && mc.delegated > 0 && mc.filled > 0 && mc.computed > 0
           && mc.checked > 0 && mc.stopped > 0 && mc.limit_too_small > 0,
         "the mix lacks a kind of call");
  if (gpu)
    CHECK (mc.gpu_runs > 0 && mc.faults_hit > 0, "no GPU runs (%ld) or faults hit (%ld)",
           mc.gpu_runs, mc.faults_hit);

  if (gpu)
    {
      every_fault_and_stop ();
      emulated_pipeline_faults ();
    }
  else
    check_skip ("every injected fault and every stop on the GPU path", "no usable GPU here");

  CHECK_CASE ("GPU buffers: bounded while held, none after release");
  CHECK (tilemm_cuda_bytes_held () <= ((size_t) 64 << 20), "holds %zu bytes",
         tilemm_cuda_bytes_held ());
  release_all ();
  CHECK (tilemm_cuda_bytes_held () == 0 && tilemm_cuda_pinned_bytes_held () == 0,
         "after release: %zu device, %zu pinned bytes held", tilemm_cuda_bytes_held (),
         tilemm_cuda_pinned_bytes_held ());
#ifdef TILEMM_TEST_MOCK
  CHECK (mock_cuda_device_bytes () == 0 && mock_cuda_pinned_bytes () == 0
           && mock_cuda_live_objects () == 0 && mock_cuda_pending_ops () == 0,
         "the runtime still has %zu device, %zu pinned bytes, %d streams and events, %zu queued",
         mock_cuda_device_bytes (), mock_cuda_pinned_bytes (), mock_cuda_live_objects (),
         mock_cuda_pending_ops ());
#endif

  if (gpu)
    {
      CHECK_CASE ("device memory in use (cudaMemGetInfo) back where it started");
      const size_t dev1 = device_bytes_in_use ();
      printf ("  device bytes in use: %zu before, %zu after\n", dev0, dev1);
      /* 2 MiB: the driver's allocation granularity, for its own bookkeeping. */
      CHECK (dev1 <= dev0 + ((size_t) 2 << 20), "%zu bytes more in use", dev1 - dev0);
    }
  else
    check_skip ("device memory in use back where it started", "no usable GPU here");

  const size_t host1 = host_bytes_in_use ();
  if (host0 > 0)
    {
      CHECK_CASE ("host heap in use (mallinfo2) back where it started");
      printf ("  host heap bytes in use: %zu before, %zu after\n", host0, host1);
      CHECK (host1 <= host0 + ((size_t) 16 << 10), "%zu bytes more in use",
             host1 > host0 ? host1 - host0 : 0);
    }
  else
    check_skip ("host heap in use back where it started",
                "no mallinfo2 here, or under valgrind (which checks it instead)");
  return check_summary (name);
}
