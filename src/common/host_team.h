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
 * The caller of tilemm_host_team_run is member 0 and works too; the helpers wait for work by
 * spinning a little (work comes back to back while a product streams), then sleep.  A job of
 * fewer members than the team wakes and waits for those only.  After a fork the child has no
 * helpers: a team run there does all the work on the calling thread.
 */
#ifndef TILEMM_HOST_TEAM_H
#define TILEMM_HOST_TEAM_H

#include "host_cpus.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tilemm_host_team tilemm_host_team;

/* A team of `threads` members (the caller and threads - 1 helpers), its helpers pinned to `cpus`
 * (empty: unpinned).  Fewer helpers where the system gives fewer threads (tilemm_host_team_size
 * says how many members it has); NULL where there is no memory for it. */
tilemm_host_team *tilemm_host_team_start (int threads, const tilemm_cpu_set *cpus);

/* Stops and joins the helpers and frees the team (NULL is fine). */
void tilemm_host_team_stop (tilemm_host_team *team);

/* Members of the team (1 for NULL). */
int tilemm_host_team_size (const tilemm_host_team *team);

/* Whether the team can run a job of `threads` members on `cpus` as made: its CPUs are those and
 * it has that many members at least. */
int tilemm_host_team_fits (const tilemm_host_team *team, int threads, const tilemm_cpu_set *cpus);

/* One job: fn (arg, member, members) on `members` members at once (at most the team's; the
 * caller is member 0), returning when every member has returned.  A NULL team, members <= 1 or a
 * forked child: fn (arg, 0, 1) on the caller. */
typedef void (*tilemm_team_fn) (void *arg, int member, int members);
void tilemm_host_team_run (tilemm_host_team *team, int members, tilemm_team_fn fn, void *arg);

#ifdef __cplusplus
}
#endif

#endif /* TILEMM_HOST_TEAM_H */
