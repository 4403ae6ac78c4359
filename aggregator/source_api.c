#include <errno.h>
#include <stdio.h>
#include "source.h"

int kube_client_new_kubeconfig(const char *path, struct kube_client **ret, char *err, size_t errlen)
{
	snprintf(err, errlen, "%s: the live API client is not in this build yet", path);
	return -EOPNOTSUPP;
}

int kube_client_new_in_cluster(struct kube_client **ret, char *err, size_t errlen)
{
	snprintf(err, errlen, "the live API client is not in this build yet");
	return -EOPNOTSUPP;
}

void kube_client_free(struct kube_client *kc)
{
}

const char *kube_client_server(const struct kube_client *kc)
{
	return "";
}

int source_api_load(struct cluster_state *cs, struct kube_client *kc, char *err, size_t errlen)
{
	snprintf(err, errlen, "the live API client is not in this build yet");
	return -EOPNOTSUPP;
}

int collect_write(const struct cluster_state *cs, const char *dir, char *err, size_t errlen)
{
	snprintf(err, errlen, "collect is not in this build yet");
	return -EOPNOTSUPP;
}
