/* SPDX-License-Identifier: MIT */
/*
 * tests/fuzz/fuzz_common.h - the body of every libFuzzer harness: run one
 * parser (FUZZ_FORMAT, or detection when it is NULL) over the input, and
 * its sniffer. Each fuzz_<parser>.c defines FUZZ_FORMAT and includes this.
 * Any crash, overread (ASan) or undefined behaviour (UBSan) is a finding;
 * a parser must also never fail on content (only FT_ENOMEM is allowed).
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
	/* an exact-size copy, so that reading one byte past the input is caught */
	char *text = malloc(size ? size : 1);
	struct ft_obs_set set;
	struct ft_run run;
	struct ft_error err = { 0 };
	int rc;

	if (!text)
		return 0;
	memcpy(text, data, size);
	ft_obs_set_init(&set);
	ft_run_init(&run, FT_SOURCE_IMPORT, "");
	if (FUZZ_FORMAT) {
		const struct ft_parser *p = ft_parser_find(FUZZ_FORMAT);

		if (!p)
			abort();
		rc = p->parse(text, size, "fuzz", &set, &run, &err);
		if (rc != 0 && rc != FT_ENOMEM)
			abort();
		(void)p->sniff(text, size);
	} else {
		rc = ft_parse_buffer(text, size, "fuzz", NULL, &set, &run, &err);
		if (rc != 0 && rc != FT_EPARSE && rc != FT_ENOMEM)
			abort();
	}
	for (size_t i = 0; i < ft_obs_set_len(&set); i++) {
		const struct ft_obs *o = ft_obs_set_at(&set, i);

		/* every string of every observation is terminated; the file is set */
		if (!o->file || !memchr(o->str, '\0', sizeof(o->str)) ||
		    !memchr(o->key, '\0', sizeof(o->key)) ||
		    !memchr(o->device, '\0', sizeof(o->device)) ||
		    !memchr(o->host, '\0', sizeof(o->host)))
			abort();
	}
	ft_run_release(&run);
	ft_obs_set_release(&set);
	free(text);
	return 0;
}
