"""Worst-case regex time through the public paths: adversarial texts at the content limit.

A reviewer timed the domain's regexes alone on 30,000-character texts with long runs of whitespace and
found backtracking that grows with the square of the run (or worse): seconds to minutes for one search.
This bench feeds such texts (``MAX_CONTENT_CHARS`` long, and ``MAX_COMPARED_CHARS``: the longest the
contradiction rules compare; a search query ``MAX_SEARCH_QUERY_CHARS``)
through what the service runs on them, and reports the CPU seconds of each entry point on each case:

- ``write``: ``memory_write``'s admission of a semantic fact without a key (``draft_of`` the tool's
  arguments, then ``usecases.remember.Remember.admit``: redaction, trust, the keyed-fact checks, the
  unread-time note). ``memory_write_batch`` admits each item with the same ``admit``.
- ``write+key``: the same with ``key`` set, the key holding a value ("I work at Acme"), so the checks that
  read the key's values run too.
- ``worker``: what the queue worker's store path runs on the text against an existing similar memory
  (``adapters.postgres.write_batch``): ``with_inferred_time``, ``is_additive``, ``may_leave_values``,
  ``conflict_floor``, ``compare_facts`` (both ways, against a short fact and against the text's twin with
  one word changed), ``undated_past_over_present``, ``same_statement``, ``taken_back``,
  ``same_information``. The database is not involved: only the domain rules, called as the worker calls
  them.
- ``update``: ``memory_update``'s rules on a new content (``check_past_supersede``, ``carried_entities``).
- ``search``: the query text (``query_terms``, ``detect_time_intent``, the ranker's query and content
  features against a stored adversarial memory).

    timeout 600 python bench/regex_worst.py            # every case, 32,000 and 1,000 characters, 20 s cap
    timeout 300 python bench/regex_worst.py --quick    # fewer cases, 8,000 and 1,000 characters, 5 s cap
    timeout 600 python bench/regex_worst.py --sweep    # and every module-level regex of the domain alone

Each call runs under ``signal.alarm`` (``--cap`` seconds; ``re`` checks signals while it backtracks):
a capped call prints ``>cap``. Seconds are CPU seconds of this process (``time.process_time``), so other
work on the machine does not inflate them; compare figures of one run, or before/after on one machine.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import pkgutil
import re
import signal
import sys
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from functools import partial

import hindsight.domain as domain
from hindsight.api.write_args import draft_of
from hindsight.domain.auth import Principal
from hindsight.domain.contradiction import MAX_COMPARED_CHARS, compare_facts, conflict_floor, is_additive
from hindsight.domain.inferred_order import check_past_supersede, undated_past_over_present
from hindsight.domain.limits import MAX_CONTENT_CHARS, MAX_SEARCH_QUERY_CHARS
from hindsight.domain.memory import MemoryDraft, WriteJob
from hindsight.domain.ranking_features import PoolTexts
from hindsight.domain.relative_time import with_inferred_time
from hindsight.domain.rewording import same_statement
from hindsight.domain.take_back import may_leave_values, taken_back
from hindsight.domain.text import carried_entities, query_terms, same_information
from hindsight.domain.timeparse import detect_time_intent
from hindsight.usecases.remember import Remember

NOW = datetime(2026, 12, 7, 12, 0, tzinfo=UTC)
OLD = "I work at Acme as a data engineer."
VOCAB = [
    *("I", "will", "use", "for", "my", "son", "is", "and", "but", "since", "because", ",", ";", "-", "the"),
    *("to", "at", "was", "now", "I'm", "we'll", "used", "to", "live", "in", "moved", "switched", "from"),
    *("no", "longer", "not", "My", "wife's", "Alex's", "also"),
]


GATES = (
    "I",
    "I also use Slack",
    "I use X",
    "I will",
    "I'll be",
    "My son",
    "My son's",
    "My wife is",
    "I used to",
    "I moved to",
    "I'm not",
    "I never",
    "We switched from X to",
    "Turns out",
    "Actually, I",
)
"""Words that open a text and decide which rules read it (an additive word, a use, a switch, another
person, a past, a negation …): a whitespace run after them reaches those rules."""
QUICK_GATES = ("I", "I also use Slack", "I use X", "My son")
"""``--quick``'s: one for each rule found quadratic on a run through an entry point."""
ENDINGS = ("x", "also", "for work", "because x", "- x", ", maybe", "(maybe)")
"""Words after the run: what a rule looks for after the run (a reason, a purpose, a hedge …)."""


def cases(n: int, quick: bool) -> Iterator[tuple[str, str]]:
    """(name, text) pairs of ``n`` characters (about): whitespace runs between the words that decide which
    rules read a text (``GATES``, ``ENDINGS``), repeated short words, punctuation runs, one long "word",
    and a mix."""
    yield "ws-mix", "I" + (" \t\n" * n)[: n - 2] + "x"
    yield "ws-between-words", "".join(w + " " * 97 + "\t\n " for w in VOCAB * (n // 100 + 1))[:n]
    yield "short-words", "".join(w + " " for w in VOCAB * (n // 3 + 1))[:n]
    yield "for-for", "I use X" + (" for" * n)[: n - 8]
    yield "punctuation", "." * n
    yield "comma-space", (", " * n)[:n]
    yield "long-word", "a" * n
    yield "digits", "1" * n
    yield "mixed", ("I used to be a  \n, - was not  '  " * n)[:n]
    for gate in QUICK_GATES if quick else GATES:
        yield f"{gate!r}+x x", gate + " " + ("x " * n)[: n - len(gate) - 2]
        for ending in ENDINGS[:2] if quick else ENDINGS:
            run = " " * (n - len(gate) - len(ending))
            yield f"{gate!r}_{ending!r}", gate + run + ending


class ListQueue:
    """A queue that keeps what it is given (the admission never calls it: ``admit`` only builds the job)."""

    def __init__(self) -> None:
        self.jobs: list[WriteJob] = []

    async def enqueue(self, job: WriteJob) -> None:
        self.jobs.append(job)


class FixedClock:
    """A clock at NOW."""

    def now(self) -> datetime:
        return NOW


async def _key_values(scope: object, key: str) -> list[str]:
    return [OLD]


PRINCIPAL = Principal(tenant_id="bench", key_id="k1")
REMEMBER = Remember(ListQueue(), FixedClock(), key_values=_key_values)  # type: ignore[arg-type]


def _admit(arguments: dict[str, object]) -> None:
    draft, filter = draft_of(arguments)
    try:
        asyncio.run(REMEMBER.admit(PRINCIPAL, PRINCIPAL.scope(None), draft, filter))
    except Exception as exc:  # a refusal is an answer too: what is timed is reaching it
        if type(exc).__name__ not in ("InvalidInput", "ValidationError"):
            raise


def write(text: str) -> None:
    _admit({"content": text, "layer": "semantic"})


def write_key(text: str) -> None:
    _admit({"content": text, "layer": "semantic", "key": "user.employer"})


def worker(text: str) -> None:
    draft = MemoryDraft(content=text, layer="semantic")
    with_inferred_time(draft, NOW)
    is_additive(text)
    may_leave_values(text)
    conflict_floor(text)
    twin = text.replace("I", "We", 1) if "I" in text else "x" + text[1:]
    for old in (OLD, twin):
        compare_facts(text, old)
        compare_facts(old, text)
        undated_past_over_present(draft, old)
        same_statement(text, old)
        taken_back(text, [old])
        same_information(text, old)


def update(text: str) -> None:
    draft = MemoryDraft(content=text, layer="semantic")
    try:
        check_past_supersede(OLD, draft)
    except Exception as exc:
        if type(exc).__name__ != "InvalidInput":
            raise
    carried_entities({"employer": "Acme"}, OLD, text)


def search(text: str) -> None:
    query = text[:MAX_SEARCH_QUERY_CHARS]
    query_terms(query)
    detect_time_intent(query, NOW)
    PoolTexts(query).add([text, OLD])


ENTRY_POINTS: dict[str, Callable[[str], None]] = {
    "write": write,
    "write+key": write_key,
    "worker": worker,
    "update": update,
    "search": search,
}


class Capped(Exception):
    """A call ran past its cap."""


def _alarm(signum: int, frame: object) -> None:
    raise Capped


def timed(call: Callable[[], object], cap: int) -> float:
    """CPU seconds of ``call``; inf when it ran past ``cap`` wall seconds."""
    signal.alarm(cap)
    started = time.process_time()
    try:
        call()
    except Capped:
        return float("inf")
    finally:
        signal.alarm(0)
    return time.process_time() - started


def shown(seconds: float, cap: int) -> str:
    return f">{cap}" if seconds == float("inf") else f"{seconds:.3f}"


def entry_points(n: int, quick: bool, cap: int) -> float:
    """Print the table of seconds per case and entry point; return the worst."""
    names = list(ENTRY_POINTS)
    print(f"{'case':<32}" + "".join(f"{name:>11}" for name in names))
    worst = 0.0
    for label, text in cases(n, quick):
        row = []
        for name in names:
            seconds = timed(partial(ENTRY_POINTS[name], text), cap)
            worst = max(worst, seconds)
            row.append(shown(seconds, cap))
        print(f"{label:<32}" + "".join(f"{s:>11}" for s in row), flush=True)
    return worst


def compiled_patterns() -> Iterator[tuple[str, re.Pattern[str]]]:
    """Every module-level compiled regex of ``hindsight.domain`` (once each), with its dotted name."""
    seen: set[int] = set()
    for info in pkgutil.walk_packages(domain.__path__, "hindsight.domain."):
        module = importlib.import_module(info.name)
        for name, value in vars(module).items():
            if isinstance(value, re.Pattern) and id(value) not in seen:
                seen.add(id(value))
                yield f"{info.name.removeprefix('hindsight.domain.')}.{name}", value


def _read_all(pattern: re.Pattern[str], text: str) -> int:
    """``pattern.search`` and every match of ``pattern.finditer`` over ``text``: how many it found."""
    pattern.search(text)
    return sum(1 for _ in pattern.finditer(text))


def sweep(n: int, quick: bool, cap: int, floor: float) -> None:
    """Print each module-level regex whose worst ``search`` + ``finditer`` over the cases takes at least
    ``floor`` seconds, with that case."""
    texts = list(cases(n, quick))
    print(f"\nregexes alone ({n} characters; at least {floor} s shown):")
    for name, pattern in compiled_patterns():
        worst, which = 0.0, ""
        for label, text in texts:
            seconds = timed(partial(_read_all, pattern, text), cap)
            if seconds > worst:
                worst, which = seconds, label
        if worst >= floor:
            print(f"{shown(worst, cap):>8} s  {name}  ({which})", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="fewer cases, 8,000 characters, 5 s cap")
    parser.add_argument(
        "--chars",
        type=int,
        action="append",
        help=f"a text length (repeatable; default {MAX_CONTENT_CHARS} and {MAX_COMPARED_CHARS})",
    )
    parser.add_argument("--cap", type=int, help="seconds before a call is stopped (default 20; quick 5)")
    parser.add_argument("--sweep", action="store_true", help="also time every module-level domain regex")
    parser.add_argument("--floor", type=float, default=0.05, help="--sweep: the least seconds shown")
    args = parser.parse_args()
    sizes = args.chars or [8_000 if args.quick else MAX_CONTENT_CHARS, MAX_COMPARED_CHARS]
    cap = args.cap or (5 if args.quick else 20)
    signal.signal(signal.SIGALRM, _alarm)
    for n in sizes:
        print(f"\n{n} characters a text; CPU seconds a call (cap {cap} s)")
        worst = entry_points(n, args.quick, cap)
        print(f"worst entry point at {n} characters: {shown(worst, cap)} s")
    if args.sweep:
        sweep(sizes[0], args.quick, cap, args.floor)
    sys.stdout.flush()


if __name__ == "__main__":
    main()
