## Copyright (C) 2026 The tilemm developers.
##
## This program is free software: you can redistribute it and/or modify it under the terms of
## the GNU General Public License as published by the Free Software Foundation, either version 3
## of the License, or (at your option) any later version.  See COPYING.

## -*- texinfo -*-
## @deftypefn  {} {} tilemm_build ()
## @deftypefnx {} {} tilemm_build (@var{srcdir})
## @deftypefnx {} {} tilemm_build (@var{srcdir}, @var{outdir})
## @deftypefnx {} {} tilemm_build (@dots{}, "cuda", @var{nvcc})
## Build tilemm's mex files (@file{tilemm} and @file{tilemm_info}) with the @code{mex} command
## of MATLAB or Octave, from a source tree of tilemm.
##
## This is the way to use tilemm from MATLAB; Octave users normally @code{pkg install} the
## release tarball instead.  @var{srcdir} is the tree's @file{src} folder (default: the
## @file{src} folder beside the @file{inst} folder holding this file); @var{outdir} is where the
## mex files go (default: @var{srcdir}).
##
## Without @qcode{"cuda"} the CPU backend is built (OpenMP where the compiler is GCC or Clang).
## With @qcode{"cuda"}, @var{nvcc} (e.g. @qcode{"/usr/local/cuda/bin/nvcc"}) compiles the CUDA
## backend and kernels for the GPU of this machine's architecture list (sm_75 to sm_90) and the
## mex files are linked with the static CUDA runtime.
##
## Example (MATLAB or Octave, from the root of a tilemm source tree):
## @example
## @group
## addpath inst
## tilemm_build ()                 % CPU backend
## tilemm_build ("src", "src", "cuda", "/usr/local/cuda/bin/nvcc")   % with the GPU path
## addpath src
## C = tilemm (rand (300), rand (300));
## @end group
## @end example
##
## A CPU build into a folder of its own (it runs where the source tree is, as in the tests;
## an installed package has no source tree):
## @c runs: this example is run by the test suite (tests/check_doc_examples.m)
## @example
## @group
## src = fullfile (fileparts (which ("tilemm_build")), "..", "src");
## if (exist (fullfile (src, "tilemm.c"), "file"))
##   out = tempname ();
##   mkdir (out);
##   tilemm_build (src, out);
##   assert (exist (fullfile (out, ["tilemm." mexext()]), "file") > 0)
##   confirm_recursive_rmdir (false, "local");
##   rmdir (out, "s");
## endif
## @end group
## @end example
##
## What was tested: this function and the gateway under Octave's @code{mex}.  MATLAB's
## @code{mex} was not available to test; the manual (@code{doc tilemm}, chapter MATLAB) gives the
## equivalent @code{mex} and @code{mexcuda} command lines.
##
## @seealso{tilemm, tilemm_info}
## @end deftypefn

function tilemm_build (varargin)
  [srcdir, outdir, nvcc] = parse_args (varargin{:});
  version = read_version (fullfile (srcdir, "..", "DESCRIPTION"));
  core = {"status.c", "view.c", "plan.c", "route.c", "core.c", "front.c", "backend_cpu.c", ...
          "parallel_copy.c", "host_pages.c", "emulated.c", "exact_dot.c", ...
          "mex_common.c"};
  core = cellfun (@(f) fullfile (srcdir, f), core, "UniformOutput", false);
  flags = {"-R2018a", ["-DTILEMM_VERSION=" version], ["-I" srcdir]};

  extra = {};
  if (isempty (nvcc))
    core{end+1} = fullfile (srcdir, "backend_nocuda.c");
  else
    extra = compile_cuda (nvcc, srcdir, outdir, version);
  endif

  in_octave = exist ("OCTAVE_VERSION", "builtin") > 0;
  if (in_octave)
    ## Octave's mex is mkoctfile, which takes its compiler flags from the environment.
    old_cflags = getenv ("CFLAGS");  old_ldflags = getenv ("LDFLAGS");
    setenv ("CFLAGS", [mkoctfile_var("CFLAGS") " -std=c11 -fopenmp"]);
    setenv ("LDFLAGS", [mkoctfile_var("LDFLAGS") " -fopenmp"]);
    cleanup = onCleanup (@() restore_env (old_cflags, old_ldflags));
    ompflags = {};
  else
    ompflags = {"CFLAGS=$CFLAGS -std=c11 -fopenmp", "LDFLAGS=$LDFLAGS -fopenmp"};
  endif

  for name = {"tilemm", "tilemm_info"}
    gateway = fullfile (srcdir, [name{1} ".c"]);
    if (in_octave)
      output = {"-o", fullfile(outdir, [name{1} "." mexext()])};   # Octave's mex has no -outdir
    else
      output = {"-outdir", outdir, "-output", name{1}};
    endif
    mex (flags{:}, ompflags{:}, output{:}, gateway, core{:}, extra{:});
  endfor
endfunction

function [srcdir, outdir, nvcc] = parse_args (varargin)
  nvcc = "";
  pos = {};
  i = 1;
  while (i <= numel (varargin))
    if (ischar (varargin{i}) && strcmpi (varargin{i}, "cuda"))
      if (i == numel (varargin) || ! ischar (varargin{i+1}))
        error ("tilemm:badoption", "tilemm_build: \"cuda\" needs the path of nvcc");
      endif
      nvcc = varargin{i+1};
      i += 2;
    else
      pos{end+1} = varargin{i};
      i += 1;
    endif
  endwhile
  if (numel (pos) > 2 || ! all (cellfun (@ischar, pos)))
    error ("tilemm:nargin", "tilemm_build: usage: tilemm_build (SRCDIR, OUTDIR, \"cuda\", NVCC)");
  endif
  if (numel (pos) >= 1)
    srcdir = pos{1};
  else
    srcdir = fullfile (fileparts (mfilename ("fullpath")), "..", "src");
  endif
  if (! exist (fullfile (srcdir, "tilemm.c"), "file"))
    error ("tilemm:nosource", "tilemm_build: no tilemm sources in '%s'; give the src folder of a tilemm source tree", srcdir);
  endif
  if (numel (pos) == 2)
    outdir = pos{2};
  else
    outdir = srcdir;
  endif
endfunction

function version = read_version (description)
  text = fileread (description);
  version = regexp (text, '(?m)^Version:\s*(\S+)', "tokens", "once");
  if (isempty (version))
    error ("tilemm:nosource", "tilemm_build: no Version line in %s", description);
  endif
  version = version{1};
endfunction

function objects = compile_cuda (nvcc, srcdir, outdir, version)
  arch = "";
  for cc = {"75", "80", "86", "89", "90"}
    arch = [arch sprintf(" -gencode arch=compute_%s,code=sm_%s", cc{1}, cc{1})];
  endfor
  arch = [arch " -gencode arch=compute_90,code=compute_90"];
  objects = {};
  for f = {"backend_cuda", "kernels"}
    obj = fullfile (outdir, [f{1} ".o"]);
    cmd = sprintf ('"%s" -std=c++17 -O3 %s -Xcompiler -fPIC -DTILEMM_VERSION=%s -I"%s" -c "%s" -o "%s"',
                   nvcc, arch, version, srcdir, fullfile (srcdir, [f{1} ".cu"]), obj);
    [status, output] = system (cmd);
    if (status != 0)
      error ("tilemm:build", "tilemm_build: nvcc failed:\n%s\n%s", cmd, output);
    endif
    objects{end+1} = obj;
  endfor
  libdir = fullfile (fileparts (fileparts (nvcc)), "lib64");
  objects = [objects, {["-L" libdir], "-lcudart_static", "-ldl", "-lrt", "-lpthread", "-lstdc++"}];
endfunction

function value = mkoctfile_var (name)
  value = strtrim (evalc (sprintf ("mkoctfile ('-p', '%s')", name)));
endfunction

function restore_env (cflags, ldflags)
  setenv ("CFLAGS", cflags);
  setenv ("LDFLAGS", ldflags);
endfunction

%!function d = source_dir ()
%!  d = fullfile (fileparts (which ("tilemm_build")), "..", "src");
%!endfunction

%!testif ; exist (fullfile (source_dir (), "tilemm.c"), "file")
%! ## Build the CPU mex files with Octave's mex into a fresh folder, and use them.
%! out = tempname ();
%! mkdir (out);
%! unwind_protect
%!   evalc ("tilemm_build (source_dir (), out)");
%!   assert (exist (fullfile (out, ["tilemm." mexext()]), "file") > 0);
%!   here = pwd ();
%!   clear tilemm tilemm_info;     # forget the loaded ones: the fresh build must answer
%!   cd (out);
%!   unwind_protect
%!     assert (which ("tilemm"), fullfile (out, ["tilemm." mexext()]));
%!     A = rand (37, 29); B = rand (29, 41);
%!     C = tilemm (A, B, "backend", "cpu");
%!     s = tilemm_info ();
%!   unwind_protect_cleanup
%!     cd (here);
%!     clear tilemm tilemm_info;
%!   end_unwind_protect
%!   assert (C, A * B, -1e-12);
%!   assert (s.cuda_built, false);
%! unwind_protect_cleanup
%!   confirm_recursive_rmdir (false, "local");
%!   rmdir (out, "s");
%! end_unwind_protect
%!error id=tilemm:nosource tilemm_build (tempdir ())
%!error id=tilemm:badoption tilemm_build (source_dir (), tempdir (), "cuda")
