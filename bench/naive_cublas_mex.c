/* naive_cublas_mex.c — the baseline a user could write in an afternoon: a mex that allocates
 * device memory per call, copies with plain cudaMemcpy from Octave's (pageable) memory, and calls
 * cuBLAS.  Benchmark only (bench/e2e.sh); real double or single matrices only.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 */
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include "mex.h"

#define CHECK_CUDA(call)                                                                    \
  do {                                                                                      \
    cudaError_t e_ = (call);                                                                \
    if (e_ != cudaSuccess)                                                                  \
      mexErrMsgIdAndTxt ("naive:cuda", "%s: %s", #call, cudaGetErrorString (e_));            \
  } while (0)
#define CHECK_CUBLAS(call)                                                                  \
  do {                                                                                      \
    cublasStatus_t s_ = (call);                                                             \
    if (s_ != CUBLAS_STATUS_SUCCESS)                                                        \
      mexErrMsgIdAndTxt ("naive:cublas", "%s: status %d", #call, (int) s_);                 \
  } while (0)

static cublasHandle_t handle;

static void release (void)
{
  if (handle)
    cublasDestroy (handle);
  handle = NULL;
}

void mexFunction (int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
  (void) nlhs;
  if (nrhs != 2 || mxIsComplex (prhs[0]) || mxIsComplex (prhs[1])
      || mxGetClassID (prhs[0]) != mxGetClassID (prhs[1])
      || !(mxIsDouble (prhs[0]) || mxIsSingle (prhs[0])) || mxGetN (prhs[0]) != mxGetM (prhs[1]))
    mexErrMsgIdAndTxt ("naive:args", "naive_cublas_mex (A, B): real A and B of one class");
  if (!handle)
    {
      CHECK_CUBLAS (cublasCreate (&handle));
      mexAtExit (release);
    }
  const int single = mxIsSingle (prhs[0]);
  const size_t m = mxGetM (prhs[0]), k = mxGetN (prhs[0]), n = mxGetN (prhs[1]);
  const size_t es = single ? sizeof (float) : sizeof (double);
  plhs[0] = mxCreateNumericMatrix (m, n, mxGetClassID (prhs[0]), mxREAL);
  void *dA, *dB, *dC;
  CHECK_CUDA (cudaMalloc (&dA, m * k * es));
  CHECK_CUDA (cudaMalloc (&dB, k * n * es));
  CHECK_CUDA (cudaMalloc (&dC, m * n * es));
  CHECK_CUDA (cudaMemcpy (dA, mxGetData (prhs[0]), m * k * es, cudaMemcpyHostToDevice));
  CHECK_CUDA (cudaMemcpy (dB, mxGetData (prhs[1]), k * n * es, cudaMemcpyHostToDevice));
  if (single)
    {
      const float one = 1.0f, zero = 0.0f;
      CHECK_CUBLAS (cublasSgemm (handle, CUBLAS_OP_N, CUBLAS_OP_N, (int) m, (int) n, (int) k, &one,
                                 dA, (int) m, dB, (int) k, &zero, dC, (int) m));
    }
  else
    {
      const double one = 1.0, zero = 0.0;
      CHECK_CUBLAS (cublasDgemm (handle, CUBLAS_OP_N, CUBLAS_OP_N, (int) m, (int) n, (int) k, &one,
                                 dA, (int) m, dB, (int) k, &zero, dC, (int) m));
    }
  CHECK_CUDA (cudaMemcpy (mxGetData (plhs[0]), dC, m * n * es, cudaMemcpyDeviceToHost));
  CHECK_CUDA (cudaFree (dA));
  CHECK_CUDA (cudaFree (dB));
  CHECK_CUDA (cudaFree (dC));
}
