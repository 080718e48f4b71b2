// Generated from front/tilemm_oct.cc and front/pages_oct.cc for pkg install (which reads src/*.cc only).
// PKG_ADD: autoload ("__tilemm_plan__", fullfile (fileparts (mfilename ("fullpath")), "tilemm.oct"));
// PKG_ADD: autoload ("__tilemm_stats__", fullfile (fileparts (mfilename ("fullpath")), "tilemm.oct"));
// PKG_ADD: autoload ("__tilemm_pages__", fullfile (fileparts (mfilename ("fullpath")), "tilemm.oct"));
// PKG_ADD: autoload ("__tilemm_pages_plan__", fullfile (fileparts (mfilename ("fullpath")), "tilemm.oct"));
