/* SPDX-License-Identifier: MIT */
/*
 * tests/fuzz/fuzz_spec.c - libFuzzer harness for the spec loader.
 *
 * Any input must either load into a spec that validates, or be refused with
 * a message that names the input ("fuzz.yaml:..."); never crash, leak or
 * read out of bounds. Seed corpus: examples/ and tests/fixtures/spec/.
 * The library sources must be built with -fsanitize=fuzzer-no-link (or
 * fuzzer) too, or libFuzzer sees no coverage in the loader.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <fabtune/fabtune.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ft_cluster_spec spec;
	struct ft_error err = { 0 };

	if (ft_spec_load_buffer((const char *)data, size, "fuzz.yaml", &spec, &err) == 0) {
		if (ft_spec_validate(&spec, &err) != 0)
			abort();
		(void)ft_spec_fabric_capacity(&spec);
	} else if (strncmp(err.msg, "fuzz.yaml", 9) != 0) {
		abort();
	}
	return 0;
}
