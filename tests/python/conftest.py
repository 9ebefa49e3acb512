"""Shared helpers of the pytest suite: the CLI to compare with and the repository paths."""
import json
import math
import os
import pathlib
import subprocess

import numpy as np
import pytest

SOURCE = pathlib.Path(os.environ.get("SIMPACT_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[2]))
SIMPACT = os.environ.get("SIMPACT_BIN", str(SOURCE / "build" / "simpact"))


def cli(args, stdin=None, cwd=None):
    """Runs the simpact program; returns the CompletedProcess."""
    return subprocess.run([SIMPACT] + list(args), input=stdin, capture_output=True, text=True, cwd=cwd,
                          timeout=120)


def cli_json(command, request, cwd=None):
    """`simpact COMMAND` of one request (dict): the parsed JSON output (null → NaN)."""
    p = cli([command], stdin=json.dumps(request), cwd=cwd)
    assert p.returncode in (0, 5), p.stderr
    return json.loads(p.stdout, parse_constant=float), p


def cli_error(command, request):
    """The one error line of a rejected request, without the 'simpact: error: ' prefix."""
    p = cli([command], stdin=json.dumps(request))
    assert p.returncode == 2, (p.returncode, p.stdout, p.stderr)
    lines = [line for line in p.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("simpact: error: "), p.stderr
    return lines[0][len("simpact: error: "):]


def nan_array(values):
    return np.array([math.nan if v is None else v for v in values], dtype=float)


def same_bits(a, b):
    """Equal bit for bit (NaN equal to NaN)."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return a.shape == b.shape and np.array_equal(a.view(np.uint64), b.view(np.uint64))


@pytest.fixture
def source():
    return SOURCE
