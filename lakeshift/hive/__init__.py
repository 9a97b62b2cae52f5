"""How the user's Hive reads a table, and the Hive-faithful reader that applies it in Spark.

The rules, each restated from Hive's (and Java's, ORC's, Parquet's) source and checked against
Hive itself: which Hive version is read and the switches it implies (``semantics``), Hive's type
grammar (``types``), which type changes Hive can read (``conversions``) and what its Parquet
reader builds (``parquet_reading``), how text becomes dates, timestamps and zones
(``datetimes``, ``java_zones``) and decimals (``decimals``), and what a partition key's
metastore text shows (``key_values``, ``partition_values``). ``spark_sql``, ``datetime_sql``
and ``calendar_sql`` write the same rules again as Spark SQL.

The reader applies them, with a table's :class:`~lakeshift.schema_map.model.FieldMapping`, to
Spark: ``projection`` maps each file group onto the table's columns, ``reader`` reads the
partitions as Hive shows them, ``source_frame`` casts that read to a target's types, and
``nulled`` counts what Hive's conversions turn into NULL.
"""
