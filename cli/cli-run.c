/* SPDX-License-Identifier: MIT */
/*
 * cli/cli-run.c - what the commands share around the library's work.
 */
#include "cli-run.h"

#include "cli-archive.h"

int
cli_save_check(struct cli_ctx *ctx, const char *work)
{
	struct ft_archive *ar = NULL;
	struct ft_error err = { 0 };
	int rc = cli_archive_open(ctx, &ar, &err);

	ft_archive_close(ar);
	if (rc < 0) {
		cli_error(ctx, "--save: %s (checked before %s; nothing was run)",
		          ft_error_msg(&err, rc), work);
		return -1;
	}
	return 0;
}

/* (a buffer out of memory holds a truncated answer: FT_ENOMEM, nothing printed) */
int
cli_finish(const struct cli_ctx *ctx, struct ft_strbuf *sb, int rc, const struct ft_error *err)
{
	if (rc == 0 && sb->oom) {
		rc = FT_ENOMEM;
		err = NULL;
	}
	if (rc == 0)
		cli_write(sb);
	ft_strbuf_release(sb);
	return rc < 0 ? cli_fail(ctx, rc, err) : EXIT_OK;
}
