/* SPDX-License-Identifier: MIT */
/*
 * parse/parse_int.h - what the parsers share: a line iterator, span helpers,
 * the parse context that carries the current entity, and the emitters that
 * turn a recognised value into a struct ft_obs.
 *
 * Parsers never allocate per line: lines are (pointer, length) views into the
 * caller's buffer, found with memchr. Only observations and result rows are
 * copied out. Internal to src/parse/ and src/probe/.
 *
 * A new parser is a run function and one FT__PARSER() definition (its
 * detection as marker sets with scores), added to FT__PARSERS; see "parser
 * definitions" below and docs/internals/parse.md.
 */
#ifndef FT_PARSE_INT_H
#define FT_PARSE_INT_H

#include "internal.h"

#include <fabtune/obs.h>
#include <fabtune/parse.h>
#include <fabtune/result.h>

/* ---- spans and lines ----------------------------------------------------- */

struct ft__span {
	const char *p;
	size_t n;
};

struct ft__lines {
	const char *p;   /* next unread byte */
	const char *end; /* end of the text */
	uint32_t lineno; /* number of the line last returned */
};

static inline void
ft__lines_init(struct ft__lines *it, const char *text, size_t len, uint32_t line0)
{
	it->p = text;
	it->end = text + len;
	it->lineno = line0;
}

/* Next line without its "\n" (and "\r"); false at the end of the text. */
static inline bool
ft__lines_next(struct ft__lines *it, struct ft__span *line)
{
	const char *nl;

	if (it->p >= it->end)
		return false;
	nl = memchr(it->p, '\n', (size_t)(it->end - it->p));
	line->p = it->p;
	line->n = nl ? (size_t)(nl - it->p) : (size_t)(it->end - it->p);
	it->p = nl ? nl + 1 : it->end;
	if (line->n && line->p[line->n - 1] == '\r')
		line->n--;
	it->lineno++;
	return true;
}

static inline bool
ft__is_space(char c)
{
	/* ' ' and \t \n \v \f \r (0x09 to 0x0d); lines never hold a \n */
	return c == ' ' || (unsigned char)(c - '\t') <= 4;
}

static inline bool
ft__is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/*
 * The span helpers are inline: with a literal argument the compiler folds
 * strlen() away, and they run for every line of every input.
 */
static inline struct ft__span
ft__trim(struct ft__span s)
{
	while (s.n && ft__is_space(s.p[0])) {
		s.p++;
		s.n--;
	}
	while (s.n && ft__is_space(s.p[s.n - 1]))
		s.n--;
	return s;
}

static inline bool
ft__is_blank(struct ft__span s)
{
	return ft__trim(s).n == 0;
}

static inline bool
ft__starts(struct ft__span s, const char *prefix)
{
	size_t k = strlen(prefix);

	return s.n >= k && memcmp(s.p, prefix, k) == 0;
}

static inline bool
ft__ends(struct ft__span s, const char *suffix)
{
	size_t k = strlen(suffix);

	return s.n >= k && memcmp(s.p + s.n - k, suffix, k) == 0;
}

static inline bool
ft__eq(struct ft__span s, const char *word)
{
	size_t k = strlen(word);

	return s.n == k && memcmp(s.p, word, k) == 0;
}

/* Pointer to the first occurrence of the @k bytes at @needle in @s, or NULL. */
static inline const char *
ft__find_n(struct ft__span s, const char *needle, size_t k)
{
	if (k == 0)
		return s.p;
	while (s.n >= k) {
		const char *q = memchr(s.p, needle[0], s.n - k + 1);

		if (!q)
			return NULL;
		if (memcmp(q, needle, k) == 0)
			return q;
		s.n -= (size_t)(q + 1 - s.p);
		s.p = q + 1;
	}
	return NULL;
}

/* Pointer to the first occurrence of @needle in @s, or NULL. */
static inline const char *
ft__find(struct ft__span s, const char *needle)
{
	return ft__find_n(s, needle, strlen(needle));
}

/* Drop @k bytes from the front. */
static inline struct ft__span
ft__skip(struct ft__span s, size_t k)
{
	if (k > s.n)
		k = s.n;
	s.p += k;
	s.n -= k;
	return s;
}

/* The next whitespace-separated token of *@s (advancing it); false when none. */
static inline bool
ft__token(struct ft__span *s, struct ft__span *tok)
{
	const char *p = s->p, *end = s->p + s->n, *b;

	while (p < end && ft__is_space(*p))
		p++;
	if (p == end) {
		s->p = end;
		s->n = 0;
		return false;
	}
	b = p;
	while (p < end && !ft__is_space(*p))
		p++;
	tok->p = b;
	tok->n = (size_t)(p - b);
	s->p = p;
	s->n = (size_t)(end - p);
	return true;
}

/* @alts holds alternatives separated by '|' ("ibpanic:|ibwarn:"): the first found in @s, or NULL. */
const char *ft__find_any(struct ft__span s, const char *alts);
/* Does @s start with one of the '|'-separated @alts? */
bool ft__starts_any(struct ft__span s, const char *alts);
/* Split "key<sep>value" at the first @sep; both sides trimmed. */
bool ft__split(struct ft__span s, char sep, struct ft__span *key, struct ft__span *val);
/* Copy into a NUL-terminated buffer, truncating. */
void ft__copy(char *dst, size_t size, struct ft__span s);
/* Whole-span numbers: decimal or 0x hex for integers; false when not a number. */
bool ft__u64(struct ft__span s, uint64_t *out);
bool ft__i64(struct ft__span s, int64_t *out);
bool ft__dbl(struct ft__span s, double *out);
/* A leading number, e.g. "4096 (5)" or "200 Gb/sec"; *@rest gets what follows. */
bool ft__lead_dbl(struct ft__span s, double *out, struct ft__span *rest);

/* ---- parse context ------------------------------------------------------- */

struct ft__pctx {
	const char *file;
	const char *file_in;	       /* @file interned in the pool of @file_set */
	const struct ft_obs_set *file_set; /* the set @file_in belongs to; NULL before an emit */
	struct ft_obs_set *out;
	struct ft_run *run;
	struct ft_error *err;
	int rc;              /* first FT_ENOMEM; emitters stop adding after it */
	struct ft__span hdr; /* the corpus header skipped before the text, if any */
	uint32_t line0;      /* line number of the line before the text */
	/* current entity; parsers set these as they go */
	char host[64];
	char device[48];
	int port;
	int rank;
};

void ft__pctx_init(struct ft__pctx *c, const char *file, struct ft_obs_set *out, struct ft_run *run,
                   struct ft_error *err);
void ft__pctx_entity(struct ft__pctx *c, const char *device, int port);
/* Name the run that rows fill, unless the caller did: @kind, and the file as label. */
void ft__pctx_run_kind(struct ft__pctx *c, const char *kind);

/* Append observations for the current entity; they record the first FT_ENOMEM in c->rc. */
void ft__emit(struct ft__pctx *c, uint32_t line, const char *key, bool has_num, double num,
              const char *unit, struct ft__span str);
void ft__emit_num(struct ft__pctx *c, uint32_t line, const char *key, double num, const char *unit);
void ft__emit_str(struct ft__pctx *c, uint32_t line, const char *key, struct ft__span str);
void ft__emit_cstr(struct ft__pctx *c, uint32_t line, const char *key, const char *str);
/* "prefix" + name as key, e.g. ("ib.counter.", "SymbolErrorCounter"). */
void ft__emit_named(struct ft__pctx *c, uint32_t line, const char *prefix, struct ft__span name,
                    bool has_num, double num, const char *unit, struct ft__span str);
/*
 * fabtune bench's sample clock of rank @rank, "tsc 2095.081 MHz, error 3.1
 * ppm" or "monotonic" (stable output: the source alone), notes after a ';'
 * passed over, as `fabtune bench --save` stores it: bench.clock_hz (str
 * the source, num the rate in Hz where printed) and bench.clock_error
 * (ppm), both of @rank. A text not so: `parse.skipped`.
 */
void ft__emit_clock(struct ft__pctx *c, uint32_t line, int rank, struct ft__span s);
/* The check and the writing of it, from its fields: source @src, rate @hz (NaN: not
   given), error @ppm (NaN: not given); a source not tsc or monotonic: `parse.skipped`. */
void ft__emit_clock_at(struct ft__pctx *c, uint32_t line, int rank, struct ft__span src,
                       double hz, double ppm);
/* The same from the rest of a "# clock: rank R ..." line, @s after "# clock: ". */
void ft__emit_clock_line(struct ft__pctx *c, uint32_t line, struct ft__span s);
/* A line the parser could not read: `parse.skipped` with @why. */
void ft__skipped(struct ft__pctx *c, uint32_t line, const char *why, struct ft__span text);
/* The tool's own error line, starting with one of the '|'-separated @starts: `tool.error`. */
bool ft__tool_error(struct ft__pctx *c, uint32_t line, struct ft__span s, const char *starts);
/*
 * An "ibwarn:" line of infiniband-diags: true when @s is one; `tool.error`
 * only when its message reports a failure (a debug trace line is passed over).
 */
bool ft__ibwarn(struct ft__pctx *c, uint32_t line, struct ft__span s);
/* A line no branch of the parser read: passed over when it is a shell prompt, else ft__skipped(). */
void ft__unread(struct ft__pctx *c, uint32_t line, const char *why, struct ft__span text);
void ft__add_row(struct ft__pctx *c, const struct ft_result_row *row);
/*
 * An IB port state or physical state in ibstat's spelling: "4: ACTIVE"
 * (ibstatus, sysfs), "PORT_ACTIVE (4)" (ibv_devinfo), "5: LinkUp" all give
 * "Active" or "LinkUp"; a state not known is kept as printed.
 */
void ft__emit_ib_state(struct ft__pctx *c, uint32_t line, const char *key, struct ft__span v);

static inline struct ft__span
ft__span_c(const char *s)
{
	struct ft__span r = { s, strlen(s) };
	return r;
}

#define FT__NOSTR ((struct ft__span){ NULL, 0 })

/* The lines of the text a run function reads, numbered on from the context's @line0. */
static inline struct ft__lines
ft__pctx_lines(const struct ft__pctx *c, const char *text, size_t len)
{
	struct ft__lines it;

	ft__lines_init(&it, text, len, c->line0);
	return it;
}

/*
 * The line loop of a run function: the next line that is not blank, while no
 * emit has failed; *@s gets it trimmed, @it->lineno its number.
 */
/*
 * @s without the quote markers of a mail or Markdown reply ("> ", "> > "):
 * no tool output this project reads starts a line with ">".
 */
static inline struct ft__span
ft__unquote(struct ft__span s)
{
	struct ft__span t = ft__trim(s);

	if (!t.n || t.p[0] != '>')
		return s;
	while (t.n && t.p[0] == '>' && (t.n == 1 || t.p[1] == ' ' || t.p[1] == '>'))
		t = ft__trim((struct ft__span){ t.p + 1, t.n - 1 });
	return t;
}

static inline bool
ft__next_line(struct ft__pctx *c, struct ft__lines *it, struct ft__span *s)
{
	struct ft__span raw;

	while (!c->rc && ft__lines_next(it, &raw)) {
		*s = ft__trim(ft__unquote(raw));
		if (s->n)
			return true;
	}
	return false;
}

/*
 * A line handler of a line-oriented format: read @s (a non-blank line,
 * trimmed, numbered @line) with the parser's own @state; false leaves it
 * unread.
 */
typedef bool ft__line_fn(struct ft__pctx *c, void *state, struct ft__span s, uint32_t line);

/*
 * The run function of a format read one line at a time, without look-ahead:
 * every line from ft__next_line() goes to @fn, a line it leaves unread to
 * ft__unread() with @why (a shell prompt is passed over; NULL: every line
 * is read or passed over on purpose); returns c->rc.
 */
int ft__parse_lines(struct ft__pctx *c, const char *text, size_t len, ft__line_fn *fn, void *state,
                    const char *why);

/*
 * The run function of a line-oriented parser, ft__<id>_run(), that hands
 * every line to its handler <id>_line() (ft__parse_lines), with no state or
 * with a zeroed @type of its own for the whole text:
 *
 *	FT__LINES_RUN_STATE(ibstat, bool, "not ibstat output")
 */
#define FT__LINES_RUN(id, why)                                               \
	int ft__##id##_run(struct ft__pctx *c, const char *text, size_t len) \
	{                                                                    \
		return ft__parse_lines(c, text, len, id##_line, NULL, why);  \
	}

#define FT__LINES_RUN_STATE(id, type, why)                                     \
	int ft__##id##_run(struct ft__pctx *c, const char *text, size_t len)   \
	{                                                                      \
		type state;                                                    \
                                                                               \
		memset(&state, 0, sizeof(state));                              \
		return ft__parse_lines(c, text, len, id##_line, &state, why);  \
	}

/* Is this a shell prompt or trace line ("$ cmd", "[root@h ~]# cmd", "+ cmd", "# cmd")? */
bool ft__is_prompt(struct ft__span s, struct ft__span *cmd);
/* The host a prompt names ("root@h:~# cmd", "[root@h dir]# cmd") into c->host; none: kept. */
void ft__host_from_prompt(struct ft__pctx *c, struct ft__span s);

/*
 * What a perftest bandwidth line gives besides its row (perftest.c), and the
 * bench document's pt2pt_bw rows in its stead: `bench.bw_peak` (when not
 * NaN), `bench.bw_avg` (Gbps) and `bench.msg_rate` (Mpps, when not NaN),
 * each under the message size @bytes, at @line.
 */
void ft__perftest_bw_obs(struct ft__pctx *c, uint32_t line, uint64_t bytes, double peak_Gbps,
                         double avg_Gbps, double rate_Mpps);

/* ---- JSON cursor (jscan.c): shared by the streaming JSON walkers -------- */

struct ft__jcur {
	const char *p, *end, *start;
	uint32_t line0;     /* line number of the line before @start */
	const char *seen;   /* ft__jcur_line() counted newlines up to here ... */
	uint32_t seen_line; /* ... and this is the line number there, ... */
	const char *seen_bol; /* ... which begins here */
	bool bad;           /* a fault was met; @p is at @end since */
	uint32_t bad_line;  /* the line of the first fault ... */
	uint32_t bad_col;   /* ... and its column (1: the line's first byte) */
};

void ft__jcur_init(struct ft__jcur *j, const char *text, size_t len, uint32_t line0);
/* Line number of @at (cheap when asked in increasing order). */
uint32_t ft__jcur_line(struct ft__jcur *j, const char *at);
/* Skip JSON whitespace (space, \t, \n, \r). */
void ft__jcur_ws(struct ft__jcur *j);
/* Record the first fault (its line and column) and stop: the cursor goes to the end. */
void ft__jcur_fail(struct ft__jcur *j);
/* A string at @p: its body, escapes left in place; false when none or unterminated. */
bool ft__jcur_string(struct ft__jcur *j, struct ft__span *out);
/* A member's name and the ':' after it; false when either is missing. */
bool ft__jcur_key(struct ft__jcur *j, struct ft__span *key);
/* Step over the '{' or '[' at @p; false when @close follows at once (empty, consumed). */
bool ft__jcur_open(struct ft__jcur *j, char close);
/* After a member or element: 1 on ',' (consumed), 0 on @close (consumed), -1 on a fault. */
int ft__jcur_next(struct ft__jcur *j, char close);
/* The rest of the line at @p (no '\n'); the cursor moves to the next line. */
struct ft__span ft__jcur_skip_line(struct ft__jcur *j);
/* Column of @at on its line (1: the line's first byte; bytes, not characters). */
uint32_t ft__jcur_col(struct ft__jcur *j, const char *at);

/*
 * ---- JSON walker (jscan.c): one strict walk for the JSON documents ------
 *
 * RFC 8259's grammar: the literals true, false and null only (no NaN,
 * Infinity or other bare word), numbers by its grammar (no leading zero,
 * '+', '.5', '1.', hex), strings with their escapes checked and decoded
 * (\uXXXX to UTF-8, a surrogate pair to one code point; a lone surrogate,
 * \u0000, an unknown escape, a raw control byte or raw bytes that are not
 * well-formed UTF-8 refused), a number past a double (1e400) or longer than
 * FT__JSON_NUM_MAX bytes (the archive's reader's limit too) refused. Each
 * scalar, and each
 * object or array as it opens and closes, is handed to the caller under
 * its dotted key path ("end.sum_sent.bytes"; an array's elements stand at
 * the array's path); a member whose name holds a '.' or is too long for
 * the path (its whole name, not a cut of it) is walked, but nothing in it
 * is handed over (its path would read as another). The first fault stops
 * the walk and is kept with its line, column, what was wrong and the path
 * it was met under. Nothing is allocated; depth is bounded by the caller.
 */
#define FT__JMAXDEPTH 16

enum ft__jkind { FT__JSTR, FT__JNUM, FT__JTRUE, FT__JFALSE, FT__JNULL, FT__JOBJ, FT__JARR };

struct ft__jval {
	enum ft__jkind kind;
	struct ft__span raw; /* the text as written (a string with its quotes; '{' or '[') */
	struct ft__span str; /* a string's value, decoded; valid in the callback only */
	double num;          /* a number's value */
	uint32_t line;
};

struct ft__jwalk {
	struct ft__jcur j;
	int depth, maxdepth;
	int blind; /* the depth of a member whose name is no path, INT_MAX if none */
	char path[256];
	size_t plen[FT__JMAXDEPTH + 1];
	void *arg;
	/* each may be NULL; w->path is the value's own path */
	void (*scalar)(struct ft__jwalk *w, const struct ft__jval *v);
	void (*open)(struct ft__jwalk *w, const struct ft__jval *v);
	void (*close)(struct ft__jwalk *w, const struct ft__jval *v);
	const char *why;     /* the first fault: what was wrong ... */
	char bad_path[256];  /* ... and under which path ("" the top) */
	char sbuf[1024];     /* a string's decoded value (longer ones cut) */
};

/* Walk over @text; @maxdepth (at most FT__JMAXDEPTH) nested objects and arrays. */
void ft__jwalk_init(struct ft__jwalk *w, const char *text, size_t len, uint32_t line0,
                    int maxdepth);
/* Walk the one value at the cursor (whitespace first); false on a fault (w->j.bad). */
bool ft__jwalk_value(struct ft__jwalk *w);
/*
 * The next object of a text of documents one after the other, walked; each
 * line before it that opens none is left unread as @not_json. 1 when one
 * was walked; 0 at the end, or at a fault, which is then `parse.skipped`
 * and ends the text: the cursor is left at its end, later documents unread.
 */
int ft__jwalk_doc(struct ft__pctx *c, struct ft__jwalk *w, const char *not_json);
/* "a string", "a number", "true", "an object"... for errors naming what was found. */
const char *ft__jkind_name(enum ft__jkind k);

/* ---- field tables: "Name: value" lines mapped to keys ------------------- */

enum ft__field_kind {
	FT__F_STR,  /* text value */
	FT__F_NUM,  /* whole value a number (hex allowed); text otherwise */
	FT__F_LEAD, /* leading number ("4096 (5)", "100 Gb/sec"), the text kept too */
	FT__F_IGN,  /* known and ignored */
};

struct ft__field {
	const char *name; /* as the tool prints it */
	const char *key;  /* observation key */
	enum ft__field_kind kind;
	const char *unit;
};

/* Emit the observation for field @name = @val; false when @name is not in @map. */
bool ft__field_emit(struct ft__pctx *c, uint32_t line, const struct ft__field *map, size_t n,
                    struct ft__span name, struct ft__span val);
/* The observation @key for a value @val read as @kind says. */
void ft__field_value(struct ft__pctx *c, uint32_t line, const char *key, enum ft__field_kind kind,
                     const char *unit, struct ft__span val);

/* The tools that print IB device and port fields, each under its own names (ib_fields.c). */
enum ft__ib_tool { FT__IB_IBSTAT, FT__IB_VERBS, FT__IB_PORTINFO, FT__IB_NTOOLS };

/*
 * Emit the IB field @tool calls @name: an `ib.port.*` key when @port (a
 * port's block), an `ib.dev.*` one otherwise; false when there is none.
 */
bool ft__ib_field_emit(struct ft__pctx *c, uint32_t line, enum ft__ib_tool tool, bool port,
                       struct ft__span name, struct ft__span val);

/* ---- parser definitions -------------------------------------------------- */

typedef int ft__run_fn(struct ft__pctx *c, const char *text, size_t len);

/* Run @fn over a whole buffer: skip a leading corpus header ("# ..." lines up to "# ---"). */
int ft__parse_with(ft__run_fn *fn, const char *text, size_t len, const char *file,
                   struct ft_obs_set *out, struct ft_run *run, struct ft_error *err);
/* Length of a corpus header at the start of @text (0 when none); *@nlines gets its lines. */
size_t ft__corpus_header(const char *text, size_t len, uint32_t *nlines);

/*
 * Detection as data: a rule scores when every one of its markers occurs in
 * the text the registry hands over (the first few KB); a marker "B|C" occurs
 * when either of its alternatives does. Rules are tried in order and the
 * first that holds gives the score; 0 when none does.
 */
#define FT__SNIFF_MARKERS 4

struct ft__sniff_rule {
	int score;
	const char *all[FT__SNIFF_MARKERS]; /* unused slots NULL */
};

int ft__sniff_rules(const char *text, size_t len, const struct ft__sniff_rule *rules, size_t n);

/*
 * A parser is its run function, int ft__<id>_run(struct ft__pctx *, text,
 * len), followed by one definition in its file:
 *
 *	FT__PARSER(ibv_devinfo, "ibv_devinfo", "ibv_devinfo [-v]: HCA fields, ...",
 *	           { 95, { "hca_id:", "phys_port_cnt|fw_ver" } },
 *	           { 60, { "hca_id:" } });
 *
 * which defines `const struct ft_parser ft_<id>_parser` named @name_, whose
 * sniff walks the rules (ft__sniff_rules) and whose parse skips a corpus
 * header and calls the run function (ft__parse_with). A parser whose
 * detection is real logic (counting table rows, reading the first line)
 * writes its own sniff function and uses FT__PARSER_SNIFF(id, name, summary,
 * fn). Add the id to FT__PARSERS below to register it.
 */
#define FT__PARSER_SNIFF(id, name_, summary_, sniff_fn)                                          \
	static int ft__##id##_parse(const char *text, size_t len, const char *file,              \
	                            struct ft_obs_set *out, struct ft_run *run,                  \
	                            struct ft_error *err)                                        \
	{                                                                                        \
		return ft__parse_with(ft__##id##_run, text, len, file, out, run, err);           \
	}                                                                                        \
	const struct ft_parser ft_##id##_parser = {                                              \
		.name = name_, .summary = summary_, .sniff = sniff_fn, .parse = ft__##id##_parse \
	}

#define FT__PARSER(id, name_, summary_, ...)                                     \
	static const struct ft__sniff_rule ft__##id##_rules[] = { __VA_ARGS__ }; \
	static int ft__##id##_sniff(const char *text, size_t len)                \
	{                                                                        \
		return ft__sniff_rules(text, len, ft__##id##_rules,              \
		                       FT_ARRAY_SIZE(ft__##id##_rules));         \
	}                                                                        \
	FT__PARSER_SNIFF(id, name_, summary_, ft__##id##_sniff)

/* Each parser's run function, for the registry's split of concatenated outputs. */
#define FT__PARSERS(X)     \
	X(ibstat)          \
	X(ibstatus)        \
	X(ibv_devinfo)     \
	X(perfquery)       \
	X(ibportstate)     \
	X(ibqueryerrors)   \
	X(iblinkinfo)      \
	X(ibnetdiscover)   \
	X(ibdiagnet)       \
	X(ethtool_s)       \
	X(ethtool)         \
	X(show_gids)       \
	X(mlnx_qos)        \
	X(nvidia_smi_topo) \
	X(lspci)           \
	X(nccl_log)        \
	X(nccl_tests)      \
	X(perftest)        \
	X(osu)             \
	X(fabtune_bench)    \
	X(fabtune_sim)      \
	X(iperf3_json)      \
	X(torch_log)        \
	X(xid)              \
	X(mlxlink)          \
	X(mlxconfig)        \
	X(sonic)            \
	X(opensm_conf)      \
	X(ucx_perftest)     \
	X(nvbandwidth)      \
	X(dcgm)             \
	X(torch_trace)      \
	X(nvue)             \
	X(nvidia_smi_q)     \
	X(smpquery)         \
	X(rdma_stat)        \
	X(ulimit)

/* fabtune bench --json's document (fabtune_bench_json.c), for the fabtune-bench parser. */
int ft__fabtune_bench_json(struct ft__pctx *c, const char *text, size_t len);
/*
 * One line of a PyTorch NCCL process-group message / a kernel Xid line: read
 * it (true) or leave it (false). Job logs mix them with NCCL's own lines, so
 * the NCCL log parser offers them every line it does not know.
 */
bool ft__torch_line(struct ft__pctx *c, struct ft__span line, uint32_t lineno);
bool ft__xid_line(struct ft__pctx *c, struct ft__span line, uint32_t lineno);

#define FT__DECLARE_PARSER(n)                          \
	extern const struct ft_parser ft_##n##_parser; \
	int ft__##n##_run(struct ft__pctx *c, const char *text, size_t len);
FT__PARSERS(FT__DECLARE_PARSER)
#undef FT__DECLARE_PARSER

#endif
