/* tests/emu/test_emu.cc — tests/test_cuda.cu's kernel cases on the host emulation of CUDA
 * (tests/emu/cuda_runtime_api.h): every variant, type and small shape, strides and layouts, the
 * split-k shapes, and the pre-sm_80 fallback of the DMMA variants.  A developer's check before
 * spending GPU time, not part of `make check` (tests/emu/run.sh builds and runs it under ASan).
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 */
#define main test_cuda_main
#include "../test_cuda.cu"
#undef main

/* The backend is not emulated: test_cuda's backend cases are not run here. */
tilemm_status tilemm_cuda_probe (tilemm_error *) { return TILEMM_OK; }
int tilemm_cuda_device_count (void) { return 1; }
tilemm_status tilemm_cuda_device_info (int, tilemm_device_info *, tilemm_error *) { return TILEMM_OK; }
int tilemm_cuda_current_device (void) { return 0; }
tilemm_status tilemm_cuda_multiply (const tilemm_plan *, const tilemm_view *, const tilemm_view *,
                                    const tilemm_view *, const tilemm_stop *, tilemm_error *)
{
  return TILEMM_ENOGPU;
}
void tilemm_cuda_release (void) {}
size_t tilemm_cuda_bytes_held (void) { return 0; }
/* … nor its several-device runner (test_cuda's workers cases, not run here). */
size_t tilemm_cuda_pinned_bytes_held (void) { return 0; }
int tilemm_cuda_usable_devices (tilemm_workers *workers)
{
  workers->count = 0;
  return 0;
}
tilemm_status tilemm_cuda_multiply_workers (const tilemm_plan *, const tilemm_limits *,
                                            const tilemm_workers *, int, const tilemm_view *,
                                            const tilemm_view *, const tilemm_view *,
                                            const tilemm_stop *, tilemm_multi_report *,
                                            tilemm_error *)
{
  return TILEMM_ENOGPU;
}
tilemm_status tilemm_multiply (const tilemm_plan *, const tilemm_view *, const tilemm_view *,
                               const tilemm_view *, tilemm_error *) { return TILEMM_ENOGPU; }

extern int tilemm_emu_cc_major;

int main (int argc, char **argv)
{
  int first = 6, last = 16;
  if (argc > 1)
    first = last = atoi (argv[1]);
  setenv ("TILEMM_TEST_QUICK", "1", 1);
  char range[32];
  snprintf (range, sizeof range, "%d-%d", first, last);
  setenv ("TILEMM_TEST_VARIANTS", range, 1);
  checker_case ();
  table_cases ();
  long_k_cases ();
  for (int variant = first; variant <= last; variant++)
    for (int ti = 0; ti < TILEMM_NTYPES; ti++)
      {
        const tilemm_type t = (tilemm_type) ti;
        int r, c, d, p, th;
        if (!tilemm_cuda_kernel_shape (variant, t, &r, &c, &d, &p, &th))
          continue;
        for (const shape &s : square_shapes)
          for (int l = 0; l < NLAYOUTS; l++)
            if (s.H * s.K * s.W <= 3000000)
              kernel_case (variant, t, s.H, s.K, s.W, (enum layout) l);
        /* long k, small C': split k (variant 11) or a long k-loop; 300×520 has blocks wholly
         * inside C' (the 16-byte stores) and ragged ones for every tile up to 128×256 */
        const shape extra[] = { { 64, 2048, 64 }, { 5, 3001, 7 }, { 130, 700, 3 }, { 40, 513, 200 },
                                { 300, 40, 520 } };
        for (const shape &s : extra)
          for (int l = 0; l < NLAYOUTS; l++)
            kernel_case (variant, t, s.H, s.K, s.W, (enum layout) l);
      }
  /* Before sm_80 the DMMA variants run a register-tiled kernel instead: the caller says so
   * (launch_planned reads the device's compute capability, tilemm_kernel_launch_plan). */
  tilemm_emu_cc_major = 7;
  for (int variant = 8; variant <= 11; variant++)
    for (tilemm_type t : { TILEMM_DOUBLE, TILEMM_COMPLEX_DOUBLE })
      {
        kernel_case (variant, t, 129, 65, 255, LAYOUT_PACKED);
        kernel_case (variant, t, 5, 3001, 7, LAYOUT_ODD_STRIDE);
      }
  tilemm_emu_cc_major = 9;
  return check_summary ("test_emu");
}
