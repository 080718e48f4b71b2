/* test_facts.c — the machine's facts and the decisions made from them: the facts' curves, their
 * text (the store's format) read back, the cost model reading them, "auto" following them (a
 * wrong fact makes a wrong decision, which these cases see), the devices and copy teams they
 * give, and the process's facts: measured once, kept in the store under their key, read back,
 * off where asked, measured but not kept where the store cannot be written.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 */
#define _POSIX_C_SOURCE 200809L
#define CHECK_KEEP_CALIBRATION   /* checks the store and the measured facts themselves */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "decide.h"
#include "backend.h"
#include "call_plan.h"
#include "check.h"
#include "pages_shape.h"
#include "copy_team.h"
#include "batch.h"
#include "device_model.h"
#include "front.h"
#include "gpus_model.h"
#include "machine_facts.h"
#include "tilemm.h"
#include "team_size.h"
#include "tilemm_settings.h"

static int near (double a, double b, double rel)
{
  return fabs (a - b) <= rel * fabs (b);
}

/* ---------------------------------------------------------------- curves */

static void test_curves (void)
{
  CHECK_CASE ("facts: a curve is read at its points, between them on a log-log line, past them "
              "at the last point's rate");
  tilemm_curve c;
  memset (&c, 0, sizeof c);
  CHECK (isinf (tilemm_curve_seconds (&c, 1e6)), "an empty curve is not known");
  CHECK (tilemm_curve_add (&c, 1e6, 1e-3) && tilemm_curve_add (&c, 1e2, 1e-6)
           && tilemm_curve_add (&c, 1e4, 1e-5),
         "points in any order");
  CHECK (c.points == 3 && c.flops[0] == 1e2 && c.flops[1] == 1e4 && c.flops[2] == 1e6,
         "kept in order of flops");
  CHECK (near (tilemm_curve_seconds (&c, 1e4), 1e-5, 1e-12), "at a point: %g",
         tilemm_curve_seconds (&c, 1e4));
  CHECK (near (tilemm_curve_seconds (&c, 1e5), 1e-4, 1e-12),
         "between 1e4 (1e-5 s) and 1e6 (1e-3 s) on a log-log line: %g",
         tilemm_curve_seconds (&c, 1e5));
  CHECK (near (tilemm_curve_seconds (&c, 1e3), sqrt (1e-6 * 1e-5), 1e-12),
         "between the first two: %g", tilemm_curve_seconds (&c, 1e3));
  CHECK (tilemm_curve_seconds (&c, 1) == 1e-6, "below the first: the first (a fixed cost)");
  CHECK (near (tilemm_curve_seconds (&c, 4e6), 4e-3, 1e-12), "past the last at its rate");
  CHECK (!tilemm_curve_add (&c, 1e4, 2e-5), "a second point at the same work is refused");
  CHECK (!tilemm_curve_add (&c, -1, 1) && !tilemm_curve_add (&c, 1, 0)
           && !tilemm_curve_add (&c, 1, NAN) && !tilemm_curve_add (&c, INFINITY, 1),
         "points that are not finite positive pairs are refused");
  /* A noisy point: a smaller product measured slower than a larger one was the outlier. */
  CHECK (tilemm_curve_add (&c, 1e7, 5e-4), "a larger product measured faster");
  CHECK (c.seconds[2] == 5e-4 && c.seconds[3] == 5e-4 && c.seconds[1] == 1e-5,
         "the slower, smaller one lowered to it: %g %g", c.seconds[2], c.seconds[3]);
  for (int i = c.points; i < TILEMM_CURVE_POINTS; i++)
    tilemm_curve_add (&c, 1e8 * (i + 1), 1.0 * (i + 1));
  CHECK (c.points == TILEMM_CURVE_POINTS && !tilemm_curve_add (&c, 1e20, 1e9), "a full curve");
  tilemm_curve line;
  memset (&line, 0, sizeof line);
  line.fixed_s = 1e-5;
  line.flops_per_s = 1e9;
  CHECK (near (tilemm_curve_seconds (&line, 1e6), 1e-5 + 1e-3, 1e-12), "the model's line");
}

/* ---------------------------------------------------------------- the facts as text */

/* Facts of a made-up machine: every field set, none the built-in model's. */
/* Every GPU's call measured against one on square double products of sides `n` (count of them):
 * one GPU as the facts price its call, every GPU that over `gain`. */
static void measured_gain (tilemm_machine_facts *f, int gpus, const double *n, const double *gain,
                           int count)
{
  memset (&f->gpu_all_one, 0, sizeof f->gpu_all_one);
  memset (&f->gpu_all_every, 0, sizeof f->gpu_all_every);
  f->gpu_all_count = gpus;
  for (int i = 0; i < count; i++)
    {
      const double flops = tilemm_model_flops (TILEMM_DOUBLE, n[i], n[i], n[i]);
      const double one = tilemm_model_gpu_call_s (f, TILEMM_DOUBLE, 24.0 * n[i] * n[i], flops);
      tilemm_curve_add (&f->gpu_all_one, flops, one);
      tilemm_curve_add (&f->gpu_all_every, flops, one / gain[i]);
    }
}

static void made_up (tilemm_machine_facts *f)
{
  tilemm_facts_model (f, NULL);
  f->origin = TILEMM_FACTS_MEASURED;
  snprintf (f->key, sizeof f->key, "tilemm=9.9.9\ncpu=Made Up CPU x8\nthreads=8\n");
  f->measured_s = 1.25;
  f->others_cpu_share = 0.125;
  f->host_measured = f->cpu_measured = f->gpu_measured = 1;
  for (int t = 0; t < TILEMM_NTYPES; t++)
    {
      memset (&f->host[t], 0, sizeof f->host[t]);
      memset (&f->host_page[t], 0, sizeof f->host_page[t]);
      memset (&f->cpu[t], 0, sizeof f->cpu[t]);
      memset (&f->gpu_curve[t], 0, sizeof f->gpu_curve[t]);
      for (int i = 0; i < 5; i++)
        {
          const double flops = pow (10, 2 + 2 * i);
          tilemm_curve_add (&f->host[t], flops, 1e-6 + flops / (1e9 * (t + 1)));
          tilemm_curve_add (&f->host_page[t], flops, 2e-6 + flops / (1e9 * (t + 1)));
          tilemm_curve_add (&f->cpu[t], flops, 3e-6 + flops / (4e9 * (t + 1)));
          tilemm_curve_add (&f->gpu_curve[t], flops, 3e-4 + flops / (1e12 * (t + 1)));
        }
    }
  f->cpu_small_page_s = 1.5e-8;
  f->cpu_page_s = 2.5e-7;
  f->cpu_thread_flops_per_s = 7e9;
  f->cpu_small_flops_per_s = 1.75e9;
  f->cpu_region_s = 3.5e-5;
  f->threads = 8;
  f->copy_points = 4;
  for (int i = 0; i < 4; i++)
    {
      f->copy_threads[i] = 1 << i;
      f->copy_bytes_per_s[i] = i == 0 ? 1e10 : i == 1 ? 1.5e10 : 2.05e10;
    }
  f->gpus = 2;
  f->gpu_call_s = 1.5e-4;
  f->gpu_first_bytes = 0;
  f->gpu_first_bytes_per_s = 0;
  f->gpu_bus_bytes_per_s = 2.5e10;
  f->gpu_kernel_flops_per_s[0] = 4e13;
  f->gpu_kernel_flops_per_s[1] = 2e13;
  f->gpu_kernel_flops_per_s[2] = 4.1e13;
  f->gpu_kernel_flops_per_s[3] = 2.1e13;
  f->gpu_all_count = 2;
  f->gpu_all_call_s = 3e-4;
  f->gpu_all_speedup = 1.8;
  f->gpu_batch_call_s = 2e-4;
  f->gpu_batch_bus_bytes_per_s = 1.7e10;
  for (int t = 0; t < TILEMM_NTYPES; t++)
    f->gpu_batch_flops_per_s[t] = 5e12 * (t + 1);
  for (int g = 0; g < 2; g++)
    {
      f->gpu[g].ordinal = g;
      snprintf (f->gpu[g].name, sizeof f->gpu[g].name, "Made Up GPU %d", g);
      f->gpu[g].up_bytes_per_s = 5e10 + g;
      f->gpu[g].down_bytes_per_s = 5.1e10;
      f->gpu[g].up_busy_bytes_per_s = 4.5e10;
      f->gpu[g].down_busy_bytes_per_s = 4.6e10;
      for (int t = 0; t < TILEMM_NTYPES; t++)
        f->gpu[g].kernel_flops_per_s[t] = 5e13 + t;
      f->gpu[g].emulated_flops_per_s = 6e13;
    }
  /* Two GPUs slower than one on small products, 1.8x one from 4096 on. */
  static const double sides[] = { 512, 1024, 2048, 4096, 8192 }, gains[] = { 0.5, 0.7, 1.2, 1.8, 1.8 };
  measured_gain (f, 2, sides, gains, 5);
  f->gpu_filled_flops_per_s = 3e13;
  f->gpu_peer_bytes_per_s = 1.5e11;
}

static int same_curve (const tilemm_curve *a, const tilemm_curve *b)
{
  if (a->points != b->points || !near (a->fixed_s, b->fixed_s, 1e-8)
      || !near (a->flops_per_s, b->flops_per_s, 1e-8))
    return 0;
  for (int i = 0; i < a->points; i++)
    if (!near (a->flops[i], b->flops[i], 1e-8) || !near (a->seconds[i], b->seconds[i], 1e-8))
      return 0;
  return 1;
}

static void test_text (void)
{
  CHECK_CASE ("facts: printed as text and read back, every field");
  tilemm_machine_facts f, g;
  made_up (&f);
  const size_t need = tilemm_facts_print (&f, NULL, 0);
  char *text = malloc (need + 1);
  CHECK (text && tilemm_facts_print (&f, text, need + 1) == need && strlen (text) == need,
         "the length it needs: %zu", need);
  CHECK (tilemm_facts_parse (text, &g) == TILEMM_OK, "read back");
  CHECK (g.origin == TILEMM_FACTS_STORED && strcmp (g.key, f.key) == 0, "origin and key: %s",
         g.key);
  int curves = 1;
  for (int t = 0; t < TILEMM_NTYPES; t++)
    curves = curves && same_curve (&f.host[t], &g.host[t])
             && same_curve (&f.host_page[t], &g.host_page[t]) && same_curve (&f.cpu[t], &g.cpu[t])
             && same_curve (&f.gpu_curve[t], &g.gpu_curve[t]);
  CHECK (curves, "the curves");
  CHECK (f.gpu_all_every.points == 5 && same_curve (&f.gpu_all_one, &g.gpu_all_one)
           && same_curve (&f.gpu_all_every, &g.gpu_all_every),
         "every GPU's gain by size: %d points read back", g.gpu_all_every.points);
  CHECK (near (g.gpu_filled_flops_per_s, 3e13, 1e-9) && near (g.gpu_peer_bytes_per_s, 1.5e11, 1e-9),
         "the filled kernels' rate and the peer rate read back: %g, %g", g.gpu_filled_flops_per_s,
         g.gpu_peer_bytes_per_s);
  CHECK_CASE ("facts: an earlier version's store (every GPU one number) loads, that part to measure again");
  {
    tilemm_machine_facts h, i;
    made_up (&h);
    h.parts = TILEMM_FACTS_ALL;
    const size_t nh = tilemm_facts_print (&h, NULL, 0);
    char *th = malloc (nh + 1), *old = malloc (nh + 1);
    tilemm_facts_print (&h, th, nh + 1);
    /* The earlier version's text: the same without the lines it did not write. */
    size_t used = 0;
    for (const char *p = th; *p;)
      {
        const char *end = strchr (p, '\n');
        const size_t len = end ? (size_t) (end - p) + 1 : strlen (p);
        if (strncmp (p, "gpu_all_", 8) != 0 && strncmp (p, "gpu_filled ", 11) != 0
            && strncmp (p, "gpu_peer ", 9) != 0)
          memcpy (old + used, p, len), used += len;
        p += len;
      }
    old[used] = '\0';
    CHECK (tilemm_facts_parse (old, &i) == TILEMM_OK
             && i.parts == (TILEMM_FACTS_ALL & ~TILEMM_FACTS_GPUS) && i.gpu_all_count == 0
             && i.gpu_peer_bytes_per_s == 0 && i.gpu_filled_flops_per_s == 0
             && same_curve (&i.gpu_curve[TILEMM_DOUBLE], &h.gpu_curve[TILEMM_DOUBLE]),
           "loaded: parts %#x, every GPU %d", i.parts, i.gpu_all_count);
    CHECK (tilemm_facts_parse (th, &i) == TILEMM_OK && i.parts == TILEMM_FACTS_ALL
             && i.gpu_all_count == 2,
           "this version's keeps the part: parts %#x", i.parts);
    free (th);
    free (old);
  }
  /* The int8 part (TILEMM_FACTS_INT8, beyond the first eight parts): its rate and its seconds. */
  {
    tilemm_machine_facts h, i;
    made_up (&h);
    h.parts = TILEMM_FACTS_ALL;
    h.part_s[8] = 0.375;
    h.gpu_int8_ops_per_s = 1.25e15;
    const size_t n8 = tilemm_facts_print (&h, NULL, 0);
    char *t8 = malloc (n8 + 1);
    CHECK (t8 && tilemm_facts_print (&h, t8, n8 + 1) == n8
             && tilemm_facts_parse (t8, &i) == TILEMM_OK && i.parts == TILEMM_FACTS_ALL
             && near (i.part_s[8], 0.375, 1e-9) && near (i.gpu_int8_ops_per_s, 1.25e15, 1e-9),
           "the int8 part read back: parts %#x, %g s, %g ops/s", i.parts, i.part_s[8],
           i.gpu_int8_ops_per_s);
    free (t8);
  }
  CHECK (near (g.measured_s, 1.25, 1e-9) && near (g.others_cpu_share, 0.125, 1e-9) && g.host_measured && g.cpu_measured && g.gpu_measured
           && g.threads == 8 && near (g.cpu_thread_flops_per_s, 7e9, 1e-9)
           && near (g.cpu_small_flops_per_s, 1.75e9, 1e-9)
           && near (g.cpu_page_s, 2.5e-7, 1e-8) && near (g.cpu_small_page_s, 1.5e-8, 1e-8)
           && near (g.cpu_region_s, 3.5e-5, 1e-8),
         "the CPU's facts");
  CHECK (g.copy_points == 4 && g.copy_threads[3] == 8 && near (g.copy_bytes_per_s[3], 2.05e10, 1e-8),
         "the copies");
  CHECK (g.gpus == 2 && near (g.gpu_call_s, 1.5e-4, 1e-8) && near (g.gpu_bus_bytes_per_s, 2.5e10, 1e-8)
           && near (g.gpu_kernel_flops_per_s[3], 2.1e13, 1e-8) && g.gpu_all_count == 2
           && near (g.gpu_all_speedup, 1.8, 1e-8) && near (g.gpu_batch_flops_per_s[2], 1.5e13, 1e-8)
           && near (g.gpu_batch_bus_bytes_per_s, 1.7e10, 1e-8),
         "the GPUs' figures");
  CHECK (strcmp (g.gpu[1].name, "Made Up GPU 1") == 0 && g.gpu[1].ordinal == 1
           && near (g.gpu[1].up_bytes_per_s, 5e10 + 1, 1e-9)
           && near (g.gpu[0].emulated_flops_per_s, 6e13, 1e-9),
         "each GPU: %s", g.gpu[1].name);
  CHECK_CASE ("facts: text that is not facts is refused");
  CHECK (tilemm_facts_parse ("", &g) == TILEMM_EINVAL, "empty");
  CHECK (tilemm_facts_parse ("tilemm-machine-facts 1\n", &g) == TILEMM_EINVAL, "another format");
  char *bad = malloc (need + 64);
  snprintf (bad, need + 64, "%s", text);
  char *at = strstr (bad, "curve host 1");
  if (at)
    memcpy (at, "curve host 9", 12);
  CHECK (tilemm_facts_parse (bad, &g) == TILEMM_EINVAL, "a curve of no type");
  snprintf (bad, need + 64, "%scopy 99\n", text);
  CHECK (tilemm_facts_parse (bad, &g) == TILEMM_EINVAL, "too many copy points");
  snprintf (bad, need + 64, "%sa_later_line 1 2 3\n", text);
  CHECK (tilemm_facts_parse (bad, &g) == TILEMM_OK, "a line of a later version is ignored");
  free (bad);
  free (text);
}

/* ---------------------------------------------------------------- the model and "auto" */

/* A square native product's decision under the options' facts. */
static tilemm_status decide_square (const tilemm_options *options, tilemm_type type, int64_t n,
                                    tilemm_decision *d)
{
  static double data[1];
  tilemm_operand a, b;
  memset (&a, 0, sizeof a);
  a.cls = type == TILEMM_SINGLE || type == TILEMM_COMPLEX_SINGLE ? TILEMM_CLASS_SINGLE
                                                                 : TILEMM_CLASS_DOUBLE;
  a.is_complex = tilemm_type_is_complex (type);
  a.ndims = 2;
  a.rows = a.cols = n;
  b = a;
  a.identity = data;
  b.identity = data + 1;
  tilemm_error err = { TILEMM_OK, "" };
  return tilemm_decide (&a, &b, options, d, &err);
}

static void test_auto_follows_facts (void)
{
  CHECK_CASE ("auto: the way the facts find fastest; a wrong fact, a wrong way");
  tilemm_machine_facts f;
  made_up (&f);
  f.gpus = 0;   /* no GPU here: host or CPU */
  tilemm_options o;
  tilemm_options_init (&o);
  o.facts = &f;
  tilemm_decision d;
  /* The made-up CPU backend is 4x the made-up host at large sizes: auto computes on the CPU. */
  CHECK (decide_square (&o, TILEMM_DOUBLE, 512, &d) == TILEMM_OK
           && d.action == TILEMM_DO_COMPUTE && d.backend == TILEMM_BACKEND_CPU && d.auto_weighed
           && d.way_costs.best == TILEMM_WAY_CPU && d.facts == &f,
         "512: CPU (action %d, backend %d)", d.action, d.backend);
  /* The host 10x faster than it was: the same product is delegated. */
  for (int t = 0; t < TILEMM_NTYPES; t++)
    for (int i = 0; i < f.host[t].points; i++)
      f.host[t].seconds[i] /= 10;
  CHECK (decide_square (&o, TILEMM_DOUBLE, 512, &d) == TILEMM_OK
           && d.action == TILEMM_DO_DELEGATE && d.way_costs.best == TILEMM_WAY_HOST,
         "the host 10x faster: delegated (action %d)", d.action);
  /* A product where the host's fixed cost is less than the CPU backend's: delegated. */
  made_up (&f);
  f.gpus = 0;
  CHECK (decide_square (&o, TILEMM_DOUBLE, 2, &d) == TILEMM_OK && d.action == TILEMM_DO_DELEGATE,
         "2x2: the host's call is cheaper");
  /* Ties go to the host: a CPU backend 4% faster is not worth a result other than `*`'s. */
  for (int t = 0; t < TILEMM_NTYPES; t++)
    {
      f.cpu[t] = f.host[t];
      for (int i = 0; i < f.cpu[t].points; i++)
        f.cpu[t].seconds[i] *= 0.96;
    }
  CHECK (decide_square (&o, TILEMM_DOUBLE, 512, &d) == TILEMM_OK && d.action == TILEMM_DO_DELEGATE,
         "4%% faster: the host still");
  /* Emulated precision is never delegated: where the host would win, the CPU runs it. */
  o.precision = TILEMM_PRECISION_EMULATED;
  CHECK (decide_square (&o, TILEMM_DOUBLE, 512, &d) == TILEMM_OK && d.action == TILEMM_DO_COMPUTE
           && d.backend == TILEMM_BACKEND_CPU && d.emulated,
         "emulated: on the CPU");
  o.precision = TILEMM_PRECISION_UNSET;
  /* A named backend weighs nothing. */
  o.backend = TILEMM_CHOOSE_CPU;
  CHECK (decide_square (&o, TILEMM_DOUBLE, 512, &d) == TILEMM_OK && d.action == TILEMM_DO_COMPUTE
           && !d.auto_weighed,
         "\"cpu\": computed, nothing weighed");
  o.backend = TILEMM_CHOOSE_AUTO;
  /* The decision says what it read: a line of facts and one of costs. */
  char text[4096];
  made_up (&f);
  f.gpus = 0;
  decide_square (&o, TILEMM_DOUBLE, 512, &d);
  tilemm_decision_describe (&d, text, sizeof text);
  CHECK (strstr (text, "facts: measured") && strstr (text, "auto: host ")
           && strstr (text, ": cpu\n"),
         "described: %s", text);

  CHECK_CASE ("auto: the built-in model never takes the CPU backend (it has not measured it)");
  tilemm_options none;
  tilemm_options_init (&none);
  none.facts = tilemm_facts_builtin ();
  for (int64_t n = 1; n <= 4096; n *= 4)
    CHECK (decide_square (&none, TILEMM_DOUBLE, n, &d) == TILEMM_OK
             && (d.action == TILEMM_DO_DELEGATE || d.backend == TILEMM_BACKEND_CUDA),
           "n %lld: action %d backend %d", (long long) n, d.action, d.backend);
}

static void test_ways (void)
{
  CHECK_CASE ("model: the ways' costs are the facts', the GPU on as many GPUs as pay");
  tilemm_machine_facts f;
  made_up (&f);
  tilemm_way_costs c;
  const double flops = tilemm_model_flops (TILEMM_DOUBLE, 8192, 8192, 8192);
  const double bytes = 8.0 * 3 * 8192.0 * 8192.0;
  tilemm_model_ways (&f, TILEMM_DOUBLE, bytes, flops, flops, 2, &c);
  const double one = tilemm_model_gpu_call_s (&f, TILEMM_DOUBLE, bytes, flops);
  const double two = one / 1.8;   /* as measured at 8192 */
  CHECK (near (c.seconds[TILEMM_WAY_GPU], two, 1e-9) && c.best == TILEMM_WAY_GPU,
         "two GPUs where they pay: %g s (one: %g s)", c.seconds[TILEMM_WAY_GPU], one);
  CHECK (near (c.seconds[TILEMM_WAY_HOST], tilemm_curve_seconds (&f.host[TILEMM_DOUBLE], flops),
               1e-12)
           && near (c.seconds[TILEMM_WAY_CPU], tilemm_curve_seconds (&f.cpu[TILEMM_DOUBLE], flops),
                    1e-12),
         "host and CPU from their curves");
  {
    static const double sides[] = { 2048, 8192 }, gains[] = { 0.5, 0.5 };
    measured_gain (&f, 2, sides, gains, 2);
  }
  tilemm_model_ways (&f, TILEMM_DOUBLE, bytes, flops, flops, 2, &c);
  CHECK (near (c.seconds[TILEMM_WAY_GPU], one, 1e-12), "two GPUs slower: one GPU's time");
  tilemm_model_ways (&f, TILEMM_DOUBLE, bytes, flops, flops, 0, &c);
  CHECK (isinf (c.seconds[TILEMM_WAY_GPU]) && c.best == TILEMM_WAY_CPU, "no GPU: not a way");

  CHECK_CASE ("model: a batch's small pages at the direct loops' rate, the others at the tiled");
  {
    const double f16 = tilemm_model_flops (TILEMM_DOUBLE, 16, 16, 16);
    const double f24 = tilemm_model_flops (TILEMM_DOUBLE, 24, 24, 24);
    const double s16 = tilemm_batch_cpu_page_s (&f, TILEMM_DOUBLE, 16, 16, 16);
    const double s24 = tilemm_batch_cpu_page_s (&f, TILEMM_DOUBLE, 24, 24, 24);
    CHECK (near (s16, f.cpu_small_page_s + f16 / f.cpu_small_flops_per_s, 1e-12),
           "a 16 x 16 page (direct): %g us, not %g", 1e6 * s16,
           1e6 * (f.cpu_small_page_s + f16 / f.cpu_small_flops_per_s));
    CHECK (near (s24, f.cpu_page_s + f24 / f.cpu_thread_flops_per_s, 1e-12),
           "a 24 x 24 page (tiled): %g us", 1e6 * s24);
    CHECK (near (tilemm_batch_cpu_page_s (&f, TILEMM_COMPLEX_DOUBLE, 8, 8, 8),
                 f.cpu_page_s + tilemm_model_flops (TILEMM_COMPLEX_DOUBLE, 8, 8, 8)
                                  / f.cpu_thread_flops_per_s, 1e-12),
           "a small complex page: the tiled path's");
  }

  CHECK_CASE ("model: a GPU batch the team copies: the longest of its copies, transfers, kernels");
  {
    /* (The made-up facts: the host copies at 20.5 GB/s from 4 threads on (its 8 threads, 7 of
     * them to a team), nothing measured into new pages; a plain product's transfers at 25 GB/s;
     * the batches' fitted line 17.) */
    const double tb = (double) TILEMM_BATCH_COPY_TEAM_MIN_BYTES;
    const double team = tilemm_model_gpu_batch_s (&f, TILEMM_DOUBLE, 3 * tb, 0, 0)
                        - tilemm_model_gpu_batch_s (&f, TILEMM_DOUBLE, 2 * tb, 0, 0);
    const double one = tilemm_model_gpu_batch_s (&f, TILEMM_DOUBLE, 0.5 * tb, 0, 0)
                       - tilemm_model_gpu_batch_s (&f, TILEMM_DOUBLE, 0.25 * tb, 0, 0);
    CHECK (near (team, tb / 2.05e10, 1e-9), "copied by the team: %g ms a team's bytes, not %g",
           1e3 * team, 1e3 * tb / 2.05e10);
    CHECK (near (one, 0.25 * tb / f.gpu_batch_bus_bytes_per_s, 1e-9),
           "copied on one thread: %g ms a quarter, not %g", 1e3 * one,
           1e3 * 0.25 * tb / f.gpu_batch_bus_bytes_per_s);
    /* Every byte at the team's rate, the first ones too: just over the bytes is cheaper than
     * just under. */
    CHECK (tilemm_model_gpu_batch_s (&f, TILEMM_DOUBLE, tb, 0, 0)
             < tilemm_model_gpu_batch_s (&f, TILEMM_DOUBLE, tb - 1, 0, 0),
           "the team's batch priced as the one thread's");
    /* The result into new memory at the host's rate there (5 GB/s). */
    tilemm_machine_facts e = f;
    for (int i = 0; i < e.copy_points; i++)
      e.copy_fresh_bytes_per_s[i] = 5e9;
    const double fresh = tilemm_model_gpu_batch_s (&e, TILEMM_DOUBLE, 2 * tb, tb, 0)
                         - tilemm_model_gpu_batch_s (&e, TILEMM_DOUBLE, 2 * tb, 0, 0);
    CHECK (near (fresh, tb / 5e9 - tb / 2.05e10, 1e-9), "a result of a team's bytes: %g ms more, "
           "not %g", 1e3 * fresh, 1e3 * (tb / 5e9 - tb / 2.05e10));
    /* Transfers slower than the copies (10 GB/s): theirs. */
    e = f;
    e.gpu_bus_bytes_per_s = 1e10;
    const double slow_bus = tilemm_model_gpu_batch_s (&e, TILEMM_DOUBLE, 3 * tb, 0, 0)
                            - tilemm_model_gpu_batch_s (&e, TILEMM_DOUBLE, 2 * tb, 0, 0);
    CHECK (near (slow_bus, tb / 1e10, 1e-9), "the transfers the longest: %g ms, not %g",
           1e3 * slow_bus, 1e3 * tb / 1e10);
    /* The team's batch runs its panels in flight: kernels shorter than the copies add nothing,
     * longer ones are the time; a batch on one thread pays both. */
    const double rate = f.gpu_batch_flops_per_s[TILEMM_DOUBLE];
    const double copies = tilemm_model_gpu_batch_s (&f, TILEMM_DOUBLE, 2 * tb, 0, 0);
    CHECK (tilemm_model_gpu_batch_s (&f, TILEMM_DOUBLE, 2 * tb, 0,
                                     0.5 * (copies - f.gpu_batch_call_s) * rate)
             == copies, "kernels under the copies: hidden");
    CHECK (near (tilemm_model_gpu_batch_s (&f, TILEMM_DOUBLE, 2 * tb, 0, 4 * copies * rate),
                 f.gpu_batch_call_s + 4 * copies, 1e-9), "kernels over the copies: theirs");
    CHECK (near (tilemm_model_gpu_batch_s (&f, TILEMM_DOUBLE, 0.5 * tb, 0, rate)
                   - tilemm_model_gpu_batch_s (&f, TILEMM_DOUBLE, 0.5 * tb, 0, 0), 1.0, 1e-9),
           "on one thread: the kernels' second added");
  }

  CHECK_CASE ("model: a CPU batch whose result is new memory pays its pages, a smaller one not");
  {
    tilemm_machine_facts e = f;
    memset (e.copy_fresh_bytes_per_s, 0, sizeof e.copy_fresh_bytes_per_s);
    tilemm_machine_facts fresh = e;
    for (int i = 0; i < fresh.copy_points; i++)
      fresh.copy_fresh_bytes_per_s[i] = 2e9 * (i + 1);
    tilemm_route r;
    memset (&r, 0, sizeof r);
    r.action = TILEMM_ROUTE_COMPUTE;
    r.compute_type = TILEMM_DOUBLE;
    r.m = r.n = r.k = 16;
    const int64_t big = (int64_t) ceil (TILEMM_BATCH_FRESH_RESULT_BYTES / (8.0 * 16 * 16));
    double with[3], without[3];
    tilemm_batch_ways (&r, big, 1, 0, &fresh, with);
    tilemm_batch_ways (&r, big, 1, 0, &e, without);
    const double pages_s = (double) big * 8.0 * 16 * 16 / 2e9;   /* one thread: 2 GB/s */
    CHECK (near (with[TILEMM_WAY_CPU] - without[TILEMM_WAY_CPU], pages_s, 1e-9),
           "a %g MiB result: %g ms more, not %g", (double) big * 2048 / (1 << 20),
           1e3 * (with[TILEMM_WAY_CPU] - without[TILEMM_WAY_CPU]), 1e3 * pages_s);
    tilemm_batch_ways (&r, big - 1, 1, 0, &fresh, with);
    tilemm_batch_ways (&r, big - 1, 1, 0, &e, without);
    CHECK (with[TILEMM_WAY_CPU] == without[TILEMM_WAY_CPU], "a result a page smaller: nothing more");
  }

  CHECK_CASE ("model: a way whose runs now and then take far longer costs its loop's mean");
  {
    /* At 256: the CPU backend's typical run 1 ms but 5x that on average (another pool's
     * threads spinning beside it), `*` 2 ms steady: a loop pays 5 ms against 2. */
    tilemm_machine_facts e;
    made_up (&e);
    const double fl = tilemm_model_flops (TILEMM_DOUBLE, 256, 256, 256);
    memset (&e.cpu[TILEMM_DOUBLE], 0, sizeof e.cpu[TILEMM_DOUBLE]);
    memset (&e.host[TILEMM_DOUBLE], 0, sizeof e.host[TILEMM_DOUBLE]);
    tilemm_curve_add_episodes (&e.cpu[TILEMM_DOUBLE], fl, 1e-3, 5.0);
    tilemm_curve_add_episodes (&e.host[TILEMM_DOUBLE], fl, 2e-3, 1.0);
    tilemm_model_ways (&e, TILEMM_DOUBLE, 8.0 * 3 * 256 * 256, fl, fl, 0, &c);
    CHECK (c.best == TILEMM_WAY_HOST && near (c.seconds[TILEMM_WAY_CPU], 5e-3, 1e-9),
           "the CPU way at %g ms (typical 1 ms): %s taken", 1e3 * c.seconds[TILEMM_WAY_CPU],
           tilemm_way_name (c.best));
    CHECK (tilemm_curve_episodes (&e.cpu[TILEMM_DOUBLE], 4 * fl) == 5.0
             && tilemm_curve_episodes (&e.gpu_curve[TILEMM_SINGLE], fl) == 1.0,
           "the nearest point's factor; 1 where none was measured");
    /* Steady, it is the faster way. */
    e.cpu[TILEMM_DOUBLE].episodes[0] = 1.0;
    tilemm_model_ways (&e, TILEMM_DOUBLE, 8.0 * 3 * 256 * 256, fl, fl, 0, &c);
    CHECK (c.best == TILEMM_WAY_CPU, "steady: %s taken", tilemm_way_name (c.best));
  }

  CHECK_CASE ("model: a copy team as large as the copies into fresh pages still gain from");
  {
    tilemm_machine_facts e;
    made_up (&e);   /* into resident pages: no gain past 4 threads */
    for (int i = 0; i < e.copy_points; i++)
      e.copy_fresh_bytes_per_s[i] = 1e8 * e.copy_threads[i];   /* fresh: every thread gains */
    const int most = e.copy_threads[e.copy_points - 1];
    CHECK (tilemm_facts_copy_saturation (&e, 64) == most,
           "fresh pages gain to %d threads: saturation %d", most,
           tilemm_facts_copy_saturation (&e, 64));
  }

  CHECK_CASE ("model: a GPU call as measured in its curve's range, the fitted line past it");
  made_up (&f);   /* measured up to 1e10 flops: 0.3 ms and more; the line's fixed cost 0.15 ms */
  {
    const double n = 1000, fl = tilemm_model_flops (TILEMM_DOUBLE, n, n, n);   /* 2e9 */
    const double sq = 8.0 * 3 * n * n;
    CHECK (near (tilemm_model_gpu_call_s (&f, TILEMM_DOUBLE, sq, fl),
                 tilemm_curve_seconds (&f.gpu_curve[TILEMM_DOUBLE], fl), 1e-9),
           "a square product in range: the curve's %g s (the line's would be %g s)",
           tilemm_curve_seconds (&f.gpu_curve[TILEMM_DOUBLE], fl),
           f.gpu_call_s + sq / f.gpu_bus_bytes_per_s + fl / f.gpu_kernel_flops_per_s[TILEMM_DOUBLE]);
    const double skinny = 8.0 * (2 * 4000.0 * 125 + 4000.0 * 4000);   /* 4000x125 by 125x4000 */
    CHECK (near (tilemm_model_gpu_call_s (&f, TILEMM_DOUBLE, skinny, fl),
                 tilemm_curve_seconds (&f.gpu_curve[TILEMM_DOUBLE], fl)
                   + (skinny - sq) / f.gpu_bus_bytes_per_s,
                 1e-9),
           "a skinny product of as many flops pays its extra bytes over the bus");
    const double big = tilemm_model_flops (TILEMM_DOUBLE, 4096, 4096, 4096);
    const double big_bytes = 8.0 * 3 * 4096.0 * 4096.0;
    CHECK (near (tilemm_model_gpu_call_s (&f, TILEMM_DOUBLE, big_bytes, big),
                 f.gpu_call_s + big_bytes / f.gpu_bus_bytes_per_s + big / f.gpu_kernel_flops_per_s[TILEMM_DOUBLE],
                 1e-9),
           "past the curve: the line");
    CHECK (tilemm_model_gpu_call_s (&f, TILEMM_DOUBLE, 24, 2) == f.gpu_curve[TILEMM_DOUBLE].seconds[0],
           "below the curve: its first point (a call's fixed cost)");
  }

  CHECK_CASE ("model: copy teams share the host and stop where the copies stop gaining");
  made_up (&f);   /* copies gain up to 4 threads (1.0, 1.5, then 2.05 GB/s) */
  CHECK (tilemm_facts_copy_saturation (&f, 16) == 4, "saturates at %d",
         tilemm_facts_copy_saturation (&f, 16));
  CHECK (tilemm_model_copy_team (&f, 1, 16) == 4 && tilemm_model_copy_team (&f, 2, 16) == 4
           && tilemm_model_copy_team (&f, 8, 16) == 2 && tilemm_model_copy_team (&f, 32, 16) == 1,
         "teams of 1, 2, 8, 32: %d %d %d %d", tilemm_model_copy_team (&f, 1, 16),
         tilemm_model_copy_team (&f, 2, 16), tilemm_model_copy_team (&f, 8, 16),
         tilemm_model_copy_team (&f, 32, 16));
  CHECK (tilemm_model_copy_team (NULL, 2, 16) == 8, "not measured: an even share");
  CHECK (tilemm_model_copy_saturating_threads (&f) == 4
           && tilemm_model_copy_saturating_threads (NULL) == 0,
         "the plan's cap on a copy team: %d measured, %d not (0: none)",
         tilemm_model_copy_saturating_threads (&f), tilemm_model_copy_saturating_threads (NULL));
}

/* The GPUs the call plan of a square product of `type` takes of a host of `gpus` under `facts`
 * (named: all of them named; peers: every pair reaches the other). */
static int plan_gpus (const tilemm_machine_facts *facts, tilemm_type type, int64_t n, int gpus,
                      int peers, int named)
{
  tilemm_route r;
  memset (&r, 0, sizeof r);
  r.action = TILEMM_ROUTE_COMPUTE;
  r.compute_type = type;
  r.result_class = type == TILEMM_SINGLE ? TILEMM_CLASS_SINGLE : TILEMM_CLASS_DOUBLE;
  r.m = r.n = r.k = n;
  tilemm_call_facts cf;
  memset (&cf, 0, sizeof cf);
  cf.cpu.current = -1;
  cf.gpu.usable = 1;
  cf.gpu.total = cf.gpu.count = gpus;
  for (int g = 0; g < gpus; g++)
    {
      cf.gpu.device[g] = g;
      cf.gpu.cc_major[g] = 9;
      for (int h = 0; h < gpus; h++)
        cf.gpu.peer[g][h] = peers && h != g;
    }
  cf.gpu.peers_known = peers;
  cf.gpu.current = 0;
  cf.gpu.staging_chunk_bytes = 16 << 20;
  cf.machine = facts;
  tilemm_options o;
  tilemm_options_init (&o);
  if (named)
    {
      o.devices.count = gpus;
      for (int g = 0; g < gpus; g++)
        o.devices.device[g] = g;
    }
  tilemm_emu_options emu;
  tilemm_emu_default_options (&emu, TILEMM_DOUBLE);
  static tilemm_call_plan p;
  tilemm_error err = { TILEMM_OK, "" };
  tilemm_call_settings settings;
  tilemm_call_settings_read (&settings);
  if (tilemm_call_plan_make (&p, &r, TILEMM_BACKEND_CUDA, TILEMM_OP_NONE, TILEMM_OP_NONE, 0, &emu,
                             &o, &settings, &cf, &err)
      != TILEMM_OK)
    return -1;
  return p.workers.count;
}

/* The call plan of a square double product on two GPUs under `facts`. */
static int gpu_workers (const tilemm_machine_facts *facts, int64_t n, int named)
{
  return plan_gpus (facts, TILEMM_DOUBLE, n, 2, 0, named);
}

static void test_devices_follow_facts (void)
{
  CHECK_CASE ("devices: two GPUs only where the facts measured them beating one");
  tilemm_machine_facts f;
  made_up (&f);
  CHECK (gpu_workers (&f, 16384, 0) == 2, "16384, two GPUs 1.8x: %d", gpu_workers (&f, 16384, 0));
  CHECK (gpu_workers (&f, 256, 0) == 1, "256: the second GPU's fixed cost outweighs: %d",
         gpu_workers (&f, 256, 0));
  {
    static const double sides[] = { 2048, 8192 }, gains[] = { 0.6, 0.6 };
    measured_gain (&f, 2, sides, gains, 2);
  }
  CHECK (gpu_workers (&f, 16384, 0) == 1, "two GPUs measured slower: one (%d)",
         gpu_workers (&f, 16384, 0));
  CHECK (gpu_workers (&f, 16384, 1) == 2, "named, both whatever the facts say");
  CHECK (gpu_workers (NULL, 16384, 0) == 1, "the built-in model has seen no gain: one");
}

static void test_gain_by_size (void)
{
  CHECK_CASE ("devices: the gain of every GPU measured by size, read at the product's size: two "
              "GPUs slower at 4096, faster at 8192, and past the sizes measured the gain grows");
  /* Two large GPUs as calibration sees them: kernels timed to 2048 far below their rate when
   * filled, every GPU measured 0.6x one at 2048, 0.8x at 4096, 1.1x at 8192. */
  tilemm_machine_facts f;
  made_up (&f);
  f.threads = 32;
  f.gpu_kernel_flops_per_s[TILEMM_DOUBLE] = 1.2e13;
  f.gpu_filled_flops_per_s = 5e13;
  f.gpu_bus_bytes_per_s = 4e10;
  static const double sides[] = { 2048, 4096, 8192 }, gains[] = { 0.6, 0.8, 1.1 };
  measured_gain (&f, 2, sides, gains, 3);
  CHECK (gpu_workers (&f, 4096, 0) == 1, "4096 (measured 0.8x): %d GPUs, want 1",
         gpu_workers (&f, 4096, 0));
  CHECK (gpu_workers (&f, 8192, 0) == 2, "8192 (measured 1.1x): %d GPUs, want 2",
         gpu_workers (&f, 8192, 0));
  CHECK (gpu_workers (&f, 16384, 0) == 2, "16384 (past the sizes measured): %d GPUs, want 2",
         gpu_workers (&f, 16384, 0));
  CHECK (gpu_workers (&f, 2048, 0) == 1 && gpu_workers (&f, 1024, 0) == 1,
         "2048 and 1024: one GPU (%d, %d)", gpu_workers (&f, 2048, 0), gpu_workers (&f, 1024, 0));
  /* "auto"'s GPU way is priced on the same count. */
  for (int i = 0; i < 3; i++)
    {
      const double n = i == 0 ? 4096 : i == 1 ? 8192 : 16384;
      const double flops = tilemm_model_flops (TILEMM_DOUBLE, n, n, n), bytes = 24.0 * n * n;
      tilemm_way_costs c;
      tilemm_model_ways (&f, TILEMM_DOUBLE, bytes, flops, flops, 2, &c);
      const double one = tilemm_model_gpu_call_s (&f, TILEMM_DOUBLE, bytes, flops);
      CHECK (i == 0 ? c.seconds[TILEMM_WAY_GPU] == one
                    : c.seconds[TILEMM_WAY_GPU] < one / (i == 1 ? 1.09 : 1.12),
             "n %.0f: the GPU way %g s, one GPU %g s", n, c.seconds[TILEMM_WAY_GPU], one);
    }
  /* A batch's count by the same rule: none measured, one GPU. */
  const tilemm_gpus_product pages = { TILEMM_DOUBLE, 1024, 1024, 1024, 0, 0, 64 };
  CHECK (tilemm_model_gpus_that_pay (&f, &pages, 0.1, 2, NULL) >= 1, "a batch's count");
  f.gpu_all_count = 0;
  CHECK (tilemm_model_gpus_that_pay (&f, &pages, 0.1, 2, NULL) == 1
           && gpu_workers (&f, 16384, 0) == 1,
         "never measured: one GPU for a batch and a product");
}

/* A host of four GPUs, made up: kernels 2e13 flop/s double, links 5e10 B/s (0.9 of it while
 * all copy), 64 threads whose copies reach 8e10 B/s into resident pages and half that into
 * fresh ones (`copies` scales them), every GPU's call measured 3.9x one. */
static void four_gpus (tilemm_machine_facts *f, double copies)
{
  made_up (f);
  for (int t = 0; t < TILEMM_NTYPES; t++)
    memset (&f->gpu_curve[t], 0, sizeof f->gpu_curve[t]);   /* the fitted line: plain numbers */
  f->gpu_kernel_flops_per_s[TILEMM_DOUBLE] = 2e13;
  f->gpu_bus_bytes_per_s = 5e10;
  f->threads = 64;
  static const double rate[] = { 5e9, 1e10, 2e10, 4e10, 6e10, 8e10, 8e10 };
  f->copy_points = 7;
  for (int i = 0; i < 7; i++)
    {
      f->copy_threads[i] = 1 << i;
      f->copy_bytes_per_s[i] = rate[i] * copies;
      f->copy_fresh_bytes_per_s[i] = rate[i] * copies / 2;
    }
  f->gpus = 4;
  f->gpu_filled_flops_per_s = 0;
  f->gpu_peer_bytes_per_s = 0;
  for (int g = 0; g < 4; g++)
    {
      f->gpu[g].up_bytes_per_s = f->gpu[g].down_bytes_per_s = 5e10;
      f->gpu[g].up_busy_bytes_per_s = f->gpu[g].down_busy_bytes_per_s = 4.5e10;
    }
}

/* Every GPU (of f->gpus) measured to 8192 exactly as its stages price it (with peers or not):
 * past that the stages alone decide. */
static void measured_as_staged (tilemm_machine_facts *f, int peers)
{
  enum { POINTS = 4 };
  static const double sides[POINTS] = { 1024, 2048, 4096, 8192 };
  double gains[POINTS];
  for (int i = 0; i < POINTS; i++)
    {
      const tilemm_gpus_product p = { TILEMM_DOUBLE, sides[i], sides[i], sides[i], peers, 64, 1 };
      tilemm_gpus_price one, all;
      tilemm_model_gpus_price (f, &p, 1, &one);
      tilemm_model_gpus_price (f, &p, f->gpus, &all);
      gains[i] = (f->gpu_call_s + one.pace_s) / (f->gpu_call_s + all.pace_s);
    }
  measured_gain (f, f->gpus, sides, gains, POINTS);
}

static int pays (const tilemm_machine_facts *f, double n, int peers, int most)
{
  const tilemm_gpus_product p = { TILEMM_DOUBLE, n, n, n, peers, 64, 1 };
  return tilemm_model_product_gpus_that_pay (f, &p, most, NULL);
}

static void test_gpus_priced (void)
{
  CHECK_CASE ("model: g GPUs priced by their stages: each GPU's host bytes, the host's copies "
              "shared, the peers' bytes, the kernels on its part");
  tilemm_machine_facts f;
  four_gpus (&f, 1);
  measured_as_staged (&f, 1);
  const double n = 16384, es = 8, operand = es * n * n;
  /* The bytes: with peers each operand read once from the host, the others' shares from the
   * peers; without, the shared operand read by every GPU. */
  for (int g = 1; g <= 4; g++)
    for (int peers = 0; peers < 2; peers++)
      {
        const tilemm_gpus_product p = { TILEMM_DOUBLE, n, n, n, peers, 64, 1 };
        tilemm_gpus_price price;
        tilemm_model_gpus_price (&f, &p, g, &price);
        const double host = g * price.host_bytes;
        const double want = peers || g == 1 ? 3 * operand : (2 + g) * operand;
        CHECK (near (host, want, 1e-12), "%d GPUs, peers %d: %g host bytes, want %g", g, peers,
               host, want);
        const double peer = g > 1 && peers ? operand * (g - 1) / g : 0;
        CHECK (near (price.peer_bytes, peer, 1e-12) || (peer == 0 && price.peer_bytes == 0),
               "%d GPUs, peers %d: %g peer bytes each, want %g", g, peers, price.peer_bytes, peer);
        CHECK (near (price.kernel_s, tilemm_model_flops (TILEMM_DOUBLE, n, n, n) / g / 2e13, 1e-12),
               "%d GPUs: the kernels on a %d-th", g, g);
      }
  /* Everything fast and peers: all four; without peers (a machine measured without them) the
   * shared operand through the host four times outweighs the fourth GPU's kernels: three. */
  CHECK (pays (&f, n, 1, 4) == 4, "16384, peers: %d GPUs, want 4", pays (&f, n, 1, 4));
  CHECK (pays (&f, n, 1, 2) == 2, "16384 on two: %d", pays (&f, n, 1, 2));
  measured_as_staged (&f, 0);
  CHECK (pays (&f, n, 0, 4) == 3, "16384, no peers: %d GPUs, want 3", pays (&f, n, 0, 4));
  CHECK (pays (&f, n, 0, 2) == 2, "16384 on two, no peers: %d", pays (&f, n, 0, 2));
  measured_as_staged (&f, 1);
  CHECK (pays (&f, 256, 1, 4) == 1, "256: the fixed costs outweigh (%d)", pays (&f, 256, 1, 4));
  /* At every n, the count taken beats every fewer one (and is no slower than any other). */
  for (double m = 256; m <= 32768; m *= 2)
    for (int peers = 0; peers < 2; peers++)
      {
        const tilemm_gpus_product p = { TILEMM_DOUBLE, m, m, m, peers, 64, 1 };
        double took_s;
        const int took = tilemm_model_product_gpus_that_pay (&f, &p, 4, &took_s);
        for (int g = 1; g <= 4; g++)
          {
            tilemm_gpus_price price;
            tilemm_model_gpus_price (&f, &p, g, &price);
            /* (A fewer count past one as fast: a tie the plan breaks for the GPUs with less
             * of their own to do, tilemm_model_gpus_that_pay.) */
            const int tie = g > 1 && near (price.seconds, took_s, 1e-9);
            CHECK (g == took ? price.seconds == took_s
                   : g < took ? price.seconds > took_s || tie
                              : price.seconds >= took_s || near (price.seconds, took_s, 1e-9),
                   "n %.0f, peers %d: took %d GPUs (%g s), %d GPUs %g s", m, peers, took,
                   took_s, g, price.seconds);
          }
      }
  /* Host copies ten times slower: they set the pace, the same on any count: one GPU. */
  four_gpus (&f, 0.1);
  measured_as_staged (&f, 1);
  const int slow_peers = pays (&f, n, 1, 4);
  measured_as_staged (&f, 0);
  CHECK (slow_peers == 1 && pays (&f, n, 0, 4) == 1,
         "slow host copies: %d GPUs with peers, %d without, want 1", slow_peers,
         pays (&f, n, 0, 4));
  /* Peer copies slow (measured): each GPU's missing shares outweigh its kernels' gain. */
  four_gpus (&f, 1);
  f.gpu_peer_bytes_per_s = 2e9;
  measured_as_staged (&f, 1);
  CHECK (pays (&f, n, 1, 4) == 1, "slow peers: %d GPUs, want 1", pays (&f, n, 1, 4));
  f.gpu_peer_bytes_per_s = 4e11;   /* NVLink's */
  measured_as_staged (&f, 1);
  CHECK (pays (&f, n, 1, 4) == 4, "NVLink peers: %d GPUs, want 4", pays (&f, n, 1, 4));
  /* No gain where every GPU was measured slower (whatever the stages say there), nor where
   * none was measured. */
  {
    static const double sides[] = { 2048, 4096, 8192, 16384 }, gains[] = { 0.9, 0.9, 0.9, 0.9 };
    measured_gain (&f, 4, sides, gains, 4);
  }
  CHECK (pays (&f, n, 1, 4) == 1 && pays (&f, 8192, 1, 4) == 1 && pays (&f, 4096, 1, 4) == 1,
         "every GPU measured slower: %d", pays (&f, n, 1, 4));
  f.gpu_all_count = 0;
  CHECK (pays (&f, n, 1, 4) == 1, "several GPUs never measured: %d", pays (&f, n, 1, 4));
}

/* ---------------------------------------------------------------- the GPU hosts measured */

/* The GPUs of a host of H200s joined by NVLink (every pair a peer), as calibration measures
 * them: kernels timed to 2048 (double far below its rate when filled), links alone and all
 * together, the host's copies by team size, and every GPU's call against one's on square double
 * products from 256 to 8192 (one: `one_ms`, every GPU: that over `gain`, the gain a call of
 * that size and those GPUs gets from Octave). */
typedef struct {
  const char *name;
  int gpus, threads;
  double up, down, up_busy, down_busy;   /* each GPU's link alone and all copying, B/s */
  double filled, peer;                   /* the double kernels filled, the peer rate   */
  double one_ms[6], gain[6];             /* sides 256 .. 8192                          */
} h200_host;

static void h200_facts (tilemm_machine_facts *f, const h200_host *h)
{
  made_up (f);
  f->threads = h->threads;
  /* The host copies by team size (1 .. 32 threads) into resident pages and fresh ones. */
  static const double resident[] = { 6.93e9, 1.31e10, 2.78e10, 4.44e10, 8.90e10, 1.24e11 };
  static const double fresh[] = { 1.99e9, 3.72e9, 7.34e9, 1.05e10, 2.10e10, 2.08e10 };
  f->copy_points = 6;
  for (int i = 0; i < 6; i++)
    {
      f->copy_threads[i] = 1 << i;
      f->copy_bytes_per_s[i] = resident[i];
      f->copy_fresh_bytes_per_s[i] = fresh[i];
    }
  f->gpus = h->gpus;
  f->gpu_call_s = 9.9e-5;
  f->gpu_bus_bytes_per_s = 6.74e10;
  f->gpu_kernel_flops_per_s[TILEMM_SINGLE] = 3.25e13;
  f->gpu_kernel_flops_per_s[TILEMM_DOUBLE] = 1.22e13;
  /* One GPU's call to 2048: the line above (calibration's curve ends there). */
  for (int t = 0; t < TILEMM_NTYPES; t++)
    {
      memset (&f->gpu_curve[t], 0, sizeof f->gpu_curve[t]);
      for (double n = 128; n <= 2048; n *= 2)
        {
          const double flops = tilemm_model_flops ((tilemm_type) t, n, n, n);
          tilemm_curve_add (&f->gpu_curve[t], flops,
                            9.9e-5 + (double) tilemm_type_size ((tilemm_type) t) * 3 * n * n
                                       / 6.74e10
                              + flops / f->gpu_kernel_flops_per_s[t]);
        }
    }
  for (int g = 0; g < h->gpus; g++)
    {
      tilemm_gpu_facts *d = &f->gpu[g];
      d->ordinal = g;
      snprintf (d->name, sizeof d->name, "NVIDIA H200");
      d->up_bytes_per_s = h->up, d->down_bytes_per_s = h->down;
      d->up_busy_bytes_per_s = h->up_busy, d->down_busy_bytes_per_s = h->down_busy;
    }
  f->gpu_filled_flops_per_s = h->filled;
  f->gpu_peer_bytes_per_s = h->peer;
  memset (&f->gpu_all_one, 0, sizeof f->gpu_all_one);
  memset (&f->gpu_all_every, 0, sizeof f->gpu_all_every);
  f->gpu_all_count = h->gpus;
  for (int i = 0; i < 6; i++)
    {
      const double n = 256 << i, flops = tilemm_model_flops (TILEMM_DOUBLE, n, n, n);
      tilemm_curve_add (&f->gpu_all_one, flops, 1e-3 * h->one_ms[i]);
      tilemm_curve_add (&f->gpu_all_every, flops, 1e-3 * h->one_ms[i] / h->gain[i]);
    }
}

/* The GPUs the plan takes on the hosts the several-GPU issues measured, where calls from Octave
 * gave (bench/RESULTS.md): 2x H200, [0 1] over [0] 1.16x at double 4096, 1.19x at 8192, 1.28x at
 * 12288, 1.36x at 16384, 1.62x single 16384; 4x H200, double 8192 1.08x on two and 1.06x on
 * four, double 16384 1.82x on four, single 16384 2.48x on four (1.57x on two). */
static void test_hosts_measured (void)
{
  CHECK_CASE ("devices: the GPU hosts measured (2x and 4x H200): as many GPUs as Octave's calls "
              "found fastest, from the gain calibration measured to 8192");
  static const h200_host two = {
    "2x H200", 2, 32, 5.29e10, 5.45e10, 3.25e10, 4.47e10, 2.37e13, 3.15e11,
    { 0.228, 0.852, 2.40, 4.96, 13.5, 49.9 }, { 0.43, 0.69, 1.0, 1.05, 1.16, 1.19 }
  };
  static const h200_host four = {
    "4x H200", 4, 64, 5.48e10, 5.49e10, 2.19e10, 2.67e10, 1.92e13, 2.37e11,
    { 0.216, 0.703, 1.92, 4.93, 19.0, 45.9 }, { 0.33, 0.89, 1.0, 1.0, 1.05, 1.06 }
  };
  static const struct {
    const h200_host *host;
    tilemm_type type;
    int64_t n;
    int least, most;   /* the GPUs the plan may take: as fast as the best within 5% */
  } table[] = {
    { &two, TILEMM_DOUBLE, 512, 1, 1 },    { &two, TILEMM_DOUBLE, 4096, 2, 2 },
    { &two, TILEMM_DOUBLE, 8192, 2, 2 },   { &two, TILEMM_DOUBLE, 12288, 2, 2 },
    { &two, TILEMM_DOUBLE, 16384, 2, 2 },  { &two, TILEMM_SINGLE, 16384, 2, 2 },
    { &four, TILEMM_DOUBLE, 512, 1, 1 },   { &four, TILEMM_DOUBLE, 8192, 2, 4 },
    { &four, TILEMM_DOUBLE, 16384, 4, 4 }, { &four, TILEMM_SINGLE, 16384, 4, 4 },
  };
  for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
    {
      tilemm_machine_facts f;
      h200_facts (&f, table[i].host);
      const int took = plan_gpus (&f, table[i].type, table[i].n, table[i].host->gpus, 1, 0);
      CHECK (took >= table[i].least && took <= table[i].most,
             "%s, %s %lld: the plan took %d GPUs, want %d to %d", table[i].host->name,
             table[i].type == TILEMM_SINGLE ? "single" : "double", (long long) table[i].n, took,
             table[i].least, table[i].most);
      if (getenv ("TEST_FACTS_VERBOSE"))
        for (int g = 1; g <= table[i].host->gpus; g++)
          {
            const double n = (double) table[i].n;
            const tilemm_gpus_product p = { table[i].type, n, n, n, 1, 0, 1 };
            tilemm_gpus_price price;
            tilemm_model_gpus_price (&f, &p, g, &price);
            printf ("  %s %lld on %d: %.2f ms (kernels %.2f bus %.2f host %.2f peers %.2f)\n",
                    table[i].host->name, (long long) table[i].n, g, 1e3 * price.seconds,
                    1e3 * price.kernel_s, 1e3 * price.bus_s, 1e3 * price.host_s,
                    1e3 * price.peer_s);
          }
    }
}

/* ---------------------------------------------------------------- the process's facts */

static int file_count (const char *dir)
{
  char cmd[600];
  snprintf (cmd, sizeof cmd, "ls -1 '%s' 2>/dev/null | grep -c '^facts-.*\\.txt$'", dir);
  FILE *p = popen (cmd, "r");
  int n = -1;
  if (p)
    {
      if (fscanf (p, "%d", &n) != 1)
        n = -1;
      pclose (p);
    }
  return n;
}

static void test_store (void)
{
  CHECK_CASE ("store: measured once, kept under the key, read back by the next reader");
  char dir[] = "/tmp/tilemm-facts-XXXXXX";
  if (!mkdtemp (dir))
    {
      CHECK (0, "no temporary folder");
      return;
    }
  char sub[600];
  snprintf (sub, sizeof sub, "%s/cache/tilemm", dir);
  setenv ("TILEMM_CALIBRATION_DIR", sub, 1);
  /* Kept whatever else the machine runs now (the busy rule has its own case below). */
  setenv ("TILEMM_CALIBRATION", "keep", 1);
  tilemm_options o;
  tilemm_options_init (&o);

  CHECK_CASE ("parts: what a decision reads, named from its options and route before it runs");
  {
    tilemm_options c;
    tilemm_options_init (&c);
    tilemm_route r;
    memset (&r, 0, sizeof r);
    r.compute_type = TILEMM_DOUBLE;
    r.m = r.n = r.k = 100;
    const unsigned gpu = TILEMM_FACTS_COPIES | TILEMM_FACTS_GPU;
    c.backend = TILEMM_CHOOSE_CPU;
    CHECK (tilemm_decide_op_parts (&c, TILEMM_PRECISION_NATIVE, &r) == 0, "a named CPU backend reads none");
    c.backend = TILEMM_CHOOSE_GPU;
    CHECK (tilemm_decide_op_parts (&c, TILEMM_PRECISION_NATIVE, &r) == gpu, "the GPU: its copies and one GPU's call");
    c.backend = TILEMM_CHOOSE_AUTO;
    CHECK (tilemm_decide_op_parts (&c, TILEMM_PRECISION_NATIVE, &r) == (gpu | TILEMM_FACTS_WAYS (TILEMM_DOUBLE)),
           "auto: its type's ways too");
    r.m = r.n = r.k = 4096;
    CHECK (tilemm_decide_op_parts (&c, TILEMM_PRECISION_NATIVE, &r) & TILEMM_FACTS_GPUS, "every GPU where several may pay");
    CHECK (tilemm_decide_op_parts (&c, TILEMM_PRECISION_AUTO, &r) & TILEMM_FACTS_INT8,
           "\"precision\", \"auto\": the int8 GEMM's rate besides");
    c.backend = TILEMM_CHOOSE_CPU;
    CHECK (tilemm_decide_op_parts (&c, TILEMM_PRECISION_AUTO, &r) == 0,
           "\"precision\", \"auto\" on a named CPU backend: none");
    c.backend = TILEMM_CHOOSE_AUTO;
    CHECK (tilemm_decide_batch_parts (&c) == (gpu | TILEMM_FACTS_PAGES), "a batch: its pages");
  }

  CHECK_CASE ("store: a call measures the parts its decision reads, and only those");
  const unsigned double_parts = TILEMM_FACTS_WAYS (TILEMM_DOUBLE) | TILEMM_FACTS_COPIES
                                | TILEMM_FACTS_GPU;
  const tilemm_machine_facts *part = tilemm_machine_facts_with (&o, double_parts);
  CHECK (part->origin == TILEMM_FACTS_MEASURED && part->parts == double_parts
           && part->cpu[TILEMM_DOUBLE].points > 0 && part->cpu[TILEMM_SINGLE].points == 0
           && part->copy_points > 0,
         "parts %#x (asked %#x), double's CPU curve %d points, single's %d", part->parts,
         double_parts, part->cpu[TILEMM_DOUBLE].points, part->cpu[TILEMM_SINGLE].points);
  CHECK (file_count (sub) == 1, "kept at once (%d files)", file_count (sub));
  const double double_s = part->measured_s;
  const int double_points = part->cpu[TILEMM_DOUBLE].points;
  const tilemm_machine_facts *more
    = tilemm_machine_facts_with (&o, TILEMM_FACTS_WAYS (TILEMM_SINGLE));
  CHECK (more != part && more->parts == (double_parts | TILEMM_FACTS_WAYS (TILEMM_SINGLE))
           && more->cpu[TILEMM_SINGLE].points > 0
           && more->cpu[TILEMM_DOUBLE].points == double_points && file_count (sub) == 1,
         "single added beside double: parts %#x, %d files", more->parts, file_count (sub));
  CHECK (tilemm_machine_facts_with (&o, double_parts) == more,
         "what is held is not measured again");

  CHECK_CASE ("store: the int8 part measured for a decision that weighs \"precision\", \"auto\" only");
  {
    const tilemm_operand big = { TILEMM_CLASS_DOUBLE, 0, 0, 2, 1000, 1000, 0, NULL, 0 };
    tilemm_options po;
    tilemm_options_init (&po);
    po.precision = TILEMM_PRECISION_NATIVE;
    tilemm_decision d;
    tilemm_error e = { TILEMM_OK, "" };
    tilemm_status s = tilemm_decide_op (&big, TILEMM_OP_NONE, &big, TILEMM_OP_NONE, &po, &d, &e);
    CHECK (s == TILEMM_OK && d.facts && !(d.facts->parts & TILEMM_FACTS_INT8),
           "native: status %d (%s), parts %#x", (int) s, e.detail, d.facts ? d.facts->parts : 0u);
    po.precision = TILEMM_PRECISION_AUTO;
    s = tilemm_decide_op (&big, TILEMM_OP_NONE, &big, TILEMM_OP_NONE, &po, &d, &e);
    CHECK (s == TILEMM_OK && d.facts && (d.facts->parts & TILEMM_FACTS_INT8),
           "auto: status %d (%s), parts %#x", (int) s, e.detail, d.facts ? d.facts->parts : 0u);
  }

  const tilemm_machine_facts *f = tilemm_machine_facts_for (&o);
  CHECK (f->parts == TILEMM_FACTS_ALL && f->measured_s > double_s,
         "every part for tilemm_info: %#x; one type's %.2f s of %.2f in all", f->parts, double_s,
         f->measured_s);
  CHECK (f && f->origin == TILEMM_FACTS_MEASURED && f->cpu_measured && !f->host_measured,
         "measured (the CPU's; no host product given): origin %s, %s",
         tilemm_facts_origin_name (f->origin), f->where);
  CHECK (strncmp (f->where, sub, strlen (sub)) == 0 && file_count (sub) == 1,
         "kept in %s (%d files)", f->where, file_count (sub));
  char key[1024];
  tilemm_machine_key (NULL, key, sizeof key);
  CHECK (strcmp (f->key, key) == 0 && strstr (key, "tilemm=") && strstr (key, "cpu=")
           && strstr (key, "gpus=") && strstr (key, "host_product=none"),
         "the key: %s", key);
  CHECK (tilemm_machine_facts_for (&o) == f, "the same facts at the next call");
  const double measured_s = f->measured_s;
  CHECK (measured_s > 0 && measured_s < 30, "measuring took %.2f s", measured_s);
  const tilemm_machine_facts *again = tilemm_machine_facts_measure (&o);
  CHECK (again != f && again->origin == TILEMM_FACTS_MEASURED && file_count (sub) == 1,
         "measured again on demand, the same file (%d)", file_count (sub));
  CHECK (f->cpu_measured && f->cpu[TILEMM_DOUBLE].points > 0, "the first facts still readable");

  CHECK_CASE ("store: another key, another file; a store of another key is never read");
  setenv ("OMP_NUM_THREADS", "1", 1);
  /* (The key reads the setting; the facts are made again at most once a second.) */
  sleep (1);
  const tilemm_machine_facts *other = tilemm_machine_facts_for (&o);
  CHECK (other != again && strstr (other->key, "OMP_NUM_THREADS=1") && file_count (sub) == 2,
         "%d files, key %s", file_count (sub), other->key);
  unsetenv ("OMP_NUM_THREADS");
  sleep (1);
  const tilemm_machine_facts *back = tilemm_machine_facts_for (&o);
  CHECK (back->origin == TILEMM_FACTS_STORED && strcmp (back->key, again->key) == 0,
         "the first key again: read from its file (%s)", tilemm_facts_origin_name (back->origin));

  CHECK_CASE ("store: facts measured while other processes keep the CPUs busy: used, not kept");
  setenv ("TILEMM_CALIBRATION", "on", 1);
  {
    /* As many processes spinning as there are CPUs: about half the CPUs' time is theirs. */
    long cpus = sysconf (_SC_NPROCESSORS_ONLN);
    cpus = cpus < 1 ? 1 : cpus > 64 ? 64 : cpus;
    pid_t spinner[64];
    int started = 0;
    for (long i = 0; i < cpus; i++)
      {
        const pid_t pid = fork ();
        if (pid == 0)
          for (volatile unsigned long x = 0;; x++)
            ;
        if (pid > 0)
          spinner[started++] = pid;
      }
    const int files = file_count (sub);
    const tilemm_machine_facts *busy = tilemm_machine_facts_measure (&o);
    for (int i = 0; i < started; i++)
      {
        kill (spinner[i], SIGKILL);
        waitpid (spinner[i], NULL, 0);
      }
    CHECK (started == cpus, "%d of %ld spinners started", started, cpus);
    CHECK (busy->origin == TILEMM_FACTS_MEASURED && busy->others_cpu_share > 0.25
             && strstr (busy->where, "not kept: the machine was busy") && file_count (sub) == files,
           "others took %.2f of the CPUs: %s (%d files, %d before)", busy->others_cpu_share,
           busy->where, file_count (sub), files);
  }

  CHECK_CASE ("store: off at once; where it cannot be written, measured and used, not kept");
  setenv ("TILEMM_CALIBRATION", "off", 1);
  const tilemm_machine_facts *off = tilemm_machine_facts_for (&o);
  CHECK (off->origin == TILEMM_FACTS_MODEL && strstr (off->where, "TILEMM_CALIBRATION"),
         "off: %s", off->where);
  setenv ("TILEMM_CALIBRATION", "on", 1);
  {
    /* What a call's start read into its options is what the facts follow (exec/prepare.c): "off"
     * there, whatever the environment says now; "on" there, though the environment says off. */
    tilemm_options held = o;
    tilemm_calibration_in_effect (&o, &held.calibration);
    CHECK (held.calibration.mode == TILEMM_CALIBRATION_ON && strcmp (held.calibration.dir, sub) == 0,
           "read now: mode %d, folder %s", (int) held.calibration.mode, held.calibration.dir);
    held.calibration.mode = TILEMM_CALIBRATION_OFF;
    const tilemm_machine_facts *held_off = tilemm_machine_facts_for (&held);
    CHECK (held_off->origin == TILEMM_FACTS_MODEL, "the options say off: %s", held_off->where);
    held.calibration.mode = TILEMM_CALIBRATION_ON;
    setenv ("TILEMM_CALIBRATION", "off", 1);
    const tilemm_machine_facts *held_on = tilemm_machine_facts_for (&held);
    CHECK (held_on->origin != TILEMM_FACTS_MODEL, "the options say on: %s", held_on->where);
    setenv ("TILEMM_CALIBRATION", "on", 1);
  }
  char blocked[700];
  snprintf (blocked, sizeof blocked, "%s/file", dir);
  FILE *plug = fopen (blocked, "w");   /* a file where the folder should be */
  if (plug)
    fclose (plug);
  snprintf (sub, sizeof sub, "%s/file/tilemm", dir);
  setenv ("TILEMM_CALIBRATION_DIR", sub, 1);
  sleep (1);
  const tilemm_machine_facts *unkept = tilemm_machine_facts_for (&o);
  CHECK (unkept->origin == TILEMM_FACTS_MEASURED && strstr (unkept->where, "not kept"),
         "measured, not kept: %s", unkept->where);
  char cmd[700];
  snprintf (cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system (cmd) != 0)
    printf ("  (could not remove %s)\n", dir);
  unsetenv ("TILEMM_CALIBRATION_DIR");
}

/* ---------------------------------------------------------------- host teams (issue 41) */

/* The host BLAS beside tilemm: none; an OpenBLAS pthreads pool of one thread a CPU whose idle
 * threads spin after each call; the same pool passive (OpenMP with a passive wait policy). */
enum { BLAS_NONE, BLAS_SPINNING, BLAS_PASSIVE, BLAS_KINDS };

/* The plan's threads for each way on a machine of `threads` host threads with `blas` beside. */
typedef struct {
  int cpu_256, cpu_4096;   /* the CPU backend's team: a 256 and a 4096 double product        */
  int pages;               /* a CPU batch of 1000 pages of 64×64 double                      */
  int parts;               /* a split's parts apart and back, 2048 real × complex          */
  int emulated;            /* the emulated CPU scheme's loops, 512 double                    */
  int copy;                /* each of two GPU workers' copy teams                            */
} way_threads;

static way_threads plan_threads (int threads, int blas)
{
  tilemm_machine_facts f;
  tilemm_facts_model (&f, NULL);
  memset (&f.host_blas, 0, sizeof f.host_blas);
  if (blas != BLAS_NONE)
    {
      snprintf (f.host_blas.name, sizeof f.host_blas.name, "%s",
                blas == BLAS_SPINNING ? "openblas-pthreads" : "openblas-openmp");
      f.host_blas.threads = threads;
      f.host_blas.spins = blas == BLAS_SPINNING;
    }
  way_threads w;
  tilemm_plan plan;
  tilemm_plan_make (&plan, TILEMM_BACKEND_CPU, TILEMM_DOUBLE, 256, 256, 256, NULL);
  w.cpu_256 = tilemm_plan_cpu_threads (
    &plan, &f, tilemm_team_threads_left (threads));
  tilemm_plan_make (&plan, TILEMM_BACKEND_CPU, TILEMM_DOUBLE, 4096, 4096, 4096, NULL);
  w.cpu_4096 = tilemm_plan_cpu_threads (
    &plan, &f, tilemm_team_threads_left (threads));
  tilemm_route r;
  memset (&r, 0, sizeof r);
  r.action = TILEMM_ROUTE_COMPUTE;
  r.compute_type = TILEMM_DOUBLE;
  r.m = r.n = r.k = 64;
  tilemm_batch_plan batch;
  tilemm_error err;
  w.pages = tilemm_batch_plan_make (&r, test_pages_shape (&r, 1000), threads, TILEMM_CPU_ISA_DEFAULT, TILEMM_CHOOSE_CPU,
                                    0, 0, 0, -1, &f, &batch, &err) == TILEMM_OK ? batch.threads
                                                                                 : -1;
  /* (The call plan's host_threads, which run.c's parts and the emulated branches take.) */
  w.parts = tilemm_team_threads_left (threads);
  w.emulated = tilemm_team_threads_left (threads);
  tilemm_host_facts host;
  memset (&host, 0, sizeof host);
  host.threads = threads;
  const tilemm_workers two = { 2, { 0, 1 } };
  tilemm_copy_team teams[TILEMM_MAX_WORKERS];
  tilemm_plan_copy_teams (&host, NULL, &two, 0, 0, teams);
  w.copy = teams[0].threads == teams[1].threads ? teams[0].threads : -1;
  return w;
}

static void test_host_teams (void)
{
  CHECK_CASE ("teams: each way's threads in the plan, by machine shape and the host BLAS's pool: "
              "never every core from four up, a 256 product no team of every thread, a spinning "
              "pool's cores not taken from the teams");
  static const struct {
    int threads, blas;
    way_threads want;
  } table[] = {
    /* threads, BLAS       cpu_256 cpu_4096 pages parts emulated copy */
    { 2, BLAS_NONE,      { 2, 2, 2, 2, 2, 1 } },
    { 2, BLAS_SPINNING,  { 2, 2, 2, 2, 2, 1 } },
    { 2, BLAS_PASSIVE,   { 2, 2, 2, 2, 2, 1 } },
    { 16, BLAS_NONE,     { 15, 15, 15, 15, 15, 7 } },
    { 16, BLAS_SPINNING, { 15, 15, 15, 15, 15, 7 } },
    { 16, BLAS_PASSIVE,  { 15, 15, 15, 15, 15, 7 } },
    { 32, BLAS_NONE,     { 16, 30, 30, 30, 30, 15 } },
    { 32, BLAS_SPINNING, { 16, 30, 30, 30, 30, 15 } },
    { 32, BLAS_PASSIVE,  { 16, 30, 30, 30, 30, 15 } },
  };
  for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
    {
      const way_threads got = plan_threads (table[i].threads, table[i].blas);
      const way_threads *want = &table[i].want;
      CHECK (memcmp (&got, want, sizeof got) == 0,
             "%d threads, BLAS %d: cpu 256 %d (%d), cpu 4096 %d (%d), pages %d (%d), parts %d "
             "(%d), emulated %d (%d), copy %d (%d)",
             table[i].threads, table[i].blas, got.cpu_256, want->cpu_256, got.cpu_4096,
             want->cpu_4096, got.pages, want->pages, got.parts, want->parts, got.emulated,
             want->emulated, got.copy, want->copy);
      if (table[i].threads >= 4)
        CHECK (got.cpu_256 < table[i].threads && got.cpu_4096 < table[i].threads
                 && got.pages < table[i].threads && got.parts < table[i].threads
                 && got.emulated < table[i].threads && 2 * got.copy < table[i].threads,
               "%d threads: a team of every core", table[i].threads);
    }
}

/* A host's `*` as calibration meets it: 1 us and 2 GF/s, but its runs of 128 x 128 take 100
 * times that for 0.1 s from the first (another library's threads busy beside it, then asleep);
 * no run takes real time. */
typedef struct {
  double first_at_128;
  int calls_at_128;
} fake_host;

static double fake_host_seconds (void *ctx, tilemm_type type, int64_t m, int64_t n, int64_t k,
                                 int runs)
{
  fake_host *h = ctx;
  const double s = 1e-6 + tilemm_model_flops (type, (double) m, (double) n, (double) k) / 2e9;
  if (m != 128)
    return s;
  h->calls_at_128 += runs;
  if (h->first_at_128 == 0)
    h->first_at_128 = tilemm_now_s ();
  return tilemm_now_s () - h->first_at_128 < 0.1 ? 100 * s : s;
}

static void test_ways_out_of_line (void)
{
  CHECK_CASE ("calibration: a point far out of line with the last taken again after a pause");
  fake_host h = { 0, 0 };
  tilemm_host_product host;
  memset (&host, 0, sizeof host);
  host.seconds = fake_host_seconds;
  host.ctx = &h;
  tilemm_machine_facts f = *tilemm_facts_builtin ();
  tilemm_error err = { TILEMM_OK, "" };
  const tilemm_status st = tilemm_calibrate_parts (&host, TILEMM_FACTS_WAYS (TILEMM_DOUBLE), &f,
                                                   &err);
  CHECK (st == TILEMM_OK, "%s", err.detail);
  const tilemm_curve *c = &f.host[TILEMM_DOUBLE];
  const double f128 = tilemm_model_flops (TILEMM_DOUBLE, 128, 128, 128);
  const double f256 = tilemm_model_flops (TILEMM_DOUBLE, 256, 256, 256);
  int at128 = -1, at256 = -1;
  for (int i = 0; i < c->points; i++)
    {
      at128 = c->flops[i] == f128 ? i : at128;
      at256 = c->flops[i] == f256 ? i : at256;
    }
  const double want = 1e-6 + f128 / 2e9;
  CHECK (at128 >= 0 && near (c->seconds[at128], want, 1e-9),
         "the host's 128: %g ms, not %g (%d calls there)", at128 >= 0 ? 1e3 * c->seconds[at128] : -1,
         1e3 * want, h.calls_at_128);
  CHECK (at256 >= 0, "the host's curve ended at 128 (%d points)", c->points);
}

int main (void)
{
  test_curves ();
  test_ways_out_of_line ();
  test_text ();
  test_ways ();
  test_auto_follows_facts ();
  test_devices_follow_facts ();
  test_gain_by_size ();
  test_gpus_priced ();
  test_hosts_measured ();
  test_store ();
  test_host_teams ();
  return check_summary ("test_facts");
}
