/* blas_product.c — where a BLAS call's product runs, and C updated from it (blas_internal.h).
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 *
 * The product goes the way of every tilemm front end (src/common/front.h): the operands
 * described as tilemm_operand, the options (the backend from TILEMM_BLAS_BACKEND), one decision
 * by tilemm_decide_op, and tilemm_run for TILEMM_DO_COMPUTE, so a BLAS call gets the plan's
 * panels, workers and transposed operands like `tilemm (A, B)`.  Then
 * C := alpha·P + beta·C over the block (gemm) or triangle (syrk, herk): the BLAS's own
 * arithmetic, the executor's (exec/blas_request.c), as the packing of a strided operand and the
 * last resort's loop are; this file translates the call and follows the decision.
 *
 * What tilemm does not compute goes elsewhere, so no product is slower, and none lost, for the
 * library being there:
 *   - TILEMM_DO_DELEGATE (an operand of one element, or "auto" where the GPU does not pay, as for
 *     `*`): the whole call to the next BLAS in the process (blas_next.c).  The decision knows
 *     "auto"'s answer before it gathers any fact about the devices, so a small product pays the
 *     request and the rule only (bench/blas_latency.c);
 *   - a failure (no GPU for TILEMM_BLAS_BACKEND=gpu, a CUDA error, no memory): one line on
 *     stderr per process, then the whole call to the next BLAS;
 *   - where there is no next BLAS (a program linked only to this library): tilemm's CPU backend,
 *     and if even that fails, tilemm's own element loop, which needs no memory.
 * Nothing aborts: under a preloaded Octave that would end the user's session.
 *
 * Strides.  tilemm_run takes its operands contiguous (leading dimension = rows); BLAS allows
 * lda ≥ rows.  A strided operand (a sub-block of a larger matrix) is copied into a contiguous
 * buffer first, and a strided C gets its product in a scratch buffer; Octave's own calls are
 * always contiguous and take neither copy.  (A strided entry to the run path would remove these
 * copies; tilemm_run does not have one yet.)
 *
 * TILEMM_BLAS_TIMES=1 prints, for each product tilemm computes, where its time went on stderr:
 * the decision, the copies of strided operands, the scratch buffer, the run, and the update of C.
 */
#define _POSIX_C_SOURCE 200809L   /* clock_gettime */
#include <math.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "blas_internal.h"
#include "front.h"

static double now (void)
{
  struct timespec t;
  clock_gettime (CLOCK_MONOTONIC, &t);
  return (double) t.tv_sec + 1e-9 * (double) t.tv_nsec;
}

void blas_scale_c (const blas_call *call)
{
  /* No product, no plan: the decision's team for the update. */
  int team;
  int64_t columns;
  tilemm_decide_update (&call->req, &team, &columns);
  tilemm_blas_scale_c (&call->req, team, columns);
}

static int is_zero (tilemm_scalar s)
{
  return s.re == 0 && s.im == 0;
}

static int is_one (tilemm_scalar s)
{
  return s.re == 1 && s.im == 0;
}

/* ---------------------------------------------------------------- tilemm's path */

/* One line per process for all failures: a program making millions of calls must not print
 * millions of lines, and the first says what happened. */
static atomic_flag failure_said = ATOMIC_FLAG_INIT;
static atomic_flag bad_backend_said = ATOMIC_FLAG_INIT;

static const char *upper_name (blas_routine routine, char *buf)
{
  const char *name = blas_routine_name (routine);
  int i = 0;
  for (; name[i] && i < 7; i++)
    buf[i] = (char) (name[i] >= 'a' && name[i] <= 'z' ? name[i] - 'a' + 'A' : name[i]);
  buf[i] = '\0';
  return buf;
}

static void say_failure (const blas_call *call, const char *what)
{
  if (atomic_flag_test_and_set (&failure_said))
    return;
  char name[8];
  const char *next = blas_next (call->routine) ? blas_next_file (call->routine) : NULL;
  fprintf (stderr,
           "tilemm_blas: %s: %s; this and any later failed product is computed by %s%s "
           "instead (said once)\n",
           upper_name (call->routine, name), what, next ? "the next BLAS, " : "tilemm's CPU backend",
           next ? (*next ? next : "(unknown file)") : "");
}

/* The options of a BLAS call: TILEMM_BLAS_BACKEND's backend (the call's settings, read at every
 * call, so a program may change it between calls), the native precision (BLAS's own rounding: TILEMM_PRECISION,
 * which a user may set for tilemm (A, B), does not turn every BLAS call of the process, LAPACK's
 * small ones included, into emulated products that are never delegated), the rest as any front
 * end's defaults. */
static void call_options (const blas_call *call, const tilemm_blas_settings *settings,
                          tilemm_options *options)
{
  tilemm_options_init (options);
  options->precision = TILEMM_PRECISION_NATIVE;   /* (set, not parsed: every call pays it) */
  options->host = blas_host_product ();
  const char *want = settings->backend;
  tilemm_backend_choice choice;
  if (!settings->backend_given)
    return;
  if (!tilemm_backend_choice_from_name (want, &choice))
    {
      /* A bad value computes on "auto": the product is still what the program asked for, only
       * the choice of device is not. */
      if (!atomic_flag_test_and_set (&bad_backend_said))
        {
          char name[8];
          fprintf (stderr,
                   "tilemm_blas: %s: TILEMM_BLAS_BACKEND=\"%.64s\" is not cpu, gpu or auto (in "
                   "any case); using auto\n",
                   upper_name (call->routine, name), want);
        }
      return;
    }
  const tilemm_value value = { TILEMM_VALUE_STRING, want, 0.0, NULL, 0 };
  tilemm_options_set (options, "backend", &value, NULL);
}

typedef enum { TILEMM_DONE, TILEMM_DELEGATED, TILEMM_FAILED } attempt;

/* The call's product by tilemm under `options`: P = op_a(A)·op_b(B) decided and run, then C
 * updated.  times: print where its time went (TILEMM_BLAS_TIMES).  t0: when the attempt began
 * (the caller's clock, read once a call).  *place: where it ran (TILEMM_DONE); *what: the reason
 * (TILEMM_FAILED). */
static attempt by_tilemm (const blas_call *call, const tilemm_options *options, int times,
                          double t0, blas_place *place, tilemm_backend *tried, char *what,
                          size_t what_len)
{
  const int ta = call->req.op_a != TILEMM_OP_NONE, tb = call->req.op_b != TILEMM_OP_NONE;
  const int cplx = tilemm_type_is_complex (call->req.type);
  const tilemm_class cls = call->req.type == TILEMM_SINGLE || call->req.type == TILEMM_COMPLEX_SINGLE
                             ? TILEMM_CLASS_SINGLE
                             : TILEMM_CLASS_DOUBLE;
  const int64_t a_rows = ta ? call->req.k : call->req.m, a_cols = ta ? call->req.m : call->req.k;
  const int64_t b_rows = tb ? call->req.n : call->req.k, b_cols = tb ? call->req.k : call->req.n;
  /* A syrk's or herk's operands are one object (A, one side transposed): decided as that rank-k
   * update (half the plain product's flops on the host), and, as only the call's triangle is
   * read, not mirrored (one_triangle: the mirror would copy the other triangle for nothing). */
  const void *identity = call->req.uplo ? call->req.a : NULL;
  const tilemm_operand oa = { cls, cplx, 0, 2, a_rows, a_cols, 0, identity, 0 };
  const tilemm_operand ob = { cls, cplx, 0, 2, b_rows, b_cols, 0, identity, 0 };
  tilemm_options triangle = *options;
  triangle.one_triangle = call->req.uplo != 0;
  options = &triangle;
  tilemm_decision decision;
  tilemm_error err;   /* (not zero-filled: its detail alone is 384 bytes a call) */
  err.status = TILEMM_OK;
  err.detail[0] = '\0';
  *tried = TILEMM_BACKEND_CPU;
  if (tilemm_decide_op (&oa, call->req.op_a, &ob, call->req.op_b, options, &decision, &err) != TILEMM_OK)
    {
      snprintf (what, what_len, "%s%s", err.status == TILEMM_ENOGPU ? "no usable GPU: " : "",
                err.detail[0] ? err.detail : tilemm_strerror (err.status));
      return TILEMM_FAILED;
    }
  switch (decision.action)
    {
    case TILEMM_DO_DELEGATE:
      return TILEMM_DELEGATED;
    case TILEMM_DO_FILL:
      /* P = 0 (k = 0; the entry points return earlier, this is for completeness). */
      blas_scale_c (call);
      *place = BLAS_ON_CPU;
      return TILEMM_DONE;
    case TILEMM_DO_COMPUTE:
      break;
    }
  *tried = decision.backend;
  const tilemm_route *r = &decision.route;
  if (r->compute_type != call->req.type || r->m != call->req.m || r->n != call->req.n || r->k != call->req.k
      || r->a_as_pairs || r->a_split || r->b_split || r->mirror != TILEMM_MIRROR_NONE)
    {
      /* Two operands of one type never convert or split; if a route ever did, the buffers
       * below would not be what it expects. */
      snprintf (what, what_len, "the route of a %s product is not a plain product",
                tilemm_type_name (call->req.type));
      return TILEMM_FAILED;
    }
  const double t_decided = now ();
  void *copy_a = NULL, *copy_b = NULL, *scratch = NULL;
  const void *a = tilemm_blas_contiguous (call->req.type, call->req.a, a_rows, a_cols, call->req.lda,
                                          decision.plan.pack_team[0], decision.plan.pack_columns[0],
                                          &copy_a);
  const void *b = call->req.b == call->req.a && call->req.ldb == call->req.lda && call->req.op_b != call->req.op_a
                      && a_rows == b_rows
                    ? a   /* syrk, herk: B is A */
                    : tilemm_blas_contiguous (call->req.type, call->req.b, b_rows, b_cols, call->req.ldb,
                                              decision.plan.pack_team[1], decision.plan.pack_columns[1],
                                              &copy_b);
  const double t_copied = now ();
  /* gemm with beta = 0 on a contiguous C: the product is written straight into C (tilemm writes
   * its result whole and never reads it, so a NaN in C cannot reach it).  syrk and herk write
   * one triangle only: their product goes into a scratch buffer. */
  const int in_place = !call->req.uplo && is_zero (call->req.beta) && (call->req.ldc == call->req.m || call->req.n == 1);
  void *p = in_place ? call->req.c
                     : (scratch = malloc ((size_t) call->req.m * (size_t) call->req.n
                                          * tilemm_type_size (call->req.type)));
  const double t_scratch = now ();
  attempt result = TILEMM_DONE;
  double t_run = t_scratch;
  if (!a || !b || !p)
    {
      snprintf (what, what_len, "no memory for a copy of a strided operand or the product");
      result = TILEMM_FAILED;
    }
  else if (tilemm_run (&decision, options, a, b, p, &err) != TILEMM_OK)
    {
      snprintf (what, what_len, "%s product failed: %s",
                decision.backend == TILEMM_BACKEND_CUDA ? "GPU" : "CPU",
                err.detail[0] ? err.detail : tilemm_strerror (err.status));
      result = TILEMM_FAILED;
    }
  else
    {
      t_run = now ();
      if (!in_place)
        tilemm_blas_update (&call->req, call->req.alpha, p, call->req.m, call->req.beta,
                            decision.plan.update_team, decision.plan.update_columns);
      else if (!is_one (call->req.alpha))
        tilemm_blas_update (&call->req, call->req.alpha, NULL, call->req.ldc, call->req.beta,
                            decision.plan.update_team, decision.plan.update_columns);
      *place = decision.backend == TILEMM_BACKEND_CUDA ? BLAS_ON_GPU : BLAS_ON_CPU;
    }
  free (copy_a);
  free (copy_b);
  free (scratch);
  if (result == TILEMM_DONE)
    {
      const double t_end = now ();
      if (times)
        fprintf (stderr,
                 "tilemm_blas: %s %lldx%lldx%lld on the %s: decide %.3f ms, copy strided operands "
                 "%.3f ms, scratch %.3f ms, run %.3f ms, update C %.3f ms, total "
                 "%.3f ms\n",
                 blas_routine_name (call->routine), (long long) call->req.m, (long long) call->req.n,
                 (long long) call->req.k, *place == BLAS_ON_GPU ? "gpu" : "cpu",
                 1e3 * (t_decided - t0), 1e3 * (t_copied - t_decided),
                 1e3 * (t_scratch - t_copied), 1e3 * (t_run - t_scratch),
                 1e3 * (t_end - t_run), 1e3 * (t_end - t0));
    }
  return result;
}

void blas_run_call (const blas_call *call)
{
  const double t0 = now ();
  tilemm_blas_settings settings;
  tilemm_blas_settings_read (&settings);
  tilemm_options options;
  call_options (call, &settings, &options);
  blas_place place = BLAS_ON_CPU;
  tilemm_backend tried;
  char what[512];   /* (set on failure only) */
  what[0] = '\0';
  attempt result
    = by_tilemm (call, &options, settings.times, t0, &place, &tried, what, sizeof what);
  if (result == TILEMM_FAILED)
    {
      blas_trace_fallback (call->routine);
      say_failure (call, what);
    }
  if (result != TILEMM_DONE && blas_next (call->routine))
    {
      blas_next_call (call);
      place = BLAS_ON_NEXT;
    }
  else if (result != TILEMM_DONE)
    {
      /* No next BLAS: tilemm's CPU backend (for what "auto" delegates, and after a failure),
       * unless that is what was just asked; then, for an operand of one element or after a
       * failure of the CPU backend, the loop. */
      if (options.backend != TILEMM_CHOOSE_CPU)
        {
          options.backend = TILEMM_CHOOSE_CPU;
          result = by_tilemm (call, &options, settings.times, now (), &place, &tried, what,
                              sizeof what);
        }
      if (result != TILEMM_DONE)
        {
          tilemm_blas_loop (&call->req);
          place = BLAS_ON_LOOP;
        }
    }
  blas_trace_product (call->routine, place, call->req.m, call->req.n, call->req.k, now () - t0);
}
