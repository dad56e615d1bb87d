/* SPDX-License-Identifier: MIT */
/*
 * tests/fuzz/fuzz_ibv_devinfo.c - libFuzzer harness for the ibv_devinfo parser.
 */
#define FUZZ_FORMAT "ibv_devinfo"
#include "fuzz_common.h"
