/* SPDX-License-Identifier: MIT */
/*
 * spec/yaml_limits.c - the limits every YAML/JSON document meets before it is
 * loaded: nesting depth and alias expansion.
 *
 * libyaml builds a document tree in which an alias is one more reference to
 * the anchored node, so a small file whose aliases refer to aliases (the
 * "billion laughs" shape) becomes, for a loader that walks the tree, a
 * document exponentially larger than its text: 22 KB of scenario gave 4
 * million operations. Deep nesting costs libyaml time that grows with the
 * square of the depth (100,000 levels of "[" ran for minutes). One pass over
 * the parser's events, stopped at the first limit crossed, checks both before
 * the tree is built: its cost is linear in the text up to the limit.
 */
#include "internal.h"

#include <yaml.h>

#include <fabtune/spec.h>

struct anchor {
	char *name;
	uint64_t nodes; /* nodes of the anchored subtree, aliases expanded */
};

struct frame {
	uint64_t nodes; /* nodes so far in this collection, itself included */
	char *anchor;   /* owned; NULL when none */
};

struct scan {
	struct frame stack[FT_YAML_MAX_DEPTH + 1];
	size_t depth;
	struct ft_vec anchors; /* struct anchor */
	uint64_t literal, expanded;
	const char *file;
	struct ft_error *err;
};

static int
limit_error(struct scan *s, const yaml_mark_t *m, const char *what)
{
	return ft_error_set(s->err, FT_ERANGE, "%s:%zu:%zu: %s", s->file, m->line + 1,
	                    m->column + 1, what);
}

static const struct anchor *
find_anchor(const struct scan *s, const char *name)
{
	size_t i;

	/* the latest definition of a name wins (YAML 1.2: anchors may be redefined) */
	for (i = s->anchors.len; i-- > 0;) {
		const struct anchor *a = ft_vec_at(&s->anchors, i);

		if (strcmp(a->name, name) == 0)
			return a;
	}
	return NULL;
}

static int
add_anchor(struct scan *s, const yaml_mark_t *m, char *name, uint64_t nodes)
{
	struct anchor a = { name, nodes };

	if (!name)
		return 0;
	if (s->anchors.len >= FT_YAML_MAX_ANCHORS) {
		ft_free(name);
		return limit_error(s, m, "more than 10000 anchors (&name) in one document");
	}
	if (ft_vec_push(&s->anchors, &a) < 0) {
		ft_free(name);
		return ft_error_set(s->err, FT_ENOMEM, "%s: out of memory", s->file);
	}
	return 0;
}

/* A node of @nodes (expanded) ends at @m: count it in its parent. */
static int
count(struct scan *s, const yaml_mark_t *m, uint64_t nodes, bool alias)
{
	if (alias)
		s->expanded += nodes;
	else
		s->literal++;
	if (s->depth)
		s->stack[s->depth - 1].nodes += nodes;
	if (s->expanded > FT_YAML_MAX_ALIAS_NODES)
		return ft_error_set(s->err, FT_ERANGE,
		                    "%s:%zu:%zu: aliases expand the document by more than %d "
		                    "nodes (an alias bomb?); write the repeated parts out, or use "
		                    "fewer aliases",
		                    s->file, m->line + 1, m->column + 1, FT_YAML_MAX_ALIAS_NODES);
	return 0;
}

static char *
dup_anchor(const yaml_char_t *a)
{
	return a ? ft_strdup((const char *)a) : NULL;
}

static int
on_event(struct scan *s, const yaml_event_t *ev)
{
	const struct anchor *a;
	struct frame *f;
	char *name;
	int rc;

	switch (ev->type) {
	case YAML_SCALAR_EVENT:
		name = dup_anchor(ev->data.scalar.anchor);
		if (ev->data.scalar.anchor && !name)
			return ft_error_set(s->err, FT_ENOMEM, "%s: out of memory", s->file);
		rc = add_anchor(s, &ev->start_mark, name, 1);
		return rc < 0 ? rc : count(s, &ev->start_mark, 1, false);
	case YAML_ALIAS_EVENT:
		a = find_anchor(s, (const char *)ev->data.alias.anchor);
		/* an unknown alias: libyaml's own load names it */
		return count(s, &ev->start_mark, a ? a->nodes : 1, true);
	case YAML_SEQUENCE_START_EVENT:
	case YAML_MAPPING_START_EVENT:
		if (s->depth >= FT_YAML_MAX_DEPTH)
			return ft_error_set(s->err, FT_ERANGE,
			                    "%s:%zu:%zu: nesting deeper than %d levels", s->file,
			                    ev->start_mark.line + 1, ev->start_mark.column + 1,
			                    FT_YAML_MAX_DEPTH);
		f = &s->stack[s->depth++];
		f->nodes = 1;
		f->anchor = dup_anchor(ev->type == YAML_SEQUENCE_START_EVENT ?
		                               ev->data.sequence_start.anchor :
		                               ev->data.mapping_start.anchor);
		return 0;
	case YAML_SEQUENCE_END_EVENT:
	case YAML_MAPPING_END_EVENT:
		if (!s->depth)
			return 0;
		f = &s->stack[--s->depth];
		rc = add_anchor(s, &ev->start_mark, f->anchor, f->nodes);
		f->anchor = NULL;
		if (rc < 0)
			return rc;
		s->literal++;
		if (s->depth)
			s->stack[s->depth - 1].nodes += f->nodes;
		return 0;
	default:
		return 0;
	}
}

int
ft_spec_yaml_check(const char *text, size_t len, const char *file, struct ft_error *err)
{
	struct scan s = { .file = file && *file ? file : "<input>", .err = err };
	yaml_parser_t parser;
	yaml_event_t ev;
	bool done = false;
	size_t i;
	int rc = 0;

	if (!yaml_parser_initialize(&parser))
		return ft_error_set(err, FT_ENOMEM, "%s: out of memory", s.file);
	ft_vec_init(&s.anchors, sizeof(struct anchor));
	yaml_parser_set_input_string(&parser, (const unsigned char *)(text ? text : ""), len);
	while (rc == 0 && !done) {
		/* a syntax error is left to the loader, which reports it in its words */
		if (!yaml_parser_parse(&parser, &ev))
			break;
		done = ev.type == YAML_STREAM_END_EVENT;
		if (ev.type == YAML_DOCUMENT_START_EVENT)
			s.expanded = 0;
		rc = on_event(&s, &ev);
		yaml_event_delete(&ev);
	}
	for (i = 0; i < s.depth; i++)
		ft_free(s.stack[i].anchor);
	for (i = 0; i < s.anchors.len; i++)
		ft_free(((struct anchor *)ft_vec_at(&s.anchors, i))->name);
	ft_vec_release(&s.anchors);
	yaml_parser_delete(&parser);
	return rc;
}

int
ft__yaml_load(const char *text, size_t len, const char *file, yaml_document_t *doc,
              struct ft_error *err)
{
	yaml_parser_t parser;
	int rc;

	file = file && *file ? file : "<input>";
	rc = ft_spec_yaml_check(text, len, file, err);
	if (rc < 0)
		return rc;
	if (!yaml_parser_initialize(&parser))
		return ft_error_set(err, FT_ENOMEM, "%s: out of memory", file);
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	rc = 0;
	if (!yaml_parser_load(&parser, doc))
		rc = ft_error_set(err, FT_EPARSE, "%s:%zu:%zu: %s", file,
		                  parser.problem_mark.line + 1, parser.problem_mark.column + 1,
		                  parser.problem ? parser.problem : "malformed YAML/JSON");
	yaml_parser_delete(&parser);
	return rc;
}
