/*
 * The cluster's identity for the change-board header (docs/change-board.md):
 * the UID of Namespace kube-system. Kubernetes gives every cluster one, made
 * when the cluster is created and never changed, so it tells two clusters
 * with the same API address apart (a rebuilt cluster, a copied kubeconfig).
 * It is read, never made up: without it the header says unknown and why.
 *
 * Live: one GET /api/v1/namespaces/kube-system (RBAC: get on that one
 * namespace, deploy/base/rbac.yaml). Files: a Namespace kube-system object
 * among them (kubectl get namespace kube-system -o json), or collect.json's
 * "cluster_identity", which `collect` writes.
 */
#pragma once
#include <json-c/json.h>

#include "cluster_state.h"
#include "json_value.h"

struct kube_client;

/* GET the namespace through kc: sets cs->cluster_uid, or cs->cluster_uid_error
 * (forbidden, not found, a transport error). Never fails the read. */
void cluster_identity_fetch(struct cluster_state *cs, struct kube_client *kc);
/* o is an object of a file: when it is Namespace kube-system (core v1) with a
 * metadata.uid, take that UID. Returns whether o was a Namespace at all. */
bool cluster_identity_from_object(struct cluster_state *cs, const struct jv *o);
/* collect.json's "cluster_identity": {"kube_system_uid"} or {"error"}. */
json_object *cluster_identity_collect_json(const struct cluster_state *cs);
/* Read it back (a UID found in the files wins). */
void cluster_identity_from_collect(struct cluster_state *cs, const struct jv *ci, const char *name);
/* The UID as the header may show it: printable ASCII, at most 64 bytes. */
bool cluster_identity_valid_uid(const char *uid);
