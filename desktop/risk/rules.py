"""The risk rules as data: one row per way a command can be dangerous.

Why a table: a reviewer can read every rule, its level and its words for a person in one
place, and the tests in ``tests/risk`` name rules by id, so a broken row fails by name. The
lens (:mod:`desktop.risk.lens`) only interprets the matcher kinds below; adding a command or a
path is a change to this file, not to the lens.

Matcher kinds:
- :class:`Command`: one simple command after wrappers (sudo, env, xargs, …) are peeled off,
  by name, sub-command, flags and arguments;
- :class:`Pipe`: a producer piped into a consumer (``curl … | sh``);
- :class:`Feeds`: a consumer whose arguments run a producer (``bash <(curl …)``, ``eval "$(…)"``);
- :class:`Redirect`: output redirected (``>``, ``>>``, ``&>``) into a class of paths;
- :class:`Writes`: a writing command whose target arguments fall into a class of paths;
- :class:`Sql`: SQL text given to a database client (argument, here-doc, here-string, pipe);
- :class:`Text`: a pattern anywhere in the raw command (secrets, redaction marks);
- :class:`Lens`: found by the lens itself (unreadable, hidden characters, disguised names).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .verdict import RiskLevel

HIGH = RiskLevel.HIGH
MEDIUM = RiskLevel.MEDIUM
LOW = RiskLevel.LOW

# ---------------------------------------------------------------------------------------------
# Vocabularies the rows share


SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "mksh", "fish", "ash", "busybox"})
INTERPRETERS = SHELLS | frozenset(
    {"python", "python2", "python3", "perl", "ruby", "node", "php", "lua", "pwsh", "osascript"}
)
FETCHERS = frozenset({"curl", "wget", "fetch", "aria2c", "http", "https", "lwp-request", "nc"})
PRINTERS = frozenset({"echo", "printf"})  # their words piped into a shell are a script
SQL_CLIENTS = frozenset(
    {"psql", "mysql", "mariadb", "sqlite3", "sqlcmd", "duckdb", "clickhouse-client", "cqlsh"}
)

# Paths whose change can break or take over the machine. Prefixes match the path itself and
# everything below it; "/dev/null" and friends are harmless sinks.
SYSTEM_PATHS = (
    "/etc",
    "/usr",
    "/boot",
    "/bin",
    "/sbin",
    "/lib",
    "/lib32",
    "/lib64",
    "/sys",
    "/proc",
    "/root",
    "/var/spool/cron",
    "/Library",
    "/System",
)
SAFE_DEVICES = frozenset(
    {"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/stdin", "/dev/tty", "/dev/zero"}
)
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
_BUILT = "rebuilt by the build"
_CACHED = "a cache, made again when needed"
_INSTALLED = "installed again by the package manager"
REGENERABLE: tuple[tuple[str, str], ...] = (
    *((name, _BUILT) for name in ("build", "dist", "out", "target", "_build", "*.egg-info")),
    *((name, _BUILT) for name in (".eggs", "*.o", "*.pyc", "*.pyo", "*.class", "htmlcov")),
    *((name, _BUILT) for name in ("coverage", ".coverage", ".coverage.*", "*.tsbuildinfo")),
    *((name, _BUILT) for name in (".next", ".nuxt", ".svelte-kit", ".angular", ".output")),
    *((name, _CACHED) for name in ("__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache")),
    *((name, _CACHED) for name in (".cache", ".parcel-cache", ".turbo", ".gradle", ".hypothesis")),
    *((name, _CACHED) for name in (".sass-cache", ".eslintcache", ".tox", ".nox", ".DS_Store")),
    *((name, _INSTALLED) for name in ("node_modules", ".venv", "venv", "bower_components")),
    *((name, _INSTALLED) for name in (".pnpm-store", "__pypackages__")),
)


@dataclass(frozen=True, slots=True)
class Wrapper:
    """A command that runs the rest of its words as another command (``sudo rm …``).

    ``valued``: its options that take the next word as a value; ``positionals``: how many
    plain words it takes before the command (``timeout 5 cmd``, ``chroot /x cmd``).
    """

    valued: frozenset[str] = frozenset()
    positionals: int = 0


WRAPPERS: dict[str, Wrapper] = {
    "sudo": Wrapper(frozenset({"-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U", "-T"})),
    "doas": Wrapper(frozenset({"-u", "-C"})),
    "pkexec": Wrapper(frozenset({"--user"})),
    "run0": Wrapper(frozenset({"-u", "--user", "-D", "--chdir"})),
    "gosu": Wrapper(positionals=1),
    "env": Wrapper(frozenset({"-u", "--unset", "-C", "--chdir", "-S", "--split-string"})),
    "nice": Wrapper(frozenset({"-n", "--adjustment"})),
    "ionice": Wrapper(frozenset({"-c", "-n", "-p", "-P", "-u"})),
    "nohup": Wrapper(),
    "setsid": Wrapper(),
    "time": Wrapper(frozenset({"-f", "-o"})),
    "timeout": Wrapper(frozenset({"-k", "--kill-after", "-s", "--signal"}), positionals=1),
    "stdbuf": Wrapper(frozenset({"-i", "-o", "-e"})),
    "exec": Wrapper(frozenset({"-a"})),
    "command": Wrapper(),
    "builtin": Wrapper(),
    "chroot": Wrapper(frozenset({"--userspec", "--groups"}), positionals=1),
    "flock": Wrapper(frozenset({"-w", "--timeout", "-E", "-c"}), positionals=1),
    "xargs": Wrapper(frozenset({"-I", "-i", "-n", "-P", "-d", "-L", "-l", "-s", "-a", "-E", "-e"})),
    "watch": Wrapper(frozenset({"-n", "--interval", "-d"})),
    "strace": Wrapper(frozenset({"-e", "-o", "-p", "-s", "-u"})),
    "unshare": Wrapper(),
    "nsenter": Wrapper(frozenset({"-t", "--target"})),
    "caffeinate": Wrapper(),
}
# Options after which a shell's next word is a script: "-c", also inside "-lc", "-ec".
SCRIPT_FLAG = "c"
SSH_VALUED = frozenset(
    {
        "-p",
        "-i",
        "-l",
        "-o",
        "-F",
        "-J",
        "-L",
        "-R",
        "-D",
        "-b",
        "-c",
        "-e",
        "-E",
        "-m",
        "-O",
        "-Q",
        "-S",
        "-W",
        "-w",
        "-B",
    }
)
GIT_VALUED = frozenset({"-C", "-c", "--git-dir", "--work-tree", "--namespace"})
FIND_EXEC = frozenset({"-exec", "-execdir", "-ok", "-okdir"})


class PathClass:
    """Names for the path classes Redirect and Writes refer to."""

    SYSTEM = "system"
    DISK = "disk"
    STARTUP = "startup"


# ---------------------------------------------------------------------------------------------
# Matcher kinds


@dataclass(frozen=True, slots=True)
class Command:
    """A simple command by name.

    ``sub``: the first positional arguments must be these (``git push``). ``flags``: every
    group must be present, a group being alternatives; ``-r`` also matches inside ``-rf``,
    ``--force`` also matches ``--force=…``. ``arg``: some argument must match this regex
    whole. ``mark``: ``"command"`` marks the whole command, ``"arg"`` only what matched.
    """

    names: frozenset[str]
    sub: tuple[str, ...] = ()
    flags: tuple[tuple[str, ...], ...] = ()
    arg: str = ""
    mark: str = "command"


@dataclass(frozen=True, slots=True)
class Pipe:
    """``producer | … | consumer``.

    A producer listed in ``producer_flags`` must carry one of those flags (``base64 -d``),
    others match by name alone.
    """

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
    paths: str  # a PathClass name


@dataclass(frozen=True, slots=True)
class Writes:
    """Commands that write to their target arguments (``tee``, ``cp``, ``dd of=``, ``sed -i``)."""

    names: frozenset[str]
    paths: str  # a PathClass name
    targets: str = "all"  # "all" positional args, "last" one, or "of=" (dd)
    flags: tuple[tuple[str, ...], ...] = ()


@dataclass(frozen=True, slots=True)
class Sql:
    pattern: str  # case-insensitive regex over the SQL text


@dataclass(frozen=True, slots=True)
class Text:
    pattern: str  # regex over the raw command


@dataclass(frozen=True, slots=True)
class Lens:
    """Found by the lens itself; the row only names the rule and its words."""


Matcher = Command | Pipe | Feeds | Redirect | Writes | Sql | Text | Lens


@dataclass(frozen=True, slots=True)
class Rule:
    id: str
    level: RiskLevel
    label: str
    match: Matcher
    unless: tuple[str, ...] = ()  # not reported where one of these rules matched the same command


def _names(*names: str) -> frozenset[str]:
    return frozenset(names)


_MKFS = ("mkfs", "mkfs.ext2", "mkfs.ext3", "mkfs.ext4", "mkfs.xfs", "mkfs.btrfs", "mkfs.vfat")
_WORLD_WRITABLE = (
    r"[0-7]?[0-7]{2}[2367]"  # octal: "others" may write (777, 0666, 1777)
    r"|(?:.*,)?[ugo]*a[ugoa]*[+=][rwxXst]*w.*"  # a+w, a=rwx
    r"|(?:.*,)?[ug]*o[ugo]*[+=][rwxXst]*w.*"  # o+w
    r"|(?:.*,)?[+=][rwxXst]*w.*"  # +w: everyone the umask allows
)

RULES: tuple[Rule, ...] = (
    # --- the lens's own findings
    Rule("unreadable", HIGH, "could not be read as a shell command", Lens()),
    Rule("too-long", HIGH, "too long to check in full", Lens()),
    Rule("hidden-characters", HIGH, "contains hidden or direction-changing characters", Lens()),
    Rule("disguised-command", HIGH, "the command's name is disguised", Lens()),
    Rule("dynamic-command", MEDIUM, "runs a command only known when it runs", Lens()),
    Rule(
        "look-alike-letters",
        HIGH,
        "uses letters from another alphabet that look like Latin ones",
        Lens(),
    ),
    # --- deleting, graded by where the targets lie (desktop.risk.places); the rows below
    # these two match the commands, and the lens puts one of these in their place.
    Rule("delete-regenerable", LOW, "deletes what a build or an install makes again", Lens()),
    Rule("delete-in-folder", MEDIUM, "deletes files inside the task's folder", Lens()),
    Rule("delete-temporary", MEDIUM, "deletes temporary files", Lens()),
    Rule("system-delete", HIGH, "deletes system files", Lens()),
    # --- deleting
    Rule(
        "recursive-delete",
        HIGH,
        "deletes folders recursively",
        Command(_names("rm"), flags=(("-r", "-R", "--recursive"),)),
    ),
    Rule(
        "recursive-delete",
        HIGH,
        "deletes folders recursively",
        Command(_names("find"), arg=r"-delete"),
    ),
    Rule("recursive-delete", HIGH, "deletes folders recursively", Command(_names("rmtree"))),
    Rule(
        "delete-files",
        MEDIUM,
        "deletes files",
        Command(_names("rm", "unlink", "shred")),
        unless=("recursive-delete",),
    ),
    # --- permissions and ownership
    Rule(
        "world-writable",
        HIGH,
        "lets every user change these files",
        Command(_names("chmod"), arg=_WORLD_WRITABLE, mark="arg"),
    ),
    Rule(
        "recursive-chmod",
        MEDIUM,
        "changes permissions recursively",
        Command(_names("chmod"), flags=(("-R", "--recursive"),)),
    ),
    Rule(
        "recursive-chown",
        HIGH,
        "changes the owner of folders recursively",
        Command(_names("chown", "chgrp"), flags=(("-R", "--recursive"),)),
    ),
    Rule(
        "ownership-change",
        MEDIUM,
        "changes who owns files",
        Command(_names("chown", "chgrp")),
        unless=("recursive-chown",),
    ),
    # --- becoming someone else
    Rule(
        "superuser",
        HIGH,
        "runs as the superuser",
        Command(_names("sudo", "doas", "su", "pkexec", "run0", "gosu", "runas")),
    ),
    # --- system paths, disks
    Rule("system-write", HIGH, "writes into a system folder", Redirect(PathClass.SYSTEM)),
    Rule(
        "system-write",
        HIGH,
        "writes into a system folder",
        Writes(_names("tee", "truncate"), PathClass.SYSTEM),
    ),
    Rule(
        "system-write",
        HIGH,
        "writes into a system folder",
        Writes(_names("cp", "mv", "install", "ln", "rsync"), PathClass.SYSTEM, targets="last"),
    ),
    Rule(
        "system-write",
        HIGH,
        "writes into a system folder",
        Writes(_names("sed", "perl"), PathClass.SYSTEM, flags=(("-i", "--in-place"),)),
    ),
    Rule("disk-write", HIGH, "writes straight onto a disk", Redirect(PathClass.DISK)),
    Rule(
        "disk-write",
        HIGH,
        "writes straight onto a disk",
        Writes(_names("dd"), PathClass.DISK, targets="of="),
    ),
    Rule("disk-write", HIGH, "writes straight onto a disk", Writes(_names("tee"), PathClass.DISK)),
    Rule(
        "disk-write",
        HIGH,
        "writes straight onto a disk",
        Writes(_names("cp", "pv"), PathClass.DISK, targets="last"),
    ),
    Rule(
        "disk-tool",
        HIGH,
        "uses a disk or partition tool",
        Command(
            _names(
                "dd",
                *_MKFS,
                "mkswap",
                "fdisk",
                "sfdisk",
                "cfdisk",
                "gdisk",
                "sgdisk",
                "parted",
                "wipefs",
                "blkdiscard",
                "diskutil",
                "format",
            )
        ),
    ),
    Rule(
        "disk-tool",
        HIGH,
        "uses a disk or partition tool",
        Command(_names("cryptsetup"), sub=("luksFormat",)),
    ),
    Rule(
        "startup-write",
        MEDIUM,
        "changes a login or SSH start-up file",
        Redirect(PathClass.STARTUP),
    ),
    Rule(
        "startup-write",
        MEDIUM,
        "changes a login or SSH start-up file",
        Writes(_names("tee"), PathClass.STARTUP),
    ),
    Rule(
        "startup-write",
        MEDIUM,
        "changes a login or SSH start-up file",
        Writes(_names("cp", "mv", "ln"), PathClass.STARTUP, targets="last"),
    ),
    Rule(
        "startup-write",
        MEDIUM,
        "changes a login or SSH start-up file",
        Writes(_names("sed"), PathClass.STARTUP, flags=(("-i", "--in-place"),)),
    ),
    # --- downloading and running
    Rule(
        "download-and-run",
        HIGH,
        "downloads code and runs it",
        Pipe(FETCHERS, INTERPRETERS),
    ),
    Rule(
        "download-and-run",
        HIGH,
        "downloads code and runs it",
        Feeds(FETCHERS, INTERPRETERS | _names("eval", "source", ".")),
    ),
    Rule(
        "decode-and-run",
        HIGH,
        "decodes hidden code and runs it",
        Pipe(
            _names("base64", "xxd", "openssl", "gunzip", "zcat", "rev", "tr"),
            INTERPRETERS,
            producer_flags=(
                ("base64", ("-d", "--decode", "-D")),
                ("xxd", ("-r",)),
                ("openssl", ("-d", "-base64", "-a")),
            ),
        ),
    ),
    Rule(
        "decode-and-run",
        HIGH,
        "decodes hidden code and runs it",
        Feeds(_names("base64", "xxd"), INTERPRETERS | _names("eval", "source", ".")),
    ),
    Rule("eval", MEDIUM, "runs text as a command (eval)", Command(_names("eval"))),
    Rule(
        "inline-code",
        HIGH,  # the lens cannot tell what the code touches: it is never routine
        "runs program code that deletes files or starts commands",
        Command(
            _names("python", "python2", "python3", "perl", "ruby", "node", "php"),
            flags=(("-c", "-e", "-r"),),
            arg=r"(?s).*(?:rmtree|os\.remove|os\.unlink|\bunlink\(|os\.system|subprocess|"
            r"child_process|\bsystem\(|\bexec\(|\beval\(|`|File\.delete|rm_rf|fs\.rm"
            r"|__import__|importlib|\bgetattr\(|\bcompile\(|\bpopen\b|\bspawn).*",
        ),
    ),
    # --- databases
    Rule(
        "sql-drop",
        HIGH,
        "drops database tables or data",
        Sql(
            r"\bdrop\s+(?:table|schema|database|index|view|user|role|owned|extension)\b"
            r"|\btruncate\b"
        ),
    ),
    Rule(
        "sql-delete-all",
        HIGH,
        "deletes every row of a table",
        Sql(r"\bdelete\s+from\s+[\w.\"`]+\s*(?:;|$)"),
    ),
    Rule(
        "sql-drop",
        HIGH,
        "drops database tables or data",
        Command(_names("dropdb", "dropuser")),
    ),
    Rule(
        "sql-drop",
        HIGH,
        "drops database tables or data",
        Command(_names("redis-cli"), arg=r"(?i)flushall|flushdb"),
    ),
    # --- git
    Rule(
        "force-push",
        HIGH,
        "overwrites history on the remote (force push)",
        Command(
            _names("git"),
            sub=("push",),
            flags=(("-f", "--force", "--force-with-lease", "--mirror", "--delete", "-d"),),
        ),
    ),
    Rule(
        "force-push",
        HIGH,
        "overwrites history on the remote (force push)",
        Command(_names("git"), sub=("push",), arg=r"\+\S+|:\S+"),
    ),
    Rule(
        "hard-reset",
        HIGH,
        "throws away uncommitted work (git reset --hard)",
        Command(_names("git"), sub=("reset",), flags=(("--hard", "--merge", "--keep"),)),
    ),
    Rule(
        "git-clean",
        HIGH,
        "deletes files git does not track (git clean)",
        Command(_names("git"), sub=("clean",), flags=(("-f", "--force"),)),
    ),
    Rule(
        "history-rewrite",
        HIGH,
        "rewrites git history",
        Command(_names("git"), sub=("filter-branch",)),
    ),
    Rule(
        "history-rewrite",
        HIGH,
        "rewrites git history",
        Command(_names("git"), sub=("filter-repo",)),
    ),
    Rule("history-rewrite", HIGH, "rewrites git history", Command(_names("git-filter-repo"))),
    Rule(
        "discard-changes",
        MEDIUM,
        "throws away changes or branches",
        Command(_names("git"), sub=("branch",), flags=(("-D",),)),
    ),
    Rule(
        "discard-changes",
        MEDIUM,
        "throws away changes or branches",
        Command(_names("git"), sub=("stash",), arg=r"drop|clear"),
    ),
    Rule(
        "discard-changes",
        MEDIUM,
        "throws away changes or branches",
        Command(_names("git"), sub=("checkout",), arg=r"\.|--"),
    ),
    # --- the machine itself
    Rule(
        "power",
        HIGH,
        "shuts down or restarts the machine",
        Command(_names("shutdown", "reboot", "halt", "poweroff")),
    ),
    Rule(
        "power",
        HIGH,
        "shuts down or restarts the machine",
        Command(_names("init", "telinit"), arg=r"[06]"),
    ),
    Rule(
        "power",
        HIGH,
        "shuts down or restarts the machine",
        Command(_names("systemctl"), arg=r"poweroff|reboot|halt|kexec"),
    ),
    Rule(
        "crontab-remove",
        HIGH,
        "deletes every scheduled job",
        Command(_names("crontab"), flags=(("-r",),)),
    ),
    Rule(
        "firewall",
        MEDIUM,
        "changes the firewall",
        Command(_names("iptables", "ip6tables", "nft", "ufw")),
    ),
    Rule("kill-all", MEDIUM, "stops many processes at once", Command(_names("killall", "pkill"))),
    Rule("kill-all", MEDIUM, "stops many processes at once", Command(_names("kill"), arg=r"0")),
    Rule(
        "kill-everything",
        HIGH,
        "stops every process you own",
        Command(_names("kill"), arg=r"-1"),
    ),
    Rule(
        "fork-bomb",
        HIGH,
        "starts copies of itself without end until the machine stops (fork bomb)",
        # bounded and anchored at a word's start: a long command must not make it backtrack
        Text(
            r"(?<![\w:.])([\w:.]{1,32}+)\s{0,8}\(\s{0,8}\)\s{0,8}\{[^}]{0,200}?\1\s{0,8}\|\s{0,8}\1\s{0,8}&"
        ),
    ),
    # --- secrets: what is in the command itself
    Rule(
        "secret",
        MEDIUM,
        "contains a secret (AWS key)",
        Text(r"(?<![A-Z0-9])(?:AKIA|ASIA)[0-9A-Z]{16}(?![A-Z0-9])"),
    ),
    Rule(
        "secret",
        MEDIUM,
        "contains a secret (AWS key)",
        Text(r"AWS_SECRET_ACCESS_KEY=(?![$'\"]?\$)\S{16,}"),
    ),
    Rule(
        "secret",
        MEDIUM,
        "contains a secret (Authorization header)",
        Text(
            r"(?i)\b(?:proxy-)?authorization:\s*(?:bearer|basic|token|digest)?\s*"
            r"(?!\$)[A-Za-z0-9._~+/=-]{8,}"
        ),
    ),
    Rule(
        "secret",
        MEDIUM,
        "contains a secret (access token)",
        Text(
            r"\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|glpat-[A-Za-z0-9_-]{20,}"
            r"|xox[abprs]-[A-Za-z0-9-]{10,}|sk-(?:proj-|ant-)?[A-Za-z0-9_-]{20,}"
            r"|AIza[0-9A-Za-z_-]{35}|npm_[A-Za-z0-9]{36})"
        ),
    ),
    Rule(
        "secret",
        MEDIUM,
        "contains a secret (password)",
        Text(
            r"(?i)(?:--password[= ]|--passwd[= ]|\bpassword=|\bpasswd=|\bPGPASSWORD=|\bMYSQL_PWD="
            r"|\bsshpass\s+-p\s*)(?![$'\"]?\$)[^\s;&|]{3,}"
        ),
    ),
    Rule(
        "secret",
        MEDIUM,
        "contains a secret (password)",
        Text(
            r"\b(?:mysql|mariadb|mysqldump|mysqladmin)\b[^|;&\n]{0,200}?\s-p(?!\$)[^\s;&|'\"]{3,}"
        ),
    ),
    Rule(
        "secret",
        MEDIUM,
        "contains a secret (password in a web address)",
        Text(r"\b[a-z][a-z0-9+.-]{1,15}://[^/\s:@]{1,64}:(?!\$|\*\*\*)[^/\s@]{3,}@"),
    ),
    Rule(
        "secret",
        MEDIUM,
        "contains a secret (token)",
        Text(
            r"\b[A-Z0-9_]*(?:TOKEN|SECRET|API_KEY|APIKEY|PASSWORD)=(?![$'\"]?\$)"
            r"(?![^\s;&|'\"]*(?:\.\.\.|\*\*\*))[^\s;&|'\"]{8,}"
        ),
    ),
    Rule(
        "secret",
        MEDIUM,
        "contains a secret (private key)",
        Text(r"-----BEGIN [A-Z ]{0,20}PRIVATE KEY-----"),
    ),
    # --- what is shown is not what runs
    Rule(
        "redacted",
        HIGH,
        "part of it was hidden (***): what runs differs from what is shown",
        Text(r"\*\*\*|\[REDACTED[^\]\n]{0,40}\]"),
    ),
    Rule(
        "redacted",
        HIGH,
        "part of it was hidden (***): what runs differs from what is shown",
        Text(r"(?<=[=:\s'\"])[A-Za-z0-9_-]{4,6}\.\.\.[A-Za-z0-9_-]{4}(?=[\s'\"@;&|]|$)"),
    ),
)

RULE_IDS: frozenset[str] = frozenset(rule.id for rule in RULES)


def rule(rule_id: str) -> Rule:
    """The first row with this id (its level and label); KeyError for an unknown id."""
    for row in RULES:
        if row.id == rule_id:
            return row
    raise KeyError(rule_id)
