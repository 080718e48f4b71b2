/* pages_shape.h — a batch's shape for the tests that plan a batch by its route and page count
 * (tilemm_batch_plan_make takes the shape: its host jobs read the pages' sizes): `pages` pages
 * of the route's m×k times k×n, X, Y and Z alike, nothing transposed or expanded.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 */
#ifndef TILEMM_TESTS_PAGES_SHAPE_H
#define TILEMM_TESTS_PAGES_SHAPE_H

#include <string.h>

#include "batch.h"

static tilemm_batch_shape test_pages_shape_made;

/* The shape, in one place the next call overwrites (each caller hands it straight on). */
static inline const tilemm_batch_shape *test_pages_shape (const tilemm_route *route,
                                                          int64_t pages)
{
  tilemm_batch_shape shape;
  memset (&shape, 0, sizeof shape);
  shape.m = route->m, shape.n = route->n, shape.k = route->k;
  shape.x_rows = route->m, shape.x_cols = route->k;
  shape.y_rows = route->k, shape.y_cols = route->n;
  shape.x_pages = shape.y_pages = shape.z_pages = pages;
  test_pages_shape_made = shape;
  return &test_pages_shape_made;
}

#endif
