/* The change-board header (docs/change-board.md). */
#include "report_header.h"

#include <ctype.h>
#include <string.h>

#include "json_write.h"
#include "redact.h"
#include "util.h"

void report_header_from_state(struct report_header *h, const struct cluster_state *cs,
			      int64_t generated_ns)
{
	*h = (struct report_header){.generated_ns = generated_ns};
	/* redact_url() keeps a path as it is; a URL loses its userinfo and
	 * every credential-like query value. */
	h->api_server = cs->api_server
			    ? (cs->live ? redact_url(cs->api_server) : redact_text(cs->api_server))
			    : xstrdup("");
	if (cs->cluster_uid)
		h->cluster_uid = xstrdup(cs->cluster_uid);
	else if (cs->cluster_uid_error)
		h->cluster_uid_why = redact_text(cs->cluster_uid_error);
	else if (cs->live)
		h->cluster_uid_why = xstrdup("Namespace kube-system was not read");
	else
		h->cluster_uid_why = xstrdup(
		    "no Namespace kube-system in the files (add kubectl get namespace kube-system "
		    "-o json, or use hvready-aggregator collect)");
}

void report_header_clear(struct report_header *h)
{
	free(h->api_server);
	free(h->cluster_uid);
	free(h->cluster_uid_why);
	free(h->operator_name);
	free(h->target_version);
	*h = (struct report_header){0};
}

/* Length of the valid UTF-8 sequence at p (at most n bytes), 0 if invalid. */
static size_t utf8_len(const unsigned char *p, size_t n)
{
	size_t len;
	unsigned cp;
	if (p[0] < 0x80)
		return 1;
	if ((p[0] & 0xe0) == 0xc0)
		len = 2, cp = p[0] & 0x1f;
	else if ((p[0] & 0xf0) == 0xe0)
		len = 3, cp = p[0] & 0x0f;
	else if ((p[0] & 0xf8) == 0xf0)
		len = 4, cp = p[0] & 0x07;
	else
		return 0;
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (p[i] & 0x3f);
	}
	static const unsigned min[] = {0, 0, 0x80, 0x800, 0x10000};
	if (cp < min[len] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	/* C1 controls, bidi embeddings/overrides/isolates, line/paragraph separators */
	if ((cp >= 0x80 && cp <= 0x9f) || (cp >= 0x202a && cp <= 0x202e) ||
	    (cp >= 0x2066 && cp <= 0x2069) || cp == 0x2028 || cp == 0x2029 || cp == 0x200e ||
	    cp == 0x200f)
		return 0;
	return len;
}

char *report_header_operator(const char *s)
{
	if (!s)
		return NULL;
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s), o = 0;
	char *out = xmalloc(REPORT_OPERATOR_MAX + 1);
	bool space = false;
	for (size_t i = 0; i < n;) {
		if (p[i] == ' ' || p[i] == '\t' || p[i] == '\n' || p[i] == '\r' || p[i] == '\v' ||
		    p[i] == '\f') {
			space = o > 0;
			i++;
			continue;
		}
		size_t len = utf8_len(p + i, n - i);
		if (!len || p[i] < 0x20 || p[i] == 0x7f) {
			i += len ? len : 1; /* dropped */
			continue;
		}
		if (o + space + len > REPORT_OPERATOR_MAX)
			break;
		if (space)
			out[o++] = ' ';
		space = false;
		memcpy(out + o, p + i, len);
		o += len;
		i += len;
	}
	out[o] = '\0';
	if (!o) {
		free(out);
		return NULL;
	}
	return out;
}

static bool number(const char **p)
{
	if (!isdigit((unsigned char)**p))
		return false;
	while (isdigit((unsigned char)**p))
		(*p)++;
	return true;
}

bool report_header_valid_version(const char *s)
{
	if (!s || !*s || strlen(s) > REPORT_VERSION_MAX)
		return false;
	const char *p = s + (*s == 'v');
	if (!number(&p) || *p++ != '.' || !number(&p))
		return false;
	if (*p == '.' && (p++, !number(&p)))
		return false;
	for (int part = 0; part < 2; part++) {
		char lead = part ? '+' : '-';
		if (*p != lead)
			continue;
		p++;
		if (!isalnum((unsigned char)*p))
			return false;
		while (isalnum((unsigned char)*p) || *p == '.' || *p == '-')
			p++;
	}
	return *p == '\0';
}

void report_header_write(struct jw *w, const struct report_header *h)
{
	char ts[64];
	jw_object_begin(w);
	jw_member_str(w, "api_server", h->api_server);
	jw_key(w, "cluster");
	jw_object_begin(w);
	jw_member_str(w, "kube_system_uid", h->cluster_uid);
	if (!h->cluster_uid)
		jw_member_str(w, "unknown_reason", h->cluster_uid_why);
	jw_object_end(w);
	jw_member_str(w, "hvready_version", HVREADY_VERSION);
	util_format_rfc3339(h->generated_ns, ts, sizeof(ts));
	jw_member_str(w, "report_time", ts);
	jw_member_str(w, "operator", h->operator_name);
	jw_member_str(w, "target_version", h->target_version);
	jw_object_end(w);
}

void report_header_rows(const struct report_header *h,
			struct report_header_row ret[REPORT_HEADER_ROWS])
{
	char ts[64];
	util_format_rfc3339(h->generated_ns, ts, sizeof(ts));
	ret[0] = (struct report_header_row){
	    "api_server", "API server",
	    xstrdup(h->api_server && *h->api_server ? h->api_server : "unknown")};
	ret[1] = (struct report_header_row){
	    "cluster", "Cluster",
	    h->cluster_uid
		? xasprintf("kube-system UID %s", h->cluster_uid)
		: xasprintf("unknown: %s", h->cluster_uid_why ? h->cluster_uid_why : "not read")};
	ret[2] = (struct report_header_row){"hvready_version", "hvready", xstrdup(HVREADY_VERSION)};
	ret[3] = (struct report_header_row){"report_time", "Report time", xstrdup(ts)};
	ret[4] = (struct report_header_row){
	    "operator", "Operator",
	    xstrdup(h->operator_name ? h->operator_name : "not given (--operator NAME)")};
	ret[5] = (struct report_header_row){
	    "target_version", "Target version",
	    xstrdup(h->target_version ? h->target_version : "not given (--target-version)")};
}

void report_header_rows_clear(struct report_header_row rows[REPORT_HEADER_ROWS])
{
	for (int i = 0; i < REPORT_HEADER_ROWS; i++) {
		free(rows[i].value);
		rows[i].value = NULL;
	}
}
