/* run.c — a call's plan run (see front.h: tilemm_run), deciding nothing: complex operands split
 * into one real product where the plan says so, the native product on the plan's queue of
 * panels and workers, the emulated precision in its passes and the plan's branches for what its
 * statistics find (moduli that cannot carry a pair, NaN and Inf), the mirror of X'*X.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "emulated_passes.h"
#include "front.h"
#include "multi.h"
#include "parts.h"

static tilemm_status run_real (const tilemm_decision *decision, const tilemm_options *options,
                               const void *a, const void *b, void *c, tilemm_error *err);

static tilemm_status run_split (const tilemm_decision *decision, const tilemm_options *options,
                                const void *a, const void *b, void *c, tilemm_error *err)
{
  const tilemm_route *r = &decision->route;
  const tilemm_call_plan *p = &decision->plan;
  const size_t es = tilemm_type_size (p->type);
  const int single = p->type == TILEMM_SINGLE;
  const int split_b = p->split == TILEMM_SPLIT_B;
  const tilemm_op op = split_b ? decision->op_b : decision->op_a;
  const double sign = op == TILEMM_OP_CTRANSPOSE ? -1.0 : 1.0;
  /* The complex operand as stored: B is k×n (n×k transposed); A is k×m (always transposed). */
  const int64_t rows = split_b ? (op == TILEMM_OP_NONE ? r->k : r->n) : r->k;
  const int64_t cols = split_b ? (op == TILEMM_OP_NONE ? r->n : r->k) : r->m;
  const size_t parts_count = 2 * (size_t) rows * (size_t) cols;
  const size_t product_count = 2 * (size_t) r->m * (size_t) r->n;
  unsigned char *parts = malloc (parts_count * es), *product = malloc (product_count * es);
  if (!parts || !product)
    {
      free (parts);
      free (product);
      return tilemm_error_set (err, TILEMM_ENOMEM, "%s", tilemm_strerror (TILEMM_ENOMEM));
    }
  /* B untransposed: side by side; B transposed: stacked (so that its transpose is side by side);
   * A: side by side, read transposed as stacked. */
  const int stacked_in = split_b && op != TILEMM_OP_NONE;
  tilemm_split_parts_on (p->split_team, single, split_b ? b : a, rows, cols, stacked_in, sign,
                         parts);
  const tilemm_status status = split_b ? run_real (decision, options, a, parts, product, err)
                                       : run_real (decision, options, parts, b, product, err);
  if (status == TILEMM_OK)
    tilemm_join_parts_on (p->join_team, single, product, r->m, r->n, !split_b, c);
  free (parts);
  free (product);
  return status;
}

/* The imaginary part of one interleaved complex element (single or double), and setting it. */
static double imag_of (const unsigned char *z, int single)
{
  return single ? (double) ((const float *) z)[1] : ((const double *) z)[1];
}
static void set_imag (unsigned char *z, int single, double v)
{
  if (single)
    ((float *) z)[1] = (float) v;
  else
    ((double *) z)[1] = v;
}

/* Leaves a warning for the host (front ends raise it with its id), where it asked for them. */
static void notice (const tilemm_options *options, const char *id, const char *text)
{
  if (!options->notice)
    return;
  options->notice->raised = 1;
  snprintf (options->notice->id, sizeof options->notice->id, "%s", id);
  snprintf (options->notice->text, sizeof options->notice->text, "%s", text);
}

/* The emulated product C = op_a(A)·op_b(B) of a and b as stored (the plan's ops), as the
 * call's plan says (emulated_passes.c), and its planned branch where the moduli cannot carry a
 * pair (TILEMM_EMU_RANGE): the plan's emu_on_range, read here, decided with the plan.
 * *verdict: TILEMM_EMU_NONFINITE leaves C unwritten for the caller. */
static tilemm_status emulate (const tilemm_decision *decision, const tilemm_options *options,
                              const tilemm_view *a, const tilemm_view *b, const tilemm_view *c,
                              tilemm_emu_verdict *verdict, tilemm_error *err)
{
  const tilemm_call_plan *plan = &decision->plan;
  *verdict = TILEMM_EMU_OK;
  tilemm_emu_plan used;
  tilemm_status status = tilemm_exec_emulated (decision->backend, plan, &decision->emu, a, b, c,
                                               &options->stop, &used, options->report, err);
  if (status == TILEMM_OK && used.verdict == TILEMM_EMU_NONFINITE)
    *verdict = TILEMM_EMU_NONFINITE;
  if (status != TILEMM_OK || used.verdict != TILEMM_EMU_RANGE)
    return status;
  if (plan->emu_on_range == TILEMM_EMU_RANGE_NATIVE)
    {
      char text[256];
      snprintf (text, sizeof text,
                "emulated precision: %d moduli cannot carry this product's data; it was "
                "computed natively (give more \"moduli\", or \"accuracy\" for the certified rule)",
                decision->emu.moduli);
      notice (options, "tilemm:emulated:fallback", text);
      return tilemm_exec_native (decision->backend, plan, a, b, c, &options->stop, NULL, err);
    }
  int64_t exact_entries;
  /* The pairs' classification and the exact entries: the backend the plan named for them. */
  const tilemm_backend_ops *split = tilemm_backend_find (plan->emu_split_backend);
  if (!split || !split->emu_split)
    return tilemm_error_set (err, TILEMM_EINVAL, "emulated precision: the plan's backend has no "
                             "exact split");
  return split->emu_split (&decision->emu, &plan->emu_branches, plan->op_a, a, plan->op_b, b, c,
                           &options->stop, &used, &exact_entries, err);
}

/* Whether element x of `type` is finite (both parts when complex). */
static int element_finite (tilemm_type type, const unsigned char *x)
{
  switch (type)
    {
    case TILEMM_SINGLE:
      return isfinite (*(const float *) x);
    case TILEMM_COMPLEX_SINGLE:
      return isfinite (((const float *) x)[0]) && isfinite (((const float *) x)[1]);
    case TILEMM_COMPLEX_DOUBLE:
      return isfinite (((const double *) x)[0]) && isfinite (((const double *) x)[1]);
    default:
      return isfinite (*(const double *) x);
    }
}

/* x (as stored) copied to `to` (contiguous: x->rows apart) with its non-finite lines zeroed: the lines of op(x)
 * that hold NaN or Inf, its rows (of_columns 0) or columns (1); a line of op(x) is a line of the
 * other kind of x when op transposes.  finite[q]: whether line q of op(x) holds only finite
 * values.  Returns how many do. */
static int64_t zero_nonfinite_lines (tilemm_op op, const tilemm_view *x, int of_columns,
                                     unsigned char *to, unsigned char *finite)
{
  if (op != TILEMM_OP_NONE)
    of_columns = !of_columns;
  const size_t es = tilemm_type_size (x->type);
  const int64_t lines = of_columns ? x->cols : x->rows, length = of_columns ? x->rows : x->cols;
  int64_t count = 0;
  for (int64_t j = 0; j < x->cols; j++)
    memcpy (to + (size_t) j * (size_t) x->rows * es,
            (const unsigned char *) x->data + (size_t) j * (size_t) x->stride * es,
            (size_t) x->rows * es);
  for (int64_t q = 0; q < lines; q++)
    {
      int ok = 1;
      for (int64_t p = 0; p < length && ok; p++)
        {
          const int64_t i = of_columns ? p : q, j = of_columns ? q : p;
          ok = element_finite (x->type, (const unsigned char *) x->data
                                          + ((size_t) i + (size_t) j * (size_t) x->stride) * es);
        }
      finite[q] = (unsigned char) ok;
      count += ok;
      for (int64_t p = 0; p < length && !ok; p++)
        {
          const int64_t i = of_columns ? p : q, j = of_columns ? q : p;
          memset (to + ((size_t) i + (size_t) j * (size_t) x->rows) * es, 0, es);
        }
    }
  return count;
}

/* The planned branch after the native product of operands holding NaN or Inf
 * (TILEMM_EMU_NONFINITE_NATIVE_THEN_FINITE): every entry in a row of op(A) or a column of op(B)
 * holding one is NaN or Inf (no term is skipped), as `*` gives it; the others are computed
 * again, emulated under the call's plan itself, on copies of A and B as stored with those rows
 * and columns zeroed (a zero line changes no statistic of the others: they are maxima over
 * nonzero lines and pairs, emulated.h), and written over their entries, so they meet the bound
 * too, bitwise as a product of the finite lines alone. */
static tilemm_status emulate_finite_lines (const tilemm_decision *decision,
                                           const tilemm_options *options, const tilemm_view *a,
                                           const tilemm_view *b, const tilemm_view *c,
                                           tilemm_error *err)
{
  const tilemm_call_plan *plan = &decision->plan;
  const tilemm_type type = a->type;
  const size_t es = tilemm_type_size (type);
  const int64_t m = c->rows, n = c->cols;
  unsigned char *rows = malloc ((size_t) m + 1), *cols = malloc ((size_t) n + 1);
  unsigned char *a2 = malloc ((size_t) a->rows * (size_t) a->cols * es + 1);
  unsigned char *b2 = malloc ((size_t) b->rows * (size_t) b->cols * es + 1);
  unsigned char *c2 = malloc ((size_t) m * (size_t) n * es + 1);
  tilemm_status status = TILEMM_OK;
  if (!rows || !cols || !a2 || !b2 || !c2)
    status = tilemm_error_set (err, TILEMM_ENOMEM, "%s", tilemm_strerror (TILEMM_ENOMEM));
  const int64_t m2 = status == TILEMM_OK ? zero_nonfinite_lines (plan->op_a, a, 0, a2, rows) : 0;
  const int64_t n2 = status == TILEMM_OK ? zero_nonfinite_lines (plan->op_b, b, 1, b2, cols) : 0;
  if (status == TILEMM_OK && m2 > 0 && n2 > 0)
    {
      tilemm_view va2 = *a, vb2 = *b, vc2;
      va2.data = a2;
      va2.stride = a->rows > 0 ? a->rows : 1;
      vb2.data = b2;
      vb2.stride = b->rows > 0 ? b->rows : 1;
      tilemm_emu_verdict verdict;
      if ((status = tilemm_view_init (&vc2, type, m, n, m, c2)) != TILEMM_OK)
        status = tilemm_error_set (err, status, "%s", tilemm_strerror (status));
      else
        status = emulate (decision, options, &va2, &vb2, &vc2, &verdict, err);
      if (status == TILEMM_OK)
        for (int64_t j = 0; j < n; j++)
          for (int64_t i = 0; i < m; i++)
            if (rows[i] && cols[j])
              memcpy ((unsigned char *) c->data
                        + ((size_t) i + (size_t) j * (size_t) c->stride) * es,
                      c2 + ((size_t) i + (size_t) j * (size_t) m) * es, es);
    }
  free (rows);
  free (cols);
  free (a2);
  free (b2);
  free (c2);
  return status;
}

/* The emulated precision (emulated.h) on the plan's backend: transposed operands as stored,
 * read the other way round on the CPU and transposed on the device by the GPU (never copied on
 * the host).  Every entry meets the bound, or is NaN or Inf as `*` gives it: the statistics
 * choose among the plan's branches (emulate: the moduli cannot carry a pair; NaN or Inf among
 * the operands: emu_on_nonfinite, the native product, then emulate_finite_lines). */
static tilemm_status run_emulated (const tilemm_decision *decision, const tilemm_options *options,
                                   const tilemm_view *va, const tilemm_view *vb,
                                   const tilemm_view *vc, tilemm_error *err)
{
  const tilemm_call_plan *plan = &decision->plan;
  tilemm_emu_verdict verdict;
  tilemm_status status = emulate (decision, options, va, vb, vc, &verdict, err);
  if (status == TILEMM_OK && verdict == TILEMM_EMU_NONFINITE
      && plan->emu_on_nonfinite == TILEMM_EMU_NONFINITE_NATIVE_THEN_FINITE)
    {
      status = tilemm_exec_native (decision->backend, plan, va, vb, vc, &options->stop, NULL, err);
      if (status == TILEMM_OK)
        status = emulate_finite_lines (decision, options, va, vb, vc, err);
    }
  return status;
}

/* X'·X and the like of one object (route.mirror): C's upper triangle mirrored onto its lower
 * one (conjugated, with a real diagonal, when Hermitian), as BLAS syrk/herk leave it. */
static void mirror_upper (tilemm_type type, void *c, int64_t n, int hermitian)
{
  const size_t es = tilemm_type_size (type);
  const int complex_type = tilemm_type_is_complex (type), single = type == TILEMM_COMPLEX_SINGLE;
  unsigned char *d = c;
  for (int64_t j = 0; j < n; j++)
    {
      for (int64_t i = j + 1; i < n; i++)
        {
          unsigned char *low = d + ((size_t) i + (size_t) j * (size_t) n) * es;
          memcpy (low, d + ((size_t) j + (size_t) i * (size_t) n) * es, es);
          if (hermitian)
            set_imag (low, single, -imag_of (low, single));
        }
      if (hermitian && complex_type)
        set_imag (d + ((size_t) j + (size_t) j * (size_t) n) * es, single, 0.0);
    }
}

tilemm_status tilemm_run (const tilemm_decision *decision, const tilemm_options *options,
                          const void *a, const void *b, void *c, tilemm_error *err)
{
  const tilemm_call_plan *p = &decision->plan;
  if (decision->action != TILEMM_DO_COMPUTE)
    return tilemm_error_set (err, TILEMM_EINVAL, "tilemm_run: the decision computes nothing");
  const tilemm_status status = p->split != TILEMM_SPLIT_NONE
                                 ? run_split (decision, options, a, b, c, err)
                                 : run_real (decision, options, a, b, c, err);
  if (status == TILEMM_OK && decision->route.mirror != TILEMM_MIRROR_NONE)
    mirror_upper (decision->route.compute_type, c, decision->route.m,
                  decision->route.mirror == TILEMM_MIRROR_HERMITIAN);
  return status;
}

/* The native product on the plan's queue of panels and workers (exec/native.c). */
static tilemm_status run_native (const tilemm_decision *decision, const tilemm_options *options,
                                 const tilemm_view *va, const tilemm_view *vb,
                                 const tilemm_view *vc, tilemm_error *err)
{
  const tilemm_call_plan *p = &decision->plan;
  tilemm_status status;
  tilemm_multi_report ran;
  status = tilemm_exec_native (decision->backend, p, va, vb, vc, &options->stop, &ran, err);
  if (options->report)
    {
      options->report->workers = ran.workers;
      options->report->panels = ran.panels;
      for (int w = 0; w < TILEMM_MAX_WORKERS; w++)
        options->report->done[w] = ran.done[w];
    }
  return status;
}

/* The precision table's built-in entries, each a plan and a run (front.h): a new precision is
 * one more entry (a caller's own: tilemm_options.precision_entry), not a flag through the
 * executor and the backends. */
static const tilemm_precision_entry native_precision = { "native", 0, run_native };
static const tilemm_precision_entry emulated_precision = { "emulated", 1, run_emulated };

const tilemm_precision_entry *tilemm_precision_entry_of (tilemm_precision precision)
{
  return precision == TILEMM_PRECISION_EMULATED ? &emulated_precision : &native_precision;
}

/* The product the plan runs (after a split, the real one) on contiguous buffers as stored: a
 * transposed A is k×m, a transposed B n×k. */
static tilemm_status run_real (const tilemm_decision *decision, const tilemm_options *options,
                               const void *a, const void *b, void *c, tilemm_error *err)
{
  const tilemm_call_plan *p = &decision->plan;
  const int ta = p->op_a != TILEMM_OP_NONE, tb = p->op_b != TILEMM_OP_NONE;
  tilemm_view va, vb, vc;
  tilemm_status status;
  if ((status = tilemm_view_init (&va, p->type, ta ? p->k : p->m, ta ? p->m : p->k,
                                  ta ? p->k : p->m, (void *) a))
        != TILEMM_OK
      || (status = tilemm_view_init (&vb, p->type, tb ? p->n : p->k, tb ? p->k : p->n,
                                     tb ? p->n : p->k, (void *) b))
           != TILEMM_OK
      || (status = tilemm_view_init (&vc, p->type, p->m, p->n, p->m, c)) != TILEMM_OK
      || (status = tilemm_check_operands_op (&p->native, p->op_a, &va, p->op_b, &vb, &vc))
           != TILEMM_OK)
    return tilemm_error_set (err, status, "%s", tilemm_strerror (status));
  return decision->precision->run (decision, options, &va, &vb, &vc, err);
}
