"""Reconstructions of numerical mechanisms and the mean estimate, as registered estimators.

Each of these is the mechanism's own maths (EM/EMS through its transition operator, the consistent trees of
hierarchical histograms, the inverse Haar transform): the estimator names it, declares its parameters for the
CLI and the pages, and calls ``mechanism.reconstruct(aggregate, method=name, **params)``. It applies to every
mechanism that lists its name in ``reconstructions`` — no switch on mechanism names.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from ldp.core.params import Param
from ldp.core.registry import ESTIMATORS
from ldp.core.results import Aggregate, Estimate
from ldp.estimators.base import Estimator
from ldp.maths.em import DEFAULT_MAX_ITER
from ldp.mechanisms.base import Mechanism

__all__ = ["Average", "Reconstruction"]

SW_PAPER = ("Li, Wang, Lopuhaä-Zwakenberg, Li, Škorić — Estimating Numerical Distributions under Local "
            "Differential Privacy, SIGMOD 2020")
TOL = Param("tol", float, "stop when the total log-likelihood changes by less than tol (default: the paper's "
            "τ = 10⁻³·e^ε for EM, 10⁻³ for EMS, §6.1)", low=0.0, optional=True)
MAX_ITER = Param("max_iter", int, "safety cap on the iterations", default=DEFAULT_MAX_ITER, low=1, high=10**8)


class Reconstruction(Estimator):
    """A numerical mechanism's named reconstruction (see ``NumericalMechanism.reconstructions``).

    The estimate is ``mechanism.reconstruct(aggregate, method=name, **params)``: the subclasses only name the method
    and declare its parameters.

    Parameters
    ----------
    **params
        The subclass's declared parameters (EM and EMS: ``tol``, the log-likelihood change that stops the iterations,
        None for the paper's τ = 10⁻³·e^ε (EM) or 10⁻³ (EMS), §6.1; ``max_iter``, the safety cap); the tree and Haar
        reconstructions take none.

    References
    ----------
    Li et al., "Estimating Numerical Distributions under Local Differential Privacy" (SIGMOD'20): §4.2–4.3 (HH-CI,
    HH-ADMM, HaarHRR), §5.5 (EM, EMS: Algorithm 1), §6.1 (τ).
    """

    kinds: ClassVar[tuple[str, ...]] = ("numerical",)
    consistent: ClassVar[bool] = True

    @classmethod
    def _applies(cls, mechanism: Mechanism) -> bool:
        return cls.name in getattr(mechanism, "reconstructions", ())

    def _estimate(self, mechanism: Mechanism, aggregate: Aggregate, base: Estimate | None) -> Estimate:
        return mechanism.reconstruct(aggregate, method=self.name, **self.params)  # type: ignore[attr-defined]

    def _estimate_batch(self, mechanism: Mechanism, counts: np.ndarray, n: int) -> np.ndarray:
        """Every row through ``mechanism.reconstruct_batch`` (EM/EMS iterate the rows together; the same values as
        one :meth:`estimate` per row)."""
        if not self.applies_to(mechanism):
            return super()._estimate_batch(mechanism, counts, n)  # refused with the estimator's one-line reason
        # the rows were validated by estimate_batch: handed on as checked, not validated a second time
        return mechanism.reconstruct_batch(Aggregate._checked(counts, n), n, method=self.name,  # type: ignore
                                           **self.params)

    def _estimate_batches(self, mechanisms: list[Mechanism], counts: list[np.ndarray], n: int) -> list[np.ndarray]:
        """The blocks of mechanisms of one class through its ``reconstruct_batches`` (EM/EMS over a sweep iterate
        all of them together; the same values as one :meth:`estimate` per row)."""
        kind = type(mechanisms[0]) if mechanisms else None
        if kind is None or not all(type(m) is kind and self.applies_to(m) for m in mechanisms):
            return super()._estimate_batches(mechanisms, counts, n)
        return kind.reconstruct_batches(mechanisms, [Aggregate._checked(c, n) for c in counts], n,  # type: ignore
                                        method=self.name, **self.params)


@ESTIMATORS.register
class EMS(Reconstruction):
    name = "ems"
    display_name = "EMS"
    description = "EM with a binomial (1,2,1) smoothing step after every iteration (the square wave's estimator)"
    paper = SW_PAPER + ", §5.5 (Algorithm 1 with smoothing)"
    parameters = (TOL, MAX_ITER)


@ESTIMATORS.register
class EM(Reconstruction):
    name = "em"
    display_name = "EM"
    description = "Expectation maximization: the maximum-likelihood histogram through the transition matrix"
    paper = SW_PAPER + ", §5.5 (Algorithm 1)"
    parameters = (TOL, MAX_ITER)


@ESTIMATORS.register
class HHADMM(Reconstruction):
    name = "hh-admm"
    display_name = "HH-ADMM"
    description = "Consistent, non-negative tree by ADMM: the hierarchy's leaves as a distribution"
    paper = SW_PAPER + ", §4.3 (HH-ADMM)"


@ESTIMATORS.register
class HHCI(Reconstruction):
    name = "hh-ci"
    display_name = "HH-CI"
    description = "Constrained inference (Hay et al.): the least-squares consistent tree; leaves may be negative"
    paper = SW_PAPER + ", §4.2 (constrained inference)"
    consistent = False


@ESTIMATORS.register
class Haar(Reconstruction):
    name = "haar"
    display_name = "HaarHRR"
    description = "Inverse Haar transform of the per-layer coefficients; leaves may be negative"
    paper = SW_PAPER + ", §4.2 (HaarHRR)"
    consistent = False


@ESTIMATORS.register
class HaarNS(Reconstruction):
    name = "haar-ns"
    display_name = "HaarHRR + Norm-Sub"
    description = "Inverse Haar transform, then Norm-Sub to a distribution"
    paper = SW_PAPER + ", §4.2 (HaarHRR) and §4.1 (Norm-Sub)"


@ESTIMATORS.register
class Average(Estimator):
    """The mean of the unbiased reports: an unbiased estimate of the mean (mean and vector mechanisms).

    Parameters
    ----------
    **params
        None: the average takes no parameters.

    References
    ----------
    Square-wave paper (Li et al., SIGMOD'20), §2.2 (the mean mechanisms' estimators).
    """
    name = "average"
    display_name = "Average of the reports"
    description = "The mean of the unbiased reports: an unbiased estimate of the mean"
    paper = SW_PAPER + ", §2.2"
    kinds = ("mean", "vector")

    def _estimate(self, mechanism: Mechanism, aggregate: Aggregate, base: Estimate | None) -> Estimate:
        return mechanism.estimate(aggregate)
