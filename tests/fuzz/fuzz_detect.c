/* SPDX-License-Identifier: MIT */
/*
 * tests/fuzz/fuzz_detect.c - libFuzzer harness for format detection and the
 * split of concatenated outputs (ft_parse_buffer with no format).
 */
#define FUZZ_FORMAT NULL
#include "fuzz_common.h"
