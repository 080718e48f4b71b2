/* cpu_isa.h — the CPU backend's variants: its one tiled kernel compiled for several vector
 * instruction sets (the enum and the detection are common/host_cpus.h's), the one a product runs
 * named by its plan (tilemm_plan.cpu_isa, the host's facts').
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 *
 * The package is compiled for the build machine's baseline (x86-64: SSE2 only), so that it runs
 * on any machine sharing the build; the wider variants are compiled beside it with function
 * attributes, run where the plan names them (the host's facts: what the CPU runs).  Every variant
 * sums each element of C the same way, so they agree bit for bit (tests/test_core.c checks it);
 * only the speed differs.  Elsewhere than x86-64 with GCC or clang there is the default only.
 */
#ifndef TILEMM_CPU_ISA_H
#define TILEMM_CPU_ISA_H

#include "host_cpus.h"
#include "tilemm.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Products each variant ran in this process (every tilemm_cpu_multiply_isa that reached the
 * kernels): for the tests, which check that a product runs the variant its plan names. */
long tilemm_cpu_isa_products (tilemm_cpu_isa isa);

/* tilemm_cpu_multiply_op (backend.h) on the given variant (tilemm_cpu_multiply_op: the plan's):
 * for the tests, which compare the variants.  TILEMM_EINVAL (C untouched) when the variant is
 * not available: a plan naming a variant this CPU lacks (made for another machine, or a
 * caller's) is refused rather than run into an illegal instruction. */
tilemm_status tilemm_cpu_multiply_isa (tilemm_cpu_isa isa, const tilemm_plan *plan,
                                       tilemm_op op_a, const tilemm_view *a, tilemm_op op_b,
                                       const tilemm_view *b, const tilemm_view *c,
                                       const tilemm_stop *stop, tilemm_error *err);

#ifdef __cplusplus
}
#endif

#endif
