"""The risk rules as data: one row per way a command can be dangerous.

A table, so a reviewer reads every rule, its level and its words in one place, and a broken row
fails its test by id; the lens only interprets the matcher kinds below. A row without matchers
is found by the lens itself (unreadable text, hidden characters, disguised names, graded deletes).
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass


class RiskLevel(enum.IntEnum):
    LOW = 0
    MEDIUM = 1
    HIGH = 2


HIGH = RiskLevel.HIGH
MEDIUM = RiskLevel.MEDIUM
LOW = RiskLevel.LOW


def _names(names: str) -> frozenset[str]:
    return frozenset(names.split())


# Vocabularies the rows share

SHELLS = _names("sh bash zsh dash ksh mksh fish ash busybox")
INTERPRETERS = SHELLS | _names("python python2 python3 perl ruby node php lua pwsh osascript")
FETCHERS = _names("curl wget fetch aria2c http https lwp-request nc")
PRINTERS = _names("echo printf")  # their words piped into a shell are a script
SQL_CLIENTS = _names("psql mysql mariadb sqlite3 sqlcmd duckdb clickhouse-client cqlsh")

# Paths whose change can break or take over the machine: each path and everything below it.
SYSTEM_PATHS = _names(
    "/etc /usr /boot /bin /sbin /lib /lib32 /lib64 /sys /proc /root /var/spool/cron"
    " /Library /System"
)
SAFE_DEVICES = _names("/dev/null /dev/stdout /dev/stderr /dev/stdin /dev/tty /dev/zero")
# Block devices and raw memory: writing there destroys disks or the running system.
DISK_DEVICE = re.compile(
    r"/dev/(?:sd[a-z]+|hd[a-z]+|vd[a-z]+|xvd[a-z]+|nvme\d+\S*|mmcblk\d+\S*|disk\d+\S*|rdisk\d+\S*"
    r"|md\d+|dm-\d+|mapper/\S+|loop\d+|mem|kmem|port)\d*(?:p?\d+)?"
)
STARTUP_FILES = re.compile(
    r"(?:~|\$HOME|\$\{HOME\}|/home/[^/]+|/Users/[^/]+)/"
    r"(?:\.bashrc|\.bash_profile|\.profile|\.zshrc|\.zprofile|\.ssh/authorized_keys|\.ssh/config"
    r"|\.config/autostart/\S+)"
)

# Names (globs) of files and folders a build or an install makes again, and why: deleting them
# inside the task's folder loses nothing (desktop.risk.places). Only names agents really clean.
REGENERABLE: tuple[tuple[str, str], ...] = tuple(
    (name, why)
    for names, why in (
        (
            "build dist out target _build *.egg-info .eggs *.o *.pyc *.pyo *.class htmlcov"
            " coverage .coverage .coverage.* *.tsbuildinfo .next .nuxt .svelte-kit .angular"
            " .output",
            "rebuilt by the build",
        ),
        (
            "__pycache__ .pytest_cache .mypy_cache .ruff_cache .cache .parcel-cache .turbo"
            " .gradle .hypothesis .sass-cache .eslintcache .tox .nox .DS_Store",
            "a cache, made again when needed",
        ),
        (
            "node_modules .venv venv bower_components .pnpm-store __pypackages__",
            "installed again by the package manager",
        ),
    )
    for name in names.split()
)


@dataclass(frozen=True, slots=True)
class Wrapper:
    """A command that runs the rest of its words as another command (``sudo rm …``)."""

    valued: frozenset[str] = frozenset()  # its options that take the next word as a value
    positionals: int = 0  # plain words before the command (``timeout 5 cmd``, ``chroot /x cmd``)


WRAPPERS: dict[str, Wrapper] = {
    "sudo": Wrapper(_names("-u -g -C -D -h -p -r -t -U -T")),
    "doas": Wrapper(_names("-u -C")),
    "pkexec": Wrapper(_names("--user")),
    "run0": Wrapper(_names("-u --user -D --chdir")),
    "gosu": Wrapper(positionals=1),
    "env": Wrapper(_names("-u --unset -C --chdir -S --split-string")),
    "nice": Wrapper(_names("-n --adjustment")),
    "ionice": Wrapper(_names("-c -n -p -P -u")),
    "nohup": Wrapper(),
    "setsid": Wrapper(),
    "time": Wrapper(_names("-f -o")),
    "timeout": Wrapper(_names("-k --kill-after -s --signal"), positionals=1),
    "stdbuf": Wrapper(_names("-i -o -e")),
    "exec": Wrapper(_names("-a")),
    "command": Wrapper(),
    "builtin": Wrapper(),
    "chroot": Wrapper(_names("--userspec --groups"), positionals=1),
    "flock": Wrapper(_names("-w --timeout -E -c"), positionals=1),
    "xargs": Wrapper(_names("-I -i -n -P -d -L -l -s -a -E -e")),
    "watch": Wrapper(_names("-n --interval -d")),
    "strace": Wrapper(_names("-e -o -p -s -u")),
    "unshare": Wrapper(),
    "nsenter": Wrapper(_names("-t --target")),
    "caffeinate": Wrapper(),
}
SSH_VALUED = _names("-p -i -l -o -F -J -L -R -D -b -c -e -E -m -O -Q -S -W -w -B")
GIT_VALUED = _names("-C -c --git-dir --work-tree --namespace")
FIND_EXEC = _names("-exec -execdir -ok -okdir")

# The path classes Redirect and Writes refer to.
SYSTEM, DISK, STARTUP = "system", "disk", "startup"


# Matcher kinds


@dataclass(frozen=True, slots=True)
class Command:
    """One simple command after wrappers (sudo, env, xargs, …) are peeled off, by name.

    ``flags``: every group must be present, a group being alternatives; ``-r`` also matches
    inside ``-rf``, ``--force`` also matches ``--force=…``.
    """

    names: frozenset[str]
    sub: tuple[str, ...] = ()  # the first positional arguments must be these (``git push``)
    flags: tuple[tuple[str, ...], ...] = ()
    arg: str = ""  # some argument must match this regex whole
    mark: str = "command"  # "command" marks the whole command, "arg" only what matched


@dataclass(frozen=True, slots=True)
class Pipe:
    """``producer | … | consumer``; a producer in ``producer_flags`` needs one of its flags."""

    producers: frozenset[str]
    consumers: frozenset[str]
    producer_flags: tuple[tuple[str, tuple[str, ...]], ...] = ()


@dataclass(frozen=True, slots=True)
class Feeds:
    """A consumer with a producer inside its arguments: ``$( )``, backticks, ``<( )``."""

    producers: frozenset[str]
    consumers: frozenset[str]


@dataclass(frozen=True, slots=True)
class Redirect:
    """Output redirected (``>``, ``>>``, ``&>``) into a class of paths."""

    paths: str  # SYSTEM, DISK or STARTUP


@dataclass(frozen=True, slots=True)
class Writes:
    """Commands that write to their target arguments (``tee``, ``cp``, ``dd of=``, ``sed -i``)."""

    names: frozenset[str]
    paths: str  # SYSTEM, DISK or STARTUP
    targets: str = "all"  # "all" positional args, "last" one, or "of=" (dd)
    flags: tuple[tuple[str, ...], ...] = ()


@dataclass(frozen=True, slots=True)
class Sql:
    """SQL text given to a database client (argument, here-doc, here-string, pipe)."""

    pattern: str  # case-insensitive regex over the SQL text


@dataclass(frozen=True, slots=True)
class Text:
    """A pattern anywhere in the raw command (secrets, redaction marks)."""

    pattern: str


Matcher = Command | Pipe | Feeds | Redirect | Writes | Sql | Text


@dataclass(frozen=True, slots=True)
class Rule:
    id: str
    level: RiskLevel
    label: str
    matches: tuple[Matcher, ...] = ()  # (): found by the lens itself
    unless: tuple[str, ...] = ()  # not reported where one of these rules matched the same command


_WORLD_WRITABLE = (
    r"[0-7]?[0-7]{2}[2367]"  # octal: "others" may write (777, 0666, 1777)
    r"|(?:.*,)?[ugo]*a[ugoa]*[+=][rwxXst]*w.*"  # a+w, a=rwx
    r"|(?:.*,)?[ug]*o[ugo]*[+=][rwxXst]*w.*"  # o+w
    r"|(?:.*,)?[+=][rwxXst]*w.*"  # +w: everyone the umask allows
)
_RUNNERS = INTERPRETERS | _names("eval source .")
_IN_PLACE = (("-i", "--in-place"),)
_RECURSIVE = (("-R", "--recursive"),)

# Findings that mean part of the command is not what it seems or not known until it runs.
OPAQUE_RULES = _names(
    "unreadable too-long hidden-characters look-alike-letters disguised-command dynamic-command"
    " eval inline-code redacted"
)
# Delete rules whose summary names the targets and where they lie.
SAYS_WHERE = _names(
    "recursive-delete delete-regenerable delete-in-folder delete-temporary system-delete"
)

RULES: tuple[Rule, ...] = (
    # --- the lens's own findings
    Rule("unreadable", HIGH, "could not be read as a shell command"),
    Rule("too-long", HIGH, "too long to check in full"),
    Rule("hidden-characters", HIGH, "contains hidden or direction-changing characters"),
    Rule("disguised-command", HIGH, "the command's name is disguised"),
    Rule("dynamic-command", MEDIUM, "runs a command only known when it runs"),
    Rule(
        "look-alike-letters", HIGH, "uses letters from another alphabet that look like Latin ones"
    ),
    # --- deleting: the lens puts one of the first four in place of the last two, by where the
    # targets lie (desktop.risk.places)
    Rule("delete-regenerable", LOW, "deletes what a build or an install makes again"),
    Rule("delete-in-folder", MEDIUM, "deletes files inside the task's folder"),
    Rule("delete-temporary", MEDIUM, "deletes temporary files"),
    Rule("system-delete", HIGH, "deletes system files"),
    Rule(
        "recursive-delete",
        HIGH,
        "deletes folders recursively",
        (
            Command(_names("rm"), flags=(("-r", "-R", "--recursive"),)),
            Command(_names("find"), arg=r"-delete"),
            Command(_names("rmtree")),
        ),
    ),
    Rule(
        "delete-files",
        MEDIUM,
        "deletes files",
        (Command(_names("rm unlink shred")),),
        unless=("recursive-delete",),
    ),
    # --- permissions and ownership: recursive ones are graded by where the targets lie too
    Rule(
        "world-writable",
        HIGH,
        "lets every user change these files",
        (Command(_names("chmod"), arg=_WORLD_WRITABLE, mark="arg"),),
    ),
    Rule(
        "recursive-chmod",
        MEDIUM,
        "changes permissions recursively",
        (Command(_names("chmod"), flags=_RECURSIVE),),
    ),
    Rule("system-chmod", HIGH, "changes permissions of system or home folders recursively"),
    Rule(
        "recursive-chown",
        HIGH,
        "changes the owner of folders recursively",
        (Command(_names("chown chgrp"), flags=_RECURSIVE),),
    ),
    Rule(
        "ownership-change",
        MEDIUM,
        "changes who owns files",
        (Command(_names("chown chgrp")),),
        unless=("recursive-chown",),
    ),
    # --- becoming someone else
    Rule(
        "superuser",
        HIGH,
        "runs as the superuser",
        (Command(_names("sudo doas su pkexec run0 gosu runas")),),
    ),
    # --- system paths, disks
    Rule(
        "system-write",
        HIGH,
        "writes into a system folder",
        (
            Redirect(SYSTEM),
            Writes(_names("tee truncate"), SYSTEM),
            Writes(_names("cp mv install ln rsync"), SYSTEM, targets="last"),
            Writes(_names("sed perl"), SYSTEM, flags=_IN_PLACE),
        ),
    ),
    Rule(
        "disk-write",
        HIGH,
        "writes straight onto a disk",
        (
            Redirect(DISK),
            Writes(_names("dd"), DISK, targets="of="),
            Writes(_names("tee"), DISK),
            Writes(_names("cp pv"), DISK, targets="last"),
        ),
    ),
    Rule(
        "disk-tool",
        HIGH,
        "uses a disk or partition tool",
        (
            Command(
                _names(
                    "dd mkfs mkfs.ext2 mkfs.ext3 mkfs.ext4 mkfs.xfs mkfs.btrfs mkfs.vfat mkswap"
                    " fdisk sfdisk cfdisk gdisk sgdisk parted wipefs blkdiscard diskutil format"
                )
            ),
            Command(_names("cryptsetup"), sub=("luksFormat",)),
        ),
    ),
    Rule(
        "startup-write",
        MEDIUM,
        "changes a login or SSH start-up file",
        (
            Redirect(STARTUP),
            Writes(_names("tee"), STARTUP),
            Writes(_names("cp mv ln"), STARTUP, targets="last"),
            Writes(_names("sed"), STARTUP, flags=_IN_PLACE),
        ),
    ),
    # --- downloading and running
    Rule(
        "download-and-run",
        HIGH,
        "downloads code and runs it",
        (Pipe(FETCHERS, INTERPRETERS), Feeds(FETCHERS, _RUNNERS)),
    ),
    Rule(
        "decode-and-run",
        HIGH,
        "decodes hidden code and runs it",
        (
            Pipe(
                _names("base64 xxd openssl gunzip zcat rev tr"),
                INTERPRETERS,
                producer_flags=(
                    ("base64", ("-d", "--decode", "-D")),
                    ("xxd", ("-r",)),
                    ("openssl", ("-d", "-base64", "-a")),
                ),
            ),
            Feeds(_names("base64 xxd"), _RUNNERS),
        ),
    ),
    Rule("eval", MEDIUM, "runs text as a command (eval)", (Command(_names("eval")),)),
    Rule(
        "inline-code",
        HIGH,  # the lens cannot tell what the code touches: it is never routine
        "runs program code that deletes files or starts commands",
        (
            Command(
                _names("python python2 python3 perl ruby node php"),
                flags=(("-c", "-e", "-r"),),
                arg=r"(?s).*(?:rmtree|os\.remove|os\.unlink|\bunlink\(|os\.system|subprocess|"
                r"child_process|\bsystem\(|\bexec\(|\beval\(|`|File\.delete|rm_rf|fs\.rm"
                r"|__import__|importlib|\bgetattr\(|\bcompile\(|\bpopen\b|\bspawn).*",
            ),
        ),
    ),
    # --- databases
    Rule(
        "sql-drop",
        HIGH,
        "drops database tables or data",
        (
            Sql(
                r"\bdrop\s+(?:table|schema|database|index|view|user|role|owned|extension)\b"
                r"|\btruncate\b"
            ),
            Command(_names("dropdb dropuser")),
            Command(_names("redis-cli"), arg=r"(?i)flushall|flushdb"),
        ),
    ),
    Rule(
        "sql-delete-all",
        HIGH,
        "deletes every row of a table",
        (Sql(r"\bdelete\s+from\s+[\w.\"`]+\s*(?:;|$)"),),
    ),
    # --- git
    Rule(
        "force-push",
        HIGH,
        "overwrites history on the remote (force push)",
        (
            Command(
                _names("git"),
                sub=("push",),
                flags=(("-f", "--force", "--force-with-lease", "--mirror", "--delete", "-d"),),
            ),
            Command(_names("git"), sub=("push",), arg=r"\+\S+|:\S+"),
        ),
    ),
    Rule(
        "hard-reset",
        HIGH,
        "throws away uncommitted work (git reset --hard)",
        (Command(_names("git"), sub=("reset",), flags=(("--hard", "--merge", "--keep"),)),),
    ),
    Rule(
        "git-clean",
        HIGH,
        "deletes files git does not track (git clean)",
        (Command(_names("git"), sub=("clean",), flags=(("-f", "--force"),)),),
    ),
    Rule(
        "history-rewrite",
        HIGH,
        "rewrites git history",
        (
            Command(_names("git"), sub=("filter-branch",)),
            Command(_names("git"), sub=("filter-repo",)),
            Command(_names("git-filter-repo")),
        ),
    ),
    Rule(
        "discard-changes",
        MEDIUM,
        "throws away changes or branches",
        (
            Command(_names("git"), sub=("branch",), flags=(("-D",),)),
            Command(_names("git"), sub=("stash",), arg=r"drop|clear"),
            Command(_names("git"), sub=("checkout",), arg=r"\.|--"),
        ),
    ),
    # --- the machine itself
    Rule(
        "power",
        HIGH,
        "shuts down or restarts the machine",
        (
            Command(_names("shutdown reboot halt poweroff")),
            Command(_names("init telinit"), arg=r"[06]"),
            Command(_names("systemctl"), arg=r"poweroff|reboot|halt|kexec"),
        ),
    ),
    Rule(
        "crontab-remove",
        HIGH,
        "deletes every scheduled job",
        (Command(_names("crontab"), flags=(("-r",),)),),
    ),
    Rule(
        "firewall",
        MEDIUM,
        "changes the firewall",
        (Command(_names("iptables ip6tables nft ufw")),),
    ),
    Rule(
        "kill-all",
        MEDIUM,
        "stops many processes at once",
        (Command(_names("killall pkill")), Command(_names("kill"), arg=r"0")),
    ),
    Rule(
        "kill-everything",
        HIGH,
        "stops every process you own",
        (Command(_names("kill"), arg=r"-1"),),
    ),
    Rule(
        "fork-bomb",
        HIGH,
        "starts copies of itself without end until the machine stops (fork bomb)",
        # bounded and anchored at a word's start: a long command must not make it backtrack
        (
            Text(
                r"(?<![\w:.])([\w:.]{1,32}+)\s{0,8}\(\s{0,8}\)\s{0,8}\{[^}]{0,200}?\1\s{0,8}\|"
                r"\s{0,8}\1\s{0,8}&"
            ),
        ),
    ),
    # --- secrets: what is in the command itself
    *(
        Rule("secret", MEDIUM, f"contains a secret ({what})", tuple(map(Text, patterns)))
        for what, patterns in (
            (
                "AWS key",
                (
                    r"(?<![A-Z0-9])(?:AKIA|ASIA)[0-9A-Z]{16}(?![A-Z0-9])",
                    r"AWS_SECRET_ACCESS_KEY=(?![$'\"]?\$)\S{16,}",
                ),
            ),
            (
                "Authorization header",
                (
                    r"(?i)\b(?:proxy-)?authorization:\s*(?:bearer|basic|token|digest)?\s*"
                    r"(?!\$)[A-Za-z0-9._~+/=-]{8,}",
                ),
            ),
            (
                "access token",
                (
                    r"\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}"
                    r"|glpat-[A-Za-z0-9_-]{20,}|xox[abprs]-[A-Za-z0-9-]{10,}"
                    r"|sk-(?:proj-|ant-)?[A-Za-z0-9_-]{20,}|AIza[0-9A-Za-z_-]{35}|npm_[A-Za-z0-9]{36})",
                ),
            ),
            (
                "password",
                (
                    r"(?i)(?:--password[= ]|--passwd[= ]|\bpassword=|\bpasswd=|\bPGPASSWORD="
                    r"|\bMYSQL_PWD=|\bsshpass\s+-p\s*)(?![$'\"]?\$)[^\s;&|]{3,}",
                    r"\b(?:mysql|mariadb|mysqldump|mysqladmin)\b[^|;&\n]{0,200}?\s-p(?!\$)"
                    r"[^\s;&|'\"]{3,}",
                ),
            ),
            (
                "password in a web address",
                (r"\b[a-z][a-z0-9+.-]{1,15}://[^/\s:@]{1,64}:(?!\$|\*\*\*)[^/\s@]{3,}@",),
            ),
            (
                "token",
                (
                    r"\b[A-Z0-9_]*(?:TOKEN|SECRET|API_KEY|APIKEY|PASSWORD)=(?![$'\"]?\$)"
                    r"(?![^\s;&|'\"]*(?:\.\.\.|\*\*\*))[^\s;&|'\"]{8,}",
                ),
            ),
            ("private key", (r"-----BEGIN [A-Z ]{0,20}PRIVATE KEY-----",)),
        )
    ),
    # --- what is shown is not what runs
    Rule(
        "redacted",
        HIGH,
        "part of it was hidden (***): what runs differs from what is shown",
        (
            Text(r"\*\*\*|\[REDACTED[^\]\n]{0,40}\]"),
            Text(r"(?<=[=:\s'\"])[A-Za-z0-9_-]{4,6}\.\.\.[A-Za-z0-9_-]{4}(?=[\s'\"@;&|]|$)"),
        ),
    ),
)


def rule(rule_id: str) -> Rule:
    """The first row with this id (its level and label); KeyError for an unknown id."""
    return _FIRST_BY_ID[rule_id]


_FIRST_BY_ID = {row.id: row for row in reversed(RULES)}
