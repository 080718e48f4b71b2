/* imma_wgmma.cu — the host side of the Hopper int8 GEMM (kernels_imma_wgmma.cuh): tensor maps,
 * the persistent grid, the launch.  Built with sm_90a code beside the fat binary (src/Makefile.in:
 * WGMMA_ARCH_FLAGS), which also defines TILEMM_WGMMA_BUILT.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 *
 * The tensor maps are encoded by the driver's cuTensorMapEncodeTiled, reached through the
 * runtime's cudaGetDriverEntryPointByVersion, so nothing links the driver library (-lcuda): the
 * mex files link only the static runtime.
 */

#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime_api.h>

#include "cuda_try.h"
#include "fault.h"
#include "imma_wgmma.h"
#include "kernels_imma_wgmma.cuh"

bool tilemm_emu_wgmma_usable ()
{
#ifdef TILEMM_WGMMA_BUILT
  int dev = 0, major = 0, minor = 0;
  if (cudaGetDevice (&dev) != cudaSuccess
      || cudaDeviceGetAttribute (&major, cudaDevAttrComputeCapabilityMajor, dev) != cudaSuccess
      || cudaDeviceGetAttribute (&minor, cudaDevAttrComputeCapabilityMinor, dev) != cudaSuccess)
    {
      cudaGetLastError ();
      return false;
    }
  return major == 9 && minor == 0;
#else
  return false;
#endif
}

namespace {

/* A 3-D map of int8 rows (k, rows, planes), rows kp bytes apart, planes plane bytes apart; boxes
 * of BK bytes × box_rows rows, 128-byte swizzle; outside the bounds the copy writes zeros. */
tilemm_status encode_map (PFN_cuTensorMapEncodeTiled_v12000 encode, CUtensorMap *map, const int8_t *base,
                          int64_t kp, int64_t rows, int64_t plane, int planes, int box_rows,
                          const char *what, tilemm_error *err)
{
  const cuuint64_t dims[3] = { (cuuint64_t) kp, (cuuint64_t) rows, (cuuint64_t) planes };
  /* one plane: any valid stride (the copies never step past plane 0) */
  const int64_t plane_stride = planes > 1 ? plane : rows * kp;
  const cuuint64_t strides[2] = { (cuuint64_t) kp, (cuuint64_t) plane_stride };
  const cuuint32_t box[3] = { (cuuint32_t) tilemm_wgmma::BK, (cuuint32_t) box_rows, 1 };
  const cuuint32_t unit[3] = { 1, 1, 1 };
  const CUresult r = encode (map, CU_TENSOR_MAP_DATA_TYPE_UINT8, 3, (void *) base, dims, strides, box, unit,
                             CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                             CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS)
    return tilemm_error_set (err, TILEMM_ECUDA,
                             "cuTensorMapEncodeTiled(%s: %lld x %lld x %d, stride %lld): CUresult %d", what,
                             (long long) kp, (long long) rows, planes, (long long) plane_stride, (int) r);
  return TILEMM_OK;
}

template <int EPI>
tilemm_status launch (const imma_args &args, int planes, cudaStream_t stream, tilemm_error *err)
{
  using namespace tilemm_wgmma;
  if (args.m <= 0 || args.n <= 0 || planes <= 0)
    return TILEMM_OK;
  if (args.blocks < 1)
    return tilemm_error_set (err, TILEMM_EINVAL, "wgmma int8 GEMM: a grid of %d blocks (the plan's "
                             "multiprocessors)", args.blocks);
  /* all of k in one launch: the boxes read zeros (or nothing) past k_end only when k_end = kp */
  if (args.kp % 16 != 0 || args.k_begin != 0 || args.k_end != args.kp || args.m > INT32_MAX
      || args.n > INT32_MAX || args.kp > INT32_MAX || (EPI == IMMA_STATS && planes != 1))
    return tilemm_error_set (err, TILEMM_EINVAL, "wgmma int8 GEMM: kp %lld, k from %lld to %lld, %lld x %lld, %d planes",
                             (long long) args.kp, (long long) args.k_begin, (long long) args.k_end,
                             (long long) args.m, (long long) args.n, planes);
  /* Looked up at every launch (a few microseconds): no process-wide state to go stale. */
  void *fn = nullptr;
  cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
  CUDA_TRY (cudaGetDriverEntryPointByVersion ("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &found),
            "cudaGetDriverEntryPointByVersion(cuTensorMapEncodeTiled)");
  if (found != cudaDriverEntryPointSuccess || !fn)
    return tilemm_error_set (err, TILEMM_ECUDA, "cuTensorMapEncodeTiled: not in this driver (%d)", (int) found);
  const PFN_cuTensorMapEncodeTiled_v12000 encode = (PFN_cuTensorMapEncodeTiled_v12000) fn;

  CUtensorMap map_a, map_b;
  tilemm_status st = encode_map (encode, &map_a, args.a, args.kp, args.m, args.a_plane, planes, BM, "A", err);
  if (st != TILEMM_OK)
    return st;
  st = encode_map (encode, &map_b, args.b, args.kp, args.n, args.b_plane, planes, BN, "B", err);
  if (st != TILEMM_OK)
    return st;

  wgmma_args wa = {};
  wa.ia = args;
  /* args.chunk_tiles counts 64-byte tiles: the same chunk or a shorter one in BK-byte steps (at
   * least one), so chunk_steps·BK stays ≤ 131071 − 1 terms */
  static_assert (BK % 64 == 0, "whole 64-byte tiles per step");
  const int c = args.chunk_tiles / (BK / 64);
  wa.chunk_steps = c > 0 ? c : 1;
  wa.order = make_order (args.m, args.n, planes);

  /* Set at every launch: the attribute belongs to the current device's context. */
  CUDA_TRY (cudaFuncSetAttribute ((const void *) imma_wgmma_kernel<EPI>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                  SMEM_BYTES),
            "cudaFuncSetAttribute(imma_wgmma_kernel)");
  /* persistent: one block a multiprocessor (the plan's count), none idle for want of tiles */
  const long long grid = wa.order.total < args.blocks ? wa.order.total : args.blocks;
  imma_wgmma_kernel<EPI><<<dim3 ((unsigned) grid), dim3 (THREADS), SMEM_BYTES, stream>>> (map_a, map_b, wa);
  CUDA_TRY (TILEMM_FAULT_OR (TILEMM_FAULT_LAUNCH, cudaErrorInvalidValue, cudaGetLastError ()),
            "imma_wgmma_kernel launch");
  return TILEMM_OK;
}

} /* namespace */

tilemm_status tilemm_emu_wgmma_launch (const imma_args &args, int planes, cudaStream_t stream,
                                       tilemm_error *err)
{
  return launch<IMMA_MOD> (args, planes, stream, err);
}

tilemm_status tilemm_emu_wgmma_launch_stats (const imma_args &args, cudaStream_t stream, tilemm_error *err)
{
  return launch<IMMA_STATS> (args, 1, stream, err);
}
