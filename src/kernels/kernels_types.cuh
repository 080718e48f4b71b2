/* kernels_types.cuh — what the kernels need to know about an element type: zero, the
 * multiply-add, and how to move VW elements (16 bytes) at once.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 *
 * The element types are float, double, float2 (complex single: interleaved re, im) and double2
 * (complex double).  Arithmetic is plain IEEE in the element type: fused multiply-adds in the
 * order of a textbook dot product, nothing skipped, so NaN and Inf propagate as they would in
 * sum(a .* b).  No fast-math, no TF32.
 */
#ifndef TILEMM_KERNELS_TYPES_CUH
#define TILEMM_KERNELS_TYPES_CUH

#include <stdint.h>

/* The row-major reading a kernel works on (tilemm_matrix with a typed pointer). */
template <typename T> struct kmatrix
{
  int64_t height, width, stride;
  T *e;
};

template <typename T> __device__ __forceinline__ T elem_zero ();
template <> __device__ __forceinline__ float elem_zero<float> () { return 0.0f; }
template <> __device__ __forceinline__ double elem_zero<double> () { return 0.0; }
template <> __device__ __forceinline__ float2 elem_zero<float2> () { return make_float2 (0.0f, 0.0f); }
template <> __device__ __forceinline__ double2 elem_zero<double2> () { return make_double2 (0.0, 0.0); }

/* acc += a*b.  Complex: re += ar*br, re -= ai*bi, im += ar*bi, im += ai*br, one rounding per
 * fused step, the same sequence for every element. */
__device__ __forceinline__ void elem_madd (float &acc, float a, float b) { acc = fmaf (a, b, acc); }
__device__ __forceinline__ void elem_madd (double &acc, double a, double b) { acc = fma (a, b, acc); }
__device__ __forceinline__ void elem_madd (float2 &acc, float2 a, float2 b)
{
  acc.x = fmaf (a.x, b.x, acc.x);
  acc.x = fmaf (-a.y, b.y, acc.x);
  acc.y = fmaf (a.x, b.y, acc.y);
  acc.y = fmaf (a.y, b.x, acc.y);
}
__device__ __forceinline__ void elem_madd (double2 &acc, double2 a, double2 b)
{
  acc.x = fma (a.x, b.x, acc.x);
  acc.x = fma (-a.y, b.y, acc.x);
  acc.y = fma (a.x, b.y, acc.y);
  acc.y = fma (a.y, b.x, acc.y);
}

/* Sixteen bytes of elements: VW of them, moved by one 128-bit load or store.  The pointer must be
 * 16-byte aligned (global or shared): the host emulation (tests/emu) checks it. */
#ifdef TILEMM_EMULATE
#define TILEMM_CHECK16(p) tilemm_emu_check_align (p, 16, "16-byte access")
#else
#define TILEMM_CHECK16(p) ((void) 0)
#endif
template <typename T> struct vec16;

template <> struct vec16<float>
{
  static constexpr int n = 4;
  static __device__ __forceinline__ void load (float *dst, const float *src)
  {
    TILEMM_CHECK16 (src);
    const float4 v = *reinterpret_cast<const float4 *> (src);
    dst[0] = v.x; dst[1] = v.y; dst[2] = v.z; dst[3] = v.w;
  }
  static __device__ __forceinline__ void store (float *dst, const float *src)
  {
    TILEMM_CHECK16 (dst);
    *reinterpret_cast<float4 *> (dst) = make_float4 (src[0], src[1], src[2], src[3]);
  }
};

template <> struct vec16<double>
{
  static constexpr int n = 2;
  static __device__ __forceinline__ void load (double *dst, const double *src)
  {
    TILEMM_CHECK16 (src);
    const double2 v = *reinterpret_cast<const double2 *> (src);
    dst[0] = v.x; dst[1] = v.y;
  }
  static __device__ __forceinline__ void store (double *dst, const double *src)
  {
    TILEMM_CHECK16 (dst);
    *reinterpret_cast<double2 *> (dst) = make_double2 (src[0], src[1]);
  }
};

template <> struct vec16<float2>
{
  static constexpr int n = 2;
  static __device__ __forceinline__ void load (float2 *dst, const float2 *src)
  {
    const float4 v = *reinterpret_cast<const float4 *> (src);
    dst[0] = make_float2 (v.x, v.y); dst[1] = make_float2 (v.z, v.w);
  }
  static __device__ __forceinline__ void store (float2 *dst, const float2 *src)
  {
    *reinterpret_cast<float4 *> (dst) = make_float4 (src[0].x, src[0].y, src[1].x, src[1].y);
  }
};

template <> struct vec16<double2>
{
  static constexpr int n = 1;
  static __device__ __forceinline__ void load (double2 *dst, const double2 *src) { dst[0] = *src; }
  static __device__ __forceinline__ void store (double2 *dst, const double2 *src) { *dst = src[0]; }
};

/* A thread's TM×TN tile of C' stored element by element, never past C's edge: the layout of the
 * register-tiled kernels (variants 2–7, 12), whose thread (ty, tx) holds rows
 * (i / VW)·TY·VW + ty·VW + i % VW and columns (j / VW)·TX·VW + tx·VW + j % VW of its block's tile
 * at (row0, col0).  Blocks wholly inside C' store 16 bytes at a time instead (each kernel). */
template <int TM, int TN, int VW, int TX, int TY, typename T>
__device__ __forceinline__ void store_tile_at_edge (const kmatrix<T> &c, const T (&acc)[TM][TN],
                                                    int64_t row0, int64_t col0, int ty, int tx)
{
#pragma unroll
  for (int i = 0; i < TM; i++)
    {
      const int64_t row = row0 + (i / VW) * TY * VW + ty * VW + i % VW;
      if (row >= c.height)
        continue;
      T *crow = c.e + row * c.stride;
#pragma unroll
      for (int j = 0; j < TN; j++)
        {
          const int64_t col = col0 + (j / VW) * TX * VW + tx * VW + j % VW;
          if (col < c.width)
            crow[col] = acc[i][j];
        }
    }
}

#endif /* TILEMM_KERNELS_TYPES_CUH */
