""""The idea in five minutes": the short, runnable toy that opens each of pages 00 to 05.

Each toy is at most 30 lines of plain Python (strings, not the labs' bytes and tuples; no tie-break
rule; names and signatures that are not the lab's), so it shows a step's core idea without handing out
a lab's solution. The page quotes the code *and* what it prints, generated here by running it;
``tests/test_five_minutes.py`` checks each toy against ``bpe_ref``, so a toy never teaches something false.
"""

from __future__ import annotations

import contextlib
import io
import textwrap

MAX_LINES = 30

IDEAS: dict[str, str] = {
    "00": '''
        import re
        from collections import Counter

        SPECIAL = "<|endoftext|>"
        text = "The café is open.<|endoftext|>The cat  sat 2 days!"
        # A cut-down GPT-2 pattern (the page's section 4 has the real one, for the regex package):
        # letters, digits or other symbols with their leading space; whitespace not before a word.
        PATTERN = re.compile(r" ?[^\\W\\d_]+| ?\\d+| ?[^\\s\\w]+|\\s+(?!\\S)|\\s+")

        counts = Counter()
        for piece in text.split(SPECIAL):            # 1. cut the special tokens out first
            pretokens = PATTERN.findall(piece)       # 2. cut each piece into pretokens
            print(f"{piece!r:28} -> {pretokens}")
            counts.update(p.encode("utf-8") for p in pretokens)  # 3. count them, as UTF-8 bytes

        for pretoken, n in counts.items():
            print(n, pretoken, list(pretoken))       # what training sees: byte values and a count
    ''',
    "01": '''
        import re
        from collections import Counter

        # The text itself, each word written out as often as it occurs, each symbol in brackets
        # (the lab keeps each distinct word once, as a tuple of bytes, with its count).
        text = "hug " * 10 + "pug " * 5 + "pun " * 12 + "bun " * 4 + "hugs " * 5
        words = ["".join(f"[{c}]" for c in word) for word in text.split()]   # "[h][u][g]", ...
        WINDOW = re.compile(r"(?=(\\[\\w+\\]\\[\\w+\\]))")  # two neighbouring symbols; windows may overlap
        merges = []

        for step in range(1, 5):
            pairs = Counter(pair for word in words for pair in WINDOW.findall(word))  # 1. count
            print(f"step {step}: counts {dict(pairs.most_common(4))} ...")
            best, n = pairs.most_common(1)[0]                # 2. the most frequent (ties: section 3)
            merged = best.replace("][", "")                  # "[u][g]" -> "[ug]"
            words = [word.replace(best, merged) for word in words]  # 3. merge, left to right
            merges.append(best)
            print(f"        merge {best} -> {merged}; the words are now {dict(Counter(words))}")
    ''',
    "02": '''
        from collections import Counter

        words = {"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5}
        splits = {w: tuple(w) for w in words}

        def weighted_pairs(symbols, n):              # the pairs one word adds to the table
            return Counter({p: c * n for p, c in Counter(zip(symbols, symbols[1:])).items()})

        counts = sum((weighted_pairs(s, words[w]) for w, s in splits.items()), Counter())  # once
        for step in range(4):
            best = max(counts, key=counts.get)
            changed = []
            for w, old in splits.items():
                if best not in zip(old, old[1:]):
                    continue                         # most words: nothing to do
                new, i = [], 0
                while i < len(old):
                    pair_here = old[i : i + 2] == best
                    new.append(old[i] + old[i + 1] if pair_here else old[i])
                    i += 2 if pair_here else 1
                counts -= weighted_pairs(old, words[w])      # take the old word's pairs out
                counts += weighted_pairs(tuple(new), words[w])  # put the new word's pairs in
                splits[w] = tuple(new)
                changed.append(w)
            print(f"merge {best}: rewrote {changed}, left {len(words) - len(changed)} words alone")
    ''',
    "03": '''
        import re
        from collections import Counter

        SPECIAL = "<|endoftext|>"
        docs = ["the cat sat", "a dog ran", "the dog sat down", "a cat ran off", "the end"]
        text = SPECIAL.join(docs)

        def cut_points(text, n):
            """n - 1 guesses at equal distances, each moved on to the next special token."""
            cuts = [0]
            for k in range(1, n):
                found = text.find(SPECIAL, max(k * len(text) // n, cuts[-1]))
                cuts.append(len(text) if found == -1 else found)
            return sorted(set(cuts + [len(text)]))

        def count_text(chunk):                       # the map: one worker process per chunk
            return Counter(w for piece in chunk.split(SPECIAL) for w in re.findall(r" ?\\w+", piece))

        cuts = cut_points(text, 3)
        chunks = [text[a:b] for a, b in zip(cuts, cuts[1:])]
        for a, b in zip(cuts, cuts[1:]):
            print(f"chunk [{a}, {b}): {text[a:b]!r}")
        partial = list(map(count_text, chunks))      # the lab: a process pool's map
        total = sum(partial, Counter())              # the reduce: add the counts up
        print("same as counting the whole text:", total == count_text(text))
    ''',
    "04": '''
        from collections import defaultdict

        words = [list("hug"), list("pug"), list("pun"), list("bun"), list("hugs")]
        index = defaultdict(set)                     # pair -> ids of the words that contain it
        for i, w in enumerate(words):
            for pair in zip(w, w[1:]):
                index[pair].add(i)

        def merge(w, pair):
            out = []
            for s in w:
                if out and (out[-1], s) == pair:  # a merged symbol never equals pair[0]
                    out[-1] += s
                else:
                    out.append(s)
            return out

        for pair in [("u", "g"), ("u", "n"), ("h", "ug")]:  # merges in the order training picks them
            visit = sorted(index.pop(pair))          # only these words can change
            for i in visit:
                words[i] = merge(words[i], pair)
                for new_pair in zip(words[i], words[i][1:]):
                    index[new_pair].add(i)           # new pairs join; old entries are not removed
            print(f"merge {pair}: visit words {visit} of {len(words)} -> {['|'.join(w) for w in words]}")

        stale = {a + "," + b: sorted(i for i in ids if (a, b) not in zip(words[i], words[i][1:]))
                 for (a, b), ids in index.items()}
        print("stale ids:", {pair: ids for pair, ids in stale.items() if ids})
    ''',
    "05": '''
        import heapq

        # Pair counts of hug x10, pug x5, pun x12, bun x4, hugs x5 (page 01's toy).
        counts = {("u", "g"): 20, ("p", "u"): 17, ("u", "n"): 16, ("h", "u"): 15, ("g", "s"): 5, ("b", "u"): 4}
        heap = [(-n, pair) for pair, n in counts.items()]  # heapq is a min-heap: negate the count
        heapq.heapify(heap)

        def set_count(pair, n):                      # a merge changed a count: push, never search
            if n == 0:
                del counts[pair]                     # gone: its old entries are stale
            else:
                counts[pair] = n
                heapq.heappush(heap, (-n, pair))

        def lazy_pop():
            while True:
                negative, pair = heapq.heappop(heap)
                if counts.get(pair) == -negative:    # the entry is still true: the best pair
                    return pair
                print(f"  skip {(-negative, pair)}: stale, the count is now {counts.get(pair, 0)}")

        best = lazy_pop()
        print("merge", best)
        del counts[best]                             # merging (u, g) in hug, pug and hugs changes:
        for pair, n in {("h", "u"): 0, ("p", "u"): 12, ("g", "s"): 0,
                        ("h", "ug"): 15, ("p", "ug"): 5, ("ug", "s"): 5}.items():
            set_count(pair, n)
        print("merge", lazy_pop(), f"({len(heap)} entries left, some stale)")
    ''',
}


def code_of(page: str) -> str:
    """The toy code of ``page`` (``"00"`` ... ``"05"``), dedented, ending in one newline."""
    return textwrap.dedent(IDEAS[page]).strip("\n") + "\n"


def run(page: str) -> tuple[dict, str]:
    """Run ``page``'s toy in a fresh namespace: ``(namespace, what it printed)``."""
    namespace: dict = {"__name__": f"five_minutes_{page}"}
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code_of(page), f"<five minutes, page {page}>", "exec"), namespace)  # noqa: S102
    return namespace, out.getvalue()


def snippet(page: str) -> str:
    """The Markdown a page quotes: the toy's code, then what it prints."""
    _, printed = run(page)
    return f"```python\n{code_of(page)}```\n\nIt prints:\n\n```text\n{printed.rstrip()}\n```\n"


def snippets(page: str) -> dict[str, str]:
    """``{"NN-five-minutes.md": Markdown}`` for a page module's ``snippets()``."""
    return {f"{page}-five-minutes.md": snippet(page)}
