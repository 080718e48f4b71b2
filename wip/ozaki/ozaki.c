/* ozaki.c -- CPU reference of Ozaki scheme II (Ozaki, Uchino, Imamura,
 * arXiv 2504.08009 / 2508.03984) for double C = A*B.  tilemm issue 11 WIP.
 *
 * Pipeline (one call of oz_dgemm):
 *   0. non-finite scan: any NaN/Inf in A or B -> OZ_NONFINITE (caller runs
 *      the native product, which gives NaN/Inf exactly as `*` does).
 *   1. per-row exponent eR_i of A (max_p |a_ip| < 2^eR_i), per-column eC_j of B.
 *   2. bit widths pA, pB (how many bits each scaled integer keeps), see
 *      plan_auto() for the accuracy rule and its derivation.
 *   3. scaling by powers of two and truncation toward zero:
 *        a'_ip = trunc(a_ip * 2^s_i),  s_i = pA - eR_i   => |a'_ip| < 2^pA
 *        b'_pj = trunc(b_pj * 2^t_j),  t_j = pB - eC_j   => |b'_pj| < 2^pB
 *   4. number of moduli N: the product M of the first N moduli must exceed
 *      2*max_ij |sum_p a'_ip b'_pj|  (symmetric reconstruction in (-M/2,M/2)
 *      is then unique).  Bound used (Cauchy-Schwarz, as in the paper):
 *        |sum_p a'_ip b'_pj| <= ||a'_i||_2 ||b'_j||_2
 *                            <= 2^s_i ||a_i||_2 * 2^t_j ||b_j||_2
 *                             = 2^(pA+pB) * ||a_i 2^-eR_i||_2 * ||b_j 2^-eC_j||_2
 *                            <= 2^(pA+pB) * nuA * nuB ,
 *      nuA = max_i ||a_i 2^-eR_i||_2 <= sqrt(k) (likewise nuB), so
 *        need  log2 M > 1 + pA + pB + log2(nuA*nuB)   (+ tiny safety).
 *      For N(0,1) data nuA ~ sqrt(k)/4, i.e. log2(k)/2 - 2 bits.
 *   5. residues r = a' mod m_l in symmetric int8 form [-128,127], K-major.
 *   6. per modulus: exact int8 x int8 -> int32 products, int32 accumulation
 *      in chunks of <= 131071 terms (128*128*131071 < 2^31), chunk sums
 *      reduced mod m_l (oz_gemm_s8_mod).
 *   7. per entry: Garner mixed-radix CRT with small-integer arithmetic only,
 *      mixed-radix digits -> 256-bit integer X, symmetric X in (-M/2, M/2],
 *      then ONE correctly rounded conversion of X * 2^-(s_i+t_j) to double
 *      (unscaling folded into the rounding, so subnormal results are also
 *      rounded once).
 *
 * Since the integer product is exact and the final conversion rounds once,
 * the only errors are the truncations of step 3 and the final rounding:
 *   |C_oz - C| <= u*|C_exact'| + |dA||B| + |A||dB|     (dA = A - A'2^-s, |dA|<=|A|)
 * (a b - a'b' = da*b + a'*db with |a'| <= |a|, no cross term.)
 */
#include "ozaki.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef unsigned __int128 u128;

/* pairwise coprime, all <= 256 so symmetric residues fit in int8:
 * 256=2^8, 255=3*5*17, 253=11*23, 247=13*19, 217=7*31, the rest prime. */
const int oz_moduli[OZ_MAX_MODULI] = {
  256, 255, 253, 251, 247, 241, 239, 233, 229, 227, 223, 217,
  211, 199, 197, 193, 191, 181, 179, 173, 167, 163, 157, 151 };

/* ---------------------------------------------------------------- bigint */
/* non-negative integers as 4 x 64-bit limbs, little endian (256 bits; the
 * full 24-moduli product is < 2^190). */
typedef struct { uint64_t w[4]; } big;

static void big_set_small(big *x, uint64_t v) { memset(x, 0, sizeof *x); x->w[0] = v; }

static void big_mul_add_small(big *x, uint64_t mul, uint64_t add)
{
  u128 carry = add;
  for (int i = 0; i < 4; i++) {
    u128 t = (u128)x->w[i] * mul + carry;
    x->w[i] = (uint64_t)t;
    carry = t >> 64;
  }
}

static int big_cmp(const big *a, const big *b)
{
  for (int i = 3; i >= 0; i--)
    if (a->w[i] != b->w[i]) return a->w[i] < b->w[i] ? -1 : 1;
  return 0;
}

static void big_sub(const big *a, const big *b, big *r) /* r = a - b, a >= b */
{
  uint64_t borrow = 0;
  for (int i = 0; i < 4; i++) {
    uint64_t ai = a->w[i], bi = b->w[i];
    uint64_t d = ai - bi - borrow;
    borrow = (ai < bi) || (ai - bi < borrow);
    r->w[i] = d;
  }
}

static int bit_at(const uint64_t w[4], int i)
{
  if (i < 0 || i >= 256) return 0;
  return (int)((w[i >> 6] >> (i & 63)) & 1u);
}

static int bitlen(const uint64_t w[4])
{
  for (int i = 3; i >= 0; i--)
    if (w[i]) return 64 * i + 64 - __builtin_clzll(w[i]);
  return 0;
}

double oz_big_to_double(const uint64_t mag[4], int neg, int e)
{
  int nb = bitlen(mag);
  if (nb == 0) return neg ? -0.0 : 0.0;
  /* value in [2^(nb-1+e), 2^(nb+e)); binary exponent E = nb-1+e */
  long E = (long)nb - 1 + e;
  long prec = 53;                              /* significand bits available */
  if (E < -1022) prec = E + 1075;              /* subnormal range            */
  if (E > 1023) return neg ? -HUGE_VAL : HUGE_VAL;
  long drop = nb - prec;                       /* low bits to round away     */
  double r;
  if (drop <= 0) {                             /* fits exactly               */
    uint64_t q = 0;
    for (int i = nb - 1; i >= 0; i--) q = (q << 1) | (uint64_t)bit_at(mag, i);
    r = ldexp((double)q, e);
  } else {
    uint64_t q = 0;
    for (long i = nb - 1; i >= drop; i--) q = (q << 1) | (uint64_t)bit_at(mag, (int)i);
    int half = bit_at(mag, (int)(drop - 1 < 300 ? drop - 1 : 300));
    int sticky = 0;
    for (long i = 0; i < drop - 1 && i < 256; i++)
      if (bit_at(mag, (int)i)) { sticky = 1; break; }
    if (half && (sticky || (q & 1u))) q++;     /* round to nearest even      */
    /* q <= 2^53 and q*2^(e+drop) is representable: ldexp is exact (or
     * overflows to Inf exactly when round-to-nearest would). */
    r = ldexp((double)q, (int)(e + drop));
  }
  return neg ? -r : r;
}

/* ----------------------------------------------------------- CRT tables */
static int garner_c[OZ_MAX_MODULI];  /* (m_0*...*m_{t-1})^{-1} mod m_t   */
static big prefixM[OZ_MAX_MODULI + 1]; /* prefixM[N] = m_0*...*m_{N-1}    */
static double log2M[OZ_MAX_MODULI + 1];
static int tables_ready = 0;

static int inv_mod(int a, int m)   /* a^{-1} mod m, gcd(a,m)=1 */
{
  int t = 0, nt = 1, r = m, nr = ((a % m) + m) % m;
  while (nr) {
    int q = r / nr, tmp;
    tmp = t - q * nt; t = nt; nt = tmp;
    tmp = r - q * nr; r = nr; nr = tmp;
  }
  if (r != 1) return -1;
  return ((t % m) + m) % m;
}

static void init_tables(void)
{
  if (tables_ready) return;
  big_set_small(&prefixM[0], 1);
  log2M[0] = 0.0;
  for (int t = 0; t < OZ_MAX_MODULI; t++) {
    int mt = oz_moduli[t];
    int pm = 1;                               /* prefix product mod m_t */
    for (int s = 0; s < t; s++) pm = (pm * oz_moduli[s]) % mt;
    garner_c[t] = t ? inv_mod(pm, mt) : 1;
    prefixM[t + 1] = prefixM[t];
    big_mul_add_small(&prefixM[t + 1], (uint64_t)mt, 0);
    log2M[t + 1] = log2M[t] + log2((double)mt);
  }
  tables_ready = 1;
}

double oz_crt_to_double(const int32_t *res, int nmod, int e)
{
  init_tables();
  int v[OZ_MAX_MODULI];
  /* Garner: X = v0 + v1*m0 + v2*m0*m1 + ..., 0 <= v_t < m_t.  Only small
   * integer arithmetic (products < 2^16): maps 1:1 to GPU int32 code. */
  for (int t = 0; t < nmod; t++) {
    int mt = oz_moduli[t];
    int x = ((res[t] % mt) + mt) % mt;
    if (t == 0) { v[0] = x; continue; }
    int tmp = v[t - 1] % mt;                  /* (v0 + v1 m0 + ... ) mod m_t */
    for (int s = t - 2; s >= 0; s--) tmp = (tmp * oz_moduli[s] + v[s]) % mt;
    v[t] = (((x - tmp) % mt + mt) % mt) * garner_c[t] % mt;
  }
  big X; big_set_small(&X, (uint64_t)v[nmod - 1]);
  for (int t = nmod - 2; t >= 0; t--) big_mul_add_small(&X, (uint64_t)oz_moduli[t], (uint64_t)v[t]);
  big X2 = X; big_mul_add_small(&X2, 2, 0);
  if (big_cmp(&X2, &prefixM[nmod]) > 0) {     /* X > M/2: negative value */
    big mag; big_sub(&prefixM[nmod], &X, &mag);
    return oz_big_to_double(mag.w, 1, e);
  }
  return oz_big_to_double(X.w, 0, e);
}

/* ------------------------------------------------------------ residues */
int8_t oz_residue_s8(int64_t x, int m)
{
  int64_t r = x % m;            /* in (-m, m) */
  if (r < 0) r += m;            /* [0, m)     */
  if (r > 127) r -= m;          /* [-128,127] for every m <= 256 */
  return (int8_t)r;
}

void oz_gemm_s8_mod(int m, int n, int k, const int8_t *Ra, const int8_t *Rb,
                    int mod, int kchunk, int32_t *Out, int64_t *full)
{
  if (kchunk <= 0 || kchunk > OZ_KCHUNK_MAX) kchunk = OZ_KCHUNK_MAX;
  for (int j = 0; j < n; j++) {
    const int8_t *b = Rb + (size_t)j * k;
    for (int i = 0; i < m; i++) {
      const int8_t *a = Ra + (size_t)i * k;
      int64_t accmod = 0, acc = 0;
      for (int p0 = 0; p0 < k; p0 += kchunk) {
        int pe = p0 + kchunk < k ? p0 + kchunk : k;
        int32_t s = 0;                          /* the mma.sync accumulator */
        for (int p = p0; p < pe; p++) s += (int32_t)a[p] * (int32_t)b[p];
        acc += s;
        accmod = (accmod + s % mod) % mod;      /* per-chunk reduction      */
      }
      if (accmod < 0) accmod += mod;
      Out[i + (size_t)j * m] = (int32_t)accmod;
      if (full) full[i + (size_t)j * m] = acc;
    }
  }
}

/* ------------------------------------------------------------- planner */
void oz_default_opts(oz_opts *o)
{
  o->nmoduli = 0;
  o->target_bits = 53;
  o->guard_bits = 1;
  o->max_moduli = 20;
  o->kchunk = OZ_KCHUNK_MAX;
  o->rebalance = 1;
}

/* Automatic accuracy rule.  Truncation toward zero on the grid 2^-s_i gives
 * |da_ip| < 2^-s_i = 2^(eR_i - pA) and da_ip = 0 where a_ip = 0, hence
 *   (|dA||B|)_ij <= 2^-pA * 2^eR_i * sum_{p: a_ip != 0} |b_pj|
 *               =  2^-pA * ratioA_ij * (|A||B|)_ij,
 *   ratioA_ij = 2^eR_i * sum_{a_ip!=0}|b_pj| / sum_p |a_ip||b_pj|  (>= 1).
 * Requiring 2^-pA * max ratioA <= 2^-(t+1+g) (and the same for B) gives
 *   |C_oz - C| <= u|C| + 2^-(t+g) (|A||B|)   (t = target bits, g = guard),
 * i.e. for t = 53 never worse than the worst-case bound gamma_k |A||B| of
 * the native product (k >= 2).  pA = ceil(t + 1 + g + log2 max ratioA).
 * The ratios are computed here in double from the 2^-eR / 2^-eC scaled
 * data (O(mnk), REFERENCE ONLY -- the GPU path needs a cheaper estimate,
 * see README).  Underflow in these sums only makes them more conservative;
 * a zero denominator with a nonzero numerator means "unbounded" -> RANGE. */
static int plan_ratios(int m, int n, int k, const double *A, int lda,
                       const double *B, int ldb, const int *eR, const int *eC,
                       double *ratioA, double *ratioB)
{
  double ra = 1.0, rb = 1.0;
  double *ah = malloc(sizeof(double) * (size_t)k);
  double *bh = malloc(sizeof(double) * (size_t)k * (size_t)n);
  if (!ah || !bh) { free(ah); free(bh); return OZ_NOMEM; }
  for (int j = 0; j < n; j++)
    for (int p = 0; p < k; p++)
      bh[p + (size_t)j * k] = fabs(ldexp(B[p + (size_t)j * ldb], -eC[j]));
  for (int i = 0; i < m; i++) {
    for (int p = 0; p < k; p++) ah[p] = fabs(ldexp(A[i + (size_t)p * lda], -eR[i]));
    for (int j = 0; j < n; j++) {
      const double *b = bh + (size_t)j * k;
      double S = 0, TA = 0, TB = 0;
      for (int p = 0; p < k; p++) {
        double a = ah[p], bb = b[p];
        S += a * bb;
        if (A[i + (size_t)p * lda] != 0) TA += bb;
        if (B[p + (size_t)j * ldb] != 0) TB += a;
      }
      if (S == 0) {
        if (TA > 0 || TB > 0) { ra = rb = INFINITY; goto done; }
        continue;
      }
      if (TA / S > ra) ra = TA / S;
      if (TB / S > rb) rb = TB / S;
    }
  }
done:
  free(ah); free(bh);
  /* floating-point slack of the sums themselves (relative ~k*2^-53) */
  *ratioA = ra * (1 + 0x1p-20);
  *ratioB = rb * (1 + 0x1p-20);
  return OZ_OK;
}

/* ---------------------------------------------------------------- main */
static int oz_dgemm_core(int m, int n, int k,
             const double *A, int lda, const double *B, int ldb,
             double *C, int ldc, const oz_opts *opts, oz_info *info,
             int plan_only)
{
  oz_opts o;
  oz_info inf;
  memset(&inf, 0, sizeof inf);
  if (opts) o = *opts; else oz_default_opts(&o);
  if (m < 0 || n < 0 || k < 0 || lda < (m > 1 ? m : 1) || ldb < (k > 1 ? k : 1)
      || ldc < (m > 1 ? m : 1) || o.nmoduli < 0 || o.nmoduli > OZ_MAX_MODULI
      || o.max_moduli < 1 || o.max_moduli > OZ_MAX_MODULI)
    return OZ_BADARG;
  init_tables();
  if (m == 0 || n == 0) { if (info) *info = inf; return OZ_OK; }

  /* 0. non-finite inputs -> caller falls back to the native product */
  for (int p = 0; p < k; p++)
    for (int i = 0; i < m; i++) if (!isfinite(A[i + (size_t)p * lda])) return OZ_NONFINITE;
  for (int j = 0; j < n; j++)
    for (int p = 0; p < k; p++) if (!isfinite(B[p + (size_t)j * ldb])) return OZ_NONFINITE;

  if (k == 0) {
    for (int j = 0; j < n; j++) for (int i = 0; i < m; i++) C[i + (size_t)j * ldc] = 0.0;
    if (info) *info = inf;
    return OZ_OK;
  }

  int rc = OZ_NOMEM;
  int *eR = malloc(sizeof(int) * (size_t)m), *eC = malloc(sizeof(int) * (size_t)n);
  int64_t *Ai = NULL, *Bi = NULL;
  int8_t *Ra = NULL, *Rb = NULL;
  int32_t *Out = NULL;
  if (!eR || !eC) goto out;

  /* 1. row / column exponents and scaled 2-norms */
  double nuA = 0, nuB = 0;
  for (int i = 0; i < m; i++) {
    double R = 0;
    for (int p = 0; p < k; p++) { double v = fabs(A[i + (size_t)p * lda]); if (v > R) R = v; }
    int e = 0;
    if (R > 0) frexp(R, &e);                 /* R < 2^e */
    eR[i] = e;
    double s2 = 0;
    for (int p = 0; p < k; p++) { double v = ldexp(A[i + (size_t)p * lda], -e); s2 += v * v; }
    if (sqrt(s2) > nuA) nuA = sqrt(s2);
  }
  for (int j = 0; j < n; j++) {
    double R = 0;
    for (int p = 0; p < k; p++) { double v = fabs(B[p + (size_t)j * ldb]); if (v > R) R = v; }
    int e = 0;
    if (R > 0) frexp(R, &e);
    eC[j] = e;
    double s2 = 0;
    for (int p = 0; p < k; p++) { double v = ldexp(B[p + (size_t)j * ldb], -e); s2 += v * v; }
    if (sqrt(s2) > nuB) nuB = sqrt(s2);
  }
  if (nuA == 0 || nuB == 0) {               /* A or B is all zeros */
    for (int j = 0; j < n; j++) for (int i = 0; i < m; i++) C[i + (size_t)j * ldc] = 0.0;
    if (info) *info = inf;
    rc = OZ_OK; goto out;
  }
  /* slack for rounding in the norm sums (relative <= ~k 2^-53) */
  double lognu = log2(nuA) + log2(nuB) + 0x1p-20;

  /* 2./4. bit widths and number of moduli */
  int pA, pB, N;
  if (o.nmoduli == 0) {
    rc = plan_ratios(m, n, k, A, lda, B, ldb, eR, eC, &inf.ratioA, &inf.ratioB);
    if (rc != OZ_OK) goto out;
    rc = OZ_RANGE;
    if (!isfinite(inf.ratioA) || !isfinite(inf.ratioB)) goto out;
    int base = o.target_bits + 1 + o.guard_bits;
    pA = base + (int)ceil(log2(inf.ratioA));
    pB = base + (int)ceil(log2(inf.ratioB));
    if (pA > OZ_PMAX || pB > OZ_PMAX) goto out;
    inf.log2need = 1.0 + pA + pB + lognu;
    for (N = 1; N <= o.max_moduli; N++) if (log2M[N] > inf.log2need + 1e-9) break;
    if (N > o.max_moduli) goto out;
  } else {
    N = o.nmoduli;
    int p = (int)floor((log2M[N] - 1e-9 - 1.0 - lognu) / 2.0);
    if (p > OZ_PMAX) p = OZ_PMAX;
    rc = OZ_RANGE;
    if (p < 1) goto out;
    pA = pB = p;
    inf.log2need = 1.0 + pA + pB + lognu;
  }
  inf.nmod = N; inf.pA = pA; inf.pB = pB; inf.log2M = log2M[N];
  if (plan_only) { rc = OZ_OK; if (info) *info = inf; goto out; }

  /* 3. scale + truncate (K-major integer copies) */
  rc = OZ_NOMEM;
  Ai = malloc(sizeof(int64_t) * (size_t)m * k);
  Bi = malloc(sizeof(int64_t) * (size_t)n * k);
  Ra = malloc((size_t)N * m * k);
  Rb = malloc((size_t)N * n * k);
  Out = malloc(sizeof(int32_t) * (size_t)N * m * n);
  if (!Ai || !Bi || !Ra || !Rb || !Out) goto out;
  for (int i = 0; i < m; i++)
    for (int p = 0; p < k; p++)
      Ai[(size_t)i * k + p] = (int64_t)trunc(ldexp(A[i + (size_t)p * lda], pA - eR[i]));
  for (int j = 0; j < n; j++)
    for (int p = 0; p < k; p++)
      Bi[(size_t)j * k + p] = (int64_t)trunc(ldexp(B[p + (size_t)j * ldb], pB - eC[j]));

  /* 5./6. residues and exact residue products, one modulus at a time */
  for (int l = 0; l < N; l++) {
    int ml = oz_moduli[l];
    int8_t *ra = Ra + (size_t)l * m * k, *rb = Rb + (size_t)l * n * k;
    for (size_t q = 0; q < (size_t)m * k; q++) ra[q] = oz_residue_s8(Ai[q], ml);
    for (size_t q = 0; q < (size_t)n * k; q++) rb[q] = oz_residue_s8(Bi[q], ml);
    oz_gemm_s8_mod(m, n, k, ra, rb, ml, o.kchunk, Out + (size_t)l * m * n, NULL);
  }

  /* 7. CRT + one rounding + unscale */
  for (int j = 0; j < n; j++)
    for (int i = 0; i < m; i++) {
      int32_t res[OZ_MAX_MODULI];
      for (int l = 0; l < N; l++) res[l] = Out[(size_t)l * m * n + i + (size_t)j * m];
      int e = -((pA - eR[i]) + (pB - eC[j]));
      C[i + (size_t)j * ldc] = oz_crt_to_double(res, N, e);
    }
  rc = OZ_OK;
  if (info) *info = inf;
out:
  free(eR); free(eC); free(Ai); free(Bi); free(Ra); free(Rb); free(Out);
  if (rc != OZ_OK && info) *info = inf;
  return rc;
}

/* Inner-dimension rebalancing: A*B = (A D^-1)(D B) for D = diag(2^f_p).
 * With f_p = floor((cA_p - rB_p)/2) (cA_p: exponent of max_i |a_ip|,
 * rB_p: exponent of max_j |b_pj|) column p of A and row p of B end up with
 * comparable magnitudes, which removes the exponent spread inside rows of A
 * / columns of B that comes from an inner scaling (A = X D, B = D^-1 Y).
 * The scaling is exact: f_p is set to 0 whenever a nonzero entry would
 * become subnormal or overflow.  On the GPU this costs nothing extra: it
 * folds into the exponent of the scale-and-truncate step
 * (a'_ip = trunc(a_ip * 2^(s_i - f_p))). */
int oz_dgemm(int m, int n, int k,
             const double *A, int lda, const double *B, int ldb,
             double *C, int ldc, const oz_opts *opts, oz_info *info)
{
  oz_opts o;
  if (opts) o = *opts; else oz_default_opts(&o);
  if (!o.rebalance || m <= 0 || n <= 0 || k <= 0 || lda < m || ldb < k)
    return oz_dgemm_core(m, n, k, A, lda, B, ldb, C, ldc, &o, info, 0);
  for (int p = 0; p < k; p++)        /* non-finite check before copying */
    for (int i = 0; i < m; i++) if (!isfinite(A[i + (size_t)p * lda])) return OZ_NONFINITE;
  for (int j = 0; j < n; j++)
    for (int p = 0; p < k; p++) if (!isfinite(B[p + (size_t)j * ldb])) return OZ_NONFINITE;
  double *A2 = malloc(sizeof(double) * (size_t)m * k), *B2 = malloc(sizeof(double) * (size_t)k * n);
  if (!A2 || !B2) { free(A2); free(B2); return OZ_NOMEM; }
  for (int p = 0; p < k; p++) {
    double amax = 0, amin = INFINITY, bmax = 0, bmin = INFINITY;
    for (int i = 0; i < m; i++) {
      double v = fabs(A[i + (size_t)p * lda]);
      if (v > amax) amax = v;
      if (v > 0 && v < amin) amin = v;
    }
    for (int j = 0; j < n; j++) {
      double v = fabs(B[p + (size_t)j * ldb]);
      if (v > bmax) bmax = v;
      if (v > 0 && v < bmin) bmin = v;
    }
    int f = 0;
    if (amax > 0 && bmax > 0) {
      int ea, eb;
      frexp(amax, &ea); frexp(bmax, &eb);
      int d = ea - eb;
      f = d >= 0 ? d / 2 : -((-d + 1) / 2);    /* floor(d/2) */
      /* exactness: every nonzero stays normal and finite */
      int emin_a, emin_b;
      frexp(amin, &emin_a); frexp(bmin, &emin_b);
      if (emin_a - 1 - f < -1021 || ea - f > 1023 || emin_b - 1 + f < -1021 || eb + f > 1023)
        f = 0;
    }
    for (int i = 0; i < m; i++) A2[i + (size_t)p * m] = ldexp(A[i + (size_t)p * lda], -f);
    for (int j = 0; j < n; j++) B2[p + (size_t)j * k] = ldexp(B[p + (size_t)j * ldb], f);
  }
  /* plan both ways (reference: the plans are O(mnk) each) and run the one
   * needing fewer moduli; ties go to the unbalanced original. */
  oz_info i0, i1;
  int rc0 = oz_dgemm_core(m, n, k, A, lda, B, ldb, C, ldc, &o, &i0, 1);
  int rc1 = oz_dgemm_core(m, n, k, A2, m, B2, k, C, ldc, &o, &i1, 1);
  int rc;
  if (rc1 == OZ_OK && (rc0 != OZ_OK || i1.nmod < i0.nmod))
    rc = oz_dgemm_core(m, n, k, A2, m, B2, k, C, ldc, &o, info, 0);
  else
    rc = oz_dgemm_core(m, n, k, A, lda, B, ldb, C, ldc, &o, info, 0);
  if (rc == OZ_OK && info) info->rebalanced = rc1 == OZ_OK && (rc0 != OZ_OK || i1.nmod < i0.nmod);
  free(A2); free(B2);
  return rc;
}

/* Complex product through real Ozaki products, each output part with ONE
 * rounding: embed the sum of two real products in one real product of
 * inner dimension 2k,
 *   Re C = [Ar  -Ai] [Br; Bi],     Im C = [Ar  Ai] [Bi; Br].
 * (Two separate real products then a subtraction would round three times.)
 * A, B, C are interleaved (re,im) column-major, leading dims in complex
 * elements (Octave's layout).  Costs 2 real products of size m x n x 2k,
 * i.e. the same int8 work as 4 real m x n x k products (no 3M trick: it
 * would lose the componentwise bound).  Returns as oz_dgemm; info gets the
 * plan with the larger number of moduli. */
int oz_zgemm(int m, int n, int k, const double *A, int lda, const double *B, int ldb,
             double *C, int ldc, const oz_opts *opts, oz_info *info)
{
  if (m < 0 || n < 0 || k < 0 || lda < (m > 1 ? m : 1) || ldb < (k > 1 ? k : 1)
      || ldc < (m > 1 ? m : 1))
    return OZ_BADARG;
  if (m == 0 || n == 0) { if (info) memset(info, 0, sizeof *info); return OZ_OK; }
  int k2 = 2 * k > 0 ? 2 * k : 1;
  double *X = calloc((size_t)m * k2, sizeof(double)), *Y = malloc(sizeof(double) * (size_t)k2 * n);
  double *R = malloc(sizeof(double) * (size_t)m * n * 2);  /* Re, Im */
  int rc = OZ_NOMEM;
  oz_info i1, i2;
  if (!X || !Y || !R) goto out;
  for (int p = 0; p < k; p++)
    for (int i = 0; i < m; i++) {
      X[i + (size_t)p * m] = A[2 * (i + (size_t)p * lda)];
      X[i + (size_t)(p + k) * m] = -A[2 * (i + (size_t)p * lda) + 1];
    }
  for (int j = 0; j < n; j++)
    for (int p = 0; p < k; p++) {
      Y[p + (size_t)j * k2] = B[2 * (p + (size_t)j * ldb)];
      Y[p + k + (size_t)j * k2] = B[2 * (p + (size_t)j * ldb) + 1];
    }
  rc = oz_dgemm(m, n, 2 * k, X, m, Y, k2, R, m, opts, &i1);
  if (rc != OZ_OK) goto out;
  for (int p = 0; p < k; p++) for (int i = 0; i < m; i++) X[i + (size_t)(p + k) * m] = -X[i + (size_t)(p + k) * m];
  for (int j = 0; j < n; j++)
    for (int p = 0; p < k; p++) {
      double t = Y[p + (size_t)j * k2];
      Y[p + (size_t)j * k2] = Y[p + k + (size_t)j * k2];
      Y[p + k + (size_t)j * k2] = t;
    }
  rc = oz_dgemm(m, n, 2 * k, X, m, Y, k2, R + (size_t)m * n, m, opts, &i2);
  if (rc != OZ_OK) goto out;   /* C untouched */
  for (int j = 0; j < n; j++) for (int i = 0; i < m; i++) {
    C[2 * (i + (size_t)j * ldc)] = R[i + (size_t)j * m];
    C[2 * (i + (size_t)j * ldc) + 1] = R[(size_t)m * n + i + (size_t)j * m];
  }
  if (info) *info = i1.nmod >= i2.nmod ? i1 : i2;
out:
  free(X); free(Y); free(R);
  return rc;
}
