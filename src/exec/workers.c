/* workers.c — the queue of panels and the workers that drain it (see multi.h): one worker on the
 * caller's thread, or one host thread per worker, each through its backend's table.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 *
 * Everything a product needs lives in its own run structure on the caller's stack: the queue is
 * one atomic counter, the stop flag one atomic int, the first error behind a mutex, and where
 * the workers share an operand (the plan's exchange), the hand-off of its shares between them
 * (exchange.h).  No state outlives a call, so a failed product leaves nothing the next one could
 * trip on.
 */
#define _POSIX_C_SOURCE 200809L

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backend.h"
#include "exchange.h"
#include "multi.h"
#include "tilemm.h"

typedef struct {
  const tilemm_job *job;
  const tilemm_stop *host_stop;  /* one worker on the caller's thread: the host's own poll  */
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
  int exchanging;             /* the workers hand each other shares of an operand ...   */
  tilemm_exchange exchange;   /* ... through this (stopped with the run)                */
} multi_run;

typedef struct {
  multi_run *run;
  int worker;
} worker_arg;

/* Stops the run: no more panels taken, and no worker left waiting for another's share. */
static void multi_stop (multi_run *run)
{
  atomic_store (&run->stop, 1);
  if (run->exchanging)
    tilemm_exchange_stop (&run->exchange);
}

/* Keeps the first failure (the others are most often its echo: a worker stopped early) and
 * names its device. */
static void multi_fail (multi_run *run, int worker, const tilemm_error *e)
{
  pthread_mutex_lock (&run->lock);
  if (run->failed_worker < 0)
    {
      run->failed_worker = worker;
      if (run->job->workers->count > 1)
        tilemm_error_set (&run->first, e->status, "%s %d (worker %d): %s",
                          run->job->ops->device_kind, run->job->workers->device[worker], worker,
                          e->detail[0] ? e->detail : tilemm_strerror (e->status));
      else
        run->first = *e;
    }
  pthread_mutex_unlock (&run->lock);
  multi_stop (run);
}

/* The run a worker thread is in, for tilemm_multi_stopping (panel ops have no run argument). */
static _Thread_local multi_run *worker_run;

int tilemm_multi_stopping (void *unused)
{
  (void) unused;
  return worker_run && atomic_load (&worker_run->stop);
}

/* An item of a batch's job on worker w: a chunk of pages through the backend's batch, or one
 * page (its pages of X, Y and Z as views) as a plain product under the page's plan. */
static tilemm_status job_pages (const tilemm_job *job, int w, int64_t i, const tilemm_stop *stop,
                                tilemm_error *e)
{
  const tilemm_batch_job *b = job->batch;
  const int64_t pages = b->shape->z_pages, first = i * job->pages_per_item;
  const int64_t count = pages - first < job->pages_per_item ? pages - first : job->pages_per_item;
  if (job->kind == TILEMM_JOB_BATCH)
    return job->ops->batch (job->state, w, b, first, count, stop, e);
  int64_t xp, yp;
  tilemm_batch_sources (b->shape, first, &xp, &yp);
  const size_t es = tilemm_type_size (b->type);
  const int ta = b->op_a != TILEMM_OP_NONE, tb = b->op_b != TILEMM_OP_NONE;
  tilemm_view a, v, c;
  tilemm_view_init (&a, b->type, ta ? b->k : b->m, ta ? b->m : b->k, ta ? b->k : b->m,
                    (unsigned char *) b->x + (size_t) xp * (size_t) b->x_page * es);
  tilemm_view_init (&v, b->type, tb ? b->n : b->k, tb ? b->k : b->n, tb ? b->n : b->k,
                    (unsigned char *) b->y + (size_t) yp * (size_t) b->y_page * es);
  tilemm_view_init (&c, b->type, b->m, b->n, b->m,
                    (unsigned char *) b->z + (size_t) first * (size_t) b->z_page * es);
  return job->ops->product (job->state, w, job->page_plan, b->op_a, &a, b->op_b, &v, &c, stop, e);
}

/* One panel of the job on worker w: its views, its plan, the backend's operation. */
static tilemm_status job_panel (multi_run *run, int w, int64_t i, const tilemm_stop *stop,
                                tilemm_error *e)
{
  const tilemm_job *job = run->job;
  if (job->kind == TILEMM_JOB_BATCH || job->kind == TILEMM_JOB_PAGES)
    return job_pages (job, w, i, stop, e);
  const tilemm_plan *q = job->queue;
  tilemm_panel panel;
  if (!tilemm_plan_panel (q, i, &panel))
    return tilemm_error_set (e, TILEMM_EINVAL, "panel %lld of %lld missing", (long long) i,
                             (long long) run->panels);
  /* Panel (row, col, rows, cols) of Cᵀ is C(col…, row…) = op(A)(col…, :) · op(B)(:, row…):
   * rows of A or, transposed, its columns; columns of B or, transposed, its rows. */
  const tilemm_view a = tilemm_view_op_sub (job->op_a, job->a, panel.col, 0, panel.cols, q->k);
  const tilemm_view b = tilemm_view_op_sub (job->op_b, job->b, 0, panel.row, q->k, panel.rows);
  const tilemm_view c = tilemm_view_sub (job->c, panel.col, panel.row, panel.cols, panel.rows);
  switch (job->kind)
    {
    case TILEMM_JOB_EMU_STATS:
      {
        tilemm_emu_stats mine;
        const tilemm_status status = job->ops->emu_stats (run->job->state, w, job->emu_options,
                                                          job->op_a, &a, job->op_b, &b, &mine, e);
        if (status == TILEMM_OK)
          tilemm_emu_stats_merge (&job->emu_stats[w], &mine);
        return status;
      }
    case TILEMM_JOB_EMU_PRODUCT:
      {
        tilemm_emu_plan used;
        return job->ops->emu_product (job->state, w, job->emu_plan, job->op_a, &a, job->op_b, &b,
                                      &c, stop, &used, e);
      }
    default:
      {
        /* The panel's plan, made with the call's plan: the last panel row and column may be
         * narrower. */
        const int last_row = panel.row + q->panel_rows >= q->n;
        const int last_col = panel.col + q->panel_cols >= q->m;
        return job->ops->product (job->state, w, &job->sub[last_row][last_col], job->op_a, &a,
                                  job->op_b, &b, &c, stop, e);
      }
    }
}

/* The next panel for worker w: the queue's next, or where panels have owners, w's own next
 * (from its last: a worker's last panel of the pass before is the one its device still holds);
 * -1 when there is none left. */
static long long next_panel (multi_run *run, int w, long long *own)
{
  const int64_t *first = run->job->owner_first;
  if (first)
    {
      /* Its run of panels, in order (*own: the last it took, or -1). */
      const long long i = *own < 0 ? (long long) first[w] : *own + 1;
      if (i >= first[w + 1] || i >= run->panels)
        return -1;
      *own = i;
      return i;
    }
  const int *owner = run->job->owner;
  if (!owner)
    {
      const long long i = atomic_fetch_add (&run->next, 1);
      return i < run->panels ? i : -1;
    }
  while (--*own >= 0)
    if (owner[*own] == w)
      return *own;
  return -1;
}

static void worker_work (multi_run *run, int w)
{
  const tilemm_job *job = run->job;
  const int device = job->workers->device[w];
  tilemm_error e = { TILEMM_OK, "" };
  if (job->ops->worker_start
      && job->ops->worker_start (job->state, w, device, job->teams ? &job->teams[w] : NULL, &e)
           != TILEMM_OK)
    {
      run->started[w] = 1;   /* a half-made start is freed by finish too */
      multi_fail (run, w, &e);
      return;
    }
  run->started[w] = 1;
  /* Its share of the operand the workers share up and published before its first panel (the
   * others' come in from their devices as they are published, the backend's pipeline asking
   * between its steps: this thread waits for no other worker): every worker that runs
   * publishes its share, panels or none, so none waits for a share that never comes. */
  if (run->exchanging && !atomic_load (&run->stop)
      && (job->kind == TILEMM_JOB_EMU_STATS ? job->ops->emu_share : job->ops->share) (
           job->state, w, job->op_a, job->a, job->op_b, job->b, &run->exchange, &e)
           != TILEMM_OK)
    {
      if (e.status == TILEMM_OK)
        e.status = TILEMM_ECUDA;
      multi_fail (run, w, &e);
      return;
    }
  /* The caller's own thread polls the host; a worker thread polls the run (the host's stop is
   * seen by the caller, which sets run->stop). */
  static const tilemm_stop stopping = { tilemm_multi_stopping, NULL };
  const tilemm_stop *stop = run->host_stop ? run->host_stop : &stopping;
  long long own = job->owner_first ? -1 : run->panels, taken = 0;
  while (!atomic_load (&run->stop))
    {
      const long long i = next_panel (run, w, &own);
      if (i < 0)
        break;
      if (job->took)
        job->took[i] = w;
      if (taken++ > 0 && run->host_stop && tilemm_stop_requested (run->host_stop))
        {
          tilemm_error_set (&e, TILEMM_EINTERRUPTED, "interrupted before panel %lld of %lld",
                            i + 1, (long long) run->panels);
          multi_fail (run, w, &e);
          break;
        }
      e.status = TILEMM_OK;
      e.detail[0] = '\0';
      const tilemm_status status = job_panel (run, w, i, stop, &e);
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

static void *multi_worker (void *p)
{
  const worker_arg *arg = (const worker_arg *) p;
  multi_run *run = arg->run;
  /* Where the plan puts this worker's copies (its thread is one of its team). */
  if (run->job->teams)
    tilemm_pin_thread (&run->job->teams[arg->worker].cpus);
  worker_run = run;
  worker_work (run, arg->worker);
  worker_run = NULL;
  pthread_mutex_lock (&run->lock);
  run->finished++;
  pthread_cond_signal (&run->changed);
  pthread_mutex_unlock (&run->lock);
  return NULL;
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
    multi_stop (run);
  return asked;
}

tilemm_status tilemm_job_run (const tilemm_job *job, const tilemm_stop *stop,
                              tilemm_multi_report *report, tilemm_error *err)
{
  const int of_pages = job && (job->kind == TILEMM_JOB_BATCH || job->kind == TILEMM_JOB_PAGES);
  if (!job || !job->ops || (of_pages ? !job->batch || job->pages_per_item < 1 : !job->queue)
      || !job->workers || job->workers->count < 1 || job->workers->count > TILEMM_MAX_WORKERS)
    return tilemm_error_set (err, TILEMM_EINVAL, "tilemm_job_run: bad arguments");
  multi_run run;
  memset (&run, 0, sizeof run);
  run.job = job;
  run.panels = of_pages ? job->items : tilemm_plan_panel_count (job->queue);
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
  const int count = job->workers->count;
  int running = 0, interrupted = 0;
  run.exchanging = count > 1 && job->exchange && job->exchange->path == TILEMM_EXCHANGE_PEER
                   && ((job->kind == TILEMM_JOB_NATIVE && job->ops->share)
                       || (job->kind == TILEMM_JOB_EMU_STATS && job->ops->emu_share));
  if (run.exchanging && tilemm_exchange_init (&run.exchange, count) != 0)
    {
      pthread_cond_destroy (&run.changed);
      pthread_mutex_destroy (&run.lock);
      return tilemm_error_set (err, TILEMM_ENOMEM, "cannot create the workers' exchange");
    }
  if (job->took)
    for (int64_t i = 0; i < run.panels; i++)
      job->took[i] = -1;
  if (count == 1)
    {
      /* One worker: the caller's own thread, which may poll the host itself. */
      static const tilemm_stop none = { NULL, NULL };
      run.host_stop = stop ? stop : &none;
      worker_work (&run, 0);
      running = 1;
      interrupted = run.failed_worker >= 0 && run.first.status == TILEMM_EINTERRUPTED;
    }
  else
    {
      /* One host thread per worker, so every device's copies and kernels run at once.  A
       * thread that cannot be made leaves its share to the others (the queue needs only one). */
      pthread_t thread[TILEMM_MAX_WORKERS];
      worker_arg args[TILEMM_MAX_WORKERS];
      int made[TILEMM_MAX_WORKERS] = { 0 };
      for (int w = 0; w < count; w++)
        {
          args[w].run = &run;
          args[w].worker = w;
          made[w] = pthread_create (&thread[w], NULL, multi_worker, &args[w]) == 0;
          running += made[w];
        }
      /* A worker without a thread publishes no share: the others read it from the host.  Its
       * panels, where each worker owns its own, none would take: the product stops. */
      for (int w = 0; w < count; w++)
        if (!made[w])
          {
            if (run.exchanging)
              tilemm_exchange_absent (&run.exchange, w);
            if (job->owner_first && running > 0)
              {
                tilemm_error e;
                tilemm_error_set (&e, TILEMM_ENOMEM, "cannot start a host thread for worker %d "
                                  "(its panels are its own)", w);
                multi_fail (&run, w, &e);
              }
          }
      interrupted = running > 0 && stop && stop->should_stop && multi_watch (&run, running, stop);
      for (int w = 0; w < count; w++)
        if (made[w])
          pthread_join (thread[w], NULL);
    }

  tilemm_status status = TILEMM_OK;
  int64_t total = 0;
  for (int w = 0; w < count; w++)
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
  else if (total != run.panels)   /* cannot happen: every panel taken is done or failed */
    status = tilemm_error_set (err, TILEMM_EINVAL, "%lld of %lld panels computed",
                               (long long) total, (long long) run.panels);
  else
    tilemm_error_set (err, TILEMM_OK, NULL);
  /* Every worker has stopped: free what each holds when the product failed (a stopped one keeps
   * it, consistent, for the next call: the backend's end drains it). */
  if (job->ops->worker_finish)
    for (int w = 0; w < count; w++)
      if (run.started[w])
        job->ops->worker_finish (job->state, w, job->workers->device[w],
                                 status != TILEMM_OK && status != TILEMM_EINTERRUPTED);
  if (run.exchanging)
    tilemm_exchange_destroy (&run.exchange);
  pthread_cond_destroy (&run.changed);
  pthread_mutex_destroy (&run.lock);
  if (report)
    {
      memset (report, 0, sizeof *report);
      report->workers = running;
      report->panels = run.panels;
      for (int w = 0; w < count; w++)
        report->done[w] = run.done[w];
      report->failed_worker = run.failed_worker;
    }
  return status;
}
