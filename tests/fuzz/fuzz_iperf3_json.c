/* SPDX-License-Identifier: MIT */
/*
 * tests/fuzz/fuzz_iperf3_json.c - libFuzzer harness for the iperf3-json parser.
 */
#define FUZZ_FORMAT "iperf3-json"
#include "fuzz_common.h"
