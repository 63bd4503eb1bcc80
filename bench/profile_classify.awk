# bench/profile_classify.awk - used by bench/profile.sh: reads
# `perf script -F ip,sym,dso` (one sample per blank-line-separated block,
# leaf frame first) and prints the share of samples per category:
#   net      kernel network stack (tcp_, ip_, sock_, skb_, loopback, softirq rx)
#   loop     io_uring and libuv: liburing, libuv, the kernel's io_uring and
#            epoll code
#   kother   kernel, the rest: system call entry and exit (libc's read/write
#            wrappers' own samples included), scheduler, timers, interrupts,
#            memory management
#   luajit   the LuaJIT VM, interpreter and compiled trace code ([JIT])
#   engine   luamech's engine: VUs, timers, statistics, the bindings' common
#            op code (lm_op, lm_core), clock reads (vdso)
#   proto    protocol clients and parsers: mc_, redis_, http_, net_/conn_
#            (src/net), the protocol bindings (lm_mc_, lm_redis_, lm_http_),
#            hiredis, http_parser, OpenSSL
#   alloc    malloc, free, realloc, calloc (glibc)
#   libc     the rest of libc (memcpy, memset, ...) with no classified caller
#   other    anything else (unknown addresses, the dynamic loader, other libs)
# A sample is charged to the first frame from the leaf that says something:
# generic frames (interrupt enabling under a paravirtual kernel, where
# cpu-clock samples of interrupt-disabled sections land; spinlocks; copies;
# libc's mem* routines) are skipped for their caller.  With frame-pointer
# call graphs a caller may be missing: the leaf's own category is used then.
# Output: "category samples pct" lines, then "total N".

function generic(sym) {
    return sym ~ /^(pvm_|native_|_raw_spin|raw_spin|queued_spin|__raw_|_copy_|copy_|rep_movs|memcpy|memset|memmove|__memcpy|__memset|__memmove|clear_user|check_heap|__check_object|__virt_addr|lock_|__lock|preempt_|__rcu|rcu_|__local_bh|local_bh)/ ||
           sym ~ /^__(memset|memmove|memcpy|memcmp|strlen|strchr|memchr)_/ ||
           sym ~ /^(memcmp|strlen|strchr|memchr|__strlen|__memcmp|__memchr|__strchr)/
}

function classify(sym, dso,    base) {
    base = dso; sub(/.*\//, "", base)
    if (base == "[kernel.kallsyms]") {
        if (sym ~ /^(__)?(io_|io_uring|tctx_task_work|task_work_run)/) return "loop"
        if (sym ~ /^(__)?(ep_|do_epoll|epoll_|x64_sys_epoll|__x64_sys_epoll)/) return "loop"
        if (sym ~ /^(__)?(tcp_|tcp|ip_|ipv4_|ip6_|inet_|inet6_|sock_|sk_|skb_|kfree_skb|__kfree_skb|consume_skb|net_|netif_|__netif|napi_|__napi|loopback_|dev_|__dev_|process_backlog|__sys_sendto|__sys_recvfrom|__x64_sys_sendto|__x64_sys_recvfrom|sys_sendto|sys_recvfrom|release_sock|lock_sock|__release_sock|validate_xmit|sch_|__qdisc|qdisc_|neigh_|nf_|__nf_|ipt_|raw_v4|security_sock|selinux_sock|bpf_|__cgroup_bpf|sock)/) return "net"
        if (generic(sym)) return ""
        return "kother"
    }
    if (base == "[vdso]") return "engine"
    if (base ~ /^libluajit/ || base == "[JIT]" || base ~ /^perf-[0-9]+\.map$/) return "luajit"
    if (base ~ /^libuv\.so/ || base ~ /^liburing/) return "loop"
    if (base ~ /^libhiredis/ || base ~ /^libhttp_parser/ || base ~ /^libssl/ || base ~ /^libcrypto/) return "proto"
    if (base ~ /^libc\.so/) {
        if (sym ~ /^(malloc|free|calloc|realloc|cfree|_int_malloc|_int_free|_int_realloc|malloc_consolidate|__libc_malloc|__libc_free|__libc_calloc|__libc_realloc|tcache_|__GI___libc_malloc|__GI___libc_free|unlink_chunk|alloc_perturb|sysmalloc)/) return "alloc"
        if (sym ~ /^(epoll_wait|epoll_pwait|__GI_epoll|io_uring)/) return "loop"
        if (sym ~ /^(clock_gettime|__clock_gettime)/) return "engine"
        # system call wrappers: their self samples are the system call's entry and exit
        if (sym ~ /^(read|write|readv|writev|send|recv|sendmsg|recvmsg|sendto|recvfrom|__GI___libc_(read|write|readv|writev|sendmsg|recvmsg)|__libc_(read|write|send|recv|sendmsg|recvmsg|sendto|recvfrom)|__(read|write)_nocancel)$/) return "kother"
        if (generic(sym)) return ""
        return "libc"
    }
    if (base == "luamech" || base ~ /^lm-/ || base ~ /luamech/) {
        if (sym ~ /^(mc_|redis_|http_|net_|conn_|tls_|cookie_|url_|lm_mc|lm_redis|lm_http|lm_tls|lm_url|lm_json)/) return "proto"
        return "engine"
    }
    if (sym == "[unknown]" && dso == "[unknown]") return ""
    return "other"
}

# a frame line: "  ADDR SYM+OFF (DSO)" or "  ADDR [unknown] (DSO)"
function frame(line,    a, n, sym, dso, c) {
    n = split(line, a, " ")
    if (n < 3) return
    sym = a[2]; sub(/\+0x[0-9a-f]+$/, "", sym)
    dso = a[n]; gsub(/[()]/, "", dso)
    if (first == "") first = classify(sym, dso) == "" ? fallback(sym, dso) : classify(sym, dso)
    if (cat != "") return
    c = classify(sym, dso)
    if (c != "") cat = c
}

# a generic leaf with no classified caller: where is it?
function fallback(sym, dso,    base) {
    base = dso; sub(/.*\//, "", base)
    if (base == "[kernel.kallsyms]") return "kother"
    if (base ~ /^libc\.so/) return "libc"
    return "other"
}

function flush() {
    if (!insample) return
    if (cat == "") cat = first == "" ? "other" : first
    n[cat]++
    total++
    insample = 0; cat = ""; first = ""
}

BEGIN { insample = 0; cat = ""; first = ""; total = 0 }
/^[ \t]*$/ { flush(); next }
/^[ \t]+[0-9a-f]+ / { insample = 1; frame($0); next }
{ flush() }   # a header line (when the fields include one)
END {
    flush()
    split("net loop kother luajit engine proto alloc libc other", order, " ")
    for (i = 1; i <= 9; i++)
        printf "%s %d %.1f\n", order[i], n[order[i]], total ? 100 * n[order[i]] / total : 0
    printf "total %d\n", total
}
