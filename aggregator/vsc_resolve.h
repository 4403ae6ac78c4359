/*
 * Which VolumeSnapshotClass the VM snapshots of each Longhorn StorageClass use,
 * resolved as KubeVirt and CDI do. The api.vsc.* checks (check_vsc.c) judge
 * what this finds.
 *
 * Which class a VM snapshot uses, per StorageClass of the disk's PVC (read in
 * kubevirt/kubevirt pkg/storage/snapshot/snapshot.go getVolumeSnapshotClassName, and
 * kubevirt/containerized-data-importer pkg/controller/storageprofile-controller.go and
 * pkg/controller/common/util.go GetVolumeSnapshotClass):
 *   1. KubeVirt takes the CDI StorageProfile's status.snapshotClass when it is set, and
 *      only checks that the class exists — not its driver. A class that does not exist
 *      gives "no class": the disk is left out of the VM snapshot.
 *   2. CDI writes status.snapshotClass from spec.snapshotClass when that names a class of
 *      the StorageClass's provisioner (a missing one fails its reconcile; another
 *      driver's is ignored), else from the first class of the driver annotated
 *      snapshot.storage.kubernetes.io/is-default-class="true", else the first by name —
 *      which is how `longhorn` wins over `longhorn-snapshot` by name. CDI never clears
 *      status.snapshotClass, so it can outlive its class.
 *   3. Without a status.snapshotClass (no CDI, or no profile yet) KubeVirt uses the
 *      only class of the provisioner, else one carrying the default annotation (its key,
 *      any value), else it errors "N matching VolumeSnapshotClasses" and the VM
 *      snapshot fails.
 * When StorageProfiles were not read (forbidden, failed, no file) hvready emulates
 * rule 2 and says so in the evidence.
 */
#pragma once
#include <stdbool.h>
#include <stddef.h>

#include "cluster_state.h"

#define ANN_VSC_DEFAULT "snapshot.storage.kubernetes.io/is-default-class"
#define SP_RESOURCE	"storageprofiles.cdi.kubevirt.io"

struct vsc {
	const struct jv *obj;
	const char *name;
	const char *type; /* effective: "bak", "snap", "bi", or NULL when Longhorn rejects it */
	const char *raw;  /* parameters.type as written, NULL when absent */
	bool is_default;  /* annotated is-default-class: "true" */
};

enum pick_from {
	FROM_PROFILE,  /* StorageProfile status.snapshotClass: what KubeVirt reads */
	FROM_KUBEVIRT, /* no value in a StorageProfile: KubeVirt's own rule */
	FROM_EMULATED, /* StorageProfiles not read: CDI's rule, emulated */
};

enum pick_result {
	PICK_OK,	/* a Longhorn class */
	PICK_NONE,	/* no Longhorn class at all (api.vsc.longhorn) */
	PICK_MISSING,	/* the profile names a class that does not exist */
	PICK_FOREIGN,	/* the profile names a class of another driver */
	PICK_UNDECIDED, /* KubeVirt's rule: several classes, none annotated */
};

struct sc_pick {
	const char *sc;		  /* the StorageClass */
	const struct jv *profile; /* its StorageProfile, when collected and present */
	const char *name;	  /* the class named or chosen; NULL for NONE, UNDECIDED */
	const struct vsc *vsc;	  /* that class, when PICK_OK */
	const char *driver;	  /* the driver of a FOREIGN class */
	const char *spec;	  /* the profile's spec.snapshotClass, NULL when unset */
	const char *why;
	enum pick_from from;
	enum pick_result result;
	bool spec_ignored; /* spec.snapshotClass names another class than status */
};

/* The Longhorn classes and what each Longhorn StorageClass's VM disks get. */
struct vsc_view {
	struct vsc *v;
	size_t n;
	struct sc_pick *p;
	size_t np;
	size_t n_broken; /* MISSING, FOREIGN, UNDECIDED */
	size_t n_ok;
	bool profiles_collected;
};

/* Longhorn CSI CreateSnapshot: "" and "bak" take a backup, "bs" is the old name of
 * "bak", "snap" an in-cluster snapshot, "bi" a backing image; anything else is
 * rejected (NULL). *ret_raw: parameters.type as written, NULL when absent. */
const char *vsc_type(const struct jv *c, const char **ret_raw);
/* CDI GetVolumeSnapshotClass without a named class: the first (by name) annotated
 * is-default-class="true", else the first by name; NULL when n is 0. */
const struct vsc *vsc_cdi_pick(const struct vsc *v, size_t n, const char **why);
/* "bak", "snap", "bi", or "invalid" when Longhorn rejects the class's type. */
const char *vsc_type_desc(const struct vsc *v);
/* The classes of driver.longhorn.io, sorted by name. Caller frees *ret. */
size_t vsc_longhorn_classes(const struct cluster_state *cs, struct vsc **ret);
/* The Longhorn classes, and the pick of every Longhorn StorageClass (sorted by name). */
void vsc_view_build(const struct cluster_state *cs, struct vsc_view *w);
void vsc_view_free(struct vsc_view *w);
