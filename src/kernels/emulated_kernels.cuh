/* emulated_kernels.cuh — the device kernels of the emulated precision's passes over memory
 * (emulated_cuda.cu launches them): the scan for exponents and non-finite values, the quantization
 * and conversion into int8 residues, and the CRT with its one rounding.  The int8 GEMMs are
 * kernels_imma.cuh and kernels_imma_wgmma.cuh.  Included by emulated_cuda.cu only (and through
 * it by the tests and the benchmark that reach its launchers).
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 */
#ifndef TILEMM_EMULATED_KERNELS_CUH
#define TILEMM_EMULATED_KERNELS_CUH

#include <math.h>
#include <stdint.h>

#include "emulated.h"

namespace tilemm_emu_gpu {

/* ---------------------------------------------------------------- device helpers */

__device__ __forceinline__ unsigned long long magnitude_bits (double x)
{
  return (unsigned long long) __double_as_longlong (fabs (x));
}

/* lo = floor(Q·x), hi = ceil(Q·x) exactly, for x = |v|·2^-e in [0, 1) (emulated.h, step 2).
 * Q·x is rounded once (p) with its error (err, exact by fma); p is an integer exactly when
 * the floor or ceiling needs the error's sign.  x below 2^-8 (|v| < 2^(e-8): the CPU tests
 * frexp's exponent) gives lo = 0, hi = 1.  The test reads x as ldexp rounds it, which is below
 * 2^-8 exactly when |v|·2^-e is (2^-8 is a double and rounding is monotone), even where x
 * underflows; at or above 2^-8, x is a normal double and so exact.  (CUDA's ldexp is a few
 * integer operations and multiplications, no branch: cheaper than frexp and a branch.) */
__device__ __forceinline__ void quantize (double v, int e, int &lo, int &hi)
{
  if (v == 0.0)
    {
      lo = hi = 0;
      return;
    }
  const double x = ldexp (fabs (v), -e);
  if (x < 0x1p-8)
    {
      lo = 0;
      hi = 1;
      return;
    }
  const double p = (double) TILEMM_EMU_Q * x;
  const double err = fma ((double) TILEMM_EMU_Q, x, -p);
  double f = floor (p), c = ceil (p);
  if (f == p && err < 0)
    f -= 1.0;
  if (c == p && err > 0)
    c += 1.0;
  lo = (int) f;
  hi = (int) c;
}

/* ---------------------------------------------------------------- 1. scan */

/* amax[i] = max over p of the bits of |A(i, p)|; A column-major (lda), threads along i. */
template <typename T>
__global__ void __launch_bounds__ (256)
scan_rows_kernel (const T *a, int64_t m, int64_t k, int64_t lda, int64_t pchunk,
                  unsigned long long *amax)
{
  const int64_t i = (int64_t) blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= m)
    return;
  const int64_t p0 = (int64_t) blockIdx.y * pchunk;
  const int64_t p1 = p0 + pchunk < k ? p0 + pchunk : k;
  unsigned long long mx = 0;
  for (int64_t p = p0; p < p1; p++)
    {
      const unsigned long long bits = magnitude_bits ((double) a[i + p * lda]);
      mx = bits > mx ? bits : mx;
    }
  if (mx)
    atomicMax (&amax[i], mx);
}

/* bmax[j] = max over p of the bits of |B(p, j)|; one block per column (and piece of k). */
template <typename T>
__global__ void __launch_bounds__ (256)
scan_cols_kernel (const T *b, int64_t k, int64_t ldb, int64_t pchunk, unsigned long long *bmax)
{
  __shared__ unsigned long long part[256];
  const int64_t j = blockIdx.x;
  const int64_t p0 = (int64_t) blockIdx.y * pchunk;
  const int64_t p1 = p0 + pchunk < k ? p0 + pchunk : k;
  unsigned long long mx = 0;
  for (int64_t p = p0 + threadIdx.x; p < p1; p += blockDim.x)
    {
      const unsigned long long bits = magnitude_bits ((double) b[p + j * ldb]);
      mx = bits > mx ? bits : mx;
    }
  part[threadIdx.x] = mx;
  __syncthreads ();
  for (int s = 128; s > 0; s /= 2)
    {
      if ((int) threadIdx.x < s && part[threadIdx.x + s] > part[threadIdx.x])
        part[threadIdx.x] = part[threadIdx.x + s];
      __syncthreads ();
    }
  if (threadIdx.x == 0 && part[0])
    atomicMax (&bmax[j], part[0]);
}

/* e[r] from the largest magnitude's bits (tilemm_emu_exponent); *nonfinite |= NaN or Inf. */
__global__ void __launch_bounds__ (256)
exponents_kernel (const unsigned long long *mag, int64_t count, int *e, int *nonfinite)
{
  const int64_t r = (int64_t) blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= count)
    return;
  const unsigned long long bits = mag[r];
  if (bits >= 0x7ff0000000000000ull)
    {
      atomicOr (nonfinite, 1);
      e[r] = 0;
      return;
    }
  int ex = TILEMM_EMU_ZERO_ROW;
  if (bits)
    frexp (__longlong_as_double ((long long) bits), &ex);
  e[r] = ex;
}

/* ---------------------------------------------------------------- 2./3. quantize, convert */

/* The low 32 bits of a double's bits. */
__device__ __forceinline__ unsigned low_word (double d)
{
#ifdef __CUDA_ARCH__
  return (unsigned) __double2loint (d);
#else /* the host emulation (tests/emu): the bits through a union, as g++ defines it */
  union { double d; unsigned long long u; } bits = { d };
  return (unsigned) bits.u;
#endif
}

/* The low bytes of b0…b3 in one word, b0 lowest. */
__device__ __forceinline__ unsigned pack_bytes (unsigned b0, unsigned b1, unsigned b2, unsigned b3)
{
#ifdef __CUDA_ARCH__
  return __byte_perm (__byte_perm (b0, b1, 0x0040), __byte_perm (b2, b3, 0x0040), 0x5410);
#else
  return (b0 & 0xffu) | (b1 & 0xffu) << 8 | (b2 & 0xffu) << 16 | (b3 & 0xffu) << 24;
#endif
}

enum { CONVERT_QUANT = 0, CONVERT_RESIDUES = 1 };
constexpr int CT = 64; /* the conversion's tile: CT rows × CT values of k */
constexpr int QUANT_TILES = 4; /* the quantization's tiles of k per block */

/* The quantization's grid along k for kp values of k (stage_stats and the benchmark launch it). */
inline unsigned quant_blocks_k (int64_t kp)
{
  return (unsigned) (((kp + CT - 1) / CT + QUANT_TILES - 1) / QUANT_TILES);
}

/* Everything the conversion kernels read: the source (rows × k; element (r, p) at
 * src[r + p·ld] when TRANS (A), at src[p + r·ld] otherwise (B)), the exponents e[r], and the
 * outputs, K-major with rows kp bytes apart. */
struct convert_args
{
  const void *src;
  int64_t rows, k, ld, kp;
  const int *e;
  /* QUANT */
  int8_t *lo;          /* rows × kp, or NULL: the sums only */
  unsigned long long *sum, *sum2; /* Σ hi, Σ hi² per row */
  /* RESIDUES */
  int bits; /* pa or pb */
  int8_t *out;
  int64_t out_plane;
  int nmod;
  unsigned moduli[TILEMM_EMU_MAX_MODULI], pow32[TILEMM_EMU_MAX_MODULI];
};

template <typename T, bool TRANS, int MODE>
__global__ void __launch_bounds__ (256, 4) convert_kernel (convert_args args)
{
  constexpr int NT = 256, PER = CT * CT / NT, BATCH = 8; /* PER values of the tile per thread */
  static_assert (NT % CT == 0, "a thread keeps its row (A) or its column of k (B) across the tile");
  /* RESIDUES keeps a' (int64), QUANT lo and hi (bytes).  The padding of a row keeps the
   * threads of a warp on distinct banks where they store along the tile's rows (A's read):
   * CT + 1 words of 8 bytes, QP = CT + 4 bytes. */
  constexpr int QP = CT + 4;
  __shared__ __align__ (16) unsigned char raw[MODE == CONVERT_RESIDUES ? CT * (CT + 1) * 8 : 2 * CT * QP];
  long long *const tv = reinterpret_cast<long long *> (raw); /* [CT][CT+1] */
  unsigned char *const tlo = raw, *const thi = raw + CT * QP;  /* [CT][QP]   */
  const int tid = threadIdx.x;
  const int64_t r0 = (int64_t) blockIdx.y * CT;
  const T *const src = (const T *) args.src;
  /* The tile slot (row lr, value lp of k) of a thread's value `it` of PER */
  const auto slot = [tid] (int it, int &lr, int &lp) {
    lr = TRANS ? tid % CT : tid / CT + it * (NT / CT);
    lp = TRANS ? tid / CT + it * (NT / CT) : tid % CT;
  };
  /* RESIDUES: the moduli's constants (see below), once per block */
  __shared__ double kP[TILEMM_EMU_MAX_MODULI], kInv[TILEMM_EMU_MAX_MODULI], kC[TILEMM_EMU_MAX_MODULI];
  if (MODE == CONVERT_RESIDUES && tid < args.nmod)
    {
      const double md = (double) args.moduli[tid];
      kP[tid] = (double) args.pow32[tid];
      kInv[tid] = 1.0 / md;
      kC[tid] = (md - 255.0) / (2.0 * md);
    }
  /* QUANT: the sums of the thread's quarter of row tid/4, over all the block's tiles, so that a
   * row's sums take one atomic addition per block rather than four per tile. */
  unsigned long long s1 = 0, s2 = 0;

  /* The block's tiles of k: blockIdx.x, then every gridDim.x-th (the launch gives RESIDUES one
   * tile per block, QUANT several). */
  const int64_t ptiles = (args.kp + CT - 1) / CT;
  for (int64_t pt = blockIdx.x; pt < ptiles; pt += gridDim.x)
    {
      const int64_t p0 = pt * CT;
      if (pt != (int64_t) blockIdx.x)
        __syncthreads (); /* the last tile's readers are done with raw */

      /* Read: threads along the contiguous direction of the source, in batches of BATCH
       * values whose loads are all issued before the first value is used (a thread keeps
       * BATCH loads in flight rather than one behind each value's branches; a batch of the whole
       * tile would cost B's variants half their occupancy in registers). */
      for (int b0 = 0; b0 < PER; b0 += BATCH)
        {
          double v[BATCH];
          int ev[BATCH];
#pragma unroll
          for (int u = 0; u < BATCH; u++)
            {
              int lr, lp;
              slot (b0 + u, lr, lp);
              const int64_t r = r0 + lr, p = p0 + lp;
              const bool inside = r < args.rows && p < args.k;
              v[u] = inside ? (double) src[TRANS ? r + p * args.ld : p + r * args.ld] : 0.0;
              ev[u] = TRANS && u > 0 ? ev[0] : r < args.rows ? args.e[r] : 0; /* A: one row */
            }
#pragma unroll
          for (int u = 0; u < BATCH; u++)
            {
              int lr, lp;
              slot (b0 + u, lr, lp);
              if (MODE == CONVERT_RESIDUES)
                /* 0 stays 0, whatever the row's exponent (a row of zeros has TILEMM_EMU_ZERO_ROW) */
                tv[lr * (CT + 1) + lp] = __double2ll_rz (ldexp (v[u], args.bits - ev[u]));
              else
                {
                  int lo = 0, hi = 0;
                  quantize (v[u], ev[u], lo, hi);
                  tlo[lr * QP + lp] = (unsigned char) lo;
                  thi[lr * QP + lp] = (unsigned char) hi;
                }
            }
        }
      __syncthreads ();

      if constexpr (MODE == CONVERT_QUANT)
        {
          /* sums: 4 threads per row, 16 values (four words) each; hi ≤ Q < 2^7, so a byte */
#pragma unroll
          for (int i = 0; i < 4; i++)
            {
              const unsigned w = *reinterpret_cast<const unsigned *> (thi + (tid / 4) * QP + (tid % 4) * 16 + 4 * i);
#pragma unroll
              for (int sh = 0; sh < 32; sh += 8)
                {
                  const unsigned h = (w >> sh) & 0xffu;
                  s1 += h;
                  s2 += h * h;
                }
            }
          if (args.lo)
            for (int w = tid; w < CT * CT / 4; w += NT)
              {
                const int lr2 = w / (CT / 4), c = w % (CT / 4);
                const int64_t rr = r0 + lr2, p = p0 + 4 * c;
                if (rr < args.rows && p < args.kp)
                  *reinterpret_cast<unsigned *> (args.lo + rr * args.kp + p)
                      = *reinterpret_cast<const unsigned *> (tlo + lr2 * QP + 4 * c);
              }
        }
      else
        {
          /* Residues: each thread 8 consecutive values of a row, for every modulus in turn.  For x =
           * h·2^32 + l (h signed) and modulus m, with P = 2^32 mod m and c = (255 − m)/2:
           *   y = h·P + l ≡ x (mod m), |y| < 2^39, exact in a double (one FMA);
           *   q = round((y − c)/m) from y·(1/m) − c/m in doubles (one FMA; its error, below 2^-19, is
           *       far from the distance 1/(2m) ≥ 2^-9 of (y − c)/m to a half-integer: q is exact), the
           *       rounding to an integer by adding 1.5·2^52 (q mod 2^32 is then the low word);
           *   y − q·m in [128 − m, 127] is the symmetric residue (tilemm_emu_residue), and its low byte
           *       is (y − q·m) mod 2^8, taken in 32-bit integers.
           * Two FP64 operations and two integer multiply-adds per value and modulus, no division. */
          for (int w = tid; w < CT * CT / 8; w += NT)
            {
              const int lr = w / (CT / 8), c = w % (CT / 8);
              const int64_t r = r0 + lr, p = p0 + 8 * c;
              if (r >= args.rows || p >= args.kp)
                continue;
              unsigned hu[8], lu[8];
              double hd[8], ld[8];
#pragma unroll
              for (int u = 0; u < 8; u++)
                {
                  const long long x = tv[lr * (CT + 1) + 8 * c + u];
                  hu[u] = (unsigned) ((unsigned long long) x >> 32);
                  lu[u] = (unsigned) x;
                  hd[u] = (double) (int) hu[u];
                  ld[u] = (double) lu[u];
                }
              int8_t *dst = args.out + r * args.kp + p;
              for (int z = 0; z < args.nmod; z++)
                {
                  const double P = kP[z], inv = kInv[z], cm = kC[z];
                  const unsigned Pu = args.pow32[z], mu = args.moduli[z];
                  unsigned byte[8];
#pragma unroll
                  for (int u = 0; u < 8; u++)
                    {
                      const double y = fma (hd[u], P, ld[u]);
                      const unsigned q = low_word (fma (y, inv, cm) + 0x1.8p52);
                      byte[u] = hu[u] * Pu + lu[u] - q * mu;
                    }
                  uint2 word;
                  word.x = pack_bytes (byte[0], byte[1], byte[2], byte[3]);
                  word.y = pack_bytes (byte[4], byte[5], byte[6], byte[7]);
                  *reinterpret_cast<uint2 *> (dst + z * args.out_plane) = word;
                }
            }
        }
    }

  if constexpr (MODE == CONVERT_QUANT)
    {
      /* the four quarters of each row, then one addition per row and block */
      __shared__ unsigned long long part1[NT], part2[NT];
      part1[tid] = s1;
      part2[tid] = s2;
      __syncthreads ();
      const int64_t r = r0 + tid;
      if (tid < CT && r < args.rows)
        {
          const unsigned long long t1 = part1[4 * tid] + part1[4 * tid + 1] + part1[4 * tid + 2] + part1[4 * tid + 3];
          const unsigned long long t2 = part2[4 * tid] + part2[4 * tid + 1] + part2[4 * tid + 2] + part2[4 * tid + 3];
          if (t1)
            {
              atomicAdd (&args.sum[r], t1);
              atomicAdd (&args.sum2[r], t2);
            }
        }
    }
}

/* ---------------------------------------------------------------- 5. CRT */

/* X from its residues through the CRT basis rather than Garner's mixed radix, whose O(N²) modular
 * reductions per element made this pass bound by integer division.  With M_t = M/m_t and
 * e_t = M_t·(M_t^-1 mod m_t) (e_t ≡ 1 mod m_t, ≡ 0 mod the other moduli, e_t < M),
 *   S = Σ_t r_t·e_t ≡ X (mod M),   0 ≤ S < N·256·M,
 * and the symmetric X = S − k·M with k = ceil(S/M − 1/2).  S is summed exactly in 64-bit columns
 * of 32-bit limbs (r_t·e_t[l] < 2^40, at most 24 terms: < 2^45): multiply-adds only.  k comes from
 * a double estimate of S/M whose error stays below 2^-30; where S/M − 1/2 lies within 2^-20 of an
 * integer (X within about 2^-20·M of ±M/2) an exact comparison with M settles it.  So X is exact,
 * as Garner's, and its one rounding gives the CPU's bits. */
constexpr int CRT_LIMBS = 6; /* M < 2^190 (24 moduli of at most 8 bits) */
constexpr int CRT_DP_COLUMNS = 4; /* columns of S summed on the FP64 pipe (crt_entry) */

struct crt_args
{
  const uint8_t *r;
  int64_t r_plane, m, n;
  unsigned e[TILEMM_EMU_MAX_MODULI][CRT_LIMBS]; /* the CRT basis e_t, 32-bit limbs */
  double ed[TILEMM_EMU_MAX_MODULI][CRT_LIMBS];  /* the same limbs as doubles */
  unsigned M[CRT_LIMBS];                        /* the product of the moduli */
  double scale; /* 2^(32·b)/M, b = max(0, L − 3): S/M ≈ (columns b… of S)·scale */
  const int *ea, *eb;
  int shift; /* pa + pb */
  void *c;
  int64_t ldc;
  int step; /* C(i, j) at c[(i + j·ldc)·step]: 2 for a part of complex C */
};

/* The 32-bit limbs of N moduli's M: each modulus ≤ 256 so M < 2^(8N); the host checks that the
 * top one is nonzero (the estimate of S/M counts on M ≥ 2^(32(L−1))). */
__host__ __device__ constexpr int crt_limbs (int N) { return (N + 3) / 4; }

/* Limb i of x by selects (a run-time index would put x in local memory). */
__host__ __device__ __forceinline__ unsigned long long limb (const unsigned long long (&x)[3], int i)
{
  return i == 0 ? x[0] : i == 1 ? x[1] : i == 2 ? x[2] : 0ull;
}

/* Bits [s, s+64) of the 192-bit x (0 ≤ s < 192). */
__host__ __device__ __forceinline__ unsigned long long bits_at (const unsigned long long (&x)[3], int s)
{
  const int i = s / 64, o = s % 64;
  unsigned long long v = limb (x, i) >> o;
  if (o)
    v |= limb (x, i + 1) << (64 - o);
  return v;
}

/* (neg ? −1 : 1)·mag·2^e rounded once to a binary format of `mant` significand bits and
 * exponents emin…emax (53, −1022, 1023 for double; 24, −126, 127 for single), as a double. */
__host__ __device__ __forceinline__ double round_big (const unsigned long long (&mag)[3], bool neg,
                                                      int e, int mant, int emin, int emax)
{
  int nb = 0;
  for (int i = 2; i >= 0; i--)
    if (mag[i])
      {
#ifdef __CUDA_ARCH__
        nb = 64 * i + 64 - __clzll ((long long) mag[i]);
#else
        nb = 64 * i + 64 - __builtin_clzll (mag[i]);
#endif
        break;
      }
  if (nb == 0)
    return neg ? -0.0 : 0.0;
  const long E = (long) nb - 1 + e;
  if (E > emax)
    return neg ? -INFINITY : INFINITY;
  long prec = mant;
  if (E < emin)
    prec = E - emin + mant;
  if (prec < 0)
    return neg ? -0.0 : 0.0;
  const long drop = nb - prec;
  double r;
  if (drop <= 0)
    r = ldexp ((double) mag[0], e); /* nb ≤ prec ≤ 53: exact */
  else
    {
      unsigned long long q = prec == 0 ? 0ull : bits_at (mag, (int) drop) & ((1ull << prec) - 1);
      const int hb = (int) drop - 1;
      const unsigned long long w = limb (mag, hb / 64);
      const bool half = (w >> (hb % 64)) & 1u;
      bool sticky = (w & ((1ull << (hb % 64)) - 1)) != 0;
      sticky |= (hb / 64 > 0 && mag[0]) || (hb / 64 > 1 && mag[1]);
      if (half && (sticky || (q & 1u)))
        q++;
      r = ldexp ((double) q, (int) (e + drop)); /* exact, or the overflow rounding gives */
    }
  return neg ? -r : r;
}

#ifdef __CUDACC__
#define TILEMM_NOINLINE __noinline__
#else
#define TILEMM_NOINLINE __attribute__ ((noinline))
#endif

/* The rare roundings (a subnormal result) out of line: four copies of round_big per thread would
 * only crowd the instruction cache. */
__device__ TILEMM_NOINLINE double crt_round_slow (unsigned long long x0, unsigned long long x1,
                                                  unsigned long long x2, bool neg, int e, int mant,
                                                  int emin, int emax)
{
  const unsigned long long mag[3] = { x0, x1, x2 };
  return round_big (mag, neg, e, mant, emin, emax);
}

__device__ __forceinline__ unsigned float_bits (float f)
{
#ifdef __CUDA_ARCH__
  return __float_as_uint (f);
#else
  union { float f; unsigned u; } bits = { f };
  return bits.u;
#endif
}
__device__ __forceinline__ float bits_float (unsigned u)
{
#ifdef __CUDA_ARCH__
  return __uint_as_float (u);
#else
  union { unsigned u; float f; } bits = { u };
  return bits.f;
#endif
}

/* The sign of 2·D + s·M (s = ±1), D = hi·2^(32L) + Σ D[l]·2^(32l). */
template <int L>
__device__ __forceinline__ int crt_cmp2 (const unsigned (&D)[L], long long hi, const crt_args &a, int s)
{
  long long c = 0;
  unsigned nz = 0;
#pragma unroll
  for (int l = 0; l < L; l++)
    {
      const long long v = 2 * (long long) D[l] + s * (long long) a.M[l] + c;
      nz |= (unsigned) v;
      c = v >> 32;
    }
  const long long top = 2 * hi + c;
  return top < 0 ? -1 : (top > 0 || nz) ? 1 : 0;
}

/* D += s·M. */
template <int L>
__device__ __forceinline__ void crt_add (unsigned (&D)[L], long long &hi, const crt_args &a, int s)
{
  long long c = 0;
#pragma unroll
  for (int l = 0; l < L; l++)
    {
      const long long v = (long long) D[l] + s * (long long) a.M[l] + c;
      D[l] = (unsigned) v;
      c = v >> 32;
    }
  hi += c;
}

/* b < 2^32 as a double: the bits of 2^52 + b, less 2^52 (one add on the FP64 pipe instead of a
 * conversion). */
__device__ __forceinline__ double small_double (unsigned b)
{
#ifdef __CUDA_ARCH__
  return __hiloint2double (0x43300000, (int) b) - 0x1p52;
#else
  return (double) b;
#endif
}

/* One element: bytes u of w[t] are its residues; X·2^e rounded once (to OUT).  The top DPC
 * columns of S are summed in doubles (exact: below 2^45), the others in 64-bit integers, so that
 * the multiply-adds share the FP64 and the integer pipes. */
template <int N, typename OUT, int DPC>
__device__ __forceinline__ OUT crt_entry (const unsigned (&w)[N], int u, const crt_args &a, int e)
{
  constexpr int L = crt_limbs (N);
  constexpr int LI = DPC < L ? L - DPC : 0; /* columns l < LI in integers */
  /* S in columns */
  unsigned long long acc[L];
  double accd[L];
#pragma unroll
  for (int l = 0; l < L; l++)
    {
      acc[l] = 0;
      accd[l] = 0.0;
    }
#pragma unroll
  for (int t = 0; t < N; t++)
    {
      const unsigned b = (w[t] >> (8 * u)) & 0xffu;
      const double bd = LI < L ? small_double (b) : 0.0;
#pragma unroll
      for (int l = 0; l < L; l++)
        if (l < LI)
          acc[l] += (unsigned long long) b * a.e[t][l];
        else
          accd[l] = fma (bd, a.ed[t][l], accd[l]);
    }
  /* k from S/M: the columns below b add less than 2^-51 to it, the roundings less than 2^-36 */
  constexpr int b = L > 3 ? L - 3 : 0;
  double F = L - 1 < LI ? (double) acc[L - 1] : accd[L - 1];
#pragma unroll
  for (int l = L - 2; l >= b; l--)
    F = fma (F, 0x1p32, l < LI ? (double) acc[l] : accd[l]);
  const double g = F * a.scale - 0.5;
  const double kd = ceil (g);
  const double gap = kd - g; /* in [0, 1) */
  const unsigned k = (unsigned) kd;
  /* D = S − k·M, signed: D = hi·2^(32L) + Σ D[l]·2^(32l) */
  unsigned D[L];
  long long hi = 0;
#pragma unroll
  for (int l = 0; l < L; l++)
    {
      const unsigned long long col = l < LI ? acc[l] : (unsigned long long) accd[l];
      const long long v = (long long) col - (long long) ((unsigned long long) k * a.M[l]) + hi;
      D[l] = (unsigned) v;
      hi = v >> 32;
    }
  if (!(gap > 0x1p-20 && gap < 1.0 - 0x1p-20))
    {
      /* k may be off by one: bring D into (−M/2, M/2] exactly */
      if (crt_cmp2<L> (D, hi, a, -1) > 0)
        crt_add<L> (D, hi, a, -1);
      else if (crt_cmp2<L> (D, hi, a, 1) <= 0)
        crt_add<L> (D, hi, a, 1);
    }
  const bool neg = hi < 0;
  if (neg) /* the magnitude: −D over L limbs */
    {
      unsigned long long c = 1;
#pragma unroll
      for (int l = 0; l < L; l++)
        {
          c += (unsigned long long) (~D[l]);
          D[l] = (unsigned) c;
          c >>= 32;
        }
    }
  unsigned long long x[3];
#pragma unroll
  for (int q = 0; q < 3; q++)
    x[q] = (2 * q < L ? (unsigned long long) D[2 * q < L ? 2 * q : 0] : 0ull)
           | (2 * q + 1 < L ? (unsigned long long) D[2 * q + 1 < L ? 2 * q + 1 : 0] << 32 : 0ull);

  /* One rounding: the top 64 bits with a sticky bit for the rest, converted to nearest (the
   * conversion's rounding is the right one: at least 11 bits lie below the last kept one and the
   * sticky bit stands for everything below the window), then the exponent moved; subnormal
   * results take round_big. */
  constexpr bool dbl = sizeof (OUT) == 8;
  constexpr int mant = dbl ? 53 : 24, emin = dbl ? -1022 : -126, emax = dbl ? 1023 : 127;
  unsigned long long th = x[0], tl = 0, tr = 0;
  int bb = 0;
  if (L > 4 && x[2])
    {
      th = x[2]; tl = x[1]; tr = x[0]; bb = 128;
    }
  else if (L > 2 && x[1])
    {
      th = x[1]; tl = x[0]; bb = 64;
    }
  if (th == 0)
    return (OUT) 0;
  const int s = __clzll ((long long) th);
  const int nb = bb + 64 - s;
  const int E = nb - 1 + e;
  if (E > emax)
    return neg ? (OUT) -INFINITY : (OUT) INFINITY;
  if (E < emin)
    return (OUT) crt_round_slow (x[0], x[1], x[2], neg, e, mant, emin, emax);
  unsigned long long top = th;
  int z = e;
  if (bb)
    {
      top = (th << s) | (s ? tl >> (64 - s) : 0ull);
      top |= ((tl << s) | tr) != 0 ? 1ull : 0ull;
      z = e + nb - 64;
    }
  OUT r;
  if constexpr (dbl)
    {
      const long long bits = __double_as_longlong ((double) top);
      if ((int) (bits >> 52) - 1023 + z > emax) /* rounded up past the largest double */
        return neg ? (OUT) -INFINITY : (OUT) INFINITY;
      r = __longlong_as_double ((long long) ((unsigned long long) bits + ((unsigned long long) (long long) z << 52)));
    }
  else
    {
      const unsigned bits = float_bits ((float) top);
      if ((int) (bits >> 23) - 127 + z > emax)
        return neg ? (OUT) -INFINITY : (OUT) INFINITY;
      r = bits_float (bits + ((unsigned) z << 23));
    }
  return neg ? -r : r;
}

/* Four consecutive elements of a column per thread: one 32-bit load per residue plane where the
 * planes' rows are whole words (m a multiple of 4), else bytes. */
template <int N, typename OUT, int DPC = CRT_DP_COLUMNS>
__global__ void __launch_bounds__ (256) crt_kernel (crt_args a)
{
  const int64_t m = a.m;
  const int64_t i0 = 4 * ((int64_t) blockIdx.x * blockDim.x + threadIdx.x);
  if (i0 >= m)
    return;
  const bool whole = i0 + 4 <= m, words = (m & 3) == 0;
  int ea[4];
#pragma unroll
  for (int u = 0; u < 4; u++)
    ea[u] = i0 + u < m ? a.ea[i0 + u] : TILEMM_EMU_ZERO_ROW;
  for (int64_t j = blockIdx.y; j < a.n; j += gridDim.y)
    {
      const int eb = a.eb[j];
      OUT out[4] = { (OUT) 0, (OUT) 0, (OUT) 0, (OUT) 0 };
      if (eb != TILEMM_EMU_ZERO_ROW)
        {
          const uint8_t *const rp = a.r + i0 + j * m;
          unsigned w[N];
#pragma unroll
          for (int t = 0; t < N; t++)
            if (words)
              w[t] = *reinterpret_cast<const unsigned *> (rp + t * a.r_plane);
            else
              {
                w[t] = 0;
                for (int u = 0; u < 4; u++)
                  if (i0 + u < m)
                    w[t] |= (unsigned) rp[t * a.r_plane + u] << (8 * u);
              }
          /* the four elements one after another (not unrolled: interleaved, they would need
           * four sets of columns in registers) */
#pragma unroll 1
          for (int u = 0; u < 4; u++)
            {
              const int eu = u == 0 ? ea[0] : u == 1 ? ea[1] : u == 2 ? ea[2] : ea[3];
              OUT v = (OUT) 0;
              if (eu != TILEMM_EMU_ZERO_ROW)
                v = crt_entry<N, OUT, DPC> (w, u, a, eu + eb - a.shift);
              out[0] = u == 0 ? v : out[0];
              out[1] = u == 1 ? v : out[1];
              out[2] = u == 2 ? v : out[2];
              out[3] = u == 3 ? v : out[3];
            }
        }
      OUT *const c = (OUT *) a.c + (i0 + j * a.ldc) * a.step;
      if (whole && a.step == 1 && ((uintptr_t) c & 15) == 0)
        {
          if constexpr (sizeof (OUT) == 8)
            {
              reinterpret_cast<double2 *> (c)[0] = make_double2 (out[0], out[1]);
              reinterpret_cast<double2 *> (c)[1] = make_double2 (out[2], out[3]);
            }
          else
            *reinterpret_cast<float4 *> (c) = make_float4 (out[0], out[1], out[2], out[3]);
        }
      else
        for (int u = 0; u < 4; u++)
          if (i0 + u < m)
            c[u * a.step] = out[u];
    }
}

} // namespace tilemm_emu_gpu

#endif /* TILEMM_EMULATED_KERNELS_CUH */
