/* tests/mock_cuda/cuda_runtime_api.h — a stand-in for the CUDA runtime, so that the CUDA backend's
 * host side (src/cuda/: staging, streams, events, panels) is built with the C++
 * compiler and tested where there is no GPU (tests/test_pipeline.cc).
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 *
 * "Device" memory is host memory.  Work enqueued on a stream (copies, kernels, event records,
 * waits) does NOT run when enqueued: it runs later, one operation at a time, picked at random
 * among the streams whose next operation may run (its waits satisfied), whenever the host asks
 * the runtime something (an event query, a synchronisation).  So a missing wait, an early reuse
 * of a staging chunk or a slot, or a read of data not yet arrived gives a wrong result in some
 * order, and the test runs many orders.
 *
 * Several devices (mock_cuda_set_devices, before the first call: the backend asks once): each
 * host thread has its current device (cudaSetDevice), every buffer, stream and event belongs to
 * the device current when it was made, and a copy or a record that mixes devices aborts, as a
 * real runtime would refuse it.  One device can be made slow (its host waits take longer) or
 * fail part way through a product (a copy on it answers an error).
 */
#ifndef TILEMM_MOCK_CUDA_RUNTIME_API_H
#define TILEMM_MOCK_CUDA_RUNTIME_API_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum cudaError {
  cudaSuccess = 0,
  cudaErrorInvalidValue = 1,
  cudaErrorMemoryAllocation = 2,
  cudaErrorPeerAccessUnsupported = 217,
  cudaErrorNotReady = 600,
  cudaErrorIllegalAddress = 700,
  cudaErrorPeerAccessAlreadyEnabled = 704,
  cudaErrorPeerAccessNotEnabled = 705,
  cudaErrorUnknown = 999
} cudaError_t;

enum cudaMemcpyKind { cudaMemcpyHostToDevice = 1, cudaMemcpyDeviceToHost = 2 };

typedef struct mock_stream *cudaStream_t;
typedef struct mock_event *cudaEvent_t;

struct cudaDeviceProp {
  char name[256];
  size_t totalGlobalMem;
  int major, minor;
  int multiProcessorCount;
};

/* The attributes the executor asks (cudaDeviceGetAttribute): the kernels' fallback reads it. */
enum cudaDeviceAttr { cudaDevAttrComputeCapabilityMajor = 75 };

#define cudaStreamNonBlocking 1u
#define cudaEventDisableTiming 2u
#define cudaHostAllocDefault 0u

const char *cudaGetErrorString (cudaError_t e);
cudaError_t cudaGetLastError (void);
cudaError_t cudaDriverGetVersion (int *v);
cudaError_t cudaRuntimeGetVersion (int *v);
cudaError_t cudaGetDeviceCount (int *n);
cudaError_t cudaGetDevice (int *d);
cudaError_t cudaSetDevice (int d);
cudaError_t cudaGetDeviceProperties (struct cudaDeviceProp *p, int d);
cudaError_t cudaDeviceGetAttribute (int *value, enum cudaDeviceAttr attr, int d);
cudaError_t cudaDeviceGetPCIBusId (char *id, int len, int d);
cudaError_t cudaMemGetInfo (size_t *free_bytes, size_t *total_bytes);
cudaError_t cudaDeviceSynchronize (void);
cudaError_t cudaDeviceReset (void);
cudaError_t cudaMalloc (void **p, size_t bytes);
cudaError_t cudaFree (void *p);
cudaError_t cudaHostAlloc (void **p, size_t bytes, unsigned flags);
cudaError_t cudaFreeHost (void *p);
cudaError_t cudaStreamCreateWithFlags (cudaStream_t *s, unsigned flags);
cudaError_t cudaStreamDestroy (cudaStream_t s);
cudaError_t cudaStreamSynchronize (cudaStream_t s);
cudaError_t cudaStreamWaitEvent (cudaStream_t s, cudaEvent_t e, unsigned flags);
cudaError_t cudaEventCreate (cudaEvent_t *e);
cudaError_t cudaEventCreateWithFlags (cudaEvent_t *e, unsigned flags);
cudaError_t cudaEventDestroy (cudaEvent_t e);
cudaError_t cudaEventRecord (cudaEvent_t e, cudaStream_t s);
cudaError_t cudaEventQuery (cudaEvent_t e);
cudaError_t cudaEventSynchronize (cudaEvent_t e);
cudaError_t cudaEventElapsedTime (float *ms, cudaEvent_t start, cudaEvent_t end);
cudaError_t cudaMemcpyAsync (void *dst, const void *src, size_t bytes, enum cudaMemcpyKind kind,
                             cudaStream_t s);
/* Peers: whether `device` can read `peer`'s memory (unless a test turned the pair off), the
 * current device allowed to (once; again: cudaErrorPeerAccessAlreadyEnabled), and a copy from
 * one device's buffer to another's on a stream of the receiving device, which reads its source
 * when it runs (so a copy not made to wait for the source's upload reads what is there then). */
cudaError_t cudaDeviceCanAccessPeer (int *can, int device, int peer);
cudaError_t cudaDeviceEnablePeerAccess (int peer, unsigned flags);
cudaError_t cudaMemcpyPeerAsync (void *dst, int dst_device, const void *src, int src_device,
                                 size_t bytes, cudaStream_t s);

/* ---- for the test only */

/* Enqueues fn(arg) on s as a "kernel" (what the mock tilemm_cuda_launch does). */
void mock_cuda_enqueue (cudaStream_t s, void (*fn) (void *), void *arg);
/* Seeds the random choice of which stream runs next. */
void mock_cuda_seed (unsigned long long seed);
/* Device bytes allocated and not freed, pinned likewise, live streams and events. */
size_t mock_cuda_device_bytes (void);
size_t mock_cuda_pinned_bytes (void);
int mock_cuda_live_objects (void);
/* Makes the next cudaMalloc of at least `bytes` bytes fail (0: none). */
void mock_cuda_fail_malloc_over (size_t bytes);
/* The device's memory (0: the default, 1 GiB): cudaMemGetInfo's total, and the most that
 * cudaMalloc gives out (beyond it, cudaErrorMemoryAllocation). */
void mock_cuda_set_memory (size_t bytes);
/* The most device bytes one device ever held since the last reset (the largest of the devices'
 * peaks), and the reset (to what each holds now). */
size_t mock_cuda_peak_bytes (void);
void mock_cuda_reset_peak (void);
/* Launches of the stand-in kernel per variant (1..16) since the start, and the device
 * transposes (mock_kernels.cc). */
unsigned long long mock_kernels_launches (int variant);
unsigned long long mock_kernels_transposes (void);
/* What the launches were told by their caller (tilemm_kernel_launch): those told to run the
 * register-tiled fallback, and the pieces of k of all launches (1 for an unsplit one). */
unsigned long long mock_kernels_fallback_launches (void);
unsigned long long mock_kernels_split_pieces (void);
/* Devices the runtime shows (1 to 8; default 1, or the environment's MOCK_CUDA_DEVICES): set
 * before the first call into it. */
void mock_cuda_set_devices (int count);
/* Device bytes allocated and not freed on one device. */
size_t mock_cuda_device_bytes_on (int device);
/* Makes every host wait on device `device`'s streams and events (queries, synchronisations)
 * take `us` microseconds longer: a slower device (one call per device; -1: none slow). */
void mock_cuda_slow_device (int device, unsigned us);
/* Makes the copy number `after` (0: the next) enqueued on device `device` fail with
 * cudaErrorIllegalAddress, once (-1: none). */
void mock_cuda_fail_device (int device, int after);
/* Operations run so far, and the most that were ever queued at once on all streams. */
unsigned long long mock_cuda_ops_run (void);
/* Device and pinned allocations made so far (cudaMalloc, cudaHostAlloc). */
unsigned long long mock_cuda_allocations (void);
/* Operations enqueued on all streams and not yet run (0: the device is idle). */
size_t mock_cuda_pending_ops (void);
/* Turns peer access from `device` to `peer` off or on (-1: every device, or every peer); all
 * on at the start.  A pair turned off answers no in cudaDeviceCanAccessPeer, refuses
 * cudaDeviceEnablePeerAccess, and a peer copy over it aborts. */
void mock_cuda_peer_access (int device, int peer, int on);
/* Bytes enqueued since the start onto device `device`: from the host (cudaMemcpyAsync host to
 * device), and from other devices (cudaMemcpyPeerAsync). */
unsigned long long mock_cuda_host_to_device_bytes (int device);
unsigned long long mock_cuda_peer_bytes (int device);
/* Launches of the stand-in kernel (mock_kernels.cc) with inconsistent shapes. */
int mock_kernels_bad_launches (void);
/* The stand-in's multiprocessors of `device` (cudaGetDeviceProperties: each device its own). */
int mock_cuda_multiprocessors (int device);
/* The emulated scheme's stand-in (cuda_op_none.c): the calls on `device` since the last ask, and
 * the last one's setup: its statistics' GEMM, the wgmma GEMM's grid and the multiprocessors the
 * moduli a launch follow. */
int mock_emu_setup_seen (int device, int *stats_gemm, int *gemm_blocks, int *multiprocessors);

#ifdef __cplusplus
}
#endif

#endif
