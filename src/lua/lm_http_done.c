/* lm_http_done.c - the completion of one hop of a luamech.http request
 * (called by client/http_client): cookies stored, a redirect followed on the
 * pooled clients (the same op, the call's timer still running; credentials
 * only on their origin's hops) or refused (a scheme other than http and
 * https, an https -> http downgrade without allow_downgrade, a Location
 * that is not a usable URL or relative reference), or else the
 * call finished: hop counters and the timing breakdown (connect, tls, wait,
 * receive) recorded, a gzip/deflate body decoded (bounded by max_body), the
 * call timed under http.<method> (and "http <name>") with a status outside
 * `expect` counted as an error, and the response handed over by the
 * bindings' operation pattern (lua/lm_op.h: returned by the call when it
 * completed inside it, else the VU resumed), or the batch told.  It does
 * not build the first request (lm_http_req.c) nor the response table
 * (lm_http_res.c). */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "engine/vu_api.h"
#include "lua/lm_core.h"
#include "lua/lm_http_int.h"
#include "proto/url.h"

/* The timing breakdown of one hop: dns (when it waited for a host name
 * lookup: a new connection and an address older than the client's dns.ttl),
 * connect (when it opened a connection), wait (last request byte written ->
 * first response byte) and receive (first response byte -> complete), on
 * the loop's clock (uv_hrtime, as worker_now_ns), and tls (the handshake,
 * when the transport made one).  Phases of one request: recorded as
 * measured, not from the transaction's intended start (vu_record_phase). */
static void lm_http_breakdown(lm_http_op *op, int status, uint64_t now) {
    lm_http_mod *mod = op->mod;
    http_req *req = &op->req;
    vu *v = op->core.v;
    if (req->dns_ns) vu_record_phase(v, mod->t_dns, (int64_t)req->dns_ns, now, 1);
    if (req->connects) vu_record_phase(v, mod->t_connect, (int64_t)req->connect_ns, now, 1);
    if (req->tls_ns) vu_record_phase(v, mod->t_tls, (int64_t)req->tls_ns, now, 1);
    op->setup_ns += req->dns_ns + req->connect_ns + req->tls_ns + req->setup_wait_ns;
    if (status != 0 || !req->first_byte_ns) return;
    if (req->sent_ns && req->first_byte_ns >= req->sent_ns)
        vu_record_phase(v, mod->t_wait, (int64_t)(req->first_byte_ns - req->sent_ns), now, 1);
    if (now >= req->first_byte_ns) vu_record_phase(v, mod->t_receive, (int64_t)(now - req->first_byte_ns), now, 1);
}

/* Counters of one hop (a response or a failure); returns the clock read
 * its breakdown ends at. */
static uint64_t lm_http_count_hop(lm_http_op *op, int status, const hp_parser *res) {
    lm_http_mod *mod = op->mod;
    worker *w = mod->w;
    http_req *req = &op->req;
    if (req->bytes_sent) worker_count(w, mod->c_sent, (int64_t)req->bytes_sent);
    if (req->bytes_received) worker_count(w, mod->c_recv, (int64_t)req->bytes_received);
    if (req->connects) worker_count(w, mod->c_connects, req->connects);
    if (req->retried) worker_count(w, mod->c_retries, req->retried);   /* each retry, as grpc.retries */
    if (status == 0) {
        int cls = res->status / 100;
        if (cls >= 2 && cls <= 5) worker_count(w, mod->c_status[cls], 1);
    }
    uint64_t now = worker_now_ns();
    lm_http_breakdown(op, status, now);
    return now;
}

static int lm_http_expected(const lm_http_op *op, int st) {
    if (!op->has_expect) return st >= 200 && st < 400;
    if (st < 100 || st > 599) return 0;
    return (op->expect[(st - 100) >> 3] >> ((st - 100) & 7)) & 1;
}

/* Statistics of one finished call (its last hop); fills op->err on failure.
 * Its timers measure the call less the connect and TLS handshake time of
 * connections it opened (their own timers, http.connect and http.tls), as
 * k6's http_req_duration does, and less an "auto" request's wait for
 * another's HTTP/2 attempt that ended in HTTP/1.1 (req->setup_wait_ns). */
static void lm_http_account(lm_http_op *op, int status, const hp_parser *res, uint64_t now_ns) {
    lm_http_mod *mod = op->mod;
    worker *w = mod->w;
    int ok = status == 0 && lm_http_expected(op, res->status);
    const int tids[3] = {mod->tid[op->call_method], op->name_tid, op->tag_tid};
    lm_op_record_less_at(&op->core, tids, 3, op->setup_ns, ok, now_ns);
    char msg[TALLY_MSG_MAX];
    int n;
    if (status == 0) {
        if (ok) return;
        n = snprintf(msg, sizeof msg, "http.%s %s: status %d", lm_http_lower[op->call_method],
                     op->where, res->status);
    } else if (status == LM_HTTP_EREFUSED) {
        n = (int)strlen(op->err);
        memcpy(msg, op->err, sizeof msg);
    } else {
        char detail[160], why[180];
        http_client_describe(&op->req, status, detail, sizeof detail);
        client_describe(why, sizeof why, http_client_status(status), detail);
        n = snprintf(op->err, sizeof op->err, "http.%s %s: %s", lm_http_lower[op->call_method],
                     http_client_name(op->client), why);
        memcpy(msg, op->err, sizeof msg);
    }
    worker_error(w, msg, (size_t)(n < (int)sizeof msg ? n : (int)sizeof msg - 1));
}

/* where[0..wl) for a message: control bytes, '\\', '"' and bytes over 0x7e
 * as \xHH, at most cap - 1 bytes, "..." when cut. */
static void lm_http_escape(char *out, size_t cap, const char *where, size_t wl) {
    static const char hex[] = "0123456789abcdef";
    size_t n = 0;
    for (size_t i = 0; i < wl; i++) {
        unsigned char ch = (unsigned char)where[i];
        int esc = ch < 0x20 || ch > 0x7e || ch == '\\' || ch == '"';
        if (n + (esc ? 4 : 1) + 3 >= cap) {
            memcpy(out + n, "...", 3);
            n += 3;
            break;
        }
        if (esc) {
            out[n++] = '\\';
            out[n++] = 'x';
            out[n++] = hex[ch >> 4];
            out[n++] = hex[ch & 15];
        } else {
            out[n++] = (char)ch;
        }
    }
    out[n] = 0;
}

/* Refuse the redirect to `where`: op->err says why (the call's message),
 * the Location escaped and cut to fit. */
static int lm_http_refuse(lm_http_op *op, const char *why, const char *where, size_t wl) {
    char loc[100];
    lm_http_escape(loc, sizeof loc, where, wl);
    snprintf(op->err, sizeof op->err, "http.%s %s: redirect %s refused (Location: \"%s\")",
             lm_http_lower[op->call_method], http_client_name(op->client), why, loc);
    return -2;
}

/* The refusal of a Location of another scheme than http(s) (sl bytes),
 * or of "http:" / "https:" without "//". */
static int lm_http_refuse_scheme(lm_http_op *op, const char *loc, size_t ll, size_t sl) {
    char why[80];
    int web = (sl == 4 && strncasecmp(loc, "http", 4) == 0) || (sl == 5 && strncasecmp(loc, "https", 5) == 0);
    if (web) snprintf(why, sizeof why, "to a malformed %.*s URL (no \"//\" after \"%.*s:\")", (int)sl, loc, (int)sl, loc);
    else snprintf(why, sizeof why, "to scheme \"%.*s\" (only http and https are followed)", (int)(sl > 32 ? 32 : sl), loc);
    return lm_http_refuse(op, why, loc, ll);
}

/* The origin of absolute URL target (a Location, resolved): its client
 * into *c, its path and query into *p; -2 when refused (op->err). */
static int lm_http_follow_abs(lm_http_op *op, const char *loc, size_t ll, const char *target, size_t tl,
                              http_client **c, const char **p, size_t *pl) {
    url_abs a;
    if (url_split_abs(target, tl, &a) != 0) {
        const char *at = memchr(target, '@', tl);
        return lm_http_refuse(op, at ? "to a URL with user info (credentials in a URL are never sent)"
                                     : "to a URL without a host", loc, ll);
    }
    if (op->tls && a.scheme_len == 4 && !op->allow_downgrade)
        return lm_http_refuse(op, "from https to http (a downgrade; allow_downgrade = true follows it)", loc, ll);
    char err[200], why[240];
    *c = lm_http_client_host_keep(op->h, a.scheme_len == 5, a.authority, a.authority_len, op->client, err,
                                  sizeof err);
    if (!*c) {
        const char *e = strstr(err, "\": ");      /* "bad URL \"...\": why": the Location is named below */
        snprintf(why, sizeof why, "to an unusable URL (%s)", e ? e + 3 : err);
        return lm_http_refuse(op, why, loc, ll);
    }
    *p = a.rest;
    *pl = a.rest_len;
    return 0;
}

/* The Location of redirect res, resolved against the current hop, into
 * op->path, and the client for its origin into *c.  0; -1 when there is
 * none (the response is then the call's answer); -2 when it is refused
 * (op->err says why): a scheme other than http and https (file:,
 * javascript:, ...), https -> http without allow_downgrade, or a Location
 * that is not a usable http(s) URL or relative reference (empty, user
 * info, no host, a bad port or host, spaces or control bytes). */
static int lm_http_follow_location(lm_http_op *op, const hp_parser *res, http_client **c) {
    size_t ll;
    const char *loc = hp_parser_find(res, "location", &ll);
    if (!loc) return -1;
    size_t sl = url_scheme_len(loc, ll);
    if (sl && !url_is_abs(loc, ll)) return lm_http_refuse_scheme(op, loc, ll, sl);   /* "file:...", "http:x" */
    char target[8192];
    if (url_resolve(target, sizeof target, op->path, op->path_len, loc, ll, op->tls ? "https" : "http") == (size_t)-1)
        return lm_http_refuse(op, ll == 0 || loc[0] == '#' ? "to an empty Location" : "to a Location too long",
                              loc, ll);
    size_t tl = strlen(target);
    const char *p = target;
    size_t pl = tl;
    *c = op->client;
    if (url_is_abs(target, tl) && lm_http_follow_abs(op, loc, ll, target, tl, c, &p, &pl) != 0) return -2;
    if (!hp_path_valid(p, pl))
        return lm_http_refuse(op, "to an unusable URL (spaces, control bytes or a bad path)", loc, ll);
    if (lm_buf_reserve(&op->path, &op->path_cap, pl + 1) != 0) return lm_http_refuse(op, "(out of memory)", loc, ll);
    memmove(op->path, p, pl);
    op->path_len = pl;
    return 0;
}

/* 303, and 301/302 after a POST (what browsers and k6 do): the next hop is
 * a GET without a body (nor its Content-Type). */
static void lm_http_follow_method(lm_http_op *op, int st) {
    if (!((st == 303 && op->method != HP_HEAD) || ((st == 301 || st == 302) && op->method == HP_POST))) return;
    op->method = HP_GET;
    op->r.body = NULL;
    op->r.body_len = 0;
    for (size_t i = 0; i < op->nbase; i++)
        if (op->hdrs[i].name_len == 12 && strncasecmp(op->hdrs[i].name, "content-type", 12) == 0) {
            memmove(op->hdrs + i, op->hdrs + i + 1, (op->nbase - i - 1) * sizeof op->hdrs[0]);
            if (i < op->ncred) op->ncred--;
            op->nbase--;
            i--;
        }
}

/* A redirect to follow: 1 when the next hop was sent (its completion comes
 * later), 0 when the response is the call's answer (not a redirect, none
 * left, no usable Location), -1 when the redirect is refused (op->err). */
static int lm_http_follow(lm_http_op *op, int status, const hp_parser *res) {
    if (status != 0 || op->redirects_left <= 0 || op->mod->closing || !op->h->client) return 0;
    int st = res->status;
    if (st != 301 && st != 302 && st != 303 && st != 307 && st != 308) return 0;
    http_client *c;
    int rc = lm_http_follow_location(op, res, &c);
    if (rc != 0) return rc == -2 ? -1 : 0;
    lm_http_count_hop(op, status, res);
    worker_count(op->mod->w, op->mod->c_redirects, 1);
    op->redirects_left--;
    op->hops++;
    lm_http_follow_method(op, st);
    op->r.method = (hp_method)op->method;
    op->r.path = op->path;
    op->r.path_len = op->path_len;
    op->client = c;
    uint64_t id;
    op->host = lm_http_host_of(op->h, c, &op->tls, &id);
    op->foreign = id != op->origin;            /* credentials stay with their origin */
    lm_http_cookie_header(op);
    /* req.start_ns stays the call's: one deadline (timeout) for the whole chain */
    http_client_send(c, &op->req, &op->r);
    return 1;
}

/* The final response's body: decoded when gzip or deflate (op->decoded),
 * bounded by max_body; both sizes counted.  Returns status, or a failure
 * (HTTP_EPROTO with req->detail, HTTP_EBODY) when it cannot be decoded. */
static int lm_http_decode(lm_http_op *op, int status, const hp_parser *res) {
    lm_http_mod *mod = op->mod;
    if (status != 0) return status;
    size_t raw = res->body_seen, out = raw;
    size_t vl;
    const char *ce = op->req.discard_body || res->body_len == 0 ? NULL
                                                                : hp_parser_find(res, "content-encoding", &vl);
    int coding = ce ? hz_coding(ce, vl) : 0;
    if (coding > 0) {
        const char *why = NULL;
        int rc = hz_decode(&mod->hz, coding, res->body, res->body_len, op->req.body_limit, &why);
        if (rc == HZ_TOO_BIG) status = HTTP_EBODY;
        else if (rc == HZ_NOMEM) status = HTTP_ENOMEM;
        else if (rc != HZ_OK) status = HTTP_EPROTO;
        op->req.detail = why;
        op->decoded = rc == HZ_OK;
        out = rc == HZ_OK ? mod->hz.out_len : 0;
    }
    if (raw) worker_count(mod->w, mod->c_body_raw, (int64_t)raw);
    if (out) worker_count(mod->w, mod->c_body_decoded, (int64_t)out);
    return status;
}

void lm_http_on_done(http_req *req, int status, const hp_parser *res) {
    lm_http_op *op = req->data;
    lm_http_mod *mod = op->mod;
    lm_http_store_cookies(op, status, res);
    int follow = lm_http_follow(op, status, res);
    if (follow > 0) return;
    uint64_t now = lm_http_count_hop(op, status, res);
    status = follow < 0 ? LM_HTTP_EREFUSED : lm_http_decode(op, status, res);
    lm_http_account(op, status, res, op->decoded || status != 0 ? 0 : now);   /* decoding takes time: read again */
    if (op->batch) {
        lm_http_batch_done(op, status, res);
        return;
    }
    if (!op->core.in_call) lm_op_anchor(&op->core, worker_lua(mod->w), 0, 0);   /* let the object and body go */
    if (mod->closing) lm_op_drop(&op->core, 0);    /* completions from now on resume nobody */
    lua_State *L = lm_op_stack(&op->core);
    if (L) op->nres = lm_http_push(op, L, status, res);
    /* Inside the call the call returns the results; else the VU resumes
     * (deferred to the loop when this fired inside another VU's call: it
     * closed a client this VU waits on). */
    lm_op_request_done(&op->core);
}
