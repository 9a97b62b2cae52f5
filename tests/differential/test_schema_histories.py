"""Random schema histories against Hive 2.3.9 (``make differential``, not in ``make test``).

Each table lives through a random history of the changes estates make (columns added,
renamed, dropped, moved, widened; struct fields added, renamed, dropped, at any depth, inside
arrays and maps too); each partition was written at some point of it, by a writer that may
spell names in another case or as ``_colN``, as ORC or Parquet, and declares the columns of its
time or, after a CASCADE, the table's. What Hive's own FetchOperator shows
(``tests/helpers/hive_oracle.py``) under its defaults, with positional ORC evolution and with
case-insensitive names, against both of lakeshift's readers under the same switches, value by
value. Where Hive refuses a table, lakeshift must refuse it too. ``LAKESHIFT_DIFF_SEED`` and
``LAKESHIFT_HISTORY_TABLES`` choose the run.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import random
from dataclasses import dataclass, replace
from decimal import Decimal
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from lakeshift.config import Settings
from lakeshift.inspect.inspector import inspect_table
from lakeshift.metastore.client import MetastoreClient
from tests.helpers.hive_oracle import hive_answers
from tests.helpers.hive_tables import HiveTableBuilder, alone_partition, unique_name
from tests.helpers.readers import both_readers
from tests.integration.test_orc_conversions import _same, _shown

pytestmark = [pytest.mark.differential, pytest.mark.slow]

ROWS = 5
#: a type: a primitive's Hive name, or ("struct", fields), ("array", element), ("map", value)
Node = Any
Field = tuple[str, Node]

PRIMITIVES = ["int", "bigint", "smallint", "string", "double", "float", "boolean", "date",
              "timestamp", "decimal(8,2)", "decimal(12,2)"]  # fmt: skip
NESTED_PRIMITIVES = ["int", "bigint", "smallint", "string", "boolean", "double"]
#: the type changes Hive allows that readers convert (ALTER TABLE ... CHANGE)
WIDER = {"smallint": "int", "int": "bigint", "float": "double", "decimal(8,2)": "decimal(12,2)"}
ARROW = {"int": pa.int32(), "bigint": pa.int64(), "smallint": pa.int16(), "string": pa.string(),
         "double": pa.float64(), "float": pa.float32(), "boolean": pa.bool_(),
         "date": pa.date32(), "timestamp": pa.timestamp("us"),
         "decimal(8,2)": pa.decimal128(8, 2), "decimal(12,2)": pa.decimal128(12, 2)}  # fmt: skip
MODES = {
    "names": ({}, {}),
    "positions": ({"mapping_mode": "position"}, {"orc.force.positional.evolution": "true"}),
    "any case": (
        {"name_case_sensitive": False},
        {"orc.schema.evolution.case.sensitive": "false"},
    ),
}


class Names:
    def __init__(self) -> None:
        self.count = 0

    def __call__(self, prefix: str) -> str:
        self.count += 1
        return f"{prefix}{self.count}"


def hive_type(node: Node) -> str:
    if isinstance(node, str):
        return node
    kind, inner = node
    if kind == "struct":
        return "struct<" + ",".join(f"{n}:{hive_type(t)}" for n, t in inner) + ">"
    if kind == "array":
        return f"array<{hive_type(inner)}>"
    return f"map<string,{hive_type(inner)}>"


def _random_node(rng: random.Random, names: Names, depth: int) -> Node:
    roll = rng.random()
    if depth >= 2 or roll < (0.6 if depth == 0 else 0.5):
        return rng.choice(PRIMITIVES if depth == 0 else NESTED_PRIMITIVES)
    if roll < 0.78:
        fields = [
            (names("f"), _random_node(rng, names, depth + 1)) for _ in range(rng.randint(1, 3))
        ]
        return ("struct", fields)
    if roll < 0.9:
        return ("array", _random_node(rng, names, depth + 1))
    return ("map", _random_node(rng, names, depth + 1))


def _structs(node: Node, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """The paths of every struct inside ``node`` (its own included)."""
    if isinstance(node, str):
        return []
    kind, inner = node
    if kind == "struct":
        found = [path]
        for index, (_, child) in enumerate(inner):
            found += _structs(child, (*path, index))
        return found
    return _structs(inner, (*path, "inner"))


def _primitives(node: Node, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    if isinstance(node, str):
        return [path]
    kind, inner = node
    if kind == "struct":
        return [p for i, (_, c) in enumerate(inner) for p in _primitives(c, (*path, i))]
    return _primitives(inner, (*path, "inner"))


def _get(node: Node, path: tuple[Any, ...]) -> Node:
    for step in path:
        node = node[1] if step == "inner" else node[1][step][1]
    return node


def _set(node: Node, path: tuple[Any, ...], new: Node) -> Node:
    if not path:
        return new
    kind, inner = node
    step, rest = path[0], path[1:]
    if step == "inner":
        return (kind, _set(inner, rest, new))
    fields = list(inner)
    fields[step] = (fields[step][0], _set(fields[step][1], rest, new))
    return (kind, fields)


def _change(rng: random.Random, names: Names, columns: list[Field]) -> list[Field]:
    """One schema change of the table (``rid``, the first column, is never touched)."""
    columns = list(columns)
    movable = list(range(1, len(columns)))
    op = rng.choice(["add", "add", "rename", "drop", "move", "widen", "nested"])
    if op == "add" or not movable:
        columns.append((names("c"), _random_node(rng, names, 0)))
    elif op == "rename":
        i = rng.choice(movable)
        columns[i] = (names("c"), columns[i][1])
    elif op == "drop" and len(movable) > 1:
        del columns[rng.choice(movable)]
    elif op == "move" and len(movable) > 1:
        column = columns.pop(rng.choice(movable))
        columns.insert(rng.randint(1, len(columns)), column)
    elif op == "widen":
        spots = [(i, p) for i in movable for p in _primitives(columns[i][1])
                 if _get(columns[i][1], p) in WIDER]  # fmt: skip
        if spots:
            i, path = rng.choice(spots)
            name, node = columns[i]
            columns[i] = (name, _set(node, path, WIDER[_get(node, path)]))
    else:
        spots = [(i, p) for i in movable for p in _structs(columns[i][1])]
        if spots:
            i, path = rng.choice(spots)
            name, node = columns[i]
            kind, fields = _get(node, path)
            fields = list(fields)
            how = rng.choice(["add", "rename", "drop"])
            if how == "add" or len(fields) == 1:
                fields.append((names("f"), rng.choice(NESTED_PRIMITIVES)))
            elif how == "rename":
                j = rng.randrange(len(fields))
                fields[j] = (names("f"), fields[j][1])
            else:
                del fields[rng.randrange(len(fields))]
            columns[i] = (name, _set(node, path, (kind, fields)))
    return columns


def _arrow(node: Node, spell: Any) -> pa.DataType:
    if isinstance(node, str):
        return ARROW[node]
    kind, inner = node
    if kind == "struct":
        return pa.struct([(spell(n), _arrow(t, spell)) for n, t in inner])
    if kind == "array":
        return pa.list_(_arrow(inner, spell))
    return pa.map_(pa.string(), _arrow(inner, spell))


def _value(rng: random.Random, node: Node) -> Any:
    if rng.random() < 0.12:
        return None
    if isinstance(node, str):
        if node in ("int", "bigint", "smallint"):
            return rng.choice([0, 1, -1, 7, 300, -32768, 32767, rng.randint(-999, 999)])
        if node == "string":
            return rng.choice(["a", "bc", "", "x y", "Q9", "12"])
        if node in ("double", "float"):
            return rng.choice([0.0, 1.5, -2.25, 100.0, 0.5, 1024.75])
        if node == "boolean":
            return rng.random() < 0.5
        if node == "date":
            return dt.date(1990, 1, 1) + dt.timedelta(days=rng.randint(0, 20000))
        if node == "timestamp":
            return dt.datetime(1990, 1, 1) + dt.timedelta(seconds=rng.randint(0, 10**9))
        return Decimal(rng.randint(-99999, 99999)).scaleb(-2)
    kind, inner = node
    if kind == "struct":
        return {n: _value(rng, t) for n, t in inner}
    if kind == "array":
        return [_value(rng, inner) for _ in range(rng.randint(0, 3))]
    keys = rng.sample(["k1", "k2", "k3", "K1"], rng.randint(0, 3))
    return [(k, _value(rng, inner)) for k in keys]


def _spelled(value: Any, node: Node, spell: Any) -> Any:
    """A value with its struct field names spelled as the writer spells them."""
    if value is None or isinstance(node, str):
        return value
    kind, inner = node
    if kind == "struct":
        return {spell(n): _spelled(value[n], t, spell) for n, t in inner}
    if kind == "array":
        return [_spelled(v, inner, spell) for v in value]
    return [(k, _spelled(v, inner, spell)) for k, v in value]


@dataclass
class History:
    table: str
    columns: list[Field]
    converted: set[str]  # partitions Hive reads through its converters (not ORC)
    partitions: list[str]


def _build(rng: random.Random, client: MetastoreClient, tables_root: Path, names: Names) -> History:
    """A table through a random history; one or two partitions written at each step."""
    versions = [[("rid", "int"), *((names("c"), _random_node(rng, names, 0)) for _ in range(3))]]
    for _ in range(rng.randint(2, 5)):
        versions.append(_change(rng, names, versions[-1]))
    final = versions[-1]
    b = HiveTableBuilder(client, tables_root, "histories", unique_name("h"),
                         [(n, hive_type(t)) for n, t in final])  # fmt: skip
    number = 0
    converted = set()
    for columns in versions:
        for _ in range(rng.randint(1, 2)):
            fmt = "parquet" if rng.random() < 0.25 else "orc"
            upper = rng.random() < 0.2
            deep = upper and rng.random() < 0.5
            deep_spell = (lambda n: n.upper()) if deep else (lambda n: n)
            names_in_file = [n.upper() if upper and n != "rid" else n for n, _ in columns]
            if fmt == "orc" and rng.random() < 0.15:
                names_in_file = [f"_col{i}" for i in range(len(columns))]
            data = {}
            for (name, node), spelled in zip(columns, names_in_file, strict=True):
                values = [_value(rng, node) for _ in range(ROWS)]
                if name == "rid":
                    values = list(range(ROWS))
                data[spelled] = pa.array(
                    [_spelled(v, node, deep_spell) for v in values], _arrow(node, deep_spell)
                )
            declared = final if rng.random() < 0.25 else columns  # CASCADE or not
            b.add_partition(
                [f"p{number}"],
                {"000000_0": pa.table(data)},
                columns=[(n, hive_type(t)) for n, t in declared],
                fmt=fmt,
            )
            if fmt != "orc":
                converted.add(f"p{number}")
            number += 1
    return History(f"{b.db}.{b.name}", final, converted, [f"p{i}" for i in range(number)])


def _plain(value: Any) -> Any:
    """A reader's value as Python's ``json`` would load Hive's text of it."""
    if hasattr(value, "asDict"):
        value = value.asDict(recursive=True)
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def _alike(shown: Any, mine: Any, stale: bool) -> bool:
    """Hive's value (loaded from its text) against a reader's; ``stale``: Hive's ORC table
    list inspector never shrinks a list its converter fills (``OrcStruct``'s
    ``OrcListObjectInspector.resize``), so a list read from a Parquet or text partition of
    an ORC table keeps an earlier row's trailing elements (README "Limits")."""
    if isinstance(shown, dict) and isinstance(mine, dict):
        return shown.keys() == mine.keys() and all(_alike(shown[k], mine[k], stale) for k in shown)
    if isinstance(shown, list) and isinstance(mine, list):
        if len(shown) != len(mine) and not (stale and len(shown) > len(mine)):
            return False
        return all(_alike(a, b, stale) for a, b in zip(shown, mine, strict=False))
    return bool(shown == mine)


def _differences(
    history: History, hive: list[list[str | None]], collected: list[Any]
) -> list[tuple[Any, ...]]:
    expected = {(r[-1], int(r[0])): r for r in hive if r[0] is not None}
    rows = {(r["dt"], r["rid"]): r for r in collected}
    if set(rows) != set(expected) or len(hive) != len(expected):
        return [("rows", sorted(set(expected) ^ set(rows)), len(hive), len(rows))]
    differ = []
    for key, shown_row in sorted(expected.items()):
        for index, (name, node) in enumerate(history.columns):
            shown, mine = shown_row[index], rows[key][name]
            if isinstance(node, str):
                same = _same(_shown(mine), shown, node)
            else:
                stale = key[0] in history.converted
                loaded = json.loads(shown) if shown is not None else None
                same = _alike(loaded, _plain(mine), stale)
            if not same:
                differ.append((key, name, hive_type(node), shown, _shown(mine)))
    return differ


def _hive_shows(
    client: MetastoreClient, metastore_uri: str, histories: list[History]
) -> dict[tuple[str, str], tuple[list[list[str | None]], dict[str, str]]]:
    """Per table and mode, the rows Hive shows and the partitions it refuses (with why): a
    table Hive refuses whole is asked again partition by partition."""
    queries = [(f"select * from {h.table}", hive) for h in histories for _, hive in MODES.values()]
    first = iter(hive_answers(metastore_uri, queries, allow_errors=True))
    shown: dict[tuple[str, str], tuple[list[list[str | None]], dict[str, str]]] = {}
    again = []
    for history in histories:
        for mode, (_, hive) in MODES.items():
            answer = next(first)
            if isinstance(answer, dict):
                again += [((history.table, mode, p), (f"select * from "
                           f"{alone_partition(client, history.table, p)}", hive))
                          for p in history.partitions]  # fmt: skip
            else:
                shown[history.table, mode] = (answer, {})
    answers = hive_answers(metastore_uri, [q for _, q in again], allow_errors=True)
    for (table, mode, partition), answer in zip([k for k, _ in again], answers, strict=True):
        rows, refused = shown.setdefault((table, mode), ([], {}))
        if isinstance(answer, dict):  # the line that says why
            refused[partition] = answer["error"].split("\n")[1][:300]
        else:
            rows.extend(answer)
    return shown


def test_random_schema_histories_read_as_hive_2_3_9_does(
    client: MetastoreClient,
    tables_root: Path,
    metastore_uri: str,
    settings: Settings,
    spark: Any,
) -> None:
    rng = random.Random(int(os.environ.get("LAKESHIFT_DIFF_SEED", "1")))
    names = Names()
    wanted = int(os.environ.get("LAKESHIFT_HISTORY_TABLES", "12"))
    histories = [_build(rng, client, tables_root, names) for _ in range(wanted)]
    shown = _hive_shows(client, metastore_uri, histories)
    # the oracle's own version, with the ORC release it runs here (1.9: exact)
    base = replace(settings, hive_version="2.3", orc_date_parser="exact", hive_time_zone="UTC")
    differ: list[tuple[Any, ...]] = []
    compared = refused = 0
    for history in histories:
        for mode, (switches, _) in MODES.items():
            hive, hive_refused = shown[history.table, mode]
            chosen = replace(base, **switches)
            inventory = inspect_table(client, history.table, chosen)
            held = {p.values[0] for p in inventory.partitions if not p.migratable}
            if held != set(hive_refused):  # lakeshift refuses exactly what Hive cannot read
                why = [hive_refused[p] for p in sorted(set(hive_refused) - held)]
                differ.append(
                    (history.table, mode, "refused", sorted(hive_refused), sorted(held), why)
                )
                continue
            refused += len(held)
            frames = both_readers(spark, client, history.table, chosen)
            for reader, frame in frames.items():
                found = _differences(history, hive, frame.collect())
                differ.extend((history.table, mode, reader, *d) for d in found[:5])
                compared += len(hive)
    assert differ == [], "\n".join(map(str, differ[:60]))
    assert compared > refused  # the run compared rows, not only refusals
