/* tilemm_settings.h — the environment variables tilemm reads, as data: read in options.c only,
 * into the structures below, which the rest of tilemm reads (tests/check-layers.sh: no getenv
 * elsewhere).  The manual lists every variable (doc/tilemm.texi).
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 *
 * When each is read follows what it is for:
 *   - the process's settings (the GPU's pinned staging, the BLAS library's memset and trace) are
 *     read once per process, by the first call of tilemm_process_settings_get, whatever the thread
 *     (the BLAS library calls it while it loads); the staging's reach the GPU only through each
 *     call's settings and plan (tilemm_call_settings_read, tilemm_plan_staging);
 *   - a call's settings (devices, simulated devices and their faults, the steps of a one-panel
 *     product, the emulated int8 GEMM, pages alone, the fault hook) are read once per call by
 *     whoever makes the call's plan (tilemm_call_settings_read: exec/decide.c, or a low-level
 *     entry's plan), and reach the executor and the backends only as the plan's decisions, so a
 *     program (and a test) may change them between calls and never within one;
 *   - TILEMM_PRECISION, read at every call whatever it does (tilemm_precision_in_effect, front.h),
 *     and the BLAS library's own per-call pair (tilemm_blas_settings_read);
 *   - TILEMM_CALIBRATION and the folder of the facts' store, read once at the start of a call that
 *     reads the machine's facts, into its options (tilemm_calibration_in_effect, front.h:
 *     tilemm_options.calibration), which the machine's facts (exec/machine.c) follow.
 */
#ifndef TILEMM_TILEMM_SETTINGS_H
#define TILEMM_TILEMM_SETTINGS_H

#include <stddef.h>
#include <stdint.h>

#include "devices.h"
#include "fault.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- once per process */

/* TILEMM_BLAS_MEMSET: what the BLAS library's memset does with a large block. */
typedef enum {
  TILEMM_BLAS_MEMSET_THREADS = 0, /* set by the threads (unset, the default)                  */
  TILEMM_BLAS_MEMSET_OFF,         /* "0": the C library's memset                              */
  TILEMM_BLAS_MEMSET_HUGE         /* "huge": the threads, after asking huge pages for the block */
} tilemm_blas_memset_setting;

typedef struct {
  /* The GPU's pinned staging (the manual: Performance > Settings). */
  size_t staging_chunk_bytes;  /* TILEMM_STAGING_KB (finer: tests use tiny chunks), else
                                  TILEMM_STAGING_MB (16)                                       */
  int staging_chunks;          /* TILEMM_STAGING_CHUNKS: chunks each way, 2 to 16 (4)          */
  int copy_threads;            /* TILEMM_COPY_THREADS: host threads per staging copy (0: the
                                  plan's)                                                      */
  int host_threads;            /* OMP_NUM_THREADS: the user's cap on the host threads tilemm's
                                  teams use (its first number; 0: unset, the CPUs of the
                                  process's affinity mask)                                     */
  int huge_pages;              /* TILEMM_HUGEPAGES: ask huge pages for a large result (1)      */
  int prefault_threads;        /* TILEMM_PREFAULT_THREADS: threads faulting a large result's
                                  pages in (0: none)                                           */
  int keep_freed_memory;       /* TILEMM_KEEP_FREED_MEMORY: the C library's malloc keeps the
                                  large blocks it frees for the next ones (1), as the process
                                  starts or on its first call (host_pages.h), or returns them
                                  to the system (0, the default)                               */
  /* The BLAS library (libtilemm_blas.so). */
  tilemm_blas_memset_setting blas_memset;  /* TILEMM_BLAS_MEMSET                              */
  char blas_trace[4096];       /* TILEMM_BLAS_TRACE: the file a process's record is appended
                                  to at exit ("": none)                                        */
} tilemm_process_settings;

/* The process's settings, read from the environment on the first call (thread-safe: one thread
 * reads, the others wait for it) and the same ever after. */
const tilemm_process_settings *tilemm_process_settings_get (void);

/* ---------------------------------------------------------------- once per call */

/* Simulated devices that misbehave, for tests (TILEMM_SIMULATE_FAIL="DEV[:AFTER]",
 * TILEMM_SIMULATE_SLOW="DEV:MS"). */
typedef struct {
  int fail_device;    /* -1: none; else this device fails ...                  */
  int fail_after;     /* ... after computing this many panels                   */
  int slow_device;    /* -1: none; else this device pauses slow_ms before each panel */
  int slow_ms;
} tilemm_sim_faults;

/* No failure, no slow device. */
void tilemm_sim_faults_none (tilemm_sim_faults *faults);

typedef struct tilemm_call_settings_s {
  /* The process's staging settings (tilemm_process_settings), as the call's plan takes them
   * (tilemm_plan_staging, copy_team.h). */
  size_t staging_chunk_bytes;
  int staging_chunks, huge_pages, prefault_threads;
  int devices_given;            /* TILEMM_DEVICES is set (not empty) ...                       */
  int devices_bad;              /* ... but is no list of at most TILEMM_MAX_WORKERS ordinals
                                   (tilemm_devices_of_call says so) ...                        */
  char devices_text[128];       /* ... its text (for that message, cut to fit) ...             */
  tilemm_workers devices;       /* ... else the list (count 0: it named none)                  */
  int simulate_devices;         /* TILEMM_SIMULATE_DEVICES: 0 to TILEMM_MAX_WORKERS; -1 unset
                                   or malformed                                                */
  tilemm_sim_faults sim_faults; /* TILEMM_SIMULATE_FAIL, TILEMM_SIMULATE_SLOW                  */
  int64_t step_cols, step_rows; /* TILEMM_STEP_COLS, TILEMM_STEP_ROWS: a one-panel GPU
                                   product's steps (0: the plan's)                             */
  char emu_gemm[16];            /* TILEMM_EMU_IMMA: the emulated precision's int8 GEMM by name
                                   ("": the default; tilemm_emu_gemm_named)                    */
  int64_t emu_pipe_cols;        /* TILEMM_EMU_PIPE_COLS: an emulated one-pass GPU product's
                                   pipelined panels, columns of C each (0: the plan's rule;
                                   -1: never pipelined) ...                                    */
  int64_t emu_pipe_first;       /* ... TILEMM_EMU_PIPE_FIRST: its first panel's (0: as many)   */
  int pages_alone;              /* TILEMM_PAGES_ALONE: 1 every batch's pages alone, 0 none, -1
                                   the batch plan's rule                                       */
  tilemm_fault_spec fault;      /* TILEMM_FAULT (fault.h): the test hook's armed fault          */
} tilemm_call_settings;

/* A call's settings, read from the environment now (once per call: the caller keeps them). */
void tilemm_call_settings_read (tilemm_call_settings *settings);

/* TILEMM_CALIBRATION: whether the machine's facts are measured and kept. */
typedef enum {
  TILEMM_CALIBRATION_UNSET = 0,  /* not read yet (tilemm_options_init): the call reads it      */
  TILEMM_CALIBRATION_ON,         /* unset or anything else: measured, kept where not busy      */
  TILEMM_CALIBRATION_OFF,        /* "off", "0" or "no": the built-in model                     */
  TILEMM_CALIBRATION_KEEP        /* "keep": facts measured on a busy machine kept all the same
                                    (a machine that is always that busy)                       */
} tilemm_calibration_mode;

typedef struct {
  tilemm_calibration_mode mode;
  char dir[512];   /* the store's folder: TILEMM_CALIBRATION_DIR, else $XDG_CACHE_HOME/tilemm,
                      else ~/.cache/tilemm; "" where there is none (measured, not kept)       */
} tilemm_calibration_setting;

/* ---------------------------------------------------------------- the BLAS library's calls */

typedef struct {
  int backend_given;        /* TILEMM_BLAS_BACKEND is set (not empty): its text ...  */
  char backend[64];         /* ... cut to fit (the library checks it, once per call) */
  int times;                /* TILEMM_BLAS_TIMES set to anything but "" or "0..."     */
} tilemm_blas_settings;

/* The BLAS library's settings of one call (read at every call, so a program may change them
 * between calls). */
void tilemm_blas_settings_read (tilemm_blas_settings *settings);

#ifdef __cplusplus
}
#endif

#endif /* TILEMM_TILEMM_SETTINGS_H */
