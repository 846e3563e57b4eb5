"""What the pages share, one module per concern (re-exported here, so a page writes ``common.<name>``):

- :mod:`views.component_controls` — the engine, seed, ε, estimator and mechanism controls (and parameters);
- :mod:`views.data_picker` — the dataset controls and picker, uploads;
- :mod:`views.messages` — errors in the main panel, plain text, sections;
- :mod:`views.output` — headings, figures, downloads, estimator diagnostics;
- :mod:`views.long_work` — long runs, per-server results with progress, background precomputation;
- :mod:`views.controls` — the declared widgets themselves (URL binding, coercion).
"""

from __future__ import annotations

from ldp.studies.datasets import Dataset  # noqa: F401
from views.component_controls import *  # noqa: F403
from views.component_controls import GENERATED_KEYS  # noqa: F401
from views.controls import (  # noqa: F401
    PRESENT,
    apply_pending_configuration,
    load_configuration,
    message_area,
    open_message_area,
    presenting,
    render,
)
from views.data_picker import *  # noqa: F403
from views.long_work import *  # noqa: F403
from views.messages import *  # noqa: F403
from views.output import *  # noqa: F403
