/* backend_cpu_variant.h — one CPU variant of the tiled kernel, for every element type.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 *
 * backend_cpu.c includes this file once per variant (cpu_isa.h), after defining
 *   CPU_VARIANT     the variant's name, the suffix of its functions: default, avx2, avx512
 *   TILE_TARGET     its function attributes: instruction set, no contraction
 *   TILE_VEC_BYTES, TILE_VECS, TILE_ROWS   its register block (backend_cpu_tile.h)
 * It instantiates backend_cpu_tile.h for float, double and their complex pairs and defines
 * cpu_tile_fns_<variant>, the variant's kernels by element type; it #undefs all of the above.
 */

#define CPU_VARIANT_PASTE2(name, suffix) name##_##suffix
#define CPU_VARIANT_PASTE(name, suffix) CPU_VARIANT_PASTE2 (name, suffix)

#define TILE_REAL float
#define TILE_PARTS 1
#define TILE_SUFFIX CPU_VARIANT_PASTE (s, CPU_VARIANT)
#include "backend_cpu_tile.h"

#define TILE_REAL double
#define TILE_PARTS 1
#define TILE_SUFFIX CPU_VARIANT_PASTE (d, CPU_VARIANT)
#include "backend_cpu_tile.h"

#define TILE_REAL float
#define TILE_PARTS 2
#define TILE_SUFFIX CPU_VARIANT_PASTE (c, CPU_VARIANT)
#include "backend_cpu_tile.h"

#define TILE_REAL double
#define TILE_PARTS 2
#define TILE_SUFFIX CPU_VARIANT_PASTE (z, CPU_VARIANT)
#include "backend_cpu_tile.h"

static cpu_tile_fn *const CPU_VARIANT_PASTE (cpu_tile_fns, CPU_VARIANT)[TILEMM_NTYPES] = {
  [TILEMM_SINGLE] = CPU_VARIANT_PASTE (cpu_tile, CPU_VARIANT_PASTE (s, CPU_VARIANT)),
  [TILEMM_DOUBLE] = CPU_VARIANT_PASTE (cpu_tile, CPU_VARIANT_PASTE (d, CPU_VARIANT)),
  [TILEMM_COMPLEX_SINGLE] = CPU_VARIANT_PASTE (cpu_tile, CPU_VARIANT_PASTE (c, CPU_VARIANT)),
  [TILEMM_COMPLEX_DOUBLE] = CPU_VARIANT_PASTE (cpu_tile, CPU_VARIANT_PASTE (z, CPU_VARIANT)),
};

#undef CPU_VARIANT_PASTE
#undef CPU_VARIANT_PASTE2
#undef CPU_VARIANT
#undef TILE_TARGET
#undef TILE_VEC_BYTES
#undef TILE_VECS
#undef TILE_ROWS
