#!/usr/bin/env bash
# scripts/install-python.sh [BUILD_DIR] — makes Debian's /usr/bin/python3 import the simpact module
# of a build: writes simpact.pth (one line: BUILD_DIR/python, absolute) into Python's
# dist-packages. Idempotent; run after scripts/build.sh (the build makes BUILD_DIR/python/simpact).
#   bash scripts/install-python.sh build && /usr/bin/python3 -c "import simpact"
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build}"
package="$(cd "$build" && pwd)/python"
if ! ls "$package"/simpact/_simpact*.so >/dev/null 2>&1; then
  echo "install-python.sh: error: $package/simpact has no _simpact module: run scripts/build.sh $build first" >&2
  exit 2
fi
site="$(/usr/bin/python3 -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
# Debian's own python3 reads /usr/lib/python3/dist-packages; /usr/local/... when root installs pip packages.
for dir in /usr/lib/python3/dist-packages "$site"; do
  if [ -d "$dir" ] && [ -w "$dir" ]; then
    echo "$package" > "$dir/simpact.pth"
    echo "install-python.sh: $dir/simpact.pth -> $package"
    break
  fi
done
/usr/bin/python3 -c "import simpact; print('import simpact:', simpact.__file__)"
