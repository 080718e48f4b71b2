/* host_pool.c — the process's pool of host threads (see host_pool.h).
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 *
 * `held` is the pool's only lock, taken by trying (never waited for): whoever sets it from 0 to 1
 * owns `pool` (runs a job on it, grows it, or stops it) until it stores 0 again; the atomics'
 * order carries what the owner wrote to the next one.  A caller that finds it set runs its job
 * alone.  A forked child (marked by the fork handler) never touches the parent's threads.
 */
#define _POSIX_C_SOURCE 200809L

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>

#include "host_cpus.h"
#include "host_pool.h"

static tilemm_host_team *pool;   /* owned by whoever holds `held` */
static atomic_int held;
static atomic_int forked;        /* this process is a child of fork (of a process with the pool) */
static atomic_int unloaded;      /* the library is going away: no new threads */

static void in_forked_child (void)
{
  atomic_store (&forked, 1);
}

__attribute__ ((constructor)) static void watch_fork (void)
{
  if (pthread_atfork (NULL, NULL, in_forked_child) != 0)
    atomic_store (&forked, 1);   /* a child could not be told apart: never start threads */
}

static void run_alone (int64_t count, tilemm_team_fn fn, void *arg)
{
  for (int64_t i = 0; i < count; i++)
    fn (arg, i, 0);
}

/* The pool for a job of `threads` members (held): grown where it is smaller and the host has the
 * CPUs, by starting a team of the new size and stopping the old one (growing is rare: the
 * plans' teams are bounded by the host's threads). */
static void grow (int threads)
{
  if (tilemm_host_team_size (pool) >= threads || atomic_load (&unloaded))
    return;
  tilemm_host_facts host;
  tilemm_host_facts_gather (&host);
  const int cpus = tilemm_cpu_set_count (&host.cpus);
  const int want = cpus > 0 && threads > cpus ? cpus : threads;
  if (tilemm_host_team_size (pool) >= want)
    return;
  const tilemm_cpu_set anywhere = { { 0 } };
  tilemm_host_team *bigger = tilemm_host_team_start (want, &anywhere);
  if (!bigger)
    return;   /* the pool as it was (or none: the caller alone) */
  if (tilemm_host_team_size (bigger) <= tilemm_host_team_size (pool))
    {
      tilemm_host_team_stop (bigger);
      return;
    }
  tilemm_host_team_stop (pool);
  pool = bigger;
}

void tilemm_host_pool_run (int threads, int64_t count, tilemm_team_fn fn, void *arg)
{
  int free_pool = 0;
  if (threads <= 1 || count <= 1 || atomic_load (&forked)
      || !atomic_compare_exchange_strong (&held, &free_pool, 1))
    {
      run_alone (count, fn, arg);
      return;
    }
  grow (threads);
  tilemm_host_team_each (pool, threads, count, fn, arg);
  atomic_store (&held, 0);
}

typedef struct {
  tilemm_range_fn *body;
  void *ctx;
  int64_t count, per;
} range_job;

static void range_at (void *arg, int64_t index, int member)
{
  (void) member;
  const range_job *r = (const range_job *) arg;
  const int64_t first = index * r->per;
  r->body (r->ctx, first, r->count - first < r->per ? r->count : first + r->per);
}

void tilemm_host_pool_run_ranges (int threads, int64_t count, int64_t per, tilemm_range_fn *body,
                                  void *ctx)
{
  if (count <= 0)
    return;
  range_job r = { body, ctx, count, per > 0 ? per : 1 };
  tilemm_host_pool_run (threads > 1 ? threads : 1, (count + r.per - 1) / r.per, range_at, &r);
}

void tilemm_host_pool_release (void)
{
  int free_pool = 0;
  if (!atomic_compare_exchange_strong (&held, &free_pool, 1))
    return;   /* a job holds it: its threads go with the process */
  tilemm_host_team_stop (atomic_load (&forked) ? NULL : pool);
  pool = NULL;
  atomic_store (&held, 0);
}

int tilemm_host_pool_size (void)
{
  int free_pool = 0;
  if (!atomic_compare_exchange_strong (&held, &free_pool, 1))
    return 1;
  const int size = tilemm_host_team_size (pool);
  atomic_store (&held, 0);
  return size;
}

/* Unloading (dlclose of the oct-file or mex file, or the process's exit): the helpers sleep in
 * this library's code, which is about to go; join them first. */
__attribute__ ((destructor)) static void release_at_unload (void)
{
  atomic_store (&unloaded, 1);
  tilemm_host_pool_release ();
}
