"""Output on a full disk or a read-only directory, on real small tmpfs mounts: a sweep that
cannot fit is refused before work starts; a disk that fills up while the sweep runs ends the
job with one clear error and no file marked complete, and once space is freed `--resume`
finishes bit-identically to a clean run. Issue 39: every failure exits with its documented status
(2 for a refusal, 3 for a journal write error, 1 for an I/O error of the final write), never
through a crash. Needs root to mount; otherwise prints SKIP (exit 77).

usage: disk_errors.py SIMPACT"""
import glob
import os
import subprocess
import sys
import time

import sweep_common as sc

SKIP = 77
CONFIG = """model: billiards
params: {speed: 1.0}
grid:
  theta: {start: 1.3, stop: pi, num: 64}
monte_carlo:
  samples_per_point: 3000
  seed: 9
  params:
    r_a: {dist: uniform, low: 0.95, high: 1.05}
orderings: [all, argmin, argmax, index]
minimality: definition1
output: {samples: true, chunk_size: 500}
"""


def mount(path, options):
    os.makedirs(path, exist_ok=True)
    p = subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", path], capture_output=True, text=True)
    if p.returncode != 0:
        print(f"SKIP: cannot mount a small tmpfs here ({p.stderr.strip() or 'mount failed'})")
        sys.exit(SKIP)


def umount(path):
    subprocess.run(["umount", "-l", path], capture_output=True)


def assert_exit(p_returncode, stderr, expected, what):
    crash = ("Segmentation fault", "core dumped", "Process received signal", "Signal: ")
    if p_returncode != expected or any(sign in stderr for sign in crash):
        sys.exit(f"FAIL: {what}: exit {p_returncode} (documented: {expected}), stderr {stderr!r}")


def main():
    simpact = sys.argv[1]
    d = sc.tempdir()
    config = sc.write_config(CONFIG, d, "sweep.yaml")
    ref = f"{d}/ref.h5"
    sc.run(simpact, config, ref, ranks=2, threads=1)

    small, ro, full = f"{d}/small", f"{d}/ro", f"{d}/full"
    mount(small, "size=256k")
    try:
        p = sc.run(simpact, config, f"{small}/out.h5", check=False)
        lines = p.stderr.strip().splitlines()
        assert p.returncode != 0 and len(lines) == 1 and "not enough free space" in lines[0], p.stderr
        assert_exit(p.returncode, p.stderr, 2, "too-small disk")
        assert not os.listdir(small), os.listdir(small)
        print("ok: too-small disk refused before work:", lines[0])
    finally:
        umount(small)

    mount(ro, "ro,size=1m")
    try:
        p = sc.run(simpact, config, f"{ro}/out.h5", check=False)
        lines = p.stderr.strip().splitlines()
        assert p.returncode != 0 and len(lines) == 1 and "not writable" in lines[0], p.stderr
        assert_exit(p.returncode, p.stderr, 2, "read-only directory")
        print("ok: read-only directory refused:", lines[0])
    finally:
        umount(ro)

    # Room for the sweep at the start; a filler takes the space away while it runs.
    mount(full, "size=120m")  # the precheck's upper bound is ~73 MiB for this sweep
    try:
        out = f"{full}/out.h5"
        proc = subprocess.Popen(sc.command(simpact, config, out, ranks=2), env=sc.env(1),
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        while proc.poll() is None and not glob.glob(f"{out}.journal/*.bin"):
            time.sleep(0.005)
        fd = os.open(f"{full}/filler", os.O_WRONLY | os.O_CREAT)
        try:
            while True:
                os.write(fd, b"\0" * 65536)
        except OSError:  # ENOSPC: the disk is full now
            pass
        os.close(fd)
        _, stderr = proc.communicate(timeout=120)
        if proc.returncode == 0:
            print("note: the sweep finished before the disk filled up")
        else:
            errors = [l for l in stderr.splitlines() if l.startswith("simpact: error:")]
            assert errors and any("space" in l.lower() for l in errors), stderr
            # 3: a journal record could not be written; 1: the final write (a rank's failed write
            # inside a collective HDF5 call ends the job with MPI_Abort, status 1).
            journal_error = ".journal/rank-" in errors[0] and ".bin" in errors[0]
            assert_exit(proc.returncode, stderr, 3 if journal_error else 1, "disk full mid-run")
            info = subprocess.run([simpact, "info", out], capture_output=True, text=True)
            assert info.returncode != 0, "a file on the full disk must not be reported complete"
            print("ok: disk full mid-run:", errors[0])
        os.remove(f"{full}/filler")
        sc.run(simpact, config, out, ranks=2, threads=1, extra=("--resume",))
        sc.assert_identical(ref, out, "resumed after freeing the disk")
        # A complete file needs no space: --resume on a full disk does nothing and succeeds.
        fd = os.open(f"{full}/filler", os.O_WRONLY | os.O_CREAT)
        try:
            while True:
                os.write(fd, b"\0" * 65536)
        except OSError:
            pass
        os.close(fd)
        p = sc.run(simpact, config, out, ranks=2, threads=1, extra=("--resume",), check=False)
        assert p.returncode == 0, f"--resume of a complete file on a full disk: {p.stderr}"
        sc.assert_identical(ref, out, "complete file left alone on a full disk")
        os.remove(f"{full}/filler")

        # The disk fills up in the collective final write (this file is too large for rank 0 to
        # write alone): the failing rank ends the job at once (exit 1, no crash), the journal is
        # kept, and --resume once space is freed writes the same file.
        out = f"{full}/final.h5"
        proc = subprocess.Popen(sc.command(simpact, config, out, ranks=2), env=sc.env(1),
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        while proc.poll() is None and not glob.glob(f"{out}.journal/staging-final-*"):
            time.sleep(0.002)
        fd = os.open(f"{full}/filler", os.O_WRONLY | os.O_CREAT)
        try:
            while True:
                os.write(fd, b"\0" * 65536)
        except OSError:
            pass
        os.close(fd)
        _, stderr = proc.communicate(timeout=120)
        if proc.returncode == 0:
            print("note: the final write finished before the disk filled up")
        else:
            errors = [l for l in stderr.splitlines() if l.startswith("simpact: error:")]
            assert errors and all("space" in l.lower() for l in errors), stderr
            assert_exit(proc.returncode, stderr, 1, "disk full in the collective final write")
            assert glob.glob(f"{out}.journal/rank-*.bin"), "the journal is gone"
            print("ok: disk full in the collective final write:", errors[0])
        os.remove(f"{full}/filler")
        sc.run(simpact, config, out, ranks=2, threads=1, extra=("--resume",))
        sc.assert_identical(ref, out, "resumed after the disk filled up in the final write")
    finally:
        umount(full)


if __name__ == "__main__":
    main()
