/* exact_dot.h — dot products of doubles rounded once: Σ x_p·y_p summed without any rounding
 * (a fixed-point accumulator wide enough for every product of two finite doubles), then rounded
 * to nearest double or single.  The emulated precision uses it for the entries its plan cannot
 * carry (emulated.h), so that every entry meets the stated bound.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 */
#ifndef TILEMM_EXACT_DOT_H
#define TILEMM_EXACT_DOT_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Σ_{p<k} x[p·incx]·y[p·incy] rounded once to nearest (ties to even), to double (single = 0)
 * or to single (single = 1, returned as the double that holds it); overflow gives ±Inf, an
 * exact zero +0.  With a NaN or Inf among the terms, the floating-point sum (NaN or ±Inf as
 * IEEE arithmetic gives it). */
double tilemm_exact_dot (const double *x, int64_t incx, const double *y, int64_t incy, int64_t k,
                         int single);

#ifdef __cplusplus
}
#endif

#endif
