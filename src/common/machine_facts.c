/* machine_facts.c — the facts' curves, the built-in model and the facts as text (see
 * machine_facts.h).
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <time.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "machine_facts.h"

/* ---------------------------------------------------------------- curves */

double tilemm_curve_seconds (const tilemm_curve *c, double flops)
{
  if (c->points <= 0)
    return c->flops_per_s > 0 ? c->fixed_s + flops / c->flops_per_s : INFINITY;
  const int last = c->points - 1;
  if (flops <= c->flops[0])
    return c->seconds[0];
  if (flops >= c->flops[last])
    return c->seconds[last] * flops / c->flops[last];
  int i = 0;
  while (i + 1 < last && flops > c->flops[i + 1])
    i++;
  const double x0 = log (c->flops[i]), x1 = log (c->flops[i + 1]);
  const double y0 = log (c->seconds[i]), y1 = log (c->seconds[i + 1]);
  return exp (y0 + (y1 - y0) * (log (flops) - x0) / (x1 - x0));
}

int tilemm_curve_add_episodes (tilemm_curve *c, double flops, double seconds, double episodes)
{
  if (c->points >= TILEMM_CURVE_POINTS || !(flops > 0) || !(seconds > 0) || !isfinite (flops)
      || !isfinite (seconds))
    return 0;
  int at = c->points;
  while (at > 0 && c->flops[at - 1] >= flops)
    at--;
  if (at < c->points && c->flops[at] == flops)
    return 0;
  const size_t moved = (size_t) (c->points - at) * sizeof (double);
  memmove (c->flops + at + 1, c->flops + at, moved);
  memmove (c->seconds + at + 1, c->seconds + at, moved);
  memmove (c->episodes + at + 1, c->episodes + at, moved);
  c->flops[at] = flops;
  c->seconds[at] = seconds;
  c->episodes[at] = episodes >= 1 && isfinite (episodes) ? episodes : 0;
  c->points++;
  /* A larger product never takes less time: where a measurement says so, the smaller product's
   * was the outlier (a run slowed by something else is far likelier than one sped up). */
  for (int i = c->points - 2; i >= 0; i--)
    if (c->seconds[i] > c->seconds[i + 1])
      c->seconds[i] = c->seconds[i + 1];
  return 1;
}

int tilemm_curve_add (tilemm_curve *c, double flops, double seconds)
{
  return tilemm_curve_add_episodes (c, flops, seconds, 0);
}

double tilemm_curve_episodes (const tilemm_curve *c, double flops)
{
  int nearest = -1;
  double distance = INFINITY;
  for (int i = 0; i < c->points; i++)
    if (c->episodes[i] >= 1 && fabs (log (c->flops[i] / flops)) < distance)
      {
        distance = fabs (log (c->flops[i] / flops));
        nearest = i;
      }
  return nearest >= 0 ? c->episodes[nearest] : 1.0;
}

/* ---------------------------------------------------------------- the built-in model */

/* H100, 16 cores, OpenBLAS, from Octave (bench/RESULTS.md): the crossover sweep gave a GPU call's
 * fixed cost, its slow first megabytes and `*`'s rates near the crossover; the staged bus and the
 * preferred kernels' rates come from the end-to-end table; a worker's panel costs ~0.1–0.2 ms (its
 * copies, its pipeline filled and drained), so a panel of ten times that keeps the cost under a
 * tenth; the loop of `*` over pages from bench/pages.sh's grid less the interpreter's own cost a
 * page; the CPU's batched path from bench/pages.m.  The CPU backend's plain product is not in
 * it: where nothing was measured, "auto" weighs only `*` and the GPU. */
#define LINE(fixed, rate) { .fixed_s = (fixed), .flops_per_s = (rate) }
#define BY_PRECISION(single, dbl)                                                            \
  { [TILEMM_SINGLE] = single, [TILEMM_DOUBLE] = dbl, [TILEMM_COMPLEX_SINGLE] = single,       \
    [TILEMM_COMPLEX_DOUBLE] = dbl }
static const tilemm_machine_facts builtin = {
  .origin = TILEMM_FACTS_MODEL,
  .where = "the built-in model",
  .others_cpu_share = -1,
  .host = BY_PRECISION (LINE (0, 2.5e11), LINE (0, 2.0e11)),
  .host_page = BY_PRECISION (LINE (2.0e-5, 1.2e11), LINE (2.0e-5, 6.0e10)),
  .cpu_small_page_s = 2.0e-8,
  .cpu_page_s = 3.0e-7,
  .cpu_thread_flops_per_s = 3.0e9,
  .cpu_small_flops_per_s = 1.0e9,
  .cpu_region_s = 1.0e-4,
  .gpus = 1,
  .gpu_call_s = 1.0e-4,
  .gpu_first_bytes = 4.0e6,
  .gpu_first_bytes_per_s = 6.0e9,
  .gpu_bus_bytes_per_s = 3.0e10,
  .gpu_step_s = 2.0e-5,
  .gpu_panel_s = 2.0e-4,
  .gpu_panel_worth = 10.0,
  .gpu_kernel_flops_per_s = BY_PRECISION (3.7e13, 1.9e13),
  /* Set against the double kernels' rate above, not at the card's int8 peak: where nothing was
   * measured, "precision", "auto" must not promise the emulated product where the card the model
   * was tuned on did not deliver it from Octave (its emulated call does not overlap its
   * transfers), so with this rate the model prices it at best even with the native one and
   * "auto" stays native; calibration's int8 rate (machine_facts.h) decides on a real card. */
  .gpu_int8_ops_per_s = 3.0e14,
  .gpu_batch_call_s = 1.0e-4,
  .gpu_batch_flops_per_s = BY_PRECISION (3.7e13, 1.9e13),
};
#undef LINE
#undef BY_PRECISION

const tilemm_machine_facts *tilemm_facts_builtin (void)
{
  return &builtin;
}

void tilemm_facts_model (tilemm_machine_facts *facts, const char *why)
{
  *facts = *tilemm_facts_builtin ();
  if (why)
    snprintf (facts->where, sizeof facts->where, "%s", why);
}

/* The fewest threads within a tenth of the best of `rate` (0: nothing measured). */
static int saturating (const tilemm_machine_facts *facts, const double *rate)
{
  double best = 0;
  for (int i = 0; i < facts->copy_points; i++)
    if (rate[i] > best)
      best = rate[i];
  if (best <= 0)
    return 0;
  int fewest = 0;
  for (int i = 0; i < facts->copy_points; i++)
    if (rate[i] >= 0.9 * best && (fewest == 0 || facts->copy_threads[i] < fewest))
      fewest = facts->copy_threads[i];
  return fewest;
}

int tilemm_facts_copy_saturation (const tilemm_machine_facts *facts, int most)
{
  const int resident = saturating (facts, facts->copy_bytes_per_s);
  const int fresh = saturating (facts, facts->copy_fresh_bytes_per_s);
  if (resident == 0 && fresh == 0)
    return most;
  const int fewest = resident > fresh ? resident : fresh;
  return fewest < 1 ? 1 : fewest > most ? most : fewest;
}

double tilemm_now_s (void)
{
  struct timespec t;
  clock_gettime (CLOCK_MONOTONIC, &t);
  return (double) t.tv_sec + 1e-9 * (double) t.tv_nsec;
}

const char *tilemm_facts_origin_name (tilemm_facts_origin origin)
{
  switch (origin)
    {
    case TILEMM_FACTS_MEASURED:
      return "measured";
    case TILEMM_FACTS_STORED:
      return "stored";
    case TILEMM_FACTS_MODEL:
    default:
      return "model";
    }
}

/* ---------------------------------------------------------------- as text */

/* The format's first line; a file with another is measured again. */
static const char FORMAT_LINE[] = "tilemm-machine-facts 3";

typedef struct {
  char *buf;
  size_t size, used;
} text_out;

static void out (text_out *o, const char *format, ...)
{
  char line[1024];
  va_list ap;
  va_start (ap, format);
  const int n = vsnprintf (line, sizeof line, format, ap);
  va_end (ap);
  if (n <= 0)
    return;
  const size_t len = (size_t) n < sizeof line ? (size_t) n : sizeof line - 1;
  if (o->used + len < o->size)
    memcpy (o->buf + o->used, line, len + 1);
  else if (o->used < o->size)
    {
      memcpy (o->buf + o->used, line, o->size - o->used - 1);
      o->buf[o->size - 1] = '\0';
    }
  o->used += len;
}

static const char *const CURVE_NAMES[] = { "host", "host_page", "cpu", "gpu" };
enum { CURVE_KINDS = sizeof CURVE_NAMES / sizeof CURVE_NAMES[0] };

static tilemm_curve *curve_named (tilemm_machine_facts *f, int which, int type)
{
  switch (which)
    {
    case 0:
      return &f->host[type];
    case 1:
      return &f->host_page[type];
    case 2:
      return &f->cpu[type];
    default:
      return &f->gpu_curve[type];
    }
}

/* A curve's line after its name: its line's two figures, its points, the newline. */
static void print_curve_body (text_out *o, const tilemm_curve *c)
{
  out (o, " %.9g %.9g %d", c->fixed_s, c->flops_per_s, c->points);
  for (int i = 0; i < c->points; i++)
    out (o, " %.9g %.9g %.5g", c->flops[i], c->seconds[i], c->episodes[i]);
  out (o, "\n");
}

size_t tilemm_facts_print (const tilemm_machine_facts *f, char *buf, size_t size)
{
  text_out o = { buf, size, 0 };
  if (size > 0)
    buf[0] = '\0';
  out (&o, "%s\n", FORMAT_LINE);
  /* The key, a line of it at a time. */
  for (const char *k = f->key; *k;)
    {
      const char *end = strchr (k, '\n');
      const size_t len = end ? (size_t) (end - k) : strlen (k);
      out (&o, "key %.*s\n", (int) len, k);
      k += len + (end ? 1 : 0);
    }
  out (&o, "measured_s %.6g\n", f->measured_s);
  out (&o, "others_cpu %.4g\n", f->others_cpu_share);
  out (&o, "host_measured %d\ncpu_measured %d\ngpu_measured %d\n", f->host_measured,
       f->cpu_measured, f->gpu_measured);
  out (&o, "parts %u\n", f->parts);
  out (&o, "part_seconds %.4g %.4g %.4g %.4g %.4g %.4g %.4g %.4g\n", f->part_s[0], f->part_s[1],
       f->part_s[2], f->part_s[3], f->part_s[4], f->part_s[5], f->part_s[6], f->part_s[7]);
  out (&o, "part_seconds_int8 %.4g\n", f->part_s[8]);
  out (&o, "host_blas %d %d %s\n", f->host_blas.threads, f->host_blas.spins,
       f->host_blas.name[0] ? f->host_blas.name : "-");
  for (int which = 0; which < CURVE_KINDS; which++)
    for (int t = 0; t < TILEMM_NTYPES; t++)
      {
        out (&o, "curve %s %d", CURVE_NAMES[which], t);
        print_curve_body (&o, curve_named ((tilemm_machine_facts *) f, which, t));
      }
  out (&o, "cpu_batch %.9g %.9g %.9g %.9g\n", f->cpu_small_page_s, f->cpu_page_s,
       f->cpu_thread_flops_per_s, f->cpu_small_flops_per_s);
  out (&o, "cpu_region %.9g\n", f->cpu_region_s);
  out (&o, "threads %d\n", f->threads);
  out (&o, "copy %d", f->copy_points);
  for (int i = 0; i < f->copy_points; i++)
    out (&o, " %d %.9g %.9g", f->copy_threads[i], f->copy_bytes_per_s[i],
         f->copy_fresh_bytes_per_s[i]);
  out (&o, "\n");
  out (&o, "gpus %d\n", f->gpus);
  out (&o, "gpu_call %.9g %.9g %.9g %.9g %.9g %.9g %.9g\n", f->gpu_call_s, f->gpu_first_bytes,
       f->gpu_first_bytes_per_s, f->gpu_bus_bytes_per_s, f->gpu_step_s, f->gpu_panel_s,
       f->gpu_panel_worth);
  out (&o, "gpu_kernel %.9g %.9g %.9g %.9g\n", f->gpu_kernel_flops_per_s[0],
       f->gpu_kernel_flops_per_s[1], f->gpu_kernel_flops_per_s[2], f->gpu_kernel_flops_per_s[3]);
  out (&o, "gpu_int8 %.9g\n", f->gpu_int8_ops_per_s);
  out (&o, "gpu_all %d %.9g %.9g\n", f->gpu_all_count, f->gpu_all_call_s, f->gpu_all_speedup);
  /* Lines an earlier reader ignores (its facts then lack them: see tilemm_facts_parse). */
  for (int which = 0; which < 2; which++)
    {
      const tilemm_curve *c = which ? &f->gpu_all_every : &f->gpu_all_one;
      out (&o, "%s", which ? "gpu_all_every" : "gpu_all_one");
      print_curve_body (&o, c);
    }
  out (&o, "gpu_filled %.9g\n", f->gpu_filled_flops_per_s);
  out (&o, "gpu_peer %.9g\n", f->gpu_peer_bytes_per_s);
  out (&o, "gpu_batch %.9g %.9g %.9g %.9g %.9g\n", f->gpu_batch_call_s,
       f->gpu_batch_flops_per_s[0], f->gpu_batch_flops_per_s[1], f->gpu_batch_flops_per_s[2],
       f->gpu_batch_flops_per_s[3]);
  out (&o, "gpu_batch_bus %.9g\n", f->gpu_batch_bus_bytes_per_s);
  for (int g = 0; g < f->gpus && g < TILEMM_MAX_WORKERS; g++)
    {
      const tilemm_gpu_facts *d = &f->gpu[g];
      out (&o, "gpu %d %d %.9g %.9g %.9g %.9g %.9g %.9g %.9g %.9g %.9g %s\n", g, d->ordinal,
           d->up_bytes_per_s, d->down_bytes_per_s, d->up_busy_bytes_per_s,
           d->down_busy_bytes_per_s, d->kernel_flops_per_s[0], d->kernel_flops_per_s[1],
           d->kernel_flops_per_s[2], d->kernel_flops_per_s[3], d->emulated_flops_per_s,
           d->name[0] ? d->name : "-");
    }
  return o.used;
}

/* Reads `count` doubles from *p (advanced past them); 0 where one is missing. */
static int read_doubles (const char **p, double *x, int count)
{
  for (int i = 0; i < count; i++)
    {
      char *end;
      x[i] = strtod (*p, &end);
      if (end == *p)
        return 0;
      *p = end;
    }
  return 1;
}

static int read_int (const char **p, int *x)
{
  char *end;
  const long v = strtol (*p, &end, 10);
  if (end == *p || v < -1000000 || v > 1000000)
    return 0;
  *x = (int) v;
  *p = end;
  return 1;
}

/* What print_curve_body wrote, into *c; 0 where it is malformed. */
static int parse_curve_body (tilemm_curve *c, const char *p)
{
  int points;
  memset (c, 0, sizeof *c);
  double line2[2];
  if (!read_doubles (&p, line2, 2) || !read_int (&p, &points) || points < 0
      || points > TILEMM_CURVE_POINTS)
    return 0;
  c->fixed_s = line2[0];
  c->flops_per_s = line2[1];
  for (int i = 0; i < points; i++)
    {
      double xy[3];
      if (!read_doubles (&p, xy, 3) || !tilemm_curve_add_episodes (c, xy[0], xy[1], xy[2]))
        return 0;
    }
  return 1;
}

static int parse_curve (tilemm_machine_facts *f, const char *p)
{
  int which = -1, type;
  while (*p == ' ')
    p++;
  for (int w = 0; w < CURVE_KINDS; w++)
    {
      const size_t len = strlen (CURVE_NAMES[w]);
      if (strncmp (p, CURVE_NAMES[w], len) == 0 && p[len] == ' ')
        {
          which = w;
          p += len;
          break;
        }
    }
  if (which < 0 || !read_int (&p, &type) || type < 0 || type >= TILEMM_NTYPES)
    return 0;
  return parse_curve_body (curve_named (f, which, type), p);
}

static int parse_gpu (tilemm_machine_facts *f, const char *p)
{
  int g, ordinal;
  double x[9];
  if (!read_int (&p, &g) || g < 0 || g >= TILEMM_MAX_WORKERS || !read_int (&p, &ordinal)
      || !read_doubles (&p, x, 9))
    return 0;
  tilemm_gpu_facts *d = &f->gpu[g];
  d->ordinal = ordinal;
  d->up_bytes_per_s = x[0], d->down_bytes_per_s = x[1];
  d->up_busy_bytes_per_s = x[2], d->down_busy_bytes_per_s = x[3];
  for (int t = 0; t < TILEMM_NTYPES; t++)
    d->kernel_flops_per_s[t] = x[4 + t];
  d->emulated_flops_per_s = x[8];
  while (*p == ' ')
    p++;
  snprintf (d->name, sizeof d->name, "%s", strcmp (p, "-") ? p : "");
  return 1;
}

/* One line (NUL-terminated, no newline) into *f; 0 where it is malformed. */
static int parse_line (tilemm_machine_facts *f, const char *line, size_t *key_used)
{
  const char *sp = strchr (line, ' ');
  if (!sp)
    return 0;
  const size_t nlen = (size_t) (sp - line);
  const char *p = sp + 1;
#define NAMED(s) (nlen == sizeof (s) - 1 && strncmp (line, s, nlen) == 0)
  if (NAMED ("key"))
    {
      const size_t len = strlen (p);
      if (*key_used + len + 2 > sizeof f->key)
        return 0;
      memcpy (f->key + *key_used, p, len);
      *key_used += len;
      f->key[(*key_used)++] = '\n';
      f->key[*key_used] = '\0';
      return 1;
    }
  if (NAMED ("measured_s"))
    return read_doubles (&p, &f->measured_s, 1);
  if (NAMED ("others_cpu"))
    return read_doubles (&p, &f->others_cpu_share, 1);
  if (NAMED ("host_measured"))
    return read_int (&p, &f->host_measured);
  if (NAMED ("cpu_measured"))
    return read_int (&p, &f->cpu_measured);
  if (NAMED ("gpu_measured"))
    return read_int (&p, &f->gpu_measured);
  if (NAMED ("curve"))
    return parse_curve (f, p);
  if (NAMED ("parts"))
    {
      int parts;
      if (!read_int (&p, &parts) || parts < 0 || parts > (int) TILEMM_FACTS_ALL)
        return 0;
      f->parts = (unsigned) parts;
      return 1;
    }
  if (NAMED ("part_seconds_int8"))
    return read_doubles (&p, &f->part_s[8], 1);
  if (NAMED ("part_seconds"))
    return read_doubles (&p, f->part_s, 8);
  if (NAMED ("host_blas"))
    {
      if (!read_int (&p, &f->host_blas.threads) || !read_int (&p, &f->host_blas.spins))
        return 0;
      while (*p == ' ')
        p++;
      snprintf (f->host_blas.name, sizeof f->host_blas.name, "%.63s", strcmp (p, "-") ? p : "");
      return 1;
    }
  if (NAMED ("cpu_batch"))
    {
      double x[4];
      if (!read_doubles (&p, x, 4))
        return 0;
      f->cpu_small_page_s = x[0], f->cpu_page_s = x[1], f->cpu_thread_flops_per_s = x[2];
      f->cpu_small_flops_per_s = x[3];
      return 1;
    }
  if (NAMED ("cpu_region"))
    return read_doubles (&p, &f->cpu_region_s, 1);
  if (NAMED ("threads"))
    return read_int (&p, &f->threads);
  if (NAMED ("copy"))
    {
      if (!read_int (&p, &f->copy_points) || f->copy_points < 0
          || f->copy_points > TILEMM_COPY_POINTS)
        return 0;
      for (int i = 0; i < f->copy_points; i++)
        if (!read_int (&p, &f->copy_threads[i]) || !read_doubles (&p, &f->copy_bytes_per_s[i], 1)
            || !read_doubles (&p, &f->copy_fresh_bytes_per_s[i], 1))
          return 0;
      return 1;
    }
  if (NAMED ("gpus"))
    return read_int (&p, &f->gpus) && f->gpus >= 0 && f->gpus <= TILEMM_MAX_WORKERS;
  if (NAMED ("gpu_call"))
    {
      double x[7];
      if (!read_doubles (&p, x, 7))
        return 0;
      f->gpu_call_s = x[0], f->gpu_first_bytes = x[1], f->gpu_first_bytes_per_s = x[2];
      f->gpu_bus_bytes_per_s = x[3], f->gpu_step_s = x[4], f->gpu_panel_s = x[5];
      f->gpu_panel_worth = x[6];
      return 1;
    }
  if (NAMED ("gpu_kernel"))
    return read_doubles (&p, f->gpu_kernel_flops_per_s, TILEMM_NTYPES);
  if (NAMED ("gpu_int8"))
    return read_doubles (&p, &f->gpu_int8_ops_per_s, 1);
  if (NAMED ("gpu_all"))
    return read_int (&p, &f->gpu_all_count) && read_doubles (&p, &f->gpu_all_call_s, 1)
           && read_doubles (&p, &f->gpu_all_speedup, 1);
  if (NAMED ("gpu_all_one"))
    return parse_curve_body (&f->gpu_all_one, p);
  if (NAMED ("gpu_all_every"))
    return parse_curve_body (&f->gpu_all_every, p);
  if (NAMED ("gpu_filled"))
    return read_doubles (&p, &f->gpu_filled_flops_per_s, 1);
  if (NAMED ("gpu_peer"))
    return read_doubles (&p, &f->gpu_peer_bytes_per_s, 1);
  if (NAMED ("gpu_batch"))
    return read_doubles (&p, &f->gpu_batch_call_s, 1)
           && read_doubles (&p, f->gpu_batch_flops_per_s, TILEMM_NTYPES);
  if (NAMED ("gpu_batch_bus"))
    return read_doubles (&p, &f->gpu_batch_bus_bytes_per_s, 1);
  if (NAMED ("gpu"))
    return parse_gpu (f, p);
#undef NAMED
  /* A line of a later minor version: ignored. */
  return 1;
}

tilemm_status tilemm_facts_parse (const char *text, tilemm_machine_facts *f)
{
  /* The parts a file does not hold are the built-in model's (facts measured part by part). */
  tilemm_facts_model (f, NULL);
  f->where[0] = '\0';
  const size_t flen = sizeof FORMAT_LINE - 1;
  if (strncmp (text, FORMAT_LINE, flen) != 0 || (text[flen] != '\n' && text[flen] != '\0'))
    return TILEMM_EINVAL;
  size_t key_used = 0;
  const char *p = text + flen + (text[flen] == '\n');
  while (*p)
    {
      const char *end = strchr (p, '\n');
      const size_t len = end ? (size_t) (end - p) : strlen (p);
      char line[1024];
      if (len >= sizeof line)
        return TILEMM_EINVAL;
      memcpy (line, p, len);
      line[len] = '\0';
      if (len > 0 && !parse_line (f, line, &key_used))
        return TILEMM_EINVAL;
      p += len + (end ? 1 : 0);
    }
  /* Facts an earlier version kept measured every GPU as one number, which cannot follow a gain
   * that grows with size: they load, without that part, so the first call that reads it measures
   * it again (the others stay as stored). */
  if ((f->parts & TILEMM_FACTS_GPUS) && f->gpu_all_count > 1 && f->gpu_all_every.points == 0)
    {
      f->parts &= ~TILEMM_FACTS_GPUS;
      f->gpu_all_count = 0;
    }
  f->origin = TILEMM_FACTS_STORED;
  return TILEMM_OK;
}
