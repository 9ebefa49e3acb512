"""Every class of config error gives one line per problem naming the key path, exit code 2, and
no output file (nothing is written before validation passes).

usage: config_errors.py SIMPACT"""
import os
import sys

import sweep_common as sc

GOOD = """model: billiards
params: {speed: 1.0}
grid:
  theta: {start: pi/3, stop: pi, num: 5}
"""

# (what, config text, the key path the error must name)
CASES = [
    ("YAML syntax", "model: billiards\ngrid: [theta\n", "config"),
    ("unknown top-level key", GOOD + "outptu: {samples: true}\n", "outptu"),
    ("unknown nested key", GOOD.replace("num: 5", "nmu: 5"), "grid.theta.nmu"),
    ("unknown model", GOOD.replace("billiards", "biliards"), "model"),
    ("unknown parameter", GOOD.replace("theta:", "thetta:"), "grid.thetta"),
    ("not a positive integer", GOOD.replace("num: 5", "num: -3"), "grid.theta.num"),
    ("wrong type", GOOD.replace("speed: 1.0", "speed: fast"), "params.speed"),
    ("outside the parameter range", GOOD.replace("stop: pi", "stop: 4"), "grid.theta"),
    ("missing required parameter", "model: billiards\nparams: {speed: 1.0}\n", "theta"),
    ("unknown ordering", GOOD + "orderings: [all, argmn]\n", "orderings[1]"),
    ("bad compression", GOOD + "output: {compression: 12}\n", "output.compression"),
    ("bad chunk size", GOOD + "output: {chunk_size: -1}\n", "output.chunk_size"),
    ("unknown distribution", GOOD + "monte_carlo:\n  samples_per_point: 4\n  seed: 1\n  params:\n"
     "    r_a: {dist: unifrm, low: 0.9, high: 1.1}\n", "monte_carlo.params.r_a.dist"),
    ("grid point invalid for the model (theta below the smallest angle for r_c = 0.5)",
     GOOD.replace("speed: 1.0", "speed: 1.0, r_c: 0.5"), "grid point 0"),
    ("bad restitution", GOOD.replace("speed: 1.0", "speed: 1.0, restitution: 1.5"), "params.restitution"),
]


def main():
    simpact = sys.argv[1]
    d = sc.tempdir()
    failures = 0
    for i, (what, text, key) in enumerate(CASES):
        config = sc.write_config(text, d, f"bad{i}.yaml")
        out = f"{d}/out{i}.h5"
        p = sc.run(simpact, config, out, check=False)
        lines = p.stderr.strip().splitlines()
        ok = (p.returncode == 2 and lines and all(l.startswith("simpact: error: ") for l in lines)
              and any(key in l for l in lines) and not os.path.exists(out)
              and not os.path.exists(out + ".journal"))
        print(f"{'ok' if ok else 'FAIL'}: {what}: rc={p.returncode} {lines}")
        failures += not ok
    p = sc.run(simpact, f"{d}/missing.yaml", f"{d}/missing.h5", check=False)
    ok = p.returncode == 2 and "missing.yaml" in p.stderr and len(p.stderr.strip().splitlines()) == 1
    print(f"{'ok' if ok else 'FAIL'}: missing config file: rc={p.returncode} {p.stderr.strip()}")
    failures += not ok
    good = sc.write_config(GOOD, d, "good.yaml")
    p = sc.run(simpact, good, f"{d}/no/such/dir/out.h5", check=False)
    ok = p.returncode == 0 and os.path.isfile(f"{d}/no/such/dir/out.h5")
    print(f"{'ok' if ok else 'FAIL'}: -o creates missing output directories: rc={p.returncode} {p.stderr.strip()}")
    failures += not ok
    # a directory that cannot be created (its parent is a file): one line, exit 2
    p = sc.run(simpact, good, f"{good}/sub/out.h5", check=False)
    ok = p.returncode == 2 and "output directory" in p.stderr and len(p.stderr.strip().splitlines()) == 1
    print(f"{'ok' if ok else 'FAIL'}: uncreatable output directory: rc={p.returncode} {p.stderr.strip()}")
    failures += not ok
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
