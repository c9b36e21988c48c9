"""Renderings of the core types and of the analysis results, one module per medium.

- ``text``: plain text of lines (``analysis.lines``) and reviews (``analysis.review``).
- ``html``: HTML with inline CSS for Jupyter (``_repr_html_``) of cards, hands, deals,
  positions, matches, lines and reviews.
- ``svg``: card faces, rows of cards and the card table as self-contained SVG.
- ``style``: the colours they share and the colour of a suit.

The package imports only the core (cards, rules, game, errors); the types of the results it
renders are imported for type checking only. The core classes and the results import their
renderer lazily in their ``_repr_html_``/``_repr_svg_``/``text`` methods, so the data layers
carry no rendering code. Importing ``callbreak_lab.render`` loads none of the media.
"""
