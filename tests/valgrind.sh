#!/bin/sh
# Runs src/test_leaks_cpu (10,000 mixed calls through the front ends' rules on the core and the
# CPU backend, tests/test_leaks.c) under valgrind: any invalid read or write, use of
# uninitialised memory, or block leaked (definitely, indirectly or possibly lost) fails it.
# Prints the program's counts, then "valgrind: N passed, N failed, N skipped".
#
# Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
builddir=${TILEMM_BUILDDIR:-.}
srcdir=${TILEMM_SRCDIR:-.}
prog="$builddir/src/test_leaks_cpu"
if ! command -v valgrind > /dev/null 2>&1; then
  echo "SKIP: valgrind is not installed (tools/install-deps installs it)"
  echo "valgrind: 0 passed, 0 failed, 1 skipped"
  exit 77
fi
# The program re-runs itself to turn glibc's malloc cache off; under valgrind it must not (valgrind
# has its own malloc, and checks the heap itself).
TILEMM_LEAKS_NO_RERUN=1 valgrind --quiet --leak-check=full --show-leak-kinds=definite,indirect,possible \
  --errors-for-leak-kinds=definite,indirect,possible --error-exitcode=99 \
  --suppressions="$srcdir/tests/valgrind.supp" "$prog" test_leaks_cpu 2>&1
status=$?
if [ "$status" = 99 ]; then
  echo "FAIL: valgrind found memory errors or leaks (above)"
  echo "valgrind: 0 passed, 1 failed, 0 skipped"
  exit 1
fi
echo "valgrind: 1 passed, 0 failed, 0 skipped"
exit "$status"
