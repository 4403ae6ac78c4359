/* api.webhooks.harvester, api.pods.restarts, api.apiservices, api.harvester.endpoint
 * (the last against a real TLS server on 127.0.0.1 that routes by SNI). */
#include "agg_harness.h"
#include "hv_endpoint.h"
#include "loopback.h"
#include "test_src.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>

#define WH  "api.webhooks.harvester"
#define PR  "api.pods.restarts"
#define APS "api.apiservices"
#define EP  "api.harvester.endpoint"

/* 2026-09-05T14:10:00Z: 11 minutes after harvester's last crash. */
#define T_CRASH_FRESH (INT64_C(1788617400) * NSEC_PER_SEC)
/* 2026-09-06T01:49:11Z: the operators' check, 710 minutes after it. */
#define T_CRASH_OLD (INT64_C(1788659351) * NSEC_PER_SEC)

/* ---- webhooks ---- */

static void test_webhooks(void **state)
{
	struct harness h;
	harness_init(&h);
	harness_preinstall(&h);
	harness_run(&h, WH);
	assert_int_equal(harness_status(&h, WH), STATUS_SKIP);
	harness_clear(&h);

	/* The configurations are harvester-validator/-mutator, the entries are
	 * validator.harvesterhci.io/mutator.harvesterhci.io */
	harness_init(&h);
	harness_load(&h, "kubevirt/harvester-installed.json");
	harness_load(&h, "kubevirt/webhooks-validating.json");
	harness_load(&h, "kubevirt/webhooks-mutating.json");
	harness_run(&h, WH);
	assert_int_equal(harness_status(&h, WH), STATUS_PASS);
	const struct finding *f =
	    harness_finding(&h, WH, "ValidatingWebhookConfiguration/harvester-validator");
	assert_string_equal(harness_ev(f, "entry"), "validator.harvesterhci.io");
	assert_string_equal(harness_ev(f, "service"), "harvester-system/harvester-webhook");
	assert_non_null(harness_finding(&h, WH, "MutatingWebhookConfiguration/harvester-mutator"));
	harness_clear(&h);

	/* only KubeVirt's webhooks: both entries missing */
	harness_init(&h);
	harness_load(&h, "kubevirt/harvester-installed.json");
	harness_add(&h, "{\"apiVersion\":\"admissionregistration.k8s.io/v1\",\"kind\":"
			"\"ValidatingWebhookConfiguration\",\"metadata\":{\"name\":"
			"\"validator.harvesterhci.io\"},\"webhooks\":[{\"name\":"
			"\"virtualmachine-validator.kubevirt.io\"},7,null]}");
	harness_add(&h, "{\"apiVersion\":\"admissionregistration.k8s.io/v1\",\"kind\":"
			"\"MutatingWebhookConfiguration\",\"metadata\":{\"name\":\"x\"},"
			"\"webhooks\":\"mutator.harvesterhci.io\"}");
	harness_run(&h, WH);
	assert_int_equal(harness_status(&h, WH), STATUS_FAIL);
	f = harness_finding(&h, WH, NULL);
	assert_int_equal(f->status, STATUS_FAIL);
	assert_non_null(strstr(f->message, "no webhook entry validator.harvesterhci.io"));
	assert_non_null(strstr(f->remediation, "harvester-webhook"));
	harness_clear(&h);
}

/* ---- pod restarts ---- */

static void test_restarts_exit1_history(void **state)
{
	struct harness h;
	harness_init(&h);
	h.now_ns = T_CRASH_FRESH;
	harness_load(&h, "kubevirt/pods-harvester-restarted.json");
	harness_run(&h, PR);
	assert_int_equal(harness_status(&h, PR), STATUS_FAIL);
	const struct finding *f =
	    harness_finding(&h, PR, "Pod/harvester-system/harvester-74977d46-82v8s");
	assert_int_equal(f->status, STATUS_FAIL);
	int64_t n;
	assert_true(kv_get_int(&f->evidence, "restarts", &n));
	assert_int_equal(n, 10);
	assert_true(kv_get_int(&f->evidence, "exit_code", &n));
	assert_int_equal(n, 1);
	assert_string_equal(harness_ev(f, "reason"), "Error");
	assert_string_equal(harness_ev(f, "finished_at"), "2026-09-05T13:59:11Z");
	assert_string_equal(harness_ev(f, "ago"), "10m");
	assert_string_equal(f->node, "sza122100.local");
	assert_non_null(strstr(f->message, "not OOM"));
	assert_non_null(
	    strstr(f->remediation, "logs harvester-74977d46-82v8s -c apiserver --previous"));
	assert_non_null(strstr(f->remediation, "VolumeSnapshotClass longhorn"));
	/* the webhook pod never restarted: no finding for it */
	for (size_t i = 0; i < h.out.n; i++)
		assert_null(strstr(h.out.items[i].object, "harvester-webhook"));
	assert_int_equal(h.out.n, 3);
	harness_clear(&h);

	/* 710 minutes later: history, WARN */
	harness_init(&h);
	h.now_ns = T_CRASH_OLD;
	harness_load(&h, "kubevirt/pods-harvester-restarted.json");
	harness_run(&h, PR);
	assert_int_equal(harness_status(&h, PR), STATUS_WARN);
	f = harness_finding(&h, PR, "Pod/harvester-system/harvester-74977d46-rlwkr");
	assert_string_equal(harness_ev(f, "ago"), "11h50m");
	harness_clear(&h);
}

static void test_restarts_other(void **state)
{
	struct harness h;
	harness_init(&h);
	harness_run(&h, PR);
	assert_int_equal(harness_status(&h, PR), STATUS_SKIP);
	harness_clear(&h);

	/* healthy pods only: PASS; pods elsewhere are not looked at */
	harness_init(&h);
	harness_load(&h, "kubevirt/virt-api-pods-before-change.json");
	harness_add(&h, "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"x\","
			"\"namespace\":\"default\"},\"status\":{\"containerStatuses\":[{\"name\":"
			"\"c\",\"restartCount\":99}]}}");
	harness_run(&h, PR);
	assert_int_equal(harness_status(&h, PR), STATUS_PASS);
	harness_clear(&h);

	/* OOMKilled 17 minutes ago */
	harness_init(&h);
	h.now_ns = T_CRASH_OLD;
	harness_load(&h, "kubevirt/pods-longhorn-manager-oom.json");
	harness_run(&h, PR);
	const struct finding *f =
	    harness_finding(&h, PR, "Pod/longhorn-system/longhorn-manager-7xk2d");
	assert_int_equal(f->status, STATUS_FAIL);
	assert_non_null(strstr(f->message, "OOMKilled"));
	assert_non_null(strstr(f->remediation, "memory limit"));
	harness_clear(&h);

	/* CrashLoopBackOff is FAIL whatever the age */
	harness_init(&h);
	h.now_ns = T_CRASH_OLD;
	harness_load(&h, "kubevirt/pods-harvester-crashloop.json");
	harness_run(&h, PR);
	f = harness_finding(&h, PR, NULL);
	assert_int_equal(f->status, STATUS_FAIL);
	assert_non_null(strstr(f->message, "CrashLoopBackOff"));
	harness_clear(&h);

	/* a node reboot (exit 255, reason Unknown) 5 minutes ago is WARN, not FAIL; a
	 * restart with no recorded termination but a fresh start is FAIL */
	harness_init(&h);
	h.now_ns = T_CRASH_FRESH;
	harness_add(&h,
		    "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"lm\","
		    "\"namespace\":\"longhorn-system\"},\"status\":{\"containerStatuses\":[{"
		    "\"name\":\"m\",\"restartCount\":1,\"lastState\":{\"terminated\":{\"exitCode\":"
		    "255,\"reason\":\"Unknown\",\"finishedAt\":\"2026-09-05T14:05:00Z\"}},"
		    "\"state\":{\"running\":{\"startedAt\":\"2026-09-05T14:06:00Z\"}}}]}}");
	harness_add(&h, "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"csi\","
			"\"namespace\":\"longhorn-system\"},\"status\":{\"containerStatuses\":[{"
			"\"name\":\"c\",\"restartCount\":2,\"lastState\":{},\"state\":{\"running\":"
			"{\"startedAt\":\"2026-09-05T14:01:00Z\"}}}]}}");
	harness_add(&h, "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"old\","
			"\"namespace\":\"cattle-system\"},\"status\":{\"containerStatuses\":[{"
			"\"name\":\"c\",\"restartCount\":1}]}}");
	harness_add(&h, "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"job\","
			"\"namespace\":\"harvester-system\"},\"status\":{\"phase\":\"Failed\","
			"\"containerStatuses\":[{\"name\":\"c\",\"restartCount\":0,\"state\":{"
			"\"terminated\":{\"exitCode\":2,\"reason\":\"Error\",\"finishedAt\":"
			"\"2026-09-04T10:00:00Z\",\"message\":\"boom\"}}}]}}");
	harness_run(&h, PR);
	assert_int_equal(harness_finding(&h, PR, "Pod/longhorn-system/lm")->status, STATUS_WARN);
	f = harness_finding(&h, PR, "Pod/longhorn-system/csi");
	assert_int_equal(f->status, STATUS_FAIL);
	assert_string_equal(harness_ev(f, "time_from"), "state.running.startedAt");
	f = harness_finding(&h, PR, "Pod/cattle-system/old");
	assert_int_equal(f->status, STATUS_WARN);
	assert_non_null(strstr(f->message, "not recorded"));
	f = harness_finding(&h, PR, "Pod/harvester-system/job");
	assert_int_equal(f->status, STATUS_WARN);
	assert_string_equal(harness_ev(f, "message"), "boom");
	harness_clear(&h);
}

/* What the kubelet writes when it, not the application, ended a container: a
 * vanished container is ContainerStatusUnknown with exit 137 (kubelet
 * status_manager), a graceful node shutdown leaves the pod Failed with pod reason
 * Terminated (Shutdown before 1.25), node-pressure eviction with reason Evicted.
 * None of them is a crash to FAIL on, even within the hour. */
static void test_restarts_kubelet_stopped(void **state)
{
	struct harness h;
	harness_init(&h);
	h.now_ns = T_CRASH_FRESH;
	harness_add(
	    &h, "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":"
		"\"longhorn-csi-plugin-4xq7m\",\"namespace\":\"longhorn-system\"},\"spec\":{"
		"\"nodeName\":\"node-2\"},\"status\":{\"phase\":\"Running\",\"containerStatuses\":"
		"[{\"name\":\"longhorn-liveness-probe\",\"restartCount\":1,\"lastState\":{"
		"\"terminated\":{\"exitCode\":137,\"reason\":\"ContainerStatusUnknown\","
		"\"message\":\"The container could not be located when the pod was "
		"terminated\",\"startedAt\":null,\"finishedAt\":null}},\"state\":{\"running\":"
		"{\"startedAt\":\"2026-09-05T14:06:00Z\"}}}]}}");
	harness_add(
	    &h, "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":"
		"\"harvester-webhook-6d9f7-abcde\",\"namespace\":\"harvester-system\"},\"spec\":{"
		"\"nodeName\":\"node-1\"},\"status\":{\"phase\":\"Failed\",\"reason\":"
		"\"Terminated\",\"message\":\"Pod was terminated in response to imminent node "
		"shutdown.\",\"containerStatuses\":[{\"name\":\"harvester-webhook\","
		"\"restartCount\":0,\"state\":{\"terminated\":{\"exitCode\":143,\"reason\":"
		"\"Error\",\"startedAt\":\"2026-09-05T10:00:00Z\",\"finishedAt\":"
		"\"2026-09-05T14:05:00Z\"}}}]}}");
	harness_add(
	    &h, "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":"
		"\"instance-manager-3f1c\",\"namespace\":\"longhorn-system\"},\"status\":{"
		"\"phase\":\"Failed\",\"reason\":\"Evicted\",\"message\":\"The node was low on "
		"resource: ephemeral-storage. Threshold quantity: 5Gi, available: 4Gi.\","
		"\"containerStatuses\":[{\"name\":\"instance-manager\",\"restartCount\":0,"
		"\"state\":{\"terminated\":{\"exitCode\":137,\"reason\":\"Error\",\"finishedAt\":"
		"\"2026-09-05T14:04:00Z\"}}}]}}");
	harness_run(&h, PR);
	const struct finding *f =
	    harness_finding(&h, PR, "Pod/longhorn-system/longhorn-csi-plugin-4xq7m");
	assert_int_equal(f->status, STATUS_WARN);
	assert_non_null(strstr(f->message, "state lost"));
	assert_string_equal(harness_ev(f, "reason"), "ContainerStatusUnknown");
	f = harness_finding(&h, PR, "Pod/harvester-system/harvester-webhook-6d9f7-abcde");
	assert_int_equal(f->status, STATUS_WARN);
	assert_string_equal(harness_ev(f, "pod_reason"), "Terminated");
	assert_non_null(strstr(f->message, "node shutdown"));
	assert_non_null(strstr(f->remediation, "kubectl -n harvester-system delete pod "
					       "harvester-webhook-6d9f7-abcde"));
	f = harness_finding(&h, PR, "Pod/longhorn-system/instance-manager-3f1c");
	assert_int_equal(f->status, STATUS_WARN);
	assert_string_equal(harness_ev(f, "pod_reason"), "Evicted");
	assert_non_null(strstr(harness_ev(f, "pod_message"), "ephemeral-storage"));
	assert_non_null(strstr(f->message, "evicted"));
	harness_clear(&h);
}

/* A Harvester promote Job's pod (harvester-system): phase, creation time, the
 * Job's uid, and one container's status (JSON). */
static void add_job_pod(struct harness *h, const char *name, const char *job, const char *uid,
			const char *phase, const char *created, const char *cstatus)
{
	char buf[2048];
	snprintf(buf, sizeof(buf),
		 "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"%s\","
		 "\"namespace\":\"harvester-system\",\"creationTimestamp\":\"%s\",\"labels\":{"
		 "\"batch.kubernetes.io/job-name\":\"%s\",\"job-name\":\"%s\"},"
		 "\"ownerReferences\":[{\"apiVersion\":\"batch/v1\",\"blockOwnerDeletion\":true,"
		 "\"controller\":true,\"kind\":\"Job\",\"name\":\"%s\",\"uid\":\"%s\"}]},"
		 "\"spec\":{\"nodeName\":\"node-2\",\"restartPolicy\":\"%s\"},\"status\":{"
		 "\"phase\":\"%s\",\"containerStatuses\":[%s]}}",
		 name, created, job, job, job, uid,
		 strstr(cstatus, "\"restartCount\":0") ? "Never" : "OnFailure", phase, cstatus);
	harness_add(h, buf);
}

#define PROMOTE_UID "0d6f1c2a-7b3e-4c59-9a81-2e4f6b8c0d13"
#define PROMOTE_FAILED                                                                             \
	"{\"name\":\"promote\",\"restartCount\":0,\"state\":{\"terminated\":{\"exitCode\":1,"      \
	"\"reason\":\"Error\",\"startedAt\":\"2026-09-05T14:01:10Z\",\"finishedAt\":"              \
	"\"2026-09-05T14:02:40Z\"}}}"
#define PROMOTE_DONE                                                                               \
	"{\"name\":\"promote\",\"restartCount\":0,\"state\":{\"terminated\":{\"exitCode\":0,"      \
	"\"reason\":\"Completed\",\"startedAt\":\"2026-09-05T14:03:05Z\",\"finishedAt\":"          \
	"\"2026-09-05T14:06:30Z\"}}}"

/* A Job retries a failed pod with a new one and keeps the failed one: once a
 * later attempt succeeded, the failure within the hour is history (WARN). */
static void test_restarts_job_retried(void **state)
{
	struct harness h;
	harness_init(&h);
	h.now_ns = T_CRASH_FRESH;
	add_job_pod(&h, "harvester-promote-node-2-7vq2k", "harvester-promote-node-2", PROMOTE_UID,
		    "Failed", "2026-09-05T14:01:02Z", PROMOTE_FAILED);
	add_job_pod(&h, "harvester-promote-node-2-x9b4m", "harvester-promote-node-2", PROMOTE_UID,
		    "Succeeded", "2026-09-05T14:02:58Z", PROMOTE_DONE);
	harness_run(&h, PR);
	const struct finding *f =
	    harness_finding(&h, PR, "Pod/harvester-system/harvester-promote-node-2-7vq2k");
	assert_int_equal(f->status, STATUS_WARN);
	assert_non_null(strstr(f->message, "a later attempt of Job harvester-promote-node-2 "
					   "succeeded (pod harvester-promote-node-2-x9b4m)"));
	assert_string_equal(harness_ev(f, "job"), "harvester-promote-node-2");
	assert_string_equal(harness_ev(f, "job_succeeded_pod"), "harvester-promote-node-2-x9b4m");
	assert_non_null(strstr(f->remediation, "kubectl -n harvester-system delete pod "
					       "harvester-promote-node-2-7vq2k"));
	assert_int_equal(harness_status(&h, PR), STATUS_WARN);
	harness_clear(&h);

	/* No attempt succeeded (yet): the failure within the hour is a FAIL. */
	harness_init(&h);
	h.now_ns = T_CRASH_FRESH;
	add_job_pod(&h, "harvester-promote-node-2-7vq2k", "harvester-promote-node-2", PROMOTE_UID,
		    "Failed", "2026-09-05T14:01:02Z", PROMOTE_FAILED);
	/* Another Job's success says nothing about this one. */
	add_job_pod(&h, "harvester-promote-node-3-a1b2c", "harvester-promote-node-3",
		    "5e0c9b7a-1d2f-4a38-8e61-3c5d7f9a1b24", "Succeeded", "2026-09-05T14:02:58Z",
		    PROMOTE_DONE);
	harness_run(&h, PR);
	f = harness_finding(&h, PR, "Pod/harvester-system/harvester-promote-node-2-7vq2k");
	assert_int_equal(f->status, STATUS_FAIL);
	assert_string_equal(harness_ev(f, "job"), "");
	harness_clear(&h);

	/* A pod of the Job that succeeded before this one failed (completions > 1):
	 * the failure is not behind it. */
	harness_init(&h);
	h.now_ns = T_CRASH_FRESH;
	add_job_pod(&h, "harvester-promote-node-2-x9b4m", "harvester-promote-node-2", PROMOTE_UID,
		    "Succeeded", "2026-09-05T13:58:00Z", PROMOTE_DONE);
	add_job_pod(&h, "harvester-promote-node-2-7vq2k", "harvester-promote-node-2", PROMOTE_UID,
		    "Failed", "2026-09-05T14:01:02Z", PROMOTE_FAILED);
	harness_run(&h, PR);
	assert_int_equal(harness_status(&h, PR), STATUS_FAIL);
	harness_clear(&h);

	/* restartPolicy OnFailure: the container crashed twice, then the pod completed. */
	harness_init(&h);
	h.now_ns = T_CRASH_FRESH;
	add_job_pod(&h, "harvester-promote-node-2-x9b4m", "harvester-promote-node-2", PROMOTE_UID,
		    "Succeeded", "2026-09-05T14:00:00Z",
		    "{\"name\":\"promote\",\"restartCount\":2,\"lastState\":{\"terminated\":{"
		    "\"exitCode\":1,\"reason\":\"Error\",\"finishedAt\":\"2026-09-05T14:02:40Z\"}},"
		    "\"state\":{\"terminated\":{\"exitCode\":0,\"reason\":\"Completed\","
		    "\"finishedAt\":\"2026-09-05T14:06:30Z\"}}}");
	harness_run(&h, PR);
	f = harness_finding(&h, PR, "Pod/harvester-system/harvester-promote-node-2-x9b4m");
	assert_int_equal(f->status, STATUS_WARN);
	assert_non_null(
	    strstr(f->message, "the pod then completed (Job harvester-promote-node-2)"));
	harness_clear(&h);
}

static void test_restarts_garbage(void **state)
{
	const char *weird[] = {
	    "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"namespace\":\"harvester-"
	    "system\"}}",
	    "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"namespace\":\"harvester-"
	    "system\"},\"status\":{\"containerStatuses\":[null,3,{\"restartCount\":\"x\","
	    "\"lastState\":{\"terminated\":\"yes\"}},{\"name\":1,\"restartCount\":4,\"lastState\":"
	    "{\"terminated\":{\"exitCode\":\"137\",\"finishedAt\":\"yesterday\"}},\"state\":"
	    "{\"waiting\":{\"reason\":5}}}],\"initContainerStatuses\":{}}}",
	};
	for (size_t i = 0; i < ELEMENTSOF(weird); i++) {
		struct harness h;
		harness_init(&h);
		harness_add(&h, weird[i]);
		harness_run(&h, PR);
		assert_int_not_equal(harness_status(&h, PR), STATUS_UNKNOWN);
		harness_clear(&h);
	}
}

/* ---- APIServices ---- */

static void test_apiservices(void **state)
{
	struct harness h;
	harness_init(&h);
	harness_load(&h, "kubevirt/harvester-installed.json");
	harness_load(&h, "kubevirt/apiservices.json");
	harness_run(&h, APS);
	/* ext.cattle.io without Rancher is noise, not a FAIL */
	assert_int_equal(harness_status(&h, APS), STATUS_WARN);
	const struct finding *f = harness_finding(&h, APS, "APIService/v1.ext.cattle.io");
	assert_non_null(strstr(f->message, "known non-fatal noise"));
	assert_string_equal(harness_ev(f, "reason"), "ServiceNotFound");
	assert_int_equal(h.out.n, 1);
	harness_clear(&h);

	/* all available */
	harness_init(&h);
	harness_load(&h, "kubevirt/harvester-installed.json");
	harness_load(&h, "kubevirt/apiservices.json");
	cs_remove(&h.cs, RES_APISERVICES, cs_count(&h.cs, RES_APISERVICES) - 1);
	harness_run(&h, APS);
	assert_int_equal(harness_status(&h, APS), STATUS_PASS);
	int64_t n;
	assert_true(kv_get_int(&harness_finding(&h, APS, NULL)->evidence, "harvesterhci_io", &n));
	assert_int_equal(n, 1);
	harness_clear(&h);

	/* the Harvester APIService down: FAIL */
	harness_init(&h);
	harness_load(&h, "kubevirt/harvester-installed.json");
	harness_load(&h, "kubevirt/apiservice-harvester-unavailable.json");
	harness_run(&h, APS);
	f = harness_finding(&h, APS, "APIService/v1beta1.harvesterhci.io");
	assert_int_equal(f->status, STATUS_FAIL);
	assert_non_null(strstr(harness_ev(f, "message"), "connection refused"));
	harness_clear(&h);

	/* Harvester installed, no harvesterhci.io APIService at all */
	harness_init(&h);
	harness_load(&h, "kubevirt/harvester-installed.json");
	harness_run(&h, APS);
	assert_int_equal(harness_status(&h, APS), STATUS_FAIL);
	harness_clear(&h);

	/* before the install: an unavailable metrics API is a WARN (discovery errors) */
	harness_init(&h);
	harness_preinstall(&h);
	harness_add(&h,
		    "{\"apiVersion\":\"apiregistration.k8s.io/v1\",\"kind\":\"APIService\","
		    "\"metadata\":{\"name\":\"v1beta1.metrics.k8s.io\"},\"spec\":{\"service\":{"
		    "\"name\":\"rke2-metrics-server\",\"namespace\":\"kube-system\"}},\"status\":{"
		    "\"conditions\":[{\"type\":\"Available\",\"status\":\"False\",\"reason\":"
		    "\"MissingEndpoints\"}]}}");
	harness_add(&h,
		    "{\"apiVersion\":\"apiregistration.k8s.io/v1\",\"kind\":\"APIService\","
		    "\"metadata\":{\"name\":\"v1beta1.harvesterhci.io\"},\"spec\":null,\"status\":"
		    "{\"conditions\":null}}");
	harness_add(&h, "{\"apiVersion\":\"apiregistration.k8s.io/v1\",\"kind\":\"APIService\"}");
	harness_run(&h, APS);
	assert_int_equal(harness_finding(&h, APS, "APIService/v1beta1.metrics.k8s.io")->status,
			 STATUS_WARN);
	assert_int_equal(harness_finding(&h, APS, "APIService/v1beta1.harvesterhci.io")->status,
			 STATUS_UNKNOWN);
	harness_clear(&h);

	/* with Rancher deployed the message changes, still WARN */
	harness_init(&h);
	harness_load(&h, "kubevirt/harvester-installed.json");
	harness_load(&h, "kubevirt/apiservices.json");
	harness_add(&h,
		    "{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"metadata\":{\"name\":"
		    "\"rancher\",\"namespace\":\"cattle-system\"}}");
	harness_run(&h, APS);
	f = harness_finding(&h, APS, "APIService/v1.ext.cattle.io");
	assert_int_equal(f->status, STATUS_WARN);
	assert_non_null(strstr(f->message, "Rancher features"));
	harness_clear(&h);
}

/* ---- endpoint, against a real TLS server ---- */

struct tls_server {
	char dir[64];
	pid_t pid;
	int port;
};

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	return remove(path);
}

static char *slurp(const char *dir, const char *name)
{
	char path[256];
	char *buf = NULL;
	size_t len;
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (util_read_file(path, 1 << 20, &buf, &len) < 0)
		return xstrdup("");
	return buf;
}

static void certs(const char *dir)
{
	char cmd[2048];
	snprintf(cmd, sizeof(cmd),
		 "set -e; cd %s; "
		 "openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes "
		 "-keyout ca.key -out ca.crt -subj /CN=hvready-test-ca -days 2 2>/dev/null; "
		 "openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout "
		 "srv.key -out srv.csr -subj /CN=harvester.local 2>/dev/null; "
		 "printf 'subjectAltName=DNS:harvester.local\\n' > ext; "
		 "openssl x509 -req -in srv.csr -CA ca.crt -CAkey ca.key -CAcreateserial -out "
		 "srv.crt -days 2 -extfile ext 2>/dev/null; "
		 "openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes "
		 "-keyout other.key -out other.crt -subj /CN=some-other-ca -days 2 2>/dev/null",
		 dir);
	assert_int_equal(system(cmd), 0);
}

static void server_start(struct tls_server *s, const char *mode)
{
	snprintf(s->dir, sizeof(s->dir), "/tmp/hvready-tls-XXXXXX");
	assert_non_null(mkdtemp(s->dir));
	certs(s->dir);
	char script[4096];
	snprintf(script, sizeof(script), "%s/tests/unit/hv_tls_server.py", test_src());
	s->pid = fork();
	assert_true(s->pid >= 0);
	if (s->pid == 0) {
		char a[6][300];
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		snprintf(a[0], sizeof(a[0]), "%s/srv.crt", s->dir);
		snprintf(a[1], sizeof(a[1]), "%s/srv.key", s->dir);
		snprintf(a[2], sizeof(a[2]), "%s/port", s->dir);
		snprintf(a[3], sizeof(a[3]), "%s/sni", s->dir);
		snprintf(a[4], sizeof(a[4]), "%s/host", s->dir);
		snprintf(a[5], sizeof(a[5]), "%s", mode);
		execlp("python3", "python3", script, "--cert", a[0], "--key", a[1], "--port-file",
		       a[2], "--sni-file", a[3], "--host-file", a[4], "--mode", a[5], (char *)NULL);
		_exit(127);
	}
	/* wait (bounded: 30 s, the machine may be busy) for the port file */
	for (int i = 0; i < 600; i++) {
		char *p = slurp(s->dir, "port");
		s->port = atoi(p);
		free(p);
		if (s->port > 0)
			return;
		int st;
		if (waitpid(s->pid, &st, WNOHANG) == s->pid)
			fail_msg("TLS test server exited before it listened");
		struct timespec ts = {0, 50 * 1000 * 1000};
		nanosleep(&ts, NULL);
	}
	fail_msg("TLS test server did not start within 30 s");
}

static void server_stop(struct tls_server *s)
{
	if (s->pid > 0) {
		kill(s->pid, SIGTERM);
		waitpid(s->pid, NULL, 0);
		s->pid = 0;
	}
	if (s->dir[0])
		nftw(s->dir, rm_entry, 8, FTW_DEPTH | FTW_PHYS);
	s->dir[0] = '\0';
}

static struct tls_server *current;

static int teardown(void **state)
{
	if (current)
		server_stop(current);
	current = NULL;
	return 0;
}

static void add_service(struct harness *h, const char *ip, int port)
{
	char buf[1024];
	snprintf(
	    buf, sizeof(buf),
	    "{\"apiVersion\":\"v1\",\"kind\":\"Service\",\"metadata\":{\"name\":\"harvester\","
	    "\"namespace\":\"harvester-system\"},\"spec\":{\"type\":\"NodePort\",\"clusterIP\":"
	    "\"%s\",\"clusterIPs\":[\"%s\"],\"ports\":[{\"name\":\"https\",\"port\":%d,"
	    "\"nodePort\":32735,\"protocol\":\"TCP\"}]}}",
	    ip, ip, port);
	harness_add(h, buf);
}

static void live_harness(struct harness *h)
{
	harness_init(h);
	h->live = true;
	h->now_ns = util_now_realtime_ns(); /* the test certificates are valid from now */
	harness_add(h, "{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"metadata\":{\"name\":"
		       "\"harvester\",\"namespace\":\"harvester-system\"}}");
}

/* The Harvester setting ssl-certificates with file's PEM as its CA. */
static void add_ssl_ca(struct harness *h, const char *dir, const char *file)
{
	char *ca = slurp(dir, file);
	json_object *setting = json_object_new_object(), *val = json_object_new_object();
	json_object *meta = json_object_new_object();
	json_object_object_add(val, "ca", json_object_new_string(ca));
	json_object_object_add(val, "publicCertificate", json_object_new_string(""));
	json_object_object_add(val, "privateKey", json_object_new_string(""));
	json_object_object_add(setting, "apiVersion",
			       json_object_new_string("harvesterhci.io/v1beta1"));
	json_object_object_add(setting, "kind", json_object_new_string("Setting"));
	json_object_object_add(meta, "name", json_object_new_string("ssl-certificates"));
	json_object_object_add(setting, "metadata", meta);
	json_object_object_add(setting, "value",
			       json_object_new_string(json_object_to_json_string(val)));
	harness_add_json(h, setting);
	json_object_put(setting);
	json_object_put(val);
	free(ca);
}

/* The certificate expiry the endpoint check compares with now: openssl's
 * form and the API's; RFC 5280's "no expiration" (9999-12-31) is the latest
 * time an int64 of nanoseconds holds, not a signed overflow. */
static void test_endpoint_expire_parse(void **state)
{
	int64_t ns = 0;
	assert_true(hv_endpoint_parse_expire("Sep  5 13:10:00 2027 GMT", &ns));
	assert_int_equal(ns, INT64_C(1820149800) * NSEC_PER_SEC);
	assert_true(hv_endpoint_parse_expire("2027-09-05 13:10:00", &ns));
	assert_int_equal(ns, INT64_C(1820149800) * NSEC_PER_SEC);
	assert_true(hv_endpoint_parse_expire("Dec 31 23:59:59 9999 GMT", &ns));
	assert_int_equal(ns, INT64_MAX);
	assert_false(hv_endpoint_parse_expire("tomorrow", &ns));
	assert_false(hv_endpoint_parse_expire(NULL, &ns));
}

static void test_endpoint_skips(void **state)
{
	struct harness h;
	harness_init(&h);
	harness_load(&h, "kubevirt/harvester-installed.json");
	harness_run(&h, EP);
	assert_int_equal(harness_status(&h, EP), STATUS_SKIP);
	assert_non_null(strstr(harness_finding(&h, EP, NULL)->message, "offline"));
	harness_clear(&h);

	harness_init(&h);
	h.live = true;
	harness_preinstall(&h);
	harness_run(&h, EP);
	assert_int_equal(harness_status(&h, EP), STATUS_SKIP);
	harness_clear(&h);

	live_harness(&h);
	harness_run(&h, EP);
	assert_int_equal(harness_status(&h, EP), STATUS_FAIL);
	assert_non_null(strstr(harness_finding(&h, EP, NULL)->message, "does not exist"));
	harness_clear(&h);

	live_harness(&h);
	harness_add(&h, "{\"apiVersion\":\"v1\",\"kind\":\"Service\",\"metadata\":{\"name\":"
			"\"harvester\",\"namespace\":\"harvester-system\"},\"spec\":{\"clusterIP\":"
			"\"None\",\"ports\":null}}");
	harness_run(&h, EP);
	assert_int_equal(harness_status(&h, EP), STATUS_FAIL);
	assert_non_null(strstr(harness_finding(&h, EP, NULL)->message, "no address"));
	harness_clear(&h);
}

static void test_endpoint_pass_sni(void **state)
{
	static struct tls_server s;
	current = &s;
	server_start(&s, "schemas");
	struct harness h;
	live_harness(&h);
	add_service(&h, "127.0.0.1", s.port);
	harness_run(&h, EP);
	const struct finding *f = harness_finding(&h, EP, "Service/harvester-system/harvester");
	assert_int_equal(f->status, STATUS_PASS);
	assert_non_null(strstr(f->message, "lists 3 snapshot.kubevirt.io schemas"));
	assert_string_equal(harness_ev(f, "sni"), "harvester.local");
	bool verified = true;
	assert_true(kv_get_bool(&f->evidence, "tls_verified", &verified));
	assert_false(verified);
	assert_non_null(strstr(harness_ev(f, "cert_subject"), "harvester.local"));
	assert_non_null(strstr(harness_ev(f, "tls_verification"), "self-signed"));
	/* what the server saw: the SNI and the Host header are the Harvester name */
	char *sni = slurp(s.dir, "sni"), *host = slurp(s.dir, "host");
	assert_string_equal(sni, "harvester.local\n");
	char want[64];
	snprintf(want, sizeof(want), "harvester.local:%d\n", s.port);
	assert_string_equal(host, want);
	free(sni);
	free(host);
	harness_clear(&h);

	/* with the CA in the ssl-certificates setting the chain and the name are verified */
	live_harness(&h);
	add_service(&h, "127.0.0.1", s.port);
	add_ssl_ca(&h, s.dir, "ca.crt");
	harness_run(&h, EP);
	f = harness_finding(&h, EP, "Service/harvester-system/harvester");
	assert_int_equal(f->status, STATUS_PASS);
	assert_true(kv_get_bool(&f->evidence, "tls_verified", &verified));
	assert_true(verified);
	harness_clear(&h);

	/* a CA that did not sign it: said in the evidence, the rest still tested */
	live_harness(&h);
	add_service(&h, "127.0.0.1", s.port);
	add_ssl_ca(&h, s.dir, "other.crt");
	harness_run(&h, EP);
	f = harness_finding(&h, EP, "Service/harvester-system/harvester");
	assert_int_equal(f->status, STATUS_PASS);
	assert_true(kv_get_bool(&f->evidence, "tls_verified", &verified));
	assert_false(verified);
	const struct value_list *att = kv_get_list(&f->evidence, "attempts");
	assert_non_null(att);
	assert_int_equal(att->n, 2);
	assert_non_null(strstr(att->items[0].s, "not verified against the ssl-certificates CA"));
	harness_clear(&h);

	/* years later the same certificate has expired: PASS becomes WARN */
	live_harness(&h);
	h.now_ns = util_now_realtime_ns() + INT64_C(3650) * 86400 * NSEC_PER_SEC;
	add_service(&h, "127.0.0.1", s.port);
	harness_run(&h, EP);
	f = harness_finding(&h, EP, "Service/harvester-system/harvester");
	assert_int_equal(f->status, STATUS_WARN);
	assert_non_null(strstr(f->message, "certificate expired"));
	harness_clear(&h);

	/* a server-url naming another host: that name is sent, the server routes it to 421 */
	live_harness(&h);
	add_service(&h, "127.0.0.1", s.port);
	harness_add(&h, "{\"apiVersion\":\"harvesterhci.io/v1beta1\",\"kind\":\"Setting\","
			"\"metadata\":{\"name\":\"server-url\"},\"value\":\"\",\"default\":"
			"\"https://hv.example.test:8443/\"}");
	harness_run(&h, EP);
	f = harness_finding(&h, EP, "Service/harvester-system/harvester");
	assert_int_equal(f->status, STATUS_FAIL);
	assert_string_equal(harness_ev(f, "sni"), "hv.example.test");
	assert_string_equal(harness_ev(f, "sni_from"), "setting server-url");
	assert_non_null(strstr(f->message, "HTTP 421"));
	harness_clear(&h);

	server_stop(&s);
	current = NULL;
}

static void run_mode(const char *mode, enum status want, const char *needle)
{
	static struct tls_server s;
	current = &s;
	server_start(&s, mode);
	struct harness h;
	live_harness(&h);
	add_service(&h, "127.0.0.1", s.port);
	harness_run(&h, EP);
	const struct finding *f = harness_finding(&h, EP, "Service/harvester-system/harvester");
	assert_int_equal(f->status, want);
	assert_non_null(strstr(f->message, needle));
	harness_clear(&h);
	server_stop(&s);
	current = NULL;
}

static void test_endpoint_answers(void **state)
{
	run_mode("empty", STATUS_WARN, "lists no snapshot.kubevirt.io schema");
	run_mode("auth", STATUS_WARN, "HTTP 401");
	run_mode("error", STATUS_FAIL, "HTTP 500");
}

static void test_endpoint_unreachable(void **state)
{
	/* refused: nothing listens (FAIL) */
	struct harness h;
	live_harness(&h);
	add_service(&h, "127.0.0.1", loopback_closed_port());
	harness_run(&h, EP);
	const struct finding *f = harness_finding(&h, EP, NULL);
	assert_int_equal(f->status, STATUS_FAIL);
	assert_non_null(strstr(f->message, "connection refused"));
	harness_clear(&h);

	/* a listener whose accept queue is full drops the SYN: a connect timeout says
	 * nothing about the Service (UNKNOWN) */
	int lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t l = sizeof(a);
	assert_int_equal(bind(lfd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(listen(lfd, 0), 0);
	assert_int_equal(getsockname(lfd, (struct sockaddr *)&a, &l), 0);
	int fill[3];
	for (size_t i = 0; i < ELEMENTSOF(fill); i++) {
		fill[i] = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		connect(fill[i], (struct sockaddr *)&a, sizeof(a));
	}
	struct timespec ts = {0, 200 * 1000 * 1000};
	nanosleep(&ts, NULL);
	live_harness(&h);
	add_service(&h, "127.0.0.1", ntohs(a.sin_port));
	harness_run(&h, EP);
	f = harness_finding(&h, EP, NULL);
	assert_int_equal(f->status, STATUS_UNKNOWN);
	assert_non_null(strstr(f->message, "timeouts"));
	harness_clear(&h);
	for (size_t i = 0; i < ELEMENTSOF(fill); i++)
		close(fill[i]);
	close(lfd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_webhooks),
	    cmocka_unit_test(test_restarts_exit1_history),
	    cmocka_unit_test(test_restarts_other),
	    cmocka_unit_test(test_restarts_garbage),
	    cmocka_unit_test(test_restarts_kubelet_stopped),
	    cmocka_unit_test(test_restarts_job_retried),
	    cmocka_unit_test(test_apiservices),
	    cmocka_unit_test(test_endpoint_expire_parse),
	    cmocka_unit_test(test_endpoint_skips),
	    cmocka_unit_test_teardown(test_endpoint_pass_sni, teardown),
	    cmocka_unit_test_teardown(test_endpoint_answers, teardown),
	    cmocka_unit_test(test_endpoint_unreachable),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
