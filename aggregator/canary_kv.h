/*
 * What the canary's KubeVirt steps share (canary_vm.c, canary_migrate.c,
 * canary_snapshot.c, canary_restore.c):
 * the names of the objects of a run (fixed by the run id, so a later step
 * finds what an earlier one made without state of its own) and the nodes
 * that can run a VM.
 */
#pragma once
#include "canary.h"

#define CANARY_KV_API  "/apis/kubevirt.io/v1"
#define CANARY_CDI_API "/apis/cdi.kubevirt.io/v1beta1"
/* The KubeVirt device plugin's resource: a node that offers it can run a VM
 * (kubevirt/kubevirt pkg/virt-handler/device-manager, KVMName). */
#define CANARY_KVM_RESOURCE "devices.kubevirt.io/kvm"

/* "hvready-canary-vm-RUN", also the name of its VMI; caller frees. */
char *canary_vm_name(const struct canary *c);

/* The Ready, schedulable nodes whose allocatable offers /dev/kvm, by name,
 * in *ret; the others, each with why, in *bad; the node count in *total.
 * -errno with err on an API error. */
int canary_kvm_nodes(struct canary *c, struct strv *ret, struct strv *bad, size_t *total, char *err,
		     size_t errlen);

/* NULL when name is in nodes (from canary_kvm_nodes()); else why it cannot
 * run a VM ("cordoned", "not found", ...), pointing into bad or static. */
const char *canary_node_why_not(const struct strv *nodes, const struct strv *bad, const char *name);

/* The finding of an earlier step of this run, or NULL. */
const struct finding *canary_step_finding(const struct canary *c, const char *id);
/* The vm step passed in this run (else f is SKIP: "NEEDS" when it did not
 * run) and its VMI was read into *ret (else f is UNKNOWN). Caller puts *ret. */
bool canary_vm_step_vmi(struct canary *c, struct finding *f, const char *needs, json_object **ret,
			char *err, size_t errlen);
/* The step id ran in this run and passed: else f is SKIP, "NEEDS" when it
 * did not run, "NOT_PASSED (ID is STATUS)" when it did not pass. */
bool canary_step_passed(const struct canary *c, struct finding *f, const char *id,
			const char *needs, const char *not_passed);

/* "TYPE=STATUS (REASON): MESSAGE; ..." of an object's status.conditions that
 * are not what a healthy object shows (with all, every one); "" if none.
 * Caller frees. */
char *canary_conditions(json_object *obj, bool all);

/* snapshot.kubevirt.io: v1beta1 from KubeVirt 1.3, v1alpha1 only up to 1.2
 * (kubevirt/kubevirt v1.2.0 and v1.3.0, pkg/virt-api/webhooks/validating-
 * webhook/admitters/vmrestore-admitter.go imports kubevirt.io/api/snapshot/
 * v1alpha1 and v1beta1). */
#define CANARY_SNAP_GROUP "/apis/snapshot.kubevirt.io"
#define CANARY_VS_API	  "/apis/snapshot.storage.k8s.io/v1"
#define CANARY_LH_API	  "/apis/longhorn.io/v1beta2/namespaces/" CANARY_LONGHORN_NS

/* The served version of snapshot.kubevirt.io ("/apis/snapshot.kubevirt.io/
 * v1beta1", else ".../v1alpha1") in c->snap_api: 0, -ENOENT when neither is
 * served, -errno with err on an API error. */
int canary_snapshot_api(struct canary *c, char *err, size_t errlen);
/* "hvready-canary-snap-RUN", "hvready-canary-restore-RUN" and the restored
 * VM "hvready-canary-restored-RUN"; caller frees. */
char *canary_snapshot_name(const struct canary *c);
char *canary_restore_name(const struct canary *c);
char *canary_restored_vm_name(const struct canary *c);
