"""Analysis built on the seat layer: annotated play lines (``lines``), reviews of played deals
(``review``), single-dummy advice (``advice``) and the Monte Carlo reference of a hand
(``montecarlo``)."""
