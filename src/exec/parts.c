/* parts.c — a complex matrix's real and imaginary parts apart as one real matrix, and back
 * (parts.h): how the executor runs a real and a complex operand as ONE real product where mtimes
 * takes two (run.c, and batch.c for pages).
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 */
#include <stddef.h>
#include <stdint.h>

#include "parts.h"

/* Where the real and imaginary parts of element (i, j) of a rows×cols complex matrix (count
 * elements) sit when held apart as one real matrix: side by side, [re im] (rows×2cols), or
 * stacked, [re; im] (2rows×cols).  Used both ways: split_parts and join_parts. */
static void part_positions (size_t i, size_t j, size_t rows, size_t count, int stacked,
                            size_t *re_at, size_t *im_at)
{
  *re_at = stacked ? j * 2 * rows + i : j * rows + i;
  *im_at = stacked ? *re_at + rows : *re_at + count;
}

/* Copies a complex matrix's parts apart (rows×cols, column-major, leading dimension rows):
 * side by side, [re  sign·im] as rows×2cols, or stacked, [re; sign·im] as 2rows×cols.  sign -1
 * conjugates (negation is exact). */
void tilemm_split_parts (int single, const void *z, int64_t rows, int64_t cols, int stacked,
                         double sign, void *out)
{
  const ptrdiff_t nr = (ptrdiff_t) rows, nc = (ptrdiff_t) cols;
  const size_t count = (size_t) rows * (size_t) cols;
#pragma omp parallel for schedule (static) if (count > (1u << 16))
  for (ptrdiff_t j = 0; j < nc; j++)
    for (ptrdiff_t i = 0; i < nr; i++)
      {
        const size_t from = 2 * ((size_t) j * (size_t) nr + (size_t) i);
        size_t re_at, im_at;
        part_positions ((size_t) i, (size_t) j, (size_t) nr, count, stacked, &re_at, &im_at);
        if (single)
          {
            const float *x = z;
            float *y = out;
            y[re_at] = x[from], y[im_at] = (float) sign * x[from + 1];
          }
        else
          {
            const double *x = z;
            double *y = out;
            y[re_at] = x[from], y[im_at] = sign * x[from + 1];
          }
      }
}

/* The inverse for the result: C (m×n complex) from P holding its real and imaginary parts side by
 * side (m×2n) or stacked (2m×n). */
void tilemm_join_parts (int single, const void *p, int64_t m, int64_t n, int stacked, void *c)
{
  const ptrdiff_t nm = (ptrdiff_t) m, nn = (ptrdiff_t) n;
  const size_t count = (size_t) m * (size_t) n;
#pragma omp parallel for schedule (static) if (count > (1u << 16))
  for (ptrdiff_t j = 0; j < nn; j++)
    for (ptrdiff_t i = 0; i < nm; i++)
      {
        const size_t to = 2 * ((size_t) j * (size_t) nm + (size_t) i);
        size_t re_at, im_at;
        part_positions ((size_t) i, (size_t) j, (size_t) nm, count, stacked, &re_at, &im_at);
        if (single)
          ((float *) c)[to] = ((const float *) p)[re_at],
          ((float *) c)[to + 1] = ((const float *) p)[im_at];
        else
          ((double *) c)[to] = ((const double *) p)[re_at],
          ((double *) c)[to + 1] = ((const double *) p)[im_at];
      }
}

/* A real and a complex operand as mtimes multiplies them where it takes two real products
 * (route.b_split, route.a_split): the complex operand's parts copied apart into one real matrix,
 * ONE real product, and its two halves joined into C.  Real A · complex B: op(B) → [re  ±im]
 * (k×2n), product [A·re  A·±im] (m×2n).  Complex op(A) (transposed) · real B: A → [re  ±im]
 * stored k×2m and read transposed as [re; ±im] (2m×k), product stacked (2m×n).  Holds the
 * complex operand's size and C's size in host memory for the call. */
