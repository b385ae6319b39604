"""``rtlab.open(STORE)``: the store's tables as DataFrames, and SQL over them through DuckDB.

A :class:`Store` reads only the files its manifest lists (what the last build committed), so a build running
or stopped beside it never shows it half a run. It trusts none of them blindly (:mod:`rtlab.store._verify`):
opening checks the manifest's entries; a table's files are checked when the table is first used (their
presence, place and size; reading checks their schema and every page's CRC; SQL, through DuckDB, which checks
no CRC: every file's sha256 before the first query, unless its stamp shows it unchanged since it was last
checked so), so a query pays for the tables it names only, and a damaged file is named in an
:class:`~rtlab.errors.RtlabError` that says how to repair it (:meth:`Store.verify` checks every file of every
table to its bytes). Each table is also a DuckDB view over those files
(:meth:`Store.sql`); DuckDB, Polars or Spark can read the files themselves (``STORE/<table>/shard=*/*.parquet``,
hive-partitioned by ``shard``; docs/STORE.md).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rtlab.store._build import MANIFEST, merge_index, read_index, read_manifest
from rtlab.store._schema import KEY_COLUMNS, TABLES, arrow_schema, restore
from rtlab.store._verify import (
    Damage,
    Stamp,
    check_files,
    check_manifest,
    damage_message,
    part_file,
    read_stamps,
    sanitize,
    schema_problem,
    stamp_of,
    verify,
    write_stamps,
)

if TYPE_CHECKING:
    import duckdb
    import pandas as pd

    from rtlab.records import Trajectory

Filter = tuple[str, str, Any]
"""A row filter as pyarrow takes it: ``(column, op, value)``, op one of ``==``, ``!=``, ``<``, ``>``, ``<=``,
``>=``, ``in``, ``not in``."""


class Store:
    """A built store, as its manifest committed it when opened."""

    def __init__(self, path: str | Path) -> None:
        from rtlab.errors import RtlabError

        self.path = Path(path)
        manifest = read_manifest(self.path, whole=False)
        if manifest is None:
            raise RtlabError(
                f"{self.path}: not a store (no {MANIFEST}); build one with rtlab build RUNS -o {path}"
            )
        self._indexed = "index" not in manifest
        """Whether the manifest holds its runs' entries (version 1 or 2, or a version-3 index read)."""
        found = sanitize(manifest, head=not self._indexed) + check_manifest(manifest, head=not self._indexed)
        if found:
            raise RtlabError(damage_message(self.path, found, manifest))
        self.manifest: dict[str, Any] = manifest
        """The manifest as committed; of a version-3 store, without its index's entries until one is needed
        (:meth:`whole_manifest`)."""
        self._stamps: dict[str, dict[str, Stamp]] = {}
        """Per table, its files verified in full before (:func:`~rtlab.store._verify.read_stamps`), with
        their stat then; read when the table is first checked."""
        self._schema_checked: set[str] = set()
        self._ordered: dict[str, int] | None = None
        self._con: duckdb.DuckDBPyConnection | None = None
        self._views: set[str] = set()
        self._hashed: set[str] = set()
        """Tables whose files were verified in full since opening (:meth:`_verified`)."""
        self._present: set[str] = set()
        """Tables whose files were found present, in place and of their recorded size since opening
        (:meth:`files`: a table's files are checked when the table is first used, not on opening)."""

    def whole_manifest(self) -> dict[str, Any]:
        """The manifest with its index read and checked (its size and sha256, then its runs' entries against
        the parts, as a version-2 manifest's are on opening), once."""
        from rtlab.errors import RtlabError

        if not self._indexed:
            merge_index(self.manifest, read_index(self.path, self.manifest))
            found = sanitize(self.manifest) + check_manifest(self.manifest)
            if found:
                raise RtlabError(damage_message(self.path, found, self.manifest))
            self._indexed = True
        return self.manifest

    @property
    def _order(self) -> dict[str, int]:
        """Each run's place in the order its units were found, by run hash."""
        if self._ordered is None:
            manifest = self.whole_manifest()
            order = {u: i for i, u in enumerate(manifest.get("order", []))}
            self._ordered = {e["hash"]: order.get(u, len(order)) for u, e in manifest["runs"].items()}
        return self._ordered

    def __repr__(self) -> str:
        n = len(self.manifest["runs"]) if self._indexed else self.manifest.get("n_runs", "?")
        return f"Store({str(self.path)!r}: {n} runs)"

    @property
    def tables(self) -> list[str]:
        """The table names."""
        return list(TABLES)

    @property
    def sources(self) -> list[str]:
        """The paths the store was built from."""
        return list(self.manifest.get("sources", []))

    @property
    def runs(self) -> dict[str, dict[str, Any]]:
        """Every run built, by unit path: its hash, format, shard, part and trajectory ids."""
        return dict(self.whole_manifest()["runs"])

    @property
    def skipped(self) -> dict[str, str]:
        """Units that could not be read or replayed, with why."""
        return {u: e["error"] for u, e in self.whole_manifest().get("skipped", {}).items()}

    def files(self, table: str) -> list[Path]:
        """The committed Parquet files of ``table``, each checked present, inside the store and of the size
        the manifest records (once per store opened; a damaged one is named in an ``RtlabError``)."""
        self._check(table)
        self._check_present(table)
        return [self.path / rel for rel in self.manifest["files"].get(table, [])]

    def check(self) -> None:
        """Check every table's files present, inside the store and of the size the manifest records (what
        using a table checks of its own files; :meth:`verify` checks their bytes too), naming each damaged one
        in an ``RtlabError``. The command line checks so before it reads a store."""
        self._check_present(*TABLES)

    def _check_present(self, *tables: str) -> None:
        """Raise, naming each, if a file of ``tables`` is missing, lies outside the store or has another size
        than recorded; once per table and store opened (a table verified in full was checked so too)."""
        from rtlab.errors import RtlabError

        todo = [t for t in tables if t not in self._present]
        if not todo:
            return
        found = check_files(self.path, self.manifest, tables=todo, manifest_damage=[])
        if found:
            raise RtlabError(damage_message(self.path, found, self.manifest))
        self._present.update(todo)

    def verify(self) -> list[Damage]:
        """Everything damaged in the store, each file checked to its bytes (its sha256 and schema against the
        manifest's record): an empty list when the store is as its last build committed it. Every file is
        read, stamped or not; the stamps of those found sound are renewed."""
        stamped: dict[str, Stamp] = {}
        found = verify(self.path, self.whole_manifest(), deep=True, stamped=stamped)
        for table in TABLES:
            self._stamp(table, {rel: v for rel, v in stamped.items() if rel.startswith(f"{table}/")})
        return found

    def _stamps_of(self, table: str) -> dict[str, Stamp]:
        if table not in self._stamps:
            self._stamps[table] = read_stamps(self.path, table)
        return self._stamps[table]

    def _stamp(self, table: str, stamped: dict[str, Stamp]) -> None:
        """Record the stamps of ``table``'s files just verified in full (when any is new), if the store can be
        written."""
        known = self._stamps_of(table)
        if any(known.get(rel) != v for rel, v in stamped.items()):
            known.update(stamped)
            write_stamps(self.path, table, known, self.manifest)

    def _read_files(self, table: str) -> list[str]:
        """``table``'s files, their schemas checked (once per store opened) before anything reads them."""
        from rtlab.errors import RtlabError

        files = self.files(table)
        if table not in self._schema_checked:
            want = arrow_schema(table)
            sums = {
                part_file(table, part): entry["checksums"][table][1]
                for part, entry in self.manifest["parts"].items()
                if table in entry["tables"] and isinstance(entry.get("checksums"), dict)
            }
            found = [
                Damage(str(f.relative_to(self.path)), why)
                for f in files
                if not self._trusted(f, sums, self._stamps_of(table))
                if (why := schema_problem(f, table, want)) is not None
            ]
            if found:
                raise RtlabError(damage_message(self.path, found, self.manifest))
            self._schema_checked.add(table)
        return [str(f) for f in files]

    def _trusted(self, file: Path, sums: dict[str, str], stamps: dict[str, Stamp]) -> bool:
        """Whether ``file`` is as its stamp says it was when verified in full (its schema checked then)."""
        rel = file.relative_to(self.path).as_posix()
        if rel not in stamps or rel not in sums:
            return False
        try:
            return stamp_of(os.lstat(file), sums[rel]) == stamps[rel]
        except OSError:
            return False

    def _raise_if_damaged(self) -> None:
        """After a read failed: name the damaged files (every file's bytes checked) in an error, if any is."""
        from rtlab.errors import RtlabError

        found = self.verify()
        if found:
            raise RtlabError(damage_message(self.path, found, self.manifest)) from None

    def _check(self, table: str) -> None:
        if table not in TABLES:
            raise KeyError(f"no table {table!r} in the store (tables: {', '.join(TABLES)})")

    def table(
        self,
        name: str,
        *,
        columns: Sequence[str] | None = None,
        filters: Sequence[Filter] | None = None,
        keys: bool = False,
    ) -> pd.DataFrame:
        """One table as a DataFrame, equal to the frame the analyses compute in memory (same columns, types,
        rows in the runs' order): only ``columns`` are read, only rows passing ``filters``; with ``keys`` also
        ``run_hash`` and ``shard``."""
        import pyarrow as pa
        import pyarrow.dataset as ds

        self._check(name)
        wanted = list(columns) if columns is not None else [c.name for c in TABLES[name]]
        read = list(dict.fromkeys([*wanted, "run_hash"]))
        files = self._read_files(name)
        schema = arrow_schema(name).append(pa.field("shard", pa.int64()))
        if files:
            dataset = ds.dataset(
                files,
                schema=schema,
                format=ds.ParquetFileFormat(
                    default_fragment_scan_options=ds.ParquetFragmentScanOptions(
                        page_checksum_verification=True
                    )
                ),
                partitioning=ds.partitioning(pa.schema([("shard", pa.int64())]), flavor="hive"),
                partition_base_dir=str(self.path / name),
            )
            expr = _expression(filters) if filters else None
            try:
                data = dataset.to_table(columns=[*read, "shard"] if keys else read, filter=expr)
            except (pa.ArrowException, OSError):
                self._raise_if_damaged()
                raise
        else:
            data = schema.empty_table().select([*read, "shard"] if keys else read)
        order = [self._order.get(h, len(self._order)) for h in data.column("run_hash").to_pylist()]
        data = data.take(
            pa.array(sorted(range(len(order)), key=order.__getitem__), type=pa.int64())
        )  # the runs' order, rows kept in order
        return restore(name, data, [*wanted, *(["run_hash", "shard"] if keys else [])])

    def trajectories(self, **kw: Any) -> pd.DataFrame:
        """One row per trajectory (``rtlab.analysis.summary_frame``)."""
        return self.table("trajectories", **kw)

    def steps(self, **kw: Any) -> pd.DataFrame:
        """One row per step and what the tab held after it (``rtlab.environment.steps_tab_frame``)."""
        return self.table("steps", **kw)

    def read_log(self, **kw: Any) -> pd.DataFrame:
        """One row per read-log entry (``rtlab.environment.read_log_frame``)."""
        return self.table("read_log", **kw)

    def candidates(self, **kw: Any) -> pd.DataFrame:
        """One row per candidate left on the tab (``rtlab.environment.candidates_frame``)."""
        return self.table("candidates", **kw)

    def requirements(self, **kw: Any) -> pd.DataFrame:
        """One row per requirement (``rtlab.environment.requirements_frame``)."""
        return self.table("requirements", **kw)

    def tab_stats(self, **kw: Any) -> pd.DataFrame:
        """One row per trajectory: what its final tab holds (``rtlab.analysis.tab_stats_frame``)."""
        return self.table("tab_stats", **kw)

    def values(self, **kw: Any) -> pd.DataFrame:
        """One row per expected value (``rtlab.analysis.values_frame``)."""
        return self.table("values", **kw)

    def labels(self, **kw: Any) -> pd.DataFrame:
        """One row per failed rubric item and annotator (``rtlab.analysis.diagnose_frame`` + ``annotator``)."""
        return self.table("labels", **kw)

    def scores(self, **kw: Any) -> pd.DataFrame:
        """One row per trajectory: the benchmark metric's inputs (``rtlab.analysis.scores_frame``)."""
        return self.table("scores", **kw)

    def load_trajectories(self, ids: Sequence[str] | None = None) -> list[Trajectory]:
        """The trajectories themselves (from the ``records`` table), in the runs' order; only ``ids`` if given."""
        import pyarrow as pa
        import pyarrow.compute as pc
        import pyarrow.parquet as pq

        from rtlab.records import trajectory_from_dict

        try:
            pieces = [
                pq.read_table(
                    f, columns=["trajectory", "record", "run_hash"], page_checksum_verification=True
                )
                for f in self._read_files("records")
            ]
        except (pa.ArrowException, OSError):
            self._raise_if_damaged()
            raise
        if not pieces:
            return []
        data = pa.concat_tables(pieces)
        if ids is not None:
            data = data.filter(pc.is_in(data["trajectory"], value_set=pa.array(list(ids), type=pa.string())))
        order = [self._order.get(h, len(self._order)) for h in data.column("run_hash").to_pylist()]
        records = data.column("record").to_pylist()
        ranked = sorted(range(len(records)), key=order.__getitem__)
        return [trajectory_from_dict(json.loads(records[i])) for i in ranked]

    def _verified(self, name: str) -> list[str]:
        """Table ``name``'s files (paths), each file's sha256 and schema checked against the manifest first,
        once per store opened (DuckDB checks no Parquet page CRC); a file whose stat is exactly its stamp's
        was checked so before and is trusted (:func:`~rtlab.store._verify.check_files`)."""
        from rtlab.errors import RtlabError

        if name in self._hashed:
            return self._paths(name)
        stamped: dict[str, Stamp] = {}
        found = check_files(
            self.path,
            self.manifest,
            deep=True,
            tables=(name,),
            manifest_damage=[],
            stamps=self._stamps_of(name),
            stamped=stamped,
        )
        if found:
            raise RtlabError(damage_message(self.path, found, self.manifest))
        self._stamp(name, stamped)
        self._schema_checked.add(name)
        self._hashed.add(name)
        self._present.add(name)
        return self._paths(name)

    def _paths(self, name: str) -> list[str]:
        """The paths of table ``name``'s committed files, as strings (:meth:`files` without a ``Path`` each)."""
        self._check(name)
        base = str(self.path)
        return [f"{base}/{rel}" for rel in self.manifest["files"].get(name, [])]

    def _view(self, con: duckdb.DuckDBPyConnection, name: str) -> None:
        """Make table ``name`` a view over its committed files in ``con``, once, its files checked first
        (:meth:`_verified`)."""
        if name in self._views:
            return
        files = self._verified(name)
        if files:
            con.execute(f'CREATE VIEW "{name}" AS SELECT * FROM {_scan(files)}')
        else:
            empty = arrow_schema(name).empty_table()  # noqa: F841  (DuckDB reads it by name)
            con.execute(f'CREATE TABLE "{name}" AS SELECT *, 0::BIGINT AS shard FROM empty')
        self._views.add(name)

    def _connection(self) -> duckdb.DuckDBPyConnection:
        if self._con is None:
            import duckdb

            self._con = duckdb.connect()
        return self._con

    def connect(self) -> duckdb.DuckDBPyConnection:
        """A DuckDB connection (in memory) with every table a view over its committed files; reused. DuckDB
        does not check Parquet pages' CRCs, so each table's files' sha256 are checked before its view is made
        (once per store opened; about a second per GB)."""
        con = self._connection()
        for name in TABLES:
            self._view(con, name)
        return con

    def sql(self, query: str, params: Sequence[Any] | None = None) -> pd.DataFrame:
        """The result of a DuckDB query over the tables (each a view of the same name) as a DataFrame. Only the
        tables the query names are read (their files checked first, as :meth:`connect` checks them): the
        names DuckDB's parser finds in it, and any other the query turns out to need.

        A single ``SELECT`` naming tables that have files runs with each of them a common table expression
        over its files, inlined (``NOT MATERIALIZED``: what a view is), ahead of the query: what a view costs
        DuckDB beyond the query (binding it when made, again in the query, dropping it) is not paid. Where
        that fails (a query with its own ``WITH``, any error) the query runs as written over views, so its
        errors read as the query was written."""
        import duckdb

        con = self._connection()
        names = _named_tables(con, query)
        inline = [(name, self._verified(name)) for name in names if name not in self._views]
        if inline and all(files for _, files in inline) and _one_select(con, query):
            ctes = ", ".join(
                f'"{name}" AS NOT MATERIALIZED (SELECT * FROM {_scan(files)})' for name, files in inline
            )
            try:
                return con.execute(f"WITH {ctes}\n{query}", params or []).df()
            except duckdb.Error:
                pass  # as written, over views: the error (if any) as the query reads
        for name in names:
            self._view(con, name)
        while True:
            try:
                return con.execute(query, params or []).df()
            except duckdb.CatalogException as exc:
                missing = _MISSING_TABLE.search(str(exc))
                table = missing.group(1).lower() if missing else None
                if table is None or table not in TABLES or table in self._views:
                    raise
                self._view(con, table)  # a name the parser could not see (a query it cannot bind alone)
            except (duckdb.IOException, duckdb.InvalidInputException, duckdb.InternalException):
                self._raise_if_damaged()
                raise

    def close(self) -> None:
        """Close the DuckDB connection, if one was opened."""
        if self._con is not None:
            self._con.close()
            self._con = None
            self._views.clear()


def _scan(files: list[str]) -> str:
    """DuckDB's scan of a table's files (hive-partitioned: ``shard`` from the folder)."""
    listed = ", ".join("'" + f.replace("'", "''") + "'" for f in files)
    return f"read_parquet([{listed}], hive_partitioning = true)"


def _one_select(con: duckdb.DuckDBPyConnection, query: str) -> bool:
    """Whether ``query`` is one ``SELECT`` statement, as DuckDB's parser reads it."""
    import duckdb

    try:
        statements = con.extract_statements(query)
    except duckdb.Error:
        return False
    return len(statements) == 1 and statements[0].type == duckdb.StatementType.SELECT


_MISSING_TABLE = re.compile(r"Table with name ([^ !]+) does not exist")
"""DuckDB's words for a table a query names that the connection does not hold (a ``CatalogException``)."""


def _named_tables(con: duckdb.DuckDBPyConnection, query: str) -> list[str]:
    """The store's tables ``query`` names, as DuckDB's parser finds them (none where it cannot: a query it
    cannot take alone, such as a join ``USING`` columns, has its tables found when it runs). Through the
    store's own connection: DuckDB's module-level parser would first open its default database (~10 ms in a
    new process)."""
    import duckdb

    try:
        names = con.get_table_names(query, qualified=False)
    except duckdb.Error:
        return []
    return sorted({n.lower() for n in names} & set(TABLES))


def _expression(filters: Sequence[Filter]) -> Any:
    import pyarrow.compute as pc

    ops = {
        "==": lambda f, v: f == v,
        "=": lambda f, v: f == v,
        "!=": lambda f, v: f != v,
        "<": lambda f, v: f < v,
        ">": lambda f, v: f > v,
        "<=": lambda f, v: f <= v,
        ">=": lambda f, v: f >= v,
        "in": lambda f, v: f.isin(list(v)),
        "not in": lambda f, v: ~f.isin(list(v)),
    }
    expr = None
    for col, op, value in filters:
        if op not in ops:
            raise ValueError(f"unknown filter operator {op!r} (one of {', '.join(ops)})")
        term = ops[op](pc.field(col), value)
        expr = term if expr is None else expr & term
    return expr


def open_store(path: str | Path) -> Store:
    """The store in ``path`` (``rtlab.open``)."""
    return Store(path)


KEYS = tuple(c.name for c in KEY_COLUMNS)
"""The key columns every table has in its files (``run_hash``) and folders (``shard``)."""


def stores_in(paths: Sequence[str | Path]) -> list[Store] | None:
    """The stores ``paths`` name when every one is a store folder (told by its manifest); ``None`` when none
    is; a mix of stores and runs is a ``ValueError``."""
    from rtlab.store._build import is_store

    found = [is_store(p) for p in paths]
    if not any(found):
        return None
    if not all(found):
        mixed = ", ".join(str(p) for p, s in zip(paths, found, strict=True) if not s)
        raise ValueError(f"give either stores or runs, not both (not stores: {mixed})")
    return [open_store(p) for p in paths]


def concat_tables(stores: Sequence[Store], name: str) -> pd.DataFrame:
    """One table of several stores, one after the other."""
    import pandas as pd

    frames = [s.table(name) for s in stores]
    return frames[0] if len(frames) == 1 else pd.concat(frames, ignore_index=True)
