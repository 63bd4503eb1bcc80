-- http2_api_vu.lua: one transaction = a login, then the profile read twice
-- and updated as three concurrent streams (c:batch).  The client is the
-- worker's shared one (pool = true): every VU's streams multiplex on its
-- HTTP/2 connection.  A shared client shares its cookie jar too, so it has
-- none (jar = false) and each VU sends its own session cookie by hand.
-- res.proto says what carried a response: the checks insist on "HTTP/2".
local ca = luamech.param("API_CA", "system")
local api = assert(luamech.http.new(luamech.param("API_H2_BASE", "https://127.0.0.1:8443"),
                                    { http = "2", pool = true, max_streams = 100, jar = false,
                                      tls = ca ~= "system" and { ca_file = ca } or nil }))

return function()
  local res, err = api:post("/api/login", nil, { json = { user = "ada", password = "secret" }, name = "login" })
  if not res then error(err) end
  local body = res:json()
  if not luamech.check(res.status == 200 and body and body.token, "login returns a token") then return end
  luamech.check(res.proto == "HTTP/2", "login over HTTP/2")
  local session = res.headers["set-cookie"] and res.headers["set-cookie"]:match("session=([^;]*)")
  local hdrs = { Authorization = "Bearer " .. body.token, Cookie = "session=" .. (session or "") }

  local results, errs = api:batch({
    { "GET", "/api/me", { headers = hdrs, name = "me" } },
    { "GET", "/api/me", { headers = hdrs, name = "me" } },
    { "PATCH", "/api/me", { headers = hdrs, json = { name = "Ada L." }, name = "update me" } },
  })
  for i = 1, 3 do
    if not results[i] then error(errs[i]) end
  end
  local me = results[1]:json()
  luamech.check(results[1].status == 200 and me and me.id == 42, "me is user 42")
  luamech.check(results[1].proto == "HTTP/2" and results[3].proto == "HTTP/2", "streams over HTTP/2")
  luamech.check(results[3].status == 200 and results[3]:json().updated == true, "profile updated")
end
