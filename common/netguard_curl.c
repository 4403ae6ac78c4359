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
