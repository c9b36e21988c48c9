"""The one way a result prints: ``str(result)`` is its ``text()``, the lines a person reads."""

from __future__ import annotations

__all__ = ["Shown"]


class Shown:
    """A result whose ``str`` is its :meth:`text` (a subclass says what the text is)."""

    def text(self) -> str:
        """The result for a person: plain lines."""
        raise NotImplementedError

    def __str__(self) -> str:
        return self.text()
