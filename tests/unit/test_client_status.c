/* test_client_status.c - the clients' one status space (client/client_status.h):
 * the kinds' texts, "kind: detail" without saying the kind twice, the
 * connection layer's statuses, and each client's mapping of its private
 * codes (memcached, redis, WebSocket, HTTP/1.1, HTTP/2, gRPC's local
 * results); the private ranges do not overlap (WS_E* and H2_E* once did). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "client/client_status.h"
#include "client/grpc_client.h"
#include "client/h2_session.h"
#include "client/http_client.h"
#include "client/mc_client.h"
#include "client/redis_client.h"
#include "client/ws_client.h"
#include "net/conn.h"

static void test_texts(void **state) {
    (void)state;
    assert_string_equal(client_strerror(CLIENT_OK), "ok");
    assert_string_equal(client_strerror(CLIENT_DOWN), "server down");
    assert_string_equal(client_strerror(CLIENT_TIMEOUT), "timeout");
    assert_string_equal(client_strerror(CLIENT_TLS), "TLS error");
    for (int s = 0; s < CLIENT_STATUS_COUNT; s++) assert_string_not_equal(client_strerror(s), "unknown status");
    assert_string_equal(client_strerror(CLIENT_STATUS_COUNT), "unknown status");
}

static void test_describe(void **state) {
    (void)state;
    char b[128];
    assert_string_equal(client_describe(b, sizeof b, CLIENT_DOWN, "connection refused"), "server down: connection refused");
    assert_string_equal(client_describe(b, sizeof b, CLIENT_TIMEOUT, "timeout"), "timeout");
    assert_string_equal(client_describe(b, sizeof b, CLIENT_TIMEOUT, NULL), "timeout");
    assert_string_equal(client_describe(b, sizeof b, CLIENT_PROTOCOL, "protocol error: a reply nobody asked for"),
                        "protocol error: a reply nobody asked for");
    assert_string_equal(client_describe(b, sizeof b, CLIENT_DOWN, "server down (reconnect backoff not elapsed)"),
                        "server down (reconnect backoff not elapsed)");
    assert_string_equal(client_describe(b, 8, CLIENT_DOWN, "connection refused"), "server ");   /* bounded */
}

static void test_net(void **state) {
    (void)state;
    assert_int_equal(client_status_of_net(0), CLIENT_OK);
    assert_int_equal(client_status_of_net(UV_ETIMEDOUT), CLIENT_TIMEOUT);
    assert_int_equal(client_status_of_net(UV_ECANCELED), CLIENT_CANCELLED);
    assert_int_equal(client_status_of_net(NET_ETLS), CLIENT_TLS);
    assert_int_equal(client_status_of_net(UV_ECONNREFUSED), CLIENT_DOWN);
    assert_int_equal(client_status_of_net(UV_EOF), CLIENT_DOWN);
}

static void test_clients(void **state) {
    (void)state;
    assert_int_equal(mc_client_status(MC_EDOWN), CLIENT_DOWN);
    assert_int_equal(mc_client_status(MC_EPROTO), CLIENT_PROTOCOL);
    assert_int_equal(mc_client_status(UV_ETIMEDOUT), CLIENT_TIMEOUT);
    assert_int_equal(redis_client_status(REDIS_CLIENT_ESETUP), CLIENT_SETUP);
    assert_int_equal(redis_client_status(REDIS_CLIENT_EPROTO), CLIENT_PROTOCOL);
    assert_int_equal(redis_client_status(REDIS_CLIENT_EIO), CLIENT_DOWN);
    assert_int_equal(ws_client_status(WS_EHANDSHAKE), CLIENT_SETUP);
    assert_int_equal(ws_client_status(WS_EPROTO), CLIENT_PROTOCOL);
    assert_int_equal(ws_client_status(WS_EQUEUE), CLIENT_BODY);
    assert_int_equal(ws_client_status(UV_ECANCELED), CLIENT_CANCELLED);
    assert_int_equal(http_client_status(HTTP_ECONNECT), CLIENT_DOWN);
    assert_int_equal(http_client_status(HTTP_ETIMEOUT), CLIENT_TIMEOUT);
    assert_int_equal(http_client_status(HTTP_EBODY), CLIENT_BODY);
    assert_int_equal(http_client_status(HTTP_ETLS), CLIENT_TLS);
    assert_int_equal(h2_status(H2_EPROTO), CLIENT_PROTOCOL);
    assert_int_equal(h2_status(H2_ETIMEOUT), CLIENT_TIMEOUT);
    assert_int_equal(h2_status(H2_ENOTH2), CLIENT_SETUP);
    assert_int_equal(h2_status(H2_EGOAWAY), CLIENT_DOWN);
    /* the ranges of WebSocket and HTTP/2 no longer overlap */
    assert_true(WS_EHANDSHAKE != H2_EREFUSED && WS_EPROTO != H2_ERESET && WS_ECLOSED != H2_EGOAWAY);
}

static void test_grpc(void **state) {
    (void)state;
    grpc_result server = {.code = 5, .local = 0}, deadline = {.code = 4, .local = 1},
                down = {.code = 14, .local = 1}, internal = {.code = 13, .local = 1}, big = {.code = 8, .local = 1};
    assert_int_equal(grpc_result_status(&server), CLIENT_OK);       /* the server's answer, whatever its code */
    assert_int_equal(grpc_result_status(&deadline), CLIENT_TIMEOUT);
    assert_int_equal(grpc_result_status(&down), CLIENT_DOWN);
    assert_int_equal(grpc_result_status(&internal), CLIENT_PROTOCOL);
    assert_int_equal(grpc_result_status(&big), CLIENT_BODY);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_texts),   cmocka_unit_test(test_describe), cmocka_unit_test(test_net),
        cmocka_unit_test(test_clients), cmocka_unit_test(test_grpc),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
