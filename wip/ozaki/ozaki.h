/* ozaki.h -- CPU reference of Ozaki scheme II (INT8 residues + CRT) for
 * double-precision C = A*B.  Work-in-progress for tilemm issue 11; see
 * README.md in this directory.  Plain C11 + GCC's unsigned __int128.
 *
 * Layout: A is m x k column-major with leading dimension lda, B is k x n
 * column-major with ldb, C is m x n column-major with ldc (BLAS "NN").
 * Internally the int8 operands are stored K-major for BOTH A and B (the
 * "TN" layout the GPU kernel will use): row i of A is contiguous along k,
 * column j of B is contiguous along k.
 */
#ifndef TILEMM_OZAKI_H
#define TILEMM_OZAKI_H

#include <stddef.h>
#include <stdint.h>

/* return codes of oz_dgemm */
enum {
  OZ_OK        = 0,
  OZ_NONFINITE = 1,  /* A or B has NaN/Inf: C untouched, caller must use native */
  OZ_RANGE     = 2,  /* data needs more bits/moduli than allowed: C untouched,
                        caller must use native (never a silently worse answer) */
  OZ_NOMEM     = -1,
  OZ_BADARG    = -2
};

#define OZ_MAX_MODULI 24      /* length of the built-in moduli table */
#define OZ_PMAX       62      /* max bits of a scaled integer (stored in int64) */
/* int8 symmetric residues lie in [-128,127]; |r_a*r_b| <= 2^14, so an int32
 * accumulator is exact for at most floor((2^31-1)/2^14) = 131071 terms. */
#define OZ_KCHUNK_MAX 131071

typedef struct {
  int nmoduli;     /* 0: automatic (accuracy-driven); >0: force this many
                      moduli, bit widths derived from it, NO accuracy check   */
  int target_bits; /* 53 = double-accurate (default), 24 = single-accurate   */
  int guard_bits;  /* extra bits beyond target in the automatic rule (def. 1) */
  int max_moduli;  /* automatic mode gives OZ_RANGE beyond this (def. 20)    */
  int kchunk;      /* int32 accumulation chunk along k (def./max 131071)     */
  int rebalance;   /* 1 (default): exact power-of-two inner-dimension
                      rebalancing A*B = (A D^-1)(D B) before scaling         */
} oz_opts;

typedef struct {
  int nmod;        /* moduli used */
  int pA, pB;      /* bit widths: |scaled A| < 2^pA, |scaled B| < 2^pB      */
  double log2M;    /* log2 of the product of the moduli used                */
  double log2need; /* log2 of 2*bound(|sum a'b'|) that M had to exceed      */
  double ratioA, ratioB; /* accuracy-planner ratios (automatic mode)        */
  int rebalanced;  /* 1 if the inner-dimension rebalanced operands were used */
} oz_info;

void oz_default_opts(oz_opts *o);

/* C = A*B.  Returns OZ_* code; C is written only when OZ_OK. */
int oz_dgemm(int m, int n, int k,
             const double *A, int lda, const double *B, int ldb,
             double *C, int ldc, const oz_opts *opts, oz_info *info);

/* complex C = A*B, interleaved (re,im) column-major, leading dimensions in
 * complex elements; each part of C rounded once (see ozaki.c).  C is
 * written only when OZ_OK. */
int oz_zgemm(int m, int n, int k, const double *A, int lda, const double *B, int ldb,
             double *C, int ldc, const oz_opts *opts, oz_info *info);

/* ---- building blocks, exported for the tests and as a spec for the GPU ---- */

/* the moduli table (pairwise coprime, <= 256, largest first) */
extern const int oz_moduli[OZ_MAX_MODULI];

/* symmetric int8 residue of x mod m, in [-128,127] (m <= 256) */
int8_t oz_residue_s8(int64_t x, int m);

/* Exact residue GEMM for one modulus: Ra is m x k K-major (row i at Ra+i*k),
 * Rb is n x k K-major (column j at Rb+j*k).  Out[i + j*m] = (Ra*Rb^T)_{ij}
 * mod mod, in [0,mod).  int8*int8 -> int32 within chunks of kchunk terms,
 * chunk sums reduced mod `mod` into an int64 -- exactly what the GPU
 * kernel does per tile.  If full != NULL it also receives the exact
 * (unreduced) int64 sums, for testing. */
void oz_gemm_s8_mod(int m, int n, int k, const int8_t *Ra, const int8_t *Rb,
                    int mod, int kchunk, int32_t *Out, int64_t *full);

/* Garner CRT of nmod residues res[l] in [0,m_l) (moduli oz_moduli[0..nmod)),
 * symmetric reconstruction X in (-M/2, M/2], then correctly rounded (one
 * rounding, round-to-nearest-even, subnormals included) double of X*2^e. */
double oz_crt_to_double(const int32_t *res, int nmod, int e);

/* correctly rounded double of (neg ? -1 : 1) * mag * 2^e, mag = 4 x 64-bit
 * little-endian limbs.  Exported for tests. */
double oz_big_to_double(const uint64_t mag[4], int neg, int e);

#endif
