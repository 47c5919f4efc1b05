-- Loaded before and after the plugin (tshark -X lua_script:THIS -X lua_script:PLUGIN
-- -X lua_script:THIS): the second load prints "globals: ..." once the plugin has loaded
-- and again after every dissection, naming each global the plugin created
-- (tests/test_wireshark_plugin.py). Its own state lives in package.loaded.
local KEY = "tcpdiag-test-globals"
local before = package.loaded[KEY]
if before == nil then
    local names = {}
    for k in pairs(_G) do names[k] = true end
    package.loaded[KEY] = names
    return
end
local function report()
    local new = {}
    for k in pairs(_G) do
        if not before[k] then new[#new + 1] = tostring(k) end
    end
    table.sort(new)
    print("globals: " .. (#new == 0 and "none new" or table.concat(new, " ")))
end
report()
local check = Proto("tcpdiag_globals_check", "tcpdiag test: globals")
function check.dissector() report() end
register_postdissector(check)
