"""Hive text partitions (TextInputFormat + LazySimpleSerDe), read as Hive reads them."""
