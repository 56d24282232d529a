// The model replies behind examples/statkit/cassette.jsonl, written by us as a fixture
// (see examples/statkit/README.md). Some first implementations are wrong on purpose so
// that the debug loop runs, and report.format_number never gets negative zero right,
// so that a run shows a failed node, its restored files and its skipped dependents.

export interface NodeReplies {
  tests: string;
  implementation: { imports: string[]; code: string; notes: string };
  fixes?: { imports: string[]; code: string; explanation: string }[];
  /** The diagnosis votes, in the order they are asked: five at a node's first failure, five more half-way through its fixes. */
  votes?: Vote[];
}

type Vote = { verdict: "implementation_bug" | "test_issue" | "environment_issue"; reason: string };

/** Five votes: the reasons given, then the same verdict with the first reason until there are five. */
const votes = (verdict: Vote["verdict"], ...reasons: string[]): Vote[] =>
  Array.from({ length: 5 }, (_, i) => ({ verdict, reason: reasons[i] ?? reasons[0]! }));

const py = (s: TemplateStringsArray): string => s.raw[0]!.replace(/^\n/, "");

const FORMAT_NUMBER_TRIES = [
  py`
def format_number(value: float, digits: int = 2) -> str:
    """Format a number for a report."""
    if digits < 0:
        raise ValueError("digits must be 0 or more")
    text = f"{value:.{digits}f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text
`,
  py`
def format_number(value: float, digits: int = 2) -> str:
    """Format a number for a report."""
    if digits < 0:
        raise ValueError("digits must be 0 or more")
    text = f"{round(value, digits):.{digits}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text
`,
  py`
def format_number(value: float, digits: int = 2) -> str:
    """Format a number for a report."""
    if digits < 0:
        raise ValueError("digits must be 0 or more")
    if value == 0:
        value = 0.0
    text = f"{value:.{digits}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text
`,
];

export const REPLIES: Record<string, NodeReplies> = {
  "validation.parse_number": {
    tests: py`
import pytest

from statkit.validation import parse_number


def test_parse_number_plain():
    assert parse_number("3") == 3.0


def test_parse_number_strips_whitespace():
    assert parse_number(" 2.5 ") == 2.5


def test_parse_number_negative_and_exponent():
    assert parse_number("-2.5") == -2.5
    assert parse_number(" 1e3 ") == 1000.0


@pytest.mark.parametrize("text", ["", "   ", "abc", "nan", "inf", "-inf"])
def test_parse_number_rejects(text):
    with pytest.raises(ValueError):
        parse_number(text)
`,
    implementation: {
      imports: ["import math"],
      notes: "float() does the parsing; empty and non-finite values are rejected explicitly.",
      code: py`
def parse_number(text: str) -> float:
    """Parse one number from text, ignoring surrounding whitespace."""
    stripped = text.strip()
    if not stripped:
        raise ValueError("empty text is not a number")
    value = float(stripped)
    # float() accepts "nan" and "inf"; the specification does not.
    if not math.isfinite(value):
        raise ValueError(f"not a finite number: {text!r}")
    return value
`,
    },
  },
  "validation.parse_numbers": {
    tests: py`
import pytest

from statkit.validation import parse_numbers


def test_parse_numbers_example():
    assert parse_numbers("1, 2,3.5") == [1.0, 2.0, 3.5]


def test_parse_numbers_custom_separator():
    assert parse_numbers("1;2", sep=";") == [1.0, 2.0]


def test_parse_numbers_blank_text_is_empty():
    assert parse_numbers("") == []
    assert parse_numbers("   ") == []


def test_parse_numbers_names_the_bad_position():
    with pytest.raises(ValueError, match="2"):
        parse_numbers("1, x, 3")
`,
    implementation: {
      imports: [],
      notes: "Split on the separator and parse each item.",
      code: py`
def parse_numbers(text: str, sep: str = ",") -> list[float]:
    """Parse a separated list of numbers."""
    return [parse_number(item) for item in text.split(sep)]
`,
    },
    fixes: [
      {
        imports: [],
        explanation: "Blank text now gives [], and a bad item's error names its 1-based position.",
        code: py`
def parse_numbers(text: str, sep: str = ",") -> list[float]:
    """Parse a separated list of numbers."""
    if not text.strip():
        return []
    numbers = []
    for position, item in enumerate(text.split(sep), start=1):
        try:
            numbers.append(parse_number(item))
        except ValueError as error:
            raise ValueError(f"item {position} is not a number: {item.strip()!r}") from error
    return numbers
`,
      },
    ],
    votes: votes(
      "implementation_bug",
      "The docstring says blank text gives an empty list; the code parses the blank item and raises.",
      "The test for blank input follows the docstring; the implementation has no case for it.",
      "An error naming the item's position is in the docstring, and the code re-raises without it.",
    ),
  },
  "validation.ensure_numbers": {
    tests: py`
import pytest

from statkit.validation import ensure_numbers


def test_ensure_numbers_converts_to_floats():
    assert ensure_numbers([1, 2.5]) == [1.0, 2.5]
    assert all(isinstance(v, float) for v in ensure_numbers((1, 2)))


def test_ensure_numbers_rejects_empty():
    with pytest.raises(ValueError):
        ensure_numbers([])


@pytest.mark.parametrize("values", ["12", None, 3, {1: 2}])
def test_ensure_numbers_rejects_non_lists(values):
    with pytest.raises(TypeError):
        ensure_numbers(values)


@pytest.mark.parametrize("values", [[1, "2"], [True, 1], [None]])
def test_ensure_numbers_rejects_non_numbers(values):
    with pytest.raises(TypeError):
        ensure_numbers(values)
`,
    implementation: {
      imports: [],
      notes: "Type checks first, then emptiness; bool is excluded although it is an int.",
      code: py`
def ensure_numbers(values: list[float]) -> list[float]:
    """Check that values is a non-empty list of real numbers and return them as floats."""
    if not isinstance(values, (list, tuple)):
        raise TypeError(f"expected a list of numbers, got {type(values).__name__}")
    if len(values) == 0:
        raise ValueError("expected at least one number")
    checked = []
    for value in values:
        # bool is a subclass of int, but True is not a measurement.
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise TypeError(f"not a number: {value!r}")
        checked.append(float(value))
    return checked
`,
    },
  },
  "stats.mean": {
    tests: py`
import pytest

from statkit.stats.descriptive import mean


def test_mean_example():
    assert mean([1, 2, 3, 4]) == 2.5


def test_mean_single_value():
    assert mean([7]) == 7.0


def test_mean_negative_and_fractional():
    assert mean([-1.5, 1.5, 3.0]) == pytest.approx(1.0)


def test_mean_rejects_empty():
    with pytest.raises(ValueError):
        mean([])


def test_mean_rejects_non_numbers():
    with pytest.raises(TypeError):
        mean(["a"])
`,
    implementation: {
      imports: ["from statkit.validation import ensure_numbers"],
      notes: "Validate, then sum over count.",
      code: py`
def mean(values: list[float]) -> float:
    """Arithmetic mean of the values."""
    numbers = ensure_numbers(values)
    return sum(numbers) / len(numbers)
`,
    },
  },
  "stats.median": {
    tests: py`
import pytest

from statkit.stats.descriptive import median


def test_median_odd_count():
    assert median([3, 1, 2]) == 2.0


def test_median_even_count():
    assert median([4, 1, 3, 2]) == 2.5


def test_median_does_not_modify_its_input():
    values = [3, 1, 2]
    median(values)
    assert values == [3, 1, 2]


def test_median_rejects_empty():
    with pytest.raises(ValueError):
        median([])
`,
    implementation: {
      imports: ["from statkit.validation import ensure_numbers"],
      notes: "Take the middle element, or the mean of the two middle elements.",
      code: py`
def median(values: list[float]) -> float:
    """Median of the values."""
    numbers = ensure_numbers(values)
    middle = len(numbers) // 2
    if len(numbers) % 2:
        return numbers[middle]
    return (numbers[middle - 1] + numbers[middle]) / 2
`,
    },
    fixes: [
      {
        imports: ["from statkit.validation import ensure_numbers"],
        explanation: "The values were not sorted before taking the middle; sorted() also leaves the input unchanged.",
        code: py`
def median(values: list[float]) -> float:
    """Median of the values."""
    numbers = sorted(ensure_numbers(values))
    middle = len(numbers) // 2
    if len(numbers) % 2:
        return numbers[middle]
    return (numbers[middle - 1] + numbers[middle]) / 2
`,
      },
    ],
    votes: [
      ...votes(
        "implementation_bug",
        "The median of [3, 1, 2] is 2; the code takes the middle of the unsorted list.",
        "The values are never sorted, so the middle element is not the median.",
        "test_median_odd_count expects the docstring's median; the code does not sort.",
        "Sorting is missing; the tests agree with the docstring.",
      ).slice(0, 4),
      { verdict: "test_issue", reason: "The docstring does not say whether the input may be sorted in place." },
    ],
  },
  "stats.mode": {
    tests: py`
import pytest

from statkit.stats.descriptive import mode


def test_mode_most_common_value():
    assert mode([1, 2, 2, 3]) == 2.0


def test_mode_ties_go_to_the_smallest():
    assert mode([1, 2, 2, 3, 3]) == 2.0
    assert mode([5, 4]) == 4.0


def test_mode_rejects_empty():
    with pytest.raises(ValueError):
        mode([])
`,
    implementation: {
      imports: ["from statkit.validation import ensure_numbers"],
      notes: "Count occurrences; the smallest of the most common wins.",
      code: py`
def mode(values: list[float]) -> float:
    """Most common value; ties go to the smallest."""
    numbers = ensure_numbers(values)
    counts: dict[float, int] = {}
    for number in numbers:
        counts[number] = counts.get(number, 0) + 1
    highest = max(counts.values())
    return min(number for number, count in counts.items() if count == highest)
`,
    },
  },
  "stats.percentile": {
    tests: py`
import pytest

from statkit.stats.descriptive import percentile


def test_percentile_example():
    assert percentile([1, 2, 3, 4], 25) == pytest.approx(1.75)


def test_percentile_bounds_and_median():
    values = [4, 1, 3, 2]
    assert percentile(values, 0) == 1.0
    assert percentile(values, 100) == 4.0
    assert percentile(values, 50) == pytest.approx(2.5)


def test_percentile_single_value():
    assert percentile([5], 90) == 5.0


@pytest.mark.parametrize("p", [-1, 100.5])
def test_percentile_rejects_p_out_of_range(p):
    with pytest.raises(ValueError):
        percentile([1, 2], p)
`,
    implementation: {
      imports: ["import math", "from statkit.validation import ensure_numbers"],
      notes: "Linear interpolation between closest ranks, as numpy's default.",
      code: py`
def percentile(values: list[float], p: float) -> float:
    """The p-th percentile by linear interpolation between closest ranks."""
    if not 0 <= p <= 100:
        raise ValueError(f"p must be between 0 and 100, got {p}")
    numbers = sorted(ensure_numbers(values))
    rank = (len(numbers) - 1) * p / 100
    lower, upper = math.floor(rank), math.ceil(rank)
    return numbers[lower] + (numbers[upper] - numbers[lower]) * (rank - lower)
`,
    },
  },
  "stats.variance": {
    tests: py`
import pytest

from statkit.stats.spread import variance


def test_variance_population_example():
    assert variance([2, 4, 4, 4, 5, 5, 7, 9]) == pytest.approx(4.0)


def test_variance_sample():
    assert variance([2, 4, 4, 4, 5, 5, 7, 9], sample=True) == pytest.approx(32 / 7)


def test_variance_single_value_is_zero():
    assert variance([3]) == 0.0


def test_variance_sample_needs_two_values():
    with pytest.raises(ValueError):
        variance([3], sample=True)


def test_variance_rejects_empty():
    with pytest.raises(ValueError):
        variance([])
`,
    implementation: {
      imports: ["from statkit.stats.descriptive import mean"],
      notes: "Mean squared deviation.",
      code: py`
def variance(values: list[float], sample: bool = False) -> float:
    """Variance of the values."""
    center = mean(values)
    return sum((float(x) - center) ** 2 for x in values) / (len(values) - 1)
`,
    },
    fixes: [
      {
        imports: ["from statkit.stats.descriptive import mean"],
        explanation: "Divided by n - 1 always; population variance divides by n, and sample variance needs two values.",
        code: py`
def variance(values: list[float], sample: bool = False) -> float:
    """Variance of the values: population (divide by n) or sample (divide by n - 1)."""
    center = mean(values)  # also validates the values
    if sample and len(values) < 2:
        raise ValueError("sample variance needs at least two values")
    squares = sum((float(x) - center) ** 2 for x in values)
    return squares / (len(values) - 1 if sample else len(values))
`,
      },
    ],
    votes: votes(
      "implementation_bug",
      "Population variance divides by n, as the docstring's example (4.0) shows; the code divides by n - 1.",
      "The sample flag is ignored: the code always divides by n - 1.",
    ),
  },
  "stats.std_dev": {
    tests: py`
import math

import pytest

from statkit.stats.spread import std_dev


def test_std_dev_population_example():
    assert std_dev([2, 4, 4, 4, 5, 5, 7, 9]) == pytest.approx(2.0)


def test_std_dev_sample():
    assert std_dev([2, 4, 4, 4, 5, 5, 7, 9], sample=True) == pytest.approx(math.sqrt(32 / 7))


def test_std_dev_equal_values_is_zero():
    assert std_dev([5, 5]) == 0.0


def test_std_dev_rejects_empty():
    with pytest.raises(ValueError):
        std_dev([])
`,
    implementation: {
      imports: ["import math"],
      notes: "Square root of the variance.",
      code: py`
def std_dev(values: list[float], sample: bool = False) -> float:
    """Standard deviation: the square root of variance(values, sample)."""
    return math.sqrt(variance(values, sample))
`,
    },
  },
  "stats.z_scores": {
    tests: py`
import pytest

from statkit.stats.spread import z_scores


def test_z_scores_example():
    assert z_scores([1, 3]) == pytest.approx([-1.0, 1.0])


def test_z_scores_equal_values_are_zero():
    assert z_scores([5, 5, 5]) == [0.0, 0.0, 0.0]


def test_z_scores_keep_order_and_length():
    scores = z_scores([10, 0, 5])
    assert len(scores) == 3
    assert scores[0] > scores[2] > scores[1]


def test_z_scores_rejects_empty():
    with pytest.raises(ValueError):
        z_scores([])
`,
    implementation: {
      imports: ["from statkit.stats.descriptive import mean"],
      notes: "Centre and scale by the population standard deviation; all-equal values give zeros.",
      code: py`
def z_scores(values: list[float]) -> list[float]:
    """Standard scores of the values."""
    center = mean(values)
    spread = std_dev(values)
    if spread == 0:
        return [0.0 for _ in values]
    return [(float(x) - center) / spread for x in values]
`,
    },
  },
  "report.format_number": {
    tests: py`
import pytest

from statkit.report.format import format_number


def test_format_number_examples():
    assert format_number(2.5) == "2.5"
    assert format_number(3.14159, 3) == "3.142"
    assert format_number(2.0) == "2"


def test_format_number_zero_digits():
    assert format_number(2.6, 0) == "3"


def test_format_number_negative_zero_is_zero():
    assert format_number(-0.001) == "0"


def test_format_number_rejects_negative_digits():
    with pytest.raises(ValueError):
        format_number(1.0, -1)
`,
    implementation: { imports: [], notes: "Fixed-point formatting, then trailing zeros and point removed.", code: FORMAT_NUMBER_TRIES[0]! },
    fixes: [1, 2, 0, 1, 2, 0, 1, 2].map((i, n) => ({
      imports: [],
      explanation: [
        "Round before formatting so the sign follows the rounded value.",
        "Treat zero specially so that it prints without a sign.",
        "Go back to plain formatting; the rounding was not the cause.",
        "Round first again, with the same trailing-zero handling.",
        "Normalise zero before formatting.",
        "Plain formatting with rstrip.",
        "Round, then format.",
        "Zero check before formatting.",
      ][n]!,
      code: FORMAT_NUMBER_TRIES[i]!,
    })),
    votes: [
      ...votes("implementation_bug", "The docstring says -0 is shown as 0; the test checks exactly that, and the code still prints -0."),
      ...votes(
        "implementation_bug",
        "format_number(-0.001) rounds to -0.00, and the sign survives the trailing-zero removal.",
        "The test of negative zero follows the docstring; no fix so far normalises the rounded value.",
      ),
    ],
  },
  "report.summarize": {
    tests: py`
import pytest

from statkit.report.summary import summarize


def test_summarize_keys_and_values():
    summary = summarize([1, 2, 3])
    assert list(summary) == ["count", "min", "max", "mean", "median", "std_dev"]
    assert summary["count"] == 3.0
    assert summary["min"] == 1.0
    assert summary["max"] == 3.0
    assert summary["mean"] == 2.0
    assert summary["median"] == 2.0
    assert summary["std_dev"] == pytest.approx(0.816496580927726)


def test_summarize_rejects_empty():
    with pytest.raises(ValueError):
        summarize([])
`,
    implementation: {
      imports: ["from statkit.stats.descriptive import mean, median", "from statkit.stats.spread import std_dev"],
      notes: "mean() validates first; the rest reuse the statistics.",
      code: py`
def summarize(values: list[float]) -> dict[str, float]:
    """Summary statistics of the values."""
    average = mean(values)  # validates before min() and max() see the values
    return {
        "count": float(len(values)),
        "min": float(min(values)),
        "max": float(max(values)),
        "mean": average,
        "median": median(values),
        "std_dev": std_dev(values),
    }
`,
    },
  },
};
