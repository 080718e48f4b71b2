#!/bin/sh
# tests/mex-build-cuda.sh — tests/mex-build.sh with tilemm_build's CUDA route (see there): counted
# skipped where there is no nvcc; without a GPU, its product on the GPU is skipped.
#
# Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
exec "$(dirname "$0")/mex-build.sh" cuda
