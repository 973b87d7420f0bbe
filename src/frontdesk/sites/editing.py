"""Changing a site file from outside an editor (the console's settings form).

The site file stays the one source of truth: a change is written into it, atomically, and
only when the file is still the version the change was made from (its content hash), so an
edit made on disk meanwhile is never overwritten. Only the top-level entries that changed
are rewritten; the rest of the file — comments and layout included — is kept as written.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import re
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import yaml

# Values the console never shows once written: channel credentials.
SECRET_FIELDS = (
    re.compile(r"^handoff\.slack_webhook_url$"),
    re.compile(r"^handoff\.slack_signing_secret$"),
    re.compile(r"^handoff\.webhooks\.\d+\.secret$"),
)
_TOP_LEVEL_KEY = re.compile(r"^([A-Za-z_][\w-]*)\s*:(?:\s|$)")


class SiteFileConflict(Exception):
    """The file changed on disk since the version a change was made from."""


class SiteFileNotWritable(Exception):
    """The site file or its folder cannot be written by this process."""


def file_version(text: str) -> str:
    """The version of a site file's content: what a change says it was made from."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def is_secret(field: str) -> bool:
    return any(pattern.match(field) for pattern in SECRET_FIELDS)


def _dump(data: dict[str, Any]) -> str:
    return yaml.safe_dump(data, allow_unicode=True, sort_keys=False, width=1000)


def _segments(lines: list[str]) -> tuple[list[str], list[tuple[str, list[str]]]]:
    """The lines before the first top-level key, then (key, lines) per top-level entry."""
    preamble: list[str] = []
    segments: list[tuple[str, list[str]]] = []
    for line in lines:
        match = _TOP_LEVEL_KEY.match(line)
        if match:
            segments.append((match.group(1), [line]))
        elif segments:
            segments[-1][1].append(line)
        else:
            preamble.append(line)
    return preamble, segments


def _trailing_notes(lines: list[str]) -> tuple[list[str], list[str]]:
    """An entry's own lines, and the blank and column-0 comment lines after them (they
    introduce the next entry, so they stay when this one is rewritten)."""
    cut = len(lines)
    while cut > 1 and (not lines[cut - 1].strip() or lines[cut - 1].startswith("#")):
        cut -= 1
    return lines[:cut], lines[cut:]


def rewrite_entries(text: str, data: dict[str, Any]) -> str:
    """`text` (a site file) with its top-level entries made equal to `data`: entries whose
    value changed are written anew, new ones appended, dropped ones removed, and every
    other line kept as it was. When the file's layout is beyond this (several documents,
    flow style), the whole file is written from `data`."""
    current = yaml.safe_load(text)
    if not isinstance(current, dict):
        return _dump(data)
    preamble, segments = _segments(text.splitlines(keepends=True))
    out = list(preamble)
    seen: set[str] = set()
    for key, lines in segments:
        seen.add(key)
        if key in data and current.get(key) == data[key]:
            out += lines
            continue
        _own, notes = _trailing_notes(lines)
        if key in data:
            out.append(_dump({key: data[key]}))
        out += notes
    added = [key for key in data if key not in seen]
    if added:
        if out and not out[-1].endswith("\n"):
            out.append("\n")
        out.append(_dump({key: data[key] for key in added}))
    result = "".join(out)
    try:
        same = yaml.safe_load(result) == data
    except yaml.YAMLError:
        same = False
    return result if same else _dump(data)


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    """One writer of `path` at a time, across threads, processes and (on a shared folder
    that supports locks) hosts."""
    lock_path = path.with_name(f".{path.name}.lock")
    try:
        handle = open(lock_path, "a")  # noqa: SIM115 - held for the with block below
    except OSError as exc:
        raise SiteFileNotWritable(f"{path.parent}: cannot write here ({exc.strerror})") from exc
    with handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _replace(path: Path, text: str) -> None:
    """Write `text` to `path` atomically: readers see the old file or the new one."""
    try:
        mode = path.stat().st_mode & 0o777
        fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as exc:
        raise SiteFileNotWritable(f"{path.parent}: cannot write here ({exc.strerror})") from exc
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temporary, mode)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
    with contextlib.suppress(OSError):  # the rename itself survives a crash
        directory = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(directory)
        finally:
            os.close(directory)


def update_site_file(path: Path, expected_version: str, change: Callable[[str], str]) -> str:
    """Apply `change` (old text → new text; it raises to refuse) to the site file, if its
    content is still `expected_version`; else `SiteFileConflict` and nothing is written.
    Returns the old text. Two updates from the same version: the first wins, the second
    gets the conflict."""
    with _locked(path):
        try:
            old = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise SiteFileNotWritable(f"{path}: cannot read file ({exc.strerror})") from exc
        if file_version(old) != expected_version:
            raise SiteFileConflict(str(path))
        new = change(old)
        if new != old:
            _replace(path, new)
        return old


def _leaves(value: Any, prefix: str) -> dict[str, Any]:
    """Dotted field → value; lists of mappings by index, other lists as one value."""
    if isinstance(value, dict):
        found: dict[str, Any] = {}
        for key, item in value.items():
            found |= _leaves(item, f"{prefix}.{key}" if prefix else str(key))
        return found
    if isinstance(value, list) and value and all(isinstance(item, dict) for item in value):
        found = {}
        for index, item in enumerate(value):
            found |= _leaves(item, f"{prefix}.{index}")
        return found
    return {prefix: value}


def _shown(field: str, value: Any) -> Any:
    if not is_secret(field):
        return value
    return "set" if value else "not set"


def changed_fields(before: dict[str, Any], after: dict[str, Any]) -> list[dict[str, Any]]:
    """What differs between two site configurations (their JSON dumps), field by field,
    secrets reduced to "set" / "not set" (and "set (changed)" when one secret replaces
    another): the before/after an audit keeps and shows."""
    old, new = _leaves(before, ""), _leaves(after, "")
    changes: list[dict[str, Any]] = []
    for field in [*old, *(key for key in new if key not in old)]:
        was, now = old.get(field), new.get(field)
        if was == now:
            continue
        shown_now = _shown(field, now)
        if is_secret(field) and was and now:
            shown_now = "set (changed)"
        changes.append({"field": field, "before": _shown(field, was), "after": shown_now})
    return changes


SECRET_SHOWN_AS = "(secret: set, not shown)"
_SECRET_LINE = re.compile(
    r"^(?P<key>\s*(?:-\s+)?(?:slack_webhook_url|slack_signing_secret|secret)\s*:[ \t]*)"
    r"(?P<value>[^\s#|>].*?)\s*$"
)


def hide_secrets(text: str) -> str:
    """A site file as the console shows it: each channel secret's value replaced by a
    marker (the page never carries a secret; `restore_secrets` puts them back)."""
    lines = []
    for line in text.splitlines(keepends=True):
        match = _SECRET_LINE.match(line.rstrip("\r\n"))
        if match and match.group("value") not in ("''", '""', "null", "~"):
            line = f"{match.group('key')}'{SECRET_SHOWN_AS}'\n"
        lines.append(line)
    return "".join(lines)


def _secret_slots(data: Any) -> Iterator[tuple[dict[str, Any], str, str]]:
    """(mapping, key, dotted field) of every channel secret present in a site file's data."""
    handoff = data.get("handoff") if isinstance(data, dict) else None
    if not isinstance(handoff, dict):
        return
    for key in ("slack_webhook_url", "slack_signing_secret"):
        if key in handoff:
            yield handoff, key, f"handoff.{key}"
    hooks = handoff.get("webhooks")
    for index, hook in enumerate(hooks if isinstance(hooks, list) else []):
        if isinstance(hook, dict) and "secret" in hook:
            yield hook, "secret", f"handoff.webhooks.{index}.secret"


def restore_secrets(text: str, current_text: str) -> str:
    """`text` (a site file pasted back from the console) with each hidden secret taken
    from the file as it is (`current_text`), field by field; a marker with no secret
    behind it stays, for the schema to refuse by its field."""
    if SECRET_SHOWN_AS not in text:
        return text
    try:
        data, current = yaml.safe_load(text), yaml.safe_load(current_text)
    except yaml.YAMLError:
        return text
    known = {field: holder[key] for holder, key, field in _secret_slots(current)}
    for holder, key, field in _secret_slots(data):
        if holder[key] == SECRET_SHOWN_AS and field in known:
            holder[key] = known[field]
    return _dump(data)
