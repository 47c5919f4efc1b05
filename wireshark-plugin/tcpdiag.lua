--[[
tcpdiag.lua — tcpdiag's per-packet TCP analysis and per-flow verdicts inside Wireshark.

What:    a postdissector adding a "tcpdiag" tree to every TCP packet: the receive window
         limiting the flight (scaled; "inferred" without a handshake), bytes in flight
         (SACK- and RACK-aware, also on ACKs), the cwnd estimate and its confidence, the
         limit state, retransmission kind (fast/rto/tlp/other), spurious retransmissions
         proven by DSACK or Eifel, reordering extent, zero windows, keep-alives ... — the
         same values as `tcpdiag packets --analysis`, frame for frame — plus each flow's
         verdict (why the transfer is slow) once the whole capture has been read.
How:     copy to the personal plugins folder (`tcpdiag wireshark install` does it), or
             wireshark -X lua_script:tcpdiag.lua capture.pcapng
             tshark -r capture.pcapng -X lua_script:tcpdiag.lua -Y tcpdiag.retrans
         Filters: tcpdiag.limit == "rwnd", tcpdiag.analysis.spurious_retransmission,
         tcpdiag.verdict.rwnd_limited (after the first pass; in tshark use -2).
         Tools → tcpdiag → Flow verdicts lists every flow's verdict (GUI).
Needs:   Wireshark 3.6 or newer; runs unchanged on Lua 5.1/5.2 (Wireshark ≤ 4.2) and
         Lua 5.3/5.4 (Wireshark ≥ 4.4): plain arithmetic on doubles (sequence numbers
         modulo 2^32, times in ns relative to the first frame), no bit32, no 5.3
         operators, no globals.
Source:  the analysis core below is a line-by-line port of tcpdiag's Rust engine
         (analyzer/core/src/analyse/); tests/vectors/ holds shared test vectors and the
         tests compare this file with the engine under lua5.2/5.3/5.4 and under tshark.
Alone:   without Wireshark (`Proto` undefined) the file returns the analysis core:
             local core = dofile("tcpdiag.lua"); local a = core.new(); a:segment(seg)
--]]

------------------------------------------------------------------------------------------
-- Analysis core (pure Lua, no Wireshark API). Mirrors analyse/{window,scoreboard,dsack,
-- rtt,cwnd,limit,vantage,sender,flow_state,verdict}.rs; keep the two in step.
------------------------------------------------------------------------------------------
local core = (function()
    local M = {}
    local floor, huge = math.floor, math.huge

    local TWO32, TWO31 = 4294967296, 2147483648
    local FIN, SYN, RST, ACK = 0x01, 0x02, 0x04, 0x10

    local function has(flags, f) return flags % (f + f) >= f end
    local function imin(a, b) if b < a then return b end return a end
    local function imax(a, b) if b > a then return b end return a end

    -- Sequence numbers (RFC 9293 §3.4): 32-bit, compared modulo 2^32 on doubles.
    local function dist(a, b)          -- a − b as a signed 32-bit distance
        local d = (a - b) % TWO32
        if d >= TWO31 then d = d - TWO32 end
        return d
    end
    local function lt(a, b) return dist(a, b) < 0 end
    local function le(a, b) return dist(a, b) <= 0 end
    local function sadd(a, n) return (a + n) % TWO32 end
    local function smax(a, b) if lt(a, b) then return b end return a end
    local function smin(a, b) if lt(b, a) then return b end return a end
    local ts_older = lt                -- TSval order (RFC 7323 §5.2) is the same modular order
    local function div_ceil(a, b) return floor((a + b - 1) / b) end
    M.dist, M.lt, M.sadd = dist, lt, sadd

    -- A FIFO of records stored column-wise (a, b, c, d): no table per record.
    local function columns() return { h = 1, t = 0, a = {}, b = {}, c = {}, d = {} } end
    local function cpush(q, a, b, c, d)
        local t = q.t + 1
        q.t = t; q.a[t] = a; q.b[t] = b; q.c[t] = c; q.d[t] = d
    end
    local function cpop(q)
        local h = q.h
        q.a[h] = nil; q.b[h] = nil; q.c[h] = nil; q.d[h] = nil
        q.h = h + 1
    end

    -- A FIFO with O(1) push and pop at both ends used as Rust's VecDeque.
    local function deque() return { h = 1, t = 0 } end
    local function dlen(q) return q.t - q.h + 1 end
    local function push(q, v) q.t = q.t + 1; q[q.t] = v end
    local function front(q) if q.t >= q.h then return q[q.h] end end
    local function back(q) if q.t >= q.h then return q[q.t] end end
    local function pop(q)
        if q.t < q.h then return nil end
        local v = q[q.h]; q[q.h] = nil; q.h = q.h + 1
        return v
    end

    -- Names of the coded values (the CSV strings of `tcpdiag packets --analysis`).
    M.LIMIT = { [0] = "unknown", "rwnd", "zero_window", "recovery", "cwnd", "sndbuf", "app", "idle" }
    M.RETRANS = { [0] = "", "fast", "rto", "tlp", "other" }
    M.EVIDENCE = { [0] = "", "dsack", "eifel" }
    M.BASIS = { [0] = "known", "not_negotiated", "inferred" }
    M.CONF = { [0] = "none", "bound", "estimate" }
    M.VANTAGE = { [0] = "unknown", "sender", "receiver", "middle" }
    local L_UNKNOWN, L_RWND, L_ZERO, L_RECOVERY, L_CWND, L_SNDBUF, L_APP, L_IDLE = 0, 1, 2, 3, 4, 5, 6, 7
    local R_NONE, R_FAST, R_RTO, R_TLP, R_OTHER = 0, 1, 2, 3, 4
    local E_NONE, E_DSACK, E_EIFEL = 0, 1, 2
    local B_KNOWN, B_NOT, B_INFERRED = 0, 1, 2
    local C_NONE, C_BOUND, C_ESTIMATE = 0, 1, 2

    -- Engine constants (same names and values as the Rust sources).
    M.settings = {
        at_sender_ns = 1000000,      -- sender.rs AT_SENDER_NS
        min_rto_ns = 200000000,      -- rtt.rs MIN_RTO (Linux floor)
        flat_band = 0.12,            -- limit.rs FLAT_BAND
        flat_rtts = 8,               -- limit.rs FLAT_RTTS
        min_segments = 20,           -- verdict.rs MIN_SEGMENTS
        min_share = 0.25,            -- verdict.rs MIN_SHARE
        static_rwnd_max = 4194304,   -- verdict.rs STATIC_RWND_MAX
        queue_inflation = 1.5,       -- verdict.rs QUEUE_INFLATION
    }
    local S = M.settings
    local RETRANS_MEMORY, ECHO_MEMORY, MAX_SHIFT, DOMINANCE, DELAY_CAP = 4096, 65536, 14, 4, 2048
    local RECENT_MEMORY = 64

    ---------------------------------------------------------------- window.rs
    local function scaling_from_syns(mine, peer)   -- each: nil (SYN unseen), false (no option) or shift
        if mine ~= nil and mine ~= false and peer ~= nil and peer ~= false then
            return { kind = "neg", shift = imin(mine, MAX_SHIFT) }
        end
        if mine == false or peer == false then return { kind = "not", shift = 0 } end
        return { kind = "unk", shift = 0 }
    end
    local function scaled(sc, window, is_syn)
        if is_syn then return window, B_KNOWN end
        if sc.kind == "neg" then return window * 2 ^ sc.shift, B_KNOWN end
        if sc.kind == "not" then return window, B_NOT end
        return window * 2 ^ sc.shift, B_INFERRED
    end
    local function infer_from_flight(sc, window, in_flight)
        if sc.kind ~= "unk" or window == 0 then return nil end
        local s = sc.shift
        while s < MAX_SHIFT and window * 2 ^ s < in_flight do s = s + 1 end
        if s > sc.shift then sc.shift = s; return s end
    end

    ---------------------------------------------------------------- scoreboard.rs
    local Scoreboard = {}
    Scoreboard.__index = Scoreboard
    local function scoreboard() return setmetatable({ n = 0, total = 0 }, Scoreboard) end
    function Scoreboard:recount()
        local sum = 0
        for i = 1, self.n do sum = sum + dist(self[i][2], self[i][1]) end
        self.total = sum
    end
    function Scoreboard:sacked_bytes() return self.total end
    function Scoreboard:add(start, e, una)
        start = smax(start, una)
        if le(e, start) then return 0 end
        local before = self:sacked_bytes()
        local s = start
        local i = 1
        while i <= self.n do
            local rs, re = self[i][1], self[i][2]
            if lt(re, s) or lt(e, rs) then
                i = i + 1
            else
                s = smin(s, rs); e = smax(e, re)
                table.remove(self, i); self.n = self.n - 1
            end
        end
        local at = self.n + 1
        for j = 1, self.n do
            if lt(s, self[j][1]) then at = j; break end
        end
        table.insert(self, at, { s, e }); self.n = self.n + 1
        self:recount()
        return self.total - before
    end
    function Scoreboard:advance(una)
        local j = 0
        for i = 1, self.n do
            local r = self[i]
            self[i] = nil
            if lt(una, r[2]) then
                j = j + 1
                self[j] = { smax(r[1], una), r[2] }
            end
        end
        self.n = j
        self:recount()
    end
    function Scoreboard:is_empty() return self.n == 0 end
    function Scoreboard:highest() if self.n > 0 then return self[self.n][2] end end
    function Scoreboard:above(seq)
        local bytes, n = 0, 0
        for i = 1, self.n do
            local s, e = self[i][1], self[i][2]
            if lt(seq, e) then
                bytes = bytes + dist(e, smax(s, seq)); n = n + 1
            end
        end
        return bytes, n
    end
    function Scoreboard:is_lost(seq, smss) return (self:above(seq)) > 2 * smss end  -- DupThresh 3
    function Scoreboard:holes(una)   -- list of {start, end}
        local out, prev = {}, una
        for i = 1, self.n do
            local s, e = self[i][1], self[i][2]
            if lt(prev, s) then out[#out + 1] = { prev, s } end
            prev = smax(prev, e)
        end
        return out
    end

    ---------------------------------------------------------------- dsack.rs (RFC 2883 §4)
    local function dsack(ack, blocks)
        local b1 = blocks[1]
        if not b1 then return nil end
        local l, r = b1[1], b1[2]
        if le(r, l) then return nil end
        if le(r, ack) then return l, r end       -- straddling the ACK: a stale SACK
        local b2 = blocks[2]
        if b2 and le(b2[1], l) and le(r, b2[2]) then return l, r end
        return nil
    end
    M.dsack = dsack

    ---------------------------------------------------------------- rtt.rs (RFC 6298 §2)
    local function rtt_new() return { srtt = nil, rttvar = 0, min = nil, samples = 0, sum = 0 } end
    local MAX_RTT_NS = 600000000000    -- beyond ten minutes a "round trip" is a clock jump
    local function rtt_sample(r, x)
        if x < 0 or x > MAX_RTT_NS then return end
        r.samples = r.samples + 1
        r.sum = r.sum + x
        if r.min == nil or x < r.min then r.min = x end
        if r.srtt == nil then
            r.srtt = x; r.rttvar = floor(x / 2)
        else
            r.rttvar = floor((3 * r.rttvar + math.abs(r.srtt - x)) / 4)
            r.srtt = floor((7 * r.srtt + x) / 8)
        end
    end
    local function rtt_mean(r) if r.samples > 0 then return floor(r.sum / r.samples) end end
    local function rtt_rto(r)
        if r.srtt then return imax(r.srtt + 4 * r.rttvar, S.min_rto_ns) end
        return 1000000000
    end

    ---------------------------------------------------------------- cwnd.rs
    local function cwnd_new()
        return { peak = 0, sends = 0, value = 0, conf = C_NONE }
    end
    local function cwnd_on_send(c, flight)
        c.peak = imax(c.peak, flight); c.sends = c.sends + 1
    end
    local function cwnd_on_ack(c, flight_after, window_bound, app_bound)
        if c.sends > 0 and c.peak > 0 then
            if window_bound or app_bound then
                if c.conf ~= C_ESTIMATE or c.peak > c.value then
                    c.value = imax(c.value, c.peak); c.conf = C_BOUND
                end
            else
                c.value = c.peak; c.conf = C_ESTIMATE
            end
        end
        c.peak = flight_after; c.sends = 0
    end
    local function cwnd_on_recovery_end(c, flight_before, undone)
        if undone then c.value = flight_before else c.value = floor(flight_before * 0.7) end
        c.peak = 0; c.sends = 0
    end
    local function cwnd_floor(c, flight, in_recovery)
        if flight == 0 then return end
        if in_recovery or flight > c.value then
            c.value = flight
            if c.conf == C_NONE then c.conf = C_BOUND end
        end
    end

    ---------------------------------------------------------------- vantage.rs
    local function handshake_on_segment(h, f, dir, ts)
        local x = (has(f, SYN) and SYN or 0) + (has(f, ACK) and ACK or 0)
        if h.syn_dir == nil then
            if x == SYN then h.syn_dir, h.syn = dir, ts end
        elseif x == SYN + ACK and dir ~= h.syn_dir and h.synack == nil then
            h.synack = ts
        elseif x == ACK and dir == h.syn_dir and h.synack ~= nil and h.ack == nil then
            h.ack = ts
        end
    end
    local function handshake_a2d(h)
        if h.syn_dir == nil or h.synack == nil or h.ack == nil then return nil end
        local out = {}
        out[h.syn_dir] = h.ack - h.synack
        out[1 - h.syn_dir] = h.synack - h.syn
        return out
    end
    local function handshake_vantage(h, data_dir)
        if h.ack == nil then return 0 end
        local g1, g2 = h.synack - h.syn, h.ack - h.synack
        local near_client
        if g1 > DOMINANCE * imax(g2, 1) then near_client = true
        elseif g2 > DOMINANCE * imax(g1, 1) then near_client = false
        else return 3 end
        if near_client == (data_dir == h.syn_dir) then return 1 end
        return 2
    end
    local function delays_new()
        return { a2d = { [0] = {}, {} }, d2a = { [0] = {}, {} }, last_data = {}, last_ack = {} }
    end
    local function delay_push(v, x) if #v < DELAY_CAP and x >= 0 then v[#v + 1] = x end end
    local function delays_on_segment(ds, len, f, d, ts)
        local r = 1 - d
        if len > 0 then
            local a = ds.last_ack[d]
            if a ~= nil then ds.last_ack[d] = nil; delay_push(ds.a2d[d], ts - a) end
            if ds.last_data[d] == nil then ds.last_data[d] = ts end
        end
        if has(f, ACK) and len == 0 then
            local t = ds.last_data[r]
            if t ~= nil then ds.last_data[r] = nil; delay_push(ds.d2a[r], ts - t) end
            ds.last_ack[r] = ts
        end
    end
    local function median(v)
        if #v < 8 then return nil end
        local s = {}
        for i = 1, #v do s[i] = v[i] end
        table.sort(s)
        return s[floor(#s / 2) + 1]
    end
    local function delays_vantage(ds, data_dir)
        local a2d, d2a = median(ds.a2d[data_dir]), median(ds.d2a[data_dir])
        if a2d == nil or d2a == nil then return 0 end
        if d2a > DOMINANCE * imax(a2d, 1) then return 1 end
        if a2d > DOMINANCE * imax(d2a, 1) then return 2 end
        return 3
    end

    ---------------------------------------------------------------- sender.rs
    local Sender = {}
    Sender.__index = Sender
    local function sender_new(epoch0)
        return setmetatable({
            started = false, una = 0, max = 0, mss = 0, mss_option = nil,
            outstanding = deque(), scoreboard = scoreboard(), retransmissions = deque(),
            recoveries = {}, in_recovery = false, dupacks = 0, last_ack_frame = 0,
            last_ack_window = 0, hole_since = nil, rtt = rtt_new(),
            last_send_ns = epoch0, last_ack_ns = epoch0, max_tsval = nil, max_ip_id = nil,
            rto_backoff = 0, data_segments = 0, data_bytes = 0, retrans_segments = 0,
            retrans_bytes = 0, spurious = 0, dsacks = 0, reorder_events = 0,
            max_reorder = { packets = 0, bytes = 0, late_ns = 0 }, lost_before_bytes = 0,
            zero_windows = 0, probes = 0, first_data_ns = nil, d2a = rtt_new(), a2d = rtt_new(),
            a2d_hint_ns = nil, a2d_recent = {}, a2d_next = 1, a2d_min = nil,
            sent_tsvals = columns(), peer_tsvals = columns(), history = columns(), rwnd = nil, rounds = deque(),
            round_start = epoch0, round_max = 0, recent = deque(), probe_seq = nil, pending_syn_rtt = nil,
        }, Sender)
    end

    -- Pops TSvals up to `ecr`; returns when `ecr` itself was first seen.
    local function take_echo(pending, ecr)   -- columns: a = TSval, b = when seen
        local found
        while pending.t >= pending.h do
            local v = pending.a[pending.h]
            if ts_older(ecr, v) then break end
            if v == ecr then found = pending.b[pending.h] end
            cpop(pending)
        end
        return found
    end

    function Sender:unacked()
        if not self.started then return 0 end
        return imax(dist(self.max, self.una), 0)
    end
    function Sender:reo_wnd_ns()
        local base = floor((self.rtt.min or 0) / 4)
        local widened = base * (1 + imin(self.dsacks, 16))
        return imin(widened, self.rtt.srtt or widened)
    end
    function Sender:lost_bytes(now)
        local high = self.scoreboard:highest()
        if high == nil then return 0 end
        local mss = imax(self.mss, 1)
        local reordering_seen = self.dsacks > 0 or self.reorder_events > 0
        local deadline = now - (self.rtt.srtt or huge) - self:reo_wnd_ns()
        local lost = 0
        local q = self.outstanding
        local holes = self.scoreboard:holes(self.una)
        for hi = 1, #holes do
            local hs, he = holes[hi][1], holes[hi][2]
            if lt(high, he) then break end
            local dupthresh = not reordering_seen and self.scoreboard:is_lost(hs, mss)
            -- Outstanding segments are in sequence order: find the first ending above hs.
            local lo, hi = q.h, q.t + 1
            while lo < hi do
                local mid = floor((lo + hi) / 2)
                if le(q[mid].e, hs) then lo = mid + 1 else hi = mid end
            end
            local i = lo
            while i <= q.t do
                local seg = q[i]
                if le(he, seg.seq) then break end
                if seg.retrans == 0 and (dupthresh or seg.ts <= deadline) then
                    lost = lost + imax(dist(smin(seg.e, he), smax(seg.seq, hs)), 0)
                end
                i = i + 1
            end
        end
        return lost
    end
    function Sender:pipe(now)
        local unacked = self:unacked()
        if self.scoreboard:is_empty() then return unacked end
        return imax(unacked - (self.scoreboard:sacked_bytes() + self:lost_bytes(now)), 0)
    end
    function Sender:retransmitted(s, e)
        local q = self.outstanding
        for i = q.h, q.t do
            local x = q[i]
            if x.retrans > 0 and lt(x.seq, e) and lt(s, x.e) then return true end
        end
        return false
    end

    function Sender:on_data(seg, frame, ts, peer_rwnd, notes)
        local syn, fin = has(seg.flags, SYN), has(seg.flags, FIN)
        local len = seg.len + (syn and 1 or 0) + (fin and 1 or 0)
        local seq = seg.seq
        local e = sadd(seq, len)
        local tsval = seg.tsval
        if seg.len > self.mss and (self.mss_option == nil or seg.len <= self.mss_option) then
            self.mss = seg.len
        end
        if not self.started then
            self.started = true; self.una = seq; self.max = seq
        end
        if len == 0 then
            -- A pure ACK's sequence number is the sender's SND.NXT: beyond SND.MAX it shows
            -- data sent but not captured (Wireshark: "previous segment not captured").
            if lt(self.max, seq) and not has(seg.flags, RST) then
                local gap = dist(seq, self.max)
                notes.lost_before = gap
                self.lost_before_bytes = self.lost_before_bytes + gap
                self.max = seq
            end
            return
        end
        self:note_echoes_on_data(seg, ts)
        -- RFC 9293 §3.8.6.1: a one-byte probe at the window edge while the peer's window
        -- is zero; repeats of the same byte are probes too (Wireshark: ZeroWindowProbe).
        if seg.len == 1 and peer_rwnd == 0 and (seq == self.max or seq == self.probe_seq) then
            -- SND.MAX stays put: the probed byte is sent again as data once the window opens.
            notes.zero_window_probe = true
            self.probes = self.probes + 1
            self.probe_seq = seq
            self.last_send_ns = ts
            return
        end
        -- Only data below SND.MAX can be a copy of a packet already seen.
        if lt(seq, self.max) and self:is_duplicate(seq, e, seg) then
            notes.duplicate = true
            return
        end
        if le(self.max, seq) then
            if lt(self.max, seq) then
                -- Bytes the capture point never saw: lost upstream or dropped by the capture.
                local gap = dist(seq, self.max)
                notes.lost_before = gap
                self.lost_before_bytes = self.lost_before_bytes + gap
            end
            self:remember(seq, e, seg)
            push(self.outstanding, { seq = seq, e = e, frame = frame, ts = ts, syn = syn, retrans = 0,
                                     lrf = 0, lrt = nil })
            self.max = e
            self:note_order(seg)
            self.data_segments = self.data_segments + 1
            self.data_bytes = self.data_bytes + seg.len
            self:note_round(ts, seg.len)
            if seg.len > 0 and self.first_data_ns == nil then self.first_data_ns = ts end
            self.last_send_ns = ts
            return
        end
        -- Below SND.MAX: a keep-alive, a late original, or a retransmission.
        -- Keep-alive (RFC 9293 §3.8.4): at most one byte, just below what is acknowledged
        -- or, as Wireshark tests, just below the highest byte sent.
        local plain = not syn and not fin and not has(seg.flags, RST)
        if plain and seg.len <= 1 and ((le(e, self.una) and dist(e, self.una) >= -1) or sadd(seq, 1) == self.max) then
            notes.keepalive = true
            return
        end
        if self:is_late_original(seg) then
            notes.reorder = self:late_extent(e, ts)
            self.reorder_events = self.reorder_events + 1
            self:widen_reorder(notes.reorder)
            return
        end
        self:remember(seq, e, seg)
        local pipe_before = self:pipe(ts)   -- before the segments are marked retransmitted
        local kind = self:classify(seq, e, ts)
        local orig_frame, orig_ts = self:mark_retransmitted(seq, e, frame, tsval)
        self.retrans_segments = self.retrans_segments + 1
        self.retrans_bytes = self.retrans_bytes + seg.len
        notes.retrans = kind
        notes.retrans_of = orig_frame
        if not self.in_recovery then
            self.in_recovery = true
            -- Slow start doubles each round, congestion avoidance adds one segment
            -- (RFC 5681 §3.1): a loss after ≥ 1.5× growth ended a slow start.
            local rq = self.rounds
            local r1 = (rq.t >= rq.h) and rq[rq.t] or 0
            local r2 = (rq.t - 1 >= rq.h) and rq[rq.t - 1] or 0
            local in_slow_start = #self.recoveries == 0 and r2 > 0 and r1 * 2 >= r2 * 3
            self.recoveries[#self.recoveries + 1] = {
                start_frame = frame, start_ns = ts, end_ns = nil, point = self.max, kind = kind,
                retransmissions = 0, spurious = 0, flight_before = pipe_before,
                in_slow_start = in_slow_start,
            }
        end
        local rec = #self.recoveries
        self.recoveries[rec].retransmissions = self.recoveries[rec].retransmissions + 1
        if kind == R_RTO then self.rto_backoff = self.rto_backoff + 1 end
        if dlen(self.retransmissions) == RETRANS_MEMORY then pop(self.retransmissions) end
        push(self.retransmissions, { seq = seq, e = e, frame = frame, orig_frame = orig_frame, orig_ts = orig_ts, ts = ts,
                                     kind = kind, tsval = tsval, proven = E_NONE, recovery = rec })
        self.last_send_ns = ts
    end

    function Sender:note_echoes_on_data(seg, ts)
        local val, ecr = seg.tsval, seg.tsecr
        if val == nil then return end
        local q = self.sent_tsvals
        if q.t < q.h or ts_older(q.a[q.t], val) then
            if dlen(q) == ECHO_MEMORY then cpop(q) end
            cpush(q, val, ts)
        end
        local t = take_echo(self.peer_tsvals, ecr)
        if t ~= nil then
            rtt_sample(self.a2d, ts - t)
            if ts - t < 0 or ts - t > MAX_RTT_NS then return end   -- a clock jump
            local x, old = ts - t, self.a2d_recent[self.a2d_next]
            self.a2d_recent[self.a2d_next] = x
            self.a2d_next = self.a2d_next % 32 + 1
            local m = self.a2d_min
            if m == nil or x <= m then
                self.a2d_min = x
            elseif old == m then            -- the minimum left the ring: look again
                m = x
                for i = 1, 32 do
                    local y = self.a2d_recent[i]
                    if y ~= nil and y < m then m = y end
                end
                self.a2d_min = m
            end
        end
    end
    function Sender:note_echoes_on_ack(seg, ts)
        local val, ecr = seg.tsval, seg.tsecr
        if val == nil then return end
        local t = take_echo(self.sent_tsvals, ecr)
        if t ~= nil then rtt_sample(self.d2a, ts - t) end
        local q = self.peer_tsvals
        if q.t < q.h or ts_older(q.a[q.t], val) then
            if dlen(q) == ECHO_MEMORY then cpop(q) end
            cpush(q, val, ts)
        end
    end

    -- ACK → data delay at the capture point (0 at the sender): the minimum of recent samples.
    function Sender:a2d_ns()
        local m = self.a2d_min
        if m == nil then m = self.a2d_hint_ns or 0 end
        if m < 0 then return 0 end
        return m
    end
    -- The handshake showed the ACK→data delay: take it, and the SYN's RTT sample kept
    -- waiting for it.
    function Sender:set_a2d_hint(hint)
        if self.a2d_hint_ns ~= nil then return end
        self.a2d_hint_ns = hint
        local part = self.pending_syn_rtt
        if part ~= nil then
            self.pending_syn_rtt = nil
            local lag = self:a2d_ns()
            rtt_sample(self.rtt, part + (lag >= S.at_sender_ns and lag or 0))
        end
    end

    function Sender:note_rwnd(rwnd, ts)
        self.rwnd = rwnd
        self:snapshot(ts)
    end
    -- What the sender knew at ts (columns: a = ts, b = SND.UNA, c = SACKed, d = rwnd or false).
    function Sender:snapshot(ts)
        local h = self.history
        local rwnd = self.rwnd
        if rwnd == nil then rwnd = false end
        -- Views look back one ACK→data delay: keep twice that (and a millisecond).
        local keep_from = ts - 2 * self:a2d_ns() - S.at_sender_ns
        while dlen(h) > 1 and h.a[h.h + 1] < keep_from do cpop(h) end
        if dlen(h) == ECHO_MEMORY then cpop(h) end
        cpush(h, ts, self.una, self.scoreboard.total, rwnd)
    end
    -- The flight, unacked bytes, SACKed bytes and window as they stand for a segment
    -- seen now: at the sender the state as is; elsewhere the sender acts on ACKs the
    -- capture point saw one ACK→data delay earlier.
    function Sender:view_lagged(now, lag)
        if lag < S.at_sender_ns or not self.started then
            return self:pipe(now), self:unacked(), self.scoreboard.total, self.rwnd
        end
        local th = now - lag
        local h = self.history
        while dlen(h) > 1 and h.a[h.h + 1] <= th do cpop(h) end
        local una, sacked, rwnd = self.una, 0, nil
        if h.t >= h.h and h.a[h.h] <= th then
            una, sacked, rwnd = h.b[h.h], h.c[h.h], h.d[h.h]
            if rwnd == false then rwnd = nil end
        end
        local unacked = imax(dist(self.max, una), 0)
        if rwnd == nil then rwnd = self.rwnd end
        return imax(unacked - sacked, 0), unacked, sacked, rwnd
    end
    function Sender:view(now) return self:view_lagged(now, self:a2d_ns()) end

    -- The same bytes with the same IPv4 ID as a recent segment: one packet seen twice
    -- (capture duplicates, switch mirroring); a retransmission is a new packet, a new ID.
    function Sender:is_duplicate(seq, e, seg)
        local id = seg.ip_id
        if seg.ip_version ~= 4 or id == nil or id == 0 then return false end
        local q = self.recent
        for i = q.h, q.t do
            local x = q[i]
            if x[1] == seq and x[2] == e and x[3] == id then return true end
        end
        return false
    end
    function Sender:remember(seq, e, seg)
        if dlen(self.recent) == RECENT_MEMORY then pop(self.recent) end
        push(self.recent, { seq, e, seg.ip_id or 0 })
    end

    function Sender:note_round(ts, bytes)
        local srtt = self.rtt.srtt or huge
        if ts - self.round_start >= srtt then
            if dlen(self.rounds) == 4 then pop(self.rounds) end
            push(self.rounds, self.round_max)
            self.round_start = ts
            self.round_max = 0
        end
        self.round_max = self.round_max + bytes
    end
    function Sender:note_order(seg)
        local v = seg.tsval
        if v ~= nil and (self.max_tsval == nil or ts_older(self.max_tsval, v)) then self.max_tsval = v end
        if seg.ip_version == 4 and seg.ip_id ~= nil and seg.ip_id ~= 0 then self.max_ip_id = seg.ip_id end
    end
    -- A segment below SND.MAX sent before the highest one: older TSval (or IPv4 ID).
    function Sender:is_late_original(seg)
        if seg.tsval ~= nil and self.max_tsval ~= nil then return ts_older(seg.tsval, self.max_tsval) end
        if seg.ip_version == 4 and self.max_ip_id ~= nil and seg.ip_id ~= nil and seg.ip_id ~= 0 then
            local back_by = (self.max_ip_id - seg.ip_id) % 65536
            return back_by > 0 and back_by < 1024
        end
        return false
    end
    function Sender:late_extent(e, ts)
        local bytes = imax(dist(self.max, e), 0)
        local q, overtaken = self.outstanding, nil
        for i = q.h, q.t do
            if le(e, q[i].seq) then overtaken = q[i].ts; break end
        end
        return { packets = div_ceil(bytes, imax(self.mss, 1)), bytes = bytes,
                 late_ns = overtaken and (ts - overtaken) or 0 }
    end
    function Sender:widen_reorder(r)
        local m = self.max_reorder
        m.packets = imax(m.packets, r.packets)
        m.bytes = imax(m.bytes, r.bytes)
        m.late_ns = imax(m.late_ns, r.late_ns)
    end
    -- Which trigger explains a retransmission of [seq, e) at ts.
    function Sender:classify(seq, e, ts)
        local quiet = ts - imax(self.last_ack_ns, self.last_send_ns)
        local rto = rtt_rto(self.rtt)
        -- Same rule as Linux's RTO floor: silence of about an RTO means the timer fired.
        if quiet >= floor(rto * 3 / 4) then return R_RTO end
        if self.dupacks > 0 or not self.scoreboard:is_empty() then return R_FAST end
        -- RFC 8985 §7.2: the probe resends the last segment after 2·SRTT.
        local srtt = self.rtt.srtt
        if srtt ~= nil and e == self.max and quiet >= srtt and le(self.una, seq) then return R_TLP end
        return R_OTHER
    end
    function Sender:mark_retransmitted(seq, e, frame, tsval)
        local orig, orig_ts = 0, nil
        local q = self.outstanding
        for i = q.h, q.t do
            local s = q[i]
            if le(e, s.seq) then break end
            if lt(seq, s.e) then
                if orig == 0 then orig, orig_ts = s.frame, s.ts end
                s.retrans = imin(s.retrans + 1, 65535)
                s.lrf = frame
                s.lrt = tsval
            end
        end
        return orig, orig_ts
    end

    -- An ACK from the other side, acknowledging this direction's data.
    function Sender:on_ack(seg, frame, ts, notes)
        if not has(seg.flags, ACK) then return end
        local ack = seg.ack
        local blocks = seg.sack or {}
        local first = 1
        local dl, dr = dsack(ack, blocks)
        if dl ~= nil then
            -- Reported whether or not this direction's data was captured.
            notes.dsack = true
            notes.dsack_range = { dl, dr }
            self.dsacks = self.dsacks + 1
            self:prove(dl, dr, E_DSACK, notes)
            first = 2
        end
        if not self.started then return end
        self:note_echoes_on_ack(seg, ts)
        -- An ACK beyond SND.MAX covers data not captured (yet): SND.MAX stays the highest
        -- byte seen sent, so that data is new when it shows up, as in Wireshark.
        local advanced = lt(self.una, ack)
        if advanced then self:advance(ack, ts, seg, notes) end
        local new_sack = false
        for i = first, #blocks do
            if self.scoreboard:add(blocks[i][1], blocks[i][2], self.una) > 0 then new_sack = true end
        end
        if new_sack and self.hole_since == nil then self.hole_since = ts end
        -- Same as Wireshark tcp.analysis.duplicate_ack: no data, same ACK, same window.
        local pure = seg.len == 0 and not has(seg.flags, SYN) and not has(seg.flags, FIN)
                     and not has(seg.flags, RST)
        if not advanced and pure and ack == self.una and seg.window == self.last_ack_window
           and self:unacked() > 0 then
            self.dupacks = self.dupacks + 1
            notes.dup_ack = self.dupacks
            notes.dup_ack_of = self.last_ack_frame
        elseif advanced or not pure or seg.window ~= self.last_ack_window then
            if advanced then self.dupacks = 0 end
            self.last_ack_frame = frame
        end
        self.last_ack_window = seg.window
        self.last_ack_ns = ts
        if advanced or new_sack then self:snapshot(ts) end
    end

    function Sender:advance(ack, ts, seg, notes)
        local old_una = self.una
        self.una = ack
        self.rto_backoff = 0
        -- Sender-view reordering: a reported hole filled without a retransmission.
        if self.hole_since ~= nil then
            local holes = self.scoreboard:holes(old_una)
            local hole_end = holes[1] and holes[1][2]
            if hole_end ~= nil and le(hole_end, ack) and not self:retransmitted(old_una, hole_end) then
                local bytes = (self.scoreboard:above(hole_end))
                local r = { packets = div_ceil(bytes, imax(self.mss, 1)), bytes = bytes,
                            late_ns = ts - self.hole_since }
                notes.reorder = r
                self.reorder_events = self.reorder_events + 1
                self:widen_reorder(r)
            end
        end
        self.scoreboard:advance(ack)
        if self.scoreboard:is_empty() then self.hole_since = nil end
        local tsecr = seg.tsval and seg.tsecr
        local rtt_s
        local q = self.outstanding
        while true do
            local f = front(q)
            if f == nil or lt(ack, f.e) then break end
            local s = pop(q)
            local lag_known = self.a2d.samples > 0 or self.a2d_hint_ns ~= nil
            if s.retrans == 0 and s.syn and not lag_known then
                -- A SYN answered before the handshake shows where the capture point is:
                -- kept until it does (away from the sender it is only part of the RTT).
                self.pending_syn_rtt = ts - s.ts
            elseif s.retrans == 0 then
                -- Karn (RFC 6298 §3): time only never-retransmitted segments.
                rtt_s = ts - s.ts
            elseif tsecr ~= nil and s.lrt ~= nil then
                -- Eifel (RFC 3522 §3.2): the ACK echoes a timestamp older than the
                -- retransmission's, so the original got through.
                if ts_older(tsecr, s.lrt) then self:prove(s.seq, s.e, E_EIFEL, notes) end
            end
        end
        if rtt_s ~= nil then
            -- Away from the sender the rest of the loop is ACK → data (at the sender that
            -- delay is its own processing: left out).
            local lag = self:a2d_ns()
            local r = rtt_s + (lag >= S.at_sender_ns and lag or 0)
            rtt_sample(self.rtt, r)
            notes.rtt_ns = r
        end
        if self.in_recovery then
            local rec = self.recoveries[#self.recoveries]
            if rec ~= nil and le(rec.point, ack) then
                rec.end_ns = ts
                self.in_recovery = false
            end
        end
    end

    -- Marks the retransmissions of [l, r) spurious on evidence from this ACK.
    function Sender:prove(l, r, how, notes)
        local q = self.retransmissions
        for i = q.t, q.h, -1 do
            local rec = q[i]
            if not (rec.proven ~= E_NONE or le(rec.e, l) or le(r, rec.seq)) then
                rec.proven = how
                self.spurious = self.spurious + 1
                local recovery = self.recoveries[rec.recovery]
                if recovery then recovery.spurious = recovery.spurious + 1 end
                if notes.spurious_of == 0 then
                    notes.spurious_of = rec.frame
                    notes.spurious_by = how
                end
                return
            end
        end
    end

    ---------------------------------------------------------------- limit.rs
    local function limit_new(epoch0)
        local t = { state = L_UNKNOWN, settled = L_UNKNOWN, lag_ns = 0, since = {}, state_ns = {},
                    last_ts = nil, flat_level = 0, flat_since = epoch0, first_frame = {} }
        for i = 0, 7 do t.since[i] = 0; t.state_ns[i] = 0; t.first_frame[i] = 0 end
        return t
    end
    local function limit_charge(l, ts)
        local prev = l.last_ts
        if prev ~= nil and ts > prev then
            local dt = ts - prev
            local now_state = imin(dt, l.lag_ns)
            l.state_ns[l.state] = l.state_ns[l.state] + now_state
            l.state_ns[l.settled] = l.state_ns[l.settled] + (dt - now_state)
            l.since[l.state] = l.since[l.state] + now_state
            l.since[l.settled] = l.since[l.settled] + (dt - now_state)
        end
        l.last_ts = ts
    end
    local function limit_data_seen(l) for i = 0, 7 do l.since[i] = 0 end end
    local function limit_reassign(l, to)
        for st = 0, 7 do
            if st ~= L_UNKNOWN and st ~= L_ZERO and st ~= L_RWND and st ~= L_RECOVERY and st ~= L_IDLE
               and st ~= to then
                local t = l.since[st]
                l.since[st] = 0
                l.state_ns[st] = l.state_ns[st] - t
                l.state_ns[to] = l.state_ns[to] + t
            end
        end
    end
    local function limit_on_flight_sample(l, flight, ts)
        local lo = l.flat_level * (1.0 - S.flat_band)
        local hi = l.flat_level * (1.0 + S.flat_band)
        if l.flat_level == 0 or flight < lo or flight > hi then
            l.flat_level = flight; l.flat_since = ts
        end
    end
    local function limit_decide(s, in_flight, unacked, cwnd, rwnd, ts, flat_since)
        if not s.started or s.data_segments == 0 then return L_UNKNOWN end
        local mss = imax(s.mss, 536)
        if rwnd == 0 then return L_ZERO end
        if s.in_recovery then return L_RECOVERY end
        -- RFC 9293 §3.8.6.2.1: less than one segment of usable window left.
        if rwnd ~= nil and unacked + mss >= rwnd then return L_RWND end
        if unacked == 0 then return L_IDLE end
        if cwnd.value > 0 and in_flight + 2 * mss < cwnd.value then return L_APP end
        local srtt = s.rtt.srtt
        if srtt ~= nil then
            local last = s.recoveries[#s.recoveries]
            local no_loss = last == nil or (last.end_ns ~= nil and last.end_ns < flat_since)
            if ts - flat_since >= S.flat_rtts * srtt and no_loss then return L_SNDBUF end
        end
        return L_CWND
    end
    local function limit_update(l, s, in_flight, unacked, cwnd, rwnd, ts, frame)
        local state = limit_decide(s, in_flight, unacked, cwnd, rwnd, ts, l.flat_since)
        l.lag_ns = s:a2d_ns()
        if l.lag_ns == 0 then
            l.settled = state
        else
            -- The state once every ACK seen so far has reached the sender.
            local f, u, _, w = s:view_lagged(ts, 0)
            l.settled = limit_decide(s, f, u, cwnd, w, ts, l.flat_since)
        end
        if state ~= l.state and l.first_frame[state] == 0 then l.first_frame[state] = frame end
        l.state = state
        return state
    end
    -- Time with data outstanding (Linux's busy time): all but unknown and idle.
    local function limit_busy(l)
        local sum = 0
        for i = 0, 7 do sum = sum + l.state_ns[i] end
        return sum - l.state_ns[L_UNKNOWN] - l.state_ns[L_IDLE]
    end

    ---------------------------------------------------------------- flow_state.rs
    -- PacketNotes (notes.rs): a packet's notes hold what differs from these defaults.
    local NOTES = { __index = {
        data_dir = 0, rwnd = 0, in_flight = 0, unacked = 0, sacked = 0, cwnd = 0, cwnd_conf = C_NONE,
        limit = L_UNKNOWN, retrans = R_NONE, retrans_of = 0, dsack = false, spurious_of = 0,
        spurious_by = E_NONE, lost_before = 0, dup_ack = 0, dup_ack_of = 0, zero_window = false,
        zero_window_probe = false, window_full = false, keepalive = false, duplicate = false,
    } }
    local Flow = {}
    Flow.__index = Flow
    local function flow_new(epoch0, first_frame)
        return setmetatable({
            senders = { [0] = sender_new(epoch0), sender_new(epoch0) },
            syn_seen = { [0] = false, false }, syn_wscale = {}, scaling = {},
            rwnd_for = {}, rwnd_basis = {}, last_window_raw = { [0] = 0, 0 },
            rwnd_min = {}, rwnd_max = { [0] = 0, 0 }, rwnd_grew_ns = { [0] = epoch0, epoch0 },
            inferred_shift = {}, cwnd = { [0] = cwnd_new(), cwnd_new() },
            limits = { [0] = limit_new(epoch0), limit_new(epoch0) }, handshake = {},
            delays = delays_new(), write_ended = { [0] = false, false },
            first_ts = epoch0, last_ts = epoch0, packets = 0, first_frame = first_frame, epoch0 = epoch0,
        }, Flow)
    end
    function Flow:scaling_of(side)
        if self.scaling[side] == nil then self.scaling[side] = scaling_from_syns(nil, nil) end
        return self.scaling[side]
    end
    local function syn_opt(flow, side)   -- nil: SYN unseen; false: no option; else shift
        if not flow.syn_seen[side] then return nil end
        local w = flow.syn_wscale[side]
        if w == nil then return false end
        return w
    end

    local MAX_TS_NS = 4611686018427387904   -- 2^62 ns after 1970: the year 2116
    function Flow:on_segment(seg, d, frame, ts)
        -- Timestamps from damaged files can be anything: keep them between 1970 and 2116,
        -- as the engine does (ts is relative to epoch0, 1970 in this flow's time origin).
        if ts < self.epoch0 then ts = self.epoch0
        elseif ts - self.epoch0 > MAX_TS_NS then ts = self.epoch0 + MAX_TS_NS end
        local r = 1 - d
        local flags = seg.flags
        local syn = has(flags, SYN)
        if self.packets == 0 then self.first_ts = ts end
        self.packets = self.packets + 1
        self.last_ts = imax(self.last_ts, ts)
        limit_charge(self.limits[0], ts); limit_charge(self.limits[1], ts)
        handshake_on_segment(self.handshake, flags, d, ts)
        local hints = handshake_a2d(self.handshake)
        if hints then
            for side = 0, 1 do
                self.senders[side]:set_a2d_hint(hints[side])
            end
        end
        delays_on_segment(self.delays, seg.len, flags, d, ts)
        if syn and not self.syn_seen[d] then
            self.syn_seen[d] = true
            self.syn_wscale[d] = seg.wscale
            -- The peer's MSS option caps what this side may send it (RFC 9293 §3.7.1).
            if seg.mss ~= nil then self.senders[r].mss_option = seg.mss end
            for side = 0, 1 do
                local known = scaling_from_syns(syn_opt(self, side), syn_opt(self, 1 - side))
                if known.kind ~= "unk" then self.scaling[side] = known end
            end
        end

        local notes = setmetatable({}, NOTES)
        -- The window this packet advertises limits the other direction's sender.
        local rwnd, basis = scaled(self:scaling_of(d), seg.window, syn)
        if not has(flags, RST) then
            self.senders[r]:note_rwnd(rwnd, ts)
            self.rwnd_for[r] = rwnd
            self.rwnd_basis[r] = basis
            self.last_window_raw[d] = seg.window
            if not syn and self.senders[r].started then
                self.rwnd_min[r] = imin(self.rwnd_min[r] or rwnd, rwnd)
                if rwnd * 20 > self.rwnd_max[r] * 21 then self.rwnd_grew_ns[r] = ts end
                self.rwnd_max[r] = imax(self.rwnd_max[r], rwnd)
            end
        end
        -- Same as Wireshark tcp.analysis.zero_window.
        if seg.window == 0 and not syn and not has(flags, FIN) and not has(flags, RST) then
            notes.zero_window = true
            self.senders[r].zero_windows = self.senders[r].zero_windows + 1
        end

        local sr = self.senders[r]
        local recovering = sr.in_recovery
        sr:on_ack(seg, frame, ts, notes)
        if recovering and not sr.in_recovery then
            -- Recovery over: cwnd = β·cwnd at its start (RFC 9438 §4.6), or restored when
            -- it was undone as spurious (RFC 3708).
            local rec = sr.recoveries[#sr.recoveries]
            if rec then
                cwnd_on_recovery_end(self.cwnd[r], rec.flight_before,
                                     rec.spurious > 0 and rec.spurious == rec.retransmissions)
            end
        end
        local peer_rwnd = self.rwnd_for[d]
        if peer_rwnd == nil then peer_rwnd = huge end
        local sd = self.senders[d]
        sd:on_data(seg, frame, ts, peer_rwnd, notes)

        if seg.len > 0 and notes.retrans == R_NONE and notes.reorder == nil then
            -- A gap that began with a partial segment is the application's.
            if self.write_ended[d] then limit_reassign(self.limits[d], L_APP) end
            limit_data_seen(self.limits[d])
            local mss = imax(sd.mss, 1)
            self.write_ended[d] = seg.len % mss ~= 0 and not has(flags, FIN)
        end
        local carries_data = seg.len > 0 or syn or has(flags, FIN)
        local dd = carries_data and d or r
        notes.data_dir = dd

        -- Handshake not captured: flight above the raw window proves a larger shift.
        local flight_d = sd:unacked()
        local sc = self.scaling[r]
        if sc ~= nil and sc.kind == "unk" then
            local raw = self.last_window_raw[r]
            local shift = infer_from_flight(sc, raw, flight_d)
            if shift ~= nil then
                self.inferred_shift[r] = shift
                notes.inferred_shift = shift
                notes.inferred_flight = flight_d
                local w, b = scaled(sc, raw, false)
                self.rwnd_for[d] = w
                self.rwnd_basis[d] = b
            end
        end

        -- The row's rwnd is the window that limits the row's flight.
        local sdd = self.senders[dd]
        notes.rwnd = self.rwnd_for[dd] or 0
        notes.rwnd_basis = self.rwnd_basis[dd]
        local in_flight, unacked, sacked, view_rwnd = sdd:view(ts)
        local view_at_sender = sdd:a2d_ns() < S.at_sender_ns
        notes.in_flight = in_flight
        notes.unacked = unacked
        notes.sacked = sacked
        local rwnd_dd = view_rwnd
        if rwnd_dd == nil then rwnd_dd = self.rwnd_for[dd] end
        notes.rwnd = rwnd_dd or 0
        local mss = imax(sdd.mss, 536)
        local window_bound = rwnd_dd ~= nil and notes.unacked + mss >= rwnd_dd
        local cw = self.cwnd[dd]
        if carries_data and dd == d and seg.len > 0 then
            -- Same idea as Wireshark tcp.analysis.window_full.
            if rwnd_dd ~= nil then notes.window_full = rwnd_dd > 0 and notes.unacked >= rwnd_dd end
            if notes.retrans == R_NONE then cwnd_on_send(cw, notes.in_flight) end
        elseif has(flags, ACK) and sdd.started then
            local app_bound = notes.unacked == 0
            local before = cw.conf
            cwnd_on_ack(cw, notes.in_flight, window_bound, app_bound)
            if cw.conf == C_ESTIMATE and before ~= C_NONE then
                limit_on_flight_sample(self.limits[dd], cw.value, ts)
            end
        end
        -- cwnd is never below the flight; in recovery PRR (RFC 6937) keeps it there.
        if view_at_sender then cwnd_floor(cw, notes.in_flight, sdd.in_recovery) end
        notes.cwnd = cw.value
        notes.cwnd_conf = cw.conf
        notes.limit = limit_update(self.limits[dd], sdd, in_flight, unacked, cw, rwnd_dd, ts, frame)
        notes.rack_ns = floor((sdd.rtt.min or 0) / 4)
        if self.handshake.ack ~= nil then notes.vantage = handshake_vantage(self.handshake, dd) end
        return notes
    end
    function Flow:data_dir()
        if self.senders[1].data_bytes > self.senders[0].data_bytes then return 1 end
        return 0
    end
    -- Window scaling in effect: false once a captured SYN lacks it, true when both carry it.
    function Flow:wscale_in_effect()
        local all = true
        for side = 0, 1 do
            if self.syn_seen[side] then
                if self.syn_wscale[side] == nil then return false end
            else
                all = false
            end
        end
        if all then return true end
        return nil
    end

    ---------------------------------------------------------------- verdict.rs
    local function mbit(bps) return string.format("%.1f Mbit/s", bps / 1e6) end
    local function int(x) return { int = x } end      -- Value::Int
    local function num(x) return { num = x } end      -- Value::Num
    local function text(x) return { text = x } end    -- Value::Text

    -- How late reordered data was: measured, or for retransmissions proven spurious at
    -- least the wait before resending less one round trip (verdict.rs reorder_extent_ns).
    local function reorder_extent_ns(s)
        local min_rtt = s.rtt.min or 0
        local proven = 0
        local q = s.retransmissions
        for i = q.h, q.t do
            local r = q[i]
            if r.proven ~= E_NONE and r.orig_ts ~= nil then
                proven = imax(proven, r.ts - r.orig_ts - min_rtt)
            end
        end
        return imax(imax(s.max_reorder.late_ns, proven), 0)
    end

    function Flow:verdict(vantage_override)
        local dd = self:data_dir()
        local s = self.senders[dd]
        local lim = self.limits[dd]
        local busy = imax(limit_busy(lim), 1)
        local function share(st) return lim.state_ns[st] / busy end
        local vantage = vantage_override
        if vantage == nil then
            vantage = handshake_vantage(self.handshake, dd)
            if vantage == 0 then vantage = delays_vantage(self.delays, dd) end
        end
        local start = s.first_data_ns or self.first_ts
        local stop = imax(s.last_ack_ns, s.last_send_ns)
        local secs = imax(stop - start, 1) / 1e9
        local goodput = s.data_bytes * 8.0 / secs
        local rtt = s.rtt.srtt or rtt_mean(s.rtt)
        local rtt_s = (rtt or 0) / 1e9
        local rtt_ms = num(rtt_s * 1e3)
        local v = {
            data_dir = dd, vantage = vantage, vantage_name = M.VANTAGE[vantage], busy_ns = limit_busy(lim),
            first_frame = self.first_frame,
            state_ns = lim.state_ns, min_rtt_ns = s.rtt.min, srtt_ns = s.rtt.srtt,
            mean_rtt_ns = rtt_mean(s.rtt), mss = s.mss, data_bytes = s.data_bytes, goodput_bps = goodput,
            rwnd_min = self.rwnd_min[dd], rwnd_max = self.rwnd_max[dd], rwnd_basis = self.rwnd_basis[dd],
            retrans_segments = s.retrans_segments, spurious = s.spurious, dsacks = s.dsacks,
            reorder_events = s.reorder_events, max_reorder_ns = reorder_extent_ns(s),
            recoveries = #s.recoveries, zero_windows = s.zero_windows,
            lost_before_bytes = s.lost_before_bytes, findings = {},
        }
        local mss = imax(s.mss, 1)
        -- In typical segments: TSO/GRO super-segments must not raise the bar.
        if s.data_bytes < S.min_segments * math.min(mss, 1460) or rtt == nil then
            v.findings[1] = { id = "not_limited", share = 1.0, frames = { self.first_frame },
                              values = { { "reason", text(string.format("too little data to judge (%.0f B)",
                                                                          s.data_bytes)) } } }
            return v
        end
        local f = {}
        local function add(x) f[#f + 1] = x end
        local function retrans_frames(proven)
            local out, q = {}, s.retransmissions
            for i = q.h, q.t do
                if #out == 3 then break end
                if (q[i].proven ~= E_NONE) == proven then out[#out + 1] = q[i].frame end
            end
            return out
        end

        -- Receive window: zero windows, scaling absent, static buffer, or simply too small.
        local rwnd_share = share(L_RWND) + share(L_ZERO)
        local rwnd = self.rwnd_max[dd]
        local function ceiling(w) return text(mbit(w * 8.0 / imax(rtt_s, 1e-9))) end
        if s.zero_windows > 0 and share(L_ZERO) > 0.05 then
            -- A closed window is the cause of the rwnd limit around it: above the other
            -- window findings; above missing scaling too once closed most of the time.
            local zw = share(L_ZERO)
            add({ id = "zero_window_stall", share = imax(rwnd_share, zw) + (zw >= 0.5 and 0.03 or 0.01),
                  frames = { lim.first_frame[L_ZERO] },
                  values = { { "count", int(s.zero_windows) }, { "stall_ms", num(lim.state_ns[L_ZERO] / 1e6) },
                             { "share", num(100.0 * share(L_ZERO)) } } })
        end
        if rwnd_share >= S.min_share then
            local frames = { lim.first_frame[L_RWND] }
            local values = { { "rwnd", int(rwnd) }, { "rtt_ms", rtt_ms }, { "ceiling", ceiling(rwnd) } }
            local wscale_off = self:wscale_in_effect() == false
            local transfer = imax(stop - start, 1)
            local fixed = self.rwnd_grew_ns[dd] - start < floor(transfer / 4) and rwnd < S.static_rwnd_max
            local id
            if wscale_off and rwnd <= 65535 then
                local who
                local w0, w1 = self.syn_wscale[0], self.syn_wscale[1]
                if w0 == nil and w1 == nil then who = "neither SYN offered it"
                elseif w0 == nil then who = "the client's SYN lacks the option"
                else who = "the server's SYN/ACK lacks the option" end
                id = "wscale_missing"
                values[#values + 1] = { "who", text(who) }
            elseif fixed then
                id = "rwnd_static"
            else
                id = "rwnd_limited"
            end
            values[#values + 1] = { "share", num(100.0 * rwnd_share) }
            -- Scaling off is the configuration fault behind the zero-window stalls' window too.
            add({ id = id, share = rwnd_share + (id == "wscale_missing" and 0.02 or 0.0), frames = frames,
                  values = values })
        end

        -- A standing queue (RTT well above its minimum) means the bottleneck is full.
        local inflation = 1.0
        if s.rtt.srtt ~= nil and s.rtt.min ~= nil and s.rtt.min > 0 then inflation = s.rtt.srtt / s.rtt.min end
        local queue_full = inflation >= S.queue_inflation

        -- Retransmissions: spurious ones point at reordering, genuine ones at loss.
        local genuine = imax(s.retrans_segments - s.spurious, 0)
        local loss_share = share(L_RECOVERY) + share(L_CWND) * 0.5
        local spurious_recoveries = 0
        for i = 1, #s.recoveries do
            if s.recoveries[i].spurious > 0 then spurious_recoveries = spurious_recoveries + 1 end
        end
        if s.spurious > 0 and s.spurious * 2 >= s.retrans_segments then
            add({ id = "reorder_limited", share = imax(loss_share, 0.3), frames = retrans_frames(true),
                  values = { { "spurious", int(s.spurious) }, { "retrans", int(s.retrans_segments) },
                             { "cuts", int(spurious_recoveries) },
                             { "extent_ms", num(reorder_extent_ns(s) / 1e6) },
                             { "rack_ms", num((s.rtt.min or 0) / 4e6) } } })
        end
        -- The first slow start ended in a burst of losses that holds most genuine losses.
        local overshoot_explains = false
        local first = s.recoveries[1]
        if first ~= nil then
            local genuine_first = imax(first.retransmissions - first.spurious, 0)
            if first.in_slow_start and first.retransmissions >= 4 and first.spurious * 2 < first.retransmissions then
                overshoot_explains = genuine_first * 10 >= genuine * 7
                local explained = overshoot_explains and (loss_share + 0.01) or share(L_RECOVERY)
                add({ id = "slow_start_overshoot", share = imax(explained, S.min_share + 0.01),
                      frames = { first.start_frame },
                      values = { { "lost", int(first.retransmissions) }, { "frame", int(first.start_frame) } } })
            end
        end
        if genuine > 0 and s.data_segments > 0 then
            local p = genuine / s.data_segments
            local mathis = (mss * 8.0 / imax(rtt_s, 1e-9)) * 1.22 / math.sqrt(p)
            if not overshoot_explains and (share(L_RECOVERY) > 0.1 or p > 0.001) then
                add({ id = "loss_limited", share = queue_full and imin(loss_share, 0.2) or loss_share,
                      frames = retrans_frames(false),
                      values = { { "loss_pct", num(100.0 * p) }, { "recoveries", int(#s.recoveries) },
                                 { "mathis", text(mbit(mathis)) }, { "rtt_ms", rtt_ms } } })
            end
        end

        -- Sender-side limits.
        local cwv = self.cwnd[dd].value
        if share(L_SNDBUF) >= S.min_share then
            add({ id = "sndbuf_limited", share = share(L_SNDBUF), frames = { lim.first_frame[L_SNDBUF] },
                  values = { { "share", num(100.0 * share(L_SNDBUF)) }, { "flight", int(cwv) },
                             { "rwnd", int(rwnd) }, { "ceiling", ceiling(cwv) } } })
        end
        -- The application's share counts its idle time too: of the whole transfer.
        local idle = lim.state_ns[L_IDLE]
        local app_share = (lim.state_ns[L_APP] + idle) / imax(busy + idle, 1)
        if app_share >= S.min_share then
            add({ id = "app_limited", share = app_share,
                  frames = { imax(lim.first_frame[L_APP], lim.first_frame[L_IDLE]) },
                  values = { { "share", num(100.0 * app_share) }, { "flight", int(cwv) } } })
        end
        if share(L_CWND) >= S.min_share and queue_full then
            add({ id = "bandwidth_limited", share = share(L_CWND) + share(L_RECOVERY),
                  frames = { lim.first_frame[L_CWND] },
                  values = { { "throughput", text(mbit(goodput)) }, { "flight", int(cwv) },
                             { "min_rtt_ms", num((s.rtt.min or 0) / 1e6) }, { "rtt_ms", rtt_ms } } })
        end
        if #f == 0 then
            add({ id = "not_limited", share = 0.0, frames = { self.first_frame },
                  values = { { "reason", text("no limit state dominated the transfer") } } })
        end
        -- A window that binds most of the busy time is the first thing to fix, whatever the
        -- application does between transfers. Stable sort, descending (as Rust's sort_by).
        local WINDOW = { wscale_missing = true, rwnd_static = true, rwnd_limited = true, zero_window_stall = true }
        for i = 1, #f do
            f[i].order = i
            f[i].rank = f[i].share + ((WINDOW[f[i].id] and f[i].share >= 0.5) and 1.0 or 0.0)
        end
        table.sort(f, function(a, b)
            if a.rank ~= b.rank then return a.rank > b.rank end
            return a.order < b.order
        end)
        v.findings = f
        return v
    end

    ---------------------------------------------------------------- messages
    -- Fills a catalogue template as tcpdiag.analysis.format_message does: integers with
    -- thousands separators, numbers with one decimal below 1000, unknown names as "?".
    local function commas(s)
        local sign, digits, rest = s:match("^(-?)(%d+)(.*)$")
        if not digits or #digits <= 3 then return s end
        local out = digits:reverse():gsub("(%d%d%d)", "%1,"):reverse()
        if out:sub(1, 1) == "," then out = out:sub(2) end
        return sign .. out .. rest
    end
    local function fmt_value(x)
        if type(x) == "table" then
            if x.int ~= nil then return commas(string.format("%.0f", x.int)) end
            if x.num ~= nil then
                if math.abs(x.num) < 1000 then return commas(string.format("%.1f", x.num)) end
                return commas(string.format("%.0f", x.num))
            end
            return tostring(x.text)
        end
        if type(x) == "number" then return commas(string.format("%.0f", x)) end
        return tostring(x)
    end
    M.commas = commas
    -- Templates split once into text and names (text at odd, names at even positions):
    -- messages are formatted per packet.
    local compiled = {}
    local function compile(template)
        local parts, pos = {}, 1
        for at, name, after in template:gmatch("(){([%w_]+)}()") do
            parts[#parts + 1] = template:sub(pos, at - 1)
            parts[#parts + 1] = name
            pos = after
        end
        parts[#parts + 1] = template:sub(pos)
        compiled[template] = parts
        return parts
    end
    function M.format(template, values)
        local map = values
        if #values > 0 then
            map = {}
            for i = 1, #values do map[values[i][1]] = values[i][2] end
            for k, x in pairs(values) do if type(k) == "string" then map[k] = x end end
        end
        local parts = compiled[template] or compile(template)
        local out = {}
        for i = 1, #parts do
            local p = parts[i]
            if i % 2 == 1 then
                out[i] = p
            else
                local x = map[p]
                out[i] = x == nil and "?" or fmt_value(x)
            end
        end
        return table.concat(out)
    end

    ---------------------------------------------------------------- the analyzer
    -- One per capture: flows indexed by their tcp.stream number.
    local Analyzer = {}
    Analyzer.__index = Analyzer
    function M.new() return setmetatable({ flows = {}, nflows = 0, epoch0 = nil }, Analyzer) end

    --- Feeds one TCP segment; returns its notes (see notes.rs PacketNotes).
    -- seg: frame, ts (ns, relative to any fixed origin), epoch0 (the origin's distance to
    -- 1970 in ns, ≤ 0), stream, src, sport, seq, ack, len, flags, window, [mss], [wscale],
    -- [sack = {{l, r}, ...} raw], [tsval, tsecr], ip_version, [ip_id].
    function Analyzer:segment(seg)
        local fl = self.flows[seg.stream]
        if fl == nil then
            fl = flow_new(seg.epoch0 or 0, seg.frame)
            fl.a_src, fl.a_port = seg.src, seg.sport
            self.flows[seg.stream] = fl
            self.nflows = self.nflows + 1
        end
        local d = (seg.src == fl.a_src and seg.sport == fl.a_port) and 0 or 1
        local n = fl:on_segment(seg, d, seg.frame, seg.ts)
        n.dir = d
        return n
    end
    --- A flow opened without analysis (a TCP header quoted in an ICMP error): its first
    -- endpoint still decides the directions, as in Wireshark.
    function Analyzer:open_only(stream, src, sport, frame, epoch0)
        if self.flows[stream] == nil then
            local fl = flow_new(epoch0 or 0, frame)
            fl.a_src, fl.a_port = src, sport
            self.flows[stream] = fl
            self.nflows = self.nflows + 1
        end
    end
    function Analyzer:verdict(stream)
        local fl = self.flows[stream]
        if fl then return fl:verdict() end
    end

    --- The CSV cells of the analysis columns, as `tcpdiag packets --analysis` prints them.
    M.COLUMNS = { "data_dir", "rwnd", "rwnd_basis", "in_flight", "unacked", "sacked", "cwnd", "cwnd_conf",
                  "limit", "retrans", "retrans_of", "dsack", "spurious_of", "spurious_by", "reorder_packets",
                  "reorder_bytes", "reorder_ns", "lost_before", "dup_ack", "zero_window",
                  "zero_window_probe", "window_full", "keepalive", "duplicate", "rtt_ns" }
    function M.cells(n)
        local function i(x) return string.format("%.0f", x) end
        local function b(x) return x and "1" or "0" end
        local r = n.reorder
        return {
            i(n.data_dir), i(n.rwnd), n.rwnd_basis and M.BASIS[n.rwnd_basis] or "", i(n.in_flight),
            i(n.unacked), i(n.sacked), i(n.cwnd), M.CONF[n.cwnd_conf], M.LIMIT[n.limit],
            M.RETRANS[n.retrans], i(n.retrans_of), b(n.dsack), i(n.spurious_of), M.EVIDENCE[n.spurious_by],
            i(r and r.packets or 0), i(r and r.bytes or 0), r and i(r.late_ns) or "", i(n.lost_before),
            i(n.dup_ack), b(n.zero_window), b(n.zero_window_probe), b(n.window_full), b(n.keepalive),
            b(n.duplicate), n.rtt_ns and i(n.rtt_ns) or "",
        }
    end
    ---------------------------------------------------------------- the catalogue
    -- BEGIN GENERATED CATALOGUE (generated from catalogue/findings.toml by tools/gen_catalogue.py — do not edit)
    M.CATALOGUE = {
        retransmission = { field = "tcpdiag.analysis.retransmission", group = "sequence", severity = "note", scope = "packet", message = "Retransmission of frame {orig_frame} ({kind})", remedy = "" },
        spurious_retransmission = { field = "tcpdiag.analysis.spurious_retransmission", group = "sequence", severity = "warn", scope = "packet", message = "Spurious retransmission: the original of frame {orig_frame} had arrived ({evidence} in frame {evidence_frame})", remedy = "" },
        dsack = { field = "tcpdiag.analysis.dsack", group = "sequence", severity = "note", scope = "packet", message = "DSACK {left}-{right}: the receiver got these bytes twice", remedy = "" },
        reordering = { field = "tcpdiag.analysis.reordering", group = "sequence", severity = "note", scope = "packet", message = "Reordering: arrived {extent_packets} packets / {extent_bytes} / {extent} late (RACK window {rack})", remedy = "" },
        lost_segment = { field = "tcpdiag.analysis.lost_segment", group = "sequence", severity = "warn", scope = "packet", message = "Previous segment not captured: {gap} missing before this one", remedy = "" },
        duplicate_ack = { field = "tcpdiag.analysis.duplicate_ack", group = "sequence", severity = "note", scope = "packet", message = "Duplicate ACK #{count} of frame {orig_frame}", remedy = "" },
        zero_window = { field = "tcpdiag.analysis.zero_window", group = "sequence", severity = "warn", scope = "packet", message = "Zero window: the receiver's buffer is full (its application is not reading)", remedy = "" },
        zero_window_probe = { field = "tcpdiag.analysis.zero_window_probe", group = "sequence", severity = "note", scope = "packet", message = "Zero-window probe", remedy = "" },
        window_full = { field = "tcpdiag.analysis.window_full", group = "sequence", severity = "note", scope = "packet", message = "Window full: {in_flight} in flight = rwnd {rwnd}", remedy = "" },
        window_scale_inferred = { field = "tcpdiag.analysis.window_scale_inferred", group = "protocol", severity = "note", scope = "packet", message = "Window scale not captured; inferred shift ≥ {shift} from {in_flight} in flight above the raw window", remedy = "" },
        rwnd_limited = { field = "tcpdiag.verdict.rwnd_limited", group = "sequence", severity = "warn", scope = "flow", message = "Receive-window limited {share} of the time: rwnd {rwnd} ÷ RTT {rtt} = {ceiling} ceiling", remedy = "Let the receiver's autotuning size its buffer (do not set SO_RCVBUF), or raise its maximum (net.ipv4.tcp_rmem)" },
        rwnd_static = { field = "tcpdiag.verdict.rwnd_static", group = "sequence", severity = "warn", scope = "flow", message = "Receive window fixed at {rwnd} for the whole transfer → ceiling {ceiling} at {rtt} RTT", remedy = "Remove the static SO_RCVBUF so autotuning can grow the window to the path's BDP" },
        wscale_missing = { field = "tcpdiag.verdict.wscale_missing", group = "protocol", severity = "warn", scope = "flow", message = "Window scaling not in effect ({who}): window capped at 65,535 B → ceiling {ceiling} at {rtt} RTT", remedy = "Enable window scaling on both hosts (net.ipv4.tcp_window_scaling=1) and check middleboxes that strip the option" },
        zero_window_stall = { field = "tcpdiag.verdict.zero_window_stall", group = "sequence", severity = "warn", scope = "flow", message = "Receiver advertised a zero window {count} times, stalled {stall} ({share} of the transfer)", remedy = "The receiving application is not reading fast enough: profile it or read on a separate thread" },
        sndbuf_limited = { field = "tcpdiag.verdict.sndbuf_limited", group = "sequence", severity = "warn", scope = "flow", message = "Sender-buffer limited {share} of the time: flight flat at {flight} below rwnd {rwnd}, no loss → ceiling {ceiling}", remedy = "Let the sender's autotuning size its buffer (do not set SO_SNDBUF), or raise net.ipv4.tcp_wmem" },
        app_limited = { field = "tcpdiag.verdict.app_limited", group = "sequence", severity = "note", scope = "flow", message = "Application limited {share} of the time: the sender had nothing more to send while both windows had room for more than the {flight} it kept in flight", remedy = "The sending application does not keep the socket full: write larger chunks, pipeline requests, or check what it waits on" },
        reorder_limited = { field = "tcpdiag.verdict.reorder_limited", group = "sequence", severity = "warn", scope = "flow", message = "Reordering mistaken for loss: {spurious} of {retrans} retransmissions spurious (DSACK/Eifel), cwnd cut {cuts} times; reordering up to {extent} vs RACK window {rack}", remedy = "Find what reorders (multipath, NIC queues, LAG hashing); on the sender use RACK-TLP and DSACK-based undo" },
        loss_limited = { field = "tcpdiag.verdict.loss_limited", group = "sequence", severity = "warn", scope = "flow", message = "Loss limited: {loss} of segments retransmitted in {recoveries} recoveries; Mathis bound {mathis} at {rtt} RTT", remedy = "Find where packets are dropped (interface errors, policers, congested links); loss of {loss} caps TCP well below the link rate" },
        slow_start_overshoot = { field = "tcpdiag.verdict.slow_start_overshoot", group = "sequence", severity = "warn", scope = "flow", message = "Slow-start overshoot: {lost} segments lost in one round at the end of slow start (frame {frame})", remedy = "Use HyStart++ or pacing (e.g. fq qdisc), or give the bottleneck a queue of at least one BDP" },
        bandwidth_limited = { field = "tcpdiag.verdict.bandwidth_limited", group = "sequence", severity = "note", scope = "flow", message = "Bandwidth limited: {throughput} once past slow start, {busy} of the bottleneck's {capacity}; {flight} in flight, RTT {min_rtt} at best, {rtt} on average", remedy = "The path is full: more throughput needs more bandwidth; where the RTT grew well above its minimum, the standing queue adds latency (consider BBR or AQM)" },
        not_limited = { field = "tcpdiag.verdict.not_limited", group = "comment", severity = "chat", scope = "flow", message = "No limit found: {reason} ({data} of new data)", remedy = "Nothing to fix in TCP for this flow" },
    }
    -- END GENERATED CATALOGUE

    return M
end)()

if Proto == nil then return core end

------------------------------------------------------------------------------------------
-- Proto
------------------------------------------------------------------------------------------
local tcpdiag = Proto("tcpdiag", "tcpdiag TCP performance analysis")

------------------------------------------------------------------------------------------
-- Fields (names = the columns of `tcpdiag packets --analysis`, docs/wireshark.md)
------------------------------------------------------------------------------------------
local FRAME_PREV = frametype and frametype.RETRANS_PREV or nil
local FRAME_ACK = frametype and frametype.ACK or nil
local hf = {
    flow = ProtoField.uint32("tcpdiag.flow", "Flow (tcp.stream)"),
    data_dir = ProtoField.uint8("tcpdiag.data_dir", "Data direction described", base.DEC,
                                { [0] = "A→B", [1] = "B→A" }),
    vantage = ProtoField.string("tcpdiag.vantage", "Capture point (from the handshake)"),
    rwnd = ProtoField.uint32("tcpdiag.rwnd", "Receive window (bytes)"),
    rwnd_basis = ProtoField.string("tcpdiag.rwnd_basis", "Window scale"),
    in_flight = ProtoField.uint32("tcpdiag.in_flight", "Bytes in flight (RFC 6675 pipe)"),
    unacked = ProtoField.uint32("tcpdiag.unacked", "Unacknowledged bytes"),
    sacked = ProtoField.uint32("tcpdiag.sacked", "SACKed bytes"),
    cwnd = ProtoField.uint32("tcpdiag.cwnd", "cwnd estimate (bytes)"),
    cwnd_conf = ProtoField.string("tcpdiag.cwnd_conf", "cwnd confidence"),
    limit = ProtoField.string("tcpdiag.limit", "Limited by"),
    retrans = ProtoField.string("tcpdiag.retrans", "Retransmission"),
    retrans_of = ProtoField.framenum("tcpdiag.retrans_of", "Original transmission in frame", base.NONE, FRAME_PREV),
    dsack = ProtoField.bool("tcpdiag.dsack", "DSACK"),
    dsack_left = ProtoField.uint32("tcpdiag.dsack.left", "DSACK left edge (raw)"),
    dsack_right = ProtoField.uint32("tcpdiag.dsack.right", "DSACK right edge (raw)"),
    spurious_of = ProtoField.framenum("tcpdiag.spurious_of", "Proves spurious the retransmission in frame",
                                      base.NONE, FRAME_PREV),
    spurious_by = ProtoField.string("tcpdiag.spurious_by", "Evidence"),
    spurious_proven_in = ProtoField.framenum("tcpdiag.spurious_proven_in", "Proven spurious by frame",
                                             base.NONE, FRAME_ACK),
    reorder_packets = ProtoField.uint32("tcpdiag.reorder_packets", "Reordering extent (packets)"),
    reorder_bytes = ProtoField.uint32("tcpdiag.reorder_bytes", "Reordering extent (bytes)"),
    reorder_ns = ProtoField.int64("tcpdiag.reorder_ns", "Reordering extent (ns)"),
    lost_before = ProtoField.uint32("tcpdiag.lost_before", "Bytes not captured before this segment"),
    dup_ack = ProtoField.uint32("tcpdiag.dup_ack", "Duplicate ACK number"),
    dup_ack_of = ProtoField.framenum("tcpdiag.dup_ack_of", "Duplicate of the ACK in frame", base.NONE, FRAME_ACK),
    zero_window = ProtoField.bool("tcpdiag.zero_window", "Zero window"),
    zero_window_probe = ProtoField.bool("tcpdiag.zero_window_probe", "Zero-window probe"),
    window_full = ProtoField.bool("tcpdiag.window_full", "Window full"),
    keepalive = ProtoField.bool("tcpdiag.keepalive", "Keep-alive"),
    duplicate = ProtoField.bool("tcpdiag.duplicate", "Duplicate (the same packet seen twice)"),
    rtt_ns = ProtoField.int64("tcpdiag.rtt_ns", "RTT sample (ns)"),
    -- Per flow, after the first pass.
    verdict = ProtoField.string("tcpdiag.flow.verdict", "Verdict"),
    verdict_message = ProtoField.string("tcpdiag.flow.verdict_message", "Why"),
    finding = ProtoField.string("tcpdiag.flow.finding", "Finding"),
    remedy = ProtoField.string("tcpdiag.flow.remedy", "Remedy"),
    evidence = ProtoField.framenum("tcpdiag.flow.evidence", "Evidence frame"),
    flow_vantage = ProtoField.string("tcpdiag.flow.vantage", "Capture point"),
    flow_data_dir = ProtoField.uint8("tcpdiag.flow.data_dir", "Data direction", base.DEC,
                                     { [0] = "A→B", [1] = "B→A" }),
    share = ProtoField.string("tcpdiag.flow.shares", "Time limited by"),
}
local hf_list = {}
for _, f in pairs(hf) do hf_list[#hf_list + 1] = f end
tcpdiag.fields = hf_list

-- Annotated mode: the engine's results for this capture, written by
-- `tcpdiag wireshark annotate` (emit/annotations.rs), shown instead of analysing in Lua;
-- both modes show the same tree. Named by a script argument (`-X lua_script1:annotations=F`,
-- read here, before any field is looked up: then no field extractor is registered, and
-- Wireshark builds no fields for us) or by the "annotations" preference (extractors stay
-- registered, for the Lua analysis if the file turns out unusable).
local ANNOTATIONS_FORMAT = 1
-- The file is data written as Lua: it runs as text only, with nothing of Lua's or
-- Wireshark's API in reach (math.huge is all it may name).
local function load_data(path)
    local f, err = io.open(path, "rb")
    if not f then return nil, err end
    local text = f:read("*a")
    f:close()
    local env = { math = { huge = math.huge } }
    local chunk
    if setfenv and loadstring then                          -- Lua 5.1
        if text:byte(1) == 27 then return nil, "precompiled chunks are refused" end
        chunk, err = loadstring(text, "=" .. path)
        if chunk then setfenv(chunk, env) end
    else
        chunk, err = load(text, "=" .. path, "t", env)
    end
    if not chunk then return nil, err end
    local ok, value = pcall(chunk)
    if not ok then return nil, value end
    return value
end
local function read_annotations(path)
    local a, err = load_data(path)
    if type(a) ~= "table" or a.format ~= ANNOTATIONS_FORMAT then
        io.stderr:write("tcpdiag: " .. path .. ": not tcpdiag annotations of format " .. ANNOTATIONS_FORMAT
                        .. (err and (" (" .. tostring(err) .. ")") or "") .. "\n")
        return nil
    end
    return { path = path, data = a, packets = {}, flows = {} }
end
local preloaded
for _, arg in ipairs({ ... }) do
    local path = type(arg) == "string" and arg:match("^annotations=(.+)$")
    if path then preloaded = read_annotations(path) end
end

------------------------------------------------------------------------------------------
-- Extractors. Few field lookups (each costs a call into Wireshark): the TCP header and the
-- IPv4 header are read from the packet bytes where Wireshark found them, and decoded as
-- the engine decodes them (decode/tcp.rs, decode/tcp_options.rs).
------------------------------------------------------------------------------------------
local fx = not preloaded and {
    frame_number = Field.new("frame.number"),
    time = Field.new("frame.time_epoch"),
    protocols = Field.new("frame.protocols"),
    stream = Field.new("tcp.stream"),
    sport = Field.new("tcp.srcport"),           -- where the TCP header starts
    len = Field.new("tcp.len"),                 -- payload length (from the IP length)
    ip_src = Field.new("ip.src"),               -- where the IPv4 header's source is
    ip6_src = Field.new("ipv6.src"),
    ip6_frag = Field.new("ipv6.fraghdr.offset"),
    ip6_more = Field.new("ipv6.fraghdr.more"),
} or nil
-- The last occurrence (the innermost layer), or nil.
local function last(...)
    local n = select("#", ...)
    if n == 0 then return nil end
    return (select(n, ...))
end
local byte = string.byte
local function be16(s, i) local a, b = byte(s, i, i + 1); return a * 256 + b end
local function be32(s, i) local a, b, c, d = byte(s, i, i + 3); return ((a * 256 + b) * 256 + c) * 256 + d end

-- The captured bytes of the header that field `fi` starts (at most n).
local function header_at(fi, back, n)
    local tvb = fi.source
    local off = fi.offset - back
    if off < 0 then return nil end
    local avail = tvb:len() - off
    if avail <= 0 then return nil end
    return tvb:raw(off, math.min(avail, n))
end

-- TCP options (RFC 9293 §3.2): MSS, window scale, SACK blocks, timestamps; parsing stops
-- at a length that runs past the captured header, as the engine's does.
local function tcp_options(h, seg, hdr_len)
    local i, stop = 21, math.min(hdr_len, #h)
    while i <= stop do
        local kind = byte(h, i)
        if kind == 0 then break end
        if kind == 1 then
            i = i + 1
        else
            if i + 1 > stop then break end
            local len = byte(h, i + 1)
            if len < 2 or i + len - 1 > stop then break end
            local n = len - 2
            if kind == 2 and n == 2 then
                seg.mss = be16(h, i + 2)
            elseif kind == 3 and n == 1 then
                seg.wscale = byte(h, i + 2)
            elseif kind == 5 and n > 0 and n % 8 == 0 then
                local sack = {}
                for b = 0, math.min(n / 8, 4) - 1 do
                    local at = i + 2 + b * 8
                    sack[b + 1] = { be32(h, at), be32(h, at + 4) }
                end
                seg.sack = sack
            elseif kind == 8 and n == 8 then
                seg.tsval, seg.tsecr = be32(h, i + 2), be32(h, i + 6)
            end
            i = i + len
        end
    end
end

------------------------------------------------------------------------------------------
-- Constants
------------------------------------------------------------------------------------------
local GROUP = { sequence = expert.group.SEQUENCE, protocol = expert.group.PROTOCOL,
                malformed = expert.group.MALFORMED, comment = expert.group.COMMENTS_GROUP }
local SEVERITY = { chat = expert.severity.CHAT, note = expert.severity.NOTE,
                   warn = expert.severity.WARN, ["error"] = expert.severity.ERROR }
local ei = {}                       -- catalogue id → ProtoExpert
do
    local list = {}
    local ids = {}
    for id in pairs(core.CATALOGUE) do ids[#ids + 1] = id end
    table.sort(ids)
    for _, id in ipairs(ids) do
        local c = core.CATALOGUE[id]
        ei[id] = ProtoExpert.new(c.field, c.message, GROUP[c.group], SEVERITY[c.severity])
        list[#list + 1] = ei[id]
    end
    -- Not from the catalogue: the annotations file belongs to another capture.
    ei.annotations_mismatch = ProtoExpert.new("tcpdiag.annotations_mismatch",
        "tcpdiag annotations of another capture: ignored", expert.group.PROTOCOL, expert.severity.WARN)
    list[#list + 1] = ei.annotations_mismatch
    tcpdiag.experts = list
end
local DIR_NAME = { [0] = "A→B", [1] = "B→A" }
local BASIS, CONF, LIMIT, VANTAGE = core.BASIS, core.CONF, core.LIMIT, core.VANTAGE
local EVIDENCE_TEXT = { [1] = "DSACK", [2] = "timestamp echo (Eifel)" }

local settings                      -- defined with the preferences below
-- The verdict thresholds' defaults, the engine's: annotations hold verdicts made with these.
local DEFAULT_THRESHOLDS = {
    min_share_pct = 25,              -- verdict.rs MIN_SHARE
    min_segments = 20,               -- verdict.rs MIN_SEGMENTS
    queue_inflation_pct = 150,       -- verdict.rs QUEUE_INFLATION
    flat_rtts = 8,                   -- limit.rs FLAT_RTTS
}

local loaded = {}                   -- the preference's file, read once (init runs per file)
local function load_annotations()
    if preloaded then return preloaded end
    local path = settings and settings.annotations or ""
    if path == "" then return nil end
    for name, default in pairs(DEFAULT_THRESHOLDS) do
        if settings[name] ~= default then
            io.stderr:write("tcpdiag: thresholds changed in the preferences: analysing in Lua, not using "
                            .. path .. "\n")
            return nil
        end
    end
    if loaded.path ~= path then loaded.path, loaded.value = path, read_annotations(path) end
    return loaded.value
end

-- Everything learnt from the capture; reset by init (a new file or a redissection).
local state
local function reset()
    state = {
        analyzer = core.new(),
        frames = {},        -- frame number → record, or false (TCP not analysed)
        proven = {},        -- retransmission frame → { ack frame, evidence }
        next = 1,           -- the next frame of the in-order sweep that analyses
        base_secs = {},     -- stream → time origin (whole seconds of its first frame)
        verdicts = {},      -- stream → { packets = n, v = verdict }
        annotated = load_annotations(),
    }
    if state.annotated then state.proven = state.annotated.data.proven end
end
reset()

------------------------------------------------------------------------------------------
-- Dissector
------------------------------------------------------------------------------------------
-- An address kept as raw bytes, printed.
local function addr_text(a)
    if #a == 4 then return string.format("%d.%d.%d.%d", byte(a, 1, 4)) end
    local groups = {}
    for i = 1, #a - 1, 2 do groups[#groups + 1] = string.format("%x", be16(a, i)) end
    return table.concat(groups, ":")
end
local function ms(ns) return string.format("%.1f", ns / 1e6) end

-- Reads this frame's TCP segment and runs the analysis; returns the record to keep.
local function analyse(pinfo)
    local s1, s2 = fx.stream()
    if s1 == nil then return false end
    local stream = s1.value
    local protocols = tostring(last(fx.protocols()).value)
    -- The innermost network layer before TCP carries the segment.
    local v6 = false
    for p in (protocols:match("^(.-):tcp") or protocols):gmatch("[^:]+") do
        if p == "ip" then v6 = false elseif p == "ipv6" then v6 = true end
    end
    local src_fi = last((v6 and fx.ip6_src or fx.ip_src)())
    local sport_fi = last(fx.sport())
    if src_fi == nil or sport_fi == nil then return false end
    local ip = header_at(src_fi, v6 and 8 or 12, v6 and 24 or 16)     -- from the IP header's start
    local h = header_at(sport_fi, 0, 60)
    if ip == nil or #ip < (v6 and 24 or 16) then return false end
    local src = ip:sub(v6 and 9 or 13, v6 and 24 or 16)                 -- the raw source address
    local sport = sport_fi.value
    -- Times in ns from a per-flow origin (whole seconds of the flow's first frame): exact
    -- in a double for any flow shorter than 100 days, whatever the capture's other times.
    local t = last(fx.time()).value
    local base = state.base_secs[stream]
    if base == nil then base = t.secs; state.base_secs[stream] = base end
    local epoch0 = -base * 1e9
    if protocols:find(":icmp", 1, true) then
        -- A TCP header quoted in an ICMP error: it may open its flow, nothing more.
        state.analyzer:open_only(stream, src, sport, pinfo.number, epoch0)
        return false
    end
    if s2 ~= nil then return false end                  -- several TCP layers (docs)
    local ip_id
    if v6 then
        local more = last(fx.ip6_more())
        if (last(fx.ip6_frag()) and last(fx.ip6_frag()).value > 0) or (more and more.value) then
            return false                                -- IP fragments, as the engine
        end
    else
        ip_id = be16(ip, 5)
        if be16(ip, 7) % 16384 ~= 0 then return false end   -- MF set or an offset
    end
    if h == nil or #h < 20 then return false end        -- a TCP header cut short
    local len = last(fx.len())
    if len == nil then return false end
    local seg = {
        frame = pinfo.number, ts = (t.secs - base) * 1e9 + t.nsecs, epoch0 = epoch0, stream = stream,
        src = src, sport = sport, seq = be32(h, 5), ack = be32(h, 9), len = len.value,
        flags = be16(h, 13) % 4096, window = be16(h, 15), ip_version = v6 and 6 or 4, ip_id = ip_id,
    }
    tcp_options(h, seg, math.floor(byte(h, 13) / 16) * 4)
    local n = state.analyzer:segment(seg)
    if n.spurious_of ~= 0 then state.proven[n.spurious_of] = { pinfo.number, n.spurious_by } end
    -- Keep the values compactly: most frames carry no event.
    local rec = { stream, n.dir, n.data_dir, n.rwnd, n.rwnd_basis or -1, n.in_flight, n.unacked, n.sacked,
                  n.cwnd, n.cwnd_conf, n.limit, n.vantage or 0 }
    if n.retrans ~= 0 or n.dsack or n.spurious_of ~= 0 or n.reorder or n.lost_before ~= 0 or n.dup_ack ~= 0
       or n.zero_window or n.zero_window_probe or n.window_full or n.keepalive or n.duplicate
       or n.inferred_shift then
        rec[13] = n
    end
    rec[14] = n.rtt_ns              -- most ACKs carry only this: no notes kept for them
    if rec[13] == nil then rec[13] = false end
    return rec
end

local function add_int64(tree, field, x)
    return tree:add(field, Int64.new(x))   -- wslua 4.0 needs an Int64 object for FT_INT64
end

-- The expert info of one packet event, worded by the catalogue.
local function expert_event(tree, id, values)
    if settings.experts then tree:add_proto_expert_info(ei[id], core.format(core.CATALOGUE[id].message, values)) end
end

local function show_events(t, n, number)
    if n.retrans ~= 0 then
        local kind = core.RETRANS[n.retrans]
        t:add(hf.retrans, kind):set_generated()
        local values = { kind = kind }
        if n.retrans_of ~= 0 then
            t:add(hf.retrans_of, n.retrans_of):set_generated()
            values.orig_frame = { text = tostring(n.retrans_of) }
        end
        expert_event(t, "retransmission", values)
    end
    if n.dsack then
        t:add(hf.dsack, true):set_generated()
        local r = n.dsack_range
        if r then
            t:add(hf.dsack_left, r[1]):set_generated()
            t:add(hf.dsack_right, r[2]):set_generated()
            expert_event(t, "dsack", { left = { text = string.format("%.0f", r[1]) },
                                       right = { text = string.format("%.0f", r[2]) } })
        end
    end
    if n.spurious_of ~= 0 then
        t:add(hf.spurious_of, n.spurious_of):set_generated()
        t:add(hf.spurious_by, core.EVIDENCE[n.spurious_by]):set_generated()
        expert_event(t, "spurious_retransmission", {
            orig_frame = { text = tostring(n.spurious_of) }, evidence = { text = EVIDENCE_TEXT[n.spurious_by] },
            evidence_frame = { text = tostring(number) } })
    end
    if n.reorder then
        local r = n.reorder
        t:add(hf.reorder_packets, r.packets):set_generated()
        t:add(hf.reorder_bytes, r.bytes):set_generated()
        add_int64(t, hf.reorder_ns, r.late_ns):set_generated()
        expert_event(t, "reordering", { extent_packets = { int = r.packets }, extent_bytes = { int = r.bytes },
                                        extent_ms = { num = r.late_ns / 1e6 }, rack_ms = { num = n.rack_ns / 1e6 } })
    end
    if n.lost_before ~= 0 then
        t:add(hf.lost_before, n.lost_before):set_generated()
        expert_event(t, "lost_segment", { gap = { int = n.lost_before } })
    end
    if n.dup_ack ~= 0 then
        t:add(hf.dup_ack, n.dup_ack):set_generated()
        if n.dup_ack_of ~= 0 then t:add(hf.dup_ack_of, n.dup_ack_of):set_generated() end
        expert_event(t, "duplicate_ack", { count = { int = n.dup_ack }, orig_frame = { text = tostring(n.dup_ack_of) } })
    end
    if n.zero_window then
        t:add(hf.zero_window, true):set_generated()
        expert_event(t, "zero_window", {})
    end
    if n.zero_window_probe then
        t:add(hf.zero_window_probe, true):set_generated()
        expert_event(t, "zero_window_probe", {})
    end
    if n.window_full then
        t:add(hf.window_full, true):set_generated()
        expert_event(t, "window_full", { in_flight = { int = n.unacked }, rwnd = { int = n.rwnd } })
    end
    if n.keepalive then t:add(hf.keepalive, true):set_generated() end
    if n.duplicate then t:add(hf.duplicate, true):set_generated() end
    if n.inferred_shift then
        expert_event(t, "window_scale_inferred", { shift = { int = n.inferred_shift },
                                                   in_flight = { int = n.inferred_flight } })
    end
end

-- A chunk of an annotations table (packets or flows), built on first use.
local function annotated_chunk(kind, n)
    local a = state.annotated
    local k = math.floor(n / a.data.chunk)
    local c = a[kind][k]
    if c == nil then
        local build = a.data[kind][k]
        c = build and build() or false
        a[kind][k] = c
    end
    return c
end

-- The flow's verdict as of now, with its texts formatted once (recomputed only when the
-- flow has grown).
local function flow_verdict(stream)
    local fl, v
    if state.annotated then
        local chunk = annotated_chunk("flows", stream)
        fl = chunk and chunk[stream]
        v = fl
    else
        fl = state.analyzer.flows[stream]
    end
    if fl == nil then return nil end
    local c = state.verdicts[stream]
    if c == nil or c.packets ~= fl.packets then
        v = v or fl:verdict()
        c = { packets = fl.packets, v = v, texts = {}, remedies = {} }
        for i, f in ipairs(v.findings) do
            local e = core.CATALOGUE[f.id]
            c.texts[i] = core.format(e.message, f.values)
            c.remedies[i] = e.remedy ~= "" and core.format(e.remedy, f.values) or nil
        end
        local shares, busy = {}, math.max(v.busy_ns, 1)
        for st = 1, 6 do
            local share = v.state_ns[st] / busy
            if share >= 0.005 then shares[#shares + 1] = string.format("%s %.0f%%", LIMIT[st], 100 * share) end
        end
        if v.state_ns[7] > 0 then shares[#shares + 1] = string.format("(idle %.3f s)", v.state_ns[7] / 1e9) end
        c.shares = table.concat(shares, ", ")
        state.verdicts[stream] = c
    end
    return c
end

-- Every packet of the flow carries the verdict and its findings; the details (time
-- shares, remedies, evidence frames) and the experts sit on the flow's first frame and
-- on the evidence frames. Labels are built once per flow (`flow_verdict`'s cache).
local function show_verdict(tree, stream, number)
    local c = flow_verdict(stream)
    if c == nil then return end
    local v = c.v
    if c.labels == nil then
        c.labels, c.finding_labels, c.here = {}, {}, {}
        for i, f in ipairs(v.findings) do
            c.finding_labels[i] = "Finding: " .. f.id .. ": " .. c.texts[i]
            c.labels[i] = i == 1 and "Verdict: " .. f.id .. ": " .. c.texts[i] or c.finding_labels[i]
            for _, fr in ipairs(f.frames) do
                c.here[fr] = c.here[fr] or {}
                c.here[fr][i] = true
            end
        end
    end
    local vt = tree:add(hf.verdict, v.findings[1].id, c.labels[1])
    vt:set_generated()
    vt:add(hf.flow_vantage, v.vantage_name)
    local first = number == v.first_frame
    if first then
        vt:add(hf.verdict_message, c.texts[1])
        vt:add(hf.flow_data_dir, v.data_dir)
        vt:add(hf.share, c.shares)
    end
    local here_any = c.here[number]
    for i, f in ipairs(v.findings) do
        local ft = vt:add(hf.finding, f.id, c.finding_labels[i])
        local here = here_any ~= nil and here_any[i] == true
        if first or here then
            if c.remedies[i] then ft:add(hf.remedy, c.remedies[i]) end
            for _, fr in ipairs(f.frames) do
                if fr ~= 0 then ft:add(hf.evidence, fr) end
            end
            if settings.experts and (here or i == 1) then ft:add_proto_expert_info(ei[f.id], c.texts[i]) end
        end
    end
end

local function summary(rec)
    return string.format("tcpdiag: flow %.0f %s, flight %.0f B, rwnd %.0f B%s, cwnd %.0f B (%s), limited by %s",
                         rec[1], DIR_NAME[rec[2]], rec[6], rec[4], rec[5] == 2 and " (inferred)" or "", rec[9],
                         CONF[rec[10]], LIMIT[rec[11]])
end

function tcpdiag.dissector(tvb, pinfo, tree)
    local number = pinfo.number
    local rec = state.frames[number]
    local fresh = false
    local known_all = state.annotated ~= nil      -- the whole capture's results are at hand
    if known_all then
        local a = state.annotated
        local chunk = annotated_chunk("packets", number - 1)
        rec = chunk and chunk[number] or false
        local first = a.data.first
        if rec and (rec[15] ~= pinfo.len or (first.frame == number and first.abs_ts ~= pinfo.abs_ts)) then
            -- Not this capture's annotations: show nothing rather than another file's values
            -- (said once, on standard error and as an expert info for the GUI).
            local msg = string.format("%s: frame %d (%d bytes at %.9f) is not in them: they are not this "
                .. "capture's; ignoring them", a.path, number, pinfo.len, pinfo.abs_ts)
            io.stderr:write("tcpdiag: " .. msg .. "\n")
            tree:add(tcpdiag):add_proto_expert_info(ei.annotations_mismatch, "tcpdiag: " .. msg)
            state.annotated = nil
            state.next = -1
            return
        end
    elseif rec == nil then
        -- No TCP fields without a protocol tree (tshark -2's first pass without -R):
        -- nothing to read; the in-order sweep then runs on the next pass.
        if fx == nil or fx.frame_number() == nil then return end
        if number ~= state.next then return end
        -- Compute once, in frame order: on the first pass (not pinfo.visited), or on the
        -- first in-order pass that has the fields.
        rec = analyse(pinfo)
        state.frames[number] = rec
        state.next = number + 1
        fresh = true
    end
    if not rec then return end
    -- Labels only when someone reads them (tshark -V, the GUI's selected packet): fields
    -- for filters and -T fields are added either way.
    local visible = tree.visible
    local t = visible and tree:add(tcpdiag, summary(rec)) or tree:add(tcpdiag)
    t:set_generated()
    t:add(hf.flow, rec[1])
    t:add(hf.data_dir, rec[3])
    t:add(hf.rwnd, rec[4])
    if rec[5] >= 0 then t:add(hf.rwnd_basis, BASIS[rec[5]]) end
    t:add(hf.in_flight, rec[6])
    t:add(hf.unacked, rec[7])
    if rec[8] ~= 0 then t:add(hf.sacked, rec[8]) end
    t:add(hf.cwnd, rec[9])
    t:add(hf.cwnd_conf, CONF[rec[10]])
    t:add(hf.limit, LIMIT[rec[11]])
    if rec[12] ~= 0 then t:add(hf.vantage, VANTAGE[rec[12]]) end
    if rec[13] then show_events(t, rec[13], number) end
    local rtt = rec[14]
    if rtt then
        local item = add_int64(t, hf.rtt_ns, rtt)
        if visible then item:append_text(" (" .. ms(rtt) .. " ms)") end
    end
    if known_all or (pinfo.visited and not fresh) then
        -- Known only once the whole capture was read (not in a one-pass tshark, unless
        -- annotated).
        local p = state.proven[number]
        if p then
            t:add(hf.spurious_proven_in, p[1]):set_generated()
            if settings.experts then
                t:add_proto_expert_info(ei.spurious_retransmission,
                    core.format(core.CATALOGUE.spurious_retransmission.message, {
                        orig_frame = { text = tostring(number) }, evidence = { text = EVIDENCE_TEXT[p[2]] },
                        evidence_frame = { text = tostring(p[1]) } }))
            end
        end
        if settings.verdicts then show_verdict(t, rec[1], number) end
    end
end

------------------------------------------------------------------------------------------
-- Registration
------------------------------------------------------------------------------------------
function tcpdiag.init() reset() end
register_postdissector(tcpdiag)

-- Tools → tcpdiag → Flow verdicts (GUI only; tshark has no menus).
local function verdicts_window()
    local w = TextWindow.new("tcpdiag: flow verdicts")
    local streams = {}
    if state.annotated then
        for k in pairs(state.annotated.data.flows) do
            for s in pairs(annotated_chunk("flows", k * state.annotated.data.chunk)) do streams[#streams + 1] = s end
        end
    end
    for s in pairs(state.analyzer.flows) do streams[#streams + 1] = s end
    table.sort(streams)
    if #streams == 0 then
        w:set("No TCP flows analysed yet: open a capture first (the verdicts need the whole file read).")
        return
    end
    local lines = {}
    for _, s in ipairs(streams) do
        local v = flow_verdict(s).v
        local fl = state.analyzer.flows[s]
        local a = fl and string.format("A = %s port %s, ", addr_text(fl.a_src), tostring(fl.a_port)) or ""
        lines[#lines + 1] = string.format("tcp.stream eq %d   (%sdata %s, capture point %s)", s, a,
                                          DIR_NAME[v.data_dir], v.vantage_name)
        for i, f in ipairs(v.findings) do
            local e = core.CATALOGUE[f.id]
            local frames = {}
            for _, fr in ipairs(f.frames) do frames[#frames + 1] = string.format("%.0f", fr) end
            lines[#lines + 1] = string.format("  %s %s: %s", i == 1 and "*" or "-", f.id, core.format(e.message, f.values))
            if e.remedy ~= "" then lines[#lines + 1] = "      remedy: " .. core.format(e.remedy, f.values) end
            if #frames > 0 then lines[#lines + 1] = "      frames: " .. table.concat(frames, ", ") end
        end
        lines[#lines + 1] = ""
    end
    w:set(table.concat(lines, "\n"))
end
if gui_enabled ~= nil and gui_enabled() and register_menu ~= nil then
    register_menu("tcpdiag/Flow verdicts", verdicts_window, MENU_TOOLS_UNSORTED)
end

------------------------------------------------------------------------------------------
-- Preferences (one settings table; the analysis defaults are the engine's)
------------------------------------------------------------------------------------------
settings = {
    experts = true,                  -- add expert infos
    verdicts = true,                 -- show each flow's verdict once the capture is read
    annotations = "",                -- the engine's results for this capture (annotated mode)
}
for name, default in pairs(DEFAULT_THRESHOLDS) do settings[name] = default end
tcpdiag.prefs.experts = Pref.bool("Expert infos", settings.experts,
    "Add expert infos for retransmissions, DSACKs, reordering, zero windows ... and the verdicts")
tcpdiag.prefs.verdicts = Pref.bool("Flow verdicts", settings.verdicts,
    "Show each flow's verdict on its packets once the whole capture has been read")
tcpdiag.prefs.min_share_pct = Pref.uint("Finding threshold (% of busy time)", settings.min_share_pct,
    "A limit state must cover this share of the busy time to become a finding (tcpdiag: 25)")
tcpdiag.prefs.min_segments = Pref.uint("Minimum segments to judge", settings.min_segments,
    "Flows with less new data than this many segments get no verdict (tcpdiag: 20)")
tcpdiag.prefs.queue_inflation_pct = Pref.uint("Standing-queue RTT inflation (%)", settings.queue_inflation_pct,
    "Smoothed RTT over minimum RTT at or above which the bottleneck queue is full (tcpdiag: 150)")
tcpdiag.prefs.flat_rtts = Pref.uint("Flat flight for sndbuf limit (RTTs)", settings.flat_rtts,
    "Round trips of flat flight without loss that mean a send-buffer limit (tcpdiag: 8)")

tcpdiag.prefs.annotations = Pref.string("Annotations file", settings.annotations,
    "The engine's results for the open capture, from `tcpdiag wireshark annotate CAPTURE` (opened by " ..
    "`tcpdiag wireshark CAPTURE` itself): shown instead of analysing in Lua, much faster. Empty: analyse in Lua")

function tcpdiag.prefs_changed()
    local p = tcpdiag.prefs
    settings.annotations = p.annotations
    settings.experts = p.experts
    settings.verdicts = p.verdicts
    settings.min_share_pct = p.min_share_pct
    settings.min_segments = p.min_segments
    settings.queue_inflation_pct = p.queue_inflation_pct
    settings.flat_rtts = p.flat_rtts
    core.settings.min_share = settings.min_share_pct / 100
    core.settings.min_segments = settings.min_segments
    core.settings.queue_inflation = settings.queue_inflation_pct / 100
    core.settings.flat_rtts = settings.flat_rtts
    state.verdicts = {}
end
