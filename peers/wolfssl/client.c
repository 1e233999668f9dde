/* A DTLS 1.2 / 1.3 client over wolfSSL for dtlsim's interop tests and
 * experiment 7: one handshake (its wall time and traffic printed), then
 * each --send message as one record, waiting for its echo, or --bulk
 * records sent back to back without waiting (the time to send them
 * printed); then close_notify. Prints one line per event (see peer.c) and
 * how many datagrams it sent. Exit status 0 only if every echo came back
 * (every bulk record was written). */
#include "peer.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int main(int argc, char **argv) {
    struct peer_options o;
    parse_options(argc, argv, 0, &o);
    wolfSSL_Init();
    WOLFSSL_CTX *ctx = make_context(&o);

    int fd = socket(AF_INET, SOCK_DGRAM, 0);
    struct sockaddr_in server = {.sin_family = AF_INET, .sin_port = htons(o.port)};
    if (fd < 0 || inet_pton(AF_INET, o.host, &server.sin_addr) != 1) {
        fprintf(stderr, "bad address %s\n", o.host);
        return 2;
    }
    long long deadline = now_ms() + (long long)(o.duration * 1000);
    WOLFSSL *ssl = wolfSSL_new(ctx);
    prepare_session(ssl, &o, fd, &server);

    int ok = 0;
    long long start = now_us();
    int r = drive(ssl, wolfSSL_connect, deadline);
    if (r == 1) {
        print_measured(start);
        print_handshake(ssl);
        char buf[16384];
        if (o.bulk_records) {
            memset(buf, 0, sizeof buf);
            long long sending = now_us();
            long i = 0;
            while (i < o.bulk_records && write_record(ssl, buf, o.record_bytes, deadline) > 0)
                i++;
            printf("bulk records=%ld bytes=%d send_us=%lld\n", i, o.record_bytes,
                   now_us() - sending);
            ok = i == o.bulk_records;
        }
        for (ok = ok || !o.bulk_records; ok && r < 1 + o.n_messages; r++) {
            const char *m = o.messages[r - 1];
            wolfSSL_write(ssl, m, (int)strlen(m));
            int n = read_record(ssl, buf, sizeof buf, deadline);
            if (n > 0)
                print_data("echo", buf, n);
            else
                print_failure(ssl, n), ok = 0;
        }
        if (ok)
            wolfSSL_shutdown(ssl);
    } else {
        print_failure(ssl, r);
    }
    printf("done datagrams_sent=%lu\n", datagrams_sent);
    wolfSSL_free(ssl);
    close(fd);
    wolfSSL_CTX_free(ctx);
    wolfSSL_Cleanup();
    return ok ? 0 : 1;
}
