/* SPDX-License-Identifier: MIT */
/*
 * tests/fuzz/fuzz_opensm_conf.c - libFuzzer harness for the opensm.conf parser.
 */
#define FUZZ_FORMAT "opensm-conf"
#include "fuzz_common.h"
