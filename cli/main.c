/* SPDX-License-Identifier: MIT */
/*
 * cli/main.c - the fabtune entry point: global options that come before the
 * command name, then dispatch through the command table (cli/fabtune.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <fabtune/fabtune.h>

#include "cli.h"

int
main(int argc, char **argv)
{
	struct cli_ctx ctx;
	const struct cmd *c;
	char **args;
	int i, nwords, nlead = 0, nargs = 0, rc;
	const char *stable = getenv("FABTUNE_TEST_STABLE");

	memset(&ctx, 0, sizeof(ctx));
	ctx.seed = 1;
	ctx.stable = stable && strcmp(stable, "1") == 0;
	ctx.archive = getenv("FABTUNE_ARCHIVE");
	ctx.no_color = getenv("NO_COLOR") != NULL;
	cli_set_running(&ctx);
	ft_progress_bar_init(&ctx.bar, stderr);
	ctx.progress.fn = ft_progress_bar_fn;
	ctx.progress.ud = &ctx.bar;

	/* Leading global options: fabtune --json model ... */
	for (i = 1; i < argc && (nwords = opts_global_words(argc - i, argv + i)) > 0; i += nwords)
		;
	nlead = i - 1;
	if (i >= argc) {
		if (argc > 1 && strcmp(argv[argc - 1], "--version") == 0)
			return cmd_version(1, argv, &ctx);
		cli_list_commands(cli_commands, cli_ncommands, NULL, stderr);
		return EXIT_USAGE;
	}
	if (strcmp(argv[i], "--version") == 0 || strcmp(argv[i], "-V") == 0) {
		argv[i] = (char *)"version";
	} else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
		argv[i] = (char *)"help";
	}
	c = cli_find_cmd(cli_commands, cli_ncommands, argv[i]);
	if (!c)
		return cli_unknown_command(&ctx, cli_commands, cli_ncommands, NULL, argv[i]);
	args = calloc((size_t)argc + 1, sizeof(*args));
	if (!args) {
		fprintf(stderr, "fabtune: out of memory\n");
		return EXIT_RUNTIME;
	}
	args[nargs++] = argv[i];
	for (int k = 1; k <= nlead; k++)
		args[nargs++] = argv[k];
	for (int k = i + 1; k < argc; k++)
		args[nargs++] = argv[k];
	args[nargs] = NULL;
	ctx.cmd = c->name;
	rc = c->run(nargs, args, &ctx);
	ft_progress_bar_finish(&ctx.bar);
	free(args);
	return rc;
}
