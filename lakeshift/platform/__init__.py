"""Real services lakeshift starts or connects to: Java, Spark, the Hive Metastore, HiveServer2."""
