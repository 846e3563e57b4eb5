"""The story's charts one step at a time: ``step_figure(story, k)`` is step k's chart of ``story_figures`` (a page
that shows one step builds only that one), and a number that is not a step is refused."""

from __future__ import annotations

import numpy as np
import pytest

from ldp.core.errors import InvalidInput
from ldp.studies.briefing import tell_story
from ldp.viz.briefing import step_figure, story_figures


@pytest.fixture(scope="module")
def story():
    return tell_story(np.array([500, 300, 150, 50]), ["a", "b", "c", "d"], name="toy", mechanism="grr",
                      epsilon=1.0, n=10_000, seed=1)


def test_each_step_alone_is_that_step_of_the_five(story):
    every = story_figures(story)
    assert len(every) == len(story.steps) == 5
    for number, whole in enumerate(every, start=1):
        alone = step_figure(story, number)
        assert alone.to_json() == whole.to_json(), number
        assert alone.layout.title.text.startswith(f"{number} · ")
    assert step_figure(story, np.int64(5)).layout.xaxis.type == "log"  # a numpy integer is a step too


@pytest.mark.parametrize("number", [0, 6, -1, 2.0, True, "3"])
def test_a_number_that_is_not_a_step_is_refused(story, number):
    with pytest.raises(InvalidInput, match="a story's step is 1 to 5"):
        step_figure(story, number)
