/* simulated.c — the CPU backend's simulated devices (backend.h: tilemm_sim_backend_ops): each
 * device copies its panel's operands into memory of its own, computes there with the CPU backend
 * and copies its piece of C back, as a GPU would; for tests, a device can be made slow or fail
 * (the plan's tilemm_sim_faults).  This is how CI tests products spread over several devices.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 */
#define _POSIX_C_SOURCE 200809L

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backend.h"
#include "call_plan.h"

/* Bytes all simulated devices hold now, for the leak tests (a counter, never read to decide). */
static atomic_size_t sim_held;

size_t tilemm_sim_bytes_held (void)
{
  return atomic_load (&sim_held);
}

/* One simulated device's memory: its panel of Bᵀ, rows of A and piece of C, packed. */
typedef struct {
  void *buffer;
  size_t bytes;
} sim_device;

/* One product's simulated devices (sim_begin makes it, sim_end frees it). */
typedef struct {
  const tilemm_call_plan *plan;   /* the call's, whose emulated branches the statistics read */
  tilemm_sim_faults faults;
  sim_device dev[TILEMM_MAX_WORKERS];
  int64_t panels_done[TILEMM_MAX_WORKERS];
} sim_state;

static tilemm_status sim_probe (tilemm_error *err)
{
  return tilemm_error_set (err, TILEMM_OK, NULL);
}

static void sim_facts (int with_budgets, tilemm_device_facts *facts)
{
  (void) with_budgets;
  memset (facts, 0, sizeof *facts);
  facts->usable = 1;
  facts->current = 0;
}

static tilemm_status sim_begin (const void *config, void **state, tilemm_error *err)
{
  if (!config)
    return tilemm_error_set (err, TILEMM_EINVAL, "simulated devices: no call plan");
  sim_state *s = calloc (1, sizeof *s);
  if (!s)
    return tilemm_error_set (err, TILEMM_ENOMEM, "no memory for the simulated devices");
  s->plan = (const tilemm_call_plan *) config;
  s->faults = s->plan->sim_faults;
  *state = s;
  return TILEMM_OK;
}

static void sim_release_device (sim_device *d)
{
  free (d->buffer);
  atomic_fetch_sub (&sim_held, d->bytes);
  d->buffer = NULL;
  d->bytes = 0;
}

static void sim_end (void *state, tilemm_status status)
{
  (void) status;
  sim_state *s = state;
  if (!s)
    return;
  for (int w = 0; w < TILEMM_MAX_WORKERS; w++)
    sim_release_device (&s->dev[w]);
  free (s);
}

static tilemm_status sim_reserve (sim_device *d, size_t bytes, tilemm_error *err)
{
  if (d->bytes >= bytes)
    return TILEMM_OK;
  sim_release_device (d);
  if (!(d->buffer = malloc (bytes ? bytes : 1)))
    return tilemm_error_set (err, TILEMM_EDEVMEM, "simulated allocation of %zu bytes", bytes);
  d->bytes = bytes;
  atomic_fetch_add (&sim_held, bytes);
  return TILEMM_OK;
}

/* Copies a view's columns into (or out of) a packed column-major buffer. */
static void sim_copy (const tilemm_view *v, void *packed, int to_packed)
{
  const size_t es = tilemm_type_size (v->type), line = (size_t) v->rows * es;
  for (int64_t j = 0; j < v->cols; j++)
    {
      char *host = (char *) v->data + (size_t) (j * v->stride) * es;
      char *dev = (char *) packed + (size_t) j * line;
      if (to_packed)
        memcpy (dev, host, line);
      else
        memcpy (host, dev, line);
    }
}

/* A device set to fail after 0 panels fails as its worker starts, before it takes one: so the
 * failure happens however the other workers drain the queue (on a machine of 2 CPUs they could
 * take every panel first, and a failure at the first panel would then never come). */
static tilemm_status sim_worker_start (void *state, int worker, int device,
                                       const tilemm_copy_team *team, tilemm_error *err)
{
  (void) worker;
  (void) team;
  const sim_state *s = state;
  if (device == s->faults.fail_device && s->faults.fail_after == 0)
    return tilemm_error_set (err, TILEMM_ECUDA, "simulated failure after 0 panels");
  return TILEMM_OK;
}

/* Simulated devices keep nothing between products (they have no cost to amortize). */
static void sim_worker_finish (void *state, int worker, int device, int failed)
{
  (void) device;
  (void) failed;
  sim_release_device (&((sim_state *) state)->dev[worker]);
}

/* A panel's operands on worker's "device": reserved, A and B copied in; the views of the
 * device's copies in *va, *vb, *vc.  The slow and failing devices act here. */
static tilemm_status sim_upload (sim_state *s, int worker, const tilemm_view *a,
                                 const tilemm_view *b, const tilemm_view *c, tilemm_view *va,
                                 tilemm_view *vb, tilemm_view *vc, tilemm_error *err)
{
  const int device = worker; /* simulated device w is worker w's */
  if (device == s->faults.slow_device && s->faults.slow_ms > 0)
    {
      const struct timespec pause = { s->faults.slow_ms / 1000,
                                      (long) (s->faults.slow_ms % 1000) * 1000000L };
      nanosleep (&pause, NULL);
    }
  const size_t es = tilemm_type_size (a->type);
  const size_t na = (size_t) (a->rows * a->cols), nb = (size_t) (b->rows * b->cols),
               nc = c ? (size_t) (c->rows * c->cols) : 0;
  sim_device *d = &s->dev[worker];
  tilemm_status status = sim_reserve (d, (na + nb + nc) * es, err);
  if (status != TILEMM_OK)
    return status;
  if (device == s->faults.fail_device && s->panels_done[worker] >= s->faults.fail_after)
    return tilemm_error_set (err, TILEMM_ECUDA, "simulated failure after %d panels",
                             s->faults.fail_after);
  char *da = (char *) d->buffer, *db = da + na * es, *dc = db + nb * es;
  tilemm_view_init (va, a->type, a->rows, a->cols, a->rows > 0 ? a->rows : 1, da);
  tilemm_view_init (vb, b->type, b->rows, b->cols, b->rows > 0 ? b->rows : 1, db);
  if (c)
    tilemm_view_init (vc, c->type, c->rows, c->cols, c->rows > 0 ? c->rows : 1, dc);
  sim_copy (a, da, 1);
  sim_copy (b, db, 1);
  return TILEMM_OK;
}

static tilemm_status sim_product (void *state, int worker, const tilemm_plan *plan,
                                  tilemm_op op_a, const tilemm_view *a, tilemm_op op_b,
                                  const tilemm_view *b, const tilemm_view *c,
                                  const tilemm_stop *stop, tilemm_error *err)
{
  sim_state *s = state;
  tilemm_view va, vb, vc;
  tilemm_status status = sim_upload (s, worker, a, b, c, &va, &vb, &vc, err);
  if (status != TILEMM_OK)
    return status;
  /* Compute on the device's own copies, then "download": as the GPU does. */
  if ((status = tilemm_cpu_multiply_op (plan, op_a, &va, op_b, &vb, &vc, stop, err)) != TILEMM_OK)
    return status;
  sim_copy (c, vc.data, 0);
  s->panels_done[worker]++;
  return TILEMM_OK;
}

static tilemm_status sim_emu_stats (void *state, int worker, const tilemm_emu_options *options,
                                    tilemm_op op_a, const tilemm_view *a, tilemm_op op_b,
                                    const tilemm_view *b, tilemm_emu_stats *stats,
                                    tilemm_error *err)
{
  (void) options;
  sim_state *s = state;
  tilemm_view va, vb;
  tilemm_status status = sim_upload (s, worker, a, b, NULL, &va, &vb, NULL, err);
  if (status != TILEMM_OK)
    return status;
  if ((status = tilemm_emu_stats_cpu_planned (s->plan->emu_branches.threads,
                                              s->plan->emu_branches.needs_ratios, op_a, &va, op_b,
                                              &vb, stats, err))
      == TILEMM_OK)
    s->panels_done[worker]++;
  return status;
}

static tilemm_status sim_emu_product (void *state, int worker, const tilemm_emu_plan *plan,
                                      tilemm_op op_a, const tilemm_view *a, tilemm_op op_b,
                                      const tilemm_view *b, const tilemm_view *c,
                                      const tilemm_stop *stop, tilemm_emu_plan *used,
                                      tilemm_error *err)
{
  sim_state *s = state;
  if (tilemm_stop_requested (stop))
    return tilemm_error_set (err, TILEMM_EINTERRUPTED, "interrupted");
  tilemm_view va, vb, vc;
  tilemm_status status = sim_upload (s, worker, a, b, c, &va, &vb, &vc, err);
  if (status != TILEMM_OK)
    return status;
  *used = *plan;
  if ((status = tilemm_emu_run_cpu_op (plan, op_a, &va, op_b, &vb, &vc, err)) != TILEMM_OK)
    return status;
  sim_copy (c, vc.data, 0);
  s->panels_done[worker]++;
  return TILEMM_OK;
}

const tilemm_backend_ops tilemm_sim_backend_ops = {
  .name = "simulated",
  .device_kind = "simulated device",
  .probe = sim_probe,
  .facts = sim_facts,
  .begin = sim_begin,
  .end = sim_end,
  .worker_start = sim_worker_start,
  .worker_finish = sim_worker_finish,
  .product = sim_product,
  .emu_stats = sim_emu_stats,
  .emu_product = sim_emu_product,
  .emu_whole = NULL, /* an emulated product on simulated devices always takes two passes */
};
