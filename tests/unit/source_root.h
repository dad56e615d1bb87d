/* SPDX-License-Identifier: MIT */
/*
 * tests/unit/source_root.h - unit tests run from the source root, however
 * they are started.
 *
 * The unit tests read fixtures, scenarios and docs by paths relative to the
 * source root ("tests/fixtures/...", "scenarios/lab/...", "docs/rules/...").
 * meson test starts them there (workdir:), but an executable started by hand
 * from another folder, or by a runner that keeps its own folder, found none
 * of them. ft_test_enter_source_root(), the first call of every main(), moves
 * to $FT_SOURCE_ROOT when it is set, else to FT_TEST_SOURCE_ROOT, the source
 * root meson compiles in, so that every relative path means the same file
 * from any folder. A root that cannot be entered ends the run at once with
 * its name, rather than as a failure in each test that reads a fixture.
 */
#ifndef FT_TESTS_SOURCE_ROOT_H
#define FT_TESTS_SOURCE_ROOT_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef FT_TEST_SOURCE_ROOT
#error "FT_TEST_SOURCE_ROOT: the build gives every unit test the source root"
#endif

static inline void
ft_test_enter_source_root(void)
{
	const char *root = getenv("FT_SOURCE_ROOT");

	if (!root || !*root)
		root = FT_TEST_SOURCE_ROOT;
	if (chdir(root) != 0) {
		fprintf(stderr, "source root %s: %s (set FT_SOURCE_ROOT)\n", root,
		        strerror(errno));
		exit(1);
	}
}

#ifndef FT_TEST_BUILD_ROOT
#error "FT_TEST_BUILD_ROOT: the build gives every unit test the build root"
#endif

/*
 * The folder a unit test writes its scratch files (specs, scenarios) into:
 * $FT_BUILD_ROOT when set (meson test sets it), else FT_TEST_BUILD_ROOT, the
 * build root meson compiles in. Never ".": every test runs in the source root
 * (ft_test_enter_source_root()), and a test started by hand left its files
 * among the sources.
 */
static inline const char *
ft_test_build_root(void)
{
	const char *root = getenv("FT_BUILD_ROOT");

	return root && *root ? root : FT_TEST_BUILD_ROOT;
}

#endif
