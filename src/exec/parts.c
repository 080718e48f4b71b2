/* parts.c — a complex matrix's real and imaginary parts apart as one real matrix, and back
 * (parts.h): how the executor runs a real and a complex operand as ONE real product where mtimes
 * takes two (run.c, and batch.c for pages).
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 */
#include <stddef.h>
#include <stdint.h>

#include "host_pool.h"
#include "parts.h"
#include "team_size.h"

/* Where the real and imaginary parts of element (i, j) of a rows×cols complex matrix (count
 * elements) sit when held apart as one real matrix: side by side, [re im] (rows×2cols), or
 * stacked, [re; im] (2rows×cols).  Used both ways: split_parts and join_parts. */
static void part_positions (size_t i, size_t j, size_t rows, size_t count, int stacked,
                            size_t *re_at, size_t *im_at)
{
  *re_at = stacked ? j * 2 * rows + i : j * rows + i;
  *im_at = stacked ? *re_at + rows : *re_at + count;
}

/* One split or join over the host pool, a range of the complex matrix's columns at a time. */
typedef struct {
  int single, stacked, join;
  const void *from;
  void *to;
  size_t rows, cols, count;
  double sign;
} parts_job;

static void parts_range (void *ctx, int64_t first, int64_t last)
{
  const parts_job *p = (const parts_job *) ctx;
  for (size_t j = (size_t) first; j < (size_t) last; j++)
    for (size_t i = 0; i < p->rows; i++)
      {
        const size_t at = 2 * (j * p->rows + i);   /* the complex element, interleaved */
        size_t re_at, im_at;
        part_positions (i, j, p->rows, p->count, p->stacked, &re_at, &im_at);
        if (p->join && p->single)
          ((float *) p->to)[at] = ((const float *) p->from)[re_at],
          ((float *) p->to)[at + 1] = ((const float *) p->from)[im_at];
        else if (p->join)
          ((double *) p->to)[at] = ((const double *) p->from)[re_at],
          ((double *) p->to)[at + 1] = ((const double *) p->from)[im_at];
        else if (p->single)
          ((float *) p->to)[re_at] = ((const float *) p->from)[at],
          ((float *) p->to)[im_at] = (float) p->sign * ((const float *) p->from)[at + 1];
        else
          ((double *) p->to)[re_at] = ((const double *) p->from)[at],
          ((double *) p->to)[im_at] = p->sign * ((const double *) p->from)[at + 1];
      }
}

/* The job over the pool on the plan's team (tilemm_parts_team), in its pieces of columns
 * (tilemm_parts_cols_per_piece: team_size.h). */
static void parts_run (const parts_job *p, int team)
{
  tilemm_host_pool_run_ranges (team, (int64_t) p->cols,
                               tilemm_parts_cols_per_piece (p->single, (int64_t) p->rows,
                                                            (int64_t) p->cols),
                               parts_range, (void *) p);
}

void tilemm_split_parts_on (int team, int single, const void *z, int64_t rows, int64_t cols,
                            int stacked, double sign, void *out)
{
  parts_job p = { single, stacked, 0, z, out, (size_t) rows, (size_t) cols,
                  (size_t) rows * (size_t) cols, sign };
  parts_run (&p, team);
}

void tilemm_join_parts_on (int team, int single, const void *p, int64_t m, int64_t n,
                           int stacked, void *c)
{
  parts_job j = { single, stacked, 1, p, c, (size_t) m, (size_t) n, (size_t) m * (size_t) n, 1.0 };
  parts_run (&j, team);
}

/* A real and a complex operand as mtimes multiplies them where it takes two real products
 * (route.b_split, route.a_split): the complex operand's parts copied apart into one real matrix,
 * ONE real product, and its two halves joined into C.  Real A · complex B: op(B) → [re  ±im]
 * (k×2n), product [A·re  A·±im] (m×2n).  Complex op(A) (transposed) · real B: A → [re  ±im]
 * stored k×2m and read transposed as [re; ±im] (2m×k), product stacked (2m×n).  Holds the
 * complex operand's size and C's size in host memory for the call. */
