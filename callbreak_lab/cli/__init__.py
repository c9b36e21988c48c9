"""The ``callbreak-lab`` command line, one module per command group.

``game`` (score, legal, rules, deal), ``solve`` (solve, line, analyse), ``bidding`` (evaluate,
evaluate-model, generate) and ``serve``; ``main`` builds the parser and runs a command.
"""

from callbreak_lab.cli.main import build_parser, main

__all__ = ["build_parser", "main"]
