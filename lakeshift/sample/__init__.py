"""The sample Hive table ``sample.click_log``: generator and loader."""
