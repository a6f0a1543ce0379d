"""The mutation class: realistic mistakes a learner who read the page could make, each written as
the course's solution with one change, must lose points in the HIDDEN test of its task (the visible
tests are advice a learner can fool), and only in that task. Each mistake is graded in-process,
where the graders run the same code as in the grading worker (the comparison is on the trusted
side either way); a representative few also run in the grading worker (:class:`Sandbox`), and
how-checks measured from outside the worker run there, as they must."""

from __future__ import annotations

import contextlib
import functools
import importlib
import os
import re
import sys
from runpy import run_module

import pytest

from bpe_ref.course.notebooks import read_notebook_json, solution_namespace, source_notebook
from bpe_ref.course.trusted.autograde import lab_policy
from bpe_ref.course.trusted.sandbox import Policy, RemoteFunction, Sandbox
from sampling import EXHAUSTIVE, drawn, sample_seed, skip_unless_drawn

# Most of these grade a mistake with a lab's hidden test, many in a grading worker: seconds each, so marked
# slow, which schedules them early under xdist (tests/conftest.py).
pytestmark = [pytest.mark.filterwarnings("ignore:'bpe_ref.course.checks.fresh' found in sys.modules:RuntimeWarning"),
              pytest.mark.slow]

# ---- under which secret seeds -------------------------------------------------------------------
# A hidden test draws its inputs from the grading's secret seed: a mistake caught under one seed slips through
# under another when the strategy reaches its distinguishing inputs rarely. Each mistake is graded with the learner
# kernel's derandomized draw (None), and those marked ``seeded`` (fast ones, whose inputs come from a strategy) under
# the secret seeds of SEEDED too: by default under one of SEEDED, the derandomized draw or a secret seed, each mistake
# its own, drawn from the run's sample seed (sampling.drawn: spread over the mistakes, other ones on other runs), so
# that a seeded mistake is graded once a run; BPE_EXHAUSTIVE=1 grades them under every seed of SEEDED. ``BPE_SEEDS=K`` (or ``START:STOP``, a
# range) grades every mistake under the secret seeds range(K) instead: ``python tests/seeds_table.py`` does, and prints
# under how many each was caught.
SEEDS = os.environ.get("BPE_SEEDS")
SEEDED = (None, 1, 2, 3)
GRADED: list[str] = []  # the graders a test graded its mistake with (the table's task column)

# ---- the costly twins of a measured mistake, on demand -------------------------------------------
# A measured mistake (a wrong method whose cost is measured from outside the learner's code, seconds of CPU at its first
# verdict) is graded by default by its hidden test in process. Its twins run under BPE_EXHAUSTIVE=1 only (CONTRIBUTING.md):
# - the visible test, where it runs the hidden test's measured check again on inputs of its own (``MEASURED_VISIBLE_TOO``);
# - the same mistake graded again in a grading worker (``WORKER_TWIN``), where another mistake of its kind shows the
#   worker's measurement by default: a trainer's cost by lab 02's trainer without its filter, an encoder's by labs 07
#   and 08, a forged count by lab 05's entries for every pair.
MEASURED_VISIBLE_TOO = EXHAUSTIVE
WORKER_TWIN = pytest.mark.skipif(not EXHAUSTIVE, reason="a measured mistake's twin in the grading worker: its hidden test grades "
                                 "it in process, and another of its kind in the worker; BPE_EXHAUSTIVE=1 grades it here too")


def pytest_generate_tests(metafunc):
    seeds = range(*map(int, SEEDS.split(":"))) if SEEDS else SEEDED if metafunc.definition.get_closest_marker("seeded") else ()
    if seeds:
        metafunc.parametrize("secret_seed", list(seeds), indirect=True, ids=lambda seed: f"seed{seed}")


def default_seed(nodeid: str) -> str:
    """The seed of SEEDED (``seedNone``, the derandomized draw, or a secret one) a seeded mistake (its test and
    parameters) is graded under by default, drawn from the run's sample seed."""
    family = re.sub(r"\[seed(?:None|\d+)\]$|(?<=\[)seed(?:None|\d+)-|-seed(?:None|\d+)(?=\])", "", nodeid)
    return drawn(family, [f"seed{seed}" for seed in SEEDED])


@pytest.fixture(autouse=True)
def secret_seed(request):
    """The test's hidden inputs drawn from its seed, in every copy of the graders loaded (the labs' private
    copies, and the one remote grading imports)."""
    import bpe_ref.course.trusted.verdicts  # noqa: F401  (the copy remote grading uses, loaded)

    seed = getattr(request, "param", None)
    if hasattr(request, "param") and not (SEEDS or EXHAUSTIVE) and f"seed{seed}" != default_seed(request.node.nodeid):
        pytest.skip(f"a seeded mistake is graded under one seed of {SEEDED} by default (this run's: "
                    f"{default_seed(request.node.nodeid)}, BPE_SAMPLE_SEED={sample_seed()}); BPE_EXHAUSTIVE=1 grades it "
                    "under every one")
    GRADED.clear()
    forget_answers()
    with seeded_everywhere(seed):
        yield
    request.node.user_properties.append(("graders", tuple(dict.fromkeys(GRADED))))


def forget_answers() -> None:
    """Each test grades its mistake as a notebook of its own: no task's answer of an earlier test is the call before
    (``running._ANSWERED``, whose owner is None for every function graded in process; a notebook's grading worker is
    its own), or a mistake graded again in the process is told it keeps its answers from call to call (lab 04's
    index-keys-share-one-set, graded under a second seed, got that hint instead of its own)."""
    for name, module in list(sys.modules.items()):
        if name.endswith("course.checks.running"):
            module._ANSWERED.clear()


SEEDING: list[tuple[int | None, contextlib.ExitStack, set]] = []  # seeded_everywhere's active seeds, the innermost last


@contextlib.contextmanager
def seeded_everywhere(seed: int | None):
    """Hidden inputs drawn from ``seed`` in every copy of the graders loaded so far, and in every copy
    :func:`load_graders` loads meanwhile (a lab's fixture first asked for in a test's body, by ``request.getfixturevalue``:
    its copy would otherwise draw the derandomized inputs, so a test's verdict would depend on whether an earlier test of
    the process had loaded the lab)."""
    with contextlib.ExitStack() as seeded:
        SEEDING.append((seed, seeded, set()))
        try:
            seed_new_copies()
            yield
        finally:
            SEEDING.pop()


def seed_new_copies() -> None:
    """Enter each active seed, outermost first, in each copy of the graders loaded since it was entered (so that leaving
    an inner seed gives a copy the outer one again)."""
    for seed, seeded, done in SEEDING:
        for name, module in list(sys.modules.items()):
            if name.endswith("course.trusted.verdicts") and name not in done:
                done.add(name)
                seeded.enter_context(module.hidden_seed(seed))


def load_graders(lab: str):
    graders = run_module("bpe_ref.course.checks.fresh")["graders"](lab)
    seed_new_copies()
    return graders


def failure(grader, *functions) -> str:
    GRADED.append(grader.__name__)
    with pytest.raises(AssertionError) as failed:
        grader(*functions)
    return str(failed.value)


def source_of(lab: str, cell_id: str) -> str:
    cells = read_notebook_json(source_notebook(lab))["cells"]
    return next(cell["source"] for cell in cells if cell["id"] == cell_id)


def defined(namespace: dict, source: str, name: str):
    """``name`` as a notebook cell of ``source`` defines it, next to the notebook's other names (a ``%%writefile``
    cell's code as the module it writes, a file imported under a name of its own: lab 03's count_chunk, which worker
    processes import by its module's name, and whose driver runs its module's file)."""
    if source.startswith("%%writefile "):
        import importlib.util

        from bpe_ref.course.notebooks import _solution_modules_folder

        header, source = source.split("\n", 1)
        module = f"{header.split()[1].removesuffix('.py')}_variant_{len(WRITTEN)}"
        WRITTEN.append(_solution_modules_folder() / f"{module}.py")
        WRITTEN[-1].write_text(source, encoding="utf-8")
        spec = importlib.util.spec_from_file_location(module, WRITTEN[-1])
        sys.modules[module] = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(sys.modules[module])
        return getattr(sys.modules[module], name)
    namespace = dict(namespace)
    exec(source, namespace)
    return namespace[name]


WRITTEN: list = []  # the modules defined() wrote, each a file of its own


def variant(lab: str, namespace: dict, cell_id: str, name: str, old: str, new: str):
    """The course's solution of ``name`` with ``old`` replaced by ``new``: a learner's mistake."""
    source = source_of(lab, cell_id)
    assert old in source, old
    return defined(namespace, source.replace(old, new), name)


def remote(lab: str, code: str, name: str, grader, **policy) -> str | None:
    """Run ``code`` in a grading worker of the lab's policy and grade its ``name`` there with the
    grader named ``grader`` (or ``grader(graders, function)``), as ``grade`` does (the graders
    imported, not a private copy): the failure message, or ``None`` when the grader passes."""
    graders = importlib.import_module(f"bpe_ref.course.checks.lab{lab}")
    GRADED.append(grader if isinstance(grader, str) else grader.__name__)
    with Sandbox(replace_policy(lab_policy(graders, Policy()), **policy)) as box:
        run = box.run_cell(code, "mistake")
        assert run.ok, run.error
        try:
            if callable(grader):
                grader(graders, RemoteFunction(box, name))
            else:
                getattr(graders, grader)(RemoteFunction(box, name))
        except AssertionError as failed:
            return str(failed)
    return None


def replace_policy(policy: Policy, **changes) -> Policy:
    from dataclasses import replace

    return replace(policy, **changes)


# ---- lab 02, measured from outside: a trainer that recounts the pairs on each merge ------------------


@pytest.fixture(scope="module")
def lab02():
    return load_graders("02_incremental"), solution_namespace("02_incremental")


V2_PICK = "        pair = best_pair(pair_counts)\n"
RECOUNTS = [
    # V1 handed in as V2: the setup cell's trainer, which recounts every pair on each merge.
    "def train(pretoken_counts, num_merges):\n    return train_naive(pretoken_counts, num_merges)\n",
    # V2's updates, and a recount on each merge anyway ("to be safe"), whose counts it then uses.
    None,
]


def recounting_train(solutions: dict, source: str | None):
    if source is not None:
        return defined(solutions, source, "train")
    return variant("02_incremental", solutions, "task3_train_solution", "train", V2_PICK,
                   "        pair_counts = count_pairs(dict(zip(words, frequencies)))\n" + V2_PICK)


def test_lab02_a_trainer_that_recounts_on_each_merge_fails_the_hidden_test(lab02, at_the_first_verdict):
    graders, solutions = lab02
    mistake = recounting_train(solutions, RECOUNTS[1])
    with at_the_first_verdict():
        message = failure(graders.check_train_properties, mistake)
    assert "measured from outside your code" in message and "V1" in message
    graders.verify_incremental_updates(solutions["train"])  # and V2 itself passes


@WORKER_TWIN
def test_lab02_a_trainer_that_recounts_on_each_merge_fails_in_the_worker_too(at_the_first_verdict):
    setup = "\n".join(source_of("02_incremental", cell) for cell in (
        "setup", "task1_pair_count_changes_solution", "task2_merge_and_update_solution"))
    with at_the_first_verdict():
        message = remote("02_incremental", setup + "\n" + RECOUNTS[0], "train", "check_train_properties")
    assert message is not None and "measured from outside your code" in message
    honest = setup + "\n" + source_of("02_incremental", "task3_train_solution")
    assert remote("02_incremental", honest, "train", "verify_incremental_updates") is None


# V2 without its filter: merge_and_update on every word, which gives a word without the pair back unchanged.
# The merges are right, and the reference's merge_and_update returns such a word at once; while task 3's time
# is measured, merge_and_update is page 02's rule with no shortcut (a pass over the word's windows).
V2_FILTER = ("            if left in word and right in word:  # cheap filter before the real merge\n"
             "                words[i] = merge_and_update(word, pair, frequencies[i], pair_counts)\n")
NO_FILTER = "            words[i] = merge_and_update(word, pair, frequencies[i], pair_counts)  # unchanged if it lacks the pair\n"
TOY_FILTER = ("            if pair in zip(word, word[1:]):  # the filter of page 02's five-minute version\n"
              "                words[i] = merge_and_update(word, pair, frequencies[i], pair_counts)\n")


def test_lab02_a_trainer_without_the_filter_fails_the_hidden_test_and_the_visible_one(lab02, at_the_first_verdict):
    """Behind a cache of its answers too (tests/test_checks_labs.py's, kept from the hidden test to the visible one as a
    notebook keeps it): each measured call gets an input no call has seen, so the cache saves the wrong method nothing.
    The visible test runs the same measured check (verify_incremental_updates, about 13 s of CPU at its first verdict)
    on inputs of its own: under BPE_EXHAUSTIVE=1 only; by default the hidden test's two tries already get an input
    each (tests/test_checks_core.py checks that every try of every measured check gets its own index)."""
    from test_checks_labs import _cached

    graders, solutions = lab02
    mistake = _cached(variant("02_incremental", solutions, "task3_train_solution", "train", V2_FILTER, NO_FILTER))
    graders.check_train_merges(mistake)  # its merges are right
    for check in (graders.check_train_properties, graders.check_train) if MEASURED_VISIBLE_TOO else (graders.check_train_properties,):
        with at_the_first_verdict():
            message = failure(check, mistake)
        assert ("measured from outside your code" in message or "did not finish" in message) and \
            "calling merge_and_update on every word" in message, message


def test_lab02_the_filter_of_page_02s_toy_passes(lab02):
    graders, solutions = lab02
    graders.verify_incremental_updates(variant("02_incremental", solutions, "task3_train_solution", "train", V2_FILTER,
                                               TOY_FILTER))


def test_lab02_a_trainer_without_the_filter_fails_in_the_worker_too(at_the_first_verdict):
    setup = "\n".join(source_of("02_incremental", cell) for cell in (
        "setup", "task1_pair_count_changes_solution", "task2_merge_and_update_solution"))
    train = source_of("02_incremental", "task3_train_solution")
    assert V2_FILTER in train
    with at_the_first_verdict():
        message = remote("02_incremental", setup + "\n" + train.replace(V2_FILTER, NO_FILTER), "train",
                         "verify_incremental_updates")
    assert message is not None and ("measured from outside your code" in message or "did not finish" in message), message


# V2 whose filter tests one token of the pair: the words it lets through hold the pair or not, merge_and_update gives
# those without it back unchanged, so the merges are right; but it updates every word that holds the token. The
# measured corpus holds such words (lab02_incremental.few_changes_corpus: half its words hold every left token, the
# other half every right one, none both), so each merge costs a pass over half the corpus's windows.
ONE_SIDED = {
    "left-in-word": "            if left in word:  # the words the pair starts in\n",
    "right-in-word": "            if pair[1] in word:  # the words the pair ends in\n",
    "left-or-right-in-word": "            if left in word or right in word:  # any word the pair touches\n",
    "left-token-count": "            if word.count(pair[0]) > 0:  # the words that hold the pair's first token\n",
}
UPDATE = "                words[i] = merge_and_update(word, pair, frequencies[i], pair_counts)\n"


def one_sided(test: str) -> str:
    return ONE_SIDED[test] + UPDATE


@pytest.mark.parametrize("test", list(ONE_SIDED))
def test_lab02_a_trainer_whose_filter_tests_one_token_fails_the_hidden_test(lab02, test, at_the_first_verdict):
    # One spelling a run by default (5-11 s of CPU each, measured): sampling.skip_unless_drawn.
    skip_unless_drawn("lab 02, a filter that tests one token of the pair", test, ONE_SIDED)
    graders, solutions = lab02
    mistake = variant("02_incremental", solutions, "task3_train_solution", "train", V2_FILTER, one_sided(test))
    with at_the_first_verdict():
        message = failure(graders.check_train_properties, mistake)
    assert "measured from outside your code" in message and "one token of the pair" in message, message


def test_lab02_a_trainer_whose_filter_tests_one_token_fails_in_the_worker_too(at_the_first_verdict):
    setup = "\n".join(source_of("02_incremental", cell) for cell in (
        "setup", "task1_pair_count_changes_solution", "task2_merge_and_update_solution"))
    train = source_of("02_incremental", "task3_train_solution")
    assert V2_FILTER in train
    train = train.replace(V2_FILTER, one_sided("left-in-word"))
    with at_the_first_verdict():
        message = remote("02_incremental", setup + "\n" + train, "train", "check_train_properties")
    assert message is not None and "measured from outside your code" in message and "one token of the pair" in message, \
        message


# ---- lab 03 ----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def lab03():
    return load_graders("03_parallel"), solution_namespace("03_parallel")


MERGE_INTO_FIRST = """
def merge_counts(counts):
    chunks = list(counts)  # read once: task 4 hands over pool.map's iterator
    if not chunks:
        return {}
    total = chunks[0]  # the first chunk's dict, updated in place: the caller's counts change
    for chunk in chunks[1:]:
        for pretoken, count in chunk.items():
            total[pretoken] = total.get(pretoken, 0) + count
    return total
"""


def test_lab03_merge_counts_that_adds_into_its_input_fails_the_hidden_test(lab03):
    graders, solutions = lab03
    mistake = defined(solutions, MERGE_INTO_FIRST, "merge_counts")
    message = failure(graders.check_merge_counts_properties, mistake)
    assert "changed its argument counts" in message and "to leave as it is" in message
    assert "changed its argument counts" in failure(graders.check_merge_counts, mistake)


def test_lab03_merge_counts_that_adds_into_its_input_fails_in_the_worker_too():
    assert "changed its argument counts" in remote("03_parallel", MERGE_INTO_FIRST, "merge_counts",
                                                   "check_merge_counts_properties")


# ---- lab 05 ----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def lab05():
    return load_graders("05_heap"), solution_namespace("05_heap")


@pytest.mark.parametrize("old, new", [
    ("count = pair_counts.get(pair, 0)", "count = pair_counts.setdefault(pair, 0)"),  # files a 0 for a gone pair
    ("            return pair, stale_pops", "            del pair_counts[pair]  # it is merged now\n            return pair, stale_pops"),
])
def test_lab05_pop_best_that_changes_pair_counts_fails_the_hidden_test(lab05, old, new):
    graders, solutions = lab05
    mistake = variant("05_heap", solutions, "task2_pop_best_solution", "pop_best", old, new)
    assert "changed its argument pair_counts" in failure(graders.check_pop_best_properties, mistake)


# The page's pitfall "a short token found late in the window": the whole window (buffer and overlap)
# is searched, so a short token inside a long one that the window cuts off is taken.
@pytest.mark.seeded
def test_lab03_a_search_of_the_whole_window_fails_the_hidden_test(lab03):
    graders, solutions = lab03
    mistake = variant("03_parallel", solutions, "task1_find_chunk_boundaries_solution", "find_chunk_boundaries",
                      "window.find(t, 0, buffer_size + len(t) - 1)", "window.find(t)")
    # The hidden test's part that finds it (its first part, the un-nested files, passes), called alone.
    def check_nested_boundaries(learner):
        graders.check_property(graders.FIND_TASK, learner, graders.first_occurrence_boundaries,
                               graders.nested_boundaries_inputs(), max_examples=100)

    assert "smallest failing input" in failure(check_nested_boundaries, mistake)


# ---- lab 04 ----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def lab04():
    return load_graders("04_inverted_index"), solution_namespace("04_inverted_index")


@pytest.mark.parametrize("old, new, error", [
    ("defaultdict(set)\n", "{}\n", "KeyError"),  # filled with setdefault: a plain dict comes back
    ("defaultdict(set)\n", "defaultdict(list)\n", "AttributeError"),
])
def test_lab04_an_index_that_is_not_a_defaultdict_of_sets_fails_both_tests(lab04, old, new, error):
    graders, solutions = lab04
    source = source_of("04_inverted_index", "task1_index_words_solution")
    add = "index[pair].add(i)" if new == "{}\n" else None
    if add:
        assert add in source
        source = source.replace(add, "index.setdefault(pair, set()).add(i)")
    else:
        source = source.replace("index[pair].add(i)", "index[pair].append(i) if i not in index[pair] else None")
    mistake = defined(solutions, source.replace(old, new), "index_words")
    visible = failure(graders.check_index_words, mistake)
    hidden = failure(graders.check_index_words_properties, mistake)
    if error == "KeyError":  # a list of ids fails the cases already (the ids are a set)
        for message in (visible, hidden):
            assert "raised KeyError" in message and "defaultdict(set)" in message


def test_lab04_a_plain_dict_index_fails_in_the_worker_too():
    code = ("def index_words(words):\n    index = {}\n    for i, word in enumerate(words):\n"
            "        for pair in zip(word, word[1:]):\n            index.setdefault(pair, set()).add(i)\n    return index\n")
    assert "raised KeyError" in remote("04_inverted_index", code, "index_words", "check_index_words_properties")
    assert "raised KeyError" in remote("04_inverted_index", code, "index_words", "check_index_words")


# ---- lab 06 ----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def lab06():
    return load_graders("06_encode_decode"), solution_namespace("06_encode_decode")


ONE_TOKEN_AT_A_TIME = """
def encode_text(text, ranks, special_tokens):
    pieces = [(text, False)]
    for token in sorted(special_tokens, key=len, reverse=True):  # longest first, one token at a time
        split = []
        for piece, special in pieces:
            if special:
                split.append((piece, True))
                continue
            parts = piece.split(token)
            for k, part in enumerate(parts):
                if k:
                    split.append((token, True))
                split.append((part, False))
        pieces = split
    tokens = []
    for piece, special in pieces:
        if special:
            tokens.append(piece.encode("utf-8"))
        else:
            for pretoken in regex.findall(GPT2_PATTERN, piece):
                tokens += encode_pretoken(pretoken.encode("utf-8"), ranks)
    return tokens
"""


@pytest.mark.parametrize("order", ["sorted(special_tokens, key=len, reverse=True)", "special_tokens"])
def test_lab06_special_tokens_split_one_at_a_time_fail_the_hidden_test(lab06, order):
    graders, solutions = lab06
    source = ONE_TOKEN_AT_A_TIME.replace("sorted(special_tokens, key=len, reverse=True)", order)
    mistake = defined(solutions, source, "encode_text")
    assert "where they differ" in failure(graders.check_encode_text_properties, mistake)


# ---- lab 07 ----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def lab07():
    return load_graders("07_heap_encoding"), solution_namespace("07_heap_encoding")


@pytest.mark.parametrize("threshold", [4, 16])
def test_lab07_the_naive_way_for_short_pretokens_fails_the_hidden_test(lab07, threshold):
    graders, solutions = lab07
    mistake = variant("07_heap_encoding", solutions, "task3_heap_encode_solution", "heap_encode",
                      "    parts = list(split_into_bytes(pretoken))\n",
                      f"    if len(pretoken) <= {threshold}:  # quicker on short pieces\n"
                      "        return encode_pretoken(pretoken, ranks)\n    parts = list(split_into_bytes(pretoken))\n")
    # Forced by the input, not by a count of calls: merges reordered by hand, on which lab 06's rounds differ.
    for grader in (graders.check_heap_encode, graders.check_heap_encode_properties):
        message = failure(grader, mistake)
        assert "these are lab 06's tokens" in message and "short ones too" in message, message


# The page's pitfall "Rescanning for the best pair" says it is fine below about a hundred bytes (tiktoken's
# loop for short pieces): merge_all that rescans the parts for short pieces and pops the heap only for long
# ones gives the same tokens whenever the heap it receives is complete, so the long run alone cannot tell.
RESCAN_SHORT = ("    parts = list(parts)\n"
                "    if len(parts) < 100:  # short pieces: rescan for the best pair, as tiktoken does\n"
                "        while True:\n"
                "            found = [(ranks[pair], i) for i, pair in enumerate(zip(parts, parts[1:])) if pair in ranks]\n"
                "            if not found:\n"
                "                return parts\n"
                "            _, i = min(found)\n"
                "            parts[i:i + 2] = [parts[i] + parts[i + 1]]\n")


def test_lab07_a_pop_loop_that_rescans_short_pieces_fails_the_hidden_test(lab07):
    graders, solutions = lab07
    mistake = variant("07_heap_encoding", solutions, "task2_merge_all_solution", "merge_all", "    parts = list(parts)\n",
                      RESCAN_SHORT)
    message = failure(graders.check_merge_all_properties, mistake)
    assert "smallest failing input" in message and "the heap given lacks some entries" in message, message
    graders.check_merge_all_properties(solutions["merge_all"])  # and the pop loop itself passes


def test_lab07_a_pop_loop_that_rescans_short_pieces_costs_task_2_only_in_the_worker():
    code = "\n".join(source_of("07_heap_encoding", cell) for cell in ("setup", "task1_first_heap_solution"))
    merge_all = source_of("07_heap_encoding", "task2_merge_all_solution").replace("    parts = list(parts)\n", RESCAN_SHORT)
    code += "\n" + merge_all + "\n" + source_of("07_heap_encoding", "task3_heap_encode_solution")
    message = remote("07_heap_encoding", code, "merge_all", "check_merge_all_properties")
    assert message is not None and "the heap given lacks some entries" in message, message
    assert remote("07_heap_encoding", code, "heap_encode", "check_heap_encode_properties") is None  # task 3 keeps its points


# Step 06's rounds, with first_heap and merge_all called for show (the calls were once counted by the
# worker itself: one call of each passed).
NAIVE_WITH_CALLS = ("def heap_encode(pretoken, ranks):\n"
                    "    parts = list(split_into_bytes(pretoken))\n"
                    "    merge_all(parts[:2], ranks, first_heap(parts[:2], ranks))  # called once each, as asked\n"
                    "    return encode_pretoken(pretoken, ranks)  # the same tokens, by step 06's rounds\n")


def test_lab07_step_06s_rounds_with_the_calls_made_for_show_fail_the_hidden_test(lab07):
    graders, solutions = lab07
    message = failure(graders.check_heap_encode_properties, defined(solutions, NAIVE_WITH_CALLS, "heap_encode"))
    assert "O(L²)" in message and ("measured from outside your code" in message or "did not finish" in message)
    graders.verify_heap_cost(solutions["heap_encode"])  # and the heap encoder itself passes


def test_lab07_step_06s_rounds_with_the_calls_made_for_show_fail_in_the_worker_too():
    code = "\n".join(source_of("07_heap_encoding", cell) for cell in (
        "setup", "task1_first_heap_solution", "task2_merge_all_solution"))
    message = remote("07_heap_encoding", code + "\n" + NAIVE_WITH_CALLS, "heap_encode", "verify_heap_cost")
    assert message is not None and ("measured from outside your code" in message or "did not finish" in message)
    honest = code + "\n" + source_of("07_heap_encoding", "task3_heap_encode_solution")
    assert remote("07_heap_encoding", honest, "heap_encode", "verify_heap_cost") is None


# ---- lab 08 ----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def lab08():
    return load_graders("08_linear_encoding"), solution_namespace("08_linear_encoding")


VALID_FILTER = "    valid |= {left + right for left, right in ranks if encode_pretoken(left + right, ranks) == [left + right]}\n"
EVERY_TOKEN = "    valid |= {left + right for left, right in ranks}  # every token of the vocabulary\n"


@pytest.mark.parametrize("cell, name", [("task2_backtrack_encode_solution", "backtrack_encode"),
                                        ("task3_last_tokens_solution", "last_tokens")])
def test_lab08_invalid_tokens_taken_as_candidates_fail_the_hidden_test(lab08, cell, name):
    graders, solutions = lab08
    mistake = variant("08_linear_encoding", solutions, cell, name, VALID_FILTER, EVERY_TOKEN)
    # the hidden case of abc under (b, c) before (a, b) catches it (abc is made by a merge, yet invalid there), with
    # the hint of invalid tokens first (a cache by the set of merges gives the same tokens: named after it)
    message = failure(getattr(graders, f"check_{name}_properties"), mistake)
    assert "does not encode to itself" in message.split("or else, if you keep")[0], message


def test_lab08_a_compatible_that_only_checks_the_first_token_fails_the_hidden_test(lab08):
    graders, solutions = lab08
    mistake = variant("08_linear_encoding", solutions, "task1_compatible_solution", "compatible",
                      "return encode_pretoken(left + right, ranks) == [left, right]",
                      "return (left, right) not in ranks and encode_pretoken(left + right, ranks)[:1] == [left]")
    assert "smallest failing input" in failure(graders.check_compatible_properties, mistake)


def test_lab08_an_off_by_one_window_loses_task_3s_hidden_points_with_its_hint_in_the_worker(lab08):
    """Task 3 with the one-byte candidates left out of the window, graded in the grading worker: a wrong
    table, or an IndexError told by its name (the worker's exceptions are not this process's classes),
    each with the window's hint."""
    source = source_of("08_linear_encoding", "task3_last_tokens_solution")
    old = "range(max(0, end - longest), end)"
    assert old in source
    code = "\n".join(["from bpe_ref.encode.step06_naive import Pair, encode_pretoken, merge_ranks",
                      source_of("08_linear_encoding", "task1_compatible_solution"),
                      source.replace(old, "range(max(0, end - longest), end - 1)")])
    hidden = remote("08_linear_encoding", code, "last_tokens", "check_last_tokens_properties")
    assert hidden is not None and "leaves out the one-byte candidates (start = end - 1)" in hidden, hidden
    visible = remote("08_linear_encoding", code, "last_tokens", "check_last_tokens")  # raises on b"abcbca"
    assert visible is not None and "raised IndexError" in visible, visible
    assert "leaves out the one-byte candidates (start = end - 1)" in visible, visible


# Lab 08, measured from outside: step 06's replay of the merges, with compatible called once for show
# (the calls of compatible were once counted by the worker itself: one call passed).
# The replay is bound to a name of its own when the cell runs (walk57: the tasks' driver watches the notebook's name
# encode_pretoken, and refuses a call on more bytes than two tokens hold: these go past it, to the measured check).
REPLAYS = {
    "backtrack_encode": "replay = encode_pretoken\n\n\ndef backtrack_encode(pretoken, ranks):\n"
                        "    compatible(pretoken[:1], pretoken[1:2], ranks)  # called, as the task asks\n"
                        "    return replay(pretoken, ranks)  # the same tokens, by replaying the merges\n",
    "last_tokens": "replay = encode_pretoken\n\n\ndef last_tokens(pretoken, ranks):\n"
                   "    compatible(pretoken[:1], pretoken[1:2], ranks)\n"
                   "    return [None] + [replay(pretoken[:end], ranks)[-1] for end in range(1, len(pretoken) + 1)]\n",
}


@pytest.mark.parametrize("name", sorted(REPLAYS))
def test_lab08_a_replay_of_the_merges_fails_the_hidden_test(lab08, name, at_the_first_verdict):
    graders, solutions = lab08
    mistake = defined(solutions, REPLAYS[name], name)
    with at_the_first_verdict():
        message = failure(getattr(graders, f"check_{name}_properties"), mistake)
    assert "Replaying the merges" in message and ("measured from outside your code" in message or "did not finish" in message)


def test_lab08_a_replay_of_the_merges_fails_in_the_worker_too(at_the_first_verdict):
    code = "\n".join(source_of("08_linear_encoding", cell) for cell in ("setup", "task1_compatible_solution"))

    def not_a_replay(graders, learner):
        graders.verify_not_a_replay(learner, "backtrack_encode", graders.BACKTRACK_TASK, graders.backtrack_encode,
                                    graders.backtrack_cases)

    with at_the_first_verdict():
        message = remote("08_linear_encoding", code + "\n" + REPLAYS["backtrack_encode"], "backtrack_encode", not_a_replay)
    assert message is not None and ("measured from outside your code" in message or "did not finish" in message)
    honest = code + "\n" + source_of("08_linear_encoding", "task2_backtrack_encode_solution")
    assert remote("08_linear_encoding", honest, "backtrack_encode", not_a_replay) is None


# ---- lab 09 ----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def lab09():
    return load_graders("09_benchmarks"), solution_namespace("09_benchmarks")


@pytest.mark.seeded
def test_lab09_the_collector_left_off_when_a_contender_raises_fails_the_hidden_test(lab09):
    graders, solutions = lab09
    source = source_of("09_benchmarks", "task1_interleaved_solution")
    old = ("            try:\n                start = clock()\n                contenders[label]()\n"
           "                times[label].append(clock() - start)\n            finally:\n"
           "                if was_enabled:\n                    gc.enable()\n")
    new = ("            start = clock()\n            contenders[label]()\n            times[label].append(clock() - start)\n"
           "            if was_enabled:\n                gc.enable()\n")
    assert old in source
    mistake = defined(solutions, source.replace(old, new), "interleaved")
    message = failure(graders.check_interleaved_properties, mistake)
    assert "collector on after" in message and "finally" in message


# ---- lab 03, measured from outside the learner's process ----------------------------------------

WHOLE_FILE_SEARCH = """
def find_chunk_boundaries(path, desired_num_chunks, split_tokens, buffer_size=4096):
    with open(path, "rb") as file:
        data = file.read()  # the whole file at once
    size = len(data)
    chunk_size = size // desired_num_chunks
    boundaries = [0]
    for i in range(1, desired_num_chunks):
        position = max(i * chunk_size, boundaries[-1])
        found = [j for j in (data.find(t, position) for t in split_tokens) if j != -1]
        boundaries.append(min(found) if found else size)
    boundaries.append(size)
    return sorted(set(boundaries))
"""


def test_lab03_a_whole_file_read_fails_the_hidden_test(lab03):
    graders, solutions = lab03
    mistake = defined(solutions, WHOLE_FILE_SEARCH, "find_chunk_boundaries")
    message = failure(graders.check_find_chunk_boundaries_properties, mistake)
    assert "measured from outside your code" in message and "never the whole file" in message


def test_lab03_a_whole_file_read_fails_in_the_worker_too():
    message = remote("03_parallel", "import os\n" + WHOLE_FILE_SEARCH, "find_chunk_boundaries",
                     "check_find_chunk_boundaries_properties")
    assert "measured from outside your code" in message


TASK4 = "task4_count_pretokens_in_file_solution"
POOL = ("    with ProcessPoolExecutor(max_workers=num_workers, mp_context=context) as pool:\n")


@pytest.mark.parametrize("old, new, message", [
    (POOL, "    with ThreadPoolExecutor(max_workers=num_workers) as pool:\n", "started no process"),
    ("context = multiprocessing.get_context(start_method)", "context = multiprocessing.get_context('spawn')",
     "none by fork"),
    ("num_workers * chunks_per_worker,", "num_workers,", "asked find_chunk_boundaries for [2] chunks"),
])
def test_lab03_the_pool_done_otherwise_fails_the_hidden_test(lab03, old, new, message):
    # The hidden test's measured part, called alone (the whole hidden test also compares 13 files).
    graders, solutions = lab03
    namespace = {**solutions, "ThreadPoolExecutor": __import__("concurrent.futures").futures.ThreadPoolExecutor}
    mistake = variant("03_parallel", namespace, TASK4, "count_pretokens_in_file", old, new)
    assert message in failure(graders.verify_worker_processes, mistake)


def test_lab03_threads_fail_the_whole_hidden_test_in_the_worker():
    code = source_of("03_parallel", TASK4).replace(POOL, "    with ThreadPoolExecutor(max_workers=num_workers) as pool:\n")
    setup = ("import multiprocessing, os\nfrom collections import Counter\nfrom concurrent.futures import ThreadPoolExecutor\n"
             "from bpe_ref.pretokenize import count_pretokens\n" + source_of("03_parallel", "task1_find_chunk_boundaries_solution")
             + "\n" + source_of("03_parallel", "task3_merge_counts_solution") + "\n")
    module = source_of("03_parallel", "task2_count_chunk_solution")
    message = remote("03_parallel", "get_ipython().run_cell_magic('writefile', 'chunk_counting.py', " + repr(module.split("\n", 1)[1])
                     + ")\nfrom chunk_counting import count_chunk\n" + setup + code, "count_pretokens_in_file",
                     "check_count_pretokens_in_file_properties")
    assert "started no process" in message


def test_lab03_task_4_is_graded_with_the_reference_count_chunk(lab03, tmp_path, monkeypatch):
    # A count_chunk that reads one byte too many fails task 2, and not task 4 as well.
    graders, solutions = lab03
    source = source_of("03_parallel", "task2_count_chunk_solution").split("\n", 1)[1]
    (tmp_path / "chunk_counting_wrong.py").write_text(source.replace("file.read(end - start)", "file.read(end - start + 1)"))
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "chunk_counting_wrong", raising=False)  # an earlier run's (another seed's), in a folder gone
    wrong = importlib.import_module("chunk_counting_wrong").count_chunk
    assert failure(graders.check_count_chunk_properties, wrong)
    task4 = defined({**solutions, "count_chunk": wrong}, source_of("03_parallel", TASK4), "count_pretokens_in_file")
    graders.check_count_pretokens_in_file(task4)
    assert not (tmp_path / "_grader_chunk_counting.py").exists()  # the stand-in's module is gone afterwards


# ---- lab 04, measured from outside: V4 that still visits every word ---------------------------------

MEASURED = re.compile("measured from outside your code|did not finish")  # its CPU time, or a call stopped by its limit
V4_VISIT = ("        for i in index.pop(pair):  # the words that ever held the pair (some of them stale)\n"
            "            word = words[i]\n")
EVERY_WORD_CHECKED = ("        ids = index.pop(pair)\n        for i, word in enumerate(words):  # every word, every merge\n"
                      "            if i not in ids:\n                continue\n")


def test_lab04_a_v4_that_visits_every_word_fails_the_hidden_test(lab04, at_the_first_verdict):
    graders, solutions = lab04
    mistake = variant("04_inverted_index", solutions, "task3_train_solution", "train", V4_VISIT, EVERY_WORD_CHECKED)
    graders.watch_index_use(mistake)  # the calls watched alone cannot tell it from V4
    with at_the_first_verdict():
        message = failure(graders.verify_merge_cost, mistake)
    assert MEASURED.search(message) and "not every word" in message
    graders.verify_merge_cost(solutions["train"])  # and V4 itself passes
    # The visible test measures the same, so its point is not earned by the calls alone.
    if MEASURED_VISIBLE_TOO:
        with at_the_first_verdict():
            assert MEASURED.search(failure(graders.check_train, mistake))


@WORKER_TWIN
def test_lab04_a_v4_that_visits_every_word_fails_in_the_worker_too(at_the_first_verdict):
    # (That V4 itself passes there is shown by grading the solution: tests/test_grading_labs.py.)
    setup = source_of("04_inverted_index", "setup") + "\n" + "\n".join(
        source_of("04_inverted_index", cell) for cell in ("task1_index_words_solution", "task2_pairs_with_solution"))
    train = source_of("04_inverted_index", "task3_train_solution")
    mistake = setup + "\n" + train.replace(V4_VISIT, EVERY_WORD_CHECKED)
    with at_the_first_verdict():
        message = remote("04_inverted_index", mistake, "train", "verify_merge_cost")
        visible = remote("04_inverted_index", mistake, "train", "check_train")  # the visible point, measured there too
    assert MEASURED.search(message)
    assert visible is not None and MEASURED.search(visible), visible


# ---- lab 05, measured from outside: V5 that still scans the pair counts -----------------------------

V5_POP = "        pair, _ = pop_best(entries, pair_counts)\n"


@pytest.mark.parametrize("new", [
    # The heap rebuilt from all the counts on each merge (the pops keep the watched calls right).
    "        entries = [heap_entry(count, p) for p, count in pair_counts.items()]\n        heapq.heapify(entries)\n"
    + V5_POP,
    # V5, and a scan of the pair counts in C on each merge (a check that the popped pair is the best): the
    # scan V5 removes, at about 10 ns a pair, which the first measured corpus (16,000 pairs, 250 merges) let pass.
    V5_POP + "        assert pair_counts[pair] == max(pair_counts.values())\n",
], ids=["heap-rebuilt", "max-in-C"])
def test_lab05_a_v5_that_scans_the_pairs_per_merge_fails_the_hidden_test(lab05, new, at_the_first_verdict):
    graders, solutions = lab05
    mistake = variant("05_heap", solutions, "task3_train_solution", "train", V5_POP, new)
    with at_the_first_verdict():
        message = failure(graders.verify_merge_cost, mistake)  # (a part of the hidden test: the watched calls come first)
    assert "O(P) per merge" in message and ("measured from outside your code" in message or "did not finish" in message)
    graders.verify_merge_cost(solutions["train"])  # and V5 itself passes
    if new.startswith(V5_POP) and MEASURED_VISIBLE_TOO:  # the watched calls are right: the visible test, which measures
        # too, fails on the cost
        with at_the_first_verdict():
            visible = failure(graders.check_train, mistake)
        assert "measured from outside your code" in visible or "did not finish" in visible, visible


@WORKER_TWIN
def test_lab05_a_scan_in_c_per_merge_fails_in_the_worker_too(at_the_first_verdict):
    setup = "\n".join(source_of("05_heap", cell) for cell in ("setup", "task1_heap_entry_solution", "task2_pop_best_solution"))
    train = source_of("05_heap", "task3_train_solution")
    scan = train.replace(V5_POP, V5_POP + "        assert pair_counts[pair] == max(pair_counts.values())\n")
    with at_the_first_verdict():
        message = remote("05_heap", setup + "\n" + scan, "train", "verify_merge_cost")
    assert message is not None and ("measured from outside your code" in message or "did not finish" in message)
    assert remote("05_heap", setup + "\n" + train, "train", "verify_merge_cost") is None


# ---- lab 05, measured from outside: an entry pushed for every pair of each rewritten word ----------------

EVERY_PAIR_PUSHED = ("                    grown.add(new_pair)\n",  # the blog post's get_new_pairs(new_word)
                     "                    grown.add(new_pair)\n                grown.update(zip(words[i], words[i][1:]))\n")
# The grading worker's watch forged, as a dishonest submission would: pop_best counted as it is, heap_entry never (what
# V5's few entries would report). Graded, nothing is watched any more; were it, the counts would look like V5's.
FORGED_ENTRY_COUNT = """\
import sys

_worker = sys.modules["__main__"]
_watch = getattr(_worker, "_spy", None)
if _watch is not None:
    _worker._spy = lambda function, calls: function if function.__name__ == "heap_entry" else _watch(function, calls)
"""


def test_lab05_an_entry_for_every_pair_of_a_rewritten_word_fails_the_hidden_test(lab05, at_the_first_verdict):
    graders, solutions = lab05
    mistake = variant("05_heap", solutions, "task3_train_solution", "train", *EVERY_PAIR_PUSHED)
    with at_the_first_verdict():
        message = failure(graders.check_train_properties, mistake)
    # The cost per merge, measured first, may catch it already: the rare words of its corpus are long, and their last
    # pairs are merged (tests/test_grading_redteam.py, section 16); its hint names the fix too, the pairs that grew.
    assert "measured from outside your code" in message and ("not for every pair of the rewritten word" in message
                                                             or "push only the pairs whose count grew" in message), message


def test_lab05_an_entry_for_every_pair_with_its_count_forged_fails_in_the_worker_too(at_the_first_verdict):
    setup = "\n".join(source_of("05_heap", cell) for cell in ("setup", "task1_heap_entry_solution", "task2_pop_best_solution"))
    train = source_of("05_heap", "task3_train_solution")
    mistake = setup + "\n" + FORGED_ENTRY_COUNT + train.replace(*EVERY_PAIR_PUSHED)
    # The hidden points (the visible test runs the same verify_push_cost first: tests/test_checks_labs.py grades
    # both in the kernel, and BPE_EXHAUSTIVE=1 here in the worker too).
    graders = ("check_train_properties", "check_train") if EXHAUSTIVE else ("check_train_properties",)
    with at_the_first_verdict():
        for grader in graders:
            message = remote("05_heap", mistake, "train", grader)
            assert message is not None and "measured from outside your code" in message, (grader, message)
            assert "heap_entry" not in message.split("hint:")[0], message  # no count of calls: a cost
    assert remote("05_heap", setup + "\n" + train, "train", "verify_push_cost") is None


def test_lab03_count_chunk_in_a_cell_costs_task_2_only_in_the_worker():
    # Defined in a cell, spawn's workers cannot import it: task 2 fails, but task 4 runs with the
    # reference's count_chunk, written as a module in the scratch folder.
    cells = "\n".join(source_of("03_parallel", cell) for cell in (
        "setup", "task1_find_chunk_boundaries_solution", "task3_merge_counts_solution", TASK4))
    count_chunk = source_of("03_parallel", "task2_count_chunk_solution").split("\n", 1)[1]
    code = cells + "\n" + count_chunk.replace("from bpe_ref.pretokenize import count_pretokens\n", "")
    first_case = lambda graders, function: graders.check_cases(  # noqa: E731  (as task 2's hidden test calls it)
        graders.COUNT_CHUNK_TASK, function, graders.count_chunk, graders.COUNT_CHUNK.cases[:1])
    assert "defined in a notebook cell" in remote("03_parallel", code, "count_chunk", first_case)
    one_case = lambda graders, function: graders.check_cases(  # noqa: E731  (task 4's first visible case)
        graders.FILE_TASK, function, graders.serial_count, graders.file_cases()[:1])
    assert remote("03_parallel", code, "count_pretokens_in_file", one_case) is None


def test_lab09_a_contender_error_swallowed_fails_the_hidden_test(lab09):
    graders, solutions = lab09
    mistake = variant("09_benchmarks", solutions, "task1_interleaved_solution", "interleaved",
                      "                contenders[label]()\n",
                      "                try:\n                    contenders[label]()\n"
                      "                except RuntimeError:  # one failing contender must not stop the others\n"
                      "                    pass\n")
    assert "let it through" in failure(graders.check_interleaved_properties, mistake)


# ---- labs 04 and 05: a new learner's mistakes that only the hidden tests see ------------------------------

# Lab 05 task 4, the page's trap: an (A, A) pair's nodes taken in the order occurrences lists them, not sorted. The
# merges append nodes in increasing order, so only lists in another order tell it from the solution: the hidden test
# draws each list's order (the answer does not depend on it), and a visible case lists a a a's nodes backwards.
IN_THE_LISTED_ORDER = ("for node in sorted(nodes) if left == right else nodes:", "for node in nodes:  # left to right, as appended")


@pytest.mark.seeded
def test_lab05_a_merge_of_a_a_in_the_listed_order_fails_the_hidden_test(lab05):
    graders, solutions = lab05
    mistake = variant("05_heap", solutions, "task4_merge_occurrences_solution", "merge_occurrences", *IN_THE_LISTED_ORDER)
    for check in (graders.check_merge_occurrences_properties, graders.check_merge_occurrences):
        assert "take the nodes left to right (sorted)" in failure(check, mistake)


# Mistakes that the visible cases miss and the hidden test catches, kept here so that a change of a strategy that
# stops drawing their inputs shows: (cell, old, new, the hidden grader, or the part of it, that catches it).
HIDDEN_ONLY = {
    "05_heap": {  # (a key ending in b"\xff", which the visible groups miss too: tests/test_checks_labs.py)
        # A stale node told by its own token only: where (b, c) merged before (a, b), a is merged with bc.
        "stale-by-own-token": ("task4_merge_occurrences_solution",
                               "if token[node] != left or follower == -1 or token[follower] != right:",
                               "if token[node] != left or follower == -1:", "check_merge_occurrences_properties"),
    },
    "04_inverted_index": {
        # Ids found with words.index(word): two equal words (the hidden lists draw them) are filed under one id.
        "ids-by-index": ("task1_index_words_solution", "    for i, word in enumerate(words):\n",
                         "    for word in words:\n        i = words.index(word)\n", "check_index_words_properties"),
        # Ties broken on the concatenated bytes: of (aa, a) and (a, b), tied, the tuples pick (aa, a), the bytes (a, b)
        # (b"ab" > b"aaa"). The part of the hidden test that compares the merges (its measured part passes).
        "ties-on-concatenation": ("task3_train_solution", "pair = best_pair(pair_counts)",
                                  "pair = max(pair_counts, key=lambda p: (pair_counts[p], p[0] + p[1]))", "check_train_merges"),
    },
}


def hidden_only(lab: str, lab_graders: tuple, mistake: str) -> None:
    graders, solutions = lab_graders
    cell, old, new, grader = HIDDEN_ONLY[lab][mistake]
    function = variant(lab, solutions, cell, cell.split("_", 1)[1].removesuffix("_solution"), old, new)
    failure(getattr(graders, grader), function)


@pytest.mark.seeded
@pytest.mark.parametrize("mistake", HIDDEN_ONLY["04_inverted_index"])
def test_lab04_a_mistake_the_visible_cases_miss_fails_the_hidden_test(lab04, mistake):
    hidden_only("04_inverted_index", lab04, mistake)


@pytest.mark.seeded
@pytest.mark.parametrize("mistake", HIDDEN_ONLY["05_heap"])
def test_lab05_a_mistake_the_visible_cases_miss_fails_the_hidden_test(lab05, mistake):
    hidden_only("05_heap", lab05, mistake)


# ---- lab 03, learn21a: more mistakes of the page's pitfalls (issue 21, item 8) ---------------------------

CHUNK_WHOLE_FILE = ("        file.seek(start)\n        data = file.read(end - start)\n",
                    "        data = file.read()[start:end]  # the whole file, then the range\n")


def chunk_module_variant(tmp_path, monkeypatch, module: str, *changes: tuple[str, str]):
    """The course's count_chunk with ``changes`` made, imported from the module ``module`` written in ``tmp_path`` (its
    driver runs its module's file)."""
    source = source_of("03_parallel", "task2_count_chunk_solution").split("\n", 1)[1]
    for old, new in changes:
        assert old in source
        source = source.replace(old, new)
    (tmp_path / f"{module}.py").write_text(source)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, module, raising=False)
    return importlib.import_module(module).count_chunk


def test_lab03_a_count_chunk_that_reads_the_whole_file_fails_the_hidden_test(lab03, tmp_path, monkeypatch):
    # The same counts (the visible test passes), and each worker reads the whole corpus: measured from outside.
    graders, solutions = lab03
    wrong = chunk_module_variant(tmp_path, monkeypatch, "chunk_counting_whole", CHUNK_WHOLE_FILE)
    graders.check_count_chunk(wrong)
    message = failure(graders.check_count_chunk_properties, wrong)
    assert "measured from outside your code" in message and "its own range" in message, message
    graders.verify_chunk_reads(solutions["count_chunk"])  # and the seek and read pass


CHUNK_TEXT_MODE = (('    with open(path, "rb") as file:\n', '    with open(path, encoding="utf-8") as file:\n'),
                   ('data.decode("utf-8")', "data"))


def test_lab03_a_count_chunk_read_in_text_mode_is_told_where_its_measured_call_differs(lab03, tmp_path, monkeypatch):
    # file.read(end - start) in text mode reads characters, not bytes: more than the range of the measured 4 MiB file,
    # whose wrong answer was told with no expected counts and no hint (the visible cases, all ASCII, pass).
    graders, _ = lab03
    wrong = chunk_module_variant(tmp_path, monkeypatch, "chunk_counting_text", *CHUNK_TEXT_MODE)
    graders.check_count_chunk(wrong)
    message = failure(graders.check_count_chunk_properties, wrong)
    assert "(measured call)" in message and "where they differ" in message, message
    assert "hint: more pretokens than in the chunk: read exactly end - start bytes" in message, message
    assert "in text mode, read(n) reads n characters" in message, message


def test_lab03_a_count_chunk_that_reads_the_whole_file_fails_the_hidden_test_in_the_worker():
    module = source_of("03_parallel", "task2_count_chunk_solution").split("\n", 1)[1].replace(*CHUNK_WHOLE_FILE)
    code = ("get_ipython().run_cell_magic('writefile', 'chunk_counting.py', " + repr(module) + ")\n"
            "import chunk_counting, importlib\nimportlib.reload(chunk_counting)\nfrom chunk_counting import count_chunk\n")
    message = remote("03_parallel", code, "count_chunk", "check_count_chunk_properties")
    assert message is not None and "its own range" in message, message


def test_lab03_a_chunk_counting_module_that_does_not_import_costs_task_2_not_task_4():
    """A syntax error in chunk_counting.py leaves the notebook without count_chunk: task 2 loses its points, and task 4
    is graded with the reference's count_chunk in its place, as when count_chunk is wrong (found by a learner's round:
    task 4 failed on a NameError, 5 points more). Task 4's visible test shows it (its calls go through the same driver
    as the hidden test's, small files, spawn and the default start method): the hidden test's pools cost 10 s more."""
    broken = "def count_chunk(path, start:\n"  # a parenthesis never closed
    code = "\n".join([
        source_of("03_parallel", "setup"),
        f"get_ipython().run_cell_magic('writefile', 'chunk_counting.py', {broken!r})",
        "try:\n    from chunk_counting import count_chunk\nexcept SyntaxError:\n    pass",
        "assert 'count_chunk' not in globals()",
        *(source_of("03_parallel", cell) for cell in ("task1_find_chunk_boundaries_solution", "task3_merge_counts_solution",
                                                     "task4_count_pretokens_in_file_solution"))])
    assert remote("03_parallel", code, "count_pretokens_in_file", "check_count_pretokens_in_file") is None
    message = remote("03_parallel", code, "count_chunk", "check_count_chunk_properties")
    assert message is not None, "count_chunk of a module that does not import passed task 2"


SEND_THE_TEXT = (
    "    with ProcessPoolExecutor(max_workers=num_workers, mp_context=context) as pool:\n"
    "        return merge_counts(pool.map(count_chunk, [path] * len(starts), starts, ends, [special_tokens] * len(starts)))",
    # the blog post's V3: the parent reads every chunk and sends its text (page 03's pitfall "Sending the text")
    "    texts = []\n    with open(path, 'rb') as file:\n        for start, end in zip(starts, ends):\n"
    "            file.seek(start)\n            texts.append(file.read(end - start).decode('utf-8'))\n"
    "    with ProcessPoolExecutor(max_workers=num_workers, mp_context=context) as pool:\n"
    "        return merge_counts(pool.map(count_pretokens, texts, [special_tokens] * len(texts)))")


@pytest.mark.parametrize("old, new, message", [
    (*SEND_THE_TEXT, "bytes in the calling process"),
    # the pool's size left to Python: one process per core, which a 2-core grading machine once let pass
    (POOL, "    with ProcessPoolExecutor(mp_context=context) as pool:\n", "nor the default of one per core"),
], ids=["sends-the-text", "pool-of-the-default-size"])
def test_lab03_workers_that_do_not_read_their_range_or_are_too_many_fail_the_hidden_test(lab03, old, new, message):
    # The hidden test's measured part, called alone (the counts are right).
    graders, solutions = lab03
    mistake = variant("03_parallel", solutions, TASK4, "count_pretokens_in_file", old, new)
    assert message in failure(graders.verify_worker_processes, mistake)


def test_lab03_no_serial_count_without_special_tokens_fails_the_hidden_test(lab03):
    # With no special tokens there is no safe cut: task 4 counts the whole file here.
    graders, solutions = lab03
    mistake = variant("03_parallel", solutions, TASK4, "count_pretokens_in_file",
                      "    if num_workers == 1 or not special_tokens:\n", "    if num_workers == 1:\n")

    def hidden_fixed_cases(learner):
        graders.check_cases(graders.FILE_TASK, learner, graders.serial_count, graders.FILE_HIDDEN_CASES)

    assert "raised ValueError" in failure(hidden_fixed_cases, mistake)
    hidden_fixed_cases(solutions["count_pretokens_in_file"])


# ---- lab 09, learn21a: bad input, inputs left as they are, an outer measurement (issue 21, item 8) -------

@pytest.mark.parametrize("cell, name, old, new, message", [
    # the caller's runs sorted in place: task 3 would then pair rounds never timed together
    ("task2_spread_solution", "spread", "    middle = statistics.median(values)\n",
     "    values.sort()  # the quartiles need sorted values\n    middle = statistics.median(values)\n",
     "changed its argument values"),
    # no check of the median, or one of a zero median only: ZeroDivisionError, or a negative spread
    ("task2_spread_solution", "spread",
     '    if middle <= 0:\n        raise ValueError(f"the median is {middle}: times must be positive")\n', "",
     "raised ZeroDivisionError"),
    ("task2_spread_solution", "spread", "if middle <= 0:", "if middle == 0:", "expected 'raised ValueError'"),
    ("task4_fit_exponent_solution", "fit_exponent",
     '    if min(sizes) == max(sizes):  # compare the sizes: the mean of equal logarithms can round off them\n'
     '        raise ValueError("all sizes are equal")\n', "", "raised ZeroDivisionError"),
    # xs that only must not decrease: a repeated x passes
    ("task5_crossover_solution", "crossover", "if any(x0 >= x1 for", "if any(x0 > x1 for", "expected 'raised ValueError'"),
    ("task1_interleaved_solution", "interleaved",
     '    if rounds < 1:\n        raise ValueError(f"rounds must be at least 1, got {rounds}")\n', "", "raise ValueError"),
    # "reset" by stopping and starting again: the outer measurement forgets what it traced
    ("task6_peak_memory_solution", "peak_memory",
     "    if was_tracing:\n        tracemalloc.reset_peak()\n    else:\n        tracemalloc.start()\n",
     "    tracemalloc.stop()  # a fresh start: no earlier peak\n    tracemalloc.start()\n", "tracemalloc.reset_peak()"),
], ids=["spread-sorts-its-input", "spread-no-median-check", "spread-median-zero-only", "fit-no-equal-sizes-check",
        "crossover-repeated-x", "interleaved-no-rounds-check", "peak-memory-restarts-tracing"])
def test_lab09_more_mistakes_fail_the_hidden_test(lab09, cell, name, old, new, message):
    graders, solutions = lab09
    mistake = variant("09_benchmarks", solutions, cell, name, old, new)
    found = failure(getattr(graders, f"check_{name}_properties"), mistake)
    assert message in found, found


# ---- labs 06-08, tried as a learner would (issue 21, item 8) ------------------------------------------

# Page 06's pitfall "one pass per round, merge by merge, in the list's order", with the dict's order taken for the list's:
# each merge once, in the order ranks lists its pairs. Right whenever the dict lists them in rank order, as every
# generated table did (only a visible case's hand-made ranks did not): the hidden test now lists them in any order.
ROUNDS = ("    while len(word) > 1:\n"
          "        best = min(zip(word, word[1:]), key=lambda pair: ranks.get(pair, float(\"inf\")))\n"
          "        if best not in ranks:\n            break  # no neighbouring pair is a merge\n"
          "        word = merge_word(word, best)\n")
ONE_PASS_IN_DICT_ORDER = "    for pair in ranks:  # every merge in training order, each once\n        word = merge_word(word, pair)\n"


@pytest.mark.seeded
def test_lab06_one_pass_over_the_ranks_in_the_dicts_order_fails_the_hidden_test(lab06):
    graders, solutions = lab06
    mistake = variant("06_encode_decode", solutions, "task2_encode_pretoken_solution", "encode_pretoken", ROUNDS,
                      ONE_PASS_IN_DICT_ORDER)
    assert "smallest failing input" in failure(graders.check_encode_pretoken_properties, mistake)
    graders.check_encode_pretoken_properties(solutions["encode_pretoken"])  # the order a dict lists changes nothing else


# <|endoftext|> always taken as special, listed or not (tiktoken's GPT-2 knows it): the hidden test's generated texts held
# it unlisted under some seeds only (the instructor's class kept the 3 hidden points); a hidden fixed case has it now.
ALWAYS_EOT = ("    if special_tokens:\n",
              "    special_tokens = list(special_tokens) + ([EOT] if EOT not in special_tokens else [])  # GPT-2's own\n"
              "    if special_tokens:\n")


def test_lab06_endoftext_always_special_fails_the_hidden_test(lab06):
    graders, solutions = lab06
    mistake = variant("06_encode_decode", solutions, "task3_encode_text_solution", "encode_text", *ALWAYS_EOT)
    message = failure(graders.check_encode_text_properties, mistake)
    assert "encode_text(text='Once<|eot|> upon<|endoftext|> a time'" in message, message


# "Overlapping pairs each get their entry": a learner who counts a a a as one (a, a), as a non-overlapping count would.
# The hidden test's parts seldom held three equal tokens in a row; it now draws runs of one token.
OVERLAP_SKIPPED = ("        if rank is not None:\n",
                   "        if rank is not None and heap[-1:] != [(rank, position - 1)]:  # a a a: one (a, a), not two\n")


@pytest.mark.seeded
def test_lab07_a_first_heap_without_overlapping_entries_fails_the_hidden_test(lab07):
    graders, solutions = lab07
    mistake = variant("07_heap_encoding", solutions, "task1_first_heap_solution", "first_heap", *OVERLAP_SKIPPED)
    message = failure(graders.check_first_heap_properties, mistake)
    assert "smallest failing input" in message and "an entry is missing" in message, message


# A shortcut for pretokens of one byte or none returns [pretoken]: [b''] for the empty one, which the visible test has and
# the hidden test's generated pretokens seldom (the instructor's class kept the hidden points); a hidden fixed case has it.
EMPTY_AS_ONE_TOKEN = ("    parts = list(split_into_bytes(pretoken))\n",
                      "    if len(pretoken) < 2:  # nothing to merge\n        return [pretoken]\n"
                      "    parts = list(split_into_bytes(pretoken))\n")


def test_lab07_a_shortcut_that_makes_the_empty_pretoken_a_token_fails_the_hidden_test(lab07):
    graders, solutions = lab07
    mistake = variant("07_heap_encoding", solutions, "task3_heap_encode_solution", "heap_encode", *EMPTY_AS_ONE_TOKEN)
    assert "heap_encode(pretoken=b''" in failure(graders.check_heap_encode_properties, mistake)


# Task 4 asks for one pass over last, O(L) for every prefix together; walking each prefix's tokens back to the start
# gives the same counts in O(L²), which no generated table (a few dozen bytes) could tell: measured from outside now.
COUNTS_ONE_PASS = "        counts[end] = counts[end - len(last[end])] + 1\n"
COUNTS_WALK_BACK = ("        position = end\n        while position > 0:  # the tokens of this prefix, back to its start\n"
                    "            position -= len(last[position])\n            counts[end] += 1\n")


def test_lab08_token_counts_by_walking_each_prefix_back_fail_the_hidden_test(lab08, at_the_first_verdict):
    graders, solutions = lab08
    mistake = variant("08_linear_encoding", solutions, "task4_prefix_token_counts_solution", "prefix_token_counts",
                      COUNTS_ONE_PASS, COUNTS_WALK_BACK)
    graders.check_cases(graders.COUNTS_TASK, mistake, graders.prefix_token_counts, graders.counts_cases())  # right counts
    with at_the_first_verdict():
        message = failure(graders.check_prefix_token_counts_properties, mistake)
    assert MEASURED.search(message) and "one pass, O(L) for all the prefixes" in message, message
    assert "len(last[end])" not in message and "+ 1" not in message, "task 4's hint points the way, not the code"
    graders.verify_counts_cost(solutions["prefix_token_counts"])  # and one pass itself passes


def test_lab08_token_counts_by_walking_each_prefix_back_fail_in_the_worker_too(at_the_first_verdict):
    code = source_of("08_linear_encoding", "task4_prefix_token_counts_solution")
    with at_the_first_verdict():
        message = remote("08_linear_encoding", code.replace(COUNTS_ONE_PASS, COUNTS_WALK_BACK), "prefix_token_counts",
                         "verify_counts_cost")
    assert message is not None and MEASURED.search(message), message
    assert remote("08_linear_encoding", code, "prefix_token_counts", "verify_counts_cost") is None


# ---- labs 02 and 10, learn21e: mistakes a learner makes that kept their hidden points (issue 21, item 8) ----------

# Lab 02 task 3: the one-byte pretokens deleted from the caller's dict ("they hold no pair"): the same merges, and the
# caller's corpus changed. The visible cases have no one-byte pretoken; the hidden test's generated corpora do.
DELETES_SHORT_PRETOKENS = ("    words = [split_into_bytes(pretoken) for pretoken in pretoken_counts]\n",
                           "    for pretoken in [p for p in pretoken_counts if len(p) < 2]:\n"
                           "        del pretoken_counts[pretoken]  # one byte: no pair, never merged\n"
                           "    words = [split_into_bytes(pretoken) for pretoken in pretoken_counts]\n")


@pytest.mark.seeded
def test_lab02_a_trainer_that_deletes_from_its_input_fails_the_hidden_test(lab02):
    graders, solutions = lab02
    mistake = variant("02_incremental", solutions, "task3_train_solution", "train", *DELETES_SHORT_PRETOKENS)
    assert "changed its argument pretoken_counts" in failure(graders.check_train_merges, mistake)
    graders.check_train_on_other_corpus(mistake)  # task 4 trains on a corpus of its own: the mistake costs task 3 only
    graders.check_train_merges(solutions["train"])


@pytest.fixture(scope="module")
def lab10():
    return load_graders("10_distributed"), solution_namespace("10_distributed")


# Lab 10 task 1: the whole file read, then sliced: the same counts, and each worker reads the corpus once per range.
# Measured from outside the learner's code, as lab 03's count_chunk is.
RANGE_WHOLE_FILE = ("        file.seek(start)\n        data = file.read(end - start)\n",
                    "        data = file.read()[start:end]  # the whole file, then the range\n")
RANGE_FROM_THE_START = "        data = file.read(end)[start:]  # up to end, then the range\n"  # half the file, for a range in the middle
# Lab 10 task 3: each round rebuilt in the caller's list: the right tree, and parts left holding it.
TREE_IN_PLACE = (("    level = list(parts)\n", "    level = parts\n"),
                 ("        level = paired\n", "        level[:] = paired  # each round in place\n"))


@pytest.mark.parametrize("new", [RANGE_WHOLE_FILE[1], RANGE_FROM_THE_START], ids=["whole-file", "from-the-start"])
def test_lab10_a_count_range_that_reads_the_whole_file_fails_the_hidden_test(lab10, new):
    graders, solutions = lab10
    mistake = variant("10_distributed", solutions, "task1_count_range_solution", "count_range", RANGE_WHOLE_FILE[0], new)
    graders.check_count_range(mistake)  # the visible test passes: the counts are right
    assert "file.seek(start), then file.read(end - start)" in failure(graders.check_count_range_properties, mistake)
    graders.verify_range_reads(solutions["count_range"])


def test_lab10_a_count_range_that_reads_the_whole_file_fails_in_the_worker_too():
    code = source_of("10_distributed", "setup") + "\n" + source_of("10_distributed", "task1_count_range_solution")
    assert RANGE_WHOLE_FILE[0] in code
    message = remote("10_distributed", code.replace(*RANGE_WHOLE_FILE), "count_range", "verify_range_reads")
    assert message is not None and "read or mapped, measured from outside your code" in message, message
    assert remote("10_distributed", code, "count_range", "verify_range_reads") is None


@pytest.mark.seeded
def test_lab10_a_tree_reduce_that_rebuilds_its_parts_in_place_fails_the_hidden_test(lab10):
    graders, solutions = lab10
    source = source_of("10_distributed", "task3_tree_reduce_solution")
    for old, new in TREE_IN_PLACE:
        assert old in source
        source = source.replace(old, new)
    tree_reduce = defined(solutions, source, "tree_reduce")
    assert "changed its argument parts" in failure(graders.check_tree_shape_properties, read_only_helper(tree_reduce, "tree_shape"))


# Lab 10 task 4: the special tokens encoded in the caller's list: the right plan, and the list the caller passes to
# count_ranges next now holds bytes.
TOKENS_ENCODED_IN_PLACE = ("    split_tokens = [token.encode(\"utf-8\") for token in special_tokens]\n",
                           "    special_tokens[:] = [token.encode(\"utf-8\") if isinstance(token, str) else token"
                           " for token in special_tokens]\n    split_tokens = special_tokens\n")


@pytest.mark.seeded
def test_lab10_a_plan_that_encodes_the_callers_tokens_fails_the_hidden_test(lab10):
    graders, solutions = lab10
    mistake = variant("10_distributed", solutions, "task4_plan_ranges_solution", "plan_ranges", *TOKENS_ENCODED_IN_PLACE)
    assert "changed its argument special_tokens" in failure(graders.check_plan_ranges_properties, mistake)
    graders.check_plan_ranges_properties(solutions["plan_ranges"])


# ---- labs 00 and 01, learn21d: tried as a learner would (issue 21, item 8) -------------------------------
# Each mistake must lose the hidden points of its own task, under every seed (all are marked seeded). Those that kept
# full marks before: an argument changed in place (the statements now say to leave it: Task.unchanged), and a
# pattern of the learner's own with case-insensitive contractions or numbers capped at three digits (page 00's
# pitfall and section 4; hidden fixed cases now hold DON'T and 1234567).


@pytest.fixture(scope="module")
def lab00():
    return load_graders("00_pretokenization"), solution_namespace("00_pretokenization")


@pytest.fixture(scope="module")
def lab01():
    return load_graders("01_naive_bpe"), solution_namespace("01_naive_bpe")


GPT2 = r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""  # the setup cell's pattern


def own_pattern(pattern: str, text: str = "piece", flags: str = "") -> tuple[str, str]:
    """Task 3's findall with a pattern the learner wrote (or copied) instead of the setup cell's."""
    return "regex.findall(GPT2_PATTERN, piece)", f'regex.findall(r"""{pattern}""", {text}{flags})'


# UTF-8 written by hand from page 00's table of bit patterns (section 2), right as it stands (a test below).
HAND_UTF8 = ("    return list(text.encode(\"utf-8\"))\n",
             "    out = []\n    for char in text:\n        cp = ord(char)\n"
             "        if 0xD800 <= cp <= 0xDFFF:  # a lone surrogate: no UTF-8 bytes\n"
             "            raise ValueError(f'lone surrogate U+{cp:04X}')\n"
             "        if cp < 0x80:\n            out.append(cp)\n"
             "        elif cp < 0x800:\n            out += [0xC0 | cp >> 6, 0x80 | cp & 0x3F]\n"
             "        elif cp < 0x10000:\n            out += [0xE0 | cp >> 12, 0x80 | cp >> 6 & 0x3F, 0x80 | cp & 0x3F]\n"
             "        else:\n            out += [0xF0 | cp >> 18, 0x80 | cp >> 12 & 0x3F, 0x80 | cp >> 6 & 0x3F, 0x80 | cp & 0x3F]\n"
             "    return out\n")


def hand_utf8(bound: str, wrong: str) -> tuple[str, str, str, str]:
    """Task 1 written by hand with one bound of the table off by one: wrong on one code point only."""
    assert bound in HAND_UTF8[1]
    return "task1_utf8_bytes_solution", HAND_UTF8[0], HAND_UTF8[1].replace(bound, wrong), "utf8_bytes("


LAB00_MISTAKES = {
    **{f"hand-written-utf8-{wrong.split()[-1]}": hand_utf8(bound, wrong) for bound, wrong in [
        ("cp < 0x80", "cp < 0x7F"), ("cp < 0x800", "cp <= 0x800"), ("cp < 0x800", "cp < 0x7FF"),
        ("cp < 0x10000", "cp <= 0x10000"), ("cp < 0x10000", "cp < 0xFFFF")]},
    # sorted in place: the caller's list is reordered
    "split-sorts-its-input": ("task2_split_on_special_tokens_solution",
                              "    longest_first = sorted(special_tokens, key=len, reverse=True)\n",
                              "    special_tokens.sort(key=len, reverse=True)\n    longest_first = special_tokens\n",
                              "changed its argument special_tokens"),
    "split-of-empty-text-gives-no-piece": ("task2_split_on_special_tokens_solution", "    return regex.split(pattern, text)",
                                           "    return regex.split(pattern, text) if text else []", "expected ['']"),
    # GPT-4's case-insensitive contractions, or the flag: DON'T gives DON 'T, not DON ' T
    "contractions-of-any-case": ("task3_pretokenize_solution",
                                 *own_pattern(GPT2.replace("'(?:[sdmt]|ll|ve|re)", "(?i:'(?:[sdmt]|ll|ve|re))")), "DON'T"),
    "ignorecase-flag": ("task3_pretokenize_solution", *own_pattern(GPT2, flags=", flags=regex.IGNORECASE"), "DON'T"),
    # later patterns cap numbers at three digits
    "numbers-of-three-digits": ("task3_pretokenize_solution", *own_pattern(GPT2.replace(r"\p{N}+", r"\p{N}{1,3}")), "1234567"),
    # the page's toy pattern for re, with the contractions put back: _ is a letter of \w, and \d is not \p{N}
    "the-toy-pattern": ("task3_pretokenize_solution",
                        *own_pattern(r"""'(?:[sdmt]|ll|ve|re)| ?[^\W\d_]+| ?\d+| ?[^\s\w]+|\s+(?!\S)|\s+"""), "pretokenize("),
    "newlines-stripped": ("task3_pretokenize_solution", *own_pattern(GPT2, text="piece.strip('\\n')"), "pretokenize("),
    "apostrophe-not-punctuation": ("task3_pretokenize_solution",
                                   *own_pattern(GPT2.replace(r"[^\s\p{L}\p{N}]", r"[^\s\p{L}\p{N}']")), "pretokenize("),
    # \d for \p{N}: ½ is a number, not a decimal digit
    "digits-as-backslash-d": ("task3_pretokenize_solution", *own_pattern(GPT2.replace(r"\p{N}", r"\d")), "pretokenize("),
    # the special tokens cut out, then the pieces glued back together: a pretoken runs across the cut
    "pieces-joined-again": ("task3_pretokenize_solution",
                            "    for piece in split_on_special_tokens(text, special_tokens):\n"
                            "        pretokens.extend(regex.findall(GPT2_PATTERN, piece))\n",
                            "    pretokens = regex.findall(GPT2_PATTERN, ''.join(split_on_special_tokens(text, special_tokens)))\n",
                            "pretokenize("),
    # page 00's pitfall: the text cut into lines, each pretokenized on its own; and Windows line ends normalized
    "count-line-by-line": ("task4_count_pretokens_solution", "for pretoken in pretokenize(text, special_tokens):",
                           "for pretoken in [p for line in text.splitlines(keepends=True) for p in pretokenize(line, special_tokens)]:",
                           "count_pretokens("),
    "count-with-line-ends-normalized": ("task4_count_pretokens_solution", "for pretoken in pretokenize(text, special_tokens):",
                                        "for pretoken in pretokenize(text.replace('\\r\\n', '\\n'), special_tokens):",
                                        "count_pretokens("),
    # <|endoftext|> as the default special token when none is given (a hidden fixed case holds it unlisted)
    "count-with-endoftext-by-default": ("task4_count_pretokens_solution",
                                        "for pretoken in pretokenize(text, special_tokens):",
                                        "for pretoken in pretokenize(text, special_tokens or [EOT]):", "count_pretokens("),
}

LAB01_MISTAKES = {
    # words of one token have no pair: deleted from the caller's counts
    "count-pairs-deletes-short-words": ("task1_count_pairs_solution", "    for word, frequency in word_counts.items():\n",
                                        "    for word in [w for w in word_counts if len(w) < 2]:\n        del word_counts[word]\n"
                                        "    for word, frequency in word_counts.items():\n", "changed its argument word_counts"),
    # the merged pair taken out of the candidates, in the caller's dict
    "best-pair-deletes-its-pick": ("task2_best_pair_solution",
                                   "    return max(pair_counts, key=lambda pair: (pair_counts[pair], pair))\n",
                                   "    pair = max(pair_counts, key=lambda pair: (pair_counts[pair], pair))\n"
                                   "    del pair_counts[pair]\n    return pair\n", "changed its argument pair_counts"),
    "ties-to-the-longer-pair": ("task2_best_pair_solution", "(pair_counts[pair], pair)",
                                "(pair_counts[pair], len(pair[0]) + len(pair[1]), pair)", "best_pair("),
    "ties-on-the-pairs-repr": ("task2_best_pair_solution", "(pair_counts[pair], pair)", "(pair_counts[pair], str(pair))",
                               "best_pair("),
    # the concatenation compared, not the pair: (aa, a) merges where (a, aa) is asked
    "merge-on-the-concatenation": ("task3_merge_word_solution", "word[i] == pair[0] and word[i + 1] == pair[1]",
                                   "word[i] + word[i + 1] == pair[0] + pair[1]", "merge_word("),
    # the page's toy, str.replace on the joined word, with a separator byte instead of brackets
    "merge-by-replace-on-the-joined-word": ("task3_merge_word_solution", "    merged = []\n",
                                            "    joined = b' '.join(word).replace(pair[0] + b' ' + pair[1], pair[0] + pair[1])\n"
                                            "    return tuple(joined.split(b' ')) if word else ()\n", "merge_word("),
    # the caller's dict reused for the words
    "train-turns-its-input-into-words": ("task4_train_solution",
                                         "    words = {split_into_bytes(pretoken): count for pretoken, count in "
                                         "pretoken_counts.items()}\n",
                                         "    for pretoken in list(pretoken_counts):\n"
                                         "        pretoken_counts[split_into_bytes(pretoken)] = pretoken_counts.pop(pretoken)\n"
                                         "    words = pretoken_counts\n", "changed its argument pretoken_counts"),
    "train-ties-on-the-concatenation": ("task4_train_solution", "        pair = best_pair(pair_counts)\n",
                                        "        pair = max(pair_counts, key=lambda p: (pair_counts[p], p[0] + p[1]))\n", "train("),
    # ties broken inside train on decoded text: every lone byte >= 0x80 decodes to U+FFFD, so è's and é's pairs tie
    "train-ties-on-decoded-text": ("task4_train_solution", "        pair = best_pair(pair_counts)\n",
                                   "        pair = max(pair_counts, key=lambda p: (pair_counts[p], p[0].decode('utf-8', 'replace'),"
                                   " p[1].decode('utf-8', 'replace')))\n", "train("),
}


def hidden_failure(lab: str, lab_graders: tuple, cell: str, old: str, new: str) -> str:
    graders, solutions = lab_graders
    name = cell.split("_", 1)[1].removesuffix("_solution")
    return failure(getattr(graders, f"check_{name}_properties"), variant(lab, solutions, cell, name, old, new))


@pytest.mark.seeded
@pytest.mark.parametrize("mistake", LAB00_MISTAKES)
def test_lab00_a_learners_mistake_fails_the_hidden_test(lab00, mistake):
    cell, old, new, message = LAB00_MISTAKES[mistake]
    found = hidden_failure("00_pretokenization", lab00, cell, old, new)
    assert message in found, found


@pytest.mark.seeded
@pytest.mark.parametrize("mistake", LAB01_MISTAKES)
def test_lab01_a_learners_mistake_fails_the_hidden_test(lab01, mistake):
    cell, old, new, message = LAB01_MISTAKES[mistake]
    found = hidden_failure("01_naive_bpe", lab01, cell, old, new)
    assert message in found, found


def test_lab00_utf8_written_by_hand_from_the_table_passes(lab00):
    graders, solutions = lab00
    graders.check_utf8_bytes_properties(variant("00_pretokenization", solutions, "task1_utf8_bytes_solution", "utf8_bytes",
                                                *HAND_UTF8))


def test_lab00_the_setup_cells_pattern_copied_passes(lab00):
    # own_pattern's copy is the setup cell's pattern: the mistakes above differ from it by their change only
    graders, solutions = lab00
    assert f'GPT2_PATTERN = r"""{GPT2}"""' in source_of("00_pretokenization", "setup")
    graders.check_pretokenize_properties(variant("00_pretokenization", solutions, "task3_pretokenize_solution",
                                                 "pretokenize", *own_pattern(GPT2)))


# ---- labs 06-08, learn22c: a second round as a learner would (issue 21, item 8) -------------------------
# Each mistake must lose the hidden points of its own task under every seed. Those that kept full marks, or kept them
# under some seeds, before: one occurrence of the best pair merged at a time (lab 07's order, for lab 06's rounds), the
# text Unicode-normalized first, answers kept by text, pretoken or pair alone (not the ranks too), parts made of the
# pretoken's characters, not its bytes, a sentinel appended to the caller's parts, and "both valid and not a merge" for
# compatible. Hidden fixed cases hold their distinguishing inputs now; the others stay here so that a change of a
# strategy that stops drawing their inputs shows.

def kept_by(key: str, before: str, returned: str, value: str) -> tuple[tuple[str, str], ...]:
    """The solution with its answers kept in a dict keyed by ``key`` (the ranks left out): looked up before ``before``,
    stored where it returns ``returned`` (as ``value``)."""
    return (("def ", f"_KEPT = {{}}  # answers kept from call to call, by {key} alone\ndef "),
            (before, f"    if {key} in _KEPT:\n        return _KEPT[{key}]\n" + before),
            (f"    return {returned}\n", f"    _KEPT[{key}] = {value}\n    return _KEPT[{key}]\n"))


def variant_of(lab: str, namespace: dict, cell: str, name: str, changes: tuple) -> object:
    """The course's solution of ``name`` with each (old, new) of ``changes`` made: one mistake, in several places."""
    source = source_of(lab, cell)
    for old, new in changes:
        assert source.count(old) >= 1, old
        source = source.replace(old, new, 1)
    return defined(namespace, source, name)


FROM_CHARACTERS = "[character.encode() for character in pretoken.decode('utf-8', errors='replace')]"

LAB06_MISTAKES_2 = {
    # page 06: "merge that pair everywhere in the word"; merged where it first occurs, then a new look (lab 07's order)
    "merged-where-it-first-occurs": ("task2_encode_pretoken_solution", (("        word = merge_word(word, best)\n",
                                     "        i = list(zip(word, word[1:])).index(best)  # merge it where it is\n"
                                     "        word = word[:i] + (best[0] + best[1],) + word[i + 2:]\n"),),
                                     "you merged the pair of lowest rank where it first occurs"),
    "parts-of-characters": ("task2_encode_pretoken_solution", (("    word = split_into_bytes(pretoken)\n",
                            f"    word = tuple({FROM_CHARACTERS})\n"),), "you started from the pretoken's characters"),
    "answers-kept-by-pretoken": ("task2_encode_pretoken_solution",
                                 kept_by("pretoken", "    word = split_into_bytes(pretoken)\n", "list(word)", "list(word)"),
                                 "encode_pretoken("),
    "merges-by-pair-order": ("task2_encode_pretoken_solution", ((
        'min(zip(word, word[1:]), key=lambda pair: ranks.get(pair, float("inf")))',
        'min(zip(word, word[1:]), key=lambda pair: (pair not in ranks, pair))'),), "encode_pretoken("),
    "own-merge-drops-the-last-part": ("task2_encode_pretoken_solution", (("        word = merge_word(word, best)\n",
        "        merged, i = [], 0\n        while i < len(word) - 1:\n            if (word[i], word[i + 1]) == best:\n"
        "                merged.append(word[i] + word[i + 1])\n                i += 2\n            else:\n"
        "                merged.append(word[i])\n                i += 1\n        word = tuple(merged)\n"),),
        "do not join back into the pretoken"),
    # the text normalized first (NFC: e + a combining accent becomes é, the Angstrom sign Å)
    "text-normalized": ("task3_encode_text_solution", (("    if special_tokens:\n        longest_first",
                        "    import unicodedata\n    text = unicodedata.normalize('NFC', text)\n"
                        "    if special_tokens:\n        longest_first"),), "normalized to NFC"),
    "answers-kept-by-text": ("task3_encode_text_solution",
                             kept_by("text", "    if special_tokens:\n        longest_first", "tokens", "tokens"),
                             "encode_text(text='the cat sat'"),
    "special-tokens-shortest-first": ("task3_encode_text_solution", (("sorted(special_tokens, key=len, reverse=True)",
                                                                      "sorted(special_tokens, key=len)"),), "encode_text("),
    "special-tokens-merged-too": ("task3_encode_text_solution", (('            tokens.append(piece.encode("utf-8"))\n',
                                  '            tokens += encode_pretoken(piece.encode("utf-8"), ranks)\n'),), "encode_text("),
    "unlisted-endoftext-refused": ("task3_encode_text_solution", (("    if special_tokens:\n        longest_first",
                                   "    if EOT in text and EOT not in special_tokens:\n        raise ValueError('disallowed special "
                                   "token')\n    if special_tokens:\n        longest_first"),), "raised ValueError"),
    "pretokens-as-latin-1": ("task3_encode_text_solution", (('encode_pretoken(pretoken.encode("utf-8"), ranks)',
                             "encode_pretoken(bytes(ord(c) % 256 for c in pretoken), ranks)"),), "encode_text("),
    "arena-as-a-bytearray": ("task4_build_arena_solution", (('    return b"".join(pieces), offsets\n',
                             '    return bytearray(b"".join(pieces)), offsets\n'),), "bytearray"),
    "decoded-with-replace-and-back": ("task5_decode_with_arena_solution", (('    return b"".join(pieces)\n',
                                      '    return b"".join(pieces).decode("utf-8", errors="replace").encode()\n'),),
                                      "decode_with_arena("),
    "each-token-decoded-alone": ("task5_decode_with_arena_solution", ((
        "        pieces.append(buffer[offsets[token_id] : offsets[token_id + 1]])\n",
        "        pieces.append(buffer[offsets[token_id] : offsets[token_id + 1]].decode('utf-8', errors='ignore').encode())\n"),),
        "decode_with_arena("),
    "bounds-checked-past-the-end-only": ("task5_decode_with_arena_solution", (("not 0 <= token_id < len(offsets) - 1",
                                         "token_id >= len(offsets) - 1"),), "a negative id"),
}

LAB07_MISTAKES_2 = {
    # a sentinel appended to the caller's parts, so that the last pair needs no bounds check
    "sentinel-in-the-callers-parts": ("task1_first_heap_solution", (("    heap = []\n",
                                      "    parts.append(None)  # a sentinel: (last, None) is never a merge\n    heap = []\n"),),
                                      "changed its argument parts"),
    "one-entry-per-merge": ("task1_first_heap_solution", (("        if rank is not None:\n",
                            "        if rank is not None and all(entry[0] != rank for entry in heap):\n"),), "an entry is missing"),
    "non-merges-with-an-infinite-rank": ("task1_first_heap_solution", ((
        "        if rank is not None:\n            heap.append((rank, position))\n",
        "        heap.append((float('inf') if rank is None else rank, position))  # never popped first\n"),), "first_heap("),
    "parts-of-characters": ("task3_heap_encode_solution", (("    parts = list(split_into_bytes(pretoken))\n",
                            f"    parts = {FROM_CHARACTERS}\n"),), "you started from the pretoken's characters"),
    "answers-kept-by-pretoken": ("task3_heap_encode_solution", (
        ("def ", "_KEPT = {}  # answers kept from call to call, by pretoken alone\ndef "),
        ("    parts = list(split_into_bytes(pretoken))\n    return merge_all(parts, ranks, first_heap(parts, ranks))\n",
         "    if pretoken not in _KEPT:\n        parts = list(split_into_bytes(pretoken))\n"
         "        _KEPT[pretoken] = merge_all(parts, ranks, first_heap(parts, ranks))\n    return _KEPT[pretoken]\n")),
        "heap_encode(pretoken=b' worked'"),
}

LAB08_MISTAKES_2 = {
    # both tokens valid and the pair no merge: page 08's a + aa of "aaa" (BPE makes aa a) says otherwise
    "both-valid-and-no-merge": ("task1_compatible_solution", (("return encode_pretoken(left + right, ranks) == [left, right]",
                                "return (encode_pretoken(left, ranks) == [left] and encode_pretoken(right, ranks) == [right] "
                                "and (left, right) not in ranks)"),), "compatible(left=b'"),
    "answers-kept-by-pair": ("task1_compatible_solution", (
        ("def ", "_KEPT = {}  # answers kept from call to call, by pair alone\ndef "),
        ("    return encode_pretoken(left + right, ranks) == [left, right]\n",
         "    if (left, right) not in _KEPT:\n        _KEPT[left, right] = encode_pretoken(left + right, ranks) == [left, right]\n"
         "    return _KEPT[left, right]\n")), "compatible(left=b'a', right=b'a'"),
    "two-tokens-of-any-kind": ("task1_compatible_solution", (("return encode_pretoken(left + right, ranks) == [left, right]",
                               "return len(encode_pretoken(left + right, ranks)) == 2"),), "compatible("),
    "only-the-last-token-checked": ("task1_compatible_solution", (("return encode_pretoken(left + right, ranks) == [left, right]",
                                    "return (left, right) not in ranks and encode_pretoken(left + right, ranks)[-1:] == [right]"),),
                                    "compatible("),
    "candidates-of-characters": ("task2_backtrack_encode_solution", (("    valid = {bytes([byte]) for byte in pretoken}\n",
                                 "    valid = {char.encode() for char in pretoken.decode('utf-8', errors='ignore')}\n"),),
                                 "backtrack_encode("),
    "a-failed-end-marked-dead": ("task2_backtrack_encode_solution", ((
        "            else:\n                index += 1  # the next shorter candidate\n",
        "            else:\n                alive[end] = False  # this end did not fit: never try it again\n"
        "                index += 1\n"),), "backtrack_encode("),
    "last-prefix-left-out": ("task3_last_tokens_solution", (("range(1, len(pretoken) + 1)", "range(1, len(pretoken))"),),
                             "last_tokens("),
    "compatible-with-the-previous-entry": ("task3_last_tokens_solution", (("compatible(last[start], token, ranks)",
                                           "compatible(last[end - 1], token, ranks)"),), "last_tokens("),
    "one-per-single-byte-token": ("task4_prefix_token_counts_solution", (("counts[end - len(last[end])] + 1",
                                  "counts[end - 1] + (len(last[end]) == 1)"),), "prefix_token_counts("),
    "one-per-change-of-last": ("task4_prefix_token_counts_solution", (("counts[end - len(last[end])] + 1",
                               "counts[end - 1] + (last[end] != last[end - 1])"),), "prefix_token_counts("),
    "prefix-one-byte-short": ("task4_prefix_token_counts_solution", (("counts[end - len(last[end])] + 1",
                              "counts[end - len(last[end]) - 1] + 1"),), "prefix_token_counts("),
}


SECOND_ROUND = {**{("06_encode_decode", name): mistake for name, mistake in LAB06_MISTAKES_2.items()},
                **{("07_heap_encoding", name): mistake for name, mistake in LAB07_MISTAKES_2.items()},
                **{("08_linear_encoding", name): mistake for name, mistake in LAB08_MISTAKES_2.items()}}
# The mistakes that kept their hidden points, under every seed or some: graded under every seed of SEEDED (the others,
# which already lost them, under the kernel's draw only, to keep the suite's time).
KEPT_HIDDEN_POINTS = {("06_encode_decode", "merged-where-it-first-occurs"), ("06_encode_decode", "text-normalized"),
                      ("06_encode_decode", "answers-kept-by-text"), ("07_heap_encoding", "sentinel-in-the-callers-parts"),
                      ("07_heap_encoding", "parts-of-characters"), ("07_heap_encoding", "answers-kept-by-pretoken"),
                      ("08_linear_encoding", "both-valid-and-no-merge"), ("08_linear_encoding", "answers-kept-by-pair")}


# An answer kept by id(ranks) fails on the dict changed in place between two calls, or first on a generated input whose
# dict took a freed dict's id (which input comes first depends on the allocator: seed 2 met the latter in a CI run), or
# in the hidden test's last call (checks/kept.py), whose second input's dict took the first's id (seed 3).
KEPT_BY_ID = ("the same dict changed in place", "failed once but not when run again", "a cache of answers?")


def round_failure(request, round_: dict, lab: str, mistake: str) -> str:
    """The failure of a learner round's ``mistake`` (cell, changes, expected message, and perhaps the part of the hidden
    test that catches it) in its task's hidden test."""
    graders, solutions = request.getfixturevalue(f"lab{lab[:2]}")
    cell, changes, message, *grader = round_[lab, mistake]  # a grader after the message: a part of the hidden test (its
    # name in the lab's graders, or a function of the graders and the learner's function)
    name = cell.split("_", 1)[1].removesuffix("_solution")
    check = getattr(graders, grader[0] if grader else f"check_{name}_properties") if not grader or isinstance(grader[0], str) \
        else functools.update_wrapper(functools.partial(grader[0], graders), grader[0])
    found = failure(check, variant_of(lab, solutions, cell, name, changes))
    assert any(part in found for part in ((message,) if isinstance(message, str) else message)), found
    return found


def one_per_lab(round_name: str, caught: list, lab: str, mistake: str) -> None:
    """Skip ``mistake`` unless this run draws it among ``lab``'s mistakes of ``caught`` (a round's mistakes that lost their
    points before it): one per lab and round by default, every one under BPE_EXHAUSTIVE=1 (a hidden test each, up to
    seconds; the mistakes a round's fix made lose their points run every time, under one secret seed: ``seeded``)."""
    skip_unless_drawn(f"{round_name} round, lab {lab[:2]}", mistake, [name for of, name in caught if of == lab])


def second_round_failure(request, lab: str, mistake: str) -> str:
    return round_failure(request, SECOND_ROUND, lab, mistake)


@pytest.mark.seeded
@pytest.mark.parametrize("lab, mistake", sorted(KEPT_HIDDEN_POINTS))
def test_labs06_to_08_a_mistake_that_kept_its_hidden_points_now_fails_the_hidden_test(request, lab, mistake):
    second_round_failure(request, lab, mistake)


CAUGHT_BEFORE_ROUND2 = [key for key in SECOND_ROUND if key not in KEPT_HIDDEN_POINTS]


@pytest.mark.parametrize("lab, mistake", CAUGHT_BEFORE_ROUND2)
def test_labs06_to_08_a_learners_mistake_of_the_second_round_fails_the_hidden_test(request, lab, mistake):
    one_per_lab("second", CAUGHT_BEFORE_ROUND2, lab, mistake)
    second_round_failure(request, lab, mistake)


def test_lab07_a_sentinel_in_the_callers_parts_fails_in_the_worker_too():
    """Task.unchanged compares the parts the worker sends back after the call with what was sent, on the trusted side."""
    code = "\n".join(source_of("07_heap_encoding", cell) for cell in ("setup", "task1_first_heap_solution"))
    old, new = LAB07_MISTAKES_2["sentinel-in-the-callers-parts"][1][0]
    message = remote("07_heap_encoding", code.replace(old, new), "first_heap", "check_first_heap_properties")
    assert message is not None and "changed its argument parts" in message, message
    assert remote("07_heap_encoding", code, "first_heap", "check_first_heap_properties") is None


# ---- labs 03, 04 and 05, learn22b: a second learner round (issue 21, item 8) ------------------------------
# Each mistake below kept its hidden points before; it now loses them in its own task.

# Lab 03 task 1: the chunk size kept at one byte at least ("a chunk of 0 bytes makes no sense"): with more chunks asked
# for than the file has bytes, the guesses spread over the file and cut at later tokens, where size // n puts every
# guess at 0. A hidden fixed case shows it, and the generated files that ask for more chunks than they have bytes.
CHUNK_OF_ONE_BYTE_AT_LEAST = ("chunk_size = size // desired_num_chunks", "chunk_size = max(1, size // desired_num_chunks)")


def test_lab03_a_chunk_size_of_one_byte_at_least_fails_the_hidden_test(lab03):
    graders, solutions = lab03
    mistake = variant("03_parallel", solutions, "task1_find_chunk_boundaries_solution", "find_chunk_boundaries",
                      *CHUNK_OF_ONE_BYTE_AT_LEAST)
    graders.check_find_chunk_boundaries(mistake)  # the visible cases pass

    def hidden_fixed_cases(learner):  # the hidden test's fixed cases, called alone (it also measures and generates)
        graders.check_cases(graders.FIND_TASK, learner, graders.find_chunk_boundaries, graders.FIND_HIDDEN_CASES)

    message = failure(hidden_fixed_cases, mistake)
    assert "expected [0, 16], got [0, 8, 16]" in message and "do not make the chunk size at least 1" in message, message
    hidden_fixed_cases(solutions["find_chunk_boundaries"])
    assert list(graders.FIND.hidden_cases) == list(graders.FIND_HIDDEN_CASES)  # and the hidden test holds them


# Lab 03 task 4: step 1 skipped, so that one worker goes through a pool of one process too. The counts are right; the
# pool's start-up is measured from outside the learner's code, as the workers are.
ONE_WORKER_IN_A_POOL = ("    if num_workers == 1 or not special_tokens:\n", "    if not special_tokens:\n")


def test_lab03_one_worker_in_a_pool_fails_the_hidden_test(lab03):
    graders, solutions = lab03
    mistake = variant("03_parallel", solutions, TASK4, "count_pretokens_in_file", *ONE_WORKER_IN_A_POOL)
    data = graders.CorpusFile(("the cat sat on the mat." * 8 + graders.EOT).encode() * 50)
    # The part of the hidden test's measured check that finds it, called alone (the part before it starts a fork server
    # in this process, whose folder would outlive the test run's temporary folder).
    def verify_one_worker_counts_here(learner):
        graders.verify_one_worker_counts_here(learner, data)

    message = failure(verify_one_worker_counts_here, mistake)
    assert "1, 2, 'spawn') started 1 process" in message and "with one worker, count the whole file here" in message
    verify_one_worker_counts_here(solutions["count_pretokens_in_file"])


def lab03_worker_code(cell: str, change: tuple[str, str]) -> str:
    """Lab 03's solution, run in a grading worker as a notebook runs it, with ``change`` made in ``cell``."""
    setup = ("import multiprocessing, os\nfrom collections import Counter\nfrom concurrent.futures import ProcessPoolExecutor\n"
             "from bpe_ref.pretokenize import count_pretokens\n"
             + source_of("03_parallel", "task1_find_chunk_boundaries_solution") + "\n"
             + source_of("03_parallel", "task3_merge_counts_solution") + "\n")
    module = source_of("03_parallel", "task2_count_chunk_solution")
    changed = source_of("03_parallel", cell)
    assert change[0] in changed, change
    return ("get_ipython().run_cell_magic('writefile', 'chunk_counting.py', " + repr(module.split("\n", 1)[1])
            + ")\nfrom chunk_counting import count_chunk\n" + setup + changed.replace(*change))


def test_lab03_one_worker_in_a_pool_fails_in_the_worker_too():
    code = lab03_worker_code(TASK4, ONE_WORKER_IN_A_POOL)
    message = remote("03_parallel", code, "count_pretokens_in_file", "verify_worker_processes")
    assert message is not None and "started 1 process" in message, message


# Lab 03 task 4: start_method=None taken as "spawn" (walk56, a27), where the statement says None leaves the choice to
# Python: the same counts, by another start method than Python's default. A case with None tells them apart.
NONE_AS_SPAWN = ("multiprocessing.get_context(start_method)", 'multiprocessing.get_context(start_method or "spawn")')


def test_lab03_none_taken_as_spawn_fails_in_the_worker():
    code = lab03_worker_code(TASK4, NONE_AS_SPAWN)
    message = remote("03_parallel", code, "count_pretokens_in_file", "verify_worker_processes")
    default = __import__("multiprocessing").get_all_start_methods()[0]
    if default == "spawn":
        assert message is None, message  # spawn is Python's own choice here: the mistake changes nothing
    else:
        assert message is not None and f"none by {default}" in message and "leaves the choice to Python" in message, message


# Lab 03 task 4: the cuts made at the notebook's EOT only, not at every special token given: the same counts (a cut at
# any special token is safe), with long chunks where the others are the only tokens. The tokens asked for are watched.
CUT_AT_EOT_ONLY = ('[t.encode("utf-8") for t in special_tokens]', "[EOT.encode()]")


def test_lab03_cuts_at_endoftext_only_fail_the_hidden_test(lab03):
    graders, solutions = lab03
    mistake = variant("03_parallel", solutions, TASK4, "count_pretokens_in_file", *CUT_AT_EOT_ONLY)
    message = failure(graders.verify_worker_processes, mistake)
    assert "asked find_chunk_boundaries to cut at [b'<|endoftext|>'], not at every special token" in message, message


# Lab 03 task 4: a pool never shut down (no with block, no shutdown): the same counts, and the call returns while its
# workers still run (CPython shuts the pool down once it is garbage-collected, a moment later). Watched from outside.
POOL_LEFT_OPEN = ("    with ProcessPoolExecutor(max_workers=num_workers, mp_context=context) as pool:\n        return merge_counts(",
                  "    pool = ProcessPoolExecutor(max_workers=num_workers, mp_context=context)  # never shut down\n"
                  "    globals().setdefault('KEPT_POOLS', []).append(pool)  # kept for a next call\n"
                  "    if pool:\n        return merge_counts(")
# (kept: a pool left open and collected when the call returns may have shut its workers down by the time they are looked
# at, on a busy machine; CI once saw none running)


def test_lab03_a_pool_left_open_fails_the_hidden_test(lab03):
    graders, solutions = lab03
    mistake = variant("03_parallel", solutions, TASK4, "count_pretokens_in_file", *POOL_LEFT_OPEN)
    message = failure(graders.verify_worker_processes, mistake)
    # Python's default method is asked first (fork here, before 3.14), then the others
    assert "') returned with " in message and "of its worker processes still running" in message, message


def test_lab03_a_pool_left_open_fails_in_the_worker_too():
    setup = ("import multiprocessing, os\nfrom collections import Counter\nfrom concurrent.futures import ProcessPoolExecutor\n"
             "from bpe_ref.pretokenize import count_pretokens\n"
             + source_of("03_parallel", "task1_find_chunk_boundaries_solution") + "\n"
             + source_of("03_parallel", "task3_merge_counts_solution") + "\n")
    module = source_of("03_parallel", "task2_count_chunk_solution")
    code = ("get_ipython().run_cell_magic('writefile', 'chunk_counting.py', " + repr(module.split("\n", 1)[1])
            + ")\nfrom chunk_counting import count_chunk\n" + setup + source_of("03_parallel", TASK4).replace(*POOL_LEFT_OPEN))
    message = remote("03_parallel", code, "count_pretokens_in_file", "verify_worker_processes")
    assert message is not None and "of its worker processes still running" in message, message


# ---- labs 00, 01 and 10, learn22a: a second learner round (issue 21, item 8) ----------------------------------
# The mistakes of this round that kept their hidden points before, each now losing them in its own task under every
# seed (all marked seeded): the text normalized (NFC) or its byte order mark stripped, which page 00 calls two
# spellings of one text; special tokens escaped for '|' only; the curly apostrophe taken into the contractions and a
# tab taken as the space before a word (page 00's pitfalls); the caller's special tokens sorted in place by pretokenize or
# count_pretokens (their statements now say to leave them, as task 2's does); best_pair's ties on the tokens joined with a separator
# byte; and lab 10's map decoding its range through a text wrapper (which translates \r\n), counting it line by line,
# or taking <|endoftext|> as a special token when none is given. (The round's other mistakes already lost points.)

NFC = '__import__("unicodedata").normalize("NFC", {})'
UTF8_ENCODE = "    return list(text.encode(\"utf-8\"))\n"
SPLIT_ESCAPE = "    pattern = \"|\".join(regex.escape(token) for token in longest_first)\n"

LAB00_ROUND2 = {
    "utf8-of-the-nfc-text": ("task1_utf8_bytes_solution", UTF8_ENCODE, f"    return list({NFC.format('text')}.encode(\"utf-8\"))\n",
                             "normalized (NFC)"),
    "utf8-without-the-bom": ("task1_utf8_bytes_solution", UTF8_ENCODE, "    return list(text.lstrip(\"\\ufeff\").encode(\"utf-8\"))\n",
                             "without its byte order mark"),
    # the hint says '|' means "or" in a regex: so that one character is escaped, and '.' or '(' still act as syntax
    "split-escapes-the-bar-only": ("task2_split_on_special_tokens_solution", SPLIT_ESCAPE,
                                   "    pattern = \"|\".join(token.replace(\"|\", \"\\\\|\") for token in longest_first)\n",
                                   "regex.escape"),
    "pretokenize-the-nfc-text": ("task3_pretokenize_solution", "regex.findall(GPT2_PATTERN, piece)",
                                 f"regex.findall(GPT2_PATTERN, {NFC.format('piece')})", "normalized (NFC)"),
    "contractions-with-the-curly-apostrophe": ("task3_pretokenize_solution", *own_pattern(GPT2.replace("'(?:", "['\u2019](?:")),
                                               "pretokenize("),
    "a-tab-before-a-word": ("task3_pretokenize_solution", *own_pattern(GPT2.replace(" ?", "[ \\t]?")), "pretokenize("),
    # special_tokens sorted in place, longest first "as task 2 needs": the statements of tasks 3 and 4 now say to leave it
    "pretokenize-sorts-the-callers-tokens": ("task3_pretokenize_solution", "    pretokens = []\n",
                                             "    special_tokens.sort(key=len, reverse=True)\n    pretokens = []\n",
                                             "changed its argument special_tokens"),
    "count-sorts-the-callers-tokens": ("task4_count_pretokens_solution", "    counts: dict[bytes, int] = {}\n",
                                       "    special_tokens.sort(key=len, reverse=True)\n    counts: dict[bytes, int] = {}\n",
                                       "changed its argument special_tokens"),
    "count-the-nfc-text": ("task4_count_pretokens_solution", "for pretoken in pretokenize(text, special_tokens):",
                           f"for pretoken in pretokenize({NFC.format('text')}, special_tokens):", "normalized (NFC)"),
}

BEST_PAIR_KEY = "    return max(pair_counts, key=lambda pair: (pair_counts[pair], pair))\n"
LAB01_ROUND2 = {
    # the two tokens compared as one string, a separator between them: wrong where a token ends in a byte below it
    f"ties-on-the-tokens-joined-by-{name}": (
        "task2_best_pair_solution", BEST_PAIR_KEY,
        f"    return max(pair_counts, key=lambda pair: (pair_counts[pair], pair[0] + {sep} + pair[1]))\n", "tie at count")
    for name, sep in [("a-space", "b' '"), ("a-nul", "b'\\x00'")]
}

RANGE_DECODE = "    return count_pretokens(data.decode(\"utf-8\"), special_tokens)\n"
LAB10_ROUND2 = {
    "range-through-a-text-wrapper": ("task1_count_range_solution", RANGE_DECODE,
                                     "    import io\n    text = io.TextIOWrapper(io.BytesIO(data), encoding=\"utf-8\").read()\n"
                                     "    return count_pretokens(text, special_tokens)\n", "\\r\\n"),
    "range-line-by-line": ("task1_count_range_solution", RANGE_DECODE,
                           "    counts = Counter()\n    for line in data.decode(\"utf-8\").splitlines(keepends=True):\n"
                           "        counts.update(count_pretokens(line, special_tokens))\n    return dict(counts)\n",
                           # or the measured call's answer, whose file (drawn from the seed) holds \r\n too
                           ("\\r\\n", "another answer than the reference's on this file (measured call)")),
    "range-with-endoftext-by-default": ("task1_count_range_solution", RANGE_DECODE,
                                        "    return count_pretokens(data.decode(\"utf-8\"), special_tokens or [EOT])\n",
                                        "special_tokens=[]"),
}


@pytest.mark.seeded
@pytest.mark.parametrize("mistake", LAB00_ROUND2)
def test_lab00_a_second_rounds_mistake_fails_the_hidden_test(lab00, mistake):
    cell, old, new, message = LAB00_ROUND2[mistake]
    found = hidden_failure("00_pretokenization", lab00, cell, old, new)
    assert message in found, found


@pytest.mark.seeded
@pytest.mark.parametrize("mistake", LAB01_ROUND2)
def test_lab01_a_second_rounds_mistake_fails_the_hidden_test(lab01, mistake):
    cell, old, new, message = LAB01_ROUND2[mistake]
    graders, solutions = lab01
    mistaken = variant("01_naive_bpe", solutions, cell, "best_pair", old, new)
    graders.check_best_pair(mistaken)  # the visible cases hold no token that ends in a space or a NUL byte
    found = failure(graders.check_best_pair_properties, mistaken)
    assert message in found, found


@pytest.mark.seeded
@pytest.mark.parametrize("mistake", LAB10_ROUND2)
def test_lab10_a_second_rounds_mistake_fails_the_hidden_test(lab10, mistake):
    cell, old, new, message = LAB10_ROUND2[mistake]
    graders, solutions = lab10
    mistaken = variant("10_distributed", solutions, cell, "count_range", old, new)
    graders.check_count_range(mistaken)  # the visible cases pass: their files hold no \r\n, no blank line
    found = failure(graders.check_count_range_properties, mistaken)
    assert any(part in found for part in ((message,) if isinstance(message, str) else message)), found


# Lab 10 task 2: an argument returned as the sum when the other is empty ("nothing to add"): the right counts, but not
# the new dict the statement asks for. Whether the sum is new is seen where the call runs, by the task's driver (in
# the grading worker, as lab 09's drivers are): so graded there too.
MERGE_COPY = "    total = dict(left)\n"
RETURNS_AN_ARGUMENT = {"left-when-right-is-empty": "    if not right:\n        return left  # nothing to add\n" + MERGE_COPY,
                       "right-when-left-is-empty": "    if not left:\n        return right\n" + MERGE_COPY}


@pytest.mark.seeded
@pytest.mark.parametrize("new", RETURNS_AN_ARGUMENT.values(), ids=RETURNS_AN_ARGUMENT)
def test_lab10_a_merge_two_that_returns_an_argument_fails_the_hidden_test(lab10, new):
    graders, solutions = lab10
    mistaken = variant("10_distributed", solutions, "task2_merge_two_solution", "merge_two", MERGE_COPY, new)
    assert "returned one of its arguments itself" in failure(graders.check_merge_two_properties, mistaken)
    graders.check_merge_two_properties(solutions["merge_two"])


def test_lab10_a_merge_two_that_returns_an_argument_fails_in_the_worker_too():
    code = source_of("10_distributed", "setup") + "\n" + source_of("10_distributed", "task2_merge_two_solution")
    assert MERGE_COPY in code
    message = remote("10_distributed", code.replace(MERGE_COPY, RETURNS_AN_ARGUMENT["left-when-right-is-empty"]), "merge_two",
                     "check_merge_two_properties")
    assert message is not None and "returned one of its arguments itself" in message, message
    assert remote("10_distributed", code, "merge_two", "check_merge_two_properties") is None


# ---- labs 00, 06 and 10, learn23a: a third learner round (issue 21, item 8) ----------------------------------
# The mistakes of this round that kept their hidden points before, each now losing them in its own task under every
# seed (all marked seeded; the round's other mistakes already lost them). Lab 00: the special tokens split one at a
# time inside pretokenize or count_pretokens (a shorter token that starts first must win), contractions as an apostrophe and any
# lowercase letters, and letters as \p{Alphabetic} (which holds the Hindi vowel signs of page 00). Lab 06: answers kept
# by the pretoken and the ranks' size, the text's line ends normalized or its end stripped, and an argument changed in
# place (special_tokens sorted, vocab filled with the missing ids, ids popped: the statements now say to leave them).
# Lab 10: a range decoded as utf-8-sig, which drops a byte order mark.

THIRD_ROUND = {
    ("00_pretokenization", "special-tokens-split-one-at-a-time"): (
        "task3_pretokenize_solution", (("split_on_special_tokens(text, special_tokens)",
        "__import__('functools').reduce(lambda pieces, token: [part for piece in pieces for part in piece.split(token)], "
        "sorted(special_tokens, key=len, reverse=True), [text])"),), "a<|eot|>"),
    ("00_pretokenization", "count-splits-one-token-at-a-time"): (
        "task4_count_pretokens_solution", (("for pretoken in pretokenize(text, special_tokens):",
        "for pretoken in [pretoken for piece in __import__('functools').reduce(lambda pieces, token: [part for piece in "
        "pieces for part in piece.split(token)], sorted(special_tokens, key=len, reverse=True), [text]) "
        "for pretoken in pretokenize(piece, [])]:"),), "a<|eot|>"),
    ("00_pretokenization", "contractions-of-any-letters"): ("task3_pretokenize_solution", (own_pattern(
        GPT2.replace("'(?:[sdmt]|ll|ve|re)", "'[a-z]+")),), "rock'n'roll"),
    ("00_pretokenization", "letters-as-alphabetic"): ("task3_pretokenize_solution", (own_pattern(
        GPT2.replace(r"\p{L}", r"\p{Alphabetic}")),), "rock'n'roll"),
    ("06_encode_decode", "answers-kept-by-pretoken-and-size-of-ranks"): (
        "task2_encode_pretoken_solution", kept_by("(pretoken, len(ranks))", "    word = split_into_bytes(pretoken)\n",
                                                  "list(word)", "list(word)"), "encode_pretoken(pretoken=b'abc'"),
    # One ranks dict changed in place between two calls (the second declaration of task 2): kept by the dict's id, the
    # second call gets the first's answer. Open after the third round ("no input can force the allocator"), now every time.
    ("06_encode_decode", "answers-kept-by-pretoken-and-id-of-ranks"): (
        "task2_encode_pretoken_solution", kept_by("(pretoken, id(ranks))", "    word = split_into_bytes(pretoken)\n",
                                                  "list(word)", "list(word)"), KEPT_BY_ID),
    ("06_encode_decode", "line-ends-normalized"): ("task3_encode_text_solution", ((
        "    if special_tokens:\n        longest_first",
        "    text = text.replace('\\r\\n', '\\n')  # one kind of line end\n    if special_tokens:\n        longest_first"),),
        "encode_text(text='One.\\r\\n"),
    ("06_encode_decode", "trailing-newlines-stripped"): ("task3_encode_text_solution", ((
        "    if special_tokens:\n        longest_first",
        "    text = text.rstrip('\\n')  # no empty last line\n    if special_tokens:\n        longest_first"),),
        "encode_text(text='One.\\r\\n"),
    ("06_encode_decode", "special-tokens-sorted-in-place"): ("task3_encode_text_solution", ((
        "        longest_first = sorted(special_tokens, key=len, reverse=True)\n",
        "        special_tokens.sort(key=len, reverse=True)\n        longest_first = special_tokens\n"),),
        "changed its argument special_tokens"),
    ("06_encode_decode", "missing-ids-filled-in-vocab"): ("task4_build_arena_solution", ((
        "vocab.get(token_id, b\"\")", "vocab.setdefault(token_id, b\"\")"),), "changed its argument vocab"),
    ("06_encode_decode", "ids-popped"): ("task5_decode_with_arena_solution", ((
        "    for token_id in ids:\n", "    while ids:\n        token_id = ids.pop(0)\n"),), "changed its argument ids"),
    ("10_distributed", "range-decoded-as-utf-8-sig"): ("task1_count_range_solution", ((
        RANGE_DECODE, "    return count_pretokens(data.decode(\"utf-8-sig\"), special_tokens)  # a BOM is no text\n"),),
        "[b'\\xef\\xbb\\xbf'] is 1, expected 2"),
}


@pytest.mark.seeded
@pytest.mark.parametrize("lab, mistake", sorted(THIRD_ROUND), ids=[f"{lab[:2]}-{mistake}" for lab, mistake in sorted(THIRD_ROUND)])
def test_labs00_06_10_a_third_rounds_mistake_fails_the_hidden_test(request, lab, mistake):
    round_failure(request, THIRD_ROUND, lab, mistake)


def test_lab06_missing_ids_filled_in_the_callers_vocab_fail_in_the_worker_too():
    """Task.unchanged compares the vocab the worker sends back after the call with what was sent, on the trusted side."""
    code = "\n".join(source_of("06_encode_decode", cell) for cell in ("setup", "task4_build_arena_solution"))
    old, new = THIRD_ROUND["06_encode_decode", "missing-ids-filled-in-vocab"][1][0]
    assert old in code
    message = remote("06_encode_decode", code.replace(old, new), "build_arena", "check_build_arena_properties")
    assert message is not None and "changed its argument vocab" in message, message
    assert remote("06_encode_decode", code, "build_arena", "check_build_arena_properties") is None


# ---- labs 07, 08 and 09, learn23b: a third learner round (issue 21, item 8) ----------------------------------
# Each mistake must lose the hidden points of its own task. Those that kept full marks before, or kept them under some
# seeds, now lose them under every seed (marked seeded): lab 09's interleaved with another clock by default
# (time.process_time, "CPU time is steadier", or time.time, bound in the signature or looked up when called: the cases
# always passed a clock; a second declaration now finds the clock a call reads when given none); paired_ratio dividing
# into the caller's times in place and lab 08's counts written over the caller's table (both statements now say to
# leave them: Task.unchanged); lab 07's answers kept by pretoken and the pairs of ranks, or their number (hidden fixed
# cases: abab under its two merges in either order), or by the id of ranks, as lab 08's valid tokens (a second
# declaration of each encoder: one ranks dict changed in place between two calls; the id's dict was another under some
# seeds only). The others of the round already lost their hidden points; they stay here so that a change of a grader or
# a strategy that stops catching them shows. (Allowed, so not here: a first heap sorted by rank, a sorted copy of the
# heap popped, the logarithms in base 10, a sign change tested by d[i] * d[i + 1] < 0, the candidates tried shortest
# first: the same answers, as the statements say.)

LAB07_ROUND3 = {
    "entries-position-first": ("task1_first_heap_solution", (("heap.append((rank, position))", "heap.append((position, rank))"),),
                               "first_heap("),
    "not-heapified": ("task1_first_heap_solution", (("    heapq.heapify(heap)  # O(L), once\n", ""),), "first_heap("),
    "the-pair-in-each-entry": ("task1_first_heap_solution", (("heap.append((rank, position))",
                               "heap.append((rank, position, (parts[position], parts[position + 1])))"),), "first_heap("),
    "stale-when-merged-only": ("task2_merge_all_solution", ((
        "        if right_start == end or ranks.get((left, parts[right_start])) != rank:\n", "        if right_start == end:\n"),),
        "merge_all("),
    "stale-when-no-merge-only": ("task2_merge_all_solution", (("ranks.get((left, parts[right_start])) != rank",
                                 "(left, parts[right_start]) not in ranks"),), "merge_all("),
    "callers-parts-merged-in-place": ("task2_merge_all_solution", (("    parts = list(parts)\n", ""),),
                                      "changed its argument parts"),
    "prev-not-linked": ("task2_merge_all_solution", (("            prev[after] = start\n", ""),), "merge_all("),
    "left-pair-pushed-at-start": ("task2_merge_all_solution", (("heapq.heappush(heap, (new, before))",
                                  "heapq.heappush(heap, (new, start))"),), "merge_all("),
    "only-the-right-pair-pushed": ("task2_merge_all_solution", (("                heapq.heappush(heap, (new, before))\n",
                                   "                pass  # the pair on the left has its entry already\n"),), "merge_all("),
    "next-not-linked": ("task2_merge_all_solution", (("after = next_[start] = next_[right_start]",
                        "after = next_[right_start]"),), "merge_all("),
    "list-pop-for-heappop": ("task2_merge_all_solution", (("heapq.heappop(heap)", "heap.pop(0)"),), "merge_all("),
    "parts-through-latin-1": ("task3_heap_encode_solution", (("    parts = list(split_into_bytes(pretoken))\n",
                              "    parts = [bytes([b]) for b in pretoken.decode('latin-1').encode()]\n"),), "heap_encode("),
    "a-tuple-returned": ("task3_heap_encode_solution", (("    return merge_all(parts, ranks, first_heap(parts, ranks))\n",
                         "    return tuple(merge_all(parts, ranks, first_heap(parts, ranks)))\n"),), "heap_encode("),
    **{f"answers-kept-by-pretoken-and-{what}": ("task3_heap_encode_solution", (
        ("def ", f"_KEPT = {{}}  # answers kept from call to call, by pretoken and the merges' {what}\ndef "),
        ("    parts = list(split_into_bytes(pretoken))\n    return merge_all(parts, ranks, first_heap(parts, ranks))\n",
         f"    key = (pretoken, {key})\n    if key not in _KEPT:\n        parts = list(split_into_bytes(pretoken))\n"
         "        _KEPT[key] = merge_all(parts, ranks, first_heap(parts, ranks))\n    return _KEPT[key]\n")),
        "heap_encode(pretoken=b'abab'") for what, key in (("pairs", "frozenset(ranks)"), ("number", "len(ranks)"))},
    "answers-kept-by-pretoken-and-id-of-ranks": ("task3_heap_encode_solution", (
        ("def ", "_KEPT = {}  # answers kept from call to call: ranks is a dict, unhashable, so by its id\ndef "),
        ("    parts = list(split_into_bytes(pretoken))\n    return merge_all(parts, ranks, first_heap(parts, ranks))\n",
         "    key = (pretoken, id(ranks))\n    if key not in _KEPT:\n        parts = list(split_into_bytes(pretoken))\n"
         "        _KEPT[key] = merge_all(parts, ranks, first_heap(parts, ranks))\n    return _KEPT[key]\n")),
        KEPT_BY_ID),
}

VALID_MERGES = "    valid |= {left + right for left, right in ranks if encode_pretoken(left + right, ranks) == [left + right]}\n"
# The valid tokens kept from call to call (the costly part of a call, the same for every pretoken of a text): once, or
# per id(ranks).
VALID_KEPT = {
    "valid-tokens-kept-once": ("_VALID = set()  # the valid merges, computed once: the costly part\ndef ",
                               "    if not _VALID:\n        _VALID.update(left + right for left, right in ranks\n"
                               "                      if encode_pretoken(left + right, ranks) == [left + right])\n    valid |= _VALID\n"),
    "valid-tokens-kept-by-id-of-ranks": ("_VALID = {}  # the valid merges of each ranks dict, by its id\ndef ",
                                         "    if id(ranks) not in _VALID:\n"
                                         "        _VALID[id(ranks)] = {left + right for left, right in ranks\n"
                                         "                             if encode_pretoken(left + right, ranks) == [left + right]}\n"
                                         "    valid |= _VALID[id(ranks)]\n"),
}

LAB08_ROUND3 = {
    "not-a-merge": ("task1_compatible_solution", (("return encode_pretoken(left + right, ranks) == [left, right]",
                    "return (left, right) not in ranks"),), "compatible("),
    "not-one-token": ("task1_compatible_solution", (("return encode_pretoken(left + right, ranks) == [left, right]",
                      "return (left, right) not in ranks and encode_pretoken(left + right, ranks) != [left + right]"),),
                      "compatible("),
    "longest-of-no-merges": ("task2_backtrack_encode_solution", (("    longest = max(map(len, valid), default=1)\n",
                             "    longest = max(len(left + right) for left, right in ranks)\n"),), "raised ValueError"),
    "compatible-with-the-first-token": ("task2_backtrack_encode_solution", (("compatible(tokens[-1], token, ranks)",
                                        "compatible(tokens[0], token, ranks)"),), "backtrack_encode("),
    "window-one-byte-short": ("task2_backtrack_encode_solution", (("range(min(n, pos + longest), pos, -1)",
                              "range(min(n, pos + longest - 1), pos, -1)"),), "backtrack_encode("),
    "last-longest-of-no-merges": ("task3_last_tokens_solution", (("    longest = max(map(len, valid), default=1)\n",
                                  "    longest = max(len(left + right) for left, right in ranks)\n"),), "raised ValueError"),
    "last-of-the-empty-prefix-empty": ("task3_last_tokens_solution", (("    last: list[bytes | None] = [None]\n",
                                       '    last: list[bytes | None] = [b""]\n'),), "last_tokens("),
    "counts-over-the-callers-table": ("task4_prefix_token_counts_solution", ((
        "    counts = [0] * len(last)\n", "    counts = last  # the table becomes the counts, end by end: no second list\n"
        "    counts[0] = 0\n"),), "changed its argument last"),
    "counts-without-the-empty-prefix": ("task4_prefix_token_counts_solution", (("    return counts\n", "    return counts[1:]\n"),),
                                        "prefix_token_counts("),
    "one-per-byte": ("task4_prefix_token_counts_solution", (("counts[end - len(last[end])] + 1", "counts[end - 1] + 1"),),
                     "prefix_token_counts("),
    **{f"{task}-{name}": (f"task{number}_{task}_solution", (("def ", kept), (VALID_MERGES, use)), f"{task}(")
       for number, task in ((2, "backtrack_encode"), (3, "last_tokens")) for name, (kept, use) in VALID_KEPT.items()},
}

CLOCK_DEFAULT = "clock: Callable[[], float] = time.perf_counter"
CLOCK_AT_CALL = "clock: Callable[[], float] | None = None"
LAB09_ROUND3 = {
    "process-time-by-default": ("task1_interleaved_solution", ((CLOCK_DEFAULT,
                                CLOCK_DEFAULT.replace("perf_counter", "process_time")),), "'time.process_time'"),
    "time-time-by-default": ("task1_interleaved_solution", ((CLOCK_DEFAULT, CLOCK_DEFAULT.replace("perf_counter", "time")),),
                             "'time.time'"),
    "time-time-looked-up-when-called": ("task1_interleaved_solution", ((CLOCK_DEFAULT, CLOCK_AT_CALL), (
        "    labels = list(contenders)\n", "    clock = clock or time.time\n    labels = list(contenders)\n")), "'time.time'"),
    "warm-up-runs": ("task1_interleaved_solution", (("    for r in range(rounds):\n",
                     "    for label in contenders:\n        contenders[label]()  # warm up, untimed\n    for r in range(rounds):\n"),),
                     "untimed warm-up runs"),
    "collector-always-on-after": ("task1_interleaved_solution", (("                if was_enabled:\n                    gc.enable()\n",
                                  "                gc.enable()\n"),), "collector on after"),
    "collector-paused-around-all-rounds": ("task1_interleaved_solution", (
        ("    for r in range(rounds):\n", "    was_enabled = gc.isenabled()\n    gc.disable()\n    for r in range(rounds):\n"),
        ("            was_enabled = gc.isenabled()\n            gc.disable()\n            try:\n                start = clock()\n"
         "                contenders[label]()\n                times[label].append(clock() - start)\n            finally:\n"
         "                if was_enabled:\n                    gc.enable()\n",
         "            start = clock()\n            contenders[label]()\n            times[label].append(clock() - start)\n"),
        ("    return times\n", "    if was_enabled:\n        gc.enable()\n    return times\n")), "collector on after"),
    "a-collection-for-a-pause": ("task1_interleaved_solution", (("            gc.disable()\n",
                                 "            gc.collect()  # a clean heap: nothing left to collect\n"),), "interleaved("),
    "state-read-after-the-pause": ("task1_interleaved_solution", ((
        "            was_enabled = gc.isenabled()\n            gc.disable()\n",
        "            gc.disable()\n            was_enabled = gc.isenabled()\n"),), "collector on after"),
    "rotated-the-other-way": ("task1_interleaved_solution", (("labels[first:] + labels[:first]",
                              "labels[-first:] + labels[:-first] if first else labels"),), "round 1 ran"),
    "milliseconds": ("task1_interleaved_solution", (("times[label].append(clock() - start)",
                     "times[label].append((clock() - start) * 1000)"),), "interleaved("),
    "spread-over-the-mean": ("task2_spread_solution", (("    return (q3 - q1) / middle\n",
                             "    return (q3 - q1) / statistics.mean(values)\n"),), "spread("),
    "spread-median-low": ("task2_spread_solution", (("    middle = statistics.median(values)\n",
                          "    middle = statistics.median_low(values)\n"),), "spread("),
    "ratio-mean": ("task3_paired_ratio_solution", (("statistics.median([x / y", "statistics.mean([x / y"),), "paired_ratio("),
    "ratio-median-high": ("task3_paired_ratio_solution", (("statistics.median([x / y", "statistics.median_high([x / y"),),
                          "paired_ratio("),
    "ratio-divided-in-place": ("task3_paired_ratio_solution", ((
        "    return statistics.median([x / y for x, y in zip(times[a], times[b])])\n",
        "    ratios = times[a]\n    for r, y in enumerate(times[b]):\n        ratios[r] /= y  # no second list\n"
        "    return statistics.median(ratios)\n"),), "changed its argument times"),
    "exponent-axes-swapped": ("task4_fit_exponent_solution", ((
        "    return sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys)) / sxx\n",
        "    syy = sum((y - mean_y) ** 2 for y in ys)\n    return sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys)) / syy\n"),),
        "fit_exponent("),
    "exponent-mean-of-slopes": ("task4_fit_exponent_solution", ((
        "    return sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys)) / sxx\n",
        "    slopes = [(y1 - y0) / (x1 - x0) for x0, x1, y0, y1 in zip(xs, xs[1:], ys, ys[1:])]\n"
        "    return sum(slopes) / len(slopes)\n"),), "fit_exponent("),
    "crossover-an-int-x": ("task5_crossover_solution", (("            return float(xs[i])\n", "            return xs[i]\n"),),
                           "crossover("),
    "crossover-the-last": ("task5_crossover_solution", (("    for i in range(len(xs)):\n", "    for i in reversed(range(len(xs))):\n"),),
                           "crossover("),
    "crossover-interpolated-backwards": ("task5_crossover_solution", (("d[i] / (d[i] - d[i + 1])", "d[i] / (d[i + 1] - d[i])"),),
                                         "crossover("),
    "peak-the-current-after": ("task6_peak_memory_solution", (("        peak = tracemalloc.get_traced_memory()[1]\n",
                               "        peak = tracemalloc.get_traced_memory()[0]\n"),), "peak_memory("),
    "peak-traces-cleared": ("task6_peak_memory_solution", (("        tracemalloc.reset_peak()\n",
                            "        tracemalloc.clear_traces()\n"),), "peak_memory("),
    "peak-tracing-always-stopped": ("task6_peak_memory_solution", (("        if not was_tracing:\n            tracemalloc.stop()\n",
                                    "        tracemalloc.stop()\n"),), "leave it on"),
    "peak-read-after-stop": ("task6_peak_memory_solution", ((
        "        peak = tracemalloc.get_traced_memory()[1]\n    finally:\n        if not was_tracing:\n            tracemalloc.stop()\n",
        "    finally:\n        if not was_tracing:\n            tracemalloc.stop()\n    peak = tracemalloc.get_traced_memory()[1]\n"),),
        "peak_memory("),
    "peak-in-kib": ("task6_peak_memory_solution", (("    return result, peak - before\n",
                    "    return result, (peak - before) // 1024\n"),), "peak_memory("),
    "peak-started-again": ("task6_peak_memory_solution", ((
        "    if was_tracing:\n        tracemalloc.reset_peak()\n    else:\n        tracemalloc.start()\n",
        "    tracemalloc.start()  # nothing happens when it is on already\n"),), "peak_memory("),
    "peak-a-float": ("task6_peak_memory_solution", (("    return result, peak - before\n",
                     "    return result, float(peak - before)\n"),), "peak_memory("),
    "peak-not-less-the-start": ("task6_peak_memory_solution", (("    return result, peak - before\n", "    return result, peak\n"),),
                                "peak_memory("),
    "peak-tracing-stopped-without-finally": ("task6_peak_memory_solution", ((
        "    try:\n        before = tracemalloc.get_traced_memory()[0]\n        result = fn()\n"
        "        peak = tracemalloc.get_traced_memory()[1]\n    finally:\n        if not was_tracing:\n            tracemalloc.stop()\n",
        "    before = tracemalloc.get_traced_memory()[0]\n    result = fn()\n    peak = tracemalloc.get_traced_memory()[1]\n"
        "    if not was_tracing:\n        tracemalloc.stop()\n"),), "try ... finally"),
    "spread-exclusive-quartiles": ("task2_spread_solution", (('method="inclusive"', 'method="exclusive"'),), "spread("),
}

THIRD_ROUND_07_TO_09 = {**{("07_heap_encoding", name): mistake for name, mistake in LAB07_ROUND3.items()},
               **{("08_linear_encoding", name): mistake for name, mistake in LAB08_ROUND3.items()},
               **{("09_benchmarks", name): mistake for name, mistake in LAB09_ROUND3.items()}}
KEPT_BEFORE_ROUND3 = {("07_heap_encoding", "answers-kept-by-pretoken-and-pairs"),
                      ("07_heap_encoding", "answers-kept-by-pretoken-and-number"),
                      ("07_heap_encoding", "answers-kept-by-pretoken-and-id-of-ranks"),
                      ("08_linear_encoding", "backtrack_encode-valid-tokens-kept-by-id-of-ranks"),
                      ("08_linear_encoding", "last_tokens-valid-tokens-kept-by-id-of-ranks"),
                      ("08_linear_encoding", "counts-over-the-callers-table"), ("09_benchmarks", "process-time-by-default"),
                      ("09_benchmarks", "time-time-by-default"), ("09_benchmarks", "time-time-looked-up-when-called"),
                      ("09_benchmarks", "ratio-divided-in-place"),
                      ("09_benchmarks", "crossover-interpolated-backwards")}  # seeds40: kept its points under seed 52


def third_round_07_to_09_failure(request, lab: str, mistake: str) -> str:
    return round_failure(request, THIRD_ROUND_07_TO_09, lab, mistake)


@pytest.mark.seeded
@pytest.mark.parametrize("lab, mistake", sorted(KEPT_BEFORE_ROUND3))
def test_labs07_to_09_a_mistake_that_kept_its_hidden_points_now_fails_the_hidden_test(request, lab, mistake):
    third_round_07_to_09_failure(request, lab, mistake)


CAUGHT_BEFORE_ROUND3 = [key for key in THIRD_ROUND_07_TO_09 if key not in KEPT_BEFORE_ROUND3]


def test_lab07_a_stale_check_that_asks_only_whether_the_pair_is_a_merge_fails_under_seed_164(request):
    """Lab 07's merge_all whose stale check asks whether the pair is a merge, not whether it is one of the popped rank,
    kept task 2's hidden points under secret seed 164 (of 0 to 199: hypothesis drew tiny repetitive words, none with a
    pair that merges after the pair on its right). Safe: the hidden test ends with three words of that shape drawn from
    the secret seed, each heap with its early entries (lab 07's verify_early_entries): caught under all 200."""
    request.getfixturevalue("lab07")  # loaded first, so that its copy of the graders draws from the seed too
    with seeded_everywhere(164):
        third_round_07_to_09_failure(request, "07_heap_encoding", "stale-when-no-merge-only")


@pytest.mark.parametrize("lab, mistake", CAUGHT_BEFORE_ROUND3)
def test_labs07_to_09_a_learners_mistake_of_the_third_round_fails_the_hidden_test(request, lab, mistake):
    one_per_lab("third", CAUGHT_BEFORE_ROUND3, lab, mistake)
    third_round_07_to_09_failure(request, lab, mistake)


def test_lab09_the_clock_by_default_is_found_in_the_worker_too():
    """The driver finds the clock a call reads when given none, in the grading worker as in process: a default looked up
    when called is found by the clocks of the worker's time module, replaced for the call; perf_counter so looked up
    passes, as the solution does."""
    code = source_of("09_benchmarks", "setup") + "\n"
    solution = source_of("09_benchmarks", "task1_interleaved_solution")

    def looked_up(clock: str) -> str:
        return solution.replace(CLOCK_DEFAULT, CLOCK_AT_CALL).replace(
            "    labels = list(contenders)\n", f"    clock = clock or time.{clock}\n    labels = list(contenders)\n")

    def default_clock(graders, function) -> None:  # the second declaration of task 1 alone: its hidden case
        graders.check_cases(graders.DEFAULT_CLOCK.task, function, graders.interleaved, graders.DEFAULT_CLOCK.hidden_cases)

    message = remote("09_benchmarks", code + looked_up("time"), "interleaved", default_clock)
    assert message is not None and "'time.time'" in message and "time.perf_counter" in message, message
    assert remote("09_benchmarks", code + looked_up("perf_counter"), "interleaved", default_clock) is None
    assert remote("09_benchmarks", code + solution, "interleaved", default_clock) is None


# ---- lab 05, push05: an entry per window of pairs_with, and more of a learner's mistakes (issue 21, item 8) -----------
# Each mistake below kept its hidden points before; it now loses them in its own task.

# Lab 05 task 3: an entry pushed inside the word loop, once per window that pairs_with returns, not once per pair that
# grew in the merge: right merges, and on the long words of verify_push_cost only 1.3 to 1.9 times the reference's CPU
# time. verify_repeated_windows_cost's corpus repeats one pair thousands of times in a word, then shrinks its count on
# each merge: every copy is popped and pushed back each time (1.4 s, stopped past about 0.7 s; V5 about 0.02 s).
PER_WINDOW = ("                    grown.add(new_pair)\n",
              "                    grown.add(new_pair)\n"
              "                    heapq.heappush(entries, heap_entry(pair_counts[new_pair], new_pair))\n")


def test_lab05_an_entry_per_window_of_pairs_with_fails_the_hidden_test(lab05, at_the_first_verdict):
    graders, solutions = lab05
    mistake = variant("05_heap", solutions, "task3_train_solution", "train", *PER_WINDOW)
    graders.verify_push_cost(mistake)  # the long words' push cost passes it
    with at_the_first_verdict():
        message = failure(graders.check_train_properties, mistake)
    assert "measured from outside your code" in message and "not one per window that pairs_with" in message, message
    graders.verify_repeated_windows_cost(solutions["train"])  # and V5 itself passes


@WORKER_TWIN
def test_lab05_an_entry_per_window_of_pairs_with_fails_in_the_worker_too(at_the_first_verdict):
    setup = "\n".join(source_of("05_heap", cell) for cell in ("setup", "task1_heap_entry_solution", "task2_pop_best_solution"))
    train = source_of("05_heap", "task3_train_solution")
    with at_the_first_verdict():
        message = remote("05_heap", setup + "\n" + train.replace(*PER_WINDOW), "train", "verify_repeated_windows_cost")
    assert message is not None and "measured from outside your code" in message, message
    assert remote("05_heap", setup + "\n" + train, "train", "verify_repeated_windows_cost") is None


# Lab 05 task 2: a pop that does not use the heap. A sorted list is a heap, so sorting the entries and taking the first
# leaves them right; min() then remove() and heapify() too: the same answers and entries, O(H) per entry popped instead
# of O(log H). verify_pop_cost measures 2,000 calls in turn on one heap of 10,000 pairs, each popping an entry or a few
# (about 1 to 1.8 s and 2 to 3 s, past about 0.2 s: stopped at about 0.8 s; the solution about 0.05 s). Sorting once per call:
# tests/test_grading_redteam.py, section 32.
POP_BY_HEAPPOP = "        entry = heapq.heappop(entries)\n"
POPS_WITHOUT_THE_HEAP = {
    "sort-then-first": "        entries.sort()  # a sorted list is a heap: the smallest first\n        entry = entries.pop(0)\n",
    "min-then-remove": "        entry = min(entries)\n        entries.remove(entry)\n        heapq.heapify(entries)\n",
}


@pytest.mark.parametrize("new", POPS_WITHOUT_THE_HEAP.values(), ids=POPS_WITHOUT_THE_HEAP)
def test_lab05_a_pop_that_scans_the_entries_fails_the_hidden_test(lab05, new, at_the_first_verdict):
    graders, solutions = lab05
    mistake = variant("05_heap", solutions, "task2_pop_best_solution", "pop_best", POP_BY_HEAPPOP, new)
    with at_the_first_verdict():
        message = failure(graders.check_pop_best_properties, mistake)
    assert "measured from outside your code" in message and "heapq.heappop" in message, message
    graders.verify_pop_cost(solutions["pop_best"])  # and the solution passes


@WORKER_TWIN
def test_lab05_a_pop_that_sorts_the_entries_fails_in_the_worker_too(at_the_first_verdict):
    code = "\n".join(source_of("05_heap", cell) for cell in ("setup", "task1_heap_entry_solution", "task2_pop_best_solution"))
    with at_the_first_verdict():
        message = remote("05_heap", code.replace(POP_BY_HEAPPOP, POPS_WITHOUT_THE_HEAP["sort-then-first"]), "pop_best",
                         "verify_pop_cost")
    assert message is not None and "measured from outside your code" in message, message
    assert remote("05_heap", code, "pop_best", "verify_pop_cost") is None


# Lab 05 task 3: the caller's pretoken counts turned into the words (lab 01's mistake, made again in V5's loop): the right
# merges, and the caller's dict is gone. The statement now says to leave it, as labs 01 and 02 say, and the task checks it.
INPUT_INTO_WORDS = ("    words = [split_into_bytes(pretoken) for pretoken in pretoken_counts]\n"
                    "    frequencies = list(pretoken_counts.values())\n",
                    "    for pretoken in list(pretoken_counts):\n"
                    "        pretoken_counts[split_into_bytes(pretoken)] = pretoken_counts.pop(pretoken)\n"
                    "    words, frequencies = list(pretoken_counts), list(pretoken_counts.values())\n")


def test_lab05_a_train_that_turns_its_input_into_words_fails_the_hidden_test(lab05):
    graders, solutions = lab05
    mistake = variant("05_heap", solutions, "task3_train_solution", "train", *INPUT_INTO_WORDS)

    def hidden_cases(learner):  # the hidden test's generated corpora, called alone (it also measures, first)
        graders.check_property(graders.TRAIN_TASK, learner, graders.reference_train, graders.TRAIN.strategy,
                               max_examples=graders.TRAIN.max_examples)

    assert "changed its argument pretoken_counts" in failure(hidden_cases, mistake)
    hidden_cases(solutions["train"])


# ---- labs 01 to 04, learn24: a fourth learner round (issue 21, item 8) ----------------------------------------
# Each mistake must lose the points of its own task in the hidden test (and no other task's). Those that kept their points
# before now lose them under every seed (marked seeded, KEPT_BEFORE_ROUND4): lab 01's merge written as page 01's five-minute
# toy on bytes (each token in brackets, bytes.replace, split again at b"][" or read back with a regex: a token's own bracket
# is taken for the separator; half of merge_word's hidden inputs now hold bracket tokens), and lab 04's trainer that turns
# the caller's counts into its words or deletes its one-byte pretokens (task 3's statement now says to leave
# pretoken_counts, as labs 01, 02 and 05 do: Task.unchanged). The others of the round already lost their hidden points;
# they stay here so that a change of a grader or a strategy that stops catching them shows. (Allowed, so not here: a
# Counter returned for a dict, ties compared on latin-1 text (the same order as the bytes), pair count changes computed
# with Counter arithmetic, a count that can never go negative left alone, V2's filter on the joined bytes or over a dict
# of words, words found again with list.index (V2's pass over the words already costs as much), pairs_with written as a
# walk around each occurrence of the token (the same list), and V4 iterating index[pair] unpopped, adding every pair of
# a rewritten word or testing for the pair before merge_and_update: the same merges at the same cost, as page 04 says.)

MERGE_BODY = ("    merged = []\n    i = 0\n    while i < len(word):\n"
              "        if i + 1 < len(word) and word[i] == pair[0] and word[i + 1] == pair[1]:\n"
              "            merged.append(word[i] + word[i + 1])\n            i += 2\n        else:\n            merged.append(word[i])\n"
              "            i += 1\n    return tuple(merged)\n")
BRACKETS = ("    text = b''.join(b'[' + token + b']' for token in word)  # page 01's toy: each symbol in brackets\n"
            "    text = text.replace(b'[' + pair[0] + b'][' + pair[1] + b']', b'[' + pair[0] + pair[1] + b']')\n")
PAIR_PICK = "        pair = best_pair(pair_counts)\n"
COUNT_LOOP = "        for pair in zip(word, word[1:]):\n            counts[pair] += frequency\n"

LAB01_ROUND4 = {
    "count-unweighted": ("task1_count_pairs_solution", (("counts[pair] += frequency", "counts[pair] += 1  # one per window"),),
                         "count_pairs("),
    "count-last-window-missed": ("task1_count_pairs_solution", ((COUNT_LOOP, "        for i in range(len(word) - 2):\n"
                                 "            counts[word[i], word[i + 1]] += frequency\n"),), "count_pairs("),
    "count-one-per-pair-of-a-word": ("task1_count_pairs_solution", ((COUNT_LOOP, "        for pair, n in {pair: frequency for pair in "
                                     "zip(word, word[1:])}.items():\n            counts[pair] += n\n"),), "count_pairs("),
    "count-across-words": ("task1_count_pairs_solution", (("    for word, frequency in word_counts.items():\n" + COUNT_LOOP,
                           "    sequence = [token for word, frequency in word_counts.items() for _ in range(frequency) for token in word]\n"
                           "    for pair in zip(sequence, sequence[1:]):\n        counts[pair] += 1\n"),), "count_pairs("),
    "ties-right-token-first": ("task2_best_pair_solution", ((BEST_PAIR_KEY, "    return max(pair_counts, key=lambda pair: "
                               "(pair_counts[pair], pair[1], pair[0]))\n"),), "tie at count"),
    "first-of-the-top-in-dict-order": ("task2_best_pair_solution", ((BEST_PAIR_KEY, "    top = max(pair_counts.values())\n"
                                       "    return [pair for pair in pair_counts if pair_counts[pair] == top][0]\n"),), "tie at count"),
    "sorted-by-count-only": ("task2_best_pair_solution", ((BEST_PAIR_KEY, "    return sorted(pair_counts, key=lambda pair: "
                             "pair_counts[pair], reverse=True)[0]\n"),), "tie at count"),
    "best-pair-a-list": ("task2_best_pair_solution", ((BEST_PAIR_KEY, "    return list(max(pair_counts, key=lambda pair: "
                         "(pair_counts[pair], pair)))\n"),), "best_pair("),
    "merge-the-pages-toy-on-bytes": ("task3_merge_word_solution", ((MERGE_BODY, BRACKETS +
                                     "    return tuple(text[1:-1].split(b'][')) if word else ()\n"),), "a bracket too"),
    "merge-the-pages-toy-read-back-by-regex": ("task3_merge_word_solution", ((MERGE_BODY, BRACKETS +
                                               "    return tuple(__import__('re').findall(rb'\\[(.*?)\\]', text, 16))\n"),),
                                               "a bracket too"),
    "merge-returns-a-list": ("task3_merge_word_solution", (("    return tuple(merged)\n", "    return merged\n"),), "merge_word("),
    "merge-right-to-left": ("task3_merge_word_solution", ((MERGE_BODY, "    merged = []\n    i = len(word) - 1\n    while i >= 0:\n"
                            "        if i >= 1 and word[i - 1] == pair[0] and word[i] == pair[1]:\n"
                            "            merged.append(word[i - 1] + word[i])\n"
                            "            i -= 2\n        else:\n            merged.append(word[i])\n            i -= 1\n"
                            "    return tuple(reversed(merged))\n"),), "merge_word("),
    "merge-first-occurrence-only": ("task3_merge_word_solution", ((MERGE_BODY, "    for i in range(len(word) - 1):\n"
                                    "        if (word[i], word[i + 1]) == pair:\n"
                                    "            return word[:i] + (pair[0] + pair[1],) + word[i + 2:]\n"
                                    "    return tuple(word)\n"),), "merge_word("),
    "train-unweighted": ("task4_train_solution", (("{split_into_bytes(pretoken): count for pretoken, count in pretoken_counts.items()}",
                         "{split_into_bytes(pretoken): 1 for pretoken in pretoken_counts}"),), "train("),
    "train-most-common": ("task4_train_solution", ((PAIR_PICK, "        pair = Counter(pair_counts).most_common(1)[0][0]\n"),), "train("),
    "train-ties-on-ids": ("task4_train_solution", (("    merges = []\n",
                                                   "    merges = []\n    ids = {bytes([b]): b for b in range(256)}\n"),
                          (PAIR_PICK, "        pair = max(pair_counts, key=lambda p: (pair_counts[p], ids[p[0]], ids[p[1]]))\n"
                           "        ids[pair[0] + pair[1]] = len(ids)  # HF's rule: the later token wins a tie\n")), "train("),
    "train-characters": ("task4_train_solution", (("{split_into_bytes(pretoken): count",
                                                   "{tuple(c.encode() for c in pretoken.decode('utf-8')): count"),), "train("),
    "train-stops-at-count-one": ("task4_train_solution", ((PAIR_PICK, PAIR_PICK + "        if pair_counts[pair] < 2:\n"
                                 "            break  # a pair seen once is not worth a token\n"),), "train("),
    "train-one-merge-too-many": ("task4_train_solution", (("for _ in range(num_merges):", "for _ in range(num_merges + 1):"),),
                                 "train("),
    "train-words-not-rewritten": ("task4_train_solution", (("        words = {merge_word(word, pair)",
                                                            "        merged = {merge_word(word, pair)"),), "train("),
}

V2_UPDATE = "                words[i] = merge_and_update(word, pair, frequencies[i], pair_counts)\n"
PER_OCCURRENCE = ("    left, right = pair\n    merged = left + right\n    changes = defaultdict(int)\n    i = 0\n"
                  "    while i < len(word) - 1:\n"
                  "        if word[i] == left and word[i + 1] == right:  # x and y read from the word before the merge\n"
                  "            changes[pair] -= frequency\n            if i > 0:\n                changes[word[i - 1], left] -= frequency\n"
                  "                changes[word[i - 1], merged] += frequency\n            if i + 2 < len(word):\n"
                  "                changes[right, word[i + 2]] -= frequency\n                changes[merged, word[i + 2]] += frequency\n"
                  "            i += 2\n        else:\n            i += 1\n")
CHANGES_BODY = ("    merged = merge_word(word, pair)\n    changes: dict[Pair, int] = defaultdict(int)\n"
                "    for old in zip(word, word[1:]):\n"
                "        changes[old] -= frequency\n    for new in zip(merged, merged[1:]):\n        changes[new] += frequency\n")
UPDATE_BODY = ("    for changed, change in pair_count_changes(word, pair, frequency).items():\n"
               "        count = pair_counts.get(changed, 0) + change\n        if count:\n            pair_counts[changed] = count\n"
               "        else:\n            del pair_counts[changed]\n")

LAB02_ROUND4 = {
    "changes-zeros-kept": ("task1_pair_count_changes_solution", ((
        "    return {p: change for p, change in changes.items() if change != 0}\n", "    return dict(changes)\n"),), "expected {}"),
    "changes-per-replaced-occurrence": ("task1_pair_count_changes_solution", ((CHANGES_BODY, PER_OCCURRENCE),),
                                        "around each occurrence of the pair on its own"),
    "changes-gains-unweighted": ("task1_pair_count_changes_solution", (("changes[new] += frequency", "changes[new] += 1"),),
                                 "pair_count_changes("),
    "changes-sets-of-pairs": ("task1_pair_count_changes_solution", ((CHANGES_BODY, "    merged = merge_word(word, pair)\n"
                              "    old, new = set(zip(word, word[1:])), set(zip(merged, merged[1:]))\n"
                              "    changes = {p: -frequency for p in old - new}\n"
                              "    changes.update({p: frequency for p in new - old})\n"),),
                              "pair_count_changes("),
    "update-deletes-the-merged-pair": ("task2_merge_and_update_solution", ((UPDATE_BODY, UPDATE_BODY.replace(
        "        count = pair_counts", "        if changed == pair:\n            pair_counts.pop(pair, None)  # merged: gone for good\n"
        "            continue\n        count = pair_counts")),), "merge_and_update("),
    "update-inline-per-occurrence": ("task2_merge_and_update_solution", ((UPDATE_BODY, PER_OCCURRENCE +
        "    for changed, change in changes.items():\n        count = pair_counts.get(changed, 0) + change\n        if count:\n"
        "            pair_counts[changed] = count\n        else:\n            pair_counts.pop(changed, None)\n"),), "merge_and_update("),
    "update-zero-check-on-the-pair-only": ("task2_merge_and_update_solution", ((UPDATE_BODY,
        "    for changed, change in pair_count_changes(word, pair, frequency).items():\n"
        "        pair_counts[changed] = pair_counts.get(changed, 0) + change\n    if pair_counts.get(pair) == 0:\n"
        "        del pair_counts[pair]\n"),), "merge_and_update("),
    "train-merged-word-not-stored": ("task3_train_solution", ((V2_UPDATE, V2_UPDATE.replace("words[i] = ", "")),), "train(",
                                     "check_train_merges"),
    "train-stops-at-count-one": ("task3_train_solution", ((V2_PICK, V2_PICK + "        if pair_counts[pair] < 2:\n            break\n"),),
                                 "train(", "check_train_merges"),
    "train-pair-counts-of-distinct-words": ("task3_train_solution", (("count_pairs(dict(zip(words, frequencies)))",
                                            "count_pairs(dict.fromkeys(words, 1))"),), "train(", "check_train_merges"),
    "train-update-unweighted": ("task3_train_solution", (("merge_and_update(word, pair, frequencies[i], pair_counts)",
                                "merge_and_update(word, pair, 1, pair_counts)"),), "train(", "check_train_merges"),
    # the update written out in the loop, its zero counts left: pairs no word holds any more are merged at the end
    "train-inline-update-zeros-kept": ("task3_train_solution", ((V2_UPDATE,
        "                for changed, change in pair_count_changes(word, pair, frequencies[i]).items():\n"
        "                    pair_counts[changed] = pair_counts.get(changed, 0) + change\n"
        "                words[i] = merge_word(word, pair)\n"),), "train(", "check_train_merges"),
}

V4_FILE = "                for new_pair in pairs_with(words[i], token):\n                    index[new_pair].add(i)\n"
WORDS_AND_FREQUENCIES = ("    words = [split_into_bytes(pretoken) for pretoken in pretoken_counts]\n"
                         "    frequencies = list(pretoken_counts.values())\n")
PAIRS_WITH = "    return [pair for pair in zip(word, word[1:]) if token in pair]\n"

LAB04_ROUND4 = {
    "index-of-distinct-words": ("task1_index_words_solution", (("enumerate(words)", "enumerate(dict.fromkeys(words))"),),
                                "index_words("),
    "index-of-the-first-window-only": ("task1_index_words_solution", (("            index[pair].add(i)\n",
                                       "            if i in index[pair]:\n                break  # listed already\n"
                                       "            index[pair].add(i)\n"),), "index_words("),
    "index-sorts-the-words": ("task1_index_words_solution", (("    for i, word in enumerate(words):\n",
                              "    words.sort(key=len)  # short words first\n    for i, word in enumerate(words):\n"),), "index_words("),
    "index-skips-the-last-window": ("task1_index_words_solution", (("zip(word, word[1:])", "zip(word[:-1], word[1:-1])"),),
                                    "index_words("),
    "pairs-with-a-set": ("task2_pairs_with_solution", ((PAIRS_WITH, "    return list({pair for pair in zip(word, word[1:]) "
                         "if token in pair})\n"),), "pairs_with("),
    "pairs-with-left-only": ("task2_pairs_with_solution", ((PAIRS_WITH, "    return [pair for pair in zip(word, word[1:]) "
                             "if pair[0] == token]\n"),), "pairs_with("),
    "pairs-with-reversed": ("task2_pairs_with_solution", ((PAIRS_WITH, "    return [pair for pair in reversed(list(zip(word, word[1:]))) "
                            "if token in pair]\n"),), "pairs_with("),
    "train-turns-its-input-into-words": ("task3_train_solution", ((WORDS_AND_FREQUENCIES, "    for pretoken in list(pretoken_counts):\n"
                                         "        pretoken_counts[split_into_bytes(pretoken)] = pretoken_counts.pop(pretoken)\n"
                                         "    words, frequencies = list(pretoken_counts), list(pretoken_counts.values())\n"),),
                                         "changed its argument pretoken_counts", "check_train_merges"),
    "train-deletes-short-pretokens": ("task3_train_solution", ((WORDS_AND_FREQUENCIES, DELETES_SHORT_PRETOKENS[1]
                                      + "    frequencies = list(pretoken_counts.values())\n"),),
                                      "changed its argument pretoken_counts", "check_train_merges"),
    "train-new-entries-only": ("task3_train_solution", ((V4_FILE, "                for new_pair in pairs_with(words[i], token):\n"
                               "                    if new_pair not in index:\n                        index[new_pair] = {i}  # a pair "
                               "the merge created\n"),), "train(", "check_train_merges"),
    "train-files-under-the-left-token": ("task3_train_solution", (("pairs_with(words[i], token)", "pairs_with(words[i], pair[0])"),),
                                         "train(", "check_train_merges"),
    "train-files-the-old-words-pairs": ("task3_train_solution", (("pairs_with(words[i], token)", "pairs_with(word, token)"),),
                                        "train(", "check_train_merges"),
    "train-exact-index-per-lost-window": ("task3_train_solution", ((V4_FILE, V4_FILE +
        "                for lost in set(zip(word, word[1:])) - set(pairs_with(words[i], token)):\n"
        "                    if lost != pair and token not in lost:\n"
        "                        index[lost].discard(i)  # a window it lost\n"),),
        "train(", "check_train_merges"),
    "train-words-of-a-set": ("task3_train_solution", (("for pretoken in pretoken_counts]", "for pretoken in set(pretoken_counts)]"),),
                             "train(", "check_train_merges"),
    "train-update-unweighted": ("task3_train_solution", (("merge_and_update(word, pair, frequencies[i], pair_counts)",
                                "merge_and_update(word, pair, 1, pair_counts)"),), "train(", "check_train_merges"),
}

CHUNK_READ = "    return count_pretokens(data.decode(\"utf-8\"), special_tokens)\n"
SERIAL_READ = ('        with open(path, "rb") as file:  # its bytes: text mode would turn \\r\\n into \\n\n'
               '            return count_pretokens(file.read().decode("utf-8"), special_tokens)\n')
BOUNDARY_FIND = "window.find(t, 0, buffer_size + len(t) - 1)"


def hidden_fixed_file_cases(graders, learner) -> None:
    """Task 4's hidden fixed cases, called alone (its hidden test first measures the workers, in pools of every start
    method): a file of \\r\\n lines with no special token, counted here, and the TinyStories sample in 2 workers."""
    graders.check_cases(graders.FILE_TASK, learner, graders.serial_count, graders.COUNT_PRETOKENS_IN_FILE.hidden_cases)


LAB03_ROUND4 = {
    # page 03's toy's guesses, k * len(text) // n: the statement's are i * (size // n)
    "guesses-of-the-pages-toy": ("task1_find_chunk_boundaries_solution", (("max(i * chunk_size, boundaries[-1])",
                                 "max(i * size // desired_num_chunks, boundaries[-1])"),), "find_chunk_boundaries("),
    "overlap-of-the-shortest-token": ("task1_find_chunk_boundaries_solution", (("max(len(token) for token in split_tokens) - 1",
                                      "min(len(token) for token in split_tokens) - 1"),), "find_chunk_boundaries("),
    "found-within-the-buffer-only": ("task1_find_chunk_boundaries_solution", ((BOUNDARY_FIND, "window.find(t, 0, buffer_size)"),),
                                     "find_chunk_boundaries("),
    "offset-added-to-the-guess": ("task1_find_chunk_boundaries_solution", (  # page 03's bug 1, the reads counted apart
        ("            position = max(i * chunk_size, boundaries[-1])\n",
         "            guess = position = max(i * chunk_size, boundaries[-1])\n            reads = 0\n"),
        ("                file.seek(position)\n",
         "                position = guess + reads * buffer_size\n                file.seek(position)\n"),
        ("                    position += min(found)\n", "                    position = guess + min(found)\n"),
        ("                position += buffer_size\n", "                reads += 1\n")), "find_chunk_boundaries("),
    "first-guess-at-zero": ("task1_find_chunk_boundaries_solution", (("range(1, desired_num_chunks)", "range(desired_num_chunks)"),),
                            "find_chunk_boundaries("),
    "chunk-in-text-mode": ("task2_count_chunk_solution", (('open(path, "rb")', 'open(path, encoding="utf-8")'),
                           ("data = file.read(end - start)", "data = file.read(end - start).encode()  # characters")), "count_chunk("),
    "chunk-read-to-end": ("task2_count_chunk_solution", (("file.read(end - start)", "file.read(end)"),), "count_chunk("),
    "chunk-without-special-tokens": ("task2_count_chunk_solution", ((CHUNK_READ, CHUNK_READ.replace("special_tokens)", "[])")),),
                                     "count_chunk("),
    # one kind of line end, as a text-mode read gives: a file of Windows lines counts b"\r\n" pretokens
    "chunk-line-ends-normalized": ("task2_count_chunk_solution", ((CHUNK_READ, CHUNK_READ.replace(
        'data.decode("utf-8")', 'data.decode("utf-8").replace("\\r\\n", "\\n")')),), "line ends are gone"),
    "merge-overwrites": ("task3_merge_counts_solution", (("        total.update(chunk_counts)\n",
                         "        total = Counter({**total, **chunk_counts})\n"),), "merge_counts("),
    # the whole file read in text mode (the solution itself did until this round), or with the locale's encoding
    "serial-read-in-text-mode": ("task4_count_pretokens_in_file_solution", ((SERIAL_READ, '        with open(path, encoding="utf-8") as '
                                 'file:\n            return count_pretokens(file.read(), special_tokens)\n'),), "line ends are gone",
                                 hidden_fixed_file_cases),
    "serial-read-with-the-locale": ("task4_count_pretokens_in_file_solution", ((SERIAL_READ, '        with open(path) as file:\n'
                                    '            return count_pretokens(file.read(), special_tokens)\n'),), "line ends are gone",
                                    hidden_fixed_file_cases),
    "no-special-tokens-to-the-workers": ("task4_count_pretokens_in_file_solution", (("[special_tokens] * len(starts)",
                                         "[[]] * len(starts)"),), "pieces of a special token", hidden_fixed_file_cases),
    "ranges-one-byte-short": ("task4_count_pretokens_in_file_solution", (("starts, ends = boundaries[:-1], boundaries[1:]",
                              "starts, ends = boundaries[:-1], [b - 1 for b in boundaries[1:-1]] + boundaries[-1:]"),),
                              "count_pretokens_in_file(", hidden_fixed_file_cases),
    "tokens-not-encoded": ("task4_count_pretokens_in_file_solution", (('[t.encode("utf-8") for t in special_tokens]', "special_tokens"),),
                           "raised", hidden_fixed_file_cases),
    "pool-of-the-chunks": ("task4_count_pretokens_in_file_solution", (("max_workers=num_workers,",
                           "max_workers=num_workers * chunks_per_worker,"),), "processes for 2 workers", "verify_worker_processes"),
}

FOURTH_ROUND_01_TO_04 = {**{("01_naive_bpe", name): mistake for name, mistake in LAB01_ROUND4.items()},
                         **{("02_incremental", name): mistake for name, mistake in LAB02_ROUND4.items()},
                         **{("03_parallel", name): mistake for name, mistake in LAB03_ROUND4.items()},
                         **{("04_inverted_index", name): mistake for name, mistake in LAB04_ROUND4.items()}}
KEPT_BEFORE_ROUND4 = {("01_naive_bpe", "merge-the-pages-toy-on-bytes"), ("01_naive_bpe", "merge-the-pages-toy-read-back-by-regex"),
                      ("03_parallel", "chunk-line-ends-normalized"), ("03_parallel", "serial-read-in-text-mode"),
                      ("03_parallel", "serial-read-with-the-locale"), ("04_inverted_index", "train-turns-its-input-into-words"),
                      ("04_inverted_index", "train-deletes-short-pretokens")}


@pytest.mark.seeded
@pytest.mark.parametrize("lab, mistake", sorted(KEPT_BEFORE_ROUND4), ids=[f"{lab[:2]}-{name}" for lab, name in sorted(KEPT_BEFORE_ROUND4)])
def test_labs01_to_04_a_mistake_that_kept_its_points_now_fails_the_hidden_test(request, lab, mistake):
    round_failure(request, FOURTH_ROUND_01_TO_04, lab, mistake)


# Mistakes of task 4 of lab 03 that already lost their points and cost seconds each (worker pools on the TinyStories
# sample, or in every start method): graded under BPE_EXHAUSTIVE=1 only.
POOLS_ROUND4 = {("03_parallel", "ranges-one-byte-short"), ("03_parallel", "no-special-tokens-to-the-workers"),
                ("03_parallel", "pool-of-the-chunks")}
ON_DEMAND_ROUND4 = pytest.mark.skipif(not EXHAUSTIVE, reason="a mistake of lab 03's task 4 that lost its points before this round, "
                                      "graded in worker pools (seconds): BPE_EXHAUSTIVE=1 grades it")


CAUGHT_BEFORE_ROUND4 = [key for key in FOURTH_ROUND_01_TO_04 if key not in KEPT_BEFORE_ROUND4 and key not in POOLS_ROUND4]


@pytest.mark.parametrize("lab, mistake", [pytest.param(*key, id=f"{key[0][:2]}-{key[1]}", marks=[ON_DEMAND_ROUND4] * (key in POOLS_ROUND4))
                                          for key in FOURTH_ROUND_01_TO_04 if key not in KEPT_BEFORE_ROUND4])
def test_labs01_to_04_a_learners_mistake_of_the_fourth_round_fails_the_hidden_test(request, lab, mistake):
    one_per_lab("fourth", CAUGHT_BEFORE_ROUND4, lab, mistake)
    round_failure(request, FOURTH_ROUND_01_TO_04, lab, mistake)


def test_lab01_the_pages_toy_on_bytes_gets_a_hint_and_the_solution_none(lab01):
    """The bracket hint names the toy where a token holds a bracket and the tokens returned no longer spell the word, and
    says nothing to a right merge of bracket tokens (its answer is the reference's) nor to a wrong one that keeps the bytes."""
    graders, _ = lab01
    word, pair = (b"a", b"]["), (b"a", b"][")
    assert "a bracket too" in graders.bracket_hint((word, pair), (b"a][",), (b"a]", b""))
    assert graders.bracket_hint((word, pair), (b"a][",), (b"a", b"][")) is None  # the pair left alone: the same bytes
    assert graders.bracket_hint(((b"a", b"a", b"a"), (b"a", b"a")), (b"aa", b"a"), (b"a",)) is None  # no bracket


# ---- labs 05 to 10, learn25: a fifth learner round (issue 21, item 8) ----------------------------------------
# Each mistake must lose the points of its own task in the hidden test (and no other task's). Those that kept their points
# before now lose them under every seed (marked seeded, KEPT_BEFORE_ROUND5): lab 08's encoders with the longest valid token
# found by max() without a default (the empty pretoken under no merges at all has no valid token: a hidden fixed case now),
# lab 09's rotation started at r, not r % n (right for the first n rounds: the visible test alone had more; a hidden
# fixed case has two contenders and 5 rounds, hidden_vary keeps such a case's rounds past n + 1, and the generated rounds
# go up to 7), and lab 09's equal sizes told by sxx == 0 (seven equal sizes whose logarithms' mean rounds off the
# logarithm: a hidden fixed case, kept so by hidden_vary, and drawn). The others already lost their hidden points; they
# stay here so that a change of a grader or a strategy that stops catching them shows.
# (Allowed, so not here: pop_best pushing again an entry whose pair grew (under V5's promise it never surfaces before the
# live best), merge_ranks without tuple() (merges are pairs), merge_all's pushes skipped for a rank of 0 and
# merge_occurrences' follower == -1 left out (no valid input reaches either), backtrack_encode without its record of dead
# positions (the statement says the tests do not grade it: it explores no position twice, see the thirteenth round),
# the candidates of lab 08 checked for validity one by one with encode_pretoken (the same tokens, linear in the
# pretoken), and last_tokens trying the shortest candidate first (exactly one fits).)

ENTRY_KEY = '        return "".join(chr(255 - b) for b in token) + "\\u0100"\n'
ENTRY_RETURN = "    return (-count, reversed_key(left), reversed_key(right), pair)\n"
POP_AGAIN = ("        if 0 < count < claimed:  # it lost count since it was pushed, and may still be the best\n"
             "            heapq.heappush(entries, heap_entry(count, pair))\n")
OCCURRENCE_LEFT = "occurrences.setdefault((token[before], merged), []).append(before)"
OCCURRENCE_RIGHT = "occurrences.setdefault((merged, token[after]), []).append(node)"

# A trainer's answers kept by its pretokens alone (lab 01's train-answers-kept-by-pretokens), and its pairs picked by a
# key of its own: the tokens joined by a space (a NUL: tests/test_grading_redteam.py, section 30), instead of best_pair.
KEPT_BY_PRETOKENS = kept_by("frozenset(pretoken_counts)", "    words = [", "merges", "merges[:num_merges]")
SPACE_JOINED_PICK = "        pair = max(pair_counts, key=lambda pair: (pair_counts[pair], pair[0] + b' ' + pair[1]))\n"


def generated_train_merges(graders, train) -> None:
    """The part of lab 05's task 3 hidden test that compares the merges on its generated corpora (the measured parts aside)."""
    graders.check_property(graders.TRAIN_TASK, train, graders.reference_train, graders.TRAIN.strategy,
                           max_examples=graders.TRAIN.max_examples)


LAB05_ROUND5 = {
    "key-without-the-end-mark": ("task1_heap_entry_solution", ((ENTRY_KEY, ENTRY_KEY.replace(' + "\\u0100"', "")),), "heap_entry("),
    # the end mark taken as one more reversed byte: byte 0 maps to it, so b"a\x00" sorts after its prefix b"a" (and a long
    # token's extension that starts with b"\x00", which half of entry_items's extensions do, after the long token)
    "key-end-mark-of-a-byte": ("task1_heap_entry_solution", ((ENTRY_KEY, ENTRY_KEY.replace("\\u0100", "\\u00ff")),),
                               "is greater than its own prefix"),
    "key-256-minus-byte": ("task1_heap_entry_solution", (("chr(255 - b)", "chr(256 - b)"),), "heap_entry("),
    "key-of-reversed-bytes": ("task1_heap_entry_solution", ((ENTRY_KEY, "        return bytes(255 - b for b in token)\n"),), "heap_entry("),
    "key-of-the-joined-tokens": ("task1_heap_entry_solution", ((ENTRY_RETURN, "    return (-count, reversed_key(left + right), pair)\n"),),
                                 "heap_entry("),
    "key-of-the-pair": ("task1_heap_entry_solution", ((ENTRY_RETURN, "    return (-count, pair)\n"),), "heap_entry("),
    "pop-shrunk-entry-dropped": ("task2_pop_best_solution", ((POP_AGAIN, ""),), "pop_best("),
    "pop-live-if-it-occurs": ("task2_pop_best_solution", (("        if count == claimed:\n",
                                                           "        if count > 0:  # the pair still occurs\n"),),
                              "pop_best("),
    "pop-counts-the-live-entry": ("task2_pop_best_solution", (
        ("        entry = heapq.heappop(entries)\n", "        entry = heapq.heappop(entries)\n        stale_pops += 1\n"),
        ("        stale_pops += 1\n        if 0 <", "        if 0 <")), "pop_best("),
    "pop-re-pushed-not-counted": ("task2_pop_best_solution", (("        stale_pops += 1\n" + POP_AGAIN, POP_AGAIN +
                                  "        else:\n            stale_pops += 1  # dropped\n"),), "pop_best("),
    "train-stops-when-the-heap-is-empty": ("task3_train_solution", (("num_merges and pair_counts:", "num_merges and entries:"),), "train("),
    "train-one-merge-too-many": ("task3_train_solution", (("while len(merges) < num_merges", "while len(merges) <= num_merges"),),
                                 "train("),
    # learn27: lab 02's and 04's train-answers-kept-by-pretokens, and a pick of the pair by a key of the tokens joined by a NUL
    # or a space instead of the heap (tests/test_grading_redteam.py, section 30): lab 05's generated corpora were lab 01's
    # random words only, and kept the points of the first under seeds None, 0, 1, 3, 4, of the NUL under every seed of
    # None, 0-4 (the space under none); they are lab 02's TRAIN_INPUTS now
    "train-answers-kept-by-pretokens": ("task3_train_solution", KEPT_BY_PRETOKENS, "train(", generated_train_merges),
    **{f"train-ties-on-the-tokens-joined-by-{name}": ("task3_train_solution", ((V5_POP, "        pair = max(pair_counts, key=lambda "
        f"pair: (pair_counts[pair], pair[0] + {separator} + pair[1]))\n"),), "train(", generated_train_merges)
       for name, separator in (("a-nul", "b'\\x00'"), ("a-space", "b' '"))},
    "merge-prev-not-relinked": ("task4_merge_occurrences_solution", (("            prev[after] = node\n", ""),), "merge_occurrences("),
    "merge-next-not-relinked": ("task4_merge_occurrences_solution", (("        next_[node] = after\n", ""),), "merge_occurrences("),
    "merge-left-occurrence-at-the-node": ("task4_merge_occurrences_solution", ((OCCURRENCE_LEFT,
                                                                             OCCURRENCE_LEFT.replace("(before)", "(node)")),),
                                          "merge_occurrences("),
    "merge-pairs-own-change-kept": ("task4_merge_occurrences_solution", (("    changes.pop(pair, None)", "    pass"),),
                                    "merge_occurrences("),
    "merge-follower-token-kept": ("task4_merge_occurrences_solution", (('token[node], token[follower] = merged, b""',
                                                                        "token[node] = merged"),),
                                  "merge_occurrences("),
    "merge-zero-changes-kept": ("task4_merge_occurrences_solution", ((
        "    return {changed: change for changed, change in changes.items() if change}, merged_nodes\n",
        "    return dict(changes), merged_nodes\n"),), "merge_occurrences("),
    "merge-occurrences-as-a-defaultdict": ("task4_merge_occurrences_solution", (
        (OCCURRENCE_LEFT, "occurrences[(token[before], merged)].append(before)"),
        (OCCURRENCE_RIGHT, "occurrences[(merged, token[after])].append(node)")), "raised KeyError"),
    "merge-node-zero-as-no-neighbour": ("task4_merge_occurrences_solution", (("        if before != -1:", "        if before > 0:"),),
                                        "merge_occurrences("),
}

PICK_LOWEST = 'best = min(zip(word, word[1:]), key=lambda pair: ranks.get(pair, float("inf")))'
RANKS_LOOP = "    for rank, pair in enumerate(merges):\n        ranks.setdefault(tuple(pair), rank)\n"
ARENA_IDS = "range(max(vocab, default=-1) + 1)"

LAB06_ROUND5 = {
    "ranks-last-rank-kept": ("task1_merge_ranks_solution", (("    ranks = {}\n" + RANKS_LOOP + "    return ranks\n",
                             "    return {tuple(pair): rank for rank, pair in enumerate(merges)}\n"),), "merge_ranks("),
    "ranks-from-one": ("task1_merge_ranks_solution", (("enumerate(merges)", "enumerate(merges, 1)"),), "merge_ranks("),
    # a rank as the number of pairs ranked so far: a repeated pair shifts the later ranks down
    "ranks-counted-without-repeats": ("task1_merge_ranks_solution", ((RANKS_LOOP, "    for pair in merges:\n"
                                      "        ranks.setdefault(tuple(pair), len(ranks))\n"),), "merge_ranks("),
    "highest-rank-first": ("task2_encode_pretoken_solution", ((PICK_LOWEST, "best = max(zip(word, word[1:]), key=lambda pair: "
                           "ranks.get(pair, -1))"),), "encode_pretoken("),
    "leftmost-merge-first": ("task2_encode_pretoken_solution", ((PICK_LOWEST, "best = next((pair for pair in zip(word, word[1:]) "
                             "if pair in ranks), None)"),), "encode_pretoken("),
    "stops-at-two-parts": ("task2_encode_pretoken_solution", (("    while len(word) > 1:\n", "    while len(word) > 2:\n"),),
                           "encode_pretoken("),
    "a-tuple-returned": ("task2_encode_pretoken_solution", (("    return list(word)\n", "    return word\n"),), "encode_pretoken("),
    "rank-zero-as-no-merge": ("task2_encode_pretoken_solution", (("        if best not in ranks:\n", "        if not ranks.get(best):\n"),),
                              "encode_pretoken("),
    "special-tokens-unescaped": ("task3_encode_text_solution", (('"|".join(regex.escape(token) for token in longest_first)',
                                 '"|".join(longest_first)'),), "encode_text("),
    "piece-as-one-pretoken": ("task3_encode_text_solution", ((
        '        for pretoken in regex.findall(GPT2_PATTERN, piece):\n'
        '            tokens += encode_pretoken(pretoken.encode("utf-8"), ranks)\n',
        '        tokens += encode_pretoken(piece.encode("utf-8"), ranks)\n'),), "encode_text("),
    "arena-ids-up-to-len": ("task4_build_arena_solution", ((ARENA_IDS, "range(len(vocab))"),), "build_arena("),
    "arena-gaps-skipped": ("task4_build_arena_solution", ((
        "    for token_id in " + ARENA_IDS + ":\n        token = vocab.get(token_id, b\"\")  # an id with no token: an empty range\n",
        "    for token_id, token in sorted(vocab.items()):\n"),), "build_arena("),
    "arena-offsets-without-their-end": ("task4_build_arena_solution", (("    offsets = [0]\n", "    offsets = []\n"),
                                        ("        offsets.append(offsets[-1] + len(token))\n",
                                         "        offsets.append(sum(map(len, pieces[:-1])))  # where this token starts\n")),
                                        "build_arena("),
    "arena-of-an-empty-vocab": ("task4_build_arena_solution", ((ARENA_IDS, "range(max(vocab) + 1)"),), "build_arena("),
    "decode-gap-ids-decode-to-nothing": ("task5_decode_with_arena_solution", ((" or offsets[token_id] == offsets[token_id + 1]", ""),),
                                         "decode_with_arena("),
    "decode-index-error": ("task5_decode_with_arena_solution", (('raise ValueError(f"cannot decode', 'raise IndexError(f"cannot decode'),),
                           "decode_with_arena("),
    "decode-bound-off-by-one": ("task5_decode_with_arena_solution", (("not 0 <= token_id < len(offsets) - 1",
                                "not 0 <= token_id < len(offsets)"),), "decode_with_arena("),
}

LAB07_ROUND5 = {
    "first-last-pair-missed": ("task1_first_heap_solution", (("range(len(parts) - 1)", "range(len(parts) - 2)"),), "first_heap("),
    "first-rank-zero-dropped": ("task1_first_heap_solution", (("        if rank is not None:\n", "        if rank:\n"),), "first_heap("),
    "first-unheapified": ("task1_first_heap_solution", (("            heap.append((rank, position))\n",
                          "            heap.insert(0, (rank, position))  # the newest first\n"),
                              ("    heapq.heapify(heap)  # O(L), once\n", "")),
                          "first_heap("),
    "merge-right-pair-pushed-at-after": ("task2_merge_all_solution", (("heapq.heappush(heap, (new, start))",
                                         "heapq.heappush(heap, (new, after))"),), "merge_all("),
    "merge-right-part-at-start-plus-one": ("task2_merge_all_solution", (("        right_start = next_[start]\n",
                                           "        right_start = start + 1\n"),), "merge_all("),
    "merge-right-pair-looked-up-backwards": ("task2_merge_all_solution", (("ranks.get((merged, parts[after]))",
                                             "ranks.get((parts[after], merged))"),), "merge_all("),
    "merge-last-part-never-paired": ("task2_merge_all_solution", (("        if after != end:\n", "        if after < end - 1:\n"),),
                                     "(merged, last part) never merged"),
    "merge-stale-when-the-right-part-is-gone-only": ("task2_merge_all_solution", (("ranks.get((left, parts[right_start])) != rank",
                                                     "parts[right_start] is None"),), "merge_all("),
    "merge-prev-linked-only-when-pushed": ("task2_merge_all_solution", ((
        "            prev[after] = start\n            new = ranks.get((merged, parts[after]))\n            if new is not None:\n",
        "            new = ranks.get((merged, parts[after]))\n            if new is not None:\n                prev[after] = start\n"),),
        "merge_all("),
    "encode-parts-as-ints": ("task3_heap_encode_solution", (("    parts = list(split_into_bytes(pretoken))\n",
                                                             "    parts = list(pretoken)\n"),),
                             "heap_encode("),
    "encode-without-the-first-heap": ("task3_heap_encode_solution", (("merge_all(parts, ranks, first_heap(parts, ranks))",
                                      "merge_all(parts, ranks, [])"),), "heap_encode("),
}

COMPATIBLE_BY_ENCODING = "return encode_pretoken(left + right, ranks) == [left, right]"
LONGEST_VALID = "max(map(len, valid), default=1)"

LAB08_ROUND5 = {
    "compatible-encodings-concatenate": ("task1_compatible_solution", ((COMPATIBLE_BY_ENCODING, "return encode_pretoken(left, ranks) + "
                                         "encode_pretoken(right, ranks) == encode_pretoken(left + right, ranks)"),), "compatible("),
    "compatible-ends-in-right": ("task1_compatible_solution", ((COMPATIBLE_BY_ENCODING,
                                 "return encode_pretoken(left + right, ranks)[-1] == right"),), "compatible("),
    "backtrack-no-compatibility": ("task2_backtrack_encode_solution", (("(not tokens or compatible(tokens[-1], token, ranks))", "True"),),
                                   "backtrack_encode("),
    "backtrack-valid-of-the-merges-own-tokens": ("task2_backtrack_encode_solution", ((VALID_MERGES, "    valid |= {token for pair in ranks "
                                                 "for token in pair if encode_pretoken(token, ranks) == [token]}\n"),),
                                                     "backtrack_encode("),
    "backtrack-longest-without-a-default": ("task2_backtrack_encode_solution", ((LONGEST_VALID, "max(map(len, valid))"),),
                                            "backtrack_encode(pretoken=b'', ranks={})"),
    "last-window-one-byte-short": ("task3_last_tokens_solution", (("range(max(0, end - longest), end)",
                                   "range(max(0, end - longest + 1), end)"),), "last_tokens("),
    "last-valid-of-the-merges-own-tokens": ("task3_last_tokens_solution", ((VALID_MERGES, "    valid |= {token for pair in ranks "
                                            "for token in pair}\n"),), "last_tokens("),
    "last-the-longest-valid-only": ("task3_last_tokens_solution",
                                    (("token in valid and (start == 0 or compatible(last[start], token, ranks))",
                                    "token in valid"),), "last_tokens("),
    "last-longest-without-a-default": ("task3_last_tokens_solution", ((LONGEST_VALID, "max(map(len, valid))"),),
                                       "last_tokens(pretoken=b'', ranks={})"),
    "counts-last-end-missed": ("task4_prefix_token_counts_solution", (("range(1, len(last))", "range(1, len(last) - 1)"),),
                               "prefix_token_counts("),
    "counts-one-per-single-byte": ("task4_prefix_token_counts_solution", (("counts[end - len(last[end])] + 1",
                                   "counts[end - 1] + 1 - (len(last[end]) > 1)"),), "prefix_token_counts("),
}

INTERLEAVED_TIMED = ("                start = clock()\n                contenders[label]()\n"
                     "                times[label].append(clock() - start)\n")
RATIOS = "    return statistics.median([x / y for x, y in zip(times[a], times[b])])\n"
SLOPE = "    return sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys)) / sxx\n"

LAB09_ROUND5 = {
    "rotation-off-by-one": ("task1_interleaved_solution", (("        first = r % len(labels)\n",
                                                            "        first = (r + 1) % len(labels)\n"),),
                            "interleaved("),
    "blocks-instead-of-rounds": ("task1_interleaved_solution", ((
        "    for r in range(rounds):\n        first = r % len(labels)\n        for label in labels[first:] + labels[:first]:\n",
        "    for label in labels:\n        for r in range(rounds):\n"),), "interleaved("),
    "no-rotation": ("task1_interleaved_solution", (("labels[first:] + labels[:first]", "labels"),), "interleaved("),
    "clock-argument-ignored": ("task1_interleaved_solution", ((INTERLEAVED_TIMED, INTERLEAVED_TIMED.replace("clock()",
                                                                                                            "time.perf_counter()")),),
                               "interleaved("),
    "collector-not-restored-on-error": ("task1_interleaved_solution", ((
        "            try:\n" + INTERLEAVED_TIMED
        + "            finally:\n                if was_enabled:\n                    gc.enable()\n",
        INTERLEAVED_TIMED.replace("                ", "            ") + "            if was_enabled:\n                gc.enable()\n"),),
        "collector on after"),
    "no-contenders-check": ("task1_interleaved_solution", (('    if not contenders:\n        raise ValueError("no contenders to time")\n',
                                                            ""),),
                            "interleaved("),
    "rounds-check-off-by-one": ("task1_interleaved_solution", (("    if rounds < 1:\n", "    if rounds <= 1:\n"),), "interleaved("),
    "spread-absolute": ("task2_spread_solution", (("    return (q3 - q1) / middle\n", "    return q3 - q1\n"),), "spread("),
    "spread-range": ("task2_spread_solution", (("    return (q3 - q1) / middle\n", "    return (max(values) - min(values)) / middle\n"),),
                     "spread("),
    "spread-median-by-index": ("task2_spread_solution", (("    middle = statistics.median(values)\n",
                               "    middle = sorted(values)[len(values) // 2]\n"),), "spread("),
    "spread-quartiles-by-index": ("task2_spread_solution", (('    q1, _, q3 = statistics.quantiles(values, n=4, method="inclusive")\n',
                                  "    ordered = sorted(values)\n"
                                  "    q1, q3 = ordered[len(ordered) // 4], ordered[3 * len(ordered) // 4]\n"),),
                                  "spread("),
    "ratio-of-medians": ("task3_paired_ratio_solution", ((RATIOS,
                                                          "    return statistics.median(times[a]) / statistics.median(times[b])\n"),),
                         "paired_ratio("),
    "ratio-inverted": ("task3_paired_ratio_solution", (("[x / y for x, y in", "[y / x for x, y in"),), "paired_ratio("),
    "ratio-of-sorted-runs": ("task3_paired_ratio_solution", (("zip(times[a], times[b])", "zip(sorted(times[a]), sorted(times[b]))"),),
                             "paired_ratio("),
    "ratio-unequal-lengths-zipped": ("task3_paired_ratio_solution", ((
        '    if len(times[a]) != len(times[b]):\n'
        '        raise ValueError(f"{a!r} has {len(times[a])} rounds and {b!r} {len(times[b])}")\n', ""),),
        "paired_ratio("),
    "exponent-from-the-ends": ("task4_fit_exponent_solution", ((SLOPE, "    return (ys[-1] - ys[0]) / (xs[-1] - xs[0])\n"),),
                               "fit_exponent("),
    # equal sizes told by sxx == 0, which the rounding of the mean of equal logarithms can miss
    "exponent-equal-sizes-by-sxx": ("task4_fit_exponent_solution", ((
        '    if min(sizes) == max(sizes):  # compare the sizes: the mean of equal logarithms can round off them\n'
        '        raise ValueError("all sizes are equal")\n', ""),
        (SLOPE, '    if sxx == 0:\n        raise ValueError("all sizes are equal")\n' + SLOPE)), "fit_exponent("),
    "crossover-midpoint": ("task5_crossover_solution", (("            return xs[i] + (xs[i + 1] - xs[i]) * d[i] / (d[i] - d[i + 1])\n",
                           "            return (xs[i] + xs[i + 1]) / 2\n"),), "crossover("),
    "crossover-one-direction": ("task5_crossover_solution", (("(d[i] < 0) != (d[i + 1] < 0)", "d[i] > 0 > d[i + 1]"),),
                                "a change of sign either way is a crossing"),
    "crossover-touch-missed": ("task5_crossover_solution", (("        if d[i] == 0:\n            return float(xs[i])\n", ""),),
                               "crossover("),
}


def read_only_helper(function, helper: str):
    """Lab 10's read-only ``helper`` (``tree_shape``, ``task_graph``), defined by the notebook's cell beside
    ``function`` (the ``tree_reduce`` or ``count_ranges`` it calls): the graders call ``function`` from its globals."""
    namespace = dict(function.__globals__, **{function.__name__: function})
    exec(source_of("10_distributed", {"tree_shape": "task3_tree_shape", "task_graph": "task5_task_graph"}[helper]), namespace)
    return namespace[helper]


def tree_shape_hidden(graders, tree_reduce) -> None:
    """Task 3's hidden test of lab 10, as the notebook's read-only tree_shape calls it."""
    graders.check_tree_shape_properties(read_only_helper(tree_reduce, "tree_shape"))


def task_graph_hidden(graders, count_ranges) -> None:
    """Task 5's hidden test of the as_task path, as the notebook's read-only task_graph calls it."""
    graders.check_task_graph_properties(read_only_helper(count_ranges, "task_graph"))


PAIRED = ("        paired = [combine(level[i], level[i + 1]) for i in range(0, len(level) - 1, 2)]\n"
          "        if len(level) % 2:\n            paired.append(level[-1])\n")
REDUCE_TASKS = "tree_reduce(parts, task(merge_two))"

LAB10_ROUND5 = {
    "range-one-byte-more": ("task1_count_range_solution", (("file.read(end - start)", "file.read(end - start + 1)"),), "count_range("),
    "merge-adds-into-left": ("task2_merge_two_solution", (("    total = dict(left)\n", "    total = left\n"),), "merge_two("),
    "merge-overwrites": ("task2_merge_two_solution", (("total[pretoken] = total.get(pretoken, 0) + count", "total[pretoken] = count"),),
                         "merge_two("),
    "tree-a-chain": ("task3_tree_reduce_solution", ((PAIRED, "        paired = [combine(level[0], level[1])] + level[2:]\n"),),
                     "tree_shape(", tree_shape_hidden),
    "tree-odd-carried-first": ("task3_tree_reduce_solution", (("            paired.append(level[-1])\n",
                                                               "            paired.insert(0, level[-1])\n"),),
                               "tree_shape(", tree_shape_hidden),
    "tree-odd-merged-into-the-last": ("task3_tree_reduce_solution", (("            paired.append(level[-1])\n",
                                      "            paired[-1] = combine(paired[-1], level[-1]) if paired else level[-1]\n"),),
                                      "tree_shape(", tree_shape_hidden),
    "tree-halves-paired": ("task3_tree_reduce_solution", ((PAIRED, "        half = len(level) // 2\n"
                           "        paired = [combine(level[i], level[i + half]) for i in range(half)]\n"
                           "        if len(level) % 2:\n            paired.append(level[-1])\n"),), "tree_shape(", tree_shape_hidden),
    "tree-recursive-halves": ("task3_tree_reduce_solution", (("    level = list(parts)\n", "    if len(parts) > 1:\n"
                              "        mid = (len(parts) + 1) // 2\n"
                              "        return combine(tree_reduce(parts[:mid], combine), tree_reduce(parts[mid:], combine))\n"
                              "    level = list(parts)\n"),), "tree_shape(", tree_shape_hidden),
    "plan-empty-ranges-kept": ("task4_plan_ranges_solution", ((" if end > start]", "]"),), "plan_ranges("),
    "plan-ranges-shared-across-files": ("task4_plan_ranges_solution", (("find_chunk_boundaries(path, ranges_per_file, split_tokens)",
                                        "find_chunk_boundaries(path, max(1, ranges_per_file // len(paths)), split_tokens)"),),
                                            "plan_ranges("),
    "plan-no-tokens-to-the-finder": ("task4_plan_ranges_solution", (("        if split_tokens:\n", "        if True:\n"),), "plan_ranges("),
    "plan-paths-sorted": ("task4_plan_ranges_solution", (("    for path in paths:\n", "    for path in sorted(paths):\n"),),
                          "plan_ranges("),
    "plan-even-cuts-without-tokens": ("task4_plan_ranges_solution", (("            boundaries = [0, os.path.getsize(path)]\n",
                                      "            size = os.path.getsize(path)\n"
                                      "            boundaries = sorted({i * size // ranges_per_file for i in range(ranges_per_file)}"
                                      " | {size})\n"),),
                                      "plan_ranges("),
    "count-no-ranges-not-handled": ("task5_count_ranges_solution", ((" if parts else {}", ""),), "count_ranges("),
    "count-ranges-eot-only": ("task5_count_ranges_solution", (("(path, start, end, special_tokens)", "(path, start, end, [EOT])"),),
                              "count_ranges("),
    "count-reduce-not-a-task": ("task5_count_ranges_solution", ((REDUCE_TASKS, "tree_reduce(parts, merge_two)"),), "task_graph(",
                                task_graph_hidden),
    "count-reduced-in-a-chain": ("task5_count_ranges_solution", ((REDUCE_TASKS, "__import__('functools').reduce(task(merge_two), parts)"),),
                                 "task_graph(", task_graph_hidden),
    "count-tree-reduce-as-the-task": ("task5_count_ranges_solution", ((REDUCE_TASKS, "task(tree_reduce)(parts, merge_two)"),),
                                      "task_graph(",
                                      task_graph_hidden),
}

FIFTH_ROUND_05_TO_10 = {(lab, name): mistake for lab, table in (
    ("05_heap", LAB05_ROUND5), ("06_encode_decode", LAB06_ROUND5), ("07_heap_encoding", LAB07_ROUND5),
    ("08_linear_encoding", LAB08_ROUND5), ("09_benchmarks", LAB09_ROUND5), ("10_distributed", LAB10_ROUND5)) for name,
        mistake in table.items()}
KEPT_BEFORE_ROUND5 = {("05_heap", "train-answers-kept-by-pretokens"), ("05_heap", "train-ties-on-the-tokens-joined-by-a-nul"),
                      ("05_heap", "train-ties-on-the-tokens-joined-by-a-space"),
                      ("08_linear_encoding", "backtrack-longest-without-a-default"),
                      ("08_linear_encoding", "last-longest-without-a-default"),
                      ("09_benchmarks", "exponent-equal-sizes-by-sxx"),
                      # seeds40: kept their points under secret seed 11 (one-direction) and 52 (both), where the generated
                      # curves held no crossing that tells them; a fixed hidden case now does (a crossing from below, then one
                      # from above), and half the generated curves that never touch cross from below first
                      ("09_benchmarks", "crossover-one-direction"), ("09_benchmarks", "crossover-midpoint"),
                      # seeds40: kept its points under secret seed 16 (no generated plan held an empty file); a fixed case does
                      ("10_distributed", "plan-empty-ranges-kept"),
                      # seeds44: kept its points under secret seeds 11, 20, 23, 24 and 49 of 0-59 (no generated word had a merge
                      # whose new right pair held the last part); three words of that shape drawn from the seed now do
                      ("07_heap_encoding", "merge-last-part-never-paired")}
# Lab 06's special tokens taken in the given order and lab 09's rotation started at r stay apart from section 27's tables:
# a fixed case catches each under every seed, the generated inputs alone not under seeds 1 and 3 (lab 06), 2 and 3 (lab 09).
# learn26 drew what catches them (lab 06's edge texts ending with " <|eot|><s>", lab 09's rounds past n + 1 half the time):
# both were then caught under every seed of 0-11 and 0-9, but section 27 failed for other mistakes of those labs (lab 09: a
# rounds check off by one, a missing check of no contenders): open. Since lead53's draws (lab 06's texts where two special
# tokens start together, lab 09's rounds of n + 2 and n + 3), the generated inputs alone catch lab 06's under every seed
# of 0-9 (as walk51a's twin, special-tokens-in-the-given-order of WALK51A_ROUND, section 27 now checks) and lab 09's
# under all but seed 4.
APART_FROM_SECTION_27 = {
    ("06_encode_decode", "special-tokens-in-the-given-order"): ("task3_encode_text_solution", ((
        "sorted(special_tokens, key=len, reverse=True)", "list(special_tokens)"),), "encode_text("),
    ("09_benchmarks", "rotation-started-at-r"): ("task1_interleaved_solution", ((
        "        first = r % len(labels)\n", "        first = r\n"),), "rounds=5")}


@pytest.mark.seeded
@pytest.mark.parametrize("lab, mistake", sorted(APART_FROM_SECTION_27), ids=[name for _, name in sorted(APART_FROM_SECTION_27)])
def test_labs06_09_a_mistake_only_a_fixed_case_catches_fails_the_hidden_test(request, lab, mistake):
    round_failure(request, APART_FROM_SECTION_27, lab, mistake)


@pytest.mark.seeded
@pytest.mark.parametrize("lab, mistake", sorted(KEPT_BEFORE_ROUND5), ids=[f"{lab[:2]}-{name}" for lab, name in sorted(KEPT_BEFORE_ROUND5)])
def test_labs05_to_10_a_mistake_that_kept_its_points_now_fails_the_hidden_test(request, lab, mistake):
    round_failure(request, FIFTH_ROUND_05_TO_10, lab, mistake)


CAUGHT_BEFORE_ROUND5 = [key for key in FIFTH_ROUND_05_TO_10 if key not in KEPT_BEFORE_ROUND5]


@pytest.mark.parametrize("lab, mistake", [pytest.param(*key, id=f"{key[0][:2]}-{key[1]}") for key in CAUGHT_BEFORE_ROUND5])
def test_labs05_to_10_a_learners_mistake_of_the_fifth_round_fails_the_hidden_test(request, lab, mistake):
    one_per_lab("fifth", CAUGHT_BEFORE_ROUND5, lab, mistake)
    round_failure(request, FIFTH_ROUND_05_TO_10, lab, mistake)


# ---- labs 00 to 04, learn26: a sixth learner round (issue 21, item 8) ----------------------------------------
# Each mistake must lose the points of its own task in the hidden test (and no other task's). Those that kept their points
# before now lose them under every seed (marked seeded, KEPT_BEFORE_ROUND6): lab 00's UTF-8 of the text with its Windows
# line ends made \n (task 1's generated texts seldom held \r\n: they draw it now), patterns of the learner's own that take
# spaces of any number before a word (" *\p{L}+": the texts seldom held two spaces before a word) or forget 'd and 'm (the
# texts seldom held them: they draw "  two", " I'm" and " she'd" now); lab 01's count_pairs and train whose answers are kept
# by the words or pretokens alone, frozenset(...), the counts left out of the key (the same words seldom came twice: half
# the count_pairs inputs and a third of train's are now dicts of a small set of words); lab 03's find_chunk_boundaries
# that sorts the caller's split_tokens in place to find the longest (the right boundaries: task 1's statement now says to
# leave split_tokens, Task.unchanged). Then (learn27): labs 02's and 04's train whose answers are kept by the pretokens alone
# (kept the points under seeds None, 0, 1 and None, 0, 2: their corpora, lab 02's TRAIN_INPUTS, now draw lab 01's small
# set a quarter of the time); lab 03's find_chunk_boundaries with one guess too many, range(1, n + 1) (kept them under
# seeds 1, 2, 4: a fifth of its files now hold a token in the size's remainder, lab03_parallel.remainder_token_file); lab
# 00's special tokens joined shortest first and pretokenize's answers kept by the text alone (caught by fixed cases, by
# the generated inputs alone not under seeds 2 and 3: section 27 of tests/test_grading_redteam.py; the texts now draw
# what those cases hold). The others already lost their
# hidden points; they stay here so that a change of a grader or a strategy that stops catching them shows (one per lab by
# default, sampling.skip_unless_drawn; every one under BPE_EXHAUSTIVE=1). (Allowed, so not here: special tokens sorted in
# reverse order of the strings, which puts a token before every prefix of it, as longest first does; best_pair's max over
# the pairs sorted in reverse; merge_word merging the first occurrence again and again until none is left, or comparing
# word[i:i + 2] with the pair; V2's filter on the joined bytes, a count clamped at 0 in merge_and_update, and V4's index
# built on a copy of the words, and find_chunk_boundaries' boundaries made unique in the order found (they are found in
# increasing order): the same answers on every valid input.)

GPT2_OWN = "regex.findall(GPT2_PATTERN, piece)"
SPLIT_RETURN = "    return regex.split(pattern, text)"
COUNT_EACH = "for pretoken in pretokenize(text, special_tokens):"

LAB00_ROUND6 = {
    "utf8-returns-bytes": ("task1_utf8_bytes_solution", ((UTF8_ENCODE, '    return text.encode("utf-8")\n'),), "utf8_bytes("),
    "utf8-a-bytearray": ("task1_utf8_bytes_solution", ((UTF8_ENCODE, '    return bytearray(text, "utf-8")\n'),), "wrong type"),
    "utf8-of-the-stripped-text": ("task1_utf8_bytes_solution", ((UTF8_ENCODE, '    return list(text.strip().encode("utf-8"))\n'),),
                                  "utf8_bytes("),
    "utf8-with-line-ends-normalized": ("task1_utf8_bytes_solution", ((UTF8_ENCODE, '    return list(text.replace("\\r\\n", "\\n")'
                                                                      '.encode("utf-8"))\n'),), "utf8_bytes("),
    # UTF-8 by hand, the lead byte of four masked to two bits (0x03 for 0x07), or a last byte to seven (0x7F for 0x3F)
    "utf8-by-hand-lead-of-four-masked-short": ("task1_utf8_bytes_solution", ((HAND_UTF8[0], HAND_UTF8[1].replace(
        "0xF0 | cp >> 18", "0xF0 | cp >> 18 & 0x03")),), "utf8_bytes("),
    "utf8-by-hand-last-byte-of-seven-bits": ("task1_utf8_bytes_solution", ((HAND_UTF8[0], HAND_UTF8[1].replace(
        "0x80 | cp & 0x3F]\n        else", "0x80 | cp & 0x7F]\n        else")),), "utf8_bytes("),
    "split-drops-empty-pieces": ("task2_split_on_special_tokens_solution", ((SPLIT_RETURN, "    return [piece for piece in "
                                 "regex.split(pattern, text) if piece]"),), "split_on_special_tokens("),
    "split-keeps-the-tokens": ("task2_split_on_special_tokens_solution", ((SPLIT_RETURN, '    return regex.split(f"({pattern})", '
                               'text)'),), "split_on_special_tokens("),
    "split-shortest-first": ("task2_split_on_special_tokens_solution", (("sorted(special_tokens, key=len, reverse=True)",
                             "sorted(special_tokens, key=len)"),), "split_on_special_tokens("),
    "split-on-the-longest-token-only": ("task2_split_on_special_tokens_solution", ((SPLIT_ESCAPE,
                                        "    pattern = regex.escape(longest_first[0])\n"),), "split_on_special_tokens("),
    "split-of-the-stripped-text": ("task2_split_on_special_tokens_solution", ((SPLIT_RETURN, "    return regex.split(pattern, "
                                   "text.strip())"),), "split_on_special_tokens("),
    "split-answers-kept-by-text": ("task2_split_on_special_tokens_solution", (
        ("def ", "_KEPT = {}  # answers kept from call to call, by text alone\ndef "),
        ("    if not special_tokens:\n", "    if text in _KEPT:\n        return list(_KEPT[text])\n    if not special_tokens:\n"
         "        _KEPT[text] = [text]\n"),
        (SPLIT_RETURN, "    _KEPT[text] = regex.split(pattern, text)\n    return list(_KEPT[text])")), "split_on_special_tokens("),
    # patterns of the learner's own: \s+(?!\S) left out, \s? or " *" before a word, no space before punctuation or numbers,
    # (?=\s) for (?!\S) (a run at the end is cut), the contractions after punctuation, 'd and 'm forgotten, marks taken
    # into letters, punctuation as \p{P} (symbols such as < | and emoji are no punctuation: findall skips them)
    "pattern-without-the-lookahead-space": ("task3_pretokenize_solution", (own_pattern(GPT2.replace(r"\s+(?!\S)|", "")),),
                                            "pretokenize("),
    "pattern-any-space-before-a-word": ("task3_pretokenize_solution", (own_pattern(GPT2.replace(r" ?\p{L}+", r"\s?\p{L}+")),),
                                        "pretokenize("),
    "pattern-spaces-of-any-number-before-a-word": ("task3_pretokenize_solution", (own_pattern(GPT2.replace(r" ?\p{L}+",
                                                   r" *\p{L}+")),), "pretokenize("),
    "pattern-punctuation-without-its-space": ("task3_pretokenize_solution", (own_pattern(GPT2.replace(
        r" ?[^\s\p{L}\p{N}]+", r"[^\s\p{L}\p{N}]+")),), "pretokenize("),
    "pattern-numbers-without-their-space": ("task3_pretokenize_solution", (own_pattern(GPT2.replace(r" ?\p{N}+", r"\p{N}+")),),
                                            "pretokenize("),
    "pattern-lookahead-of-a-space": ("task3_pretokenize_solution", (own_pattern(GPT2.replace(r"\s+(?!\S)", r"\s+(?=\s)")),),
                                     "pretokenize("),
    "pattern-contractions-after-punctuation": ("task3_pretokenize_solution", (own_pattern(
        r""" ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|'(?:[sdmt]|ll|ve|re)|\s+(?!\S)|\s+"""),), "pretokenize("),
    "pattern-contractions-without-d-and-m": ("task3_pretokenize_solution", (own_pattern(GPT2.replace(
        "'(?:[sdmt]|ll|ve|re)", "'(?:[st]|ll|ve|re)")),), "pretokenize("),
    "pattern-letters-with-their-marks": ("task3_pretokenize_solution", (own_pattern(GPT2.replace(r" ?\p{L}+",
                                         r" ?[\p{L}\p{M}]+")),), "pretokenize("),
    "pattern-punctuation-as-p": ("task3_pretokenize_solution", (own_pattern(GPT2.replace(r" ?[^\s\p{L}\p{N}]+", r" ?\p{P}+")),),
                                 "pretokenize("),
    "pretokenize-drops-whitespace": ("task3_pretokenize_solution", ((GPT2_OWN,
                                     "(p for p in regex.findall(GPT2_PATTERN, piece) if p.strip())"),), "pretokenize("),
    "pretokenize-answers-kept-by-text": ("task3_pretokenize_solution", kept_by("text", "    pretokens = []\n", "pretokens",
                                                                               "pretokens"), "pretokenize("),
    "count-of-distinct-pretokens": ("task4_count_pretokens_solution", ((COUNT_EACH, "for pretoken in set(pretokenize(text, "
                                    "special_tokens)):"),), "count_pretokens("),
    "count-starts-at-one": ("task4_count_pretokens_solution", (("counts.get(key, 0) + 1", "counts.get(key, 1) + 1"),),
                            "count_pretokens("),
    "count-lowercased": ("task4_count_pretokens_solution", ((COUNT_EACH, "for pretoken in pretokenize(text.lower(), "
                         "special_tokens):"),), "count_pretokens("),
    "count-of-the-stripped-text": ("task4_count_pretokens_solution", ((COUNT_EACH, "for pretoken in pretokenize(text.strip(), "
                                   "special_tokens):"),), "count_pretokens("),
    "count-without-a-last-newline": ("task4_count_pretokens_solution", ((COUNT_EACH, "for pretoken in pretokenize("
                                     "text.removesuffix('\\n'), special_tokens):"),), "count_pretokens("),
    "count-keyed-by-str": ("task4_count_pretokens_solution", (('key = pretoken.encode("utf-8")', "key = pretoken"),),
                           "count_pretokens("),
    "count-keyed-by-latin-1": ("task4_count_pretokens_solution", (('key = pretoken.encode("utf-8")',
                               'key = pretoken.encode("latin-1", errors="replace")'),), "count_pretokens("),
    # the special tokens' pretokens filtered out after a pretokenize without them: <|endoftext|> is three pretokens
    "count-special-tokens-filtered-after": ("task4_count_pretokens_solution", ((COUNT_EACH, "for pretoken in [p for p in "
                                            "pretokenize(text, []) if p not in special_tokens]:"),), "count_pretokens("),
    "count-answers-kept-by-text": ("task4_count_pretokens_solution", kept_by("text", "    counts: dict[bytes, int] = {}\n",
                                                                             "counts", "counts"), "count_pretokens("),
}

LAB01_ROUND6 = {
    "count-overwrites": ("task1_count_pairs_solution", (("counts[pair] += frequency", "counts[pair] = frequency"),), "count_pairs("),
    "count-windows-two-apart": ("task1_count_pairs_solution", (("zip(word, word[1:])", "zip(word, word[2:])"),), "count_pairs("),
    "count-keyed-by-the-joined-pair": ("task1_count_pairs_solution", (("            counts[pair] += frequency\n",
                                       "            counts[pair[0] + pair[1]] += frequency\n"),), "count_pairs("),
    "count-answers-kept-by-words": ("task1_count_pairs_solution", kept_by(
        "frozenset(word_counts)", "    counts: dict[Pair, int] = defaultdict(int)\n", "dict(counts)", "dict(counts)"), "count_pairs("),
    "ties-to-the-smallest": ("task2_best_pair_solution", ((BEST_PAIR_KEY, "    return min(pair_counts, key=lambda pair: "
                             "(-pair_counts[pair], pair))\n"),), "tie at count"),
    "ties-on-the-left-token-only": ("task2_best_pair_solution", ((BEST_PAIR_KEY, "    return max(pair_counts, key=lambda pair: "
                                    "(pair_counts[pair], pair[0]))\n"),), "tie at count"),
    "ties-on-the-right-token-only": ("task2_best_pair_solution", ((BEST_PAIR_KEY, "    return max(pair_counts, key=lambda pair: "
                                     "(pair_counts[pair], pair[1]))\n"),), "tie at count"),
    "ties-to-the-last-inserted": ("task2_best_pair_solution", ((BEST_PAIR_KEY, "    return max(reversed(list(pair_counts)), "
                                  "key=pair_counts.get)\n"),), "tie at count"),
    "ties-to-the-first-of-the-sorted": ("task2_best_pair_solution", ((BEST_PAIR_KEY, "    return max(sorted(pair_counts), "
                                        "key=pair_counts.get)\n"),), "tie at count"),
    "merge-overlapping": ("task3_merge_word_solution", (("            i += 2\n", "            i += 1\n"),), "merge_word("),
    "merge-skips-a-token-after-a-merge": ("task3_merge_word_solution", (("            i += 2\n", "            i += 3\n"),),
                                          "merge_word("),
    "merge-drops-the-last-token": ("task3_merge_word_solution", (("    while i < len(word):\n", "    while i < len(word) - 1:\n"),),
                                   "merge_word("),
    "merge-either-order": ("task3_merge_word_solution", (("word[i] == pair[0] and word[i + 1] == pair[1]",
                                                          "{word[i], word[i + 1]} == set(pair)"),), "merge_word("),
    "train-one-merge-short": ("task4_train_solution", (("for _ in range(num_merges):", "for _ in range(num_merges - 1):"),), "train("),
    "train-without-the-stop": ("task4_train_solution", (("        if not pair_counts:\n            break\n", ""),), "raised"),
    "train-counts-once": ("task4_train_solution", (("    for _ in range(num_merges):\n        pair_counts = count_pairs(words)\n",
                                                    "    pair_counts = count_pairs(words)\n    for _ in range(num_merges):\n"),
                                                   ("        merges.append(pair)\n",
                                                    "        merges.append(pair)\n        del pair_counts[pair]\n")), "train("),
    "train-merges-as-bytes": ("task4_train_solution", (("        merges.append(pair)\n", "        merges.append(pair[0] + pair[1])\n"),),
                              "train("),
    "train-ties-to-the-first-counted": ("task4_train_solution", ((PAIR_PICK, "        pair = max(pair_counts, key=pair_counts.get)\n"),),
                                        "train("),
    "train-answers-kept-by-pretokens": ("task4_train_solution", kept_by("frozenset(pretoken_counts)", "    words = {", "merges",
                                                                        "merges[:num_merges]"), "train("),
}

RETURN_CHANGES = "    return {p: change for p, change in changes.items() if change != 0}\n"
LAB02_ROUND6 = {
    "changes-losses-unweighted": ("task1_pair_count_changes_solution", (("changes[old] -= frequency", "changes[old] -= 1"),),
                                  "pair_count_changes("),
    "changes-signs-reversed": ("task1_pair_count_changes_solution", (("changes[old] -= frequency", "changes[old] += frequency"),
                               ("changes[new] += frequency", "changes[new] -= frequency")), "pair_count_changes("),
    "changes-without-the-merged-pair": ("task1_pair_count_changes_solution", ((RETURN_CHANGES, "    return {p: change for p, "
                                        "change in changes.items() if change != 0 and p != pair}\n"),), "pair_count_changes("),
    "changes-of-pairs-that-hold-a-token-of-it": ("task1_pair_count_changes_solution", (
        ("    for old in zip(word, word[1:]):\n", "    for old in [p for p in zip(word, word[1:]) if pair[0] in p or pair[1] in p]:\n"),
        ("    for new in zip(merged, merged[1:]):\n", "    for new in [p for p in zip(merged, merged[1:]) if pair[0] + pair[1] in p]:\n")),
        "pair_count_changes("),
    "changes-of-the-first-occurrence": ("task1_pair_count_changes_solution", (("    merged = merge_word(word, pair)\n",
        "    i = list(zip(word, word[1:])).index(pair) if pair in zip(word, word[1:]) else None\n"
        "    merged = word if i is None else word[:i] + (pair[0] + pair[1],) + word[i + 2:]\n"),), "pair_count_changes("),
    "changes-kept-by-word-and-pair": ("task1_pair_count_changes_solution", kept_by("(word, pair)", "    merged = merge_word(word, pair)\n",
                                      RETURN_CHANGES[11:-1], RETURN_CHANGES[11:-1]), "pair_count_changes("),
    "update-returns-the-old-word": ("task2_merge_and_update_solution", (("    return merge_word(word, pair)\n",
                                    "    merge_word(word, pair)\n    return word\n"),), "merge_and_update("),
    "update-keeps-zeros": ("task2_merge_and_update_solution", (("        if count:\n            pair_counts[changed] = count\n"
                           "        else:\n            del pair_counts[changed]\n", "        pair_counts[changed] = count\n"),),
                           "merge_and_update("),
    "update-of-known-pairs-only": ("task2_merge_and_update_solution", (("        count = pair_counts.get(changed, 0) + change\n",
                                   "        if changed not in pair_counts:\n            continue\n"
                                   "        count = pair_counts[changed] + change\n"),), "merge_and_update("),
    "update-unweighted": ("task2_merge_and_update_solution", (("pair_count_changes(word, pair, frequency)",
                          "pair_count_changes(word, pair, 1)"),), "merge_and_update("),
    "update-of-a-copy": ("task2_merge_and_update_solution", (("    for changed, change in",
                         "    pair_counts = dict(pair_counts)  # not the caller's\n    for changed, change in"),), "merge_and_update("),
    "update-deletes-counts-of-one": ("task2_merge_and_update_solution", (("        if count:\n", "        if count > 1:\n"),),
                                     "merge_and_update("),
    "train-frequencies-sorted": ("task3_train_solution", (("    frequencies = list(pretoken_counts.values())\n",
                                 "    frequencies = sorted(pretoken_counts.values())\n"),), "train(", "check_train_merges"),
    "train-without-the-stop": ("task3_train_solution", (("        if not pair_counts:\n            break\n", ""),), "raised",
                               "check_train_merges"),
    "train-words-of-a-set": ("task3_train_solution", (("for pretoken in pretoken_counts]", "for pretoken in set(pretoken_counts)]"),),
                             "train(", "check_train_merges"),
    "train-ties-to-the-first-counted": ("task3_train_solution", ((V2_PICK, "        pair = max(pair_counts, key=pair_counts.get)\n"),),
                                        "train(", "check_train_merges"),
    "train-one-merge-too-many": ("task3_train_solution", (("for _ in range(num_merges):", "for _ in range(num_merges + 1):"),),
                                 "train(", "check_train_merges"),
    "train-filter-on-the-pair-itself": ("task3_train_solution", (("if left in word and right in word:", "if pair in word:"),),
                                        "train(", "check_train_merges"),
    "train-first-word-only": ("task3_train_solution", ((V2_UPDATE, V2_UPDATE + "                if words[i] != word:\n"
                                                        "                    break  # found it\n"),), "train(", "check_train_merges"),
    "train-answers-kept-by-pretokens": ("task3_train_solution", KEPT_BY_PRETOKENS, "train(", "check_train_merges"),
    "train-ties-on-the-tokens-joined-by-a-space": ("task3_train_solution", ((V2_PICK, SPACE_JOINED_PICK),), "train(",
                                                   "check_train_merges"),
}

LAB04_ROUND6 = {
    "index-ids-from-one": ("task1_index_words_solution", (("enumerate(words)", "enumerate(words, 1)"),), "index_words("),
    "index-of-joined-pairs": ("task1_index_words_solution", (("            index[pair].add(i)\n",
                              "            index[pair[0] + pair[1]].add(i)\n"),), "index_words("),
    "index-last-word-left-out": ("task1_index_words_solution", (("enumerate(words)", "enumerate(words[:-1])"),), "index_words("),
    "index-of-the-words-themselves": ("task1_index_words_solution", (("            index[pair].add(i)\n",
                                      "            index[pair].add(word)\n"),), "index_words("),
    "index-windows-two-apart": ("task1_index_words_solution", (("zip(word, word[1:])", "zip(word, word[2:])"),), "index_words("),
    "pairs-with-a-substring": ("task2_pairs_with_solution", ((PAIRS_WITH, "    return [pair for pair in zip(word, word[1:]) "
                               "if token in pair[0] + pair[1]]\n"),), "pairs_with("),
    "pairs-with-right-only": ("task2_pairs_with_solution", ((PAIRS_WITH, "    return [pair for pair in zip(word, word[1:]) "
                              "if pair[1] == token]\n"),), "pairs_with("),
    "pairs-with-repeats-dropped-in-order": ("task2_pairs_with_solution", ((PAIRS_WITH, "    return list(dict.fromkeys(pair for pair "
                                            "in zip(word, word[1:]) if token in pair))\n"),), "pairs_with("),
    "pairs-with-left-then-right": ("task2_pairs_with_solution", ((PAIRS_WITH, "    windows = list(zip(word, word[1:]))\n"
                                   "    return [p for p in windows if p[0] == token] + [p for p in windows if p[1] == token and "
                                   "p[0] != token]\n"),), "pairs_with("),
    "pairs-with-around-each-occurrence": ("task2_pairs_with_solution", ((PAIRS_WITH, "    found = []\n"
        "    for i, t in enumerate(word):\n        if t == token:\n            if i > 0:\n                found.append((word[i - 1], t))\n"
        "            if i + 1 < len(word):\n                found.append((t, word[i + 1]))\n    return found\n"),), "pairs_with("),
    "pairs-with-every-window": ("task2_pairs_with_solution", ((PAIRS_WITH, "    return list(zip(word, word[1:]))\n"),), "pairs_with("),
    "pairs-with-a-tuple": ("task2_pairs_with_solution", ((PAIRS_WITH, "    return tuple(pair for pair in zip(word, word[1:]) "
                           "if token in pair)\n"),), "pairs_with("),
    "pairs-with-kept-by-word": ("task2_pairs_with_solution", kept_by("word", PAIRS_WITH, PAIRS_WITH[11:-1], PAIRS_WITH[11:-1]),
                                "pairs_with("),
    "train-files-under-the-right-token": ("task3_train_solution", (("pairs_with(words[i], token)", "pairs_with(words[i], pair[1])"),),
                                          "raised", "check_train_merges"),
    "train-files-when-unchanged": ("task3_train_solution", (("if len(words[i]) < len(word):", "if len(words[i]) == len(word):"),),
                                   "raised", "check_train_merges"),
    "train-frequencies-sorted": ("task3_train_solution", (("    frequencies = list(pretoken_counts.values())\n",
                                 "    frequencies = sorted(pretoken_counts.values())\n"),), "train(", "check_train_merges"),
    "train-ties-to-the-first-counted": ("task3_train_solution", (("        pair = best_pair(pair_counts)\n",
                                        "        pair = max(pair_counts, key=pair_counts.get)\n"),), "train(", "check_train_merges"),
    "train-without-the-stop": ("task3_train_solution", (("        if not pair_counts:\n            break\n", ""),), "raised",
                               "check_train_merges"),
    "train-one-merge-short": ("task3_train_solution", (("for _ in range(num_merges):", "for _ in range(num_merges - 1):"),), "train(",
                              "check_train_merges"),
    "train-first-new-pair-only": ("task3_train_solution", (("                for new_pair in pairs_with(words[i], token):\n",
                                  "                for new_pair in pairs_with(words[i], token)[:1]:\n"),), "train(", "check_train_merges"),
    "train-answers-kept-by-pretokens": ("task3_train_solution", KEPT_BY_PRETOKENS, "train(", "check_train_merges"),
    "train-ties-on-the-tokens-joined-by-a-space": ("task3_train_solution", ((V2_PICK, SPACE_JOINED_PICK),), "train(",
                                                   "check_train_merges"),
}

LAB03_ROUND6 = {
    "find-first-listed-token": ("task1_find_chunk_boundaries_solution", (("position += min(found)", "position += found[0]"),),
                                "find_chunk_boundaries("),
    "find-past-the-end": ("task1_find_chunk_boundaries_solution", (("boundaries.append(min(position, size))",
                          "boundaries.append(position)"),), "find_chunk_boundaries("),
    "find-sorted-with-repeats": ("task1_find_chunk_boundaries_solution", (("    return sorted(set(boundaries))",
                                 "    return sorted(boundaries)"),), "find_chunk_boundaries("),
    "find-chunk-size-rounded-up": ("task1_find_chunk_boundaries_solution", (("chunk_size = size // desired_num_chunks",
                                   "chunk_size = -(-size // desired_num_chunks)"),), "find_chunk_boundaries("),
    "find-steps-over-the-overlap": ("task1_find_chunk_boundaries_solution", (("                position += buffer_size\n",
                                    "                position += buffer_size + overlap\n"),), "find_chunk_boundaries("),
    "find-without-overlap": ("task1_find_chunk_boundaries_solution", (("max(len(token) for token in split_tokens) - 1", "0"),),
                             "find_chunk_boundaries("),
    # one guess too many: the last at desired_num_chunks * chunk_size, where the size's remainder can hold one more token
    "find-one-guess-too-many": ("task1_find_chunk_boundaries_solution", (("range(1, desired_num_chunks)",
                                "range(1, desired_num_chunks + 1)"),), "find_chunk_boundaries("),
    # the caller's tokens sorted in place to find the longest (the statement now says to leave split_tokens)
    "find-sorts-the-callers-tokens": ("task1_find_chunk_boundaries_solution", ((
        "    overlap = max(len(token) for token in split_tokens) - 1\n",
        "    split_tokens.sort(key=len)  # the longest last\n    overlap = len(split_tokens[-1]) - 1\n"),),
        "changed its argument split_tokens"),
    "chunk-one-byte-more": ("task2_count_chunk_solution", (("file.read(end - start)", "file.read(end - start + 1)"),), "count_chunk("),
    "chunk-not-seeked": ("task2_count_chunk_solution", (("        file.seek(start)\n", ""),), "count_chunk("),
    "chunk-stripped": ("task2_count_chunk_solution", ((CHUNK_READ, CHUNK_READ.replace('data.decode("utf-8")',
                       'data.decode("utf-8").strip()')),), "count_chunk("),
    "chunk-with-endoftext-by-default": ("task2_count_chunk_solution", ((CHUNK_READ, CHUNK_READ.replace(
        "special_tokens)", "special_tokens or ['<|endoftext|>'])")),), "count_chunk("),
    "chunk-as-latin-1": ("task2_count_chunk_solution", ((CHUNK_READ, CHUNK_READ.replace('data.decode("utf-8")',
                         'data.decode("latin-1")')),), "count_chunk("),
    "merge-from-a-copy-of-the-first": ("task3_merge_counts_solution", ((
        "    total: Counter[bytes] = Counter()\n    for chunk_counts in counts:\n",
        "    total = Counter(counts[0])\n    for chunk_counts in counts[1:]:\n"),), "merge_counts("),
    "merge-the-largest-count": ("task3_merge_counts_solution", (("        total.update(chunk_counts)\n",
                                "        for k, v in chunk_counts.items():\n            total[k] = max(total[k], v)\n"),),
                                "merge_counts("),
    "merge-last-chunk-left-out": ("task3_merge_counts_solution", (("    for chunk_counts in counts:\n",
                                  "    for chunk_counts in counts[:-1]:\n"),), "merge_counts("),
    "merge-counts-the-keys": ("task3_merge_counts_solution", (("        total.update(chunk_counts)\n",
                              "        total.update(chunk_counts.keys())\n"),), "merge_counts("),
}

SIXTH_ROUND_00_TO_04 = {(lab, name): mistake for lab, table in (
    ("00_pretokenization", LAB00_ROUND6), ("01_naive_bpe", LAB01_ROUND6), ("02_incremental", LAB02_ROUND6),
    ("03_parallel", LAB03_ROUND6), ("04_inverted_index", LAB04_ROUND6)) for name, mistake in table.items()}
KEPT_BEFORE_ROUND6 = {("00_pretokenization", "utf8-with-line-ends-normalized"),
                      ("00_pretokenization", "pattern-spaces-of-any-number-before-a-word"),
                      ("00_pretokenization", "pattern-contractions-without-d-and-m"),
                      ("01_naive_bpe", "count-answers-kept-by-words"), ("01_naive_bpe", "train-answers-kept-by-pretokens"),
                      ("03_parallel", "find-sorts-the-callers-tokens"),
                      # learn27: kept under some seeds before (see the comment above the tables)
                      ("00_pretokenization", "split-shortest-first"), ("00_pretokenization", "pretokenize-answers-kept-by-text"),
                      ("02_incremental", "train-answers-kept-by-pretokens"), ("04_inverted_index", "train-answers-kept-by-pretokens"),
                      ("03_parallel", "find-one-guess-too-many"),
                      # seeds44: kept its points under secret seed 17 (no tie of one left token drawn the wrong way round);
                      # three pair counts with such a tie drawn from the seed now end the hidden test
                      ("01_naive_bpe", "ties-on-the-left-token-only")}
CAUGHT_BEFORE_ROUND6 = [key for key in SIXTH_ROUND_00_TO_04 if key not in KEPT_BEFORE_ROUND6]


@pytest.mark.seeded
@pytest.mark.parametrize("lab, mistake", sorted(KEPT_BEFORE_ROUND6), ids=[f"{lab[:2]}-{name}" for lab, name in sorted(KEPT_BEFORE_ROUND6)])
def test_labs00_to_04_a_mistake_that_kept_its_points_now_fails_the_hidden_test(request, lab, mistake):
    round_failure(request, SIXTH_ROUND_00_TO_04, lab, mistake)


@pytest.mark.parametrize("lab, mistake", [pytest.param(*key, id=f"{key[0][:2]}-{key[1]}") for key in CAUGHT_BEFORE_ROUND6])
def test_labs00_to_04_a_learners_mistake_of_the_sixth_round_fails_the_hidden_test(request, lab, mistake):
    # those that lost their points before this round: one per lab by default (a hidden test each, up to seconds)
    one_per_lab("sixth", CAUGHT_BEFORE_ROUND6, lab, mistake)
    round_failure(request, SIXTH_ROUND_00_TO_04, lab, mistake)


# ---- labs 05 to 10, learn27b: a seventh learner round (issue 21, item 8) ----------------------------------------
# Each mistake must lose the points of its own task in the hidden test (and no other task's). Those that kept their points
# before now lose them under every seed (marked seeded, KEPT_BEFORE_ROUND7): lab 05's heap keys padded to a fixed width
# (the tokens drawn were 3 bytes at most: half the groups now hold a long token of 9 to 64 bytes beside its extension,
# tied), lab 06's encode_pretoken through text (the pretokens drawn were UTF-8: a third now hold half an é) and
# encode_text's special tokens matched in any case or taken as Latin-1 (the texts drawn held no "<|EOT|>" and no special
# token past ASCII: a last part of the hidden test, apart so that the other texts' draws stay, draws such texts), lab
# 07's merge_all that pushes no new pair of rank 0 (trained ranks never make one: a third of its heaps now come from lab
# 06's merges reordered by hand, where (x y, x) of rank 0 forms), and lab 09's ValueErrors of interleaved without a
# message (the statement asks it to say which: the driver now records whether it has one). The others already lost their
# hidden points; they stay here so that a change of a grader or a strategy that stops catching them shows (one per lab
# by default, sampling.skip_unless_drawn; every one under BPE_EXHAUSTIVE=1). (Allowed, so not here: merge_occurrences
# without its follower == -1 check (a node listed under (A, B) that still holds A always has its follower: only a merge
# at the node unlinks it), spread allowing one value (statistics.quantiles raises StatisticsError, a ValueError),
# crossover's sign change told by d[i] * d[i + 1] < 0 (it differs only where the product underflows, below 1e-308), and
# merge_two by Counter addition (it drops counts of 0 or less, and pretoken counts are positive).)

ENTRY_KEY_RETURN = '        return "".join(chr(255 - b) for b in token) + "\\u0100"\n'
MERGE_LEFT_LOSS = "            changes[(token[before], left)] -= frequency\n"
V5_GROWN = "                    grown.add(new_pair)\n"

LAB05_ROUND7 = {
    # a fixed width, padded with the end mark: a token longer than the width loses its last bytes' order
    "key-padded-to-a-width": ("task1_heap_entry_solution", ((ENTRY_KEY_RETURN, '        return "".join(chr(255 - b) for b in '
                              'token).ljust(8, "\\u0100")\n'),), "heap_entry("),
    "key-end-mark-first": ("task1_heap_entry_solution", ((ENTRY_KEY_RETURN, '        return "\\u0100" + "".join(chr(255 - b) '
                           'for b in token)\n'),), "heap_entry("),
    "key-end-mark-on-the-left-only": ("task1_heap_entry_solution", ((ENTRY_RETURN, "    return (-count, reversed_key(left), "
                                      "reversed_key(right)[:-1], pair)\n"),), "heap_entry("),
    "key-right-token-first": ("task1_heap_entry_solution", ((ENTRY_RETURN, "    return (-count, reversed_key(right), "
                              "reversed_key(left), pair)\n"),), "heap_entry("),
    "key-count-not-negated": ("task1_heap_entry_solution", (("    return (-count,", "    return (count,"),), "heap_entry("),
    "pop-re-pushes-gone-pairs": ("task2_pop_best_solution", (("        if 0 < count < claimed:", "        if count < claimed:"),),
                                 "pop_best("),
    "pop-stale-counted-from-one": ("task2_pop_best_solution", (("    stale_pops = 0\n", "    stale_pops = 1\n"),), "pop_best("),
    "train-pushes-during-the-merge": ("task3_train_solution", ((V5_GROWN, "                    heapq.heappush(entries, "
                                      "heap_entry(pair_counts[new_pair], new_pair))\n"),), "train("),
    "train-frequencies-ignored": ("task3_train_solution", (("    frequencies = list(pretoken_counts.values())\n",
                                  "    frequencies = [1] * len(pretoken_counts)\n"),), "train("),
    "train-one-byte-pretokens-left-out": ("task3_train_solution", ((
        "    words = [split_into_bytes(pretoken) for pretoken in pretoken_counts]\n",
        "    words = [split_into_bytes(pretoken) for pretoken in pretoken_counts if len(pretoken) > 1]  # no pairs\n"),), "train("),
    "train-stops-at-count-one": ("task3_train_solution", (("        pair, _ = pop_best(entries, pair_counts)\n",
                                 "        pair, _ = pop_best(entries, pair_counts)\n        if pair_counts[pair] < 2:\n"
                                 "            break  # a pair seen once is no pattern\n"),), "train("),
    "merge-changes-unweighted": ("task4_merge_occurrences_solution", (("-= frequency", "-= 1"), ("+= frequency", "+= 1"),
                                 ("-= frequency", "-= 1"), ("+= frequency", "+= 1")), "merge_occurrences("),
    "merge-right-occurrence-at-after": ("task4_merge_occurrences_solution", ((OCCURRENCE_RIGHT, OCCURRENCE_RIGHT.replace(
        "(node)", "(after)")),), "merge_occurrences("),
    "merge-a-a-right-to-left": ("task4_merge_occurrences_solution", (("sorted(nodes) if", "sorted(nodes, reverse=True) if"),),
                                "merge_occurrences("),
    "merge-new-pair-listed-alone": ("task4_merge_occurrences_solution", ((OCCURRENCE_LEFT, "occurrences[(token[before], merged)] "
                                    "= [before]"), (OCCURRENCE_RIGHT, "occurrences[(merged, token[after])] = [node]")),
                                    "merge_occurrences("),
    "merge-left-loss-keyed-reversed": ("task4_merge_occurrences_solution", ((MERGE_LEFT_LOSS, MERGE_LEFT_LOSS.replace(
        "(token[before], left)", "(left, token[before])")),), "merge_occurrences("),
}

LAB06_ROUND7 = {
    "ranks-reversed": ("task1_merge_ranks_solution", (("enumerate(merges)", "enumerate(reversed(merges))"),), "merge_ranks("),
    "ranks-of-sorted-merges": ("task1_merge_ranks_solution", (("enumerate(merges)", "enumerate(sorted(merges))"),), "merge_ranks("),
    "ranks-of-the-joined-pair": ("task1_merge_ranks_solution", (("ranks.setdefault(tuple(pair), rank)",
                                 "ranks.setdefault(pair[0] + pair[1], rank)"),), "merge_ranks("),
    "ranks-of-a-set": ("task1_merge_ranks_solution", (("enumerate(merges)", "enumerate(set(merges))"),), "merge_ranks("),
    "empty-pretoken-one-empty-token": ("task2_encode_pretoken_solution", (("    return list(word)\n",
                                       "    return list(word) or [pretoken]\n"),), "encode_pretoken("),
    "bytes-through-utf-8-text": ("task2_encode_pretoken_solution", (("    word = split_into_bytes(pretoken)\n",
                                 "    word = split_into_bytes(pretoken.decode('utf-8', errors='replace').encode('utf-8'))\n"),),
                                 "encode_pretoken("),
    "split-without-the-group": ("task3_encode_text_solution", (('regex.split("(" + "|".join(regex.escape(token) for token in '
                                'longest_first) + ")", text)', 'regex.split("|".join(regex.escape(token) for token in '
                                'longest_first), text)'),), "encode_text("),
    "special-token-bytes-of-latin-1": ("task3_encode_text_solution", (('            tokens.append(piece.encode("utf-8"))\n',
                                       '            tokens.append(piece.encode("latin-1", errors="replace"))\n'),),
                                       "encode_text("),
    "pieces-stripped": ("task3_encode_text_solution", (("regex.findall(GPT2_PATTERN, piece)",
                        "regex.findall(GPT2_PATTERN, piece.strip())"),), "encode_text("),
    "split-at-the-first-special-only": ("task3_encode_text_solution", ((' + ")", text)', ' + ")", text, maxsplit=1)'),),
                                        "encode_text("),
    "specials-ignoring-case": ("task3_encode_text_solution", ((' + ")", text)', ' + ")", text, flags=regex.IGNORECASE)'),),
                               "encode_text("),
    "arena-in-insertion-order": ("task4_build_arena_solution", ((
        "    for token_id in " + ARENA_IDS + ":\n        token = vocab.get(token_id, b\"\")  # an id with no token: an empty range\n",
        "    for token in vocab.values():\n"),), "build_arena("),
    "arena-from-the-smallest-id": ("task4_build_arena_solution", ((ARENA_IDS, "range(min(vocab, default=0), max(vocab, default=-1) "
                                   "+ 1)"),), "build_arena("),
    "arena-buffer-a-list": ("task4_build_arena_solution", (('    return b"".join(pieces), offsets\n',
                            "    return pieces, offsets\n"),), "build_arena("),
    "decode-message-without-the-id": ("task5_decode_with_arena_solution", (('f"cannot decode token id {token_id}: it is not in the '
                                      'vocabulary"', '"cannot decode a token id: it is not in the vocabulary"'),),
                                      "decode_with_arena("),
    "decode-bad-ids-skipped": ("task5_decode_with_arena_solution", ((
        '            raise ValueError(f"cannot decode token id {token_id}: it is not in the vocabulary")\n',
        "            continue  # no token: nothing to add\n"),), "decode_with_arena("),
    "decode-stops-at-a-bad-id": ("task5_decode_with_arena_solution", ((
        '            raise ValueError(f"cannot decode token id {token_id}: it is not in the vocabulary")\n',
        "            break  # the rest is not text\n"),), "decode_with_arena("),
}

MERGE_ALL_BEFORE = "        before = prev[start]\n"
LAB07_ROUND7 = {
    "first-positions-from-one": ("task1_first_heap_solution", (("heap.append((rank, position))", "heap.append((rank, position + 1))"),),
                                 "first_heap("),
    "first-pair-looked-up-backwards": ("task1_first_heap_solution", (("ranks.get((parts[position], parts[position + 1]))",
                                       "ranks.get((parts[position + 1], parts[position]))"),), "first_heap("),
    "first-pair-of-the-joined-bytes": ("task1_first_heap_solution", (("ranks.get((parts[position], parts[position + 1]))",
                                       "ranks.get(parts[position] + parts[position + 1])"),), "first_heap("),
    "first-pair-at-zero-skipped": ("task1_first_heap_solution", (("range(len(parts) - 1)", "range(1, len(parts) - 1)"),),
                                   "first_heap("),
    "merge-new-rank-zero-not-pushed": ("task2_merge_all_solution", (("            if new is not None:\n", "            if new:\n"),
                                       ("            if new is not None:\n", "            if new:\n")), "merge_all("),
    "merge-left-neighbour-at-start-minus-one": ("task2_merge_all_solution", ((MERGE_ALL_BEFORE, "        before = start - 1\n"),),
                                                "merge_all("),
    "merge-stops-at-the-first-stale": ("task2_merge_all_solution", ((
        "            continue  # stale: merged into its left neighbour\n", "            break  # nothing left to merge\n"),),
        "merge_all("),
    "merge-left-pair-pushed-with-the-old-rank": ("task2_merge_all_solution", (("heapq.heappush(heap, (new, before))",
                                                 "heapq.heappush(heap, (rank, before))"),), "merge_all("),
    "merge-returns-the-parts-with-nones": ("task2_merge_all_solution", (("    return [part for part in parts if part is not None]\n",
                                           "    return parts\n"),), "merge_all("),
    "encode-stripped": ("task3_heap_encode_solution", (("split_into_bytes(pretoken)", "split_into_bytes(pretoken.strip())"),),
                        "heap_encode("),
    "encode-bytes-of-ints": ("task3_heap_encode_solution", (("    parts = list(split_into_bytes(pretoken))\n",
                             "    parts = [bytes(b) for b in pretoken]\n"),), "heap_encode("),
    "encode-first-heap-of-the-reversed-parts": ("task3_heap_encode_solution", (("first_heap(parts, ranks)",
                                                "first_heap(parts[::-1], ranks)"),), "heap_encode("),
}

BACKTRACK_DEAD_END = ("        alive[pos] = False  # nothing fits here: dead, back up one token\n        tokens.pop()\n"
                      "        pos, candidates, index = stack.pop()\n        index += 1\n")
LAB08_ROUND7 = {
    "compatible-a-tuple": ("task1_compatible_solution", ((COMPATIBLE_BY_ENCODING, "return encode_pretoken(left + right, ranks) "
                                                                                  "== (left, right)"),), "compatible("),
    "compatible-either-order": ("task1_compatible_solution", ((COMPATIBLE_BY_ENCODING, "return encode_pretoken(left + right, ranks) "
                                "in ([left, right], [right, left])"),), "compatible("),
    "backtrack-the-byte-at-a-dead-end": ("task2_backtrack_encode_solution", ((BACKTRACK_DEAD_END,
        "        tokens.append(pretoken[pos:pos + 1])  # nothing fits: take the byte\n        stack.append((pos, [], 0))\n"
        "        pos += 1\n        candidates, index = starting_at(pos) if pos < n else [], 0\n"),), "backtrack_encode("),
    "backtrack-empty-as-one-token": ("task2_backtrack_encode_solution", (("    return tokens\n", "    return tokens or [pretoken]\n"),),
                                     "backtrack_encode("),
    "backtrack-bytes-of-the-merges-only": ("task2_backtrack_encode_solution", (("    valid = {bytes([byte]) for byte in pretoken}\n",
                                           "    valid = {token for pair in ranks for token in pair if len(token) == 1}\n"),),
                                           "backtrack_encode("),
    "last-compatible-arguments-swapped": ("task3_last_tokens_solution", (("compatible(last[start], token, ranks)",
                                          "compatible(token, last[start], ranks)"),), "last_tokens("),
    "last-single-bytes-never-tried": ("task3_last_tokens_solution", (("range(max(0, end - longest), end)",
                                      "range(max(0, end - longest), end - 1)"),), "last_tokens("),
    "last-bytes-of-the-merges-only": ("task3_last_tokens_solution", (("    valid = {bytes([byte]) for byte in pretoken}\n",
                                      "    valid = {token for pair in ranks for token in pair if len(token) == 1}\n"),),
                                      "last_tokens("),
    "counts-from-one": ("task4_prefix_token_counts_solution", (("    counts = [0] * len(last)\n", "    counts = [1] * len(last)\n"),),
                        "prefix_token_counts("),
    "counts-of-bytes-per-token": ("task4_prefix_token_counts_solution", (("counts[end - len(last[end])] + 1",
                                  "counts[end - len(last[end])] + len(last[end])"),), "prefix_token_counts("),
}

LAB09_ROUND7 = {
    "clock-read-once-per-round": ("task1_interleaved_solution", ((
        "    for r in range(rounds):\n        first = r % len(labels)\n",
        "    for r in range(rounds):\n        start = clock()  # once, at the round's start\n        first = r % len(labels)\n"),
        ("                start = clock()\n", "")), "interleaved("),
    "rounds-zero-allowed": ("task1_interleaved_solution", (("    if rounds < 1:\n", "    if rounds < 0:\n"),), "interleaved("),
    "errors-say-nothing": ("task1_interleaved_solution", (('f"rounds must be at least 1, got {rounds}"', '""'),
                                                          ('"no contenders to time"', '""')), "interleaved("),
    "labels-sorted": ("task1_interleaved_solution", (("    labels = list(contenders)\n", "    labels = sorted(contenders)\n"),),
                      "interleaved("),
    "spread-sorts-in-place": ("task2_spread_solution", (("    middle = statistics.median(values)\n",
                              "    values.sort()\n    middle = statistics.median(values)\n"),), "spread("),
    "spread-zero-median-allowed": ("task2_spread_solution", (("    if middle <= 0:\n", "    if middle < 0:\n"),), "spread("),
    "spread-quartiles-swapped": ("task2_spread_solution", (("(q3 - q1) / middle", "(q1 - q3) / middle"),), "spread("),
    "ratio-missing-label-as-no-rounds": ("task3_paired_ratio_solution", (("    if len(times[a]) != len(times[b]):\n",
                                         "    times = __import__('collections').defaultdict(list, times)  # not timed: no rounds\n"
                                         "    if len(times[a]) != len(times[b]):\n"),), "paired_ratio("),
    "ratio-geometric-mean": ("task3_paired_ratio_solution", ((RATIOS, "    return statistics.geometric_mean([x / y for x, y in "
                             "zip(times[a], times[b])])\n"),), "paired_ratio("),
    "ratio-of-sums": ("task3_paired_ratio_solution", ((RATIOS, "    return sum(times[a]) / sum(times[b])\n"),), "paired_ratio("),
    "exponent-through-the-origin": ("task4_fit_exponent_solution", ((SLOPE, "    return sum(x * y for x, y in zip(xs, ys)) / "
                                    "sum(x * x for x in xs)\n"),), "fit_exponent("),
    "exponent-means-over-n-minus-1": ("task4_fit_exponent_solution", (("sum(xs) / len(xs), sum(ys) / len(ys)",
                                      "sum(xs) / (len(xs) - 1), sum(ys) / (len(ys) - 1)"),), "fit_exponent("),
    "exponent-lengths-not-checked": ("task4_fit_exponent_solution", (("len(sizes) != len(seconds) or ", ""),), "fit_exponent("),
    "exponent-equal-sizes-not-checked": ("task4_fit_exponent_solution", ((
        '    if min(sizes) == max(sizes):  # compare the sizes: the mean of equal logarithms can round off them\n'
        '        raise ValueError("all sizes are equal")\n', ""),), "fit_exponent("),
    "crossover-xs-not-checked": ("task5_crossover_solution", (('    if any(x0 >= x1 for x0, x1 in zip(xs, xs[1:])):\n'
                                 '        raise ValueError("xs must increase")\n', ""),), "crossover("),
    "crossover-equal-xs-allowed": ("task5_crossover_solution", (("x0 >= x1", "x0 > x1"),), "crossover("),
    "crossover-lengths-not-checked": ("task5_crossover_solution", (("not len(xs) == len(ys_a) == len(ys_b) or ", ""),),
                                      "crossover("),
    "crossover-touch-at-the-last-point-missed": ("task5_crossover_solution", (("    for i in range(len(xs)):\n",
                                                 "    for i in range(len(xs) - 1):\n"),), "crossover("),
    "peak-without-the-reset": ("task6_peak_memory_solution", (("    if was_tracing:\n        tracemalloc.reset_peak()\n    else:\n",
                               "    if not was_tracing:\n"),), "peak_memory("),
    "peak-swallows-the-error": ("task6_peak_memory_solution", (("        result = fn()\n", "        try:\n            result = fn()\n"
                                "        except Exception:\n            result = None  # the measure goes on\n"),), "peak_memory("),
    "peak-returned-first": ("task6_peak_memory_solution", (("    return result, peak - before\n", "    return peak - before, result\n"),),
                            "peak_memory("),
}

RANGE_READ = "        data = file.read(end - start)\n"
COUNT_PARTS = "    parts = [task(count_range)(path, start, end, special_tokens) for path, start, end in ranges]\n"
LAB10_ROUND7 = {
    "range-read-end-bytes": ("task1_count_range_solution", ((RANGE_READ, "        data = file.read(end)\n"),), "count_range("),
    "range-without-special-tokens": ("task1_count_range_solution", (('count_pretokens(data.decode("utf-8"), special_tokens)',
                                     'count_pretokens(data.decode("utf-8"), [])'),), "count_range("),
    "range-stripped": ("task1_count_range_solution", (('data.decode("utf-8")', 'data.decode("utf-8").strip()'),), "count_range("),
    "range-skips-its-first-byte": ("task1_count_range_solution", (("file.seek(start)", "file.seek(start + 1)"),), "count_range("),
    "merge-keys-of-the-larger-only": ("task2_merge_two_solution", (("    for pretoken, count in right.items():\n"
                                      "        total[pretoken] = total.get(pretoken, 0) + count\n",
                                      "    for pretoken in total:\n        total[pretoken] += right.get(pretoken, 0)\n"),),
                                      "merge_two("),
    "tree-pairs-reversed": ("task3_tree_reduce_solution", (("combine(level[i], level[i + 1])", "combine(level[i + 1], level[i])"),),
                            "tree_shape(", tree_shape_hidden),
    "tree-odd-dropped": ("task3_tree_reduce_solution", (("        if len(level) % 2:\n            paired.append(level[-1])\n", ""),),
                         "tree_shape(", tree_shape_hidden),
    "tree-returns-the-level": ("task3_tree_reduce_solution", (("    return level[0]\n", "    return level\n"),), "tree_shape(",
                               tree_shape_hidden),
    "plan-first-token-only": ("task4_plan_ranges_solution", (("for token in special_tokens]", "for token in special_tokens[:1]]"),),
                              "plan_ranges("),
    "plan-paths-deduplicated": ("task4_plan_ranges_solution", (("    for path in paths:\n", "    for path in dict.fromkeys(paths):\n"),),
                                "plan_ranges("),
    "plan-one-range-fewer": ("task4_plan_ranges_solution", (("find_chunk_boundaries(path, ranges_per_file, split_tokens)",
                             "find_chunk_boundaries(path, max(1, ranges_per_file - 1), split_tokens)"),), "plan_ranges("),
    "plan-ranges-as-lists": ("task4_plan_ranges_solution", (("[(path, start, end) for", "[[path, start, end] for"),),
                             "plan_ranges("),
    "count-no-ranges-none": ("task5_count_ranges_solution", ((" if parts else {}", " if parts else None"),), "count_ranges("),
    "count-called-then-wrapped": ("task5_count_ranges_solution", ((COUNT_PARTS, "    parts = [count_range(path, start, end, "
                                  "special_tokens) for path, start, end in ranges]\n"),), "task_graph(", task_graph_hidden),
    "count-without-special-tokens": ("task5_count_ranges_solution", (("(path, start, end, special_tokens)", "(path, start, end, [])"),),
                                     "count_ranges("),
    "count-ranges-deduplicated": ("task5_count_ranges_solution", (("for path, start, end in ranges]",
                                  "for path, start, end in dict.fromkeys(ranges)]"),), "count_ranges("),
}

SEVENTH_ROUND_05_TO_10 = {(lab, name): mistake for lab, table in (
    ("05_heap", LAB05_ROUND7), ("06_encode_decode", LAB06_ROUND7), ("07_heap_encoding", LAB07_ROUND7),
    ("08_linear_encoding", LAB08_ROUND7), ("09_benchmarks", LAB09_ROUND7), ("10_distributed", LAB10_ROUND7)) for name,
        mistake in table.items()}
KEPT_BEFORE_ROUND7 = {("05_heap", "key-padded-to-a-width"), ("06_encode_decode", "bytes-through-utf-8-text"),
                      ("06_encode_decode", "specials-ignoring-case"), ("06_encode_decode", "special-token-bytes-of-latin-1"),
                      ("07_heap_encoding", "merge-new-rank-zero-not-pushed"), ("09_benchmarks", "errors-say-nothing")}
CAUGHT_BEFORE_ROUND7 = [key for key in SEVENTH_ROUND_05_TO_10 if key not in KEPT_BEFORE_ROUND7]


@pytest.mark.seeded
@pytest.mark.parametrize("lab, mistake", sorted(KEPT_BEFORE_ROUND7), ids=[f"{lab[:2]}-{name}" for lab, name in sorted(KEPT_BEFORE_ROUND7)])
def test_labs05_to_10_a_seventh_rounds_mistake_that_kept_its_points_now_fails_the_hidden_test(request, lab, mistake):
    round_failure(request, SEVENTH_ROUND_05_TO_10, lab, mistake)


@pytest.mark.parametrize("lab, mistake", [pytest.param(*key, id=f"{key[0][:2]}-{key[1]}") for key in CAUGHT_BEFORE_ROUND7])
def test_labs05_to_10_a_learners_mistake_of_the_seventh_round_fails_the_hidden_test(request, lab, mistake):
    # those that lost their points before this round: one per lab by default (a hidden test each, up to seconds)
    skip_unless_drawn(f"seventh round, lab {lab[:2]}", mistake, [name for of, name in CAUGHT_BEFORE_ROUND7 if of == lab])
    round_failure(request, SEVENTH_ROUND_05_TO_10, lab, mistake)


# A seventh round's mistake whose hint named another mistake (learn28): the hidden test's hint now fits it, and the hint
# it got before is gone. (lab, mistake): (the hint now, the hint before).
HINTS_ROUND7 = {
    ("05_heap", "pop-re-pushes-gone-pairs"): ("an entry too many", "ints where bytes were expected"),
    ("06_encode_decode", "split-without-the-group"): ("the special tokens are gone from your tokens", "overlap"),
    ("06_encode_decode", "split-at-the-first-special-only"): ("no maxsplit", "overlap"),
    ("06_encode_decode", "specials-ignoring-case"): ("a special token in another case", "keep answers"),
    ("06_encode_decode", "special-token-bytes-of-latin-1"): ("its UTF-8 encoding", "capturing group"),
    ("07_heap_encoding", "merge-left-pair-pushed-with-the-old-rank"): ("with the rank of the pair just merged", "rank 0"),
    ("07_heap_encoding", "merge-new-rank-zero-not-pushed"): ("`if rank is not None`", "keep merging"),
    ("08_linear_encoding", "last-bytes-of-the-merges-only"): ("also one that no merge holds", "hint: your window"),
    ("10_distributed", "tree-returns-the-level"): ("return the item, level[0]", "not all there"),
}


@pytest.mark.parametrize("lab, mistake", sorted(HINTS_ROUND7), ids=[f"{lab[:2]}-{name}" for lab, name in sorted(HINTS_ROUND7)])
def test_labs05_to_10_a_seventh_rounds_mistake_gets_a_hint_that_fits_it(request, lab, mistake):
    found = round_failure(request, SEVENTH_ROUND_05_TO_10, lab, mistake)
    now, before = HINTS_ROUND7[lab, mistake]
    assert now in found and before not in found, found


def test_lab05_a_train_that_leaves_one_byte_pretokens_out_is_not_told_to_push_fresh_entries(lab05):
    """Its frequencies shift against its words (a weight mistake): the hint for a loop that pushes no fresh entry, which
    merges pairs of single bytes only, named it under seed 3; a loop that pushes none still gets that hint."""
    graders, solutions = lab05
    shifted = variant_of("05_heap", solutions, "task3_train_solution", "train",
                         SEVENTH_ROUND_05_TO_10["05_heap", "train-one-byte-pretokens-left-out"][1])
    with contextlib.ExitStack() as seeded:  # the secret seed that met it
        for name, module in list(sys.modules.items()):
            if name.endswith("course.trusted.verdicts"):
                seeded.enter_context(module.hidden_seed(3))
        assert "needs a fresh entry" not in failure(graders.check_train_properties, shifted)
    no_push = variant_of("05_heap", solutions, "task3_train_solution", "train", ((V5_GROWN, "                    pass\n"),))
    assert "needs a fresh entry then" in failure(graders.check_train, no_push)


# ---- labs 00 to 04, learn28: an eighth learner round (issue 21, item 8) ---------------------------------------------
# Kinds the earlier rounds left out: an edge of a chunk or a window (the first window, the token's end, a chunk's first
# byte), a tie or a sort in the wrong direction (special tokens sorted alphabetically), empty input and the empty list
# told from None, a parameter ignored (special tokens, num_merges of 0), overlapping pairs counted once (a a a), a stale
# index, an argument returned as the result (merge_counts of one chunk). Every one lost its hidden points under the
# kernel's draw and secret seeds 0 to 4 but lab 03's merge_counts that returns its one chunk's dict itself ("nothing to
# add"): the right counts, in the caller's dict (the statement: "build a new one"). Its hidden test now calls it through a
# driver, as lab 10's merge_two's (checks.lab03_parallel.in_a_new_dict), which tells a new dict where the call runs.
# (Allowed, so not here: count_chunk decoding with errors="ignore", and merge_counts walking its list twice: the same
# answers on every valid input, ranges at special tokens and a list of dicts, as the statements give them.)

SPLIT_PATTERN = "    pattern = \"|\".join(regex.escape(token) for token in longest_first)\n"
PRETOKENIZE_PIECES = "split_on_special_tokens(text, special_tokens)"
NO_MERGE_MAKES_ONE = ("for _ in range(num_merges):", "for _ in range(max(1, num_merges)):  # at least one merge")

LAB00_ROUND8 = {
    "utf8-ascii-others-dropped": ("task1_utf8_bytes_solution", ((UTF8_ENCODE, '    return list(text.encode("ascii", errors="ignore"))\n'),),
                                  "utf8_bytes("),
    "split-sorted-alphabetically": ("task2_split_on_special_tokens_solution", (("sorted(special_tokens, key=len, reverse=True)",
                                    "sorted(special_tokens)"),), "split_on_special_tokens("),
    "split-at-the-first-occurrence-only": ("task2_split_on_special_tokens_solution", ((SPLIT_RETURN,
                                           "    return regex.split(pattern, text, maxsplit=1)"),), "split_on_special_tokens("),
    "split-no-tokens-told-by-none": ("task2_split_on_special_tokens_solution", (("    if not special_tokens:\n",
                                     "    if special_tokens is None:\n"),), "split_on_special_tokens("),
    "pretokenize-ignores-special-tokens": ("task3_pretokenize_solution", ((PRETOKENIZE_PIECES, "[text]"),), "pretokenize("),
    "pretokenize-special-tokens-filtered-after": ("task3_pretokenize_solution", ((
        "    for piece in split_on_special_tokens(text, special_tokens):\n        pretokens.extend(regex.findall(GPT2_PATTERN, piece))\n",
        "    pretokens = [p for p in regex.findall(GPT2_PATTERN, text) if p not in special_tokens]\n"),), "pretokenize("),
    "pretokenize-pieces-joined-by-a-space": ("task3_pretokenize_solution", ((PRETOKENIZE_PIECES,
                                             "[' '.join(split_on_special_tokens(text, special_tokens))]"),), "pretokenize("),
    "pattern-without-the-last-whitespace-run": ("task3_pretokenize_solution", (own_pattern(GPT2.replace(r"|\s+(?!\S)|\s+",
                                                r"|\s+(?!\S)")),), "pretokenize("),
    "pattern-one-digit-per-number": ("task3_pretokenize_solution", (own_pattern(GPT2.replace(r" ?\p{N}+", r" ?\p{N}")),),
                                     "pretokenize("),
    "pattern-letters-and-numbers-together": ("task3_pretokenize_solution", (own_pattern(GPT2.replace(r" ?\p{L}+",
                                             r" ?[\p{L}\p{N}]+")),), "pretokenize("),
    "count-keys-stripped": ("task4_count_pretokens_solution", (('key = pretoken.encode("utf-8")',
                            'key = pretoken.strip().encode("utf-8")'),), "count_pretokens("),
    "count-ignores-special-tokens": ("task4_count_pretokens_solution", ((COUNT_EACH, "for pretoken in pretokenize(text, []):"),),
                                     "count_pretokens("),
    "split-pieces-stripped": ("task2_split_on_special_tokens_solution", ((SPLIT_RETURN,
                              "    return [piece.strip() for piece in regex.split(pattern, text)]"),), "split_on_special_tokens("),
    "pattern-lookahead-one-space-at-a-time": ("task3_pretokenize_solution", (own_pattern(GPT2.replace(r"\s+(?!\S)", r"\s(?!\S)")),),
                                              "pretokenize("),
    "split-drops-a-leading-empty-piece": ("task2_split_on_special_tokens_solution", ((SPLIT_RETURN,
                                          "    pieces = regex.split(pattern, text)\n    return pieces[1:] if len(pieces) > 1 and "
                                          "not pieces[0] else pieces  # no piece before the first token"),),
                                          "split_on_special_tokens("),
}

LAB01_ROUND8 = {
    "count-first-window-missed": ("task1_count_pairs_solution", (("zip(word, word[1:])", "zip(word[1:], word[2:])"),),
                                  "count_pairs("),
    "merge-checks-the-left-token-only": ("task3_merge_word_solution", (("word[i] == pair[0] and word[i + 1] == pair[1]",
                                         "word[i] == pair[0]"),), "merge_word("),
    "merge-empty-word-one-empty-token": ("task3_merge_word_solution", (("    return tuple(merged)\n",
                                         "    return tuple(merged) or (b'',)\n"),), "merge_word("),
    "train-no-merges-makes-one": ("task4_train_solution", (NO_MERGE_MAKES_ONE,), "train("),
    "train-frequencies-lost-after-a-merge": ("task4_train_solution", (("{merge_word(word, pair): count for word, count in "
                                             "words.items()}", "{merge_word(word, pair): 1 for word in words}"),), "train("),
    "merge-bound-off-by-one": ("task3_merge_word_solution", (("if i + 1 < len(word) and", "if i + 1 <= len(word) and"),),
                               "merge_word("),
}

CHANGES_OLD = "    for old in zip(word, word[1:]):\n"
LAB02_ROUND8 = {
    "changes-losses-of-distinct-pairs": ("task1_pair_count_changes_solution", ((CHANGES_OLD,
                                         "    for old in set(zip(word, word[1:])):\n"),), "pair_count_changes("),
    "changes-gains-of-distinct-pairs": ("task1_pair_count_changes_solution", (("    for new in zip(merged, merged[1:]):\n",
                                        "    for new in set(zip(merged, merged[1:])):\n"),), "pair_count_changes("),
    "changes-of-overlapping-merges": ("task1_pair_count_changes_solution", (("    merged = merge_word(word, pair)\n",
        "    merged = list(word)\n    for i in range(len(word) - 1):  # each occurrence of the pair, in place\n"
        "        if (word[i], word[i + 1]) == pair:\n            merged[i:i + 2] = [pair[0] + pair[1], None]\n"
        "    merged = tuple(token for token in merged if token is not None)\n"),), "pair_count_changes("),
    "update-changes-subtracted": ("task2_merge_and_update_solution", (("pair_counts.get(changed, 0) + change",
                                  "pair_counts.get(changed, 0) - change"),), "merge_and_update("),
    "update-changes-of-the-merged-word": ("task2_merge_and_update_solution", ((
        "    for changed, change in pair_count_changes(word, pair, frequency).items():\n",
        "    word = merge_word(word, pair)\n    for changed, change in pair_count_changes(word, pair, frequency).items():\n"),
        ("    return merge_word(word, pair)\n", "    return word\n")), "merge_and_update("),
    "train-first-word-skipped": ("task3_train_solution", (("        for i, word in enumerate(words):\n",
                                 "        for i, word in enumerate(words[1:], 1):\n"),), "train(", "check_train_merges"),
    "train-no-merges-makes-one": ("task3_train_solution", (NO_MERGE_MAKES_ONE,), "train(", "check_train_merges"),
    "train-filter-on-the-merged-token": ("task3_train_solution", (("if left in word and right in word:",
                                         "if left + right in word:"),), "train(", "check_train_merges"),
}

LAB03_ROUND8 = {
    "find-at-the-end-of-the-token": ("task1_find_chunk_boundaries_solution", (("[j for j in (window.find(t, 0, buffer_size "
                                     "+ len(t) - 1) for t in split_tokens) if j != -1]", "[j + len(t) for j, t in ((window.find("
                                     "t, 0, buffer_size + len(t) - 1), t) for t in split_tokens) if j != -1]  # cut after it"),),
                                     "find_chunk_boundaries("),
    "find-guess-kept-when-no-token-follows": ("task1_find_chunk_boundaries_solution", ((
        "            boundaries.append(min(position, size))\n",
        "            boundaries.append(position if position < size else max(i * chunk_size, boundaries[-1]))\n"),),
        "find_chunk_boundaries("),
    "chunk-skips-its-first-byte": ("task2_count_chunk_solution", (("file.seek(start)", "file.seek(start + 1)"),), "count_chunk("),
    "merge-the-one-chunk-itself": ("task3_merge_counts_solution", (("    total: Counter[bytes] = Counter()\n",
                                   "    if len(counts) == 1:\n        return counts[0]  # nothing to add\n"
                                   "    total: Counter[bytes] = Counter()\n"),), "merge_counts("),
    "find-without-the-file-size": ("task1_find_chunk_boundaries_solution", (("        boundaries.append(size)\n", ""),),
                                   "find_chunk_boundaries("),
    "find-overlap-one-byte-short": ("task1_find_chunk_boundaries_solution", (("max(len(token) for token in split_tokens) - 1",
                                    "max(len(token) for token in split_tokens) - 2"),), "find_chunk_boundaries("),
    "find-limit-one-byte-short": ("task1_find_chunk_boundaries_solution", ((BOUNDARY_FIND, "window.find(t, 0, buffer_size + len(t) - 2)"),),
                                  "find_chunk_boundaries("),
}

LAB04_ROUND8 = {
    "pairs-with-a-a-twice": ("task2_pairs_with_solution", ((PAIRS_WITH, "    windows = list(zip(word, word[1:]))\n"
                             "    return [p for p in windows if p[0] == token] + [p for p in windows if p[1] == token]\n"),),
                             "pairs_with("),
    "pairs-with-first-window-missed": ("task2_pairs_with_solution", (("zip(word, word[1:])", "zip(word[1:], word[2:])"),),
                                       "pairs_with("),
    "train-index-not-updated-popped-with-a-default": ("task3_train_solution", (("index.pop(pair)", "index.pop(pair, ())"),
                                                      ("            if len(words[i]) < len(word):  # rewritten: it may hold "
                                                       "new pairs, all with the new token\n" + V4_FILE, "")),
                                                      "train(", "check_train_merges"),
    "train-initial-counts-unweighted": ("task3_train_solution", (("count_pairs(dict(zip(words, frequencies)))",
                                        "count_pairs(dict.fromkeys(words, 1))"),), "train(", "check_train_merges"),
    "train-no-merges-makes-one": ("task3_train_solution", (NO_MERGE_MAKES_ONE,), "train(", "check_train_merges"),
    "train-frequency-of-the-loop-counter": ("task3_train_solution", ((
        "        for i in index.pop(pair):  # the words that ever held the pair (some of them stale)\n",
        "        for k, i in enumerate(index.pop(pair)):  # the words that ever held the pair (some of them stale)\n"),
        ("merge_and_update(word, pair, frequencies[i], pair_counts)", "merge_and_update(word, pair, frequencies[k], pair_counts)")),
        "train(", "check_train_merges"),
}

EIGHTH_ROUND_00_TO_04 = {(lab, name): mistake for lab, table in (
    ("00_pretokenization", LAB00_ROUND8), ("01_naive_bpe", LAB01_ROUND8), ("02_incremental", LAB02_ROUND8),
    ("03_parallel", LAB03_ROUND8), ("04_inverted_index", LAB04_ROUND8)) for name, mistake in table.items()}
KEPT_BEFORE_ROUND8 = {("03_parallel", "merge-the-one-chunk-itself")}
CAUGHT_BEFORE_ROUND8 = [key for key in EIGHTH_ROUND_00_TO_04 if key not in KEPT_BEFORE_ROUND8]


@pytest.mark.seeded
@pytest.mark.parametrize("lab, mistake", sorted(KEPT_BEFORE_ROUND8), ids=[f"{lab[:2]}-{name}" for lab, name in sorted(KEPT_BEFORE_ROUND8)])
def test_labs00_to_04_an_eighth_rounds_mistake_that_kept_its_points_now_fails_the_hidden_test(request, lab, mistake):
    found = round_failure(request, EIGHTH_ROUND_00_TO_04, lab, mistake)
    # its len(counts) fails on the chunks given as an iterator too (the statement's "iterable"), which a few chunks show
    # first; the fourteenth round's one-chunk-itself-read-once keeps to the new dict's hint
    assert "build a new dict even then" in found or "not from an iterator" in found, found


@pytest.mark.parametrize("lab, mistake", [pytest.param(*key, id=f"{key[0][:2]}-{key[1]}") for key in CAUGHT_BEFORE_ROUND8])
def test_labs00_to_04_a_learners_mistake_of_the_eighth_round_fails_the_hidden_test(request, lab, mistake):
    # those that lost their points before this round: one per lab by default (a hidden test each, up to a second)
    one_per_lab("eighth", CAUGHT_BEFORE_ROUND8, lab, mistake)
    round_failure(request, EIGHTH_ROUND_00_TO_04, lab, mistake)


def test_lab03_merge_counts_that_returns_its_one_chunk_fails_in_the_worker_too():
    """Whether the total is a new dict is seen where the call runs (the driver, in the grading worker): across the pipe
    the trusted side gets a copy either way."""
    code = source_of("03_parallel", "setup") + "\n" + source_of("03_parallel", "task3_merge_counts_solution")
    (old, new), = EIGHTH_ROUND_00_TO_04["03_parallel", "merge-the-one-chunk-itself"][1]
    assert old in code
    message = remote("03_parallel", code.replace(old, new), "merge_counts", "check_merge_counts_properties")
    assert message is not None and ("build a new dict even then" in message or "not from an iterator" in message), message
    assert remote("03_parallel", code, "merge_counts", "check_merge_counts_properties") is None


# ---- labs 05 to 10, learn29: a ninth learner round (issue 21, item 8) -----------------------------------------------
# Kinds the earlier rounds left out: a heap used as a plain list (popped with list.pop(0), pushed with append, never
# heapified), an entry's field read at the wrong place, a loop that runs past what is left (the heap emptied, a range one
# past the end), a token found by the wrong token (the merged pair's left token, the reversed bytes), a linked list
# relinked by index arithmetic, a stale variable (the left token where the merged one is), a shared mutable default
# (dict.fromkeys(labels, [])), a textbook formula for another quantity (Tukey's hinges, the ratio of minimums, times not
# logged), equality within a tolerance, text mode where bytes are read, and an argument copied from the wrong side. Every one
# lost its hidden points under the kernel's draw and secret seeds 0 to 4 but lab 09's crossover that takes |d[i]| < 1e-9 for a
# meeting (the statement: d[i] == 0): the curves drawn were quarters, never closer than 0.25. Seconds of fast calls are a few
# ns: half the generated curves are now (lab09_benchmarks.crossover_inputs), one kind comes within 5e-11 without meeting,
# and a fixed hidden case does, with a hint that names the tolerance. (Allowed, so not here: merge_occurrences that leaves the
# merged pair's list in occurrences (its nodes are all stale: "stale nodes left in occurrences are fine"), compatible that
# compares the encoding's first two tokens (they join back to left + right, so they are all of it), backtrack_encode trying
# the shortest candidate first and last_tokens without its break (the valid encoding is unique: one candidate fits). Not
# here either: tree_reduce's odd check inverted, which never ends on a level of two (the grading worker's call limit stops
# it; in process it would hang the test).)

KEY_LEFT = "            changes[(merged, token[after])] += frequency\n"
POP_HEAPPOP = "        entry = heapq.heappop(entries)\n"
ENCODE_BEST = 'key=lambda pair: ranks.get(pair, float("inf"))'
BACKTRACK_WINDOW = "range(min(n, pos + longest), pos, -1)"

LAB05_ROUND9 = {
    "key-of-the-reversed-token": ("task1_heap_entry_solution", ((ENTRY_KEY_RETURN, '        return "".join(chr(255 - b) for b in '
                                  'reversed(token)) + "\\u0100"\n'),), "heap_entry("),
    "key-left-token-only": ("task1_heap_entry_solution", ((ENTRY_RETURN, "    return (-count, reversed_key(left), pair)\n"),),
                            "heap_entry("),
    "pop-list-pop-zero": ("task2_pop_best_solution", ((POP_HEAPPOP, "        entry = entries.pop(0)  # the smallest is first\n"),),
                          "pop_best("),
    "pop-claimed-not-negated": ("task2_pop_best_solution", (("pair, claimed = entry[-1], -entry[0]",
                                "pair, claimed = entry[-1], entry[0]"),), "pop_best("),
    "pop-re-push-appended": ("task2_pop_best_solution", (("            heapq.heappush(entries, heap_entry(count, pair))\n",
                             "            entries.append(heap_entry(count, pair))\n"),), "pop_best("),
    "train-no-stop-when-no-pairs": ("task3_train_solution", (("    while len(merges) < num_merges and pair_counts:\n",
                                    "    while len(merges) < num_merges:\n"),), "train("),
    "train-not-heapified": ("task3_train_solution", (("    heapq.heapify(entries)  # O(P), once\n", ""),), "train("),
    "train-pairs-of-the-left-token": ("task3_train_solution", (("pairs_with(words[i], token)", "pairs_with(words[i], pair[0])"),),
                                      "train("),
    "merge-nodes-list-the-follower": ("task4_merge_occurrences_solution", (("        merged_nodes.append(node)\n",
                                      "        merged_nodes.append(follower)\n"),), "merge_occurrences("),
    "merge-right-gain-keyed-reversed": ("task4_merge_occurrences_solution", ((KEY_LEFT, KEY_LEFT.replace(
        "(merged, token[after])", "(token[after], merged)")),), "merge_occurrences("),
}

LAB06_ROUND9 = {
    "encode-no-stop-check": ("task2_encode_pretoken_solution", (("        if best not in ranks:\n            break  # no neighbouring "
                             "pair is a merge\n", ""),), "encode_pretoken("),
    "encode-unknown-pairs-rank-zero": ("task2_encode_pretoken_solution", ((ENCODE_BEST, "key=lambda pair: ranks.get(pair, 0)"),),
                                       "encode_pretoken("),
    "encode-key-ranks-get": ("task2_encode_pretoken_solution", ((ENCODE_BEST, "key=ranks.get"),), "encode_pretoken("),
    "special-tokens-at-even-positions": ("task3_encode_text_solution", (("        if i % 2 == 1:", "        if i % 2 == 0:"),),
                                         "encode_text("),
    "special-token-as-its-bytes": ("task3_encode_text_solution", (('            tokens.append(piece.encode("utf-8"))\n',
                                   '            tokens += [bytes([b]) for b in piece.encode("utf-8")]\n'),), "encode_text("),
    "special-tokens-the-longest-only": ("task3_encode_text_solution", ((
        "        longest_first = sorted(special_tokens, key=len, reverse=True)\n",
        "        longest_first = [max(special_tokens, key=len)]\n"),), "encode_text("),
    "arena-offsets-of-lengths": ("task4_build_arena_solution", (("        offsets.append(offsets[-1] + len(token))\n",
                                 "        offsets.append(len(token))\n"),), "build_arena("),
    "arena-last-id-dropped": ("task4_build_arena_solution", ((ARENA_IDS, "range(max(vocab, default=-1))"),), "build_arena("),
    "decode-returns-str": ("task5_decode_with_arena_solution", (('    return b"".join(pieces)\n',
                           '    return b"".join(pieces).decode("utf-8", errors="replace")\n'),),
                           "decode_with_arena("),
}

LAB07_ROUND9 = {
    "first-range-past-the-end": ("task1_first_heap_solution", (("range(len(parts) - 1)", "range(len(parts))"),), "first_heap("),
    "merge-right-pair-pushed-without-a-rank": ("task2_merge_all_solution", ((
        "            if new is not None:\n                heapq.heappush(heap, (new, start))\n",
        "            heapq.heappush(heap, (new, start))\n"),), "merge_all("),
    "merge-after-by-index": ("task2_merge_all_solution", (("        after = next_[start] = next_[right_start]\n",
                             "        after = next_[start] = right_start + 1\n"),), "merge_all("),
    "merge-prev-of-after-set-to-right": ("task2_merge_all_solution", (("            prev[after] = start\n",
                                         "            prev[after] = right_start\n"),), "merge_all("),
    "merge-left-pair-of-the-old-left": ("task2_merge_all_solution", (("ranks.get((parts[before], merged))",
                                        "ranks.get((parts[before], left))"),), "merge_all("),
    "encode-invalid-bytes-dropped": ("task3_heap_encode_solution", (("split_into_bytes(pretoken)",
                                     "split_into_bytes(pretoken.decode('utf-8', errors='ignore').encode('utf-8'))"),), "heap_encode("),
}

LAB08_ROUND9 = {
    "compatible-starts-with-left": ("task1_compatible_solution", ((COMPATIBLE_BY_ENCODING, "return encode_pretoken(left + right, "
                                    "ranks)[0] == left"),), "compatible("),
    "backtrack-dead-end-token-kept": ("task2_backtrack_encode_solution", (("        tokens.pop()\n", ""),), "backtrack_encode("),
    "backtrack-single-bytes-never-tried": ("task2_backtrack_encode_solution", ((BACKTRACK_WINDOW,
                                           "range(min(n, pos + longest), pos + 1, -1)"),), "backtrack_encode("),
    "backtrack-compatible-arguments-swapped": ("task2_backtrack_encode_solution", (("compatible(tokens[-1], token, ranks)",
                                               "compatible(token, tokens[-1], ranks)"),), "backtrack_encode("),
    "last-window-start-not-clamped": ("task3_last_tokens_solution", (("range(max(0, end - longest), end)",
                                      "range(end - longest, end)"),), "last_tokens("),
    "counts-from-end-zero": ("task4_prefix_token_counts_solution", (("    for end in range(1, len(last)):\n",
                             "    for end in range(len(last)):\n"),), "prefix_token_counts("),
    "counts-list-one-short": ("task4_prefix_token_counts_solution", (("    counts = [0] * len(last)\n",
                              "    counts = [0] * (len(last) - 1)  # one per byte\n"),), "prefix_token_counts("),
}

LAB09_ROUND9 = {
    "times-share-one-list": ("task1_interleaved_solution", (("    times = {label: [] for label in labels}\n",
                             "    times = dict.fromkeys(labels, [])\n"),), "interleaved("),
    "rounds-negative-allowed": ("task1_interleaved_solution", (("    if rounds < 1:\n", "    if rounds == 0:\n"),), "interleaved("),
    "spread-tukey-hinges": ("task2_spread_solution", (('    q1, _, q3 = statistics.quantiles(values, n=4, method="inclusive")\n',
                            "    ordered, half = sorted(values), len(values) // 2  # the medians of the lower and upper halves\n"
                            "    q1, q3 = statistics.median(ordered[:half]), statistics.median(ordered[-half:])\n"),), "spread("),
    "ratio-of-minimums": ("task3_paired_ratio_solution", ((RATIOS, "    return min(times[a]) / min(times[b])\n"),), "paired_ratio("),
    "exponent-times-not-logged": ("task4_fit_exponent_solution", (("    ys = [math.log(t) for t in seconds]\n",
                                  "    ys = list(seconds)\n"),), "fit_exponent("),
    "crossover-the-index": ("task5_crossover_solution", (("            return float(xs[i])\n", "            return float(i)\n"),),
                            "crossover("),
    "crossover-touch-within-a-tolerance": ("task5_crossover_solution", (("        if d[i] == 0:\n",
                                           "        if abs(d[i]) < 1e-9:  # equal, up to rounding\n"),), "crossover("),
}

LAB10_ROUND9 = {
    "range-in-text-mode": ("task1_count_range_solution", (('    with open(path, "rb") as file:\n',
                           '    with open(path, encoding="utf-8") as file:\n'), ('data.decode("utf-8")', "data")), "count_range("),
    "merge-smaller-copied": ("task2_merge_two_solution", (("    total = dict(left)\n", "    total = dict(right)\n"),), "merge_two("),
    "tree-range-past-the-end": ("task3_tree_reduce_solution", (("range(0, len(level) - 1, 2)", "range(0, len(level), 2)"),),
                                "tree_shape(", tree_shape_hidden),
    "tree-stops-at-two": ("task3_tree_reduce_solution", (("    while len(level) > 1:\n", "    while len(level) > 2:\n"),), "tree_shape(",
                          tree_shape_hidden),
    "plan-whole-file-one-byte-short": ("task4_plan_ranges_solution", (("            boundaries = [0, os.path.getsize(path)]\n",
                                       "            boundaries = [0, os.path.getsize(path) - 1]  # the last byte's offset\n"),),
                                       "plan_ranges("),
    "plan-tokens-as-str": ("task4_plan_ranges_solution", (('    split_tokens = [token.encode("utf-8") for token in special_tokens]\n',
                           "    split_tokens = list(special_tokens)\n"),), "plan_ranges("),
}

NINTH_ROUND_05_TO_10 = {(lab, name): mistake for lab, table in (
    ("05_heap", LAB05_ROUND9), ("06_encode_decode", LAB06_ROUND9), ("07_heap_encoding", LAB07_ROUND9),
    ("08_linear_encoding", LAB08_ROUND9), ("09_benchmarks", LAB09_ROUND9), ("10_distributed", LAB10_ROUND9)) for name,
        mistake in table.items()}


KEPT_BEFORE_ROUND9 = {("09_benchmarks", "crossover-touch-within-a-tolerance")}
CAUGHT_BEFORE_ROUND9 = [key for key in NINTH_ROUND_05_TO_10 if key not in KEPT_BEFORE_ROUND9]


@pytest.mark.seeded
@pytest.mark.parametrize("lab, mistake", sorted(KEPT_BEFORE_ROUND9), ids=[f"{lab[:2]}-{name}" for lab, name in sorted(KEPT_BEFORE_ROUND9)])
def test_labs05_to_10_a_ninth_rounds_mistake_that_kept_its_points_now_fails_the_hidden_test(request, lab, mistake):
    found = round_failure(request, NINTH_ROUND_05_TO_10, lab, mistake)
    assert "no tolerance" in found, found


@pytest.mark.parametrize("lab, mistake", [pytest.param(*key, id=f"{key[0][:2]}-{key[1]}") for key in CAUGHT_BEFORE_ROUND9])
def test_labs05_to_10_a_learners_mistake_of_the_ninth_round_fails_the_hidden_test(request, lab, mistake):
    # those that lost their points before this round: one per lab by default (a hidden test each, up to seconds)
    one_per_lab("ninth", CAUGHT_BEFORE_ROUND9, lab, mistake)
    found = round_failure(request, NINTH_ROUND_05_TO_10, lab, mistake)
    assert "no tolerance" not in found, found  # the hint of the one this round's fix catches names no other


# ---- labs 00 to 04, learn30: a tenth learner round (issue 21, item 8) -----------------------------------------------
# Python's own pitfalls, and a sentence of the statement read literally: a mutable default argument (`=[]`, `={}`,
# `=defaultdict(...)`: each call adds to what the calls before left), `is` for `==` (on ints above 256, on tokens that are
# equal but other objects), list.sort()'s None for sorted's list, / for //, bytes iterated as ints (b"".join(word), a
# pretoken that is not split, Counter.update(key)), str(data) for data.decode(), a generator used twice, a list appended
# whole, a Counter's - dropping the negative changes, dict.update over counts, a dict looped over without .items(), sum of
# Counters without a start, one set shared by dict.fromkeys, i += 2 inside a for loop, a slice one short. Every one lost
# its hidden points under the kernel's draw and secret seeds 0 to 4 but three `is` mistakes: best_pair's `is top` (the
# generated tied counts were at most 4, ints CPython shares), merge_word's and pairs_with's tokens compared with `is` (the
# generated pair and token were the word's own objects). Half the tied counts are now above 256 (two objects), and the pair
# and the token are equal copies (checks.lab01_naive_bpe.fresh), as train makes them. (Allowed, so not here: count_pairs and
# merge_counts that add Counters with +, which drops counts below 1: counts are positive in every valid input.)

LAB00_ROUND10 = {
    "utf8-code-points": ("task1_utf8_bytes_solution", ((UTF8_ENCODE, "    return [ord(character) for character in text]\n"),),
                         "utf8_bytes("),
    "split-sort-returns-none": ("task2_split_on_special_tokens_solution", (("sorted(special_tokens, key=len, reverse=True)",
                                "list(special_tokens).sort(key=len, reverse=True)"),), "NoneType"),
    "split-tokens-not-escaped": ("task2_split_on_special_tokens_solution", (('"|".join(regex.escape(token) for token in '
                                 'longest_first)', '"|".join(longest_first)'),), "split_on_special_tokens("),
    "split-no-tokens-returns-the-text": ("task2_split_on_special_tokens_solution", (("        return [text]\n",
                                         "        return text\n"),), "split_on_special_tokens("),
    "split-pieces-in-a-default-list": ("task2_split_on_special_tokens_solution", (
        ("special_tokens: list[str]) -> list[str]:", "special_tokens: list[str], pieces: list[str] = []) -> list[str]:"),
        ("        return [text]\n", "        pieces.append(text)\n        return pieces\n"),
        (SPLIT_RETURN, "    pieces.extend(regex.split(pattern, text))\n    return pieces")), "split_on_special_tokens("),
    "pretokenize-appends-lists": ("task3_pretokenize_solution", (("pretokens.extend(", "pretokens.append("),), "pretokenize("),
    "pretokenize-pretokens-in-a-default-list": ("task3_pretokenize_solution", (
        ("special_tokens: list[str]) -> list[str]:", "special_tokens: list[str], pretokens: list[str] = []) -> list[str]:"),
        ("    pretokens = []\n", "")), "pretokenize("),
    "pretokenize-returns-a-generator": ("task3_pretokenize_solution", ((
        "    pretokens = []\n    for piece in split_on_special_tokens(text, special_tokens):\n"
        "        pretokens.extend(regex.findall(GPT2_PATTERN, piece))\n    return pretokens\n",
        "    return (m.group() for piece in split_on_special_tokens(text, special_tokens) for m in regex.finditer(GPT2_PATTERN, "
        "piece))\n"),), "generator"),
    "count-update-with-the-key": ("task4_count_pretokens_solution", (
        ("def count_pretokens", "from collections import Counter\n\n\ndef count_pretokens"),
        ("    counts: dict[bytes, int] = {}\n", "    counts = Counter()\n"),
        ("        counts[key] = counts.get(key, 0) + 1\n", "        counts.update(key)\n"),
        ("    return counts\n", "    return dict(counts)\n")), "count_pretokens("),
    "count-in-a-default-dict": ("task4_count_pretokens_solution", (
        ("special_tokens: list[str]) -> dict[bytes, int]:",
         "special_tokens: list[str], counts: dict[bytes, int] = {}) -> dict[bytes, int]:"),
        ("    counts: dict[bytes, int] = {}\n", "")), "count_pretokens("),
}

LAB01_ROUND10 = {
    "count-in-a-default-dict": ("task1_count_pairs_solution", (
        ("dict[Word, int]) -> dict[Pair, int]:", "dict[Word, int], counts: dict[Pair, int] = defaultdict(int)) -> dict[Pair, int]:"),
        ("    counts: dict[Pair, int] = defaultdict(int)\n", "")), "count_pairs("),
    "count-pairs-of-the-joined-bytes": ("task1_count_pairs_solution", (("        for pair in zip(word, word[1:]):\n",
                                        '        joined = b"".join(word)\n        for pair in zip(joined, joined[1:]):\n'),),
                                        "count_pairs("),
    "best-top-by-is": ("task2_best_pair_solution", (("    return max(pair_counts, key=lambda pair: (pair_counts[pair], pair))\n",
                       "    top = max(pair_counts.values())\n    return max(pair for pair in pair_counts if pair_counts[pair] is top)\n"),),
                       "best_pair("),
    "merge-tokens-compared-by-is": ("task3_merge_word_solution", (("word[i] == pair[0] and word[i + 1] == pair[1]",
                                    "word[i] is pair[0] and word[i + 1] is pair[1]"),), "merge_word("),
    "merge-for-loop-skip-ignored": ("task3_merge_word_solution", (("    i = 0\n    while i < len(word):\n",
                                    "    for i in range(len(word)):\n"),
                                    ("            merged.append(word[i])\n            i += 1\n", "            merged.append(word[i])\n")),
                                    "merge_word("),
    "merge-into-a-default-list": ("task3_merge_word_solution", (("pair: Pair) -> Word:", "pair: Pair, merged: list = []) -> Word:"),
                                  ("    merged = []\n", "")), "merge_word("),
    "train-max-of-the-pair-counts": ("task4_train_solution", (("        pair = best_pair(pair_counts)\n",
                                     "        pair = max(pair_counts)  # the most frequent\n"),), "train("),
    "train-pretokens-not-split": ("task4_train_solution", (("{split_into_bytes(pretoken): count for", "{pretoken: count for"),),
                                  "train("),
}

TRAIN_MERGES_DEFAULT = (("num_merges: int) -> list[Pair]:", "num_merges: int, merges: list[Pair] = []) -> list[Pair]:"),
                        ("    merges = []\n", ""))
LAB02_ROUND10 = {
    "changes-by-counter-subtraction": ("task1_pair_count_changes_solution", ((
        "    changes: dict[Pair, int] = defaultdict(int)\n" + CHANGES_OLD + "        changes[old] -= frequency\n"
        "    for new in zip(merged, merged[1:]):\n        changes[new] += frequency\n",
        "    changes = Counter(zip(merged, merged[1:])) - Counter(zip(word, word[1:]))  # new pairs minus old ones\n"
        "    changes = {p: change * frequency for p, change in changes.items()}\n"),), "pair_count_changes("),
    "changes-in-a-default-dict": ("task1_pair_count_changes_solution", (
        ("frequency: int) -> dict[Pair, int]:", "frequency: int, changes: dict[Pair, int] = defaultdict(int)) -> dict[Pair, int]:"),
        ("    changes: dict[Pair, int] = defaultdict(int)\n", "")), "pair_count_changes("),
    "changes-gains-only": ("task1_pair_count_changes_solution", (("if change != 0}", "if change > 0}"),), "pair_count_changes("),
    "update-with-dict-update": ("task2_merge_and_update_solution", ((
        "    for changed, change in pair_count_changes(word, pair, frequency).items():\n"
        "        count = pair_counts.get(changed, 0) + change\n        if count:\n            pair_counts[changed] = count\n"
        "        else:\n            del pair_counts[changed]\n", "    pair_counts.update(pair_count_changes(word, pair, frequency))\n"),),
        "merge_and_update("),
    "update-items-forgotten": ("task2_merge_and_update_solution", (("pair_count_changes(word, pair, frequency).items():",
                               "pair_count_changes(word, pair, frequency):"),), "raised TypeError"),
    "train-words-a-generator": ("task3_train_solution", (("    words = [split_into_bytes(pretoken) for pretoken in pretoken_counts]\n",
                                "    words = (split_into_bytes(pretoken) for pretoken in pretoken_counts)\n"),), "train(",
                                "check_train_merges"),
    "train-merges-in-a-default-list": ("task3_train_solution", TRAIN_MERGES_DEFAULT, "train(", "check_train_merges"),
    "train-pair-counts-of-the-pretokens": ("task3_train_solution", (("count_pairs(dict(zip(words, frequencies)))",
                                           "count_pairs(pretoken_counts)"),), "train(", "check_train_merges"),
}

LAB03_ROUND10 = {
    "find-chunk-size-a-float": ("task1_find_chunk_boundaries_solution", (("chunk_size = size // desired_num_chunks",
                                "chunk_size = size / desired_num_chunks"),), "find_chunk_boundaries("),
    "find-returns-sort": ("task1_find_chunk_boundaries_solution", (("    return sorted(set(boundaries))\n",
                          "    boundaries = list(set(boundaries))\n    return boundaries.sort()\n"),), "find_chunk_boundaries("),
    "find-set-not-sorted": ("task1_find_chunk_boundaries_solution", (("    return sorted(set(boundaries))\n",
                            "    return list(set(boundaries))  # unique\n"),), "find_chunk_boundaries("),
    "find-boundaries-in-a-default-list": ("task1_find_chunk_boundaries_solution", (
        ("buffer_size: int = 4096) -> list[int]:", "buffer_size: int = 4096, boundaries: list[int] = [0]) -> list[int]:"),
        ("        boundaries = [0]\n", "")), "find_chunk_boundaries("),
    "chunk-str-of-the-bytes": ("task2_count_chunk_solution", (('count_pretokens(data.decode("utf-8"), special_tokens)',
                               "count_pretokens(str(data), special_tokens)"),), "count_chunk("),
    "chunk-reads-end-bytes": ("task2_count_chunk_solution", (("file.read(end - start)", "file.read(end)"),), "count_chunk("),
    "merge-into-a-default-counter": ("task3_merge_counts_solution", (
        ("dict[bytes, int]]) -> dict[bytes, int]:", "dict[bytes, int]], total: Counter = Counter()) -> dict[bytes, int]:"),
        ("    total: Counter[bytes] = Counter()\n", "")), "merge_counts("),
    "merge-sum-without-a-start": ("task3_merge_counts_solution", ((
        "    total: Counter[bytes] = Counter()\n    for chunk_counts in counts:\n        total.update(chunk_counts)\n",
        "    total = sum(Counter(chunk_counts) for chunk_counts in counts)\n"),), "merge_counts("),
}

LAB04_ROUND10 = {
    "index-keys-share-one-set": ("task1_index_words_solution", (("    for i, word in enumerate(words):\n",
        "    index.update(dict.fromkeys((pair for word in words for pair in zip(word, word[1:])), set()))  # a key per pair\n"
        "    for i, word in enumerate(words):\n"),), "index_words("),
    "index-in-a-default-argument": ("task1_index_words_solution", (
        ("list[Word]) -> defaultdict[Pair, set[int]]:",
         "list[Word], index: defaultdict[Pair, set[int]] = defaultdict(set)) -> defaultdict[Pair, set[int]]:"),
        ("    index: defaultdict[Pair, set[int]] = defaultdict(set)\n", "")), "index_words("),
    "pairs-with-by-is": ("task2_pairs_with_solution", (("if token in pair]", "if pair[0] is token or pair[1] is token]"),),
                         "pairs_with("),
    "pairs-with-a-generator": ("task2_pairs_with_solution", ((PAIRS_WITH, PAIRS_WITH.replace("[", "(", 1).replace(
        "pair]\n", "pair)\n")),), "generator"),
    "pairs-with-last-window-missed": ("task2_pairs_with_solution", ((PAIRS_WITH, "    return [(word[i], word[i + 1]) for i in "
                                      "range(len(word) - 2) if token in (word[i], word[i + 1])]\n"),), "pairs_with("),
    "train-pairs-with-the-pair": ("task3_train_solution", (("pairs_with(words[i], token)", "pairs_with(words[i], pair)"),),
                                  "train(", "check_train_merges"),
    "train-merges-in-a-default-list": ("task3_train_solution", TRAIN_MERGES_DEFAULT, "train(", "check_train_merges"),
    "train-index-of-the-first-words": ("task3_train_solution", (("    index = index_words(words)\n",
                                       "    index = index_words(words[:-1])\n"),), "train(", "check_train_merges"),
}

TENTH_ROUND_00_TO_04 = {(lab, name): mistake for lab, table in (
    ("00_pretokenization", LAB00_ROUND10), ("01_naive_bpe", LAB01_ROUND10), ("02_incremental", LAB02_ROUND10),
    ("03_parallel", LAB03_ROUND10), ("04_inverted_index", LAB04_ROUND10)) for name, mistake in table.items()}
KEPT_BEFORE_ROUND10 = {("01_naive_bpe", "best-top-by-is"), ("01_naive_bpe", "merge-tokens-compared-by-is"),
                       ("04_inverted_index", "pairs-with-by-is")}
CAUGHT_BEFORE_ROUND10 = [key for key in TENTH_ROUND_00_TO_04 if key not in KEPT_BEFORE_ROUND10]


@pytest.mark.seeded
@pytest.mark.parametrize("lab, mistake", sorted(KEPT_BEFORE_ROUND10),
                         ids=[f"{lab[:2]}-{name}" for lab, name in sorted(KEPT_BEFORE_ROUND10)])
def test_labs00_to_04_a_tenth_rounds_mistake_that_kept_its_points_now_fails_the_hidden_test(request, lab, mistake):
    round_failure(request, TENTH_ROUND_00_TO_04, lab, mistake)


@pytest.mark.parametrize("lab, mistake", [pytest.param(*key, id=f"{key[0][:2]}-{key[1]}") for key in CAUGHT_BEFORE_ROUND10])
def test_labs00_to_04_a_learners_mistake_of_the_tenth_round_fails_the_hidden_test(request, lab, mistake):
    # those that lost their points before this round: one per lab by default (a hidden test each, up to a second)
    one_per_lab("tenth", CAUGHT_BEFORE_ROUND10, lab, mistake)
    round_failure(request, TENTH_ROUND_00_TO_04, lab, mistake)


# What the learner sees: the visible test's message (in the kernel) says expected and got, and a hint that names the
# mistake, not another's. (lab, mistake): (the hint now, another mistake's hint it must not get: the one it got before this
# round, None when it got none; lab 04's slice one short, the `is` hint that an empty answer gets).
CARRIED_HINT = "a default argument such as `=[]`"
HINTS_ROUND10 = {
    ("00_pretokenization", "utf8-code-points"): ("code points (ord)", None),
    ("00_pretokenization", "split-sort-returns-none"): ("list.sort()", None),
    ("00_pretokenization", "split-pieces-in-a-default-list"): (CARRIED_HINT, "is the empty pattern"),
    ("00_pretokenization", "pretokenize-appends-lists"): ("list.extend(items)", None),
    ("00_pretokenization", "pretokenize-pretokens-in-a-default-list"): (CARRIED_HINT, None),
    ("00_pretokenization", "count-update-with-the-key"): ("Counter.update(key)", None),
    ("00_pretokenization", "count-in-a-default-dict"): (CARRIED_HINT, None),
    ("01_naive_bpe", "count-in-a-default-dict"): (CARRIED_HINT, None),
    ("01_naive_bpe", "merge-for-loop-skip-ignored"): ("`i += 2` in a `for i in range(...)` loop", None),
    ("01_naive_bpe", "merge-into-a-default-list"): (CARRIED_HINT, None),
    ("02_incremental", "changes-by-counter-subtraction"): ("A Counter's - and + drop", None),
    ("02_incremental", "changes-gains-only"): ("`if change > 0`", None),
    ("02_incremental", "changes-in-a-default-dict"): (CARRIED_HINT, None),
    ("02_incremental", "update-with-dict-update"): ("dict.update(changes) writes the changes over", None),
    ("02_incremental", "update-items-forgotten"): ("loop over changes.items()", None),
    ("02_incremental", "train-words-a-generator"): ("words made by a generator", None),
    ("02_incremental", "train-merges-in-a-default-list"): (CARRIED_HINT, None),
    ("03_parallel", "find-chunk-size-a-float"): ("// divides them", None),
    ("03_parallel", "find-returns-sort"): ("list.sort()", None),
    ("03_parallel", "find-boundaries-in-a-default-list"): (CARRIED_HINT, None),
    ("03_parallel", "chunk-str-of-the-bytes"): ("str(data) of bytes is their repr", "read exactly end - start bytes"),
    ("03_parallel", "merge-into-a-default-counter"): (CARRIED_HINT, None),
    ("03_parallel", "merge-sum-without-a-start"): ("sum(counters, Counter())", None),
    ("04_inverted_index", "index-keys-share-one-set"): ("one set shared by all the keys", None),
    ("04_inverted_index", "index-in-a-default-argument"): (CARRIED_HINT, None),
    ("04_inverted_index", "pairs-with-last-window-missed"): ("the last window, (word[-2], word[-1]), is missing", "`is`"),
    ("04_inverted_index", "train-merges-in-a-default-list"): (CARRIED_HINT, None),
}


@pytest.mark.parametrize("lab, mistake", sorted(HINTS_ROUND10), ids=[f"{lab[:2]}-{name}" for lab, name in sorted(HINTS_ROUND10)])
def test_labs00_to_04_a_tenth_rounds_mistake_gets_a_visible_hint_that_names_it(request, lab, mistake):
    graders, solutions = request.getfixturevalue(f"lab{lab[:2]}")
    cell, changes, *_ = TENTH_ROUND_00_TO_04[lab, mistake]
    name = cell.split("_", 1)[1].removesuffix("_solution")
    found = failure(getattr(graders, f"check_{name}"), variant_of(lab, solutions, cell, name, changes))
    now, before = HINTS_ROUND10[lab, mistake]
    assert "expected" in found and now in found and (before is None or before not in found), found


def test_a_visible_test_run_again_in_a_kernel_keeps_the_mistake_s_own_hint(lab04):
    """A learner runs a visible test again and again on the same mistake: in a kernel every call has the same owner,
    so the second run's call before is the first run's answer, the same one, and an index whose keys share one set
    (the union of that answer with the expected one is that answer) was told the default argument's hint from the
    second run on, in place of its own (found by the seeds40 sweep)."""
    graders, solutions = lab04
    cell, changes, *_ = TENTH_ROUND_00_TO_04["04_inverted_index", "index-keys-share-one-set"]
    learner = variant_of("04_inverted_index", solutions, cell, "index_words", changes)
    for run in range(3):
        found = failure(graders.check_index_words, learner)
        assert "one set shared by all the keys" in found and CARRIED_HINT not in found, (run, found)


# ---- labs 00 to 10, learn31: an eleventh learner round (issue 21, item 8) -------------------------------------------
# Kinds the earlier rounds left out: bytes told from characters (as many bytes as characters, a token's offset or length in
# characters, a window searched as text), a rule applied in another order (every occurrence of the longest special token
# first, then the next; empty pieces dropped before the special tokens are told by their place), a run of adjacent special
# tokens cut once, counting by str.count, an overlapping (a, a) counted once, ties on the first bytes only, a stale source
# (each merge made on the pretokens' bytes again), an early return for a word merged into one token, `+=` on a plain dict,
# the last word or round or the first point left out, an index entry replaced or filed by setdefault(key, {id}), a word
# that shrank by one token told from one that shrank by more, byte values negated into tuples, an entry that lost count
# taken as live, a set reset inside the loop that fills it, the last rank taken as "no merge", pairs of lists as dict keys,
# a heap walked as a sorted copy (its pushes never seen) or pushed with its fields swapped, a dict indexed where .get was
# needed, the whole prefix never tried, a cache keyed by the number of merges, a range cached by its offsets (kept across
# files), a chunk's first bytes dropped as "its special token", a partial result added twice (the first chunk, the larger
# dict), times reset each round, a value rounded, logs of two bases, counts as floats, a single range dropped, inclusive
# ends. Every one lost its hidden points under the kernel's draw and secret seeds 1 to 3 but lab 03's count_chunk that
# drops the first listed token's length from a range after the first ("it starts at its cut"): the generated ranges
# started at the first listed token, or at one of its length, under seed 3. Half the ranges of two listed tokens now
# start at the last listed one (lab03_parallel.chunk_inputs). Many got no hint or another mistake's (HINTS_ROUND11); and
# three lost them at a measured call whose message showed no input (lab 03's cut offsets in characters, lab 08's counts
# of tokens' characters, lab 05's grown pairs reset per word): those calls' failures are now told by the visible cases
# first (measured.cases_explain_a_failure), which hold a token after characters of several bytes. (Allowed, so not
# here: merge_ranks keying the pairs as given, which the statement gives as tuples. Not here either: tree_reduce pairing
# overlapping neighbours, range(0, n - 1), whose nested pairs double each round: the grading worker's call limit stops
# it; in process it would exhaust the test's memory.)

GROWN_FIRST = "        grown = set()\n        for i in index.pop(pair):\n"
ENCODE_STOP = ('        best = min(zip(word, word[1:]), key=lambda pair: ranks.get(pair, float("inf")))\n'
               "        if best not in ranks:\n")

LAB00_ROUND11 = {
    "utf8-as-many-bytes-as-characters": ("task1_utf8_bytes_solution", ((UTF8_ENCODE, '    encoded = text.encode("utf-8")\n'
                                         "    return [encoded[i] for i in range(len(text))]\n"),), "utf8_bytes("),
    "split-longest-token-everywhere-first": ("task2_split_on_special_tokens_solution", ((SPLIT_ESCAPE + SPLIT_RETURN,
        "    pieces = [text]\n    for token in longest_first:  # the longest everywhere first, then the next\n"
        "        pieces = [part for piece in pieces for part in piece.split(token)]\n    return pieces"),),
        "split_on_special_tokens("),
    "split-adjacent-tokens-as-one": ("task2_split_on_special_tokens_solution", ((SPLIT_ESCAPE, '    pattern = "(?:" + "|".join('
                                     'regex.escape(token) for token in longest_first) + ")+"  # a run of tokens: one cut\n'),),
                                     "split_on_special_tokens("),
    "count-by-str-count": ("task4_count_pretokens_solution", ((
        '    for pretoken in pretokenize(text, special_tokens):\n        key = pretoken.encode("utf-8")\n'
        "        counts[key] = counts.get(key, 0) + 1\n",
        "    for pretoken in set(pretokenize(text, special_tokens)):\n"
        '        counts[pretoken.encode("utf-8")] = text.count(pretoken)\n'),), "count_pretokens("),
}

LAB01_ROUND11 = {
    "count-overlapping-a-a-once": ("task1_count_pairs_solution", ((COUNT_LOOP,
        "        previous = None\n        for pair in zip(word, word[1:]):\n"
        "            if pair == previous and pair[0] == pair[1]:\n"
        "                previous = None  # (a, a, a): the second (a, a) overlaps the first\n                continue\n"
        "            counts[pair] += frequency\n            previous = pair\n"),), "count_pairs("),
    "ties-on-first-bytes-only": ("task2_best_pair_solution", (("key=lambda pair: (pair_counts[pair], pair))",
                                 "key=lambda pair: (pair_counts[pair], pair[0][0], pair[1][0]))  # the byte values"),),
                                 "best_pair("),
    "train-merges-from-the-bytes-each-time": ("task4_train_solution", ((
        "        words = {merge_word(word, pair): count for word, count in words.items()}\n",
        "        words = {merge_word(split_into_bytes(pretoken), pair): count for pretoken, count in pretoken_counts.items()}\n"),),
        "train("),
}

LAB02_ROUND11 = {
    "changes-none-when-merged-into-one-token": ("task1_pair_count_changes_solution", (("    merged = merge_word(word, pair)\n",
        "    merged = merge_word(word, pair)\n    if len(merged) < 2:\n        return {}  # one token: no pairs to change\n"),),
        "pair_count_changes("),
    "update-new-pairs-by-plus-equals": ("task2_merge_and_update_solution", ((
        "        count = pair_counts.get(changed, 0) + change\n",
        "        pair_counts[changed] += change\n        count = pair_counts[changed]\n"),), "merge_and_update("),
    "train-last-word-skipped": ("task3_train_solution", (("        for i, word in enumerate(words):\n",
                                "        for i in range(len(words) - 1):\n            word = words[i]\n"),), "train(",
                                "check_train_merges"),
}

LAB03_ROUND11 = {
    "find-offset-in-characters": ("task1_find_chunk_boundaries_solution", ((BOUNDARY_FIND,
                                  "window.decode('utf-8', errors='ignore').find(t.decode(), 0, buffer_size + len(t) - 1)"),),
                                  "find_chunk_boundaries("),
    "chunk-cached-by-range": ("task2_count_chunk_solution", (
        ("def count_chunk(", "_COUNTED = {}  # (start, end): its counts, each range counted once\n\n\ndef count_chunk("),
        ('    with open(path, "rb") as file:\n', "    if (start, end) in _COUNTED:\n        return _COUNTED[start, end]\n"
         '    with open(path, "rb") as file:\n'),
        ('    return count_pretokens(data.decode("utf-8"), special_tokens)\n',
         '    _COUNTED[start, end] = count_pretokens(data.decode("utf-8"), special_tokens)\n    return _COUNTED[start, end]\n')),
        "count_chunk("),
    "chunk-drops-a-token-at-its-start": ("task2_count_chunk_solution", (("        data = file.read(end - start)\n",
        "        data = file.read(end - start)\n    if start > 0 and special_tokens:  # a chunk after the first starts at its cut\n"
        '        data = data[len(special_tokens[0].encode("utf-8")):]\n'),), "count_chunk("),
    "merge-first-chunk-twice": ("task3_merge_counts_solution", (("    total: Counter[bytes] = Counter()\n",
                                "    total: Counter[bytes] = Counter(counts[0]) if counts else Counter()  # the first chunk's\n"),),
                                "merge_counts("),
}

LAB04_ROUND11 = {
    "index-pair-set-replaced": ("task1_index_words_solution", (("            index[pair].add(i)\n",
                                "            index[pair] = {i}\n"),), "index_words("),
    "train-index-setdefault-with-the-id": ("task3_train_solution", ((V4_FILE, "                for new_pair in pairs_with("
                                           "words[i], token):\n                    index.setdefault(new_pair, {i})\n"),),
                                           "train(", "check_train_merges"),
    "train-files-when-shrunk-by-one": ("task3_train_solution", (("            if len(words[i]) < len(word):",
                                       "            if len(words[i]) == len(word) - 1:"),), "train(", "check_train_merges"),
}

LAB05_ROUND11 = {
    "key-negated-byte-tuples": ("task1_heap_entry_solution", ((ENTRY_RETURN,
                                "    return (-count, tuple(-b for b in left), tuple(-b for b in right), pair)\n"),), "heap_entry("),
    "pop-shrunk-entry-taken": ("task2_pop_best_solution", (("        if count == claimed:\n",
                               "        if 0 < count <= claimed:  # counts only fall: it is still the best\n"),), "pop_best("),
    "train-grown-reset-per-word": ("task3_train_solution", ((GROWN_FIRST, "        for i in index.pop(pair):\n"
                                   "            grown = set()\n"),), "train("),
}

LAB06_ROUND11 = {
    "encode-last-rank-as-the-sentinel": ("task2_encode_pretoken_solution", ((ENCODE_STOP,
        "        none = max(ranks.values(), default=0)  # the last rank: no merge\n"
        "        best = min(zip(word, word[1:]), key=lambda pair: ranks.get(pair, none))\n"
        "        if ranks.get(best, none) == none:\n"),), "encode_pretoken("),
    "special-tokens-empty-pieces-dropped-first": ("task3_encode_text_solution", (("    tokens = []\n",
        "    pieces = [piece for piece in pieces if piece]  # nothing to encode in an empty piece\n    tokens = []\n"),),
        "encode_text("),
    "arena-offsets-in-characters": ("task4_build_arena_solution", (("offsets[-1] + len(token)",
                                    "offsets[-1] + len(token.decode('utf-8', errors='replace'))"),), "build_arena("),
    "decode-no-ids-an-empty-str": ("task5_decode_with_arena_solution", (("    pieces = []\n",
                                   '    if not ids:\n        return ""  # nothing to decode\n    pieces = []\n'),),
                                   "decode_with_arena("),
}

LAB07_ROUND11 = {
    "merge-loop-over-the-sorted-heap": ("task2_merge_all_solution", (("    while heap:\n        rank, start = heapq.heappop(heap)\n",
                                        "    for rank, start in sorted(heap):  # by rank, then position\n"),), "merge_all("),
    "merge-right-pair-pushed-position-first": ("task2_merge_all_solution", (("                heapq.heappush(heap, (new, start))\n",
                                               "                heapq.heappush(heap, (start, new))\n"),), "merge_all("),
    "merge-stale-pair-looked-up-with-brackets": ("task2_merge_all_solution", (("ranks.get((left, parts[right_start])) != rank",
                                                 "ranks[(left, parts[right_start])] != rank"),), "merge_all("),
}

LAB08_ROUND11 = {
    "backtrack-valid-cached-by-number-of-merges": ("task2_backtrack_encode_solution", (
        ("def backtrack_encode(", "_VALID = {}  # the merges' valid tokens, by vocabulary size\n\n\ndef backtrack_encode("),
        (VALID_FILTER, "    if len(ranks) not in _VALID:\n        _VALID[len(ranks)] = {left + right for left, right in ranks "
         "if encode_pretoken(left + right, ranks) == [left + right]}\n    valid |= _VALID[len(ranks)]\n")),
        "backtrack_encode("),
    "last-whole-prefix-never-tried": ("task3_last_tokens_solution", (("range(max(0, end - longest), end)",
                                      "range(max(1, end - longest), end)"),), "last_tokens("),
    "counts-token-length-in-characters": ("task4_prefix_token_counts_solution", ((COUNTS_ONE_PASS,
        "        counts[end] = counts[end - len(last[end].decode('utf-8', errors='replace'))] + 1\n"),), "prefix_token_counts("),
}

LAB09_ROUND11 = {
    "times-reset-each-round": ("task1_interleaved_solution", (("    times = {label: [] for label in labels}\n"
                               "    for r in range(rounds):\n", "    for r in range(rounds):\n"
                               "        times = {label: [] for label in labels}\n"),), "interleaved("),
    "spread-rounded": ("task2_spread_solution", (("    return (q3 - q1) / middle\n", "    return round((q3 - q1) / middle, 3)\n"),),
                       "spread("),
    "ratio-last-round-left-out": ("task3_paired_ratio_solution", ((RATIOS, "    return statistics.median([times[a][r] / "
                                  "times[b][r] for r in range(len(times[a]) - 1)])\n"),), "paired_ratio("),
    "exponent-logs-of-two-bases": ("task4_fit_exponent_solution", (("    xs = [math.log(s) for s in sizes]\n",
                                   "    xs = [math.log10(s) for s in sizes]  # sizes by decade\n"),), "fit_exponent("),
    "crossover-first-point-skipped": ("task5_crossover_solution", (("    for i in range(len(xs)):\n",
                                      "    for i in range(1, len(xs)):\n"),), "crossover("),
}

LAB10_ROUND11 = {
    "merge-loops-over-the-larger": ("task2_merge_two_solution", (("    for pretoken, count in right.items():\n",
                                    "    for pretoken, count in left.items():\n"),), "merge_two("),
    "merge-counts-as-floats": ("task2_merge_two_solution", (("total.get(pretoken, 0) + count",
                               "total.get(pretoken, 0.0) + count"),), "merge_two("),
    "plan-ends-inclusive": ("task4_plan_ranges_solution", (("[(path, start, end) for", "[(path, start, end - 1) for"),),
                            "plan_ranges("),
    "count-one-range-dropped": ("task5_count_ranges_solution", ((" if parts else {}", " if len(parts) > 1 else {}"),),
                                "count_ranges("),
}

ELEVENTH_ROUND = {(lab, name): mistake for lab, table in (
    ("00_pretokenization", LAB00_ROUND11), ("01_naive_bpe", LAB01_ROUND11), ("02_incremental", LAB02_ROUND11),
    ("03_parallel", LAB03_ROUND11), ("04_inverted_index", LAB04_ROUND11), ("05_heap", LAB05_ROUND11),
    ("06_encode_decode", LAB06_ROUND11), ("07_heap_encoding", LAB07_ROUND11), ("08_linear_encoding", LAB08_ROUND11),
    ("09_benchmarks", LAB09_ROUND11), ("10_distributed", LAB10_ROUND11)) for name, mistake in table.items()}


KEPT_BEFORE_ROUND11 = {("03_parallel", "chunk-drops-a-token-at-its-start")}
CAUGHT_BEFORE_ROUND11 = [key for key in ELEVENTH_ROUND if key not in KEPT_BEFORE_ROUND11]


@pytest.mark.seeded
@pytest.mark.parametrize("lab, mistake", sorted(KEPT_BEFORE_ROUND11),
                         ids=[f"{lab[:2]}-{name}" for lab, name in sorted(KEPT_BEFORE_ROUND11)])
def test_labs00_to_10_an_eleventh_rounds_mistake_that_kept_its_points_now_fails_the_hidden_test(request, lab, mistake):
    round_failure(request, ELEVENTH_ROUND, lab, mistake)


@pytest.mark.parametrize("lab, mistake", [pytest.param(*key, id=f"{key[0][:2]}-{key[1]}") for key in CAUGHT_BEFORE_ROUND11])
def test_labs00_to_10_a_learners_mistake_of_the_eleventh_round_fails_the_hidden_test(request, lab, mistake):
    # those that lost their points before this round: one per lab by default (a hidden test each, up to seconds)
    one_per_lab("eleventh", CAUGHT_BEFORE_ROUND11, lab, mistake)
    round_failure(request, ELEVENTH_ROUND, lab, mistake)


# What the learner sees: the visible test's message says expected and got, and a hint that names the mistake, not
# another's; where the visible cases pass, the hidden test's (its feedback). (lab, mistake): (the hint now, the misleading
# hint it got before this round or None when it got none, whether the visible test shows it).
HINTS_ROUND11 = {
    ("00_pretokenization", "utf8-as-many-bytes-as-characters"): ("one int per character", None, True),
    ("00_pretokenization", "split-longest-token-everywhere-first"): ("each token cut everywhere in turn", None, False),
    ("00_pretokenization", "split-adjacent-tokens-as-one"): ("two adjacent special tokens have an empty piece", None, True),
    ("00_pretokenization", "count-by-str-count"): ("these are str.count's numbers", None, True),
    ("01_naive_bpe", "count-overlapping-a-a-once"): ("in two overlapping windows", None, True),
    ("01_naive_bpe", "train-merges-from-the-bytes-each-time"): ("not on the pretokens' bytes again", None, True),
    ("02_incremental", "changes-none-when-merged-into-one-token"): ("one token, with no pairs", "A Counter's - and +", True),
    ("03_parallel", "find-offset-in-characters"): ("offsets count bytes", None, True),
    ("03_parallel", "chunk-cached-by-range"): ("a cache keyed by the range", "read exactly end - start bytes", False),
    ("03_parallel", "chunk-drops-a-token-at-its-start"): ("do not cut a token off", None, False),
    ("03_parallel", "merge-first-chunk-twice"): ("the first chunk is counted twice", None, True),
    ("04_inverted_index", "index-pair-set-replaced"): ("index[pair] = {i} replaces", "one set shared by all the keys", True),
    ("06_encode_decode", "encode-last-rank-as-the-sentinel"): ("of the last rank", None, True),
    ("06_encode_decode", "special-tokens-empty-pieces-dropped-first"): ("drop them after telling the pieces apart",
                                                                        "no maxsplit", True),
    ("06_encode_decode", "arena-offsets-in-characters"): ("your offsets count characters", None, True),
    ("07_heap_encoding", "merge-loop-over-the-sorted-heap"): ("a loop over sorted(heap)", "keep merging until", True),
    ("07_heap_encoding", "merge-right-pair-pushed-position-first"): ("the rank first", "keep merging until", True),
    ("07_heap_encoding", "merge-stale-pair-looked-up-with-brackets"): ("look it up with ranks.get(pair)",
                                                                       "a KeyError on a dict of counts", True),
    ("08_linear_encoding", "counts-token-length-in-characters"): ("a token's length is its bytes", None, True),
    ("09_benchmarks", "times-reset-each-round"): ("make the dict of lists once, before the loop", None, True),
    ("09_benchmarks", "spread-rounded"): ("rounded: return the ratio as it is", None, True),
    ("09_benchmarks", "ratio-last-round-left-out"): ("every round counts, the last one too", None, True),
    ("09_benchmarks", "exponent-logs-of-two-bases"): ("with the same logarithm", None, True),
    ("09_benchmarks", "crossover-first-point-skipped"): ("start the scan at the first point", None, True),
    ("10_distributed", "merge-loops-over-the-larger"): ("add the OTHER one's counts", None, True),
    ("10_distributed", "merge-counts-as-floats"): ("a count is a float", None, False),
    ("10_distributed", "plan-ends-inclusive"): ("end is exclusive", "an empty range (start == end)", True),
    ("10_distributed", "count-one-range-dropped"): ("one range: its counts are the answer", None, False),
}


@pytest.mark.parametrize("lab, mistake", sorted(HINTS_ROUND11), ids=[f"{lab[:2]}-{name}" for lab, name in sorted(HINTS_ROUND11)])
def test_labs00_to_10_an_eleventh_rounds_mistake_gets_a_hint_that_names_it(request, lab, mistake):
    now, before, visible = HINTS_ROUND11[lab, mistake]
    if visible:
        graders, solutions = request.getfixturevalue(f"lab{lab[:2]}")
        cell, changes, *_ = ELEVENTH_ROUND[lab, mistake]
        name = cell.split("_", 1)[1].removesuffix("_solution")
        found = failure(getattr(graders, f"check_{name}"), variant_of(lab, solutions, cell, name, changes))
    else:
        found = round_failure(request, ELEVENTH_ROUND, lab, mistake)
    assert "expected" in found and now in found and (before is None or before not in found), found


# ---- labs 00 to 10, learn32: a twelfth learner round (issue 21, item 8) ---------------------------------------------
# Kinds the earlier rounds left out: a marker character taken to be absent from the text (the special tokens replaced by
# a NUL, then a split on it), regex.escape of the pattern already joined (its bars escaped too), a byte order mark added
# (utf-8-sig), a pattern compiled on the first call and kept (the next call's special tokens ignored), tokens compared as
# big-endian integers, a merged pair kept as a pair, num_merges read as a vocabulary size (CS336's vocab_size), a dict
# changed while it is looped over, `in` on a tuple of tokens (an element, not a window), a guess made from the boundary
# before it (the guesses drift), a range decoded in blocks (a character cut at a block's end), the first of a list taken
# before checking it has one, windows sorted, an id found by list.index (the first equal word or part), stale pops
# counted only when pushed again, a repeated merge refused, a loop with no length check (min() of no pair),
# functools.lru_cache on a function of a dict, a mutable default where labs 07, 08 and 10 had none (a heap, valid tokens,
# a sum), points sorted apart from their times, a distance |a - b| for a difference, the elapsed time the wrong way
# round, an accumulator reassigned in the loop over files, and a per-file number read as a total. (Not here: occurrences
# read with .get, left listed, and last_tokens' shortest candidate first give the reference's answers: no mistake; lab
# 09's labels of a set, whose order is the process's string hashing, lost the points but whether a fixed case caught
# it changed from run to run.)

ENCODE_LOOP = "    while len(word) > 1:\n"
FIRST_HEAP_LOOP = ("    for position in range(len(parts) - 1):\n        rank = ranks.get((parts[position], parts[position + 1]))\n"
                   "        if rank is not None:\n            heap.append((rank, position))\n")
V2_WORDS = ("    words = [split_into_bytes(pretoken) for pretoken in pretoken_counts]\n    frequencies = list(pretoken_counts.values())\n"
            "    pair_counts = count_pairs(dict(zip(words, frequencies)))\n")

LAB00_ROUND12 = {
    "split-at-a-marker-character": ("task2_split_on_special_tokens_solution", ((SPLIT_RETURN,
        '    return regex.sub(pattern, "\\x00", text).split("\\x00")  # each token becomes a NUL, which no text holds'),),
        "split_on_special_tokens("),
    "split-joined-pattern-escaped": ("task2_split_on_special_tokens_solution", ((SPLIT_ESCAPE,
                                     '    pattern = regex.escape("|".join(longest_first))\n'),), "split_on_special_tokens("),
    "split-pattern-compiled-once": ("task2_split_on_special_tokens_solution", (
        ("def ", "_COMPILED = []  # the pattern, compiled on the first call\n\n\ndef "),
        (SPLIT_RETURN, "    if not _COMPILED:\n        _COMPILED.append(regex.compile(pattern))\n    return _COMPILED[0].split(text)")),
        "split_on_special_tokens("),
    "utf8-with-a-byte-order-mark": ("task1_utf8_bytes_solution", ((UTF8_ENCODE, '    return list(text.encode("utf-8-sig"))\n'),),
                                    "utf8_bytes("),
}

LAB01_ROUND12 = {
    "ties-on-the-tokens-as-integers": ("task2_best_pair_solution", (("key=lambda pair: (pair_counts[pair], pair))",
        'key=lambda pair: (pair_counts[pair], int.from_bytes(pair[0], "big"), int.from_bytes(pair[1], "big")))'),),
        "best_pair("),
    "count-pairs-unordered": ("task1_count_pairs_solution", (("            counts[pair] += frequency\n",
                              "            counts[tuple(sorted(pair))] += frequency  # (a, b) and (b, a): one pair\n"),),
                              "count_pairs("),
    "merge-keeps-the-pair": ("task3_merge_word_solution", (("            merged.append(word[i] + word[i + 1])\n",
                             "            merged.append((word[i], word[i + 1]))  # the merged pair, one token now\n"),),
                             "merge_word("),
}

LAB02_ROUND12 = {
    "changes-pair-looked-up-with-in": ("task1_pair_count_changes_solution", (("    merged = merge_word(word, pair)\n",
        "    if pair not in word:\n        return {}  # the word does not hold the pair\n    merged = merge_word(word, pair)\n"),),
        "pair_count_changes("),
    "train-words-dict-changed-while-looped": ("task3_train_solution", (
        (V2_WORDS, "    words = {split_into_bytes(pretoken): count for pretoken, count in pretoken_counts.items()}\n"
                   "    pair_counts = count_pairs(words)\n"),
        ("        for i, word in enumerate(words):\n", "        for word, frequency in words.items():\n"),
        ("                words[i] = merge_and_update(word, pair, frequencies[i], pair_counts)\n",
         "                words[merge_and_update(word, pair, frequency, pair_counts)] = words.pop(word)\n")),
        "train(", "check_train_merges"),
}

LAB03_ROUND12 = {
    "find-guess-after-the-last-boundary": ("task1_find_chunk_boundaries_solution", (
        ("position = max(i * chunk_size, boundaries[-1])", "position = boundaries[-1] + chunk_size  # a chunk on from the last"),),
        "find_chunk_boundaries("),
    "chunk-decoded-block-by-block": ("task2_count_chunk_solution", ((
        "        data = file.read(end - start)\n    return count_pretokens(data.decode(\"utf-8\"), special_tokens)\n",
        "        text, left = [], end - start\n        while left > 0:  # 4 KiB at a time, not the whole range at once\n"
        "            block = file.read(min(4096, left))\n            left -= len(block)\n"
        "            text.append(block.decode(\"utf-8\"))\n    return count_pretokens(\"\".join(text), special_tokens)\n"),),
        "count_chunk("),
    "merge-starts-from-the-first-chunk": ("task3_merge_counts_solution", ((
        "    total: Counter[bytes] = Counter()\n    for chunk_counts in counts:\n",
        "    total: Counter[bytes] = Counter(counts[0])\n    for chunk_counts in counts[1:]:\n"),), "merge_counts("),
}

LAB04_ROUND12 = {
    "pairs-with-sorted": ("task2_pairs_with_solution", ((PAIRS_WITH,
                          "    return sorted(pair for pair in zip(word, word[1:]) if token in pair)\n"),), "pairs_with("),
    "index-ids-by-list-index": ("task1_index_words_solution", (("    for i, word in enumerate(words):\n",
                                "    for word in words:\n        i = words.index(word)  # its id, its position in words\n"),),
                                "index_words("),
    "train-token-joined-right-first": ("task3_train_solution", (("        token = pair[0] + pair[1]\n",
                                       "        token = pair[1] + pair[0]\n"),), "train(", "check_train_merges"),
}

LAB05_ROUND12 = {
    "pop-stale-pops-counted-when-re-pushed-only": ("task2_pop_best_solution", (("        stale_pops += 1\n        if 0 < count < claimed:  "
        "# it lost count since it was pushed, and may still be the best\n",
        "        if 0 < count < claimed:  # it lost count since it was pushed, and may still be the best\n"
        "            stale_pops += 1  # a stale entry: popped, and pushed again with its count\n"),), "pop_best("),
    "train-num-merges-as-a-vocabulary-size": ("task3_train_solution", (("    while len(merges) < num_merges and pair_counts:\n",
        "    while 256 + len(merges) < num_merges and pair_counts:  # 256 bytes, then one token per merge\n"),), "train("),
}

LAB06_ROUND12 = {
    "ranks-a-repeated-merge-refused": ("task1_merge_ranks_solution", ((RANKS_LOOP,
        "    for rank, pair in enumerate(merges):\n        if tuple(pair) in ranks:\n"
        "            raise ValueError(f\"merge {pair} is listed twice\")\n        ranks[tuple(pair)] = rank\n"),),
        "merge_ranks("),
    "encode-loop-without-a-length-check": ("task2_encode_pretoken_solution", ((ENCODE_LOOP, "    while True:\n"),),
                                           "encode_pretoken("),
    "special-tokens-pattern-compiled-once": ("task3_encode_text_solution", (
        ("def ", "_COMPILED = []  # the special tokens' pattern, compiled on the first call\n\n\ndef "),
        ('        pieces = regex.split("(" + "|".join(regex.escape(token) for token in longest_first) + ")", text)\n',
         '        if not _COMPILED:\n            _COMPILED.append(regex.compile("(" + "|".join(regex.escape(token) for '
         'token in longest_first) + ")"))\n        pieces = _COMPILED[0].split(text)\n')), "encode_text("),
}

LAB07_ROUND12 = {
    "first-heap-positions-by-list-index": ("task1_first_heap_solution", ((FIRST_HEAP_LOOP,
        "    for left, right in zip(parts, parts[1:]):\n        rank = ranks.get((left, right))\n"
        "        if rank is not None:\n            heap.append((rank, parts.index(left)))  # where the pair starts\n"),),
        "first_heap("),
    "first-heap-in-a-default-list": ("task1_first_heap_solution", (
        ("ranks: dict[Pair, int]) -> list[tuple[int, int]]:", "ranks: dict[Pair, int], heap: list = []) -> list[tuple[int, int]]:"),
        ("    heap = []\n", "")), "first_heap("),
}

LAB08_ROUND12 = {
    "compatible-behind-lru-cache": ("task1_compatible_solution", (("def compatible(",
                                    "@__import__(\"functools\").lru_cache(maxsize=None)\ndef compatible("),), "compatible("),
    "backtrack-valid-in-a-default-set": ("task2_backtrack_encode_solution", (
        ("ranks: dict[Pair, int]) -> list[bytes]:", "ranks: dict[Pair, int], valid: set = set()) -> list[bytes]:"),
        ("    valid = {bytes([byte]) for byte in pretoken}\n", "    valid |= {bytes([byte]) for byte in pretoken}\n")),
        "backtrack_encode("),
}

LAB09_ROUND12 = {
    "exponent-sizes-sorted-alone": ("task4_fit_exponent_solution", (("    xs = [math.log(s) for s in sizes]\n",
                                    "    xs = [math.log(s) for s in sorted(sizes)]  # smallest size first\n"),), "fit_exponent("),
    "crossover-of-the-distance": ("task5_crossover_solution", (("    d = [a - b for a, b in zip(ys_a, ys_b)]\n",
                                  "    d = [abs(a - b) for a, b in zip(ys_a, ys_b)]  # how far apart a and b are\n"),),
                                  "crossover("),
    "interleaved-elapsed-the-wrong-way-round": ("task1_interleaved_solution", (("times[label].append(clock() - start)",
                                                "times[label].append(start - clock())"),), "interleaved("),
}

LAB10_ROUND12 = {
    "merge-into-a-default-dict": ("task2_merge_two_solution", (
        ("right: dict[bytes, int]) -> dict[bytes, int]:", "right: dict[bytes, int], total: dict = {}) -> dict[bytes, int]:"),
        ("    total = dict(left)\n", "    total.update(left)\n")), "merge_two("),
    "plan-ranges-of-the-last-file-only": ("task4_plan_ranges_solution", (("        ranges += [(path, start, end)",
                                          "        ranges = [(path, start, end)"),), "plan_ranges("),
    "plan-ranges-per-file-as-a-total": ("task4_plan_ranges_solution", ((
        "find_chunk_boundaries(path, ranges_per_file, split_tokens)",
        "find_chunk_boundaries(path, max(1, ranges_per_file // len(paths)), split_tokens)  # the ranges shared out"),),
        "plan_ranges("),
}

TWELFTH_ROUND = {(lab, name): mistake for lab, table in (
    ("00_pretokenization", LAB00_ROUND12), ("01_naive_bpe", LAB01_ROUND12), ("02_incremental", LAB02_ROUND12),
    ("03_parallel", LAB03_ROUND12), ("04_inverted_index", LAB04_ROUND12), ("05_heap", LAB05_ROUND12),
    ("06_encode_decode", LAB06_ROUND12), ("07_heap_encoding", LAB07_ROUND12), ("08_linear_encoding", LAB08_ROUND12),
    ("09_benchmarks", LAB09_ROUND12), ("10_distributed", LAB10_ROUND12)) for name, mistake in table.items()}
# Every one lost its hidden points under the kernel's draw and secret seeds 1 to 3 but three: a split at a NUL marker (no
# generated text held a NUL), a range decoded 4 KiB at a time (no generated range held a character across byte 4,096
# under the kernel's draw), the sizes sorted alone (the generated sizes came sorted). The texts of lab 00's split now hold
# a NUL now and then; a quarter of lab 03's whole-file ranges start with 9,000 bytes of 3-byte characters
# (lab03_parallel.WIDE); a third of lab 09's fitted points come in another order.
KEPT_BEFORE_ROUND12 = {("00_pretokenization", "split-at-a-marker-character"), ("03_parallel", "chunk-decoded-block-by-block"),
                       ("09_benchmarks", "exponent-sizes-sorted-alone"),
                       ("09_benchmarks", "crossover-of-the-distance")}  # seeds40: kept its points under seed 52
CAUGHT_BEFORE_ROUND12 = [key for key in TWELFTH_ROUND if key not in KEPT_BEFORE_ROUND12]


@pytest.mark.seeded
@pytest.mark.parametrize("lab, mistake", sorted(KEPT_BEFORE_ROUND12),
                         ids=[f"{lab[:2]}-{name}" for lab, name in sorted(KEPT_BEFORE_ROUND12)])
def test_labs00_to_10_a_twelfth_rounds_mistake_that_kept_its_points_now_fails_the_hidden_test(request, lab, mistake):
    round_failure(request, TWELFTH_ROUND, lab, mistake)


@pytest.mark.parametrize("lab, mistake", [pytest.param(*key, id=f"{key[0][:2]}-{key[1]}") for key in CAUGHT_BEFORE_ROUND12])
def test_labs00_to_10_a_learners_mistake_of_the_twelfth_round_fails_the_hidden_test(request, lab, mistake):
    # those that lost their points before this round: one per lab by default (a hidden test each, up to seconds)
    one_per_lab("twelfth", CAUGHT_BEFORE_ROUND12, lab, mistake)
    round_failure(request, TWELFTH_ROUND, lab, mistake)


# What the learner sees (as HINTS_ROUND11): the twelfth round's mistakes, and four of the eleventh's that showed expected,
# got and the smallest input only (lab 02's last word skipped, lab 04's setdefault(key, {id}), lab 05's grown pairs reset
# per word, lab 08's valid tokens cached by the number of merges). (lab, mistake): (the hint now, the misleading hint it
# got before this round or None, whether the visible test shows it).
HINTS_ROUND12 = {
    ("00_pretokenization", "split-at-a-marker-character"): ("which you cut at too", None, False),
    ("00_pretokenization", "split-joined-pattern-escaped"): ("escapes its bars too", None, True),
    ("00_pretokenization", "split-pattern-compiled-once"): ("a pattern built once and kept", None, True),
    ("00_pretokenization", "utf8-with-a-byte-order-mark"): ("a byte order mark (EF BB BF", None, True),
    ("01_naive_bpe", "count-pairs-unordered"): ("(a, b) and (b, a) are two pairs", None, True),
    ("01_naive_bpe", "merge-keeps-the-pair"): ("not the pair itself", None, True),
    ("02_incremental", "changes-pair-looked-up-with-in"): ("`pair in word` asks whether", "A Counter's - and +", True),
    ("02_incremental", "train-words-dict-changed-while-looped"): ("a dict changed while a loop runs over it", None, True),
    ("02_incremental", "train-last-word-skipped"): ("is never updated", None, True),
    ("03_parallel", "find-guess-after-the-last-boundary"): ("from the boundary before drifts", None, True),
    ("03_parallel", "chunk-decoded-block-by-block"): ("decode the range's bytes whole", None, True),
    ("03_parallel", "merge-starts-from-the-first-chunk"): ("the total of no counts is {}", None, True),
    ("04_inverted_index", "index-ids-by-list-index"): ("words.index(word) gives the first", "one set shared by all", False),
    ("04_inverted_index", "pairs-with-sorted"): ("not sorted", None, False),
    ("04_inverted_index", "train-token-joined-right-first"): ("pair[0] + pair[1] (the left token first)", None, False),
    ("04_inverted_index", "train-index-setdefault-with-the-id"): ("index.setdefault(new_pair, {i}) files it only", None, False),
    ("05_heap", "pop-stale-pops-counted-when-re-pushed-only"): ("stale pops for", None, False),
    ("05_heap", "train-num-merges-as-a-vocabulary-size"): ("not a vocabulary size", "does the loop stop when the heap", True),
    ("05_heap", "train-grown-reset-per-word"): ("never surfaced from the heap", None, True),
    ("06_encode_decode", "ranks-a-repeated-merge-refused"): ("a merge listed twice is no error", None, False),
    ("06_encode_decode", "special-tokens-pattern-compiled-once"): ("a pattern built once and kept", None, False),
    ("07_heap_encoding", "first-heap-positions-by-list-index"): ("parts.index(part) finds the first equal part", None, True),
    ("07_heap_encoding", "first-heap-in-a-default-list"): ("a default argument such as", "a pair that is not a merge", True),
    ("08_linear_encoding", "compatible-behind-lru-cache"): ("a dict is no key", None, True),
    ("08_linear_encoding", "backtrack-valid-in-a-default-set"): ("valid tokens kept from an earlier call", None, True),
    ("08_linear_encoding", "backtrack-valid-cached-by-number-of-merges"): ("valid tokens kept from an earlier call", None, True),
    ("09_benchmarks", "exponent-sizes-sorted-alone"): ("sizes sorted and the times not", None, False),
    ("09_benchmarks", "crossover-of-the-distance"): ("where |a - b| is 0 only", None, True),
    ("09_benchmarks", "interleaved-elapsed-the-wrong-way-round"): ("negative times", None, True),
    ("10_distributed", "merge-into-a-default-dict"): ("a default argument such as", None, True),
    ("10_distributed", "plan-ranges-of-the-last-file-only"): ("only the last file's ranges", None, True),
    ("10_distributed", "plan-ranges-per-file-as-a-total"): ("not a total shared out", None, True),
}


@pytest.mark.parametrize("lab, mistake", sorted(HINTS_ROUND12), ids=[f"{lab[:2]}-{name}" for lab, name in sorted(HINTS_ROUND12)])
def test_labs00_to_10_a_twelfth_rounds_mistake_gets_a_hint_that_names_it(request, lab, mistake):
    now, before, visible = HINTS_ROUND12[lab, mistake]
    round_ = TWELFTH_ROUND if (lab, mistake) in TWELFTH_ROUND else ELEVENTH_ROUND
    if visible:
        graders, solutions = request.getfixturevalue(f"lab{lab[:2]}")
        cell, changes, *_ = round_[lab, mistake]
        name = cell.split("_", 1)[1].removesuffix("_solution")
        found = failure(getattr(graders, f"check_{name}"), variant_of(lab, solutions, cell, name, changes))
    else:
        found = round_failure(request, round_, lab, mistake)
    assert now in found and (before is None or before not in found), found


# ---- labs 02 to 08, novel40: a thirteenth learner round (issue 21, item 8) ---------------------------------------------
# Kinds the earlier rounds left out: ties broken on the tokens decoded as text with errors="replace", a pop loop that
# puts its new entries in the heap with list.append (heappop still pops, but an entry appended behind the top is not
# sifted up: a merge of a later rank happens first), new pairs of a
# lower rank than the merge that made them dropped ("learned later"), a two-token word taken to have no pairs to change,
# windows read from one before the token's first occurrence (the last window for a token at 0), the linked list's left
# neighbour read from the tokens before the pass (page 02's overlap pitfall), len(ranks) for "no merge" (ranks with a
# gap: a merge listed twice), and the dead ends of the backtracking kept in a default set. (Tried and left out: they give
# the reference's answers on every input the task's callers make: lab 02's word loop stopped once the pair's count is
# gone, a merge_and_update that returns a word without the pair at once; lab 04's best pair among the index's keys; lab
# 05's stale entry that gained count pushed again or taken as live (under lazy deletion's promise its fresher entry pops
# first), a pair pushed once only (no token is made twice), the end-of-word test left out of the stale check (a node
# whose token is still its pair's left one has its follower), occurrences[pair] left in place; lab 06's merges not made
# tuples, ranks found by merges.index, a buffer grown by +=; lab 07's first heap built by heappush or sorted, a copy of
# the heap popped; lab 08's single byte taken without the compatibility test (the last candidate is then the answer).
# Kept, and allowed: lab 08's backtracking without its bitfield of dead positions, which the page called exponential in
# the worst case, explores no position twice on any input (the search's path to a position is that prefix's unique
# encoding): test_lab08_backtracking_without_dead_positions_explores_no_position_twice, below.)

# ties broken on the tokens as text, decoded with errors="replace" (decode() alone raises on a token that holds part of a
# character): two lone bytes from 0x80 are one U+FFFD each, tied again, and max keeps the pair counted first
TEXT_TIES = ((V2_PICK, "        pair = max(pair_counts, key=lambda p: (pair_counts[p], p[0].decode('utf-8', 'replace'), "
                       "p[1].decode('utf-8', 'replace')))\n"),)
LAB02_NOVEL40 = {
    "train-ties-on-the-tokens-decoded-with-replacement": ("task3_train_solution", TEXT_TIES, "train(", "check_train_merges"),
    "changes-none-for-a-two-token-word": ("task1_pair_count_changes_solution", (("    merged = merge_word(word, pair)\n",
        "    if len(word) < 3:\n        return {}  # no neighbours to change\n    merged = merge_word(word, pair)\n"),),
        "pair_count_changes("),
}
LAB04_NOVEL40 = {
    "train-ties-on-the-tokens-decoded-with-replacement": ("task3_train_solution", TEXT_TIES, "train(", "check_train_merges"),
    "pairs-with-from-before-the-first-occurrence": ("task2_pairs_with_solution", ((PAIRS_WITH,
        "    if token not in word:\n        return []\n    start = word.index(token) - 1  # the window before its first occurrence\n"
        "    return [pair for pair in zip(word[start:], word[start + 1:]) if token in pair]\n"),), "pairs_with("),
}
LAB05_NOVEL40 = {
    "merge-neighbours-read-before-the-merge": ("task4_merge_occurrences_solution", (
        ("    merged_nodes = []\n", "    merged_nodes = []\n    original = list(token)  # the tokens before this pass\n"),
        ("changes[(token[before], left)]", "changes[(original[before], left)]"),
        ("changes[(token[before], merged)]", "changes[(original[before], merged)]"),
        (OCCURRENCE_LEFT, OCCURRENCE_LEFT.replace("(token[before], merged)", "(original[before], merged)"))),
        "merge_occurrences("),
}
RANKS_BY_INDEX = (("    ranks = {}\n    for rank, pair in enumerate(merges):\n        ranks.setdefault(tuple(pair), rank)\n",
                   "    ranks = {tuple(pair): merges.index(pair) for pair in merges}  # the first position of each\n"),)
LAB06_NOVEL40 = {
    # the right ranks, a pair listed twice too, by a search of the list for each merge: O(M^2) (measured)
    "ranks-by-list-index": ("task1_merge_ranks_solution", RANKS_BY_INDEX, "merges.index(pair)"),
    "encode-len-of-ranks-as-the-sentinel": ("task2_encode_pretoken_solution", ((ENCODE_BEST,
        "key=lambda pair: ranks.get(pair, len(ranks))"),), "encode_pretoken("),
}
MERGE_ALL_PUSHES = ("            if new is not None:\n                heapq.heappush(heap, (new, start))\n",
                    "            if new is not None:\n                heapq.heappush(heap, (new, before))\n")
LAB07_NOVEL40 = {
    "merge-new-pairs-appended": ("task2_merge_all_solution", tuple((push, push.replace("heapq.heappush(heap, ", "heap.append("))
                                                                   for push in MERGE_ALL_PUSHES), "with list.append"),
    "merge-new-pairs-of-lower-rank-dropped": ("task2_merge_all_solution", tuple(
        (push, push.replace("if new is not None:", "if new is not None and new > rank:  # learned after this merge"))
        for push in MERGE_ALL_PUSHES), "merge_all("),
}
LAB08_NOVEL40 = {
    "backtrack-dead-ends-in-a-default-set": ("task2_backtrack_encode_solution", (
        ("ranks: dict[Pair, int]) -> list[bytes]:", "ranks: dict[Pair, int], dead: set = set()) -> list[bytes]:"),
        ("    alive = [True] * (n + 1)  # the bitfield: alive[p] is False once p is known to be no token boundary\n", ""),
        ("            if alive[end] and (not tokens", "            if end not in dead and (not tokens"),
        ("        alive[pos] = False  # nothing fits here", "        dead.add(pos)  # nothing fits here")), "backtrack_encode("),
}

NOVEL40_ROUND = {(lab, name): mistake for lab, table in (
    ("02_incremental", LAB02_NOVEL40), ("04_inverted_index", LAB04_NOVEL40), ("05_heap", LAB05_NOVEL40),
    ("06_encode_decode", LAB06_NOVEL40), ("07_heap_encoding", LAB07_NOVEL40), ("08_linear_encoding", LAB08_NOVEL40))
    for name, mistake in table.items()}
# Every one lost its hidden points under the kernel's draw and secret seeds 1 to 3 but four. The pushes by list.append
# kept them under the kernel's draw (lost under 1 to 3): a fixed hidden case of task 2 has the shape now, and a share of
# the generated words (lab07_heap_encoding.both_sides_inputs). Labs 02's and 04's ties on the tokens as text kept them
# under all four (the generated corpora held no tie of two pairs that differ in lone bytes from 0x80 alone): half of
# the trainers' separator corpora hold one now (lab02_incremental.separator_tie_corpora, labs 02, 04 and 05). Lab 06's
# ranks found by merges.index are right, at O(M^2): task 1's hidden test measures its cost now, on 12,000 merges
# (lab06_encode_decode.verify_ranks_cost; its twin in the grading worker under BPE_EXHAUSTIVE=1).
KEPT_BEFORE_NOVEL40 = {("07_heap_encoding", "merge-new-pairs-appended"), ("06_encode_decode", "ranks-by-list-index"),
                       ("02_incremental", "train-ties-on-the-tokens-decoded-with-replacement"),
                       ("04_inverted_index", "train-ties-on-the-tokens-decoded-with-replacement")}
CAUGHT_BEFORE_NOVEL40 = [key for key in NOVEL40_ROUND if key not in KEPT_BEFORE_NOVEL40]


@pytest.mark.seeded
@pytest.mark.parametrize("lab, mistake", sorted(KEPT_BEFORE_NOVEL40),
                         ids=[f"{lab[:2]}-{name}" for lab, name in sorted(KEPT_BEFORE_NOVEL40)])
def test_labs02_to_08_a_thirteenth_rounds_mistake_that_kept_its_points_now_fails_the_hidden_test(request, lab, mistake):
    round_failure(request, NOVEL40_ROUND, lab, mistake)


@pytest.mark.parametrize("lab, mistake", [pytest.param(*key, id=f"{key[0][:2]}-{key[1]}") for key in CAUGHT_BEFORE_NOVEL40])
def test_labs02_to_08_a_learners_mistake_of_the_thirteenth_round_fails_the_hidden_test(request, lab, mistake):
    # those that lost their points before this round: one per lab by default (a hidden test each, up to seconds)
    one_per_lab("thirteenth", CAUGHT_BEFORE_NOVEL40, lab, mistake)
    round_failure(request, NOVEL40_ROUND, lab, mistake)


# Lab 08's backtracking without its bitfield of dead positions (the thirteenth round left it open): allowed, and here is
# why. A search path is a list of valid tokens, each compatible with the one before; such a list is the encoding of its
# bytes (page 08: the valid encoding is unique, and a valid encoding followed by a token compatible with its last one is
# valid: the crate's corollaries I and IIIa), so the search reaches a position by one token list at most, and a dead
# position is never explored twice, with or without the record. The record only spares the compatibility test of a
# candidate whose end already died (it fails: a second path there cannot exist), at most one test per candidate:
# the same order as the honest search, never exponential nor super-linear. So no input makes the search without it back
# up more, and a check that failed it would fail the honest search that tests compatible before the record too.
# Tried (the task's inputs and long pieces, 2,000 random bytes under every pair as a merge, hypothesis on the generated
# words and edited ranks): no position visited twice; compatible called at most 1.33 times as often; b"a" * 900 under
# (a, a), (aa, a): 449 positions die, each explored once, 2,242 calls of compatible either way.
DEAD_POSITIONS_LEFT_OUT = (
    ("    alive = [True] * (n + 1)  # the bitfield: alive[p] is False once p is known to be no token boundary\n", ""),
    ("            if alive[end] and (not tokens", "            if (not tokens"),
    ("        alive[pos] = False  # nothing fits here: dead, back up one token\n", ""))
# each time the search takes a position up (its first candidate), counted: VISITS, given in the namespace
VISITS_COUNTED = (("    while pos < n:\n", "    while pos < n:\n        VISITS[pos] += index == 0\n"),)


def test_lab08_backtracking_without_dead_positions_explores_no_position_twice(lab08):
    """Why the search without its record of dead positions keeps its points: it visits each position once at most
    (a position found dead is never reached again), and returns the same tokens. Fails if that stops being true."""
    from collections import Counter

    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    graders, solutions = lab08
    visits: Counter = Counter()
    searches = {name: variant_of("08_linear_encoding", {**solutions, "VISITS": visits}, "task2_backtrack_encode_solution",
                                 "backtrack_encode", changes + VISITS_COUNTED)
                for name, changes in (("without the record", DEAD_POSITIONS_LEFT_OUT), ("honest", ()))}
    died = []

    def visited(pretoken: bytes, ranks: dict) -> None:
        expected = graders.encode_pretoken(pretoken, ranks)
        for name, search in searches.items():
            visits.clear()
            assert search(pretoken, ranks) == expected, name
            assert max(visits.values(), default=0) <= 1, (name, pretoken, ranks, visits.most_common(3))
        boundaries = {sum(map(len, expected[:count])) for count in range(len(expected) + 1)}
        died.append(len(set(visits) - boundaries))  # positions the search took up and gave up

    visited(b"a" * 900, graders.AAA)
    assert died[-1] == 449  # it backs up at every other position, and explores none of them twice
    visited(b"abcbca" * 40, graders.PAGE)
    for piece in graders.LONG_PIECES:
        visited(*graders.long_piece_case(piece).args)

    @settings(max_examples=80, deadline=None, database=None, derandomize=True,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
    @given(st.data())
    def generated(data) -> None:
        visited(*data.draw(graders.UNIQUE_WORDS | graders.word_and_edited_ranks()))

    generated()
    assert sum(count > 0 for count in died) > 10, died  # the generated searches backed up too


@WORKER_TWIN
def test_lab06_ranks_by_list_index_fail_in_the_worker_too(at_the_first_verdict):
    """Task 1's cost is measured from outside the worker: the ranks by merges.index, and the solution's."""
    code = "\n".join(source_of("06_encode_decode", cell) for cell in ("setup", "task1_merge_ranks_solution"))
    with at_the_first_verdict():
        message = remote("06_encode_decode", code.replace(*RANKS_BY_INDEX[0]), "merge_ranks", "check_merge_ranks_properties")
    assert message is not None and "measured from outside your code" in message and "merges.index(pair)" in message, message
    assert remote("06_encode_decode", code, "merge_ranks", "check_merge_ranks_properties") is None


# ---- labs 03, 10, 00 and 01, novel41: a fourteenth learner round (issue 21, item 8) -----------------------------------
# Kinds the earlier rounds left out, tried on labs 03, 10, 09, 00 and 01. Kept: lab 01's train that breaks ties on the
# merge as the merges file writes it, the left token, a space, the right token (b" ".join(pair)): where the left tokens
# of a tie differ only after the shorter one's end, by a byte below the space (b"\n" beside b"\n\n"), the joined bytes
# order them the other way; best_pair's cases hold such a tie (b"a" beside b"a "), train's corpora held none. Lost
# already: lab 01's best_pair with that tie-break or on the tokens decoded with errors="replace", a train that stops
# only when no word is left (max() of no pairs); lab 03's boundaries searched in the whole window (a longer token cut at
# its end missed), a guess moved past the last boundary (a chunk more), a chunk decoded as utf-8-sig, chunks_per_worker
# ignored, the start method ignored; lab 10's tree that pops the odd part from the caller's list (in the table: the
# caller's list changed only when a level is odd), a plan that keeps an empty file's whole range; lab 00's pieces as a
# tuple. (Tried and left out, the same output on every input the callers make: lab 03's merge_counts by Counter
# addition, which drops counts of 0 or less, and none is; lab 03's boundaries read in windows of 4096 bytes whatever
# buffer_size (they differ above 4096 only, and every caller passes the default), or stepped by buffer_size - overlap (a
# safe search, no token missed); lab 00's alternation sorted in reverse string order, which
# puts every token before its prefixes as longest-first does, its UTF-8 bytes or keys encoded with errors="ignore" or
# "surrogatepass" (they differ on lone surrogates only, which no text read from a file holds); lab 09's crossover that
# interpolates where a meets b at the next point (xs[i] + (xs[i + 1] - xs[i]) * 1.0 is xs[i + 1] but for absurd xs), a
# slope centred on the x's only (sum(x - mean_x) is 0), quartiles as cuts 25 and 75 of quantiles(n=100) (the same
# inclusive interpolation). Kept and closed since: lab 03's merge_counts that reads its counts twice, keys then sums,
# gave {} for task 4's pool.map iterator, where the statement said a list; it says an iterable now, and the hidden
# test's second part hands the chunks over as an iterator. Kept here and closed by the fifteenth round (novel42, below):
# lab 00's pretokenize that flattens the pieces' lists with sum(..., []), the right list in time quadratic in the number
# of pieces (its growth is measured now); lab 03's count_chunk and lab 10's count_range decoded with errors="replace",
# which count a U+FFFD where the reference raises, on a range that is not UTF-8 (the statements say such bytes raise,
# and the hidden test ends with such ranges). Open: none of this round's.)
MERGES_FILE_TIES = (("        pair = best_pair(pair_counts)\n",
                     "        pair = max(pair_counts, key=lambda p: (pair_counts[p], b' '.join(p)))  # the merges file's line\n"),)
LAB01_NOVEL41 = {
    "train-ties-on-the-merges-file-line": ("task4_train_solution", MERGES_FILE_TIES, "train("),
}
LAB03_NOVEL41 = {
    "merge-counts-reads-twice": ("task3_merge_counts_solution", ((
        "    total: Counter[bytes] = Counter()\n    for chunk_counts in counts:\n        total.update(chunk_counts)\n"
        "    return dict(total)\n",
        "    keys = {key for chunk_counts in counts for key in chunk_counts}\n"
        "    return {key: sum(chunk_counts.get(key, 0) for chunk_counts in counts) for key in keys}\n"),),
        "not from an iterator"),
    # the one chunk's dict itself, its chunks read once (no len() of an iterator): the new dict's hint, seen in the worker
    "merge-the-one-chunk-itself-read-once": ("task3_merge_counts_solution", (("    total: Counter[bytes] = Counter()\n",
        "    counts = list(counts)\n    if len(counts) == 1:\n        return counts[0]  # nothing to add\n"
        "    total: Counter[bytes] = Counter()\n"),), "build a new dict even then"),
}
LAB10_NOVEL41 = {
    # the caller's list changed only when a level is odd: the odd part popped from it, the first round's level
    "tree-odd-popped-from-the-callers-list": ("task3_tree_reduce_solution", ((
        "    level = list(parts)\n    while len(level) > 1:\n"
        "        paired = [combine(level[i], level[i + 1]) for i in range(0, len(level) - 1, 2)]\n"
        "        if len(level) % 2:\n            paired.append(level[-1])\n",
        "    level = parts\n    while len(level) > 1:\n        carried = level.pop() if len(level) % 2 else None  # the odd one\n"
        "        paired = [combine(level[i], level[i + 1]) for i in range(0, len(level), 2)]\n"
        "        if carried is not None:\n            paired.append(carried)\n"),), "changed its argument parts", tree_shape_hidden),
}
NOVEL41_ROUND = {(lab, name): mistake for lab, table in (("01_naive_bpe", LAB01_NOVEL41), ("03_parallel", LAB03_NOVEL41),
                                                         ("10_distributed", LAB10_NOVEL41))
                 for name, mistake in table.items()}
# They kept their hidden points under the kernel's draw and secret seeds 1 to 3: a fixed hidden case of train holds the
# tie now, and a share of its generated corpora (lab01_naive_bpe.prefix_tie_counts); merge_counts gets its chunks as an
# iterator in the hidden test's second part (lab03_parallel.once_in_a_new_dict), every one of them holding counts.
KEPT_BEFORE_NOVEL41 = {("01_naive_bpe", "train-ties-on-the-merges-file-line"), ("03_parallel", "merge-counts-reads-twice")}
CAUGHT_BEFORE_NOVEL41 = [key for key in NOVEL41_ROUND if key not in KEPT_BEFORE_NOVEL41]


@pytest.mark.seeded
@pytest.mark.parametrize("lab, mistake", sorted(KEPT_BEFORE_NOVEL41),
                         ids=[f"{lab[:2]}-{name}" for lab, name in sorted(KEPT_BEFORE_NOVEL41)])
def test_labs01_03_a_fourteenth_rounds_mistake_that_kept_its_points_now_fails_the_hidden_test(request, lab, mistake):
    round_failure(request, NOVEL41_ROUND, lab, mistake)


@pytest.mark.parametrize("lab, mistake", [pytest.param(*key, id=f"{key[0][:2]}-{key[1]}") for key in CAUGHT_BEFORE_NOVEL41])
def test_labs03_10_a_learners_mistake_of_the_fourteenth_round_fails_the_hidden_test(request, lab, mistake):
    # those that lost their points before this round: one per lab by default (a hidden test each)
    one_per_lab("fourteenth", CAUGHT_BEFORE_NOVEL41, lab, mistake)
    round_failure(request, NOVEL41_ROUND, lab, mistake)


# ---- labs 00, 03 and 10, novel42: a fifteenth learner round (issue 21, item 8) ----------------------------------------
# The three the fourteenth round kept open, closed: lab 00's pretokenize that flattens the pieces' lists with
# sum(lists, []), the right list in time quadratic in the number of pieces (the hidden test measures its growth from
# 2,000 pieces to 16,000, and its cost against the reference's, from outside: lab00_pretokenization.
# verify_pretokens_gathered_linearly); lab 03's count_chunk and lab 10's count_range decoded with errors="replace",
# which count a U+FFFD where the file is not UTF-8 (the statements say such bytes raise; the hidden test ends with ranges
# that hold an invalid sequence, each beside the same file made valid: lab03_parallel.verify_not_utf8). Tried on labs 05
# to 08 and left out of the tables: lost already, lab 06's decode_with_arena that turns an IndexError into its
# ValueError (try around offsets[token_id], offsets[token_id + 1]: a negative id reads from the end, told by the visible
# and hidden bad ids), lab 08's last_tokens that tries every start (range(0, end): its growth check stops it past 1.6 s);
# kept, the same output on every input the callers make: lab 07's heap_encode that hands merge_all split_into_bytes'
# tuple (the reference's merge_all stands in while task 3 is graded), lab 05's pop_best that re-pushes a live entry whose
# count grew too (0 < count != claimed: under lazy deletion's promise the pair's larger entry pops first); an honest
# variant, lab 07's first_heap built by heappush, passes.
LAB00_NOVEL42 = {
    "pretokens-flattened-with-sum": ("task3_pretokenize_solution", ((
        "    pretokens = []\n    for piece in split_on_special_tokens(text, special_tokens):\n"
        "        pretokens.extend(regex.findall(GPT2_PATTERN, piece))\n    return pretokens\n",
        "    return sum([regex.findall(GPT2_PATTERN, piece) for piece in split_on_special_tokens(text, special_tokens)], [])\n"),),
        "time quadratic in the number of pieces"),
}
DECODED_LENIENTLY = (('data.decode("utf-8")', 'data.decode("utf-8", errors="replace")'),)
LAB03_NOVEL42 = {"chunk-decoded-with-replace": ("task2_count_chunk_solution", DECODED_LENIENTLY, "errors='replace'")}
LAB10_NOVEL42 = {"range-decoded-with-replace": ("task1_count_range_solution", DECODED_LENIENTLY, "errors='replace'")}
NOVEL42_ROUND = {(lab, name): mistake for lab, table in (("00_pretokenization", LAB00_NOVEL42), ("03_parallel", LAB03_NOVEL42),
                                                         ("10_distributed", LAB10_NOVEL42))
                 for name, mistake in table.items()}
# Each kept its hidden points before this round (under the derandomized draw and secret seeds 1 to 3 alike: no input
# was a text of thousands of pieces, nor a file that is not UTF-8).
KEPT_BEFORE_NOVEL42 = set(NOVEL42_ROUND)


@pytest.mark.seeded
@pytest.mark.parametrize("lab, mistake", sorted(KEPT_BEFORE_NOVEL42),
                         ids=[f"{lab[:2]}-{name}" for lab, name in sorted(KEPT_BEFORE_NOVEL42)])
def test_labs00_03_10_a_fifteenth_rounds_mistake_that_kept_its_points_now_fails_the_hidden_test(request, lab, mistake):
    round_failure(request, NOVEL42_ROUND, lab, mistake)


@WORKER_TWIN
def test_lab00_pretokens_flattened_with_sum_fail_in_the_worker_too(at_the_first_verdict):
    """Task 3's growth is measured from outside the worker: the sum stopped there, the solution passing."""
    code = "\n".join(source_of("00_pretokenization", cell) for cell in
                     ("setup", "task2_split_on_special_tokens_solution", "task3_pretokenize_solution"))
    (old, new), = LAB00_NOVEL42["pretokens-flattened-with-sum"][1]
    with at_the_first_verdict():
        message = remote("00_pretokenization", code.replace(old, new), "pretokenize", "check_pretokenize_properties")
    assert message is not None and "time quadratic in the number of pieces" in message and "stopped there" in message, message
    assert remote("00_pretokenization", code, "pretokenize", "check_pretokenize_properties") is None


@WORKER_TWIN
def test_lab03_chunk_decoded_with_replace_fails_in_the_worker_too():
    """count_chunk runs in a spawned process of the worker (its module's file): the error it raises crosses back by name."""
    module = source_of("03_parallel", "task2_count_chunk_solution").split("\n", 1)[1]
    for source, expected in ((module.replace(*DECODED_LENIENTLY[0]), "errors='replace'"), (module, None)):
        message = remote("03_parallel", "get_ipython().run_cell_magic('writefile', 'chunk_counting.py', " + repr(source)
                         + ")\nfrom chunk_counting import count_chunk\n", "count_chunk", "check_count_chunk_properties")
        assert (message is None) if expected is None else (message is not None and expected in message), message


# ---- labs 01, 02, 04 and 09, novel43: a sixteenth learner round (issue 21, item 8) -----------------------------------
# Kinds the earlier rounds left out, tried as a learner who read the pages would, under secret seeds 0 to 7 (BPE_SEEDS=0:8):
# a merge loop that stops one window short and appends the last token after it (twice when the last pair merged, an
# IndexError on the empty word), a frequency added one occurrence at a time, pairs seen once left out of best_pair, the
# words the merge leaves alone dropped from train's dict, pretokens split by tuple() (ints), old windows counted by an
# off-by-one range, the merged pair deleted before its update (a negative count that comes back as a merge), merges capped
# at the first count of distinct pairs, train's filter on the left token alone (measured: lost), an index returned as a
# dict or of lists, ids counted past the one-token words skipped, an index rebuilt on each merge (measured: lost),
# time.monotonic as the default clock, a negative median let through, half the interquartile range, the first round
# dropped as a warm-up, the meeting value returned for the crossover's x.
# Kept: lab 01's count_pairs that adds a word's frequency one occurrence at a time (for _ in range(frequency)), the right
# dict on every case and generated input (counts of 1 to 5), and never done on a real corpus's counts; task 1's hidden
# test now first counts the pairs of a word drawn from the seed, seen 10**12 times and more, within 1 s of CPU
# (lab01_naive_bpe.verify_frequency_added_at_once), its hint naming the loop. And lab 02's merge_and_update that applies
# every change and then deletes each pair of count 0 it finds in the whole of pair_counts: the right counts, at a pass
# over all the pairs a call (task 3's measured train runs with the reference's merge_and_update in its place); task 2's
# hidden test now first calls it 1,000 times on 200,000 pairs within 1 s of CPU (lab02_incremental.verify_update_cost, a
# driver's loop, the pairs' bytes drawn from the seed). Both checks fail a call that does not finish in time only; its
# answer is left to the cases, which run after, so that every other mistake keeps the hint its cases give it.
# (Tried and left out, the solution's output on every input the callers make: lab 01's count_pairs that returns its
# defaultdict (equal to the dict, and no caller looks up a pair it lacks); lab 02's filter on left + right in
# b"".join(word) (a superset of the words that hold the pair, the rest left unchanged by merge_and_update, at the same
# pass over the words); lab 04's train that files every window of a rewritten word (a window without the new token was
# in the word before, and filed then: the same sets), and that reads index[pair] without popping it (the stale ids stay,
# merge_and_update leaves their words alone; a pair made again later visits them once more, at no change); lab 09's
# sign change tested by d[i] * d[i + 1] < 0 (it differs only where the product underflows, at differences below
# 1e-154, no time) and the slope by statistics.linear_regression (the same least squares, to the last digits).)
LAB01_NOVEL43 = {
    "merge-last-token-appended-after-the-loop": ("task3_merge_word_solution", (
        ("    while i < len(word):\n        if i + 1 < len(word) and word[i] == pair[0]",
         "    while i < len(word) - 1:  # each window (i, i + 1)\n        if word[i] == pair[0]"),
        ("    return tuple(merged)\n",
         "    merged.append(word[-1])  # the last token, which no window starts\n    return tuple(merged)\n")),
        "merge_word("),
    "count-frequency-one-at-a-time": ("task1_count_pairs_solution", (("            counts[pair] += frequency\n",
        "            for _ in range(frequency):  # the word seen `frequency` times\n                counts[pair] += 1\n"),),
        "add its frequency to each of its pairs at once"),
    "best-pair-of-the-repeated-pairs": ("task2_best_pair_solution", (("    return max(pair_counts, key=",
        "    return max((pair for pair in pair_counts if pair_counts[pair] > 1), key="),), "even one seen once"),
    "train-words-without-the-pair-dropped": ("task4_train_solution", ((
        "        words = {merge_word(word, pair): count for word, count in words.items()}\n",
        "        words = {merge_word(word, pair): count for word, count in words.items()\n"
        "                 if pair in zip(word, word[1:])}  # the words the merge changes\n"),), "train("),
    "train-words-of-ints": ("task4_train_solution", (("    words = {split_into_bytes(pretoken): count",
                                                     "    words = {tuple(pretoken): count"),), "iterating over bytes yields ints"),
}
LAB02_NOVEL43 = {
    "changes-old-windows-off-by-one": ("task1_pair_count_changes_solution", (("    for old in zip(word, word[1:]):\n",
        "    for i in range(len(word) - 2):  # each window (i, i + 1)\n        old = (word[i], word[i + 1])\n"),),
        "pair_count_changes("),
    "train-merged-pair-deleted-first": ("task3_train_solution", (("        merges.append(pair)\n",
        "        merges.append(pair)\n        del pair_counts[pair]  # merged: no longer a pair\n"),), "train("),
    "train-merges-capped-at-the-initial-pairs": ("task3_train_solution", (("    for _ in range(num_merges):\n",
        "    for _ in range(min(num_merges, len(pair_counts))):  # no more merges than pairs\n"),), "train("),
    "update-purges-every-spent-count": ("task2_merge_and_update_solution", ((
        "        count = pair_counts.get(changed, 0) + change\n        if count:\n            pair_counts[changed] = count\n"
        "        else:\n            del pair_counts[changed]\n",
        "        pair_counts[changed] = pair_counts.get(changed, 0) + change\n"
        "    for spent in [p for p, count in pair_counts.items() if count == 0]:  # the pairs no word holds now\n"
        "        del pair_counts[spent]\n"),), "a loop over the whole of pair_counts on each call"),
    "train-filter-on-the-left-token-only": ("task3_train_solution", (("if left in word and right in word:", "if left in word:"),),
                                            "measured from outside your code"),
}
LAB04_NOVEL43 = {
    "index-returned-as-a-dict": ("task1_index_words_solution", (("    return index\n", "    return dict(index)\n"),),
                                 "the index must be a defaultdict(set)"),
    "index-ids-in-a-list": ("task1_index_words_solution", (("defaultdict(set)\n", "defaultdict(list)\n"),
                                                           ("index[pair].add(i)", "index[pair].append(i)")),
                            "the index must be a defaultdict(set)"),
    "index-ids-after-skipping-one-token-words": ("task1_index_words_solution", (("    for i, word in enumerate(words):\n",
        "    for i, word in enumerate(word for word in words if len(word) > 1):  # a one-token word holds no pair\n"),),
        "every word counted: a word of one token holds no pair but keeps its id"),
    "train-index-rebuilt-each-merge": ("task3_train_solution", ((
        "        for i in index.pop(pair):  # the words that ever held the pair (some of them stale)\n"
        "            word = words[i]\n            words[i] = merge_and_update(word, pair, frequencies[i], pair_counts)\n"
        "            if len(words[i]) < len(word):  # rewritten: it may hold new pairs, all with the new token\n"
        "                for new_pair in pairs_with(words[i], token):\n                    index[new_pair].add(i)\n",
        "        for i in index[pair]:  # the words that hold the pair\n"
        "            words[i] = merge_and_update(words[i], pair, frequencies[i], pair_counts)\n"
        "        index = index_words(words)  # the index of the words as they are now\n"),), "measured from outside your code"),
}
LAB09_NOVEL43 = {
    "monotonic-by-default": ("task1_interleaved_solution", (("clock: Callable[[], float] = time.perf_counter",
                                                             "clock: Callable[[], float] = time.monotonic"),),
                             "the clock by default is time.perf_counter"),
    "spread-negative-median-allowed": ("task2_spread_solution", (("    if middle <= 0:\n", "    if middle == 0:\n"),),
                                       "must raise ValueError"),
    "spread-semi-interquartile": ("task2_spread_solution", (("    return (q3 - q1) / middle\n",
                                                            "    return (q3 - q1) / 2 / middle  # the quartile deviation\n"),),
                                  "spread("),
    "ratio-first-round-dropped-as-a-warm-up": ("task3_paired_ratio_solution", ((
        "zip(times[a], times[b])", "zip(times[a][1:], times[b][1:])"),), "paired_ratio("),
    "crossover-returns-the-meeting-value": ("task5_crossover_solution", ((
        "            return xs[i] + (xs[i + 1] - xs[i]) * d[i] / (d[i] - d[i + 1])\n",
        "            return ys_a[i] + (ys_a[i + 1] - ys_a[i]) * d[i] / (d[i] - d[i + 1])  # where they meet\n"),), "crossover("),
}
NOVEL43_ROUND = {(lab, name): mistake for lab, table in (
    ("01_naive_bpe", LAB01_NOVEL43), ("02_incremental", LAB02_NOVEL43), ("04_inverted_index", LAB04_NOVEL43),
    ("09_benchmarks", LAB09_NOVEL43)) for name, mistake in table.items()}
KEPT_BEFORE_NOVEL43 = {("01_naive_bpe", "count-frequency-one-at-a-time"), ("02_incremental", "update-purges-every-spent-count")}
# Two caught by a measured check, 5-15 s of CPU each, members of families that run one member by default (lab 02's
# filters that test one token of the pair; lab 04's V4 that still visits every word): under BPE_EXHAUSTIVE=1 only.
MEASURED_NOVEL43 = {("02_incremental", "train-filter-on-the-left-token-only"), ("04_inverted_index", "train-index-rebuilt-each-merge")}
CAUGHT_BEFORE_NOVEL43 = [key for key in NOVEL43_ROUND if key not in KEPT_BEFORE_NOVEL43 | (set() if EXHAUSTIVE else MEASURED_NOVEL43)]


@pytest.mark.seeded
@pytest.mark.parametrize("lab, mistake", sorted(KEPT_BEFORE_NOVEL43),
                         ids=[f"{lab[:2]}-{name}" for lab, name in sorted(KEPT_BEFORE_NOVEL43)])
def test_labs01_02_a_sixteenth_rounds_mistake_that_kept_its_points_now_fails_the_hidden_test(request, lab, mistake):
    round_failure(request, NOVEL43_ROUND, lab, mistake)


@pytest.mark.parametrize("lab, mistake", [pytest.param(*key, id=f"{key[0][:2]}-{key[1]}") for key in CAUGHT_BEFORE_NOVEL43])
def test_labs01_02_04_09_a_learners_mistake_of_the_sixteenth_round_fails_the_hidden_test(request, lab, mistake):
    # those that lost their points before this round: one per lab by default (a hidden test each, up to seconds)
    one_per_lab("sixteenth", CAUGHT_BEFORE_NOVEL43, lab, mistake)
    round_failure(request, NOVEL43_ROUND, lab, mistake)


@WORKER_TWIN
def test_lab01_a_frequency_added_one_at_a_time_fails_in_the_worker_too():
    """The grading worker stops the call past its timeout, not the kernel's time limit: the same verdict and hint."""
    code = "\n".join(source_of("01_naive_bpe", cell) for cell in ("setup", "task1_count_pairs_solution"))
    changes = NOVEL43_ROUND["01_naive_bpe", "count-frequency-one-at-a-time"][1]
    message = remote("01_naive_bpe", code.replace(*changes[0]), "count_pairs", "check_count_pairs_properties")
    assert message is not None and "add its frequency to each of its pairs at once" in message, message
    assert remote("01_naive_bpe", code, "count_pairs", "check_count_pairs_properties") is None


@WORKER_TWIN
def test_lab02_counts_swept_on_each_update_fail_in_the_worker_too():
    """Task 2's driver loop runs in the worker, stopped past its timeout: the same verdict and hint."""
    code = "\n".join(source_of("02_incremental", cell) for cell in ("setup", "task1_pair_count_changes_solution",
                                                                   "task2_merge_and_update_solution"))
    changes = NOVEL43_ROUND["02_incremental", "update-purges-every-spent-count"][1]
    message = remote("02_incremental", code.replace(*changes[0]), "merge_and_update", "check_merge_and_update_properties")
    assert message is not None and "a loop over the whole of pair_counts on each call" in message, message
    assert remote("02_incremental", code, "merge_and_update", "check_merge_and_update_properties") is None


# ---- labs 03, 05, 06, 07 and 08, novel44: a seventeenth learner round (issue 21, item 8) ------------------------------
# Kinds the earlier rounds left out, tried as a learner who read the pages would, under secret seeds 0 to 7 (BPE_SEEDS=0:8):
# the last token of the search window taken for the first, a serial count decoded leniently; a heap key whose right token
# is not turned around, pop_best's answer appended whole as the merge, a stale check that looks at the follower only, the
# occurrences read with brackets, a new right pair listed at the follower; every merge applied once in rank order, one
# merge only, an empty list of special tokens taken for some, id 0 refused, a bytearray decoded; a pop loop that pops as
# many entries as the first heap held, no check for the end of the parts, the rank compared by identity; the token count
# of a prefix taken from the previous end.
# Kept, and closed since (each loses its task's hidden points under BPE_EXHAUSTIVE=1 BPE_SEEDS=0:16): lab 03's
# count_pretokens_in_file whose serial path decodes with errors="replace" (no hidden file of task 4 was not UTF-8): task
# 4's hidden test ends with two files that are not UTF-8, counted by one worker and with no special tokens, each beside
# its valid twin (lab03_parallel.verify_file_not_utf8); lab 06's encode_pretoken that applies every merge once in rank
# order (page 06's "every merge in training order, one pass each", BPE only for trained ranks) kept them under one seed
# of eight: a fixed hidden case, b"xyaaaaa" under (aa, a) before (a, a), renamed by the seed, with a hint of its own (the
# merges reordered by hand, reordered_inputs, are its generated branch); lab 07's merge_all without the check for the end
# of the parts (an IndexError on an entry whose part became the last) kept them under one seed of eight, and its stale
# check by identity (`is not rank`: equal ints above 256 can be two objects) under every seed, in the kernel and in the
# grading worker alike (a first heap's byte pairs are early merges: no first heap held a rank above 256): two fixed
# hidden cases, renamed by the seed (lab07_heap_encoding.HIDDEN_MERGE_ALL_CASES' last two), the first with a hint for the
# IndexError, the second, ranks from 1,000 and a heap of ints of their own, for the identity; merge_all_inputs draws
# both (the last pair's entry pushed twice among its junk entries; half its inputs with every rank but 0 moved past
# 1,000, each heap's ints objects of their own, as a grading worker's are).
# (Tried and left out, the solution's output on every input the callers make: lab 03's guess not moved past the last
# boundary, max(i * chunk_size, boundaries[-1]) left out (the search from an earlier guess finds the same first token,
# the last boundary, again: a repeat the set drops; it rescans from its guess to that boundary, reads that cost only
# where the special tokens are rarer than the guesses), merge_counts
# that returns its Counter (equal to the dict, no caller looks up a pretoken it lacks, as lab 01's defaultdict); lab
# 06's special tokens sorted in reverse text order (a token comes before its prefixes, as longest-first does; two tokens
# that match at one position are one the other's prefix); lab 07's stale check without its test for a part merged away
# (a None in the pair is no merge: ranks.get gives None, never the rank), the parts kept by truth (`if part`: no part is
# empty); lab 08's last_tokens without its break, or its candidates shortest first (one candidate at most is valid and
# compatible: the encoding of a prefix is unique, page 08), backtrack_encode's candidates shortest first (the search
# returns the one complete path of compatible tokens, the valid encoding, whatever the order), its index not stepped
# past a dead end's candidate (that candidate's end is dead now: skipped at once), its valid tokens of every byte value
# (a byte the pretoken lacks starts no candidate). Tried already, by the earlier rounds: lab 03's threads for processes
# and the range decoded with errors="ignore" (the fifteenth round's errors="replace", its hint names "ignore"), lab 05's
# stale entry taken as live when it gained count, lab 07's first heap sorted.)
LAB03_NOVEL44 = {
    "find-the-last-token-in-the-window": ("task1_find_chunk_boundaries_solution", (("position += min(found)",
        "position += max(found)  # the token found in the window"),), "take the earliest occurrence of any of them"),
    "file-serial-decoded-with-replace": ("task4_count_pretokens_in_file_solution", (('file.read().decode("utf-8")',
        'file.read().decode("utf-8", errors="replace")'),), "errors='replace'",
        "verify_file_not_utf8"),  # the part of the hidden test that catches it (the whole one starts pools: seconds)
}
LAB05_NOVEL44 = {
    "key-right-token-not-reversed": ("task1_heap_entry_solution", (("reversed_key(right), pair)", "right, pair)"),),
                                     "should be smaller than heap_entry("),
    "train-appends-pop-bests-answer": ("task3_train_solution", (("        pair, _ = pop_best(entries, pair_counts)\n"
        "        merges.append(pair)\n", "        merges.append(pop_best(entries, pair_counts))\n        pair = merges[-1][0]\n"),),
        "train("),
    "merge-stale-check-on-the-follower-only": ("task4_merge_occurrences_solution", ((
        "if token[node] != left or follower == -1", "if follower == -1"),), "merge_occurrences("),
    "merge-occurrences-looked-up-with-brackets": ("task4_merge_occurrences_solution", ((
        "    nodes = occurrences.pop(pair, [])\n", "    nodes = occurrences[pair]\n"),), "raised KeyError"),
    "merge-right-occurrence-at-the-follower": ("task4_merge_occurrences_solution", ((
        "occurrences.setdefault((merged, token[after]), []).append(node)",
        "occurrences.setdefault((merged, token[after]), []).append(follower)"),), "merge_occurrences("),
}
LAB06_NOVEL44 = {
    "encode-every-merge-in-rank-order": ("task2_encode_pretoken_solution", ((
        "    while len(word) > 1:\n        best = min(zip(word, word[1:]), key=lambda pair: ranks.get(pair, float(\"inf\")))\n"
        "        if best not in ranks:\n            break  # no neighbouring pair is a merge\n        word = merge_word(word, best)\n",
        "    for pair in sorted(ranks, key=ranks.get):  # every merge, in the order it was learned\n"
        "        word = merge_word(word, pair)\n"),), "in rank order (one pass per merge)"),
    "encode-one-merge-only": ("task2_encode_pretoken_solution", (("    while len(word) > 1:\n", "    if len(word) > 1:\n"),
        ("            break  # no neighbouring pair is a merge\n", "            return list(word)  # no neighbouring pair is a merge\n")),
        "encode_pretoken("),
    "special-tokens-of-an-empty-list": ("task3_encode_text_solution", (("    if special_tokens:\n",
        "    if special_tokens is not None:\n"),), "encode_text("),
    "decode-id-zero-refused": ("task5_decode_with_arena_solution", (("if not 0 <= token_id", "if not 0 < token_id"),),
                               "decode_with_arena("),
    "decode-into-a-bytearray": ("task5_decode_with_arena_solution", (("    return b\"\".join(pieces)\n",
        "    return bytearray().join(pieces)\n"),), "wrong type"),
}
LAB07_NOVEL44 = {
    "merge-pops-as-many-as-the-first-heap": ("task2_merge_all_solution", (("    while heap:\n",
        "    for _ in range(len(heap)):  # one pop per entry\n"),), "merge_all("),
    "merge-end-not-checked": ("task2_merge_all_solution", ((
        "if right_start == end or ranks.get((left, parts[right_start])) != rank:",
        "if ranks.get((left, parts[right_start])) != rank:"),), "Check next_[i] == len(parts)"),
    "merge-stale-rank-by-identity": ("task2_merge_all_solution", (("ranks.get((left, parts[right_start])) != rank:",
        "ranks.get((left, parts[right_start])) is not rank:"),), "by identity"),
}
LAB08_NOVEL44 = {
    "counts-of-the-last-token-by-the-previous-end": ("task4_prefix_token_counts_solution", ((
        "counts[end] = counts[end - len(last[end])] + 1", "counts[end] = counts[end - 1] + (len(last[end]) == 1)"),),
        "prefix_token_counts("),
}
NOVEL44_ROUND = {(lab, name): mistake for lab, table in (
    ("03_parallel", LAB03_NOVEL44), ("05_heap", LAB05_NOVEL44), ("06_encode_decode", LAB06_NOVEL44),
    ("07_heap_encoding", LAB07_NOVEL44), ("08_linear_encoding", LAB08_NOVEL44)) for name, mistake in table.items()}
KEPT_BEFORE_NOVEL44 = {("03_parallel", "file-serial-decoded-with-replace"), ("06_encode_decode", "encode-every-merge-in-rank-order"),
                       ("07_heap_encoding", "merge-end-not-checked"), ("07_heap_encoding", "merge-stale-rank-by-identity")}
CAUGHT_BEFORE_NOVEL44 = [key for key in NOVEL44_ROUND if key not in KEPT_BEFORE_NOVEL44]


@pytest.mark.seeded
@pytest.mark.parametrize("lab, mistake", sorted(KEPT_BEFORE_NOVEL44),
                         ids=[f"{lab[:2]}-{name}" for lab, name in sorted(KEPT_BEFORE_NOVEL44)])
def test_labs03_06_07_a_seventeenth_rounds_mistake_that_kept_its_points_now_fails_the_hidden_test(request, lab, mistake):
    round_failure(request, NOVEL44_ROUND, lab, mistake)


@pytest.mark.parametrize("lab, mistake", [pytest.param(*key, id=f"{key[0][:2]}-{key[1]}") for key in CAUGHT_BEFORE_NOVEL44])
def test_labs03_05_to_08_a_learners_mistake_of_the_seventeenth_round_fails_the_hidden_test(request, lab, mistake):
    # those that lost their points before this round: one per lab by default (a hidden test each, up to seconds)
    one_per_lab("seventeenth", CAUGHT_BEFORE_NOVEL44, lab, mistake)
    round_failure(request, NOVEL44_ROUND, lab, mistake)


@WORKER_TWIN
def test_lab07_stale_check_by_identity_fails_in_the_worker_too():
    """In the grading worker every int of the arguments arrives as an object of its own: the stale check by identity
    skips every entry of a rank above 256 there (it kept its points there too before, no first heap of the hidden test
    holding such a rank), the solution passing."""
    code = "\n".join(source_of("07_heap_encoding", cell) for cell in ("setup", "task1_first_heap_solution",
                                                                     "task2_merge_all_solution"))
    (old, new), = LAB07_NOVEL44["merge-stale-rank-by-identity"][1]
    message = remote("07_heap_encoding", code.replace(old, new), "merge_all", "check_merge_all_properties")
    assert message is not None and "merge_all(" in message, message
    assert remote("07_heap_encoding", code, "merge_all", "check_merge_all_properties") is None


@WORKER_TWIN
def test_lab03_serial_count_decoded_with_replace_fails_in_the_worker_too():
    """Task 4's serial path runs in the worker: its counts of a file that is not UTF-8 cross back, the solution's error by name."""
    code = "\n".join(source_of("03_parallel", cell) for cell in ("setup", "task1_find_chunk_boundaries_solution",
                                                                 "task3_merge_counts_solution",
                                                                 "task4_count_pretokens_in_file_solution"))
    (old, new), = LAB03_NOVEL44["file-serial-decoded-with-replace"][1]
    message = remote("03_parallel", code.replace(old, new), "count_pretokens_in_file", "check_count_pretokens_in_file_properties")
    assert message is not None and "errors='replace'" in message, message
    assert remote("03_parallel", code, "count_pretokens_in_file", "check_count_pretokens_in_file_properties") is None


# ---- labs 05 and 08, walk48: the labs worked as a new learner (issue 21's walk) ------------------------------------------
# Each mistake is the solution with one change; it loses its task's hidden points (the hidden test fails with the message
# given) and, where a string is given for it, the visible test explains it with that hint. Closed by this round: lab 05's
# heap entry of int.from_bytes (it passed the visible test: no visible group held a shorter token greater than a longer
# one), pop_best that pushes a stale entry back as it was (the visible test never returned: a 10 s kernel limit now),
# that returns the pair's count for the stale pops, that reads token[-1] or the node numbered next as a neighbour; lab
# 08's search that never returns (a 10 s kernel limit) and last_tokens that gives last[0], None, to compatible (a hint
# for a window of starts before). The others got no hint or one that named another mistake, and a learner's exception
# inside a measured call got none (train that loops while the heap holds entries raised IndexError in the push cost's
# call only, the fixed cases passing). (Tried and left out, the solution's output on every input: lab 05's pop_best that
# pushes a grown pair's entry again (under lazy deletion's promise, which every heap V5 makes and the tests give keeps,
# the fresher entry pops first: allowed, as learn25 says); lab 05's grown pairs pushed without the test that they still
# occur (a pair of a rewritten word occurs); lab 08's dead position marked at the dropped token's start rather than
# where nothing fitted (the search never reaches a position twice, page 08's uniqueness: the record only saves work).)
STALE_BACK_AS_IT_WAS = (("            heapq.heappush(entries, heap_entry(count, pair))",
                         "            heapq.heappush(entries, entry)  # put it back"),)
SAME_CANDIDATE_AGAIN = (("        pos, candidates, index = stack.pop()\n        index += 1\n",
                         "        pos, candidates, index = stack.pop()\n"),
                        ("            if alive[end] and (not tokens", "            if (not tokens"))
LAB05_WALK48 = {
    "key-int-of-each-token": ("task1_heap_entry_solution", ((
        "    left, right = pair\n    return (-count, reversed_key(left), reversed_key(right), pair)",
        "    left, right = pair\n    return (-count, -int.from_bytes(left, 'big'), -int.from_bytes(right, 'big'), pair)"),),
        "should be smaller than heap_entry(", "int.from_bytes"),
    "key-int-of-the-joined-pair": ("task1_heap_entry_solution", ((
        "    left, right = pair\n    return (-count, reversed_key(left), reversed_key(right), pair)",
        "    return (-count, -int.from_bytes(pair[0] + pair[1], 'big'), pair)"),), "int.from_bytes", "int.from_bytes"),
    "pop-stale-entry-pushed-back-as-it-was": ("task2_pop_best_solution", STALE_BACK_AS_IT_WAS, None,
                                              "it surfaces again at once, for ever"),
    "pop-returns-the-pairs-count": ("task2_pop_best_solution", (("            return pair, stale_pops",
                                    "            return pair, count"),), "the second item is the number of stale entries",
                                    "the second item is the number of stale entries"),
    "pop-returns-a-shrunk-pair-with-its-count": ("task2_pop_best_solution", ((
        "            heapq.heappush(entries, heap_entry(count, pair))",
        "            return pair, count  # it still occurs: take it with its live count"),),
        "an entry is live only when its count equals", "an entry is live only when its count equals"),
    "pop-claimed-not-negated": ("task2_pop_best_solution", (("pair, claimed = entry[-1], -entry[0]",
                                "pair, claimed = entry[-1], entry[0]"),), "heappop on an empty heap?",
                                "heappop on an empty heap?"),
    "pop-counts-the-live-pop": ("task2_pop_best_solution", (("            return pair, stale_pops",
                                "            return pair, stale_pops + 1  # the pops it took"),),
                                "count only the entries popped before it", "count only the entries popped before it"),
    "pop-list-pop-0": ("task2_pop_best_solution", (("        entry = heapq.heappop(entries)",
                       "        entry = entries.pop(0)  # the smallest is first"),), "pop_best(", "pop_best("),
    "train-heap-not-heapified": ("task3_train_solution", (("    heapq.heapify(entries)  # O(P), once\n", ""),),
                                 "heapq.heapify(entries)", "heapq.heapify(entries)"),
    "train-loop-while-entries": ("task3_train_solution", (("    while len(merges) < num_merges and pair_counts:",
                                 "    while len(merges) < num_merges and entries:"),), "not while the heap is",
                                 "not while the heap is"),
    "merge-left-end-unchecked": ("task4_merge_occurrences_solution", ((
        "        if before != -1:  # x A B -> x AB\n            changes", "        if True:  # x A B -> x AB\n            changes"),),
        "token[-1] is Python's last item", "token[-1] is Python's last item"),
    "merge-right-end-unchecked": ("task4_merge_occurrences_solution", ((
        "        if after != -1:  # A B y -> AB y\n            changes", "        if True:  # A B y -> AB y\n            changes"),),
        "token[-1] is Python's last item", "token[-1] is Python's last item"),
    "merge-neighbours-by-node-number": ("task4_merge_occurrences_solution", ((
        "        before, after = prev[node], next_[follower]\n",
        "        before = node - 1 if prev[node] != -1 else -1  # the node before\n"
        "        after = follower + 1 if next_[follower] != -1 else -1  # the node after\n"),),
        "not node - 1 and follower + 1", "not node - 1 and follower + 1"),
    "merge-next-link-not-mended": ("task4_merge_occurrences_solution", (("        next_[node] = after\n", ""),),
                                   "merge_occurrences(", "prev is right but next_ is not"),
    "merge-left-occurrence-at-the-node": ("task4_merge_occurrences_solution", ((
        "occurrences.setdefault((token[before], merged), []).append(before)",
        "occurrences.setdefault((token[before], merged), []).append(node)"),), "merge_occurrences(",
        "occurrences must list every node"),
    "merge-follower-token-kept": ("task4_merge_occurrences_solution", ((
        "        token[node], token[follower] = merged, b\"\"\n", "        token[node] = merged\n"),),
        "was merged though the merge at node", "was merged though the merge at node"),
}
LAB08_WALK48 = {
    "compatible-not-one-token": ("task1_compatible_solution", (("return encode_pretoken(left + right, ranks) == [left, right]",
                                 "return encode_pretoken(left + right, ranks) != [left + right]"),), "compatible(",
                                 "BPE never gets to apply it here"),
    "backtrack-same-candidate-again": ("task2_backtrack_encode_solution", SAME_CANDIDATE_AGAIN, None,
                                       "does the search try the next candidate"),
    "backtrack-single-byte-when-stuck": ("task2_backtrack_encode_solution", ((
        "        alive[pos] = False  # nothing fits here: dead, back up one token\n        tokens.pop()\n"
        "        pos, candidates, index = stack.pop()\n        index += 1\n",
        "        token = pretoken[pos:pos + 1]  # nothing fits: take the byte\n        tokens.append(token)\n"
        "        stack.append((pos, candidates, index))\n"
        "        pos, candidates, index = pos + 1, starting_at(pos + 1) if pos + 1 < n else [], 0\n"),),
        "are neighbours but not compatible", "are neighbours but not compatible"),
    "backtrack-longest-candidate-left-out": ("task2_backtrack_encode_solution", (("range(min(n, pos + longest), pos, -1)",
                                             "range(min(n, pos + longest - 1), pos, -1)"),), "pretoken[pos:pos + K]",
                                             "pretoken[pos:pos + K]"),
    "last-start-zero-given-to-compatible": ("task3_last_tokens_solution", ((
        "(start == 0 or compatible(last[start], token, ranks))", "compatible(last[start], token, ranks)"),),
        "test start == 0 before compatible", "test start == 0 before compatible"),
    "last-longest-of-the-merges": ("task3_last_tokens_solution", (("    longest = max(map(len, valid), default=1)\n",
                                   "    longest = max(len(left + right) for left, right in ranks)\n"),),
                                   "max(map(len, valid), default=1)", "max(map(len, valid), default=1)"),
    "last-without-the-empty-prefix": ("task3_last_tokens_solution", (("    return last\n",
                                      "    return last[1:]  # the tokens\n"),), "one entry per prefix", "one entry per prefix"),
    "counts-without-counts-zero": ("task4_prefix_token_counts_solution", ((
        "    counts = [0] * len(last)\n    for end in range(1, len(last)):\n        counts[end] = counts[end - len(last[end])] + 1\n",
        "    counts = []\n    for end in range(1, len(last)):\n        counts.append(counts[end - len(last[end])] + 1)\n"),),
        "counts[0] == 0 before the loop", "counts[0] == 0 before the loop"),
}
WALK48 = {(lab, name): mistake for lab, table in (("05_heap", LAB05_WALK48), ("08_linear_encoding", LAB08_WALK48))
          for name, mistake in table.items()}
# A visible call that never returns is stopped after its kernel limit, 10 s of CPU time: one of the two a run by default.
WALK48_NEVER_RETURN = [key for key, mistake in WALK48.items() if mistake[2] is None]


@pytest.mark.parametrize("lab, mistake", [pytest.param(*key, id=f"{key[0][:2]}-{key[1]}") for key in WALK48])
def test_labs05_08_walk48_a_learners_mistake_loses_its_points_and_the_visible_test_explains_it(request, lab, mistake):
    if (lab, mistake) in WALK48_NEVER_RETURN:
        skip_unless_drawn("walk48, a visible call that never returns", mistake, [name for _, name in WALK48_NEVER_RETURN])
    graders, solutions = request.getfixturevalue(f"lab{lab[:2]}")
    cell, changes, hidden, visible = WALK48[lab, mistake]
    name = cell.split("_", 1)[1].removesuffix("_solution")
    if hidden is not None:  # (a call that never returns: its hidden test's fixed cases meet the visible test's limit)
        found = failure(getattr(graders, f"check_{name}_properties"), variant_of(lab, solutions, cell, name, changes))
        assert hidden in found, found
    found = failure(getattr(graders, f"check_{name}"), variant_of(lab, solutions, cell, name, changes))
    assert visible in found, found


# ---- labs 00, 01, 02, 04, 09 and 10, novel48: an eighteenth learner round (issue 21, item 8) -----------------------
# Kinds the earlier rounds left out, tried as a learner who read the pages would, under secret seeds 0 to 7 (BPE_SEEDS=0:8):
# the distinct byte values for "the ids of its base tokens", a tuple for the list; the pieces of whitespace alone dropped,
# special tokens matched in any case (regex.IGNORECASE), a character class of the tokens' characters; the pieces of
# whitespace alone skipped by pretokenize; a count by list.count per pretoken (right, quadratic), the special tokens
# counted as pretokens; a defaultdict(float) (counts 1.0 for 1), ties on the pair's joined bytes, merge_word as a
# recursion on the rest of the word, the caller's dict turned into the words, num_merges taken for a vocabulary size; lab
# 02's changes in a defaultdict(float), a merge_and_update that returns nothing ("in place"), one that deletes a count of
# 1, one merge short, a word's index passed as its frequency; lab 04's words of two tokens left out of the index, a
# pairs_with that steps past a window it lists (as merge_word steps past a merge), a new pair's set replaced by {i}, a
# merge too many (while len(merges) <= num_merges), the index built on the pretokens' bytes; lab 09's times sorted,
# the spread in percent, median_low of the ratios, logarithms by log1p, the exponent rounded, one point let through;
# lab 10's range decoded as latin-1, the continuation bytes at a range's start stripped, floor(log2(n)) rounds, ranges
# paired two by two from the boundaries, the ranges counted largest first.
# Kept, each closed since by a hidden check drawn from the grading's secret seed (not a fixed case: no table of the
# graders' source answers it), with a hint of its own: lab 00's split with IGNORECASE under every seed (the texts drawn
# held lowercase tokens only; verify_tokens_as_written), pretokenize without the pieces of whitespace alone under 2 seeds
# of 8 (verify_blank_pieces, count_pretokens' hidden test too), the count by list.count under every seed (the hidden
# texts are short; its growth measured from outside, COUNTED_LINEARLY, as task 3's); lab 01's recursive merge_word
# under every seed (the words drawn hold 9 tokens at most, a pretoken can hold thousands: RecursionError past about 1,000;
# verify_long_words); lab 09's crossover that lets one point through under seed 7 (one kind of 17 cuts the curves to one
# point; verify_too_few_points); lab 10's count_range that strips a character's tail at the start of its range under
# every seed (verify_range_starts_inside_a_character).
# (Tried and left out, the solution's output on every input the callers make: lab 02's filter len(word) > 1 and left in
# word and right in word (a word of one token holds no pair); lab 00's counts sorted by frequency (an equal dict).)
LAB00_NOVEL48 = {
    "utf8-distinct-ids": ("task1_utf8_bytes_solution", (('    return list(text.encode("utf-8"))\n',
        '    return sorted(set(text.encode("utf-8")))  # the ids of its base tokens\n'),), "utf8_bytes("),
    "utf8-returns-a-tuple": ("task1_utf8_bytes_solution", (('    return list(text.encode("utf-8"))\n',
        '    return tuple(text.encode("utf-8"))\n'),), "expected a list, got a tuple"),
    "split-drops-blank-pieces": ("task2_split_on_special_tokens_solution", (("    return regex.split(pattern, text)\n",
        "    return [piece for piece in regex.split(pattern, text) if piece.strip()]  # nothing between two tokens\n"),),
        "split_on_special_tokens("),
    "split-ignoring-case": ("task2_split_on_special_tokens_solution", (("    return regex.split(pattern, text)\n",
        "    return regex.split(pattern, text, flags=regex.IGNORECASE)\n"),), "case and all"),
    "split-on-a-character-class": ("task2_split_on_special_tokens_solution", ((
        '    pattern = "|".join(regex.escape(token) for token in longest_first)\n',
        '    pattern = "[" + "".join(regex.escape(token) for token in longest_first) + "]"\n'),), "split_on_special_tokens("),
    "pretokenize-skips-blank-pieces": ("task3_pretokenize_solution", ((
        "        pretokens.extend(regex.findall(GPT2_PATTERN, piece))\n",
        "        if piece.strip():  # whitespace between two special tokens: nothing to pretokenize\n"
        "            pretokens.extend(regex.findall(GPT2_PATTERN, piece))\n"),), "the whitespace between two special tokens"),
    "count-by-list-count": ("task4_count_pretokens_solution", ((
        "    counts: dict[bytes, int] = {}\n    for pretoken in pretokenize(text, special_tokens):\n"
        "        key = pretoken.encode(\"utf-8\")\n        counts[key] = counts.get(key, 0) + 1\n    return counts\n",
        "    pretokens = pretokenize(text, special_tokens)\n"
        "    return {pretoken.encode(\"utf-8\"): pretokens.count(pretoken) for pretoken in pretokens}\n"),),
        "pretokens.count(pretoken)"),
    "count-special-tokens-too": ("task4_count_pretokens_solution", (("    return counts\n",
        "    for token in special_tokens:  # the special tokens are pretokens too\n        if token in text:\n"
        "            counts[token.encode(\"utf-8\")] = text.count(token)\n    return counts\n"),), "count_pretokens("),
}
LAB01_NOVEL48 = {
    "count-in-a-defaultdict-of-floats": ("task1_count_pairs_solution", (("defaultdict(int)", "defaultdict(float)"),),
                                         "count_pairs("),
    "best-ties-on-the-joined-bytes": ("task2_best_pair_solution", (("key=lambda pair: (pair_counts[pair], pair))",
        "key=lambda pair: (pair_counts[pair], pair[0] + pair[1]))"),), "tie at count"),
    "merge-recursive": ("task3_merge_word_solution", ((
        "    merged = []\n    i = 0\n    while i < len(word):\n"
        "        if i + 1 < len(word) and word[i] == pair[0] and word[i + 1] == pair[1]:\n"
        "            merged.append(word[i] + word[i + 1])\n            i += 2\n        else:\n"
        "            merged.append(word[i])\n            i += 1\n    return tuple(merged)\n",
        "    if len(word) < 2:\n        return tuple(word)\n"
        "    if word[0] == pair[0] and word[1] == pair[1]:\n        return (word[0] + word[1],) + merge_word(word[2:], pair)\n"
        "    return (word[0],) + merge_word(word[1:], pair)\n"),), "Python stops a recursion"),
    "train-words-made-in-the-callers-dict": ("task4_train_solution", ((
        "    words = {split_into_bytes(pretoken): count for pretoken, count in pretoken_counts.items()}\n",
        "    words = pretoken_counts\n    for pretoken in list(words):  # each pretoken as a word of one-byte tokens\n"
        "        words[split_into_bytes(pretoken)] = words.pop(pretoken)\n"),), "changed its argument pretoken_counts"),
    "train-merges-taken-for-a-vocab-size": ("task4_train_solution", (("    for _ in range(num_merges):\n",
        "    for _ in range(num_merges - 256):  # the 256 byte tokens come first\n"),), "train("),
}
LAB02_NOVEL48 = {
    "changes-in-a-defaultdict-of-floats": ("task1_pair_count_changes_solution", (("defaultdict(int)", "defaultdict(float)"),),
                                           "pair_count_changes("),
    "update-returns-nothing": ("task2_merge_and_update_solution", (("    return merge_word(word, pair)\n",
        "    word = merge_word(word, pair)  # merged in place\n"),), "merge_and_update("),
    "update-deletes-below-two": ("task2_merge_and_update_solution", (("        if count:\n", "        if count > 1:\n"),),
                                 "merge_and_update("),
    "train-one-merge-short": ("task3_train_solution", (("    for _ in range(num_merges):\n",
                                                       "    for _ in range(1, num_merges):\n"),), "train("),
    "train-frequency-of-the-word-index": ("task3_train_solution", ((
        "words[i] = merge_and_update(word, pair, frequencies[i], pair_counts)",
        "words[i] = merge_and_update(word, pair, i, pair_counts)"),), "train("),
}
LAB04_NOVEL48 = {
    "index-skips-two-token-words": ("task1_index_words_solution", (("    for i, word in enumerate(words):\n",
        "    for i, word in enumerate(words):\n        if len(word) <= 2:\n            continue  # too short to hold a pair\n"),),
        "index_words("),
    "pairs-with-skips-the-next-window": ("task2_pairs_with_solution", ((
        "    return [pair for pair in zip(word, word[1:]) if token in pair]\n",
        "    pairs, i = [], 0\n    while i < len(word) - 1:\n        if token in (word[i], word[i + 1]):\n"
        "            pairs.append((word[i], word[i + 1]))\n            i += 2  # as merge_word does\n"
        "        else:\n            i += 1\n    return pairs\n"),), "one entry per window"),
    "train-new-pair-set-replaced": ("task3_train_solution", (("                    index[new_pair].add(i)\n",
        "                    index[new_pair] = {i}\n"),), "train("),
    "train-merges-while-at-most": ("task3_train_solution", (("    for _ in range(num_merges):\n",
        "    while len(merges) <= num_merges:\n"),), "train("),
    "train-index-of-the-pretokens": ("task3_train_solution", (("    index = index_words(words)\n",
        "    index = index_words(list(pretoken_counts))\n"),), "train("),
}
LAB09_NOVEL48 = {
    "interleaved-times-sorted": ("task1_interleaved_solution", (("    return times\n",
        "    return {label: sorted(run) for label, run in times.items()}\n"),), "interleaved("),
    "spread-in-percent": ("task2_spread_solution", (("    return (q3 - q1) / middle\n",
                                                      "    return 100 * (q3 - q1) / middle  # in percent\n"),), "spread("),
    "ratio-median-low": ("task3_paired_ratio_solution", (("statistics.median([x / y", "statistics.median_low([x / y"),),
                         "paired_ratio("),
    "exponent-of-log1p": ("task4_fit_exponent_solution", ((
        "    xs = [math.log(s) for s in sizes]\n    ys = [math.log(t) for t in seconds]\n",
        "    xs = [math.log1p(s) for s in sizes]\n    ys = [math.log1p(t) for t in seconds]\n"),), "fit_exponent("),
    "exponent-rounded": ("task4_fit_exponent_solution", ((
        "    return sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys)) / sxx\n",
        "    return round(sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys)) / sxx)\n"),), "fit_exponent("),
    "crossover-one-point-allowed": ("task5_crossover_solution", (("or len(xs) < 2:", "or len(xs) < 1:"),),
                                    "must raise ValueError"),
}
LAB10_NOVEL48 = {
    "range-decoded-as-latin-1": ("task1_count_range_solution", (('data.decode("utf-8")', 'data.decode("latin-1")'),),
                                 "count_range("),
    "range-continuation-bytes-skipped": ("task1_count_range_solution", (("        data = file.read(end - start)\n",
        "        data = file.read(end - start).lstrip(bytes(range(0x80, 0xC0)))  # the tail of a character cut at start\n"),),
        ("skip nothing", "a continuation byte alone")),  # the second where verify_not_utf8's b"\x80" starts its range
    "tree-rounds-of-floor-log2": ("task3_tree_reduce_solution", (("    while len(level) > 1:\n",
        "    for _ in range(int(math.log2(len(level)))):  # log2(n) rounds\n"),
        ("    level = list(parts)\n", "    import math\n    level = list(parts)\n")), "tree_shape(", tree_shape_hidden),
    "plan-boundaries-two-by-two": ("task4_plan_ranges_solution", (("zip(boundaries, boundaries[1:])",
                                                                   "zip(boundaries[::2], boundaries[1::2])"),), "plan_ranges("),
    "count-ranges-largest-first": ("task5_count_ranges_solution", ((
        "for path, start, end in ranges]", "for path, start, end in sorted(ranges, key=lambda r: r[1] - r[2])]"),),
        "task_graph(", task_graph_hidden),
}
NOVEL48_ROUND = {(lab, name): mistake for lab, table in (
    ("00_pretokenization", LAB00_NOVEL48), ("01_naive_bpe", LAB01_NOVEL48), ("02_incremental", LAB02_NOVEL48),
    ("04_inverted_index", LAB04_NOVEL48), ("09_benchmarks", LAB09_NOVEL48), ("10_distributed", LAB10_NOVEL48))
    for name, mistake in table.items()}
KEPT_BEFORE_NOVEL48 = {("00_pretokenization", "split-ignoring-case"), ("00_pretokenization", "pretokenize-skips-blank-pieces"),
                       ("00_pretokenization", "count-by-list-count"), ("01_naive_bpe", "merge-recursive"),
                       ("09_benchmarks", "crossover-one-point-allowed"), ("10_distributed", "range-continuation-bytes-skipped")}
CAUGHT_BEFORE_NOVEL48 = [key for key in NOVEL48_ROUND if key not in KEPT_BEFORE_NOVEL48]


@pytest.mark.seeded
@pytest.mark.parametrize("lab, mistake", sorted(KEPT_BEFORE_NOVEL48),
                         ids=[f"{lab[:2]}-{name}" for lab, name in sorted(KEPT_BEFORE_NOVEL48)])
def test_labs00_01_09_10_an_eighteenth_rounds_mistake_that_kept_its_points_now_fails_the_hidden_test(request, lab, mistake,
                                                                                                    at_the_first_verdict):
    with at_the_first_verdict():  # lab 00's count by list.count: measured, a wrong method's growth fails at every try
        round_failure(request, NOVEL48_ROUND, lab, mistake)


@pytest.mark.parametrize("lab, mistake", [pytest.param(*key, id=f"{key[0][:2]}-{key[1]}") for key in CAUGHT_BEFORE_NOVEL48])
def test_labs00_to_10_a_learners_mistake_of_the_eighteenth_round_fails_the_hidden_test(request, lab, mistake):
    # those that lost their points before this round: one per lab by default (a hidden test each, up to seconds)
    one_per_lab("eighteenth", CAUGHT_BEFORE_NOVEL48, lab, mistake)
    round_failure(request, NOVEL48_ROUND, lab, mistake)


def test_lab01_a_recursive_merge_word_of_the_eighteenth_round_costs_task_3_only_in_the_worker():
    """The worker raises RecursionError on the long words (the grader's copy of them crosses the pipe), with the hint;
    task 4's train, graded with the reference's merge_word in its place, keeps its points."""
    code = "\n".join(source_of("01_naive_bpe", cell) for cell in ("setup", "task1_count_pairs_solution",
                                                                 "task2_best_pair_solution", "task3_merge_word_solution",
                                                                 "task4_train_solution"))
    (old, new), = LAB01_NOVEL48["merge-recursive"][1]
    message = remote("01_naive_bpe", code.replace(old, new), "merge_word", "check_merge_word_properties")
    assert message is not None and "Python stops a recursion" in message, message
    assert remote("01_naive_bpe", code.replace(old, new), "train", "check_train_properties") is None  # task 4 keeps its points
    assert remote("01_naive_bpe", code, "merge_word", "check_merge_word_properties") is None


@WORKER_TWIN
def test_lab00_an_eighteenth_rounds_count_by_list_count_fails_in_the_worker_too(at_the_first_verdict):
    """The growth of its CPU time measured from outside the worker: the same verdict and hint."""
    code = "\n".join(source_of("00_pretokenization", cell) for cell in ("setup", "task2_split_on_special_tokens_solution",
                                                                       "task3_pretokenize_solution",
                                                                       "task4_count_pretokens_solution"))
    (old, new), = LAB00_NOVEL48["count-by-list-count"][1]
    with at_the_first_verdict():
        message = remote("00_pretokenization", code.replace(old, new), "count_pretokens", "check_count_pretokens_properties")
    assert message is not None and "pretokens.count(pretoken)" in message, message
    assert remote("00_pretokenization", code, "count_pretokens", "check_count_pretokens_properties") is None


@WORKER_TWIN
def test_lab10_an_eighteenth_rounds_range_stripped_of_leading_continuation_bytes_fails_in_the_worker_too():
    code = "\n".join(source_of("10_distributed", cell) for cell in ("setup", "task1_count_range_solution"))
    (old, new), = LAB10_NOVEL48["range-continuation-bytes-skipped"][1]
    message = remote("10_distributed", code.replace(old, new), "count_range", "check_count_range_properties")
    assert message is not None and ("skip nothing" in message or "a continuation byte alone" in message), message
    assert remote("10_distributed", code, "count_range", "check_count_range_properties") is None


# ---- labs 03 and 06, learner48: the labs worked as a new learner, graded by self-grade and by a class's autograde ----
# Closed by this round: lab 03's find_chunk_boundaries that reads a size of its own (4096 bytes, the signature's default)
# whatever buffer_size says, without the overlap between reads. Every generated file of the tests fits in its first read
# and the big measured file's tokens come within it, so the straddle it misses never showed: it kept all 4 points. Files
# whose one token straddles the end of a read of 1024, 4096, 8192 or 65536 bytes from the guess (read in buffers of 16)
# now catch it, and the visible test tells it with a hint of its own. Task 4's special tokens encoded as ASCII (or
# Latin-1) kept their points too, every token of the tests being ASCII: a hidden case now has one that is not. (Tried,
# and losing their points already with a fitting hint: 7 other mistakes of lab 03 and 9 of lab 06, graded both ways in
# the round's report. Left as it was: the same fixed-size search with the overlap, the answer right on every file; reads
# of buffer_size bytes cannot be told from outside, Python's buffered file reading 8 KiB from the system at each seek
# whatever the search asks for.)
FIXED_SIZE_READS = {
    "find-4096-bytes-read-without-overlap": (
        ("max(len(token) for token in split_tokens) - 1", "0"),
        ("window = file.read(buffer_size + overlap)", "window = file.read(4096 + overlap)"),
        ("buffer_size + len(t) - 1", "4096"),
        ("position += buffer_size", "position += 4096")),
    "find-4096-bytes-read-whole-window-searched": (
        ("window = file.read(buffer_size + overlap)", "window = file.read(4096)"),
        ("window.find(t, 0, buffer_size + len(t) - 1)", "window.find(t)"),
        ("position += buffer_size", "position += 4096")),
}


@pytest.mark.seeded
@pytest.mark.parametrize("mistake", sorted(FIXED_SIZE_READS))
def test_labs03_06_learner48_a_search_in_reads_of_its_own_size_without_overlap_fails_both_tests(lab03, mistake):
    graders, solutions = lab03
    learner = variant_of("03_parallel", solutions, "task1_find_chunk_boundaries_solution", "find_chunk_boundaries",
                         FIXED_SIZE_READS[mistake])
    for grader in (graders.check_find_chunk_boundaries_properties, graders.check_find_chunk_boundaries):
        found = failure(grader, learner)
        assert "read buffer_size bytes at a time (16 here: the argument, not a size of your own)" in found, found


@pytest.mark.parametrize("codec", ["ascii", "latin-1"])
def test_labs03_06_learner48_special_tokens_not_encoded_as_utf8_fail_the_hidden_test(lab03, codec):
    graders, solutions = lab03
    mistake = variant("03_parallel", solutions, TASK4, "count_pretokens_in_file", '[t.encode("utf-8") for t in special_tokens]',
                      f'[t.encode("{codec}") for t in special_tokens]')

    def hidden_fixed_cases(learner):
        graders.check_cases(graders.FILE_TASK, learner, graders.serial_count, graders.FILE_HIDDEN_CASES)

    assert "raised UnicodeEncodeError" in failure(hidden_fixed_cases, mistake)
    hidden_fixed_cases(solutions["count_pretokens_in_file"])


# ---- labs 03, 05, 06, 07 and 08, novel49: a nineteenth learner round (issue 21, item 8) -----------------------------
# Kinds the earlier rounds left out, tried as a learner who read the pages would, each graded by its task's hidden test
# under secret seeds 0 to 7 (BPE_SEEDS=0:8) and the derandomized draw: lab 03's file seeked once per guess (the reads go
# on past the overlap), the offsets found filtered by truth (`if j`: an offset of 0 dropped, -1 kept), the overlap of the
# first token only, page 03's sum(counts, Counter()) over dicts, the one-worker count given no special tokens, the pool's
# arguments sent as tuples; lab 05's entry without its pair, a gone pair's count read with brackets, heapify on each
# pop, the words of the sorted pretokens beside the frequencies in the dict's order, entries popped without the stale
# check, the left neighbour's loss left out, prev relinked at a word's end too (prev[-1]); lab 06's word of ints, the
# pretokens found with `re` (no \p{L}), each pretoken's list appended whole, a KeyError for a bad id, ids bounded by
# len(buffer); lab 07's entries of the left part, not its position, next_ and prev one off, the right pair never pushed,
# the left part not replaced, an entry unpacked position first, the left pair skipped at position 0, heapify on each pop;
# lab 08's alive list one short, two candidates skipped on backing up, no last[0] for the empty pretoken, the valid
# tokens rebuilt at each end, every start tried, counts looked up one byte late, counts filled from the end.
# Kept: lab 03's one-worker count given no special tokens (`count_pretokens(text, [])`), under seeds 0 and 2 of 8: the
# visible test's one-worker case is not hidden, the hidden fixed cases had 2 or 3 workers and varied_file redrew 2 to 4,
# so only a generated file of one worker whose text holds its special token reached the serial count; a fixed hidden case
# of one worker now does, kept at one worker when varied, with a hint of its own. Three lost their points with no hint
# or another mistake's (HINTED_NOVEL49), now each with its own. The others lost them under every seed.
# (Tried and left out, the solution's output on every input the callers make: lab 05's merge_occurrences that reads the
# pair's list with get and leaves it in occurrences (its nodes are spent: each merged or stale for good, tokens only
# grow; the list costs memory until the pair recurs); lab 06's arena buffer and decoded bytes grown with += (CPython
# grows them nearly in place: 50,000 tokens of 1 to 10 bytes built in 0.096 s of CPU against join's 0.014 s, 50,000
# ids decoded in 0.103 s against 0.020 s, load 360: not the quadratic cost a measured check could tell under load; the
# decoded bytes are measured at 200,000 ids since walk55: LAB06_WALK55_GROWN).)
LAB03_NOVEL49 = {
    "find-seek-once-per-guess": ("task1_find_chunk_boundaries_solution", ((
        "            while position < size:\n                file.seek(position)\n",
        "            file.seek(position)  # the reads go on from there\n            while position < size:\n"),),
        "find_chunk_boundaries("),
    "find-found-filtered-by-truth": ("task1_find_chunk_boundaries_solution", ((
        "for t in split_tokens) if j != -1]", "for t in split_tokens) if j]"),), "find_chunk_boundaries("),
    "find-overlap-of-the-first-token": ("task1_find_chunk_boundaries_solution", ((
        "overlap = max(len(token) for token in split_tokens) - 1", "overlap = len(split_tokens[0]) - 1"),),
        "find_chunk_boundaries("),
    "merge-sum-of-dicts-from-a-counter": ("task3_merge_counts_solution", ((
        "    total: Counter[bytes] = Counter()\n    for chunk_counts in counts:\n        total.update(chunk_counts)\n"
        "    return dict(total)\n", "    return dict(sum(counts, Counter()))  # page 03's reduce\n"),), "merge_counts("),
    "serial-without-special-tokens": ("task4_count_pretokens_in_file_solution", ((
        '            return count_pretokens(file.read().decode("utf-8"), special_tokens)\n',
        '            return count_pretokens(file.read().decode("utf-8"), [])  # none to cut at\n'),),
        # its one-worker case; or, graded in a test process of some GB (forks of it cost the calling process's CPU
        # time), the measured count in 2 workers, which takes the solution's path (a CI run at load: 0.24 s, limit 0.23)
        ("with one worker the whole file is counted here", "the count ran here, not in the workers")),
    "file-pool-args-as-tuples": ("task4_count_pretokens_in_file_solution", ((
        "pool.map(count_chunk, [path] * len(starts), starts, ends, [special_tokens] * len(starts))",
        "pool.map(count_chunk, [(path, start, end, special_tokens) for start, end in zip(starts, ends)])"),),
        "count_pretokens_in_file("),
}
LAB05_NOVEL49 = {
    "pop-heapified-on-each-call": ("task2_pop_best_solution", ((
        "        entry = heapq.heappop(entries)\n",
        "        heapq.heapify(entries)  # a heap again, whatever train pushed\n        entry = heapq.heappop(entries)\n"),),
        "pop_best("),
    "merge-prev-relinked-at-a-word-end": ("task4_merge_occurrences_solution", ((
        "            prev[after] = node\n        token[node], token[follower] = merged, b\"\"\n",
        "        token[node], token[follower] = merged, b\"\"\n        prev[after] = node  # the node after the pair\n"),),
        "merge_occurrences("),
    "key-without-the-pair": ("task1_heap_entry_solution", ((
        "    return (-count, reversed_key(left), reversed_key(right), pair)\n",
        "    return (-count, reversed_key(left), reversed_key(right))  # the pair is in the keys\n"),),
        "its last item should be the pair"),
    "pop-count-looked-up-with-brackets": ("task2_pop_best_solution", ((
        "count = pair_counts.get(pair, 0)", "count = pair_counts[pair]"),), "a KeyError on pair_counts: a popped entry"),
    "train-pretokens-sorted": ("task3_train_solution", ((
        "    words = [split_into_bytes(pretoken) for pretoken in pretoken_counts]\n",
        "    words = [split_into_bytes(pretoken) for pretoken in sorted(pretoken_counts)]  # a fixed order\n"),), "train("),
    "train-pops-without-the-stale-check": ("task3_train_solution", ((
        "        pair, _ = pop_best(entries, pair_counts)\n", "        pair = heapq.heappop(entries)[-1]  # the best pair\n"),),
        "train("),
    "merge-left-loss-left-out": ("task4_merge_occurrences_solution", ((MERGE_LEFT_LOSS, ""),), "merge_occurrences("),
}
LAB06_NOVEL49 = {
    "decode-key-error": ("task5_decode_with_arena_solution", ((
        'raise ValueError(f"cannot decode', 'raise KeyError(f"cannot decode'),), "decode_with_arena("),
    "encode-word-of-ints": ("task2_encode_pretoken_solution", ((
        "    word = split_into_bytes(pretoken)\n", "    word = tuple(pretoken)  # its bytes\n"),), "encode_pretoken("),
    "pretokens-with-re": ("task3_encode_text_solution", ((
        "regex.findall(GPT2_PATTERN, piece)", "__import__('re').findall(GPT2_PATTERN, piece)"),), "encode_text("),
    "encode-text-appends-lists": ("task3_encode_text_solution", ((
        '            tokens += encode_pretoken(pretoken.encode("utf-8"), ranks)\n',
        '            tokens.append(encode_pretoken(pretoken.encode("utf-8"), ranks))\n'),), "list.append(items) adds the list"),
    "decode-ids-bounded-by-the-buffer": ("task5_decode_with_arena_solution", ((
        "if not 0 <= token_id < len(offsets) - 1", "if not 0 <= token_id < len(buffer)"),),
        "a ValueError though every id is a token"),
}
LAB07_NOVEL49 = {
    "merge-heapified-on-each-pop": ("task2_merge_all_solution", ((
        "        rank, start = heapq.heappop(heap)\n",
        "        heapq.heapify(heap)  # a heap again after the pushes\n        rank, start = heapq.heappop(heap)\n"),),
        "merge_all("),
    "first-entry-of-the-left-part": ("task1_first_heap_solution", ((
        "heap.append((rank, position))", "heap.append((rank, parts[position]))"),), "the second item of an entry is the position"),
    "merge-next-one-short": ("task2_merge_all_solution", ((
        "    next_ = list(range(1, end + 1))  # end: no next part\n", "    next_ = list(range(1, end))  # the next part of each\n"),),
        "merge_all("),
    "merge-prev-of-each-part-itself": ("task2_merge_all_solution", ((
        "    prev = list(range(-1, end - 1))  # -1: no previous part\n", "    prev = list(range(end))  # the previous part of each\n"),),
        "merge_all("),
    "merge-only-the-left-pair-pushed": ("task2_merge_all_solution", ((
        "            new = ranks.get((merged, parts[after]))\n            if new is not None:\n"
        "                heapq.heappush(heap, (new, start))\n", ""),), "the new pair on the right, (merged, next part), never"),
    "merge-left-part-not-replaced": ("task2_merge_all_solution", ((
        "parts[start], parts[right_start] = merged, None", "parts[right_start] = None"),), "merge_all("),
    "merge-entry-unpacked-position-first": ("task2_merge_all_solution", ((
        "rank, start = heapq.heappop(heap)", "start, rank = heapq.heappop(heap)"),), "merge_all("),
    "merge-left-pair-at-zero-skipped": ("task2_merge_all_solution", ((
        "        if before != -1:\n", "        if before > 0:\n"),),
        # which hint speaks depends on the smallest input the shrink reaches (in a full run the other once): both name it
        ("the new pair on the left, (previous part, merged), never", "`if before:` is false for before == 0")),
}
LAB08_NOVEL49 = {
    "backtrack-two-candidates-skipped": ("task2_backtrack_encode_solution", ((
        "stack.append((pos, candidates, index))", "stack.append((pos, candidates, index + 1))"),), "backtrack_encode("),
    "backtrack-alive-one-short": ("task2_backtrack_encode_solution", ((
        "    alive = [True] * (n + 1)", "    alive = [True] * n"),), "needs len(pretoken) + 1 entries"),
    "last-of-the-empty-pretoken-empty": ("task3_last_tokens_solution", ((
        "    valid = {bytes([byte]) for byte in pretoken}\n",
        "    if not pretoken:\n        return []  # nothing to encode\n    valid = {bytes([byte]) for byte in pretoken}\n"),),
        "last_tokens("),
    "last-valid-rebuilt-per-end": ("task3_last_tokens_solution", ((
        "    valid = {bytes([byte]) for byte in pretoken}\n"
        "    valid |= {left + right for left, right in ranks if encode_pretoken(left + right, ranks) == [left + right]}\n"
        "    longest = max(map(len, valid), default=1)\n    last: list[bytes | None] = [None]\n"
        "    for end in range(1, len(pretoken) + 1):\n",
        "    last: list[bytes | None] = [None]\n    for end in range(1, len(pretoken) + 1):\n"
        "        valid = {bytes([byte]) for byte in pretoken}  # the tokens that can end here\n"
        "        valid |= {left + right for left, right in ranks if encode_pretoken(left + right, ranks) == [left + right]}\n"
        "        longest = max(map(len, valid), default=1)\n"),), "last_tokens("),
    "last-every-start-tried": ("task3_last_tokens_solution", ((
        "range(max(0, end - longest), end)", "range(end)"),), "last_tokens("),
    "counts-prefix-one-byte-long": ("task4_prefix_token_counts_solution", ((
        "counts[end - len(last[end])] + 1", "counts[end - len(last[end]) + 1] + 1"),), "prefix_token_counts("),
    "counts-filled-from-the-end": ("task4_prefix_token_counts_solution", ((
        "    for end in range(1, len(last)):\n", "    for end in range(len(last) - 1, 0, -1):\n"),),
        "prefix_token_counts("),
}
NOVEL49_ROUND = {(lab, name): mistake for lab, table in (
    ("03_parallel", LAB03_NOVEL49), ("05_heap", LAB05_NOVEL49), ("06_encode_decode", LAB06_NOVEL49),
    ("07_heap_encoding", LAB07_NOVEL49), ("08_linear_encoding", LAB08_NOVEL49)) for name, mistake in table.items()}
# The three that lost their points before this round with no hint, or a hint for another mistake: lab 05's pop_best that
# looks a gone pair's count up with brackets (told to write counts.get(key, 0) + n for a new key), lab 06's bound
# checked against len(buffer) (a ValueError for an id that is a token, no hint), lab 08's alive list one entry short (an
# IndexError, no hint). Each now gets a hint of its own, under every seed.
HINTED_NOVEL49 = {("05_heap", "pop-count-looked-up-with-brackets"), ("06_encode_decode", "decode-ids-bounded-by-the-buffer"),
                  ("08_linear_encoding", "backtrack-alive-one-short")}
KEPT_BEFORE_NOVEL49 = {("03_parallel", "serial-without-special-tokens")}
CAUGHT_BEFORE_NOVEL49 = [key for key in NOVEL49_ROUND if key not in HINTED_NOVEL49 | KEPT_BEFORE_NOVEL49]


@pytest.mark.seeded
@pytest.mark.parametrize("lab, mistake", sorted(KEPT_BEFORE_NOVEL49),
                         ids=[f"{lab[:2]}-{name}" for lab, name in sorted(KEPT_BEFORE_NOVEL49)])
def test_lab03_a_nineteenth_rounds_mistake_that_kept_its_points_now_fails_the_hidden_test(request, lab, mistake):
    """Fails on main under a secret seed (seed 0: the hidden test's one-worker case became 2 to 4 workers there)."""
    round_failure(request, NOVEL49_ROUND, lab, mistake)


@pytest.mark.seeded
@pytest.mark.parametrize("lab, mistake", sorted(HINTED_NOVEL49), ids=[f"{lab[:2]}-{name}" for lab, name in sorted(HINTED_NOVEL49)])
def test_labs05_06_08_a_nineteenth_rounds_mistake_gets_a_hint_of_its_own(request, lab, mistake):
    """Fails on main, where each lost its points with no hint or another mistake's."""
    round_failure(request, NOVEL49_ROUND, lab, mistake)


@pytest.mark.parametrize("lab, mistake", [pytest.param(*key, id=f"{key[0][:2]}-{key[1]}") for key in CAUGHT_BEFORE_NOVEL49])
def test_labs03_05_to_08_a_learners_mistake_of_the_nineteenth_round_fails_the_hidden_test(request, lab, mistake):
    # those that lost their points before this round: one per lab by default (a hidden test each, up to seconds)
    one_per_lab("nineteenth", CAUGHT_BEFORE_NOVEL49, lab, mistake)
    round_failure(request, NOVEL49_ROUND, lab, mistake)


@WORKER_TWIN
def test_lab05_a_gone_pairs_count_looked_up_with_brackets_gets_its_hint_in_the_worker_too():
    """The KeyError crosses back from the grading worker by name: the same verdict and hint."""
    code = "\n".join(source_of("05_heap", cell) for cell in ("setup", "task1_heap_entry_solution", "task2_pop_best_solution"))
    (old, new), = LAB05_NOVEL49["pop-count-looked-up-with-brackets"][1]
    message = remote("05_heap", code.replace(old, new), "pop_best", "check_pop_best_properties")
    assert message is not None and "a KeyError on pair_counts: a popped entry" in message, message
    assert remote("05_heap", code, "pop_best", "check_pop_best_properties") is None


# ---- labs 07 and 09, walk49: the labs worked as a new learner and graded as an instructor would (issue 21's walk) ----
# Closed by this round: lab 07's merge_all whose stale check skips an entry only when the pair at its position now
# merges later (`ranks.get(pair, inf) > rank`), so that a pair of a LOWER rank than the popped entry is merged under it.
# With complete heaps that never happens (the lower rank's own entry pops first); on a heap that lacks the pair's entry
# and holds a junk entry of a later rank at its position, it merges a pair the heap has no entry for. The hidden test's
# heaps lack entries and hold junk, but seldom both at one position: it kept all 4 points. Task 2's hidden test now ends
# with three such heaps drawn from the secret seed (lab07_heap_encoding.verify_later_rank_entries). Hints added where a
# mistake of the round lost its points with none, or with one that named another mistake: lab 07's ranks negated (a
# max-heap), the left pair lost at position 0 (`if before:`), the heap's last entry never popped (`while len(heap) > 1`),
# prev[i] = i, a merge concatenated right + left, ranks renumbered in the dict's order (lab 06's hint for a dict changed
# in place named only answers kept by id); lab 09's quartiles at p * n, an exponent fitted over the longer half (and its
# ZeroDivisionError), the sizes not logged, a crossover interpolated away from x_(i+1).
LAB07_WALK49 = {
    "first-returns-what-heapify-returns": ("task1_first_heap_solution", ((
        "    heapq.heapify(heap)  # O(L), once\n    return heap\n",
        "    return heapq.heapify(heap)  # heapify the list and hand it back\n"),), "your function returned None"),
    "first-stops-at-the-first-non-merge": ("task1_first_heap_solution", ((
        "        if rank is not None:\n            heap.append((rank, position))\n",
        "        if rank is None:\n            break  # no more merges\n        heap.append((rank, position))\n"),),
        "an entry is missing"),
    "first-ranks-negated": ("task1_first_heap_solution", (("heap.append((rank, position))", "heap.append((-rank, position))"),),
                            "heapq is a min-heap"),
    "merge-left-neighbour-if-truthy": ("task2_merge_all_solution", (("        if before != -1:\n", "        if before:\n"),),
                                       "`if before:` is false"),
    "merge-last-entry-left-in-the-heap": ("task2_merge_all_solution", (("    while heap:\n", "    while len(heap) > 1:\n"),),
                                          "the heap's last entry was never popped"),
    "merge-stale-only-when-the-rank-grew": ("task2_merge_all_solution", ((
        "        if right_start == end or ranks.get((left, parts[right_start])) != rank:\n",
        "        if right_start == end or ranks.get((left, parts[right_start]), float('inf')) > rank:\n"),),
        "a lower rank too"),
    "merge-prev-initialised-to-itself": ("task2_merge_all_solution", ((
        "    prev = list(range(-1, end - 1))", "    prev = list(range(end))"),), "prev[i] = i - 1"),
    "merge-right-pair-of-the-old-right": ("task2_merge_all_solution", (
        ("            new = ranks.get((merged, parts[after]))\n", "            new = ranks.get((right, parts[after]))\n"),
        ("        merged = left + parts[right_start]\n", "        right = parts[right_start]\n        merged = left + right\n")),
        "the new pair on the right, (merged, next part), never merged"),
    "merge-concatenated-backwards": ("task2_merge_all_solution", ((
        "        merged = left + parts[right_start]\n", "        merged = parts[right_start] + left\n"),), "left + right"),
    "encode-ranks-sorted-by-pair": ("task3_heap_encode_solution", (("    parts = list(split_into_bytes(pretoken))\n",
        "    parts = list(split_into_bytes(pretoken))\n    ranks = {pair: rank for rank, pair in enumerate(sorted(ranks))}\n"),),
        "heap_encode("),
    "encode-ranks-renumbered-in-dict-order": ("task3_heap_encode_solution", (("    parts = list(split_into_bytes(pretoken))\n",
        "    parts = list(split_into_bytes(pretoken))\n"
        "    ranks = {pair: rank for rank, pair in enumerate(ranks)}  # 0 for the first merge\n"),),
        "place in the dict"),
}
LAB09_WALK49 = {
    "rotation-modulo-rounds": ("task1_interleaved_solution", (("        first = r % len(labels)\n", "        first = r % rounds\n"),),
                               "round r starts with the contender at position r % n"),
    "times-filed-by-position-in-the-round": ("task1_interleaved_solution", (
        ("        for label in labels[first:] + labels[:first]:\n",
         "        for i, label in enumerate(labels[first:] + labels[:first]):\n"),
        ("                times[label].append(clock() - start)\n", "                times[labels[i]].append(clock() - start)\n")),
        "keep the difference for that contender"),
    "spread-quartiles-of-the-unsorted-runs": ("task2_spread_solution", ((
        '    q1, _, q3 = statistics.quantiles(values, n=4, method="inclusive")\n',
        "    def quartile(p):\n        position = p * (len(values) - 1)\n        low = int(position)\n"
        "        high = min(low + 1, len(values) - 1)\n        return values[low] + (position - low) * (values[high] - values[low])\n"
        "    q1, q3 = quartile(0.25), quartile(0.75)  # values in round order, not sorted\n"),), "sort the values first"),
    "spread-quartiles-at-p-times-n": ("task2_spread_solution", ((
        '    q1, _, q3 = statistics.quantiles(values, n=4, method="inclusive")\n',
        "    ordered = sorted(values)\n\n    def quartile(p):\n        position = p * len(ordered)\n"
        "        low = min(int(position), len(ordered) - 1)\n        high = min(low + 1, len(ordered) - 1)\n"
        "        return ordered[low] + (position - low) * (ordered[high] - ordered[low])\n"
        "    q1, q3 = quartile(0.25), quartile(0.75)\n"),), "at position p * n"),
    "ratio-of-the-first-two-labels": ("task3_paired_ratio_solution", ((
        "    return statistics.median([x / y for x, y in zip(times[a], times[b])])\n",
        "    first, second = times.values()  # a's runs, then b's\n"
        "    return statistics.median([x / y for x, y in zip(first, second)])\n"),), "by their labels"),
    "exponent-over-the-longer-half": ("task4_fit_exponent_solution", ((
        "    xs = [math.log(s) for s in sizes]\n    ys = [math.log(t) for t in seconds]\n",
        "    half = len(sizes) // 2  # the longer half, where the growth dominates (page 09)\n"
        "    xs = [math.log(s) for s in sizes[half:]]\n    ys = [math.log(t) for t in seconds[half:]]\n"),),
        "over all the points"),
    "exponent-sizes-not-logged": ("task4_fit_exponent_solution", ((
        "    xs = [math.log(s) for s in sizes]\n", "    xs = list(sizes)\n"),), "log the sizes too"),
    "exponent-correlation-not-slope": ("task4_fit_exponent_solution", ((
        "    return sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys)) / sxx\n",
        "    return statistics.correlation(xs, ys)  # how well time follows size on the log-log scale\n"),),
        ("not the line's slope", "is not the slope")),
    "crossover-x-after-the-sign-change": ("task5_crossover_solution", ((
        "            return xs[i] + (xs[i + 1] - xs[i]) * d[i] / (d[i] - d[i + 1])\n",
        "            return float(xs[i + 1])  # the first x past the crossing\n"),), "that is a measured x"),
    "crossover-denominator-flipped": ("task5_crossover_solution", (("d[i] / (d[i] - d[i + 1])", "d[i] / (d[i + 1] - d[i])"),),
                                      "outside the two points"),
    "peak-fn-called-twice": ("task6_peak_memory_solution", (("    return result, peak - before\n",
        "    return fn(), peak - before  # the result, and the peak measured above\n"),), "called fn 2 times"),
    "peak-of-the-start-read-before-the-reset": ("task6_peak_memory_solution", (
        ("    was_tracing = tracemalloc.is_tracing()\n",
         "    before = tracemalloc.get_traced_memory()[1]\n    was_tracing = tracemalloc.is_tracing()\n"),
        ("        before = tracemalloc.get_traced_memory()[0]\n", "")), "peak (64 KiB units)"),
}
WALK49_ROUND = {(lab, name): mistake for lab, table in (("07_heap_encoding", LAB07_WALK49), ("09_benchmarks", LAB09_WALK49))
                for name, mistake in table.items()}
# Kept its points before the round, or lost them with no hint or one that named another mistake (the round's fixes):
# each fails on main (the kept one in its hidden test, the others by the message they expect).
FIXED_BY_WALK49 = {("07_heap_encoding", name) for name in (
    "merge-stale-only-when-the-rank-grew", "first-ranks-negated", "merge-left-neighbour-if-truthy",
    "merge-last-entry-left-in-the-heap", "merge-prev-initialised-to-itself", "merge-concatenated-backwards",
    "encode-ranks-renumbered-in-dict-order")} | {("09_benchmarks", name) for name in (
    "spread-quartiles-at-p-times-n", "exponent-over-the-longer-half", "exponent-sizes-not-logged",
    "crossover-denominator-flipped", "exponent-correlation-not-slope", "ratio-of-the-first-two-labels")}
CAUGHT_BEFORE_WALK49 = [key for key in WALK49_ROUND if key not in FIXED_BY_WALK49]


@pytest.mark.seeded
@pytest.mark.parametrize("lab, mistake", sorted(FIXED_BY_WALK49), ids=[f"{lab[:2]}-{name}" for lab, name in sorted(FIXED_BY_WALK49)])
def test_labs07_09_walk49_a_mistake_the_round_fixed_fails_the_hidden_test_with_its_hint(request, lab, mistake):
    round_failure(request, WALK49_ROUND, lab, mistake)


@pytest.mark.parametrize("lab, mistake", [pytest.param(*key, id=f"{key[0][:2]}-{key[1]}") for key in CAUGHT_BEFORE_WALK49])
def test_labs07_09_walk49_a_learners_mistake_of_the_round_fails_the_hidden_test(request, lab, mistake):
    # those that lost their points, with a fitting message, before this round: one per lab by default
    one_per_lab("walk49", CAUGHT_BEFORE_WALK49, lab, mistake)
    round_failure(request, WALK49_ROUND, lab, mistake)


def test_lab07_walk49_a_stale_check_of_later_ranks_only_fails_in_the_worker_too():
    """The drawn heaps that lack a pair's entry and hold a later rank's junk entry at its position reach the grading
    worker as they are: task 2 loses its hidden points there too, with the hint; the course's loop keeps them."""
    code = "\n".join(source_of("07_heap_encoding", cell) for cell in ("setup", "task1_first_heap_solution",
                                                                      "task2_merge_all_solution"))
    (old, new), = LAB07_WALK49["merge-stale-only-when-the-rank-grew"][1]
    message = remote("07_heap_encoding", code.replace(old, new), "merge_all", "check_merge_all_properties")
    assert message is not None and "a lower rank too" in message, message
    assert remote("07_heap_encoding", code, "merge_all", "check_merge_all_properties") is None


def task1_notebook(changes: tuple = ()) -> list[dict]:
    """Lab 03's source notebook up to task 1's hidden test (the later tasks, whose pools cost most of its grading, cut),
    task 1's solution with each (old, new) of ``changes`` made."""
    cells = read_notebook_json(source_notebook("03_parallel"))["cells"]
    cells = cells[: next(i for i, cell in enumerate(cells) if cell["id"] == "task1_find_chunk_boundaries_hidden") + 1]
    solution = next(cell for cell in cells if cell["id"] == "task1_find_chunk_boundaries_solution")
    for old, new in changes:
        assert old in solution["source"], old
        solution["source"] = solution["source"].replace(old, new, 1)
    return cells


@pytest.mark.parametrize("mistake", sorted(FIXED_SIZE_READS))
def test_labs03_learner48_a_search_in_reads_of_its_own_size_loses_task_1_in_a_class(monkeypatch, mistake):
    """The class path of learner48's fixed-size search (verify49): graded as ``nbgrader autograde`` grades a class
    (``grade_cells`` in a grading worker, the class's seed, the hidden inputs drawn for the honest notebook graded first,
    kept and replayed for the mistake), it loses task 1's visible and hidden points with its hint, as by a self-grade.
    (Fails on be2047a^, before the straddling files: the class gave it 14 / 14.) One of the two a run (sampling)."""
    from bpe_ref.course.checks import running
    from bpe_ref.course.trusted.autograde import grade_cells

    skip_unless_drawn("lab 03 task 1's fixed-size search, graded in a class", mistake, sorted(FIXED_SIZE_READS))
    monkeypatch.setattr(running, "_KEPT", {"seed": None, "tests": {}})
    policy = Policy(cell_timeout=30, call_timeout=30)
    class_seed = 20261202
    honest = grade_cells(task1_notebook(), "03_parallel", policy=policy, seed=class_seed, whole_class=True)
    assert [(v.grade_id, v.passed) for v in honest.verdicts] == [("task1_find_chunk_boundaries", True),
                                                                 ("task1_find_chunk_boundaries_hidden", True)], honest.verdicts
    assert running._KEPT["seed"] == class_seed and running._KEPT["tests"]  # the hidden inputs kept for the class
    mistaken = grade_cells(task1_notebook(FIXED_SIZE_READS[mistake]), "03_parallel", policy=policy, seed=class_seed,
                           whole_class=True)
    lost = {v.grade_id: v.message for v in mistaken.verdicts if not v.passed}
    assert sorted(lost) == ["task1_find_chunk_boundaries", "task1_find_chunk_boundaries_hidden"], mistaken.verdicts
    assert mistaken.earned == 0
    for message in lost.values():
        assert "read buffer_size bytes at a time (16 here: the argument, not a size of your own)" in message, message


# ---- labs 10 and 01, walk50b: the labs worked as a new learner and graded as an instructor would (issue 21's walk) ----
# Each mistake was graded by self-grade (python -m bpe_ref grade) and as a class (nbgrader autograde, then grade --class):
# every one lost its points in its own task, the same way in both. Closed by this round: lab 10's plan_ranges that takes
# a file's size as text mode reads it (len(open(path).read()), characters after newline translation) lost its hidden
# points only where the generated files without special tokens held a character of several bytes or a \r\n, and then
# with the hint of a range that ends one byte early; a fixed hidden case now holds both, and the hint names text mode.
# Hints added where a mistake lost its points with none, or with one that named another mistake: lab 10's merge_two over
# the keys' intersection, or adding 1 per key; plan_ranges asking find_chunk_boundaries for one range more; count_ranges
# that computes the graph (.compute()) before returning it, that makes the whole count one task, or that calls the tasks
# with keyword arguments (told "merge_two ran here"); lab 01's count_pairs that leaves out the pairs seen once, or
# returns its items sorted; best_pair that returns the item (pair, count); merge_word that compares a list with the pair
# (told that tokens are compared with `is`), or returns () for a word of one token; train that stops with a bare
# `return`, or splits its pretokens stripped or lowercased.
LAB10_WALK50B = {
    "range-file-cached-by-path": ("task1_count_range_solution", (
        ("    with open(path, \"rb\") as file:\n        file.seek(start)\n        data = file.read(end - start)\n",
         "    if path not in FILES:  # a worker counts many ranges of one file: read it once\n"
         "        with open(path, \"rb\") as file:\n            FILES[path] = file.read()\n    data = FILES[path][start:end]\n"),
        ("def count_range(", "FILES = {}\n\n\ndef count_range(")), "reading the whole file and slicing it", "verify_range_reads"),
    "range-read-to-the-end": ("task1_count_range_solution", (("        data = file.read(end - start)\n",
                                                              "        data = file.read()  # from start on\n"),),
                              "more pretokens than in the chunk"),
    "range-decoded-ignoring-errors": ("task1_count_range_solution", (('data.decode("utf-8")',
                                                                      'data.decode("utf-8", errors="ignore")'),),
                                      "errors='ignore'"),
    "merge-keys-of-both-intersected": ("task2_merge_two_solution", ((
        "    if len(left) < len(right):\n        left, right = right, left\n    total = dict(left)\n"
        "    for pretoken, count in right.items():\n        total[pretoken] = total.get(pretoken, 0) + count\n    return total\n",
        "    return {key: left.get(key, 0) + right.get(key, 0) for key in left.keys() & right.keys()}\n"),),
        "the keys' intersection"),
    "merge-adds-one-per-key": ("task2_merge_two_solution", (("total[pretoken] = total.get(pretoken, 0) + count",
                                                             "total[pretoken] = total.get(pretoken, 0) + 1"),),
                               "adds 1 to the sum, not its count"),
    "tree-by-a-queue": ("task3_tree_reduce_solution", ((
        "    level = list(parts)\n    while len(level) > 1:\n" + PAIRED + "        level = paired\n    return level[0]\n",
        "    from collections import deque\n\n    queue = deque(parts)\n    while len(queue) > 1:\n"
        "        left = queue.popleft()\n        right = queue.popleft()\n        queue.append(combine(left, right))\n"
        "    return queue[0]\n"),), "out of order", tree_shape_hidden),
    "tree-paired-from-the-right": ("task3_tree_reduce_solution", ((PAIRED,
        "        paired = [combine(level[i - 1], level[i]) for i in range(len(level) - 1, 0, -2)][::-1]\n"
        "        if len(level) % 2:\n            paired.insert(0, level[0])\n"),), "the right depth but another tree",
        tree_shape_hidden),
    "plan-size-in-characters": ("task4_plan_ranges_solution", ((
        "            boundaries = [0, os.path.getsize(path)]\n",
        "            with open(path) as file:\n                boundaries = [0, len(file.read())]\n"),),
        "as a file opened in text mode reads it"),
    "plan-a-generator": ("task4_plan_ranges_solution", ((
        "        ranges += [(path, start, end) for start, end in zip(boundaries, boundaries[1:]) if end > start]\n"
        "    return ranges\n",
        "        for start, end in zip(boundaries, boundaries[1:]):\n            if end > start:\n"
        "                yield (path, start, end)\n"),), ("a builtins.generator", "which its caller can read once")),
    "plan-boundaries-one-more": ("task4_plan_ranges_solution", ((
        "find_chunk_boundaries(path, ranges_per_file, split_tokens)",
        "find_chunk_boundaries(path, ranges_per_file + 1, split_tokens)  # n ranges need n + 1 boundaries"),),
        "ranges_per_file + 1 boundaries, that is ranges_per_file ranges"),
    "count-graph-computed-before-returning": ("task5_count_ranges_solution", ((
        "    return tree_reduce(parts, task(merge_two)) if parts else {}\n",
        "    if not parts:\n        return {}\n    total = tree_reduce(parts, task(merge_two))\n"
        "    return total.compute() if as_task else total  # the counts, from the cluster\n"),),
        "returns the graph as it is, not its result", task_graph_hidden),
    "count-the-whole-count-as-one-task": ("task5_count_ranges_solution", ((
        "    task = as_task or (lambda function: function)\n",
        "    if as_task is not None:  # the whole count, one task on the cluster\n"
        "        return as_task(count_ranges)(ranges, special_tokens)\n    task = lambda function: function\n"),),
        "the graph ends in one task, count_ranges(...)", task_graph_hidden),
    "count-tasks-called-with-keywords": ("task5_count_ranges_solution", ((
        "task(count_range)(path, start, end, special_tokens)",
        "task(count_range)(path=path, start=start, end=end, special_tokens=special_tokens)"),),
        "a task called with keyword arguments", task_graph_hidden),
}
LAB01_WALK50B = {
    "count-rare-pairs-pruned": ("task1_count_pairs_solution", ((
        "    return dict(counts)\n",
        "    return {pair: count for pair, count in counts.items() if count > 1}  # a pair seen once never merges\n"),),
        "the pairs seen once are left out"),
    "count-sorted-most-common-first": ("task1_count_pairs_solution", ((
        "    return dict(counts)\n", "    return sorted(counts.items(), key=lambda item: item[1], reverse=True)\n"),),
        "a list of (pair, count) items"),
    "best-returns-the-item": ("task2_best_pair_solution", ((
        "    return max(pair_counts, key=lambda pair: (pair_counts[pair], pair))\n",
        "    return max(pair_counts.items(), key=lambda item: (item[1], item[0]))\n"),), "an item (pair, count)"),
    "best-ties-to-the-greatest-reversed-pair": ("task2_best_pair_solution", ((
        "(pair_counts[pair], pair)", "(pair_counts[pair], pair[::-1])"),), "compare the left tokens as bytes first"),
    "merge-window-compared-as-a-list": ("task3_merge_word_solution", ((
        "        if i + 1 < len(word) and word[i] == pair[0] and word[i + 1] == pair[1]:\n",
        "        if list(word[i:i + 2]) == pair:\n"),), "A list is never equal to a tuple"),
    "merge-short-word-returns-empty": ("task3_merge_word_solution", ((
        "    merged = []\n", "    if len(word) < 2:\n        return ()  # nothing to merge\n    merged = []\n"),),
        "return it as it is, not ()"),
    "train-pretokens-stripped": ("task4_train_solution", (("split_into_bytes(pretoken)", "split_into_bytes(pretoken.strip())"),),
                                 "the merges of the pretokens stripped"),
    "train-pretokens-lowercased": ("task4_train_solution", (("split_into_bytes(pretoken)",
                                                             "split_into_bytes(pretoken.lower())"),),
                                   "the merges of the pretokens lowercased"),
    "train-stop-returns-none": ("task4_train_solution", (("        if not pair_counts:\n            break\n",
                                                          "        if not pair_counts:\n            return\n"),),
                                "a bare `return` returns None"),
    "train-returns-a-tuple": ("task4_train_solution", (("    return merges\n", "    return tuple(merges)\n"),),
                              "expected a list, got a tuple"),
}
WALK50B_ROUND = {(lab, name): mistake for lab, table in (("10_distributed", LAB10_WALK50B), ("01_naive_bpe", LAB01_WALK50B))
                 for name, mistake in table.items()}
# Kept its points before the round under some seeds (plan-size-in-characters), or lost them with no hint or one that
# named another mistake (the round's fixes): each fails on main, by the message it expects.
FIXED_BY_WALK50B = {("10_distributed", name) for name in (
    "merge-keys-of-both-intersected", "merge-adds-one-per-key", "plan-size-in-characters", "plan-boundaries-one-more",
    "count-graph-computed-before-returning", "count-the-whole-count-as-one-task", "count-tasks-called-with-keywords")} | {
    ("01_naive_bpe", name) for name in (
        "count-rare-pairs-pruned", "count-sorted-most-common-first", "best-returns-the-item", "merge-window-compared-as-a-list",
        "merge-short-word-returns-empty", "train-pretokens-stripped", "train-pretokens-lowercased", "train-stop-returns-none")}
CAUGHT_BEFORE_WALK50B = [key for key in WALK50B_ROUND if key not in FIXED_BY_WALK50B]


@pytest.mark.seeded
@pytest.mark.parametrize("lab, mistake", sorted(FIXED_BY_WALK50B), ids=[f"{lab[:2]}-{name}" for lab, name in sorted(FIXED_BY_WALK50B)])
def test_labs10_01_walk50b_a_mistake_the_round_fixed_fails_the_hidden_test_with_its_hint(request, lab, mistake):
    round_failure(request, WALK50B_ROUND, lab, mistake)


@pytest.mark.parametrize("lab, mistake", [pytest.param(*key, id=f"{key[0][:2]}-{key[1]}") for key in CAUGHT_BEFORE_WALK50B])
def test_labs10_01_walk50b_a_learners_mistake_of_the_round_fails_the_hidden_test(request, lab, mistake):
    # those that lost their points, with a fitting message, before this round: one per lab by default
    one_per_lab("walk50b", CAUGHT_BEFORE_WALK50B, lab, mistake)
    round_failure(request, WALK50B_ROUND, lab, mistake)


# Honest ways of writing a task that the statement does not show: each keeps its hidden points (a grader that asked for
# the course's way would take them). Lab 10's tree as the stride-doubling reduction of a GPU (the same tree), a merge
# task made in a lambda. (Lab 01's merge in place, tokens[i:i + 2] = [...], once here, is a mistake of cost: LAB01_WALK60.)
HONEST_WALK50B = {
    ("10_distributed", "tree-stride-doubling-in-place"): ("task3_tree_reduce_solution", ((
        "    level = list(parts)\n    while len(level) > 1:\n" + PAIRED + "        level = paired\n    return level[0]\n",
        "    level = list(parts)\n    step = 1\n    while step < len(level):\n"
        "        for i in range(0, len(level) - step, 2 * step):\n            level[i] = combine(level[i], level[i + step])\n"
        "        step *= 2\n    return level[0]\n"),), tree_shape_hidden),
    ("10_distributed", "count-merge-tasks-made-in-a-lambda"): ("task5_count_ranges_solution", ((
        REDUCE_TASKS, "tree_reduce(parts, lambda left, right: task(merge_two)(left, right))"),), task_graph_hidden),
}


@pytest.mark.seeded
@pytest.mark.parametrize("lab, way", sorted(HONEST_WALK50B), ids=[f"{lab[:2]}-{name}" for lab, name in sorted(HONEST_WALK50B)])
def test_labs10_01_walk50b_an_honest_way_the_statement_does_not_show_keeps_its_hidden_points(request, lab, way):
    graders, solutions = request.getfixturevalue(f"lab{lab[:2]}")
    cell, changes, grader = HONEST_WALK50B[lab, way]
    name = cell.split("_", 1)[1].removesuffix("_solution")
    honest = variant_of(lab, solutions, cell, name, changes)
    if grader is None:
        getattr(graders, f"check_{name}_properties")(honest)
    else:
        grader(graders, honest)


def test_lab01_walk50b_best_pair_as_the_greatest_pair_fails_the_visible_test_with_its_hint(lab01):
    """best_pair = max(pair_counts), the greatest pair whatever its count, passed every visible case of task 2 (each one's
    answer was its greatest pair): the walk's dishonest round found it behind a rebound builtins.max. A visible case now
    has its highest count on the smaller pair; the hidden test caught it before, and its hint now names it too."""
    graders, solutions = lab01
    mistake = variant("01_naive_bpe", solutions, "task2_best_pair_solution", "best_pair",
                      "max(pair_counts, key=lambda pair: (pair_counts[pair], pair))", "max(pair_counts)")
    for grader in (graders.check_best_pair, graders.check_best_pair_properties):
        assert "max(pair_counts) compares the pairs alone" in failure(grader, mistake)
    graders.check_best_pair(solutions["best_pair"])


def test_lab10_walk50b_the_rounds_mistakes_lose_their_tasks_in_a_class_with_their_hints(lab10, monkeypatch):
    """The class path of three of the round's fixes (graded as ``nbgrader autograde`` grades a class: ``grade_cells`` in a
    grading worker, the class's seed, the hidden inputs drawn for the honest notebook graded first and replayed): one
    notebook holds merge_two adding 1 per key, plan_ranges asking for one range more, and count_ranges made one task;
    each loses its own task's visible and hidden points with its hint, the count of task 5 (right) keeps its hidden point,
    and the honest notebook keeps all. (Before the round: the same points lost, with no hint or "expected a str".)"""
    from bpe_ref.course.checks import running
    from bpe_ref.course.trusted.autograde import grade_cells

    def notebook(mistakes: tuple = ()) -> list[dict]:
        cells = read_notebook_json(source_notebook("10_distributed"))["cells"]
        for name in mistakes:
            cell_id, changes, *_ = LAB10_WALK50B[name]
            cell = next(cell for cell in cells if cell["id"] == cell_id)
            for old, new in changes:
                assert old in cell["source"], old
                cell["source"] = cell["source"].replace(old, new, 1)
        return cells

    monkeypatch.setattr(running, "_KEPT", {"seed": None, "tests": {}})
    policy, class_seed = Policy(cell_timeout=30, call_timeout=30), 20261202
    honest = grade_cells(notebook(), "10_distributed", policy=policy, seed=class_seed, whole_class=True)
    assert all(v.passed for v in honest.verdicts), [v for v in honest.verdicts if not v.passed]
    mistaken = grade_cells(notebook(("merge-adds-one-per-key", "plan-boundaries-one-more", "count-the-whole-count-as-one-task")),
                           "10_distributed", policy=policy, seed=class_seed, whole_class=True)
    lost = {v.grade_id: v.message for v in mistaken.verdicts if not v.passed}
    hints = {"task2_merge_two": "adds 1 to the sum, not its count",
             "task4_plan_ranges": "ranges_per_file + 1 boundaries, that is ranges_per_file ranges",
             "task5_count_ranges": "the graph ends in one task, count_ranges(...)",
             "task5_as_task": "the graph ends in one task, count_ranges(...)"}
    assert sorted(lost) == ["task2_merge_two", "task2_merge_two_hidden", "task4_plan_ranges", "task4_plan_ranges_hidden",
                            "task5_as_task_hidden", "task5_count_ranges"], mistaken.verdicts
    for grade_id, message in lost.items():
        assert hints[grade_id.removesuffix("_hidden")] in message, (grade_id, message)


# ---- lab 07, hog50: two mistakes of task 2 that lost their points with another mistake's hint ------------------------
# An entry unpacked position first (`start, rank = heapq.heappop(heap)`, novel49) lost its points with lab 06's "keep
# merging" hint; prev[i] = i (walk49) with `if before:`'s hint first and its own only "or else" after it (on "xabab",
# both give the same tokens). Each now gets its own hint alone, under every seed: a variant of the pop loop for the
# first, a hidden case of a left pair at an unlinked position 1 for the second.
LAB07_HOG50 = {
    "merge-entry-unpacked-position-first": (LAB07_NOVEL49["merge-entry-unpacked-position-first"][:2],
                                            "an entry was unpacked position first"),
    "merge-prev-initialised-to-itself": (LAB07_WALK49["merge-prev-initialised-to-itself"][:2], "prev[i] = i - 1"),
}
OTHER_MISTAKES_HINTS = ("keep merging", "`if before:`", "never merged: push it", "or else")


@pytest.mark.seeded
@pytest.mark.parametrize("mistake", sorted(LAB07_HOG50))
def test_lab07_hog50_a_pop_loop_mistake_gets_its_own_hint_alone(request, mistake):
    """Fails before hog50's hint and case: the unpacking got "keep merging", prev[i] = i "`if before:` ... (or else"."""
    (cell, changes), message = LAB07_HOG50[mistake]
    found = round_failure(request, {("07_heap_encoding", mistake): (cell, changes, message)}, "07_heap_encoding", mistake)
    assert not any(other in found for other in OTHER_MISTAKES_HINTS), found


# ---- labs 00, 03, 06, 08 and 09, novel50: a twentieth learner round (issue 21, item 8) -------------------------------
# Kinds the earlier rounds left out, each graded by its task's hidden test under secret seeds 0 to 7 (BPE_SEEDS=0:8) and
# the derandomized draw: lab 00's base tokens as bytes, characters below 256 as one byte (Latin-1's idea of UTF-8), no
# piece when there are no special tokens, regex.split for findall, each pretoken once per piece, the piece after the last
# special token dropped, `counts[key] =+ 1`; lab 03's overlap of the first listed token and `if j` (the brief's), the
# tokens encoded again, no boundary for an empty file, a BOM dropped by utf-8-sig, counts added into the first chunk's
# dict, the last range dropped, the start method ignored, chunks_per_worker ignored; lab 06's ranks numbered as token ids
# (from 256), a merge popped from the caller's ranks once applied, a special token encoded
# again as text (no continue), a str pretoken, a buffer made by sum(pieces, b""), a slice's end taken as a length,
# offsets indexed one on, the pieces returned unjoined; lab 08's pair joined right first, the encoding returned for a
# bool, the window not counted from pos, the valid tokens in a list (measured), last as a tuple, counts by recursion,
# counts in a dict; lab 09's caller's dict rotated in place, the coefficient of variation, the median of the
# differences, the intercept, the caller's points sorted in place, NaN for no crossing, 'before' read after the call,
# the peak read before the reset (the brief's).
# (Tried and left out, the solution's output at the same bound on every input: lab 08's candidates tried shortest first
# in backtrack_encode and in last_tokens, and last_tokens without its break: the valid token ending at each end that is
# compatible with the one before is unique (page 08), so the order of the candidates and the break change no answer;
# lab 06's merges kept as lists by merge_ranks (the statement's merges are tuples, no case passes lists). Found and not
# fixed here: lab 06's encode_pretoken that sorts the ranks at each step to find the first merge learned among the pairs
# (the right tokens at O(M log M) a step): a measured check on 40,000 merges was tried and left out, its margin too thin
# in the grading worker (0.46 s against a bound of 0.45 s under seed 0: the reference's cost includes a copy of the
# ranks); fix51a's check (500 short pretokens, one ranks dict) takes its points since (section fix51a below); and
# backtrack_encode without its alive bitfield (dead ends not remembered) keeps its points: fix51a showed why no input
# can tell it (section fix51a).)
LAB00_NOVEL50 = {
    "utf8-base-tokens-as-bytes": ("task1_utf8_bytes_solution", ((
        '    return list(text.encode("utf-8"))\n',
        '    return [bytes([byte]) for byte in text.encode("utf-8")]  # the base tokens\n'),), "utf8_bytes("),
    "utf8-one-byte-below-256": ("task1_utf8_bytes_solution", ((
        '    return list(text.encode("utf-8"))\n',
        "    out = []\n    for character in text:  # a character below 256 fits in one byte\n"
        '        out += [ord(character)] if ord(character) < 256 else list(character.encode("utf-8"))\n'
        "    return out\n"),), "utf8_bytes("),
    "split-no-tokens-no-pieces": ("task2_split_on_special_tokens_solution", ((
        "        return [text]\n", "        return []  # nothing to split at\n"),), "nothing to cut at"),
    "pretokenize-split-by-the-pattern": ("task3_pretokenize_solution", ((
        "regex.findall(GPT2_PATTERN, piece)", "regex.split(GPT2_PATTERN, piece)"),), "the strings between the pattern's matches"),
    "pretokenize-unique-per-piece": ("task3_pretokenize_solution", ((
        "pretokens.extend(regex.findall(GPT2_PATTERN, piece))",
        "pretokens.extend(dict.fromkeys(regex.findall(GPT2_PATTERN, piece)))  # each pretoken once, in order"),),
        "pretokenize("),
    "pretokenize-last-piece-dropped": ("task3_pretokenize_solution", ((
        "for piece in split_on_special_tokens(text, special_tokens):",
        "for piece in split_on_special_tokens(text, special_tokens)[:-1] or [text]:  # a document ends at its token"),),
        "pretokenize("),
    "count-assigned-plus-one": ("task4_count_pretokens_solution", ((
        "        counts[key] = counts.get(key, 0) + 1\n", "        counts.setdefault(key, 0)\n        counts[key] =+ 1\n"),),
        "count_pretokens("),
}
LAB03_NOVEL50 = {
    "find-overlap-from-the-first-token": ("task1_find_chunk_boundaries_solution", ((
        "overlap = max(len(token) for token in split_tokens) - 1", "overlap = len(split_tokens[0]) - 1  # the token's length"),),
        "the first listed token's length less one"),
    "find-found-filtered-by-if-j": ("task1_find_chunk_boundaries_solution", ((
        "for t in split_tokens) if j != -1]", "for t in split_tokens) if j]  # -1: not found"),), "which `if j` drops"),
    "find-tokens-encoded-again": ("task1_find_chunk_boundaries_solution", ((
        "window.find(t, 0,", "window.find(t.encode('utf-8'), 0,"),), "find_chunk_boundaries("),
    "find-empty-file-no-boundaries": ("task1_find_chunk_boundaries_solution", ((
        "        chunk_size = size // desired_num_chunks\n",
        "        if size == 0:\n            return []  # nothing to cut\n        chunk_size = size // desired_num_chunks\n"),),
        "an empty file: its start and its size are both 0"),
    "chunk-decoded-as-utf-8-sig": ("task2_count_chunk_solution", ((
        'data.decode("utf-8")', 'data.decode("utf-8-sig")'),), "count_chunk("),
    "merge-adds-into-the-first-chunk": ("task3_merge_counts_solution", ((
        "    total: Counter[bytes] = Counter()\n    for chunk_counts in counts:\n        total.update(chunk_counts)\n"
        "    return dict(total)\n",
        "    total = None\n    for chunk_counts in counts:\n        if total is None:\n"
        "            total = chunk_counts  # the first chunk's counts, added to in place\n            continue\n"
        "        for key, count in chunk_counts.items():\n            total[key] = total.get(key, 0) + count\n"
        "    return {} if total is None else total\n"),), "merge_counts("),
    "file-last-range-dropped": ("task4_count_pretokens_in_file_solution", ((
        "starts, ends = boundaries[:-1], boundaries[1:]", "starts, ends = boundaries[:-2], boundaries[1:-1]"),),
        "count_pretokens_in_file("),
    "file-start-method-ignored": ("task4_count_pretokens_in_file_solution", ((
        "multiprocessing.get_context(start_method)", "multiprocessing.get_context()"),), "count_pretokens_in_file("),
    "file-chunks-per-worker-ignored": ("task4_count_pretokens_in_file_solution", ((
        "find_chunk_boundaries(path, num_workers * chunks_per_worker,", "find_chunk_boundaries(path, num_workers,"),),
        "count_pretokens_in_file("),
}
LAB06_NOVEL50 = {
    "ranks-as-token-ids": ("task1_merge_ranks_solution", ((
        "enumerate(merges)", "enumerate(merges, 256)"),), "merge_ranks("),
    "encode-spent-merges-popped": ("task2_encode_pretoken_solution", ((
        "        word = merge_word(word, best)\n", "        word = merge_word(word, best)\n        ranks.pop(best)  # spent\n"),),
        "changed its argument ranks"),
    "encode-text-special-token-without-continue": ("task3_encode_text_solution", ((
        "            tokens.append(piece.encode(\"utf-8\"))\n            continue\n",
        "            tokens.append(piece.encode(\"utf-8\"))\n"),), "each special token is there twice"),
    "encode-text-pretoken-not-encoded": ("task3_encode_text_solution", ((
        'tokens += encode_pretoken(pretoken.encode("utf-8"), ranks)', "tokens += encode_pretoken(pretoken, ranks)"),),
        "pass pretoken.encode('utf-8')"),
    "arena-buffer-summed": ("task4_build_arena_solution", ((
        '    return b"".join(pieces), offsets\n', '    return sum(pieces, b""), offsets\n'),), "build_arena("),
    "decode-slice-end-as-a-length": ("task5_decode_with_arena_solution", ((
        "buffer[offsets[token_id] : offsets[token_id + 1]]", "buffer[offsets[token_id] : offsets[token_id] + offsets[token_id + 1]]"),),
        "decode_with_arena("),
    "decode-offsets-one-on": ("task5_decode_with_arena_solution", ((
        "buffer[offsets[token_id] : offsets[token_id + 1]]", "buffer[offsets[token_id + 1] : offsets[token_id + 2]]"),),
        "an IndexError though every id is a token"),
    "decode-returns-the-pieces": ("task5_decode_with_arena_solution", ((
        '    return b"".join(pieces)\n', "    return pieces  # the tokens' bytes\n"),), "decode_with_arena("),
}
LAB08_NOVEL50 = {
    "compatible-joined-right-first": ("task1_compatible_solution", ((
        "encode_pretoken(left + right, ranks)", "encode_pretoken(right + left, ranks)"),), "compatible("),
    "compatible-returns-the-encoding": ("task1_compatible_solution", ((
        "    return encode_pretoken(left + right, ranks) == [left, right]\n",
        "    return encode_pretoken(left + right, ranks)  # [left, right] when they are\n"),), "compatible("),
    "backtrack-window-not-from-pos": ("task2_backtrack_encode_solution", ((
        "range(min(n, pos + longest), pos, -1)", "range(min(n, longest), pos, -1)"),), "backtrack_encode("),
    "backtrack-valid-tokens-in-a-list": ("task2_backtrack_encode_solution", ((
        "    longest = max(map(len, valid), default=1)\n    n = len(pretoken)\n",
        "    longest = max(map(len, valid), default=1)\n    valid = list(valid)  # the vocabulary, as a list\n"
        "    n = len(pretoken)\n"),), "backtrack_encode("),
    "last-a-tuple": ("task3_last_tokens_solution", (("    return last\n", "    return tuple(last)  # fixed once built\n"),),
                     "last_tokens("),
    "counts-by-recursion": ("task4_prefix_token_counts_solution", ((
        "    counts = [0] * len(last)\n    for end in range(1, len(last)):\n        counts[end] = counts[end - len(last[end])] + 1\n"
        "    return counts\n",
        "    def count(end: int) -> int:\n        return 0 if end == 0 else count(end - len(last[end])) + 1\n\n"
        "    return [count(end) for end in range(len(last))]\n"),), "a RecursionError on a long pretoken"),
    "counts-as-a-dict-by-end": ("task4_prefix_token_counts_solution", ((
        "    counts = [0] * len(last)\n", "    counts = {0: 0}  # counts[end]\n"),), "prefix_token_counts("),
}
LAB09_NOVEL50 = {
    "interleaved-rotates-the-callers-dict": ("task1_interleaved_solution", ((
        "        for label in labels[first:] + labels[:first]:\n", "        for label in list(contenders):\n"), (
        "    return times\n", "        oldest = next(iter(contenders))\n"
        "        contenders[oldest] = contenders.pop(oldest)  # the first goes last: the next round starts with the next\n"
        "    return times\n")), "the contenders dict was left in another order"),
    "spread-coefficient-of-variation": ("task2_spread_solution", ((
        "    return (q3 - q1) / middle\n", "    return statistics.stdev(values) / statistics.mean(values)  # relative spread\n"),),
        "the coefficient of variation"),
    "ratio-median-of-differences": ("task3_paired_ratio_solution", ((
        "[x / y for x, y in zip(times[a], times[b])]", "[x - y for x, y in zip(times[a], times[b])]"),), "the median of the differences"),
    "exponent-the-intercept": ("task4_fit_exponent_solution", ((
        "    return sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys)) / sxx\n",
        "    slope = sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys)) / sxx\n    return mean_y - slope * mean_x\n"),),
        "fit_exponent("),
    "exponent-sorts-the-callers-points": ("task4_fit_exponent_solution", ((
        "    xs = [math.log(s) for s in sizes]\n",
        "    sizes[:], seconds[:] = zip(*sorted(zip(sizes, seconds)))  # smallest size first\n"
        "    xs = [math.log(s) for s in sizes]\n"),), "changed its argument sizes"),
    "crossover-nan-when-they-never-meet": ("task5_crossover_solution", ((
        "    return None\n", "    return float('nan')  # no crossing\n"),), "crossover("),
    "peak-before-read-after-the-call": ("task6_peak_memory_solution", ((
        "        before = tracemalloc.get_traced_memory()[0]\n        result = fn()\n",
        "        result = fn()\n        before = tracemalloc.get_traced_memory()[0]\n"),), "read before fn() runs"),
    "peak-read-before-the-reset": ("task6_peak_memory_solution", (
        ("    was_tracing = tracemalloc.is_tracing()\n",
         "    before = tracemalloc.get_traced_memory()[1]  # what is held before the call\n    was_tracing = tracemalloc.is_tracing()\n"),
        ("        before = tracemalloc.get_traced_memory()[0]\n", "")), "what you subtract is the peak before the call"),
}
NOVEL50_ROUND = {(lab, name): mistake for lab, table in (
    ("00_pretokenization", LAB00_NOVEL50), ("03_parallel", LAB03_NOVEL50), ("06_encode_decode", LAB06_NOVEL50),
    ("08_linear_encoding", LAB08_NOVEL50), ("09_benchmarks", LAB09_NOVEL50)) for name, mistake in table.items()}


# Kept their points before the round (each now fails the hidden test, with its hint): lab 06's encode_pretoken that pops a
# merge from the caller's ranks once applied, lab 09's fit_exponent that sorts the caller's points in place, lab 09's
# interleaved that rotates the caller's dict itself (dict equality ignores order: the driver now reports its order).
KEPT_BEFORE_NOVEL50 = {("06_encode_decode", "encode-spent-merges-popped"), ("09_benchmarks", "exponent-sorts-the-callers-points"),
                       ("09_benchmarks", "interleaved-rotates-the-callers-dict")}
# Lost their points before the round with no hint, or a hint for another mistake (the brief's three first: lab 03's
# overlap of the first token and `if j` filter, lab 09's peak read before the reset); each now has a hint of its own.
HINTED_NOVEL50 = {("03_parallel", "find-overlap-from-the-first-token"), ("03_parallel", "find-found-filtered-by-if-j"),
                  ("09_benchmarks", "peak-read-before-the-reset"), ("03_parallel", "find-empty-file-no-boundaries"),
                  ("09_benchmarks", "peak-before-read-after-the-call"), ("00_pretokenization", "split-no-tokens-no-pieces"),
                  ("00_pretokenization", "pretokenize-split-by-the-pattern"),
                  ("06_encode_decode", "encode-text-special-token-without-continue"),
                  ("06_encode_decode", "encode-text-pretoken-not-encoded"), ("06_encode_decode", "decode-offsets-one-on"),
                  ("08_linear_encoding", "counts-by-recursion"), ("09_benchmarks", "spread-coefficient-of-variation"),
                  ("09_benchmarks", "ratio-median-of-differences")}
CAUGHT_BEFORE_NOVEL50 = [key for key in NOVEL50_ROUND if key not in HINTED_NOVEL50 | KEPT_BEFORE_NOVEL50]


@pytest.mark.seeded
@pytest.mark.parametrize("lab, mistake", sorted(KEPT_BEFORE_NOVEL50),
                         ids=[f"{lab[:2]}-{name}" for lab, name in sorted(KEPT_BEFORE_NOVEL50)])
def test_labs06_09_a_twentieth_rounds_mistake_that_kept_its_points_now_fails_the_hidden_test(request, lab, mistake):
    """Fails on main under every seed: an argument changed in place that no check compared (or only by ==)."""
    round_failure(request, NOVEL50_ROUND, lab, mistake)


@pytest.mark.seeded
@pytest.mark.parametrize("lab, mistake", sorted(HINTED_NOVEL50), ids=[f"{lab[:2]}-{name}" for lab, name in sorted(HINTED_NOVEL50)])
def test_labs00_03_06_08_09_a_twentieth_rounds_mistake_gets_a_hint_of_its_own(request, lab, mistake):
    """Fails on main, where each lost its points with no hint or another mistake's (lab 03's `if j`: 'more chunks
    asked for than the file has bytes'; its empty file: 'a special token can straddle two reads')."""
    round_failure(request, NOVEL50_ROUND, lab, mistake)


@pytest.mark.parametrize("lab, mistake", [pytest.param(*key, id=f"{key[0][:2]}-{key[1]}") for key in CAUGHT_BEFORE_NOVEL50])
def test_labs00_03_06_08_09_a_learners_mistake_of_the_twentieth_round_fails_the_hidden_test(request, lab, mistake):
    # those that lost their points, with a fitting message, before this round: one per lab by default
    one_per_lab("twentieth", CAUGHT_BEFORE_NOVEL50, lab, mistake)
    round_failure(request, NOVEL50_ROUND, lab, mistake)


# ---- labs 02 and 04, walk50a: the labs worked as a new learner, graded as an instructor would (issue 21's walk) -------
# Graded by self-grade (python -m bpe_ref grade) and as a class (nbgrader autograde, then grade --class) on notebooks
# made from the release with the course's solutions filled in, one mistake each. Closed by this round, lab 02: a
# merge_and_update that sets a gained pair's count to its change (`count = change` for a gain: "a gained pair holds the
# new token, so it is new") kept all 4 points under 4 secret seeds of 12 (6, 7, 9, 10: their drawn corpora seldom hold a
# gained pair already); task 2's hidden test now holds such a pair in a fixed case. Its measured check timed the sending
# back of what the calls return: a merge_and_update that returned (word, pair_counts) spent its second of CPU on the
# 200,000 counts in the grading worker and was told it looped over them; the driver now sends back the type alone, and
# the cases tell it. Hints added where a mistake of the round lost its points with none or a misleading one: lab 02's
# changes of a merge made from the right end, or one that keeps the pair's right token (steps one past it), the gains kept
# to the windows with the new token, the merged pair's count taken down again (told "dict.update writes the changes over
# the counts", or a KeyError on "a new key"), (word, pair_counts) returned. Lab 04: a pairs_with that compares the tokens
# decoded with errors="replace" kept every point (the generated words hold letters alone; a hidden case now holds two
# tokens that are no UTF-8), and a train that discards stale ids from the set it loops over (`for i in index[pair]`,
# page 04's first pitfall) kept its hidden points under 6 secret seeds of 13 (a hidden case now visits a stale id). Hints
# added: an index turned round (id -> its pairs: told "ints where bytes were expected"), a count per id, a word's windows
# left at its first repeat, the hidden test's (b'', b'') entry said, a left neighbour read at word[-1] (told "tokens are
# compared whole"), a window that must hold the token on both sides, a set changed during the loop, ids moved by a word
# deleted from the list.
LAB02_WALK50A = {
    "changes-merged-from-the-right": ("task1_pair_count_changes_solution", ((
        "    merged = merge_word(word, pair)\n",
        "    merged, i = [], len(word) - 1  # merge from the right end: a merge is a merge, whichever end it starts\n"
        "    while i >= 0:\n        if i > 0 and (word[i - 1], word[i]) == pair:\n"
        "            merged.insert(0, word[i - 1] + word[i])\n            i -= 2\n        else:\n"
        "            merged.insert(0, word[i])\n            i -= 1\n"),), "a merge made from the right end"),
    "changes-own-merge-steps-one-past-the-pair": ("task1_pair_count_changes_solution", ((
        "    merged = merge_word(word, pair)\n",
        "    merged, i = [], 0\n    while i < len(word):\n        if word[i:i + 2] == pair:\n"
        "            merged.append(word[i] + word[i + 1])\n        else:\n            merged.append(word[i])\n"
        "        i += 1\n"),), "go on at i + 2"),
    "changes-gains-only-windows-with-the-new-token": ("task1_pair_count_changes_solution", ((
        "    for new in zip(merged, merged[1:]):\n        changes[new] += frequency\n",
        "    for new in zip(merged, merged[1:]):\n        if pair[0] + pair[1] in new:  # a gained pair holds the new token\n"
        "            changes[new] += frequency\n"),), "only the windows with the new token are added back"),
    "changes-new-windows-over-the-old-length": ("task1_pair_count_changes_solution", ((
        "    for new in zip(merged, merged[1:]):\n",
        "    for j in range(len(word) - 1):  # one window per position\n        new = (merged[j], merged[j + 1])\n"),),
        "raised IndexError"),
    "update-returns-word-and-counts": ("task2_merge_and_update_solution", ((
        "    return merge_word(word, pair)\n", "    return merge_word(word, pair), pair_counts\n"),),
        "return the merged word alone"),
    "update-merged-pair-subtracted-again": ("task2_merge_and_update_solution", ((
        "    for changed, change in pair_count_changes(word, pair, frequency).items():\n",
        "    pair_counts[pair] -= frequency  # the merged pair is gone from this word\n"
        "    for changed, change in pair_count_changes(word, pair, frequency).items():\n"),),
        ("a KeyError on the merged pair itself", "take nothing more away for the merged pair")),
    "update-returns-a-list": ("task2_merge_and_update_solution", ((
        "    return merge_word(word, pair)\n", "    return list(merge_word(word, pair))  # the new tokens\n"),),
        "expected a tuple, got a list"),
    "update-gained-pairs-set-as-new": ("task2_merge_and_update_solution", ((
        "        count = pair_counts.get(changed, 0) + change\n",
        "        count = change if change > 0 else pair_counts.get(changed, 0) + change  # a gained pair holds the new token\n"),),
        "set to its change, not added to"),
    "train-merges-as-joined-tokens": ("task3_train_solution", ((
        "        merges.append(pair)\n", "        merges.append(pair[0] + pair[1])  # the new token\n"),),
        "got [b'"),  # the measured check's other merges run the fixed cases first since walk54a
    "train-word-merged-before-the-update": ("task3_train_solution", ((
        "                words[i] = merge_and_update(word, pair, frequencies[i], pair_counts)\n",
        "                words[i] = merge_word(word, pair)\n"
        "                merge_and_update(words[i], pair, frequencies[i], pair_counts)\n"),),
        "a word merged first, by merge_word, holds no pair left to change"),
    "train-input-consumed-by-popitem": ("task3_train_solution", ((
        "    words = [split_into_bytes(pretoken) for pretoken in pretoken_counts]\n"
        "    frequencies = list(pretoken_counts.values())\n",
        "    words, frequencies = [], []\n    while pretoken_counts:  # each pretoken once\n"
        "        pretoken, frequency = pretoken_counts.popitem()\n        words.append(split_into_bytes(pretoken))\n"
        "        frequencies.append(frequency)\n"),), "changed its argument pretoken_counts"),
    "train-merges-counted-from-the-vocabulary-size": ("task3_train_solution", ((
        "    for _ in range(num_merges):\n", "    for _ in range(num_merges - 256):  # the 256 bytes come first\n"),),
        "not a vocabulary size"),
}
LAB04_WALK50A = {
    "index-forward-word-to-pairs": ("task1_index_words_solution", ((
        "            index[pair].add(i)\n", "            index[i].add(pair)  # word id -> the pairs it holds\n"),),
        "the index is turned round"),
    "index-ids-counted-in-a-counter": ("task1_index_words_solution", (
        ("    index: defaultdict[Pair, set[int]] = defaultdict(set)\n",
         "    from collections import Counter\n    index = defaultdict(Counter)  # pair -> {id: windows of it}\n"),
        ("            index[pair].add(i)\n", "            index[pair][i] += 1\n")), "the index must be a defaultdict(set)"),
    "index-repeated-window-breaks-the-word": ("task1_index_words_solution", ((
        "        for pair in zip(word, word[1:]):\n            index[pair].add(i)\n",
        "        seen = set()\n        for pair in zip(word, word[1:]):\n            if pair in seen:\n"
        "                break  # held twice: the word is in its set already\n            seen.add(pair)\n"
        "            index[pair].add(i)\n"),), "first repeated window"),
    "pairs-with-left-neighbour-wraps-at-the-start": ("task2_pairs_with_solution", ((
        "    return [pair for pair in zip(word, word[1:]) if token in pair]\n",
        "    found = []\n    for i, current in enumerate(word):\n        if current == token:\n"
        "            if word[i - 1] != token:  # (AB, AB) is listed once, as the window after the first AB\n"
        "                found.append((word[i - 1], current))\n"
        "            if i + 1 < len(word):\n                found.append((current, word[i + 1]))\n    return found\n"),),
        "word[i - 1] is word[-1]"),
    "pairs-with-both-sides-the-token": ("task2_pairs_with_solution", ((
        "if token in pair]", "if pair[0] == token and pair[1] == token]"),), "on both sides of a window"),
    "pairs-with-compared-as-text": ("task2_pairs_with_solution", ((
        "if token in pair]",
        "if token.decode('utf-8', 'replace') in (pair[0].decode('utf-8', 'replace'), pair[1].decode('utf-8', 'replace'))]"),),
        "tokens compared as text"),
    "train-one-token-words-dropped": ("task3_train_solution", ((
        "            words[i] = merge_and_update(word, pair, frequencies[i], pair_counts)\n",
        "            words[i] = merge_and_update(word, pair, frequencies[i], pair_counts)\n"
        "            if len(words[i]) == 1:  # one token: no pair left, drop the word\n"
        "                del words[i], frequencies[i]\n                continue\n"),), "a word deleted from the list"),
    "train-stale-id-discarded-during-the-loop": ("task3_train_solution", (
        ("        for i in index.pop(pair):", "        for i in index[pair]:"),
        ("                    index[new_pair].add(i)\n",
         "                    index[new_pair].add(i)\n            else:\n"
         "                index[pair].discard(i)  # stale: never visit it again\n")),
        "a set changed while a loop ran over it"),
    "train-merges-as-joined-tokens": ("task3_train_solution", ((
        "        merges.append(pair)\n        token = pair[0] + pair[1]\n",
        "        token = pair[0] + pair[1]\n        merges.append(token)  # the new token\n"),), "got [b'"),
    "train-input-consumed-by-popitem": ("task3_train_solution", ((
        "    words = [split_into_bytes(pretoken) for pretoken in pretoken_counts]\n"
        "    frequencies = list(pretoken_counts.values())\n",
        "    words, frequencies = [], []\n    while pretoken_counts:  # each pretoken once\n"
        "        pretoken, frequency = pretoken_counts.popitem()\n        words.append(split_into_bytes(pretoken))\n"
        "        frequencies.append(frequency)\n"),), "changed its argument pretoken_counts"),
    "train-merges-counted-from-the-vocabulary-size": ("task3_train_solution", ((
        "    for _ in range(num_merges):\n", "    for _ in range(num_merges - 256):  # the 256 bytes come first\n"),),
        "train stopped after 0 merges"),
}
WALK50A_ROUND = {(lab, name): mistake for lab, table in (("02_incremental", LAB02_WALK50A), ("04_inverted_index", LAB04_WALK50A))
                 for name, mistake in table.items()}
# Kept its points before the round (under some secret seeds), or lost them with no hint or one that named another mistake
# (the round's fixes): each fails on main, the kept one in its hidden test, the others by the message they expect.
FIXED_BY_WALK50A = {("02_incremental", name) for name in (
    "changes-merged-from-the-right", "changes-own-merge-steps-one-past-the-pair", "changes-gains-only-windows-with-the-new-token",
    "update-returns-word-and-counts", "update-merged-pair-subtracted-again", "update-gained-pairs-set-as-new")} | {
    ("04_inverted_index", name) for name in (
        "index-forward-word-to-pairs", "index-repeated-window-breaks-the-word", "pairs-with-left-neighbour-wraps-at-the-start",
        "pairs-with-both-sides-the-token", "pairs-with-compared-as-text", "train-one-token-words-dropped",
        "train-stale-id-discarded-during-the-loop")}
CAUGHT_BEFORE_WALK50A = [key for key in WALK50A_ROUND if key not in FIXED_BY_WALK50A]


@pytest.mark.seeded
@pytest.mark.parametrize("lab, mistake", sorted(FIXED_BY_WALK50A), ids=[f"{lab[:2]}-{name}" for lab, name in sorted(FIXED_BY_WALK50A)])
def test_labs02_04_walk50a_a_mistake_the_round_fixed_fails_the_hidden_test_with_its_hint(request, lab, mistake):
    round_failure(request, WALK50A_ROUND, lab, mistake)


@pytest.mark.parametrize("lab, mistake", [pytest.param(*key, id=f"{key[0][:2]}-{key[1]}") for key in CAUGHT_BEFORE_WALK50A])
def test_labs02_04_walk50a_a_learners_mistake_of_the_round_fails_the_hidden_test(request, lab, mistake):
    # those that lost their points, with a fitting message, before this round: one per lab by default
    one_per_lab("walk50a", CAUGHT_BEFORE_WALK50A, lab, mistake)
    round_failure(request, WALK50A_ROUND, lab, mistake)


def test_lab02_walk50a_a_merge_and_update_that_returns_the_counts_is_told_by_its_cases_in_the_worker():
    """Task 2's measured check times 1,000 calls in the grading worker, what they return sent back included: a
    merge_and_update that returns (word, pair_counts) passes it (the driver sends back the type alone), and its cases
    then say what is wrong. (On main it was stopped at 1 s of CPU, spent sending 200,000 counts, and told it looped
    over them.)"""
    code = "\n".join(source_of("02_incremental", cell) for cell in ("setup", "task1_pair_count_changes_solution",
                                                                    "task2_merge_and_update_solution"))
    (old, new), = LAB02_WALK50A["update-returns-word-and-counts"][1]
    assert remote("02_incremental", code.replace(old, new), "merge_and_update", "verify_update_cost") is None
    message = remote("02_incremental", code.replace(old, new), "merge_and_update", "check_merge_and_update_properties")
    assert message is not None and "return the merged word alone" in message and "did not finish" not in message, message


# ---- labs 06 and 08, fix51a: two mistakes found and not fixed by novel50 (issue 21, item 8) ------------------------
# Lab 06's encode_pretoken that sorts the ranks at each step to find the first merge learned among the pairs (the right
# tokens at O(M log M) a step) kept its points once 8233a9b took out the measured check of one long pretoken, whose
# margin was too thin in the worker (0.46 s against a bound of 0.45 s). Task 2's hidden test now measures many short
# pretokens encoded with one ranks dict of 10,000 merges (a driver in the worker, as task 3 calls it): the ranks are sent
# and copied once, and every step pays the sort.
# Lab 08's backtrack_encode without its alive bitfield keeps its points, and no measured check can take them: it is
# linear too. Every node of the search is a run of valid tokens with compatible neighbours, so the unique encoding of
# its prefix (page 08's corollary 3): a position is reached at most once, with or without the bitfield (as
# bpe_ref/encode/step08_backtrack.py says), and the bitfield spares only the compatibility tests of candidates that end
# at a dead position (each would fail), at most K - 1 a node. Searched for the inputs that make those tests the most
# (random trained and reordered ranks, texts of 10 to 40 bytes; hill-climbing over merges up to 16 bytes and periodic
# texts, seed-drawn structure): at most 2.14 times the solution's tests, the same number of back-ups. Timed on the best
# ((b, b), (c, b), (bb, cb), (bb, bbcb), (c, bbbbcb), (bb, cbbbbcb), (bb, bbcbbbbcb), (c, bbbbcbbbbcb); "bbbbc" * m):
# without the bitfield 2.2 times the solution's CPU time at 4,000 bytes, 1.99 times more for twice the bytes (the
# solution 2.01); an honest variant that copies its token list and stack at each push 1.5 times the solution's. Neither
# growth nor a factor of 3 over honest work tells it, so it is listed, not measured.
LAB06_FIX51A = {
    "encode-ranks-sorted-at-each-step": ("task2_encode_pretoken_solution", ((
        '        best = min(zip(word, word[1:]), key=lambda pair: ranks.get(pair, float("inf")))\n        if best not in ranks:\n',
        "        pairs = set(zip(word, word[1:]))\n"
        "        best = next((pair for pair in sorted(ranks, key=ranks.get) if pair in pairs), None)  # the first merge learned\n"
        "        if best is None:\n"),), "does each step sort or scan all the merges"),
    "encode-ranks-scanned-at-each-step": ("task2_encode_pretoken_solution", ((
        '        best = min(zip(word, word[1:]), key=lambda pair: ranks.get(pair, float("inf")))\n        if best not in ranks:\n',
        "        pairs = set(zip(word, word[1:]))\n"
        "        present = [pair for pair in ranks if pair in pairs]  # the merges that can apply\n"
        "        best = min(present, key=ranks.get) if present else None\n"
        "        if best is None:\n"),), "does each step sort or scan all the merges"),
}
FIX51A_ROUND = {("06_encode_decode", name): mistake for name, mistake in LAB06_FIX51A.items()}

# Honest ways the statement does not show, each with the course's cost per step: plain loops and dicts, and a copy of
# the word at each step. They keep the points. (A copy of the ranks at each call was one of them; it costs O(M) a call,
# where encode_text calls it once per pretoken: a mistake since walk58, LAB06_PER_CALL's.)
HONEST_FIX51A = {
    "encode-plain-loops": ("task2_encode_pretoken_solution", ((
        '        best = min(zip(word, word[1:]), key=lambda pair: ranks.get(pair, float("inf")))\n        if best not in ranks:\n',
        "        best, best_rank = None, None\n"
        "        for i in range(len(word) - 1):\n"
        "            pair = (word[i], word[i + 1])\n"
        "            if pair in ranks and (best_rank is None or ranks[pair] < best_rank):\n"
        "                best, best_rank = pair, ranks[pair]\n"
        "        if best is None:\n"),),),
    "encode-copies-of-the-word": ("task2_encode_pretoken_solution", ((
        "    word = split_into_bytes(pretoken)\n", "    word = list(split_into_bytes(pretoken))\n"),
        ('        best = min(zip(word, word[1:]), key=',
         '        best = min(list(zip(list(word), list(word)[1:])), key='),
        ("        word = merge_word(word, best)\n", "        word = list(merge_word(tuple(word), best))\n")),),
}


# The scan runs its two measured tries to the end (0.9 s of CPU each, under the point where a call is stopped): seconds,
# so under BPE_EXHAUSTIVE=1 only; the sort, the round's mistake, every run.
@pytest.mark.seeded
@pytest.mark.parametrize("mistake", [
    "encode-ranks-sorted-at-each-step",
    pytest.param("encode-ranks-scanned-at-each-step", marks=pytest.mark.skipif(
        not EXHAUSTIVE, reason="the sort's sibling, seconds in its hidden test: BPE_EXHAUSTIVE=1 grades it"))])
def test_lab06_fix51a_the_ranks_sorted_or_scanned_at_each_step_lose_task_2(request, mistake):
    """Fails on main under every seed (no measured check: the hidden test passes); the hint names the sort."""
    round_failure(request, FIX51A_ROUND, "06_encode_decode", mistake)


@pytest.mark.seeded
@pytest.mark.parametrize("way", sorted(HONEST_FIX51A))
def test_lab06_fix51a_an_honest_encoder_keeps_task_2(request, way):
    graders, solutions = request.getfixturevalue("lab06")
    cell, changes = HONEST_FIX51A[way]
    graders.check_encode_pretoken_properties(variant_of("06_encode_decode", solutions, cell, "encode_pretoken", changes))


@WORKER_TWIN
def test_lab06_fix51a_the_ranks_sorted_at_each_step_lose_task_2_in_the_worker_too():
    """The measured cost of encode_pretoken, in the grading worker: a sort of the ranks at each step loses the hidden
    points there too, with its hint; the course's encode_pretoken keeps them."""
    code = "\n".join(source_of("06_encode_decode", cell) for cell in ("setup", "task1_merge_ranks_solution",
                                                                      "task2_encode_pretoken_solution"))
    (old, new), = LAB06_FIX51A["encode-ranks-sorted-at-each-step"][1]
    message = remote("06_encode_decode", code.replace(old, new), "encode_pretoken", "check_encode_pretoken_properties")
    assert message is not None and "does each step sort or scan all the merges" in message, message
    assert remote("06_encode_decode", code, "encode_pretoken", "check_encode_pretoken_properties") is None


# ---- labs 05 and 06, walk51a: the labs worked as a new learner, graded as an instructor would (issue 21's walk) -------
# Graded by self-grade (python -m bpe_ref grade) and as a class (grade_cells with whole_class, as nbgrader autograde does,
# then grade --class) on notebooks made from the release with the course's solutions filled in. Closed by this round, lab
# 05: a pop_best that compares the counts with `is` (`if count is claimed`) passed every fixed case (counts up to 6, ints
# CPython caches) and lost task 2 only on the measured calls, told "did not return the reference's answer" with no hint; a
# fixed case now holds counts above 256, and the IndexError's hint names `is`. An entry pushed again as (-count, pair), or
# V5's heap built of them, raised a TypeError comparing a str with a tuple, with no hint (now: entries of two shapes). A
# grown pair pushed with a word's frequency lost task 3's hidden points told to loop while pair_counts is not empty, as
# its loop did (the hint now names the entries that claim too little). A follower unlinked by its links alone (its token
# kept) read as a word of its own, told to sort the nodes of (A, A); nodes listed as merged before the stale check were
# told to give the follower the token b"", which they did. Lab 06: special tokens looked up among the pretokens
# were told "the tokens of other special tokens", those of a call before that change nothing in this text; an arena up to
# the dict's last key was told "offsets needs one entry more"; the pair ranks lists first taken for the lowest rank was
# told "the leftmost pair" alone. Kept their points, and are no mistakes: `count >= claimed` in pop_best (with the
# promise, an entry claiming less surfaces only after the pair's fresher one), index.get(pair) for index.pop(pair) in V5
# (the merged pair never recurs), a stale check without `follower == -1` (a node once listed never ends its word while it
# holds A), pairs not turned into tuples in merge_ranks, and bytes joined with += in decode_with_arena (no cost is asked).
LAB05_WALK51A = {
    "key-reversed-from-1000-with-the-hints-mark": ("task1_heap_entry_solution", ((
        'return "".join(chr(255 - b) for b in token) + "\\u0100"',
        'return "".join(chr(1000 - b) for b in token) + "\\u0100"  # any number above 255 turns the bytes round'),),
        "end every key with something greater than any byte's"),
    "key-entry-a-list": ("task1_heap_entry_solution", ((
        "    return (-count, reversed_key(left), reversed_key(right), pair)\n",
        "    return [-count, reversed_key(left), reversed_key(right), pair]  # heapq compares lists too\n"),),
        "expected a tuple"),
    "key-count-as-text": ("task1_heap_entry_solution", ((
        "    return (-count, reversed_key(left)", "    return (str(-count), reversed_key(left)"),),
        "its first item should be -count"),
    "pop-counts-compared-with-is": ("task2_pop_best_solution", ((
        "        if count == claimed:\n", "        if count is claimed:  # the same count\n"),), "compare them with =="),
    "pop-re-push-without-heap-entry": ("task2_pop_best_solution", ((
        "heapq.heappush(entries, heap_entry(count, pair))", "heapq.heappush(entries, (-count, pair))"),),
        "the heap holds entries of two shapes"),
    "pop-re-push-by-heappushpop": ("task2_pop_best_solution", ((
        "            heapq.heappush(entries, heap_entry(count, pair))",
        "            heapq.heappushpop(entries, heap_entry(count, pair))"),), "an entry is missing"),
    "train-heap-built-without-heap-entry": ("task3_train_solution", ((
        "    entries = [heap_entry(count, pair) for pair, count in pair_counts.items()]\n",
        "    entries = [(-count, pair) for pair, count in pair_counts.items()]  # highest count first\n"),),
        "the heap holds entries of two shapes"),
    "train-grown-pushed-with-the-words-frequency": ("task3_train_solution", ((
        "                    grown.add(new_pair)\n",
        "                    heapq.heappush(entries, heap_entry(frequencies[i], new_pair))  # it grew by the word's\n"),),
        ("not a word's frequency or the change", "never surfaced from the heap")),
    "train-grown-by-pairs-of-the-merged-pair": ("task3_train_solution", ((
        "                for new_pair in pairs_with(words[i], token):\n",
        "                for new_pair in zip(words[i], words[i][1:]):\n"),), "push only the pairs whose count grew"),
    "merge-nodes-deduplicated-by-a-set": ("task4_merge_occurrences_solution", ((
        "    for node in sorted(nodes) if left == right else nodes:\n",
        "    for node in set(nodes):  # a node may be listed twice\n"),), "take the nodes left to right (sorted)"),
    "merge-nodes-listed-before-the-check": ("task4_merge_occurrences_solution", (
        ("        follower = next_[node]\n", "        merged_nodes.append(node)\n        follower = next_[node]\n"),
        ("        next_[node] = after\n        merged_nodes.append(node)\n", "        next_[node] = after\n")),
        "append a node to the list only once it merged"),
    "merge-follower-unlinked-by-links-only": ("task4_merge_occurrences_solution", ((
        '        token[node], token[follower] = merged, b""\n',
        '        token[node] = merged\n        prev[follower] = next_[follower] = -1  # B unlinked\n'),),
        "reads as a word of its own"),
}
LAB06_WALK51A = {
    "ranks-repeat-searched-in-the-list": ("task1_merge_ranks_solution", ((
        "        ranks.setdefault(tuple(pair), rank)\n",
        "        if tuple(pair) not in merges[:rank]:  # listed before: keep the first rank\n"
        "            ranks[tuple(pair)] = rank\n"),), "does it search the list for each merge"),
    "encode-initial-pairs-merged-in-rank-order": ("task2_encode_pretoken_solution", ((
        "    while len(word) > 1:\n"
        "        best = min(zip(word, word[1:]), key=lambda pair: ranks.get(pair, float(\"inf\")))\n"
        "        if best not in ranks:\n            break  # no neighbouring pair is a merge\n"
        "        word = merge_word(word, best)\n",
        "    for best in sorted((pair for pair in set(zip(word, word[1:])) if pair in ranks), key=ranks.get):\n"
        "        word = merge_word(word, best)  # the word's merges, lowest rank first\n"),),
        "you applied each merge once, everywhere, in rank order"),
    "encode-sentinel-the-words-length": ("task2_encode_pretoken_solution", ((
        'ranks.get(pair, float("inf"))', "ranks.get(pair, len(word))"),), "keep merging until no two neighbouring tokens"),
    "encode-first-rank-found-by-dict-order": ("task2_encode_pretoken_solution", ((
        "        best = min(zip(word, word[1:]), key=lambda pair: ranks.get(pair, float(\"inf\")))\n"
        "        if best not in ranks:\n",
        "        pairs = set(zip(word, word[1:]))\n"
        "        best = next((pair for pair in ranks if pair in pairs), None)  # ranks lists the merges in order\n"
        "        if best is None:\n"),), ("the dict ranks lists first", "from its place in the dict, not from its value")),
    "special-tokens-sorted-alphabetically": ("task3_encode_text_solution", ((
        "sorted(special_tokens, key=len, reverse=True)", "sorted(special_tokens)"),), "sorted longest first"),
    "special-tokens-looked-up-among-pretokens": ("task3_encode_text_solution", (
        ("    if special_tokens:\n", "    if False:  # special tokens are found among the pretokens\n"),
        ("        for pretoken in regex.findall(GPT2_PATTERN, piece):\n",
         "        for pretoken in regex.findall(GPT2_PATTERN, piece):\n            if pretoken.strip() in special_tokens:\n"
         "                tokens.append(pretoken.encode('utf-8'))\n                continue\n")), "no special token was cut out"),
    "special-tokens-in-the-given-order": ("task3_encode_text_solution", ((
        "sorted(special_tokens, key=len, reverse=True)", "special_tokens"),), "sorted longest first"),
    "pretokens-by-str-split": ("task3_encode_text_solution", ((
        "regex.findall(GPT2_PATTERN, piece)", "piece.split()"),), "do not join back into the text"),
    "arena-gaps-written-into-the-vocab": ("task4_build_arena_solution", ((
        'vocab.get(token_id, b"")', 'vocab.setdefault(token_id, b"")'),), "changed its argument vocab"),
    "arena-size-from-the-last-key": ("task4_build_arena_solution", ((
        "range(max(vocab, default=-1) + 1)", "range(list(vocab)[-1] + 1 if vocab else 0)"),), "the dict's last key"),
    "arena-gaps-filled-with-a-marker": ("task4_build_arena_solution", ((
        'vocab.get(token_id, b"")', 'vocab.get(token_id, b"\\x00")'),), "give each an empty range"),
    "decode-bad-id-asserted": ("task5_decode_with_arena_solution", ((
        "        if not 0 <= token_id < len(offsets) - 1 or offsets[token_id] == offsets[token_id + 1]:\n"
        '            raise ValueError(f"cannot decode token id {token_id}: it is not in the vocabulary")\n',
        "        assert 0 <= token_id < len(offsets) - 1 and offsets[token_id] != offsets[token_id + 1], "
        'f"token id {token_id} is not in the vocabulary"\n'),), "a ValueError whose message names the id"),
    "decode-ids-popped-from-the-front": ("task5_decode_with_arena_solution", ((
        "    for token_id in ids:\n", "    while ids:\n        token_id = ids.pop(0)\n"),), "changed its argument ids"),
    "decode-negative-ids-wrapped": ("task5_decode_with_arena_solution", ((
        "        if not 0 <= token_id < len(offsets) - 1",
        "        token_id %= len(offsets) - 1  # Python's way: -1 is the last\n        if not 0 <= token_id < len(offsets) - 1"),),
        "a negative id"),
}
WALK51A_ROUND = {(lab, name): mistake for lab, table in (("05_heap", LAB05_WALK51A), ("06_encode_decode", LAB06_WALK51A))
                 for name, mistake in table.items()}
# Lost their points before the round with no hint or one that named another mistake (the round's fixes): each fails on
# main by the message it expects.
FIXED_BY_WALK51A = {("05_heap", name) for name in (
    "pop-counts-compared-with-is", "pop-re-push-without-heap-entry", "train-heap-built-without-heap-entry",
    "train-grown-pushed-with-the-words-frequency", "merge-follower-unlinked-by-links-only", "merge-nodes-listed-before-the-check")} | {
    ("06_encode_decode", name) for name in (
        "encode-first-rank-found-by-dict-order", "special-tokens-looked-up-among-pretokens", "arena-size-from-the-last-key")}
CAUGHT_BEFORE_WALK51A = [key for key in WALK51A_ROUND if key not in FIXED_BY_WALK51A]


@pytest.mark.seeded
@pytest.mark.parametrize("lab, mistake", sorted(FIXED_BY_WALK51A), ids=[f"{lab[:2]}-{name}" for lab, name in sorted(FIXED_BY_WALK51A)])
def test_labs05_06_walk51a_a_mistake_the_round_fixed_fails_the_hidden_test_with_its_hint(request, lab, mistake):
    round_failure(request, WALK51A_ROUND, lab, mistake)


@pytest.mark.parametrize("lab, mistake", [pytest.param(*key, id=f"{key[0][:2]}-{key[1]}") for key in CAUGHT_BEFORE_WALK51A])
def test_labs05_06_walk51a_a_learners_mistake_of_the_round_fails_the_hidden_test(request, lab, mistake):
    # those that lost their points, with a fitting message, before this round: one per lab by default
    one_per_lab("walk51a", CAUGHT_BEFORE_WALK51A, lab, mistake)
    round_failure(request, WALK51A_ROUND, lab, mistake)


def test_lab05_walk51a_pop_best_comparing_counts_with_is_fails_the_visible_test_with_its_hint(lab05):
    """`count is claimed` holds for ints up to 256 alone (CPython caches them): it passed every visible case, whose counts
    were 1 to 6, and lost task 2 on the measured calls with no hint; a visible case now holds counts above 256."""
    graders, solutions = lab05
    (old, new), = LAB05_WALK51A["pop-counts-compared-with-is"][1]
    mistake = variant("05_heap", solutions, "task2_pop_best_solution", "pop_best", old, new)
    assert "compare them with ==" in failure(graders.check_pop_best, mistake)


@pytest.mark.parametrize("lab, mistakes, hints", [
    ("05_heap", ("pop-counts-compared-with-is", "train-heap-built-without-heap-entry", "merge-follower-unlinked-by-links-only"),
     {"task2_pop_best": "compare them with ==", "task3_train": "the heap holds entries of two shapes",
      "task4_merge_occurrences": "reads as a word of its own"}),
    ("06_encode_decode", ("encode-first-rank-found-by-dict-order", "special-tokens-looked-up-among-pretokens",
                          "arena-size-from-the-last-key"),
     {"task2_encode_pretoken": "the dict ranks lists first", "task3_encode_text": "no special token was cut out",
      "task4_build_arena": "the dict's last key"}),
], ids=["05", "06"])
def test_labs05_06_walk51a_the_rounds_mistakes_lose_their_tasks_in_a_class_with_their_hints(monkeypatch, lab, mistakes,
                                                                                             hints):
    """The class path of the round's fixes (graded as ``nbgrader autograde`` grades a class: ``grade_cells`` in a grading
    worker, the class's seed, the hidden inputs drawn for the honest notebook graded first and replayed): one notebook
    holds three of them, each in a task of its own; each loses its own task's visible and hidden points with its hint,
    and the honest notebook keeps all."""
    from bpe_ref.course.checks import running
    from bpe_ref.course.trusted.autograde import grade_cells

    def notebook(names: tuple = ()) -> list[dict]:
        cells = read_notebook_json(source_notebook(lab))["cells"]
        for name in names:
            cell_id, changes, *_ = WALK51A_ROUND[lab, name]
            cell = next(cell for cell in cells if cell["id"] == cell_id)
            for old, new in changes:
                assert old in cell["source"], old
                cell["source"] = cell["source"].replace(old, new, 1)
        return cells

    monkeypatch.setattr(running, "_KEPT", {"seed": None, "tests": {}})
    policy, class_seed = Policy(cell_timeout=60, call_timeout=60), 20261202
    honest = grade_cells(notebook(), lab, policy=policy, seed=class_seed, whole_class=True)
    assert all(v.passed for v in honest.verdicts), [v for v in honest.verdicts if not v.passed]
    mistaken = grade_cells(notebook(mistakes), lab, policy=policy, seed=class_seed, whole_class=True)
    lost = {v.grade_id: v.message for v in mistaken.verdicts if not v.passed}
    assert sorted(lost) == sorted(f"{task}{part}" for task in hints for part in ("", "_hidden")), mistaken.verdicts
    for grade_id, message in lost.items():
        assert hints[grade_id.removesuffix("_hidden")] in message, (grade_id, message)


# ---- labs 07 and 08, walk52: the labs worked as a new learner, graded as an instructor would (issue 21's walk) -------
# Each mistake is the course's solution with one change, graded by its task's hidden test; ``visible`` is what the visible
# test says (None: it passes there). Closed by this round, lab 07: an entry skipped for the rank of the entry popped just
# before it (taken for a duplicate) lost task 2 told "an entry was unpacked position first" (on "aaaaa" both give the same
# tokens; the fixed case "abcab", one merge at two places, now tells them apart first); positions as byte offsets passed
# the visible test and lost task 1 told "positions count from 0" (a visible case of merged parts now catches them);
# heapq.heapreplace for a push raised heapq's IndexError, told "an index past the parts"; a pretoken that is a merge's
# bytes taken as one token passed the visible test and was told "lab 06's tokens" (page 08's abc now a visible case); the
# first heap sorted by position was told "ranks numbered by the dict's place". Others got a hint of their own where they
# had none or a general one. Lab 08: prefix_token_counts that makes a new list per entry kept task 4 (the measured table
# of 10,000 entries was too small: now 40,000, section 104 of tests/test_grading_redteam.py); a recursive backtracking
# search raised RecursionError on the measured pretoken with no hint; the crate's README's last[end + 1 - len] index was
# told about the window of starts alone; compatible by the two boundary bytes was told to "compare all of it".
LAB07_WALK52 = {
    "first-positions-as-byte-offsets": ("task1_first_heap_solution", ((
        "    heap = []\n    for position in range(len(parts) - 1):\n"
        "        rank = ranks.get((parts[position], parts[position + 1]))\n"
        "        if rank is not None:\n            heap.append((rank, position))\n",
        "    heap = []\n    offset = 0  # the position of a part: the index of its first byte\n"
        "    for k in range(len(parts) - 1):\n"
        "        rank = ranks.get((parts[k], parts[k + 1]))\n"
        "        if rank is not None:\n            heap.append((rank, offset))\n        offset += len(parts[k])\n"),),
        "the positions are byte offsets", "the positions are byte offsets"),
    "first-rank-by-place-in-dict": ("task1_first_heap_solution", ((
        "        rank = ranks.get((parts[position], parts[position + 1]))\n        if rank is not None:\n",
        "        pair = (parts[position], parts[position + 1])\n"
        "        rank = list(ranks).index(pair) if pair in ranks else None  # ranks lists the merges in order\n"
        "        if rank is not None:\n"),), "numbered by each pair's place in the dict", "by each pair's place in the dict"),
    "merge-same-rank-as-the-last-skipped": ("task2_merge_all_solution", ((
        "    while heap:\n        rank, start = heapq.heappop(heap)\n",
        "    last_rank = None\n    while heap:\n        rank, start = heapq.heappop(heap)\n"
        "        if rank == last_rank:\n            continue  # a duplicate of the entry just popped\n"
        "        last_rank = rank\n"),), "the same rank as the entry popped just before", "the same rank as the entry"),
    "merge-absorbed-part-kept": ("task2_merge_all_solution", ((
        "parts[start], parts[right_start] = merged, None", "parts[start] = merged  # the right part is unlinked below"),),
        "the right part of a merge still holds its token", "set parts[next_[i]] = None"),
    "merge-pushes-by-heapreplace": ("task2_merge_all_solution", ((
        "                heapq.heappush(heap, (new, start))\n", "                heapq.heapreplace(heap, (new, start))\n"),),
        ("heapq raised IndexError", "heapreplace(heap, entry) pops the top entry"),  # raised, or an entry lost
        "heapreplace(heap, entry) pops the top entry"),
    "merge-new-pairs-looked-up-as-joined-bytes": ("task2_merge_all_solution", (
        ("new = ranks.get((merged, parts[after]))", "new = ranks.get(merged + parts[after])"),
        ("new = ranks.get((parts[before], merged))", "new = ranks.get(parts[before] + merged)")),
        "ranks has no key of joined bytes", "ranks has no key of joined bytes"),
    "merge-stale-rank-defaults-to-the-popped-one": ("task2_merge_all_solution", ((
        "ranks.get((left, parts[right_start])) != rank", "ranks.get((left, parts[right_start]), rank) != rank"),),
        "ranks.get(pair, rank) gives the popped rank", "compare without a default"),
    "merge-right-pair-pushed-with-the-popped-rank": ("task2_merge_all_solution", ((
        "                heapq.heappush(heap, (new, start))\n", "                heapq.heappush(heap, (rank, start))\n"),),
        "the popped rank is the merged pair's", "push (its own rank, i)"),
    "encode-last-byte-dropped": ("task3_heap_encode_solution", ((
        "    parts = list(split_into_bytes(pretoken))\n",
        "    parts = [pretoken[i:i + 1] for i in range(len(pretoken) - 1)]\n"),),
        "do not join back into the pretoken", "do not join back into the pretoken"),
    "encode-a-token-pretoken-as-one": ("task3_heap_encode_solution", ((
        "    parts = list(split_into_bytes(pretoken))\n",
        "    if pretoken in {left + right for left, right in ranks}:\n        return [pretoken]  # already one token\n"
        "    parts = list(split_into_bytes(pretoken))\n"),), "is no shortcut: run the heap on it too", "is no shortcut"),
    "encode-heap-sorted-by-position": ("task3_heap_encode_solution", ((
        "    return merge_all(parts, ranks, first_heap(parts, ranks))\n",
        "    return merge_all(parts, ranks, sorted(first_heap(parts, ranks), key=lambda entry: entry[1]))  # left to right\n"),),
        "sorted by position, left to right", "Hand merge_all the list first_heap returns"),
}
RECURSIVE_SEARCH = '''    alive = [True] * (n + 1)

    def search(pos: int, previous: bytes | None) -> list[bytes] | None:  # the tokens from pos on, or None: dead
        if pos == n:
            return []
        if not alive[pos]:
            return None
        for token in starting_at(pos):
            if previous is None or compatible(previous, token, ranks):
                rest = search(pos + len(token), token)
                if rest is not None:
                    return [token] + rest
        alive[pos] = False
        return None

    return search(0, None)
'''
LAB08_WALK52 = {
    "compatible-boundary-bytes-only": ("task1_compatible_solution", ((
        "return encode_pretoken(left + right, ranks) == [left, right]",
        "return (left[-1:], right[:1]) not in ranks  # no merge across the boundary"),),
        "whether the two bytes at the boundary", "whether the two bytes at the boundary"),
    # encode_pretoken's list compared with a tuple: never equal (was told only "that is what compatible means")
    "compatible-against-a-tuple": ("task1_compatible_solution", ((
        "return encode_pretoken(left + right, ranks) == [left, right]",
        "return encode_pretoken(left + right, ranks) == (left, right)"),),
        "a tuple (left, right) never equals a list", "a tuple (left, right) never equals a list"),
    "backtrack-longest-of-the-pairs": ("task2_backtrack_encode_solution", ((
        "    longest = max(map(len, valid), default=1)\n", "    longest = max(map(len, ranks), default=1)\n"),),
        "K the longest valid token's length", "K the longest valid token's length"),
    "backtrack-recursive": ("task2_backtrack_encode_solution", ((
        "    alive = [True] * (n + 1)", RECURSIVE_SEARCH + "    alive = [True] * (n + 1)"),),
        "keep the accepted tokens on a list", "keep the accepted tokens on a list"),
    "last-predecessor-from-the-readme": ("task3_last_tokens_solution", ((
        "compatible(last[start], token, ranks)", "compatible(last[end + 1 - len(token)], token, ranks)"),),
        "the crate's README reads last_tokens[pos + 1 - len]", "the crate's README reads"),
    "counts-from-the-empty-prefix": ("task4_prefix_token_counts_solution", ((
        "    for end in range(1, len(last)):\n        counts[end] = counts[end - len(last[end])] + 1\n",
        "    for end, token in enumerate(last):\n        counts[end] = counts[end - len(token)] + 1\n"),),
        "start the loop at end 1", "start the loop at end 1"),
}
# Measured (their hidden test's cost, seconds of CPU at the first verdict): graded stopped at it (at_the_first_verdict)
LAB08_WALK52_MEASURED = {
    "backtrack-candidates-up-to-the-end": ("task2_backtrack_encode_solution", ((
        "range(min(n, pos + longest), pos, -1)", "range(n, pos, -1)"),), "candidates tried up to the pretoken's end"),
    "last-encoding-of-every-prefix-copied": ("task3_last_tokens_solution", (
        ("    last: list[bytes | None] = [None]\n",
         "    last: list[bytes | None] = [None]\n    encodings = [[]]  # the encoding of every prefix\n"),
        ("                last.append(token)\n",
         "                encodings.append(encodings[start] + [token])\n                last.append(encodings[end][-1])\n")),
        "a list copied at each position"),
    "counts-list-added-per-entry": ("task4_prefix_token_counts_solution", ((
        "    counts = [0] * len(last)\n    for end in range(1, len(last)):\n        counts[end] = counts[end - len(last[end])] + 1\n",
        "    counts = [0]\n    for end in range(1, len(last)):\n        counts = counts + [counts[end - len(last[end])] + 1]\n"),),
        "a new list made for each entry"),
    "counts-list-copied-per-entry": ("task4_prefix_token_counts_solution", ((
        "        counts[end] = counts[end - len(last[end])] + 1\n",
        "        counts = list(counts)  # a fresh list: the caller's is never touched\n"
        "        counts[end] = counts[end - len(last[end])] + 1\n"),), "a new list made for each entry"),
    "counts-sliced-per-entry": ("task4_prefix_token_counts_solution", ((
        "    counts = [0] * len(last)\n    for end in range(1, len(last)):\n        counts[end] = counts[end - len(last[end])] + 1\n",
        "    counts = [0]\n    for end in range(1, len(last)):\n        counts = counts[:end] + [counts[end - len(last[end])] + 1]\n"),),
        "a new list made for each entry"),
}
WALK52_ROUND = {(lab, name): mistake[:3] for lab, table in (("07_heap_encoding", LAB07_WALK52),
                                                            ("08_linear_encoding", LAB08_WALK52)) for name, mistake in table.items()}
# Lost their points before the round with a hint that named another mistake, a general one or none (the round's fixes):
# each fails on main by the message it expects.
CAUGHT_BEFORE_WALK52 = [("07_heap_encoding", "encode-last-byte-dropped"), ("08_linear_encoding", "backtrack-longest-of-the-pairs")]
FIXED_BY_WALK52 = sorted(key for key in WALK52_ROUND if key not in CAUGHT_BEFORE_WALK52)


@pytest.mark.seeded
@pytest.mark.parametrize("lab, mistake", FIXED_BY_WALK52, ids=[f"{lab[:2]}-{name}" for lab, name in FIXED_BY_WALK52])
def test_labs07_08_walk52_a_mistake_the_round_fixed_fails_the_hidden_test_with_its_hint(request, lab, mistake):
    round_failure(request, WALK52_ROUND, lab, mistake)


@pytest.mark.parametrize("lab, mistake", CAUGHT_BEFORE_WALK52, ids=[f"{lab[:2]}-{name}" for lab, name in CAUGHT_BEFORE_WALK52])
def test_labs07_08_walk52_a_learners_mistake_of_the_round_fails_the_hidden_test(request, lab, mistake):
    round_failure(request, WALK52_ROUND, lab, mistake)


WALK52_VISIBLE = {**{("07_heap_encoding", name): mistake for name, mistake in LAB07_WALK52.items()},
                  **{("08_linear_encoding", name): mistake for name, mistake in LAB08_WALK52.items()}}


@pytest.mark.parametrize("lab, mistake", sorted(WALK52_VISIBLE), ids=[f"{lab[:2]}-{name}" for lab, name in sorted(WALK52_VISIBLE)])
def test_labs07_08_walk52_a_mistake_fails_the_visible_test_with_a_hint_that_names_it(request, lab, mistake):
    """The visible test (advice) fails too, and its hint points at the mistake: before the round, positions as byte offsets
    and a pretoken that is a merge's bytes passed it, and the others were told another mistake's hint or none."""
    graders, solutions = request.getfixturevalue(f"lab{lab[:2]}")
    cell, changes, _, visible = WALK52_VISIBLE[lab, mistake]
    name = cell.split("_", 1)[1].removesuffix("_solution")
    found = failure(getattr(graders, f"check_{name}"), variant_of(lab, solutions, cell, name, changes))
    assert "hint: " in found and visible in found, found


@pytest.mark.parametrize("mistake", sorted(LAB08_WALK52_MEASURED))
def test_lab08_walk52_a_measured_mistake_loses_its_task_with_a_hint_that_names_it(lab08, mistake, at_the_first_verdict):
    """Task 4's lists made per entry kept their points before the round (a table of 10,000 entries); tasks 2's and 3's
    quadratic searches lost theirs told only about replaying the merges."""
    graders, solutions = lab08
    cell, changes, message = LAB08_WALK52_MEASURED[mistake]
    name = cell.split("_", 1)[1].removesuffix("_solution")
    with at_the_first_verdict():
        found = failure(getattr(graders, f"check_{name}_properties"), variant_of("08_linear_encoding", solutions, cell, name,
                                                                               changes))
    assert "CPU time" in found and message in found, found


def test_lab08_walk52_a_list_made_per_entry_loses_task_4_in_the_worker_too(at_the_first_verdict):
    code = source_of("08_linear_encoding", "task4_prefix_token_counts_solution")
    (old, new), = LAB08_WALK52_MEASURED["counts-list-added-per-entry"][1]
    with at_the_first_verdict():
        message = remote("08_linear_encoding", code.replace(old, new), "prefix_token_counts", "check_prefix_token_counts_properties")
    assert message is not None and "a new list made for each entry" in message, message
    assert remote("08_linear_encoding", code, "prefix_token_counts", "check_prefix_token_counts_properties") is None


@pytest.mark.parametrize("lab, mistakes, hints", [
    ("07_heap_encoding", ("first-positions-as-byte-offsets", "merge-same-rank-as-the-last-skipped", "encode-a-token-pretoken-as-one"),
     {"task1_first_heap": "the positions are byte offsets", "task2_merge_all": "the same rank as the entry popped just before",
      "task3_heap_encode": "is no shortcut"}),
    ("08_linear_encoding", ("compatible-boundary-bytes-only", "backtrack-recursive", "last-predecessor-from-the-readme",
                            "counts-list-added-per-entry"),
     {"task1_compatible": "whether the two bytes at the boundary", "task2_backtrack_encode": "keep the accepted tokens on a list",
      "task3_last_tokens": "the crate's README reads", "task4_prefix_token_counts": "a new list made for each entry"}),
], ids=["07", "08"])
def test_labs07_08_walk52_the_rounds_mistakes_lose_their_tasks_in_a_class_with_their_hints(monkeypatch, lab, mistakes, hints):
    """The class path (``grade_cells`` in a grading worker with the class's seed, as ``nbgrader autograde`` grades a class):
    one notebook holds a mistake in each task; each loses its own task's visible and hidden points with its hint, and the
    honest notebook keeps all."""
    from bpe_ref.course.checks import running
    from bpe_ref.course.trusted.autograde import grade_cells

    table = {**WALK52_VISIBLE, **{("08_linear_encoding", name): mistake for name, mistake in LAB08_WALK52_MEASURED.items()}}

    def notebook(names: tuple = ()) -> list[dict]:
        cells = read_notebook_json(source_notebook(lab))["cells"]
        for name in names:
            cell_id, changes, *_ = table[lab, name]
            cell = next(cell for cell in cells if cell["id"] == cell_id)
            for old, new in changes:
                assert old in cell["source"], old
                cell["source"] = cell["source"].replace(old, new, 1)
        return cells

    monkeypatch.setattr(running, "_KEPT", {"seed": None, "tests": {}})
    policy, class_seed = Policy(cell_timeout=60, call_timeout=60), 20261203
    honest = grade_cells(notebook(), lab, policy=policy, seed=class_seed, whole_class=True)
    assert all(v.passed for v in honest.verdicts), [v for v in honest.verdicts if not v.passed]
    mistaken = grade_cells(notebook(mistakes), lab, policy=policy, seed=class_seed, whole_class=True)
    lost = {v.grade_id: v.message for v in mistaken.verdicts if not v.passed}
    assert sorted(lost) == sorted(f"{task}{part}" for task in hints for part in ("", "_hidden")), mistaken.verdicts
    for grade_id, message in lost.items():
        assert hints[grade_id.removesuffix("_hidden")] in message, (grade_id, message)


# ---- labs 01, 02, 04, 05 and 10, novel52: a twenty-first learner round (issue 21, item 8) -----------------------------
# Kinds the earlier rounds left out, each graded by its task's hidden test under secret seeds 0 to 15 (BPE_SEEDS=0:16)
# and the derandomized draw: lab 01's bytes from 0x80 on taken for characters (tokens compared as text decoded with
# errors="replace", a merge on the decoded tokens encoded again, a merged token joined by chr, a pair's tokens decoded as
# Latin-1 and encoded as UTF-8, counts keyed by the decoded pair, ties on the text decoded with surrogateescape, the
# pretokens split into Latin-1 characters or stripped of their bytes from 0x80 on); lab 02's merge of its own comparing the
# tokens as text, its merged tokens decoded as Latin-1, its windows turned round (zip(word[1:], word)), a word's id found
# by words.index(word); lab 04's index of one set per word shared by its new pairs, of frozensets, of equal sets stored
# once, a window that holds the token at either end (startswith, endswith), the merged token made of decoded tokens, the
# index made a plain dict; lab 10's range normalized (NFC, NFKC, its \r\n made \n), merge_two keyed by the normalized
# text, a file's size in characters, ranges deduplicated, special tokens encoded as Latin-1 (a special token beyond
# ASCII).
# Kept their points before the round, each now caught by a hidden check drawn from the grading's secret seed, with a hint
# of its own: lab 01's three merge_words that take bytes for characters (the generated words held letters and brackets
# alone: verify_high_bytes); lab 05's merge_occurrences that keeps the zero changes (dict(changes)), under secret seed 1
# of 0-15 (the fifth round's merge-zero-changes-kept; verify_touching_occurrences draws words where the pair occurs
# several times in a row); lab 02's pair_count_changes that takes bytes for characters (verify_high_byte_changes) and
# train that finds a word by words.index (measured: EVERY_WORD_CHANGES, one merge that changes every word; the merges are
# right); lab 04's index_words of frozensets or of sets shared by equal pairs (its driver now files a new id under a pair
# the index lists too); lab 10's count_range and merge_two that normalize the text (verify_range_not_normalized,
# verify_keys_as_bytes), plan_ranges that encodes the special tokens as Latin-1 (verify_tokens_beyond_ascii). Lost their
# points before with no hint or another's: lab 01's count_pairs and train that took bytes for characters, lab 04's sets
# shared per word (told of the pair no word holds), lab 10's range whose \r\n are made \n (told of text mode), lab 02's
# windows turned round (no hint, or one for a merge from the right).
# (Tried and left out, the solution's answer on every input: lab 02's filter on the pair's joined bytes in the word's
# (a pass over the words per merge, as the two `in` tests are), lab 04's new pairs filed as every pair of the rewritten
# word and the merged pair's ids left in the index (sets take a repeat as nothing; the pair never recurs unmerged), lab
# 10's merge_two by Counter addition (counts are positive).)
LAB01_NOVEL52 = {
    "merge-tokens-compared-as-text": ("task3_merge_word_solution", ((
        "word[i] == pair[0] and word[i + 1] == pair[1]",
        "word[i].decode('utf-8', 'replace') == pair[0].decode('utf-8', 'replace')"
        " and word[i + 1].decode('utf-8', 'replace') == pair[1].decode('utf-8', 'replace')"),),
        "every lone byte from 0x80 on reads as the same character"),
    "merge-on-text-tokens": ("task3_merge_word_solution", ((
        "    merged = []\n    i = 0\n",
        "    word = tuple(token.decode('utf-8', 'replace') for token in word)  # as text, to compare\n"
        "    pair = tuple(token.decode('utf-8', 'replace') for token in pair)\n    merged = []\n    i = 0\n"),
        ("    return tuple(merged)\n", "    return tuple(token.encode('utf-8') for token in merged)\n")),
        "spell other bytes than the word"),
    "merge-token-joined-by-chr": ("task3_merge_word_solution", ((
        "merged.append(word[i] + word[i + 1])", "merged.append(''.join(map(chr, word[i] + word[i + 1])).encode())"),),
        "spell other bytes than the word"),
    "count-pairs-latin-1-to-utf-8": ("task1_count_pairs_solution", ((
        "            counts[pair] += frequency\n",
        "            counts[tuple(token.decode('latin-1').encode('utf-8') for token in pair)] += frequency\n"),),
        "holds a token that no word has"),
    "count-pairs-keyed-by-text": ("task1_count_pairs_solution", (
        ("    counts: dict[Pair, int] = defaultdict(int)\n", "    counts: dict[Pair, int] = defaultdict(int)\n    seen = {}\n"),
        ("            counts[pair] += frequency\n",
         "            key = tuple(token.decode('utf-8', 'replace') for token in pair)  # readable keys\n"
         "            seen.setdefault(key, pair)\n            counts[key] += frequency\n"),
        ("    return dict(counts)\n", "    return {seen[key]: count for key, count in counts.items()}\n")),
        "pairs whose bytes differ were counted as one"),
    "best-ties-on-surrogateescape-text": ("task2_best_pair_solution", ((
        "key=lambda pair: (pair_counts[pair], pair))",
        "key=lambda pair: (pair_counts[pair], tuple(t.decode('utf-8', 'surrogateescape') for t in pair)))"),),
        "compare the left tokens as bytes first"),
    "train-split-into-latin-1-characters": ("task4_train_solution", ((
        "split_into_bytes(pretoken)", "tuple(ch.encode() for ch in pretoken.decode('latin-1'))"),),
        "joins bytes that no pretoken holds"),
    "train-split-without-high-bytes": ("task4_train_solution", ((
        "split_into_bytes(pretoken)", "split_into_bytes(pretoken.decode('ascii', 'ignore').encode())"),),
        "without their bytes from 0x80 on"),
}
LAB02_NOVEL52 = {
    "changes-own-merge-comparing-text": ("task1_pair_count_changes_solution", ((
        "    merged = merge_word(word, pair)\n",
        "    text = [token.decode('utf-8', 'replace') for token in word]  # readable, to compare\n"
        "    merged, i = [], 0\n    while i < len(word):\n"
        "        if text[i:i + 2] == [pair[0].decode('utf-8', 'replace'), pair[1].decode('utf-8', 'replace')]:\n"
        "            merged.append(word[i] + word[i + 1])\n            i += 2\n"
        "        else:\n            merged.append(word[i])\n            i += 1\n"),),
        "a merge that took a window that is not the pair too"),
    "changes-merged-word-of-decoded-tokens": ("task1_pair_count_changes_solution", ((
        "    merged = merge_word(word, pair)\n",
        "    merged = tuple(token.decode('latin-1').encode() for token in merge_word(word, pair))  # as text\n"),),
        "holds bytes the word does not"),
    "changes-windows-turned-round": ("task1_pair_count_changes_solution", (
        ("    for old in zip(word, word[1:]):\n", "    for old in zip(word[1:], word):\n"),
        ("    for new in zip(merged, merged[1:]):\n", "    for new in zip(merged[1:], merged):\n")), "each pair is turned round"),
}
# Measured: the merges are right (the words are distinct), the walks of words.index cost a merge that changes every word.
LAB02_NOVEL52_MEASURED = {
    "train-word-found-by-index": ("task3_train_solution", ((
        "        for i, word in enumerate(words):\n"
        "            if left in word and right in word:  # cheap filter before the real merge\n",
        "        for word in words:\n            if left in word and right in word:  # cheap filter before the real merge\n"
        "                i = words.index(word)\n"),), "words.index(word) walks the list"),
}
LAB04_NOVEL52 = {
    "index-sets-shared-per-word": ("task1_index_words_solution", ((
        "    for i, word in enumerate(words):\n        for pair in zip(word, word[1:]):\n            index[pair].add(i)\n",
        "    for i, word in enumerate(words):\n        ids = {i}  # this word's id, filed under each of its new pairs\n"
        "        for pair in zip(word, word[1:]):\n            if pair in index:\n                index[pair].add(i)\n"
        "            else:\n                index[pair] = ids\n"),), "share one set object"),
    "index-ids-frozen": ("task1_index_words_solution", ((
        "    return index\n", "    return defaultdict(set, {pair: frozenset(ids) for pair, ids in index.items()})  # fixed\n"),),
        "a pair's ids are a frozenset"),
    "index-sets-interned": ("task1_index_words_solution", ((
        "    return index\n", "    same = {}\n    for pair, ids in index.items():  # equal sets stored once\n"
        "        index[pair] = same.setdefault(frozenset(ids), ids)\n    return index\n"),), "share one set object"),
    "pairs-with-token-at-either-end": ("task2_pairs_with_solution", ((
        "if token in pair]", "if pair[0].startswith(token) or pair[1].endswith(token)]"),), "tokens are compared whole"),
    "train-token-of-the-pair-decoded": ("task3_train_solution", ((
        "        token = pair[0] + pair[1]\n",
        "        token = (pair[0].decode('utf-8', 'replace') + pair[1].decode('utf-8', 'replace')).encode()\n"),),
        "train(", "check_train_merges"),
    "train-index-made-a-plain-dict": ("task3_train_solution", ((
        "    index = index_words(words)\n", "    index = dict(index_words(words))  # a plain dict is enough\n"),),
        "index[pair] on a plain", "check_train_merges"),
}
LAB10_NOVEL52 = {
    "range-normalized-nfc": ("task1_count_range_solution", ((
        'return count_pretokens(data.decode("utf-8"), special_tokens)',
        'import unicodedata\n\n    return count_pretokens(unicodedata.normalize("NFC", data.decode("utf-8")), special_tokens)'),),
        "normalized (NFC"),  # "(NFC or NFKC)" where the text tells them not apart (fix53)
    "range-normalized-nfkc": ("task1_count_range_solution", ((
        'return count_pretokens(data.decode("utf-8"), special_tokens)',
        'import unicodedata\n\n    return count_pretokens(unicodedata.normalize("NFKC", data.decode("utf-8")), special_tokens)'),),
        "NFKC): 'é' may be"),
    "range-line-ends-normalized": ("task1_count_range_solution", ((
        'data.decode("utf-8")', 'data.decode("utf-8").replace("\\r\\n", "\\n")'),), "with each \\r\\n made \\n"),
    "merge-keys-normalized": ("task2_merge_two_solution", ((
        "        total[pretoken] = total.get(pretoken, 0) + count\n",
        "        import unicodedata\n\n        key = unicodedata.normalize('NFC', pretoken.decode('utf-8')).encode('utf-8')\n"
        "        total[key] = total.get(key, 0) + count\n"),), "two pretokens were added up as one"),
    "plan-size-of-the-text": ("task4_plan_ranges_solution", ((
        "boundaries = [0, os.path.getsize(path)]", "boundaries = [0, len(open(path, encoding='utf-8').read())]"),),
        "the file's size in characters"),
    "plan-tokens-as-latin-1": ("task4_plan_ranges_solution", ((
        'token.encode("utf-8")', 'token.encode("latin-1")'),), "a special token may hold characters beyond ASCII"),
    "plan-tokens-as-latin-1-replaced": ("task4_plan_ranges_solution", ((
        'token.encode("utf-8")', 'token.encode("latin-1", "replace")'),),
        "a special token may hold characters beyond ASCII"),
    "count-ranges-deduplicated": ("task5_count_ranges_solution", ((
        "for path, start, end in ranges]", "for path, start, end in dict.fromkeys(ranges)]"),),
        "fewer pretokens than the ranges hold"),
}
NOVEL52_ROUND = {(lab, name): mistake for lab, table in (
    ("01_naive_bpe", LAB01_NOVEL52), ("02_incremental", LAB02_NOVEL52), ("02_incremental", LAB02_NOVEL52_MEASURED),
    ("04_inverted_index", LAB04_NOVEL52), ("10_distributed", LAB10_NOVEL52)) for name, mistake in table.items()}
KEPT_BEFORE_NOVEL52 = {("01_naive_bpe", "merge-tokens-compared-as-text"), ("01_naive_bpe", "merge-on-text-tokens"),
                       ("01_naive_bpe", "merge-token-joined-by-chr"), ("02_incremental", "changes-own-merge-comparing-text"),
                       ("02_incremental", "changes-merged-word-of-decoded-tokens"), ("04_inverted_index", "index-ids-frozen"),
                       ("04_inverted_index", "index-sets-interned"), ("10_distributed", "range-normalized-nfc"),
                       ("10_distributed", "range-normalized-nfkc"), ("10_distributed", "merge-keys-normalized"),
                       ("10_distributed", "plan-tokens-as-latin-1"), ("10_distributed", "plan-tokens-as-latin-1-replaced")}
HINTED_NOVEL52 = {("01_naive_bpe", "count-pairs-latin-1-to-utf-8"), ("01_naive_bpe", "count-pairs-keyed-by-text"),
                  ("01_naive_bpe", "train-split-into-latin-1-characters"), ("01_naive_bpe", "train-split-without-high-bytes"),
                  ("04_inverted_index", "index-sets-shared-per-word"), ("10_distributed", "range-line-ends-normalized"),
                  ("02_incremental", "changes-windows-turned-round")}
CAUGHT_BEFORE_NOVEL52 = [key for key in NOVEL52_ROUND if key not in KEPT_BEFORE_NOVEL52 | HINTED_NOVEL52
                         and key[1] not in LAB02_NOVEL52_MEASURED]


@pytest.mark.seeded
@pytest.mark.parametrize("lab, mistake", sorted(KEPT_BEFORE_NOVEL52 | HINTED_NOVEL52),
                         ids=[f"{lab[:2]}-{name}" for lab, name in sorted(KEPT_BEFORE_NOVEL52 | HINTED_NOVEL52)])
def test_labs01_02_04_10_a_twenty_first_rounds_mistake_now_fails_the_hidden_test_with_its_hint(request, lab, mistake):
    """Fails on main under every seed: the mistake kept its hidden points, or lost them with no hint."""
    round_failure(request, NOVEL52_ROUND, lab, mistake)


@pytest.mark.parametrize("lab, mistake", [pytest.param(*key, id=f"{key[0][:2]}-{key[1]}") for key in CAUGHT_BEFORE_NOVEL52])
def test_labs01_02_04_10_a_learners_mistake_of_the_twenty_first_round_fails_the_hidden_test(request, lab, mistake):
    # those that lost their points, with a fitting message, before this round: one per lab by default
    one_per_lab("twenty-first", CAUGHT_BEFORE_NOVEL52, lab, mistake)
    round_failure(request, NOVEL52_ROUND, lab, mistake)


def test_lab02_novel52_a_word_found_by_words_index_fails_the_hidden_test(request, at_the_first_verdict):
    """Fails on main: the merges are right and the measured corpus's merges change one word each, near the end of 4,000
    (a few milliseconds of walks); the hidden test now times one merge that changes every word (EVERY_WORD_CHANGES)."""
    with at_the_first_verdict():
        round_failure(request, NOVEL52_ROUND, "02_incremental", "train-word-found-by-index")


@WORKER_TWIN
def test_lab02_novel52_a_word_found_by_words_index_fails_in_the_worker_too(at_the_first_verdict):
    """The CPU time of one merge that changes every word, measured from outside the grading worker: the same verdict."""
    code = "\n".join(source_of("02_incremental", cell) for cell in ("setup", "task1_pair_count_changes_solution",
                                                                   "task2_merge_and_update_solution", "task3_train_solution"))
    (old, new), = LAB02_NOVEL52_MEASURED["train-word-found-by-index"][1]
    with at_the_first_verdict():
        message = remote("02_incremental", code.replace(old, new), "train", "check_train_properties")
    assert message is not None and "words.index(word) walks the list" in message, message
    assert remote("02_incremental", code, "train", "check_train_properties") is None


@pytest.mark.seeded
def test_lab05_novel52_merge_occurrences_that_keeps_zero_changes_fails_the_hidden_test_under_every_seed(request):
    """The fifth round's mistake kept task 4's hidden points under secret seed 1 (BPE_SEEDS=1:2 on main): the hidden test
    now ends with lists drawn from the seed where the pair occurs several times in a row (verify_touching_occurrences)."""
    found = round_failure(request, FIFTH_ROUND_05_TO_10, "05_heap", "merge-zero-changes-kept")
    assert "a change of 0 is no change" in found, found


# ---- labs 00, 03 and 09, learn52: the labs worked as a new learner, from a fresh clone (issue 21's walk) ---------------
# Mistakes of a learner who read pages 00, 03 and 09 and the statements, each graded by its task's hidden test under
# secret seeds 0 to 15 (BPE_SEEDS=0:16) and the derandomized draw (lab 03's task 4 ones, measured in worker pools, under
# 0 to 3). Closed by this round: lab 00's counts keyed by tuples (of byte tokens, or task 1's ids) lost task 4 with no
# hint or "ints where bytes were expected", its counts returned as sorted items with that hint too (now: tuples as keys;
# a list of pairs), and pretokenize with `re` (no \p{L}) with none; lab 03's find_chunk_boundaries with an overlap of
# len(EOT) - 1 kept its points (no hidden case had a special token longer than <|endoftext|>: one has <|endofprompt|>
# now), and task 4's chunks put together by dict.update lost its points with no hint; lab 09's interleaved that asserts
# rounds >= 1 (no hint), fit_exponent as sxx / sxy (told to fit over all the points), crossover interpolated in log x or
# on a relative difference (told "the first crossing ... noisy curves"), and peak_memory by a snapshot comparison or
# the process's maximum RSS (a peak of 0, no hint). Tried and left out, no loss: utf8_bytes with errors="replace" (no
# case has a lone surrogate), count_chunk decoded with surrogateescape (count_pretokens then raises UnicodeEncodeError:
# the file is not counted either way), interleaved's times rounded to microseconds, fit_exponent without its check of
# positive values (math.log raises ValueError itself). Graded in the worker only: peak_memory that never stops tracing
# (below) kept its points graded in process, where the tracing it leaves on is on too when the reference is called next.
LAB00_LEARN52 = {
    "utf8-each-character-lowest-byte-first": ("task1_utf8_bytes_solution", ((
        '    return list(text.encode("utf-8"))\n',
        '    return [b for character in text for b in reversed(character.encode("utf-8"))]  # lowest byte first\n'),), "utf8_bytes("),
    "split-by-hand-last-piece-dropped": ("task2_split_on_special_tokens_solution", ((
        "    return regex.split(pattern, text)\n",
        "    pieces, last = [], 0\n    for match in regex.finditer(pattern, text):\n"
        "        pieces.append(text[last:match.start()])\n        last = match.end()\n    return pieces\n"),),
        "split_on_special_tokens("),
    "split-by-hand-tokens-kept-in-front": ("task2_split_on_special_tokens_solution", ((
        "    return regex.split(pattern, text)\n",
        "    pieces, last = [], 0\n    for match in regex.finditer(pattern, text):\n"
        "        pieces.append(text[last:match.start()])\n        last = match.start()\n"
        "    pieces.append(text[last:])\n    return pieces\n"),), "split_on_special_tokens("),
    "pretokenize-with-re": ("task3_pretokenize_solution", ((
        "def pretokenize(", "import re\n\n\ndef pretokenize("), (
        "regex.findall(GPT2_PATTERN, piece)", "re.findall(GPT2_PATTERN, piece)")), "re module does not know"),
    "pretokenize-match-objects": ("task3_pretokenize_solution", ((
        "regex.findall(GPT2_PATTERN, piece)", "regex.finditer(GPT2_PATTERN, piece)"),), "pretokenize("),
    "pretokenize-overlapped-matches": ("task3_pretokenize_solution", ((
        "regex.findall(GPT2_PATTERN, piece)", "regex.findall(GPT2_PATTERN, piece, overlapped=True)"),), "pretokenize("),
    "pretokenize-split-at-eot": ("task3_pretokenize_solution", ((
        "for piece in split_on_special_tokens(text, special_tokens):", "for piece in text.split(EOT):"),), "pretokenize("),
    "count-looked-up-by-str": ("task4_count_pretokens_solution", ((
        "counts.get(key, 0)", "counts.get(pretoken, 0)"),), "count_pretokens("),
    "count-keyed-by-the-ids": ("task4_count_pretokens_solution", ((
        'key = pretoken.encode("utf-8")', "key = tuple(utf8_bytes(pretoken))  # task 1's ids"),),
        "tuples as keys where bytes were expected"),
    "count-keyed-by-tuples-of-bytes": ("task4_count_pretokens_solution", ((
        'key = pretoken.encode("utf-8")', 'key = tuple(bytes([b]) for b in pretoken.encode("utf-8"))'),),
        "tuples as keys where bytes were expected"),
    "count-returns-sorted-items": ("task4_count_pretokens_solution", ((
        "    return counts\n", "    return sorted(counts.items(), key=lambda item: -item[1])  # most common first\n"),),
        "a list of (key, value) pairs where a dict was expected"),
}

LAB03_LEARN52 = {
    "find-reads-the-whole-file": ("task1_find_chunk_boundaries_solution", ((
        "                file.seek(position)\n                window = file.read(buffer_size + overlap)\n",
        "                file.seek(0)\n                window = file.read()[position:position + buffer_size + overlap]\n"),),
        "never the whole file"),
    "find-overlap-of-eot": ("task1_find_chunk_boundaries_solution", ((
        "overlap = max(len(token) for token in split_tokens) - 1", "overlap = len(EOT) - 1  # the special token's length"),),
        "too short for a longer token"),
    "find-one-read-per-guess": ("task1_find_chunk_boundaries_solution", ((
        "                position += buffer_size\n", "                position = size  # none after the guess\n"),),
        "find_chunk_boundaries("),
    "chunk-special-tokens-as-bytes": ("task2_count_chunk_solution", ((
        'data.decode("utf-8"), special_tokens)', 'data.decode("utf-8"), [t.encode("utf-8") for t in special_tokens])'),),
        "count_chunk("),
    "merge-keys-of-the-first-chunk": ("task3_merge_counts_solution", ((
        "    total: Counter[bytes] = Counter()\n    for chunk_counts in counts:\n        total.update(chunk_counts)\n"
        "    return dict(total)\n",
        "    counts = list(counts)\n    if not counts:\n        return {}\n"
        "    return {key: sum(chunk.get(key, 0) for chunk in counts) for key in counts[0]}\n"),), "merge_counts("),
    "file-merged-by-dict-update": ("task4_count_pretokens_in_file_solution", (
        ("        return merge_counts(pool.map(", "        total = {}\n        for counts in pool.map("),
        ("[special_tokens] * len(starts)))\n",
         "[special_tokens] * len(starts)):\n            total.update(counts)  # each chunk's counts\n        return total\n")),
        "dict.update and {**a, **b} replace a count"),
    "file-boundaries-at-eot-only": ("task4_count_pretokens_in_file_solution", ((
        '[t.encode("utf-8") for t in special_tokens]', '[EOT.encode("utf-8")]'),), "not at every special token"),
    "file-small-files-counted-here": ("task4_count_pretokens_in_file_solution", ((
        "    if num_workers == 1 or not special_tokens:\n",
        "    if num_workers == 1 or not special_tokens or os.path.getsize(path) < 1 << 20:  # processes do not pay\n"),),
        "in the calling process"),
    "file-threads-not-processes": ("task4_count_pretokens_in_file_solution", ((
        "    with ProcessPoolExecutor(max_workers=num_workers, mp_context=context) as pool:\n",
        "    from concurrent.futures import ThreadPoolExecutor\n"
        "    with ThreadPoolExecutor(max_workers=num_workers) as pool:  # no start-up cost\n"),), "started no process"),
    "file-no-special-tokens-not-serial": ("task4_count_pretokens_in_file_solution", ((
        "    if num_workers == 1 or not special_tokens:\n", "    if num_workers == 1:\n"),), "count_pretokens_in_file("),
}

LAB09_LEARN52 = {
    "interleaved-contender-not-called": ("task1_interleaved_solution", ((
        "                contenders[label]()\n", "                contenders[label]\n"),), "interleaved("),
    "interleaved-rounds-asserted": ("task1_interleaved_solution", ((
        '    if rounds < 1:\n        raise ValueError(f"rounds must be at least 1, got {rounds}")\n',
        '    assert rounds >= 1, f"rounds must be at least 1, got {rounds}"\n'),), "an assert raises AssertionError"),
    "spread-percentiles-off-by-one": ("task2_spread_solution", ((
        '    q1, _, q3 = statistics.quantiles(values, n=4, method="inclusive")\n',
        '    percentiles = statistics.quantiles(values, n=100, method="inclusive")\n    q1, q3 = percentiles[25], percentiles[75]\n'),),
        "spread("),
    "spread-of-distinct-values": ("task2_spread_solution", ((
        "    middle = statistics.median(values)\n", "    values = sorted(set(values))\n    middle = statistics.median(values)\n"),),
        "spread("),
    "ratio-median-in-log-space": ("task3_paired_ratio_solution", ((
        "    return statistics.median([x / y for x, y in zip(times[a], times[b])])\n",
        "    return math.exp(statistics.median([math.log(x / y) for x, y in zip(times[a], times[b])]))  # ratios are multiplicative\n"),),
        "paired_ratio("),
    "ratio-rounded": ("task3_paired_ratio_solution", ((
        "    return statistics.median(", "    return round(statistics.median("),
        ("zip(times[a], times[b])])\n", "zip(times[a], times[b])]), 3)\n")),
        "paired_ratio("),
    "ratio-median-grouped": ("task3_paired_ratio_solution", ((
        "statistics.median(", "statistics.median_grouped("),), "paired_ratio("),
    "exponent-inverted": ("task4_fit_exponent_solution", ((
        "    return sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys)) / sxx\n",
        "    return sxx / sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys))\n"),),
        ("the times are all equal, so the slope is 0", "that is 1 / the slope")),  # walk61's case of close sizes: first
    "crossover-interpolated-in-log-space": ("task5_crossover_solution", ((
        "            return xs[i] + (xs[i + 1] - xs[i]) * d[i] / (d[i] - d[i + 1])\n",
        "            t = d[i] / (d[i] - d[i + 1])  # sizes grow geometrically: interpolate log(x)\n"
        "            return math.exp(math.log(xs[i]) + (math.log(xs[i + 1]) - math.log(xs[i])) * t)\n"),), "the right two points"),
    "crossover-relative-difference": ("task5_crossover_solution", ((
        "    d = [a - b for a, b in zip(ys_a, ys_b)]\n", "    d = [(a - b) / b for a, b in zip(ys_a, ys_b)]  # how much slower a is\n"),),
        "the right two points"),
    "crossover-xs-checked-at-the-ends": ("task5_crossover_solution", ((
        "    if any(x0 >= x1 for x0, x1 in zip(xs, xs[1:])):\n", "    if xs[0] >= xs[-1]:\n"),), "must raise ValueError"),
    "peak-of-a-snapshot-comparison": ("task6_peak_memory_solution", ((
        "        before = tracemalloc.get_traced_memory()[0]\n        result = fn()\n        peak = tracemalloc.get_traced_memory()[1]\n",
        "        first = tracemalloc.take_snapshot()\n        result = fn()\n"
        "        peak = sum(stat.size_diff for stat in tracemalloc.take_snapshot().compare_to(first, 'filename'))\n"
        "        before = 0\n"),), "a peak of about 0"),
    "peak-by-ru-maxrss": ("task6_peak_memory_solution", ((
        "        before = tracemalloc.get_traced_memory()[0]\n        result = fn()\n        peak = tracemalloc.get_traced_memory()[1]\n",
        "        import resource\n        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024\n        result = fn()\n"
        "        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # KiB on Linux\n"),), "a peak of about 0"),
}
LEARN52_ROUND = {(lab, name): mistake for lab, table in (
    ("00_pretokenization", LAB00_LEARN52), ("03_parallel", LAB03_LEARN52), ("09_benchmarks", LAB09_LEARN52))
    for name, mistake in table.items()}
# Lost their points before the round with no hint or another mistake's, or kept them (lab 03's overlap of len(EOT) - 1):
# each fails on main by the message it expects.
FIXED_BY_LEARN52 = {("00_pretokenization", name) for name in (
    "pretokenize-with-re", "count-keyed-by-the-ids", "count-keyed-by-tuples-of-bytes", "count-returns-sorted-items")} | {
    ("03_parallel", name) for name in ("find-overlap-of-eot", "file-merged-by-dict-update")} | {
    ("09_benchmarks", name) for name in (
        "interleaved-rounds-asserted", "exponent-inverted", "crossover-interpolated-in-log-space",
        "crossover-relative-difference", "peak-of-a-snapshot-comparison", "peak-by-ru-maxrss")}
CAUGHT_BEFORE_LEARN52 = [key for key in LEARN52_ROUND if key not in FIXED_BY_LEARN52]


@pytest.mark.seeded
@pytest.mark.parametrize("lab, mistake", sorted(FIXED_BY_LEARN52), ids=[f"{lab[:2]}-{name}" for lab, name in sorted(FIXED_BY_LEARN52)])
def test_labs00_03_09_learn52_a_mistake_the_round_fixed_fails_the_hidden_test_with_its_hint(request, lab, mistake):
    round_failure(request, LEARN52_ROUND, lab, mistake)


@pytest.mark.parametrize("lab, mistake", [pytest.param(*key, id=f"{key[0][:2]}-{key[1]}") for key in CAUGHT_BEFORE_LEARN52])
def test_labs00_03_09_learn52_a_learners_mistake_of_the_round_fails_the_hidden_test(request, lab, mistake):
    # those that lost their points, with a fitting message, before this round: one per lab by default
    one_per_lab("learn52", CAUGHT_BEFORE_LEARN52, lab, mistake)
    round_failure(request, LEARN52_ROUND, lab, mistake)


def test_lab09_learn52_peak_memory_that_never_stops_tracing_fails_in_the_worker():
    """Tracing started by peak_memory and left on: graded in process, the reference's call that follows finds it on and
    leaves it so too ('tracing after' True on both sides); in the grading worker, where only the learner's code runs, the
    hidden test tells it with its hint."""
    code = "\n".join(source_of("09_benchmarks", cell) for cell in ("setup", "task6_peak_memory_solution"))
    old = "        if not was_tracing:\n            tracemalloc.stop()\n"
    assert old in code
    message = remote("09_benchmarks", code.replace(old, "        pass  # tracing left on: the next call reuses it\n"),
                     "peak_memory", "check_peak_memory_properties")
    assert message is not None and "stop tracing after the call if it was off before" in message, message


def test_lab09_learn52_fit_exponent_turned_upside_down_fails_the_visible_test_with_its_hint(lab09):
    """sxx / sxy gives 1 / k: the visible test's first case, 2.0, came back 0.5 with no hint."""
    graders, solutions = lab09
    cell, changes, *_ = LAB09_LEARN52["exponent-inverted"]
    mistake = variant_of("09_benchmarks", solutions, cell, "fit_exponent", changes)
    assert "that is 1 / the slope" in failure(graders.check_fit_exponent, mistake)


# ---- labs 03 and 04, fix53: known gaps of count_chunk's hidden inputs and of V4's cost, and hints shared ---------------
# Lab 03's count_chunk (task 2) that normalizes the range's text (NFC, NFKC: 'e' and a combining accent made one 'é', the
# Angstrom sign made 'Å', a ligature split), that decodes it as Latin-1, or that decodes it in blocks of 64 KiB (a
# character of several bytes across a block's edge cut in two); lab 04's train that is lab 02's V2 handed in as V4 (lab
# 02's task 3 as it is: its loop over every word on each merge, two `in` tests a word, no index).
LAB03_FIX53 = {
    "chunk-normalized-nfc": ("task2_count_chunk_solution", ((CHUNK_READ, CHUNK_READ.replace(
        'data.decode("utf-8")', '__import__("unicodedata").normalize("NFC", data.decode("utf-8"))')),), "text normalized (NFC"),
    "chunk-normalized-nfkc": ("task2_count_chunk_solution", ((CHUNK_READ, CHUNK_READ.replace(
        'data.decode("utf-8")', '__import__("unicodedata").normalize("NFKC", data.decode("utf-8"))')),), "NFKC): 'é' may be"),
    "chunk-decoded-as-latin-1": ("task2_count_chunk_solution", ((CHUNK_READ, CHUNK_READ.replace(
        'data.decode("utf-8")', 'data.decode("latin-1")')),), "decoded as latin-1, one character a byte"),
    "chunk-decoded-in-blocks-of-64-kib": ("task2_count_chunk_solution", ((
        "        data = file.read(end - start)\n    return count_pretokens(data.decode(\"utf-8\"), special_tokens)\n",
        "        text, left = [], end - start\n        while left > 0:  # 64 KiB at a time: a big range never held twice\n"
        "            block = file.read(min(65536, left))\n            left -= len(block)\n"
        "            text.append(block.decode(\"utf-8\"))\n    return count_pretokens(\"\".join(text), special_tokens)\n"),),
        "decode the range's bytes whole"),
}
LAB04_FIX53 = {
    "train-v2-handed-in": ("task3_train_solution", ((
        "    index = index_words(words)\n", ""), (
        "        token = pair[0] + pair[1]\n"
        "        for i in index.pop(pair):  # the words that ever held the pair (some of them stale)\n"
        "            word = words[i]\n"
        "            words[i] = merge_and_update(word, pair, frequencies[i], pair_counts)\n"
        "            if len(words[i]) < len(word):  # rewritten: it may hold new pairs, all with the new token\n"
        "                for new_pair in pairs_with(words[i], token):\n"
        "                    index[new_pair].add(i)\n",
        "        left, right = pair\n"  # lab 02's task 3, as it is
        "        for i, word in enumerate(words):\n"
        "            if left in word and right in word:  # cheap filter before the real merge\n"
        "                words[i] = merge_and_update(word, pair, frequencies[i], pair_counts)\n")),
        "not every word", "verify_merge_cost"),
}
FIX53_ROUND = {(lab, name): mistake for lab, table in (("03_parallel", LAB03_FIX53), ("04_inverted_index", LAB04_FIX53))
               for name, mistake in table.items()}
# Kept their points before fix53 (count_chunk's generated files held no text that normalization changes, and no range
# past 9,000 bytes of wide characters: the last character cut by a block of 64 KiB was never there); the Latin-1 decode
# lost them with a cache's hint ("counts kept from an earlier call"). Each fails on main by the message it expects.
FIXED_BY_FIX53 = {("03_parallel", name) for name in (
    "chunk-normalized-nfc", "chunk-normalized-nfkc", "chunk-decoded-in-blocks-of-64-kib", "chunk-decoded-as-latin-1")}


@pytest.mark.seeded
@pytest.mark.parametrize("lab, mistake", sorted(FIXED_BY_FIX53), ids=[f"{lab[:2]}-{name}" for lab, name in sorted(FIXED_BY_FIX53)])
def test_lab03_fix53_a_count_chunk_that_decodes_otherwise_fails_the_hidden_test_with_its_hint(request, lab, mistake):
    round_failure(request, FIX53_ROUND, lab, mistake)


@pytest.mark.skipif(not EXHAUSTIVE, reason="a measured mistake (some 5 s of CPU at its first verdict) that lost its points "
                    "before fix53: tests/test_checks_labs.py grades its twin (lab 02's trainer with an index built and "
                    "unused, v2-filter) by default; BPE_EXHAUSTIVE=1 grades it here too")
def test_lab04_fix53_lab_02s_trainer_handed_in_as_v4_fails_the_hidden_test(request, at_the_first_verdict):
    """Lab 02's task 3 as it is, handed in as lab 04's: the right merges, and a pass over every word on each merge. It lost
    task 3's points before fix53 too: on the measured corpus (81,922 words, 1,500 merges) it spent 13.1 s of CPU time
    where V4 spends 1.1 s (the one-merge run 0.45 s, a growth ratio of 28 for a limit of 2.5; a bound of 0.15 s + 3
    times the reference's, some 3.4 s): stopped at stop_at, about 3 s."""
    with at_the_first_verdict():
        message = round_failure(request, FIX53_ROUND, "04_inverted_index", "train-v2-handed-in")
    assert "measured from outside your code" in message, message


# Mistakes that lost their points with one hint though their fixes differ (their expected messages, the shared hint's
# words, were the same): each hint now names what is wrong in its case, after the words they share. (lab, mistake):
# (its own words, the other mistake's own words, which its message must not hold).
SHARED_HINTS_FIX53 = {
    # lab 04's index_words whose ids cannot take index[new_pair].add(i): all three got "the index must be a defaultdict(set)"
    ("04_inverted_index", "index-ids-in-a-list"): ("a pair's ids here are a list", "a plain dict"),
    ("04_inverted_index", "index-ids-counted-in-a-counter"): ("a pair's ids here are a Counter", "a pair's ids here are a list"),
    ("04_inverted_index", "index-returned-as-a-dict"): ("and it is a plain dict", "a pair's ids here are"),
    # lab 09's crossover between the right two points, interpolated otherwise: "the right two points" for both
    ("09_benchmarks", "crossover-interpolated-in-log-space"): ("you interpolated log x", "the relative difference (a - b) / b,"),
    ("09_benchmarks", "crossover-relative-difference"): ("you interpolated the relative difference", "you interpolated log x"),
    # lab 07's first_heap that leaves entries out: "an entry is missing" for both
    ("07_heap_encoding", "first-stops-at-the-first-non-merge"): ("the scan goes on past it", "one entry per merge"),
    ("07_heap_encoding", "one-entry-per-merge"): ("one entry per merge, where a merge that occurs at several positions",
                                                  "the scan goes on past it"),
    # lab 05's merge_occurrences that raises KeyError: "occurrences may be a plain dict" for both
    ("05_heap", "merge-occurrences-looked-up-with-brackets"): ("the pair merged: occurrences[pair] fails",
                                                               "occurrences may be a plain dict"),
    ("05_heap", "merge-occurrences-as-a-defaultdict"): ("a pair the merge makes: occurrences may be a plain dict",
                                                        "the pair merged"),
    # lab 01's best_pair that breaks a tie otherwise: "compare the left tokens as bytes first" for both
    ("01_naive_bpe", "best-ties-to-the-greatest-reversed-pair"): ("yours is the greatest as (right, left)",
                                                                  "yours is the greatest as text"),
    ("01_naive_bpe", "best-ties-on-surrogateescape-text"): ("yours is the greatest as text, the tokens decoded",
                                                            "yours is the greatest as (right, left)"),
}


def any_round(lab: str, mistake: str) -> dict:
    """The learner round's table that declares ``mistake`` of ``lab`` (its cell, changes and message; not a table of hints
    keyed alike)."""
    return next(table for table in globals().values() if isinstance(table, dict) and (lab, mistake) in table
                and isinstance(table[lab, mistake], tuple) and str(table[lab, mistake][0]).endswith("_solution"))


@pytest.mark.seeded
@pytest.mark.parametrize("lab, mistake", list(SHARED_HINTS_FIX53), ids=[f"{lab[:2]}-{name}" for lab, name in SHARED_HINTS_FIX53])
def test_labs01_04_05_07_09_fix53_mistakes_that_shared_a_hint_get_one_each(request, lab, mistake):
    """Fails on main: each message held only the hint its group shared (its round's expected words, still there)."""
    own, others = SHARED_HINTS_FIX53[lab, mistake]
    found = round_failure(request, any_round(lab, mistake), lab, mistake)
    assert own in found and others not in found, found


# ---- labs 05 and 06, walk53: the labs worked as a new learner (issue 21's walk) --------------------------------------
# Each mistake is the course's solution with one change, graded by its task's hidden test; the last item is what the
# visible test says (None: it passes there). Closed by this round, lab 05: a key of the tokens' lengths first (the hint's
# "b'ab' beats b'a'" read as "the longer first") was told about int.from_bytes; pop_best's count read with
# pair_counts.get(pair) (None for a gone pair) was told the heap held entries of two shapes; the whole entry returned for
# its pair was told about stale entries; popping from a copy of the heap was told "an entry too many"; a stale entry pushed
# again with heap_entry(-count, pair) and V5's heap set to heapify's None were told nothing; the losses dropped with the
# zeros (unary + on a Counter) were told nothing; the node after the pair read as next_[node] (B itself) was told about
# occurrences or token[-1]; a stale node told by its unlinked token alone was told about occurrences. Lab 06: pairs looked
# up as their joined bytes or turned round were told to keep merging, or about the last rank; merge_word's result dropped
# never returned in the learner's kernel (no kernel time limit: now 10 s, with a hint); one special token cut out after
# another was told about other calls' special tokens; a special token appended as a str, an arena and a decode through
# text, and tokens joined with b" " were told nothing; the joined alternation escaped whole was told that no special token
# was cut out. Kept their points, and are no mistakes: pop_best pushing an entry again when the live count is higher (with
# V5's promise, a fresher entry claiming the live count pops first), V5 pushing only the grown pairs new to the index (a
# grown pair holds the merge's new token, new unless two merges make one token, which left-to-right merging never did in
# 25,000 corpora drawn), and merge_ranks dropping a merge whose token an earlier one made (trained merges make each token
# once: GPT-2's 50,000 make 50,000 tokens).
LAB05_WALK53 = {
    "key-longer-token-first": ("task1_heap_entry_solution", (
        ('        return "".join(chr(255 - b) for b in token) + "\\u0100"\n',
         '        return "".join(chr(255 - b) for b in token)\n'),
        ("    return (-count, reversed_key(left), reversed_key(right), pair)\n",
         "    return (-count, -len(left), reversed_key(left), -len(right), reversed_key(right), pair)  # b'ab' beats b'a'\n")),
        "order tokens by their length first", "order tokens by their length first"),
    "key-pair-before-the-right-key": ("task1_heap_entry_solution", ((
        "    return (-count, reversed_key(left), reversed_key(right), pair)\n",
        "    return (-count, reversed_key(left), pair, reversed_key(right))\n"),),
        "its last item should be the pair", "its last item should be the pair"),
    "pop-counter-reset-inside-the-loop": ("task2_pop_best_solution", ((
        "    stale_pops = 0\n    while True:\n", "    while True:\n        stale_pops = 0\n"),),
        "every entry popped before the live one is stale and counts", "every entry popped before the live one"),
    "pop-on-a-copy-of-the-heap": ("task2_pop_best_solution", ((
        "    stale_pops = 0\n", "    entries = list(entries)  # leave the caller's heap as it is\n    stale_pops = 0\n"),),
        "the heap you were given is as it was", "the heap you were given is as it was"),
    "pop-count-got-without-a-default": ("task2_pop_best_solution", ((
        "count = pair_counts.get(pair, 0)", "count = pair_counts.get(pair)"),),
        "pair_counts.get(pair) is None for a pair that is gone", "pair_counts.get(pair) is None for a pair that is gone"),
    "pop-returns-the-entry": ("task2_pop_best_solution", ((
        "            return pair, stale_pops\n", "            return entry, stale_pops\n"),),
        "you returned the whole entry", "you returned the whole entry"),
    "pop-re-pushed-with-a-negated-count": ("task2_pop_best_solution", ((
        "heapq.heappush(entries, heap_entry(count, pair))", "heapq.heappush(entries, heap_entry(-count, pair))"),),
        "claims a negative count", "claims a negative count"),
    "train-heapify-result-assigned": ("task3_train_solution", ((
        "    heapq.heapify(entries)  # O(P), once\n", "    entries = heapq.heapify(entries)  # O(P), once\n"),),
        "returns None: call it alone", "returns None: call it alone"),
    "train-grown-count-of-the-first-word": ("task3_train_solution", (
        ("        grown = set()\n", "        grown = {}\n"),
        ("                    grown.add(new_pair)\n", "                    grown.setdefault(new_pair, pair_counts[new_pair])\n"),
        ("        for new_pair in grown:\n            if new_pair in pair_counts:\n"
         "                heapq.heappush(entries, heap_entry(pair_counts[new_pair], new_pair))\n",
         "        for new_pair, count in grown.items():\n            heapq.heappush(entries, heap_entry(count, new_pair))\n")),
        "with its count then", "push a fresh entry for each after that loop"),
    "merge-zeros-dropped-by-unary-plus": ("task4_merge_occurrences_solution", (
        ("    changes: dict[Pair, int] = defaultdict(int)\n", "    from collections import Counter\n    changes = Counter()\n"),
        ("    return {changed: change for changed, change in changes.items() if change}, merged_nodes\n",
         "    return dict(+changes), merged_nodes  # unary + drops the zero counts\n")),
        "the changes hold only the gains", "the changes hold only the gains"),
    "merge-after-read-as-the-nodes-next": ("task4_merge_occurrences_solution", ((
        "        before, after = prev[node], next_[follower]\n", "        before, after = prev[node], next_[node]\n"),),
        "next_[node] is B itself", "next_[node] is B itself"),
    "merge-stale-only-if-unlinked": ("task4_merge_occurrences_solution", ((
        "        if token[node] != left or follower == -1 or token[follower] != right:\n",
        '        if token[node] == b"" or follower == -1:  # unlinked\n'),),
        "not only when it was unlinked", None),
}
LAB06_WALK53 = {
    "encode-ranks-looked-up-by-joined-bytes": ("task2_encode_pretoken_solution", (
        ('ranks.get(pair, float("inf"))', 'ranks.get(pair[0] + pair[1], float("inf"))'),
        ("        if best not in ranks:\n", "        if best[0] + best[1] not in ranks:\n")),
        "no merge was applied", "no merge was applied"),
    "encode-windows-turned-round": ("task2_encode_pretoken_solution", ((
        "min(zip(word, word[1:])", "min(zip(word[1:], word)"),), "not the pair turned round", "not the pair turned round"),
    "special-tokens-split-one-after-another": ("task3_encode_text_solution", ((
        "        longest_first = sorted(special_tokens, key=len, reverse=True)\n"
        "        pieces = regex.split(\"(\" + \"|\".join(regex.escape(token) for token in longest_first) + \")\", text)\n",
        "        longest_first = sorted(special_tokens, key=len, reverse=True)\n        pieces = [text]\n"
        "        for special in longest_first:  # cut at each special token in turn, the longest first\n"
        "            cut = []\n            for i, piece in enumerate(pieces):\n"
        "                cut += [piece] if i % 2 else regex.split(\"(\" + regex.escape(special) + \")\", piece)\n"
        "                if i % 2 == 0 and len(cut) % 2 == 0:\n                    cut.append(\"\")\n"
        "            pieces = cut\n"),),
        "you cut at one special token after another", "you cut at one special token after another"),
    "special-token-appended-as-str": ("task3_encode_text_solution", ((
        '            tokens.append(piece.encode("utf-8"))\n', '            tokens.append(piece)  # one token, whole\n'),),
        "every token is bytes, a special token too", "every token is bytes, a special token too"),
    "special-tokens-alternation-escaped-whole": ("task3_encode_text_solution", ((
        'regex.split("(" + "|".join(regex.escape(token) for token in longest_first) + ")", text)',
        'regex.split("(" + regex.escape("|".join(longest_first)) + ")", text)'),),
        "escapes its '|' too", "regex.escape each token before joining them"),
    "arena-buffer-through-text": ("task4_build_arena_solution", ((
        '    return b"".join(pieces), offsets\n',
        '    return "".join(piece.decode("utf-8", errors="replace") for piece in pieces).encode("utf-8"), offsets\n'),),
        "the tokens went through text", "the tokens went through text"),
    "decode-invalid-bytes-dropped": ("task5_decode_with_arena_solution", ((
        '    return b"".join(pieces)\n', '    return b"".join(pieces).decode("utf-8", errors="ignore").encode("utf-8")\n'),),
        "decoded with errors='ignore'", None),
    "decode-pieces-summed": ("task5_decode_with_arena_solution", ((
        '    return b"".join(pieces)\n', '    return sum(pieces, b"")\n'),), "use b''.join(seq) instead", "use b''.join(seq)"),
    "decode-joined-with-spaces": ("task5_decode_with_arena_solution", ((
        '    return b"".join(pieces)\n', '    return b" ".join(pieces)\n'),), "joined with b' '", "joined with b' '"),
}
# Measured, or stopped by a time limit (seconds of CPU each): graded by their hidden test alone
LAB05_WALK53_MEASURED = {
    "train-pop-best-given-a-copy-of-the-counts": ("task3_train_solution", ((
        "pop_best(entries, pair_counts)", "pop_best(entries, dict(pair_counts))  # it must leave pair_counts as it is"),),
        "a copy of pair_counts made for each merge"),
}
LAB06_WALK53_ENDLESS = {
    "encode-merge-result-dropped": ("task2_encode_pretoken_solution", ((
        "        word = merge_word(word, best)\n", "        merge_word(word, best)\n"),), "keep merge_word's result"),
}
WALK53_VISIBLE = {**{("05_heap", name): mistake for name, mistake in LAB05_WALK53.items()},
                  **{("06_encode_decode", name): mistake for name, mistake in LAB06_WALK53.items()}}
WALK53_ROUND = {key: mistake[:3] for key, mistake in WALK53_VISIBLE.items()}
# Lost their points before the round with a hint that pointed the right way (Python's own, for sum of bytes): the others
# fail on main by the message they expect.
CAUGHT_BEFORE_WALK53 = [("05_heap", "key-pair-before-the-right-key"), ("05_heap", "pop-counter-reset-inside-the-loop"),
                        ("05_heap", "train-grown-count-of-the-first-word"), ("06_encode_decode", "decode-pieces-summed")]
FIXED_BY_WALK53 = sorted(key for key in WALK53_ROUND if key not in CAUGHT_BEFORE_WALK53)


@pytest.mark.seeded
@pytest.mark.parametrize("lab, mistake", FIXED_BY_WALK53, ids=[f"{lab[:2]}-{name}" for lab, name in FIXED_BY_WALK53])
def test_labs05_06_walk53_a_mistake_the_round_fixed_fails_the_hidden_test_with_its_hint(request, lab, mistake):
    round_failure(request, WALK53_ROUND, lab, mistake)


@pytest.mark.parametrize("lab, mistake", CAUGHT_BEFORE_WALK53, ids=[f"{lab[:2]}-{name}" for lab, name in CAUGHT_BEFORE_WALK53])
def test_labs05_06_walk53_a_learners_mistake_of_the_round_fails_the_hidden_test(request, lab, mistake):
    # those that lost their points, with a fitting message, before this round: one per lab by default
    one_per_lab("walk53", CAUGHT_BEFORE_WALK53, lab, mistake)
    round_failure(request, WALK53_ROUND, lab, mistake)


WALK53_VISIBLE_FAILS = sorted(key for key, mistake in WALK53_VISIBLE.items() if mistake[3] is not None)


@pytest.mark.parametrize("lab, mistake", WALK53_VISIBLE_FAILS, ids=[f"{lab[:2]}-{name}" for lab, name in WALK53_VISIBLE_FAILS])
def test_labs05_06_walk53_a_mistake_fails_the_visible_test_with_a_hint_that_names_it(request, lab, mistake):
    """The visible test (advice) fails too, where it does, and its hint points at the mistake (before the round most were
    told another mistake's hint or none)."""
    graders, solutions = request.getfixturevalue(f"lab{lab[:2]}")
    cell, changes, _, visible = WALK53_VISIBLE[lab, mistake]
    name = cell.split("_", 1)[1].removesuffix("_solution")
    found = failure(getattr(graders, f"check_{name}"), variant_of(lab, solutions, cell, name, changes))
    assert visible in found, found


def test_lab05_walk53_pop_best_given_a_copy_of_the_counts_loses_task_3_with_a_hint_that_names_it(lab05, at_the_first_verdict):
    """A copy of pair_counts handed to pop_best on each merge ("leave pair_counts as it is" read as the caller's duty) costs
    O(P) a merge: the measured check failed it told about scans alone."""
    graders, solutions = lab05
    cell, changes, message = LAB05_WALK53_MEASURED["train-pop-best-given-a-copy-of-the-counts"]
    with at_the_first_verdict():
        found = failure(graders.check_train_properties, variant_of("05_heap", solutions, cell, "train", changes))
    assert "CPU time" in found and message in found, found


def test_lab06_walk53_merge_words_result_dropped_stops_with_a_hint_that_names_it(lab06):
    """merge_word(word, best) with its result dropped loops for ever: the visible test never returned in the learner's
    kernel (encode_pretoken had no kernel time limit); now both tests stop it after PRETOKEN_SECONDS of CPU time with a
    hint (10 s each: the hidden test only here, the visible one runs the same call with the same limit)."""
    graders, solutions = lab06
    assert graders.ENCODE_PRETOKEN_TASK.kernel_time_limit == graders.PRETOKEN_SECONDS
    cell, changes, message = LAB06_WALK53_ENDLESS["encode-merge-result-dropped"]
    found = failure(graders.check_encode_pretoken_properties,
                    variant_of("06_encode_decode", solutions, cell, "encode_pretoken", changes))
    assert "TookTooLong" in found and message in found, found


# ---- labs 02 and 04, walk54a: the labs worked as a new learner (issue 21's walk) ----
# Each mistake is the course's solution with one change, graded by its task's hidden test; the last item is what the
# visible test says (None: it passes there). Closed by this round, lab 02: a merge of the word's bytes joined (b" ".join,
# replace: it finds the pair across a token's end) was told only the windows with the new token are added back; changes
# built by two dict comprehensions, weighed by the pair's occurrences too, the merged pair's change set to -frequency
# (the page's table read as the rule: told "a default argument", hypothesis calling the smallest input again with the
# same wrong answer, now no sign of an answer kept), merge_and_update weighed by the pair's count in the corpus, or
# returning None for a word without the pair were told nothing or another mistake; train rewriting words with merge_word
# (counts never moved), filtering by the tokens' first positions (told the last word is skipped), rebuilding words by a
# comprehension that drops the rest (the measured check's other merges came with no hint: its fixed cases now run first),
# or keeping the frequencies in a dict by word (a KeyError on a word, told about counts). Lab 04: an index that files only
# the first word of a pair (told words.index), ids that are the windows' positions; pairs_with around the token's first
# occurrence; train that discards a rewritten word's id from all its old windows (a KeyError on the measured corpus whose
# hint, a replay of V4 on 81,922 words, passed the hints' CPU limit: none at all; a visible case, cbcc, now fails it with a
# replay of its own, and explains the measured failure too), files the old word's pairs, keeps the
# frequencies by word, rewrites with merge_word, or stops a merge's visits at its first stale id (kept its hidden points:
# the hidden case asked for 3 merges, now 4). Kept their points, and are no mistakes: a lab 02 filter that merges every
# word to see whether it changes (merge_word tests the left token in C first: as cheap as page 02's toy filter, 7 times
# its one-merge run where the toy takes 6 to 8), and a lab 04 index keyed by each pair's bytes joined (no two windows of
# the same bytes split otherwise were alive together in 240,000 corpora drawn: left-to-right merges split a string alike).
LAB02_WALK54A = {
    "changes-merged-by-bytes-replace": ("task1_pair_count_changes_solution", ((
        "    merged = merge_word(word, pair)\n",
        '    joined = b" ".join(word).replace(pair[0] + b" " + pair[1], pair[0] + pair[1])  # every "A B" merged at once\n'
        '    merged = tuple(joined.split(b" "))\n'),), "finds the pair across a token's end", None),
    "changes-two-dict-comprehensions": ("task1_pair_count_changes_solution", ((
        "    changes: dict[Pair, int] = defaultdict(int)\n    for old in zip(word, word[1:]):\n"
        "        changes[old] -= frequency\n    for new in zip(merged, merged[1:]):\n        changes[new] += frequency\n",
        "    changes = {old: -frequency for old in zip(word, word[1:])}  # the old windows lose f\n"
        "    changes.update({new: frequency for new in zip(merged, merged[1:])})  # the new ones gain it\n"),),
        "the last one written, not the sum", "the last one written, not the sum"),
    "changes-weighted-by-the-occurrences": ("task1_pair_count_changes_solution", (
        ("    changes: dict[Pair, int] = defaultdict(int)\n",
         "    occurrences = len(word) - len(merged)  # each occurrence of the pair moves the counts by f\n"
         "    changes: dict[Pair, int] = defaultdict(int)\n"),
        ("        changes[old] -= frequency\n", "        changes[old] -= frequency * occurrences\n"),
        ("        changes[new] += frequency\n", "        changes[new] += frequency * occurrences\n")),
        "multiplying by the occurrences", "multiplying by the occurrences"),
    "changes-merged-pair-set-to-minus-f": ("task1_pair_count_changes_solution", ((
        "    for new in zip(merged, merged[1:]):\n",
        "    changes[pair] = -frequency  # (A, B) goes down by f (page 02's table)\n    for new in zip(merged, merged[1:]):\n"),),
        "the merged pair's change is -frequency for each of its windows",
        "the merged pair's change is -frequency for each of its windows"),
    "update-weighted-by-the-pairs-count": ("task2_merge_and_update_solution", ((
        "pair_count_changes(word, pair, frequency)", "pair_count_changes(word, pair, pair_counts.get(pair, 0))"),),
        "weighed by the merged pair's count in the corpus", "weighed by the merged pair's count in the corpus"),
    "update-returns-none-when-unchanged": ("task2_merge_and_update_solution", ((
        "    for changed, change in pair_count_changes(word, pair, frequency).items():\n",
        "    if merge_word(word, pair) == word:\n        return  # the pair is not in the word: nothing to do\n"
        "    for changed, change in pair_count_changes(word, pair, frequency).items():\n"),),
        "give the word back as it is", "give the word back as it is"),
    "train-words-merged-counts-left": ("task3_train_solution", ((
        "                words[i] = merge_and_update(word, pair, frequencies[i], pair_counts)\n",
        "                words[i] = merge_word(word, pair)\n"),),
        "does every word that holds the pair go through merge_and_update", "does every word that holds the pair go"),
    "train-filter-by-first-positions": ("task3_train_solution", ((
        "            if left in word and right in word:  # cheap filter before the real merge\n",
        "            if left in word and right in word and word.index(right) == word.index(left) + 1:  # side by side\n"),),
        ("does your test let through every word that holds the pair", "does every word that holds the pair go"),
        "does every word that holds the pair go"),
    "train-words-filtered-by-a-comprehension": ("task3_train_solution", ((
        "        for i, word in enumerate(words):\n            if left in word and right in word:  # cheap filter before the "
        "real merge\n                words[i] = merge_and_update(word, pair, frequencies[i], pair_counts)\n",
        "        words = [merge_and_update(word, pair, frequencies[i], pair_counts)\n"
        "                 for i, word in enumerate(words) if left in word and right in word]\n"),),
        "does every word that holds the pair go through merge_and_update", "does every word that holds the pair go"),
    "train-frequency-looked-up-by-the-current-word": ("task3_train_solution", (
        ("    merges = []\n", "    frequency_of = dict(zip(words, frequencies))\n    merges = []\n"),
        ("merge_and_update(word, pair, frequencies[i], pair_counts)",
         "merge_and_update(word, pair, frequency_of[word], pair_counts)")),
        "a dict keyed by the words", "a dict keyed by the words"),
}
LAB04_WALK54A = {
    "index-first-word-per-pair": ("task1_index_words_solution", ((
        "            index[pair].add(i)\n", "            if pair not in index:  # each pair once\n                index[pair].add(i)\n"),),
        "only the first word that holds it", "only the first word that holds it"),
    "index-ids-of-the-window-positions": ("task1_index_words_solution", ((
        "    for i, word in enumerate(words):\n        for pair in zip(word, word[1:]):\n",
        "    for word in words:\n        for i, pair in enumerate(zip(word, word[1:])):\n"),),
        "the windows' positions in their word", "the windows' positions in their word"),
    "pairs-with-in-the-joined-pair": ("task2_pairs_with_solution", ((
        "if token in pair]", "if token in pair[0] + pair[1]]"),), "tokens are compared whole", "tokens are compared whole"),
    "pairs-with-around-the-first-occurrence": ("task2_pairs_with_solution", ((
        "    return [pair for pair in zip(word, word[1:]) if token in pair]\n",
        "    if token not in word:\n        return []\n    i = word.index(token)  # the new token's neighbours\n"
        "    return ([(word[i - 1], token)] if i > 0 else []) + ([(token, word[i + 1])] if i + 1 < len(word) else [])\n"),),
        "around the token's first occurrence", "around the token's first occurrence"),
    "train-old-pairs-discarded-new-pairs-with-token": ("task3_train_solution", ((
        "                for new_pair in pairs_with(words[i], token):\n",
        "                for old_pair in zip(word, word[1:]):\n                    index[old_pair].discard(i)  # gone from the word\n"
        "                for new_pair in pairs_with(words[i], token):\n"),), "V4's index is append-only", "V4's index is append-only"),
    "train-pairs-with-of-the-old-word": ("task3_train_solution", ((
        "pairs_with(words[i], token)", "pairs_with(word, token)"),), "the word before the merge holds no new token",
        "the word before the merge holds no new token"),
    "train-frequency-looked-up-by-the-current-word": ("task3_train_solution", (
        ("    merges = []\n", "    frequency_of = dict(zip(words, frequencies))\n    merges = []\n"),
        ("merge_and_update(word, pair, frequencies[i], pair_counts)",
         "merge_and_update(word, pair, frequency_of[word], pair_counts)")),
        "a dict keyed by the words", "a dict keyed by the words"),
    "train-stops-at-the-first-stale-id": ("task3_train_solution", ((
        "                    index[new_pair].add(i)\n",
        "                    index[new_pair].add(i)\n            else:\n                break  # a stale id: the rest are stale too\n"),),
        "the visits stopped at a stale id", "the visits stopped at a stale id"),
    "train-words-merged-counts-left": ("task3_train_solution", ((
        "            words[i] = merge_and_update(word, pair, frequencies[i], pair_counts)\n",
        "            words[i] = merge_word(word, pair)\n"),), "merge_word rewrites a word and leaves pair_counts",
        "merge_word rewrites a word and leaves pair_counts"),
}
# Measured (seconds of CPU each): graded by their hidden test alone
LAB02_WALK54A_MEASURED = {
    "update-counts-rebuilt-on-each-call": ("task2_merge_and_update_solution", ((
        "    for changed, change in pair_count_changes(word, pair, frequency).items():\n"
        "        count = pair_counts.get(changed, 0) + change\n        if count:\n            pair_counts[changed] = count\n"
        "        else:\n            del pair_counts[changed]\n",
        "    changes = pair_count_changes(word, pair, frequency)\n"
        "    updated = {p: pair_counts.get(p, 0) + changes.get(p, 0) for p in pair_counts.keys() | changes.keys()}\n"
        "    pair_counts.clear()\n    pair_counts.update({p: count for p, count in updated.items() if count})\n"),),
        "a new dict of every pair built on each call"),
}
LAB04_WALK54A_MEASURED = {
    "train-index-copied-before-each-merge": ("task3_train_solution", ((
        "        for i in index.pop(pair):",
        "        snapshot = {p: set(ids) for p, ids in index.items()}  # a copy: the loop below changes the index\n"
        "        del index[pair]\n        for i in snapshot[pair]:"),), "copy neither on a merge"),
    "train-exact-index-by-a-sweep-of-every-set": ("task3_train_solution", ((
        "                for new_pair in pairs_with(words[i], token):\n",
        "                for ids in index.values():  # exact: the word leaves every set\n                    ids.discard(i)\n"
        "                for new_pair in zip(words[i], words[i][1:]):  # and joins those of its pairs\n"),),
        "a sweep of every set of the index"),
}
WALK54A_VISIBLE = {**{("02_incremental", name): mistake for name, mistake in LAB02_WALK54A.items()},
                   **{("04_inverted_index", name): mistake for name, mistake in LAB04_WALK54A.items()}}
WALK54A_ROUND = {key: mistake[:3] for key, mistake in WALK54A_VISIBLE.items()}
# Lost their points before the round with a hint that pointed the right way: the others fail on main by the message
# they expect (lab 04's first stale id in its hidden test: it kept its points).
CAUGHT_BEFORE_WALK54A = [("04_inverted_index", "pairs-with-in-the-joined-pair")]
FIXED_BY_WALK54A = sorted(key for key in WALK54A_ROUND if key not in CAUGHT_BEFORE_WALK54A)


@pytest.mark.seeded
@pytest.mark.parametrize("lab, mistake", FIXED_BY_WALK54A, ids=[f"{lab[:2]}-{name}" for lab, name in FIXED_BY_WALK54A])
def test_labs02_04_walk54a_a_mistake_the_round_fixed_fails_the_hidden_test_with_its_hint(request, lab, mistake):
    round_failure(request, WALK54A_ROUND, lab, mistake)


@pytest.mark.parametrize("lab, mistake", CAUGHT_BEFORE_WALK54A, ids=[f"{lab[:2]}-{name}" for lab, name in CAUGHT_BEFORE_WALK54A])
def test_labs02_04_walk54a_a_learners_mistake_of_the_round_fails_the_hidden_test(request, lab, mistake):
    # those that lost their points, with a fitting message, before this round: one per lab by default
    one_per_lab("walk54a", CAUGHT_BEFORE_WALK54A, lab, mistake)
    round_failure(request, WALK54A_ROUND, lab, mistake)


WALK54A_VISIBLE_FAILS = sorted(key for key, mistake in WALK54A_VISIBLE.items() if mistake[3] is not None)


@pytest.mark.parametrize("lab, mistake", WALK54A_VISIBLE_FAILS,
                         ids=[f"{lab[:2]}-{name}" for lab, name in WALK54A_VISIBLE_FAILS])
def test_labs02_04_walk54a_a_mistake_fails_the_visible_test_with_a_hint_that_names_it(request, lab, mistake):
    """The visible test (advice) fails too, where it does, and its hint points at the mistake (before the round most were
    told another mistake's hint or none). Lab 04's trainers are measured first there (a few seconds of CPU each)."""
    if lab == "04_inverted_index" and WALK54A_VISIBLE[lab, mistake][0] == "task3_train_solution":
        skip_unless_drawn("walk54a, lab 04's train in its visible test", mistake,
                          [name for name, value in LAB04_WALK54A.items() if value[0] == "task3_train_solution"])
    graders, solutions = request.getfixturevalue(f"lab{lab[:2]}")
    cell, changes, _, visible = WALK54A_VISIBLE[lab, mistake]
    name = cell.split("_", 1)[1].removesuffix("_solution")
    found = failure(getattr(graders, f"check_{name}"), variant_of(lab, solutions, cell, name, changes))
    assert visible in found, found


MEASURED_WALK54A = sorted([*(("02_incremental", name) for name in LAB02_WALK54A_MEASURED),
                           *(("04_inverted_index", name) for name in LAB04_WALK54A_MEASURED)])


@pytest.mark.parametrize("lab, mistake", MEASURED_WALK54A, ids=[f"{lab[:2]}-{name}" for lab, name in MEASURED_WALK54A])
def test_labs02_04_walk54a_a_wrong_method_loses_its_task_by_a_measure_with_a_hint_that_names_it(request, lab, mistake,
                                                                                                 at_the_first_verdict):
    """A merge_and_update that builds a new dict of every pair on each call, V4 copying its index before each merge or
    sweeping every set of it for each rewritten word: the right answers, a wrong method, which the trusted side's measure
    fails (CPU time, from outside the learner's code) with a hint that names it (before the round it named others)."""
    if lab == "04_inverted_index":  # 5-10 s of CPU each: one a run by default
        skip_unless_drawn("walk54a, lab 04's measured mistakes", mistake, LAB04_WALK54A_MEASURED)
    graders, solutions = request.getfixturevalue(f"lab{lab[:2]}")
    cell, changes, message = {**LAB02_WALK54A_MEASURED, **LAB04_WALK54A_MEASURED}[mistake]
    name = cell.split("_", 1)[1].removesuffix("_solution")
    with at_the_first_verdict():
        found = failure(getattr(graders, f"check_{name}_properties"), variant_of(lab, solutions, cell, name, changes))
    assert "CPU time" in found and message in found, found


def test_lab02_walk54a_the_same_call_again_with_the_same_wrong_answer_is_no_answer_kept(lab02):
    """Hypothesis calls the smallest failing input once more for its message: a pair_count_changes that gives (a, a) -1 for
    the word (a,) (the merged pair's change set to -frequency) answered so twice in a row, and was told its answers were
    kept from call to call (compare.CARRIED). An answer that holds the call before's too is still told so."""
    from bpe_ref.course.checks.compare import CARRIED

    graders, solutions = lab02
    cell, changes, _ = WALK54A_ROUND["02_incremental", "changes-merged-pair-set-to-minus-f"]
    mistaken = variant_of("02_incremental", solutions, cell, "pair_count_changes", changes)
    case = [((b"a",), (b"a", b"a"), 1)]
    for _ in range(2):
        found = failure(lambda learner: graders.check_cases(graders.PAIR_COUNT_CHANGES.task, learner,
                                                            graders.pair_count_changes, case), mistaken)
    assert CARRIED not in found and "the merged pair's change" in found, found
    kept: dict = {}

    def carried(word, pair, frequency):  # a dict kept from call to call
        for changed, change in graders.pair_count_changes(word, pair, frequency).items():
            kept[changed] = kept.get(changed, 0) + change
        return dict(kept)

    cases = [((b"a", b"b"), (b"a", b"b"), 1), ((b"a", b"a", b"c"), (b"a", b"a"), 1)]
    found = failure(lambda learner: graders.check_cases(graders.PAIR_COUNT_CHANGES.task, learner, graders.pair_count_changes,
                                                        cases), carried)
    assert CARRIED in found, found


def test_lab02_walk54a_a_keyerror_on_a_word_is_told_so_in_the_worker_too():
    """The grading worker's error comes back as text (LearnerError): the word a KeyError names is read back from it, so
    train keeping its frequencies by word is told so when graded, not only in the kernel (the first self-grade of the round
    still said "a KeyError on a dict of counts")."""
    setup = "\n".join(source_of("02_incremental", cell) for cell in (
        "setup", "task1_pair_count_changes_solution", "task2_merge_and_update_solution"))
    cell, changes, message = WALK54A_ROUND["02_incremental", "train-frequency-looked-up-by-the-current-word"]
    train = source_of("02_incremental", cell)
    for old, new in changes:
        assert old in train
        train = train.replace(old, new, 1)
    found = remote("02_incremental", setup + "\n" + train, "train", "check_train")
    assert found is not None and "KeyError" in found and message in found, found


@WORKER_TWIN
@pytest.mark.parametrize("lab, mistake", MEASURED_WALK54A, ids=[f"{lab[:2]}-{name}" for lab, name in MEASURED_WALK54A])
def test_labs02_04_walk54a_a_wrong_method_loses_its_task_by_a_measure_in_the_worker_too(lab, mistake, at_the_first_verdict):
    """The same wrong methods graded in a grading worker: the measure is the trusted side's (CPU time read from outside the
    worker), not a count the worker reports."""
    cell, changes, message = {**LAB02_WALK54A_MEASURED, **LAB04_WALK54A_MEASURED}[mistake]
    cells = {"02_incremental": ("setup", "task1_pair_count_changes_solution"),
             "04_inverted_index": ("setup", "task1_index_words_solution", "task2_pairs_with_solution")}[lab]
    source = source_of(lab, cell)
    for old, new in changes:
        assert old in source
        source = source.replace(old, new, 1)
    if lab == "02_incremental":  # train calls merge_and_update: its cell defines it
        cells = (*cells, "task2_merge_and_update_solution") if cell != "task2_merge_and_update_solution" else cells
    name = cell.split("_", 1)[1].removesuffix("_solution")
    code = "\n".join(source_of(lab, each) for each in cells) + "\n" + source
    with at_the_first_verdict():
        found = remote(lab, code, name, f"check_{name}_properties")
    assert found is not None and "CPU time" in found and message in found, found


# ---- labs 10 and 01, walk54b: the labs worked as a new learner (issue 21's walk) ----
# Each mistake is the course's solution with one change, graded by its task's hidden test (and, where named, the part of it
# that catches it); the next item is what the visible test says (None: it passes there). Every one lost its hidden points
# before the round; closed by it, the hints. Lab 10: a range decoded in blocks of 64 KiB (a character across a block's
# end) raised with no hint, where lab 03's count_chunk had one; counts merged by dict union (left | right) were told
# nothing; a tree whose odd part met None (zip_longest) was told "combined twice?"; one round of pairs, then a chain, was
# told nothing; cuts moved past their special token (the range after it starting after the token, or the token kept in the
# range before) were told of a cut at a fixed size, of an empty range, or of fewer ranges; each file's last range dropped
# (range(len(boundaries) - 2)) was told, without special tokens, that a file is one range; parts as a generator (always
# true) raised with no hint on no ranges; a {} part to reduce from was told "count_range ran here", and
# as_task(count_range(...)) (the result wrapped, not the function) "not one count_range task per range". Lab 01: pairs
# weighted by enumerate's index were told nothing; the words of two tokens skipped were told "the pairs seen once are left
# out"; a tie broken by Counter.most_common (the first in the dict's order) or by the smallest of the tied pairs was told
# that the right token came first; merge_word stepping by the merged token's bytes was told nothing, nor was the
# IndexError of a list merged in place over a range fixed at the start; train assigning each merge to its loop variable, or
# keeping the old words beside the merged ones (words.update), was told of the pretokens' bytes merged again.
LAB10_WALK54B = {
    "range-decoded-block-by-block": ("task1_count_range_solution", ((
        "        file.seek(start)\n        data = file.read(end - start)\n"
        "    return count_pretokens(data.decode(\"utf-8\"), special_tokens)\n",
        "        file.seek(start)\n        text = \"\"\n        while file.tell() < end:  # 64 KiB at a time: a range can be large\n"
        "            text += file.read(min(65536, end - file.tell())).decode(\"utf-8\")\n"
        "    return count_pretokens(text, special_tokens)\n"),),
        "decode the range's bytes whole", None),
    "range-start-backed-to-a-character": ("task1_count_range_solution", ((
        "        file.seek(start)\n",
        "        file.seek(start)\n"
        "        while 0 < start < end and file.read(1)[0] & 0xC0 == 0x80:  # inside a character: back to its start\n"
        "            start -= 1\n            file.seek(start)\n        file.seek(start)\n"),),
        "to be told, not mended", None),
    "merge-by-dict-union": ("task2_merge_two_solution", ((
        "    total = dict(left)\n    for pretoken, count in right.items():\n"
        "        total[pretoken] = total.get(pretoken, 0) + count\n    return total\n",
        "    return left | right  # a new dict with the keys of both\n"),),
        "keep one value per key", "keep one value per key"),
    "merge-new-keys-by-plus-equals": ("task2_merge_two_solution", ((
        "total[pretoken] = total.get(pretoken, 0) + count", "total[pretoken] += count"),),
        "a plain dict has no default", None),
    "tree-odd-combined-with-none": ("task3_tree_reduce_solution", ((PAIRED,
        "        from itertools import zip_longest\n"
        "        paired = [combine(a, b) for a, b in zip_longest(level[::2], level[1::2])]\n"),),
        "a part was combined with None", "a part was combined with None", tree_shape_hidden),
    "tree-one-round-then-a-chain": ("task3_tree_reduce_solution", ((
        "    while len(level) > 1:\n" + PAIRED + "        level = paired\n    return level[0]\n",
        "    if len(level) > 1:\n" + PAIRED + "        level = paired\n"
        "    from functools import reduce\n    return reduce(combine, level)  # the rest in order\n"),),
        "not one round, then a chain", "not one round, then a chain", tree_shape_hidden),
    "tree-rounds-written-into-the-callers-list": ("task3_tree_reduce_solution", (
        ("    level = list(parts)\n", "    level = parts\n"), ("        level = paired\n", "        level[:] = paired  # in place\n")),
        "changed its argument parts", "changed its argument parts", tree_shape_hidden),
    "plan-even-cuts-ignoring-tokens": ("task4_plan_ranges_solution", ((
        "            boundaries = find_chunk_boundaries(path, ranges_per_file, split_tokens)\n",
        "            size = os.path.getsize(path)\n"
        "            boundaries = [i * size // ranges_per_file for i in range(ranges_per_file)] + [size]\n"),),
        "which is no special token", "which is no special token"),
    "plan-ranges-start-past-the-token": ("task4_plan_ranges_solution", ((
        "        ranges += [(path, start, end) for start, end in zip(boundaries, boundaries[1:]) if end > start]\n",
        "        # a range starts after the special token it is cut at: the token is no text to count\n"
        "        ranges += [(path, start + len(split_tokens[0]) if start else start, end)\n"
        "                   for start, end in zip(boundaries, boundaries[1:]) if end > start]\n"),),
        "moved past the special token there", "moved past the special token there"),
    "plan-token-kept-with-the-range-before": ("task4_plan_ranges_solution", ((
        "        ranges += [(path, start, end) for start, end in zip(boundaries, boundaries[1:]) if end > start]\n",
        "        # the special token ends its document: it stays in the range before the cut\n"
        "        size = boundaries[-1]\n"
        "        boundaries = [0] + [min(size, b + len(split_tokens[0])) for b in boundaries[1:-1]] + [size]\n"
        "        ranges += [(path, start, end) for start, end in zip(boundaries, boundaries[1:]) if end > start]\n"),),
        "moved past the special token there", "moved past the special token there"),
    "plan-pairs-loop-one-short": ("task4_plan_ranges_solution", ((
        "        ranges += [(path, start, end) for start, end in zip(boundaries, boundaries[1:]) if end > start]\n",
        "        for i in range(len(boundaries) - 2):\n            if boundaries[i + 1] > boundaries[i]:\n"
        "                ranges.append((path, boundaries[i], boundaries[i + 1]))\n"),),
        "each file's last range is missing", "each file's last range is missing"),
    "count-parts-a-generator": ("task5_count_ranges_solution", ((
        "    parts = [task(count_range)(path, start, end, special_tokens) for path, start, end in ranges]\n",
        "    parts = (task(count_range)(path, start, end, special_tokens) for path, start, end in ranges)\n"),),
        "a generator expression is true", "a generator expression is true"),
    "count-reduce-from-an-empty-dict": ("task5_count_ranges_solution", ((
        "    return tree_reduce(parts, task(merge_two)) if parts else {}\n",
        "    return tree_reduce([{}] + parts, task(merge_two))  # {} when there are no ranges\n"),),
        "and a part more, counts made here", "and a part more, counts made here", task_graph_hidden),
    "count-delayed-of-the-result": ("task5_count_ranges_solution", ((
        "    parts = [task(count_range)(path, start, end, special_tokens) for path, start, end in ranges]\n",
        "    parts = [task(count_range(path, start, end, special_tokens)) for path, start, end in ranges]\n"),),
        "as_task was given count_range's result", "as_task was given count_range's result", task_graph_hidden),
    "count-leaves-reversed": ("task5_count_ranges_solution", ((
        "tree_reduce(parts, task(merge_two))", "tree_reduce(parts[::-1], task(merge_two))"),),
        "in the order of ranges", "in the order of ranges", task_graph_hidden),
}
LAB01_WALK54B = {
    "count-frequency-from-enumerate": ("task1_count_pairs_solution", ((
        "    for word, frequency in word_counts.items():\n", "    for frequency, word in enumerate(word_counts):\n"),),
        "not its frequency: enumerate(word_counts)", "not its frequency: enumerate(word_counts)"),
    "count-two-token-words-skipped": ("task1_count_pairs_solution", ((
        "    for word, frequency in word_counts.items():\n",
        "    for word, frequency in word_counts.items():\n        if len(word) <= 2:\n"
        "            continue  # too short to hold a pair\n"),),
        "the pairs of the words of two tokens are missing", None),
    "best-most-common": ("task2_best_pair_solution", ((
        "    return max(pair_counts, key=lambda pair: (pair_counts[pair], pair))\n",
        "    return Counter(pair_counts).most_common(1)[0][0]\n"),),
        "the first of them in pair_counts' order", "the first of them in pair_counts' order"),
    "best-top-pairs-sorted-then-first": ("task2_best_pair_solution", ((
        "    return max(pair_counts, key=lambda pair: (pair_counts[pair], pair))\n",
        "    top = max(pair_counts.values())\n"
        "    return sorted(pair for pair, count in pair_counts.items() if count == top)[0]\n"),),
        "the smallest of them", "the smallest of them"),
    "merge-advances-by-the-tokens-bytes": ("task3_merge_word_solution", ((
        "            i += 2\n", "            i += len(word[i] + word[i + 1])  # past the merged token\n"),),
        "i counts tokens, not bytes", None),
    "merge-in-place-over-a-fixed-range": ("task3_merge_word_solution", ((
        "    merged = []\n    i = 0\n    while i < len(word):\n"
        "        if i + 1 < len(word) and word[i] == pair[0] and word[i + 1] == pair[1]:\n"
        "            merged.append(word[i] + word[i + 1])\n            i += 2\n        else:\n"
        "            merged.append(word[i])\n            i += 1\n    return tuple(merged)\n",
        "    tokens = list(word)\n    for i in range(len(tokens) - 1):\n"
        "        if tokens[i] == pair[0] and tokens[i + 1] == pair[1]:\n"
        "            tokens[i:i + 2] = [tokens[i] + tokens[i + 1]]\n    return tuple(tokens)\n"),),
        "a list merged in place gets shorter", "a list merged in place gets shorter"),
    "train-merge-assigned-to-the-loop-variable": ("task4_train_solution", ((
        "        words = {merge_word(word, pair): count for word, count in words.items()}\n",
        "        for word in words:\n            word = merge_word(word, pair)\n"),),
        "changes nothing in words", "changes nothing in words"),
    "train-merged-words-added-beside-the-old": ("task4_train_solution", ((
        "        words = {merge_word(word, pair): count for word, count in words.items()}\n",
        "        words.update({merge_word(word, pair): count for word, count in words.items()})\n"),),
        "keeps the old words beside the merged ones", "keeps the old words beside the merged ones"),
    "train-best-before-the-stop": ("task4_train_solution", ((
        "        if not pair_counts:\n            break\n        pair = best_pair(pair_counts)\n",
        "        pair = best_pair(pair_counts)\n        if not pair_counts:\n            break\n"),),
        "stop early instead of picking a best pair", "stop early instead of picking a best pair"),
    "train-pairs-counted-on-the-pretokens": ("task4_train_solution", ((
        "        pair_counts = count_pairs(words)\n", "        pair_counts = count_pairs(pretoken_counts)\n"),),
        "ints where bytes were expected", "ints where bytes were expected"),
    "train-merges-a-generator": ("task4_train_solution", ((
        "        merges.append(pair)\n", "        merges.append(pair)\n        yield pair\n"),),
        "a builtins.generator", "a builtins.generator"),
}
WALK54B_VISIBLE = {**{("10_distributed", name): mistake for name, mistake in LAB10_WALK54B.items()},
                   **{("01_naive_bpe", name): mistake for name, mistake in LAB01_WALK54B.items()}}
WALK54B_ROUND = {key: (*mistake[:3], *mistake[4:]) for key, mistake in WALK54B_VISIBLE.items()}
# Lost their points before the round with a hint that pointed the right way (or a message that says it, for a generator):
# the others fail on main by the message they expect.
CAUGHT_BEFORE_WALK54B = [("10_distributed", "range-start-backed-to-a-character"),
                         ("10_distributed", "merge-new-keys-by-plus-equals"),
                         ("10_distributed", "tree-rounds-written-into-the-callers-list"),
                         ("10_distributed", "plan-even-cuts-ignoring-tokens"), ("10_distributed", "count-leaves-reversed"),
                         ("01_naive_bpe", "train-best-before-the-stop"), ("01_naive_bpe", "train-pairs-counted-on-the-pretokens"),
                         ("01_naive_bpe", "train-merges-a-generator")]
FIXED_BY_WALK54B = sorted(key for key in WALK54B_ROUND if key not in CAUGHT_BEFORE_WALK54B)


@pytest.mark.seeded
@pytest.mark.parametrize("lab, mistake", FIXED_BY_WALK54B, ids=[f"{lab[:2]}-{name}" for lab, name in FIXED_BY_WALK54B])
def test_labs10_01_walk54b_a_mistake_the_round_fixed_fails_the_hidden_test_with_its_hint(request, lab, mistake):
    round_failure(request, WALK54B_ROUND, lab, mistake)


@pytest.mark.parametrize("lab, mistake", CAUGHT_BEFORE_WALK54B, ids=[f"{lab[:2]}-{name}" for lab, name in CAUGHT_BEFORE_WALK54B])
def test_labs10_01_walk54b_a_learners_mistake_of_the_round_fails_the_hidden_test(request, lab, mistake):
    # those that lost their points, with a fitting message, before this round: one per lab by default
    one_per_lab("walk54b", CAUGHT_BEFORE_WALK54B, lab, mistake)
    round_failure(request, WALK54B_ROUND, lab, mistake)


WALK54B_VISIBLE_FAILS = sorted(key for key, mistake in WALK54B_VISIBLE.items() if mistake[3] is not None)


@pytest.mark.parametrize("lab, mistake", WALK54B_VISIBLE_FAILS, ids=[f"{lab[:2]}-{name}" for lab, name in WALK54B_VISIBLE_FAILS])
def test_labs10_01_walk54b_a_mistake_fails_the_visible_test_with_a_hint_that_names_it(request, lab, mistake):
    """The visible test (advice) fails too, where it does, and says the same as the hidden one (before the round most were
    told another mistake's hint or none). Lab 10's tree and count are seen through the notebook's read-only helpers."""
    graders, solutions = request.getfixturevalue(f"lab{lab[:2]}")
    cell, changes, _, visible, *_ = WALK54B_VISIBLE[lab, mistake]
    name = cell.split("_", 1)[1].removesuffix("_solution")
    mistaken = variant_of(lab, solutions, cell, name, changes)
    if name == "tree_reduce":
        found = failure(graders.check_tree_shape, read_only_helper(mistaken, "tree_shape"))
    elif name == "count_ranges":
        found = failure(graders.check_count_ranges, mistaken, read_only_helper(mistaken, "task_graph"))
    else:
        found = failure(getattr(graders, f"check_{name}"), mistaken)
    assert visible in found, found


def test_lab10_walk54b_a_self_grade_shows_the_hint_of_a_range_decoded_in_blocks(tmp_path, capsys):
    """The walk's self-grade (python -m bpe_ref grade) of a notebook whose count_range decodes its range in blocks of 64 KiB:
    the hidden failure's "expected:" line showed the count dict's one key, 132,002 bytes, whole (528 KB of repr), the
    verdict was cut at 20,000 characters before its hint, and the table showed none. Now the key is abbreviated and the
    hint is under the failure's first line."""
    import json

    from bpe_ref.course.grade import grade_one

    notebook = read_notebook_json(source_notebook("10_distributed"))
    cell = next(cell for cell in notebook["cells"] if cell["id"] == "task1_count_range_solution")
    for old, new in LAB10_WALK54B["range-decoded-block-by-block"][1]:
        assert old in cell["source"], old
        cell["source"] = cell["source"].replace(old, new, 1)
    path = tmp_path / "10_distributed.ipynb"
    path.write_text(json.dumps(notebook), encoding="utf-8")
    assert grade_one(path, "10_distributed", None, None) == 1
    table = capsys.readouterr().out.splitlines()
    row = next(i for i, line in enumerate(table) if line.startswith("task1_count_range "))
    assert "1 / 3" in table[row] and "UnicodeDecodeError" in table[row], table[row]
    assert "hint: the range starts and ends between characters" in table[row + 1], table
    assert not any(line.startswith("task") and "FAILED" in line for line in table[row + 1:]), table  # only task 1 lost


# ---- labs 00 and 06, walk55: the labs worked as a new learner (issue 21's walk) ----------------------------------------
# A flag passed where regex.split takes maxsplit (regex.split(pattern, text, regex.MULTILINE): 8 cuts) kept every point
# of both labs' splits: no text of the tests held more than 8 special tokens; a fixed hidden case now holds 300. A set of
# the special tokens for the sorted list kept lab 06's task 3 in one grading of three (the order of the worker's hashes);
# a fixed hidden case of five tokens, each the start of the next, now catches it in all but one order of 120.
WALK55_SPLITS = {
    "00_pretokenization": ("task2_split_on_special_tokens_solution", "split_on_special_tokens",
                           "return regex.split(pattern, text)", "check_split_on_special_tokens_properties"),
    "06_encode_decode": ("task3_encode_text_solution", "encode_text",
                         'pieces = regex.split("(" + "|".join(regex.escape(token) for token in longest_first) + ")", text)',
                         "check_encode_text_properties"),
}
LONGEST_FIRST = "longest_first = sorted(special_tokens, key=len, reverse=True)"


@pytest.mark.parametrize("flag", ["regex.MULTILINE", "regex.DOTALL", "regex.ASCII"])
@pytest.mark.parametrize("lab", sorted(WALK55_SPLITS))
def test_labs00_06_walk55_a_flag_passed_as_maxsplit_loses_the_hidden_points_with_its_hint(request, lab, flag):
    graders, solutions = request.getfixturevalue(f"lab{lab[:2]}")
    cell, name, line, check = WALK55_SPLITS[lab]
    learner = variant(lab, solutions, cell, name, line, line[:-1] + f", {flag})")
    found = failure(getattr(graders, check), learner)
    assert "third argument is maxsplit" in found, found


@pytest.mark.parametrize("lab", sorted(WALK55_SPLITS))
def test_labs00_06_walk55_the_special_tokens_as_a_set_lose_the_hidden_points(request, lab):
    graders, solutions = request.getfixturevalue(f"lab{lab[:2]}")
    cell, name, _, check = WALK55_SPLITS[lab]
    learner = variant(lab, solutions, cell, name, LONGEST_FIRST, "longest_first = set(special_tokens)")
    found = failure(getattr(graders, check), learner)
    assert "longest first" in found, found


# ---- lab 06, walk55's quadratic results: measured from outside (issue 21, item 8) ------------------------------------
# The result grown with + at each step: right on every input, quadratic in it, and no input of the tests was long enough
# to show it (the novel49 round measured the bytes at 50,000 ids: 0.10 s against 0.02 s, too close to tell under load).
# At 200,000 ids either form of the bytes took 3.5-3.7 s of CPU, the reference 0.11 s; at 40,000 pretokens the list
# 2.3 s and more, the reference 0.14 s. The hidden tests of tasks 3 and 5 now end by measuring their growth.
DECODED_BY_PLUS = (("    pieces = []\n", "    out = b''\n"), ("    return b\"\".join(pieces)", "    return out"))
LAB06_WALK55_GROWN = {  # a learner round's table (tests/test_grading_redteam.py finds it: none is caught by a fixed case)
    ("06_encode_decode", "decoded-out-plus-piece"): ("task5_decode_with_arena_solution", (*DECODED_BY_PLUS, (
        "        pieces.append(buffer[offsets[token_id] : offsets[token_id + 1]])\n",
        "        out = out + buffer[offsets[token_id] : offsets[token_id + 1]]\n")), "time quadratic in the ids"),
    ("06_encode_decode", "decoded-out-plus-equals"): ("task5_decode_with_arena_solution", (*DECODED_BY_PLUS, (
        "        pieces.append(buffer[offsets[token_id] : offsets[token_id + 1]])\n",
        "        out += buffer[offsets[token_id] : offsets[token_id + 1]]\n")), "time quadratic in the ids"),
    ("06_encode_decode", "text-tokens-plus-more"): ("task3_encode_text_solution", ((
        "            tokens += encode_pretoken(", "            tokens = tokens + encode_pretoken("),),
        "time quadratic in the text"),
}
# Honest forms of the same loops: a bytearray grown in place, a list extended.
LAB06_WALK55_LINEAR = {
    "decoded-into-a-bytearray": ("task5_decode_with_arena_solution", "decode_with_arena", (
        ("    pieces = []\n", "    out = bytearray()\n"), ("    return b\"\".join(pieces)", "    return bytes(out)"), (
            "        pieces.append(buffer[offsets[token_id] : offsets[token_id + 1]])\n",
            "        out += buffer[offsets[token_id] : offsets[token_id + 1]]\n"))),
    "text-tokens-extended": ("task3_encode_text_solution", "encode_text", (
        ("            tokens += encode_pretoken(", "            tokens.extend(encode_pretoken("),
        ("ranks)\n    return tokens", "ranks))\n    return tokens"))),
}


@pytest.mark.parametrize("lab, mistake", sorted(LAB06_WALK55_GROWN), ids=[name for _, name in sorted(LAB06_WALK55_GROWN)])
def test_lab06_walk55_a_result_grown_with_plus_loses_the_hidden_points_told_why(request, at_the_first_verdict, lab, mistake):
    with at_the_first_verdict():
        found = round_failure(request, LAB06_WALK55_GROWN, lab, mistake)
    assert "measured from outside your code" in found or "did not finish within" in found, found  # past its bound, or its time limit


@pytest.mark.parametrize("form", sorted(LAB06_WALK55_LINEAR))
def test_lab06_walk55_a_result_grown_in_place_keeps_the_hidden_points(lab06, form, capsys):
    graders, solutions = lab06
    cell, name, changes = LAB06_WALK55_LINEAR[form]
    getattr(graders, f"check_{name}_properties")(variant_of("06_encode_decode", solutions, cell, name, changes))
    assert "grows as a linear method's does (measured from outside your code)" in capsys.readouterr().out


@WORKER_TWIN
def test_lab06_decoded_out_plus_piece_fails_in_the_worker_too(at_the_first_verdict):
    """Task 5's growth is measured from outside the worker: the bytes grown with + stopped there, the solution passing."""
    code = "\n".join(source_of("06_encode_decode", cell) for cell in ("setup", "task5_decode_with_arena_solution"))
    wrong = code
    for old, new in LAB06_WALK55_GROWN["06_encode_decode", "decoded-out-plus-piece"][1]:
        wrong = wrong.replace(old, new)
    with at_the_first_verdict():
        message = remote("06_encode_decode", wrong, "decode_with_arena", "check_decode_with_arena_properties")
    assert message is not None and "time quadratic in the ids" in message, message
    assert remote("06_encode_decode", code, "decode_with_arena", "check_decode_with_arena_properties") is None


# ---- lab 00, walk55's quadratic ones: measured from outside (issue 21, item 8) ---------------------------------------
# A split that goes on with a copy of the rest of the text after each special token, and a count that builds a new dict
# at each pretoken: right on every input, quadratic in the text. No test measured the split's time, and the count's
# measured texts held 12 distinct words (a dict of 12 copied at each pretoken is cheap); task 2's hidden test now ends by
# measuring its growth, and task 4's texts hold mostly fresh words.
LAB00_WALK55_GROWN = {  # a learner round's table (tests/test_grading_redteam.py finds it: none is caught by a fixed case)
    ("00_pretokenization", "split-going-on-with-the-rest"): ("task2_split_on_special_tokens_solution", ((
        '    pattern = "|".join(regex.escape(token) for token in longest_first)\n    return regex.split(pattern, text)\n',
        "    pieces = []\n    while True:\n        best = None\n        for token in longest_first:\n"
        "            i = text.find(token)\n            if i != -1 and (best is None or i < best[0]):\n"
        "                best = (i, token)\n        if best is None:\n            pieces.append(text)\n"
        "            return pieces\n        i, token = best\n        pieces.append(text[:i])\n"
        "        text = text[i + len(token):]\n"),), "time quadratic in the text"),
    ("00_pretokenization", "count-a-new-dict-each-pretoken"): ("task4_count_pretokens_solution", ((
        "        counts[key] = counts.get(key, 0) + 1\n", "        counts = counts | {key: counts.get(key, 0) + 1}\n"),),
        "a new dict for each pretoken"),
}


@pytest.mark.parametrize("lab, mistake", sorted(LAB00_WALK55_GROWN), ids=[name for _, name in sorted(LAB00_WALK55_GROWN)])
def test_lab00_walk55_a_quadratic_split_or_count_loses_the_hidden_points_told_why(request, at_the_first_verdict, lab, mistake):
    with at_the_first_verdict():
        found = round_failure(request, LAB00_WALK55_GROWN, lab, mistake)
    assert "measured from outside your code" in found or "did not finish within" in found, found  # past its bound, or its time limit


def test_lab00_walk55_a_split_that_keeps_a_position_keeps_the_hidden_points(lab00, capsys):
    """The honest form of the same loop: text.find from a position, no copy of the rest, and each token's next position
    kept (found again only once passed: walk58's split finds every token again after each cut, LAB00_GROWTH_58)."""
    graders, solutions = lab00
    (old, _), = LAB00_WALK55_GROWN["00_pretokenization", "split-going-on-with-the-rest"][1]
    walked = ("    pieces, start = [], 0\n    next_at = {token: text.find(token) for token in longest_first}\n"
              "    while True:\n        found = [(i, -len(token), token) for token, i in next_at.items() if i != -1]\n"
              "        if not found:\n            pieces.append(text[start:])\n            return pieces\n"
              "        i, _, token = min(found)  # the leftmost, the longest there\n        pieces.append(text[start:i])\n"
              "        start = i + len(token)\n        for other, at in next_at.items():  # found again once passed only\n"
              "            if at != -1 and at < start:\n                next_at[other] = text.find(other, start)\n")
    graders.check_split_on_special_tokens_properties(
        variant("00_pretokenization", solutions, "task2_split_on_special_tokens_solution", "split_on_special_tokens", old, walked))
    assert "grows as a linear method's does (measured from outside your code)" in capsys.readouterr().out


@WORKER_TWIN
def test_lab00_split_going_on_with_the_rest_fails_in_the_worker_too(at_the_first_verdict):
    """Task 2's growth is measured from outside the worker: the split that copies the rest stopped there."""
    code = "\n".join(source_of("00_pretokenization", cell) for cell in ("setup", "task2_split_on_special_tokens_solution"))
    (old, new), = LAB00_WALK55_GROWN["00_pretokenization", "split-going-on-with-the-rest"][1]
    with at_the_first_verdict():
        message = remote("00_pretokenization", code.replace(old, new), "split_on_special_tokens",
                         "check_split_on_special_tokens_properties")
    assert message is not None and "time quadratic in the text" in message, message
    assert remote("00_pretokenization", code, "split_on_special_tokens", "check_split_on_special_tokens_properties") is None


# ---- lab 06, walk55's misleading hints (issue 21: a failure explains itself) -----------------------------------------
# Four mistakes that lost their points told another mistake's hint, or a generic one: the same bytes appended for every
# special token (told that the tokens overlap, or were gone), one capturing group per special token (a None piece: told
# that a return was missing), the pair merged before the check that it is a merge (told to start from single bytes), and
# decoded tokens kept at module level by id alone (told nothing).
ONE_GROUP_PER_TOKEN = ('pieces = regex.split("(" + "|".join(regex.escape(token) for token in longest_first) + ")", text)',
                       'pieces = regex.split("(" + ")|(".join(regex.escape(token) for token in longest_first) + ")", text)')
LAB06_WALK55_HINTS = {  # a learner round's table (tests/test_grading_redteam.py finds it)
    ("06_encode_decode", "every-special-token-as-endoftext"): ("task3_encode_text_solution", ((
        '            tokens.append(piece.encode("utf-8"))', '            tokens.append(EOT.encode("utf-8"))'),),
        "every special token became b'<|endoftext|>'"),
    ("06_encode_decode", "one-capturing-group-per-token"): ("task3_encode_text_solution", (ONE_GROUP_PER_TOKEN,),
                                                            "a piece of your split is None"),
    ("06_encode_decode", "merged-before-the-check"): ("task2_encode_pretoken_solution", ((
        "        if best not in ranks:\n            break  # no neighbouring pair is a merge\n        word = merge_word(word, best)\n",
        "        word = merge_word(word, best)\n        if best not in ranks:\n            break\n"),),
        "made by merging a pair that is no merge"),
    ("06_encode_decode", "decoded-tokens-kept-by-id"): ("task5_decode_with_arena_solution", (
        ("def decode_with_arena(", "_DECODED = {}\n\n\ndef decode_with_arena("),
        ("    for token_id in ids:\n", "    for token_id in ids:\n        if token_id in _DECODED:\n"
         "            pieces.append(_DECODED[token_id])\n            continue\n"),
        ("        pieces.append(buffer[offsets[token_id] : offsets[token_id + 1]])\n",
         "        _DECODED[token_id] = buffer[offsets[token_id] : offsets[token_id + 1]]\n"
         "        pieces.append(_DECODED[token_id])\n")),
        "key them by the arena too"),
}


@pytest.mark.parametrize("lab, mistake", sorted(LAB06_WALK55_HINTS), ids=[name for _, name in sorted(LAB06_WALK55_HINTS)])
def test_lab06_walk55_a_mistake_told_another_hint_now_gets_its_own(request, lab, mistake):
    round_failure(request, LAB06_WALK55_HINTS, lab, mistake)


# ---- lab 07, walk56: a first heap sorted after each entry (issue 21, item 8) -----------------------------------------
# Right on every input, O(L^2) in the parts: task 1 was never timed (task 3 grades heap_encode with the reference's
# first_heap standing in), and kept every point. Task 1's hidden test now ends by timing one call on 12,000 parts or
# more against the reference's (lab07_heap_encoding.FIRST_HEAP_COST).
LAB07_WALK56 = {  # a learner round's table (tests/test_grading_redteam.py finds it: the measured cost catches these)
    ("07_heap_encoding", "first-heap-sorted-after-each-entry"): ("task1_first_heap_solution", (
        ("            heap.append((rank, position))\n", "            heap.append((rank, position))\n            heap.sort()\n"),
        ("    heapq.heapify(heap)  # O(L), once\n", "")), "A sort after each entry"),
    ("07_heap_encoding", "first-heap-heapified-after-each-entry"): ("task1_first_heap_solution", ((
        "            heap.append((rank, position))\n",
        "            heap.append((rank, position))\n            heapq.heapify(heap)\n"),), "A sort after each entry"),
}


@pytest.mark.parametrize("lab, mistake", sorted(LAB07_WALK56), ids=[name for _, name in sorted(LAB07_WALK56)])
def test_lab07_walk56_a_first_heap_sorted_at_each_entry_loses_the_hidden_points(request, at_the_first_verdict, lab, mistake):
    with at_the_first_verdict():
        found = round_failure(request, LAB07_WALK56, lab, mistake)
    assert "measured from outside your code" in found or "did not finish within" in found, found  # past its bound, or its time limit


def test_lab07_walk56_a_first_heap_pushed_entry_by_entry_keeps_the_hidden_points(lab07, capsys):
    """heappush for each entry is O(L log L), the statement's other way: honest."""
    graders, solutions = lab07
    graders.check_first_heap_properties(variant_of("07_heap_encoding", solutions, "task1_first_heap_solution", "first_heap", (
        ("            heap.append((rank, position))\n", "            heapq.heappush(heap, (rank, position))\n"),
        ("    heapq.heapify(heap)  # O(L), once\n", ""))))
    assert f"on {graders.HEAP_PARTS:,} parts or more" in capsys.readouterr().out


# ---- labs 03 and 07, walk56: mistakes told another mistake's hint, or none (issue 21: a failure explains itself) -------
# Lab 03's boundary cut after its token (told nothing) and a range read one byte past its end (told of a cache, and that
# a byte of the file was nowhere in it); lab 07's merge_all that builds its heap again from the parts (told only that its
# answer on the measured input was wrong).
LAB03_07_WALK56 = {  # a learner round's table (tests/test_grading_redteam.py finds it)
    ("03_parallel", "boundary-after-its-token"): ("task1_find_chunk_boundaries_solution", ((
        "                    position += min(found)\n",
        "                    position += min(found) + len(split_tokens[found.index(min(found))])\n"),),
        "a boundary after its special token"),
    ("03_parallel", "range-read-one-byte-on"): ("task2_count_chunk_solution", ((
        "        data = file.read(end - start)\n", "        data = file.read(end - start + 1)\n"),),
        "and the 1 byte after it"),
    ("03_parallel", "search-stops-an-overlap-short"): ("task1_find_chunk_boundaries_solution", ((
        "            while position < size:\n", "            while position + overlap < size:\n"),),
        "the search stops short of the file's end"),
    ("07_heap_encoding", "merge-all-heap-built-again"): ("task2_merge_all_solution", ((
        "    parts = list(parts)\n",
        "    parts = list(parts)\n    heap = [(ranks[pair], i) for i, pair in enumerate(zip(parts, parts[1:])) if pair in ranks]\n"
        "    heapq.heapify(heap)\n"),), "never builds a heap of its own"),
}


@pytest.mark.parametrize("lab, mistake", sorted(LAB03_07_WALK56), ids=[name for _, name in sorted(LAB03_07_WALK56)])
def test_labs03_07_walk56_a_mistake_told_another_hint_now_gets_its_own(request, lab, mistake):
    round_failure(request, LAB03_07_WALK56, lab, mistake)
LAB07_WALK56_HINTS = {  # two more of walk56's, each told another mistake's hint (a learner round's table)
    ("07_heap_encoding", "merge-all-pops-the-front"): ("task2_merge_all_solution", ((
        "        rank, start = heapq.heappop(heap)\n", "        rank, start = heap.pop(0)\n"),), "heap.pop(0)"),
    ("07_heap_encoding", "merge-all-prev-left-unlinked"): ("task2_merge_all_solution", ((
        "            prev[after] = start\n", "            pass\n"),), "prev[next_[i]] = i"),
}


@pytest.mark.parametrize("lab, mistake", sorted(LAB07_WALK56_HINTS), ids=[name for _, name in sorted(LAB07_WALK56_HINTS)])
def test_lab07_walk56_a_pop_loop_mistake_told_another_hint_now_gets_its_own(request, lab, mistake):
    round_failure(request, LAB07_WALK56_HINTS, lab, mistake)


# ---- lab 10, walk57: the lab worked as a new learner (issue 21's walk) -------------------------------------------------
# Kept every point before: a count_range that sorts the caller's special tokens in place (longest first), a count_ranges
# that sorts the caller's ranges in place (its graph read from the sorted list after the call), a tree_reduce that combines
# every two neighbours and keeps every other result (the right tree, for twice the merges), a plan that reads each file
# whole to learn its size. Told another mistake's hint: a path listed twice planned once ("each file's last range is
# missing"), ranges counted in sorted order ("not tree_reduce's merges").
LAB10_WALK57 = {  # a learner round's table (tests/test_grading_redteam.py finds it)
    ("10_distributed", "range-sorts-the-callers-tokens"): ("task1_count_range_solution", ((
        "    with open(path, \"rb\") as file:\n",
        "    special_tokens.sort(key=len, reverse=True)  # the longest first, for tokens that overlap\n"
        "    with open(path, \"rb\") as file:\n"),), "changed its argument special_tokens"),
    ("10_distributed", "tree-every-two-neighbours-every-other-kept"): ("task3_tree_reduce_solution", ((
        "        paired = [combine(level[i], level[i + 1]) for i in range(0, len(level) - 1, 2)]\n",
        "        paired = [combine(left, right) for left, right in zip(level, level[1:])][::2]\n"),),
        "of the pairs it made are not in the tree", tree_shape_hidden),
    ("10_distributed", "plan-size-by-reading-the-file"): ("task4_plan_ranges_solution", ((
        "            boundaries = [0, os.path.getsize(path)]\n",
        "            boundaries = [0, len(open(path, \"rb\").read())]\n"),), "the plan runs on the client"),
    ("10_distributed", "plan-each-path-once"): ("task4_plan_ranges_solution", ((
        "    for path in paths:\n", "    for path in dict.fromkeys(paths):  # each file once\n"),),
        "a path listed twice is planned once"),
    ("10_distributed", "count-ranges-sorted-in-place"): ("task5_count_ranges_solution", ((
        "    parts = [", "    ranges.sort()  # file by file, in order\n    parts = ["),), "changed its argument ranges"),
    ("10_distributed", "count-ranges-sorted-copy"): ("task5_count_ranges_solution", ((
        "for path, start, end in ranges]", "for path, start, end in sorted(ranges)]"),),
        "but the ranges in another order", task_graph_hidden),
}


def test_lab10_walk57_a_tree_that_makes_merges_it_drops_fails_in_the_worker_too():
    """The driver counts combine's calls where tree_reduce runs: in the grading worker, beside the sealed tree."""
    code = "\n".join(source_of("10_distributed", cell) for cell in ("setup", "task3_tree_reduce_solution", "task3_tree_shape"))
    old, new = LAB10_WALK57["10_distributed", "tree-every-two-neighbours-every-other-kept"][1][0]
    assert old in code
    message = remote("10_distributed", code.replace(old, new), "tree_shape", "check_tree_shape_properties")
    assert message is not None and "of the pairs it made are not in the tree" in message, message
    assert remote("10_distributed", code, "tree_shape", "check_tree_shape_properties") is None


# ---- lab 05, walk57: a push loop one level too deep (issue 21's walk) --------------------------------------------------
# V5 whose push loop sits inside the loop over the merged pair's words (an indentation slip): after each rewritten word it
# pushes every pair grown so far, words x grown pairs entries, with the right merges (the last push of a pair holds its
# count after the merge). Slower than V4 on TinyStories (1,000 merges: 2.26 s, V4 0.75 s, V5 0.23 s), it kept every
# point: the measured corpora rewrote few words per merge. lab05_heap.many_words_corpus rewrites 24,000 in its first.
LAB05_WALK57 = {  # a learner round's table (tests/test_grading_redteam.py finds it)
    ("05_heap", "push-loop-inside-the-word-loop"): ("task3_train_solution", ((
        "                    grown.add(new_pair)\n"
        "        for new_pair in grown:\n"
        "            if new_pair in pair_counts:\n"
        "                heapq.heappush(entries, heap_entry(pair_counts[new_pair], new_pair))\n",
        "                    grown.add(new_pair)\n"
        "            for new_pair in grown:\n"
        "                if new_pair in pair_counts:\n"
        "                    heapq.heappush(entries, heap_entry(pair_counts[new_pair], new_pair))\n"),),
        "words x grown pairs entries"),
}


@pytest.mark.parametrize("lab, mistake", sorted(LAB05_WALK57), ids=[name for _, name in sorted(LAB05_WALK57)])
def test_lab05_walk57_a_push_loop_inside_the_word_loop_loses_the_hidden_points(request, at_the_first_verdict, lab, mistake):
    with at_the_first_verdict():
        found = round_failure(request, LAB05_WALK57, lab, mistake)
    assert "measured from outside your code" in found or "did not finish within" in found, found
LAB05_WALK57_HINTS = {  # told another mistake's hint (a learner round's table)
    # told to copy the dict, which costs a pass over it per call
    ("05_heap", "pop-best-counts-read-by-setdefault"): ("task2_pop_best_solution", ((
        "pair_counts.get(pair, 0)", "pair_counts.setdefault(pair, 0)"),), "a lookup added them"),
    # told to end every key with a marker greater than any byte's, which it does (the byte 0 is that marker)
    ("05_heap", "entry-key-byte-0-as-the-end-marker"): ("task1_heap_entry_solution", ((
        "chr(255 - b)", "chr(256 - b)"),), "as the prefix's end marker"),
}



# ---- lab 02, walk57: mistakes told another mistake's hint, or none (issue 21: a failure explains itself) ---------------
LAB02_WALK57_HINTS = {  # a learner round's table (tests/test_grading_redteam.py finds it)
    # told of a comprehension or dict.update: the windows were made a set
    ("02_incremental", "old-windows-as-a-set"): ("task1_pair_count_changes_solution", ((
        "for old in zip(word, word[1:]):", "for old in set(zip(word, word[1:])):"),), "a set of the windows"),
    # told of dict.update writing over the counts: each change was weighed by the frequency twice
    ("02_incremental", "changes-weighed-twice"): ("task2_merge_and_update_solution", ((
        "pair_counts.get(changed, 0) + change", "pair_counts.get(changed, 0) + change * frequency"),),
        "weighs its changes by the frequency already"),
    # told nothing: the first pair of the top count in the dict's order
    ("02_incremental", "best-by-count-alone"): ("task3_train_solution", ((
        "best_pair(pair_counts)", "max(pair_counts, key=pair_counts.get)"),), "only the tie-break differs"),
}



# ---- lab 08, walk57: answers kept by id(ranks) in task 1, and the replay for short pretokens in tasks 2 and 3 ---------
# Both kept every point: compatible remembered its answers by (left, right, id(ranks)) (task 1 had no check of a ranks
# dict changed between calls, as tasks 2 and 3 have); backtrack_encode handed pretokens of 32 bytes or less to lab 06's
# replay (tiktoken's way with short pieces), and the hidden pretokens are mostly short. The search's driver now watches
# the notebook's encode_pretoken, which compatible calls on two tokens' bytes.
LAB08_WALK57 = {  # a learner round's table (tests/test_grading_redteam.py finds it)
    ("08_linear_encoding", "compatible-kept-by-the-ranks-id"): ("task1_compatible_solution", ((
        "    return encode_pretoken(left + right, ranks) == [left, right]\n",
        "    key = (left, right, id(ranks))  # the same dict, the same vocabulary\n"
        "    if key not in KEPT:\n        KEPT[key] = encode_pretoken(left + right, ranks) == [left, right]\n"
        "    return KEPT[key]\n\n\nKEPT = {}\n"),),
        # or, where a freed dict's id came again in the main cases, told of a stale answer there
        ("the second call gave the first call's answer", "failed once but not when run again")),
    ("08_linear_encoding", "backtrack-short-pretokens-replayed"): ("task2_backtrack_encode_solution", ((
        "    ### BEGIN SOLUTION\n",
        "    ### BEGIN SOLUTION\n    if len(pretoken) <= 32:  # short pieces: the replay is fast enough\n"
        "        return encode_pretoken(pretoken, ranks)\n"),), "never on the pretoken or a piece of it"),
    ("08_linear_encoding", "last-tokens-short-pretokens-replayed"): ("task3_last_tokens_solution", ((
        "    ### BEGIN SOLUTION\n",
        "    ### BEGIN SOLUTION\n    if len(pretoken) <= 32:  # short pieces: the replay's tokens, then each prefix's\n"
        "        return [None] + [encode_pretoken(pretoken[:end], ranks)[-1] for end in range(1, len(pretoken) + 1)]\n"),),
        "never on the pretoken or a piece of it"),
}



def test_lab08_walk57_the_short_replay_fails_in_the_worker_too():
    """The driver watches the notebook's encode_pretoken where backtrack_encode runs: in the grading worker too."""
    old, new = LAB08_WALK57["08_linear_encoding", "backtrack-short-pretokens-replayed"][1][0]
    search = source_of("08_linear_encoding", "task2_backtrack_encode_solution")
    assert old in search
    code = "\n".join([source_of("08_linear_encoding", "setup"), source_of("08_linear_encoding", "task1_compatible_solution")])
    message = remote("08_linear_encoding", code + "\n" + search.replace(old, new), "backtrack_encode",
                     "check_backtrack_encode_properties")
    assert message is not None and "never on the pretoken or a piece of it" in message, message
    assert remote("08_linear_encoding", code + "\n" + search, "backtrack_encode", "check_backtrack_encode_properties") is None


LAB09_WALK57_HINTS = {  # lab 09's, told nothing or another mistake's hint (a learner round's table)
    ("09_benchmarks", "spread-by-the-upper-middle"): ("task2_spread_solution", ((
        "middle = statistics.median(values)", "middle = sorted(values)[len(values) // 2]"),), "the upper of the two middle"),
    ("09_benchmarks", "exponent-neither-logged"): ("task4_fit_exponent_solution", ((
        "math.log(s)", "float(s)"), ("math.log(t)", "float(t)")), "neither logged"),  # its hint overflowed, on sizes of 1,000
    ("09_benchmarks", "crossover-an-int"): ("task5_crossover_solution", ((
        "return float(xs[i])", "return xs[i]"),), "is an int, where a float is due"),
    ("09_benchmarks", "peak-traces-cleared"): ("task6_peak_memory_solution", ((
        "tracemalloc.reset_peak()", "tracemalloc.clear_traces()"),), "tracemalloc.clear_traces(), like stop()"),
    # kept every point: "never compare floats with ==" (two fixed hidden cases now hold curves that come close)
    # told only of |a - b|: an exact meeting looked for first, in a scan of its own, then the changes of sign
    ("09_benchmarks", "crossover-meetings-first-then-crossings"): ("task5_crossover_solution", ((
        "            return float(xs[i])\n        if i + 1 < len(xs)",
        "            return float(xs[i])\n    for i in range(len(xs)):\n        if i + 1 < len(xs)"),), "scan the points once"),
    ("09_benchmarks", "crossover-meets-where-isclose"): ("task5_crossover_solution", ((
        "        if d[i] == 0:\n", "        if __import__(\"math\").isclose(ys_a[i], ys_b[i]):\n"),), "no tolerance"),
    ("09_benchmarks", "crossover-meets-within-a-relative-1e-3"): ("task5_crossover_solution", ((
        "        if d[i] == 0:\n", "        if __import__(\"math\").isclose(ys_a[i], ys_b[i], rel_tol=1e-3):\n"),),
        "no tolerance"),
}


LAB06_WALK57 = {  # kept every point: task 3 had no check of a ranks dict changed between calls, as task 2 has
    # told "the leftmost pair, or the highest rank", which its tokens matched by chance
    ("06_encode_decode", "pretoken-ranks-compared-as-text"): ("task2_encode_pretoken_solution", ((
        'key=lambda pair: ranks.get(pair, float("inf"))', 'key=lambda pair: str(ranks.get(pair, float("inf")))'),),
        ("compared the ranks as text", "those of ranks compared as text")),
    ("06_encode_decode", "text-tokens-kept-by-the-ranks-id"): ("task3_encode_text_solution", ((
        "            tokens += encode_pretoken(pretoken.encode(\"utf-8\"), ranks)\n",
        "            key = (pretoken, id(ranks))  # the same dict, the same vocabulary: encode each pretoken once\n"
        "            if key not in KEPT:\n                KEPT[key] = encode_pretoken(pretoken.encode(\"utf-8\"), ranks)\n"
        "            tokens += KEPT[key]\n"),
        ("    return tokens\n", "    return tokens\n\n\nKEPT = {}\n")),
        # a freed ranks dict's id is often the next one's, so that under some seeds a case fails first, with the hint
        ("the second call gave other tokens than its ranks give", "key them by the ranks too")),
}


# ---- lab 06, walk57's leftover: an arena's buffer grown with += (issue 21's walk) -------------------------------------
# build_arena growing its bytes buffer token by token: the right arena in time quadratic in the tokens (GPT-2's 50,257
# tokens 0.21 s against 0.017 s: the visible test passes). It kept every point; the hidden test now measures the growth.
LAB06_ARENA_COST = {  # a learner round's table (tests/test_grading_redteam.py finds it)
    ("06_encode_decode", "arena-buffer-grown-with-plus-equals"): ("task4_build_arena_solution", (
        ("    pieces = []\n", "    buffer = b\"\"\n"), ("        pieces.append(token)\n", "        buffer += token\n"),
        ("    return b\"\".join(pieces), offsets\n", "    return buffer, offsets\n")),
        "buffer += token on bytes copies every byte"),
}


@pytest.mark.parametrize("lab, mistake", sorted(LAB06_ARENA_COST), ids=[name for _, name in sorted(LAB06_ARENA_COST)])
def test_lab06_an_arena_grown_with_plus_equals_loses_the_hidden_points(request, at_the_first_verdict, lab, mistake):
    with at_the_first_verdict():
        found = round_failure(request, LAB06_ARENA_COST, lab, mistake)
    assert "measured from outside your code" in found or "did not finish within" in found, found


# ---- lab 06, walk58: a cost at each call that grows with the vocabulary (issue 21's walk) ----------------------------
# Right answers, O(M) (merges) or O(V) (tokens) a call: encode_text calls encode_pretoken once per pretoken, and a stream
# decodes a few ids a call. The measured calls were one large call, or 500 pretokens with 10,000 merges (a copy of the
# ranks each call passed there); the hidden tests now also measure many very short calls with one large dict or arena.
LAB06_PER_CALL = {  # a learner round's table (tests/test_grading_redteam.py finds it)
    ("06_encode_decode", "pretoken-default-rank-the-max-each-call"): ("task2_encode_pretoken_solution", (
        ("    word = split_into_bytes(pretoken)\n",
         "    no_merge = max(ranks.values(), default=0) + 1  # a default rank larger than any merge\n"
         "    word = split_into_bytes(pretoken)\n"),
        ('ranks.get(pair, float("inf"))', "ranks.get(pair, no_merge)")), "does each call look at every merge"),
    ("06_encode_decode", "pretoken-ranks-copied-each-call"): ("task2_encode_pretoken_solution", (
        ("    word = split_into_bytes(pretoken)\n",
         "    ranks = dict(ranks)  # a copy of our own: the caller's dict stays as it was\n"
         "    word = split_into_bytes(pretoken)\n"),), "does each call look at every merge"),
    ("06_encode_decode", "decode-valid-ids-a-set-each-call"): ("task5_decode_with_arena_solution", (
        ("    pieces = []\n",
         "    valid = {i for i in range(len(offsets) - 1) if offsets[i] < offsets[i + 1]}\n    pieces = []\n"),
        ("        if not 0 <= token_id < len(offsets) - 1 or offsets[token_id] == offsets[token_id + 1]:\n",
         "        if token_id not in valid:\n")), "does each call look at every token"),
}


LAB07_PER_CALL = {  # lab 07's, the same kind (a learner round's table)
    ("07_heap_encoding", "first-pairs-a-set-each-call"): ("task1_first_heap_solution", (
        ("    heap = []\n", "    merges = set(ranks)\n    heap = []\n"),
        ("        rank = ranks.get((parts[position], parts[position + 1]))\n        if rank is not None:\n",
         "        pair = (parts[position], parts[position + 1])\n        if pair in merges:\n            rank = ranks[pair]\n")),
        "does each call look at every merge"),
    ("07_heap_encoding", "encode-ranks-copied-each-call"): ("task3_heap_encode_solution", (
        ("    parts = list(split_into_bytes(pretoken))\n",
         "    ranks = dict(ranks)  # a copy of our own: the caller's dict stays as it was\n"
         "    parts = list(split_into_bytes(pretoken))\n"),), "does each call look at every merge"),
}
_PER_CALL = {**LAB06_PER_CALL, **LAB07_PER_CALL}


@pytest.mark.parametrize("lab, mistake", sorted(_PER_CALL), ids=[name for _, name in sorted(_PER_CALL)])
def test_labs06_07_a_cost_at_each_call_that_grows_with_the_vocabulary_loses_the_hidden_points(request, at_the_first_verdict,
                                                                                              lab, mistake):
    with at_the_first_verdict():
        found = round_failure(request, _PER_CALL, lab, mistake)
    assert "measured from outside your code" in found or "did not finish within" in found, found


# ---- walk58: answers kept from call to call (labs 00, 01, 04 and 07; issue 21's walk) --------------------------------
# A cache of answers that hands back the object it stores, or one list or dict kept at module level and filled again at
# each call: right at every call the graders made, wrong for a caller that changes its answer or calls again. Every task
# whose answer holds a list, dict or set is now also called through checks/kept.py's driver (the hidden test, last).
KEPT_ANSWERS = {  # a learner round's table (tests/test_grading_redteam.py finds it)
    ("00_pretokenization", "utf8-cached-shared-list"): ("task1_utf8_bytes_solution", (
        ('    return list(text.encode("utf-8"))\n',
         '    if text not in CACHE:\n        CACHE[text] = list(text.encode("utf-8"))\n    return CACHE[text]\n'),
        ("def utf8_bytes(", "CACHE = {}\n\n\ndef utf8_bytes(")), "a cache of answers?"),
    ("00_pretokenization", "count-cached-shared-dict"): ("task4_count_pretokens_solution", (
        ("    counts: dict[bytes, int] = {}\n",
         "    cache_key = (text, tuple(special_tokens))\n    if cache_key in CACHE:\n        return CACHE[cache_key]\n"
         "    counts: dict[bytes, int] = {}\n"),
        ("    return counts\n", "    CACHE[cache_key] = counts\n    return counts\n"),
        ("def count_pretokens(", "CACHE = {}\n\n\ndef count_pretokens(")), "a cache of answers?"),
    ("01_naive_bpe", "count-one-dict-reused"): ("task1_count_pairs_solution", (
        ("    counts: dict[Pair, int] = defaultdict(int)\n", "    counts = COUNTS\n    counts.clear()\n"),
        ("            counts[pair] += frequency\n", "            counts[pair] = counts.get(pair, 0) + frequency\n"),
        ("    return dict(counts)\n", "    return counts\n"),
        ("def count_pairs(", "COUNTS = {}  # one dict, reused: no new one per merge\n\n\ndef count_pairs(")),
        "one object kept from call to call"),
    ("01_naive_bpe", "train-merges-in-one-list-reused"): ("task4_train_solution", (
        ("    merges = []\n", "    merges = MERGES\n    merges.clear()\n"),
        ("def train(", "MERGES = []  # the merges learned last, for encode_word\n\n\ndef train(")),
        "one object kept from call to call"),
    ("04_inverted_index", "index-cached-by-words"): ("task1_index_words_solution", (
        ("    index: defaultdict[Pair, set[int]] = defaultdict(set)\n",
         "    key = tuple(words)\n    if key in INDEXED:\n        return INDEXED[key]\n"
         "    index: defaultdict[Pair, set[int]] = defaultdict(set)\n"),
        ("    return index\n", "    INDEXED[key] = index\n    return index\n"),
        ("def index_words(", "INDEXED = {}\n\n\ndef index_words(")), "a cache of answers?"),
    ("04_inverted_index", "pairs-with-lru-cache"): ("task2_pairs_with_solution", (
        ("def pairs_with(", "import functools\n\n\n@functools.lru_cache(maxsize=None)  # train asks again\ndef pairs_with("),),
        "a cache of answers?"),
    ("04_inverted_index", "train-cache-returns-its-list"): ("task3_train_solution", (
        ("    words = [split_into_bytes(pretoken) for pretoken in pretoken_counts]\n",
         "    key = (frozenset(pretoken_counts.items()), num_merges)\n    if key in TRAINED:\n        return TRAINED[key]\n"
         "    words = [split_into_bytes(pretoken) for pretoken in pretoken_counts]\n"),
        ("    return merges\n", "    TRAINED[key] = merges\n    return merges\n"),
        ("def train(", "TRAINED = {}\n\n\ndef train(")), "a cache of answers?"),
    ("07_heap_encoding", "encode-cached-aliased"): ("task3_heap_encode_solution", (
        ("    parts = list(split_into_bytes(pretoken))\n    return merge_all(parts, ranks, first_heap(parts, ranks))\n",
         "    key = (pretoken, frozenset(ranks.items()))\n    if key not in CACHE:\n"
         "        parts = list(split_into_bytes(pretoken))\n        CACHE[key] = merge_all(parts, ranks, first_heap(parts, ranks))\n"
         "    return CACHE[key]\n"),
        ("def heap_encode(", "CACHE = {}\n\n\ndef heap_encode(")), "a cache of answers?"),
}


@pytest.mark.parametrize("lab, mistake", sorted(KEPT_ANSWERS), ids=[name for _, name in sorted(KEPT_ANSWERS)])
def test_an_answer_kept_from_call_to_call_loses_the_hidden_points(request, lab, mistake):
    round_failure(request, KEPT_ANSWERS, lab, mistake)


# ---- lab 04, walk58: the index built pair by pair, as page 04 defines it (issue 21's walk) ----------------------------
LAB04_INDEX_COST = {  # a learner round's table (tests/test_grading_redteam.py finds it)
    ("04_inverted_index", "index-by-definition-per-pair"): ("task1_index_words_solution", ((
        "    for i, word in enumerate(words):\n        for pair in zip(word, word[1:]):\n            index[pair].add(i)\n",
        "    pairs = {pair for word in words for pair in zip(word, word[1:])}\n"
        "    for pair in pairs:  # index[(a, b)] = {i : word i has a window (a, b)}, as page 04 defines it\n"
        "        for i, word in enumerate(words):\n            if pair in zip(word, word[1:]):\n"
        "                index[pair].add(i)\n"),), "a pass over every word for each pair"),
}


LAB04_WALK58_HINTS = {  # told "a list inside your list" (append and extend): a learner round's table
    ("04_inverted_index", "pairs-with-list-pairs"): ("task2_pairs_with_solution", ((
        "    return [pair for pair in zip(word, word[1:]) if token in pair]\n",
        "    return [[left, right] for left, right in zip(word, word[1:]) if token in (left, right)]\n"),),
        "lists where tuples were expected"),
}


@pytest.mark.parametrize("lab, mistake", sorted(LAB04_WALK58_HINTS), ids=[name for _, name in sorted(LAB04_WALK58_HINTS)])
def test_lab04_windows_as_lists_are_told_so(request, lab, mistake):
    round_failure(request, LAB04_WALK58_HINTS, lab, mistake)


@pytest.mark.parametrize("lab, mistake", sorted(LAB04_INDEX_COST), ids=[name for _, name in sorted(LAB04_INDEX_COST)])
def test_lab04_an_index_built_pair_by_pair_loses_the_hidden_points(request, at_the_first_verdict, lab, mistake):
    with at_the_first_verdict():
        found = round_failure(request, LAB04_INDEX_COST, lab, mistake)
    assert "measured from outside your code" in found or "did not finish within" in found, found


# ---- lab 03, walk58: the caller's special tokens sorted in place (issue 21's walk) ---------------------------------------
LAB03_TOKENS_SORTED = {  # a learner round's table (tests/test_grading_redteam.py finds it)
    ("03_parallel", "file-sorts-the-callers-special-tokens"): ("task4_count_pretokens_in_file_solution", ((
        "    if num_workers == 1 or not special_tokens:\n",
        "    special_tokens.sort(key=len, reverse=True)  # longest first, as page 00 teaches\n"
        "    if num_workers == 1 or not special_tokens:\n"),), "changed its argument special_tokens"),
}


@pytest.mark.parametrize("lab, mistake", sorted(LAB03_TOKENS_SORTED), ids=[name for _, name in sorted(LAB03_TOKENS_SORTED)])
def test_lab03_the_callers_special_tokens_sorted_in_place_lose_the_hidden_points(request, lab, mistake):
    round_failure(request, LAB03_TOKENS_SORTED, lab, mistake)


# ---- lab 03, walk58: each guess searched from itself although the cut before lies past it (issue 21's walk) -------------
LAB03_WALK58 = {  # a learner round's table (tests/test_grading_redteam.py finds it)
    ("03_parallel", "find-guess-without-the-cut-before"): ("task1_find_chunk_boundaries_solution", ((
        "position = max(i * chunk_size, boundaries[-1])", "position = i * chunk_size"),), "reads again"),
    # a window that keeps window[-overlap:] between reads: with one-byte tokens, window[-0:] keeps all it has read
    ("03_parallel", "find-one-byte-window-kept-whole"): ("task1_find_chunk_boundaries_solution", ((
        "            while position < size:\n                file.seek(position)\n"
        "                window = file.read(buffer_size + overlap)\n",
        "            file.seek(position)\n            window = b''\n            while position < size:\n"
        "                kept = window[-overlap:]  # a token cut by the read's end\n"
        "                window = kept + file.read(buffer_size)\n                position -= len(kept)\n"),
        ("window.find(t, 0, buffer_size + len(t) - 1)", "window.find(t)"),
        ("                position += buffer_size\n", "                position += len(window)\n")), "window[-0:]"),
}


LAB03_KEPT = {  # cuts kept by the path and handed back (a learner round's table)
    ("03_parallel", "find-cuts-kept-by-path"): ("task1_find_chunk_boundaries_solution", (
        ("def find_chunk_boundaries(", "_CUTS = {}\n\n\ndef find_chunk_boundaries("),
        ("    overlap = max(", "    key = (path, desired_num_chunks, tuple(split_tokens), buffer_size)\n    if key in _CUTS:\n"
                             "        return _CUTS[key]\n    overlap = max("),
        ("    return sorted(set(boundaries))\n", "    _CUTS[key] = sorted(set(boundaries))\n    return _CUTS[key]\n")),
        "handed back the answer its caller had changed"),
}


@pytest.mark.parametrize("lab, mistake", sorted(LAB03_KEPT), ids=[name for _, name in sorted(LAB03_KEPT)])
def test_lab03_cuts_kept_by_the_path_and_handed_back_lose_the_hidden_points(request, lab, mistake):
    round_failure(request, LAB03_KEPT, lab, mistake)


@pytest.mark.parametrize("lab, mistake", sorted(LAB03_WALK58), ids=[name for _, name in sorted(LAB03_WALK58)])
def test_lab03_a_guess_searched_again_past_the_cut_before_loses_the_hidden_points(request, at_the_first_verdict, lab, mistake):
    with at_the_first_verdict():
        found = round_failure(request, LAB03_WALK58, lab, mistake)
    assert "measured from outside your code" in found, found


# Walk57's mistakes that a case catches (labs 02, 05, 06, 08, 09 and 10), each graded with its task's hidden test, where
# it now fails with its own message (lab 05's push loop, a measured mistake, is graded above at its first verdict).
_walk57 = {**LAB02_WALK57_HINTS, **LAB05_WALK57_HINTS, **LAB06_WALK57, **LAB08_WALK57, **LAB09_WALK57_HINTS, **LAB10_WALK57}


@pytest.mark.seeded
@pytest.mark.parametrize("lab, mistake", sorted(_walk57), ids=[name for _, name in sorted(_walk57)])
def test_walk57_a_mistake_that_kept_its_points_or_was_told_another_hint_now_fails_with_its_own(request, lab, mistake):
    round_failure(request, _walk57, lab, mistake)


# ---- lab 01, walk58: a pass per item where one pass over the input does (issue 21's walk) ------------------------------
_MERGE_WORD_BODY = ("    merged = []\n    i = 0\n    while i < len(word):\n"
                    "        if i + 1 < len(word) and word[i] == pair[0] and word[i + 1] == pair[1]:\n"
                    "            merged.append(word[i] + word[i + 1])\n            i += 2\n        else:\n"
                    "            merged.append(word[i])\n            i += 1\n    return tuple(merged)\n")
LAB01_GROWTH = {  # a learner round's table (tests/test_grading_redteam.py finds it)
    ("01_naive_bpe", "count-a-counter-added-per-word"): ("task1_count_pairs_solution", ((
        "    counts: dict[Pair, int] = defaultdict(int)\n    for word, frequency in word_counts.items():\n"
        "        for pair in zip(word, word[1:]):\n            counts[pair] += frequency\n",
        "    counts: Counter = Counter()\n    for word, frequency in word_counts.items():\n"
        "        counts += Counter({pair: frequency * n for pair, n in Counter(zip(word, word[1:])).items()})\n"),),
        "goes over every pair counted so far"),
    ("01_naive_bpe", "best-max-inside-the-comprehension"): ("task2_best_pair_solution", ((
        "    return max(pair_counts, key=lambda pair: (pair_counts[pair], pair))\n",
        "    top = [pair for pair in pair_counts if pair_counts[pair] == max(pair_counts.values())]\n"
        "    return max(top)  # the greatest of the most frequent pairs\n"),), "pairs x pairs"),
    ("01_naive_bpe", "merge-a-tuple-grown-by-plus-equals"): ("task3_merge_word_solution", (
        ("    merged = []\n", "    merged: Word = ()\n"),
        ("merged.append(word[i] + word[i + 1])", "merged += (word[i] + word[i + 1],)"),
        ("merged.append(word[i])\n", "merged += (word[i],)\n")), "copies the word at each step"),
    ("01_naive_bpe", "merge-spliced-at-each-merge"): ("task3_merge_word_solution", ((
        _MERGE_WORD_BODY,
        "    i = 0\n    while i < len(word) - 1:\n        if word[i] == pair[0] and word[i + 1] == pair[1]:\n"
        "            word = word[:i] + (word[i] + word[i + 1],) + word[i + 2:]\n        i += 1\n    return tuple(word)\n"),),
        "copies the word at each step"),
}


@pytest.mark.parametrize("lab, mistake", sorted(LAB01_GROWTH), ids=[name for _, name in sorted(LAB01_GROWTH)])
def test_lab01_a_pass_per_item_loses_the_hidden_points(request, at_the_first_verdict, lab, mistake):
    with at_the_first_verdict():
        found = round_failure(request, LAB01_GROWTH, lab, mistake)
    assert "measured from outside your code" in found or "did not finish within" in found, found


LAB01_WALK58 = {  # a pair of count 0 deleted from the caller's dict; answers kept by the pairs (a learner round's table)
    ("01_naive_bpe", "best-kept-by-its-pairs"): ("task2_best_pair_solution", (
        ("def best_pair(", "_BEST = {}\n\n\ndef best_pair("),
        ("    return max(pair_counts, key=lambda pair: (pair_counts[pair], pair))\n",
         "    key = frozenset(pair_counts)  # the same pairs, the same best\n    if key not in _BEST:\n"
         "        _BEST[key] = max(pair_counts, key=lambda pair: (pair_counts[pair], pair))\n    return _BEST[key]\n")),
        "kept an answer from an earlier call"),
    ("01_naive_bpe", "best-deletes-pairs-of-count-zero"): ("task2_best_pair_solution", ((
        "    return max(pair_counts, key=lambda pair: (pair_counts[pair], pair))\n",
        "    for pair in [pair for pair, count in pair_counts.items() if count == 0]:\n"
        "        del pair_counts[pair]  # no longer seen: never the best\n"
        "    return max(pair_counts, key=lambda pair: (pair_counts[pair], pair))\n"),), "changed its argument pair_counts"),
}


@pytest.mark.parametrize("lab, mistake", sorted(LAB01_WALK58), ids=[name for _, name in sorted(LAB01_WALK58)])
def test_lab01_a_zero_count_deleted_or_a_best_kept_by_its_pairs_loses_the_hidden_points(request, lab, mistake):
    round_failure(request, LAB01_WALK58, lab, mistake)


# ---- lab 00, walk58: a pass per character, per cut or per pretoken where one pass does (issue 21's walk) ---------------
_SPLIT_BY_REGEX = '    pattern = "|".join(regex.escape(token) for token in longest_first)\n    return regex.split(pattern, text)\n'
LAB00_GROWTH_58 = {  # a learner round's table (tests/test_grading_redteam.py finds it)
    ("00_pretokenization", "utf8-a-list-copied-at-each-character"): ("task1_utf8_bytes_solution", ((
        '    return list(text.encode("utf-8"))\n',
        '    result = []\n    for char in text:\n        result = result + list(char.encode("utf-8"))\n    return result\n'),),
        "time quadratic in the text"),
    ("00_pretokenization", "utf8-lists-summed"): ("task1_utf8_bytes_solution", ((
        '    return list(text.encode("utf-8"))\n', '    return sum((list(char.encode("utf-8")) for char in text), [])\n'),),
        "time quadratic in the text"),
    ("00_pretokenization", "split-finds-every-token-again-after-each-cut"): ("task2_split_on_special_tokens_solution", ((
        _SPLIT_BY_REGEX,
        "    pieces, start = [], 0\n    while True:\n        best = None\n        for token in longest_first:\n"
        "            i = text.find(token, start)\n            if i != -1 and (best is None or i < best[0]):\n"
        "                best = (i, token)\n        if best is None:\n            pieces.append(text[start:])\n"
        "            return pieces\n        i, token = best\n        pieces.append(text[start:i])\n"
        "        start = i + len(token)\n"),), "scans the rest for one the text no longer holds"),
    ("00_pretokenization", "pretokenize-piece-sliced-after-each-match"): ("task3_pretokenize_solution", ((
        "        pretokens.extend(regex.findall(GPT2_PATTERN, piece))\n",
        "        while piece:\n            match = PATTERN.match(piece)  # compiled once, below\n"
        "            pretokens.append(match.group())\n            piece = piece[match.end():]\n"),
        ("def pretokenize(", "PATTERN = regex.compile(GPT2_PATTERN)\n\n\ndef pretokenize(")),
        "copies the rest of the piece at each pretoken"),
    ("00_pretokenization", "count-a-counter-added-per-pretoken"): ("task4_count_pretokens_solution", (
        ("    counts: dict[bytes, int] = {}\n", "    counts = Counter()\n"),
        ("        counts[key] = counts.get(key, 0) + 1\n", "        counts += Counter([key])\n"),
        ("def count_pretokens(", "from collections import Counter\n\n\ndef count_pretokens(")),
        "Counter added per pretoken"),
}


@pytest.mark.parametrize("lab, mistake", sorted(LAB00_GROWTH_58), ids=[name for _, name in sorted(LAB00_GROWTH_58)])
def test_lab00_walk58_a_pass_per_item_loses_the_hidden_points(request, at_the_first_verdict, lab, mistake):
    with at_the_first_verdict():
        found = round_failure(request, LAB00_GROWTH_58, lab, mistake)
    assert "measured from outside your code" in found or "did not finish within" in found, found


LAB00_WALK58 = {  # a byte order mark stripped (a learner round's table)
    ("00_pretokenization", "pretokenize-strips-a-leading-bom"): ("task3_pretokenize_solution", ((
        "    pretokens = []\n", '    text = text.removeprefix("\\ufeff")  # a file\'s byte order mark\n    pretokens = []\n'),),
        "byte order mark"),
    ("00_pretokenization", "pretokenize-strips-a-bom-from-each-piece"): ("task3_pretokenize_solution", ((
        "regex.findall(GPT2_PATTERN, piece)", 'regex.findall(GPT2_PATTERN, piece.lstrip("\\ufeff"))'),), "byte order mark"),
    ("00_pretokenization", "count-strips-a-leading-bom"): ("task4_count_pretokens_solution", ((
        "pretokenize(text, special_tokens)", 'pretokenize(text.lstrip("\\ufeff"), special_tokens)'),), "byte order mark"),
}


@pytest.mark.parametrize("lab, mistake", sorted(LAB00_WALK58), ids=[name for _, name in sorted(LAB00_WALK58)])
def test_lab00_walk58_a_byte_order_mark_stripped_loses_the_hidden_points(request, lab, mistake):
    round_failure(request, LAB00_WALK58, lab, mistake)


# ---- lab 07, walk58: the next part found by its first byte's offset (issue 21's walk) -----------------------------------
LAB07_WALK58 = {  # a learner round's table (tests/test_grading_redteam.py finds it)
    ("07_heap_encoding", "merge-all-next-part-by-byte-offset"): ("task2_merge_all_solution", ((
        "        right_start = next_[start]\n        if right_start == end or ",
        "        right_start = start + len(left)  # the next part starts where this one's bytes end\n"
        "        if right_start >= end or "),), "not found by its first byte's offset"),
    # first heaps kept by the parts and the ranks' id, the kept list handed back: merge_all pops it empty
    ("07_heap_encoding", "first-heap-kept-by-parts"): ("task1_first_heap_solution", (
        ("def first_heap(", "_FIRST_HEAPS = {}\n\n\ndef first_heap("),
        ("    heap = []\n", "    key = (tuple(parts), id(ranks))\n    if key in _FIRST_HEAPS:\n        return _FIRST_HEAPS[key]\n"
                        "    heap = []\n"),
        ("    return heap\n", "    _FIRST_HEAPS[key] = heap\n    return heap\n")), "changed"),
}


@pytest.mark.parametrize("lab, mistake", sorted(LAB07_WALK58), ids=[name for _, name in sorted(LAB07_WALK58)])
def test_lab07_the_next_part_found_by_its_byte_offset_loses_the_hidden_points(request, lab, mistake):
    round_failure(request, LAB07_WALK58, lab, mistake)


# ---- lab 08, walk58: a list copied at each token (issue 21's walk) ---------------------------------------------------
LAB08_WALK58 = {  # a learner round's table (tests/test_grading_redteam.py finds it)
    ("08_linear_encoding", "backtrack-tokens-copied-per-token"): ("task2_backtrack_encode_solution", ((
        "                tokens.append(token)\n", "                tokens = tokens + [token]\n"),), "measured from outside"),
    ("08_linear_encoding", "last-copied-per-position"): ("task3_last_tokens_solution", ((
        "                last.append(token)\n", "                last = last + [token]\n"),), "measured from outside"),
}


@pytest.mark.parametrize("lab, mistake", sorted(LAB08_WALK58), ids=[name for _, name in sorted(LAB08_WALK58)])
def test_lab08_a_list_copied_at_each_token_loses_the_hidden_points(request, at_the_first_verdict, lab, mistake):
    with at_the_first_verdict():
        found = round_failure(request, LAB08_WALK58, lab, mistake)
    assert "tokens = tokens + [token]" in found or "last = last + [token]" in found, found




# ---- lab 05, walk59: merge_occurrences in more than O(1) an occurrence (issue 21's walk) --------------------------------
# Nothing measured task 4's cost: a walk over every node, lists grown by copies or searched before each append, all
# right and kept every point. The hidden test now ends with merges in turn measured from outside (MERGE_COST).
_BEFORE_LISTED = "            occurrences.setdefault((token[before], merged), []).append(before)\n"
_AFTER_LISTED = "            occurrences.setdefault((merged, token[after]), []).append(node)\n"
LAB05_WALK59 = {  # a learner round's table (tests/test_grading_redteam.py finds it)
    ("05_heap", "merge-walks-every-node"): ("task4_merge_occurrences_solution", ((
        "    nodes = occurrences.pop(pair, [])\n    for node in sorted(nodes) if left == right else nodes:\n",
        "    occurrences.pop(pair, None)\n    for node in range(len(token)):  # every node, left to right\n"),),
        "merging one occurrence costs O(1)"),
    ("05_heap", "merge-nodes-searched-before-each"): ("task4_merge_occurrences_solution", ((
        "        follower = next_[node]\n", "        if node in merged_nodes:\n            continue\n        follower = next_[node]\n"),),
        "merging one occurrence costs O(1)"),
    ("05_heap", "merge-occurrence-listed-once-by-a-search"): ("task4_merge_occurrences_solution", (
        (_AFTER_LISTED, "            listed = occurrences.setdefault((merged, token[after]), [])\n"
                        "            if node not in listed:\n                listed.append(node)\n"),
        (_BEFORE_LISTED, "            listed = occurrences.setdefault((token[before], merged), [])\n"
                         "            if before not in listed:\n                listed.append(before)\n")),
        "merging one occurrence costs O(1)"),
    ("05_heap", "merge-occurrences-grown-by-copies"): ("task4_merge_occurrences_solution", (
        (_BEFORE_LISTED, "            occurrences[(token[before], merged)] = occurrences.get((token[before], merged), []) + [before]\n"),
        (_AFTER_LISTED, "            occurrences[(merged, token[after])] = occurrences.get((merged, token[after]), []) + [node]\n")),
        "merging one occurrence costs O(1)"),
    ("05_heap", "merge-nodes-grown-by-copies"): ("task4_merge_occurrences_solution", ((
        "        merged_nodes.append(node)\n", "        merged_nodes = merged_nodes + [node]\n"),),
        "merging one occurrence costs O(1)"),
}


@pytest.mark.parametrize("lab, mistake", sorted(LAB05_WALK59), ids=[name for _, name in sorted(LAB05_WALK59)])
def test_lab05_a_merge_of_more_than_constant_cost_an_occurrence_loses_the_hidden_points(request, at_the_first_verdict, lab,
                                                                                         mistake):
    with at_the_first_verdict():
        found = round_failure(request, LAB05_WALK59, lab, mistake)
    assert "measured from outside" in found or "CPU time" in found, found


# ---- lab 07, walk59: lists copied or searched at C's speed, on inputs that hid it (issue 21's walk) ---------------------
# first_heap was timed on 12,000 parts, where a heap grown by copies took 0.11 s; merge_all on a run of b"a", where every
# None sits right after the one token left. Both kept every point; the hidden tests now time 48,000 parts or more, and a
# long text of letters and digits (MIXED_COST).
_PARTS_KEPT = "    return [part for part in parts if part is not None]\n"
LAB07_WALK59 = {  # a learner round's table (tests/test_grading_redteam.py finds it)
    ("07_heap_encoding", "first-heap-grown-by-copies"): ("task1_first_heap_solution", ((
        "            heap.append((rank, position))\n", "            heap = heap + [(rank, position)]\n"),),
        "measured from outside"),
    ("07_heap_encoding", "merge-all-nones-removed-one-by-one"): ("task2_merge_all_solution", ((
        _PARTS_KEPT, "    while None in parts:\n        parts.remove(None)\n    return parts\n"),), "gather"),
    ("07_heap_encoding", "merge-all-parts-gathered-by-copies"): ("task2_merge_all_solution", ((
        _PARTS_KEPT, "    result = []\n    for part in parts:\n        if part is not None:\n"
                     "            result = result + [part]\n    return result\n"),), "gather"),
}


@pytest.mark.parametrize("lab, mistake", sorted(LAB07_WALK59), ids=[name for _, name in sorted(LAB07_WALK59)])
def test_lab07_a_list_copied_or_searched_at_c_speed_loses_the_hidden_points(request, at_the_first_verdict, lab, mistake):
    with at_the_first_verdict():
        found = round_failure(request, LAB07_WALK59, lab, mistake)
    assert "CPU time" in found, found


# ---- lab 10, walk59: a new dict at every key (issue 21's walk) ----------------------------------------------------------
LAB10_WALK59 = {  # a learner round's table (tests/test_grading_redteam.py finds it)
    ("10_distributed", "merge-two-a-new-dict-per-key"): ("task2_merge_two_solution", ((
        "        total[pretoken] = total.get(pretoken, 0) + count\n",
        "        total = {**total, pretoken: total.get(pretoken, 0) + count}\n"),), "build the new dict once"),
}


@pytest.mark.parametrize("lab, mistake", sorted(LAB10_WALK59), ids=[name for _, name in sorted(LAB10_WALK59)])
def test_lab10_a_new_dict_at_every_key_loses_the_hidden_point(request, at_the_first_verdict, lab, mistake):
    with at_the_first_verdict():
        found = round_failure(request, LAB10_WALK59, lab, mistake)
    assert "measured from outside" in found, found


# ---- lab 01, walk59: quadratic in one word's length (issue 21's walk) ---------------------------------------------------
# The measured words held 2 to 6 tokens, and merge_word's long word crossed to the worker at a cost that hid a list read
# by pop(0): each pair of a word counted with list.count, and the word popped from the front, kept every point. The
# measured inputs now hold one long word, and merge_word's start at 16,000 tokens.
LAB01_WALK59 = {  # a learner round's table (tests/test_grading_redteam.py finds it)
    ("01_naive_bpe", "count-each-distinct-pair-by-list-count"): ("task1_count_pairs_solution", ((
        "        for pair in zip(word, word[1:]):\n            counts[pair] += frequency\n",
        "        pairs = list(zip(word, word[1:]))\n        for pair in set(pairs):\n"
        "            counts[pair] += frequency * pairs.count(pair)\n"),), "measured from outside"),
    ("01_naive_bpe", "merge-popped-from-the-front"): ("task3_merge_word_solution", ((
        "    merged = []\n    i = 0\n    while i < len(word):\n"
        "        if i + 1 < len(word) and word[i] == pair[0] and word[i + 1] == pair[1]:\n"
        "            merged.append(word[i] + word[i + 1])\n            i += 2\n"
        "        else:\n            merged.append(word[i])\n            i += 1\n",
        "    rest = list(word)\n    merged = []\n    while rest:\n"
        "        if len(rest) > 1 and rest[0] == pair[0] and rest[1] == pair[1]:\n"
        "            merged.append(rest.pop(0) + rest.pop(0))\n"
        "        else:\n            merged.append(rest.pop(0))\n"),), "measured from outside"),
}


@pytest.mark.parametrize("lab, mistake", sorted(LAB01_WALK59), ids=[name for _, name in sorted(LAB01_WALK59)])
def test_lab01_quadratic_in_one_word_s_length_loses_the_hidden_points(request, at_the_first_verdict, lab, mistake):
    with at_the_first_verdict():
        round_failure(request, LAB01_WALK59, lab, mistake)

# ---- lab 04, walk60: a pair's set copied at each word filed under it (issue 21's walk) ------------------------------------
# Random words share few pairs, so the copies cost nothing on the growth check's words: both kept every point. Task 1's
# hidden test now also files 20,000 words or more that all hold one pair (INDEX_SHARED_PAIR_COST).
LAB04_WALK60 = {  # a learner round's table (tests/test_grading_redteam.py finds it)
    ("04_inverted_index", "index-set-copied-by-union"): ("task1_index_words_solution", (
        ("            index[pair].add(i)\n", "            index[pair] = index[pair] | {i}\n"),), "holding one pair"),
    ("04_inverted_index", "index-set-copied-by-unpacking"): ("task1_index_words_solution", (
        ("            index[pair].add(i)\n", "            index[pair] = {*index.get(pair, ()), i}\n"),), "holding one pair"),
}


@pytest.mark.parametrize("lab, mistake", sorted(LAB04_WALK60), ids=[name for _, name in sorted(LAB04_WALK60)])
def test_lab04_a_pair_s_set_copied_per_word_loses_the_hidden_points(request, at_the_first_verdict, lab, mistake):
    with at_the_first_verdict():
        round_failure(request, LAB04_WALK60, lab, mistake)

# ---- lab 06, walk60: one piece's tokens gathered by sum(lists, []) (issue 21's walk) --------------------------------------
# Quadratic in one piece, and the measured texts' pieces held 1 to 15 words: it kept every point. A half to two thirds
# of the measured text's words now run without a special token (measured_text_input).
LAB06_WALK60 = {  # a learner round's table (tests/test_grading_redteam.py finds it)
    ("06_encode_decode", "piece-tokens-gathered-by-sum"): ("task3_encode_text_solution", ((
        "        for pretoken in regex.findall(GPT2_PATTERN, piece):\n"
        "            tokens += encode_pretoken(pretoken.encode(\"utf-8\"), ranks)\n",
        "        tokens += sum((encode_pretoken(pretoken.encode(\"utf-8\"), ranks)\n"
        "                       for pretoken in regex.findall(GPT2_PATTERN, piece)), [])\n"),), "sum(lists, [])"),
}


@pytest.mark.parametrize("lab, mistake", sorted(LAB06_WALK60), ids=[name for _, name in sorted(LAB06_WALK60)])
def test_lab06_a_piece_s_tokens_gathered_by_sum_lose_the_hidden_points(request, at_the_first_verdict, lab, mistake):
    with at_the_first_verdict():
        round_failure(request, LAB06_WALK60, lab, mistake)

# ---- lab 00, walk60: each piece's pretokens counted by list.count (issue 21's walk) ----------------------------------------
# Quadratic in one piece, and the measured texts' pieces held 8 words: it kept every point. A third of the measured
# text's pieces now run together as one (COUNT_LONG_PIECE).
LAB00_WALK60 = {  # a learner round's table (tests/test_grading_redteam.py finds it)
    ("00_pretokenization", "count-by-list-count-per-piece"): ("task4_count_pretokens_solution", ((
        "    for pretoken in pretokenize(text, special_tokens):\n"
        "        key = pretoken.encode(\"utf-8\")\n        counts[key] = counts.get(key, 0) + 1\n",
        "    for piece in split_on_special_tokens(text, special_tokens):\n"
        "        pretokens = regex.findall(GPT2_PATTERN, piece)\n"
        "        for pretoken in set(pretokens):\n"
        "            key = pretoken.encode(\"utf-8\")\n"
        "            counts[key] = counts.get(key, 0) + pretokens.count(pretoken)\n"),), "whole piece's"),
}


@pytest.mark.parametrize("lab, mistake", sorted(LAB00_WALK60), ids=[name for _, name in sorted(LAB00_WALK60)])
def test_lab00_a_piece_s_pretokens_counted_by_list_count_lose_the_hidden_points(request, at_the_first_verdict, lab,
                                                                                 mistake):
    with at_the_first_verdict():
        round_failure(request, LAB00_WALK60, lab, mistake)

# ---- lab 01, walk60: a word spliced in place at each merge (issue 21's walk) -------------------------------------------
# tokens[i:i + 2] = [merged] shifts the rest of the list at each merge, as list.pop(0) does at each token: once taken for
# an honest way (walk50b, its answers are right), it kept every point at some gradings and lost them at others (0.93 s
# on 183,896 tokens in the worker against a bound of 0.93 s). The measured word now merges at some 40% of its tokens.
LAB01_WALK60 = {  # a learner round's table (tests/test_grading_redteam.py finds it)
    ("01_naive_bpe", "merge-spliced-in-place"): ("task3_merge_word_solution", ((
        "    merged = []\n    i = 0\n    while i < len(word):\n"
        "        if i + 1 < len(word) and word[i] == pair[0] and word[i + 1] == pair[1]:\n"
        "            merged.append(word[i] + word[i + 1])\n            i += 2\n        else:\n"
        "            merged.append(word[i])\n            i += 1\n    return tuple(merged)\n",
        "    tokens = list(word)\n    i = 0\n    while i < len(tokens) - 1:\n"
        "        if (tokens[i], tokens[i + 1]) == pair:\n            tokens[i:i + 2] = [tokens[i] + tokens[i + 1]]\n"
        "        i += 1\n    return tuple(tokens)\n"),), "measured from outside"),
}


@pytest.mark.parametrize("lab, mistake", sorted(LAB01_WALK60), ids=[name for _, name in sorted(LAB01_WALK60)])
def test_lab01_a_word_spliced_in_place_at_each_merge_loses_the_hidden_points(request, at_the_first_verdict, lab, mistake):
    with at_the_first_verdict():
        round_failure(request, LAB01_WALK60, lab, mistake)

# ---- lab 03, walk60: the pool's start method set for the whole process (issue 21's walk) ----------------------------------
# multiprocessing.set_start_method(start_method, force=True) gives the pool the asked method, and every later pool of the
# caller's too: it kept every point (the methods were asked in the order spawn, forkserver, fork, then None, and fork was
# the default). Task 4's hidden test now asks the default first and None last, and starts a process of the default context
# after each call by another method (default_start_method_probe): in a worker, since the call changes the process's state.
LAB03_START_METHOD_SET = {
    "set-start-method-forced": "    multiprocessing.set_start_method(start_method, force=True)\n",
    "set-start-method-when-named": "    if start_method:\n        multiprocessing.set_start_method(start_method, force=True)\n",
}


@pytest.mark.parametrize("mistake", sorted(LAB03_START_METHOD_SET))
def test_lab03_a_start_method_set_for_the_whole_process_loses_the_hidden_points(mistake):
    def worker_processes(graders, function):
        graders.verify_worker_processes(function)

    pool = ("    context = multiprocessing.get_context(start_method)\n"
            "    with ProcessPoolExecutor(max_workers=num_workers, mp_context=context) as pool:\n")
    solution = source_of("03_parallel", "task4_count_pretokens_in_file_solution")
    assert pool in solution
    from test_grading_redteam import _lab_03_tasks_1_to_3

    code = _lab_03_tasks_1_to_3() + "\n" + solution.replace(
        pool, LAB03_START_METHOD_SET[mistake] + "    with ProcessPoolExecutor(max_workers=num_workers) as pool:\n")
    message = remote("03_parallel", code, "count_pretokens_in_file", worker_processes)
    assert message is not None and "set_start_method" in message and "changed the default" in message, message
    honest = code.replace(LAB03_START_METHOD_SET[mistake] + "    with ProcessPoolExecutor(max_workers=num_workers) as pool:\n", pool)
    assert remote("03_parallel", honest, "count_pretokens_in_file", worker_processes) is None

# ---- lab 01, walk61: a trainer that goes on once no pair is left (issue 21's walk) ---------------------------------------
# Same merges, and every word's pairs counted again for each merge still asked for: it kept every point. Task 4's hidden
# test now asks 10**7 merges of a few words, within a second of CPU (verify_stops_when_no_pair_is_left).
LAB01_WALK61 = {  # a learner round's table (tests/test_grading_redteam.py finds it)
    ("01_naive_bpe", "train-goes-on-when-no-pair-is-left"): ("task4_train_solution", (
        ("        if not pair_counts:\n            break\n", "        if not pair_counts:\n            continue\n"),),
        "nothing to learn: stop"),
}


@pytest.mark.parametrize("lab, mistake", sorted(LAB01_WALK61), ids=[name for _, name in sorted(LAB01_WALK61)])
def test_lab01_a_trainer_that_goes_on_once_no_pair_is_left_loses_the_hidden_points(request, lab, mistake):
    round_failure(request, LAB01_WALK61, lab, mistake)

# ---- lab 08, walk59: what a call keeps, keyed by the set of merges (issue 21's walk) ------------------------------------
# The same merges in another order give other tokens; a cache keyed by frozenset(ranks) answered the second order as the
# first and kept every point (lab 07's heap_encode had the check, lab 08 did not). The hidden cases now hold abc under
# two orders of the same three merges, one call after the other.
_VALID_BUILT = ("    valid = {bytes([byte]) for byte in pretoken}\n"
                "    valid |= {left + right for left, right in ranks if encode_pretoken(left + right, ranks) == [left + right]}\n")
LAB08_WALK59 = {  # a learner round's table (tests/test_grading_redteam.py finds it)
    ("08_linear_encoding", "backtrack-valid-kept-by-the-merges-set"): ("task2_backtrack_encode_solution", (
        (_VALID_BUILT, "    key = frozenset(ranks)  # the same merges, the same valid tokens\n"
                       "    if key not in VALID_BY_MERGES:\n"
                       "        VALID_BY_MERGES[key] = {bytes([b]) for b in range(256)} | {left + right for left, right in "
                       "ranks if encode_pretoken(left + right, ranks) == [left + right]}\n"
                       "    valid = VALID_BY_MERGES[key]\n"),
        ("def backtrack_encode(", "VALID_BY_MERGES = {}\n\n\ndef backtrack_encode(")), "the same merges in another order"),
    ("08_linear_encoding", "compatible-kept-by-the-pair-and-merges-set"): ("task1_compatible_solution", (
        ("    return encode_pretoken(left + right, ranks) == [left, right]\n",
         "    key = (left, right, frozenset(ranks))\n    if key not in SEEN:\n"
         "        SEEN[key] = encode_pretoken(left + right, ranks) == [left, right]\n    return SEEN[key]\n"),
        ("def compatible(", "SEEN = {}\n\n\ndef compatible(")), "the same merges in another order"),
    ("08_linear_encoding", "last-kept-by-pretoken-and-merges-set"): ("task3_last_tokens_solution", (
        ("    valid = {bytes([byte]) for byte in pretoken}\n",
         "    key = (pretoken, frozenset(ranks))\n    if key in KEPT:\n        return list(KEPT[key])\n"
         "    valid = {bytes([byte]) for byte in pretoken}\n"),
        ("    return last\n", "    KEPT[key] = list(last)\n    return last\n"),
        ("def last_tokens(", "KEPT = {}\n\n\ndef last_tokens(")), "the same merges in another order"),
}


@pytest.mark.parametrize("lab, mistake", sorted(LAB08_WALK59), ids=[name for _, name in sorted(LAB08_WALK59)])
def test_lab08_what_a_call_keeps_keyed_by_the_set_of_merges_loses_the_hidden_points(request, lab, mistake):
    round_failure(request, LAB08_WALK59, lab, mistake)


# walk60's red team: the same caches, keyed by the set of merges only above 4 merges (the fixed ORDER cases hold 3) kept
# every point. The generated inputs of each task's second declaration (one ranks dict changed in place) now hold one
# set of 3 to 11 merges in two orders (same_merges_reordered).
_ABOVE_FOUR = "(frozenset(ranks) if len(ranks) > 4 else tuple(ranks.items()))"
LAB08_WALK60 = {  # a learner round's table (tests/test_grading_redteam.py finds it)
    (lab, f"{name}-above-four-merges"): (cell, tuple((old, new.replace("frozenset(ranks)", _ABOVE_FOUR)) for old, new in changes),
                                         message)
    for (lab, name), (cell, changes, message) in LAB08_WALK59.items()
}


@pytest.mark.parametrize("lab, mistake", sorted(LAB08_WALK60), ids=[name for _, name in sorted(LAB08_WALK60)])
def test_lab08_what_a_call_keeps_keyed_by_the_set_of_merges_of_more_than_four_loses_the_hidden_points(request, lab, mistake):
    round_failure(request, LAB08_WALK60, lab, mistake)

# ---- lab 06, walk58: a lone surrogate encoded another way (issue 21's walk) ---------------------------------------------
# The generated texts must encode, so they hold no surrogate: an encode_text that encodes with errors="replace" (a "?"
# for the surrogate), "ignore" or "surrogatepass" kept every point. Task 3's hidden test now gives it a text with one.
_TEXT_ENCODED = '            tokens += encode_pretoken(pretoken.encode("utf-8"), ranks)\n'
LAB06_WALK58 = {  # a learner round's table (tests/test_grading_redteam.py finds it)
    ("06_encode_decode", f"text-surrogate-{errors}"): (
        "task3_encode_text_solution", ((_TEXT_ENCODED, _TEXT_ENCODED.replace('"utf-8"', f'"utf-8", errors="{errors}"')),),
        "expected a ValueError (the text holds a lone surrogate", "verify_lone_surrogate_refused")
    for errors in ("replace", "ignore", "surrogatepass")
}


@pytest.mark.parametrize("lab, mistake", sorted(LAB06_WALK58), ids=[name for _, name in sorted(LAB06_WALK58)])
def test_lab06_a_lone_surrogate_encoded_another_way_loses_the_hidden_points(request, lab, mistake):
    found = round_failure(request, LAB06_WALK58, lab, mistake)
    assert "errors='replace', 'ignore', 'surrogatepass' or 'surrogateescape'" in found, found


def test_lab06_a_lone_surrogate_replaced_fails_task_3_s_hidden_test_in_the_worker_and_the_solution_passes_it():
    setup = "\n".join(source_of("06_encode_decode", cell) for cell in ("setup", "task2_encode_pretoken_solution"))
    honest = source_of("06_encode_decode", "task3_encode_text_solution")
    assert _TEXT_ENCODED in honest
    replaced = honest.replace(_TEXT_ENCODED, _TEXT_ENCODED.replace('"utf-8"', '"utf-8", errors="replace"'))
    message = remote("06_encode_decode", setup + "\n" + replaced, "encode_text", "verify_lone_surrogate_refused")
    assert message is not None and "expected a ValueError" in message, message
    assert remote("06_encode_decode", setup + "\n" + honest, "encode_text", "verify_lone_surrogate_refused") is None


# ---- lab 09, walk61: the slope by raw sums (issue 21's walk) -------------------------------------------------------------
# (n Sxy - Sx Sy) / (n Sxx - Sx**2) is the statement's formula in exact arithmetic; in floats, for sizes close together, it
# cancels (10**6, +10, +20, +30 at k = 2: 2.000341, and a division by zero at 10**9), and it kept every point. Two hidden
# cases and a kind of drawn input (sizes 40 to 150 apart, times exactly on a power law) now catch it, with a hint that names
# the cancellation. (Still allowed: the sign change by d[i] * d[i + 1] < 0, as the reference tests it; it differs only
# where the product underflows, at differences below 1e-154 s.)
_SLOPE_TWO_PASS = ("    mean_x, mean_y = sum(xs) / len(xs), sum(ys) / len(ys)\n"
                   "    sxx = sum((x - mean_x) ** 2 for x in xs)\n"
                   "    return sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys)) / sxx\n")
LAB09_WALK61 = {  # a learner round's table (tests/test_grading_redteam.py finds it)
    ("09_benchmarks", "exponent-by-raw-sums"): ("task4_fit_exponent_solution", (
        (_SLOPE_TWO_PASS, "    n = len(xs)\n    sx, sy = sum(xs), sum(ys)\n"
                          "    sxy, sxx = sum(x * y for x, y in zip(xs, ys)), sum(x * x for x in xs)\n"
                          "    return (n * sxy - sx * sy) / (n * sxx - sx * sx)\n"),), "Subtract the means first"),
}


@pytest.mark.parametrize("lab, mistake", sorted(LAB09_WALK61), ids=[name for _, name in sorted(LAB09_WALK61)])
def test_lab09_a_fit_by_raw_sums_loses_the_hidden_points(request, lab, mistake):
    round_failure(request, LAB09_WALK61, lab, mistake)


# ---- lab 10, walk61: a round built by popping the front of a list (issue 21's walk) -------------------------------------
# level.pop(0), twice per merge, gives the right tree and moves the rest of the list at each pop: quadratic in the parts
# (1.2 s for 100,000 parts, the reference 0.01 s). The trees graded hold at most 70 parts, and it kept every point. The
# hidden test now ends by timing one reduce of 100,000 parts or more from outside the learner's code (TREE_COST).
LAB10_WALK61 = {  # a learner round's table (tests/test_grading_redteam.py finds it)
    ("10_distributed", "tree-round-by-popping-the-front"): ("task3_tree_reduce_solution", ((
        "        paired = [combine(level[i], level[i + 1]) for i in range(0, len(level) - 1, 2)]\n"
        "        if len(level) % 2:\n            paired.append(level[-1])\n",
        "        paired = []\n        while len(level) > 1:  # neighbours off the front, in order\n"
        "            left = level.pop(0)\n            paired.append(combine(left, level.pop(0)))\n"
        "        paired.extend(level)  # the odd one out, carried\n"),), "level.pop(0)", tree_shape_hidden),
}


@pytest.mark.parametrize("lab, mistake", sorted(LAB10_WALK61), ids=[name for _, name in sorted(LAB10_WALK61)])
def test_lab10_a_round_built_by_popping_the_front_loses_the_hidden_points(request, at_the_first_verdict, lab, mistake):
    with at_the_first_verdict():
        found = round_failure(request, LAB10_WALK61, lab, mistake)
    assert "measured from outside" in found, found


# ---- lab 05, walk61: the occurrences taken off the front of their list (issue 21's walk) ---------------------------------
# while nodes: node = nodes.pop(0) gives the right lists and moves the rest of the list at each pop: quadratic in a pair's
# occurrences. On the measured run of 60,000 pairs it cost 0.59 s, under the bound, and kept every point; the run is now
# 200,000 pairs (MERGE_RUN): 3.4 s against a bound of some 1.5 s.
LAB05_WALK61 = {  # a learner round's table (tests/test_grading_redteam.py finds it)
    ("05_heap", "occurrences-popped-from-the-front"): ("task4_merge_occurrences_solution", ((
        "    for node in sorted(nodes) if left == right else nodes:\n",
        "    nodes = sorted(nodes) if left == right else list(nodes)\n    while nodes:\n        node = nodes.pop(0)\n"),),
        "nodes.pop(0)"),
    # the same pop(0) on an (A, A) pair's sorted nodes alone: the measured merges held no (A, A) run until session 43
    ("05_heap", "a-a-nodes-popped-from-the-front"): ("task4_merge_occurrences_solution", ((
        "    for node in sorted(nodes) if left == right else nodes:\n",
        "    queue = sorted(nodes) if left == right else nodes[::-1]\n    while queue:\n"
        "        node = queue.pop(0) if left == right else queue.pop()\n"),),
        "nodes.pop(0)"),
}


@pytest.mark.parametrize("lab, mistake", sorted(LAB05_WALK61), ids=[name for _, name in sorted(LAB05_WALK61)])
def test_lab05_occurrences_popped_from_the_front_lose_the_hidden_points(request, at_the_first_verdict, lab, mistake):
    with at_the_first_verdict():
        found = round_failure(request, LAB05_WALK61, lab, mistake)
    assert "measured from outside" in found, found


# ---- lab 02, walk63: work per word in the size of something else (issue 21's walk) ----------------------------------------
# pair_count_changes by list.count (a pass over the word per distinct pair, O(L x P)) gives the right changes, and the graded
# words are short: it kept every point; the hidden test of task 1 now ends by timing one long word (LONG_WORD_COST). A
# train that rebuilds pair_counts without its zeros after each word it updates (a pass over all the pairs per word) kept
# every point: the measured merge that changes every word had at most 196 distinct pairs; its words are now of 94
# characters, some 5,000 distinct pairs and more as the words grow (EVERY_WORD_CHANGES).
LAB02_WALK63 = {  # a learner round's table (tests/test_grading_redteam.py finds it)
    ("02_incremental", "changes-counted-by-list-count"): ("task1_pair_count_changes_solution", ((
        "    changes: dict[Pair, int] = defaultdict(int)\n    for old in zip(word, word[1:]):\n"
        "        changes[old] -= frequency\n    for new in zip(merged, merged[1:]):\n        changes[new] += frequency\n",
        "    old_pairs = list(zip(word, word[1:]))\n    new_pairs = list(zip(merged, merged[1:]))\n"
        "    changes = {p: frequency * (new_pairs.count(p) - old_pairs.count(p)) for p in set(old_pairs) | set(new_pairs)}\n"),),
        "list.count"),
    ("02_incremental", "train-zeros-purged-after-each-word"): ("task3_train_solution", ((
        "                words[i] = merge_and_update(word, pair, frequencies[i], pair_counts)\n",
        "                words[i] = merge_and_update(word, pair, frequencies[i], pair_counts)\n"
        "                pair_counts = {p: c for p, c in pair_counts.items() if c > 0}\n"),),
        "measured from outside"),
}


@pytest.mark.parametrize("lab, mistake", sorted(LAB02_WALK63), ids=[name for _, name in sorted(LAB02_WALK63)])
def test_lab02_work_per_word_in_the_size_of_something_else_loses_the_hidden_points(request, at_the_first_verdict, lab,
                                                                                  mistake):
    with at_the_first_verdict():
        found = round_failure(request, LAB02_WALK63, lab, mistake)
    assert "measured from outside" in found, found


# walk63's hints: a train that stops at a count of 1 was told num_merges is no vocabulary size (its merges numbered
# num_merges - 256 on the visible case), and one that skips a word (deleted from the list its loop walks) was told its
# counts were right and only the tie-break differed (the true counts tie there).
LAB02_WALK63_HINTS = {  # a learner round's table (tests/test_grading_redteam.py finds it)
    ("02_incremental", "train-stops-at-a-count-of-one"): ("task3_train_solution", ((
        "        pair = best_pair(pair_counts)\n",
        "        pair = best_pair(pair_counts)\n        if pair_counts[pair] < 2:\n            break\n"),),
        "occurs once, and it is merged all the same"),
    ("02_incremental", "train-deletes-words-of-one-token"): ("task3_train_solution", ((
        "                words[i] = merge_and_update(word, pair, frequencies[i], pair_counts)\n",
        "                words[i] = merge_and_update(word, pair, frequencies[i], pair_counts)\n"
        "                if len(words[i]) == 1:  # no pair left in it\n"
        "                    del words[i], frequencies[i]\n"),),
        ("fell short: a word that holds it was left as it was", "makes the loop skip the next one")),
}


@pytest.mark.parametrize("lab, mistake", sorted(LAB02_WALK63_HINTS), ids=[name for _, name in sorted(LAB02_WALK63_HINTS)])
def test_lab02_a_train_stopped_early_or_skipping_a_word_gets_a_hint_that_fits(request, lab, mistake):
    round_failure(request, LAB02_WALK63_HINTS, lab, mistake)


# ---- lab 00, walk62: a lone surrogate encoded silently (issue 21's walk) ------------------------------------------------
# utf8_bytes and count_pretokens with errors="replace", "ignore" or "surrogatepass" give the bytes of another text where the
# course's conventions ask for a ValueError; the generated texts hold no surrogate, and all three kept every point. The
# hidden tests of tasks 1 and 4 now give a drawn text with one lone surrogate (verify_lone_surrogate_refused).
LAB00_WALK62 = {  # a learner round's table (tests/test_grading_redteam.py finds it)
    ("00_pretokenization", "utf8-bytes-surrogates-replaced"): ("task1_utf8_bytes_solution", (
        ('    return list(text.encode("utf-8"))\n', '    return list(text.encode("utf-8", errors="replace"))\n'),),
        "expected a ValueError"),
    ("00_pretokenization", "utf8-bytes-surrogates-passed"): ("task1_utf8_bytes_solution", (
        ('    return list(text.encode("utf-8"))\n', '    return list(text.encode("utf-8", "surrogatepass"))\n'),),
        "expected a ValueError"),
    # walk62's red team: surrogateescape refuses U+DC80-U+DCFF only; one drawn surrogate let it through half the time
    ("00_pretokenization", "utf8-bytes-surrogates-escaped"): ("task1_utf8_bytes_solution", (
        ('    return list(text.encode("utf-8"))\n', '    return list(text.encode("utf-8", "surrogateescape"))\n'),),
        "expected a ValueError"),
    ("00_pretokenization", "count-surrogates-ignored"): ("task4_count_pretokens_solution", (
        ('        key = pretoken.encode("utf-8")\n', '        key = pretoken.encode("utf-8", errors="ignore")\n'),),
        "expected a ValueError"),
}


@pytest.mark.parametrize("lab, mistake", sorted(LAB00_WALK62), ids=[name for _, name in sorted(LAB00_WALK62)])
def test_lab00_a_lone_surrogate_encoded_silently_loses_the_hidden_points(request, lab, mistake):
    round_failure(request, LAB00_WALK62, lab, mistake)


# ---- lab 03, walk62: a total rebuilt for each chunk (issue 21's walk) -----------------------------------------------------
# sum(map(Counter, counts), Counter()) gives the right counts and copies the whole total at each chunk: quadratic in the
# chunks (400 chunks of 1,000 pretokens: 19 s, the reference 0.1 s). The graded lists hold a few chunks, and it kept every
# point. The hidden test now ends by timing one reduce of 200 chunks or more from outside the learner's code
# (MERGE_COUNTS_COST); a Counter added in place (+=) stays within its bound.
_TOTAL_BY_UPDATE = ("    total: Counter[bytes] = Counter()\n    for chunk_counts in counts:\n        total.update(chunk_counts)\n"
                    "    return dict(total)\n")
LAB03_WALK62 = {  # a learner round's table (tests/test_grading_redteam.py finds it)
    ("03_parallel", "merge-total-rebuilt-per-chunk"): ("task3_merge_counts_solution", (
        (_TOTAL_BY_UPDATE, "    return dict(sum((Counter(chunk_counts) for chunk_counts in counts), Counter()))\n"),),
        "a new total for each chunk"),
}


@pytest.mark.parametrize("lab, mistake", sorted(LAB03_WALK62), ids=[name for _, name in sorted(LAB03_WALK62)])
def test_lab03_a_total_rebuilt_for_each_chunk_loses_the_hidden_point(request, at_the_first_verdict, lab, mistake):
    with at_the_first_verdict():
        found = round_failure(request, LAB03_WALK62, lab, mistake)
    assert "measured from outside" in found, found


SURROGATE_ERROR_OF_ITS_OWN = """
class SurrogateError(ValueError):
    pass  # a lone surrogate: no UTF-8 bytes


def utf8_bytes(text):
    if any(0xD800 <= ord(char) <= 0xDFFF for char in text):
        raise SurrogateError("a lone surrogate")
    return list(text.encode("utf-8"))
"""


def test_lab00_a_valueerror_of_the_learners_own_for_a_lone_surrogate_keeps_the_points():
    """Walk62's red team: the statement asks for a ValueError; a subclass of the learner's own lost 2 points, as the check
    read the error's name only. The worker now says whether an error is a ValueError (worker/__main__.py, _error)."""
    assert remote("00_pretokenization", SURROGATE_ERROR_OF_ITS_OWN, "utf8_bytes", "check_utf8_bytes_properties") is None
