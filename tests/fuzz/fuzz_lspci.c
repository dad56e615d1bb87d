/* SPDX-License-Identifier: MIT */
/*
 * tests/fuzz/fuzz_lspci.c - libFuzzer harness for the lspci parser.
 */
#define FUZZ_FORMAT "lspci"
#include "fuzz_common.h"
