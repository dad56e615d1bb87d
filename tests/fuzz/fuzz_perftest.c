/* SPDX-License-Identifier: MIT */
/*
 * tests/fuzz/fuzz_perftest.c - libFuzzer harness for the perftest parser.
 */
#define FUZZ_FORMAT "perftest"
#include "fuzz_common.h"
