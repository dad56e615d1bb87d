/* SPDX-License-Identifier: MIT */
/*
 * tests/fuzz/fuzz_fabtune_sim.c - libFuzzer harness for the fabtune-sim parser.
 */
#define FUZZ_FORMAT "fabtune-sim"
#include "fuzz_common.h"
