# lib_http.sh - HTTP helpers for the command-line tests, sourced after lib.sh:
# start a private nginx on a free loopback port with a generated config (or
# build one: the shared preamble, TLS server blocks, the test PKI), count
# its requests and connections from its access log, read counters from
# summary.json.
NGINX_ECHO_MODULE=${NGINX_ECHO_MODULE:-/usr/lib/nginx/modules/ngx_http_echo_module.so}

# test_pki DIR: the TLS tests' PKI in DIR (fixtures/tls_mkpki.sh: ca.pem,
# server.pem/.key for localhost and 127.0.0.1, other, client, expired,
# ca2.pem); the test ends when it cannot be made.
test_pki() {
    mkdir -p "$1"
    bash "$SRC/tests/scenarios/fixtures/tls_mkpki.sh" "$1" || { echo "cannot make the test PKI"; exit 1; }
}

# nginx_conf_head DIR LOG_FORMAT: the part of DIR/nginx.conf every test's
# nginx shares (the echo module when installed, root's user when root, 1
# worker, its files under DIR, DIR/access.log in LOG_FORMAT, keep-alive for
# the whole run), left open inside http { : the caller appends its own
# lines and server blocks, then nginx_conf_end.
nginx_conf_head() {
    local dir=$1 fmt=$2 load="" user=""
    mkdir -p "$dir/tmp"
    [ -f "$NGINX_ECHO_MODULE" ] && load="load_module $NGINX_ECHO_MODULE;"
    [ "$(id -u)" -eq 0 ] && user="user root;"
    cat > "$dir/nginx.conf" <<EOF
$load
$user
worker_processes 1;
error_log $dir/error.log warn;
pid $dir/nginx.pid;
events { worker_connections 1024; }
http {
    log_format lm '$fmt';
    access_log $dir/access.log lm;
    client_body_temp_path $dir/tmp/body;
    proxy_temp_path $dir/tmp/proxy;
    fastcgi_temp_path $dir/tmp/fastcgi;
    uwsgi_temp_path $dir/tmp/uwsgi;
    scgi_temp_path $dir/tmp/scgi;
    keepalive_requests 1000000;
EOF
}
nginx_conf_end() { echo "}" >> "$1/nginx.conf"; }

# nginx_tls_server DIR PORT PKI LOCATION...: a server block on 127.0.0.1:PORT
# with TLS and PKI's server certificate (localhost, 127.0.0.1) appended to
# DIR/nginx.conf, one LOCATION line per argument.
nginx_tls_server() {
    local conf=$1/nginx.conf port=$2 pki=$3 loc
    shift 3
    printf '    server {\n        listen 127.0.0.1:%s ssl;\n' "$port" >> "$conf"
    printf '        ssl_certificate %s/server.pem;\n        ssl_certificate_key %s/server.key;\n' \
        "$pki" "$pki" >> "$conf"
    for loc in "$@"; do printf '        %s\n' "$loc" >> "$conf"; done
    printf '    }\n' >> "$conf"
}

# nginx_launch DIR PORT...: nginx on DIR/nginx.conf (its pid in PIDS), once
# every PORT answers; the test ends when one does not.
nginx_launch() {
    local dir=$1 p up
    shift
    : > "$dir/access.log"
    nginx -p "$dir" -c "$dir/nginx.conf" -g 'daemon off;' 2>> "$dir/stderr" &
    PIDS+=($!)
    for _ in $(seq 60); do
        up=1
        for p in "$@"; do port_open "$p" || up=0; done
        [ "$up" = 1 ] && return 0
        sleep 0.05
    done
    echo "cannot start nginx:"; cat "$dir/stderr" "$dir/error.log" 2>/dev/null; exit 1
}

# start_nginx VAR DIR: nginx (1 worker) on a free port, everything in DIR:
# DIR/access.log ("$connection $connection_requests $request $status", one
# line per request), DIR/error.log, DIR/nginx.pid, static files in DIR/www.
# Sets VAR to the port and NGINX_PID_<port> to the master's pid.
# Locations: /small.txt (static, "hello static\n"), /large.bin (static, 1 MiB),
# /hello (return 200 "hello"), /missing (return 404), /e500 (return 500), /redirect (302),
# /echo (echo module: "<method> <X-Test> <X-Default>|<body>"),
# /slow (answers after 3 s), /slow200 (after 0.2 s), / (static index:
# "index\n"); for the API
# features: /json (a JSON document), /args ("<method> <query> <content
# type>|<body>"), redirects /r1 -> /r2 -> /hello, /r303 and /r307 -> /args,
# /rloop (to itself), /raway (to http://localhost:<port>/hello?away=1),
# /cookies (two Set-Cookie headers), /showcookie (echoes the Cookie header),
# /setredir (sets r and o, Path=/other, then 302 to /showcookie), /logout
# (deletes a), /unauth (401); compression: files
# under /gz/ compressed by nginx's gzip filter, files named *.gzbody and
# *.zbody served as they are with Content-Encoding gzip and deflate.
start_nginx() {
    local var=$1 dir=$2 port pid i
    mkdir -p "$dir/www" "$dir/tmp"
    chmod 755 "$dir" "$dir/www"
    printf 'hello static\n' > "$dir/www/small.txt"
    printf 'index\n' > "$dir/www/index.html"
    head -c 1048576 /dev/urandom > "$dir/www/large.bin"
    for i in 1 2 3 4 5 6 7 8 9 10; do
        port=$((10000 + RANDOM % 22000))
        port_open "$port" && continue
        nginx_conf_head "$dir" '$connection $connection_requests $request $status'
        cat >> "$dir/nginx.conf" <<EOF
    keepalive_timeout 75s;
    default_type application/octet-stream;
    server {
        listen 127.0.0.1:$port;
        root $dir/www;
        location = /hello { add_header X-Luamech yes; add_header X-Rep a; add_header X-Rep b; return 200 "hello"; }
        location = /missing { return 404; }
        location = /e500 { return 500; }
        location = /redirect { return 302 /hello; }
        location = /echo {
            echo_read_request_body;
            echo -n "\$request_method \$http_x_test \$http_x_default|";
            echo_request_body;
        }
        location = /slow { echo_sleep 3; echo "late"; }
        location = /slow200 { echo_sleep 0.2; echo "late"; }
        location = /json { default_type application/json; return 200 '{"token":"t-1","n":[1,2.5,{"x":null}],"e":[],"o":{},"big":9007199254740993}'; }
        location = /args {
            echo_read_request_body;
            echo -n "\$request_method \$args \$http_content_type|";
            echo_request_body;
        }
        location = /r1 { return 302 /r2?from=r1; }
        location = /r2 { return 301 /hello; }
        location = /r303 { return 303 /args?via=303; }
        location = /r307 { return 307 /args?via=307; }
        location = /rloop { return 302 /rloop; }
        location = /raway { return 302 http://localhost:\$server_port/hello?away=1; }
        location = /cookies {
            add_header Set-Cookie "a=1; Path=/";
            add_header Set-Cookie "b=2; Expires=Wed, 09 Jun 2027 10:18:14 GMT; Path=/";
            return 200 "ok";
        }
        location = /unauth { return 401; }
        location = /showcookie { echo -n "cookie:\$http_cookie"; }
        location = /setredir { add_header Set-Cookie "r=1; Path=/"; add_header Set-Cookie "o=1; Path=/other"; return 302 /showcookie; }
        location = /logout { add_header Set-Cookie "a=; Max-Age=0; Path=/"; return 200 "bye"; }
        location /gz/ { gzip on; gzip_types *; gzip_min_length 1; }
        location ~ \.gzbody\$ { add_header Content-Encoding gzip; }
        location ~ \.zbody\$ { add_header Content-Encoding deflate; }
    }
}
EOF
        : > "$dir/access.log"
        nginx -p "$dir" -c "$dir/nginx.conf" -g 'daemon off;' 2>> "$dir/stderr" &
        pid=$!
        for _ in $(seq 60); do port_open "$port" && break; sleep 0.05; done
        if port_open "$port" && kill -0 "$pid" 2>/dev/null; then
            PIDS+=("$pid")
            # the probe above is a request-less connection: nginx logs nothing for it
            printf -v "$var" '%s' "$port"
            printf -v "NGINX_PID_$port" '%s' "$pid"
            return 0
        fi
        kill "$pid" 2>/dev/null
        wait "$pid" 2>/dev/null
    done
    echo "cannot start nginx:"; cat "$dir/stderr" "$dir/error.log" 2>/dev/null; exit 1
}

# nginx_requests LOG [PATTERN]: requests logged (matching PATTERN, a grep -E)
nginx_requests() { grep -cE "${2:-.}" "$1" || true; }
# logged TEXT: requests in $L (the test's access log) whose line holds TEXT
# (a fixed string)
logged() { grep -cF "$1" "$L" || true; }
# nginx_connections LOG [PATTERN]: distinct connections among those requests
nginx_connections() { grep -E "${2:-.}" "$1" | awk '{print $1}' | sort -u | wc -l; }
# nginx_settle LOG: wait until nginx has written every line (the log is
# written when a request ends; give the last ones a moment)
nginx_settle() {
    local n=-1 m
    for _ in $(seq 20); do
        m=$(wc -l < "$1")
        [ "$m" = "$n" ] && return 0
        n=$m; sleep 0.1
    done
}
# nginx_wait LOG TEXT N: wait (<= 10 s) until LOG holds N lines with TEXT (a
# fixed string): nginx writes a request's line after its response went out,
# so a client may read the response, end and be checked before the line is
# there.  Returns at once when it is; the caller then compares the count.
nginx_wait() {
    for _ in $(seq 100); do [ "$(grep -cF "$2" "$1")" -ge "$3" ] && return 0; sleep 0.1; done
    return 0
}
# counter SUMMARY NAME: total of a named counter in summary.json (0 when absent)
counter() { jq -r --arg n "$2" '[.counters[]? | select(.name == $n) | .total] | add // 0' "$1"; }
