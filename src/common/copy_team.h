/* copy_team.h — the host threads that copy between Octave's memory and the pinned staging.
 *
 * A GPU product copies its operands into the staging and its result out of it in many pieces
 * (one per staging chunk), each spread over all the cores, with the copy engine's transfers and
 * the device's work in between.  A team whose threads go to sleep between those pieces (as
 * OpenMP's do by default) must be woken for every piece, and on a virtual machine a sleeping
 * core can take milliseconds to come back: the whole copy waits for the last one.  This team
 * stays awake while a product holds it (tilemm_copy_team_hold, from the executor) and sleeps
 * between products.  One job at a time; a caller that finds it busy copies without it.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 */
#ifndef TILEMM_COPY_TEAM_H
#define TILEMM_COPY_TEAM_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Work for the team: piece(context, i) for every i in [0, pieces), each exactly once, on the
 * calling thread and up to threads - 1 team threads.  Returns 1 when done so; 0, having done
 * nothing, where the team is busy with another caller's job or cannot start threads (the
 * caller then does the work some other way). */
int tilemm_copy_team_run (int threads, int64_t pieces, void (*piece) (void *context, int64_t i),
                          void *context);

/* Keeps the team's threads awake (spinning, never sleeping) from now until the matching
 * release, and wakes the sleeping ones now so that they are up when the first piece comes.
 * Holds nest (a count); threads is the team size wanted (0: the OpenMP default). */
void tilemm_copy_team_hold (int threads);
void tilemm_copy_team_release (void);

#ifdef __cplusplus
}
#endif

#endif /* TILEMM_COPY_TEAM_H */
