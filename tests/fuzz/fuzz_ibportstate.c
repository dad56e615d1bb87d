/* SPDX-License-Identifier: MIT */
/*
 * tests/fuzz/fuzz_ibportstate.c - libFuzzer harness for the ibportstate parser.
 */
#define FUZZ_FORMAT "ibportstate"
#include "fuzz_common.h"
