/* SPDX-License-Identifier: MIT */
/*
 * tests/fuzz/fuzz_rdma_stat.c - libFuzzer harness for the rdma statistic parser.
 */
#define FUZZ_FORMAT "rdma-statistic"
#include "fuzz_common.h"
