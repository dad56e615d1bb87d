/* SPDX-License-Identifier: MIT */
/*
 * tests/fuzz/fuzz_dcgm.c - libFuzzer harness for the DCGM parser.
 */
#define FUZZ_FORMAT "dcgm"
#include "fuzz_common.h"
