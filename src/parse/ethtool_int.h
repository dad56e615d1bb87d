/* SPDX-License-Identifier: MIT */
/*
 * parse/ethtool_int.h - the ethtool engine shared by the "ethtool" and
 * "ethtool-S" parsers (the outputs are often pasted together).
 */
#ifndef FT_PARSE_ETHTOOL_INT_H
#define FT_PARSE_ETHTOOL_INT_H

#include "parse_int.h"

int ft__ethtool_engine(struct ft__pctx *c, const char *text, size_t len);
/* "k: v" is a statistics line (lower-case counter name, unsigned integer value). */
bool ft__ethtool_is_counter(struct ft__span k, struct ft__span v);

#endif
