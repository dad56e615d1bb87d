/* SPDX-License-Identifier: MIT */
/*
 * parse/registry.c - the one static table of parsers, format detection, and
 * ft_parse_buffer()/ft_parse_file(), which split a file holding several
 * tools' outputs (a support bundle, a pasted session) at the shell prompts
 * that name a known tool and hand each part to its parser.
 */
#include "parse_int.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>

struct entry {
	const struct ft_parser *parser;
	ft__run_fn *run;
};

static const struct entry registry[] = {
#define FT__ENTRY(n) { &ft_##n##_parser, ft__##n##_run },
	FT__PARSERS(FT__ENTRY)
#undef FT__ENTRY
};

/* Sniffers look at the first few KB only. */
#define SNIFF_BYTES 8192
/* Below this confidence a format is not claimed. */
#define SNIFF_MIN 50

size_t
ft_parser_count(void)
{
	return FT_ARRAY_SIZE(registry);
}

const struct ft_parser *
ft_parser_at(size_t i)
{
	return i < FT_ARRAY_SIZE(registry) ? registry[i].parser : NULL;
}

static const struct entry *
find_entry(const char *name)
{
	for (size_t i = 0; name && i < FT_ARRAY_SIZE(registry); i++)
		if (strcmp(registry[i].parser->name, name) == 0)
			return &registry[i];
	return NULL;
}

const struct ft_parser *
ft_parser_find(const char *name)
{
	const struct entry *e = find_entry(name);

	return e ? e->parser : NULL;
}

int
ft__sniff_rules(const char *text, size_t len, const struct ft__sniff_rule *rules, size_t n)
{
	struct ft__span s = { text, len };

	for (size_t i = 0; i < n; i++) {
		size_t k = 0;

		while (k < FT__SNIFF_MARKERS && rules[i].all[k] && ft__find_any(s, rules[i].all[k]))
			k++;
		if (k == FT__SNIFF_MARKERS || !rules[i].all[k])
			return rules[i].score;
	}
	return 0;
}

static const struct entry *
detect_entry(const char *text, size_t len)
{
	const struct entry *best = NULL;
	int best_score = SNIFF_MIN - 1;

	if (!text)
		return NULL;
	if (len > SNIFF_BYTES)
		len = SNIFF_BYTES;
	for (size_t i = 0; i < FT_ARRAY_SIZE(registry); i++) {
		int score = registry[i].parser->sniff(text, len);

		if (score > best_score) {
			best_score = score;
			best = &registry[i];
		}
	}
	return best;
}

const struct ft_parser *
ft_parser_detect(const char *text, size_t len)
{
	uint32_t nl;
	size_t skip = text ? ft__corpus_header(text, len, &nl) : 0;
	const struct entry *e = detect_entry(text ? text + skip : NULL, len - skip);

	return e ? e->parser : NULL;
}

/* ---- splitting at prompts ------------------------------------------------ */

static bool
word_is(struct ft__span w, const char *name)
{
	/* "/usr/sbin/ibstat" counts as "ibstat" */
	const char *slash = w.n ? memrchr(w.p, '/', w.n) : NULL;

	if (slash)
		w = ft__skip(w, (size_t)(slash - w.p) + 1);
	return ft__eq(w, name);
}

/* The parser for a command line ("sudo ethtool -S eth4"), or NULL. */
static const struct entry *
entry_for_command(struct ft__span cmd)
{
	static const struct {
		const char *tool, *parser;
	} tools[] = {
		{ "ibstat", "ibstat" },
		{ "ibstatus", "ibstatus" },
		{ "ibv_devinfo", "ibv_devinfo" },
		{ "perfquery", "perfquery" },
		{ "ibportstate", "ibportstate" },
		{ "smpquery", "ibportstate" },
		{ "ibqueryerrors", "ibqueryerrors" },
		{ "iblinkinfo", "iblinkinfo" },
		{ "ibnetdiscover", "ibnetdiscover" },
		{ "ibdiagnet", "ibdiagnet" },
		{ "show_gids", "show_gids" },
		{ "mlnx_qos", "mlnx_qos" },
		{ "lspci", "lspci" },
		{ "iperf3", "iperf3-json" },
		{ "nv", "nvue" },
		{ "ulimit", "ulimit" },
	};
	struct ft__span w, rest = cmd;
	int nwords = 0;

	while (ft__token(&rest, &w) && nwords++ < 3) {
		if (ft__eq(w, "sudo"))
			continue;
		/* smpquery's P_Key and SL-to-VL tables; its PortInfo is ibportstate's format */
		if (word_is(w, "smpquery") && (ft__find(rest, "PKey") || ft__find(rest, "pkey") ||
					       ft__find(rest, "SL2VL") || ft__find(rest, "sl2vl")))
			return find_entry("smpquery");
		for (size_t i = 0; i < FT_ARRAY_SIZE(tools); i++)
			if (word_is(w, tools[i].tool))
				return find_entry(tools[i].parser);
		if (word_is(w, "rdma") && ft__find(rest, "stat"))
			return find_entry("rdma-statistic");
		if (word_is(w, "ethtool"))
			return find_entry(ft__find(rest, "-S") ? "ethtool-S" : "ethtool");
		if (word_is(w, "nvidia-smi"))
			return ft__find(rest, "topo") ? find_entry("nvidia-smi-topo") : NULL;
		if (ft__starts(w, "ib_") && (ft__ends(w, "_bw") || ft__ends(w, "_lat")))
			return find_entry("perftest");
		if (ft__starts(w, "osu_"))
			return find_entry("osu");
		if (ft__find(w, "_perf"))
			return find_entry("nccl-tests");
		return NULL;
	}
	return NULL;
}

/*
 * A shell prompt before a command (ft__is_prompt), or a root prompt typed
 * without its blank, "#nvidia-smi topo -m", when the word after the "#"
 * names a tool.
 */
static bool
tool_prompt(struct ft__span line, struct ft__span *cmd)
{
	struct ft__span t = ft__trim(line);

	if (ft__is_prompt(line, cmd))
		return true;
	if (t.n < 2 || t.p[0] != '#' || !isalpha((unsigned char)t.p[1]))
		return false;
	*cmd = ft__skip(t, 1);
	return entry_for_command(*cmd) != NULL;
}

struct segment {
	const char *p;
	size_t n;
	uint32_t line0;
	const struct entry *e; /* NULL: detect */
};

#define MAX_SEGMENTS 256

/*
 * Large inputs make large outputs: reserve room for one observation per 64
 * input bytes and one row per 128 up front (NCCL logs give one observation
 * per ~90 bytes, tables one row per ~100), and ask for huge pages
 * for what is reserved, so that the kernel faults the output in 2 MiB at a
 * time rather than 4 KiB (a third of the parse time of a 200 MB log went to
 * page faults). Untouched reserved pages cost address space only.
 */
#define RESERVE_MIN_BYTES (8u << 20)

static void
hugepages(struct ft_vec *v)
{
	uintptr_t a = (uintptr_t)v->data, b = a + v->cap * v->elem_size;
	const uintptr_t huge = (uintptr_t)2 << 20;

	a = (a + huge - 1) & ~(huge - 1);
	b &= ~(huge - 1);
	if (b > a)
		(void)madvise((void *)a, b - a, MADV_HUGEPAGE);
}

static void
reserve_output(size_t len, struct ft_obs_set *out, struct ft_run *run)
{
	if (len < RESERVE_MIN_BYTES)
		return;
	if (out && ft_vec_reserve(&out->v, len / 64) == 0)
		hugepages(&out->v);
	if (run && ft_vec_reserve(&run->rows, len / 128) == 0)
		hugepages(&run->rows);
}

static int
run_entry(const struct entry *e, const char *text, size_t len, uint32_t line0, struct ft__span hdr,
          const char *file, struct ft_obs_set *out, struct ft_run *run, struct ft_error *err)
{
	struct ft__pctx c;

	ft__pctx_init(&c, file, out, run, err);
	c.line0 = line0;
	c.hdr = hdr;
	return e->run(&c, text, len);
}

/*
 * ft_parse_buffer(), and when @known is not NULL a text that no parser
 * recognises (or a blank one) is no error: *@known is set false and nothing
 * is added.
 */
static int
parse_buffer(const char *text, size_t len, const char *file, const char *format,
             struct ft_obs_set *out, struct ft_run *run, bool *known, struct ft_error *err)
{
	struct segment seg[MAX_SEGMENTS];
	size_t nseg = 0, skip;
	uint32_t hdr_lines = 0;
	struct ft__span hdr = FT__NOSTR, line, cmd;
	struct ft__lines it;
	const struct entry *e = NULL, *first = NULL;
	bool mixed = false;
	int rc;

	if (!file)
		file = "<input>";
	if (!text)
		len = 0;
	if (format) {
		e = find_entry(format);
		if (!e)
			return ft_error_set(err, FT_EINVAL,
			                    "unknown format '%s' (fabtune parse --list shows them)",
			                    format);
	}
	reserve_output(len, out, run);
	skip = text ? ft__corpus_header(text, len, &hdr_lines) : 0;
	if (skip)
		hdr = (struct ft__span){ text, skip };
	if (format)
		return run_entry(e, text ? text + skip : "", len - skip, hdr_lines, hdr, file, out,
		                 run, err);
	if (known)
		*known = !ft__is_blank((struct ft__span){ text ? text + skip : "", len - skip });
	if (known && !*known)
		return 0;
	if (ft__is_blank((struct ft__span){ text ? text + skip : "", len - skip }))
		return ft_error_set(err, FT_EPARSE, "%s: empty input, nothing to parse", file);

	/* Cut at prompts naming a known tool; a prelude before the first one is detected. */
	seg[0] = (struct segment){ text + skip, 0, hdr_lines, NULL };
	nseg = 1;
	ft__lines_init(&it, text + skip, len - skip, hdr_lines);
	while (ft__lines_next(&it, &line)) {
		const struct entry *ce;

		if (!tool_prompt(line, &cmd) || !(ce = entry_for_command(cmd)))
			continue;
		if (nseg == MAX_SEGMENTS)
			break;
		if (line.p == seg[nseg - 1].p) {
			seg[nseg - 1].e = ce;
		} else if (seg[nseg - 1].e == ce) {
			continue; /* the same tool again: one part */
		} else {
			seg[nseg++] = (struct segment){ line.p, 0, it.lineno - 1, ce };
		}
		if (first && ce != first)
			mixed = true;
		if (!first)
			first = ce;
	}
	for (size_t i = 0; i < nseg; i++) {
		const char *end = i + 1 < nseg ? seg[i + 1].p : text + len;

		seg[i].n = (size_t)(end - seg[i].p);
	}
	/* a prelude in another known format (a table pasted before "$ ibstat") is a part too */
	if (nseg > 1 && !seg[0].e && !mixed) {
		const struct entry *pe = detect_entry(seg[0].p, seg[0].n);

		mixed = pe && pe != first;
	}
	if (!mixed || nseg == 1) {
		/* One tool (or none named): detect the whole text. */
		e = detect_entry(text + skip, len - skip);
		if (!e && first)
			e = first;
		if (!e && known) {
			*known = false;
			return 0;
		}
		if (!e)
			return ft_error_set(err, FT_EPARSE,
			                    "%s: unrecognised format (use --format; fabtune parse "
			                    "--list shows the formats)",
			                    file);
		return run_entry(e, text + skip, len - skip, hdr_lines, hdr, file, out, run, err);
	}
	for (size_t i = 0; i < nseg; i++) {
		e = seg[i].e ? seg[i].e : detect_entry(seg[i].p, seg[i].n);
		if (!e) {
			if (ft__is_blank((struct ft__span){ seg[i].p, seg[i].n }))
				continue;
			e = first;
		}
		rc = run_entry(e, seg[i].p, seg[i].n, seg[i].line0, hdr, file, out, run, err);
		if (rc < 0)
			return rc;
	}
	return 0;
}

int
ft_parse_buffer(const char *text, size_t len, const char *file, const char *format,
                struct ft_obs_set *out, struct ft_run *run, struct ft_error *err)
{
	return parse_buffer(text, len, file, format, out, run, NULL, err);
}

/*
 * Regular files are mapped, not copied: the parsers read through (pointer,
 * length) views and never need a terminating NUL, and a 200 MB log then costs
 * no heap. Anything but a regular file is refused (base/file.c); an empty file
 * or one that cannot be mapped is read into a buffer.
 */
static int
parse_file(const char *path, const char *format, struct ft_obs_set *out, struct ft_run *run,
           bool *known, struct ft_error *err)
{
	struct ft_strbuf sb;
	struct stat st;
	int fd, rc;

	fd = ft_file_open_input(path, NULL, err);
	if (fd < 0)
		return fd;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
		size_t len = (size_t)st.st_size;
		void *map = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);

		if (map != MAP_FAILED) {
			close(fd);
			(void)madvise(map, len, MADV_SEQUENTIAL);
			rc = parse_buffer(map, len, path, format, out, run, known, err);
			munmap(map, len);
			return rc;
		}
	}
	close(fd);
	ft_strbuf_init(&sb);
	rc = ft_strbuf_read_file(&sb, path, err);
	if (rc == 0)
		rc = parse_buffer(sb.buf, sb.len, path, format, out, run, known, err);
	ft_strbuf_release(&sb);
	return rc;
}

int
ft_parse_file(const char *path, const char *format, struct ft_obs_set *out, struct ft_run *run,
              struct ft_error *err)
{
	return parse_file(path, format, out, run, NULL, err);
}

int
ft_parse_file_known(const char *path, const char *format, struct ft_obs_set *out,
                    struct ft_run *run, bool *known, struct ft_error *err)
{
	*known = true;
	return parse_file(path, format, out, run, known, err);
}
