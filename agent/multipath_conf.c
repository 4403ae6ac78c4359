#include "multipath_conf.h"

#include <ctype.h>
#include <errno.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>

#define MAX_TOKENS 8

struct token {
	char *s;
	bool quoted;
};

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/* Tokenise one line the way libmultipath's alloc_strvec() does. */
static size_t tokenize(const char *p, const char *end, struct token *t)
{
	size_t n = 0;
	while (p < end && is_space(*p))
		p++;
	while (p < end && *p != '#' && *p != '!' && n < MAX_TOKENS) {
		if (*p == '"') {
			char *s = xmalloc((size_t)(end - p) + 1), *o = s;
			for (p++; p < end; p++) {
				if (*p == '"' && p + 1 < end && p[1] == '"') {
					*o++ = '"';
					p++;
				} else if (*p == '"') {
					p++;
					break;
				} else {
					*o++ = *p;
				}
			}
			*o = '\0';
			t[n++] = (struct token){s, true};
		} else if (*p == '{' || *p == '}') {
			t[n++] = (struct token){xstrndup(p, 1), false};
			p++;
		} else {
			const char *s = p;
			while (p < end && !is_space(*p) && *p != '!' && *p != '#' && *p != '{' &&
			       *p != '}' && *p != '"')
				p++;
			t[n++] = (struct token){xstrndup(s, (size_t)(p - s)), false};
		}
		while (p < end && is_space(*p))
			p++;
	}
	return n;
}

enum sect {
	S_TOP,
	S_DEFAULTS,
	S_BLACKLIST,
	S_EXCEPTIONS,
	S_BL_DEVICE, /* device { } inside blacklist or blacklist_exceptions */
	S_OTHER,     /* a section whose contents do not matter here */
};

/* The sections multipath-tools knows, by parent: a keyword from this table opens
 * a section whether or not `{` follows, like libmultipath's keyword tree. */
static bool opens(enum sect parent, const char *kw, enum sect *ret)
{
	static const struct {
		enum sect parent;
		const char *kw;
		enum sect child;
	} tab[] = {
	    {S_TOP, "defaults", S_DEFAULTS},
	    {S_TOP, "blacklist", S_BLACKLIST},
	    {S_TOP, "blacklist_exceptions", S_EXCEPTIONS},
	    {S_TOP, "devices", S_OTHER},
	    {S_TOP, "multipaths", S_OTHER},
	    {S_TOP, "overrides", S_OTHER},
	    {S_BLACKLIST, "device", S_BL_DEVICE},
	    {S_EXCEPTIONS, "device", S_BL_DEVICE},
	};
	for (size_t i = 0; i < ELEMENTSOF(tab); i++)
		if (tab[i].parent == parent && streq(tab[i].kw, kw)) {
			*ret = tab[i].child;
			return true;
		}
	/* Subsections of the sections we skip (devices { device { } }, multipaths {
	 * multipath { } }, overrides { protocol { } }) must still nest correctly. */
	if (parent == S_OTHER &&
	    (streq(kw, "device") || streq(kw, "multipath") || streq(kw, "protocol"))) {
		*ret = S_OTHER;
		return true;
	}
	return false;
}

static const struct {
	const char *kw;
	enum mpconf_kind kind;
} list_keywords[] = {
    {"devnode", MPCONF_DEVNODE},
    {"wwid", MPCONF_WWID},
    {"property", MPCONF_PROPERTY},
    {"protocol", MPCONF_PROTOCOL},
};

static struct multipath_conf_entry *add_entry(struct multipath_conf *c, enum sect s,
					      enum mpconf_kind kind, const char *file, size_t line)
{
	util_grow((void **)&c->items, &c->cap, c->n + 1, sizeof(c->items[0]));
	struct multipath_conf_entry *e = &c->items[c->n++];
	*e = (struct multipath_conf_entry){
	    .section = s == S_EXCEPTIONS ? MPCONF_EXCEPTIONS : MPCONF_BLACKLIST,
	    .kind = kind,
	    .where = xasprintf("%s:%zu", file, line),
	};
	return e;
}

static void set_str(char **dst, const char *v)
{
	free(*dst);
	*dst = xstrdup(v);
}

#define MAX_DEPTH 8

int multipath_conf_parse(const uint8_t *buf, size_t len, const char *file,
			 struct multipath_conf *conf)
{
	if (memchr(buf, '\0', len))
		return -EINVAL;
	enum sect stack[MAX_DEPTH] = {S_TOP};
	size_t depth = 0;      /* stack[depth] is the current section */
	size_t dev = SIZE_MAX; /* index of the open device { } entry */
	const char *s = (const char *)buf, *end = s + len;
	size_t lineno = 0;
	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		const char *eol = nl ? nl : end;
		lineno++;
		struct token t[MAX_TOKENS];
		size_t n = tokenize(s, eol, t);
		s = eol + 1;
		if (n == 0)
			continue;
		enum sect cur = stack[depth], child;
		bool has_value =
		    n > 1 && (t[1].quoted || (!streq(t[1].s, "{") && !streq(t[1].s, "}")));
		const char *v = has_value ? t[1].s : NULL;
		if (streq(t[0].s, "}") && !t[0].quoted) {
			if (depth > 0) {
				if (cur == S_BL_DEVICE)
					dev = SIZE_MAX;
				depth--;
			}
		} else if (opens(cur, t[0].s, &child)) {
			if (depth + 1 < MAX_DEPTH) {
				stack[++depth] = child;
				if (child == S_BL_DEVICE) {
					add_entry(conf, cur, MPCONF_DEVICE, file, lineno);
					dev = conf->n - 1;
				}
			}
		} else if (v && cur == S_DEFAULTS && streq(t[0].s, "config_dir")) {
			set_str(&conf->config_dir, v);
			free(conf->config_dir_where);
			conf->config_dir_where = xasprintf("%s:%zu", file, lineno);
		} else if (v && cur == S_DEFAULTS && streq(t[0].s, "find_multipaths")) {
			set_str(&conf->find_multipaths, v);
		} else if (v && cur == S_BL_DEVICE && dev < conf->n && streq(t[0].s, "vendor")) {
			set_str(&conf->items[dev].vendor, v);
		} else if (v && cur == S_BL_DEVICE && dev < conf->n && streq(t[0].s, "product")) {
			set_str(&conf->items[dev].product, v);
		} else if (v && (cur == S_BLACKLIST || cur == S_EXCEPTIONS)) {
			for (size_t k = 0; k < ELEMENTSOF(list_keywords); k++)
				if (streq(t[0].s, list_keywords[k].kw)) {
					struct multipath_conf_entry *e = add_entry(
					    conf, cur, list_keywords[k].kind, file, lineno);
					e->value = xstrdup(v);
				}
		}
		for (size_t k = 0; k < n; k++)
			free(t[k].s);
		if (conf->n > MULTIPATH_CONF_MAX_ENTRIES)
			return -EINVAL;
	}
	return 0;
}

void multipath_conf_clear(struct multipath_conf *conf)
{
	for (size_t i = 0; i < conf->n; i++) {
		free(conf->items[i].value);
		free(conf->items[i].vendor);
		free(conf->items[i].product);
		free(conf->items[i].where);
	}
	free(conf->items);
	free(conf->config_dir);
	free(conf->config_dir_where);
	free(conf->find_multipaths);
	*conf = (struct multipath_conf){0};
}

static const char *kind_name(enum mpconf_kind k)
{
	switch (k) {
	case MPCONF_DEVNODE:
		return "devnode";
	case MPCONF_WWID:
		return "wwid";
	case MPCONF_PROPERTY:
		return "property";
	case MPCONF_PROTOCOL:
		return "protocol";
	case MPCONF_DEVICE:
		break;
	}
	return "device";
}

char *multipath_conf_entry_str(const struct multipath_conf_entry *e)
{
	if (e->kind != MPCONF_DEVICE)
		return xasprintf("%s \"%s\"", kind_name(e->kind), e->value);
	_cleanup_free_ char *v = e->vendor ? xasprintf(" vendor \"%s\"", e->vendor) : xstrdup("");
	_cleanup_free_ char *p =
	    e->product ? xasprintf(" product \"%s\"", e->product) : xstrdup("");
	return xasprintf("device {%s%s }", v, p);
}

/*
 * What Longhorn's devices look like to multipathd. Kernel names: several sdX,
 * also past sdz, since Longhorn's disks are numbered after the host's own.
 * The WWID is the one tgt reports ("3" + NAA 6 identifier).
 */
static const char *const longhorn_devnodes[] = {"sda", "sdb", "sdc", "sdm", "sdz", "sdaa", "sdcz"};
#define LONGHORN_VENDOR	  "IET"
#define LONGHORN_PRODUCT  "VIRTUAL-DISK"
#define LONGHORN_WWID	  "360000000000000000e00000000010001"
#define LONGHORN_PROTOCOL "scsi:iscsi"

#define RX_MAX_LEN	   512
#define RX_MAX_QUANTIFIERS 24
#define RX_MAX_BOUND	   64
#define RX_MAX_ON_GROUPS   6

/* glibc's regcomp copies a repeated expression once per repetition, so
 * stacked quantifiers ("(a+)++++"), many quantified groups or large bounds
 * take it minutes (found by fuzz_multipath_conf). Real blacklist entries are
 * short, never stack quantifiers and use small bounds: anything else is not
 * evaluated (listed as an invalid regex). */
static bool rx_tame(const char *rx)
{
	size_t quantifiers = 0, on_groups = 0;
	bool after_quantifier = false;
	if (strlen(rx) > RX_MAX_LEN)
		return false;
	for (const char *p = rx; *p; p++) {
		if (*p == '\\' && p[1]) {
			p++;
			after_quantifier = false;
			continue;
		}
		if (*p == '[') { /* a bracket expression: its characters are literal */
			const char *q = p + 1;
			if (*q == '^')
				q++;
			if (*q == ']')
				q++;
			while (*q && *q != ']')
				q++;
			if (!*q)
				return true; /* unbalanced: regcomp rejects it quickly */
			p = q;
			after_quantifier = false;
			continue;
		}
		if (*p == '*' || *p == '+' || *p == '?' || *p == '{') {
			if (after_quantifier || ++quantifiers > RX_MAX_QUANTIFIERS)
				return false;
			/* each quantified group doubles what nested ones copy */
			if (p > rx && p[-1] == ')' && ++on_groups > RX_MAX_ON_GROUPS)
				return false;
			if (*p == '{') {
				char *end;
				unsigned long n = strtoul(p + 1, &end, 10);
				if (n > RX_MAX_BOUND)
					return false;
				if (*end == ',' && isdigit((unsigned char)end[1]) &&
				    strtoul(end + 1, &end, 10) > RX_MAX_BOUND)
					return false;
				p = *end == '}' ? end : p;
			}
			after_quantifier = true;
			continue;
		}
		after_quantifier = false;
	}
	return true;
}

/* Match like libmultipath: REG_EXTENDED, and a leading '!' inverts. Returns 1, 0,
 * or -1 when the regex does not compile. */
static int rx_match(const char *rx, const char *s)
{
	bool invert = rx[0] == '!';
	if (!rx_tame(rx))
		return -1;
	regex_t re;
	if (regcomp(&re, invert ? rx + 1 : rx, REG_EXTENDED | REG_NOSUB) != 0)
		return -1;
	int m = regexec(&re, s, 0, NULL, 0) == 0;
	regfree(&re);
	return invert ? !m : m;
}

static void note_bad(struct multipath_conf_cover *c, const struct multipath_conf_entry *e,
		     const char *rx)
{
	_cleanup_free_ char *s = xasprintf("%s: \"%s\"", e->where, rx);
	if (!strv_contains(&c->bad_regex, s))
		strv_add(&c->bad_regex, s);
}

static bool entry_matches(struct multipath_conf_cover *c, const struct multipath_conf_entry *e,
			  enum mpconf_kind kind, const char *sample)
{
	if (e->kind != kind)
		return false;
	if (kind == MPCONF_DEVICE) {
		/* Both missing: multipathd ignores the entry; one missing matches anything. */
		if (!e->vendor && !e->product)
			return false;
		int mv = e->vendor ? rx_match(e->vendor, LONGHORN_VENDOR) : 1;
		int mp = e->product ? rx_match(e->product, LONGHORN_PRODUCT) : 1;
		if (mv < 0)
			note_bad(c, e, e->vendor);
		if (mp < 0)
			note_bad(c, e, e->product);
		return mv == 1 && mp == 1;
	}
	int m = rx_match(e->value, sample);
	if (m < 0)
		note_bad(c, e, e->value);
	return m == 1;
}

/* The first entry of section that matches sample, or NULL. */
static const struct multipath_conf_entry *first_match(const struct multipath_conf *conf,
						      struct multipath_conf_cover *c,
						      enum mpconf_section section,
						      enum mpconf_kind kind, const char *sample)
{
	for (size_t i = 0; i < conf->n; i++)
		if (conf->items[i].section == section &&
		    entry_matches(c, &conf->items[i], kind, sample))
			return &conf->items[i];
	return NULL;
}

/* One kind with one sample: covered unless an exception of the same kind matches. */
static bool judge_kind(const struct multipath_conf *conf, struct multipath_conf_cover *c,
		       enum mpconf_kind kind, const char *sample)
{
	const struct multipath_conf_entry *bl =
	    first_match(conf, c, MPCONF_BLACKLIST, kind, sample);
	if (!bl)
		return false;
	const struct multipath_conf_entry *ex =
	    first_match(conf, c, MPCONF_EXCEPTIONS, kind, sample);
	if (ex) {
		if (!c->undone) {
			c->undone = bl;
			c->undone_by = ex;
		}
		return false;
	}
	c->by = bl;
	return true;
}

static bool judge_devnodes(const struct multipath_conf *conf, struct multipath_conf_cover *c)
{
	const struct multipath_conf_entry *first = NULL;
	struct strv missed = {0};
	for (size_t i = 0; i < ELEMENTSOF(longhorn_devnodes); i++) {
		const char *name = longhorn_devnodes[i];
		const struct multipath_conf_entry *bl =
		    first_match(conf, c, MPCONF_BLACKLIST, MPCONF_DEVNODE, name);
		const struct multipath_conf_entry *ex =
		    bl ? first_match(conf, c, MPCONF_EXCEPTIONS, MPCONF_DEVNODE, name) : NULL;
		if (bl && ex && !c->undone) {
			c->undone = bl;
			c->undone_by = ex;
		}
		if (bl && !ex) {
			if (!first)
				first = bl;
		} else {
			strv_add(&missed, name);
		}
	}
	if (first && missed.n == 0) {
		c->by = first;
		strv_clear(&missed);
		return true;
	}
	if (first && !c->partial) {
		c->partial = first;
		c->uncovered = missed;
		return false;
	}
	strv_clear(&missed);
	return false;
}

void multipath_conf_covers_longhorn(const struct multipath_conf *conf,
				    struct multipath_conf_cover *ret)
{
	*ret = (struct multipath_conf_cover){0};
	/* The targeted entry first: it is what the operator most likely meant. */
	if (judge_kind(conf, ret, MPCONF_DEVICE, NULL))
		return;
	if (judge_devnodes(conf, ret))
		return;
	if (judge_kind(conf, ret, MPCONF_WWID, LONGHORN_WWID))
		return;
	judge_kind(conf, ret, MPCONF_PROTOCOL, LONGHORN_PROTOCOL);
}

void multipath_conf_cover_clear(struct multipath_conf_cover *c)
{
	strv_clear(&c->uncovered);
	strv_clear(&c->bad_regex);
	*c = (struct multipath_conf_cover){0};
}
