#include "kubevirt_util.h"

#include <stdio.h>
#include <string.h>

#include "json_query.h"

void kubevirt_util_age(int64_t ns, char *buf, size_t len)
{
	int64_t s = ns > 0 ? ns / NSEC_PER_SEC : 0;
	if (s < 60)
		snprintf(buf, len, "%llds", (long long)s);
	else if (s < 3600)
		snprintf(buf, len, "%lldm", (long long)(s / 60));
	else if (s < 86400)
		snprintf(buf, len, "%lldh%02lldm", (long long)(s / 3600),
			 (long long)(s % 3600 / 60));
	else
		snprintf(buf, len, "%lldd%lldh", (long long)(s / 86400),
			 (long long)(s % 86400 / 3600));
}

const char *kubevirt_util_label(const struct jv *o, const char *key)
{
	return JQS(o, "metadata", "labels", key);
}

bool kubevirt_util_deleting(const struct jv *o)
{
	const struct jv *d = JQ(o, "metadata", "deletionTimestamp");
	return d && !jv_is(d, JV_NULL);
}

const struct jv *kubevirt_util_next_labelled(const struct jv *items, size_t *pos, const char *ns,
					     const char *key, const char *value)
{
	for (; *pos < jq_len(items); (*pos)++) {
		const struct jv *o = jq_at(items, *pos);
		if (ns && !streq(jq_namespace(o), ns))
			continue;
		if (streq(kubevirt_util_label(o, key), value)) {
			(*pos)++;
			return o;
		}
	}
	return NULL;
}

char *kubevirt_util_trunc(const char *s, size_t max)
{
	if (!s)
		return xstrdup("");
	size_t n = strlen(s);
	if (n <= max)
		return xstrdup(s);
	while (max > 0 && ((unsigned char)s[max] & 0xc0) == 0x80)
		max--;
	char *r = xmalloc(max + sizeof("…"));
	memcpy(r, s, max);
	memcpy(r + max, "…", sizeof("…"));
	return r;
}
