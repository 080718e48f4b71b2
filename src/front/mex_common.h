/* mex_common.h — the few pieces both mex gateways (tilemm, tilemm_info) share.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 *
 * Only the documented mex.h API is used, with the interleaved complex API, so the same sources
 * build as MATLAB mex files (mex -R2018a) and Octave ones (-DMX_HAS_INTERLEAVED_COMPLEX=1).
 */
#ifndef TILEMM_MEX_COMMON_H
#define TILEMM_MEX_COMMON_H

#include "mex.h"

#include "backend.h"
#include "front.h"
#include "tilemm.h"

#if !defined(MX_HAS_INTERLEAVED_COMPLEX) || !MX_HAS_INTERLEAVED_COMPLEX
#error "build with the interleaved complex API: mex -R2018a (MATLAB) or -DMX_HAS_INTERLEAVED_COMPLEX=1 (Octave)"
#endif

/* Raises "tilemm:<reason>" for a failed status, with the detail when there is one, and a hint of
 * what to do.  Does not return. */
void tilemm_mex_fail (tilemm_status status, const tilemm_error *err);

/* An m×n array of class `cls`, real or complex, its elements not set.  Octave 7.3's interleaved
 * mxCreate*NumericMatrix gives a complex array a buffer sized for a real one: under Octave the
 * array is made m×2n, then given n columns (doc/ARCHITECTURE.md). */
mxArray *tilemm_mex_create_uninit (int64_t m, int64_t n, mxClassID cls, int is_complex);

/* The host's `*` (mtimes through mexCallMATLAB) for the machine's facts (mex_host.c). */
const tilemm_host_product *tilemm_mex_host_product (void);

/* Registers tilemm_cuda_release with mexAtExit (once per mex file load). */
void tilemm_mex_register_cleanup (void);

#endif /* TILEMM_MEX_COMMON_H */
