/*
 * KubeVirt feature gates per release: each gate's stage at each minor release
 * hvready knows (v1.2 … v1.9) and how virt-config decides whether it is on.
 * Table and rules: docs/support-matrix-kubevirt.md.
 */
#pragma once
#include <stdbool.h>

#include "semver.h"

struct kv_gate_eval {
	bool on, decided;
	/* Why, for people: "listed in featureGates", "Beta, on by default from
	 * KubeVirt 1.9", … Static storage or ctx-owned buffer; see below. */
	char why[256];
	/* Set when the version was outside the table or unknown: which release's
	 * rules were used ("v1.9, the newest release hvready knows"). Empty else. */
	char assumed[160];
};

/* Is gate on in a KubeVirt of version v (NULL: unknown), given whether it is
 * listed in developerConfiguration.featureGates and disabledFeatureGates? */
void kv_gate_eval(const char *gate, const struct semver *v, bool listed, bool disabled,
		  struct kv_gate_eval *ret);

struct jv;
/* The version of a KubeVirt CR's components: status.observedKubeVirtVersion
 * (deployed), else targetKubeVirtVersion (being deployed: a fresh install
 * before virt-operator has observed it), else operatorVersion. Returns the
 * string, parsed into *ret, with the field's name in *ret_field (may be NULL),
 * or NULL when none parses. */
const char *kv_cr_version(const struct jv *kv, struct semver *ret, const char **ret_field);
/* The gate on a KubeVirt CR (its developerConfiguration lists, its
 * status.observedKubeVirtVersion, else targetKubeVirtVersion, else
 * operatorVersion): 1 on, 0 off, -1 cannot be told. */
int kv_gate_on_cr(const struct jv *kv, const char *gate);
