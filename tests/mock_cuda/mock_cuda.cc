// tests/mock_cuda/mock_cuda.cc — the stand-in CUDA runtime of cuda_runtime_api.h (see there).
//
// Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).

#include "cuda_runtime_api.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <unistd.h>
#include <functional>
#include <iterator>
#include <map>
#include <mutex>
#include <set>
#include <vector>

struct mock_event
{
  int device = 0;                   // the device current when it was made
  unsigned long long recorded = 0;  // how many records were enqueued
  unsigned long long completed = 0; // how many of them ran
};

namespace
{
struct op
{
  enum { COPY, KERNEL, RECORD, WAIT } kind;
  void *dst = nullptr;
  const void *src = nullptr;
  size_t bytes = 0;
  void (*fn) (void *) = nullptr;
  void *arg = nullptr;
  mock_event *event = nullptr;
  unsigned long long generation = 0;
};
}

struct mock_stream
{
  int device = 0;      // the device current when it was made
  std::deque<op> ops;
  unsigned weight = 1; // how often it is picked when several streams could run
};

namespace
{
std::set<mock_stream *> streams;
std::set<mock_event *> events;
std::map<void *, size_t> device_blocks, pinned_blocks;
std::map<void *, int> block_device;   // the device each device block lives on
enum { MOST_DEVICES = 8 };
int device_count = 1;
thread_local int current = 0;          // this host thread's device (cudaSetDevice)
int fail_device = -1, fail_after = 0;
unsigned slow_us[MOST_DEVICES];   // what each device's host waits take longer
// One lock for the whole stand-in runtime: the workers of a product spread over several devices
// (src/exec/workers.c) call it from their own threads, as they do the real one.  Recursive:
// some calls make others (cudaFreeHost synchronises).
std::recursive_mutex mock_mutex;
unsigned long long rng = 88172645463325252ull, ops_run = 0, allocations = 0;
size_t fail_over = 0;
// Each device's memory: what cudaMemGetInfo reports as total, and a cudaMalloc that would take
// the bytes held there past it fails (as a real device's would); the most each device ever held
// (tests sample it).
size_t memory_total = (size_t) 1 << 30;
size_t device_peak[MOST_DEVICES];
size_t device_held[MOST_DEVICES];
// Peer access: the pairs a test turned off, the pairs enabled (device reads peer); the bytes
// each device received from the host and from its peers.
bool peer_off[MOST_DEVICES][MOST_DEVICES];
bool peer_enabled[MOST_DEVICES][MOST_DEVICES];
unsigned long long host_bytes_in[MOST_DEVICES], peer_bytes_in[MOST_DEVICES];

bool valid_device (int d) { return d >= 0 && d < device_count; }

// MOCK_CUDA_DEVICES, where a program set none itself (the BLAS library's test, from a script).
[[maybe_unused]] const bool devices_from_environment = [] {
  const char *v = getenv ("MOCK_CUDA_DEVICES");
  const int n = v ? atoi (v) : 0;
  if (n >= 1)
    device_count = n > MOST_DEVICES ? MOST_DEVICES : n;
  return true;
} ();

// A host wait on a slow device's work takes longer (outside the runtime's lock, so the other
// devices' host threads go on meanwhile).
void wait_slowly (int device)
{
  if (valid_device (device) && slow_us[device] > 0)
    usleep (slow_us[device]);
}

unsigned long long next_random ()
{
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return rng;
}

bool runnable (const mock_stream *s)
{
  if (s->ops.empty ())
    return false;
  const op &o = s->ops.front ();
  return o.kind != op::WAIT || o.event->completed >= o.generation;
}

void run_front (mock_stream *s)
{
  op o = s->ops.front ();
  s->ops.pop_front ();
  switch (o.kind)
    {
    case op::COPY:
      memcpy (o.dst, o.src, o.bytes);
      break;
    case op::KERNEL:
      o.fn (o.arg);
      break;
    case op::RECORD:
      if (o.event->completed < o.generation)
        o.event->completed = o.generation;
      break;
    case op::WAIT:
      break;
    }
  ops_run++;
}

// Runs one operation of a random runnable stream, picked by its weight; false when none can.
bool step_once ()
{
  std::vector<mock_stream *> ready;
  unsigned total = 0;
  for (mock_stream *s : streams)
    if (runnable (s))
      {
        ready.push_back (s);
        total += s->weight;
      }
  if (ready.empty ())
    return false;
  unsigned pick = (unsigned) (next_random () % total);
  for (mock_stream *s : ready)
    {
      if (pick < s->weight)
        {
          run_front (s);
          return true;
        }
      pick -= s->weight;
    }
  run_front (ready.back ());
  return true;
}

// A few operations, as if time passed.
void progress ()
{
  const int n = (int) (next_random () % 4);
  for (int i = 0; i < n && step_once (); i++)
    ;
}

cudaError_t drain (bool (*done) (const void *), const void *what)
{
  while (!done (what))
    if (!step_once ())
      {
        fprintf (stderr, "mock_cuda: deadlock: waiting for work that can never run\n");
        abort ();
      }
  return cudaSuccess;
}
} // namespace

extern "C" {

const char *cudaGetErrorString (cudaError_t e)
{
  switch (e)
    {
    case cudaSuccess: return "no error";
    case cudaErrorMemoryAllocation: return "out of memory";
    case cudaErrorNotReady: return "device not ready";
    default: return "mock error";
    }
}
cudaError_t cudaGetLastError (void) { return cudaSuccess; }
cudaError_t cudaDriverGetVersion (int *v) { *v = 13000; return cudaSuccess; }
cudaError_t cudaRuntimeGetVersion (int *v) { *v = 13000; return cudaSuccess; }
cudaError_t cudaGetDeviceCount (int *n) { *n = device_count; return cudaSuccess; }
cudaError_t cudaGetDevice (int *d) { *d = current; return cudaSuccess; }
cudaError_t cudaSetDevice (int d)
{
  if (!valid_device (d))
    return cudaErrorInvalidValue;
  current = d;
  return cudaSuccess;
}
cudaError_t cudaGetDeviceProperties (struct cudaDeviceProp *p, int d)
{
  std::lock_guard<std::recursive_mutex> lock (mock_mutex);
  if (!valid_device (d))
    return cudaErrorInvalidValue;
  memset (p, 0, sizeof *p);
  snprintf (p->name, sizeof p->name, "mock GPU %d", d);
  p->totalGlobalMem = memory_total;
  p->major = 9;
  p->minor = 0;
  p->multiProcessorCount = mock_cuda_multiprocessors (d);
  return cudaSuccess;
}
int mock_cuda_multiprocessors (int device)
{
  return 132 - 4 * device;   /* each device its own, so a count from another device shows */
}
cudaError_t cudaDeviceGetAttribute (int *value, enum cudaDeviceAttr attr, int d)
{
  if (!valid_device (d) || attr != cudaDevAttrComputeCapabilityMajor)
    return cudaErrorInvalidValue;
  *value = 9; /* as cudaGetDeviceProperties says */
  return cudaSuccess;
}
cudaError_t cudaDeviceGetPCIBusId (char *id, int len, int d)
{
  if (!valid_device (d) || !id || len < 13)
    return cudaErrorInvalidValue;
  snprintf (id, (size_t) len, "0000:%02x:00.0", 0x41 + d); /* in no sysfs of a test machine */
  return cudaSuccess;
}
cudaError_t cudaMemGetInfo (size_t *free_bytes, size_t *total_bytes)
{
  std::lock_guard<std::recursive_mutex> lock (mock_mutex);
  *total_bytes = memory_total;
  const size_t held = device_held[current];
  *free_bytes = held < memory_total ? memory_total - held : 0;
  return cudaSuccess;
}
cudaError_t cudaDeviceSynchronize (void)
{
  std::lock_guard<std::recursive_mutex> lock (mock_mutex);
  while (step_once ())
    ;
  for (mock_stream *s : streams)
    if (!s->ops.empty ())
      {
        fprintf (stderr, "mock_cuda: deadlock in cudaDeviceSynchronize\n");
        abort ();
      }
  return cudaSuccess;
}
cudaError_t cudaDeviceReset (void) { return cudaSuccess; }
cudaError_t cudaMalloc (void **p, size_t bytes)
{
  std::lock_guard<std::recursive_mutex> lock (mock_mutex);
  if (fail_over && bytes >= fail_over)
    {
      fail_over = 0;
      return cudaErrorMemoryAllocation;
    }
  if (device_held[current] + bytes > memory_total)
    return cudaErrorMemoryAllocation;
  *p = malloc (bytes ? bytes : 1);
  if (!*p)
    return cudaErrorMemoryAllocation;
  allocations++;
  memset (*p, 0xFF, bytes); // NaN everywhere: data never written shows
  device_blocks[*p] = bytes;
  block_device[*p] = current;
  device_held[current] += bytes;
  if (device_held[current] > device_peak[current])
    device_peak[current] = device_held[current];
  return cudaSuccess;
}
cudaError_t cudaFree (void *p)
{
  std::lock_guard<std::recursive_mutex> lock (mock_mutex);
  if (!p)
    return cudaSuccess;
  auto found = device_blocks.find (p);
  if (found == device_blocks.end ())
    return cudaErrorInvalidValue;
  device_held[block_device[p]] -= found->second;
  block_device.erase (p);
  device_blocks.erase (found);
  free (p);
  return cudaSuccess;
}
cudaError_t cudaHostAlloc (void **p, size_t bytes, unsigned)
{
  std::lock_guard<std::recursive_mutex> lock (mock_mutex);
  *p = malloc (bytes);
  if (!*p)
    return cudaErrorMemoryAllocation;
  allocations++;
  memset (*p, 0xFF, bytes);
  pinned_blocks[*p] = bytes;
  return cudaSuccess;
}
cudaError_t cudaFreeHost (void *p)
{
  std::lock_guard<std::recursive_mutex> lock (mock_mutex);
  cudaDeviceSynchronize ();
  if (!pinned_blocks.erase (p))
    return cudaErrorInvalidValue;
  free (p);
  return cudaSuccess;
}
cudaError_t cudaStreamCreateWithFlags (cudaStream_t *s, unsigned)
{
  std::lock_guard<std::recursive_mutex> lock (mock_mutex);
  *s = new mock_stream;
  (*s)->device = current;
  // Some streams slow, some fast: a quarter of them run 30 times less often than the others,
  // so orders where one stream lags far behind (downloads, a compute stream) are tried too.
  (*s)->weight = next_random () % 4 == 0 ? 1 : 30;
  streams.insert (*s);
  return cudaSuccess;
}
cudaError_t cudaStreamDestroy (cudaStream_t s)
{
  std::lock_guard<std::recursive_mutex> lock (mock_mutex);
  if (!streams.count (s))
    return cudaErrorInvalidValue;
  while (!s->ops.empty ())
    if (!step_once ())
      {
        fprintf (stderr, "mock_cuda: deadlock destroying a stream\n");
        abort ();
      }
  streams.erase (s);
  delete s;
  return cudaSuccess;
}
cudaError_t cudaStreamSynchronize (cudaStream_t s)
{
  {
    std::lock_guard<std::recursive_mutex> lock (mock_mutex);
    if (!streams.count (s))
      return cudaErrorInvalidValue;
  }
  wait_slowly (s->device);
  std::lock_guard<std::recursive_mutex> lock (mock_mutex);
  if (!streams.count (s))
    return cudaErrorInvalidValue;
  return drain ([] (const void *w) { return ((const mock_stream *) w)->ops.empty (); }, s);
}
cudaError_t cudaStreamWaitEvent (cudaStream_t s, cudaEvent_t e, unsigned)
{
  std::lock_guard<std::recursive_mutex> lock (mock_mutex);
  if (!streams.count (s) || !events.count (e))
    return cudaErrorInvalidValue;
  op o;
  o.kind = op::WAIT;
  o.event = e;
  o.generation = e->recorded; // the event as it stands now; never recorded: no wait
  s->ops.push_back (o);
  return cudaSuccess;
}
cudaError_t cudaEventCreate (cudaEvent_t *e)
{
  std::lock_guard<std::recursive_mutex> lock (mock_mutex);
  *e = new mock_event;
  (*e)->device = current;
  events.insert (*e);
  return cudaSuccess;
}
cudaError_t cudaEventCreateWithFlags (cudaEvent_t *e, unsigned) { return cudaEventCreate (e); }
cudaError_t cudaEventDestroy (cudaEvent_t e)
{
  std::lock_guard<std::recursive_mutex> lock (mock_mutex);
  if (!events.erase (e))
    return cudaErrorInvalidValue;
  delete e;
  return cudaSuccess;
}
cudaError_t cudaEventRecord (cudaEvent_t e, cudaStream_t s)
{
  std::lock_guard<std::recursive_mutex> lock (mock_mutex);
  if (!streams.count (s) || !events.count (e))
    return cudaErrorInvalidValue;
  if (e->device != s->device)
    {
      fprintf (stderr, "mock_cuda: an event of device %d recorded on a stream of device %d\n",
               e->device, s->device);
      abort ();
    }
  op o;
  o.kind = op::RECORD;
  o.event = e;
  o.generation = ++e->recorded;
  s->ops.push_back (o);
  return cudaSuccess;
}
cudaError_t cudaEventQuery (cudaEvent_t e)
{
  {
    std::lock_guard<std::recursive_mutex> lock (mock_mutex);
    if (!events.count (e))
      return cudaErrorInvalidValue;
  }
  wait_slowly (e->device);
  std::lock_guard<std::recursive_mutex> lock (mock_mutex);
  if (!events.count (e))
    return cudaErrorInvalidValue;
  progress ();
  return e->completed >= e->recorded ? cudaSuccess : cudaErrorNotReady;
}
cudaError_t cudaEventSynchronize (cudaEvent_t e)
{
  {
    std::lock_guard<std::recursive_mutex> lock (mock_mutex);
    if (!events.count (e))
      return cudaErrorInvalidValue;
  }
  wait_slowly (e->device);
  std::lock_guard<std::recursive_mutex> lock (mock_mutex);
  if (!events.count (e))
    return cudaErrorInvalidValue;
  return drain ([] (const void *w) {
    const mock_event *ev = (const mock_event *) w;
    return ev->completed >= ev->recorded;
  }, e);
}
cudaError_t cudaEventElapsedTime (float *ms, cudaEvent_t start, cudaEvent_t end)
{
  std::lock_guard<std::recursive_mutex> lock (mock_mutex);
  if (!events.count (start) || !events.count (end) || start->completed < start->recorded
      || end->completed < end->recorded || !start->recorded || !end->recorded)
    return cudaErrorInvalidValue;
  *ms = 0.5f;
  return cudaSuccess;
}

// A copy queued on s (run when the stream runs), unless the fault injection fails s's device
// now: 0, the fault then spent.  Every kind of copy the runtime takes goes through here.
static bool enqueue_copy (mock_stream *s, void *dst, const void *src, size_t bytes)
{
  if (s->device == fail_device && fail_after-- <= 0)
    {
      fail_device = -1;
      return false;
    }
  op o;
  o.kind = op::COPY;
  o.dst = dst;
  o.src = src;
  o.bytes = bytes;
  s->ops.push_back (o);
  return true;
}

cudaError_t cudaMemcpyAsync (void *dst, const void *src, size_t bytes, enum cudaMemcpyKind kind,
                             cudaStream_t s)
{
  std::lock_guard<std::recursive_mutex> lock (mock_mutex);
  if (!streams.count (s))
    return cudaErrorInvalidValue;
  // The device side must lie inside one device block, the host side inside a pinned one.
  const void *dev = kind == cudaMemcpyHostToDevice ? dst : src;
  const void *host = kind == cudaMemcpyHostToDevice ? src : dst;
  auto inside = [] (const std::map<void *, size_t> &blocks, const void *p, size_t n) {
    auto it = blocks.upper_bound ((void *) p);
    if (it == blocks.begin ())
      return false;
    --it;
    return (const char *) p >= (const char *) it->first
           && (const char *) p + n <= (const char *) it->first + it->second;
  };
  if (!inside (device_blocks, dev, bytes) || !inside (pinned_blocks, host, bytes))
    {
      fprintf (stderr, "mock_cuda: cudaMemcpyAsync of %zu bytes outside its buffers\n", bytes);
      abort ();
    }
  // The device buffer, the stream and the calling thread's device are one device.
  const int block = block_device[std::prev (device_blocks.upper_bound ((void *) dev))->first];
  if (block != s->device || s->device != current)
    {
      fprintf (stderr, "mock_cuda: cudaMemcpyAsync between a buffer of device %d and a stream of "
               "device %d, from a thread on device %d\n", block, s->device, current);
      abort ();
    }
  if (!enqueue_copy (s, dst, src, bytes))
    return cudaErrorIllegalAddress;
  if (kind == cudaMemcpyHostToDevice)
    host_bytes_in[block] += bytes;
  return cudaSuccess;
}

cudaError_t cudaDeviceCanAccessPeer (int *can, int device, int peer)
{
  std::lock_guard<std::recursive_mutex> lock (mock_mutex);
  if (!can || !valid_device (device) || !valid_device (peer))
    return cudaErrorInvalidValue;
  *can = device != peer && !peer_off[device][peer];
  return cudaSuccess;
}

cudaError_t cudaDeviceEnablePeerAccess (int peer, unsigned flags)
{
  std::lock_guard<std::recursive_mutex> lock (mock_mutex);
  if (!valid_device (peer) || peer == current || flags != 0)
    return cudaErrorInvalidValue;
  if (peer_off[current][peer])
    return cudaErrorPeerAccessUnsupported;
  if (peer_enabled[current][peer])
    return cudaErrorPeerAccessAlreadyEnabled;
  peer_enabled[current][peer] = true;
  return cudaSuccess;
}

cudaError_t cudaMemcpyPeerAsync (void *dst, int dst_device, const void *src, int src_device,
                                 size_t bytes, cudaStream_t s)
{
  std::lock_guard<std::recursive_mutex> lock (mock_mutex);
  if (!streams.count (s) || !valid_device (dst_device) || !valid_device (src_device))
    return cudaErrorInvalidValue;
  // Each side inside one device block of its own device; the stream the receiver's, the calling
  // thread on it; another device's memory read only over a pair that is on and enabled.
  auto block_of = [] (const void *p, size_t n, int *device) {
    auto it = device_blocks.upper_bound ((void *) p);
    if (it == device_blocks.begin ())
      return false;
    --it;
    *device = block_device[it->first];
    return (const char *) p >= (const char *) it->first
           && (const char *) p + n <= (const char *) it->first + it->second;
  };
  int dst_block = -1, src_block = -1;
  if (!block_of (dst, bytes, &dst_block) || !block_of (src, bytes, &src_block)
      || dst_block != dst_device || src_block != src_device)
    {
      fprintf (stderr, "mock_cuda: cudaMemcpyPeerAsync of %zu bytes outside its devices' "
               "buffers (GPU %d to GPU %d)\n", bytes, src_device, dst_device);
      abort ();
    }
  if (s->device != dst_device || current != dst_device)
    {
      fprintf (stderr, "mock_cuda: cudaMemcpyPeerAsync to GPU %d on a stream of GPU %d, from a "
               "thread on GPU %d\n", dst_device, s->device, current);
      abort ();
    }
  if (dst_device != src_device
      && (peer_off[dst_device][src_device] || !peer_enabled[dst_device][src_device]))
    {
      fprintf (stderr, "mock_cuda: cudaMemcpyPeerAsync from GPU %d to GPU %d, whose peer access "
               "is %s\n", src_device, dst_device,
               peer_off[dst_device][src_device] ? "off" : "not enabled");
      abort ();
    }
  if (!enqueue_copy (s, dst, src, bytes))
    return cudaErrorIllegalAddress;
  if (dst_device != src_device)
    peer_bytes_in[dst_device] += bytes;
  return cudaSuccess;
}

void mock_cuda_enqueue (cudaStream_t s, void (*fn) (void *), void *arg)
{
  std::lock_guard<std::recursive_mutex> lock (mock_mutex);
  op o;
  o.kind = op::KERNEL;
  o.fn = fn;
  o.arg = arg;
  s->ops.push_back (o);
}
void mock_cuda_peer_access (int device, int peer, int on)
{
  std::lock_guard<std::recursive_mutex> lock (mock_mutex);
  for (int d = 0; d < MOST_DEVICES; d++)
    for (int p = 0; p < MOST_DEVICES; p++)
      if ((device < 0 || d == device) && (peer < 0 || p == peer))
        peer_off[d][p] = !on;
}
unsigned long long mock_cuda_host_to_device_bytes (int device)
{
  std::lock_guard<std::recursive_mutex> lock (mock_mutex);
  return valid_device (device) ? host_bytes_in[device] : 0;
}
unsigned long long mock_cuda_peer_bytes (int device)
{
  std::lock_guard<std::recursive_mutex> lock (mock_mutex);
  return valid_device (device) ? peer_bytes_in[device] : 0;
}
void mock_cuda_seed (unsigned long long seed) { rng = seed ? seed : 88172645463325252ull; }
size_t mock_cuda_device_bytes (void)
{
  std::lock_guard<std::recursive_mutex> lock (mock_mutex);
  size_t n = 0;
  for (auto &b : device_blocks)
    n += b.second;
  return n;
}
size_t mock_cuda_device_bytes_on (int device)
{
  std::lock_guard<std::recursive_mutex> lock (mock_mutex);
  return valid_device (device) ? device_held[device] : 0;
}
void mock_cuda_set_devices (int count)
{
  std::lock_guard<std::recursive_mutex> lock (mock_mutex);
  device_count = count < 1 ? 1 : count > MOST_DEVICES ? MOST_DEVICES : count;
}
void mock_cuda_slow_device (int device, unsigned us)
{
  std::lock_guard<std::recursive_mutex> lock (mock_mutex);
  for (int d = 0; d < MOST_DEVICES; d++)
    if (d == device || device < 0)
      slow_us[d] = device < 0 ? 0 : us;
}
void mock_cuda_fail_device (int device, int after)
{
  std::lock_guard<std::recursive_mutex> lock (mock_mutex);
  fail_device = device;
  fail_after = after;
}
size_t mock_cuda_pinned_bytes (void)
{
  std::lock_guard<std::recursive_mutex> lock (mock_mutex);
  size_t n = 0;
  for (auto &b : pinned_blocks)
    n += b.second;
  return n;
}
int mock_cuda_live_objects (void) { return (int) (streams.size () + events.size ()); }
void mock_cuda_fail_malloc_over (size_t bytes) { fail_over = bytes; }
void mock_cuda_set_memory (size_t bytes)
{
  std::lock_guard<std::recursive_mutex> lock (mock_mutex);
  memory_total = bytes ? bytes : (size_t) 1 << 30;
}
size_t mock_cuda_peak_bytes (void)
{
  std::lock_guard<std::recursive_mutex> lock (mock_mutex);
  size_t most = 0;
  for (int d = 0; d < MOST_DEVICES; d++)
    most = device_peak[d] > most ? device_peak[d] : most;
  return most;
}
void mock_cuda_reset_peak (void)
{
  std::lock_guard<std::recursive_mutex> lock (mock_mutex);
  for (int d = 0; d < MOST_DEVICES; d++)
    device_peak[d] = device_held[d];
}
unsigned long long mock_cuda_ops_run (void) { return ops_run; }
unsigned long long mock_cuda_allocations (void)
{
  std::lock_guard<std::recursive_mutex> lock (mock_mutex);
  return allocations;
}
size_t mock_cuda_pending_ops (void)
{
  size_t n = 0;
  for (mock_stream *s : streams)
    n += s->ops.size ();
  return n;
}

} // extern "C"
