/* SPDX-License-Identifier: MIT */
/*
 * tests/fuzz/fuzz_ethtool.c - libFuzzer harness for the ethtool parser.
 */
#define FUZZ_FORMAT "ethtool"
#include "fuzz_common.h"
