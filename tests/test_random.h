/* test_random.h — the random data of the C tests: xorshift64* (fast, reproducible from its seed,
 * the same on every machine), uniform doubles in [0, 1) and normal ones (Box-Muller).  Each test
 * program has its own generator state, set with test_seed.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 */
#ifndef TILEMM_TESTS_TEST_RANDOM_H
#define TILEMM_TESTS_TEST_RANDOM_H

#include <math.h>
#include <stdint.h>

static uint64_t test_random_state = 0x9E3779B97F4A7C15ull;

static inline void test_seed (uint64_t seed)
{
  test_random_state = seed ? seed : 0x9E3779B97F4A7C15ull;   /* xorshift never leaves 0 */
}

static inline uint64_t rnd64 (void)
{
  test_random_state ^= test_random_state >> 12;
  test_random_state ^= test_random_state << 25;
  test_random_state ^= test_random_state >> 27;
  return test_random_state * 2685821657736338717ull;
}

static inline double urand (void)
{
  return (double) (rnd64 () >> 11) * 0x1p-53;
}

static inline double nrand (void)
{
  double u1 = urand (), u2 = urand ();
  if (u1 < 1e-300)
    u1 = 1e-300;
  return sqrt (-2 * log (u1)) * cos (6.283185307179586 * u2);
}

#endif
