"""Safe reading of YAML and JSON input: bounded size, expansion, nesting and numbers; clear errors.

Everything user-supplied (spec files, setups, positions, cases, known-failure ledgers, game logs)
is read through `load_file`, `parse_text` or `parse_json`, so a huge or endless file, an alias
bomb, a 100,000-deep nesting, a 5,000-digit integer or a duplicate key is one error naming the
file and, where the parser knows it, the line and column: never a traceback, a hang or a crash.
"""

from __future__ import annotations

import hashlib
import json
import mmap
import os
import re
import stat
from pathlib import Path

import yaml

MAX_BYTES = 2_000_000
MAX_ALIASES = 100
# What the data may expand to once every alias is followed (a YAML alias bomb stays under the
# alias count limit but expands exponentially): counted in nodes (scalars and collections).
MAX_NODES = 1_000_000
MAX_DEPTH = 100
# Python refuses to convert longer integer strings (sys.get_int_max_str_digits); say so cleanly.
MAX_DIGITS = 4300
# The C parser builds nested collections by recursion in C, and a release may stop at a nesting
# limit of its own: text that could nest deeper than this is checked event by event (iteratively,
# against MAX_DEPTH) before it is handed to it.
_C_SAFE_OPENERS = 5000


class InputError(Exception):
    """A file that cannot be read as the data it should hold."""

    def __init__(self, file: str, message: str, truncated: bool = False):
        self.file = file
        self.message = message
        self.truncated = truncated  # the text ends in the middle of a value
        super().__init__(f"{file}: {message}")


def _mark_text(mark) -> str:
    return f"line {mark.line + 1}, column {mark.column + 1}: " if mark is not None else ""


class _LimitError(yaml.MarkedYAMLError):
    def __init__(self, problem, mark):
        super().__init__(problem=problem, problem_mark=mark)


def _construct_int(loader, node):
    digits = sum(ch.isdigit() for ch in node.value)
    if digits > MAX_DIGITS:
        raise _LimitError(f"an integer of {digits} digits; the limit is {MAX_DIGITS}", node.start_mark)
    return yaml.constructor.SafeConstructor.construct_yaml_int(loader, node)


class _GuardedLoader(yaml.SafeLoader):
    """The pure-Python loader, for text with anchors: it counts aliases, bounds what the document
    expands to and how deep it nests, and refuses duplicate keys and huge integers."""

    def __init__(self, stream):
        super().__init__(stream)
        self._aliases = 0

    def compose_node(self, parent, index):
        if self.check_event(yaml.AliasEvent):
            self._aliases += 1
            if self._aliases > MAX_ALIASES:
                raise _LimitError(f"more than {MAX_ALIASES} aliases (a YAML alias bomb?)",
                                  self.peek_event().start_mark)
        return super().compose_node(parent, index)

    def compose_document(self):
        node = super().compose_document()
        _check_graph(node)
        return node

    def construct_mapping(self, node, deep=False):
        _check_duplicates(self, node, deep)
        return super().construct_mapping(node, deep=deep)


_GuardedLoader.add_constructor("tag:yaml.org,2002:int", _construct_int)


def _check_graph(root) -> None:
    """Refuse a node graph that expands to more than MAX_NODES nodes or nests deeper than
    MAX_DEPTH, counting each shared (aliased) node as often as it is reached, in time linear in
    the number of distinct nodes."""
    size: dict[int, int] = {}
    depth: dict[int, int] = {}
    stack = [(root, False)]
    while stack:
        node, done = stack.pop()
        key = id(node)
        if key in size:
            continue
        children = [] if isinstance(node, yaml.ScalarNode) else \
            [x for pair in node.value for x in pair] if isinstance(node, yaml.MappingNode) else node.value
        if not done:
            stack.append((node, True))
            stack.extend((c, False) for c in children if id(c) not in size)
            continue
        size[key] = 1 + sum(size.get(id(c), 0) for c in children)
        depth[key] = 1 + max((depth.get(id(c), 0) for c in children), default=0)
        if size[key] > MAX_NODES:
            raise _LimitError(f"expands to more than {MAX_NODES:,} values once its aliases are "
                              "followed (a YAML alias bomb?)", node.start_mark)
        if depth[key] > MAX_DEPTH:
            raise _LimitError(f"nested more than {MAX_DEPTH} levels deep", node.start_mark)


def _check_duplicates(loader, node, deep) -> None:
    seen = set()
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=deep)
        try:
            hashable = key in seen
        except TypeError:
            raise yaml.constructor.ConstructorError(
                None, None, "a mapping key must be a plain value", key_node.start_mark) from None
        if hashable:
            raise yaml.constructor.ConstructorError(
                None, None, f"duplicate key {key!r}", key_node.start_mark)
        seen.add(key)


_CBase = getattr(yaml, "CSafeLoader", None)
if _CBase is not None:
    class _FastGuardedLoader(_CBase):
        """The C parser with the duplicate-key and integer guards, for text without anchors (so
        without aliases: what it builds is a tree no larger than the text)."""

        def construct_mapping(self, node, deep=False):
            _check_duplicates(self, node, deep)
            return _CBase.construct_mapping(self, node, deep=deep)

    _FastGuardedLoader.add_constructor("tag:yaml.org,2002:int", _construct_int)
else:  # pragma: no cover - PyYAML built without libyaml
    _FastGuardedLoader = None


def _check_event_depth(text: str) -> None:
    """Walk the events of the pure-Python parser (an iterative state machine that reads lazily,
    with no nesting limit of its own) and refuse nesting deeper than MAX_DEPTH, naming where it
    starts. Our bound is enforced here, whatever limit and wording a release of libyaml has; a
    syntax error the walk meets is left for the loader to report."""
    depth = 0
    try:
        for event in yaml.parse(text, Loader=yaml.SafeLoader):
            if isinstance(event, yaml.CollectionStartEvent):
                depth += 1
                if depth > MAX_DEPTH:
                    raise _LimitError(f"nested more than {MAX_DEPTH} levels deep", event.start_mark)
            elif isinstance(event, yaml.CollectionEndEvent):
                depth -= 1
    except _LimitError:
        raise
    except yaml.YAMLError:
        return


def _tree_depth_ok(data) -> bool:
    """Whether a tree of lists and dicts (no sharing) nests at most MAX_DEPTH levels."""
    stack = [(data, 1)]
    while stack:
        value, d = stack.pop()
        if isinstance(value, (list, dict)):
            if d > MAX_DEPTH:
                return False
            stack.extend((v, d + 1) for v in (value.values() if isinstance(value, dict) else value))
    return True


def parse_text(text: str, file: str = "<input>"):
    """Parse YAML (a superset of JSON) with the guards above."""
    if len(text) > MAX_BYTES:
        raise InputError(file, f"is {len(text):,} bytes; the limit is {MAX_BYTES:,}")
    # An alias needs an anchor (&); text without one can't be an alias bomb: parse it in C.
    fast = _FastGuardedLoader is not None and "&" not in text
    try:
        if fast and sum(text.count(c) for c in "[{-?:") > _C_SAFE_OPENERS:
            _check_event_depth(text)
        try:
            data = yaml.load(text, Loader=_FastGuardedLoader if fast else _GuardedLoader)  # noqa: S506
        except (yaml.YAMLError, RecursionError):
            # The parser may stop at a nesting limit of its own before ours: say ours first.
            _check_event_depth(text)
            raise
        if fast and not _tree_depth_ok(data):
            _check_event_depth(text)
            raise InputError(file, f"is nested more than {MAX_DEPTH} levels deep")
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        raise InputError(file, f"{_mark_text(mark)}{exc.problem or exc.context}") from None
    except yaml.YAMLError as exc:
        raise InputError(file, str(exc)) from None
    except RecursionError:
        raise InputError(file, f"is nested too deeply (the limit is {MAX_DEPTH} levels)") from None
    except ValueError as exc:  # a number Python refuses to convert
        raise InputError(file, str(exc).split(";")[0]) from None
    return data


_LONG_INT = re.compile(r"-?\d{%d,}" % (MAX_DIGITS + 1))


def parse_json(text: str, file: str = "<input>", line: int | None = None):
    """Parse JSON with the same bounds as YAML: size, nesting depth and integer length. `line`
    is the line of a JSON-lines file the text came from, for the message."""
    where = f"line {line}: " if line is not None else ""
    if len(text) > MAX_BYTES:
        raise InputError(file, f"{where}is {len(text):,} bytes; the limit is {MAX_BYTES:,}")
    long_int = _LONG_INT.search(text)
    try:
        if long_int is not None:  # maybe inside a string; the parser says whether it is a number
            data = json.loads(text, parse_int=_bounded_int)
        else:
            data = json.loads(text)
    except json.JSONDecodeError as exc:
        lineno = exc.lineno if line is None else line
        raise InputError(file, f"line {lineno}, column {exc.colno}: {exc.msg}",
                         truncated=exc.msg.startswith("Unterminated") or
                         not text[exc.pos:].strip()) from None
    except RecursionError:
        raise InputError(file, f"{where}is nested too deeply (the limit is {MAX_DEPTH} "
                               "levels)") from None
    except ValueError:
        before = text[:long_int.start()]
        lineno = before.count("\n") + 1 if line is None else line
        column = long_int.start() - (before.rfind("\n") + 1) + 1
        raise InputError(file, f"line {lineno}, column {column}: an integer of "
                               f"{len(long_int.group().lstrip('-'))} digits; the limit is "
                               f"{MAX_DIGITS}") from None
    if not _tree_depth_ok(data):
        raise InputError(file, f"{where}is nested more than {MAX_DEPTH} levels deep")
    return data


def _bounded_int(digits: str) -> int:
    if len(digits.lstrip("-")) > MAX_DIGITS:
        raise ValueError("integer too long")
    return int(digits)


def read_bounded(path, limit: int = MAX_BYTES) -> str:
    """Read a text file of at most `limit` bytes. A larger or endless one (/dev/zero, a pipe
    that never ends) is an error after reading limit + 1 bytes, not an exhausted memory."""
    return decode(path, read_bytes(path, limit))


def read_bytes(path, limit: int = MAX_BYTES) -> bytes:
    """The bytes of a file of at most `limit` bytes (read_bounded, undecoded)."""
    p = Path(path)
    try:
        with open(p, "rb") as f:
            st = os.fstat(f.fileno())
            if stat.S_ISDIR(st.st_mode):
                raise InputError(str(p), "is a directory, not a file")
            if stat.S_ISREG(st.st_mode) and st.st_size > limit:
                raise InputError(str(p), f"is {st.st_size:,} bytes; the limit is {limit:,}")
            raw = f.read(limit + 1)
    except FileNotFoundError:
        raise InputError(str(p), "no such file") from None
    except IsADirectoryError:
        raise InputError(str(p), "is a directory, not a file") from None
    except OSError as exc:
        raise InputError(str(p), exc.strerror or str(exc)) from None
    if len(raw) > limit:
        raise InputError(str(p), f"is larger than the limit of {limit:,} bytes (an endless file?)")
    return raw


def decode(path, raw: bytes) -> str:
    """UTF-8 text, or an InputError naming the line of the first byte that is not."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[:exc.start].count(b"\n") + 1
        raise InputError(str(path), f"is not UTF-8 text (line {line}, byte {exc.start})") from None


def load_file(path, raw: bytes | None = None) -> object:
    """Read and parse one YAML or JSON file (`raw`: its bytes, when already read)."""
    p = Path(path)
    text = read_bounded(p) if raw is None else decode(p, raw)
    if p.suffix == ".json":
        return parse_json(text, str(p))
    return parse_text(text, str(p))


# The shipped YAML files are validated once, by `durak lint --write-index`, which stores what each
# parses to in an index beside them, under the SHA-256 of its bytes. A file whose bytes hash to an
# entry is not parsed or validated again; any other (edited, new, a user's own) is read in full.
INDEX_NAME = "index.jsonl"
INDEX_FORMAT = "durak-spec content index 1"
_SHA_FIELD = b'"sha256":"'  # how a line's facts give its digest (ContentIndex.text writes it so)


def digest(raw: bytes) -> str:
    return hashlib.sha256(raw).hexdigest()


class ContentIndex:
    """The index of one folder (INDEX_NAME): a header line {"format", "seal"}, then one line per
    file, `{"file", "sha256", ...facts}<TAB>data`, both JSON (JSON text holds no raw tab). The
    seal is the digest of what validation depended on (the schemas): an index written under other
    schemas, or unreadable, is ignored as a whole.

    The index is read as it is asked: its first SCAN_LOOKUPS digests are each found by a search of
    the file's bytes (a one-case check asks for one file of a 5 MB index), and only then is the
    whole read at once. A line is decoded when its digest is asked for; a line that does not read
    back, or whose facts name another digest, counts as absent (the file is read in full)."""

    SCAN_LOOKUPS = 8

    def __init__(self, path: Path, seal: str):
        self.path, self.seal = Path(path), seal
        self._lines: dict[str, bytes] | None = None  # sha256 -> its line, once read whole
        self._scanned: dict[str, bytes | None] = {}  # sha256 -> its line, found by a search
        self._parsed: dict[str, tuple[dict, bytes] | None] = {}  # sha256 -> (facts, data JSON)

    def _sealed(self, head: bytes) -> bool:
        try:
            return json.loads(head) == {"format": INDEX_FORMAT, "seal": self.seal}
        except (ValueError, UnicodeDecodeError):
            return False

    def _read_all(self) -> dict[str, bytes]:
        try:
            raw = self.path.read_bytes()
        except OSError:
            return {}
        head, _, rest = raw.partition(b"\n")
        if not self._sealed(head):
            return {}
        lines = {}
        for line in rest.split(b"\n"):
            at = line.find(_SHA_FIELD, 0, line.find(b"\t"))
            if at >= 0:
                lines[line[at + len(_SHA_FIELD):at + len(_SHA_FIELD) + 64].decode("ascii", "replace")] = line
        return lines

    def _search(self, sha: str) -> bytes | None:
        try:
            with open(self.path, "rb") as f:
                if not self._sealed(f.readline()):
                    return None
                with mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as m:
                    at = m.find(_SHA_FIELD + sha.encode("ascii", "replace") + b'"')
                    if at < 0:
                        return None
                    end = m.find(b"\n", at)
                    return m[m.rfind(b"\n", 0, at) + 1:len(m) if end < 0 else end]
        except (OSError, ValueError):  # unreadable, or empty (mmap of nothing)
            return None

    def _line(self, sha: str) -> bytes | None:
        if self._lines is None and len(self._scanned) >= self.SCAN_LOOKUPS:
            self._lines = self._read_all()
        if self._lines is not None:
            return self._lines.get(sha)
        if sha not in self._scanned:
            self._scanned[sha] = self._search(sha)
        return self._scanned[sha]

    def _entry(self, sha: str) -> tuple[dict, bytes] | None:
        if sha not in self._parsed:
            line, entry = self._line(sha), None
            if line is not None:
                head, _, data = line.partition(b"\t")
                try:
                    facts = json.loads(head)
                    if isinstance(facts, dict) and facts.get("sha256") == sha:
                        entry = (facts, data)
                except (ValueError, UnicodeDecodeError):
                    pass
            self._parsed[sha] = entry
        return self._parsed[sha]

    def facts(self, sha: str) -> dict | None:
        entry = self._entry(sha)
        return entry[0] if entry else None

    def data(self, sha: str):
        """What the file of this digest parses to, or None when the index does not hold it."""
        entry = self._entry(sha)
        if entry is None:
            return None
        try:
            return json.loads(entry[1])
        except (ValueError, UnicodeDecodeError):
            return None

    @staticmethod
    def text(seal: str, entries) -> str:
        """The index's text: `entries` are (file, sha256, facts, data), written in file order;
        data JSON would not read back as it is (a date, a non-string key) is left out."""
        lines = [json.dumps({"format": INDEX_FORMAT, "seal": seal})]
        for file, sha, facts, data in sorted(entries, key=lambda e: e[0]):
            text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
            if json.loads(text) != data:
                continue
            head = json.dumps({"file": file, "sha256": sha, **facts}, ensure_ascii=False,
                              separators=(",", ":"))
            lines.append(f"{head}\t{text}")
        return "\n".join(lines) + "\n"


def seal_of(files) -> str:
    """The digest of the files validation depends on (the schemas), in the order given."""
    h = hashlib.sha256()
    for f in files:
        h.update(Path(f).name.encode() + b"\0" + Path(f).read_bytes() + b"\0")
    return h.hexdigest()
