/*
 * A userspace NFSv4 probe of one export with libnfs: the data-plane half of
 * host.nfs.probe (SPEC §4.1), written so that the daemon can drive it later.
 *
 * The probe mounts the export with libnfs (never the kernel), reads the
 * attributes of its root (GETATTR), and for a canary export only creates a
 * uniquely named file, writes a few bytes, reads them back through a fresh
 * OPEN, compares and removes the file. Everything runs under one deadline of
 * our own: libnfs 4.0's nfs_set_timeout() bounds RPCs on an established
 * connection but not the TCP connect (a SYN that is never answered hangs the
 * sync calls for minutes). So the probe first connects a socket of its own
 * (non-blocking, polled), then drives libnfs's async API with poll() and gives
 * up at the deadline whatever libnfs is waiting for — the same shape the
 * daemon's libevent loop will need.
 *
 * Protocol, said plainly: libnfs 4.0 speaks NFSv4.0 only (SETCLIENTID, no
 * sessions). A server that refuses minor version 0 — Longhorn's
 * share-manager runs NFS-Ganesha with "Minor_Versions = 1, 2" — answers the
 * mount with NFS4ERR_MINOR_VERS_MISMATCH. The probe then asks the server which
 * minor versions it accepts with session-less COMPOUNDs (a server that speaks
 * 4.N answers NFS4ERR_OP_NOT_IN_SESSION rather than MINOR_VERS_MISMATCH) and
 * reports NFS_PROBE_V40_REFUSED: the server is alive and answering NFSv4 on
 * the port, but the export itself could not be checked.
 */
#pragma once
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define NFS_PROBE_DEFAULT_PORT 2049
#define NFS_PROBE_URL_MAX      1024
#define NFS_PROBE_HOST_MAX     253

/* nfs://HOST[:PORT]/EXPORT, as Longhorn writes a volume's shareEndpoint. */
struct nfs_probe_url {
	char host[NFS_PROBE_HOST_MAX + 1]; /* an IPv6 literal without its brackets */
	bool host_is_v6;
	uint16_t port; /* NFS_PROBE_DEFAULT_PORT unless the URL names one */
	bool port_given;
	char export_path[NFS_PROBE_URL_MAX]; /* absolute, "//" collapsed, no trailing "/" */
};

/*
 * Parse and validate an endpoint URL. Returns 0, or -EINVAL with a one-line
 * reason in err (the URL is not repeated there). Queries and fragments are
 * refused: libnfs would read them as its own options.
 */
int nfs_probe_url_parse(const uint8_t *buf, size_t len, struct nfs_probe_url *ret, char *err,
			size_t errlen);

/*
 * The Longhorn volume an export belongs to: Longhorn exports volume V as
 * "/V" (the share-manager's Pseudo path). Writes V to buf and returns true
 * when the export is one path component that is a valid volume name.
 */
bool nfs_probe_url_volume(const struct nfs_probe_url *u, char *buf, size_t len);

enum nfs_probe_step {
	NFS_STEP_RESOLVE, /* host name to address */
	NFS_STEP_CONNECT, /* TCP connection */
	NFS_STEP_MOUNT,	  /* NFSv4.0 SETCLIENTID + LOOKUP of the export */
	NFS_STEP_GETATTR, /* attributes of the export root */
	NFS_STEP_CREATE,  /* canary: exclusive create of a new file */
	NFS_STEP_WRITE,	  /* canary: WRITE + COMMIT + CLOSE */
	NFS_STEP_READ,	  /* canary: OPEN for reading + READ + CLOSE */
	NFS_STEP_COMPARE, /* canary: the bytes read are the bytes written */
	NFS_STEP_REMOVE,  /* canary: REMOVE of the file */
	NFS_STEP_DONE,
};

enum nfs_probe_outcome {
	NFS_PROBE_OK,
	NFS_PROBE_NFS_ERROR,	/* the server answered with an NFS error (nfs_status) */
	NFS_PROBE_REFUSED,	/* TCP connection refused */
	NFS_PROBE_SOCKET_ERROR, /* another socket error: no route, unreachable (sock_errno) */
	NFS_PROBE_DISCONNECTED, /* the server closed the connection */
	NFS_PROBE_TIMEOUT,	/* the deadline passed; tcp_connected says how far it got */
	NFS_PROBE_RESOLVE,	/* the host name did not resolve */
	NFS_PROBE_V40_REFUSED,	/* the server answers NFSv4 but refuses minor version 0 */
	NFS_PROBE_MISMATCH,	/* canary: the bytes read back differ from those written */
	NFS_PROBE_SHORT_IO,	/* canary: the server wrote or read fewer bytes than asked */
	NFS_PROBE_INTERNAL,	/* libnfs could not set up a context or queue a call */
};

struct nfs_probe_result {
	enum nfs_probe_outcome outcome;
	enum nfs_probe_step step; /* the step that failed; NFS_STEP_DONE when OK */
	char address[64];	  /* the numeric address probed ("" before resolution) */
	int sock_errno;		  /* socket error behind REFUSED/SOCKET_ERROR, else 0 */
	bool tcp_connected;	  /* a TCP connection was established */
	char nfs_error[256];	  /* libnfs's error string, verbatim */
	char nfs_status[48];	  /* the NFS4ERR_* name in it, or "" */
	int64_t limit_ms;	  /* the time this probe was given */
	int64_t elapsed_ms;
	int64_t connect_ms, mount_ms, getattr_ms; /* -1 when not reached */
	bool have_root;				  /* root_* are set */
	uint32_t root_mode, root_uid, root_gid;
	uint64_t root_ino;
	/* The minor versions the server accepted (bit N = NFSv4.N); only after V40_REFUSED. */
	unsigned server_minors, minors_probed;
	/* Canary only. */
	char canary_file[128];	 /* export-relative path of the file */
	int64_t canary_ms;	 /* create to remove, -1 when not reached */
	size_t canary_bytes;	 /* bytes written */
	bool canary_left_behind; /* created but not removed */
};

/*
 * Probe u until deadline_ns (CLOCK_MONOTONIC, as util_now_mono_ns()). Never
 * writes unless canary is true. Always fills ret; the result's outcome tells
 * what happened, and no call here blocks past the deadline.
 */
void nfs_probe_run(const struct nfs_probe_url *u, int64_t deadline_ns, bool canary,
		   struct nfs_probe_result *ret);

const char *nfs_probe_step_name(enum nfs_probe_step s);
const char *nfs_probe_outcome_name(enum nfs_probe_outcome o);
/* The NFSv4 minor version libnfs speaks (0): reported as "4.0" in evidence. */
#define NFS_PROBE_CLIENT_MINOR 0
