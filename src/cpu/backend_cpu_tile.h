/* backend_cpu_tile.h — the tiled CPU kernel for one element type, written once.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 *
 * backend_cpu.c includes this file once per element type, after defining
 *   TILE_REAL     the scalar of one part: float or double
 *   TILE_PARTS    1 for a real type, 2 for a complex one (interleaved re, im in memory)
 *   TILE_SUFFIX   the name suffix of the generated functions (s, d, c, z)
 * and it #undefs them all at the end, ready for the next type.
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

/* The register block of the micro-kernel: CPU_ROW_BLOCK rows of Cᵀ by TILE_LANES columns, so the
 * innermost loops have compile-time trip counts (the compiler unrolls and vectorises them at -O2
 * with no remainder loop).  32 bytes of scalars per row: one AVX register, or two SSE ones.
 * Complex blocks hold two planes, so they use half as many rows to stay within the registers. */
#define TILE_LANES ((int) (32 / sizeof (TILE_REAL)))
#define TILE_ROW_BLOCK (CPU_ROW_BLOCK / TILE_PARTS)

/* Complex elements are twice as wide, so the k depth of their tiles is halved (as the plan does),
 * keeping every type's buffers within CPU_TILES_MAX_BYTES. */
#define TILE_DEPTH_MAX (CPU_TILE_MAX / TILE_PARTS)

/* The local tiles of one thread.  bt is Bᵀ's sub-tile (rows × depth), at is Aᵀ's (depth × cols),
 * acc the Cᵀ tile being accumulated; [part] selects the real or imaginary plane. */
typedef struct {
  TILE_REAL bt[TILE_PARTS][CPU_TILE_MAX][TILE_DEPTH_MAX];
  TILE_REAL at[TILE_PARTS][TILE_DEPTH_MAX][CPU_TILE_MAX];
  TILE_REAL acc[TILE_PARTS][CPU_TILE_MAX][CPU_TILE_MAX];
} TILE_FN (cpu_tiles);

/* Pointer to element (r, c) of a row-major reading, as TILE_PARTS consecutive scalars. */
static inline const TILE_REAL *TILE_FN (element) (const tilemm_matrix *m, int64_t r, int64_t c)
{
  return (const TILE_REAL *) m->elements + (r * m->stride + c) * TILE_PARTS;
}

/* GetSubMatrix-and-load for Bᵀ: rows [r0, r0+rows) by depth [k0, k0+depth) into t->bt.  Rows from
 * rows up to rows_padded are zero: they only ever produce accumulator rows that are not written. */
static void TILE_FN (load_bt) (TILE_FN (cpu_tiles) * restrict t, const cpu_operands *op,
                               int64_t r0, int64_t k0, int rows, int rows_padded, int depth)
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
static void TILE_FN (load_at) (TILE_FN (cpu_tiles) * restrict t, const cpu_operands *op,
                               int64_t k0, int64_t c0, int cols, int cols_padded, int depth)
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
 * The block lives in a local array for the whole k loop so the compiler can keep it in registers;
 * each element is still summed one product at a time in increasing k, as a plain dot product. */
static void TILE_FN (micro_kernel) (TILE_FN (cpu_tiles) * restrict t, int rb, int cb, int depth)
{
  TILE_REAL sum[TILE_PARTS][TILE_ROW_BLOCK][TILE_LANES];
  for (int p = 0; p < TILE_PARTS; p++)
    for (int i = 0; i < TILE_ROW_BLOCK; i++)
      for (int j = 0; j < TILE_LANES; j++)
        sum[p][i][j] = t->acc[p][rb + i][cb + j];

  for (int l = 0; l < depth; l++)
    {
#if TILE_PARTS == 1
      const TILE_REAL *restrict a = &t->at[0][l][cb];
      for (int i = 0; i < TILE_ROW_BLOCK; i++)
        {
          const TILE_REAL b = t->bt[0][rb + i][l];
          for (int j = 0; j < TILE_LANES; j++)
            sum[0][i][j] += a[j] * b;
        }
#else
      const TILE_REAL *restrict are = &t->at[0][l][cb];
      const TILE_REAL *restrict aim = &t->at[1][l][cb];
      for (int i = 0; i < TILE_ROW_BLOCK; i++)
        {
          const TILE_REAL bre = t->bt[0][rb + i][l];
          const TILE_REAL bim = t->bt[1][rb + i][l];
          for (int j = 0; j < TILE_LANES; j++)
            {
              /* a·b = (a.re*b.re - a.im*b.im, a.re*b.im + a.im*b.re), then added to the sum. */
              sum[0][i][j] += are[j] * bre - aim[j] * bim;
              sum[1][i][j] += are[j] * bim + aim[j] * bre;
            }
        }
#endif
    }

  for (int p = 0; p < TILE_PARTS; p++)
    for (int i = 0; i < TILE_ROW_BLOCK; i++)
      for (int j = 0; j < TILE_LANES; j++)
        t->acc[p][rb + i][cb + j] = sum[p][i][j];
}

/* Writes the valid rows × cols of the accumulator to Cᵀ at (r0, c0), re-interleaving complex
 * parts.  Nothing outside the tile (in particular C's gap between rows and stride) is touched. */
static void TILE_FN (store_ct) (const TILE_FN (cpu_tiles) * restrict t, const tilemm_matrix *ct,
                                int64_t r0, int64_t c0, int rows, int cols)
{
  for (int r = 0; r < rows; r++)
    {
      TILE_REAL *restrict dst = (TILE_REAL *) TILE_FN (element) (ct, r0 + r, c0);
      for (int c = 0; c < cols; c++)
        for (int p = 0; p < TILE_PARTS; p++)
          dst[c * TILE_PARTS + p] = t->acc[p][r][c];
    }
}

/* One block tile of Cᵀ at (r0, c0): rows × cols valid elements.  The k loop runs over the tile
 * depths in increasing order and over the valid depth only, so each element of C is the same
 * sequence of additions whatever the tiling or panelling around it. */
static void TILE_FN (cpu_tile) (TILE_FN (cpu_tiles) * restrict t, const cpu_operands *op,
                                int64_t r0, int64_t c0, int rows, int cols)
{
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

/* Every block tile of one panel, spread over the threads.  The tiles are the per-thread buffers'
 * only users, so they live on each thread's stack (at most CPU_TILES_MAX_BYTES).  With a stop
 * callback the tiles go in batches of whole tile rows (4 tiles a thread or more), and the
 * callback is polled on this thread between batches: it need not be thread-safe, and no thread
 * leaves an OpenMP loop early.  Returns 1 when stopped. */
static int TILE_FN (cpu_panel) (const cpu_operands *op, const tilemm_stop *stop)
{
  const int64_t tiles_down = ceil_div (op->ct.height, op->tile_rows);
  const int64_t tiles_across = ceil_div (op->ct.width, op->tile_cols);
  const int64_t ntiles = tiles_down * tiles_across;
  int64_t batch = ntiles;
  if (stop && stop->should_stop)
    batch = ceil_div (4 * (int64_t) op->threads, tiles_across) * tiles_across;
  for (int64_t first = 0; first < ntiles; first += batch)
    {
      if (first > 0 && tilemm_stop_requested (stop))
        return 1;
      const int64_t last = ntiles - first < batch ? ntiles : first + batch;
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic) num_threads(op->threads) if (last - first > 1)
#endif
  for (int64_t tile = first; tile < last; tile++)
    {
      TILE_FN (cpu_tiles) t;
      const int64_t r0 = (tile / tiles_across) * op->tile_rows;
      const int64_t c0 = (tile % tiles_across) * op->tile_cols;
      const int rows = (int) (op->ct.height - r0 < op->tile_rows ? op->ct.height - r0
                                                                 : op->tile_rows);
      const int cols = (int) (op->ct.width - c0 < op->tile_cols ? op->ct.width - c0
                                                                : op->tile_cols);
      TILE_FN (cpu_tile) (&t, op, r0, c0, rows, cols);
    }
    }
  return 0;
}

#undef TILE_LANES
#undef TILE_DEPTH_MAX
#undef TILE_ROW_BLOCK
#undef TILE_FN
#undef TILE_PASTE
#undef TILE_PASTE2
#undef TILE_REAL
#undef TILE_PARTS
#undef TILE_SUFFIX
