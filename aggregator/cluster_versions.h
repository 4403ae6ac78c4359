/*
 * The versions a cluster runs, read from its objects, and where each stands
 * against hvready's support matrix (docs/support-matrix.md):
 *   Harvester   settings.harvesterhci.io server-version
 *   KubeVirt    kubevirts.kubevirt.io status.observedKubeVirtVersion
 *   CDI         cdis.cdi.kubevirt.io status.observedVersion
 *   Longhorn    settings.longhorn.io current-longhorn-version, else the
 *               longhorn-manager DaemonSet's image tag
 *   Kubernetes  each Node's status.nodeInfo.kubeletVersion ("+rke2r1",
 *               "+k3s1" name the distribution), containerRuntimeVersion,
 *               osImage
 * A version outside the matrix is named in the report's header, and the
 * checks whose rules depend on it add versions_note() to their evidence:
 * the rules of the nearest version in the matrix apply, and the report says
 * so instead of guessing silently.
 */
#pragma once
#include <stdbool.h>
#include <json-c/json.h>
#include "cluster_state.h"
#include "kv.h"

enum version_component {
	VC_HARVESTER,
	VC_KUBEVIRT,
	VC_CDI,
	VC_LONGHORN,
	VC_KUBERNETES,
	VC_CONTAINERD,
	_VC_MAX,
};

struct component_version {
	char *version; /* as the object says it; several nodes: ", "-joined; NULL: not found */
	char *from;    /* which object and field */
	char *note;    /* NULL inside the matrix (or no range); else "… newer than …" */
};

struct node_version {
	char *name, *kubelet, *distribution, *runtime, *os_image;
};

struct cluster_versions {
	struct component_version c[_VC_MAX];
	struct node_version *nodes;
	size_t n_nodes;
};

/* "Harvester", "KubeVirt", … and the JSON key ("harvester", "kubevirt", …). */
const char *version_component_name(enum version_component c);
const char *version_component_key(enum version_component c);
/* Whether c has a support-matrix range ("in_matrix" is null without one). */
bool version_component_has_range(enum version_component c);

void cluster_versions_detect(const struct cluster_state *cs, struct cluster_versions *ret);
void cluster_versions_clear(struct cluster_versions *v);

/* The out-of-matrix sentence for one version string of component c, or NULL
 * when it is inside the matrix, unparsable, or c has no range. Caller frees. */
char *versions_matrix_note(enum version_component c, const char *version);

/* For a check whose rule depends on c's version: when the cluster's version
 * is outside the matrix, add evidence "version_note" saying so and which
 * version's rules were applied. Changes no status. */
void versions_note(struct kv_list *evidence, const struct cluster_state *cs,
		   enum version_component c);

/* The "versions" object of the JSON report (docs/outputs.md), written by a
 * JSON writer (json_write.h); the tests' json-c oracle for it is
 * cluster_versions_json (tests/unit/verdict_oracle.c). */
struct jw;
void cluster_versions_write(struct jw *w, const struct cluster_versions *v);
/* "Harvester v1.4.3, KubeVirt v1.3.1, …" (caller frees); NULL when nothing
 * was found. */
char *cluster_versions_line(const struct cluster_versions *v);
