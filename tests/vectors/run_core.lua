-- Runs the plugin's analysis core standalone over a vector input (tests/vectors/*.input.tsv
-- on stdin) and prints `frame,<analysis columns>` rows as `tcpdiag packets --analysis`
-- does, then one `#verdict` line per flow finding.
--   lua5.x tests/vectors/run_core.lua wireshark-plugin/tcpdiag.lua < NAME.input.tsv
local core = dofile(arg[1])
local analyzer = core.new()

local split = dofile((arg[0]:match("^(.*)[/\\]") or ".") .. "/split.lua")
local function opt(s) if s ~= "" then return tonumber(s) end end

local header = split(io.read("*l"), "\t")
local col = {}
for i, name in ipairs(header) do col[name] = i end

io.write("frame,", table.concat(core.COLUMNS, ","), "\n")
local base_secs = {}   -- per flow, as the plugin does
for line in io.lines() do
    local v = split(line, "\t")
    local function get(name) return v[col[name]] end
    local secs, frac = get("time"):match("^(-?%d+)%.?(%d*)$")
    secs = tonumber(secs)
    local nsecs = tonumber((frac .. "000000000"):sub(1, 9))
    local frame, stream, kind = tonumber(get("frame")), tonumber(get("stream")), get("kind")
    if base_secs[stream] == nil then base_secs[stream] = secs end
    local ts = (secs - base_secs[stream]) * 1e9 + nsecs
    local epoch0 = -base_secs[stream] * 1e9
    if kind == "quoted" then
        analyzer:open_only(stream, get("src"), tonumber(get("sport")), frame, epoch0)
    elseif kind == "tcp" then
        local sack
        if get("sack") ~= "" then
            sack = {}
            for _, b in ipairs(split(get("sack"), ",")) do
                local l, r = b:match("^(%d+):(%d+)$")
                sack[#sack + 1] = { tonumber(l), tonumber(r) }
            end
        end
        local n = analyzer:segment({
            frame = frame, ts = ts, epoch0 = epoch0, stream = stream, src = get("src"),
            sport = tonumber(get("sport")), seq = tonumber(get("seq")), ack = tonumber(get("ack")),
            len = tonumber(get("len")), flags = tonumber(get("flags")), window = tonumber(get("window")),
            mss = opt(get("mss")), wscale = opt(get("wscale")), sack = sack, tsval = opt(get("tsval")),
            tsecr = opt(get("tsecr")), ip_version = tonumber(get("ipv")), ip_id = opt(get("ip_id")),
        })
        io.write(string.format("%.0f", frame), ",", table.concat(core.cells(n), ","), "\n")
    end
end

local streams = {}
for s in pairs(analyzer.flows) do streams[#streams + 1] = s end
table.sort(streams)
for _, s in ipairs(streams) do
    local v = analyzer:verdict(s)
    for _, f in ipairs(v.findings) do
        local frames = {}
        for i, x in ipairs(f.frames) do frames[i] = string.format("%.0f", x) end
        local entry = core.CATALOGUE and core.CATALOGUE[f.id]
        local msg = entry and core.format(entry.message, f.values) or ""
        io.write(string.format("#verdict\t%d\t%d\t%s\t%s\t%.17g\t%s\t%s\n", s, v.data_dir, v.vantage_name, f.id,
                               f.share, table.concat(frames, " "), msg))
    end
end
