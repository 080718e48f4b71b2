/* backend_cpu_tile.h — the tiled CPU kernel for one element type, written once.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 *
 * backend_cpu_variant.h includes this file once per element type of a CPU variant, after defining
 *   TILE_REAL       the scalar of one part: float or double
 *   TILE_PARTS      1 for a real type, 2 for a complex one (interleaved re, im in memory)
 *   TILE_SUFFIX     the name suffix of the generated functions (d_avx2, ...)
 *   TILE_TARGET     the variant's function attributes (instruction set, no contraction)
 *   TILE_VEC_BYTES  the width of one vector of the register block (TILE_USE_VECTORS)
 *   TILE_VECS       vectors per row of the register block
 *   TILE_ROWS       rows of the register block for a real type (halved for complex)
 * and it #undefs the first three at the end, ready for the next type.
 *
 * Every variant computes each element the same way — one product at a time in increasing k,
 * each product rounded before it is added (no fused multiply-add: the file is compiled with
 * contraction off, see backend_cpu.c) — so the variants' results are bitwise the same and only
 * their speed differs.
 *
 * The kernel computes the row-major product  Cᵀ = Bᵀ·Aᵀ  (CUDA guide style) on the row-major
 * readings of the column-major buffers.  For each block tile of Cᵀ it steps along k: copies the
 * Bᵀ and Aᵀ sub-tiles into fixed-size local buffers (the stand-in for shared memory), multiplies
 * them into a local accumulator tile and, once k is exhausted, writes the valid part of the tile.
 *
 * Inside the local buffers complex elements are split into a real plane and an imaginary plane,
 * so every innermost loop runs over contiguous scalars of one kind and vectorises like the real
 * case; the split is part of the copy into the tile, never a reordering of an operand.
 */

#define TILE_PASTE2(name, suffix) name##_##suffix
#define TILE_PASTE(name, suffix) TILE_PASTE2 (name, suffix)
#define TILE_FN(name) TILE_PASTE (name, TILE_SUFFIX)

/* The register block of the micro-kernel: TILE_ROW_BLOCK rows of Cᵀ by TILE_VECS vectors of
 * TILE_VEC_BYTES each (TILE_LANES scalars), so the innermost loops have compile-time trip counts.
 * The vectors are GCC's vector extension (clang has it too): every variant's code is the same
 * lane-wise arithmetic whatever the optimisation level, and the loops over the block carry
 * "unroll" pragmas so the block stays in registers at -O2 (which does not unroll loops that grow
 * the code).  Without the extension a "vector" is one scalar: the same code, lane by lane.
 * Complex blocks hold two planes, so they use half as many rows to stay within the registers. */
#if TILE_USE_VECTORS
typedef TILE_REAL TILE_FN (vec) __attribute__ ((vector_size (TILE_VEC_BYTES)));
#else
typedef TILE_REAL TILE_FN (vec);
#endif
#define TILE_VEC_LANES ((int) (sizeof (TILE_FN (vec)) / sizeof (TILE_REAL)))
#define TILE_LANES (TILE_VECS * TILE_VEC_LANES)
#define TILE_ROW_BLOCK (TILE_ROWS / TILE_PARTS)

/* Complex elements are twice as wide, so the k depth of their tiles is halved (as the plan does),
 * keeping every type's buffers within the same stack budget (CPU_TILE_MAX). */
#define TILE_DEPTH_MAX (CPU_TILE_MAX / TILE_PARTS)

/* A tile padded to whole register blocks must still fit the buffers (cpu_tiles_fit). */
_Static_assert (CPU_TILE_MAX % TILE_LANES == 0 && CPU_TILE_MAX % TILE_ROW_BLOCK == 0,
                "the register block must divide CPU_TILE_MAX");

/* The local tiles of one thread.  bt is Bᵀ's sub-tile (rows × depth), at is Aᵀ's (depth × cols),
 * acc the Cᵀ tile being accumulated; [part] selects the real or imaginary plane.  Rows of at and
 * acc are whole cache lines, so the register block's vectors load aligned. */
typedef struct {
  _Alignas (64) TILE_REAL bt[TILE_PARTS][CPU_TILE_MAX][TILE_DEPTH_MAX];
  _Alignas (64) TILE_REAL at[TILE_PARTS][TILE_DEPTH_MAX][CPU_TILE_MAX];
  _Alignas (64) TILE_REAL acc[TILE_PARTS][CPU_TILE_MAX][CPU_TILE_MAX];
} TILE_FN (cpu_tiles);

/* One vector from TILE_VEC_LANES consecutive scalars, and back. */
static inline TILE_TARGET TILE_FN (vec) TILE_FN (vec_load) (const TILE_REAL *src)
{
  TILE_FN (vec) v;
  memcpy (&v, src, sizeof v);
  return v;
}

static inline TILE_TARGET void TILE_FN (vec_store) (TILE_REAL *dst, TILE_FN (vec) v)
{
  memcpy (dst, &v, sizeof v);
}

/* Pointer to element (r, c) of a row-major reading, as TILE_PARTS consecutive scalars. */
static inline TILE_TARGET const TILE_REAL *TILE_FN (element) (const tilemm_matrix *m, int64_t r,
                                                              int64_t c)
{
  return (const TILE_REAL *) m->elements + (r * m->stride + c) * TILE_PARTS;
}

/* GetSubMatrix-and-load for Bᵀ: rows [r0, r0+rows) by depth [k0, k0+depth) into t->bt.  Rows from
 * rows up to rows_padded are zero: they only ever produce accumulator rows that are not written. */
static TILE_TARGET void TILE_FN (load_bt) (TILE_FN (cpu_tiles) * restrict t,
                                           const cpu_operands *op, int64_t r0, int64_t k0,
                                           int rows, int rows_padded, int depth)
{
  const tilemm_matrix *bt = &op->bt;
  if (op->bt_swap)
    /* B transposed: op(B)ᵀ (r, l) is (l, r) of B's reading, whose rows run along r. */
    for (int l = 0; l < depth; l++)
      {
        const TILE_REAL *restrict src = TILE_FN (element) (bt, k0 + l, r0);
        for (int r = 0; r < rows; r++)
          for (int p = 0; p < TILE_PARTS; p++)
            t->bt[p][r][l] = src[r * TILE_PARTS + p];
      }
  else
    for (int r = 0; r < rows; r++)
      {
        const TILE_REAL *restrict src = TILE_FN (element) (bt, r0 + r, k0);
        for (int l = 0; l < depth; l++)
          for (int p = 0; p < TILE_PARTS; p++)
            t->bt[p][r][l] = src[l * TILE_PARTS + p];
      }
#if TILE_PARTS == 2
  if (op->bt_conj)
    for (int r = 0; r < rows; r++)
      for (int l = 0; l < depth; l++)
        t->bt[1][r][l] = -t->bt[1][r][l];
#endif
  for (int r = rows; r < rows_padded; r++)
    for (int p = 0; p < TILE_PARTS; p++)
      for (int l = 0; l < depth; l++)
        t->bt[p][r][l] = 0;
}

/* GetSubMatrix-and-load for Aᵀ: depth [k0, k0+depth) by columns [c0, c0+cols) into t->at.
 * Columns from cols up to cols_padded are zero: they only produce accumulator columns that are
 * not written. */
static TILE_TARGET void TILE_FN (load_at) (TILE_FN (cpu_tiles) * restrict t,
                                           const cpu_operands *op, int64_t k0, int64_t c0,
                                           int cols, int cols_padded, int depth)
{
  const tilemm_matrix *at = &op->at;
  if (op->at_swap)
    /* A transposed: op(A)ᵀ (l, c) is (c, l) of A's reading, whose rows run along l. */
    for (int c = 0; c < cols; c++)
      {
        const TILE_REAL *restrict src = TILE_FN (element) (at, c0 + c, k0);
        for (int l = 0; l < depth; l++)
          for (int p = 0; p < TILE_PARTS; p++)
            t->at[p][l][c] = src[l * TILE_PARTS + p];
      }
  else
    for (int l = 0; l < depth; l++)
      {
        const TILE_REAL *restrict src = TILE_FN (element) (at, k0 + l, c0);
        for (int p = 0; p < TILE_PARTS; p++)
          {
            TILE_REAL *restrict dst = t->at[p][l];
            for (int c = 0; c < cols; c++)
              dst[c] = src[c * TILE_PARTS + p];
          }
      }
  for (int l = 0; l < depth; l++)
    {
#if TILE_PARTS == 2
      if (op->at_conj)
        for (int c = 0; c < cols; c++)
          t->at[1][l][c] = -t->at[1][l][c];
#endif
      for (int p = 0; p < TILE_PARTS; p++)
        for (int c = cols; c < cols_padded; c++)
          t->at[p][l][c] = 0;
    }
}

/* acc[rb .. rb+TILE_ROW_BLOCK)[cb .. cb+TILE_LANES) += bt[rows][0..depth) · at[0..depth)[cols].
 * The block lives in local vectors for the whole k loop so the compiler keeps it in registers;
 * each element is still summed one product at a time in increasing k, as a plain dot product. */
static TILE_TARGET void TILE_FN (micro_kernel) (TILE_FN (cpu_tiles) * restrict t, int rb, int cb,
                                                int depth)
{
  TILE_FN (vec) sum[TILE_PARTS][TILE_ROW_BLOCK][TILE_VECS];
  TILE_UNROLL
  for (int p = 0; p < TILE_PARTS; p++)
    TILE_UNROLL
    for (int i = 0; i < TILE_ROW_BLOCK; i++)
      TILE_UNROLL
      for (int v = 0; v < TILE_VECS; v++)
        sum[p][i][v] = TILE_FN (vec_load) (&t->acc[p][rb + i][cb + v * TILE_VEC_LANES]);

  for (int l = 0; l < depth; l++)
    {
      TILE_FN (vec) are[TILE_VECS];
      TILE_UNROLL
      for (int v = 0; v < TILE_VECS; v++)
        are[v] = TILE_FN (vec_load) (&t->at[0][l][cb + v * TILE_VEC_LANES]);
#if TILE_PARTS == 1
      TILE_UNROLL
      for (int i = 0; i < TILE_ROW_BLOCK; i++)
        {
          const TILE_REAL b = t->bt[0][rb + i][l];
          TILE_UNROLL
          for (int v = 0; v < TILE_VECS; v++)
            sum[0][i][v] += are[v] * b;
        }
#else
      TILE_FN (vec) aim[TILE_VECS];
      TILE_UNROLL
      for (int v = 0; v < TILE_VECS; v++)
        aim[v] = TILE_FN (vec_load) (&t->at[1][l][cb + v * TILE_VEC_LANES]);
      TILE_UNROLL
      for (int i = 0; i < TILE_ROW_BLOCK; i++)
        {
          const TILE_REAL bre = t->bt[0][rb + i][l];
          const TILE_REAL bim = t->bt[1][rb + i][l];
          TILE_UNROLL
          for (int v = 0; v < TILE_VECS; v++)
            {
              /* a·b = (a.re*b.re - a.im*b.im, a.re*b.im + a.im*b.re), then added to the sum. */
              sum[0][i][v] += are[v] * bre - aim[v] * bim;
              sum[1][i][v] += are[v] * bim + aim[v] * bre;
            }
        }
#endif
    }

  TILE_UNROLL
  for (int p = 0; p < TILE_PARTS; p++)
    TILE_UNROLL
    for (int i = 0; i < TILE_ROW_BLOCK; i++)
      TILE_UNROLL
      for (int v = 0; v < TILE_VECS; v++)
        TILE_FN (vec_store) (&t->acc[p][rb + i][cb + v * TILE_VEC_LANES], sum[p][i][v]);
}

/* Writes the valid rows × cols of the accumulator to Cᵀ at (r0, c0), re-interleaving complex
 * parts.  Nothing outside the tile (in particular C's gap between rows and stride) is touched. */
static TILE_TARGET void TILE_FN (store_ct) (const TILE_FN (cpu_tiles) * restrict t,
                                            const tilemm_matrix *ct, int64_t r0, int64_t c0,
                                            int rows, int cols)
{
  for (int r = 0; r < rows; r++)
    {
      TILE_REAL *restrict dst = (TILE_REAL *) TILE_FN (element) (ct, r0 + r, c0);
      for (int c = 0; c < cols; c++)
        for (int p = 0; p < TILE_PARTS; p++)
          dst[c * TILE_PARTS + p] = t->acc[p][r][c];
    }
}

/* One block tile of Cᵀ at (r0, c0): rows × cols valid elements (a cpu_tile_fn).  The k loop
 * runs over the tile depths in increasing order and over the valid depth only, so each element of
 * C is the same sequence of additions whatever the tiling or panelling around it.  The tiles are
 * the thread's own, on its stack (see CPU_TILE_MAX). */
static TILE_TARGET void TILE_FN (cpu_tile) (const cpu_operands *op, int64_t r0, int64_t c0,
                                            int rows, int cols)
{
  TILE_FN (cpu_tiles) tiles;
  TILE_FN (cpu_tiles) *restrict t = &tiles;
  const int rows_padded = round_up (rows, TILE_ROW_BLOCK);
  const int cols_padded = round_up (cols, TILE_LANES);
  for (int p = 0; p < TILE_PARTS; p++)
    for (int r = 0; r < rows_padded; r++)
      for (int c = 0; c < cols_padded; c++)
        t->acc[p][r][c] = 0;

  const int64_t k = op->k;
  for (int64_t k0 = 0; k0 < k; k0 += op->tile_depth)
    {
      const int depth = (int) (k - k0 < op->tile_depth ? k - k0 : op->tile_depth);
      TILE_FN (load_bt) (t, op, r0, k0, rows, rows_padded, depth);
      TILE_FN (load_at) (t, op, k0, c0, cols, cols_padded, depth);
      for (int rb = 0; rb < rows_padded; rb += TILE_ROW_BLOCK)
        for (int cb = 0; cb < cols_padded; cb += TILE_LANES)
          TILE_FN (micro_kernel) (t, rb, cb, depth);
    }
  TILE_FN (store_ct) (t, &op->ct, r0, c0, rows, cols);
}

#undef TILE_VEC_LANES
#undef TILE_LANES
#undef TILE_DEPTH_MAX
#undef TILE_ROW_BLOCK
#undef TILE_FN
#undef TILE_PASTE
#undef TILE_PASTE2
#undef TILE_REAL
#undef TILE_PARTS
#undef TILE_SUFFIX
