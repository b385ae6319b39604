"""A store's files checked against its manifest: the store trusts nothing it did not write as it wrote it.

The manifest records, per part, each table file's size and sha256 (``parts[PART]["checksums"]``). Checked:

- **the manifest itself**: part names of the store's own form (``shard=NN/part-ID``, so every path is a file
  inside the store, in its table's folder), tables rtlab knows, each run in exactly the one part that lists it
  (a run dropped from ``runs`` but still in a part's rows, or listed by two parts, is damage), ``files`` exactly
  the files the parts name (no path outside the store, none twice);
- **each file** (cheap, on every :func:`rtlab.open`): present, a regular file (not a link) inside the store, of
  the size recorded; the schema of its table (its Parquet footer, when its table is first read);
- **each file's bytes** (``deep``: on every rebuild and :meth:`rtlab.store.Store.verify`): the sha256 recorded
  and its table's schema.
- **stamps** (:func:`read_stamps`): a file checked to its bytes and found sound is recorded with its
  ``lstat`` (size, mtime, ctime, inode, device) in its table's ``_stamps-<table>.json``; a query trusts a file
  whose ``lstat`` and recorded sha256 equal its stamp exactly (any write moves the ctime, which no process can
  set back) and checks every other file to its bytes. A rebuild and :meth:`~rtlab.store.Store.verify` read
  every byte whatever the stamps say.

A damaged part is reported with the file at fault and why (:class:`Damage`); ``rtlab build`` drops it and
rebuilds the runs it held, ``rtlab.open`` refuses the store naming it (:class:`~rtlab.errors.RtlabError`).
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rtlab.store._schema import TABLES, VERSION, arrow_schema

if TYPE_CHECKING:
    import pyarrow as pa

PART = re.compile(r"shard=\d{2,}/part-[A-Za-z0-9_-]+")
"""The form of a part's name (its path under each table's folder, without ``.parquet``)."""


@dataclass(frozen=True)
class Damage:
    """One thing wrong with a store."""

    what: str
    """The file at fault (relative to the store), or ``_manifest.json`` for the manifest's own entries."""
    why: str
    """What is wrong with it."""
    part: str | None = None
    """The part it belongs to (its runs are rebuilt), when it belongs to one."""
    runs: tuple[str, ...] = ()
    """Runs (unit paths) whose rows cannot be trusted beyond the part's own."""

    def __str__(self) -> str:
        return f"{self.what}: {self.why}"


def file_sha256(path: Path) -> str:
    """The sha256 of a file's bytes."""
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def manifest_files(manifest: dict[str, Any]) -> dict[str, list[str]]:
    """Every table's committed files (paths relative to the store), in a stable order."""
    files: dict[str, list[str]] = {name: [] for name in TABLES}
    for part, entry in sorted(manifest["parts"].items()):
        shard, name = part.split("/", 1)
        for table in entry["tables"]:
            files[table].append(f"{table}/{shard}/{name}.parquet")
    return files


def part_file(table: str, part: str) -> str:
    """A part's file of ``table``, relative to the store."""
    shard, name = part.split("/", 1)
    return f"{table}/{shard}/{name}.parquet"


def _is_str_list(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def _run_problem(entry: Any) -> str | None:
    if not isinstance(entry, dict):
        return "not an object"
    if not isinstance(entry.get("hash"), str) or not isinstance(entry.get("format"), str):
        return "no hash or format"
    shard = entry.get("shard")
    if not isinstance(shard, int) or isinstance(shard, bool) or shard < 0:
        return "no shard number"
    if entry.get("part") is not None and not isinstance(entry.get("part"), str):
        return "its part is not a name"
    if not _is_str_list(entry.get("trajectories", [])) or not _is_str_list(entry.get("extra_inputs", [])):
        return "its trajectories or extra inputs are not lists of names"
    return None


INDEX_KEYS = ("runs", "skipped", "files_seen", "order")
"""The manifest's entries that a version-3 store keeps in its index file, with each part's ``runs``."""


def sanitize(manifest: dict[str, Any], *, head: bool = False) -> list[Damage]:
    """Make the manifest's shape what rtlab writes, in place, and say what was not: a malformed run entry is
    dropped (its rows, if a part holds them, are then found by :func:`check_manifest`), malformed bookkeeping
    (skipped runs, file hashes, order, sources) is reset, a version that is not a number is taken as the
    current one (whose checks are the strictest). ``head``: a version-3 manifest without its index read (the
    index's entries are not there to check)."""
    found: list[Damage] = []

    def bad(why: str, **kw: Any) -> None:
        found.append(Damage("_manifest.json", why, **kw))

    version = manifest.get("version")
    if not isinstance(version, int) or isinstance(version, bool) or not 1 <= version <= VERSION:
        bad(f"version {version!r} is not one rtlab writes")
        manifest["version"] = VERSION
    if head:
        if not isinstance(manifest.get("parts", {}), dict):
            bad("its parts are not an object")
            manifest["parts"] = {}
        manifest.setdefault("parts", {})
        if not _is_str_list(manifest.get("sources", [])):
            bad("its sources is not a list of paths")
            manifest["sources"] = []
        if not isinstance(manifest.get("options", {}), dict):
            bad("its options are not an object")
            manifest["options"] = {}
        return found
    for key in ("runs", "parts", "skipped", "files_seen"):
        if not isinstance(manifest.get(key, {}), dict):
            bad(f"its {key} are not an object")
            manifest[key] = {}
        manifest.setdefault(key, {})
    for unit, entry in list(manifest["runs"].items()):
        why = _run_problem(entry)
        if why:
            bad(f"run {unit}: {why}", runs=(unit,))
            del manifest["runs"][unit]
    for unit, entry in list(manifest["skipped"].items()):
        if not (
            isinstance(entry, dict)
            and isinstance(entry.get("hash"), str)
            and isinstance(entry.get("error"), str)
            and _is_str_list(entry.get("extra_inputs", []))
        ):
            bad(f"skipped run {unit}: not an entry rtlab writes")
            del manifest["skipped"][unit]
    for path, entry in list(manifest["files_seen"].items()):
        if not (isinstance(entry, list) and len(entry) == 3 and isinstance(entry[0], str)):
            del manifest["files_seen"][path]  # only a cache of hashes: it is recomputed
    for key in ("order", "sources"):
        if not _is_str_list(manifest.get(key, [])):
            bad(f"its {key} is not a list of paths")
            manifest[key] = []
    if not isinstance(manifest.get("options", {}), dict):
        bad("its options are not an object")
        manifest["options"] = {}
    return found


def check_manifest(manifest: dict[str, Any], *, head: bool = False) -> list[Damage]:
    """What is wrong in the manifest's own entries, its shape :func:`sanitize`'d first (no file is opened).
    ``head``: a version-3 manifest without its index (its parts and files checked, not their runs)."""
    found: list[Damage] = []
    parts = manifest.get("parts")
    runs = manifest.get("runs")
    if not isinstance(parts, dict) or not (head or isinstance(runs, dict)):
        return [Damage("_manifest.json", "no parts or runs object: not a manifest rtlab wrote")]
    owner: dict[str, str] = {}
    for part, entry in parts.items():
        bad = _part_entry_problem(part, entry, manifest, head=head)
        if bad:
            found.append(Damage("_manifest.json", f"part {part!r}: {bad}", part=part))
            continue
        if head or not isinstance(runs, dict):
            continue
        for unit in entry["runs"]:
            run = runs.get(unit)
            if unit in owner:
                found.append(
                    Damage(
                        "_manifest.json",
                        f"run {unit} is listed by parts {owner[unit]!r} and {part!r}",
                        part=part,
                    )
                )
            elif not isinstance(run, dict):
                found.append(
                    Damage(
                        "_manifest.json",
                        f"part {part!r} holds rows of run {unit}, which the manifest's runs do not list",
                        part=part,
                    )
                )
            elif run.get("part") != part:
                found.append(
                    Damage(
                        "_manifest.json",
                        f"part {part!r} holds rows of run {unit}, whose entry names part {run.get('part')!r}",
                        part=part,
                    )
                )
            owner.setdefault(unit, part)
    for unit, run in (runs if isinstance(runs, dict) and not head else {}).items():
        where = run.get("part") if isinstance(run, dict) else None
        if where and where not in parts:
            found.append(
                Damage(
                    "_manifest.json", f"run {unit} names part {where!r}, which is not listed", runs=(unit,)
                )
            )

    if not found:
        derived = manifest_files(manifest)
        listed = manifest.get("files")
        if listed != derived:
            found.append(Damage("_manifest.json", _files_mismatch(listed, derived)))
    return found


def _part_entry_problem(part: str, entry: Any, manifest: dict[str, Any], *, head: bool = False) -> str | None:
    if not isinstance(part, str) or not PART.fullmatch(part):
        return "not a part name rtlab writes (shard=NN/part-ID): a path outside the store?"
    if (
        not isinstance(entry, dict)
        or not (head or _is_str_list(entry.get("runs")))
        or not isinstance(entry.get("tables"), list)
    ):
        return "no runs or tables list"
    tables = entry["tables"]
    if any(t not in TABLES for t in tables) or len(set(tables)) != len(tables):
        return f"tables {tables!r}: each of rtlab's tables at most once"
    sums = entry.get("checksums")
    if sums is not None or manifest.get("version", 1) >= 2:  # recorded ones are always checked
        if not isinstance(sums, dict) or set(sums) != set(tables):
            return "no size and sha256 recorded for each of its files"
        for t, s in sums.items():
            if not (isinstance(s, list) and len(s) == 2 and isinstance(s[0], int) and isinstance(s[1], str)):
                return f"the checksum of its {t} file is not [size, sha256]"
    return None


def _files_mismatch(listed: Any, derived: dict[str, list[str]]) -> str:
    if not isinstance(listed, dict):
        return "its files are not an object of lists"
    extra: list[str] = []
    for table, files in listed.items():
        if not isinstance(files, list):
            return f"its files of {table!r} are not a list"
        want = set(derived.get(table, []))
        seen: set[str] = set()
        for f in files:
            if f in seen:
                extra.append(f"{f!r} listed twice")
            elif f not in want:
                extra.append(f"{f!r}, which no part holds")
            seen.add(f)
    missing = [f for table, files in derived.items() for f in files if f not in (listed.get(table) or [])]
    said = extra + [f"{f!r} missing" for f in missing]
    return (
        "its file list does not match its parts: " + "; ".join(said[:5]) + (" ..." if len(said) > 5 else "")
    )


STAMPS = "_stamps-{table}.json"
"""A table's verification stamps in the store (:func:`read_stamps`), beside the manifest; never required."""

RACY_NS = 2_000_000_000
"""How long (ns) a file must have been unchanged (its ctime) before it is verified for its stamp to be
recorded: a file rewritten in place within the same tick of the file system's clock as its last change keeps
its ctime (git's "racy" entries), so a file changed this recently is verified in full again next time."""

Stamp = tuple[int, int, int, int, int, str]
"""A verified file's ``(size, mtime_ns, ctime_ns, inode, device, sha256)``."""


def stamp_of(st: os.stat_result, sha256: str) -> Stamp:
    """The stamp of a file of this ``lstat`` whose bytes have this sha256."""
    return (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_dev, sha256)


def _schema_key(table: str) -> str:
    """What a stamp's schema check was against: the store's version and the table's columns and types (a
    stamp recorded by an rtlab with another schema is not trusted)."""
    spec = repr((VERSION, table, [(c.name, c.type) for c in TABLES[table]]))
    return hashlib.sha256(spec.encode()).hexdigest()[:16]


def read_stamps(store: Path, table: str) -> dict[str, Stamp]:
    """``table``'s stamps in the store (:data:`STAMPS`), by file relative to the store: each file verified in
    full (sha256 and schema) with its stat as it was then. Empty when there is no stamp file, it cannot be
    read, or it is not what rtlab writes for this table's schema (a stamp only ever saves work: one that is
    wrong is ignored, never an error, and a file is trusted only when its stat and recorded sha256 equal its
    stamp exactly)."""
    from rtlab.io import parse_utf8_json

    try:
        with open(store / STAMPS.format(table=table), "rb") as fh:
            data = parse_utf8_json(fh.read())
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict) or data.get("schema") != _schema_key(table):
        return {}
    files = data.get("files")
    if not isinstance(files, dict):
        return {}
    return {rel: tuple(v) for rel, v in files.items() if isinstance(v, list) and len(v) == 6}


def write_stamps(store: Path, table: str, stamps: dict[str, Stamp], manifest: dict[str, Any]) -> bool:
    """Write ``stamps`` (of the files of ``table`` the manifest lists) as the table's stamp file, atomically;
    silently nothing where the store cannot be written (a read-only folder or mount). Whether it was
    written."""
    import json

    from rtlab.io import atomic_open

    listed = set(manifest_files(manifest)[table])
    files = {rel: list(v) for rel, v in sorted(stamps.items()) if rel in listed}
    try:
        with atomic_open(store / STAMPS.format(table=table)) as fh:
            json.dump({"schema": _schema_key(table), "files": files}, fh, separators=(",", ":"))
    except OSError:
        return False
    return True


def check_files(
    store: Path,
    manifest: dict[str, Any],
    *,
    deep: bool = False,
    tables: Collection[str] | None = None,
    manifest_damage: list[Damage] | None = None,
    stamps: dict[str, Stamp] | None = None,
    stamped: dict[str, Stamp] | None = None,
) -> list[Damage]:
    """What is wrong with the files the manifest's (well-formed) parts name (only ``tables``' files, if given):
    missing, not a regular file inside the store, another size than recorded; with ``deep`` also another
    sha256, or not its table's schema. ``manifest_damage``: what :func:`check_manifest` found in it, where the
    caller knows it already. ``stamps`` (with ``deep``): a file whose stat and recorded sha256 are exactly its
    stamp's was verified in full before and is not read again; ``stamped`` receives the stamp of each file
    verified in full here and found sound (not of one changed within :data:`RACY_NS`, or while it was read)."""
    import time

    found: list[Damage] = []
    base = str(store)
    root = str(store.resolve())
    if manifest_damage is None:
        manifest_damage = check_manifest(manifest)
    bad_parts = {d.part for d in manifest_damage if d.part}
    inside: dict[str, bool] = {base: True}
    schemas: dict[str, pa.Schema] = {}
    for table in TABLES if tables is None else tables:  # every shard folder at once: a folder listing each
        top = f"{base}/{table}"
        if top not in inside and _inside(top, base, root, inside):
            try:
                with os.scandir(top) as entries:
                    for e in entries:
                        if e.is_dir(follow_symlinks=False):  # a folder, not a link: where its table's is
                            inside[f"{top}/{e.name}"] = True
            except OSError:
                pass  # each file says what is wrong
    lstat, is_file = os.lstat, stat.S_ISREG
    for part, entry in sorted(manifest.get("parts", {}).items()):
        if part in bad_parts or not PART.fullmatch(str(part)):
            continue
        sums = entry.get("checksums")
        shard, name = part.split("/", 1)
        for table in entry["tables"]:
            if tables is not None and table not in tables:
                continue
            recorded = sums.get(table) if isinstance(sums, dict) else None
            folder = f"{base}/{table}/{shard}"
            path = f"{folder}/{name}.parquet"
            placed = inside.get(folder)
            if placed is None:
                placed = _inside(folder, base, root, inside)
            try:
                st: os.stat_result | None = lstat(path)
            except OSError:
                st = None
            if (  # the common case, without a call (opening checks every file of the store)
                st is not None
                and placed
                and is_file(st.st_mode)
                and (recorded is None or st.st_size == recorded[0])
            ):
                why = None
            else:
                why, st = _file_problem(path, folder, base, root, recorded, inside)
            rel = f"{table}/{shard}/{name}.parquet"  # part_file's, without a call per file
            if why is None and deep and st is not None:
                if stamps and recorded is not None and stamps.get(rel) == stamp_of(st, recorded[1]):
                    continue  # verified in full before, unchanged since
                now = time.time_ns()
                why = _bytes_problem(Path(path), table, recorded, schemas)
                if why is None and stamped is not None and recorded is not None:
                    try:
                        after = os.lstat(path)
                    except OSError:
                        after = None
                    if (
                        after is not None
                        and st.st_ctime_ns < now - RACY_NS
                        and stamp_of(after, recorded[1]) == stamp_of(st, recorded[1])
                    ):
                        stamped[rel] = stamp_of(st, recorded[1])
            if why:
                found.append(Damage(rel, why, part=part))
    return found


def _file_problem(
    path: str, folder: str, store: str, root: str, recorded: list[Any] | None, inside: dict[str, bool]
) -> tuple[str | None, os.stat_result | None]:
    """Why the file at ``path`` (in ``folder``) is not a part's file as recorded (and its ``lstat``, where it
    has one);
    ``inside`` caches, per folder, whether it lies inside the store once its links are followed (a part's file
    is a regular file, never a link, and its name holds no ``..``: only a linked table or shard folder can
    lead out)."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return "missing (deleted?)", None
    except OSError as exc:
        return f"cannot be read ({exc.strerror})", None
    if not stat.S_ISREG(st.st_mode):
        return "not a regular file (a link, a folder?)", st
    if not (inside.get(folder) or _inside(folder, store, root, inside)):
        return "lies outside the store", st
    if recorded is not None and st.st_size != recorded[0]:
        return f"{st.st_size} bytes, the manifest recorded {recorded[0]} (truncated or replaced)", st
    return None, st


def _inside(folder: str, store: str, root: str, seen: dict[str, bool]) -> bool:
    """Whether ``folder`` (a table's or a shard's, under ``store``, which resolves to ``root``) lies inside the
    store once links are followed: a folder that is no link lies where its parent does (an ``lstat`` each,
    not a walk of the whole path)."""
    if folder not in seen:
        parent = os.path.dirname(folder)
        try:
            plain = stat.S_ISDIR(os.lstat(folder).st_mode) and parent != folder
        except OSError:
            plain = False
        if plain:
            seen[folder] = _inside(parent, store, root, seen)
        else:
            real = os.path.realpath(folder)
            seen[folder] = real == root or real.startswith(root.rstrip(os.sep) + os.sep)
    return seen[folder]


def _bytes_problem(
    path: Path, table: str, recorded: list[Any] | None, want: dict[str, pa.Schema]
) -> str | None:

    try:
        if recorded is not None and file_sha256(path) != recorded[1]:
            return "its sha256 is not the one the manifest recorded (damaged or replaced)"
    except OSError as exc:
        return f"cannot be read ({exc.strerror or exc})"
    if table not in want:
        want[table] = arrow_schema(table)
    return schema_problem(path, table, want[table])


def schema_problem(path: Path, table: str, want: pa.Schema | None = None) -> str | None:
    """Why ``path`` is not a Parquet file of ``table``'s schema (its footer read), or ``None``; ``want``: that
    schema (:func:`~rtlab.store._schema.arrow_schema`), where the caller checks many files."""
    import pyarrow.parquet as pq

    try:
        schema = pq.read_schema(path)
    except Exception as exc:  # any failure to read the footer is damage, named
        return f"not a readable Parquet file ({type(exc).__name__}: {exc})"
    if want is None:
        want = arrow_schema(table)
    if schema.remove_metadata() != want:
        got = ", ".join(schema.names[:6]) + (" ..." if len(schema.names) > 6 else "")
        return f"not a file of table {table!r} (its columns: {got})"
    return None


def verify(
    store: Path,
    manifest: dict[str, Any],
    *,
    deep: bool,
    head: bool = False,
    stamped: dict[str, Stamp] | None = None,
) -> list[Damage]:
    """Everything wrong with the store: its manifest's shape (made right in place, :func:`sanitize`), its
    entries, then its files (``deep``: their bytes). ``head``: a version-3 manifest without its index (all
    but the index's entries checked)."""
    shape = sanitize(manifest, head=head)
    entries = check_manifest(manifest, head=head)
    files = check_files(store, manifest, deep=deep, manifest_damage=entries, stamped=stamped)
    return shape + entries + files


def damage_message(store: Path, found: list[Damage], manifest: dict[str, Any]) -> str:
    """The error ``rtlab.open`` raises for a damaged store: each damaged file with why, and how to repair."""
    sources = " ".join(manifest.get("sources") or []) or "RUNS"
    lines = [f"{store}: damaged store ({len(found)} problem{'s' if len(found) != 1 else ''}):"]
    lines += [f"  {d}" for d in found[:10]]
    if len(found) > 10:
        lines.append(f"  ... and {len(found) - 10} more")
    lines.append(
        f"rebuild it to repair (the damaged parts' runs are read again): rtlab build {sources} -o {store}"
    )
    return "\n".join(lines)
