/* SPDX-License-Identifier: MIT */
/*
 * tests/fuzz/fuzz_ibstatus.c - libFuzzer harness for the ibstatus parser.
 */
#define FUZZ_FORMAT "ibstatus"
#include "fuzz_common.h"
