/* SPDX-License-Identifier: MIT */
/*
 * tests/fuzz/fuzz_ibnetdiscover.c - libFuzzer harness for the ibnetdiscover parser.
 */
#define FUZZ_FORMAT "ibnetdiscover"
#include "fuzz_common.h"
