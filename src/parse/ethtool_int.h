/* SPDX-License-Identifier: MIT */
/*
 * parse/ethtool_int.h - what the "ethtool-S" parser shares with "ethtool",
 * whose run function reads both outputs (they are often pasted together).
 */
#ifndef FT_PARSE_ETHTOOL_INT_H
#define FT_PARSE_ETHTOOL_INT_H

#include "parse_int.h"

/* "k: v" is a statistics line (lower-case counter name, unsigned integer value). */
bool ft__ethtool_is_counter(struct ft__span k, struct ft__span v);

#endif
