/* host_team.h — a team of host threads kept between products, pinned to a set of CPUs: the
 * threads of one GPU worker's staging copies.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 *
 * Why not OpenMP's team: a parallel region started from a thread makes that thread's own pool,
 * of OpenMP's default size (every CPU), and puts it wherever the system likes.  The executor's
 * workers are threads of their own, one per GPU, so two GPUs made two pools of every CPU each,
 * spinning at each region's barrier on the same cores, and a pool lived only as long as its
 * worker's thread (one product).  A team here is made once per worker's workspace, of the size
 * and on the CPUs its plan says (copy_team.h), and kept: the next product wakes it.
 *
 * A job is `count` indices that the members claim one at a time from a shared counter, so a
 * member the system does not schedule (another library's threads spinning on its core) holds
 * back only the index it claimed, never a fixed share of the job: the others take the rest.  The
 * caller is member 0 and works too; it returns once every index is done and every helper that
 * entered the job has left it.  A helper that comes late, after the job closed, does not enter
 * it and never reads its arguments.  The helpers wait for work by spinning a little (yielding
 * the core as they spin: jobs come back to back while a product streams), then sleep.  After a
 * fork the child has no helpers: a job there runs every index on the calling thread.
 *
 * Where the members run: each helper on a CPU of its own, the one `member` places after the
 * caller's CPU in the team's CPUs (tilemm_team_member_cpu), moved there when it joins a job whose
 * caller runs elsewhere than before.  Left to the system, a helper woken while every core was busy
 * (another library's threads yielding in a loop after each of its calls) was put on its waker's
 * core and stayed there: its later wake-ups went where it last ran, and it ran too little for the
 * system to move it.  A whole team then shared the caller's core, and the CPU backend ran at one
 * thread's speed for the rest of the process (bench/RESULTS.md).  A helper pinned to a core that
 * another thread holds claims nothing until it runs, so the others take its share.
 */
#ifndef TILEMM_HOST_TEAM_H
#define TILEMM_HOST_TEAM_H

#include <stdint.h>

#include "host_cpus.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tilemm_host_team tilemm_host_team;

/* A team of `threads` members (the caller and threads - 1 helpers), its helpers on `cpus` (empty:
 * the CPUs the starting thread may run on), each on one of them (tilemm_team_member_cpu).  Fewer helpers where the system gives fewer threads (tilemm_host_team_size
 * says how many members it has); NULL where there is no memory for it. */
tilemm_host_team *tilemm_host_team_start (int threads, const tilemm_cpu_set *cpus);

/* Stops and joins the helpers and frees the team (NULL is fine). */
void tilemm_host_team_stop (tilemm_host_team *team);

/* Members of the team (1 for NULL). */
int tilemm_host_team_size (const tilemm_host_team *team);

/* Whether the team can run a job of `threads` members on `cpus` as made: its CPUs are those and
 * it has that many members at least. */
int tilemm_host_team_fits (const tilemm_host_team *team, int threads, const tilemm_cpu_set *cpus);

/* One job: fn (arg, index, member) for every index in [0, count), each exactly once, on at most
 * `members` members at once (the caller is member 0; member < members, so a job may keep a slot
 * per member).  Returns when every index is done.  A NULL team, members <= 1, count <= 1 or a
 * forked child: every index on the caller, in order, as member 0.  Not for two callers at once
 * on one team (host_pool.h shares one between threads). */
/* The CPU member `member` (>= 1) of a team on `cpus` runs on while its caller runs on
 * `caller_cpu`: the member-th CPU of `cpus` after the caller's, round the set (from the set's
 * first where the caller's is not in it, or unknown: -1).  -1 for an empty set.  Pure. */
int tilemm_team_member_cpu (const tilemm_cpu_set *cpus, int caller_cpu, int member);

/* The CPU helper `member` of the team was last moved to (-1: none yet, or the system refused);
 * for tests. */
int tilemm_host_team_member_placed (const tilemm_host_team *team, int member);

typedef void (*tilemm_team_fn) (void *arg, int64_t index, int member);
void tilemm_host_team_each (tilemm_host_team *team, int members, int64_t count, tilemm_team_fn fn,
                            void *arg);

#ifdef __cplusplus
}
#endif

#endif /* TILEMM_HOST_TEAM_H */
