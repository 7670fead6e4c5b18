"""The demo mode: one fast round of both demo sessions, with a raw client as the tray."""

from __future__ import annotations

import asyncio
from typing import Any

from desktop.gateway.fake.__main__ import _parse
from desktop.gateway.fake.demo_script import DemoGateway
from tests.gateway.fake.support import RawClient, caught_up, ready, run


def test_one_demo_round_shows_a_batch_todos_usage_and_yolo_in_two_sessions():
    async def body() -> None:
        async with (
            DemoGateway("B", speed=0.001, loops=1) as demo,
            RawClient.connect(demo.url) as tray,
        ):
            fake = demo.fake
            await ready(tray)
            await tray.result("client.capabilities", {"server_requests": True})
            listed = await tray.result("session.active_list")
            titles = {s["title"]: s for s in listed["sessions"]}
            assert set(titles) == {"Clean up the webshop build", "Tidy the home server"}
            assert fake.executed == []  # nothing plays before someone watches
            for entry in listed["sessions"]:
                await tray.result("session.resume", {"session_id": entry["session_key"]})
            shop = titles["Clean up the webshop build"]["id"]
            home = titles["Tidy the home server"]["id"]

            # the two sessions play concurrently: pick each session's requests by session id
            def asked(sid: str, count: int) -> list[dict[str, Any]] | None:
                got = [r for r in tray.server_requests() if r["params"]["session_id"] == sid]
                return got if len(got) >= count else None

            batch = await tray.wait(lambda: asked(shop, 3), timeout=10)
            shop_starts = [e for e in tray.events("tool.start") if e["session_id"] == shop]
            terminal_starts = [e for e in shop_starts if e["payload"]["name"] == "terminal"]
            assert terminal_starts == []  # all three asked before any runs
            for request in batch:
                await tray.answer(request["id"], {"choice": "once"})
            (last,) = await tray.wait(lambda: asked(home, 1), timeout=10)
            assert last["params"]["command"] == "chmod -R 755 /srv/www"
            await tray.answer(last["id"], {"choice": "once"})
            assert demo.task is not None
            sessions = await asyncio.wait_for(asyncio.shield(demo.task), 10)
            assert [s.sid for s in sessions] == [shop, home]
            await caught_up(fake, tray)
            ran = {(e.session_id, e.command): e.approved_by for e in fake.executed}
            assert ran[(home, "sudo systemctl restart nginx")] == "bypass"
            assert ran[(home, "docker system prune -af --volumes")] == "bypass"
            assert ran[(home, "chmod -R 755 /srv/www")] == "human"
            shop_ran = [e.command for e in fake.executed if e.session_id == shop]
            assert shop_ran[:3] == [r["params"]["command"] for r in batch]
            assert shop_ran[3] == "pytest -q"
            yolo = [
                e["payload"]["yolo"] for e in tray.events("session.info") if e["session_id"] == home
            ]
            assert True in yolo
            assert yolo[-1] is False
            plans = [e["payload"] for e in tray.events("todo.updated") if e["session_id"] == shop]
            assert [p["revision"] for p in plans] == [1, 2, 3, 4]
            assert {t["status"] for t in plans[-1]["todos"]} == {"completed"}
            costs = [e["payload"]["usage"].get("cost_usd") for e in tray.events("session.usage")]
            assert len(costs) == 5
            assert all(c for c in costs)
            ends = [e["session_id"] for e in tray.events("message.complete")]
            assert sorted(ends) == sorted([shop, home])

    run(body, timeout=30)


def test_the_command_line_defaults():
    args = _parse([])
    assert (args.dialect, args.speed, args.port, args.loops) == ("B", 1.0, 0, None)
    assert _parse(["--dialect", "C", "--speed", "0.5"]).dialect == "C"
