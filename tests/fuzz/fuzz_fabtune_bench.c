/* SPDX-License-Identifier: MIT */
/*
 * tests/fuzz/fuzz_fabtune_bench.c - libFuzzer harness for the fabtune-bench parser.
 */
#define FUZZ_FORMAT "fabtune-bench"
#include "fuzz_common.h"
