/* What the two wolfSSL peers (server.c, client.c) share: their command line,
 * the wolfSSL context built from it, a send hook that counts datagrams, the
 * event lines tests read, and a loop that drives a non-blocking wolfSSL call
 * on wolfSSL's own retransmission timer until a deadline. */
#ifndef DTLSIM_WOLFSSL_PEER_H
#define DTLSIM_WOLFSSL_PEER_H

#include <netinet/in.h>

#include <wolfssl/options.h>
#include <wolfssl/ssl.h>

#define MAX_MESSAGES 64
#define MAX_CID 20

struct peer_options {
    int server;                /* which program parses: the role */
    const char *version;       /* "1.2" or "1.3" */
    const char *host;          /* server: bind; client: connect */
    int port;
    const char *cipher;        /* a wolfSSL cipher list, e.g. PSK-AES128-CCM-8 */
    unsigned char psk[64];
    unsigned psk_len;          /* 0: no PSK */
    const char *identity;
    const char *cert, *key;    /* own certificate and key (PEM) */
    const char *ca;            /* peer certificate to trust (PEM); none: no verification */
    const char *rpk;           /* peer's raw public key to pin (DER SubjectPublicKeyInfo,
                                * RFC 7250); with it --cert is ours, DER, and both
                                * sides' certificates are raw public keys */
    unsigned char cid[MAX_CID];
    int cid_len;               /* -1: no Connection ID; 0..MAX_CID: the CID we receive */
    double duration;           /* seconds until the program stops */
    int sessions;              /* server: stop after this many sessions (0: no limit) */
    const char *messages[MAX_MESSAGES];
    int n_messages;            /* client: messages to send, one record each */
    int psk_ke;                /* 1.3: the PSK alone (psk_ke), no (EC)DHE */
    int echo;                  /* server: echo each record (default) */
    double idle;               /* server: end a session this many seconds without a record (0: never) */
    long bulk_records;         /* client: send this many records, no echoes */
    int record_bytes;          /* client: bytes of each bulk record */
};

/* Fills `o` from argv or prints the usage and exits with status 2. */
void parse_options(int argc, char **argv, int server, struct peer_options *o);

/* A context for the role and version in `o` with its suites, PSK and
 * certificates; exits with a message if wolfSSL refuses any of them. */
WOLFSSL_CTX *make_context(const struct peer_options *o);

/* Applies the per-session options (CID) and makes
 * `ssl` non-blocking on the UDP socket `fd` towards `peer`. */
void prepare_session(WOLFSSL *ssl, const struct peer_options *o, int fd,
                     const struct sockaddr_in *peer);

/* Datagrams (and their UDP payload bytes) this process has handed to the
 * socket and read from it. */
extern unsigned long datagrams_sent, datagrams_received;
extern unsigned long long bytes_sent, bytes_received;

/* Milliseconds on the monotonic clock. */
long long now_ms(void);

/* Runs `op` (wolfSSL_accept, wolfSSL_connect) until it succeeds (1), fails
 * (a negative wolfSSL error) or `deadline_ms` passes (0), calling
 * wolfSSL_dtls_got_timeout whenever wolfSSL's retransmission timer expires. */
int drive(WOLFSSL *ssl, int (*op)(WOLFSSL *), long long deadline_ms);

/* Reads one application record into buf: its length, 0 at the deadline, or
 * a negative wolfSSL error (WOLFSSL_ERROR_ZERO_RETURN negated: close_notify). */
int read_record(WOLFSSL *ssl, char *buf, int size, long long deadline_ms);

/* Event lines, one per line on stdout, flushed at once. */
void print_handshake(WOLFSSL *ssl);
void print_data(const char *what, const char *buf, int len);
void print_failure(WOLFSSL *ssl, int err);

/* "measured handshake_us=… datagrams_sent=… datagrams_received=…
 * bytes_sent=… bytes_received=…": the handshake's wall time (`start_ms`
 * to now) and the traffic counted so far. */
void print_measured(long long start_us);

/* Microseconds on the monotonic clock. */
long long now_us(void);

/* Writes one application record, waiting while the socket is full. */
int write_record(WOLFSSL *ssl, const char *buf, int len, long long deadline_ms);

#endif
