/*
 * Kubernetes and Longhorn objects for tests, as the JSON kubectl would show:
 * the envelope (apiVersion, kind, metadata.name/namespace) is written once
 * here, a test gives only what matters to it. Objects a test means to be
 * malformed (a name that is a number, no metadata) stay literal in the test.
 * Include after <cmocka.h>.
 */
#pragma once
#include <stdio.h>

#define K8S_LONGHORN "longhorn.io/v1beta2"
#define K8S_SNAPSHOT "snapshot.storage.k8s.io/v1"
#define K8S_STORAGE  "storage.k8s.io/v1"
#define LONGHORN_NS  "longhorn-system"
#define LONGHORN_CSI "driver.longhorn.io"

/*
 * {"apiVersion":api,"kind":kind,"metadata":{"name":name,"namespace":ns,meta},body}:
 * ns may be NULL (cluster-scoped); meta and body are JSON members without the
 * leading comma, or NULL. The result lives in a static buffer until the next call.
 */
static inline const char *k8s_obj(const char *api, const char *kind, const char *ns,
				  const char *name, const char *meta, const char *body)
{
	static char buf[8192];
	int n = snprintf(
	    buf, sizeof(buf),
	    "{\"apiVersion\":\"%s\",\"kind\":\"%s\",\"metadata\":{\"name\":\"%s\"%s%s%s%s%s}"
	    "%s%s}",
	    api, kind, name, ns ? ",\"namespace\":\"" : "", ns ? ns : "", ns ? "\"" : "",
	    meta ? "," : "", meta ? meta : "", body ? "," : "", body ? body : "");
	assert_true(n > 0 && (size_t)n < sizeof(buf));
	return buf;
}

/* A Longhorn object (namespace longhorn-system). */
static inline const char *lh_obj(const char *kind, const char *name, const char *meta,
				 const char *body)
{
	return k8s_obj(K8S_LONGHORN, kind, LONGHORN_NS, name, meta, body);
}

/* A Longhorn Setting; value is JSON ("\"true\"", 200). */
static inline const char *lh_setting(const char *name, const char *value)
{
	static char body[1024];
	snprintf(body, sizeof(body), "\"value\":%s", value);
	return lh_obj("Setting", name, NULL, body);
}

/* A VolumeSnapshot in namespace default, bound to content (NULL: unbound), with
 * readyToUse as given (JSON). */
static inline const char *k8s_volume_snapshot(const char *name, const char *content,
					      const char *ready)
{
	static char body[1024];
	snprintf(body, sizeof(body), "\"status\":{%s%s%s\"readyToUse\":%s}",
		 content ? "\"boundVolumeSnapshotContentName\":\"" : "", content ? content : "",
		 content ? "\"," : "", ready);
	return k8s_obj(K8S_SNAPSHOT, "VolumeSnapshot", "default", name, NULL, body);
}

/* A VolumeSnapshotContent of driver; status is its JSON status object. */
static inline const char *k8s_snapshot_content(const char *name, const char *driver,
					       const char *status)
{
	static char body[1024];
	snprintf(body, sizeof(body), "\"spec\":{\"driver\":\"%s\"},\"status\":%s", driver, status);
	return k8s_obj(K8S_SNAPSHOT, "VolumeSnapshotContent", NULL, name, NULL, body);
}

/* A StorageClass; annotations is a JSON object or NULL. */
static inline const char *k8s_storage_class(const char *name, const char *annotations,
					    const char *provisioner)
{
	static char meta[1024], body[512];
	snprintf(meta, sizeof(meta), "\"annotations\":%s", annotations ? annotations : "");
	snprintf(body, sizeof(body), "\"provisioner\":\"%s\"", provisioner);
	return k8s_obj(K8S_STORAGE, "StorageClass", NULL, name, annotations ? meta : NULL, body);
}

/* A PersistentVolumeClaim; spec (and status, may be NULL) are JSON objects. */
static inline const char *k8s_pvc(const char *ns, const char *name, const char *spec,
				  const char *status)
{
	static char body[2048];
	snprintf(body, sizeof(body), "\"spec\":%s%s%s", spec, status ? ",\"status\":" : "",
		 status ? status : "");
	return k8s_obj("v1", "PersistentVolumeClaim", ns, name, NULL, body);
}
