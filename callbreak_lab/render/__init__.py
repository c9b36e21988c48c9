"""Renderings of the core types and of the analysis results: ``html`` (Jupyter's
``_repr_html_``), ``svg`` (card faces and the card table) and ``text`` (lines and reviews).
Importing ``callbreak_lab.render`` loads none of them."""
