/* A canary's result read back and aged: proof for the gates (canary_result.h). */
#include "canary_result.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "catalog.h"
#include "check_select.h"
#include "kubevirt_util.h"

void canary_result_age(int64_t ns, char *buf, size_t len)
{
	kubevirt_util_age(ns, buf, len); /* "45s", "2h05m", "8d0h": as the checks say ages */
}

int canary_result_parse_age(const char *s, int64_t *ret_ns)
{
	if (!s || *s < '0' || *s > '9')
		return -EINVAL;
	char *end = NULL;
	errno = 0;
	long long n = strtoll(s, &end, 10);
	if (errno || end == s || n < 1)
		return -EINVAL;
	long long mult;
	if (streq(end, "") || streq(end, "s"))
		mult = 1;
	else if (streq(end, "m"))
		mult = 60;
	else if (streq(end, "h"))
		mult = 3600;
	else if (streq(end, "d"))
		mult = 86400;
	else
		return -EINVAL;
	if (n > 365LL * 86400 / mult)
		return -EINVAL;
	*ret_ns = n * mult * NSEC_PER_SEC;
	return 0;
}

/* The evidence of a finding as written (render_kv_json), back into values. */
static void value_add(struct kv_list *kv, struct value_list *vl, const char *key, json_object *o);

static void map_from(struct kv_list *kv, json_object *o)
{
	json_object_object_foreach(o, k, val) value_add(kv, NULL, k, val);
}

static void value_add(struct kv_list *kv, struct value_list *vl, const char *key, json_object *o)
{
	switch (json_object_get_type(o)) {
	case json_type_boolean:
		if (kv)
			kv_add_bool(kv, key, json_object_get_boolean(o));
		else
			vlist_add_bool(vl, json_object_get_boolean(o));
		break;
	case json_type_int:
		if (kv)
			kv_add_int(kv, key, json_object_get_int64(o));
		else
			vlist_add_int(vl, json_object_get_int64(o));
		break;
	case json_type_array: {
		struct value_list *l = kv ? kv_add_list(kv, key) : vlist_add_list(vl);
		for (size_t i = 0; i < json_object_array_length(o); i++)
			value_add(NULL, l, NULL, json_object_array_get_idx(o, i));
		break;
	}
	case json_type_object:
		map_from(kv ? kv_add_map(kv, key) : vlist_add_map(vl), o);
		break;
	case json_type_null:
		if (kv)
			kv_add_str(kv, key, "");
		else
			vlist_add_str(vl, "");
		break;
	default: /* strings, and a double as its text */
		if (kv)
			kv_add_str(kv, key, json_object_get_string(o));
		else
			vlist_add_str(vl, json_object_get_string(o));
	}
}

static const char *str_member(json_object *o, const char *key)
{
	json_object *v;
	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

static int parse_finding(json_object *fo, size_t i, struct canary_result *r, char *err,
			 size_t errlen)
{
	if (!json_object_is_type(fo, json_type_object))
		return util_fail(err, errlen, "findings[%zu] is not an object", i);
	const char *check = str_member(fo, "check"), *status = str_member(fo, "status");
	const char *message = str_member(fo, "message");
	if (!check)
		return util_fail(err, errlen, "findings[%zu] has no \"check\"", i);
	const struct check_info *ci = catalog_find(check);
	if (!ci || ci->source != CHECK_CANARY)
		return util_fail(err, errlen, "findings[%zu]: \"%.64s\" is not a canary step", i,
				 check);
	int st = status ? status_from_name(status) : -EINVAL;
	if (st < 0)
		return util_fail(err, errlen, "findings[%zu] (%s): no valid \"status\"", i, check);
	if (!message)
		return util_fail(err, errlen, "findings[%zu] (%s) has no \"message\"", i, check);
	json_object *ev = NULL;
	if (json_object_object_get_ex(fo, "evidence", &ev) &&
	    !json_object_is_type(ev, json_type_object))
		return util_fail(err, errlen, "findings[%zu] (%s): \"evidence\" is not an object",
				 i, check);
	struct finding *f = finding_list_add(&r->findings, check);
	finding_set(f, (enum status)st, "%s", message);
	const char *rem = str_member(fo, "remediation");
	finding_remedy(f, "%s", rem ? rem : "");
	const char *object = str_member(fo, "object");
	if (object)
		finding_set_object(f, "%s", object);
	if (ev)
		map_from(&f->evidence, ev);
	return 0;
}

static bool valid_run(const char *s)
{
	size_t n = s ? strlen(s) : 0;
	return n >= 1 && n <= 64 && strspn(s, "0123456789abcdefghijklmnopqrstuvwxyz-") == n;
}

static int parse_tree(json_object *root, struct canary_result *r, char *err, size_t errlen)
{
	if (!json_object_is_type(root, json_type_object))
		return util_fail(err, errlen, "not a JSON object");
	const char *schema = str_member(root, "schema");
	if (!streq(schema, CANARY_SCHEMA))
		return util_fail(err, errlen,
				 "not a canary result (schema \"%.64s\", expected " CANARY_SCHEMA
				 ": the output of `canary --format json`)",
				 schema ? schema : "");
	const char *run = str_member(root, "run"), *ns = str_member(root, "namespace");
	if (!valid_run(run))
		return util_fail(err, errlen, "no valid \"run\" id");
	const char *started = str_member(root, "started_at");
	const char *finished = str_member(root, "finished_at");
	if (!finished)
		return util_fail(err, errlen,
				 "no \"finished_at\": the result cannot be aged (written by an "
				 "older canary?)");
	if (util_parse_rfc3339(finished, &r->finished_ns) < 0)
		return util_fail(err, errlen, "\"finished_at\" \"%.64s\" is not an RFC 3339 time",
				 finished);
	if (started && util_parse_rfc3339(started, &r->started_ns) < 0)
		return util_fail(err, errlen, "\"started_at\" \"%.64s\" is not an RFC 3339 time",
				 started);
	if (!started)
		r->started_ns = r->finished_ns;
	const char *status = str_member(root, "status");
	if (!status || status_from_name(status) < 0)
		return util_fail(err, errlen, "no valid \"status\"");
	json_object *fl;
	if (!json_object_object_get_ex(root, "findings", &fl) ||
	    !json_object_is_type(fl, json_type_array) || json_object_array_length(fl) == 0)
		return util_fail(err, errlen, "no \"findings\" (a non-empty array)");
	for (size_t i = 0; i < json_object_array_length(fl); i++) {
		int rr = parse_finding(json_object_array_get_idx(fl, i), i, r, err, errlen);
		if (rr < 0)
			return rr;
	}
	r->run = xstrdup(run);
	r->ns = xstrdup(ns ? ns : "");
	r->status = xstrdup(status);
	return 0;
}

int canary_result_parse(const char *text, size_t len, const char *source, struct canary_result *ret,
			char *err, size_t errlen)
{
	*ret = (struct canary_result){0};
	json_tokener *tok = json_tokener_new();
	if (!tok)
		abort();
	json_object *root = json_tokener_parse_ex(tok, text, (int)len);
	enum json_tokener_error je = json_tokener_get_error(tok);
	size_t used = (size_t)json_tokener_get_parse_end(tok);
	json_tokener_free(tok);
	int r;
	if (!root || je != json_tokener_success)
		r = util_fail(err, errlen, "not JSON: %s",
			      je == json_tokener_continue ? "it ends too early"
							  : json_tokener_error_desc(je));
	else if (strspn(text + used, " \t\r\n") != len - used)
		r = util_fail(err, errlen, "not JSON: more after the object");
	else
		r = parse_tree(root, ret, err, errlen);
	json_object_put(root);
	if (r < 0)
		canary_result_clear(ret);
	else
		ret->source = xstrdup(source);
	return r;
}

int canary_result_load(const char *path, struct canary_result *ret, struct stat *st, char *err,
		       size_t errlen)
{
	*ret = (struct canary_result){0};
	/* O_NONBLOCK: a FIFO must not hang the open; a regular file ignores it. */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		int e = errno;
		snprintf(err, errlen, "%s: %s", path, strerror(e));
		return -e;
	}
	struct stat sb;
	if (fstat(fd, &sb) < 0 || !S_ISREG(sb.st_mode)) {
		close(fd);
		snprintf(err, errlen, "%s: not a regular file", path);
		return -EINVAL;
	}
	if (st)
		*st = sb;
	char *buf = NULL;
	size_t len = 0;
	int r = util_read_fd(fd, CANARY_RESULT_MAX_BYTES, &buf, &len, NULL);
	close(fd);
	if (r < 0) {
		snprintf(err, errlen, "%s: %s", path, util_read_strerror(r));
		return r;
	}
	char why[400];
	r = canary_result_parse(buf, len, path, ret, why, sizeof(why));
	free(buf);
	if (r < 0)
		snprintf(err, errlen, "%s: %s", path, why);
	return r;
}

void canary_result_clear(struct canary_result *r)
{
	free(r->source);
	free(r->run);
	free(r->ns);
	free(r->status);
	finding_list_clear(&r->findings);
	*r = (struct canary_result){0};
}

void verdict_canary_clear(struct verdict_canary *vc)
{
	free(vc->source);
	free(vc->run);
	free(vc->ns);
	free(vc->status);
	free(vc->error);
	free(vc->run_error);
	*vc = (struct verdict_canary){0};
}

/* One step's finding as evidence in the verdict. */
static void add_one(const struct canary_result *r, const struct finding *src,
		    const struct verdict_canary *vc, struct finding_list *out)
{
	char age[32], max[32], ts[64];
	canary_result_age(vc->age_ns, age, sizeof(age));
	canary_result_age(vc->max_age_ns, max, sizeof(max));
	util_format_rfc3339(r->finished_ns, ts, sizeof(ts));
	struct finding *f = finding_list_add(out, src->check);
	const char *was = status_name(src->status);
	bool cleanup = streq(src->check, "canary.cleanup");
	if (src->status == STATUS_SKIP)
		finding_set(f, STATUS_SKIP, "canary run %s, %s ago: %s", r->run, age, src->message);
	else if ((vc->stale || vc->future) && cleanup && src->status == STATUS_PASS)
		/* an old clean cleanup says nothing either way */
		finding_set(f, STATUS_SKIP, "canary run %s is too old to count (%s%s): %s", r->run,
			    age, vc->future ? " in the future" : " ago", src->message);
	else if (vc->future)
		finding_set(f, STATUS_WARN,
			    "no proof: canary run %s ended %s in the future (the clocks "
			    "disagree); it was %s: %s",
			    r->run, age, was, src->message);
	else if (vc->stale)
		finding_set(f, STATUS_WARN,
			    "stale: canary run %s ended %s ago, past --canary-max-age %s, so it "
			    "proves nothing now; it was %s: %s",
			    r->run, age, max, was, src->message);
	else if (src->status == STATUS_PASS && !cleanup)
		finding_set(f, STATUS_PASS, "proved by canary run %s, %s ago: %s", r->run, age,
			    src->message);
	else if (src->status == STATUS_UNKNOWN)
		/* the step could not decide: no proof, but no doubt on the
		 * passive evidence either (docs/decisions.md) */
		finding_set(f, STATUS_WARN,
			    "not proved: canary run %s, %s ago, could not decide: %s", r->run, age,
			    src->message);
	else
		finding_set(f, src->status, "canary run %s, %s ago: %s", r->run, age, src->message);
	if ((vc->stale || vc->future) && f->status != STATUS_SKIP)
		finding_remedy(f, "run the canary again: `hvready-aggregator canary` "
				  "(docs/canary.md)");
	else
		finding_remedy(f, "%s", src->remediation ? src->remediation : "");
	if (src->object)
		finding_set_object(f, "%s", src->object);
	kv_add_str(&f->evidence, "canary_run", r->run);
	kv_add_str(&f->evidence, "canary_finished_at", ts);
	kv_add_int(&f->evidence, "canary_age_seconds",
		   vc->age_ns > 0 ? vc->age_ns / NSEC_PER_SEC : 0);
	kv_add_str(&f->evidence, "canary_status", was);
	kv_add_str(&f->evidence, "canary_result", r->source);
	for (size_t k = 0; k < src->evidence.n; k++) {
		struct value v;
		value_copy(&v, &src->evidence.items[k].val);
		kv_add_value(&f->evidence, src->evidence.items[k].key, &v);
	}
}

void canary_result_apply(const struct canary_result *r, int64_t now_ns, int64_t max_age_ns,
			 const struct strv *skip, const struct strv *only, struct finding_list *out,
			 struct verdict_canary *vc)
{
	verdict_canary_clear(vc);
	vc->present = true;
	vc->source = xstrdup(r->source ? r->source : "");
	vc->run = xstrdup(r->run);
	vc->ns = xstrdup(r->ns);
	vc->status = xstrdup(r->status);
	vc->started_ns = r->started_ns;
	vc->finished_ns = r->finished_ns;
	vc->max_age_ns = max_age_ns;
	int64_t age = util_sub_sat_i64(now_ns, r->finished_ns);
	vc->future = age < -CANARY_FUTURE_SLACK_NS;
	vc->age_ns = age < 0 ? (vc->future ? -age : 0) : age;
	vc->stale = !vc->future && age > max_age_ns;
	for (size_t i = 0; i < r->findings.n; i++) {
		const struct finding *src = &r->findings.items[i];
		const char *why = check_left_out(skip, only, src->check);
		if (why) {
			finding_set(finding_list_add(out, src->check), STATUS_SKIP, "%s", why);
			continue;
		}
		add_one(r, src, vc, out);
	}
}
