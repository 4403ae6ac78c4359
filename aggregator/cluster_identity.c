/* The cluster's identity: Namespace kube-system's UID (docs/change-board.md). */
#include "cluster_identity.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_query.h"
#include "kube_client.h"
#include "source.h"

#define KS_PATH "/api/v1/namespaces/kube-system"

bool cluster_identity_valid_uid(const char *uid)
{
	if (!uid || !*uid || strlen(uid) > 64)
		return false;
	for (const char *p = uid; *p; p++)
		if (*p <= ' ' || *p > '~')
			return false;
	return true;
}

static void set_uid(struct cluster_state *cs, const char *uid)
{
	free(cs->cluster_uid);
	free(cs->cluster_uid_error);
	cs->cluster_uid = xstrdup(uid);
	cs->cluster_uid_error = NULL;
}

static void set_error(struct cluster_state *cs, const char *fmt, ...) _printf_(2, 3);
static void set_error(struct cluster_state *cs, const char *fmt, ...)
{
	if (cs->cluster_uid)
		return;
	va_list ap;
	va_start(ap, fmt);
	char *s = NULL;
	if (vasprintf(&s, fmt, ap) < 0)
		abort();
	va_end(ap);
	free(cs->cluster_uid_error);
	cs->cluster_uid_error = s;
}

void cluster_identity_fetch(struct cluster_state *cs, struct kube_client *kc)
{
	struct kube_response resp = {0};
	char why[SOURCE_ERR_LEN];
	if (kube_client_call(kc, "GET", KS_PATH, NULL, NULL, 0, 1 << 20, &resp, why, sizeof(why)) <
	    0) {
		set_error(cs, "GET %s failed: %s", KS_PATH, why);
		return;
	}
	_cleanup_free_ char *msg = kube_client_status_message(resp.body, resp.len);
	if (resp.status == 401 || resp.status == 403)
		set_error(cs,
			  "forbidden: get namespaces/kube-system answered %ld (grant get on "
			  "namespaces, resourceNames kube-system)%s%s",
			  resp.status, *msg ? ": " : "", msg);
	else if (resp.status == 404)
		set_error(cs, "the API server has no Namespace kube-system (404)");
	else if (resp.status != 200)
		set_error(cs, "get namespaces/kube-system answered %ld%s%s", resp.status,
			  *msg ? ": " : "", msg);
	else {
		json_object *o = json_tokener_parse(resp.body), *m, *uid;
		if (json_object_object_get_ex(o, "metadata", &m) &&
		    json_object_object_get_ex(m, "uid", &uid) &&
		    json_object_is_type(uid, json_type_string) &&
		    cluster_identity_valid_uid(json_object_get_string(uid)))
			set_uid(cs, json_object_get_string(uid));
		else
			set_error(cs, "Namespace kube-system as the API server gave it has no "
				      "usable metadata.uid");
		json_object_put(o);
	}
	kube_response_clear(&resp);
}

bool cluster_identity_from_object(struct cluster_state *cs, const struct jv *o)
{
	if (!streq(JQS(o, "kind"), "Namespace") || !streq(JQS(o, "apiVersion"), "v1"))
		return false;
	if (!streq(jq_name(o), "kube-system"))
		return true;
	const char *uid = JQS(o, "metadata", "uid");
	if (cluster_identity_valid_uid(uid))
		set_uid(cs, uid);
	else
		set_error(cs, "Namespace kube-system in the files has no usable metadata.uid");
	return true;
}

json_object *cluster_identity_collect_json(const struct cluster_state *cs)
{
	json_object *o = json_object_new_object();
	if (cs->cluster_uid)
		json_object_object_add(o, "kube_system_uid",
				       json_object_new_string(cs->cluster_uid));
	else
		json_object_object_add(o, "error",
				       json_object_new_string(cs->cluster_uid_error
								  ? cs->cluster_uid_error
								  : "not read"));
	return o;
}

void cluster_identity_from_collect(struct cluster_state *cs, const struct jv *ci, const char *name)
{
	if (!ci || cs->cluster_uid)
		return;
	const char *uid = JQS(ci, "kube_system_uid"), *error = JQS(ci, "error");
	if (cluster_identity_valid_uid(uid))
		set_uid(cs, uid);
	else if (error)
		set_error(cs, "%s says: %.300s", name, error);
}
