/*
 * Plain scalars as Helm reads values (yaml_json.h YAML_JSON_HELM).
 *
 * helm/helm pkg/chartutil/values.go ReadValues (v3.16.4, v3.19.5) calls
 * sigs.k8s.io/yaml Unmarshal (go.mod: v1.4.0 at v3.16.4, v1.6.0 at v3.19.5):
 * YAML decoded by a yaml.v2 (sigs.k8s.io/yaml goyaml.v2; go.yaml.in/yaml/v2
 * v2.4.2), converted to JSON, then decoded by encoding/json. So a plain scalar
 * resolves by YAML 1.1 rules (goyaml.v2/resolve.go resolve()):
 *   y Y yes Yes YES on On ON true True TRUE            → true
 *   n N no No NO off Off OFF false False FALSE         → false
 *   "" ~ null Null NULL                                → null
 *   .nan .inf -.inf (any listed case)                  → a float JSON cannot hold:
 *                                                        helm fails on the values
 *   first char a digit or sign: a timestamp (YYYY-…), else "_" removed and
 *   strconv.ParseInt(s, 0, 64): 0x1F, 0o17, 0b101, and 0755 as octal (493);
 *   else ParseUint; else a float if it matches
 *   ^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$ (so 08 is 8.0, 1e3 is
 *   1000.0); first char '.': a float (.5)
 *   anything else                                      → the string
 * A timestamp becomes a time.Time whose JSON is RFC 3339: a date alone
 * "2026-09-01" reads "2026-09-01T00:00:00Z" (other timestamp forms are kept as
 * written: RFC 3339 already). Integers Helm then holds as float64; here they
 * stay integers (no check reads one beyond 2^53).
 * Mapping keys go through the same resolution and yamlToJSON's key text
 * (sigs.k8s.io/yaml yaml.go: bool → "true"/"false", nil → "null", ints in
 * decimal): `on:` is the key "true".
 */
#include "yaml_json.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "yamldoc.h"

static const char *const v2_null[] = {"", "~", "null", "Null", "NULL"};
static const char *const v2_nonfinite[] = {".nan",  ".NaN",  ".NAN",  ".inf",  ".Inf",	".INF",
					   "+.inf", "+.Inf", "+.INF", "-.inf", "-.Inf", "-.INF"};

static bool in_list(const char *v, const char *const *l, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (streq(v, l[i]))
			return true;
	return false;
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* Go strconv.ParseInt(s, 0, 64) / ParseUint: sign, 0x 0o 0b prefixes, a
 * leading 0 as octal, no other characters. 1: an int64 in *ret; 2: a value
 * beyond int64 (a uint64 or bigger) in *ret_d; 0: not an integer. */
static int go_parse_int(const char *s, int64_t *ret, double *ret_d)
{
	bool neg = *s == '-';
	if (*s == '-' || *s == '+')
		s++;
	int base = 10;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		base = 16, s += 2;
	else if (s[0] == '0' && (s[1] == 'o' || s[1] == 'O'))
		base = 8, s += 2;
	else if (s[0] == '0' && (s[1] == 'b' || s[1] == 'B'))
		base = 2, s += 2;
	else if (s[0] == '0' && s[1])
		base = 8, s += 1;
	if (!*s)
		return 0;
	unsigned __int128 acc = 0;
	double dacc = 0;
	bool huge = false;
	for (const char *p = s; *p; p++) {
		int d = is_digit(*p)		 ? *p - '0'
			: *p >= 'a' && *p <= 'f' ? *p - 'a' + 10
			: *p >= 'A' && *p <= 'F' ? *p - 'A' + 10
						 : 99;
		if (d >= base)
			return 0;
		dacc = dacc * base + d;
		if (!huge) {
			acc = acc * (unsigned)base + (unsigned)d;
			huge = acc > UINT64_MAX;
		}
	}
	if (!huge && !neg && acc <= INT64_MAX) {
		*ret = (int64_t)acc;
		return 1;
	}
	if (!huge && neg && acc <= (unsigned __int128)INT64_MAX + 1) {
		*ret = acc == (unsigned __int128)INT64_MAX + 1 ? INT64_MIN : -(int64_t)acc;
		return 1;
	}
	/* A uint64 or a big.Int: JSON carries it, encoding/json reads a float64. */
	*ret_d = neg ? -dacc : dacc;
	return 2;
}

/* yamlStyleFloat: ^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$ */
static bool yaml_style_float(const char *s)
{
	const char *p = s;
	if (*p == '-' || *p == '+')
		p++;
	if (*p == '.') {
		p++;
		if (!is_digit(*p))
			return false;
		while (is_digit(*p))
			p++;
	} else {
		if (!is_digit(*p))
			return false;
		while (is_digit(*p))
			p++;
		if (*p == '.') {
			p++;
			while (is_digit(*p))
				p++;
		}
	}
	if (*p == 'e' || *p == 'E') {
		p++;
		if (*p == '-' || *p == '+')
			p++;
		if (!is_digit(*p))
			return false;
		while (is_digit(*p))
			p++;
	}
	return *p == '\0';
}

/* A date alone, "2006-1-2" (the one timestamp form whose JSON differs from the
 * text): written as RFC 3339 midnight UTC into buf. */
static bool date_only(const char *s, char *buf, size_t len)
{
	unsigned y, m, d;
	int n = 0;
	if (strlen(s) < 8 || !is_digit(s[0]) || !is_digit(s[1]) || !is_digit(s[2]) ||
	    !is_digit(s[3]) || s[4] != '-')
		return false;
	if (sscanf(s, "%4u-%2u-%2u%n", &y, &m, &d, &n) != 3 || s[n] != '\0' || m < 1 || m > 12 ||
	    d < 1 || d > 31)
		return false;
	static const unsigned mdays[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
	bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
	if (d > mdays[m - 1] || (m == 2 && d == 29 && !leap))
		return false;
	snprintf(buf, len, "%04u-%02u-%02uT00:00:00Z", y, m, d);
	return true;
}

int yaml_json_v2_scalar(const char *v, json_object **ret, char *err, size_t errlen)
{
	*ret = NULL;
	if (in_list(v, v2_null, ELEMENTSOF(v2_null)))
		return 0;
	bool b;
	if (yamldoc_bool(v, &b) == 0) { /* the agent's yaml.v2 booleans: one list */
		*ret = json_object_new_boolean(b);
		return 0;
	}
	if (in_list(v, v2_nonfinite, ELEMENTSOF(v2_nonfinite))) {
		snprintf(err, errlen,
			 "%s is a float JSON cannot hold: helm fails to convert these values", v);
		return -EINVAL;
	}
	if (v[0] == '.') {
		if (yaml_style_float(v))
			*ret = json_object_new_double(strtod(v, NULL));
		else
			*ret = json_object_new_string(v);
		return 0;
	}
	if (!is_digit(v[0]) && v[0] != '-' && v[0] != '+') {
		*ret = json_object_new_string(v);
		return 0;
	}
	char date[32];
	if (date_only(v, date, sizeof(date))) {
		*ret = json_object_new_string(date);
		return 0;
	}
	_cleanup_free_ char *plain = xmalloc(strlen(v) + 1);
	char *o = plain;
	for (const char *p = v; *p; p++)
		if (*p != '_')
			*o++ = *p;
	*o = '\0';
	int64_t i;
	double d;
	int r = go_parse_int(plain, &i, &d);
	if (r == 1)
		*ret = json_object_new_int64(i);
	else if (r == 2)
		*ret = json_object_new_double(d);
	else if (yaml_style_float(plain))
		*ret = json_object_new_double(strtod(plain, NULL));
	else
		*ret = json_object_new_string(v);
	return 0;
}

char *yaml_json_v2_key(const char *v)
{
	json_object *o = NULL;
	char err[128];
	if (yaml_json_v2_scalar(v, &o, err, sizeof(err)) < 0)
		return xstrdup(v);
	char *k;
	if (!o)
		k = xstrdup("null");
	else if (json_object_is_type(o, json_type_boolean))
		k = xstrdup(json_object_get_boolean(o) ? "true" : "false");
	else if (json_object_is_type(o, json_type_int))
		k = xasprintf("%" PRId64, json_object_get_int64(o));
	else
		k = xstrdup(v); /* floats and strings: as written */
	json_object_put(o);
	return k;
}
