"""The scrolling card list: a virtual view of the :class:`ApprovalBoard`, widgets only on screen.

Hand-made, not a QTreeView: a row needs a scrollable, selectable command and real buttons, which
delegates cannot host and index widgets lose on every reset. Virtual, because a card costs about
0.4 MiB and a layout pass over all of them time (1,000 rows took 491 MB and 293 s to settle):
the flattened tree keeps one measured (or estimated) height per item, and widgets are built only
near the viewport, placed by hand once per event-loop turn.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterator
from typing import TypeVar

from PySide6.QtCore import (
    QCoreApplication,
    QEvent,
    QObject,
    QPoint,
    Qt,
    QTimer,
    Signal,
)
from PySide6.QtGui import QCursor, QResizeEvent
from PySide6.QtWidgets import QAbstractScrollArea, QFrame, QWidget

from desktop.core.model import Approval
from desktop.model.approvals.layout import (
    ApprovalBoard,
    BatchGroup,
    GatewayGroup,
    Node,
    RowEntry,
    SessionGroup,
)
from desktop.model.approvals.rules import head_on_screen
from desktop.ui.approvals.cards import BatchCard, Cover, GroupWidget, Heading, RowCard, plain_label

MARGIN = 12  # around the content, in pixels
GAP = 8  # between consecutive items
OVERSCAN = 300  # pixels above and below the viewport that are built too (smooth scrolling)
OVERSCAN_DELAY_MS = 250  # ... once the list has kept still this long (the screen comes first)
_INDENT = {GatewayGroup: 0, SessionGroup: 6, BatchGroup: 12, RowEntry: 24}
_ESTIMATE = {GatewayGroup: 36, SessionGroup: 26, BatchGroup: 44}
_ROW_BASE, _LINE = 118, 17  # row estimate: chrome plus one line per command line (up to 10)
SPARE_WIDGETS = 16  # per kind of item: kept hidden for reuse once they scroll away or end
WIDEST_MINIMUM = 1000  # pixels: the most the items' buttons may ask of the list's width
_N = TypeVar("_N", bound=Node)
Card = RowCard | GroupWidget  # the widget of one item


class ApprovalListView(QAbstractScrollArea):
    choice_clicked = Signal(object, object)  # (RowEntry, Choice)
    reconfirm_clicked = Signal(object)  # RowEntry
    batch_action = Signal(object, object)  # (BatchGroup, Choice)
    stop_clicked = Signal(object)  # BatchGroup
    dismiss_clicked = Signal(object)  # BatchGroup
    on_screen_changed = Signal()  # rows entered or left the viewport
    _flush_due = Signal()  # queued: one flush per event-loop turn

    def __init__(
        self,
        board: ApprovalBoard,
        clock: Callable[[], float],
        approve_cover: Cover,  # what "Approve all" would cover (batch cards)
    ) -> None:
        super().__init__()
        self.setObjectName("approvalList")
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        # Always on: a scroll bar appearing would narrow every card and re-wrap every command.
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOn)
        self.viewport().setObjectName("approvalListContent")
        self.viewport().setAutoFillBackground(True)
        self.board = board
        self._clock = clock
        self._approve_cover = approve_cover
        self._items: list[Node] = []  # flattened, top to bottom
        self._index: dict[int, int] = {}  # uid -> position in _items
        self._structure_dirty = True
        self._heights: dict[int, int] = {}  # uid -> measured (or reserved) height
        self._guesses: dict[int, int] = {}  # uid -> estimated height, for items not measured
        self._tops: list[int] = []  # y of each item in content coordinates
        self._widgets: dict[int, Card] = {}
        self._unmeasured: set[int] = set()  # built widgets whose height may have changed
        self._on_screen: dict[int, float] = {}  # row uid -> clock time it entered the viewport
        self._spare: dict[type, list[Card]] = {}  # kind -> dropped widgets, hidden, oldest first
        self._kept: dict[int, Card] = {}  # uid -> the spare still showing that node as it is
        self._selected_row: RowEntry | None = None
        self._widest = 0  # the widest minimum of any item built yet, indent included
        self._scroll_to: RowEntry | None = None  # bring into view in the next flush
        self._heading_too = False  # ... with its session heading, if both fit
        self._live = False
        self._flush_posted = False
        self._placing = False
        self._overscan_timer = QTimer(self)
        self._overscan_timer.setSingleShot(True)
        self._overscan_timer.setInterval(OVERSCAN_DELAY_MS)
        # The margin waits until placements pause: one built for a position left is wasted.
        self._overscan_timer.timeout.connect(lambda: self._place(overscan=True))
        self._prime_timer = QTimer(self)  # after this turn's paint (a zero timer runs after it)
        self._prime_timer.setSingleShot(True)
        self._prime_timer.timeout.connect(self._prime_spare)
        self.empty = plain_label("emptyLabel")
        self.empty.setParent(self.viewport())
        self.empty.setText("Nothing is waiting for you.")
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.verticalScrollBar().valueChanged.connect(lambda _v: self._place(scrolled=True))
        self._flush_due.connect(self.flush, Qt.ConnectionType.QueuedConnection)

    def materialise(self) -> None:
        if self._live:
            return
        self._live = True
        self._structure_dirty = True
        self.flush(overscan=True)  # opening: nothing is on screen yet to be painted first

    def dematerialise(self) -> None:
        """Drop every widget; the board and the remembered heights stay (the dialog hid)."""
        if not self._live:
            return
        self._live = False
        self._overscan_timer.stop()
        self._scroll_to = None
        for uid in list(self._widgets):
            self._drop(uid)
        for spares in self._spare.values():
            for widget in spares:
                widget.setParent(None)
                widget.deleteLater()
        self._spare.clear()
        self._kept.clear()
        if self._on_screen:
            self._on_screen.clear()
            self.on_screen_changed.emit()

    def card(self, row: RowEntry) -> RowCard | None:
        widget = self._widgets.get(row.uid)
        return widget if isinstance(widget, RowCard) else None

    def on_screen_since(self, row: RowEntry) -> float | None:
        """Clock time ``row`` entered the viewport of the shown dialog (None: not on screen)."""
        return self._on_screen.get(row.uid)

    def rows_on_screen(self) -> list[RowEntry]:
        nodes = (self.board.node(uid) for uid in self._on_screen)
        rows = [n for n in nodes if isinstance(n, RowEntry)]
        return sorted(rows, key=lambda r: self._index.get(r.uid, 0))

    def set_selected(self, row: RowEntry | None, *, with_heading: bool = False) -> None:
        previous = self._selected_row
        if previous is not None and previous is not row:
            card = self.card(previous)
            if card is not None:
                card.set_selected(False)
        self._selected_row = row
        if row is None:
            return
        self._scroll_to = row
        self._heading_too = self._heading_too or with_heading
        card = self.card(row)
        if card is not None:
            card.set_selected(True)
        self._post_flush()

    def refresh_countdowns(self, now: float) -> None:
        for widget in self._widgets.values():
            if isinstance(widget, RowCard):
                widget.refresh_countdown(now)

    def refresh_covers(self) -> None:
        """Re-render what "Approve all" covers on the built batch cards."""
        for widget in self._widgets.values():
            if isinstance(widget, BatchCard):
                widget.refresh_cover()

    def upsert(
        self, gateway_id: str, gateway_name: str, approval: Approval, title: str
    ) -> RowEntry:
        """Add or update one row (the store holds ``approval``), creating its groups as needed.

        Rows are only appended, except a re-ask: right after the row it replaces.
        """
        b = self.board
        gateway = b.gateway(gateway_id) or self._added(b.add_gateway(gateway_id, gateway_name))
        if gateway.name != gateway_name:
            gateway.name = gateway_name
            self.node_changed(gateway)
        session = b.session(gateway_id, approval.session_id) or self._added(
            b.add_session(gateway, approval.session_id, title)
        )
        if session.title != title:
            session.title = title
            self.node_changed(session)
        row = b.row((gateway_id, approval.key))
        if row is not None:  # it stays where it was first placed (the core never moves a row)
            self.node_changed(row)
        else:
            after = b.home(gateway_id, approval)
            batch = (
                after.batch
                if after is not None
                else b.batch(gateway_id, approval.session_id, approval.batch_id)
                or self._added(b.add_batch(session, approval.batch_id))
            )
            row = self._added(b.add_row(batch, approval.key, after))
        self.node_changed(row.batch)
        return row

    def remove(self, node: Node) -> None:
        parent = self.board.parent(node)
        self._forget(node)
        self.board.remove(node)
        self._structure_changed()
        if parent is not None and not self.board.children(parent):
            self.remove(parent)

    def node_changed(self, node: Node) -> None:
        self._kept.pop(node.uid, None)
        guessed = self._guesses.pop(node.uid, None) is not None
        if guessed and node.uid not in self._heights:
            self._structure_changed()  # placed by its guess: guessed again, at its new size
        widget = self._widgets.get(node.uid)
        if widget is not None:
            widget.refresh(self._clock())
            self._unmeasured.add(node.uid)
            self._post_flush()  # its height may have changed

    def _added(self, node: _N) -> _N:
        self._structure_changed()
        return node

    def _structure_changed(self) -> None:
        self._structure_dirty = True
        self.empty.setVisible(not self.board.gateways)
        self._post_flush()

    def _build(self, node: Node, *, grow: bool) -> Card:
        """The spare still showing ``node``, else a spare rebound to it, else a new widget.

        The cards on screen change on every arrival; a new card costs about 7 ms to build and
        polish, rebinding a spare one a fraction of that, one that looks as the row will less,
        and one still showing the row (it scrolled away unchanged) nothing but its countdown.
        """
        now = self._clock()
        kept = self._kept.pop(node.uid, None)
        if kept is not None:
            self._spare[type(node)].remove(kept)
        spare = kept or self._take_spare(node, grow=grow)
        widget: Card
        if isinstance(kept, RowCard):
            widget = kept
            kept.refresh_countdown(now)
        else:
            if isinstance(spare, RowCard) and isinstance(node, RowEntry):
                spare.rebind(node)
            elif isinstance(spare, GroupWidget) and not isinstance(node, RowEntry):
                spare.group = node  # kept or not: a heading reads other nodes too
            else:
                spare = self._new_widget(node)
            widget = spare
            widget.refresh(now)
        if isinstance(widget, RowCard):
            widget.set_selected(node is self._selected_row)
        widget.installEventFilter(self)  # a LayoutRequest means its height may have changed
        self._widgets[node.uid] = widget
        same_width = widget.width() == self._width_for(node) and node.uid in self._heights
        if not (isinstance(kept, RowCard) and same_width):
            self._unmeasured.add(node.uid)  # else as tall as it was measured when it left
        return widget

    def _take_spare(self, node: Node, *, grow: bool) -> Card | None:
        """The spare to rebind to ``node``, the oldest first; None: build a new widget.

        Rows rotate over sessions and the list goes back and forth, so the pool grows: a spare
        still showing a row, or one to re-style, is taken only once SPARE_WIDGETS are spare, for
        the selected row (the one a person waits for), or when not to ``grow`` (the margin: what
        it built, the next placement trimmed again, ~15 ms a new row in the bench's rotation).
        """
        spares = self._spare.get(type(node), [])
        fitting = [w for w in spares if not isinstance(w, RowCard) or w.looks_fit(node)]
        ranked = [w for w in fitting if not self._is_kept(w)]
        if not grow or len(spares) >= SPARE_WIDGETS or node is self._selected_row:
            ranked += fitting + spares
        if not ranked:
            return None
        self._unkeep(ranked[0])
        spares.remove(ranked[0])
        return ranked[0]

    def _is_kept(self, spare: Card) -> bool:
        return self._kept.get(_node_of(spare).uid) is spare

    def _unkeep(self, spare: Card) -> None:
        """``spare`` is to show another node, another look, or nothing."""
        if self._is_kept(spare):
            del self._kept[_node_of(spare).uid]

    def _new_widget(self, node: Node) -> Card:
        widget: Card
        if isinstance(node, RowEntry):
            widget = RowCard(node)
            widget.choice_clicked.connect(self.choice_clicked)
            widget.reconfirm_clicked.connect(self.reconfirm_clicked)
        elif isinstance(node, BatchGroup):
            widget = BatchCard(node, self._approve_cover)
            widget.batch_action.connect(self.batch_action)
            widget.stop_clicked.connect(self.stop_clicked)
            widget.dismiss_clicked.connect(self.dismiss_clicked)
        else:
            widget = Heading(node)
        widget.setParent(self.viewport())
        return widget

    def _drop(self, uid: int) -> None:
        widget = self._widgets.pop(uid, None)
        self._unmeasured.discard(uid)
        if widget is None:
            return
        widget.removeEventFilter(self)
        widget.hide()
        if not self._live:
            widget.setParent(None)
            widget.deleteLater()
            return
        self._spare.setdefault(type(_node_of(widget)), []).append(widget)  # a hidden child
        self._kept[uid] = widget
        self._prime_timer.start()

    def _trim_spares(self) -> None:
        for spares in self._spare.values():
            while len(spares) > SPARE_WIDGETS:  # the oldest: the last to come back
                self._unkeep(spares[0])
                spares[0].setParent(None)
                spares.pop(0).deleteLater()

    def _prime_spare(self) -> None:
        """One spare card takes a waiting row's look: the next row most likely waits."""
        cards = [w for w in self._spare.get(RowEntry, []) if isinstance(w, RowCard)]
        free = [w for w in cards if not self._is_kept(w)]
        if any(not w.property("resolved") for w in free):
            return
        greyed = [w for w in free + cards if w.property("resolved")]  # a kept one last
        if greyed:
            self._unkeep(greyed[0])
            greyed[0].prime()

    def _forget(self, node: Node) -> None:
        self._drop(node.uid)
        self._kept.pop(node.uid, None)
        self._heights.pop(node.uid, None)
        self._guesses.pop(node.uid, None)
        if self._on_screen.pop(node.uid, None) is not None:
            self.on_screen_changed.emit()
        if node is self._scroll_to:
            self._scroll_to = None
        for child in self.board.children(node):
            self._forget(child)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """A built widget's layout changed (a command got its height): re-place after it."""
        if event.type() == QEvent.Type.LayoutRequest:
            if isinstance(watched, RowCard | GroupWidget):
                self._unmeasured.add(_node_of(watched).uid)
            if not self._placing:
                self._post_flush()
        return False

    def _current_anchor(self) -> tuple[int, int] | None:
        """Where the item to keep still was placed: under the pointer, else selected, else first."""
        if not self.isVisible():
            return None
        view_h = self.viewport().height()
        placed = [
            (uid, w.y())
            for uid, w in self._widgets.items()
            if w.isVisible() and self.board.node(uid) is not None and -w.height() < w.y() < view_h
        ]
        if not placed:
            return None
        if pointer_over(self.viewport()):
            at = self.viewport().mapFromGlobal(QCursor.pos())
            for uid, y in placed:
                if self._widgets[uid].geometry().contains(at):
                    return (uid, y)
        selected = self._selected_row
        for uid, y in placed:
            if selected is not None and uid == selected.uid:
                return (uid, y)
        return min(placed, key=lambda item: (item[1] < 0, abs(item[1])))

    def _post_flush(self) -> None:
        if not self._flush_posted:
            self._flush_posted = True
            self._flush_due.emit()

    def flush(self, *, overscan: bool = False) -> None:
        self._flush_posted = False
        self.empty.setVisible(not self.board.gateways)
        if not self._live:
            return  # hidden: nothing to place (flattening waits for the next show)
        self._ensure_items()
        scroll_to, self._scroll_to = self._scroll_to, None
        with_heading, self._heading_too = self._heading_too, False
        self._place(scroll_to=scroll_to, with_heading=with_heading, overscan=overscan)

    def resizeEvent(self, event: QResizeEvent) -> None:
        """A new width changes every height: measure the built ones again and re-place."""
        super().resizeEvent(event)
        self.empty.setGeometry(0, 0, self.viewport().width(), 120)
        if event.oldSize().width() != event.size().width():
            keep = set(self._widgets)
            self._heights = {uid: h for uid, h in self._heights.items() if uid in keep}
            self._unmeasured |= keep
        self._place()

    def leaveEvent(self, event: QEvent) -> None:
        """The pointer left: reserved space may be given back now."""
        super().leaveEvent(event)
        self._unmeasured |= set(self._widgets)
        self._post_flush()

    def _ensure_items(self) -> None:
        if not self._structure_dirty:
            return
        self._structure_dirty = False
        self._items = list(_flatten(self.board.gateways))
        self._index = {node.uid: i for i, node in enumerate(self._items)}
        self._recompute_tops()

    def _recompute_tops(self) -> None:
        tops, y = [], MARGIN
        heights, guesses = self._heights, self._guesses
        for node in self._items:
            tops.append(y)
            height = heights.get(node.uid) or guesses.get(node.uid)
            if height is None:  # guessed once: a row's guess reads its command (~0.1 ms a pass)
                height = guesses[node.uid] = _estimate(node)
            y += height + GAP
        self._tops = tops
        self._content_height = y - GAP + MARGIN if self._items else 0

    def _width_for(self, node: Node) -> int:
        return max(120, self.viewport().width() - 2 * MARGIN - _INDENT[type(node)])

    def _measure(self, node: Node, widget: QWidget) -> bool:
        """Store the widget's height for the current width; True if it changed."""
        width = self._width_for(node)
        if widget.width() != width:
            widget.resize(width, max(1, widget.height()))
        layout = widget.layout()
        if layout is not None:
            layout.activate()
        # Not the size hint as well: a wrapped label's hint is laid out at a guessed width and
        # is lines taller than the text at this one (empty space under every heading).
        if widget.hasHeightForWidth():
            height = widget.heightForWidth(width)
        else:
            height = widget.sizeHint().height()
        least = widget.minimumSizeHint()
        height = max(height, least.height())
        self._widest = max(self._widest, least.width() + _INDENT[type(node)])
        old = self._heights.get(node.uid)
        if old is not None and height < old and pointer_over(self.viewport()):
            height = old  # reserve the space while the pointer is here (nothing moves under it)
        if old == height:
            return False
        self._heights[node.uid] = height
        return True

    def _visible_range(self, top: int, bottom: int) -> range:
        first = max(0, bisect.bisect_right(self._tops, top) - 1)
        last = bisect.bisect_right(self._tops, bottom)
        return range(first, min(last, len(self._items)))

    def _place(
        self,
        *,
        scroll_to: RowEntry | None = None,
        with_heading: bool = False,
        scrolled: bool = False,
        overscan: bool = False,  # build the margin too
    ) -> None:
        if not self._live or self._placing:
            return
        # Scrolling moves everything on purpose; any other re-placement keeps one item still.
        anchor = None if scroll_to is not None or scrolled else self._current_anchor()
        self._ensure_items()
        self._placing = True
        try:
            bar = self.verticalScrollBar()
            view_h = self.viewport().height()
            resized = True  # the first pass always lays out (the structure may have changed)
            for _ in range(4):  # building corrects estimates; a few passes settle it
                dirty, self._unmeasured = self._unmeasured, set()
                for uid in dirty:  # all built: dropping a widget forgets it
                    widget = self._widgets[uid]
                    resized |= self._measure(_node_of(widget), widget)
                if resized:
                    self._recompute_tops()
                resized = False
                bar.setRange(0, max(0, self._content_height - view_h))
                bar.setPageStep(max(1, view_h))
                bar.setSingleStep(_LINE * 3)
                if anchor is not None and anchor[0] in self._index:
                    bar.setValue(self._tops[self._index[anchor[0]]] - anchor[1])
                elif scroll_to is not None and scroll_to.uid in self._index:
                    self._scroll_into_view(scroll_to, with_heading)
                value = bar.value()
                wanted = self._visible_range(value - OVERSCAN, value + view_h + OVERSCAN)
                on_screen = self._visible_range(value, value + view_h)
                keep = {self._items[i].uid for i in wanted}
                if self._selected_row is not None:
                    keep.add(self._selected_row.uid)
                for uid in [u for u in self._widgets if u not in keep]:
                    self._drop(uid)  # first: the rows built next may take its widget
                changed = False
                for i in wanted if overscan else on_screen:
                    node = self._items[i]
                    if node.uid not in self._widgets:
                        self._build(node, grow=not overscan)  # measured in the next pass
                        changed = True
                if not changed:
                    break
            if not overscan and any(self._items[i].uid not in self._widgets for i in wanted):
                self._overscan_timer.start()  # the margin waits until the screen is painted
            self._trim_spares()
            self._keep_buttons_whole()
            self._position_widgets(value, view_h)
            # Qt posts each widget it shows (a card, a button a refresh showed) a repaint for
            # after this turn's frame: taken now, the frame paints it, and only it (~2 ms a row).
            QCoreApplication.sendPostedEvents(None, QEvent.Type.UpdateLater)
            self._name_after_selection()
        finally:
            self._placing = False

    def _name_after_selection(self) -> None:
        """Name the list (which keeps the focus) after its selected card, for screen readers."""
        row = self._selected_row
        card = self.card(row) if row is not None else None
        name = card.spoken() if card is not None else "Approvals"
        if not self.board.gateways:
            name = self.empty.text()
        if name != self.accessibleName():
            self.setAccessibleName(name)

    def _keep_buttons_whole(self) -> None:
        """Grow to fit the widest item built; items placed by hand cannot widen the dialog."""
        bar = self.verticalScrollBar().sizeHint().width()
        wanted = min(WIDEST_MINIMUM, self._widest + 2 * MARGIN + bar)
        if wanted > self.minimumWidth():
            self.setMinimumWidth(wanted)

    def _scroll_into_view(self, row: RowEntry, with_heading: bool) -> None:
        bar = self.verticalScrollBar()
        view_h = self.viewport().height()
        i = self._index[row.uid]
        top, height = self._tops[i], self._heights.get(row.uid) or _estimate(row)
        if with_heading:  # its session's heading if both fit, else at least its batch's header
            session = row.batch.session
            first = session.gateway.sessions[0] is session  # right under its gateway's heading
            headings: list[Node] = [session.gateway] if first else []
            for heading in [*headings, session, row.batch]:
                heading_top = self._tops[self._index[heading.uid]]
                if top + height - heading_top + MARGIN <= view_h:
                    bar.setValue(heading_top - MARGIN)
                    return
        if top - MARGIN < bar.value():
            bar.setValue(top - MARGIN)
        elif top + height + MARGIN > bar.value() + view_h:
            bar.setValue(min(top - MARGIN, top + height + MARGIN - view_h))

    def _position_widgets(self, value: int, view_h: int) -> None:
        now = self._clock() if self.isVisible() else None
        seen_before = set(self._on_screen)
        for uid, widget in self._widgets.items():
            i = self._index[uid]  # every built widget shows a node of the board
            node = self._items[i]
            y = self._tops[i] - value
            height = self._heights.get(uid) or _estimate(node)
            widget.setGeometry(MARGIN + _INDENT[type(node)], y, self._width_for(node), height)
            if not widget.isVisible():
                widget.show()
            if isinstance(node, RowEntry) and now is not None and head_on_screen(y, height, view_h):
                self._on_screen.setdefault(uid, now)
            else:
                self._on_screen.pop(uid, None)
        for uid in [u for u in self._on_screen if u not in self._widgets]:
            del self._on_screen[uid]
        if set(self._on_screen) != seen_before:
            self.on_screen_changed.emit()

    def item_widget_at(self, point: QPoint) -> QWidget | None:
        """The deepest widget at ``point`` (viewport coordinates)."""
        for widget in self._widgets.values():
            if widget.isVisible() and widget.geometry().contains(point):
                inner = widget.childAt(point - widget.pos())
                return inner or widget
        return None


def pointer_over(widget: QWidget) -> bool:
    """The pointer rests on ``widget`` (or one of its children)."""
    if not widget.underMouse():
        return False
    # Qt's flag can outlive the pointer (a synthetic click, a moved window).
    return not widget.isVisible() or widget.rect().contains(widget.mapFromGlobal(QCursor.pos()))


def _node_of(widget: Card) -> Node:
    return widget.entry if isinstance(widget, RowCard) else widget.group


def _flatten(gateways: list[GatewayGroup]) -> Iterator[Node]:
    for g in gateways:
        yield g
        for s in g.sessions:
            yield s
            for b in s.batches:
                yield b
                yield from b.rows


def _estimate(node: Node) -> int:
    if isinstance(node, RowEntry):
        lines = node.approval.command.count("\n", 0, 4000) + 1
        return _ROW_BASE + _LINE * min(lines, 10)
    return _ESTIMATE[type(node)]
