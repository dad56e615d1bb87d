/* SPDX-License-Identifier: MIT */
/*
 * tests/fuzz/fuzz_smpquery.c - libFuzzer harness for the smpquery PKeyTable parser.
 */
#define FUZZ_FORMAT "smpquery"
#include "fuzz_common.h"
