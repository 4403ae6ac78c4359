#include "hv_endpoint.h"
#include "netguard.h"

#include <curl/curl.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "util.h"

struct sink {
	struct hv_endpoint_resp *r;
	size_t max;
};

static size_t on_body(char *data, size_t size, size_t n, void *userdata)
{
	struct sink *s = userdata;
	size_t len = size * n, room = s->max - s->r->body_len;
	if (len > room) {
		s->r->truncated = true;
		len = room;
	}
	if (len > 0) {
		s->r->body = xrealloc(s->r->body, s->r->body_len + len + 1);
		memcpy(s->r->body + s->r->body_len, data, len);
		s->r->body_len += len;
		s->r->body[s->r->body_len] = '\0';
	}
	/* Stop reading at the cap: a short write makes curl end the transfer. */
	return s->r->truncated ? len : size * n;
}

static void cert_fields(CURL *c, struct hv_endpoint_resp *r)
{
	struct curl_certinfo *ci = NULL;
	if (curl_easy_getinfo(c, CURLINFO_CERTINFO, &ci) != CURLE_OK || !ci || ci->num_of_certs < 1)
		return;
	for (struct curl_slist *l = ci->certinfo[0]; l; l = l->next) {
		const char *d = l->data;
		if (startswith(d, "Subject:") && !r->cert_subject)
			r->cert_subject = xstrdup(d + strlen("Subject:"));
		else if (startswith(d, "Issuer:") && !r->cert_issuer)
			r->cert_issuer = xstrdup(d + strlen("Issuer:"));
		else if (startswith(d, "Expire date:") && !r->cert_expire)
			r->cert_expire = xstrdup(d + strlen("Expire date:"));
	}
}

static void set_tls(CURL *c, const struct hv_endpoint_req *rq)
{
	if (rq->ca_pem) {
		struct curl_blob blob = {(void *)rq->ca_pem, strlen(rq->ca_pem), CURL_BLOB_COPY};
		curl_easy_setopt(c, CURLOPT_CAINFO_BLOB, &blob);
		curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 1L);
		curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 2L);
	} else {
		curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 0L);
		curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 0L);
	}
	curl_easy_setopt(c, CURLOPT_CERTINFO, 1L);
}

int hv_endpoint_get(const struct hv_endpoint_req *rq, struct hv_endpoint_resp *ret)
{
	*ret = (struct hv_endpoint_resp){0};
	CURL *c = curl_easy_init();
	if (!c) {
		snprintf(ret->error, sizeof(ret->error), "cannot initialise libcurl");
		ret->curl_code = CURLE_FAILED_INIT;
		return -EIO;
	}
	bool v6 = strchr(rq->ip, ':') != NULL;
	_cleanup_free_ char *url = xasprintf("https://%s:%d%s", rq->host, rq->port, rq->path);
	_cleanup_free_ char *resolve =
	    xasprintf("%s:%d:%s%s%s", rq->host, rq->port, v6 ? "[" : "", rq->ip, v6 ? "]" : "");
	struct curl_slist *rl = curl_slist_append(NULL, resolve);
	char errbuf[CURL_ERROR_SIZE] = "";
	struct sink sink = {ret, rq->max_body};

	curl_easy_setopt(c, CURLOPT_URL, url);
	/* The name is pinned by CURLOPT_RESOLVE: only the address is guarded. */
	netguard_curl(c, url, false, errbuf, sizeof(errbuf));
	curl_easy_setopt(c, CURLOPT_RESOLVE, rl);
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "https");
	curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_NOPROXY, "*");
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, rq->connect_timeout_ms);
	curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, rq->timeout_ms);
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, &sink);
	curl_easy_setopt(c, CURLOPT_USERAGENT, "hvready-aggregator/" HVREADY_VERSION);
	set_tls(c, rq);

	CURLcode rc = curl_easy_perform(c);
	if (rc == CURLE_WRITE_ERROR && ret->truncated)
		rc = CURLE_OK; /* we stopped reading at the cap ourselves */
	ret->curl_code = (int)rc;
	curl_off_t connect_us = 0;
	long oserr = 0;
	curl_easy_getinfo(c, CURLINFO_CONNECT_TIME_T, &connect_us);
	curl_easy_getinfo(c, CURLINFO_OS_ERRNO, &oserr);
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &ret->http_status);
	ret->connected = connect_us > 0;
	ret->os_errno = (int)oserr;
	cert_fields(c, ret);
	ret->verified = rc == CURLE_OK && rq->ca_pem;
	if (rc != CURLE_OK)
		snprintf(ret->error, sizeof(ret->error), "%s",
			 *errbuf ? errbuf : curl_easy_strerror(rc));
	curl_slist_free_all(rl);
	curl_easy_cleanup(c);
	if (!ret->body)
		ret->body = xstrdup("");
	return rc == CURLE_OK ? 0 : -EIO;
}

void hv_endpoint_resp_clear(struct hv_endpoint_resp *r)
{
	free(r->body);
	free(r->cert_subject);
	free(r->cert_issuer);
	free(r->cert_expire);
	*r = (struct hv_endpoint_resp){0};
}

bool hv_endpoint_parse_expire(const char *s, int64_t *ret_ns)
{
	struct tm tm = {0};
	if (!s)
		return false;
	const char *end = strptime(s, "%b %d %H:%M:%S %Y", &tm);
	if (!end)
		end = strptime(s, "%Y-%m-%d %H:%M:%S", &tm);
	if (!end)
		return false;
	/* RFC 5280's "no expiration" is 9999-12-31, past int64 nanoseconds
	 * (2262): such a date is as late as this clock can say. */
	int64_t sec = (int64_t)timegm(&tm);
	*ret_ns = sec > INT64_MAX / NSEC_PER_SEC ? INT64_MAX : sec * NSEC_PER_SEC;
	return true;
}
