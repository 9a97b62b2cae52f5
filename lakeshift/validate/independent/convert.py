"""Hive's read-time conversion of a whole column, nested types included, on Arrow arrays.

Struct fields are matched by name (ORC schema evolution of named files) or by position
(positional files; the partition-to-table step); a field the source lacks reads as NULL. NULL
stays NULL at every depth: a NULL struct, array or map is rebuilt NULL (never a struct of
NULLs or an empty collection), and NULL elements, values and fields stay NULL inside them.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from lakeshift.errors import SchemaMappingError
from lakeshift.hive.types import (
    SECONDS_COUNTED,
    HiveType,
    field_index,
    keys_may_merge,
    zone_rule,
)
from lakeshift.validate.independent.arrow_hash import compact
from lakeshift.validate.independent.arrow_types import arrow_type
from lakeshift.validate.independent.calendar import holds
from lakeshift.validate.independent.calendar import hybrid_seconds as hybrid_seconds_of
from lakeshift.validate.independent.casts import convert_primitive
from lakeshift.validate.independent.zones import instant_of, wall_clock


def null_mask(array: pa.Array) -> pa.Array | None:
    """The validity mask a rebuilt nested array takes from ``array`` (None: no NULLs)."""
    return array.is_null() if array.null_count else None


def offsets_of(lengths: np.ndarray) -> pa.Array:
    """List or map offsets of consecutive entries ``lengths`` long."""
    return pa.array(np.concatenate([[0], np.cumsum(lengths)]).astype(np.int32), pa.int32())


def leaf(array: pa.Array) -> pa.Array:
    """A primitive column as the rules expect it: timestamps as microseconds of wall-clock
    time (nanoseconds floored, a zone dropped: the value is then UTC, as Spark's session
    reads it), large and dictionary layouts as plain ones."""
    if pa.types.is_dictionary(array.type):
        array = array.dictionary_decode()
    kind = array.type
    if pa.types.is_timestamp(kind):
        factor = {"s": -1_000_000, "ms": -1000, "us": 1, "ns": 1000}[kind.unit]
        raw = np.asarray(array.view(pa.int64()).fill_null(0).to_numpy(zero_copy_only=False))
        micros = raw * -factor if factor < 0 else np.floor_divide(raw, factor)
        mask = np.asarray(array.is_null().to_numpy(zero_copy_only=False), bool)
        return pa.array(micros.astype(np.int64), pa.int64(), mask=mask).view(pa.timestamp("us"))
    if pa.types.is_large_string(kind):
        return array.cast(pa.string())
    if pa.types.is_large_binary(kind) or pa.types.is_fixed_size_binary(kind):
        return array.cast(pa.binary())
    return array


def convert(
    array: pa.Array,
    src: HiveType,
    dst: HiveType,
    *,
    by_name: bool,
    case_sensitive: bool = False,
    orc_file: bool = False,
    text_file: bool = False,
    hive3_converters: bool = True,
    orc_sql_dates: bool = False,
    hive4_dates: bool = False,
    hive1_decimals: bool = False,
    hybrid_instants: bool = False,
    hybrid_seconds: bool = False,
    stored_days: bool = False,
    zone: str | None = None,
    stored: bool = False,
) -> pa.Array:
    """``array`` of Hive type ``src`` read as ``dst`` (``stored``: not a Hive reading but the
    table's value as the target stores it, a CHAR keeping its padding; ``orc_file``: by
    ORC's schema evolution, an ORC file's column read as the partition's declared type;
    ``text_file``: a text file's field parsed as the partition's type, where a map keeps the
    first value of a key and drops a key that reads NULL, as LazyMap does;
    ``orc_sql_dates``: ORC reads strings as dates and timestamps by java.sql's parsers, see
    ``HiveSemantics.orc_sql_dates``; ``hive4_dates``: Hive's converters and text SerDe read
    text as dates by Hive 4's rules; ``hive1_decimals``: text read as a decimal by Hive
    1.2's ``HiveDecimal``; ``hybrid_instants``: numbers read as timestamps are shown by the
    hybrid calendar, as ``java.sql.Timestamp`` shows them; ``hybrid_seconds``: a timestamp
    read as a number counts the seconds of the instant ``java.sql.Timestamp`` gives its wall
    clock, as Hive 1.2/2.x's converter does; ``stored_days``: dates and timestamps shown by
    their day numbers as stored, also where ORC 1.3-1.5's java.sql conversions count them in
    the hybrid calendar; ``zone``: the zone Hive's JVMs run in, where not UTC,
    ``zone_rule``)."""
    if isinstance(array, pa.ChunkedArray):
        array = array.combine_chunks()
    if src.kind == "void" or pa.types.is_null(array.type):
        return pa.nulls(len(array), arrow_type(dst))
    if src.is_primitive and dst.is_primitive:
        values = leaf(array)
        if hybrid_seconds and src.kind == "timestamp" and dst.kind in SECONDS_COUNTED:
            values = hybrid_seconds_of(values)
        rule = zone_rule(zone, src, dst, orc_file=orc_file, hive3_converters=hive3_converters,
                         orc_sql_dates=orc_sql_dates)  # fmt: skip
        if zone and rule == "instant counted":
            values = instant_of(values, zone)
        elif zone and rule == "wall clock read":
            values = wall_clock(values, zone)
        converted = convert_primitive(
            values,
            src,
            dst,
            orc_file,
            hive3_converters,
            converter=not (orc_file or text_file or stored),
            orc_sql_dates=orc_sql_dates,
            hive4_dates=hive4_dates,
            hybrid_instants=hybrid_instants,
            hive1_decimals=hive1_decimals,
            text_file=text_file,
            stored_days=stored_days,
            shown_in=zone if rule == "instant shown" else None,
        )
        if zone and rule == "parsed as instant":
            return instant_of(converted, zone)
        if zone and rule == "parsed in zone":
            return wall_clock(instant_of(converted, zone), zone)
        return converted
    if src.kind != dst.kind or dst.kind == "uniontype":
        raise SchemaMappingError(
            f"the independent reader cannot read {src} as {dst}.",
            hint="The inspector refuses such partitions; inspect the table again.",
        )
    options: dict[str, Any] = {
        "by_name": by_name,
        "case_sensitive": case_sensitive,
        "orc_file": orc_file,
        "text_file": text_file,
        "hive3_converters": hive3_converters,
        "orc_sql_dates": orc_sql_dates,
        "hive4_dates": hive4_dates,
        "hive1_decimals": hive1_decimals,
        "hybrid_instants": hybrid_instants,
        "hybrid_seconds": hybrid_seconds,
        "stored_days": stored_days,
        "zone": zone,
        "stored": stored,
    }
    if dst.kind == "struct":
        children = array.flatten()
        fields = []
        for position, (name, dst_type) in enumerate(dst.fields):
            index = field_index(src, name, position, by_name, case_sensitive)
            fields.append(
                pa.nulls(len(array), arrow_type(dst_type))
                if index is None
                else convert(children[index], src.fields[index][1], dst_type, **options)
            )
        return pa.StructArray.from_arrays(
            fields, fields=list(arrow_type(dst)), mask=null_mask(array)
        )
    lengths, indices = compact(array)
    take = pa.array(indices, pa.int64())
    if dst.kind == "array":
        values = convert(array.values.take(take), src.fields[0][1], dst.fields[0][1], **options)
        return pa.ListArray.from_arrays(
            offsets_of(lengths), values, type=arrow_type(dst), mask=null_mask(array)
        )
    keys = convert(array.keys.take(take), src.fields[0][1], dst.fields[0][1], **options)
    items = convert(array.items.take(take), src.fields[1][1], dst.fields[1][1], **options)
    if keys_may_merge(src.fields[0][1], dst.fields[0][1]):
        # a text file's LazyMap keeps a key's first entry and drops a NULL key; ORC's schema
        # evolution and Hive's converters put each entry into a Java map: the last one wins
        kept, lengths = kept_entries(keys, lengths, last=not text_file)
        keys, items = keys.take(kept), items.take(kept)
    if keys.null_count:
        raise SchemaMappingError(
            f"a map key of type {src.fields[0][1]} reads as NULL as {dst.fields[0][1]}: Hive "
            "shows a NULL key there, which Iceberg, Delta and Hudi cannot hold.",
            hint="Declare the table's map key type so that every key reads, or fix the data.",
        )
    return pa.MapArray.from_arrays(
        offsets_of(lengths), keys, items, type=arrow_type(dst), mask=null_mask(array)
    )


_NAN = object()


def kept_entries(keys: pa.Array, lengths: np.ndarray, *, last: bool) -> tuple[pa.Array, np.ndarray]:
    """Per map (``lengths`` entries each, in order, keys already typed): the indices of the
    entries Hive keeps, in order, and how many each map keeps. LazyMap (``last=False``) keeps
    a key's first entry and drops a NULL key; ``Map.put`` (``last=True``) keeps a key's last
    entry and a NULL key as any other."""
    # NaN keys are one key, as Spark's maps hold them (Hive's DoubleWritable keeps each NaN)
    values = [_NAN if isinstance(v, float) and v != v else v for v in keys.to_pylist()]
    kept: list[int] = []
    counts = []
    start = 0
    for length in lengths.tolist():
        seen: set[object] = set()
        found: list[int] = []
        order = range(start + length - 1, start - 1, -1) if last else range(start, start + length)
        for index in order:
            if (last or values[index] is not None) and values[index] not in seen:
                seen.add(values[index])
                found.append(index)
        kept.extend(sorted(found))
        counts.append(len(found))
        start += length
    return pa.array(kept, pa.int64()), np.array(counts, np.int64)


def java_maps(array: pa.Array | pa.ChunkedArray) -> pa.Array | pa.ChunkedArray:
    """``array`` (an ORC or Parquet file's column as read) as Hive holds it: each map, at any
    depth, put entry by entry into a Java map, so a key written more than once keeps its last
    entry (Hive's ORC ``RecordReaderImpl.nextMap``, ``AbstractParquetMapInspector.getMap``).
    ``array`` itself, not a copy, where no map repeats a key (the usual case, found out
    without copying a value: ``_repeats``)."""
    if not holds(array.type, pa.types.is_map):
        return array
    if isinstance(array, pa.ChunkedArray):
        chunks = array.chunks  # (each call wraps the chunks anew)
        kept_chunks = [java_maps(chunk) for chunk in chunks]
        same = all(new is old for new, old in zip(kept_chunks, chunks))
        return array if same else pa.chunked_array(kept_chunks, array.type)
    if pa.types.is_struct(array.type):
        children = array.flatten()
        kept = [java_maps(child) for child in children]
        if all(new is old for new, old in zip(kept, children)):
            return array
        fields = [array.type.field(i) for i in range(array.type.num_fields)]
        return pa.StructArray.from_arrays(kept, fields=fields, mask=null_mask(array))
    # offsets index the whole child, whatever the array's own offset (a slice)
    if pa.types.is_list(array.type):
        child = array.values  # (each call wraps the child anew)
        values = java_maps(child)
        if values is child:
            return array
        if array.offset and array.null_count:  # Arrow rebuilds no sliced offsets with NULLs
            return java_maps(pa.concat_arrays([array]))
        return pa.ListArray.from_arrays(
            array.offsets, values, type=array.type, mask=null_mask(array)
        )
    child = array.items
    items = java_maps(child)
    if not _repeats(array):
        if items is child:
            return array
        if array.offset and array.null_count:
            return java_maps(pa.concat_arrays([array]))
        return pa.MapArray.from_arrays(
            array.offsets, array.keys, items, type=array.type, mask=null_mask(array)
        )
    lengths, indices = compact(array)
    take = pa.array(indices, pa.int64())
    keys, items = array.keys.take(take), items.take(take)
    kept, lengths = kept_entries(_key_probe(keys), lengths, last=True)
    return pa.MapArray.from_arrays(
        offsets_of(lengths),
        keys.take(kept),
        items.take(kept),
        type=array.type,
        mask=null_mask(array),
    )


def _key_probe(keys: pa.Array) -> pa.Array:
    """Map keys as Hive's Writables compare them, read as Spark reads them: a double's -0.0 as
    0.0 (``DoubleWritable``: ``==``, and equal hash codes; a float's are two keys, as
    ``FloatWritable.hashCode`` is ``floatToIntBits``), timestamps to the microsecond (the
    targets' and Spark's precision; finer ones are flagged as ``timestamp-nanoseconds``)."""
    if pa.types.is_dictionary(keys.type):
        keys = keys.dictionary_decode()
    if pa.types.is_timestamp(keys.type):
        raw = keys.view(pa.int64())
        if keys.type.unit != "ns":
            return raw
        micros = np.floor_divide(np.asarray(raw.fill_null(0).to_numpy(zero_copy_only=False)), 1000)
        return pa.array(micros, pa.int64(), mask=np.asarray(keys.is_null().to_numpy(False), bool))
    if pa.types.is_date32(keys.type):
        return keys.view(pa.int32())
    if pa.types.is_float64(keys.type):
        return pc.add(keys, pa.scalar(0, keys.type))
    return keys


#: Maps up to this long are checked entry against entry (one pass per distance), longer ones
#: by sorting their keys' codes.
_PAIRWISE = 32


def _repeats(array: pa.MapArray) -> bool:
    """Whether a map of ``array`` may hold a key twice: exact, but for entries under a NULL
    map (Arrow may keep some), which count too (``kept_entries`` then finds none), and NaN
    keys, which always go to ``kept_entries`` (its rule for them is its own). Hand-written:
    no Arrow kernel finds repeats within each list; this compares dictionary codes."""
    offsets = np.asarray(array.offsets.to_numpy(zero_copy_only=False), np.int64)
    lengths = np.diff(offsets)
    longest = int(lengths.max(initial=0))
    if longest < 2:
        return False
    first = int(offsets[0])
    probe = _key_probe(array.keys.slice(first, int(offsets[-1]) - first))
    if pa.types.is_floating(probe.type) and pc.any(pc.is_nan(probe)).as_py():
        return True
    indices = pc.dictionary_encode(probe).indices.fill_null(-1)  # NULL keys are one key
    codes = np.asarray(indices.to_numpy(zero_copy_only=False))
    if longest <= _PAIRWISE:
        # entries left in each entry's map (itself included): a later entry d places on is
        # in the same map where more than d are left
        left = (np.repeat(offsets[1:] - first, lengths) - np.arange(len(codes))).astype(np.int8)
        return any(
            bool(np.any((codes[:-d] == codes[d:]) & (left[:-d] > d))) for d in range(1, longest)
        )
    maps = np.repeat(np.arange(len(lengths), dtype=np.int64), lengths)
    ordered = np.sort(maps * (int(codes.max()) + 2) + codes)
    return bool(np.any(ordered[1:] == ordered[:-1]))


def repeat(value: pa.Array, rows: int) -> pa.Array:
    """A one-value array repeated ``rows`` times (partition values)."""
    return pc.take(value, pa.array(np.zeros(rows, np.int64)))
