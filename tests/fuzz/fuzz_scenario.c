/* SPDX-License-Identifier: MIT */
/*
 * tests/fuzz/fuzz_scenario.c - libFuzzer harness for the scenario loader.
 *
 * Any input must either load into a scenario (then freed), or be refused
 * with a message that names the input ("fuzz.yaml:...") or, for a cluster
 * given by name or file that does not resolve, says why; never crash, leak,
 * hang or read out of bounds. The loader only reads and checks: nothing is
 * simulated here. Seed corpus: tests/fixtures/sim/ and scenarios/lab/.
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
	struct ft_scenario *sc = NULL;
	struct ft_error err = { 0 };
	int rc;

	rc = ft_scenario_load_buffer((const char *)data, size, "fuzz.yaml", &sc, &err);
	if (rc == 0) {
		if (!sc)
			abort();
		ft_scenario_free(sc);
	} else if (strncmp(err.msg, "fuzz.yaml", 9) != 0 || sc) {
		abort();
	}
	return 0;
}
