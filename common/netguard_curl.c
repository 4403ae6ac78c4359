#include <stdio.h>
#include <curl/curl.h>

#include "netguard.h"

static curl_socket_t opensocket(void *clientp, curlsocktype purpose, struct curl_sockaddr *a)
{
	(void)clientp;
	(void)purpose;
	if (!netguard_addr_allowed(&a->addr))
		return CURL_SOCKET_BAD;
	return socket(a->family, a->socktype, a->protocol);
}

bool netguard_curl(CURL *h, const char *url, bool check_url, char *err, size_t errlen)
{
	if (!netguard_active())
		return true;
	curl_easy_setopt(h, CURLOPT_OPENSOCKETFUNCTION, opensocket);
	if (check_url && !netguard_url_allowed(url)) {
		snprintf(err, errlen, "%s: not contacted (tests allow only %s)", url,
			 getenv(NETGUARD_ENV));
		return false;
	}
	return true;
}

static curl_socket_t probe_opensocket(void *clientp, curlsocktype purpose, struct curl_sockaddr *a)
{
	(void)purpose;
	if (!netguard_probe_addr_allowed(&a->addr)) {
		if (netguard_is_metadata_addr(&a->addr))
			*(bool *)clientp = true;
		return CURL_SOCKET_BAD;
	}
	return socket(a->family, a->socktype, a->protocol);
}

bool netguard_curl_probe(CURL *h, const char *url, bool *refused, char *err, size_t errlen)
{
	*refused = false;
	curl_easy_setopt(h, CURLOPT_OPENSOCKETFUNCTION, probe_opensocket);
	curl_easy_setopt(h, CURLOPT_OPENSOCKETDATA, refused);
	if (netguard_active() && !netguard_url_allowed(url)) {
		snprintf(err, errlen, "%s: not contacted (tests allow only %s)", url,
			 getenv(NETGUARD_ENV));
		return false;
	}
	return true;
}
