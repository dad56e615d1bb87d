/* SPDX-License-Identifier: MIT */
/*
 * tests/unit/test_cmddocs.c - one source for the command summaries.
 *
 * The command table (cli_commands[] in cli/fabtune.c) is the source: its
 * summaries are what `fabtune help` prints. Each page docs/cmd/NAME.md opens
 * with a front matter block
 *
 *     ---
 *     name: NAME
 *     synopsis: fabtune NAME ...  (or "synopsis: |" or "synopsis:" then indented
 *                                  lines, "- " list items allowed)
 *     summary: <the table's summary, word for word>
 *     ---
 *
 * This test holds the two together: every command has a page, every page a
 * command, the names agree, every synopsis line runs "fabtune NAME" (directly
 * or under a launcher: "mpirun -np N fabtune NAME"),
 * and the summaries are equal. FT_UPDATE_DOCS=1 rewrites the pages' summary
 * lines from the table (review the diff), as FT_UPDATE_GOLDEN=1 does for the
 * golden cases. Options are not compared: the pages describe them in prose.
 */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "source_root.h"

#include "cli.h"

#define DOCS_DIR     "docs/cmd"
#define LINE_MAX_    4096
#define FM_MAX_LINES 64

/* The front matter of one page; line numbers are 1-based, 0 when absent. */
struct front {
	char name[128];
	char summary[LINE_MAX_];
	unsigned name_line, summary_line, synopsis_line, end_line;
	char synopsis[16][LINE_MAX_]; /* one entry per synopsis line */
	size_t nsynopsis;
	char problem[512]; /* set when the block itself is malformed */
};

static void
chomp(char *s)
{
	size_t n = strlen(s);

	while (n && (s[n - 1] == '\n' || s[n - 1] == '\r' || s[n - 1] == ' '))
		s[--n] = '\0';
}

static const char *
value_of(const char *line, const char *key)
{
	size_t k = strlen(key);

	if (strncmp(line, key, k) != 0 || line[k] != ':')
		return NULL;
	line += k + 1;
	while (*line == ' ')
		line++;
	return line;
}

static void
read_front(const char *path, struct front *fm)
{
	char line[LINE_MAX_];
	unsigned lineno = 0;
	bool in_block = false;
	FILE *f = fopen(path, "r");

	memset(fm, 0, sizeof(*fm));
	if (!f) {
		snprintf(fm->problem, sizeof(fm->problem), "%s: cannot open", path);
		return;
	}
	while (fgets(line, sizeof(line), f)) {
		const char *v;

		lineno++;
		chomp(line);
		if (lineno == 1) {
			if (strcmp(line, "---") != 0) {
				snprintf(
				        fm->problem, sizeof(fm->problem),
				        "%s:1: expected '---' opening the front matter, got '%.60s'",
				        path, line);
				break;
			}
			continue;
		}
		if (strcmp(line, "---") == 0) {
			fm->end_line = lineno;
			break;
		}
		if (lineno > FM_MAX_LINES)
			break;
		if (in_block && line[0] == ' ') {
			const char *s = line;

			while (*s == ' ')
				s++;
			if (s[0] == '-' && s[1] == ' ')
				s += 2;
			if (fm->nsynopsis < 16)
				snprintf(fm->synopsis[fm->nsynopsis++], LINE_MAX_, "%s", s);
			continue;
		}
		in_block = false;
		if ((v = value_of(line, "name"))) {
			snprintf(fm->name, sizeof(fm->name), "%s", v);
			fm->name_line = lineno;
		} else if ((v = value_of(line, "summary"))) {
			snprintf(fm->summary, sizeof(fm->summary), "%s", v);
			fm->summary_line = lineno;
		} else if ((v = value_of(line, "synopsis"))) {
			fm->synopsis_line = lineno;
			if (strcmp(v, "|") == 0 || !*v)
				in_block = true;
			else
				snprintf(fm->synopsis[fm->nsynopsis++], LINE_MAX_, "%s", v);
		}
	}
	fclose(f);
	if (!fm->problem[0] && !fm->end_line)
		snprintf(fm->problem, sizeof(fm->problem),
		         "%s: front matter not closed by '---' within %d lines", path,
		         FM_MAX_LINES);
}

/* Replace (or add, after the name) the summary line of @path with @summary. */
static void
write_summary(const char *path, const struct front *fm, const char *summary)
{
	char line[LINE_MAX_], tmp[256];
	unsigned lineno = 0;
	FILE *in = fopen(path, "r"), *out;

	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	assert_non_null(in);
	out = fopen(tmp, "w");
	assert_non_null(out);
	while (fgets(line, sizeof(line), in)) {
		lineno++;
		if (lineno == fm->summary_line) {
			fprintf(out, "summary: %s\n", summary);
			continue;
		}
		fputs(line, out);
		if (!fm->summary_line && lineno == fm->name_line)
			fprintf(out, "summary: %s\n", summary);
	}
	fclose(in);
	assert_int_equal(fclose(out), 0);
	assert_int_equal(rename(tmp, path), 0);
}

/* "fabtune sim ..." or "mpirun -np 4 fabtune sim ...", not "fabtune simulate". */
static bool
runs_command(const char *line, const char *prefix)
{
	size_t k = strlen(prefix);
	const char *at = strstr(line, prefix);

	if (!at || (at != line && at[-1] != ' '))
		return false;
	if (at != line && strncmp(line, "mpirun ", 7) != 0 && strncmp(line, "srun ", 5) != 0)
		return false;
	return at[k] == ' ' || at[k] == '\0';
}

static const struct cmd *
find_cmd(const char *name)
{
	return cli_find_cmd(cli_commands, cli_ncommands, name);
}

/* Every command's page agrees with the table. */
static void
test_pages_follow_table(void **state)
{
	bool update = getenv("FT_UPDATE_DOCS") && strcmp(getenv("FT_UPDATE_DOCS"), "1") == 0;
	size_t i, j, nbad = 0;

	for (i = 0; i < cli_ncommands; i++) {
		const struct cmd *c = &cli_commands[i];
		char path[256], prefix[160];
		struct front fm;

		snprintf(path, sizeof(path), DOCS_DIR "/%s.md", c->name);
		read_front(path, &fm);
		if (fm.problem[0]) {
			print_error("%s\n", fm.problem);
			nbad++;
			continue;
		}
		if (strcmp(fm.name, c->name) != 0) {
			print_error("%s:%u: name: expected '%s' (the command), got '%s'\n", path,
			            fm.name_line, c->name, fm.name);
			nbad++;
		}
		snprintf(prefix, sizeof(prefix), "fabtune %s", c->name);
		if (!fm.nsynopsis) {
			print_error("%s: front matter has no synopsis\n", path);
			nbad++;
		}
		for (j = 0; j < fm.nsynopsis; j++) {
			if (!runs_command(fm.synopsis[j], prefix)) {
				print_error(
				        "%s:%u: synopsis: expected a line running '%s', got '%.60s'\n",
				        path, fm.synopsis_line, prefix, fm.synopsis[j]);
				nbad++;
			}
		}
		if (strcmp(fm.summary, c->summary) == 0)
			continue;
		if (update) {
			write_summary(path, &fm, c->summary);
			print_message("# %s: summary rewritten from the command table\n", path);
			continue;
		}
		print_error("%s:%u: summary differs from the command table (cli/fabtune.c); "
		            "FT_UPDATE_DOCS=1 rewrites it\n  page:  %s\n  table: %s\n",
		            path, fm.summary_line, fm.summary_line ? fm.summary : "(none)",
		            c->summary);
		nbad++;
	}
	if (nbad)
		fail_msg("%zu disagreement(s) between docs/cmd/ and the command table", nbad);
}

/* Every page under docs/cmd/ documents a command of the table. */
static void
test_every_page_has_command(void **state)
{
	DIR *d = opendir(DOCS_DIR);
	struct dirent *e;
	size_t npages = 0, nbad = 0;

	assert_non_null(d);
	while ((e = readdir(d))) {
		size_t n = strlen(e->d_name);
		char name[256];

		if (n <= 3 || strcmp(e->d_name + n - 3, ".md") != 0)
			continue;
		snprintf(name, sizeof(name), "%.*s", (int)(n - 3), e->d_name);
		npages++;
		if (!find_cmd(name)) {
			print_error(DOCS_DIR "/%s: no command '%s' in the command table\n",
			            e->d_name, name);
			nbad++;
		}
	}
	closedir(d);
	assert_int_equal(npages, cli_ncommands);
	if (nbad)
		fail_msg("%zu page(s) without a command", nbad);
}

/* The checker itself: a page that disagrees is caught, with the place named. */
static void
test_checker_catches_disagreement(void **state)
{
	char path[] = "/tmp/ft-cmddocs-XXXXXX";
	int fd = mkstemp(path);
	FILE *f;
	struct front fm;

	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_non_null(f);
	fputs("---\nname: sim\nsynopsis: |\n  fabtune sim A\n  fabtune sim B\n"
	      "summary: something else\n---\n\n# fabtune sim\n",
	      f);
	assert_int_equal(fclose(f), 0);
	read_front(path, &fm);
	assert_string_equal(fm.problem, "");
	assert_string_equal(fm.name, "sim");
	assert_int_equal(fm.nsynopsis, 2);
	assert_string_equal(fm.synopsis[1], "fabtune sim B");
	assert_int_equal(fm.summary_line, 6);
	assert_string_not_equal(fm.summary, find_cmd("sim")->summary);
	write_summary(path, &fm, find_cmd("sim")->summary);
	read_front(path, &fm);
	assert_string_equal(fm.summary, find_cmd("sim")->summary);
	assert_int_equal(fm.end_line, 7);

	f = fopen(path, "w");
	assert_non_null(f);
	fputs("name: sim\n", f);
	assert_int_equal(fclose(f), 0);
	read_front(path, &fm);
	assert_non_null(strstr(fm.problem, ":1: expected '---'"));

	assert_true(runs_command("fabtune sim X", "fabtune sim"));
	assert_true(runs_command("fabtune sim", "fabtune sim"));
	assert_true(runs_command("mpirun -np 4 fabtune sim X", "fabtune sim"));
	assert_false(runs_command("fabtune simulate X", "fabtune sim"));
	assert_false(runs_command("fabtune model X", "fabtune sim"));
	assert_false(runs_command("echo fabtune sim", "fabtune sim"));
	unlink(path);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pages_follow_table),
		cmocka_unit_test(test_every_page_has_command),
		cmocka_unit_test(test_checker_catches_disagreement),
	};

	ft_test_enter_source_root();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
