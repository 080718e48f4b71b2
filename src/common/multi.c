/* multi.c — the shared queue of panels and the workers that drain it (see multi.h).
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 *
 * Everything a product needs lives in its own run structure on the caller's stack: the queue is
 * one atomic counter, the stop flag one atomic int, the first error behind a mutex.  No state
 * outlives a call, so a failed product leaves nothing the next one could trip on.
 */
#define _POSIX_C_SOURCE 200809L

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backend.h"
#include "multi.h"
#include "tilemm.h"

typedef struct {
  const tilemm_plan *queue;
  const tilemm_limits *limits;
  const tilemm_workers *workers;
  const tilemm_device_ops *ops;
  void *ctx;
  tilemm_op op_a, op_b;
  const tilemm_view *a, *b, *c;
  int64_t panels;
  atomic_llong next;          /* the queue: the next panel to take                     */
  atomic_int stop;            /* set by the first failure or the host's stop: take no more
                                 panels, leave the current one where the backend polls   */
  pthread_mutex_t lock;       /* guards the first error and `finished`                  */
  pthread_cond_t changed;     /* a worker finished (the caller polls the host meanwhile) */
  int finished;               /* workers whose thread has returned                      */
  tilemm_error first;
  int failed_worker;
  int started[TILEMM_MAX_WORKERS];
  int64_t done[TILEMM_MAX_WORKERS];
} multi_run;

typedef struct {
  multi_run *run;
  int worker;
} worker_arg;

/* Keeps the first failure (the others are most often its echo: a worker stopped early) and
 * names its device. */
static void multi_fail (multi_run *run, int worker, const tilemm_error *e)
{
  pthread_mutex_lock (&run->lock);
  if (run->failed_worker < 0)
    {
      run->failed_worker = worker;
      tilemm_error_set (&run->first, e->status, "%s %d (worker %d): %s", run->ops->device_kind,
                        run->workers->device[worker], worker,
                        e->detail[0] ? e->detail : tilemm_strerror (e->status));
    }
  pthread_mutex_unlock (&run->lock);
  atomic_store (&run->stop, 1);
}

/* The run a worker thread is in, for tilemm_multi_stopping (panel ops have no run argument). */
static _Thread_local multi_run *worker_run;

int tilemm_multi_stopping (void *unused)
{
  (void) unused;
  return worker_run && atomic_load (&worker_run->stop);
}

static void worker_work (multi_run *run, int w);

static void *multi_worker (void *p)
{
  const worker_arg *arg = (const worker_arg *) p;
  multi_run *run = arg->run;
  worker_run = run;
  worker_work (run, arg->worker);
  worker_run = NULL;
  pthread_mutex_lock (&run->lock);
  run->finished++;
  pthread_cond_signal (&run->changed);
  pthread_mutex_unlock (&run->lock);
  return NULL;
}

static void worker_work (multi_run *run, int w)
{
  const int device = run->workers->device[w];
  tilemm_error e = { TILEMM_OK, "" };
  if (run->ops->start && run->ops->start (run->ctx, w, device, &e) != TILEMM_OK)
    {
      run->started[w] = 1;   /* a half-made start is freed by finish too */
      multi_fail (run, w, &e);
      return;
    }
  run->started[w] = 1;
  while (!atomic_load (&run->stop))
    {
      const long long i = atomic_fetch_add (&run->next, 1);
      if (i >= run->panels)
        break;
      tilemm_panel panel;
      tilemm_plan sub;
      tilemm_status status = TILEMM_OK;
      e.status = TILEMM_OK;
      e.detail[0] = '\0';
      if (!tilemm_plan_panel (run->queue, i, &panel))
        status = tilemm_error_set (&e, TILEMM_EINVAL, "panel %lld of %lld missing", i,
                                   (long long) run->panels);
      else if ((status = tilemm_plan_for_panel (&sub, run->queue, panel.rows, panel.cols,
                                                run->limits))
               != TILEMM_OK)
        tilemm_error_set (&e, status, "no plan for panel %lld (%lld x %lld): %s", i,
                          (long long) panel.rows, (long long) panel.cols,
                          tilemm_strerror (status));
      else
        {
          /* Panel (row, col, rows, cols) of Cᵀ is C(col…, row…) = op(A)(col…, :) · op(B)(:, row…):
           * rows of A or, transposed, its columns; columns of B or, transposed, its rows. */
          const tilemm_view a
            = tilemm_view_op_sub (run->op_a, run->a, panel.col, 0, panel.cols, sub.k);
          const tilemm_view b
            = tilemm_view_op_sub (run->op_b, run->b, 0, panel.row, sub.k, panel.rows);
          const tilemm_view c = tilemm_view_sub (run->c, panel.col, panel.row, panel.cols,
                                                 panel.rows);
          status = run->ops->panel (run->ctx, w, device, &sub, run->op_a, &a, run->op_b, &b, &c,
                                    &e);
        }
      if (status != TILEMM_OK)
        {
          if (e.status == TILEMM_OK)
            e.status = status;
          multi_fail (run, w, &e);
          break;
        }
      run->done[w]++;
    }
}

/* On the calling thread until every worker has returned: polls the host's stop between waits
 * of a few milliseconds; 1 when it asked to stop (the workers are told, not yet joined). */
static int multi_watch (multi_run *run, int running, const tilemm_stop *stop)
{
  int asked = 0;
  pthread_mutex_lock (&run->lock);
  while (run->finished < running)
    {
      pthread_mutex_unlock (&run->lock);
      asked = stop->should_stop (stop->arg) != 0;   /* never under the workers' lock */
      pthread_mutex_lock (&run->lock);
      if (asked || run->finished >= running)
        break;
      struct timespec until;
      clock_gettime (CLOCK_REALTIME, &until);
      until.tv_nsec += 10 * 1000000L;
      if (until.tv_nsec >= 1000000000L)
        {
          until.tv_sec++;
          until.tv_nsec -= 1000000000L;
        }
      pthread_cond_timedwait (&run->changed, &run->lock, &until);
    }
  pthread_mutex_unlock (&run->lock);
  if (asked)
    atomic_store (&run->stop, 1);
  return asked;
}

tilemm_status tilemm_multi_run (const tilemm_plan *queue, const tilemm_limits *limits,
                                const tilemm_workers *workers, const tilemm_device_ops *ops,
                                void *ctx, tilemm_op op_a, const tilemm_view *a, tilemm_op op_b,
                                const tilemm_view *b, const tilemm_view *c,
                                tilemm_multi_report *report, tilemm_error *err)
{
  return tilemm_multi_run_stoppable (queue, limits, workers, ops, ctx, op_a, a, op_b, b, c, NULL,
                                     report, err);
}

tilemm_status tilemm_multi_run_stoppable (const tilemm_plan *queue, const tilemm_limits *limits,
                                          const tilemm_workers *workers,
                                          const tilemm_device_ops *ops, void *ctx, tilemm_op op_a,
                                          const tilemm_view *a, tilemm_op op_b,
                                          const tilemm_view *b, const tilemm_view *c,
                                          const tilemm_stop *stop, tilemm_multi_report *report,
                                          tilemm_error *err)
{
  if (!queue || !workers || !ops || !ops->panel || workers->count < 1
      || workers->count > TILEMM_MAX_WORKERS)
    return tilemm_error_set (err, TILEMM_EINVAL, "tilemm_multi_run: bad arguments");
  multi_run run;
  memset (&run, 0, sizeof run);
  run.queue = queue;
  run.limits = limits;
  run.workers = workers;
  run.ops = ops;
  run.ctx = ctx;
  run.op_a = op_a;
  run.op_b = op_b;
  run.a = a;
  run.b = b;
  run.c = c;
  run.panels = tilemm_plan_panel_count (queue);
  atomic_init (&run.next, 0);
  atomic_init (&run.stop, 0);
  run.failed_worker = -1;
  if (pthread_mutex_init (&run.lock, NULL) != 0)
    return tilemm_error_set (err, TILEMM_ENOMEM, "cannot create a mutex for the workers");
  if (pthread_cond_init (&run.changed, NULL) != 0)
    {
      pthread_mutex_destroy (&run.lock);
      return tilemm_error_set (err, TILEMM_ENOMEM, "cannot create a condition for the workers");
    }

  /* One host thread per worker, so every device's copies and kernels run at once.  A thread
   * that cannot be made leaves its share to the others (the queue needs only one). */
  pthread_t thread[TILEMM_MAX_WORKERS];
  worker_arg args[TILEMM_MAX_WORKERS];
  int made[TILEMM_MAX_WORKERS] = { 0 }, running = 0;
  for (int w = 0; w < workers->count; w++)
    {
      args[w].run = &run;
      args[w].worker = w;
      made[w] = pthread_create (&thread[w], NULL, multi_worker, &args[w]) == 0;
      running += made[w];
    }
  const int interrupted = running > 0 && stop && stop->should_stop
                          && multi_watch (&run, running, stop);
  for (int w = 0; w < workers->count; w++)
    if (made[w])
      pthread_join (thread[w], NULL);

  tilemm_status status = TILEMM_OK;
  int64_t total = 0;
  for (int w = 0; w < workers->count; w++)
    total += run.done[w];
  if (running == 0)
    status = tilemm_error_set (err, TILEMM_ENOMEM, "cannot start a host thread for any worker");
  else if (interrupted && (run.failed_worker < 0 || run.first.status == TILEMM_EINTERRUPTED))
    /* The host's stop, and the workers' early ends it caused: the product was interrupted.  (A
     * real failure before the stop is reported as such.) */
    status = tilemm_error_set (err, TILEMM_EINTERRUPTED, "interrupted after %lld of %lld panels",
                               (long long) total, (long long) run.panels);
  else if (run.failed_worker >= 0)
    {
      status = run.first.status;
      tilemm_error_set (err, status, "%s", run.first.detail);
    }
  else
    {
      if (total != run.panels)   /* cannot happen: every panel taken is done or failed */
        status = tilemm_error_set (err, TILEMM_EINVAL, "%lld of %lld panels computed",
                                   (long long) total, (long long) run.panels);
      else
        tilemm_error_set (err, TILEMM_OK, NULL);
    }
  /* Every worker has stopped: free what each holds (all of it when the product failed). */
  if (ops->finish)
    for (int w = 0; w < workers->count; w++)
      if (run.started[w])
        ops->finish (ctx, w, workers->device[w], status != TILEMM_OK);
  pthread_cond_destroy (&run.changed);
  pthread_mutex_destroy (&run.lock);
  if (report)
    {
      memset (report, 0, sizeof *report);
      report->workers = running;
      report->panels = run.panels;
      for (int w = 0; w < workers->count; w++)
        report->done[w] = run.done[w];
      report->failed_worker = run.failed_worker;
    }
  return status;
}

/* ---------------------------------------------------------------- simulated devices */

/* Bytes all simulated devices hold now, for the leak tests. */
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

typedef struct {
  const tilemm_sim_config *config;
  sim_device dev[TILEMM_MAX_WORKERS];
  int64_t panels_done[TILEMM_MAX_WORKERS];
} sim_ctx;

static tilemm_status sim_reserve (sim_device *d, size_t bytes, tilemm_error *err)
{
  if (d->bytes >= bytes)
    return TILEMM_OK;
  free (d->buffer);
  atomic_fetch_sub (&sim_held, d->bytes);
  d->buffer = NULL;
  d->bytes = 0;
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
static tilemm_status sim_start (void *p, int worker, int device, tilemm_error *err)
{
  (void) worker;
  const sim_ctx *ctx = (const sim_ctx *) p;
  if (device == ctx->config->fail_device && ctx->config->fail_after == 0)
    return tilemm_error_set (err, TILEMM_ECUDA, "simulated failure after 0 panels");
  return TILEMM_OK;
}

static tilemm_status sim_panel (void *p, int worker, int device, const tilemm_plan *sub,
                                tilemm_op op_a, const tilemm_view *a, tilemm_op op_b,
                                const tilemm_view *b, const tilemm_view *c, tilemm_error *err)
{
  sim_ctx *ctx = (sim_ctx *) p;
  const tilemm_sim_config *cfg = ctx->config;
  if (device == cfg->slow_device && cfg->slow_ms > 0)
    {
      const struct timespec pause = { cfg->slow_ms / 1000, (long) (cfg->slow_ms % 1000) * 1000000L };
      nanosleep (&pause, NULL);
    }
  const size_t es = tilemm_type_size (sub->type);
  const size_t na = (size_t) (a->rows * a->cols), nb = (size_t) (b->rows * b->cols),
               nc = (size_t) (c->rows * c->cols);
  sim_device *d = &ctx->dev[worker];
  tilemm_status status = sim_reserve (d, (na + nb + nc) * es, err);
  if (status != TILEMM_OK)
    return status;
  if (device == cfg->fail_device && ctx->panels_done[worker] >= cfg->fail_after)
    return tilemm_error_set (err, TILEMM_ECUDA, "simulated failure after %d panels",
                             cfg->fail_after);
  /* "Upload", compute on the device's own copies, "download": as the GPU does. */
  char *da = (char *) d->buffer, *db = da + na * es, *dc = db + nb * es;
  tilemm_view va, vb, vc;
  tilemm_view_init (&va, a->type, a->rows, a->cols, a->rows > 0 ? a->rows : 1, da);
  tilemm_view_init (&vb, b->type, b->rows, b->cols, b->rows > 0 ? b->rows : 1, db);
  tilemm_view_init (&vc, c->type, c->rows, c->cols, c->rows > 0 ? c->rows : 1, dc);
  sim_copy (a, da, 1);
  sim_copy (b, db, 1);
  /* Stoppable between tile rows: a failure elsewhere or the host's stop ends the panel early. */
  const tilemm_stop stopping = { tilemm_multi_stopping, NULL };
  tilemm_emu_pass *const emu = cfg->emu;
  if (emu && emu->kind == TILEMM_EMU_PASS_STATS)
    {
      tilemm_emu_stats mine;
      if ((status = tilemm_emu_stats_cpu_op (op_a, &va, op_b, &vb, &mine, err)) != TILEMM_OK)
        return status;
      tilemm_emu_stats_merge (&emu->stats[worker], &mine);
      ctx->panels_done[worker]++;
      return TILEMM_OK;
    }
  status = emu ? tilemm_emu_run_cpu_op (&emu->plan, op_a, &va, op_b, &vb, &vc, err)
               : tilemm_cpu_multiply_op (sub, op_a, &va, op_b, &vb, &vc, &stopping, err);
  if (status != TILEMM_OK)
    return status;
  sim_copy (c, dc, 0);
  ctx->panels_done[worker]++;
  return TILEMM_OK;
}

/* Simulated devices keep nothing between products (they have no cost to amortize). */
static void sim_finish (void *p, int worker, int device, int failed)
{
  (void) device;
  (void) failed;
  sim_ctx *ctx = (sim_ctx *) p;
  sim_device *d = &ctx->dev[worker];
  free (d->buffer);
  atomic_fetch_sub (&sim_held, d->bytes);
  d->buffer = NULL;
  d->bytes = 0;
}

/* "DEV" or "DEV:NUM" from the environment; 0 when unset or malformed. */
static int env_pair (const char *name, int *first, int *second)
{
  const char *v = getenv (name);
  if (!v || !*v)
    return 0;
  char *end = NULL;
  const long x = strtol (v, &end, 10);
  long y = *second;
  if (end == v || x < 0 || x >= TILEMM_MAX_WORKERS)
    return 0;
  if (*end == ':')
    {
      const char *rest = end + 1;
      y = strtol (rest, &end, 10);
      if (end == rest || y < 0 || y > 1000000)
        return 0;
    }
  if (*end)
    return 0;
  *first = (int) x;
  *second = (int) y;
  return 1;
}

void tilemm_sim_config_init (tilemm_sim_config *config, int devices)
{
  memset (config, 0, sizeof *config);
  config->devices = devices;
  config->stop.should_stop = NULL;
  config->stop.arg = NULL;
  config->fail_device = -1;
  config->slow_device = -1;
  env_pair ("TILEMM_SIMULATE_FAIL", &config->fail_device, &config->fail_after);
  env_pair ("TILEMM_SIMULATE_SLOW", &config->slow_device, &config->slow_ms);
}

tilemm_status tilemm_sim_multiply (const tilemm_plan *plan, const tilemm_sim_config *config,
                                   const tilemm_view *a, const tilemm_view *b,
                                   const tilemm_view *c, tilemm_multi_report *report,
                                   tilemm_error *err)
{
  return tilemm_sim_multiply_op (plan, config, TILEMM_OP_NONE, a, TILEMM_OP_NONE, b, c, report,
                                 err);
}

tilemm_status tilemm_sim_multiply_op (const tilemm_plan *plan, const tilemm_sim_config *config,
                                      tilemm_op op_a, const tilemm_view *a, tilemm_op op_b,
                                      const tilemm_view *b, const tilemm_view *c,
                                      tilemm_multi_report *report, tilemm_error *err)
{
  tilemm_status status = tilemm_check_operands_op (plan, op_a, a, op_b, b, c);
  if (status != TILEMM_OK)
    return tilemm_error_set (err, status, "%s", tilemm_strerror (status));
  if (plan->backend != TILEMM_BACKEND_CPU || !config || config->devices < 1
      || config->devices > TILEMM_MAX_WORKERS)
    return tilemm_error_set (err, TILEMM_EINVAL,
                             "simulated devices need a cpu plan and 1 to %d devices",
                             TILEMM_MAX_WORKERS);
  tilemm_plan queue = *plan;
  tilemm_workers workers;
  /* An emulated pass comes with its queue and its workers (emulated_panels.c cut them once). */
  workers.count = config->emu ? config->devices
                              : tilemm_plan_workers (&queue, plan, config->devices, 1);
  for (int w = 0; w < workers.count; w++)
    workers.device[w] = w;
  if (plan->m == 0 || plan->n == 0)
    {
      if (report)
        memset (report, 0, sizeof *report);
      return tilemm_error_set (err, TILEMM_OK, NULL);
    }
  sim_ctx ctx;
  memset (&ctx, 0, sizeof ctx);
  ctx.config = config;
  const tilemm_device_ops ops = { "simulated device", sim_start, sim_panel, sim_finish };
  return tilemm_multi_run_stoppable (&queue, NULL, &workers, &ops, &ctx, op_a, a, op_b, b, c,
                                     &config->stop, report, err);
}
