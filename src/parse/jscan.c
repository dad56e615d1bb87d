/* SPDX-License-Identifier: MIT */
/*
 * parse/jscan.c - the cursor the streaming JSON walkers share (iperf3 --json,
 * PyTorch traces): whitespace, strings, the separator after a member or an
 * element, the line a position stands on, and where the first fault was.
 *
 * Walkers keep their own grammar (what a key means, how deep to go); the
 * cursor only moves over text and never allocates. A fault sends the cursor
 * to the end, so every loop over it stops.
 */
#include "parse_int.h"

void
ft__jcur_init(struct ft__jcur *j, const char *text, size_t len, uint32_t line0)
{
	*j = (struct ft__jcur){ .p = text, .end = text + len, .start = text, .line0 = line0 };
}

uint32_t
ft__jcur_line(struct ft__jcur *j, const char *at)
{
	/* positions are asked for mostly in increasing order: count on from the last */
	if (!j->seen || at < j->seen) {
		j->seen = j->start;
		j->seen_line = j->line0 + 1;
	}
	for (const char *q = j->seen; q < at && q < j->end; q++)
		j->seen_line += *q == '\n';
	j->seen = at < j->end ? at : j->end;
	return j->seen_line;
}

void
ft__jcur_ws(struct ft__jcur *j)
{
	while (j->p < j->end && (*j->p == ' ' || *j->p == '\n' || *j->p == '\t' || *j->p == '\r'))
		j->p++;
}

void
ft__jcur_fail(struct ft__jcur *j)
{
	if (!j->bad) {
		j->bad = true;
		/* input cut short: blame its last line, not the one after it */
		const char *at = j->p >= j->end && j->p > j->start ? j->end - 1 : j->p;
		const char *bol = at;

		j->bad_line = ft__jcur_line(j, at);
		while (bol > j->start && bol[-1] != '\n')
			bol--;
		j->bad_col = (uint32_t)(at - bol) + 1;
	}
	j->p = j->end;
}

bool
ft__jcur_string(struct ft__jcur *j, struct ft__span *out)
{
	const char *b;

	if (j->p >= j->end || *j->p != '"')
		return false;
	b = ++j->p;
	while (j->p < j->end && *j->p != '"') {
		if (*j->p == '\\' && j->end - j->p > 1)
			j->p++;
		j->p++;
	}
	if (j->p >= j->end)
		return false;
	*out = (struct ft__span){ b, (size_t)(j->p - b) };
	j->p++;
	return true;
}

/* Step over @ch when it is the next byte. */
static bool
eat(struct ft__jcur *j, char ch)
{
	if (j->p < j->end && *j->p == ch) {
		j->p++;
		return true;
	}
	return false;
}

bool
ft__jcur_key(struct ft__jcur *j, struct ft__span *key)
{
	if (!ft__jcur_string(j, key))
		return false;
	ft__jcur_ws(j);
	return eat(j, ':');
}

bool
ft__jcur_open(struct ft__jcur *j, char close)
{
	j->p++;
	ft__jcur_ws(j);
	return !eat(j, close);
}

int
ft__jcur_next(struct ft__jcur *j, char close)
{
	ft__jcur_ws(j);
	if (eat(j, ','))
		return 1;
	if (eat(j, close))
		return 0;
	ft__jcur_fail(j);
	return -1;
}

struct ft__span
ft__jcur_skip_line(struct ft__jcur *j)
{
	const char *nl = memchr(j->p, '\n', (size_t)(j->end - j->p));
	struct ft__span l = { j->p, nl ? (size_t)(nl - j->p) : (size_t)(j->end - j->p) };

	j->p = nl ? nl + 1 : j->end;
	return l;
}
