// rategen: a constant-rate HTTP/1.1 load generator in the manner of wrk2 (Gil Tene's fork of wrk),
// for latency at a fixed request rate, corrected for coordinated omission. `ringbase bench` runs it
// (io.ringbase.bench.RategenDriver), and so do bench/rate-bench.sh and bench/slow-replica-bench.sh.
//
// Why it exists: wrk2 is not packaged for Debian and cannot be fetched here; oha (crates.io), the
// other corrected generator we have, paces with tokio's 1 ms timer wheel and, on this 2-core machine,
// showed a p99 of 7 ms against nginx's fixed response at 10,000 req/s, and stalls of 20-100 ms each
// time the vector that holds all its results doubles (bench/RESULTS.md, 2026-11-26). This is one
// epoll thread, non-blocking sockets, a request schedule kept in CLOCK_MONOTONIC nanoseconds, and no
// allocation after start.
//
// Model (wrk2's): the run has one global schedule of round(rate * seconds) requests, request n
// intended at start + n / rate; request n goes to connection n % conns. A connection sends its next
// request when that request is due and its previous response is complete (no pipelining), so a
// connection that falls behind sends its late requests back to back. Latency = response complete -
// intended send time, so a stall of the server (or of this program) shows in full in every request
// it delayed. Nothing is sent after the schedule's end: requests a connection was still behind on
// are "unsent", and requests still unanswered -t seconds after the end count as not answered.
//
// Usage: rategen (-u URL | -f URLFILE) -R RATE -d SECONDS [-c CONNS] [-m METHOD] [-b BODYFILE]
//                [-K KEYS] [-P PREFIX] [-t GRACE_S] [-o RECORDFILE]
//        rategen -V
//   -u: http://IPV4:PORT/path?query, whose "{key}" is replaced per request: with -K N a uniform random
//       integer in [0, N), else a fresh 12-digit random number; PREFIX goes before it.
//   -f: a file of such URLs (no "{key}"), one a line, all on one host:port; each request takes one at
//       random (as oha's --urls-from-file).
//   -o: one 12-byte record per answered request, little-endian: u32 intended send time in microseconds
//       since the schedule's start, u32 latency in microseconds (saturated at 2^32-1), u16 HTTP status,
//       u16 zero. Written through a 1 MiB stdio buffer.
// Responses may have a Content-Length or be chunked (Transfer-Encoding: chunked); bodies are read and
// dropped as they arrive, so they may be of any size.
// Output (stdout): one line "RESULT rate=... sent=... ok=... p50=... p90=... p99=... p999=... p9999=...
//   max=... errors=... slots=... unsent=... status_2xx=... status_other=..." (latencies in
//   microseconds; rate = answered per second of the schedule; slots = requests in the schedule;
//   unsent = those never sent), then "STATUS code=count ..." and one "SECOND t p99_us max_us count"
//   line per second of the run (by completion time).
// Build: cc -O2 -o rategen rategen.c
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
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#define MAX_CONNS 1024
#define RBUF 65536
#define SBUF 8192
#define VERSION "rategen 2"

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

enum { P_HEAD, P_BODY, P_CHUNK_SIZE, P_CHUNK_DATA, P_CHUNK_CRLF, P_TRAILER };

struct conn {
    int fd;
    int busy;                                  // a request is out
    uint64_t slot;                             // this connection's next request number
    uint64_t intended;                         // intended send time of the request out, ns
    int state;                                 // response parser state (P_*)
    int status;                                // status of the response being read
    uint64_t remaining;                        // body or chunk bytes still to read
    char rbuf[RBUF + 64];                      // unparsed input; + 64: header matching may look past rlen
    int rlen;
    char sbuf[SBUF];                           // request line and headers; the body is shared
    int hlen;
    uint64_t soff;                             // bytes of header + body sent
};

static struct conn conns[MAX_CONNS];
static int nconns = 64;
static double rate = 1000;
static int seconds = 10;
static int grace_s = 10;
static char method[16] = "GET";
static char host[256] = "127.0.0.1";
static int port = 80;
static char path_before[4096], path_after[4096];
static int has_key;
static long keys;
static char prefix[64] = "";
static char *body;
static long body_len;
static char **url_paths;                       // -f: the path and query of each URL
static long url_count;
static FILE *records;
static uint64_t start;
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
static uint64_t slot_time(uint64_t slot) {
    return start + (uint64_t) ((double) slot * 1e9 / rate);
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
    const char *before = path_before, *after = path_after;
    if (url_count > 0) {
        before = url_paths[next_rand() % (uint64_t) url_count];
        after = "";
        key[0] = 0;
    } else if (has_key) {
        if (keys > 0) snprintf(key, sizeof key, "%s%lu", prefix, (unsigned long) (next_rand() % (uint64_t) keys));
        else snprintf(key, sizeof key, "%s%012lu", prefix, (unsigned long) (next_rand() % 1000000000000ULL));
    } else {
        key[0] = 0;
    }
    int n = snprintf(c->sbuf, SBUF, "%s %s%s%s HTTP/1.1\r\nHost: %s:%d\r\n", method, before, key, after, host, port);
    if (body) {
        n += snprintf(c->sbuf + n, SBUF - n, "Content-Length: %ld\r\nContent-Type: application/octet-stream\r\n", body_len);
    }
    n += snprintf(c->sbuf + n, SBUF - n, "\r\n");
    c->hlen = n < SBUF ? n : SBUF;
    c->soff = 0;
}

// Sends what the socket takes of the request out: 0 when all is sent or the socket is full, -1 on error.
static int flush_send(struct conn *c) {
    uint64_t total = (uint64_t) c->hlen + (uint64_t) (body ? body_len : 0);
    while (c->soff < total) {
        struct iovec iov[2];
        int n = 0;
        if (c->soff < (uint64_t) c->hlen) {
            iov[n].iov_base = c->sbuf + c->soff;
            iov[n].iov_len = (size_t) c->hlen - c->soff;
            n++;
        }
        if (body_len > 0) {
            uint64_t from = c->soff > (uint64_t) c->hlen ? c->soff - c->hlen : 0;
            iov[n].iov_base = body + from;
            iov[n].iov_len = (size_t) (body_len - from);
            n++;
        }
        struct msghdr msg = {.msg_iov = iov, .msg_iovlen = n};
        ssize_t w = sendmsg(c->fd, &msg, MSG_NOSIGNAL);
        if (w < 0) {
            if (errno == EAGAIN) return 0;
            return -1;
        }
        c->soff += (uint64_t) w;
    }
    return 0;
}

static void complete(struct conn *c, uint64_t t) {
    c->state = P_HEAD;
    if (!c->busy) { errors++; return; }        // an answer to nothing asked
    c->busy = 0;
    int status = c->status;
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
    if (records) {
        uint64_t at = c->intended > start ? (c->intended - start) / 1000 : 0;
        uint8_t r[12];
        uint32_t a = at > 0xFFFFFFFFULL ? 0xFFFFFFFFU : (uint32_t) at;
        uint32_t l = us > 0xFFFFFFFFULL ? 0xFFFFFFFFU : (uint32_t) us;
        for (int i = 0; i < 4; i++) { r[i] = (uint8_t) (a >> (8 * i)); r[4 + i] = (uint8_t) (l >> (8 * i)); }
        r[8] = (uint8_t) status; r[9] = (uint8_t) (status >> 8); r[10] = 0; r[11] = 0;
        fwrite(r, sizeof r, 1, records);
    }
}

// The header line starting at p (ending before end) names header `name` (lower case, with the colon).
static int header_is(const char *p, const char *end, const char *name) {
    size_t n = strlen(name);
    return (size_t) (end - p) >= n && strncasecmp(p, name, n) == 0;
}

// Reads the responses in rbuf, completing each whole one at time t. Returns 0, or -1 on a protocol error.
static int parse(struct conn *c, uint64_t t) {
    int pos = 0;
    for (;;) {
        int avail = c->rlen - pos;
        if (c->state == P_HEAD) {
            char *from = c->rbuf + pos;
            char *end = avail >= 4 ? memmem(from, (size_t) avail, "\r\n\r\n", 4) : NULL;
            if (!end) break;
            if (end - from < 12 || memcmp(from, "HTTP/1.", 7) != 0) return -1;
            c->status = atoi(from + 9);
            long clen = 0;
            int chunked = 0;
            for (char *p = from; p < end; p++) {
                if (p != from && p[-1] != '\n') continue;
                if (header_is(p, end, "content-length:")) clen = atol(p + 15);
                else if (header_is(p, end, "transfer-encoding:")) {
                    char *eol = memchr(p, '\r', (size_t) (end + 2 - p));
                    chunked = eol != NULL && memmem(p, (size_t) (eol - p), "chunked", 7) != NULL;
                }
            }
            pos = (int) (end - c->rbuf) + 4;
            if (chunked) c->state = P_CHUNK_SIZE;
            else if (clen > 0) { c->remaining = (uint64_t) clen; c->state = P_BODY; }
            else complete(c, t);
        } else if (c->state == P_BODY || c->state == P_CHUNK_DATA || c->state == P_CHUNK_CRLF) {
            uint64_t n = c->remaining < (uint64_t) avail ? c->remaining : (uint64_t) avail;
            pos += (int) n;
            c->remaining -= n;
            if (c->remaining > 0) break;
            if (c->state == P_BODY) complete(c, t);
            else if (c->state == P_CHUNK_DATA) { c->remaining = 2; c->state = P_CHUNK_CRLF; }
            else c->state = P_CHUNK_SIZE;
        } else {                               // P_CHUNK_SIZE or P_TRAILER: one line
            char *from = c->rbuf + pos;
            char *eol = avail >= 2 ? memmem(from, (size_t) avail, "\r\n", 2) : NULL;
            if (!eol) break;
            pos = (int) (eol - c->rbuf) + 2;
            if (c->state == P_TRAILER) {
                if (eol == from) complete(c, t);
            } else {
                char *stop;
                unsigned long long size = strtoull(from, &stop, 16);
                if (stop == from) return -1;
                if (size == 0) c->state = P_TRAILER;
                else { c->remaining = size; c->state = P_CHUNK_DATA; }
            }
        }
    }
    memmove(c->rbuf, c->rbuf + pos, (size_t) (c->rlen - pos));
    c->rlen -= pos;
    return c->rlen >= RBUF ? -1 : 0;           // a head or chunk line larger than the buffer
}

// Splits "http://IPV4:PORT/path" into host, port and the path's offset; 0 on success.
static int split_url(const char *url, char *h, size_t hsize, int *p, const char **path) {
    if (strncmp(url, "http://", 7) != 0) return -1;
    const char *a = url + 7;
    const char *slash = strchr(a, '/');
    const char *colon = memchr(a, ':', slash ? (size_t) (slash - a) : strlen(a));
    if (!slash || !colon) return -1;
    snprintf(h, hsize, "%.*s", (int) (colon - a), a);
    *p = atoi(colon + 1);
    *path = slash;
    return 0;
}

static int load_urls(const char *file) {
    FILE *f = fopen(file, "r");
    if (!f) { perror(file); return -1; }
    long cap = 1024;
    url_paths = malloc(sizeof(char *) * (size_t) cap);
    char *line = NULL;
    size_t lcap = 0;
    ssize_t len;
    while ((len = getline(&line, &lcap, f)) >= 0) {
        while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r')) line[--len] = 0;
        if (len == 0) continue;
        char h[256];
        int p;
        const char *path;
        if (split_url(line, h, sizeof h, &p, &path) != 0) {
            fprintf(stderr, "rategen: %s: not an http://IPV4:PORT/path URL: %s\n", file, line);
            return -1;
        }
        if (url_count == 0) { snprintf(host, sizeof host, "%s", h); port = p; }
        else if (strcmp(h, host) != 0 || p != port) {
            fprintf(stderr, "rategen: %s: every URL must be on %s:%d: %s\n", file, host, port, line);
            return -1;
        }
        if (url_count == cap) { cap *= 2; url_paths = realloc(url_paths, sizeof(char *) * (size_t) cap); }
        url_paths[url_count++] = strdup(path);
    }
    free(line);
    fclose(f);
    if (url_count == 0) { fprintf(stderr, "rategen: %s holds no URL\n", file); return -1; }
    return 0;
}

int main(int argc, char **argv) {
    const char *url = NULL;
    const char *url_file = NULL;
    const char *body_file = NULL;
    const char *record_file = NULL;
    int opt;
    while ((opt = getopt(argc, argv, "u:f:R:d:c:m:b:K:P:t:o:V")) != -1) {
        switch (opt) {
            case 'u': url = optarg; break;
            case 'f': url_file = optarg; break;
            case 'R': rate = atof(optarg); break;
            case 'd': seconds = atoi(optarg); break;
            case 'c': nconns = atoi(optarg); break;
            case 'm': snprintf(method, sizeof method, "%s", optarg); break;
            case 'b': body_file = optarg; break;
            case 'K': keys = atol(optarg); break;
            case 'P': snprintf(prefix, sizeof prefix, "%s", optarg); break;
            case 't': grace_s = atoi(optarg); break;
            case 'o': record_file = optarg; break;
            case 'V': printf("%s\n", VERSION); return 0;
            default: fprintf(stderr, "usage: see the head of rategen.c\n"); return 2;
        }
    }
    if ((url == NULL) == (url_file == NULL) || nconns < 1 || nconns > MAX_CONNS || rate <= 0
            || seconds < 1 || seconds > MAX_SECONDS || grace_s < 0) {
        fprintf(stderr, "rategen: need one of -u http://IPV4:PORT/path and -f URLFILE, -R rate > 0, -d 1..%d s, "
                "-c 1..%d, -t >= 0\n", MAX_SECONDS, MAX_CONNS);
        return 2;
    }
    if (url) {
        const char *path;
        if (split_url(url, host, sizeof host, &port, &path) != 0) {
            fprintf(stderr, "rategen: url needs http://IPV4:PORT/path\n");
            return 2;
        }
        const char *k = strstr(path, "{key}");
        if (k) {
            has_key = 1;
            snprintf(path_before, sizeof path_before, "%.*s", (int) (k - path), path);
            snprintf(path_after, sizeof path_after, "%s", k + 5);
        } else {
            snprintf(path_before, sizeof path_before, "%s", path);
        }
    } else if (load_urls(url_file) != 0) {
        return 2;
    }
    if (body_file) {
        FILE *f = fopen(body_file, "rb");
        if (!f) { perror(body_file); return 2; }
        fseek(f, 0, SEEK_END); body_len = ftell(f); fseek(f, 0, SEEK_SET);
        body = malloc((size_t) body_len + 1);
        if (fread(body, 1, (size_t) body_len, f) != (size_t) body_len) { perror("read body"); return 2; }
        fclose(f);
    }
    if (record_file) {
        records = fopen(record_file, "wb");
        if (!records) { perror(record_file); return 2; }
        setvbuf(records, NULL, _IOFBF, 1 << 20);
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
        conns[i].slot = (uint64_t) i;
        struct epoll_event ev = {.events = EPOLLIN | EPOLLOUT | EPOLLET, .data.u32 = (uint32_t) i};
        epoll_ctl(ep, EPOLL_CTL_ADD, conns[i].fd, &ev);
    }
    uint64_t slots = (uint64_t) (rate * seconds + 0.5);
    start = now_ns() + 10000000ULL;            // 10 ms for the connections to open
    uint64_t deadline = slot_time(slots);
    uint64_t give_up = deadline + (uint64_t) grace_s * 1000000000ULL;
    struct epoll_event events[MAX_CONNS];

    for (;;) {
        uint64_t now = now_ns();
        // send on every idle connection whose next request is due, and find when the next one falls due
        uint64_t next_due = UINT64_MAX;
        int out = 0;
        int sending = now < deadline;          // nothing is sent after the schedule's end
        for (int i = 0; i < nconns; i++) {
            struct conn *c = &conns[i];
            if (sending && !c->busy && c->fd >= 0 && c->slot < slots) {
                uint64_t due = slot_time(c->slot);
                if (due <= now) {
                    c->intended = due;
                    c->slot += (uint64_t) nconns;
                    build_request(c);
                    c->busy = 1;
                    c->state = P_HEAD;
                    sent++;
                    if (flush_send(c) < 0) { errors++; c->busy = 0; }
                } else if (due < next_due) {
                    next_due = due;
                }
            }
            out += c->busy || (sending && c->fd >= 0 && c->slot < slots);
        }
        if (out == 0 || now >= give_up) break;
        int timeout_ms = 0;
        if (next_due != UINT64_MAX && next_due > now) {
            uint64_t wait = next_due - now;
            timeout_ms = wait >= 1000000ULL ? (int) (wait / 1000000ULL) : 0;
        } else if (next_due == UINT64_MAX) {
            timeout_ms = 100;                  // only answers awaited
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
                        if (parse(c, t) < 0) { errors++; c->rlen = 0; c->busy = 0; c->state = P_HEAD; }
                        continue;
                    }
                    if (r == 0 || (r < 0 && errno != EAGAIN)) {   // closed: reconnect
                        errors += c->busy ? 1 : 0;
                        epoll_ctl(ep, EPOLL_CTL_DEL, c->fd, NULL);
                        close(c->fd);
                        c->fd = connect_one(&addr);
                        c->rlen = 0;
                        c->busy = 0;
                        c->state = P_HEAD;
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
    if (records && fclose(records) != 0) { perror(record_file); return 1; }
    uint64_t unsent = slots > sent ? slots - sent : 0;
    uint64_t other = 0;
    for (int s = 0; s < 600; s++) if (s < 200 || s >= 300) other += status_counts[s];
    printf("RESULT rate=%.1f sent=%lu ok=%lu p50=%lu p90=%lu p99=%lu p999=%lu p9999=%lu max=%lu errors=%lu slots=%lu unsent=%lu status_2xx=%lu status_other=%lu\n",
           (double) hist_total / seconds, (unsigned long) sent, (unsigned long) hist_total,
           (unsigned long) percentile(0.50), (unsigned long) percentile(0.90), (unsigned long) percentile(0.99),
           (unsigned long) percentile(0.999), (unsigned long) percentile(0.9999), (unsigned long) lat_max,
           (unsigned long) errors, (unsigned long) slots, (unsigned long) unsent, (unsigned long) ok2xx, (unsigned long) other);
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
