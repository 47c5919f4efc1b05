--[[
tcpdiag.lua — tcpdiag's TCP performance analysis inside Wireshark.

What:    a postdissector that shows, on every TCP packet, what tcpdiag's engine says about
         it — receive window, bytes in flight, cwnd estimate, what limits the sender,
         retransmissions and their kind, spurious retransmissions, reordering, zero
         windows ... (the values of `tcpdiag packets --analysis`) — and each flow's verdict
         (why the transfer is slow), as a "tcpdiag" tree, filter fields and expert infos.
         It computes nothing: it reads the annotations `tcpdiag wireshark annotate` wrote
         for the open capture and places the engine's values and finished texts.
How:     tcpdiag wireshark capture.pcapng     (annotates, then opens Wireshark with both)
         tcpdiag wireshark annotate capture.pcapng
         tshark -r capture.pcapng -X lua_script:tcpdiag.lua \
                -X lua_script1:annotations=capture.pcapng.tcpdiag.lua -Y 'tcpdiag.limit == "rwnd"'
         or the preference tcpdiag.annotations (-o tcpdiag.annotations:FILE).
         Filters: tcpdiag.limit == "rwnd", tcpdiag.retrans, tcpdiag.flow.verdict == "reorder_limited",
         tcpdiag.analysis.spurious_retransmission, tcpdiag.verdict.rwnd_limited.
Needs:   Wireshark 4.0 or newer; Lua 5.2, 5.3 or 5.4; no globals. Wireshark 4.4 and later
         skip personal Lua plugins when run as root (docs/wireshark.md).
Format:  docs/wireshark.md, "Annotations" (written by analyzer/core/src/emit/annotations.rs).
--]]

------------------------------------------------------------------------------------------
-- Proto
------------------------------------------------------------------------------------------
local tcpdiag = Proto("tcpdiag", "tcpdiag TCP performance analysis")

------------------------------------------------------------------------------------------
-- Fields (the names the annotations use, after "tcpdiag.")
------------------------------------------------------------------------------------------
local DIRECTIONS = { [0] = "A→B", [1] = "B→A" }
local FRAME_PREV = frametype and frametype.RETRANS_PREV or nil
local FRAME_ACK = frametype and frametype.ACK or nil
local hf = {
    ["flow"] = ProtoField.uint32("tcpdiag.flow", "Flow (tcp.stream)"),
    ["data_dir"] = ProtoField.uint8("tcpdiag.data_dir", "Data direction described", base.DEC, DIRECTIONS),
    ["rwnd"] = ProtoField.uint32("tcpdiag.rwnd", "Receive window (bytes)"),
    ["rwnd_basis"] = ProtoField.string("tcpdiag.rwnd_basis", "Window scale"),
    ["in_flight"] = ProtoField.uint32("tcpdiag.in_flight", "Bytes in flight (RFC 6675 pipe)"),
    ["unacked"] = ProtoField.uint32("tcpdiag.unacked", "Unacknowledged bytes"),
    ["sacked"] = ProtoField.uint32("tcpdiag.sacked", "SACKed bytes"),
    ["cwnd"] = ProtoField.uint32("tcpdiag.cwnd", "cwnd estimate (bytes)"),
    ["cwnd_conf"] = ProtoField.string("tcpdiag.cwnd_conf", "cwnd confidence"),
    ["limit"] = ProtoField.string("tcpdiag.limit", "Limited by"),
    ["vantage"] = ProtoField.string("tcpdiag.vantage", "Capture point (from the handshake)"),
    ["rtt_ns"] = ProtoField.int64("tcpdiag.rtt_ns", "RTT sample (ns)"),
    ["retrans"] = ProtoField.string("tcpdiag.retrans", "Retransmission"),
    ["retrans_of"] = ProtoField.framenum("tcpdiag.retrans_of", "Original transmission in frame", base.NONE,
                                         FRAME_PREV),
    ["dsack"] = ProtoField.bool("tcpdiag.dsack", "DSACK"),
    ["dsack.left"] = ProtoField.uint32("tcpdiag.dsack.left", "DSACK left edge (relative, as tcp.options.sack_le)"),
    ["dsack.right"] = ProtoField.uint32("tcpdiag.dsack.right", "DSACK right edge (relative, as tcp.options.sack_re)"),
    ["spurious_of"] = ProtoField.framenum("tcpdiag.spurious_of", "Proves spurious the retransmission in frame",
                                          base.NONE, FRAME_PREV),
    ["spurious_by"] = ProtoField.string("tcpdiag.spurious_by", "Evidence"),
    ["spurious_proven_in"] = ProtoField.framenum("tcpdiag.spurious_proven_in", "Proven spurious by frame",
                                                 base.NONE, FRAME_ACK),
    ["reorder_packets"] = ProtoField.uint32("tcpdiag.reorder_packets", "Reordering extent (packets)"),
    ["reorder_bytes"] = ProtoField.uint32("tcpdiag.reorder_bytes", "Reordering extent (bytes)"),
    ["reorder_ns"] = ProtoField.int64("tcpdiag.reorder_ns", "Reordering extent (ns)"),
    ["lost_before"] = ProtoField.uint32("tcpdiag.lost_before", "Bytes not captured before this segment"),
    ["dup_ack"] = ProtoField.uint32("tcpdiag.dup_ack", "Duplicate ACK number"),
    ["dup_ack_of"] = ProtoField.framenum("tcpdiag.dup_ack_of", "Duplicate of the ACK in frame", base.NONE, FRAME_ACK),
    ["zero_window"] = ProtoField.bool("tcpdiag.zero_window", "Zero window"),
    ["zero_window_probe"] = ProtoField.bool("tcpdiag.zero_window_probe", "Zero-window probe"),
    ["window_full"] = ProtoField.bool("tcpdiag.window_full", "Window full"),
    ["keepalive"] = ProtoField.bool("tcpdiag.keepalive", "Keep-alive"),
    ["duplicate"] = ProtoField.bool("tcpdiag.duplicate", "Duplicate (the same packet seen twice)"),
    -- Per flow.
    ["flow.verdict"] = ProtoField.string("tcpdiag.flow.verdict", "Verdict"),
    ["flow.verdict_message"] = ProtoField.string("tcpdiag.flow.verdict_message", "Why"),
    ["flow.vantage"] = ProtoField.string("tcpdiag.flow.vantage", "Capture point"),
    ["flow.data_dir"] = ProtoField.uint8("tcpdiag.flow.data_dir", "Data direction", base.DEC, DIRECTIONS),
    ["flow.shares"] = ProtoField.string("tcpdiag.flow.shares", "Time limited by"),
    ["flow.transfer"] = ProtoField.string("tcpdiag.flow.transfer", "Transfer"),
    ["flow.control"] = ProtoField.string("tcpdiag.flow.control", "Congestion control"),
    ["flow.ceiling"] = ProtoField.string("tcpdiag.flow.ceiling", "Ceiling"),
    ["flow.finding"] = ProtoField.string("tcpdiag.flow.finding", "Finding"),
    ["flow.remedy"] = ProtoField.string("tcpdiag.flow.remedy", "Remedy"),
    ["flow.evidence"] = ProtoField.framenum("tcpdiag.flow.evidence", "Evidence frame"),
}
local HF_VERDICT = hf["flow.verdict"]
-- wslua 4.0 takes FT_INT64 values only as Int64 objects.
local INT64 = { [hf.rtt_ns] = true, [hf.reorder_ns] = true }
do
    local list = {}
    for _, f in pairs(hf) do list[#list + 1] = f end
    tcpdiag.fields = list
end

------------------------------------------------------------------------------------------
-- Extractors: only to find the first TCP frame when there are no annotations to show
-- (not registered when a script argument names the annotations).
------------------------------------------------------------------------------------------
local script_annotations
for _, arg in ipairs({ ... }) do
    script_annotations = type(arg) == "string" and arg:match("^annotations=(.+)$") or script_annotations
end
local fx_tcp = script_annotations == nil and Field.new("tcp") or nil

------------------------------------------------------------------------------------------
-- Constants: expert infos, one per catalogue entry
------------------------------------------------------------------------------------------
-- BEGIN GENERATED CATALOGUE (generated from catalogue/findings.toml by tools/gen_catalogue.py — do not edit)
local CATALOGUE = {
    -- id, field, group, severity, description
    { "retransmission", "tcpdiag.analysis.retransmission", "sequence", "note", "Retransmission of frame {orig_frame} ({kind})" },
    { "spurious_retransmission", "tcpdiag.analysis.spurious_retransmission", "sequence", "warn", "Spurious retransmission: the original of frame {orig_frame} had arrived ({evidence} in frame {evidence_frame})" },
    { "dsack", "tcpdiag.analysis.dsack", "sequence", "note", "DSACK {left}-{right}: the receiver got these bytes twice" },
    { "reordering", "tcpdiag.analysis.reordering", "sequence", "note", "Reordering: arrived {extent_packets} packets / {extent_bytes} / {extent} late (RACK window {rack})" },
    { "lost_segment", "tcpdiag.analysis.lost_segment", "sequence", "warn", "Previous segment not captured: {gap} missing before this one" },
    { "duplicate_ack", "tcpdiag.analysis.duplicate_ack", "sequence", "note", "Duplicate ACK #{count} of frame {orig_frame}" },
    { "zero_window", "tcpdiag.analysis.zero_window", "sequence", "warn", "Zero window: the receiver's buffer is full (its application is not reading)" },
    { "zero_window_probe", "tcpdiag.analysis.zero_window_probe", "sequence", "note", "Zero-window probe" },
    { "window_full", "tcpdiag.analysis.window_full", "sequence", "note", "Window full: {in_flight} in flight = rwnd {rwnd}" },
    { "window_scale_inferred", "tcpdiag.analysis.window_scale_inferred", "protocol", "note", "Window scale not captured; inferred shift ≥ {shift} from {in_flight} in flight above the raw window" },
    { "rwnd_limited", "tcpdiag.verdict.rwnd_limited", "sequence", "warn", "Receive-window limited {share} of the time[: rwnd {rwnd} ÷ RTT {rtt} = {ceiling} ceiling]" },
    { "rwnd_static", "tcpdiag.verdict.rwnd_static", "sequence", "warn", "Receive window fixed at {rwnd} for the whole transfer[ → ceiling {ceiling} at {rtt} RTT]" },
    { "rwnd_autotune_ceiling", "tcpdiag.verdict.rwnd_autotune_ceiling", "sequence", "warn", "Receive window stopped at {rwnd}, though the receiver's window scale {shift} was chosen for up to {room}: its buffer hit a configured maximum[ → ceiling {ceiling} at {rtt} RTT]" },
    { "wscale_missing", "tcpdiag.verdict.wscale_missing", "protocol", "warn", "Window scaling not in effect ({who}): window capped at 65,535 B[ → ceiling {ceiling} at {rtt} RTT]" },
    { "zero_window_stall", "tcpdiag.verdict.zero_window_stall", "sequence", "warn", "Receiver advertised a zero window {count} times, stalled {stall} ({share} of the transfer)" },
    { "rwnd_slow_reader", "tcpdiag.verdict.rwnd_slow_reader", "sequence", "warn", "Receive window held down by a slow reader {share} of the time: {rwnd} open on average, {fill} of the {peak} advertised before" },
    { "sndbuf_limited", "tcpdiag.verdict.sndbuf_limited", "sequence", "warn", "Sender-buffer limited {share} of the time: flight flat at {flight}[ below rwnd {rwnd}], not held there by a loss[ → ceiling {ceiling}]" },
    { "app_limited", "tcpdiag.verdict.app_limited", "sequence", "note", "Application limited {share} of the time: the sender had nothing more to send while both windows had room for more than the {flight} it kept in flight; pauses with all it sent acknowledged: {pauses}" },
    { "app_request_response", "tcpdiag.verdict.app_request_response", "sequence", "note", "Application limited {share} of the time, answering its peer: {answers} bursts of data each sent after a request from the peer, every exchange at least a round trip[ ({rtt})]; pauses with all it sent acknowledged and nothing asked: {pauses}" },
    { "app_slow_writer", "tcpdiag.verdict.app_slow_writer", "sequence", "note", "Application limited {share} of the time: the sender's application wrote {rate} with nothing asked of it by the peer, while both windows had room for more than the {flight} it kept in flight; pauses with all it sent acknowledged: {pauses}" },
    { "reorder_limited", "tcpdiag.verdict.reorder_limited", "sequence", "warn", "Reordering mistaken for loss: {spurious} of {retrans} retransmissions spurious (DSACK/Eifel), cwnd cut {cuts} times; reordering up to {extent} vs RACK window {rack}" },
    { "loss_limited", "tcpdiag.verdict.loss_limited", "sequence", "warn", "Loss limited: {loss} of segments retransmitted in {recoveries} recoveries[; Mathis estimate {mathis} at {rtt} RTT]" },
    { "slow_start_overshoot", "tcpdiag.verdict.slow_start_overshoot", "sequence", "warn", "Slow-start overshoot: {lost} segments sent in slow start were lost (the first resent at frame {frame})" },
    { "bandwidth_limited", "tcpdiag.verdict.bandwidth_limited", "sequence", "note", "Bandwidth limited: {throughput} through the bottleneck once past slow start (spurious resends included)[, {busy} of its {capacity}][, its capacity not measured but its RTT {inflation}× its floor (a standing queue)]; {flight} in flight[, RTT {min_rtt} at best, {rtt} on average]" },
    { "slow_start_limited", "tcpdiag.verdict.slow_start_limited", "sequence", "note", "Slow-start limited: {data} moved in {rounds} round trips of {rtt}, the window still growing when the transfer ended" },
    { "cwnd_limited", "tcpdiag.verdict.cwnd_limited", "sequence", "note", "Congestion window limited {share} of the time, for no cause this capture shows: {bottleneck}, {loss} of segments retransmitted" },
    { "not_limited", "tcpdiag.verdict.not_limited", "comment", "chat", "No limit found: {reason} ({data} of new data)" },
}
-- END GENERATED CATALOGUE
local GROUP = { sequence = expert.group.SEQUENCE, protocol = expert.group.PROTOCOL,
                malformed = expert.group.MALFORMED, comment = expert.group.COMMENTS_GROUP }
local SEVERITY = { chat = expert.severity.CHAT, note = expert.severity.NOTE, warn = expert.severity.WARN,
                   ["error"] = expert.severity.ERROR }
local ei = {}
do
    local list = {}
    for _, c in ipairs(CATALOGUE) do
        ei[c[1]] = ProtoExpert.new(c[2], c[5], GROUP[c[3]], SEVERITY[c[4]])
        list[#list + 1] = ei[c[1]]
    end
    ei.missing = ProtoExpert.new("tcpdiag.annotations_missing", "tcpdiag: no annotations for this capture",
                                 expert.group.COMMENTS_GROUP, expert.severity.NOTE)
    ei.mismatch = ProtoExpert.new("tcpdiag.annotations_mismatch", "tcpdiag annotations of another capture: ignored",
                                  expert.group.PROTOCOL, expert.severity.WARN)
    list[#list + 1] = ei.missing
    list[#list + 1] = ei.mismatch
    tcpdiag.experts = list
end
local FORMAT = 3
local MAGIC = "-- tcpdiag annotations for the Wireshark plugin (docs/wireshark.md); generated, do not edit\n"
local HOW = "run `tcpdiag wireshark CAPTURE` (annotates and opens Wireshark), or `tcpdiag wireshark annotate "
    .. "CAPTURE` and set Preferences > Protocols > tcpdiag > Annotations file"
local settings = {
    experts = true,      -- add expert infos
    verdicts = true,     -- show each flow's verdict
    annotations = "",    -- the annotations file (the preference; a script argument wins)
}

------------------------------------------------------------------------------------------
-- Annotations: the file's header is Lua run with nothing in reach; the per-frame records
-- are binary, read with Struct.unpack (format and layout: docs/wireshark.md).
------------------------------------------------------------------------------------------
local unpack, int64_new = Struct.unpack, Int64.new
local add       -- TreeItem.add, looked up once (each method lookup is a call into Wireshark)
local BLOCK = 64        -- records read per Struct.unpack call

local function parse(path, text)
    if text:sub(1, #MAGIC) ~= MAGIC then return nil, "not tcpdiag annotations" end
    local at = tonumber(text:sub(-40):match("header at byte (%d+)\n$"))
    if at == nil then return nil, "no header (cut short?)" end
    local chunk, err = load(text:sub(at + 1, #text - 36), "=" .. path, "t", {})
    if chunk == nil then return nil, err end
    local ok, h = pcall(chunk)
    if not ok then return nil, h end
    if type(h) ~= "table" or h.format ~= FORMAT then
        return nil, "format " .. tostring(type(h) == "table" and h.format) .. ", this plugin reads " .. FORMAT
    end
    -- Per record field: its Struct code, ProtoField and how to show a stored value c > 0.
    local a = { path = path, text = text, codes = { ">" }, at = h.records.at + 1, size = h.records.size,
                frames = h.records.frames, first = h.first, events = h.events, late = h.late, flows = h.flows,
                pos = {}, hf = {}, names = {}, int64 = {} }   -- per shown field
    for i, f in ipairs(h.fields) do
        local name, names = f[1], f[3]
        a.codes[i + 1] = f[2]
        if name == "frame_len" then
            a.len = i
        elseif name == "events" then
            a.event_field = i
        elseif hf[name] then                    -- a field this plugin does not know: not shown
            local k = #a.pos + 1
            a.pos[k], a.hf[k], a.names[k], a.int64[k] = i, hf[name], names or false, INT64[hf[name]] or false
            if name == "flow" then a.flow = i end
        end
    end
    a.record, a.nfields = table.concat(a.codes, "", 2), #h.fields
    local ok_size, size = pcall(Struct.size, ">" .. a.record)
    if not ok_size or size ~= a.size or a.flow == nil then return nil, "records unlike their description" end
    if #text < a.at - 1 + a.frames * a.size then return nil, "cut short" end
    a.block_format = ">" .. string.rep(a.record, BLOCK)
    return a
end

-- The file at `path`, read once per path and size (init runs for every file and redissection).
local cache = {}
local function annotations(path)
    local f, err = io.open(path, "rb")
    if f == nil then return nil, err end
    local size = f:seek("end")
    if cache.path == path and cache.size == size then f:close(); return cache.value, cache.err end
    f:seek("set")
    local text = f:read("*a")
    f:close()
    cache.path, cache.size = path, size
    local ok, a, perr = pcall(parse, path, text)     -- a header unlike ours fails somewhere in parse
    cache.value, cache.err = ok and a or nil, ok and perr or "not tcpdiag annotations of format " .. FORMAT
    return cache.value, cache.err
end

------------------------------------------------------------------------------------------
-- Dissector
------------------------------------------------------------------------------------------
local state     -- what one read of a capture learnt; reset by init
local function reset()
    local path = script_annotations or settings.annotations
    state = {}
    if path == "" then
        state.why = "tcpdiag: no annotations for this capture: " .. HOW
    else
        local a, err = annotations(path)
        state.a = a
        if a == nil then state.why = "tcpdiag: " .. path .. ": cannot use these annotations (" .. tostring(err) .. "): " .. HOW end
    end
end
reset()

-- Says `text` once per read of a capture (standard error) and keeps it as an expert info
-- on the frame where it was said.
local function say_once(tree, number, expert_info, text)
    if state.told == nil then
        io.stderr:write(text .. "\n")
        state.told, state.told_text, state.told_ei = number, text, expert_info
    end
    if state.told == number and settings.experts then
        tree:add(tcpdiag):add_proto_expert_info(state.told_ei, state.told_text)
    end
end

-- A flow's verdict: on every frame the verdict, on its first frame the details, on each
-- finding's evidence frames that finding (with its expert info).
local function show_verdict(t, fl, number, visible)
    if fl.label == nil then
        local first = fl.findings[1]
        fl.label = "Verdict: " .. fl.verdict .. (first and (": " .. first.message) or "")
        fl.here = {}
        for i, f in ipairs(fl.findings) do
            f.label = "Finding: " .. f.id .. ": " .. f.message
            for _, fr in ipairs(f.frames) do
                fl.here[fr] = fl.here[fr] or {}
                fl.here[fr][i] = true
            end
        end
    end
    local vt = visible and add(t, HF_VERDICT, fl.verdict, fl.label) or add(t, HF_VERDICT, fl.verdict)
    local first, here = number == fl.first_frame, fl.here[number]
    if not first and here == nil then return end
    if first then
        vt:add(hf["flow.vantage"], fl.vantage)
        if fl.findings[1] then vt:add(hf["flow.verdict_message"], fl.findings[1].message) end
        vt:add(hf["flow.data_dir"], fl.data_dir)
        vt:add(hf["flow.shares"], fl.time)
        vt:add(hf["flow.transfer"], fl.transfer)
        if fl.control then vt:add(hf["flow.control"], fl.control) end
        for _, line in ipairs(fl.ceiling) do vt:add(hf["flow.ceiling"], line) end
    end
    for i, f in ipairs(fl.findings) do
        if first or here[i] then
            local ft = visible and vt:add(hf["flow.finding"], f.id, f.label) or vt:add(hf["flow.finding"], f.id)
            if f.remedy ~= "" then ft:add(hf["flow.remedy"], f.remedy) end
            for _, fr in ipairs(f.frames) do ft:add(hf["flow.evidence"], fr) end
            if settings.experts and ((first and i == 1) or (here and here[i])) then
                ft:add_proto_expert_info(ei[f.id], f.message)
            end
        end
    end
end

-- An entry of `events` (or `late`): n field pairs, then expert id and text pairs.
local function show_events(t, e)
    local n = 2 * e[1] + 1
    for i = 2, n, 2 do
        local field = hf[e[i]]
        if field then add(t, field, INT64[field] and int64_new(e[i + 1]) or e[i + 1]) end
    end
    if settings.experts then
        for i = n + 1, #e, 2 do
            if ei[e[i]] then t:add_proto_expert_info(ei[e[i]], e[i + 1]) end
        end
    end
end

function tcpdiag.dissector(tvb, pinfo, tree)
    local a, number = state.a, pinfo.number
    if a == nil then
        -- Said at the first TCP frame (the first frame when no extractor was registered).
        if state.told == number or (state.told == nil and state.why and (fx_tcp == nil or fx_tcp())) then
            say_once(tree, number, ei.missing, state.why)
        end
        return
    end
    if number > a.frames then return end
    -- The records of BLOCK frames at a time; this frame's fields are rows[at + 1 .. at + nfields].
    local block = math.floor((number - 1) / BLOCK)
    if block ~= state.block then
        local n = math.min(BLOCK, a.frames - block * BLOCK)
        local fmt = n == BLOCK and a.block_format or ">" .. string.rep(a.record, n)
        state.rows, state.block, state.check = { unpack(fmt, a.text, a.at + block * BLOCK * a.size) }, block, true
    end
    local v, at = state.rows, (number - 1 - block * BLOCK) * a.nfields
    local flow = v[at + a.flow]
    if flow == 0 then return end
    -- The first frame's time, and a frame's length in each block read, give away another
    -- capture's annotations.
    if (state.check and a.len and v[at + a.len] - 1 ~= pinfo.len)
        or (number == a.first.frame and a.first.abs_ts ~= pinfo.abs_ts) then
        -- Another capture's annotations: show nothing from here on, say so once.
        state.a, state.why = nil, nil
        say_once(tree, number, ei.mismatch, string.format("tcpdiag: %s: frame %d (%d bytes at %.9f) is not in "
            .. "them: they are not this capture's; ignoring them (%s)", a.path, number, pinfo.len, pinfo.abs_ts, HOW))
        return
    end
    state.check = false
    local visible = tree.visible
    local t = tree:add(tcpdiag)
    add = add or t.add
    if visible then t:set_generated() end
    local pos, hfs, names, int64 = a.pos, a.hf, a.names, a.int64
    for k = 1, #pos do
        local c = v[at + pos[k]]
        if c ~= 0 then
            if names[k] then
                add(t, hfs[k], names[k][c])
            elseif int64[k] then
                add(t, hfs[k], int64_new(c > 0 and c - 1 or c))
            else
                add(t, hfs[k], c > 0 and c - 1 or c)
            end
        end
    end
    local e = a.event_field and v[at + a.event_field] or 0
    if e ~= 0 then show_events(t, a.events[e]) end
    if a.late[number] then show_events(t, a.late[number]) end
    local fl = settings.verdicts and a.flows[flow - 1]
    if fl then show_verdict(t, fl, number, visible) end
end

------------------------------------------------------------------------------------------
-- Registration
------------------------------------------------------------------------------------------
function tcpdiag.init() reset() end
register_postdissector(tcpdiag)

-- Tools > tcpdiag > Flow verdicts (GUI only): every flow's findings, remedies, frames.
local function verdicts_window()
    local w = TextWindow.new("tcpdiag: flow verdicts")
    local a = state.a
    if a == nil then w:set("tcpdiag: no annotations for this capture: " .. HOW); return end
    local streams, lines = {}, {}
    for s in pairs(a.flows) do streams[#streams + 1] = s end
    table.sort(streams)
    for _, s in ipairs(streams) do
        local fl = a.flows[s]
        lines[#lines + 1] = string.format("tcp.stream eq %d   (data %s, capture point %s)", s,
                                          DIRECTIONS[fl.data_dir], fl.vantage)
        lines[#lines + 1] = "  " .. fl.transfer
        lines[#lines + 1] = "  " .. fl.time
        for _, line in ipairs(fl.ceiling) do lines[#lines + 1] = "  " .. line end
        for i, f in ipairs(fl.findings) do
            lines[#lines + 1] = "  " .. (i == 1 and "* " or "- ") .. f.id .. ": " .. f.message
            if f.remedy ~= "" then lines[#lines + 1] = "      remedy: " .. f.remedy end
            if #f.frames > 0 then lines[#lines + 1] = "      frames: " .. table.concat(f.frames, ", ") end
        end
    end
    w:set(table.concat(lines, "\n"))
end
if gui_enabled ~= nil and gui_enabled() and register_menu ~= nil then
    register_menu("tcpdiag/Flow verdicts", verdicts_window, MENU_TOOLS_UNSORTED)
end

------------------------------------------------------------------------------------------
-- Preferences
------------------------------------------------------------------------------------------
tcpdiag.prefs.experts = Pref.bool("Expert infos", settings.experts,
    "Add expert infos for retransmissions, DSACKs, reordering, zero windows ... and the verdicts")
tcpdiag.prefs.verdicts = Pref.bool("Flow verdicts", settings.verdicts, "Show each flow's verdict on its packets")
tcpdiag.prefs.annotations = Pref.string("Annotations file", settings.annotations,
    "The engine's results for the open capture, from `tcpdiag wireshark annotate CAPTURE` "
    .. "(`tcpdiag wireshark CAPTURE` sets it itself)")

function tcpdiag.prefs_changed()
    settings.experts = tcpdiag.prefs.experts
    settings.verdicts = tcpdiag.prefs.verdicts
    settings.annotations = tcpdiag.prefs.annotations
end
