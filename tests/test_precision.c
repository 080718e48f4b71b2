/* test_precision.c — a precision is an entry of the table the plan chooses from: this file adds
 * a third one, "reference" (the product in long double on the CPU, one rounding to double per
 * entry), as one more entry of its own, without a line of the library changed for it, and runs
 * products through the decision, the plan and the executor with it (tilemm_decide_op,
 * tilemm_run), checked against long double products computed here and, for integer data, the
 * exact product.  The built-in entries keep running as before beside it.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 */
#define _POSIX_C_SOURCE 200809L /* setenv (check.h) */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "check.h"
#include "front.h"
#include "tilemm.h"

/* ---------------------------------------------------------------- the third entry */

/* How many products the entry ran, and the plan it was handed (what the test checks the
 * executor followed). */
static int reference_runs;
static const tilemm_call_plan *reference_plan;

/* Element (i, j) of op(x), x real double as stored. */
static double op_at (tilemm_op op, const tilemm_view *x, int64_t i, int64_t j)
{
  const double *d = (const double *) x->data;
  return op == TILEMM_OP_NONE ? d[i + j * x->stride] : d[j + i * x->stride];
}

/* C = op_a(A)·op_b(B) in long double, each entry rounded once to double: the whole of the
 * precision's own code.  Real double only (it refuses other types: a precision's own choice). */
static tilemm_status reference_run (const struct tilemm_decision_s *decision,
                                    const struct tilemm_options_s *options, const tilemm_view *a,
                                    const tilemm_view *b, const tilemm_view *c, tilemm_error *err)
{
  (void) options;
  const tilemm_call_plan *p = &decision->plan;
  if (c->type != TILEMM_DOUBLE)
    return tilemm_error_set (err, TILEMM_ETYPE, "reference precision: real double only");
  reference_runs++;
  reference_plan = p;
  double *cd = (double *) c->data;
  for (int64_t j = 0; j < c->cols; j++)
    for (int64_t i = 0; i < c->rows; i++)
      {
        long double sum = 0.0L;
        for (int64_t q = 0; q < p->k; q++)
          sum += (long double) op_at (p->op_a, a, i, q) * (long double) op_at (p->op_b, b, q, j);
        cd[i + j * c->stride] = (double) sum;
      }
  return tilemm_error_set (err, TILEMM_OK, NULL);
}

static const tilemm_precision_entry reference_precision = { "reference", 0, reference_run };

/* ---------------------------------------------------------------- the test */

static double value (unsigned *seed, int integer)
{
  *seed = *seed * 1103515245u + 12345u;
  const int r = (int) ((*seed >> 16) % 2001u) - 1000;
  return integer ? (double) (r % 17) : (double) r / 7.0;
}

/* One product C = op_a(A)·op_b(B) (m×k·k×n, real double) through tilemm_decide_op and tilemm_run
 * with `entry` (NULL: the built-in native precision) on `backend`; checked against the long
 * double product (bitwise for the reference precision), and the exact one for integer data. */
static void product (const tilemm_precision_entry *entry, tilemm_backend_choice backend,
                     tilemm_op op_a, tilemm_op op_b, int64_t m, int64_t n, int64_t k, int integer)
{
  const int ta = op_a != TILEMM_OP_NONE, tb = op_b != TILEMM_OP_NONE;
  const int64_t ar = ta ? k : m, ac = ta ? m : k, br = tb ? n : k, bc = tb ? k : n;
  double *a = malloc (sizeof (double) * (size_t) (ar * ac));
  double *b = malloc (sizeof (double) * (size_t) (br * bc));
  double *c = malloc (sizeof (double) * (size_t) (m * n));
  unsigned seed = (unsigned) (m * 131 + n * 17 + k);
  for (int64_t e = 0; e < ar * ac; e++)
    a[e] = value (&seed, integer);
  for (int64_t e = 0; e < br * bc; e++)
    b[e] = value (&seed, integer);
  tilemm_operand oa = { TILEMM_CLASS_DOUBLE, 0, 0, 2, ar, ac, 0, NULL, 0 };
  tilemm_operand ob = { TILEMM_CLASS_DOUBLE, 0, 0, 2, br, bc, 0, NULL, 0 };
  tilemm_options opt;
  tilemm_options_init (&opt);
  opt.backend = backend;
  opt.precision_entry = entry;
  tilemm_decision d;
  tilemm_error err = { TILEMM_OK, "" };
  const int runs_before = reference_runs;
  reference_plan = NULL;
  tilemm_status s = tilemm_decide_op (&oa, op_a, &ob, op_b, &opt, &d, &err);
  CHECK (s == TILEMM_OK && d.action == TILEMM_DO_COMPUTE, "decide: status %d (%s), action %d",
         (int) s, err.detail, (int) d.action);
  if (s == TILEMM_OK && d.action == TILEMM_DO_COMPUTE)
    {
      CHECK (d.precision == (entry ? entry : tilemm_precision_entry_of (TILEMM_PRECISION_NATIVE)),
             "the decision holds the table's entry (%s)", d.precision ? d.precision->name : "none");
      CHECK (!d.emulated, "a precision of a native plan decided no emulated plan");
      for (int64_t e = 0; e < m * n; e++)
        c[e] = NAN;
      s = tilemm_run (&d, &opt, a, b, c, &err);
      CHECK (s == TILEMM_OK, "run: status %d (%s)", (int) s, err.detail);
      if (entry)
        {
          CHECK (reference_runs == runs_before + 1, "the executor ran the entry once (%d)",
                 reference_runs - runs_before);
          CHECK (reference_plan == &d.plan, "the entry was handed the decision's plan");
        }
      int64_t off = 0, inexact = 0;
      for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < m; i++)
          {
            long double sum = 0.0L;
            for (int64_t q = 0; q < k; q++)
              sum += (long double) (ta ? a[q + i * ar] : a[i + q * ar])
                     * (long double) (tb ? b[j + q * br] : b[q + j * br]);
            const double want = (double) sum, got = c[i + j * m];
            /* The reference precision: bitwise its own long double sum; native: within its bound. */
            if (entry ? memcmp (&want, &got, sizeof got) != 0
                      : !(fabs (got - want) <= 1e-12 * (1.0 + fabs (want))))
              off++;
            if (integer && got != (double) (int64_t) sum)
              inexact++;
          }
      CHECK (off == 0, "%lld of %lld entries off the long double product", (long long) off,
             (long long) (m * n));
      CHECK (!integer || inexact == 0, "%lld entries off the exact integer product",
             (long long) inexact);
    }
  free (a);
  free (b);
  free (c);
}

/* ---------------------------------------------------------------- "precision", "auto" */

/* Facts of one GPU whose native double kernels run at fp64 flop/s and whose int8 GEMM at int8
 * op/s, the rest the built-in model's (host, bus, fixed costs). */
static void card_facts (tilemm_machine_facts *f, const char *name, double fp64, double int8)
{
  tilemm_facts_model (f, name);
  f->gpus = 1;
  f->gpu_kernel_flops_per_s[TILEMM_DOUBLE] = f->gpu_kernel_flops_per_s[TILEMM_COMPLEX_DOUBLE] = fp64;
  f->gpu_int8_ops_per_s = int8;
  f->gpu[0].kernel_flops_per_s[TILEMM_DOUBLE] = fp64;
}

static void test_auto (void)
{
  /* A GeForce/RTX-class card: FP64 at 1/64 of its FP32, int8 tensor cores at full speed; and an
   * H100-class one: FP64 tensor cores, int8 about 26 times their rate.  Each rate as such a card's
   * kernels reach, not the peak. */
  tilemm_machine_facts slow_fp64, h100;
  card_facts (&slow_fp64, "slow FP64 (RTX class)", 1.2e12, 5.0e14);
  card_facts (&h100, "H100 class", 5.0e13, 1.3e15);
  CHECK_CASE ("auto: a card of slow FP64 takes the emulated product at far smaller sizes");
  const int64_t from_slow = tilemm_plan_precision_auto_from (&slow_fp64, TILEMM_DOUBLE, 1);
  const int64_t from_h100 = tilemm_plan_precision_auto_from (&h100, TILEMM_DOUBLE, 1);
  CHECK (from_slow > 0 && from_slow <= 1024, "slow FP64: emulated from n = %lld",
         (long long) from_slow);
  CHECK (from_h100 == 0 || from_h100 >= 4 * from_slow,
         "H100: emulated from n = %lld, slow FP64 from %lld", (long long) from_h100,
         (long long) from_slow);
  tilemm_precision_choice c;
  tilemm_plan_precision_auto (&slow_fp64, TILEMM_DOUBLE, 2048, 2048, 2048, 0, 1, 0, &c);
  CHECK (c.emulated && c.bound_ok && c.moduli >= 14 && c.emulated_s < c.native_s
           && strncmp (c.why, "emulated:", 9) == 0,
         "slow FP64, 2048: %s", c.why);
  /* (At 2048 the H100 class prices the two alike under the elementwise rule's count.) */
  tilemm_plan_precision_auto (&h100, TILEMM_DOUBLE, 1024, 1024, 1024, 0, 1, 0, &c);
  CHECK (!c.emulated && strncmp (c.why, "native:", 7) == 0, "H100, 1024: %s", c.why);
  tilemm_plan_precision_auto (&slow_fp64, TILEMM_DOUBLE, 4096, 4096, 1, 0, 1, 0, &c);
  CHECK (!c.emulated && !c.bound_ok, "k = 1, where one rounding is tighter: %s", c.why);
  tilemm_plan_precision_auto (&slow_fp64, TILEMM_DOUBLE, 4096, 4096, 4096, 0, 0, 0, &c);
  CHECK (!c.emulated && isinf (c.emulated_s), "no GPU: %s", c.why);
  /* the model's count: the elementwise rule's, at most the certified rule's and 15 (double) */
  tilemm_emu_options o, cert;
  tilemm_emu_default_options (&o, TILEMM_DOUBLE);
  tilemm_emu_default_options (&cert, TILEMM_DOUBLE);
  o.rule = TILEMM_EMU_RULE_ELEMENTWISE;
  CHECK (c.rule == TILEMM_EMU_RULE_ELEMENTWISE, "auto's rule %d", (int) c.rule);
  for (int64_t kk = 64; kk <= 65536; kk *= 4)
    CHECK (tilemm_emu_typical_moduli (&o, kk) > 0
             && tilemm_emu_typical_moduli (&o, kk) <= tilemm_emu_typical_moduli (&cert, kk)
             && tilemm_emu_typical_moduli (&o, kk) <= 15,
           "typical counts at k %lld: elementwise %d, certified %d", (long long) kk,
           tilemm_emu_typical_moduli (&o, kk), tilemm_emu_typical_moduli (&cert, kk));

  CHECK_CASE ("auto through the decision: the option, TILEMM_PRECISION, the plan's line");
  tilemm_options opt;
  tilemm_options_init (&opt);
  tilemm_error err = { TILEMM_OK, "" };
  const tilemm_value autov = { TILEMM_VALUE_STRING, "Auto", 0.0, NULL, 0 };
  CHECK (tilemm_options_set (&opt, "precision", &autov, &err) == TILEMM_OK
           && opt.precision == TILEMM_PRECISION_AUTO, "\"precision\", \"auto\": %s", err.detail);
  opt.facts = &slow_fp64;
  tilemm_operand sq = { TILEMM_CLASS_DOUBLE, 0, 0, 2, 2048, 2048, 0, NULL, 0 };
  tilemm_decision d;
  tilemm_status s = tilemm_decide_op (&sq, TILEMM_OP_NONE, &sq, TILEMM_OP_NONE, &opt, &d, &err);
  char text[4096];
  tilemm_decision_describe (&d, text, sizeof text);
  CHECK (s == TILEMM_OK && d.precision_weighed && strstr (text, "precision auto: "),
         "the plan says what auto took: %s", text);
  /* with a usable GPU the emulated product; without one (this machine) native, saying why */
  tilemm_error probe;
  if (tilemm_cuda_probe (&probe) == TILEMM_OK)
    CHECK (d.emulated && d.backend == TILEMM_BACKEND_CUDA, "slow FP64 with a GPU: %s", text);
  else
    CHECK (!d.emulated && strstr (text, "none is usable"), "no usable GPU: %s", text);
  opt.backend = TILEMM_CHOOSE_CPU;
  s = tilemm_decide_op (&sq, TILEMM_OP_NONE, &sq, TILEMM_OP_NONE, &opt, &d, &err);
  CHECK (s == TILEMM_OK && !d.emulated && !d.precision_choice.emulated,
         "\"backend\", \"cpu\": native (%s)", d.precision_choice.why);
  const tilemm_value moduli = { TILEMM_VALUE_REAL_SCALAR, NULL, 15.0, NULL, 0 };
  tilemm_options_set (&opt, "moduli", &moduli, &err);
  s = tilemm_decide_op (&sq, TILEMM_OP_NONE, &sq, TILEMM_OP_NONE, &opt, &d, &err);
  CHECK (s == TILEMM_EOPTION, "\"moduli\" with \"auto\": refused (%d)", (int) s);
  tilemm_options_init (&opt);
  opt.facts = &slow_fp64;
  setenv ("TILEMM_PRECISION", "auto", 1);
  s = tilemm_decide_op (&sq, TILEMM_OP_NONE, &sq, TILEMM_OP_NONE, &opt, &d, &err);
  CHECK (s == TILEMM_OK && d.precision_weighed, "TILEMM_PRECISION=auto weighs the precision");
  unsetenv ("TILEMM_PRECISION");
  s = tilemm_decide_op (&sq, TILEMM_OP_NONE, &sq, TILEMM_OP_NONE, &opt, &d, &err);
  CHECK (s == TILEMM_OK && !d.precision_weighed && !d.emulated, "unset: native, nothing weighed");
  CHECK_CASE ("auto on the built-in model (nothing measured): native for every square");
  CHECK (tilemm_plan_precision_auto_from (NULL, TILEMM_DOUBLE, 1) == 0,
         "the built-in model takes the emulated product from n = %lld",
         (long long) tilemm_plan_precision_auto_from (NULL, TILEMM_DOUBLE, 1));
}

int main (void)
{
  static const tilemm_op ops[] = { TILEMM_OP_NONE, TILEMM_OP_TRANSPOSE };
  for (int x = 0; x < 2; x++)
    for (int y = 0; y < 2; y++)
      for (int integer = 0; integer < 2; integer++)
        {
          CHECK_CASE ("reference precision (a third table entry), cpu, op_a %d op_b %d, %s data",
                      (int) ops[x], (int) ops[y], integer ? "integer" : "real");
          product (&reference_precision, TILEMM_CHOOSE_CPU, ops[x], ops[y], 37, 29, 53, integer);
        }
  CHECK_CASE ("reference precision on \"auto\": the plan's backend, the entry's product");
  product (&reference_precision, TILEMM_CHOOSE_AUTO, TILEMM_OP_NONE, TILEMM_OP_NONE, 300, 200,
           250, 1);
  CHECK_CASE ("the built-in native entry beside it, unchanged");
  product (NULL, TILEMM_CHOOSE_CPU, TILEMM_OP_NONE, TILEMM_OP_TRANSPOSE, 37, 29, 53, 1);
  CHECK_CASE ("the table's built-in entries by name");
  CHECK (strcmp (tilemm_precision_entry_of (TILEMM_PRECISION_NATIVE)->name, "native") == 0
           && strcmp (tilemm_precision_entry_of (TILEMM_PRECISION_EMULATED)->name, "emulated") == 0
           && tilemm_precision_entry_of (TILEMM_PRECISION_EMULATED)->plan_emulated == 1,
         "native and emulated");
  test_auto ();
  return check_summary ("test_precision");
}
