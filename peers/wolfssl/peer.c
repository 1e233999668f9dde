/* The code server.c and client.c share; see peer.h. */
#include "peer.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

unsigned long datagrams_sent, datagrams_received;
unsigned long long bytes_sent, bytes_received;

static void usage(int server) {
    fprintf(stderr,
            "usage: %s --version 1.2|1.3 --port P [--host ADDR] --cipher LIST\n"
            "  [--psk HEX --identity ID] [--cert PEM --key PEM] [--ca PEM]\n"
            "  [--rpk PEER_SPKI_DER (then --cert is our SPKI, DER)]\n"
            "  [--cid HEX|--cid -] [--psk-mode ke|dhe_ke] [--duration SECS]%s\n",
            server ? "wolfssl-dtls-server" : "wolfssl-dtls-client",
            server ? " [--sessions N] [--echo yes|no] [--idle SECS]"
                   : " [--send MSG]... [--bulk RECORDS --record-bytes N]");
    exit(2);
}

/* Hex to bytes; -1 on an odd length, a bad digit or more than `max` bytes. */
static int from_hex(const char *hex, unsigned char *out, int max) {
    int n = (int)strlen(hex);
    if (n % 2 || n / 2 > max)
        return -1;
    for (int i = 0; i < n / 2; i++) {
        unsigned v;
        if (sscanf(hex + 2 * i, "%2x", &v) != 1)
            return -1;
        out[i] = (unsigned char)v;
    }
    return n / 2;
}

void parse_options(int argc, char **argv, int server, struct peer_options *o) {
    memset(o, 0, sizeof *o);
    o->server = server;
    o->host = "127.0.0.1";
    o->identity = "Client_identity";
    o->cid_len = -1;
    o->duration = 10;
    o->echo = 1;
    o->record_bytes = 500;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (i + 1 >= argc)
            usage(server);
        const char *v = argv[++i];
        if (!strcmp(a, "--version") && (!strcmp(v, "1.2") || !strcmp(v, "1.3")))
            o->version = v;
        else if (!strcmp(a, "--host"))
            o->host = v;
        else if (!strcmp(a, "--port") && (o->port = atoi(v)) > 0)
            ;
        else if (!strcmp(a, "--cipher"))
            o->cipher = v;
        else if (!strcmp(a, "--psk") && from_hex(v, o->psk, sizeof o->psk) > 0)
            o->psk_len = (unsigned)from_hex(v, o->psk, sizeof o->psk);
        else if (!strcmp(a, "--identity"))
            o->identity = v;
        else if (!strcmp(a, "--cert"))
            o->cert = v;
        else if (!strcmp(a, "--key"))
            o->key = v;
        else if (!strcmp(a, "--ca"))
            o->ca = v;
        else if (!strcmp(a, "--rpk"))
            o->rpk = v;
        else if (!strcmp(a, "--cid") && !strcmp(v, "-"))
            o->cid_len = 0; /* use CIDs, receive without one */
        else if (!strcmp(a, "--cid") && (o->cid_len = from_hex(v, o->cid, MAX_CID)) > 0)
            ;
        else if (!strcmp(a, "--duration") && (o->duration = atof(v)) > 0)
            ;
        else if (!strcmp(a, "--sessions") && server && (o->sessions = atoi(v)) > 0)
            ;
        else if (!strcmp(a, "--send") && !server && o->n_messages < MAX_MESSAGES)
            o->messages[o->n_messages++] = v;
        else if (!strcmp(a, "--psk-mode") && (!strcmp(v, "ke") || !strcmp(v, "dhe_ke")))
            o->psk_ke = !strcmp(v, "ke");
        else if (!strcmp(a, "--echo") && server && (!strcmp(v, "yes") || !strcmp(v, "no")))
            o->echo = !strcmp(v, "yes");
        else if (!strcmp(a, "--idle") && server && (o->idle = atof(v)) > 0)
            ;
        else if (!strcmp(a, "--bulk") && !server && (o->bulk_records = atol(v)) > 0)
            ;
        else if (!strcmp(a, "--record-bytes") && !server && (o->record_bytes = atoi(v)) > 0 &&
                 o->record_bytes <= 16384)
            ;
        else
            usage(server);
    }
    if (!o->version || !o->port || !o->cipher)
        usage(server);
}

/* The PSK callbacks hand wolfSSL the one key from the command line; the
 * server accepts only the one identity. */
static const struct peer_options *psk_options;

static unsigned int client_psk(WOLFSSL *ssl, const char *hint, char *identity,
                               unsigned int id_max, unsigned char *key,
                               unsigned int key_max) {
    (void)ssl;
    (void)hint;
    if (strlen(psk_options->identity) >= id_max || psk_options->psk_len > key_max)
        return 0;
    strcpy(identity, psk_options->identity);
    memcpy(key, psk_options->psk, psk_options->psk_len);
    return psk_options->psk_len;
}

static unsigned int server_psk(WOLFSSL *ssl, const char *identity,
                               unsigned char *key, unsigned int key_max) {
    (void)ssl;
    if (strcmp(identity, psk_options->identity) || psk_options->psk_len > key_max)
        return 0;
    memcpy(key, psk_options->psk, psk_options->psk_len);
    return psk_options->psk_len;
}

#ifdef WOLFSSL_TLS13
/* TLS 1.3 binds an external PSK to a hash, so its callbacks also name the
 * suite the key is for: the first one of --cipher. */
static char psk13_suite[64];

static unsigned int client_psk13(WOLFSSL *ssl, const char *hint, char *identity,
                                 unsigned int id_max, unsigned char *key,
                                 unsigned int key_max, const char **suite) {
    *suite = psk13_suite;
    return client_psk(ssl, hint, identity, id_max, key, key_max);
}

static unsigned int server_psk13(WOLFSSL *ssl, const char *identity, unsigned char *key,
                                 unsigned int key_max, const char **suite) {
    *suite = psk13_suite;
    return server_psk(ssl, identity, key, key_max);
}
#endif

/* wolfSSL's own UDP send and receive, counted: every call is one
 * datagram. */
static int counting_send(WOLFSSL *ssl, char *buf, int sz, void *ctx) {
    int n = EmbedSendTo(ssl, buf, sz, ctx);
    if (n > 0)
        datagrams_sent++, bytes_sent += (unsigned long long)n;
    return n;
}

static int counting_receive(WOLFSSL *ssl, char *buf, int sz, void *ctx) {
    int n = EmbedReceiveFrom(ssl, buf, sz, ctx);
    if (n > 0)
        datagrams_received++, bytes_received += (unsigned long long)n;
    return n;
}

static void must(int ok, const char *what) {
    if (ok != WOLFSSL_SUCCESS) {
        fprintf(stderr, "wolfSSL refused %s\n", what);
        exit(1);
    }
}

/* Raw public keys (RFC 7250) in both directions: our --cert is a DER
 * SubjectPublicKeyInfo, which wolfSSL loads as a raw public key, and the
 * peer's must be the pinned --rpk. */
static void use_raw_public_keys(WOLFSSL_CTX *ctx, const struct peer_options *o) {
#ifdef HAVE_RPK
    char rpk_only[] = {WOLFSSL_CERT_TYPE_RPK};
    must(wolfSSL_CTX_set_client_cert_type(ctx, rpk_only, 1), "client_certificate_type");
    must(wolfSSL_CTX_set_server_cert_type(ctx, rpk_only, 1), "server_certificate_type");
    if (o->cert)
        must(wolfSSL_CTX_use_certificate_file(ctx, o->cert, WOLFSSL_FILETYPE_ASN1), o->cert);
    unsigned char spki[512];
    FILE *f = fopen(o->rpk, "rb");
    size_t n = f ? fread(spki, 1, sizeof spki, f) : 0;
    if (f)
        fclose(f);
    if (n == 0 || n == sizeof spki)
        must(0, o->rpk);
    must(wolfSSL_CTX_set_expected_rpk(ctx, spki, (unsigned)n), o->rpk);
    wolfSSL_CTX_set_verify(ctx, WOLFSSL_VERIFY_PEER | WOLFSSL_VERIFY_FAIL_IF_NO_PEER_CERT, NULL);
#else
    (void)ctx, (void)o;
    must(0, "raw public keys (wolfSSL built without HAVE_RPK)");
#endif
}

WOLFSSL_CTX *make_context(const struct peer_options *o) {
    int v13 = !strcmp(o->version, "1.3");
    WOLFSSL_METHOD *m = o->server
        ? (v13 ? wolfDTLSv1_3_server_method() : wolfDTLSv1_2_server_method())
        : (v13 ? wolfDTLSv1_3_client_method() : wolfDTLSv1_2_client_method());
    WOLFSSL_CTX *ctx = wolfSSL_CTX_new(m);
    if (!ctx)
        must(0, "a context");
    must(wolfSSL_CTX_set_cipher_list(ctx, o->cipher), o->cipher);
    if (o->psk_len) {
        psk_options = o;
        if (o->server) {
            wolfSSL_CTX_set_psk_server_callback(ctx, server_psk);
            must(wolfSSL_CTX_use_psk_identity_hint(ctx, ""), "the PSK hint");
        } else {
            wolfSSL_CTX_set_psk_client_callback(ctx, client_psk);
        }
#ifdef WOLFSSL_TLS13
        snprintf(psk13_suite, sizeof psk13_suite, "%.*s", (int)strcspn(o->cipher, ":"), o->cipher);
        if (o->server)
            wolfSSL_CTX_set_psk_server_tls13_callback(ctx, server_psk13);
        else
            wolfSSL_CTX_set_psk_client_tls13_callback(ctx, client_psk13);
        /* psk_ke: no key share offered or accepted (RFC 8446 §4.2.9);
         * this call returns 0 on success */
        if (v13 && o->psk_ke && wolfSSL_CTX_no_dhe_psk(ctx) != 0)
            must(0, "psk_ke alone");
#endif
    }
    if (o->rpk)
        use_raw_public_keys(ctx, o);
    else if (o->cert)
        must(wolfSSL_CTX_use_certificate_file(ctx, o->cert, WOLFSSL_FILETYPE_PEM), o->cert);
    if (o->key)
        must(wolfSSL_CTX_use_PrivateKey_file(ctx, o->key, WOLFSSL_FILETYPE_PEM), o->key);
    if (o->rpk) {
        /* verified against the pinned key (wolfSSL_CTX_set_expected_rpk) */
    } else if (o->ca) {
        must(wolfSSL_CTX_load_verify_locations(ctx, o->ca, NULL), o->ca);
        wolfSSL_CTX_set_verify(ctx, WOLFSSL_VERIFY_PEER | WOLFSSL_VERIFY_FAIL_IF_NO_PEER_CERT, NULL);
    } else {
        wolfSSL_CTX_set_verify(ctx, WOLFSSL_VERIFY_NONE, NULL);
    }
    wolfSSL_CTX_SetIOSend(ctx, counting_send);
    wolfSSL_CTX_SetIORecv(ctx, counting_receive);
    return ctx;
}

void prepare_session(WOLFSSL *ssl, const struct peer_options *o, int fd,
                     const struct sockaddr_in *peer) {
    must(wolfSSL_dtls_set_peer(ssl, (void *)peer, sizeof *peer), "the peer address");
    must(wolfSSL_set_fd(ssl, fd), "the socket");
    /* Non-blocking on both sides: wolfSSL returns WANT_READ instead of
     * waiting, and drive() waits with poll() until the deadline. */
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    wolfSSL_dtls_set_using_nonblock(ssl, 1);
    if (o->cid_len >= 0) {
        must(wolfSSL_dtls_cid_use(ssl), "Connection ID");
        must(wolfSSL_dtls_cid_set(ssl, (unsigned char *)o->cid, (unsigned)o->cid_len),
             "the Connection ID");
    }
}

long long now_ms(void) {
    return now_us() / 1000;
}

long long now_us(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000000 + t.tv_nsec / 1000;
}

/* Waits until the socket is readable (1), `timer_ms` passes (0) or the
 * deadline passes (-1). */
static int wait_readable(WOLFSSL *ssl, long long timer_ms, long long deadline_ms) {
    long long left = deadline_ms - now_ms();
    if (left <= 0)
        return -1;
    struct pollfd p = {.fd = wolfSSL_get_fd(ssl), .events = POLLIN};
    int r = poll(&p, 1, (int)(timer_ms < left ? timer_ms : left));
    if (r > 0 || (r < 0 && errno == EINTR))
        return 1;
    return timer_ms < left ? 0 : -1;
}

/* wolfSSL's retransmission timer, in milliseconds; -1 when none runs.
 * After a gap in the peer's flight DTLS 1.3 wants the quick timeout (a
 * quarter of the full one, wolfSSL_dtls13_use_quick_timeout), on whose
 * expiry wolfSSL_dtls_got_timeout sends only an ACK (RFC 9147 §7.1). */
static long long retransmit_timer_ms(WOLFSSL *ssl, int handshaking) {
#ifdef WOLFSSL_DTLS13
    if (!handshaking && !wolfSSL_dtls13_has_pending_msg(ssl))
        return -1;
    if (wolfSSL_dtls13_use_quick_timeout(ssl))
        return (long long)wolfSSL_dtls_get_current_timeout(ssl) * 1000 / 4;
#else
    if (!handshaking)
        return -1;
#endif
    return (long long)wolfSSL_dtls_get_current_timeout(ssl) * 1000;
}

/* One step of a non-blocking call that wants to read: wait, and on a timer
 * expiry let wolfSSL retransmit. 1: go on; 0: deadline; <0: error. */
static int wait_step(WOLFSSL *ssl, int handshaking, long long deadline_ms) {
    long long timer = retransmit_timer_ms(ssl, handshaking);
    int w = wait_readable(ssl, timer < 0 ? 1000 : timer, deadline_ms);
    if (w < 0)
        return 0;
    if (w == 0 && timer >= 0) {
        int ret = wolfSSL_dtls_got_timeout(ssl);
        if (ret != WOLFSSL_SUCCESS) {
            int err = wolfSSL_get_error(ssl, ret);
            return err < 0 ? err : -err;
        }
    }
    return 1;
}

int drive(WOLFSSL *ssl, int (*op)(WOLFSSL *), long long deadline_ms) {
    for (;;) {
        int ret = op(ssl);
        if (ret == WOLFSSL_SUCCESS)
            return 1;
        int err = wolfSSL_get_error(ssl, ret);
        if (err != WOLFSSL_ERROR_WANT_READ && err != WOLFSSL_ERROR_WANT_WRITE)
            return err < 0 ? err : -err;
        int w = wait_step(ssl, 1, deadline_ms);
        if (w <= 0)
            return w;
    }
}

int read_record(WOLFSSL *ssl, char *buf, int size, long long deadline_ms) {
    for (;;) {
        int n = wolfSSL_read(ssl, buf, size);
        if (n > 0)
            return n;
        int err = wolfSSL_get_error(ssl, n);
        if (err != WOLFSSL_ERROR_WANT_READ && err != WOLFSSL_ERROR_WANT_WRITE)
            return err < 0 ? err : -err;
        int w = wait_step(ssl, 0, deadline_ms);
        if (w <= 0)
            return w;
    }
}

/* " cid_rx=HEX" or " cid_tx=HEX" ("-": empty or none). */
static void print_cid(WOLFSSL *ssl, int rx) {
    unsigned char *cid = NULL;
    unsigned sz = 0;
    int ok = rx ? wolfSSL_dtls_cid_get0_rx(ssl, &cid) : wolfSSL_dtls_cid_get0_tx(ssl, &cid);
    if (ok == WOLFSSL_SUCCESS && cid)
        ok = rx ? wolfSSL_dtls_cid_get_rx_size(ssl, &sz) : wolfSSL_dtls_cid_get_tx_size(ssl, &sz);
    printf(" cid_%s=", rx ? "rx" : "tx");
    if (ok != WOLFSSL_SUCCESS || !cid || !sz)
        printf("-");
    for (unsigned i = 0; cid && i < sz; i++)
        printf("%02x", cid[i]);
}

void print_handshake(WOLFSSL *ssl) {
    printf("handshake version=%s cipher=%s", wolfSSL_get_version(ssl),
           wolfSSL_get_cipher_name(ssl));
    if (wolfSSL_dtls_cid_is_enabled(ssl)) {
        print_cid(ssl, 1);
        print_cid(ssl, 0);
    } else {
        printf(" cid=off");
    }
#ifdef HAVE_RPK
    /* RFC 7250: what each side's Certificate carried (-1: no certificate) */
    int server_type = WOLFSSL_CERT_TYPE_UNKNOWN, client_type = WOLFSSL_CERT_TYPE_UNKNOWN;
    wolfSSL_get_negotiated_server_cert_type(ssl, &server_type);
    wolfSSL_get_negotiated_client_cert_type(ssl, &client_type);
    printf(" certificate_types=server:%d,client:%d", server_type, client_type);
#endif
    printf("\n");
    fflush(stdout);
}

void print_measured(long long start_us) {
    printf("measured handshake_us=%lld datagrams_sent=%lu datagrams_received=%lu "
           "bytes_sent=%llu bytes_received=%llu\n",
           now_us() - start_us, datagrams_sent, datagrams_received, bytes_sent, bytes_received);
    fflush(stdout);
}

int write_record(WOLFSSL *ssl, const char *buf, int len, long long deadline_ms) {
    for (;;) {
        int n = wolfSSL_write(ssl, buf, len);
        if (n > 0)
            return n;
        int err = wolfSSL_get_error(ssl, n);
        if (err != WOLFSSL_ERROR_WANT_WRITE && err != WOLFSSL_ERROR_WANT_READ)
            return err < 0 ? err : -err;
        long long left = deadline_ms - now_ms();
        if (left <= 0)
            return 0;
        struct pollfd p = {.fd = wolfSSL_get_fd(ssl), .events = POLLOUT};
        poll(&p, 1, (int)(left < 100 ? left : 100));
    }
}

void print_data(const char *what, const char *buf, int len) {
    printf("%s bytes=%d text=%.*s\n", what, len, len, buf);
    fflush(stdout);
}

/* The name of a TLS alert description (RFC 8446 §6), or "other". */
static const char *alert_name(int code) {
    static const struct { int code; const char *name; } names[] = {
        {0, "close_notify"},          {10, "unexpected_message"},
        {20, "bad_record_mac"},       {40, "handshake_failure"},
        {42, "bad_certificate"},      {47, "illegal_parameter"},
        {48, "unknown_ca"},           {50, "decode_error"},
        {51, "decrypt_error"},        {70, "protocol_version"},
        {80, "internal_error"},       {109, "missing_extension"},
        {115, "unknown_psk_identity"},
    };
    for (unsigned i = 0; i < sizeof names / sizeof names[0]; i++)
        if (names[i].code == code)
            return names[i].name;
    return "other";
}

/* The alerts sent and received (wolfSSL keeps the last of each) and the
 * error that ended the session. */
void print_failure(WOLFSSL *ssl, int err) {
    WOLFSSL_ALERT_HISTORY h;
    if (wolfSSL_get_alert_history(ssl, &h) == WOLFSSL_SUCCESS) {
        if (h.last_rx.code >= 0)
            printf("alert received level=%d code=%d desc=%s\n", h.last_rx.level,
                   h.last_rx.code, alert_name(h.last_rx.code));
        if (h.last_tx.code >= 0)
            printf("alert sent level=%d code=%d desc=%s\n", h.last_tx.level,
                   h.last_tx.code, alert_name(h.last_tx.code));
    }
    if (err == -WOLFSSL_ERROR_ZERO_RETURN)
        printf("closed by peer\n");
    else if (err == 0)
        printf("timeout\n");
    else
    {
        char reason[WOLFSSL_MAX_ERROR_SZ];
        printf("error code=%d reason=%s\n", err, wolfSSL_ERR_error_string((unsigned long)err, reason));
    }
    fflush(stdout);
}
