/* check.h — the smallest test harness that counts: each CHECK_CASE is one test, passed when
 * none of the CHECKs inside it failed.  Programs end with check_summary(), which prints
 *   "<program>: N passed, N failed, N skipped"
 * (the line tests/run-all sums) and returns the exit status.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 */
#ifndef TILEMM_TESTS_CHECK_H
#define TILEMM_TESTS_CHECK_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef CHECK_KEEP_CALIBRATION
/* The tests check what the built-in model decides (test_facts and the BIST check a machine's
 * measured facts): calibration off before main, so before any call reads the settings, whoever
 * runs the program (the suite, a developer, the GPU machine's checks, several at once sharing one
 * store).  A test that wants facts measured calls tilemm_calibrate itself. */
__attribute__ ((constructor)) static void check_model_only (void)
{
  setenv ("TILEMM_CALIBRATION", "off", 1);
}
#endif

static int check_passed, check_failed, check_skipped;
static int check_case_failures;
static char check_case_name[256];

/* Starts a test case; the previous one (if any) is counted. */
static inline void check_case_end (void)
{
  if (check_case_name[0] == '\0')
    return;
  if (check_case_failures == 0)
    check_passed++;
  else
    {
      check_failed++;
      printf ("FAIL: %s\n", check_case_name);
    }
  check_case_name[0] = '\0';
}

static inline void check_case (const char *fmt_name)
{
  check_case_end ();
  snprintf (check_case_name, sizeof check_case_name, "%s", fmt_name);
  check_case_failures = 0;
}

#define CHECK_CASE(...)                                                                     \
  do {                                                                                      \
    char check_name_buf_[256];                                                              \
    snprintf (check_name_buf_, sizeof check_name_buf_, __VA_ARGS__);                         \
    check_case (check_name_buf_);                                                           \
  } while (0)

/* A failed condition prints where and why (the first few per case) and fails the case. */
#define CHECK(cond, ...)                                                                    \
  do {                                                                                      \
    if (!(cond))                                                                            \
      {                                                                                     \
        if (check_case_failures++ < 5)                                                      \
          {                                                                                 \
            printf ("  %s:%d: [%s] check failed: %s: ", __FILE__, __LINE__, check_case_name, \
                    #cond);                                                                 \
            printf (__VA_ARGS__);                                                           \
            printf ("\n");                                                                  \
          }                                                                                 \
      }                                                                                     \
  } while (0)

/* Counts a skipped test case with the reason. */
static inline void check_skip (const char *name, const char *why)
{
  check_case_end ();
  check_skipped++;
  printf ("SKIP: %s: %s\n", name, why);
}

static inline int check_summary (const char *program)
{
  check_case_end ();
  printf ("%s: %d passed, %d failed, %d skipped\n", program, check_passed, check_failed,
          check_skipped);
  return check_failed == 0 ? 0 : 1;
}

#endif /* TILEMM_TESTS_CHECK_H */
