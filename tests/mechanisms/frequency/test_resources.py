"""Bounded memory for inputs that used to explode (issue 10 item 2), run in a subprocess under an address-space
cap (``resource.setrlimit``), so a regression fails here instead of taking the machine down."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
CAP_BYTES = 1_500 * 2**20  # importing numpy/scipy/pandas reserves a few hundred MB of address space


def run_capped(code: str) -> subprocess.CompletedProcess[str]:
    script = textwrap.dedent(f"""
        import resource
        resource.setrlimit(resource.RLIMIT_AS, ({CAP_BYTES}, {CAP_BYTES}))
    """) + textwrap.dedent(code)
    env = dict(os.environ, PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=300,
                          check=False)


@pytest.mark.skipif(sys.platform != "linux", reason="RLIMIT_AS is enforced on Linux")
def test_olh_at_a_large_epsilon_stays_small():
    """OLH at ε = 20 derived g ≈ 4.9·10⁸ (7.7 GB for 1,000 users); g is now capped at 2¹⁶ by default."""
    done = run_capped("""
        import numpy as np, ldp
        from ldp.engines import run_fast
        for eps in (12.0, 20.0, 27.0):
            mech = ldp.get_mechanism("olh", eps, 1000)
            assert mech.g == 2 ** 16, mech.g
            reports = mech.perturb(np.arange(1000) % 1000, np.random.default_rng(0))
            exact = mech.aggregate(reports)
            fast = run_fast(mech, np.full(1000, 1), np.random.default_rng(1))
            assert np.isfinite(mech.estimate(exact).values).all() and np.isfinite(mech.estimate(fast).values).all()
        print("ok")
    """)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr[-2000:]
