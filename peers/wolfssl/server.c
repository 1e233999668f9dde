/* A DTLS 1.2 / 1.3 echo server over wolfSSL for dtlsim's interop tests.
 * One session at a time on one UDP socket: each starts with a handshake
 * record from a new client and ends with close_notify, an error or the
 * deadline. Prints one line per event (see peer.c) and how many datagrams
 * it sent, so tests can assert on what the peer saw and did. */
#include "peer.h"

#include <arpa/inet.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define CONTENT_HANDSHAKE 22

/* Waits for the first datagram of a new session and returns its sender;
 * drops anything else (late retransmissions, records of an ended session).
 * 0 at the deadline. */
static int next_client(int fd, long long deadline_ms, struct sockaddr_in *peer) {
    for (;;) {
        long long left = deadline_ms - now_ms();
        struct pollfd p = {.fd = fd, .events = POLLIN};
        if (left <= 0 || poll(&p, 1, (int)left) <= 0)
            return 0;
        unsigned char first = 0;
        socklen_t len = sizeof *peer;
        if (recvfrom(fd, &first, 1, MSG_PEEK, (struct sockaddr *)peer, &len) < 0)
            continue;
        if (first == CONTENT_HANDSHAKE)
            return 1;
        recv(fd, &first, 1, 0);
    }
}

/* Echoes every record (or, without `echo`, only reads it) until the
 * session ends (close_notify, an error, the deadline, or `idle_ms` without
 * a record); prints why it ended and how many records came. */
static void serve(WOLFSSL *ssl, int echo, long long idle_ms, long long deadline_ms) {
    long records = 0;
    char buf[16384];
    for (;;) {
        long long until = idle_ms > 0 && now_ms() + idle_ms < deadline_ms ? now_ms() + idle_ms
                                                                          : deadline_ms;
        int n = read_record(ssl, buf, sizeof buf, until);
        if (n <= 0) {
            printf("records received=%ld\n", records);
            print_failure(ssl, n);
            if (n == -WOLFSSL_ERROR_ZERO_RETURN)
                wolfSSL_shutdown(ssl);
            return;
        }
        records++;
        if (!echo)
            continue;
        print_data("data", buf, n);
        wolfSSL_write(ssl, buf, n);
    }
}

int main(int argc, char **argv) {
    struct peer_options o;
    parse_options(argc, argv, 1, &o);
    wolfSSL_Init();
    WOLFSSL_CTX *ctx = make_context(&o);

    int fd = socket(AF_INET, SOCK_DGRAM, 0);
    struct sockaddr_in local = {.sin_family = AF_INET, .sin_port = htons(o.port)};
    if (fd < 0 || inet_pton(AF_INET, o.host, &local.sin_addr) != 1 ||
        bind(fd, (struct sockaddr *)&local, sizeof local) < 0) {
        perror("bind");
        return 1;
    }
    printf("listening port=%d\n", o.port);
    fflush(stdout);

    long long deadline = now_ms() + (long long)(o.duration * 1000);
    int sessions = 0;
    struct sockaddr_in peer;
    while ((!o.sessions || sessions < o.sessions) && next_client(fd, deadline, &peer)) {
        WOLFSSL *ssl = wolfSSL_new(ctx);
        prepare_session(ssl, &o, fd, &peer);
        int r = drive(ssl, wolfSSL_accept, deadline);
        if (r == 1) {
            print_handshake(ssl);
            serve(ssl, o.echo, (long long)(o.idle * 1000), deadline);
        } else {
            print_failure(ssl, r);
        }
        wolfSSL_free(ssl);
        sessions++;
        printf("session end datagrams_sent=%lu\n", datagrams_sent);
        fflush(stdout);
    }
    printf("done sessions=%d datagrams_sent=%lu\n", sessions, datagrams_sent);
    close(fd);
    wolfSSL_CTX_free(ctx);
    wolfSSL_Cleanup();
    return 0;
}
