/* parts.h — a complex matrix's parts apart and back (parts.c).
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 */
#ifndef TILEMM_PARTS_H
#define TILEMM_PARTS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Copies a complex matrix's parts apart (rows×cols, column-major, leading dimension rows, of
 * single or double): side by side, [re  sign·im] as rows×2cols, or stacked, [re; sign·im] as
 * 2rows×cols.  sign -1 conjugates (negation is exact).  On `team` of the host pool's threads,
 * the plan's (tilemm_parts_team, team_size.h: the call plan's split_team; 0: one). */
void tilemm_split_parts_on (int team, int single, const void *z, int64_t rows, int64_t cols,
                            int stacked, double sign, void *out);

/* The inverse for a result: C (m×n complex) from its real and imaginary parts side by side
 * (m×2n) or stacked (2m×n), likewise on the plan's team (the call plan's join_team). */
void tilemm_join_parts_on (int team, int single, const void *p, int64_t m, int64_t n,
                           int stacked, void *c);

#ifdef __cplusplus
}
#endif

#endif /* TILEMM_PARTS_H */
