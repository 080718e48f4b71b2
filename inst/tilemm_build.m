% Copyright (C) 2026 The tilemm developers.
%
% This program is free software: you can redistribute it and/or modify it under the terms of
% the GNU General Public License as published by the Free Software Foundation, either version 3
% of the License, or (at your option) any later version.  See COPYING.

% -*- texinfo -*-
% @deftypefn  {} {} tilemm_build ()
% @deftypefnx {} {} tilemm_build (@var{srcdir})
% @deftypefnx {} {} tilemm_build (@var{srcdir}, @var{outdir})
% @deftypefnx {} {} tilemm_build (@dots{}, "cuda", @var{nvcc})
% @deftypefnx {} {} tilemm_build (@dots{}, "cuda", @var{nvcc}, "arch", @var{arch})
% Build tilemm's mex files (@file{tilemm} and @file{tilemm_info}) with the @code{mex} command
% of MATLAB or Octave, from a source tree of tilemm.
%
% This is the way to use tilemm from MATLAB; Octave users normally @code{pkg install} the
% release tarball instead.  @var{srcdir} is the tree's @file{src} folder (default: the
% @file{src} folder beside the @file{inst} folder holding this file); @var{outdir} is where the
% mex files go (default: @var{srcdir}).  The files compiled are those of
% @file{@var{srcdir}/sources.mk}, the list the package's own build reads.
%
% Without @qcode{"cuda"} the CPU backend is built (OpenMP where the compiler is GCC or Clang).
% With @qcode{"cuda"}, @var{nvcc} (e.g. @qcode{"/usr/local/cuda/bin/nvcc"}) compiles the CUDA
% host side and kernels, and the mex files are linked with the static CUDA runtime of the same
% toolkit.  The kernels are compiled for the GPU architectures @var{arch} (default
% @code{[75 80 86 89 90]}, plus PTX of the last; @code{90} alone builds faster for an H100 or
% H200).
%
% Example (MATLAB or Octave, from the root of a tilemm source tree):
% @example
% @group
% addpath inst
% tilemm_build ()                 % CPU backend
% tilemm_build ("src", "src", "cuda", "/usr/local/cuda/bin/nvcc")   % with the GPU path
% addpath src
% C = tilemm (rand (300), rand (300));
% @end group
% @end example
%
% A CPU build into a folder of its own, loaded and used (it runs where the source tree is, as in
% the tests; an installed package has no source tree):
% @c runs: this example is run by the test suite (tests/check_doc_examples.m)
% @example
% @group
% src = fullfile (fileparts (which ("tilemm_build")), "..", "src");
% if (exist (fullfile (src, "sources.mk"), "file"))
%   out = tempname ();
%   mkdir (out);
%   tilemm_build (src, out);
%   addpath (out);
%   assert (which ("tilemm"), fullfile (out, ["tilemm." mexext()]))
%   A = rand (300, 200);  B = rand (200, 100) + 1i;
%   assert (tilemm (A, B, "backend", "cpu"), A * B, -1e-12)
%   assert (tilemm_info ().cuda_built, false)
%   rmpath (out);
%   clear tilemm tilemm_info
%   confirm_recursive_rmdir (false, "local");
%   rmdir (out, "s");
% endif
% @end group
% @end example
%
% What was tested: this function and the gateway under Octave's @code{mex}, loaded in a fresh
% Octave with nothing else on its path (@file{tests/mex-build.sh}).  MATLAB's @code{mex} was
% not available to test (this file keeps to the syntax both read); the manual (@code{doc
% tilemm}, chapter MATLAB) gives the equivalent @code{mex} and @code{mexcuda} command lines.
%
% @seealso{tilemm, tilemm_info}
% @end deftypefn

% Written in the syntax MATLAB and Octave share (tests/mex-build.sh checks it): single-quoted
% char arrays, ~, end, % comments.
function tilemm_build (varargin)
  [srcdir, outdir, nvcc, arch] = parse_args (varargin{:});
  version = read_version (fullfile (srcdir, '..', 'DESCRIPTION'));
  lists = read_sources (fullfile (srcdir, 'sources.mk'));
  flags = {'-R2018a', ['-DTILEMM_VERSION=' version]};

  in_octave = exist ('OCTAVE_VERSION', 'builtin') > 0;
  if (in_octave)
    % Octave's mex is mkoctfile, which takes its compiler flags from the environment.
    old_cflags = getenv ('CFLAGS');  old_ldflags = getenv ('LDFLAGS');
    setenv ('CFLAGS', [mkoctfile_var('CFLAGS') ' -std=c11 -pthread']);
    setenv ('LDFLAGS', [mkoctfile_var('LDFLAGS') ' -pthread']);
    cleanup = onCleanup (@() restore_env (old_cflags, old_ldflags));
    threadflags = {};
  else
    threadflags = {'CFLAGS=$CFLAGS -std=c11 -pthread', 'LDFLAGS=$LDFLAGS -pthread'};
  end

  % The files the two gateways share are compiled once, into a folder of objects.
  objdir = fullfile (outdir, 'tilemm-objects');
  if (~ exist (objdir, 'dir'))
    mkdir (objdir);
  end
  shared = [lists.TILEMM_CORE, lists.TILEMM_EXEC, lists.TILEMM_CPU, lists.TILEMM_MEX_COMMON];
  if (isempty (nvcc))
    libs = {};  % no GPU objects: the executor finds no GPU backend (src/exec/backends.c)
  end
  objects = {};
  for f = shared
    source = fullfile (srcdir, f{1});
    includes = layer_includes (srcdir, lists, f{1});
    if (in_octave)
      mex (flags{:}, includes{:}, '-c', source, '-o', object_name (objdir, f{1}));
    else
      mex (flags{:}, includes{:}, threadflags{:}, '-c', '-outdir', objdir, source);
    end
    objects{end+1} = object_name (objdir, f{1});
  end
  if (~ isempty (nvcc))
    [cuda_objects, libs] = compile_cuda (nvcc, arch, srcdir, objdir, lists, version);
    objects = [objects, cuda_objects];
  end
  check_unique (objects);

  for name = lists.TILEMM_MEX_GATEWAYS
    [~, base] = fileparts (name{1});
    gateway = fullfile (srcdir, name{1});
    if (in_octave)
      output = {'-o', fullfile(outdir, [base '.' mexext()])};   % Octave's mex has no -outdir
    else
      output = {'-outdir', outdir, '-output', base};
    end
    includes = layer_includes (srcdir, lists, name{1});
    mex (flags{:}, includes{:}, threadflags{:}, output{:}, gateway, objects{:}, libs{:});
  end
  for i = 1:numel (objects)
    delete (objects{i});
  end
  [~, ~] = rmdir (objdir);   % left where something else is in it
end

function [srcdir, outdir, nvcc, arch] = parse_args (varargin)
  nvcc = '';
  arch = [75 80 86 89 90];
  pos = {};
  i = 1;
  while (i <= numel (varargin))
    v = varargin{i};
    if (isa (v, 'string'))
      v = char (v);
    end
    if (ischar (v) && any (strcmpi (v, {'cuda', 'arch'})))
      if (i == numel (varargin))
        error ('tilemm:badoption', 'tilemm_build: "%s" needs a value', v);
      end
      value = varargin{i+1};
      if (isa (value, 'string'))
        value = char (value);
      end
      if (strcmpi (v, 'cuda'))
        if (~ ischar (value))
          error ('tilemm:badoption', 'tilemm_build: "cuda" needs the path of nvcc');
        end
        nvcc = value;
      else
        if (ischar (value))
          value = str2double (regexp (value, '\d+', 'match'));
        end
        if (~ isnumeric (value) || isempty (value) || any (~ isfinite (value(:))))
          error ('tilemm:badoption', 'tilemm_build: "arch" needs compute capabilities, e.g. [80 90]');
        end
        arch = value(:)';
      end
      i = i + 2;
    else
      pos{end+1} = v;
      i = i + 1;
    end
  end
  if (numel (pos) > 2 || ~ all (cellfun (@ischar, pos)))
    error ('tilemm:nargin', 'tilemm_build: usage: tilemm_build (SRCDIR, OUTDIR, "cuda", NVCC, "arch", ARCH)');
  end
  if (numel (pos) >= 1)
    srcdir = pos{1};
  else
    srcdir = fullfile (fileparts (mfilename ('fullpath')), '..', 'src');
  end
  if (~ exist (fullfile (srcdir, 'sources.mk'), 'file'))
    error ('tilemm:nosource', 'tilemm_build: no tilemm sources (sources.mk) in ''%s''; give the src folder of a tilemm source tree', srcdir);
  end
  if (numel (pos) == 2)
    outdir = pos{2};
  else
    outdir = srcdir;
  end
end

% The lists of src/sources.mk, as fields of a struct of cell arrays of file names (relative to
% srcdir): "NAME = a.c b.c \" lines with continuations, # comments.
function lists = read_sources (file)
  text = fileread (file);
  text = regexprep (text, '#[^\n]*', '');
  text = regexprep (text, '\\[ \t\r]*\n', ' ');
  tokens = regexp (text, '^([A-Za-z_]\w*)[ \t]*=([^\n]*)', 'tokens', 'lineanchors');
  lists = struct ();
  for i = 1:numel (tokens)
    lists.(tokens{i}{1}) = regexp (tokens{i}{2}, '\S+', 'match');
  end
  need = {'TILEMM_CORE', 'TILEMM_EXEC', 'TILEMM_CPU', ...
          'TILEMM_CUDA_HOST', 'TILEMM_DEVICE', 'TILEMM_KERNELS', 'TILEMM_MEX_GATEWAYS', ...
          'TILEMM_MEX_COMMON'};
  for i = 1:numel (need)
    if (~ isfield (lists, need{i}))
      error ('tilemm:nosource', 'tilemm_build: %s has no %s list', file, need{i});
    end
  end
end

% The -I options of a source file (a path under srcdir): its folder's headers and those of the
% layers below it (sources.mk's TILEMM_INCLUDE_DIRS_FOLDER), so that an include of a layer above
% it does not compile, as in src/Makefile.in.
function includes = layer_includes (srcdir, lists, file)
  folder = regexp (file, '^[^/]+', 'match', 'once');
  field = ['TILEMM_INCLUDE_DIRS_' folder];
  if (~ isfield (lists, field))
    error ('tilemm:nosource', 'tilemm_build: sources.mk has no %s list (for %s)', field, file);
  end
  includes = {};
  for d = lists.(field)
    includes{end+1} = ['-I' fullfile(srcdir, d{1})];
  end
end

function version = read_version (description)
  text = fileread (description);
  version = regexp (text, '^Version:\s*(\S+)', 'tokens', 'once', 'lineanchors');
  if (isempty (version))
    error ('tilemm:nosource', 'tilemm_build: no Version line in %s', description);
  end
  version = version{1};
end

% Where mex -c -outdir puts the object of SOURCE: its base name, in objdir.
function obj = object_name (objdir, source)
  [~, base] = fileparts (source);
  if (ispc ())
    obj = fullfile (objdir, [base '.obj']);
  else
    obj = fullfile (objdir, [base '.o']);
  end
end

% Objects are named by base name: two sources of one name in different folders would collide.
function check_unique (objects)
  if (numel (unique (objects)) ~= numel (objects))
    error ('tilemm:build', 'tilemm_build: two source files of sources.mk share a base name');
  end
end

function [objects, libs] = compile_cuda (nvcc, arch, srcdir, objdir, lists, version)
  gencode = '';
  for cc = arch
    gencode = [gencode sprintf(' -gencode arch=compute_%d,code=sm_%d', cc, cc)];
  end
  gencode = [gencode sprintf(' -gencode arch=compute_%d,code=compute_%d', arch(end), arch(end))];
  % Kernels of Hopper's own instructions get sm_90a code too where 90 is among the targets
  % (and are never chosen without it), as src/Makefile.in builds them.
  hopper = {};
  if (isfield (lists, 'TILEMM_KERNELS_SM90A'))
    hopper = lists.TILEMM_KERNELS_SM90A;
  end
  objects = {};
  for f = [lists.TILEMM_CUDA_HOST, lists.TILEMM_DEVICE, lists.TILEMM_KERNELS, hopper]
    obj = object_name (objdir, f{1});
    extra = '';
    if (any (strcmp (f{1}, hopper)) && any (arch == 90))
      extra = ' -gencode arch=compute_90a,code=sm_90a -DTILEMM_WGMMA_BUILT=1';
    end
    layer = layer_includes (srcdir, lists, f{1});
    includes = sprintf (' "%s"', layer{:});
    cmd = sprintf ('"%s" -std=c++17 -O3 %s%s -Xcompiler -fPIC -DTILEMM_VERSION=%s%s -c "%s" -o "%s"', ...
                   nvcc, gencode, extra, version, includes, fullfile (srcdir, f{1}), obj);
    fprintf ('tilemm_build: nvcc %s\n', f{1});
    [status, output] = system (cmd);
    if (status ~= 0)
      error ('tilemm:build', 'tilemm_build: nvcc failed:\n%s\n%s', cmd, output);
    end
    objects{end+1} = obj;
  end
  % The static CUDA runtime of nvcc's own toolkit.
  root = fileparts (fileparts (nvcc));
  libdir = '';
  for d = {'lib64', 'lib', fullfile('targets', 'x86_64-linux', 'lib')}
    if (exist (fullfile (root, d{1}, 'libcudart_static.a'), 'file'))
      libdir = fullfile (root, d{1});
      break;
    end
  end
  if (isempty (libdir))
    error ('tilemm:build', 'tilemm_build: no libcudart_static.a under %s (lib64, lib)', root);
  end
  libs = {['-L' libdir], '-lcudart_static', '-ldl', '-lrt', '-lpthread', '-lstdc++'};
end

function value = mkoctfile_var (name)
  value = strtrim (evalc (sprintf ('mkoctfile (''-p'', ''%s'')', name)));
end

function restore_env (cflags, ldflags)
  setenv ('CFLAGS', cflags);
  setenv ('LDFLAGS', ldflags);
end

%!function d = source_dir ()
%!  d = fullfile (fileparts (which ("tilemm_build")), "..", "src");
%!endfunction

%!error id=tilemm:nosource tilemm_build (tempdir ())
%!error id=tilemm:badoption tilemm_build (source_dir (), tempdir (), "cuda")
%!error id=tilemm:badoption tilemm_build (source_dir (), tempdir (), "cuda", "nvcc", "arch", "none")
%!error id=tilemm:nargin tilemm_build ("a", "b", "c")
