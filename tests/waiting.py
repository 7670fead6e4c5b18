"""Waiting inside a test's coroutine for a change that is announced, instead of polling for it.

Why not ``qtbot.waitSignal``: most tests run one coroutine on the qasync loop (``arun``), and
``waitSignal`` spins a nested Qt event loop from inside that running task (stack.md §5). These
waiters resolve a future from the announcement itself, so they wake on the emission, not on the
next poll, and a change that happened before the wait began is not lost: the state is checked
when the wait starts, then after every announcement.

A *source* is a Qt signal (anything with ``connect``/``disconnect``) or a plain subscribe call
that takes a callback and returns the unsubscribe call.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")

Source = Any  # a bound Qt signal, or ``subscribe(callback) -> unsubscribe``


def _attach(source: Source, callback: Callable[..., None]) -> Callable[[], None]:
    if hasattr(source, "connect") and hasattr(source, "disconnect"):
        source.connect(callback)
        return lambda: source.disconnect(callback)
    detach = source(callback)
    if not callable(detach):
        raise TypeError(f"{source!r} is neither a signal nor a subscribe call")
    return detach  # type: ignore[no-any-return]


def _args(args: tuple[Any, ...]) -> Any:
    return args[0] if len(args) == 1 else args


async def _resolved(
    future: asyncio.Future[T],
    sources: tuple[Source, ...],
    callback: Callable[..., None],
    why: Callable[[], str],
    timeout: float,
) -> T:
    """Await ``future`` with ``callback`` attached to ``sources``; always detached after."""
    detaches = [_attach(source, callback) for source in sources]
    try:
        return await asyncio.wait_for(future, timeout)
    except TimeoutError:
        raise TimeoutError(f"not within {timeout:g}s: {why()}") from None
    finally:
        for detach in detaches:
            detach()


async def emitted(
    source: Source, check: Callable[..., Any] | None = None, *, timeout: float = 5.0, what: str = ""
) -> Any:
    """The first emission from now on whose arguments satisfy ``check(*args)``.

    Returns the emission's argument (its tuple when there are several). For events, not states:
    an emission that came before the call is not seen (use ``holds`` for a state).
    """
    future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
    seen: list[Any] = []

    def on_emit(*args: Any) -> None:
        if future.done():
            return
        seen.append(_args(args))
        try:
            if check is None or check(*args):
                future.set_result(_args(args))
        except Exception as error:  # the check's own failure is the test's failure
            future.set_exception(error)

    def why() -> str:
        return f"{what or 'a matching emission'} from {source!r}; saw {len(seen)}: {seen[-3:]!r}"

    return await _resolved(future, (source,), on_emit, why, timeout)


async def holds(
    predicate: Callable[[], T], *sources: Source, timeout: float = 5.0, what: str = ""
) -> T:
    """``predicate()``'s first truthy value: checked now, then after each emission of ``sources``.

    The sources are what announces the change the test waits for; a predicate that no source
    announces times out, which is the point: it says the announcement is missing.
    """
    if not sources:
        raise TypeError("holds() needs the signal or subscribe call that announces the change")
    if result := predicate():
        return result
    future: asyncio.Future[T] = asyncio.get_running_loop().create_future()
    emissions = 0

    def on_emit(*_args: Any) -> None:
        nonlocal emissions
        emissions += 1
        if future.done():
            return
        try:
            if value := predicate():
                future.set_result(value)
        except Exception as error:
            future.set_exception(error)

    def why() -> str:
        label = what or getattr(predicate, "__qualname__", repr(predicate))
        return f"{label} after {emissions} announcement(s) from {sources!r}"

    return await _resolved(future, sources, on_emit, why, timeout)


def recorded(*sources: Source) -> list[Any]:
    """A plain list that gets every emission of ``sources`` (one argument, or the tuple of them).

    Stays connected for the life of the sources; wait on it with ``holds(lambda: ..., *sources)``.
    """
    items: list[Any] = []
    for source in sources:
        _attach(source, lambda *args: items.append(_args(args)))
    return items


async def poll_until(
    predicate: Callable[[], T],
    timeout: float = 5.0,
    what: str = "",
    explain: Callable[[], str] | None = None,
) -> T:
    """Poll ``predicate()`` every 5 ms until truthy: only for changes nothing announces.

    E.g. what a fake gateway recorded over its socket, a file on disk, a real gateway's reply, tasks
    finishing. Where a signal or subscription announces the change, ``holds`` or ``emitted`` waits
    on it instead. ``explain()`` adds the state found to the timeout's message.
    """
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not (result := predicate()):
        if loop.time() > deadline:
            label = what or getattr(predicate, "__qualname__", repr(predicate))
            detail = f"\n{explain()}" if explain is not None else ""
            raise TimeoutError(f"not within {timeout:g}s: {label}{detail}")
        await asyncio.sleep(0.005)
    return result


async def drain(timeout: float = 5.0) -> None:
    """Run the loop until every other task has ended (the test's ``wait_for`` wrapper excepted).

    Why: after a test body, pytest-qt processes Qt events *outside* the asyncio loop; a task that
    is still scheduled then steps with no running loop and fails ("no running event loop").
    Tests that start servers or clients end with ``drain()`` after closing them.
    """
    me = asyncio.current_task()

    def wrapper(task: asyncio.Task[Any]) -> bool:  # arun() awaits the test in asyncio.wait_for
        return getattr(task.get_coro(), "__name__", "") == "wait_for"

    def others_done() -> bool:
        return all(t is me or t.done() or wrapper(t) for t in asyncio.all_tasks())

    def pending() -> str:
        return "\n".join(repr(t) for t in asyncio.all_tasks() if not t.done())

    await poll_until(others_done, timeout, "every other task done", pending)  # nothing announces it
    await asyncio.sleep(0.01)  # callbacks scheduled by the last tasks run too
