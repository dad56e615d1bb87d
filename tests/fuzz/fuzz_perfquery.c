/* SPDX-License-Identifier: MIT */
/*
 * tests/fuzz/fuzz_perfquery.c - libFuzzer harness for the perfquery parser.
 */
#define FUZZ_FORMAT "perfquery"
#include "fuzz_common.h"
