/* SPDX-License-Identifier: MIT */
/*
 * tests/fuzz/fuzz_osu.c - libFuzzer harness for the osu parser.
 */
#define FUZZ_FORMAT "osu"
#include "fuzz_common.h"
