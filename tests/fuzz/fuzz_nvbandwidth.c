/* SPDX-License-Identifier: MIT */
/*
 * tests/fuzz/fuzz_nvbandwidth.c - libFuzzer harness for the nvbandwidth parser.
 */
#define FUZZ_FORMAT "nvbandwidth"
#include "fuzz_common.h"
