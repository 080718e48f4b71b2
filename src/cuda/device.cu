/* device.cu — is there a usable GPU, which devices, how much memory: the probe and the
 * device queries of backend.h.
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 */
#include <stdarg.h>
#include <stdio.h>

#include "executor.h"

using namespace tilemm_cuda;

/* The oldest GPU the build's kernels can run on: sm_75 (CUDA 13 dropped sm_70). */
#ifndef TILEMM_CUDA_MIN_CC
#define TILEMM_CUDA_MIN_CC 75
#endif

namespace tilemm_cuda {

/* ---------------------------------------------------------------- probe */

struct probe_answer
{
  bool done;
  tilemm_status status;
  char detail[384];
};

static probe_answer probe_state;

static void probe_fail (const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  vsnprintf (probe_state.detail, sizeof probe_state.detail, fmt, ap);
  va_end (ap);
  probe_state.status = TILEMM_ENOGPU;
  cudaGetLastError (); /* none of these failures may linger into a later call */
}

static void probe_run (void)
{
  probe_state.status = TILEMM_OK;
  probe_state.detail[0] = '\0';
  int driver = 0, runtime = 0, count = 0, device = 0;
  cudaError_t e = cudaDriverGetVersion (&driver);
  if (e != cudaSuccess || driver == 0)
    return probe_fail ("no NVIDIA driver found%s%s; install the NVIDIA driver to use the GPU",
                       e != cudaSuccess ? ": " : "", e != cudaSuccess ? cudaGetErrorString (e) : "");
  cudaRuntimeGetVersion (&runtime);
  if (driver < runtime)
    return probe_fail ("the NVIDIA driver supports CUDA %d.%d but tilemm was built with CUDA %d.%d; "
                       "update the driver",
                       driver / 1000, driver % 1000 / 10, runtime / 1000, runtime % 1000 / 10);
  e = cudaGetDeviceCount (&count);
  if (e != cudaSuccess)
    return probe_fail ("cudaGetDeviceCount: %s", cudaGetErrorString (e));
  if (count == 0)
    return probe_fail ("no CUDA device found");
  cudaDeviceProp prop;
  if ((e = cudaGetDevice (&device)) != cudaSuccess
      || (e = cudaGetDeviceProperties (&prop, device)) != cudaSuccess)
    return probe_fail ("cannot query CUDA device %d: %s", device, cudaGetErrorString (e));
  if (prop.major * 10 + prop.minor < TILEMM_CUDA_MIN_CC)
    return probe_fail ("GPU %d (%s) has compute capability %d.%d; tilemm's kernels need %d.%d or "
                       "newer",
                       device, prop.name, prop.major, prop.minor, TILEMM_CUDA_MIN_CC / 10,
                       TILEMM_CUDA_MIN_CC % 10);
}

tilemm_status probe (tilemm_error *err)
{
  if (!probe_state.done)
    {
      probe_run ();
      probe_state.done = true;
    }
  if (probe_state.status != TILEMM_OK)
    return tilemm_error_set (err, probe_state.status, "%s", probe_state.detail);
  return tilemm_error_set (err, TILEMM_OK, NULL);
}
} /* namespace tilemm_cuda */

namespace tilemm_cuda {



tilemm_status locked_probe (tilemm_error *err)
{
  std::lock_guard<std::mutex> lock (ws_mutex);
  return probe (err);
}

int device_count (void)
{
  std::lock_guard<std::mutex> lock (ws_mutex);
  int count = 0;
  if (probe (NULL) != TILEMM_OK || cudaGetDeviceCount (&count) != cudaSuccess)
    {
      cudaGetLastError ();
      return 0;
    }
  return count;
}

int current_device (void)
{
  std::lock_guard<std::mutex> lock (ws_mutex);
  int device = -1;
  if (probe (NULL) != TILEMM_OK || cudaGetDevice (&device) != cudaSuccess)
    {
      cudaGetLastError ();
      return -1;
    }
  return device;
}

tilemm_status device_info (int index, tilemm_device_info *info, tilemm_error *err)
{
  std::lock_guard<std::mutex> lock (ws_mutex);
  tilemm_status status = probe (err);
  if (status != TILEMM_OK)
    return status;
  int count = 0, current = 0;
  cudaDeviceProp prop;
  auto query = [&] () -> tilemm_status {
    CUDA_TRY (cudaGetDeviceCount (&count), "cudaGetDeviceCount");
    if (!info || index < 0 || index >= count)
      return tilemm_error_set (err, TILEMM_EINVAL, "no CUDA device %d (there are %d)", index,
                               count);
    CUDA_TRY (cudaGetDeviceProperties (&prop, index), "cudaGetDeviceProperties(%d)", index);
    memset (info, 0, sizeof *info);
    info->index = index;
    memcpy (info->name, prop.name, sizeof info->name - 1); /* both 256 bytes */
    info->name[sizeof info->name - 1] = '\0';
    info->total_memory = prop.totalGlobalMem;
    info->cc_major = prop.major;
    info->cc_minor = prop.minor;
    info->multiprocessors = prop.multiProcessorCount;
    /* Free memory is a per-device query: visit the device, then come back. */
    CUDA_TRY (cudaGetDevice (&current), "cudaGetDevice");
    if (current != index)
      CUDA_TRY (cudaSetDevice (index), "cudaSetDevice(%d)", index);
    size_t free_bytes = 0, total_bytes = 0;
    const cudaError_t e = cudaMemGetInfo (&free_bytes, &total_bytes);
    if (current != index)
      CUDA_TRY (cudaSetDevice (current), "cudaSetDevice(%d)", current);
    CUDA_TRY (e, "cudaMemGetInfo(device %d)", index);
    info->free_memory = free_bytes;
    return tilemm_error_set (err, TILEMM_OK, NULL);
  };
  status = query ();
  if (status != TILEMM_OK)
    cudaGetLastError ();
  return status;
}

/* The memory of `device` now, for the facts: *usable its free memory plus what tilemm's
 * workspaces hold there, *total the card's; both 0 when it cannot be asked.  The budget a
 * product may hold (the driver's margin taken off) is the plan's: tilemm_facts_budget
 * (common/call_plan.c).  Called with ws_mutex held. */
void device_memory (int device, size_t *usable, size_t *total)
{
  int current = -1;
  size_t free_bytes = 0, total_bytes = 0;
  *usable = *total = 0;
  if (cudaGetDevice (&current) != cudaSuccess
      || (current != device && cudaSetDevice (device) != cudaSuccess)
      || cudaMemGetInfo (&free_bytes, &total_bytes) != cudaSuccess)
    {
      cudaGetLastError ();
      if (current >= 0)
        cudaSetDevice (current);
      return;
    }
  if (current != device)
    cudaSetDevice (current);
  size_t held = free_bytes;
  for (const workspace &w : ws_pool)
    if (w.device == device)
      held += workspace_bytes (w);
  *usable = held;
  *total = total_bytes;
}

/* Where device `device` sits: its PCI device's NUMA node and the CPUs near it, from sysfs; -1
 * and an empty set where the system does not say (no sysfs, a virtual machine's flat view). */
static void locality (int device, int *node, tilemm_cpu_set *cpus)
{
  char bus_id[64];
  if (cudaDeviceGetPCIBusId (bus_id, (int) sizeof bus_id, device) != cudaSuccess
      || !tilemm_pci_local_cpus ("/sys", bus_id, cpus, node))
    {
      cudaGetLastError ();
      *node = -1;
      tilemm_cpu_set_clear (cpus);
    }
}

/* The usable devices (compute capability new enough), their capabilities, multiprocessors and
 * where they sit (NUMA node, near CPUs), asked once like the probe (the devices a process sees do not
 * change): every GPU call asks, and a properties query costs far more than a small product
 * takes.  *total: every device seen.  Called with ws_mutex held. */
int usable_devices (tilemm_workers *workers, int *cc_major, int *total, int *numa_node,
                    tilemm_cpu_set *local_cpus, int *multiprocessors)
{
  static tilemm_workers usable;
  static int usable_cc[TILEMM_MAX_WORKERS];
  static int usable_sms[TILEMM_MAX_WORKERS];
  static int usable_node[TILEMM_MAX_WORKERS];
  static tilemm_cpu_set usable_cpus[TILEMM_MAX_WORKERS];
  static int seen = 0;
  static bool asked = false;
  workers->count = 0;
  *total = 0;
  if (probe (NULL) != TILEMM_OK)
    return 0;
  if (!asked)
    {
      int count = 0;
      usable.count = 0;
      if (cudaGetDeviceCount (&count) != cudaSuccess)
        count = 0;
      seen = count;
      for (int d = 0; d < count && usable.count < TILEMM_MAX_WORKERS; d++)
        {
          cudaDeviceProp prop;
          if (cudaGetDeviceProperties (&prop, d) == cudaSuccess
              && prop.major * 10 + prop.minor >= TILEMM_CUDA_MIN_CC)
            {
              usable_cc[usable.count] = prop.major;
              usable_sms[usable.count] = prop.multiProcessorCount;
              locality (d, &usable_node[usable.count], &usable_cpus[usable.count]);
              usable.device[usable.count++] = d;
            }
        }
      cudaGetLastError ();
      asked = true;
    }
  *workers = usable;
  *total = seen;
  for (int i = 0; i < usable.count; i++)
    {
      cc_major[i] = usable_cc[i];
      if (numa_node)
        numa_node[i] = usable_node[i];
      if (local_cpus)
        local_cpus[i] = usable_cpus[i];
      if (multiprocessors)
        multiprocessors[i] = usable_sms[i];
    }
  return workers->count;
}

int device_multiprocessors (int device)
{
  tilemm_workers usable;
  int cc[TILEMM_MAX_WORKERS], sms[TILEMM_MAX_WORKERS], total = 0;
  usable_devices (&usable, cc, &total, nullptr, nullptr, sms);
  for (int i = 0; i < usable.count; i++)
    if (usable.device[i] == device)
      return sms[i];
  return 0;
}

} /* namespace tilemm_cuda */
