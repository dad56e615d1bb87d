/* SPDX-License-Identifier: MIT */
/*
 * tests/fuzz/fuzz_mlxlink.c - libFuzzer harness for the mlxlink parser.
 */
#define FUZZ_FORMAT "mlxlink"
#include "fuzz_common.h"
