/* SPDX-License-Identifier: MIT */
/*
 * tests/fuzz/fuzz_torch_log.c - libFuzzer harness for the pytorch-log parser.
 */
#define FUZZ_FORMAT "pytorch-log"
#include "fuzz_common.h"
