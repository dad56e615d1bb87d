/* SPDX-License-Identifier: MIT */
/*
 * tests/fuzz/fuzz_mlnx_qos.c - libFuzzer harness for the mlnx_qos parser.
 */
#define FUZZ_FORMAT "mlnx_qos"
#include "fuzz_common.h"
