"""Live tables: keep a lake table in step with a Hive table that writers keep writing.

``run_pass`` does one pass (``passes``); ``follow`` repeats it until stopped or cut over
(``loop``). Change detection: the notification log (``events``), the partitions' storage
descriptors and listings compared pass to pass (``changes``); what a pass saw is kept in the
journal's file (``state``).

The package imports none of its modules itself: ``route`` and ``report`` read ``state``, while
``passes`` builds on ``migrate`` and ``route``, so importing them all here would be a cycle.
"""
