"""Build the tray's context menu from an ``AppSnapshot``: a view, rebuilt rather than patched.

Gateway text goes through ``menu_label`` (mnemonic ``&`` doubled, hidden characters revealed,
bounded) and ``markup_safe``. Object names (``yolo:<gateway>:<session>`` …) serve tests and D-Bus.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QActionGroup
from PySide6.QtWidgets import QMenu

from desktop.core.model import Prompt, PromptKind, SessionState, SessionStatus
from desktop.model import menu_text
from desktop.model.decision_log import LINE_LIMIT
from desktop.model.menu_sessions import MenuPick, SessionShelf
from desktop.model.plain_text import exported_label, markup_safe, menu_label
from desktop.model.prompt_text import answer_there, blocked_on, only_in_hermes
from desktop.model.snapshot import AppSnapshot, GatewayView, Link, session_title
from desktop.model.yolo_timer import BoxKind
from desktop.ui import icons


@dataclass(frozen=True)
class MenuExtras:
    """What the menu shows besides the snapshot; a None hides its entry."""

    timeboxes: Mapping[tuple[str, str], str] = field(default_factory=dict)  # key -> YOLO line
    recent: tuple[tuple[str, str], ...] | None = None  # (line, details), newest first
    journal_available: bool = False  # "Open journal" has a file to open
    start_at_login: bool | None = None
    journal_problem: str = ""  # why decisions are held in memory instead of the journal
    holding_notifications: bool = False  # do-not-disturb holds approval notifications


@dataclass(frozen=True)
class MenuCommands:
    """What the menu's actions do. Plain callables: the menu never awaits anything."""

    reconnect: Callable[[str], None]
    set_yolo: Callable[[str, str, bool], None]  # gateway, session, on
    choose_mode: Callable[[str, str], None]  # gateway, mode (the caller confirms first)
    interrupt: Callable[[str, str], None]
    review: Callable[[], None]
    new_task: Callable[[], None]
    settings: Callable[[], None]
    quit: Callable[[], None]
    timebox: Callable[[str, str, BoxKind], None]  # gateway, session, kind
    open_journal: Callable[[], None]
    set_start_at_login: Callable[[bool], None]
    close_session: Callable[[str, str], None]  # gateway, session: leave the menu
    answer_prompt: Callable[[str, str], None]  # gateway, prompt key: open its window


TODO_LINES = 8  # plan items listed per session (then "… N more")
PROMPT_LINES = 3  # questions listed per session (then "… N more")
# Entries of the whole menu, submenus included, even with 2,000 sessions. Sessions get what the
# gateways and the app leave, most urgent first; the rest are counted in "N more sessions".
MENU_ENTRY_BUDGET = 100
APP_ENTRIES = 25  # Review, New task, Recent decisions (12), Start at login, Settings, Quit, …
GATEWAY_ENTRIES = 4  # header, error line, Reconnect, separator
QUIETER_ENTRIES = 18  # kept for the "N more sessions" submenu: a few short session submenus


class _Budget:
    def __init__(self, entries: int) -> None:
        self.left = entries
        self.full = False  # a session did not fit: the less urgent ones are not tried
        self.dropped: list[tuple[str, SessionState]] = []  # (gateway_id, session) not listed
        self.listed: list[tuple[str, SessionState, QMenu, int]] = []  # ..., submenu, its cost

    def make_room(self, menu: QMenu, entries: int) -> None:
        """Move the least urgent listed sessions to the quieter ones until ``entries`` are free."""
        while self.left < entries and self.listed:
            gid, session, sub, cost = self.listed.pop()
            _remove(menu, sub)
            self.left += cost
            self.dropped.insert(0, (gid, session))


def build_menu(
    menu: QMenu,
    snapshot: AppSnapshot,
    commands: MenuCommands,
    *,
    exported: bool = False,
    extras: MenuExtras | None = None,
    pick: MenuPick | None = None,
) -> None:
    """``exported``: labels escaped for Qt's D-Bus export, which a StatusNotifierItem host draws."""
    extras = extras or MenuExtras()
    pick = pick or SessionShelf(finished_after=float("inf")).pick(snapshot)
    budget = _Budget(MENU_ENTRY_BUDGET - APP_ENTRIES - GATEWAY_ENTRIES * len(snapshot.gateways))
    _clear(menu)
    menu.setToolTipsVisible(True)
    if not snapshot.gateways:
        _info(menu, "No gateway configured — see Settings…")
    for gateway in snapshot.gateways:
        _add_gateway(menu, gateway, pick.sessions(gateway.gateway_id), commands, extras, budget)
        menu.addSeparator()
    if budget.dropped or pick.rest:
        budget.make_room(menu, QUIETER_ENTRIES)
        quieter = budget.dropped + list(pick.rest)  # the dropped ones are the more urgent
        _add_quieter(menu, snapshot, quieter, commands, extras, budget.left)
        menu.addSeparator()
    waiting = snapshot.waiting_count()
    review = _action(
        menu, f"Review approvals… ({waiting})" if waiting else "Review approvals…", "review"
    )
    review.triggered.connect(commands.review)
    _action(menu, "New task…", "new-task").triggered.connect(commands.new_task)
    _add_app_items(menu, extras, commands)
    _action(menu, "Settings…", "settings").triggered.connect(commands.settings)
    menu.addSeparator()
    _action(menu, "Quit Hermes Tray", "quit").triggered.connect(commands.quit)
    if exported:
        _relabel_for_export(menu)


def _relabel_for_export(menu: QMenu) -> None:
    """Re-escape every label for the D-Bus export (all labels were built Qt-escaped)."""
    for action in menu.actions():
        if action.isSeparator():
            continue
        owned = action.menu()  # typed as a plain QObject by PySide6's stubs
        sub: QMenu | None = owned if isinstance(owned, QMenu) else None
        text = sub.title() if sub is not None else action.text()
        label = exported_label(text.replace("&&", "&"))
        if sub is not None:
            sub.setTitle(label)
            _relabel_for_export(sub)
        else:
            action.setText(label)


def _clear(menu: QMenu) -> None:
    menu.clear()
    for child in menu.findChildren(QMenu, options=Qt.FindChildOption.FindDirectChildrenOnly):
        child.deleteLater()
    for group in menu.findChildren(QActionGroup):
        group.deleteLater()


def _action(menu: QMenu, text: str, name: str, *, limit: int = 100) -> QAction:
    action = menu.addAction(menu_label(text, limit))
    action.setObjectName(name)
    return action


def _info(menu: QMenu, text: str, name: str = "", *, limit: int = 100) -> QAction:
    """A read-only line (disabled action: menus have no labels)."""
    action = _action(menu, text, name, limit=limit)
    action.setEnabled(False)
    return action


def _add_gateway(
    menu: QMenu,
    gateway: GatewayView,
    sessions: tuple[SessionState, ...],
    commands: MenuCommands,
    extras: MenuExtras,
    budget: _Budget,
) -> None:
    gid = gateway.gateway_id
    header = _info(
        menu,
        menu_text.gateway_header(gateway.name, gateway.state_name, gateway.version),
        f"gateway:{gid}",
    )
    if gateway.error:
        header.setToolTip(markup_safe(gateway.error, 300))
        _info(menu, f"   {gateway.error}", f"gateway-error:{gid}", limit=90)
    reconnect = _action(menu, "   Reconnect", f"reconnect:{gid}")
    reconnect.triggered.connect(lambda _=False: commands.reconnect(gid))
    if gateway.link is not Link.UP:
        return
    if not sessions:
        text = "   No busy sessions" if gateway.sessions else "   No live sessions"
        _info(menu, f"{text} — start one with New task…", f"no-sessions:{gid}")
    waiting = Counter(row.session_id for row in gateway.waiting)
    for session in sessions:
        if budget.full or budget.left <= 0:
            budget.dropped.append((gid, session))
            continue
        sub = _add_session(menu, gateway, session, waiting[session.session_id], commands, extras)
        cost = 1 + _entry_count(sub)
        if cost > budget.left:  # does not fit: listed under "N more sessions" instead
            _remove(menu, sub)
            budget.dropped.append((gid, session))
            budget.full = True
            continue
        budget.left -= cost
        budget.listed.append((gid, session, sub, cost))


def _add_quieter(
    menu: QMenu,
    snapshot: AppSnapshot,
    quieter: list[tuple[str, SessionState]],
    commands: MenuCommands,
    extras: MenuExtras,
    entries: int,
) -> None:
    more = QMenu(menu_label(menu_text.more_sessions_line(len(quieter)), 100), menu)
    more.setObjectName("more-sessions")
    more.menuAction().setObjectName("more-sessions")
    more.setToolTipsVisible(True)
    more.menuAction().setToolTip(
        "The menu lists the sessions that need you most; the quieter rest are in here."
    )
    menu.addMenu(more)
    left = entries - 2  # the submenu's own entry, and room for "… N more"
    listed = 0
    for gid, session in quieter:
        gateway = snapshot.gateway(gid)
        if gateway is None:
            continue
        waiting = sum(1 for row in gateway.waiting if row.session_id == session.session_id)
        sub = _add_session(more, gateway, session, waiting, commands, extras, short=True)
        cost = 1 + _entry_count(sub)
        if cost > left:
            _remove(more, sub)
            break
        left -= cost
        listed += 1
    if listed < len(quieter):
        _info(more, f"… {len(quieter) - listed:,} more, quietest last", "more-sessions-rest")


def _remove(menu: QMenu, sub: QMenu) -> None:
    menu.removeAction(sub.menuAction())
    sub.deleteLater()


def _entry_count(menu: QMenu) -> int:
    count = 0
    for action in menu.actions():
        count += 1
        owned = action.menu()
        if isinstance(owned, QMenu):
            count += _entry_count(owned)
    return count


def _session_icon_name(session: SessionState, waiting: int, boxed: bool = False) -> str:
    if waiting or session.status is SessionStatus.WAITING:
        return "waiting"
    if session.yolo.effective:
        return "yolo-timed" if boxed else "yolo"
    return "working" if session.status is SessionStatus.WORKING else "idle"


def _add_session(
    menu: QMenu,
    gateway: GatewayView,
    session: SessionState,
    waiting: int,
    commands: MenuCommands,
    extras: MenuExtras,
    *,
    short: bool = False,
) -> QMenu:
    """A session's submenu; ``short``: only its state, YOLO, Interrupt and Close (the quieter)."""
    gid, sid = gateway.gateway_id, session.session_id
    title = session_title(session)
    prompts = gateway.prompts_of(sid)
    status = "waiting on you" if waiting else session.status.value
    if prompts and not waiting:  # what blocks it, in the entry itself
        status = blocked_on(prompts[0])
    sub = QMenu(menu_label(f"{title} — {status}", 70), menu)
    sub.setObjectName(f"session:{gid}:{sid}")
    sub.setToolTipsVisible(True)
    boxed = extras.timeboxes.get((gid, sid))
    sub.setIcon(icons.tray_icon(_session_icon_name(session, waiting, boxed is not None)))
    menu.addMenu(sub)

    _info(sub, menu_text.status_line(session, waiting), f"status:{gid}:{sid}")
    if not short:
        _add_prompts(sub, gid, prompts, commands)
        sub.addSeparator()
        _add_usage(sub, session, f"{gid}:{sid}")
        _add_todos(sub, session, f"{gid}:{sid}")

    yolo = _action(sub, boxed or menu_text.yolo_line(session.yolo), f"yolo:{gid}:{sid}")
    yolo.setCheckable(True)
    yolo.setChecked(session.yolo.effective)
    lock = menu_text.yolo_lock_reason(session.yolo)
    if lock:
        yolo.setEnabled(False)
        yolo.setToolTip(lock)
    else:
        yolo.setToolTip("Let this session run commands without asking (this session only).")
        yolo.toggled.connect(lambda on: commands.set_yolo(gid, sid, on))
        if boxed is None and not short:
            _add_timeboxes(sub, gid, session, commands.timebox)
    if not short:
        _add_mode_menu(sub, gateway, session, commands)
    sub.addSeparator()
    interrupt = _action(sub, "Interrupt", f"interrupt:{gid}:{sid}")
    interrupt.setEnabled(session.status is not SessionStatus.IDLE or bool(waiting))
    interrupt.triggered.connect(lambda _=False: commands.interrupt(gid, sid))
    idle = session.status is SessionStatus.IDLE and not session.running and not waiting
    if idle:
        close = _action(sub, "Close (hide from this menu)", f"close:{gid}:{sid}")
        close.setToolTip("The session stays in Hermes; it comes back here when it works again.")
        close.triggered.connect(lambda _=False: commands.close_session(gid, sid))
    return sub


def _add_prompts(sub: QMenu, gid: str, prompts: tuple[Prompt, ...], commands: MenuCommands) -> None:
    """One line per question: clarify opens its dialog; sudo and secret only say where to type."""
    answer = commands.answer_prompt
    for prompt in prompts[:PROMPT_LINES]:
        name = f"prompt:{gid}:{prompt.key}"
        if prompt.kind is not PromptKind.CLARIFY:
            text, tip = blocked_on(prompt), answer_there(prompt)
        elif only_in_hermes(prompt):
            text, tip = f"Answer in Hermes: {prompt.question}", prompt.blocked_reason
        elif not prompt.answerable:
            text, tip = blocked_on(prompt), prompt.blocked_reason or "Answer it in Hermes."
        else:
            action = _action(sub, f"   Answer: {prompt.question}…", name, limit=90)
            action.setToolTip(markup_safe(prompt.question, 300))
            action.triggered.connect(lambda _=False, key=prompt.key, go=answer: go(gid, key))
            continue
        _info(sub, "   " + text, name, limit=90).setToolTip(markup_safe(tip, 300))
    if len(prompts) > PROMPT_LINES:
        _info(sub, f"   … {len(prompts) - PROMPT_LINES} more questions", f"prompt-more:{gid}")


def _add_usage(sub: QMenu, session: SessionState, ref: str) -> None:
    usage = session.usage
    _info(sub, menu_text.tokens_line(usage), f"tokens:{ref}")
    _info(sub, menu_text.calls_line(usage), f"calls:{ref}")
    context = menu_text.context_line(usage)
    percent = menu_text.context_percent(usage)
    if context is not None and percent is not None:
        line = _info(sub, context, f"context:{ref}")
        level = menu_text.context_level(percent)
        line.setIcon(icons.level_icon(level))
        line.setData(level)
    cost = menu_text.cost_line(usage)
    if cost is not None:
        _info(sub, cost, f"cost:{ref}")
    sub.addSeparator()


def _add_todos(sub: QMenu, session: SessionState, ref: str) -> None:
    progress = menu_text.todo_progress(session.todos)
    if progress is None:
        return
    _info(sub, progress, f"todo-progress:{ref}")
    items = session.todos.items
    for index, item in enumerate(items[:TODO_LINES]):
        _info(
            sub,
            "   " + menu_text.todo_line(item.status, item.content),
            f"todo:{ref}:{index}",
            limit=80,
        )
    if len(items) > TODO_LINES:
        _info(sub, f"   … {len(items) - TODO_LINES} more", f"todo-more:{ref}")
    sub.addSeparator()


def _add_mode_menu(
    sub: QMenu, gateway: GatewayView, session: SessionState, commands: MenuCommands
) -> None:
    gid = gateway.gateway_id
    mode_menu = QMenu(menu_label(menu_text.mode_title(session.approval_mode), 100), sub)
    mode_menu.setObjectName(f"mode-menu:{gid}:{session.session_id}")
    mode_menu.setToolTipsVisible(True)
    sub.addMenu(mode_menu)
    lock = menu_text.mode_lock_reason(gateway.dialect)
    group = QActionGroup(mode_menu)  # exclusive
    for mode in menu_text.APPROVAL_MODES:
        action = _action(mode_menu, mode, f"mode:{gid}:{session.session_id}:{mode}")
        action.setCheckable(True)
        action.setChecked(mode == session.approval_mode)
        group.addAction(action)
        if lock:
            action.setEnabled(False)
            action.setToolTip(lock)
        else:
            action.setToolTip("Global: applies to every session on this gateway (asks first).")
            action.triggered.connect(lambda _=False, m=mode: commands.choose_mode(gid, m))
    if lock:
        _info(mode_menu, lock, f"mode-locked:{gid}:{session.session_id}", limit=90)
    else:
        _info(mode_menu, "Global for this gateway; you will be asked to confirm.", "", limit=90)


def _add_timeboxes(
    sub: QMenu, gid: str, session: SessionState, timebox: Callable[[str, str, BoxKind], None]
) -> None:
    sid = session.session_id
    for_minutes = _action(sub, "YOLO for 15 minutes", f"yolo-minutes:{gid}:{sid}")
    for_minutes.setToolTip("YOLO on now; Hermes Tray turns it off again when the time is up.")
    for_minutes.triggered.connect(lambda _=False: timebox(gid, sid, BoxKind.MINUTES))
    turn_text = "YOLO until this turn ends" if session.running else "YOLO for the next turn"
    for_turn = _action(sub, turn_text, f"yolo-turn:{gid}:{sid}")
    for_turn.setToolTip("YOLO on now; Hermes Tray turns it off when the agent's turn is over.")
    for_turn.triggered.connect(lambda _=False: timebox(gid, sid, BoxKind.TURN))


def _add_app_items(menu: QMenu, extras: MenuExtras, commands: MenuCommands) -> None:
    if extras.journal_problem:
        problem = f"⚠ Journal not written: {extras.journal_problem}"
        warning = _info(menu, problem, "journal-problem", limit=90)  # the journal retries
        warning.setToolTip("Decisions are kept in memory and written once the journal can be.")
    if extras.recent is not None:
        recent = QMenu(menu_label("Recent decisions"), menu)
        recent.setObjectName("recent-decisions")
        recent.setToolTipsVisible(True)
        menu.addMenu(recent)
        if not extras.recent:
            _info(recent, "No decisions yet", "recent:none")
        for index, (line, details) in enumerate(extras.recent):
            item = _info(recent, line, f"recent:{index}", limit=LINE_LIMIT)  # a record
            item.setToolTip(markup_safe(details, 300))
        recent.addSeparator()
        opener = _action(recent, "Open journal", "open-journal")
        opener.setEnabled(extras.journal_available)
        opener.setToolTip("The full decision journal (JSON Lines), in your default application.")
        opener.triggered.connect(lambda _=False: commands.open_journal())
    if extras.start_at_login is not None:
        login = _action(menu, "Start at login", "start-at-login")
        login.setCheckable(True)
        login.setChecked(extras.start_at_login)
        login.setToolTip("Start Hermes Tray when you log in to this computer.")
        login.toggled.connect(commands.set_start_at_login)
