/* device_model.c — the one model of a product's costs (see device_model.h).
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 */
#include "device_model.h"

/* H100, from Octave (bench/RESULTS.md): the crossover sweep gave the call's fixed cost, the slow
 * first megabytes and `*`'s rates near the crossover; the staged bus and the preferred kernels'
 * rates come from the end-to-end table (the kernels: 19 TF/s double, 37 single at 4096); a
 * worker's panel costs ~0.1–0.2 ms (its copies, its pipeline filled and drained), so a panel of
 * ten times that keeps the cost under a tenth. */
static const tilemm_device_model model = {
  .call_s = 1.0e-4,
  .first_bytes = 4.0e6,
  .first_bytes_per_s = 6.0e9,
  .bus_bytes_per_s = 3.0e10,
  .step_s = 2.0e-5,
  .panel_s = 2.0e-4,
  .panel_worth = 10.0,
  .kernel_flops_per_s = { 3.7e13, 1.9e13 },
  .host_flops_per_s = { 2.5e11, 2.0e11 },
  /* From the loop of `*` over pages of 64x64 to 256x256 in bench/pages.sh's grid on the GPU
   * machine (bench/RESULTS.md), less the interpreter's own cost a page; single taken as twice
   * double's rate. */
  .host_page_s = 2.0e-5,
  .host_page_flops_per_s = { 1.2e11, 6.0e10 },
};

const tilemm_device_model *tilemm_device_model_get (void)
{
  return &model;
}

static int is_double (tilemm_type type)
{
  return type == TILEMM_DOUBLE || type == TILEMM_COMPLEX_DOUBLE;
}

double tilemm_model_flops (tilemm_type type, double m, double n, double k)
{
  return 2.0 * m * n * k * (tilemm_type_is_complex (type) ? 4.0 : 1.0);
}

double tilemm_model_rank_k_flops (tilemm_type type, double n, double k)
{
  return n * (n + 1.0) * k * (tilemm_type_is_complex (type) ? 4.0 : 1.0);
}

double tilemm_model_kernel_s (tilemm_type type, double flops)
{
  return flops / model.kernel_flops_per_s[is_double (type)];
}

double tilemm_model_bus_s (double bytes)
{
  return bytes / model.bus_bytes_per_s;
}

double tilemm_model_gpu_call_s (tilemm_type type, double bytes, double flops)
{
  const double first = bytes < model.first_bytes ? bytes : model.first_bytes;
  return model.call_s + first / model.first_bytes_per_s + tilemm_model_bus_s (bytes - first)
         + tilemm_model_kernel_s (type, flops);
}

double tilemm_model_host_s (tilemm_type type, double flops)
{
  return flops / model.host_flops_per_s[is_double (type)];
}

double tilemm_model_host_page_s (tilemm_type type, double flops)
{
  return model.host_page_s + flops / model.host_page_flops_per_s[is_double (type)];
}

double tilemm_model_min_panel_flops (tilemm_type type)
{
  return model.panel_worth * model.panel_s * model.kernel_flops_per_s[is_double (type)];
}
