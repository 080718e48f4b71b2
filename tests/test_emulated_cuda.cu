/* tests/test_emulated_cuda.cu — the GPU side of the emulated precision (src/cuda/emulated_scheme.cu
 * on the kernels of src/kernels/emulated_cuda.cu and kernels_imma.cuh) against plain CPU loops, stage by stage and bitwise: exponents, the
 * statistics (lo matrices, sums, ratios), the residues, every modular GEMM plane (against exact
 * int64 sums mod m), the CRT (src/cpu/emulated_cpu.c's tilemm_emu_crt_double; for single
 * a rounding loop of its own), and the whole product against the CPU pipeline under the same plan.
 * Built with nvcc for the GPU (bench/run-emulated.sh) or with g++ on the host emulation of CUDA
 * (tests/emu/run-emulated.sh, under ASan).  Prints "test_emulated_cuda: N passed, N failed".
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 */
#include "../src/kernels/emulated_cuda.cu" /* the launchers and the kernels' tables */
#include "backend.h"
#include "emulated_scheme.h"

#include <vector>

/* The CPU references: src/cpu/emulated_cpu.c's residue and CRT (code of their own, not the kernels'), and
 * the modular GEMM as exact int64 sums reduced once. */
static int8_t oz_residue_s8 (int64_t x, int m)
{
  return tilemm_emu_residue (x, m);
}
static void oz_gemm_s8_mod (int m, int n, int k, const int8_t *ra, const int8_t *rb, int mod,
                            int32_t *out)
{
  for (int j = 0; j < n; j++)
    for (int i = 0; i < m; i++)
      {
        int64_t sum = 0;
        for (int p = 0; p < k; p++)
          sum += (int64_t) ra[(int64_t) i * k + p] * rb[(int64_t) j * k + p];
        out[i + (int64_t) j * m] = (int32_t) (((sum % mod) + mod) % mod);
      }
}
static double oz_crt_to_double (const int32_t *res, int N, int e)
{
  uint8_t r[TILEMM_EMU_MAX_MODULI];
  for (int l = 0; l < N; l++)
    r[l] = (uint8_t) res[l];
  return tilemm_emu_crt_double (r, N, e);
}

static int npass, nfail;
#define CHECK(cond, ...)                                                                           \
  do                                                                                               \
    {                                                                                              \
      if (cond)                                                                                    \
        npass++;                                                                                   \
      else                                                                                         \
        {                                                                                          \
          nfail++;                                                                                 \
          printf ("FAIL %s:%d: ", __FILE__, __LINE__);                                             \
          printf (__VA_ARGS__);                                                                    \
          printf ("\n");                                                                           \
        }                                                                                          \
    }                                                                                              \
  while (0)

/* ---------------------------------------------------------------- random data */
static uint64_t rs = 0x243F6A8885A308D3ull;
static uint64_t rnd64 () { rs ^= rs >> 12; rs ^= rs << 25; rs ^= rs >> 27; return rs * 2685821657736338717ull; }
static double urand () { return (double) (rnd64 () >> 11) * 0x1p-53; }
/* The generator restarted from a case's name: its data the same whatever ran before it (the
 * GPU's build runs cases the emulation's does not), where a case needs data that do what they
 * are for. */
static void seed_from (const char *name)
{
  uint64_t h = 1469598103934665603ull;
  for (const char *c = name; *c; c++)
    h = (h ^ (unsigned char) *c) * 1099511628211ull;
  rs = h ? h : 1;
}
static double nrand ()
{
  double u1 = urand (), u2 = urand ();
  if (u1 < 1e-300) u1 = 1e-300;
  return sqrt (-2 * log (u1)) * cos (6.283185307179586 * u2);
}

enum data_kind { NORMAL, WIDE, ZEROS, TINY, HUGE_, NAN_A, INF_B, EDGES };

/* ---------------------------------------------------------------- CPU references */
static void ref_quantize (double v, int e, int &lo, int &hi)
{
  /* long double: 127·x is exact (64-bit significand), and ldexpl never underflows here */
  const long double x = ldexpl (fabsl ((long double) v), -e) * 127.0L;
  lo = (int) floorl (x);
  hi = (int) ceill (x);
}

/* X·2^e (X from Garner over 4 limbs, symmetric) rounded once to `mant` bits, bit by bit. */
static double ref_crt_round (const int32_t *res, int N, int e, int mant, int emin, int emax)
{
  /* X = Σ digits, built by lifting: X_{t+1} = X_t + M_t·((r_t − X_t) M_t^-1 mod m_t) */
  uint32_t X[8] = {0}, Mt[8] = {1};
  for (int t = 0; t < N; t++)
    {
      const int m = tilemm_emu_moduli[t];
      uint64_t xm = 0, mm = 0; /* X mod m, M_t mod m */
      for (int w = 7; w >= 0; w--)
        {
          xm = ((xm << 32) + X[w]) % m;
          mm = ((mm << 32) + Mt[w]) % m;
        }
      int inv = 1;
      for (int c = 1; c < m; c++)
        if ((int) (mm * c % m) == 1) { inv = c; break; }
      const int d = (int) ((((res[t] - (int) xm) % m + m) % m) * inv % m);
      uint64_t carry = 0;
      for (int w = 0; w < 8; w++)
        {
          const uint64_t s = (uint64_t) X[w] + (uint64_t) Mt[w] * d + carry;
          X[w] = (uint32_t) s;
          carry = s >> 32;
        }
      carry = 0;
      for (int w = 0; w < 8; w++)
        {
          const uint64_t s = (uint64_t) Mt[w] * m + carry;
          Mt[w] = (uint32_t) s;
          carry = s >> 32;
        }
    }
  /* symmetric: 2X > M → X − M (X < M < 2^190: 2X fits) */
  uint32_t X2[8];
  uint32_t top = 0;
  for (int w = 0; w < 8; w++)
    {
      X2[w] = X[w] << 1 | top;
      top = X[w] >> 31;
    }
  int cmp = 0;
  for (int w = 7; w >= 0 && !cmp; w--)
    if (X2[w] != Mt[w]) cmp = X2[w] > Mt[w] ? 1 : -1;
  bool neg = cmp > 0;
  if (neg)
    {
      int64_t borrow = 0;
      for (int w = 0; w < 8; w++)
        {
          const int64_t d = (int64_t) Mt[w] - X[w] - borrow;
          X[w] = (uint32_t) d;
          borrow = d < 0;
        }
    }
  auto bit = [&] (long i) { return i < 0 || i >= 256 ? 0 : (int) ((X[i / 32] >> (i % 32)) & 1); };
  long nb = 0;
  for (long i = 255; i >= 0; i--)
    if (bit (i)) { nb = i + 1; break; }
  if (nb == 0) return neg ? -0.0 : 0.0;
  const long E = nb - 1 + e;
  if (E > emax) return neg ? -INFINITY : INFINITY;
  long prec = E < emin ? E - emin + mant : mant;
  long drop = nb - prec;
  if (drop < 0) drop = 0;
  uint64_t q = 0;
  for (long i = nb - 1; i >= drop; i--) q = q << 1 | bit (i);
  if (drop > 0)
    {
      const int half = bit (drop - 1);
      int sticky = 0;
      for (long i = 0; i < drop - 1; i++) sticky |= bit (i);
      if (half && (sticky || (q & 1))) q++;
    }
  const double r = ldexp ((double) q, (int) (e + drop));
  return neg ? -r : r;
}

/* ---------------------------------------------------------------- one case */
struct shape
{
  int64_t m, n, k, pad_a, pad_b, pad_c;
};

/* The columns of C per block (tilemm_emu_cuda_blocks, without events) of the calls run_case and
 * complex_case make: 0, one block. */
static int64_t block_cols = 0;

/* The current device's multiprocessors: the facts' count, which the call plan hands the wgmma
 * GEMM's grid (tilemm_emu_gemm_grid of emu_multiprocessors); asked here as a test making its own plan (1 where the runtime
 * does not say). */
static int test_gemm_blocks ()
{
  int dev = 0;
  cudaDeviceProp prop;
  if (cudaGetDevice (&dev) != cudaSuccess || cudaGetDeviceProperties (&prop, dev) != cudaSuccess
      || prop.multiProcessorCount < 1)
    return 1;
  return prop.multiProcessorCount;
}

/* What the executor decides for a call of `type` with inner dimension k, as these tests decide
 * it: the int8 GEMM that TILEMM_EMU_IMMA names (the cases set it; wgmma only where it runs),
 * k-chunks of `chunk` 64-byte tiles (0: the real ones), the statistics' GEMM the plan's function
 * names for that k and k-chunk (tilemm_emu_plan_stats_gemm, as the call plan's emu_stats_gemm),
 * the wgmma GEMM's grid, and the options' rule deciding the plan. */
static tilemm_emu_cuda_setup test_setup (int64_t chunk, const tilemm_emu_branches *branches,
                                         tilemm_type type, int64_t k)
{
  const tilemm_emu_gemm gemm = tilemm_emu_gemm_named (getenv ("TILEMM_EMU_IMMA"),
                                                      tilemm_emu_cuda_wgmma_runs ());
  const tilemm_emu_cuda_setup setup = { gemm, chunk, branches, nullptr,
                                        tilemm_emu_plan_stats_gemm (gemm, type, k, chunk),
                                        test_gemm_blocks (), test_gemm_blocks () };
  return setup;
}

/* The branches a call plan holds for `opt` (NULL: double's defaults), as the plan makes them. */
static tilemm_emu_branches branches_of (const tilemm_emu_options *opt)
{
  tilemm_emu_options d;
  tilemm_emu_default_options (&d, TILEMM_DOUBLE);
  tilemm_emu_branches b;
  tilemm_emu_branches_make (opt ? opt : &d, &b);
  return b;
}

/* An arena as the workspace makes one: each slot what tilemm_emu_cuda_arena_need says the call
 * needs, no more (so a call that overruns a slot overruns the allocation: ASan under the
 * emulation, compute-sanitizer on the GPU). */
static void test_arena (tilemm_emu_cuda_arena &arena, tilemm_type type, int64_t m, int64_t n, int64_t k,
                        const tilemm_emu_options *opt, tilemm_emu_run_mode mode, int64_t chunk)
{
  size_t need[4];
  tilemm_emu_cuda_arena_need (type, m, n, k, opt, 0, mode, chunk, need);
  for (int s = 0; s < 4; s++)
    {
      arena.base[s] = nullptr;
      arena.bytes[s] = 0;
      if (need[s] > 0 && cudaMalloc (&arena.base[s], need[s]) == cudaSuccess)
        arena.bytes[s] = need[s];
    }
}

static void test_arena_free (tilemm_emu_cuda_arena &arena)
{
  for (int s = 0; s < 4; s++)
    {
      if (arena.base[s])
        cudaFree (arena.base[s]);
      arena.base[s] = nullptr;
      arena.bytes[s] = 0;
    }
}

template <typename T>
static void run_case (const char *name, shape s, data_kind kind, int forced_moduli, int chunk_override)
{
  const int64_t m = s.m, n = s.n, k = s.k;
  if (getenv ("TILEMM_TEST_VERBOSE"))
    {
      printf ("case %s\n", name);
      fflush (stdout);
    }
  const int64_t lda = (m > 0 ? m : 1) + s.pad_a, ldb = (k > 0 ? k : 1) + s.pad_b, ldc = (m > 0 ? m : 1) + s.pad_c;
  const bool single = sizeof (T) == 4;
  std::vector<T> A ((size_t) (lda * (k > 0 ? k : 1))), B ((size_t) (ldb * n)), C ((size_t) (ldc * n));
  std::vector<int> rowscale ((size_t) lda, 0), colscale ((size_t) n, 0);
  for (int64_t i = 0; i < lda; i++) rowscale[i] = kind == WIDE ? (int) (rnd64 () % 41) - 20 : 0;
  for (int64_t j = 0; j < n; j++) colscale[j] = kind == WIDE ? (int) (rnd64 () % 41) - 20 : 0;
  const int shift_a = kind == TINY ? (single ? -70 : -1000) : kind == HUGE_ ? (single ? 60 : 1000) : 0;
  const int shift_b = kind == TINY ? (single ? -60 : -60) : kind == HUGE_ ? (single ? 66 : 30) : 0;
  for (int64_t p = 0; p < k; p++)
    for (int64_t i = 0; i < lda; i++)
      {
        double v = nrand ();
        if (kind == WIDE && rnd64 () % 4 == 0) v = ldexp (v, (int) (rnd64 () % 61) - 30);
        if (kind == EDGES)
          {
            const int c = (int) (rnd64 () % 4);
            v = c == 0 ? 1.0 - 0x1p-40 : c == 1 ? (double) (rnd64 () % 127 + 1) / 127.0 : c == 2 ? 0x1p-300 : v;
          }
        A[i + p * lda] = (T) ldexp (v, rowscale[i] + shift_a);
      }
  for (int64_t j = 0; j < n; j++)
    for (int64_t p = 0; p < ldb; p++)
      {
        double v = nrand ();
        if (kind == WIDE && rnd64 () % 4 == 0) v = ldexp (v, (int) (rnd64 () % 61) - 30);
        B[p + j * ldb] = (T) ldexp (v, colscale[j] + shift_b);
      }
  if (kind == ZEROS)
    {
      for (int64_t i = 0; i < m; i += 3)
        for (int64_t p = 0; p < k; p++) A[i + p * lda] = 0;
      for (int64_t j = 1; j < n; j += 4)
        for (int64_t p = 0; p < k; p++) B[p + j * ldb] = 0;
      for (int64_t p = 0; p < k; p += 5) /* and sparse entries */
        for (int64_t i = 0; i < m; i++) A[i + p * lda] = 0;
    }
  if (kind == NAN_A && m > 0 && k > 0) A[(m - 1) + (k / 2) * lda] = (T) NAN;
  if (kind == INF_B && n > 0 && k > 0) B[(k - 1) + (n / 2) * ldb] = (T) -INFINITY;
  const T poison = (T) -12345.25;
  for (auto &x : C) x = poison;

  /* device copies (plain host buffers under the emulation) */
  T *dA, *dB, *dC;
  cudaMalloc ((void **) &dA, sizeof (T) * A.size ());
  cudaMalloc ((void **) &dB, sizeof (T) * B.size ());
  cudaMalloc ((void **) &dC, sizeof (T) * C.size ());
  cudaMemcpy (dA, A.data (), sizeof (T) * A.size (), cudaMemcpyHostToDevice);
  cudaMemcpy (dB, B.data (), sizeof (T) * B.size (), cudaMemcpyHostToDevice);
  cudaMemcpy (dC, C.data (), sizeof (T) * C.size (), cudaMemcpyHostToDevice);

  tilemm_emu_options opt;
  tilemm_emu_default_options (&opt, single ? TILEMM_SINGLE : TILEMM_DOUBLE);
  opt.moduli = forced_moduli;
  tilemm_emu_cuda_arena arena = {};
  tilemm_emu_plan plan;
  tilemm_emu_stats st;
  tilemm_error err = {};
  const tilemm_emu_branches branches = branches_of (&opt);
  const tilemm_emu_cuda_setup setup
    = test_setup (chunk_override, &branches, single ? TILEMM_SINGLE : TILEMM_DOUBLE, k);
  test_arena (arena, single ? TILEMM_SINGLE : TILEMM_DOUBLE, m, n, k, &opt, TILEMM_EMU_RUN_WHOLE,
              chunk_override);
  const tilemm_emu_cuda_blocks blocks = { block_cols, nullptr, 0 };
  const tilemm_status status = tilemm_emu_cuda_run (&opt, &setup, single ? TILEMM_SINGLE : TILEMM_DOUBLE, m, n, k, dA,
                                                    lda, dB, ldb, dC, ldc, nullptr, nullptr, &plan, &st, nullptr,
                                                    &arena, &blocks, &err);
  CHECK (status == TILEMM_OK, "%s: status %d (%s)", name, (int) status, err.detail);
  std::vector<T> Cg (C.size ());
  cudaMemcpy (Cg.data (), dC, sizeof (T) * C.size (), cudaMemcpyDeviceToHost);

  if (kind == NAN_A || kind == INF_B)
    {
      CHECK (plan.verdict == TILEMM_EMU_NONFINITE, "%s: verdict %d, want NONFINITE", name, (int) plan.verdict);
      bool untouched = true;
      for (size_t q = 0; q < Cg.size (); q++) untouched &= Cg[q] == poison;
      CHECK (untouched, "%s: C written on a non-finite verdict", name);
      goto done;
    }
  if (m == 0 || n == 0)
    {
      bool untouched = true;
      for (size_t q = 0; q < Cg.size (); q++) untouched &= Cg[q] == poison;
      CHECK (untouched, "%s: empty product wrote C", name);
      goto done;
    }
  {
    /* 1. exponents */
    const int64_t kp = k > 0 ? (k + 15) / 16 * 16 : 16;
    std::vector<int> ea (m), eb (n);
    for (int64_t i = 0; i < m; i++)
      {
        double mx = 0;
        for (int64_t p = 0; p < k; p++) mx = fmax (mx, fabs ((double) A[i + p * lda]));
        ea[i] = tilemm_emu_exponent (mx);
      }
    for (int64_t j = 0; j < n; j++)
      {
        double mx = 0;
        for (int64_t p = 0; p < k; p++) mx = fmax (mx, fabs ((double) B[p + j * ldb]));
        eb[j] = tilemm_emu_exponent (mx);
      }
    const bool automatic = forced_moduli <= 0;
    const int64_t ktiles = (kp + 63) / 64;
    const int64_t ct = chunk_override > 0 ? chunk_override : TILEMM_EMU_KCHUNK_TILES;
    const tilemm_emu_stats_layout l1 = tilemm_emu_layout_stats (m, n, kp, automatic, automatic && ktiles > ct);
    std::vector<char> w1 (l1.total);
    cudaMemcpy (w1.data (), arena.base[0], l1.total, cudaMemcpyDeviceToHost);
    const int *gea = (const int *) (w1.data () + l1.e), *geb = (const int *) (w1.data () + l1.eb);
    int bad = 0;
    for (int64_t i = 0; i < m; i++) bad += gea[i] != ea[i];
    for (int64_t j = 0; j < n; j++) bad += geb[j] != eb[j];
    CHECK (bad == 0, "%s: %d exponents differ", name, bad);

    /* 2. statistics */
    std::vector<int8_t> loa ((size_t) (m * kp), 0), lob ((size_t) (n * kp), 0);
    std::vector<int64_t> sa (m, 0), qa (m, 0), sb (n, 0), qb (n, 0);
    for (int64_t i = 0; i < m; i++)
      for (int64_t p = 0; p < k; p++)
        {
          int lo, hi;
          ref_quantize ((double) A[i + p * lda], ea[i], lo, hi);
          loa[i * kp + p] = (int8_t) lo;
          sa[i] += hi;
          qa[i] += hi * hi;
        }
    for (int64_t j = 0; j < n; j++)
      for (int64_t p = 0; p < k; p++)
        {
          int lo, hi;
          ref_quantize ((double) B[p + j * ldb], eb[j], lo, hi);
          lob[j * kp + p] = (int8_t) lo;
          sb[j] += hi;
          qb[j] += hi * hi;
        }
    bad = 0;
    for (int64_t i = 0; i < m; i++)
      bad += ((const int64_t *) (w1.data () + l1.sa))[i] != sa[i] || ((const int64_t *) (w1.data () + l1.qa))[i] != qa[i];
    for (int64_t j = 0; j < n; j++)
      bad += ((const int64_t *) (w1.data () + l1.sb))[j] != sb[j] || ((const int64_t *) (w1.data () + l1.qb))[j] != qb[j];
    CHECK (bad == 0, "%s: %d row/column sums differ", name, bad);
    tilemm_emu_stats ref;
    memset (&ref, 0, sizeof ref);
    ref.inner = k;
    for (int64_t i = 0; i < m; i++) ref.max_qa = qa[i] > ref.max_qa ? qa[i] : ref.max_qa;
    for (int64_t j = 0; j < n; j++) ref.max_qb = qb[j] > ref.max_qb ? qb[j] : ref.max_qb;
    if (automatic)
      {
        bad = (int) (memcmp (w1.data () + l1.loa, loa.data (), loa.size ()) != 0)
            + (int) (memcmp (w1.data () + l1.lob, lob.data (), lob.size ()) != 0);
        CHECK (bad == 0, "%s: the lo matrices differ", name);
        for (int64_t i = 0; i < m; i++)
          for (int64_t j = 0; j < n; j++)
            {
              if (ea[i] == TILEMM_EMU_ZERO_ROW || eb[j] == TILEMM_EMU_ZERO_ROW) continue;
              int64_t S = 0;
              for (int64_t p = 0; p < k; p++) S += (int64_t) loa[i * kp + p] * lob[j * kp + p];
              const double xa = S == 0 ? INFINITY : (double) (TILEMM_EMU_Q * sb[j]) / (double) S;
              const double xb = S == 0 ? INFINITY : (double) (TILEMM_EMU_Q * sa[i]) / (double) S;
              ref.ratio_a = fmax (ref.ratio_a, xa);
              ref.ratio_b = fmax (ref.ratio_b, xb);
            }
      }
    CHECK (st.max_qa == ref.max_qa && st.max_qb == ref.max_qb && st.inner == k, "%s: qa/qb %lld %lld, want %lld %lld",
           name, (long long) st.max_qa, (long long) st.max_qb, (long long) ref.max_qa, (long long) ref.max_qb);
    CHECK (!memcmp (&st.ratio_a, &ref.ratio_a, 8) && !memcmp (&st.ratio_b, &ref.ratio_b, 8),
           "%s: ratios %.17g %.17g, want %.17g %.17g", name, st.ratio_a, st.ratio_b, ref.ratio_a, ref.ratio_b);
    tilemm_emu_plan rp;
    tilemm_emu_decide (&opt, &ref, &rp);
    CHECK (rp.verdict == plan.verdict && rp.moduli == plan.moduli && rp.pa == plan.pa && rp.pb == plan.pb,
           "%s: plan (%d, N %d, pa %d, pb %d), CPU's (%d, %d, %d, %d)", name, (int) plan.verdict, plan.moduli,
           plan.pa, plan.pb, (int) rp.verdict, rp.moduli, rp.pa, rp.pb);
    if (plan.verdict != TILEMM_EMU_OK)
      {
        bool untouched = true;
        for (size_t q = 0; q < Cg.size (); q++) untouched &= Cg[q] == poison;
        CHECK (untouched, "%s: C written on verdict %d", name, (int) plan.verdict);
        goto done;
      }

    /* 3. residues */
    const int N = plan.moduli;
    const tilemm_emu_product_layout l2 = tilemm_emu_layout_product (m, n, kp, N);
    std::vector<char> w2 (l2.total);
    cudaMemcpy (w2.data (), arena.base[1], l2.total, cudaMemcpyDeviceToHost);
    std::vector<int8_t> ra ((size_t) (N * m * kp), 0), rb ((size_t) (N * n * kp), 0);
    for (int64_t i = 0; i < m; i++)
      for (int64_t p = 0; p < k; p++)
        {
          const double v = (double) A[i + p * lda];
          const int64_t x = v == 0 ? 0 : (int64_t) trunc (ldexp (v, plan.pa - ea[i]));
          for (int l = 0; l < N; l++) ra[(l * m + i) * kp + p] = oz_residue_s8 (x, tilemm_emu_moduli[l]);
        }
    for (int64_t j = 0; j < n; j++)
      for (int64_t p = 0; p < k; p++)
        {
          const double v = (double) B[p + j * ldb];
          const int64_t x = v == 0 ? 0 : (int64_t) trunc (ldexp (v, plan.pb - eb[j]));
          for (int l = 0; l < N; l++) rb[(l * n + j) * kp + p] = oz_residue_s8 (x, tilemm_emu_moduli[l]);
        }
    CHECK (!memcmp (w2.data () + l2.ra, ra.data (), ra.size ()), "%s: residues of A differ", name);
    CHECK (!memcmp (w2.data () + l2.rb, rb.data (), rb.size ()), "%s: residues of B differ", name);

    /* 4. the modular GEMMs (exact int64 sums mod m) */
    std::vector<int32_t> R ((size_t) (N * m * n));
    for (int l = 0; l < N; l++)
      oz_gemm_s8_mod ((int) m, (int) n, (int) kp, &ra[l * m * kp], &rb[l * n * kp], tilemm_emu_moduli[l], &R[l * m * n]);
    const uint8_t *gr = (const uint8_t *) (w2.data () + l2.r);
    bad = 0;
    for (size_t q = 0; q < R.size (); q++) bad += gr[q] != R[q];
    CHECK (bad == 0, "%s: %d residues of the modular GEMMs differ (N = %d)", name, bad, N);

    /* 5. CRT and the whole product */
    int badc = 0, badr = 0;
    for (int64_t j = 0; j < n; j++)
      for (int64_t i = 0; i < m; i++)
        {
          int32_t res[TILEMM_EMU_MAX_MODULI];
          for (int l = 0; l < N; l++) res[l] = R[l * m * n + i + j * m];
          double want;
          if (ea[i] == TILEMM_EMU_ZERO_ROW || eb[j] == TILEMM_EMU_ZERO_ROW)
            want = 0.0;
          else
            {
              const int e = ea[i] + eb[j] - plan.pa - plan.pb;
              want = single ? ref_crt_round (res, N, e, 24, -126, 127) : oz_crt_to_double (res, N, e);
              if (!single)
                {
                  const double mine = ref_crt_round (res, N, e, 53, -1022, 1023);
                  badr += memcmp (&mine, &want, 8) != 0;
                }
            }
          const T w = (T) want, got = Cg[i + j * ldc];
          if (memcmp (&w, &got, sizeof (T)))
            {
              if (badc < 3)
                printf ("  %s: C(%lld, %lld) = %a, want %a\n", name, (long long) i, (long long) j, (double) got, (double) w);
              badc++;
            }
        }
    CHECK (badr == 0, "%s: %d CRT references disagree (test's own)", name, badr);
    CHECK (badc == 0, "%s: %d of %lld elements of C differ bitwise (N = %d)", name, badc, (long long) (m * n), N);
    bool pads = true;
    for (int64_t j = 0; j < n; j++)
      for (int64_t i = m; i < ldc; i++) pads &= Cg[i + j * ldc] == poison;
    CHECK (pads, "%s: C written outside its rows", name);
  }
done:
  test_arena_free (arena);
  cudaFree (dA);
  cudaFree (dB);
  cudaFree (dC);
}

/* ---------------------------------------------------------------- the CRT kernel alone */

/* Integers below 2^256 in 32-bit limbs, for the residues of chosen X. */
struct big8
{
  uint32_t w[8];
};
static void big_mul_add (big8 &x, uint32_t s, uint32_t a)
{
  uint64_t c = a;
  for (int l = 0; l < 8; l++)
    {
      c += (uint64_t) x.w[l] * s;
      x.w[l] = (uint32_t) c;
      c >>= 32;
    }
}
static uint32_t big_mod (const big8 &x, uint32_t s)
{
  uint64_t r = 0;
  for (int l = 7; l >= 0; l--)
    r = ((r << 32) | x.w[l]) % s;
  return (uint32_t) r;
}
static big8 big_sub (const big8 &a, const big8 &b) /* a ≥ b */
{
  big8 r;
  int64_t borrow = 0;
  for (int l = 0; l < 8; l++)
    {
      const int64_t d = (int64_t) a.w[l] - b.w[l] - borrow;
      r.w[l] = (uint32_t) d;
      borrow = d < 0;
    }
  return r;
}
static big8 big_add_small (big8 x, int64_t d) /* x + d, x + d ≥ 0 */
{
  if (d >= 0)
    {
      uint64_t c = (uint64_t) d;
      for (int l = 0; l < 8 && c; l++)
        {
          c += x.w[l];
          x.w[l] = (uint32_t) c;
          c >>= 32;
        }
      return x;
    }
  big8 s = {};
  s.w[0] = (uint32_t) (uint64_t) -d;
  s.w[1] = (uint32_t) ((uint64_t) -d >> 32);
  return big_sub (x, s);
}
static int big_bits (const big8 &x)
{
  for (int l = 7; l >= 0; l--)
    if (x.w[l])
      return 32 * l + 32 - __builtin_clz (x.w[l]);
  return 0;
}
static void big_set_bit (big8 &x, int b) { x.w[b / 32] |= 1u << (b % 32); }
/* a random integer of exactly `bits` bits (0 for bits ≤ 0) */
static big8 big_random (int bits)
{
  big8 x = {};
  if (bits <= 0)
    return x;
  for (int l = 0; l < 8; l++)
    x.w[l] = (uint32_t) rnd64 ();
  for (int b = bits; b < 256; b++)
    x.w[b / 32] &= ~(1u << (b % 32));
  big_set_bit (x, bits - 1);
  return x;
}

/* counts of the classes of results seen, over all N: zero, subnormal, normal, infinite */
static int64_t crt_seen[2][4];

/* launch_crt for N moduli on residues of chosen X in [0, M): 0, ±small, M/2 and its neighbours
 * (where the estimate of k needs its exact correction), X within 2^20 of M/2, random of random
 * length either sign, and ties (and near-ties) of the rounding at the format's precision; the
 * exponents put the results in the normal, subnormal and overflow ranges; a row and a column of
 * zeros.  Against src/emulated.c's tilemm_emu_crt_double / _single, bitwise; C poisoned, its pads
 * and the other part of a complex element (step 2) untouched. */
template <typename T>
static void crt_case (int N, int64_t m, int64_t n, int64_t ldc, int step)
{
  const bool single = sizeof (T) == 4;
  const int prec = single ? 24 : 53, emin = single ? -126 : -1022, emax = single ? 127 : 1023;
  big8 M = {};
  M.w[0] = 1;
  for (int t = 0; t < N; t++)
    big_mul_add (M, (uint32_t) tilemm_emu_moduli[t], 0);
  big8 half = M; /* M/2: M is even (256 divides it) */
  for (int l = 0; l < 8; l++)
    half.w[l] = (M.w[l] >> 1) | (l < 7 ? M.w[l + 1] << 31 : 0);
  const int bm = big_bits (M);
  std::vector<uint8_t> R ((size_t) (N * m * n));
  std::vector<int> ea (m), eb (n);
  std::vector<int> zone (m);
  const int shift = 37;
  for (int64_t i = 0; i < m; i++)
    {
      zone[i] = (int) (rnd64 () % 4);
      /* e = ea + eb − shift; X has up to bm bits */
      const int target = zone[i] == 0 ? 0                                             /* normal */
                         : zone[i] == 1 ? emin - bm / 2 - (int) (rnd64 () % (prec + 8)) /* subnormal */
                         : zone[i] == 2 ? emax - bm + 4 + (int) (rnd64 () % 8)        /* overflow */
                                        : (int) (rnd64 () % (2 * (emax - emin))) - (emax - emin) - bm / 2;
      ea[i] = target + shift;
    }
  for (int64_t j = 0; j < n; j++)
    eb[j] = (int) (rnd64 () % 9) - 4;
  if (m > 2)
    ea[2] = TILEMM_EMU_ZERO_ROW;
  if (n > 1)
    eb[1] = TILEMM_EMU_ZERO_ROW;
  std::vector<double> want ((size_t) (m * n));
  for (int64_t j = 0; j < n; j++)
    for (int64_t i = 0; i < m; i++)
      {
        big8 X = {};
        const int kind = (int) (rnd64 () % 8);
        const bool negate = rnd64 () % 2;
        /* M ≤ 2^32 for N ≤ 4: small values stay below it */
        const uint64_t lim = bm <= 32 ? (uint64_t) M.w[0] : 1ull << 32;
        if (kind == 1 || kind == 2)
          {
            X.w[0] = (uint32_t) ((rnd64 () % 1000 + 1) % lim);
            if (kind == 2 && X.w[0])
              X = big_sub (M, X);
          }
        else if (kind == 3)
          X = big_add_small (half, (int64_t) (rnd64 () % 7) - 3);
        else if (kind == 4)
          X = big_add_small (half, -(int64_t) (rnd64 () % std::min<uint64_t> (lim / 2, 1u << 20)));
        else if (kind == 5 || kind == 6)
          {
            /* a tie (or ±1 of one) at the format's precision: q·2^s + 2^(s−1) */
            const int s = bm - 2 - prec > 1 ? 1 + (int) (rnd64 () % (bm - 2 - prec - 1)) : 0;
            if (s > 0)
              {
                X = big_random (prec);
                for (int b = 0; b < s; b++)
                  big_mul_add (X, 2, 0);
                big_set_bit (X, s - 1);
                X = big_add_small (X, kind == 6 ? (rnd64 () % 2 ? 1 : -1) : 0);
              }
            else
              X = big_random (bm - 2);
            if (negate)
              X = big_sub (M, X);
          }
        else if (kind == 7)
          {
            X = big_random (1 + (int) (rnd64 () % (bm - 2 > 0 ? bm - 2 : 1)));
            if (negate && big_bits (X))
              X = big_sub (M, X);
          }
        uint8_t r[TILEMM_EMU_MAX_MODULI];
        for (int t = 0; t < N; t++)
          {
            r[t] = (uint8_t) big_mod (X, (uint32_t) tilemm_emu_moduli[t]);
            R[(size_t) (t * m * n + i + j * m)] = r[t];
          }
        double v = 0.0;
        if (ea[i] != TILEMM_EMU_ZERO_ROW && eb[j] != TILEMM_EMU_ZERO_ROW)
          {
            const int e = ea[i] + eb[j] - shift;
            v = single ? tilemm_emu_crt_single (r, N, e) : tilemm_emu_crt_double (r, N, e);
          }
        want[i + j * m] = v;
        const double a = fabs (v);
        crt_seen[single][a == 0 ? 0 : std::isinf (a) ? 3 : a < (single ? 0x1p-126 : 0x1p-1022) ? 1 : 2]++;
      }
  const T poison = (T) -3.75;
  std::vector<T> C ((size_t) (ldc * n * step), poison);
  uint8_t *dR;
  int *dea, *deb;
  T *dC;
  cudaMalloc ((void **) &dR, R.size ());
  cudaMalloc ((void **) &dea, sizeof (int) * m);
  cudaMalloc ((void **) &deb, sizeof (int) * n);
  cudaMalloc ((void **) &dC, sizeof (T) * C.size ());
  cudaMemcpy (dR, R.data (), R.size (), cudaMemcpyHostToDevice);
  cudaMemcpy (dea, ea.data (), sizeof (int) * m, cudaMemcpyHostToDevice);
  cudaMemcpy (deb, eb.data (), sizeof (int) * n, cudaMemcpyHostToDevice);
  cudaMemcpy (dC, C.data (), sizeof (T) * C.size (), cudaMemcpyHostToDevice);
  tilemm_error err = {};
  const tilemm_status st = tilemm_emu_gpu::launch_crt<T> (N, dR, m * n, m, n, dea, deb, shift, dC, ldc, step, nullptr, &err);
  const cudaError_t ce = cudaDeviceSynchronize ();
  CHECK (st == TILEMM_OK && ce == cudaSuccess, "crt N=%d %s %lldx%lld: status %d (%s), %s", N, single ? "single" : "double",
         (long long) m, (long long) n, (int) st, err.detail, cudaGetErrorString (ce));
  std::vector<T> G (C.size ());
  cudaMemcpy (G.data (), dC, sizeof (T) * G.size (), cudaMemcpyDeviceToHost);
  int bad = 0, pads = 0;
  for (int64_t j = 0; j < n; j++)
    for (int64_t q = 0; q < ldc * step; q++)
      {
        const T got = G[(size_t) (j * ldc * step + q)];
        if (q % step == 0 && q / step < m)
          {
            const int64_t i = q / step;
            const T w = (T) want[i + j * m];
            if (memcmp (&w, &got, sizeof (T)))
              {
                if (bad < 3)
                  printf ("  crt N=%d %s: C(%lld, %lld) = %a, want %a\n", N, single ? "single" : "double", (long long) i,
                          (long long) j, (double) got, (double) w);
                bad++;
              }
          }
        else
          pads += memcmp (&got, &poison, sizeof (T)) != 0;
      }
  CHECK (bad == 0 && pads == 0, "crt N=%d %s %lldx%lld ldc %lld step %d: %d elements differ, %d pads written", N,
         single ? "single" : "double", (long long) m, (long long) n, (long long) ldc, step, bad, pads);
  cudaFree (dR);
  cudaFree (dea);
  cudaFree (deb);
  cudaFree (dC);
}

static void crt_cases (bool quick)
{
  for (int N = 1; N <= TILEMM_EMU_MAX_MODULI; N++)
    {
      if (quick && N % 4 != 1 && N != 17)
        continue;
      crt_case<double> (N, 37, 7, 40, 1); /* byte loads, ragged */
      crt_case<float> (N, 37, 7, 40, 1);
      crt_case<double> (N, 64, 9, 64, 1); /* word loads, whole vectors */
      crt_case<float> (N, 64, 9, 64, 1);
      crt_case<double> (N, 64, 5, 67, 2); /* a part of complex C */
      crt_case<float> (N, 68, 5, 69, 2);
    }
  for (int s = 0; s < 2; s++)
    CHECK (crt_seen[s][0] && crt_seen[s][1] && crt_seen[s][2] && crt_seen[s][3],
           "crt %s: classes seen: %lld zero, %lld subnormal, %lld normal, %lld infinite", s ? "single" : "double",
           (long long) crt_seen[s][0], (long long) crt_seen[s][1], (long long) crt_seen[s][2], (long long) crt_seen[s][3]);
}

/* ---------------------------------------------------------------- complex: whole products */

/* The CPU pipeline of one real problem X (m×K, ld m) · Y (K×n, ld K): exponents and statistics. */
static void cpu_stats (const std::vector<double> &X, const std::vector<double> &Y, int64_t m, int64_t n, int64_t K,
                       bool automatic, tilemm_emu_stats &st, std::vector<int> &ea, std::vector<int> &eb)
{
  memset (&st, 0, sizeof st);
  st.inner = K;
  ea.assign (m, 0);
  eb.assign (n, 0);
  for (int64_t i = 0; i < m; i++)
    {
      double mx = 0;
      for (int64_t p = 0; p < K; p++) mx = fmax (mx, fabs (X[i + p * m]));
      ea[i] = tilemm_emu_exponent (mx);
    }
  for (int64_t j = 0; j < n; j++)
    {
      double mx = 0;
      for (int64_t p = 0; p < K; p++) mx = fmax (mx, fabs (Y[p + j * K]));
      eb[j] = tilemm_emu_exponent (mx);
    }
  std::vector<int> loa (m * K), lob (n * K);
  std::vector<int64_t> sa (m, 0), sb (n, 0);
  for (int64_t i = 0; i < m; i++)
    {
      int64_t q = 0;
      for (int64_t p = 0; p < K; p++)
        {
          int lo, hi;
          ref_quantize (X[i + p * m], ea[i], lo, hi);
          loa[i * K + p] = lo;
          sa[i] += hi;
          q += hi * hi;
        }
      st.max_qa = q > st.max_qa ? q : st.max_qa;
    }
  for (int64_t j = 0; j < n; j++)
    {
      int64_t q = 0;
      for (int64_t p = 0; p < K; p++)
        {
          int lo, hi;
          ref_quantize (Y[p + j * K], eb[j], lo, hi);
          lob[j * K + p] = lo;
          sb[j] += hi;
          q += hi * hi;
        }
      st.max_qb = q > st.max_qb ? q : st.max_qb;
    }
  if (!automatic)
    return;
  for (int64_t i = 0; i < m; i++)
    for (int64_t j = 0; j < n; j++)
      {
        if (ea[i] == TILEMM_EMU_ZERO_ROW || eb[j] == TILEMM_EMU_ZERO_ROW) continue;
        int64_t S = 0;
        for (int64_t p = 0; p < K; p++) S += (int64_t) loa[i * K + p] * lob[j * K + p];
        st.ratio_a = fmax (st.ratio_a, S == 0 ? INFINITY : (double) (TILEMM_EMU_Q * sb[j]) / (double) S);
        st.ratio_b = fmax (st.ratio_b, S == 0 ? INFINITY : (double) (TILEMM_EMU_Q * sa[i]) / (double) S);
      }
}

/* Steps 4 to 7 on the CPU under `plan`. */
static void cpu_product (const tilemm_emu_plan &plan, const std::vector<double> &X, const std::vector<double> &Y,
                         int64_t m, int64_t n, int64_t K, const std::vector<int> &ea, const std::vector<int> &eb,
                         bool single, std::vector<double> &out)
{
  const int N = plan.moduli;
  const int64_t Kp = K > 0 ? K : 1;
  std::vector<int8_t> ra (N * m * Kp, 0), rb (N * n * Kp, 0);
  for (int64_t i = 0; i < m; i++)
    for (int64_t p = 0; p < K; p++)
      {
        const double v = X[i + p * m];
        const int64_t x = v == 0 ? 0 : (int64_t) trunc (ldexp (v, plan.pa - ea[i]));
        for (int l = 0; l < N; l++) ra[(l * m + i) * Kp + p] = oz_residue_s8 (x, tilemm_emu_moduli[l]);
      }
  for (int64_t j = 0; j < n; j++)
    for (int64_t p = 0; p < K; p++)
      {
        const double v = Y[p + j * K];
        const int64_t x = v == 0 ? 0 : (int64_t) trunc (ldexp (v, plan.pb - eb[j]));
        for (int l = 0; l < N; l++) rb[(l * n + j) * Kp + p] = oz_residue_s8 (x, tilemm_emu_moduli[l]);
      }
  std::vector<int32_t> R (N * m * n);
  for (int l = 0; l < N; l++)
    oz_gemm_s8_mod ((int) m, (int) n, (int) Kp, &ra[l * m * Kp], &rb[l * n * Kp], tilemm_emu_moduli[l], &R[l * m * n]);
  out.assign (m * n, 0.0);
  for (int64_t j = 0; j < n; j++)
    for (int64_t i = 0; i < m; i++)
      {
        if (ea[i] == TILEMM_EMU_ZERO_ROW || eb[j] == TILEMM_EMU_ZERO_ROW) continue;
        int32_t res[TILEMM_EMU_MAX_MODULI];
        for (int l = 0; l < N; l++) res[l] = R[l * m * n + i + j * m];
        const int e = ea[i] + eb[j] - plan.pa - plan.pb;
        out[i + j * m] = single ? ref_crt_round (res, N, e, 24, -126, 127) : oz_crt_to_double (res, N, e);
      }
}

template <typename T>
static void complex_case (const char *name, int64_t m, int64_t n, int64_t k, int64_t pad, data_kind kind, int forced)
{
  const bool single = sizeof (T) == 4;
  const tilemm_type type = single ? TILEMM_COMPLEX_SINGLE : TILEMM_COMPLEX_DOUBLE;
  const int64_t lda = m + pad, ldb = k + pad, ldc = m + pad;
  std::vector<T> A (2 * lda * k), B (2 * ldb * n), C (2 * ldc * n);
  for (auto &x : A) x = (T) ldexp (nrand (), kind == WIDE ? (int) (rnd64 () % 31) - 15 : 0);
  for (auto &x : B) x = (T) ldexp (nrand (), kind == WIDE ? (int) (rnd64 () % 31) - 15 : 0);
  if (kind == ZEROS)
    for (int64_t p = 0; p < k; p++) /* a row of zeros, and a purely real row */
      {
        A[2 * (0 + p * lda)] = A[2 * (0 + p * lda) + 1] = 0;
        A[2 * (1 + p * lda) + 1] = 0;
      }
  if (kind == NAN_A) A[2 * (1 + 2 * lda) + 1] = (T) NAN;
  const T poison = (T) -777.5;
  for (auto &x : C) x = poison;
  T *dA, *dB, *dC;
  cudaMalloc ((void **) &dA, sizeof (T) * A.size ());
  cudaMalloc ((void **) &dB, sizeof (T) * B.size ());
  cudaMalloc ((void **) &dC, sizeof (T) * C.size ());
  cudaMemcpy (dA, A.data (), sizeof (T) * A.size (), cudaMemcpyHostToDevice);
  cudaMemcpy (dB, B.data (), sizeof (T) * B.size (), cudaMemcpyHostToDevice);
  cudaMemcpy (dC, C.data (), sizeof (T) * C.size (), cudaMemcpyHostToDevice);
  tilemm_emu_options opt;
  tilemm_emu_default_options (&opt, type);
  opt.moduli = forced;
  tilemm_emu_plan plan;
  tilemm_emu_stats st;
  tilemm_error err = {};
  const tilemm_emu_cuda_blocks blocks = { block_cols, nullptr, 0 };
  const tilemm_emu_branches branches = branches_of (&opt);
  const tilemm_emu_cuda_setup setup = test_setup (0, &branches, type, k);
  tilemm_emu_cuda_arena arena;
  test_arena (arena, type, m, n, k, &opt, TILEMM_EMU_RUN_WHOLE, 0);
  const tilemm_status status = tilemm_emu_cuda_run (&opt, &setup, type, m, n, k, dA, lda, dB, ldb, dC, ldc, nullptr,
                                                    nullptr, &plan, &st, nullptr, &arena, &blocks, &err);
  test_arena_free (arena);
  CHECK (status == TILEMM_OK, "%s: status %d (%s)", name, (int) status, err.detail);
  std::vector<T> Cg (C.size ());
  cudaMemcpy (Cg.data (), dC, sizeof (T) * C.size (), cudaMemcpyDeviceToHost);
  cudaFree (dA);
  cudaFree (dB);
  cudaFree (dC);
  if (kind == NAN_A)
    {
      CHECK (plan.verdict == TILEMM_EMU_NONFINITE && !memcmp (Cg.data (), C.data (), sizeof (T) * C.size ()),
             "%s: verdict %d or C written", name, (int) plan.verdict);
      return;
    }
  /* the two real problems */
  const int64_t K = 2 * k;
  std::vector<double> X1 (m * K), X2 (m * K), Y1 (K * n), Y2 (K * n);
  for (int64_t p = 0; p < k; p++)
    for (int64_t i = 0; i < m; i++)
      {
        const double re = A[2 * (i + p * lda)], im = A[2 * (i + p * lda) + 1];
        X1[i + p * m] = X2[i + p * m] = re;
        X1[i + (k + p) * m] = -im;
        X2[i + (k + p) * m] = im;
      }
  for (int64_t j = 0; j < n; j++)
    for (int64_t p = 0; p < k; p++)
      {
        const double re = B[2 * (p + j * ldb)], im = B[2 * (p + j * ldb) + 1];
        Y1[p + j * K] = Y2[k + p + j * K] = re;
        Y1[k + p + j * K] = Y2[p + j * K] = im;
      }
  tilemm_emu_stats s1, s2;
  std::vector<int> ea, eb, ea2, eb2;
  cpu_stats (X1, Y1, m, n, K, forced <= 0, s1, ea, eb);
  cpu_stats (X2, Y2, m, n, K, forced <= 0, s2, ea2, eb2);
  CHECK (ea == ea2 && eb == eb2, "%s: the two problems' exponents differ", name);
  tilemm_emu_stats_merge (&s1, &s2);
  CHECK (!memcmp (&s1.ratio_a, &st.ratio_a, 8) && !memcmp (&s1.ratio_b, &st.ratio_b, 8) && s1.max_qa == st.max_qa
         && s1.max_qb == st.max_qb && st.inner == K, "%s: merged statistics differ", name);
  tilemm_emu_plan rp;
  tilemm_emu_decide (&opt, &s1, &rp);
  CHECK (rp.verdict == plan.verdict && rp.moduli == plan.moduli && rp.pa == plan.pa && rp.pb == plan.pb,
         "%s: plan differs from the CPU's", name);
  if (plan.verdict != TILEMM_EMU_OK)
    return;
  std::vector<double> re, im;
  cpu_product (plan, X1, Y1, m, n, K, ea, eb, single, re);
  cpu_product (plan, X2, Y2, m, n, K, ea, eb, single, im);
  int bad = 0;
  for (int64_t j = 0; j < n; j++)
    for (int64_t i = 0; i < m; i++)
      {
        const T wr = (T) re[i + j * m], wi = (T) im[i + j * m];
        bad += memcmp (&wr, &Cg[2 * (i + j * ldc)], sizeof (T)) != 0;
        bad += memcmp (&wi, &Cg[2 * (i + j * ldc) + 1], sizeof (T)) != 0;
      }
  CHECK (bad == 0, "%s: %d parts of C differ bitwise (N = %d)", name, bad, plan.moduli);
  bool pads = true;
  for (int64_t j = 0; j < n; j++)
    for (int64_t i = 2 * m; i < 2 * ldc; i++) pads &= Cg[i + 2 * j * ldc] == poison;
  CHECK (pads, "%s: C written outside its rows", name);
}

/* The host-view entry point, and its errors: injected faults free everything (ASan sees leaks
 * under the emulation) and leave a non-OK status. */
/* The two backends' entry points side by side: tilemm_cuda_multiply_emulated against the CPU
 * backend's tilemm_cpu_multiply_emulated (src/cpu/emulated_cpu.c), for every type, on ragged shapes and
 * widely scaled data: the same verdict, the same plan, and bitwise the same C (the products are
 * exact and C is rounded once, so any difference is a defect of one side). */
#ifndef TILEMM_EMULATE /* tilemm_cuda_multiply_emulated: backend_cuda.cu, outside the emulation */
template <typename T>
static void backends_case (tilemm_type type, int64_t m, int64_t n, int64_t k, int wide, tilemm_emu_rule rule)
{
  const int parts = tilemm_type_is_complex (type) ? 2 : 1;
  const int64_t lda = m + 3, ldb = k + 1, ldc = m + 2;
  std::vector<T> A (parts * lda * k), B (parts * ldb * n), Cg (parts * ldc * n), Cc (parts * ldc * n);
  for (int64_t p = 0; p < k; p++)
    for (int64_t i = 0; i < lda; i++)
      for (int r = 0; r < parts; r++)
        A[parts * (i + p * lda) + r] = (T) (nrand () * (wide ? ldexp (1.0, (int) (i % 41) - 20) : 1.0));
  for (int64_t j = 0; j < n; j++)
    for (int64_t p = 0; p < ldb; p++)
      for (int r = 0; r < parts; r++)
        B[parts * (p + j * ldb) + r] = (T) (nrand () * (wide ? ldexp (1.0, 15 - (int) (j % 31)) : 1.0));
  for (auto &x : Cg) x = (T) NAN; /* poisoned: every element must be written */
  for (auto &x : Cc) x = (T) -7;
  tilemm_view a = { m, k, lda, type, A.data () }, b = { k, n, ldb, type, B.data () },
              cg = { m, n, ldc, type, Cg.data () }, cc = { m, n, ldc, type, Cc.data () };
  tilemm_plan plan;
  memset (&plan, 0, sizeof plan);
  plan.type = type;
  plan.m = m; plan.n = n; plan.k = k;
  tilemm_emu_options opt;
  tilemm_emu_default_options (&opt, type);
  /* "accuracy", "native": the GPU skips the statistics GEMM; "elementwise": the widths less the
   * inner dimension's bits, then filled to the moduli's capacity (emulated.h, step 3'') */
  opt.rule = rule;
  tilemm_emu_plan pg, pc;
  tilemm_error eg = {}, ec = {};
  const tilemm_emu_branches cpu_branches = branches_of (&opt);
  const tilemm_status sg = tilemm_cuda_multiply_emulated (&plan, &opt,
                                                          TILEMM_OP_NONE, &a, TILEMM_OP_NONE, &b, &cg, nullptr,
                                                          &pg, &eg);
  const tilemm_status sc = tilemm_cpu_multiply_emulated (&plan, &opt, &cpu_branches,
                                                         TILEMM_OP_NONE, &a, TILEMM_OP_NONE, &b, &cc, nullptr,
                                                         &pc, &ec);
  CHECK (sg == TILEMM_OK && sc == TILEMM_OK, "backends %s %lldx%lldx%lld: status gpu %d (%s), cpu %d (%s)",
         tilemm_type_name (type), (long long) m, (long long) n, (long long) k, (int) sg, eg.detail, (int) sc, ec.detail);
  CHECK (pg.verdict == pc.verdict && pg.moduli == pc.moduli && pg.pa == pc.pa && pg.pb == pc.pb,
         "backends %s %lldx%lldx%lld: plans differ (verdict %d/%d, moduli %d/%d, pa %d/%d, pb %d/%d)",
         tilemm_type_name (type), (long long) m, (long long) n, (long long) k, (int) pg.verdict, (int) pc.verdict,
         pg.moduli, pc.moduli, pg.pa, pc.pa, pg.pb, pc.pb);
  if (pg.verdict != TILEMM_EMU_OK || pc.verdict != TILEMM_EMU_OK)
    return;
  int bad = 0;
  for (int64_t j = 0; j < n; j++)
    bad += memcmp (&Cg[parts * j * ldc], &Cc[parts * j * ldc], sizeof (T) * parts * m) != 0;
  CHECK (bad == 0, "backends %s %lldx%lldx%lld (%s data, %s rule, %d moduli): %d columns differ",
         tilemm_type_name (type), (long long) m, (long long) n, (long long) k, wide ? "wide" : "normal",
         rule == TILEMM_EMU_RULE_NATIVE ? "native"
         : rule == TILEMM_EMU_RULE_ELEMENTWISE ? "elementwise" : "certified", pg.moduli, bad);
}

#endif

#ifndef TILEMM_EMULATE
/* The Hopper int8 GEMM (kernels_imma_wgmma.cuh) alone, where it can run: random int8 planes (the
 * full range, -128 included; zeros past k as the conversion writes them), several planes in one
 * launch, ragged m, n, k, chunks, against exact int64 sums mod m on the CPU.  R is poisoned
 * before the launch and every byte must come back in [0, m), equal to the reference. */
static void wgmma_case (const char *name, int64_t m, int64_t n, int64_t k, int planes, int chunk_tiles)
{
  if (!tilemm_emu_wgmma_usable ())
    return;
  const int64_t kp = (k + 15) / 16 * 16;
  std::vector<int8_t> A ((size_t) (planes * m * kp), 0), B ((size_t) (planes * n * kp), 0);
  for (int z = 0; z < planes; z++)
    {
      for (int64_t i = 0; i < m; i++)
        for (int64_t p = 0; p < k; p++)
          A[(size_t) (z * m * kp + i * kp + p)] = (int8_t) (rnd64 () >> 56);
      for (int64_t j = 0; j < n; j++)
        for (int64_t p = 0; p < k; p++)
          B[(size_t) (z * n * kp + j * kp + p)] = (int8_t) (rnd64 () >> 56);
    }
  int8_t *dA, *dB;
  uint8_t *dR;
  const size_t rbytes = (size_t) (planes * m * n);
  CHECK (cudaMalloc ((void **) &dA, A.size ()) == cudaSuccess && cudaMalloc ((void **) &dB, B.size ()) == cudaSuccess
             && cudaMalloc ((void **) &dR, rbytes) == cudaSuccess,
         "%s: cudaMalloc", name);
  cudaMemcpy (dA, A.data (), A.size (), cudaMemcpyHostToDevice);
  cudaMemcpy (dB, B.data (), B.size (), cudaMemcpyHostToDevice);
  cudaMemset (dR, 0xEE, rbytes);
  imma_args ia;
  memset (&ia, 0, sizeof ia);
  ia.a = dA; ia.b = dB; ia.a_plane = m * kp; ia.b_plane = n * kp;
  ia.m = m; ia.n = n; ia.kp = kp; ia.k_begin = 0; ia.k_end = kp;
  ia.chunk_tiles = chunk_tiles > 0 ? chunk_tiles : (int) TILEMM_EMU_KCHUNK_TILES;
  for (int z = 0; z < planes; z++)
    ia.moduli[z] = tilemm_emu_moduli[(z * 5) % TILEMM_EMU_MAX_MODULI];
  ia.r = dR; ia.r_plane = m * n; ia.ldr = m;
  tilemm_error err = {};
  /* the plan's grid, in the launch's arguments: none given is refused before any work */
  CHECK (tilemm_emu_wgmma_launch (ia, planes, 0, &err) == TILEMM_EINVAL,
         "%s: a wgmma launch on a grid of 0 blocks: status not EINVAL (%s)", name, err.detail);
  ia.blocks = test_gemm_blocks ();
  const tilemm_status st = tilemm_emu_wgmma_launch (ia, planes, 0, &err);
  const cudaError_t ce = cudaDeviceSynchronize ();
  CHECK (st == TILEMM_OK && ce == cudaSuccess, "%s: status %d (%s), %s", name, (int) st, err.detail,
         cudaGetErrorString (ce));
  std::vector<uint8_t> R (rbytes);
  cudaMemcpy (R.data (), dR, rbytes, cudaMemcpyDeviceToHost);
  int64_t bad = 0;
  for (int z = 0; z < planes; z++)
    {
      const int mod = ia.moduli[z];
#pragma omp parallel for reduction(+ : bad) schedule(dynamic, 1)
      for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < m; i++)
          {
            const int8_t *a = &A[(size_t) (z * m * kp + i * kp)], *b = &B[(size_t) (z * n * kp + j * kp)];
            int64_t sum = 0;
            for (int64_t p = 0; p < kp; p++)
              sum += (int64_t) a[p] * b[p];
            const int want = (int) (((sum % mod) + mod) % mod);
            if (R[(size_t) (z * m * n + i + j * m)] != want)
              bad++;
          }
    }
  CHECK (bad == 0, "%s: %lld of %lld residues differ", name, (long long) bad, (long long) rbytes);
  cudaFree (dA);
  cudaFree (dB);
  cudaFree (dR);
}

static void wgmma_cases (bool quick)
{
  wgmma_case ("wgmma 1x1x1", 1, 1, 1, 1, 0);
  wgmma_case ("wgmma 17x9x16, 3 planes", 17, 9, 16, 3, 0);
  wgmma_case ("wgmma 129x257x129 ragged, 2 planes", 129, 257, 129, 2, 0);
  wgmma_case ("wgmma 200x300x1000 chunks of 128", 200, 300, 1000, 1, 2);
  wgmma_case ("wgmma 64x40x700 chunks of 64 (one step)", 64, 40, 700, 2, 1);
  /* m a multiple of 16: R goes out in 16-byte stores, the last tile's rows partly past m */
  wgmma_case ("wgmma 208x300x500 whole stores, ragged tiles", 208, 300, 500, 2, 0);
  if (quick)
    return;
  wgmma_case ("wgmma 4097x17x300", 4097, 17, 300, 1, 0);
  wgmma_case ("wgmma 17x4097x300, 4 planes", 17, 4097, 300, 4, 0);
  wgmma_case ("wgmma 1000x1100x1234, 5 planes (persistent)", 1000, 1100, 1234, 5, 0);
  wgmma_case ("wgmma 130x260x140000 real chunks", 130, 260, 140000, 1, 0);
  wgmma_case ("wgmma 1100x1300x200, 17 planes", 1100, 1300, 200, 17, 0);
  wgmma_case ("wgmma 1024x777x384 whole stores, 3 planes", 1024, 777, 384, 3, 0);
}
#endif

/* ---------------------------------------------------------------- the statistics' GEMM alone */
/* The STATS epilogue on chosen data: lo matrices in [0, Q − 1], sums sa, sb of either size (big:
 * up to 2^40, past the 32-bit products of the epilogue's exact comparison), zero rows and
 * columns, and rows or columns of lo zeros whose S is 0 (+Inf unless that row or column is a
 * zero row); the ratios against every pair's own division, bitwise.  The sums are drawn so that
 * the largest quotient is not the pair of the smallest S.  chunk > 0: k in launches of chunk
 * 64-byte tiles (the mma.sync kernels' int64 running sums). */
enum stats_zeros { STATS_NO_ZERO_S, STATS_ZERO_S, STATS_ZERO_S_SKIPPED };
static void stats_case (const char *name, int64_t m, int64_t n, int64_t k, bool big, stats_zeros zeros, int chunk,
                        int64_t win_i = -1, int64_t win_j = -1)
{
  const int64_t kp = (k + 15) / 16 * 16;
  std::vector<int8_t> A ((size_t) (m * kp), 0), B ((size_t) (n * kp), 0);
  std::vector<int64_t> sa (m), sb (n);
  std::vector<int> ea (m), eb (n);
  for (int64_t i = 0; i < m; i++)
    {
      /* rows of few large values and rows of many small ones: S spread over a wide range */
      const int top = 1 + (int) (rnd64 () % 126), density = 1 + (int) (rnd64 () % 8);
      for (int64_t p = 0; p < k; p++)
        A[(size_t) (i * kp + p)] = (int8_t) ((int) (rnd64 () % 8) < density ? (int) (rnd64 () % (uint64_t) (top + 1)) : 0);
      if (zeros == STATS_NO_ZERO_S)
        A[(size_t) (i * kp)] = (int8_t) (1 + rnd64 () % 126); /* with B's first column below: S > 0 */
      sa[i] = big ? (int64_t) (rnd64 () >> 24) + 1 : (int64_t) (rnd64 () % (uint64_t) (127 * k)) + 1;
      ea[i] = rnd64 () % 11 == 0 ? TILEMM_EMU_ZERO_ROW : (int) (rnd64 () % 40) - 20;
    }
  for (int64_t j = 0; j < n; j++)
    {
      const int top = 1 + (int) (rnd64 () % 126), density = 1 + (int) (rnd64 () % 8);
      for (int64_t p = 0; p < k; p++)
        B[(size_t) (j * kp + p)] = (int8_t) ((int) (rnd64 () % 8) < density ? (int) (rnd64 () % (uint64_t) (top + 1)) : 0);
      if (zeros == STATS_NO_ZERO_S)
        B[(size_t) (j * kp)] = (int8_t) (1 + rnd64 () % 126);
      sb[j] = big ? (int64_t) (rnd64 () >> 24) + 1 : (int64_t) (rnd64 () % (uint64_t) (127 * k)) + 1;
      eb[j] = rnd64 () % 13 == 0 ? TILEMM_EMU_ZERO_ROW : (int) (rnd64 () % 40) - 20;
    }
  if (zeros != STATS_NO_ZERO_S && m > 2 && n > 2)
    {
      /* a row of A and a column of B of lo zeros: S = 0 against everything (+Inf) */
      const int64_t i0 = m / 2, j0 = n / 3;
      for (int64_t p = 0; p < k; p++)
        A[(size_t) (i0 * kp + p)] = 0, B[(size_t) (j0 * kp + p)] = 0;
      ea[i0] = zeros == STATS_ZERO_S_SKIPPED ? TILEMM_EMU_ZERO_ROW : 3;
      eb[j0] = zeros == STATS_ZERO_S_SKIPPED ? TILEMM_EMU_ZERO_ROW : 3;
    }
  if (win_i >= 0)
    {
      /* one winner: S = 1 at (win_i, win_j) only, 100 elsewhere in its row and column, 10^4·k
       * beyond, equal sums: both ratios are that pair's, so any epilogue that leaves out the
       * thread, fragment slot or tile holding it gives another value */
      std::fill (A.begin (), A.end (), (int8_t) 0);
      std::fill (B.begin (), B.end (), (int8_t) 0);
      for (int64_t i = 0; i < m; i++)
        for (int64_t p = 0; p < k; p++)
          A[(size_t) (i * kp + p)] = (int8_t) (i == win_i ? (p == 0 ? 1 : 0) : 100);
      for (int64_t j = 0; j < n; j++)
        for (int64_t p = 0; p < k; p++)
          B[(size_t) (j * kp + p)] = (int8_t) (j == win_j ? (p == 0 ? 1 : 0) : 100);
      std::fill (sa.begin (), sa.end (), 127 * k);
      std::fill (sb.begin (), sb.end (), 127 * k);
      std::fill (ea.begin (), ea.end (), 0);
      std::fill (eb.begin (), eb.end (), 0);
    }
  /* the reference: each pair's quotients, as the CPU scheme divides */
  double ra = 0.0, rb = 0.0;
#pragma omp parallel for reduction(max : ra, rb) schedule(dynamic, 1)
  for (int64_t j = 0; j < n; j++)
    for (int64_t i = 0; i < m; i++)
      {
        if (ea[i] == TILEMM_EMU_ZERO_ROW || eb[j] == TILEMM_EMU_ZERO_ROW)
          continue;
        int64_t S = 0;
        for (int64_t p = 0; p < k; p++)
          S += (int64_t) A[(size_t) (i * kp + p)] * B[(size_t) (j * kp + p)];
        const double xa = S == 0 ? INFINITY : (double) (TILEMM_EMU_Q * sb[j]) / (double) S;
        const double xb = S == 0 ? INFINITY : (double) (TILEMM_EMU_Q * sa[i]) / (double) S;
        ra = xa > ra ? xa : ra;
        rb = xb > rb ? xb : rb;
      }
  int8_t *dA, *dB;
  int64_t *dsa, *dsb, *ds64;
  int *dea, *deb;
  unsigned long long *dratio;
  const bool ok = cudaMalloc ((void **) &dA, A.size ()) == cudaSuccess && cudaMalloc ((void **) &dB, B.size ()) == cudaSuccess
                  && cudaMalloc ((void **) &dsa, 8 * m) == cudaSuccess && cudaMalloc ((void **) &dsb, 8 * n) == cudaSuccess
                  && cudaMalloc ((void **) &ds64, 8 * m * n) == cudaSuccess && cudaMalloc ((void **) &dea, 4 * m) == cudaSuccess
                  && cudaMalloc ((void **) &deb, 4 * n) == cudaSuccess && cudaMalloc ((void **) &dratio, 16) == cudaSuccess;
  CHECK (ok, "%s: cudaMalloc", name);
  if (!ok)
    return;
  cudaMemcpy (dA, A.data (), A.size (), cudaMemcpyHostToDevice);
  cudaMemcpy (dB, B.data (), B.size (), cudaMemcpyHostToDevice);
  cudaMemcpy (dsa, sa.data (), 8 * m, cudaMemcpyHostToDevice);
  cudaMemcpy (dsb, sb.data (), 8 * n, cudaMemcpyHostToDevice);
  cudaMemcpy (dea, ea.data (), 4 * m, cudaMemcpyHostToDevice);
  cudaMemcpy (deb, eb.data (), 4 * n, cudaMemcpyHostToDevice);
  const unsigned long long zero2[2] = { 0, 0 };
  cudaMemcpy (dratio, zero2, 16, cudaMemcpyHostToDevice);
  imma_args ia;
  memset (&ia, 0, sizeof ia);
  ia.a = dA; ia.b = dB; ia.m = m; ia.n = n; ia.kp = kp;
  ia.chunk_tiles = 1 << 30;
  ia.s64 = ds64; ia.sa = dsa; ia.sb = dsb; ia.ea = dea; ia.eb = deb; ia.ratio_bits = dratio;
  const int64_t step = chunk > 0 ? 64 * (int64_t) chunk : kp;
  /* the statistics' GEMM as the plan names it for these chunks (tilemm_emu_stats_gemm) */
  const int64_t chunk_tiles = chunk > 0 ? chunk : TILEMM_EMU_KCHUNK_TILES;
  const tilemm_emu_gemm stats_gemm
    = tilemm_emu_stats_gemm (test_setup (0, nullptr, TILEMM_DOUBLE, 0).gemm, kp, chunk_tiles);
  const tilemm_emu_gpu::gemm_choice gc = { stats_gemm, chunk_tiles, stats_gemm, test_gemm_blocks (),
                                           test_gemm_blocks () };
  tilemm_status st = TILEMM_OK;
  tilemm_error err = {};
  for (int64_t k0 = 0; k0 < kp && st == TILEMM_OK; k0 += step)
    {
      ia.k_begin = k0;
      ia.k_end = k0 + step < kp ? k0 + step : kp;
      ia.first = k0 == 0;
      ia.last = ia.k_end == kp;
      st = tilemm_emu_gpu::launch_imma_named<IMMA_STATS> (gc, ia, 1, 0, &err);
    }
  const cudaError_t ce = cudaDeviceSynchronize ();
  CHECK (st == TILEMM_OK && ce == cudaSuccess, "%s: status %d (%s), %s", name, (int) st, err.detail,
         cudaGetErrorString (ce));
  unsigned long long bits[2] = { 0, 0 };
  cudaMemcpy (bits, dratio, 16, cudaMemcpyDeviceToHost);
  double got[2];
  memcpy (got, bits, 16);
  CHECK (!memcmp (&got[0], &ra, 8) && !memcmp (&got[1], &rb, 8), "%s: ratios %.17g %.17g, want %.17g %.17g", name,
         got[0], got[1], ra, rb);
  cudaFree (dA); cudaFree (dB); cudaFree (dsa); cudaFree (dsb); cudaFree (ds64); cudaFree (dea); cudaFree (deb);
  cudaFree (dratio);
}

/* Every kernel of the statistics (the default: wgmma on compute capability 9.0 where one launch
 * covers k, else the mma.sync shapes), one launch and in chunks. */
static void stats_cases (bool quick, bool emulated)
{
  const char *const kernels[] = { nullptr, "big", "v2", "small" };
  for (const char *kern : kernels)
    {
      if (kern)
        setenv ("TILEMM_EMU_IMMA", kern, 1);
      else
        unsetenv ("TILEMM_EMU_IMMA");
      const char *kn = kern ? kern : "default";
      char name[160];
      struct
      {
        int64_t m, n, k;
        bool big;
        stats_zeros zeros;
        int chunk;
      } sc[] = {
        { 37, 53, 29, false, STATS_NO_ZERO_S, 0 },  { 129, 260, 67, false, STATS_NO_ZERO_S, 0 },
        { 129, 260, 67, true, STATS_NO_ZERO_S, 0 }, { 70, 90, 100, false, STATS_ZERO_S, 0 },
        { 70, 90, 100, true, STATS_ZERO_S_SKIPPED, 0 }, { 45, 38, 300, true, STATS_NO_ZERO_S, 1 },
        { 45, 38, 300, false, STATS_ZERO_S_SKIPPED, 2 }, { 300, 520, 200, false, STATS_NO_ZERO_S, 0 },
        { 300, 520, 200, true, STATS_ZERO_S_SKIPPED, 0 }, { 1000, 1100, 64, false, STATS_NO_ZERO_S, 0 },
      };
      int index = 0;
      for (auto &c : sc)
        {
          if ((quick && index >= 4) || (emulated && c.m * c.n > 100000) || (emulated && kern && index >= 7))
            break;
          index++;
          snprintf (name, sizeof name, "stats %s %lldx%lldx%lld%s%s%s", kn, (long long) c.m, (long long) c.n,
                    (long long) c.k, c.big ? " big sums" : "",
                    c.zeros == STATS_ZERO_S ? " S=0" : c.zeros == STATS_ZERO_S_SKIPPED ? " S=0 skipped" : "",
                    c.chunk ? " chunks" : "");
          stats_case (name, c.m, c.n, c.k, c.big, c.zeros, c.chunk);
        }
      /* the winner swept over every row slot of the tiles (and many column slots), one launch
       * and in chunks */
      const int64_t wm = emulated ? 70 : 130, wn = emulated ? 40 : 264;
      for (int64_t i = 0; i < wm; i += quick ? 13 : 1)
        {
          const int64_t j = (i * 37) % wn;
          const int chunk = i % 3 == 2 ? 1 : 0;
          snprintf (name, sizeof name, "stats %s %lldx%lldx%d winner (%lld, %lld)%s", kn, (long long) wm,
                    (long long) wn, 96, (long long) i, (long long) j, chunk ? " chunks" : "");
          stats_case (name, wm, wn, 96, false, STATS_NO_ZERO_S, chunk, i, j);
        }
    }
  unsetenv ("TILEMM_EMU_IMMA");
}

#ifndef TILEMM_EMULATE
static void backends_cases ()
{
  const int64_t shapes[][3] = { { 1, 1, 1 }, { 37, 29, 41 }, { 130, 67, 300 }, { 64, 3, 1000 } };
  for (const auto &s : shapes)
    for (int wide = 0; wide < 2; wide++)
      for (const tilemm_emu_rule rule : { TILEMM_EMU_RULE_CERTIFIED, TILEMM_EMU_RULE_NATIVE,
                                          TILEMM_EMU_RULE_ELEMENTWISE })
        {
          backends_case<double> (TILEMM_DOUBLE, s[0], s[1], s[2], wide, rule);
          backends_case<float> (TILEMM_SINGLE, s[0], s[1], s[2], wide, rule);
          backends_case<double> (TILEMM_COMPLEX_DOUBLE, s[0], s[1], s[2], wide, rule);
          backends_case<float> (TILEMM_COMPLEX_SINGLE, s[0], s[1], s[2], wide, rule);
        }
}

static void host_entry_cases ()
{
  const int64_t m = 37, n = 29, k = 41;
  std::vector<double> A (m * k), B (k * n), C (m * n, -1.0), C2 (m * n, -1.0);
  for (auto &x : A) x = nrand ();
  for (auto &x : B) x = nrand ();
  tilemm_view a = { m, k, m, TILEMM_DOUBLE, A.data () }, b = { k, n, k, TILEMM_DOUBLE, B.data () },
              c = { m, n, m, TILEMM_DOUBLE, C.data () };
  tilemm_plan plan;
  memset (&plan, 0, sizeof plan);
  plan.type = TILEMM_DOUBLE;
  plan.m = m; plan.n = n; plan.k = k;
  tilemm_emu_plan used;
  tilemm_error err = {};
  tilemm_status s = tilemm_cuda_multiply_emulated (&plan, nullptr,
                                                   TILEMM_OP_NONE, &a, TILEMM_OP_NONE, &b, &c, nullptr, &used,
                                                   &err);
  CHECK (s == TILEMM_OK && used.verdict == TILEMM_EMU_OK, "host entry: status %d verdict %d (%s)", (int) s,
         (int) used.verdict, err.detail);
  /* the same through device pointers */
  double *dA, *dB, *dC;
  cudaMalloc ((void **) &dA, 8 * m * k);
  cudaMalloc ((void **) &dB, 8 * k * n);
  cudaMalloc ((void **) &dC, 8 * m * n);
  cudaMemcpy (dA, A.data (), 8 * m * k, cudaMemcpyHostToDevice);
  cudaMemcpy (dB, B.data (), 8 * k * n, cudaMemcpyHostToDevice);
  tilemm_emu_plan p2;
  const tilemm_emu_branches branches = branches_of (nullptr);
  const tilemm_emu_cuda_setup setup = test_setup (0, &branches, TILEMM_DOUBLE, k);
  tilemm_emu_cuda_arena arena;
  test_arena (arena, TILEMM_DOUBLE, m, n, k, nullptr, TILEMM_EMU_RUN_WHOLE, 0);
  s = tilemm_emu_cuda_run (nullptr, &setup, TILEMM_DOUBLE, m, n, k, dA, m, dB, k, dC, m, nullptr, nullptr, &p2,
                           nullptr, nullptr, &arena, nullptr, &err);
  cudaMemcpy (C2.data (), dC, 8 * m * n, cudaMemcpyDeviceToHost);
  CHECK (s == TILEMM_OK && !memcmp (C.data (), C2.data (), 8 * m * n), "host entry: differs from the device-level call");
  test_arena_free (arena);
  cudaFree (dA);
  cudaFree (dB);
  cudaFree (dC);
  /* faults */
  const char *kinds[] = { "malloc", "launch", "memcpy" };
  for (const char *kind : kinds)
    for (int i = 1; i <= 12; i++)
      {
        char v[32];
        snprintf (v, sizeof v, "%s:%d", kind, i);
        setenv ("TILEMM_FAULT", v, 1);
        std::fill (C.begin (), C.end (), -1.0);
        s = tilemm_cuda_multiply_emulated (&plan, nullptr,
                                           TILEMM_OP_NONE, &a, TILEMM_OP_NONE, &b, &c, nullptr, &used, &err);
        unsetenv ("TILEMM_FAULT");
        if (s == TILEMM_OK) /* past the last operation of that kind */
          break;
        CHECK (s == TILEMM_EDEVMEM || s == TILEMM_ECUDA, "fault %s: status %d", v, (int) s);
      }
  /* stop before anything */
  tilemm_stop stop = { [] (void *) { return 1; }, nullptr };
  s = tilemm_cuda_multiply_emulated (&plan, nullptr, TILEMM_OP_NONE, &a,
                                     TILEMM_OP_NONE, &b, &c, &stop, &used, &err);
  CHECK (s == TILEMM_EINTERRUPTED, "stop: status %d", (int) s);
}
#endif

/* A's work kept between the panels of C's columns (tilemm_emu_cuda_keep), as the pipeline
 * (src/cuda/emulated_pipeline.cu) runs them: each panel's statistics (all of A, its columns of
 * B) merged, the branch they select, the panel's product under it, and at the end every panel
 * whose branch is not the whole's run again under the whole's.  C is bitwise the product of one
 * call without anything kept.  `spread`: B's last quarter of columns over many binades, so the
 * first panel's branch (its bits for A among them) is not the whole's and A's kept residues must
 * be made anew.  `poison`: A on the device overwritten once the first panel is enqueued (its data
 * chosen so that every panel runs the first one's branch: B's first column spread): nothing
 * after may read A again. */
static void kept_a_case (const char *name, int64_t m, int64_t n, int64_t k, int64_t pad_a,
                         int64_t first, int64_t cols, bool spread, bool poison, int forced,
                         int64_t chunk)
{
  const int64_t lda = m + pad_a, ldb = k, ldc = m;
  std::vector<double> A ((size_t) (lda * k)), B ((size_t) (ldb * n));
  seed_from (name);
  for (auto &x : A) x = nrand ();
  for (int64_t j = 0; j < n; j++)
    for (int64_t p = 0; p < k; p++)
      {
        /* spread: the last quarter's columns; poison: the first column (its branch the whole's) */
        const bool wide = spread ? j >= n - n / 4 : poison && j == 0;
        B[(size_t) (p + j * ldb)] = ldexp (nrand (), wide ? (int) ((p * 7 + j * 3) % 21) - 10 : 0);
      }
  double *dA, *dB, *dC, *dR;
  cudaMalloc ((void **) &dA, sizeof (double) * A.size ());
  cudaMalloc ((void **) &dB, sizeof (double) * B.size ());
  cudaMalloc ((void **) &dC, sizeof (double) * (size_t) (ldc * n));
  cudaMalloc ((void **) &dR, sizeof (double) * (size_t) (ldc * n));
  cudaMemcpy (dA, A.data (), sizeof (double) * A.size (), cudaMemcpyHostToDevice);
  cudaMemcpy (dB, B.data (), sizeof (double) * B.size (), cudaMemcpyHostToDevice);
  tilemm_emu_options opt;
  tilemm_emu_default_options (&opt, TILEMM_DOUBLE);
  opt.moduli = forced;
  const tilemm_emu_branches branches = branches_of (&opt);
  tilemm_error err = {};
  /* the reference: one call, nothing kept */
  tilemm_emu_plan whole;
  {
    tilemm_emu_cuda_arena arena = {};
    test_arena (arena, TILEMM_DOUBLE, m, n, k, &opt, TILEMM_EMU_RUN_WHOLE, chunk);
    const tilemm_emu_cuda_setup setup = test_setup (chunk, &branches, TILEMM_DOUBLE, k);
    CHECK (tilemm_emu_cuda_run (&opt, &setup, TILEMM_DOUBLE, m, n, k, dA, lda, dB, ldb, dR, ldc,
                                nullptr, nullptr, &whole, nullptr, nullptr, &arena, nullptr, &err)
             == TILEMM_OK && whole.verdict == TILEMM_EMU_OK,
           "%s: the whole product: %s", name, err.detail);
    test_arena_free (arena);
  }
  /* the panels, A's work kept: the arena of the widest panel, slot 0 raised for the keeping */
  const int64_t widest = first > cols ? first : cols;
  tilemm_emu_cuda_arena arena = {};
  size_t need[4];
  tilemm_emu_cuda_arena_need (TILEMM_DOUBLE, m, widest, k, &opt, 0, TILEMM_EMU_RUN_WHOLE, chunk, need);
  tilemm_emu_cuda_arena_keep_a (TILEMM_DOUBLE, m, widest, k, chunk, need);
  for (int s = 0; s < 4; s++)
    if (need[s] > 0 && cudaMalloc (&arena.base[s], need[s]) == cudaSuccess)
      arena.bytes[s] = need[s];
  tilemm_emu_cuda_keep keep;
  memset (&keep, 0, sizeof keep);
  tilemm_emu_cuda_setup setup = test_setup (chunk, &branches, TILEMM_DOUBLE, k);
  setup.keep = &keep;
  const int panels = 1 + (int) ((n - first + cols - 1) / cols);
  auto j0 = [&] (int p) { return p == 0 ? (int64_t) 0 : first + (int64_t) (p - 1) * cols; };
  auto width = [&] (int p) {
    const int64_t w = p == 0 ? first : cols;
    return n - j0 (p) < w ? n - j0 (p) : w;
  };
  std::vector<tilemm_emu_plan> ran ((size_t) panels);
  tilemm_emu_stats merged;
  memset (&merged, 0, sizeof merged);
  merged.inner = k;
  tilemm_emu_plan now = {}, first_branch = {};
  bool ok = true;
  for (int p = 0; p < panels && ok; p++)
    {
      tilemm_emu_stats st;
      ok = tilemm_emu_cuda_stats (&opt, &setup, TILEMM_DOUBLE, m, width (p), k, dA, lda,
                                  dB + ldb * j0 (p), ldb, nullptr, &st, &arena, &err) == TILEMM_OK;
      tilemm_emu_stats_merge (&merged, &st);
      tilemm_emu_select (&branches, &merged, &now);
      if (p == 0)
        first_branch = now;
      ok = ok && now.verdict == TILEMM_EMU_OK
           && tilemm_emu_cuda_run_plan (&now, &setup, TILEMM_DOUBLE, m, width (p), k, dA, lda,
                                        dB + ldb * j0 (p), ldb, dC + ldc * j0 (p), ldc, nullptr,
                                        nullptr, &ran[(size_t) p], nullptr, &arena, nullptr, &err)
                == TILEMM_OK;
      if (p == 0 && poison) /* A gone: what is kept must carry every later panel */
        {
          std::vector<double> gone (A.size (), 3.0);
          cudaMemcpy (dA, gone.data (), sizeof (double) * gone.size (), cudaMemcpyHostToDevice);
        }
    }
  for (int p = 0; p < panels && ok; p++)
    if (ran[(size_t) p].moduli != now.moduli || ran[(size_t) p].pa != now.pa || ran[(size_t) p].pb != now.pb)
      ok = tilemm_emu_cuda_run_plan (&now, &setup, TILEMM_DOUBLE, m, width (p), k, dA, lda,
                                     dB + ldb * j0 (p), ldb, dC + ldc * j0 (p), ldc, nullptr,
                                     nullptr, &ran[(size_t) p], nullptr, &arena, nullptr, &err)
           == TILEMM_OK;
  CHECK (ok, "%s: a panel: %s", name, err.detail);
  CHECK (now.moduli == whole.moduli && now.pa == whole.pa && now.pb == whole.pb,
         "%s: the panels' branch (%d, %d, %d) is not the whole's (%d, %d, %d)", name, now.moduli,
         now.pa, now.pb, whole.moduli, whole.pa, whole.pb);
  /* the data do what they are for */
  if (spread)
    CHECK (first_branch.pa != now.pa || first_branch.moduli != now.moduli,
           "%s: the first panel's branch (%d moduli, %d bits for A) is the whole's", name,
           first_branch.moduli, first_branch.pa);
  if (poison)
    CHECK (first_branch.pa == now.pa && first_branch.moduli == now.moduli,
           "%s: the branch changed after the first panel: A is read again by design", name);
  CHECK (keep.a == dA && keep.exponents && keep.sums && keep.residue_moduli == now.moduli
           && keep.residue_bits == now.pa,
         "%s: nothing kept (exponents %d, sums %d, residues %d at %d bits)", name, keep.exponents,
         keep.sums, keep.residue_moduli, keep.residue_bits);
  std::vector<double> C ((size_t) (ldc * n)), R ((size_t) (ldc * n));
  cudaMemcpy (C.data (), dC, sizeof (double) * C.size (), cudaMemcpyDeviceToHost);
  cudaMemcpy (R.data (), dR, sizeof (double) * R.size (), cudaMemcpyDeviceToHost);
  int64_t differ = 0;
  for (size_t q = 0; q < C.size (); q++)
    differ += memcmp (&C[q], &R[q], sizeof (double)) != 0;
  CHECK (differ == 0, "%s: %lld entries differ from the product of one call", name, (long long) differ);
  test_arena_free (arena);
  cudaFree (dA);
  cudaFree (dB);
  cudaFree (dC);
  cudaFree (dR);
}

static void kept_a_cases ()
{
  kept_a_case ("A kept: 37x60x50, 20 then 15", 37, 60, 50, 0, 20, 15, false, false, 0, 0);
  kept_a_case ("A kept: 21x40x33, B's last columns spread", 21, 40, 33, 3, 10, 12, true, false, 0, 0);
  kept_a_case ("A kept: 21x40x33, 1-column panels, spread", 21, 40, 33, 0, 1, 1, true, false, 0, 0);
  kept_a_case ("A kept: 37x60x50, A gone after the first panel", 37, 60, 50, 2, 20, 25, false, true, 0, 0);
  kept_a_case ("A kept: 21x30x300, chunks of 64, A gone", 21, 30, 300, 0, 16, 12, false, true, 0, 1);
  kept_a_case ("A kept: 30x26x40, forced 9 moduli, A gone", 30, 26, 40, 0, 10, 13, false, true, 9, 0);
}

/* The call allocates nothing and decides nothing: each slot of the arena one byte short of what
 * the sizing says is refused before any work (C untouched), and so is a call without a setup or,
 * for the whole scheme, without a decide function; the sized arena runs. */
static void arena_cases ()
{
  for (tilemm_type type : { TILEMM_DOUBLE, TILEMM_COMPLEX_SINGLE })
    {
      const int64_t m = 19, n = 13, k = 37, parts = tilemm_type_is_complex (type) ? 2 : 1;
      const size_t es = tilemm_type_size (type);
      std::vector<double> A (parts * m * k), B (parts * k * n), C (parts * m * n, 0.0);
      std::vector<float> Af (A.size ()), Bf (B.size ());
      for (auto &x : A) x = nrand ();
      for (auto &x : B) x = nrand ();
      for (size_t q = 0; q < A.size (); q++) Af[q] = (float) A[q];
      for (size_t q = 0; q < B.size (); q++) Bf[q] = (float) B[q];
      const size_t real = es / (size_t) parts;
      const void *ha = real == 8 ? (const void *) A.data () : (const void *) Af.data ();
      const void *hb = real == 8 ? (const void *) B.data () : (const void *) Bf.data ();
      void *dA, *dB, *dC;
      cudaMalloc (&dA, real * A.size ());
      cudaMalloc (&dB, real * B.size ());
      cudaMalloc (&dC, real * C.size ());
      cudaMemcpy (dA, ha, real * A.size (), cudaMemcpyHostToDevice);
      cudaMemcpy (dB, hb, real * B.size (), cudaMemcpyHostToDevice);
      /* an explicit count of moduli: the product's slot is then exactly what the call uses */
      tilemm_emu_options opt;
      tilemm_emu_default_options (&opt, type);
      opt.moduli = 10;
      const tilemm_emu_branches branches = branches_of (&opt);
      const tilemm_emu_cuda_setup setup = test_setup (0, &branches, type, k);
      tilemm_emu_cuda_arena arena;
      test_arena (arena, type, m, n, k, &opt, TILEMM_EMU_RUN_WHOLE, 0);
      tilemm_emu_plan used;
      tilemm_error err = {};
      for (int slot = 0; slot < 4; slot++)
        {
          if (arena.bytes[slot] == 0)
            continue;
          arena.bytes[slot] -= 1;
          err.detail[0] = 0;
          const std::vector<unsigned char> poison (real * C.size (), 0x7f);
          cudaMemcpy (dC, poison.data (), poison.size (), cudaMemcpyHostToDevice);
          const tilemm_status s = tilemm_emu_cuda_run (&opt, &setup, type, m, n, k, dA, m, dB, k, dC, m, nullptr,
                                                       nullptr, &used, nullptr, nullptr, &arena, nullptr, &err);
          arena.bytes[slot] += 1;
          char want[16];
          snprintf (want, sizeof want, "slot %d", slot);
          CHECK (s == TILEMM_EINVAL && strstr (err.detail, want) != nullptr, "%s: arena slot %d short by a byte: status %d (%s)",
                 tilemm_type_name (type), slot, (int) s, err.detail);
          std::vector<unsigned char> back (real * C.size ());
          cudaMemcpy (back.data (), dC, back.size (), cudaMemcpyDeviceToHost);
          bool untouched = true;
          for (unsigned char b : back) untouched &= b == 0x7f;
          CHECK (untouched, "%s: arena slot %d short: C written", tilemm_type_name (type), slot);
        }
      tilemm_status s = tilemm_emu_cuda_run (&opt, nullptr, type, m, n, k, dA, m, dB, k, dC, m, nullptr, nullptr,
                                             &used, nullptr, nullptr, &arena, nullptr, &err);
      CHECK (s == TILEMM_EINVAL, "%s: no setup: status %d", tilemm_type_name (type), (int) s);
      tilemm_emu_cuda_setup undecided = setup;
      undecided.branches = nullptr;
      s = tilemm_emu_cuda_run (&opt, &undecided, type, m, n, k, dA, m, dB, k, dC, m, nullptr, nullptr, &used,
                               nullptr, nullptr, &arena, nullptr, &err);
      CHECK (s == TILEMM_EINVAL, "%s: no planned branches: status %d", tilemm_type_name (type), (int) s);
      s = tilemm_emu_cuda_run (&opt, &setup, type, m, n, k, dA, m, dB, k, dC, m, nullptr, nullptr, &used, nullptr,
                               nullptr, &arena, nullptr, &err);
      CHECK (s == TILEMM_OK && used.verdict == TILEMM_EMU_OK, "%s: the sized arena: status %d verdict %d (%s)",
             tilemm_type_name (type), (int) s, (int) used.verdict, err.detail);
      test_arena_free (arena);
      cudaFree (dA);
      cudaFree (dB);
      cudaFree (dC);
    }
}

/* The int8 GEMM each GEMM of the scheme runs is the one the plan names, and no launcher switches
 * on its own: the statistics' GEMM runs wgmma only where one launch covers k
 * (tilemm_emu_stats_gemm), and in the host emulation (which counts the kernels run) a product
 * under each mma.sync GEMM runs that one alone, in one launch or in chunks, and wgmma named where
 * it cannot run is an error, not v2. */
#ifdef TILEMM_EMULATE
/* The int8 GEMMs launched per kernel (tilemm_emu_gemm's order; wgmma never runs here) and
 * epilogue (the statistics', the modular), counted by the host emulation's launch hook. */
static unsigned long long imma_launches[4][2];
template <class Cfg> static void count_of (const void *kernel, int g)
{
  imma_launches[g][0] += kernel == (const void *) &imma_kernel<Cfg, IMMA_STATS>;
  imma_launches[g][1] += kernel == (const void *) &imma_kernel<Cfg, IMMA_MOD>;
}
static void count_imma (const void *kernel)
{
  count_of<imma_v2> (kernel, TILEMM_EMU_GEMM_V2);
  count_of<imma_big> (kernel, TILEMM_EMU_GEMM_BIG);
  count_of<imma_small> (kernel, TILEMM_EMU_GEMM_SMALL);
}
#endif

/* The statistics' GEMM is the setup's (the call plan's emu_stats_gemm), launched as named: the
 * scheme chooses none from k.  A setup naming wgmma for statistics whose k needs chunks (a k-chunk
 * of one 64-byte tile, k = 300) is refused by the wgmma launch, wherever wgmma runs or not (the
 * rule would have taken v2 and run); under the emulation, one naming the 128×128 tiles of 8 warps
 * beside v2's modular GEMMs launches those for the statistics. */
static void stats_gemm_cases ()
{
  const int64_t m = 33, n = 40, k = 300;
  std::vector<double> A ((size_t) (m * k)), B ((size_t) (k * n));
  for (double &x : A) x = nrand ();
  for (double &x : B) x = nrand ();
  double *dA = nullptr, *dB = nullptr;
  cudaMalloc ((void **) &dA, 8 * A.size ());
  cudaMalloc ((void **) &dB, 8 * B.size ());
  cudaMemcpy (dA, A.data (), 8 * A.size (), cudaMemcpyHostToDevice);
  cudaMemcpy (dB, B.data (), 8 * B.size (), cudaMemcpyHostToDevice);
  tilemm_emu_options opt;
  tilemm_emu_default_options (&opt, TILEMM_DOUBLE);   /* the certified rule: the ratios' GEMM */
  const tilemm_emu_gemm gemm
    = tilemm_emu_cuda_wgmma_runs () ? TILEMM_EMU_GEMM_WGMMA : TILEMM_EMU_GEMM_V2;
  {
    tilemm_emu_cuda_arena arena;
    test_arena (arena, TILEMM_DOUBLE, m, n, k, &opt, TILEMM_EMU_RUN_STATS, 1);
    const tilemm_emu_cuda_setup setup = { gemm, 1, nullptr, nullptr, TILEMM_EMU_GEMM_WGMMA,
                                          test_gemm_blocks () };
    tilemm_emu_stats st;
    tilemm_error err = {};
    const tilemm_status s = tilemm_emu_cuda_stats (&opt, &setup, TILEMM_DOUBLE, m, n, k, dA, m, dB,
                                                   k, nullptr, &st, &arena, &err);
    CHECK (s == TILEMM_EINVAL && strstr (err.detail, "wgmma") != nullptr,
           "statistics' GEMM named wgmma where k needs chunks: status %d (%s), not refused",
           (int) s, err.detail);
    test_arena_free (arena);
  }
#ifdef TILEMM_EMULATE
  {
    tilemm_emu_on_launch = count_imma;
    tilemm_emu_cuda_arena arena;
    test_arena (arena, TILEMM_DOUBLE, m, n, k, &opt, TILEMM_EMU_RUN_STATS, 0);
    const tilemm_emu_cuda_setup setup = { TILEMM_EMU_GEMM_V2, 0, nullptr, nullptr,
                                          TILEMM_EMU_GEMM_SMALL, test_gemm_blocks () };
    unsigned long long before[4][2];
    memcpy (before, imma_launches, sizeof before);
    tilemm_emu_stats st;
    tilemm_error err = {};
    const tilemm_status s = tilemm_emu_cuda_stats (&opt, &setup, TILEMM_DOUBLE, m, n, k, dA, m, dB,
                                                   k, nullptr, &st, &arena, &err);
    const unsigned long long small = imma_launches[TILEMM_EMU_GEMM_SMALL][0] - before[TILEMM_EMU_GEMM_SMALL][0];
    const unsigned long long v2 = imma_launches[TILEMM_EMU_GEMM_V2][0] - before[TILEMM_EMU_GEMM_V2][0];
    CHECK (s == TILEMM_OK && small > 0 && v2 == 0,
           "statistics' GEMM named small beside v2: status %d (%s), %llu small and %llu v2 "
           "launches of the statistics", (int) s, err.detail, small, v2);
    test_arena_free (arena);
  }
#endif
  cudaFree (dA);
  cudaFree (dB);
}

static void named_gemm_cases ()
{
  CHECK (tilemm_emu_stats_gemm (TILEMM_EMU_GEMM_WGMMA, 304, 5) == TILEMM_EMU_GEMM_WGMMA
           && tilemm_emu_stats_gemm (TILEMM_EMU_GEMM_WGMMA, 320, 5) == TILEMM_EMU_GEMM_WGMMA,
         "statistics' GEMM: wgmma not named where one launch covers k");
  CHECK (tilemm_emu_stats_gemm (TILEMM_EMU_GEMM_WGMMA, 304, 4) == TILEMM_EMU_GEMM_V2
           && tilemm_emu_stats_gemm (TILEMM_EMU_GEMM_WGMMA, 321, 5) == TILEMM_EMU_GEMM_V2,
         "statistics' GEMM: v2 not named where k needs chunks");
  for (int g = TILEMM_EMU_GEMM_V2; g <= TILEMM_EMU_GEMM_SMALL; g++)
    CHECK (tilemm_emu_stats_gemm ((tilemm_emu_gemm) g, 304, 1) == g
             && tilemm_emu_stats_gemm ((tilemm_emu_gemm) g, 304, 5) == g,
           "statistics' GEMM: %d not kept", g);
#ifdef TILEMM_EMULATE
  tilemm_emu_on_launch = count_imma;
  const char *const names[] = { "wgmma", "v2", "big", "small" };
  for (int g = TILEMM_EMU_GEMM_V2; g <= TILEMM_EMU_GEMM_SMALL; g++)
    for (int chunk = 0; chunk <= 1; chunk++)
      {
        setenv ("TILEMM_EMU_IMMA", names[g], 1);
        unsigned long long before[4][2];
        memcpy (before, imma_launches, sizeof before);
        char name[96];
        snprintf (name, sizeof name, "double 33x40x300 %s named%s", names[g], chunk ? ", chunks" : "");
        run_case<double> (name, { 33, 40, 300, 0, 0, 0 }, NORMAL, 0, chunk);
        unsigned long long d[4][2];
        for (int h = 0; h < 4; h++)
          for (int e = 0; e < 2; e++)
            d[h][e] = imma_launches[h][e] - before[h][e];
        bool only = d[g][0] > 0 && d[g][1] > 0;
        for (int h = 0; h < 4; h++)
          only &= h == g || (d[h][0] == 0 && d[h][1] == 0);
        CHECK (only, "%s: launches per kernel (wgmma v2 big small), statistics/modular: %llu/%llu "
               "%llu/%llu %llu/%llu %llu/%llu", name, d[0][0], d[0][1], d[1][0], d[1][1], d[2][0],
               d[2][1], d[3][0], d[3][1]);
      }
  unsetenv ("TILEMM_EMU_IMMA");
  imma_args ia;
  memset (&ia, 0, sizeof ia);
  ia.m = 1; ia.n = 1; ia.kp = 64; ia.k_end = 64; ia.chunk_tiles = 1;
  ia.a_plane = 64; ia.b_plane = 64; ia.r_plane = 1; ia.ldr = 1; ia.moduli[0] = tilemm_emu_moduli[0];
  /* real buffers, so that a kernel run in its place (the bug) computes rather than faults */
  int8_t *dab = nullptr;
  uint8_t *dr = nullptr;
  cudaMalloc ((void **) &dab, 128);
  cudaMalloc ((void **) &dr, 1);
  cudaMemsetAsync (dab, 1, 128, 0);
  ia.a = dab; ia.b = dab + 64; ia.r = dr;
  const tilemm_emu_gpu::gemm_choice wg = { TILEMM_EMU_GEMM_WGMMA, 1 };
  unsigned long long before[4][2];
  memcpy (before, imma_launches, sizeof before);
  tilemm_error err = {};
  const tilemm_status st = tilemm_emu_gpu::launch_imma_named<IMMA_MOD> (wg, ia, 1, 0, &err);
  CHECK (st == TILEMM_EINVAL && !memcmp (before, imma_launches, sizeof before),
         "wgmma named where it cannot run: status %d (%s), a kernel ran instead", (int) st, err.detail);
  cudaFree (dab);
  cudaFree (dr);
  tilemm_emu_on_launch = nullptr;
#endif
}

/* The moduli a modular GEMM launch takes are the setup's (the call plan's multiprocessors, read
 * through tilemm_emu_planes_per_launch): a product is bitwise the same with all moduli in one
 * launch (multiprocessors enough for two waves of its tiles) and with one a launch (0: the facts
 * name none), on v2 and on wgmma where it runs (which takes all always); in C blocks too.  Under
 * the emulation, the modular launches are counted: one a block, or N a block.  Calibration's
 * timing of the GEMMs runs on either setup. */
static void moduli_per_launch_cases ()
{
  const int64_t m = 200, n = 300, k = 100;
  std::vector<double> A ((size_t) (m * k)), B ((size_t) (k * n));
  for (double &x : A) x = nrand ();
  for (double &x : B) x = nrand ();
  double *dA = nullptr, *dB = nullptr, *dC = nullptr;
  cudaMalloc ((void **) &dA, 8 * A.size ());
  cudaMalloc ((void **) &dB, 8 * B.size ());
  cudaMalloc ((void **) &dC, 8 * (size_t) (m * n));
  cudaMemcpy (dA, A.data (), 8 * A.size (), cudaMemcpyHostToDevice);
  cudaMemcpy (dB, B.data (), 8 * B.size (), cudaMemcpyHostToDevice);
  tilemm_emu_options opt;
  tilemm_emu_default_options (&opt, TILEMM_DOUBLE);
  const tilemm_emu_branches branches = branches_of (&opt);
  const bool wgmma = tilemm_emu_cuda_wgmma_runs () != 0;
  std::vector<double> first;
  const int blocks_of[] = { 0, 128 };   /* C whole, and C in blocks of 128 columns */
  for (int g = 0; g < (wgmma ? 2 : 1); g++)
    for (int many = 0; many <= 1; many++)
      for (int bw : blocks_of)
        {
          const tilemm_emu_gemm gemm = g ? TILEMM_EMU_GEMM_WGMMA : TILEMM_EMU_GEMM_V2;
          /* 1 << 20 multiprocessors: every block under two waves, all moduli in one launch */
          const int sms = many ? 1 << 20 : 0;
          const tilemm_emu_cuda_setup setup = { gemm, 0, &branches, nullptr,
                                                tilemm_emu_plan_stats_gemm (gemm, TILEMM_DOUBLE, k, 0),
                                                test_gemm_blocks (), sms };
          char name[128];
          snprintf (name, sizeof name, "moduli a launch: %s, %d multiprocessors, blocks of %d",
                    g ? "wgmma" : "v2", sms, bw);
          tilemm_emu_cuda_arena arena;
          test_arena (arena, TILEMM_DOUBLE, m, n, k, &opt, TILEMM_EMU_RUN_WHOLE, 0);
          const tilemm_emu_cuda_blocks blocks = { bw, nullptr, 0 };
          tilemm_emu_plan used;
          tilemm_error err = {};
          cudaMemset (dC, 0xff, 8 * (size_t) (m * n));
#ifdef TILEMM_EMULATE
          tilemm_emu_on_launch = count_imma;
          unsigned long long before[4][2];
          memcpy (before, imma_launches, sizeof before);
#endif
          const tilemm_status st
            = tilemm_emu_cuda_run (&opt, &setup, TILEMM_DOUBLE, m, n, k, dA, m, dB, k, dC, m,
                                   nullptr, nullptr, &used, nullptr, nullptr, &arena, &blocks, &err);
          CHECK (st == TILEMM_OK && used.verdict == TILEMM_EMU_OK, "%s: status %d (%s)", name,
                 (int) st, err.detail);
#ifdef TILEMM_EMULATE
          {
            const unsigned long long launched = imma_launches[gemm][1] - before[gemm][1];
            const unsigned long long c_blocks = bw > 0 ? (n + bw - 1) / bw : 1;
            const unsigned long long want = c_blocks * (many ? 1 : (unsigned long long) used.moduli);
            CHECK (launched == want, "%s: %llu modular launches, want %llu (%d moduli)", name,
                   launched, want, used.moduli);
          }
          tilemm_emu_on_launch = nullptr;
#endif
          std::vector<double> C ((size_t) (m * n));
          cudaMemcpy (C.data (), dC, 8 * C.size (), cudaMemcpyDeviceToHost);
          if (first.empty ())
            first = C;
          else
            CHECK (!memcmp (first.data (), C.data (), 8 * C.size ()),
                   "%s: C differs bitwise from v2's with one modulus a launch", name);
          test_arena_free (arena);
          /* calibration's timing on the same setup: the launches the product would run */
          tilemm_emu_cuda_arena tarena;
          test_arena (tarena, TILEMM_DOUBLE, m, n, k, &opt, TILEMM_EMU_RUN_GIVEN, 0);
          double ms = -1;
          const tilemm_status ts = tilemm_emu_cuda_time_gemm (&setup, m, n, k, 8, nullptr, &tarena,
                                                              &ms, &err);
          CHECK (ts == TILEMM_OK && ms >= 0, "%s: the GEMMs' timing: status %d (%s), %g ms", name,
                 (int) ts, err.detail, ms);
          test_arena_free (tarena);
        }
  cudaFree (dA);
  cudaFree (dB);
  cudaFree (dC);
}

int main (int argc, char **argv)
{
  (void) argc, (void) argv;
#ifdef TILEMM_EMULATE
  const bool emulated = true;
#else
  const bool emulated = false;
  /* A CUDA build on a machine without a usable GPU (make check there) skips, as test_cuda does. */
  int devices = 0;
  if (cudaGetDeviceCount (&devices) != cudaSuccess || devices < 1)
    {
      cudaGetLastError ();
      printf ("SKIP: test_emulated_cuda: no usable GPU\n");
      printf ("test_emulated_cuda: 0 passed, 0 failed, 1 skipped\n");
      return 0;
    }
#endif
  /* the tables */
  {
    bool coprime = true;
    for (int t = 0; t < TILEMM_EMU_MAX_MODULI; t++)
      for (int u = 0; u < t; u++)
        {
          int x = tilemm_emu_moduli[t], y = tilemm_emu_moduli[u];
          while (y) { const int r = x % y; x = y; y = r; }
          coprime &= x == 1 && tilemm_emu_moduli[t] <= 256;
        }
    CHECK (coprime, "tilemm_emu_moduli are not pairwise coprime moduli of at most 256");
    bool garner = true;
    for (int t = 1; t < TILEMM_EMU_MAX_MODULI; t++)
      {
        int p = 1;
        for (int s = 0; s < t; s++) p = p * tilemm_emu_moduli[s] % tilemm_emu_moduli[t];
        garner &= p * tilemm_emu_garner[t] % tilemm_emu_moduli[t] == 1;
      }
    CHECK (garner, "tilemm_emu_garner is not the inverse of the prefix products");
  }
  struct
  {
    const char *name;
    shape s;
    data_kind kind;
    int moduli, chunk;
    bool big; /* GPU only */
  } cases[] = {
    { "1x1x1", { 1, 1, 1, 0, 0, 0 }, NORMAL, 0, 0, false },
    { "37x53x29 ragged", { 37, 53, 29, 0, 0, 0 }, NORMAL, 0, 0, false },
    { "129x131x67 ragged", { 129, 131, 67, 0, 0, 0 }, NORMAL, 0, 0, false },
    { "40x24x64 k=64", { 40, 24, 64, 0, 0, 0 }, NORMAL, 0, 0, false },
    { "17x9x16 k=16", { 17, 9, 16, 0, 0, 0 }, NORMAL, 0, 0, false },
    { "33x41x96 k=96", { 33, 41, 96, 0, 0, 0 }, NORMAL, 0, 0, false },
    { "20x30x100 ld pads", { 20, 30, 100, 3, 5, 7 }, NORMAL, 0, 0, false },
    { "300x5x7 tall", { 300, 5, 7, 1, 0, 2 }, NORMAL, 0, 0, false },
    { "3x260x33 wide", { 3, 260, 33, 0, 0, 0 }, NORMAL, 0, 0, false },
    { "45x38x70 wide scales", { 45, 38, 70, 0, 0, 0 }, WIDE, 0, 0, false },
    { "45x38x70 zero rows/cols", { 45, 38, 70, 2, 0, 1 }, ZEROS, 0, 0, false },
    { "31x27x50 tiny (subnormal C)", { 31, 27, 50, 0, 0, 0 }, TINY, 0, 0, false },
    { "31x27x50 huge (overflow)", { 31, 27, 50, 0, 0, 0 }, HUGE_, 0, 0, false },
    { "29x23x61 edges of quantization", { 29, 23, 61, 0, 0, 0 }, EDGES, 0, 0, false },
    { "25x19x33 NaN in A", { 25, 19, 33, 0, 0, 0 }, NAN_A, 0, 0, false },
    { "25x19x33 -Inf in B", { 25, 19, 33, 0, 0, 0 }, INF_B, 0, 0, false },
    { "0x5x3 empty", { 0, 5, 3, 0, 0, 0 }, NORMAL, 0, 0, false },
    { "6x4x0 k=0", { 6, 4, 0, 0, 0, 0 }, NORMAL, 0, 0, false },
    { "40x36x77 forced 6 moduli", { 40, 36, 77, 0, 0, 0 }, NORMAL, 6, 0, false },
    { "40x36x77 forced 16 moduli", { 40, 36, 77, 0, 0, 0 }, WIDE, 16, 0, false },
    { "21x13x300 chunks of 128", { 21, 13, 300, 0, 0, 0 }, NORMAL, 0, 2, false },
    { "21x13x300 chunks of 64, wide", { 21, 13, 300, 0, 0, 0 }, WIDE, 0, 1, false },
    { "5x3x140000 real chunks", { 5, 3, 140000, 0, 0, 0 }, NORMAL, 0, 0, true },
    { "300x400x3001", { 300, 400, 3001, 1, 2, 3 }, NORMAL, 0, 0, true },
    { "2048x4352x40 big tiles", { 2048, 4352, 40, 0, 0, 0 }, WIDE, 0, 0, true },
  };
  if (getenv ("TILEMM_TEST_KEPT_ONLY")) /* A's kept work alone, for a quick run */
    {
      kept_a_cases ();
      printf ("test_emulated_cuda: %d passed, %d failed, 0 skipped\n", npass, nfail);
      return nfail != 0;
    }
  const bool quick = getenv ("TILEMM_TEST_QUICK") != nullptr;
  int index = 0;
  for (auto &c : cases)
    {
      if ((c.big && emulated) || (quick && index++ >= 3))
        continue;
      char name[160];
      snprintf (name, sizeof name, "double %s", c.name);
      run_case<double> (name, c.s, c.kind, c.moduli, c.chunk);
      if (c.big && c.s.k > 100000)
        continue;
      snprintf (name, sizeof name, "single %s", c.name);
      run_case<float> (name, c.s, c.kind, c.moduli, c.chunk);
    }
  named_gemm_cases ();
  stats_gemm_cases ();
  moduli_per_launch_cases ();
  /* the 128×256 tiles on small shapes too */
  setenv ("TILEMM_EMU_IMMA", "big", 1);
  run_case<double> ("double 129x131x67 big tiles", { 129, 131, 67, 0, 0, 0 }, NORMAL, 0, 0);
  run_case<double> ("double 33x270x100 big tiles, chunks", { 33, 270, 100, 0, 0, 0 }, WIDE, 0, 1);
  run_case<float> ("single 140x300x45 big tiles", { 140, 300, 45, 0, 0, 0 }, NORMAL, 0, 0);
  /* round 2's 128×128 tiles of 64×64 warps, 128-byte k-tiles (chunks of 1 and 2 64-byte tiles
   * become 1 of 128 bytes: the reduction inside the loop still runs) */
  setenv ("TILEMM_EMU_IMMA", "v2", 1);
  run_case<double> ("double 129x131x67 v2 tiles", { 129, 131, 67, 0, 0, 0 }, NORMAL, 0, 0);
  run_case<double> ("double 33x270x300 v2 tiles, chunks", { 33, 270, 300, 0, 0, 0 }, WIDE, 0, 1);
  run_case<double> ("double 21x13x300 v2 tiles, chunks of 128", { 21, 13, 300, 0, 0, 0 }, NORMAL, 0, 2);
  run_case<float> ("single 140x300x45 v2 tiles", { 140, 300, 45, 0, 0, 0 }, NORMAL, 0, 0);
  run_case<float> ("single 37x53x29 v2 tiles, ragged", { 37, 53, 29, 0, 0, 0 }, NORMAL, 0, 0);
  run_case<double> ("double 40x36x77 v2 tiles, forced 16 moduli", { 40, 36, 77, 0, 0, 0 }, WIDE, 16, 0);
  run_case<double> ("double 45x38x70 v2 tiles, zero rows/cols", { 45, 38, 70, 2, 0, 1 }, ZEROS, 0, 0);
  if (!emulated && !quick) /* not under compute-sanitizer's quick pass */
    {
      run_case<double> ("double 300x400x3001 v2 tiles", { 300, 400, 3001, 1, 2, 3 }, NORMAL, 0, 0);
      run_case<double> ("double 5x3x140000 v2 tiles, real chunks", { 5, 3, 140000, 0, 0, 0 }, NORMAL, 0, 0);
      run_case<float> ("single 2048x4352x40 v2 tiles", { 2048, 4352, 40, 0, 0, 0 }, WIDE, 0, 0);
    }
  setenv ("TILEMM_EMU_IMMA", "small", 1);
  run_case<double> ("double 300x300x40 small tiles", { 300, 300, 40, 0, 0, 0 }, NORMAL, 0, 0);
  /* the Hopper kernel (the default for the modular GEMMs where it runs; v2 elsewhere) */
  setenv ("TILEMM_EMU_IMMA", "wgmma", 1);
  run_case<double> ("double 129x131x67 wgmma", { 129, 131, 67, 0, 0, 0 }, NORMAL, 0, 0);
  run_case<double> ("double 33x270x300 wgmma, chunks", { 33, 270, 300, 0, 0, 0 }, WIDE, 0, 1);
  run_case<float> ("single 37x53x29 wgmma, ragged", { 37, 53, 29, 0, 0, 0 }, NORMAL, 0, 0);
  run_case<double> ("double 40x36x77 wgmma, forced 16 moduli", { 40, 36, 77, 0, 0, 0 }, WIDE, 16, 0);
  if (!emulated && !quick)
    run_case<double> ("double 300x400x3001 wgmma", { 300, 400, 3001, 1, 2, 3 }, NORMAL, 0, 0);
  unsetenv ("TILEMM_EMU_IMMA");
#ifndef TILEMM_EMULATE
  if (!tilemm_emu_wgmma_usable ())
    printf ("note: no wgmma on this device (compute capability 9.0 only): its cases ran v2\n");
  wgmma_cases (quick);
#endif
  complex_case<double> ("complex double 23x17x19", 23, 17, 19, 0, NORMAL, 0);
  complex_case<double> ("complex double 40x33x70 pads, wide", 40, 33, 70, 3, WIDE, 0);
  complex_case<double> ("complex double 20x12x9 zero rows", 20, 12, 9, 1, ZEROS, 0);
  complex_case<double> ("complex double 9x7x8 NaN", 9, 7, 8, 0, NAN_A, 0);
  complex_case<double> ("complex double 30x20x25 forced 9", 30, 20, 25, 0, NORMAL, 9);
  complex_case<float> ("complex single 23x17x19", 23, 17, 19, 0, NORMAL, 0);
  complex_case<float> ("complex single 37x29x45 pads, wide", 37, 29, 45, 2, WIDE, 0);
  if (!emulated)
    {
      complex_case<double> ("complex double 300x200x500", 300, 200, 500, 1, NORMAL, 0);
      complex_case<float> ("complex single 300x200x500", 300, 200, 500, 1, WIDE, 0);
    }
  /* C in column blocks (the executor's order of work, here without its events): bitwise the
   * CPU scheme's as every case; blocks of one column, ragged last blocks, both GEMM kernels. */
  block_cols = 7;
  run_case<double> ("double 37x53x29 blocks of 7", { 37, 53, 29, 0, 0, 0 }, NORMAL, 0, 0);
  run_case<float> ("single 20x30x100 ld pads, blocks of 7", { 20, 30, 100, 3, 5, 7 }, NORMAL, 0, 0);
  run_case<double> ("double 45x38x70 zero rows/cols, blocks of 7", { 45, 38, 70, 2, 0, 1 }, ZEROS, 0, 0);
  complex_case<double> ("complex double 40x33x70 pads, wide, blocks of 7", 40, 33, 70, 3, WIDE, 0);
  block_cols = 1;
  run_case<double> ("double 17x9x16 blocks of 1", { 17, 9, 16, 0, 0, 0 }, NORMAL, 0, 0);
  complex_case<float> ("complex single 23x17x19 blocks of 1", 23, 17, 19, 0, NORMAL, 0);
  block_cols = 100;
  setenv ("TILEMM_EMU_IMMA", "v2", 1);
  run_case<double> ("double 33x270x300 v2 tiles, chunks, blocks of 100", { 33, 270, 300, 0, 0, 0 }, WIDE, 0, 1);
  setenv ("TILEMM_EMU_IMMA", "wgmma", 1);
  run_case<double> ("double 33x270x300 wgmma, chunks, blocks of 100", { 33, 270, 300, 0, 0, 0 }, WIDE, 0, 1);
  unsetenv ("TILEMM_EMU_IMMA");
  if (!emulated && !quick)
    {
      block_cols = 1000;
      run_case<double> ("double 2048x4352x40 big tiles, blocks of 1000", { 2048, 4352, 40, 0, 0, 0 }, WIDE, 0, 0);
    }
  block_cols = 0;
  if (!getenv ("TILEMM_TEST_KEPT_ONLY"))
    kept_a_cases ();
  arena_cases ();
  stats_cases (quick, emulated);
  crt_cases (quick);
#ifndef TILEMM_EMULATE
  /* through the executor (src/cuda/), whose runtime calls the host emulation lacks */
  host_entry_cases ();
  backends_cases ();
#endif
  printf ("test_emulated_cuda: %d passed, %d failed, 0 skipped\n", npass, nfail);
  return nfail != 0;
}
