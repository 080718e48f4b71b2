/* host_team.c — a team of host threads kept between products (see host_team.h).
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 *
 * The job lives in the team: the caller writes it (fn, arg, count, members, the counter `next`)
 * while no job is open and no helper is inside one, then opens it by moving `state` on (the job's
 * number times two, plus one while open).  A helper that sees a new number counts itself in
 * `active`, then reads `state` again: only if the job is still open does it read the job and
 * claim indices, and either way it counts itself out.  Once the caller has seen every index
 * claimed it closes the job (`state` even) and waits for `active` to reach 0.  Every one of these
 * is a sequentially consistent atomic, which is what makes the two checks meet (a Dekker pair):
 * either the helper's count comes before the caller reads `active` (the caller waits for it to
 * leave) or the caller's close comes before the helper reads `state` (the helper leaves without
 * touching the job).  So the caller never waits for a helper that has not started, and the job's
 * arguments, which live on the caller's stack, are never read after the caller returns.
 *
 * Sleeping: a helper that saw no job for SPIN_NS counts itself in `sleepers` and sleeps on its
 * own condition under the team's lock, after checking `state` once more under that lock; the
 * caller, after opening a job, takes the lock only when `sleepers` is not 0 and wakes the
 * sleeping helpers the job may use (the same Dekker pair: no wake-up is lost).
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

/* A helper spins (yielding its core between looks) this long after a job before it sleeps:
 * the jobs of one product come back to back, and waking a sleeping thread costs more than a
 * small job.  Short, so that an idle team never competes for long with another library's
 * threads. */
enum { SPIN_NS = 200 * 1000, YIELD_EVERY = 16 };

/* A helper's stack: room for the CPU backend's tile buffers (backend_cpu.c) with a margin; only
 * the pages touched are ever backed. */
enum { HELPER_STACK = 1 << 20 };

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
  pthread_t thread;
  pthread_cond_t wake;           /* where it sleeps, under the team's lock                  */
  int sleeping;                  /* under the team's lock                                   */
  int placed_for;                /* the caller's CPU it was last placed for (-1: none)      */
  atomic_int placed;             /* the CPU it was moved to (-1: none)                      */
} helper_slot;

struct tilemm_host_team {
  int threads;                   /* members: the caller and the helpers started             */
  tilemm_cpu_set cpus;           /* as asked (empty: anywhere), for tilemm_host_team_fits   */
  tilemm_cpu_set places;         /* where the members go (tilemm_team_member_cpu)           */
  pid_t pid;                     /* the process the helpers live in                         */
  helper_slot *slot;             /* threads - 1 of them: member i is slot[i - 1]            */
  pthread_mutex_t lock;          /* guards the slots' `sleeping` and the sleeps             */
  atomic_int sleepers;           /* helpers asleep or about to be                           */
  atomic_int quit;
  /* The job: written by the caller only while it is closed and `active` is 0. */
  tilemm_team_fn fn;
  void *arg;
  int64_t count;
  int members;
  int caller_cpu;                /* where the caller ran as it opened the job (-1: unknown) */
  atomic_int_fast64_t next;      /* the next index to claim                                 */
  atomic_uint_fast64_t state;    /* job number × 2, + 1 while the job is open              */
  atomic_int active;             /* helpers inside the job                                  */
};

/* Claims and runs indices of the open job until none is left. */
static void claim_all (tilemm_host_team *t, int member)
{
  const int64_t count = t->count;
  for (int64_t i; (i = atomic_fetch_add (&t->next, 1)) < count;)
    t->fn (t->arg, i, member);
}

/* The state once it names a job other than `seen` (or the team quits): spinning a while, then
 * asleep. */
static uint_fast64_t wait_for_job (tilemm_host_team *t, helper_slot *s, uint_fast64_t seen)
{
  uint_fast64_t state;
  const int64_t until = now_ns () + SPIN_NS;
  for (unsigned spins = 1;; spins++)
    {
      state = atomic_load (&t->state);
      if (state >> 1 != seen || atomic_load (&t->quit))
        return state;
      if (spins % YIELD_EVERY)
        relax ();
      else if (now_ns () > until)
        break;
      else
        sched_yield ();   /* a thread of another library may be waiting for this core */
    }
  pthread_mutex_lock (&t->lock);
  atomic_fetch_add (&t->sleepers, 1);
  s->sleeping = 1;
  while ((state = atomic_load (&t->state)) >> 1 == seen && !atomic_load (&t->quit))
    pthread_cond_wait (&s->wake, &t->lock);
  s->sleeping = 0;
  atomic_fetch_sub (&t->sleepers, 1);
  pthread_mutex_unlock (&t->lock);
  return state;
}

int tilemm_team_member_cpu (const tilemm_cpu_set *cpus, int caller_cpu, int member)
{
  const int count = tilemm_cpu_set_count (cpus);
  if (count == 0 || member < 1)
    return -1;
  int at = member - 1;   /* the caller's CPU not in the set: from its first */
  if (caller_cpu >= 0 && tilemm_cpu_set_has (cpus, caller_cpu))
    {
      at = member;   /* ... else from the caller's place in it */
      for (int cpu = 0; cpu < caller_cpu; cpu++)
        at += tilemm_cpu_set_has (cpus, cpu);
    }
  at %= count;
  return tilemm_cpu_set_nth (cpus, at);
}

int tilemm_host_team_member_placed (const tilemm_host_team *t, int member)
{
  return t && member >= 1 && member < t->threads ? atomic_load (&t->slot[member - 1].placed) : -1;
}

/* Moves the helper to its CPU for the open job's caller, where that caller runs elsewhere than
 * the last one it was placed for (a system call only then). */
static void place_helper (tilemm_host_team *t, helper_slot *s)
{
  if (t->caller_cpu == s->placed_for)
    return;
  s->placed_for = t->caller_cpu;
  const int cpu = tilemm_team_member_cpu (&t->places, t->caller_cpu, s->member);
  if (cpu < 0 || cpu == atomic_load (&s->placed))
    return;
  tilemm_cpu_set one;
  tilemm_cpu_set_clear (&one);
  tilemm_cpu_set_add (&one, cpu);
  atomic_store (&s->placed, tilemm_pin_thread (&one) ? cpu : -1);
}

static void *helper_main (void *p)
{
  helper_slot *s = (helper_slot *) p;
  tilemm_host_team *t = s->team;
  tilemm_pin_thread (&t->cpus);
  tilemm_name_thread ("tilemm-team");
  uint_fast64_t seen = 0;
  for (;;)
    {
      const uint_fast64_t state = wait_for_job (t, s, seen);
      if (atomic_load (&t->quit))
        return NULL;
      seen = state >> 1;
      if (!(state & 1))
        continue;   /* it closed before this helper looked: nothing of it is read */
      atomic_fetch_add (&t->active, 1);
      if (atomic_load (&t->state) == state && s->member < t->members)
        {
          place_helper (t, s);
          claim_all (t, s->member);
        }
      atomic_fetch_sub (&t->active, 1);
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
  if (tilemm_cpu_set_count (&t->cpus) > 0)
    t->places = t->cpus;
  else
    tilemm_thread_cpus (&t->places);
  t->pid = getpid ();
  t->threads = 1;
  atomic_init (&t->sleepers, 0);
  atomic_init (&t->quit, 0);
  atomic_init (&t->next, 0);
  atomic_init (&t->state, 0);
  atomic_init (&t->active, 0);
  if (pthread_mutex_init (&t->lock, NULL) != 0)
    {
      free (t);
      return NULL;
    }
  if (threads > 1)
    t->slot = (helper_slot *) calloc ((size_t) threads - 1, sizeof *t->slot);
  pthread_attr_t attr;
  const int attr_ok = pthread_attr_init (&attr) == 0;
  /* A small stack where the system takes it, else the system's default (larger). */
  const int sized = attr_ok && pthread_attr_setstacksize (&attr, HELPER_STACK) == 0;
  /* As many helpers as the system gives: a team of fewer members still works. */
  for (int i = 1; t->slot && i < threads; i++)
    {
      helper_slot *s = &t->slot[i - 1];
      s->team = t;
      s->member = i;
      s->placed_for = -1;
      atomic_init (&s->placed, -1);
      if (pthread_cond_init (&s->wake, NULL) != 0)
        break;
      if (pthread_create (&s->thread, sized ? &attr : NULL, helper_main, s) != 0)
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

void tilemm_host_team_each (tilemm_host_team *t, int members, int64_t count, tilemm_team_fn fn,
                            void *arg)
{
  if (count <= 0)
    return;
  if (!t || members <= 1 || count == 1 || t->threads <= 1 || t->pid != getpid ())
    {
      for (int64_t i = 0; i < count; i++)
        fn (arg, i, 0);
      return;
    }
  if (members > t->threads)
    members = t->threads;
  if ((int64_t) members > count)
    members = (int) count;
  t->fn = fn;
  t->arg = arg;
  t->count = count;
  t->members = members;
  t->caller_cpu = tilemm_current_cpu ();
  atomic_store (&t->next, 0);
  const uint_fast64_t job = (atomic_load (&t->state) >> 1) + 1;
  atomic_store (&t->state, job * 2 + 1);
  if (atomic_load (&t->sleepers) > 0)
    {
      pthread_mutex_lock (&t->lock);
      for (int i = 1; i < members; i++)
        if (t->slot[i - 1].sleeping)
          pthread_cond_signal (&t->slot[i - 1].wake);
      pthread_mutex_unlock (&t->lock);
    }
  claim_all (t, 0);
  atomic_store (&t->state, job * 2);
  for (unsigned spins = 1; atomic_load (&t->active) > 0; spins++)
    if (spins % YIELD_EVERY)
      relax ();
    else
      sched_yield ();   /* a helper finishing its index may be waiting for this core */
}
