/* SPDX-License-Identifier: MIT */
/*
 * tests/fuzz/fuzz_smpquery_pkeys.c - libFuzzer harness for the smpquery PKeyTable parser.
 */
#define FUZZ_FORMAT "smpquery-pkeys"
#include "fuzz_common.h"
