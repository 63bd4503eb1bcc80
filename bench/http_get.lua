-- http_get.lua: the luamech side of bench/http_vs_wrk_ab.sh.  50 VUs, each
-- with its own keep-alive connection (the default), closed loop, no think
-- time, one GET of URL_PATH (default /) per transaction; run time and VUs are overridden
-- from the command line (-d, -u).
return {
  name = "http_get",
  run_time = "10s",
  interval = "1s",
  notes = "GET " .. luamech.param("URL", "http://127.0.0.1:8080") .. luamech.param("URL_PATH", "/") ..
          ", keep-alive, one request per transaction, no think time",
  groups = {
    { name = "get", vus = 50, script = "http_get_vu.lua" },
  },
}
