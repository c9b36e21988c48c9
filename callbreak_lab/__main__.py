"""``python -m callbreak_lab``: the same as the ``callbreak-lab`` command."""

import sys

from callbreak_lab.cli.main import main

sys.exit(main())
