/*
 * The cluster state: every resource hvready reads, as the API (or a
 * `kubectl get -o json` dump) gave it, with how it was obtained.
 *
 * The resource table (cluster_state.c) is the one list of what hvready reads:
 * `collect`, the live client, the files loader, the RBAC in deploy/ and
 * docs/collect.md all follow it. A resource's status keeps "none exist"
 * (collected, empty) apart from "not installed" (its API is not served) and
 * "not collected" (no file, forbidden, failed): checks that need a resource
 * that was not collected are UNKNOWN, never PASS, never FAIL.
 */
#pragma once
#include <json-c/json.h>

#include "json_value.h"
#include "util.h"

enum resource_id {
	RES_NODES,
	RES_PODS,
	RES_SERVICES,
	RES_DEPLOYMENTS,
	RES_DAEMONSETS,
	RES_PVCS,
	RES_PVS,
	RES_STORAGECLASSES,
	RES_VWEBHOOKS,
	RES_MWEBHOOKS,
	RES_APISERVICES,
	RES_CRDS,
	RES_VS_CLASSES,
	RES_VS_SNAPSHOTS,
	RES_VS_CONTENTS,
	RES_KUBEVIRTS,
	RES_VMS,
	RES_VMIS,
	RES_VM_MIGRATIONS,
	RES_VM_SNAPSHOTS,
	RES_VM_RESTORES,
	RES_CDIS,
	RES_DATAVOLUMES,
	RES_STORAGEPROFILES,
	RES_LH_VOLUMES,
	RES_LH_REPLICAS,
	RES_LH_ENGINES,
	RES_LH_SNAPSHOTS,
	RES_LH_SHAREMANAGERS,
	RES_LH_SETTINGS,
	RES_LH_BACKUPTARGETS,
	RES_LH_NODES,
	RES_HV_SETTINGS,
	RES_HV_VMIMAGES,
	RES_HELMCHARTS,
	RES_HELMCHARTCONFIGS,
	_RES_MAX,
	RES_NONE = -1,
};

struct resource_def {
	enum resource_id id;
	const char *group;   /* "" for the core group */
	const char *version; /* the version hvready lists */
	const char *plural;
	const char *kind;
	bool namespaced;
	bool crd; /* may legitimately be absent (404: not installed) */
	/* An older version listed when `version` answers 404 and the CRD serves
	 * this one: only where every field hvready reads is the same in both. */
	const char *fallback_version;
};

extern const struct resource_def resource_defs[_RES_MAX];

enum resource_status {
	RES_NOT_COLLECTED, /* no file, or never read */
	RES_COLLECTED,	   /* items is an array (maybe empty) */
	RES_NOT_INSTALLED, /* the API answered 404: its CRD is absent */
	RES_FORBIDDEN,	   /* 401/403 */
	RES_FAILED,	   /* anything else: 5xx, timeout, bad JSON */
};

const char *resource_status_name(enum resource_status s);

struct cs_index;

struct resource_data {
	struct cs_index *index; /* lookup cache, built on first use (cs_lookup) */
	enum resource_status status;
	char *error;	/* why not collected, for messages */
	struct jv *vec; /* the objects (values in the state's arena) */
	size_t n, cap;
	struct jv items;     /* an array over vec, when COLLECTED */
	int64_t duration_ns; /* how long the list took (live) */
};

struct cluster_state {
	struct resource_data res[_RES_MAX];
	bool live;		/* read from the API now (vs files) */
	int64_t read_at_ns;	/* realtime when read */
	char *source;		/* "https://...", "files: DIR" — for the report */
	struct jv_arena *arena; /* every object's memory, immutable once added */
	/* The report's change-board header (docs/change-board.md): the API
	 * server's URL as configured (live; not redacted here; offline, the
	 * files' paths), and the cluster's identity, the UID of Namespace
	 * kube-system (NULL: unknown), or why it is unknown. */
	char *api_server;
	char *cluster_uid;
	char *cluster_uid_error;
};

void cluster_state_init(struct cluster_state *cs);
void cluster_state_clear(struct cluster_state *cs);

const struct resource_def *resource_find(const char *group, const char *kind);
const struct resource_def *resource_by_plural(const char *plural, const char *group);
/* "storageclasses.storage.k8s.io.json", "pods.json". Caller frees. */
char *resource_file_name(const struct resource_def *d);
/* "storageclasses.storage.k8s.io" or "pods" — for messages and RBAC hints. */
char *resource_display_name(const struct resource_def *d);

/* The items of a resource (an array), or NULL when it is not COLLECTED. */
const struct jv *cs_items(const struct cluster_state *cs, enum resource_id id);
size_t cs_count(const struct cluster_state *cs, enum resource_id id);
/* The object with that namespace (NULL for cluster-scoped) and name, or NULL. */
const struct jv *cs_find(const struct cluster_state *cs, enum resource_id id, const char *ns,
			 const char *name);
/* Objects of a resource grouped by a key (the name, a label, …): the index is
 * built on first use for that key function and dropped when the resource
 * changes, so lookups in checks are O(log n), not a scan per object (a
 * 500-node cluster has tens of thousands). Returns how many objects have that
 * key; *ret points at the first of them, the rest follow. Not for concurrent
 * use from several threads. */
typedef const char *(*cs_key_fn)(const struct jv *o);
struct cs_entry {
	const char *key;
	const struct jv *obj;
	size_t pos; /* position in the items: equal keys keep the items' order */
};
size_t cs_lookup(const struct cluster_state *cs, enum resource_id id, cs_key_fn key,
		 const char *value, const struct cs_entry **ret);
/* Mark a resource collected and add a copy of one object (the caller keeps
 * its reference). */
void cs_add_object(struct cluster_state *cs, enum resource_id id, json_object *obj);
/* Mark a resource collected and add one object built in cs's arena (or in an
 * arena given to cs afterwards: jv_arena_take). */
void cs_add_jv(struct cluster_state *cs, enum resource_id id, struct jv obj);
/* Objects are immutable: an edit (tests, what-if) replaces object i with a
 * copy of obj, or removes it; the lookup index is dropped. */
void cs_remove(struct cluster_state *cs, enum resource_id id, size_t i);
void cs_replace_object(struct cluster_state *cs, enum resource_id id, size_t i, json_object *obj);
/* cs's arena, made on first use: loaders build objects in it. */
struct jv_arena *cs_arena(struct cluster_state *cs);
void cs_set_status(struct cluster_state *cs, enum resource_id id, enum resource_status st,
		   const char *error_fmt, ...) _printf_(4, 5);
