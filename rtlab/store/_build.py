"""``rtlab build``: the store's Parquet tables written once per run, incrementally, atomically.

The per-run work is one picklable function, :func:`build_unit`: read one unit (``rtlab.ingest.read_found_unit``: as found),
replay each trajectory (as ``rtlab.runner`` does), and turn it into the rows of every table with the tidy-table
functions the analyses use (``rtlab.environment`` tables, ``rtlab.analysis`` summaries, values, diagnosis labels,
scores, tab statistics). :func:`build_store` maps it over the new and changed runs with a pluggable *mapper*
(:func:`local_mapper`: worker processes; a cluster's mapper plugs in the same way), writes the rows into
``<table>/shard=NN/<part>.parquet`` files and then commits the manifest (:data:`MANIFEST`), the one file that
says which parts are the store. Layout and manifest: docs/STORE.md.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import itertools
import json
import os
import re
import time
import uuid
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from rtlab.store._schema import TABLES, VERSION, to_arrow
from rtlab.store._verify import INDEX_KEYS, Damage, file_sha256, manifest_files

if TYPE_CHECKING:
    import pyarrow as pa

    from rtlab.environment import Replay

MANIFEST = "_manifest.json"
"""The store's manifest: its commit point. Written atomically after every part it lists; readers read only
the files it lists."""
SCHEMA = "rtlab.store"
INDEX_PREFIX = "_index-"
"""A version-3 store's index files: ``_index-<the first 16 hex digits of its sha256>.json``."""
INDEX_FILE = re.compile(r"_index-[0-9a-f]{16}\.json")
"""The form of an index file's name (it lies in the store's folder, beside the manifest)."""
DEFAULT_SHARDS = 16
"""Shards a store's runs are spread over (by their unit path): a rebuild rewrites only the parts of the shards
whose runs changed."""
CHECKPOINT_RUNS = 2000
"""Runs processed between two commits of the manifest (each commit a readable store a rerun resumes from)."""
CHECKPOINT_SECONDS = 120.0
"""Seconds between two commits at most."""
FLUSH_BYTES = 128 * 1024**2
"""Built rows held in memory at most (Arrow bytes): past it the fullest shard's runs are written as a part ahead
of the commit, so the build's memory does not grow with the commit interval."""

Mapper = Callable[[Callable[[Any], Any], Sequence[Any]], Iterator[Any]]
"""Maps a picklable one-argument function over items, yielding results in any order (as they finish)."""


@dataclass(frozen=True)
class BuildOptions:
    """What decides a store's rows beyond the runs' files (part of the manifest's key: a change rebuilds all)."""

    format: str | None = None
    """Read only units of this format; ``None``: every format, detected by content."""
    clip: str | None = None
    """Clip policy for the readers; ``None`` keeps each reader's default."""
    join: bool = True
    """Join each trajectory with its benchmark files (tasks, rubrics, judge results)."""
    shards: int = DEFAULT_SHARDS
    """Shards the runs are spread over (folders ``shard=00`` ...)."""

    def key(self) -> dict[str, Any]:
        """The options, rtlab's version and the fingerprint of its code, as recorded in the manifest; also the
        decompression limits the readers apply (``RTLAB_MAX_MEMBER_BYTES`` / ``RTLAB_MAX_ARCHIVE_BYTES``), since
        they decide which samples are read: raising one rebuilds the store."""
        from rtlab.ingest import ReadOptions

        return {
            **asdict(self),
            "read_limits": asdict(ReadOptions().limits()),
            "rtlab_version": rtlab_version(),
            "rtlab_code": code_fingerprint(),
            "store_version": VERSION,
        }


def rtlab_version() -> str:
    """rtlab's installed version (``unknown`` when it runs from a folder that was not installed)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("rtlab")
    except PackageNotFoundError:
        return "unknown"


_NOT_ROWS = (
    "figures",
    "view",
    "synth",
    "llm",
    "display",
    "store/_open.py",
    "store/_alias.py",
    "cli/",
    "__main__.py",
)
"""Parts of rtlab that no stored row depends on (their changes rebuild nothing)."""


@functools.lru_cache(maxsize=1)
def code_fingerprint() -> str:
    """The sha256 (16 hex digits) of the rtlab source files a store's rows depend on: a change to any of them
    (a reader, the environment, an analysis, the codebook) rebuilds every run."""
    root = Path(__file__).resolve().parent.parent
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if path.suffix in (".py", ".json") and path.is_file() and not rel.startswith(_NOT_ROWS):
            digest.update(rel.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


@dataclass(frozen=True)
class UnitTask:
    """One run to build: what a worker (local or on a cluster) needs (picklable)."""

    unit: str
    """The unit's path (file or run folder), in the form of :func:`rtlab.ingest.unit_path`."""
    format: str
    """Its reader's format name."""
    run_hash: str
    """The run's hash (its path and the content of its files), tagged on every row."""
    options: BuildOptions
    """The build's options."""
    strict: bool = False
    """Refuse the run when reading it gives a warning (``--strict``); it is then skipped as failed."""


@dataclass
class UnitRows:
    """What :func:`build_unit` gives back for one run: its rows of every table, or why it failed."""

    unit: str
    """The unit's path."""
    run_hash: str
    """The hash it was built as."""
    tables: dict[str, pa.Table] = field(default_factory=dict)
    """Rows by table name (Arrow, cast to the store's schema); empty when it failed."""
    trajectories: list[str] = field(default_factory=list)
    """Ids of its trajectories."""
    extra_inputs: list[str] = field(default_factory=list)
    """Files beyond the unit that reading it used (run labels, judge results): their changes rebuild it."""
    error: str | None = None
    """Why it could not be read or replayed (the batch goes on); ``None`` when built."""


def _describe(exc: BaseException) -> str:
    from rtlab.errors import RtlabError

    return str(exc) if isinstance(exc, RtlabError | OSError | ValueError) else f"{type(exc).__name__}: {exc}"


def unit_frames(replays: Sequence[Replay]) -> dict[str, Any]:
    """Every store table's in-memory frame for some replays (each holding its trajectory), computed by the
    functions the analyses use: the one definition of each table's rows."""
    import pandas as pd

    from rtlab.analysis import (
        diagnosis_rows,
        labels_frame,
        scores_frame,
        summary_frame,
        tab_stats_frame,
        value_rows,
        values_of,
        values_table,
    )
    from rtlab.environment import tables
    from rtlab.records import trajectory_to_dict

    trajectories = [r.trajectory for r in replays if r.trajectory is not None]
    frames: dict[str, Any] = dict(tables(replays))
    frames["trajectories"] = summary_frame(trajectories)
    frames["records"] = pd.DataFrame(
        {
            "trajectory": [t.id for t in trajectories],
            "record": [json.dumps(trajectory_to_dict(t), ensure_ascii=False) for t in trajectories],
        }
    )
    frames["tab_stats"] = tab_stats_frame(replays)
    frames["values"] = values_table([row for r in replays for row in value_rows(r)])
    of = values_of(frames["values"])  # the diagnosis reads the values computed once, not again
    labels = labels_frame(
        [row for r in replays for row in diagnosis_rows(r, of(r.trajectory.id if r.trajectory else ""))]
    )
    labels.insert(labels.columns.get_loc("category"), "annotator", "rules")
    frames["labels"] = labels
    frames["scores"] = scores_frame(trajectories)
    return frames


def build_unit(task: UnitTask) -> UnitRows:
    """Read one run, replay each of its trajectories (default tab, no requirements: what ``rtlab values`` and
    ``rtlab diagnose`` replay) and return its rows of every table; a failure is returned, never raised.

    Top-level and picklable, so that any mapper (worker processes, a cluster) can run it."""
    from rtlab.environment import replay
    from rtlab.ingest import read_found_unit

    out = UnitRows(task.unit, task.run_hash)
    try:  # the unit in the form of unit_path already (UnitTask.unit): not resolved again
        trajectories = read_found_unit(
            Path(task.unit),
            task.format,
            clip=task.options.clip,
            join=task.options.join,
            strict=task.strict,
            detected=task.options.format is None,
        )
        replays = []
        for t in trajectories:
            r = replay(t)
            r.tab.candidates_ranked()
            replays.append(r)
        frames = unit_frames(replays)
        out.tables = {name: to_arrow(name, frames[name], task.run_hash) for name in TABLES}
        out.trajectories = [t.id for t in trajectories]
        out.extra_inputs = sorted(_extra_inputs(trajectories, Path(task.unit)))
    except Exception as exc:  # reported, and the batch goes on
        out.tables, out.error = {}, _describe(exc)
    return out


def _extra_inputs(trajectories: Iterable[Any], unit: Path) -> set[str]:
    """Files outside the unit that its trajectories were joined with (run labels, judge results)."""
    found: set[str] = set()
    root = unit.resolve()
    for t in trajectories:
        candidates = [t.meta.get("labels_from"), t.judgement.source_path if t.judgement else None]
        candidates += list(t.meta.get("workspace_bench_other_judges") or [])
        if t.task is not None:  # a task's file beside its judge results or the run (Workspace-Bench)
            for folder in {Path(c).parent for c in candidates if isinstance(c, str) and c} | {unit.parent}:
                candidates += [str(folder / "metadata.json"), str(folder / "output" / "metadata.json")]
        for c in candidates:
            if isinstance(c, str) and c:
                p = Path(c).resolve()
                if p.is_file() and (root.is_file() and p != root or root.is_dir() and root not in p.parents):
                    found.add(str(p))
    return found


# ---------------------------------------------------------------------------------------------------------
# Hashing the runs' files


def unit_files(unit: Path) -> list[Path]:
    """The unit's own files: the file itself, or every file under the folder (links not followed), sorted."""
    if unit.is_file():
        return [unit]
    found = []
    for folder, dirs, files in os.walk(unit):
        dirs.sort()
        for name in sorted(files):
            p = Path(folder) / name
            if p.is_file() and not p.is_symlink():
                found.append(p)
    return found


class _Hasher:
    """File hashes, reusing the manifest's where a file's size and modification time are those recorded. An
    entry is ``[sha256, size, mtime_ns]`` (a list, not an object: the manifest holds one per input file)."""

    def __init__(self, known: dict[str, Any]) -> None:
        self.known = known
        self.seen: dict[str, list[Any]] = {}

    def sha(self, path: Path) -> str:
        """The sha256 of ``path``'s bytes, hashed again only when its size or modification time changed."""
        key = str(path)
        entry = self.seen.get(key)
        if entry is None:
            st = path.stat()
            old = self.known.get(key)
            if isinstance(old, dict):  # a store written before entries were lists
                old = [old.get("sha256"), old.get("size"), old.get("mtime_ns")]
            if old is not None and old[1] == st.st_size and old[2] == st.st_mtime_ns:
                entry = list(old)
            else:
                entry = [file_sha256(path), st.st_size, st.st_mtime_ns]
            self.seen[key] = entry
        return str(entry[0])


def run_hash(unit: str, inputs: dict[str, str]) -> str:
    """A run's hash: its unit path and the sha256 of every input file (16 hex digits)."""
    text = unit + "\n" + "\n".join(f"{p}\0{h}" for p, h in sorted(inputs.items()))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def shard_of(unit: str, shards: int) -> int:
    """The shard of a unit: a function of its path alone, so a changed run stays in its shard."""
    return int(hashlib.sha256(unit.encode("utf-8")).hexdigest()[:8], 16) % shards


# ---------------------------------------------------------------------------------------------------------
# The manifest


def read_manifest(store: Path, *, whole: bool = True) -> dict[str, Any] | None:
    """The store's committed manifest, or ``None`` when there is none; a damaged one is an error. ``whole``:
    with a version-3 store's index read into it (:func:`read_index`), as one manifest of version 2 held it all;
    else the manifest file alone (its ``index`` naming the rest)."""
    from rtlab.errors import RtlabError
    from rtlab.io import parse_utf8_json

    path = store / MANIFEST
    try:
        data = parse_utf8_json(path.read_bytes())
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        raise RtlabError(
            f"{path}: unreadable store manifest ({exc}); remove {store} to build the store anew"
        ) from None
    if not isinstance(data, dict) or data.get("schema") != SCHEMA:
        raise RtlabError(
            f"{path}: not an rtlab store manifest (schema {SCHEMA!r}); remove {store} to build the store anew"
        )
    if whole and "index" in data:
        merge_index(data, read_index(store, data))
    return data


def index_problem(store: Path, head: dict[str, Any]) -> tuple[dict[str, Any] | None, str | None]:
    """The index a version-3 manifest names, read and checked against the size and sha256 it records, or
    ``None`` and what is wrong with it (missing, another size or sha256, not an index rtlab writes)."""
    ref = head.get("index")
    if not (
        isinstance(ref, dict)
        and isinstance(ref.get("file"), str)
        and INDEX_FILE.fullmatch(ref["file"])
        and isinstance(ref.get("size"), int)
        and isinstance(ref.get("sha256"), str)
    ):
        return None, "its index is not an entry rtlab writes ({file, size, sha256})"
    try:
        data = (store / ref["file"]).read_bytes()
    except FileNotFoundError:
        return None, f"its index {ref['file']} is missing (deleted?)"
    except OSError as exc:
        return None, f"its index {ref['file']} cannot be read ({exc.strerror or exc})"
    if len(data) != ref["size"] or hashlib.sha256(data).hexdigest() != ref["sha256"]:
        return None, f"its index {ref['file']}: not the size and sha256 it records (damaged or replaced)"
    try:
        index = json.loads(data)
    except ValueError as exc:
        return None, f"its index {ref['file']} is not JSON ({exc})"
    if not isinstance(index, dict) or not isinstance(index.get("part_runs", {}), dict):
        return None, f"its index {ref['file']} is not an index rtlab writes"
    return index, None


def read_index(store: Path, head: dict[str, Any]) -> dict[str, Any]:
    """The index a version-3 manifest names (:func:`index_problem`); a damaged one is an error that says how
    to repair it."""
    from rtlab.errors import RtlabError

    index, why = index_problem(store, head)
    if index is None:
        sources = " ".join(head.get("sources") or []) or "RUNS"
        raise RtlabError(
            f"{store}: damaged store ({MANIFEST}: {why}); rebuild it to repair (every run is read again): "
            f"rtlab build {sources} -o {store}"
        )
    return index


def merge_index(head: dict[str, Any], index: dict[str, Any]) -> None:
    """Put a version-3 store's index back into its manifest, in place: the manifest as one dictionary, as
    version 2 wrote it (each part's ``runs`` in its entry)."""
    head.pop("index", None)
    head.pop("n_runs", None)
    for key in INDEX_KEYS:
        if key in index:
            head[key] = index[key]
    parts = head.get("parts")
    for part, runs in index.get("part_runs", {}).items():
        if isinstance(parts, dict) and isinstance(parts.get(part), dict):
            parts[part]["runs"] = runs


def is_store(path: str | Path) -> bool:
    """Whether ``path`` is a folder holding a store (its manifest)."""
    return (Path(path) / MANIFEST).is_file()


def _empty_manifest(options: BuildOptions) -> dict[str, Any]:
    return {
        "schema": SCHEMA,
        "version": VERSION,
        "options": options.key(),
        "sources": [],
        "runs": {},
        "parts": {},
        "skipped": {},
        "files_seen": {},
    }


def _write_manifest(store: Path, manifest: dict[str, Any]) -> None:
    """Commit ``manifest`` (the whole dictionary, as :func:`read_manifest` gives it): its entries that grow
    with the runs into a new index file named by its sha256, then the manifest naming it (the commit point);
    index files neither it nor the manifest it replaced names are removed (a reader that opened the store
    before this commit may still read the one it names)."""
    from rtlab.io import atomic_open

    manifest["files"] = manifest_files(manifest)
    # the current version once every part records its checksums (a store being rebuilt from version 1 says 1
    # until its last old part is replaced, so that opening it meanwhile does not call those parts damaged)
    manifest["version"] = VERSION if all("checksums" in p for p in manifest["parts"].values()) else 1
    manifest["committed_at"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    index = {key: manifest[key] for key in INDEX_KEYS if key in manifest}
    index["part_runs"] = {part: entry["runs"] for part, entry in manifest["parts"].items()}
    data = json.dumps(index, separators=(",", ":")).encode()  # compact: it grows with the runs
    sha = hashlib.sha256(data).hexdigest()
    name = f"{INDEX_PREFIX}{sha[:16]}.json"
    with atomic_open(store / name, "wb", private=True) as fh:
        fh.write(data)
    head = {key: value for key, value in manifest.items() if key not in INDEX_KEYS}
    head["parts"] = {p: {k: v for k, v in e.items() if k != "runs"} for p, e in manifest["parts"].items()}
    head["n_runs"] = len(manifest["runs"])
    head["index"] = {"file": name, "size": len(data), "sha256": sha}
    before = _named_index(store)
    with atomic_open(store / MANIFEST, private=True) as fh:
        json.dump(head, fh, separators=(",", ":"))
    for old in store.glob(f"{INDEX_PREFIX}*.json"):
        if old.name not in (name, before):
            old.unlink(missing_ok=True)


def _named_index(store: Path) -> str | None:
    """The index file the committed manifest names, if any."""
    try:
        ref = json.loads((store / MANIFEST).read_text(encoding="utf-8")).get("index")
    except (OSError, ValueError, AttributeError):
        return None
    return ref.get("file") if isinstance(ref, dict) else None


# ---------------------------------------------------------------------------------------------------------
# Building


Change = Literal["added", "changed", "removed", "unchanged", "skipped"]


@dataclass
class BuildSummary:
    """What a build did."""

    store: str
    """The store's folder."""
    added: list[str] = field(default_factory=list)
    """Units built for the first time."""
    changed: list[str] = field(default_factory=list)
    """Units rebuilt because a file of theirs changed (or the options or rtlab's version did)."""
    removed: list[str] = field(default_factory=list)
    """Units gone from the paths: their rows were removed."""
    unchanged: list[str] = field(default_factory=list)
    """Units whose files did not change: not processed."""
    skipped: dict[str, str] = field(default_factory=dict)
    """Units that could not be read or replayed, with why (their rows, if any, removed)."""
    unclaimed: int = 0
    """Files found that no reader claims."""
    rebuild_reason: str | None = None
    """Why every run was rebuilt (options or version changed), if it was."""
    damaged: list[str] = field(default_factory=list)
    """What was found damaged in the store before building (a part's file missing, truncated, of another
    sha256 or schema than recorded; the manifest's entries at odds with its parts), each with why: the parts
    at fault were dropped and their runs rebuilt (counted in ``changed``)."""

    @property
    def processed(self) -> int:
        """Runs read and replayed by this build."""
        return len(self.added) + len(self.changed) + len(self.skipped_now)

    skipped_now: list[str] = field(default_factory=list)
    """Of the skipped units, those this build tried (the others failed before and did not change)."""

    def format(self) -> str:
        """The summary as a few lines for a person."""
        lines = [
            f"store {self.store}: {len(self.added)} added, {len(self.changed)} changed, {len(self.removed)} removed, "
            f"{len(self.unchanged)} unchanged, {len(self.skipped)} skipped"
        ]
        if self.rebuild_reason:
            lines.append(f"  every run rebuilt: {self.rebuild_reason}")
        for damage in self.damaged:
            lines.append(f"  damaged, repaired: {damage}")
        for unit, why in self.skipped.items():
            lines.append(f"  skipped {unit}: {why}")
        if self.unclaimed:
            lines.append(f"  {self.unclaimed} files no reader claims were not read")
        return "\n".join(lines)


IN_FLIGHT = 4
"""Runs submitted ahead per worker process: results are taken as they finish, so at most this many per worker
(and the writer's buffer) are held at once, whatever the number of runs."""


def local_mapper(jobs: int) -> Mapper:
    """A mapper over ``jobs`` worker processes (``rtlab._workers.process_pool``: they die with this process);
    in this process for one job. At most :data:`IN_FLIGHT` runs per worker are submitted ahead and each result
    is let go once yielded, so memory stays flat over any number of runs."""

    def mapper(fn: Callable[[Any], Any], items: Sequence[Any]) -> Iterator[Any]:
        if jobs <= 1 or len(items) < 2:
            yield from map(fn, items)
            return
        from concurrent.futures import FIRST_COMPLETED, Future, wait

        from rtlab._workers import process_pool

        pending = iter(items)
        with process_pool(jobs) as pool:
            running: set[Future[Any]] = set()
            try:
                for item in itertools.islice(pending, jobs * IN_FLIGHT):
                    running.add(pool.submit(fn, item))
                while running:
                    done, running = wait(running, return_when=FIRST_COMPLETED)
                    for fut in done:
                        nxt = next(pending, _END)
                        if nxt is not _END:
                            running.add(pool.submit(fn, nxt))
                        yield fut.result()
                    del done
            finally:
                for fut in running:
                    fut.cancel()

    return mapper


_END = object()


def cluster_mapper(address: str, *, progress: bool = False) -> Mapper:
    """A mapper over the Dask scheduler at ``address`` (:func:`rtlab._cluster.cluster_mapper`): a run that fails
    there (its worker lost, an error) comes back as a run skipped with the reason, like one failing locally."""
    from rtlab._cluster import cluster_mapper as on_cluster

    def failed(task: UnitTask, mapped: Any) -> UnitRows:
        return UnitRows(task.unit, task.run_hash, error=str(mapped.error))

    return on_cluster(address, on_failure=failed, progress=progress, desc="build")


class _Writer:
    """Buffers built runs by shard and commits them: new parts written, parts holding replaced rows rewritten
    without them, then the manifest; files no manifest lists any more removed last."""

    def __init__(
        self, store: Path, manifest: dict[str, Any], build_id: str, *, buffer_bytes: int = FLUSH_BYTES
    ) -> None:
        self.store = store
        self.buffer_bytes = buffer_bytes
        self.manifest = manifest
        self.build_id = build_id
        self.seq = 0
        self.buffer: dict[int, list[tuple[str, UnitRows, dict[str, Any]]]] = {}
        self.buffered: dict[int, int] = {}  # bytes of Arrow data buffered per shard
        self.pending: list[tuple[str, list[tuple[str, dict[str, Any]]], dict[str, list[Any]]]] = []
        """Parts written since the last commit, not yet in any manifest: (part, its runs, its files' checksums
        by table)."""
        self.incoming: set[str] = set()  # units built since the last commit (their old rows go at the commit)
        self.drop: set[str] = set()  # units whose committed rows must go at the next commit

    def add(self, unit: str, rows: UnitRows, entry: dict[str, Any]) -> None:
        """Buffer a built run; past ``buffer_bytes`` (:data:`FLUSH_BYTES`) of buffered rows the fullest shards are written out
        as parts (listed by no manifest until the next commit, so a stopped build leaves them as garbage)."""
        shard = entry["shard"]
        self.buffer.setdefault(shard, []).append((unit, rows, entry))
        self.incoming.add(unit)
        self.buffered[shard] = self.buffered.get(shard, 0) + sum(t.nbytes for t in rows.tables.values())
        while sum(self.buffered.values()) > self.buffer_bytes:
            self._flush(max(self.buffered, key=lambda k: self.buffered[k]))

    def _flush(self, shard: int) -> None:
        items = self.buffer.pop(shard, [])
        self.buffered.pop(shard, None)
        good = [(u, r, e) for u, r, e in items if r.error is None]
        if not good:
            return
        part = self._part_name(shard)
        tables = {t: [r.tables[t] for _, r, _ in good] for t in TABLES}
        self.pending.append((part, [(u, e) for u, _, e in good], self._write_part(part, tables)))

    def _part_name(self, shard: int) -> str:
        self.seq += 1
        return f"shard={shard:02d}/part-{self.build_id}-{self.seq:05d}"

    def _write_part(self, part: str, tables: dict[str, list[pa.Table]]) -> dict[str, list[Any]]:
        """Write a part's file of each table that has rows; each file's ``[size, sha256]`` by table (what the
        manifest records, and :mod:`rtlab.store._verify` checks). Pages carry CRC checksums too."""
        import pyarrow as pa
        import pyarrow.parquet as pq

        from rtlab.io import atomic_open

        written: dict[str, list[Any]] = {}
        shard, name = part.split("/", 1)
        for table, pieces in tables.items():
            pieces = [p for p in pieces if p.num_rows]
            if not pieces:
                continue
            data = pa.concat_tables(pieces)
            target = self.store / table / shard / f"{name}.parquet"
            target.parent.mkdir(parents=True, exist_ok=True)
            with atomic_open(target, "wb", private=True) as fh:
                pq.write_table(data, fh, compression="zstd", row_group_size=64_000, write_page_checksum=True)
            written[table] = [target.stat().st_size, file_sha256(target)]
        return written

    def commit(self) -> None:
        import pyarrow.compute as pc
        import pyarrow.parquet as pq

        for shard_no in sorted(self.buffer):
            self._flush(shard_no)
        runs, parts = self.manifest["runs"], self.manifest["parts"]
        dropping = self.drop | self.incoming
        old_parts: set[str] = set()
        for unit in dropping:
            old = runs.get(unit)
            if old is not None and old.get("part"):
                old_parts.add(old["part"])
        obsolete: list[str] = []
        for part in sorted(old_parts):  # rewrite each part that holds rows to drop, without them
            entry = parts.pop(part)
            keep_units = [u for u in entry["runs"] if u not in dropping]
            obsolete += [
                f"{t}/{part.split('/', 1)[0]}/{part.split('/', 1)[1]}.parquet" for t in entry["tables"]
            ]
            if not keep_units:
                continue
            keep_hashes = [runs[u]["hash"] for u in keep_units]
            shard = part.split("/", 1)[0]
            tables: dict[str, list[pa.Table]] = {}
            for t in entry["tables"]:
                data = pq.read_table(
                    self.store / t / shard / f"{part.split('/', 1)[1]}.parquet",
                    page_checksum_verification=True,
                )
                tables[t] = [data.filter(pc.is_in(data["run_hash"], value_set=pa_array(keep_hashes)))]
            new = self._part_name(int(shard.split("=")[1]))
            sums = self._write_part(new, tables)
            parts[new] = {"runs": keep_units, "tables": list(sums), "checksums": sums}
            for u in keep_units:
                runs[u]["part"] = new
        for unit in self.drop:
            runs.pop(unit, None)
        for part, members, sums in self.pending:
            parts[part] = {"runs": [u for u, _ in members], "tables": list(sums), "checksums": sums}
            for u, e in members:
                runs[u] = {**e, "part": part}
        _write_manifest(self.store, self.manifest)  # the commit point
        for rel in obsolete:
            (self.store / rel).unlink(missing_ok=True)
        self.pending.clear()
        self.incoming.clear()
        self.drop.clear()


def _repair(store: Path, manifest: dict[str, Any], summary: BuildSummary, malformed: list[Any]) -> None:
    """Check the committed store (its manifest's entries, every file's size, sha256 and schema; ``malformed``:
    what :func:`~rtlab.store._verify.sanitize` already found and mended) and drop what is damaged: each part at
    fault leaves the manifest, and the runs it held (and runs whose entries cannot be trusted) are rebuilt by
    this build; each finding goes to ``summary.damaged``."""
    from rtlab.store._verify import verify

    found = malformed + verify(store, manifest, deep=True)
    if not found:
        return
    summary.damaged = [str(d) for d in found]
    parts, runs = manifest["parts"], manifest["runs"]
    if not isinstance(parts, dict) or not isinstance(runs, dict):
        manifest["parts"], manifest["runs"] = {}, {}
        return
    redo: set[str] = {u for d in found for u in d.runs}
    for part in {d.part for d in found if d.part}:
        entry = parts.pop(part, None)
        if isinstance(entry, dict) and isinstance(entry.get("runs"), list):
            redo.update(u for u in entry["runs"] if isinstance(u, str))
    for unit, entry in list(runs.items()):
        if not isinstance(entry, dict):
            runs.pop(unit)
        elif unit in redo or entry.get("part") not in parts:
            entry["part"] = None
            entry["stale"] = True  # rebuilt, its rows written anew


def pa_array(values: list[str]) -> Any:
    import pyarrow as pa

    return pa.array(values, type=pa.string())


def _collect_garbage(store: Path, manifest: dict[str, Any]) -> None:
    """Remove table files no committed manifest lists (a build stopped before its commit left them, or they
    were found damaged). Links are removed as links, never followed: a table or shard folder that is a link
    out of the store is unlinked, and nothing outside the store is touched."""
    listed = {rel for files in manifest_files(manifest).values() for rel in files}
    for table in TABLES:
        folder = store / table
        if folder.is_symlink():
            folder.unlink()
            continue
        if not folder.is_dir():
            continue
        for here, dirs, files in os.walk(folder):
            for name in list(dirs):
                if (Path(here) / name).is_symlink():
                    (Path(here) / name).unlink()
                    dirs.remove(name)
            for name in files:
                path = Path(here) / name
                if path.relative_to(store).as_posix() not in listed:
                    path.unlink(missing_ok=True)


def build_store(
    paths: Iterable[str | Path],
    out: str | Path,
    options: BuildOptions | None = None,
    *,
    jobs: int = 1,
    mapper: Mapper | None = None,
    progress: bool = False,
    strict: bool = False,
    checkpoint_runs: int = CHECKPOINT_RUNS,
    checkpoint_seconds: float = CHECKPOINT_SECONDS,
    buffer_bytes: int = FLUSH_BYTES,
    follow_links: bool = False,
) -> BuildSummary:
    """Build or update the store in ``out`` from every unit under ``paths``.

    Only new and changed runs are processed (a run's hash covers its path, its files and the files it was
    joined with; the options and rtlab's version key the whole store); the rows of runs gone from ``paths``,
    and of runs that now fail, are removed. Commits the manifest every ``checkpoint_runs`` runs or
    ``checkpoint_seconds`` and at the end: a build stopped at any moment leaves the last committed store
    readable, and a rerun resumes from it. ``mapper`` runs :func:`build_unit` (default
    :func:`local_mapper` with ``jobs``). With ``strict`` the first unit that fails stops the build
    (:class:`~rtlab.errors.UnitError`; what was committed stays). One build writes a store at a time
    (:data:`LOCK`). At most ``buffer_bytes`` of built rows are held between commits (the rest is written as
    parts the next commit lists)."""
    options = options or BuildOptions()
    store = Path(out)
    store.mkdir(parents=True, exist_ok=True)
    with _build_lock(store):
        return _build(
            paths,
            store,
            options,
            jobs,
            mapper,
            progress,
            strict,
            checkpoint_runs,
            checkpoint_seconds,
            buffer_bytes,
            follow_links,
        )


LOCK = "_build.lock"
"""Held (with the builder's pid) while a build writes the store: one build at a time."""


@contextlib.contextmanager
def _build_lock(store: Path) -> Iterator[None]:
    """Hold the store's build lock; a lock left by a build that died is taken over, one held by a live
    process is an error naming it."""
    from rtlab.errors import RtlabError

    path = store / LOCK
    for _ in range(2):
        try:
            fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
        except FileExistsError:
            try:
                pid = int(path.read_text(encoding="utf-8").strip() or 0)
                os.kill(pid, 0)
            except (ValueError, OSError):  # unreadable, or its process is gone: a stopped build's
                path.unlink(missing_ok=True)
                continue
            raise RtlabError(f"{store}: another build (pid {pid}) is writing this store ({path})") from None
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(str(os.getpid()))
        break
    else:
        raise RtlabError(f"{path}: could not take the build lock")
    try:
        yield
    finally:
        path.unlink(missing_ok=True)


def _build(
    paths: Iterable[str | Path],
    store: Path,
    options: BuildOptions,
    jobs: int,
    mapper: Mapper | None,
    progress: bool,
    strict: bool,
    checkpoint_runs: int,
    checkpoint_seconds: float,
    buffer_bytes: int,
    follow_links: bool,
) -> BuildSummary:
    from rtlab.errors import UnitError
    from rtlab.ingest import iter_units
    from rtlab.store._verify import sanitize

    paths = list(paths)
    old = read_manifest(store, whole=False)
    summary = BuildSummary(str(store))
    lost: list[Damage] = []
    if old is not None and "index" in old:
        index, why = index_problem(store, old)
        if index is None:  # the runs' entries are lost: every part is dropped, every run rebuilt
            lost.append(Damage(MANIFEST, f"{why}: every run is rebuilt"))
            index = {"part_runs": {}}
            old["parts"] = {}
        merge_index(old, index)
    malformed = lost + (sanitize(old) if old is not None else [])  # before anything reads its entries
    if old is not None and old.get("options") != options.key():
        summary.rebuild_reason = f"options or version changed ({old.get('options')} -> {options.key()})"
    manifest = old if old is not None and summary.rebuild_reason is None else _empty_manifest(options)
    if old is not None and summary.rebuild_reason is not None:  # keep the old rows until replaced
        manifest = {**old, "options": options.key()}
        for entry in manifest["runs"].values():
            entry["stale"] = True  # every run counts as changed
    if old is not None:
        _repair(store, manifest, summary, malformed)
    _collect_garbage(store, manifest)

    unclaimed: list[Any] = []
    found_units: Iterable[tuple[Path, str]] = iter_units(
        paths, format=options.format, unclaimed=unclaimed, follow_links=follow_links
    )
    if progress:
        from tqdm.auto import tqdm

        found_units = tqdm(found_units, desc="find", unit="run")
    units = [(str(u), f) for u, f in found_units]  # in the one form of a unit's path (ingest.unit_path)
    summary.unclaimed = len(unclaimed)
    manifest["sources"] = [str(Path(p).resolve()) for p in paths]
    hasher = _Hasher(manifest.get("files_seen", {}))
    runs, skipped_before = manifest["runs"], manifest.get("skipped", {})
    todo: list[UnitTask] = []
    entries: dict[str, dict[str, Any]] = {}
    bar_units: Iterable[tuple[str, str]] = units
    if progress:
        from tqdm.auto import tqdm

        bar_units = tqdm(units, desc="hash", unit="run")
    for unit, fmt in bar_units:
        known = runs.get(unit) or skipped_before.get(unit) or {}
        inputs = {}
        for p in unit_files(Path(unit)):
            inputs[str(p)] = hasher.sha(p)
        for extra in known.get("extra_inputs", []):
            p = Path(extra)
            inputs[extra] = hasher.sha(p) if p.is_file() else "missing"
        h = run_hash(unit, inputs)
        entry = {
            "hash": h,
            "format": fmt,
            "shard": shard_of(unit, options.shards),
            "extra_inputs": known.get("extra_inputs", []),
        }
        entries[unit] = entry
        if unit in runs and runs[unit]["hash"] == h and not runs[unit].get("stale"):
            summary.unchanged.append(unit)
        elif (
            unit in skipped_before
            and skipped_before[unit].get("hash") == h
            and summary.rebuild_reason is None
        ):
            summary.skipped[unit] = skipped_before[unit]["error"]
        else:
            todo.append(UnitTask(unit, fmt, h, options, strict))
    found = {u for u, _ in units}
    manifest["skipped"] = {u: s for u, s in skipped_before.items() if u in found and u in summary.skipped}
    manifest["files_seen"] = hasher.seen
    manifest["order"] = [u for u, _ in units]
    writer = _Writer(
        store,
        manifest,
        time.strftime("%Y%m%dT%H%M%S", time.gmtime()) + "-" + uuid.uuid4().hex[:6],
        buffer_bytes=buffer_bytes,
    )
    for unit in list(runs):
        if unit not in found:
            summary.removed.append(unit)
            writer.drop.add(unit)

    mapper = mapper or local_mapper(jobs)
    results: Iterable[UnitRows] = mapper(build_unit, todo)
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=len(todo), desc="build", unit="run")
    since, last = 0, time.monotonic()
    try:
        for rows in results:
            if bar is not None:
                bar.update(1)
            unit = rows.unit
            entry = {**entries[unit], "trajectories": rows.trajectories}
            if rows.error is not None:
                summary.skipped[unit] = rows.error
                summary.skipped_now.append(unit)
                manifest["skipped"][unit] = {
                    "hash": rows.run_hash,
                    "error": rows.error,
                    "format": entry["format"],
                    "extra_inputs": entry["extra_inputs"],
                }
                if unit in runs:
                    writer.drop.add(unit)
                if strict:
                    writer.commit()
                    raise UnitError(f"{unit}: {rows.error}")
                continue
            manifest["skipped"].pop(unit, None)
            entry["extra_inputs"] = rows.extra_inputs
            if rows.extra_inputs:  # joined files count in the run's hash from now on
                inputs = {str(p): hasher.sha(p) for p in unit_files(Path(unit))}
                inputs.update({x: hasher.sha(Path(x)) for x in rows.extra_inputs})
                entry["hash"] = run_hash(unit, inputs)
                rows.tables = {t: _retag(d, entry["hash"]) for t, d in rows.tables.items()}
                rows.run_hash = entry["hash"]
            (summary.changed if unit in runs else summary.added).append(unit)
            writer.add(unit, rows, entry)
            since += 1
            if since >= checkpoint_runs or time.monotonic() - last >= checkpoint_seconds:
                writer.commit()
                since, last = 0, time.monotonic()
        writer.commit()
    finally:
        if bar is not None:
            bar.close()
    return summary


def _retag(data: pa.Table, run_hash: str) -> pa.Table:
    import pyarrow as pa

    i = data.schema.get_field_index("run_hash")
    return data.set_column(i, "run_hash", pa.array([run_hash] * data.num_rows, type=pa.string()))
