/* SPDX-License-Identifier: MIT */
/*
 * tests/fuzz/fuzz_xid.c - libFuzzer harness for the xid parser.
 */
#define FUZZ_FORMAT "xid"
#include "fuzz_common.h"
