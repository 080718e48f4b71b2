/* tests/emu/emu.cc — the fibers behind tests/emu/cuda_runtime_api.h: each CUDA thread of a block
 * is a ucontext fiber; the block's fibers run round-robin until each finishes or waits at a
 * barrier (__syncthreads: the whole block; the emulated mma.sync: its warp), and a barrier opens
 * when every unfinished thread of its scope waits at it.  Blocks run one after another, so a
 * kernel's static __shared__ arrays and its dynamic shared memory are simply per launch buffers.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 */
#include <ucontext.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <vector>

#include "cuda_runtime_api.h"

dim3 tilemm_emu_block_idx, tilemm_emu_grid_dim, tilemm_emu_block_dim;
void (*tilemm_emu_on_launch) (const void *kernel) = nullptr;

namespace {

enum state { RUN, WAIT_BLOCK, WAIT_WARP, DONE };

struct fiber
{
  ucontext_t ctx;
  std::vector<char> stack;
  dim3 tid;
  state st;
};

std::vector<fiber> fibers;
int current = -1;
ucontext_t scheduler;
const std::function<void ()> *body;
std::vector<unsigned char> dyn_smem;

/* The warp's exchange area for the emulated mma. */
struct warp_slots
{
  double a[32][4], b[32][2];
};
std::vector<warp_slots> slots;
/* The warp's exchange area for the emulated int8 mma and ldmatrix. */
struct warp_slots8
{
  unsigned a[32][4], b[32][2];
  const unsigned char *addr[32];
};
std::vector<warp_slots8> slots8;

void trampoline (unsigned lo, unsigned hi)
{
  const uintptr_t i = ((uintptr_t) hi << 32) | lo;
  (*body) ();
  fibers[i].st = DONE;
  swapcontext (&fibers[i].ctx, &scheduler);
}

void wait (state s)
{
  fiber &f = fibers[current];
  f.st = s;
  swapcontext (&f.ctx, &scheduler);
}

/* Runs the block's fibers until all are done. */
void run_block (int n)
{
  for (;;)
    {
      bool ran = false;
      for (int i = 0; i < n; i++)
        if (fibers[i].st == RUN)
          {
            current = i;
            swapcontext (&scheduler, &fibers[i].ctx);
            current = -1;
            ran = true;
          }
      if (ran)
        continue;
      /* Nobody can run: open the barriers whose whole scope waits. */
      bool all_done = true, opened = false;
      for (int i = 0; i < n; i++)
        all_done &= fibers[i].st == DONE;
      if (all_done)
        return;
      bool block_ready = true;
      for (int i = 0; i < n; i++)
        block_ready &= fibers[i].st == WAIT_BLOCK || fibers[i].st == DONE;
      if (block_ready)
        {
          for (int i = 0; i < n; i++)
            if (fibers[i].st == WAIT_BLOCK)
              fibers[i].st = RUN;
          opened = true;
        }
      for (int w = 0; w * 32 < n; w++)
        {
          bool ready = true, any = false;
          for (int i = w * 32; i < n && i < w * 32 + 32; i++)
            {
              ready &= fibers[i].st == WAIT_WARP || fibers[i].st == DONE;
              any |= fibers[i].st == WAIT_WARP;
            }
          if (ready && any)
            {
              for (int i = w * 32; i < n && i < w * 32 + 32; i++)
                if (fibers[i].st == WAIT_WARP)
                  fibers[i].st = RUN;
              opened = true;
            }
        }
      if (!opened)
        {
          fprintf (stderr, "emu: deadlock: threads wait at different barriers\n");
          abort ();
        }
    }
}

} // namespace

dim3 &tilemm_emu_thread_idx ()
{
  return fibers[current].tid;
}

void __syncthreads ()
{
  wait (WAIT_BLOCK);
}

unsigned char *tilemm_emu_dynamic_smem ()
{
  return dyn_smem.data ();
}

void tilemm_emu_fail (const char *what)
{
  fprintf (stderr, "emu: %s\n", what);
  abort ();
}

void tilemm_emu_check_align (const void *p, size_t bytes, const char *what)
{
  if ((uintptr_t) p % bytes != 0)
    {
      fprintf (stderr, "emu: %s at %p is not %zu-byte aligned\n", what, p, bytes);
      abort ();
    }
}

void tilemm_emu_dmma_16x8x8 (double (&c)[4], const double (&a)[4], const double (&b)[2])
{
  const int lane = current % 32, warp = current / 32;
  warp_slots &s = slots[warp]; /* sized at launch: no fiber moves it */
  memcpy (s.a[lane], a, sizeof a);
  memcpy (s.b[lane], b, sizeof b);
  wait (WAIT_WARP); /* every lane's operands are in */
  const int g = lane / 4, t = lane % 4;
  for (int h = 0; h < 2; h++)      /* rows g, g+8            */
    for (int v = 0; v < 2; v++)    /* columns 2t, 2t+1       */
      {
        const int row = g + 8 * h, col = 2 * t + v;
        double acc = c[2 * h + v];
        for (int k = 0; k < 8; k++)
          {
            /* A(row, k): lane (row mod 8)·4 + k mod 4, register (row ≥ 8) + 2·(k ≥ 4) */
            const double av = s.a[(row % 8) * 4 + k % 4][(row >= 8) + 2 * (k >= 4)];
            /* B(k, col): lane col·4 + k mod 4, register k ≥ 4 */
            const double bv = s.b[col * 4 + k % 4][k >= 4];
            acc = std::fma (av, bv, acc);
          }
        c[2 * h + v] = acc;
      }
  wait (WAIT_WARP); /* nobody overwrites the slots before everyone has read them */
}

void tilemm_emu_imma_16x8x32 (int (&c)[4], const unsigned (&a)[4], const unsigned (&b)[2])
{
  const int lane = current % 32, warp = current / 32;
  warp_slots8 &s = slots8[warp];
  memcpy (s.a[lane], a, sizeof a);
  memcpy (s.b[lane], b, sizeof b);
  wait (WAIT_WARP);
  const int g = lane / 4, t = lane % 4;
  for (int h = 0; h < 2; h++)   /* rows g, g+8      */
    for (int v = 0; v < 2; v++) /* columns 2t, 2t+1 */
      {
        const int row = g + 8 * h, col = 2 * t + v;
        uint32_t acc = (uint32_t) c[2 * h + v];
        for (int k = 0; k < 32; k++)
          {
            /* A(row, k): lane (row%8)·4 + (k%16)/4, register (row ≥ 8) + 2·(k ≥ 16), byte k%4 */
            const unsigned aw = s.a[(row % 8) * 4 + (k % 16) / 4][(row >= 8) + 2 * (k >= 16)];
            /* B(k, col): lane col·4 + (k%16)/4, register k ≥ 16, byte k%4 */
            const unsigned bw = s.b[col * 4 + (k % 16) / 4][k >= 16];
            const int av = (int8_t) (aw >> (8 * (k % 4))), bv = (int8_t) (bw >> (8 * (k % 4)));
            acc += (uint32_t) (av * bv);
          }
        c[2 * h + v] = (int) acc;
      }
  wait (WAIT_WARP);
}

void tilemm_emu_ldmatrix_x4 (unsigned (&r)[4], const void *row_address)
{
  const int lane = current % 32, warp = current / 32;
  warp_slots8 &s = slots8[warp];
  tilemm_emu_check_align (row_address, 16, "ldmatrix row address");
  s.addr[lane] = (const unsigned char *) row_address;
  wait (WAIT_WARP); /* every lane's address is in */
  for (int q = 0; q < 4; q++)
    memcpy (&r[q], s.addr[8 * q + lane / 4] + 4 * (lane % 4), 4);
  wait (WAIT_WARP);
}

void tilemm_emu_launch (dim3 grid, dim3 block, size_t smem, const std::function<void ()> &fn)
{
  const int n = (int) (block.x * block.y * block.z);
  tilemm_emu_grid_dim = grid;
  tilemm_emu_block_dim = block;
  body = &fn;
  fibers.resize (n);
  slots.resize ((n + 31) / 32);
  slots8.resize ((n + 31) / 32);
  for (fiber &f : fibers)
    f.stack.resize (256 * 1024);
  for (unsigned bz = 0; bz < grid.z; bz++)
    for (unsigned by = 0; by < grid.y; by++)
      for (unsigned bx = 0; bx < grid.x; bx++)
        {
          tilemm_emu_block_idx = dim3 (bx, by, bz);
          /* shared memory starts as garbage (NaN bytes): a read of what no copy wrote shows */
          dyn_smem.assign (smem + 16, 0xff);
          for (int i = 0; i < n; i++)
            {
              fiber &f = fibers[i];
              f.tid = dim3 (i % block.x, (i / block.x) % block.y, i / (block.x * block.y));
              f.st = RUN;
              getcontext (&f.ctx);
              f.ctx.uc_stack.ss_sp = f.stack.data ();
              f.ctx.uc_stack.ss_size = f.stack.size ();
              f.ctx.uc_link = nullptr;
              makecontext (&f.ctx, (void (*) ()) trampoline, 2, (unsigned) i, 0u);
            }
          run_block (n);
        }
}

/* ---------------------------------------------------------------- runtime */

const char *cudaGetErrorString (cudaError_t e)
{
  return e == cudaSuccess ? "no error" : e == cudaErrorMemoryAllocation ? "out of memory"
                                                                        : "invalid value";
}
cudaError_t cudaGetLastError () { return cudaSuccess; }
cudaError_t cudaGetDevice (int *dev) { *dev = 0; return cudaSuccess; }
int tilemm_emu_cc_major = 9;
cudaError_t cudaDeviceGetAttribute (int *value, cudaDeviceAttr attr, int)
{
  *value = attr == cudaDevAttrComputeCapabilityMajor ? tilemm_emu_cc_major : 1;
  return cudaSuccess;
}
cudaError_t cudaFuncSetAttribute (const void *, cudaFuncAttribute, int) { return cudaSuccess; }
cudaError_t cudaMalloc (void **p, size_t bytes)
{
  /* garbage, like fresh device memory: a buffer must be written before it is read */
  *p = malloc (bytes ? bytes : 1);
  if (*p)
    memset (*p, 0xff, bytes);
  return *p ? cudaSuccess : cudaErrorMemoryAllocation;
}
cudaError_t cudaFree (void *p) { free (p); return cudaSuccess; }
cudaError_t cudaMemcpy (void *dst, const void *src, size_t bytes, cudaMemcpyKind)
{
  memcpy (dst, src, bytes);
  return cudaSuccess;
}
cudaError_t cudaMemcpy2D (void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                          size_t height, cudaMemcpyKind)
{
  if (width > dpitch || width > spitch)
    return cudaErrorInvalidValue;
  for (size_t r = 0; r < height; r++)
    memcpy ((char *) dst + r * dpitch, (const char *) src + r * spitch, width);
  return cudaSuccess;
}
cudaError_t cudaDeviceSynchronize () { return cudaSuccess; }
cudaError_t cudaMemcpyAsync (void *dst, const void *src, size_t bytes, cudaMemcpyKind,
                             cudaStream_t)
{
  memcpy (dst, src, bytes);
  return cudaSuccess;
}
cudaError_t cudaMemset (void *p, int value, size_t bytes)
{
  memset (p, value, bytes);
  return cudaSuccess;
}
cudaError_t cudaMemsetAsync (void *p, int value, size_t bytes, cudaStream_t)
{
  memset (p, value, bytes);
  return cudaSuccess;
}
cudaError_t cudaMemcpy2DAsync (void *dst, size_t dpitch, const void *src, size_t spitch,
                               size_t width, size_t height, cudaMemcpyKind kind, cudaStream_t)
{
  return cudaMemcpy2D (dst, dpitch, src, spitch, width, height, kind);
}
cudaError_t cudaStreamSynchronize (cudaStream_t) { return cudaSuccess; }
cudaError_t cudaStreamCreate (cudaStream_t *s) { *s = nullptr; return cudaSuccess; }
cudaError_t cudaStreamDestroy (cudaStream_t) { return cudaSuccess; }
cudaError_t cudaEventRecord (cudaEvent_t, cudaStream_t) { return cudaSuccess; }
cudaError_t cudaGetDeviceProperties (cudaDeviceProp *prop, int)
{
  prop->multiProcessorCount = 4;
  prop->sharedMemPerBlockOptin = 227 * 1024;
  return cudaSuccess;
}
/* A small device: tests of the panels ask for more than it has. */
size_t tilemm_emu_device_bytes = (size_t) 1 << 34;
cudaError_t cudaMemGetInfo (size_t *free_bytes, size_t *total_bytes)
{
  *free_bytes = *total_bytes = tilemm_emu_device_bytes;
  return cudaSuccess;
}
