/* emulated_arena.c — the GPU scheme's int8 GEMM by name and its arena's sizes (emulated_arena.h).
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 */
#include <string.h>

#include "emulated_arena.h"

static size_t align256 (size_t x)
{
  return (x + 255) & ~(size_t) 255;
}

tilemm_emu_gemm tilemm_emu_gemm_named (const char *name, int wgmma_runs)
{
  if (name && !strcmp (name, "big"))
    return TILEMM_EMU_GEMM_BIG;
  if (name && !strcmp (name, "small"))
    return TILEMM_EMU_GEMM_SMALL;
  if ((!name || !*name || !strcmp (name, "wgmma")) && wgmma_runs)
    return TILEMM_EMU_GEMM_WGMMA;
  return TILEMM_EMU_GEMM_V2;
}

tilemm_emu_gemm tilemm_emu_stats_gemm (tilemm_emu_gemm gemm, int64_t kp, int64_t chunk_tiles)
{
  if (gemm == TILEMM_EMU_GEMM_WGMMA && tilemm_ceil_div (kp, 64) > chunk_tiles)
    return TILEMM_EMU_GEMM_V2;
  return gemm;
}

tilemm_emu_gemm tilemm_emu_plan_stats_gemm (tilemm_emu_gemm gemm, tilemm_type type, int64_t k,
                                            int64_t chunk_tiles)
{
  const int64_t inner = tilemm_type_is_complex (type) ? 2 * k : k;
  return tilemm_emu_stats_gemm (gemm, tilemm_emu_padded_k (inner),
                                chunk_tiles > 0 ? chunk_tiles : TILEMM_EMU_KCHUNK_TILES);
}

int tilemm_emu_planes_per_launch (tilemm_emu_gemm gemm, int64_t m, int64_t cols, int moduli,
                                  int multiprocessors)
{
  const int64_t tiles = tilemm_ceil_div (m, 128) * tilemm_ceil_div (cols, 128);
  const int64_t two_waves = 2 * (int64_t) (multiprocessors > 0 ? multiprocessors : 0);
  return gemm == TILEMM_EMU_GEMM_WGMMA || tiles < two_waves ? moduli : 1;
}

int tilemm_emu_gemm_grid (int multiprocessors)
{
  return multiprocessors;
}

tilemm_emu_stats_layout tilemm_emu_layout_stats (int64_t m, int64_t n, int64_t kp, int with_lo,
                                                 int with_s64)
{
  tilemm_emu_stats_layout l;
  size_t o = 0;
  l.amax = o; o = align256 (o + 8 * (size_t) m);
  l.e = o; o = align256 (o + 4 * (size_t) m);
  l.sa = o; o = align256 (o + 8 * (size_t) m);
  l.qa = o; o = align256 (o + 8 * (size_t) m);
  l.loa = o; o = align256 (o + (with_lo ? (size_t) m * (size_t) kp : 0));
  l.amaxb = o; o = align256 (o + 8 * (size_t) n);
  l.eb = o; o = align256 (o + 4 * (size_t) n);
  l.flag = o; o = align256 (o + 4);
  l.ratio = o; o = align256 (o + 16);
  l.sb = o; o = align256 (o + 8 * (size_t) n);
  l.qb = o; o = align256 (o + 8 * (size_t) n);
  l.lob = o; o = align256 (o + (with_lo ? (size_t) n * (size_t) kp : 0));
  l.s64 = o; o = align256 (o + (with_s64 ? 8 * (size_t) m * (size_t) n : 0));
  l.total = o;
  return l;
}

tilemm_emu_product_layout tilemm_emu_layout_product (int64_t m, int64_t n, int64_t kp,
                                                     int moduli)
{
  tilemm_emu_product_layout l;
  size_t o = 0;
  const size_t N = (size_t) moduli;
  l.ra = o; o = align256 (o + N * (size_t) m * (size_t) kp);
  l.rb = o; o = align256 (o + N * (size_t) n * (size_t) kp);
  l.r = o; o = align256 (o + N * (size_t) m * (size_t) n);
  l.total = o;
  return l;
}

int64_t tilemm_emu_padded_k (int64_t k)
{
  return k > 0 ? tilemm_ceil_div (k, 16) * 16 : 16;
}

void tilemm_emu_cuda_arena_need (tilemm_type type, int64_t m, int64_t n, int64_t k,
                                 const tilemm_emu_options *options, int moduli,
                                 tilemm_emu_run_mode mode, int64_t chunk_tiles, size_t bytes[4])
{
  for (int s = 0; s < 4; s++)
    bytes[s] = 0;
  if (m <= 0 || n <= 0 || k < 0)
    return;
  tilemm_emu_options defaults;
  if (!options)
    {
      tilemm_emu_default_options (&defaults, type);
      options = &defaults;
    }
  if (moduli <= 0)
    moduli = options->moduli > 0 ? options->moduli : options->max_moduli;
  if (moduli < 1)
    moduli = 1;
  if (moduli > TILEMM_EMU_MAX_MODULI)
    moduli = TILEMM_EMU_MAX_MODULI;
  const int complex_type = tilemm_type_is_complex (type);
  const int64_t kr = complex_type ? 2 * k : k; /* the real problems' k */
  const int64_t kp = tilemm_emu_padded_k (kr);
  const int64_t chunk = chunk_tiles > 0 ? chunk_tiles : TILEMM_EMU_KCHUNK_TILES;
  const int automatic = tilemm_emu_needs_ratios (options) && mode != TILEMM_EMU_RUN_GIVEN;
  const int chunked = tilemm_ceil_div (kp, 64) > chunk;
  const size_t stats = tilemm_emu_layout_stats (m, n, kp, automatic, automatic && chunked).total;
  bytes[0] = stats;
  if (mode != TILEMM_EMU_RUN_STATS)
    bytes[1] = tilemm_emu_layout_product (m, n, kp, moduli).total;
  if (complex_type)
    {
      const size_t real = tilemm_type_size (type) / 2, kk = (size_t) (kr > 0 ? kr : 1);
      bytes[2] = stats;
      bytes[3] = 2 * align256 (real * (size_t) m * kk) + 2 * align256 (real * kk * (size_t) n);
    }
}

void tilemm_emu_cuda_arena_keep_a (tilemm_type type, int64_t m, int64_t n, int64_t k,
                                   int64_t chunk_tiles, size_t bytes[4])
{
  if (m <= 0 || n <= 0 || k < 0)
    return;
  const int64_t kr = tilemm_type_is_complex (type) ? 2 * k : k;
  const int64_t kp = tilemm_emu_padded_k (kr);
  const int64_t chunk = chunk_tiles > 0 ? chunk_tiles : TILEMM_EMU_KCHUNK_TILES;
  const size_t need
    = tilemm_emu_layout_stats (m, n, kp, 1, tilemm_ceil_div (kp, 64) > chunk).total;
  if (bytes[0] < need)
    bytes[0] = need;
}
