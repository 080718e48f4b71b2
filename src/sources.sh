# src/sources.sh — sourced by the sh scripts (tests, benchmarks, the manual's generator) to read
# src/sources.mk, the one list of tilemm's sources, instead of listing files themselves.
#
#   tilemm_sources NAME...   the files of the lists NAME... (e.g. TILEMM_CORE), one per line
#   tilemm_source FILE       the one file named FILE (e.g. emulated_cuda.cu), wherever it lies
#   tilemm_includes [FOLDER] an -I option for each folder a file of FOLDER (common, kernels, cpu,
#                            cuda, exec, front) is compiled with: its own and the layers' below
#                            it (TILEMM_INCLUDE_DIRS_FOLDER); without FOLDER every folder
#                            (TILEMM_INCLUDE_DIRS: a test program's or a benchmark's own file)
#   tilemm_includes_of FILE  tilemm_includes of the folder of FILE (a path under src/)
#   tilemm_version           the version, as DESCRIPTION (the one place it is written) says
#
# Paths are printed with the prefix $TILEMM_SRC (default "src/": the scripts run from the tree's
# root); the list read is $TILEMM_SRC/sources.mk.  The same reading as src/Makefile.in's (make)
# and inst/tilemm_build.m's (regexp): "NAME = word word \" lines with continuations.
#
# Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).

tilemm_sources () {
  for tilemm_list in "$@"; do
    awk -v name="$tilemm_list" -v prefix="${TILEMM_SRC-src/}" '
      /^[ \t]*#/ { next }
      !go && $0 ~ "^" name "[ \t]*=" { go = 1; sub(/^[^=]*=/, "") }
      go {
        more = sub(/\\[ \t]*$/, "")
        n = split($0, w)
        for (i = 1; i <= n; i++) print prefix w[i]
        if (!more) go = 0
      }' "${TILEMM_SRC-src/}sources.mk"
  done
}

# Every file of every list but the folders.
tilemm_all_sources () {
  tilemm_sources $(sed -n 's/^\([A-Z_][A-Z0-9_]*\)[ \t]*=.*/\1/p' "${TILEMM_SRC-src/}sources.mk" \
                   | grep -v '^TILEMM_INCLUDE_DIRS')
}

tilemm_source () {
  tilemm_all_sources | awk -v f="$1" '$0 == f || substr($0, length($0) - length(f)) == "/" f' \
    | head -n 1
}

tilemm_version () {
  sed -n 's/^Version:[ \t]*//p' "${TILEMM_SRC-src/}../DESCRIPTION"
}

tilemm_includes () {
  tilemm_sources "TILEMM_INCLUDE_DIRS${1:+_$1}" | sed 's|/\.$||; s|^|-I|'
}

# The folder of a file under src/ (its path as tilemm_sources prints it, or relative to src/).
tilemm_folder_of () {
  tilemm_folder=${1#"${TILEMM_SRC-src/}"}
  echo "${tilemm_folder%%/*}"
}

tilemm_includes_of () {
  tilemm_includes "$(tilemm_folder_of "$1")"
}
