/* host_team.c — a team of host threads kept between products (see host_team.h).
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 *
 * Each helper has a slot of its own: the caller writes a job into the slots of the job's members
 * only, then moves each one's `jobs` on; a member sees it (spinning for a while after its last
 * job, else asleep on its own condition), does its share and counts itself off `remaining`; the
 * caller, once its own share is done, waits for `remaining` to reach 0.  A helper outside the job
 * is neither woken nor waited for (a woken thread that must find a core before the job can end
 * costs milliseconds where another library's threads hold the cores), and a slot is written again
 * only after its helper has counted itself off the job before.
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

/* One helper's slot: its job, written by the caller before `jobs` moves on. */
typedef struct {
  tilemm_host_team *team;
  int member;
  pthread_t thread;
  atomic_uint_fast64_t jobs;     /* jobs given to this helper so far (and one more to stop) */
  pthread_cond_t wake;           /* where it sleeps, under the team's lock                  */
  int sleeping;                  /* under the team's lock                                   */
  tilemm_team_fn fn;
  void *arg;
  int members;
} helper_slot;

struct tilemm_host_team {
  int threads;                   /* members: the caller and the helpers started             */
  tilemm_cpu_set cpus;
  pid_t pid;                     /* the process the helpers live in                         */
  helper_slot *slot;             /* threads - 1 of them: member i is slot[i - 1]            */
  pthread_mutex_t lock;          /* guards the slots' `sleeping` and the sleeps             */
  atomic_int remaining;          /* members yet to count themselves off the current job     */
  atomic_int quit;
};

static void *helper_main (void *p)
{
  helper_slot *s = (helper_slot *) p;
  tilemm_host_team *t = s->team;
  tilemm_pin_thread (&t->cpus);
  uint_fast64_t seen = 0;
  for (;;)
    {
      uint_fast64_t g = atomic_load (&s->jobs);
      if (g == seen)
        {
          const int64_t until = now_ns () + SPIN_NS;
          for (unsigned spins = 1; g == seen; spins++)
            {
              relax ();
              g = atomic_load (&s->jobs);
              if (g == seen && (spins & 1023) == 0 && now_ns () > until)
                break;
            }
        }
      if (g == seen)
        {
          pthread_mutex_lock (&t->lock);
          while ((g = atomic_load (&s->jobs)) == seen)
            {
              s->sleeping = 1;
              pthread_cond_wait (&s->wake, &t->lock);
            }
          s->sleeping = 0;
          pthread_mutex_unlock (&t->lock);
        }
      seen = g;
      if (atomic_load (&t->quit))
        return NULL;
      s->fn (s->arg, s->member, s->members);
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
  atomic_init (&t->remaining, 0);
  atomic_init (&t->quit, 0);
  if (pthread_mutex_init (&t->lock, NULL) != 0)
    {
      free (t);
      return NULL;
    }
  if (threads > 1)
    t->slot = (helper_slot *) calloc ((size_t) threads - 1, sizeof *t->slot);
  pthread_attr_t attr;
  const int attr_ok = pthread_attr_init (&attr) == 0;
  if (attr_ok)
    pthread_attr_setstacksize (&attr, HELPER_STACK);
  /* As many helpers as the system gives: a team of fewer members still works. */
  for (int i = 1; t->slot && i < threads; i++)
    {
      helper_slot *s = &t->slot[i - 1];
      s->team = t;
      s->member = i;
      atomic_init (&s->jobs, 0);
      if (pthread_cond_init (&s->wake, NULL) != 0)
        break;
      if (pthread_create (&s->thread, attr_ok ? &attr : NULL, helper_main, s) != 0)
        {
          pthread_cond_destroy (&s->wake);
          break;
        }
      t->threads = i + 1;
    }
  if (attr_ok)
    pthread_attr_destroy (&attr);
  return t;
}

void tilemm_host_team_stop (tilemm_host_team *t)
{
  if (!t)
    return;
  if (t->pid == getpid ())
    {
      atomic_store (&t->quit, 1);
      for (int i = 1; i < t->threads; i++)
        atomic_fetch_add (&t->slot[i - 1].jobs, 1);
      pthread_mutex_lock (&t->lock);
      for (int i = 1; i < t->threads; i++)
        pthread_cond_signal (&t->slot[i - 1].wake);
      pthread_mutex_unlock (&t->lock);
      for (int i = 1; i < t->threads; i++)
        pthread_join (t->slot[i - 1].thread, NULL);
    }
  /* (In a forked child the helpers do not exist: only the memory is given back.) */
  for (int i = 1; i < t->threads; i++)
    pthread_cond_destroy (&t->slot[i - 1].wake);
  pthread_mutex_destroy (&t->lock);
  free (t->slot);
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
  atomic_store (&t->remaining, members - 1);
  for (int i = 1; i < members; i++)
    {
      helper_slot *s = &t->slot[i - 1];
      s->fn = fn;
      s->arg = arg;
      s->members = members;
      atomic_fetch_add (&s->jobs, 1);
    }
  pthread_mutex_lock (&t->lock);
  for (int i = 1; i < members; i++)
    if (t->slot[i - 1].sleeping)
      pthread_cond_signal (&t->slot[i - 1].wake);
  pthread_mutex_unlock (&t->lock);
  fn (arg, 0, members);
  for (unsigned spins = 1; atomic_load (&t->remaining) > 0; spins++)
    {
      relax ();
      if ((spins & 4095) == 0)
        sched_yield ();   /* a member descheduled by another process: give it the core */
    }
}
