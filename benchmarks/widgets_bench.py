"""Widget benchmark: the one-anywidget card table against a grid of ipywidgets Buttons.

For the same table (a 4-player position mid-hand: 11+ cards in hand, melds on both sides),
measures what reaches the browser when the table is built and when it is redrawn after a
move (South draws): the number of comm messages, their JSON size, and the Python time to
build/update the widgets and serialise the messages (``json.dumps``, as the kernel does).
No kernel is needed: comms are replaced by recorders.

    python -m benchmarks.widgets_bench [--repeat N] [--json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import comm
from comm.base_comm import BaseComm

POSITION = """
rules: classic4
scores: NS 1200, EW 2300
turn: S draw
S: K K Q 9 9 7 6 5 4 4 JK 2
W: ?9
N: ?6
E: ?12
NS melds: A A A A A A A | 8 8 8 8 8 2 JK | 10 10 10
EW melds: 5 5 5 5 2 | J J J
NS red threes: 1
pile: 5 10 4 7 6
stock: rest
seed: 11
"""


class Recorder:
    """Counts the messages every comm publishes, and their JSON size and encoding time."""

    def __init__(self) -> None:
        self.messages = 0
        self.bytes = 0
        self.encode_s = 0.0

    def reset(self) -> None:
        self.messages = 0
        self.bytes = 0
        self.encode_s = 0.0


RECORDER = Recorder()


class RecordingComm(BaseComm):  # type: ignore[misc]
    def publish_msg(
        self,
        msg_type: str,
        data: Any = None,
        metadata: Any = None,
        buffers: Any = None,
        **keys: Any,
    ) -> None:
        start = time.perf_counter()
        payload = json.dumps({"msg_type": msg_type, "data": data, "metadata": metadata})
        RECORDER.encode_s += time.perf_counter() - start
        RECORDER.messages += 1
        RECORDER.bytes += len(payload.encode("utf-8"))


@contextmanager
def recording() -> Iterator[Recorder]:
    previous = comm.create_comm
    comm.create_comm = lambda *a, **k: RecordingComm(*a, **k)
    RECORDER.reset()
    try:
        yield RECORDER
    finally:
        comm.create_comm = previous


# ---------------------------------------------------------------------- the two designs


def build_anywidget(lang: str) -> tuple[Any, Callable[[], None]]:
    from canasta_teach.engine.notation import parse_position
    from canasta_teach.i18n import get_translator
    from canasta_teach.widgets import TableController

    controller = TableController(parse_position(POSITION), get_translator(lang), lang)

    def redraw() -> None:
        controller.intent({"action": "draw", "cards": []})  # as the browser sends it

    return controller.widget, redraw


def build_buttons(lang: str) -> tuple[Any, Callable[[], None]]:
    """The same table as plain ipywidgets: a Button per card, HBox/VBox rows, HTML labels."""
    import ipywidgets as w  # type: ignore[import-untyped]

    from canasta_teach.engine import Draw
    from canasta_teach.engine.notation import parse_position
    from canasta_teach.i18n import get_translator
    from canasta_teach.widgets import TableController

    # The controller only computes the view here; its own widget is not measured.
    comm.create_comm = lambda *a, **k: comm.DummyComm(*a, **k)
    controller = TableController(parse_position(POSITION), get_translator(lang), lang)
    comm.create_comm = lambda *a, **k: RecordingComm(*a, **k)
    labels = controller.widget.labels

    def card_button(token: str, disabled: bool) -> Any:
        return w.Button(description=labels["cards"][token], disabled=disabled,
                        layout=w.Layout(width="64px", height="90px"))  # fmt: skip

    def meld_rows(view: dict[str, Any]) -> list[Any]:
        rows = []
        for team in view["teams"]:
            melds = [
                w.HBox([card_button(t, True) for t in m["cards"]] + [w.Label(m["text"])])
                for m in team["melds"]
            ]
            rows.append(w.VBox([w.HTML(f"<b>{team['label']}</b> {team['score_text']}"), *melds]))
        return rows

    view = controller.table_view()
    status = w.HTML(view["status"])
    pile = w.Button(description=labels["cards"].get(view["pile"]["top"] or "", ""), disabled=True)
    stock = w.Label(view["stock_text"])
    hand = w.HBox([card_button(t, False) for t in view["hand"]])
    actions = {a: w.Button(description=labels["buttons"][a]) for a in view["actions"]}
    for action, button in actions.items():
        button.disabled = not view["enabled"][action]
    message = w.HTML("")
    teams = w.VBox(meld_rows(view))
    root = w.VBox([status, teams, w.HBox([stock, pile]), hand, w.HBox(list(actions.values())),
                   message])  # fmt: skip

    def redraw() -> None:
        controller.play(Draw())
        new = controller.table_view()
        status.value = new["status"]
        stock.value = new["stock_text"]
        hand.children = [card_button(t, False) for t in new["hand"]]
        teams.children = meld_rows(new)
        for action, button in actions.items():
            button.disabled = not new["enabled"][action]
        message.value = controller.message.get("text", "")

    return root, redraw


# ---------------------------------------------------------------------- measuring


def measure(build: Callable[[str], tuple[Any, Callable[[], None]]], repeat: int) -> dict[str, Any]:
    built: list[tuple[float, int, int, float]] = []
    redrawn: list[tuple[float, int, int, float]] = []
    for _ in range(repeat):
        with recording() as rec:
            start = time.perf_counter()
            _, redraw = build("ur")
            built.append((time.perf_counter() - start, rec.messages, rec.bytes, rec.encode_s))
            rec.reset()
            start = time.perf_counter()
            redraw()
            redrawn.append((time.perf_counter() - start, rec.messages, rec.bytes, rec.encode_s))

    def summary(rows: list[tuple[float, int, int, float]]) -> dict[str, float]:
        return {
            "ms": round(statistics.median(r[0] for r in rows) * 1000, 2),
            "messages": rows[-1][1],
            "kbytes": round(rows[-1][2] / 1024, 1),
            "encode_ms": round(statistics.median(r[3] for r in rows) * 1000, 2),
        }

    return {"build": summary(built), "redraw": summary(redrawn)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.widgets_bench")
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    results = {
        "anywidget": measure(build_anywidget, args.repeat),
        "ipywidgets_buttons": measure(build_buttons, args.repeat),
    }
    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    print("Urdu table, 4 players, 12 cards in hand, 5 melds; median of", args.repeat, "runs")
    print(f"{'design':<20}{'step':<8}{'messages':>9}{'KiB':>8}{'python ms':>11}{'json ms':>9}")
    for design, steps in results.items():
        for step, row in steps.items():
            print(
                f"{design:<20}{step:<8}{row['messages']:>9}{row['kbytes']:>8}"
                f"{row['ms']:>11}{row['encode_ms']:>9}"
            )
    print("(python ms: building or updating the widgets, serialising included; the anywidget's")
    print(" build carries its ES module and CSS, sent once per table)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
