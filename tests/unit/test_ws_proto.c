/* test_ws_proto.c - proto/ws_proto.c against RFC 6455's own examples and
 * its rules: the sample key's accept (section 1.3), the unmasked and masked
 * "Hello" frames and the fragmented one (section 5.7), the 126/127 length
 * forms, each refusal of a server frame, reassembly limits, UTF-8, close
 * payloads, URLs, the Upgrade request and the 101 check. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "proto/ws_proto.h"

static const ws_limits lim = {1 << 20};

static void test_accept_rfc_sample(void **s) {
    (void)s;
    char out[WS_ACCEPT_LEN + 1];
    assert_int_equal(ws_accept_of("dGhlIHNhbXBsZSBub25jZQ==", 24, out), 0);
    assert_string_equal(out, "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=");
    const uint8_t nonce[16] = {'t', 'h', 'e', ' ', 's', 'a', 'm', 'p', 'l', 'e', ' ', 'n', 'o', 'n', 'c', 'e'};
    char key[WS_KEY_LEN + 1];
    ws_key_make(nonce, key);
    assert_string_equal(key, "dGhlIHNhbXBsZSBub25jZQ==");
}

static void test_rfc_frames(void **s) {
    (void)s;
    ws_frame f;
    /* unmasked "Hello" */
    assert_int_equal(ws_frame_parse("\x81\x05Hello", 7, &lim, &f), WS_FRAME);
    assert_int_equal(f.opcode, WS_OP_TEXT);
    assert_int_equal(f.fin, 1);
    assert_int_equal(f.size, 7);
    assert_memory_equal(f.payload, "Hello", 5);
    /* the masked "Hello" is what a client sends: built byte for byte */
    char out[32];
    const uint8_t mask[4] = {0x37, 0xfa, 0x21, 0x3d};
    assert_int_equal(ws_frame_build(out, WS_OP_TEXT, "Hello", 5, mask), 11);
    assert_memory_equal(out, "\x81\x85\x37\xfa\x21\x3d\x7f\x9f\x4d\x51\x58", 11);
    /* ... and refused from a server */
    assert_int_equal(ws_frame_parse(out, 11, &lim, &f), WS_ERROR);
    assert_int_equal(f.close_code, WS_CLOSE_PROTOCOL);
    /* a fragmented "Hello" */
    ws_msg m = {0};
    const char *p;
    size_t n;
    int op, code;
    const char *why;
    assert_int_equal(ws_frame_parse("\x01\x03Hel", 5, &lim, &f), WS_FRAME);
    assert_int_equal(ws_msg_add(&m, &f, &lim, &p, &n, &op, &code, &why), 0);
    assert_int_equal(ws_frame_parse("\x89\x00", 2, &lim, &f), WS_FRAME);     /* a ping between */
    assert_int_equal(f.opcode, WS_OP_PING);
    assert_int_equal(ws_frame_parse("\x80\x02lo", 4, &lim, &f), WS_FRAME);
    assert_int_equal(ws_msg_add(&m, &f, &lim, &p, &n, &op, &code, &why), 1);
    assert_int_equal(op, WS_OP_TEXT);
    assert_int_equal(n, 5);
    assert_memory_equal(p, "Hello", 5);
    ws_msg_free(&m);
}

static void test_lengths(void **s) {
    (void)s;
    static char big[70000 + 14];
    static char payload[70000];
    const uint8_t mask[4] = {1, 2, 3, 4};
    ws_frame f;
    for (size_t len = 0; len <= 70000; len = len < 200 ? len + 1 : len * 3) {
        memset(payload, 'a' + (int)(len % 26), len);
        size_t sz = ws_frame_build(big, WS_OP_BINARY, payload, len, mask);
        assert_int_equal(sz, ws_frame_size(len));
        big[1] &= 0x7F;                             /* unmask, as a server would send it */
        size_t h = sz - len - 4;
        memmove(big + h, big + h + 4, len);
        ws_mask(big + h, len, mask, 0);
        assert_int_equal(ws_frame_parse(big, sz - 4, &lim, &f), WS_FRAME);
        assert_int_equal(f.len, len);
        assert_memory_equal(f.payload, payload, len);
        if (len > 0) {                              /* a prefix says the size once the header is in */
            assert_int_equal(ws_frame_parse(big, sz - 5, &lim, &f), WS_NEED_MORE);
            assert_int_equal(f.size, sz - 4);
        }
    }
}

static void test_refusals(void **s) {
    (void)s;
    static const struct { const char *b; size_t n; int code; } bad[] = {
        {"\xc1\x00", 2, WS_CLOSE_PROTOCOL},                       /* RSV1 */
        {"\x83\x00", 2, WS_CLOSE_PROTOCOL},                       /* opcode 3 */
        {"\x8b\x00", 2, WS_CLOSE_PROTOCOL},                       /* opcode 0xB */
        {"\x09\x00", 2, WS_CLOSE_PROTOCOL},                       /* a fragmented ping */
        {"\x89\x7e\x00\x7e", 4, WS_CLOSE_PROTOCOL},               /* a 126-byte ping */
        {"\x81\x7e\x00\x05", 4, WS_CLOSE_PROTOCOL},               /* 5 in the 16-bit form */
        {"\x82\x7f\x00\x00\x00\x00\x00\x00\xff\xff", 10, WS_CLOSE_PROTOCOL},  /* 65535 in 64 bits */
        {"\x82\x7f\x80\x00\x00\x00\x00\x00\x00\x00", 10, WS_CLOSE_PROTOCOL},  /* the top bit */
        {"\x82\x7f\x40\x00\x00\x00\x00\x00\x00\x00", 10, WS_CLOSE_TOO_BIG},   /* 2^62 */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ws_frame f;
        assert_int_equal(ws_frame_parse(bad[i].b, bad[i].n, &lim, &f), WS_ERROR);
        assert_int_equal(f.close_code, bad[i].code);
        assert_non_null(f.err);
    }
}

static void test_reassembly_limits(void **s) {
    (void)s;
    ws_limits small = {10};
    ws_msg m = {0};
    ws_frame f;
    const char *p, *why;
    size_t n;
    int op, code;
    assert_int_equal(ws_frame_parse("\x80\x01x", 3, &small, &f), WS_FRAME);        /* continuation first */
    assert_int_equal(ws_msg_add(&m, &f, &small, &p, &n, &op, &code, &why), -1);
    assert_int_equal(code, WS_CLOSE_PROTOCOL);
    assert_int_equal(ws_frame_parse("\x02\x06" "abcdef", 8, &small, &f), WS_FRAME);
    assert_int_equal(ws_msg_add(&m, &f, &small, &p, &n, &op, &code, &why), 0);
    assert_int_equal(ws_frame_parse("\x82\x01x", 3, &small, &f), WS_FRAME);        /* a new message inside */
    assert_int_equal(ws_msg_add(&m, &f, &small, &p, &n, &op, &code, &why), -1);
    assert_int_equal(code, WS_CLOSE_PROTOCOL);
    assert_int_equal(ws_frame_parse("\x80\x05ghijk", 7, &small, &f), WS_FRAME);    /* 11 > 10 */
    assert_int_equal(ws_msg_add(&m, &f, &small, &p, &n, &op, &code, &why), -1);
    assert_int_equal(code, WS_CLOSE_TOO_BIG);
    ws_msg_free(&m);
    ws_msg m2 = {0};
    assert_int_equal(ws_frame_parse("\x81\x02\xc3\x28", 4, &small, &f), WS_FRAME);
    assert_int_equal(ws_msg_add(&m2, &f, &small, &p, &n, &op, &code, &why), -1);
    assert_int_equal(code, WS_CLOSE_BAD_DATA);
    ws_msg_free(&m2);
}

static void test_utf8_and_close(void **s) {
    (void)s;
    assert_true(ws_utf8_ok("h\xc3\xa9llo \xe2\x82\xac \xf0\x9f\x98\x80 plain ascii run", 29));
    assert_false(ws_utf8_ok("\xc0\xaf", 2));             /* overlong */
    assert_false(ws_utf8_ok("\xed\xa0\x80", 3));         /* a surrogate */
    assert_false(ws_utf8_ok("\xf4\x90\x80\x80", 4));     /* over U+10FFFF */
    assert_false(ws_utf8_ok("abc\xe2\x82", 5));          /* cut short */
    int code;
    const char *r;
    size_t rl;
    assert_int_equal(ws_close_parse("", 0, &code, &r, &rl), 0);
    assert_int_equal(code, WS_CLOSE_NO_STATUS);
    assert_int_equal(ws_close_parse("\x03\xe8" "bye", 5, &code, &r, &rl), 0);
    assert_int_equal(code, 1000);
    assert_int_equal(rl, 3);
    assert_int_equal(ws_close_parse("\x03", 1, &code, &r, &rl), -1);
    assert_int_equal(ws_close_parse("\x03\xed", 2, &code, &r, &rl), -1);       /* 1005 on the wire */
    assert_int_equal(ws_close_parse("\x0f\xa0\xff", 3, &code, &r, &rl), -1);   /* reason not UTF-8 */
    assert_true(ws_close_code_ok(4000));
    assert_false(ws_close_code_ok(1006));
}

static void test_url_request_response(void **s) {
    (void)s;
    ws_url u;
    const char *why;
    const char *url = "wss://[::1]:8443/chat?room=1";
    assert_int_equal(ws_url_parse(url, strlen(url), &u, &why), 0);
    assert_true(u.tls);
    assert_int_equal(u.port, 8443);
    assert_int_equal(u.host_len, 3);
    assert_memory_equal(u.path, "/chat?room=1", u.path_len);
    assert_int_equal(ws_url_parse("ws://h", 6, &u, &why), 0);
    assert_int_equal(u.port, 80);
    assert_memory_equal(u.path, "/", 1);
    assert_int_equal(ws_url_parse("http://h/", 9, &u, &why), -1);
    assert_int_equal(ws_url_parse("ws://h:0/", 9, &u, &why), -1);
    assert_int_equal(ws_url_parse("ws://h/a#f", 10, &u, &why), -1);
    ws_header hs[2] = {{"X-A", "1", 3, 1}, {"Sec-WebSocket-Accept", "x", 20, 1}};
    assert_true(ws_header_ok(&hs[0]));
    assert_false(ws_header_ok(&hs[1]));
    ws_url_parse("ws://h:81/p", 11, &u, &why);
    ws_request rq = {&u, "dGhlIHNhbXBsZSBub25jZQ==", "chat", hs, 1};
    char out[512];
    size_t n = ws_request_build(out, sizeof out, &rq);
    assert_true(n > 0 && n < sizeof out);
    out[n] = 0;
    assert_non_null(strstr(out, "GET /p HTTP/1.1\r\nHost: h:81\r\nUpgrade: websocket\r\n"));
    assert_non_null(strstr(out, "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"));
    assert_non_null(strstr(out, "Sec-WebSocket-Protocol: chat\r\nX-A: 1\r\n\r\n"));
    rq.nheaders = 2;
    assert_int_equal(ws_request_build(out, sizeof out, &rq), 0);

    const char *ok = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: WebSocket\r\nConnection: keep-alive, Upgrade\r\n"
                     "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\nSec-WebSocket-Protocol: chat\r\n\r\n\x81";
    ws_response r;
    char err[200];
    long used = ws_response_parse(ok, strlen(ok), &r, &why);
    assert_int_equal(used, (long)strlen(ok) - 1);
    assert_int_equal(ws_response_parse(ok, 40, &r, &why), 0);
    ws_response_parse(ok, strlen(ok), &r, &why);
    assert_int_equal(ws_response_check(&r, "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=", "superchat, chat", err, sizeof err), 0);
    assert_int_equal(ws_response_check(&r, "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=", "superchat", err, sizeof err), -1);
    assert_int_equal(ws_response_check(&r, "AAAAAAAAAAAAAAAAAAAAAAAAAAA=", "chat", err, sizeof err), -1);
    assert_string_equal(err, "handshake: wrong Sec-WebSocket-Accept");
    const char *e404 = "HTTP/1.1 404 Not Found\r\n\r\n";
    ws_response_parse(e404, strlen(e404), &r, &why);
    assert_int_equal(ws_response_check(&r, "x", NULL, err, sizeof err), -1);
    assert_string_equal(err, "handshake: the server answered 404, not 101 Switching Protocols");
    assert_int_equal(ws_response_parse("HTTP/1.1 101 X\nUpgrade: w\r\n\r\n", 29, &r, &why), -1);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_accept_rfc_sample),
        cmocka_unit_test(test_rfc_frames),
        cmocka_unit_test(test_lengths),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_reassembly_limits),
        cmocka_unit_test(test_utf8_and_close),
        cmocka_unit_test(test_url_request_response),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
