"""Assess one command: walk its syntax tree and apply the rule table to every part of it.

The tree, not the text: ``rm -rf`` inside ``$( )``, behind ``sudo`` or in a here-doc fed to
``sh`` is just as dangerous, and ``echo 'rm -rf /'`` is not; nested scripts are read again, a
few levels deep. Past any bound (:data:`LIMIT`, :data:`NODE_BUDGET`, :data:`COMMAND_BUDGET`) the
command is HIGH with a finding that says so: unread text may hide anything (the last few
thousand characters are read too, so padding cannot hide the end).
"""

from __future__ import annotations

import functools
import itertools
import posixpath
import re
import unicodedata
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from typing import TypeVar

from tree_sitter import Node

from desktop.core.text_safety import is_hidden, lookalike_words, reveal

from . import rules as table
from .places import Target, Where, is_system, locate, normal_path, project_folder, regenerable
from .rules import OPAQUE_RULES, Command, Feeds, Pipe, Redirect, RiskLevel, Rule, Sql, Text, Writes
from .shell import (
    SUBSTITUTIONS,
    Word,
    assign,
    parse,
    simple_command,
    text_of,
    word_value,
)

LIMIT = 64_000  # characters read; the rest is "too long to check in full"
NODE_BUDGET = 20_000  # tree nodes visited, nested scripts included
COMMAND_BUDGET = 1_000  # simple commands matched against the table
MAX_DEPTH = 4  # nested scripts: sh -c '… sh -c "…"'
MAX_FINDINGS = 64
_MAX_UNREADABLE = 8

# Lone surrogates (possible in JSON strings) become U+FFFD for the parser: both are three
# bytes in UTF-8, so offsets stay the same, and the hidden-character rule still sees them.
_SURROGATES = re.compile("[\ud800-\udfff]")
_ASCII_HIDDEN = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]+")
_WRITE_OPERATORS = frozenset({">", ">>", ">|", "&>", "&>>", ">&", "<>", "&>|"})
_SHORT_FLAGS = re.compile(r"-([A-Za-z]+)")
_DELETES = frozenset({"recursive-delete", "delete-files"})
_IN_FOLDER = frozenset({Where.REGENERABLE, Where.INSIDE, Where.WHOLE_FOLDER})
_FIND_NAME_TESTS = frozenset({"-name", "-iname", "-path", "-ipath", "-wholename"})
_EXEC_ENDS = frozenset({"+", ";", "\\;"})  # the end of `find … -exec rm {} +`
_M = TypeVar("_M")


@dataclass(frozen=True, slots=True)
class RiskFinding:
    start: int  # character offsets into the command as sent, not into ``reveal(command)``
    end: int
    level: RiskLevel
    rule: str  # rule id from the table in desktop.risk.rules, e.g. "recursive-delete"
    label: str  # plain words for a person: "deletes folders recursively"


@dataclass(frozen=True, slots=True)
class RiskAssessment:
    level: RiskLevel  # the max over findings; HIGH when the parser could not read it
    findings: tuple[RiskFinding, ...]
    # One plain line, e.g. "deletes 3 folders under /srv/www". Text from the command in it is
    # revealed already (hidden characters as ⟨U+XXXX⟩): bound it, do not reveal it again.
    summary: str
    parsed: bool  # False: "could not be read" (then level is HIGH and summary says so)

    @property
    def opaque(self) -> bool:
        """The lens could not read all it would run: never approve it without the dialog."""
        return not self.parsed or any(f.rule in OPAQUE_RULES for f in self.findings)


def _rows(kind: type[_M]) -> tuple[tuple[Rule, _M], ...]:
    return tuple((row, m) for row in table.RULES for m in row.matches if isinstance(m, kind))


_TEXT_RULES = tuple((row, re.compile(m.pattern)) for row, m in _rows(Text))
_SQL_RULES = tuple(
    (row, re.compile(m.pattern, re.IGNORECASE | re.MULTILINE)) for row, m in _rows(Sql)
)
_NAMED: tuple[tuple[Rule, Command | Writes], ...] = (*_rows(Command), *_rows(Writes))
_RULES_BY_NAME = {  # one lookup per command word
    name: [(row, m) for row, m in _NAMED if name in m.names]
    for name in frozenset().union(*(m.names for _, m in _NAMED))
}
_FEEDS, _PIPES, _REDIRECTS = _rows(Feeds), _rows(Pipe), _rows(Redirect)


@dataclass(frozen=True, slots=True)
class _Place:
    """How offsets of a nested script map back into the top-level source (bytes)."""

    base: int | None  # exact: nested offset + base; None: everything maps to ``span``
    span: tuple[int, int]

    def map(self, start: int, end: int) -> tuple[int, int]:
        if self.base is None:
            return self.span
        return self.base + start, self.base + end

    def inner(self, source: bytes, word_start: int, word_end: int, value: str) -> _Place:
        """The place of a word's value, exact when the value is written literally there."""
        start, end = self.map(word_start, word_end)
        if self.base is None:
            return self
        raw = source[word_start:word_end]
        encoded = value.encode("utf-8", "replace")
        if raw == encoded:
            return _Place(start, (start, end))
        if raw[1:-1] == encoded:
            return _Place(start + 1, (start, end))
        return _Place(None, (start, end))


# Layers: a command with its wrappers peeled off one by one


def _name(word: Word) -> str | None:
    return None if word.value is None else word.value.rsplit("/", 1)[-1]


def _layers(words: tuple[Word, ...]) -> list[tuple[Word, ...]]:
    """``sudo -u x env A=1 rm -rf d`` → [sudo …, env …, rm -rf d]; each layer is matched."""
    out: list[tuple[Word, ...]] = []
    rest = words
    while rest:
        out.append(rest)
        name = _name(rest[0])
        wrapper = table.WRAPPERS.get(name or "")
        if wrapper is None:
            break
        i = 1
        while i < len(rest):
            value = rest[i].value or ""
            if value == "--":
                i += 1
                break
            if name == "command" and value in {"-v", "-V"}:
                return out  # "command -v rm" asks where rm is; it runs nothing
            if value.startswith("-") and len(value) > 1:
                i += 2 if value in wrapper.valued else 1
                continue
            if name in {"env", "sudo"} and "=" in value and not value.startswith("="):
                i += 1
                continue
            break
        rest = rest[i + wrapper.positionals :]
    return out


def _has_flags(layer: tuple[Word, ...], groups: tuple[tuple[str, ...], ...]) -> bool:
    """Each group has one of its flags before ``--`` (``-r`` in ``-rf``, ``--force=…``)."""
    values = (w.value for w in layer[1:] if w.value is not None)
    options = list(itertools.takewhile(lambda value: value != "--", values))
    return all(any(_is_flag(o, alt) for o in options for alt in group) for group in groups)


def _is_flag(option: str, flag: str) -> bool:
    if flag.startswith("--") or len(flag) > 2:
        return option == flag or option.startswith(flag + "=")
    letters = _SHORT_FLAGS.match(option)
    return letters is not None and flag[1] in letters.group(1)


def _positionals(layer: tuple[Word, ...], valued: frozenset[str] = frozenset()) -> list[Word]:
    """The words that are no options (nor the values of ``valued`` ones); all after ``--``."""
    out: list[Word] = []
    words = iter(layer[1:])
    for w in words:
        if w.value == "--":
            out.extend(words)
        elif w.value is not None and w.value.startswith("-") and len(w.value) > 1:
            if w.value in valued:
                next(words, None)
        else:
            out.append(w)
    return out


def _path_classes(value: str) -> set[str]:
    if value in table.SAFE_DEVICES or value.startswith("/dev/fd/"):
        return set()
    hits = {
        table.DISK: table.DISK_DEVICE.fullmatch(value),
        table.SYSTEM: value.startswith("/") and is_system(normal_path(value)),
        table.STARTUP: table.STARTUP_FILES.fullmatch(value),
    }
    return {path_class for path_class, hit in hits.items() if hit}


# The walk


class _Reader:
    def __init__(self, cwd: str) -> None:
        self.found: list[tuple[int, int, Rule]] = []  # offsets in the top-level source's bytes
        self.deleted: list[Target] = []
        self.visited = self.commands = self.unreadable = 0
        self.over_budget = False
        # The folder commands run in: the task's, then wherever a plain `cd /srv/www` moved
        # to, so relative paths resolve (`cd /etc && echo x > hosts`); "" once unknown.
        # Subshell scopes are ignored: that reads more, never less.
        self.cwd = self.start = posixpath.normpath(cwd) if cwd.startswith("/") else ""
        self.folder = project_folder(cwd)  # where a deletion may be contained, if anywhere
        self.remote = False  # reading a script another machine runs (ssh host '…')
        self.find_targets: list[Target] = []  # what `find … -exec rm {}` hands to rm
        self.piped: dict[Node, list[Target]] = {}  # `find … | xargs rm`: what find lists
        self.source = b""
        self.place = _Place(0, (0, 0))
        self.depth = -1
        self.variables: dict[str, str] = {}

    def read(self, source: bytes, place: _Place) -> None:
        saved = self.source, self.place, self.depth, self.variables
        self.source, self.place, self.depth, self.variables = source, place, self.depth + 1, {}
        try:
            self._walk(parse(source).root_node)
        finally:
            self.source, self.place, self.depth, self.variables = saved

    def _walk(self, root: Node) -> None:
        stack = [root]
        while stack:
            node = stack.pop()
            self.visited += 1
            if self.visited > NODE_BUDGET:
                self.over_budget = True
            if self.over_budget:
                return
            kind = node.type
            if kind == "ERROR" or node.is_missing:
                self._unreadable(node)
            elif kind == "command":
                self._command(node)
            elif kind == "pipeline":
                self._pipeline(node)
            elif kind == "variable_assignment" and (
                node.parent is None or node.parent.type != "command"
            ):
                assign(node, self.variables)
            elif kind == "file_redirect":
                self._redirect(node)
            elif kind == "redirected_statement":
                body = node.child_by_field_name("body")
                if body is not None and body.type == "command":
                    for child in node.named_children:
                        if child.type in {"heredoc_redirect", "herestring_redirect"}:
                            self._fed_text(body, child)
            stack.extend(reversed(node.children))

    def add(self, start: int, end: int, row: Rule, place: _Place | None = None) -> None:
        self.found.append((*(place or self.place).map(start, end), row))
        if len(self.found) > 4 * MAX_FINDINGS:
            self.over_budget = True  # hostile: hundreds of risky parts; stop reading

    def _mark(self, word: Word, rule_id: str) -> None:
        self.add(word.start, word.end, table.rule(rule_id))

    def _inner(self, word: Word) -> _Place:
        """Where a word's value lies, for reading it as SQL or as a script."""
        return self.place.inner(self.source, word.start, word.end, word.value or "")

    def resolve(self, path: str) -> str:
        if self.cwd and path and not path.startswith(("/", "~", "$")):
            return posixpath.join(self.cwd, path)
        return path

    def _change_folder(self, layer: tuple[Word, ...]) -> None:
        targets = _positionals(layer)
        value = targets[0].value if len(targets) == 1 else None
        if value and (value.startswith("/") or self.cwd):
            self.cwd = posixpath.normpath(self.resolve(value))
        else:
            self.cwd = ""  # home, "-", or a folder only known when it runs

    # --- pieces

    def _unreadable(self, node: Node) -> None:
        self.unreadable += 1
        if self.unreadable <= _MAX_UNREADABLE:
            end = max(node.end_byte, node.start_byte + 1)
            self.add(node.start_byte, end, table.rule("unreadable"))

    def _command(self, node: Node) -> None:
        self.commands += 1
        if self.commands > COMMAND_BUDGET:
            self.over_budget = True
            return
        words = simple_command(node, self.variables)
        if not words:
            return
        self.find_targets = self.piped.pop(node, [])
        try:
            self._layers_of(node.end_byte, words)
        finally:
            self.find_targets = []
        for child in node.named_children:
            if child.type == "herestring_redirect":
                self._fed_text(node, child)

    def _layers_of(self, end: int, words: tuple[Word, ...]) -> None:
        """Each layer of one simple command (which ends at byte ``end``), as the table says."""
        for layer in _layers(words):
            head = layer[0]
            name = _name(head)
            if name is None:
                hidden = any(c.type in SUBSTITUTIONS for c in _descendants(head.node, 200))
                self._mark(head, "disguised-command" if hidden else "dynamic-command")
                continue
            if any(c.isalpha() and not c.isascii() for c in name):  # real commands are ASCII
                self._mark(head, "look-alike-letters")
            if self._match_layer(layer, name, end) and head.disguised:
                self._mark(head, "disguised-command")
            self._feeds(layer, name, end)
            if name in table.SQL_CLIENTS:
                self._sql_words(layer[1:])
            self._nested(layer, name)
            if name == "find":
                self._find_exec(end, layer)
            elif name in {"cd", "pushd"}:
                self._change_folder(layer)

    def _match_layer(self, layer: tuple[Word, ...], name: str, end: int) -> bool:
        matched: list[tuple[Rule, tuple[int, int]]] = []
        for row, spec in _RULES_BY_NAME.get(name, ()):
            if isinstance(spec, Command):
                span = self._command_rule(spec, layer, name, end)
            else:
                span = self._writes(spec, layer)
            if span is not None:
                matched.append((row, span))
        ids = {row.id for row, _ in matched}
        for row, (start, stop) in matched:
            if not any(other in ids for other in row.unless):
                self.add(start, stop, self._graded(row, name, layer))
        return bool(matched)

    def _graded(self, row: Rule, name: str, layer: tuple[Word, ...]) -> Rule:
        """By where the targets lie: ``chown -R ann build`` is work on the task, ``~`` is not."""
        if row.id in {"recursive-chown", "recursive-chmod"}:
            words = _positionals(layer)
            by_reference = any((w.value or "").startswith("--reference") for w in layer)
            changed = self._targets(words if by_reference else words[1:])  # after owner/mode
            worst = max((t.where for t in changed), default=Where.UNKNOWN)
            if row.id == "recursive-chown" and worst in _IN_FOLDER | {Where.TEMPORARY}:
                return table.rule("ownership-change")
            if row.id == "recursive-chmod" and worst in {Where.SYSTEM, Where.HOME, Where.ROOT}:
                return table.rule("system-chmod")
            return row
        if row.id not in _DELETES:
            return row
        targets = self._find_roots(layer) if name == "find" else self._targets(_positionals(layer))
        self.deleted.extend(targets)
        worst = max((t.where for t in targets), default=Where.UNKNOWN)
        recursive = row.id == "recursive-delete"
        if worst is Where.REGENERABLE:
            return table.rule("delete-regenerable")
        if worst is Where.INSIDE or (worst is Where.WHOLE_FOLDER and not recursive):
            return table.rule("delete-in-folder")
        if worst is Where.TEMPORARY:
            return table.rule("delete-temporary")
        if not recursive and worst in (Where.SYSTEM, Where.ROOT):
            return table.rule("system-delete")
        return row

    def _targets(self, words: list[Word]) -> list[Target]:
        """Where the paths a command is given lie (``{}`` and ``xargs``: what find lists)."""
        if not words and self.find_targets:  # `find … | xargs rm`
            return list(self.find_targets)
        targets: list[Target] = []
        for w in words:
            if w.value in _EXEC_ENDS:
                continue
            if w.value == "{}" and self.find_targets:
                targets.extend(self.find_targets)
            else:
                targets.append(self._locate(w.value))
        return targets

    def _find_roots(self, layer: tuple[Word, ...]) -> list[Target]:
        """``find ROOTS EXPRESSION -delete``: the roots, narrowed by name tests agents use."""
        words = [w.value for w in layer[1:]]
        roots: list[str | None] = []
        for value in words:
            if value is None or value.startswith(("-", "(", "!")):
                break
            roots.append(value)
        filters = [words[i + 1] or "" for i, v in enumerate(words[:-1]) if v in _FIND_NAME_TESTS]
        empty_only = "-empty" in words
        targets: list[Target] = []
        for root in roots or ["."]:
            target = self._locate(root)
            if target.where in _IN_FOLDER and (filters or empty_only):
                named = " or ".join(filters) or "empty folders"
                path = named if root in {".", "./"} else f"{named} under {target.path}"
                whys = [next(filter(None, map(regenerable, f.split("/"))), "") for f in filters]
                if empty_only:
                    target = Target(path, Where.REGENERABLE, "empty: nothing is lost")
                elif all(whys) or target.where is Where.REGENERABLE:
                    target = Target(path, Where.REGENERABLE, whys[0] or target.why)
                else:
                    target = Target(path, Where.INSIDE)
            targets.append(target)
        return targets

    def _locate(self, value: str | None) -> Target:
        if value is None:
            return locate(None, None)
        resolved = self.resolve(value)
        folder = self.folder if self.cwd else None
        shown = value if self.cwd == self.start else resolved  # after a `cd`, say where
        return replace(locate(resolved, folder, remote=self.remote), path=shown)

    @staticmethod
    def _command_rule(
        spec: Command, layer: tuple[Word, ...], name: str, end: int
    ) -> tuple[int, int] | None:
        """What a matching row marks: the matched argument or the whole command; else None."""
        whole = layer[0].start, max(end, layer[-1].end)
        if spec.sub:
            valued = table.GIT_VALUED if name == "git" else frozenset()
            positional = [w.value for w in _positionals(layer, valued)]
            if positional[: len(spec.sub)] != list(spec.sub):
                return None
        if not _has_flags(layer, spec.flags):
            return None
        if spec.arg:
            skip = len(spec.sub)
            for w in layer[1:]:
                if w.value is None:
                    continue
                if skip and not w.value.startswith("-"):
                    skip -= 1
                    continue
                if re.fullmatch(spec.arg, w.value):
                    return (w.start, w.end) if spec.mark == "arg" else whole
            return None
        return whole

    def _writes(self, spec: Writes, layer: tuple[Word, ...]) -> tuple[int, int] | None:
        if not _has_flags(layer, spec.flags):
            return None
        if spec.targets == "of=":
            paths = [(w, w.value[3:]) for w in layer[1:] if w.value and w.value.startswith("of=")]
        else:
            positional = _positionals(layer)
            if spec.targets == "last":
                positional = positional[-1:] if len(positional) > 1 else []
            paths = [(w, w.value) for w in positional if w.value is not None]
        hits = (w for w, path in paths if spec.paths in _path_classes(self.resolve(path)))
        return next(((w.start, w.end) for w in hits), None)

    def _feeds(self, layer: tuple[Word, ...], name: str, end: int) -> None:
        for row, spec in _FEEDS:
            if name in spec.consumers and any(
                self._runs_producer(w.node, spec.producers) for w in layer[1:]
            ):
                self.add(layer[0].start, end, row)
                return

    @staticmethod
    def _runs_producer(node: Node, producers: frozenset[str]) -> bool:
        """Some command in a ``$( )``, backticks or ``<( )`` of this word runs a producer."""
        for inner in _descendants(node, 400):
            if inner.type == "command" and _substituted(inner, node):
                words = simple_command(inner, {})
                if any(_name(layer[0]) in producers for layer in _layers(words)):
                    return True
        return False

    def _sql_words(self, words: Iterable[Word]) -> None:
        for w in words:
            if w.value is not None:
                self._sql_text(w.value, self._inner(w))

    def _sql_text(self, text: str, place: _Place) -> None:
        def byte(index: int) -> int:
            return index if text.isascii() else len(text[:index].encode("utf-8", "replace"))

        for row, pattern in _SQL_RULES:
            for match in itertools.islice(pattern.finditer(text), 8):
                self.add(byte(match.start()), byte(match.end()), row, place)

    def _nested(self, layer: tuple[Word, ...], name: str) -> None:
        """Scripts inside words: ``sh -c '…'``, ``su -c '…'``, ``eval …``, ``ssh host …``."""
        if self.depth >= MAX_DEPTH:
            return
        script: list[Word] = []
        if name in table.SHELLS or name == "su":
            for i, w in enumerate(layer[1:], start=1):
                letters = _SHORT_FLAGS.fullmatch(w.value or "")
                if letters and "c" in letters.group(1):  # -c, also inside -lc, -ec
                    script = list(layer[i + 1 : i + 2])
                    break
        elif name == "eval":
            script = list(layer[1:])
        elif name in {"ssh", "watch"}:
            rest = _positionals(layer, table.SSH_VALUED if name == "ssh" else frozenset())
            script = rest[1:] if name == "ssh" else rest
        if not script or any(w.value is None for w in script):
            return
        if name != "ssh":
            self._script(script)  # a `cd` in it carries on: that reads more, never less
            return
        saved = self.cwd, self.remote
        self.cwd, self.remote = "", True  # another machine: no folder of ours is there
        try:
            self._script(script)
        finally:
            self.cwd, self.remote = saved

    def _script(self, script: list[Word]) -> None:
        if len(script) == 1:
            self.read((script[0].value or "").encode("utf-8", "replace"), self._inner(script[0]))
        else:
            value = " ".join(w.value or "" for w in script)
            span = self.place.map(script[0].start, script[-1].end)
            self.read(value.encode("utf-8", "replace"), _Place(None, span))

    def _find_exec(self, end: int, layer: tuple[Word, ...]) -> None:
        words = layer[1:]
        for i, w in enumerate(words):
            if w.value in table.FIND_EXEC:
                rest = words[i + 1 :]
                inner = tuple(itertools.takewhile(lambda x: x.value not in _EXEC_ENDS, rest))
                if inner:
                    self.find_targets = self._find_roots(layer)
                    try:
                        self._layers_of(end, inner)
                    finally:
                        self.find_targets = []

    def _pipeline(self, node: Node) -> None:
        stages: list[tuple[Node, list[tuple[Word, ...]]]] = []
        for child in node.named_children:
            body = child.child_by_field_name("body")
            inner = body if child.type == "redirected_statement" and body is not None else child
            words = simple_command(inner, self.variables) if inner.type == "command" else ()
            layers = _layers(words)
            if layers and _name(layers[0][0]) == "xargs":  # `find … | xargs rm`
                finds = [f for _, found in stages for f in found if _name(f[0]) == "find"]
                if finds:
                    self.piped[inner] = self._find_roots(finds[-1])
            stages.append((child, layers))
        for row, spec in _PIPES:
            flags = {name: (alternatives,) for name, alternatives in spec.producer_flags}
            for i, (first, layers) in enumerate(stages):
                if not any(
                    _name(layer[0]) in spec.producers
                    and _has_flags(layer, flags.get(_name(layer[0]) or "", ()))
                    for layer in layers
                ):
                    continue
                for last, later in stages[i + 1 :]:
                    if any(_name(layer[0]) in spec.consumers for layer in later):
                        self.add(first.start_byte, last.end_byte, row)
                        break
        for i, (_, layers) in enumerate(stages):
            names = {_name(layer[0]) for layer in layers}
            fed = [layer for _, earlier in stages[:i] for layer in earlier[-1:]]
            if names & table.SQL_CLIENTS:  # `echo "DROP TABLE t" | psql`
                self._sql_words(w for layer in fed for w in layer[1:])
            if i == 0 or not names & table.SHELLS or self.depth >= MAX_DEPTH:
                continue
            for layer in stages[i - 1][1][-1:]:  # `echo 'rm -rf ~' | sh`: a script
                printed = [w for w in layer[1:] if not (w.value or "").startswith("-")]
                known = printed and all(w.value is not None for w in printed)
                if _name(layer[0]) in table.PRINTERS and known:
                    self._script(printed)

    def _redirect(self, node: Node) -> None:
        operator = next((text_of(c) for c in node.children if not c.is_named), "")
        destination = node.child_by_field_name("destination")
        if operator not in _WRITE_OPERATORS or destination is None or destination.type == "number":
            return
        value = word_value(destination, self.variables)[0]
        classes = set() if value is None else _path_classes(self.resolve(value))
        for row, spec in _REDIRECTS:
            if spec.paths in classes:
                self.add(node.start_byte, node.end_byte, row)

    def _fed_text(self, body: Node, redirect: Node) -> None:
        """Here-docs and here-strings: SQL for a database client, a script for a shell."""
        words = simple_command(body, self.variables)
        names = {_name(layer[0]) for layer in _layers(words)}
        if not names & (table.SQL_CLIENTS | table.SHELLS):
            return
        if redirect.type == "heredoc_redirect":
            text_node = next((c for c in redirect.named_children if c.type == "heredoc_body"), None)
            if text_node is None:
                return
            start, end = text_node.start_byte, text_node.end_byte
            text = self.source[start:end].decode("utf-8", "replace")
        else:
            target = redirect.named_children[-1] if redirect.named_children else None
            value = None if target is None else word_value(target, self.variables)[0]
            if target is None or value is None:
                return
            start, end, text = target.start_byte, target.end_byte, value
        exact = self.place.inner(self.source, start, end, text)
        if names & table.SQL_CLIENTS:
            self._sql_text(text, exact)
        if names & table.SHELLS and self.depth < MAX_DEPTH:
            self.read(text.encode("utf-8", "replace"), exact)


def _descendants(node: Node, budget: int) -> Iterator[Node]:
    stack = [node]
    while stack and budget > 0:
        budget -= 1
        current = stack.pop()
        yield current
        stack.extend(reversed(current.children))


def _substituted(node: Node, word: Node) -> bool:
    """``node`` lies inside a substitution within ``word`` (``word`` itself included)."""
    current = node.parent
    while current is not None and current != word and current.type not in SUBSTITUTIONS:
        current = current.parent
    return current is not None and current.type in SUBSTITUTIONS


# Offsets, text rules, hidden characters, summary


def _hidden_runs(command: str) -> Iterator[tuple[int, int]]:
    if command.isascii():
        yield from (match.span() for match in _ASCII_HIDDEN.finditer(command))
        return
    at = 0
    for hidden, run in itertools.groupby(command, is_hidden):
        end = at + sum(1 for _ in run)
        if hidden:
            yield at, end
        at = end


def _lookalike_line(command: str, findings: list[RiskFinding]) -> str:
    """Name each look-alike letter: a person cannot see that Cyrillic dze is not ``s``."""
    letters: dict[str, None] = {}
    for f in findings:
        if f.rule == "look-alike-letters":
            letters.update(dict.fromkeys(c for c in command[f.start : f.end] if not c.isascii()))
    named = [f"{c} is {unicodedata.name(c, f'U+{ord(c):04X}')}" for c in letters if c.isalpha()]
    shown = "; ".join(named[:3]) + ("; …" if len(named) > 3 else "")
    return f"look-alike letters: {shown}" if shown else table.rule("look-alike-letters").label


def _summary(
    command: str,
    findings: list[RiskFinding],
    deleted: list[Target],
    folder: str | None,
    parsed: bool,
    long: bool,
) -> str:
    if long:
        return "too long or too complex to check in full: treat it as dangerous"
    if not parsed:
        return "could not be read as a shell command: treat it as dangerous"
    if not findings:
        return "nothing risky found"
    top = max(f.level for f in findings)
    labels = list(dict.fromkeys(f.label for f in findings if f.level == top))
    graded = {f.rule for f in findings if f.level == top} & table.SAYS_WHERE
    if graded and deleted:
        dropped = {table.rule(rule_id).label for rule_id in table.SAYS_WHERE}
        labels = [_deletes(deleted, folder), *(lb for lb in labels if lb not in dropped)]
    lookalike = table.rule("look-alike-letters").label
    if lookalike in labels:
        labels = [_lookalike_line(command, findings), *(lb for lb in labels if lb != lookalike)]
    first = labels[0]
    others = len(labels) - 1 + len({f.label for f in findings if f.level < top})
    return first if others == 0 else f"{first} (and {others} more)"


_DELETE_LINES = {
    Where.ROOT: "deletes everything on this machine",
    Where.SYSTEM: "deletes {paths}, part of the system",
    Where.REMOTE: "deletes {paths} on another machine",
    Where.WHOLE_FOLDER: "deletes everything in {folder}",
    Where.INSIDE: "deletes {paths} inside {folder}",
    Where.TEMPORARY: "deletes {paths}, a temporary file or folder",
    Where.REGENERABLE: "deletes {paths} inside {folder} — {why}",
}


def _deletes(deleted: list[Target], folder: str | None) -> str:
    """One line on what a delete hits: "deletes build inside shop — rebuilt by the build"."""
    worst = max(t.where for t in deleted)
    hit = [t for t in deleted if t.where is worst]
    paths = list(dict.fromkeys(t.path for t in hit))
    if worst is Where.HOME:
        yours = all(p.startswith(("~", "$HOME", "${HOME}")) for p in paths)
        return "deletes your home folder" if yours else f"deletes the home folder {_listed(paths)}"
    if worst in _DELETE_LINES:
        whys = {t.why for t in hit}
        why = whys.pop() if len(whys) == 1 else "made again by a build or an install"
        name = _short(posixpath.basename(folder)) if folder else "the task's folder"
        return _DELETE_LINES[worst].format(paths=_listed(paths), folder=name, why=why)
    known = [p for p in paths if p != "?"]
    return _deleted_elsewhere(known) if known else "deletes a path only known when it runs"


def _listed(paths: list[str], many: str = "paths") -> str:
    names = [_short(p) for p in paths]
    if len(names) <= 3 and sum(len(n) for n in names) <= 60:
        return names[0] if len(names) == 1 else ", ".join(names[:-1]) + f" and {names[-1]}"
    return f"{len(names)} {many}"


def _deleted_elsewhere(targets: list[str]) -> str:
    """Recursive deletes outside the task's folder: "deletes 3 folders under /srv/www"."""
    if len(targets) == 1:
        return f"deletes {_short(targets[0])} and everything in it"
    stripped = [t.rstrip("/") or "/" for t in targets]
    if all(t.startswith("/") for t in stripped):
        parent = posixpath.commonpath(stripped)
        if parent in stripped:
            parent = posixpath.dirname(parent)
        if parent != "/":
            return f"deletes {len(targets)} folders under {_short(parent)}"
    return f"deletes {_listed(targets, 'folders')} and everything in them"


def _short(text: str) -> str:
    """A target for the one-line summary: revealed, line breaks marked, bounded."""
    shown = reveal(text).replace("\n", "⏎").replace("\t", " ")
    return shown if len(shown) <= 60 else shown[:59] + "…"


def _finding(start: int, end: int, row: Rule) -> RiskFinding:
    return RiskFinding(start, end, row.level, row.id, row.label)


def _read(text: str, char_base: int, cwd: str, *, tail: bool) -> tuple[list[RiskFinding], _Reader]:
    """Findings of one stretch of the command, in character offsets of the whole command."""
    clean = _SURROGATES.sub("\ufffd", text)
    encoded = clean.encode("utf-8")
    reader = _Reader(cwd)
    reader.read(encoded, _Place(0, (0, len(encoded))))

    def chars(byte: int) -> int:  # a byte inside a character counts as that character
        return byte if clean.isascii() else len(encoded[:byte].decode("utf-8", "replace"))

    findings: list[RiskFinding] = []
    for found_start, found_end, row in reader.found:
        if tail and row.id == "unreadable":
            continue  # a tail starts wherever the cut fell; the whole is HIGH anyway
        start = min(chars(found_start), max(len(text) - 1, 0))
        end = min(max(chars(found_end), start + 1), len(text))
        findings.append(_finding(char_base + start, char_base + end, row))
    return findings, reader


def _in_order(f: RiskFinding) -> tuple[int, int, int, str, str]:
    return f.start, -f.level, f.end, f.rule, f.label  # the label too: same in every process


_TAIL = 4_000  # characters read again at the end of a command too long to read whole
_BOUNDARY = re.compile(r"[;\n&|]")


@functools.lru_cache(maxsize=256)
def assess(command: str, cwd: str = "") -> RiskAssessment:
    """The risk of ``command`` run in ``cwd``, the task's folder ("": every target is outside)."""
    long = len(command) > LIMIT
    head = command[:LIMIT]
    findings, run = _read(head, 0, cwd, tail=False)
    deleted = list(run.deleted)
    unread = long or run.over_budget
    if unread and len(command) > _TAIL:
        tail_start = len(command) - _TAIL
        boundary = _BOUNDARY.search(command, tail_start)
        if boundary is not None:
            tail_start = boundary.end()
        tail_findings, tail_run = _read(command[tail_start:], tail_start, cwd, tail=True)
        findings.extend(tail_findings)
        deleted.extend(tail_run.deleted)
    marks: list[tuple[Rule, Iterable[tuple[int, int]], int]] = [
        (row, (m.span() for m in pattern.finditer(head)), 8) for row, pattern in _TEXT_RULES
    ]
    marks.append((table.rule("look-alike-letters"), lookalike_words(head), 16))
    marks.append((table.rule("hidden-characters"), _hidden_runs(command), 16))
    if unread and command:
        marks.append((table.rule("too-long"), [(min(LIMIT, len(command) - 1), len(command))], 1))
    for row, spans, most in marks:
        findings.extend(_finding(start, end, row) for start, end in itertools.islice(spans, most))
    order = sorted(set(findings), key=_in_order)
    first_of_each = {f.rule: f for f in reversed(order)}  # every rule keeps one mark
    kept = sorted(
        set(first_of_each.values()) | set(order[: MAX_FINDINGS - len(first_of_each)]), key=_in_order
    )
    parsed = run.unreadable == 0 and not unread
    level = max((f.level for f in kept), default=RiskLevel.LOW)
    if not parsed:
        level = RiskLevel.HIGH
    summary = _summary(command, kept, deleted, project_folder(cwd), parsed, unread)
    return RiskAssessment(level, tuple(kept), summary, parsed)
