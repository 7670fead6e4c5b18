"""Handshake of each dialect: credentials, gateway.ready, capabilities."""

from __future__ import annotations

import asyncio
import json

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from tests.gateway.fake.support import RawClient, fake_and_client, ready, run
from tests.gatewaymodel import FakeGateway, Refuse


@pytest.mark.parametrize("dialect", ["A", "B"])
def test_token_dialects_accept_the_right_token_and_refuse_a_wrong_one_with_403(dialect: str):
    async def body() -> None:
        async with FakeGateway(dialect, speed=0) as fake:
            async with RawClient.connect(fake.url) as client:
                assert "skin" in await ready(client)
            with pytest.raises(InvalidStatus) as refused:
                async with connect(fake.base_url + "?token=wrong", proxy=None):
                    pass
            assert refused.value.response.status_code == 403
            with pytest.raises(InvalidStatus) as no_token:
                async with connect(fake.base_url, proxy=None):
                    pass
            assert no_token.value.response.status_code == 403
            assert fake.handshake_attempts == 3
            assert len(fake.connections) == 1

    run(body)


def test_wrong_path_is_404_and_a_foreign_origin_is_403():
    async def body() -> None:
        async with FakeGateway("B", speed=0) as fake:
            with pytest.raises(InvalidStatus) as wrong_path:
                async with connect(f"ws://127.0.0.1:{fake.port}/ws?token={fake.token}", proxy=None):
                    pass
            assert wrong_path.value.response.status_code == 404
            with pytest.raises(InvalidStatus) as foreign:
                async with connect(fake.url, proxy=None, origin="http://evil.example"):
                    pass
            assert foreign.value.response.status_code == 403

    run(body)


def test_auth_failure_close_mode_accepts_then_closes_4401():
    async def body() -> None:
        async with FakeGateway("A", speed=0, auth_failure="close") as fake:
            async with RawClient.connect(fake.base_url + "?token=nope") as client:
                closed = await client.wait_closed()
            assert closed.rcvd is not None
            assert closed.rcvd.code == 4401
            assert client.frames == []  # no gateway.ready for an unauthorised peer

    run(body)


def test_gateway_ready_payload_per_dialect():
    async def body() -> None:
        payloads = {}
        for dialect in ("A", "B", "C"):
            async with fake_and_client(dialect) as (_fake, client):
                payloads[dialect] = await ready(client)
        assert set(payloads["A"]) == {"skin"}
        assert set(payloads["B"]) == {"skin", "change_events", "heartbeat", "replay_epoch"}
        assert payloads["B"]["heartbeat"] is True
        assert {"replay_epoch", "authority_epoch", "instance_id"} <= set(payloads["C"])

    run(body)


def test_client_capabilities_is_unknown_on_a_and_c_but_lists_server_requests_on_b():
    async def body() -> None:
        async with FakeGateway("A", speed=0) as fake, RawClient.connect(fake.url) as client:
            await ready(client)
            reply = await client.call("client.capabilities", {"server_requests": True})
            assert reply["error"] == {
                "code": -32601,
                "message": "unknown method: client.capabilities",
            }
        async with FakeGateway("B", speed=0) as fake, RawClient.connect(fake.url) as client:
            await ready(client)
            result = await client.result("client.capabilities", {"server_requests": True})
            assert "approval" in result["server_requests"]
            assert "terminal.read" in result["server_requests"]
            assert fake.connections[0].server_requests is True
        async with (
            FakeGateway("C", speed=0) as fake,
            RawClient.connect(fake.url, subprotocols=fake.subprotocols()) as client,
        ):
            await ready(client)
            reply = await client.call("client.capabilities", {"server_requests": True})
            assert reply["error"]["code"] == -32601
            assert reply["error"]["data"] == {"reason": "unknown_method"}

    run(body)


def test_c_tickets_are_single_use_and_only_the_public_subprotocol_is_echoed():
    async def body() -> None:
        async with FakeGateway("C", speed=0) as fake:
            ticket = fake.issue_ticket()
            protocols = ["hermes-gateway-v1", f"hermes-gateway-ticket.{ticket}"]
            async with RawClient.connect(fake.url, subprotocols=protocols) as client:
                assert client.ws.subprotocol == "hermes-gateway-v1"
                await ready(client)
            assert fake.connections[0].offered_subprotocols == tuple(protocols)
            with pytest.raises(InvalidStatus) as reused:
                async with connect(fake.url, proxy=None, subprotocols=protocols):
                    pass
            assert reused.value.response.status_code == 403

    run(body)


@pytest.mark.parametrize(
    "offer",
    [
        [],  # nothing at all
        ["hermes-gateway-v1"],  # no ticket
        ["hermes-gateway-ticket.{t}"],  # ticket without the public protocol
        ["hermes-gateway-v1", "hermes-gateway-ticket.{t}", "hermes-gateway-ticket.{t}"],
        ["hermes-gateway-v1", "hermes-gateway-ticket.made-up"],
    ],
)
def test_c_refuses_a_malformed_ticket_offer(offer: list[str]):
    async def body() -> None:
        async with FakeGateway("C", speed=0) as fake:
            ticket = fake.issue_ticket()
            protocols = [p.format(t=ticket) for p in offer]
            with pytest.raises(InvalidStatus) as refused:
                async with connect(fake.url, proxy=None, subprotocols=protocols or None):
                    pass
            assert refused.value.response.status_code == 403
            assert fake.connections == []

    run(body)


def test_ping_and_unknown_methods_and_parse_errors():
    async def body() -> None:
        async with FakeGateway("B", speed=0) as fake, RawClient.connect(fake.url) as client:
            await ready(client)
            assert await client.result("ping") == {"pong": True}
            assert await client.result("gateway.ping") == {"ok": True}
            unknown = await client.call("no.such.method")
            assert unknown["error"] == {"code": -32601, "message": "unknown method: no.such.method"}
            await client.send("{not json")
            parse_error = await client.wait(
                lambda: next(
                    (f for f in client.frames if isinstance(f, dict) and f.get("id", 0) is None),
                    None,
                )
            )
            assert parse_error["error"]["code"] == -32700
            bad_params = await client.call_raw_params("session.list", "not-an-object")
            assert bad_params["error"]["code"] == -32602
            assert fake.connections[0].received[-1]["params"] == "not-an-object"

    run(body)


def test_public_status_page_needs_no_token_and_is_not_a_handshake_attempt():
    async def body() -> None:
        async with FakeGateway("A", speed=0, attempt_faults=[Refuse(503)]) as fake:
            reader, writer = await asyncio.open_connection("127.0.0.1", fake.port)
            writer.write(
                b"GET /api/status HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
            )
            raw = await reader.read()
            writer.close()
            await writer.wait_closed()
            head, _, body = raw.partition(b"\r\n\r\n")
            assert head.startswith(b"HTTP/1.1 200")
            assert json.loads(body) == {
                "version": "0.19.0",
                "gateway_running": True,
                "active_sessions": 0,
                "auth_required": True,
            }
            assert fake.handshake_attempts == 0
            with pytest.raises(InvalidStatus) as refused:  # the planned fault is still first
                async with connect(fake.url, proxy=None):
                    pass
            assert refused.value.response.status_code == 503

    run(body)
