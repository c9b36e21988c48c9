"""Test-session settings.

scikit-learn's gradient boosting runs OpenMP threads; on the small fits of the tests they only
contend with each other (and with solver worker processes), which made small fits many times
slower on a busy 2-core machine (benchmarks/HISTORY.md, "Figures from the source comments"). One
thread per process is set before anything imports scikit-learn.
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")
