/* SPDX-License-Identifier: MIT */
/*
 * tests/fuzz/fuzz_ucx_perftest.c - libFuzzer harness for the ucx_perftest parser.
 */
#define FUZZ_FORMAT "ucx-perftest"
#include "fuzz_common.h"
