## check_doc_examples (SOURCE) — runs every example of the manual or of a function's help that
## is marked "@c runs", in a fresh function workspace; an error or failed assert fails it.
## SOURCE is "manual" (doc/tilemm.texi beside this tests folder) or a function name.
## Returns the number of examples run (0 is an error: a source must have some).
##
## Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
function n = check_doc_examples (source)
  if (strcmp (source, "manual"))
    text = fileread (fullfile (fileparts (mfilename ("fullpath")), "..", "doc", "tilemm.texi"));
  else
    ## The help file itself: an installed mex's help (tilemm_info.m) sits in another folder than
    ## the mex, where get_help_text does not look.
    file = file_in_loadpath ([source ".m"]);
    if (isempty (file))
      text = get_help_text (source);
    else
      ## drop the comment marks: ## or # (Octave's style), % or %% (tilemm_build.m, which MATLAB
      ## reads too)
      text = regexprep (fileread (file), '(?m)^[ \t]*(##?|%%?) ?', '');
    endif
  endif
  blocks = regexp (text, '@c runs[^\n]*\n\s*@example(.*?)@end example', "tokens");
  if (isempty (blocks))
    error ("check_doc_examples: no runnable example in %s", source);
  endif
  for i = 1:numel (blocks)
    code = regexprep (blocks{i}{1}, '@(end )?group', '');
    code = strrep (strrep (strrep (code, '@{', '{'), '@}', '}'), '@@', '@');
    try
      run_example (code);
    catch err
      error ("check_doc_examples: example %d of %s failed: %s\n%s", i, source, err.message, code);
    end_try_catch
  endfor
  n = numel (blocks);
endfunction

function run_example (code)
  evalc (code);
endfunction

%!assert (check_doc_examples ("manual") >= 5)
%!assert (check_doc_examples ("tilemm") >= 1)
%!assert (check_doc_examples ("tilemm_info") >= 1)
%!assert (check_doc_examples ("tilemm_bench") >= 1)
%!assert (check_doc_examples ("tilemm_build") >= 1)
%!error <no runnable example> check_doc_examples ("sin")
