bench pt2pt -t verbs
