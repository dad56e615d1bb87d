/* SPDX-License-Identifier: MIT */
/*
 * tests/fuzz/fuzz_mlxconfig.c - libFuzzer harness for the mlxconfig parser.
 */
#define FUZZ_FORMAT "mlxconfig"
#include "fuzz_common.h"
