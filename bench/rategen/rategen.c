// rategen: a constant-rate HTTP/1.1 load generator in the manner of wrk2 (Gil Tene's fork of wrk),
// for latency at a fixed request rate, corrected for coordinated omission.
//
// Why it exists: wrk2 is not packaged for Debian and cannot be fetched here; oha (crates.io), the
// other corrected generator we have, paces with tokio's 1 ms timer wheel and, on this 2-core machine,
// showed a p99 of 7 ms against nginx's fixed response at 10,000 req/s, which hides the figures we
// need to see (targets of 2 ms). This is one epoll thread, non-blocking sockets, a request schedule
// kept in CLOCK_MONOTONIC nanoseconds, and no allocation after start.
//
// Model (wrk2's): the run has one global schedule, request n intended at start + n / rate; slot n goes
// to connection n % conns. A connection sends its next request when its slot is due and its previous
// response is complete (no pipelining). Latency = response complete - intended send time, so a stall
// of the server (or of this program) shows in full in every request it delayed.
//
// Usage: rategen -u http://127.0.0.1:PORT/path?query -R RATE -d SECONDS [-c CONNS] [-m METHOD]
//                [-b BODYFILE] [-K KEYS] [-P PREFIX]
//   the target's "{key}" is replaced per request: with -K N a uniform random integer in [0, N),
//   else a fresh 12-digit random number; PREFIX goes before it.
// Output (stdout): one line "RESULT rate=... sent=... ok=... p50=... p90=... p99=... p999=... p9999=...
//   max=... errors=... status_2xx=... status_other=..." (latencies in microseconds), then
//   "STATUS code=count ..." and one "SECOND t p99_us max_us count" line per second of the run.
// Build: cc -O2 -o rategen rategen.c   (bench/rate-bench.sh does it).
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MAX_CONNS 1024
#define RBUF 65536
#define SBUF 65536

// Latency histogram: microseconds, log-linear buckets (64 sub-buckets per power of two), so every
// value is kept within 1.6% (HdrHistogram's idea with 2 significant digits).
#define SUB 64
#define POWERS 40
static uint64_t hist[POWERS * SUB];
static uint64_t hist_total;
static uint64_t lat_max;

static int bucket_of(uint64_t v) {
    if (v < SUB) return (int) v;
    int p = 63 - __builtin_clzll(v);          // v in [2^p, 2^(p+1)), p >= 6
    int shift = p - 5;                         // keep 6 significant bits: v >> shift in [32, 64)
    int idx = shift * (SUB / 2) + (int) (v >> shift);
    return idx < POWERS * SUB ? idx : POWERS * SUB - 1;
}
static uint64_t value_of(int idx) {            // the largest value of a bucket
    if (idx < SUB) return (uint64_t) idx;
    int shift = idx / (SUB / 2) - 1;
    int top = idx - shift * (SUB / 2);         // in [32, 64)
    return ((uint64_t) (top + 1) << shift) - 1;
}
static void record(uint64_t us) {
    hist[bucket_of(us)]++;
    hist_total++;
    if (us > lat_max) lat_max = us;
}
static uint64_t percentile(double q) {
    uint64_t want = (uint64_t) (q * (double) hist_total);
    if (want >= hist_total) want = hist_total - 1;
    uint64_t seen = 0;
    for (int i = 0; i < POWERS * SUB; i++) {
        seen += hist[i];
        if (seen > want) return value_of(i) < lat_max ? value_of(i) : lat_max;
    }
    return lat_max;
}

// Per-second windows: p99 and max of the responses completed in each second of the run.
#define MAX_SECONDS 3600
static uint32_t sec_count[MAX_SECONDS];
static uint64_t sec_max[MAX_SECONDS];
static uint16_t sec_hist[MAX_SECONDS][64];     // coarse: bucket = log2(us)

struct conn {
    int fd;
    int busy;                                  // a request is out
    uint64_t intended;                         // intended send time of the request out, ns
    char rbuf[RBUF];
    int rlen;
    char sbuf[SBUF];
    int slen, soff;
};

static struct conn conns[MAX_CONNS];
static int nconns = 64;
static double rate = 1000;
static int seconds = 10;
static char method[16] = "GET";
static char host[256] = "127.0.0.1";
static int port = 80;
static char path_before[4096], path_after[4096];
static int has_key;
static long keys;
static char prefix[64] = "";
static char *body;
static long body_len;
static uint64_t status_counts[600];
static uint64_t errors, sent, ok2xx;
static uint64_t rng = 0x9E3779B97F4A7C15ULL;

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t) ts.tv_sec * 1000000000ULL + (uint64_t) ts.tv_nsec;
}
static uint64_t next_rand(void) {              // xorshift64*
    rng ^= rng >> 12; rng ^= rng << 25; rng ^= rng >> 27;
    return rng * 2685821657736338717ULL;
}

static int connect_one(struct sockaddr_in *addr) {
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    if (fd < 0) return -1;
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (connect(fd, (struct sockaddr *) addr, sizeof *addr) < 0 && errno != EINPROGRESS) {
        close(fd);
        return -1;
    }
    return fd;
}

static void build_request(struct conn *c) {
    char key[96];
    if (has_key) {
        if (keys > 0) snprintf(key, sizeof key, "%s%lu", prefix, (unsigned long) (next_rand() % (uint64_t) keys));
        else snprintf(key, sizeof key, "%s%012lu", prefix, (unsigned long) (next_rand() % 1000000000000ULL));
    } else {
        key[0] = 0;
    }
    int n = snprintf(c->sbuf, SBUF, "%s %s%s%s HTTP/1.1\r\nHost: %s:%d\r\n", method, path_before, key, path_after, host, port);
    if (body) {
        n += snprintf(c->sbuf + n, SBUF - n, "Content-Length: %ld\r\nContent-Type: application/octet-stream\r\n", body_len);
    }
    n += snprintf(c->sbuf + n, SBUF - n, "\r\n");
    if (body && n + body_len < SBUF) {
        memcpy(c->sbuf + n, body, body_len);
        n += (int) body_len;
    }
    c->slen = n;
    c->soff = 0;
}

static int flush_send(struct conn *c) {
    while (c->soff < c->slen) {
        ssize_t w = send(c->fd, c->sbuf + c->soff, c->slen - c->soff, MSG_NOSIGNAL);
        if (w < 0) {
            if (errno == EAGAIN) return 0;
            return -1;
        }
        c->soff += (int) w;
    }
    return 0;
}

// Returns 1 when a complete response is in rbuf (and consumes it), 0 if more is needed, -1 on error.
static int parse_response(struct conn *c, int *status) {
    char *end = memmem(c->rbuf, c->rlen, "\r\n\r\n", 4);
    if (!end) return c->rlen >= RBUF ? -1 : 0;
    int head = (int) (end - c->rbuf) + 4;
    if (c->rlen < 12 || memcmp(c->rbuf, "HTTP/1.", 7) != 0) return -1;
    *status = atoi(c->rbuf + 9);
    long clen = 0;
    for (char *p = c->rbuf; p < end; p++) {
        if ((p == c->rbuf || p[-1] == '\n') && strncasecmp(p, "content-length:", 15) == 0) {
            clen = atol(p + 15);
            break;
        }
    }
    long total = head + clen;
    if (total > RBUF) return -1;
    if (c->rlen < total) return 0;
    memmove(c->rbuf, c->rbuf + total, c->rlen - total);
    c->rlen -= (int) total;
    return 1;
}

int main(int argc, char **argv) {
    const char *url = NULL;
    const char *body_file = NULL;
    int opt;
    while ((opt = getopt(argc, argv, "u:R:d:c:m:b:K:P:")) != -1) {
        switch (opt) {
            case 'u': url = optarg; break;
            case 'R': rate = atof(optarg); break;
            case 'd': seconds = atoi(optarg); break;
            case 'c': nconns = atoi(optarg); break;
            case 'm': snprintf(method, sizeof method, "%s", optarg); break;
            case 'b': body_file = optarg; break;
            case 'K': keys = atol(optarg); break;
            case 'P': snprintf(prefix, sizeof prefix, "%s", optarg); break;
            default: fprintf(stderr, "usage: see the head of rategen.c\n"); return 2;
        }
    }
    if (!url || strncmp(url, "http://", 7) != 0 || nconns < 1 || nconns > MAX_CONNS || rate <= 0
            || seconds < 1 || seconds > MAX_SECONDS) {
        fprintf(stderr, "rategen: need -u http://host:port/path, -R rate > 0, -d 1..%d s, -c 1..%d\n", MAX_SECONDS, MAX_CONNS);
        return 2;
    }
    const char *h = url + 7;
    const char *slash = strchr(h, '/');
    const char *colon = memchr(h, ':', slash ? (size_t) (slash - h) : strlen(h));
    if (!slash || !colon) { fprintf(stderr, "rategen: url needs host:port/path\n"); return 2; }
    snprintf(host, sizeof host, "%.*s", (int) (colon - h), h);
    port = atoi(colon + 1);
    const char *k = strstr(slash, "{key}");
    if (k) {
        has_key = 1;
        snprintf(path_before, sizeof path_before, "%.*s", (int) (k - slash), slash);
        snprintf(path_after, sizeof path_after, "%s", k + 5);
    } else {
        snprintf(path_before, sizeof path_before, "%s", slash);
    }
    if (body_file) {
        FILE *f = fopen(body_file, "rb");
        if (!f) { perror(body_file); return 2; }
        fseek(f, 0, SEEK_END); body_len = ftell(f); fseek(f, 0, SEEK_SET);
        body = malloc(body_len + 1);
        if (fread(body, 1, body_len, f) != (size_t) body_len) { perror("read body"); return 2; }
        fclose(f);
    }
    rng ^= (uint64_t) now_ns();

    struct sockaddr_in addr = {0};
    addr.sin_family = AF_INET;
    addr.sin_port = htons((uint16_t) port);
    if (inet_pton(AF_INET, host, &addr.sin_addr) != 1) { fprintf(stderr, "rategen: host must be an IPv4 address\n"); return 2; }
    int ep = epoll_create1(0);
    for (int i = 0; i < nconns; i++) {
        conns[i].fd = connect_one(&addr);
        if (conns[i].fd < 0) { perror("connect"); return 1; }
        struct epoll_event ev = {.events = EPOLLIN | EPOLLOUT | EPOLLET, .data.u32 = (uint32_t) i};
        epoll_ctl(ep, EPOLL_CTL_ADD, conns[i].fd, &ev);
    }
    uint64_t interval = (uint64_t) (1e9 / rate);
    uint64_t start = now_ns() + 10000000ULL;  // 10 ms for the connections to open
    uint64_t deadline = start + (uint64_t) seconds * 1000000000ULL;
    uint64_t next_slot = 0;                    // the next request number to hand out
    // pending: slots handed to a busy connection wait in a per-connection queue (counts only: the
    // intended times are slot numbers, kept in a ring per connection)
    static uint64_t queue[MAX_CONNS][64];
    static int qhead[MAX_CONNS], qlen[MAX_CONNS];
    struct epoll_event events[MAX_CONNS];
    uint64_t dropped = 0;

    for (;;) {
        uint64_t now = now_ns();
        // hand out every slot now due, round robin, and start the ones whose connection is idle
        while (start + next_slot * interval <= now && start + next_slot * interval < deadline) {
            int i = (int) (next_slot % (uint64_t) nconns);
            if (qlen[i] < 64) {
                queue[i][(qhead[i] + qlen[i]) % 64] = next_slot;
                qlen[i]++;
            } else {
                dropped++;                     // this connection is hopelessly behind
            }
            next_slot++;
        }
        for (int i = 0; i < nconns; i++) {
            struct conn *c = &conns[i];
            if (!c->busy && qlen[i] > 0) {
                uint64_t slot = queue[i][qhead[i]];
                qhead[i] = (qhead[i] + 1) % 64;
                qlen[i]--;
                c->intended = start + slot * interval;
                build_request(c);
                c->busy = 1;
                sent++;
                if (flush_send(c) < 0) { errors++; c->busy = 0; }
            }
        }
        if (now >= deadline) {
            int out = 0;
            for (int i = 0; i < nconns; i++) out += conns[i].busy;
            if (out == 0 || now >= deadline + 2000000000ULL) break;   // answers get 2 s to arrive
        }
        uint64_t next_due = start + next_slot * interval;
        int timeout_ms = 0;
        if (next_due > now) {
            uint64_t wait = next_due - now;
            timeout_ms = wait >= 1000000ULL ? (int) (wait / 1000000ULL) : 0;
        }
        // short sleeps are spun in epoll_wait(0) so the schedule keeps microsecond precision
        int n = epoll_wait(ep, events, MAX_CONNS, timeout_ms > 1 ? timeout_ms - 1 : 0);
        uint64_t t = now_ns();
        for (int e = 0; e < n; e++) {
            struct conn *c = &conns[events[e].data.u32];
            if (events[e].events & EPOLLOUT) {
                if (c->busy && flush_send(c) < 0) { errors++; c->busy = 0; }
            }
            if (events[e].events & (EPOLLIN | EPOLLHUP | EPOLLERR)) {
                for (;;) {
                    ssize_t r = recv(c->fd, c->rbuf + c->rlen, RBUF - c->rlen, 0);
                    if (r > 0) {
                        c->rlen += (int) r;
                        int status;
                        int got;
                        while ((got = parse_response(c, &status)) == 1) {
                            if (!c->busy) { errors++; continue; }
                            c->busy = 0;
                            uint64_t us = t > c->intended ? (t - c->intended) / 1000 : 0;
                            record(us);
                            if (status >= 0 && status < 600) status_counts[status]++;
                            if (status >= 200 && status < 300) ok2xx++;
                            uint64_t s = (t - start) / 1000000000ULL;
                            if (t >= start && s < MAX_SECONDS) {
                                sec_count[s]++;
                                if (us > sec_max[s]) sec_max[s] = us;
                                int b = us == 0 ? 0 : 64 - __builtin_clzll(us);
                                if (sec_hist[s][b] < 65535) sec_hist[s][b]++;
                            }
                        }
                        if (got < 0) { errors++; c->rlen = 0; c->busy = 0; }
                        continue;
                    }
                    if (r == 0 || (r < 0 && errno != EAGAIN)) {   // closed: reconnect
                        errors += c->busy ? 1 : 0;
                        epoll_ctl(ep, EPOLL_CTL_DEL, c->fd, NULL);
                        close(c->fd);
                        c->fd = connect_one(&addr);
                        c->rlen = 0;
                        c->busy = 0;
                        if (c->fd >= 0) {
                            struct epoll_event ev = {.events = EPOLLIN | EPOLLOUT | EPOLLET, .data.u32 = events[e].data.u32};
                            epoll_ctl(ep, EPOLL_CTL_ADD, c->fd, &ev);
                        }
                    }
                    break;
                }
            }
        }
    }
    double elapsed = (double) (now_ns() - start) / 1e9;
    uint64_t other = 0;
    for (int s = 0; s < 600; s++) if (s < 200 || s >= 300) other += status_counts[s];
    printf("RESULT rate=%.1f sent=%lu ok=%lu p50=%lu p90=%lu p99=%lu p999=%lu p9999=%lu max=%lu errors=%lu dropped=%lu status_2xx=%lu status_other=%lu\n",
           (double) hist_total / (elapsed > seconds ? seconds : elapsed), (unsigned long) sent, (unsigned long) hist_total,
           (unsigned long) percentile(0.50), (unsigned long) percentile(0.90), (unsigned long) percentile(0.99),
           (unsigned long) percentile(0.999), (unsigned long) percentile(0.9999), (unsigned long) lat_max,
           (unsigned long) errors, (unsigned long) dropped, (unsigned long) ok2xx, (unsigned long) other);
    printf("STATUS");
    for (int s = 0; s < 600; s++) if (status_counts[s]) printf(" %d=%lu", s, (unsigned long) status_counts[s]);
    printf("\n");
    for (int s = 0; s < seconds && s < MAX_SECONDS; s++) {
        uint64_t want = (uint64_t) (0.99 * sec_count[s]), seen = 0, p99 = 0;
        for (int b = 0; b < 64; b++) {
            seen += sec_hist[s][b];
            if (seen > want) { p99 = b == 0 ? 0 : (1ULL << b) - 1; break; }
        }
        printf("SECOND %d p99_us<=%lu max_us=%lu count=%u\n", s, (unsigned long) p99, (unsigned long) sec_max[s], sec_count[s]);
    }
    return 0;
}
