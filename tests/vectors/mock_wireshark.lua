-- Runs the whole plugin (dissector, caches, verdicts) under a minimal stand-in for
-- Wireshark's Lua API, fed from a vector input (tests/vectors/*.input.tsv on stdin), to
-- check what tshark cannot: re-dissection in random order shows exactly what the first
-- pass showed, the pass without a protocol tree is survived, and no global leaks.
--   lua5.x tests/vectors/mock_wireshark.lua wireshark-plugin/tcpdiag.lua SEED < NAME.input.tsv
-- Prints "ok <frames> <items>" or the first differences, and exits 1 on a failure.
local plugin_path, seed = arg[1], tonumber(arg[2] or "1")

local split = dofile((arg[0]:match("^(.*)[/\\]") or ".") .. "/split.lua")

-- Packet bytes (a stand-in Tvb) and the frames as the field extractors return them.
local function tvb_of(bytes)
    return { len = function() return #bytes end,
             raw = function(_, off, n) return bytes:sub(off + 1, off + n) end }
end
local function be(n, width)
    local out = {}
    for i = width, 1, -1 do
        out[i] = string.char(n % 256)
        n = math.floor(n / 256)
    end
    return table.concat(out)
end
local function tcp_header(v)
    local opts = ""
    if v.mss ~= "" then opts = opts .. "\2\4" .. be(tonumber(v.mss), 2) end
    if v.wscale ~= "" then opts = opts .. "\3\3" .. be(tonumber(v.wscale), 1) end
    if v.sack ~= "" then
        local blocks = split(v.sack, ",")
        opts = opts .. "\5" .. string.char(2 + 8 * #blocks)
        for _, b in ipairs(blocks) do
            local l, r = b:match("^(%d+):(%d+)$")
            opts = opts .. be(tonumber(l), 4) .. be(tonumber(r), 4)
        end
    end
    if v.tsval ~= "" then opts = opts .. "\8\10" .. be(tonumber(v.tsval), 4) .. be(tonumber(v.tsecr), 4) end
    while #opts % 4 ~= 0 do opts = opts .. "\0" end
    local words = (20 + #opts) / 4
    local flags = tonumber(v.flags)
    return be(tonumber(v.sport), 2) .. be(tonumber(v.dport), 2) .. be(tonumber(v.seq), 4) .. be(tonumber(v.ack), 4)
        .. be(words * 4096 + flags, 2) .. be(tonumber(v.window), 2) .. "\0\0\0\0" .. opts
end
local function ip_header(v)
    if v.ipv == "6" then
        local a = (v.src .. string.rep("\0", 16)):sub(1, 16)
        return "\96" .. string.rep("\0", 7) .. a .. string.rep("\0", 16), 8
    end
    local a = ""
    for octet in v.src:gmatch("%d+") do a = a .. string.char(tonumber(octet)) end
    return "\69\0\0\0" .. be(tonumber(v.ip_id), 2) .. "\0\0\64\6\0\0" .. a .. "\0\0\0\0", 12
end

local header = split(io.read("*l"), "\t")
local frames, order = {}, {}
for line in io.lines() do
    local v = {}
    for i, x in ipairs(split(line, "\t")) do v[header[i]] = x end
    local f = {}
    local num = tonumber(v.frame)
    local secs, frac = v.time:match("^(-?%d+)%.?(%d*)$")
    f["frame.number"] = { { value = num } }
    f["frame.time_epoch"] = { { value = { secs = tonumber(secs), nsecs = tonumber((frac .. "000000000"):sub(1, 9)) } } }
    local net = v.ipv == "6" and "ipv6" or "ip"
    f["frame.protocols"] = { { value = v.kind == "quoted" and ("raw:" .. net .. ":icmp:" .. net .. ":tcp")
                                        or ("raw:" .. net .. ":tcp") } }
    f["tcp.stream"] = { { value = tonumber(v.stream) } }
    if v.kind == "skip" then f["tcp.stream"][2] = { value = tonumber(v.stream) } end
    f["tcp.srcport"] = { { value = tonumber(v.sport), source = tvb_of(tcp_header(v)), offset = 0 } }
    f["tcp.len"] = { { value = tonumber(v.len) } }
    local iph, src_at = ip_header(v)
    f[net .. ".src"] = { { value = v.src, source = tvb_of(iph), offset = src_at } }
    frames[num] = f
    order[#order + 1] = num
end

-- The stand-in API.
local current, blind = nil, false
local MOCK_GLOBALS = { "Proto", "ProtoField", "ProtoExpert", "Field", "Pref", "expert", "base", "Int64",
                       "register_postdissector", "gui_enabled", "register_menu", "TextWindow",
                       "MENU_TOOLS_UNSORTED" }
local function unpack_fi(list, i)
    if list == nil or list[i] == nil then return end
    return list[i], unpack_fi(list, i + 1)
end
Field = { new = function(name)
    return function()
        if blind or current == nil then return end
        return unpack_fi(current[name], 1)
    end
end }
ProtoField = setmetatable({}, { __index = function(_, kind)
    return function(abbr) return { abbr = abbr, kind = kind } end
end })
ProtoExpert = { new = function(abbr) return { abbr = abbr } end }
expert = { group = setmetatable({}, { __index = function(_, k) return k end }),
           severity = setmetatable({}, { __index = function(_, k) return k end }) }
base = { DEC = "dec", NONE = "none", HEX = "hex" }
Int64 = { new = function(x) return x end }
Pref = setmetatable({}, { __index = function(_, kind)
    return function(label, default) return { default = default } end
end })
local proto
Proto = function(name)
    local prefs = setmetatable({}, { __newindex = function(t, k, p) rawset(t, k, p.default) end })
    proto = { name = name, prefs = prefs }
    return proto
end
register_postdissector = function() end
gui_enabled = function() return false end

-- A tree that records (field, value) pairs in order.
local Tree = {}
Tree.__index = Tree
local function tree(out) return setmetatable({ out = out }, Tree) end
function Tree:add(f, value)
    local name = f == proto and "tcpdiag" or f.abbr
    local shown = value
    if type(value) == "number" then shown = string.format("%.17g", value) end
    self.out[#self.out + 1] = name .. "=" .. tostring(shown)
    return self
end
function Tree:set_generated() return self end
function Tree:append_text(s) self.out[#self.out + 1] = "+" .. s; return self end
function Tree:add_proto_expert_info(e, text) self.out[#self.out + 1] = "!" .. e.abbr .. "=" .. text; return self end

local before = {}
for k in pairs(_G) do before[k] = true end
for _, k in ipairs(MOCK_GLOBALS) do before[k] = true end

dofile(plugin_path)

local function dissect(num, visited)
    current = frames[num]
    local out = {}
    proto.dissector(nil, { number = num, visited = visited }, tree(out))
    return out
end
local function causal(out)   -- what the first pass may know: up to the per-flow verdict
    local keep = {}
    for _, x in ipairs(out) do
        if x:find("^tcpdiag%.spurious_proven_in") or x:find("^tcpdiag%.flow%.") then break end
        if not x:find("^!tcpdiag%.analysis%.spurious") then keep[#keep + 1] = x end
    end
    return table.concat(keep, "\n")
end

local failures = 0
local function fail(msg)
    failures = failures + 1
    if failures <= 5 then io.write(msg, "\n") end
end

-- 1. First pass in order (Wireshark loading the file), then every frame again in a
--    random order, twice: the later passes agree with each other and, for the causal
--    part, with the first.
proto.init()
proto.prefs_changed()
local first, items = {}, 0
for _, num in ipairs(order) do first[num] = dissect(num, false) end
math.randomseed(seed)
local function shuffled()
    local s = {}
    for i, n in ipairs(order) do s[i] = n end
    for i = #s, 2, -1 do
        local j = math.random(i)
        s[i], s[j] = s[j], s[i]
    end
    return s
end
local second = {}
for _, num in ipairs(shuffled()) do second[num] = table.concat(dissect(num, true), "\n") end
for _, num in ipairs(shuffled()) do
    local again = table.concat(dissect(num, true), "\n")
    if again ~= second[num] then fail("frame " .. num .. ": random-order passes differ") end
end
for _, num in ipairs(order) do
    items = items + #first[num]
    if causal(first[num]) ~= causal(split(second[num], "\n")) then
        fail("frame " .. num .. ": first pass\n" .. causal(first[num]) .. "\nlater pass\n" .. causal(split(second[num], "\n")))
    end
end

-- 2. tshark -2 without a read filter: the first pass has no tree (no fields); the
--    in-order second pass must show what the normal first pass showed.
proto.init()
blind = true
for _, num in ipairs(order) do dissect(num, false) end
blind = false
for _, num in ipairs(order) do
    local out = dissect(num, true)
    if causal(out) ~= causal(first[num]) then fail("frame " .. num .. ": blind first pass changed the values") end
end

-- 3. No globals beyond the API stand-ins.
for k in pairs(_G) do
    if not before[k] then fail("global leaked: " .. tostring(k)) end
end

if failures > 0 then
    io.write(failures, " failures\n")
    os.exit(1)
end
io.write(string.format("ok %d %d\n", #order, items))
