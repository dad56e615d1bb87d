/* SPDX-License-Identifier: MIT */
/*
 * tests/fuzz/fuzz_ulimit.c - libFuzzer harness for the ulimit parser.
 */
#define FUZZ_FORMAT "ulimit"
#include "fuzz_common.h"
