/* test_copy_team.c — the copy team (src/common/copy_team.c) and the parallel copy on it:
 * every piece of a job done exactly once and before the call returns, whoever holds the team;
 * several callers at once (one gets the team, the others copy without it); jobs back to back
 * without a pause, held and not, after the threads went to sleep; 2-D copies of every shape
 * against memcpy column by column; a forked child copying (its team starts again).
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "copy_team.h"
#include "parallel_copy.h"

typedef struct {
  atomic_int *count;     /* per piece: how often it was done */
  atomic_int_fast64_t *undone_at_return;
} count_job;

static void count_piece (void *context, int64_t i)
{
  const count_job *j = (const count_job *) context;
  /* A little work, so that pieces overlap in time across threads. */
  volatile double x = 0;
  for (int r = 0; r < 200 + (int) (i % 7) * 50; r++)
    x += r;
  atomic_fetch_add (&j->count[i], 1);
}

/* Runs `jobs` jobs of `pieces` pieces on `threads` threads; the count of pieces not done
 * exactly once (bad) and of calls that returned before all their pieces were done (early). */
static void run_jobs (int jobs, int64_t pieces, int threads, int *bad, int *early, int *refused)
{
  atomic_int *count = calloc ((size_t) pieces, sizeof *count);
  *bad = *early = *refused = 0;
  for (int j = 0; j < jobs; j++)
    {
      for (int64_t i = 0; i < pieces; i++)
        atomic_store (&count[i], 0);
      count_job job = { count, NULL };
      if (!tilemm_copy_team_run (threads, pieces, count_piece, &job))
        {
          (*refused)++;
          continue;
        }
      /* What is not done at return is an early return; check right away, then again. */
      for (int64_t i = 0; i < pieces; i++)
        if (atomic_load (&count[i]) == 0)
          {
            (*early)++;
            break;
          }
      usleep (j % 5 == 0 ? 3000 : 0);   /* now and then long enough for the threads to sleep */
      for (int64_t i = 0; i < pieces; i++)
        if (atomic_load (&count[i]) != 1)
          (*bad)++;
    }
  free (count);
}

typedef struct {
  int seed, failures, refused;
} caller_args;

/* One of several callers at once: 2-D copies, checked. */
static void *caller (void *arg)
{
  caller_args *a = (caller_args *) arg;
  unsigned s = (unsigned) a->seed;
  for (int r = 0; r < 60; r++)
    {
      const size_t row = 1 + (size_t) (rand_r (&s) % 5000), cols = 1 + (size_t) (rand_r (&s) % 700);
      const size_t src_pitch = row + (size_t) (rand_r (&s) % 3) * 17;
      const size_t dst_pitch = row + (size_t) (rand_r (&s) % 2) * 5;
      unsigned char *src = malloc (src_pitch * cols), *dst = malloc (dst_pitch * cols);
      for (size_t i = 0; i < src_pitch * cols; i++)
        src[i] = (unsigned char) rand_r (&s);
      memset (dst, 0xAB, dst_pitch * cols);
      tilemm_parallel_copy_2d (dst, dst_pitch, src, src_pitch, row, cols, 4);
      for (size_t c = 0; c < cols; c++)
        {
          if (memcmp (dst + c * dst_pitch, src + c * src_pitch, row) != 0)
            {
              a->failures++;
              break;
            }
          /* The gap between rows is left as it was. */
          for (size_t g = row; g < dst_pitch; g++)
            if (dst[c * dst_pitch + g] != 0xAB)
              {
                a->failures++;
                break;
              }
        }
      free (src);
      free (dst);
    }
  return NULL;
}

int main (void)
{
  int bad, early, refused;

  CHECK_CASE ("team: 400 jobs of 1..3000 pieces on 4 threads, not held: each piece once, all "
              "done at return");
  {
    int total_bad = 0, total_early = 0, total_refused = 0;
    for (int64_t pieces = 1; pieces <= 3000; pieces = pieces * 3 + 1)
      {
        run_jobs (50, pieces, 4, &bad, &early, &refused);
        total_bad += bad, total_early += early, total_refused += refused;
      }
    CHECK (total_bad == 0, "%d pieces not done exactly once", total_bad);
    CHECK (total_early == 0, "%d calls returned before their pieces were done", total_early);
    CHECK (total_refused == 0, "%d jobs refused with one caller", total_refused);
  }

  CHECK_CASE ("team: held (threads spinning), 300 jobs back to back, then released");
  tilemm_copy_team_hold (4);
  run_jobs (300, 257, 4, &bad, &early, &refused);
  tilemm_copy_team_release ();
  CHECK (bad == 0 && early == 0 && refused == 0, "bad %d early %d refused %d", bad, early, refused);

  CHECK_CASE ("team: more threads asked than ran before (the team grows), fewer after");
  run_jobs (20, 999, 8, &bad, &early, &refused);
  CHECK (bad == 0 && early == 0 && refused == 0, "8 threads: bad %d early %d refused %d", bad, early,
         refused);
  run_jobs (20, 999, 2, &bad, &early, &refused);
  CHECK (bad == 0 && early == 0 && refused == 0, "2 threads: bad %d early %d refused %d", bad, early,
         refused);

  CHECK_CASE ("parallel copy: 2-D copies of every shape from 4 callers at once, checked");
  {
    pthread_t t[4];
    caller_args args[4];
    for (int i = 0; i < 4; i++)
      {
        args[i].seed = 17 + i, args[i].failures = 0, args[i].refused = 0;
        pthread_create (&t[i], NULL, caller, &args[i]);
      }
    int failures = 0;
    for (int i = 0; i < 4; i++)
      {
        pthread_join (t[i], NULL);
        failures += args[i].failures;
      }
    CHECK (failures == 0, "%d copies wrong", failures);
  }

  CHECK_CASE ("parallel copy: contiguous 37 MiB, odd length, held and not");
  {
    const size_t n = (37u << 20) + 13;
    unsigned char *src = malloc (n), *dst = malloc (n);
    for (size_t i = 0; i < n; i++)
      src[i] = (unsigned char) (i * 2654435761u >> 13);
    for (int held = 0; held < 2; held++)
      {
        memset (dst, 0, n);
        if (held)
          tilemm_copy_team_hold (0);
        tilemm_parallel_copy_2d (dst, n, src, n, n, 1, 0);
        if (held)
          tilemm_copy_team_release ();
        CHECK (memcmp (dst, src, n) == 0, "held %d: wrong", held);
        memset (dst, 0, n);
        /* as 1 MiB columns */
        tilemm_parallel_copy_2d (dst, 1u << 20, src, 1u << 20, 1u << 20, 37, 0);
        CHECK (memcmp (dst, src, 37u << 20) == 0, "held %d: columns wrong", held);
      }
    free (src);
    free (dst);
  }

  CHECK_CASE ("fork: the child's copies (its team starts again), the parent's after");
  {
    const size_t n = 9u << 20;
    unsigned char *src = malloc (n), *dst = malloc (n);
    for (size_t i = 0; i < n; i++)
      src[i] = (unsigned char) (i * 7 + 3);
    tilemm_parallel_copy_2d (dst, n, src, n, n, 1, 4);   /* the parent's team runs */
    const pid_t child = fork ();
    if (child == 0)
      {
        memset (dst, 0, n);
        tilemm_parallel_copy_2d (dst, n, src, n, n, 1, 4);
        _exit (memcmp (dst, src, n) == 0 ? 0 : 3);
      }
    int status = -1;
    waitpid (child, &status, 0);
    CHECK (WIFEXITED (status) && WEXITSTATUS (status) == 0, "child status %d", status);
    memset (dst, 0, n);
    tilemm_parallel_copy_2d (dst, n, src, n, n, 1, 4);
    CHECK (memcmp (dst, src, n) == 0, "parent after fork: wrong");
    free (src);
    free (dst);
  }
  return check_summary ("test_copy_team");
}
