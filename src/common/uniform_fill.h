/* uniform_fill.h — the operands calibration times its products on: uniform values in [-1, 1),
 * never zeros (a product of zeros can be faster than a real one), from a seed.  One generator for
 * the calibration's own operands (exec/calibrate.c) and the front ends' host products
 * (front/oct_host.cc, mex_host.c, blas_host.c).
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 */
#ifndef TILEMM_UNIFORM_FILL_H
#define TILEMM_UNIFORM_FILL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* `reals` floats (is_single) or doubles at `data` (a complex operand: twice its elements).  The
 * first million are drawn, the rest copies of them: operands of a gigabyte are filled at memory
 * speed, and a product's time does not depend on its values' repeating. */
void tilemm_uniform_fill (void *data, size_t reals, int is_single, uint64_t seed);

#ifdef __cplusplus
}
#endif

#endif /* TILEMM_UNIFORM_FILL_H */
