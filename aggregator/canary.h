/*
 * `hvready-aggregator canary`: an opt-in active test (docs/canary.md). Every
 * object it creates carries the labels below (and KubeVirt copies them to
 * what a restore makes); it never changes an object it did not create,
 * refuses a namespace holding objects it did not label, and at the end of
 * the run, after a failure, at --timeout, an API error or SIGINT/SIGTERM,
 * deletes what it made in dependency order (canary_cleanup.c: restores,
 * snapshots and then the contents and VolumeSnapshots KubeVirt deletes with
 * them, migrations, VMs, VMIs, DataVolumes, pods, PVCs, its namespace), then
 * waits for the Longhorn volumes behind the PVCs (--keep leaves them;
 * `canary --cleanup` removes what earlier runs left).
 *
 * Findings have fixed IDs (common/checks.def, PROGRAM CANARY): canary.rwx,
 * canary.vm.start, canary.migrate, canary.snapshot, canary.restore and
 * canary.cleanup. A stall is never PASS, and a run ends within --timeout.
 */
#pragma once
#include <json-c/json.h>
#include <signal.h>
#include <stdio.h>
#include <stdint.h>

#include "report.h"
#include "util.h"

struct kube_client;

#define CANARY_LABEL_MANAGED_BY	 "app.kubernetes.io/managed-by"
#define CANARY_MANAGED_BY	 "hvready-canary"
#define CANARY_LABEL_RUN	 "hvready.io/canary-run"
#define CANARY_DEFAULT_NS	 "hvready-canary"
#define CANARY_DEFAULT_TIMEOUT_S 300
/* The steps run when --steps is not given. */
#define CANARY_DEFAULT_STEPS "rwx"
/* Longhorn's own namespace, where its share-manager pods run. */
#define CANARY_LONGHORN_NS "longhorn-system"

struct canary_opts {
	const char *ns;
	const char *rwx_class; /* NULL: the first Longhorn class that is not migratable */
	const char *vm_class;  /* --storage-class; NULL: the default class for VMs */
	const char *image;     /* NULL: the hvready-agent DaemonSet's */
	const char *nodes[2];  /* --node A --node B: the RWX writer and reader; the VM
			       * prefers A, the migration targets B */
	size_t n_nodes;
	int64_t timeout_ms;
	unsigned steps; /* 1u << the step's index in canary_checks[] */
	bool keep;
	bool cleanup_only;
	/* --result-configmap: the run leaves CANARY_RESULT_WRITE_NS of its
	 * --timeout for writing its result there (canary_result_cm.h) */
	const char *result_cm;
};
#define CANARY_RESULT_WRITE_NS 3000000000LL

/* One run. Time limits are monotonic: steps until steps_end_ns, the
 * diagnosis of a stall and the reading of results until diag_end_ns (a third
 * of the cleanup's time), cleanup until end_ns (= start + --timeout). */
struct canary {
	struct kube_client *kc;
	const struct canary_opts *o;
	char run_id[17];
	int64_t start_ns, steps_end_ns, diag_end_ns, end_ns;
	/* When the run started and ended (realtime): the age of its proof
	 * (canary_result.h) counts from ended_at_ns. */
	int64_t started_at_ns, ended_at_ns;
	bool ns_created; /* this run made o->ns (and so deletes it) */
	bool ns_ready;
	bool refused;	     /* o->ns holds objects the canary did not create */
	struct strv created; /* "Kind/namespace/name", in creation order */
	/* What the snapshot step saw made for it without the canary's labels,
	 * as API paths: the VolumeSnapshotContents (cluster-scoped) and the
	 * Longhorn Snapshots or Backups behind them. The cleanup waits for them
	 * to go with their VolumeSnapshots and names any that stay. */
	struct strv made_for;
	char snap_api[48]; /* canary_snapshot_api(): "" until found */
	struct finding_list findings;
};

/* Set by SIGINT/SIGTERM (the signal's number); the run cleans up and ends. */
extern volatile sig_atomic_t canary_signal;

/* Exit status: 0 PASS/WARN/SKIP, 1 FAIL, 2 a namespace it must not use, 3
 * UNKNOWN. Findings are in c->findings. */
int canary_run(struct canary *c);

/* --timeout: "N", "Ns", "Nm", "Nh" (at most a day) in ms; -EINVAL, -ERANGE. */
int canary_parse_duration(const char *s, int64_t *ret_ms);
/* --steps NAME,...: a step is its ID without "canary." (rwx, vm.start, ...);
 * the bits of their indexes in canary_checks[]; -EINVAL with err. */
int canary_parse_steps(const char *arg, unsigned *ret, char *err, size_t errlen);

/* -- canary_api.c: bounded requests (each ends before the given limit) */
/* A request that must end by until_ns; see kube_client_json(). */
int canary_api(struct canary *c, int64_t until_ns, const char *method, const char *path,
	       json_object *body, json_object **ret, char *err, size_t errlen);
/* GET path (a list) into *ret for a step, within the steps' time: 0, or
 * -errno with f UNKNOWN "cannot list the WHAT: ERR". Caller puts *ret. */
int canary_step_list(struct canary *c, struct finding *f, const char *path, const char *what,
		     json_object **ret, char *err, size_t errlen);
/* The raw text of a GET (a pod log), bounded; caller frees *ret. */
int canary_api_text(struct canary *c, int64_t until_ns, const char *path, char **ret, char *err,
		    size_t errlen);
/* Sleep ms, or less when a signal came or until_ns passed: false then. */
bool canary_sleep(struct canary *c, int64_t until_ns, int ms);
bool canary_stopped(const struct canary *c, int64_t until_ns);

/* -- waits: every step polls what it made until it is done, at one pace. */
#define CANARY_POLL_MS 500
enum canary_wait_result { CANARY_WAIT_DONE, CANARY_WAIT_STALL, CANARY_WAIT_STOPPED };
struct canary_wait {
	const char *what; /* "the migration": what the messages say it waits for */
	int64_t t0_ns;	  /* the time waited counts from here */
	const char *path; /* GET at each look (into obj), or NULL */
	json_object *obj; /* the last object path answered; the caller puts it */
	/* One look, after the GET: 1 when the wait is over, 0 to look again,
	 * or a request's -errno (its error in err). */
	int (*look)(struct canary_wait *w);
	void *arg;
	char *err;
	size_t errlen;
};
/* Look every CANARY_POLL_MS until the steps' time is up. DONE: look said so.
 * STALL: the time is up, or a request ran into it (the caller diagnoses).
 * STOPPED: f is UNKNOWN, "interrupted by signal N after Ss, waiting for WHAT"
 * (S counted from t0_ns) on SIGINT/SIGTERM, else "API error while waiting for
 * WHAT: ERR". */
enum canary_wait_result canary_wait(struct canary *c, struct finding *f, struct canary_wait *w);

/* A string at a path of members (NULL-terminated), or NULL. */
const char *cj_str(json_object *o, ...);
json_object *cj_get(json_object *o, ...);
/* o is the boolean true. */
bool cj_true(json_object *o);
/* The status of o's condition TYPE is "True". */
bool canary_cond_true(json_object *o, const char *type);
/* Why a node cannot take the canary's pods (not Ready, cordoned, tainted
 * NoSchedule/NoExecute), or NULL. */
const char *canary_node_unusable(json_object *node);
/* The evidence list key: the strings of l. */
void canary_evidence_list(struct finding *f, const char *key, const struct strv *l);
/* Event lines quoted for a message: ": \"A\"; \"B\"", or "" with none; caller frees. */
char *canary_quoted(const struct strv *ev);
/* "PARAM=SELECTOR" escaped for a query string; caller frees. */
char *canary_selector_query(const char *param, const char *selector);
/* The labels every created object carries (a new object). */
json_object *canary_labels(const struct canary *c);
/* A new object (kube_object_new()) in no namespace, with those labels. */
json_object *canary_object(const struct canary *c, const char *api_version, const char *kind,
			   const char *name);
/* The Warning (or, with all, every) event messages about the named object in
 * ns, newest last, as one "reason: message" string each, at most max. */
void canary_events(struct canary *c, const char *ns, const char *name, bool all, size_t max,
		   struct strv *ret);
/* Create the object (POST to path), remembering it as kind/ns/name. */
int canary_create(struct canary *c, const char *path, const char *kind, const char *name,
		  json_object *body, char *err, size_t errlen);
/* canary_create() of body (which it frees) for a step: on an error f is
 * UNKNOWN "cannot create WHAT: ERR". */
int canary_step_create(struct canary *c, struct finding *f, const char *path, const char *kind,
		       const char *name, json_object *body, const char *what, char *err,
		       size_t errlen);
/* o->ns, created (labelled) when absent; refuses (returns -EPERM, err names
 * them) a namespace holding pods or PVCs without the canary's label. */
int canary_namespace(struct canary *c, char *err, size_t errlen);
/* canary_namespace() for a step: false when f says why it cannot be used. */
bool canary_step_namespace(struct canary *c, struct finding *f, char *err, size_t errlen);

/* The CANARY rows of common/checks.def, in its order (canary.c): the steps,
 * then canary.cleanup. Each runner fills its row's finding. The prototypes
 * come from the rows, so a row without its function does not link. */
struct canary_check {
	const char *id;
	void (*run)(struct canary *c, struct finding *f);
};
extern const struct canary_check canary_checks[];
extern const size_t canary_checks_len;
#define CHECK(id, prog, runner, ...) CHECK_PROTO_##prog(runner)
#define CHECK_PROTO_HOST(runner)
#define CHECK_PROTO_CLUSTER(runner)
#define CHECK_PROTO_API(runner)
#define CHECK_PROTO_CANARY(runner) void runner(struct canary *c, struct finding *f);
#include "checks.def"
#undef CHECK
#undef CHECK_PROTO_HOST
#undef CHECK_PROTO_CLUSTER
#undef CHECK_PROTO_API
#undef CHECK_PROTO_CANARY

/* -- canary_cleanup.c: everything labelled by this run (run_id), or with
 * all every run's; fills a canary.cleanup finding. canary_step_cleanup() is
 * the row's runner: all with --cleanup. */
void canary_cleanup(struct canary *c, bool all, struct finding *f);

/* -- canary_render.c */
void canary_render(FILE *out, const struct canary *c, const char *format);
