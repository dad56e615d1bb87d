sim nosuch:4
