/* cpu_isa.h — the CPU backend's variants: its one tiled kernel compiled for several vector
 * instruction sets, the best one this CPU runs chosen at run time.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 *
 * The package is compiled for the build machine's baseline (x86-64: SSE2 only), so that it runs
 * on any machine sharing the build; the wider variants are compiled beside it with function
 * attributes and taken where the CPU (and the operating system) supports them.  Every variant
 * sums each element of C the same way, so they agree bit for bit (tests/test_core.c checks it);
 * only the speed differs.  Elsewhere than x86-64 with GCC or clang there is the default only.
 */
#ifndef TILEMM_CPU_ISA_H
#define TILEMM_CPU_ISA_H

#include "tilemm.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  TILEMM_CPU_ISA_DEFAULT,   /* the build's baseline instruction set                     */
  TILEMM_CPU_ISA_AVX2,      /* x86-64: 32-byte vectors (AVX2, the x86-64-v3 level)      */
  TILEMM_CPU_ISA_AVX512,    /* x86-64: 64-byte vectors (AVX-512F, of the x86-64-v4 level) */
  TILEMM_CPU_NISAS
} tilemm_cpu_isa;

/* "default", "avx2", "avx512" ("unknown" outside the enum). */
const char *tilemm_cpu_isa_name (tilemm_cpu_isa isa);

/* Whether the variant is built into this library and this CPU runs it. */
int tilemm_cpu_isa_available (tilemm_cpu_isa isa);

/* The variant the CPU backend runs here: the widest available one. */
tilemm_cpu_isa tilemm_cpu_isa_best (void);

/* tilemm_cpu_multiply_op (backend.h) on the given variant: for the tests, which compare the
 * variants.  TILEMM_EINVAL (C untouched) when the variant is not available. */
tilemm_status tilemm_cpu_multiply_isa (tilemm_cpu_isa isa, const tilemm_plan *plan,
                                       tilemm_op op_a, const tilemm_view *a, tilemm_op op_b,
                                       const tilemm_view *b, const tilemm_view *c,
                                       const tilemm_stop *stop, tilemm_error *err);

#ifdef __cplusplus
}
#endif

#endif
