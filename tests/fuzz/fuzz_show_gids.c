/* SPDX-License-Identifier: MIT */
/*
 * tests/fuzz/fuzz_show_gids.c - libFuzzer harness for the show_gids parser.
 */
#define FUZZ_FORMAT "show_gids"
#include "fuzz_common.h"
