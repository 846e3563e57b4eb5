"""Synthetic populations described by a short text spec, with their exact distribution.

Spec grammar::

    name                              zipf
    name:key=value,key=value          gaussian:mu=0,sigma=1,d=50
    name(key=value,...)               beta(a=2,b=2)
    mix:W*name(k=v,...)+W*name,...    mix:0.3*gaussian(mu=0.3,sigma=0.05)+0.7*uniform,d=64

``d`` is the domain size (default 100). ``zipf`` is categorical over ranks ``1..d``; the other
families are numerical: a distribution truncated to a sensible range (or ``lo``/``hi`` where the
family accepts them), cut into ``d`` equal-width bins whose real-unit edges are kept. ``poisson``
uses one bin per integer ``0..d-1``. A mixture's range is the union of its components' default
ranges unless ``lo``/``hi`` are given, and each component is truncated to that range (and to its
own support or explicit ``lo``/``hi``); components without a weight share what the others leave
(equally when none has one), and weights are normalised.

:func:`true_distribution` gives the exact bin probabilities (CDF differences of the truncated
distributions), so simulations can skip sampling; :func:`generate` draws ``n`` users from them,
which has the same distribution as drawing real values (:func:`generate_values`) and bucketizing.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

import numpy as np

from ldp.core.errors import InvalidInput
from ldp.data.domain import EncodedColumn, bin_labels

__all__ = ["SYNTHETIC", "generate", "generate_values", "parse_spec", "spiky_spec", "true_distribution"]

DEFAULT_D = 100
MAX_D = 1_000_000

#: name → (one-line description, default parameters); the registry a UI lists.
SYNTHETIC: dict[str, tuple[str, dict[str, Any]]] = {
    "zipf": ("Zipf power law over d categories: P(rank r) ∝ 1/r^s (exact, finite)",
             {"s": 1.5, "d": DEFAULT_D}),
    "uniform": ("Uniform on [lo, hi], cut into d bins", {"lo": 0.0, "hi": 1.0, "d": DEFAULT_D}),
    "gaussian": ("Normal(mu, sigma²) truncated to mu ± 4 sigma (or lo, hi), cut into d bins",
                 {"mu": 1000.0, "sigma": 10.0, "d": DEFAULT_D}),
    "exponential": ("Exponential with rate lam truncated to [0, 10/lam] (or lo, hi), cut into d bins",
                    {"lam": 1.0, "d": DEFAULT_D}),
    "poisson": ("Poisson(lam) truncated to the integers 0..d-1, one bin per integer",
                {"lam": 5.0, "d": DEFAULT_D}),
    "triangular": ("Triangular on [left, right] peaking at mode, cut into d bins",
                   {"left": 100.0, "mode": 4500.0, "right": 10000.0, "d": DEFAULT_D}),
    "beta": ("Beta(a, b) on [0, 1], cut into d bins", {"a": 5.0, "b": 2.0, "d": DEFAULT_D}),
    "mixture": ("Weighted mixture of numerical families, e.g. "
                "mix:0.3*gaussian(mu=0.3,sigma=0.05)+0.7*uniform; "
                "range = union of the components' ranges (or lo, hi)", {"d": DEFAULT_D}),
}

_ALIASES = {"mix": "mixture", "normal": "gaussian", "exp": "exponential", "triangle": "triangular"}
# Parameters a family accepts beyond its defaults (optional range overrides).
_OPTIONAL = {"uniform": (), "gaussian": ("lo", "hi"), "exponential": ("lo", "hi"), "mixture": ("lo", "hi")}

_NAME = r"[A-Za-z_][A-Za-z0-9_]*"
_NUMBER = r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?"
_TERM = re.compile(rf"\s*(?:(?P<weight>{_NUMBER})\s*\*\s*)?(?P<name>{_NAME})\s*(?:\((?P<args>[^()]*)\))?\s*")
_CALL = re.compile(rf"^\s*(?P<name>{_NAME})\s*\((?P<args>[^()]*)\)\s*$")


def _valid_names() -> str:
    return ", ".join(SYNTHETIC) + " (mix = mixture)"


def _canonical(name: str) -> str:
    key = name.strip().lower()
    key = _ALIASES.get(key, key)
    if key not in SYNTHETIC:
        raise InvalidInput(f"unknown synthetic distribution {name.strip()!r}; valid names: {_valid_names()}")
    return key


def _number(key: str, text: str) -> int | float:
    text = text.strip()
    try:
        return int(text)
    except ValueError:
        pass
    try:
        value = float(text)
    except ValueError:
        raise InvalidInput(f"parameter {key} must be a number, got {text!r}") from None
    if not math.isfinite(value):
        raise InvalidInput(f"parameter {key} must be finite, got {text!r}")
    return value


def _split_top(text: str, sep: str) -> list[str]:
    """Split on ``sep`` outside parentheses."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth < 0:
                raise InvalidInput(f"unbalanced parentheses in {text!r}")
        elif ch == sep and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    if depth != 0:
        raise InvalidInput(f"unbalanced parentheses in {text!r}")
    parts.append(text[start:])
    return parts


def _key_values(text: str, family: str, allowed: tuple[str, ...]) -> dict[str, Any]:
    params: dict[str, Any] = {}
    for item in _split_top(text, ","):
        if not item.strip():
            continue
        if "=" not in item:
            raise InvalidInput(f"expected key=value in the parameters of {family}, got {item.strip()!r}")
        key, value = (s.strip() for s in item.split("=", 1))
        if key not in allowed:
            raise InvalidInput(f"unknown parameter {key!r} for {family}; valid: {', '.join(allowed)}")
        if key in params:
            raise InvalidInput(f"parameter {key!r} given twice for {family}")
        params[key] = _number(key, value)
    return params


def _allowed(family: str) -> tuple[str, ...]:
    return tuple(SYNTHETIC[family][1]) + _OPTIONAL.get(family, ())


def _family_params(family: str, args: str, *, component: bool = False) -> dict[str, Any]:
    allowed = _allowed(family)
    if component:
        allowed = tuple(k for k in allowed if k != "d")
    params = dict(SYNTHETIC[family][1])
    if component:
        params.pop("d", None)
    params.update({k: (v if k == "d" else float(v)) for k, v in _key_values(args, family, allowed).items()})
    _validate(family, params)
    return params


def _parse_components(text: str) -> list[tuple[float | None, str, dict[str, Any]]]:
    terms: list[tuple[float | None, str, dict[str, Any]]] = []
    pos = 0
    while True:
        m = _TERM.match(text, pos)
        if not m or not m.group("name"):
            raise InvalidInput(f"cannot parse mixture component at {text[pos:].strip()!r}; "
                             "expected e.g. 0.3*gaussian(mu=0.3,sigma=0.05)+0.7*uniform")
        family = _canonical(m.group("name"))
        if family in ("mixture", "zipf"):
            raise InvalidInput(f"{family} cannot be a mixture component (numerical families only)")
        weight = float(m.group("weight")) if m.group("weight") is not None else None
        if weight is not None and not (weight > 0 and math.isfinite(weight)):
            raise InvalidInput(f"mixture weights must be positive, got {m.group('weight')}")
        terms.append((weight, family, _family_params(family, m.group("args") or "", component=True)))
        pos = m.end()
        if pos == len(text):
            return terms
        if text[pos] != "+":
            raise InvalidInput(f"expected '+' between mixture components at {text[pos:]!r}")
        pos += 1


def _normalise_weights(
    terms: list[tuple[float | None, str, dict[str, Any]]],
) -> list[tuple[float, str, dict[str, Any]]]:
    given = [w for w, _, _ in terms if w is not None]
    missing = len(terms) - len(given)
    if missing == len(terms):
        fill = 1.0
    elif missing:
        rest = 1.0 - sum(given)
        if rest <= 0:
            raise InvalidInput("mixture weights without a value share 1 minus the given weights, "
                             "which is not positive")
        fill = rest / missing
    else:
        fill = 0.0
    raw = [w if w is not None else fill for w, _, _ in terms]
    total = sum(raw)
    return [(w / total, fam, params) for w, (_, fam, params) in zip(raw, terms, strict=True)]


def _validate(family: str, p: dict[str, Any]) -> None:
    def need(cond: bool, message: str) -> None:
        if not cond:
            raise InvalidInput(f"{family}: {message}")

    if "d" in p:
        d = p["d"]
        integral = isinstance(d, int) or (isinstance(d, float) and d.is_integer())
        need(integral, f"d must be an integer, got {d}")
        p["d"] = int(d)
        need(2 <= p["d"] <= MAX_D, f"d must lie in [2, {MAX_D}], got {p['d']}")
    if family == "zipf":
        need(p["s"] >= 0, f"s must be non-negative, got {p['s']}")
    elif family == "gaussian":
        need(p["sigma"] > 0, f"sigma must be positive, got {p['sigma']}")
    elif family in ("exponential", "poisson"):
        need(p["lam"] > 0, f"lam must be positive, got {p['lam']}")
    elif family == "triangular":
        need(p["left"] <= p["mode"] <= p["right"] and p["left"] < p["right"],
             f"need left <= mode <= right and left < right, got {p['left']}, {p['mode']}, {p['right']}")
    elif family == "beta":
        need(p["a"] > 0 and p["b"] > 0, f"a and b must be positive, got {p['a']}, {p['b']}")
    if "lo" in p or "hi" in p:
        lo, hi = p.get("lo"), p.get("hi")
        if lo is not None and hi is not None:
            need(lo < hi, f"need lo < hi, got {lo}, {hi}")


def parse_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """``(family, params)`` with defaults filled in; a mixture's params hold ``components``, a list of
    ``(weight, family, params)`` with normalised weights. ``ValueError`` names the valid families.

    Parameters
    ----------
    spec : str
        A spec in the module docstring's grammar, e.g. ``"gaussian:mu=0,sigma=1,d=50"`` (aliases: mix, normal,
        exp, triangle).

    Returns
    -------
    tuple of (str, dict of str to Any)
        The canonical family name (a key of :data:`SYNTHETIC`) and its parameters: the family's defaults
        updated with the given ones, ``d`` an int in [2, 1,000,000].

    Raises
    ------
    InvalidInput
        (a ``ValueError``) For an empty or unparsable spec, an unknown family or parameter, a parameter given
        twice or not a finite number, a value out of its family's range (d, s, sigma, lam, a, b, the triangular
        corners, lo < hi), or a malformed mixture (not one formula, zipf or a mixture as a component, a
        non-positive weight, given weights leaving nothing for the others).
    """
    if not isinstance(spec, str) or not spec.strip():
        raise InvalidInput(f"empty synthetic spec; valid names: {_valid_names()}")
    text = spec.strip()
    call = _CALL.match(text)
    if call:
        name, body = call.group("name"), call.group("args")
    elif ":" in text:
        name, body = text.split(":", 1)
    else:
        name, body = text, ""
    if not re.fullmatch(rf"\s*{_NAME}\s*", name):
        raise InvalidInput(f"cannot parse synthetic spec {spec!r}; valid names: {_valid_names()}")
    family = _canonical(name)
    if family != "mixture":
        return family, _family_params(family, body)
    pieces = _split_top(body, ",")
    is_setting = ["=" in p and "(" not in p for p in pieces]  # d=..., lo=..., hi=...
    settings = [p for p, flag in zip(pieces, is_setting, strict=True) if flag]
    formulas = [p for p, flag in zip(pieces, is_setting, strict=True) if p.strip() and not flag]
    if len(formulas) != 1:
        raise InvalidInput("a mixture needs one formula, "
                         "such as mix:0.3*gaussian(mu=0.3,sigma=0.05)+0.7*uniform")
    params = _family_params("mixture", ",".join(settings))
    params["components"] = _normalise_weights(_parse_components(formulas[0].strip()))
    return family, params


# --------------------------------------------------------------------------------------- distributions
@dataclass(frozen=True)
class _Component:
    """A scipy distribution truncated to its support [lo, hi] (the family's support, or the range the
    spec gives), with the window [wlo, whi] its bins span by default (e.g. mu ± 4 sigma)."""

    dist: Any
    discrete: bool
    lo: float
    hi: float
    wlo: float
    whi: float

    def mass(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """P(a_k <= X < b_k) for X truncated to [lo, hi]; the last interval is closed on the right."""
        a = np.clip(a, self.lo, self.hi)
        b = np.clip(b, self.lo, self.hi)
        if self.discrete:  # P(X < x) = F(ceil(x) - 1); the closed right end x of the last bin: F(floor(x))
            a_int = np.ceil(a) - 1
            b_int = np.ceil(b) - 1
            b_int[-1] = np.floor(b[-1])
            a, b = a_int, np.maximum(b_int, a_int)
        upper = a > self.dist.median()  # use the survival function in the upper tail (precision)
        with np.errstate(invalid="ignore"):
            out = np.where(upper, self.dist.sf(a) - self.dist.sf(b), self.dist.cdf(b) - self.dist.cdf(a))
        return np.clip(np.nan_to_num(out), 0.0, None)

    def sample(self, lo: float, hi: float, n: int, rng: np.random.Generator) -> np.ndarray:
        """``n`` draws truncated to [lo, hi] (inside the support), by inverse CDF."""
        if self.discrete:
            ks = np.arange(math.ceil(lo), math.floor(hi) + 1, dtype=np.float64)
            pmf = self.dist.pmf(ks)
            return ks[rng.choice(ks.size, size=n, p=pmf / pmf.sum())]
        if lo > self.dist.median():
            s_lo, s_hi = self.dist.sf(lo), self.dist.sf(hi)
            x = self.dist.isf(rng.uniform(s_hi, s_lo, size=n))
        else:
            x = self.dist.ppf(rng.uniform(self.dist.cdf(lo), self.dist.cdf(hi), size=n))
        return np.clip(x, lo, hi)


def _component(family: str, p: dict[str, Any], d: int | None = None) -> _Component:
    """The truncated distribution of one family; ``d`` is given for a stand-alone Poisson (support
    0..d-1, one bin per integer)."""
    from scipy import stats  # imported on use: keeps `import ldp.data` (and app start-up) light

    inf = math.inf
    if family == "uniform":
        lo, hi = p["lo"], p["hi"]
        return _Component(stats.uniform(lo, hi - lo), False, lo, hi, lo, hi)
    if family == "gaussian":
        lo, hi = p.get("lo", -inf), p.get("hi", inf)
        wlo, whi = p.get("lo", p["mu"] - 4 * p["sigma"]), p.get("hi", p["mu"] + 4 * p["sigma"])
        return _Component(stats.norm(p["mu"], p["sigma"]), False, lo, hi, wlo, whi)
    if family == "exponential":
        lo, hi = p.get("lo", 0.0), p.get("hi", inf)
        return _Component(stats.expon(scale=1.0 / p["lam"]), False, lo, hi, lo, p.get("hi", 10.0 / p["lam"]))
    if family == "poisson":
        dist = stats.poisson(p["lam"])
        if d is not None:
            return _Component(dist, True, -0.5, d - 0.5, -0.5, d - 0.5)
        return _Component(dist, True, -0.5, inf, -0.5, int(dist.isf(1e-6)) + 1.5)
    if family == "triangular":
        width = p["right"] - p["left"]
        dist = stats.triang((p["mode"] - p["left"]) / width, loc=p["left"], scale=width)
        return _Component(dist, False, p["left"], p["right"], p["left"], p["right"])
    if family == "beta":
        return _Component(stats.beta(p["a"], p["b"]), False, 0.0, 1.0, 0.0, 1.0)
    raise InvalidInput(f"{family} is not a numerical family")  # pragma: no cover - guarded by the parser


@dataclass(frozen=True)
class _Plan:
    """Everything needed to draw or describe a spec."""

    family: str
    d: int
    kind: str
    probs: np.ndarray
    labels: list[str]
    edges: np.ndarray | None
    parts: list[tuple[float, _Component, float, float]]  # (weight, component, lo, hi) for sampling


def _plan(spec: str) -> _Plan:
    family, params = parse_spec(spec)
    d = params["d"]
    if family == "zipf":
        ranks = np.arange(1, d + 1, dtype=np.float64)
        weights = ranks ** -float(params["s"])
        return _Plan(family, d, "categorical", weights / weights.sum(), [str(r) for r in range(1, d + 1)],
                     None, [])
    if family == "mixture":
        comps = [(w, _component(fam, p)) for w, fam, p in params["components"]]
    else:
        comps = [(1.0, _component(family, params, d))]
    lo = params.get("lo", min(c.wlo for _, c in comps))
    hi = params.get("hi", max(c.whi for _, c in comps))
    if not lo < hi:
        raise InvalidInput(f"{family}: need lo < hi, got {lo}, {hi}")
    edges = np.linspace(lo, hi, d + 1)
    if not np.all(np.diff(edges) > 0):
        raise InvalidInput(f"{family}: cannot cut [{lo}, {hi}] into {d} distinct bins")
    probs = np.zeros(d)
    parts = []
    for weight, comp in comps:
        c_lo, c_hi = max(lo, comp.lo), min(hi, comp.hi)
        mass = comp.mass(edges[:-1], edges[1:]) if c_lo <= c_hi else np.zeros(d)
        total = mass.sum()
        if not total > 0:
            raise InvalidInput(f"{family}: a component has no probability mass inside [{lo:.6g}, {hi:.6g}]")
        probs += weight * mass / total
        parts.append((weight, comp, c_lo, c_hi))
    probs /= probs.sum()
    labels = [str(k) for k in range(d)] if family == "poisson" else bin_labels(edges)
    return _Plan(family, d, "numerical", probs, labels, edges, parts)


def spiky_spec(d: int = 64) -> str:
    """An Income-like spiky column on [0, 1] over ``d`` buckets (a stand-in for the square-wave paper's Income data,
    §6.1: "people tend to report income using round numbers"): 40 % a smooth exponential (rate 4) and 60 % in six
    equal spikes at the "round" values 0.1, 0.2, …, 0.6 (Gaussians of σ = 0.0005, narrower than a bucket up to
    d ≈ 1,000, so each spike is one or two buckets).

    Parameters
    ----------
    d : int, default 64
        The number of buckets.

    Returns
    -------
    str
        A ``mix:`` spec for :func:`parse_spec`, :func:`generate` and :func:`true_distribution`.

    References
    ----------
    Li et al., the square-wave paper (SIGMOD 2020), §6.1 (the Income dataset).
    """
    spikes = "+".join(f"0.1*gaussian(mu={m:g},sigma=0.0005)" for m in (0.1, 0.2, 0.3, 0.4, 0.5, 0.6))
    return f"mix:0.4*exponential(lam=4)+{spikes},lo=0,hi=1,d={int(d)}"


def true_distribution(spec: str) -> np.ndarray:
    """Exact probabilities of the ``d`` codes of ``spec`` (float64, sums to 1).

    Parameters
    ----------
    spec : str
        A synthetic spec (:func:`parse_spec`).

    Returns
    -------
    numpy.ndarray
        The (d,) probabilities: Zipf weights 1/r^s normalised, or the truncated distributions' CDF differences
        over the d equal-width bins (a mixture: the weighted sum of its normalised components).

    Raises
    ------
    InvalidInput
        For a spec :func:`parse_spec` refuses, a range that cannot be cut into d distinct bins, or a component
        with no probability mass inside the range.
    """
    return _plan(spec).probs.copy()


def generate(spec: str, n: int, rng: np.random.Generator) -> EncodedColumn:
    """``n`` users drawn i.i.d. from ``spec`` (codes from the exact bin probabilities), in random order.

    Parameters
    ----------
    spec : str
        A synthetic spec (:func:`parse_spec`).
    n : int
        The number of users, a positive integer.
    rng : numpy.random.Generator
        The generator of the draw.

    Returns
    -------
    EncodedColumn
        n codes in [0, d), named by the spec; categorical (zipf, labels the ranks) or numerical (with the bins'
        real-unit edges; poisson labelled by its integers).

    Raises
    ------
    InvalidInput
        For an n that is not a positive integer, or an invalid spec (see :func:`true_distribution`).
    """
    if isinstance(n, bool) or not isinstance(n, int | np.integer) or n < 1:
        raise InvalidInput(f"number of users n must be a positive integer, got {n!r}")
    plan = _plan(spec)
    codes = rng.choice(plan.d, size=int(n), p=plan.probs).astype(np.int64, copy=False)
    return EncodedColumn(codes, plan.labels, plan.kind, plan.edges, spec.strip(), 0, 0)


def generate_values(spec: str, n: int, rng: np.random.Generator) -> np.ndarray:
    """``n`` real-valued draws (float64) of a numerical ``spec``, truncated to its range; for ``zipf``
    the ranks ``1..d``. Bucketizing them over the spec's edges follows :func:`true_distribution`.

    Parameters
    ----------
    spec : str
        A synthetic spec (:func:`parse_spec`).
    n : int
        The number of draws, a positive integer.
    rng : numpy.random.Generator
        The generator of the draws (a mixture: one multinomial split over its components, then a shuffle).

    Returns
    -------
    numpy.ndarray
        The (n,) float64 values, within the spec's range (zipf: ranks 1..d; poisson: integers).

    Raises
    ------
    InvalidInput
        For an n that is not a positive integer, or an invalid spec (see :func:`true_distribution`).
    """
    if isinstance(n, bool) or not isinstance(n, int | np.integer) or n < 1:
        raise InvalidInput(f"number of users n must be a positive integer, got {n!r}")
    plan = _plan(spec)
    if plan.family == "zipf":
        return (rng.choice(plan.d, size=int(n), p=plan.probs) + 1).astype(np.float64)
    sizes = rng.multinomial(int(n), np.array([w for w, _, _, _ in plan.parts]))
    draws = [comp.sample(lo, hi, int(k), rng) for (_, comp, lo, hi), k in zip(plan.parts, sizes, strict=True)]
    values = np.concatenate(draws)
    return rng.permutation(values) if len(draws) > 1 else values
