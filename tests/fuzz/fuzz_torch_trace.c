/* SPDX-License-Identifier: MIT */
/*
 * tests/fuzz/fuzz_torch_trace.c - libFuzzer harness for the PyTorch profiler
 * (Kineto) trace parser.
 */
#define FUZZ_FORMAT "pytorch-trace"
#include "fuzz_common.h"
