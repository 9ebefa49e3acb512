#!/usr/bin/env bash
# scripts/install-python.sh [BUILD_DIR] — makes Debian's /usr/bin/python3 import the simpact module
# of a build (default: build) in place, without pip: writes one file, simpact.pth, holding one
# line, the absolute path of BUILD_DIR/python (the build makes BUILD_DIR/python/simpact/).
#   as root:      /usr/lib/python3/dist-packages/simpact.pth  (every user of /usr/bin/python3)
#   as any other: the user site dir, ~/.local/lib/python3.X/site-packages/simpact.pth (this user)
# Idempotent; a rebuild needs no rerun (the .pth points at the build); undo: rm the .pth it names.
# A venv's or pyenv's python (any interpreter but Debian's): pip install, see docs/python.md.
#   bash scripts/build.sh build && bash scripts/install-python.sh build
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build}"
package="$(cd "$build" && pwd)/python"
if ! ls "$package"/simpact/_simpact*.so >/dev/null 2>&1; then
  echo "install-python.sh: error: $package/simpact has no _simpact module: run scripts/build.sh $build first" >&2
  exit 2
fi
if [ -d /usr/lib/python3/dist-packages ] && [ -w /usr/lib/python3/dist-packages ]; then
  site=/usr/lib/python3/dist-packages
else
  site="$(/usr/bin/python3 -m site --user-site)"
  mkdir -p "$site"
fi
echo "$package" > "$site/simpact.pth"
echo "install-python.sh: wrote $site/simpact.pth: /usr/bin/python3 imports simpact from $package"
/usr/bin/python3 -c "import simpact; print('install-python.sh: import simpact:', simpact.__file__)"
