## check_installed_doc (LABEL) — help and doc for every function of the installed tilemm package
## (its INDEX): `help NAME` gives NAME's own texinfo help, which Octave's makeinfo renders (what
## pkg's doc cache needs: else pkg install warns "unusable help text"), and `doc NAME` reaches
## the package manual: doc reads the doc.info in the folder of NAME's file and looks NAME up in
## its index, as `info --index-search` does; the index entry must lead to a node of that file.
## Prints "LABEL: N passed, N failed, 0 skipped" and returns the number of failures.
##
## Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
function failed = check_installed_doc (label)
  list = pkg ("list", "tilemm");
  index = fileread (fullfile (list{1}.dir, "packinfo", "INDEX"));
  names = regexp (index, '(?m)^\s+(\w+)\s*$', "tokens");
  names = cellfun (@(t) t{1}, names, "uniformoutput", false);
  passed = failed = 0;
  for i = 1:numel (names)
    name = names{i};
    ## help
    [text, format] = get_help_text (name);
    why = "";
    if (! strcmp (format, "texinfo"))
      why = sprintf ("help is \"%s\", not texinfo", format);
    elseif (isempty (regexp (text, ['(?m)^\s*@deftypefnx?\s[^\n]*(?<!\w)' name '(?!\w)'], "once")))
      why = "help text has no @deftypefn for it";
    else
      [plain, status] = __makeinfo__ (text, "plain text");
      if (status != 0 || isempty (plain))
        why = "makeinfo cannot render its help (pkg: unusable help text)";
      endif
    endif
    [passed, failed] = count_check (passed, failed, name, "help", why);
    ## doc
    why = "";
    info_file = fullfile (fileparts (which (name)), "doc.info");
    if (! exist (info_file, "file"))
      why = sprintf ("no %s beside %s", info_file, which (name));
    else
      info = fileread (info_file);
      ## The index nodes: those whose menu entries carry "(line N)".
      starts = regexp (info, '\x1f\nFile: [^,]*,\s*Node: [^,\n]*[Ii]ndex', "start");
      hit = {};
      for s = starts
        node = info(s+1:end);
        node = node(1:min ([numel(node), strfind(node, "\x1f")]));
        hit = regexp (node, ['(?m)^\* ' name '(?: <\d+>)?:\s+([^.\n]+)\.\s+\(line'],
                      "tokens", "once");
        if (! isempty (hit))
          break;
        endif
      endfor
      if (isempty (hit))
        why = sprintf ("not in the index of %s", info_file);
      elseif (isempty (strfind (info, ["Node: " hit{1} ","])))
        why = sprintf ("its index entry leads to \"%s\", no node of %s", hit{1}, info_file);
      endif
    endif
    [passed, failed] = count_check (passed, failed, name, "doc", why);
  endfor
  printf ("%s: %d passed, %d failed, 0 skipped\n", label, passed, failed);
endfunction
