/* test_pool.c — tilemm's host threads: the team's dynamic jobs (host_team.h), the process's pool
 * (host_pool.h), the one rule that sizes every team (team_size.h) as the plan applies it, and the
 * CPU backend beside another library's spinning threads.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 *
 *   test_pool           every test
 *   test_pool quick     the tests that time nothing (for valgrind and sanitizers)
 *   test_pool threads   prints the host's threads as tilemm counts them (run by the test of
 *                       OMP_NUM_THREADS, in a fresh process with the variable set)
 */
#define _GNU_SOURCE   /* pthread_setaffinity_np, CPU_SET */
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "backend.h"
#include "check.h"
#include "host_cpus.h"
#include "host_pool.h"
#include "host_team.h"
#include "team_size.h"
#include "tilemm.h"

static double now_s (void)
{
  struct timespec t;
  clock_gettime (CLOCK_MONOTONIC, &t);
  return (double) t.tv_sec + 1e-9 * (double) t.tv_nsec;
}

static void busy_for (double seconds)
{
  const double until = now_s () + seconds;
  while (now_s () < until)
    ;
}

static void sleep_for (double seconds)
{
  struct timespec t = { (time_t) seconds, (long) ((seconds - floor (seconds)) * 1e9) };
  nanosleep (&t, NULL);
}

/* ---------------------------------------------------------------- each index once */

enum { MOST = 300, JOBS = 20000 };

/* One job's record, kept after the job: a helper that touched a job after its caller returned
 * would count into a record already checked. */
typedef struct {
  atomic_int hits[MOST];
  atomic_int done;
  int count, members, wrong_member;
} each_job;

static void each_index (void *arg, int64_t index, int member)
{
  each_job *j = (each_job *) arg;
  atomic_fetch_add (&j->hits[index], 1);
  atomic_fetch_add (&j->done, 1);
  if (member < 0 || member >= j->members)
    j->wrong_member = 1;   /* (any member writes the same value) */
}

static void test_team_each_once (void)
{
  CHECK_CASE ("host team: every index of a job once, on members 0..N-1, job after job");
  tilemm_cpu_set anywhere;
  tilemm_cpu_set_clear (&anywhere);
  tilemm_host_team *team = tilemm_host_team_start (5, &anywhere);
  CHECK (team && tilemm_host_team_size (team) == 5, "a team of %d", tilemm_host_team_size (team));
  each_job *jobs = calloc (JOBS, sizeof *jobs);
  CHECK (jobs != NULL, "memory");
  int bad = 0, late = 0;
  for (int i = 0; i < JOBS && team && jobs; i++)
    {
      each_job *j = &jobs[i];
      j->count = 1 + (i * 7919) % MOST;
      const int asked = 1 + i % 7;
      j->members = asked < 5 ? asked : 5;
      if (i % 5000 == 4999)
        sleep_for (2e-3);   /* the helpers fall asleep */
      tilemm_host_team_each (team, asked, j->count, each_index, j);
      bad += atomic_load (&j->done) != j->count;
      for (int x = 0; x < j->count; x++)
        bad += atomic_load (&j->hits[x]) != 1;
      bad += j->wrong_member;
    }
  sleep_for (5e-3);
  for (int i = 0; i < JOBS && jobs; i++)
    late += atomic_load (&jobs[i].done) != jobs[i].count;
  CHECK (bad == 0, "%d indices run other than once, or on a member out of range", bad);
  CHECK (late == 0, "%d jobs touched after their caller returned", late);
  each_job alone;
  memset (&alone, 0, sizeof alone);
  alone.count = 9;
  alone.members = 1;
  tilemm_host_team_each (NULL, 4, alone.count, each_index, &alone);
  CHECK (atomic_load (&alone.done) == 9 && !alone.wrong_member, "no team: the caller alone");
  tilemm_host_team_stop (team);
  free (jobs);
}

/* ---------------------------------------------------------------- where the members run */

enum { PLACED_MOST = 8 };

typedef struct {
  atomic_int cpu[PLACED_MOST];       /* where each member ran its last index */
  atomic_int claimed[PLACED_MOST];
} where_job;

static void where_index (void *arg, int64_t index, int member)
{
  (void) index;
  where_job *j = (where_job *) arg;
  busy_for (2e-4);   /* long enough that the helpers join before the caller is done */
  atomic_store (&j->cpu[member], tilemm_current_cpu ());
  atomic_fetch_add (&j->claimed[member], 1);
}

/* Each helper on a CPU of its own after the caller's (host_team.h): the rule itself, then a team's
 * helpers seen running where it puts them, none on the caller's CPU and no two on one.  Left to
 * the system, helpers woken while other threads held the cores shared the caller's. */
static void test_team_placement (void)
{
  CHECK_CASE ("host team: the placement rule (each helper after the caller's CPU, round the set)");
  tilemm_cpu_set four, sparse, none;
  tilemm_cpu_set_clear (&four);
  tilemm_cpu_set_clear (&sparse);
  tilemm_cpu_set_clear (&none);
  for (int c = 0; c < 4; c++)
    tilemm_cpu_set_add (&four, c);
  tilemm_cpu_set_add (&sparse, 2);
  tilemm_cpu_set_add (&sparse, 5);
  tilemm_cpu_set_add (&sparse, 9);
  CHECK (tilemm_team_member_cpu (&four, 1, 1) == 2 && tilemm_team_member_cpu (&four, 1, 2) == 3
           && tilemm_team_member_cpu (&four, 1, 3) == 0,
         "four CPUs, the caller on 1: members 1-3 on %d %d %d, not 2 3 0",
         tilemm_team_member_cpu (&four, 1, 1), tilemm_team_member_cpu (&four, 1, 2),
         tilemm_team_member_cpu (&four, 1, 3));
  CHECK (tilemm_team_member_cpu (&sparse, 5, 1) == 9 && tilemm_team_member_cpu (&sparse, 5, 2) == 2
           && tilemm_team_member_cpu (&sparse, 5, 3) == 5,
         "CPUs 2 5 9, the caller on 5: members 1-3 on %d %d %d, not 9 2 5 (round the set)",
         tilemm_team_member_cpu (&sparse, 5, 1), tilemm_team_member_cpu (&sparse, 5, 2),
         tilemm_team_member_cpu (&sparse, 5, 3));
  CHECK (tilemm_team_member_cpu (&sparse, 7, 1) == 2 && tilemm_team_member_cpu (&sparse, -1, 2) == 5,
         "the caller outside the set or unknown: from the set's first");
  CHECK (tilemm_team_member_cpu (&none, 0, 1) == -1 && tilemm_team_member_cpu (&four, 0, 0) == -1,
         "no CPUs, or member 0 (the caller): none");

  CHECK_CASE ("host team: each helper runs on its own CPU, none on the caller's");
  tilemm_cpu_set mine;
  const int cpus = tilemm_thread_cpus (&mine) ? tilemm_cpu_set_count (&mine) : 0;
  if (cpus < 2 || tilemm_current_cpu () < 0)
    {
      check_skip ("team placement", "fewer than two CPUs here, or the system does not say which");
      return;
    }
  const int members = cpus < PLACED_MOST ? cpus : PLACED_MOST;
  tilemm_host_team *team = tilemm_host_team_start (members, NULL);
  CHECK (team && tilemm_host_team_size (team) == members, "a team of %d",
         tilemm_host_team_size (team));
  int seen = 0, wrong = 0, tries = 0;
  for (; tries < 50 && seen == 0; tries++)
    {
      where_job j;
      for (int m = 0; m < PLACED_MOST; m++)
        atomic_init (&j.cpu[m], -1), atomic_init (&j.claimed[m], 0);
      const int caller = tilemm_current_cpu ();
      tilemm_host_team_each (team, members, 20 * (int64_t) members, where_index, &j);
      if (tilemm_current_cpu () != caller)
        continue;   /* the caller moved: the helpers may have been placed for either CPU */
      for (int m = 1; m < members; m++)
        {
          if (atomic_load (&j.claimed[m]) == 0)
            continue;
          seen++;
          const int placed = tilemm_host_team_member_placed (team, m);
          const int want = tilemm_team_member_cpu (&mine, caller, m);
          if (placed != want || atomic_load (&j.cpu[m]) != want || want == caller)
            {
              if (wrong++ == 0)
                printf ("  member %d of %d: placed on %d, ran on %d, its CPU %d (the caller on "
                        "%d)\n", m, members, placed, atomic_load (&j.cpu[m]), want, caller);
            }
          for (int o = 1; o < m; o++)
            if (atomic_load (&j.claimed[o]) > 0 && atomic_load (&j.cpu[o]) == atomic_load (&j.cpu[m]))
              wrong++;
        }
    }
  CHECK (seen > 0, "no helper joined a job in %d tries", tries);
  CHECK (wrong == 0, "%d helpers ran elsewhere than their own CPU after the caller's", wrong);
  tilemm_host_team_stop (team);
}

/* ---------------------------------------------------------------- a late member */

enum { LATE_COUNT = 240, LATE_TEAM = 4 };

typedef struct {
  double start, finished[LATE_COUNT];
  atomic_int stuck;          /* the index a helper was stuck in, + 1 (0: none yet) */
} late_job;

/* The first index a helper claims (member 1 or more) is stuck 50 ms (a thread the system does not
 * schedule); every other index is 20 microseconds of work. */
static void late_index (void *arg, int64_t index, int member)
{
  late_job *j = (late_job *) arg;
  int none = 0;
  if (member >= 1 && atomic_compare_exchange_strong (&j->stuck, &none, (int) index + 1))
    sleep_for (50e-3);
  else
    busy_for (20e-6);
  j->finished[index] = now_s () - j->start;
}

static void test_team_late_member (void)
{
  CHECK_CASE ("host team: a member stuck in one index holds back that index only");
  tilemm_cpu_set anywhere;
  tilemm_cpu_set_clear (&anywhere);
  tilemm_host_team *team = tilemm_host_team_start (LATE_TEAM, &anywhere);
  CHECK (team && tilemm_host_team_size (team) == LATE_TEAM, "a team of %d",
         tilemm_host_team_size (team));
  int tried = 0, measured = 0;
  double others = 0, whole = 0;
  /* (A try where no helper claimed an index proves nothing: tried again.) */
  for (; tried < 5 && team && !measured; tried++)
    {
      late_job *j = calloc (1, sizeof *j);
      if (!j)
        break;
      atomic_init (&j->stuck, 0);
      j->start = now_s ();
      tilemm_host_team_each (team, LATE_TEAM, LATE_COUNT, late_index, j);
      whole = now_s () - j->start;
      const int stuck = atomic_load (&j->stuck) - 1;
      if (stuck >= 0)
        {
          measured = 1;
          others = 0;
          for (int i = 0; i < LATE_COUNT; i++)
            if (i != stuck && j->finished[i] > others)
              others = j->finished[i];
        }
      free (j);
    }
  printf ("  late member: the other indices done after %.1f ms, the job after %.1f ms\n",
          1e3 * others, 1e3 * whole);
  CHECK (measured, "no helper claimed an index in %d tries", tried);
  /* 240 × 20 µs is 4.8 ms of work: the others are done long before the stuck index's 50 ms
   * (a static share of the stuck helper's would end after them). */
  CHECK (others < 30e-3, "the other indices took %.1f ms: held back by the stuck member",
         1e3 * others);
  CHECK (whole >= 50e-3, "the job returned after %.1f ms, before its stuck index was done",
         1e3 * whole);
  tilemm_host_team_stop (team);
}

/* ---------------------------------------------------------------- the pool */

static void pool_index (void *arg, int64_t index, int member)
{
  each_index (arg, index, member);
}

/* An index that itself asks for the pool: it runs alone (the pool is held). */
typedef struct {
  atomic_int inner_done;
  atomic_int wrong;
} nested_job;

static void nested_index (void *arg, int64_t index, int member)
{
  (void) index;
  (void) member;
  nested_job *n = (nested_job *) arg;
  each_job inner;
  memset (&inner, 0, sizeof inner);
  inner.count = 17;
  inner.members = 1;   /* alone: member 0 only */
  tilemm_host_pool_run (4, inner.count, pool_index, &inner);
  atomic_fetch_add (&n->inner_done, atomic_load (&inner.done));
  if (inner.wrong_member)
    atomic_fetch_add (&n->wrong, 1);
}

typedef struct {
  int runs, bad;
} caller_job;

static void *pool_caller (void *arg)
{
  caller_job *c = (caller_job *) arg;
  each_job *j = malloc (sizeof *j);
  for (int i = 0; j && i < c->runs; i++)
    {
      memset (j, 0, sizeof *j);
      j->count = 1 + (i * 31) % MOST;
      j->members = 3;
      tilemm_host_pool_run (3, j->count, pool_index, j);
      c->bad += atomic_load (&j->done) != j->count || j->wrong_member;
    }
  if (!j)
    c->bad++;
  free (j);
  return NULL;
}

static void test_pool (void)
{
  tilemm_host_facts host;
  tilemm_host_facts_gather (&host);
  const int cpus = tilemm_cpu_set_count (&host.cpus);

  CHECK_CASE ("host pool: made on first use, grown on demand, never beyond the mask's CPUs");
  tilemm_host_pool_release ();
  CHECK (tilemm_host_pool_size () == 1, "%d members before the first job", tilemm_host_pool_size ());
  each_job *j = calloc (1, sizeof *j);
  CHECK (j != NULL, "memory");
  if (!j)
    return;
  j->count = 100;
  j->members = 2;
  tilemm_host_pool_run (2, j->count, pool_index, j);
  CHECK (atomic_load (&j->done) == 100 && !j->wrong_member, "a job of 2");
  const int two = tilemm_host_pool_size ();
  CHECK (two == (cpus > 0 && cpus < 2 ? cpus : 2), "%d members for a job of 2", two);
  memset (j, 0, sizeof *j);
  j->count = MOST;
  j->members = 4096;
  tilemm_host_pool_run (4096, j->count, pool_index, j);
  CHECK (atomic_load (&j->done) == MOST && !j->wrong_member, "a job of 4096 asked");
  CHECK (cpus <= 0 || tilemm_host_pool_size () <= cpus, "%d members on %d CPUs",
         tilemm_host_pool_size (), cpus);
  CHECK (tilemm_host_pool_size () >= two, "the pool shrank");

  CHECK_CASE ("host pool: a job asked from a job's index runs alone, correct");
  nested_job n;
  atomic_init (&n.inner_done, 0);
  atomic_init (&n.wrong, 0);
  tilemm_host_pool_run (3, 12, nested_index, &n);
  CHECK (atomic_load (&n.inner_done) == 12 * 17 && atomic_load (&n.wrong) == 0,
         "%d of %d inner indices, %d on another member", atomic_load (&n.inner_done), 12 * 17,
         atomic_load (&n.wrong));

  CHECK_CASE ("host pool: four threads asking at once, every job correct");
  pthread_t t[4];
  caller_job c[4];
  int started = 0;
  for (int i = 0; i < 4; i++)
    {
      c[i].runs = 500;
      c[i].bad = 0;
      if (pthread_create (&t[i], NULL, pool_caller, &c[i]) != 0)
        break;
      started++;
    }
  int bad = 0;
  for (int i = 0; i < started; i++)
    {
      pthread_join (t[i], NULL);
      bad += c[i].bad;
    }
  CHECK (started == 4 && bad == 0, "%d threads started, %d jobs wrong", started, bad);

  CHECK_CASE ("host pool: a child of fork runs its jobs on the calling thread");
  fflush (stdout);
  const pid_t child = fork ();
  if (child == 0)
    {
      each_job *k = calloc (1, sizeof *k);
      if (!k)
        _exit (2);
      k->count = 50;
      k->members = 1;   /* the calling thread only */
      tilemm_host_pool_run (4, k->count, pool_index, k);
      _exit (atomic_load (&k->done) == 50 && !k->wrong_member ? 0 : 1);
    }
  int status = -1;
  CHECK (child > 0 && waitpid (child, &status, 0) == child && WIFEXITED (status)
           && WEXITSTATUS (status) == 0,
         "the child's job (status %d)", status);

  CHECK_CASE ("host pool: released and made again");
  tilemm_host_pool_release ();
  CHECK (tilemm_host_pool_size () == 1, "%d members after the release", tilemm_host_pool_size ());
  memset (j, 0, sizeof *j);
  j->count = 64;
  j->members = 2;
  tilemm_host_pool_run (2, j->count, pool_index, j);
  CHECK (atomic_load (&j->done) == 64, "a job after the release");
  free (j);
}

/* Ranges of a job (tilemm_host_pool_run_ranges): each item's count of visits, and every range
 * within [0, count), at most `per` long. */
enum { RANGE_ITEMS = 1000 };
typedef struct {
  atomic_int seen[RANGE_ITEMS];
  atomic_int bad;
  int64_t count, per;
} range_job;

static void range_items (void *ctx, int64_t first, int64_t last)
{
  range_job *r = (range_job *) ctx;
  if (first < 0 || last > r->count || first >= last || last - first > r->per)
    {
      atomic_fetch_add (&r->bad, 1);
      return;
    }
  for (int64_t i = first; i < last; i++)
    atomic_fetch_add (&r->seen[i], 1);
}

static void test_pool_ranges (void)
{
  CHECK_CASE ("host pool: a loop in ranges of the plan's length, every item once");
  static range_job r;
  const struct { int threads; int64_t count, per; } cases[] = {
    { 4, 1000, 7 },  { 4, 1000, 1000 }, { 4, 1000, 1 },   { 3, 999, 10 },  { 1, 37, 5 },
    { 0, 37, 5 },    { -2, 12, 3 },     { 4, 1, 64 },     { 4, 0, 8 },     { 4, 10, 0 },
    { 2, 10, -3 },   { 8, 1000, 999 },
  };
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
    {
      memset (&r, 0, sizeof r);
      r.count = cases[c].count;
      r.per = cases[c].per > 0 ? cases[c].per : 1;   /* a length under one is one item */
      tilemm_host_pool_run_ranges (cases[c].threads, r.count, cases[c].per, range_items, &r);
      int wrong = 0;
      for (int64_t i = 0; i < RANGE_ITEMS; i++)
        wrong += atomic_load (&r.seen[i]) != (i < r.count);
      CHECK (wrong == 0 && atomic_load (&r.bad) == 0,
             "threads %d, %lld items in ranges of %lld: %d items not run once, %d ranges wrong",
             cases[c].threads, (long long) cases[c].count, (long long) cases[c].per, wrong,
             atomic_load (&r.bad));
    }
}

/* ---------------------------------------------------------------- teams sized by the plan */

static void test_team_size (void)
{
  CHECK_CASE ("team size: no more than the host's threads, the pieces, the work pays for");
  CHECK (tilemm_team_size (32, 1000, INFINITY) == 32, "32 threads, no bound from the work");
  CHECK (tilemm_team_size (32, 5, INFINITY) == 5, "5 pieces");
  CHECK (tilemm_team_size (32, 1000, 10 * TILEMM_TEAM_MIN_SHARE_S) == 10, "10 shares of work");
  CHECK (tilemm_team_size (32, 1000, 0.5 * TILEMM_TEAM_MIN_SHARE_S) == 1, "half a share");
  CHECK (tilemm_team_size (0, 1000, 1.0) == 1 && tilemm_team_size (-3, 0, NAN) == 1,
         "no host threads, no pieces: one");

  CHECK_CASE ("plan: a CPU product's threads by its size on hosts of 2, 16 and 32 threads");
  static const int hosts[] = { 2, 16, 32 };
  static const int sizes[] = { 64, 256, 512, 4096 };
  for (int h = 0; h < 3; h++)
    {
      int previous = 0;
      for (int s = 0; s < 4; s++)
        {
          tilemm_plan plan;
          const int n = sizes[s];
          CHECK (tilemm_plan_make (&plan, TILEMM_BACKEND_CPU, TILEMM_DOUBLE, n, n, n, NULL)
                   == TILEMM_OK, "plan of %d", n);
          const int threads = tilemm_plan_cpu_threads (&plan, NULL, hosts[h]);
          printf ("  %4d x %4d double on %2d threads: %2d\n", n, n, hosts[h], threads);
          CHECK (threads >= 1 && threads <= hosts[h], "%d on %d", threads, hosts[h]);
          CHECK (threads >= previous, "%d at %d fewer than %d below it", threads, n, previous);
          previous = threads;
          if (n == 64)
            CHECK (threads == 1, "a 64 product (one tile) gets %d threads", threads);
          if (n == 256 && hosts[h] == 32)
            CHECK (threads < 32, "a 256 product gets all 32 threads");
          if (n == 4096)
            CHECK (threads == hosts[h], "a 4096 product gets %d of %d", threads, hosts[h]);
        }
    }
  CHECK_CASE ("plan: complex and single products sized alike, never beyond the host");
  tilemm_plan plan;
  CHECK (tilemm_plan_make (&plan, TILEMM_BACKEND_CPU, TILEMM_COMPLEX_DOUBLE, 1000, 1000, 1000,
                           NULL) == TILEMM_OK
           && tilemm_plan_cpu_threads (&plan, NULL, 16) == 16,
         "a complex 1000 product on 16");
  CHECK (tilemm_plan_make (&plan, TILEMM_BACKEND_CPU, TILEMM_SINGLE, 100, 100, 1, NULL)
             == TILEMM_OK
           && tilemm_plan_cpu_threads (&plan, NULL, 16) == 1,
         "a rank-1 100x100 update on one");
}

/* The host's threads as tilemm counts them, under OMP_NUM_THREADS set for a fresh process. */
static void test_host_threads_cap (const char *self)
{
  CHECK_CASE ("host facts: OMP_NUM_THREADS caps the host's threads");
  tilemm_host_facts host;
  tilemm_host_facts_gather (&host);
  const int cpus = tilemm_cpu_set_count (&host.cpus);
  int pipefd[2];
  if (cpus < 2 || pipe (pipefd) != 0)
    {
      check_skip ("OMP_NUM_THREADS", cpus < 2 ? "one CPU" : "no pipe");
      return;
    }
  fflush (stdout);
  const pid_t child = fork ();
  if (child == 0)
    {
      close (pipefd[0]);
      dup2 (pipefd[1], 1);
      setenv ("OMP_NUM_THREADS", "1,4", 1);
      execl ("/proc/self/exe", self, "threads", (char *) NULL);
      _exit (127);
    }
  close (pipefd[1]);
  char text[32] = "";
  const ssize_t got = child > 0 ? read (pipefd[0], text, sizeof text - 1) : -1;
  close (pipefd[0]);
  int status = -1;
  if (child > 0)
    waitpid (child, &status, 0);
  text[got > 0 ? got : 0] = '\0';
  CHECK (atoi (text) == 1, "OMP_NUM_THREADS=1,4 gave %s threads (status %d)", text, status);
  CHECK (host.threads >= 1 && host.threads <= cpus, "%d threads on %d CPUs", host.threads, cpus);
}

/* ---------------------------------------------------------------- beside a spinning pool */

/* Another library's idle threads (a BLAS's pool after a call): each spins on sched_yield and
 * pause, pinned to one CPU, as a pool bound to the cores does. */
typedef struct {
  atomic_int stop;
  int cpu;
} spinner;

static void pin_to (int cpu)
{
  cpu_set_t set;
  CPU_ZERO (&set);
  CPU_SET (cpu, &set);
  pthread_setaffinity_np (pthread_self (), sizeof set, &set);
}

static void *spin (void *arg)
{
  spinner *s = (spinner *) arg;
  pin_to (s->cpu);
  while (!atomic_load (&s->stop))
    {
      for (int i = 0; i < 64; i++)
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause ();
#else
        ;
#endif
      sched_yield ();
    }
  return NULL;
}

/* The planted way: a team of every CPU, each thread bound to its CPU and given a static share of
 * C's columns, the product done when every share is. */
typedef struct {
  const tilemm_view *a, *b, *c;
  int64_t first, cols;
  int cpu;
  tilemm_status status;
} share;

static void *static_share (void *arg)
{
  share *s = (share *) arg;
  pin_to (s->cpu);
  tilemm_plan plan;
  const tilemm_view bs = tilemm_view_sub (s->b, 0, s->first, s->b->rows, s->cols);
  const tilemm_view cs = tilemm_view_sub (s->c, 0, s->first, s->c->rows, s->cols);
  s->status = tilemm_plan_make (&plan, TILEMM_BACKEND_CPU, TILEMM_DOUBLE, s->a->rows, s->cols,
                                s->a->cols, NULL);
  if (s->status == TILEMM_OK)
    {
      plan.threads = 1;
      s->status = tilemm_cpu_multiply (&plan, s->a, &bs, &cs, NULL, NULL);
    }
  return NULL;
}

static double static_product (const tilemm_view *a, const tilemm_view *b, const tilemm_view *c,
                              const tilemm_cpu_set *cpus, int team)
{
  pthread_t t[64];
  share s[64];
  const double t0 = now_s ();
  int started = 0;
  for (int i = 0; i < team; i++)
    {
      const int64_t first = b->cols * i / team, last = b->cols * (i + 1) / team;
      s[i] = (share) { a, b, c, first, last - first, tilemm_cpu_set_nth (cpus, i), TILEMM_OK };
      if (pthread_create (&t[i], NULL, static_share, &s[i]) != 0)
        break;
      started++;
    }
  for (int i = 0; i < started; i++)
    pthread_join (t[i], NULL);
  return started == team ? now_s () - t0 : INFINITY;
}

static double pool_product (const tilemm_plan *plan, const tilemm_view *a, const tilemm_view *b,
                            const tilemm_view *c)
{
  const double t0 = now_s ();
  const tilemm_status status = tilemm_cpu_multiply (plan, a, b, c, NULL, NULL);
  return status == TILEMM_OK ? now_s () - t0 : INFINITY;
}

/* The mean of n runs: a thread the system does not schedule costs a run now and then, so the
 * ways compare over many runs, interleaved, each disturbed alike by the rest of the machine. */
static double mean (const double *v, int n)
{
  double sum = 0;
  for (int i = 0; i < n; i++)
    sum += v[i];
  return sum / n;
}

static void test_beside_spinning_pool (void)
{
  tilemm_host_facts host;
  tilemm_host_facts_gather (&host);
  const int cpus = tilemm_cpu_set_count (&host.cpus);
  if (cpus < 2)
    {
      check_skip ("beside a spinning pool", "fewer than 2 CPUs");
      return;
    }
  CHECK_CASE ("CPU backend beside a spinning pool: the pool's product, not a static team's");
  const int team = cpus < 64 ? cpus : 64, n = 384, reps = 25;
  double *x = malloc (sizeof (double) * n * n), *y = malloc (sizeof (double) * n * n);
  double *z = malloc (sizeof (double) * n * n);
  CHECK (x && y && z, "memory");
  if (!x || !y || !z)
    {
      free (x), free (y), free (z);
      return;
    }
  for (int i = 0; i < n * n; i++)
    x[i] = (double) (i % 13) - 6, y[i] = (double) (i % 7) - 3;
  tilemm_view a, b, c;
  tilemm_view_init (&a, TILEMM_DOUBLE, n, n, n, x);
  tilemm_view_init (&b, TILEMM_DOUBLE, n, n, n, y);
  tilemm_view_init (&c, TILEMM_DOUBLE, n, n, n, z);
  tilemm_plan plan;
  CHECK (tilemm_plan_make (&plan, TILEMM_BACKEND_CPU, TILEMM_DOUBLE, n, n, n, NULL) == TILEMM_OK,
         "plan");
  plan.threads = tilemm_plan_cpu_threads (&plan, NULL, host.threads);
  double quiet[25], dynamic[25], fixed[25];
  /* The caller on the first CPU (the pool's helpers go where the system puts them); its own mask
   * back at the end. */
  cpu_set_t mine;
  const int masked = pthread_getaffinity_np (pthread_self (), sizeof mine, &mine) == 0;
  pin_to (tilemm_cpu_set_nth (&host.cpus, 0));
  pool_product (&plan, &a, &b, &c);   /* the pool made, the pages touched */
  for (int r = 0; r < reps; r++)
    quiet[r] = pool_product (&plan, &a, &b, &c);
  /* The spinners: a BLAS's pool of one thread a CPU, each bound to its CPU (at most 64). */
  enum { SPINNERS = 64 };
  const int wanted = cpus < SPINNERS ? cpus : SPINNERS;
  spinner s[SPINNERS];
  pthread_t spinners[SPINNERS];
  int spinning = 0;
  for (int i = 0; i < wanted; i++)
    {
      atomic_init (&s[spinning].stop, 0);
      s[spinning].cpu = tilemm_cpu_set_nth (&host.cpus, i);
      spinning += pthread_create (&spinners[spinning], NULL, spin, &s[spinning]) == 0;
    }
  sleep_for (20e-3);
  for (int r = 0; r < reps; r++)
    {
      dynamic[r] = pool_product (&plan, &a, &b, &c);
      fixed[r] = static_product (&a, &b, &c, &host.cpus, team);
    }
  for (int i = 0; i < spinning; i++)
    atomic_store (&s[i].stop, 1);
  for (int i = 0; i < spinning; i++)
    pthread_join (spinners[i], NULL);
  if (masked)
    pthread_setaffinity_np (pthread_self (), sizeof mine, &mine);
  const double q = mean (quiet, reps), d = mean (dynamic, reps), f = mean (fixed, reps);
  printf ("  %d x %d double on %d threads: quiet %.1f ms; beside %d spinners: the pool %.1f ms, "
          "a static team of every CPU %.1f ms\n",
          n, n, plan.threads, 1e3 * q, spinning, 1e3 * d, 1e3 * f);
  CHECK (spinning == wanted, "%d of %d spinners started", spinning, wanted);
  /* Beside yielding spinners each thread of either way gets most of its CPU, and on a shared
   * machine the two come out close: the bound is that the pool is no slower than a static team
   * of every CPU beyond the noise, and within a few times its quiet time.  (The member that is
   * not scheduled is the late-member test's, timed without another process's noise.) */
  CHECK (d < 1.5 * f, "the pool's product (%.1f ms) slower than a static team's (%.1f ms)",
         1e3 * d, 1e3 * f);
  CHECK (d < 4.0 * q, "the pool's product %.1f ms beside the spinners, %.1f ms quiet", 1e3 * d,
         1e3 * q);
  free (x), free (y), free (z);
}

int main (int argc, char **argv)
{
  if (argc > 1 && strcmp (argv[1], "threads") == 0)
    {
      tilemm_host_facts host;
      tilemm_host_facts_gather (&host);
      printf ("%d\n", host.threads);
      return 0;
    }
  const int quick = argc > 1 && strcmp (argv[1], "quick") == 0;
  test_team_each_once ();
  test_team_placement ();
  test_pool ();
  test_pool_ranges ();
  test_team_size ();
  if (!quick)
    {
      test_team_late_member ();
      test_host_threads_cap (argv[0]);
      test_beside_spinning_pool ();
    }
  tilemm_host_pool_release ();
  return check_summary ("test_pool");
}
