/* SPDX-License-Identifier: MIT */
/*
 * tests/fuzz/fuzz_ibdiagnet.c - libFuzzer harness for the ibdiagnet parser.
 */
#define FUZZ_FORMAT "ibdiagnet"
#include "fuzz_common.h"
