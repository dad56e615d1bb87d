/* SPDX-License-Identifier: MIT */
/*
 * report/textout.c - text on its way out: a document's JSON object stamped
 * with its schema as the first member, and text for a terminal that keeps
 * fabtune's own colour sequences while escaping every other control.
 */
#include "report_int.h"

int
ft_report_add_schema(struct ft_strbuf *doc, const char *json, size_t len, const char *schema)
{
	size_t skip = 0, body;
	bool pretty, empty;

	if (len < 2 || json[0] != '{')
		return FT_EINVAL;
	while (1 + skip < len && (json[1 + skip] == ' ' || json[1 + skip] == '\n'))
		skip++;
	if (len - 1 - skip >= 8 && memcmp(json + 1 + skip, "\"schema\"", 8) == 0)
		return FT_EINVAL;
	pretty = json[1] == '\n'; /* indented members on their own lines */
	empty = 1 + skip < len && json[1 + skip] == '}';
	if (pretty)
		ft_strbuf_addf(doc, "{\n  \"schema\": \"%s\"%s", schema, empty ? "\n" : ",\n");
	else
		ft_strbuf_addf(doc, "{\"schema\":\"%s\"%s", schema, empty ? "" : ",");
	body = pretty ? 2 : 1;
	ft_strbuf_add(doc, json + body, len - body);
	return doc->oom ? FT_ENOMEM : 0;
}

void
ft_report_add_printable_sgr(struct ft_strbuf *sb, const char *s, size_t n)
{
	size_t i = 0, start = 0;

	while (i < n) {
		if (s[i] == '\033' && i + 1 < n && s[i + 1] == '[') {
			size_t k = i + 2;

			while (k < n && ((s[k] >= '0' && s[k] <= '9') || s[k] == ';'))
				k++;
			if (k < n && s[k] == 'm') {
				ft_strbuf_add_printable(sb, s + start, i - start);
				ft_strbuf_add(sb, s + i, k + 1 - i);
				i = start = k + 1;
				continue;
			}
		}
		i++;
	}
	ft_strbuf_add_printable(sb, s + start, n - start);
}
