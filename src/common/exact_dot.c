/* exact_dot.c — dot products of doubles rounded once (see exact_dot.h).
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 *
 * A finite double is mant·2^exp with mant < 2^53 and exp in [-1074, 971], so a product of two
 * is an integer below 2^106 times 2^(exp_x + exp_y), exp_x + exp_y in [-2148, 1942].  The
 * accumulator is that range as one two's-complement integer in units of 2^-2148, with 64 bits of
 * headroom for the carries of up to 2^63 terms: every sum is exact, and it is rounded once at
 * the end (tilemm_emu_big_to_float, with the bits below its 256-bit window folded into a
 * sticky bit).
 */
#include <math.h>
#include <string.h>

#include "emulated.h"
#include "exact_dot.h"

/* ---------------------------------------------------------------- one rounding of a 256-bit integer */

/* (Here, at the bottom, since both the exact dot products below and the CPU's emulated scheme
 * round their integers with it.) */
static int bit_at (const uint64_t w[4], long i)
{
  if (i < 0 || i >= 256)
    return 0;
  return (int) ((w[i >> 6] >> (i & 63)) & 1u);
}

static int bit_length (const uint64_t w[4])
{
  for (int i = 3; i >= 0; i--)
    if (w[i])
      return 64 * i + 64 - __builtin_clzll (w[i]);
  return 0;
}

double tilemm_emu_big_to_float (const uint64_t mag[4], int negative, int exponent, int single)
{
  const long precision = single ? 24 : 53, emin = single ? -126 : -1022, emax = single ? 127 : 1023;
  const int nb = bit_length (mag);
  if (nb == 0)
    return negative ? -0.0 : 0.0;
  const long top = (long) nb - 1 + exponent;   /* the value lies in [2^top, 2^(top+1)) */
  if (top > emax)
    return negative ? -HUGE_VAL : HUGE_VAL;
  const long prec = top < emin ? top - emin + precision : precision;   /* subnormal: fewer bits */
  const long drop = nb - prec;                 /* low bits rounded away */
  uint64_t q = 0;
  for (long i = nb - 1; i >= (drop > 0 ? drop : 0); i--)
    q = (q << 1) | (uint64_t) bit_at (mag, i);
  double r;
  if (drop <= 0)
    r = ldexp ((double) q, exponent);          /* exact */
  else
    {
      int sticky = 0;
      for (long i = 0; i < drop - 1 && i < 256 && !sticky; i++)
        sticky = bit_at (mag, i);
      if (bit_at (mag, drop - 1) && (sticky || (q & 1u)))
        q++;                                   /* to nearest, ties to even */
      /* q ≤ 2^precision: q·2^(exponent+drop) is exact, or overflows as rounding would */
      r = ldexp ((double) q, (int) (exponent + drop));
    }
  if (single)
    r = (double) (float) r;                    /* exact, or ±Inf past FLT_MAX */
  return negative ? -r : r;
}

#define EXACT_LIMBS 68      /* 4352 bits ≥ 4090 + 106 + 64 + a sign bit */
#define EXACT_UNIT (-2148)  /* the accumulator's lowest bit is 2^EXACT_UNIT */

typedef struct {
  uint64_t w[EXACT_LIMBS];
} exact_acc;

/* Adds (or subtracts) v·2^bit to the accumulator. */
static void acc_add (exact_acc *acc, uint64_t v, int bit, int negative)
{
  const int limb = bit / 64, shift = bit % 64;
  const uint64_t lo = v << shift, hi = shift ? v >> (64 - shift) : 0;
  if (!negative)
    {
      uint64_t carry;
      uint64_t s = acc->w[limb] + lo;
      carry = s < lo;
      acc->w[limb] = s;
      uint64_t t = acc->w[limb + 1] + hi;
      uint64_t c2 = t < hi;
      s = t + carry;
      c2 |= s < t;
      acc->w[limb + 1] = s;
      for (int i = limb + 2; c2 && i < EXACT_LIMBS; i++)
        c2 = ++acc->w[i] == 0;
    }
  else
    {
      uint64_t borrow = acc->w[limb] < lo;
      acc->w[limb] -= lo;
      const uint64_t t = acc->w[limb + 1];
      uint64_t b2 = t < hi;
      uint64_t s = t - hi;
      b2 |= s < borrow;
      acc->w[limb + 1] = s - borrow;
      for (int i = limb + 2; b2 && i < EXACT_LIMBS; i++)
        b2 = acc->w[i]-- == 0;
    }
}

/* x = (negative ? -1 : 1)·mant·2^exp, mant < 2^53 (finite x). */
static void split_double (double x, uint64_t *mant, int *exp, int *negative)
{
  uint64_t bits;
  memcpy (&bits, &x, sizeof bits);
  *negative = (int) (bits >> 63);
  const int biased = (int) ((bits >> 52) & 0x7ff);
  const uint64_t fraction = bits & ((UINT64_C (1) << 52) - 1);
  *mant = biased ? fraction | (UINT64_C (1) << 52) : fraction;
  *exp = biased ? biased - 1075 : -1074;
}

/* Adds x·y exactly: the 106-bit product as four 64-bit partial products of 32-bit halves. */
static void acc_add_product (exact_acc *acc, double x, double y)
{
  uint64_t mx, my;
  int ex, ey, nx, ny;
  split_double (x, &mx, &ex, &nx);
  split_double (y, &my, &ey, &ny);
  if (mx == 0 || my == 0)
    return;
  const int bit = ex + ey - EXACT_UNIT, negative = nx != ny;
  const uint64_t xl = mx & 0xffffffffu, xh = mx >> 32, yl = my & 0xffffffffu, yh = my >> 32;
  acc_add (acc, xl * yl, bit, negative);
  acc_add (acc, xl * yh, bit + 32, negative);
  acc_add (acc, xh * yl, bit + 32, negative);
  acc_add (acc, xh * yh, bit + 64, negative);
}

/* The accumulator's value rounded once. */
static double acc_round (exact_acc *acc, int single)
{
  const int negative = (int) (acc->w[EXACT_LIMBS - 1] >> 63);
  if (negative)
    {
      /* two's complement: the magnitude is ~w + 1 */
      uint64_t carry = 1;
      for (int i = 0; i < EXACT_LIMBS; i++)
        {
          acc->w[i] = ~acc->w[i] + carry;
          carry = carry && acc->w[i] == 0;
        }
    }
  int top = EXACT_LIMBS - 1;
  while (top >= 0 && acc->w[top] == 0)
    top--;
  if (top < 0)
    return 0.0;
  /* The four limbs from the top nonzero one down: at least 193 bits below the leading one, so
   * a sticky bit in the lowest of them lies below every rounding position (subnormals too). */
  const int low = top >= 3 ? top - 3 : 0;
  uint64_t mag[4] = { 0, 0, 0, 0 };
  for (int i = low; i <= top; i++)
    mag[i - low] = acc->w[i];
  for (int i = 0; i < low; i++)
    if (acc->w[i])
      {
        mag[0] |= 1;
        break;
      }
  return tilemm_emu_big_to_float (mag, negative, EXACT_UNIT + 64 * low, single);
}

double tilemm_exact_dot (const double *x, int64_t incx, const double *y, int64_t incy, int64_t k,
                         int single)
{
  exact_acc acc;
  memset (&acc, 0, sizeof acc);
  for (int64_t p = 0; p < k; p++)
    {
      const double xp = x[p * incx], yp = y[p * incy];
      if (!isfinite (xp) || !isfinite (yp))
        {
          double s = 0.0;
          for (int64_t q = 0; q < k; q++)
            s += x[q * incx] * y[q * incy];
          return single ? (double) (float) s : s;
        }
      acc_add_product (&acc, xp, yp);
    }
  return acc_round (&acc, single);
}
