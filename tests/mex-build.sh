#!/bin/bash
# tests/mex-build.sh [cuda] — the MATLAB route as its users take it: unpack the release tarball,
# build the mex files with tilemm_build (Octave's mex standing in for MATLAB's), then, in a fresh
# octave-cli with nothing but those mex files on its path, load them, multiply, check an error id
# and run the gateways' BIST (their %! blocks, read from the tarball's src/front/tilemm.tst and
# src/front/tilemm_info.tst) against them.  A fresh process matters: in one that has loaded tilemm.oct,
# a mex file with missing symbols can load on the oct-file's.  Also checks that src/sources.mk
# names every source file of the tree (the one list) and that tilemm_build.m keeps to the syntax
# MATLAB reads.
#
# With "cuda" (tests/mex-build-cuda.sh): the same with tilemm_build's CUDA route (nvcc from $NVCC,
# src/Makefile, PATH or /usr/local/cuda; architecture $TILEMM_MEX_CUDA_ARCH, default the GPU's,
# else 90), and a product on the GPU where there is one.  Skipped where there is no nvcc; without
# a GPU the build, the load and the CPU products are still checked, the GPU product skipped.
#
# Ends its log with "mex_build: N passed, N failed, N skipped" (mex_build_cuda with "cuda").
#
# Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
set -u
mode=${1:-cpu}
builddir=$(cd "${TILEMM_BUILDDIR:-.}" && pwd)
srcdir=$(cd "${TILEMM_SRCDIR:-.}" && pwd)
tarball=${TILEMM_TARBALL:-}
octave=${OCTAVE:-octave-cli}
label=mex_build
[ "$mode" = cuda ] && label=mex_build_cuda
passed=0 failed=0 skipped=0
pass () { echo "PASS: $1"; passed=$((passed + 1)); }
fail () { echo "FAIL: $1"; failed=$((failed + 1)); }
skip () { echo "SKIP: $1"; skipped=$((skipped + 1)); }
finish () {
  echo "$label: $passed passed, $failed failed, $skipped skipped"
  [ "$failed" = 0 ] || exit 1
  [ "$passed" = 0 ] && [ "$skipped" -gt 0 ] && exit 77
  exit 0
}
# Octave 7 prints this on exit after a caught C++ exception; it is noise, not a failure.
quiet_octave () { "$octave" --no-gui --no-init-file --norc --no-history --quiet "$@" 2>&1 |
                    grep -v "^error: ignoring const execution_exception"; }

nvcc=""
arch=""
if [ "$mode" = cuda ]; then
  nvcc=${NVCC:-}
  if [ -z "$nvcc" ] && [ -f "$builddir/src/Makefile" ]; then
    nvcc=$(sed -n 's/^NVCC = //p' "$builddir/src/Makefile")
  fi
  [ -n "$nvcc" ] || nvcc=$(command -v nvcc || true)
  [ -n "$nvcc" ] || nvcc=${CUDA_HOME:-/usr/local/cuda}/bin/nvcc
  if [ ! -x "$nvcc" ]; then
    skip "no nvcc (set NVCC or CUDA_HOME): the CUDA route is not built here"
    finish
  fi
  arch=${TILEMM_MEX_CUDA_ARCH:-$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2> /dev/null |
                                 head -n 1 | tr -d '. ')}
  [ -n "$arch" ] || arch=90
fi

work=$builddir/tests/$label
rm -rf "$work"
mkdir -p "$work/out" "$work/run"

# ---- the tree: the release tarball where there is one, else the source tree itself
if [ -n "$tarball" ] && [ -f "$tarball" ]; then
  tar -C "$work" -xzf "$tarball" || { fail "unpack $tarball"; finish; }
  tree=$(ls -d "$work"/tilemm-*/ | head -n 1)
  tree=${tree%/}
  echo "tree: $tarball unpacked in $tree"
else
  tree=$srcdir
  echo "tree: the source tree $tree (no release tarball: set TILEMM_TARBALL)"
fi

if [ "$mode" = cpu ]; then
  # ---- src/sources.mk names every source file of the source tree, and only files that exist
  # (a file left out would be missing from the tarball and from tilemm_build's mex files).
  TILEMM_SRC=$srcdir/src/
  . "$srcdir/src/sources.sh"
  listed=$(tilemm_all_sources | sed "s|^$srcdir/src/||" | sort)
  present=$(cd "$srcdir/src" && find . -type f \( -name '*.c' -o -name '*.cc' -o -name '*.cu' \
              -o -name '*.h' -o -name '*.cuh' -o -name '*.help' -o -name '*.map' -o -name '*.tst' \) \
              ! -name tilemm_help.h ! -name tilemm_pkg_add.cc ! -name confdefs.h ! -name 'conftest*' \
              ! -path './autom4te.cache/*' | sed 's|^\./||' | sort)
  unlisted=$(comm -13 <(echo "$listed") <(echo "$present"))
  missing=$(comm -23 <(echo "$listed") <(echo "$present"))
  if [ -z "$unlisted" ] && [ -z "$missing" ]; then
    pass "src/sources.mk lists the $(echo "$listed" | wc -l) source files of src/"
  else
    [ -z "$unlisted" ] || echo "  in src/ but not in src/sources.mk:" $unlisted
    [ -z "$missing" ] || echo "  in src/sources.mk but not in src/:" $missing
    fail "src/sources.mk and the files of src/ differ"
  fi

  # ---- tilemm_build.m in the syntax MATLAB reads (MATLAB itself is not at hand): outside its
  # % comments and single-quoted strings, nothing of Octave's own (#, !, +=, "...", endif...).
  octave_only=$(grep -v '^[[:space:]]*%' "$tree/inst/tilemm_build.m" | sed "s/'[^']*'//g; s/%.*//" |
                grep -nE '#|!|[-+*/]=|"|\<(endif|endfor|endwhile|endfunction|end_try_catch|unwind_protect|printf|puts)\>')
  if [ -z "$octave_only" ]; then
    pass "tilemm_build.m keeps to the syntax MATLAB and Octave share"
  else
    echo "$octave_only" | sed 's/^/  /'
    fail "tilemm_build.m has Octave-only syntax (above, line numbers among its code lines)"
  fi
fi

# ---- build with tilemm_build, as a MATLAB user would (Octave's mex standing in for MATLAB's)
out=$work/out
if [ "$mode" = cuda ]; then
  cuda_args=", 'cuda', '$nvcc', 'arch', $arch"
  echo "building with $nvcc for sm_$arch (the kernels take minutes)"
else
  cuda_args=""
fi
(cd "$work/run" && quiet_octave --eval "
   addpath ('$tree/inst');
   tilemm_build ('$tree/src', '$out'$cuda_args);") > "$work/build.log"
cat "$work/build.log"
ext=$("$octave" --no-gui --norc --quiet --eval 'disp (mexext ())' 2> /dev/null)
if [ -f "$out/tilemm.$ext" ] && [ -f "$out/tilemm_info.$ext" ] && ! grep -q '^error:' "$work/build.log"; then
  pass "tilemm_build ('$tree/src', OUT$cuda_args) built tilemm.$ext and tilemm_info.$ext"
else
  fail "tilemm_build did not build both mex files (above)"
  finish
fi

# ---- a fresh octave-cli, nothing but OUT added to its path, run from an empty folder
want_cuda=false
[ "$mode" = cuda ] && want_cuda=true
(cd "$work/run" && quiet_octave --eval "
  out = '$out';
  addpath (out);
  function report (name, ok, why)
    if (ok)
      printf ('PASS: %s\n', name);
    else
      printf ('FAIL: %s: %s\n', name, why);
    end
  end
  function check (name, code)
    try
      evalin ('base', code);
      report (name, true, '');
    catch err
      report (name, false, err.message);
    end
  end
  others = {};
  for d = strsplit (path (), pathsep ())
    if (! strcmp (d{1}, out) && ! isempty (dir (fullfile (d{1}, 'tilemm*'))))
      others{end+1} = d{1};
    end
  end
  % (which loads the mex file: one that cannot load fails here already)
  check ('which tilemm is the built mex, nothing else of tilemm on the path', ...
         ['assert (which (\"tilemm\"), fullfile (out, [\"tilemm.\" mexext()]));' ...
          'assert (which (\"tilemm_info\"), fullfile (out, [\"tilemm_info.\" mexext()]));' ...
          'assert (others, {})']);
  check ('the mex loads and multiplies double', ...
         'A = rand (61, 47); B = rand (47, 53); assert (tilemm (A, B), A * B, -1e-12)');
  check ('single', ...
         'A = rand (33, 70, \"single\"); B = rand (70, 9, \"single\"); assert (tilemm (A, B), A * B, -1e-5)');
  check ('complex, and a transposed operand', ...
         'A = rand (20, 30) + 1i * rand (20, 30); B = rand (20, 25) - 2i; assert (tilemm (A, \"ctranspose\", B, \"none\"), A'' * B, -1e-12)');
  check ('error ids: tilemm:badoption, and mtimes''s own for nonconformant operands', ...
         ['try, tilemm (ones (2), ones (2), \"backend\", \"tpu\"); error (\"no error\"); catch e, assert (e.identifier, \"tilemm:badoption\"); end;' ...
          'try, tilemm (ones (2, 3), ones (2, 3)); error (\"no error\"); catch e, assert (e.identifier, \"Octave:nonconformant-args\"); end']);
  check ('tilemm_info loads, cuda_built is $want_cuda', ...
         's = tilemm_info (); assert (s.cuda_built, $want_cuda)');
  if ($want_cuda)
    try
      gpu = tilemm_info ().gpu_usable;
    catch
      gpu = false;
    end
    if (gpu)
      check ('a product on the GPU', ...
             'A = rand (700, 500); B = rand (500, 600); assert (tilemm (A, B, \"backend\", \"gpu\"), A * B, -1e-12)');
    else
      printf ('SKIP: a product on the GPU: no usable GPU here\n');
    end
  end
  % The gateways' BIST from the tree's src/front/NAME.tst (not on the path), against the mex files.
  for g = {'tilemm', 'tilemm_info'}
    try
      % (its report, skipped blocks and all, in a file of its own; shown where a block failed)
      log = fullfile ('$work', ['bist-' g{1} '.log']);
      fid = fopen (log, 'w');
      [n, nmax, nxfail, nbug, nskip, nrtskip] = test (fullfile ('$tree/src/front', [g{1} '.tst']), 'quiet', fid);
      fclose (fid);
      bad = nmax - n - nxfail - nbug + (nmax == 0);
      if (bad > 0)
        printf ('%s', fileread (log));
      end
      printf ('BIST %s: %d %d %d\n', g{1}, n, bad, nskip + nrtskip);
    catch err
      printf ('BIST %s: 0 1 0\n', g{1});
      printf ('  %s\n', err.message);
    end
  end
  printf ('fresh: done\n');
") > "$work/fresh.log"
cat "$work/fresh.log"
passed=$((passed + $(grep -c '^PASS: ' "$work/fresh.log")))
failed=$((failed + $(grep -c '^FAIL: ' "$work/fresh.log")))
skipped=$((skipped + $(grep -c '^SKIP: ' "$work/fresh.log")))
while read -r _ name p f s; do
  echo "BIST of ${name%:} on the built mex: $p passed, $f failed, $s skipped"
  passed=$((passed + p)); failed=$((failed + f)); skipped=$((skipped + s))
done < <(grep '^BIST ' "$work/fresh.log")
grep -q '^fresh: done$' "$work/fresh.log" || fail "the fresh octave-cli did not run to its end (above)"
finish
