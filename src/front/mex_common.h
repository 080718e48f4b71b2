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
#include "tilemm.h"

#if !defined(MX_HAS_INTERLEAVED_COMPLEX) || !MX_HAS_INTERLEAVED_COMPLEX
#error "build with the interleaved complex API: mex -R2018a (MATLAB) or -DMX_HAS_INTERLEAVED_COMPLEX=1 (Octave)"
#endif

/* Raises "tilemm:<reason>" for a failed status, with the detail when there is one, and a hint of
 * what to do.  Does not return. */
void tilemm_mex_fail (tilemm_status status, const tilemm_error *err);

/* Registers tilemm_cuda_release with mexAtExit (once per mex file load). */
void tilemm_mex_register_cleanup (void);

#endif /* TILEMM_MEX_COMMON_H */
