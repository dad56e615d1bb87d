bench all_gather --table-format 2.17
