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
 * 2rows×cols.  sign -1 conjugates (negation is exact). */
void tilemm_split_parts (int single, const void *z, int64_t rows, int64_t cols, int stacked,
                         double sign, void *out);

/* The inverse for a result: C (m×n complex) from its real and imaginary parts side by side
 * (m×2n) or stacked (2m×n). */
void tilemm_join_parts (int single, const void *p, int64_t m, int64_t n, int stacked, void *c);

/* The same on the host pool's threads: as many as the copy pays for on a host of `threads`
 * threads (a plan's count; 0: the host's facts now, as the two above). */
void tilemm_split_parts_on (int threads, int single, const void *z, int64_t rows, int64_t cols,
                            int stacked, double sign, void *out);
void tilemm_join_parts_on (int threads, int single, const void *p, int64_t m, int64_t n,
                           int stacked, void *c);

#ifdef __cplusplus
}
#endif

#endif /* TILEMM_PARTS_H */
