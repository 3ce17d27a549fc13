"""``python -m canasta_teach.service``: the service, as JupyterHub starts it."""

from .server import main

main()
