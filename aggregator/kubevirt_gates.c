/*
 * KubeVirt feature gates per release.
 *
 * Stages read from kubevirt/kubevirt at each release tag:
 *   v1.2.0–v1.4.0: pkg/virt-config/feature-gates.go (gate names) and
 *     pkg/virt-config/deprecation/feature-gates.go (GA/Deprecated/Discontinued);
 *     a gate without a deprecation entry is on only when listed.
 *   v1.5.0–v1.9.0: pkg/virt-config/featuregate/active.go and inactive.go
 *     (RegisterFeatureGate{Name, State}).
 * Decision:
 *   ≤ v1.7: GA → on; listed in featureGates → on; else off (Alpha and Beta alike).
 *   v1.8:   pkg/virt-config/feature-gates.go isFeatureGateEnabled: GA → on,
 *     featureGates → on, disabledFeatureGates → off, else off (Beta is still
 *     off by default; disabledFeatureGates cannot switch off a listed gate).
 *   v1.9:   pkg/virt-config/featuregate/feature-gates.go IsEnabled ("GA > explicit
 *     enable > explicit disable > Beta (on by default) > off"), VEP 229,
 *     kubevirt/kubevirt#17405.
 * A version outside v1.2–v1.9 takes the rules of the nearest release here and
 * says so; an unknown version is decided only when every release agrees.
 */
#include "kubevirt_gates.h"

#include <stdio.h>
#include <string.h>

#include "json_query.h"
#include "util.h"

enum stage { ST_NONE = 0, ST_ALPHA, ST_BETA, ST_GA };

#define KV_FIRST_MINOR 2
#define KV_LAST_MINOR  9
#define KV_MINORS      (KV_LAST_MINOR - KV_FIRST_MINOR + 1)

struct gate_row {
	const char *name;
	/* stage at v1.2 … v1.9 */
	enum stage st[KV_MINORS];
};

static const struct gate_row rows[] = {
    /* Alpha v1.2–v1.5 (no entry / State: Alpha), Beta from v1.6 (active.go). */
    {"Snapshot", {ST_ALPHA, ST_ALPHA, ST_ALPHA, ST_ALPHA, ST_BETA, ST_BETA, ST_BETA, ST_BETA}},
};

static const char *stage_name(enum stage s)
{
	switch (s) {
	case ST_ALPHA:
		return "Alpha";
	case ST_BETA:
		return "Beta";
	case ST_GA:
		return "GA";
	default:
		return "not registered";
	}
}

static const struct gate_row *row_of(const char *gate)
{
	for (size_t i = 0; i < ELEMENTSOF(rows); i++)
		if (streq(rows[i].name, gate))
			return &rows[i];
	return NULL;
}

/* The decision at minor release m (KV_FIRST_MINOR … KV_LAST_MINOR). */
static bool decide_at(const struct gate_row *r, int m, bool listed, bool disabled, char *why,
		      size_t len)
{
	enum stage s = r ? r->st[m - KV_FIRST_MINOR] : ST_NONE;
	if (s == ST_GA) {
		snprintf(why, len, "GA in KubeVirt 1.%d: always on", m);
		return true;
	}
	if (listed) {
		snprintf(why, len, "listed in featureGates");
		return true;
	}
	if (disabled && m >= 8) {
		snprintf(why, len, "listed in disabledFeatureGates");
		return false;
	}
	if (s == ST_BETA && m >= 9) {
		snprintf(why, len,
			 "Beta in KubeVirt 1.%d: on by default (Beta gates are on by default "
			 "from 1.9)",
			 m);
		return true;
	}
	if (s == ST_BETA)
		snprintf(why, len,
			 "not listed in featureGates (%s in KubeVirt 1.%d: Beta gates are off "
			 "unless listed before 1.9)",
			 stage_name(s), m);
	else
		snprintf(why, len,
			 "not listed in featureGates (%s in KubeVirt 1.%d: off unless listed)",
			 stage_name(s), m);
	return false;
}

void kv_gate_eval(const char *gate, const struct semver *v, bool listed, bool disabled,
		  struct kv_gate_eval *ret)
{
	const struct gate_row *r = row_of(gate);
	memset(ret, 0, sizeof(*ret));
	if (v) {
		int m = v->minor;
		if (v->major != 1 || m < KV_FIRST_MINOR || m > KV_LAST_MINOR) {
			bool newer = v->major > 1 || (v->major == 1 && m > KV_LAST_MINOR);
			m = newer ? KV_LAST_MINOR : KV_FIRST_MINOR;
			snprintf(
			    ret->assumed, sizeof(ret->assumed),
			    "KubeVirt %d.%d is %s than the releases hvready knows (1.%d-1.%d): "
			    "the rules of 1.%d were applied",
			    v->major, v->minor, newer ? "newer" : "older", KV_FIRST_MINOR,
			    KV_LAST_MINOR, m);
		}
		ret->on = decide_at(r, m, listed, disabled, ret->why, sizeof(ret->why));
		ret->decided = true;
		return;
	}
	/* Unknown version: decided only when every known release gives the same answer. */
	char newest[sizeof(ret->why)];
	bool on0 = decide_at(r, KV_LAST_MINOR, listed, disabled, newest, sizeof(newest));
	for (int m = KV_FIRST_MINOR; m < KV_LAST_MINOR; m++) {
		char why[sizeof(ret->why)];
		if (decide_at(r, m, listed, disabled, why, sizeof(why)) != on0) {
			snprintf(ret->why, sizeof(ret->why),
				 "the KubeVirt version is unknown and the answer depends on it "
				 "(1.%d: %s; 1.%d: %s)",
				 m, on0 ? "off" : "on", KV_LAST_MINOR, on0 ? "on" : "off");
			return;
		}
	}
	ret->on = on0;
	ret->decided = true;
	snprintf(ret->why, sizeof(ret->why), "%s", newest);
	snprintf(ret->assumed, sizeof(ret->assumed),
		 "the KubeVirt version is unknown: every release 1.%d-1.%d gives the same answer",
		 KV_FIRST_MINOR, KV_LAST_MINOR);
}

static bool str_in(const struct jv *arr, const char *s)
{
	for (size_t i = 0; i < jq_len(arr); i++) {
		const struct jv *e = jq_at(arr, i);
		if (jv_is(e, JV_STRING) && streq(jv_str(e), s))
			return true;
	}
	return false;
}

const char *kv_cr_version(const struct jv *kv, struct semver *ret, const char **ret_field)
{
	static const char *const fields[] = {"observedKubeVirtVersion", "targetKubeVirtVersion",
					     "operatorVersion"};
	for (size_t i = 0; i < ELEMENTSOF(fields); i++) {
		const char *v = JQS(kv, "status", fields[i]);
		if (v && semver_parse(v, ret) == 0) {
			if (ret_field)
				*ret_field = fields[i];
			return v;
		}
	}
	return NULL;
}

int kv_gate_on_cr(const struct jv *kv, const char *gate)
{
	struct semver v;
	bool known = kv_cr_version(kv, &v, NULL) != NULL;
	const struct jv *dev = JQ(kv, "spec", "configuration", "developerConfiguration");
	struct kv_gate_eval g;
	kv_gate_eval(gate, known ? &v : NULL, str_in(JQ(dev, "featureGates"), gate),
		     str_in(JQ(dev, "disabledFeatureGates"), gate), &g);
	return g.decided ? g.on : -1;
}
