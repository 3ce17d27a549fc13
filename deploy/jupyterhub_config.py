"""JupyterHub for canasta-teach on one machine (tests/test_hub.py runs exactly this).

Each learner gets a single-user Jupyter server (its own process: ``SimpleLocalProcessSpawner``,
home folders under ``$CANASTA_HUB_HOMES``) that opens the lessons in Voilà.  Rooms and the daily
leaderboard are the ``canasta`` service's (``canasta_teach.service``, started and stopped by
the hub): only the service's process holds the room store's URL and the database's URL, the
learners' servers hold the service's address and their own hub token (F17).

Settings, from the environment of ``jupyterhub -f deploy/jupyterhub_config.py``:

- ``CANASTA_ROOMS_URL``, ``CANASTA_DATABASE_URL``: the stores (given to the service only);
- ``CANASTA_HUB_PASSWORD``: the one password of ``DummyAuthenticator`` (a trial or a test; a
  school uses its own authenticator, e.g. OAuth or a class list);
- ``CANASTA_HUB_IP`` / ``CANASTA_HUB_PORT`` (127.0.0.1:8000), ``CANASTA_HUB_API_PORT`` (8081),
  ``CANASTA_PROXY_API_PORT`` (8001), ``CANASTA_SERVICE_PORT`` (10101);
- ``CANASTA_HUB_DIR``: where the hub keeps its database, cookie secret and the learners'
  homes (default ``.hub/run`` in the repository);
- ``CANASTA_PROXY``: the ``configurable-http-proxy`` command (``make hub`` installs it in
  ``.hub/node_modules``).
"""

import os
import sys
from pathlib import Path

c = get_config()  # type: ignore[name-defined]  # noqa: F821 - JupyterHub's config loader

REPO = Path(__file__).resolve().parent.parent
RUN = Path(os.environ.get("CANASTA_HUB_DIR", REPO / ".hub" / "run"))
HOST = os.environ.get("CANASTA_HUB_IP", "127.0.0.1")
PORT = int(os.environ.get("CANASTA_HUB_PORT", "8000"))
API_PORT = int(os.environ.get("CANASTA_HUB_API_PORT", "8081"))
PROXY_API_PORT = int(os.environ.get("CANASTA_PROXY_API_PORT", "8001"))
SERVICE_PORT = int(os.environ.get("CANASTA_SERVICE_PORT", "10101"))
SERVICE_URL = f"http://127.0.0.1:{SERVICE_PORT}/services/canasta/"

c.JupyterHub.bind_url = f"http://{HOST}:{PORT}"
c.JupyterHub.hub_bind_url = f"http://127.0.0.1:{API_PORT}"
c.ConfigurableHTTPProxy.api_url = f"http://127.0.0.1:{PROXY_API_PORT}"
c.ConfigurableHTTPProxy.command = [
    os.environ.get("CANASTA_PROXY", str(REPO / ".hub/node_modules/.bin/configurable-http-proxy"))
]
c.JupyterHub.db_url = f"sqlite:///{RUN / 'jupyterhub.sqlite'}"
c.JupyterHub.cookie_secret_file = str(RUN / "jupyterhub_cookie_secret")
c.JupyterHub.pid_file = str(RUN / "jupyterhub.pid")
# The proxy's token is made fresh by the hub for each start (nothing to keep in a file).

c.JupyterHub.authenticator_class = "dummy"
c.DummyAuthenticator.password = os.environ.get("CANASTA_HUB_PASSWORD", "")
c.Authenticator.allow_all = True

# Every learner's server is its own process, under the hub's account, home folder of its own.
c.JupyterHub.spawner_class = "simple"
c.SimpleLocalProcessSpawner.home_dir_template = str(RUN / "homes" / "{username}")
c.Spawner.cmd = [sys.executable, "-m", "jupyterhub.singleuser"]
c.Spawner.args = ["--allow-root", f"--ServerApp.root_dir={REPO}"]
# The lessons open in Voilà, as on Binder and on one server (docs/deploy.md).
c.Spawner.default_url = "/voila/render/lessons/index.ipynb"
c.Spawner.start_timeout = 120
c.Spawner.http_timeout = 120
# What a learner's server (and so each of its kernels, and anything a learner runs there)
# holds: the service's address.  No store URL, no password: those are the service's alone.
c.Spawner.environment = {
    "CANASTA_SERVICE_URL": SERVICE_URL,
    "PYTHONPATH": str(REPO),
}
# The learner's token ($JUPYTERHUB_API_TOKEN in the server) may reach the canasta service:
# every user holds that scope (the "user" role), and the server's token is given it.
c.JupyterHub.load_roles = [
    {"name": "user", "scopes": ["self", "access:services!service=canasta"]},
]
c.Spawner.server_token_scopes = [
    "users:activity!user",
    "access:servers!server",
    "access:services!service=canasta",
]

c.JupyterHub.services = [
    {
        "name": "canasta",
        "url": f"http://127.0.0.1:{SERVICE_PORT}",
        "command": [sys.executable, "-m", "canasta_teach.service"],
        "environment": {
            "CANASTA_ROOMS_URL": os.environ.get("CANASTA_ROOMS_URL", ""),
            "CANASTA_DATABASE_URL": os.environ.get("CANASTA_DATABASE_URL", ""),
            "CANASTA_DATA_DIR": str(RUN / "service-data"),
            "PYTHONPATH": str(REPO),
        },
    }
]
