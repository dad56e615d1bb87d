/* SPDX-License-Identifier: MIT */
/*
 * tests/fuzz/fuzz_plan_model.c - libFuzzer harness for the planner's model
 * reader.
 *
 * Any input must either load into a model that validates, or be refused
 * with a message that names the input ("fuzz.yaml:..."); a loaded model is
 * then planned on two DGX H100 nodes (any error allowed, no crash, no
 * undefined behaviour). Seed corpus: tests/fixtures/plan/.
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
	static struct ft_plan plan;
	struct ft_plan_model m;
	struct ft_plan_config c;
	struct ft_cluster_spec spec;
	struct ft_error err = { 0 };

	if (ft_plan_model_load_buffer((const char *)data, size, "fuzz.yaml", &m, &err) != 0) {
		if (strncmp(err.msg, "fuzz.yaml", 9) != 0)
			abort();
		return 0;
	}
	if (ft_plan_model_validate(&m, &err) != 0)
		abort();
	if (ft_spec_resolve("dgx-h100:2", &spec, &err) != 0)
		abort();
	ft_plan_config_init(&c);
	c.global_batch = 16;
	c.tp = 2;
	c.pp = 2;
	if (m.experts && m.experts % 2 == 0)
		c.ep = 2;
	(void)ft_plan_compute(&spec, &m, &c, &plan, &err);
	return 0;
}
