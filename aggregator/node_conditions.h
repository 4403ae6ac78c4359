/*
 * Node conditions and Events (serve --node-conditions): the verdict written
 * where operators already look. Every Kubernetes Node gets two conditions, as
 * node-problem-detector writes its own:
 *
 *   HvreadyRWXReady            can this node use Longhorn RWX (NFS) volumes?
 *   HvreadyLiveMigrationReady  can VMs live-migrate to and from this node?
 *
 * A node's status for a gate is the worst status among the gate's findings
 * about that node and the gate's cluster-wide findings: FAIL → False,
 * UNKNOWN (or no fresh report) → Unknown, WARN/PASS → True. Every status
 * transition is also a Kubernetes Event (reason HvreadyGateChanged) on the
 * Node; a change of a cluster-wide gate is an Event on the aggregator's Pod.
 *
 * The split: the loop copies what it needs from each verdict into a snapshot
 * (node_conditions_snapshot: no pointers into loop-owned data) and hands it
 * to this module's worker thread (node_conditions_offer), at most once per
 * interval. The worker holds a Lease (lease.h) and, only while it does,
 * patches nodes/status for the nodes whose condition changed or whose
 * heartbeat is due, and posts the Events. The computation in between
 * (node_conditions_desired/_plan and the request bodies) is pure and unit
 * tested. docs/node-conditions.md is the operator's side. The deciding half
 * is node_conditions.c, the writing half (bodies, worker) node_conditions_write.c.
 */
#pragma once
#include <pthread.h>
#include <stdatomic.h>

#include "cluster_state.h"
#include "lease.h"
#include "verdict.h"

#define NC_TYPE_RWX	 "HvreadyRWXReady"
#define NC_TYPE_LM	 "HvreadyLiveMigrationReady"
#define NC_EVENT_REASON	 "HvreadyGateChanged"
#define NC_COMPONENT	 "hvready-aggregator"
#define NC_MESSAGE_MAX	 1024 /* bytes of a condition or Event message */
#define NC_HEARTBEAT_MAX 10   /* re-patch an unchanged condition after this many intervals */
#define NC_STARTUP_GRACE 2    /* intervals a new process waits for the agents' reports */

enum nc_type { NC_RWX, NC_LM, _NC_TYPE_MAX };

enum nc_status { NC_ABSENT, NC_TRUE, NC_FALSE, NC_UNKNOWN };
const char *nc_status_name(enum nc_status s); /* "True", "False", "Unknown", "" */

/* One condition: desired, written, or read back from a Node. */
struct nc_cond {
	enum nc_status status; /* NC_ABSENT: the node does not carry it */
	char *reason, *message;
	int64_t transition_ns, heartbeat_ns; /* realtime; 0 = unknown */
};
void nc_cond_clear(struct nc_cond *c);

/* A finding of the rwx or live-migration gate, copied from the verdict. */
struct nc_finding {
	char *check, *message;
	char *node; /* NULL: about the cluster */
	enum status status;
	unsigned gates;
};

struct nc_node {
	char *name, *uid;
	bool fresh_report;		       /* a report younger than 3 intervals */
	struct nc_cond observed[_NC_TYPE_MAX]; /* on the Node as last listed */
};

struct nc_snapshot {
	int interval_s;
	int64_t state_read_ns; /* when the cluster state behind it was read */
	/* Gate findings (not SKIP): cluster-wide first, then by node name;
	 * the verdict's order within each. A check's summary line without a
	 * node is left out when the same check also has findings per node. */
	struct nc_finding *findings;
	size_t n_findings;
	struct nc_node *nodes; /* Kubernetes Nodes, by name */
	size_t n_nodes;
	enum status gates[_GATE_MAX];
	char *gate_blockers[_GATE_MAX]; /* "check on node, ..." (bounded) */
};

/* Fill ret from a verdict and the cluster state it was computed from. */
void node_conditions_snapshot(struct nc_snapshot *ret, const struct verdict *v,
			      const struct cluster_state *cs, int interval_s);
void node_conditions_snapshot_clear(struct nc_snapshot *s);

/* What the previous sync left on the nodes (this process's own writes). */
struct nc_mem_node {
	char *name;
	struct nc_cond cond[_NC_TYPE_MAX];
};
struct nc_memory {
	struct nc_mem_node *nodes; /* by name */
	size_t n;
	bool have_gates;
	enum status gates[_GATE_MAX];
};
void nc_memory_clear(struct nc_memory *m);

/* The condition of type t that node i should carry (no times set). */
void node_conditions_desired(const struct nc_snapshot *s, size_t i, enum nc_type t,
			     struct nc_cond *ret);

struct nc_node_plan {
	size_t node;			   /* index into the snapshot's nodes */
	struct nc_cond cond[_NC_TYPE_MAX]; /* to write (patch) or as it is */
	bool patch;
	enum nc_status from[_NC_TYPE_MAX]; /* != cond[t].status: a transition */
};

struct nc_gate_change {
	enum gate gate;
	enum status from, to;
};

struct nc_plan {
	struct nc_node_plan *nodes; /* one per snapshot node */
	size_t n_nodes, n_patch;
	struct nc_gate_change gate_changes[_GATE_MAX];
	size_t n_gate_changes;
};

/* Compare desired conditions with the previous ones (prev: our memory, else
 * what the snapshot saw on the Node): lastTransitionTime moves only when the
 * status changes; a node is patched when its status, reason or message
 * changed (numbers in messages aside) or its heartbeat is older than
 * NC_HEARTBEAT_MAX intervals (a little less, per node, to spread them out). */
void node_conditions_plan(const struct nc_snapshot *s, const struct nc_memory *prev, int64_t now_ns,
			  struct nc_plan *ret);
void node_conditions_plan_clear(struct nc_plan *p);
/* The memory after a sync: planned conditions of the nodes whose patch was
 * needed and succeeded or not needed; for failed ones, what prev had. */
void node_conditions_remember(struct nc_memory *m, const struct nc_snapshot *s,
			      const struct nc_plan *p, const bool *failed,
			      const struct nc_memory *prev);

/* {"status":{"conditions":[...both types...]}}, for application/strategic-merge-patch+json:
 * the API merges conditions by type, so the node's other conditions stay. */
char *node_conditions_patch_body(const struct nc_node_plan *p);
/* The core/v1 Event of a node transition of type t. */
char *node_conditions_node_event(const struct nc_snapshot *s, const struct nc_node_plan *p,
				 enum nc_type t, const char *instance, int64_t now_ns);
/* The core/v1 Event of a gate change, on the aggregator's Pod. */
char *node_conditions_gate_event(const struct nc_snapshot *s, const struct nc_gate_change *c,
				 const char *pod_ns, const char *pod, const char *pod_uid,
				 const char *instance, int64_t now_ns);

/* ---- the worker (the only part that talks to the API) ---- */

struct nc_stats {
	bool leader;
	bool waiting; /* holds the Lease but does not write yet (start, takeover) */
	size_t nodes, patched, patch_failed, events, event_failed;
};

struct node_conditions {
	struct kube_client *kc; /* owned; used by the worker only */
	struct lease lease;
	int interval_s;
	char *pod_namespace, *pod; /* for gate Events; pod NULL: none */
	char *pod_uid;		   /* looked up once, for kubectl describe pod */
	struct nc_memory mem;
	uint64_t mem_epoch; /* the lease term the memory belongs to */
	struct nc_stats last;
	atomic_bool stopping;
	/* hand-over from the loop */
	pthread_t thread;
	bool started;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct nc_snapshot *pending;
	int64_t last_offer_mono_ns;
	int64_t last_round_mono_ns; /* the Lease is renewed every interval, snapshot or not */
	int64_t created_mono_ns;
};

/* Takes kc. in_cluster: the aggregator runs in a Pod (its name is the host
 * name unless POD_NAME says otherwise). */
int node_conditions_new(struct kube_client *kc, int interval_s, bool in_cluster,
			struct node_conditions **ret, char *err, size_t errlen);
/* One round: Lease, then patches and Events (blocking: worker thread only).
 * Between snapshots (the loop evaluates only when something changed) the
 * worker renews the Lease on its own every interval.
 * Returns 1 as the Lease holder, 0 when another replica holds it, -errno
 * when the Lease could not be read or written. Per-node errors do not stop
 * the others: they are counted in nc->last and summed up in err. */
int node_conditions_sync(struct node_conditions *nc, const struct nc_snapshot *snap, char *err,
			 size_t errlen);

/* Loop side: start the worker; whether a snapshot is wanted now (one per
 * interval); hand one over (taken, freed by the worker); stop, join, free. */
int node_conditions_start(struct node_conditions *nc);
bool node_conditions_due(struct node_conditions *nc);
void node_conditions_offer(struct node_conditions *nc, struct nc_snapshot *snap);
void node_conditions_free(struct node_conditions *nc);

/* Shared by the two halves (node_conditions.c decides,
 * node_conditions_write.c writes): a condition type's name, and s cut to at
 * most max bytes at a UTF-8 character boundary. */
const char *nc_type_name(enum nc_type t);
size_t nc_utf8_cut(const char *s, size_t len, size_t max);
