"""A resume answer past ``max_frame_bytes`` closes the connection (websockets' 1009).

Every followed session is resumed after each reconnect, so one session whose history passes the
limit would close the connection again and again, and no other session's approval would reach
the tray. The core resumes the sessions whose resume was out at such a close one at a time, and
lets go of one whose resume was out alone: the loop ends, the other sessions are served.
"""

from __future__ import annotations

from desktop.core.events import NoticeReceived
from desktop.core.model import Choice, Dialect
from tests.core.frames import Driver, a_approval, error, event, result

BIG, SMALL, OTHER = "b1b1b1b1", "5a5a5a5a", "0f0f0f0f"


def stored(session_id: str) -> str:
    return f"20261206_{session_id}"


def following(*sessions: str, dialect: Dialect = Dialect.A) -> Driver:
    drv = Driver(follows=()).connect(dialect)
    for session_id in sessions:
        drv.core.watch_session(session_id, stored_session_id=stored(session_id))
    drv.flush()
    return drv


def reconnect(drv: Driver) -> dict[str, int]:
    """A new connection: ``{session_id: rpc id}`` of the resumes it sent at once."""
    before = len(drv.written)
    drv.connect(drv.core.dialect or Dialect.A)
    return sent_resumes(drv, before)


def sent_resumes(drv: Driver, since: int) -> dict[str, int]:
    by_stored = {stored(s): s for s in (BIG, SMALL, OTHER)}
    frames = drv.sent_json()[since:]
    return {
        by_stored[f["params"]["session_id"]]: f["id"]
        for f in frames
        if f.get("method") == "session.resume"
    }


def snapshot(session_id: str) -> dict[str, object]:
    return {"session_id": session_id, "running": False, "info": {"title": session_id}}


def too_big_close(drv: Driver) -> None:
    drv.core.connection_lost(too_big=True)
    drv.flush()


def notices(drv: Driver) -> list[NoticeReceived]:
    return drv.of_type(NoticeReceived)


def test_the_session_whose_history_is_too_big_is_found_and_let_go_and_the_others_served() -> None:
    drv = following(BIG, SMALL, OTHER)
    drv.lose()
    first = reconnect(drv)
    assert first.keys() == {BIG, SMALL, OTHER}
    drv.feed(result(first[SMALL], snapshot(SMALL)))
    too_big_close(drv)  # BIG's answer passed the limit while OTHER's was still out
    assert notices(drv) == []

    second = reconnect(drv)
    assert second.keys() == {SMALL, BIG}, "suspects go one at a time"
    drv.feed(result(second[SMALL], snapshot(SMALL)))
    too_big_close(drv)  # BIG's resume was the only suspect's out: it is the one
    [notice] = notices(drv)
    assert notice.session_id == BIG
    assert "larger than this tray accepts (8 MiB)" in notice.text
    assert "approvals show in Hermes" in notice.text
    assert notice.level == "warning"
    assert not drv.core.session_book.is_followed(BIG), "its rows become read-only"

    third = reconnect(drv)
    assert third.keys() == {SMALL, OTHER}, "the big session is never resumed again"
    drv.feed(result(third[OTHER], snapshot(OTHER)), result(third[SMALL], snapshot(SMALL)))
    drv.feed(a_approval("echo small", SMALL))
    sent, reason, _ = drv.decide(drv.row().key, Choice.ONCE)
    assert sent, reason

    drv.lose()
    assert reconnect(drv).keys() == {SMALL, OTHER}, "OTHER answered: no longer a suspect"
    assert drv.core.resume_session(BIG) is None
    assert len(notices(drv)) == 1


def test_suspects_are_resumed_one_after_the_other_answer_or_error() -> None:
    drv = following(BIG, SMALL, OTHER)
    drv.lose()
    first = reconnect(drv)
    too_big_close(drv)  # all three were out: all three are suspects
    drv.core.unwatch_session(OTHER)  # as the follower lets adopted sessions go at a drop
    second = reconnect(drv)
    assert list(second) == [BIG], "one suspect at a time"
    held = drv.core.resume_session(OTHER)  # the follower adopts it again: it waits its turn
    assert held is not None
    assert held not in first.values()
    before = len(drv.written)
    drv.feed(result(second[BIG], snapshot(BIG)))
    assert list(sent_resumes(drv, before)) == [SMALL]
    before = len(drv.written)
    drv.feed(error(drv.request("session.resume")["id"], 5000, "resume failed"))
    later = sent_resumes(drv, before)
    assert list(later) == [OTHER]
    assert later[OTHER] == held, "sent under the id handed out when it was asked"
    assert notices(drv)[-1].text.startswith("could not follow the session again")
    drv.feed(result(later[OTHER], snapshot(OTHER)))
    drv.lose()
    assert reconnect(drv).keys() == {BIG, SMALL, OTHER}, "all answered: all at once again"


def test_a_too_big_close_with_no_resume_out_changes_nothing() -> None:
    drv = following(BIG, SMALL)
    drv.lose()
    first = reconnect(drv)
    drv.feed(result(first[BIG], snapshot(BIG)), result(first[SMALL], snapshot(SMALL)))
    too_big_close(drv)  # some other frame was too big
    assert reconnect(drv).keys() == {BIG, SMALL}
    assert notices(drv) == []


def test_an_ordinary_drop_makes_no_suspect_and_a_lone_first_suspect_is_tried_again() -> None:
    drv = following(BIG)
    drv.lose()
    reconnect(drv)
    drv.lose()  # not too big: nothing is suspected
    reconnect(drv)
    too_big_close(drv)  # out alone, but not yet a suspect: it may have been another frame
    assert notices(drv) == []
    assert reconnect(drv).keys() == {BIG}
    too_big_close(drv)
    assert [n.session_id for n in notices(drv)] == [BIG]
    assert reconnect(drv) == {}


def test_the_canonical_resume_does_not_ask_to_omit_messages() -> None:
    """Canonical params are closed keys; tui_gateway's resume asks for no history."""
    drv = following(SMALL)
    drv.lose()
    reconnect(drv)
    assert drv.request("session.resume")["params"]["omit_messages"] is True
    canonical = Driver().connect(Dialect.C)
    canonical.lose()
    canonical.connect(Dialect.C)
    assert "omit_messages" not in canonical.request("session.resume")["params"]


def test_a_waiting_suspect_that_is_gone_is_passed_over() -> None:
    drv = following(BIG, SMALL, OTHER)
    drv.lose()
    reconnect(drv)
    too_big_close(drv)
    second = reconnect(drv)
    assert list(second) == [BIG]
    drv.feed(event("session.reclaimed", SMALL, {"session_id": SMALL, "reason": "idle_timeout"}))
    before = len(drv.written)
    drv.feed(result(second[BIG], snapshot(BIG)))
    assert list(sent_resumes(drv, before)) == [OTHER]
