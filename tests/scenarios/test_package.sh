# Install and package (cmake/install.cmake):
#  A. `cmake --install BUILD --prefix P` puts the binary, the man page (with
#     P's paths), the scenarios, the API types, run-local.sh and the docs
#     under P; the installed binary runs the installed membase scenario from
#     a directory outside the source tree against a real memcached (which
#     counts what the run reports), and the installed run-local.sh runs the
#     installed binary, not the checkout's (and the installed gRPC scenario,
#     its .proto and the greeter server it starts); `luamech new` from P writes a
#     README whose run-local.sh command is P's, and that command runs.
#  B. cpack builds luamech_<version>_<arch>.deb: its Depends are Debian
#     package names (dpkg-shlibdeps) that this machine has at the required
#     versions, its files are the ones above under /usr; unpacked into a
#     scratch root, its binary runs the membase scenario as in A.
#  C. With LUAMECH_DPKG_INSTALL=1, as root (CI, a fresh Debian 12: .ci/run):
#     the .deb is really installed (apt-get install ./x.deb, dpkg), `luamech`
#     from PATH runs the membase scenario from /usr/share/luamech, `man -w
#     luamech` finds the page, then the package is removed (also on failure)
#     and /usr/bin/luamech is gone.
source "$(dirname "$0")/lib.sh" "$@"
source "$(dirname "$0")/lib_package.sh"

build=$(build_dir)
version=$("$LUAMECH" --version | awk '{ print $2 }')

# --- A. cmake --install ---
P=$TMP/prefix
timeout 300 cmake --install "$build" --prefix "$P" > "$TMP/install.log" 2>&1; rc=$?
check "cmake --install exits 0 ($(tail -c 300 "$TMP/install.log"))" [ $rc -eq 0 ]
for f in bin/luamech share/man/man1/luamech.1.gz share/luamech/scenarios/membase.lua \
         share/luamech/scenarios/suites/http_kv_get_sweep.lua share/luamech/types/luamech.lua \
         share/luamech/run-local.sh share/doc/luamech/README.md share/doc/luamech/docs/lua-api.md; do
    check "installed $f" [ -s "$P/$f" ]
done
check "install_manifest.txt lists the man page" grep -qx "$P/share/man/man1/luamech.1.gz" "$build/install_manifest.txt"
check "the installed man page names the install prefix ($P/share/luamech/scenarios/)" \
    bash -c "zcat '$P/share/man/man1/luamech.1.gz' | grep -qF '$P/share/luamech/scenarios/'"
check "the installed man page renders" bash -c "MANWIDTH=80 man -l '$P/share/man/man1/luamech.1.gz' 2>&1 | grep -q '^EXIT STATUS'"
membase_run "cmake --install" "$TMP/wd-install" "$TMP/wd-install/out" out "$P/share/luamech/scenarios/membase.lua" \
    "$P/bin/luamech"
# run-local.sh from the prefix runs the prefix's binary (a wrapper that logs)
mv "$P/bin/luamech" "$P/bin/luamech.real"
printf '#!/bin/sh\necho "$0" >> "%s"\nexec "%s" "$@"\n' "$TMP/ran" "$P/bin/luamech.real" > "$P/bin/luamech"
chmod +x "$P/bin/luamech"
mkdir -p "$TMP/wd-rl"
(cd "$TMP/wd-rl" && env -u LUAMECH timeout 120 "$P/share/luamech/run-local.sh" "$P/share/luamech/scenarios/example.lua" \
    -d 1s -q -o out > rl.log 2>&1); rc=$?
check "installed run-local.sh runs the installed example scenario (exit $rc; $(tail -c 200 "$TMP/wd-rl/rl.log"))" \
    [ $rc -eq 0 -a "$(jq -r .status "$TMP/wd-rl/out/summary.json" 2>/dev/null)" = completed ]
check "installed run-local.sh used $P/bin/luamech" grep -qx "$P/bin/luamech" "$TMP/ran"
# ... and the installed gRPC scenario with its greeter.proto, against the
# installed grpc-greeter.py that run-local.sh starts for it
(cd "$TMP/wd-rl" && env -u LUAMECH timeout 120 "$P/share/luamech/run-local.sh" "$P/share/luamech/scenarios/grpc_greeter.lua" \
    -n 100 -u 5 -q -o grpc > rlg.log 2>&1); rc=$?
check "installed run-local.sh runs the installed grpc_greeter.lua with its server (exit $rc; $(tail -c 200 "$TMP/wd-rl/rlg.log"))" \
    [ $rc -eq 0 -a "$(timer_count "$TMP/wd-rl/grpc/summary.json" "All Transactions")" -eq 100 \
      -a "$(timer_errors "$TMP/wd-rl/grpc/summary.json" "All Transactions")" -eq 0 ]
# `luamech new` from the prefix: its README's run-local.sh command names the
# installed script (PREFIX/share/luamech/run-local.sh) and runs as written
mkdir -p "$TMP/wd-new"
(cd "$TMP/wd-new" && "$P/bin/luamech" new inst > new.out 2>&1)
rl=$(realpath "$P/share/luamech/run-local.sh")
check "installed luamech new: its README names $rl" grep -qxF "    bash $rl inst/scenario.lua -d 10s" "$TMP/wd-new/inst/README.md"
check "installed luamech new: and says so" grep -qF "or:  bash $rl inst/scenario.lua" "$TMP/wd-new/new.out"
rlcmd=$(sed -n 's/^    \(bash .*run-local\.sh inst\/scenario\.lua.*\)$/\1/p' "$TMP/wd-new/inst/README.md")
: > "$TMP/ran"
(cd "$TMP/wd-new" && env -u LUAMECH timeout 120 bash -c "$rlcmd -q -d 1s -o out" > rl.log 2>&1); rc=$?
check "the README's run-local.sh command runs the new scenario (exit $rc; $(tail -c 200 "$TMP/wd-new/rl.log"))" \
    [ $rc -eq 0 -a "$(jq -r .status "$TMP/wd-new/out/summary.json" 2>/dev/null)" = completed ]
check "... with $P/bin/luamech" grep -qx "$P/bin/luamech" "$TMP/ran"

# --- B. the .deb ---
timeout 300 cpack --config "$build/CPackConfig.cmake" -B "$TMP/cpack" > "$TMP/cpack.log" 2>&1; rc=$?
deb=$(ls "$TMP"/cpack/luamech_*.deb 2>/dev/null | head -1)
check "cpack builds a .deb (exit $rc; $(tail -c 300 "$TMP/cpack.log"))" [ $rc -eq 0 -a -n "$deb" ]
[ -n "$deb" ] || finish
check "its name is luamech_${version}_$(dpkg --print-architecture).deb" [ "$(basename "$deb")" = "luamech_${version}_$(dpkg --print-architecture).deb" ]
check "Package: luamech, Version: $version" [ "$(dpkg-deb -f "$deb" Package Version | tr '\n' ' ')" = "Package: luamech Version: $version " ]
depends=$(dpkg-deb -f "$deb" Depends)
echo "Depends: $depends"
for lib in libc6 libluajit-5.1-2 libuv1 libhiredis libjansson4; do
    if ldd "$LUAMECH" | grep -q "${lib%%[0-9.-]*}" || [ "$lib" = libc6 ]; then
        check "Depends names $lib" grep -q "$lib" <<< "$depends"
    fi
done
check "Depends does not name libmemcached (src/client/mc_ring.c replaced it)" bash -c "! grep -q libmemcached <<< '$depends'"
# every dependency (or one of its alternatives) is installed at a version that satisfies it
unmet=""
IFS=',' read -ra groups <<< "$depends"
for g in "${groups[@]}"; do
    ok=0
    IFS='|' read -ra alts <<< "$g"
    for a in "${alts[@]}"; do
        name=$(awk '{ print $1 }' <<< "$a")
        rel=$(sed -n 's/.*(\([<>=]*\) *\([^)]*\)).*/\1 \2/p' <<< "$a")
        have=$(dpkg-query -W -f '${Status} ${Version}' "$name" 2>/dev/null | awk '$3 == "installed" { print $4 }')
        [ -n "$have" ] || continue
        if [ -z "$rel" ]; then ok=1; break; fi
        op=${rel%% *}; want=${rel#* }
        case $op in '>=') op=ge ;; '<=') op=le ;; '=') op=eq ;; '>>') op=gt ;; '<<') op=lt ;; esac
        dpkg --compare-versions "$have" "$op" "$want" && { ok=1; break; }
    done
    [ $ok -eq 1 ] || unmet="$unmet [$g]"
done
check "every Depends is a Debian package installed here at a satisfying version (unmet:$unmet)" [ -z "$unmet" ]
dpkg-deb -c "$deb" | awk '{ print $6 }' > "$TMP/contents"
for f in ./usr/bin/luamech ./usr/share/man/man1/luamech.1.gz ./usr/share/luamech/scenarios/membase.lua \
         ./usr/share/luamech/types/luamech.lua ./usr/share/luamech/run-local.sh ./usr/share/doc/luamech/README.md; do
    check "the .deb has $f" grep -qx "$f" "$TMP/contents"
done
root=$TMP/debroot
dpkg-deb -x "$deb" "$root"
check "the .deb's man page names /usr/share/luamech/scenarios/" \
    bash -c "zcat '$root/usr/share/man/man1/luamech.1.gz' | grep -qF '/usr/share/luamech/scenarios/'"
check "the .deb's binary is stripped" bash -c "file '$root/usr/bin/luamech' | grep -q ', stripped'"
membase_run ".deb in a scratch root" "$TMP/wd-deb" "$TMP/wd-deb/out" out "$root/usr/share/luamech/scenarios/membase.lua" \
    "$root/usr/bin/luamech"

# --- C. dpkg -i on this machine (CI) ---
if [ "${LUAMECH_DPKG_INSTALL:-0}" = 1 ]; then
    if [ "$(id -u)" -ne 0 ]; then
        fail "LUAMECH_DPKG_INSTALL=1 needs root"
    elif dpkg-query -W -f '${Status}' luamech 2>/dev/null | grep -q "install ok installed"; then
        fail "a luamech package is already installed: not touching it (dpkg -r luamech first)"
    else
        remove_pkg() { DEBIAN_FRONTEND=noninteractive timeout 300 apt-get remove -y -qq -o DPkg::Lock::Timeout=120 luamech > "$TMP/remove.log" 2>&1; }
        trap 'remove_pkg; cleanup' EXIT
        DEBIAN_FRONTEND=noninteractive timeout 300 apt-get install -y -qq --no-install-recommends \
            -o DPkg::Lock::Timeout=120 "$deb" > "$TMP/dpkg.log" 2>&1; rc=$?
        check "apt-get install $(basename "$deb") (dpkg -i with its Depends) exits 0 ($(tail -c 300 "$TMP/dpkg.log"))" [ $rc -eq 0 ]
        check "dpkg lists luamech $version as installed" \
            [ "$(dpkg-query -W -f '${Status} ${Version}' luamech 2>/dev/null)" = "install ok installed $version" ]
        check "luamech is on PATH as /usr/bin/luamech" [ "$(command -v luamech)" = /usr/bin/luamech ]
        check "man -w luamech finds /usr/share/man/man1/luamech.1.gz" [ "$(man -w luamech 2>/dev/null)" = /usr/share/man/man1/luamech.1.gz ]
        membase_run "installed .deb" "$TMP/wd-sys" "$TMP/wd-sys/out" out /usr/share/luamech/scenarios/membase.lua \
            env PATH=/usr/bin:/bin luamech
        remove_pkg; rc=$?
        check "apt-get remove luamech exits 0" [ $rc -eq 0 ]
        check "removed: /usr/bin/luamech is gone" [ ! -e /usr/bin/luamech ]
        check "removed: dpkg no longer lists luamech as installed" \
            bash -c "! dpkg-query -W -f '\${Status}' luamech 2>/dev/null | grep -q 'install ok installed'"
        trap cleanup EXIT
    fi
fi
finish
