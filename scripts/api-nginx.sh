#!/usr/bin/env bash
# scripts/api-nginx.sh PORT DIR [ACCESS_LOG [TLS_PORT [H2_PORT [H2_LOG]]]] -
# prints an nginx configuration for a tiny JSON API on 127.0.0.1:PORT (files
# under DIR), the server of scenarios/http_api.lua.  Used by
# scripts/run-local.sh and by the tests.  With TLS_PORT the same API also
# listens with TLS on 127.0.0.1:TLS_PORT (HTTP/1.1 only: ALPN offers no h2),
# with a private CA and a server certificate (localhost, 127.0.0.1; EC
# P-256, valid 7 days) made here by the openssl CLI into DIR/tls/ (ca.pem:
# what a client's tls.ca_file names; kept when present).  With H2_PORT too,
# the same API over TLS with HTTP/2 (ALPN h2) on 127.0.0.1:H2_PORT, the
# server of scenarios/http2_api.lua, logged to H2_LOG (default
# DIR/h2_access.log) as "$connection $server_protocol $request_method $uri $status".
#   POST  /api/login   JSON {"user":..} -> {"token":"tok-123"} + cookie session=s1
#   GET   /api/me      needs "Authorization: Bearer tok-123" and the cookie -> JSON, else 401
#   PATCH /api/me      same checks, a JSON body -> {"updated":true}
#   POST  /api/logout  -> 302 /api/bye, deleting the cookie
#   GET   /api/bye     -> {"bye":true}
# Access log: "$request_method $uri $status auth=<Authorization> cookie=<session> type=<Content-Type> scheme=<http|https>".
set -euo pipefail
port=$1 dir=$2 log=${3:-$2/access.log} tls_port=${4:-} h2_port=${5:-} h2_log=${6:-$2/h2_access.log}
[ -z "$h2_port" ] || [ -n "$tls_port" ] || { echo "api-nginx.sh: H2_PORT needs TLS_PORT" >&2; exit 2; }
tls_listen=""
if [ -n "$tls_port" ]; then
    t=$dir/tls
    mkdir -p "$t"
    if [ ! -s "$t/server.pem" ]; then
        q() { "$@" > /dev/null 2>&1 || { echo "api-nginx.sh: openssl failed: $*" >&2; exit 1; }; }
        q openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 7 \
            -keyout "$t/ca.key" -out "$t/ca.pem" -subj /CN=luamech-local-api-ca
        q openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
            -keyout "$t/server.key" -out "$t/server.csr" -subj /CN=localhost
        printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n' > "$t/server.ext"
        q openssl x509 -req -in "$t/server.csr" -CA "$t/ca.pem" -CAkey "$t/ca.key" -CAcreateserial \
            -days 7 -extfile "$t/server.ext" -out "$t/server.pem"
    fi
    tls_listen="listen 127.0.0.1:$tls_port ssl;
        ssl_certificate $t/server.pem;
        ssl_certificate_key $t/server.key;"
fi
locations='
        location = /api/login {
            if ($request_method != POST) { return 405; }
            if ($content_type != "application/json") { return 415; }
            add_header Set-Cookie "session=s1; Path=/api; HttpOnly";
            return 200 '"'"'{"token":"tok-123","expires_in":3600}'"'"';
        }
        location = /api/me {
            if ($http_authorization != "Bearer tok-123") { return 401 '"'"'{"error":"no token"}'"'"'; }
            if ($cookie_session != "s1") { return 401 '"'"'{"error":"no session"}'"'"'; }
            if ($request_method = PATCH) { return 200 '"'"'{"updated":true}'"'"'; }
            return 200 '"'"'{"id":42,"name":"Ada","roles":["admin","dev"],"manager":null}'"'"';
        }
        location = /api/logout {
            add_header Set-Cookie "session=; Max-Age=0; Path=/api";
            return 302 /api/bye;
        }
        location = /api/bye { return 200 '"'"'{"bye":true}'"'"'; }'
h2_server=""
if [ -n "$h2_port" ]; then
    h2_server="server {
        listen 127.0.0.1:$h2_port ssl http2;
        ssl_certificate $t/server.pem;
        ssl_certificate_key $t/server.key;
        access_log $h2_log api_h2;
        $locations
    }"
fi
user=""
[ "$(id -u)" -eq 0 ] && user="user root;"
cat <<CONF
$user
worker_processes 1;
error_log $dir/error.log warn;
pid $dir/nginx.pid;
events { worker_connections 1024; }
http {
    log_format api '\$request_method \$uri \$status auth=\$http_authorization cookie=\$cookie_session type=\$content_type scheme=\$scheme';
    log_format api_h2 '\$connection \$server_protocol \$request_method \$uri \$status';
    access_log $log api;
    client_body_temp_path $dir/body;
    proxy_temp_path $dir/proxy;
    fastcgi_temp_path $dir/fastcgi;
    uwsgi_temp_path $dir/uwsgi;
    scgi_temp_path $dir/scgi;
    keepalive_requests 1000000;
    default_type application/json;
    gzip on;
    gzip_types application/json;
    gzip_min_length 1;
    server {
        listen 127.0.0.1:$port;
        $tls_listen
        $locations
    }
    $h2_server
}
CONF
