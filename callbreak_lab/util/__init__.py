"""What every layer above the core shares and no Call Break rule is in: atomic files and
reading lines (``fileio``), the batch backends (``parallel``), the statistics of weighted
samples (``stats``) and the one kind of progress report (``progress``)."""
