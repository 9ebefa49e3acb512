"""Issue 23 §3: one definition per function. A function defined out of line in one object file
(nm type T) and inline in another (W) are two definitions of one name, an ODR violation: the
linker keeps one of them, silently. simpact::detail::join was both (json_reading.cpp and an
inline copy in sweep_config_parser.hpp). Checks every simpact:: symbol of the given static
libraries; fails naming each one defined strong in one object and weak (or strong) in another.

usage: one_definition.py LIB.a..."""
import collections
import subprocess
import sys

kinds = collections.defaultdict(list)  # symbol -> [(object, type)]
for lib in sys.argv[1:]:
    out = subprocess.run(["nm", "-C", "--defined-only", "-A", lib], capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        # "lib.a:object.o:0000000000000000 T simpact::detail::join(...)"
        head, _, rest = line.partition(" ")
        parts = rest.split(" ", 1)
        if len(parts) != 2 or not parts[1].startswith("simpact::"):
            continue
        kind, name = parts
        if kind in ("T", "W"):
            kinds[name].append((head.rsplit(":", 2)[-2], kind))
# (Constructors and destructors have two aliases, C1/C2, in the same object: one definition.)
bad = {n: sorted(set(v)) for n, v in kinds.items() if any(k == "T" for _, k in v) and len({o for o, _ in v}) > 1}
for name, where in sorted(bad.items()):
    print(f"FAIL: {name} defined {len(where)} times: {where}")
if bad:
    sys.exit(1)
if not any(n.startswith("simpact::detail::join(") for n in kinds):
    sys.exit("FAIL: simpact::detail::join not found: is this the io library?")
print(f"ok: {len(kinds)} simpact:: functions, each defined once")
