# Voilà configuration of the player's pages (`make app` passes --Voila.config_file_paths=app).
# Command-line options (APP_ARGS) override these values.
# ruff: noqa: F821  (`c`, the configuration, is given by traitlets when it loads this file)

import os

from tornado.web import HTTPError

# The page's template (app/voila/templates/callbreak, found through JUPYTER_PATH=app): Voilà's
# "lab" template without anything from a CDN (no Font Awesome, no Mermaid loader) and without the
# cells tagged "hide-in-app".
c.VoilaConfiguration.template = "callbreak"
c.VoilaConfiguration.show_tracebacks = False

# Each page view gets its own kernel, 190-450 MB once the bid model and the charts are loaded.
c.VoilaConfiguration.multi_kernel_manager_class = (
    "callbreak_lab.widgets.voila_kernels.AppKernelManager"
)

# At most 8 kernels at once: 8 x 450 MB = 3.6 GB at worst, which a 4 GB server survives; the
# 9th visitor gets "503, try again in a few minutes" until a kernel is culled or closed.
c.AppKernelManager.max_kernels = 8

# A kernel whose page is gone (closed without saying goodbye, connection lost) is culled after
# 120 s of inactivity. A page being opened keeps its kernel busy while the notebook runs and
# connects a second or two later, so 120 s never culls a page that is still coming.
c.MappingKernelManager.cull_idle_timeout = 120

# The culler looks every 30 s: such a kernel is gone 120-150 s after its last message.
c.MappingKernelManager.cull_interval = 30

# Open pages are spared by the rule above (cull_connected stays False); a page left untouched
# for 15 minutes gives its kernel back as well (it then needs a reload), so forgotten tabs
# cannot hold all 8 kernels for ever.
c.AppKernelManager.cull_connected_timeout = 900

# The player's pages, the notebooks listed by the first page (voila/templates/callbreak/
# tree-lab.html). The other notebooks are code to read in Jupyter (`make lab`): all of their
# output is a demonstration, so the app does not serve them (404 before a kernel starts).
PLAYER_PAGES = (
    "01_evaluate_a_hand.ipynb",
    "02_play_lines.ipynb",
    "04_calling_trainer.ipynb",
    "07_play_against_the_bots.ipynb",
    "09_analysis_board.ipynb",
)


def players_pages_only(handler, notebook, cwd):
    """Voilà's prelaunch hook: refuse a notebook that is not one of the player's pages, and give
    the page its `_xsrf` cookie (tornado sets it when the token is first read): a page sends it
    with the request that shuts its kernel down when the player leaves, which the server
    refuses (403) without it, leaving the kernel to the culler for two minutes."""
    name = os.path.basename(handler.request.path)
    if name not in PLAYER_PAGES:
        raise HTTPError(404, f"{name} is not one of the pages of this app")
    handler.xsrf_token  # noqa: B018  (read for its side effect: the cookie)


c.VoilaConfiguration.prelaunch_hook = players_pages_only
