-- Runs once per VU: a client (no connection yet) and the generators.
local http = assert(luamech.http.new(luamech.param("HTTP_BASE", "http://127.0.0.1:7379")))
local keys = luamech.keys{ pattern = "uniform", n = 1000, prefix = "{{NAME}}:" }
local think = luamech.random.exponential(0.05)

-- One transaction: a GET (webdis's /GET/<key>; change the path for your
-- server), then think time, which is left out of the response times.
return function()
  local res, err = http:get("/GET/" .. keys(), { name = "GET key" })
  if not res then error(err) end
  luamech.check(res.status == 200, "status 200")
  luamech.sleep(think())
end
