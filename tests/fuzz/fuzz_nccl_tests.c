/* SPDX-License-Identifier: MIT */
/*
 * tests/fuzz/fuzz_nccl_tests.c - libFuzzer harness for the nccl-tests parser.
 */
#define FUZZ_FORMAT "nccl-tests"
#include "fuzz_common.h"
