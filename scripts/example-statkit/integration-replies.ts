// The integration tests behind examples/statkit/cassette.jsonl, one reply per subgraph whose
// nodes all pass (decision 0024). The stats tests include one that reads the docstring of
// z_scores wrongly (sample instead of population deviation), so that the example shows a
// subgraph validated at 80% with the failing test left out of what ships.

const py = (s: TemplateStringsArray): string => s.raw[0]!.replace(/^\n/, "");

export const INTEGRATION_REPLIES: Record<string, { test_code: string; notes: string }> = {
  validation: {
    test_code: py`
import pytest

from statkit.validation import ensure_numbers, parse_numbers


def test_parsed_text_passes_the_check():
    assert ensure_numbers(parse_numbers("1, 2.5, -3")) == [1.0, 2.5, -3.0]


def test_another_separator_flows_through():
    assert ensure_numbers(parse_numbers("4;5;6", sep=";")) == [4.0, 5.0, 6.0]


def test_blank_text_is_refused_by_the_check():
    with pytest.raises(ValueError):
        ensure_numbers(parse_numbers("   "))


def test_a_bad_item_stops_before_the_check():
    with pytest.raises(ValueError, match="2"):
        ensure_numbers(parse_numbers("1, x, 3"))
`,
    notes: "Text parsed by parse_numbers, then checked by ensure_numbers; blank text and a bad item.",
  },
  stats: {
    test_code: py`
import pytest

from statkit.stats.descriptive import median, mode, percentile
from statkit.stats.spread import z_scores

STATS_DATA = [2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]


def test_z_scores_of_known_data():
    assert z_scores(STATS_DATA) == pytest.approx([-1.5, -0.5, -0.5, -0.5, 0.0, 0.0, 1.0, 2.0])


def test_percentile_50_is_the_median():
    assert percentile(STATS_DATA, 50) == pytest.approx(median(STATS_DATA))


def test_extreme_percentiles_are_the_bounds():
    assert percentile(STATS_DATA, 0) == min(STATS_DATA)
    assert percentile(STATS_DATA, 100) == max(STATS_DATA)


def test_equal_values_score_zero_around_their_mode():
    values = [3.0, 3.0, 3.0]
    assert mode(values) == 3.0
    assert z_scores(values) == [0.0, 0.0, 0.0]


def test_z_scores_use_the_sample_deviation():
    assert z_scores([1.0, 2.0, 3.0]) == pytest.approx([-1.0, 0.0, 1.0])
`,
    notes: "From the descriptive statistics through variance and std_dev to z_scores, on one data set.",
  },
};
