-- `split(s, sep)`: the pieces of s between plain (not pattern) separators, empty ones
-- kept. Shared by the vector runners (run_core.lua, mock_wireshark.lua).
return function(s, sep)
    local out, i = {}, 1
    while true do
        local j = s:find(sep, i, true)
        if not j then out[#out + 1] = s:sub(i); return out end
        out[#out + 1] = s:sub(i, j - 1)
        i = j + 1
    end
end
