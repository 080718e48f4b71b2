## ms = plan_model_ms (A, B, way) — what the plan's model says the product A·B costs one way
## ("host": Octave's `*`, "cpu", "gpu"), in ms, read from __tilemm_plan__'s line
## "auto: host X ms, cpu Y ms, gpu Z ms"; NaN where the oct-file has no plan printer (the mex
## route) or the plan names no such way.  For the bench programs that set a time beside the model.
##
## Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
function ms = plan_model_ms (A, B, way)
  ms = NaN;
  if (! exist ("__tilemm_plan__"))
    return;
  endif
  tok = regexp (__tilemm_plan__ (A, B), ['auto:.*\<' way ' ([^ ]+) ms'], "tokens", "once");
  if (numel (tok) == 1)
    ms = str2double (tok{1});
  endif
endfunction
