/* SPDX-License-Identifier: MIT */
/*
 * tests/fuzz/fuzz_nvidia_smi_q.c - libFuzzer harness for the nvidia-smi -q parser.
 */
#define FUZZ_FORMAT "nvidia-smi-q"
#include "fuzz_common.h"
