/* SPDX-License-Identifier: MIT */
/*
 * tests/fuzz/fuzz_ibqueryerrors.c - libFuzzer harness for the ibqueryerrors parser.
 */
#define FUZZ_FORMAT "ibqueryerrors"
#include "fuzz_common.h"
