/*
 * Leader election with a coordination.k8s.io/v1 Lease, the way client-go's
 * leaderelection package does it, so that of several aggregator replicas only
 * one writes Node conditions and Events.
 *
 * Each round: GET the Lease; absent → create it with us as holder; held by us
 * → renew (renewTime); held by another → wait, unless its record has not
 * changed for leaseDurationSeconds *by our own clock* (we never compare our
 * clock with the holder's renewTime: clocks of two machines disagree), then
 * take it over. Every write carries the resourceVersion that was read, so of
 * two replicas racing for an expired Lease one gets 409 Conflict and waits.
 */
#pragma once
#include <json-c/json.h>
#include "source.h"

#define LEASE_NAME		"hvready-aggregator"
#define LEASE_DEFAULT_NAMESPACE "hvready-system"

struct lease {
	char *namespace, *name, *identity;
	int duration_s; /* leaseDurationSeconds we write */
	/* The record as last seen, and when it last changed (monotonic). */
	char *seen_holder, *seen_renew;
	int64_t seen_mono_ns;
	bool held;		 /* our last round acquired or renewed it */
	uint64_t epoch;		 /* +1 at each acquisition by this process */
	int64_t acquired_ns;	 /* realtime of that acquisition */
	bool took_over;		 /* ... from another holder (not created, not ours) */
	int64_t renewed_mono_ns; /* our last successful write */
};

enum lease_action {
	LEASE_CREATE, /* no Lease yet */
	LEASE_RENEW,  /* ours: renew */
	LEASE_TAKE,   /* free or expired: take over */
	LEASE_WAIT,   /* another holder's, still valid */
};

void lease_init(struct lease *l, const char *ns, const char *name, const char *identity,
		int duration_s);
void lease_clear(struct lease *l);

/* What to do about the Lease as the API returned it (NULL: 404). Records the
 * observation (a changed record restarts its expiry clock at now_mono_ns). */
enum lease_action lease_decide(struct lease *l, json_object *current, int64_t now_mono_ns);
/* The object to POST (CREATE) or PUT (RENEW, TAKE); current is the object read
 * (NULL for CREATE). Caller frees. */
char *lease_body(const struct lease *l, json_object *current, enum lease_action a, int64_t now_ns);

/* One round over the API (blocking: call from a worker thread). Returns 1
 * when we hold the Lease now, 0 when another holder does (or won a race), or
 * -errno with err set (403 names the missing RBAC). */
int lease_sync(struct lease *l, struct kube_client *kc, char *err, size_t errlen);

/* From the environment: POD_NAMESPACE, else the service account's namespace
 * file (in a pod), else hvready-system; POD_NAME, else the host name (a pod's
 * host name is its name). Caller frees. */
char *lease_default_namespace(void);
char *lease_default_identity(void);
/* RFC 3339 with microseconds, as metav1.MicroTime ("2026-09-05T13:20:44.123456Z"). */
void lease_format_micro(int64_t ns, char *buf, size_t len);
