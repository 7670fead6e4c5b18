"""``hermes-tray doctor`` reports approvals waiting in a session another client runs.

The other client (a raw WebSocket client, as the Hermes window would be) starts a task whose
command waits; the doctor, run against the same real gateway, lists that approval, and
afterwards the approval still waits, the other client still owns the session's events, and
nothing was answered or resumed (on axisrow a resume would take the session over).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop.gateway import doctor
from desktop.gateway.endpoints import GatewayEndpoint
from desktop.settings.model import GatewayKind
from tests.peers.fake_model import FakeModel, commands_script
from tests.peers.fixtures import StartHermes
from tests.peers.wsclient import RawGateway, is_event, is_server_request, run_async

pytestmark = [pytest.mark.realhermes, pytest.mark.timeout(240)]
TURN_S = 60.0


@pytest.mark.parametrize("version", ["axisrow", "iot"])
def test_doctor_lists_another_clients_waiting_approval(
    version: str, start_hermes: StartHermes, fake_model: FakeModel, scratch_dir: Path
) -> None:
    target = scratch_dir / "theirs"
    target.mkdir()
    fake_model.add_script("theirs", commands_script([f"rm -rf {target}"]))
    server = start_hermes(version)
    dialect = server.dialect

    def asked(frame: dict[str, object]) -> bool:
        return is_event(frame, "approval.request") or is_server_request(frame, "approval")

    async def scenario() -> doctor.GatewayReport:
        async with RawGateway.connect(server.url) as window:
            await window.handshake(dialect)
            created = await window.call(
                "session.create",
                {"source": "desktop", "cwd": str(scratch_dir), "close_on_disconnect": False},
            )
            sid = str(created["session_id"])
            await window.call(
                "prompt.submit", {"session_id": sid, "text": fake_model.prompt("theirs")}
            )
            await window.wait_for(asked, TURN_S)
            endpoint = GatewayEndpoint("real", "Real", GatewayKind.URL, url=server.url)
            report = await doctor.check_endpoint(endpoint, timeout=30.0)
            still = await window.call("approval.pending", {"session_id": sid})
            assert [a["command"] for a in still["approvals"]] == [f"rm -rf {target}"]
            mark = len(window.frames)
            if dialect == "A":
                result = await window.call(
                    "approval.respond", {"session_id": sid, "choice": "deny"}
                )
                assert result == {"resolved": 1}
            else:
                [request] = [f for f in window.frames if is_server_request(f, "approval")]
                await window.reply(str(request["id"]), {"choice": "deny"})
            await window.wait_for(lambda f: is_event(f, "message.complete", sid), TURN_S, mark)
            assert target.exists()
            report.sessions = [s for s in report.sessions if s["id"] == sid]
            return report

    report = run_async(scenario(), 200)
    assert report.state == "connected"
    assert report.pending_approvals == [
        {"session_id": report.sessions[0]["id"], "command": f"rm -rf {target}", "phase": "waiting"}
    ]
