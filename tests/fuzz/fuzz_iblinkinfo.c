/* SPDX-License-Identifier: MIT */
/*
 * tests/fuzz/fuzz_iblinkinfo.c - libFuzzer harness for the iblinkinfo parser.
 */
#define FUZZ_FORMAT "iblinkinfo"
#include "fuzz_common.h"
