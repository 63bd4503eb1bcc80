-- http_api_vu.lua: one transaction = one user session.  The client keeps
-- the session cookie (a jar per client, one client per VU) and follows the
-- logout redirect; bodies come back gzip-compressed and are decoded.
-- Over https the API's certificate is verified against API_CA (checked by
-- http_api.lua; "system": the system's store).
local ca = luamech.param("API_CA", "system")
local api = assert(luamech.http.new(luamech.param("API_BASE", "https://127.0.0.1:8443"),
                                    { tls = ca ~= "system" and { ca_file = ca } or nil }))

return function()
  local res, err = api:post("/api/login", nil, { json = { user = "ada", password = "secret" }, name = "login" })
  if not res then error(err) end
  local body = res:json()
  if not luamech.check(res.status == 200 and body and body.token, "login returns a token") then return end
  local auth = { Authorization = "Bearer " .. body.token }

  res = assert(api:get("/api/me", { headers = auth, name = "me" }))
  local me = res:json()
  luamech.check(res.status == 200 and me and me.id == 42, "me is user 42")
  luamech.check(me and me.manager == luamech.json.null, "me has no manager")

  res = assert(api:patch("/api/me", nil, { headers = auth, json = { name = "Ada L." }, name = "update me" }))
  luamech.check(res.status == 200 and res:json().updated == true, "profile updated")

  res = assert(api:post("/api/logout", nil, { name = "logout" }))
  luamech.check(res.status == 200 and res.redirects == 1 and res:json().bye == true, "logged out via a redirect")

  -- after logout the session cookie is gone: the API says 401, as expected
  res = assert(api:get("/api/me", { headers = auth, expect = 401, name = "me after logout" }))
  luamech.check(res.status == 401, "no session after logout")
end
