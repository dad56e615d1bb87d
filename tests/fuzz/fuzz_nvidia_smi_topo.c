/* SPDX-License-Identifier: MIT */
/*
 * tests/fuzz/fuzz_nvidia_smi_topo.c - libFuzzer harness for the nvidia-smi-topo parser.
 */
#define FUZZ_FORMAT "nvidia-smi-topo"
#include "fuzz_common.h"
