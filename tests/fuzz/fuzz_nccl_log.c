/* SPDX-License-Identifier: MIT */
/*
 * tests/fuzz/fuzz_nccl_log.c - libFuzzer harness for the nccl-log parser.
 */
#define FUZZ_FORMAT "nccl-log"
#include "fuzz_common.h"
