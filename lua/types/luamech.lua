---@meta
-- luamech.lua - type definitions of luamech's Lua API for editors (the Lua
-- language server, LuaLS / EmmyLua annotations).  Not loaded by luamech:
-- `luamech new` copies it into a scenario folder's types/ and .luarc.json
-- points the editor at it.  Reference: docs/lua-api.md.
--
-- tests/scenarios/test_lua_types.sh checks this file against a running VU:
-- every function of `luamech`, its sub-tables and the client metatables must
-- be annotated here, and nothing here may name a function that does not
-- exist.  Conventions the test reads:
--   function luamech.a.b(...) end            a function of the API
--   local Var = {} -- registry: luamech.x    a class whose methods
--   function Var:m(...) end                    are those of metatable luamech.x
--   ---@overload right after ---@class       the table/class is callable
-- and the return shapes of the clients (docs/lua-api.md, "Conventions"):
-- misuse raises; a failure of the network returns nil, err, so a function
-- that can meet one is annotated `---@return T|nil x` then
-- `---@return string? err`, and luamech.http.new (no I/O) `T client` alone.

---@class luamech
---@field version string luamech's version, e.g. "0.1.0" (also in the scenario file)
---@field shared table a plain table shared by the VUs of one worker
---@field memcached luamech.memcached
---@field redis luamech.redis
---@field http luamech.http
---@field ws luamech.ws
---@field grpc luamech.grpc
---@field protobuf luamech.protobuf
---@field json luamech.json
---@field url luamech.url
---@field random luamech.random
---@field data luamech.data
---@field metrics luamech.metrics
---@field setup_data any what the scenario's setup() returned (a copy per worker, decoded from JSON; treat it as read-only); nil without setup
luamech = {}

-- ---------------------------------------------------------------- scenario file
-- A scenario file returns a luamech.Scenario; to have the editor check it:
--   ---@type luamech.Scenario
--   local scenario = { run_time = "1m", groups = { ... } }
--   return scenario

---@alias luamech.Duration string|number "250ms", "1.5s", "5m", "1h" (a bare number: seconds)
---@alias luamech.Count integer|string 10000, "10k", "1M"

---@class luamech.Scenario
---@field name? string name in reports and in the default results directory
---@field run_time? luamech.Duration default "10s"; 0 only with requests
---@field rampup? luamech.Duration closed/paced groups without stages start their VUs evenly over it
---@field interval? luamech.Duration statistics interval, whole 100 ms (default "10s")
---@field requests? luamech.Count transaction budget for the whole run
---@field workers? luamech.Count worker threads (default: number of CPUs)
---@field seed? luamech.Count seeds every VU's luamech.random stream
---@field graceful_stop? luamech.Duration time in-flight transactions get to finish (default "5s")
---@field notes? string free text for the report
---@field thresholds? string[] pass/fail criteria, e.g. "GET p95 < 5ms"
---@field abort_on_threshold? boolean stop at the first interval where a criterion fails
---@field max_timers? luamech.Count cap on distinct timer names, 1..1000000 (default 1000)
---@field console? "compact"|"full" the end report on the console: compact (default) or every table with the interval details (as --verbose)
---@field groups? luamech.Group[]
---@field phases? luamech.Phase[] runs done one after another
---@field setup? fun(): any runs once before the load, by one VU with every primitive; its result (JSON-representable) is luamech.setup_data in every VU
---@field teardown? fun(data: any) runs once after the load (also after an interrupt), with setup's result

---@class luamech.Phase
---@field name? string
---@field run_time? luamech.Duration
---@field rampup? luamech.Duration
---@field interval? luamech.Duration
---@field requests? luamech.Count
---@field workers? luamech.Count accepted, not used (the scenario's)
---@field seed? luamech.Count accepted, not used (the scenario's)
---@field graceful_stop? luamech.Duration
---@field notes? string
---@field groups? luamech.Group[]
---@field thresholds? string[]
---@field abort_on_threshold? boolean
---@field max_timers? luamech.Count
---@field console? "compact"|"full"

---@class luamech.Group
---@field name? string unique; its timer is "group <name>"
---@field script string VU script, relative to the scenario file
---@field model? "closed"|"paced"|"rate"
---@field vus? luamech.Count
---@field pacing? luamech.Duration paced: one transaction per VU every pacing
---@field rate? number rate: transactions started per second
---@field max_vus? luamech.Count rate: the pool of VUs may grow up to this
---@field stages? luamech.Stage[] piecewise-linear target (VUs or transactions/s)
---@field start? number the target at t = 0 with stages
---@field on_error? luamech.OnError closed: what a VU does after a failed transaction

---@class luamech.OnError
---@field pause luamech.Duration wait this long (1ms..1h) before the next transaction; not in response time

---@class luamech.Stage
---@field duration luamech.Duration
---@field target number

-- ---------------------------------------------------------------- core

---Pauses this VU for `seconds` (0..86400); other VUs run meanwhile. The time
---slept is left out of the transaction and of this VU's running timers. It
---never returns early, except when the run stops.
---@param seconds number
function luamech.sleep(seconds) end

---Starts (or restarts) the custom timer `name` (1..200 bytes); cached per VU
---and name. Measures wall time minus this VU's `luamech.sleep` time.
---@param name string
---@return luamech.Timer
function luamech.timer(name) end

---Records a duration the script measured under the custom timer `name`;
---`ok == false` records a failure.
---@param name string
---@param seconds number >= 0
---@param ok? boolean
function luamech.record(name, seconds, ok) end

---Counts a check `name` as passed (condition truthy) or failed; never raises.
---@param condition any
---@param name string
---@return boolean condition
function luamech.check(condition, name) end

---The VU's id: 1..total VUs, unique in the run.
---@return integer
function luamech.vu_id() end

---The VU's group name.
---@return string
function luamech.vu_group() end

---The VU's position in its group, from 1.
---@return integer
function luamech.vu_index() end

---The number of this VU's current transaction, from 1 (1 during init).
---@return integer
function luamech.iteration() end

---Seconds since the run's t = 0 (ns resolution; -0 during a preflight init).
---@return number
function luamech.now() end

---The worker thread running this VU, 1..workers.
---@return integer
function luamech.worker_id() end

---The value of `-e NAME=VALUE`, else the environment variable `name`, else
---`default`, else nil. Works in the scenario file too.
---@generic T
---@param name string
---@param default? T
---@return string|T
function luamech.param(name, default) end

---Ends the run gracefully, as at its deadline: in-flight transactions finish
---(graceful_stop), the results are written, the exit code is 0 or as the
---thresholds say; summary.json has status "stopped" and `reason`. This VU
---goes on with its transaction.
---@param reason? string
function luamech.stop(reason) end

---Ends the run now: in-flight requests are cancelled, the results are
---written, summary.json has status "script_aborted" and `reason`, and
---luamech exits with code 8. The calling VU never resumes.
---@param reason string
function luamech.abort(reason) end

-- ---------------------------------------------------------------- custom metrics

---Custom metrics, recorded per worker and merged at every tick: in
---summary.json ("counters", "gauges", "rates"), counters.csv, the console and
---thresholds ("NAME count < 10", "NAME value <= 100", "NAME rate > 95%").
---One object per name and worker; at most 1000 distinct names.
---@class luamech.metrics
luamech.metrics = {}

---A counter: whole numbers added up over the run (per interval in counters.csv).
---@param name string 1..200 bytes
---@return luamech.Counter
function luamech.metrics.counter(name) end

---A gauge: a level set or moved by whole numbers. Each worker holds its own
---level; the gauge is their sum (set it from one VU to report its value).
---@param name string 1..200 bytes
---@return luamech.Gauge
function luamech.metrics.gauge(name) end

---A rate: the share of true among the values added (e.g. cache hits).
---@param name string 1..200 bytes
---@return luamech.Rate
function luamech.metrics.rate(name) end

---Same as luamech.metrics.counter.
---@param name string
---@return luamech.Counter
function luamech.counter(name) end

---Same as luamech.metrics.gauge.
---@param name string
---@return luamech.Gauge
function luamech.gauge(name) end

---Same as luamech.metrics.rate.
---@param name string
---@return luamech.Rate
function luamech.rate(name) end

---@class luamech.Counter
local Counter = {} -- registry: luamech.counter

---Adds `n` (a whole number >= 0, default 1).
---@param n? integer
function Counter:add(n) end

---@class luamech.Gauge
local Gauge = {} -- registry: luamech.gauge

---Sets this worker's level to `v` (a whole number).
---@param v integer
function Gauge:set(v) end

---Moves this worker's level by `d` (a whole number, may be negative).
---@param d integer
function Gauge:add(d) end

---This worker's level.
---@return integer
function Gauge:value() end

---@class luamech.Rate
local Rate = {} -- registry: luamech.rate

---Counts `cond` as true or false (its truth); returns that truth.
---@param cond any
---@return boolean
function Rate:add(cond) end

-- ---------------------------------------------------------------- data

---Data files, read once per process and shared read-only by every VU of
---every worker (docs/lua-api.md#data-files).
---@class luamech.data
luamech.data = {}

---@class luamech.DataOptions
---@field header? boolean CSV: the first row names the fields (default true): rows are tables by name, else lists
---@field separator? string CSV: one character (default ",")
---@field pick? "sequential"|"circular"|"unique"|"random" what `next()` returns (default "sequential": each row once across all VUs)
---@field on_end? "error"|"stop"|"wrap" when `next()` runs out (sequential, unique): raise (default), stop the run (`next()` returns nil), or start again

---Loads a CSV file (RFC 4180 quoting; a path relative to the scenario's
---folder). A missing file or a malformed row (its line number) is an error.
---@param path string
---@param opts? luamech.DataOptions
---@return luamech.Dataset
function luamech.data.csv(path, opts) end

---Loads a file of JSON values, one per line (blank lines skipped; decoded
---with luamech.json.decode). A line that is not JSON is an error with its number.
---@param path string
---@param opts? luamech.DataOptions
---@return luamech.Dataset
function luamech.data.jsonl(path, opts) end

---@class luamech.Dataset
local Dataset = {} -- registry: luamech.dataset

---The next row by the data set's `pick`; nil when it ran out with on_end = "stop".
---@return table|nil
function Dataset:next() end

---Row `i` (1..#data set).
---@param i integer
---@return table
function Dataset:get(i) end

---A row drawn from the VU's seeded random stream.
---@return table
function Dataset:random() end

---The number of rows (also `#ds`).
---@return integer
function Dataset:len() end

---CSV with a header: the field names in order; else nil.
---@return string[]|nil
function Dataset:columns() end

---@class luamech.Timer
local Timer = {} -- registry: luamech.timer

---Stops the timer and records one sample (a failure when `ok == false`).
---@param ok? boolean
---@return number seconds measured
function Timer:stop(ok) end

---Restarts the timer (also when running).
---@return luamech.Timer
function Timer:start() end

---Seconds so far (sleep left out); 0 when not running.
---@return number
function Timer:elapsed() end

-- ---------------------------------------------------------------- random

---The VU's own random stream (xoshiro256**, seeded from the run seed and the
---VU id). Call it: `random()` -> [0, 1), `random(n)` -> [1, n],
---`random(m, n)` -> [m, n]. Its fields build generators of distributions
---whose draws use the calling VU's stream.
---@class luamech.random
---@overload fun(): number
---@overload fun(n: integer): integer
---@overload fun(m: integer, n: integer): integer
luamech.random = {}

---Zipf over ranks 1..n: P(k) proportional to k^-s (rank 1 the most
---frequent). Rejection-inversion: O(1) per draw, no table.
---@param n integer 1..2^53
---@param s? number exponent, > 0 and <= 100 (default 0.99)
---@return luamech.IntGenerator
function luamech.random.zipf(n, s) end

---Normal distribution (Box-Muller).
---@param mean number
---@param sd number >= 0
---@return luamech.NumberGenerator
function luamech.random.gaussian(mean, sd) end

---Exponential distribution with the given mean (e.g. think times, Poisson
---inter-arrival times).
---@param mean number > 0
---@return luamech.NumberGenerator
function luamech.random.exponential(mean) end

---Pareto (type I): draws >= scale, P(X > x) = (scale / x)^shape.
---@param scale number > 0, the minimum
---@param shape number > 0 (1.16: the 80/20 rule)
---@return luamech.NumberGenerator
function luamech.random.pareto(scale, shape) end

---Weighted choice (alias table, O(1) per draw): `weighted{ get = 90, set = 10 }`
---draws "get" 90% of the time; a list `weighted{ 5, 3, 2 }` draws an index.
---@param weights table<string, number>|number[] non-negative, not all 0
---@return luamech.WeightedGenerator
function luamech.random.weighted(weights) end

---A generator: call it to draw.
---@class luamech.Generator
---@overload fun(): any
local Generator = {} -- registry: luamech.random.generator

---@class luamech.IntGenerator: luamech.Generator
---@overload fun(): integer

---@class luamech.NumberGenerator: luamech.Generator
---@overload fun(): number

---@class luamech.WeightedGenerator: luamech.Generator
---@overload fun(): string|integer

---@class luamech.KeyGenerator: luamech.Generator
---@overload fun(): string

---@class luamech.KeysOptions
---@field pattern "sequential"|"uniform"|"gaussian"|"zipf"
---@field n integer how many keys: indexes 1..n
---@field prefix? string default "key:" (at most 200 bytes)
---@field s? number zipf exponent (default 0.99)
---@field mean? number gaussian centre (default (n + 1) / 2)
---@field sd? number gaussian spread (default n / 6)

---Key names by memtier/YCSB pattern: `prefix .. index`, index in 1..n.
---sequential: 1, 2, ..., n, 1, ... over this generator's own draws;
---uniform; gaussian (draws outside 1..n are drawn again); zipf (1 hottest).
---@param opts luamech.KeysOptions
---@return luamech.KeyGenerator
function luamech.keys(opts) end

-- ---------------------------------------------------------------- memcached

---@class luamech.memcached
luamech.memcached = {}

---@class luamech.TlsOptions
---@field ca_file? string PEM file of the CAs to trust (default: the system store)
---@field insecure? boolean true: no verification at all (default false)
---@field server_name? string SNI and the name (or IP) checked (default: the address's host)
---@field cert? string client certificate chain (PEM)
---@field key? string its key (PEM; default: in cert)
---@field min_version? "1.2"|"1.3" default "1.2"
---@field alpn? string protocols offered, "a,b" (https default "http/1.1")

---@class luamech.MemcachedOptions
---@field timeout? number seconds per request, 0..86400 (default 10; 0 = none)
---@field connect_timeout? number seconds per connection attempt (default: timeout)
---@field distribution? "ketama"|"modula" key -> server mapping (default "ketama")
---@field pool? boolean share one client per worker (default false)
---@field tls? boolean|luamech.TlsOptions TLS to every server (memcached -Z)
---@field protocol? "text"|"meta" "meta": get, gets, get_multi as meta gets (mg; memcached 1.6+) (default "text")

---Connects to `servers` ("host[:port][,host[:port]...]", port 11211).
---@param servers string
---@param opts? luamech.MemcachedOptions
---@return luamech.MemcachedClient|nil client
---@return string? err
function luamech.memcached.connect(servers, opts) end

---@class luamech.MemcachedClient
local MemcachedClient = {} -- registry: luamech.memcached

---@param key string
---@return string|nil value nil, "miss" when absent
---@return integer|string flags_or_err
function MemcachedClient:get(key) end

---@param key string
---@return string|nil value
---@return integer|string flags_or_err
---@return number? cas
function MemcachedClient:gets(key) end

---@param keys string[]
---@return table<string, string>|nil found
---@return string? err
function MemcachedClient:get_multi(keys) end

---@param key string
---@param value string|number
---@param exptime? integer
---@param flags? integer
---@return true|nil ok
---@return string? err "NOT_STORED" or a failure
function MemcachedClient:set(key, value, exptime, flags) end

---@param key string
---@param value string|number
---@param exptime? integer
---@param flags? integer
---@return true|nil ok
---@return string? err
function MemcachedClient:add(key, value, exptime, flags) end

---@param key string
---@param value string|number
---@param exptime? integer
---@param flags? integer
---@return true|nil ok
---@return string? err
function MemcachedClient:replace(key, value, exptime, flags) end

---@param key string
---@param value string|number
---@param exptime? integer
---@param flags? integer
---@return true|nil ok
---@return string? err
function MemcachedClient:append(key, value, exptime, flags) end

---@param key string
---@param value string|number
---@param exptime? integer
---@param flags? integer
---@return true|nil ok
---@return string? err
function MemcachedClient:prepend(key, value, exptime, flags) end

---@param key string
---@param value string|number
---@param cas number from gets
---@param exptime? integer
---@param flags? integer
---@return true|nil ok
---@return string? err "EXISTS", "NOT_FOUND" or a failure
function MemcachedClient:cas(key, value, cas, exptime, flags) end

---@param key string
---@return true|nil ok
---@return string? err "NOT_FOUND" or a failure
function MemcachedClient:delete(key) end

---@param key string
---@param delta? integer >= 0 (default 1)
---@return number|nil value
---@return string? err
function MemcachedClient:incr(key, delta) end

---@param key string
---@param delta? integer >= 0 (default 1)
---@return number|nil value
---@return string? err
function MemcachedClient:decr(key, delta) end

---@param key string
---@param exptime integer
---@return true|nil ok
---@return string? err
function MemcachedClient:touch(key, exptime) end

---Cancels pending requests and closes the connections (not a pooled client).
function MemcachedClient:close() end

---@return string[] servers "host:port" strings
function MemcachedClient:servers() end

-- ---------------------------------------------------------------- redis

---@class luamech.redis
luamech.redis = {}

---@class luamech.RedisOptions
---@field timeout? number seconds per request, 0..86400 (default 10; 0 = none)
---@field connect_timeout? number seconds for connect + AUTH/SELECT (default: timeout)
---@field password? string AUTH on every (re)connect
---@field db? integer SELECT on every (re)connect when > 0, 0..1000000 (default 0)
---@field pool? boolean share one client per worker (default false)
---@field max_reply? integer largest reply accepted in bytes, 1..2^40 (default 64 MiB)
---@field max_elements? integer array elements in one reply, all levels, 1..2^31-1 (default 1048576)
---@field max_depth? integer nested arrays in one reply, 1..7 (default 7)
---@field tls? boolean|luamech.TlsOptions TLS (also: a "rediss://host:port" address)
---@field cluster? boolean address is a redis Cluster's seeds "host:port,host:port,...": slots discovered, commands routed by key, MOVED/ASK followed (not with tls or db) (default false)

---Connects to "host:port", "host" (6379), "[v6]:port", "/unix/socket" or "rediss://host:port" (TLS);
---with opts.cluster, to a redis Cluster through its seeds "host:port,host:port,...".
---@param address string
---@param opts? luamech.RedisOptions
---@return luamech.RedisClient|nil client
---@return string? err
function luamech.redis.connect(address, opts) end

---@class luamech.RedisClient
local RedisClient = {} -- registry: luamech.redis

---Sends any command (not pub/sub or MONITOR); the reply converted to Lua.
---@param cmd string
---@param ... string|number
---@return any reply
---@return string? err
function RedisClient:call(cmd, ...) end

---Sends every command at once; `t[i]` is the i-th reply, `t.n` the count.
---An argument may be a `luamech.keys` generator: a key drawn per command.
---@param cmds (string|number|luamech.KeyGenerator)[][]|luamech.RedisPrepared
---@return table|nil replies
---@return string? err
function RedisClient:pipeline(cmds) end

---A pipeline checked and encoded once, for `r:pipeline(prepared)` on any
---redis client of this worker; `luamech.keys` arguments are drawn anew at
---each send.
---@class luamech.RedisPrepared

---@param cmds (string|number|luamech.KeyGenerator)[][]
---@return luamech.RedisPrepared
function RedisClient:prepare(cmds) end

---Pending requests fail with "cancelled".
function RedisClient:close() end

---@param key string
---@return string|nil value
---@return string? err
function RedisClient:get(key) end

---@param key string
---@param value string|number
---@param ... string|number e.g. "EX", 60
---@return string|nil reply
---@return string? err
function RedisClient:set(key, value, ...) end

---@param key string
---@param ... string
---@return integer|nil deleted
---@return string? err
function RedisClient:del(key, ...) end

---@param key string
---@return integer|nil value
---@return string? err
function RedisClient:incr(key) end

---@param key string
---@param field string
---@return string|nil value
---@return string? err
function RedisClient:hget(key, field) end

---@param key string
---@param field string
---@param value string|number
---@param ... string|number more field, value pairs
---@return integer|nil added
---@return string? err
function RedisClient:hset(key, field, value, ...) end

---@param key string
---@param value string|number
---@param ... string|number
---@return integer|nil length
---@return string? err
function RedisClient:lpush(key, value, ...) end

---@param key string
---@return string|nil value
---@return string? err
function RedisClient:rpop(key) end

---@return string|nil pong
---@return string? err
function RedisClient:ping() end

---@param key string
---@param ... string
---@return integer|nil count
---@return string? err
function RedisClient:exists(key, ...) end

---@param key string
---@param seconds integer
---@return integer|nil set
---@return string? err
function RedisClient:expire(key, seconds) end

-- ---------------------------------------------------------------- http

---@class luamech.http
luamech.http = {}

---@class luamech.HttpOptions
---@field pool? boolean share connections with the worker's clients of the same host (default false)
---@field keepalive? boolean default true
---@field timeout? number seconds per request (default 10; 0 = none)
---@field connect_timeout? number seconds per connection, TCP + TLS (default: only the request's timeout)
---@field headers? table<string, string> sent with every request
---@field max_body? integer largest response body accepted in bytes, 1..1073741824 (default 64 MiB)
---@field discard_body? boolean true: count the body's bytes but keep none (res.body is nil) (default false)
---@field jar? boolean false: no cookie jar (default: this client keeps the cookies servers set, RFC 6265)
---@field tls? luamech.TlsOptions for the https:// base URL and every https:// origin reached (absolute URLs, redirects)
---@field tags? table<string, string|number|boolean> default tags of every request (docs/http.md#tags)
---@field dns? luamech.HttpDnsOptions host name lookups (default { ttl = 300 })
---@field credential_headers? string[] more headers that carry credentials (at most 16), e.g. {"X-Api-Key"}: like Authorization, Proxy-Authorization and Cookie, sent to the base URL's origin only (docs/http.md#credentials-and-redirects)
---@field http? "1.1"|"2"|"auto" protocol (default "auto"): "auto" ALPN's choice on https://, HTTP/1.1 on http://; "1.1" HTTP/1.1 only; "2" HTTP/2 (h2c with prior knowledge on http://, ALPN h2 required on https://) (docs/http.md#http2)
---@field max_streams? integer HTTP/2 streams per connection, 1..1000 (default 100; the server's SETTINGS_MAX_CONCURRENT_STREAMS also caps them)

---@class luamech.HttpDnsOptions
---@field ttl? number seconds a looked-up address serves new connections (default 300; 0 = look up for every new connection; math.huge = once)

---@class luamech.HttpRequestOptions
---@field headers? table<string, string>
---@field body? string (request only)
---@field json? any a body encoded as JSON (Content-Type: application/json)
---@field form? table<string, any> a url-encoded body (Content-Type: application/x-www-form-urlencoded)
---@field query? table<string, any> added to the path as ?k=v&... (encoded)
---@field name? string also time the call under "http <name>"
---@field timeout? number seconds, for the whole redirect chain (default: the client's)
---@field max_body? integer for this request (default: the client's)
---@field discard_body? boolean for this request (default: the client's)
---@field expect? integer|(integer|string)[] statuses that count as success, e.g. {200, "400-404"} (default 200-399)
---@field redirects? integer redirects to follow, 0 = off (default 10)
---@field allow_downgrade? boolean true: follow a redirect from https to http (default: refused, the call fails); credentials are not sent there
---@field credential_headers? string[] more headers of this request that carry credentials: sent to its first origin only (docs/http.md#credentials-and-redirects)
---@field tags? table<string, string|number|boolean> also time the call under a tagged timer "<timer>{k=v,...}" (tags.name: as name)

---@class luamech.HttpResponse
---@field status integer
---@field headers table<string, string> lowercase names; repeated headers joined with ", " (Set-Cookie: the first)
---@field body string|nil nil with discard_body
---@field body_bytes integer
---@field redirects integer|nil redirects followed (nil when none)
---@field proto "HTTP/2"|"HTTP/1.1"|"HTTP/1.0" the protocol the response came over
---@field cookies table<string, string> the cookies this response set (name = value)
---@field json fun(self: luamech.HttpResponse, opts?: luamech.JsonLimits): any, string? res:json(): the body decoded (once); nil, err over the limits (16 MiB, 1,000,000 values)
---@field header_all fun(self: luamech.HttpResponse, name: string): string[] every value of a header

---A client for `base_url` ("http://host[:port]" or "https://host[:port]");
---connects (and looks the host up) on first use, so it never returns nil:
---a bad URL or option, or a TLS file that cannot be loaded, raises; the
---requests return nil, err when the network fails.
---@param base_url string
---@param opts? luamech.HttpOptions
---@return luamech.HttpClient client
function luamech.http.new(base_url, opts) end

---@class luamech.HttpClient
local HttpClient = {} -- registry: luamech.http

---@param method "GET"|"HEAD"|"POST"|"PUT"|"PATCH"|"DELETE"|"OPTIONS"
---@param path string
---@param opts? luamech.HttpRequestOptions
---@return luamech.HttpResponse|nil res
---@return string? err
function HttpClient:request(method, path, opts) end

---@param path string
---@param opts? luamech.HttpRequestOptions
---@return luamech.HttpResponse|nil res
---@return string? err
function HttpClient:get(path, opts) end

---@param path string
---@param opts? luamech.HttpRequestOptions
---@return luamech.HttpResponse|nil res
---@return string? err
function HttpClient:head(path, opts) end

---@param path string
---@param opts? luamech.HttpRequestOptions
---@return luamech.HttpResponse|nil res
---@return string? err
function HttpClient:delete(path, opts) end

---@param path string
---@param body? string
---@param opts? luamech.HttpRequestOptions
---@return luamech.HttpResponse|nil res
---@return string? err
function HttpClient:post(path, body, opts) end

---@param path string
---@param body? string
---@param opts? luamech.HttpRequestOptions
---@return luamech.HttpResponse|nil res
---@return string? err
function HttpClient:put(path, body, opts) end

---@param path string
---@param body? string
---@param opts? luamech.HttpRequestOptions
---@return luamech.HttpResponse|nil res
---@return string? err
function HttpClient:patch(path, body, opts) end

---@param path string
---@param opts? luamech.HttpRequestOptions
---@return luamech.HttpResponse|nil res
---@return string? err
function HttpClient:options(path, opts) end

---Several requests at once over several connections; returns when all are
---done.  Each entry is {method, path [, opts]} or a path (GET).
---@param requests (string|table)[]
---@return (luamech.HttpResponse|false)[] results false for a failure
---@return table<integer, string> errors errors[i] for results[i] == false
function HttpClient:batch(requests) end

---Requests in flight fail with "cancelled"; later calls raise.
function HttpClient:close() end

-- ---------------------------------------------------------------- ws

---@class luamech.ws
luamech.ws = {}

---@class luamech.WsOptions
---@field headers? table<string, string> extra headers of the Upgrade request (not Host, Upgrade, Connection, Sec-WebSocket-*)
---@field subprotocols? string|string[] offered in Sec-WebSocket-Protocol; the server's choice: ws:protocol()
---@field timeout? number seconds, 0..86400 (default 10; 0 = none): each receive by default, the close
---@field connect_timeout? number seconds for the handshake: TCP, TLS, Upgrade (default: timeout)
---@field max_message? integer bytes of one received message, fragments reassembled, 1..2^30 (default 1 MiB)
---@field max_queue? integer bytes of received messages waiting for ws:receive, 1..2^30 (default 4 MiB)
---@field tls? boolean|luamech.TlsOptions TLS settings for a "wss://" URL

---Opens a WebSocket: "ws://host[:port]/path" or "wss://..." (TLS); yields until
---the handshake is done.
---@param url string
---@param opts? luamech.WsOptions
---@return luamech.WebSocket|nil ws
---@return string? err
function luamech.ws.connect(url, opts) end

---@class luamech.WebSocket
local WebSocket = {} -- registry: luamech.ws

---Queues one message (it leaves at the end of the loop turn; no yield).
---Text must be UTF-8.
---@param data string
---@param kind? "text"|"binary" default "text"
---@return true|nil ok
---@return string? err
function WebSocket:send(data, kind) end

---Sends a ping (at most 125 bytes); its pong is not waited for.
---@param data? string
---@return true|nil ok
---@return string? err
function WebSocket:ping(data) end

---Waits for the next message: data and its kind, or nil, err and the close
---code (nil for a timeout, which leaves the connection usable).
---@param timeout? number seconds (default: connect's timeout)
---@return string|nil data
---@return string err_or_kind "text"|"binary", or why it failed
---@return integer? code
function WebSocket:receive(timeout) end

---The close handshake: the server's close code and reason.
---@param code? integer default 1000 (1000-1003, 1007-1014, 3000-4999)
---@param reason? string UTF-8, at most 123 bytes
---@return integer|nil code
---@return string? reason_or_err
---@return integer? err_code
function WebSocket:close(code, reason) end

---nil while open, else the close code (1006: ended without a close frame) and reason.
---@return integer? code
---@return string? reason
function WebSocket:closed() end

---The subprotocol the server chose, or "".
---@return string
function WebSocket:protocol() end
-- ---------------------------------------------------------------- grpc

---@class luamech.grpc
luamech.grpc = {}

---@class luamech.GrpcOptions
---@field proto string a .proto file (luamech runs protoc --include_imports; its folder is the import path) or a descriptor set file; relative to the scenario's folder
---@field tls? boolean|luamech.TlsOptions TLS with ALPN h2 (default: plaintext h2c with prior knowledge)
---@field metadata? table<string,string> sent with every call (lowercase names)
---@field timeout? number seconds per call, 0..86400 (default 10; 0 = none); sent as grpc-timeout
---@field connect_timeout? number seconds for connect + TLS (default: timeout)
---@field pool? boolean share one client (one HTTP/2 connection) per worker (default false)
---@field max_recv? integer largest response message in bytes, 1..2^30 (default 4 MiB), as received and once decompressed
---@field compression? "gzip"|"none" "gzip": requests gzip-compressed (grpc-encoding) and grpc-accept-encoding: gzip offered (default "none")

---Connects to "host:port" over HTTP/2 (h2c, or TLS with `tls`).
---@param target string
---@param opts luamech.GrpcOptions
---@return luamech.GrpcClient|nil client
---@return string? err
function luamech.grpc.connect(target, opts) end

---@class luamech.GrpcCallOptions
---@field metadata? table<string,string> added to the client's for this call
---@field timeout? number seconds (default: the client's)
---@field name? string the timer is "grpc <name>" instead of "grpc <method>"

---@class luamech.GrpcClient
local GrpcClient = {} -- registry: luamech.grpc.client

---A unary call: the response table (nil unless the status is OK), the
---status code (0 = OK) and its message ("" when OK). A failed call
---returns its status; only script mistakes raise.
---@param method string "pkg.Service/Method"
---@param request table the request message as a table
---@param opts? luamech.GrpcCallOptions
---@return table|nil response
---@return integer code
---@return string message
function GrpcClient:invoke(method, request, opts) end

---A server-streaming call: every response (an array of tables, nil unless
---the status is OK) once the stream ended, the status code and message.
---@param method string "pkg.Service/Method"
---@param request table
---@param opts? luamech.GrpcCallOptions
---@return table[]|nil responses
---@return integer code
---@return string message
function GrpcClient:stream(method, request, opts) end

---A call of a server-streaming, client-streaming or bidirectional method,
---read and written while it runs. `request`, when given, is its first
---message (required for a server-streaming method). Unary methods raise.
---@param method string "pkg.Service/Method"
---@param request? table
---@param opts? luamech.GrpcCallOptions timeout is for the whole call
---@return luamech.GrpcStream stream
function GrpcClient:open_stream(method, request, opts) end

---Calls in flight end with CANCELLED (1).
function GrpcClient:close() end

---@class luamech.GrpcStream
local GrpcStream = {} -- registry: luamech.grpc.stream

---The next message (yields the VU until it arrives), or at the end nil,
---the status code (0 = OK) and its message. Server-streaming and
---bidirectional methods (a client-streaming one raises).
---@return table|nil message
---@return integer? code
---@return string? message
function GrpcStream:recv() end

---One more request (client-streaming, bidirectional); never yields: it
---leaves as the server's flow-control window allows. nil, err when the
---call is over or 16 MiB wait for the window.
---@param request table
---@return true|nil ok
---@return string? err
function GrpcStream:send(request) end

---Ends the requests. Client-streaming: waits and returns the reply (nil
---unless OK), the status code and message, as c:invoke; others: true.
---@return table|true|nil reply
---@return integer? code
---@return string? message
function GrpcStream:close_send() end

---Resets the call: it ends CANCELLED (1).
function GrpcStream:cancel() end

-- ---------------------------------------------------------------- protobuf

---@class luamech.protobuf
luamech.protobuf = {}

---A schema from a .proto (compiled by protoc) or a descriptor set file.
---@param path string relative to the scenario's folder
---@return luamech.ProtobufSchema
function luamech.protobuf.load(path) end

---@class luamech.ProtobufSchema
local ProtobufSchema = {} -- registry: luamech.protobuf.schema

---@param type string a message's full name, "pkg.Message"
---@param message table
---@return string bytes
function ProtobufSchema:encode(type, message) end

---@param type string
---@param bytes string
---@return table|nil message
---@return string? err
function ProtobufSchema:decode(type, bytes) end

---@return string[] names the full names of every message type
function ProtobufSchema:types() end

-- ---------------------------------------------------------------- json

---JSON through jansson.  null is luamech.json.null; decoded arrays are
---marked so that [] stays [] when encoded again; numbers are doubles.
---@class luamech.json
---@field null lightuserdata JSON null
luamech.json = {}

---@param value any
---@return string json compact, object keys sorted; raises on cycles, functions, NaN
function luamech.json.encode(value) end

---@class luamech.JsonLimits
---@field max_bytes? integer the longest text decoded, in bytes (default 16 MiB; up to 1 GiB)
---@field max_values? integer the most values (arrays, objects, keys, strings, numbers, ...) (default 1,000,000)

---@param text string
---@param opts? luamech.JsonLimits
---@return any|nil value
---@return string? err nil, err too when the text is over the limits
function luamech.json.decode(text, opts) end

---Marks t (or a new table) as an array: encoded as [] even when empty.
---@param t? table
---@return table t
function luamech.json.array(t) end

-- ---------------------------------------------------------------- url

---@class luamech.url
luamech.url = {}

---Percent-encodes every byte but A-Z a-z 0-9 - . _ ~ (form: space as +).
---@param s string
---@param form? boolean
---@return string
function luamech.url.encode(s, form) end

---@param s string
---@param form? boolean '+' as a space
---@return string|nil decoded
---@return string? err
function luamech.url.decode(s, form) end

---base .. path, with query (encoded) after ? (or & when path has a query).
---@param base string
---@param path? string
---@param query? table<string, any>
---@return string
function luamech.url.build(base, path, query) end
