/* SPDX-License-Identifier: MIT */
/*
 * tests/fuzz/fuzz_ibstat.c - libFuzzer harness for the ibstat parser.
 */
#define FUZZ_FORMAT "ibstat"
#include "fuzz_common.h"
