/* SPDX-License-Identifier: MIT */
/*
 * tests/fuzz/fuzz_nvue.c - libFuzzer harness for the NVUE (Cumulus Linux) counters parser.
 */
#define FUZZ_FORMAT "nvue"
#include "fuzz_common.h"
