/*
 * Where the cluster state comes from: `kubectl get -o json` files, or the live
 * API (kubeconfig or in-cluster service account), and `collect`, which writes
 * the live state as files that the files backend reads back identically.
 */
#pragma once
#include "cluster_state.h"

#define SOURCE_ERR_LEN 512

/* Load a file or a directory of *.json files (--cluster-state, docs/collect.md; the
 * rules are in docs/collect.md). May be called once per PATH; objects
 * accumulate, duplicates count once. A directory's collect.json, when present,
 * gives the status of the resources without data (not installed / forbidden /
 * failed). Returns 0, or -errno/-EINVAL with a one-line reason naming the
 * file (and line, column, byte for malformed JSON) in err. */
int source_files_load(struct cluster_state *cs, const char *path, char *err, size_t errlen);

/* Bounds for input files: a 20,000-object cluster is ~100 MiB of JSON. */
#define SOURCE_FILE_MAX	      (512ul << 20)
#define SOURCE_COLLECT_MAX    (16ul << 20) /* collect.json */
#define SOURCE_JSON_MAX_DEPTH 256	   /* CRD schemas nest deeply */
#define SOURCE_COLLECT_SCHEMA "hvready.collect/v1"

/* What a load read, for messages (--cluster-state summary). */
struct source_files_stats {
	size_t files;	      /* JSON files read */
	size_t objects;	      /* objects of kinds hvready reads */
	size_t ignored;	      /* objects of other kinds */
	size_t duplicates;    /* the same object seen again (first one kept) */
	size_t skipped_files; /* directory entries that are not *.json */
};
int source_files_load_ex(struct cluster_state *cs, const char *path,
			 struct source_files_stats *stats, char *err, size_t errlen);
/* One file's content: JSON objects or Lists as kubectl prints them (several
 * may follow one another). name is for messages. stats may be NULL. */
int source_files_parse(struct cluster_state *cs, const uint8_t *buf, size_t len, const char *name,
		       struct source_files_stats *stats, char *err, size_t errlen);
/* collect.json's content: apply each resource's status to the resources of
 * cs that are not collected. name is for messages. */
int source_files_parse_collect(struct cluster_state *cs, const uint8_t *buf, size_t len,
			       const char *name, char *err, size_t errlen);
/* item with apiVersion and kind first (given ones kept), as kubectl prints
 * list items; the API leaves them out of its list items. New members (if
 * any) in ar; the values are item's. */
struct jv source_typed_item(struct jv_arena *ar, const struct jv *item, const char *api_version,
			    const char *kind);
/* item without what hvready never reads from an object of that kind:
 * metadata.managedFields, often half of an object and most of its memory.
 * KubeVirt keeps it: it dates the CR's last spec change (api.kubevirt.gate-stale). */
struct jv source_trim_item(struct jv_arena *ar, const struct jv *item, const char *kind);
/* collect.json's status words. */
const char *source_collect_status_name(enum resource_status s);

struct kube_client;

/* Returns 0, or a negative errno with a one-line reason in err. */
int kube_client_new_kubeconfig(const char *path, struct kube_client **ret, char *err,
			       size_t errlen);
int kube_client_new_in_cluster(struct kube_client **ret, char *err, size_t errlen);
/* In-cluster with the bearer token of token_file instead of the ServiceAccount
 * directory's (the API address and CA stay the pod's): a token mounted from a
 * Secret of another ServiceAccount (serve --canary-token-file). The file is
 * re-read when it changes, as the ServiceAccount's. NULL: as above. */
int kube_client_new_in_cluster_token(const char *token_file, struct kube_client **ret, char *err,
				     size_t errlen);
void kube_client_free(struct kube_client *kc);
/* The API server's base URL, for messages. */
const char *kube_client_server(const struct kube_client *kc);

/* List every resource of the table into cs (paged). Per-resource failures are
 * recorded in cs (forbidden, not installed, failed) and do not fail the call;
 * only a failure to reach the API at all returns an error. */
int source_api_load(struct cluster_state *cs, struct kube_client *kc, char *err, size_t errlen);

/* Write cs to dir: one PLURAL.GROUP.json List per resource (empty ones
 * included) and collect.json with each resource's status. */
int collect_write(const struct cluster_state *cs, const char *dir, char *err, size_t errlen);
