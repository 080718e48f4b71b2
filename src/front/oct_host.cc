// oct_host.cc — Octave's own `*` as the machine's facts measure it (front.h: tilemm_host_product):
// one product through Octave's binary operator, as a delegated call runs it, and pagemtimes'
// loop of it over pages (pages_oct.cc: tilemm_oct_host_pages_s), on random operands made before
// the timed runs.
//
// Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).

#include <octave/oct.h>
#include <octave/ov.h>

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "front.h"
#include "oct_shared.h"
#include "uniform_fill.h"

namespace
{

// A random array of `type` (a complex one filled as twice as many reals).
template <typename A, typename Real>
octave_value random_of (const dim_vector &dims, int parts, unsigned long long seed)
{
  A a (dims);
  tilemm_uniform_fill (a.fortran_vec (), static_cast<size_t> (parts * a.numel ()),
                       sizeof (Real) == sizeof (float), seed);
  return octave_value (a);
}

octave_value random_operand (tilemm_type type, const dim_vector &dims, unsigned long long seed)
{
  switch (type)
    {
    case TILEMM_SINGLE:
      return random_of<FloatNDArray, float> (dims, 1, seed);
    case TILEMM_COMPLEX_SINGLE:
      return random_of<FloatComplexNDArray, float> (dims, 2, seed);
    case TILEMM_COMPLEX_DOUBLE:
      return random_of<ComplexNDArray, double> (dims, 2, seed);
    case TILEMM_DOUBLE:
    default:
      return random_of<NDArray, double> (dims, 1, seed);
    }
}

double product_seconds (void *, tilemm_type type, int64_t m, int64_t n, int64_t k, int runs)
{
  try
    {
      const octave_value a = random_operand (type, dim_vector (m, k), 1);
      const octave_value b = random_operand (type, dim_vector (k, n), 2);
      double best = -1;
      for (int r = -1; r < runs; r++)
        {
          const double t0 = tilemm_now_s ();
          const octave_value c = octave::binary_op (octave_value::op_mul, a, b);
          const double t = tilemm_now_s () - t0;
          if (r >= 0 && (best < 0 || t < best))
            best = t;
        }
      return best;
    }
  catch (...)
    {
      return -1;
    }
}

double pages_seconds (void *, tilemm_type type, int64_t m, int64_t n, int64_t k, int64_t pages,
                      int runs)
{
  try
    {
      const octave_value x = random_operand (type, dim_vector (m, k, pages), 3);
      const octave_value y = random_operand (type, dim_vector (k, n, pages), 4);
      double best = -1;
      for (int r = -1; r < runs; r++)
        {
          const double s = tilemm_oct_host_pages_s (x, y);
          if (s < 0)
            return -1;
          if (r >= 0 && (best < 0 || s < best))
            best = s;
        }
      return best;
    }
  catch (...)
    {
      return -1;
    }
}

// The file of the BLAS library Octave's `*` calls: the one whose dgemm_ the process resolves
// first (a preloaded library, else the one Octave links), its links followed (Debian's
// alternatives point libblas.so.3 at the reference BLAS or OpenBLAS).
void blas_library (char *out, size_t size)
{
  out[0] = '\0';
  void *sym = dlsym (RTLD_DEFAULT, "dgemm_");
  Dl_info info;
  if (! sym || ! dladdr (sym, &info) || ! info.dli_fname)
    return;
  char *real = realpath (info.dli_fname, nullptr);
  snprintf (out, size, "%s", real ? real : info.dli_fname);
  free (real);
}

}

const tilemm_host_product *tilemm_oct_host_product (void)
{
  static tilemm_host_product host = [] {
    tilemm_host_product h;
    std::memset (&h, 0, sizeof h);
    h.seconds = product_seconds;
    h.pages_seconds = pages_seconds;
    blas_library (h.library, sizeof h.library);
    return h;
  }();
  return &host;
}
