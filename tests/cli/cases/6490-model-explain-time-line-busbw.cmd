model dgx-h100:16 --op reduce_scatter --explain 24976656
