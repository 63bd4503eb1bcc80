#!/usr/bin/env python3
"""starttls_server.py PORT CERT KEY LOG - a STARTTLS-style server for
test_net_conn.c (stdlib only): on each connection, plaintext first: the
line "HELLO" is answered "HI" (plaintext still), the line "STARTTLS" is
answered "GO" and the socket is then wrapped with TLS (server side, ALPN
"x-line" offered); a connection whose first byte is a TLS record (0x16)
is wrapped at once.  Over TLS, the line "PING" is answered
"PONG <alpn or ->" and a line "tls <version> <alpn>" is appended to LOG (what
the server saw, counted by the test).  One connection at a time; runs until
killed."""
import socket
import ssl
import sys

port, cert, key, log = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
ctx.load_cert_chain(cert, key)
ctx.set_alpn_protocols(["x-line"])


def readline(s):
    buf = b""
    while not buf.endswith(b"\n"):
        b = s.recv(1)
        if not b:
            return None
        buf += b
    return buf.strip()


def over_tls(raw):
    t = ctx.wrap_socket(raw, server_side=True)
    alpn = t.selected_alpn_protocol() or "-"
    while True:
        line = readline(t)
        if line is None:
            break
        if line == b"PING":
            with open(log, "a") as f:
                f.write("tls %s %s\n" % (t.version(), alpn))
            t.sendall(("PONG %s\n" % alpn).encode())
    t.close()


def serve(c):
    c.settimeout(10)
    first = c.recv(1, socket.MSG_PEEK)
    if first == b"\x16":
        over_tls(c)
        return
    while True:
        line = readline(c)
        if line is None:
            return
        if line == b"HELLO":
            c.sendall(b"HI\n")
        elif line == b"STARTTLS":
            c.sendall(b"GO\n")
            over_tls(c)
            return


ls = socket.socket()
ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
ls.bind(("127.0.0.1", port))
ls.listen(16)
while True:
    conn, _ = ls.accept()
    try:
        serve(conn)
    except (OSError, ssl.SSLError) as e:
        with open(log, "a") as f:
            f.write("error %s\n" % e)
    finally:
        conn.close()
