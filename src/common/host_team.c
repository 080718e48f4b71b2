/* host_team.c — a team of host threads kept between products (see host_team.h).
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 *
 * One job at a time: the caller writes the job, then moves `generation` on; every helper sees
 * the new generation (spinning for a while after its last job, else asleep on `wake`), does its
 * share when it is a member of the job, and counts itself off `remaining`; the caller, once its
 * own share is done, waits for `remaining` to reach 0.  Every helper counts itself off every job,
 * so none can miss one, and none reads a job once its caller has returned.
 */
#define _POSIX_C_SOURCE 200809L

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "host_team.h"

/* A helper spins this long after its last job before it sleeps: a product's copies come back to
 * back, and waking a sleeping thread costs more than a small copy takes. */
enum { SPIN_NS = 200 * 1000, HELPER_STACK = 256 << 10 };

static inline void relax (void)
{
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause ();
#elif defined(__aarch64__)
  __asm__ __volatile__ ("yield");
#endif
}

static int64_t now_ns (void)
{
  struct timespec t;
  clock_gettime (CLOCK_MONOTONIC, &t);
  return (int64_t) t.tv_sec * 1000000000 + t.tv_nsec;
}

typedef struct {
  tilemm_host_team *team;
  int member;
} helper_arg;

struct tilemm_host_team {
  int threads;                   /* members: the caller and the helpers started             */
  tilemm_cpu_set cpus;
  pid_t pid;                     /* the process the helpers live in                         */
  pthread_t *helper;
  helper_arg *args;
  pthread_mutex_t lock;          /* guards `sleepers` and the sleep on `wake`               */
  pthread_cond_t wake;
  int sleepers;
  atomic_uint_fast64_t generation;   /* moved on by each job (and by the stop)              */
  atomic_int remaining;          /* helpers yet to count themselves off the current job     */
  atomic_int quit;
  /* The current job, written before `generation` moves on. */
  tilemm_team_fn fn;
  void *arg;
  int members;
};

static void *helper_main (void *p)
{
  const helper_arg *a = (const helper_arg *) p;
  tilemm_host_team *t = a->team;
  tilemm_pin_thread (&t->cpus);
  uint_fast64_t seen = 0;
  for (;;)
    {
      uint_fast64_t g = atomic_load (&t->generation);
      if (g == seen)
        {
          const int64_t until = now_ns () + SPIN_NS;
          for (unsigned spins = 1; g == seen; spins++)
            {
              relax ();
              g = atomic_load (&t->generation);
              if (g == seen && (spins & 1023) == 0 && now_ns () > until)
                break;
            }
        }
      if (g == seen)
        {
          pthread_mutex_lock (&t->lock);
          while ((g = atomic_load (&t->generation)) == seen)
            {
              t->sleepers++;
              pthread_cond_wait (&t->wake, &t->lock);
              t->sleepers--;
            }
          pthread_mutex_unlock (&t->lock);
        }
      seen = g;
      if (atomic_load (&t->quit))
        return NULL;
      if (a->member < t->members)
        t->fn (t->arg, a->member, t->members);
      atomic_fetch_sub (&t->remaining, 1);
    }
}

tilemm_host_team *tilemm_host_team_start (int threads, const tilemm_cpu_set *cpus)
{
  tilemm_host_team *t = (tilemm_host_team *) calloc (1, sizeof *t);
  if (!t)
    return NULL;
  if (threads < 1)
    threads = 1;
  if (cpus)
    t->cpus = *cpus;
  t->pid = getpid ();
  t->threads = 1;
  atomic_init (&t->generation, 0);
  atomic_init (&t->remaining, 0);
  atomic_init (&t->quit, 0);
  if (pthread_mutex_init (&t->lock, NULL) != 0)
    {
      free (t);
      return NULL;
    }
  if (pthread_cond_init (&t->wake, NULL) != 0)
    {
      pthread_mutex_destroy (&t->lock);
      free (t);
      return NULL;
    }
  if (threads > 1)
    {
      t->helper = (pthread_t *) calloc ((size_t) threads - 1, sizeof *t->helper);
      t->args = (helper_arg *) calloc ((size_t) threads - 1, sizeof *t->args);
      pthread_attr_t attr;
      const int attr_ok = pthread_attr_init (&attr) == 0;
      if (attr_ok)
        pthread_attr_setstacksize (&attr, HELPER_STACK);
      /* As many helpers as the system gives: a team of fewer members still works. */
      for (int i = 1; t->helper && t->args && i < threads; i++)
        {
          t->args[i - 1].team = t;
          t->args[i - 1].member = i;
          if (pthread_create (&t->helper[i - 1], attr_ok ? &attr : NULL, helper_main,
                              &t->args[i - 1]) != 0)
            break;
          t->threads = i + 1;
        }
      if (attr_ok)
        pthread_attr_destroy (&attr);
    }
  return t;
}

void tilemm_host_team_stop (tilemm_host_team *t)
{
  if (!t)
    return;
  if (t->pid == getpid ())
    {
      atomic_store (&t->quit, 1);
      atomic_fetch_add (&t->generation, 1);
      pthread_mutex_lock (&t->lock);
      pthread_cond_broadcast (&t->wake);
      pthread_mutex_unlock (&t->lock);
      for (int i = 1; i < t->threads; i++)
        pthread_join (t->helper[i - 1], NULL);
    }
  /* (In a forked child the helpers do not exist: only the memory is given back.) */
  pthread_cond_destroy (&t->wake);
  pthread_mutex_destroy (&t->lock);
  free (t->helper);
  free (t->args);
  free (t);
}

int tilemm_host_team_size (const tilemm_host_team *t)
{
  return t ? t->threads : 1;
}

int tilemm_host_team_fits (const tilemm_host_team *t, int threads, const tilemm_cpu_set *cpus)
{
  if (!t)
    return threads <= 1;
  tilemm_cpu_set none;
  tilemm_cpu_set_clear (&none);
  return t->threads >= threads && tilemm_cpu_set_equal (&t->cpus, cpus ? cpus : &none);
}

void tilemm_host_team_run (tilemm_host_team *t, int members, tilemm_team_fn fn, void *arg)
{
  if (!t || members <= 1 || t->threads <= 1 || t->pid != getpid ())
    {
      fn (arg, 0, 1);
      return;
    }
  if (members > t->threads)
    members = t->threads;
  t->fn = fn;
  t->arg = arg;
  t->members = members;
  atomic_store (&t->remaining, t->threads - 1);
  atomic_fetch_add (&t->generation, 1);
  pthread_mutex_lock (&t->lock);
  if (t->sleepers > 0)
    pthread_cond_broadcast (&t->wake);
  pthread_mutex_unlock (&t->lock);
  fn (arg, 0, members);
  for (unsigned spins = 1; atomic_load (&t->remaining) > 0; spins++)
    {
      relax ();
      if ((spins & 4095) == 0)
        sched_yield ();   /* a helper descheduled by another process: give it the core */
    }
}
