## check_no_shadow (LABEL) — no file of the installed tilemm package shadows one of its compiled
## functions.  For each function of an oct-file or mex file of the package (the file's own name
## and the names PKG_ADD autoloads from it):
##   placed   no NAME.m, NAME.oct or NAME.mex in any folder of the package but the binary itself,
##            and the help file NAME.m beside a mex file (its folder, where Octave takes the
##            binary first, as MATLAB does);
##   found    from each folder of the package as the current one (`pkg test` runs each folder's
##            tests from there, and Octave 9 and later look in the current folder first),
##            `which NAME` is the binary.
## Prints "LABEL: N passed, N failed, 0 skipped" and returns the number of failures.
##
## Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
function failed = check_no_shadow (label)
  list = pkg ("list", "tilemm");
  if (isempty (list))
    error ("check_no_shadow: tilemm is not installed");
  endif
  folders = {};
  for top = unique ({list{1}.dir, list{1}.archprefix})
    folders = [folders, folders_under(canonicalize_file_name (top{1}))];
  endfor
  folders = unique (folders);
  compiled = compiled_functions (folders);
  if (isempty (compiled))
    error ("check_no_shadow: no oct-file or mex file in %s", strjoin (folders, ", "));
  endif
  passed = failed = 0;
  for c = compiled
    why = {};
    for f = folders
      for ext = {".m", ".oct", ".mex"}
        other = fullfile (f{1}, [c.name ext{1}]);
        if (! exist (other, "file") || strcmp (other, c.file)
            || (strcmp (ext{1}, ".m") && strcmp (f{1}, fileparts (c.file))
                && strcmp (c.file(end-3:end), ".mex")))
          continue;
        endif
        why{end+1} = sprintf ("%s shadows %s", other, c.file);
      endfor
    endfor
    [passed, failed] = count_check (passed, failed, c.name, "placed", why);
    why = {};
    here = pwd ();
    unwind_protect
      for f = folders
        cd (f{1});
        w = which (c.name);
        if (! strcmp (canonical (w), c.file))
          why{end+1} = sprintf ("from %s, %s is %s", f{1}, c.name, w);
        endif
      endfor
    unwind_protect_cleanup
      cd (here);
    end_unwind_protect
    [passed, failed] = count_check (passed, failed, c.name, "found", why);
  endfor
  printf ("%s: %d passed, %d failed, 0 skipped\n", label, passed, failed);
endfunction

## Every folder at or under TOP.
function folders = folders_under (top)
  folders = {top};
  entries = dir (top);
  for e = entries([entries.isdir])'
    if (e.name(1) != ".")
      folders = [folders, folders_under(fullfile (top, e.name))];
    endif
  endfor
endfunction

## The functions of the package's oct-files and mex files: struct array (name, file).
function compiled = compiled_functions (folders)
  compiled = struct ("name", {}, "file", {});
  for f = folders
    for pattern = {"*.oct", "*.mex"}
      for e = dir (fullfile (f{1}, pattern{1}))'
        [~, name] = fileparts (e.name);
        compiled(end+1) = struct ("name", name, "file", fullfile (f{1}, e.name));
      endfor
    endfor
  endfor
  ## Hidden functions autoloaded from them (PKG_ADD): __tilemm_plan__ and the others.
  files = {compiled.file};
  auto = autoload ();
  for a = auto(:)'
    if (any (strcmp (canonical (a.file), files)) && ! any (strcmp (a.function, {compiled.name})))
      compiled(end+1) = struct ("name", a.function, "file", canonical (a.file));
    endif
  endfor
endfunction

function f = canonical (f)
  if (! isempty (f))
    f = canonicalize_file_name (f);
  endif
endfunction
