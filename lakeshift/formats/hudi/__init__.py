"""Apache Hudi copy-on-write tables, written without Hudi's jars (none are on PyPI).

:mod:`.format` is the ``TargetFormat``; it drives the file layer: ``hoodie.properties``
(:mod:`.properties`), the timeline (:mod:`.timeline`), commit metadata
(:mod:`.commit_metadata`), base files with Hudi's meta columns and bloom-filter footers
(:mod:`.base_file`, :mod:`.bloom`) and the Avro write schema (:mod:`.avro_schema`).
"""
