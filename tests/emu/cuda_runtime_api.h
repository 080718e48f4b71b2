/* tests/emu/cuda_runtime_api.h — a host emulation of the little of CUDA that tilemm's kernels and
 * their launcher use, so that src/kernels/kernels.cu compiles with g++ and its kernels run on the CPU:
 * every CUDA thread a fiber, blocks one after another, __syncthreads and the warp-wide mma.sync
 * as fiber barriers, cp.async as a plain copy.  For correctness only (indexing, edges, splits,
 * fragment layouts as the PTX ISA gives them), with AddressSanitizer watching every access: device
 * buffers are host buffers of exactly their size.  Not a timing model.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 */
#ifndef TILEMM_EMU_CUDA_RUNTIME_API_H
#define TILEMM_EMU_CUDA_RUNTIME_API_H

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>

#define TILEMM_EMULATE 1

/* ---------------------------------------------------------------- language */
#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __align__(n) __attribute__ ((aligned (n)))
#define __shared__ static
#define TILEMM_DYNAMIC_SMEM(name) unsigned char *const name = tilemm_emu_dynamic_smem ()

struct dim3
{
  unsigned x, y, z;
  dim3 (unsigned x_ = 1, unsigned y_ = 1, unsigned z_ = 1) : x (x_), y (y_), z (z_) {}
};
typedef dim3 uint3;

struct __attribute__ ((aligned (8))) float2 { float x, y; };
struct __attribute__ ((aligned (16))) float4 { float x, y, z, w; };
struct __attribute__ ((aligned (16))) double2 { double x, y; };
struct __attribute__ ((aligned (16))) uint4 { unsigned x, y, z, w; };
struct __attribute__ ((aligned (8))) uint2 { unsigned x, y; };
inline float2 make_float2 (float x, float y) { return { x, y }; }
inline float4 make_float4 (float x, float y, float z, float w) { return { x, y, z, w }; }
inline double2 make_double2 (double x, double y) { return { x, y }; }
using std::fma;
inline float fmaf (float a, float b, float c) { return std::fma (a, b, c); }
inline long long __double2ll_rz (double d) { return (long long) d; }
inline unsigned long long __umul64hi (unsigned long long a, unsigned long long b)
{
  return (unsigned long long) (((unsigned __int128) a * b) >> 64);
}
inline int __clzll (long long x) { return x ? __builtin_clzll ((unsigned long long) x) : 64; }
/* Atomics: the fibers of a block switch only at barriers, and blocks run one after another, so a
 * plain read-modify-write is atomic here. */
inline unsigned long long atomicMax (unsigned long long *p, unsigned long long v)
{
  const unsigned long long old = *p;
  if (v > old)
    *p = v;
  return old;
}
inline unsigned long long atomicAdd (unsigned long long *p, unsigned long long v)
{
  const unsigned long long old = *p;
  *p = old + v;
  return old;
}
inline int atomicOr (int *p, int v) { const int old = *p; *p = old | v; return old; }
inline double __longlong_as_double (long long v) { double d; memcpy (&d, &v, 8); return d; }
inline long long __double_as_longlong (double d) { long long v; memcpy (&v, &d, 8); return v; }

/* ---------------------------------------------------------------- threads (tests/emu/emu.cc) */
dim3 &tilemm_emu_thread_idx ();
extern dim3 tilemm_emu_block_idx, tilemm_emu_grid_dim, tilemm_emu_block_dim;
#define threadIdx (tilemm_emu_thread_idx ())
#define blockIdx (tilemm_emu_block_idx)
#define gridDim (tilemm_emu_grid_dim)
#define blockDim (tilemm_emu_block_dim)
void __syncthreads ();
unsigned char *tilemm_emu_dynamic_smem ();
/* The warp-wide f64 product c += a·b in mma.m16n8k8's fragment layout, k in increasing order,
 * one rounding per multiply-add. */
void tilemm_emu_dmma_16x8x8 (double (&c)[4], const double (&a)[4], const double (&b)[2]);
/* The warp-wide int8 product c += a·b of mma.m16n8k32.row.col.s32.s8.s8.s32 in its fragment
 * layout (PTX ISA): a[r] holds 4 int8 of A (r = 0: row g, k 4t…4t+3; 1: row g+8; 2: row g,
 * k 16+4t…; 3: row g+8, k 16+4t…), b[r] 4 int8 of B (column g, k 4t… and 16+4t…), c rows g and
 * g+8, columns 2t, 2t+1 (g = lane/4, t = lane%4).  Exact, wrapping int32 like the hardware. */
void tilemm_emu_imma_16x8x32 (int (&c)[4], const unsigned (&a)[4], const unsigned (&b)[2]);
/* ldmatrix.sync.aligned.m8n8.x4.shared.b16: lane L gives the address of row L%8 of matrix L/8
 * (16 bytes each); register q of lane L receives bytes 4·(L%4)… of row L/4 of matrix q. */
void tilemm_emu_ldmatrix_x4 (unsigned (&r)[4], const void *row_address);
/* Runs `body` for every thread of every block of the grid. */
void tilemm_emu_launch (dim3 grid, dim3 block, size_t smem, const std::function<void ()> &body);
/* Aborts when p is not aligned to `bytes` (a misaligned wide access faults on the GPU). */
void tilemm_emu_check_align (const void *p, size_t bytes, const char *what);
/* Stops the emulation with a message: a kernel broke a rule the hardware would not report. */
void tilemm_emu_fail (const char *what);

/* Told of each launch's kernel before it runs, where a test sets it (NULL: no one): how a test
 * sees which kernel its caller launched. */
extern void (*tilemm_emu_on_launch) (const void *kernel);
#define TILEMM_EMU_TELL(kernel) (tilemm_emu_on_launch ? tilemm_emu_on_launch ((const void *) &kernel) : (void) 0)
#define TILEMM_LAUNCH(kernel, grid, block, stream, ...)                                    \
  (TILEMM_EMU_TELL (kernel), tilemm_emu_launch (grid, block, 0, [=] () { kernel (__VA_ARGS__); }))
#define TILEMM_LAUNCH_SMEM(kernel, grid, block, smem, stream, ...)                         \
  (TILEMM_EMU_TELL (kernel), tilemm_emu_launch (grid, block, smem, [=] () { kernel (__VA_ARGS__); }))

/* ---------------------------------------------------------------- runtime */
typedef int cudaError_t;
enum { cudaSuccess = 0, cudaErrorMemoryAllocation = 2, cudaErrorInvalidValue = 1 };
typedef struct CUstream_st *cudaStream_t;
enum cudaMemcpyKind { cudaMemcpyHostToDevice, cudaMemcpyDeviceToHost, cudaMemcpyDeviceToDevice };
enum cudaDeviceAttr
{
  cudaDevAttrComputeCapabilityMajor
};
enum cudaFuncAttribute { cudaFuncAttributeMaxDynamicSharedMemorySize };

const char *cudaGetErrorString (cudaError_t e);
cudaError_t cudaGetLastError ();
cudaError_t cudaGetDevice (int *dev);
cudaError_t cudaDeviceGetAttribute (int *value, cudaDeviceAttr attr, int dev);
cudaError_t cudaFuncSetAttribute (const void *func, cudaFuncAttribute attr, int value);
cudaError_t cudaMalloc (void **p, size_t bytes);
cudaError_t cudaFree (void *p);
cudaError_t cudaMemcpy (void *dst, const void *src, size_t bytes, cudaMemcpyKind kind);
cudaError_t cudaMemcpy2D (void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                          size_t height, cudaMemcpyKind kind);
cudaError_t cudaDeviceSynchronize ();
cudaError_t cudaMemcpyAsync (void *dst, const void *src, size_t bytes, cudaMemcpyKind kind,
                             cudaStream_t s);
cudaError_t cudaMemset (void *p, int value, size_t bytes);
cudaError_t cudaMemsetAsync (void *p, int value, size_t bytes, cudaStream_t s);
cudaError_t cudaMemcpy2DAsync (void *dst, size_t dpitch, const void *src, size_t spitch,
                               size_t width, size_t height, cudaMemcpyKind kind, cudaStream_t s);
cudaError_t cudaStreamSynchronize (cudaStream_t s);
cudaError_t cudaStreamCreate (cudaStream_t *s);
cudaError_t cudaStreamDestroy (cudaStream_t s);
/* Work runs as it is enqueued here: an event has happened once it is recorded. */
typedef struct CUevent_st *cudaEvent_t;
cudaError_t cudaEventRecord (cudaEvent_t e, cudaStream_t s);
struct cudaDeviceProp { int multiProcessorCount; size_t sharedMemPerBlockOptin; };
cudaError_t cudaGetDeviceProperties (cudaDeviceProp *prop, int dev);
cudaError_t cudaMemGetInfo (size_t *free_bytes, size_t *total_bytes);

#endif /* TILEMM_EMU_CUDA_RUNTIME_API_H */
