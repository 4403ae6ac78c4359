/*
 * Where the cluster state comes from: `kubectl get -o json` files, or the live
 * API (kubeconfig or in-cluster service account), and `collect`, which writes
 * the live state as files that the files backend reads back identically.
 */
#pragma once
#include "cluster_state.h"

#define SOURCE_ERR_LEN 512

/* Load a file or a directory of files (SPEC §2 --cluster-state). May be called
 * once per PATH; objects accumulate. A directory's collect.json, when present,
 * gives each resource's status (not installed / forbidden / failed).
 * Returns 0, or -errno/-EINVAL with a one-line reason naming the file in err. */
int source_files_load(struct cluster_state *cs, const char *path, char *err, size_t errlen);

struct kube_client;

/* Returns 0, or a negative errno with a one-line reason in err. */
int kube_client_new_kubeconfig(const char *path, struct kube_client **ret, char *err,
			       size_t errlen);
int kube_client_new_in_cluster(struct kube_client **ret, char *err, size_t errlen);
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
