"""The library's one exception family: ``CallbreakLabError`` and its leaves.

Every error the library raises for bad input is a ``CallbreakLabError``, itself a ``ValueError``
(so ``except ValueError`` keeps working). The leaves say *what kind* of input was wrong, not which
module noticed it: a bad seat is a ``SeatError`` whether the deal, the solver, the simulation or
the bid model was asked. The command line prints any ``CallbreakLabError`` as one line (exit code
2); the service answers it with a 422 naming the message.

::

    CallbreakLabError
    ├── NotationError        text or values that do not parse
    │   ├── CardError, HandError, DealError, RecordError
    ├── SeatError            a seat outside 0..3
    ├── RulesError           a bad ruleset, preset name or variation
    ├── IllegalPlayError     a card, call or result the rules do not allow
    │   └── CallError        a call (or list of calls) the ruleset does not allow
    ├── ModelError           bid model, features, call distributions, baselines
    │   └── DataError        solved-deal datasets (requested or on disk)
    ├── SolverInputError     positions, lines, bounds, simulation constraints
    ├── StandingError        a match standing: totals, deal of the match, deals left
    ├── UsageError           command-line usage, service settings, environment variables
    └── FieldError           one field of a service request (carries ``loc``)

Exceptions that are not about input are no ``ValueError`` and live with what raises them:
``solver.SearchTimeout`` (a search a time limit stopped), the service pool's ``JobTimeout``.

Whole numbers given as input are checked by :func:`check_int`, the one such check of the
library: it names the argument and the range in the error it raises.

This module imports nothing from the package, so every module can import it.
"""

from __future__ import annotations

import numbers

__all__ = [
    "CallError",
    "CallbreakLabError",
    "CardError",
    "DataError",
    "DealError",
    "FieldError",
    "HandError",
    "IllegalPlayError",
    "ModelError",
    "NotationError",
    "RecordError",
    "RulesError",
    "SeatError",
    "SolverInputError",
    "StandingError",
    "UsageError",
    "check_int",
    "check_time_limit",
]


class CallbreakLabError(ValueError):
    """Base of every error the library raises for bad input; the message says what is wrong."""


class NotationError(CallbreakLabError):
    """Text or values that do not parse as what they should be: cards, hands, deals, tricks,
    play records, numbers given as text, Bhoos bot-protocol JSON."""


class CardError(NotationError):
    """A single card could not be parsed or is out of range."""


class HandError(NotationError):
    """A hand could not be parsed (bad rank/suit, duplicate card, wrong layout or size)."""


class DealError(NotationError):
    """Four hands do not form a deal (duplicates, wrong counts, missing cards), or a bad seed."""


class RecordError(NotationError):
    """A play record that cannot be read or whose ``|`` separators miss trick boundaries."""


class SeatError(CallbreakLabError):
    """A seat (or Bhoos player index) that is not an int 0..3, raised by ``cards.check_seat``,
    the one check of a seat's value; or a hand said to be a seat's that is not the seat to play
    (``Knowledge.at_table``, ``advice.advise``), naming the seat to play."""


class RulesError(CallbreakLabError):
    """A bad ruleset: unknown preset, bad variation or switch value, unknown field, or something
    that is neither a Ruleset nor a preset name where rules are expected."""


class IllegalPlayError(CallbreakLabError):
    """A card, call or result the rules do not allow: a card not held, against the legal-card
    rule or after the deal's end; a recorded trick winner the rules contradict; trick counts
    no deal can produce; a deal scored after the match ended."""


class CallError(IllegalPlayError):
    """A call (or a list of calls) the ruleset does not allow: outside its range, not a whole
    number, or the wrong number of calls for the seats."""


class ModelError(CallbreakLabError):
    """Bad input to the bid model and its helpers: an unknown profile or learner, an unfitted or
    damaged model, training arrays of the wrong shape, bad hand masks (features), a trick
    distribution that is not one, an unknown baseline."""


class DataError(ModelError):
    """A solved-deal dataset request that cannot be met, or a dataset on disk that is missing,
    incomplete or inconsistent (callers tell "generate it first" apart by this type)."""


class SolverInputError(CallbreakLabError):
    """Input the solver, the annotated lines or the simulation cannot take: hands and trick that
    do not form a position, bad value bounds, a step index out of range, card or void
    constraints that no layout satisfies, a sample size out of range."""


class StandingError(CallbreakLabError):
    """A match standing that is not one: totals that are not four whole numbers of tenths, a
    deal of the match or a count of deals left outside the match's length, totals before the
    first deal that are not all zero."""


class UsageError(CallbreakLabError):
    """Bad command-line usage (raised instead of argparse's print-and-exit), or a bad setting:
    a service ``Settings`` value, an environment variable, a widget option."""


class FieldError(CallbreakLabError):
    """Bad input in one field of a service request: the service answers a 422 whose ``loc``
    names the field (the message is the library's own)."""

    def __init__(self, field: str | tuple[str | int, ...], message: str) -> None:
        super().__init__(message)
        self.loc: tuple[str | int, ...] = (field,) if isinstance(field, str) else tuple(field)


def check_int(
    value: object,
    name: str,
    *,
    low: int | None = None,
    high: int | None = None,
    error: type[CallbreakLabError] = UsageError,
) -> int:
    """``value`` as an ``int`` when it is a whole number (an int or a numpy integer, not a bool)
    within ``low..high`` (either end open when None); else ``error`` with a message that names
    ``name``, the range and the value (``layouts must be a whole number >= 1, got 0``)."""
    n: int | None = None
    if type(value) is int:
        n = value
    elif isinstance(value, numbers.Integral) and not isinstance(value, bool):
        n = int(value)  # a numpy integer, say
    if n is None or (low is not None and n < low) or (high is not None and n > high):
        if low is not None and high is not None:
            where = f" {low}..{high}"
        elif low is not None:
            where = f" >= {low}"
        elif high is not None:
            where = f" <= {high}"
        else:
            where = ""
        raise error(f"{name} must be a whole number{where}, got {value!r}")
    return n


def check_time_limit(
    value: object, name: str = "time_limit", *, error: type[CallbreakLabError] = UsageError
) -> float | None:
    """A time limit as float seconds: None (no limit) or a number > 0 (an int or a float, not
    a bool); else ``error`` naming ``name`` and the value."""
    if value is None:
        return None
    if isinstance(value, numbers.Real) and not isinstance(value, bool) and float(value) > 0:
        return float(value)
    raise error(f"{name} must be a number of seconds > 0 (or None: no limit), got {value!r}")
