/* copy_team.c — the host threads that copy to and from the pinned staging (see copy_team.h).
 *
 * A job is a count of pieces and a function; its pieces are claimed by compare-and-swap on one
 * word that holds the job's generation beside the next piece's number, so that a thread still
 * looking at the job before cannot claim a piece of the next one.  The caller claims pieces too
 * and returns when all are done.  Threads spin while a product holds the team, or for a short
 * grace after their last piece, and otherwise sleep on a condition variable.  The threads are
 * stopped and joined when the library that holds this code is unloaded (Octave can unload an
 * oct-file), and forgotten in the child of a fork.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 */
#if defined(__linux__)
#define _GNU_SOURCE
#endif

#include "copy_team.h"

#if defined(__linux__) || defined(__APPLE__)

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <time.h>
#include <unistd.h>

#ifdef _OPENMP
#include <omp.h>
#endif

/* The most team threads, and how long a thread that is not held spins after its last piece
 * before it sleeps: the gap between two staging chunks of one copy is far shorter. */
enum { TEAM_MAX = 256 };
static const double GRACE_S = 2.0e-3;

static struct {
  pthread_mutex_t lock;            /* starting threads, sleeping                      */
  pthread_cond_t wake;
  pthread_mutex_t job_lock;        /* one job at a time                               */
  pthread_t thread[TEAM_MAX];
  int started;                     /* under lock                                      */
  atomic_int quit;
  atomic_uint_fast64_t generation; /* of the job published last                       */
  atomic_uint_fast64_t next;       /* generation (low 32 bits) << 32 | next piece     */
  atomic_int_fast64_t done;        /* pieces of the current job done                  */
  atomic_int holders;
  atomic_int sleepers;
  /* The current job: written by its caller before it publishes the generation. */
  void (*piece) (void *, int64_t);
  void *context;
  atomic_int_fast64_t pieces;
  atomic_int helpers;
} team = { .lock = PTHREAD_MUTEX_INITIALIZER,
            .wake = PTHREAD_COND_INITIALIZER,
            .job_lock = PTHREAD_MUTEX_INITIALIZER };

static pthread_once_t fork_once = PTHREAD_ONCE_INIT;

static double now_s (void)
{
  struct timespec t;
  clock_gettime (CLOCK_MONOTONIC, &t);
  return (double) t.tv_sec + 1.0e-9 * (double) t.tv_nsec;
}

static void relax (void)
{
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause ();
#elif defined(__aarch64__)
  __asm__ __volatile__ ("yield");
#endif
}

/* Claims and does pieces of job `generation` until none is left or another job replaced it. */
static void work (uint64_t generation)
{
  const uint64_t tag = (generation & 0xffffffffu) << 32;
  for (;;)
    {
      uint_fast64_t v = atomic_load (&team.next);
      if ((v & ~(uint_fast64_t) 0xffffffffu) != tag || (int64_t) (v & 0xffffffffu) >= atomic_load (&team.pieces))
        return;
      if (!atomic_compare_exchange_weak (&team.next, &v, v + 1))
        continue;
      /* The job cannot end before this piece is counted: its fields are still this job's. */
      team.piece (team.context, (int64_t) (v & 0xffffffffu));
      atomic_fetch_add (&team.done, 1);
    }
}

static void *team_thread (void *arg)
{
  const int index = (int) (intptr_t) arg;   /* 1, 2, ...: helper number */
  uint64_t seen = atomic_load (&team.generation);
  double idle_since = now_s ();
  for (unsigned spins = 0;; spins++)
    {
      if (atomic_load (&team.quit))
        return NULL;
      const uint64_t g = atomic_load (&team.generation);
      if (g != seen)
        {
          seen = g;
          if (index <= atomic_load (&team.helpers))
            work (g);
          idle_since = now_s ();
          continue;
        }
      if (atomic_load (&team.holders) > 0 || (spins % 64 != 0 || now_s () - idle_since < GRACE_S))
        {
          relax ();
          continue;
        }
      pthread_mutex_lock (&team.lock);
      atomic_fetch_add (&team.sleepers, 1);
      while (!atomic_load (&team.quit) && atomic_load (&team.generation) == seen
             && atomic_load (&team.holders) == 0)
        pthread_cond_wait (&team.wake, &team.lock);
      atomic_fetch_sub (&team.sleepers, 1);
      pthread_mutex_unlock (&team.lock);
      idle_since = now_s ();
    }
}

static void wake_sleepers (void)
{
  if (atomic_load (&team.sleepers) > 0)
    {
      pthread_mutex_lock (&team.lock);
      pthread_cond_broadcast (&team.wake);
      pthread_mutex_unlock (&team.lock);
    }
}

/* In the child of a fork the threads do not exist: the team starts again from none. */
static void forget_in_child (void)
{
  pthread_mutex_init (&team.lock, NULL);
  pthread_cond_init (&team.wake, NULL);
  pthread_mutex_init (&team.job_lock, NULL);
  team.started = 0;
  atomic_store (&team.holders, 0);
  atomic_store (&team.sleepers, 0);
}

static void register_fork_handler (void)
{
  pthread_atfork (NULL, NULL, forget_in_child);
}

/* Team threads up to `helpers` (fewer where the system refuses one); returns how many run.
 * Threads start with every signal blocked: Octave's Ctrl-C goes to its own threads. */
static int start_threads (int helpers)
{
  pthread_once (&fork_once, register_fork_handler);
  if (helpers > TEAM_MAX)
    helpers = TEAM_MAX;
  pthread_mutex_lock (&team.lock);
  if (team.started < helpers && !atomic_load (&team.quit))
    {
      sigset_t all, saved;
      sigfillset (&all);
      pthread_sigmask (SIG_SETMASK, &all, &saved);
      while (team.started < helpers)
        {
          if (pthread_create (&team.thread[team.started], NULL, team_thread,
                              (void *) (intptr_t) (team.started + 1))
              != 0)
            break;
          team.started++;
        }
      pthread_sigmask (SIG_SETMASK, &saved, NULL);
    }
  const int started = team.started;
  pthread_mutex_unlock (&team.lock);
  return started;
}

static int default_threads (void)
{
#ifdef _OPENMP
  return omp_get_max_threads ();
#else
  const long cores = sysconf (_SC_NPROCESSORS_ONLN);
  return cores > 0 ? (int) cores : 1;
#endif
}

int tilemm_copy_team_run (int threads, int64_t pieces, void (*piece) (void *context, int64_t i),
                          void *context)
{
  if (pieces <= 0)
    return 1;
  if (pieces > 0x7fffffff)
    return 0;
  if (threads <= 0)
    threads = default_threads ();
  if (threads < 2 || pieces < 2)
    {
      for (int64_t i = 0; i < pieces; i++)
        piece (context, i);
      return 1;
    }
  if (pthread_mutex_trylock (&team.job_lock) != 0)
    return 0;
  const int started = start_threads (threads - 1);
  if (started == 0)
    {
      pthread_mutex_unlock (&team.job_lock);
      return 0;
    }
  team.piece = piece;
  team.context = context;
  atomic_store (&team.pieces, pieces);
  atomic_store (&team.helpers, threads - 1 < started ? threads - 1 : started);
  atomic_store (&team.done, 0);
  const uint64_t g = atomic_load (&team.generation) + 1;
  atomic_store (&team.next, (uint_fast64_t) (g & 0xffffffffu) << 32);
  atomic_store (&team.generation, g);
  wake_sleepers ();
  work (g);
  while (atomic_load (&team.done) < pieces)
    relax ();
  pthread_mutex_unlock (&team.job_lock);
  return 1;
}

void tilemm_copy_team_hold (int threads)
{
  atomic_fetch_add (&team.holders, 1);
  start_threads ((threads > 0 ? threads : default_threads ()) - 1);
  wake_sleepers ();
}

void tilemm_copy_team_release (void)
{
  atomic_fetch_sub (&team.holders, 1);
}

/* The library is being unloaded (or the process ends): its threads must not outlive its code. */
__attribute__ ((destructor)) static void stop_team (void)
{
  atomic_store (&team.quit, 1);
  pthread_mutex_lock (&team.lock);
  pthread_cond_broadcast (&team.wake);
  const int started = team.started;
  team.started = 0;
  pthread_mutex_unlock (&team.lock);
  for (int t = 0; t < started; t++)
    pthread_join (team.thread[t], NULL);
}

#else /* no POSIX threads: the caller does the work */

int tilemm_copy_team_run (int threads, int64_t pieces, void (*piece) (void *context, int64_t i),
                          void *context)
{
  (void) threads, (void) pieces, (void) piece, (void) context;
  return 0;
}
void tilemm_copy_team_hold (int threads)
{
  (void) threads;
}
void tilemm_copy_team_release (void) {}

#endif
