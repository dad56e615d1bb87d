/* SPDX-License-Identifier: MIT */
/*
 * tests/fuzz/fuzz_ethtool_s.c - libFuzzer harness for the ethtool-S parser.
 */
#define FUZZ_FORMAT "ethtool-S"
#include "fuzz_common.h"
