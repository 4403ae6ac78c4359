/* A canary's result in a ConfigMap: written by `canary --result-configmap`,
 * read by `report`/`serve --canary-result configmap:NS/NAME` (canary_result_cm.h). */
#include "canary_result_cm.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

#include "kube_client.h"

/* One request of a write is at most this long, and never past until_ns. */
#define WRITE_REQUEST_MS 5000

bool canary_result_cm_valid_name(const char *name)
{
	size_t n = strlen(name);
	if (n < 1 || n > 253 || strspn(name, "abcdefghijklmnopqrstuvwxyz0123456789-.") != n)
		return false;
	return name[0] != '-' && name[0] != '.' && name[n - 1] != '-' && name[n - 1] != '.';
}

static bool valid_ns(const char *ns)
{
	size_t n = strlen(ns);
	return n >= 1 && n <= 63 && strspn(ns, "abcdefghijklmnopqrstuvwxyz0123456789-") == n &&
	       ns[0] != '-' && ns[n - 1] != '-';
}

bool canary_result_cm_ref(const char *arg, char ns[64], char name[254], char *err, size_t errlen)
{
	*err = '\0';
	if (!startswith(arg, CANARY_RESULT_CM_SCHEME))
		return false;
	const char *ref = arg + strlen(CANARY_RESULT_CM_SCHEME), *slash = strchr(ref, '/');
	size_t nl = slash ? (size_t)(slash - ref) : 0;
	if (!slash || nl < 1 || nl > 63) {
		snprintf(err, errlen, "%.300s: expected configmap:NAMESPACE/NAME", arg);
		return false;
	}
	memcpy(ns, ref, nl);
	ns[nl] = '\0';
	if (!valid_ns(ns)) {
		snprintf(err, errlen, "%.300s: \"%s\" is not a namespace name", arg, ns);
		return false;
	}
	if (!canary_result_cm_valid_name(slash + 1)) {
		snprintf(err, errlen, "%.300s: \"%.260s\" is not a ConfigMap name", arg, slash + 1);
		return false;
	}
	snprintf(name, 254, "%s", slash + 1);
	return true;
}

static char *cm_path(const char *ns, const char *name)
{
	return name ? xasprintf("/api/v1/namespaces/%s/configmaps/%s", ns, name)
		    : xasprintf("/api/v1/namespaces/%s/configmaps", ns);
}

static const char *obj_str(json_object *o, const char *a, const char *b)
{
	json_object *v = NULL;
	if (!json_object_object_get_ex(o, a, &v))
		return NULL;
	if (b && !json_object_object_get_ex(v, b, &v))
		return NULL;
	return v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
}

int canary_result_cm_load(struct kube_client *kc, const char *ns, const char *name,
			  struct canary_result *ret, char *err, size_t errlen)
{
	*ret = (struct canary_result){0};
	_cleanup_free_ char *path = cm_path(ns, name);
	_cleanup_free_ char *source = xasprintf(CANARY_RESULT_CM_SCHEME "%s/%s", ns, name);
	json_object *cm = NULL;
	char why[512];
	int r = kube_client_json(kc, "GET", path, NULL, NULL, &cm, why, sizeof(why));
	if (r == -ENOENT) {
		snprintf(err, errlen,
			 "%s: no such ConfigMap (has `canary --result-configmap %s` run in "
			 "namespace %s yet?)",
			 source, name, ns);
		return r;
	}
	if (r < 0) {
		snprintf(err, errlen, "%s: %s", source, why);
		return r;
	}
	json_object *data = NULL, *v = NULL;
	if (!cm || !json_object_object_get_ex(cm, "data", &data) ||
	    !json_object_object_get_ex(data, CANARY_RESULT_CM_KEY, &v) ||
	    !json_object_is_type(v, json_type_string)) {
		json_object_put(cm);
		snprintf(err, errlen, "%s: no data key " CANARY_RESULT_CM_KEY, source);
		return -EINVAL;
	}
	const char *text = json_object_get_string(v);
	size_t len = (size_t)json_object_get_string_len(v);
	r = canary_result_parse(text, len, source, ret, why, sizeof(why));
	json_object_put(cm);
	if (r < 0)
		snprintf(err, errlen, "%s: %s", source, why);
	return r;
}

/* Bound the next request by until_ns; false when there is no time left. */
static bool limit(struct kube_client *kc, int64_t until_ns)
{
	int64_t left_ms = (until_ns - util_now_mono_ns()) / 1000000;
	if (left_ms < 200)
		return false;
	long ms = left_ms < WRITE_REQUEST_MS ? (long)left_ms : WRITE_REQUEST_MS;
	kube_client_set_timeouts(kc, ms < 3000 ? ms : 3000, ms);
	return true;
}

static json_object *cm_body(const char *ns, const char *name, const char *rv, const char *text,
			    size_t len)
{
	json_object *meta, *o = kube_object_new("v1", "ConfigMap", ns, name, &meta);
	json_object *labels = json_object_new_object(), *data = json_object_new_object();
	if (rv)
		json_object_object_add(meta, "resourceVersion", json_object_new_string(rv));
	json_object_object_add(labels, CANARY_RESULT_CM_LABEL_COMPONENT,
			       json_object_new_string(CANARY_RESULT_CM_COMPONENT));
	json_object_object_add(labels, CANARY_RESULT_CM_LABEL_MANAGED_BY,
			       json_object_new_string(CANARY_RESULT_CM_MANAGED_BY));
	json_object_object_add(meta, "labels", labels);
	json_object_object_add(data, CANARY_RESULT_CM_KEY,
			       json_object_new_string_len(text, (int)len));
	json_object_object_add(o, "data", data);
	return o;
}

int canary_result_cm_write(struct kube_client *kc, int64_t until_ns, const char *ns,
			   const char *name, const char *text, size_t len, int *attempts, char *err,
			   size_t errlen)
{
	if (attempts)
		*attempts = 0;
	if (len + strlen(CANARY_RESULT_CM_KEY) > CANARY_RESULT_CM_MAX_BYTES) {
		snprintf(
		    err, errlen,
		    "configmap %s/%s: the result is %zu bytes, more than a ConfigMap holds "
		    "(1 MiB): not written (run fewer --steps, or save --format json to a file)",
		    ns, name, len);
		return -EFBIG;
	}
	_cleanup_free_ char *one = cm_path(ns, name), *all = cm_path(ns, NULL);
	char why[512] = "";
	int r = -ETIMEDOUT;
	int i;
	for (i = 0; i < CANARY_RESULT_CM_ATTEMPTS; i++) {
		json_object *cur = NULL;
		if (!limit(kc, until_ns)) {
			snprintf(why, sizeof(why), "no time left (--timeout)");
			r = -ETIMEDOUT;
			break;
		}
		r = kube_client_json(kc, "GET", one, NULL, NULL, &cur, why, sizeof(why));
		if (r < 0 && r != -ENOENT)
			break;
		const char *rv = NULL;
		if (r == 0) {
			/* never overwrite a ConfigMap the canary did not make */
			json_object *labels = NULL, *meta = NULL;
			if (cur && json_object_object_get_ex(cur, "metadata", &meta))
				json_object_object_get_ex(meta, "labels", &labels);
			const char *mb =
			    labels ? obj_str(labels, CANARY_RESULT_CM_LABEL_MANAGED_BY, NULL)
				   : NULL;
			if (!mb || !streq(mb, CANARY_RESULT_CM_MANAGED_BY)) {
				json_object_put(cur);
				snprintf(err, errlen,
					 "configmap %s/%s exists and is not a canary result (no "
					 "label " CANARY_RESULT_CM_LABEL_MANAGED_BY
					 "=" CANARY_RESULT_CM_MANAGED_BY
					 "): not overwritten; give --result-configmap another name",
					 ns, name);
				return -EPERM;
			}
			rv = obj_str(cur, "metadata", "resourceVersion");
		}
		json_object *body = cm_body(ns, name, rv, text, len);
		if (attempts)
			(*attempts)++;
		if (!limit(kc, until_ns)) {
			json_object_put(body);
			json_object_put(cur);
			snprintf(why, sizeof(why), "no time left (--timeout)");
			r = -ETIMEDOUT;
			break;
		}
		r = rv ? kube_client_json(kc, "PUT", one, body, NULL, NULL, why, sizeof(why))
		       : kube_client_json(kc, "POST", all, body, NULL, NULL, why, sizeof(why));
		json_object_put(body);
		json_object_put(cur);
		/* 409: AlreadyExists (made meanwhile) or Conflict (changed meanwhile);
		 * a 404 of the PUT: deleted meanwhile. A new GET mends these. */
		if (r != -EEXIST && !(rv && r == -ENOENT))
			break;
	}
	if (r == 0)
		return 0;
	if (i == CANARY_RESULT_CM_ATTEMPTS)
		snprintf(err, errlen, "configmap %s/%s: still in conflict after %d attempts: %s",
			 ns, name, CANARY_RESULT_CM_ATTEMPTS, why);
	else
		snprintf(err, errlen, "configmap %s/%s: %s", ns, name, why);
	return r;
}
