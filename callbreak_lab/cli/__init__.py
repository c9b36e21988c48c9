"""The ``callbreak-lab`` command line (also ``python -m callbreak_lab``), one module per command
group.

``game`` (score, legal, rules, deal), ``solve`` (solve, line, analyse, advise), ``bidding``
(evaluate, evaluate-model, generate), ``serve`` (serve) and ``arena`` (arena); ``main`` builds
the parser and runs a command. Argument parsing lives here only: the library's functions take
plain arguments.
"""

from callbreak_lab.cli.main import build_parser, main

__all__ = ["build_parser", "main"]
