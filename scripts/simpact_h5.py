"""Read simpact sweep files (HDF5): the reader the scripts/*.py share. h5py and numpy only (no
matplotlib: importable where nothing is drawn); the drawing is in simpact_plot.py.

usage (from a script in scripts/, which Python puts first on sys.path):

    import simpact_h5 as sh
    import simpact_plot as sp
    with sh.open_sweep("results/billiards_theta.h5") as sweep:   # warns if incomplete
        xi = sweep.read_map("/xi")          # values + axes + units + long_name
        fig = sp.figure_of_maps([xi])
        sp.save_figure(fig, "xi.png")

Every label is read from the file: an axis is labelled with its coordinate's `long_name [units]`
(what the config's `long_name:`/`units:` set, else the model's), a map with `name [units]` and its
long_name in the caption; nothing about a model is hard-coded here. An axis of few values (at most
MAX_CATEGORIES, or strings) is categorical: drawn at the indices of its values, labelled by them.
Errors a user can cause (missing file, unknown map, bad output extension) raise SweepError, whose
text is a one-line message; `run_main` turns it into "script: error: ..." on stderr and exit
status 1.

Layout read (see DESIGN.md §4): root attributes (schema_version, complete, replicas, orderings,
grid_axes, map_datasets, ...), /grid/<axis>, grid-shaped maps in /xi, /xi_maps, /energy,
/outcomes (with Monte Carlo: <name>_{mean,std,min,max,count}), /config, /provenance,
/progress/done.
"""
import math
import os
import sys
import textwrap
from dataclasses import dataclass, field
from fractions import Fraction

import h5py
import numpy as np


# Values this close to zero are round-off (energies are O(1) J, ξ is O(1)): a map whose every
# value is below it is drawn as "≈ 0" instead of a colour scale spanning 1e-16.
ROUNDOFF = 1e-12
# Monte Carlo statistics stored beside each quantity when replicas > 1.
MC_STATS = ("mean", "std", "min", "max", "count")
# An axis with at most this many values (a restitution list, time steps, orderings) is drawn as
# categories, one tick per value, rather than as a continuous range padded by half a step.
MAX_CATEGORIES = 6
# Words after which a period does not end the description's first sentence ("Fig. 5").
ABBREVIATIONS = ("fig", "figs", "eq", "eqs", "sec", "ref", "refs", "no", "al", "cf", "e.g", "i.e", "vs",
                 "approx", "resp")


class SweepError(Exception):
    """A user-facing problem; str() is a one-line message."""


def warn(message):
    print(f"{os.path.basename(sys.argv[0])}: warning: {message}", file=sys.stderr)


def run_main(main):
    """Run main(), turning SweepError into a one-line error and exit status 1."""
    try:
        main()
    except SweepError as error:
        sys.exit(f"{os.path.basename(sys.argv[0])}: error: {error}")


# ---------------------------------------------------------------------------------------------
# Reading
# ---------------------------------------------------------------------------------------------
def _text(value):
    """An HDF5 string (bytes, str, numpy scalar) as str."""
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    if isinstance(value, np.ndarray) and value.shape == ():
        return _text(value[()])
    return str(value)


def _text_list(value):
    if value is None:
        return []
    if isinstance(value, (str, bytes)):
        return [s for s in _text(value).split(",") if s]
    return [_text(v) for v in np.atleast_1d(value)]


def label_of(name, units, long_name=""):
    """'long_name [units]' ('name [units]' without a long_name): 'impact angle θ [rad]'."""
    text = long_name.strip() or name
    return f"{text} [{units}]" if units else text


def config_description(config_text):
    """The sweep's description for a figure title: the first sentence of the config's leading
    comment, after the line(s) with the command that runs it, kept whole: colons, parentheses and
    abbreviations ('Fig. 5') do not end it; '. ', '? ' or '! ' before anything but a lowercase
    letter does (a question keeps its mark)."""
    lines = []
    for line in config_text.splitlines():
        if not line.startswith("#"):
            break
        text = line.lstrip("#").strip()
        if text.startswith(("simpact ", "(or", "mpirun ")) or not text:
            if lines:
                break  # a blank comment line ends the paragraph
            continue
        lines.append(text)
    text = " ".join(lines)
    depth = 0
    for i, c in enumerate(text):
        depth += {"(": 1, ")": -1}.get(c, 0)
        after = text[i + 2:i + 3]
        if c in ".!?" and depth <= 0 and text[i + 1:i + 2] == " " and after and not after.islower():
            word = text[:i].rsplit(" ", 1)[-1]
            initial = len(word) == 1 and "A" <= word <= "Z"  # 'J. Smith'
            if c != "." or (word.lower() not in ABBREVIATIONS and not initial):
                return text[:i + 1] if c in "!?" else text[:i]
    return text.rstrip(".")


@dataclass
class Axis:
    """One grid axis: /grid/<name> (or the dimension scale attached to a map)."""
    name: str
    values: np.ndarray
    units: str = ""
    long_name: str = ""
    # The values as text when the coordinate holds strings (orderings, parameter names); values
    # are then their indices 0..n-1.
    names: list = None

    @property
    def label(self):
        """'long_name [units]', e.g. 'angle between the contact normals at the cue ball [rad]'."""
        return label_of(self.name, self.units, self.long_name)

    @property
    def is_categorical(self):
        """Strings, or at most MAX_CATEGORIES values: drawn at indices 0..n-1, one tick each."""
        return self.names is not None or len(self.values) <= MAX_CATEGORIES

    @property
    def positions(self):
        """Where the grid points are drawn: their indices when categorical, else their values."""
        return np.arange(len(self.values), dtype=float) if self.is_categorical else np.asarray(self.values, float)

    def tick_labels(self):
        """One label per value: '0.7', 'π/2', '1e-03', 'argmin'."""
        if self.names is not None:
            return list(self.names)
        out = []
        for x in self.values:
            text = pi_fraction(x) if self.units == "rad" else ""
            out.append(text or f"{x:.4g}")
        return out

    def position_of(self, x):
        """A value on this axis as a drawing position (interpolated between categories)."""
        if not self.is_categorical or self.names is not None:
            return x
        v = np.asarray(self.values, float)
        order = np.argsort(v)
        return float(np.interp(x, v[order], np.arange(len(v), dtype=float)[order]))

    @property
    def spacing(self):
        """'log', 'linear' or 'values' (explicit list, uneven)."""
        if self.is_log_spaced:
            return "log"
        steps = np.diff(self.values)
        if len(steps) == 0 or np.allclose(steps, steps[0], rtol=1e-9, atol=0):
            return "linear"
        return "values"

    @property
    def is_log_spaced(self):
        """Geometric spacing (e.g. `spacing: log` in the config): drawn on a log axis."""
        v = self.values
        if len(v) < 3 or np.any(v <= 0) or not np.all(np.isfinite(v)):
            return False
        ratios = v[1:] / v[:-1]
        steps = np.diff(v)
        return (np.allclose(ratios, ratios[0], rtol=1e-6) and abs(ratios[0] - 1) > 1e-9
                and not np.allclose(steps, steps[0], rtol=1e-6))

    def edges(self):
        """Cell edges around the grid points, for pcolormesh (geometric on log axes; i ± ½ for
        a categorical axis)."""
        if self.is_categorical:
            return np.arange(len(self.values) + 1, dtype=float) - 0.5
        v = np.asarray(self.values, dtype=float)
        if len(v) == 1:
            half = 0.5 * max(abs(v[0]), 1.0)
            return np.array([v[0] - half, v[0] + half])
        if self.is_log_spaced:
            lv = np.log(v)
            mid = 0.5 * (lv[1:] + lv[:-1])
            return np.exp(np.concatenate([[2 * lv[0] - mid[0]], mid, [2 * lv[-1] - mid[-1]]]))
        mid = 0.5 * (v[1:] + v[:-1])
        return np.concatenate([[2 * v[0] - mid[0]], mid, [2 * v[-1] - mid[-1]]])

    def format_value(self, x):
        """'restitution = 0.7', 'm2 = 0.5 kg', 'theta = π/2': a slice title."""
        unit = "" if self.units in ("", "1") else f" {self.units}"
        if self.names is not None:
            return f"{self.name} = {self.names[int(x)]}"
        if self.units == "rad":
            text = pi_fraction(x)
            if text:
                return f"{self.name} = {text}"
        return f"{self.name} = {x:.4g}{unit}"


@dataclass
class Map:
    """A grid-shaped dataset with its axes (first index = first axis)."""
    path: str
    values: np.ndarray
    axes: list
    units: str = ""
    long_name: str = ""
    # Monte Carlo: the other statistics of the same quantity (std, min, max), if read.
    spread: dict = field(default_factory=dict)

    @property
    def label(self):
        return label_of(self.name, self.units)

    @property
    def caption(self):
        return f"{self.name}: {self.long_name}" if self.long_name and self.long_name != self.name else ""

    @property
    def name(self):
        return self.path.rsplit("/", 1)[-1]

    def statistics(self):
        """(min, mean, max, number of NaN) over the grid, NaNs ignored."""
        v = self.values
        finite = v[np.isfinite(v)]
        nan_count = int(v.size - finite.size)
        if finite.size == 0:
            return (math.nan, math.nan, math.nan, nan_count)
        return (float(finite.min()), float(finite.mean()), float(finite.max()), nan_count)


def mc_base(path):
    """'/energy/before_mean' -> ('/energy/before', 'mean'); (path, None) if not a statistic."""
    for stat in MC_STATS:
        if path.endswith("_" + stat):
            return path[: -len(stat) - 1], stat
    return path, None


class Sweep:
    """An open simpact result file. Use `open_sweep`; close it or use `with`."""

    def __init__(self, path, h5file):
        self.path = path
        self.file = h5file

    # -- context manager ----------------------------------------------------------------------
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        self.file.close()

    # -- root attributes ----------------------------------------------------------------------
    def attr(self, name, default=None):
        return self.file.attrs.get(name, default)

    @property
    def complete(self):
        return bool(int(self.attr("complete", 0)))

    @property
    def replicas(self):
        try:
            return int(_text(self.attr("replicas", "1")))
        except ValueError:
            return 1

    @property
    def model(self):
        return _text(self.attr("model", "?"))

    @property
    def orderings(self):
        return _text_list(self.attr("orderings"))

    @property
    def grid_axes(self):
        names = _text_list(self.attr("grid_axes"))
        if not names and "grid" in self.file:
            names = list(self.file["grid"].keys())
        return names

    def chunks_done(self):
        """(chunks done, chunk count) from /progress/done."""
        if "progress/done" not in self.file:
            count = int(self.attr("chunk_count", 0))
            return (count if self.complete else 0, count)
        done = self.file["progress/done"][()]
        return int(np.count_nonzero(done)), int(done.size)

    def axis(self, name):
        ds = self.file[f"grid/{name}"]
        return axis_from_dataset(name, ds)

    def axes(self):
        return [self.axis(name) for name in self.grid_axes]

    # -- maps ---------------------------------------------------------------------------------
    def map_paths(self):
        """Every grid-shaped map, in the file's order (root attribute map_datasets)."""
        paths = ["/" + p.lstrip("/") for p in _text_list(self.attr("map_datasets"))]
        if not paths:  # older or foreign file: every float dataset shaped like the grid
            shape = tuple(len(a.values) for a in self.axes())
            found = []
            self.file.visititems(lambda n, o: found.append("/" + n) if (
                isinstance(o, h5py.Dataset) and o.shape == shape and o.dtype.kind == "f"
                and not n.startswith(("grid/", "samples/")) and "CLASS" not in o.attrs) else None)
            paths = found
        return [p for p in paths if p.lstrip("/") in self.file]

    def quantity_paths(self, group=None):
        """One path per quantity: with Monte Carlo the `_mean` map stands for its statistics."""
        out = []
        for path in self.map_paths():
            base, stat = mc_base(path) if self.replicas > 1 else (path, None)
            if stat not in (None, "mean"):
                continue
            if group is None or path.startswith(f"/{group.strip('/')}/"):
                out.append(path)
        return out

    def resolve(self, name):
        """A map path as given ('/xi', 'energy/before'), or its Monte Carlo '_mean'."""
        path = "/" + name.strip("/")
        for candidate in (path, path + "_mean"):
            obj = self.file.get(candidate.lstrip("/"))
            if isinstance(obj, h5py.Dataset):
                return candidate
        available = ", ".join(self.quantity_paths()) or "none"
        raise SweepError(f"no map '{path}' in {self.path} (maps: {available})")

    def read_map(self, name, with_spread=True):
        """The map `name` with its axes, units and long_name (Monte Carlo spread if present)."""
        path = self.resolve(name)
        ds = self.file[path.lstrip("/")]
        values = np.asarray(ds[()], dtype=float)
        result = Map(path=path, values=values, axes=self._axes_of(ds),
                     units=_text(ds.attrs.get("units", "")),
                     long_name=_text(ds.attrs.get("long_name", "")))
        base, stat = mc_base(path)
        if with_spread and stat is None and self.replicas > 1:
            base, stat = mc_base(self._mean_twin(path, values) or path)
        if with_spread and stat == "mean":
            for other in ("std", "min", "max"):
                sibling = self.file.get(f"{base}_{other}".lstrip("/"))
                if isinstance(sibling, h5py.Dataset) and sibling.shape == ds.shape:
                    result.spread[other] = np.asarray(sibling[()], dtype=float)
        return result

    def _mean_twin(self, path, values):
        """The `_mean` map holding the same values as `path` (with Monte Carlo, /xi is a copy
        of /xi_maps/outcome_set_mean): its std/min/max then describe `path` too."""
        for other in self.map_paths():
            if other != path and mc_base(other)[1] == "mean":
                ds = self.file[other.lstrip("/")]
                if ds.shape == values.shape and np.array_equal(ds[()], values, equal_nan=True):
                    return other
        return None

    def _axes_of(self, ds):
        """The dimension scales attached to `ds`, else /grid/<grid_axes[i]>, else indices."""
        names = self.grid_axes
        axes = []
        for i, n in enumerate(ds.shape):
            axis = None
            if len(ds.dims[i]) > 0:
                scale = ds.dims[i][0]
                axis = axis_from_dataset(scale.name.rsplit("/", 1)[-1], scale)
            elif i < len(names) and f"grid/{names[i]}" in self.file:
                axis = self.axis(names[i])
            if axis is None or len(axis.values) != n:
                axis = Axis(name=f"dim{i}", values=np.arange(n, dtype=float), units="",
                            long_name=f"index along dimension {i}")
            axes.append(axis)
        return axes

    # -- text ---------------------------------------------------------------------------------
    def config_text(self):
        if "config" not in self.file:
            return ""
        return _text(self.file["config"][()])

    def provenance(self):
        """/provenance as (column names, rows of str)."""
        if "provenance" not in self.file:
            return [], []
        table = self.file["provenance"][()]
        names = list(table.dtype.names or [])
        rows = [[_text(row[n]) for n in names] for row in np.atleast_1d(table)]
        return names, rows

    def summary(self):
        """Key facts for reports, as (label, text) pairs."""
        done, chunks = self.chunks_done()
        return [
            ("file", self.path),
            ("title", _text(self.attr("title", ""))),
            ("model", self.model),
            ("complete", "yes" if self.complete else "NO (partial results)"),
            ("chunks done", f"{done} / {chunks}"),
            ("tasks", _text(self.attr("task_count", "?"))),
            ("replicas per grid point", str(self.replicas)),
            ("grid", " × ".join(f"{a.name} ({len(a.values)})" for a in self.axes())),
            ("orderings", ", ".join(self.orderings)),
            ("minimality", _text(self.attr("minimality", ""))),
            ("schema_version", _text(self.attr("schema_version", "?"))),
            ("config_hash", _text(self.attr("config_hash", ""))),
        ]


def axis_from_dataset(name, ds):
    """An axis from a coordinate dataset (/grid/<name> or a dimension scale) with its units and
    long_name; a string-valued one (orderings, parameters) keeps the strings as `names`."""
    raw = ds[()]
    names = None
    if np.asarray(raw).dtype.kind in "OSU":
        names = [_text(v) for v in np.atleast_1d(raw)]
        values = np.arange(len(names), dtype=float)
    else:
        values = np.asarray(raw, dtype=float)
    return Axis(name=name, values=values, units=_text(ds.attrs.get("units", "")),
                long_name=_text(ds.attrs.get("long_name", "")), names=names)


def open_sweep(path, warn_incomplete=True):
    """Open a simpact result file; SweepError if it is missing or not one."""
    if not os.path.exists(path):
        raise SweepError(f"no such file: {path}")
    if os.path.isdir(path):
        raise SweepError(f"{path} is a directory, not an HDF5 file")
    if not h5py.is_hdf5(path):
        raise SweepError(f"{path} is not an HDF5 file")
    try:
        h5file = h5py.File(path, "r")
    except OSError as error:  # locked by a running writer, truncated by a kill, ...
        hint = ""
        if os.path.isdir(path + ".journal"):
            hint = (f"; {path}.journal exists: the run was interrupted or is still going "
                    "(finish it with `simpact run CONFIG -o FILE --resume`)")
        raise SweepError(f"cannot open {path}: {error}{hint}") from None
    if "schema_version" not in h5file.attrs:
        h5file.close()
        raise SweepError(f"{path} is not a simpact sweep file (no schema_version attribute)")
    sweep = Sweep(path, h5file)
    if warn_incomplete and not sweep.complete:
        done, chunks = sweep.chunks_done()
        warn(f"{path} is incomplete (complete = 0, {done} of {chunks} chunks done): "
             "unfinished grid points are drawn blank")
    return sweep


def energy_loss_paths(sweep):
    """/energy/relative_loss_<ordering> for every ordering in the file, then plastic."""
    names = [f"relative_loss_{o}" for o in sweep.orderings] + ["relative_loss_plastic"]
    paths = []
    for name in names:
        try:
            paths.append(sweep.resolve(f"/energy/{name}"))
        except SweepError:
            pass
    if not paths:  # a time-stepped sweep: E_end / E_0 per ordering
        for o in sweep.orderings:
            try:
                paths.append(sweep.resolve(f"/energy/ratio_{o}"))
            except SweepError:
                pass
    if not paths:
        raise SweepError(f"no /energy/relative_loss_* (or, time-stepped, /energy/ratio_*) maps in {sweep.path}")
    return paths


# ---------------------------------------------------------------------------------------------
# Text formatting (also used by the reader: π labels of axes)
# ---------------------------------------------------------------------------------------------
def pi_fraction(x, max_denominator=12, tol=1e-9):
    """'π/2', '2π/3', 'π', '0' when x is such a multiple of π; '' otherwise."""
    frac = Fraction(x / math.pi).limit_denominator(max_denominator)
    if abs(float(frac) * math.pi - x) > tol * max(1.0, abs(x)):
        return ""
    if frac == 0:
        return "0"
    sign = "−" if frac < 0 else ""
    p, q = abs(frac.numerator), frac.denominator
    top = "π" if p == 1 else f"{p}π"
    return f"{sign}{top}" if q == 1 else f"{sign}{top}/{q}"


def wrap(text, width=48):
    return "\n".join(textwrap.wrap(text, width)) or text


def format_number(x):
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "nan"
    return f"{x:.6g}"
