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
/* The raw text of a GET (a pod log), bounded; caller frees *ret. */
int canary_api_text(struct canary *c, int64_t until_ns, const char *path, char **ret, char *err,
		    size_t errlen);
/* Sleep ms, or less when a signal came or until_ns passed: false then. */
bool canary_sleep(struct canary *c, int64_t until_ns, int ms);
bool canary_stopped(const struct canary *c, int64_t until_ns);
/* A string at a path of members (NULL-terminated), or NULL. */
const char *cj_str(json_object *o, ...);
json_object *cj_get(json_object *o, ...);
/* "PARAM=SELECTOR" escaped for a query string; caller frees. */
char *canary_selector_query(const char *param, const char *selector);
/* The labels every created object carries (a new object). */
json_object *canary_labels(const struct canary *c);
/* The Warning (or, with all, every) event messages about the named object in
 * ns, newest last, as one "reason: message" string each, at most max. */
void canary_events(struct canary *c, const char *ns, const char *name, bool all, size_t max,
		   struct strv *ret);
/* Create the object (POST to path), remembering it as kind/ns/name. */
int canary_create(struct canary *c, const char *path, const char *kind, const char *name,
		  json_object *body, char *err, size_t errlen);
/* o->ns, created (labelled) when absent; refuses (returns -EPERM, err names
 * them) a namespace holding pods or PVCs without the canary's label. */
int canary_namespace(struct canary *c, char *err, size_t errlen);

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
