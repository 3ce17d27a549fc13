"""JupyterHub on this machine (``deploy/jupyterhub_config.py``, as ``tests/test_hub.py`` runs it):
learners' servers started per minute, memory per learner, and a room move across two learners'
servers (through the canasta service, rooms on a throwaway redis-server).

    python -m benchmarks.hub_bench [--learners 4] [--moves 30]

Needs ``make hub`` (jupyterhub, configurable-http-proxy) and redis-server.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import threading
import time
from pathlib import Path

from canasta_teach.i18n import get_translator
from canasta_teach.rooms.localredis import redis_server
from canasta_teach.widgets.remote import RemoteRoomTable, ServiceClient
from tests.test_hub import Hub, Learner, wait_for


def tree_rss_mb(pid: int) -> float:
    """Resident memory of a process and all its descendants (the server and its kernels)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(entry.name))
    total, todo = 0, [pid]
    while todo:
        current = todo.pop()
        todo.extend(children.get(current, []))
        try:
            for line in Path(f"/proc/{current}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
        except OSError:
            continue
    return total / 1024


def server_pid(name: str) -> int:
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if b"jupyterhub.singleuser" not in (entry / "cmdline").read_bytes():
                    continue
                if f"JUPYTERHUB_USER={name}".encode() in (entry / "environ").read_bytes():
                    return int(entry.name)
            except OSError:
                continue
    raise LookupError(name)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--learners", type=int, default=4)
    parser.add_argument("--moves", type=int, default=30)
    args = parser.parse_args()
    with redis_server() as redis_url, tempfile.TemporaryDirectory(prefix="canasta-hub-") as tmp:
        hub = Hub(Path(tmp), redis_url, "")
        try:
            names = [f"learner{i}" for i in range(args.learners)]
            began = time.monotonic()
            learners = [Learner(hub, name) for name in names]
            for learner in learners:
                wait_for(f"{learner.name}'s server", learner.ready, timeout=300)
            spent = time.monotonic() - began
            print(f"{len(names)} learners' servers started together in {spent:.1f} s: "
                  f"{len(names) * 60 / spent:.0f} a minute")  # fmt: skip
            idle = [tree_rss_mb(server_pid(n)) for n in names]
            for learner in learners:
                page = learner.http.get(
                    f"{hub.url}/user/{learner.name}/voila/render/lessons/en/11-full-game.ipynb",
                    timeout=300,
                )
                assert page.status_code == 200, page.status_code
            opened = [tree_rss_mb(server_pid(n)) for n in names]
            print(f"memory per learner: server alone {statistics.median(idle):.0f} MB, "
                  f"with one lesson open (its kernel) {statistics.median(opened):.0f} MB "
                  "(median; RSS of the server and its kernels)")  # fmt: skip

            envs = {
                n: learner.server_environment() for n, learner in zip(names, learners, strict=True)
            }

            def client(name: str) -> ServiceClient:
                env = envs[name]
                return ServiceClient(env["CANASTA_SERVICE_URL"], env["JUPYTERHUB_API_TOKEN"])

            made = client(names[0]).call("POST", "rooms", {"lang": "en", "players": 2})
            pages = [
                RemoteRoomTable(get_translator("en"), "en", client=client(n), watch=False)
                for n in names[:2]
            ]
            hello = {"lang": "en", "room": made["code"], "token": made["token"]}
            pages[0].intent({"action": "game", "id": "hello", "values": hello})
            hello = {"lang": "en", "room": made["code"]}
            pages[1].intent({"action": "game", "id": "hello", "values": hello})
            pages[0].intent({"action": "game", "id": "start"})
            pages[1].poll()
            latencies: list[float] = []
            while len(latencies) < args.moves:
                mover = next((p for p in pages if p.widget.view.get("my_turn")), None)
                if mover is None:
                    break
                other = pages[1] if mover is pages[0] else pages[0]
                seen: list[float] = []
                # The other learner's page is waiting on the service, as its kernel's watch does.
                watcher = threading.Thread(
                    target=lambda o=other, s=seen: (o.poll(10.0), s.append(time.perf_counter()))
                )
                watcher.start()
                time.sleep(0.05)  # the watch is parked in the service (not a measured wait)
                view = mover.widget.view
                sent = time.perf_counter()
                if view.get("phase") == "draw":
                    mover.intent({"action": "draw", "cards": []})
                else:
                    mover.intent({"action": "discard", "cards": [view["hand"][-1]]})
                watcher.join(15)
                if seen:
                    latencies.append((seen[0] - sent) * 1000)
                other.poll()
            latencies.sort()
            p95 = latencies[max(0, int(len(latencies) * 0.95) - 1)]
            print(f"a room move seen by the other learner's server: median "
                  f"{statistics.median(latencies):.0f} ms, p95 {p95:.0f} ms "
                  f"({len(latencies)} moves)")  # fmt: skip
        finally:
            hub.stop()


if __name__ == "__main__":
    main()
