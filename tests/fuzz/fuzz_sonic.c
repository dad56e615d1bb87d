/* SPDX-License-Identifier: MIT */
/*
 * tests/fuzz/fuzz_sonic.c - libFuzzer harness for the SONiC counters parser.
 */
#define FUZZ_FORMAT "sonic"
#include "fuzz_common.h"
