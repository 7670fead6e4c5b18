"""Write a person's decision as the one frame that answers exactly the request they saw.

0.19.0 approves on *any* choice string other than ``"deny"`` (measured:
``"yes"`` and ``""`` both ran the command, hermes-peer.md), so the wire value must come from a
:class:`~desktop.core.model.Choice` and nothing else. Per row kind (protocol.md §3):

* FIFO (0.19.0): ``approval.respond {session_id, choice}`` (+ ``request_id`` when a newer build
  sent one); it resolves the session's oldest pending approval, so the caller must only ever
  pass the FIFO head.
* server request (main tui_gateway): the response frame ``{"id": "srq-…", "result":
  {"choice": …}}``; never ``all``, which would resolve the whole queue.
* by id (0.20): ``approval.respond {session_id, choice, request_id}`` resolves exactly that
  entry; an empty id would resolve the oldest, so a row without one is never encoded.
* prompt (canonical): ``approval.respond`` with exactly ``session_id, execution_generation,
  prompt_id, choice`` (the canonical gateway refuses any other key).
"""

from __future__ import annotations

from typing import Any

from desktop.core.jsonrpc import encode_request, encode_result
from desktop.core.model import Choice
from desktop.core.wire import ApprovalAsked, RowKind


def encode_decision(asked: ApprovalAsked, choice: Choice, rpc_id: int) -> str:
    """The decision frame for ``asked``.

    Raises:
        TypeError: ``choice`` is not a :class:`Choice`.
        ValueError: the row lacks the ids its kind is answered by.
    """
    if not isinstance(choice, Choice):
        raise TypeError(f"only Choice values can be encoded, not {type(choice).__name__}")
    if asked.kind is RowKind.SERVER_REQUEST:
        if asked.reply_id is None:
            raise ValueError("server request without an id")
        return encode_result(asked.reply_id, {"choice": choice.value})
    params: dict[str, Any]
    if asked.kind is RowKind.BY_ID:
        if not asked.request_id:  # an empty id falls back to the oldest: never send one
            raise ValueError("a request answered by id without its id")
        params = {"session_id": asked.session_id, "choice": choice.value}
        params["request_id"] = asked.request_id
        return encode_request(rpc_id, "approval.respond", params)
    if asked.kind is RowKind.PROMPT:
        if not asked.request_id or asked.execution_generation is None:
            raise ValueError("prompt without prompt_id or execution_generation")
        params = {
            "session_id": asked.session_id,
            "execution_generation": asked.execution_generation,
            "prompt_id": asked.request_id,
            "choice": choice.value,
        }
    else:
        params = {"session_id": asked.session_id, "choice": choice.value}
        if asked.request_id:
            params["request_id"] = asked.request_id
    return encode_request(rpc_id, "approval.respond", params)
